/* napkin-runs-table.c: the runs side by side in a table that sorts by each figure
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkColumnView over the page's runs: each run becomes a #NapkinRunSummaryItem
 * (its figures computed by the engine, nk-run-summary.h) in a store kept in step
 * with the runs' model, sorted by a GtkSortListModel whose sorter is the column
 * view's own, so a click on a header (or Enter on it) sorts as GTK users expect.
 * Each column's sorter is a GtkCustomSorter calling nk_run_summary_compare().
 * The selection is a GtkMultiSelection: the lines picked are the runs the
 * Compare Runs window draws on one plot.
 *
 * Unknown figures sort last both ways. GTK 4.8 turns a column's order around by
 * negating its sorter's answer and does not say which way a column sorts, so
 * the table asks: each time the column view's sorter changes, it compares two
 * probe items that differ in one figure only, and the answer says whether that
 * column sorts, and which way; the column's sorter then puts unknown figures
 * where they end last once negated. (GTK 4.10's
 * gtk_column_view_sorter_get_primary_sort_order() would say it directly.)
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-runs-table.h"

typedef struct {
  struct _NapkinRunsTable *table;
  NapkinRunsColumn         column;
} ColumnData;

struct _NapkinRunsTable
{
  GtkWidget            parent_instance;

  GListModel          *runs;          /* of NapkinRun: the page's */
  GListStore          *items;         /* of NapkinRunSummaryItem, in the runs' order */
  GtkSortListModel    *sorted;
  GtkMultiSelection   *selection;     /* the runs picked to plot together */
  GtkColumnView       *view;
  GtkColumnViewColumn *columns[NAPKIN_RUNS_N_COLUMNS];
  GtkCustomSorter     *sorters[NAPKIN_RUNS_N_COLUMNS];
  ColumnData           column_data[NAPKIN_RUNS_N_COLUMNS];
  gboolean             sorting[NAPKIN_RUNS_N_COLUMNS];   /* the column is among the sort's */
  gboolean             inverted[NAPKIN_RUNS_N_COLUMNS];  /* ... and sorts descending */
  GObject             *probe[2];
  NkRunSummary         probe_summary[2];
  guint                resort_source;
};

G_DEFINE_FINAL_TYPE (NapkinRunsTable, napkin_runs_table, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_RUNS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  RUN_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *const column_titles[NAPKIN_RUNS_N_COLUMNS] = {
  N_("Run"), N_("Engine"), N_("Final Loss"), N_("Best Loss"), N_("Tokens"), N_("Tokens/s"),
  N_("MFU"), N_("Peak Memory"),
};

static gboolean
is_figure (NapkinRunsColumn column)
{
  return column >= NAPKIN_RUNS_COLUMN_FINAL_LOSS;
}

/* ------------------------------------------------------------ sorting */

static const NkRunSummary *
summary_of (NapkinRunsTable *self,
            gpointer         item)
{
  if (item == self->probe[0])
    return &self->probe_summary[0];
  if (item == self->probe[1])
    return &self->probe_summary[1];
  return napkin_run_summary_item_get_summary (item);
}

static int
compare_items (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  ColumnData *data = user_data;
  NapkinRunsTable *self = data->table;
  int r;

  if (is_figure (data->column))
    r = nk_run_summary_compare (summary_of (self, (gpointer) a), summary_of (self, (gpointer) b),
                                data->column - NAPKIN_RUNS_COLUMN_FINAL_LOSS, self->inverted[data->column]);
  else if ((GObject *) a == self->probe[0] || (GObject *) a == self->probe[1]
           || (GObject *) b == self->probe[0] || (GObject *) b == self->probe[1])
    r = 0;
  else if (data->column == NAPKIN_RUNS_COLUMN_NAME)
    r = g_utf8_collate (napkin_run_get_name (napkin_run_summary_item_get_run ((gpointer) a)),
                        napkin_run_get_name (napkin_run_summary_item_get_run ((gpointer) b)));
  else
    r = g_utf8_collate (napkin_run_summary_item_get_source ((gpointer) a),
                        napkin_run_summary_item_get_source ((gpointer) b));
  return (r > 0) - (r < 0);
}

/* Which columns sort, and which way: the column view's sorter compares two
 * probes that differ in one figure only. Runs before the sort list model
 * re-sorts (connected before it). */
static void
on_view_sorter_changed (GtkSorter       *sorter,
                        GtkSorterChange  change,
                        NapkinRunsTable *self)
{
  for (guint c = NAPKIN_RUNS_COLUMN_FINAL_LOSS; c < NAPKIN_RUNS_N_COLUMNS; c++)
    {
      GtkOrdering order;

      for (guint f = 0; f < NK_RUN_SUMMARY_N_FIELDS; f++)
        self->probe_summary[0].value[f] = self->probe_summary[1].value[f] = 0;
      self->probe_summary[0].value[c - NAPKIN_RUNS_COLUMN_FINAL_LOSS] = 1;
      self->probe_summary[1].value[c - NAPKIN_RUNS_COLUMN_FINAL_LOSS] = 2;
      order = gtk_sorter_compare (sorter, self->probe[0], self->probe[1]);
      self->sorting[c] = order != GTK_ORDERING_EQUAL;
      self->inverted[c] = order == GTK_ORDERING_LARGER;
    }
}

/* Figures changed: the columns that sort say so, once per main-loop turn. */
static gboolean
resort_cb (gpointer user_data)
{
  NapkinRunsTable *self = user_data;

  self->resort_source = 0;
  for (guint c = NAPKIN_RUNS_COLUMN_SOURCE; c < NAPKIN_RUNS_N_COLUMNS; c++)
    if (self->sorting[c] || c == NAPKIN_RUNS_COLUMN_SOURCE)
      /* setting the function again is GtkCustomSorter's way to say it changed */
      gtk_custom_sorter_set_sort_func (self->sorters[c], compare_items, &self->column_data[c], NULL);
  return G_SOURCE_REMOVE;
}

static void
on_item_summary (NapkinRunsTable *self)
{
  if (self->resort_source == 0)
    self->resort_source = g_idle_add (resort_cb, self);
}

/* ------------------------------------------------------------ the items */

static void
on_runs_changed (GListModel      *runs,
                 guint            position,
                 guint            removed,
                 guint            added,
                 NapkinRunsTable *self)
{
  g_autoptr(GPtrArray) fresh = g_ptr_array_new_full (added, g_object_unref);

  for (guint i = 0; i < added; i++)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (runs, position + i);
      NapkinRunSummaryItem *item = napkin_run_summary_item_new (run);

      g_signal_connect_object (item, "notify::summary", G_CALLBACK (on_item_summary), self, G_CONNECT_SWAPPED);
      g_ptr_array_add (fresh, item);
    }
  g_list_store_splice (self->items, position, removed, fresh->pdata, added);
}

/**
 * napkin_runs_table_set_runs:
 * @self: a table
 * @runs: (nullable): a list model of #NapkinRun
 *
 * Shows @runs, one line each, kept in step as runs come and go.
 */
void
napkin_runs_table_set_runs (NapkinRunsTable *self,
                            GListModel      *runs)
{
  g_return_if_fail (NAPKIN_IS_RUNS_TABLE (self));
  g_return_if_fail (runs == NULL || G_IS_LIST_MODEL (runs));

  if (self->runs == runs)
    return;
  if (self->runs != NULL)
    g_signal_handlers_disconnect_by_func (self->runs, on_runs_changed, self);
  g_list_store_remove_all (self->items);
  g_set_object (&self->runs, runs);
  if (runs != NULL)
    {
      g_signal_connect_object (runs, "items-changed", G_CALLBACK (on_runs_changed), self, 0);
      on_runs_changed (runs, 0, 0, g_list_model_get_n_items (runs), self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNS]);
}

/* ------------------------------------------------------------ cells */

static const char *
get_text (gpointer         item,
          NapkinRunsColumn column)
{
  if (column == NAPKIN_RUNS_COLUMN_NAME)
    return napkin_run_get_name (napkin_run_summary_item_get_run (item));
  if (column == NAPKIN_RUNS_COLUMN_SOURCE)
    return napkin_run_summary_item_get_source (item);
  return napkin_run_summary_item_get_text (item, column - NAPKIN_RUNS_COLUMN_FINAL_LOSS);
}

static void
update_cell (GtkListItem *list_item)
{
  ColumnData *data = g_object_get_data (G_OBJECT (list_item), "napkin-column");
  gpointer item = gtk_list_item_get_item (list_item);

  if (item != NULL)
    gtk_inscription_set_text (GTK_INSCRIPTION (gtk_list_item_get_child (list_item)), get_text (item, data->column));
}

/* Cells are GtkInscriptions, sized by characters, not by their text: a sort
 * rebinds every bound line (about 200 × 8 cells), and a GtkLabel measures its
 * new text each time (the painted frame took 50 ms for 500 runs; GTK 4.8 added
 * GtkInscription for exactly this). */
static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *list_item,
            ColumnData               *data)
{
  GtkInscription *cell = GTK_INSCRIPTION (gtk_inscription_new (NULL));

  g_object_set_data (G_OBJECT (list_item), "napkin-column", data);
  /* a name cut in its middle keeps its end, where runs of a sweep differ ("… · seed 1") */
  gtk_inscription_set_text_overflow (cell, data->column == NAPKIN_RUNS_COLUMN_NAME
                                           ? GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_MIDDLE
                                           : GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  if (is_figure (data->column))
    {
      /* numbers right-aligned, in figures of one width ("12.3 Mtok/s") */
      gtk_inscription_set_xalign (cell, 1);
      gtk_inscription_set_min_chars (cell, 6);
      gtk_inscription_set_nat_chars (cell, 10);
      gtk_widget_add_css_class (GTK_WIDGET (cell), "numeric");
    }
  else
    {
      gtk_inscription_set_xalign (cell, 0);
      gtk_inscription_set_min_chars (cell, data->column == NAPKIN_RUNS_COLUMN_NAME ? 12 : 8);
      gtk_inscription_set_nat_chars (cell, data->column == NAPKIN_RUNS_COLUMN_NAME ? 28 : 12);
    }
  gtk_list_item_set_child (list_item, GTK_WIDGET (cell));
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *list_item,
           ColumnData               *data)
{
  gpointer item = gtk_list_item_get_item (list_item);

  update_cell (list_item);
  /* a sort rebinds a few hundred cells: plain handlers, not watched closures (unbind
   * always comes first) */
  if (data->column == NAPKIN_RUNS_COLUMN_NAME)
    g_signal_connect_swapped (napkin_run_summary_item_get_run (item), "notify::name",
                              G_CALLBACK (update_cell), list_item);
  else
    g_signal_connect_swapped (item, "notify::summary", G_CALLBACK (update_cell), list_item);
}

static void
unbind_cell (GtkSignalListItemFactory *factory,
             GtkListItem              *list_item,
             ColumnData               *data)
{
  gpointer item = gtk_list_item_get_item (list_item);

  if (item == NULL)
    return;
  if (data->column == NAPKIN_RUNS_COLUMN_NAME)
    g_signal_handlers_disconnect_by_data (napkin_run_summary_item_get_run (item), list_item);
  else
    g_signal_handlers_disconnect_by_data (item, list_item);
}

static void
add_columns (NapkinRunsTable *self)
{
  for (guint c = 0; c < NAPKIN_RUNS_N_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;

      self->column_data[c].table = self;
      self->column_data[c].column = c;
      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), &self->column_data[c]);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), &self->column_data[c]);
      g_signal_connect (factory, "unbind", G_CALLBACK (unbind_cell), &self->column_data[c]);
      column = gtk_column_view_column_new (_(column_titles[c]), factory);
      self->sorters[c] = gtk_custom_sorter_new (compare_items, &self->column_data[c], NULL);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (self->sorters[c]));
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, c == NAPKIN_RUNS_COLUMN_NAME);
      gtk_column_view_append_column (self->view, column);
      self->columns[c] = column;
      g_object_unref (column);
    }
}

/* ------------------------------------------------------------ GObject */

static void
on_activate (GtkColumnView   *view,
             guint            position,
             NapkinRunsTable *self)
{
  g_autoptr(NapkinRunSummaryItem) item = g_list_model_get_item (G_LIST_MODEL (self->sorted), position);

  if (item != NULL)
    g_signal_emit (self, signals[RUN_ACTIVATED], 0, napkin_run_summary_item_get_run (item));
}

static void
napkin_runs_table_dispose (GObject *object)
{
  NapkinRunsTable *self = NAPKIN_RUNS_TABLE (object);
  GtkWidget *child;

  g_clear_handle_id (&self->resort_source, g_source_remove);
  napkin_runs_table_set_runs (self, NULL);
  if (self->view != NULL)
    gtk_column_view_set_model (self->view, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_RUNS_TABLE);
  /* the template's scroller, not bound */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);
  g_clear_object (&self->sorted);
  g_clear_object (&self->items);
  for (guint c = 0; c < NAPKIN_RUNS_N_COLUMNS; c++)
    g_clear_object (&self->sorters[c]);
  g_clear_object (&self->probe[0]);
  g_clear_object (&self->probe[1]);

  G_OBJECT_CLASS (napkin_runs_table_parent_class)->dispose (object);
}

static void
napkin_runs_table_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  NapkinRunsTable *self = NAPKIN_RUNS_TABLE (object);

  switch (prop_id)
    {
    case PROP_RUNS:
      g_value_set_object (value, self->runs);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_runs_table_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  NapkinRunsTable *self = NAPKIN_RUNS_TABLE (object);

  switch (prop_id)
    {
    case PROP_RUNS:
      napkin_runs_table_set_runs (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_runs_table_class_init (NapkinRunsTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_runs_table_dispose;
  object_class->get_property = napkin_runs_table_get_property;
  object_class->set_property = napkin_runs_table_set_property;

  /**
   * NapkinRunsTable:runs:
   *
   * The runs shown: a list model of #NapkinRun.
   */
  properties[PROP_RUNS] =
    g_param_spec_object ("runs", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NapkinRunsTable::run-activated:
   * @self: the table
   * @run: the run of the line activated (Enter or a double click)
   */
  signals[RUN_ACTIVATED] = g_signal_new ("run-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, NAPKIN_TYPE_RUN);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-runs-table.ui");
  gtk_widget_class_bind_template_child (widget_class, NapkinRunsTable, view);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "napkin-runs-table");
}

static void
napkin_runs_table_init (NapkinRunsTable *self)
{
  GtkSorter *view_sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->items = g_list_store_new (NAPKIN_TYPE_RUN_SUMMARY_ITEM);
  self->probe[0] = g_object_new (G_TYPE_OBJECT, NULL);
  self->probe[1] = g_object_new (G_TYPE_OBJECT, NULL);
  add_columns (self);
  view_sorter = gtk_column_view_get_sorter (self->view);
  /* before the sort model connects, so the probes have answered when it sorts */
  g_signal_connect_object (view_sorter, "changed", G_CALLBACK (on_view_sorter_changed), self, 0);
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->items)),
                                          g_object_ref (view_sorter));
  /* Several lines can be picked (Ctrl+click, Shift+click, Space, Ctrl+A): the
   * Compare Runs window plots the picked runs together. */
  self->selection = gtk_multi_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (self->selection));
}

/**
 * napkin_runs_table_new:
 * @runs: (nullable): a list model of #NapkinRun
 *
 * Returns: (transfer floating): a table of @runs
 */
GtkWidget *
napkin_runs_table_new (GListModel *runs)
{
  return g_object_new (NAPKIN_TYPE_RUNS_TABLE, "runs", runs, NULL);
}

/* Returns: (transfer none) (nullable): the runs shown */
GListModel *
napkin_runs_table_get_runs (NapkinRunsTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUNS_TABLE (self), NULL);
  return self->runs;
}

/**
 * napkin_runs_table_sort_by:
 * @self: a table
 * @column: the column to sort by
 * @order: ascending or descending
 *
 * Sorts as a click on the column's header does (gtk_column_view_sort_by_column()).
 */
void
napkin_runs_table_sort_by (NapkinRunsTable  *self,
                           NapkinRunsColumn  column,
                           GtkSortType       order)
{
  g_return_if_fail (NAPKIN_IS_RUNS_TABLE (self));
  g_return_if_fail (column < NAPKIN_RUNS_N_COLUMNS);

  gtk_column_view_sort_by_column (self->view, self->columns[column], order);
}

/* Returns: (transfer none): the lines in the order shown, of #NapkinRunSummaryItem */
GListModel *
napkin_runs_table_get_model (NapkinRunsTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUNS_TABLE (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

/* Returns: how many runs' folders are still being read for their figures */
guint
napkin_runs_table_get_n_pending (NapkinRunsTable *self)
{
  guint n, pending = 0;

  g_return_val_if_fail (NAPKIN_IS_RUNS_TABLE (self), 0);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NapkinRunSummaryItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      pending += napkin_run_summary_item_is_pending (item);
    }
  return pending;
}

/* Returns: (transfer none): the column view */
GtkColumnView *
napkin_runs_table_get_column_view (NapkinRunsTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUNS_TABLE (self), NULL);
  return self->view;
}

/* Returns: (transfer full) (nullable): the text of a cell, as its label shows it */
char *
napkin_runs_table_dup_cell_text (NapkinRunsTable  *self,
                                 guint             position,
                                 NapkinRunsColumn  column)
{
  g_autoptr(NapkinRunSummaryItem) item = NULL;

  g_return_val_if_fail (NAPKIN_IS_RUNS_TABLE (self), NULL);
  g_return_val_if_fail (column < NAPKIN_RUNS_N_COLUMNS, NULL);

  item = g_list_model_get_item (G_LIST_MODEL (self->sorted), position);
  return item != NULL ? g_strdup (get_text (item, column)) : NULL;
}
