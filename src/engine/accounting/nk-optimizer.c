/* nk-optimizer.c: optimizer kinds by name, their state bytes, the learning-rate rule
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-optimizer.h"

/**
 * nk_optimizer_error_quark:
 *
 * The error domain of an optimizer's settings (nk_optimizer_check_lr()).
 *
 * Returns: the #GQuark of %NK_OPTIMIZER_ERROR
 */
G_DEFINE_QUARK (nk-optimizer-error-quark, nk_optimizer_error)

/**
 * nk_optimizer_to_string:
 * @optimizer: an optimizer
 *
 * The name `napkin-cli plan --optimizer` takes and JSON writes.
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
 * Reads an optimizer's CLI name, in any case.
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

/**
 * nk_optimizer_check_lr:
 * @lr: a learning rate
 * @flag: (nullable): the command-line flag that gave @lr ("--lr"), named in the
 *   sentence; %NULL where no flag did
 * @error: return location for a #GError (%NK_OPTIMIZER_ERROR_LR)
 *
 * The learning-rate rule, the one home of the check the optimizer, the launch
 * configs and the training config make: a positive finite number (a tiny one
 * such as 1e-300 included). Callers keep their own error domain and copy the
 * sentence.
 *
 * Returns: %TRUE if @lr is one
 */
gboolean
nk_optimizer_check_lr (double       lr,
                       const char  *flag,
                       GError     **error)
{
  if (lr > 0.0 && isfinite (lr))
    return TRUE;
  if (flag != NULL)
    g_set_error (error, NK_OPTIMIZER_ERROR, NK_OPTIMIZER_ERROR_LR,
                 _("The learning rate %s must be a positive number, not %g."), flag, lr);
  else
    g_set_error (error, NK_OPTIMIZER_ERROR, NK_OPTIMIZER_ERROR_LR,
                 _("The learning rate must be a positive number, not %g."), lr);
  return FALSE;
}
