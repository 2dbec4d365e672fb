/* launch-oracle.c: the engines' rules and model builders, re-implemented to re-check launch configs
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
 * Sources read with the fetch tool, at these commits:
 * - Megatron-LM d98e8a64ddf34856e74b24714e3bedb2f5a39553 (core_v0.15.0rc7-2333):
 *   megatron/training/arguments.py (--position-embedding-type, --swiglu,
 *   --untie-embeddings-and-output-weights, --make-vocab-size-divisible-by,
 *   params_dtype from --bf16/--fp16), megatron/training/argument_utils.py
 *   (flags made from TransformerConfig fields), transformer_config.py
 *   (normalization, add_bias_linear as --disable-bias-linear, fp8 as
 *   --fp8-format, fp8_recipe, num_query_groups a multiple or divisor of TP),
 *   core/transformer/attention.py (QKV sub-sharding when groups < TP, since
 *   f7dfb99795 in Megatron Core 0.16), training/vocab_utils.py (padding).
 * - torchtitan v0.2.2 73a0e6979dd10b6b1904098eb3c8f62c18ab87ce:
 *   config/job_config.py (ActivationCheckpoint.selective_ac_option defaults to
 *   "2"; mixed_precision_param bfloat16|float32; Model.converters),
 *   models/llama3/model/model.py FeedForward (hidden-size rule),
 *   distributed/utils.py maybe_enable_amp, components/quantization/float8.py
 *   ("quantize.linear.float8") and utils.py module_filter_fn.
 * - DeepSpeed 38327e07f6cd39b63418f60cedd1651b0be3e7c3 (v0.16.4-6):
 *   runtime/config.py get_bfloat16_enabled / get_fp16_enabled (no FP8 key),
 *   launcher/runner.py (EXPORT_ENVS).
 * The parameter count each file builds is computed here from the file alone,
 * as the engine's modules would build it, and compared with the plan's count.
 * The world size comes from the launcher line, not from the spec, so a file and
 * a launcher that disagree fail.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "launch-oracle.h"

/* ---- small parsers ---- */

/* The value after @flag in a word list, or NULL. */
const char *
word_after (char **words,
            const char *flag)
{
  for (guint i = 0; words[i] != NULL; i++)
    if (strcmp (words[i], flag) == 0)
      return words[i + 1];
  return NULL;
}

gint64
word_int (char **words,
          const char *flag,
          gint64 fallback)
{
  const char *v = word_after (words, flag);

  return v != NULL ? g_ascii_strtoll (v, NULL, 10) : fallback;
}

char **
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
GHashTable *
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

gint64
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
void
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
  if (g_str_has_prefix (words[0], "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE="))
    {
      /* launcher/runner.py passes no TORCH_ variable to other nodes */
      g_assert_cmpint (word_int (words, "--num_nodes", 1), ==, 1);
      g_strfreev (g_steal_pointer (&words));
      words = split_words (command + strlen ("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 "));
    }
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
  g_assert_true (enabled (o, "fp16") == (spec->precision == NK_PRECISION_FP16_MIXED));
  /* config.py: "bf16" and "fp16" are the only precision keys; fp32 otherwise,
   * TF32 only when the launcher's environment forces it */
  g_assert_cmpint (enabled (o, "bf16") ? NK_PEAK_BF16 : enabled (o, "fp16") ? NK_PEAK_FP16
                   : g_str_has_prefix (command, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 deepspeed ") ? NK_PEAK_TF32
                   : NK_PEAK_FP32, ==, spec->matmul_dtype);
}

/* ---- Megatron-LM ---- */

/* The words of MEGATRON_ARGS=( ... ) and of the torchrun line. */
void
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

gboolean
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
    "--grad-reduce-in-bf16", "--normalization", "--disable-bias-linear", "--position-embedding-type",
    "--make-vocab-size-divisible-by", "--fp8-format", "--fp8-recipe", NULL,
  };

  for (guint i = 0; args[i] != NULL; i++)
    if (g_str_has_prefix (args[i], "--"))
      g_assert_true (g_strv_contains (known, args[i]));
    else
      g_assert_true (i > 0 && g_str_has_prefix (args[i - 1], "--"));
}

/* The parameters the planned model has, by hand: GPT-2's (GELU: two
 * LayerNorms with bias, biases on QKV, projection and both FFN matrices,
 * learned positions, a final LayerNorm) or Llama's (SwiGLU: two RMSNorm
 * weights, no biases, RoPE, a final RMSNorm); the output layer when untied. */
double
planned_params (const NkLaunchSpec *s)
{
  double h = s->d_model, kv = (s->kv_heads ? s->kv_heads : s->heads) * (h / s->heads);
  double f = s->d_ff ? s->d_ff : 4 * h, V = s->vocab, layer;

  if (s->ffn == NK_FFN_SWIGLU)
    layer = 2 * h + 2 * h * h + 2 * h * kv + 3 * h * f;
  else
    layer = 4 * h + (2 * h * h + 2 * h * kv) + (h + 2 * kv + h) + 2 * h * f + f + h;
  return s->layers * layer + V * h + (s->ffn == NK_FFN_SWIGLU ? h : 2 * h + s->seq * h)
         + (s->tied_embeddings ? 0 : V * h);
}

/* What pretrain_gpt.py builds from the argument list, from Megatron's modules:
 * the vocabulary padded by vocab_utils.py calculate_padded_vocab_size (the
 * tokenizer has @vocab tokens), VocabParallelEmbedding V × h, learned
 * positions max_position_embeddings × h (none for rope), per layer
 * input_layernorm, linear_qkv ((heads + 2·groups) · kv_channels rows, bias
 * when add_bias_linear, which arguments.py copies into add_qkv_bias),
 * linear_proj, pre_mlp_layernorm, linear_fc1 (2 × ffn rows when gated),
 * linear_fc2; final_layernorm; output_layer when untied. LayerNorm has a
 * weight and a bias, RMSNorm a weight. */
double
megatron_params (char   **a,
                 guint64  vocab)
{
  double h = word_int (a, "--hidden-size", 0), heads = word_int (a, "--num-attention-heads", 0);
  double groups = has_flag (a, "--group-query-attention") ? word_int (a, "--num-query-groups", 0) : heads;
  double kc = floor (h / heads), ffn = word_int (a, "--ffn-hidden-size", 4 * (gint64) h);
  double fc1 = has_flag (a, "--swiglu") ? 2 * ffn : ffn;
  gboolean bias = !has_flag (a, "--disable-bias-linear");
  const char *norm_kind = word_after (a, "--normalization");
  const char *pos = word_after (a, "--position-embedding-type");
  double norm = g_strcmp0 (norm_kind, "RMSNorm") == 0 ? h : 2 * h;   /* LayerNorm is the default */
  gint64 multiple = word_int (a, "--make-vocab-size-divisible-by", 128)
                    * word_int (a, "--tensor-model-parallel-size", 1);
  double V = (double) ((vocab + multiple - 1) / multiple * multiple);
  double layer = norm + h * (heads + 2 * groups) * kc + (bias ? (heads + 2 * groups) * kc : 0)
                 + heads * kc * h + (bias ? h : 0) + norm + h * fc1 + (bias ? fc1 : 0) + ffn * h + (bias ? h : 0);
  double positions = pos == NULL || strcmp (pos, "learned_absolute") == 0
                     ? word_int (a, "--max-position-embeddings", 0) * h : 0;

  g_assert_true (pos == NULL || strcmp (pos, "learned_absolute") == 0 || strcmp (pos, "rope") == 0);
  g_assert_true (norm_kind == NULL || strcmp (norm_kind, "LayerNorm") == 0 || strcmp (norm_kind, "RMSNorm") == 0);
  return word_int (a, "--num-layers", 0) * layer + V * h + positions + norm
         + (has_flag (a, "--untie-embeddings-and-output-weights") ? V * h : 0);
}

/* attention.py Attention.__init__ and SelfAttention: groups below TP are
 * sub-sharded (Megatron Core 0.16 on): divide(heads, groups) and the fused
 * QKV ColumnParallelLinear's divide(out, tp); otherwise divide(groups, tp). */
static void
megatron_attention_check (char **a)
{
  gint64 tp = word_int (a, "--tensor-model-parallel-size", 1);
  gint64 heads = word_int (a, "--num-attention-heads", 0);
  gint64 groups = has_flag (a, "--group-query-attention") ? word_int (a, "--num-query-groups", 0) : heads;
  gint64 kc = word_int (a, "--hidden-size", 0) / heads;

  if (groups < tp)
    {
      g_assert_cmpint (heads % groups, ==, 0);
      g_assert_cmpint ((heads + 2 * groups) * kc % tp, ==, 0);
    }
  else
    g_assert_cmpint (groups % tp, ==, 0);
}

/* arguments.py: params_dtype fp32 unless --bf16/--fp16; TE's FP8 linears on
 * top of them. The matmuls must run as the plan priced them. */
static void
megatron_precision_check (const char         *text,
                          char              **a,
                          const NkLaunchSpec *spec)
{
  gboolean bf16 = has_flag (a, "--bf16"), fp16 = has_flag (a, "--fp16");
  gboolean fp8 = word_after (a, "--fp8-format") != NULL;
  gboolean tf32 = strstr (text, "\nexport TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1\n") != NULL;
  NkPeakDtype matmul = fp8 ? NK_PEAK_FP8 : bf16 ? NK_PEAK_BF16 : fp16 ? NK_PEAK_FP16
                       : tf32 ? NK_PEAK_TF32 : NK_PEAK_FP32;

  g_assert_false (bf16 && fp16);
  if (fp8)
    g_assert_true (g_strcmp0 (word_after (a, "--fp8-format"), "hybrid") == 0
                   || g_strcmp0 (word_after (a, "--fp8-format"), "e4m3") == 0);
  g_assert_cmpint (matmul, ==, spec->matmul_dtype);
  g_assert_true (bf16 == (spec->precision == NK_PRECISION_BF16_MIXED));
  g_assert_true (fp16 == (spec->precision == NK_PRECISION_FP16_MIXED));
}

void
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
  megatron_attention_check (a);
  megatron_precision_check (text, a, spec);
  /* the model Megatron builds is the one the plan counted */
  g_assert_cmpfloat (megatron_params (a, spec->vocab), ==, planned_params (spec));
}

/* ---- torchtitan ---- */

gint64
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
    "parallelism.pipeline_parallel_last_stage_less_layers", "activation_checkpoint.mode",
    "activation_checkpoint.selective_ac_option", "model.converters", NULL,
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
 * the header comment (Python: int(2 * hidden_dim / 3) with hidden_dim =
 * 4 * dim, int(ffn_dim_multiplier * hidden_dim), then up to multiple_of),
 * must come to the planned FFN size. Returns that size. */
gint64
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
  return hidden;
}

/* The llama3 Transformer torchtitan builds from the header's model args:
 * tok_embeddings V × dim, per layer attention_norm and ffn_norm (RMSNorm
 * weights), wq, wk, wv, wo and w1, w2, w3 without bias, the final norm and
 * the untied output layer. */
double
torchtitan_params (const char *text,
                   gint64      hidden)
{
  double dim = header_int (text, "(dim="), heads = header_int (text, "n_heads=");
  double kv = header_int (text, "n_kv_heads="), V = header_int (text, "vocab_size=");
  double hd = floor (dim / heads);
  double layer = 2 * dim + dim * heads * hd + 2 * dim * kv * hd + heads * hd * dim + 3 * dim * hidden;

  return header_int (text, "n_layers=") * layer + V * dim + dim + V * dim;
}

/* job_config.py mixed_precision_param: FSDP's compute dtype (or autocast's
 * under DDP); maybe_enable_amp turns it off under TP or PP without FSDP or
 * CP. The float8 converter by its registered name; "op" selective recompute. */
static void
torchtitan_precision_check (const char         *text,
                            GHashTable         *t,
                            const NkLaunchSpec *spec,
                            gboolean            fsdp)
{
  const char *param = g_hash_table_lookup (t, "training.mixed_precision_param");
  const char *conv = g_hash_table_lookup (t, "model.converters");
  gboolean fp8 = g_strcmp0 (conv, "[\"quantize.linear.float8\"]") == 0;
  gboolean tf32 = strstr (text, "# Launch: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 ") != NULL;
  gboolean amp = fsdp || (toml_int (t, "parallelism.tensor_parallel_degree", 1) == 1
                          && toml_int (t, "parallelism.pipeline_parallel_degree", 1) == 1);
  NkPeakDtype matmul;

  g_assert_true (conv == NULL || fp8);
  g_assert_true (g_strcmp0 (param, "bfloat16") == 0 || g_strcmp0 (param, "float32") == 0);
  if (strcmp (param, "bfloat16") == 0 && amp)
    matmul = fp8 ? NK_PEAK_FP8 : NK_PEAK_BF16;
  else
    matmul = tf32 ? NK_PEAK_TF32 : NK_PEAK_FP32;
  g_assert_cmpint (matmul, ==, spec->matmul_dtype);
  if (g_strcmp0 (g_hash_table_lookup (t, "activation_checkpoint.mode"), "selective") == 0)
    {
      /* activation_checkpoint.py _apply_ac_to_transformer_block: "op" or digits */
      g_assert_cmpstr (g_hash_table_lookup (t, "activation_checkpoint.selective_ac_option"), ==, "op");
      g_assert_cmpint (spec->recompute, ==, NK_RECOMPUTE_SELECTIVE);
    }
}

void
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
  launch += strlen ("# Launch: ");
  /* an environment assignment may come first (TF32) */
  if (g_str_has_prefix (launch, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 "))
    launch += strlen ("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 ");
  if (g_str_has_prefix (launch, "NGPU="))
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
  /* the model torchtitan builds is the one the plan counted */
  g_assert_cmpfloat (torchtitan_params (text, torchtitan_ffn_check (text, spec)), ==, planned_params (spec));
  torchtitan_precision_check (text, t, spec, shard > 1 || cp > 1);
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
gboolean
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
