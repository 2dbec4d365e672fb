/* test-plan-cluster.c: the planner's cluster model against hand-computed cases and published figures
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: published parameter counts (GPT-2 small, Llama-2-70B), Korthikanti et
 * al. 2022's closed forms evaluated by hand, the bubble and nccl-tests formulas
 * written out here with the numbers, a brute-force search through the object's
 * own properties for --best-layout, and the engines' files written from a spec
 * filled by hand.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-gpt.h"
#include "nk-launch.h"
#include "nk-train-config.h"
#include "nk-plan.h"
#include "nk-test-util.h"

#define REL(a, b, tol) g_assert_cmpfloat_with_epsilon ((a) / (b), 1.0, (tol))

/* GPT-3 175B on A100s as Narayanan et al. 2021 trained it: 96 layers, h 12288,
 * 96 heads, s 2048, V 51200; TP 8, PP 8, 1536 GPUs, global batch 2304. */
static NkPlan *
gpt3_plan (void)
{
  NkPlan *plan = nk_plan_new ();

  g_object_set (plan, "gpu", "a100-sxm-80", "gpus", 1536.0, "params", 1.0, "tokens", 300e9,
                "layers", 96.0, "d-model", 12288.0, "heads", 96.0, "vocab", 51200.0, "seq", 2048.0,
                "precision", NK_PRECISION_BF16_MIXED, "tied-embeddings", FALSE,
                "tp", 8, "pp", 8, "global-batch", 2304, "micro-batch", 1, NULL);
  return plan;
}

static double
out (NkPlan     *plan,
     const char *name)
{
  return nk_plan_get_output (plan, name);
}

/* ---------------------------------------------------------------- shape */

static void
test_shape_counts (void)
{
  g_autoptr(NkPlan) gpt2 = nk_plan_new ();
  g_autoptr(NkPlan) llama = nk_plan_new ();

  /* GPT-2 small as nanoGPT counts it with wpe: 124,439,808 */
  g_object_set (gpt2, "layers", 12.0, "d-model", 768.0, "heads", 12.0, "vocab", 50257.0, "seq", 1024.0,
                "tied-embeddings", TRUE, NULL);
  g_assert_cmpfloat (out (gpt2, "shape-params"), ==, 124439808.0);

  /* Llama-2-70B (Touvron et al. 2023; the checkpoint's 68,976,648,192) */
  g_object_set (llama, "layers", 80.0, "d-model", 8192.0, "heads", 64.0, "kv-heads", 8,
                "ffn", NK_FFN_SWIGLU, "d-ff", 28672.0, "vocab", 32000.0, "seq", 4096.0,
                "tied-embeddings", FALSE, NULL);
  g_assert_cmpfloat (out (llama, "shape-params"), ==, 68976648192.0);
  g_assert_cmpfloat (out (llama, "shape-embedding-params"), ==, 2.0 * 32000 * 8192);
}

/* ---------------------------------------------------------------- layout */

static void
test_layout_arithmetic (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();

  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "layout-dp"), ==, 24);          /* 1536 / 64 */
  g_assert_cmpfloat (out (plan, "grad-accum"), ==, 96);         /* 2304 / (1 × 24) */
  g_assert_cmpfloat (out (plan, "tokens-per-step"), ==, 2304.0 * 2048);
  g_assert_cmpfloat (out (plan, "steps"), ==, ceil (300e9 / (2304.0 * 2048)));
  g_assert_cmpfloat (out (plan, "nodes"), ==, 192);
}

/* Each rule refuses with exit 2 and names the flag a person would change. */
static void
test_layout_rules (void)
{
  static const struct { const char *flag, *value, *blamed; } cases[] = {
    { "--tp", "3", "--tp" },              /* 3 × 1 × 1 × 21 ≠ 64 */
    { "--tp", "16", "--tp" },             /* 40 heads % 16 */
    { "--pp", "3", "--pp" },              /* 3 does not divide 64 */
    { "--kv-heads", "3", "--kv-heads" },  /* 40 % 3 */
    { "--global-batch", "100", "--global-batch" },   /* 100 % (1 × 64) */
    { "--cp", "3", "--cp" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      const char *args[] = { "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "auto",
                             "--layers", "40", "--d-model", "5120", "--heads", "40", "--seq", "4096",
                             "--global-batch", "512", "--micro-batch", "1",
                             cases[i].flag, cases[i].value, NULL };
      g_autofree char *prefix = g_strdup_printf ("napkin-cli: %s:", cases[i].blamed);

      if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
        return;
      g_test_message ("%s %s: %s", cases[i].flag, cases[i].value, run.err);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_true (g_str_has_prefix (run.err, prefix));
    }
}

/* A lecture plan with only --batch keeps its answers when its batch cannot be
 * laid out (8 sequences over 1024 GPUs): no layout, no error. */
static void
test_layout_not_asked (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "batch", 8.0, "seq", 2048.0, "layers", 32.0, "d-model", 4096.0, "heads", 32.0, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_true (isnan (out (plan, "layout-dp")));
  g_object_set (plan, "micro-batch", 1, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "global-batch");
}

/* ---------------------------------------------------------------- memory */

/* Korthikanti et al. 2022, Table 2, evaluated by hand for GPT-3 175B at t = 8,
 * b = 1, 16-bit activations: sbh(10 + 24/t + 5as/(ht)) with TP only,
 * sbh(34/t + 5as/(ht)) with sequence parallelism, sbh · 34/t selective. */
static void
test_korthikanti_per_layer (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  double sbh = 2048.0 * 1 * 12288, score = 5.0 * 96 * 2048 / (12288.0 * 8);
  double ln_stats = 2 * 2 * 4 * 2048.0;   /* two LayerNorms' fp32 mean and 1/σ per token */

  REL (out (plan, "activations-per-layer"), sbh * (10 + 24.0 / 8 + score) + ln_stats, 1e-12);
  g_object_set (plan, "sequence-parallel", TRUE, NULL);
  REL (out (plan, "activations-per-layer"), sbh * (34.0 / 8 + score) + ln_stats / 8, 1e-12);
  g_object_set (plan, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  REL (out (plan, "activations-per-layer"), sbh * 34.0 / 8 + ln_stats / 8, 1e-12);
  g_object_set (plan, "recompute", NK_RECOMPUTE_FULL, NULL);
  REL (out (plan, "activations-per-layer"), sbh * 2 / 8, 1e-12);   /* the layer's input, 16-bit, /t */
  g_object_set (plan, "recompute", NK_RECOMPUTE_NONE, "flash-attention", TRUE, NULL);
  REL (out (plan, "activations-per-layer"), sbh * 34.0 / 8 + ln_stats / 8, 1e-12);
  /* without dropout: no attention and FFN masks (2sbh, outside the TP region,
   * here sequence-parallel), and of the scores' 5as²b only the softmax's 2as²b */
  g_object_set (plan, "flash-attention", FALSE, "sequence-parallel", FALSE, "dropout", FALSE, NULL);
  REL (out (plan, "activations-per-layer"), sbh * (8 + 24.0 / 8 + score * 2 / 5) + ln_stats, 1e-12);
  g_object_set (plan, "sequence-parallel", TRUE, NULL);
  REL (out (plan, "activations-per-layer"), sbh * (32.0 / 8 + score * 2 / 5) + ln_stats / 8, 1e-12);
}

/* The first 1F1B stage holds PP micro-batches; with PP layers of L/PP each that
 * is L layers' worth (Korthikanti et al. section 4.2.3); interleaving adds
 * (1 + (p − 1)/(p · v)). */
static void
test_pipeline_in_flight (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();

  g_object_set (plan, "sequence-parallel", TRUE, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  g_assert_cmpfloat (out (plan, "micro-batches-in-flight"), ==, 8);
  g_object_set (plan, "virtual-stages", 3, NULL);   /* 96 layers = 8 × 3 × 4 */
  REL (out (plan, "micro-batches-in-flight"), 8 * (1 + 7.0 / 24), 1e-12);
}

/* The embedding's dropout mask (Korthikanti et al. section 4.3: s·b·h bytes / t
 * per micro-batch in flight, on the first stage) exists only with dropout: a
 * dropout-0 recipe (Llama, DeepSeek, Qwen) keeps none. GPT-3 with selective
 * recompute and SP: the first stage (8 micro-batches in flight, no output
 * layer) is the most loaded, so its edges are the mask alone. */
static void
test_embedding_dropout_mask (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();

  g_object_set (plan, "sequence-parallel", TRUE, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  g_assert_cmpfloat (out (plan, "activations-embedding-and-logits"), ==, 8 * 2048.0 * 12288 / 8);
  g_object_set (plan, "dropout", FALSE, NULL);
  g_assert_cmpfloat (out (plan, "activations-embedding-and-logits"), ==, 0);
}

/* Megatron-LM's --fp8-param-gather keeps the linear weights only as FP8
 * (row-wise and column-wise, counted in the low-precision bucket), not in
 * bf16: GPT-3 on PP 8 × TP 8, the first stage's 12 layers of 12h² linear
 * weights over TP 8 lose their 2 bytes each; norms, biases and the embedding
 * keep theirs. */
static void
test_fp8_param_gather (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  double h = 12288, with_copy, lowp;

  g_object_set (plan, "gpu", "h100-sxm", "recipe", NK_PLAN_RECIPE_FP8_TENSORWISE, "zero-stage", 1,
                "recompute", NK_RECOMPUTE_FULL, NULL);
  with_copy = out (plan, "memory-max-params");
  lowp = out (plan, "memory-max-low-precision");
  g_object_set (plan, "fp8-param-gather", TRUE, NULL);
  REL (with_copy - out (plan, "memory-max-params"), 2 * 12 * 12 * h * h / 8, 1e-12);
  g_assert_cmpfloat (out (plan, "memory-max-low-precision"), ==, lowp);
  /* without a recipe there are no low-precision copies: nothing changes */
  g_object_set (plan, "recipe", NK_PLAN_RECIPE_NONE, NULL);
  g_assert_cmpfloat (out (plan, "memory-max-params"), ==, 2 * (12 * (12 * h * h / 8 + 13 * h) + (51200.0 + 2048) * h / 8));
}

/* Transformer Engine's CPU offloading of N of L layers keeps at most L − N
 * layers' activations on the GPU (its cpu_offloading docs): GPT-3 on TP 8 and
 * no pipeline (DP 192) with 40 of 96 layers offloaded holds 56 layers' sets,
 * the embedding and logits unchanged; Megatron-Core refuses it with PP > 1,
 * with recompute, and for all the layers (transformer_config.py). */
static void
test_cpu_offload (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  double layer, edges;

  g_object_set (plan, "pp", 1, "sequence-parallel", TRUE, "flash-attention", TRUE, "dropout", FALSE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  layer = out (plan, "activations-per-layer");
  edges = out (plan, "activations-embedding-and-logits");
  REL (out (plan, "memory-max-activations"), 96 * layer + edges, 1e-12);
  g_object_set (plan, "cpu-offload-layers", 40, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "memory-max-activations"), 56 * layer + edges, 1e-12);
  g_assert_cmpfloat (out (plan, "activations-stage-layers"), ==, 56);
  g_object_set (plan, "cpu-offload-layers", 96, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "cpu-offload-layers");
  g_object_set (plan, "cpu-offload-layers", 40, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_object_set (plan, "recompute", NK_RECOMPUTE_NONE, "pp", 8, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "cpu-offload-layers");
}

/* Bytes per parameter of the most loaded GPU: 16 (ZeRO paper) or 18 (fp32
 * gradients); Megatron-LM's distributed optimizer is 6 + 12/DP. */
static void
test_bytes_per_param (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  double n;

  g_object_set (plan, "recompute", NK_RECOMPUTE_FULL, NULL);
  g_assert_cmpfloat (out (plan, "bytes-per-param"), ==, 16);
  n = out (plan, "memory-max-params") / 2;   /* bf16 weights */
  REL ((out (plan, "memory-max-grads") + out (plan, "memory-max-optimizer")) / n, 2 + 12, 1e-12);
  g_object_set (plan, "grad-precision", NK_GRAD_PRECISION_FP32, NULL);
  REL ((out (plan, "memory-max-grads") + out (plan, "memory-max-optimizer")) / n, 4 + 12, 1e-12);
  g_assert_cmpfloat (out (plan, "bytes-per-param"), ==, 18);   /* the lecture's view agrees */
  g_object_set (plan, "zero-stage", 1, NULL);
  REL ((out (plan, "memory-max-params") + out (plan, "memory-max-grads") + out (plan, "memory-max-optimizer")) / n,
       6 + 12.0 / 24, 1e-12);
  /* the stage's parameters, by hand: 12 layers × 12h²/8 + 13h replicated,
   * plus the vocabulary-parallel embedding and positions on the first stage */
  REL (n, 12 * (12.0 * 12288 * 12288 / 8 + 13.0 * 12288) + (51200.0 + 2048) * 12288 / 8, 1e-12);
}

/* What CUDA reports for an H100 SXM (81,559 MiB), less the context, less 5 %. */
static void
test_usable_capacity (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_assert_cmpfloat (out (plan, "memory-reported-per-gpu"), ==, 81559.0 * 1048576);
  REL (out (plan, "memory-usable-per-gpu"), (81559.0 - 512) * 1048576 * 0.95, 1e-15);
  g_assert_cmpfloat (out (plan, "capacity-per-gpu"), ==, 80e9);   /* the lecture's convention */
  g_object_set (plan, "capacity", NK_CAPACITY_USABLE, NULL);
  REL (out (plan, "capacity-per-gpu"), (81559.0 - 512) * 1048576 * 0.95, 1e-15);
}


/* Issue 12: the cluster model's activations against what Napkin's GPT stores
 * (nk_gpt_activation_bytes(), which equals the trainer's measured bucket to the
 * byte). Napkin's GPT keeps no dropout masks but the scores before softmax and
 * the two c_proj outputs a layer (test-activation-terms sets them side by side);
 * the planner follows Korthikanti et al.: within 5 % either way. */
static void
test_napkin_gpt_activations (void)
{
  static const struct { guint d, L, heads, T, B, V; } shapes[] = {
    { 128, 4, 4, 64, 16, 256 },    /* issue 12's Done-means run */
    { 256, 4, 4, 128, 16, 256 },   /* bench-gpt's */
    { 64, 2, 2, 32, 8, 256 },
    { 384, 6, 6, 256, 4, 50257 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autoptr(NkPlan) plan = nk_plan_new ();
      double measured = nk_gpt_activation_bytes (shapes[i].V, shapes[i].d, shapes[i].L, shapes[i].heads,
                                                 shapes[i].B, shapes[i].T, NK_DTYPE_F32);
      double planned;

      g_object_set (plan, "gpus", 1.0, "layers", (double) shapes[i].L, "d-model", (double) shapes[i].d,
                    "heads", (double) shapes[i].heads, "seq", (double) shapes[i].T,
                    "vocab", (double) shapes[i].V, "batch", (double) shapes[i].B, NULL);
      planned = nk_plan_get_output (plan, "memory-max-activations");
      g_test_message ("d %u L %u T %u B %u V %u: planned %.0f, stored %.0f, %+.1f %%", shapes[i].d,
                      shapes[i].L, shapes[i].T, shapes[i].B, shapes[i].V, planned, measured,
                      100 * (planned / measured - 1));
      g_assert_cmpfloat (fabs (planned / measured - 1), <=, 0.05);
    }

  /* The Training page's prediction card carries the same figure beside what the
   * GPT stores. */
  {
    g_autoptr(NkTrainConfig) config = nk_train_config_new ();
    NkTrainPrediction p;

    config->model = NK_MODEL_GPT;
    config->dim = 128;
    config->layers = 4;
    config->n_head = 4;
    config->context = 64;
    config->batch = 16;
    nk_train_config_predict (config, NAN, &p);
    g_assert_cmpfloat (p.memory[3], ==, (double) nk_gpt_activation_bytes (nk_train_config_get_vocab (config), 128,
                                                                           4, 4, 16, 64, NK_DTYPE_F32));
    g_assert_cmpfloat (fabs (p.activations_planner / p.memory[3] - 1), <=, 0.05);
    g_assert_cmpfloat (fabs (p.activations_planner / p.memory[3] - 1), >, 0);
  }
}

/* ---------------------------------------------------------------- time */

static void
test_bubble (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();

  REL (out (plan, "bubble-fraction"), 7.0 / (96 + 7), 1e-12);   /* (p − 1)/(m + p − 1) */
  g_object_set (plan, "virtual-stages", 2, NULL);
  REL (out (plan, "bubble-fraction"), (7.0 / (96 * 2)) / (1 + 7.0 / (96 * 2)), 1e-12);
}

/* nccl-tests: all-reduce 2(n − 1)/n · S/B; the DP group of GPT-3's layout spans
 * nodes (TP 8 fills one), so its gradients go over the network. */
static void
test_collectives (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  double S = 2048.0 * 12288 * 2, nvlink = 300e9, network = 25e9;
  double per_ar = 2 * 7.0 / 8 * S / nvlink;
  double n_stage = 12 * (12.0 * 12288 * 12288 / 8 + 13.0 * 12288) + (51200.0 + 2048) * 12288 / 8;

  REL (out (plan, "time-tp-comm"), 96 * 12 * 4 * per_ar, 1e-12);
  REL (out (plan, "time-dp-comm"), 2 * 23.0 / 24 * n_stage * 2 / network, 1e-12);
  g_object_set (plan, "recompute", NK_RECOMPUTE_FULL, NULL);
  REL (out (plan, "time-tp-comm"), 96 * 12 * 6 * per_ar, 1e-12);
  /* ZeRO-3: per micro-batch, three all-gathers of bf16 weights (forward,
   * recompute, backward) and a reduce-scatter of bf16 gradients, each
   * (n − 1)/n · S/B */
  g_object_set (plan, "zero-stage", 3, NULL);
  REL (out (plan, "time-dp-comm"), 96 * 23.0 / 24 * n_stage * (2 + 2 + 2 + 2) / network, 1e-12);
  /* PyTorch FSDP recomputes inside the backward with the backward's gather */
  g_object_set (plan, "fsdp", TRUE, NULL);
  REL (out (plan, "time-dp-comm"), 96 * 23.0 / 24 * n_stage * (2 + 2 + 2) / network, 1e-12);
  g_object_set (plan, "fsdp", FALSE, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  REL (out (plan, "time-dp-comm"), 96 * 23.0 / 24 * n_stage * (2 + 2 + 2) / network, 1e-12);
  /* the table's bandwidths can be overridden */
  g_object_set (plan, "network-bandwidth", 2 * network, "nvlink-bandwidth", nvlink / 3, NULL);
  REL (out (plan, "time-dp-comm"), 96 * 23.0 / 24 * n_stage * (2 + 2 + 2) / (2 * network), 1e-12);
  REL (out (plan, "time-tp-comm"), 96 * 12 * 4 * per_ar * 3, 1e-12);
}

/* NVLink domains: TP 16 over a GB200 NVL72 rack's trays of 4 rides NVLink (900
 * GB/s each way) because all 72 GPUs share one NVLink domain; the same layout on
 * HGX boards of 8 (--nvlink-domain 8) crosses the network (50 GB/s per GPU).
 * Llama-3-70B-like: 80 layers, h 8192, s 8192, one sequence per micro-batch. */
static void
test_nvlink_domain (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  double S = 8192.0 * 8192 * 2;
  double per_ar_nvlink = 2 * 15.0 / 16 * S / 900e9, per_ar_network = 2 * 15.0 / 16 * S / 50e9;

  g_object_set (plan, "gpu", "gb200", "gpus", 64.0, "params", 1.0, "tokens", 1e12,
                "layers", 80.0, "d-model", 8192.0, "heads", 64.0, "kv-heads", 8, "d-ff", 28672.0,
                "ffn", NK_FFN_SWIGLU, "vocab", 128256.0, "seq", 8192.0,
                "precision", NK_PRECISION_BF16_MIXED, "tp", 16, "global-batch", 4, "micro-batch", 1,
                NULL);
  /* DP 4 with one micro-batch each: one micro-step, 80 layers, 4 all-reduces */
  REL (out (plan, "time-tp-comm"), 80 * 4 * per_ar_nvlink, 1e-12);
  g_object_set (plan, "nvlink-domain", 8, NULL);
  REL (out (plan, "time-tp-comm"), 80 * 4 * per_ar_network, 1e-12);
  /* an HGX H100 board's domain is 8, the node's 8: TP 16 crosses the network */
  g_object_set (plan, "nvlink-domain", 0, "gpu", "h100-sxm", NULL);
  REL (out (plan, "time-tp-comm"), 80 * 4 * 2 * 15.0 / 16 * S / 50e9, 1e-12);
  g_object_set (plan, "gpu", "gb200", NULL);
  REL (out (plan, "time-tp-comm"), 80 * 4 * per_ar_nvlink, 1e-12);
}

/* The step's sum, the FLOPs per token (Narayanan et al. 2021's 72lh²(1 + s/6h +
 * V/12lh) per token, 96 with full recompute, 96·(1 + s/6h) + 6Vh by their eq.),
 * and --mfu auto's days = tokens / (tokens/s). */
static void
test_step_and_mfu (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  double l = 96, h = 12288, s = 2048, V = 51200;
  double step;

  REL (out (plan, "model-flops-per-token"), 72 * l * h * h * (1 + s / (6 * h) + V / (12 * l * h)), 1e-12);
  g_object_set (plan, "recompute", NK_RECOMPUTE_FULL, NULL);
  REL (out (plan, "hardware-flops-per-token"), 96 * l * h * h * (1 + s / (6 * h)) + 6 * V * h, 1e-12);
  step = out (plan, "time-compute") + out (plan, "time-recompute") + out (plan, "time-memory-bound")
         + out (plan, "time-exposed-comm") + out (plan, "time-pp-bubble");
  REL (out (plan, "time-per-step"), step, 1e-12);
  REL (out (plan, "mfu-hardware") / out (plan, "mfu-model"),
       out (plan, "hardware-flops-per-token") / out (plan, "model-flops-per-token"), 1e-12);

  /* each engine's own count of the same step (torchtitan without the input
   * embedding and positions, attention 6·L·h·s; nanoGPT without positions, 12·L·h·s;
   * llm.c all parameters, 6·L·h·s) */
  {
    double n = out (plan, "shape-params"), mfu = out (plan, "mfu-model"), f = out (plan, "model-flops-per-token");

    REL (out (plan, "mfu-torchtitan"), mfu * (6 * (n - V * h - s * h) + 6 * l * h * s) / f, 1e-12);
    REL (out (plan, "mfu-nanogpt"), mfu * (6 * (n - s * h) + 12 * l * h * s) / f, 1e-12);
    REL (out (plan, "mfu-llmc"), mfu * (6 * n + 6 * l * h * s) / f, 1e-12);
  }
  g_object_set (plan, "mfu-auto", TRUE, NULL);
  g_object_set (plan, "params", out (plan, "shape-params"), NULL);
  REL (nk_plan_get_days (plan), 300e9 / out (plan, "tokens-per-s") / 86400, 1e-12);
}

/* Full recompute costs about 1.3× the step of none (Korthikanti et al. 2022
 * measured 1.33–1.36× of selective over their models), and ZeRO-3 at one
 * sequence per micro-batch on many GPUs falls far below PTD-P (Narayanan et al.
 * 2021, section 5.2). */
static void
test_published_shapes (void)
{
  g_autoptr(NkPlan) plan = gpt3_plan ();
  g_autoptr(NkPlan) zero3 = nk_plan_new ();
  double none, full, ptdp;

  g_object_set (plan, "sequence-parallel", TRUE, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  none = out (plan, "time-per-step");
  ptdp = out (plan, "mfu-model");
  g_object_set (plan, "recompute", NK_RECOMPUTE_FULL, NULL);
  full = out (plan, "time-per-step");
  g_test_message ("full / selective step: %.3f", full / none);
  g_assert_cmpfloat (full / none, >, 1.2);
  g_assert_cmpfloat (full / none, <, 1.45);

  g_object_set (zero3, "gpu", "a100-sxm-80", "gpus", 1536.0, "params", 1.0, "tokens", 300e9,
                "layers", 96.0, "d-model", 12288.0, "heads", 96.0, "vocab", 51200.0, "seq", 2048.0,
                "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 3, "global-batch", 1536,
                "micro-batch", 1, "recompute", NK_RECOMPUTE_FULL, NULL);
  g_test_message ("ZeRO-3 MFU %.3f vs PTD-P %.3f", out (zero3, "mfu-model"), ptdp);
  g_assert_cmpfloat (out (zero3, "mfu-model"), <, ptdp / 2);
}


/* The fewest whole nodes for a deadline that also fit, against a brute force
 * over GPU counts through the object itself (days = tokens / tokens per second). */
static void
test_layout_deadline (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  g_autoptr(NkPlan) probe = nk_plan_new ();
  double expected = NAN;

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 64.0, "tokens", 2e12, "layers", 32.0, "d-model", 4096.0,
                "heads", 32.0, "vocab", 32000.0, "seq", 4096.0, "global-batch", 512, "micro-batch", 1,
                "tp", 2, "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 1, "deadline-days", 20.0, NULL);
  g_object_set (probe, "gpu", "h100-sxm", "tokens", 2e12, "layers", 32.0, "d-model", 4096.0,
                "heads", 32.0, "vocab", 32000.0, "seq", 4096.0, "global-batch", 512, "micro-batch", 1,
                "tp", 2, "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 1, NULL);
  for (double gpus = 2; gpus <= 1024 && isnan (expected); gpus += 2)
    {
      g_object_set (probe, "gpus", gpus, NULL);
      if ((gpus > 8 && fmod (gpus, 8) != 0) || !nk_plan_get_valid (probe) || !nk_plan_get_fits (probe))
        continue;
      if (2e12 / nk_plan_get_output (probe, "tokens-per-s") / 86400 <= 20)
        expected = gpus;
    }
  g_assert_true (isfinite (expected));
  g_assert_cmpfloat (nk_plan_get_output (plan, "layout-gpus-for-deadline"), ==, expected);
  g_assert_cmpfloat (nk_plan_get_output (plan, "layout-days-for-deadline"), <=, 20);

  g_object_set (plan, "deadline-days", 0.01, NULL);   /* nothing this batch allows is that fast */
  g_assert_true (isnan (nk_plan_get_output (plan, "layout-gpus-for-deadline")));
  g_assert_nonnull (strstr (nk_plan_get_formula (plan, "layout-gpus-for-deadline"), "No DP"));
}

/* ---------------------------------------------------------------- search */

/* --best-layout against a brute force through the object's properties: no
 * layout of the same grid that fits is faster. */
static void
test_best_layout (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  g_autoptr(NkPlan) probe = nk_plan_new ();
  double best = INFINITY;

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 64.0, "tokens", 1e12, "layers", 32.0,
                "d-model", 4096.0, "heads", 32.0, "vocab", 32000.0, "seq", 4096.0,
                "precision", NK_PRECISION_BF16_MIXED, "global-batch", 256, "best-layout", TRUE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_true (nk_plan_get_fits (plan));

  g_object_set (probe, "gpu", "h100-sxm", "gpus", 64.0, "tokens", 1e12, "layers", 32.0,
                "d-model", 4096.0, "heads", 32.0, "vocab", 32000.0, "seq", 4096.0,
                "precision", NK_PRECISION_BF16_MIXED, "global-batch", 256, NULL);
  for (int tp = 1; tp <= 8; tp *= 2)
    for (int pp = 1; pp <= 32; pp *= 2)
      for (int micro = 1; micro <= 64; micro *= 2)
        for (int rc = 0; rc <= 2; rc++)
          for (int zero = 0; zero <= 3; zero++)
            {
              g_object_set (probe, "tp", tp, "pp", pp, "micro-batch", micro, "recompute", rc,
                            "zero-stage", zero, "sequence-parallel", tp > 1, NULL);
              if (nk_plan_get_valid (probe) && nk_plan_get_fits (probe))
                best = MIN (best, out (probe, "time-per-step"));
            }
  g_assert_true (isfinite (best));
  g_assert_cmpfloat (out (plan, "time-per-step"), <=, best);
}


/* --best-layout with experts against an exhaustive enumeration written here:
 * a MoE of 64 experts of 8192 on 8 H100s, every TP, PP, micro-batch,
 * recompute, ZeRO stage, EP and ETP (1 or TP, the search's grid) set through
 * the object's properties and kept when the plan calls it valid and fitting. The search's step is the
 * fastest of them, and the fastest needs an expert grid other than the given
 * EP 1 × ETP 1 (a search that keeps the given grid fails here). The CLI
 * reports the same EP and ETP. */
static void
test_best_layout_experts (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  g_autoptr(NkPlan) probe = nk_plan_new ();
  static const char *const args[] = {
    "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "100B", "--mfu", "auto", "--json",
    "--layers", "4", "--d-model", "2048", "--heads", "16", "--ffn", "swiglu",
    "--d-ff", "8192", "--vocab", "32000", "--seq", "2048", "--global-batch", "16",
    "--precision", "mixed", "--experts", "64", "--experts-per-token", "4",
    "--expert-d-ff", "8192", "--best-layout", NULL,
  };
  g_auto(NkTestRun) run = { 0 };
  g_autofree char *want = NULL;
  double best = INFINITY;
  int best_ep = 0, best_etp = 0;

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 8.0, "tokens", 1e11, "layers", 4.0,
                "d-model", 2048.0, "heads", 16.0, "ffn", NK_FFN_SWIGLU, "d-ff", 8192.0,
                "vocab", 32000.0, "seq", 2048.0, "tied-embeddings", FALSE,
                "experts", 64, "experts-per-token", 4, "expert-d-ff", 8192,
                "precision", NK_PRECISION_BF16_MIXED, "global-batch", 16, NULL);
  g_object_set (probe, "gpu", "h100-sxm", "gpus", 8.0, "tokens", 1e11, "layers", 4.0,
                "d-model", 2048.0, "heads", 16.0, "ffn", NK_FFN_SWIGLU, "d-ff", 8192.0,
                "vocab", 32000.0, "seq", 2048.0, "tied-embeddings", FALSE,
                "experts", 64, "experts-per-token", 4, "expert-d-ff", 8192,
                "precision", NK_PRECISION_BF16_MIXED, "global-batch", 16, NULL);
  g_object_set (plan, "best-layout", TRUE, NULL);
  for (int tp = 1; tp <= 8; tp *= 2)
    for (int pp = 1; pp <= 4; pp *= 2)
      for (int micro = 1; micro <= 16; micro *= 2)
        for (int rc = 0; rc <= 2; rc++)
          for (int zero = 0; zero <= 3; zero++)
            for (int ep = 1; ep <= 64; ep *= 2)
              for (int etp = 1; etp <= tp; etp = etp == 1 && tp > 1 ? tp : 2 * tp)
                {
                  g_object_set (probe, "tp", tp, "pp", pp, "micro-batch", micro, "recompute", rc,
                                "zero-stage", zero, "sequence-parallel", tp > 1, "ep", ep,
                                "etp", etp, NULL);
                  if (nk_plan_get_valid (probe) && nk_plan_get_fits (probe)
                      && out (probe, "time-per-step") < best)
                    {
                      best = out (probe, "time-per-step");
                      best_ep = ep;
                      best_etp = etp;
                    }
                }
  g_test_message ("enumerated best step %.6f s at EP %d ETP %d; searched %.6f s",
                  best, best_ep, best_etp, out (plan, "time-per-step"));
  g_assert_true (isfinite (best));
  g_assert_cmpint (best_ep * best_etp, >, 1);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "time-per-step"), ==, best);
  /* the plan's own outputs name the grid the enumeration found */
  g_assert_cmpfloat (out (plan, "layout-ep"), ==, best_ep);
  g_assert_cmpfloat (out (plan, "layout-etp"), ==, best_etp);

  /* the CLI reports the chosen EP in its JSON and its text */
  if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
    return;
  g_assert_cmpint (run.status, ==, 0);
  want = g_strdup_printf ("\"ep\":%d,\"etp\":%d}", best_ep, best_etp);
  g_assert_nonnull (strstr (run.out, want));
  g_assert_nonnull (strstr (run.out, "\"searched\":true"));
}


/* No layout fits: an answer that does not exist (exit 1), one sentence. */
static void
test_best_layout_none (void)
{
  g_auto(NkTestRun) run = { 0 };
  const char *args[] = { "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "auto",
                         "--layers", "128", "--d-model", "25600", "--heads", "160", "--seq", "2048",
                         "--global-batch", "64", "--best-layout", NULL };

  if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
    return;
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_true (g_str_has_prefix (run.err, "napkin-cli: --best-layout: No layout"));
}

/* ---------------------------------------------------------------- asked, not planned */

/* Issue 21: a layout input, or MFU auto, that the cluster model cannot serve
 * makes the plan invalid under that input (the page's row turns red), never a
 * plan that silently answers without it. Oracle: the rules as CLI.md states
 * them (TP × PP × CP × DP = GPUs; heads a multiple of TP). */
static void
test_asked_not_planned (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  /* the lecture's question: valid, no layout */
  g_object_set (plan, "params", 7e9, "tokens", 1e12, "gpus", 8.0, "mfu", 0.5, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_object_set (plan, "mfu-auto", TRUE, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "mfu-auto");
  g_assert_true (isnan (out (plan, "days")));
  g_assert_true (isnan (out (plan, "mfu-used")));

  g_object_set (plan, "mfu-auto", FALSE, "tp", 3, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "tp");
  g_assert_nonnull (strstr (nk_plan_get_error (plan), "3 × 1 × 1 × 2 = 6, not 8"));

  g_object_set (plan, "tp", 8, "heads", 4.0, NULL);
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "tp");
  g_assert_nonnull (strstr (nk_plan_get_error (plan), "4 heads must be a multiple of TP 8"));

  /* rules kept, shape missing: said, under the input that asked */
  g_object_set (plan, "heads", 0.0, "tp", 2, NULL);
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "tp");
  g_assert_nonnull (strstr (nk_plan_get_error (plan), "shape"));

  /* back to the defaults: the lecture's answer again */
  g_object_set (plan, "tp", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "days"), 6 * 7e9 * 1e12 / (989.5e12 * 0.5 * 8 * 86400), 1e-12);
}

/* ---------------------------------------------------------------- export */

/* The CLI's --export writes what nk_launch_write() writes for the plan's spec,
 * and that spec carries the plan's layout. */
static void
test_export_same_bytes (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_auto(NkTestRun) run = { 0 };
  const char *args[] = { "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "auto",
                         "--layers", "32", "--d-model", "4096", "--heads", "32", "--kv-heads", "8",
                         "--ffn", "swiglu", "--d-ff", "14336", "--vocab", "128256", "--seq", "8192",
                         "--global-batch", "512", "--micro-batch", "2", "--tp", "2", "--pp", "2",
                         "--sequence-parallel", "--precision", "mixed", "--zero", "1",
                         "--recompute", "selective", "--export", "megatron", NULL };
  NkLaunchSpec spec;

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 64.0, "tokens", 1e12, "mfu-auto", TRUE,
                "layers", 32.0, "d-model", 4096.0, "heads", 32.0, "kv-heads", 8, "ffn", NK_FFN_SWIGLU,
                "d-ff", 14336.0, "vocab", 128256.0, "seq", 8192.0, "global-batch", 512,
                "micro-batch", 2, "tp", 2, "pp", 2, "sequence-parallel", TRUE,
                "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 1,
                "recompute", NK_RECOMPUTE_SELECTIVE, "tied-embeddings", FALSE, NULL);
  g_object_set (plan, "params", out (plan, "shape-params"), NULL);
  g_assert_true (nk_plan_get_launch_spec (plan, &spec, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (spec.dp, ==, 16);
  g_assert_cmpuint (spec.grad_accum, ==, 16);   /* 512 / (2 × 16) */
  g_assert_cmpuint (spec.train_steps, ==, (guint64) ceil (1e12 / (512.0 * 8192)));
  text = nk_launch_write (&spec, NK_LAUNCH_ENGINE_MEGATRON, &error);
  g_assert_no_error (error);

  if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, text);
  g_assert_nonnull (strstr (run.out, "--tensor-model-parallel-size 2"));
  g_assert_nonnull (strstr (run.out, "--num-query-groups 8"));

  /* A valid plan an engine cannot run (torchtitan's llama3 has no GELU): exit 1,
   * the engine's rule in one sentence, nothing on standard output. */
  {
    g_auto(NkTestRun) refused = { 0 };
    const char *gelu[] = { "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "0.5",
                           "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "4096",
                           "--global-batch", "512", "--zero", "1", "--export", "torchtitan", NULL };

    g_assert_true (nk_test_run_cli (&refused, "plan", gelu, NULL, 0));
    g_assert_cmpint (refused.status, ==, 1);
    g_assert_true (g_str_has_prefix (refused.err, "napkin-cli: --export torchtitan: "));
    g_assert_cmpuint (refused.out_len, ==, 0);
  }
}


/* ---------------------------------------------------------------- experts */

/* Parameter counts derived by hand from each model's published config.json
 * (Hugging Face), never from the planner: per layer, attention
 * 2·h·(a·dh) + 2·h·(kv·dh), two RMSNorm weights 2·h, the router E·h (no bias
 * in any of the three), E experts of 3·h·F (SwiGLU); embedding and untied head
 * V·h each, final norm h. Active: K experts instead of E.
 *
 * Mixtral-8x7B-v0.1 (h 4096, 32 layers, 32 heads of 128, 8 KV heads,
 * intermediate 14336, 8 experts top-2, V 32000, untied):
 *   attention 2·4096·4096 + 2·4096·1024 = 33,554,432 + 8,388,608 = 41,943,040
 *   expert 3·4096·14336 = 176,160,768; × 8 = 1,409,286,144; router 32,768; norms 8,192
 *   layer 1,451,270,144 × 32 = 46,440,644,608; + 2·131,072,000 + 4,096 = 46,702,792,704
 *   active layer 41,943,040 + 2·176,160,768 + 32,768 + 8,192 = 394,305,536
 *   × 32 = 12,617,777,152; + 262,148,096 = 12,879,925,248 (published: 46.7B, 12.9B)
 * Qwen3-30B-A3B (h 2048, 48 layers, 32 heads × head_dim 128, 4 KV heads,
 * 128 experts of 768, top-8, V 151936, untied):
 *   attention 2·2048·4096 + 2·2048·512 = 16,777,216 + 2,097,152 = 18,874,368
 *   expert 3·2048·768 = 4,718,592; × 128 = 603,979,776; router 262,144; norms 4,096
 *   layer 623,120,384 × 48 = 29,909,778,432; + 2·311,164,928 + 2,048 = 30,532,110,336
 *   active layer 18,874,368 + 8·4,718,592 + 262,144 + 4,096 = 56,889,344
 *   × 48 = 2,730,688,512; + 622,331,904 = 3,353,020,416 (published: 30.5B, 3.3B)
 * Qwen3-235B-A22B (h 4096, 94 layers, 64 heads × 128, 4 KV heads, 128 experts
 * of 1536, top-8, V 151936, untied):
 *   attention 2·4096·8192 + 2·4096·512 = 67,108,864 + 4,194,304 = 71,303,168
 *   expert 3·4096·1536 = 18,874,368; × 128 = 2,415,919,104; router 524,288; norms 8,192
 *   layer 2,487,754,752 × 94 = 233,848,946,688; + 2·622,329,856 + 4,096 = 235,093,610,496
 *   active layer 71,303,168 + 8·18,874,368 + 524,288 + 8,192 = 222,830,592
 *   × 94 = 20,946,075,648; + 1,244,663,808 = 22,190,739,456 (published: 235B, 22B)
 * Qwen3's q_norm and k_norm (an RMSNorm of head_dim each, per layer) are not
 * counted: the planner has no flag for them; the checkpoints hold 2·128·L more
 * (30,532,122,624 and 235,093,634,560), 4 · 10⁻⁷ of the total. */
static void
test_moe_params (void)
{
  static const struct {
    const char *name;
    double L, h, a, dh, kv, F, E, K, V, total, active;
  } models[] = {
    { "Mixtral 8x7B", 32, 4096, 32, 0, 8, 14336, 8, 2, 32000, 46702792704.0, 12879925248.0 },
    { "Qwen3-30B-A3B", 48, 2048, 32, 128, 4, 768, 128, 8, 151936, 30532110336.0, 3353020416.0 },
    { "Qwen3-235B-A22B", 94, 4096, 64, 128, 4, 1536, 128, 8, 151936, 235093610496.0, 22190739456.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autoptr(NkPlan) plan = nk_plan_new ();

      g_test_message ("%s", models[i].name);
      g_object_set (plan, "layers", models[i].L, "d-model", models[i].h, "heads", models[i].a,
                    "head-dim", (int) models[i].dh, "kv-heads", (int) models[i].kv, "ffn", NK_FFN_SWIGLU,
                    "d-ff", models[i].F, "vocab", models[i].V, "seq", 4096.0, "tied-embeddings", FALSE,
                    "experts", (int) models[i].E, "experts-per-token", (int) models[i].K, NULL);
      g_assert_true (nk_plan_get_valid (plan));
      g_assert_cmpfloat (out (plan, "shape-params"), ==, models[i].total);
      g_assert_cmpfloat (out (plan, "shape-params-active"), ==, models[i].active);
      /* --expert-d-ff given instead of --d-ff: the same model */
      g_object_set (plan, "d-ff", 0.0, "expert-d-ff", (int) models[i].F, NULL);
      g_assert_cmpfloat (out (plan, "shape-params"), ==, models[i].total);
    }
}

/* Mixtral's model FLOPs per token at s = 4096 count the active weights: per
 * layer 41,943,040 attention + 32,768 router + 2 · 176,160,768 experts =
 * 394,297,344; × 32 = 12,617,515,008; + V·h 131,072,000 = 12,748,587,008;
 * × 6 = 76,491,522,048; attention 12 · 32 · 4096 · (32 · 128) = 6,442,450,944;
 * sum 82,933,972,992 — where 6 × the total would be 280 · 10⁹. The days'
 * 6·N·tokens takes --params (the total) times active / total. */
static void
test_moe_flops (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 64.0, "params", 46702792704.0, "tokens", 1e12,
                "layers", 32.0, "d-model", 4096.0, "heads", 32.0, "kv-heads", 8, "ffn", NK_FFN_SWIGLU,
                "d-ff", 14336.0, "vocab", 32000.0, "seq", 4096.0, "tied-embeddings", FALSE,
                "experts", 8, "experts-per-token", 2, "ep", 8, "precision", NK_PRECISION_BF16_MIXED,
                "global-batch", 256, "micro-batch", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "model-flops-per-token"), ==, 82933972992.0);
  REL (out (plan, "total-flops"), 6.0 * 12879925248.0 * 1e12, 1e-12);
}

/* A small MoE laid out by hand: 4 layers, h 1024, 8 heads, SwiGLU experts of
 * 4096, 8 experts top-2, V 1000 untied, bf16 mixed precision, AdamW, ZeRO-1,
 * 8 GPUs as DP 8 with EP 4 (expert DP = 8 / 4 = 2).
 * Per GPU, outside the routed experts: 4 · (4 · 1024² attention + 2048 norms +
 * 8 · 1024 router) + 2 · 1000 · 1024 + 1024 = 18,867,200; routed experts:
 * 4 layers × 8/4 experts × 3 · 1024 · 4096 = 100,663,296.
 * params 2 B × 119,530,496 = 239,060,992; grads (bf16) the same;
 * optimizer 12 B × (18,867,200 / 8 + 100,663,296 / 2) = 632,280,576. */
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

static void
test_moe_memory (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();

  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "memory-max-params"), ==, 239060992.0);
  g_assert_cmpfloat (out (plan, "memory-max-grads"), ==, 239060992.0);
  g_assert_cmpfloat (out (plan, "memory-max-optimizer"), ==, 632280576.0);
  /* EP 8: one expert of each layer per GPU, expert DP 1 */
  g_object_set (plan, "ep", 8, NULL);
  g_assert_cmpfloat (out (plan, "memory-max-params"), ==, 2 * (18867200.0 + 4 * 12582912.0));
  g_assert_cmpfloat (out (plan, "memory-max-optimizer"), ==, 12 * (18867200.0 / 8 + 4 * 12582912.0));
}

/* The routed experts' share of the most loaded GPU's memory, counted by hand
 * from small_moe_plan()'s comment: 100,663,296 expert parameters per GPU at
 * EP 4; params 2 B and grads (bf16) 2 B each; the optimizer's 12 B over the
 * expert DP group of 2 (ZeRO-1). At EP 8 50,331,648 of them over an expert DP
 * of 1; at ZeRO-3 (EP 4) params and grads over the group of 2 as well. A dense
 * model holds none. */
static void
test_moe_memory_experts (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();
  double ne = 100663296.0;

  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "memory-max-expert-params"), ==, 2 * ne);
  g_assert_cmpfloat (out (plan, "memory-max-expert-grads"), ==, 2 * ne);
  g_assert_cmpfloat (out (plan, "memory-max-expert-optimizer"), ==, 12 * ne / 2);
  /* the rest of each bucket is the 18,867,200 parameters outside them */
  g_assert_cmpfloat (out (plan, "memory-max-params") - out (plan, "memory-max-expert-params"), ==, 2 * 18867200.0);
  g_object_set (plan, "ep", 8, NULL);
  g_assert_cmpfloat (out (plan, "memory-max-expert-params"), ==, 2 * ne / 2);
  g_assert_cmpfloat (out (plan, "memory-max-expert-optimizer"), ==, 12 * ne / 2);
  g_object_set (plan, "ep", 4, "zero-stage", 3, NULL);
  g_assert_cmpfloat (out (plan, "memory-max-expert-params"), ==, 2 * ne / 2);
  g_assert_cmpfloat (out (plan, "memory-max-expert-grads"), ==, 2 * ne / 2);
  g_object_set (plan, "experts", 0, "ep", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "memory-max-expert-params"), ==, 0);
  g_assert_cmpfloat (out (plan, "memory-max-expert-optimizer"), ==, 0);
}

/* layout-ep and layout-etp are what the JSON report's layout says: the typed
 * grid (EP 2 × ETP 2 at TP 2, given here) and, with --best-layout, the
 * searched one; a dense model's is 1 × 1. */
static void
test_layout_experts_outputs (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();

  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;
      JsonObject *layout;

      if (round == 0)
        g_object_set (plan, "tp", 2, "ep", 2, "etp", 2, NULL);
      else if (round == 1)
        g_object_set (plan, "best-layout", TRUE, NULL);
      else
        g_object_set (plan, "best-layout", FALSE, "tp", 1, "experts", 0, "ep", 1, "etp", 1, NULL);
      g_assert_true (nk_plan_get_valid (plan));
      nk_plan_build_json (plan, builder, NK_PLAN_JSON_NONE);
      root = json_builder_get_root (builder);
      layout = json_object_get_object_member (json_node_get_object (root), "layout");
      g_test_message ("round %u: EP %g ETP %g", round, out (plan, "layout-ep"), out (plan, "layout-etp"));
      g_assert_cmpfloat (out (plan, "layout-ep"), ==, json_object_get_int_member (layout, "ep"));
      g_assert_cmpfloat (out (plan, "layout-etp"), ==, json_object_get_int_member (layout, "etp"));
      if (round == 0)
        {
          g_assert_cmpfloat (out (plan, "layout-ep"), ==, 2);
          g_assert_cmpfloat (out (plan, "layout-etp"), ==, 2);
        }
      /* the search left the typed 2 × 2 */
      if (round == 1)
        g_assert_true (out (plan, "layout-ep") != 2 || out (plan, "layout-etp") != 2);
      if (round == 2)
        g_assert_cmpfloat (out (plan, "layout-ep") * out (plan, "layout-etp"), ==, 1);
    }
}

/* The expert all-to-alls in closed form: one micro-batch per GPU, 4 MoE layers,
 * 4 all-to-alls each (dispatch and combine, forward and backward), each sending
 * s·b·K·h·2 B = 1024 · 2 · 1024 · 2 = 4,194,304 B of which (4 − 1)/4 leave the
 * GPU: 16 × 0.75 × 4,194,304 / (0.8 × 400e9) on NVLink (DeepEP's measured
 * all-to-all ceiling, 0.8 of the link); across NVLink domains of 2 GPUs (4
 * of the 8 experts each), NCCL sends the (4 − 2)/4 of the copies bound for
 * the other domain; DeepEP sends a token once there when one of its K = 2
 * experts is: missed with probability C(4, 2)/C(8, 2)
 * = 6/28, so 22/28 of a copy, 11/28 of the K copies' bytes; either over the
 * network's 50e9 (the 1/4 to the domain's other GPU rides NVLink at the same
 * time, faster);
 * imbalance 1.5 sends 1.5 × as much;
 * full recompute dispatches and combines again (6). */
static void
test_moe_ep_comm (void)
{
  g_autoptr(NkPlan) plan = small_moe_plan ();
  double one = 0.75 * 4194304.0;

  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "time-ep-comm"), 16 * one / (0.8 * 400e9), 1e-12);
  g_object_set (plan, "nvlink-domain", 2, NULL);
  REL (out (plan, "time-ep-comm"), 16 * 0.5 * 4194304.0 / 50e9, 1e-12);
  g_object_set (plan, "deepep", TRUE, NULL);
  REL (out (plan, "time-ep-comm"), 16 * 11.0 / 28 * 4194304.0 / 50e9, 1e-12);
  g_object_set (plan, "nvlink-domain", 0, "deepep", FALSE, "expert-imbalance", 1.5, NULL);
  REL (out (plan, "time-ep-comm"), 1.5 * 16 * one / (0.8 * 400e9), 1e-12);
  g_object_set (plan, "expert-imbalance", 1.0, "recompute", NK_RECOMPUTE_FULL, NULL);
  REL (out (plan, "time-ep-comm"), 24 * one / (0.8 * 400e9), 1e-12);
  /* exposed: part of the step's exposed communication */
  g_assert_cmpfloat (out (plan, "time-exposed-comm"), >=, out (plan, "time-ep-comm"));
  /* EP 1: no all-to-all */
  g_object_set (plan, "ep", 1, NULL);
  g_assert_cmpfloat (out (plan, "time-ep-comm"), ==, 0);
}

/* --head-dim and --ffn relu2 on dense shapes, counted by hand.
 * Nemotron-4 15B (Parmar et al. 2024: h 6144, 32 layers, 48 heads, 8 KV heads,
 * squared-ReLU FFN of 24576 without gate, V 256000, untied): attention
 * 2·6144² + 2·6144·1024 = 75,497,472 + 12,582,912 = 88,080,384; FFN 2·6144·24576
 * = 301,989,888; norms 12,288 (weights only); layer 390,082,560 × 32 =
 * 12,482,641,920; + 2·1,572,864,000 + 6,144 = 15,628,376,064 (published:
 * 12.5B non-embedding + 3.2B embedding).
 * A head wider than h/a: h 1024, 8 heads of 256, 2 KV heads, SwiGLU 2048,
 * V 1000 untied, 2 layers: attention 2·1024·2048 + 2·1024·512 = 5,242,880;
 * FFN 3·1024·2048 = 6,291,456; norms 2048; layer 11,536,384 × 2 = 23,072,768;
 * + 2,048,000 + 1024 = 25,121,792. */
static void
test_head_dim_relu2 (void)
{
  g_autoptr(NkPlan) nemotron = nk_plan_new ();
  g_autoptr(NkPlan) wide = nk_plan_new ();

  g_object_set (nemotron, "layers", 32.0, "d-model", 6144.0, "heads", 48.0, "kv-heads", 8,
                "ffn", NK_FFN_RELU2, "d-ff", 24576.0, "vocab", 256000.0, "seq", 4096.0,
                "tied-embeddings", FALSE, NULL);
  g_assert_cmpfloat (out (nemotron, "shape-params"), ==, 15628376064.0);
  g_assert_cmpfloat (out (nemotron, "shape-params-active"), ==, 15628376064.0);

  g_object_set (wide, "layers", 2.0, "d-model", 1024.0, "heads", 8.0, "head-dim", 256, "kv-heads", 2,
                "ffn", NK_FFN_SWIGLU, "d-ff", 2048.0, "vocab", 1000.0, "seq", 1024.0,
                "tied-embeddings", FALSE, NULL);
  g_assert_cmpfloat (out (wide, "shape-params"), ==, 25121792.0);
}

/* Each expert rule refuses with exit 2 and one sentence under the flag a person
 * would change. */
static void
test_moe_flag_errors (void)
{
  static const struct { const char *extra[4]; const char *blamed; } cases[] = {
    { { "--experts-per-token", "9", NULL }, "--experts-per-token" },   /* K > E */
    { { "--ep", "3", NULL }, "--ep" },                                /* 8 % 3 */
    { { "--ep", "8", "--pp", "2" }, "--ep" },                         /* TP·CP·DP 4 % 8 */
    { { "--ep", "8", "--etp", "2" }, "--etp" },                       /* 8 % (8 · 2) */
    { { "--etp", "3", NULL }, "--etp" },                              /* 8 % (1 · 3) */
    { { "--dense-layers", "4", NULL }, "--dense-layers" },            /* no MoE layer left */
    { { "--expert-imbalance", "0.5", NULL }, "--expert-imbalance" },  /* below the mean */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      static const char *const base[] = {
        "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "auto",
        "--layers", "4", "--d-model", "1024", "--heads", "8", "--ffn", "swiglu",
        "--d-ff", "4096", "--vocab", "1000", "--seq", "1024",
        "--global-batch", "8", "--micro-batch", "1", "--experts", "8",
      };
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      g_autofree char *prefix = g_strdup_printf ("napkin-cli: %s:", cases[i].blamed);

      for (guint j = 0; j < G_N_ELEMENTS (base); j++)
        g_ptr_array_add (args, (gpointer) base[j]);
      if (g_strcmp0 (cases[i].extra[0], "--experts-per-token") != 0)
        {
          g_ptr_array_add (args, (gpointer) "--experts-per-token");
          g_ptr_array_add (args, (gpointer) "2");
        }
      for (guint j = 0; j < G_N_ELEMENTS (cases[i].extra) && cases[i].extra[j] != NULL; j++)
        g_ptr_array_add (args, (gpointer) cases[i].extra[j]);
      g_ptr_array_add (args, NULL);
      if (!nk_test_run_cli (&run, "plan", (const char **) args->pdata, NULL, 0))
        return;
      g_test_message ("%s %s: %s", cases[i].extra[0], cases[i].extra[1], run.err);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_true (g_str_has_prefix (run.err, prefix));
    }
  /* the experts' flags without --experts, and --experts without its top-K */
  for (guint i = 0; i < 2; i++)
    {
      g_auto(NkTestRun) run = { 0 };
      const char *args[] = { "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "0.4",
                             "--layers", "4", "--d-model", "1024", "--heads", "8",
                             i == 0 ? "--ep" : "--experts", i == 0 ? "2" : "8", NULL };

      if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
        return;
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, i == 0 ? "--ep describes a mixture of experts"
                                                : "--experts needs --experts-per-token"));
    }
}

/* Megatron-Core's MoE parallel folding (core/parallel_state.py: the expert grid
 * ETP × EP × expert-DP spans each stage's TP × CP × DP GPUs): EP 8 over TP 2 ×
 * DP 4 plans, as NVIDIA's Qwen3-235B runs with EP 32 over TP 2 × DP 16 do, and its
 * experts' data-parallel group is TP · DP / (EP · ETP) = 1. --ep alone asks for a
 * layout: a broken expert rule is refused even when nothing else about the
 * layout was typed. */
static void
test_moe_parallel_folding (void)
{
  static const char *const folded[] = {
    "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "auto", "--json",
    "--layers", "4", "--d-model", "1024", "--heads", "8", "--ffn", "swiglu",
    "--d-ff", "4096", "--vocab", "1000", "--seq", "1024", "--global-batch", "8",
    "--micro-batch", "1", "--experts", "8", "--experts-per-token", "2", "--tp", "2", "--ep", "8", NULL,
  };
  static const char *const alone[] = {
    "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "0.4",
    "--layers", "4", "--d-model", "1024", "--heads", "8", "--ffn", "swiglu",
    "--d-ff", "4096", "--experts", "8", "--experts-per-token", "2", "--ep", "3", NULL,
  };
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) refused = { 0 };

  if (!nk_test_run_cli (&run, "plan", folded, NULL, 0))
    return;
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\"ep\":8"));
  g_assert_nonnull (strstr (run.out, "\"dp\":4"));
  if (!nk_test_run_cli (&refused, "plan", alone, NULL, 0))
    return;
  g_assert_cmpint (refused.status, ==, 2);
  g_assert_true (g_str_has_prefix (refused.err, "napkin-cli: --ep:"));
}

/* ZeRO shards over DP × CP: Megatron-Core's distributed optimizer and gradient
 * buffers use the DP × CP group (distributed/distributed_data_parallel.py,
 * intra_dp_cp_group), torchtitan's FSDP2 its dp_shard_cp mesh. With CP 2 and
 * DP 1 each GPU keeps half the fp32 master and Adam moments (12 B a parameter,
 * over the 2 B of its bf16 weights: 6 × the params bucket / 2) and, under ZeRO-3,
 * half the weights of CP 1's. */
static NkPlan *small_recipe_plan (const char *gpu);

static void
test_zero_shards_over_cp (void)
{
  g_autoptr(NkPlan) plan = small_recipe_plan ("h100-sxm");
  double whole;

  g_object_set (plan, "gpus", 2.0, "cp", 2, "zero-stage", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "memory-max-optimizer"), out (plan, "memory-max-params") * 6 / 2, 1e-12);
  whole = out (plan, "memory-max-params");
  g_object_set (plan, "zero-stage", 3, NULL);
  REL (out (plan, "memory-max-params"), whole / 2, 1e-12);
}

/* ---------------------------------------------------------------- latent attention */

/* DeepSeek-V3 counted by hand from its config.json (Hugging Face
 * deepseek-ai/DeepSeek-V3: hidden_size 7168, 61 layers, first_k_dense_replace 3
 * with intermediate_size 18432, 256 routed experts of moe_intermediate_size
 * 2048, num_experts_per_tok 8, 1 shared expert, vocab 129280 untied, 128 heads,
 * q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim
 * 64, v_head_dim 128; modeling_deepseek.py's layers, no biases):
 *   attention q_a_proj 7168·1536 = 11,010,048; q_a_layernorm 1,536;
 *     q_b_proj 1536·128·(128 + 64) = 37,748,736; kv_a_proj_with_mqa
 *     7168·(512 + 64) = 4,128,768; kv_a_layernorm 512; kv_b_proj
 *     512·128·(128 + 128) = 16,777,216; o_proj 128·128·7168 = 117,440,512;
 *     sum 187,107,328
 *   norms 2·7168 = 14,336; dense FFN 3·7168·18432 = 396,361,728
 *   dense layer 583,483,392 × 3 = 1,750,450,176
 *   expert 3·7168·2048 = 44,040,192; 256 routed 11,274,289,152; 1 shared
 *     44,040,192; router 256·7168 = 1,835,008
 *   MoE layer 11,507,286,016 × 58 = 667,422,588,928
 *   embedding + head 2·129280·7168 = 1,853,358,080; final norm 7,168
 *   total 671,026,404,352
 *   active MoE layer 187,107,328 + 14,336 + 9·44,040,192 + 1,835,008
 *     = 585,318,400 × 58 = 33,948,467,200; active 37,552,282,624
 * The checkpoint holds 58 · 256 = 14,848 more: each MoE layer's
 * e_score_correction_bias, which the bias-update rule moves, not the optimizer
 * (the planner leaves it out, as the router's note in nk-plan-cluster.c says):
 * 671,026,419,200 and 37,552,297,472 with it. The MTP module (14B) is not part
 * of the 671B either. Published: 671B total, 37B active (DeepSeek-V3 report). */
static NkPlan *
deepseek_v3_plan (void)
{
  NkPlan *plan = nk_plan_new ();

  g_object_set (plan, "layers", 61.0, "d-model", 7168.0, "heads", 128.0, "ffn", NK_FFN_SWIGLU,
                "d-ff", 18432.0, "vocab", 129280.0, "seq", 4096.0, "tied-embeddings", FALSE,
                "experts", 256, "experts-per-token", 8, "shared-experts", 1, "expert-d-ff", 2048,
                "dense-layers", 3, "attention", NK_ATTENTION_MLA, "q-lora-rank", 1536,
                "kv-lora-rank", 512, "qk-nope-head-dim", 128, "qk-rope-head-dim", 64,
                "v-head-dim", 128, NULL);
  return plan;
}

static void
test_mla_params (void)
{
  g_autoptr(NkPlan) plan = deepseek_v3_plan ();

  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "shape-attention-params"), ==, 187107328.0);
  g_assert_cmpfloat (out (plan, "shape-params"), ==, 671026404352.0);
  g_assert_cmpfloat (out (plan, "shape-params-active"), ==, 37552282624.0);
  /* without Q's compression (DeepSeek-V2-Lite's shape): q_proj 7168·128·192
   * = 176,160,768 instead of 11,010,048 + 1,536 + 37,748,736 */
  g_object_set (plan, "q-lora-rank", 0, NULL);
  g_assert_cmpfloat (out (plan, "shape-attention-params"),
                     ==, 187107328.0 - 11010048 - 1536 - 37748736 + 176160768);
}

/* DeepSeek-V3's model FLOPs per token at s = 4096: the active matrices per
 * layer (attention's 187,107,328 less its two latent norms = 187,105,280;
 * dense FFN 396,361,728; MoE: router 1,835,008 + 9 experts 396,361,728):
 * 3 · 583,467,008 + 58 · 585,302,016 = 1,750,401,024 + 33,947,516,928
 * = 35,697,917,952, plus the output layer 926,679,040, × 6 = 219,747,581,952;
 * the attention core on the decompressed heads, 6 · 61 · 4096 · 128 ·
 * (192 + 128) = 61,404,610,560; sum 281,152,192,512. */
static void
test_mla_flops (void)
{
  g_autoptr(NkPlan) plan = deepseek_v3_plan ();

  g_object_set (plan, "gpu", "h800", "gpus", 64.0, "params", 671026404352.0, "tokens", 14.8e12,
                "precision", NK_PRECISION_BF16_MIXED, "ep", 64, "global-batch", 64, "micro-batch", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "model-flops-per-token"), ==, 281152192512.0);
}

/* One small MLA layer's stored activations by hand (bf16, p = 2; s = 1024,
 * b = 1, h = 1024, 8 heads, r_q 256, r_kv 128, d_nope 64, d_rope 32, d_v 64;
 * SwiGLU d_ff 2048; no dropout, FlashAttention):
 *   residual inputs 2·s·b·h·p = 4,194,304; norm outputs 4,194,304;
 *   statistics: two layer norms and two latent norms, 2 fp32 each per token,
 *     4 · 8 · 1024 = 32,768;
 *   latents before and after their norms 2·(256 + 128)·s·b·p = 1,572,864;
 *   Q and K 2 · 8 · 96 and V 8 · 64 values a token: 2048 · 2048 = 4,194,304;
 *   the core's output 8 · 64 · 2048 = 1,048,576;
 *   SwiGLU's 3 · 2048 values a token: 12,582,912;
 *   sum 27,820,032.
 * TP 2 without sequence parallelism halves only the heads and the FFN:
 * 4,194,304 · 2 + 32,768 + 1,572,864 + (4,194,304 + 1,048,576 + 12,582,912)/2
 * = 18,907,136; with it, everything: 13,910,016.
 * Parameters per GPU at TP 2 (bf16, 2 B each): a layer's split matrices
 * W_UQ 256·8·96 = 196,608, W_UKV 128·8·128 = 131,072, W_O 512·1024 = 524,288
 * halved (425,984), its down-projections 1024·256 + 1024·160 = 425,984 whole,
 * latent norms 384 and layer norms 2,048 whole, the FFN 6,291,456 halved:
 * 4,000,128 × 2 layers + embedding and head 2 · 1000 · 1024 / 2 + final norm
 * 1,024 = 9,025,280 → 18,050,560 B. */
static void
test_mla_memory (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 2.0, "params", 1.0, "tokens", 1e9,
                "layers", 2.0, "d-model", 1024.0, "heads", 8.0, "ffn", NK_FFN_SWIGLU, "d-ff", 2048.0,
                "vocab", 1000.0, "seq", 1024.0, "tied-embeddings", FALSE,
                "attention", NK_ATTENTION_MLA, "q-lora-rank", 256, "kv-lora-rank", 128,
                "qk-nope-head-dim", 64, "qk-rope-head-dim", 32, "v-head-dim", 64,
                "precision", NK_PRECISION_BF16_MIXED, "dropout", FALSE, "flash-attention", TRUE,
                "global-batch", 2, "micro-batch", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "activations-per-layer"), ==, 27820032.0);
  g_object_set (plan, "tp", 2, "global-batch", 1, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "activations-per-layer"), ==, 18907136.0);
  g_assert_cmpfloat (out (plan, "memory-max-params"), ==, 18050560.0);
  g_object_set (plan, "sequence-parallel", TRUE, NULL);
  g_assert_cmpfloat (out (plan, "activations-per-layer"), ==, 13910016.0);
}

/* Latent attention's flags: each error exit 2 with its sentence. */
static void
test_mla_flag_errors (void)
{
  static const struct { const char *extra[4]; const char *prefix; } cases[] = {
    { { "--kv-lora-rank", "512", NULL }, "napkin-cli: --kv-lora-rank describes latent attention" },
    { { "--attention", "mla", NULL }, "napkin-cli: --kv-lora-rank: Latent attention needs its KV rank" },
    { { "--attention", "mla", "--kv-lora-rank", "0" }, "napkin-cli: --kv-lora-rank: “0” is not a whole number" },
    { { "--attention", "gqa", NULL }, "napkin-cli: --attention: “gqa” is not one of mha, mla" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      const char *args[] = { "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "0.5",
                             "--layers", "4", "--d-model", "1024", "--heads", "8", "--seq", "1024",
                             "--ffn", "swiglu", "--d-ff", "2048", "--global-batch", "8",
                             cases[i].extra[0], cases[i].extra[1], cases[i].extra[2], cases[i].extra[3], NULL };

      if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
        return;
      g_test_message ("%s", run.err);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_true (g_str_has_prefix (run.err, cases[i].prefix));
      g_assert_true (strchr (run.err, '\n') == run.err + strlen (run.err) - 1);   /* one line */
    }
}

/* ---------------------------------------------------------------- recipes */

/* A small dense model on one GPU, worked by hand: 2 layers, h 1024, 8 heads
 * (MHA), SwiGLU d_ff 4096, V 1000 untied, s 1024, one sequence a step.
 * Linear weights 2 · (4·1024² + 3·1024·4096) = 2 · 16,777,216 = 33,554,432;
 * linear FLOPs per token 6 × that = 201,326,592. */
static NkPlan *
small_recipe_plan (const char *gpu)
{
  NkPlan *plan = nk_plan_new ();

  g_object_set (plan, "gpu", gpu, "gpus", 1.0, "params", 1.0, "tokens", 1e9,
                "layers", 2.0, "d-model", 1024.0, "heads", 8.0, "ffn", NK_FFN_SWIGLU, "d-ff", 4096.0,
                "vocab", 1000.0, "seq", 1024.0, "tied-embeddings", FALSE,
                "precision", NK_PRECISION_BF16_MIXED, "dropout", FALSE, "flash-attention", TRUE,
                "global-batch", 1, "micro-batch", 1, NULL);
  return plan;
}

/* The linear layers' FLOPs at the fp8 peak: with a typed efficiency e, the
 * compute time drops by tokens × linear FLOPs × (1 − 989.5/1979) / (989.5e12 ·
 * e); without one, a FLOP at fp8 takes the measured ceilings' ratio of a bf16
 * FLOP, 794.5/1402.6 on an H100 (Stas Bekman's table in gpus.json): the
 * 989.5/1979 of the peaks scaled by (1402.6/1979)/(794.5/989.5). */
static void
test_recipe_compute (void)
{
  g_autoptr(NkPlan) plan = small_recipe_plan ("h100-sxm");
  double lin = 201326592.0 * 1024, bf16, eff;

  g_object_set (plan, "matmul-efficiency", 0.5, NULL);
  bf16 = out (plan, "time-compute");
  g_object_set (plan, "recipe", NK_PLAN_RECIPE_FP8_BLOCKWISE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "time-compute"), bf16 - lin * (1 - 989.5 / 1979) / (989.5e12 * 0.5), 1e-12);
  g_object_set (plan, "matmul-efficiency", 0.0, "recipe", NK_PLAN_RECIPE_NONE, NULL);
  bf16 = out (plan, "time-compute");
  /* the calibrated default (README), 0.56 of an A100's peak, as a fraction of
   * the A100's measured ceiling (271.2 of 312 TFLOP/s) on an H100's (794.5 of
   * 989.5) */
  eff = 0.56 / (271.2 / 312) * (794.5 / 989.5);
  g_object_set (plan, "recipe", NK_PLAN_RECIPE_FP8_TENSORWISE, NULL);
  REL (out (plan, "time-compute"), bf16 - lin * (1 - 794.5 / 1402.6) / (989.5e12 * eff), 1e-12);
}

/* The quantizing passes, MXFP8 on a B200 (7.7e12 B/s): per token the linear
 * layers' input + output widths, QKV 1024 + 3072, O 1024 + 1024, gate/up
 * 1024 + 8192, down 4096 + 1024: 20,480 a layer, 40,960 for two; read 2 B,
 * written twice at 1 + 1/32 B: 4.0625 B an element; 1024 tokens:
 * 170,393,600 B; the weights 33,554,432 × 4.0625 = 136,314,880 B; sum
 * 306,708,480 B / 7.7e12 B/s. Memory: the weights twice at 1 + 1/32 B =
 * 69,206,016 B; fp8-tensorwise twice at 1 B plus 3 tensors × 4 linears × 2
 * layers × (4 + 4 + 4096) B = 67,207,360 B; nvfp4 twice at 0.5 + 1/16 B plus
 * 24 fp32 tensor scales = 37,748,832 B. The activations: Transformer Engine
 * saves each linear's input as the quantized copy its GEMM took: per token and
 * layer the two norms' outputs (2 · 1024), the projection's input (1024) and
 * fc2's input (4096), 7,168 values at 1 + 1/32 B instead of 2: 1024 tokens ×
 * 2 layers × 7168 × 31/32 B = 14,221,312 B fewer. */
static void
test_recipe_casts_and_copies (void)
{
  g_autoptr(NkPlan) plan = small_recipe_plan ("b200");
  double without;

  without = out (plan, "memory-per-gpu-max");
  g_assert_cmpfloat (out (plan, "time-casts"), ==, 0);
  g_assert_cmpfloat (out (plan, "memory-max-low-precision"), ==, 0);
  g_object_set (plan, "recipe", NK_PLAN_RECIPE_MXFP8, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  REL (out (plan, "time-casts"), 306708480.0 / 7.7e12, 1e-12);
  g_assert_cmpfloat (out (plan, "memory-max-low-precision"), ==, 69206016.0);
  g_assert_cmpfloat (out (plan, "memory-per-gpu-max"), ==, without + 69206016.0 - 14221312.0);
  g_object_set (plan, "recipe", NK_PLAN_RECIPE_FP8_TENSORWISE, NULL);
  g_assert_cmpfloat (out (plan, "memory-max-low-precision"), ==, 67207360.0);
  g_object_set (plan, "recipe", NK_PLAN_RECIPE_NVFP4, NULL);
  g_assert_cmpfloat (out (plan, "memory-max-low-precision"), ==, 37748832.0);
}

/* A GPU without the units, or fp32, is refused under --precision, naming the
 * GPU and the recipe; a GPU with them plans. */
static void
test_recipe_gpu_rules (void)
{
  static const struct { const char *gpu, *recipe; int status; } cases[] = {
    { "a100-sxm-80", "fp8-tensorwise", 2 }, { "h100-sxm", "fp8-blockwise", 0 },
    { "h100-sxm", "mxfp8", 2 }, { "h100-sxm", "nvfp4", 2 }, { "b200", "mxfp8", 0 },
    { "b200", "nvfp4", 0 }, { "mi355x", "mxfp8", 0 }, { "mi355x", "nvfp4", 2 },
    { "mi300x", "fp8-tensorwise", 0 }, { "v100", "fp8-blockwise", 2 },
  };
  g_autoptr(NkPlan) fp32 = small_recipe_plan ("h100-sxm");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      const char *args[] = { "--gpu", cases[i].gpu, "--gpus", "8", "--tokens", "1T", "--mfu", "0.5",
                             "--params", "7B", "--precision", cases[i].recipe, NULL };
      const NkGpu *row = nk_gpus_lookup (cases[i].gpu);

      if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
        return;
      g_test_message ("%s %s: %s", cases[i].gpu, cases[i].recipe, run.err);
      g_assert_cmpint (run.status, ==, cases[i].status);
      if (cases[i].status == 0)
        continue;
      g_assert_nonnull (strstr (run.err, "napkin-cli: --precision: "));   /* after V100's dtype note */
      g_assert_nonnull (strstr (run.err, row->name));
      g_assert_nonnull (strstr (run.err, cases[i].recipe));
    }
  g_object_set (fp32, "precision", NK_PRECISION_FP32, "recipe", NK_PLAN_RECIPE_MXFP8, NULL);
  g_assert_false (nk_plan_get_valid (fp32));
  g_assert_cmpstr (nk_plan_get_error_input (fp32), ==, "recipe");
}

/* ---------------------------------------------------------------- uneven stages */

/* 10 layers on PP 4 with 1 on the first stage and 3 on the last: the two middle
 * stages share 6, 3 each; the pipeline runs at 3 layers a stage where an even
 * split would run 2.5: pace 3 · 4 / 10 = 1.2, the compute time 1.2 × the same
 * model's on PP 2 (5 and 5; compute does not depend on PP). Llama 3 405B (126
 * layers, 16 stages, 7 + 14 × 8 + 7, as Meta trained it) plans, and its most
 * loaded GPU is the second stage: 8 layers × 15 micro-batches in flight (1F1B
 * stage 1 holds PP − 1), more than the first stage's 7 × 16. */
static void
test_uneven_stages (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  g_autoptr(NkPlan) llama = nk_plan_new ();
  double even;

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 8.0, "params", 1.0, "tokens", 1e9,
                "layers", 10.0, "d-model", 1024.0, "heads", 8.0, "ffn", NK_FFN_SWIGLU, "d-ff", 4096.0,
                "vocab", 1000.0, "seq", 1024.0, "precision", NK_PRECISION_BF16_MIXED,
                "global-batch", 16, "micro-batch", 1, "pp", 2, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  even = out (plan, "time-compute");
  g_object_set (plan, "pp", 4, "first-stage-layers", 1, "last-stage-layers", 3, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (out (plan, "pipeline-pace"), ==, 1.2);
  REL (out (plan, "time-compute"), 1.2 * even, 1e-12);
  /* 10 − 2 − 3 = 5 does not split over 2 stages; 4 + 7 > 10; PP 1 has no stages */
  g_object_set (plan, "first-stage-layers", 2, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_assert_cmpstr (nk_plan_get_error_input (plan), ==, "first-stage-layers");
  g_object_set (plan, "first-stage-layers", 4, "last-stage-layers", 7, NULL);
  g_assert_false (nk_plan_get_valid (plan));
  g_object_set (plan, "first-stage-layers", 1, "last-stage-layers", 0, "pp", 1, "gpus", 4.0, NULL);
  g_assert_false (nk_plan_get_valid (plan));

  g_object_set (llama, "gpu", "h100-sxm", "gpus", 16384.0, "params", 1.0, "tokens", 15.6e12,
                "layers", 126.0, "d-model", 16384.0, "heads", 128.0, "kv-heads", 8, "ffn", NK_FFN_SWIGLU,
                "d-ff", 53248.0, "vocab", 128256.0, "seq", 8192.0, "tied-embeddings", FALSE,
                "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 1, "dropout", FALSE,
                "flash-attention", TRUE, "sequence-parallel", TRUE, "tp", 8, "pp", 16,
                "first-stage-layers", 7, "last-stage-layers", 7, "global-batch", 2048, "micro-batch", 1, NULL);
  g_assert_true (nk_plan_get_valid (llama));
  g_assert_cmpfloat (out (llama, "activations-stage-layers"), ==, 8);
  g_assert_cmpfloat (out (llama, "micro-batches-in-flight"), ==, 15);
  REL (out (llama, "memory-max-activations"), 8 * 15 * out (llama, "activations-per-layer"), 1e-12);
  REL (out (llama, "pipeline-pace"), 8.0 * 16 / 126, 1e-15);
}

/* --export refuses, exit 2, what its launch configs cannot say yet (experts,
 * latent attention, a recipe, uneven stages), rather than launch another
 * model; the summary names EP. */
static void
test_export_refuses_unwritten (void)
{
  static const char *extra[][4] = {
    { "--experts", "8", "--experts-per-token", "2" },
    { "--precision", "fp8-tensorwise", NULL, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      const char *args[] = { "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "0.5",
                             "--layers", "32", "--d-model", "4096", "--heads", "32", "--ffn", "swiglu",
                             "--d-ff", "14336", "--vocab", "32000", "--seq", "4096", "--global-batch", "256",
                             "--micro-batch", "1", "--export", "megatron",
                             extra[i][0], extra[i][1], extra[i][2], extra[i][3], NULL };

      if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
        return;
      g_test_message ("%s", run.err);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_true (g_str_has_prefix (run.err, "napkin-cli: --export megatron does not write "));
      g_assert_cmpuint (run.out_len, ==, 0);
    }
  {
    g_auto(NkTestRun) run = { 0 };
    const char *args[] = { "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "0.5",
                           "--layers", "32", "--d-model", "4096", "--heads", "32", "--ffn", "swiglu",
                           "--d-ff", "14336", "--vocab", "32000", "--seq", "4096", "--global-batch", "256",
                           "--micro-batch", "1", "--experts", "8", "--experts-per-token", "2", "--ep", "8", NULL };

    if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
      return;
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "EP 8 × ETP 1: each GPU holds 1 of the 8 experts"));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/plan-cluster/shape/counts", test_shape_counts);
  g_test_add_func ("/engine/plan-cluster/layout/arithmetic", test_layout_arithmetic);
  g_test_add_func ("/engine/plan-cluster/layout/rules", test_layout_rules);
  g_test_add_func ("/engine/plan-cluster/layout/not-asked", test_layout_not_asked);
  g_test_add_func ("/engine/plan-cluster/memory/korthikanti", test_korthikanti_per_layer);
  g_test_add_func ("/engine/plan-cluster/memory/in-flight", test_pipeline_in_flight);
  g_test_add_func ("/engine/plan-cluster/memory/embedding-dropout-mask", test_embedding_dropout_mask);
  g_test_add_func ("/engine/plan-cluster/memory/fp8-param-gather", test_fp8_param_gather);
  g_test_add_func ("/engine/plan-cluster/memory/cpu-offload", test_cpu_offload);
  g_test_add_func ("/engine/plan-cluster/memory/bytes-per-param", test_bytes_per_param);
  g_test_add_func ("/engine/plan-cluster/memory/usable", test_usable_capacity);
  g_test_add_func ("/engine/plan-cluster/memory/napkin-gpt", test_napkin_gpt_activations);
  g_test_add_func ("/engine/plan-cluster/time/bubble", test_bubble);
  g_test_add_func ("/engine/plan-cluster/time/collectives", test_collectives);
  g_test_add_func ("/engine/plan-cluster/time/nvlink-domain", test_nvlink_domain);
  g_test_add_func ("/engine/plan-cluster/time/step-and-mfu", test_step_and_mfu);
  g_test_add_func ("/engine/plan-cluster/time/published-shapes", test_published_shapes);
  g_test_add_func ("/engine/plan-cluster/search/best-layout", test_best_layout);
  g_test_add_func ("/engine/plan-cluster/search/best-layout-experts", test_best_layout_experts);
  g_test_add_func ("/engine/plan-cluster/search/deadline", test_layout_deadline);
  g_test_add_func ("/engine/plan-cluster/search/none-fits", test_best_layout_none);
  g_test_add_func ("/engine/plan-cluster/asked-not-planned", test_asked_not_planned);
  g_test_add_func ("/engine/plan-cluster/export/same-bytes", test_export_same_bytes);
  g_test_add_func ("/engine/plan-cluster/moe/params", test_moe_params);
  g_test_add_func ("/engine/plan-cluster/moe/flops", test_moe_flops);
  g_test_add_func ("/engine/plan-cluster/moe/memory", test_moe_memory);
  g_test_add_func ("/engine/plan-cluster/moe/ep-comm", test_moe_ep_comm);
  g_test_add_func ("/engine/plan-cluster/moe/memory-experts", test_moe_memory_experts);
  g_test_add_func ("/engine/plan-cluster/moe/layout-experts-outputs", test_layout_experts_outputs);
  g_test_add_func ("/engine/plan-cluster/moe/flag-errors", test_moe_flag_errors);
  g_test_add_func ("/engine/plan-cluster/moe/parallel-folding", test_moe_parallel_folding);
  g_test_add_func ("/engine/plan-cluster/zero-shards-over-cp", test_zero_shards_over_cp);
  g_test_add_func ("/engine/plan-cluster/shape/head-dim-relu2", test_head_dim_relu2);
  g_test_add_func ("/engine/plan-cluster/mla/params", test_mla_params);
  g_test_add_func ("/engine/plan-cluster/mla/flops", test_mla_flops);
  g_test_add_func ("/engine/plan-cluster/mla/memory", test_mla_memory);
  g_test_add_func ("/engine/plan-cluster/mla/flag-errors", test_mla_flag_errors);
  g_test_add_func ("/engine/plan-cluster/recipe/compute", test_recipe_compute);
  g_test_add_func ("/engine/plan-cluster/recipe/casts-and-copies", test_recipe_casts_and_copies);
  g_test_add_func ("/engine/plan-cluster/recipe/gpu-rules", test_recipe_gpu_rules);
  g_test_add_func ("/engine/plan-cluster/layout/uneven-stages", test_uneven_stages);
  g_test_add_func ("/engine/plan-cluster/export/refuses-unwritten", test_export_refuses_unwritten);
  return g_test_run ();
}
