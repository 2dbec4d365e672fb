/* nk-optim.h: SGD, momentum, the lecture's AdaGrad, RMSProp, Adam and AdamW
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Settings are PyTorch's defaults (CLI.md): momentum 0.9 (dampening 0, no Nesterov);
 * RMSProp alpha 0.99, eps 1e-8; Adam/AdamW betas (0.9, 0.999), eps 1e-8, AdamW weight
 * decay 0.01. AdaGrad is the lecture's: g2 += g²; p -= lr·g / sqrt(g2 + 1e-5).
 * The per-element rules live in nk-kernels.h (nk_kernel_optim_update), run through
 * nk_optimizer_step_() so the GPU runs the same math.
 *
 * State tensors are allocated with the optimizer, zeroed, in %NK_BUCKET_OPTIMIZER:
 * 0 bytes per parameter for SGD, 4 for momentum/AdaGrad/RMSProp, 8 for Adam/AdamW
 * (nk_optimizer_state_bytes() in nk-optimizer.h; the planner reads the same table). Their state_dict names
 * follow torch.optim: momentum_buffer, sum, square_avg, exp_avg, exp_avg_sq, saved
 * in checkpoints as "optimizer.<param name>.<state>".
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-checkpoint.h"
#include "nk-optimizer.h"
#include "nk-tensor.h"

G_BEGIN_DECLS

#define NK_OPTIM_ERROR (nk_optim_error_quark ())

/**
 * NkOptimError:
 * @NK_OPTIM_ERROR_INVALID: a learning rate that is not a positive finite number
 *
 * The ways setting up an optimizer fails, in the %NK_OPTIM_ERROR domain.
 */
typedef enum {
  NK_OPTIM_ERROR_INVALID,
} NkOptimError;

NK_AVAILABLE_IN_ALL
GQuark nk_optim_error_quark (void);

/**
 * NkOptim:
 *
 * An optimizer over a model's parameters: the update rule, the learning rate, the
 * step count and the per-parameter state tensors (momentum, Adam's moments). Not a
 * boxed type: it holds references on parameters it updates in place and is neither
 * refcounted nor meaningfully copied, so bindings do not see it (#NkTrainer runs one).
 */
typedef struct _NkOptim NkOptim;

/**
 * nk_optim_new: (skip)
 * @kind: the rule (#NkOptimizer: sgd, momentum, adagrad, rmsprop, adam, adamw)
 * @lr: the learning rate, > 0
 * @params: (array length=n_params): f32 contiguous parameters (refs are taken)
 * @names: (array length=n_params): their state_dict names
 * @n_params: their count
 * @error: return location for a #GError
 *
 * An optimizer with zeroed state for @params. Not for bindings (see #NkOptim).
 *
 * Returns: (transfer full) (nullable): the optimizer at step 0
 */
NK_AVAILABLE_IN_ALL
NkOptim    *nk_optim_new            (NkOptimizer          kind,
                                     double               lr,
                                     NkTensor *const     *params,
                                     const char *const   *names,
                                     guint                n_params,
                                     GError             **error);
NK_AVAILABLE_IN_ALL
void        nk_optim_free           (NkOptim             *optim);

NK_AVAILABLE_IN_ALL
gboolean    nk_optim_step           (NkOptim             *optim,
                                     GError             **error);

NK_AVAILABLE_IN_ALL
NkOptimizer nk_optim_get_kind       (NkOptim             *optim);
NK_AVAILABLE_IN_ALL
double      nk_optim_get_lr         (NkOptim             *optim);
NK_AVAILABLE_IN_ALL
guint64     nk_optim_get_step       (NkOptim             *optim);
NK_AVAILABLE_IN_ALL
guint       nk_optim_get_n_states   (NkOptim             *optim);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_optim_get_state      (NkOptim             *optim,
                                     guint                index,
                                     guint                which);
NK_AVAILABLE_IN_ALL
const char *nk_optim_get_state_name (NkOptim             *optim,
                                     guint                which);

NK_AVAILABLE_IN_ALL
gboolean    nk_optim_save_state     (NkOptim             *optim,
                                     NkCheckpoint        *ck,
                                     GError             **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_optim_load_state     (NkOptim             *optim,
                                     NkCheckpoint        *ck,
                                     guint64              step,
                                     GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkOptim, nk_optim_free)

G_END_DECLS
