/* nk-plan-accessors.c: NkPlan's C getters and setters, and its report methods
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One per property, each a line over the plan's #NkPlanInputs or #NkPlanResult;
 * the properties themselves, their notifications and the recompute are nk-plan.c's.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-plan-private.h"
#include "nk-units.h"

/* @optional inputs read empty text as 0, "not given"; defaults: nk_plan_inputs_init(). */
static const struct {
  gboolean optional;
} inputs[NK_PLAN_N_INPUTS] = {
  [NK_PLAN_IN_PARAMS]   = { FALSE },
  [NK_PLAN_IN_TOKENS]   = { FALSE },
  [NK_PLAN_IN_GPUS]     = { FALSE },
  [NK_PLAN_IN_MFU]      = { FALSE },
  [NK_PLAN_IN_BATCH]    = { TRUE },
  [NK_PLAN_IN_SEQ]      = { TRUE },
  [NK_PLAN_IN_LAYERS]   = { TRUE },
  [NK_PLAN_IN_D_MODEL]  = { TRUE },
  [NK_PLAN_IN_HEADS]    = { TRUE },
  [NK_PLAN_IN_D_FF]     = { TRUE },
  [NK_PLAN_IN_VOCAB]    = { TRUE },
  [NK_PLAN_IN_PRICE]    = { TRUE },
  [NK_PLAN_IN_DEADLINE] = { TRUE },
  /* 0: the calibrated default, nk_plan_matmul_efficiency() */
  [NK_PLAN_IN_EFFICIENCY] = { TRUE },
  /* bytes/s each way per GPU; 0: the GPU table's */
  [NK_PLAN_IN_NVLINK_BW] = { TRUE },
  [NK_PLAN_IN_NETWORK_BW] = { TRUE },
  /* the busiest expert's tokens over the mean; 1: balanced */
  [NK_PLAN_IN_EXPERT_IMBALANCE] = { TRUE },
};

/* ---------------------------------------------------------------- accessors */

#define DOUBLE_INPUT(name, WHICH)                                          \
double                                                                     \
nk_plan_get_##name (NkPlan *self)                                          \
{                                                                          \
  g_return_val_if_fail (NK_IS_PLAN (self), NAN);                           \
  return self->in.in[WHICH];                                                  \
}                                                                          \
void                                                                       \
nk_plan_set_##name (NkPlan *self,                                          \
                    double  value)                                         \
{                                                                          \
  g_return_if_fail (NK_IS_PLAN (self));                                    \
  _nk_plan_set_input_double (self, WHICH, value);                                   \
}

/**
 * nk_plan_get_params: (get-property params)
 * @self: a plan
 *
 * The C getter of #NkPlan:params.
 * Returns: the parameter count
 */
/**
 * nk_plan_set_params: (set-property params)
 * @self: a plan
 * @params: the parameter count; not positive makes the plan invalid
 *
 * Sets #NkPlan:params; every output is recomputed at once.
 */
DOUBLE_INPUT (params, NK_PLAN_IN_PARAMS)
/**
 * nk_plan_get_tokens: (get-property tokens)
 * @self: a plan
 *
 * The C getter of #NkPlan:tokens.
 * Returns: the number of training tokens
 */
/**
 * nk_plan_set_tokens: (set-property tokens)
 * @self: a plan
 * @tokens: the number of training tokens
 *
 * Sets #NkPlan:tokens; every output is recomputed at once.
 */
DOUBLE_INPUT (tokens, NK_PLAN_IN_TOKENS)
/**
 * nk_plan_get_gpus: (get-property gpus)
 * @self: a plan
 *
 * The C getter of #NkPlan:gpus.
 * Returns: the number of GPUs
 */
/**
 * nk_plan_set_gpus: (set-property gpus)
 * @self: a plan
 * @gpus: the number of GPUs, a whole number >= 1
 *
 * Sets #NkPlan:gpus; every output is recomputed at once.
 */
DOUBLE_INPUT (gpus, NK_PLAN_IN_GPUS)
/**
 * nk_plan_get_mfu: (get-property mfu)
 * @self: a plan
 *
 * The C getter of #NkPlan:mfu.
 * Returns: the model FLOPs utilization
 */
/**
 * nk_plan_set_mfu: (set-property mfu)
 * @self: a plan
 * @mfu: the model FLOPs utilization, in (0, 1]
 *
 * Sets #NkPlan:mfu; every output is recomputed at once.
 */
DOUBLE_INPUT (mfu, NK_PLAN_IN_MFU)
/**
 * nk_plan_get_price: (get-property price)
 * @self: a plan
 *
 * The C getter of #NkPlan:price.
 * Returns: dollars per GPU-hour
 */
/**
 * nk_plan_set_price: (set-property price)
 * @self: a plan
 * @price: dollars per GPU-hour, >= 0
 *
 * Sets #NkPlan:price; every output is recomputed at once.
 */
DOUBLE_INPUT (price, NK_PLAN_IN_PRICE)
/**
 * nk_plan_get_batch: (get-property batch)
 * @self: a plan
 *
 * The C getter of #NkPlan:batch.
 * Returns: the global batch in sequences, 0 when not given
 */
/**
 * nk_plan_set_batch: (set-property batch)
 * @self: a plan
 * @batch: the global batch in sequences, a whole number; 0 when not given
 *
 * Sets #NkPlan:batch; every output is recomputed at once.
 */
DOUBLE_INPUT (batch, NK_PLAN_IN_BATCH)
/**
 * nk_plan_get_seq: (get-property seq)
 * @self: a plan
 *
 * The C getter of #NkPlan:seq.
 * Returns: the sequence length (n_ctx for sizing), 0 when not given
 */
/**
 * nk_plan_set_seq: (set-property seq)
 * @self: a plan
 * @seq: the sequence length, a whole number; 0 when not given
 *
 * Sets #NkPlan:seq; every output is recomputed at once.
 */
DOUBLE_INPUT (seq, NK_PLAN_IN_SEQ)
/**
 * nk_plan_get_layers: (get-property layers)
 * @self: a plan
 *
 * The C getter of #NkPlan:layers.
 * Returns: the number of layers, 0 when not given
 */
/**
 * nk_plan_set_layers: (set-property layers)
 * @self: a plan
 * @layers: the number of layers, a whole number; 0 when not given
 *
 * Sets #NkPlan:layers; every output is recomputed at once.
 */
DOUBLE_INPUT (layers, NK_PLAN_IN_LAYERS)
/**
 * nk_plan_get_d_model: (get-property d-model)
 * @self: a plan
 *
 * The C getter of #NkPlan:d-model.
 * Returns: the hidden size, 0 when not given
 */
/**
 * nk_plan_set_d_model: (set-property d-model)
 * @self: a plan
 * @d_model: the hidden size, a whole number; 0 when not given
 *
 * Sets #NkPlan:d-model; every output is recomputed at once.
 */
DOUBLE_INPUT (d_model, NK_PLAN_IN_D_MODEL)
/**
 * nk_plan_get_heads: (get-property heads)
 * @self: a plan
 *
 * The C getter of #NkPlan:heads.
 * Returns: the number of attention heads, 0 when not given
 */
/**
 * nk_plan_set_heads: (set-property heads)
 * @self: a plan
 * @heads: the number of attention heads, a whole number; 0 when not given
 *
 * Sets #NkPlan:heads; every output is recomputed at once.
 */
DOUBLE_INPUT (heads, NK_PLAN_IN_HEADS)
/**
 * nk_plan_get_d_ff: (get-property d-ff)
 * @self: a plan
 *
 * The C getter of #NkPlan:d-ff.
 * Returns: the feed-forward width, 0 for 4 · d_model
 */
/**
 * nk_plan_set_d_ff: (set-property d-ff)
 * @self: a plan
 * @d_ff: the feed-forward width, a whole number; 0 for 4 · d_model
 *
 * Sets #NkPlan:d-ff; every output is recomputed at once.
 */
DOUBLE_INPUT (d_ff, NK_PLAN_IN_D_FF)
/**
 * nk_plan_get_vocab: (get-property vocab)
 * @self: a plan
 *
 * The C getter of #NkPlan:vocab.
 * Returns: the vocabulary size, 0 when not given
 */
/**
 * nk_plan_set_vocab: (set-property vocab)
 * @self: a plan
 * @vocab: the vocabulary size, a whole number; 0 when not given
 *
 * Sets #NkPlan:vocab; every output is recomputed at once.
 */
DOUBLE_INPUT (vocab, NK_PLAN_IN_VOCAB)
/**
 * nk_plan_get_deadline_days: (get-property deadline-days)
 * @self: a plan
 *
 * The C getter of #NkPlan:deadline-days.
 * Returns: the deadline for #NkPlan:gpus-for-deadline, 0 when not asked
 */
/**
 * nk_plan_set_deadline_days: (set-property deadline-days)
 * @self: a plan
 * @days: days, >= 0; 0 when not asked
 *
 * Sets #NkPlan:deadline-days; every output is recomputed at once.
 */
DOUBLE_INPUT (deadline_days, NK_PLAN_IN_DEADLINE)

/**
 * nk_plan_set_input_text:
 * @self: a plan
 * @name: a numeric input property, as nk_plan_input_name() names it ("d-model")
 * @text: what the person typed ("70B", "15T", "7e10", "abc", "")
 *
 * Sets @name from text as a form holds it, parsed with nk_units_parse(). Empty
 * text is 0 ("not given") for the optional inputs (all but params, tokens, gpus
 * and mfu). Text that is not a number leaves the input without a value: it reads
 * NAN, the outputs that need it are NAN, and nk_plan_get_input_error() gives the
 * parser's sentence. This is how a page says "invalid" without a sentinel value
 * (GObject refuses NAN through g_object_set()).
 *
 * Returns: %TRUE when @text is a number (the plan may still refuse its value,
 *   e.g. 0 GPUs; see nk_plan_get_input_error())
 */
gboolean
nk_plan_set_input_text (NkPlan     *self,
                        const char *name,
                        const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *stripped = NULL;
  double value = 0;
  int which;

  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  which = _nk_plan_input_index (name);
  g_return_val_if_fail (which >= 0, FALSE);

  stripped = g_strstrip (g_strdup (text ? text : ""));
  if (inputs[which].optional && stripped[0] == '\0')
    value = 0;
  else if (!nk_units_parse (stripped, &value, &error))
    {
      _nk_plan_set_input_state (self, which, NAN, error->message);
      return FALSE;
    }
  _nk_plan_set_input_state (self, which, value, NULL);
  return TRUE;
}

/**
 * nk_plan_invalidate_input:
 * @self: a plan
 * @name: a numeric input property, as for nk_plan_set_input_text()
 * @message: one sentence saying what is wrong with the input
 *
 * Leaves @name without a value, for callers that parse text their own way: the
 * input reads NAN, the plan is invalid with @message as the input's error, and
 * the outputs that need it are NAN. Setting a value clears it.
 */
void
nk_plan_invalidate_input (NkPlan     *self,
                          const char *name,
                          const char *message)
{
  int which;

  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (message != NULL);
  which = _nk_plan_input_index (name);
  g_return_if_fail (which >= 0);

  _nk_plan_set_input_state (self, which, NAN, message);
}

/**
 * nk_plan_get_input_error:
 * @self: a plan
 * @name: an input property name ("params", "gpu", "dtype", "zero-stage", ...)
 *
 * Unlike #NkPlan:error, which names only the first bad input, every bad input
 * has its own sentence here, so a form can mark each row.
 *
 * Returns: (nullable): why @name is not acceptable, or %NULL when it is
 */
const char *
nk_plan_get_input_error (NkPlan     *self,
                         const char *name)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->out.result.n_problems; i++)
    if (g_str_equal (self->out.result.problems[i].input, name))
      return self->out.report.messages[i];
  return NULL;
}

/**
 * nk_plan_get_activation_model: (get-property activation-model)
 * @self: a plan
 *
 * The C getter of #NkPlan:activation-model.
 * Returns: how activations are estimated
 */
NkActivationModel
nk_plan_get_activation_model (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_ACTIVATION_MODEL_LINEAR);
  return self->in.activation_model;
}

/**
 * nk_plan_set_activation_model: (set-property activation-model)
 * @self: a plan
 * @model: the lecture's deep linear model or the transformer estimate
 *
 * Sets #NkPlan:activation-model; every output is recomputed at once.
 */
void
nk_plan_set_activation_model (NkPlan            *self,
                              NkActivationModel  model)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (model <= NK_ACTIVATION_MODEL_TRANSFORMER);
  SET_INPUT (self, in.activation_model, model, PROP_ACTIVATION_MODEL);
}

/**
 * nk_plan_get_checkpointing: (get-property checkpointing)
 * @self: a plan
 *
 * The C getter of #NkPlan:checkpointing.
 * Returns: whether the transformer estimate assumes full activation checkpointing
 */
gboolean
nk_plan_get_checkpointing (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->in.checkpointing;
}

/**
 * nk_plan_set_checkpointing: (set-property checkpointing)
 * @self: a plan
 * @checkpointing: assume full activation checkpointing (transformer estimate)
 *
 * Sets #NkPlan:checkpointing; every output is recomputed at once.
 */
void
nk_plan_set_checkpointing (NkPlan   *self,
                           gboolean  checkpointing)
{
  g_return_if_fail (NK_IS_PLAN (self));
  checkpointing = !!checkpointing;
  SET_INPUT (self, in.checkpointing, checkpointing, PROP_CHECKPOINTING);
}

/* C getters carry NAN, which a binding cannot pass to g_object_set(). */
#define DOUBLE_OUTPUT(name, WHICH)                                         \
double                                                                     \
nk_plan_get_##name (NkPlan *self)                                          \
{                                                                          \
  g_return_val_if_fail (NK_IS_PLAN (self), NAN);                           \
  return self->out.result.values[WHICH];                                          \
}

/**
 * nk_plan_get_total_flops: (get-property total-flops)
 * @self: a plan
 *
 * The C getter of #NkPlan:total-flops.
 * Returns: 6 · params · tokens, NAN when not computable
 */
DOUBLE_OUTPUT (total_flops, NK_PLAN_V_TOTAL_FLOPS)
/**
 * nk_plan_get_peak_flops_per_gpu: (get-property peak-flops-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:peak-flops-per-gpu.
 * Returns: the GPU's peak FLOP/s for the dtype, NAN when the table has none
 */
DOUBLE_OUTPUT (peak_flops_per_gpu, NK_PLAN_V_PEAK)
/**
 * nk_plan_get_flops_per_day: (get-property flops-per-day)
 * @self: a plan
 *
 * The C getter of #NkPlan:flops-per-day.
 * Returns: peak · mfu · gpus · 86400, NAN when not computable
 */
DOUBLE_OUTPUT (flops_per_day, NK_PLAN_V_FLOPS_PER_DAY)
/**
 * nk_plan_get_days: (get-property days)
 * @self: a plan
 *
 * The C getter of #NkPlan:days.
 * Returns: the training time in days, NAN when not computable
 */
DOUBLE_OUTPUT (days, NK_PLAN_V_DAYS)
/**
 * nk_plan_get_gpu_hours: (get-property gpu-hours)
 * @self: a plan
 *
 * The C getter of #NkPlan:gpu-hours.
 * Returns: days · 24 · gpus, NAN when not computable
 */
DOUBLE_OUTPUT (gpu_hours, NK_PLAN_V_GPU_HOURS)
/**
 * nk_plan_get_cost: (get-property cost)
 * @self: a plan
 *
 * The C getter of #NkPlan:cost.
 * Returns: GPU-hours · price in USD, NAN when not computable
 */
DOUBLE_OUTPUT (cost, NK_PLAN_V_COST)
/**
 * nk_plan_get_hbm_per_gpu: (get-property hbm-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:hbm-per-gpu.
 * Returns: the GPU's memory in bytes as the datasheet gives it (known whenever
 *   the GPU is, even while the GPU count is not), NAN otherwise
 */
DOUBLE_OUTPUT (hbm_per_gpu, NK_PLAN_V_HBM)
/**
 * nk_plan_get_memory_params_per_gpu: (get-property memory-params-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:memory-params-per-gpu.
 * Returns: bytes of parameters each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_params_per_gpu, NK_PLAN_V_MEM_PARAMS_GPU)
/**
 * nk_plan_get_memory_grads_per_gpu: (get-property memory-grads-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:memory-grads-per-gpu.
 * Returns: bytes of gradients each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_grads_per_gpu, NK_PLAN_V_MEM_GRADS_GPU)
/**
 * nk_plan_get_memory_optimizer_per_gpu: (get-property memory-optimizer-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:memory-optimizer-per-gpu.
 * Returns: bytes of optimizer state each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_optimizer_per_gpu, NK_PLAN_V_MEM_OPT_GPU)
/**
 * nk_plan_get_memory_activations_per_gpu: (get-property memory-activations-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:memory-activations-per-gpu.
 * Returns: bytes of activations each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_activations_per_gpu, NK_PLAN_V_MEM_ACT_GPU)
/**
 * nk_plan_get_memory_per_gpu: (get-property memory-per-gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:memory-per-gpu.
 * Returns: the bytes each GPU holds in all, NAN when not computable
 */
DOUBLE_OUTPUT (memory_per_gpu, NK_PLAN_V_MEM_PER_GPU)
/**
 * nk_plan_get_largest_params: (get-property largest-params)
 * @self: a plan
 *
 * The C getter of #NkPlan:largest-params.
 * Returns: the most whole parameters that fit, NAN when not computable
 */
DOUBLE_OUTPUT (largest_params, NK_PLAN_V_LARGEST)
/**
 * nk_plan_get_gpus_for_deadline: (get-property gpus-for-deadline)
 * @self: a plan
 *
 * The C getter of #NkPlan:gpus-for-deadline.
 * Returns: the fewest GPUs that finish within #NkPlan:deadline-days, NAN when
 *   not asked or not computable
 */
DOUBLE_OUTPUT (gpus_for_deadline, NK_PLAN_V_GPUS_DEADLINE)
/**
 * nk_plan_get_sized_params: (get-property sized-params)
 * @self: a plan
 *
 * The C getter of #NkPlan:sized-params.
 * Returns: 2 · d_model · n_layer · (2 · d_attn + d_ff), NAN without d-model and layers
 */
DOUBLE_OUTPUT (sized_params, NK_PLAN_V_SIZED_PARAMS)
/**
 * nk_plan_get_sized_embedding_params: (get-property sized-embedding-params)
 * @self: a plan
 *
 * The C getter of #NkPlan:sized-embedding-params.
 * Returns: the embedding parameters, (vocab + seq) · d_model; NAN without vocab, seq
 */
DOUBLE_OUTPUT (sized_embedding_params, NK_PLAN_V_SIZED_EMBED)
/**
 * nk_plan_get_sized_forward_flops_per_token: (get-property sized-forward-flops-per-token)
 * @self: a plan
 *
 * The C getter of #NkPlan:sized-forward-flops-per-token.
 * Returns: 2 · N + 2 · n_layer · n_ctx · d_attn, NAN without seq
 */
DOUBLE_OUTPUT (sized_forward_flops_per_token, NK_PLAN_V_SIZED_FWD)

/**
 * nk_plan_get_gpu_name: (get-property gpu-name)
 * @self: a plan
 *
 * The C getter of #NkPlan:gpu-name.
 * Returns: (nullable): the GPU's name from the table ("NVIDIA H100 SXM5 80 GB"), or the id
 *   when the table has no such GPU
 */
const char *
nk_plan_get_gpu_name (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->out.report.gpu_name;
}

/**
 * nk_plan_get_bytes_per_param_text: (get-property bytes-per-param-text)
 * @self: a plan
 *
 * The C getter of #NkPlan:bytes-per-param-text.
 * Returns: (nullable): bytes per parameter as a sum, "4 + 4 + 8 = 16"
 */
const char *
nk_plan_get_bytes_per_param_text (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->out.report.bytes_text;
}

/**
 * nk_plan_get_gpu: (get-property gpu)
 * @self: a plan
 *
 * The C getter of #NkPlan:gpu.
 * Returns: (nullable): the GPU table id
 */
const char *
nk_plan_get_gpu (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->gpu;
}

/**
 * nk_plan_set_gpu: (set-property gpu)
 * @self: a plan
 * @gpu: (nullable): a GPU table id; an unknown one makes the plan invalid
 *
 * Sets #NkPlan:gpu; every output is recomputed at once.
 */
void
nk_plan_set_gpu (NkPlan     *self,
                 const char *gpu)
{
  g_return_if_fail (NK_IS_PLAN (self));

  if (g_strcmp0 (self->gpu, gpu) == 0)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  g_free (self->gpu);
  self->gpu = g_strdup (gpu);
  self->in.gpu = self->gpu;
  g_object_notify_by_pspec (G_OBJECT (self), _nk_plan_properties[PROP_GPU]);
  _nk_plan_recompute (self);
  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * nk_plan_get_dtype: (get-property dtype)
 * @self: a plan
 *
 * The C getter of #NkPlan:dtype.
 * Returns: the dtype whose peak the plan uses
 */
NkPeakDtype
nk_plan_get_dtype (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_PEAK_BF16);
  return self->in.dtype;
}

/**
 * nk_plan_set_dtype: (set-property dtype)
 * @self: a plan
 * @dtype: fp32, tf32, bf16, fp16 or fp8 (others make the plan invalid)
 *
 * Sets #NkPlan:dtype; every output is recomputed at once.
 */
void
nk_plan_set_dtype (NkPlan      *self,
                   NkPeakDtype  dtype)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (dtype >= 0 && dtype < NK_PEAK_N_DTYPES);
  SET_INPUT (self, in.dtype, dtype, PROP_DTYPE);
}

/**
 * nk_plan_get_sparse: (get-property sparse)
 * @self: a plan
 *
 * The C getter of #NkPlan:sparse.
 * Returns: whether the 2:4 sparsity peak is used
 */
gboolean
nk_plan_get_sparse (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->in.sparse;
}

/**
 * nk_plan_set_sparse: (set-property sparse)
 * @self: a plan
 * @sparse: use the datasheet's 2:4 structured-sparsity peak instead of the dense one
 *
 * Sets #NkPlan:sparse; every output is recomputed at once.
 */
void
nk_plan_set_sparse (NkPlan   *self,
                    gboolean  sparse)
{
  g_return_if_fail (NK_IS_PLAN (self));
  sparse = !!sparse;
  SET_INPUT (self, in.sparse, sparse, PROP_SPARSE);
}

/**
 * nk_plan_get_optimizer: (get-property optimizer)
 * @self: a plan
 *
 * The C getter of #NkPlan:optimizer.
 * Returns: the optimizer
 */
NkOptimizer
nk_plan_get_optimizer (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_OPTIMIZER_ADAMW);
  return self->in.optimizer;
}

/**
 * nk_plan_set_optimizer: (set-property optimizer)
 * @self: a plan
 * @optimizer: the optimizer, which sets the bytes of state per parameter
 *
 * Sets #NkPlan:optimizer; every output is recomputed at once.
 */
void
nk_plan_set_optimizer (NkPlan      *self,
                       NkOptimizer  optimizer)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (optimizer <= NK_OPTIMIZER_ADAMW);
  SET_INPUT (self, in.optimizer, optimizer, PROP_OPTIMIZER);
}

/**
 * nk_plan_get_precision: (get-property precision)
 * @self: a plan
 *
 * The C getter of #NkPlan:precision.
 * Returns: the precision policy
 */
NkPrecision
nk_plan_get_precision (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_PRECISION_FP32);
  return self->in.precision;
}

/**
 * nk_plan_set_precision: (set-property precision)
 * @self: a plan
 * @precision: fp32 or mixed
 *
 * Sets #NkPlan:precision; every output is recomputed at once.
 */
void
nk_plan_set_precision (NkPlan      *self,
                       NkPrecision  precision)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (precision <= NK_PRECISION_FP16_MIXED);
  SET_INPUT (self, in.precision, precision, PROP_PRECISION);
}

/**
 * nk_plan_get_zero_stage: (get-property zero-stage)
 * @self: a plan
 *
 * The C getter of #NkPlan:zero-stage.
 * Returns: the ZeRO stage, 0 to 3
 */
int
nk_plan_get_zero_stage (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), 0);
  return self->in.zero_stage;
}

/**
 * nk_plan_set_zero_stage: (set-property zero-stage)
 * @self: a plan
 * @stage: 0 replicates everything; 1 shards optimizer state; 2 also gradients;
 *   3 also parameters
 *
 * Sets #NkPlan:zero-stage; every output is recomputed at once.
 */
void
nk_plan_set_zero_stage (NkPlan *self,
                        int     stage)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (stage >= 0 && stage <= 3);
  SET_INPUT (self, in.zero_stage, stage, PROP_ZERO_STAGE);
}

/**
 * nk_plan_get_valid: (get-property valid)
 * @self: a plan
 *
 * The C getter of #NkPlan:valid.
 * Returns: %TRUE when every input is acceptable and every asked-for result finite
 */
gboolean
nk_plan_get_valid (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->out.result.valid;
}

/**
 * nk_plan_get_error: (get-property error)
 * @self: a plan
 *
 * The C getter of #NkPlan:error.
 * Returns: (nullable): one sentence about the first bad input, or %NULL
 */
const char *
nk_plan_get_error (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return _nk_plan_outputs_error (&self->out);
}

/**
 * nk_plan_get_error_input: (get-property error-input)
 * @self: a plan
 *
 * The C getter of #NkPlan:error-input.
 * Returns: (nullable): the property name of the input the error is about
 *   ("params", "mfu", "gpu", ...), or %NULL
 */
const char *
nk_plan_get_error_input (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return _nk_plan_outputs_error_input (&self->out);
}

/**
 * nk_plan_check:
 * @self: a plan
 * @error: the plan's error as a #GError in %NK_PLAN_ERROR
 *
 * Raises #NkPlan:error as a #GError, with a #NkPlanError code saying what kind it is.
 *
 * Returns: %TRUE when the plan is valid
 */
gboolean
nk_plan_check (NkPlan  *self,
               GError **error)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return nk_plan_report_check (&self->out.result, &self->out.report, error);
}

static int
value_index (const char *name)
{
  for (guint i = 0; i < NK_PLAN_N_FORMULAS; i++)
    if (g_strcmp0 (nk_plan_value_name (i), name) == 0)
      return i;
  return -1;
}

/**
 * nk_plan_get_output:
 * @self: a plan
 * @name: a numeric output property, e.g. "days" or "memory-per-gpu"
 *
 * The same as reading the property, without a GValue (for tight loops and the CLI).
 *
 * Returns: the value, NAN when it cannot be computed
 */
double
nk_plan_get_output (NkPlan     *self,
                    const char *name)
{
  int i;

  g_return_val_if_fail (NK_IS_PLAN (self), NAN);
  i = value_index (name);
  g_return_val_if_fail (i >= 0 && i < NK_PLAN_N_VALUES, NAN);
  return self->out.result.values[i];
}

/**
 * nk_plan_get_activation_terms:
 * @self: a plan
 * @terms: (out): bytes of each #NkActTerm on the most loaded GPU
 *
 * memory-max-activations split into the tensors it counts (Korthikanti et al.'s
 * terms, the LayerNorm statistics, the embedding's and the output layer's).
 *
 * Returns: %TRUE when the cluster model ran (a transformer shape, a sequence and a
 *   batch); else @terms are zeros
 */
gboolean
nk_plan_get_activation_terms (NkPlan *self,
                              double  terms[NK_ACT_N_TERMS])
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  memcpy (terms, self->out.result.act_terms, NK_ACT_N_TERMS * sizeof terms[0]);
  return self->out.result.cluster;
}

/**
 * nk_plan_get_fits: (get-property fits)
 * @self: a plan
 *
 * The C getter of #NkPlan:fits.
 * Returns: %TRUE when the memory per GPU is known and at most the GPU's HBM
 */
gboolean
nk_plan_get_fits (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->out.result.fits;
}

/**
 * nk_plan_get_formula:
 * @self: a plan
 * @output: a numeric output property name, or "fits"
 *
 * The formula behind @output with this plan's numbers in it, e.g.
 * "6 × 7.0e10 params × 1.5e13 tokens = 6.3e24 FLOPs". Formulas change with the
 * values; #NkPlan:revision is notified whenever any of them changes.
 *
 * Returns: (nullable): the formula, or %NULL when @output is not computed
 */
const char *
nk_plan_get_formula (NkPlan     *self,
                     const char *output)
{
  int i;

  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  i = value_index (output);
  g_return_val_if_fail (i >= 0, NULL);
  return self->out.report.formulas[i];
}

/**
 * nk_plan_largest_params_for_stage:
 * @self: a plan
 * @stage: a ZeRO stage, 0 to 3
 *
 * The answer #NkPlan:largest-params would give under another ZeRO stage, so a
 * page can show which assumption an answer rests on (the lecture's 4.0e10 on
 * 8 H100s is ZeRO-3; replicated, ZeRO-0, it is 5.0e9).
 *
 * Returns: whole parameters, NAN when the memory inputs are not valid
 */
double
nk_plan_largest_params_for_stage (NkPlan *self,
                                  int     stage)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NAN);
  return nk_plan_largest_params_at_stage (&self->in, &self->out.result, stage);
}

/* ---------------------------------------------------------------- report */

/**
 * nk_plan_build_json:
 * @self: a plan
 * @builder: a builder expecting a value
 * @flags: optional fields
 *
 * nk_plan_report_build_json() on this plan's inputs and result.
 */
void
nk_plan_build_json (NkPlan          *self,
                    JsonBuilder     *builder,
                    NkPlanJsonFlags  flags)
{
  g_return_if_fail (NK_IS_PLAN (self));
  nk_plan_report_build_json (&self->in, &self->out.result, flags, builder);
}

/**
 * nk_plan_format_summary:
 * @self: a plan
 * @flags: the optional parts, as for nk_plan_build_json()
 *
 * nk_plan_report_format_summary() on this plan's inputs, result and report.
 *
 * Returns: (transfer full): the text, ending in a newline
 */
char *
nk_plan_format_summary (NkPlan          *self,
                        NkPlanJsonFlags  flags)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return nk_plan_report_format_summary (&self->in, &self->out.result, &self->out.report, flags);
}

/**
 * nk_plan_get_launch_spec:
 * @self: a plan
 * @spec: (out caller-allocates): the spec to fill
 * @error: why there is no launch to write
 *
 * nk_plan_report_launch_spec() on this plan's inputs and result. The page's
 * "Export launch config" and `napkin-cli plan --export` both call this, then
 * nk_launch_write(), so they write the same bytes.
 *
 * Returns: %FALSE when the plan is invalid or has no layout
 */
gboolean
nk_plan_get_launch_spec (NkPlan        *self,
                         NkLaunchSpec  *spec,
                         GError       **error)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return nk_plan_report_launch_spec (&self->in, &self->out.result, &self->out.report, spec, error);
}
