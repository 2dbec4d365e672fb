/* nk-plan-report.c: the budget planner's text: formulas with their numbers, error sentences, JSON, summary
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything here reads a computed #NkPlanResult (nk-plan-compute.c) and the
 * #NkPlanInputs it came from; nothing here decides a number or knows the
 * #NkPlan object. Numbers become text in nk-plan-format.c.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-json.h"
#include "nk-plan-report-private.h"
#include "nk-units.h"

/**
 * nk_plan_error_quark:
 *
 * The error domain of the planner, %NK_PLAN_ERROR; its codes are #NkPlanError.
 *
 * Returns: the domain's quark
 */
G_DEFINE_QUARK (nk-plan-error-quark, nk_plan_error)

/**
 * nk_plan_zero_text:
 * @stage: a ZeRO stage, 0 to 3 (any other value reads as 3)
 *
 * Says in words what a ZeRO stage shards (Rajbhandari et al. 2020), for the
 * summary and the planner page; translated.
 *
 * Returns: (transfer none): what the stage shards, as one phrase, "ZeRO-1: optimizer
 *   state sharded over the GPUs"
 */
const char *
nk_plan_zero_text (int stage)
{
  switch (stage)
    {
    case 0: return _("ZeRO-0: everything replicated on every GPU");
    case 1: return _("ZeRO-1: optimizer state sharded over the GPUs");
    case 2: return _("ZeRO-2: optimizer state and gradients sharded over the GPUs");
    default: return _("ZeRO-3: parameters, gradients and optimizer state sharded over the GPUs");
    }
}

/* ---------------------------------------------------------------- formulas */

typedef struct {
  const NkPlanInputs *in;
  const NkPlanResult *r;
  const double       *x;   /* the numeric inputs */
  const double       *v;   /* the numeric outputs */
  char              **f;   /* the formulas being written */
} Report;

static void
report_peak (const Report *p)
{
  const NkGpu *gpu = p->r->gpu;
  const char *dtype = nk_peak_dtype_to_string (p->in->dtype);
  double peak = p->v[NK_PLAN_V_PEAK];

  if (!p->r->has[NK_PLAN_V_PEAK])
    return;
  if (p->in->sparse)
    p->f[NK_PLAN_V_PEAK] =
      nk_plan_format_formula (_("%s 2:4-sparse %s peak = %N FLOP/s (dense: %N FLOP/s; the sparse figure "
                                "holds only for matrices with 2 of every 4 weights zero)"),
                              gpu->name, dtype, peak, gpu->peak[p->in->dtype]);
  else if (isfinite (gpu->peak_sparse[p->in->dtype]))
    p->f[NK_PLAN_V_PEAK] =
      nk_plan_format_formula (_("%s dense %s peak = %N FLOP/s (the datasheet's %N FLOP/s is with 2:4 sparsity)"),
                              gpu->name, dtype, peak, gpu->peak_sparse[p->in->dtype]);
  else
    p->f[NK_PLAN_V_PEAK] = nk_plan_format_formula (_("%s dense %s peak = %N FLOP/s"), gpu->name, dtype, peak);
}

static void
report_time (const Report *p)
{
  const double *x = p->x, *v = p->v;
  g_autofree char *days = nk_plan_format_days_number (v[NK_PLAN_V_DAYS]);

  if (p->r->has[NK_PLAN_V_TOTAL_FLOPS])
    p->f[NK_PLAN_V_TOTAL_FLOPS] =
      p->in->layout[NK_PLAN_L_EXPERTS] > 0 && p->r->has[NK_PLAN_V_SHAPE_PARAMS_ACTIVE]
      ? nk_plan_format_formula (_("6 × %N params × %N active / %N total × %N tokens = %N FLOPs (a token passes through the active parameters only)"),
                                x[NK_PLAN_IN_PARAMS], v[NK_PLAN_V_SHAPE_PARAMS_ACTIVE], v[NK_PLAN_V_SHAPE_PARAMS],
                                x[NK_PLAN_IN_TOKENS], v[NK_PLAN_V_TOTAL_FLOPS])
      : nk_plan_format_formula (_("6 × %N params × %N tokens = %N FLOPs"),
                                x[NK_PLAN_IN_PARAMS], x[NK_PLAN_IN_TOKENS],
                                v[NK_PLAN_V_TOTAL_FLOPS]);
  if (p->r->has[NK_PLAN_V_FLOPS_PER_DAY])
    p->f[NK_PLAN_V_FLOPS_PER_DAY] =
      nk_plan_format_formula (_("%N FLOP/s × %N MFU × %N GPUs × 86400 s/day = %N FLOPs/day"),
                              v[NK_PLAN_V_PEAK], p->r->mfu, x[NK_PLAN_IN_GPUS], v[NK_PLAN_V_FLOPS_PER_DAY]);
  if (p->r->has[NK_PLAN_V_DAYS])
    p->f[NK_PLAN_V_DAYS] = nk_plan_format_formula (_("%N FLOPs / %N FLOPs/day = %s days"),
                                                   v[NK_PLAN_V_TOTAL_FLOPS], v[NK_PLAN_V_FLOPS_PER_DAY], days);
  if (p->r->has[NK_PLAN_V_GPU_HOURS])
    p->f[NK_PLAN_V_GPU_HOURS] = nk_plan_format_formula (_("%s days × 24 h × %N GPUs = %N GPU-hours"),
                                                        days, x[NK_PLAN_IN_GPUS], v[NK_PLAN_V_GPU_HOURS]);
  if (p->r->has[NK_PLAN_V_COST])
    p->f[NK_PLAN_V_COST] = nk_plan_format_formula (_("%N GPU-hours × $%N per GPU-hour = $%N"),
                                                   v[NK_PLAN_V_GPU_HOURS], x[NK_PLAN_IN_PRICE], v[NK_PLAN_V_COST]);
  if (p->r->has[NK_PLAN_V_GPUS_DEADLINE])
    p->f[NK_PLAN_V_GPUS_DEADLINE] =
      nk_plan_format_formula (_("⌈%N FLOPs / (%N FLOP/s × %N MFU × 86400 s/day × %N days)⌉ = %N GPUs"),
                              v[NK_PLAN_V_TOTAL_FLOPS], v[NK_PLAN_V_PEAK], p->r->mfu,
                              x[NK_PLAN_IN_DEADLINE], v[NK_PLAN_V_GPUS_DEADLINE]);
}

static char *
report_bytes (const Report *p)
{
  const double *v = p->v;
  double state = nk_optimizer_state_bytes (p->in->optimizer);
  const char *opt = nk_optimizer_to_string (p->in->optimizer);

  if (nk_precision_is_mixed (p->in->precision) && v[NK_PLAN_V_GRAD_BYTES] == 4)
    p->f[NK_PLAN_V_BYTES_PER_PARAM] =
      nk_plan_format_formula (_("2 (bf16 params) + 4 (fp32 grads, Megatron-LM's) + 4 (fp32 master params) + %N (%s state, fp32) "
                                "= %N bytes per parameter"), state, opt, v[NK_PLAN_V_BYTES_PER_PARAM]);
  else if (nk_precision_is_mixed (p->in->precision))
    p->f[NK_PLAN_V_BYTES_PER_PARAM] =
      nk_plan_format_formula (_("2 (bf16 params) + 2 (bf16 grads) + 4 (fp32 master params) + %N (%s state, fp32) "
                                "= %N bytes per parameter"), state, opt, v[NK_PLAN_V_BYTES_PER_PARAM]);
  else
    p->f[NK_PLAN_V_BYTES_PER_PARAM] =
      nk_plan_format_formula (_("4 (fp32 params) + 4 (fp32 grads) + %N (%s state, fp32) = %N bytes per parameter"),
                              state, opt, v[NK_PLAN_V_BYTES_PER_PARAM]);
  p->f[NK_PLAN_V_PARAM_BYTES] = nk_plan_format_formula ("%N", v[NK_PLAN_V_PARAM_BYTES]);
  p->f[NK_PLAN_V_GRAD_BYTES] = nk_plan_format_formula ("%N", v[NK_PLAN_V_GRAD_BYTES]);
  p->f[NK_PLAN_V_OPT_BYTES] = nk_plan_format_formula ("%N", v[NK_PLAN_V_OPT_BYTES]);
  if (nk_precision_is_mixed (p->in->precision))
    return nk_plan_format_formula ("2 + %N + 4 + %N = %N", v[NK_PLAN_V_GRAD_BYTES], state, v[NK_PLAN_V_BYTES_PER_PARAM]);
  return nk_plan_format_formula ("4 + 4 + %N = %N", state, v[NK_PLAN_V_BYTES_PER_PARAM]);
}

/* Korthikanti et al. count 2-byte activations; in fp32 the same tensors take 4
 * bytes each and the dropout masks stay 1 byte: s·b·h·(66 + 9·a·s/h). */
static void
report_transformer (const Report *p)
{
  const double *x = p->x, *v = p->v;
  double b = _nk_plan_activation_batch (p->in), s = x[NK_PLAN_IN_SEQ], L = x[NK_PLAN_IN_LAYERS];
  double h = x[NK_PLAN_IN_D_MODEL], a = x[NK_PLAN_IN_HEADS], q = p->r->act_bytes;
  double per_layer = s * b * h * ((16 * q + 2) + (2 * q + 1) * a * s / h);

  if (q == 2)
    {
      p->f[NK_PLAN_V_ACT_TRANSFORMER] =
        nk_plan_format_formula (_("layers %N × s %N × b %N × h %N × (34 + 5 × a %N × s %N / h %N) B = %N B "
                                  "(Korthikanti et al. 2022, eq. 1, 16-bit activations)"),
                                L, s, b, h, a, s, h, v[NK_PLAN_V_ACT_TRANSFORMER]);
      p->f[NK_PLAN_V_ACT_TRANSFORMER_CKPT] =
        nk_plan_format_formula (_("2 × s %N × b %N × h %N × layers %N B (checkpointed layer inputs) + %N B "
                                  "(one layer recomputed) = %N B (Korthikanti et al. 2022, full recomputation)"),
                                s, b, h, L, per_layer, v[NK_PLAN_V_ACT_TRANSFORMER_CKPT]);
      return;
    }
  p->f[NK_PLAN_V_ACT_TRANSFORMER] =
    nk_plan_format_formula (_("layers %N × s %N × b %N × h %N × (66 + 9 × a %N × s %N / h %N) B = %N B "
                              "(Korthikanti et al. 2022, eq. 1 with 32-bit activations: 16 × 4 + 2 and 2 × 4 + 1, "
                              "dropout masks 1 byte)"),
                            L, s, b, h, a, s, h, v[NK_PLAN_V_ACT_TRANSFORMER]);
  p->f[NK_PLAN_V_ACT_TRANSFORMER_CKPT] =
    nk_plan_format_formula (_("4 × s %N × b %N × h %N × layers %N B (checkpointed fp32 layer inputs) + %N B "
                              "(one layer recomputed) = %N B (Korthikanti et al. 2022, full recomputation)"),
                            s, b, h, L, per_layer, v[NK_PLAN_V_ACT_TRANSFORMER_CKPT]);
}

static void
report_activations (const Report *p)
{
  const double *x = p->x, *v = p->v;
  double b = _nk_plan_activation_batch (p->in), s = x[NK_PLAN_IN_SEQ], L = x[NK_PLAN_IN_LAYERS];
  double h = x[NK_PLAN_IN_D_MODEL];

  if (p->r->has[NK_PLAN_V_ACT_LINEAR])
    p->f[NK_PLAN_V_ACT_LINEAR] =
      nk_plan_format_formula (_("batch %N × seq %N × d_model %N × layers %N = %N values × %N B = %N B "
                                "(the lecture's deep linear model)"),
                              b, s, h, L, b * s * h * L, p->r->act_bytes, v[NK_PLAN_V_ACT_LINEAR]);
  if (p->r->has[NK_PLAN_V_ACT_TRANSFORMER])
    report_transformer (p);
  if (!p->r->has[NK_PLAN_V_MEM_ACT])
    return;
  if (p->r->act_source < 0)
    p->f[NK_PLAN_V_MEM_ACT] =
      g_strdup (_("0 B (give batch, seq, layers and d_model to count activations)"));
  else
    p->f[NK_PLAN_V_MEM_ACT] = g_strdup (p->f[p->r->act_source]);
}

static void
report_memory (const Report *p,
               const char   *bytes_text)
{
  const double *v = p->v;
  double n = p->x[NK_PLAN_IN_PARAMS];
  const NkGpu *gpu = p->r->gpu;

  if (p->r->has[NK_PLAN_V_MEM_PARAMS])
    {
      p->f[NK_PLAN_V_MEM_PARAMS] = nk_plan_format_formula (_("%N params × %N B = %N B"), n,
                                                           v[NK_PLAN_V_PARAM_BYTES], v[NK_PLAN_V_MEM_PARAMS]);
      p->f[NK_PLAN_V_MEM_GRADS] = nk_plan_format_formula (_("%N params × %N B = %N B"), n,
                                                          v[NK_PLAN_V_GRAD_BYTES], v[NK_PLAN_V_MEM_GRADS]);
      p->f[NK_PLAN_V_MEM_OPT] = nk_plan_format_formula (_("%N params × %N B = %N B"), n,
                                                        v[NK_PLAN_V_OPT_BYTES], v[NK_PLAN_V_MEM_OPT]);
      p->f[NK_PLAN_V_MEM_TOTAL] = nk_plan_format_formula (_("%N params × (%s) B + %N B activations = %N B"),
                                                          n, bytes_text, v[NK_PLAN_V_MEM_ACT], v[NK_PLAN_V_MEM_TOTAL]);
    }
  if (p->r->has[NK_PLAN_V_HBM])
    p->f[NK_PLAN_V_HBM] = nk_plan_format_formula (_("%s: %N B (as the datasheet gives it: GB = 1e9 B)"),
                                                  gpu->name, gpu->memory);
}

static char *
report_shard (int          stage,
              int          from_stage,
              double       bytes,
              double       gpus,
              double       per_gpu)
{
  return nk_plan_format_formula (stage >= from_stage ? _("%N B / %N GPUs = %N B") : _("%N B (replicated; %N GPUs) = %N B"),
                                 bytes, gpus, per_gpu);
}

/* Under a layout the per-GPU rows are the most loaded GPU's (the cluster
 * report writes memory-per-gpu-max's formula; nk_plan_report_fill() copies it). */
static void
report_per_gpu_layout (const Report *p,
                       const char   *bytes_text)
{
  const double *v = p->v;
  const int *l = p->r->layout;
  int z = p->r->zero_stage;
  double model = (double) l[NK_PLAN_L_TP] * l[NK_PLAN_L_PP];
  double per = nk_plan_bytes_per_param_per_gpu (v, z, l[NK_PLAN_L_DP]) / model;
  const char *where = _("%N B on the most loaded GPU of the layout");

  p->f[NK_PLAN_V_MEM_PARAMS_GPU] = nk_plan_format_formula (where, v[NK_PLAN_V_MEM_PARAMS_GPU]);
  p->f[NK_PLAN_V_MEM_GRADS_GPU] = nk_plan_format_formula (where, v[NK_PLAN_V_MEM_GRADS_GPU]);
  p->f[NK_PLAN_V_MEM_OPT_GPU] = nk_plan_format_formula (where, v[NK_PLAN_V_MEM_OPT_GPU]);
  p->f[NK_PLAN_V_MEM_ACT_GPU] = nk_plan_format_formula (where, v[NK_PLAN_V_MEM_ACT_GPU]);
  if (p->r->has[NK_PLAN_V_LARGEST])
    p->f[NK_PLAN_V_LARGEST] =
      nk_plan_format_formula (_("(%N B − %N B activations on the most loaded GPU) / (%s B per parameter ÷ TP·PP %N, ZeRO-%N over DP %N = %N B) = %N params"),
                              v[NK_PLAN_V_CAPACITY], v[NK_PLAN_V_MAX_ACT], bytes_text, model, (double) z,
                              (double) l[NK_PLAN_L_DP], per, v[NK_PLAN_V_LARGEST]);
}

/* The lecture's data-parallel view: ZeRO over every GPU, activations split
 * evenly. */
static void
report_per_gpu_lecture (const Report *p,
                        const char   *bytes_text)
{
  const double *v = p->v;
  double gpus = p->x[NK_PLAN_IN_GPUS];
  int z = p->in->zero_stage;
  double per = nk_plan_bytes_per_param_per_gpu (v, z, gpus);

  if (p->r->has[NK_PLAN_V_MEM_ACT_GPU])
    p->f[NK_PLAN_V_MEM_ACT_GPU] = nk_plan_format_formula (_("%N B / %N GPUs (data parallel) = %N B"),
                                                          v[NK_PLAN_V_MEM_ACT], gpus, v[NK_PLAN_V_MEM_ACT_GPU]);
  if (p->r->has[NK_PLAN_V_MEM_PER_GPU])
    {
      p->f[NK_PLAN_V_MEM_PARAMS_GPU] = report_shard (z, 3, v[NK_PLAN_V_MEM_PARAMS], gpus,
                                                     v[NK_PLAN_V_MEM_PARAMS_GPU]);
      p->f[NK_PLAN_V_MEM_GRADS_GPU] = report_shard (z, 2, v[NK_PLAN_V_MEM_GRADS], gpus,
                                                    v[NK_PLAN_V_MEM_GRADS_GPU]);
      p->f[NK_PLAN_V_MEM_OPT_GPU] = report_shard (z, 1, v[NK_PLAN_V_MEM_OPT], gpus,
                                                  v[NK_PLAN_V_MEM_OPT_GPU]);
      p->f[NK_PLAN_V_MEM_PER_GPU] =
        nk_plan_format_formula (_("%s: %N params × %N B per parameter per GPU + %N B activations = %N B per GPU"),
                                nk_plan_zero_text (z), p->x[NK_PLAN_IN_PARAMS], per, v[NK_PLAN_V_MEM_ACT_GPU],
                                v[NK_PLAN_V_MEM_PER_GPU]);
    }
  if (p->r->has[NK_PLAN_V_LARGEST])
    p->f[NK_PLAN_V_LARGEST] =
      nk_plan_format_formula (_("(%N GPUs × %N B HBM − %N B activations) / (%N GPUs × %N B per parameter per GPU) "
                                "= %N params (%s; %s B per parameter)"),
                              gpus, v[NK_PLAN_V_HBM], v[NK_PLAN_V_MEM_ACT], gpus, per, v[NK_PLAN_V_LARGEST],
                              nk_plan_zero_text (z), bytes_text);
}

static void
report_fits (const Report *p)
{
  const double *v = p->v;

  if (p->r->has[NK_PLAN_V_FITS_DP])
    p->f[NK_PLAN_V_FITS_DP] =
      nk_plan_format_formula (p->r->values[NK_PLAN_V_FITS_DP] == 1 ? _("%N B per GPU ≤ %N B %s: fits") : _("%N B per GPU > %N B %s: does not fit"),
                              v[NK_PLAN_V_MEM_PER_GPU], v[NK_PLAN_V_CAPACITY],
                              p->in->layout[NK_PLAN_L_CAPACITY] == NK_CAPACITY_USABLE ? _("usable") : _("HBM"));
  if (p->r->has[NK_PLAN_V_FITS] && p->r->cluster)
    p->f[NK_PLAN_V_FITS] =
      nk_plan_format_formula (p->r->fits ? _("%N B on the most loaded GPU of the layout ≤ %N B %s: fits")
                                         : _("%N B on the most loaded GPU of the layout > %N B %s: does not fit"),
                              v[NK_PLAN_V_MEM_MAX], v[NK_PLAN_V_CAPACITY],
                              p->in->layout[NK_PLAN_L_CAPACITY] == NK_CAPACITY_USABLE ? _("usable") : _("HBM"));
  else if (p->r->has[NK_PLAN_V_FITS])
    p->f[NK_PLAN_V_FITS] = g_strdup (p->f[NK_PLAN_V_FITS_DP]);
}

/* One per-GPU answer: the layout's where the cluster model ran, else the
 * lecture's. */
static void
report_per_gpu (const Report *p,
                const char   *bytes_text)
{
  if (p->r->cluster)
    report_per_gpu_layout (p, bytes_text);
  else
    report_per_gpu_lecture (p, bytes_text);
  report_fits (p);
}

static void
report_sizing (const Report *p)
{
  const double *x = p->x, *v = p->v;
  double d = x[NK_PLAN_IN_D_MODEL], L = x[NK_PLAN_IN_LAYERS], n_ctx = x[NK_PLAN_IN_SEQ];
  double d_ff = x[NK_PLAN_IN_D_FF] > 0 ? x[NK_PLAN_IN_D_FF] : 4 * d;

  if (p->r->has[NK_PLAN_V_SIZED_PARAMS])
    p->f[NK_PLAN_V_SIZED_PARAMS] =
      nk_plan_format_formula (_("2 × d_model %N × n_layer %N × (2 × d_attn %N + d_ff %N) = %N params (embeddings excluded)"),
                              d, L, d, d_ff, v[NK_PLAN_V_SIZED_PARAMS]);
  if (p->r->has[NK_PLAN_V_SIZED_FWD])
    p->f[NK_PLAN_V_SIZED_FWD] =
      nk_plan_format_formula (_("2 × %N + 2 × n_layer %N × n_ctx %N × d_attn %N = %N FLOPs per token"),
                              v[NK_PLAN_V_SIZED_PARAMS], L, n_ctx, d, v[NK_PLAN_V_SIZED_FWD]);
  if (p->r->has[NK_PLAN_V_SIZED_EMBED])
    p->f[NK_PLAN_V_SIZED_EMBED] =
      nk_plan_format_formula (_("(n_vocab %N + n_ctx %N) × d_model %N = %N params"),
                              x[NK_PLAN_IN_VOCAB], n_ctx, d, v[NK_PLAN_V_SIZED_EMBED]);
}

/* ---------------------------------------------------------------- problems */

/* The #NkPlanError code of a problem. */
static NkPlanError
problem_code (NkPlanProblemKind kind)
{
  switch (kind)
    {
    case NK_PLAN_PROBLEM_UNKNOWN_GPU: return NK_PLAN_ERROR_UNKNOWN_GPU;
    case NK_PLAN_PROBLEM_NO_PEAK:
    case NK_PLAN_PROBLEM_NO_MEMORY: return NK_PLAN_ERROR_NO_PEAK;
    case NK_PLAN_PROBLEM_OVERFLOW:
    case NK_PLAN_PROBLEM_DEADLINE: return NK_PLAN_ERROR_OVERFLOW;
    case NK_PLAN_PROBLEM_NO_BANDWIDTH: return NK_PLAN_ERROR_NO_PEAK;
    case NK_PLAN_PROBLEM_NO_LAYOUT: return NK_PLAN_ERROR_NO_LAYOUT;
    default: return NK_PLAN_ERROR_INVALID_INPUT;
    }
}

static const char *
range_sentence (NkPlanInput which)
{
  switch (which)
    {
    case NK_PLAN_IN_PARAMS: return _("Parameters must be a number, at least 1");
    case NK_PLAN_IN_TOKENS: return _("Tokens must be a number, at least 1");
    case NK_PLAN_IN_GPUS: return _("GPUs must be a whole number, at least 1");
    case NK_PLAN_IN_MFU: return _("MFU must be greater than 0 and at most 1");
    case NK_PLAN_IN_BATCH: return _("Batch must be a whole number of sequences (0 when not given)");
    case NK_PLAN_IN_SEQ: return _("Sequence length must be a whole number (0 when not given)");
    case NK_PLAN_IN_LAYERS: return _("Layers must be a whole number (0 when not given)");
    case NK_PLAN_IN_D_MODEL: return _("d_model must be a whole number (0 when not given)");
    case NK_PLAN_IN_HEADS: return _("Heads must be a whole number (0 when not given)");
    case NK_PLAN_IN_D_FF: return _("d_ff must be a whole number (0 for 4 × d_model)");
    case NK_PLAN_IN_VOCAB: return _("Vocabulary size must be a whole number (0 when not given)");
    case NK_PLAN_IN_PRICE: return _("Price must be zero or a positive number of dollars per GPU-hour");
    case NK_PLAN_IN_NVLINK_BW:
    case NK_PLAN_IN_NETWORK_BW: return _("A bandwidth must be zero (the GPU table's) or a positive number of bytes per second");
    case NK_PLAN_IN_EFFICIENCY: return _("Matmul efficiency must be a fraction of the peak from 0 to 1 (0 for the calibrated default)");
    case NK_PLAN_IN_EXPERT_IMBALANCE: return _("Expert imbalance is the busiest expert’s tokens over the mean: a number of at least 1 (1 or 0 is balanced)");
    default: return _("The deadline must be zero or a positive number of days");
    }
}

/* What a value is called in "The … is too large for a double-precision number". */
static const char *
overflow_subject (NkPlanValue which)
{
  switch (which)
    {
    case NK_PLAN_V_TOTAL_FLOPS: return _("total FLOPs count (6 × params × tokens)");
    case NK_PLAN_V_FLOPS_PER_DAY: return _("FLOPs per day");
    case NK_PLAN_V_DAYS: return _("number of days");
    case NK_PLAN_V_GPU_HOURS: return _("number of GPU-hours");
    case NK_PLAN_V_COST: return _("cost");
    case NK_PLAN_V_MEM_PARAMS: return _("parameter memory");
    case NK_PLAN_V_MEM_GRADS: return _("gradient memory");
    case NK_PLAN_V_MEM_OPT: return _("optimizer memory");
    case NK_PLAN_V_MEM_TOTAL: return _("memory total");
    case NK_PLAN_V_SIZED_PARAMS: return _("parameter count");
    case NK_PLAN_V_SIZED_FWD: return _("forward FLOPs per token");
    case NK_PLAN_V_LARGEST: return _("largest parameter count");
    default: return _("activation memory");
    }
}

static char *
problem_sentence (const NkPlanInputs  *in,
                  const NkPlanResult  *r,
                  char *const         *invalid,
                  const NkPlanProblem *problem)
{
  const char *dtype = nk_peak_dtype_to_string (in->dtype);
  /* the table's name; a hand-filled result may carry no row */
  const char *gpu = r->gpu != NULL ? r->gpu->name : in->gpu != NULL ? in->gpu : "";
  g_autoptr(GError) error = NULL;

  switch (problem->kind)
    {
    case NK_PLAN_PROBLEM_NO_VALUE:
      /* the reason the caller kept (the parser's sentence), else the range rule */
      if (invalid != NULL && invalid[problem->which] != NULL)
        return g_strdup (invalid[problem->which]);
      return g_strdup (range_sentence (problem->which));
    case NK_PLAN_PROBLEM_RANGE: return g_strdup (range_sentence (problem->which));
    case NK_PLAN_PROBLEM_UNKNOWN_GPU:
      if (nk_gpus_check_id (in->gpu, &error))
        return g_strdup (gpu);
      return g_strdup (error->message);
    case NK_PLAN_PROBLEM_DTYPE:
      return g_strdup_printf (_("The dtype must be fp32, tf32, bf16, fp16 or fp8, not %s"), dtype);
    case NK_PLAN_PROBLEM_NO_PEAK:
      return g_strdup_printf (in->sparse
                              ? _("The GPU table lists no 2:4-sparse peak for %s in %s; turn sparsity off or choose another dtype")
                              : _("The GPU table lists no dense peak for %s in %s; choose another dtype or GPU"),
                              gpu, dtype);
    case NK_PLAN_PROBLEM_NO_MEMORY:
      return g_strdup_printf (_("The table gives no memory size for %s"), gpu);
    case NK_PLAN_PROBLEM_ZERO_STAGE: return g_strdup (_("The ZeRO stage must be 0, 1, 2 or 3"));
    case NK_PLAN_PROBLEM_NEEDS_HEADS:
      return g_strdup (_("The transformer activation estimate needs the number of attention heads"));
    case NK_PLAN_PROBLEM_OVERFLOW:
      return g_strdup_printf (_("The %s is too large for a double-precision number"),
                              overflow_subject (problem->which));
    case NK_PLAN_PROBLEM_LAYOUT:
    case NK_PLAN_PROBLEM_NO_BANDWIDTH:
    case NK_PLAN_PROBLEM_NO_LAYOUT:
      return _nk_plan_layout_sentence (in, r, problem);
    case NK_PLAN_PROBLEM_DEADLINE:
    default:
      return g_strdup (_("The deadline is too short for any plausible number of GPUs"));
    }
}

/**
 * nk_plan_report_fill:
 * @report: an empty report (zero-initialised or cleared); the text is written here
 * @inputs: the inputs @result was computed from
 * @result: a result of nk_plan_compute()
 * @invalid: (nullable) (array fixed-size=17): why each numeric input has no
 *   value, one per #NkPlanInput (%NK_PLAN_N_INPUTS, 17), the sentence of a
 *   %NK_PLAN_PROBLEM_NO_VALUE problem; or %NULL to use the input's range rule
 *
 * Writes every formula, the bytes-per-parameter sum, the GPU's name and one
 * sentence per problem.
 */
G_STATIC_ASSERT (NK_PLAN_N_INPUTS == 17); /* @invalid's (array fixed-size=17) */

void
nk_plan_report_fill (NkPlanReport       *report,
                     const NkPlanInputs *inputs,
                     const NkPlanResult *result,
                     char *const        *invalid)
{
  Report p = { inputs, result, inputs->in, result->values, report->formulas };

  g_return_if_fail (report != NULL && inputs != NULL && result != NULL);

  report->gpu_name = g_strdup (result->gpu != NULL ? result->gpu->name : inputs->gpu ? inputs->gpu : "");
  report_peak (&p);
  report_time (&p);
  report->bytes_text = report_bytes (&p);
  report_activations (&p);
  report_memory (&p, report->bytes_text);
  report_per_gpu (&p, report->bytes_text);
  report_sizing (&p);
  _nk_plan_report_cluster (inputs, result, report->formulas);
  if (result->cluster)
    {
      /* one memory answer and one deadline answer: the layout's */
      g_free (report->formulas[NK_PLAN_V_MEM_PER_GPU]);
      report->formulas[NK_PLAN_V_MEM_PER_GPU] = g_strdup (report->formulas[NK_PLAN_V_MEM_MAX]);
      g_free (report->formulas[NK_PLAN_V_GPUS_DEADLINE]);
      report->formulas[NK_PLAN_V_GPUS_DEADLINE] = g_strdup (report->formulas[NK_PLAN_V_DEADLINE_GPUS]);
    }
  for (guint i = 0; i < result->n_problems; i++)
    report->messages[i] = problem_sentence (inputs, result, invalid, &result->problems[i]);
}

/**
 * nk_plan_report_clear:
 * @report: a report
 *
 * Frees the text; @report is empty again.
 */
void
nk_plan_report_clear (NkPlanReport *report)
{
  g_return_if_fail (report != NULL);

  for (guint i = 0; i < NK_PLAN_N_FORMULAS; i++)
    g_clear_pointer (&report->formulas[i], g_free);
  for (guint i = 0; i < NK_PLAN_MAX_PROBLEMS; i++)
    g_clear_pointer (&report->messages[i], g_free);
  g_clear_pointer (&report->bytes_text, g_free);
  g_clear_pointer (&report->gpu_name, g_free);
}

/**
 * nk_plan_report_check:
 * @result: a result of nk_plan_compute()
 * @report: its report
 * @error: the result's first problem as a #GError in %NK_PLAN_ERROR, its
 *   sentence the report's
 *
 * Raises an invalid result's first problem as a #GError, the #NkPlanError code
 * from its #NkPlanProblemKind; nk_plan_check() on a computed plan.
 *
 * Returns: %TRUE when @result is valid
 */
gboolean
nk_plan_report_check (const NkPlanResult *result,
                      const NkPlanReport *report,
                      GError            **error)
{
  g_return_val_if_fail (result != NULL && report != NULL, FALSE);

  if (result->valid)
    return TRUE;
  g_set_error_literal (error, NK_PLAN_ERROR, problem_code (result->problems[0].kind),
                       result->n_problems > 0 ? report->messages[0] : NULL);
  return FALSE;
}

/* ---------------------------------------------------------------- JSON */

static void
add_string (JsonBuilder *builder,
            const char  *name,
            const char  *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

static void
add_boolean (JsonBuilder *builder,
             const char  *name,
             gboolean     value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_boolean_value (builder, value);
}

static void
build_json_memory (JsonBuilder         *builder,
                   const NkPlanInputs  *in,
                   const NkPlanResult  *r)
{
  const double *v = r->values;

  json_builder_set_member_name (builder, "memory");
  json_builder_begin_object (builder);
  nk_json_add_member_double (builder, "params", v[NK_PLAN_V_MEM_PARAMS]);
  nk_json_add_member_double (builder, "grads", v[NK_PLAN_V_MEM_GRADS]);
  nk_json_add_member_double (builder, "optimizer", v[NK_PLAN_V_MEM_OPT]);
  nk_json_add_member_double (builder, "activations", v[NK_PLAN_V_MEM_ACT]);
  nk_json_add_member_double (builder, "total", v[NK_PLAN_V_MEM_TOTAL]);
  nk_json_add_member_double (builder, "per_gpu", v[NK_PLAN_V_MEM_PER_GPU]);
  nk_json_add_member_double (builder, "hbm_per_gpu", v[NK_PLAN_V_HBM]);
  if (r->cluster)
    nk_json_add_member_double (builder, "per_gpu_max", v[NK_PLAN_V_MEM_MAX]);
  if (r->cluster)
    nk_json_add_member_double (builder, "low_precision_max", v[NK_PLAN_V_MAX_LOWP]);
  nk_json_add_member_double (builder, "reported_per_gpu", v[NK_PLAN_V_REPORTED]);
  nk_json_add_member_double (builder, "usable_per_gpu", v[NK_PLAN_V_USABLE]);
  nk_json_add_member_double (builder, "capacity_per_gpu", v[NK_PLAN_V_CAPACITY]);
  add_boolean (builder, "fits", r->fits);
  nk_json_add_member_double (builder, "bytes_per_param", v[NK_PLAN_V_BYTES_PER_PARAM]);
  json_builder_set_member_name (builder, "zero_stage");
  json_builder_add_int_value (builder, r->cluster ? r->zero_stage : in->zero_stage);
  json_builder_end_object (builder);
}

static void
build_json_assumptions (JsonBuilder        *builder,
                        const NkPlanInputs *in)
{
  json_builder_set_member_name (builder, "assumptions");
  json_builder_begin_object (builder);
  add_string (builder, "gpu", in->gpu ? in->gpu : "");
  add_string (builder, "dtype", nk_peak_dtype_to_string (in->dtype));
  add_boolean (builder, "sparse", in->sparse);
  add_string (builder, "optimizer", nk_optimizer_to_string (in->optimizer));
  add_string (builder, "precision", nk_precision_to_string (in->precision));
  add_string (builder, "activation_model", nk_enum_to_nick (NK_TYPE_ACTIVATION_MODEL, in->activation_model));
  add_boolean (builder, "checkpointing", in->checkpointing);
  json_builder_end_object (builder);
}

static void
build_json_sizing (JsonBuilder        *builder,
                   const NkPlanResult *r)
{
  const double *v = r->values;

  json_builder_set_member_name (builder, "sizing");
  json_builder_begin_object (builder);
  /* CLI.md: the shape's whole count where the shape is known */
  nk_json_add_member_double (builder, "params", r->has[NK_PLAN_V_SHAPE_PARAMS]
                                                ? v[NK_PLAN_V_SHAPE_PARAMS] : v[NK_PLAN_V_SIZED_PARAMS]);
  /* CLI.md: the parameters a token passes through (a MoE's K + shared experts) */
  if (r->has[NK_PLAN_V_SHAPE_PARAMS_ACTIVE])
    nk_json_add_member_double (builder, "params_active", v[NK_PLAN_V_SHAPE_PARAMS_ACTIVE]);
  nk_json_add_member_double (builder, "openai_params", v[NK_PLAN_V_SIZED_PARAMS]);
  if (isfinite (v[NK_PLAN_V_SIZED_EMBED]))
    nk_json_add_member_double (builder, "embedding_params", v[NK_PLAN_V_SIZED_EMBED]);
  if (isfinite (v[NK_PLAN_V_SIZED_FWD]))
    nk_json_add_member_double (builder, "forward_flops_per_token", v[NK_PLAN_V_SIZED_FWD]);
  json_builder_end_object (builder);
}

/* Whose FLOPs over which peak: "MFU" of a plan has no meaning without it (a
 * mixed-precision run's MFU over the bf16 peak is not one over the fp8 peak). */
static char *
mfu_convention (const NkPlanInputs *in,
                const NkPlanResult *r)
{
  const char *dtype = nk_peak_dtype_to_string (in->dtype);
  const NkGpu *row = r->gpu != NULL ? r->gpu : nk_gpus_lookup (in->gpu);
  const char *gpu = row != NULL ? row->name : in->gpu;
  const char *which = in->sparse ? _("2:4-sparse") : _("dense");
  const char *moe = in->layout[NK_PLAN_L_EXPERTS] > 0
                    ? _("; a mixture of experts: every FLOP count is on the active parameters (K routed and the shared experts, the router, attention, embeddings), not the total")
                    : "";
  g_autofree char *text = NULL;
  g_autofree char *recipe = NULL;

  if (nk_plan_inputs_get_recipe (in) != NK_PLAN_RECIPE_NONE)
    {
      NkPlanRecipe rc = nk_plan_inputs_get_recipe (in);
      NkPeakDtype lp = rc == NK_PLAN_RECIPE_NVFP4 ? NK_PEAK_FP4 : NK_PEAK_FP8;

      recipe = nk_plan_format_formula (_("; the %s recipe runs the linear layers' matmuls at the %s peak (%N FLOP/s) and the rest in bf16, yet every MFU here is over the %s peak: a mixed-precision run's MFU has no agreed peak, and the same FLOPs over the %s peak would read %N × lower"),
                                       nk_enum_to_nick (NK_TYPE_PLAN_RECIPE, rc), nk_peak_dtype_to_string (lp),
                                       row != NULL ? nk_gpu_get_peak (row, lp, FALSE) : NAN, dtype,
                                       nk_peak_dtype_to_string (lp),
                                       row != NULL ? nk_gpu_get_peak (row, lp, FALSE) / r->values[NK_PLAN_V_PEAK] : NAN);
    }
  if (r->cluster && r->has[NK_PLAN_V_MFU_MODEL])
    text = nk_plan_format_formula (_("mfu_model: model FLOPs per token (6 × the matmul weights + "
                                     "attention’s 12·L·s·h; recompute not counted) × tokens/s over "
                                     "the %s %s peak of each %s (%N FLOP/s); mfu_hardware adds the "
                                     "recompute’s FLOPs; the days use %s"),
                                   which, dtype, gpu, r->values[NK_PLAN_V_PEAK],
                                   in->layout[NK_PLAN_L_MFU_AUTO]
                                   ? _("mfu_model") : _("the typed MFU on 6 × params × tokens"));
  else
    text = nk_plan_format_formula (_("MFU: 6 × params × tokens (attention and recompute not counted) "
                                     "over the %s %s peak of each %s (%N FLOP/s)"),
                                   which, dtype, gpu != NULL ? gpu : "—", r->values[NK_PLAN_V_PEAK]);
  return g_strconcat (text, moe, recipe != NULL ? recipe : "", NULL);
}

/**
 * nk_plan_report_build_json:
 * @inputs: the inputs @result was computed from
 * @result: a result of nk_plan_compute()
 * @flags: optional fields
 * @builder: a builder expecting a value
 *
 * Adds the plan as CLI.md's `napkin-cli plan --json` object (the app's export
 * writes the same). Non-finite numbers become the strings "nan"/"inf".
 */
void
nk_plan_report_build_json (const NkPlanInputs *inputs,
                           const NkPlanResult *result,
                           NkPlanJsonFlags     flags,
                           JsonBuilder        *builder)
{
  const NkPlanInputs *in = inputs;
  const NkPlanResult *r = result;
  const double *v;

  g_return_if_fail (inputs != NULL && result != NULL);
  g_return_if_fail (JSON_IS_BUILDER (builder));

  v = r->values;
  json_builder_begin_object (builder);
  if (!(flags & NK_PLAN_JSON_NO_COMPUTE))
    {
      nk_json_add_member_double (builder, "total_flops", v[NK_PLAN_V_TOTAL_FLOPS]);
      nk_json_add_member_double (builder, "peak_flops_per_gpu", v[NK_PLAN_V_PEAK]);
      nk_json_add_member_double (builder, "flops_per_day", v[NK_PLAN_V_FLOPS_PER_DAY]);
      nk_json_add_member_double (builder, "days", v[NK_PLAN_V_DAYS]);
      nk_json_add_member_double (builder, "gpu_hours", v[NK_PLAN_V_GPU_HOURS]);
      if (flags & NK_PLAN_JSON_COST)
        nk_json_add_member_double (builder, "cost", v[NK_PLAN_V_COST]);
    }
  else
    nk_json_add_member_double (builder, "peak_flops_per_gpu", v[NK_PLAN_V_PEAK]);

  build_json_memory (builder, in, r);
  if (flags & NK_PLAN_JSON_LARGEST)
    nk_json_add_member_double (builder, "largest_params", v[NK_PLAN_V_LARGEST]);
  if (flags & NK_PLAN_JSON_DEADLINE)
    {
      nk_json_add_member_double (builder, "deadline_days", in->in[NK_PLAN_IN_DEADLINE]);
      /* under a layout, null where no layout meets it (as layout_for_deadline) */
      if (r->cluster && !isfinite (v[NK_PLAN_V_GPUS_DEADLINE]))
        {
          json_builder_set_member_name (builder, "gpus_for_deadline");
          json_builder_add_null_value (builder);
        }
      else
        nk_json_add_member_double (builder, "gpus_for_deadline", v[NK_PLAN_V_GPUS_DEADLINE]);
    }
  if (isfinite (v[NK_PLAN_V_SIZED_PARAMS]))
    build_json_sizing (builder, r);
  _nk_plan_build_json_cluster (builder, in, r);
  build_json_assumptions (builder, in);
  /* CLI.md: the top-level precision is the recipe where one is set */
  add_string (builder, "precision", nk_plan_inputs_get_recipe (in) != NK_PLAN_RECIPE_NONE
                                    ? nk_enum_to_nick (NK_TYPE_PLAN_RECIPE, nk_plan_inputs_get_recipe (in))
                                    : nk_precision_to_string (in->precision));
  {
    g_autofree char *convention = mfu_convention (in, r);

    add_string (builder, "mfu_convention", convention);
  }
  json_builder_end_object (builder);
}

/* ---------------------------------------------------------------- summary */

typedef struct {
  GString             *s;
  const NkPlanInputs  *in;
  const NkPlanResult  *r;
  const NkPlanReport  *text;
  const double        *v;
} Summary;

/* A row whose value text is @value_text (taken) and whose formula is @which's. */
static void
summary_value (const Summary *m,
               const char    *label,
               NkPlanValue    which,
               char          *value_text)
{
  nk_plan_format_row (m->s, label, value_text, m->text->formulas[which]);
  g_free (value_text);
}

static void
summary_compute (const Summary   *m,
                 NkPlanJsonFlags  flags)
{
  const double *v = m->v;

  /* Derived, the MFU is the step time's on the days' 6N FLOPs, which the
   * cluster rows' MFU (model), with attention and the output layer, is not. */
  g_string_append_printf (m->s, _("Compute (%s %s, MFU %.3g%s, %g × %s)\n"),
                          m->in->sparse ? _("2:4-sparse") : _("dense"),
                          nk_peak_dtype_to_string (m->in->dtype), m->r->mfu,
                          m->in->layout[NK_PLAN_L_MFU_AUTO] ? _(" on 6 × params FLOPs, from the step time") : "",
                          m->in->in[NK_PLAN_IN_GPUS], m->text->gpu_name ? m->text->gpu_name : "");
  summary_value (m, _("total FLOPs"), NK_PLAN_V_TOTAL_FLOPS, nk_plan_format_with_unit (v[NK_PLAN_V_TOTAL_FLOPS], "FLOPs"));
  summary_value (m, _("peak per GPU"), NK_PLAN_V_PEAK, nk_units_format_rate (v[NK_PLAN_V_PEAK]));
  summary_value (m, _("FLOPs per day"), NK_PLAN_V_FLOPS_PER_DAY,
                 nk_plan_format_with_unit (v[NK_PLAN_V_FLOPS_PER_DAY], "FLOPs/day"));
  summary_value (m, _("time"), NK_PLAN_V_DAYS, nk_plan_format_days (v[NK_PLAN_V_DAYS]));
  summary_value (m, _("GPU-hours"), NK_PLAN_V_GPU_HOURS, nk_plan_format_with_unit (v[NK_PLAN_V_GPU_HOURS], "GPU-h"));
  if (flags & NK_PLAN_JSON_COST)
    summary_value (m, _("cost"), NK_PLAN_V_COST, nk_plan_format_with_unit (v[NK_PLAN_V_COST], "USD"));
  g_string_append_c (m->s, '\n');
}

static void
summary_memory (const Summary *m)
{
  const double *v = m->v;
  gboolean known = isfinite (v[NK_PLAN_V_MEM_PER_GPU]) && isfinite (v[NK_PLAN_V_HBM]);

  if (m->r->cluster)
    /* the question the per-GPU row answers: the layout's most loaded GPU */
    g_string_append_printf (m->s, _("Memory (%s, %s precision, ZeRO-%d over DP %d; per GPU: the layout’s most loaded GPU)\n"),
                            nk_optimizer_to_string (m->in->optimizer),
                            nk_precision_to_string (m->in->precision),
                            m->r->zero_stage, m->r->layout[NK_PLAN_L_DP]);
  else
    g_string_append_printf (m->s, _("Memory (%s, %s precision, %s)\n"),
                            nk_optimizer_to_string (m->in->optimizer),
                            nk_precision_to_string (m->in->precision),
                            nk_plan_zero_text (m->in->zero_stage));
  nk_plan_format_row (m->s, _("bytes/param"), m->text->bytes_text ? m->text->bytes_text : "—",
                      m->text->formulas[NK_PLAN_V_BYTES_PER_PARAM]);
  summary_value (m, _("params"), NK_PLAN_V_MEM_PARAMS, nk_plan_format_bytes (v[NK_PLAN_V_MEM_PARAMS]));
  summary_value (m, _("grads"), NK_PLAN_V_MEM_GRADS, nk_plan_format_bytes (v[NK_PLAN_V_MEM_GRADS]));
  summary_value (m, _("optimizer state"), NK_PLAN_V_MEM_OPT, nk_plan_format_bytes (v[NK_PLAN_V_MEM_OPT]));
  summary_value (m, _("activations"), NK_PLAN_V_MEM_ACT, nk_plan_format_bytes (v[NK_PLAN_V_MEM_ACT]));
  summary_value (m, _("total"), NK_PLAN_V_MEM_TOTAL, nk_plan_format_bytes (v[NK_PLAN_V_MEM_TOTAL]));
  summary_value (m, _("per GPU"), NK_PLAN_V_MEM_PER_GPU, nk_plan_format_bytes (v[NK_PLAN_V_MEM_PER_GPU]));
  summary_value (m, _("HBM per GPU"), NK_PLAN_V_HBM, nk_plan_format_bytes (v[NK_PLAN_V_HBM]));
  nk_plan_format_row (m->s, _("fits"), known ? (m->r->fits ? _("yes") : _("no")) : "—",
                      m->text->formulas[NK_PLAN_V_FITS]);
}

static void
summary_largest (const Summary *m)
{
  g_string_append_c (m->s, '\n');
  g_string_append (m->s, _("Largest model that fits\n"));
  summary_value (m, _("largest params"), NK_PLAN_V_LARGEST,
                 nk_plan_format_with_unit (m->v[NK_PLAN_V_LARGEST], "params"));
  for (int stage = 0; stage <= 3; stage++)
    {
      g_autofree char *label = g_strdup_printf (_("at ZeRO-%d"), stage);
      g_autofree char *n = nk_plan_format_with_unit (nk_plan_largest_params_at_stage (m->in, m->r, stage), "params");

      nk_plan_format_row (m->s, label, n,
                          stage == (m->r->cluster ? m->r->zero_stage : m->in->zero_stage)
                          ? _("← the assumption of this answer") : NULL);
    }
}

/* The deadline answer counts compute only: show it on whole nodes, and whether its
 * memory fits there. */
static void
summary_deadline_memory (const Summary *m)
{
  const NkPlanResult *r = m->r;
  double nodes = r->deadline_nodes, gpus = nodes * NK_PLAN_GPUS_PER_NODE;
  g_autofree char *nodes_text = nk_plan_format_formula (_("%N nodes"), nodes);
  g_autofree char *nodes_formula =
    nk_plan_format_formula (_("⌈%N GPUs / %N per node⌉ = %N nodes = %N GPUs"), m->v[NK_PLAN_V_GPUS_DEADLINE],
                            (double) NK_PLAN_GPUS_PER_NODE, nodes, gpus);
  g_autofree char *fits_formula = NULL;
  g_autofree char *memory_text = NULL;

  nk_plan_format_row (m->s, _("whole nodes"), nodes_text, nodes_formula);
  if (!isfinite (r->deadline_memory_per_gpu))
    return;
  fits_formula = nk_plan_format_formula (r->deadline_fits
                                         ? _("%s at %N GPUs: %N B per GPU ≤ %N B HBM: fits")
                                         : _("%s at %N GPUs: %N B per GPU > %N B HBM: does not fit (the deadline counts compute only)"),
                                         nk_plan_zero_text (m->in->zero_stage), gpus, r->deadline_memory_per_gpu,
                                         m->v[NK_PLAN_V_HBM]);
  memory_text = nk_plan_format_bytes (r->deadline_memory_per_gpu);
  nk_plan_format_row (m->s, _("memory there"), memory_text, fits_formula);
  if (r->deadline_fits)
    return;
  if (isfinite (r->fewest_gpus_that_fit))
    {
      g_autofree char *fewest = nk_plan_format_with_unit (r->fewest_gpus_that_fit, "GPUs");

      nk_plan_format_row (m->s, _("fits from"), fewest,
                          _("the fewest GPUs whose memory fits under this ZeRO stage"));
    }
  else
    nk_plan_format_row (m->s, _("fits from"), "—",
                        _("no GPU count fits: what this ZeRO stage replicates is larger than one GPU (shard more: ZeRO-3)"));
}

/* Under a layout the deadline's answer is the layout's (whole nodes whose
 * layout fits), and its memory the most loaded GPU's there. */
static void
summary_deadline_layout (const Summary *m)
{
  const NkPlanResult *r = m->r;
  g_autofree char *memory_text = nk_plan_format_bytes (r->deadline_memory_per_gpu);
  g_autofree char *formula =
    nk_plan_format_formula (_("the layout at %N GPUs (DP %N × TP·PP·CP %N, ZeRO-%N): %N B on the most loaded GPU ≤ %N B: fits"),
                            m->v[NK_PLAN_V_DEADLINE_GPUS], m->v[NK_PLAN_V_DEADLINE_DP],
                            m->v[NK_PLAN_V_LAYOUT_TP] * m->v[NK_PLAN_V_LAYOUT_PP] * m->v[NK_PLAN_V_LAYOUT_CP],
                            (double) r->zero_stage, r->deadline_memory_per_gpu, m->v[NK_PLAN_V_CAPACITY]);
  g_autofree char *nodes_text = nk_plan_format_formula (_("%N nodes"), r->deadline_nodes);

  if (!isfinite (r->deadline_memory_per_gpu))
    return;
  nk_plan_format_row (m->s, _("whole nodes"), nodes_text, NULL);
  nk_plan_format_row (m->s, _("memory there"), memory_text, formula);
}

static void
summary_deadline (const Summary *m)
{
  g_autofree char *label = g_strdup_printf (_("GPUs for %g days"), m->in->in[NK_PLAN_IN_DEADLINE]);

  g_string_append_c (m->s, '\n');
  summary_value (m, label, NK_PLAN_V_GPUS_DEADLINE, nk_plan_format_with_unit (m->v[NK_PLAN_V_GPUS_DEADLINE], "GPUs"));
  if (m->r->cluster)
    summary_deadline_layout (m);
  else if (isfinite (m->r->deadline_nodes))
    summary_deadline_memory (m);
}

static void
summary_sizing (const Summary *m)
{
  const double *v = m->v;

  g_string_append_c (m->s, '\n');
  g_string_append (m->s, _("Transformer sizing (OpenAI table, Kaplan et al. 2020)\n"));
  summary_value (m, _("params"), NK_PLAN_V_SIZED_PARAMS, nk_plan_format_with_unit (v[NK_PLAN_V_SIZED_PARAMS], "params"));
  if (isfinite (v[NK_PLAN_V_SIZED_EMBED]))
    summary_value (m, _("embeddings"), NK_PLAN_V_SIZED_EMBED, nk_plan_format_with_unit (v[NK_PLAN_V_SIZED_EMBED], "params"));
  if (isfinite (v[NK_PLAN_V_SIZED_FWD]))
    summary_value (m, _("forward/token"), NK_PLAN_V_SIZED_FWD, nk_plan_format_with_unit (v[NK_PLAN_V_SIZED_FWD], "FLOPs"));
}

static void
summary_activations (const Summary *m)
{
  const double *v = m->v;

  g_string_append_c (m->s, '\n');
  g_string_append (m->s, _("Activation estimates (whole batch)\n"));
  summary_value (m, _("linear model"), NK_PLAN_V_ACT_LINEAR, nk_plan_format_bytes (v[NK_PLAN_V_ACT_LINEAR]));
  if (!isfinite (v[NK_PLAN_V_ACT_TRANSFORMER]))
    return;
  summary_value (m, _("transformer"), NK_PLAN_V_ACT_TRANSFORMER, nk_plan_format_bytes (v[NK_PLAN_V_ACT_TRANSFORMER]));
  summary_value (m, _("checkpointed"), NK_PLAN_V_ACT_TRANSFORMER_CKPT,
                 nk_plan_format_bytes (v[NK_PLAN_V_ACT_TRANSFORMER_CKPT]));
}

/**
 * nk_plan_report_format_summary:
 * @inputs: the inputs @result was computed from
 * @result: a result of nk_plan_compute()
 * @report: its report (nk_plan_report_fill())
 * @flags: the optional parts, as for nk_plan_report_build_json()
 *
 * The plan for people: aligned rows with units, each followed by its formula with
 * the numbers in it. `napkin-cli plan` prints it; the page copies it to the
 * clipboard.
 *
 * Returns: (transfer full): the text, ending in a newline
 */
char *
nk_plan_report_format_summary (const NkPlanInputs *inputs,
                               const NkPlanResult *result,
                               const NkPlanReport *report,
                               NkPlanJsonFlags     flags)
{
  Summary m = { NULL, inputs, result, report, NULL };

  g_return_val_if_fail (inputs != NULL && result != NULL && report != NULL, NULL);

  m.s = g_string_new (NULL);
  m.v = result->values;
  if (!(flags & NK_PLAN_JSON_NO_COMPUTE))
    summary_compute (&m, flags);
  summary_memory (&m);
  if (flags & NK_PLAN_JSON_LARGEST)
    summary_largest (&m);
  if (flags & NK_PLAN_JSON_DEADLINE)
    summary_deadline (&m);
  if (isfinite (m.v[NK_PLAN_V_SIZED_PARAMS]))
    summary_sizing (&m);
  if (isfinite (m.v[NK_PLAN_V_ACT_TRANSFORMER]) || isfinite (m.v[NK_PLAN_V_ACT_LINEAR]))
    summary_activations (&m);
  _nk_plan_summary_cluster (m.s, inputs, result, report);
  return g_string_free (m.s, FALSE);
}
