/* nk-model.h: a model (the lecture's Cruncher and tiny byte-level LM, or a GPT)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameters carry PyTorch's state_dict names and layouts, so a model saved here
 * loads into the PyTorch module of the same shape:
 *
 *   Cruncher(D, L):   layers.0.weight [D, D], layers.0.bias [D], ...,
 *                     layers.{L-1}.*, final.weight [1, D], final.bias [1]
 *                     x [B, D] → L × Linear(D, D) → Linear(D, 1) → [B]; MSE loss.
 *                     D²L + DL + D + 1 parameters (seed 001).
 *   TinyLM(V, D, L):  embedding.weight [V, D], layers.i.weight [D, D], layers.i.bias,
 *                     head.weight [V, D], head.bias [V]
 *                     tokens [B, T] → embedding → L × (Linear + ReLU) → logits
 *                     [B·T, V]; cross-entropy against the next tokens.
 *
 * Each is an architecture (nk-model-arch.h) in its own file: nk-cruncher.c,
 * nk-tiny-lm.c, nk-gpt.c. nk-model.c holds what every model shares and calls
 * through the table.
 *
 * Parameter storages are counted in %NK_BUCKET_PARAMS and their gradients (allocated
 * with the model, zeroed) in %NK_BUCKET_GRADS, so both buckets hold exactly 4 bytes
 * per parameter (f32) from the start.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-autograd.h"
#include "nk-checkpoint.h"
#include "nk-init.h"
#include "nk-rng.h"
#include "nk-safetensors.h"

G_BEGIN_DECLS

#define NK_MODEL_ERROR (nk_model_error_quark ())

/**
 * NkModelError:
 * @NK_MODEL_ERROR_INVALID: a size that cannot make a model (0 dims, too large)
 * @NK_MODEL_ERROR_STATE: a state_dict that does not fit the model (missing tensor,
 *   shape or dtype mismatch)
 *
 * The ways building or loading a model fails, in the %NK_MODEL_ERROR domain.
 */
typedef enum {
  NK_MODEL_ERROR_INVALID,
  NK_MODEL_ERROR_STATE,
} NkModelError;

NK_AVAILABLE_IN_ALL
GQuark nk_model_error_quark (void);

/**
 * NkModelKind:
 * @NK_MODEL_CRUNCHER: the lecture's deep linear model
 * @NK_MODEL_TINY_LM: a byte-level MLP language model
 * @NK_MODEL_GPT: nanoGPT's GPT-2-style decoder (nk-gpt.h)
 *
 * The architectures a run can train (`napkin-cli train --model`).
 */
typedef enum {
  NK_MODEL_CRUNCHER,
  NK_MODEL_TINY_LM,
  NK_MODEL_GPT,
} NkModelKind;

NK_AVAILABLE_IN_ALL
const char *nk_model_kind_to_string   (NkModelKind kind);
NK_AVAILABLE_IN_ALL
gboolean    nk_model_kind_from_string (const char  *text,
                                       NkModelKind *out_kind);

/**
 * NkModel:
 *
 * A model: its architecture (#NkModelArch), sizes, and parameter tensors in
 * state_dict order with their gradients. Not a boxed type: it is neither refcounted
 * nor cheap to copy (a copy would have to clone every parameter, and the trainer's
 * model changes under a running step), so bindings do not build models; they run
 * them through #NkTrainer and its #NkTrainConfig.
 */
typedef struct _NkModel NkModel;

/**
 * nk_model_new_cruncher: (skip)
 * @dim: D
 * @layers: L (0 is allowed: the lecture's plain linear regression)
 * @dtype: f32 (training) or f64 (gradient checks)
 * @error: return location for a #GError
 *
 * The lecture's deep linear model: L Linear(D, D) layers and a Linear(D, 1) head,
 * trained with the MSE loss. Not for bindings (see #NkModel).
 *
 * Returns: (transfer full) (nullable): the model, parameters zero until initialised
 */
NK_AVAILABLE_IN_ALL
NkModel    *nk_model_new_cruncher      (guint         dim,
                                        guint         layers,
                                        NkDType       dtype,
                                        GError      **error);

/**
 * nk_model_new_tiny_lm: (skip)
 * @vocab: V (256 for bytes)
 * @dim: D
 * @layers: L
 * @dtype: f32 or f64
 * @error: return location for a #GError
 *
 * A byte-level MLP language model: an Embedding(V, D), L Linear(D, D) + ReLU layers
 * and a Linear(D, V) head, trained with cross-entropy. Not for bindings (see
 * #NkModel).
 *
 * Returns: (transfer full) (nullable): the model
 */
NK_AVAILABLE_IN_ALL
NkModel    *nk_model_new_tiny_lm       (guint         vocab,
                                        guint         dim,
                                        guint         layers,
                                        NkDType       dtype,
                                        GError      **error);
NK_AVAILABLE_IN_ALL
void        nk_model_free              (NkModel      *model);

NK_AVAILABLE_IN_ALL
NkModelKind nk_model_get_kind          (NkModel      *model);
NK_AVAILABLE_IN_ALL
guint       nk_model_get_dim           (NkModel      *model);
NK_AVAILABLE_IN_ALL
guint       nk_model_get_layers        (NkModel      *model);
NK_AVAILABLE_IN_ALL
guint       nk_model_get_vocab         (NkModel      *model);
NK_AVAILABLE_IN_ALL
guint       nk_model_get_n_head        (NkModel      *model);
NK_AVAILABLE_IN_ALL
guint       nk_model_get_block_size    (NkModel      *model);

NK_AVAILABLE_IN_ALL
NkTensor  **nk_model_get_params        (NkModel      *model,
                                        guint        *out_n);
NK_AVAILABLE_IN_ALL
const char *nk_model_get_param_name    (NkModel      *model,
                                        guint         index);
NK_AVAILABLE_IN_ALL
const char *const *nk_model_get_param_names (NkModel *model);
NK_AVAILABLE_IN_ALL
guint64     nk_model_count_parameters  (NkModel      *model);

/**
 * nk_model_activation_bytes: (skip)
 * @model: a model
 * @rows: the rows one step feeds it: B for the Cruncher, B·T tokens for the LM
 * @compute: %NK_DTYPE_F32, or the autocast dtype (bf16/f16) of a mixed run
 *
 * The bytes of what one step's forward keeps for backward (the activations bucket),
 * counted tensor by tensor as nk-autograd allocates them; c is @compute's size, w the
 * model's (4):
 *  - Cruncher (D, L): each layer's output, L·B·D·c, and the head's, B·c; under
 *    autocast also layer 0's rounded input, B·D·c (the fp32 batch is data; the narrow
 *    copy is what backward multiplies with, as torch.autocast keeps it); the MSE's
 *    difference, B·4 (never narrower than fp32), and the loss, 4. Without autocast
 *    this is nk-plan's linear formula (batch × d_model × layers × 4) plus B·8 + 4.
 *  - tiny LM (vocab V, D, L; N = B·T): the embedding, N·D·w; per layer the Linear
 *    output and the ReLU output, 2·N·D·c; under autocast the rounded copy of the fp32
 *    embedding, N·D·c, once; the logits, N·V·c, and under autocast their fp32 copy
 *    for the softmax, N·V·4; the loss, 4. nk-plan's one-tensor-per-layer formula does
 *    not describe this model (the ReLU doubles a layer, the vocabulary-wide logits
 *    often dominate), so the trainer predicts with this.
 *  - GPT: nk_gpt_activation_bytes() for @rows / T sequences of its block size T.
 *
 * Returns: the bytes
 */
NK_AVAILABLE_IN_ALL
guint64     nk_model_activation_bytes  (NkModel      *model,
                                        guint64       rows,
                                        NkDType       compute);

NK_AVAILABLE_IN_ALL
gboolean    nk_model_init              (NkModel      *model,
                                        NkRng        *rng,
                                        NkInitKind    kind,
                                        GError      **error);

/**
 * nk_model_loss: (skip)
 * @model: a model
 * @input: Cruncher: x [B, D]; TinyLM and GPT: tokens [B, T] (int32)
 * @target: Cruncher: y [B]; TinyLM and GPT: next tokens [B, T] or [B·T] (int32)
 * @error: return location for a #GError
 *
 * The forward pass through nk_ag_*() ops, recording the graph.
 *
 * Returns: (transfer full) (nullable): the 0-D loss
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_model_loss              (NkModel      *model,
                                        NkTensor     *input,
                                        NkTensor     *target,
                                        GError      **error);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_model_forward           (NkModel      *model,
                                        NkTensor     *input,
                                        GError      **error);

NK_AVAILABLE_IN_ALL
gboolean    nk_model_zero_grad         (NkModel      *model,
                                        GError      **error);

/**
 * nk_model_load_state_dict: (skip)
 * @model: a model
 * @st: a parsed safetensors file with every parameter under its name
 * @error: return location for a #GError naming the tensor that is missing or has
 *   the wrong shape ("layers.0.weight has shape (32, 32) but the model needs (64, 64)")
 *
 * Extra tensors (the optimizer's) are ignored.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_model_load_state_dict   (NkModel       *model,
                                        NkSafetensors *st,
                                        GError       **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_model_save_state_dict   (NkModel             *model,
                                        NkSafetensorsWriter *writer,
                                        GError             **error);

NK_AVAILABLE_IN_ALL
gboolean    nk_model_load_checkpoint   (NkModel       *model,
                                        NkCheckpoint  *ck,
                                        GError       **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_model_save_checkpoint   (NkModel       *model,
                                        NkCheckpoint  *ck,
                                        GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkModel, nk_model_free)

G_END_DECLS
