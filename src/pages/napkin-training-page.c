/* napkin-training-page.c: the Training page: launch and watch toy training runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page is glue between widgets of its own: a #NapkinRunForm that makes one
 * #NkTrainConfig, a #GListStore of #NapkinRun (each run one #NkTrainer on its own
 * thread, its history kept once, in the run) shown in a list with
 * gtk_list_box_bind_model() and #NapkinRunRow, and a #NapkinRunView whose `run`
 * property is the run on screen. Its actions are in napkin-training-page-actions.c.
 *
 * Below the width of the form beside the run view, an AdwLeaflet folds the form
 * behind the Run Settings button, and the smaller plots flow into one column.
 */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n.h>

#include "nk-device-probe.h"
#include "napkin-page.h"
#include "napkin-run-row.h"
#include "napkin-training-page-private.h"
#include "napkin-wrap-box.h"

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS,
  PROP_BUSY = N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void page_iface_init (NapkinPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NapkinTrainingPage, napkin_training_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (NAPKIN_TYPE_PAGE, page_iface_init))

/* ------------------------------------------------------------ helpers */

/* Toasts go to the nearest AdwToastOverlay up the widget tree. */
void
_napkin_training_page_show_toast (NapkinTrainingPage *self,
                                  const char         *title)
{
  g_free (self->last_toast);
  self->last_toast = g_strdup (title);
  napkin_page_add_toast (GTK_WIDGET (self), adw_toast_new (title));
}

/* Returns: (transfer none) (nullable): the run numbered @index, from 0 */
NapkinRun *
_napkin_training_page_get_run (NapkinTrainingPage *self,
                               guint               index)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->runs));

  /* Newest first, so run i is at n - 1 - i until a run is moved to the trash. */
  if (index < n)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), n - 1 - index);

      if (napkin_run_get_index (run) == index)
        return run;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);

      if (napkin_run_get_index (run) == index)
        return run;
    }
  return NULL;
}

void
_napkin_training_page_update_actions (NapkinTrainingPage *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  NapkinRun *shown = napkin_run_view_get_run (self->run_view);
  gboolean live = self->active != NULL;
  NkTrainerState state = live ? napkin_run_get_state (self->active) : NK_TRAINER_STATE_IDLE;
  /* an imported run's steps are another engine's: its plots export, its metrics do not */
  gboolean have_steps = shown != NULL && napkin_run_get_last_step (shown) > 0;
  gboolean own_steps = have_steps && napkin_run_get_import (shown) == NULL;
  gboolean valid = napkin_run_form_get_config (self->form) != NULL;

  gtk_widget_action_set_enabled (widget, "training.start", !live && valid);
  gtk_widget_action_set_enabled (widget, "training.resume-from-checkpoint", !live && valid);
  gtk_widget_action_set_enabled (widget, "training.pause", live && state == NK_TRAINER_STATE_RUNNING);
  gtk_widget_action_set_enabled (widget, "training.resume", live && state == NK_TRAINER_STATE_PAUSED);
  gtk_widget_action_set_enabled (widget, "training.stop", live);
  /* Pause and Resume share a place: one of them is ever useful, and a phone has
   * room for Start, one of them and Stop. */
  gtk_widget_set_visible (self->resume_button, live && state == NK_TRAINER_STATE_PAUSED);
  gtk_widget_set_visible (self->pause_button, !gtk_widget_get_visible (self->resume_button));
  gtk_widget_action_set_enabled (widget, "training.checkpoint-now",
                                 live && napkin_run_get_config (self->active)->checkpoint_dir != NULL);
  gtk_widget_action_set_enabled (widget, "training.export-csv", own_steps);
  gtk_widget_action_set_enabled (widget, "training.export-jsonl", own_steps);
  gtk_widget_action_set_enabled (widget, "training.export-plot", have_steps);
  _napkin_training_page_update_command (self);
}

/* ------------------------------------------------------------ the form */

static void
on_form_config (NapkinTrainingPage *self)
{
  /* Between runs, the prediction card describes the run Start would begin. */
  if (self->active == NULL)
    napkin_run_view_set_config (self->run_view, napkin_run_form_get_config (self->form));
  _napkin_training_page_update_actions (self);
}

/**
 * napkin_training_page_set_settings:
 * @self: a training page
 * @settings: (nullable): settings with the `training-*` keys
 *
 * Restores the form from @settings and keeps it there as it changes. The window
 * hands the application's settings to the page through the `settings` property.
 */
void
napkin_training_page_set_settings (NapkinTrainingPage *self,
                                   GSettings          *settings)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (!g_set_object (&self->settings, settings))
    return;
  napkin_run_form_bind_settings (self->form, settings);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

/* ------------------------------------------------------------ CUDA probe */

static void
probe_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  gboolean usable = nk_device_probe_cuda_finish (result, &description, &error);
  NapkinTrainingPage *self;

  /* The callback always runs: after a cancel, the page is gone. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = NAPKIN_TRAINING_PAGE (user_data);
  napkin_run_form_set_cuda (self->form, usable, usable ? description : error->message);
}

/* The engine looks for CUDA once per process, off the main thread. */
static void
start_probe (NapkinTrainingPage *self)
{
  gboolean usable;
  g_autofree char *text = NULL;

  if (nk_device_get_cached_cuda_probe (&usable, &text))
    napkin_run_form_set_cuda (self->form, usable, text);
  else
    {
      self->probe_cancellable = g_cancellable_new ();
      nk_device_probe_cuda_async (self->probe_cancellable, probe_done_cb, self);
    }
}

/* ------------------------------------------------------------ runs */

/**
 * _napkin_training_page_show_run:
 * @self: a training page
 * @run: a run of the page
 *
 * Puts @run in the run view: the view rebinds its plots to the run's series.
 */
void
_napkin_training_page_show_run (NapkinTrainingPage *self,
                                NapkinRun          *run)
{
  g_autofree char *subtitle = napkin_run_dup_description (run);

  napkin_run_view_set_run (self->run_view, run);
  self->settings_forced = FALSE;
  gtk_label_set_label (self->run_title, napkin_run_get_name (run));
  gtk_label_set_label (self->run_subtitle, subtitle);
  _napkin_training_page_update_actions (self);
}

void
_napkin_training_page_close_pending_window (NapkinTrainingPage *self)
{
  GtkWindow *window = g_steal_pointer (&self->closing_window);

  if (window != NULL)
    {
      gtk_window_destroy (window);
      g_object_unref (window);
    }
}

static void
on_run_finished (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  NapkinRun *run = NAPKIN_RUN (source);
  g_autoptr(NapkinTrainingPage) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!napkin_run_start_finish (run, result, &error))
    {
      g_autofree char *title = g_strdup_printf (_("%s stopped: %s"), napkin_run_get_name (run),
                                                error->message);

      _napkin_training_page_show_toast (self, title);
    }
  else if (napkin_run_get_state (run) == NK_TRAINER_STATE_FINISHED)
    {
      g_autofree char *loss = napkin_run_format_loss (napkin_run_get_last_loss (run));
      g_autofree char *title = g_strdup_printf (_("%s finished: final loss %s"),
                                                napkin_run_get_name (run), loss);

      _napkin_training_page_show_toast (self, title);
    }
  if (self->active == run)
    self->active = NULL;
  g_object_notify (G_OBJECT (self), "busy");
  gtk_widget_set_sensitive (self->form_scroller, TRUE);
  on_form_config (self);
  /* a command still running closes the window when it has ended */
  if (_napkin_training_page_count_commands (self) == 0)
    _napkin_training_page_close_pending_window (self);
}

static void
on_checkpoint_written (NkTrainer          *trainer,
                       guint64             step,
                       const char         *path,
                       NapkinTrainingPage *self)
{
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *title = g_strdup_printf (_("Checkpoint written after step %" PRIu64 ": %s"),
                                            step, name);

  _napkin_training_page_show_toast (self, title);
}

/* Whether the page is busy (NapkinPage:busy) follows the active run's state. */
static void
on_run_state (NapkinTrainingPage *self)
{
  _napkin_training_page_update_actions (self);
  g_object_notify (G_OBJECT (self), "busy");
}

/* Starts a run of @config, shows it, and lists it first. */
void
_napkin_training_page_start_run (NapkinTrainingPage *self,
                                 NkTrainConfig      *config)
{
  _napkin_training_page_start_run_in (self, config, NULL);
}

/* A new run folder under the runs folder, or @folder for a resumed run. */
static void
write_run_folder (NapkinTrainingPage *self,
                  NapkinRun          *run,
                  const char         *folder)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = folder != NULL ? g_strdup (folder)
                                         : nk_run_dir_new_path (self->runs_root, &error);

  if (path == NULL || !napkin_run_write_folder (run, path, &error))
    {
      g_autofree char *title = g_strdup_printf (_("This run is not saved: %s"), error->message);

      _napkin_training_page_show_toast (self, title);
    }
}

/* Starts a run of @config writing to @folder (%NULL: a new run folder); a
 * resumed run's recorder keeps the folder's metrics up to the step its trainer
 * starts from. */
void
_napkin_training_page_start_run_in (NapkinTrainingPage *self,
                                    NkTrainConfig      *config,
                                    const char         *folder)
{
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);
  g_autoptr(NapkinRun) run = napkin_run_new (trainer, self->next_index++);

  g_signal_connect_object (trainer, "checkpoint-written", G_CALLBACK (on_checkpoint_written), self, 0);
  g_signal_connect_object (run, "notify::state", G_CALLBACK (on_run_state), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (run, "notify::last-step", G_CALLBACK (_napkin_training_page_update_actions),
                           self, G_CONNECT_SWAPPED);
  write_run_folder (self, run, folder);
  g_list_store_insert (self->runs, 0, run);
  self->active = run;
  _napkin_training_page_show_run (self, run);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");
  gtk_widget_set_sensitive (self->form_scroller, FALSE);
  napkin_run_start (run, on_run_finished, g_object_ref (self));
  _napkin_training_page_update_actions (self);
  g_object_notify (G_OBJECT (self), "busy");
}

static GtkWidget *
create_run_row (gpointer item,
                gpointer user_data)
{
  return napkin_run_row_new (NAPKIN_RUN (item));
}

static void
on_runs_changed (NapkinTrainingPage *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->runs_group),
                          g_list_model_get_n_items (G_LIST_MODEL (self->runs)) > 0);
  _napkin_training_page_update_table (self);
}

/* ------------------------------------------------------------ closing */

/**
 * napkin_training_page_is_running:
 * @self: a training page
 *
 * Returns: whether a run is running or paused (closing the window should ask)
 */
gboolean
napkin_training_page_is_running (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), FALSE);
  return self->active != NULL && napkin_run_is_live (self->active);
}

static void
on_close_response (AdwMessageDialog   *dialog,
                   const char         *response,
                   NapkinTrainingPage *self)
{
  GtkWindow *window = gtk_window_get_transient_for (GTK_WINDOW (dialog));

  if (g_str_equal (response, "stop") && self->active != NULL)
    {
      NkTrainer *trainer = napkin_run_get_trainer (self->active);

      g_set_object (&self->closing_window, window);
      if (nk_trainer_get_config (trainer)->checkpoint_dir != NULL)
        nk_trainer_checkpoint_now (trainer);
      /* A paused worker must wake up to see the stop. */
      nk_trainer_stop (trainer);
      nk_trainer_resume (trainer);
      _napkin_training_page_stop_commands (self);
    }
  else if (g_str_equal (response, "stop") && window != NULL)
    gtk_window_destroy (window);
}

/**
 * napkin_training_page_confirm_close:
 * @self: a training page with a run going
 * @window: the window being closed
 *
 * Asks whether to stop the run. Stopping writes a checkpoint first when the run
 * has a checkpoint folder, and destroys @window once the run has ended; the
 * window's close-request handler returns %TRUE after calling this.
 */
void
napkin_training_page_confirm_close (NapkinTrainingPage *self,
                                    GtkWindow          *window)
{
  GtkWidget *dialog;
  gboolean checkpoint;

  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  g_return_if_fail (GTK_IS_WINDOW (window));

  if (!napkin_training_page_is_running (self) && _napkin_training_page_count_commands (self) > 0)
    {
      _napkin_training_page_confirm_close_commands (self, window);
      return;
    }
  if (!napkin_training_page_is_running (self))
    {
      gtk_window_destroy (window);
      return;
    }
  checkpoint = napkin_run_get_config (self->active)->checkpoint_dir != NULL;
  dialog = adw_message_dialog_new (window, _("Stop the Training Run?"),
                                   checkpoint
                                   ? _("A checkpoint is written first, so the run can be resumed later.")
                                   : _("The run has no checkpoint folder: its progress is lost."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Keep Training"),
                                    "stop", _("_Stop and Close"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "stop",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_close_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* NapkinPageInterface.close_request: the window closes once the person has said. */
static gboolean
close_request (NapkinPage *page,
               GtkWindow  *window)
{
  napkin_training_page_confirm_close (NAPKIN_TRAINING_PAGE (page), window);
  return TRUE;
}

static void
page_iface_init (NapkinPageInterface *iface)
{
  iface->close_request = close_request;
}

/* ------------------------------------------------------------ GObject */

static void
napkin_training_page_dispose (GObject *object)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);
  GtkWidget *child;

  self->active = NULL;
  /* A command is not left running behind the page (its group is asked to end). */
  if (self->runs != NULL)
    _napkin_training_page_stop_commands (self);
  _napkin_training_page_close_table (self);
  if (self->probe_cancellable != NULL)
    g_cancellable_cancel (self->probe_cancellable);
  g_clear_object (&self->probe_cancellable);
  if (self->runs_list != NULL)
    gtk_list_box_bind_model (self->runs_list, NULL, NULL, NULL, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_TRAINING_PAGE);
  /* The template's unnamed top box. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  /* A run still going is stopped by its last unref; its thread ends on its own. */
  g_clear_object (&self->runs);
  g_clear_object (&self->settings);
  g_clear_object (&self->closing_window);
  g_clear_pointer (&self->runs_root, g_free);
  g_clear_pointer (&self->last_toast, g_free);
  g_clear_pointer (&self->pending_plan, g_free);
  g_clear_pointer (&self->command_dir, g_free);
  g_clear_pointer (&self->launch_command, g_free);

  G_OBJECT_CLASS (napkin_training_page_parent_class)->dispose (object);
}

static void
napkin_training_page_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, napkin_training_page_is_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_training_page_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      napkin_training_page_set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_training_page_class_init (NapkinTrainingPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_training_page_dispose;
  object_class->get_property = napkin_training_page_get_property;
  object_class->set_property = napkin_training_page_set_property;

  /**
   * NapkinTrainingPage:settings:
   *
   * The settings that keep the form, with the `training-*` keys.
   */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_BUSY, "busy");

  g_type_ensure (NAPKIN_TYPE_RUN_FORM);
  g_type_ensure (NAPKIN_TYPE_RUN_VIEW);
  g_type_ensure (NAPKIN_TYPE_WRAP_BOX);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-training-page.ui");
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, leaflet);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, settings_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, pause_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, resume_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, form_header);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, form_scroller);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, form);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, run_view);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, run_title);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, run_subtitle);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, runs_list);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, runs_group);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, facts);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, start_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, stop_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, checkpoint_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, stop_command_button);

  _napkin_training_page_class_actions_init (widget_class);
  _napkin_training_page_class_command_init (widget_class);
  _napkin_training_page_class_table_init (widget_class);
}

/* GTK 4.8 names a button with a mnemonic twice, by its raw label and again by
 * the label inside it: "_Start Start". The label inside says it right. */
static void
drop_mnemonic_names (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget) && gtk_button_get_use_underline (GTK_BUTTON (widget)))
    gtk_accessible_reset_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    drop_mnemonic_names (child);
}

static void
napkin_training_page_init (NapkinTrainingPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  drop_mnemonic_names (GTK_WIDGET (self));

  self->runs = g_list_store_new (NAPKIN_TYPE_RUN);
  gtk_list_box_bind_model (self->runs_list, G_LIST_MODEL (self->runs), create_run_row, NULL, NULL);
  g_signal_connect_object (self->runs, "items-changed", G_CALLBACK (on_runs_changed), self,
                           G_CONNECT_SWAPPED);
  self->runs_root = nk_run_dir_default_root ();
  _napkin_training_page_load_runs (self);
  on_runs_changed (self);
  g_signal_connect_object (self->form, "notify::config", G_CALLBACK (on_form_config), self,
                           G_CONNECT_SWAPPED);

  {
    /* Ctrl+Return starts a run whenever the page is on screen, wherever the focus
     * is (the window's view switcher has it when the page opens). */
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();

    gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts), GTK_SHORTCUT_SCOPE_MANAGED);
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Return, GDK_CONTROL_MASK),
                                                            gtk_named_action_new ("training.start")));
    gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);
  }
  /* Folded, the run view shows and the form is one button away; unfolded, both are
   * there and neither button is needed. */
  g_object_bind_property (self->leaflet, "folded", self->settings_button, "visible",
                          G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->leaflet, "folded", self->form_header, "visible",
                          G_BINDING_SYNC_CREATE);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");

  on_form_config (self);
  start_probe (self);
}

/**
 * napkin_training_page_new:
 *
 * Returns: (transfer floating): a new Training page
 */
GtkWidget *
napkin_training_page_new (void)
{
  return g_object_new (NAPKIN_TYPE_TRAINING_PAGE, NULL);
}

/* ------------------------------------------------------------ test hooks */

GtkWidget *
napkin_training_page_get_input (NapkinTrainingPage *self,
                                const char         *name)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return napkin_run_form_get_input (self->form, name);
}

void
napkin_training_page_set_checkpoint_dir (NapkinTrainingPage *self,
                                         const char         *path)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  napkin_run_form_set_checkpoint_dir (self->form, path);
}

void
napkin_training_page_set_text_file (NapkinTrainingPage *self,
                                    const char         *path)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  napkin_run_form_set_text_file (self->form, path);
}

NkTrainConfig *
napkin_training_page_dup_config (NapkinTrainingPage  *self,
                                 GError             **error)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return napkin_run_form_dup_config (self->form, error);
}

const char *
napkin_training_page_get_form_error (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return napkin_run_form_get_error (self->form);
}

NapkinLossPlot *
napkin_training_page_get_loss_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return NAPKIN_LOSS_PLOT (napkin_run_view_get_plot (self->run_view, "loss"));
}

NapkinMemoryPlot *
napkin_training_page_get_memory_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return NAPKIN_MEMORY_PLOT (napkin_run_view_get_plot (self->run_view, "memory"));
}

NapkinThroughputPlot *
napkin_training_page_get_throughput_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return NAPKIN_THROUGHPUT_PLOT (napkin_run_view_get_plot (self->run_view, "throughput"));
}

NapkinScalePlot *
napkin_training_page_get_scale_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return NAPKIN_SCALE_PLOT (napkin_run_view_get_plot (self->run_view, "scale"));
}

NapkinHistogramPlot *
napkin_training_page_get_histogram_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return NAPKIN_HISTOGRAM_PLOT (napkin_run_view_get_plot (self->run_view, "histogram"));
}

AdwLeaflet *
napkin_training_page_get_leaflet (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->leaflet;
}

guint
napkin_training_page_get_n_runs (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (self->runs));
}

NkTrainer *
napkin_training_page_get_trainer (NapkinTrainingPage *self,
                                  guint               index)
{
  NapkinRun *run;

  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  run = _napkin_training_page_get_run (self, index);
  return run != NULL ? napkin_run_get_trainer (run) : NULL;
}

NkTrainer *
napkin_training_page_get_shown_trainer (NapkinTrainingPage *self)
{
  NapkinRun *run;

  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  run = napkin_run_view_get_run (self->run_view);
  return run != NULL ? napkin_run_get_trainer (run) : NULL;
}

/* Returns: (transfer full) (nullable): the run's row in the list, "title\nsubtitle" */
char *
napkin_training_page_dup_run_summary (NapkinTrainingPage *self,
                                      guint               index)
{
  NapkinRun *run;
  GtkListBoxRow *row;
  guint position;

  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  run = _napkin_training_page_get_run (self, index);
  if (run == NULL || !g_list_store_find (self->runs, run, &position))
    return NULL;
  row = gtk_list_box_get_row_at_index (self->runs_list, (int) position);
  return g_strdup_printf ("%s\n%s", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)),
                          adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
}

const char *
napkin_training_page_get_label_text (NapkinTrainingPage *self,
                                     const char         *name)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return napkin_run_view_get_label_text (self->run_view, name);
}

/* Returns: the bytes the page keeps of its runs (their series), for the accounting */
gsize
napkin_training_page_get_memory_size (NapkinTrainingPage *self)
{
  guint n;
  gsize bytes = 0;

  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), 0);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);

      bytes += napkin_run_get_memory_size (run);
    }
  return bytes;
}

/* ------------------------------------------------------------ runs on disk */

/**
 * _napkin_training_page_load_runs:
 * @self: a training page
 *
 * Lists every run folder under the runs folder, newest first, each read back
 * from its metrics (nothing retrained). A folder that cannot be read is left out.
 */
void
_napkin_training_page_load_runs (NapkinTrainingPage *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) infos = nk_run_dir_list (self->runs_root, &error);
  g_autoptr(GPtrArray) commands = nk_command_run_list (self->runs_root);
  guint i, c = commands->len;

  if (infos == NULL)
    {
      g_debug ("Runs folder %s: %s", self->runs_root, error->message);
      return;
    }
  /* Oldest first, each inserted at the top, so the newest ends first; the
   * commands earlier Napkins started among them by their start. */
  for (i = infos->len; i-- > 0;)
    {
      NkRunInfo *info = g_ptr_array_index (infos, i);
      g_autoptr(GError) run_error = NULL;
      g_autoptr(NapkinRun) run = NULL;

      for (; c > 0 && nk_command_run_get_started (g_ptr_array_index (commands, c - 1)) <= info->created; c--)
        _napkin_training_page_add_command (self, g_ptr_array_index (commands, c - 1));
      run = napkin_run_new_from_folder (info, self->next_index, &run_error);
      if (run == NULL)
        {
          g_debug ("%s", run_error->message);
          continue;
        }
      self->next_index++;
      g_list_store_insert (self->runs, 0, run);
    }
  for (; c > 0; c--)
    _napkin_training_page_add_command (self, g_ptr_array_index (commands, c - 1));
}

/* Test hook: the last toast's title, or %NULL. */
const char *
napkin_training_page_get_last_toast (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->last_toast;
}

/* Test hook: lists the runs again from disk, as a new start of the app would
 * (the runs this page started included). */
void
napkin_training_page_reload_runs (NapkinTrainingPage *self)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  g_return_if_fail (self->active == NULL);
  g_list_store_remove_all (self->runs);
  self->next_index = 0;
  _napkin_training_page_load_runs (self);
}
