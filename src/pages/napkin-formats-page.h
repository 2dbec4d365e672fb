/* napkin-formats-page.h: the Number formats page: one number in every format, bit by bit
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_FORMATS_PAGE (napkin_formats_page_get_type ())

G_DECLARE_FINAL_TYPE (NapkinFormatsPage, napkin_formats_page, NAPKIN, FORMATS_PAGE, GtkWidget)

GtkWidget  *napkin_formats_page_new            (void);
const char *napkin_formats_page_get_value_text (NapkinFormatsPage *self);
void        napkin_formats_page_set_value_text (NapkinFormatsPage *self,
                                                const char        *text);
gboolean    napkin_formats_page_get_saturate   (NapkinFormatsPage *self);
void        napkin_formats_page_set_saturate   (NapkinFormatsPage *self,
                                                gboolean           saturate);
void        napkin_formats_page_set_settings   (NapkinFormatsPage *self,
                                                GSettings         *settings);

G_END_DECLS
