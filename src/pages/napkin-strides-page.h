/* napkin-strides-page.h: the Strides & views page: a program, its storage and its views
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-program.h"
#include "napkin-storage-diagram-model.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_STRIDES_PAGE (napkin_strides_page_get_type ())

G_DECLARE_FINAL_TYPE (NapkinStridesPage, napkin_strides_page, NAPKIN, STRIDES_PAGE, GtkWidget)

GtkWidget                 *napkin_strides_page_new              (void);
const char                *napkin_strides_page_get_program_text (NapkinStridesPage *self);
void                       napkin_strides_page_set_program_text (NapkinStridesPage *self,
                                                                 const char        *text);
NkDType                    napkin_strides_page_get_dtype        (NapkinStridesPage *self);
void                       napkin_strides_page_set_dtype        (NapkinStridesPage *self,
                                                                 NkDType            dtype);
NkProgram                 *napkin_strides_page_get_program      (NapkinStridesPage *self);
NapkinStorageDiagramModel *napkin_strides_page_get_model        (NapkinStridesPage *self);
void                       napkin_strides_page_set_settings     (NapkinStridesPage *self,
                                                                 GSettings         *settings);

G_END_DECLS
