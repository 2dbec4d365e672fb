/* nk-optim.c: SGD, momentum, the lecture's AdaGrad, RMSProp, Adam and AdamW
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "nk-ops.h"
#include "nk-optim.h"

/**
 * nk_optim_error_quark:
 *
 * The domain of %NK_OPTIM_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-optim-error-quark, nk_optim_error)

struct _NkOptim
{
  NkOptimizer  kind;
  NkOptimStep  rule;
  double       lr;
  guint64      step;
  guint        n_states;
  GPtrArray   *params;   /* NkTensor* */
  GPtrArray   *names;    /* char* */
  GPtrArray   *states;   /* NkTensor*, n_states per parameter */
};

static const char *
state_name (NkOptimizer kind,
            guint       which)
{
  switch (kind)
    {
    case NK_OPTIMIZER_MOMENTUM: return "momentum_buffer";
    case NK_OPTIMIZER_ADAGRAD: return "sum";
    case NK_OPTIMIZER_RMSPROP: return "square_avg";
    case NK_OPTIMIZER_ADAM:
    case NK_OPTIMIZER_ADAMW: return which == 0 ? "exp_avg" : "exp_avg_sq";
    case NK_OPTIMIZER_SGD:
    default: return NULL;
    }
}

NkOptim *
nk_optim_new (NkOptimizer         kind,
              double              lr,
              NkTensor *const    *params,
              const char *const  *names,
              guint               n_params,
              GError            **error)
{
  g_autoptr(NkOptim) optim = NULL;
  g_autoptr(GError) local = NULL;
  NkOptimStep *r;

  g_return_val_if_fail (params != NULL || n_params == 0, NULL);

  if (!nk_optimizer_check_lr (lr, NULL, &local))
    {
      g_set_error_literal (error, NK_OPTIM_ERROR, NK_OPTIM_ERROR_INVALID, local->message);
      return NULL;
    }

  optim = g_new0 (NkOptim, 1);
  optim->kind = kind;
  optim->lr = lr;
  optim->params = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);
  optim->names = g_ptr_array_new_with_free_func (g_free);
  optim->states = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);

  r = &optim->rule;
  r->lr = (float) lr;
  switch (kind)
    {
    case NK_OPTIMIZER_SGD:
      r->kind = NK_OPTIM_SGD;
      break;
    case NK_OPTIMIZER_MOMENTUM:
      r->kind = NK_OPTIM_SGD;
      r->momentum = 0.9f;
      optim->n_states = 1;
      break;
    case NK_OPTIMIZER_ADAGRAD:
      r->kind = NK_OPTIM_ADAGRAD;
      r->eps = 1e-5f;
      optim->n_states = 1;
      break;
    case NK_OPTIMIZER_RMSPROP:
      r->kind = NK_OPTIM_RMSPROP;
      r->alpha = 0.99f;
      r->eps = 1e-8f;
      optim->n_states = 1;
      break;
    case NK_OPTIMIZER_ADAM:
    case NK_OPTIMIZER_ADAMW:
      r->kind = kind == NK_OPTIMIZER_ADAM ? NK_OPTIM_ADAM : NK_OPTIM_ADAMW;
      r->beta1 = 0.9f;
      r->beta2 = 0.999f;
      r->eps = 1e-8f;
      r->weight_decay = kind == NK_OPTIMIZER_ADAMW ? 0.01f : 0.0f;
      optim->n_states = 2;
      break;
    default:
      g_return_val_if_reached (NULL);
    }

  for (guint i = 0; i < n_params; i++)
    {
      g_ptr_array_add (optim->params, nk_tensor_ref (params[i]));
      g_ptr_array_add (optim->names, g_strdup (names[i]));
      for (guint s = 0; s < optim->n_states; s++)
        {
          NkTensor *st = nk_tensor_new_full (nk_tensor_get_device (params[i]), NK_DTYPE_F32,
                                             params[i]->ndim, params[i]->shape,
                                             NK_BUCKET_OPTIMIZER, TRUE, error);
          if (st == NULL)
            return NULL;
          g_ptr_array_add (optim->states, st);
        }
    }
  return g_steal_pointer (&optim);
}

/**
 * nk_optim_free: (skip)
 * @optim: (nullable) (transfer full): an optimizer
 *
 * Frees the optimizer, its state and its references on the parameters.
 */
void
nk_optim_free (NkOptim *optim)
{
  if (optim == NULL)
    return;
  g_ptr_array_unref (optim->params);
  g_ptr_array_unref (optim->names);
  g_ptr_array_unref (optim->states);
  g_free (optim);
}

/**
 * nk_optim_step: (skip)
 * @optim: an optimizer
 * @error: return location for a #GError
 *
 * Applies one update to every parameter from its gradient; the step count goes up by
 * one (it counts from 1, as Adam's bias correction needs).
 *
 * Returns: %TRUE on success
 */
gboolean
nk_optim_step (NkOptim  *optim,
               GError  **error)
{
  NkOptimStep rule;

  g_return_val_if_fail (optim != NULL, FALSE);

  rule = optim->rule;
  rule.step = (gint64) (optim->step + 1);
  for (guint i = 0; i < optim->params->len; i++)
    {
      NkTensor *p = g_ptr_array_index (optim->params, i);
      NkTensor *s1 = nk_optim_get_state (optim, i, 0);
      NkTensor *s2 = nk_optim_get_state (optim, i, 1);

      if (p->grad == NULL)
        continue;
      if (!nk_optimizer_step_ (&rule, p, p->grad, s1, s2, error))
        return FALSE;
    }
  optim->step++;
  return TRUE;
}

/**
 * nk_optim_get_kind: (skip)
 * @optim: an optimizer
 *
 * The update rule.
 *
 * Returns: the rule
 */
NkOptimizer
nk_optim_get_kind (NkOptim *optim)
{
  return optim->kind;
}

/**
 * nk_optim_get_lr: (skip)
 * @optim: an optimizer
 *
 * The learning rate.
 *
 * Returns: the learning rate
 */
double
nk_optim_get_lr (NkOptim *optim)
{
  return optim->lr;
}

/**
 * nk_optim_get_step: (skip)
 * @optim: an optimizer
 *
 * The number of updates applied (or set by nk_optim_load_state()).
 *
 * Returns: the step
 */
guint64
nk_optim_get_step (NkOptim *optim)
{
  return optim->step;
}

/**
 * nk_optim_get_n_states: (skip)
 * @optim: an optimizer
 *
 * How many state tensors the rule keeps per parameter.
 *
 * Returns: 0, 1 or 2
 */
guint
nk_optim_get_n_states (NkOptim *optim)
{
  return optim->n_states;
}

/**
 * nk_optim_get_state: (skip)
 * @optim: an optimizer
 * @index: a parameter index
 * @which: 0 or 1
 *
 * State tensor @which of parameter @index.
 *
 * Returns: (transfer none) (nullable): the state, %NULL past nk_optim_get_n_states()
 */
NkTensor *
nk_optim_get_state (NkOptim *optim,
                    guint    index,
                    guint    which)
{
  g_return_val_if_fail (index < optim->params->len, NULL);
  if (which >= optim->n_states)
    return NULL;
  return g_ptr_array_index (optim->states, index * optim->n_states + which);
}

/**
 * nk_optim_get_state_name: (skip)
 * @optim: an optimizer
 * @which: 0 or 1
 *
 * The torch.optim name of state @which ("momentum_buffer", "exp_avg", …).
 *
 * Returns: (transfer none) (nullable): the name
 */
const char *
nk_optim_get_state_name (NkOptim *optim,
                         guint    which)
{
  return which < optim->n_states ? state_name (optim->kind, which) : NULL;
}

static char *
state_key (NkOptim *optim,
           guint    index,
           guint    which)
{
  return g_strdup_printf ("optimizer.%s.%s", (const char *) g_ptr_array_index (optim->names, index),
                          state_name (optim->kind, which));
}

/**
 * nk_optim_save_state: (skip)
 * @optim: an optimizer
 * @ck: a checkpoint being built
 * @error: return location for a #GError
 *
 * Adds the state tensors as "optimizer.NAME.STATE" (the step goes in the checkpoint's
 * step).
 *
 * Returns: %TRUE on success
 */
gboolean
nk_optim_save_state (NkOptim       *optim,
                     NkCheckpoint  *ck,
                     GError       **error)
{
  for (guint i = 0; i < optim->params->len; i++)
    for (guint s = 0; s < optim->n_states; s++)
      {
        g_autofree char *key = state_key (optim, i, s);

        if (!nk_checkpoint_add_tensor (ck, key, nk_optim_get_state (optim, i, s), error))
          return FALSE;
      }
  return TRUE;
}

/**
 * nk_optim_load_state: (skip)
 * @optim: an optimizer
 * @ck: a checkpoint from nk_optim_save_state()
 * @step: the step to continue from
 * @error: return location for a #GError (a missing tensor, or a wrong dtype or shape)
 *
 * Reads the state tensors back, checked by name, dtype and shape, and sets the step.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_optim_load_state (NkOptim       *optim,
                     NkCheckpoint  *ck,
                     guint64        step,
                     GError       **error)
{
  for (guint i = 0; i < optim->params->len; i++)
    for (guint s = 0; s < optim->n_states; s++)
      {
        g_autofree char *key = state_key (optim, i, s);
        NkTensor *st = nk_optim_get_state (optim, i, s);
        g_autoptr(NkTensor) host = NULL;

        /* Through host memory, so GPU state loads too. */
        if (nk_device_get_kind (nk_tensor_get_device (st)) == NK_DEVICE_CPU)
          host = nk_tensor_ref (st);
        else if ((host = nk_tensor_new_full (nk_device_get_cpu (), st->dtype, st->ndim,
                                             st->shape, NK_BUCKET_OTHER, FALSE, error)) == NULL)
          return FALSE;
        if (!nk_checkpoint_read_into (ck, key, st->dtype, st->ndim, st->shape,
                                      nk_tensor_data (host), error)
            || (host != st && !nk_tensor_copy_ (st, host, error)))
          return FALSE;
      }
  optim->step = step;
  return TRUE;
}
