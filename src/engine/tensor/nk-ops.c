/* nk-ops.c: elementwise ops, reductions, triu/tril and matmul over any strided layout
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "nk-device-impl.h"
#include "nk-iter-private.h"
#include "nk-ops.h"
#include "nk-tensor-private.h"

/* ---- FLOP counter ---------------------------------------------------------------- */

static __thread guint64 flops_counter;

guint64
nk_flops_get (void)
{
  return flops_counter;
}

void
nk_flops_reset (void)
{
  flops_counter = 0;
}

void
nk_flops_add (guint64 flops)
{
  flops_counter += flops;
}

/* ---- broadcasting ---------------------------------------------------------------- */

gboolean
nk_broadcast_shapes (int            ndim_a,
                     const gint64  *shape_a,
                     int            ndim_b,
                     const gint64  *shape_b,
                     int           *out_ndim,
                     gint64        *out_shape,
                     GError       **error)
{
  int n = MAX (ndim_a, ndim_b);

  for (int i = 0; i < n; i++)
    {
      int da = ndim_a - n + i, db = ndim_b - n + i;
      gint64 sa = da >= 0 ? shape_a[da] : 1;
      gint64 sb = db >= 0 ? shape_b[db] : 1;

      if (sa != sb && sa != 1 && sb != 1)
        {
          g_autofree char *as = nk_format_shape (ndim_a, shape_a);
          g_autofree char *bs = nk_format_shape (ndim_b, shape_b);
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                       _("The size of tensor a (%" PRId64 ") must match the size of "
                         "tensor b (%" PRId64 ") at non-singleton dimension %d "
                         "(shapes %s and %s)"), sa, sb, i, as, bs);
          return FALSE;
        }
      out_shape[i] = sa == 1 ? sb : sa;
    }
  *out_ndim = n;
  return TRUE;
}

static gboolean
is_int (NkDType d)
{
  return d == NK_DTYPE_INT64 || d == NK_DTYPE_INT32 || d == NK_DTYPE_UINT16;
}

NkDType
nk_promote_types (NkDType a,
                  NkDType b)
{
  if (a == b)
    return a;
  if (a == NK_DTYPE_F64 || b == NK_DTYPE_F64)
    return NK_DTYPE_F64;
  if (is_int (a) && is_int (b))
    {
      if (a == NK_DTYPE_INT64 || b == NK_DTYPE_INT64)
        return NK_DTYPE_INT64;
      return NK_DTYPE_INT32;
    }
  if (is_int (a))
    return b;
  if (is_int (b))
    return a;
  /* Two different floats: f32 holds both exactly. */
  return NK_DTYPE_F32;
}

/* The dtype the device computes in for @dtype. */
static NkDType
compute_dtype (NkDevice *device,
               NkDType   dtype)
{
  const NkDeviceOps *ops = nk_device_get_ops (device);

  if (ops->supports_dtype (nk_device_get_backend (device), dtype))
    return dtype;
  if (dtype == NK_DTYPE_F64 || is_int (dtype))
    return NK_DTYPE_F64;
  return NK_DTYPE_F32;
}

static gboolean
same_device (NkTensor  *a,
             NkTensor  *b,
             GError   **error)
{
  if (nk_tensor_get_device (a) == nk_tensor_get_device (b))
    return TRUE;
  g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DEVICE,
               _("Expected all tensors to be on the same device, but found at least two "
                 "devices, %s and %s!"),
               nk_device_get_name (nk_tensor_get_device (a)),
               nk_device_get_name (nk_tensor_get_device (b)));
  return FALSE;
}

static gboolean
check_broadcasts_to (NkTensor      *t,
                     int            ndim,
                     const gint64  *shape,
                     GError       **error)
{
  int n;
  gint64 res[NK_MAX_DIMS];

  if (!nk_broadcast_shapes (t->ndim, t->shape, ndim, shape, &n, res, error))
    return FALSE;
  if (n != ndim || memcmp (res, shape, ndim * sizeof (gint64)) != 0)
    {
      g_autofree char *a = nk_format_shape (t->ndim, t->shape);
      g_autofree char *b = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A tensor of shape %s cannot be broadcast to the output shape %s."), a, b);
      return FALSE;
    }
  return TRUE;
}

/* A dense tensor of @shape whose dim order follows @like's strides. */
static NkTensor *
new_like_layout (NkTensor      *like,
                 NkDType        dtype,
                 int            ndim,
                 const gint64  *shape,
                 int            nin,
                 NkTensor     **inputs,
                 GError       **error)
{
  gint64 bstr[3][NK_MAX_DIMS];
  const gint64 *strides[3];
  gint64 out_stride[NK_MAX_DIMS];

  for (int j = 0; j < nin; j++)
    {
      _nk_broadcast_strides (inputs[j], ndim, shape, bstr[j]);
      strides[j] = bstr[j];
    }
  _nk_dense_strides_like (ndim, shape, nin, strides, out_stride);
  return _nk_tensor_new_strided (nk_tensor_get_device (like), dtype, ndim, shape,
                                 out_stride, error);
}

/* @in, or a copy of it when it shares bytes with @out in another layout: ops walk
 * @out and @in in one pass, so @in's elements would be read after some were
 * overwritten. PyTorch refuses the cases it can prove ("unsupported operation: some
 * elements of the input tensor and the written-to tensor refer to a single memory
 * location") and silently computes the others element by element; Napkin copies the
 * input first, so the result is always the one of the op on the old values.
 * Exact aliasing (out == a, the in-place form) needs no copy. */
static gboolean
unalias_input (NkTensor   *out,
               NkTensor  **in,
               gboolean    allow_exact,
               GError    **error)
{
  NkTensor *copy;

  if (*in == NULL || !_nk_tensor_may_overlap (out, *in) ||
      (allow_exact && _nk_tensor_same_layout (out, *in)))
    return TRUE;
  copy = nk_tensor_clone (*in, error);
  if (copy == NULL)
    return FALSE;
  nk_tensor_unref (*in);
  *in = copy;
  return TRUE;
}

/* @t in @dtype: a new ref, or a dense converted copy. */
static NkTensor *
as_dtype (NkTensor  *t,
          NkDType    dtype,
          GError   **error)
{
  return nk_cast (t, dtype, error);
}

/* Runs a kernel into @out through a temporary when @out's dtype is not the
 * compute dtype. @run writes into its first argument. */
typedef gboolean (*RunFn) (NkTensor  *dst,
                           gpointer   data,
                           GError   **error);

static gboolean
run_into (NkTensor  *out,
          NkDType    ct,
          RunFn      run,
          gpointer   data,
          GError   **error)
{
  g_autoptr(NkTensor) tmp = NULL;

  if (out->dtype == ct)
    return run (out, data, error);
  tmp = new_like_layout (out, ct, out->ndim, out->shape, 1, &out, error);
  if (tmp == NULL || !run (tmp, data, error))
    return FALSE;
  return nk_tensor_copy_ (out, tmp, error);
}

/* ---- elementwise ----------------------------------------------------------------- */

typedef struct {
  gboolean   is_unary;
  int        op;
  NkTensor  *a;        /* in compute dtype */
  NkTensor  *b;        /* in compute dtype, or NULL for a scalar */
  double     scalar;
  gboolean   scalar_first;
} EwData;

static gboolean
ew_run (NkTensor  *dst,
        gpointer   user_data,
        GError   **error)
{
  EwData *ew = user_data;
  NkDevice *device = nk_tensor_get_device (dst);
  const NkDeviceOps *ops = nk_device_get_ops (device);
  gint64 sa[NK_MAX_DIMS], sb[NK_MAX_DIMS];
  const gint64 *strides[3] = { dst->stride, sa, sb };
  gint64 offsets[3] = { dst->offset, ew->a->offset, ew->b ? ew->b->offset : 0 };
  int nops = (ew->is_unary || ew->b == NULL) ? 2 : 3;
  NkIter it;

  _nk_broadcast_strides (ew->a, dst->ndim, dst->shape, sa);
  if (ew->b != NULL)
    _nk_broadcast_strides (ew->b, dst->ndim, dst->shape, sb);
  else
    memset (sb, 0, sizeof sb);
  _nk_iter_init (&it, dst->ndim, dst->shape, nops, strides, offsets);
  if (it.numel == 0)
    return TRUE;

  if (ew->is_unary)
    return ops->unary (nk_device_get_backend (device), ew->op, &it, dst->dtype,
                       nk_storage_get_data (dst->storage),
                       nk_storage_get_data (ew->a->storage), error);
  return ops->binary (nk_device_get_backend (device), ew->op, &it, dst->dtype,
                      nk_storage_get_data (dst->storage),
                      nk_storage_get_data (ew->a->storage),
                      ew->b ? nk_storage_get_data (ew->b->storage) : NULL,
                      ew->scalar, ew->scalar_first, error);
}

static gboolean
elementwise_out (gboolean   is_unary,
                 int        op,
                 NkTensor  *out,
                 NkTensor  *a,
                 NkTensor  *b,
                 double     scalar,
                 gboolean   scalar_first,
                 GError   **error)
{
  g_autoptr(NkTensor) ac = NULL;
  g_autoptr(NkTensor) bc = NULL;
  NkDevice *device = nk_tensor_get_device (out);
  NkDType ct;
  EwData ew;

  if (!same_device (out, a, error) || (b != NULL && !same_device (out, b, error)))
    return FALSE;
  if (!check_broadcasts_to (a, out->ndim, out->shape, error) ||
      (b != NULL && !check_broadcasts_to (b, out->ndim, out->shape, error)) ||
      !_nk_tensor_check_writable (out, error))
    return FALSE;

  ct = compute_dtype (device, b ? nk_promote_types (a->dtype, b->dtype) : a->dtype);
  ac = as_dtype (a, ct, error);
  if (ac == NULL)
    return FALSE;
  if (b != NULL && (bc = as_dtype (b, ct, error)) == NULL)
    return FALSE;
  if (!unalias_input (out, &ac, TRUE, error) || !unalias_input (out, &bc, TRUE, error))
    return FALSE;

  ew = (EwData) { is_unary, op, ac, bc, scalar, scalar_first };
  if (!run_into (out, ct, ew_run, &ew, error))
    return FALSE;
  nk_flops_add ((guint64) nk_tensor_numel (out));
  return TRUE;
}

gboolean
nk_unary_out (NkUnaryOp   op,
              NkTensor   *out,
              NkTensor   *a,
              GError    **error)
{
  g_return_val_if_fail (op < NK_N_UNARY_OPS, FALSE);
  g_return_val_if_fail (out != NULL && a != NULL, FALSE);

  return elementwise_out (TRUE, op, out, a, NULL, 0.0, FALSE, error);
}

gboolean
nk_binary_out (NkBinaryOp   op,
               NkTensor    *out,
               NkTensor    *a,
               NkTensor    *b,
               GError     **error)
{
  g_return_val_if_fail (op < NK_N_BINARY_OPS, FALSE);
  g_return_val_if_fail (out != NULL && a != NULL && b != NULL, FALSE);

  return elementwise_out (FALSE, op, out, a, b, 0.0, FALSE, error);
}

gboolean
nk_binary_scalar_out (NkBinaryOp   op,
                      NkTensor    *out,
                      NkTensor    *a,
                      double       scalar,
                      gboolean     scalar_first,
                      GError     **error)
{
  g_return_val_if_fail (op < NK_N_BINARY_OPS, FALSE);
  g_return_val_if_fail (out != NULL && a != NULL, FALSE);

  return elementwise_out (FALSE, op, out, a, NULL, scalar, scalar_first, error);
}

NkTensor *
nk_unary (NkUnaryOp   op,
          NkTensor   *a,
          GError    **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL, NULL);

  out = new_like_layout (a, a->dtype, a->ndim, a->shape, 1, &a, error);
  if (out == NULL || !nk_unary_out (op, out, a, error))
    return NULL;
  return g_steal_pointer (&out);
}

NkTensor *
nk_binary (NkBinaryOp   op,
           NkTensor    *a,
           NkTensor    *b,
           GError     **error)
{
  g_autoptr(NkTensor) out = NULL;
  NkTensor *inputs[2] = { a, b };
  gint64 shape[NK_MAX_DIMS];
  int ndim;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  if (!same_device (a, b, error) ||
      !nk_broadcast_shapes (a->ndim, a->shape, b->ndim, b->shape, &ndim, shape, error))
    return NULL;
  out = new_like_layout (a, nk_promote_types (a->dtype, b->dtype), ndim, shape, 2, inputs, error);
  if (out == NULL || !nk_binary_out (op, out, a, b, error))
    return NULL;
  return g_steal_pointer (&out);
}

NkTensor *
nk_binary_scalar (NkBinaryOp   op,
                  NkTensor    *a,
                  double       scalar,
                  gboolean     scalar_first,
                  GError     **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL, NULL);

  out = new_like_layout (a, a->dtype, a->ndim, a->shape, 1, &a, error);
  if (out == NULL || !nk_binary_scalar_out (op, out, a, scalar, scalar_first, error))
    return NULL;
  return g_steal_pointer (&out);
}

NkTensor *nk_add (NkTensor *a, NkTensor *b, GError **error) { return nk_binary (NK_BINARY_ADD, a, b, error); }
NkTensor *nk_sub (NkTensor *a, NkTensor *b, GError **error) { return nk_binary (NK_BINARY_SUB, a, b, error); }
NkTensor *nk_mul (NkTensor *a, NkTensor *b, GError **error) { return nk_binary (NK_BINARY_MUL, a, b, error); }
NkTensor *nk_div (NkTensor *a, NkTensor *b, GError **error) { return nk_binary (NK_BINARY_DIV, a, b, error); }
NkTensor *nk_add_scalar (NkTensor *a, double s, GError **error) { return nk_binary_scalar (NK_BINARY_ADD, a, s, FALSE, error); }
NkTensor *nk_mul_scalar (NkTensor *a, double s, GError **error) { return nk_binary_scalar (NK_BINARY_MUL, a, s, FALSE, error); }
NkTensor *nk_neg (NkTensor *a, GError **error) { return nk_unary (NK_UNARY_NEG, a, error); }
NkTensor *nk_exp (NkTensor *a, GError **error) { return nk_unary (NK_UNARY_EXP, a, error); }
NkTensor *nk_log (NkTensor *a, GError **error) { return nk_unary (NK_UNARY_LOG, a, error); }
NkTensor *nk_relu (NkTensor *a, GError **error) { return nk_unary (NK_UNARY_RELU, a, error); }

gboolean
nk_add_ (NkTensor  *a,
         NkTensor  *b,
         GError   **error)
{
  return nk_binary_out (NK_BINARY_ADD, a, a, b, error);
}

gboolean
nk_mul_scalar_ (NkTensor  *a,
                double     s,
                GError   **error)
{
  return nk_binary_scalar_out (NK_BINARY_MUL, a, a, s, FALSE, error);
}

/* ---- reductions ------------------------------------------------------------------ */


NkTensor *
nk_reduce (NkReduceOp   op,
           NkTensor    *a,
           int          ndims,
           const int   *dims,
           gboolean     keepdim,
           GError     **error)
{
  g_autoptr(NkTensor) ac = NULL;
  g_autoptr(NkTensor) out = NULL;
  g_autoptr(NkTensor) res = NULL;
  gboolean reduced[NK_MAX_DIMS] = { FALSE };
  gint64 kshape[NK_MAX_DIMS], fshape[NK_MAX_DIMS];
  int rdims[NK_MAX_DIMS];
  int nkeep = 0, nred = 0, nfull = 0;
  NkDevice *device;
  NkDType ct;
  NkReduceIter it = { 0 };

  g_return_val_if_fail (op < NK_N_REDUCE_OPS, NULL);
  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (ndims == 0 || dims != NULL, NULL);

  /* PyTorch refuses rather than truncate (numpy would give float64). */
  if (op == NK_REDUCE_MEAN && is_int (a->dtype))
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DTYPE,
                   _("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s"),
                   a->dtype == NK_DTYPE_INT64 ? "Long" : a->dtype == NK_DTYPE_INT32 ? "Int" : "UInt16");
      return NULL;
    }

  if (ndims == 0)
    for (int d = 0; d < a->ndim; d++)
      reduced[d] = TRUE;
  for (int i = 0; i < ndims; i++)
    {
      int d;
      if (!_nk_wrap_dim (dims[i], a->ndim, &d, error))
        return NULL;
      if (a->ndim == 0)
        continue;
      if (reduced[d])
        {
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                       _("dim %d appears multiple times in the list of dims"), d);
          return NULL;
        }
      reduced[d] = TRUE;
    }

  for (int d = 0; d < a->ndim; d++)
    {
      if (reduced[d])
        {
          if (a->shape[d] == 0 && (op == NK_REDUCE_MAX || op == NK_REDUCE_MIN))
            {
              g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                           _("%s(): Expected reduction dim %d to have non-zero size."),
                           op == NK_REDUCE_MAX ? "amax" : "amin", d);
              return NULL;
            }
          rdims[nred++] = d;
          fshape[nfull++] = 1;
        }
      else
        {
          kshape[nkeep++] = a->shape[d];
          fshape[nfull++] = a->shape[d];
        }
    }

  device = nk_tensor_get_device (a);
  ct = compute_dtype (device, a->dtype);
  ac = as_dtype (a, ct, error);
  if (ac == NULL)
    return NULL;
  out = nk_tensor_new_full (device, ct, nkeep, kshape, nk_storage_get_default_bucket (),
                            FALSE, error);
  if (out == NULL)
    return NULL;

  /* Reduced dims go innermost, the one with the smallest stride last. */
  for (int i = 1; i < nred; i++)
    for (int j = i; j > 0 && ac->stride[rdims[j - 1]] < ac->stride[rdims[j]]; j--)
      {
        int t = rdims[j];
        rdims[j] = rdims[j - 1];
        rdims[j - 1] = t;
      }

  it.ndim = nkeep + nred;
  it.nreduce = nred;
  it.count = 1;
  it.in_offset = ac->offset;
  it.out_offset = 0;
  for (int d = 0, k = 0; d < a->ndim; d++)
    if (!reduced[d])
      {
        it.shape[k] = ac->shape[d];
        it.in_stride[k] = ac->stride[d];
        it.out_stride[k] = out->stride[k];
        k++;
      }
  for (int i = 0; i < nred; i++)
    {
      it.shape[nkeep + i] = ac->shape[rdims[i]];
      it.in_stride[nkeep + i] = ac->stride[rdims[i]];
      it.count *= ac->shape[rdims[i]];
    }

  if (nk_tensor_numel (out) > 0 &&
      !nk_device_get_ops (device)->reduce (nk_device_get_backend (device), op, &it, ct,
                                           nk_storage_get_data (out->storage),
                                           nk_storage_get_data (ac->storage), error))
    return NULL;
  nk_flops_add ((guint64) nk_tensor_numel (a));

  /* torch.sum of integers returns int64 (no wrap-around in a narrow type). */
  res = nk_cast (out, (op == NK_REDUCE_SUM && is_int (a->dtype)) ? NK_DTYPE_INT64 : a->dtype,
                 error);
  if (res == NULL)
    return NULL;
  if (keepdim && a->ndim > 0)
    return nk_tensor_view (res, nfull, fshape, error);
  return g_steal_pointer (&res);
}

NkTensor *
nk_sum (NkTensor   *a,
        int         ndims,
        const int  *dims,
        gboolean    keepdim,
        GError    **error)
{
  return nk_reduce (NK_REDUCE_SUM, a, ndims, dims, keepdim, error);
}

NkTensor *
nk_mean (NkTensor   *a,
         int         ndims,
         const int  *dims,
         gboolean    keepdim,
         GError    **error)
{
  return nk_reduce (NK_REDUCE_MEAN, a, ndims, dims, keepdim, error);
}

NkTensor *
nk_sum_to_shape (NkTensor      *a,
                 int            ndim,
                 const gint64  *shape,
                 GError       **error)
{
  g_autoptr(NkTensor) summed = NULL;
  int dims[NK_MAX_DIMS];
  int n = 0, lead;

  g_return_val_if_fail (a != NULL, NULL);

  lead = a->ndim - ndim;
  if (lead < 0)
    {
      g_autofree char *as = nk_format_shape (a->ndim, a->shape);
      g_autofree char *bs = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A tensor of shape %s cannot be summed to shape %s."), as, bs);
      return NULL;
    }
  for (int d = 0; d < a->ndim; d++)
    {
      if (d < lead)
        dims[n++] = d;
      else if (shape[d - lead] == 1 && a->shape[d] != 1)
        dims[n++] = d;
      else if (shape[d - lead] != a->shape[d])
        {
          g_autofree char *as = nk_format_shape (a->ndim, a->shape);
          g_autofree char *bs = nk_format_shape (ndim, shape);
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                       _("A tensor of shape %s cannot be summed to shape %s."), as, bs);
          return NULL;
        }
    }
  if (n == 0)
    return nk_tensor_reshape (a, ndim, shape, error);
  summed = nk_reduce (NK_REDUCE_SUM, a, n, dims, TRUE, error);
  if (summed == NULL)
    return NULL;
  return nk_tensor_reshape (summed, ndim, shape, error);
}

/* ---- structure ------------------------------------------------------------------- */

static NkTensor *
triangle (NkTensor  *a,
          gboolean   upper,
          gint64     diagonal,
          GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  NkDevice *device;
  NkIter it = { 0 };

  g_return_val_if_fail (a != NULL, NULL);

  if (a->ndim < 2)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("%s: input tensor must have at least 2 dimensions"),
                   upper ? "triu" : "tril");
      return NULL;
    }
  device = nk_tensor_get_device (a);
  out = nk_tensor_new_full (device, a->dtype, a->ndim, a->shape,
                            nk_storage_get_default_bucket (), FALSE, error);
  if (out == NULL)
    return NULL;

  it.ndim = a->ndim;
  it.numel = nk_tensor_numel (a);
  it.offset[0] = 0;
  it.offset[1] = a->offset;
  for (int d = 0; d < a->ndim; d++)
    {
      it.shape[d] = a->shape[d];
      it.stride[0][d] = out->stride[d];
      it.stride[1][d] = a->stride[d];
    }
  if (it.numel > 0 &&
      !nk_device_get_ops (device)->triangle (nk_device_get_backend (device), upper, diagonal,
                                             &it, a->dtype,
                                             nk_storage_get_data (out->storage),
                                             nk_storage_get_data (a->storage), error))
    return NULL;
  return g_steal_pointer (&out);
}

NkTensor *
nk_triu (NkTensor  *a,
         gint64     diagonal,
         GError   **error)
{
  return triangle (a, TRUE, diagonal, error);
}

NkTensor *
nk_tril (NkTensor  *a,
         gint64     diagonal,
         GError   **error)
{
  return triangle (a, FALSE, diagonal, error);
}

static NkTensor *
softmax_impl (NkTensor  *a,
              int        dim,
              gboolean   log_form,
              GError   **error)
{
  g_autoptr(NkTensor) m = NULL;
  g_autoptr(NkTensor) s = NULL;
  g_autoptr(NkTensor) e = NULL;
  g_autoptr(NkTensor) z = NULL;
  int d;

  g_return_val_if_fail (a != NULL, NULL);

  if (!_nk_wrap_dim (dim, a->ndim, &d, error))
    return NULL;
  /* Nothing to normalise, and the max over an empty dim is refused: PyTorch returns
   * an empty result of the same shape. */
  if (nk_tensor_numel (a) == 0)
    return nk_tensor_empty_like (a, error);
  if ((m = nk_reduce (NK_REDUCE_MAX, a, 1, &d, TRUE, error)) == NULL ||
      (s = nk_sub (a, m, error)) == NULL ||
      (e = nk_exp (s, error)) == NULL ||
      (z = nk_sum (e, 1, &d, TRUE, error)) == NULL)
    return NULL;
  if (log_form)
    {
      g_autoptr(NkTensor) lz = nk_log (z, error);
      if (lz == NULL)
        return NULL;
      return nk_sub (s, lz, error);
    }
  return nk_div (e, z, error);
}

NkTensor *
nk_softmax (NkTensor  *a,
            int        dim,
            GError   **error)
{
  return softmax_impl (a, dim, FALSE, error);
}

NkTensor *
nk_log_softmax (NkTensor  *a,
                int        dim,
                GError   **error)
{
  return softmax_impl (a, dim, TRUE, error);
}

/* Reads @index as integers, checking them against @size. */
static gint64 *
read_indices (NkTensor  *index,
              gint64     size,
              gsize     *out_n,
              GError   **error)
{
  g_autofree double *v = NULL;
  g_autofree gint64 *idx = NULL;
  gsize n;

  if (!is_int (index->dtype))
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DTYPE,
                   _("index_select(): Expected dtype int32/int64 for index, got %s"),
                   nk_dtype_info (index->dtype)->name);
      return NULL;
    }
  v = nk_tensor_to_doubles (index, &n);
  idx = g_new (gint64, MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    {
      gint64 k = (gint64) v[i];
      if (k < -size || k >= size)
        {
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                       _("index %" PRId64 " is out of range for a dimension of size %"
                         PRId64), k, size);
          return NULL;
        }
      idx[i] = k < 0 ? k + size : k;
    }
  *out_n = n;
  return g_steal_pointer (&idx);
}

NkTensor *
nk_index_select (NkTensor  *a,
                 int        dim,
                 NkTensor  *index,
                 GError   **error)
{
  g_autoptr(NkTensor) flat = NULL;
  g_autofree gint64 *idx = NULL;
  gint64 shape[NK_MAX_DIMS], final[NK_MAX_DIMS];
  gsize n;
  int d, nf = 0;

  g_return_val_if_fail (a != NULL && index != NULL, NULL);

  if (a->ndim == 0 || !_nk_wrap_dim (dim, a->ndim, &d, error))
    {
      if (a->ndim == 0)
        g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                             _("index_select() needs a tensor with at least one dimension."));
      return NULL;
    }
  if (a->ndim - 1 + index->ndim > NK_MAX_DIMS)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A tensor has at most %d dimensions."), NK_MAX_DIMS);
      return NULL;
    }
  idx = read_indices (index, a->shape[d], &n, error);
  if (idx == NULL)
    return NULL;

  memcpy (shape, a->shape, sizeof shape);
  shape[d] = (gint64) n;
  flat = nk_tensor_new_full (nk_tensor_get_device (a), a->dtype, a->ndim, shape,
                             nk_storage_get_default_bucket (), FALSE, error);
  if (flat == NULL)
    return NULL;
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(NkTensor) dst = nk_tensor_select (flat, d, (gint64) i, error);
      g_autoptr(NkTensor) src = dst ? nk_tensor_select (a, d, idx[i], error) : NULL;
      if (src == NULL || !nk_tensor_copy_ (dst, src, error))
        return NULL;
    }

  for (int i = 0; i < d; i++)
    final[nf++] = a->shape[i];
  for (int i = 0; i < index->ndim; i++)
    final[nf++] = index->shape[i];
  for (int i = d + 1; i < a->ndim; i++)
    final[nf++] = a->shape[i];
  return nk_tensor_view (flat, nf, final, error);
}

gboolean
nk_index_add_ (NkTensor  *dst,
               int        dim,
               NkTensor  *index,
               NkTensor  *src,
               GError   **error)
{
  g_autoptr(NkTensor) flat = NULL;
  g_autofree gint64 *idx = NULL;
  gint64 shape[NK_MAX_DIMS];
  gsize n;
  int d;

  g_return_val_if_fail (dst != NULL && index != NULL && src != NULL, FALSE);

  if (dst->ndim == 0 || !_nk_wrap_dim (dim, dst->ndim, &d, error))
    {
      if (dst->ndim == 0)
        g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                             _("index_add_() needs a tensor with at least one dimension."));
      return FALSE;
    }
  idx = read_indices (index, dst->shape[d], &n, error);
  if (idx == NULL)
    return FALSE;
  memcpy (shape, dst->shape, sizeof shape);
  shape[d] = (gint64) n;
  flat = nk_tensor_reshape (src, dst->ndim, shape, error);
  if (flat == NULL)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(NkTensor) row = nk_tensor_select (dst, d, idx[i], error);
      g_autoptr(NkTensor) add = row ? nk_tensor_select (flat, d, (gint64) i, error) : NULL;
      if (add == NULL || !nk_binary_out (NK_BINARY_ADD, row, row, add, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- matmul ---------------------------------------------------------------------- */

static void
set_mismatch_error (NkTensor  *a,
                    NkTensor  *b,
                    GError   **error)
{
  g_autofree char *as = nk_format_shape (a->ndim, a->shape);
  g_autofree char *bs = nk_format_shape (b->ndim, b->shape);

  g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
               _("mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%"
                 PRId64 " and %" PRId64 "x%" PRId64 "): shapes %s and %s"),
               a->ndim >= 2 ? a->shape[a->ndim - 2] : 1, a->shape[a->ndim - 1],
               b->shape[b->ndim >= 2 ? b->ndim - 2 : 0], b->ndim >= 2 ? b->shape[b->ndim - 1] : 1,
               as, bs);
}

static gboolean
matmul_checked (NkTensor   *out,
                NkTensor   *a,
                NkTensor   *b,
                double      alpha,
                double      beta,
                GError    **error);

static gboolean
supports_gemm (NkDevice *device,
               NkDType   dtype,
               NkDType   out_dtype)
{
  return nk_device_get_ops (device)->supports_gemm_dtype (nk_device_get_backend (device),
                                                          dtype, out_dtype);
}

gboolean
nk_matmul_out (NkTensor   *out,
               NkTensor   *a,
               NkTensor   *b,
               double      alpha,
               double      beta,
               GError    **error)
{
  g_autoptr(NkTensor) ac = NULL;
  g_autoptr(NkTensor) bc = NULL;
  g_autoptr(NkTensor) oc = NULL;
  NkDevice *device;
  NkDType ab, dt, ct;
  gboolean into_wider = FALSE;

  g_return_val_if_fail (out != NULL && a != NULL && b != NULL, FALSE);

  if (!same_device (out, a, error) || !same_device (out, b, error))
    return FALSE;
  if (a->ndim < 2 || b->ndim < 2 || out->ndim < 2)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                           _("matmul_out needs operands with at least 2 dimensions."));
      return FALSE;
    }
  if (is_int (a->dtype) || is_int (b->dtype) || is_int (out->dtype))
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DTYPE,
                   _("matmul needs floating-point operands, not %s and %s."),
                   nk_dtype_info (a->dtype)->name, nk_dtype_info (b->dtype)->name);
      return FALSE;
    }
  if (!_nk_tensor_check_writable (out, error))
    return FALSE;

  device = nk_tensor_get_device (out);
  ab = nk_promote_types (a->dtype, b->dtype);
  dt = nk_promote_types (ab, out->dtype);
  /* bf16 operands into an f32 out (autocast's backward into f32 gradients): where the
   * device multiplies them into f32 directly, they are not widened first. The result
   * is the widened product's, up to the order of the f32 sums. */
  if (ab != dt && supports_gemm (device, ab, dt))
    {
      ct = ab;
      into_wider = TRUE;
    }
  else if (supports_gemm (device, dt, dt))
    ct = dt;
  else
    ct = dt == NK_DTYPE_F64 ? NK_DTYPE_F64 : NK_DTYPE_F32;

  if ((ac = nk_cast (a, ct, error)) == NULL || (bc = nk_cast (b, ct, error)) == NULL)
    return FALSE;
  /* gemm reads A and B while it writes C: even an exact alias needs a copy. */
  if (!unalias_input (out, &ac, FALSE, error) || !unalias_input (out, &bc, FALSE, error))
    return FALSE;
  if (out->dtype == ct || into_wider)
    return matmul_checked (out, ac, bc, alpha, beta, error);

  /* Widened operands, f32 accumulation, one rounding back into @out's dtype. */
  if (beta != 0.0)
    oc = nk_cast (out, ct, error);
  else
    oc = nk_tensor_new_full (device, ct, out->ndim, out->shape,
                             nk_storage_get_default_bucket (), FALSE, error);
  if (oc == NULL || !matmul_checked (oc, ac, bc, alpha, beta, error))
    return FALSE;
  return nk_tensor_copy_ (out, oc, error);
}

static void
matrix_desc (NkTensor     *t,
             gint64        batch_stride,
             NkGemmMatrix *m)
{
  m->rows = t->shape[t->ndim - 2];
  m->cols = t->shape[t->ndim - 1];
  m->row_stride = t->stride[t->ndim - 2];
  m->col_stride = t->stride[t->ndim - 1];
  m->batch_stride = batch_stride;
}

static gboolean
matmul_checked (NkTensor   *out,
                NkTensor   *a,
                NkTensor   *b,
                double      alpha,
                double      beta,
                GError    **error)
{
  g_autoptr(NkTensor) ae = NULL;
  g_autoptr(NkTensor) be = NULL;
  g_autoptr(NkTensor) ctmp = NULL;
  NkDevice *device = nk_tensor_get_device (out);
  const NkDeviceOps *ops = nk_device_get_ops (device);
  int nb = out->ndim - 2;
  gint64 m = a->shape[a->ndim - 2], k = a->shape[a->ndim - 1], n = b->shape[b->ndim - 1];
  gint64 eshape[NK_MAX_DIMS];
  gint64 sa[NK_MAX_DIMS], sb[NK_MAX_DIMS];
  const gint64 *strides[3];
  gint64 offsets[3] = { 0, 0, 0 };
  gint64 batch_total = 1, inner, idx[NK_MAX_DIMS] = { 0 };
  NkTensor *c;
  NkIter it;
  NkGemmPlan plan;
  gsize es = nk_dtype_element_size (a->dtype), out_es = nk_dtype_element_size (out->dtype);

  if (b->shape[b->ndim - 2] != k || out->shape[nb] != m || out->shape[nb + 1] != n)
    {
      set_mismatch_error (a, b, error);
      return FALSE;
    }

  /* Broadcast A and B's batch dims to out's as stride-0 views. */
  memcpy (eshape, out->shape, nb * sizeof (gint64));
  eshape[nb] = m;
  eshape[nb + 1] = k;
  if ((ae = nk_tensor_expand (a, nb + 2, eshape, error)) == NULL)
    return FALSE;
  eshape[nb] = k;
  eshape[nb + 1] = n;
  if ((be = nk_tensor_expand (b, nb + 2, eshape, error)) == NULL)
    return FALSE;

  for (int d = 0; d < nb; d++)
    batch_total *= out->shape[d];
  nk_flops_add ((guint64) (2 * m * n * k * batch_total));
  if (batch_total == 0 || m == 0 || n == 0)
    return TRUE;

  c = out;
  for (int attempt = 0; attempt < 2; attempt++)
    {
      NkGemmMatrix ma, mb, mc;

      /* Coalesce the batch dims; the innermost merged one goes into the plan. */
      memcpy (sa, ae->stride, nb * sizeof (gint64));
      memcpy (sb, be->stride, nb * sizeof (gint64));
      strides[0] = c->stride;
      strides[1] = sa;
      strides[2] = sb;
      _nk_iter_init (&it, nb, out->shape, 3, strides, offsets);
      inner = it.ndim > 0 ? it.shape[it.ndim - 1] : 1;

      matrix_desc (ae, it.ndim > 0 ? it.stride[1][it.ndim - 1] : 0, &ma);
      matrix_desc (be, it.ndim > 0 ? it.stride[2][it.ndim - 1] : 0, &mb);
      matrix_desc (c, it.ndim > 0 ? it.stride[0][it.ndim - 1] : 0, &mc);
      nk_gemm_plan (&ma, &mb, &mc, inner, &plan);
      if (!nk_gemm_plan_needs_copy (&plan))
        break;
      g_return_val_if_fail (attempt == 0, FALSE);

      /* Only layouts without a unit stride get here: make them contiguous. */
      if (plan.copy_a)
        {
          NkTensor *copy = nk_tensor_clone (ae, error);
          if (copy == NULL)
            return FALSE;
          nk_tensor_unref (ae);
          ae = copy;
        }
      if (plan.copy_b)
        {
          NkTensor *copy = nk_tensor_clone (be, error);
          if (copy == NULL)
            return FALSE;
          nk_tensor_unref (be);
          be = copy;
        }
      if (plan.copy_c)
        {
          ctmp = beta != 0.0 ? nk_tensor_clone (out, error)
                             : nk_tensor_new_full (device, out->dtype, out->ndim, out->shape,
                                                   nk_storage_get_default_bucket (), FALSE, error);
          if (ctmp == NULL)
            return FALSE;
          c = ctmp;
        }
    }

  {
    gint64 nouter = it.numel / MAX (inner, 1);
    char *abase = (char *) nk_storage_get_data (ae->storage) + ae->offset * es;
    char *bbase = (char *) nk_storage_get_data (be->storage) + be->offset * es;
    char *cbase = (char *) nk_storage_get_data (c->storage) + c->offset * out_es;

    for (gint64 o = 0; o < nouter; o++)
      {
        gint64 oa = 0, ob = 0, oc = 0;
        for (int d = 0; d < it.ndim - 1; d++)
          {
            oc += idx[d] * it.stride[0][d];
            oa += idx[d] * it.stride[1][d];
            ob += idx[d] * it.stride[2][d];
          }
        if (!ops->gemm (nk_device_get_backend (device), &plan, a->dtype, out->dtype, alpha,
                        abase + oa * (gint64) es, bbase + ob * (gint64) es, beta,
                        cbase + oc * (gint64) out_es, error))
          return FALSE;
        for (int d = it.ndim - 2; d >= 0; d--)
          {
            if (++idx[d] < it.shape[d])
              break;
            idx[d] = 0;
          }
      }
  }

  if (ctmp != NULL)
    return nk_tensor_copy_ (out, ctmp, error);
  return TRUE;
}

NkTensor *
nk_matmul (NkTensor  *a,
           NkTensor  *b,
           GError   **error)
{
  g_autoptr(NkTensor) a2 = NULL;
  g_autoptr(NkTensor) b2 = NULL;
  g_autoptr(NkTensor) out = NULL;
  gint64 shape[NK_MAX_DIMS], rshape[NK_MAX_DIMS];
  int nb, rn = 0;
  NkDType dt;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  if (a->ndim == 0 || b->ndim == 0)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("both arguments to matmul need to be at least 1D, but they are %dD and %dD"),
                   a->ndim, b->ndim);
      return NULL;
    }
  if (!same_device (a, b, error))
    return NULL;
  dt = nk_promote_types (a->dtype, b->dtype);
  if (is_int (dt))
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DTYPE,
                   _("matmul needs floating-point operands, not %s and %s."),
                   nk_dtype_info (a->dtype)->name, nk_dtype_info (b->dtype)->name);
      return NULL;
    }

  a2 = a->ndim == 1 ? nk_tensor_unsqueeze (a, 0, error) : nk_tensor_ref (a);
  b2 = b->ndim == 1 ? nk_tensor_unsqueeze (b, 1, error) : nk_tensor_ref (b);
  if (a2 == NULL || b2 == NULL)
    return NULL;
  if (a2->shape[a2->ndim - 1] != b2->shape[b2->ndim - 2])
    {
      set_mismatch_error (a2, b2, error);
      return NULL;
    }
  if (!nk_broadcast_shapes (a2->ndim - 2, a2->shape, b2->ndim - 2, b2->shape, &nb, shape, error))
    return NULL;
  if (nb + 2 > NK_MAX_DIMS)
    return NULL;
  shape[nb] = a2->shape[a2->ndim - 2];
  shape[nb + 1] = b2->shape[b2->ndim - 1];

  out = nk_tensor_new_full (nk_tensor_get_device (a), dt, nb + 2, shape,
                            nk_storage_get_default_bucket (), FALSE, error);
  if (out == NULL || !nk_matmul_out (out, a2, b2, 1.0, 0.0, error))
    return NULL;

  if (a->ndim > 1 && b->ndim > 1)
    return g_steal_pointer (&out);
  for (int d = 0; d < nb; d++)
    rshape[rn++] = shape[d];
  if (a->ndim > 1)
    rshape[rn++] = shape[nb];
  if (b->ndim > 1)
    rshape[rn++] = shape[nb + 1];
  return nk_tensor_view (out, rn, rshape, error);
}

/* ---- optimizer ------------------------------------------------------------------- */

static gboolean
check_f32_dense (NkTensor    *t,
                 NkTensor    *like,
                 const char  *what,
                 GError     **error)
{
  if (t->dtype != NK_DTYPE_F32 || !nk_tensor_is_contiguous (t) ||
      (like != NULL && nk_tensor_numel (t) != nk_tensor_numel (like)))
    {
      g_autofree char *layout = nk_tensor_format_layout (t);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DTYPE,
                   _("The optimizer needs a contiguous float32 %s matching the parameter (got %s %s)."),
                   what, nk_dtype_info (t->dtype)->name, layout);
      return FALSE;
    }
  return TRUE;
}

gboolean
nk_optimizer_step_ (const NkOptimStep  *step,
                    NkTensor           *param,
                    NkTensor           *grad,
                    NkTensor           *state1,
                    NkTensor           *state2,
                    GError            **error)
{
  NkDevice *device;
  NkOptimStep prepared;
  gsize es = sizeof (float);

  g_return_val_if_fail (step != NULL && param != NULL && grad != NULL, FALSE);

  if (!check_f32_dense (param, NULL, "parameter", error) ||
      !check_f32_dense (grad, param, "gradient", error) ||
      (state1 != NULL && !check_f32_dense (state1, param, "state", error)) ||
      (state2 != NULL && !check_f32_dense (state2, param, "state", error)))
    return FALSE;
  if (!same_device (param, grad, error) ||
      (state1 != NULL && !same_device (param, state1, error)) ||
      (state2 != NULL && !same_device (param, state2, error)))
    return FALSE;

  device = nk_tensor_get_device (param);
  prepared = *step;
  nk_optim_step_prepare (&prepared);
#define PTR(t) ((float *) ((char *) nk_storage_get_data ((t)->storage) + (t)->offset * es))
  return nk_device_get_ops (device)->optimizer (nk_device_get_backend (device), &prepared,
                                                (gsize) nk_tensor_numel (param),
                                                PTR (param), PTR (grad),
                                                state1 ? PTR (state1) : NULL,
                                                state2 ? PTR (state2) : NULL, error);
#undef PTR
}
