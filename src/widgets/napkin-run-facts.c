/* napkin-run-facts.c: what a run Napkin does not run says about itself, where the run form is
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An imported, followed or launched run has no settings of Napkin's: in the place of
 * the run form it shows its own facts (engine, the command or the log it comes from,
 * its folders, its plan, its shape as far as its log tells) and the actions that
 * apply to it. Each fact is a row whose subtitle is the value, so a
 * screen reader reads title and value together.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <glib/gi18n.h>

#include "napkin-run-facts.h"
#include "napkin-wrap-box.h"
#include "nk-units.h"

/* The facts, in the order shown; the names are the test hooks'. */
typedef enum { FACT_ENGINE, FACT_SOURCE, FACT_WORKING_DIR, FACT_FOLDER, FACT_STATUS, FACT_SHAPE,
               FACT_PLAN, N_FACTS } Fact;

static const char *fact_names[N_FACTS] = {
  "engine", "source", "working-dir", "folder", "status", "shape", "plan",
};

struct _NapkinRunFacts
{
  GtkWidget  parent_instance;

  NapkinRun *run;
  GtkWidget *group;
  GtkWidget *rows[N_FACTS];
  GtkWidget *settings_button;
};

G_DEFINE_FINAL_TYPE (NapkinRunFacts, napkin_run_facts, GTK_TYPE_WIDGET)

static void
set_fact (NapkinRunFacts *self,
          Fact            fact,
          const char     *value)
{
  gtk_widget_set_visible (self->rows[fact], value != NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->rows[fact]), value != NULL ? value : "");
}

/* The log's last step, with whatever of it the engine printed. */
static char *
describe_shape (const NkImport *import)
{
  const NkImportStep *s;
  GString *text;

  if (import->steps->len == 0)
    return g_strdup (_("No step read yet"));
  s = &g_array_index (import->steps, NkImportStep, import->steps->len - 1);
  text = g_string_new (NULL);
  /* Translators: a followed or imported log's shape: the steps read, the last step */
  g_string_append_printf (text, g_dngettext (NULL, "%u step read, the last step %" PRId64,
                                             "%u steps read, the last step %" PRId64, import->steps->len),
                          import->steps->len, s->step);
  if (isfinite (s->loss))
    g_string_append_printf (text, _(" · loss %.4g"), s->loss);
  if (isfinite (s->tokens_per_s))
    g_string_append_printf (text, _(" · %.0f tokens/s"), s->tokens_per_s);
  if (isfinite (s->tflops_per_gpu))
    g_string_append_printf (text, _(" · %.1f TFLOP/s per GPU"), s->tflops_per_gpu);
  if (isfinite (s->mfu))
    g_string_append_printf (text, _(" · MFU %.1f %%"), s->mfu * 100);
  if (isfinite (s->memory_max_bytes))
    {
      g_autofree char *bytes = nk_units_format_bytes (s->memory_max_bytes);

      g_string_append_printf (text, _(" · %s peak memory"), bytes);
    }
  if (import->skipped_lines > 0)
    g_string_append_printf (text, g_dngettext (NULL, " · %u other line", " · %u other lines", import->skipped_lines),
                            import->skipped_lines);
  return g_string_free (text, FALSE);
}

static void
update (NapkinRunFacts *self)
{
  NapkinRun *run = self->run;
  const NkImport *import = run != NULL ? napkin_run_get_import (run) : NULL;
  NkCommandRun *command;
  g_autofree char *source = NULL;
  g_autofree char *working = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *status = NULL;
  g_autofree char *shape = NULL;

  if (import == NULL)
    {
      for (guint i = 0; i < N_FACTS; i++)
        set_fact (self, i, NULL);
      return;
    }
  command = napkin_run_get_command (run);
  set_fact (self, FACT_ENGINE, import->format == NK_LOG_FORMAT_AUTO ? _("Not known yet: no engine’s line read")
                                                                     : nk_log_format_to_string (import->format));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->rows[FACT_SOURCE]),
                                 command != NULL ? _("Command") : _("Log"));
  if (command != NULL)
    {
      source = g_strdup (nk_command_run_get_command_line (command));
      working = g_filename_display_name (nk_command_run_get_working_dir (command));
      folder = g_filename_display_name (nk_command_run_get_folder (command));
      status = nk_command_run_dup_status (command);
    }
  else
    {
      source = g_filename_display_name (napkin_run_get_import_path (run));
      if (napkin_run_get_follower (run) != NULL)
        status = g_strdup (napkin_run_get_state (run) == NK_TRAINER_STATE_RUNNING
                           ? _("followed as it grows") : _("followed until it ended"));
      else
        status = g_strdup (_("read once, finished"));
    }
  if (napkin_run_get_notice (run) != NULL)
    {
      char *with = g_strdup_printf ("%s — %s", status, napkin_run_get_notice (run));

      g_free (status);
      status = with;
    }
  shape = describe_shape (import);
  set_fact (self, FACT_SOURCE, source);
  set_fact (self, FACT_WORKING_DIR, working);
  set_fact (self, FACT_FOLDER, folder);
  set_fact (self, FACT_STATUS, status);
  set_fact (self, FACT_SHAPE, shape);
  set_fact (self, FACT_PLAN, napkin_run_get_plan (run) != NULL ? _("Compared with the plan chosen")
                                                                : _("None: compare with a plan’s JSON"));
}

/**
 * napkin_run_facts_set_run:
 * @self: the facts
 * @run: (nullable): a run of another engine (imported, followed or launched)
 */
void
napkin_run_facts_set_run (NapkinRunFacts *self,
                          NapkinRun      *run)
{
  g_return_if_fail (NAPKIN_IS_RUN_FACTS (self));

  if (self->run == run)
    return;
  if (self->run != NULL)
    g_signal_handlers_disconnect_by_data (self->run, self);
  g_set_object (&self->run, run);
  if (run != NULL)
    {
      g_signal_connect_swapped (run, "notify::state", G_CALLBACK (update), self);
      g_signal_connect_swapped (run, "notify::last-step", G_CALLBACK (update), self);
      g_signal_connect_swapped (run, "notify::error", G_CALLBACK (update), self);
      g_signal_connect_swapped (run, "notify::has-plan", G_CALLBACK (update), self);
    }
  update (self);
}

/* Returns: (nullable) (transfer none): the run whose facts are shown */
NapkinRun *
napkin_run_facts_get_run (NapkinRunFacts *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_FACTS (self), NULL);
  return self->run;
}

/* Test hook. Returns: (nullable): the fact @name says, %NULL when it is hidden */
const char *
napkin_run_facts_get_fact (NapkinRunFacts *self,
                           const char     *name)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_FACTS (self), NULL);

  for (guint i = 0; i < N_FACTS; i++)
    if (g_str_equal (fact_names[i], name))
      return gtk_widget_get_visible (self->rows[i])
             ? adw_action_row_get_subtitle (ADW_ACTION_ROW (self->rows[i])) : NULL;
  return NULL;
}

static void
napkin_run_facts_dispose (GObject *object)
{
  NapkinRunFacts *self = NAPKIN_RUN_FACTS (object);
  GtkWidget *child;

  napkin_run_facts_set_run (self, NULL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (napkin_run_facts_parent_class)->dispose (object);
}

static void
napkin_run_facts_class_init (NapkinRunFactsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_run_facts_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "runfacts");
}

static void
napkin_run_facts_init (NapkinRunFacts *self)
{
  const char *titles[N_FACTS] = {
    _("Engine"), _("Command"), _("Working Folder"), _("Run Folder"), _("Status"), _("As Far as the Log Tells"),
    _("Plan"),
  };
  GtkWidget *buttons = napkin_wrap_box_new ();

  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))), 18);

  self->group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (self->group), _("This Run"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->group),
                                         _("Run by another engine: what its log and command say, not settings of Napkin’s."));
  for (guint i = 0; i < N_FACTS; i++)
    {
      self->rows[i] = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->rows[i]), titles[i]);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->rows[i]), FALSE);
      /* a path has no space to wrap at: ellipsized past a few lines, so the sidebar
       * stays 360 px wide */
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (self->rows[i]), 4);
      gtk_widget_add_css_class (self->rows[i], "property");
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->group), self->rows[i]);
    }
  gtk_widget_set_parent (self->group, GTK_WIDGET (self));

  /* Compare with a Plan… is the run view's, in its Plan and Measurement card */
  self->settings_button = gtk_button_new_with_mnemonic (_("_New Napkin Run"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->settings_button), "training.edit-settings");
  gtk_widget_set_parent (self->settings_button, buttons);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  gtk_widget_set_parent (buttons, GTK_WIDGET (self));
  update (self);
}

/* Returns: (transfer floating): new facts, showing no run */
GtkWidget *
napkin_run_facts_new (void)
{
  return g_object_new (NAPKIN_TYPE_RUN_FACTS, NULL);
}
