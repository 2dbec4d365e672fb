/* nk-launch.c: launch configs for DeepSpeed, Megatron-LM and torchtitan, checked by the engines' rules
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each rule below is the engine's own, read in its source (not guessed):
 * - DeepSpeed at v0.16.4-6-g38327e07 (38327e07f6cd): deepspeed/runtime/config.py
 *   DeepSpeedConfig._batch_assertion, _set_batch_related_parameters and
 *   __init__ (world_size is the mpu's data-parallel size); DEEPSPEED_OPTIMIZERS and
 *   deepspeed/runtime/engine.py _configure_basic_optimizer (other names are
 *   looked up in torch.optim; "Adam" means AdamW unless adam_w_mode is false);
 *   deepspeed/runtime/pipe/engine.py PipelineEngine.__init__ ("ZeRO-2 and
 *   ZeRO-3 are incompatible with pipeline parallelism"); config.py
 *   get_bfloat16_enabled / get_fp16_enabled (no FP8, no autocast before
 *   0.17.2); launcher/runner.py EXPORT_ENVS.
 * - Megatron-LM at core_v0.15.0rc7-2333-gd98e8a64dd (d98e8a64ddf3):
 *   megatron/training/arguments.py validate_args (world % (tp·pp·cp), layers %
 *   pp, layers per stage % layers per virtual stage, interleaving needs pp > 1
 *   with the default p2p overlap, seq % (2·cp), sequence parallelism dropped at
 *   tp = 1); megatron/core/num_microbatches_calculator.py
 *   ConstantNumMicroBatchesCalculator (global % (micro·dp));
 *   megatron/core/transformer/transformer_config.py __post_init__ (heads % tp,
 *   query groups a multiple or a divisor of tp, full recompute needs a method and
 *   a layer count); megatron/core/pipeline_parallel/schedules.py
 *   forward_backward_pipelining_with_interleaving (micro-batches per step a
 *   multiple of pp, at least pp, with microbatch_group_size_per_vp_stage = pp);
 *   the model's flags (normalization, add_bias_linear as --disable-bias-linear,
 *   --position-embedding-type, fp8 as --fp8-format, fp8_recipe) in
 *   transformer_config.py and arguments.py; core/transformer/attention.py
 *   (groups fewer than TP sub-shard QKV, since f7dfb99795, Megatron Core
 *   0.16); megatron/training/vocab_utils.py calculate_padded_vocab_size.
 * - torchtitan at v0.2.2 (73a0e6979dd1): torchtitan/distributed/parallel_dims.py
 *   ParallelDims._validate (dp_replicate·dp_shard·cp·tp·pp == world) and
 *   seq_len_divisor; torchtitan/train.py Trainer.__init__ (global % (local·dp));
 *   torchtitan/distributed/pipeline_parallel.py pipeline_llm (layers per stage,
 *   stages per rank) and build_pipeline_schedule (local % microbatch);
 *   torchtitan/components/optimizer.py build_optimizers (Adam, AdamW);
 *   torchtitan/config/job_config.py (field names; selective_ac_option "2" by
 *   default); models/llama3/model/model.py FeedForward (hidden size);
 *   distributed/utils.py maybe_enable_amp; distributed/activation_checkpoint.py;
 *   components/quantization/float8.py and utils.py module_filter_fn.
 */
#include "config.h"

#include <inttypes.h>

#include <math.h>

#include <glib/gi18n-lib.h>

#include "nk-json.h"
#include "nk-launch.h"

/**
 * nk_launch_error_quark:
 *
 * The error domain of the launch configs, %NK_LAUNCH_ERROR; its codes are
 * #NkLaunchError.
 *
 * Returns: the domain's quark
 */
G_DEFINE_QUARK (nk-launch-error-quark, nk_launch_error)

static const struct {
  const char *name;
  const char *file_name;
} engines[NK_LAUNCH_N_ENGINES] = {
  [NK_LAUNCH_ENGINE_DEEPSPEED] = { "deepspeed", "ds_config.json" },
  [NK_LAUNCH_ENGINE_MEGATRON] = { "megatron", "pretrain_gpt.sh" },
  [NK_LAUNCH_ENGINE_TORCHTITAN] = { "torchtitan", "train.toml" },
};

/**
 * nk_launch_spec_init:
 * @spec: the spec to fill
 *
 * Sets a one-GPU, one-step, bf16-mixed AdamW spec with no model shape; the
 * caller fills in the shape and the layout.
 */
void
nk_launch_spec_init (NkLaunchSpec *spec)
{
  g_return_if_fail (spec != NULL);

  *spec = (NkLaunchSpec) {
    .ffn = NK_FFN_GELU,
    .dp = 1, .tp = 1, .pp = 1, .cp = 1, .virtual_stages = 1,
    .micro_batch = 1, .global_batch = 1, .grad_accum = 1,
    .gpus = 1, .gpus_per_node = 8, .nodes = 1,
    .precision = NK_PRECISION_BF16_MIXED,
    .matmul_dtype = NK_PEAK_BF16,
    .fp32_grads = TRUE,
    .recompute = NK_RECOMPUTE_NONE,
    .optimizer = NK_OPTIMIZER_ADAMW,
    .lr = 3e-4,
    .train_steps = 1,
  };
}

/**
 * nk_launch_engine_to_string:
 * @engine: an engine
 *
 * Names @engine as the CLI's `--export` option takes it.
 *
 * Returns: "deepspeed", "megatron" or "torchtitan"
 */
const char *
nk_launch_engine_to_string (NkLaunchEngine engine)
{
  g_return_val_if_fail ((guint) engine < NK_LAUNCH_N_ENGINES, NULL);
  return engines[engine].name;
}

/**
 * nk_launch_engine_from_string:
 * @text: (nullable): an engine's name, "deepspeed", "megatron" or "torchtitan",
 *   in any case
 * @out_engine: (out): the engine
 *
 * Parses the CLI's `--export` value, the inverse of nk_launch_engine_to_string().
 *
 * Returns: %TRUE if @text names an engine; else @out_engine is left alone
 */
gboolean
nk_launch_engine_from_string (const char     *text,
                              NkLaunchEngine *out_engine)
{
  g_return_val_if_fail (out_engine != NULL, FALSE);

  for (guint i = 0; text != NULL && i < NK_LAUNCH_N_ENGINES; i++)
    if (g_ascii_strcasecmp (text, engines[i].name) == 0)
      {
        *out_engine = (NkLaunchEngine) i;
        return TRUE;
      }
  return FALSE;
}

/**
 * nk_launch_engine_file_name:
 * @engine: an engine
 *
 * The conventional name of the file nk_launch_write() gives for @engine, the one
 * the planner page's save dialog suggests.
 *
 * Returns: "ds_config.json", "pretrain_gpt.sh" or "train.toml"
 */
const char *
nk_launch_engine_file_name (NkLaunchEngine engine)
{
  g_return_val_if_fail ((guint) engine < NK_LAUNCH_N_ENGINES, NULL);
  return engines[engine].file_name;
}

static guint
kv_heads_of (const NkLaunchSpec *s)
{
  return s->kv_heads == 0 ? s->heads : s->kv_heads;
}

/* The matmuls run below fp32's 4 bytes (bf16, fp16, fp8). */
static gboolean
matmul_low (const NkLaunchSpec *s)
{
  return s->matmul_dtype == NK_PEAK_BF16 || s->matmul_dtype == NK_PEAK_FP16 || s->matmul_dtype == NK_PEAK_FP8;
}

/* TF32 is not PyTorch's default for fp32 matmuls (allow_tf32 is False since
 * 1.12, and none of the three engines sets it); this variable forces it
 * (PyTorch's "CUDA Environment Variables"). */
#define TF32_ENV "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"

static guint
gpus_per_node_used (const NkLaunchSpec *s)
{
  return s->nodes > 1 ? s->gpus_per_node : s->gpus;
}

/* A spec that contradicts itself is refused before any engine's rule: the
 * products here are what every engine's file is computed from. */
/* Every check function below has an @error and returns FALSE at the first rule
 * broken. */
#define REFUSE(...) \
  G_STMT_START { \
    g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_INVALID, __VA_ARGS__); \
    return FALSE; \
  } G_STMT_END

/* The precision policy and the matmuls' format must be one run: mixed
 * precision computes in its 16-bit format (bf16 also under FP8 linears). */
static gboolean
check_numerics (const NkLaunchSpec *s,
                GError            **error)
{
  NkPeakDtype m = s->matmul_dtype;

  if (m != NK_PEAK_FP32 && m != NK_PEAK_TF32 && !matmul_low (s))
    REFUSE (_("The matmuls must run in fp32, tf32, bf16, fp16 or fp8."));
  if ((s->precision == NK_PRECISION_BF16_MIXED && m != NK_PEAK_BF16 && m != NK_PEAK_FP8)
      || (s->precision == NK_PRECISION_FP16_MIXED && m != NK_PEAK_FP16))
    REFUSE (_("The plan prices the matmuls at the %s peak, which %s mixed precision does not run."),
            nk_peak_dtype_to_string (m), s->precision == NK_PRECISION_FP16_MIXED ? "fp16" : "bf16");
  return TRUE;
}

static gboolean
check_common (const NkLaunchSpec *s,
              GError            **error)
{
  g_autoptr(GError) lr_error = NULL;

  if (s->layers == 0 || s->d_model == 0 || s->heads == 0 || s->seq == 0)
    REFUSE (_("A launch config needs the model's shape: layers, d_model, heads and seq."));
  if (s->dp == 0 || s->tp == 0 || s->pp == 0 || s->cp == 0 || s->virtual_stages == 0
      || s->gpus_per_node == 0 || s->micro_batch == 0 || s->grad_accum == 0)
    REFUSE (_("Parallel degrees, micro-batch and gradient accumulation must be at least 1."));
  if ((guint64) s->dp * s->tp * s->pp * s->cp != s->gpus)
    REFUSE (_("DP × TP × PP × CP (%u × %u × %u × %u) must equal the GPUs (%u)."),
            s->dp, s->tp, s->pp, s->cp, s->gpus);
  if (s->nodes != (s->gpus + s->gpus_per_node - 1) / s->gpus_per_node
      || (s->nodes > 1 && s->gpus % s->gpus_per_node != 0))
    REFUSE (_("%u GPUs are not %u whole nodes of %u GPUs."), s->gpus, s->nodes, s->gpus_per_node);
  if (s->global_batch != s->micro_batch * s->grad_accum * s->dp)
    REFUSE (_("The global batch (%" PRIu64 ") must equal micro-batch × gradient accumulation × DP (%"
              PRIu64 " × %" PRIu64 " × %u)."),
            s->global_batch, s->micro_batch, s->grad_accum, s->dp);
  if (s->heads % kv_heads_of (s) != 0)
    REFUSE (_("The attention heads (%u) must be a multiple of the key/value heads (%u)."),
            s->heads, kv_heads_of (s));
  /* megatron/training/arguments.py validate_args: kv_channels = hidden / heads */
  if (s->d_model % s->heads != 0)
    REFUSE (_("The hidden size (%u) must be a multiple of the attention heads (%u)."), s->d_model, s->heads);
  if (s->zero_stage > 3)
    REFUSE (_("The ZeRO stage must be 0, 1, 2 or 3."));
  if (!nk_optimizer_check_lr (s->lr, NULL, &lr_error))
    REFUSE ("%s", lr_error->message);
  if (s->train_steps == 0)
    REFUSE (_("A run needs at least one training step."));
  if (s->virtual_stages > 1 && s->pp == 1)
    REFUSE (_("Interleaved virtual stages need pipeline parallelism (PP > 1)."));
  /* every engine builds an embedding and an output layer of the tokenizer's size */
  if (s->vocab == 0)
    REFUSE (_("A launch config needs the vocabulary size: without it the plan counted no embeddings, "
              "and every engine builds them."));
  return check_numerics (s, error);
}

static gboolean
check_deepspeed (const NkLaunchSpec *s,
                 GError            **error)
{
  /* deepspeed/runtime/config.py's world_size is the DP group; the config has no
   * TP or CP degree (those live in the model code), so they cannot be carried. */
  if (s->tp > 1 || s->cp > 1 || s->virtual_stages > 1 || s->sequence_parallel)
    {
      g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                   _("A DeepSpeed config carries data and pipeline parallelism only; export TP, CP, "
                     "interleaving or sequence parallelism to Megatron-LM."));
      return FALSE;
    }
  /* config.py and constants.py: "bf16" and "fp16" are the only precision
   * keys; both make the weights 16-bit (fp32 master copy in the optimizer),
   * and there is no FP8 mode */
  if (s->matmul_dtype == NK_PEAK_FP8)
    {
      g_set_error_literal (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                           _("DeepSpeed's config has no FP8 training; export FP8 to Megatron-LM or torchtitan."));
      return FALSE;
    }
  if (s->precision == NK_PRECISION_FP32 && matmul_low (s))
    {
      g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                   _("DeepSpeed's config cannot keep fp32 weights under %s matmuls; plan mixed precision "
                     "(its \"%s\" mode) instead."),
                   nk_peak_dtype_to_string (s->matmul_dtype), nk_peak_dtype_to_string (s->matmul_dtype));
      return FALSE;
    }
  /* launcher/runner.py main: other nodes get only the variables of
   * EXPORT_ENVS (MLFLOW, PYTHON, MV2, UCX, NCCL prefixes) and .deepspeed_env */
  if (s->matmul_dtype == NK_PEAK_TF32 && s->nodes > 1)
    {
      g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                   _("DeepSpeed's launcher does not pass TORCH_ALLOW_TF32_CUBLAS_OVERRIDE (TF32) to the other nodes; "
                     "export a TF32 run on several nodes to Megatron-LM or torchtitan."));
      return FALSE;
    }
  /* deepspeed/runtime/pipe/engine.py PipelineEngine.__init__ */
  if (s->pp > 1 && s->zero_stage >= 2)
    REFUSE (_("DeepSpeed refuses ZeRO-2 and ZeRO-3 with pipeline parallelism (PP = %u)."), s->pp);
  /* engine.py _do_optimizer_sanity_check: without ZeRO, fp16 accumulates in
   * fp16 only, and bf16 in fp32 unless pipelined */
  if (s->zero_stage == 0 && s->precision == NK_PRECISION_FP16_MIXED && s->fp32_grads)
    REFUSE (_("Without ZeRO, DeepSpeed's fp16 mode cannot accumulate gradients in fp32."));
  if (s->zero_stage == 0 && s->precision == NK_PRECISION_BF16_MIXED && !s->fp32_grads && s->pp == 1)
    REFUSE (_("Without ZeRO or pipeline parallelism, DeepSpeed's bf16 mode accumulates gradients in fp32 only."));
  return TRUE;
}

static gboolean
check_megatron (const NkLaunchSpec *s,
                GError            **error)
{
  guint tp = s->tp, kv = kv_heads_of (s);

  if (s->optimizer == NK_OPTIMIZER_ADAGRAD || s->optimizer == NK_OPTIMIZER_RMSPROP)
    {
      g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                   _("Megatron-LM's --optimizer offers adam and sgd, not %s."),
                   nk_optimizer_to_string (s->optimizer));
      return FALSE;
    }
  /* arguments.py validate_args: params_dtype is fp32, or bf16/fp16 with
   * --bf16/--fp16, and FP8 runs Transformer Engine's linears over those;
   * enable_autocast has no command-line flag */
  if (s->precision == NK_PRECISION_FP32 && matmul_low (s))
    {
      g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                   _("Megatron-LM runs its matmuls in its weights' format and has no flag for fp32 weights "
                     "under %s matmuls; plan mixed precision instead."),
                   nk_peak_dtype_to_string (s->matmul_dtype));
      return FALSE;
    }
  /* transformer_config.py __post_init__ */
  if (s->heads % tp != 0)
    REFUSE (_("Megatron-LM needs the attention heads (%u) to be a multiple of TP (%u)."), s->heads, tp);
  if (kv % tp != 0 && tp % kv != 0)
    REFUSE (_("Megatron-LM needs the query groups (%u) to be a multiple or a divisor of TP (%u)."), kv, tp);
  /* attention.py SelfAttention: with fewer groups than TP ranks (sub-sharding,
   * Megatron Core 0.16 on) linear_qkv is still one ColumnParallelLinear of
   * (heads + 2 · groups) · head_dim outputs, which layers.py divides by TP */
  if (kv < tp && (guint64) (s->heads + 2 * kv) * (s->d_model / s->heads) % tp != 0)
    REFUSE (_("Megatron-LM needs the fused QKV width ((%u + 2 × %u) × %u) to be a multiple of TP (%u)."),
            s->heads, kv, s->d_model / s->heads, tp);
  /* training/vocab_utils.py calculate_padded_vocab_size: the embedding and
   * output rows are a multiple of make_vocab_size_divisible_by × TP */
  if (s->vocab % tp != 0)
    REFUSE (_("Megatron-LM pads the vocabulary to a multiple of TP: the planned %u tokens are not a multiple of TP (%u)."),
            s->vocab, tp);
  /* arguments.py validate_args */
  if (s->layers % s->pp != 0)
    REFUSE (_("Megatron-LM needs the layers (%u) to be a multiple of PP (%u)."), s->layers, s->pp);
  if (s->virtual_stages > 1 && (s->layers / s->pp) % s->virtual_stages != 0)
    REFUSE (_("Megatron-LM needs the layers per pipeline stage (%u) to be a multiple of the virtual stages (%u)."),
            s->layers / s->pp, s->virtual_stages);
  /* schedules.py forward_backward_pipelining_with_interleaving */
  if (s->virtual_stages > 1 && s->grad_accum % s->pp != 0)
    REFUSE (_("Megatron-LM's interleaved schedule needs the micro-batches per step (%" PRIu64
              ") to be a multiple of PP (%u)."), s->grad_accum, s->pp);
  if (s->cp > 1 && s->seq % (2 * s->cp) != 0)
    REFUSE (_("Megatron-LM needs the sequence length (%u) to be a multiple of 2 × CP (%u)."), s->seq, 2 * s->cp);
  /* validate_args turns sequence parallelism off at TP = 1: the run would not be the plan */
  if (s->sequence_parallel && tp == 1)
    REFUSE (_("Sequence parallelism needs tensor parallelism (TP > 1); Megatron-LM turns it off at TP = 1."));
  /* core/tensor_parallel/mappings.py _split_along_first_dim: the sequence
   * (already split over CP) is cut into TP pieces */
  if (s->sequence_parallel && (s->seq / s->cp) % tp != 0)
    REFUSE (_("Megatron-LM's sequence parallelism needs the sequence per CP rank (%u) to be a multiple of TP (%u)."),
            s->seq / s->cp, tp);
  return TRUE;
}

/* llama3's FeedForward.__init__ (models/llama3/model/model.py) in the
 * doubles Python computes with: hidden = int(2 * (4 * dim) / 3), then
 * int(ffn_dim_multiplier * hidden) when a multiplier is given, then rounded
 * up to a multiple of multiple_of. */
static guint64
torchtitan_hidden (guint64 dim,
                   guint64 multiple_of,
                   double  multiplier)
{
  double hidden = floor (2.0 * (double) (4 * dim) / 3.0);

  if (multiplier > 0)
    hidden = floor (multiplier * hidden);
  return multiple_of * (((guint64) hidden + multiple_of - 1) / multiple_of);
}

/* multiple_of = d_ff lands every first size in 1..d_ff on d_ff; above it, the
 * shortest decimal multiplier that brings int(2·4·dim/3) into 1..d_ff (written
 * as Python reads it back). %FALSE when none does. */
static gboolean
torchtitan_ffn (const NkLaunchSpec *s,
                guint64            *out_multiple_of,
                char              **out_multiplier)
{
  guint64 target = s->d_ff != 0 ? s->d_ff : 4 * (guint64) s->d_model;
  double first = floor (2.0 * (double) (4 * (guint64) s->d_model) / 3.0);

  *out_multiple_of = target;
  *out_multiplier = NULL;
  if (first <= (double) target)
    return torchtitan_hidden (s->d_model, target, 0) == target;
  for (int digits = 1; digits <= 17; digits++)
    {
      char fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, fmt, ((double) target + 0.5) / first);
      if (torchtitan_hidden (s->d_model, target, g_ascii_strtod (buf, NULL)) == target)
        {
          *out_multiplier = g_strdup (buf);
          return TRUE;
        }
    }
  return FALSE;
}

/* The dp_shard of the file (write_torchtitan): ZeRO-0 is DDP. */
static guint
torchtitan_shard (const NkLaunchSpec *s)
{
  return s->zero_stage == 0 ? 1 : s->dp;
}

static gboolean
check_torchtitan_numerics (const NkLaunchSpec *s,
                           GError            **error)
{
  guint kv_width = kv_heads_of (s) * (s->d_model / s->heads);
  guint64 d_ff = s->d_ff != 0 ? s->d_ff : 4 * (guint64) s->d_model;

  /* distributed/utils.py maybe_enable_amp: without FSDP (dp_shard > 1 or
   * CP > 1) mixed precision is "disabled" under TP or PP */
  if (matmul_low (s) && torchtitan_shard (s) == 1 && s->cp == 1 && (s->tp > 1 || s->pp > 1))
    REFUSE (_("torchtitan applies mixed precision with TP or PP only through FSDP (ZeRO 1–3 over DP > 1) "
              "or CP; this layout would run its matmuls in fp32, not %s."),
            nk_peak_dtype_to_string (s->matmul_dtype));
  /* components/quantization/utils.py module_filter_fn: a Linear with a size
   * that is not a multiple of 16 stays in bf16 */
  if (s->matmul_dtype == NK_PEAK_FP8
      && (s->d_model % 16 != 0 || d_ff % 16 != 0 || kv_width % 16 != 0 || s->vocab % 16 != 0))
    REFUSE (_("torchtitan's float8 linears skip every layer with a size that is not a multiple of 16 "
              "(d_model %u, d_ff %" PRIu64 ", key/value width %u, vocabulary %u)."),
            s->d_model, d_ff, kv_width, s->vocab);
  return TRUE;
}

static gboolean
check_torchtitan (const NkLaunchSpec *s,
                  GError            **error)
{
  guint divisor = s->tp * s->cp * 2;
  guint64 multiple_of;
  g_autofree char *multiplier = NULL;

  /* config/job_config.py: mixed_precision_param is bfloat16 or float32 */
  if (s->ffn != NK_FFN_SWIGLU || s->tied_embeddings || s->optimizer < NK_OPTIMIZER_ADAM
      || s->precision == NK_PRECISION_FP16_MIXED || s->matmul_dtype == NK_PEAK_FP16)
    {
      g_set_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED,
                   _("torchtitan's llama3 model needs a SwiGLU FFN, untied embeddings, Adam or AdamW, "
                     "and no fp16 (it trains in fp32, bf16 or FP8)."));
      return FALSE;
    }
  if (!torchtitan_ffn (s, &multiple_of, &multiplier))
    REFUSE (_("torchtitan's llama3 cannot size its FFN at %u for dim %u (multiple_of and ffn_dim_multiplier "
              "do not reach it)."), s->d_ff, s->d_model);
  /* models/llama3/infra/parallelize.py: seq_len % ParallelDims.seq_len_divisor
   * (tp · 2·cp), asserted whenever the model is parallelized */
  if (s->seq % divisor != 0)
    REFUSE (_("torchtitan needs the sequence length (%u) to be a multiple of TP × 2 × CP (%u)."), s->seq, divisor);
  /* no explicit check in v0.2.2: the colwise split of wq/wk/wv over TP
   * (llama3/infra/parallelize.py) must not cut a head, as the model's
   * view(bs, seqlen, -1, head_dim) assumes */
  if (s->heads % s->tp != 0 || kv_heads_of (s) % s->tp != 0)
    REFUSE (_("torchtitan's tensor parallelism needs the heads (%u) and key/value heads (%u) to be multiples of TP (%u)."),
            s->heads, kv_heads_of (s), s->tp);
  /* pipeline_parallel.py pipeline_llm: pp · v stages of layers / (pp · v) layers each */
  if (s->pp > 1 && s->layers % (s->pp * s->virtual_stages) != 0)
    REFUSE (_("torchtitan needs the layers (%u) to split evenly into PP × virtual stages (%u)."),
            s->layers, s->pp * s->virtual_stages);
  if (s->sequence_parallel && s->tp == 1)
    REFUSE (_("Sequence parallelism needs tensor parallelism (TP > 1)."));
  /* llama3/infra/parallelize.py parallelize_llama: "DDP has not supported > 1D
   * parallelism" (ZeRO-0 is DDP; with CP torchtitan shards over FSDP instead) */
  if (s->zero_stage == 0 && s->dp > 1 && s->gpus != s->dp)
    REFUSE (_("torchtitan runs DDP (ZeRO-0) only as the sole parallelism; use ZeRO 1–3 with TP, PP or CP."));
  return check_torchtitan_numerics (s, error);
}

#undef REFUSE

/**
 * nk_launch_check:
 * @spec: the spec
 * @engine: the engine whose rules apply
 * @error: where a broken rule is reported
 *
 * Runs @engine's rules on @spec (the ones nk_launch_write() refuses with) without
 * writing anything: a layout whose degrees do not multiply to the GPUs, a batch
 * that does not split into micro-batches, a feature the engine lacks.
 *
 * Returns: %TRUE when @engine would accept @spec
 */
gboolean
nk_launch_check (const NkLaunchSpec *spec,
                 NkLaunchEngine      engine,
                 GError            **error)
{
  g_return_val_if_fail (spec != NULL, FALSE);
  g_return_val_if_fail ((guint) engine < NK_LAUNCH_N_ENGINES, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_common (spec, error))
    return FALSE;
  switch (engine)
    {
    case NK_LAUNCH_ENGINE_DEEPSPEED:
      return check_deepspeed (spec, error);
    case NK_LAUNCH_ENGINE_MEGATRON:
      return check_megatron (spec, error);
    case NK_LAUNCH_ENGINE_TORCHTITAN:
      return check_torchtitan (spec, error);
    default:
      g_return_val_if_reached (FALSE);
    }
}

/* The shortest text that reads back as the same double, with a dot. */
static char *
format_double (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int digits = 1; digits <= 17; digits++)
    {
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, fmt, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return g_strdup (buf);
}

/* ---- DeepSpeed: ds_config.json ---- */

/* The JSON is written here rather than by JsonGenerator: json-glib 1.6 (bookworm)
 * prints doubles with 17 digits and appends ".0" after an exponent ("1e-08.0"),
 * which is not JSON. The values are numbers, booleans and fixed ASCII names, so
 * no escaping is needed; the tests read the file back with JsonParser. */
typedef GPtrArray JsonMembers;

static void
member (JsonMembers *members,
        const char  *name,
        char        *value)
{
  g_ptr_array_add (members, g_strdup_printf ("\"%s\": %s", name, value));
  g_free (value);
}

static char *
json_uint (guint64 value)
{
  return g_strdup_printf ("%" PRIu64, value);
}

static char *
json_bool (gboolean value)
{
  return g_strdup (value ? "true" : "false");
}

static char *
json_str (const char *value)
{
  GString *out = g_string_new (NULL);

  nk_json_append_string (out, value, -1);
  return g_string_free (out, FALSE);
}

/* Consumes @members; nested objects are built with their own @indent. */
static char *
json_object (JsonMembers *members,
             guint        indent)
{
  GString *out = g_string_new ("{\n");

  for (guint i = 0; i < members->len; i++)
    g_string_append_printf (out, "%*s%s%s\n", indent + 2, "", (char *) members->pdata[i],
                            i + 1 < members->len ? "," : "");
  g_string_append_printf (out, "%*s}", indent, "");
  g_ptr_array_unref (members);
  return g_string_free (out, FALSE);
}

static JsonMembers *
json_members (void)
{
  return g_ptr_array_new_with_free_func (g_free);
}

static char *
json_enabled (gboolean enabled,
              guint    indent)
{
  JsonMembers *m = json_members ();

  member (m, "enabled", json_bool (enabled));
  return json_object (m, indent);
}

static char *
deepspeed_optimizer (const NkLaunchSpec *s)
{
  /* Names DeepSpeed knows (config.py DEEPSPEED_OPTIMIZERS) or finds in
   * torch.optim (engine.py _configure_basic_optimizer); the parameters are
   * Napkin's (nk-optim.c) so the run is the planned one. */
  static const char *const names[] = {
    [NK_OPTIMIZER_SGD] = "SGD", [NK_OPTIMIZER_MOMENTUM] = "SGD",
    [NK_OPTIMIZER_ADAGRAD] = "Adagrad", [NK_OPTIMIZER_RMSPROP] = "RMSprop",
    [NK_OPTIMIZER_ADAM] = "Adam", [NK_OPTIMIZER_ADAMW] = "AdamW",
  };
  JsonMembers *opt = json_members ();
  JsonMembers *params = json_members ();

  member (params, "lr", format_double (s->lr));
  if (s->optimizer == NK_OPTIMIZER_MOMENTUM)
    member (params, "momentum", g_strdup ("0.9"));
  if (s->optimizer == NK_OPTIMIZER_ADAM || s->optimizer == NK_OPTIMIZER_ADAMW)
    {
      member (params, "betas", g_strdup ("[0.9, 0.999]"));
      member (params, "eps", g_strdup ("1e-08"));
      member (params, "weight_decay", g_strdup (s->optimizer == NK_OPTIMIZER_ADAMW ? "0.01" : "0"));
    }
  /* engine.py: "Adam" means AdamW unless adam_w_mode is false */
  if (s->optimizer == NK_OPTIMIZER_ADAM)
    member (params, "adam_w_mode", json_bool (FALSE));
  member (opt, "type", json_str (names[s->optimizer]));
  member (opt, "params", json_object (params, 4));
  return json_object (opt, 2);
}

static char *
write_deepspeed (const NkLaunchSpec *s)
{
  JsonMembers *root = json_members ();
  JsonMembers *zero = json_members ();
  g_autofree char *text = NULL;

  /* All three given, so _set_batch_related_parameters derives nothing and
   * _batch_assertion checks train = micro × gas × world (world = DP). */
  member (root, "train_batch_size", json_uint (s->global_batch));
  member (root, "train_micro_batch_size_per_gpu", json_uint (s->micro_batch));
  member (root, "gradient_accumulation_steps", json_uint (s->grad_accum));
  member (root, "steps_per_print", json_uint (10));
  member (zero, "stage", json_uint (s->zero_stage));
  member (root, "zero_optimization", json_object (zero, 2));
  member (root, "bf16", json_enabled (s->precision == NK_PRECISION_BF16_MIXED, 2));
  member (root, "fp16", json_enabled (s->precision == NK_PRECISION_FP16_MIXED, 2));
  if (nk_precision_is_mixed (s->precision))
    {
      /* config.py get_data_types_params: grad_accum_dtype */
      JsonMembers *types = json_members ();

      member (types, "grad_accum_dtype",
              json_str (s->fp32_grads ? "fp32" : s->precision == NK_PRECISION_BF16_MIXED ? "bf16" : "fp16"));
      member (root, "data_types", json_object (types, 2));
    }
  member (root, "optimizer", deepspeed_optimizer (s));
  /* zero/utils.py ZERO_SUPPORTED_OPTIMIZERS has no SGD or RMSprop: engine.py
   * _do_optimizer_sanity_check asks for this flag with ZeRO */
  if (s->zero_stage > 0 && s->optimizer != NK_OPTIMIZER_ADAM && s->optimizer != NK_OPTIMIZER_ADAMW
      && s->optimizer != NK_OPTIMIZER_ADAGRAD)
    member (root, "zero_allow_untested_optimizer", json_bool (TRUE));
  text = json_object (root, 0);
  return g_strconcat (text, "\n", NULL);
}

/* ---- Megatron-LM: a bash script around torchrun pretrain_gpt.py ---- */

static void
arg (GString    *out,
     const char *flag,
     const char *value)
{
  if (value != NULL)
    g_string_append_printf (out, "  %s %s\n", flag, value);
  else
    g_string_append_printf (out, "  %s\n", flag);
}

static void
arg_uint (GString    *out,
          const char *flag,
          guint64     value)
{
  g_autofree char *text = g_strdup_printf ("%" PRIu64, value);

  arg (out, flag, text);
}

static void
megatron_optimizer_args (GString            *out,
                         const NkLaunchSpec *s)
{
  g_autofree char *lr = format_double (s->lr);

  if (s->optimizer == NK_OPTIMIZER_SGD || s->optimizer == NK_OPTIMIZER_MOMENTUM)
    {
      arg (out, "--optimizer", "sgd");
      arg (out, "--sgd-momentum", s->optimizer == NK_OPTIMIZER_MOMENTUM ? "0.9" : "0");
      arg (out, "--weight-decay", "0");
    }
  else
    {
      /* Megatron's "adam" decouples weight decay (AdamW); at weight decay 0 it
       * is Napkin's Adam. */
      arg (out, "--optimizer", "adam");
      arg (out, "--adam-beta1", "0.9");
      arg (out, "--adam-beta2", "0.999");
      arg (out, "--adam-eps", "1e-08");
      arg (out, "--weight-decay", s->optimizer == NK_OPTIMIZER_ADAMW ? "0.01" : "0");
    }
  arg (out, "--lr", lr);
}

/* The largest divisor of vocab / TP up to Megatron's default 128: a tokenizer
 * of exactly the planned size is then padded to itself (vocab_utils.py
 * calculate_padded_vocab_size: ceil(V / (M · TP)) · M · TP). */
static guint
megatron_vocab_divisor (const NkLaunchSpec *s)
{
  guint per_rank = s->vocab / s->tp;

  for (guint m = MIN (per_rank, 128u); m > 1; m--)
    if (per_rank % m == 0)
      return m;
  return 1;
}

/* The model the plan counted (nk-plan-cluster.c fill_shape): a GELU spec is
 * GPT-2's, Megatron's defaults (LayerNorm with bias, biases on every linear,
 * learned absolute positions), said explicitly; a SwiGLU spec is Llama's
 * (RMSNorm weights only, no biases, RoPE without parameters). Flags as
 * transformer_config.py (normalization, add_bias_linear as
 * --disable-bias-linear, gated_linear_unit) and arguments.py name them. */
static void
megatron_model_args (GString            *out,
                     const NkLaunchSpec *s)
{
  gboolean llama = s->ffn == NK_FFN_SWIGLU;

  arg_uint (out, "--num-layers", s->layers);
  arg_uint (out, "--hidden-size", s->d_model);
  arg_uint (out, "--num-attention-heads", s->heads);
  if (kv_heads_of (s) != s->heads)
    {
      arg (out, "--group-query-attention", NULL);
      arg_uint (out, "--num-query-groups", kv_heads_of (s));
    }
  /* arguments.py fills 4·h (GELU) or a rounded 8/3·h (SwiGLU) when absent:
   * always give the planned size */
  arg_uint (out, "--ffn-hidden-size", s->d_ff != 0 ? s->d_ff : 4 * (guint64) s->d_model);
  if (llama)
    arg (out, "--swiglu", NULL);
  arg (out, "--normalization", llama ? "RMSNorm" : "LayerNorm");
  if (llama)
    arg (out, "--disable-bias-linear", NULL);
  arg (out, "--position-embedding-type", llama ? "rope" : "learned_absolute");
  if (!s->tied_embeddings)
    arg (out, "--untie-embeddings-and-output-weights", NULL);
  arg_uint (out, "--make-vocab-size-divisible-by", megatron_vocab_divisor (s));
  arg_uint (out, "--seq-length", s->seq);
  arg_uint (out, "--max-position-embeddings", s->seq);
}

static void
megatron_layout_args (GString            *out,
                      const NkLaunchSpec *s)
{
  arg_uint (out, "--tensor-model-parallel-size", s->tp);
  arg_uint (out, "--pipeline-model-parallel-size", s->pp);
  if (s->virtual_stages > 1)
    arg_uint (out, "--num-layers-per-virtual-pipeline-stage", s->layers / s->pp / s->virtual_stages);
  if (s->cp > 1)
    arg_uint (out, "--context-parallel-size", s->cp);
  if (s->sequence_parallel)
    arg (out, "--sequence-parallel", NULL);
  arg_uint (out, "--micro-batch-size", s->micro_batch);
  arg_uint (out, "--global-batch-size", s->global_batch);
  /* ZeRO-1 is the distributed optimizer; ZeRO-2/3 are Megatron-FSDP's sharding
   * strategies (arguments.py: --data-parallel-sharding-strategy) */
  if (s->zero_stage >= 1)
    arg (out, "--use-distributed-optimizer", NULL);
  if (s->zero_stage >= 2)
    {
      arg (out, "--use-megatron-fsdp", NULL);
      arg (out, "--data-parallel-sharding-strategy",
           s->zero_stage == 2 ? "optim_grads" : "optim_grads_params");
      /* validate_args: "Megatron-FSDP requires the `fsdp_dtensor` checkpointing format" */
      arg (out, "--ckpt-format", "fsdp_dtensor");
    }
}

static void
megatron_numerics_args (GString            *out,
                        const NkLaunchSpec *s)
{
  if (s->precision == NK_PRECISION_BF16_MIXED)
    arg (out, "--bf16", NULL);
  else if (s->precision == NK_PRECISION_FP16_MIXED)
    arg (out, "--fp16", NULL);
  /* transformer_config.py: fp8 ("--fp8-format") e4m3 forward, e5m2 gradients
   * for "hybrid"; the recipe said explicitly (its default, delayed scaling,
   * runs on Hopper and Ada alike) */
  if (s->matmul_dtype == NK_PEAK_FP8)
    {
      arg (out, "--fp8-format", "hybrid");
      arg (out, "--fp8-recipe", "delayed");
    }
  /* validate_args: bf16 accumulates and reduces in fp32 unless
   * --grad-reduce-in-bf16; fp16 only with the flag */
  if (nk_precision_is_mixed (s->precision) && s->fp32_grads)
    arg (out, "--accumulate-allreduce-grads-in-fp32", NULL);
  else if (s->precision == NK_PRECISION_BF16_MIXED)
    arg (out, "--grad-reduce-in-bf16", NULL);
  if (s->recompute == NK_RECOMPUTE_SELECTIVE)
    arg (out, "--recompute-granularity", "selective");
  else if (s->recompute == NK_RECOMPUTE_FULL)
    {
      /* transformer_config.py: full needs a method and a layer count; uniform
       * with 1 keeps each layer's input, as the plan counts */
      arg (out, "--recompute-granularity", "full");
      arg (out, "--recompute-method", "uniform");
      arg (out, "--recompute-num-layers", "1");
    }
  if (s->flash_attention)
    arg (out, "--attention-backend", "flash");
  arg_uint (out, "--train-iters", s->train_steps);
}

static char *
megatron_torchrun (const NkLaunchSpec *s)
{
  return g_strdup_printf ("torchrun --nproc_per_node %u --nnodes %u --node_rank \"$NODE_RANK\" "
                          "--master_addr \"$MASTER_ADDR\" --master_port \"$MASTER_PORT\" "
                          "pretrain_gpt.py \"${MEGATRON_ARGS[@]}\" ${DATA_ARGS:-}",
                          gpus_per_node_used (s), s->nodes);
}

static char *
write_megatron (const NkLaunchSpec *s)
{
  GString *out = g_string_new (NULL);
  g_autofree char *line = megatron_torchrun (s);

  g_string_append_printf (out,
                          "#!/bin/bash\n"
                          "# Megatron-LM launch of the run Napkin planned: %u GPUs (%u node%s of %u), "
                          "TP %u, PP %u, CP %u, DP %u.\n"
                          "# Run it from a Megatron-LM checkout on every node with NODE_RANK, MASTER_ADDR\n"
                          "# and MASTER_PORT set; DATA_ARGS holds the data and tokenizer arguments",
                          s->gpus, s->nodes, s->nodes == 1 ? "" : "s", gpus_per_node_used (s),
                          s->tp, s->pp, s->cp, s->dp);
  g_string_append_printf (out, ";\n# the tokenizer's vocabulary must pad to the planned %u tokens "
                          "(--make-vocab-size-divisible-by %u × TP %u).\n",
                          s->vocab, megatron_vocab_divisor (s), s->tp);
  if (kv_heads_of (s) < s->tp)
    g_string_append_printf (out, "# %u query groups on TP %u need Megatron Core 0.16 or later (QKV sub-sharding).\n",
                            kv_heads_of (s), s->tp);
  g_string_append (out, "set -euo pipefail\n\n");
  if (s->matmul_dtype == NK_PEAK_TF32)
    g_string_append (out, "# The plan priced TF32 matmuls; PyTorch runs fp32 matmuls without TF32 unless told.\n"
                          "export " TF32_ENV "\n\n");
  g_string_append (out, "NODE_RANK=${NODE_RANK:-0}\n"
                        "MASTER_ADDR=${MASTER_ADDR:-localhost}\n"
                        "MASTER_PORT=${MASTER_PORT:-6000}\n\n"
                        "MEGATRON_ARGS=(\n");
  megatron_layout_args (out, s);
  megatron_model_args (out, s);
  megatron_numerics_args (out, s);
  megatron_optimizer_args (out, s);
  g_string_append_printf (out, ")\n\n%s\n", line);
  return g_string_free (out, FALSE);
}

/* ---- torchtitan: a TOML job config of the 0.2 releases ---- */

static char *
torchtitan_command (const NkLaunchSpec *s)
{
  const char *env = s->matmul_dtype == NK_PEAK_TF32 ? TF32_ENV " " : "";

  if (s->nodes == 1)
    return g_strdup_printf ("%sNGPU=%u CONFIG_FILE=./train.toml ./run_train.sh", env, s->gpus);
  return g_strdup_printf ("%storchrun --nnodes %u --nproc_per_node %u --rdzv_backend c10d "
                          "--rdzv_endpoint \"$HEAD_NODE:29500\" -m torchtitan.train "
                          "--job.config_file ./train.toml",
                          env, s->nodes, s->gpus_per_node);
}

static void
toml_int (GString    *out,
          const char *key,
          guint64     value)
{
  g_string_append_printf (out, "%s = %" PRIu64 "\n", key, value);
}

static void
toml_str (GString    *out,
          const char *key,
          const char *value)
{
  g_string_append_printf (out, "%s = \"%s\"\n", key, value);
}

/* The FFN's model args; torchtitan_ffn() found them when the spec was checked. */
static char *
torchtitan_ffn_args (const NkLaunchSpec *s)
{
  guint64 multiple_of;
  g_autofree char *multiplier = NULL;

  if (!torchtitan_ffn (s, &multiple_of, &multiplier))
    g_return_val_if_reached (NULL);
  if (multiplier == NULL)
    return g_strdup_printf ("multiple_of=%" PRIu64, multiple_of);
  return g_strdup_printf ("multiple_of=%" PRIu64 ", ffn_dim_multiplier=%s", multiple_of, multiplier);
}

static void
torchtitan_header (GString            *out,
                   const NkLaunchSpec *s)
{
  g_autofree char *line = torchtitan_command (s);
  g_autofree char *ffn = torchtitan_ffn_args (s);

  g_string_append_printf (out,
                          "# torchtitan job config of the run Napkin planned: %u GPUs (%u node%s of %u).\n"
                          "# Written for the TOML job configs of the torchtitan 0.2 releases (field names\n"
                          "# of v0.2.2's torchtitan/config/job_config.py). Newer torchtitan takes Python\n"
                          "# config functions instead of TOML: carry these values over to one.\n"
                          "# Model: add flavor \"napkin\" to llama3_args in torchtitan/models/llama3/__init__.py:\n"
                          "#   TransformerModelArgs(dim=%u, n_layers=%u, n_heads=%u, n_kv_heads=%u,\n"
                          "#   vocab_size=%u, %s)\n"
                          "# Launch: %s\n\n",
                          s->gpus, s->nodes, s->nodes == 1 ? "" : "s", gpus_per_node_used (s),
                          s->d_model, s->layers, s->heads, kv_heads_of (s), s->vocab, ffn, line);
}

static char *
write_torchtitan (const NkLaunchSpec *s)
{
  static const char *const ac_modes[] = {
    [NK_RECOMPUTE_NONE] = "none", [NK_RECOMPUTE_SELECTIVE] = "selective", [NK_RECOMPUTE_FULL] = "full",
  };
  GString *out = g_string_new (NULL);
  g_autofree char *lr = format_double (s->lr);
  /* With pipelining a DP rank's batch is all its micro-batches
   * (pipeline_parallel.py splits local_batch_size into microbatch_size
   * pieces); without, train.py accumulates global / (local × dp) steps. */
  guint64 local = s->pp > 1 ? s->micro_batch * s->grad_accum : s->micro_batch;

  torchtitan_header (out, s);
  g_string_append (out, "[job]\ndescription = \"napkin plan\"\n\n[model]\n");
  toml_str (out, "name", "llama3");
  toml_str (out, "flavor", "napkin");
  /* protocols/model_converter.py: converters by their registered name
   * (components/quantization/float8.py registers "quantize.linear.float8");
   * torchao's Float8Linear, tensorwise scaling by default */
  if (s->matmul_dtype == NK_PEAK_FP8)
    g_string_append (out, "converters = [\"quantize.linear.float8\"]\n");
  g_string_append (out, "\n[optimizer]\n");
  toml_str (out, "name", s->optimizer == NK_OPTIMIZER_ADAMW ? "AdamW" : "Adam");
  g_string_append_printf (out, "lr = %s\neps = 1e-08\nweight_decay = %s\n", lr,
                          s->optimizer == NK_OPTIMIZER_ADAMW ? "0.01" : "0.0");
  g_string_append (out, "\n[training]\n");
  toml_int (out, "local_batch_size", local);
  toml_int (out, "global_batch_size", s->global_batch);
  toml_int (out, "seq_len", s->seq);
  toml_int (out, "steps", s->train_steps);
  /* job_config.py: the dtype FSDP computes in over its fp32 shards (or
   * torch.autocast's under DDP): the matmuls' format, not the weights' */
  toml_str (out, "mixed_precision_param", matmul_low (s) ? "bfloat16" : "float32");
  /* job_config.py: the only reduce dtype is float32 */
  toml_str (out, "mixed_precision_reduce", "float32");
  g_string_append (out, "\n[parallelism]\n");
  /* ZeRO-0 is DDP (replicate); ZeRO-1/2 keep parameters after the forward
   * (FSDP2 reshard_after_forward "never"); ZeRO-3 is FSDP's full shard. */
  toml_int (out, "data_parallel_replicate_degree", s->zero_stage == 0 ? s->dp : 1);
  toml_int (out, "data_parallel_shard_degree", s->zero_stage == 0 ? 1 : s->dp);
  if (s->zero_stage == 1 || s->zero_stage == 2)
    toml_str (out, "fsdp_reshard_after_forward", "never");
  toml_int (out, "tensor_parallel_degree", s->tp);
  toml_int (out, "pipeline_parallel_degree", s->pp);
  toml_int (out, "context_parallel_degree", s->cp);
  toml_int (out, "pipeline_parallel_microbatch_size", s->micro_batch);
  if (s->pp > 1)
    toml_str (out, "pipeline_parallel_schedule", s->virtual_stages > 1 ? "Interleaved1F1B" : "1F1B");
  if (s->virtual_stages > 1)
    {
      toml_int (out, "pipeline_parallel_layers_per_stage", s->layers / (s->pp * s->virtual_stages));
      toml_int (out, "pipeline_parallel_first_stage_less_layers", 0);
      toml_int (out, "pipeline_parallel_last_stage_less_layers", 0);
    }
  g_string_append (out, "\n[activation_checkpoint]\n");
  toml_str (out, "mode", ac_modes[s->recompute]);
  /* job_config.py: selective_ac_option defaults to "2", every second layer
   * fully checkpointed; "op" is the per-op selective recompute
   * (distributed/activation_checkpoint.py _apply_op_sac) */
  if (s->recompute == NK_RECOMPUTE_SELECTIVE)
    toml_str (out, "selective_ac_option", "op");
  return g_string_free (out, FALSE);
}

/**
 * nk_launch_write:
 * @spec: the spec
 * @engine: the engine
 * @error: where a broken rule is reported
 *
 * Writes the engine's launch file for @spec (see nk-launch.h for which).
 *
 * Returns: (transfer full) (nullable): the whole file text, or %NULL when
 *   @engine would refuse @spec
 */
char *
nk_launch_write (const NkLaunchSpec *spec,
                 NkLaunchEngine      engine,
                 GError            **error)
{
  if (!nk_launch_check (spec, engine, error))
    return NULL;
  switch (engine)
    {
    case NK_LAUNCH_ENGINE_DEEPSPEED:
      return write_deepspeed (spec);
    case NK_LAUNCH_ENGINE_MEGATRON:
      return write_megatron (spec);
    case NK_LAUNCH_ENGINE_TORCHTITAN:
      return write_torchtitan (spec);
    default:
      g_return_val_if_reached (NULL);
    }
}

/**
 * nk_launch_command:
 * @spec: the spec
 * @engine: the engine
 * @error: where a broken rule is reported
 *
 * The line that starts the run with the file nk_launch_write() gives. For
 * DeepSpeed it is the only place the launcher line lives (JSON has no
 * comments); train.py must call deepspeed.initialize() with the config, and
 * with PP > 1 build a PipelineModule of @spec's PP stages.
 *
 * Returns: (transfer full) (nullable): the command line, or %NULL when
 *   @engine would refuse @spec
 */
char *
nk_launch_command (const NkLaunchSpec *spec,
                   NkLaunchEngine      engine,
                   GError            **error)
{
  if (!nk_launch_check (spec, engine, error))
    return NULL;
  switch (engine)
    {
    case NK_LAUNCH_ENGINE_DEEPSPEED:
      /* launcher/runner.py main: more than one node needs a hostfile
       * ("Num nodes is >1 but no extra nodes available via hostfile") */
      return g_strdup_printf ("%sdeepspeed --num_nodes %u --num_gpus %u%s train.py --deepspeed "
                              "--deepspeed_config ds_config.json",
                              spec->matmul_dtype == NK_PEAK_TF32 ? TF32_ENV " " : "",
                              spec->nodes, gpus_per_node_used (spec),
                              spec->nodes > 1 ? " --hostfile hostfile" : "");
    case NK_LAUNCH_ENGINE_MEGATRON:
      return megatron_torchrun (spec);
    case NK_LAUNCH_ENGINE_TORCHTITAN:
      return torchtitan_command (spec);
    default:
      g_return_val_if_reached (NULL);
    }
}
