/* nk-optimizer.c: the optimizer kinds by name, and their state bytes per parameter
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-optimizer.h"

/**
 * nk_optimizer_to_string:
 * @optimizer: an optimizer
 *
 * Returns: its CLI name ("adamw")
 */
const char *
nk_optimizer_to_string (NkOptimizer optimizer)
{
  return nk_enum_to_nick (NK_TYPE_OPTIMIZER, optimizer);
}

/**
 * nk_optimizer_from_string:
 * @text: "sgd", "momentum", "adagrad", "rmsprop", "adam" or "adamw" (any case)
 * @out_optimizer: (out): the optimizer
 *
 * Returns: %TRUE if @text names an optimizer
 */
gboolean
nk_optimizer_from_string (const char  *text,
                          NkOptimizer *out_optimizer)
{
  int value;

  g_return_val_if_fail (out_optimizer != NULL, FALSE);
  if (!nk_enum_from_nick (NK_TYPE_OPTIMIZER, text, &value))
    return FALSE;
  *out_optimizer = value;
  return TRUE;
}

/**
 * nk_optimizer_state_bytes:
 * @optimizer: an optimizer
 *
 * Bytes of fp32 optimizer state per parameter: the buffers PyTorch keeps
 * (Adam's two moments, AdaGrad's sum of squares, RMSprop's square average,
 * SGD's momentum buffer).
 *
 * Returns: 8, 4 or 0
 */
double
nk_optimizer_state_bytes (NkOptimizer optimizer)
{
  switch (optimizer)
    {
    case NK_OPTIMIZER_SGD: return 0;
    case NK_OPTIMIZER_MOMENTUM:
    case NK_OPTIMIZER_ADAGRAD:
    case NK_OPTIMIZER_RMSPROP: return 4;
    case NK_OPTIMIZER_ADAM:
    case NK_OPTIMIZER_ADAMW: return 8;
    default: g_return_val_if_reached (NAN);
    }
}
