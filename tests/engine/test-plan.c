/* test-plan.c: the budget planner against the lecture's answers and hand-worked cases
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-plan-compute.h"
#include "nk-plan.h"

#define OUT(plan, name) nk_plan_get_output ((plan), (name))

/* Question 1 of the lecture (seed 001): 6 × 70e9 × 15e12 = 6.3e24 FLOPs at
 * 4.377e22 FLOPs/day (989.5e12 dense × 0.5 × 1024 × 86400) ≈ 143.9 days. */
static void
test_lecture_days (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "params", 70e9, "tokens", 15e12, "gpu", "h100-sxm", "gpus", 1024.0,
                "mfu", 0.5, "dtype", NK_PEAK_BF16, "sparse", FALSE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_null (nk_plan_get_error (plan));
  g_assert_cmpfloat_with_epsilon (OUT (plan, "total-flops") / 6.3e24, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (OUT (plan, "flops-per-day") / 4.377e22, 1.0, 1e-3);
  g_assert_cmpfloat_with_epsilon (OUT (plan, "days"), 143.9, 0.05);
  g_assert_cmpfloat_with_epsilon (OUT (plan, "gpu-hours"), 143.9266 * 24 * 1024, 5.0);
  g_assert_cmpfloat (OUT (plan, "peak-flops-per-gpu"), ==, 989.5e12);

  g_assert_cmpstr (nk_plan_get_formula (plan, "total-flops"), ==,
                   "6 × 7.0e10 params × 1.5e13 tokens = 6.3e24 FLOPs");
  g_assert_cmpstr (nk_plan_get_formula (plan, "days"), ==,
                   "6.3e24 FLOPs / 4.377e22 FLOPs/day = 143.9 days");
  g_assert_nonnull (strstr (nk_plan_get_formula (plan, "peak-flops-per-gpu"), "sparsity"));

  /* The sparse figure halves the time: the confusion the planner warns about. */
  nk_plan_set_sparse (plan, TRUE);
  g_assert_cmpfloat (OUT (plan, "peak-flops-per-gpu"), ==, 1979e12);
  g_assert_cmpfloat_with_epsilon (OUT (plan, "days"), 143.9266 / 2, 0.01);

  nk_plan_set_price (plan, 2.0);
  g_assert_cmpfloat_with_epsilon (OUT (plan, "cost"), OUT (plan, "gpu-hours") * 2.0, 1e-6);
}

/* Question 2: 8 × 80e9 bytes / 16 bytes = 4.0e10 fully sharded; replicated, 80e9/16. */
static void
test_lecture_largest (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 8.0, "optimizer", NK_OPTIMIZER_ADAMW,
                "precision", NK_PRECISION_FP32, "zero-stage", 3, NULL);
  g_assert_cmpfloat (OUT (plan, "bytes-per-param"), ==, 16);
  g_assert_cmpfloat (OUT (plan, "largest-params"), ==, 4.0e10);
  g_assert_cmpfloat (nk_plan_largest_params_for_stage (plan, 0), ==, 5.0e9);
  nk_plan_set_zero_stage (plan, 0);
  g_assert_cmpfloat (OUT (plan, "largest-params"), ==, 5.0e9);
  g_assert_cmpfloat (nk_plan_largest_params_for_stage (plan, 3), ==, 4.0e10);
}

static void
test_bytes_per_param (void)
{
  /* Written out by hand from the rules: fp32 = 4 + 4 + S; mixed = 2 + 2 + 4 + S. */
  static const struct {
    NkOptimizer opt; NkPrecision prec; double p, g, o, total; const char *text;
  } cases[] = {
    { NK_OPTIMIZER_SGD, NK_PRECISION_FP32, 4, 4, 0, 8, "4 + 4 + 0 = 8" },
    { NK_OPTIMIZER_MOMENTUM, NK_PRECISION_FP32, 4, 4, 4, 12, "4 + 4 + 4 = 12" },
    { NK_OPTIMIZER_ADAGRAD, NK_PRECISION_FP32, 4, 4, 4, 12, "4 + 4 + 4 = 12" },
    { NK_OPTIMIZER_RMSPROP, NK_PRECISION_FP32, 4, 4, 4, 12, "4 + 4 + 4 = 12" },
    { NK_OPTIMIZER_ADAM, NK_PRECISION_FP32, 4, 4, 8, 16, "4 + 4 + 8 = 16" },
    { NK_OPTIMIZER_ADAMW, NK_PRECISION_FP32, 4, 4, 8, 16, "4 + 4 + 8 = 16" },
    { NK_OPTIMIZER_SGD, NK_PRECISION_BF16_MIXED, 2, 2, 4, 8, "2 + 2 + 4 + 0 = 8" },
    { NK_OPTIMIZER_MOMENTUM, NK_PRECISION_BF16_MIXED, 2, 2, 8, 12, "2 + 2 + 4 + 4 = 12" },
    { NK_OPTIMIZER_ADAGRAD, NK_PRECISION_BF16_MIXED, 2, 2, 8, 12, "2 + 2 + 4 + 4 = 12" },
    { NK_OPTIMIZER_RMSPROP, NK_PRECISION_BF16_MIXED, 2, 2, 8, 12, "2 + 2 + 4 + 4 = 12" },
    { NK_OPTIMIZER_ADAM, NK_PRECISION_BF16_MIXED, 2, 2, 12, 16, "2 + 2 + 4 + 8 = 16" },
    { NK_OPTIMIZER_ADAMW, NK_PRECISION_BF16_MIXED, 2, 2, 12, 16, "2 + 2 + 4 + 8 = 16" },
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  nk_plan_set_params (plan, 1e9);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = NULL;

      g_object_set (plan, "optimizer", cases[i].opt, "precision", cases[i].prec, NULL);
      g_object_get (plan, "bytes-per-param-text", &text, NULL);
      g_assert_cmpstr (text, ==, cases[i].text);
      g_assert_cmpfloat (OUT (plan, "param-bytes"), ==, cases[i].p);
      g_assert_cmpfloat (OUT (plan, "grad-bytes"), ==, cases[i].g);
      g_assert_cmpfloat (OUT (plan, "optimizer-bytes"), ==, cases[i].o);
      g_assert_cmpfloat (OUT (plan, "bytes-per-param"), ==, cases[i].total);
      g_assert_cmpfloat (OUT (plan, "memory-params"), ==, cases[i].p * 1e9);
      g_assert_cmpfloat (OUT (plan, "memory-optimizer"), ==, cases[i].o * 1e9);
      g_assert_cmpfloat (OUT (plan, "memory-total"), ==, cases[i].total * 1e9);
    }
}

static void
test_zero_stages (void)
{
  /* 1e9 parameters on 4 GPUs, bytes per GPU worked by hand. */
  static const struct { NkPrecision prec; int stage; double per_gpu; } cases[] = {
    { NK_PRECISION_FP32, 0, 16e9 },           /* 4 + 4 + 8 */
    { NK_PRECISION_FP32, 1, 10e9 },           /* 4 + 4 + 8/4 */
    { NK_PRECISION_FP32, 2, 7e9 },            /* 4 + 4/4 + 8/4 */
    { NK_PRECISION_FP32, 3, 4e9 },            /* 16/4 */
    { NK_PRECISION_BF16_MIXED, 0, 16e9 },          /* 2 + 2 + 12 */
    { NK_PRECISION_BF16_MIXED, 1, 7e9 },           /* 2 + 2 + 12/4 */
    { NK_PRECISION_BF16_MIXED, 2, 5.5e9 },         /* 2 + 2/4 + 12/4 */
    { NK_PRECISION_BF16_MIXED, 3, 4e9 },           /* 16/4 */
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "params", 1e9, "gpus", 4.0, "gpu", "a100-sxm-40", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_object_set (plan, "precision", cases[i].prec, "zero-stage", cases[i].stage, NULL);
      g_assert_cmpfloat_with_epsilon (OUT (plan, "memory-per-gpu"), cases[i].per_gpu, 1e-3);
      g_assert_cmpfloat (OUT (plan, "hbm-per-gpu"), ==, 40e9);
      g_assert_true (nk_plan_get_fits (plan) == (cases[i].per_gpu <= 40e9));
      g_assert_cmpfloat_with_epsilon (OUT (plan, "memory-params-per-gpu")
                                      + OUT (plan, "memory-grads-per-gpu")
                                      + OUT (plan, "memory-optimizer-per-gpu"),
                                      cases[i].per_gpu, 1e-3);
    }
  /* 16e9 per GPU does not fit a 40 GB card only when... it does; 1e10 params does not. */
  g_object_set (plan, "params", 1e10, "zero-stage", 0, NULL);
  g_assert_false (nk_plan_get_fits (plan));
  g_assert_nonnull (strstr (nk_plan_get_formula (plan, "fits"), "does not fit"));
}

static void
test_activations (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  /* The lecture's deep linear model: B·D·L values, 4 bytes each in fp32. */
  g_object_set (plan, "params", 1e6, "gpus", 1.0, "batch", 16.0, "seq", 1.0,
                "layers", 4.0, "d-model", 1024.0, NULL);
  g_assert_cmpfloat (OUT (plan, "activations-linear"), ==, 16.0 * 1024 * 4 * 4);
  g_assert_cmpfloat (OUT (plan, "memory-activations"), ==, 262144);
  g_assert_cmpfloat (OUT (plan, "memory-total"), ==, 16e6 + 262144);
  nk_plan_set_precision (plan, NK_PRECISION_BF16_MIXED);
  g_assert_cmpfloat (OUT (plan, "memory-activations"), ==, 131072);
  g_assert_true (isnan (OUT (plan, "activations-transformer")));

  /* Korthikanti et al. eq. 1, worked by hand for s 2048, b 8, h 4096, a 32, L 32:
   * sbh = 67108864; 34 + 5·32·2048/4096 = 114; × 32 layers = 244813135872 B;
   * full recomputation: 2·sbh·L = 4294967296 plus one layer, 7650410496. */
  g_object_set (plan, "batch", 8.0, "seq", 2048.0, "layers", 32.0, "d-model", 4096.0,
                "heads", 32.0, "gpus", 8.0, "activation-model", NK_ACTIVATION_MODEL_TRANSFORMER,
                NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (OUT (plan, "activations-transformer"), ==, 244813135872.0);
  g_assert_cmpfloat (OUT (plan, "memory-activations"), ==, 244813135872.0);
  /* 8 sequences on 8 GPUs is a layout (DP 8, one sequence each): per GPU is its
   * GPU's, eq. 1 at b = 1 plus what the cluster model adds to it (issue 21: one
   * memory answer per plan): LayerNorm statistics 16·s·b per layer, the
   * embedding's dropout mask s·b·h, the final norm's input and output 2·2·s·b·h
   * and statistics 8·s·b (no vocabulary: no logits). */
  g_assert_cmpfloat (OUT (plan, "memory-activations-per-gpu"), ==,
                     244813135872.0 / 8 + 32 * 16 * 2048.0 + 2048.0 * 4096 + 4 * 2048.0 * 4096 + 8 * 2048.0);
  g_assert_cmpfloat (OUT (plan, "activations-transformer-checkpointed"), ==,
                     4294967296.0 + 7650410496.0);
  g_object_set (plan, "checkpointing", TRUE, NULL);
  g_assert_cmpfloat (OUT (plan, "memory-activations"), ==, 4294967296.0 + 7650410496.0);
  g_assert_nonnull (strstr (nk_plan_get_formula (plan, "activations-transformer"), "Korthikanti"));

  /* Without heads the transformer estimate cannot be made: the plan says so. */
  g_object_set (plan, "heads", 0.0, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "heads");
  g_assert_true (isnan (OUT (plan, "memory-activations")));
  g_assert_true (isnan (OUT (plan, "memory-per-gpu")));

  /* Activations count only when all four inputs are given. */
  g_object_set (plan, "heads", 32.0, "layers", 0.0, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (OUT (plan, "memory-activations"), ==, 0);
}

/* Seed 002 (the OpenAI table): N = 2·d_model·n_layer·(2·d_attn + d_ff) and
 * C_forward = 2N + 2·n_layer·n_ctx·d_attn. The oracle sums the table's rows. */
static void
test_transformer_sizing (void)
{
  static const struct { double d, L, n_ctx, vocab; } configs[] = {
    { 768, 12, 1024, 50257 },   /* GPT-2 small */
    { 1024, 24, 1024, 50257 },  /* GPT-2 medium */
    { 1280, 36, 1024, 50257 },  /* GPT-2 large */
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  for (guint i = 0; i < G_N_ELEMENTS (configs); i++)
    {
      double d = configs[i].d, L = configs[i].L, n_ctx = configs[i].n_ctx;
      double d_ff = 4 * d;
      double qkv = L * d * 3 * d, proj = L * d * d, ff = 2 * L * d * d_ff;
      double n = qkv + proj + ff;
      double fwd = 2 * qkv + 2 * L * n_ctx * d + 2 * proj + 2 * ff;

      g_object_set (plan, "d-model", d, "layers", L, "seq", n_ctx, "vocab", configs[i].vocab,
                    "d-ff", 0.0, NULL);
      g_assert_cmpfloat (OUT (plan, "sized-params"), ==, n);
      g_assert_cmpfloat (OUT (plan, "sized-forward-flops-per-token"), ==, fwd);
      g_assert_cmpfloat (OUT (plan, "sized-embedding-params"), ==, (configs[i].vocab + n_ctx) * d);
    }
  /* Hand values for GPT-2 small and medium: 12·L·d². */
  g_object_set (plan, "d-model", 768.0, "layers", 12.0, "seq", 1024.0, NULL);
  g_assert_cmpfloat (OUT (plan, "sized-params"), ==, 84934656.0);
  g_assert_cmpfloat (OUT (plan, "sized-forward-flops-per-token"), ==, 188743680.0);
  g_object_set (plan, "d-model", 1024.0, "layers", 24.0, NULL);
  g_assert_cmpfloat (OUT (plan, "sized-params"), ==, 301989888.0);
  g_assert_cmpfloat (OUT (plan, "sized-forward-flops-per-token"), ==, 654311424.0);
  /* An explicit d_ff replaces 4·d_model. */
  g_object_set (plan, "d-ff", 2048.0, NULL);
  g_assert_cmpfloat (OUT (plan, "sized-params"), ==, 2.0 * 1024 * 24 * (2 * 1024 + 2048));
}

/* The inverse answers must agree with the forward plan: the largest model fits
 * and 1% more does not; the fewest GPUs meet the deadline and one fewer do not. */
static void
test_inverse_consistency (void)
{
  static const char *gpus_ids[] = { "h100-sxm", "a100-sxm-40", "rtx-4090", "l40s" };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  for (guint g = 0; g < G_N_ELEMENTS (gpus_ids); g++)
    for (int stage = 0; stage <= 3; stage++)
      for (int opt = NK_OPTIMIZER_SGD; opt <= NK_OPTIMIZER_ADAMW; opt++)
        for (double n_gpus = 1; n_gpus <= 24; n_gpus += 7)
          {
            double largest;

            g_object_set (plan, "gpu", gpus_ids[g], "zero-stage", stage, "optimizer", opt,
                          "gpus", n_gpus, "batch", 4.0, "seq", 512.0, "layers", 8.0,
                          "d-model", 1024.0, "params", 1e6, NULL);
            largest = OUT (plan, "largest-params");
            g_assert_true (largest > 0 && largest == floor (largest));
            nk_plan_set_params (plan, largest);
            g_assert_true (nk_plan_get_fits (plan));
            nk_plan_set_params (plan, largest * 1.01);
            g_assert_false (nk_plan_get_fits (plan));
            nk_plan_set_params (plan, largest + 1);
            g_assert_false (nk_plan_get_fits (plan));
          }

  g_object_set (plan, "params", 70e9, "tokens", 15e12, "gpu", "h100-sxm", "mfu", 0.5,
                "batch", 0.0, NULL);
  for (double deadline = 1; deadline < 400; deadline *= 1.7)
    {
      double n;

      g_object_set (plan, "deadline-days", deadline, NULL);
      n = OUT (plan, "gpus-for-deadline");
      g_assert_true (n >= 1 && n == floor (n));
      nk_plan_set_gpus (plan, n);
      g_assert_cmpfloat (OUT (plan, "days"), <=, deadline);
      if (n > 1)
        {
          nk_plan_set_gpus (plan, n - 1);
          g_assert_cmpfloat (OUT (plan, "days"), >, deadline);
        }
    }
  /* 143.9 days on 1024 GPUs: 144 days need 1024, 143 days need more. */
  g_object_set (plan, "deadline-days", 144.0, NULL);
  g_assert_cmpfloat (OUT (plan, "gpus-for-deadline"), ==, 1024);
  g_object_set (plan, "deadline-days", 143.0, NULL);
  g_assert_cmpfloat (OUT (plan, "gpus-for-deadline"), ==, 1031);
}

typedef struct {
  GHashTable *counts;
} NotifyLog;

static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           NotifyLog  *log)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (log->counts, pspec->name));

  g_hash_table_insert (log->counts, (gpointer) pspec->name, GUINT_TO_POINTER (n + 1));
}

static guint
count (NotifyLog  *log,
       const char *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (log->counts, name));
}

static void
assert_at_most_once (NotifyLog *log)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, log->counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (value) != 1)
      g_error ("notify::%s fired %u times", (const char *) key, GPOINTER_TO_UINT (value));
}

static void
test_notify_once (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  NotifyLog log = { g_hash_table_new (g_str_hash, g_str_equal) };

  g_signal_connect (plan, "notify", G_CALLBACK (on_notify), &log);

  nk_plan_set_params (plan, 80e9);
  assert_at_most_once (&log);
  g_assert_cmpuint (count (&log, "params"), ==, 1);
  g_assert_cmpuint (count (&log, "days"), ==, 1);
  g_assert_cmpuint (count (&log, "total-flops"), ==, 1);
  g_assert_cmpuint (count (&log, "memory-per-gpu"), ==, 1);
  g_assert_cmpuint (count (&log, "revision"), ==, 1);
  g_assert_cmpuint (count (&log, "peak-flops-per-gpu"), ==, 0);
  g_assert_cmpuint (count (&log, "tokens"), ==, 0);

  /* The same value again: nothing at all. */
  g_hash_table_remove_all (log.counts);
  nk_plan_set_params (plan, 80e9);
  g_object_set (plan, "params", 80e9, "gpu", "h100-sxm", NULL);
  g_assert_cmpuint (g_hash_table_size (log.counts), ==, 0);

  /* The optimizer changes memory, not time. */
  nk_plan_set_optimizer (plan, NK_OPTIMIZER_SGD);
  assert_at_most_once (&log);
  g_assert_cmpuint (count (&log, "optimizer"), ==, 1);
  g_assert_cmpuint (count (&log, "memory-optimizer"), ==, 1);
  g_assert_cmpuint (count (&log, "bytes-per-param-text"), ==, 1);
  g_assert_cmpuint (count (&log, "days"), ==, 0);

  /* Going invalid notifies valid/error once and each output that became NaN once. */
  g_hash_table_remove_all (log.counts);
  nk_plan_set_mfu (plan, -1);
  assert_at_most_once (&log);
  g_assert_cmpuint (count (&log, "valid"), ==, 1);
  g_assert_cmpuint (count (&log, "error"), ==, 1);
  g_assert_cmpuint (count (&log, "error-input"), ==, 1);
  g_assert_cmpuint (count (&log, "days"), ==, 1);
  g_assert_cmpuint (count (&log, "total-flops"), ==, 0);

  /* Several properties in one g_object_set: still once each. */
  g_hash_table_remove_all (log.counts);
  g_object_set (plan, "mfu", 0.4, "gpus", 512.0, "tokens", 1e13, NULL);
  assert_at_most_once (&log);
  g_assert_cmpuint (count (&log, "days"), ==, 1);

  g_hash_table_unref (log.counts);
}

static void
assert_no_infinity (NkPlan *plan)
{
  guint n_props;
  g_autofree GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (plan),
                                                                  &n_props);

  for (guint i = 0; i < n_props; i++)
    if (props[i]->value_type == G_TYPE_DOUBLE && !(props[i]->flags & G_PARAM_WRITABLE))
      {
        double v;

        g_object_get (plan, props[i]->name, &v, NULL);
        if (isinf (v))
          g_error ("%s is infinite", props[i]->name);
      }
}

static void
test_bad_inputs (void)
{
  static const struct { const char *prop; double value; } bad_doubles[] = {
    { "params", -1 }, { "params", 0 }, { "params", NAN }, { "params", INFINITY },
    { "tokens", 0 }, { "gpus", 0 }, { "gpus", -1 }, { "gpus", 2.5 }, { "mfu", 0 },
    { "mfu", 1.5 }, { "mfu", NAN }, { "batch", -4 }, { "layers", 1.5 },
    { "price", -1 }, { "deadline-days", -3 }, { "d-model", -INFINITY },
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  for (guint i = 0; i < G_N_ELEMENTS (bad_doubles); i++)
    {
      g_autoptr(GError) error = NULL;
      double good;

      g_object_get (plan, bad_doubles[i].prop, &good, NULL);
      /* GObject refuses NaN in g_object_set() (its validator sees NaN != NaN as
       * a clamp); the C setters take it. */
      if (isnan (bad_doubles[i].value) && strcmp (bad_doubles[i].prop, "params") == 0)
        nk_plan_set_params (plan, NAN);
      else if (isnan (bad_doubles[i].value) && strcmp (bad_doubles[i].prop, "mfu") == 0)
        nk_plan_set_mfu (plan, NAN);
      else
        g_object_set (plan, bad_doubles[i].prop, bad_doubles[i].value, NULL);
      g_assert_false (nk_plan_get_valid (plan));
      g_assert_cmpstr (nk_plan_get_error_input (plan), ==, bad_doubles[i].prop);
      g_assert_nonnull (nk_plan_get_error (plan));
      g_assert_false (nk_plan_check (plan, &error));
      g_assert_error (error, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT);
      assert_no_infinity (plan);
      g_object_set (plan, bad_doubles[i].prop, good, NULL);
      g_assert_true (nk_plan_get_valid (plan));
      g_assert_null (nk_plan_get_error (plan));
    }

  /* Outputs that need the bad input are NaN ("—"), never stale. */
  nk_plan_set_params (plan, -5);
  g_assert_true (isnan (OUT (plan, "days")));
  g_assert_true (isnan (OUT (plan, "total-flops")));
  g_assert_true (isnan (OUT (plan, "memory-total")));
  g_assert_false (nk_plan_get_fits (plan));
  g_assert_true (OUT (plan, "largest-params") > 0);   /* does not need params */
  nk_plan_set_params (plan, 70e9);

  nk_plan_set_gpu (plan, "h900");
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "gpu");
  g_assert_nonnull (strstr (nk_plan_get_error (plan), "h900"));
  g_assert_true (isnan (OUT (plan, "days")));
  nk_plan_set_gpu (plan, "v100");
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "dtype");    /* no bf16 on Volta */
  nk_plan_set_dtype (plan, NK_PEAK_FP16);
  g_assert_true (nk_plan_get_valid (plan));
  nk_plan_set_sparse (plan, TRUE);
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "sparse");
  nk_plan_set_sparse (plan, FALSE);
  nk_plan_set_dtype (plan, NK_PEAK_INT8);
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "dtype");
  g_object_set (plan, "gpu", "h100-sxm", "dtype", NK_PEAK_BF16, NULL);
  g_assert_true (nk_plan_get_valid (plan));

  /* A result beyond a double is refused, not shown as inf. */
  {
    g_autoptr(GError) error = NULL;

    g_object_set (plan, "params", 1e200, "tokens", 1e200, NULL);
    g_assert_false (nk_plan_get_valid (plan));
    g_assert_false (nk_plan_check (plan, &error));
    g_assert_error (error, NK_PLAN_ERROR, NK_PLAN_ERROR_OVERFLOW);
    g_assert_true (isnan (OUT (plan, "total-flops")));
    assert_no_infinity (plan);
  }
  {
    g_autoptr(JsonBuilder) builder = json_builder_new ();
    g_autoptr(JsonGenerator) generator = json_generator_new ();
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *text = NULL;
    g_autofree char *summary = NULL;
    JsonObject *object;

    nk_plan_build_json (plan, builder, NK_PLAN_JSON_COST);
    root = json_builder_get_root (builder);
    object = json_node_get_object (root);
    g_assert_cmpstr (json_object_get_string_member (object, "days"), ==, "nan");
    json_generator_set_root (generator, root);
    text = json_generator_to_data (generator, NULL);
    g_assert_null (strstr (text, "inf"));
    summary = nk_plan_format_summary (plan, NK_PLAN_JSON_COST | NK_PLAN_JSON_LARGEST);
    g_assert_null (strstr (summary, "nan"));
    g_assert_null (strstr (summary, "inf"));
    g_assert_nonnull (strstr (summary, "—"));
  }
}

/* Every input can be "no value" without a sentinel and without GObject (which
 * warns on NaN: fatal under G_DEBUG=fatal-warnings). Oracles: the input's own
 * text in the sentence, hand values, the datasheet's 80 GB. */
static void
test_input_text (void)
{
  static const char *names[] = {
    "params", "tokens", "gpus", "mfu", "batch", "seq", "layers", "d-model", "heads",
    "d-ff", "vocab", "price", "deadline-days",
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();
  NotifyLog log = { g_hash_table_new (g_str_hash, g_str_equal) };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      double good, now;

      g_object_get (plan, names[i], &good, NULL);
      g_assert_false (nk_plan_set_input_text (plan, names[i], " abc "));
      g_object_get (plan, names[i], &now, NULL);
      g_assert_true (isnan (now));
      g_assert_false (nk_plan_get_valid (plan));
      g_assert_cmpstr (nk_plan_get_error_input (plan), ==, names[i]);
      g_assert_nonnull (strstr (nk_plan_get_input_error (plan, names[i]), "abc"));
      g_assert_cmpstr (nk_plan_get_input_error (plan, names[i]), ==, nk_plan_get_error (plan));
      assert_no_infinity (plan);

      /* Back to a number as text, and the error is gone. */
      {
        g_autofree char *text = g_strdup_printf ("%.17g", good);

        g_assert_true (nk_plan_set_input_text (plan, names[i], text));
      }
      g_assert_true (nk_plan_get_valid (plan));
      g_assert_null (nk_plan_get_input_error (plan, names[i]));
      g_object_get (plan, names[i], &now, NULL);
      g_assert_cmpfloat (now, ==, good);
    }

  /* Suffixes, and empty text: 0 for optional inputs, an error for required ones. */
  g_assert_true (nk_plan_set_input_text (plan, "params", "70B"));
  g_assert_cmpfloat (nk_plan_get_params (plan), ==, 70e9);
  g_assert_true (nk_plan_set_input_text (plan, "batch", "1K"));
  g_assert_cmpfloat (nk_plan_get_batch (plan), ==, 1000);
  g_assert_true (nk_plan_set_input_text (plan, "batch", ""));
  g_assert_cmpfloat (nk_plan_get_batch (plan), ==, 0);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_false (nk_plan_set_input_text (plan, "tokens", ""));
  g_assert_true (isnan (nk_plan_get_tokens (plan)));
  g_assert_true (isnan (nk_plan_get_days (plan)));
  g_assert_true (nk_plan_set_input_text (plan, "tokens", "15T"));

  /* A number the plan refuses parses, and the plan says why. */
  g_assert_true (nk_plan_set_input_text (plan, "gpus", "0"));
  g_assert_cmpfloat (nk_plan_get_gpus (plan), ==, 0);
  g_assert_nonnull (nk_plan_get_input_error (plan, "gpus"));
  /* The GPU's memory does not wait for the count. */
  g_assert_cmpfloat (nk_plan_get_hbm_per_gpu (plan), ==, 80e9);
  g_assert_true (isnan (nk_plan_get_memory_per_gpu (plan)));

  /* Every bad input has its own sentence, not only the first. */
  g_assert_false (nk_plan_set_input_text (plan, "layers", "2.5.1"));
  g_assert_true (nk_plan_set_input_text (plan, "deadline-days", "-3"));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "gpus");
  g_assert_nonnull (nk_plan_get_input_error (plan, "layers"));
  g_assert_nonnull (nk_plan_get_input_error (plan, "deadline-days"));
  g_assert_null (nk_plan_get_input_error (plan, "params"));
  g_assert_null (nk_plan_get_input_error (plan, "gpu"));

  /* A caller's own sentence. */
  nk_plan_invalidate_input (plan, "price", "Price: “twelve” is not a number");
  g_assert_true (isnan (nk_plan_get_price (plan)));
  g_assert_cmpstr (nk_plan_get_input_error (plan, "price"), ==, "Price: “twelve” is not a number");
  nk_plan_set_price (plan, 2);
  g_assert_null (nk_plan_get_input_error (plan, "price"));

  g_assert_true (nk_plan_set_input_text (plan, "gpus", "1024"));
  g_assert_true (nk_plan_set_input_text (plan, "layers", ""));
  g_assert_true (nk_plan_set_input_text (plan, "deadline-days", ""));
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat_with_epsilon (nk_plan_get_days (plan), 143.9, 0.05);
  g_assert_cmpfloat (nk_plan_get_cost (plan), ==, nk_plan_get_gpu_hours (plan) * 2);

  /* The same bad text again changes nothing; another bad text changes the
   * sentence (revision) but not the input, which stays NaN. */
  g_assert_false (nk_plan_set_input_text (plan, "batch", "abc"));
  g_signal_connect (plan, "notify", G_CALLBACK (on_notify), &log);
  g_assert_false (nk_plan_set_input_text (plan, "batch", "abc"));
  g_assert_cmpuint (g_hash_table_size (log.counts), ==, 0);
  g_assert_false (nk_plan_set_input_text (plan, "batch", "abd"));
  assert_at_most_once (&log);
  g_assert_cmpuint (count (&log, "revision"), ==, 1);
  g_assert_cmpuint (count (&log, "batch"), ==, 0);
  g_assert_nonnull (strstr (nk_plan_get_input_error (plan, "batch"), "abd"));
  g_signal_handlers_disconnect_by_data (plan, &log);
  g_hash_table_unref (log.counts);

  /* A bad batch does not hide the sizing; a bad d_ff does (4 · d_model would
   * be a silent guess). */
  nk_plan_set_d_model (plan, 768);
  nk_plan_set_layers (plan, 12);
  g_assert_cmpfloat (nk_plan_get_sized_params (plan), ==, 2.0 * 768 * 12 * (2 * 768 + 4 * 768));
  g_assert_false (nk_plan_set_input_text (plan, "d-ff", "wide"));
  g_assert_true (isnan (nk_plan_get_sized_params (plan)));
}

/* The C getters read what the properties hold. */
static void
test_getters (void)
{
  static const struct { const char *name; double (*get) (NkPlan *); } outputs[] = {
    { "total-flops", nk_plan_get_total_flops },
    { "peak-flops-per-gpu", nk_plan_get_peak_flops_per_gpu },
    { "flops-per-day", nk_plan_get_flops_per_day },
    { "days", nk_plan_get_days },
    { "gpu-hours", nk_plan_get_gpu_hours },
    { "cost", nk_plan_get_cost },
    { "hbm-per-gpu", nk_plan_get_hbm_per_gpu },
    { "memory-params-per-gpu", nk_plan_get_memory_params_per_gpu },
    { "memory-grads-per-gpu", nk_plan_get_memory_grads_per_gpu },
    { "memory-optimizer-per-gpu", nk_plan_get_memory_optimizer_per_gpu },
    { "memory-activations-per-gpu", nk_plan_get_memory_activations_per_gpu },
    { "memory-per-gpu", nk_plan_get_memory_per_gpu },
    { "largest-params", nk_plan_get_largest_params },
    { "gpus-for-deadline", nk_plan_get_gpus_for_deadline },
    { "sized-params", nk_plan_get_sized_params },
    { "sized-embedding-params", nk_plan_get_sized_embedding_params },
    { "sized-forward-flops-per-token", nk_plan_get_sized_forward_flops_per_token },
    { "batch", nk_plan_get_batch }, { "seq", nk_plan_get_seq },
    { "layers", nk_plan_get_layers }, { "d-model", nk_plan_get_d_model },
    { "heads", nk_plan_get_heads }, { "d-ff", nk_plan_get_d_ff },
    { "vocab", nk_plan_get_vocab }, { "deadline-days", nk_plan_get_deadline_days },
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  nk_plan_set_price (plan, 2);
  nk_plan_set_batch (plan, 8);
  nk_plan_set_seq (plan, 2048);
  nk_plan_set_layers (plan, 32);
  nk_plan_set_d_model (plan, 4096);
  nk_plan_set_heads (plan, 32);
  nk_plan_set_d_ff (plan, 11008);
  nk_plan_set_vocab (plan, 32000);
  nk_plan_set_deadline_days (plan, 30);
  nk_plan_set_activation_model (plan, NK_ACTIVATION_MODEL_TRANSFORMER);
  nk_plan_set_checkpointing (plan, TRUE);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpint (nk_plan_get_activation_model (plan), ==, NK_ACTIVATION_MODEL_TRANSFORMER);
  g_assert_true (nk_plan_get_checkpointing (plan));
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      double v;

      g_object_get (plan, outputs[i].name, &v, NULL);
      g_test_message ("%s", outputs[i].name);
      g_assert_true (isfinite (v));
      g_assert_cmpfloat (outputs[i].get (plan), ==, v);
    }
  g_assert_cmpstr (nk_plan_get_gpu_name (plan), ==, "NVIDIA H100 SXM5 80 GB");
  g_assert_cmpstr (nk_plan_get_bytes_per_param_text (plan), ==, "4 + 4 + 8 = 16");
}

static void
test_enum_strings (void)
{
  for (int o = NK_OPTIMIZER_SGD; o <= NK_OPTIMIZER_ADAMW; o++)
    {
      NkOptimizer back = -1;

      g_assert_true (nk_optimizer_from_string (nk_optimizer_to_string (o), &back));
      g_assert_cmpint (back, ==, o);
    }
  for (int p = NK_PRECISION_FP32; p <= NK_PRECISION_FP16_MIXED; p++)
    {
      NkPrecision back = -1;

      g_assert_true (nk_precision_from_string (nk_precision_to_string (p), &back));
      g_assert_cmpint (back, ==, p);
    }
  {
    NkOptimizer o = NK_OPTIMIZER_SGD;
    NkPrecision p = NK_PRECISION_FP32;
    GEnumClass *klass = g_type_class_ref (NK_TYPE_OPTIMIZER);

    g_assert_true (nk_optimizer_from_string ("AdamW", &o));
    g_assert_cmpint (o, ==, NK_OPTIMIZER_ADAMW);
    g_assert_false (nk_optimizer_from_string ("lion", &o));
    g_assert_false (nk_precision_from_string ("bf16", &p));
    /* One enum for planner and trainer: the CLI names of both read the same values. */
    g_assert_true (nk_precision_from_string ("mixed", &p));
    g_assert_cmpint (p, ==, NK_PRECISION_BF16_MIXED);
    g_assert_true (nk_precision_from_string ("fp16", &p));
    g_assert_cmpint (p, ==, NK_PRECISION_FP16_MIXED);
    g_assert_cmpstr (nk_precision_to_string (NK_PRECISION_BF16_MIXED), ==, "bf16-mixed");
    /* GSettings binds enum keys by nick: the nick must be the CLI name. */
    g_assert_cmpstr (g_enum_get_value (klass, NK_OPTIMIZER_ADAMW)->value_nick, ==, "adamw");
    g_type_class_unref (klass);
  }
  g_assert_cmpfloat (nk_optimizer_state_bytes (NK_OPTIMIZER_ADAMW), ==, 8);
  g_assert_true (nk_plan_dtype_is_supported (NK_PEAK_FP8));
  g_assert_false (nk_plan_dtype_is_supported (NK_PEAK_FP64));
}

/* The pure computation on a plain struct (what search loops call) gives the
 * object's numbers bit for bit, and reports problems as codes. Oracle for the
 * numbers: the lecture's 143.9 days. */
static void
test_compute_pure (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  NkPlanInputs in = { .gpu = "h100-sxm", .dtype = NK_PEAK_BF16, .optimizer = NK_OPTIMIZER_ADAMW,
                      .precision = NK_PRECISION_FP32, .zero_stage = 0,
                      .activation_model = NK_ACTIVATION_MODEL_LINEAR };
  NkPlanResult r;

  in.in[NK_PLAN_IN_PARAMS] = 70e9;
  in.in[NK_PLAN_IN_TOKENS] = 15e12;
  in.in[NK_PLAN_IN_GPUS] = 1024;
  in.in[NK_PLAN_IN_MFU] = 0.5;
  /* the object's layout defaults (its property table) */
  in.layout[NK_PLAN_L_TP] = in.layout[NK_PLAN_L_PP] = in.layout[NK_PLAN_L_CP] = 1;
  in.layout[NK_PLAN_L_VIRTUAL_STAGES] = 1;
  in.layout[NK_PLAN_L_GPUS_PER_NODE] = 8;
  in.layout[NK_PLAN_L_TIED_EMBEDDINGS] = 1;
  in.layout[NK_PLAN_L_GRAD_PRECISION] = NK_GRAD_PRECISION_BF16;
  in.layout[NK_PLAN_L_MEMORY_RESERVE] = 5;
  nk_plan_compute (&in, &r);
  g_assert_true (r.valid);
  g_assert_cmpuint (r.n_problems, ==, 0);
  g_assert_cmpfloat_with_epsilon (r.values[NK_PLAN_V_DAYS], 143.9, 0.05);
  for (guint i = 0; i < NK_PLAN_N_VALUES; i++)
    {
      double object = nk_plan_get_output (plan, nk_plan_value_name (i));

      g_test_message ("%s", nk_plan_value_name (i));
      g_assert_true (object == r.values[i] || (isnan (object) && isnan (r.values[i])));
    }

  in.in[NK_PLAN_IN_MFU] = 2;
  in.missing[NK_PLAN_IN_TOKENS] = TRUE;
  nk_plan_compute (&in, &r);
  g_assert_false (r.valid);
  g_assert_cmpuint (r.n_problems, ==, 2);
  g_assert_cmpint (r.problems[0].kind, ==, NK_PLAN_PROBLEM_NO_VALUE);
  g_assert_cmpstr (r.problems[0].input, ==, "tokens");
  g_assert_cmpint (r.problems[1].kind, ==, NK_PLAN_PROBLEM_RANGE);
  g_assert_cmpstr (r.problems[1].input, ==, "mfu");
  g_assert_true (isnan (r.values[NK_PLAN_V_DAYS]));
}

/* Issue 14: largest_params() stepped by ±1, which stops changing n past 2^53, so
 * 2M GPUs under ZeRO-3 never returned. Run in a subprocess with a time limit so
 * the old code fails instead of hanging. Oracle: 80e9 B / (16 B / 2e6) = 1e16
 * parameters, checked on the forward formula at the answer and the next double. */
static void
test_search_terminates (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(NkPlan) plan = nk_plan_new ();
      double n, per;

      g_object_set (plan, "gpus", 2e6, "zero-stage", 3, NULL);
      n = OUT (plan, "largest-params");
      g_assert_cmpfloat (n, ==, 1e16);
      per = 16.0 / 2e6;
      g_assert_cmpfloat (n * per, <=, 80e9);
      g_assert_cmpfloat (nextafter (n, INFINITY) * per, >, 80e9);

      /* 1e15 GPUs: 5e24 parameters, far past 2^53. */
      nk_plan_set_gpus (plan, 1e15);
      n = OUT (plan, "largest-params");
      g_assert_cmpfloat_with_epsilon (n / 5e24, 1, 1e-12);
      g_assert_cmpfloat (n * (16.0 / 1e15), <=, 80e9);

      /* 1e300 GPUs: the answer is beyond a double; refused, not a hang. */
      nk_plan_set_gpus (plan, 1e300);
      g_assert_false (nk_plan_get_valid (plan));
      g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "gpus");
      g_assert_true (isnan (OUT (plan, "largest-params")));
      g_assert_true (isnan (nk_plan_largest_params_for_stage (plan, 3)));

      /* The deadline search too: a tiny MFU asks for ~1e15 GPUs. */
      g_object_set (plan, "gpus", 8.0, "mfu", 1e-8, "deadline-days", 10.0, NULL);
      n = OUT (plan, "gpus-for-deadline");
      g_assert_true (n >= 1 && n == floor (n));
      nk_plan_set_gpus (plan, n);
      g_assert_cmpfloat (OUT (plan, "days"), <=, 10.0);
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* The number inside a formula's "= N days", as a double. */
static double
days_in_formula (const char *text,
                 char      **number_text)
{
  const char *eq = strrchr (text, '=');
  const char *end;

  g_assert_nonnull (eq);
  end = strstr (eq, " days");
  g_assert_nonnull (end);
  *number_text = g_strndup (eq + 2, end - (eq + 2));
  return g_ascii_strtod (*number_text, NULL);
}

/* Issue 14: the days formula went through a 32-byte buffer (--mfu 1e-300 printed
 * a number 10^271 too small), said "0.0 days" for short runs and printed 22
 * digits for huge ones. Oracle: 6·N·D / (peak · mfu · gpus · 86400) in the test. */
static void
test_days_formula (void)
{
  static const struct { double params, tokens, gpus, mfu; } cases[] = {
    { 70e9, 15e12, 1024, 1e-300 }, { 125e6, 2.5e9, 8, 0.5 }, { 1e30, 1e12, 8, 0.5 },
    { 70e9, 15e12, 1024, 0.5 },
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double days = 6.0 * cases[i].params * cases[i].tokens
                    / (989.5e12 * cases[i].mfu * cases[i].gpus * 86400.0);
      g_autofree char *number = NULL;
      double shown;

      g_object_set (plan, "params", cases[i].params, "tokens", cases[i].tokens,
                    "gpus", cases[i].gpus, "mfu", cases[i].mfu, NULL);
      g_assert_true (nk_plan_get_valid (plan));
      shown = days_in_formula (nk_plan_get_formula (plan, "days"), &number);
      g_test_message ("%s", number);
      /* One decimal where it says something, else four significant digits. */
      g_assert_cmpfloat (fabs (shown - days), <=, days >= 0.05 && days < 1e6 ? 0.05 : days * 1e-3);
      g_assert_cmpuint (strlen (number), <=, 9);
      g_assert_nonnull (g_str_has_prefix (nk_plan_get_formula (plan, "gpu-hours"), number) ? "" : NULL);
    }
}

/* Issue 14: an overflow named a fixed input (--mfu 1e-305 blamed the GPU count,
 * huge heads or seq blamed the batch). The input whose size caused it is named. */
static void
test_overflow_blame (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  nk_plan_set_mfu (plan, 1e-305);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "mfu");
  nk_plan_set_mfu (plan, 0.5);
  g_assert_true (nk_plan_get_valid (plan));

  g_object_set (plan, "batch", 8.0, "seq", 2048.0, "layers", 32.0, "d-model", 4096.0,
                "heads", 1e300, "activation-model", NK_ACTIVATION_MODEL_TRANSFORMER, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "heads");
  g_object_set (plan, "heads", 32.0, "seq", 1e200, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "seq");
  g_object_set (plan, "seq", 2048.0, "batch", 1e300, NULL);
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "batch");
  g_object_set (plan, "batch", 8.0, NULL);
  g_assert_true (nk_plan_get_valid (plan));
}

/* Issue 14: the transformer estimate was 16-bit whatever the precision. In fp32
 * the same tensors take 4 bytes and the dropout masks 1 byte; by hand from the
 * paper's per-tensor list (11sbh + 5as²b attention, 19sbh MLP, 4sbh norms, of
 * which sbh, sbh and as²b are masks): 16·4 + 2 = 66 sbh and 2·4 + 1 = 9 as²b.
 * s 2048, b 8, h 4096, a 32, L 32: sbh = 67108864; 66 + 9·32·2048/4096 = 210;
 * × 32 layers = 450971566080 B; checkpointed 4·sbh·32 + 67108864·210. */
static void
test_transformer_precision (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "batch", 8.0, "seq", 2048.0, "layers", 32.0, "d-model", 4096.0,
                "heads", 32.0, "gpus", 8.0, "activation-model", NK_ACTIVATION_MODEL_TRANSFORMER,
                "precision", NK_PRECISION_FP32, NULL);
  g_assert_cmpfloat (OUT (plan, "activations-transformer"), ==, 450971566080.0);
  g_assert_cmpfloat (OUT (plan, "activations-transformer-checkpointed"), ==,
                     8589934592.0 + 14092861440.0);
  g_assert_nonnull (strstr (nk_plan_get_formula (plan, "activations-transformer"), "32-bit"));
  /* Mixed precision keeps the paper's 16-bit numbers. */
  nk_plan_set_precision (plan, NK_PRECISION_FP16_MIXED);
  g_assert_cmpfloat (OUT (plan, "activations-transformer"), ==, 244813135872.0);
}

/* Issue 14: "--deadline 90" answered 1638 GPUs, neither whole nodes nor checked
 * against memory. The summary now says both. Oracles: ⌈1638 / 8⌉ = 205 nodes;
 * 70e9 × 16 B replicated (ZeRO-0) never fits 80 GB; under ZeRO-3 at 8 GPUs
 * (deadline 20000 days) 1.4e11 B per GPU does not fit, ⌈70e9 · 16 / 80e9⌉ = 14
 * GPUs do. */
static void
test_deadline_memory (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  g_autofree char *zero0 = NULL;
  g_autofree char *zero3 = NULL;

  nk_plan_set_deadline_days (plan, 90);
  g_assert_cmpfloat (OUT (plan, "gpus-for-deadline"), ==, 1638);
  zero0 = nk_plan_format_summary (plan, NK_PLAN_JSON_DEADLINE);
  g_assert_nonnull (strstr (zero0, "205 nodes = 1640 GPUs"));
  g_assert_nonnull (strstr (zero0, "does not fit (the deadline counts compute only)"));
  g_assert_nonnull (strstr (zero0, "no GPU count fits"));

  g_object_set (plan, "zero-stage", 3, "deadline-days", 20000.0, NULL);
  g_assert_cmpfloat (OUT (plan, "gpus-for-deadline"), ==, 8);
  zero3 = nk_plan_format_summary (plan, NK_PLAN_JSON_DEADLINE);
  g_assert_nonnull (strstr (zero3, "1 nodes = 8 GPUs"));
  g_assert_nonnull (strstr (zero3, "1.4e11 B per GPU > 8.0e10 B HBM"));
  g_assert_nonnull (strstr (zero3, "fits from           14 GPUs"));
}

static void
count_notify (guint *count)
{
  (*count)++;
}

/* Issue 14's layout inputs: each name the page binds exists with the default
 * the contract states (oracle: the list in /work/notes/for-planner-page.md,
 * written by hand), round-trips, notifies once, and the defaults leave the
 * lecture's answer as it was (4.0e10 B/GPU at 80e9 is checked elsewhere; here
 * every output is unchanged by setting the defaults explicitly). */
static void
test_layout_properties (void)
{
  static const struct { const char *name; int value; } expected[] = {
    { "tp", 1 }, { "pp", 1 }, { "cp", 1 }, { "dp", 0 }, { "virtual-stages", 1 },
    { "sequence-parallel", 0 }, { "recompute", 0 }, { "flash-attention", 0 },
    { "grad-precision", NK_GRAD_PRECISION_BF16 }, { "gpus-per-node", 8 }, { "micro-batch", 0 },
    { "global-batch", 0 }, { "kv-heads", 0 }, { "ffn", 0 }, { "tied-embeddings", 1 },
    { "capacity", 0 }, { "mfu-auto", 0 }, { "best-layout", 0 }, { "memory-reserve", 5 }, { "fsdp", 0 },
  };
  g_autoptr(NkPlan) plan = nk_plan_new ();
  double days_before, days_after;
  guint notified = 0;
  int tp = 0;

  g_object_get (plan, "days", &days_before, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (plan),
                                                        expected[i].name);
      g_auto(GValue) value = G_VALUE_INIT;
      int v;

      g_assert_nonnull (pspec);
      g_assert_true (pspec->flags & G_PARAM_WRITABLE);
      g_value_init (&value, pspec->value_type);
      g_object_get_property (G_OBJECT (plan), expected[i].name, &value);
      if (G_VALUE_HOLDS_BOOLEAN (&value))
        v = g_value_get_boolean (&value);
      else if (G_VALUE_HOLDS_ENUM (&value))
        v = g_value_get_enum (&value);
      else
        v = g_value_get_int (&value);
      g_assert_cmpint (v, ==, expected[i].value);
      g_object_set_property (G_OBJECT (plan), expected[i].name, &value);
    }
  g_object_get (plan, "days", &days_after, NULL);
  g_assert_cmpfloat (days_before, ==, days_after);

  g_signal_connect_swapped (plan, "notify::tp", G_CALLBACK (count_notify), &notified);
  g_object_set (plan, "tp", 8, NULL);
  g_object_set (plan, "tp", 8, NULL);
  g_object_get (plan, "tp", &tp, NULL);
  g_assert_cmpint (tp, ==, 8);
  g_assert_cmpuint (notified, ==, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/plan/lecture/days", test_lecture_days);
  g_test_add_func ("/engine/plan/lecture/largest", test_lecture_largest);
  g_test_add_func ("/engine/plan/memory/bytes-per-param", test_bytes_per_param);
  g_test_add_func ("/engine/plan/memory/zero-stages", test_zero_stages);
  g_test_add_func ("/engine/plan/memory/activations", test_activations);
  g_test_add_func ("/engine/plan/sizing/transformer", test_transformer_sizing);
  g_test_add_func ("/engine/plan/inverse/consistency", test_inverse_consistency);
  g_test_add_func ("/engine/plan/notify/once", test_notify_once);
  g_test_add_func ("/engine/plan/errors/bad-inputs", test_bad_inputs);
  g_test_add_func ("/engine/plan/errors/input-text", test_input_text);
  g_test_add_func ("/engine/plan/getters", test_getters);
  g_test_add_func ("/engine/plan/enums/strings", test_enum_strings);
  g_test_add_func ("/engine/plan/compute/pure", test_compute_pure);
  g_test_add_func ("/engine/plan/bugs/search-terminates", test_search_terminates);
  g_test_add_func ("/engine/plan/bugs/days-formula", test_days_formula);
  g_test_add_func ("/engine/plan/bugs/overflow-blame", test_overflow_blame);
  g_test_add_func ("/engine/plan/bugs/transformer-precision", test_transformer_precision);
  g_test_add_func ("/engine/plan/bugs/deadline-memory", test_deadline_memory);
  g_test_add_func ("/engine/plan/layout/properties", test_layout_properties);

  return g_test_run ();
}
