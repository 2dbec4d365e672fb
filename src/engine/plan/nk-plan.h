/* nk-plan.h: the budget planner: compute time, cost and memory of a training run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkPlan holds the inputs of a napkin estimate as properties and keeps every
 * output up to date: setting an input recomputes all outputs at once (pure
 * arithmetic and formula text, well under 0.2 ms; see benchmarks/bench-plan.c)
 * and notifies each changed property exactly
 * once. Widgets bind to the properties; `napkin-cli plan` prints them. The
 * arithmetic is nk_plan_compute() (nk-plan-compute.h), a pure function on a plain
 * struct that search loops call too; the text (formulas, JSON, summary, launch
 * spec) is nk-plan-report.h's, pure functions of the same structs that the
 * methods below wrap.
 *
 * The formulas (every output also has its formula as text with the numbers in it,
 * see nk_plan_get_formula()):
 *
 *   total_flops    = 6 · params · tokens                (Kaplan et al. 2020, lecture 2)
 *   peak           = GPU table peak for dtype (dense unless sparse)
 *   flops_per_day  = peak · mfu · gpus · 86400
 *   days           = total_flops / flops_per_day
 *   gpu_hours      = days · 24 · gpus
 *   cost           = gpu_hours · price
 *
 * Memory, per parameter (bytes):
 *   precision fp32:  4 (params) + 4 (grads) + S (optimizer state, fp32)
 *   precision mixed: 2 (bf16 params) + 2 (bf16 grads) + 4 + S (fp32 master copy and
 *                    optimizer state: "what you accumulate stays in fp32"). As in the
 *                    ZeRO paper, the master copy counts as optimizer state.
 *   S = 8 adam/adamw (two moments), 4 adagrad/rmsprop/momentum, 0 sgd.
 * Per GPU under ZeRO (Rajbhandari et al. 2020): stage 0 replicates everything;
 * 1 divides optimizer state by gpus; 2 also gradients; 3 also parameters. Where
 * the cluster model runs (a shape, a sequence and a batch), the per-GPU outputs
 * are its layout's most loaded GPU instead (ZeRO over the DP group): one memory
 * answer per plan, the one "fits" judges.
 *
 * Activations (only when batch, seq, layers and d-model are all given; batch is the
 * global batch in sequences, the "global-batch" input when only that is given,
 * split evenly over the GPUs by data parallelism):
 *   linear (the lecture's deep linear model): batch · seq · d_model · layers values,
 *     4 bytes each (fp32) or 2 (mixed); use seq 1 for the lecture's B·D·L.
 *   transformer (Korthikanti et al. 2022, "Reducing Activation Recomputation in
 *     Large Transformer Models", eq. 1, no tensor parallelism): in mixed precision
 *     (2-byte activations) s·b·h·(34 + 5·a·s/h) bytes per layer, times layers;
 *     in fp32 the same tensors take 4 bytes and the dropout masks stay 1 byte:
 *     s·b·h·(66 + 9·a·s/h). With full activation checkpointing: the layer inputs
 *     (2 or 4 · s·b·h bytes per layer) plus one layer's full set while it is
 *     recomputed.
 *
 * Transformer sizing (OpenAI table, Kaplan et al. 2020, seed 002), embeddings
 * excluded:  N = 2 · d_model · n_layer · (2 · d_attn + d_ff),
 *            forward FLOPs per token = 2 · N + 2 · n_layer · n_ctx · d_attn,
 * with d_attn = d_model, d_ff = 4 · d_model unless given, n_ctx = seq.
 *
 * Invalid input (a non-positive count, MFU outside (0, 1], an unknown GPU, a dtype
 * the GPU has no peak for, a result beyond the range of a double) makes the plan
 * invalid: #NkPlan:valid is %FALSE, #NkPlan:error is one sentence naming the input
 * and #NkPlan:error-input its property name. Every output that depends on the bad
 * input is NAN (show "—"); outputs that do not depend on it are still computed
 * (so #NkPlan:largest-params answers without params or tokens, and
 * #NkPlan:hbm-per-gpu without a GPU count). nk_plan_get_input_error() has a
 * sentence for each bad input, not only the first.
 *
 * A form hands the plan text as typed, nk_plan_set_input_text (plan, "batch",
 * "abc"): text that is not a number leaves the input without a value (it reads
 * NAN) and its error is the parser's sentence; nk_plan_invalidate_input() does
 * the same with a caller's sentence. Neither needs a sentinel value, and GObject,
 * which refuses NAN through g_object_set(), is not involved. Every numeric input
 * and output also has a C getter (and every input a C setter) that carries NAN.
 *
 * Properties, inputs (read-write):
 *   "params"            double   parameter count N (default 70e9)
 *   "tokens"            double   training tokens D (default 15e12)
 *   "gpu"               string   GPU table id (default "h100-sxm")
 *   "gpus"              double   number of GPUs, a whole number >= 1 (default 1024)
 *   "mfu"               double   model FLOPs utilization in (0, 1] (default 0.5)
 *   "dtype"             NkPeakDtype  fp32 | tf32 | bf16 | fp16 | fp8 (default bf16)
 *   "sparse"            boolean  use the 2:4 sparsity peak (default FALSE)
 *   "optimizer"         NkOptimizer  (default adamw)
 *   "precision"         NkPrecision  (default fp32)
 *   "zero-stage"        int      0..3 (default 0)
 *   "batch"             double   global batch in sequences, 0 = not given
 *   "seq"               double   sequence length (also n_ctx for sizing), 0 = not given
 *   "layers"            double   number of layers, 0 = not given
 *   "d-model"           double   hidden size, 0 = not given
 *   "heads"             double   attention heads (transformer activations), 0 = not given
 *   "d-ff"              double   feed-forward width for sizing, 0 = 4 · d_model
 *   "vocab"             double   vocabulary size (embedding parameters), 0 = not given
 *   "activation-model"  NkActivationModel  linear | transformer (default linear)
 *   "checkpointing"     boolean  full activation checkpointing (transformer model)
 *   "price"             double   USD per GPU-hour, >= 0 (default 0)
 *   "deadline-days"     double   for gpus-for-deadline, 0 = not asked
 *
 * Properties, outputs (read-only, NAN where not computable):
 *   "valid" boolean, "error" string (nullable), "error-input" string (nullable),
 *   "gpu-name" string, "hbm-per-gpu" double (bytes),
 *   "total-flops", "peak-flops-per-gpu", "flops-per-day", "days", "gpu-hours",
 *   "cost"  doubles;
 *   "bytes-per-param" double (unsharded), "bytes-per-param-text" string
 *   ("4 + 4 + 8 = 16"), "param-bytes", "grad-bytes", "optimizer-bytes" doubles
 *   (bytes per parameter in each bucket);
 *   "memory-params", "memory-grads", "memory-optimizer", "memory-activations",
 *   "memory-total"   doubles: bytes of one full copy of the training state;
 *   "memory-params-per-gpu", "memory-grads-per-gpu", "memory-optimizer-per-gpu",
 *   "memory-activations-per-gpu", "memory-per-gpu"  doubles: what each GPU holds;
 *   "fits" boolean (memory-per-gpu <= the capacity: hbm-per-gpu, or what
 *   CUDA reports less its context and the reserve with capacity usable);
 *   "activations-linear", "activations-transformer",
 *   "activations-transformer-checkpointed"  doubles (bytes, whole batch);
 *   "largest-params" double (whole parameters), "gpus-for-deadline" double (the
 *   fewest GPUs whose compute meets the deadline; the summary adds whole nodes
 *   and whether the memory fits there);
 *   "sized-params", "sized-embedding-params", "sized-forward-flops-per-token" doubles.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

#include "nk-enum-types.h"
#include "nk-gpus.h"
#include "nk-launch.h"
#include "nk-optimizer.h"
#include "nk-plan-compute.h"
#include "nk-plan-report.h"
#include "nk-precision.h"

G_BEGIN_DECLS

#define NK_TYPE_PLAN             (nk_plan_get_type ())

NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkPlan, nk_plan, NK, PLAN, GObject)

NK_AVAILABLE_IN_ALL
const char  *nk_activation_model_to_string    (NkActivationModel  model);
NK_AVAILABLE_IN_ALL
gboolean     nk_activation_model_from_string  (const char        *text,
                                               NkActivationModel *out_model);

NK_AVAILABLE_IN_ALL
NkPlan      *nk_plan_new                      (void);

/* Inputs. */
NK_AVAILABLE_IN_ALL
double       nk_plan_get_params               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_params               (NkPlan            *self,
                                               double             params);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_tokens               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_tokens               (NkPlan            *self,
                                               double             tokens);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_gpu                  (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_gpu                  (NkPlan            *self,
                                               const char        *gpu);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_gpus                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_gpus                 (NkPlan            *self,
                                               double             gpus);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_mfu                  (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_mfu                  (NkPlan            *self,
                                               double             mfu);
NK_AVAILABLE_IN_ALL
NkPeakDtype  nk_plan_get_dtype                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_dtype                (NkPlan            *self,
                                               NkPeakDtype        dtype);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_sparse               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_sparse               (NkPlan            *self,
                                               gboolean           sparse);
NK_AVAILABLE_IN_ALL
NkOptimizer  nk_plan_get_optimizer            (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_optimizer            (NkPlan            *self,
                                               NkOptimizer        optimizer);
NK_AVAILABLE_IN_ALL
NkPrecision  nk_plan_get_precision            (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_precision            (NkPlan            *self,
                                               NkPrecision        precision);
NK_AVAILABLE_IN_ALL
int          nk_plan_get_zero_stage           (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_zero_stage           (NkPlan            *self,
                                               int                stage);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_price                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_price                (NkPlan            *self,
                                               double             price);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_batch                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_batch                (NkPlan            *self,
                                               double             batch);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_seq                  (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_seq                  (NkPlan            *self,
                                               double             seq);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_layers               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_layers               (NkPlan            *self,
                                               double             layers);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_d_model              (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_d_model              (NkPlan            *self,
                                               double             d_model);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_heads                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_heads                (NkPlan            *self,
                                               double             heads);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_d_ff                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_d_ff                 (NkPlan            *self,
                                               double             d_ff);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_vocab                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_vocab                (NkPlan            *self,
                                               double             vocab);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_deadline_days        (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_deadline_days        (NkPlan            *self,
                                               double             days);
NkActivationModel
             nk_plan_get_activation_model     (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_activation_model     (NkPlan            *self,
                                               NkActivationModel  model);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_checkpointing        (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_checkpointing        (NkPlan            *self,
                                               gboolean           checkpointing);

/* Inputs as a form holds them: text, or no value with a reason. */
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_set_input_text           (NkPlan            *self,
                                               const char        *name,
                                               const char        *text);
NK_AVAILABLE_IN_ALL
void         nk_plan_invalidate_input         (NkPlan            *self,
                                               const char        *name,
                                               const char        *message);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_input_error          (NkPlan            *self,
                                               const char        *name);

/* Outputs. */
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_valid                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_error                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_error_input          (NkPlan            *self);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_check                    (NkPlan            *self,
                                               GError           **error);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_output               (NkPlan            *self,
                                               const char        *name);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_activation_terms     (NkPlan            *self,
                                               double             terms[NK_ACT_N_TERMS]);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_fits                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_gpu_name             (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_bytes_per_param_text (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_total_flops          (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_peak_flops_per_gpu   (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_flops_per_day        (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_days                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_gpu_hours            (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_cost                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_hbm_per_gpu          (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_params_per_gpu      (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_grads_per_gpu       (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_optimizer_per_gpu   (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_activations_per_gpu (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_per_gpu       (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_largest_params       (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_gpus_for_deadline    (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_sized_params         (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_sized_embedding_params        (NkPlan   *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_sized_forward_flops_per_token (NkPlan   *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_formula              (NkPlan            *self,
                                               const char        *output);
NK_AVAILABLE_IN_ALL
double       nk_plan_largest_params_for_stage (NkPlan            *self,
                                               int                stage);

/* The report of the plan's own structs (nk-plan-report.h). */
NK_AVAILABLE_IN_ALL
void         nk_plan_build_json               (NkPlan            *self,
                                               JsonBuilder       *builder,
                                               NkPlanJsonFlags    flags);
NK_AVAILABLE_IN_ALL
char        *nk_plan_format_summary           (NkPlan            *self,
                                               NkPlanJsonFlags    flags);

NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_launch_spec          (NkPlan            *self,
                                               NkLaunchSpec      *spec,
                                               GError           **error);

G_END_DECLS
