/* nk-autograd-nn.c: recorded batched matmul, LayerNorm, GELU, causal softmax and
 * embeddings, each forward followed by its backward, over the device's row kernels
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-autograd-nn.h"
#include "nk-autograd-private.h"
#include "nk-storage.h"

/* ---- row kernels on the tensors' device ------------------------------------------- */

static gboolean
is_cpu (NkTensor *t)
{
  return nk_device_get_kind (nk_tensor_get_device (t)) == NK_DEVICE_CPU;
}

gpointer
_nk_ag_dev_ptr (NkTensor *t)
{
  if (t == NULL)
    return NULL;
  return (char *) nk_storage_get_data (t->storage)
         + t->offset * (gint64) nk_tensor_element_size (t);
}

gboolean
_nk_ag_run_rows (NkTensor    *like,
                 NkRowsCall  *call,
                 GError     **error)
{
  return nk_device_rows (nk_tensor_get_device (like), like->dtype, call, error);
}

/* The ids of @index (int32, int64 or uint16, [N], on any device) as int64 on the
 * CPU, checked against the vocabulary there (one copy back when they live on the
 * GPU). */
NkTensor *
_nk_ag_token_ids (NkTensor  *device_index,
                  gint64     vocab,
                  GError   **error)
{
  g_autoptr(NkTensor) index = nk_tensor_to_device (device_index, nk_device_get_cpu (), error);
  g_autoptr(NkTensor) ids = NULL;
  gint64 n = device_index->shape[0];
  gint64 *v;

  if (index == NULL)
    return NULL;
  if (index->dtype != NK_DTYPE_INT32 && index->dtype != NK_DTYPE_INT64
      && index->dtype != NK_DTYPE_UINT16)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("Token ids must be int32, int64 or uint16, not %s."),
                   nk_dtype_info (index->dtype)->name);
      return NULL;
    }
  ids = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT64, NK_SHAPE (n),
                            NK_BUCKET_OTHER, FALSE, error);
  if (ids == NULL || !nk_tensor_copy_ (ids, index, error))
    return NULL;
  v = nk_tensor_data (ids);
  for (gint64 i = 0; i < n; i++)
    if (v[i] < 0 || v[i] >= vocab)
      {
        g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                     _("Token %" PRId64 " is outside the vocabulary of %"
                       PRId64 "."), v[i], vocab);
        return NULL;
      }
  return g_steal_pointer (&ids);
}

/* @host (a CPU tensor) on @like's device: itself on the CPU, else a copy in an arena
 * buffer (so a steady-state step allocates nothing). */
NkTensor *
_nk_ag_on_device_of (NkTensor  *host,
                     NkTensor  *like,
                     GError   **error)
{
  NkDevice *device = nk_tensor_get_device (like);
  g_autoptr(NkTensor) copy = NULL;

  if (device == nk_tensor_get_device (host))
    return nk_tensor_ref (host);
  if (device != nk_device_get_default ())
    return nk_tensor_to_device (host, device, error);
  copy = nk_arena_take (host->dtype, host->ndim, host->shape, NK_BUCKET_OTHER, error);
  if (copy == NULL || !nk_tensor_copy_ (copy, host, error))
    return NULL;
  return g_steal_pointer (&copy);
}

/* @x as the f32/f64 contiguous tensor the row kernels read, recorded (cast to f32
 * for narrow floats, as autocast runs these ops; a copy for other layouts). */
static NkTensor *
row_input (NkTensor    *x,
           const char  *what,
           GError     **error)
{
  g_autoptr(NkTensor) wide = NULL;

  if (x->ndim < 1)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("%s needs a tensor with at least one dimension."), what);
      return NULL;
    }
  if (x->dtype != NK_DTYPE_F32 && x->dtype != NK_DTYPE_F64)
    wide = nk_ag_cast (x, NK_DTYPE_F32, error);
  else
    wide = nk_tensor_ref (x);
  if (wide == NULL)
    return NULL;
  return nk_ag_contiguous (wide, error);
}

/* A [C] parameter in @x's dtype, contiguous, on @x's device. */
static gboolean
check_affine (NkTensor  *p,
              NkTensor  *x,
              GError   **error)
{
  gint64 c = x->shape[x->ndim - 1];

  if (p == NULL)
    return TRUE;
  if (p->ndim != 1 || p->shape[0] != c || p->dtype != x->dtype
      || nk_tensor_get_device (p) != nk_tensor_get_device (x) || !nk_tensor_is_contiguous (p))
    {
      g_autofree char *sp = nk_format_shape (p->ndim, p->shape);
      g_autofree char *sx = nk_format_shape (x->ndim, x->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("LayerNorm of an input %s needs a contiguous weight and bias of shape "
                     "(%" PRId64 ",) in the input's dtype and device, not %s."),
                   sx, c, sp);
      return FALSE;
    }
  return TRUE;
}

/* ---- batched matmul: out [..., m, n] = a [..., m, k] · b [..., k, n] ---------------- */

static gboolean bmm_backward (NkAgNode *node, GError **error);
static const NkAgOp bmm_op = { "bmm", bmm_backward };

static NkTensor *
maybe_transposed (NkTensor  *t,
                  gboolean   transpose,
                  GError   **error)
{
  return transpose ? nk_tensor_transpose (t, -2, -1, error) : nk_tensor_ref (t);
}

static gboolean
check_bmm (NkTensor    *a,
           NkTensor    *b,
           NkBmmFlags   flags,
           GError     **error)
{
  int nd = a->ndim;
  gint64 k_a, k_b;
  gboolean ok = nd >= 2 && b->ndim == nd;

  for (int d = 0; ok && d < nd - 2; d++)
    ok = a->shape[d] == b->shape[d];
  if (ok)
    {
      k_a = a->shape[(flags & NK_BMM_TRANS_A) ? nd - 2 : nd - 1];
      k_b = b->shape[(flags & NK_BMM_TRANS_B) ? nd - 1 : nd - 2];
      ok = k_a == k_b && (!(flags & NK_BMM_MERGE_HEADS) || nd == 4);
    }
  if (!ok)
    {
      g_autofree char *sa = nk_format_shape (a->ndim, a->shape);
      g_autofree char *sb = nk_format_shape (b->ndim, b->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A batched product cannot take operands of shapes %s and %s."), sa, sb);
    }
  return ok;
}

static guint64
bmm_flops (NkTensor *ae,
           NkTensor *be)
{
  guint64 batch = 1;

  for (int d = 0; d < ae->ndim - 2; d++)
    batch *= (guint64) ae->shape[d];
  return 2 * batch * (guint64) ae->shape[ae->ndim - 2] * (guint64) ae->shape[ae->ndim - 1]
         * (guint64) be->shape[be->ndim - 1];
}

/* Rounds an operand to the autocast dtype (a recorded cast), as nk_ag_linear does. */
static NkTensor *
autocast_operand (NkTensor  *t,
                  GError   **error)
{
  NkDType dt = nk_autograd_get_autocast ();

  if (dt == NK_DTYPE_F32 || t->dtype == dt)
    return nk_tensor_ref (t);
  return nk_ag_cast (t, dt, error);
}

NkTensor *
nk_ag_bmm (NkTensor    *a,
           NkTensor    *b,
           NkBmmFlags   flags,
           GError     **error)
{
  g_autoptr(NkTensor) ac = NULL;
  g_autoptr(NkTensor) bc = NULL;
  g_autoptr(NkTensor) ae = NULL;
  g_autoptr(NkTensor) be = NULL;
  g_autoptr(NkTensor) buf = NULL;
  g_autoptr(NkTensor) dst = NULL;
  g_autoptr(NkTensor) out = NULL;
  gint64 shape[NK_MAX_DIMS];
  int nd;
  NkAgNode *node;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  if (!check_bmm (a, b, flags, error))
    return NULL;
  if ((ac = autocast_operand (a, error)) == NULL || (bc = autocast_operand (b, error)) == NULL
      || (ae = maybe_transposed (ac, flags & NK_BMM_TRANS_A, error)) == NULL
      || (be = maybe_transposed (bc, flags & NK_BMM_TRANS_B, error)) == NULL)
    return NULL;

  nd = ae->ndim;
  memcpy (shape, ae->shape, sizeof (gint64) * nd);
  shape[nd - 1] = be->shape[nd - 1];
  if (flags & NK_BMM_MERGE_HEADS)
    {
      /* Stored [B, m, H, n]; the gemm writes through its [B, H, m, n] transpose. */
      gint64 stored[4] = { shape[0], shape[2], shape[1], shape[3] };

      buf = nk_arena_take (nk_promote_types (ae->dtype, be->dtype), 4, stored,
                           NK_BUCKET_ACTIVATIONS, error);
      if (buf == NULL || (dst = nk_tensor_transpose (buf, 1, 2, error)) == NULL
          || !nk_matmul_out (dst, ae, be, 1.0, 0.0, error))
        return NULL;
      out = nk_tensor_view (buf, NK_SHAPE (stored[0], stored[1], stored[2] * stored[3]),
                            error);
      if (out == NULL)
        return NULL;
    }
  else
    {
      out = nk_arena_take (nk_promote_types (ae->dtype, be->dtype), nd, shape,
                           NK_BUCKET_ACTIVATIONS, error);
      if (out == NULL || !nk_matmul_out (out, ae, be, 1.0, 0.0, error))
        return NULL;
    }
  _nk_ag_count_flops (NK_FLOP_KIND_ATTENTION, bmm_flops (ae, be), FALSE);

  node = _nk_ag_record (out, &bmm_op, ac, bc, NULL);
  if (node != NULL)
    {
      node->sub = flags;
      /* MERGE_HEADS: the stored [B, m, H, n] shape, to split the gradient. */
      if (flags & NK_BMM_MERGE_HEADS)
        {
          node->iparam[0] = shape[0];
          node->iparam[1] = shape[2];
          node->iparam[2] = shape[1];
          node->iparam[3] = shape[3];
        }
    }
  return g_steal_pointer (&out);
}

/* The gradient as the product's [..., m, n] (undoing MERGE_HEADS's layout). */
static NkTensor *
bmm_grad_view (NkAgNode  *node,
               GError   **error)
{
  g_autoptr(NkTensor) split = NULL;

  if (!(node->sub & NK_BMM_MERGE_HEADS))
    return nk_tensor_ref (node->grad);
  split = nk_tensor_view (node->grad, 4, node->iparam, error);
  return split != NULL ? nk_tensor_transpose (split, 1, 2, error) : NULL;
}

/* Adds @left · @right to the gradient of @input, written through @input's own
 * layout (transposed back when the product used it transposed). */
static gboolean
bmm_grad_product (NkTensor  *input,
                  gboolean   transposed,
                  NkTensor  *left,
                  NkTensor  *right,
                  guint64    flops,
                  GError   **error)
{
  g_autoptr(NkTensor) target = NULL;
  g_autoptr(NkTensor) dst = NULL;
  double beta;

  if ((target = _nk_ag_grad_target_through (input, &beta, error)) == NULL
      || (dst = maybe_transposed (target, transposed, error)) == NULL
      || !nk_matmul_out (dst, left, right, 1.0, beta, error))
    return FALSE;
  _nk_ag_count_flops (NK_FLOP_KIND_ATTENTION, flops, FALSE);
  return TRUE;
}

static gboolean
bmm_backward (NkAgNode  *node,
              GError   **error)
{
  NkTensor *a = node->in[0], *b = node->in[1];
  gboolean ta = (node->sub & NK_BMM_TRANS_A) != 0, tb = (node->sub & NK_BMM_TRANS_B) != 0;
  g_autoptr(NkTensor) g = bmm_grad_view (node, error);
  g_autoptr(NkTensor) ae = NULL;
  g_autoptr(NkTensor) be = NULL;
  guint64 flops;

  if (g == NULL || (ae = maybe_transposed (a, ta, error)) == NULL
      || (be = maybe_transposed (b, tb, error)) == NULL)
    return FALSE;
  flops = bmm_flops (ae, be);

  if (nk_autograd_requires_grad (a))
    {
      /* dA_eff [.., m, k] = g · B_effᵀ */
      g_autoptr(NkTensor) bt = nk_tensor_transpose (be, -2, -1, error);

      if (bt == NULL || !bmm_grad_product (a, ta, g, bt, flops, error))
        return FALSE;
    }
  if (nk_autograd_requires_grad (b))
    {
      /* dB_eff [.., k, n] = A_effᵀ · g */
      g_autoptr(NkTensor) at = nk_tensor_transpose (ae, -2, -1, error);

      if (at == NULL || !bmm_grad_product (b, tb, at, g, flops, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- GELU: out = x·Φ(x) ------------------------------------------------------------ */

static gboolean gelu_backward (NkAgNode *node, GError **error);
static const NkAgOp gelu_op = { "gelu", gelu_backward };

NkTensor *
nk_ag_gelu (NkTensor  *x,
            GError   **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (x != NULL, NULL);
  out = _nk_ag_take_like (x, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_unary_out (NK_UNARY_GELU, out, x, error))
    return NULL;
  _nk_ag_count_flops (NK_FLOP_KIND_ACTIVATION, (guint64) nk_tensor_numel (x), FALSE);
  _nk_ag_record (out, &gelu_op, x, NULL, NULL);
  return g_steal_pointer (&out);
}

static gboolean
gelu_backward (NkAgNode  *node,
               GError   **error)
{
  NkTensor *x = node->in[0];
  g_autoptr(NkTensor) dx = NULL;

  if (!nk_autograd_requires_grad (x))
    return TRUE;
  dx = _nk_ag_take_like (x, NK_BUCKET_OTHER, error);
  if (dx == NULL || !nk_binary_out (NK_BINARY_GELU_BACKWARD, dx, node->grad, x, error))
    return FALSE;
  _nk_ag_count_flops (NK_FLOP_KIND_ACTIVATION, (guint64) nk_tensor_numel (x), FALSE);
  return _nk_ag_accumulate (x, dx, TRUE, error);
}

/* ---- LayerNorm: out = (x − mean)·rstd·γ + β over the last dim ---------------------- */

static gboolean layer_norm_backward (NkAgNode *node, GError **error);
static const NkAgOp layer_norm_op = { "layer_norm", layer_norm_backward };

NkTensor *
nk_ag_layer_norm (NkTensor  *x,
                  NkTensor  *weight,
                  NkTensor  *bias,
                  double     eps,
                  GError   **error)
{
  g_autoptr(NkTensor) xc = NULL;
  g_autoptr(NkTensor) out = NULL;
  g_autoptr(NkTensor) mean = NULL;
  g_autoptr(NkTensor) rstd = NULL;
  gint64 rows;
  NkAgNode *node;

  g_return_val_if_fail (x != NULL, NULL);
  if ((xc = row_input (x, "LayerNorm", error)) == NULL
      || !check_affine (weight, xc, error) || !check_affine (bias, xc, error))
    return NULL;

  rows = _NK_AG_ROWS_OF (xc);
  out = _nk_ag_take_like (xc, NK_BUCKET_ACTIVATIONS, error);
  mean = out ? nk_arena_take (xc->dtype, NK_SHAPE (rows), NK_BUCKET_ACTIVATIONS, error) : NULL;
  rstd = mean ? nk_arena_take (xc->dtype, NK_SHAPE (rows), NK_BUCKET_ACTIVATIONS, error) : NULL;
  if (rstd == NULL)
    return NULL;
  {
    NkRowsCall call = { NK_ROWS_LAYERNORM, rows, xc->shape[xc->ndim - 1], 1, 0, eps, FALSE,
                        { _nk_ag_dev_ptr (xc), _nk_ag_dev_ptr (weight), _nk_ag_dev_ptr (bias) },
                        { _nk_ag_dev_ptr (out), _nk_ag_dev_ptr (mean), _nk_ag_dev_ptr (rstd) } };

    if (!_nk_ag_run_rows (xc, &call, error))
      return NULL;
  }
  _nk_ag_count_flops (NK_FLOP_KIND_NORM, 8 * (guint64) nk_tensor_numel (xc), TRUE);

  node = _nk_ag_record (out, &layer_norm_op, xc, weight, bias);
  if (node != NULL)
    {
      node->saved[0] = g_steal_pointer (&mean);
      node->saved[1] = g_steal_pointer (&rstd);
    }
  return g_steal_pointer (&out);
}

/* The gradients of LayerNorm's weight and bias, written into their grad buffers (or
 * into temporaries added there when those are not plain contiguous buffers). */
static gboolean
layer_norm_param_grads (NkAgNode  *node,
                        GError   **error)
{
  NkTensor *x = node->in[0], *w = node->in[1], *b = node->in[2];
  gboolean want_w = w != NULL && nk_autograd_requires_grad (w);
  gboolean want_b = b != NULL && nk_autograd_requires_grad (b);
  g_autoptr(NkTensor) tw = NULL;
  g_autoptr(NkTensor) tb = NULL;
  g_autoptr(NkTensor) scratch = NULL;
  NkRowsCall call = { NK_ROWS_LAYERNORM_PARAMS, _NK_AG_ROWS_OF (x), x->shape[x->ndim - 1], 1, 0,
                      0.0, FALSE, { _nk_ag_dev_ptr (x), NULL, _nk_ag_dev_ptr (node->saved[0]),
                                    _nk_ag_dev_ptr (node->saved[1]), _nk_ag_dev_ptr (node->grad) },
                      { NULL } };

  if (!want_w && !want_b)
    return TRUE;
  /* Fresh [C] buffers (cheap), then the usual accumulation: fan-out and
   * first-contribution rules stay nk-autograd's. */
  if (want_w && (tw = _nk_ag_take_like (w, NK_BUCKET_OTHER, error)) == NULL)
    return FALSE;
  if (want_b && (tb = _nk_ag_take_like (b, NK_BUCKET_OTHER, error)) == NULL)
    return FALSE;
  if (!is_cpu (x))
    {
      /* The device sums columns in chunks of rows: its partial sums live here. */
      gint64 chunks = (call.rows + NK_ROWS_CHUNK - 1) / NK_ROWS_CHUNK;

      scratch = nk_tensor_new_full (nk_tensor_get_device (x), NK_DTYPE_F64,
                                    NK_SHAPE (MAX (2 * chunks * call.cols, 1)),
                                    NK_BUCKET_OTHER, FALSE, error);
      if (scratch == NULL)
        return FALSE;
      call.out[2] = _nk_ag_dev_ptr (scratch);
    }
  call.out[0] = _nk_ag_dev_ptr (tw);
  call.out[1] = _nk_ag_dev_ptr (tb);
  if (!_nk_ag_run_rows (x, &call, error))
    return FALSE;
  return (!want_w || _nk_ag_accumulate (w, tw, TRUE, error))
         && (!want_b || _nk_ag_accumulate (b, tb, TRUE, error));
}

static gboolean
layer_norm_backward (NkAgNode  *node,
                     GError   **error)
{
  NkTensor *x = node->in[0], *w = node->in[1];
  gint64 c = x->shape[x->ndim - 1], rows = _NK_AG_ROWS_OF (x);

  /* 13 per element: x̂ 2, dx̂ 1, dw 2, db 1, the two row sums 3, dx 4. */
  _nk_ag_count_flops (NK_FLOP_KIND_NORM, 13 * (guint64) (rows * c), TRUE);
  if (!layer_norm_param_grads (node, error))
    return FALSE;
  if (nk_autograd_requires_grad (x))
    {
      g_autoptr(NkTensor) dx = _nk_ag_take_like (x, NK_BUCKET_OTHER, error);
      NkRowsCall call = { NK_ROWS_LAYERNORM_DX, rows, c, 1, 0, 0.0, FALSE,
                          { _nk_ag_dev_ptr (x), _nk_ag_dev_ptr (w), _nk_ag_dev_ptr (node->saved[0]),
                            _nk_ag_dev_ptr (node->saved[1]), _nk_ag_dev_ptr (node->grad) },
                          { _nk_ag_dev_ptr (dx) } };

      if (dx == NULL || !_nk_ag_run_rows (x, &call, error))
        return FALSE;
      return _nk_ag_accumulate (x, dx, TRUE, error);
    }
  return TRUE;
}

/* ---- causal softmax: out = softmax (scale·scores, masked above the diagonal) -------- */

static gboolean softmax_causal_backward (NkAgNode *node, GError **error);
static const NkAgOp softmax_causal_op = { "softmax_causal", softmax_causal_backward };

static guint64
visible_elements (NkTensor *t)
{
  gint64 n = t->shape[t->ndim - 1], rows = _NK_AG_ROWS_OF (t), m = t->shape[t->ndim - 2];
  guint64 per_matrix = 0;

  /* Row i of each [m, n] matrix sees min(i + 1, n) columns. */
  for (gint64 i = 0; i < m; i++)
    per_matrix += (guint64) MIN (i + 1, n);
  return per_matrix * (guint64) (rows / MAX (m, 1));
}

NkTensor *
nk_ag_softmax_causal (NkTensor  *scores,
                      double     scale,
                      GError   **error)
{
  g_autoptr(NkTensor) xc = NULL;
  g_autoptr(NkTensor) out = NULL;
  NkAgNode *node;

  g_return_val_if_fail (scores != NULL, NULL);
  if (scores->ndim < 2)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                           _("A causal softmax needs scores of shape [..., T, T]."));
      return NULL;
    }
  if ((xc = row_input (scores, "A causal softmax", error)) == NULL)
    return NULL;
  out = _nk_ag_take_like (xc, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL)
    return NULL;
  {
    NkRowsCall call = { NK_ROWS_SOFTMAX_CAUSAL, _NK_AG_ROWS_OF (xc), xc->shape[xc->ndim - 1],
                        xc->shape[xc->ndim - 2], 0, scale, FALSE,
                        { _nk_ag_dev_ptr (xc) }, { _nk_ag_dev_ptr (out) } };

    if (!_nk_ag_run_rows (xc, &call, error))
      return NULL;
  }
  _nk_ag_count_flops (NK_FLOP_KIND_SOFTMAX, 6 * visible_elements (xc), TRUE);

  node = _nk_ag_record (out, &softmax_causal_op, xc, NULL, NULL);
  if (node != NULL)
    node->scalar = scale;
  return g_steal_pointer (&out);
}

static gboolean
softmax_causal_backward (NkAgNode  *node,
                         GError   **error)
{
  NkTensor *x = node->in[0];
  g_autoptr(NkTensor) dx = NULL;

  if (!nk_autograd_requires_grad (x))
    return TRUE;
  dx = _nk_ag_take_like (x, NK_BUCKET_OTHER, error);
  if (dx == NULL)
    return FALSE;
  {
    /* Backward reads the output through node->out (a ref would be a cycle). */
    NkRowsCall call = { NK_ROWS_SOFTMAX_CAUSAL_BACKWARD, _NK_AG_ROWS_OF (x), x->shape[x->ndim - 1],
                        x->shape[x->ndim - 2], 0, node->scalar, FALSE,
                        { _nk_ag_dev_ptr (node->out), NULL, NULL, NULL,
                          _nk_ag_dev_ptr (node->grad) },
                        { _nk_ag_dev_ptr (dx) } };

    if (!_nk_ag_run_rows (x, &call, error))
      return FALSE;
  }
  _nk_ag_count_flops (NK_FLOP_KIND_SOFTMAX, 5 * visible_elements (x), TRUE);
  return _nk_ag_accumulate (x, dx, TRUE, error);
}

/* ---- embedding: out [N, D] = weight[index] ----------------------------------------- */

static gboolean embedding_backward (NkAgNode *node, GError **error);
static const NkAgOp embedding_op = { "embedding", embedding_backward };

static gboolean
is_embedding_table (NkTensor *weight)
{
  return weight->ndim == 2 && nk_tensor_is_contiguous (weight)
         && (weight->dtype == NK_DTYPE_F32 || weight->dtype == NK_DTYPE_F64);
}

/* weight[ids] as a new [N, D] activation on weight's device. */
static NkTensor *
gather_rows (NkTensor  *weight,
             NkTensor  *ids,
             GError   **error)
{
  g_autoptr(NkTensor) dev_ids = _nk_ag_on_device_of (ids, weight, error);
  g_autoptr(NkTensor) out = NULL;

  if (dev_ids == NULL)
    return NULL;
  out = nk_arena_take (weight->dtype, NK_SHAPE (ids->shape[0], weight->shape[1]),
                       NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL)
    return NULL;
  {
    NkRowsCall call = { NK_ROWS_GATHER, ids->shape[0], weight->shape[1], 1,
                        weight->shape[0], 0.0, FALSE,
                        { _nk_ag_dev_ptr (weight), NULL, NULL, NULL, NULL,
                          _nk_ag_dev_ptr (dev_ids) },
                        { _nk_ag_dev_ptr (out) } };

    if (!_nk_ag_run_rows (weight, &call, error))
      return NULL;
  }
  return g_steal_pointer (&out);
}

NkTensor *
nk_ag_embedding (NkTensor  *weight,
                 NkTensor  *index,
                 GError   **error)
{
  g_autoptr(NkTensor) ids = NULL;
  g_autoptr(NkTensor) out = NULL;
  NkAgNode *node;

  g_return_val_if_fail (weight != NULL && index != NULL, NULL);

  if (!is_embedding_table (weight) || index->ndim != 1)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("An embedding needs a contiguous f32/f64 [V, D] table and [N] ids."));
      return NULL;
    }
  /* The ids are checked, and the backward's plan made, on the host. */
  if ((ids = _nk_ag_token_ids (index, weight->shape[0], error)) == NULL
      || (out = gather_rows (weight, ids, error)) == NULL)
    return NULL;
  node = _nk_ag_record (out, &embedding_op, weight, NULL, NULL);
  if (node != NULL)
    node->saved[0] = g_steal_pointer (&ids);
  return g_steal_pointer (&out);
}

/* Positions grouped by token, each group in position order, and where each token's
 * group starts ([vocab + 1]): the deterministic scatter's plan, on @like's device. */
static gboolean
scatter_plan (NkTensor   *ids,
              gint64      vocab,
              NkTensor   *like,
              NkTensor  **out_order,
              NkTensor  **out_starts,
              GError    **error)
{
  gint64 n = ids->shape[0];
  const gint64 *v = nk_tensor_data (ids);
  g_autoptr(NkTensor) order = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT64,
                                                  NK_SHAPE (MAX (n, 1)), NK_BUCKET_OTHER,
                                                  FALSE, error);
  g_autoptr(NkTensor) starts = order ? nk_tensor_new_full (nk_device_get_cpu (),
                                                           NK_DTYPE_INT64,
                                                           NK_SHAPE (vocab + 1),
                                                           NK_BUCKET_OTHER, TRUE, error)
                                     : NULL;
  g_autofree gint64 *fill = NULL;
  gint64 *o, *st;

  if (starts == NULL)
    return FALSE;
  o = nk_tensor_data (order);
  st = nk_tensor_data (starts);
  /* A counting sort: stable, so each token's positions stay in order. */
  for (gint64 i = 0; i < n; i++)
    st[v[i] + 1]++;
  for (gint64 t = 0; t < vocab; t++)
    st[t + 1] += st[t];
  fill = g_memdup2 (st, sizeof (gint64) * vocab);
  for (gint64 i = 0; i < n; i++)
    o[fill[v[i]]++] = i;
  if ((*out_order = _nk_ag_on_device_of (order, like, error)) == NULL)
    return FALSE;
  if ((*out_starts = _nk_ag_on_device_of (starts, like, error)) == NULL)
    {
      g_clear_pointer (out_order, nk_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

static gboolean
embedding_backward (NkAgNode  *node,
                    GError   **error)
{
  NkTensor *w = node->in[0];
  g_autoptr(NkTensor) order = NULL;
  g_autoptr(NkTensor) starts = NULL;
  g_autoptr(NkTensor) target = NULL;
  double beta;

  if (!nk_autograd_requires_grad (w))
    return TRUE;
  if (!scatter_plan (node->saved[0], w->shape[0], w, &order, &starts, error)
      || (target = _nk_ag_grad_target_through (w, &beta, error)) == NULL)
    return FALSE;
  if (!nk_tensor_is_contiguous (target) || target->dtype != w->dtype)
    {
      g_set_error_literal (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                           _("An embedding's gradient must be a contiguous table."));
      return FALSE;
    }
  {
    NkRowsCall call = { NK_ROWS_SCATTER, node->saved[0]->shape[0], w->shape[1], 1, w->shape[0],
                        0.0, beta != 0.0,
                        { NULL, NULL, NULL, NULL, _nk_ag_dev_ptr (node->grad),
                          _nk_ag_dev_ptr (order), _nk_ag_dev_ptr (starts) },
                        { _nk_ag_dev_ptr (target) } };

    if (!_nk_ag_run_rows (w, &call, error))
      return FALSE;
  }
  _nk_ag_count_flops (NK_FLOP_KIND_EMBEDDING, (guint64) nk_tensor_numel (node->grad), TRUE);
  return TRUE;
}

/* ---- embedding with positions: out [B·T, D] = wte[index] + wpe[0..T) --------------- */

static gboolean embedding_with_positions_backward (NkAgNode *node, GError **error);
static const NkAgOp embedding_with_positions_op = {
  "embedding_with_positions", embedding_with_positions_backward
};

NkTensor *
nk_ag_embedding_with_positions (NkTensor  *wte,
                                NkTensor  *wpe,
                                NkTensor  *index,
                                GError   **error)
{
  g_autoptr(NkTensor) flat = NULL;
  g_autoptr(NkTensor) pos = NULL;
  g_autoptr(NkTensor) out = NULL;
  g_autoptr(NkTensor) out3 = NULL;
  g_autoptr(NkTensor) ids = NULL;
  NkAgNode *node;
  gint64 B, T;

  g_return_val_if_fail (wte != NULL && wpe != NULL && index != NULL, NULL);

  if (!is_embedding_table (wte) || index->ndim != 2 || wpe->ndim != 2
      || index->shape[1] > wpe->shape[0] || wpe->shape[1] != wte->shape[1] || wpe->dtype != wte->dtype)
    {
      g_set_error_literal (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                           _("Token and position embeddings need [B, T] ids, [V, D] and [T, D] tables."));
      return NULL;
    }
  B = index->shape[0], T = index->shape[1];
  /* The gather writes the sum's buffer and the positions are added in place, so
   * no [B·T, D] of token rows outlives the forward: a graph of wte[idx] + wpe
   * would keep them, PyTorch's does not. */
  if ((flat = nk_tensor_reshape (index, NK_SHAPE (B * T), error)) == NULL
      || (ids = _nk_ag_token_ids (flat, wte->shape[0], error)) == NULL
      || (out = gather_rows (wte, ids, error)) == NULL
      || (pos = nk_ag_narrow (wpe, 0, 0, T, error)) == NULL
      || (out3 = nk_tensor_view (out, 3, (gint64[]) { B, T, wte->shape[1] }, error)) == NULL
      || !nk_add_ (out3, pos, error))
    return NULL;
  node = _nk_ag_record (out, &embedding_with_positions_op, wte, pos, NULL);
  if (node != NULL)
    {
      node->saved[0] = g_steal_pointer (&ids);
      node->iparam[0] = B;
    }
  return g_steal_pointer (&out);
}

/* d loss / d wte as nk_ag_embedding's, and d loss / d positions: the gradient
 * summed over the batch, as nk_ag_add's backward sums a broadcast operand. */
static gboolean
embedding_with_positions_backward (NkAgNode  *node,
                                   GError   **error)
{
  NkTensor *pos = node->in[1];
  g_autoptr(NkTensor) g3 = nk_tensor_view (node->grad, 3,
                                           (gint64[]) { node->iparam[0], pos->shape[0],
                                                        pos->shape[1] }, error);

  return g3 != NULL && _nk_ag_accumulate (pos, g3, FALSE, error)
         && embedding_backward (node, error);
}

/* ---- the list ---------------------------------------------------------------------- */

const NkAgOp *const _nk_ag_ops_nn[] = {
  &bmm_op, &gelu_op, &layer_norm_op, &softmax_causal_op, &embedding_op,
  &embedding_with_positions_op,
};
const guint _nk_ag_n_ops_nn = G_N_ELEMENTS (_nk_ag_ops_nn);
