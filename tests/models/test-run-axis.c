/* test-run-axis.c: a run's x values for each axis, against sums done by hand
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: the expected (step, x) pairs are written out by hand from the
 * numbers put in (a log every 10 steps, step times 0.5, 0.6, 0.7 s: 5, 11, 18
 * s; a plan of 1000 tokens/s at 2 s a step: 2000 tokens a step), not computed by
 * the code under test. A run without what an axis needs has no map.
 */
#include "config.h"

#include <math.h>

#include "napkin-run-axis.h"

static void
assert_map (NapkinSeries *map,
            const double *steps,
            const double *xs,
            guint         n)
{
  g_assert_cmpuint (napkin_series_get_length (map), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (napkin_series_get_x (map, i), ==, steps[i]);
      g_assert_cmpfloat_with_epsilon (napkin_series_get_y (map, i), xs[i], fabs (xs[i]) * 1e-12);
    }
}

static NkImport *
import_of (NkLogFormat format,
           gboolean    with_times)
{
  NkImport *import = g_new0 (NkImport, 1);
  const double seconds[] = { 0.5, 0.6, 0.7 };

  import->format = format;
  import->steps = g_array_new (FALSE, TRUE, sizeof (NkImportStep));
  for (guint i = 0; i < 3; i++)
    {
      NkImportStep s = { .step = 10 * (i + 1), .loss = 3 - i, .tokens_per_s = 100,
                         .tflops_per_gpu = NAN, .mfu = NAN, .memory_max_bytes = NAN,
                         .seconds = with_times ? seconds[i] : NAN, .samples_per_s = NAN };

      g_array_append_val (import->steps, s);
    }
  return import;
}

static void
test_import (void)
{
  const double steps[] = { 10, 20, 30 };
  NkImport *nanogpt = import_of (NK_LOG_FORMAT_NANOGPT, TRUE);
  NkImport *titan = import_of (NK_LOG_FORMAT_TORCHTITAN, TRUE);
  NkImport *no_times = import_of (NK_LOG_FORMAT_NANOGPT, FALSE);
  NkImportPrediction plan = { .seconds = 2, .tokens_per_s = 1000, .mfu = 0.5, .peak = 1e15, .gpus = 8,
                              .memory_max_bytes = NAN };
  g_autoptr(NapkinSeries) map = napkin_series_new ();

  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_STEP, nanogpt, NULL, map));
  assert_map (map, steps, steps, 3);
  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_RELATIVE, nanogpt, NULL, map));
  assert_map (map, steps, (double[]) { 1 / 3.0, 2 / 3.0, 1 }, 3);
  /* each logged step stands for the 10 since the one before */
  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TIME, nanogpt, NULL, map));
  assert_map (map, steps, (double[]) { 5, 11, 18 }, 3);
  /* the log's tokens/s × step time: 100 × 0.5 × 10, ... */
  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TOKENS, nanogpt, NULL, map));
  assert_map (map, steps, (double[]) { 500, 1100, 1800 }, 3);
  /* the plan's 2000 tokens a step win over the log's */
  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TOKENS, nanogpt, &plan, map));
  assert_map (map, steps, (double[]) { 20000, 40000, 60000 }, 3);
  /* FLOPs: 0.5 × 1e15 × 8 GPUs × 2 s = 8e15 a step */
  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_FLOPS, nanogpt, &plan, map));
  assert_map (map, steps, (double[]) { 8e16, 16e16, 24e16 }, 3);

  /* what a run lacks gives no map, never a guess */
  g_assert_false (napkin_x_axis_fill_import (NAPKIN_X_AXIS_FLOPS, nanogpt, NULL, map));
  g_assert_cmpuint (napkin_series_get_length (map), ==, 0);
  g_assert_false (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TOKENS, titan, NULL, map));
  g_assert_false (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TIME, no_times, NULL, map));
  g_assert_false (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TOKENS, no_times, NULL, map));
  g_assert_true (napkin_x_axis_fill_import (NAPKIN_X_AXIS_TOKENS, titan, &plan, map));

  nk_import_free (nanogpt);
  nk_import_free (titan);
  nk_import_free (no_times);
}

static void
test_history (void)
{
  NkTrainConfig *config = nk_train_config_new ();
  NkTrainHistory *history = nk_train_history_new ();
  const double steps[] = { 1, 2, 3, 4 };
  g_autoptr(NapkinSeries) map = napkin_series_new ();

  config->batch = 8;
  for (guint i = 1; i <= 4; i++)
    {
      NkTrainMetrics m = { .step = i, .loss = 1.0 / i, .flops = 1000 * i, .seconds = 0.25 * i };

      nk_train_history_append (history, &m);
    }
  /* the Cruncher's "tokens" are its samples: B = 8 a step */
  g_assert_true (napkin_x_axis_fill_history (NAPKIN_X_AXIS_TOKENS, history, config, map));
  assert_map (map, steps, (double[]) { 8, 16, 24, 32 }, 4);
  g_assert_true (napkin_x_axis_fill_history (NAPKIN_X_AXIS_FLOPS, history, config, map));
  assert_map (map, steps, (double[]) { 1000, 3000, 6000, 10000 }, 4);
  g_assert_true (napkin_x_axis_fill_history (NAPKIN_X_AXIS_TIME, history, config, map));
  assert_map (map, steps, (double[]) { 0.25, 0.75, 1.5, 2.5 }, 4);
  g_assert_true (napkin_x_axis_fill_history (NAPKIN_X_AXIS_RELATIVE, history, config, map));
  assert_map (map, steps, (double[]) { 0.25, 0.5, 0.75, 1 }, 4);

  nk_train_history_free (history);
  nk_train_config_free (config);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/models/run-axis/import", test_import);
  g_test_add_func ("/models/run-axis/history", test_history);

  return g_test_run ();
}
