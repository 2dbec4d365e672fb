/* napkin-file-chooser.h: ask for a file with a native dialog, for any page
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * NapkinFileChosen:
 * @owner: the widget that asked
 * @file: the file the person accepted
 * @user_data: what napkin_choose_file() was given
 *
 * Called once the person accepts a file; not called when they cancel.
 */
typedef void (*NapkinFileChosen) (GtkWidget *owner,
                                  GFile     *file,
                                  gpointer   user_data);

void napkin_choose_file (GtkWidget            *owner,
                         const char           *title,
                         GtkFileChooserAction  action,
                         const char           *accept,
                         const char           *suggested_name,
                         GtkFileFilter        *filter,
                         NapkinFileChosen      chosen,
                         gpointer              user_data,
                         GDestroyNotify        destroy);

G_END_DECLS
