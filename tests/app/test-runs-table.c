/* test-runs-table.c: the Training page's Compare Runs table: every run's figures, sorted by each column
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test has its own empty $XDG_DATA_HOME (G_TEST_OPTION_ISOLATE_DIRS). The runs
 * are folders written here with the engine's writer, each with a constant step time,
 * MFU and memory, so each figure has a closed form (tokens B·n, tokens/s B/s, the
 * MFU and the bytes as written; the final and best loss by a scan of the losses
 * written), plus a torchtitan log whose figures are worked out by hand. The oracle
 * order is these figures sorted by an insertion sort with unknown figures last; the
 * table's order must give the same sequence of figures (ties may fall either way).
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "napkin-training-page-private.h"

#define MAX_WAIT_ITERATIONS 600000
#define N_FOLDERS 12

/* What the oracle knows of a run: its name and figures (NAN: unknown). */
typedef struct {
  char   name[32];
  char   source[32];
  double value[NK_RUN_SUMMARY_N_FIELDS];
} Expected;

static double
loss_at (guint i,
         guint step,
         guint steps)
{
  /* falls, then the last step jumps back up in every third run: final ≠ best */
  double base = 0.1 * (double) ((i * 5 + 1) % N_FOLDERS) + 1.0 / (double) step;

  return step == steps && i % 3 == 0 ? base + 1.5 : base;
}

/* Run i's folder, and what the oracle expects of it. */
static void
write_folder (guint     i,
              Expected *e)
{
  g_autofree char *id = g_strdup_printf ("20261124-1%02u000-1", i);
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "napkin", "runs", id, NULL);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkRunWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  guint batch = 1 + (i * 5) % N_FOLDERS;
  guint steps = 10 + (i * 7) % N_FOLDERS;
  double seconds = 1e-3 * (1 + (i * 11) % N_FOLDERS);
  double mfu = i % 4 == 1 ? 0 : 0.01 * (1 + (i * 5 + 3) % N_FOLDERS);
  guint64 activations = i % 3 == 2 ? 0 : 1000 * (1 + (i * 7 + 2) % N_FOLDERS);

  config->dim = 5;
  config->batch = batch;
  config->steps = steps;
  w = nk_run_writer_open (dir, config, NULL, 0, &error);
  g_assert_no_error (error);
  e->value[NK_RUN_SUMMARY_BEST_LOSS] = INFINITY;
  for (guint s = 1; s <= steps; s++)
    {
      NkTrainMetrics m = { 0, };

      m.step = s;
      m.loss = loss_at (i, s, steps);
      m.seconds = seconds;
      m.mfu = mfu;
      m.memory[NK_BUCKET_ACTIVATIONS] = activations;
      m.memory[NK_BUCKET_PARAMS] = activations > 0 ? 100 : 0;
      m.loss_scale = 1;
      g_assert_true (nk_run_writer_append (w, &m, 1, "cpu", &error));
      if (m.loss < e->value[NK_RUN_SUMMARY_BEST_LOSS])
        e->value[NK_RUN_SUMMARY_BEST_LOSS] = m.loss;
    }
  g_assert_true (nk_run_writer_finish (w, NK_RUN_STATUS_FINISHED, steps, loss_at (i, steps, steps),
                                       NULL, &error));
  g_snprintf (e->name, sizeof e->name, "run %02u", (i * 7 + 5) % N_FOLDERS);
  g_assert_true (nk_run_dir_set_name (dir, e->name, &error));
  g_strlcpy (e->source, "Napkin · cruncher", sizeof e->source);
  e->value[NK_RUN_SUMMARY_FINAL_LOSS] = loss_at (i, steps, steps);
  e->value[NK_RUN_SUMMARY_TOKENS] = (double) batch * steps;
  e->value[NK_RUN_SUMMARY_TOKENS_PER_S] = batch / seconds;
  e->value[NK_RUN_SUMMARY_MFU] = mfu > 0 ? mfu : NAN;
  e->value[NK_RUN_SUMMARY_PEAK_MEMORY] = activations > 0 ? activations + 100.0 : NAN;
}

/* The torchtitan log of test-training-runs, by hand: the best and final loss
 * 10.75; no step time and per-GPU tokens without a plan, so no tokens; the MFU
 * the median of steps 2 and 3, (30 % + 32 %) / 2; the memory the most, 42 GiB. */
static char *
write_log (Expected *e)
{
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "logs", NULL);
  char *log = g_build_filename (dir, "train.log", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (log,
    "step:  1  loss: 12.2500  memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%\n"
    "step:  2  loss: 11.5000  memory: 42.00GiB(52.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%\n"
    "step:  3  loss: 10.7500  memory: 41.00GiB(51.00%)  tps: 3,200  tflops: 320.00  mfu: 32.00%\n", -1, NULL));
  g_strlcpy (e->name, "train.log", sizeof e->name);
  g_strlcpy (e->source, "torchtitan", sizeof e->source);
  e->value[NK_RUN_SUMMARY_FINAL_LOSS] = 10.75;
  e->value[NK_RUN_SUMMARY_BEST_LOSS] = 10.75;
  e->value[NK_RUN_SUMMARY_TOKENS] = NAN;
  e->value[NK_RUN_SUMMARY_TOKENS_PER_S] = NAN;
  e->value[NK_RUN_SUMMARY_MFU] = (0.30 + 0.32) / 2;
  e->value[NK_RUN_SUMMARY_PEAK_MEMORY] = 42.0 * 1024 * 1024 * 1024;
  return log;
}

/* -1, 0, 1: @a before, with or after @b in ascending order of @column, unknown last. */
static int
oracle_compare (const Expected   *a,
                const Expected   *b,
                NapkinRunsColumn  column)
{
  double x, y;

  if (column == NAPKIN_RUNS_COLUMN_NAME)
    return strcmp (a->name, b->name);
  if (column == NAPKIN_RUNS_COLUMN_SOURCE)
    return g_ascii_strcasecmp (a->source, b->source);
  x = a->value[column - NAPKIN_RUNS_COLUMN_FINAL_LOSS];
  y = b->value[column - NAPKIN_RUNS_COLUMN_FINAL_LOSS];
  if (isnan (x) || isnan (y))
    return isnan (x) - isnan (y);
  return (x > y) - (x < y);
}

static gboolean
is_figure_unknown (const Expected   *e,
                   NapkinRunsColumn  column)
{
  return column >= NAPKIN_RUNS_COLUMN_FINAL_LOSS && isnan (e->value[column - NAPKIN_RUNS_COLUMN_FINAL_LOSS]);
}

static const Expected *
find_expected (const Expected *expected,
               guint           n,
               const char     *name)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (expected[i].name, name))
      return &expected[i];
  g_assert_not_reached ();
}

/* The table, sorted by @column in @order, shows the oracle's sequence. */
static void
check_sorted (NapkinRunsTable  *table,
              const Expected   *expected,
              guint             n,
              NapkinRunsColumn  column,
              GtkSortType       order)
{
  GListModel *model = napkin_runs_table_get_model (table);
  g_autofree const Expected **want = g_new (const Expected *, n);

  /* the oracle: insertion sort, descending reversing the known figures only */
  for (guint i = 0; i < n; i++)
    {
      guint j = i;

      while (j > 0)
        {
          int c = oracle_compare (want[j - 1], &expected[i], column);
          gboolean unknown = is_figure_unknown (want[j - 1], column) || is_figure_unknown (&expected[i], column);

          if (order == GTK_SORT_DESCENDING && !unknown)
            c = -c;
          if (c <= 0)
            break;
          want[j] = want[j - 1];
          j--;
        }
      want[j] = &expected[i];
    }

  napkin_runs_table_sort_by (table, column, order);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NapkinRunSummaryItem) item = g_list_model_get_item (model, i);
      const Expected *got = find_expected (expected, n, napkin_run_get_name (napkin_run_summary_item_get_run (item)));

      g_test_message ("column %d %s, line %u: %s, oracle %s", column,
                      order == GTK_SORT_ASCENDING ? "ascending" : "descending", i, got->name, want[i]->name);
      /* the same figure as the oracle's line (a tie may put either run there) */
      g_assert_cmpint (oracle_compare (got, want[i], column), ==, 0);
    }
}

static NapkinTrainingPage *
new_page_with_runs (Expected *expected)
{
  NapkinTrainingPage *page;
  g_autofree char *log = NULL;
  guint64 waited = 0;

  for (guint i = 0; i < N_FOLDERS; i++)
    write_folder (i, &expected[i]);
  log = write_log (&expected[N_FOLDERS]);
  page = NAPKIN_TRAINING_PAGE (napkin_training_page_new ());
  g_object_ref_sink (page);
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, N_FOLDERS);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-log", "s", log));
  while (napkin_training_page_get_n_runs (page) == N_FOLDERS && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, N_FOLDERS + 1);
  return page;
}

static NapkinRunsTable *
open_table (NapkinTrainingPage *page)
{
  NapkinRunsTable *table;
  guint64 waited = 0;

  g_assert_null (napkin_training_page_get_runs_table (page));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.compare-runs", NULL));
  table = napkin_training_page_get_runs_table (page);
  g_assert_nonnull (table);
  /* the folders are summarised on threads: pending until then */
  while (napkin_runs_table_get_n_pending (table) > 0 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_runs_table_get_n_pending (table), ==, 0);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  return table;
}

static void
test_sorts_by_each_column (void)
{
  Expected expected[N_FOLDERS + 1] = { 0, };
  NapkinTrainingPage *page = new_page_with_runs (expected);
  NapkinRunsTable *table = open_table (page);
  GtkColumnView *view = napkin_runs_table_get_column_view (table);
  GListModel *columns = gtk_column_view_get_columns (view);
  const char *titles[NAPKIN_RUNS_N_COLUMNS] = {
    "Run", "Engine", "Final Loss", "Best Loss", "Tokens", "Tokens/s", "MFU", "Peak Memory",
  };

  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, NAPKIN_RUNS_N_COLUMNS);
  for (guint c = 0; c < NAPKIN_RUNS_N_COLUMNS; c++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, c);

      g_assert_cmpstr (gtk_column_view_column_get_title (column), ==, titles[c]);
      g_assert_nonnull (gtk_column_view_column_get_sorter (column));
    }
  for (guint c = 0; c < NAPKIN_RUNS_N_COLUMNS; c++)
    {
      check_sorted (table, expected, N_FOLDERS + 1, c, GTK_SORT_ASCENDING);
      check_sorted (table, expected, N_FOLDERS + 1, c, GTK_SORT_DESCENDING);
      /* the other way again: a second sort of the same column */
      check_sorted (table, expected, N_FOLDERS + 1, c, GTK_SORT_ASCENDING);
    }
  g_assert_finalize_object (page);
}

/* What the cells say: the engine's formatting, an em dash for an unknown figure. */
static void
test_cells (void)
{
  Expected expected[N_FOLDERS + 1] = { 0, };
  NapkinTrainingPage *page = new_page_with_runs (expected);
  NapkinRunsTable *table = open_table (page);
  GListModel *model = napkin_runs_table_get_model (table);
  guint log_line = G_MAXUINT;

  napkin_runs_table_sort_by (table, NAPKIN_RUNS_COLUMN_NAME, GTK_SORT_ASCENDING);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autofree char *name = napkin_runs_table_dup_cell_text (table, i, NAPKIN_RUNS_COLUMN_NAME);

      if (g_str_equal (name, "train.log"))
        log_line = i;
    }
  g_assert_cmpuint (log_line, <, N_FOLDERS + 1);
  {
    const char *want[NAPKIN_RUNS_N_COLUMNS] = {
      "train.log", "torchtitan", "10.7500", "10.7500", "—", "—", "31.0 %", "42 GiB",
    };

    for (guint c = 0; c < NAPKIN_RUNS_N_COLUMNS; c++)
      {
        g_autofree char *text = napkin_runs_table_dup_cell_text (table, log_line, c);

        g_assert_cmpstr (text, ==, want[c]);
      }
  }
  /* "run 00" is run 1 (7·1 + 5 = 12 ≡ 0): batch 6, 17 steps of 12 ms, no MFU */
  {
    g_autofree char *name = napkin_runs_table_dup_cell_text (table, 0, NAPKIN_RUNS_COLUMN_NAME);
    g_autofree char *source = napkin_runs_table_dup_cell_text (table, 0, NAPKIN_RUNS_COLUMN_SOURCE);
    g_autofree char *tokens = napkin_runs_table_dup_cell_text (table, 0, NAPKIN_RUNS_COLUMN_TOKENS);
    g_autofree char *rate = napkin_runs_table_dup_cell_text (table, 0, NAPKIN_RUNS_COLUMN_TOKENS_PER_S);
    g_autofree char *mfu = napkin_runs_table_dup_cell_text (table, 0, NAPKIN_RUNS_COLUMN_MFU);

    g_assert_cmpstr (name, ==, "run 00");
    g_assert_cmpstr (source, ==, "Napkin · cruncher");
    g_assert_cmpstr (tokens, ==, "102");
    g_assert_cmpstr (rate, ==, "500");
    g_assert_cmpstr (mfu, ==, "—");
  }
  g_assert_finalize_object (page);
}

/* The table follows the page's runs, and a line activated shows its run. */
static void
test_follows_runs (void)
{
  Expected expected[N_FOLDERS + 1] = { 0, };
  NapkinTrainingPage *page = new_page_with_runs (expected);
  NapkinRunsTable *table = open_table (page);
  GListModel *model = napkin_runs_table_get_model (table);
  g_autoptr(NapkinRunSummaryItem) item = NULL;
  NapkinRun *run;
  guint64 waited = 0;

  napkin_runs_table_sort_by (table, NAPKIN_RUNS_COLUMN_TOKENS, GTK_SORT_DESCENDING);
  item = g_list_model_get_item (model, 0);
  run = napkin_run_summary_item_get_run (item);
  g_signal_emit_by_name (napkin_runs_table_get_column_view (table), "activate", 0);
  while (napkin_run_view_get_run (page->run_view) != run && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (napkin_run_view_get_run (page->run_view) == run);

  napkin_training_page_reload_runs (page);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, N_FOLDERS);
  g_assert_true (napkin_training_page_get_runs_table (page) == table);
  waited = 0;
  while (napkin_runs_table_get_n_pending (table) > 0 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  check_sorted (table, expected, N_FOLDERS, NAPKIN_RUNS_COLUMN_TOKENS, GTK_SORT_DESCENDING);
  g_assert_finalize_object (page);
}

static void
collect_name_cells (GtkWidget *widget,
                    GPtrArray *cells)
{
  /* the Name column's cells: the only left-aligned ones of 12 characters at least */
  if (GTK_IS_INSCRIPTION (widget) && gtk_inscription_get_min_chars (GTK_INSCRIPTION (widget)) == 12
      && gtk_widget_get_mapped (widget))
    g_ptr_array_add (cells, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_name_cells (child, cells);
}

/* At 360 px (a phone) the table scrolls sideways rather than squeezing each
 * column to its least: a run's name gets its natural width, so runs whose names
 * share a start ("GPT · NVFP4, …") stay apart. Oracle: GTK's own measure of
 * each name cell. Before: cut to 12 characters. */
static void
test_phone_width (void)
{
  Expected expected[N_FOLDERS + 1];
  NapkinTrainingPage *page = new_page_with_runs (expected);
  NapkinRunsTable *table = open_table (page);
  GtkWindow *window = GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (table)));
  g_autoptr(GPtrArray) cells = g_ptr_array_new ();
  guint64 waited = 0;

  /* a shown window keeps its size: shown again at 360 px */
  gtk_widget_hide (GTK_WIDGET (window));
  gtk_window_set_default_size (window, 360, 700);
  gtk_window_present (window);
  while (gtk_widget_get_width (GTK_WIDGET (table)) == 0 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  /* a few frames: the rows are laid out after the window */
  for (gint64 until = g_get_monotonic_time () + G_USEC_PER_SEC; g_get_monotonic_time () < until; )
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 360);
  collect_name_cells (GTK_WIDGET (napkin_runs_table_get_column_view (table)), cells);
  g_assert_cmpuint (cells->len, >, 1);   /* the rows shown */
  for (guint i = 0; i < cells->len; i++)
    {
      GtkWidget *cell = g_ptr_array_index (cells, i);
      int natural = 0;

      gtk_widget_measure (cell, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      g_assert_cmpint (gtk_widget_get_width (cell), >=, natural);
    }
  g_assert_finalize_object (page);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "en_US.UTF-8");
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/training/runs-table/sorts-by-each-column", test_sorts_by_each_column);
  g_test_add_func ("/ui/training/runs-table/cells", test_cells);
  g_test_add_func ("/ui/training/runs-table/follows-runs", test_follows_runs);
  g_test_add_func ("/ui/training/runs-table/phone-width", test_phone_width);
  return g_test_run ();
}
