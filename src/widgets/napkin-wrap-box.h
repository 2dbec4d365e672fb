/* napkin-wrap-box.h: children in a row that wraps onto more lines when narrow
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_WRAP_BOX (napkin_wrap_box_get_type ())

G_DECLARE_FINAL_TYPE (NapkinWrapBox, napkin_wrap_box, NAPKIN, WRAP_BOX, GtkWidget)

GtkWidget *napkin_wrap_box_new         (void);
guint      napkin_wrap_box_get_n_lines (NapkinWrapBox *self,
                                        int            width);

G_END_DECLS
