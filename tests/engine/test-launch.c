/* test-launch.c: launch configs parsed back and re-checked by the engines' own rules
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: each emitted file is parsed back here (JSON with json-glib, the
 * Megatron-LM argument list split into words, the TOML by a small line parser)
 * and checked by the engines' rules, re-implemented from their source (file and
 * function named at each check) without calling nk-launch's checks:
 * - DeepSpeed v0.16.4-6-g38327e07: deepspeed/runtime/config.py
 *   DeepSpeedConfig._batch_assertion / __init__ (world = DP), pipe/engine.py
 *   PipelineEngine.__init__, engine.py _configure_basic_optimizer.
 * - Megatron-LM d98e8a64dd: megatron/training/arguments.py validate_args,
 *   megatron/core/num_microbatches_calculator.py, transformer_config.py
 *   __post_init__, pipeline_parallel/schedules.py
 *   forward_backward_pipelining_with_interleaving.
 * - torchtitan v0.2.2: distributed/parallel_dims.py ParallelDims._validate and
 *   seq_len_divisor, train.py Trainer.__init__, distributed/pipeline_parallel.py
 *   pipeline_llm / build_pipeline_schedule, config/job_config.py field names.
 * The world size comes from the launcher line, not from the spec, so a file and
 * a launcher that disagree fail. Golden texts catch format changes; a random
 * loop checks that no emitted file ever fails its engine's rules.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "nk-launch.h"

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

/* ---- small parsers ---- */

/* The value after @flag in a word list, or NULL. */
static const char *
word_after (char **words,
            const char *flag)
{
  for (guint i = 0; words[i] != NULL; i++)
    if (strcmp (words[i], flag) == 0)
      return words[i + 1];
  return NULL;
}

static gint64
word_int (char **words,
          const char *flag,
          gint64 fallback)
{
  const char *v = word_after (words, flag);

  return v != NULL ? g_ascii_strtoll (v, NULL, 10) : fallback;
}

static char **
split_words (const char *line)
{
  g_auto(GStrv) raw = g_strsplit_set (line, " \t\n", -1);
  GPtrArray *words = g_ptr_array_new ();

  for (guint i = 0; raw[i] != NULL; i++)
    if (raw[i][0] != '\0')
      g_ptr_array_add (words, g_strdup (raw[i]));
  g_ptr_array_add (words, NULL);
  return (char **) g_ptr_array_free (words, FALSE);
}

/* TOML: "[section]" lines and "key = value" lines into "section.key" → value
 * (strings unquoted); "#" lines are comments. Enough for flat job configs. */
static GHashTable *
parse_toml (const char *text)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *section = g_strdup ("");

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));
      char *eq;

      if (line[0] == '\0' || line[0] == '#')
        continue;
      if (line[0] == '[')
        {
          g_assert_true (g_str_has_suffix (line, "]"));
          g_free (section);
          section = g_strndup (line + 1, strlen (line) - 2);
          continue;
        }
      eq = strstr (line, " = ");
      g_assert_nonnull (eq);
      *eq = '\0';
      {
        char *value = eq + 3;
        gsize n = strlen (value);

        if (n >= 2 && value[0] == '"' && value[n - 1] == '"')
          value = g_strndup (value + 1, n - 2);
        else
          value = g_strdup (value);
        g_assert_false (g_hash_table_contains (table, line));
        g_hash_table_insert (table, g_strdup_printf ("%s.%s", section, line), value);
      }
    }
  return table;
}

static gint64
toml_int (GHashTable *t,
          const char *key,
          gint64      fallback)
{
  const char *v = g_hash_table_lookup (t, key);

  return v != NULL ? g_ascii_strtoll (v, NULL, 10) : fallback;
}

/* ---- DeepSpeed ---- */

static gint64
member_int (JsonObject *o,
            const char *name)
{
  g_assert_true (json_object_has_member (o, name));
  return json_object_get_int_member (o, name);
}

static gboolean
enabled (JsonObject *o,
         const char *name)
{
  return json_object_has_member (o, name)
         && json_object_get_boolean_member (json_object_get_object_member (o, name), "enabled");
}

/* engine.py get_data_types and _do_optimizer_sanity_check: which model and
 * gradient-accumulation dtypes DeepSpeed accepts (0 fp32, 1 fp16, 2 bf16). */
static void
deepspeed_dtype_check (JsonObject *o,
                       gint64      stage,
                       guint       pp)
{
  int model = enabled (o, "fp16") ? 1 : enabled (o, "bf16") ? 2 : 0;
  int accum;

  if (json_object_has_member (o, "data_types"))
    {
      const char *name = json_object_get_string_member (json_object_get_object_member (o, "data_types"),
                                                        "grad_accum_dtype");

      accum = strcmp (name, "fp32") == 0 ? 0 : strcmp (name, "fp16") == 0 ? 1 : 2;
      g_assert_true (strcmp (name, "fp32") == 0 || strcmp (name, "fp16") == 0 || strcmp (name, "bf16") == 0);
    }
  else
    accum = model == 2 && stage == 0 ? 0 : model;
  if (stage > 0)
    return;  /* ZeRO takes every mix */
  if (model == accum)
    g_assert_true (model != 2 || pp > 1);  /* "Bfloat16 wrapper must use ... fp32" */
  else
    g_assert_true (model == 2 && accum == 0);  /* else "unsupported mix" */
}

/* Re-checks ds_config.json and the launcher line; pp is not in the file (the
 * PipelineModule carries it) so the spec gives it. */
static void
recheck_deepspeed (const char         *text,
                   const char         *command,
                   const NkLaunchSpec *spec)
{
  static const char *const torch_or_ds[] = { "adam", "adamw", "adagrad", "lamb", "sgd", "rmsprop", NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) words = split_words (command);
  JsonObject *o, *opt, *params;
  gint64 world, train, micro, gas, stage;
  g_autofree char *type = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (words[0], ==, "deepspeed");
  g_assert_nonnull (word_after (words, "--deepspeed"));
  g_assert_cmpstr (word_after (words, "--deepspeed_config"), ==, "ds_config.json");
  /* config.py __init__: world_size = the mpu's data-parallel size; a
   * PipelineModule's grid makes it world / pp */
  world = word_int (words, "--num_nodes", 1) * word_int (words, "--num_gpus", 1);
  /* launcher/runner.py main: several nodes come from a hostfile */
  if (word_int (words, "--num_nodes", 1) > 1)
    g_assert_nonnull (word_after (words, "--hostfile"));
  g_assert_cmpint (world % spec->pp, ==, 0);
  world /= spec->pp;
  train = member_int (o, "train_batch_size");
  micro = member_int (o, "train_micro_batch_size_per_gpu");
  gas = member_int (o, "gradient_accumulation_steps");
  /* config.py _batch_assertion */
  g_assert_cmpint (train, >, 0);
  g_assert_cmpint (micro, >, 0);
  g_assert_cmpint (gas, >, 0);
  g_assert_cmpint (train, ==, micro * gas * world);
  /* config.py _do_error_check; pipe/engine.py PipelineEngine.__init__ */
  stage = member_int (json_object_get_object_member (o, "zero_optimization"), "stage");
  g_assert_cmpint (stage, >=, 0);
  g_assert_cmpint (stage, <=, 3);
  if (spec->pp > 1)
    g_assert_cmpint (stage, <, 2);
  g_assert_false (enabled (o, "bf16") && enabled (o, "fp16"));
  deepspeed_dtype_check (o, stage, spec->pp);
  /* engine.py: a DEEPSPEED_OPTIMIZERS name or a torch.optim class */
  opt = json_object_get_object_member (o, "optimizer");
  type = g_ascii_strdown (json_object_get_string_member (opt, "type"), -1);
  g_assert_true (g_strv_contains (torch_or_ds, type));
  /* zero/utils.py ZERO_SUPPORTED_OPTIMIZERS: Adam, AdamW, Adagrad (and fused
   * ones); others need zero_allow_untested_optimizer under ZeRO */
  if (stage > 0 && strcmp (type, "adam") != 0 && strcmp (type, "adamw") != 0 && strcmp (type, "adagrad") != 0)
    g_assert_true (json_object_has_member (o, "zero_allow_untested_optimizer")
                   && json_object_get_boolean_member (o, "zero_allow_untested_optimizer"));
  params = json_object_get_object_member (opt, "params");
  g_assert_false (json_object_has_member (params, "max_grad_norm"));
  g_assert_cmpfloat (json_object_get_double_member (params, "lr"), ==, spec->lr);
  /* engine.py: "adam" runs AdamW unless adam_w_mode is false */
  if (strcmp (type, "adam") == 0)
    g_assert_false (json_object_get_boolean_member (params, "adam_w_mode"));
  g_assert_true (strcmp (type, "adamw") != 0 || !json_object_has_member (params, "adam_w_mode"));
  /* the plan's numbers, not just self-consistent ones */
  g_assert_cmpint (train, ==, (gint64) spec->global_batch);
  g_assert_cmpint (micro, ==, (gint64) spec->micro_batch);
  g_assert_cmpint (stage, ==, spec->zero_stage);
  g_assert_true (enabled (o, "bf16") == (spec->precision == NK_PRECISION_BF16_MIXED));
}

/* ---- Megatron-LM ---- */

/* The words of MEGATRON_ARGS=( ... ) and of the torchrun line. */
static void
split_megatron (const char *text,
                char     ***out_args,
                char     ***out_launch)
{
  const char *start = strstr (text, "MEGATRON_ARGS=(\n");
  const char *end, *launch;
  g_autofree char *body = NULL;

  g_assert_nonnull (start);
  start += strlen ("MEGATRON_ARGS=(\n");
  end = strstr (start, "\n)\n");
  g_assert_nonnull (end);
  body = g_strndup (start, end - start);
  *out_args = split_words (body);
  launch = strstr (end, "torchrun ");
  g_assert_nonnull (launch);
  *out_launch = split_words (launch);
}

static gboolean
has_flag (char **words,
          const char *flag)
{
  return g_strv_contains ((const char *const *) words, flag);
}

/* Every word is a flag Megatron's arguments.py defines or a value after one. */
static void
megatron_known_flags (char **args)
{
  static const char *const known[] = {
    "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
    "--num-layers-per-virtual-pipeline-stage", "--context-parallel-size", "--sequence-parallel",
    "--micro-batch-size", "--global-batch-size", "--use-distributed-optimizer", "--use-megatron-fsdp",
    "--data-parallel-sharding-strategy", "--num-layers", "--hidden-size", "--num-attention-heads",
    "--group-query-attention", "--num-query-groups", "--ffn-hidden-size", "--swiglu",
    "--untie-embeddings-and-output-weights", "--seq-length", "--max-position-embeddings", "--bf16",
    "--fp16", "--accumulate-allreduce-grads-in-fp32", "--recompute-granularity", "--recompute-method",
    "--recompute-num-layers", "--attention-backend", "--train-iters", "--optimizer", "--sgd-momentum",
    "--adam-beta1", "--adam-beta2", "--adam-eps", "--weight-decay", "--lr", "--ckpt-format",
    "--grad-reduce-in-bf16", NULL,
  };

  for (guint i = 0; args[i] != NULL; i++)
    if (g_str_has_prefix (args[i], "--"))
      g_assert_true (g_strv_contains (known, args[i]));
    else
      g_assert_true (i > 0 && g_str_has_prefix (args[i - 1], "--"));
}

static void
recheck_megatron (const char         *text,
                  const NkLaunchSpec *spec)
{
  g_auto(GStrv) a = NULL;
  g_auto(GStrv) launch = NULL;
  gint64 world, tp, pp, cp, dp, micro, global, m, layers, heads, groups, vpp = 1;
  const char *gran;

  g_assert_true (g_str_has_prefix (text, "#!/bin/bash\n"));
  split_megatron (text, &a, &launch);
  megatron_known_flags (a);
  g_assert_cmpstr (word_after (launch, "--master_port"), ==, "\"$MASTER_PORT\"");
  g_assert_true (has_flag (launch, "pretrain_gpt.py"));
  world = word_int (launch, "--nproc_per_node", 1) * word_int (launch, "--nnodes", 1);
  tp = word_int (a, "--tensor-model-parallel-size", 1);
  pp = word_int (a, "--pipeline-model-parallel-size", 1);
  cp = word_int (a, "--context-parallel-size", 1);
  /* arguments.py validate_args: world % total_model_size */
  g_assert_cmpint (world % (tp * pp * cp), ==, 0);
  dp = world / (tp * pp * cp);
  micro = word_int (a, "--micro-batch-size", 0);
  global = word_int (a, "--global-batch-size", micro * dp);
  g_assert_cmpint (micro, >, 0);
  /* num_microbatches_calculator.py ConstantNumMicroBatchesCalculator */
  g_assert_cmpint (global % (micro * dp), ==, 0);
  m = global / (micro * dp);
  g_assert_cmpint (m, >=, 1);
  layers = word_int (a, "--num-layers", 0);
  /* validate_args: layers % pp; per stage % per virtual stage */
  g_assert_cmpint (layers % pp, ==, 0);
  if (word_after (a, "--num-layers-per-virtual-pipeline-stage") != NULL)
    {
      gint64 per = word_int (a, "--num-layers-per-virtual-pipeline-stage", 0);

      g_assert_cmpint ((layers / pp) % per, ==, 0);
      vpp = layers / pp / per;
    }
  if (vpp > 1)
    {
      /* validate_args (p2p overlap on by default) and schedules.py with
       * microbatch_group_size_per_vp_stage = pp */
      g_assert_cmpint (pp, >, 1);
      g_assert_cmpint (m, >=, pp);
      g_assert_cmpint (m % pp, ==, 0);
    }
  heads = word_int (a, "--num-attention-heads", 0);
  /* transformer_config.py __post_init__ */
  g_assert_cmpint (heads % tp, ==, 0);
  groups = has_flag (a, "--group-query-attention") ? word_int (a, "--num-query-groups", 0) : heads;
  g_assert_true (groups % tp == 0 || tp % groups == 0);
  g_assert_cmpint (word_int (a, "--hidden-size", 0) % heads, ==, 0);
  g_assert_cmpint (word_int (a, "--max-position-embeddings", 0), >=, word_int (a, "--seq-length", 0));
  if (cp > 1)
    g_assert_cmpint (word_int (a, "--seq-length", 0) % (2 * cp), ==, 0);
  /* validate_args drops sequence parallelism at tp = 1: the plan would lie */
  if (has_flag (a, "--sequence-parallel"))
    {
      g_assert_cmpint (tp, >, 1);
      /* core/tensor_parallel/mappings.py _split_along_first_dim */
      g_assert_cmpint ((word_int (a, "--seq-length", 0) / cp) % tp, ==, 0);
    }
  g_assert_false (has_flag (a, "--bf16") && has_flag (a, "--fp16"));
  g_assert_false (has_flag (a, "--grad-reduce-in-bf16") && has_flag (a, "--accumulate-allreduce-grads-in-fp32"));
  gran = word_after (a, "--recompute-granularity");
  if (g_strcmp0 (gran, "full") == 0)
    {
      const char *method = word_after (a, "--recompute-method");
      gint64 n = word_int (a, "--recompute-num-layers", 0);

      g_assert_true (g_strcmp0 (method, "uniform") == 0 || g_strcmp0 (method, "block") == 0);
      g_assert_cmpint (n, >=, 1);
      g_assert_cmpint (n, <=, layers / pp);
    }
  else if (gran != NULL)
    {
      g_assert_cmpstr (gran, ==, "selective");
      g_assert_null (word_after (a, "--recompute-method"));
      g_assert_null (word_after (a, "--recompute-num-layers"));
    }
  g_assert_true (g_strcmp0 (word_after (a, "--optimizer"), "adam") == 0
                 || g_strcmp0 (word_after (a, "--optimizer"), "sgd") == 0);
  /* validate_args, if args.use_megatron_fsdp */
  if (has_flag (a, "--use-megatron-fsdp"))
    g_assert_cmpstr (word_after (a, "--ckpt-format"), ==, "fsdp_dtensor");
  /* the plan's numbers */
  g_assert_cmpint (world, ==, spec->gpus);
  g_assert_cmpint (dp, ==, spec->dp);
  g_assert_cmpint (m, ==, (gint64) spec->grad_accum);
  g_assert_cmpint (vpp, ==, spec->virtual_stages);
  g_assert_cmpint (word_int (a, "--train-iters", 0), ==, (gint64) spec->train_steps);
  g_assert_true (has_flag (a, "--untie-embeddings-and-output-weights") == !spec->tied_embeddings);
  g_assert_true (has_flag (a, "--swiglu") == (spec->ffn == NK_FFN_SWIGLU));
}

/* ---- torchtitan ---- */

static gint64
header_int (const char *text,
            const char *key)
{
  const char *p = strstr (text, key);

  g_assert_nonnull (p);
  return g_ascii_strtoll (p + strlen (key), NULL, 10);
}

static void
torchtitan_known_keys (GHashTable *t)
{
  static const char *const known[] = {
    "job.description", "model.name", "model.flavor", "optimizer.name", "optimizer.lr",
    "optimizer.eps", "optimizer.weight_decay", "training.local_batch_size",
    "training.global_batch_size", "training.seq_len", "training.steps",
    "training.mixed_precision_param", "training.mixed_precision_reduce",
    "parallelism.data_parallel_replicate_degree", "parallelism.data_parallel_shard_degree",
    "parallelism.fsdp_reshard_after_forward", "parallelism.tensor_parallel_degree",
    "parallelism.pipeline_parallel_degree", "parallelism.context_parallel_degree",
    "parallelism.pipeline_parallel_microbatch_size", "parallelism.pipeline_parallel_schedule",
    "parallelism.pipeline_parallel_layers_per_stage",
    "parallelism.pipeline_parallel_first_stage_less_layers",
    "parallelism.pipeline_parallel_last_stage_less_layers", "activation_checkpoint.mode", NULL,
  };
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, t);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_assert_true (g_strv_contains (known, key));
}

/* pipeline_parallel.py pipeline_llm: the stage count and stages per rank */
static gint64
torchtitan_stages_per_rank (GHashTable *t,
                            gint64      layers,
                            gint64      pp)
{
  const char *schedule = g_hash_table_lookup (t, "parallelism.pipeline_parallel_schedule");
  gboolean single = schedule == NULL || strcmp (schedule, "1F1B") == 0 || strcmp (schedule, "GPipe") == 0;
  gint64 lps = toml_int (t, "parallelism.pipeline_parallel_layers_per_stage", 0);
  gint64 stages, per_rank;

  if (lps == 0)
    return single ? 1 : 2;
  stages = (layers + toml_int (t, "parallelism.pipeline_parallel_first_stage_less_layers", 1)
            + toml_int (t, "parallelism.pipeline_parallel_last_stage_less_layers", 1) + lps - 1) / lps;
  g_assert_cmpint (stages % pp, ==, 0);
  per_rank = stages / pp;
  if (single)
    g_assert_cmpint (per_rank, ==, 1);
  else
    g_assert_cmpint (per_rank, >=, 2);
  return per_rank;
}

/* models/llama3/model/model.py FeedForward.__init__, from the model args in
 * the header comment, must come to the planned FFN size. */
static void
torchtitan_ffn_check (const char         *text,
                      const NkLaunchSpec *spec)
{
  gint64 dim = header_int (text, "(dim=");
  gint64 multiple_of = header_int (text, "multiple_of=");
  const char *m = strstr (text, "ffn_dim_multiplier=");
  gint64 hidden = (gint64) (2.0 * (double) (4 * dim) / 3.0);

  if (m != NULL)
    hidden = (gint64) (g_ascii_strtod (m + strlen ("ffn_dim_multiplier="), NULL) * (double) hidden);
  hidden = multiple_of * ((hidden + multiple_of - 1) / multiple_of);
  g_assert_cmpint (hidden, ==, spec->d_ff != 0 ? spec->d_ff : 4 * (gint64) spec->d_model);
}

static void
recheck_torchtitan (const char         *text,
                    const NkLaunchSpec *spec)
{
  static const char *const modes[] = { "selective", "full", "memory_budget", "none", NULL };
  g_autoptr(GHashTable) t = parse_toml (text);
  gint64 world, rep, shard, cp, tp, pp, local, global, micro, batch_degree, layers, per_rank = 1;
  const char *launch = strstr (text, "# Launch: ");

  g_assert_nonnull (launch);
  g_assert_nonnull (strstr (text, "Python"));
  torchtitan_known_keys (t);
  if (g_str_has_prefix (launch, "# Launch: NGPU="))
    world = header_int (launch, "NGPU=");
  else
    world = header_int (launch, "--nnodes ") * header_int (launch, "--nproc_per_node ");
  rep = toml_int (t, "parallelism.data_parallel_replicate_degree", 1);
  shard = toml_int (t, "parallelism.data_parallel_shard_degree", -1);
  cp = toml_int (t, "parallelism.context_parallel_degree", 1);
  tp = toml_int (t, "parallelism.tensor_parallel_degree", 1);
  pp = toml_int (t, "parallelism.pipeline_parallel_degree", 1);
  /* parallel_dims.py ParallelDims._validate */
  g_assert_true (rep >= 1 && cp >= 1 && tp >= 1 && pp >= 1);
  g_assert_true (shard == -1 || shard >= 1);
  if (shard < 0)
    shard = world / (rep * cp * tp * pp);
  g_assert_cmpint (shard, >=, 1);
  g_assert_cmpint (rep * shard * cp * tp * pp, ==, world);
  /* llama3/infra/parallelize.py: without FSDP (dp_shard > 1 or cp > 1), DDP
   * over dp_replicate must be all of the world */
  if (!(shard > 1 || cp > 1) && rep > 1)
    g_assert_cmpint (rep, ==, world);
  /* train.py Trainer.__init__ */
  local = toml_int (t, "training.local_batch_size", 8);
  batch_degree = rep * shard;
  global = toml_int (t, "training.global_batch_size", -1);
  if (global < 0)
    global = local * batch_degree;
  g_assert_cmpint (global, >, 0);
  g_assert_cmpint (global % (local * batch_degree), ==, 0);
  /* llama3/infra/parallelize.py: seq_len % seq_len_divisor (tp · 2·cp) */
  g_assert_cmpint (toml_int (t, "training.seq_len", 2048) % (tp * cp * 2), ==, 0);
  layers = header_int (text, "n_layers=");
  torchtitan_ffn_check (text, spec);
  g_assert_cmpint (header_int (text, "n_heads=") % tp, ==, 0);
  g_assert_cmpint (header_int (text, "n_kv_heads=") % tp, ==, 0);
  micro = toml_int (t, "parallelism.pipeline_parallel_microbatch_size", 1);
  if (pp > 1)
    {
      /* pipeline_parallel.py build_pipeline_schedule */
      g_assert_cmpint (local % micro, ==, 0);
      per_rank = torchtitan_stages_per_rank (t, layers, pp);
    }
  g_assert_true (g_strv_contains (modes, g_hash_table_lookup (t, "activation_checkpoint.mode")));
  g_assert_true (g_strcmp0 (g_hash_table_lookup (t, "optimizer.name"), "Adam") == 0
                 || g_strcmp0 (g_hash_table_lookup (t, "optimizer.name"), "AdamW") == 0);
  g_assert_cmpstr (g_hash_table_lookup (t, "training.mixed_precision_reduce"), ==, "float32");
  /* the plan's numbers: tokens per step and sequences per GPU per micro-step */
  g_assert_cmpint (world, ==, spec->gpus);
  g_assert_cmpint (global, ==, (gint64) spec->global_batch);
  g_assert_cmpint (batch_degree, ==, spec->dp);
  g_assert_cmpint (pp > 1 ? micro : local, ==, (gint64) spec->micro_batch);
  g_assert_cmpint (per_rank, ==, spec->virtual_stages);
  g_assert_cmpint (toml_int (t, "training.steps", 0), ==, (gint64) spec->train_steps);
}

/* ---- driving ---- */

/* Writes @spec for @engine; when the writer accepts, the file must pass the
 * re-check. Returns whether it accepted. */
static gboolean
write_and_recheck (const NkLaunchSpec *spec,
                   NkLaunchEngine      engine)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;
  g_autofree char *text = nk_launch_write (spec, engine, &error);
  g_autofree char *command = nk_launch_command (spec, engine, &error2);

  g_assert_true ((text == NULL) == (command == NULL));
  if (text == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == NK_LAUNCH_ERROR);
      g_assert_true (nk_launch_check (spec, engine, NULL) == FALSE);
      return FALSE;
    }
  g_assert_no_error (error);
  switch (engine)
    {
    case NK_LAUNCH_ENGINE_DEEPSPEED:
      recheck_deepspeed (text, command, spec);
      break;
    case NK_LAUNCH_ENGINE_MEGATRON:
      recheck_megatron (text, spec);
      g_assert_nonnull (strstr (text, command));
      break;
    case NK_LAUNCH_ENGINE_TORCHTITAN:
      recheck_torchtitan (text, spec);
      g_assert_nonnull (strstr (text, command));
      break;
    default:
      g_assert_not_reached ();
    }
  return TRUE;
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
  g_assert_nonnull (strstr (text, "  --ffn-hidden-size 28672\n  --swiglu\n  --untie-embeddings-and-output-weights\n"));
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
  s.vocab = g_rand_boolean (r) ? 0 : 32000;
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

      switch (g_rand_int_range (r, 0, 10))
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
  "# and MASTER_PORT set; DATA_ARGS holds the data and tokenizer arguments (planned vocabulary: 50304).\n"
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
  "  --untie-embeddings-and-output-weights\n"
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
