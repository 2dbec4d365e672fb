/* nk-plan-compute.c: the budget planner's arithmetic: validate the inputs, compute every output
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-plan-compute.h"
#include "nk-plan-compute-private.h"

#define SECONDS_PER_DAY 86400.0

static const char *const input_names[NK_PLAN_N_INPUTS] = {
  [NK_PLAN_IN_PARAMS]   = "params",
  [NK_PLAN_IN_TOKENS]   = "tokens",
  [NK_PLAN_IN_GPUS]     = "gpus",
  [NK_PLAN_IN_MFU]      = "mfu",
  [NK_PLAN_IN_BATCH]    = "batch",
  [NK_PLAN_IN_SEQ]      = "seq",
  [NK_PLAN_IN_LAYERS]   = "layers",
  [NK_PLAN_IN_D_MODEL]  = "d-model",
  [NK_PLAN_IN_HEADS]    = "heads",
  [NK_PLAN_IN_D_FF]     = "d-ff",
  [NK_PLAN_IN_VOCAB]    = "vocab",
  [NK_PLAN_IN_PRICE]    = "price",
  [NK_PLAN_IN_DEADLINE] = "deadline-days",
  [NK_PLAN_IN_EFFICIENCY] = "matmul-efficiency",
  [NK_PLAN_IN_NVLINK_BW] = "nvlink-bandwidth",
  [NK_PLAN_IN_NETWORK_BW] = "network-bandwidth",
  [NK_PLAN_IN_EXPERT_IMBALANCE] = "expert-imbalance",
};

static const char *const value_names[NK_PLAN_N_FORMULAS] = {
  [NK_PLAN_V_TOTAL_FLOPS] = "total-flops",
  [NK_PLAN_V_PEAK] = "peak-flops-per-gpu",
  [NK_PLAN_V_FLOPS_PER_DAY] = "flops-per-day",
  [NK_PLAN_V_DAYS] = "days",
  [NK_PLAN_V_GPU_HOURS] = "gpu-hours",
  [NK_PLAN_V_COST] = "cost",
  [NK_PLAN_V_HBM] = "hbm-per-gpu",
  [NK_PLAN_V_BYTES_PER_PARAM] = "bytes-per-param",
  [NK_PLAN_V_PARAM_BYTES] = "param-bytes",
  [NK_PLAN_V_GRAD_BYTES] = "grad-bytes",
  [NK_PLAN_V_OPT_BYTES] = "optimizer-bytes",
  [NK_PLAN_V_MEM_PARAMS] = "memory-params",
  [NK_PLAN_V_MEM_GRADS] = "memory-grads",
  [NK_PLAN_V_MEM_OPT] = "memory-optimizer",
  [NK_PLAN_V_MEM_ACT] = "memory-activations",
  [NK_PLAN_V_MEM_TOTAL] = "memory-total",
  [NK_PLAN_V_MEM_PARAMS_GPU] = "memory-params-per-gpu",
  [NK_PLAN_V_MEM_GRADS_GPU] = "memory-grads-per-gpu",
  [NK_PLAN_V_MEM_OPT_GPU] = "memory-optimizer-per-gpu",
  [NK_PLAN_V_MEM_ACT_GPU] = "memory-activations-per-gpu",
  [NK_PLAN_V_MEM_PER_GPU] = "memory-per-gpu",
  [NK_PLAN_V_ACT_LINEAR] = "activations-linear",
  [NK_PLAN_V_ACT_TRANSFORMER] = "activations-transformer",
  [NK_PLAN_V_ACT_TRANSFORMER_CKPT] = "activations-transformer-checkpointed",
  [NK_PLAN_V_LARGEST] = "largest-params",
  [NK_PLAN_V_GPUS_DEADLINE] = "gpus-for-deadline",
  [NK_PLAN_V_SIZED_PARAMS] = "sized-params",
  [NK_PLAN_V_SIZED_EMBED] = "sized-embedding-params",
  [NK_PLAN_V_SIZED_FWD] = "sized-forward-flops-per-token",
  [NK_PLAN_V_SHAPE_PARAMS] = "shape-params",
  [NK_PLAN_V_SHAPE_EMBED] = "shape-embedding-params",
  [NK_PLAN_V_SHAPE_LAYER] = "shape-params-per-layer",
  [NK_PLAN_V_SHAPE_PARAMS_ACTIVE] = "shape-params-active",
  [NK_PLAN_V_SHAPE_ATTENTION] = "shape-attention-params",
  [NK_PLAN_V_LAYOUT_DP] = "layout-dp",
  [NK_PLAN_V_LAYOUT_TP] = "layout-tp",
  [NK_PLAN_V_LAYOUT_PP] = "layout-pp",
  [NK_PLAN_V_LAYOUT_CP] = "layout-cp",
  [NK_PLAN_V_LAYOUT_EP] = "layout-ep",
  [NK_PLAN_V_LAYOUT_ETP] = "layout-etp",
  [NK_PLAN_V_MICRO_BATCH] = "layout-micro-batch",
  [NK_PLAN_V_GLOBAL_BATCH] = "layout-global-batch",
  [NK_PLAN_V_GRAD_ACCUM] = "grad-accum",
  [NK_PLAN_V_TOKENS_PER_STEP] = "tokens-per-step",
  [NK_PLAN_V_STEPS] = "steps",
  [NK_PLAN_V_NODES] = "nodes",
  [NK_PLAN_V_ACT_LAYER] = "activations-per-layer",
  [NK_PLAN_V_ACT_IN_FLIGHT] = "micro-batches-in-flight",
  [NK_PLAN_V_ACT_EDGES] = "activations-embedding-and-logits",
  [NK_PLAN_V_ACT_STAGE_LAYERS] = "activations-stage-layers",
  [NK_PLAN_V_ACT_TRAFFIC] = "activation-traffic-per-layer",
  [NK_PLAN_V_MAX_PARAMS] = "memory-max-params",
  [NK_PLAN_V_MAX_GRADS] = "memory-max-grads",
  [NK_PLAN_V_MAX_OPT] = "memory-max-optimizer",
  [NK_PLAN_V_MAX_ACT] = "memory-max-activations",
  [NK_PLAN_V_MAX_LOWP] = "memory-max-low-precision",
  [NK_PLAN_V_MAX_EXPERT_PARAMS] = "memory-max-expert-params",
  [NK_PLAN_V_MAX_EXPERT_GRADS] = "memory-max-expert-grads",
  [NK_PLAN_V_MAX_EXPERT_OPT] = "memory-max-expert-optimizer",
  [NK_PLAN_V_MEM_MAX] = "memory-per-gpu-max",
  [NK_PLAN_V_REPORTED] = "memory-reported-per-gpu",
  [NK_PLAN_V_USABLE] = "memory-usable-per-gpu",
  [NK_PLAN_V_CAPACITY] = "capacity-per-gpu",
  [NK_PLAN_V_MODEL_FLOPS_TOKEN] = "model-flops-per-token",
  [NK_PLAN_V_HW_FLOPS_TOKEN] = "hardware-flops-per-token",
  [NK_PLAN_V_T_COMPUTE] = "time-compute",
  [NK_PLAN_V_T_RECOMPUTE] = "time-recompute",
  [NK_PLAN_V_T_MEMORY] = "time-memory-bound",
  [NK_PLAN_V_T_CAST] = "time-casts",
  [NK_PLAN_V_T_TP] = "time-tp-comm",
  [NK_PLAN_V_T_DP] = "time-dp-comm",
  [NK_PLAN_V_T_DP_EXPOSED] = "time-dp-exposed",
  [NK_PLAN_V_T_EP] = "time-ep-comm",
  [NK_PLAN_V_T_BUBBLE] = "time-pp-bubble",
  [NK_PLAN_V_T_EXPOSED] = "time-exposed-comm",
  [NK_PLAN_V_T_STEP] = "time-per-step",
  [NK_PLAN_V_BUBBLE_FRACTION] = "bubble-fraction",
  [NK_PLAN_V_PIPELINE_PACE] = "pipeline-pace",
  [NK_PLAN_V_TOKENS_PER_S] = "tokens-per-s",
  [NK_PLAN_V_MFU_MODEL] = "mfu-model",
  [NK_PLAN_V_MFU_HARDWARE] = "mfu-hardware",
  [NK_PLAN_V_MFU_6N] = "mfu-derived",
  [NK_PLAN_V_MFU_TORCHTITAN] = "mfu-torchtitan",
  [NK_PLAN_V_MFU_NANOGPT] = "mfu-nanogpt",
  [NK_PLAN_V_MFU_LLMC] = "mfu-llmc",
  [NK_PLAN_V_MFU_USED] = "mfu-used",
  [NK_PLAN_V_FITS_DP] = "fits-data-parallel",
  [NK_PLAN_V_DEADLINE_GPUS] = "layout-gpus-for-deadline",
  [NK_PLAN_V_DEADLINE_DP] = "layout-dp-for-deadline",
  [NK_PLAN_V_DEADLINE_DAYS] = "layout-days-for-deadline",
  [NK_PLAN_V_DEADLINE_MEMORY] = "layout-memory-for-deadline",
  [NK_PLAN_V_FITS] = "fits",
};

/**
 * nk_plan_input_name:
 * @input: a numeric input
 *
 * Names a numeric input as #NkPlan, the CLI's JSON and the problems do.
 *
 * Returns: its #NkPlan property name ("params", "deadline-days"), a static string
 */
const char *
nk_plan_input_name (NkPlanInput input)
{
  g_return_val_if_fail (input < NK_PLAN_N_INPUTS, NULL);
  return input_names[input];
}

/**
 * nk_plan_value_name:
 * @value: a numeric output, or %NK_PLAN_V_FITS
 *
 * Names a numeric output as #NkPlan and nk_plan_get_formula() do.
 *
 * Returns: its #NkPlan property name ("days"), or "fits"; a static string
 */
const char *
nk_plan_value_name (NkPlanValue value)
{
  g_return_val_if_fail (value < NK_PLAN_N_FORMULAS, NULL);
  return value_names[value];
}

/**
 * nk_plan_dtype_is_supported:
 * @dtype: a peak column
 *
 * Training plans use the tensor formats fp32, tf32, bf16, fp16 and fp8; fp64 and
 * int8 peaks are in the table for reference only.
 *
 * Returns: %TRUE for the dtypes #NkPlan:dtype accepts
 */
gboolean
nk_plan_dtype_is_supported (NkPeakDtype dtype)
{
  return dtype == NK_PEAK_FP32 || dtype == NK_PEAK_TF32 || dtype == NK_PEAK_BF16
         || dtype == NK_PEAK_FP16 || dtype == NK_PEAK_FP8;
}

/**
 * nk_plan_inputs_init:
 * @inputs: (out caller-allocates): the inputs to fill
 *
 * Fills @inputs with #NkPlan's defaults, the lecture's first question: 70e9
 * parameters, 15e12 tokens, 1024 H100 SXM, dense bf16, MFU 0.5, AdamW in fp32,
 * ZeRO-0, no shape (batch, sequence, layers ... 0: not given), and the
 * single-layout defaults of the cluster model (TP = PP = CP = 1, DP derived,
 * 8 GPUs per node, tied embeddings, 16-bit gradients under mixed precision, 5 %
 * memory reserve). A new #NkPlan holds exactly these.
 */
void
nk_plan_inputs_init (NkPlanInputs *inputs)
{
  g_return_if_fail (inputs != NULL);

  memset (inputs, 0, sizeof *inputs);
  inputs->in[NK_PLAN_IN_PARAMS] = 70e9;
  inputs->in[NK_PLAN_IN_TOKENS] = 15e12;
  inputs->in[NK_PLAN_IN_GPUS] = 1024;
  inputs->in[NK_PLAN_IN_MFU] = 0.5;
  inputs->gpu = "h100-sxm";
  inputs->dtype = NK_PEAK_BF16;
  inputs->sparse = FALSE;
  inputs->optimizer = NK_OPTIMIZER_ADAMW;
  inputs->precision = NK_PRECISION_FP32;
  inputs->zero_stage = 0;
  inputs->activation_model = NK_ACTIVATION_MODEL_LINEAR;
  inputs->checkpointing = FALSE;
  inputs->layout[NK_PLAN_L_TP] = 1;
  inputs->layout[NK_PLAN_L_PP] = 1;
  inputs->layout[NK_PLAN_L_CP] = 1;
  inputs->layout[NK_PLAN_L_VIRTUAL_STAGES] = 1;
  inputs->layout[NK_PLAN_L_RECOMPUTE] = NK_RECOMPUTE_NONE;
  /* 16 B/param in mixed precision, the ZeRO paper's count the lecture uses */
  inputs->layout[NK_PLAN_L_GRAD_PRECISION] = NK_GRAD_PRECISION_BF16;
  inputs->layout[NK_PLAN_L_GPUS_PER_NODE] = NK_PLAN_GPUS_PER_NODE;
  inputs->layout[NK_PLAN_L_FFN] = NK_FFN_GELU;
  /* GPT-2's and Napkin's GPT's one V × d matrix */
  inputs->layout[NK_PLAN_L_TIED_EMBEDDINGS] = 1;
  inputs->layout[NK_PLAN_L_CAPACITY] = NK_CAPACITY_DATASHEET;
  /* percent of the reported memory kept free for the allocator's fragmentation */
  inputs->layout[NK_PLAN_L_MEMORY_RESERVE] = 5;
  /* Korthikanti et al.'s count, masks included (--dropout 0 drops them) */
  inputs->layout[NK_PLAN_L_DROPOUT] = 1;
  /* a dense model: no experts; EP and ETP 1 */
  inputs->layout[NK_PLAN_L_EP] = 1;
  inputs->layout[NK_PLAN_L_ETP] = 1;
  /* balanced routing, as NVIDIA's published MoE benchmarks force it */
  inputs->in[NK_PLAN_IN_EXPERT_IMBALANCE] = 1;
}

/* ---------------------------------------------------------------- problems */

/* Which inputs passed validation; an output is computed only from good ones. */
typedef struct {
  gboolean params, tokens, gpus, mfu, peak, price, deadline;
  gboolean act_inputs, seq, layers, d_model, d_ff, vocab;
} Good;

/**
 * nk_plan_result_add_problem:
 * @r: a result being computed
 * @kind: what is wrong
 * @input: the property name it is about (a static string)
 * @which: as #NkPlanProblem's
 *
 * Keeps the first problem of each input; the first of all is the plan's error.
 */
void
nk_plan_result_add_problem (NkPlanResult      *r,
                            NkPlanProblemKind  kind,
                            const char        *input,
                            int                which)
{
  r->valid = FALSE;
  for (guint i = 0; i < r->n_problems; i++)
    if (g_str_equal (r->problems[i].input, input))
      return;
  if (r->n_problems < NK_PLAN_MAX_PROBLEMS)
    r->problems[r->n_problems++] = (NkPlanProblem) { kind, input, which };
}

/* An input is good when finite and within its range; @whole asks for an integer. */
static gboolean
check_input (const NkPlanInputs *in,
             NkPlanResult       *r,
             NkPlanInput         which,
             double              minimum,
             gboolean            allow_equal,
             gboolean            whole)
{
  double v = in->in[which];

  if (in->missing[which])
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_NO_VALUE, input_names[which], which);
      return FALSE;
    }
  if (isfinite (v) && (allow_equal ? v >= minimum : v > minimum)
      && (!whole || v == floor (v)))
    return TRUE;
  nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_RANGE, input_names[which], which);
  return FALSE;
}

/* A result too large for a double is refused rather than shown as inf. */
static double
checked (NkPlanResult *r,
         double        value,
         const char   *input,
         NkPlanValue   what)
{
  if (isfinite (value) || isnan (value))
    return value;
  nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_OVERFLOW, input, what);
  return NAN;
}

/* One factor of a product that can overflow: @power is its exponent in the
 * product (negative for a divisor). */
typedef struct {
  NkPlanInput input;
  double      power;
} Factor;

/* The input that pushed a product out of range: the factor with the largest
 * magnitude in the product, so "--mfu 1e-305" is blamed for the days it makes,
 * not the GPU count. Ties go to the first. */
static const char *
culprit (const NkPlanInputs *in,
         const Factor       *factors,
         guint               n_factors)
{
  guint best = 0;
  double best_size = -INFINITY;

  for (guint i = 0; i < n_factors; i++)
    {
      double size = factors[i].power * log (fabs (in->in[factors[i].input]));

      if (size > best_size)
        {
          best = i;
          best_size = size;
        }
    }
  return input_names[factors[best].input];
}

#define CULPRIT(in, ...) \
  culprit ((in), (const Factor[]) { __VA_ARGS__ }, \
           sizeof ((const Factor[]) { __VA_ARGS__ }) / sizeof (Factor))

/* ---------------------------------------------------------------- validation */

static void
validate_gpu (const NkPlanInputs *in,
              NkPlanResult       *r,
              Good               *ok)
{
  double peak;

  if (!nk_plan_dtype_is_supported (in->dtype))
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_DTYPE, "dtype", 0);
      return;
    }
  if (r->gpu == NULL)
    return;
  peak = nk_gpu_get_peak (r->gpu, in->dtype, in->sparse);
  if (!isfinite (peak))
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_NO_PEAK, in->sparse ? "sparse" : "dtype", 0);
      return;
    }
  ok->peak = TRUE;
  r->values[NK_PLAN_V_PEAK] = peak;
  r->has[NK_PLAN_V_PEAK] = TRUE;
}

/* In the order of the form, so the first problem names the first row a person
 * would fix. */
static void
validate (const NkPlanInputs *in,
          NkPlanResult       *r,
          Good               *ok)
{
  /* counts: a fraction of one parameter or token is no model and no run */
  ok->params = check_input (in, r, NK_PLAN_IN_PARAMS, 1, TRUE, FALSE);
  ok->tokens = check_input (in, r, NK_PLAN_IN_TOKENS, 1, TRUE, FALSE);
  r->gpu = nk_gpus_lookup (in->gpu);
  if (r->gpu == NULL)
    nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_UNKNOWN_GPU, "gpu", 0);
  ok->gpus = check_input (in, r, NK_PLAN_IN_GPUS, 1, TRUE, TRUE);
  ok->mfu = check_input (in, r, NK_PLAN_IN_MFU, 0, FALSE, FALSE);
  if (ok->mfu && in->in[NK_PLAN_IN_MFU] > 1)
    {
      ok->mfu = FALSE;
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_RANGE, "mfu", NK_PLAN_IN_MFU);
    }
  validate_gpu (in, r, ok);
  if (in->zero_stage < 0 || in->zero_stage > 3)
    nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_ZERO_STAGE, "zero-stage", 0);

  ok->act_inputs = check_input (in, r, NK_PLAN_IN_BATCH, 0, TRUE, TRUE);
  ok->seq = check_input (in, r, NK_PLAN_IN_SEQ, 0, TRUE, TRUE);
  ok->layers = check_input (in, r, NK_PLAN_IN_LAYERS, 0, TRUE, TRUE);
  ok->d_model = check_input (in, r, NK_PLAN_IN_D_MODEL, 0, TRUE, TRUE);
  ok->act_inputs &= ok->seq && ok->layers && ok->d_model;
  ok->act_inputs &= check_input (in, r, NK_PLAN_IN_HEADS, 0, TRUE, TRUE);
  ok->d_ff = check_input (in, r, NK_PLAN_IN_D_FF, 0, TRUE, TRUE);
  ok->vocab = check_input (in, r, NK_PLAN_IN_VOCAB, 0, TRUE, TRUE);
  ok->price = check_input (in, r, NK_PLAN_IN_PRICE, 0, TRUE, FALSE);
  ok->deadline = check_input (in, r, NK_PLAN_IN_DEADLINE, 0, TRUE, FALSE);
  if (check_input (in, r, NK_PLAN_IN_EFFICIENCY, 0, TRUE, FALSE) && in->in[NK_PLAN_IN_EFFICIENCY] > 1)
    nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_RANGE, "matmul-efficiency", NK_PLAN_IN_EFFICIENCY);
  check_input (in, r, NK_PLAN_IN_NVLINK_BW, 0, TRUE, FALSE);
  check_input (in, r, NK_PLAN_IN_NETWORK_BW, 0, TRUE, FALSE);
  /* the busiest expert's tokens over the mean, never below it (0: balanced) */
  if (check_input (in, r, NK_PLAN_IN_EXPERT_IMBALANCE, 0, TRUE, FALSE)
      && in->in[NK_PLAN_IN_EXPERT_IMBALANCE] != 0 && in->in[NK_PLAN_IN_EXPERT_IMBALANCE] < 1)
    nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_RANGE, "expert-imbalance", NK_PLAN_IN_EXPERT_IMBALANCE);
}

/* ---------------------------------------------------------------- time */

/* The parameters the days' 6·N counts: --params, the model's total; a mixture
 * of experts whose shape is known passes each token through its active share
 * only (K of E experts), so N is --params × active / total (PaLM's 6N on the
 * active parameters, as torchtitan and Megatron-LM count a MoE's FLOPs). */
double
_nk_plan_flops_params (const NkPlanInputs *inputs,
                       const NkPlanResult *result)
{
  const double *v = result->values;
  double n = inputs->in[NK_PLAN_IN_PARAMS];

  if (inputs->layout[NK_PLAN_L_EXPERTS] > 0 && result->has[NK_PLAN_V_SHAPE_PARAMS_ACTIVE]
      && v[NK_PLAN_V_SHAPE_PARAMS] > 0)
    return n * (v[NK_PLAN_V_SHAPE_PARAMS_ACTIVE] / v[NK_PLAN_V_SHAPE_PARAMS]);
  return n;
}

static double
days_with_gpus (double total,
                double peak,
                double mfu,
                double gpus)
{
  return total / (peak * mfu * gpus * SECONDS_PER_DAY);
}

static void
compute_time (const NkPlanInputs *in,
              NkPlanResult       *r,
              const Good         *ok)
{
  double *v = r->values;
  double gpus = in->in[NK_PLAN_IN_GPUS];

  if (ok->params && ok->tokens)
    {
      v[NK_PLAN_V_TOTAL_FLOPS] = checked (r, 6.0 * _nk_plan_flops_params (in, r) * in->in[NK_PLAN_IN_TOKENS],
                                          CULPRIT (in, { NK_PLAN_IN_PARAMS, 1 }, { NK_PLAN_IN_TOKENS, 1 }),
                                          NK_PLAN_V_TOTAL_FLOPS);
      r->has[NK_PLAN_V_TOTAL_FLOPS] = TRUE;
    }
  if (ok->peak && ok->mfu && ok->gpus)
    {
      v[NK_PLAN_V_FLOPS_PER_DAY] = checked (r, v[NK_PLAN_V_PEAK] * in->in[NK_PLAN_IN_MFU] * gpus * SECONDS_PER_DAY,
                                            "gpus", NK_PLAN_V_FLOPS_PER_DAY);
      r->has[NK_PLAN_V_FLOPS_PER_DAY] = TRUE;
    }
  if (!isfinite (v[NK_PLAN_V_TOTAL_FLOPS]) || !isfinite (v[NK_PLAN_V_FLOPS_PER_DAY]))
    return;

  v[NK_PLAN_V_DAYS] = checked (r, days_with_gpus (v[NK_PLAN_V_TOTAL_FLOPS], v[NK_PLAN_V_PEAK],
                                                  in->in[NK_PLAN_IN_MFU], gpus),
                               CULPRIT (in, { NK_PLAN_IN_PARAMS, 1 }, { NK_PLAN_IN_TOKENS, 1 },
                                        { NK_PLAN_IN_MFU, -1 }, { NK_PLAN_IN_GPUS, -1 }),
                               NK_PLAN_V_DAYS);
  /* GPU-hours do not depend on the GPU count: it cancels. */
  v[NK_PLAN_V_GPU_HOURS] = checked (r, v[NK_PLAN_V_DAYS] * 24.0 * gpus,
                                    CULPRIT (in, { NK_PLAN_IN_PARAMS, 1 }, { NK_PLAN_IN_TOKENS, 1 },
                                             { NK_PLAN_IN_MFU, -1 }),
                                    NK_PLAN_V_GPU_HOURS);
  r->has[NK_PLAN_V_DAYS] = r->has[NK_PLAN_V_GPU_HOURS] = TRUE;
  if (ok->price)
    {
      v[NK_PLAN_V_COST] = checked (r, v[NK_PLAN_V_GPU_HOURS] * in->in[NK_PLAN_IN_PRICE],
                                   CULPRIT (in, { NK_PLAN_IN_PARAMS, 1 }, { NK_PLAN_IN_TOKENS, 1 },
                                            { NK_PLAN_IN_MFU, -1 }, { NK_PLAN_IN_PRICE, 1 }),
                                   NK_PLAN_V_COST);
      r->has[NK_PLAN_V_COST] = TRUE;
    }
}

/* The fewest GPUs whose days meet @deadline on the forward formula, by
 * bisection from the closed form's @guess: every step halves a bounded range,
 * so the search ends even where stepping by one GPU would stall (past 2^53). */
static double
fewest_meeting (double total,
                double peak,
                double mfu,
                double deadline,
                double guess)
{
  double lo = 0, hi = guess;   /* lo does not meet the deadline, hi does */

  while (days_with_gpus (total, peak, mfu, hi) > deadline)
    {
      lo = hi;
      hi *= 2;
      if (hi > 1e16)
        return NAN;
    }
  if (hi > 2 && days_with_gpus (total, peak, mfu, hi - 2) > deadline)
    lo = MAX (lo, hi - 2);   /* the closed form is right within a GPU or two */
  while (hi - lo > 1)
    {
      double mid = floor (lo + (hi - lo) / 2);

      if (mid <= lo || mid >= hi)
        break;
      if (days_with_gpus (total, peak, mfu, mid) <= deadline)
        hi = mid;
      else
        lo = mid;
    }
  return hi;
}

/* The fewest GPUs whose days meet the deadline, settled on the forward formula. */
static void
compute_deadline (const NkPlanInputs *in,
                  NkPlanResult       *r,
                  const Good         *ok)
{
  double *v = r->values;
  double total = v[NK_PLAN_V_TOTAL_FLOPS], peak = v[NK_PLAN_V_PEAK];
  double mfu = in->in[NK_PLAN_IN_MFU], deadline = in->in[NK_PLAN_IN_DEADLINE];
  double n;

  if (!isfinite (total) || !ok->peak || !ok->mfu || !ok->deadline || deadline <= 0)
    return;
  n = ceil (total / (peak * mfu * SECONDS_PER_DAY * deadline));
  if (!isfinite (n) || n > 1e15)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_DEADLINE, "deadline-days", 0);
      return;
    }
  n = fewest_meeting (total, peak, mfu, deadline, MAX (n, 1));
  if (!isfinite (n))
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_DEADLINE, "deadline-days", 0);
      return;
    }
  v[NK_PLAN_V_GPUS_DEADLINE] = n;
  r->has[NK_PLAN_V_GPUS_DEADLINE] = TRUE;
}

/* ---------------------------------------------------------------- memory */

/* Memory per parameter: fp32 keeps 4 + 4 + S; mixed precision 2 + 2 and the fp32
 * master copy, counted as optimizer state as in the ZeRO paper. */
static void
compute_bytes_per_param (const NkPlanInputs *in,
                         NkPlanResult       *r)
{
  double *v = r->values;
  double state = nk_optimizer_state_bytes (in->optimizer);
  gboolean mixed = nk_precision_is_mixed (in->precision);

  v[NK_PLAN_V_PARAM_BYTES] = mixed ? 2 : 4;
  /* bf16 gradients: the ZeRO paper's 16 B/param; fp32 ones: Megatron-LM's 18 */
  v[NK_PLAN_V_GRAD_BYTES] = mixed && in->layout[NK_PLAN_L_GRAD_PRECISION] == NK_GRAD_PRECISION_BF16 ? 2 : 4;
  v[NK_PLAN_V_OPT_BYTES] = mixed ? 4 + state : state;
  v[NK_PLAN_V_BYTES_PER_PARAM] = v[NK_PLAN_V_PARAM_BYTES] + v[NK_PLAN_V_GRAD_BYTES] + v[NK_PLAN_V_OPT_BYTES];
  r->has[NK_PLAN_V_PARAM_BYTES] = r->has[NK_PLAN_V_GRAD_BYTES] = TRUE;
  r->has[NK_PLAN_V_OPT_BYTES] = r->has[NK_PLAN_V_BYTES_PER_PARAM] = TRUE;
}

/* The batch the whole-batch activation estimates count: the batch input, or the
 * layout's global batch when only that is given (both are sequences per step,
 * all GPUs together), so a plan that gives its batch once counts its
 * activations; 0 when neither is given. */
double
_nk_plan_activation_batch (const NkPlanInputs *inputs)
{
  double batch = inputs->in[NK_PLAN_IN_BATCH];

  if (batch == 0 && inputs->layout[NK_PLAN_L_GLOBAL_BATCH] > 0)
    return inputs->layout[NK_PLAN_L_GLOBAL_BATCH];
  return batch;
}

/* Both estimates whenever their inputs are given, so a page can compare them. */
static void
compute_activation_estimates (const NkPlanInputs *in,
                              NkPlanResult       *r)
{
  double *v = r->values;
  double b = _nk_plan_activation_batch (in), s = in->in[NK_PLAN_IN_SEQ];
  double L = in->in[NK_PLAN_IN_LAYERS], h = in->in[NK_PLAN_IN_D_MODEL];
  double a = in->in[NK_PLAN_IN_HEADS];
  double p = r->act_bytes;
  const char *blame;
  double per_layer;

  blame = CULPRIT (in, { NK_PLAN_IN_BATCH, 1 }, { NK_PLAN_IN_SEQ, 1 }, { NK_PLAN_IN_D_MODEL, 1 },
                   { NK_PLAN_IN_LAYERS, 1 });
  v[NK_PLAN_V_ACT_LINEAR] = checked (r, b * s * h * L * p, blame, NK_PLAN_V_ACT_LINEAR);
  r->has[NK_PLAN_V_ACT_LINEAR] = TRUE;
  if (a <= 0)
    return;
  /* Korthikanti et al.'s 34 and 5 count 2-byte values and 1-byte dropout masks:
   * 16 values and 2 masks per s·b·h, 2 values and 1 mask per a·s²·b. */
  per_layer = s * b * h * ((16 * p + 2) + (2 * p + 1) * a * s / h);
  blame = CULPRIT (in, { NK_PLAN_IN_BATCH, 1 }, { NK_PLAN_IN_SEQ, 2 }, { NK_PLAN_IN_D_MODEL, 1 },
                   { NK_PLAN_IN_LAYERS, 1 }, { NK_PLAN_IN_HEADS, 1 });
  v[NK_PLAN_V_ACT_TRANSFORMER] = checked (r, L * per_layer, blame, NK_PLAN_V_ACT_TRANSFORMER);
  v[NK_PLAN_V_ACT_TRANSFORMER_CKPT] = checked (r, p * s * b * h * L + per_layer, blame,
                                               NK_PLAN_V_ACT_TRANSFORMER_CKPT);
  r->has[NK_PLAN_V_ACT_TRANSFORMER] = r->has[NK_PLAN_V_ACT_TRANSFORMER_CKPT] = TRUE;
}

static void
compute_activations (const NkPlanInputs *in,
                     NkPlanResult       *r,
                     const Good         *ok)
{
  const double *x = in->in;
  double *v = r->values;
  gboolean given = ok->act_inputs && _nk_plan_activation_batch (in) > 0 && x[NK_PLAN_IN_SEQ] > 0
                   && x[NK_PLAN_IN_LAYERS] > 0 && x[NK_PLAN_IN_D_MODEL] > 0;

  r->act_bytes = nk_precision_is_mixed (in->precision) ? 2 : 4;
  r->act_source = -1;
  if (given)
    compute_activation_estimates (in, r);
  if (!ok->act_inputs)
    return;
  if (!given)
    {
      v[NK_PLAN_V_MEM_ACT] = 0;
      r->has[NK_PLAN_V_MEM_ACT] = TRUE;
      return;
    }
  if (in->activation_model == NK_ACTIVATION_MODEL_LINEAR)
    r->act_source = NK_PLAN_V_ACT_LINEAR;
  else if (x[NK_PLAN_IN_HEADS] <= 0)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_NEEDS_HEADS, "heads", 0);
      return;
    }
  else
    r->act_source = in->checkpointing ? NK_PLAN_V_ACT_TRANSFORMER_CKPT : NK_PLAN_V_ACT_TRANSFORMER;
  v[NK_PLAN_V_MEM_ACT] = v[r->act_source];
  r->has[NK_PLAN_V_MEM_ACT] = TRUE;
}

/* One full copy of the training state, and the GPU's own memory (known from the
 * GPU alone, even while the GPU count is not). */
static void
compute_memory (const NkPlanInputs *in,
                NkPlanResult       *r,
                const Good         *ok)
{
  double *v = r->values;

  if (ok->params)
    {
      double n = in->in[NK_PLAN_IN_PARAMS];

      v[NK_PLAN_V_MEM_PARAMS] = checked (r, n * v[NK_PLAN_V_PARAM_BYTES], "params", NK_PLAN_V_MEM_PARAMS);
      v[NK_PLAN_V_MEM_GRADS] = checked (r, n * v[NK_PLAN_V_GRAD_BYTES], "params", NK_PLAN_V_MEM_GRADS);
      v[NK_PLAN_V_MEM_OPT] = checked (r, n * v[NK_PLAN_V_OPT_BYTES], "params", NK_PLAN_V_MEM_OPT);
      v[NK_PLAN_V_MEM_TOTAL] = checked (r, v[NK_PLAN_V_MEM_PARAMS] + v[NK_PLAN_V_MEM_GRADS]
                                           + v[NK_PLAN_V_MEM_OPT] + v[NK_PLAN_V_MEM_ACT],
                                        "params", NK_PLAN_V_MEM_TOTAL);
      r->has[NK_PLAN_V_MEM_PARAMS] = r->has[NK_PLAN_V_MEM_GRADS] = TRUE;
      r->has[NK_PLAN_V_MEM_OPT] = r->has[NK_PLAN_V_MEM_TOTAL] = TRUE;
    }
  if (r->gpu != NULL && isfinite (r->gpu->memory))
    {
      v[NK_PLAN_V_HBM] = r->gpu->memory;
      r->has[NK_PLAN_V_HBM] = TRUE;
    }
  else if (r->gpu != NULL)
    nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_NO_MEMORY, "gpu", 0);
}

static double
shard (double bytes,
       int    stage,
       int    from_stage,
       double gpus)
{
  return stage >= from_stage ? bytes / gpus : bytes;
}

/**
 * nk_plan_bytes_per_param_per_gpu:
 * @values: a result's values (the bytes per parameter in each bucket)
 * @stage: a ZeRO stage, 0 to 3
 * @gpus: the GPU count
 *
 * The forward model behind every inverse question, so the inverse answers are
 * exactly consistent with what the plan says for them.
 *
 * Returns: bytes of parameters, gradients and optimizer state per parameter on
 *   each GPU
 */
double
nk_plan_bytes_per_param_per_gpu (const double *values,
                                 int           stage,
                                 double        gpus)
{
  return shard (values[NK_PLAN_V_PARAM_BYTES], stage, 3, gpus)
         + shard (values[NK_PLAN_V_GRAD_BYTES], stage, 2, gpus)
         + shard (values[NK_PLAN_V_OPT_BYTES], stage, 1, gpus);
}

/* The most whole parameters at @per bytes each on a GPU beside its activations. */
static double
largest_at (double per,
            double hbm,
            double act_per_gpu)
{
  double lo = 0, hi;   /* lo fits, hi does not */

  if (!isfinite (per) || !isfinite (hbm) || !isfinite (act_per_gpu) || per <= 0)
    return NAN;
  if (floor ((hbm - act_per_gpu) / per) <= 0)
    return 0;
  /* Division and floor can land one off either way; settle on the forward test,
   * by bisection: stepping by one stalls once the answer passes 2^53. */
  hi = floor ((hbm - act_per_gpu) / per) + 1;
  if (!isfinite (hi))
    return INFINITY;
  while (hi * per + act_per_gpu <= hbm)
    {
      lo = hi;
      hi *= 2;
      if (!isfinite (hi * per))
        return INFINITY;
    }
  if (hi > 2 && (hi - 2) * per + act_per_gpu <= hbm)
    lo = MAX (lo, hi - 2);
  while (hi - lo > 1)
    {
      double mid = floor (lo + (hi - lo) / 2);

      if (mid <= lo || mid >= hi)
        break;
      if (mid * per + act_per_gpu <= hbm)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

static double
largest_params (const double *v,
                int           stage,
                double        gpus,
                double        hbm,
                double        act_per_gpu)
{
  return largest_at (nk_plan_bytes_per_param_per_gpu (v, stage, gpus), hbm, act_per_gpu);
}

/* Under the cluster model's layout: each parameter's bytes split over TP × PP
 * and sharded by @stage over the DP group, beside the most loaded GPU's
 * activations, so the answer rests on the layout the plan shows. */
static double
layout_largest_params (const NkPlanResult *r,
                       int                 stage)
{
  const double *v = r->values;
  double model = (double) r->layout[NK_PLAN_L_TP] * r->layout[NK_PLAN_L_PP];
  double per = nk_plan_bytes_per_param_per_gpu (v, stage, r->layout[NK_PLAN_L_DP]) / model;
  double n = largest_at (per, v[NK_PLAN_V_CAPACITY], v[NK_PLAN_V_MAX_ACT]);

  return isfinite (n) ? n : NAN;
}

/**
 * nk_plan_compute_largest_params:
 * @result: a computed plan
 * @stage: a ZeRO stage, 0 to 3
 * @gpus: the GPU count
 *
 * The largest model the memory allows: the bytes per parameter, divided over the
 * GPUs as @stage shards them, next to @result's activations, within each GPU's
 * capacity. nk_plan_largest_params_at_stage() asks it for a computed plan.
 *
 * Returns: the most whole parameters whose memory per GPU fits, under @stage and
 *   @result's bytes per parameter, activations and GPU memory; NAN when those
 *   are not known
 */
double
nk_plan_compute_largest_params (const NkPlanResult *result,
                                int                 stage,
                                double              gpus)
{
  const double *v = result->values;
  double n = largest_params (v, stage, gpus, v[NK_PLAN_V_CAPACITY], v[NK_PLAN_V_MEM_ACT_GPU]);

  return isfinite (n) ? n : NAN;
}

/**
 * nk_plan_largest_params_at_stage:
 * @inputs: the inputs @result was computed from
 * @result: a computed plan
 * @stage: a ZeRO stage, 0 to 3
 *
 * The answer #NkPlan:largest-params would give under another ZeRO stage, so a
 * page can show which assumption an answer rests on (the lecture's 4.0e10 on
 * 8 H100s is ZeRO-3; replicated, ZeRO-0, it is 5.0e9).
 *
 * Returns: whole parameters, NAN when the GPU count or the memory inputs are not
 *   valid
 */
double
nk_plan_largest_params_at_stage (const NkPlanInputs *inputs,
                                 const NkPlanResult *result,
                                 int                 stage)
{
  double gpus;

  g_return_val_if_fail (inputs != NULL && result != NULL, NAN);
  g_return_val_if_fail (stage >= 0 && stage <= 3, NAN);

  gpus = inputs->in[NK_PLAN_IN_GPUS];
  if (!isfinite (gpus) || gpus < 1 || gpus != floor (gpus))
    return NAN;
  if (result->cluster)
    return layout_largest_params (result, stage);
  return nk_plan_compute_largest_params (result, stage, gpus);
}

/**
 * nk_plan_compute_memory_per_gpu:
 * @inputs: the plan's inputs
 * @result: a computed plan
 * @gpus: a GPU count
 *
 * The forward model of #NkPlan:memory-per-gpu at another GPU count, for the
 * searches: the same sum in the same order, so they agree to the last bit.
 *
 * Returns: bytes per GPU, NAN when the memory is not known
 */
double
nk_plan_compute_memory_per_gpu (const NkPlanInputs *inputs,
                                const NkPlanResult *result,
                                double              gpus)
{
  const double *v = result->values;
  int z = inputs->zero_stage;

  return shard (v[NK_PLAN_V_MEM_PARAMS], z, 3, gpus) + shard (v[NK_PLAN_V_MEM_GRADS], z, 2, gpus)
         + shard (v[NK_PLAN_V_MEM_OPT], z, 1, gpus) + v[NK_PLAN_V_MEM_ACT] / gpus;
}

/* Under a layout, what each GPU holds is the layout's most loaded GPU (its
 * stage's layers over TP, ZeRO over the DP group, its micro-batches'
 * activations): one memory answer per plan, the one fits is judged on. */
static void
compute_per_gpu_layout (NkPlanResult *r)
{
  double *v = r->values;

  v[NK_PLAN_V_MEM_PARAMS_GPU] = v[NK_PLAN_V_MAX_PARAMS];
  v[NK_PLAN_V_MEM_GRADS_GPU] = v[NK_PLAN_V_MAX_GRADS];
  v[NK_PLAN_V_MEM_OPT_GPU] = v[NK_PLAN_V_MAX_OPT];
  v[NK_PLAN_V_MEM_ACT_GPU] = v[NK_PLAN_V_MAX_ACT];
  v[NK_PLAN_V_MEM_PER_GPU] = v[NK_PLAN_V_MEM_MAX];
  r->has[NK_PLAN_V_MEM_PARAMS_GPU] = r->has[NK_PLAN_V_MEM_GRADS_GPU] = TRUE;
  r->has[NK_PLAN_V_MEM_OPT_GPU] = r->has[NK_PLAN_V_MEM_ACT_GPU] = r->has[NK_PLAN_V_MEM_PER_GPU] = TRUE;
  if (isfinite (v[NK_PLAN_V_CAPACITY]))
    {
      v[NK_PLAN_V_LARGEST] = checked (r, layout_largest_params (r, r->zero_stage), "gpus", NK_PLAN_V_LARGEST);
      r->has[NK_PLAN_V_LARGEST] = isfinite (v[NK_PLAN_V_LARGEST]);
    }
}

/* What each GPU holds under the ZeRO stage; activations split by data parallelism. */
static void
compute_per_gpu (const NkPlanInputs *in,
                 NkPlanResult       *r,
                 const Good         *ok)
{
  double *v = r->values;
  double gpus = in->in[NK_PLAN_IN_GPUS];
  int z = in->zero_stage;

  if (!ok->gpus || z < 0 || z > 3)
    return;
  if (r->cluster)
    {
      compute_per_gpu_layout (r);
      return;
    }
  if (isfinite (v[NK_PLAN_V_MEM_ACT]))
    {
      v[NK_PLAN_V_MEM_ACT_GPU] = v[NK_PLAN_V_MEM_ACT] / gpus;
      r->has[NK_PLAN_V_MEM_ACT_GPU] = TRUE;
    }
  if (ok->params)
    {
      v[NK_PLAN_V_MEM_PARAMS_GPU] = shard (v[NK_PLAN_V_MEM_PARAMS], z, 3, gpus);
      v[NK_PLAN_V_MEM_GRADS_GPU] = shard (v[NK_PLAN_V_MEM_GRADS], z, 2, gpus);
      v[NK_PLAN_V_MEM_OPT_GPU] = shard (v[NK_PLAN_V_MEM_OPT], z, 1, gpus);
      v[NK_PLAN_V_MEM_PER_GPU] = nk_plan_compute_memory_per_gpu (in, r, gpus);
      r->has[NK_PLAN_V_MEM_PARAMS_GPU] = r->has[NK_PLAN_V_MEM_GRADS_GPU] = TRUE;
      r->has[NK_PLAN_V_MEM_OPT_GPU] = r->has[NK_PLAN_V_MEM_PER_GPU] = TRUE;
    }
  if (isfinite (v[NK_PLAN_V_CAPACITY]))
    {
      v[NK_PLAN_V_LARGEST] = checked (r, largest_params (v, z, gpus, v[NK_PLAN_V_CAPACITY],
                                                         v[NK_PLAN_V_MEM_ACT_GPU]),
                                      "gpus", NK_PLAN_V_LARGEST);
      r->has[NK_PLAN_V_LARGEST] = isfinite (v[NK_PLAN_V_LARGEST]);
    }
}

/* The fewest GPUs whose memory fits, by bisection (memory per GPU only falls as
 * GPUs are added); NAN when even 2^53 GPUs do not make it fit, as under ZeRO-0
 * with more state than one GPU holds. */
static double
fewest_gpus_that_fit (const NkPlanInputs *in,
                      const NkPlanResult *r)
{
  double hbm = r->values[NK_PLAN_V_CAPACITY];
  double lo = 0, hi = 9007199254740992.0;   /* lo does not fit, hi does */

  if (!(nk_plan_compute_memory_per_gpu (in, r, hi) <= hbm))
    return NAN;
  while (hi - lo > 1)
    {
      double mid = floor (lo + (hi - lo) / 2);

      if (nk_plan_compute_memory_per_gpu (in, r, mid) <= hbm)
        hi = mid;
      else
        lo = mid;
    }
  return hi;
}

/* The deadline answer counts compute only; say what its memory would be, on
 * whole nodes. */
static void
compute_deadline_memory (const NkPlanInputs *in,
                         NkPlanResult       *r)
{
  double n = r->values[NK_PLAN_V_GPUS_DEADLINE];

  r->deadline_nodes = r->deadline_memory_per_gpu = r->fewest_gpus_that_fit = NAN;
  if (r->cluster && r->has[NK_PLAN_V_DEADLINE_GPUS])
    {
      /* One answer: the layout's, on whole nodes, which only counts layouts
       * that fit (NAN when none meets the deadline). */
      r->values[NK_PLAN_V_GPUS_DEADLINE] = r->values[NK_PLAN_V_DEADLINE_GPUS];
      r->has[NK_PLAN_V_GPUS_DEADLINE] = TRUE;
      r->deadline_nodes = ceil (r->values[NK_PLAN_V_DEADLINE_GPUS] / in->layout[NK_PLAN_L_GPUS_PER_NODE]);
      r->deadline_memory_per_gpu = r->values[NK_PLAN_V_DEADLINE_MEMORY];
      r->deadline_fits = isfinite (r->deadline_memory_per_gpu);
      return;
    }
  if (!isfinite (n))
    return;
  r->deadline_nodes = ceil (n / NK_PLAN_GPUS_PER_NODE);
  if (!isfinite (r->values[NK_PLAN_V_MEM_PER_GPU]) || !isfinite (r->values[NK_PLAN_V_CAPACITY]))
    return;
  r->deadline_memory_per_gpu =
    nk_plan_compute_memory_per_gpu (in, r, r->deadline_nodes * NK_PLAN_GPUS_PER_NODE);
  r->deadline_fits = r->deadline_memory_per_gpu <= r->values[NK_PLAN_V_CAPACITY];
  r->fewest_gpus_that_fit = fewest_gpus_that_fit (in, r);
}

/* ---------------------------------------------------------------- sizing */

/* Seed 002, the OpenAI table: needs only the shape, so a bad batch does not hide
 * it, but a bad d_ff does (4 · d_model would be a silent guess). */
static void
compute_sizing (const NkPlanInputs *in,
                NkPlanResult       *r,
                const Good         *ok)
{
  const double *x = in->in;
  double *v = r->values;
  double d = x[NK_PLAN_IN_D_MODEL], L = x[NK_PLAN_IN_LAYERS], n_ctx = x[NK_PLAN_IN_SEQ];
  double d_attn = d;
  double d_ff;

  if (!ok->d_model || !ok->layers || !ok->d_ff || d <= 0 || L <= 0)
    return;
  d_ff = x[NK_PLAN_IN_D_FF] > 0 ? x[NK_PLAN_IN_D_FF] : 4 * d;
  v[NK_PLAN_V_SIZED_PARAMS] = checked (r, 2.0 * d * L * (2.0 * d_attn + d_ff),
                                       CULPRIT (in, { NK_PLAN_IN_D_MODEL, 2 }, { NK_PLAN_IN_LAYERS, 1 },
                                                { NK_PLAN_IN_D_FF, 1 }),
                                       NK_PLAN_V_SIZED_PARAMS);
  r->has[NK_PLAN_V_SIZED_PARAMS] = TRUE;
  if (!ok->seq || n_ctx <= 0)
    return;
  v[NK_PLAN_V_SIZED_FWD] = checked (r, 2.0 * v[NK_PLAN_V_SIZED_PARAMS] + 2.0 * L * n_ctx * d_attn,
                                    CULPRIT (in, { NK_PLAN_IN_SEQ, 1 }, { NK_PLAN_IN_LAYERS, 1 },
                                             { NK_PLAN_IN_D_MODEL, 2 }),
                                    NK_PLAN_V_SIZED_FWD);
  r->has[NK_PLAN_V_SIZED_FWD] = TRUE;
  if (ok->vocab && x[NK_PLAN_IN_VOCAB] > 0)
    {
      v[NK_PLAN_V_SIZED_EMBED] = (x[NK_PLAN_IN_VOCAB] + n_ctx) * d;
      r->has[NK_PLAN_V_SIZED_EMBED] = TRUE;
    }
}

/* Against the capacity the plan uses (the datasheet's unless usable is asked);
 * the cluster model's most loaded GPU where it ran, since the lecture's
 * per-GPU figure spreads activations over every GPU. */
static void
compute_fits (NkPlanResult *r)
{
  double mem = r->cluster ? r->values[NK_PLAN_V_MEM_MAX] : r->values[NK_PLAN_V_MEM_PER_GPU];
  double capacity = r->values[NK_PLAN_V_CAPACITY];

  if (isfinite (r->values[NK_PLAN_V_MEM_PER_GPU]) && isfinite (capacity))
    {
      r->values[NK_PLAN_V_FITS_DP] = r->values[NK_PLAN_V_MEM_PER_GPU] <= capacity;
      r->has[NK_PLAN_V_FITS_DP] = TRUE;
    }

  r->fits = isfinite (mem) && isfinite (capacity) && mem <= capacity;
  r->has[NK_PLAN_V_FITS] = isfinite (mem) && isfinite (capacity);
}

/**
 * nk_plan_compute:
 * @inputs: the plan's inputs
 * @result: (out caller-allocates): every output, NAN where not computable
 *
 * Validates @inputs and computes every output from the good ones. Pure: the same
 * inputs give the same result, and nothing else is read or written (the GPU
 * table aside, which lives for the whole process).
 */
void
nk_plan_compute (const NkPlanInputs *inputs,
                 NkPlanResult       *result)
{
  Good ok = { FALSE };
  NkPlanInputs derived;

  g_return_if_fail (inputs != NULL && result != NULL);

  memset (result, 0, sizeof *result);
  for (guint i = 0; i < NK_PLAN_N_VALUES; i++)
    result->values[i] = NAN;
  result->valid = TRUE;

  validate (inputs, result, &ok);
  compute_bytes_per_param (inputs, result);
  compute_activations (inputs, result, &ok);
  nk_plan_compute_cluster (inputs, result);
  result->mfu = inputs->in[NK_PLAN_IN_MFU];
  if (inputs->layout[NK_PLAN_L_MFU_AUTO] && result->has[NK_PLAN_V_MFU_6N])
    {
      /* --mfu auto: the time model's MFU in the 6N convention of the days, so
       * days = tokens / (tokens per second) exactly. */
      derived = *inputs;
      derived.in[NK_PLAN_IN_MFU] = result->values[NK_PLAN_V_MFU_6N];
      derived.missing[NK_PLAN_IN_MFU] = FALSE;
      ok.mfu = isfinite (derived.in[NK_PLAN_IN_MFU]) && derived.in[NK_PLAN_IN_MFU] > 0;
      result->mfu = derived.in[NK_PLAN_IN_MFU];
      inputs = &derived;
    }
  else if (inputs->layout[NK_PLAN_L_MFU_AUTO])
    {
      /* no step time to derive it from: never the stand-in MFU, silently */
      nk_plan_result_add_problem (result, NK_PLAN_PROBLEM_LAYOUT, "mfu-auto", NK_PLAN_RULE_MFU_AUTO);
      ok.mfu = FALSE;
      result->mfu = NAN;
    }
  result->values[NK_PLAN_V_MFU_USED] = result->mfu;
  result->has[NK_PLAN_V_MFU_USED] = isfinite (result->mfu);
  compute_time (inputs, result, &ok);
  compute_deadline (inputs, result, &ok);
  compute_memory (inputs, result, &ok);
  compute_per_gpu (inputs, result, &ok);
  compute_fits (result);
  compute_deadline_memory (inputs, result);
  compute_sizing (inputs, result, &ok);
}
