/* test-run-compare.c: runs picked for comparison: their loss and flushed/clipped shares, styles and labels
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run folders are written here by hand (meta.json, config.json, and metrics.jsonl
 * lines typed with printf from closed forms of the step, seed and recipe, %.17g so
 * each number reads back exactly), read as the Training page reads them
 * (napkin_run_new_from_folder(), steps loaded on a thread), and compared.
 * Oracles: the closed forms themselves (every point, exactly), B·T tokens per step
 * from the config for the tokens axis, and for the styles a count over every pair
 * of lines (same colour exactly when same recipe; no two lines share colour and
 * dash).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "napkin-run-compare.h"
#include "nk-test-util.h"
#include "run-folders.h"

#define N_STEPS 40
#define recipes nk_test_recipes

static double
loss_of (guint r,
         guint seed,
         guint step)
{
  return 5.5 / (1 + 0.05 * step) + 0.01 * r + 0.001 * seed;
}

static double
flushed_of (guint r,
            guint seed,
            guint step)
{
  return 0.07 + 0.003 * r + 1e-4 * seed + 1e-3 * sin (step);
}

static double
clipped_of (guint r,
            guint seed,
            guint step)
{
  return r == 2 ? 0.02 + 1e-3 * cos (step) : 1e-5 * step + 1e-6 * seed;
}

/* Ten runs from disk, the five recipes in seeds 0 and 1, seed-major as the benchmark writes them. */
static GListStore *
read_runs (const char *root)
{
  GListStore *runs = g_list_store_new (NAPKIN_TYPE_RUN);

  for (guint seed = 0; seed < 2; seed++)
    for (guint r = 0; r < G_N_ELEMENTS (recipes); r++)
      {
        g_autofree char *dir = nk_test_write_run_folder (root, r, seed, N_STEPS, loss_of, flushed_of, clipped_of);
        g_autoptr(NapkinRun) run = nk_test_read_run_folder (dir, seed * G_N_ELEMENTS (recipes) + r);

        g_list_store_append (runs, run);
      }
  return runs;
}

static void
wait_loaded (NapkinRunCompare *compare)
{
  gboolean pending = TRUE;

  while (pending)
    {
      pending = FALSE;
      for (guint i = 0; i < napkin_run_compare_get_n_lines (compare); i++)
        pending |= napkin_run_compare_is_pending (compare, i);
      if (pending)
        g_main_context_iteration (NULL, TRUE);
    }
}

/* Every point of @series is (x_scale · step, f (r, seed, step)), exactly. */
static void
assert_points (NapkinSeries *series,
               double        x_scale,
               double      (*f) (guint r, guint seed, guint step),
               guint         r,
               guint         seed)
{
  g_assert_nonnull (series);
  g_assert_cmpuint (napkin_series_get_length (series), ==, N_STEPS);
  for (guint s = 1; s <= N_STEPS; s++)
    {
      g_assert_cmpfloat (napkin_series_get_x (series, s - 1), ==, x_scale * s);
      g_assert_cmpfloat (napkin_series_get_y (series, s - 1), ==, f (r, seed, s));
    }
}

static void
assert_lines (NapkinRunCompare *compare,
              double            x_scale)
{
  for (guint i = 0; i < napkin_run_compare_get_n_lines (compare); i++)
    {
      guint r = i % G_N_ELEMENTS (recipes), seed = i / G_N_ELEMENTS (recipes);
      gboolean block = nk_precision_is_block_scaled (recipes[r].precision);

      assert_points (napkin_run_compare_get_series (compare, i, NAPKIN_COMPARE_LOSS), x_scale, loss_of, r, seed);
      if (block)
        {
          assert_points (napkin_run_compare_get_series (compare, i, NAPKIN_COMPARE_FLUSHED), x_scale,
                         flushed_of, r, seed);
          assert_points (napkin_run_compare_get_series (compare, i, NAPKIN_COMPARE_CLIPPED), x_scale,
                         clipped_of, r, seed);
        }
      else
        {
          g_assert_null (napkin_run_compare_get_series (compare, i, NAPKIN_COMPARE_FLUSHED));
          g_assert_null (napkin_run_compare_get_series (compare, i, NAPKIN_COMPARE_CLIPPED));
        }
    }
}

/* The shares a run from disk read are its series; bf16 has none; every point on
 * the step axis and on the tokens axis (B·T = 16 · 64 tokens a step). */
static void
test_series (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-compare");
  g_autoptr(GListStore) runs = read_runs (root);
  g_autoptr(NapkinRunCompare) compare = napkin_run_compare_new (G_LIST_MODEL (runs));
  g_autoptr(NapkinRun) first = g_list_model_get_item (G_LIST_MODEL (runs), 3);

  /* the run itself: its shares as series of the steps */
  wait_loaded (compare);
  assert_points (napkin_run_get_series (first, NAPKIN_RUN_SERIES_QUANT_FLUSHED), 1, flushed_of, 3, 0);
  assert_points (napkin_run_get_series (first, NAPKIN_RUN_SERIES_QUANT_CLIPPED), 1, clipped_of, 3, 0);
  g_assert_cmpuint (napkin_run_compare_get_n_lines (compare), ==, 10);
  assert_lines (compare, 1);
  napkin_run_compare_set_x_axis (compare, NAPKIN_X_AXIS_TOKENS);
  assert_lines (compare, 16 * 64);
  napkin_run_compare_set_x_axis (compare, NAPKIN_X_AXIS_STEP);
  assert_lines (compare, 1);
  g_clear_object (&compare);
  nk_test_remove_tree (root);
}

/* Colours by recipe, dashes apart within one, labels by recipe and seed; a run
 * dropped from the picks takes its line away and the rest keep theirs. */
static void
test_styles (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-compare");
  g_autoptr(GListStore) runs = read_runs (root);
  g_autoptr(NapkinRunCompare) compare = napkin_run_compare_new (G_LIST_MODEL (runs));
  guint n;

  wait_loaded (compare);
  n = napkin_run_compare_get_n_lines (compare);
  for (guint i = 0; i < n; i++)
    {
      guint r = i % G_N_ELEMENTS (recipes), seed = i / G_N_ELEMENTS (recipes);
      g_autofree char *label = g_strdup_printf ("%s · seed %u", recipes[r].recipe, seed);

      g_assert_cmpstr (napkin_run_compare_get_label (compare, i), ==, label);
      g_assert_cmpstr (napkin_run_compare_get_group_label (compare, i), ==, recipes[r].recipe);
      g_assert_cmpuint (napkin_run_compare_get_color (compare, i), <, NAPKIN_RUN_COMPARE_N_COLORS);
      g_assert_cmpuint (napkin_run_compare_get_dash (compare, i), <, NAPKIN_RUN_COMPARE_N_DASHES);
      for (guint j = 0; j < n; j++)
        {
          gboolean same_recipe = j % G_N_ELEMENTS (recipes) == r;

          if (j == i)
            continue;
          g_assert_cmpint (napkin_run_compare_get_color (compare, i) == napkin_run_compare_get_color (compare, j),
                           ==, same_recipe);
          g_assert_false (napkin_run_compare_get_color (compare, i) == napkin_run_compare_get_color (compare, j)
                          && napkin_run_compare_get_dash (compare, i) == napkin_run_compare_get_dash (compare, j));
        }
    }
  /* seed 0's mxfp8floor dropped: nine lines, the others' points unchanged */
  g_list_store_remove (runs, 2);
  g_assert_cmpuint (napkin_run_compare_get_n_lines (compare), ==, 9);
  g_assert_cmpstr (napkin_run_compare_get_label (compare, 2), ==, "NVFP4, stochastic rounding · seed 0");
  assert_points (napkin_run_compare_get_series (compare, 2, NAPKIN_COMPARE_FLUSHED), 1, flushed_of, 3, 0);
  g_assert_cmpstr (napkin_run_compare_get_label (compare, 6), ==, "MXFP8, scale floored (OCP) · seed 1");
  g_clear_object (&compare);
  nk_test_remove_tree (root);
}

/* The line of @run in @compare, G_MAXUINT when none. */
static guint
line_of (NapkinRunCompare *compare,
         NapkinRun        *run)
{
  for (guint i = 0; i < napkin_run_compare_get_n_lines (compare); i++)
    if (napkin_run_compare_get_run (compare, i) == run)
      return i;
  return G_MAXUINT;
}

/* Each run's colour and dash, packed as colour · N_DASHES + dash, by run. */
static GHashTable *
styles_of (NapkinRunCompare *compare)
{
  GHashTable *styles = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < napkin_run_compare_get_n_lines (compare); i++)
    g_hash_table_insert (styles, napkin_run_compare_get_run (compare, i),
                         GUINT_TO_POINTER (napkin_run_compare_get_color (compare, i) * NAPKIN_RUN_COMPARE_N_DASHES
                                           + napkin_run_compare_get_dash (compare, i) + 1));
  return styles;
}

static void
assert_styles_kept (NapkinRunCompare *compare,
                    GHashTable       *before)
{
  GHashTableIter iter;
  gpointer run, style;

  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &run, &style))
    {
      guint i = line_of (compare, run);

      if (i == G_MAXUINT)
        continue;
      g_assert_cmpuint (napkin_run_compare_get_color (compare, i) * NAPKIN_RUN_COMPARE_N_DASHES
                        + napkin_run_compare_get_dash (compare, i) + 1, ==, GPOINTER_TO_UINT (style));
    }
}

/* A sort reorders the compared runs in one items-changed (as GtkSortListModel
 * does): every run keeps its colour and dash. So does every run still compared
 * when one is dropped or another picked. Oracle: each run's style before,
 * looked up by the run itself. */
static void
test_styles_follow_runs (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-compare");
  g_autoptr(GListStore) runs = read_runs (root);
  g_autoptr(NapkinRunCompare) compare = napkin_run_compare_new (G_LIST_MODEL (runs));
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GPtrArray) reversed = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(NapkinRun) dropped = NULL;
  guint n;

  wait_loaded (compare);
  n = napkin_run_compare_get_n_lines (compare);
  before = styles_of (compare);
  for (guint i = n; i-- > 0; )
    g_ptr_array_add (reversed, g_list_model_get_item (G_LIST_MODEL (runs), i));
  g_list_store_splice (runs, 0, n, reversed->pdata, n);
  g_assert_true (napkin_run_compare_get_run (compare, 0) == g_ptr_array_index (reversed, 0));
  assert_styles_kept (compare, before);

  /* the first recipe's seed-1 run dropped, then picked again at the other end */
  dropped = g_list_model_get_item (G_LIST_MODEL (runs), 4);
  g_list_store_remove (runs, 4);
  assert_styles_kept (compare, before);
  g_list_store_append (runs, dropped);
  assert_styles_kept (compare, before);
  g_clear_object (&compare);
  nk_test_remove_tree (root);
}

/* The description a screen reader gets: each line's last loss, or its shares in per cent. */
static void
test_description (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-compare");
  g_autoptr(GListStore) runs = read_runs (root);
  g_autoptr(NapkinRunCompare) compare = napkin_run_compare_new (G_LIST_MODEL (runs));
  g_autofree char *loss = NULL;
  g_autofree char *clipped = NULL;
  g_autofree char *want = NULL;
  double mean = 0;

  wait_loaded (compare);
  loss = napkin_run_compare_dup_description (compare, NAPKIN_COMPARE_LOSS);
  want = g_strdup_printf ("bf16-mixed · seed 0: loss %.4g at step 40", loss_of (0, 0, N_STEPS));
  g_assert_true (g_str_has_prefix (loss, want));
  clipped = napkin_run_compare_dup_description (compare, NAPKIN_COMPARE_CLIPPED);
  g_assert_null (strstr (clipped, "bf16"));
  for (guint s = 1; s <= N_STEPS; s++)
    mean += clipped_of (2, 0, s) / N_STEPS;
  g_free (want);
  want = g_strdup_printf ("MXFP8, scale floored (OCP) · seed 0: %.3g %% on average, %.3g %% at the last step",
                          100 * mean, 100 * clipped_of (2, 0, N_STEPS));
  g_assert_nonnull (strstr (clipped, want));
  g_clear_object (&compare);
  nk_test_remove_tree (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/run-compare/series", test_series);
  g_test_add_func ("/models/run-compare/styles", test_styles);
  g_test_add_func ("/models/run-compare/styles-follow-runs", test_styles_follow_runs);
  g_test_add_func ("/models/run-compare/description", test_description);
  return g_test_run ();
}
