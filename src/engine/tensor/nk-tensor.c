/* nk-tensor.c: the tensor object: construction, metadata, elements, autograd slots
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "nk-device-impl.h"
#include "nk-tensor.h"
#include "nk-tensor-private.h"

/**
 * nk_tensor_error_quark:
 *
 * The error domain of tensors and their ops: shapes, indices and layouts that do
 * not fit, dtypes an op refuses, devices that fail.
 *
 * Returns: the #GQuark of %NK_TENSOR_ERROR
 */
G_DEFINE_QUARK (nk-tensor-error-quark, nk_tensor_error)

G_DEFINE_BOXED_TYPE (NkTensor, nk_tensor, nk_tensor_ref, nk_tensor_unref)

/* ---- helpers --------------------------------------------------------------------- */

/**
 * nk_format_shape:
 * @ndim: the number of sizes
 * @shape: (array length=ndim): the sizes
 *
 * Writes any list of sizes as PyTorch prints them, for messages.
 *
 * Returns: (transfer full): "(4, 4)", "(4,)" for one size, "()" for none
 */
char *
nk_format_shape (int           ndim,
                 const gint64 *shape)
{
  GString *s = g_string_new ("(");

  for (int d = 0; d < ndim; d++)
    g_string_append_printf (s, "%s%" PRId64, d ? ", " : "", shape[d]);
  if (ndim == 1)
    g_string_append_c (s, ',');
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

char *
_nk_format_list (int           ndim,
                 const gint64 *v)
{
  GString *s = g_string_new ("[");

  for (int d = 0; d < ndim; d++)
    g_string_append_printf (s, "%s%" PRId64, d ? ", " : "", v[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

char *
nk_tensor_format_layout (NkTensor *tensor)
{
  g_autofree char *shape = NULL;
  g_autofree char *stride = NULL;

  g_return_val_if_fail (tensor != NULL, NULL);

  shape = nk_format_shape (tensor->ndim, tensor->shape);
  stride = nk_format_shape (tensor->ndim, tensor->stride);
  return g_strdup_printf ("shape %s, stride %s, offset %" PRId64,
                          shape, stride, tensor->offset);
}

gboolean
_nk_wrap_dim (int      dim,
              int      ndim,
              int     *out_dim,
              GError **error)
{
  /* A 0-d tensor accepts dims -1 and 0, as in PyTorch. */
  int n = MAX (ndim, 1);

  if (dim < -n || dim >= n)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                   _("Dimension out of range (expected to be in range of [%d, %d], but got %d)"),
                   -n, n - 1, dim);
      return FALSE;
    }
  *out_dim = dim < 0 ? dim + n : dim;
  return TRUE;
}

gboolean
_nk_checked_numel (int            ndim,
                   const gint64  *shape,
                   gint64        *out_numel,
                   GError       **error)
{
  gint64 n = 1, span = 1;
  gboolean overflow = FALSE;

  for (int d = 0; d < ndim; d++)
    {
      if (shape[d] < 0)
        {
          g_autofree char *s = nk_format_shape (ndim, shape);
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                       _("Trying to create tensor with negative dimension %" PRId64
                         ": %s"), shape[d], s);
          return FALSE;
        }
      if (shape[d] != 0 && n > G_MAXINT64 / shape[d])
        overflow = TRUE;
      else
        n *= shape[d];
    }
  for (int d = 0; d < ndim; d++)
    if (shape[d] == 0)
      {
        n = 0;
        overflow = FALSE;
      }
  /* Contiguous strides multiply MAX(size, 1) even when some size is 0 (PyTorch's
   * "Storage size calculation overflowed" case): they must fit too. */
  for (int d = 0; d < ndim && !overflow; d++)
    if (__builtin_mul_overflow (span, MAX (shape[d], 1), &span))
      overflow = TRUE;
  if (overflow)
    {
      g_autofree char *s = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A tensor of shape %s has too many elements (the product of its sizes "
                     "overflows a 64-bit integer)."), s);
      return FALSE;
    }
  *out_numel = n;
  return TRUE;
}

void
_nk_contiguous_strides (int           ndim,
                        const gint64 *shape,
                        gint64       *stride)
{
  gint64 s = 1;

  for (int d = ndim - 1; d >= 0; d--)
    {
      stride[d] = s;
      s *= MAX (shape[d], 1);
    }
}

NkTensor *
_nk_tensor_alloc (NkStorage    *storage,
                  NkDType       dtype,
                  int           ndim,
                  const gint64 *shape,
                  const gint64 *stride,
                  gint64        offset)
{
  NkTensor *t = g_new0 (NkTensor, 1);

  g_atomic_ref_count_init (&t->ref_count);
  t->dtype = dtype;
  t->ndim = ndim;
  if (ndim > 0)
    {
      memcpy (t->shape, shape, ndim * sizeof (gint64));
      memcpy (t->stride, stride, ndim * sizeof (gint64));
    }
  t->offset = offset;
  t->storage = nk_storage_ref (storage);
  return t;
}

/**
 * nk_tensor_ref:
 * @tensor: a tensor
 *
 * Takes a reference; thread-safe.
 *
 * Returns: (transfer full): @tensor
 */
NkTensor *
nk_tensor_ref (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  g_atomic_ref_count_inc (&tensor->ref_count);
  return tensor;
}

/**
 * nk_tensor_unref:
 * @tensor: (transfer full): a tensor
 *
 * Drops a reference; the last one frees the tensor, its gradient and autograd
 * node, and its reference on the storage (which other views may keep alive).
 */
void
nk_tensor_unref (NkTensor *tensor)
{
  g_return_if_fail (tensor != NULL);

  if (!g_atomic_ref_count_dec (&tensor->ref_count))
    return;

  if (tensor->autograd_destroy != NULL && tensor->autograd != NULL)
    tensor->autograd_destroy (tensor->autograd);
  g_clear_pointer (&tensor->grad, nk_tensor_unref);
  nk_storage_unref (tensor->storage);
  g_free (tensor);
}

/* ---- construction ---------------------------------------------------------------- */

NkTensor *
_nk_tensor_new_strided (NkDevice      *device,
                        NkDType        dtype,
                        int            ndim,
                        const gint64  *shape,
                        const gint64  *stride,
                        GError       **error)
{
  g_autoptr(NkStorage) storage = NULL;
  gint64 numel;
  gsize es = nk_dtype_element_size (dtype);

  if (!_nk_checked_numel (ndim, shape, &numel, error))
    return NULL;
  if (numel > (gint64) (G_MAXSIZE / 2 / es))
    {
      g_autofree char *s = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_MEMORY,
                   _("A tensor of shape %s does not fit in memory."), s);
      return NULL;
    }
  storage = nk_storage_new (device, (gsize) numel * es, nk_storage_get_default_bucket (), error);
  if (storage == NULL)
    return NULL;
  return _nk_tensor_alloc (storage, dtype, ndim, shape, stride, 0);
}

NkTensor *
nk_tensor_new_full (NkDevice      *device,
                    NkDType        dtype,
                    int            ndim,
                    const gint64  *shape,
                    NkBucket       bucket,
                    gboolean       zeroed,
                    GError       **error)
{
  g_autoptr(NkStorage) storage = NULL;
  g_autoptr(GError) local_error = NULL;
  gint64 stride[NK_MAX_DIMS];
  gint64 numel;
  gsize es;

  g_return_val_if_fail (dtype < NK_N_DTYPES && nk_dtype_info (dtype)->is_storage, NULL);
  g_return_val_if_fail (ndim >= 0 && ndim <= NK_MAX_DIMS, NULL);
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);
  g_return_val_if_fail (bucket < NK_N_BUCKETS, NULL);

  es = nk_dtype_element_size (dtype);
  if (!_nk_checked_numel (ndim, shape, &numel, error))
    return NULL;
  if (numel > (gint64) (G_MAXSIZE / 2 / es))
    {
      g_autofree char *s = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_MEMORY,
                   _("A tensor of shape %s does not fit in memory."), s);
      return NULL;
    }
  if (zeroed)
    storage = nk_storage_new_zeroed (device, (gsize) numel * es, bucket, &local_error);
  else
    storage = nk_storage_new (device, (gsize) numel * es, bucket, &local_error);
  if (storage == NULL)
    {
      g_autofree char *s = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_MEMORY,
                   _("Cannot allocate a %s tensor of shape %s: %s"),
                   nk_dtype_info (dtype)->name, s, local_error->message);
      return NULL;
    }
  _nk_contiguous_strides (ndim, shape, stride);
  return _nk_tensor_alloc (storage, dtype, ndim, shape, stride, 0);
}

/**
 * nk_tensor_empty:
 * @dtype: a storage dtype (not TF32)
 * @ndim: number of dims (0..NK_MAX_DIMS)
 * @shape: (array length=ndim): sizes (≥ 0)
 * @error: return location for a #GError
 *
 * A fresh contiguous tensor whose elements are not initialised (torch.empty), on
 * the thread's default device, its bytes counted in the thread's default bucket
 * (nk_storage_get_default_bucket()).
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NkTensor *
nk_tensor_empty (NkDType        dtype,
                 int            ndim,
                 const gint64  *shape,
                 GError       **error)
{
  return nk_tensor_new_full (NULL, dtype, ndim, shape, nk_storage_get_default_bucket (),
                             FALSE, error);
}

/**
 * nk_tensor_zeros:
 * @dtype: a storage dtype (not TF32)
 * @ndim: number of dims (0..NK_MAX_DIMS)
 * @shape: (array length=ndim): sizes (≥ 0)
 * @error: return location for a #GError
 *
 * As nk_tensor_empty(), every element 0.
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NkTensor *
nk_tensor_zeros (NkDType        dtype,
                 int            ndim,
                 const gint64  *shape,
                 GError       **error)
{
  return nk_tensor_new_full (NULL, dtype, ndim, shape, nk_storage_get_default_bucket (),
                             TRUE, error);
}

/**
 * nk_tensor_full:
 * @dtype: a storage dtype (not TF32)
 * @ndim: number of dims (0..NK_MAX_DIMS)
 * @shape: (array length=ndim): sizes (≥ 0)
 * @value: every element's value, rounded once to @dtype
 * @error: return location for a #GError
 *
 * As nk_tensor_empty(), every element @value (torch.full).
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NkTensor *
nk_tensor_full (NkDType        dtype,
                int            ndim,
                const gint64  *shape,
                double         value,
                GError       **error)
{
  g_autoptr(NkTensor) t = nk_tensor_empty (dtype, ndim, shape, error);
  NkIter it = { 0 };
  NkDevice *device;

  if (t == NULL)
    return NULL;
  /* A fresh tensor is one dense run: the device fills it without the strided
   * iterator (nk_tensor_fill_ in nk-ops handles any view). */
  it.numel = nk_tensor_numel (t);
  if (it.numel == 0)
    return g_steal_pointer (&t);
  it.ndim = 1;
  it.shape[0] = it.numel;
  it.stride[0][0] = 1;
  device = nk_tensor_get_device (t);
  if (!nk_device_get_ops (device)->fill (nk_device_get_backend (device), &it, dtype,
                                         nk_storage_get_data (t->storage), value, error))
    return NULL;
  return g_steal_pointer (&t);
}

/**
 * nk_tensor_ones:
 * @dtype: a storage dtype (not TF32)
 * @ndim: number of dims (0..NK_MAX_DIMS)
 * @shape: (array length=ndim): sizes (≥ 0)
 * @error: return location for a #GError
 *
 * As nk_tensor_empty(), every element 1.
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NkTensor *
nk_tensor_ones (NkDType        dtype,
                int            ndim,
                const gint64  *shape,
                GError       **error)
{
  return nk_tensor_full (dtype, ndim, shape, 1.0, error);
}

/**
 * nk_tensor_empty_like:
 * @like: a tensor
 * @error: return location for a #GError
 *
 * A fresh contiguous tensor of @like's shape and dtype on @like's device,
 * uninitialised (@like's strides are not copied).
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NkTensor *
nk_tensor_empty_like (NkTensor  *like,
                      GError   **error)
{
  g_return_val_if_fail (like != NULL, NULL);

  return nk_tensor_new_full (nk_tensor_get_device (like), like->dtype, like->ndim,
                             like->shape, nk_storage_get_default_bucket (), FALSE, error);
}

/**
 * nk_tensor_zeros_like:
 * @like: a tensor
 * @error: return location for a #GError
 *
 * As nk_tensor_empty_like(), every element 0.
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NkTensor *
nk_tensor_zeros_like (NkTensor  *like,
                      GError   **error)
{
  g_return_val_if_fail (like != NULL, NULL);

  return nk_tensor_new_full (nk_tensor_get_device (like), like->dtype, like->ndim,
                             like->shape, nk_storage_get_default_bucket (), TRUE, error);
}

/* A contiguous tensor on the default device holding @values (0, 1, ... when %NULL),
 * each rounded to @dtype. Encoded on the host: in place on the CPU, else in a
 * staging buffer that one copy moves to the device. */
static NkTensor *
new_from_values (NkDType        dtype,
                 int            ndim,
                 const gint64  *shape,
                 const double  *values,
                 GError       **error)
{
  NkDevice *device = nk_device_get_default ();
  gboolean on_host = nk_device_get_kind (device) == NK_DEVICE_CPU;
  g_autoptr(NkTensor) t = NULL;
  g_autofree char *staging = NULL;
  gint64 numel;
  gsize es, nbytes;
  char *data;

  t = nk_tensor_new_full (device, dtype, ndim, shape, nk_storage_get_default_bucket (),
                          FALSE, error);
  if (t == NULL)
    return NULL;
  numel = nk_tensor_numel (t);
  es = nk_dtype_element_size (dtype);
  nbytes = nk_tensor_nbytes (t);
  if (numel == 0)
    return g_steal_pointer (&t);
  data = on_host ? nk_storage_get_data (t->storage) : (staging = g_try_malloc (nbytes));
  if (data == NULL)
    {
      g_autofree char *s = nk_format_shape (ndim, shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_MEMORY,
                   _("Cannot allocate host memory to fill a tensor of shape %s."), s);
      return NULL;
    }
  for (gint64 i = 0; i < numel; i++)
    nk_dtype_store_double (dtype, data + i * es, values != NULL ? values[i] : (double) i);
  if (!on_host && !nk_device_copy (device, NK_COPY_HOST_TO_DEVICE,
                                   nk_storage_get_data (t->storage), staging, nbytes, error))
    return NULL;
  return g_steal_pointer (&t);
}

NkTensor *
nk_tensor_arange (NkDType   dtype,
                  gint64    n,
                  GError  **error)
{
  if (n < 0)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("arange(%" PRId64 ") needs a non-negative length."), n);
      return NULL;
    }
  return new_from_values (dtype, NK_SHAPE (n), NULL, error);
}

NkTensor *
nk_tensor_new_from_data (NkDType        dtype,
                         int            ndim,
                         const gint64  *shape,
                         gconstpointer  data,
                         GError       **error)
{
  g_autoptr(NkTensor) t = NULL;
  NkDevice *device = nk_device_get_default ();

  t = nk_tensor_new_full (device, dtype, ndim, shape, nk_storage_get_default_bucket (), FALSE, error);
  if (t == NULL)
    return NULL;
  if (!nk_device_copy (device, NK_COPY_HOST_TO_DEVICE, nk_storage_get_data (t->storage), data,
                       nk_tensor_nbytes (t), error))
    return NULL;
  return g_steal_pointer (&t);
}

NkTensor *
nk_tensor_new_from_doubles (NkDType        dtype,
                            int            ndim,
                            const gint64  *shape,
                            const double  *values,
                            GError       **error)
{
  return new_from_values (dtype, ndim, shape, values, error);
}

/* Largest storage index + 1 reached by a layout (strides ≥ 0), or 0 for an empty
 * one; -1 when it does not fit in a gint64. */
static gint64
layout_extent (int           ndim,
               const gint64 *shape,
               const gint64 *stride,
               gint64        offset)
{
  gint64 last = offset, step;

  for (int d = 0; d < ndim; d++)
    if (shape[d] == 0)
      return 0;
  for (int d = 0; d < ndim; d++)
    if (__builtin_mul_overflow (shape[d] - 1, stride[d], &step) ||
        __builtin_add_overflow (last, step, &last))
      return -1;
  if (__builtin_add_overflow (last, 1, &last))
    return -1;
  return last;
}

gboolean
_nk_check_in_storage (NkStorage     *storage,
                      NkDType        dtype,
                      int            ndim,
                      const gint64  *shape,
                      const gint64  *stride,
                      gint64         offset,
                      GError       **error)
{
  gsize es = nk_dtype_element_size (dtype);
  gint64 storage_numel = (gint64) (nk_storage_get_nbytes (storage));
  gint64 needed = 0;
  gboolean empty = FALSE;

  for (int d = 0; d < ndim; d++)
    {
      if (stride[d] < 0)
        {
          g_autofree char *st = _nk_format_list (ndim, stride);
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                       _("as_strided: Negative strides are not supported at the moment, got strides: %s"), st);
          return FALSE;
        }
      if (shape[d] == 0)
        empty = TRUE;
    }
  if (offset < 0)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                   _("Tensor: invalid storage offset %" PRId64), offset);
      return FALSE;
    }
  if (empty)
    return TRUE;

  /* In bytes, as PyTorch's checkInBoundsForStorage reports it. */
  needed = layout_extent (ndim, shape, stride, offset);
  if (needed < 0 || __builtin_mul_overflow (needed, (gint64) es, &needed))
    {
      g_autofree char *sh = _nk_format_list (ndim, shape);
      g_autofree char *st = _nk_format_list (ndim, stride);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                   _("Storage size calculation overflowed with sizes=%s and strides=%s "
                     "(storage offset %" PRId64 ")"), sh, st, offset);
      return FALSE;
    }
  if (needed > storage_numel)
    {
      g_autofree char *sh = _nk_format_list (ndim, shape);
      g_autofree char *st = _nk_format_list (ndim, stride);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                   _("setStorage: sizes %s, strides %s, storage offset %" PRId64
                     ", and itemsize %zu requiring a storage size of %"
                     PRId64 " are out of bounds for storage of size %" PRId64),
                   sh, st, offset, es, needed, storage_numel);
      return FALSE;
    }
  return TRUE;
}

NkTensor *
nk_tensor_new_view (NkStorage     *storage,
                    NkDType        dtype,
                    int            ndim,
                    const gint64  *shape,
                    const gint64  *stride,
                    gint64         offset,
                    GError       **error)
{
  /* zeroed: GCC -O3 cannot see that a 0-dim tensor reads none of it */
  gint64 cstride[NK_MAX_DIMS] = { 0 };
  gint64 numel;

  g_return_val_if_fail (storage != NULL, NULL);
  g_return_val_if_fail (dtype < NK_N_DTYPES && nk_dtype_info (dtype)->is_storage, NULL);
  g_return_val_if_fail (ndim >= 0 && ndim <= NK_MAX_DIMS, NULL);

  if (!_nk_checked_numel (ndim, shape, &numel, error))
    return NULL;
  if (stride == NULL)
    {
      _nk_contiguous_strides (ndim, shape, cstride);
      stride = cstride;
    }
  if (!_nk_check_in_storage (storage, dtype, ndim, shape, stride, offset, error))
    return NULL;
  return _nk_tensor_alloc (storage, dtype, ndim, shape, stride, offset);
}

/* ---- metadata -------------------------------------------------------------------- */

/**
 * nk_tensor_numel:
 * @tensor: a tensor
 *
 * The number of elements: the product of the sizes (1 for a 0-D tensor).
 *
 * Returns: the count
 */
gint64
nk_tensor_numel (NkTensor *tensor)
{
  gint64 n = 1;

  g_return_val_if_fail (tensor != NULL, 0);

  for (int d = 0; d < tensor->ndim; d++)
    n *= tensor->shape[d];
  return n;
}

/**
 * nk_tensor_element_size:
 * @tensor: a tensor
 *
 * Bytes per element of the tensor's dtype (PyTorch's x.element_size()).
 *
 * Returns: the bytes
 */
gsize
nk_tensor_element_size (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, 0);
  return nk_dtype_element_size (tensor->dtype);
}

/**
 * nk_tensor_nbytes:
 * @tensor: a tensor
 *
 * numel · element size: the bytes the elements take when contiguous. A view's
 * storage may hold more (a slice) or fewer (an expanded view repeats elements).
 *
 * Returns: the bytes
 */
gsize
nk_tensor_nbytes (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, 0);
  return (gsize) nk_tensor_numel (tensor) * nk_dtype_element_size (tensor->dtype);
}

/**
 * nk_tensor_size:
 * @tensor: a tensor
 * @dim: a dim (negative counts from the end); programmer error if out of range
 *
 * The size along @dim (PyTorch's x.size(dim)).
 *
 * Returns: the size
 */
gint64
nk_tensor_size (NkTensor *tensor,
                int       dim)
{
  int d;

  g_return_val_if_fail (tensor != NULL, 0);
  g_return_val_if_fail (tensor->ndim > 0 && _nk_wrap_dim (dim, tensor->ndim, &d, NULL), 0);
  return tensor->shape[d];
}

/**
 * nk_tensor_get_stride:
 * @tensor: a tensor
 * @dim: a dim (negative counts from the end); programmer error if out of range
 *
 * The stride along @dim in elements (PyTorch's x.stride(dim)).
 *
 * Returns: the stride
 */
gint64
nk_tensor_get_stride (NkTensor *tensor,
                      int       dim)
{
  int d;

  g_return_val_if_fail (tensor != NULL, 0);
  g_return_val_if_fail (tensor->ndim > 0 && _nk_wrap_dim (dim, tensor->ndim, &d, NULL), 0);
  return tensor->stride[d];
}

/**
 * nk_tensor_get_device:
 * @tensor: a tensor
 *
 * The device of the tensor's storage.
 *
 * Returns: (transfer none): the device
 */
NkDevice *
nk_tensor_get_device (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return nk_storage_get_device (tensor->storage);
}

/**
 * nk_tensor_is_contiguous:
 * @tensor: a tensor
 *
 * Whether the strides are the row-major ones of the shape; size-1 dims may have
 * any stride and an empty tensor is contiguous, as in PyTorch.
 *
 * Returns: %TRUE when contiguous
 */
gboolean
nk_tensor_is_contiguous (NkTensor *tensor)
{
  gint64 expected = 1;

  g_return_val_if_fail (tensor != NULL, FALSE);

  if (nk_tensor_numel (tensor) == 0)
    return TRUE;
  for (int d = tensor->ndim - 1; d >= 0; d--)
    {
      if (tensor->shape[d] == 1)
        continue;
      if (tensor->stride[d] != expected)
        return FALSE;
      expected *= tensor->shape[d];
    }
  return TRUE;
}

/**
 * nk_tensor_same_storage:
 * @a: a tensor
 * @b: another tensor
 *
 * Whether the two are views of one storage, so a write through one may show
 * through the other.
 *
 * Returns: %TRUE when they share a storage
 */
gboolean
nk_tensor_same_storage (NkTensor *a,
                        NkTensor *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  return a->storage == b->storage;
}

/**
 * nk_tensor_same_shape:
 * @a: a tensor
 * @b: another tensor
 *
 * Whether the two have the same number of dims and sizes (strides may differ).
 *
 * Returns: %TRUE when the shapes are equal
 */
gboolean
nk_tensor_same_shape (NkTensor *a,
                      NkTensor *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  return a->ndim == b->ndim && memcmp (a->shape, b->shape, a->ndim * sizeof (gint64)) == 0;
}

gint64
nk_tensor_storage_numel (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, 0);

  return (gint64) (nk_storage_get_nbytes (tensor->storage) / nk_tensor_element_size (tensor));
}

/* [first byte, last byte + 1) of the storage that @t's elements occupy. */
static gboolean
byte_range (NkTensor *t,
            gint64   *lo,
            gint64   *hi)
{
  gint64 es = (gint64) nk_tensor_element_size (t);
  gint64 last = t->offset;

  for (int d = 0; d < t->ndim; d++)
    {
      if (t->shape[d] == 0)
        return FALSE;
      last += (t->shape[d] - 1) * t->stride[d];
    }
  *lo = t->offset * es;
  *hi = (last + 1) * es;
  return TRUE;
}

gboolean
_nk_tensor_check_writable (NkTensor  *tensor,
                           GError   **error)
{
  for (int d = 0; d < tensor->ndim; d++)
    if (tensor->stride[d] == 0 && tensor->shape[d] > 1)
      {
        g_autofree char *layout = nk_tensor_format_layout (tensor);
        g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                     _("unsupported operation: more than one element of the written-to tensor "
                       "refers to a single memory location. Please clone() the tensor before "
                       "performing the operation. (%s)"), layout);
        return FALSE;
      }
  return TRUE;
}

gboolean
_nk_tensor_may_overlap (NkTensor *a,
                        NkTensor *b)
{
  gint64 alo, ahi, blo, bhi;

  if (a->storage != b->storage || !byte_range (a, &alo, &ahi) || !byte_range (b, &blo, &bhi))
    return FALSE;
  return alo < bhi && blo < ahi;
}

gboolean
_nk_tensor_same_layout (NkTensor *a,
                        NkTensor *b)
{
  if (a->storage != b->storage || a->dtype != b->dtype || a->offset != b->offset ||
      a->ndim != b->ndim)
    return FALSE;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->stride[d] != b->stride[d]))
      return FALSE;
  return TRUE;
}

/* ---- elements -------------------------------------------------------------------- */

static gboolean
resolve_index (NkTensor      *tensor,
               const gint64  *index,
               gint64        *out_pos,
               GError       **error)
{
  gint64 pos = tensor->offset;

  for (int d = 0; d < tensor->ndim; d++)
    {
      gint64 i = index[d], size = tensor->shape[d];
      if (i < -size || i >= size)
        {
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                       _("index %" PRId64 " is out of bounds for dimension %d with size %"
                         PRId64), i, d, size);
          return FALSE;
        }
      if (i < 0)
        i += size;
      pos += i * tensor->stride[d];
    }
  *out_pos = pos;
  return TRUE;
}

/**
 * nk_tensor_storage_index:
 * @tensor: a tensor
 * @index: (array): @tensor->ndim indices, not checked beyond g_return
 *
 * The storage index of an element, offset + Σ index[d]·stride[d]: the rule at
 * the top of nk-tensor.h, for teaching UIs and tests.
 *
 * Returns: the index into the storage, in elements
 */
gint64
nk_tensor_storage_index (NkTensor      *tensor,
                         const gint64  *index)
{
  gint64 pos;

  g_return_val_if_fail (tensor != NULL, -1);

  pos = tensor->offset;
  for (int d = 0; d < tensor->ndim; d++)
    pos += index[d] * tensor->stride[d];
  return pos;
}

gboolean
nk_tensor_get_item (NkTensor      *tensor,
                    const gint64  *index,
                    double        *out_value,
                    GError       **error)
{
  NkDevice *device;
  gsize es;
  gint64 pos;
  guint64 bits = 0;

  g_return_val_if_fail (tensor != NULL && out_value != NULL, FALSE);
  g_return_val_if_fail (tensor->ndim == 0 || index != NULL, FALSE);

  if (!resolve_index (tensor, index, &pos, error))
    return FALSE;
  device = nk_tensor_get_device (tensor);
  es = nk_tensor_element_size (tensor);
  if (!nk_device_copy (device, NK_COPY_DEVICE_TO_HOST, &bits,
                       (char *) nk_storage_get_data (tensor->storage) + pos * es, es, error))
    return FALSE;
  *out_value = nk_dtype_load_double (tensor->dtype, &bits);
  return TRUE;
}

/**
 * nk_tensor_set_item:
 * @tensor: a tensor
 * @index: (array): @tensor->ndim indices (negative count from the end)
 * @value: the value, rounded once to the dtype
 * @error: return location for a #GError (NK_TENSOR_ERROR_INDEX)
 *
 * Writes one element; the write shows through every view of the storage (via the
 * device for non-CPU tensors: slow, for tests and UI).
 *
 * Returns: %TRUE on success
 */
gboolean
nk_tensor_set_item (NkTensor      *tensor,
                    const gint64  *index,
                    double         value,
                    GError       **error)
{
  NkDevice *device;
  gsize es;
  gint64 pos;
  guint64 bits = 0;

  g_return_val_if_fail (tensor != NULL, FALSE);
  g_return_val_if_fail (tensor->ndim == 0 || index != NULL, FALSE);

  if (!resolve_index (tensor, index, &pos, error))
    return FALSE;
  device = nk_tensor_get_device (tensor);
  es = nk_tensor_element_size (tensor);
  nk_dtype_store_double (tensor->dtype, &bits, value);
  return nk_device_copy (device, NK_COPY_HOST_TO_DEVICE,
                         (char *) nk_storage_get_data (tensor->storage) + pos * es, &bits, es,
                         error);
}

/**
 * nk_tensor_item:
 * @tensor: a tensor with one element (any ndim)
 * @out_value: (out): the element, decoded exactly
 * @error: return location for a #GError (NK_TENSOR_ERROR_SHAPE with PyTorch's
 *   words when the tensor has more or fewer elements)
 *
 * The only element of a one-element tensor (PyTorch's x.item()).
 *
 * Returns: %TRUE on success
 */
gboolean
nk_tensor_item (NkTensor  *tensor,
                double    *out_value,
                GError   **error)
{
  gint64 zeros[NK_MAX_DIMS] = { 0 };

  g_return_val_if_fail (tensor != NULL, FALSE);

  if (nk_tensor_numel (tensor) != 1)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("a Tensor with %" PRId64 " elements cannot be converted to Scalar"),
                   nk_tensor_numel (tensor));
      return FALSE;
    }
  return nk_tensor_get_item (tensor, zeros, out_value, error);
}

double *
nk_tensor_to_doubles (NkTensor *tensor,
                      gsize    *out_n)
{
  g_autofree char *staging = NULL;
  gint64 numel, lo = 0, hi = 0, idx[NK_MAX_DIMS] = { 0 };
  NkDevice *device;
  double *values;
  const char *base;
  gsize es;

  g_return_val_if_fail (tensor != NULL, NULL);

  numel = nk_tensor_numel (tensor);
  values = g_new (double, MAX (numel, 1));
  if (out_n)
    *out_n = (gsize) numel;
  if (!byte_range (tensor, &lo, &hi))
    return values;

  /* Off the CPU, bring over the bytes the elements span and read them in place
   * (bounded by the storage; a strided view may span more than it holds). */
  device = nk_tensor_get_device (tensor);
  base = (const char *) nk_storage_get_data (tensor->storage) + lo;
  if (nk_device_get_kind (device) != NK_DEVICE_CPU)
    {
      g_autoptr(GError) error = NULL;

      staging = g_malloc ((gsize) (hi - lo));
      if (!nk_device_copy (device, NK_COPY_DEVICE_TO_HOST, staging, base, (gsize) (hi - lo),
                           &error))
        {
          g_critical ("Cannot read a tensor back from %s: %s", nk_device_get_name (device),
                      error->message);
          g_free (values);
          return NULL;
        }
      base = staging;
    }
  es = nk_tensor_element_size (tensor);
  for (gint64 i = 0; i < numel; i++)
    {
      gint64 pos = 0;
      for (int d = 0; d < tensor->ndim; d++)
        pos += idx[d] * tensor->stride[d];
      values[i] = nk_dtype_load_double (tensor->dtype, base + pos * es);
      for (int d = tensor->ndim - 1; d >= 0; d--)
        {
          if (++idx[d] < tensor->shape[d])
            break;
          idx[d] = 0;
        }
    }
  return values;
}

gpointer
nk_tensor_data (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  if (nk_device_get_kind (nk_tensor_get_device (tensor)) != NK_DEVICE_CPU)
    return NULL;
  return (char *) nk_storage_get_data (tensor->storage) +
         tensor->offset * (gint64) nk_tensor_element_size (tensor);
}

/**
 * nk_tensor_data_f32: (skip)
 * @tensor: a float32 tensor on the CPU (programmer error otherwise)
 *
 * nk_tensor_data() typed for float32. Skipped for bindings: a raw pointer into
 * the storage.
 *
 * Returns: (transfer none) (nullable): the address of element (0, ..., 0)
 */
float *
nk_tensor_data_f32 (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL && tensor->dtype == NK_DTYPE_F32, NULL);
  return nk_tensor_data (tensor);
}

/**
 * nk_tensor_data_f64: (skip)
 * @tensor: a float64 tensor on the CPU (programmer error otherwise)
 *
 * nk_tensor_data() typed for float64. Skipped for bindings: a raw pointer into
 * the storage.
 *
 * Returns: (transfer none) (nullable): the address of element (0, ..., 0)
 */
double *
nk_tensor_data_f64 (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL && tensor->dtype == NK_DTYPE_F64, NULL);
  return nk_tensor_data (tensor);
}

/* ---- autograd slots -------------------------------------------------------------- */

/**
 * nk_tensor_set_requires_grad:
 * @tensor: a tensor
 * @requires_grad: whether autograd records the ops that read this tensor
 *
 * Marks a leaf for gradients (PyTorch's x.requires_grad_()).
 */
void
nk_tensor_set_requires_grad (NkTensor *tensor,
                             gboolean  requires_grad)
{
  g_return_if_fail (tensor != NULL);
  tensor->requires_grad = !!requires_grad;
}

/**
 * nk_tensor_get_requires_grad:
 * @tensor: a tensor
 *
 * Whether autograd records the ops that read this tensor.
 *
 * Returns: the flag
 */
gboolean
nk_tensor_get_requires_grad (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, FALSE);
  return tensor->requires_grad;
}

/**
 * nk_tensor_get_grad:
 * @tensor: a tensor
 *
 * The gradient backward accumulated into this tensor (PyTorch's x.grad).
 *
 * Returns: (transfer none) (nullable): the gradient, or %NULL before any backward
 */
NkTensor *
nk_tensor_get_grad (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return tensor->grad;
}

/**
 * nk_tensor_set_grad:
 * @tensor: a tensor
 * @grad: (nullable): the new gradient; %NULL clears it
 *
 * Replaces the gradient, taking a new reference on @grad (zero_grad sets %NULL).
 */
void
nk_tensor_set_grad (NkTensor *tensor,
                    NkTensor *grad)
{
  g_return_if_fail (tensor != NULL);

  if (grad != NULL)
    nk_tensor_ref (grad);
  g_clear_pointer (&tensor->grad, nk_tensor_unref);
  tensor->grad = grad;
}

void
nk_tensor_set_autograd (NkTensor       *tensor,
                        gpointer        data,
                        GDestroyNotify  destroy)
{
  gpointer old;
  GDestroyNotify old_destroy;

  g_return_if_fail (tensor != NULL);

  old = tensor->autograd;
  old_destroy = tensor->autograd_destroy;
  tensor->autograd = data;
  tensor->autograd_destroy = destroy;
  if (old != NULL && old_destroy != NULL && old != data)
    old_destroy (old);
}

/**
 * nk_tensor_get_autograd: (skip)
 * @tensor: a tensor
 *
 * The slot nk_tensor_set_autograd() filled. Skipped for bindings: autograd's own
 * opaque node.
 *
 * Returns: (transfer none) (nullable): the node
 */
gpointer
nk_tensor_get_autograd (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return tensor->autograd;
}
