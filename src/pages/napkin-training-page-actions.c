/* napkin-training-page-actions.c: the Training page's actions: start, pause, stop, open, export
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every action of the page is `training.*`, installed on the page's class, so the
 * buttons, the menu, the shortcuts and the tests all go through the same doors.
 * Actions that take a file take a path as their parameter; an empty path asks
 * with a file chooser.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "nk-checkpoint.h"
#include "nk-import-plan.h"
#include "nk-log-import.h"
#include "napkin-file-chooser.h"
#include "napkin-memory-dialog.h"
#include "napkin-training-page-private.h"

#define EXPORT_WIDTH  960
#define EXPORT_HEIGHT 420

static NapkinRun *
shown_run (NapkinTrainingPage *self)
{
  return napkin_run_view_get_run (self->run_view);
}

/* Actions called with a path (tests, scripts) take the chooser's road. */
static void
use_path (NapkinTrainingPage *self,
          const char         *path,
          NapkinFileChosen    chosen,
          gpointer            user_data)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  chosen (GTK_WIDGET (self), file, user_data);
}

/* The file choosers hand over a GFile; the page works with local paths. */
static char *
local_path_of (NapkinTrainingPage *self,
               GFile              *file)
{
  char *path = g_file_get_path (file);

  if (path == NULL)
    _napkin_training_page_show_toast (self, _("Only files on this computer can be used"));
  return path;
}

/* ------------------------------------------------------------ running */

static void
start_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) config = NULL;

  if (self->active != NULL)
    return;
  config = napkin_run_form_dup_config (self->form, &error);
  if (config == NULL)
    {
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  _napkin_training_page_start_run (self, config);
}

static void
resume_dir_chosen (GtkWidget *widget,
                   GFile     *file,
                   gpointer   user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) config = NULL;

  if (path == NULL || self->active != NULL)
    return;
  config = napkin_run_form_dup_config (self->form, &error);
  if (config == NULL)
    {
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  g_free (config->resume_dir);
  config->resume_dir = g_strdup (path);
  /* As napkin-cli: a resumed run keeps writing checkpoints where it reads them. */
  if (config->checkpoint_dir == NULL)
    config->checkpoint_dir = g_strdup (path);
  _napkin_training_page_start_run (self, config);
}

static void
resume_from_checkpoint_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *path = g_variant_get_string (parameter, NULL);

  if (*path != '\0')
    use_path (self, path, resume_dir_chosen, NULL);
  else
    napkin_choose_file (widget, _("Resume from a Checkpoint Folder"), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                        _("_Resume"), NULL, NULL, resume_dir_chosen, NULL, NULL);
}

static void
pause_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL)
    return;
  nk_trainer_pause (napkin_run_get_trainer (self->active));
  _napkin_training_page_update_actions (self);
}

static void
resume_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL)
    return;
  nk_trainer_resume (napkin_run_get_trainer (self->active));
  _napkin_training_page_update_actions (self);
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL)
    return;
  nk_trainer_stop (napkin_run_get_trainer (self->active));
}

static void
checkpoint_now_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL || napkin_run_get_config (self->active)->checkpoint_dir == NULL)
    return;
  nk_trainer_checkpoint_now (napkin_run_get_trainer (self->active));
}

/* ------------------------------------------------------------ runs */

/* A run from disk is read on a thread; the page shows (or compares) it once its
 * steps are in, so a million-step run does not stop the window. */
typedef struct {
  NapkinTrainingPage *self;   /* a reference */
  gboolean            compare;
} LoadThen;

static void
show_or_compare (NapkinTrainingPage *self,
                 NapkinRun          *run,
                 gboolean            compare)
{
  if (compare)
    napkin_run_view_set_compare (self->run_view, run);
  else
    _napkin_training_page_show_run (self, run);
}

static void
run_loaded (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  LoadThen *then = user_data;
  g_autoptr(GError) error = NULL;

  if (!napkin_run_load_finish (NAPKIN_RUN (source), result, &error))
    _napkin_training_page_show_toast (then->self, error->message);
  show_or_compare (then->self, NAPKIN_RUN (source), then->compare);
  g_object_unref (then->self);
  g_free (then);
}

static void
load_then (NapkinTrainingPage *self,
           NapkinRun          *run,
           gboolean            compare)
{
  LoadThen *then;

  if (napkin_run_is_loaded (run))
    {
      show_or_compare (self, run, compare);
      return;
    }
  then = g_new (LoadThen, 1);
  then->self = g_object_ref (self);
  then->compare = compare;
  napkin_run_load_async (run, run_loaded, then);
}

static void
open_run_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  NapkinRun *run = _napkin_training_page_get_run (self, g_variant_get_uint32 (parameter));

  if (run != NULL)
    load_then (self, run, FALSE);
}

/* Parameter: a run's index, or -1 for none. */
static void
compare_run_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  int index = g_variant_get_int32 (parameter);
  NapkinRun *run = index >= 0 ? _napkin_training_page_get_run (self, (guint) index) : NULL;

  if (run == NULL)
    napkin_run_view_set_compare (self->run_view, NULL);
  else
    load_then (self, run, TRUE);
}

/* ------------------------------------------------------------ runs of other engines */

static void
import_in_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  GError *error = NULL;
  NkImport *import = nk_log_import (task_data, NK_LOG_FORMAT_AUTO, &error);

  if (import == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, import, (GDestroyNotify) nk_import_free);
}

static void
import_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (source);
  const char *path = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  NkImport *import = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(NapkinRun) run = NULL;
  g_autofree char *title = NULL;
  g_autofree char *plan = NULL;

  self->importing--;
  plan = g_steal_pointer (&self->pending_plan);
  if (import == NULL)
    {
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  run = napkin_run_new_from_import (import, path, self->next_index++);
  g_list_store_insert (self->runs, 0, run);
  _napkin_training_page_show_run (self, run);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");
  title = g_strdup_printf (_("Read %u steps of a %s log"), napkin_run_get_import (run)->steps->len,
                           nk_log_format_to_string (napkin_run_get_import (run)->format));
  _napkin_training_page_show_toast (self, title);
  if (plan != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "training.compare-plan", "s", plan);
}

/* Logs can be large: read on a thread, the run appears when it is read. */
static void
log_chosen (GtkWidget *widget,
            GFile     *file,
            gpointer   user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  char *path = local_path_of (self, file);
  g_autoptr(GTask) task = NULL;

  if (path == NULL)
    return;
  self->importing++;
  task = g_task_new (self, NULL, import_done, NULL);
  g_task_set_source_tag (task, log_chosen);
  g_task_set_task_data (task, path, g_free);
  g_task_run_in_thread (task, import_in_thread);
}

/* Parameter: a log file or TensorBoard folder; empty asks for a file. */
static void
open_log_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  const char *path = g_variant_get_string (parameter, NULL);

  /* a PyTorch memory snapshot or memory_stats JSON opens in its own window */
  if (napkin_memory_dialog_open_path (widget, path))
    return;
  if (*path != '\0')
    use_path (NAPKIN_TRAINING_PAGE (widget), path, log_chosen, NULL);
  else
    napkin_choose_file (widget, _("Open a Run Log"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL, NULL,
                        log_chosen, NULL, NULL);
}

static void
plan_chosen (GtkWidget *widget,
             GFile     *file,
             gpointer   user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  NapkinRun *run = shown_run (self);
  g_autofree char *path = local_path_of (self, file);
  g_autoptr(GError) error = NULL;
  NkImportPrediction plan;

  if (path == NULL || run == NULL)
    return;
  if (!nk_import_plan_load (path, &plan, &error))
    _napkin_training_page_show_toast (self, error->message);
  else
    napkin_run_set_plan (run, &plan);
}

/* Parameter: a plan's JSON (the Planner's export, `napkin-cli plan --json`);
 * empty asks. The shown run, when imported, is set beside it. */
static void
compare_plan_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *path = g_variant_get_string (parameter, NULL);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  if (napkin_memory_dialog_take_plan (widget, path))
    return;
  /* chosen while a log is read: for that log, once it is there */
  if (self->importing > 0 && *path != '\0')
    {
      g_free (self->pending_plan);
      self->pending_plan = g_strdup (path);
      return;
    }
  if (shown_run (self) == NULL || napkin_run_get_import (shown_run (self)) == NULL)
    return;
  if (*path != '\0')
    {
      use_path (self, path, plan_chosen, NULL);
      return;
    }
  gtk_file_filter_set_name (filter, _("Plans (JSON)"));
  gtk_file_filter_add_suffix (filter, "json");
  napkin_choose_file (widget, _("Compare with a Plan"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"), NULL,
                      filter, plan_chosen, NULL, NULL);
}

/* ------------------------------------------------------------ runs on disk */

static void
rename_response (AdwMessageDialog *dialog,
                 const char       *response,
                 gpointer          user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (user_data);
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (dialog), "run-index"));

  if (g_strcmp0 (response, "rename") == 0)
    gtk_widget_activate_action (GTK_WIDGET (self), "training.rename-run", "(us)", index,
                                gtk_editable_get_text (entry));
}

static void
ask_for_name (NapkinTrainingPage *self,
              NapkinRun          *run)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                              _("Rename Run"), NULL);
  GtkWidget *entry = gtk_entry_new ();

  gtk_editable_set_text (GTK_EDITABLE (entry), napkin_run_get_name (run));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"), "rename", _("_Rename"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  g_object_set_data (G_OBJECT (dialog), "run-index",
                     GUINT_TO_POINTER (napkin_run_get_index (run)));
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Parameter (index, name); an empty name asks for one. */
static void
rename_run_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  NapkinRun *run;
  guint32 index;

  g_variant_get (parameter, "(us)", &index, &name);
  run = _napkin_training_page_get_run (self, index);
  if (run == NULL)
    return;
  g_strstrip (name);
  if (*name == '\0')
    {
      ask_for_name (self, run);
      return;
    }
  if (!napkin_run_rename (run, name, &error))
    {
      g_autofree char *title = g_strdup_printf (_("Could not rename the run: %s"), error->message);

      _napkin_training_page_show_toast (self, title);
      return;
    }
  if (napkin_run_get_shown (run))
    _napkin_training_page_show_run (self, run);
}

/* The run leaves the list only once its folder is in the trash. */
static void
trash_run_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  NapkinRun *run = _napkin_training_page_get_run (self, g_variant_get_uint32 (parameter));
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *title = NULL;
  guint position;

  if (run == NULL || napkin_run_is_live (run) || napkin_run_get_folder (run) == NULL)
    return;
  file = g_file_new_for_path (napkin_run_get_folder (run));
  if (!g_file_trash (file, NULL, &error))
    {
      title = g_strdup_printf (_("Could not move “%s” to the trash: %s"),
                               napkin_run_get_name (run), error->message);
      _napkin_training_page_show_toast (self, title);
      return;
    }
  title = g_strdup_printf (_("“%s” moved to the trash"), napkin_run_get_name (run));
  if (self->active == run)
    self->active = NULL;
  if (g_list_store_find (self->runs, run, &position))
    g_list_store_remove (self->runs, position);
  _napkin_training_page_show_toast (self, title);
}

/* An interrupted run goes on from its newest intact checkpoint, into its own folder. */
static void
resume_run_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  NapkinRun *run = _napkin_training_page_get_run (self, g_variant_get_uint32 (parameter));
  g_autoptr(NkTrainConfig) config = NULL;
  g_autoptr(NkCheckpoint) ck = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *ckdir = NULL;
  g_autofree char *folder = NULL;
  guint position;

  if (run == NULL || self->active != NULL || !napkin_run_is_resumable (run))
    return;
  folder = g_strdup (napkin_run_get_folder (run));
  ckdir = nk_run_dir_get_checkpoint_dir (folder);
  ck = nk_checkpoint_find_latest_intact (ckdir, NULL, &error);
  if (ck == NULL)
    {
      _napkin_training_page_show_toast (self, error->message);
      return;
    }
  config = nk_train_config_copy (napkin_run_get_config (run));
  g_free (config->resume_dir);
  config->resume_dir = g_strdup (ckdir);
  g_free (config->checkpoint_dir);
  config->checkpoint_dir = g_strdup (ckdir);
  /* The run that goes on takes the interrupted one's place in the list. */
  if (g_list_store_find (self->runs, run, &position))
    g_list_store_remove (self->runs, position);
  _napkin_training_page_start_run_in (self, config, folder);
}

/* ------------------------------------------------------------ exports */

/* The engine writes the files, from the run's one full history. */
static char *
metrics_csv (NapkinRun *run)
{
  return nk_train_history_to_csv (napkin_run_get_history (run),
                                  nk_trainer_get_device_name (napkin_run_get_trainer (run)));
}

/* One object per step with napkin-cli train --json-lines' fields, then its "done". */
static char *
metrics_jsonl (NapkinRun *run)
{
  return nk_train_history_to_json_lines (napkin_run_get_history (run),
                                         nk_trainer_get_device_name (napkin_run_get_trainer (run)));
}

static void
save_metrics (GtkWidget *widget,
              GFile     *file,
              gpointer   user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  char *(*format) (NapkinRun *) = user_data;
  g_autofree char *path = local_path_of (self, file);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  if (path == NULL || shown_run (self) == NULL)
    return;
  contents = format (shown_run (self));
  name = g_filename_display_basename (path);
  if (g_file_set_contents_full (path, contents, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    title = g_strdup_printf (_("Saved “%s”"), name);
  else
    title = g_strdup_printf (_("Could not save “%s”: %s"), name, error->message);
  _napkin_training_page_show_toast (self, title);
}

static void
export_metrics (NapkinTrainingPage  *self,
                GVariant            *parameter,
                const char          *title,
                const char          *suffix,
                char              *(*format) (NapkinRun *))
{
  const char *path = g_variant_get_string (parameter, NULL);
  NapkinRun *run = shown_run (self);
  g_autofree char *lower = g_ascii_strdown (run != NULL ? napkin_run_get_name (run) : "run", -1);
  g_autofree char *name = NULL;

  g_strdelimit (lower, " ", '-');
  name = g_strconcat (lower, suffix, NULL);
  if (*path != '\0')
    use_path (self, path, save_metrics, format);
  else
    napkin_choose_file (GTK_WIDGET (self), title, GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                        name, NULL, save_metrics, format, NULL);
}

static void
export_csv_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  export_metrics (NAPKIN_TRAINING_PAGE (widget), parameter, _("Export Metrics as CSV"), ".csv",
                  metrics_csv);
}

static void
export_jsonl_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  export_metrics (NAPKIN_TRAINING_PAGE (widget), parameter, _("Export Metrics as JSON Lines"),
                  ".jsonl", metrics_jsonl);
}

/* @user_data: the plot's kind */
static void
plot_chosen (GtkWidget *widget,
             GFile     *file,
             gpointer   user_data)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  NapkinPlot *plot = napkin_run_view_get_plot (self->run_view, user_data);
  g_autofree char *path = local_path_of (self, file);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  if (path == NULL || plot == NULL)
    return;
  name = g_filename_display_basename (path);
  if (napkin_plot_save (plot, path, EXPORT_WIDTH, EXPORT_HEIGHT, &error))
    title = g_strdup_printf (_("Saved “%s”"), name);
  else
    title = g_strdup (error->message);
  _napkin_training_page_show_toast (self, title);
}

/* Parameter "KIND:PATH" with KIND loss, memory, throughput, scale or histogram; an
 * empty PATH asks. */
static void
export_plot_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *target = g_variant_get_string (parameter, NULL);
  const char *colon = strchr (target, ':');
  g_autofree char *kind = colon != NULL ? g_strndup (target, colon - target) : g_strdup (target);
  const char *path = colon != NULL ? colon + 1 : "";
  g_autofree char *name = NULL;
  g_autoptr(GtkFileFilter) filter = NULL;

  if (napkin_run_view_get_plot (self->run_view, kind) == NULL)
    return;
  if (*path != '\0')
    {
      use_path (self, path, plot_chosen, kind);
      return;
    }
  name = g_strconcat (kind, ".png", NULL);
  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("PNG image or SVG drawing"));
  gtk_file_filter_add_suffix (filter, "png");
  gtk_file_filter_add_suffix (filter, "svg");
  napkin_choose_file (widget, _("Export Plot"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), name,
                      filter, plot_chosen, g_steal_pointer (&kind), g_free);
}

/* ------------------------------------------------------------ folding */

static void
show_form_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  adw_leaflet_set_visible_child_name (NAPKIN_TRAINING_PAGE (widget)->leaflet, "form");
}

static void
show_run_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  adw_leaflet_set_visible_child_name (NAPKIN_TRAINING_PAGE (widget)->leaflet, "run");
}

/* Installs the page's actions and their shortcuts on its class. */
void
_napkin_training_page_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "training.start", NULL, start_action);
  gtk_widget_class_install_action (widget_class, "training.pause", NULL, pause_action);
  gtk_widget_class_install_action (widget_class, "training.resume", NULL, resume_action);
  gtk_widget_class_install_action (widget_class, "training.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "training.checkpoint-now", NULL, checkpoint_now_action);
  gtk_widget_class_install_action (widget_class, "training.resume-from-checkpoint", "s",
                                   resume_from_checkpoint_action);
  gtk_widget_class_install_action (widget_class, "training.export-csv", "s", export_csv_action);
  gtk_widget_class_install_action (widget_class, "training.export-jsonl", "s", export_jsonl_action);
  gtk_widget_class_install_action (widget_class, "training.export-plot", "s", export_plot_action);
  gtk_widget_class_install_action (widget_class, "training.open-run", "u", open_run_action);
  gtk_widget_class_install_action (widget_class, "training.compare-run", "i", compare_run_action);
  gtk_widget_class_install_action (widget_class, "training.rename-run", "(us)", rename_run_action);
  gtk_widget_class_install_action (widget_class, "training.trash-run", "u", trash_run_action);
  gtk_widget_class_install_action (widget_class, "training.resume-run", "u", resume_run_action);
  gtk_widget_class_install_action (widget_class, "training.open-log", "s", open_log_action);
  gtk_widget_class_install_action (widget_class, "training.compare-plan", "s", compare_plan_action);
  gtk_widget_class_install_action (widget_class, "training.open-memory-snapshot", "s", napkin_memory_dialog_action);
  gtk_widget_class_install_action (widget_class, "training.show-form", NULL, show_form_action);
  gtk_widget_class_install_action (widget_class, "training.show-run", NULL, show_run_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK,
                                       "training.checkpoint-now", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "training.export-csv", "s", "");
}
