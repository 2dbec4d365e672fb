/* napkin-file-chooser.c: ask for a file with a native dialog, for any page
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-file-chooser.h"

static void
on_chooser_response (GtkNativeDialog *dialog,
                     int              response,
                     GtkWidget       *owner)
{
  NapkinFileChosen chosen = g_object_get_data (G_OBJECT (dialog), "napkin-chosen");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        chosen (owner, file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (owner);
}

/**
 * napkin_choose_file:
 * @owner: the widget that asks; its window is the dialog's parent
 * @title: the dialog's title
 * @action: open, save or select a folder
 * @accept: the label of the accept button, with a mnemonic
 * @suggested_name: (nullable): the file name offered when saving
 * @filter: (nullable): the one filter the dialog offers
 * @chosen: called with @owner and the accepted file
 *
 * Shows a modal native file chooser over @owner's window and keeps @owner alive
 * until the person answers.
 */
void
napkin_choose_file (GtkWidget            *owner,
                    const char           *title,
                    GtkFileChooserAction  action,
                    const char           *accept,
                    const char           *suggested_name,
                    GtkFileFilter        *filter,
                    NapkinFileChosen      chosen)
{
  GtkRoot *root;
  GtkFileChooserNative *dialog;

  g_return_if_fail (GTK_IS_WIDGET (owner));
  g_return_if_fail (chosen != NULL);

  root = gtk_widget_get_root (owner);
  /* No cancel label: GTK's own "_Cancel", translated by GTK. */
  dialog = gtk_file_chooser_native_new (title, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        action, accept, _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  if (suggested_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  if (filter != NULL)
    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_set_data (G_OBJECT (dialog), "napkin-chosen", chosen);
  g_signal_connect (dialog, "response", G_CALLBACK (on_chooser_response), g_object_ref (owner));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
