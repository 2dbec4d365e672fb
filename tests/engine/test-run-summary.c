/* test-run-summary.c: a run's figures (final and best loss, tokens, tokens/s, MFU, peak memory)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the steps the test made up, summarised by brute force apart from the
 * code under test: a linear scan for the best loss and the peak, the median picked
 * by counting, for each value, how many are below and above it (no sort), the
 * tokens per step as the closed forms B (the Cruncher) and B·T (a language model),
 * and hand-written orders and texts for the comparison and the formatting. The run
 * folder is laid out with the engine's writer and read back through
 * nk_run_summary_read().
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-test-util.h"
#include "nk-run-dir.h"
#include "nk-run-summary.h"

/* The median by counting: the value with as many at or below as at or above; for
 * an even count the mean of the two middle ranks. */
static double
oracle_median (const double *v,
               gsize         n)
{
  double lower = NAN, upper = NAN;

  if (n == 0)
    return NAN;
  for (gsize i = 0; i < n; i++)
    {
      gsize below = 0, equal = 0;

      for (gsize j = 0; j < n; j++)
        {
          below += v[j] < v[i];
          equal += v[j] == v[i];
        }
      /* v[i] holds the ranks below .. below + equal - 1 */
      if (below <= (n - 1) / 2 && (n - 1) / 2 < below + equal)
        lower = v[i];
      if (below <= n / 2 && n / 2 < below + equal)
        upper = v[i];
    }
  return n % 2 ? lower : (lower + upper) / 2;
}

static double
made_up_loss (guint64 step)
{
  return 5.0 / (double) step + 0.3 * sin (1.7 * (double) step) + 1.0;
}

static void
made_up_step (guint64         step,
              NkTrainMetrics *m)
{
  memset (m, 0, sizeof *m);
  m->step = step;
  m->loss = made_up_loss (step);
  m->seconds = 0.01 * (1.5 + cos (0.9 * (double) step));
  m->flops = 1000;
  m->flops_per_s = m->flops / m->seconds;
  m->peak_flops_per_s = 1e6;
  m->mfu = m->flops_per_s / m->peak_flops_per_s;
  m->memory[NK_BUCKET_PARAMS] = 4000;
  m->memory[NK_BUCKET_GRADS] = 4000;
  m->memory[NK_BUCKET_OPTIMIZER] = 8000;
  m->memory[NK_BUCKET_ACTIVATIONS] = 100 * (step % 7) + 3 * step;
  m->loss_scale = 1;
}

/* The figures of made_up_step() 1..n by brute force. */
static void
oracle_history (guint64       n,
                double        tokens_per_step,
                NkRunSummary *out)
{
  g_autofree double *rates = g_new (double, n);
  g_autofree double *mfus = g_new (double, n);
  gsize n_rates = 0;
  double peak = 0;

  out->last_step = n;
  out->best_step = 0;
  out->value[NK_RUN_SUMMARY_BEST_LOSS] = INFINITY;
  for (guint64 s = 1; s <= n; s++)
    {
      NkTrainMetrics m;
      double bytes;

      made_up_step (s, &m);
      if (m.loss < out->value[NK_RUN_SUMMARY_BEST_LOSS])
        {
          out->value[NK_RUN_SUMMARY_BEST_LOSS] = m.loss;
          out->best_step = s;
        }
      bytes = (double) (m.memory[0] + m.memory[1] + m.memory[2] + m.memory[3]);
      if (bytes > peak)
        peak = bytes;
      if (s > 1)
        {
          rates[n_rates] = tokens_per_step / m.seconds;
          mfus[n_rates++] = m.mfu;
        }
    }
  out->value[NK_RUN_SUMMARY_FINAL_LOSS] = made_up_loss (n);
  out->value[NK_RUN_SUMMARY_TOKENS] = tokens_per_step * (double) n;
  out->value[NK_RUN_SUMMARY_TOKENS_PER_S] = oracle_median (rates, n_rates);
  out->value[NK_RUN_SUMMARY_MFU] = oracle_median (mfus, n_rates);
  out->value[NK_RUN_SUMMARY_PEAK_MEMORY] = peak;
}

static void
assert_same (const NkRunSummary *got,
             const NkRunSummary *want)
{
  g_assert_cmpuint (got->last_step, ==, want->last_step);
  g_assert_cmpuint (got->best_step, ==, want->best_step);
  for (guint f = 0; f < NK_RUN_SUMMARY_N_FIELDS; f++)
    {
      g_test_message ("field %u: %.17g, oracle %.17g", f, got->value[f], want->value[f]);
      if (isnan (want->value[f]))
        g_assert_true (isnan (got->value[f]));
      else
        g_assert_cmpfloat (got->value[f], ==, want->value[f]);
    }
}

static void
test_oracle_median (void)
{
  /* the oracle itself, on hand counts */
  const double odd[] = { 5, 1, 4, 1, 3 };
  const double even[] = { 8, 2, 6, 4 };
  const double ties[] = { 2, 2, 2, 7 };

  g_assert_cmpfloat (oracle_median (odd, 5), ==, 3);
  g_assert_cmpfloat (oracle_median (even, 4), ==, 5);
  g_assert_cmpfloat (oracle_median (ties, 4), ==, 2);
  g_assert_true (isnan (oracle_median (odd, 0)));
}

static void
test_history (void)
{
  /* odd and even counts of steps after the first, and a single step */
  const guint64 counts[] = { 1, 2, 3, 50, 51, 1000 };

  for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
    {
      g_autoptr(NkTrainHistory) history = nk_train_history_new ();
      NkRunSummary got, want;

      for (guint64 s = 1; s <= counts[c]; s++)
        {
          NkTrainMetrics m;

          made_up_step (s, &m);
          nk_train_history_append (history, &m);
        }
      nk_run_summary_from_history (history, 96, &got);
      if (counts[c] == 1)
        {
          NkTrainMetrics m;

          /* a single step is its own typical step */
          made_up_step (1, &m);
          g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_TOKENS_PER_S], ==, 96 / m.seconds);
          g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_MFU], ==, m.mfu);
          g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_BEST_LOSS], ==, m.loss);
          continue;
        }
      oracle_history (counts[c], 96, &want);
      assert_same (&got, &want);
    }
}

static void
test_history_unknowns (void)
{
  g_autoptr(NkTrainHistory) history = nk_train_history_new ();
  NkRunSummary s;
  NkTrainMetrics m = { 0, };

  /* no step: nothing known */
  nk_run_summary_from_history (history, 8, &s);
  g_assert_cmpuint (s.last_step, ==, 0);
  for (guint f = 0; f < NK_RUN_SUMMARY_N_FIELDS; f++)
    g_assert_true (isnan (s.value[f]));

  /* steps with no time, no MFU, no memory, and a diverged last loss */
  for (guint64 step = 1; step <= 4; step++)
    {
      m.step = step;
      m.loss = step < 4 ? 3.0 - (double) step / 2 : NAN;
      nk_train_history_append (history, &m);
    }
  nk_run_summary_from_history (history, NAN, &s);
  g_assert_cmpuint (s.last_step, ==, 4);
  g_assert_true (isnan (s.value[NK_RUN_SUMMARY_FINAL_LOSS]));
  g_assert_cmpfloat (s.value[NK_RUN_SUMMARY_BEST_LOSS], ==, 1.5);
  g_assert_cmpuint (s.best_step, ==, 3);
  g_assert_true (isnan (s.value[NK_RUN_SUMMARY_TOKENS]));
  g_assert_true (isnan (s.value[NK_RUN_SUMMARY_TOKENS_PER_S]));
  g_assert_true (isnan (s.value[NK_RUN_SUMMARY_MFU]));
  g_assert_true (isnan (s.value[NK_RUN_SUMMARY_PEAK_MEMORY]));
}

/* A run folder of @n made-up steps; @lm: a tiny language model (B·T tokens a step). */
static void
check_folder (gboolean lm)
{
  g_autofree char *root = nk_test_make_temp_dir ("summary");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(GError) error = NULL;
  NkRunSummary got, want;
  const guint64 n = 333;

  config->batch = 6;
  config->context = 16;
  if (lm)
    config->model = NK_MODEL_TINY_LM;
  {
    g_autoptr(NkRunWriter) w = nk_run_writer_open (dir, config, NULL, 0, &error);

    g_assert_no_error (error);
    for (guint64 s = 1; s <= n; s++)
      {
        NkTrainMetrics m;

        made_up_step (s, &m);
        g_assert_true (nk_run_writer_append (w, &m, 1, "cpu", &error));
      }
    g_assert_true (nk_run_writer_finish (w, NK_RUN_STATUS_FINISHED, n, made_up_loss (n), NULL, &error));
  }
  g_assert_true (nk_run_summary_read (dir, &got, &error));
  g_assert_no_error (error);
  oracle_history (n, lm ? 6.0 * 16 : 6.0, &want);
  assert_same (&got, &want);
  nk_test_remove_tree (root);
}

static void
test_folder_cruncher (void)
{
  check_folder (FALSE);
}

static void
test_folder_lm (void)
{
  check_folder (TRUE);
}

static void
test_folder_not_a_run (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("summary");
  g_autoptr(GError) error = NULL;
  NkRunSummary s;

  g_assert_false (nk_run_summary_read (root, &s, &error));
  g_assert_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_NOT_A_RUN);
  nk_test_remove_tree (root);
}

static NkImportStep
import_step (gint64 step,
             double loss)
{
  NkImportStep s = { .step = step, .loss = loss, .tokens_per_s = NAN, .tflops_per_gpu = NAN,
                     .mfu = NAN, .memory_max_bytes = NAN, .seconds = NAN, .samples_per_s = NAN,
                     .present = NK_IMPORT_FIELD_LOSS };

  return s;
}

static void
test_import_llmc (void)
{
  g_autoptr(NkImport) import = g_new0 (NkImport, 1);
  g_autofree double *rates = NULL;
  g_autofree double *mfus = NULL;
  g_autofree double *tokens = NULL;
  const guint n = 40;
  NkRunSummary got, want;

  /* llm.c prints the whole job's tokens per second and each step's time; every
   * tenth step logged */
  import->format = NK_LOG_FORMAT_LLMC;
  import->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  rates = g_new (double, n);
  mfus = g_new (double, n);
  tokens = g_new (double, n);
  nk_run_summary_init (&want);
  want.value[NK_RUN_SUMMARY_BEST_LOSS] = INFINITY;
  want.value[NK_RUN_SUMMARY_PEAK_MEMORY] = 0;
  for (guint i = 0; i < n; i++)
    {
      NkImportStep s = import_step (10 * (i + 1), made_up_loss (i + 1));

      s.seconds = 0.1 + 0.01 * (i % 5);
      s.tokens_per_s = 524288 / s.seconds;
      s.mfu = 0.3 + 0.002 * ((i * 7) % 11);
      s.memory_max_bytes = 1e9 + 1e7 * ((i * 3) % 13);
      g_array_append_val (import->steps, s);
      tokens[i] = s.tokens_per_s * s.seconds;
      if (i > 0)
        {
          rates[i - 1] = s.tokens_per_s;
          mfus[i - 1] = s.mfu;
        }
      if (s.loss < want.value[NK_RUN_SUMMARY_BEST_LOSS])
        {
          want.value[NK_RUN_SUMMARY_BEST_LOSS] = s.loss;
          want.best_step = s.step;
        }
      if (s.memory_max_bytes > want.value[NK_RUN_SUMMARY_PEAK_MEMORY])
        want.value[NK_RUN_SUMMARY_PEAK_MEMORY] = s.memory_max_bytes;
    }
  want.last_step = 10 * n;
  want.value[NK_RUN_SUMMARY_FINAL_LOSS] = made_up_loss (n);
  want.value[NK_RUN_SUMMARY_TOKENS_PER_S] = oracle_median (rates, n - 1);
  want.value[NK_RUN_SUMMARY_MFU] = oracle_median (mfus, n - 1);
  want.value[NK_RUN_SUMMARY_TOKENS] = oracle_median (tokens, n) * 10 * n;
  nk_run_summary_from_import (import, NULL, &got);
  assert_same (&got, &want);
  /* 524,288 tokens a step, up to rounding, times 400 steps */
  g_assert_cmpfloat_with_epsilon (got.value[NK_RUN_SUMMARY_TOKENS] / (524288.0 * 400), 1.0, 1e-12);
}

static void
test_import_torchtitan_plan (void)
{
  g_autoptr(NkImport) import = g_new0 (NkImport, 1);
  NkImportPrediction plan = { .seconds = 2.0, .tokens_per_s = 20000, .mfu = 0.4, .memory_max_bytes = 4e10,
                              .gpus = 8, .seq = 2048 };
  NkImportStep s;
  NkRunSummary got;

  /* the test-training-runs log: tokens per second per GPU, no step time */
  import->format = NK_LOG_FORMAT_TORCHTITAN;
  import->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  s = import_step (1, 12.25);
  s.tokens_per_s = 1000;
  g_array_append_val (import->steps, s);
  s = import_step (2, 11.5);
  s.tokens_per_s = 3000;
  s.mfu = 0.30;
  s.memory_max_bytes = 42.0 * (1 << 30);
  g_array_append_val (import->steps, s);
  s = import_step (3, 10.75);
  s.tokens_per_s = 3200;
  s.present = 0;   /* a step that printed no loss */
  g_array_append_val (import->steps, s);

  /* without a plan, per-GPU tokens are not the job's: unknown */
  nk_run_summary_from_import (import, NULL, &got);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_FINAL_LOSS], ==, 11.5);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_BEST_LOSS], ==, 11.5);
  g_assert_cmpuint (got.best_step, ==, 2);
  g_assert_cmpuint (got.last_step, ==, 3);
  g_assert_true (isnan (got.value[NK_RUN_SUMMARY_TOKENS_PER_S]));
  g_assert_true (isnan (got.value[NK_RUN_SUMMARY_TOKENS]));
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_MFU], ==, 0.30);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_PEAK_MEMORY], ==, 42.0 * (1 << 30));

  /* with the plan's 8 GPUs: (3000·8 + 3200·8) / 2 after the first step; tokens
   * per step from the plan, 20,000 · 2 s */
  nk_run_summary_from_import (import, &plan, &got);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_TOKENS_PER_S], ==, 24800);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_TOKENS], ==, 40000.0 * 3);
}

static void
test_import_deepspeed_samples (void)
{
  g_autoptr(NkImport) import = g_new0 (NkImport, 1);
  NkImportPrediction plan = { .gpus = NAN, .seq = 1024, .tokens_per_s = NAN, .seconds = NAN };
  NkRunSummary got;

  import->format = NK_LOG_FORMAT_DEEPSPEED;
  import->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  for (guint i = 1; i <= 3; i++)
    {
      NkImportStep s = import_step (i, 2.0 + i);

      s.samples_per_s = 10.0 * i;
      s.seconds = 0.5;
      g_array_append_val (import->steps, s);
    }
  nk_run_summary_from_import (import, &plan, &got);
  /* sequences of 1,024 tokens: steps 2 and 3, 20 and 30 per second */
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_TOKENS_PER_S], ==, 25 * 1024.0);
  /* a step: 10·1024·0.5, 20·1024·0.5, 30·1024·0.5 tokens, the median 10,240, 3 steps */
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_TOKENS], ==, 10240.0 * 3);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_FINAL_LOSS], ==, 5.0);
  g_assert_cmpfloat (got.value[NK_RUN_SUMMARY_BEST_LOSS], ==, 3.0);
  g_assert_true (isnan (got.value[NK_RUN_SUMMARY_MFU]));
  g_assert_true (isnan (got.value[NK_RUN_SUMMARY_PEAK_MEMORY]));
}

static NkRunSummaryField sort_field;
static gboolean sort_inverted;

/* What a descending GtkColumnView does with its column's sorter: negate. */
static int
table_compare (const void *a,
               const void *b)
{
  int r = nk_run_summary_compare (a, b, sort_field, sort_inverted);

  return sort_inverted ? -r : r;
}

static void
test_compare_unknown_last (void)
{
  NkRunSummary runs[6];
  /* MFUs, with unknowns among them */
  const double mfu[6] = { 0.4, NAN, 0.1, INFINITY, 0.3, NAN };
  const double ascending[4] = { 0.1, 0.3, 0.4 };
  const double descending[4] = { 0.4, 0.3, 0.1 };

  for (guint i = 0; i < 6; i++)
    {
      nk_run_summary_init (&runs[i]);
      runs[i].value[NK_RUN_SUMMARY_MFU] = mfu[i];
    }
  sort_field = NK_RUN_SUMMARY_MFU;
  for (int order = 0; order < 2; order++)
    {
      sort_inverted = order == 1;
      qsort (runs, 6, sizeof *runs, table_compare);
      for (guint i = 0; i < 3; i++)
        g_assert_cmpfloat (runs[i].value[NK_RUN_SUMMARY_MFU], ==, (order ? descending : ascending)[i]);
      /* NaN and the infinite MFU are unknown: last, both ways */
      for (guint i = 3; i < 6; i++)
        g_assert_true (isnan (nk_run_summary_get (&runs[i], NK_RUN_SUMMARY_MFU)));
    }
  g_assert_cmpint (nk_run_summary_compare (&runs[1], &runs[1], NK_RUN_SUMMARY_MFU, FALSE), ==, 0);
}

static void
test_format (void)
{
  NkRunSummary s;
  const struct { NkRunSummaryField field; double value; const char *text; } cases[] = {
    { NK_RUN_SUMMARY_FINAL_LOSS, 2.34564, "2.3456" },
    { NK_RUN_SUMMARY_BEST_LOSS, 10.75, "10.7500" },
    { NK_RUN_SUMMARY_BEST_LOSS, 123456.0, "1.235e5" },
    { NK_RUN_SUMMARY_TOKENS, 524288, "524288" },
    { NK_RUN_SUMMARY_TOKENS, 2.097152e8, "2.10e8" },
    { NK_RUN_SUMMARY_TOKENS_PER_S, 24800, "24800" },
    { NK_RUN_SUMMARY_MFU, 0.4134, "41.3 %" },
    { NK_RUN_SUMMARY_PEAK_MEMORY, 42.0 * (1 << 30), "42 GiB" },
    { NK_RUN_SUMMARY_PEAK_MEMORY, 1536, "1.5 KiB" },
    { NK_RUN_SUMMARY_MFU, NAN, "—" },
    { NK_RUN_SUMMARY_TOKENS, INFINITY, "—" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = NULL;

      nk_run_summary_init (&s);
      s.value[cases[i].field] = cases[i].value;
      text = nk_run_summary_format (&s, cases[i].field);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/run-summary/oracle-median", test_oracle_median);
  g_test_add_func ("/engine/run-summary/history", test_history);
  g_test_add_func ("/engine/run-summary/history-unknowns", test_history_unknowns);
  g_test_add_func ("/engine/run-summary/folder-cruncher", test_folder_cruncher);
  g_test_add_func ("/engine/run-summary/folder-lm", test_folder_lm);
  g_test_add_func ("/engine/run-summary/folder-not-a-run", test_folder_not_a_run);
  g_test_add_func ("/engine/run-summary/import-llmc", test_import_llmc);
  g_test_add_func ("/engine/run-summary/import-torchtitan-plan", test_import_torchtitan_plan);
  g_test_add_func ("/engine/run-summary/import-deepspeed-samples", test_import_deepspeed_samples);
  g_test_add_func ("/engine/run-summary/compare-unknown-last", test_compare_unknown_last);
  g_test_add_func ("/engine/run-summary/format", test_format);
  return g_test_run ();
}
