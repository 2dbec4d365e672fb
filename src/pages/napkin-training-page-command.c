/* napkin-training-page-command.c: the Training page's runs Napkin does not run: Run a Command…, Stop, facts
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "Run a Command…" starts a command through #NkCommandRun in a folder the person
 * picks (offering the last command, or the Planner's launcher line for its plan); its output goes to `output.log` in a new run folder under the page's runs
 * root, followed as it grows (napkin_run_new_following()), so its steps appear in
 * the list and the plots as they come. A run of another engine (imported, followed
 * or launched) shows its facts in the form's place and only the actions that apply
 * to it: Stop Command while its command runs, none once it has ended. Closing the
 * window while a command runs asks first.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "nk-command-run.h"
#include "nk-run-dir.h"
#include "napkin-command-dialog.h"
#include "napkin-file-chooser.h"
#include "napkin-planner-page.h"
#include "napkin-training-page-private.h"

static NapkinRun *
shown_run (NapkinTrainingPage *self)
{
  return napkin_run_view_get_run (self->run_view);
}

/* Returns: how many commands started from the page still run */
guint
_napkin_training_page_count_commands (NapkinTrainingPage *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  guint running = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);
      NkCommandRun *command = napkin_run_get_command (run);

      if (command != NULL && nk_command_run_get_running (command))
        running++;
    }
  return running;
}

/* Stops every command still running (closing, disposing). */
void
_napkin_training_page_stop_commands (NapkinTrainingPage *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->runs));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);

      if (napkin_run_get_command (run) != NULL)
        nk_command_run_stop (napkin_run_get_command (run));
    }
}

/* The sidebar and the header's controls for the shown run: a run of another
 * engine shows its facts, and Stop Command while its command runs. */
void
_napkin_training_page_update_command (NapkinTrainingPage *self)
{
  NapkinRun *shown = shown_run (self);
  gboolean foreign = shown != NULL && napkin_run_get_import (shown) != NULL && !self->settings_forced;
  NkCommandRun *command = foreign ? napkin_run_get_command (shown) : NULL;
  gboolean command_running = command != NULL && nk_command_run_get_running (command);

  napkin_run_facts_set_run (self->facts, foreign ? shown : NULL);
  if (foreign)
    {
      g_autofree char *subtitle = napkin_run_dup_description (shown);

      gtk_label_set_label (self->run_subtitle, subtitle);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->facts), foreign);
  gtk_widget_set_visible (GTK_WIDGET (self->form), !foreign);
  gtk_widget_set_visible (self->start_button, !foreign);
  gtk_widget_set_visible (self->stop_button, !foreign);
  gtk_widget_set_visible (self->checkpoint_button, !foreign);
  if (foreign)
    {
      gtk_widget_set_visible (self->pause_button, FALSE);
      gtk_widget_set_visible (self->resume_button, FALSE);
    }
  gtk_widget_set_visible (self->stop_command_button, command_running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "training.stop-command",
                                 command_running && !nk_command_run_get_stopping (command));
}

static void
on_command_ended (NapkinTrainingPage *self,
                  NkCommandRun       *command)
{
  g_autofree char *status = nk_command_run_dup_status (command);
  g_autofree char *title = g_strdup_printf (_("“%s” %s"), nk_command_run_get_command_line (command), status);

  _napkin_training_page_show_toast (self, title);
  _napkin_training_page_update_actions (self);
  if (self->active == NULL && _napkin_training_page_count_commands (self) == 0)
    _napkin_training_page_close_pending_window (self);
}

/* A followed run's subtitle and facts move with its steps while it is shown. */
static void
on_followed_changed (NapkinTrainingPage *self,
                     GParamSpec         *pspec,
                     NapkinRun          *run)
{
  if (shown_run (self) == run)
    _napkin_training_page_update_actions (self);
}

static void
watch_followed (NapkinTrainingPage *self,
                NapkinRun          *run)
{
  g_signal_connect_object (run, "notify::last-step", G_CALLBACK (on_followed_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (run, "notify::state", G_CALLBACK (on_followed_changed), self, G_CONNECT_SWAPPED);
}

static void
on_command_stopping (NapkinTrainingPage *self)
{
  _napkin_training_page_update_actions (self);
}

/* A run following @command's log, its end and Stop watched by the page; %NULL
 * with @error when the log cannot be followed. */
static NapkinRun *
follow_command (NapkinTrainingPage  *self,
                NkCommandRun        *command,
                GError             **error)
{
  g_autofree char *log = nk_command_run_dup_log_path (command);
  NapkinRun *run = napkin_run_new_following (log, command, self->next_index, error);

  if (run == NULL)
    return NULL;
  self->next_index++;
  g_signal_connect_object (command, "ended", G_CALLBACK (on_command_ended), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (command, "notify::stopping", G_CALLBACK (on_command_stopping), self,
                           G_CONNECT_SWAPPED);
  watch_followed (self, run);
  return run;
}

/**
 * _napkin_training_page_add_command:
 * @self: a training page
 * @command: a command an earlier Napkin started (nk_command_run_new_from_folder())
 *
 * Lists @command's run at the top, following its log: still growing while the
 * command runs (Stop reaches it as if this Napkin had started it), read whole
 * once it has ended. A log that cannot be read leaves it out.
 */
void
_napkin_training_page_add_command (NapkinTrainingPage *self,
                                   NkCommandRun       *command)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NapkinRun) run = follow_command (self, command, &error);

  if (run == NULL)
    {
      g_debug ("%s", error->message);
      return;
    }
  g_list_store_insert (self->runs, 0, run);
}

/* Starts @line in @folder; what goes wrong is a toast naming the command or folder. */
static void
start_command (NapkinTrainingPage *self,
               const char         *line,
               const char         *folder)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkCommandRun) command = nk_command_run_new (line, folder, &error);
  g_autofree char *run_folder = NULL;
  g_autofree char *title = NULL;
  g_autoptr(NapkinRun) run = NULL;

  if (command == NULL
      || (run_folder = nk_run_dir_new_path (self->runs_root, &error)) == NULL
      || !nk_command_run_start (command, run_folder, &error))
    {
      if (run_folder != NULL)
        g_rmdir (run_folder);
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  g_free (self->command_dir);
  self->command_dir = g_strdup (folder);
  g_free (self->launch_command);
  self->launch_command = g_strdup (line);
  run = follow_command (self, command, &error);
  if (run == NULL)
    {
      nk_command_run_stop (command);
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  g_list_store_insert (self->runs, 0, run);
  _napkin_training_page_show_run (self, run);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");
  title = g_strdup_printf (_("Started “%s”"), line);
  _napkin_training_page_show_toast (self, title);
}

/* The Planner's launcher line for its plan (what its Export Launch Config prints,
 * for one node): torchtitan's, or the first engine that takes the plan. */
static char *
planner_launch_line (NapkinTrainingPage *self)
{
  static const NkLaunchEngine engines[] = {
    NK_LAUNCH_ENGINE_TORCHTITAN, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ENGINE_DEEPSPEED,
  };
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_VIEW_STACK);
  GtkWidget *planner = stack != NULL ? adw_view_stack_get_child_by_name (ADW_VIEW_STACK (stack), "planner") : NULL;
  NkPlan *plan = NAPKIN_IS_PLANNER_PAGE (planner) ? napkin_planner_page_get_plan (NAPKIN_PLANNER_PAGE (planner))
                                                  : NULL;
  NkLaunchSpec spec;

  if (plan == NULL || !nk_plan_get_launch_spec (plan, &spec, NULL))
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (engines); i++)
    {
      char *line = nk_launch_command (&spec, engines[i], NULL);

      if (line != NULL)
        return line;
    }
  return NULL;
}

static void
on_dialog_run (NapkinTrainingPage *self,
               const char         *line,
               const char         *folder)
{
  start_command (self, line, folder);
}

/* Parameter (COMMAND, FOLDER): runs COMMAND in FOLDER; an empty COMMAND asks, with
 * the last command (or the Planner's launcher line) and FOLDER (or the last one)
 * filled in. */
static void
run_command_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *line, *folder;
  GtkWidget *dialog;

  g_variant_get (parameter, "(&s&s)", &line, &folder);
  if (*line != '\0')
    {
      start_command (self, line, *folder != '\0' ? folder : g_get_home_dir ());
      return;
    }
  if (self->launch_command == NULL)
    self->launch_command = planner_launch_line (self);
  dialog = napkin_command_dialog_new (GTK_WINDOW (gtk_widget_get_root (widget)), self->launch_command,
                                      *folder != '\0' ? folder
                                      : self->command_dir != NULL ? self->command_dir : g_get_home_dir ());
  g_signal_connect_object (dialog, "run", G_CALLBACK (on_dialog_run), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
stop_command_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NapkinRun *run = shown_run (NAPKIN_TRAINING_PAGE (widget));

  if (run != NULL && napkin_run_get_command (run) != NULL)
    nk_command_run_stop (napkin_run_get_command (run));
}

static void
follow_chosen (GtkWidget *widget,
               GFile     *file,
               gpointer   user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;
  g_autoptr(NapkinRun) run = NULL;

  if (path == NULL)
    {
      _napkin_training_page_show_toast (self, _("Only files on this computer can be used"));
      return;
    }
  run = napkin_run_new_following (path, NULL, self->next_index++, &error);
  if (run == NULL)
    {
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  watch_followed (self, run);
  g_list_store_insert (self->runs, 0, run);
  _napkin_training_page_show_run (self, run);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");
}

/* Parameter: a log still being written (or a TensorBoard folder); empty asks. */
static void
follow_log_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  const char *path = g_variant_get_string (parameter, NULL);

  if (*path != '\0')
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);

      follow_chosen (widget, file, NULL);
    }
  else
    napkin_choose_file (widget, _("Follow a Growing Log"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Follow"), NULL,
                        NULL, follow_chosen, NULL, NULL);
}

/* From a run of another engine's facts back to the form, for a run of Napkin's. */
static void
edit_settings_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  self->settings_forced = TRUE;
  _napkin_training_page_update_actions (self);
  adw_leaflet_set_visible_child_name (self->leaflet, "form");
}

/**
 * napkin_training_page_set_launch_command:
 * @self: a training page
 * @command: (nullable): a launcher line (the Planner's Export Launch Config's)
 *
 * What "Run a Command…" offers first.
 */
void
napkin_training_page_set_launch_command (NapkinTrainingPage *self,
                                         const char         *command)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));

  g_free (self->launch_command);
  self->launch_command = g_strdup (command);
}

/* Test hook: the facts the sidebar shows, by name (engine, source, status, ...). */
const char *
napkin_training_page_get_fact (NapkinTrainingPage *self,
                               const char         *name)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->facts)))
    return NULL;
  return napkin_run_facts_get_fact (self->facts, name);
}

/* Asks before closing while commands run: Stop and Quit stops them and closes
 * @window once they have ended. */
static void
on_commands_close_response (AdwMessageDialog   *dialog,
                            const char         *response,
                            NapkinTrainingPage *self)
{
  GtkWindow *window = gtk_window_get_transient_for (GTK_WINDOW (dialog));

  if (!g_str_equal (response, "stop") || window == NULL)
    return;
  g_set_object (&self->closing_window, window);
  _napkin_training_page_stop_commands (self);
  if (_napkin_training_page_count_commands (self) == 0)
    _napkin_training_page_close_pending_window (self);
}

void
_napkin_training_page_confirm_close_commands (NapkinTrainingPage *self,
                                              GtkWindow          *window)
{
  guint n = _napkin_training_page_count_commands (self);
  g_autofree char *body =
    g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                  "A command started from Napkin still runs. Stopping sends it SIGINT, "
                                  "then SIGTERM and SIGKILL if it does not end.",
                                  "%u commands started from Napkin still run. Stopping sends them SIGINT, "
                                  "then SIGTERM and SIGKILL if they do not end.", n), n);
  GtkWidget *dialog = adw_message_dialog_new (window, g_dngettext (GETTEXT_PACKAGE, "Stop the Command?",
                                                                   "Stop the Commands?", n),
                                              body);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "stop", _("_Stop and Quit"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "stop", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_commands_close_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_napkin_training_page_class_command_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (NAPKIN_TYPE_RUN_FACTS);
  gtk_widget_class_install_action (widget_class, "training.run-command", "(ss)", run_command_action);
  gtk_widget_class_install_action (widget_class, "training.stop-command", NULL, stop_command_action);
  gtk_widget_class_install_action (widget_class, "training.follow-log", "s", follow_log_action);
  gtk_widget_class_install_action (widget_class, "training.edit-settings", NULL, edit_settings_action);
}
