/* test-launch.c: launch configs parsed back and re-checked by the engines' own rules
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: launch-oracle.c parses each emitted file back and re-checks it by the
 * engines' rules and model builders, re-implemented from their source at the
 * commits named there, without calling nk-launch's checks. Golden texts catch
 * format changes; a random loop checks that no emitted file ever fails its
 * engine's rules.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "launch-oracle.h"

/* ---- hand-made specs ---- */

static void
spec_layout (NkLaunchSpec *s,
             guint dp, guint tp, guint pp, guint cp,
             guint64 micro, guint64 global)
{
  s->dp = dp;
  s->tp = tp;
  s->pp = pp;
  s->cp = cp;
  s->gpus = dp * tp * pp * cp;
  s->nodes = (s->gpus + s->gpus_per_node - 1) / s->gpus_per_node;
  s->micro_batch = micro;
  s->global_batch = global;
  s->grad_accum = global / (micro * dp);
}

/* Narayanan et al. 2021's GPT-3 175B run: 1024 GPUs, TP 8, PP 8, DP 16,
 * interleaved (12 layers per stage, 2 virtual stages), global batch 1536. */
static NkLaunchSpec
spec_gpt3 (void)
{
  NkLaunchSpec s;

  nk_launch_spec_init (&s);
  s.layers = 96, s.d_model = 12288, s.heads = 96, s.kv_heads = 96, s.d_ff = 4 * 12288;
  s.ffn = NK_FFN_GELU, s.vocab = 51200, s.tied_embeddings = TRUE, s.seq = 2048;
  spec_layout (&s, 16, 8, 8, 1, 1, 1536);
  s.virtual_stages = 2;
  s.sequence_parallel = TRUE;
  s.zero_stage = 1;
  s.recompute = NK_RECOMPUTE_SELECTIVE;
  s.lr = 6e-5;
  s.train_steps = 200000;
  return s;
}

/* Llama-2-70B: GQA (64 heads, 8 KV heads), SwiGLU 28672, untied, 4096 tokens. */
static NkLaunchSpec
spec_llama70b (void)
{
  NkLaunchSpec s;

  nk_launch_spec_init (&s);
  s.layers = 80, s.d_model = 8192, s.heads = 64, s.kv_heads = 8, s.d_ff = 28672;
  s.ffn = NK_FFN_SWIGLU, s.vocab = 32000, s.seq = 4096;
  spec_layout (&s, 32, 8, 4, 1, 1, 1024);
  s.sequence_parallel = TRUE;
  s.zero_stage = 1;
  s.recompute = NK_RECOMPUTE_FULL;
  s.flash_attention = TRUE;
  s.lr = 1.5e-4;
  s.train_steps = 500000;
  return s;
}

/* A small single-node run: 8 GPUs, DP 8, GPT-2-small shape. */
static NkLaunchSpec
spec_small (void)
{
  NkLaunchSpec s;

  nk_launch_spec_init (&s);
  s.layers = 12, s.d_model = 768, s.heads = 12, s.kv_heads = 12, s.d_ff = 3072;
  s.ffn = NK_FFN_SWIGLU, s.vocab = 50304, s.seq = 1024;
  spec_layout (&s, 8, 1, 1, 1, 4, 64);
  s.lr = 6e-4;
  s.train_steps = 5000;
  return s;
}

/* ZeRO-3, data parallel only, 4 nodes of 8. */
static NkLaunchSpec
spec_zero3 (void)
{
  NkLaunchSpec s = spec_small ();

  s.layers = 32, s.d_model = 4096, s.heads = 32, s.kv_heads = 32, s.d_ff = 11008;
  spec_layout (&s, 32, 1, 1, 1, 2, 512);
  s.zero_stage = 3;
  s.recompute = NK_RECOMPUTE_FULL;
  return s;
}

static void
test_engine_names (void)
{
  for (guint i = 0; i < NK_LAUNCH_N_ENGINES; i++)
    {
      NkLaunchEngine e;

      g_assert_true (nk_launch_engine_from_string (nk_launch_engine_to_string (i), &e));
      g_assert_cmpint (e, ==, i);
    }
  g_assert_cmpstr (nk_launch_engine_to_string (NK_LAUNCH_ENGINE_MEGATRON), ==, "megatron");
  g_assert_cmpstr (nk_launch_engine_file_name (NK_LAUNCH_ENGINE_DEEPSPEED), ==, "ds_config.json");
  {
    NkLaunchEngine e;

    g_assert_false (nk_launch_engine_from_string ("nemo", &e));
    g_assert_false (nk_launch_engine_from_string (NULL, &e));
  }
}

static void
test_gpt3 (void)
{
  NkLaunchSpec s = spec_gpt3 ();
  g_autofree char *text = nk_launch_write (&s, NK_LAUNCH_ENGINE_MEGATRON, NULL);

  g_assert_true (write_and_recheck (&s, NK_LAUNCH_ENGINE_MEGATRON));
  /* 96 layers / PP 8 = 12 per stage, 2 virtual stages: 6 layers each */
  g_assert_nonnull (strstr (text, "  --num-layers-per-virtual-pipeline-stage 6\n"));
  g_assert_nonnull (strstr (text, "--nproc_per_node 8 --nnodes 128 "));
  g_assert_null (strstr (text, "--untie-embeddings-and-output-weights"));
  g_assert_null (strstr (text, "--group-query-attention"));
  /* DeepSpeed cannot carry TP; torchtitan has no GELU llama3 */
  g_assert_false (write_and_recheck (&s, NK_LAUNCH_ENGINE_DEEPSPEED));
  g_assert_false (write_and_recheck (&s, NK_LAUNCH_ENGINE_TORCHTITAN));
}

static void
test_llama70b (void)
{
  NkLaunchSpec s = spec_llama70b ();
  g_autofree char *text = nk_launch_write (&s, NK_LAUNCH_ENGINE_MEGATRON, NULL);
  g_autofree char *toml = nk_launch_write (&s, NK_LAUNCH_ENGINE_TORCHTITAN, NULL);

  g_assert_true (write_and_recheck (&s, NK_LAUNCH_ENGINE_MEGATRON));
  g_assert_true (write_and_recheck (&s, NK_LAUNCH_ENGINE_TORCHTITAN));
  g_assert_nonnull (strstr (text, "  --group-query-attention\n  --num-query-groups 8\n"));
  /* issue 21 item 9: Llama's norm, biases and positions, not Megatron's GPT-2 defaults */
  g_assert_nonnull (strstr (text, "  --ffn-hidden-size 28672\n  --swiglu\n  --normalization RMSNorm\n"
                                  "  --disable-bias-linear\n  --position-embedding-type rope\n"
                                  "  --untie-embeddings-and-output-weights\n"
                                  "  --make-vocab-size-divisible-by 125\n"));
  g_assert_nonnull (strstr (text, "  --recompute-granularity full\n  --recompute-method uniform\n"));
  /* PP 4 without interleaving: local batch = micro × accumulation = 1 × 32 */
  g_assert_nonnull (strstr (toml, "local_batch_size = 32\n"));
  g_assert_nonnull (strstr (toml, "pipeline_parallel_schedule = \"1F1B\"\n"));
  g_assert_nonnull (strstr (toml, "mode = \"full\"\n"));
}

static void
test_small_all_engines (void)
{
  NkLaunchSpec s = spec_small ();

  for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
    g_assert_true (write_and_recheck (&s, e));
}

static void
test_zero3 (void)
{
  NkLaunchSpec s = spec_zero3 ();
  g_autofree char *ds = nk_launch_write (&s, NK_LAUNCH_ENGINE_DEEPSPEED, NULL);
  g_autofree char *cmd = nk_launch_command (&s, NK_LAUNCH_ENGINE_DEEPSPEED, NULL);
  g_autofree char *toml = nk_launch_write (&s, NK_LAUNCH_ENGINE_TORCHTITAN, NULL);

  for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
    g_assert_true (write_and_recheck (&s, e));
  g_assert_cmpstr (cmd, ==, "deepspeed --num_nodes 4 --num_gpus 8 --hostfile hostfile train.py --deepspeed "
                            "--deepspeed_config ds_config.json");
  g_assert_nonnull (strstr (ds, "\"stage\": 3"));
  g_assert_nonnull (strstr (toml, "data_parallel_replicate_degree = 1\ndata_parallel_shard_degree = 32\n"));
}

/* ---- refusals: each names its rule ---- */

typedef struct {
  const char     *name;
  NkLaunchSpec  (*base) (void);
  void          (*mutate) (NkLaunchSpec *s);
  NkLaunchEngine  engine;
  int             code;
  const char     *words;
} Refusal;

static void mut_tp8 (NkLaunchSpec *s) { spec_layout (s, 1, 8, 1, 1, 4, 64); }
static void mut_groups12 (NkLaunchSpec *s) { s->kv_heads = 12; }
static void mut_pp3 (NkLaunchSpec *s) { spec_layout (s, 8, 8, 3, 1, 1, 1024); s->nodes = 24; }
static void mut_v5 (NkLaunchSpec *s) { s->virtual_stages = 5; }
static void mut_m12 (NkLaunchSpec *s) { spec_layout (s, 16, 8, 8, 1, 1, 192); }
static void mut_cp_seq (NkLaunchSpec *s) { spec_layout (s, 4, 1, 1, 2, 4, 64); s->seq = 1022; }
static void mut_sp (NkLaunchSpec *s) { s->sequence_parallel = TRUE; }
static void mut_global (NkLaunchSpec *s) { s->global_batch = 65; }
static void mut_gpus (NkLaunchSpec *s) { s->gpus = 9; }
static void mut_pp2_zero3 (NkLaunchSpec *s) { spec_layout (s, 16, 1, 2, 1, 2, 512); }
static void mut_rmsprop (NkLaunchSpec *s) { s->optimizer = NK_OPTIMIZER_RMSPROP; }
static void mut_gelu (NkLaunchSpec *s) { s->ffn = NK_FFN_GELU; }
static void mut_seq_tt (NkLaunchSpec *s) { s->seq = 4100; }
static void mut_nodes (NkLaunchSpec *s) { spec_layout (s, 12, 1, 1, 1, 4, 96); s->nodes = 2; }
static void mut_none (NkLaunchSpec *s) { }
static void mut_zero0 (NkLaunchSpec *s) { s->zero_stage = 0; }
static void mut_lr (NkLaunchSpec *s) { s->lr = -0.5; }

static const Refusal refusals[] = {
  { "heads-tp", spec_small, mut_tp8, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "multiple of TP (8)" },
  { "query-groups-tp", spec_gpt3, mut_groups12, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "query groups (12)" },
  { "layers-pp", spec_llama70b, mut_pp3, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "layers (80) to be a multiple of PP (3)" },
  { "virtual-stages", spec_gpt3, mut_v5, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "virtual stages (5)" },
  { "interleaved-microbatches", spec_gpt3, mut_m12, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "micro-batches per step (12)" },
  { "cp-seq", spec_small, mut_cp_seq, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "2 × CP (4)" },
  { "sequence-parallel-tp1", spec_small, mut_sp, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "TP > 1" },
  { "global-batch", spec_small, mut_global, NK_LAUNCH_ENGINE_DEEPSPEED, NK_LAUNCH_ERROR_INVALID, "global batch (65)" },
  { "gpus-product", spec_small, mut_gpus, NK_LAUNCH_ENGINE_TORCHTITAN, NK_LAUNCH_ERROR_INVALID, "must equal the GPUs (9)" },
  { "pp-zero3", spec_zero3, mut_pp2_zero3, NK_LAUNCH_ENGINE_DEEPSPEED, NK_LAUNCH_ERROR_INVALID, "ZeRO-2 and ZeRO-3" },
  { "deepspeed-tp", spec_llama70b, mut_none, NK_LAUNCH_ENGINE_DEEPSPEED, NK_LAUNCH_ERROR_UNSUPPORTED, "Megatron-LM" },
  { "megatron-rmsprop", spec_small, mut_rmsprop, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_UNSUPPORTED, "rmsprop" },
  { "torchtitan-gelu", spec_small, mut_gelu, NK_LAUNCH_ENGINE_TORCHTITAN, NK_LAUNCH_ERROR_UNSUPPORTED, "SwiGLU" },
  { "torchtitan-seq", spec_llama70b, mut_seq_tt, NK_LAUNCH_ENGINE_TORCHTITAN, NK_LAUNCH_ERROR_INVALID, "TP × 2 × CP (16)" },
  { "torchtitan-ddp-with-tp", spec_llama70b, mut_zero0, NK_LAUNCH_ENGINE_TORCHTITAN, NK_LAUNCH_ERROR_INVALID, "DDP" },
  { "sequence-parallel-split", spec_llama70b, mut_seq_tt, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "sequence per CP rank (4100)" },
  { "whole-nodes", spec_small, mut_nodes, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ERROR_INVALID, "whole nodes" },
  { "learning-rate", spec_small, mut_lr, NK_LAUNCH_ENGINE_TORCHTITAN, NK_LAUNCH_ERROR_INVALID,
    "The learning rate must be a positive number, not -0.5." },
};

static void
test_refusal (gconstpointer data)
{
  const Refusal *r = data;
  NkLaunchSpec s = r->base ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  /* the base is accepted, so the mutation is what the rule refuses */
  if (r->mutate != mut_none)
    g_assert_true (nk_launch_check (&s, r->engine, NULL));
  r->mutate (&s);
  text = nk_launch_write (&s, r->engine, &error);
  g_assert_null (text);
  g_assert_error (error, NK_LAUNCH_ERROR, r->code);
  g_assert_nonnull (strstr (error->message, r->words));
  /* one sentence */
  g_assert_true (g_str_has_suffix (error->message, "."));
  g_assert_null (strstr (error->message, "\n"));
}

/* ---- the re-checks can fail: a tampered file is caught ---- */

static void
test_recheck_catches (void)
{
  if (g_test_subprocess ())
    {
      NkLaunchSpec s = spec_gpt3 ();
      g_autofree char *text = nk_launch_write (&s, NK_LAUNCH_ENGINE_MEGATRON, NULL);
      const char *mode = g_getenv ("TAMPER");
      char *p;

      if (g_strcmp0 (mode, "megatron") == 0)
        {
          /* 1535 is not a multiple of micro × DP = 16 */
          p = strstr (text, "--global-batch-size 1536");
          p[strlen ("--global-batch-size 153")] = '5';
          recheck_megatron (text, &s);
        }
      else if (g_strcmp0 (mode, "deepspeed") == 0)
        {
          NkLaunchSpec z = spec_zero3 ();
          g_autofree char *ds = nk_launch_write (&z, NK_LAUNCH_ENGINE_DEEPSPEED, NULL);

          /* the launcher on 3 nodes: 512 != 2 × 8 × 24 */
          recheck_deepspeed (ds, "deepspeed --num_nodes 3 --num_gpus 8 --hostfile h train.py --deepspeed "
                                 "--deepspeed_config ds_config.json", &z);
        }
      else
        {
          NkLaunchSpec l = spec_llama70b ();
          g_autofree char *toml = nk_launch_write (&l, NK_LAUNCH_ENGINE_TORCHTITAN, NULL);

          /* tensor_parallel_degree 4: the product is 512, not 1024 */
          p = strstr (toml, "tensor_parallel_degree = 8");
          p[strlen ("tensor_parallel_degree = ")] = '4';
          recheck_torchtitan (toml, &l);
        }
      return;
    }
  for (guint i = 0; i < 3; i++)
    {
      static const char *const modes[] = { "megatron", "deepspeed", "torchtitan" };
      static const char *const broken[] = {
        "*global % (micro * dp) == 0*", "*train == micro * gas * world*",
        "*rep * shard * cp * tp * pp == world*",
      };

      /* GLib 2.74 has no envp variant: the child inherits TAMPER */
      g_setenv ("TAMPER", modes[i], TRUE);
      g_test_trap_subprocess (NULL, 0, 0);
      g_test_trap_assert_failed ();
      g_test_trap_assert_stderr (broken[i]);
    }
  g_unsetenv ("TAMPER");
}

/* ---- random layouts ---- */

static guint
pick (GRand             *r,
      const guint       *values,
      guint              n)
{
  return values[g_rand_int_range (r, 0, n)];
}

/* A spec that satisfies every Megatron-LM rule by construction. */
static NkLaunchSpec
random_valid_spec (GRand *r)
{
  static const guint tps[] = { 1, 2, 4, 8 }, pps[] = { 1, 2, 3, 4, 8 }, cps[] = { 1, 2 };
  static const guint micros[] = { 1, 2, 4 };
  NkLaunchSpec s;
  guint tp = pick (r, tps, 4), pp = pick (r, pps, 5), cp = pick (r, cps, 2);
  guint dp = g_rand_int_range (r, 1, 17), v = pp > 1 ? g_rand_int_range (r, 1, 4) : 1;
  guint groups = tp * g_rand_int_range (r, 1, 3), micro = pick (r, micros, 3);
  guint m = v > 1 ? pp * (guint) g_rand_int_range (r, 1, 5) : (guint) g_rand_int_range (r, 1, 9);

  nk_launch_spec_init (&s);
  if (g_rand_boolean (r) && tp > 1)
    groups = tp / 2;  /* a divisor of TP: Megatron replicates the groups */
  s.kv_heads = groups;
  s.heads = MAX (groups, tp) * (1u << g_rand_int_range (r, 0, 3));  /* lcm: one divides the other */
  s.d_model = s.heads * 64 * g_rand_int_range (r, 1, 3);
  switch (g_rand_int_range (r, 0, 3))
    {
    case 0: s.d_ff = 0; break;
    case 1: s.d_ff = s.d_model * 3; break;
    default: s.d_ff = g_rand_int_range (r, s.d_model / 2, 3 * s.d_model); break;  /* below 8/3·d too */
    }
  s.layers = pp * v * g_rand_int_range (r, 1, 7);
  s.seq = 2 * cp * tp * 128 * g_rand_int_range (r, 1, 5);
  s.vocab = g_rand_boolean (r) ? 50304 : 32000;
  s.ffn = g_rand_boolean (r) ? NK_FFN_SWIGLU : NK_FFN_GELU;
  s.tied_embeddings = g_rand_boolean (r);
  s.gpus_per_node = g_rand_boolean (r) ? 8 : 4;
  spec_layout (&s, dp, tp, pp, cp, micro, (guint64) micro * dp * m);
  if (s.gpus > s.gpus_per_node && s.gpus % s.gpus_per_node != 0)
    s.gpus_per_node = s.gpus, s.nodes = 1;
  s.virtual_stages = v;
  s.sequence_parallel = tp > 1 && g_rand_boolean (r);
  s.zero_stage = g_rand_int_range (r, 0, 4);
  s.precision = g_rand_int_range (r, 0, 3);
  /* a pair Megatron-LM runs: fp32 weights compute in fp32 or TF32, bf16 ones
   * in bf16 or under FP8 linears, fp16 ones in fp16 */
  if (s.precision == NK_PRECISION_FP32)
    s.matmul_dtype = g_rand_boolean (r) ? NK_PEAK_FP32 : NK_PEAK_TF32;
  else if (s.precision == NK_PRECISION_BF16_MIXED)
    s.matmul_dtype = g_rand_boolean (r) ? NK_PEAK_BF16 : NK_PEAK_FP8;
  else
    s.matmul_dtype = NK_PEAK_FP16;
  s.fp32_grads = g_rand_boolean (r);
  s.recompute = g_rand_int_range (r, 0, 3);
  s.flash_attention = g_rand_boolean (r);
  s.optimizer = g_rand_int_range (r, 0, 6);
  s.lr = g_rand_double_range (r, 1e-5, 1e-2);
  s.train_steps = g_rand_int_range (r, 1, 1000000);
  return s;
}

static void
test_random_layouts (void)
{
  g_autoptr(GRand) r = g_rand_new_with_seed (20261124);
  guint accepted[NK_LAUNCH_N_ENGINES] = { 0 };

  for (guint i = 0; i < 3000; i++)
    {
      NkLaunchSpec s = random_valid_spec (r);
      gboolean megatron_ok = s.optimizer != NK_OPTIMIZER_ADAGRAD && s.optimizer != NK_OPTIMIZER_RMSPROP;

      if (megatron_ok)
        {
          g_autoptr(GError) error = NULL;

          nk_launch_check (&s, NK_LAUNCH_ENGINE_MEGATRON, &error);
          g_assert_no_error (error);
        }
      g_assert_true (write_and_recheck (&s, NK_LAUNCH_ENGINE_MEGATRON) == megatron_ok);
      accepted[NK_LAUNCH_ENGINE_MEGATRON] += megatron_ok;
      for (guint e = NK_LAUNCH_ENGINE_DEEPSPEED; e <= NK_LAUNCH_ENGINE_TORCHTITAN; e += 2)
        accepted[e] += write_and_recheck (&s, e);
    }
  for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
    g_assert_cmpuint (accepted[e], >, 50);
}

/* One field of a valid spec changed at random: whatever the writer emits
 * must still pass, and some of it must be refused. */
static void
test_random_mutations (void)
{
  g_autoptr(GRand) r = g_rand_new_with_seed (7);
  guint refused = 0, emitted = 0;

  for (guint i = 0; i < 3000; i++)
    {
      NkLaunchSpec s = random_valid_spec (r);
      guint v = g_rand_int_range (r, 1, 9);

      switch (g_rand_int_range (r, 0, 13))
        {
        case 0: s.tp = v; break;
        case 1: s.pp = v; break;
        case 2: s.cp = v; break;
        case 3: s.heads = v * 8; break;
        case 4: s.kv_heads = v; break;
        case 5: s.layers = v * 5; break;
        case 6: s.virtual_stages = v; break;
        case 7: s.global_batch += v; break;
        case 8: s.seq = 100 * v; break;
        case 9: s.matmul_dtype = (NkPeakDtype) (NK_PEAK_FP32 + v % 5); break;
        case 10: s.precision = v % 3; break;
        case 11: s.vocab = 1000 * v + 1; break;
        default: s.sequence_parallel = TRUE; break;
        }
      for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
        {
          if (write_and_recheck (&s, e))
            emitted++;
          else
            refused++;
        }
    }
  g_assert_cmpuint (refused, >, 1000);
  g_assert_cmpuint (emitted, >, 500);
}

/* ---- golden texts ---- */

/* spec_small () written out by hand: 8 GPUs on one node, DP 8, micro-batch 4,
 * 2 accumulation steps (64 = 4 × 2 × 8), bf16 with fp32 gradients, AdamW at
 * 6e-4, 5000 steps. A change of format must change these on purpose. */
static const char golden_deepspeed[] =
  "{\n"
  "  \"train_batch_size\": 64,\n"
  "  \"train_micro_batch_size_per_gpu\": 4,\n"
  "  \"gradient_accumulation_steps\": 2,\n"
  "  \"steps_per_print\": 10,\n"
  "  \"zero_optimization\": {\n"
  "    \"stage\": 0\n"
  "  },\n"
  "  \"bf16\": {\n"
  "    \"enabled\": true\n"
  "  },\n"
  "  \"fp16\": {\n"
  "    \"enabled\": false\n"
  "  },\n"
  "  \"data_types\": {\n"
  "    \"grad_accum_dtype\": \"fp32\"\n"
  "  },\n"
  "  \"optimizer\": {\n"
  "    \"type\": \"AdamW\",\n"
  "    \"params\": {\n"
  "      \"lr\": 0.0006,\n"
  "      \"betas\": [0.9, 0.999],\n"
  "      \"eps\": 1e-08,\n"
  "      \"weight_decay\": 0.01\n"
  "    }\n"
  "  }\n"
  "}\n";

static const char golden_deepspeed_command[] =
  "deepspeed --num_nodes 1 --num_gpus 8 train.py --deepspeed --deepspeed_config ds_config.json";

static const char golden_megatron[] =
  "#!/bin/bash\n"
  "# Megatron-LM launch of the run Napkin planned: 8 GPUs (1 node of 8), TP 1, PP 1, CP 1, DP 8.\n"
  "# Run it from a Megatron-LM checkout on every node with NODE_RANK, MASTER_ADDR\n"
  "# and MASTER_PORT set; DATA_ARGS holds the data and tokenizer arguments;\n"
  "# the tokenizer's vocabulary must pad to the planned 50304 tokens (--make-vocab-size-divisible-by 128 × TP 1).\n"
  "set -euo pipefail\n"
  "\n"
  "NODE_RANK=${NODE_RANK:-0}\n"
  "MASTER_ADDR=${MASTER_ADDR:-localhost}\n"
  "MASTER_PORT=${MASTER_PORT:-6000}\n"
  "\n"
  "MEGATRON_ARGS=(\n"
  "  --tensor-model-parallel-size 1\n"
  "  --pipeline-model-parallel-size 1\n"
  "  --micro-batch-size 4\n"
  "  --global-batch-size 64\n"
  "  --num-layers 12\n"
  "  --hidden-size 768\n"
  "  --num-attention-heads 12\n"
  "  --ffn-hidden-size 3072\n"
  "  --swiglu\n"
  "  --normalization RMSNorm\n"
  "  --disable-bias-linear\n"
  "  --position-embedding-type rope\n"
  "  --untie-embeddings-and-output-weights\n"
  "  --make-vocab-size-divisible-by 128\n"
  "  --seq-length 1024\n"
  "  --max-position-embeddings 1024\n"
  "  --bf16\n"
  "  --accumulate-allreduce-grads-in-fp32\n"
  "  --train-iters 5000\n"
  "  --optimizer adam\n"
  "  --adam-beta1 0.9\n"
  "  --adam-beta2 0.999\n"
  "  --adam-eps 1e-08\n"
  "  --weight-decay 0.01\n"
  "  --lr 0.0006\n"
  ")\n"
  "\n"
  "torchrun --nproc_per_node 8 --nnodes 1 --node_rank \"$NODE_RANK\" --master_addr \"$MASTER_ADDR\" "
  "--master_port \"$MASTER_PORT\" pretrain_gpt.py \"${MEGATRON_ARGS[@]}\" ${DATA_ARGS:-}\n";

static const char golden_torchtitan[] =
  "# torchtitan job config of the run Napkin planned: 8 GPUs (1 node of 8).\n"
  "# Written for the TOML job configs of the torchtitan 0.2 releases (field names\n"
  "# of v0.2.2's torchtitan/config/job_config.py). Newer torchtitan takes Python\n"
  "# config functions instead of TOML: carry these values over to one.\n"
  "# Model: add flavor \"napkin\" to llama3_args in torchtitan/models/llama3/__init__.py:\n"
  "#   TransformerModelArgs(dim=768, n_layers=12, n_heads=12, n_kv_heads=12,\n"
  "#   vocab_size=50304, multiple_of=3072)\n"
  "# Launch: NGPU=8 CONFIG_FILE=./train.toml ./run_train.sh\n"
  "\n"
  "[job]\n"
  "description = \"napkin plan\"\n"
  "\n"
  "[model]\n"
  "name = \"llama3\"\n"
  "flavor = \"napkin\"\n"
  "\n"
  "[optimizer]\n"
  "name = \"AdamW\"\n"
  "lr = 0.0006\n"
  "eps = 1e-08\n"
  "weight_decay = 0.01\n"
  "\n"
  "[training]\n"
  "local_batch_size = 4\n"
  "global_batch_size = 64\n"
  "seq_len = 1024\n"
  "steps = 5000\n"
  "mixed_precision_param = \"bfloat16\"\n"
  "mixed_precision_reduce = \"float32\"\n"
  "\n"
  "[parallelism]\n"
  "data_parallel_replicate_degree = 8\n"
  "data_parallel_shard_degree = 1\n"
  "tensor_parallel_degree = 1\n"
  "pipeline_parallel_degree = 1\n"
  "context_parallel_degree = 1\n"
  "pipeline_parallel_microbatch_size = 4\n"
  "\n"
  "[activation_checkpoint]\n"
  "mode = \"none\"\n";

static void
test_golden (void)
{
  static const char *const golden[] = {
    [NK_LAUNCH_ENGINE_DEEPSPEED] = golden_deepspeed,
    [NK_LAUNCH_ENGINE_MEGATRON] = golden_megatron,
    [NK_LAUNCH_ENGINE_TORCHTITAN] = golden_torchtitan,
  };
  NkLaunchSpec s = spec_small ();
  g_autofree char *command = nk_launch_command (&s, NK_LAUNCH_ENGINE_DEEPSPEED, NULL);

  for (guint e = 0; e < NK_LAUNCH_N_ENGINES; e++)
    {
      g_autofree char *text = nk_launch_write (&s, e, NULL);

      g_assert_cmpstr (text, ==, golden[e]);
    }
  g_assert_cmpstr (command, ==, golden_deepspeed_command);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/launch/engine-names", test_engine_names);
  g_test_add_func ("/engine/launch/gpt3-175b", test_gpt3);
  g_test_add_func ("/engine/launch/llama2-70b", test_llama70b);
  g_test_add_func ("/engine/launch/small-all-engines", test_small_all_engines);
  g_test_add_func ("/engine/launch/zero3-dp-only", test_zero3);
  g_test_add_func ("/engine/launch/golden", test_golden);
  g_test_add_func ("/engine/launch/recheck-catches", test_recheck_catches);
  g_test_add_func ("/engine/launch/random-layouts", test_random_layouts);
  g_test_add_func ("/engine/launch/random-mutations", test_random_mutations);
  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    {
      g_autofree char *path = g_strdup_printf ("/engine/launch/refuse/%s", refusals[i].name);

      g_test_add_data_func (path, &refusals[i], test_refusal);
    }
  return g_test_run ();
}
