/* nk-tensor-views.c: views: new shapes, strides and offsets over the same storage
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "nk-tensor.h"
#include "nk-tensor-private.h"

static NkTensor *
view_of (NkTensor     *t,
         int           ndim,
         const gint64 *shape,
         const gint64 *stride,
         gint64        offset)
{
  return _nk_tensor_alloc (t->storage, t->dtype, ndim, shape, stride, offset);
}

/**
 * nk_tensor_alias:
 * @tensor: a tensor
 *
 * A new #NkTensor with the same layout and storage (x.view_as(x)); never fails.
 *
 * Returns: (transfer full): the view
 */
NkTensor *
nk_tensor_alias (NkTensor *tensor)
{
  g_return_val_if_fail (tensor != NULL, NULL);
  return view_of (tensor, tensor->ndim, tensor->shape, tensor->stride, tensor->offset);
}

/**
 * nk_tensor_select:
 * @tensor: a tensor with at least one dim
 * @dim: the dim (negative counts from the end)
 * @index: the index along @dim (negative counts from the end)
 * @error: return location for a #GError (NK_TENSOR_ERROR_INDEX)
 *
 * x[index] along @dim, which disappears: offset + index·stride[dim].
 *
 * Returns: (transfer full) (nullable): the view
 */
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
      g_autofree char *s = _nk_format_list (tensor->ndim, tensor->shape);
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

/**
 * nk_tensor_narrow:
 * @tensor: a tensor
 * @dim: the dim (negative counts from the end)
 * @start: the first index (negative counts from the end)
 * @length: how many, with start + length ≤ size
 * @error: return location for a #GError
 *
 * x.narrow(dim, start, length): the same dims, @dim cut to @length.
 *
 * Returns: (transfer full) (nullable): the view
 */
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
  g_autofree char *s = _nk_format_list (ndim, shape);

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
        g_autofree char *s = _nk_format_list (ndim, shape);
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
        _nk_contiguous_strides (new_ndim, newshape, newstride);
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
      !_nk_checked_numel (ndim, out_shape, &numel, error))
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

/**
 * nk_tensor_transpose:
 * @tensor: a tensor
 * @dim0: a dim (negative counts from the end)
 * @dim1: another
 * @error: return location for a #GError
 *
 * Swaps two dims by swapping their sizes and strides.
 *
 * Returns: (transfer full) (nullable): the view
 */
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

/**
 * nk_tensor_t:
 * @tensor: a tensor with at most 2 dims
 * @error: return location for a #GError (more dims, as in PyTorch)
 *
 * transpose(0, 1) for 2 dims; a 0-D or 1-D tensor comes back as a view as is.
 *
 * Returns: (transfer full) (nullable): the view
 */
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

/**
 * nk_tensor_permute:
 * @tensor: a tensor
 * @ndim: must equal @tensor's number of dims
 * @dims: (array length=ndim): every dim once; result dim i is input dim dims[i]
 * @error: return location for a #GError
 *
 * The dims reordered (x.permute(dims)).
 *
 * Returns: (transfer full) (nullable): the view
 */
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

/**
 * nk_tensor_expand:
 * @tensor: a tensor
 * @ndim: the number of dims of the result, ≥ @tensor's
 * @shape: (array length=ndim): the sizes; -1 keeps a size and may appear in every
 *   existing dim (not in a new leading one)
 * @error: return location for a #GError
 *
 * Broadcasts size-1 dims (and new leading dims) to @shape with stride 0. No copy:
 * writing to an expanded tensor writes the shared element.
 *
 * Returns: (transfer full) (nullable): the view
 */
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
      g_autofree char *want = _nk_format_list (ndim, shape);
      g_autofree char *have = _nk_format_list (tensor->ndim, tensor->shape);
      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("expand: the number of sizes provided (%d) must be greater or equal to "
                     "the number of dimensions in the tensor (%d). Target sizes: %s.  Tensor sizes: %s"),
                   ndim, tensor->ndim, want, have);
      return NULL;
    }
  /* From the last dim back, as PyTorch's inferExpandGeometry walks, so an error
   * names the same dim its does. */
  lead = ndim - tensor->ndim;
  for (int d = ndim - 1; d >= 0; d--)
    {
      gint64 have = d >= lead ? tensor->shape[d - lead] : 1;
      gint64 want = shape[d];

      if (d < lead && want < 0)
        {
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                       _("The expanded size of the tensor (%" PRId64 ") isn't "
                         "allowed in a leading, non-existing dimension %d"), want, d);
          return NULL;
        }
      if (want == -1)
        want = have;
      if (want != have && (have != 1 || want < 0))
        {
          g_autofree char *ts = _nk_format_list (ndim, shape);
          g_autofree char *hs = _nk_format_list (tensor->ndim, tensor->shape);
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                       _("The expanded size of the tensor (%" PRId64 ") must match the "
                         "existing size (%" PRId64 ") at non-singleton dimension %d.  "
                         "Target sizes: %s.  Tensor sizes: %s"),
                       want, have, d, ts, hs);
          return NULL;
        }
      newshape[d] = want;
      newstride[d] = d >= lead && want == have ? tensor->stride[d - lead] : 0;
    }
  {
    gint64 numel;
    if (!_nk_checked_numel (ndim, newshape, &numel, error))
      return NULL;
  }
  return view_of (tensor, ndim, newshape, newstride, tensor->offset);
}

/**
 * nk_tensor_unsqueeze:
 * @tensor: a tensor
 * @dim: where the new dim goes, −ndim−1 ≤ dim ≤ ndim
 * @error: return location for a #GError
 *
 * Inserts a size-1 dim at @dim.
 *
 * Returns: (transfer full) (nullable): the view
 */
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

/**
 * nk_tensor_squeeze:
 * @tensor: a tensor
 * @dim: the dim (negative counts from the end)
 * @error: return location for a #GError
 *
 * Removes @dim if its size is 1; otherwise the view is unchanged, as in PyTorch.
 *
 * Returns: (transfer full) (nullable): the view
 */
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

/**
 * nk_tensor_squeeze_all:
 * @tensor: a tensor
 *
 * Removes every size-1 dim.
 *
 * Returns: (transfer full): the view
 */
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

/**
 * nk_tensor_unflatten:
 * @tensor: a tensor
 * @dim: the dim to split (negative counts from the end)
 * @ndim: into how many dims
 * @sizes: (array length=ndim): their sizes, whose product is the size of @dim; one
 *   may be -1, as in nk_tensor_view()
 * @error: return location for a #GError
 *
 * Splits @dim into @ndim dims; always a view.
 *
 * Returns: (transfer full) (nullable): the view
 */
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
        g_autofree char *s = _nk_format_list (ndim, sizes);
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
  if (!_nk_checked_numel (n, shape, &numel, error))
    return NULL;
  if (numel == 0 && ndim > 1)
    _nk_contiguous_strides (n, shape, stride);
  else
    for (int i = d + ndim - 1; i >= d; i--)
      stride[i] = i == d + ndim - 1 ? tensor->stride[d] : stride[i + 1] * shape[i + 1];
  return view_of (tensor, n, shape, stride, tensor->offset);
}

/**
 * nk_tensor_diagonal:
 * @tensor: a tensor with at least 2 dims
 * @offset: the diagonal, > 0 above the main one, < 0 below
 * @dim1: the first dim of the matrices
 * @dim2: the second
 * @error: return location for a #GError
 *
 * The diagonal of dims @dim1, @dim2, which are removed and replaced by a last dim
 * with stride = stride[dim1] + stride[dim2].
 *
 * Returns: (transfer full) (nullable): the view
 */
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

  if (!check_ndim (ndim, error) || !_nk_checked_numel (ndim, shape, &numel, error))
    return NULL;
  if (offset == -1)
    offset = tensor->offset;
  if (!_nk_check_in_storage (tensor->storage, tensor->dtype, ndim, shape, stride, offset, error))
    return NULL;
  return view_of (tensor, ndim, shape, stride, offset);
}
