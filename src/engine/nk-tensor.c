/* nk-tensor.c: shape / stride / offset views over a storage
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "nk-device-private.h"
#include "nk-tensor.h"
#include "nk-tensor-private.h"

G_DEFINE_QUARK (nk-tensor-error-quark, nk_tensor_error)

G_DEFINE_BOXED_TYPE (NkTensor, nk_tensor, nk_tensor_ref, nk_tensor_unref)

/* ---- helpers --------------------------------------------------------------------- */

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

/* PyTorch's "[3, 4]" spelling, used where we quote its messages. */
static char *
format_list (int           ndim,
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

static gboolean
checked_numel (int            ndim,
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

static void
contiguous_strides (int           ndim,
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

/* The one constructor every view goes through: takes a new ref on @storage. */
static NkTensor *
tensor_alloc (NkStorage    *storage,
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

NkTensor *
nk_tensor_ref (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  g_atomic_ref_count_inc (&tensor->ref_count);
  return tensor;
}

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

  if (!checked_numel (ndim, shape, &numel, error))
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
  return tensor_alloc (storage, dtype, ndim, shape, stride, 0);
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

  g_return_val_if_fail (dtype < NK_N_DTYPES && dtype != NK_DTYPE_TF32, NULL);
  g_return_val_if_fail (ndim >= 0 && ndim <= NK_MAX_DIMS, NULL);
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);
  g_return_val_if_fail (bucket < NK_N_BUCKETS, NULL);

  es = nk_dtype_element_size (dtype);
  if (!checked_numel (ndim, shape, &numel, error))
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
  contiguous_strides (ndim, shape, stride);
  return tensor_alloc (storage, dtype, ndim, shape, stride, 0);
}

NkTensor *
nk_tensor_empty (NkDType        dtype,
                 int            ndim,
                 const gint64  *shape,
                 GError       **error)
{
  return nk_tensor_new_full (NULL, dtype, ndim, shape, nk_storage_get_default_bucket (),
                             FALSE, error);
}

NkTensor *
nk_tensor_zeros (NkDType        dtype,
                 int            ndim,
                 const gint64  *shape,
                 GError       **error)
{
  return nk_tensor_new_full (NULL, dtype, ndim, shape, nk_storage_get_default_bucket (),
                             TRUE, error);
}

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

NkTensor *
nk_tensor_ones (NkDType        dtype,
                int            ndim,
                const gint64  *shape,
                GError       **error)
{
  return nk_tensor_full (dtype, ndim, shape, 1.0, error);
}

NkTensor *
nk_tensor_empty_like (NkTensor  *like,
                      GError   **error)
{
  g_return_val_if_fail (like != NULL, NULL);

  return nk_tensor_new_full (nk_tensor_get_device (like), like->dtype, like->ndim,
                             like->shape, nk_storage_get_default_bucket (), FALSE, error);
}

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
    _nk_cpu_store_double (dtype, data + i * es, values != NULL ? values[i] : (double) i);
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

static gboolean
check_in_storage (NkStorage     *storage,
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
          g_autofree char *st = format_list (ndim, stride);
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
      g_autofree char *sh = format_list (ndim, shape);
      g_autofree char *st = format_list (ndim, stride);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                   _("Storage size calculation overflowed with sizes=%s and strides=%s "
                     "(storage offset %" PRId64 ")"), sh, st, offset);
      return FALSE;
    }
  if (needed > storage_numel)
    {
      g_autofree char *sh = format_list (ndim, shape);
      g_autofree char *st = format_list (ndim, stride);
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
  gint64 cstride[NK_MAX_DIMS];
  gint64 numel;

  g_return_val_if_fail (storage != NULL, NULL);
  g_return_val_if_fail (dtype < NK_N_DTYPES && dtype != NK_DTYPE_TF32, NULL);
  g_return_val_if_fail (ndim >= 0 && ndim <= NK_MAX_DIMS, NULL);

  if (!checked_numel (ndim, shape, &numel, error))
    return NULL;
  if (stride == NULL)
    {
      contiguous_strides (ndim, shape, cstride);
      stride = cstride;
    }
  if (!check_in_storage (storage, dtype, ndim, shape, stride, offset, error))
    return NULL;
  return tensor_alloc (storage, dtype, ndim, shape, stride, offset);
}

/* ---- metadata -------------------------------------------------------------------- */

gint64
nk_tensor_numel (NkTensor *tensor)
{
  gint64 n = 1;

  g_return_val_if_fail (tensor != NULL, 0);

  for (int d = 0; d < tensor->ndim; d++)
    n *= tensor->shape[d];
  return n;
}

gsize
nk_tensor_element_size (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, 0);
  return nk_dtype_element_size (tensor->dtype);
}

gsize
nk_tensor_nbytes (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, 0);
  return (gsize) nk_tensor_numel (tensor) * nk_dtype_element_size (tensor->dtype);
}

gint64
nk_tensor_size (NkTensor *tensor,
                int       dim)
{
  int d;

  g_return_val_if_fail (tensor != NULL, 0);
  g_return_val_if_fail (tensor->ndim > 0 && _nk_wrap_dim (dim, tensor->ndim, &d, NULL), 0);
  return tensor->shape[d];
}

gint64
nk_tensor_get_stride (NkTensor *tensor,
                      int       dim)
{
  int d;

  g_return_val_if_fail (tensor != NULL, 0);
  g_return_val_if_fail (tensor->ndim > 0 && _nk_wrap_dim (dim, tensor->ndim, &d, NULL), 0);
  return tensor->stride[d];
}

NkDevice *
nk_tensor_get_device (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return nk_storage_get_device (tensor->storage);
}

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

gboolean
nk_tensor_same_storage (NkTensor *a,
                        NkTensor *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  return a->storage == b->storage;
}

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

/* ---- views ----------------------------------------------------------------------- */

static NkTensor *
view_of (NkTensor     *t,
         int           ndim,
         const gint64 *shape,
         const gint64 *stride,
         gint64        offset)
{
  return tensor_alloc (t->storage, t->dtype, ndim, shape, stride, offset);
}

NkTensor *
nk_tensor_alias (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return view_of (tensor, tensor->ndim, tensor->shape, tensor->stride, tensor->offset);
}

NkTensor *
nk_tensor_select (NkTensor  *tensor,
                  int        dim,
                  gint64     index,
                  GError   **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  gint64 size;
  int d, n = 0;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (tensor->ndim == 0)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                           _("select() cannot be applied to a 0-dim tensor."));
      return NULL;
    }
  if (!_nk_wrap_dim (dim, tensor->ndim, &d, error))
    return NULL;
  size = tensor->shape[d];
  if (index < -size || index >= size)
    {
      g_autofree char *s = format_list (tensor->ndim, tensor->shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                   _("select(): index %" PRId64 " out of range for tensor of size %s at dimension %d"),
                   index, s, d);
      return NULL;
    }
  if (index < 0)
    index += size;
  for (int i = 0; i < tensor->ndim; i++)
    if (i != d)
      {
        shape[n] = tensor->shape[i];
        stride[n] = tensor->stride[i];
        n++;
      }
  return view_of (tensor, n, shape, stride, tensor->offset + index * tensor->stride[d]);
}

NkTensor *
nk_tensor_narrow (NkTensor  *tensor,
                  int        dim,
                  gint64     start,
                  gint64     length,
                  GError   **error)
{
  gint64 shape[NK_MAX_DIMS];
  gint64 size;
  int d;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (tensor->ndim == 0)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                           _("narrow() cannot be applied to a 0-dim tensor."));
      return NULL;
    }
  if (!_nk_wrap_dim (dim, tensor->ndim, &d, error))
    return NULL;
  size = tensor->shape[d];
  if (length < 0)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                           _("narrow(): length must be non-negative."));
      return NULL;
    }
  if (start < -size || start > size)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                   _("start out of range (expected to be in range of [%" PRId64
                     ", %" PRId64 "], but got %" PRId64 ")"),
                   -size, size, start);
      return NULL;
    }
  if (start < 0)
    start += size;
  if (start + length > size)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                   _("start (%" PRId64 ") + length (%" PRId64
                     ") exceeds dimension size (%" PRId64 ")."),
                   start, length, size);
      return NULL;
    }
  memcpy (shape, tensor->shape, sizeof shape);
  shape[d] = length;
  return view_of (tensor, tensor->ndim, shape, tensor->stride,
                  tensor->offset + start * tensor->stride[d]);
}

NkTensor *
nk_tensor_slice (NkTensor  *tensor,
                 int        dim,
                 gint64     start,
                 gint64     stop,
                 gint64     step,
                 GError   **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  gint64 size, len;
  int d;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (tensor->ndim == 0)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                           _("slice() cannot be applied to a 0-dim tensor."));
      return NULL;
    }
  if (!_nk_wrap_dim (dim, tensor->ndim, &d, error))
    return NULL;
  if (step <= 0)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                           step == 0 ? _("slice step cannot be zero")
                                     : _("step must be greater than zero"));
      return NULL;
    }
  size = tensor->shape[d];
  /* Python's clamping: out-of-range bounds shrink the slice instead of failing. */
  if (start < 0)
    start = MAX (start + size, 0);
  if (stop < 0)
    stop = MAX (stop + size, 0);
  start = MIN (start, size);
  stop = MIN (stop, size);
  /* ceil((stop - start) / step) without adding step to a size, which wraps for
   * steps near 2^63. */
  len = stop > start ? (stop - start - 1) / step + 1 : 0;

  memcpy (shape, tensor->shape, sizeof shape);
  memcpy (stride, tensor->stride, sizeof stride);
  shape[d] = len;
  if (__builtin_mul_overflow (tensor->stride[d], step, &stride[d]))
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                   _("slice: stride %" PRId64 " times step %" PRId64
                     " overflows a 64-bit integer"), tensor->stride[d], step);
      return NULL;
    }
  return view_of (tensor, tensor->ndim, shape, stride,
                  tensor->offset + start * tensor->stride[d]);
}

/* What infer_sizes() found wrong with a list of sizes. */
typedef enum {
  SIZES_OK,
  SIZES_TWO_INFERRED,
  SIZES_NEGATIVE,
  SIZES_AMBIGUOUS,
  SIZES_MISMATCH,
} SizesCheck;

/* Replaces a -1 in @shape by the size that keeps @numel (PyTorch's infer_size). The
 * product saturates instead of wrapping, and a -1 beside a 0 is never divided out:
 * with @numel 0 it could be any size. @bad is the offending size for the errors. */
static SizesCheck
infer_sizes (int            ndim,
             const gint64  *shape,
             gint64         numel,
             gint64        *out,
             gint64        *bad)
{
  gint64 prod = 1;
  int infer = -1;

  for (int d = 0; d < ndim; d++)
    {
      out[d] = shape[d];
      if (shape[d] == -1)
        {
          if (infer >= 0)
            return SIZES_TWO_INFERRED;
          infer = d;
        }
      else if (shape[d] < 0)
        {
          *bad = shape[d];
          return SIZES_NEGATIVE;
        }
      else
        prod = (shape[d] != 0 && prod > G_MAXINT64 / shape[d]) ? G_MAXINT64 : prod * shape[d];
    }

  if (infer < 0)
    return numel == prod ? SIZES_OK : SIZES_MISMATCH;
  if (prod == 0)
    return numel == 0 ? SIZES_AMBIGUOUS : SIZES_MISMATCH;
  if (numel % prod != 0)
    return SIZES_MISMATCH;
  out[infer] = numel / prod;
  return SIZES_OK;
}

static void
set_ambiguous_error (int            ndim,
                     const gint64  *shape,
                     GError       **error)
{
  g_autofree char *s = format_list (ndim, shape);

  g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
               _("cannot reshape tensor of 0 elements into shape %s because the unspecified "
                 "dimension size -1 can be any value and is ambiguous"), s);
}

/* infer_sizes() with PyTorch's errors for view and reshape. */
static gboolean
infer_size (int            ndim,
            const gint64  *shape,
            gint64         numel,
            gint64        *out,
            GError       **error)
{
  gint64 bad = 0;

  switch (infer_sizes (ndim, shape, numel, out, &bad))
    {
    case SIZES_OK:
      return TRUE;
    case SIZES_TWO_INFERRED:
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                           _("only one dimension can be inferred"));
      return FALSE;
    case SIZES_NEGATIVE:
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("invalid shape dimension %" PRId64), bad);
      return FALSE;
    case SIZES_AMBIGUOUS:
      set_ambiguous_error (ndim, shape, error);
      return FALSE;
    case SIZES_MISMATCH:
    default:
      {
        g_autofree char *s = format_list (ndim, shape);
        g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                     _("shape '%s' is invalid for input of size %" PRId64), s, numel);
      }
      return FALSE;
    }
}

/* PyTorch's computeStride: the strides of @newshape over @t's memory, if every
 * group of old dims that merges or splits is itself contiguous. */
static gboolean
compute_view_strides (NkTensor     *t,
                      int           new_ndim,
                      const gint64 *newshape,
                      gint64       *newstride)
{
  gint64 oldshape_buf[1] = { 1 }, oldstride_buf[1] = { 1 };
  const gint64 *oldshape = t->shape, *oldstride = t->stride;
  int old_ndim = t->ndim;
  gint64 numel = nk_tensor_numel (t);
  gint64 chunk_base_stride, tensor_numel = 1, view_numel = 1;
  int view_d;

  if (old_ndim == 0)
    {
      old_ndim = 1;
      oldshape = oldshape_buf;
      oldstride = oldstride_buf;
    }

  if (numel == 0)
    {
      if (old_ndim == new_ndim && memcmp (oldshape, newshape, new_ndim * sizeof (gint64)) == 0)
        memcpy (newstride, oldstride, new_ndim * sizeof (gint64));
      else
        contiguous_strides (new_ndim, newshape, newstride);
      return TRUE;
    }

  view_d = new_ndim - 1;
  chunk_base_stride = oldstride[old_ndim - 1];
  for (int tensor_d = old_ndim - 1; tensor_d >= 0; tensor_d--)
    {
      tensor_numel *= oldshape[tensor_d];
      if (tensor_d == 0 ||
          (oldshape[tensor_d - 1] != 1 &&
           oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride))
        {
          while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1))
            {
              newstride[view_d] = view_numel * chunk_base_stride;
              view_numel *= newshape[view_d];
              view_d--;
            }
          if (view_numel != tensor_numel)
            return FALSE;
          if (tensor_d > 0)
            {
              chunk_base_stride = oldstride[tensor_d - 1];
              tensor_numel = 1;
              view_numel = 1;
            }
        }
    }
  return view_d == -1;
}

static gboolean
check_ndim (int       ndim,
            GError  **error)
{
  if (ndim < 0 || ndim > NK_MAX_DIMS)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A tensor has at most %d dimensions, not %d."), NK_MAX_DIMS, ndim);
      return FALSE;
    }
  return TRUE;
}

gboolean
_nk_tensor_try_view (NkTensor      *tensor,
                     int            ndim,
                     const gint64  *shape,
                     gint64        *out_shape,
                     NkTensor     **out_view,
                     GError       **error)
{
  gint64 newstride[NK_MAX_DIMS];
  gint64 numel;

  g_return_val_if_fail (tensor != NULL && out_view != NULL, FALSE);

  *out_view = NULL;
  /* An empty tensor takes any sizes with a 0 in them: their strides must fit. */
  if (!check_ndim (ndim, error) ||
      !infer_size (ndim, shape, nk_tensor_numel (tensor), out_shape, error) ||
      !checked_numel (ndim, out_shape, &numel, error))
    return FALSE;
  if (compute_view_strides (tensor, ndim, out_shape, newstride))
    *out_view = view_of (tensor, ndim, out_shape, newstride, tensor->offset);
  return TRUE;
}

NkTensor *
nk_tensor_view (NkTensor      *tensor,
                int            ndim,
                const gint64  *shape,
                GError       **error)
{
  gint64 newshape[NK_MAX_DIMS];
  NkTensor *view = NULL;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!_nk_tensor_try_view (tensor, ndim, shape, newshape, &view, error))
    return NULL;
  if (view == NULL)
    {
      g_autofree char *layout = nk_tensor_format_layout (tensor);
      g_autofree char *want = nk_format_shape (ndim, newshape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE,
                   _("view size is not compatible with input tensor's size and stride (at "
                     "least one dimension spans across two contiguous subspaces). Use "
                     ".reshape(...) instead. (input %s; requested shape %s)"),
                   layout, want);
    }
  return view;
}

NkTensor *
nk_tensor_transpose (NkTensor  *tensor,
                     int        dim0,
                     int        dim1,
                     GError   **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  int a, b;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!_nk_wrap_dim (dim0, tensor->ndim, &a, error) ||
      !_nk_wrap_dim (dim1, tensor->ndim, &b, error))
    return NULL;
  if (tensor->ndim == 0)
    return nk_tensor_alias (tensor);
  memcpy (shape, tensor->shape, sizeof shape);
  memcpy (stride, tensor->stride, sizeof stride);
  shape[a] = tensor->shape[b];
  shape[b] = tensor->shape[a];
  stride[a] = tensor->stride[b];
  stride[b] = tensor->stride[a];
  return view_of (tensor, tensor->ndim, shape, stride, tensor->offset);
}

NkTensor *
nk_tensor_t (NkTensor  *tensor,
             GError   **error)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  if (tensor->ndim > 2)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("t() expects a tensor with <= 2 dimensions, but self is %dD"), tensor->ndim);
      return NULL;
    }
  if (tensor->ndim < 2)
    return nk_tensor_alias (tensor);
  return nk_tensor_transpose (tensor, 0, 1, error);
}

NkTensor *
nk_tensor_permute (NkTensor   *tensor,
                   int         ndim,
                   const int  *dims,
                   GError    **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  gboolean seen[NK_MAX_DIMS] = { FALSE };

  g_return_val_if_fail (tensor != NULL, NULL);

  if (ndim != tensor->ndim)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("permute(): number of dimensions in the tensor input does not match the "
                     "length of the desired ordering of dimensions i.e. input.dim() = %d is not "
                     "equal to len(dims) = %d"), tensor->ndim, ndim);
      return NULL;
    }
  for (int i = 0; i < ndim; i++)
    {
      int d;
      if (!_nk_wrap_dim (dims[i], ndim, &d, error))
        return NULL;
      if (seen[d])
        {
          g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                               _("permute(): duplicate dims are not allowed."));
          return NULL;
        }
      seen[d] = TRUE;
      shape[i] = tensor->shape[d];
      stride[i] = tensor->stride[d];
    }
  return view_of (tensor, ndim, shape, stride, tensor->offset);
}

NkTensor *
nk_tensor_expand (NkTensor      *tensor,
                  int            ndim,
                  const gint64  *shape,
                  GError       **error)
{
  gint64 newshape[NK_MAX_DIMS], newstride[NK_MAX_DIMS];
  int lead;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!check_ndim (ndim, error))
    return NULL;
  if (ndim < tensor->ndim)
    {
      g_autofree char *want = format_list (ndim, shape);
      g_autofree char *have = format_list (tensor->ndim, tensor->shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("expand: the number of sizes provided (%d) must be greater or equal to "
                     "the number of dimensions in the tensor (%d). Target sizes: %s.  Tensor sizes: %s"),
                   ndim, tensor->ndim, want, have);
      return NULL;
    }
  lead = ndim - tensor->ndim;
  for (int d = 0; d < ndim; d++)
    {
      if (d < lead)
        {
          if (shape[d] < 0)
            {
              g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                           _("The expanded size of the tensor (%" PRId64 ") isn't "
                             "allowed in a leading, non-existing dimension %d"), shape[d], d);
              return NULL;
            }
          newshape[d] = shape[d];
          newstride[d] = 0;
          continue;
        }
      {
        gint64 have = tensor->shape[d - lead];
        gint64 want = shape[d] == -1 ? have : shape[d];

        if (want == have)
          {
            newshape[d] = have;
            newstride[d] = tensor->stride[d - lead];
          }
        else if (have == 1 && want >= 0)
          {
            newshape[d] = want;
            newstride[d] = 0;
          }
        else
          {
            g_autofree char *ts = format_list (ndim, shape);
            g_autofree char *hs = format_list (tensor->ndim, tensor->shape);
            g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                         _("The expanded size of the tensor (%" PRId64 ") must match the "
                           "existing size (%" PRId64 ") at non-singleton dimension %d.  "
                           "Target sizes: %s.  Tensor sizes: %s"),
                         want, have, d, ts, hs);
            return NULL;
          }
      }
    }
  {
    gint64 numel;
    if (!checked_numel (ndim, newshape, &numel, error))
      return NULL;
  }
  return view_of (tensor, ndim, newshape, newstride, tensor->offset);
}

NkTensor *
nk_tensor_unsqueeze (NkTensor  *tensor,
                     int        dim,
                     GError   **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  int d, n = tensor->ndim;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (n + 1 > NK_MAX_DIMS)
    {
      check_ndim (n + 1, error);
      return NULL;
    }
  if (dim < -(n + 1) || dim > n)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                   _("Dimension out of range (expected to be in range of [%d, %d], but got %d)"),
                   -(n + 1), n, dim);
      return NULL;
    }
  d = dim < 0 ? dim + n + 1 : dim;
  for (int i = 0, j = 0; i <= n; i++)
    {
      if (i == d)
        {
          shape[i] = 1;
          stride[i] = d >= n ? 1 : tensor->shape[d] * tensor->stride[d];
          continue;
        }
      shape[i] = tensor->shape[j];
      stride[i] = tensor->stride[j];
      j++;
    }
  return view_of (tensor, n + 1, shape, stride, tensor->offset);
}

NkTensor *
nk_tensor_squeeze (NkTensor  *tensor,
                   int        dim,
                   GError   **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  int d, n = 0;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!_nk_wrap_dim (dim, tensor->ndim, &d, error))
    return NULL;
  if (tensor->ndim == 0 || tensor->shape[d] != 1)
    return nk_tensor_alias (tensor);
  for (int i = 0; i < tensor->ndim; i++)
    if (i != d)
      {
        shape[n] = tensor->shape[i];
        stride[n] = tensor->stride[i];
        n++;
      }
  return view_of (tensor, n, shape, stride, tensor->offset);
}

NkTensor *
nk_tensor_squeeze_all (NkTensor *tensor)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  int n = 0;

  g_return_val_if_fail (tensor != NULL, NULL);

  for (int i = 0; i < tensor->ndim; i++)
    if (tensor->shape[i] != 1)
      {
        shape[n] = tensor->shape[i];
        stride[n] = tensor->stride[i];
        n++;
      }
  return view_of (tensor, n, shape, stride, tensor->offset);
}

NkTensor *
nk_tensor_unflatten (NkTensor      *tensor,
                     int            dim,
                     int            ndim,
                     const gint64  *sizes,
                     GError       **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS], split[NK_MAX_DIMS];
  gint64 numel, bad;
  int d, n;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!_nk_wrap_dim (dim, tensor->ndim, &d, error))
    return NULL;
  if (tensor->ndim == 0 || ndim < 1)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                           _("unflatten: sizes must be non-empty"));
      return NULL;
    }
  if (!check_ndim (tensor->ndim - 1 + ndim, error))
    return NULL;
  switch (infer_sizes (ndim, sizes, tensor->shape[d], split, &bad))
    {
    case SIZES_OK:
      break;
    case SIZES_AMBIGUOUS:
      set_ambiguous_error (ndim, sizes, error);
      return NULL;
    default:
      {
        g_autofree char *s = format_list (ndim, sizes);
        g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                     _("unflatten: Provided sizes %s don't multiply up to the size of dim %d (%"
                       PRId64 ") in the input tensor"), s, d, tensor->shape[d]);
      }
      return NULL;
    }

  /* Old dims before and after @d keep their strides; the split dims nest inside
   * @d's stride. */
  for (int i = 0; i < tensor->ndim; i++)
    {
      int at = i < d ? i : i + ndim - 1;
      shape[at] = tensor->shape[i];
      stride[at] = tensor->stride[i];
    }
  memcpy (shape + d, split, ndim * sizeof (gint64));
  n = tensor->ndim - 1 + ndim;
  /* Zeros among the split sizes could make the sizes beside them anything: check the
   * new shape like any other, and give an empty result PyTorch's view strides. */
  if (!checked_numel (n, shape, &numel, error))
    return NULL;
  if (numel == 0 && ndim > 1)
    contiguous_strides (n, shape, stride);
  else
    for (int i = d + ndim - 1; i >= d; i--)
      stride[i] = i == d + ndim - 1 ? tensor->stride[d] : stride[i + 1] * shape[i + 1];
  return view_of (tensor, n, shape, stride, tensor->offset);
}

NkTensor *
nk_tensor_diagonal (NkTensor  *tensor,
                    gint64     offset,
                    int        dim1,
                    int        dim2,
                    GError   **error)
{
  gint64 shape[NK_MAX_DIMS], stride[NK_MAX_DIMS];
  gint64 size, storage_offset;
  int a, b, n = 0;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (tensor->ndim < 2)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("diagonal() needs at least 2 dimensions, but the tensor has %d"), tensor->ndim);
      return NULL;
    }
  if (!_nk_wrap_dim (dim1, tensor->ndim, &a, error) ||
      !_nk_wrap_dim (dim2, tensor->ndim, &b, error))
    return NULL;
  if (a == b)
    {
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("diagonal dimensions cannot be identical %d, %d"), dim1, dim2);
      return NULL;
    }
  storage_offset = tensor->offset;
  if (offset >= 0)
    size = MAX (MIN (tensor->shape[a], tensor->shape[b] - offset), 0);
  else
    size = MAX (MIN (tensor->shape[a] + offset, tensor->shape[b]), 0);
  if (size > 0)
    {
      if (offset >= 0)
        storage_offset += offset * tensor->stride[b];
      else
        storage_offset -= offset * tensor->stride[a];
    }
  for (int i = 0; i < tensor->ndim; i++)
    if (i != a && i != b)
      {
        shape[n] = tensor->shape[i];
        stride[n] = tensor->stride[i];
        n++;
      }
  shape[n] = size;
  stride[n] = tensor->stride[a] + tensor->stride[b];
  n++;
  return view_of (tensor, n, shape, stride, storage_offset);
}

NkTensor *
nk_tensor_as_strided (NkTensor      *tensor,
                      int            ndim,
                      const gint64  *shape,
                      const gint64  *stride,
                      gint64         offset,
                      GError       **error)
{
  gint64 numel;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!check_ndim (ndim, error) || !checked_numel (ndim, shape, &numel, error))
    return NULL;
  if (offset == -1)
    offset = tensor->offset;
  if (!check_in_storage (tensor->storage, tensor->dtype, ndim, shape, stride, offset, error))
    return NULL;
  return view_of (tensor, ndim, shape, stride, offset);
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
  *out_value = _nk_cpu_load_double (tensor->dtype, &bits);
  return TRUE;
}

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
  _nk_cpu_store_double (tensor->dtype, &bits, value);
  return nk_device_copy (device, NK_COPY_HOST_TO_DEVICE,
                         (char *) nk_storage_get_data (tensor->storage) + pos * es, &bits, es,
                         error);
}

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
      values[i] = _nk_cpu_load_double (tensor->dtype, base + pos * es);
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

float *
nk_tensor_data_f32 (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL && tensor->dtype == NK_DTYPE_F32, NULL);
  return nk_tensor_data (tensor);
}

double *
nk_tensor_data_f64 (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL && tensor->dtype == NK_DTYPE_F64, NULL);
  return nk_tensor_data (tensor);
}

/* ---- autograd slots -------------------------------------------------------------- */

void
nk_tensor_set_requires_grad (NkTensor *tensor,
                             gboolean  requires_grad)
{
  g_return_if_fail (tensor != NULL);
  tensor->requires_grad = !!requires_grad;
}

gboolean
nk_tensor_get_requires_grad (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, FALSE);
  return tensor->requires_grad;
}

NkTensor *
nk_tensor_get_grad (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return tensor->grad;
}

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

gpointer
nk_tensor_get_autograd (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return tensor->autograd;
}
