/* test-plan-comparison.c: a plan beside an imported run, in the engine and in its table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: a nanoGPT log and a torchtitan log written here with known numbers,
 * the medians and ratios worked out by hand; for the plan's time to tokens, a
 * plan the real planner wrote (napkin-cli plan --json) whose token target is
 * its --tokens rounded up to whole steps of global batch × sequence, reached
 * after its steps × its step time.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <adwaita.h>

#include "napkin-pace-plot.h"
#include "napkin-plan-comparison.h"
#include "nk-import-plan.h"
#include "nk-run-summary.h"
#include "nk-test-util.h"

/* nanoGPT: step 0 is the warm-up and left out; the median of 0.40, 0.44, 0.42 s
 * is 0.42 s, of MFU 38, 36, 40 % is 38 %. */
static const char nanogpt_log[] =
  "iter 0: loss 10.9800, time 2000.00ms, mfu -100.00%\n"
  "iter 1: loss 9.7500, time 400.00ms, mfu 38.00%\n"
  "iter 2: loss 9.5000, time 440.00ms, mfu 36.00%\n"
  "iter 3: loss 9.2500, time 420.00ms, mfu 40.00%\n";

static void
test_compare_nanogpt (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) import = nk_log_import_text (nanogpt_log, sizeof nanogpt_log - 1, NK_LOG_FORMAT_AUTO, &error);
  NkImportPrediction plan = { .seconds = 0.35, .tokens_per_s = 1e6, .mfu = 0.5, .memory_max_bytes = 6e10, .gpus = 8 };
  NkImportComparison c;
  NapkinPlanComparison *table;

  g_assert_no_error (error);
  nk_import_compare (&plan, import, &c);
  g_assert_cmpfloat_with_epsilon (c.measured[NK_IMPORT_Q_SECONDS], 0.42, 1e-12);
  g_assert_cmpfloat_with_epsilon (c.ratio[NK_IMPORT_Q_SECONDS], 0.42 / 0.35, 1e-12);
  g_assert_cmpfloat_with_epsilon (c.measured[NK_IMPORT_Q_MFU], 0.38, 1e-12);
  g_assert_true (isnan (c.measured[NK_IMPORT_Q_TOKENS_PER_S]));
  g_assert_true (isnan (c.ratio[NK_IMPORT_Q_MEMORY]));
  /* |log 1.2| < |log 0.76|: MFU is the farther */
  g_assert_cmpint (c.largest, ==, NK_IMPORT_Q_MFU);

  table = NAPKIN_PLAN_COMPARISON (g_object_ref_sink (napkin_plan_comparison_new ()));
  napkin_plan_comparison_set (table, &c);
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_SECONDS, 3), ==, "1.20×");
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_MFU, 1), ==, "50.0 %");
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_MFU, 2), ==, "38.0 %");
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_MFU, 3), ==, "0.76×");
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_TOKENS_PER_S, 2), ==, "—");
  g_assert_nonnull (strstr (napkin_plan_comparison_get_verdict (table), "0.76×"));
  napkin_plan_comparison_set (table, NULL);
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_MFU, 3), ==, "—");

  /* With the plan's MFU on nanoGPT's own count, that is the one compared, and said. */
  plan.mfu_nanogpt = 0.40;
  nk_import_compare (&plan, import, &c);
  g_assert_cmpfloat (c.predicted[NK_IMPORT_Q_MFU], ==, 0.40);
  g_assert_cmpstr (c.mfu_count, ==, "nanogpt");
  napkin_plan_comparison_set (table, &c);
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_MFU, 3), ==, "0.95×");
  g_assert_nonnull (strstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_MFU, 0), "nanogpt"));
  g_assert_finalize_object (table);
}

/* torchtitan prints tokens per second per GPU; the plan counts the job's. */
static void
test_compare_torchtitan_per_gpu (void)
{
  static const char log[] =
    "step:  1  loss: 12.0000  memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%\n"
    "step:  2  loss: 11.0000  memory: 42.00GiB(52.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%\n"
    "step:  3  loss: 10.0000  memory: 41.00GiB(51.00%)  tps: 3,200  tflops: 320.00  mfu: 32.00%\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) import = nk_log_import_text (log, sizeof log - 1, NK_LOG_FORMAT_TORCHTITAN, &error);
  NkImportPrediction plan = { .seconds = NAN, .tokens_per_s = 25000, .mfu = 0.3, .memory_max_bytes = 40.0 * (1 << 30),
                              .gpus = 8 };
  NkImportComparison c;

  g_assert_no_error (error);
  nk_import_compare (&plan, import, &c);
  g_assert_cmpfloat_with_epsilon (c.measured[NK_IMPORT_Q_TOKENS_PER_S], 3100.0 * 8, 1e-9);
  /* memory: the peak over the steps after the first */
  g_assert_cmpfloat_with_epsilon (c.measured[NK_IMPORT_Q_MEMORY], 42.0 * (1 << 30), 1e-3);

  /* FLOP/s per GPU on torchtitan's own count: its MFU times the peak, beside the
   * median of 300 and 320 TFLOP/s */
  plan.mfu_torchtitan = 0.3;
  plan.peak = 989.5e12;
  nk_import_compare (&plan, import, &c);
  g_assert_cmpfloat_with_epsilon (c.predicted[NK_IMPORT_Q_FLOPS], 0.3 * 989.5e12, 1);
  g_assert_cmpfloat_with_epsilon (c.ratio[NK_IMPORT_Q_FLOPS], 310e12 / (0.3 * 989.5e12), 1e-12);
  g_assert_cmpstr (c.mfu_count, ==, "torchtitan");
}


/* DeepSpeed counts sequences per second: with the plan's sequence length they
 * become tokens per second. */
static void
test_compare_deepspeed_samples (void)
{
  static const char log[] =
    "epoch=0/micro_step=1/global_step=1, RunningAvgSamplesPerSec=10.0, CurrSamplesPerSec=10.0, MemAllocated=10.0GB, MaxMemAllocated=20.0GB\n"
    "epoch=0/micro_step=2/global_step=2, RunningAvgSamplesPerSec=21.0, CurrSamplesPerSec=32.0, MemAllocated=10.0GB, MaxMemAllocated=21.0GB\n"
    "epoch=0/micro_step=3/global_step=3, RunningAvgSamplesPerSec=25.0, CurrSamplesPerSec=34.0, MemAllocated=10.0GB, MaxMemAllocated=20.5GB\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) import = nk_log_import_text (log, sizeof log - 1, NK_LOG_FORMAT_DEEPSPEED, &error);
  NkImportPrediction plan = { .seconds = NAN, .tokens_per_s = 60000, .mfu = NAN, .memory_max_bytes = NAN,
                              .gpus = 8, .seq = 2048 };
  NkImportComparison c;

  g_assert_no_error (error);
  g_assert_cmpuint (import->steps->len, ==, 3);
  nk_import_compare (&plan, import, &c);
  g_assert_cmpfloat (c.measured[NK_IMPORT_Q_TOKENS_PER_S], ==, 33.0 * 2048);
  g_assert_cmpfloat_with_epsilon (c.ratio[NK_IMPORT_Q_TOKENS_PER_S], 33.0 * 2048 / 60000, 1e-12);
}

/* Megatron-LM prints its global batch and the time per iteration, not tokens:
 * global batch × the plan's sequence length over the iteration's time are its
 * tokens per second. The lines are Megatron-LM's format string
 * (megatron/training/training.py, training_log) filled in by hand. Oracle: the
 * median of 32 · 2048 / 1.500 s and 32 · 2048 / 1.520 s (the first iteration
 * left out), in the comparison, its table and the run's summary. */
static void
test_compare_megatron_tokens (void)
{
  static const char log[] =
    " iteration        1/     100 | consumed samples:           32 | elapsed time per iteration (ms): 9100.0 |"
    " throughput per GPU (TFLOP/s/GPU): 20.1 | learning rate: 3.000000E-04 | global batch size:    32 |"
    " lm loss: 1.082000E+01 | loss scale: 1.0 | grad norm: 9.876 | number of skipped iterations:   0 |"
    " number of nan iterations:   0 |\n"
    " iteration        2/     100 | consumed samples:           64 | elapsed time per iteration (ms): 1500.0 |"
    " throughput per GPU (TFLOP/s/GPU): 160.4 | learning rate: 3.000000E-04 | global batch size:    32 |"
    " lm loss: 1.051000E+01 | loss scale: 1.0 | grad norm: 5.432 | number of skipped iterations:   0 |"
    " number of nan iterations:   0 |\n"
    " iteration        3/     100 | consumed samples:           96 | elapsed time per iteration (ms): 1520.0 |"
    " throughput per GPU (TFLOP/s/GPU): 158.3 | learning rate: 3.000000E-04 | global batch size:    32 |"
    " lm loss: 1.020000E+01 | loss scale: 1.0 | grad norm: 4.321 | number of skipped iterations:   0 |"
    " number of nan iterations:   0 |\n";
  const double want = (32.0 * 2048 / 1.5 + 32.0 * 2048 / 1.52) / 2;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) import = nk_log_import_text (log, sizeof log - 1, NK_LOG_FORMAT_AUTO, &error);
  NkImportPrediction plan = { .seconds = 1.4, .tokens_per_s = 50000, .mfu = NAN, .memory_max_bytes = NAN,
                              .gpus = 8, .seq = 2048 };
  NkImportComparison c;
  NkRunSummary summary;
  NapkinPlanComparison *table;
  g_autofree char *cell = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (import->format, ==, NK_LOG_FORMAT_MEGATRON);
  g_assert_cmpuint (import->steps->len, ==, 3);
  nk_import_compare (&plan, import, &c);
  g_assert_cmpfloat_with_epsilon (c.measured[NK_IMPORT_Q_TOKENS_PER_S], want, 1e-9);
  g_assert_cmpfloat_with_epsilon (c.ratio[NK_IMPORT_Q_TOKENS_PER_S], want / 50000, 1e-12);
  g_assert_cmpfloat_with_epsilon (c.measured[NK_IMPORT_Q_SECONDS], 1.51, 1e-12);

  table = NAPKIN_PLAN_COMPARISON (g_object_ref_sink (napkin_plan_comparison_new ()));
  napkin_plan_comparison_set (table, &c);
  cell = g_strdup_printf ("%.2f×", want / 50000);
  g_assert_cmpstr (napkin_plan_comparison_get_cell (table, NK_IMPORT_Q_TOKENS_PER_S, 3), ==, cell);
  g_assert_finalize_object (table);

  nk_run_summary_from_import (import, &plan, &summary);
  g_assert_cmpfloat_with_epsilon (summary.value[NK_RUN_SUMMARY_TOKENS_PER_S], want, 1e-9);
  /* tokens seen: a step's 32 · 2048 tokens times the last step's number */
  g_assert_cmpfloat_with_epsilon (summary.value[NK_RUN_SUMMARY_TOKENS], 3.0 * 32 * 2048, 1e-6);
}

/* Where the plan says a run should be: tokens per second × time, and back. */
static void
test_time_to_tokens (void)
{
  NkImportPrediction plan = { .tokens_per_s = 262144, .target_tokens = 524288000 };

  g_assert_cmpfloat (nk_import_prediction_tokens_after (&plan, 3600), ==, 262144.0 * 3600);
  g_assert_cmpfloat (nk_import_prediction_tokens_after (&plan, 0), ==, 0);
  g_assert_cmpfloat (nk_import_prediction_seconds_for_tokens (&plan, 524288), ==, 2.0);
  g_assert_cmpfloat (nk_import_prediction_get_target_seconds (&plan), ==, 2000);
  /* no time before the run, no count below none */
  g_assert_true (isnan (nk_import_prediction_tokens_after (&plan, -1)));
  g_assert_true (isnan (nk_import_prediction_seconds_for_tokens (&plan, -1)));
  g_assert_true (isnan (nk_import_prediction_seconds_for_tokens (&plan, NAN)));
  /* a plan without a target (0 or NAN) has no time to it */
  plan.target_tokens = 0;
  g_assert_true (isnan (nk_import_prediction_get_target_seconds (&plan)));
  plan.target_tokens = NAN;
  g_assert_true (isnan (nk_import_prediction_get_target_seconds (&plan)));
  /* a plan without a throughput places nothing */
  plan.target_tokens = 1e9;
  plan.tokens_per_s = 0;
  g_assert_true (isnan (nk_import_prediction_tokens_after (&plan, 10)));
  g_assert_true (isnan (nk_import_prediction_get_target_seconds (&plan)));
  plan.tokens_per_s = NAN;
  g_assert_true (isnan (nk_import_prediction_seconds_for_tokens (&plan, 10)));
}

/* The planner's own JSON: 1e9 tokens in steps of 512 × 1024 = 524,288 are
 * 1,908 steps, 1,000,341,504 tokens; the time to them is the steps at the
 * plan's step time. A plan without --tokens has no target. */
static void
test_time_to_tokens_planner (void)
{
  const char *const args[] = {
    "--gpu", "h100-sxm", "--gpus", "8", "--mfu", "0.4", "--layers", "12", "--d-model", "768",
    "--heads", "12", "--seq", "1024", "--global-batch", "512", "--micro-batch", "8",
    "--tokens", "1e9", "--json", NULL,
  };
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  NkImportPrediction plan;
  JsonObject *root;
  double step_time;

  g_assert_true (nk_test_run_cli (&run, "plan", args, NULL, 0));
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, run.out, (gssize) run.out_len, &error));
  g_assert_no_error (error);
  g_assert_true (nk_import_plan_read (json_parser_get_root (parser), &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (plan.target_tokens, ==, 1908.0 * 524288);
  root = json_node_get_object (json_parser_get_root (parser));
  step_time = json_object_get_double_member (json_object_get_object_member (root, "time_per_step"), "total");
  g_assert_cmpfloat_with_epsilon (nk_import_prediction_get_target_seconds (&plan), 1908 * step_time,
                                  1e-9 * 1908 * step_time);
  /* a step's tokens take a step's time */
  g_assert_cmpfloat_with_epsilon (nk_import_prediction_seconds_for_tokens (&plan, 524288), step_time, 1e-9 * step_time);

  /* the same plan missing its steps has no target */
  json_object_remove_member (json_object_get_object_member (root, "layout"), "steps");
  g_assert_true (nk_import_plan_read (json_parser_get_root (parser), &plan, &error));
  g_assert_true (isnan (plan.target_tokens));
  g_assert_true (isnan (nk_import_prediction_get_target_seconds (&plan)));
}

/* The Plan and Measurement card fits a 360 px phone inside the page's 18 px
 * margins and the card's own 14 px padding, with the widest figures it shows
 * (a Megatron-LM log's FLOP/s per GPU); so does the time-to-tokens plot. */
static void
test_phone_width (void)
{
  NkImportComparison c = {
    .predicted = { 1.2410286, 422462.46, 0.5157, 34248062976.0, 510.3e12 },
    .measured = { 1.40495, 422462.46, 0.4555, 35860000000.0, 450.8e12 },
    .ratio = { 1.13, 1.0, 0.88, 1.05, 0.88 },
    .largest = NK_IMPORT_Q_FLOPS,
    .mfu_count = "model",
  };
  NapkinPlanComparison *table = NAPKIN_PLAN_COMPARISON (g_object_ref_sink (napkin_plan_comparison_new ()));
  GtkWidget *pace = g_object_ref_sink (napkin_pace_plot_new ());
  int min = 0;

  napkin_plan_comparison_set (table, &c);
  gtk_widget_measure (GTK_WIDGET (table), GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_test_message ("the table's least width: %d px", min);
  g_assert_cmpint (min, <=, 360 - 2 * 18 - 2 * 14);
  gtk_widget_measure (pace, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_assert_cmpint (min, <=, 360 - 2 * 18 - 2 * 14);
  g_assert_finalize_object (table);
  g_assert_finalize_object (pace);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/plan-comparison/nanogpt", test_compare_nanogpt);
  g_test_add_func ("/ui/plan-comparison/torchtitan-per-gpu", test_compare_torchtitan_per_gpu);
  g_test_add_func ("/ui/plan-comparison/deepspeed-samples", test_compare_deepspeed_samples);
  g_test_add_func ("/ui/plan-comparison/megatron-tokens", test_compare_megatron_tokens);
  g_test_add_func ("/ui/plan-comparison/time-to-tokens", test_time_to_tokens);
  g_test_add_func ("/ui/plan-comparison/time-to-tokens-planner", test_time_to_tokens_planner);
  g_test_add_func ("/ui/plan-comparison/phone-width", test_phone_width);
  return g_test_run ();
}
