/* nk-optimizer.h: the optimizer kinds, the state each keeps per parameter, the learning-rate rule
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A fact the planner and the trainer share: the planner sizes optimizer state from
 * it without reaching the tensor stack; nk-optim.h runs the update rules. The
 * learning-rate rule lives here too, the one check the optimizer, the launch
 * configs and the training config all make.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_OPTIMIZER_ERROR (nk_optimizer_error_quark ())

/**
 * NkOptimizerError:
 * @NK_OPTIMIZER_ERROR_LR: a learning rate that is not a positive finite number
 *
 * Why nk_optimizer_check_lr() refused a setting.
 */
typedef enum {
  NK_OPTIMIZER_ERROR_LR,
} NkOptimizerError;

NK_AVAILABLE_IN_ALL
GQuark nk_optimizer_error_quark (void);

/**
 * NkOptimizer:
 * @NK_OPTIMIZER_SGD: no state (0 bytes per parameter)
 * @NK_OPTIMIZER_MOMENTUM: SGD with momentum: one buffer (4 bytes)
 * @NK_OPTIMIZER_ADAGRAD: sum of squared gradients (4 bytes)
 * @NK_OPTIMIZER_RMSPROP: running mean of squared gradients (4 bytes)
 * @NK_OPTIMIZER_ADAM: first and second moments (8 bytes)
 * @NK_OPTIMIZER_ADAMW: as Adam (8 bytes)
 *
 * The update rule; the planner sizes its state with nk_optimizer_state_bytes().
 * GEnum (nk-enum-types.h) nicks are the CLI names ("adamw", ...).
 */
typedef enum {
  NK_OPTIMIZER_SGD,
  NK_OPTIMIZER_MOMENTUM,
  NK_OPTIMIZER_ADAGRAD,
  NK_OPTIMIZER_RMSPROP,
  NK_OPTIMIZER_ADAM,
  NK_OPTIMIZER_ADAMW,
} NkOptimizer;

NK_AVAILABLE_IN_ALL
const char *nk_optimizer_to_string   (NkOptimizer  optimizer);
NK_AVAILABLE_IN_ALL
gboolean    nk_optimizer_from_string (const char  *text,
                                      NkOptimizer *out_optimizer);
NK_AVAILABLE_IN_ALL
double      nk_optimizer_state_bytes (NkOptimizer  optimizer);
NK_AVAILABLE_IN_ALL
gboolean    nk_optimizer_check_lr    (double        lr,
                                      const char   *flag,
                                      GError      **error);

G_END_DECLS
