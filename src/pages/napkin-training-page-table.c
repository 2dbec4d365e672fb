/* napkin-training-page-table.c: the Training page's Compare Runs window: every run in a sortable table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * training.compare-runs (the Runs list's header button, the run menu, Ctrl+Shift+R)
 * opens a window beside the page with a #NapkinRunsTable of the page's runs: the
 * same #GListStore, so runs started, imported or trashed come and go in it. A line
 * activated (Enter, a double click) shows its run on the page; the window stays.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-runs-table.h"
#include "napkin-training-page-private.h"

static void
update_subtitle (NapkinTrainingPage *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  g_autofree char *subtitle = NULL;

  if (self->runs_window == NULL)
    return;
  /* Translators: the Compare Runs window's subtitle */
  subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u run", "%u runs", n), n);
  adw_window_title_set_subtitle (ADW_WINDOW_TITLE (self->runs_window_title), subtitle);
}

static void
on_run_activated (NapkinRunsTable    *table,
                  NapkinRun          *run,
                  NapkinTrainingPage *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "training.open-run", "u", napkin_run_get_index (run));
}

static GtkWidget *
new_runs_window (NapkinTrainingPage *self)
{
  GtkWidget *window = adw_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *title = adw_window_title_new (_("Compare Runs"), NULL);
  GtkWidget *table = napkin_runs_table_new (G_LIST_MODEL (self->runs));
  GtkEventController *shortcuts = gtk_shortcut_controller_new ();
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  gtk_window_set_title (GTK_WINDOW (window), _("Compare Runs"));
  gtk_window_set_default_size (GTK_WINDOW (window), 960, 520);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));
  gtk_window_set_hide_on_close (GTK_WINDOW (window), FALSE);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), title);
  gtk_box_append (GTK_BOX (box), header);
  gtk_widget_set_vexpand (table, TRUE);
  gtk_box_append (GTK_BOX (box), table);
  adw_window_set_content (ADW_WINDOW (window), box);
  g_signal_connect_object (table, "run-activated", G_CALLBACK (on_run_activated), self, 0);
  /* Escape and Ctrl+W close it, as they close a dialog */
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_alternative_trigger_new (
                                                            gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                            gtk_keyval_trigger_new (GDK_KEY_w, GDK_CONTROL_MASK)),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (window, shortcuts);

  self->runs_window = window;
  self->runs_window_title = title;
  self->runs_table = NAPKIN_RUNS_TABLE (table);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->runs_window);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->runs_window_title);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->runs_table);
  update_subtitle (self);
  return window;
}

static void
compare_runs_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->runs_window == NULL)
    new_runs_window (self);
  gtk_window_present (GTK_WINDOW (self->runs_window));
}

/**
 * _napkin_training_page_update_table:
 * @self: a training page
 *
 * Follows the runs: Compare Runs needs one, and its window counts them.
 */
void
_napkin_training_page_update_table (NapkinTrainingPage *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "training.compare-runs",
                                 g_list_model_get_n_items (G_LIST_MODEL (self->runs)) > 0);
  update_subtitle (self);
}

/* The window goes with the page. */
void
_napkin_training_page_close_table (NapkinTrainingPage *self)
{
  if (self->runs_window != NULL)
    gtk_window_destroy (GTK_WINDOW (self->runs_window));
}

void
_napkin_training_page_class_table_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "training.compare-runs", NULL, compare_runs_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "training.compare-runs", NULL);
}

/* Test hook: the Compare Runs window's table, or %NULL while it is closed. */
NapkinRunsTable *
napkin_training_page_get_runs_table (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->runs_table;
}
