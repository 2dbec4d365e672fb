/* test-plan-time.c: the cluster model's step time against closed forms worked by hand
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the matmul efficiency on each GPU's measured ceiling as a closed
 * form of the GPU table's published rates (Stas Bekman's table, cited in
 * gpus.json); a MoE layer's permutation bytes counted by hand from
 * Megatron-Core's token dispatcher; the expert all-to-all of the busiest
 * pipeline stage counted by hand, and across NVLink domains split by link;
 * the overlapped collectives as the max of
 * two closed forms.
 */
#include "config.h"

#include <math.h>

#include "nk-plan.h"

#define REL(a, b, tol) g_assert_cmpfloat_with_epsilon ((a) / (b), 1.0, (tol))

static double
out (NkPlan     *plan,
     const char *name)
{
  return nk_plan_get_output (plan, name);
}

/* A Llama-like dense model on one node: 4 layers, h 2048, SwiGLU 8192. */
static NkPlan *
dense_plan (const char *gpu)
{
  NkPlan *plan = nk_plan_new ();

  g_object_set (plan, "gpu", gpu, "gpus", 8.0, "params", 1.0, "tokens", 1e9,
                "layers", 4.0, "d-model", 2048.0, "heads", 16.0, "ffn", NK_FFN_SWIGLU, "d-ff", 8192.0,
                "vocab", 32000.0, "seq", 2048.0, "tied-embeddings", FALSE,
                "precision", NK_PRECISION_BF16_MIXED, "dropout", FALSE, "flash-attention", TRUE,
                "global-batch", 8, "micro-batch", 1, NULL);
  return plan;
}

/* The calibrated 0.56 of an A100's peak is 0.56 / (271.2/312) of what an
 * A100 measurably reaches; on an H100 that fraction of its ceiling, 794.5 of
 * 989.5 TFLOP/s, is 0.5173 of its peak; a GPU the table has no measurement for
 * (H100 NVL) keeps 0.56 of its peak; a typed efficiency is taken as it is. The
 * compute time is tokens × FLOPs / (GPUs × peak × efficiency), so against the
 * same plan at a typed 0.56 it scales by 0.56 / efficiency. */
static void
test_efficiency_on_ceilings (void)
{
  static const struct {
    const char *gpu;
    double      eff;
  } cases[] = {
    { "a100-sxm-80", 0.56 },
    { "h100-sxm", 0.56 / (271.2 / 312) * (794.5 / 989.5) },
    { "b200", 0.56 / (271.2 / 312) * (1745.0 / 2250) },
    { "h100-nvl", 0.56 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NkPlan) plan = dense_plan (cases[i].gpu);
      double typed, auto_;

      g_object_set (plan, "matmul-efficiency", 0.56, NULL);
      typed = out (plan, "time-compute");
      g_object_set (plan, "matmul-efficiency", 0.0, NULL);
      auto_ = out (plan, "time-compute");
      g_test_message ("%s: efficiency %.4f", cases[i].gpu, cases[i].eff);
      REL (auto_, typed * 0.56 / cases[i].eff, 1e-12);
    }
}

/* The small MoE of test-plan-cluster: 4 MoE layers, h 1024, 8 experts top-2,
 * s 1024, one sequence per micro-batch, 8 GPUs as DP 8 with EP 4, one
 * micro-batch a step; NVLink 400e9, the network 50e9. */
static NkPlan *
small_moe_plan (void)
{
  NkPlan *plan = nk_plan_new ();

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 8.0, "params", 1.0, "tokens", 1e9,
                "layers", 4.0, "d-model", 1024.0, "heads", 8.0, "ffn", NK_FFN_SWIGLU, "d-ff", 4096.0,
                "vocab", 1000.0, "seq", 1024.0, "tied-embeddings", FALSE,
                "experts", 8, "experts-per-token", 2, "ep", 4,
                "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 1,
                "global-batch", 8, "micro-batch", 1,
                "nvlink-bandwidth", 400e9, "network-bandwidth", 50e9, NULL);
  return plan;
}

/* The time bound by HBM beyond the activation passes (micro-batches × layers ×
 * passes × activation bytes / bandwidth, the model's older term). */
static double
permute_seconds (NkPlan *plan,
                 double  passes)
{
  return out (plan, "time-memory-bound")
         - 1 * 4 * passes * out (plan, "activation-traffic-per-layer") / 3.35e12;
}

/* A MoE layer's permutations by hand, n = 1024 tokens, h 1024, K 2, 2 B:
 * permute 2 · 1024 · 1024 · (1 + 2) = 6,291,456 B; unpermute the same; with
 * EP > 1 the sort and its inverse 2 · 2 · 2 · 2 · 1024 · 1024 = 16,777,216 B;
 * the router 16 · 1024 · 8 = 131,072 B: 29,491,200 B forward, the same
 * backward, 4 layers: 235,929,600 B / 3.35e12 B/s (an H100's HBM). EP 1 sorts
 * nothing: 12,713,984 B a pass, 101,711,872 B. Full recompute runs the
 * forward again (3 passes of the permutations, 4 of the activations). */
static void
test_moe_permutations (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();

  g_assert_true (nk_plan_get_valid (plan));
  REL (permute_seconds (plan, 3), 235929600.0 / 3.35e12, 1e-9);
  g_object_set (plan, "ep", 1, NULL);
  REL (permute_seconds (plan, 3), 101711872.0 / 3.35e12, 1e-9);
  g_object_set (plan, "recompute", NK_RECOMPUTE_FULL, NULL);
  REL (permute_seconds (plan, 4), 1.5 * 101711872.0 / 3.35e12, 1e-9);
}

/* The all-to-alls of the busiest stage: with the first layer dense and PP 2,
 * stage 0 holds a dense and a MoE layer, stage 1 two MoE layers; the step
 * waits on stage 1: 2 micro-batches (global 8 over DP 4) × 2 MoE layers × 4
 * all-to-alls × 0.75 × 4,194,304 B / (0.8 × 400e9). */
static void
test_moe_busiest_stage (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();

  g_object_set (plan, "dense-layers", 1, "pp", 2, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "time-ep-comm"), 2 * 2 * 4 * 0.75 * 4194304.0 / (0.8 * 400e9), 1e-12);
}

/* An all-to-all across two NVLink domains: 16 experts on EP 16 over 16 GPUs
 * (DP 16, one micro-batch a step), 8 GPUs a domain. Each all-to-all sends
 * s·b·K·h·2 = 1024 · 1 · 2 · 1024 · 2 = 4,194,304 B a GPU; 8 of its 15 peers
 * are in the other domain. Sent copy by copy, 8/16 of the bytes would cross
 * the 50e9 network (NCCL's all-to-all); DeepEP sends a token once to the other domain when one of
 * its K = 2 experts is there: missed with probability C(8, 2)/C(16, 2) =
 * 28/120, so 23/30 of a copy per token, 23/60 of the K copies' bytes, while
 * 7/16 go over NVLink at 0.8 × 400e9 (faster, hidden): 4 MoE layers × 4
 * all-to-alls × 23/60 × 4,194,304 / 50e9 (every byte at the network's rate,
 * 15/16 of them, was 1.2583 ms; copy by copy 0.67109 ms). Inside one domain
 * (EP 8 on 8 GPUs) it stays 15/16 → 7/8 at 0.8 of NVLink. */
static void
test_ep_across_domains (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();

  g_object_set (plan, "gpus", 16.0, "experts", 16, "ep", 16, "global-batch", 16, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "time-ep-comm"), 4 * 4 * 0.5 * 4194304.0 / 50e9, 1e-12);
  g_object_set (plan, "deepep", TRUE, NULL);
  REL (out (plan, "time-ep-comm"), 4 * 4 * 23.0 / 60 * 4194304.0 / 50e9, 1e-12);
  g_object_set (plan, "gpus", 8.0, "ep", 8, "global-batch", 8, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "time-ep-comm"), 4 * 4 * 7.0 / 8 * 4194304.0 / (0.8 * 400e9), 1e-12);
}

/* --tp-comm-overlap: the TP all-reduces run under the step's matmuls, so what
 * is exposed is max(0, TP − (compute + recompute)): nothing at NVLink's 450
 * GB/s, where TP 8 of a 2048-wide model costs less than its GEMMs; at a typed
 * 1 GB/s the remainder. */
static void
test_tp_overlap (void)
{
  g_autoptr(NkPlan) plan = dense_plan ("h100-sxm");
  double tp, gemms;

  g_object_set (plan, "tp", 8, "sequence-parallel", TRUE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  tp = out (plan, "time-tp-comm");
  gemms = out (plan, "time-compute") + out (plan, "time-recompute");
  g_assert_cmpfloat (tp, >, 0);
  g_assert_cmpfloat (tp, <, gemms);
  g_object_set (plan, "tp-comm-overlap", TRUE, NULL);
  g_assert_cmpfloat (out (plan, "time-tp-comm"), ==, 0);
  REL (out (plan, "time-per-step"), out (plan, "time-compute") + out (plan, "time-recompute")
       + out (plan, "time-memory-bound") + out (plan, "time-exposed-comm") + out (plan, "time-pp-bubble"), 1e-12);

  g_object_set (plan, "tp-comm-overlap", FALSE, "nvlink-bandwidth", 1e9, NULL);
  tp = out (plan, "time-tp-comm");
  g_assert_cmpfloat (tp, >, gemms);
  g_object_set (plan, "tp-comm-overlap", TRUE, NULL);
  REL (out (plan, "time-tp-comm"), tp - gemms, 1e-12);
}

/* --ep-comm-overlap: the all-to-alls run under another micro-batch's work, so
 * what is exposed is max(0, EP − (compute + recompute + element-wise +
 * casts)), and the hidden part H slows that work by H · 20/112 (the 20 of an
 * H800's 132 SMs DeepSeek-V3's all-to-all kernels hold, section 3.2.2): on
 * NVLink all of it is hidden, EP · 20/112 remains; at a typed 0.1 GB/s the
 * remainder EP − work plus work · 20/112. */
static void
test_ep_overlap (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();
  double ep, work;

  work = out (plan, "time-compute") + out (plan, "time-recompute") + out (plan, "time-memory-bound")
         + out (plan, "time-casts");
  ep = out (plan, "time-ep-comm");
  g_assert_cmpfloat (ep, >, 0);
  g_assert_cmpfloat (ep, <, work);
  g_object_set (plan, "ep-comm-overlap", TRUE, NULL);
  REL (out (plan, "time-ep-comm"), ep * 20.0 / 112.0, 1e-12);

  g_object_set (plan, "ep-comm-overlap", FALSE, "nvlink-bandwidth", 1e8, NULL);
  ep = out (plan, "time-ep-comm");
  g_assert_cmpfloat (ep, >, work);
  g_object_set (plan, "ep-comm-overlap", TRUE, NULL);
  REL (out (plan, "time-ep-comm"), ep - work + work * 20.0 / 112.0, 1e-12);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/plan-time/efficiency/measured-ceilings", test_efficiency_on_ceilings);
  g_test_add_func ("/engine/plan-time/moe/permutations", test_moe_permutations);
  g_test_add_func ("/engine/plan-time/moe/busiest-stage", test_moe_busiest_stage);
  g_test_add_func ("/engine/plan-time/moe/all-to-all-across-domains", test_ep_across_domains);
  g_test_add_func ("/engine/plan-time/overlap/tp", test_tp_overlap);
  g_test_add_func ("/engine/plan-time/overlap/ep", test_ep_overlap);
  return g_test_run ();
}
