/* napkin-file-chooser.c: ask for a file with a native dialog, for any page
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-file-chooser.h"

/* What one question carries from the asking to the answer. */
typedef struct {
  GtkWidget        *owner;
  NapkinFileChosen  chosen;
  gpointer          user_data;
  GDestroyNotify    destroy;
} Request;

static void
request_free (Request *request)
{
  if (request->destroy != NULL)
    request->destroy (request->user_data);
  g_object_unref (request->owner);
  g_free (request);
}

static void
on_chooser_response (GtkNativeDialog *dialog,
                     int              response,
                     Request         *request)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        request->chosen (request->owner, file, request->user_data);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  request_free (request);
}

/**
 * napkin_choose_file:
 * @owner: the widget that asks; its window is the dialog's parent
 * @title: the dialog's title
 * @action: open, save or select a folder
 * @accept: the label of the accept button, with a mnemonic
 * @suggested_name: (nullable): the file name offered when saving
 * @filter: (nullable): the one filter the dialog offers
 * @chosen: called with @owner, the accepted file and @user_data
 * @user_data: for @chosen
 * @destroy: (nullable): frees @user_data once the person has answered
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
                    NapkinFileChosen      chosen,
                    gpointer              user_data,
                    GDestroyNotify        destroy)
{
  GtkRoot *root;
  GtkFileChooserNative *dialog;
  Request *request;

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
  request = g_new0 (Request, 1);
  request->owner = g_object_ref (owner);
  request->chosen = chosen;
  request->user_data = user_data;
  request->destroy = destroy;
  g_signal_connect (dialog, "response", G_CALLBACK (on_chooser_response), request);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
