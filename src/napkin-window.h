/* napkin-window.h: the main window: a view stack of pages
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "napkin-application.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_WINDOW (napkin_window_get_type ())

G_DECLARE_FINAL_TYPE (NapkinWindow, napkin_window, NAPKIN, WINDOW, AdwApplicationWindow)

NapkinWindow *napkin_window_new        (NapkinApplication *application);
void          napkin_window_set_page   (NapkinWindow      *self,
                                        const char        *name);
const char   *napkin_window_get_page   (NapkinWindow      *self);
GtkWidget    *napkin_window_get_page_widget (NapkinWindow *self,
                                             const char   *name);

G_END_DECLS
