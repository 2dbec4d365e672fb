/* napkin-command-dialog.h: "Run a Command…": the command line and the folder it runs in
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_COMMAND_DIALOG (napkin_command_dialog_get_type ())

G_DECLARE_FINAL_TYPE (NapkinCommandDialog, napkin_command_dialog, NAPKIN, COMMAND_DIALOG, AdwWindow)

GtkWidget  *napkin_command_dialog_new         (GtkWindow           *parent,
                                               const char          *command,
                                               const char          *folder);
const char *napkin_command_dialog_get_command (NapkinCommandDialog *self);
const char *napkin_command_dialog_get_folder  (NapkinCommandDialog *self);
void        napkin_command_dialog_set_folder  (NapkinCommandDialog *self,
                                               const char          *folder);

G_END_DECLS
