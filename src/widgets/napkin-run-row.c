/* napkin-run-row.c: one run in the Training page's list
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The row shows a #NapkinRun: its name (and whether it is the one shown), its
 * config, state and final loss, and buttons for the page's training.compare-run
 * and training.open-run actions with the run's index as target, and a menu for
 * training.rename-run, training.resume-run (an interrupted run with a checkpoint)
 * and training.trash-run (a run with a folder). It follows the
 * run's properties; the page's list builds rows with gtk_list_box_bind_model().
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n.h>

#include "napkin-run-row.h"

struct _NapkinRunRow
{
  AdwActionRow  parent_instance;

  NapkinRun    *run;
  GtkWidget    *compare_button;
  GtkWidget    *open_button;
  GtkWidget    *menu_button;
};

G_DEFINE_FINAL_TYPE (NapkinRunRow, napkin_run_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_RUN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *
state_text (NkTrainerState state)
{
  switch (state)
    {
    case NK_TRAINER_STATE_RUNNING: return _("running");
    case NK_TRAINER_STATE_PAUSED: return _("paused");
    case NK_TRAINER_STATE_FINISHED: return _("finished");
    case NK_TRAINER_STATE_STOPPED: return _("stopped");
    case NK_TRAINER_STATE_FAILED: return _("failed");
    case NK_TRAINER_STATE_IDLE:
    default: return _("starting");
    }
}

static void
update_menu (NapkinRunRow *self)
{
  NapkinRun *run = self->run;
  g_autoptr(GMenu) menu = g_menu_new ();
  guint index = napkin_run_get_index (run);
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename…"), NULL);

  g_menu_item_set_action_and_target_value (rename, "training.rename-run",
                                           g_variant_new ("(us)", index, ""));
  g_menu_append_item (menu, rename);
  if (napkin_run_is_resumable (run))
    {
      g_autoptr(GMenuItem) resume = g_menu_item_new (_("Re_sume"), NULL);

      g_menu_item_set_action_and_target_value (resume, "training.resume-run",
                                               g_variant_new_uint32 (index));
      g_menu_append_item (menu, resume);
    }
  if (napkin_run_get_folder (run) != NULL && !napkin_run_is_live (run))
    {
      g_autoptr(GMenu) section = g_menu_new ();
      g_autoptr(GMenuItem) trash = g_menu_item_new (_("Move to _Trash"), NULL);

      g_menu_item_set_action_and_target_value (trash, "training.trash-run",
                                               g_variant_new_uint32 (index));
      g_menu_append_item (section, trash);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
    }
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->menu_button), G_MENU_MODEL (menu));
}

static void
update (NapkinRunRow *self)
{
  NapkinRun *run = self->run;
  g_autofree char *config = napkin_run_dup_description (run);
  g_autofree char *loss = napkin_run_format_loss (napkin_run_get_last_loss (run));
  const char *state = napkin_run_is_resumable (run)
                      ? _("interrupted · resumable from its checkpoint")
                      : napkin_run_is_interrupted (run) ? _("interrupted")
                      : state_text (napkin_run_get_state (run));
  guint64 steps = napkin_run_get_last_step (run);
  g_autofree char *subtitle = NULL;
  g_autofree char *title = NULL;

  if (steps > 0)
    subtitle = g_strdup_printf (_("%s\nFinal loss %s after %" PRIu64 " steps · %s"),
                                config, loss, steps, state);
  else
    subtitle = g_strdup_printf ("%s\n%s", config, state);
  title = napkin_run_get_shown (run) ? g_strdup_printf (_("%s (shown)"), napkin_run_get_name (run))
                                     : g_strdup (napkin_run_get_name (run));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);
  gtk_widget_set_sensitive (self->compare_button, !napkin_run_get_shown (run) && steps > 0);
  update_menu (self);
}

static void
set_run (NapkinRunRow *self,
         NapkinRun    *run)
{
  guint index = napkin_run_get_index (run);

  self->run = g_object_ref (run);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->compare_button), "i", (gint32) index);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->open_button), "u", index);
  g_signal_connect_object (run, "notify::state", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (run, "notify::last-step", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (run, "notify::shown", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (run, "notify::name", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  update (self);
}

static void
napkin_run_row_dispose (GObject *object)
{
  NapkinRunRow *self = NAPKIN_RUN_ROW (object);

  g_clear_object (&self->run);

  G_OBJECT_CLASS (napkin_run_row_parent_class)->dispose (object);
}

static void
napkin_run_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  NapkinRunRow *self = NAPKIN_RUN_ROW (object);

  switch (prop_id)
    {
    case PROP_RUN:
      g_value_set_object (value, self->run);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  NapkinRunRow *self = NAPKIN_RUN_ROW (object);

  switch (prop_id)
    {
    case PROP_RUN:
      set_run (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_row_class_init (NapkinRunRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_run_row_dispose;
  object_class->get_property = napkin_run_row_get_property;
  object_class->set_property = napkin_run_row_set_property;

  properties[PROP_RUN] =
    g_param_spec_object ("run", NULL, NULL, NAPKIN_TYPE_RUN,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-run-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NapkinRunRow, compare_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinRunRow, open_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinRunRow, menu_button);
}

static void
napkin_run_row_init (NapkinRunRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * napkin_run_row_new:
 * @run: the run to show
 *
 * Returns: (transfer floating): a row following @run
 */
GtkWidget *
napkin_run_row_new (NapkinRun *run)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (run), NULL);
  return g_object_new (NAPKIN_TYPE_RUN_ROW, "run", run, NULL);
}

/* Returns: (transfer none): the row's run */
NapkinRun *
napkin_run_row_get_run (NapkinRunRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_ROW (self), NULL);
  return self->run;
}
