/* napkin-training-page-table.c: the Training page's Compare Runs window: every run in a sortable table, the picked ones on one plot
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * training.compare-runs (the Runs list's header button, the run menu, Ctrl+Shift+R)
 * opens a window beside the page with a #NapkinRunsTable of the page's runs: the
 * same #GListStore, so runs started, imported or trashed come and go in it. A line
 * activated (Enter, a double click) shows its run on the page; the window stays.
 *
 * Below the table, the runs picked in it (Ctrl+click, Shift+click, Ctrl+Space,
 * Ctrl+A) are drawn together: their losses on one plot across the chosen x axis,
 * and for the block-scaled recipes the shares of operand elements flushed to
 * zero and clipped per step, each plot bound to one #NapkinRunCompare.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-compare-plot.h"
#include "napkin-run-compare.h"
#include "napkin-runs-table.h"
#include "napkin-training-page-private.h"
#include "napkin-wrap-box.h"

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

static void
on_x_axis_selected (GtkDropDown      *dropdown,
                    GParamSpec       *pspec,
                    NapkinRunCompare *compare)
{
  napkin_run_compare_set_x_axis (compare, MIN (gtk_drop_down_get_selected (dropdown), NAPKIN_N_X_AXES - 1));
}

static GtkWidget *
new_label (const char *text,
           const char *css_class,
           gboolean    wrap)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), wrap);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/* A card with a heading, an explanation under it, and its plots. */
static GtkWidget *
new_card (const char *heading,
          const char *caption)
{
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);

  gtk_widget_add_css_class (card, "card");
  gtk_widget_add_css_class (card, "training-card");
  gtk_box_append (GTK_BOX (card), new_label (heading, "heading", TRUE));
  if (caption != NULL)
    gtk_box_append (GTK_BOX (card), new_label (caption, "dim-label", TRUE));
  return card;
}

/* The x axis choice, as the run view's: what each run's counts give (napkin-run-axis.h). */
static GtkWidget *
new_x_axis_row (NapkinRunCompare *compare)
{
  const char *const axes[] = { N_("Step"), N_("Tokens"), N_("FLOPs"), N_("Wall time"), N_("Fraction"), NULL };
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new_with_mnemonic (_("_Across"));
  GtkWidget *dropdown;

  for (guint i = 0; axes[i] != NULL; i++)
    gtk_string_list_append (names, _(axes[i]));
  dropdown = gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&names)), NULL);
  gtk_widget_set_tooltip_text (dropdown, _("What the picked runs are plotted against"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("X axis of the comparison plots"), -1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), dropdown);
  gtk_widget_add_css_class (label, "dim-label");
  g_signal_connect_object (dropdown, "notify::selected", G_CALLBACK (on_x_axis_selected), compare, 0);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), dropdown);
  return row;
}

/* Under the table: the picked runs' losses, then their flushed and clipped shares. */
static GtkWidget *
new_plots (NapkinRunCompare *compare)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *loss_card = new_card (_("Loss of the picked runs"),
                                   _("Pick runs in the table (Ctrl+click, Shift+click, Space, Ctrl+A) to "
                                     "draw them together. Runs of one recipe share a colour, each run has its "
                                     "own dash. The loss axis fits the steps after the first tenth."));
  GtkWidget *quant_card = new_card (_("Elements flushed to zero and clipped"),
                                    _("Per step, the share of the nonzero matmul operand elements (every "
                                      "linear layer, forward and backward) that quantizing to the block format "
                                      "flushed to zero, or clipped at its largest value. Only mxfp8 and nvfp4 "
                                      "quantize."));
  GtkWidget *shares = napkin_wrap_box_new ();
  GtkWidget *loss_plot;

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_box_insert_child_after (GTK_BOX (loss_card), new_x_axis_row (compare),
                              gtk_widget_get_first_child (loss_card));
  loss_plot = napkin_compare_plot_new (compare, NAPKIN_COMPARE_LOSS);
  /* the lesson's plot: taller than the shares' */
  gtk_widget_set_size_request (loss_plot, -1, 340);
  gtk_box_append (GTK_BOX (loss_card), loss_plot);
  for (guint q = NAPKIN_COMPARE_FLUSHED; q <= NAPKIN_COMPARE_CLIPPED; q++)
    {
      GtkWidget *plot = napkin_compare_plot_new (compare, q);

      gtk_widget_set_hexpand (plot, TRUE);
      gtk_widget_insert_before (plot, shares, NULL);
    }
  g_object_set (shares, "max-columns", 2, NULL);
  gtk_box_append (GTK_BOX (quant_card), shares);
  gtk_box_append (GTK_BOX (box), loss_card);
  gtk_box_append (GTK_BOX (box), quant_card);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), box);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  return scroller;
}

static gpointer
run_of_item (gpointer item,
             gpointer user_data)
{
  NapkinRun *run = g_object_ref (napkin_run_summary_item_get_run (item));

  g_object_unref (item);
  return run;
}

/* The runs picked in @table, in its order: a list model of #NapkinRun. */
static GListModel *
new_picked (NapkinRunsTable *table)
{
  GtkSelectionModel *selection = gtk_column_view_get_model (napkin_runs_table_get_column_view (table));

  return G_LIST_MODEL (gtk_map_list_model_new (G_LIST_MODEL (gtk_selection_filter_model_new (selection)),
                                               run_of_item, NULL, NULL));
}

static GtkWidget *
new_runs_window (NapkinTrainingPage *self)
{
  GtkWidget *window = adw_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *title = adw_window_title_new (_("Compare Runs"), NULL);
  GtkWidget *table = napkin_runs_table_new (G_LIST_MODEL (self->runs));
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  g_autoptr(GListModel) picked = new_picked (NAPKIN_RUNS_TABLE (table));
  g_autoptr(NapkinRunCompare) compare = napkin_run_compare_new (picked);
  GtkEventController *shortcuts = gtk_shortcut_controller_new ();
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  gtk_window_set_title (GTK_WINDOW (window), _("Compare Runs"));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 860);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));
  gtk_window_set_hide_on_close (GTK_WINDOW (window), FALSE);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), title);
  gtk_box_append (GTK_BOX (box), header);
  gtk_widget_add_css_class (box, "training");
  /* the table keeps a third of the height, the plots get the rest */
  gtk_paned_set_start_child (GTK_PANED (paned), table);
  gtk_paned_set_end_child (GTK_PANED (paned), new_plots (compare));
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_position (GTK_PANED (paned), 230);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), paned);
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

