/* nk-ops-copy.c: copies between layouts, dtypes and devices, and the reshapes that
 * fall back to one
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include "nk-device-impl.h"
#include "nk-iter-private.h"
#include "nk-ops.h"
#include "nk-tensor-private.h"

NkTensor *
nk_tensor_clone (NkTensor  *tensor,
                 GError   **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (tensor != NULL, NULL);

  out = nk_tensor_new_full (nk_tensor_get_device (tensor), tensor->dtype, tensor->ndim,
                            tensor->shape, nk_storage_get_default_bucket (), FALSE, error);
  if (out == NULL || !nk_tensor_copy_ (out, tensor, error))
    return NULL;
  return g_steal_pointer (&out);
}

NkTensor *
nk_tensor_contiguous (NkTensor  *tensor,
                      GError   **error)
{
  g_return_val_if_fail (tensor != NULL, NULL);

  if (nk_tensor_is_contiguous (tensor))
    return nk_tensor_ref (tensor);
  return nk_tensor_clone (tensor, error);
}

static gboolean
check_broadcast_to (NkTensor  *dst,
                    NkTensor  *src,
                    GError   **error)
{
  int lead = dst->ndim - src->ndim;

  if (lead >= 0)
    {
      gboolean ok = TRUE;
      for (int d = 0; d < src->ndim && ok; d++)
        ok = src->shape[d] == 1 || src->shape[d] == dst->shape[d + lead];
      if (ok)
        return TRUE;
    }
  {
    g_autofree char *a = nk_format_shape (src->ndim, src->shape);
    g_autofree char *b = nk_format_shape (dst->ndim, dst->shape);
    g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                 _("A tensor of shape %s cannot be broadcast to shape %s."), a, b);
  }
  return FALSE;
}

gboolean
nk_tensor_copy_ (NkTensor  *dst,
                 NkTensor  *src,
                 GError   **error)
{
  NkDevice *ddev, *sdev;
  gint64 sstride[NK_MAX_DIMS];
  const gint64 *strides[2];
  gint64 offsets[2];
  NkIter it;

  g_return_val_if_fail (dst != NULL && src != NULL, FALSE);

  if (!check_broadcast_to (dst, src, error) || !_nk_tensor_check_writable (dst, error))
    return FALSE;
  /* A source that shares some bytes with @dst without being the same layout would be
   * read after parts of it were overwritten (PyTorch refuses: "some elements of the
   * input tensor and the written-to tensor refer to a single memory location").
   * Copying it first gives the answer the caller meant. */
  if (_nk_tensor_may_overlap (dst, src) && !_nk_tensor_same_layout (dst, src))
    {
      g_autoptr(NkTensor) snapshot = nk_tensor_clone (src, error);
      if (snapshot == NULL)
        return FALSE;
      return nk_tensor_copy_ (dst, snapshot, error);
    }

  ddev = nk_tensor_get_device (dst);
  sdev = nk_tensor_get_device (src);
  if (ddev != sdev)
    {
      /* Across devices: make a dense copy in @dst's dtype on @src's device, move
       * its bytes, then copy on @dst's device into @dst's layout. */
      g_autoptr(NkTensor) staged = NULL;
      g_autoptr(NkTensor) landed = NULL;
      gboolean to_host = nk_device_get_kind (ddev) == NK_DEVICE_CPU;
      NkDevice *mover = to_host ? sdev : ddev;

      if (nk_device_get_kind (ddev) != NK_DEVICE_CPU && nk_device_get_kind (sdev) != NK_DEVICE_CPU)
        {
          g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DEVICE,
                       _("Cannot copy directly from %s to %s."),
                       nk_device_get_name (sdev), nk_device_get_name (ddev));
          return FALSE;
        }
      staged = nk_cast (src, dst->dtype, error);
      if (staged == NULL)
        return FALSE;
      if (!nk_tensor_is_contiguous (staged))
        {
          NkTensor *c = nk_tensor_clone (staged, error);
          if (c == NULL)
            return FALSE;
          nk_tensor_unref (staged);
          staged = c;
        }
      landed = nk_tensor_new_full (ddev, dst->dtype, staged->ndim, staged->shape,
                                   nk_storage_get_default_bucket (), FALSE, error);
      if (landed == NULL)
        return FALSE;
      if (!nk_device_copy (mover, to_host ? NK_COPY_DEVICE_TO_HOST : NK_COPY_HOST_TO_DEVICE,
                           (char *) nk_storage_get_data (landed->storage),
                           (char *) nk_storage_get_data (staged->storage) +
                             staged->offset * nk_tensor_element_size (staged),
                           nk_tensor_nbytes (staged), error))
        return FALSE;
      return nk_tensor_copy_ (dst, landed, error);
    }

  _nk_broadcast_strides (src, dst->ndim, dst->shape, sstride);
  strides[0] = dst->stride;
  strides[1] = sstride;
  offsets[0] = dst->offset;
  offsets[1] = src->offset;
  _nk_iter_init (&it, dst->ndim, dst->shape, 2, strides, offsets);
  if (it.numel == 0)
    return TRUE;
  return nk_device_get_ops (ddev)->cast (nk_device_get_backend (ddev), &it,
                                         dst->dtype, nk_storage_get_data (dst->storage),
                                         src->dtype, nk_storage_get_data (src->storage), error);
}

gboolean
nk_tensor_fill_ (NkTensor  *tensor,
                 double     value,
                 GError   **error)
{
  NkDevice *device;
  const gint64 *strides[1];
  gint64 offsets[1];
  NkIter it;

  g_return_val_if_fail (tensor != NULL, FALSE);

  device = nk_tensor_get_device (tensor);
  strides[0] = tensor->stride;
  offsets[0] = tensor->offset;
  _nk_iter_init (&it, tensor->ndim, tensor->shape, 1, strides, offsets);
  if (it.numel == 0)
    return TRUE;
  /* Writing one value through stride 0 is harmless, so expanded views may be filled. */
  return nk_device_get_ops (device)->fill (nk_device_get_backend (device), &it, tensor->dtype,
                                           nk_storage_get_data (tensor->storage), value, error);
}

NkTensor *
nk_tensor_to_device (NkTensor  *tensor,
                     NkDevice  *device,
                     GError   **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (tensor != NULL && device != NULL, NULL);

  if (nk_tensor_get_device (tensor) == device)
    return nk_tensor_ref (tensor);
  out = nk_tensor_new_full (device, tensor->dtype, tensor->ndim, tensor->shape,
                            nk_storage_get_bucket (tensor->storage), FALSE, error);
  if (out == NULL || !nk_tensor_copy_ (out, tensor, error))
    return NULL;
  return g_steal_pointer (&out);
}

/* A dense copy of @a in @dtype whose dim order follows @a's strides (what
 * nk-ops.c's elementwise ops allocate for one input). */
NkTensor *
nk_cast (NkTensor  *a,
         NkDType    dtype,
         GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  gint64 a_stride[NK_MAX_DIMS], out_stride[NK_MAX_DIMS];
  const gint64 *strides[1] = { a_stride };

  g_return_val_if_fail (a != NULL, NULL);
  g_return_val_if_fail (dtype < NK_N_DTYPES && nk_dtype_info (dtype)->is_storage, NULL);

  if (a->dtype == dtype)
    return nk_tensor_ref (a);
  _nk_broadcast_strides (a, a->ndim, a->shape, a_stride);
  _nk_dense_strides_like (a->ndim, a->shape, 1, strides, out_stride);
  out = _nk_tensor_new_strided (nk_tensor_get_device (a), dtype, a->ndim, a->shape, out_stride, error);
  if (out == NULL || !nk_tensor_copy_ (out, a, error))
    return NULL;
  return g_steal_pointer (&out);
}

/* ---- reshapes that may copy ------------------------------------------------------ */

NkTensor *
nk_tensor_reshape (NkTensor      *tensor,
                   int            ndim,
                   const gint64  *shape,
                   GError       **error)
{
  gint64 newshape[NK_MAX_DIMS];
  g_autoptr(NkTensor) copy = NULL;
  NkTensor *view = NULL;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!_nk_tensor_try_view (tensor, ndim, shape, newshape, &view, error))
    return NULL;
  if (view != NULL)
    return view;

  copy = nk_tensor_clone (tensor, error);
  if (copy == NULL)
    return NULL;
  return nk_tensor_view (copy, ndim, newshape, error);
}

NkTensor *
nk_tensor_flatten (NkTensor  *tensor,
                   int        start_dim,
                   int        end_dim,
                   GError   **error)
{
  gint64 shape[NK_MAX_DIMS];
  int s, e, n = 0;

  g_return_val_if_fail (tensor != NULL, NULL);

  if (!_nk_wrap_dim (start_dim, tensor->ndim, &s, error) ||
      !_nk_wrap_dim (end_dim, tensor->ndim, &e, error))
    return NULL;
  if (s > e)
    {
      g_set_error_literal (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX,
                           _("flatten() has invalid args: start_dim cannot come after end_dim"));
      return NULL;
    }
  if (tensor->ndim == 0)
    return nk_tensor_reshape (tensor, NK_SHAPE (1), error);
  if (s == e)
    return nk_tensor_alias (tensor);
  for (int i = 0; i < s; i++)
    shape[n++] = tensor->shape[i];
  /* No overflow: the sizes of an existing tensor multiply within a gint64. */
  shape[n] = 1;
  for (int i = s; i <= e; i++)
    shape[n] *= tensor->shape[i];
  n++;
  for (int i = e + 1; i < tensor->ndim; i++)
    shape[n++] = tensor->shape[i];
  return nk_tensor_reshape (tensor, n, shape, error);
}
