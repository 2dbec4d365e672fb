/* napkin-command-dialog.c: "Run a Command…": the command line and the folder it runs in
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small modal window: the command in an entry (prefilled, e.g. with the Planner's
 * launcher line), the working folder with a chooser, Cancel and Run. Run emits
 * ::run with both and closes; the page starts the command (nk-command-run.h).
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-command-dialog.h"
#include "napkin-file-chooser.h"

struct _NapkinCommandDialog
{
  AdwWindow  parent_instance;

  GtkWidget *command_row;
  GtkWidget *folder_row;
  GtkWidget *run_button;
  char      *folder;
};

G_DEFINE_FINAL_TYPE (NapkinCommandDialog, napkin_command_dialog, ADW_TYPE_WINDOW)

enum {
  SIGNAL_RUN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_run_button (NapkinCommandDialog *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->command_row));
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  gtk_widget_set_sensitive (self->run_button, *stripped != '\0' && self->folder != NULL);
}

/* Test hook and the chooser's door. */
void
napkin_command_dialog_set_folder (NapkinCommandDialog *self,
                                  const char          *folder)
{
  g_autofree char *shown = NULL;

  g_return_if_fail (NAPKIN_IS_COMMAND_DIALOG (self));

  g_free (self->folder);
  self->folder = g_strdup (folder);
  shown = folder != NULL ? g_filename_display_name (folder) : g_strdup (_("None chosen"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->folder_row), shown);
  update_run_button (self);
}

static void
folder_chosen (GtkWidget *owner,
               GFile     *file,
               gpointer   user_data)
{
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    napkin_command_dialog_set_folder (NAPKIN_COMMAND_DIALOG (owner), path);
}

static void
choose_folder (NapkinCommandDialog *self)
{
  napkin_choose_file (GTK_WIDGET (self), _("Folder to Run In"), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                      _("_Select"), NULL, NULL, folder_chosen, NULL, NULL);
}

static void
run_clicked (NapkinCommandDialog *self)
{
  g_autoptr(NapkinCommandDialog) hold = g_object_ref (self);

  if (!gtk_widget_get_sensitive (self->run_button))
    return;
  g_signal_emit (self, signals[SIGNAL_RUN], 0, napkin_command_dialog_get_command (self), self->folder);
  gtk_window_destroy (GTK_WINDOW (self));
}

const char *
napkin_command_dialog_get_command (NapkinCommandDialog *self)
{
  g_return_val_if_fail (NAPKIN_IS_COMMAND_DIALOG (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->command_row));
}

/* Returns: (nullable): the folder the command is to run in */
const char *
napkin_command_dialog_get_folder (NapkinCommandDialog *self)
{
  g_return_val_if_fail (NAPKIN_IS_COMMAND_DIALOG (self), NULL);
  return self->folder;
}

static void
napkin_command_dialog_finalize (GObject *object)
{
  g_free (NAPKIN_COMMAND_DIALOG (object)->folder);
  G_OBJECT_CLASS (napkin_command_dialog_parent_class)->finalize (object);
}

static void
napkin_command_dialog_class_init (NapkinCommandDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = napkin_command_dialog_finalize;
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  /**
   * NapkinCommandDialog::run:
   * @self: the dialog
   * @command: the command line as typed
   * @folder: the folder to run it in
   *
   * Run was pressed; the dialog closes after.
   */
  signals[SIGNAL_RUN] =
    g_signal_new ("run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static GtkWidget *
build_header (NapkinCommandDialog *self)
{
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));

  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_show_start_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), adw_window_title_new (_("Run a Command"), NULL));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (cancel), "window.close");
  self->run_button = gtk_button_new_with_mnemonic (_("_Run"));
  gtk_widget_add_css_class (self->run_button, "suggested-action");
  g_signal_connect_swapped (self->run_button, "clicked", G_CALLBACK (run_clicked), self);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), self->run_button);
  return header;
}

static void
napkin_command_dialog_init (NapkinCommandDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *choose = gtk_button_new_from_icon_name ("folder-open-symbolic");

  gtk_window_set_title (GTK_WINDOW (self), _("Run a Command"));
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), 560, -1);
  gtk_box_append (GTK_BOX (box), build_header (self));

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
    _("The command runs without a shell, in a process group of its own that Stop ends, its output "
      "kept in a log of its own run folder and its steps read as they come. For pipes or "
      "variables, run sh -c '…'."));
  self->command_row = adw_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->command_row), _("Command"));
  adw_entry_row_set_activates_default (ADW_ENTRY_ROW (self->command_row), FALSE);
  g_signal_connect_swapped (self->command_row, "changed", G_CALLBACK (update_run_button), self);
  g_signal_connect_swapped (self->command_row, "entry-activated", G_CALLBACK (run_clicked), self);
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (self->command_row), FALSE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), self->command_row);

  self->folder_row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->folder_row), _("Working Folder"));
  gtk_widget_set_valign (choose, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (choose, "flat");
  gtk_widget_set_tooltip_text (choose, _("Choose the Working Folder"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (choose), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Choose the Working Folder"), -1);
  g_signal_connect_swapped (choose, "clicked", G_CALLBACK (choose_folder), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self->folder_row), choose);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self->folder_row), choose);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), self->folder_row);

  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 720);
  gtk_widget_set_margin_top (group, 18);
  gtk_widget_set_margin_bottom (group, 18);
  gtk_widget_set_margin_start (group, 12);
  gtk_widget_set_margin_end (group, 12);
  adw_clamp_set_child (ADW_CLAMP (clamp), group);
  gtk_widget_set_vexpand (clamp, TRUE);
  gtk_box_append (GTK_BOX (box), clamp);
  adw_window_set_content (ADW_WINDOW (self), box);
}

/**
 * napkin_command_dialog_new:
 * @parent: (nullable): the window it belongs to
 * @command: (nullable): the command to start from
 * @folder: (nullable): the folder to start from
 *
 * Returns: (transfer none): the dialog, not shown yet
 */
GtkWidget *
napkin_command_dialog_new (GtkWindow  *parent,
                           const char *command,
                           const char *folder)
{
  NapkinCommandDialog *self = g_object_new (NAPKIN_TYPE_COMMAND_DIALOG, "transient-for", parent, NULL);

  gtk_editable_set_text (GTK_EDITABLE (self->command_row), command != NULL ? command : "");
  napkin_command_dialog_set_folder (self, folder);
  return GTK_WIDGET (self);
}
