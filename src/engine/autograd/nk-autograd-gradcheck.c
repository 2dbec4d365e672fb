/* nk-autograd-gradcheck.c: backward's gradients against central differences, and
 * the list of the op kinds they must hold for
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "nk-autograd-private.h"

/* ---- the op kinds ----------------------------------------------------------------- */

static gpointer
build_op_list (gpointer data)
{
  const struct { const NkAgOp *const *ops; guint n; } files[] = {
    { _nk_ag_ops_core, _nk_ag_n_ops_core },
    { _nk_ag_ops_nn, _nk_ag_n_ops_nn },
    { _nk_ag_ops_loss, _nk_ag_n_ops_loss },
  };
  GPtrArray *names = g_ptr_array_new ();

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    for (guint i = 0; i < files[f].n; i++)
      g_ptr_array_add (names, (gpointer) files[f].ops[i]->name);
  g_ptr_array_add (names, NULL);
  return g_ptr_array_free (names, FALSE);
}

const char * const *
nk_autograd_list_ops (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, build_op_list, NULL);
}

/* ---- the check -------------------------------------------------------------------- */

static gboolean
eval_scalar (NkAutogradFunc   func,
             NkTensor       **inputs,
             guint            n_inputs,
             gpointer         user_data,
             double          *out,
             GError         **error)
{
  g_autoptr(NkTensor) r = func (inputs, n_inputs, user_data, error);

  if (r == NULL)
    return FALSE;
  nk_autograd_release (r);
  return nk_tensor_item (r, out, error);
}

static void
unravel (NkTensor *t,
         gint64    linear,
         gint64   *index)
{
  for (int d = t->ndim - 1; d >= 0; d--)
    {
      index[d] = linear % t->shape[d];
      linear /= t->shape[d];
    }
}

gboolean
nk_autograd_gradcheck (NkAutogradFunc   func,
                       NkTensor       **inputs,
                       guint            n_inputs,
                       gpointer         user_data,
                       double           eps,
                       double           atol,
                       double           rtol,
                       double          *out_max_error,
                       GError         **error)
{
  g_autoptr(NkTensor) result = NULL;
  double max_error = 0.0;

  g_return_val_if_fail (func != NULL && inputs != NULL, FALSE);

  for (guint i = 0; i < n_inputs; i++)
    {
      nk_tensor_set_requires_grad (inputs[i], TRUE);
      nk_tensor_set_grad (inputs[i], NULL);
    }

  result = func (inputs, n_inputs, user_data, error);
  if (result == NULL || !nk_autograd_backward (result, error))
    return FALSE;

  for (guint i = 0; i < n_inputs; i++)
    {
      NkTensor *x = inputs[i];
      g_autofree double *analytic = NULL;
      gint64 n = nk_tensor_numel (x);

      if (x->grad != NULL)
        analytic = nk_tensor_to_doubles (x->grad, NULL);

      for (gint64 e = 0; e < n; e++)
        {
          gint64 index[NK_MAX_DIMS] = { 0 };
          double orig, fp, fm, numeric, a, err;

          unravel (x, e, index);
          if (!nk_tensor_get_item (x, index, &orig, error)
              || !nk_tensor_set_item (x, index, orig + eps, error)
              || !eval_scalar (func, inputs, n_inputs, user_data, &fp, error)
              || !nk_tensor_set_item (x, index, orig - eps, error)
              || !eval_scalar (func, inputs, n_inputs, user_data, &fm, error)
              || !nk_tensor_set_item (x, index, orig, error))
            return FALSE;

          numeric = (fp - fm) / (2.0 * eps);
          a = analytic != NULL ? analytic[e] : 0.0;
          err = fabs (a - numeric);
          max_error = MAX (max_error, err);
          if (!(err <= atol + rtol * fabs (numeric)))
            {
              g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_MISMATCH,
                           _("Input %u, element %" PRId64 ": backward gives %.10g but finite differences give %.10g."),
                           i, e, a, numeric);
              if (out_max_error != NULL)
                *out_max_error = max_error;
              return FALSE;
            }
        }
    }

  if (out_max_error != NULL)
    *out_max_error = max_error;
  return TRUE;
}
