/* test-plan-report.c: the planner's text as pure functions of hand-filled structs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: hand-written texts (the summary rows as the lecture writes them,
 * padded by hand), the lecture's answers (seed 001: 6.3e24 FLOPs, 4.377e22
 * FLOPs/day, 143.9 days; 8 × 80e9 B / 16 B = 4.0e10 parameters) and closed forms
 * of a layout (DP = GPUs / (TP · PP), micro-batches = global / (micro · DP)).
 * No NkPlan object is involved except where a test says it compares the two.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-plan-format.h"
#include "nk-plan-report.h"
#include "nk-plan.h"

/* A result nobody computed: every value unknown, nothing to report. */
static void
result_init_empty (NkPlanResult *r)
{
  memset (r, 0, sizeof *r);
  for (guint i = 0; i < NK_PLAN_N_VALUES; i++)
    r->values[i] = NAN;
  r->valid = TRUE;
  r->act_source = -1;
  r->act_bytes = 4;
  r->deadline_nodes = NAN;
  r->deadline_memory_per_gpu = NAN;
  r->fewest_gpus_that_fit = NAN;
}

/* The lecture's first question with its own rounded numbers, filled by hand. */
static void
result_fill_lecture (NkPlanResult *r)
{
  result_init_empty (r);
  r->mfu = 0.5;
  r->values[NK_PLAN_V_TOTAL_FLOPS] = 6.3e24;
  r->values[NK_PLAN_V_PEAK] = 989.5e12;
  r->values[NK_PLAN_V_FLOPS_PER_DAY] = 4.377e22;
  r->values[NK_PLAN_V_DAYS] = 143.9;
  r->values[NK_PLAN_V_GPU_HOURS] = 3.537e6;
  r->values[NK_PLAN_V_BYTES_PER_PARAM] = 16;
  r->values[NK_PLAN_V_PARAM_BYTES] = 4;
  r->values[NK_PLAN_V_GRAD_BYTES] = 4;
  r->values[NK_PLAN_V_OPT_BYTES] = 8;
  r->has[NK_PLAN_V_TOTAL_FLOPS] = TRUE;
  r->has[NK_PLAN_V_FLOPS_PER_DAY] = TRUE;
  r->has[NK_PLAN_V_DAYS] = TRUE;
  r->has[NK_PLAN_V_GPU_HOURS] = TRUE;
}

/* The leaf's numbers, each written out by hand. */
static void
test_format_numbers (void)
{
  static const struct { double v; const char *text; } numbers[] = {
    { 7e10, "7.0e10" }, { 9.895e14, "9.895e14" }, { 6.3e24, "6.3e24" }, { 1024, "1024" },
    { 86400, "86400" }, { 0.5, "0.5" }, { 123456.7, "123457" }, { 0.0054829, "0.005483" },
    { -7e10, "-7.0e10" }, { 1.5e-5, "1.5e-5" }, { 4.3772e22, "4.377e22" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      g_autofree char *text = nk_plan_format_number (numbers[i].v);

      g_assert_cmpstr (text, ==, numbers[i].text);
    }
  {
    g_autofree char *nan = nk_plan_format_number (NAN);
    g_autofree char *formula = nk_plan_format_formula ("%N × %s = %N (%N)", 6.0, "N", 1.5e13, NAN);
    g_autofree char *days = nk_plan_format_days_number (143.87);
    g_autofree char *small = nk_plan_format_days_number (0.0054829);
    g_autofree char *huge = nk_plan_format_days_number (1.755e22);
    g_autofree char *days_text = nk_plan_format_days (143.87);
    g_autofree char *many_days = nk_plan_format_days (2e6);
    g_autofree char *bytes = nk_plan_format_bytes (640e9);
    g_autofree char *few_bytes = nk_plan_format_bytes (512);
    g_autofree char *unit = nk_plan_format_with_unit (6.3e24, "FLOPs");
    g_autofree char *no_unit = nk_plan_format_with_unit (INFINITY, "FLOPs");
    g_autofree char *no_seconds = nk_plan_format_seconds (NAN);

    g_assert_cmpstr (nan, ==, "—");
    g_assert_cmpstr (formula, ==, "6 × N = 1.5e13 (—)");
    g_assert_cmpstr (days, ==, "143.9");
    g_assert_cmpstr (small, ==, "0.005483");
    g_assert_cmpstr (huge, ==, "1.755e22");
    g_assert_cmpstr (days_text, ==, "143.9 days");
    g_assert_cmpstr (many_days, ==, "2.0e6 days");
    /* 640e9 / 2^30 = 596.05 GiB */
    g_assert_cmpstr (bytes, ==, "596 GiB (6.4e11 B)");
    g_assert_cmpstr (few_bytes, ==, "512 B");
    g_assert_cmpstr (unit, ==, "6.3e24 FLOPs");
    g_assert_cmpstr (no_unit, ==, "—");
    g_assert_cmpstr (no_seconds, ==, "—");
  }
}

/* A row pads by characters, not bytes ("×" is two bytes), and ends without
 * trailing spaces. */
static void
test_format_row (void)
{
  g_autoptr(GString) s = g_string_new (NULL);

  nk_plan_format_row (s, "a × b", "—", NULL);
  nk_plan_format_row (s, "total FLOPs", "6.3e24 FLOPs", "6 × 7.0e10 = x");
  g_assert_cmpstr (s->str, ==,
                   "  a × b               —\n"
                   "  total FLOPs         6.3e24 FLOPs            6 × 7.0e10 = x\n");
}

/* The formulas of a result filled by hand, not computed: the report only writes
 * what the struct says. */
static void
test_formulas_hand_filled (void)
{
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };

  nk_plan_inputs_init (&in);
  result_fill_lecture (&r);
  nk_plan_report_fill (&report, &in, &r, NULL);

  g_assert_cmpstr (report.formulas[NK_PLAN_V_TOTAL_FLOPS], ==,
                   "6 × 7.0e10 params × 1.5e13 tokens = 6.3e24 FLOPs");
  g_assert_cmpstr (report.formulas[NK_PLAN_V_FLOPS_PER_DAY], ==,
                   "9.895e14 FLOP/s × 0.5 MFU × 1024 GPUs × 86400 s/day = 4.377e22 FLOPs/day");
  g_assert_cmpstr (report.formulas[NK_PLAN_V_DAYS], ==, "6.3e24 FLOPs / 4.377e22 FLOPs/day = 143.9 days");
  g_assert_cmpstr (report.formulas[NK_PLAN_V_GPU_HOURS], ==,
                   "143.9 days × 24 h × 1024 GPUs = 3.537e6 GPU-hours");
  g_assert_cmpstr (report.formulas[NK_PLAN_V_BYTES_PER_PARAM], ==,
                   "4 (fp32 params) + 4 (fp32 grads) + 8 (adamw state, fp32) = 16 bytes per parameter");
  g_assert_cmpstr (report.bytes_text, ==, "4 + 4 + 8 = 16");
  /* not in the table's row: the id as typed */
  g_assert_cmpstr (report.gpu_name, ==, "h100-sxm");
  /* not computed, no formula */
  g_assert_null (report.formulas[NK_PLAN_V_PEAK]);
  g_assert_null (report.formulas[NK_PLAN_V_MEM_PARAMS]);
  g_assert_null (report.formulas[NK_PLAN_V_LAYOUT_DP]);
  g_assert_null (report.messages[0]);

  nk_plan_report_clear (&report);
  g_assert_null (report.formulas[NK_PLAN_V_TOTAL_FLOPS]);
  g_assert_null (report.bytes_text);
  g_assert_null (report.gpu_name);
}

/* The usable-memory formula of a hand-made case writes the reserve as a percent
 * sign, not printf's "%%" escape: 80 GB reported, the 512 MiB CUDA context
 * (2^29 = 536870912 B), the default 5 % reserve; the result's 7.6e10 B is only
 * printed. Also the formatter alone: "%%" is one "%", as printf reads it. */
static void
test_usable_memory_percent (void)
{
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };
  g_autofree char *percent = nk_plan_format_formula ("%N %% of %s, 100%%", 5.0, "HBM");

  nk_plan_inputs_init (&in);
  g_assert_cmpint (in.layout[NK_PLAN_L_MEMORY_RESERVE], ==, 5);
  result_init_empty (&r);
  r.values[NK_PLAN_V_REPORTED] = 80e9;
  r.values[NK_PLAN_V_USABLE] = 7.6e10;
  r.has[NK_PLAN_V_REPORTED] = r.has[NK_PLAN_V_USABLE] = TRUE;
  nk_plan_report_fill (&report, &in, &r, NULL);

  g_assert_nonnull (strstr (report.formulas[NK_PLAN_V_USABLE], "5 % reserve"));
  g_assert_null (strstr (report.formulas[NK_PLAN_V_USABLE], "%%"));
  g_assert_cmpstr (report.formulas[NK_PLAN_V_USABLE], ==,
                   "(8.0e10 B reported − 5.369e8 B CUDA context) × (1 − 5 % reserve) = 7.6e10 B");
  nk_plan_report_clear (&report);
  g_assert_cmpstr (percent, ==, "5 % of HBM, 100%");
}

/* The summary of the hand-filled result, written out row by row. */
static void
test_summary_hand_filled (void)
{
  static const char expected[] =
    "Compute (dense bf16, MFU 0.5, 1024 × h100-sxm)\n"
    "  total FLOPs         6.3e24 FLOPs            6 × 7.0e10 params × 1.5e13 tokens = 6.3e24 FLOPs\n"
    "  peak per GPU        989.5 TFLOP/s\n"
    "  FLOPs per day       4.377e22 FLOPs/day      9.895e14 FLOP/s × 0.5 MFU × 1024 GPUs × 86400 s/day = 4.377e22 FLOPs/day\n"
    "  time                143.9 days              6.3e24 FLOPs / 4.377e22 FLOPs/day = 143.9 days\n"
    "  GPU-hours           3.537e6 GPU-h           143.9 days × 24 h × 1024 GPUs = 3.537e6 GPU-hours\n"
    "\n"
    "Memory (adamw, fp32 precision, ZeRO-0: everything replicated on every GPU)\n"
    "  bytes/param         4 + 4 + 8 = 16          4 (fp32 params) + 4 (fp32 grads) + 8 (adamw state, fp32) = 16 bytes per parameter\n"
    "  params              —\n"
    "  grads               —\n"
    "  optimizer state     —\n"
    "  activations         —\n"
    "  total               —\n"
    "  per GPU             —\n"
    "  HBM per GPU         —\n"
    "  fits                —\n";
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };
  g_autofree char *summary = NULL;

  nk_plan_inputs_init (&in);
  result_fill_lecture (&r);
  nk_plan_report_fill (&report, &in, &r, NULL);
  summary = nk_plan_report_format_summary (&in, &r, &report, NK_PLAN_JSON_NONE);
  g_assert_cmpstr (summary, ==, expected);
  nk_plan_report_clear (&report);
}

/* CLI.md's JSON of the hand-filled result: the numbers as given, the assumptions
 * as the inputs say, no cluster members without a cluster result. */
static void
test_json_hand_filled (void)
{
  NkPlanInputs in;
  NkPlanResult r;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  JsonObject *o, *memory, *assumptions;

  nk_plan_inputs_init (&in);
  in.optimizer = NK_OPTIMIZER_SGD;
  in.zero_stage = 2;
  result_fill_lecture (&r);
  r.fits = TRUE;
  nk_plan_report_build_json (&in, &r, NK_PLAN_JSON_NONE, builder);
  root = json_builder_get_root (builder);
  o = json_node_get_object (root);

  g_assert_cmpfloat (json_object_get_double_member (o, "total_flops"), ==, 6.3e24);
  g_assert_cmpfloat (json_object_get_double_member (o, "days"), ==, 143.9);
  g_assert_false (json_object_has_member (o, "cost"));
  g_assert_false (json_object_has_member (o, "layout"));
  g_assert_false (json_object_has_member (o, "sizing"));
  memory = json_object_get_object_member (o, "memory");
  g_assert_cmpstr (json_object_get_string_member (memory, "params"), ==, "nan");
  g_assert_true (json_object_get_boolean_member (memory, "fits"));
  g_assert_cmpint (json_object_get_int_member (memory, "zero_stage"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (memory, "bytes_per_param"), ==, 16);
  assumptions = json_object_get_object_member (o, "assumptions");
  g_assert_cmpstr (json_object_get_string_member (assumptions, "gpu"), ==, "h100-sxm");
  g_assert_cmpstr (json_object_get_string_member (assumptions, "optimizer"), ==, "sgd");
  g_assert_cmpstr (json_object_get_string_member (assumptions, "activation_model"), ==, "linear");
  /* every plan says whose FLOPs over which peak its MFU means */
  g_assert_cmpstr (json_object_get_string_member (o, "precision"), ==, "fp32");
  g_assert_cmpstr (json_object_get_string_member (o, "mfu_convention"), ==,
                   "MFU: 6 × params × tokens (attention and recompute not counted) over the dense "
                   "bf16 peak of each NVIDIA H100 SXM5 80 GB (9.895e14 FLOP/s)");
}

/* Problems become sentences and a GError from the structs alone; a missing value
 * without the caller's reason falls back to the input's rule. */
static void
test_problems_hand_filled (void)
{
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };
  char *invalid[NK_PLAN_N_INPUTS] = { NULL };
  g_autoptr(GError) error = NULL;

  nk_plan_inputs_init (&in);
  result_init_empty (&r);
  nk_plan_result_add_problem (&r, NK_PLAN_PROBLEM_RANGE, "mfu", NK_PLAN_IN_MFU);
  nk_plan_result_add_problem (&r, NK_PLAN_PROBLEM_NO_VALUE, "tokens", NK_PLAN_IN_TOKENS);
  g_assert_false (r.valid);
  nk_plan_report_fill (&report, &in, &r, NULL);
  g_assert_cmpstr (report.messages[0], ==, "MFU must be greater than 0 and at most 1");
  g_assert_cmpstr (report.messages[1], ==, "Tokens must be a number, at least 1");
  g_assert_false (nk_plan_report_check (&r, &report, &error));
  g_assert_error (error, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==, "MFU must be greater than 0 and at most 1");
  nk_plan_report_clear (&report);

  invalid[NK_PLAN_IN_TOKENS] = (char *) "“abc” is not a number";
  nk_plan_report_fill (&report, &in, &r, invalid);
  g_assert_cmpstr (report.messages[1], ==, "“abc” is not a number");
  nk_plan_report_clear (&report);

  /* the table's own sentence for an id it lacks */
  in.gpu = "h900";
  result_init_empty (&r);
  nk_plan_result_add_problem (&r, NK_PLAN_PROBLEM_UNKNOWN_GPU, "gpu", 0);
  nk_plan_report_fill (&report, &in, &r, NULL);
  g_clear_error (&error);
  g_assert_false (nk_plan_report_check (&r, &report, &error));
  g_assert_error (error, NK_PLAN_ERROR, NK_PLAN_ERROR_UNKNOWN_GPU);
  g_assert_nonnull (strstr (error->message, "“h900” is not a GPU in the table"));
  nk_plan_report_clear (&report);

  /* a result that names no table row (filled by hand) still gets a sentence */
  in.gpu = "h100-sxm";
  result_init_empty (&r);
  nk_plan_result_add_problem (&r, NK_PLAN_PROBLEM_NO_MEMORY, "gpu", 0);
  nk_plan_result_add_problem (&r, NK_PLAN_PROBLEM_UNKNOWN_GPU, "gpus", 0);
  nk_plan_report_fill (&report, &in, &r, NULL);
  g_assert_cmpstr (report.messages[0], ==, "The table gives no memory size for h100-sxm");
  g_assert_cmpstr (report.messages[1], ==, "h100-sxm");
  nk_plan_report_clear (&report);
}

/* The defaults are the lecture's first question (seed 001), and through the pure
 * path alone (no object) they give its 143.9 days, in the formula and in the
 * summary's time row. */
static void
test_lecture_pure_path (void)
{
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };
  g_autofree char *summary = NULL;

  nk_plan_inputs_init (&in);
  g_assert_cmpfloat (in.in[NK_PLAN_IN_PARAMS], ==, 70e9);
  g_assert_cmpfloat (in.in[NK_PLAN_IN_TOKENS], ==, 15e12);
  g_assert_cmpfloat (in.in[NK_PLAN_IN_GPUS], ==, 1024);
  g_assert_cmpfloat (in.in[NK_PLAN_IN_MFU], ==, 0.5);
  g_assert_cmpstr (in.gpu, ==, "h100-sxm");
  g_assert_cmpint (in.dtype, ==, NK_PEAK_BF16);
  g_assert_false (in.sparse);

  nk_plan_compute (&in, &r);
  g_assert_true (r.valid);
  g_assert_cmpfloat_with_epsilon (r.values[NK_PLAN_V_DAYS], 143.9, 0.05);
  nk_plan_report_fill (&report, &in, &r, NULL);
  g_assert_cmpstr (report.formulas[NK_PLAN_V_DAYS], ==, "6.3e24 FLOPs / 4.377e22 FLOPs/day = 143.9 days");
  g_assert_cmpstr (report.gpu_name, ==, "NVIDIA H100 SXM5 80 GB");
  summary = nk_plan_report_format_summary (&in, &r, &report, NK_PLAN_JSON_NONE);
  g_assert_nonnull (strstr (summary, "\n  time                143.9 days              6.3e24 FLOPs"));
  nk_plan_report_clear (&report);
}

/* Question 2 (seed 001): 8 × 80e9 B / 16 B = 4.0e10 parameters fully sharded,
 * 80e9 / 16 = 5.0e9 replicated; a GPU count that is no whole number has no answer. */
static void
test_largest_at_stage (void)
{
  NkPlanInputs in;
  NkPlanResult r;

  nk_plan_inputs_init (&in);
  in.in[NK_PLAN_IN_GPUS] = 8;
  nk_plan_compute (&in, &r);
  g_assert_cmpfloat (nk_plan_largest_params_at_stage (&in, &r, 3), ==, 4e10);
  g_assert_cmpfloat (nk_plan_largest_params_at_stage (&in, &r, 0), ==, 5e9);
  in.in[NK_PLAN_IN_GPUS] = 7.5;
  g_assert_true (isnan (nk_plan_largest_params_at_stage (&in, &r, 3)));
}

/* A new NkPlan holds exactly nk_plan_inputs_init()'s inputs: its text, from the
 * object's methods, is the pure report's, byte for byte. */
static void
test_object_wraps_report (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };
  g_autofree char *pure = NULL, *object = NULL;
  NkPlanJsonFlags flags = NK_PLAN_JSON_LARGEST | NK_PLAN_JSON_DEADLINE | NK_PLAN_JSON_COST;

  nk_plan_set_deadline_days (plan, 30);
  nk_plan_set_price (plan, 2);
  nk_plan_inputs_init (&in);
  in.in[NK_PLAN_IN_DEADLINE] = 30;
  in.in[NK_PLAN_IN_PRICE] = 2;
  nk_plan_compute (&in, &r);
  nk_plan_report_fill (&report, &in, &r, NULL);
  pure = nk_plan_report_format_summary (&in, &r, &report, flags);
  object = nk_plan_format_summary (plan, flags);
  g_assert_cmpstr (pure, ==, object);
  for (guint i = 0; i < NK_PLAN_N_FORMULAS; i++)
    g_assert_cmpstr (report.formulas[i], ==, nk_plan_get_formula (plan, nk_plan_value_name (i)));
  nk_plan_report_clear (&report);
}

/* Llama-2-70B on 4096 GPUs with TP 8 and PP 8 (the README's example), from
 * structs: DP = 4096 / 64 = 64, 1024 / (1 × 64) = 16 micro-batches, 512 nodes
 * of 8. Without a shape there is no launch. */
static void
test_launch_spec_pure (void)
{
  NkPlanInputs in;
  NkPlanResult r;
  NkPlanReport report = { 0 };
  NkLaunchSpec spec;
  g_autoptr(GError) error = NULL;

  nk_plan_inputs_init (&in);
  nk_plan_compute (&in, &r);
  nk_plan_report_fill (&report, &in, &r, NULL);
  g_assert_false (nk_plan_report_launch_spec (&in, &r, &report, &spec, &error));
  g_assert_error (error, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT);
  nk_plan_report_clear (&report);
  g_clear_error (&error);

  in.in[NK_PLAN_IN_GPUS] = 4096;
  in.in[NK_PLAN_IN_TOKENS] = 2e12;
  in.in[NK_PLAN_IN_LAYERS] = 80;
  in.in[NK_PLAN_IN_D_MODEL] = 8192;
  in.in[NK_PLAN_IN_HEADS] = 64;
  in.in[NK_PLAN_IN_D_FF] = 28672;
  in.in[NK_PLAN_IN_VOCAB] = 32000;
  in.in[NK_PLAN_IN_SEQ] = 4096;
  in.layout[NK_PLAN_L_KV_HEADS] = 8;
  in.layout[NK_PLAN_L_FFN] = NK_FFN_SWIGLU;
  in.layout[NK_PLAN_L_TIED_EMBEDDINGS] = 0;
  in.layout[NK_PLAN_L_GLOBAL_BATCH] = 1024;
  in.layout[NK_PLAN_L_MICRO_BATCH] = 1;
  in.layout[NK_PLAN_L_TP] = 8;
  in.layout[NK_PLAN_L_PP] = 8;
  in.precision = NK_PRECISION_BF16_MIXED;
  in.zero_stage = 1;
  nk_plan_compute (&in, &r);
  g_assert_true (r.valid);
  nk_plan_report_fill (&report, &in, &r, NULL);
  g_assert_true (nk_plan_report_launch_spec (&in, &r, &report, &spec, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (spec.tp, ==, 8);
  g_assert_cmpuint (spec.pp, ==, 8);
  g_assert_cmpuint (spec.dp, ==, 64);
  g_assert_cmpuint (spec.grad_accum, ==, 16);
  g_assert_cmpuint (spec.global_batch, ==, 1024);
  g_assert_cmpuint (spec.nodes, ==, 512);
  g_assert_cmpuint (spec.zero_stage, ==, 1);
  g_assert_cmpstr (report.formulas[NK_PLAN_V_LAYOUT_DP], ==, "4096 GPUs / (TP 8 × PP 8 × CP 1) = DP 64");
  nk_plan_report_clear (&report);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/plan-report/format/numbers", test_format_numbers);
  g_test_add_func ("/engine/plan-report/format/row", test_format_row);
  g_test_add_func ("/engine/plan-report/hand-filled/formulas", test_formulas_hand_filled);
  g_test_add_func ("/engine/plan-report/hand-filled/summary", test_summary_hand_filled);
  g_test_add_func ("/engine/plan-report/hand-filled/json", test_json_hand_filled);
  g_test_add_func ("/engine/plan-report/hand-filled/usable-memory-percent", test_usable_memory_percent);
  g_test_add_func ("/engine/plan-report/hand-filled/problems", test_problems_hand_filled);
  g_test_add_func ("/engine/plan-report/pure/lecture", test_lecture_pure_path);
  g_test_add_func ("/engine/plan-report/pure/largest-at-stage", test_largest_at_stage);
  g_test_add_func ("/engine/plan-report/pure/launch-spec", test_launch_spec_pure);
  g_test_add_func ("/engine/plan-report/object-wraps-report", test_object_wraps_report);

  return g_test_run ();
}
