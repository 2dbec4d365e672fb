/* nk-autograd-loss.c: recorded losses — mean squared error and cross-entropy (on the
 * CPU in float64 loops, on other devices and layouts over the row kernels), each
 * forward followed by its backward
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "nk-autograd-nn.h"
#include "nk-autograd-private.h"

/* ---- mean squared error: out = mean ((pred − target)²) ------------------------------ */

static gboolean mse_loss_backward (NkAgNode *node, GError **error);
static const NkAgOp mse_loss_op = { "mse_loss", mse_loss_backward };

NkTensor *
nk_ag_mse_loss (NkTensor  *pred,
                NkTensor  *target,
                GError   **error)
{
  g_autoptr(NkTensor) diff = NULL;
  g_autoptr(NkTensor) pflat = NULL;
  g_autoptr(NkTensor) tflat = NULL;
  g_autoptr(NkTensor) out = NULL;
  gint64 n;
  NkAgNode *node;

  g_return_val_if_fail (pred != NULL && target != NULL, NULL);

  n = nk_tensor_numel (pred);
  if (n != nk_tensor_numel (target))
    {
      g_autofree char *sp = nk_format_shape (pred->ndim, pred->shape);
      g_autofree char *st = nk_format_shape (target->ndim, target->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("The predictions %s and the targets %s differ in size."), sp, st);
      return NULL;
    }

  pflat = nk_tensor_reshape (pred, NK_SHAPE (n), error);
  if (pflat == NULL)
    return NULL;
  tflat = nk_tensor_reshape (target, NK_SHAPE (n), error);
  if (tflat == NULL)
    return NULL;
  /* At least fp32: a bf16 prediction minus an fp32 target keeps fp32's digits. */
  diff = nk_arena_take (nk_promote_types (nk_promote_types (pred->dtype, target->dtype),
                                          NK_DTYPE_F32),
                        NK_SHAPE (n), NK_BUCKET_ACTIVATIONS, error);
  if (diff == NULL || !nk_binary_out (NK_BINARY_SUB, diff, pflat, tflat, error))
    return NULL;

  out = nk_arena_take (diff->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL)
    return NULL;
  if (_nk_ag_is_cpu_float (diff))
    {
      double acc = 0.0;

      for (gint64 i = 0; i < n; i++)
        {
          double d = _nk_ag_load (diff, i);
          acc += d * d;
        }
      nk_flops_add (2 * (guint64) n);
      if (!nk_tensor_fill_ (out, n > 0 ? acc / (double) n : NAN, error))
        return NULL;
    }
  else
    {
      g_autoptr(NkTensor) sq = nk_unary (NK_UNARY_SQUARE, diff, error);
      g_autoptr(NkTensor) m = sq != NULL ? nk_mean (sq, 0, NULL, FALSE, error) : NULL;

      if (m == NULL || !nk_tensor_copy_ (out, m, error))
        return NULL;
    }

  node = _nk_ag_record (out, &mse_loss_op, pred, NULL, NULL);
  if (node != NULL)
    node->saved[0] = g_steal_pointer (&diff);
  return g_steal_pointer (&out);
}

/* d/dpred mean((pred − t)²) = 2·(pred − t)/n, from the difference forward kept. */
static gboolean
mse_loss_backward (NkAgNode  *node,
                   GError   **error)
{
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
  g_autoptr(NkTensor) flat = NULL;
  gint64 n = nk_tensor_numel (a);

  if (da == NULL)
    return FALSE;
  flat = nk_tensor_view (da, NK_SHAPE (n), error);
  if (flat == NULL
      || !nk_binary_scalar_out (NK_BINARY_MUL, flat, node->saved[0],
                                2.0 * _nk_ag_scalar_of (node->grad) / (double) MAX (n, 1),
                                FALSE, error))
    return FALSE;
  return _nk_ag_accumulate (a, da, TRUE, error);
}

/* ---- cross-entropy: out = mean over rows of −log softmax (logits)[target] ------------ */

static gboolean cross_entropy_backward (NkAgNode *node, GError **error);
static const NkAgOp cross_entropy_op = { "cross_entropy", cross_entropy_backward };

static gboolean cross_entropy_rows_backward (NkAgNode *node, GError **error);
static const NkAgOp cross_entropy_rows_op = { "cross_entropy_rows", cross_entropy_rows_backward };

static gboolean
read_index (NkTensor *index,
            gint64    i,
            gint64   *out)
{
  gconstpointer data = nk_tensor_data (index);

  switch (index->dtype)
    {
    case NK_DTYPE_INT32: *out = ((const gint32 *) data)[i * index->stride[0]]; return TRUE;
    case NK_DTYPE_INT64: *out = ((const gint64 *) data)[i * index->stride[0]]; return TRUE;
    case NK_DTYPE_UINT16: *out = ((const guint16 *) data)[i * index->stride[0]]; return TRUE;
    default: return FALSE;
    }
}

/* Per row: max and log Σ exp(x − max). */
static void
row_logsumexp (NkTensor *logits,
               gint64    row,
               gint64    v,
               double   *out_max,
               double   *out_lse)
{
  double m = -INFINITY, s = 0.0;

  for (gint64 j = 0; j < v; j++)
    m = MAX (m, _nk_ag_load (logits, row * v + j));
  for (gint64 j = 0; j < v; j++)
    s += exp (_nk_ag_load (logits, row * v + j) - m);
  *out_max = m;
  *out_lse = m + log (s);
}

/* Σ over rows of logsumexp − the target's logit, in float64 on the CPU. */
static gboolean
sum_row_losses (NkTensor  *logits,
                NkTensor  *targets,
                double    *out_sum,
                GError   **error)
{
  gint64 n = logits->shape[0], v = logits->shape[1];
  double acc = 0.0;

  for (gint64 i = 0; i < n; i++)
    {
      double m, lse;
      gint64 t;

      if (!read_index (targets, i, &t))
        {
          g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                       _("Cross-entropy targets must be integer class indices, not %s."),
                       nk_dtype_info (targets->dtype)->name);
          return FALSE;
        }
      if (t < 0 || t >= v)
        {
          /* The value is what is wrong; the row says where to look. */
          g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                       _("Target %" PRId64 " (row %" PRId64 ") is not a class index "
                         "below %" PRId64 "."), t, i, v);
          return FALSE;
        }
      row_logsumexp (logits, i, v, &m, &lse);
      acc += lse - _nk_ag_load (logits, i * v + t);
    }
  nk_flops_add (4 * (guint64) (n * v));
  *out_sum = acc;
  return TRUE;
}

/* Forward on a device, or for a layout the CPU loop does not read. */
static NkTensor *cross_entropy_rows (NkTensor *logits, NkTensor *targets, GError **error);

NkTensor *
nk_ag_cross_entropy (NkTensor  *logits,
                     NkTensor  *targets,
                     GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  gint64 n;
  double acc = 0.0;
  NkAgNode *node;

  g_return_val_if_fail (logits != NULL && targets != NULL, NULL);

  if (logits->ndim != 2 || targets->ndim != 1 || targets->shape[0] != logits->shape[0])
    {
      g_autofree char *sl = nk_format_shape (logits->ndim, logits->shape);
      g_autofree char *st = nk_format_shape (targets->ndim, targets->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("Cross-entropy needs logits [N, V] and targets [N], not %s and %s."),
                   sl, st);
      return NULL;
    }
  if (logits->dtype != NK_DTYPE_F32 && logits->dtype != NK_DTYPE_F64)
    {
      /* Mixed precision: the softmax runs in fp32 on a recorded widening copy. */
      g_autoptr(NkTensor) wide = nk_ag_cast (logits, NK_DTYPE_F32, error);

      return wide != NULL ? nk_ag_cross_entropy (wide, targets, error) : NULL;
    }
  if (!_nk_ag_is_cpu_float (logits)
      || nk_device_get_kind (nk_tensor_get_device (targets)) != NK_DEVICE_CPU)
    /* Other layouts and devices: the same math over the device's row kernels. */
    return cross_entropy_rows (logits, targets, error);

  n = logits->shape[0];
  if (!sum_row_losses (logits, targets, &acc, error))
    return NULL;
  out = nk_arena_take (logits->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_tensor_fill_ (out, acc / (double) MAX (n, 1), error))
    return NULL;
  node = _nk_ag_record (out, &cross_entropy_op, logits, NULL, NULL);
  if (node != NULL)
    node->saved[0] = nk_tensor_ref (targets);
  return g_steal_pointer (&out);
}

/* d/dlogits = (softmax − onehot(target))·g/N */
static gboolean
cross_entropy_backward (NkAgNode  *node,
                        GError   **error)
{
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
  gint64 n = a->shape[0], v = a->shape[1];
  double scale = _nk_ag_scalar_of (node->grad) / (double) MAX (n, 1);

  if (da == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    {
      double m, lse;
      gint64 t = 0;

      read_index (node->saved[0], i, &t);
      row_logsumexp (a, i, v, &m, &lse);
      for (gint64 j = 0; j < v; j++)
        _nk_ag_store (da, i * v + j,
                      (exp (_nk_ag_load (a, i * v + j) - lse) - (j == t ? 1.0 : 0.0)) * scale);
    }
  nk_flops_add (3 * (guint64) (n * v));
  return _nk_ag_accumulate (a, da, TRUE, error);
}

static NkTensor *
cross_entropy_rows (NkTensor  *logits,
                    NkTensor  *targets,
                    GError   **error)
{
  g_autoptr(NkTensor) ids = NULL;
  g_autoptr(NkTensor) dev_ids = NULL;
  g_autoptr(NkTensor) xc = NULL;
  g_autoptr(NkTensor) rows = NULL;
  g_autoptr(NkTensor) out = NULL;
  gint64 n = logits->shape[0], v = logits->shape[1];
  NkAgNode *node;

  /* The targets are checked on the host. */
  if ((ids = _nk_ag_token_ids (targets, v, error)) == NULL
      || (dev_ids = _nk_ag_on_device_of (ids, logits, error)) == NULL
      || (xc = nk_ag_contiguous (logits, error)) == NULL)
    return NULL;
  rows = nk_arena_take (NK_DTYPE_F64, NK_SHAPE (n), NK_BUCKET_OTHER, error);
  out = rows ? nk_arena_take (xc->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error) : NULL;
  if (out == NULL)
    return NULL;
  {
    NkRowsCall call = { NK_ROWS_CROSS_ENTROPY, n, v, 1, 0, 0.0, FALSE,
                        { _nk_ag_dev_ptr (xc), NULL, NULL, NULL, NULL, _nk_ag_dev_ptr (dev_ids) },
                        { _nk_ag_dev_ptr (rows), _nk_ag_dev_ptr (out) } };

    if (!_nk_ag_run_rows (xc, &call, error))
      return NULL;
  }
  nk_flops_add (4 * (guint64) (n * v));
  node = _nk_ag_record (out, &cross_entropy_rows_op, xc, NULL, NULL);
  if (node != NULL)
    node->saved[0] = g_steal_pointer (&dev_ids);
  return g_steal_pointer (&out);
}

static gboolean
cross_entropy_rows_backward (NkAgNode  *node,
                             GError   **error)
{
  NkTensor *x = node->in[0];
  g_autoptr(NkTensor) dx = NULL;
  g_autoptr(NkTensor) g = NULL;
  gint64 n = x->shape[0], v = x->shape[1];

  if (!nk_autograd_requires_grad (x))
    return TRUE;
  /* The upstream gradient in the logits' dtype, read by the kernel where it lies. */
  if (node->grad->dtype == x->dtype)
    g = nk_tensor_ref (node->grad);
  else if ((g = nk_arena_take (x->dtype, 0, NULL, NK_BUCKET_OTHER, error)) == NULL
           || !nk_tensor_copy_ (g, node->grad, error))
    return FALSE;
  if ((dx = _nk_ag_take_like (x, NK_BUCKET_OTHER, error)) == NULL)
    return FALSE;
  {
    NkRowsCall call = { NK_ROWS_CROSS_ENTROPY_BACKWARD, n, v, 1, 0, 1.0 / (double) MAX (n, 1),
                        FALSE, { _nk_ag_dev_ptr (x), _nk_ag_dev_ptr (g), NULL, NULL, NULL,
                                 _nk_ag_dev_ptr (node->saved[0]) },
                        { _nk_ag_dev_ptr (dx) } };

    if (!_nk_ag_run_rows (x, &call, error))
      return FALSE;
  }
  nk_flops_add (3 * (guint64) (n * v));
  return _nk_ag_accumulate (x, dx, TRUE, error);
}

/* ---- the list ---------------------------------------------------------------------- */

const NkAgOp *const _nk_ag_ops_loss[] = {
  &mse_loss_op, &cross_entropy_op, &cross_entropy_rows_op,
};
const guint _nk_ag_n_ops_loss = G_N_ELEMENTS (_nk_ag_ops_loss);
