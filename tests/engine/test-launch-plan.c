/* test-launch-plan.c: a plan's export builds the model it counted and runs as it was priced
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 21, items 9–12 ("exports that would build a different model"). The
 * plans are NkPlans; their exports go through nk_plan_get_launch_spec() and
 * nk_launch_write() as the CLI's --export does. Oracles (launch-oracle.c, from
 * the engines' source at the commits named there): the parameters
 * Megatron-LM's pretrain_gpt.py builds from the argument list and torchtitan's
 * llama3 builds from the model args, counted by hand from their modules and
 * compared with the plan's own count (sizing's shape-params); torchtitan's
 * FeedForward hidden-size rule re-implemented in Python's double arithmetic;
 * the precision each engine runs, read from its file, against the peak the
 * plan priced (--dtype).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "launch-oracle.h"
#include "nk-plan.h"
#include "nk-test-util.h"

/* 64 H100s, TP 2 or as given, ZeRO-1, a Llama-shaped model: 32 layers of
 * 4096 with 32 heads, 8 KV heads, SwiGLU 14336, vocabulary 128256, untied. */
static NkPlan *
llama_plan (void)
{
  NkPlan *plan = nk_plan_new ();

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 64.0, "tokens", 1e12, "mfu", 0.4,
                "layers", 32.0, "d-model", 4096.0, "heads", 32.0, "kv-heads", 8, "ffn", NK_FFN_SWIGLU,
                "d-ff", 14336.0, "vocab", 128256.0, "seq", 8192.0, "global-batch", 512,
                "micro-batch", 2, "tp", 2, "precision", NK_PRECISION_BF16_MIXED, "zero-stage", 1,
                "tied-embeddings", FALSE, NULL);
  g_object_set (plan, "params", nk_plan_get_output (plan, "shape-params"), NULL);
  return plan;
}

/* The plan's export for @engine, or NULL with the refusal in @error. */
static char *
export (NkPlan          *plan,
        NkLaunchEngine   engine,
        NkLaunchSpec    *spec,
        GError         **error)
{
  if (!nk_plan_get_launch_spec (plan, spec, error))
    return NULL;
  return nk_launch_write (spec, engine, error);
}

static void
megatron_matches_plan (NkPlan *plan)
{
  NkLaunchSpec spec;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = export (plan, NK_LAUNCH_ENGINE_MEGATRON, &spec, &error);
  g_auto(GStrv) args = NULL;
  g_auto(GStrv) launch = NULL;

  g_assert_no_error (error);
  g_assert_true (write_and_recheck (&spec, NK_LAUNCH_ENGINE_MEGATRON));
  split_megatron (text, &args, &launch);
  g_assert_cmpfloat (megatron_params (args, spec.vocab), ==, nk_plan_get_output (plan, "shape-params"));
}

/* Item 9: Megatron-LM's defaults are GPT-2's (LayerNorm, biases, learned
 * positions); a Llama plan must say RMSNorm, no bias and RoPE, and every
 * plan must build exactly the parameters it counted. */
static void
test_megatron_builds_counted_model (void)
{
  g_autoptr(NkPlan) llama = llama_plan ();
  g_autoptr(NkPlan) gpt = nk_plan_new ();
  NkLaunchSpec spec;
  g_autofree char *text = export (llama, NK_LAUNCH_ENGINE_MEGATRON, &spec, NULL);
  double n = nk_plan_get_output (llama, "shape-params");

  g_assert_nonnull (text);
  /* Llama-3-8B by hand: 32 × (2·4096 + 2·4096² + 2·4096·1024 + 3·4096·14336)
   * + 2 · 128256 · 4096 + 4096 */
  g_assert_cmpfloat (n, ==, 32 * (2 * 4096.0 + 2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336)
                            + 2 * 128256.0 * 4096 + 4096);
  g_assert_nonnull (strstr (text, "  --normalization RMSNorm\n"));
  g_assert_nonnull (strstr (text, "  --disable-bias-linear\n"));
  g_assert_nonnull (strstr (text, "  --position-embedding-type rope\n"));
  g_assert_nonnull (strstr (text, "  --group-query-attention\n  --num-query-groups 8\n"));
  megatron_matches_plan (llama);

  /* tied, with TP 2 */
  g_object_set (llama, "tied-embeddings", TRUE, NULL);
  megatron_matches_plan (llama);

  /* GPT-2 shaped: GELU, tied, learned positions, biases; and with GQA */
  g_object_set (gpt, "gpu", "h100-sxm", "gpus", 16.0, "tokens", 1e11, "mfu", 0.4,
                "layers", 12.0, "d-model", 768.0, "heads", 12.0, "vocab", 50304.0, "seq", 1024.0,
                "global-batch", 64, "micro-batch", 2, "tp", 2, "precision", NK_PRECISION_BF16_MIXED,
                "zero-stage", 1, NULL);
  megatron_matches_plan (gpt);
  g_object_set (gpt, "kv-heads", 4, "tied-embeddings", FALSE, NULL);
  megatron_matches_plan (gpt);
}

/* The torchtitan file builds the counted model too (llama3: SwiGLU, untied). */
static void
test_torchtitan_builds_counted_model (void)
{
  g_autoptr(NkPlan) plan = llama_plan ();
  NkLaunchSpec spec;
  g_autofree char *text = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, NULL);

  g_assert_nonnull (text);
  g_assert_true (write_and_recheck (&spec, NK_LAUNCH_ENGINE_TORCHTITAN));
  g_assert_cmpfloat (torchtitan_params (text, torchtitan_ffn_check (text, &spec)), ==,
                     nk_plan_get_output (plan, "shape-params"));
}

/* Item 10: 2 KV heads on TP 8. Megatron-LM at the pinned commit sub-shards
 * QKV when the groups are fewer than TP (attention.py, Megatron Core 0.16 on),
 * so the export keeps the model and says which Megatron it needs; torchtitan
 * cannot split 2 heads 8 ways and refuses. A head width that makes the fused
 * QKV not divisible by TP is refused. */
static void
test_query_groups_below_tp (void)
{
  g_autoptr(NkPlan) plan = llama_plan ();
  g_autoptr(GError) error = NULL;
  NkLaunchSpec spec;
  g_autofree char *text = NULL;
  g_autofree char *toml = NULL;

  g_object_set (plan, "kv-heads", 2, "tp", 8, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  text = export (plan, NK_LAUNCH_ENGINE_MEGATRON, &spec, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "  --num-query-groups 2\n"));
  g_assert_nonnull (strstr (text, "\n# 2 query groups on TP 8 need Megatron Core 0.16 or later (QKV sub-sharding).\n"));
  megatron_matches_plan (plan);
  toml = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, &error);
  g_assert_null (toml);
  g_assert_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "key/value heads (2) to be multiples of TP (8)"));
  g_clear_error (&error);

  /* 8 heads of width 1, 2 groups: (8 + 2·2) · 1 = 12 outputs on 8 ranks */
  nk_launch_spec_init (&spec);
  spec.layers = 2, spec.d_model = 8, spec.heads = 8, spec.kv_heads = 2, spec.d_ff = 32, spec.vocab = 64;
  spec.seq = 64, spec.tp = 8, spec.gpus = 8;
  g_assert_false (nk_launch_check (&spec, NK_LAUNCH_ENGINE_MEGATRON, &error));
  g_assert_nonnull (strstr (error->message, "fused QKV width ((8 + 2 × 2) × 1) to be a multiple of TP (8)"));
}

static char *
refusal (NkPlan         *plan,
         NkLaunchEngine  engine)
{
  NkLaunchSpec spec;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = export (plan, engine, &spec, &error);

  g_assert_null (text);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_suffix (error->message, "."));
  g_assert_null (strchr (error->message, '\n'));
  return g_strdup (error->message);
}

/* The engines a plan exports to pass their re-check (which reads the
 * matmuls' format from the file and compares it with the plan's peak). */
static void
exports_pass (NkPlan *plan,
              guint   engines)
{
  for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
    if (engines & (1u << e))
      {
        NkLaunchSpec spec;
        g_autoptr(GError) error = NULL;

        g_assert_true (nk_plan_get_launch_spec (plan, &spec, &error));
        g_assert_cmpint (spec.matmul_dtype, ==, nk_plan_get_dtype (plan));
        g_assert_true (write_and_recheck (&spec, e));
      }
}

#define DS (1u << NK_LAUNCH_ENGINE_DEEPSPEED)
#define MEG (1u << NK_LAUNCH_ENGINE_MEGATRON)
#define TT (1u << NK_LAUNCH_ENGINE_TORCHTITAN)

/* Item 11: the export runs the matmuls at the peak the time was priced at. */
static void
test_precision_follows_peak (void)
{
  g_autoptr(NkPlan) plan = llama_plan ();
  NkLaunchSpec spec;
  g_autofree char *meg = NULL;
  g_autofree char *ds = NULL;
  g_autofree char *tt = NULL;
  g_autofree char *why = NULL;

  /* mixed + fp16 peak: Megatron's --fp16, DeepSpeed's fp16 (DP only: TP 1) */
  g_object_set (plan, "dtype", NK_PEAK_FP16, "tp", 1, NULL);
  meg = export (plan, NK_LAUNCH_ENGINE_MEGATRON, &spec, NULL);
  g_assert_nonnull (strstr (meg, "  --fp16\n"));
  g_assert_null (strstr (meg, "--bf16"));
  ds = export (plan, NK_LAUNCH_ENGINE_DEEPSPEED, &spec, NULL);
  g_assert_nonnull (strstr (ds, "\"fp16\": {\n    \"enabled\": true\n  }"));
  exports_pass (plan, DS | MEG);
  why = refusal (plan, NK_LAUNCH_ENGINE_TORCHTITAN);
  g_assert_nonnull (strstr (why, "no fp16"));
  g_clear_pointer (&meg, g_free);
  g_clear_pointer (&ds, g_free);
  g_clear_pointer (&why, g_free);

  /* mixed + fp8 peak: FP8 linears over bf16 weights; DeepSpeed has none */
  g_object_set (plan, "dtype", NK_PEAK_FP8, "tp", 2, NULL);
  meg = export (plan, NK_LAUNCH_ENGINE_MEGATRON, &spec, NULL);
  g_assert_nonnull (strstr (meg, "  --bf16\n  --fp8-format hybrid\n  --fp8-recipe delayed\n"));
  tt = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, NULL);
  g_assert_nonnull (strstr (tt, "converters = [\"quantize.linear.float8\"]\n"));
  g_assert_nonnull (strstr (tt, "mixed_precision_param = \"bfloat16\"\n"));
  exports_pass (plan, MEG | TT);
  g_object_set (plan, "tp", 1, NULL);
  why = refusal (plan, NK_LAUNCH_ENGINE_DEEPSPEED);
  g_assert_nonnull (strstr (why, "no FP8"));
  g_clear_pointer (&meg, g_free);
  g_clear_pointer (&tt, g_free);
  g_clear_pointer (&why, g_free);

  /* the default fp32 precision at the (default) bf16 peak: fp32 weights under
   * bf16 matmuls, which torchtitan's FSDP runs and the others cannot say */
  g_object_set (plan, "precision", NK_PRECISION_FP32, "dtype", NK_PEAK_BF16, "tp", 2, NULL);
  why = refusal (plan, NK_LAUNCH_ENGINE_MEGATRON);
  g_assert_nonnull (strstr (why, "fp32 weights under bf16 matmuls"));
  g_clear_pointer (&why, g_free);
  tt = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, NULL);
  g_assert_nonnull (strstr (tt, "mixed_precision_param = \"bfloat16\"\n"));
  exports_pass (plan, TT);
  g_object_set (plan, "tp", 1, NULL);
  why = refusal (plan, NK_LAUNCH_ENGINE_DEEPSPEED);
  g_assert_nonnull (strstr (why, "fp32 weights under bf16 matmuls"));
  g_clear_pointer (&tt, g_free);
  g_clear_pointer (&why, g_free);

  /* fp32 at the TF32 peak: an fp32 run with TF32 forced on */
  g_object_set (plan, "dtype", NK_PEAK_TF32, "tp", 2, NULL);
  meg = export (plan, NK_LAUNCH_ENGINE_MEGATRON, &spec, NULL);
  g_assert_nonnull (strstr (meg, "\nexport TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1\n"));
  g_assert_null (strstr (meg, "--bf16"));
  tt = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, NULL);
  g_assert_nonnull (strstr (tt, "mixed_precision_param = \"float32\"\n"));
  g_assert_nonnull (strstr (tt, "# Launch: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 "));
  exports_pass (plan, MEG | TT);
  g_clear_pointer (&meg, g_free);
  g_clear_pointer (&tt, g_free);

  /* mixed precision at the fp32 peak is no run at all; 2:4 sparsity neither */
  g_object_set (plan, "precision", NK_PRECISION_BF16_MIXED, "dtype", NK_PEAK_FP32, NULL);
  why = refusal (plan, NK_LAUNCH_ENGINE_MEGATRON);
  g_assert_cmpstr (why, ==, "The plan prices the matmuls at the fp32 peak, which bf16 mixed precision does not run.");
  g_clear_pointer (&why, g_free);
  g_object_set (plan, "dtype", NK_PEAK_BF16, "sparse", TRUE, NULL);
  why = refusal (plan, NK_LAUNCH_ENGINE_MEGATRON);
  g_assert_nonnull (strstr (why, "2:4-sparse"));
}

/* torchtitan applies mixed precision under TP or PP only through FSDP or CP:
 * at DP 1 its matmuls would run in fp32. */
static void
test_torchtitan_amp_needs_fsdp (void)
{
  g_autoptr(NkPlan) plan = llama_plan ();
  g_autofree char *why = NULL;

  g_object_set (plan, "gpus", 8.0, "tp", 8, "global-batch", 16, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  why = refusal (plan, NK_LAUNCH_ENGINE_TORCHTITAN);
  g_assert_nonnull (strstr (why, "would run its matmuls in fp32, not bf16"));
}

/* Item 12: selective recompute is torchtitan's per-op selective AC, and any
 * planned FFN width is rebuilt exactly (--d-model 4096 --d-ff 1 was 10). */
static void
test_torchtitan_selective_and_ffn (void)
{
  g_autoptr(NkPlan) plan = llama_plan ();
  NkLaunchSpec spec;
  g_autofree char *tt = NULL;

  g_object_set (plan, "recompute", NK_RECOMPUTE_SELECTIVE, NULL);
  tt = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, NULL);
  g_assert_nonnull (strstr (tt, "[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n"));
  exports_pass (plan, TT);
  g_clear_pointer (&tt, g_free);

  g_object_set (plan, "d-ff", 1.0, NULL);
  g_object_set (plan, "params", nk_plan_get_output (plan, "shape-params"), NULL);
  tt = export (plan, NK_LAUNCH_ENGINE_TORCHTITAN, &spec, NULL);
  g_assert_nonnull (strstr (tt, "multiple_of=1, ffn_dim_multiplier=0.0001)"));
  g_assert_cmpint (torchtitan_ffn_check (tt, &spec), ==, 1);
  g_assert_cmpfloat (torchtitan_params (tt, 1), ==, nk_plan_get_output (plan, "shape-params"));

  /* every width from 1 to 3·d for a few d: the FeedForward rule lands on it */
  for (guint d = 16; d <= 4096; d *= 4)
    for (guint f = 1; f <= 3 * d; f += (d < 1024 ? 1 : 7))
      {
        nk_launch_spec_init (&spec);
        spec.layers = 2, spec.d_model = d, spec.heads = 1, spec.d_ff = f, spec.ffn = NK_FFN_SWIGLU;
        spec.vocab = 64, spec.seq = 64;
        g_assert_true (write_and_recheck (&spec, NK_LAUNCH_ENGINE_TORCHTITAN));
      }
}

/* Without a vocabulary the plan counts no embeddings, which every engine
 * builds; Megatron-LM's padded vocabulary is always a multiple of TP. */
static void
test_vocabulary (void)
{
  g_autoptr(NkPlan) plan = llama_plan ();
  g_autofree char *why = NULL;

  g_object_set (plan, "vocab", 128257.0, NULL);
  why = refusal (plan, NK_LAUNCH_ENGINE_MEGATRON);
  g_assert_nonnull (strstr (why, "planned 128257 tokens are not a multiple of TP (2)"));
  g_clear_pointer (&why, g_free);
  g_object_set (plan, "vocab", 0.0, NULL);
  for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
    {
      why = refusal (plan, e);
      g_assert_true (g_str_has_prefix (why, "A launch config needs the vocabulary size"));
      g_clear_pointer (&why, g_free);
    }
}

/* The CLI's --export is the same: fp16 for --precision mixed --dtype fp16,
 * and a refusal is exit 1 with the sentence. */
static void
test_cli (void)
{
  const char *base[] = { "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "0.4",
                         "--layers", "32", "--d-model", "4096", "--heads", "32", "--kv-heads", "8",
                         "--ffn", "swiglu", "--d-ff", "14336", "--vocab", "128256", "--seq", "8192",
                         "--global-batch", "512", "--micro-batch", "2", "--zero", "1", "--export", "megatron" };
  g_autoptr(GPtrArray) fp16 = g_ptr_array_new ();
  g_autoptr(GPtrArray) fp32 = g_ptr_array_new ();
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) refused = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (base); i++)
    {
      g_ptr_array_add (fp16, (gpointer) base[i]);
      g_ptr_array_add (fp32, (gpointer) base[i]);
    }
  g_ptr_array_add (fp16, "--precision");
  g_ptr_array_add (fp16, "mixed");
  g_ptr_array_add (fp16, "--dtype");
  g_ptr_array_add (fp16, "fp16");
  g_ptr_array_add (fp16, NULL);
  g_ptr_array_add (fp32, NULL);
  if (!nk_test_run_cli (&run, "plan", (const char **) fp16->pdata, NULL, 0))
    return;
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "  --fp16\n"));
  g_assert_null (strstr (run.out, "--bf16"));

  g_assert_true (nk_test_run_cli (&refused, "plan", (const char **) fp32->pdata, NULL, 0));
  g_assert_cmpint (refused.status, ==, 1);
  g_assert_true (g_str_has_prefix (refused.err, "napkin-cli: --export megatron: Megatron-LM runs its matmuls"));
  g_assert_cmpuint (refused.out_len, ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/launch-plan/megatron-builds-counted-model", test_megatron_builds_counted_model);
  g_test_add_func ("/engine/launch-plan/torchtitan-builds-counted-model", test_torchtitan_builds_counted_model);
  g_test_add_func ("/engine/launch-plan/query-groups-below-tp", test_query_groups_below_tp);
  g_test_add_func ("/engine/launch-plan/precision-follows-peak", test_precision_follows_peak);
  g_test_add_func ("/engine/launch-plan/torchtitan-amp-needs-fsdp", test_torchtitan_amp_needs_fsdp);
  g_test_add_func ("/engine/launch-plan/torchtitan-selective-and-ffn", test_torchtitan_selective_and_ffn);
  g_test_add_func ("/engine/launch-plan/vocabulary", test_vocabulary);
  g_test_add_func ("/engine/launch-plan/cli", test_cli);
  return g_test_run ();
}
