/* nk-tensor.h: shape / stride / offset views over a storage
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * THE LAYOUT
 *
 * A tensor is a storage (a flat array of elements on a device, nk-storage.h) plus
 * metadata that says how to read it:
 *
 *     dtype              the element format (nk-dtype.h)
 *     ndim               0 ≤ ndim ≤ NK_MAX_DIMS (8)
 *     shape[d]           size along dim d
 *     stride[d]          elements to skip in storage to move one step along dim d
 *     offset             storage index of element (0, ..., 0)
 *
 * all counted in ELEMENTS (not bytes), as PyTorch's .size(), .stride() and
 * .storage_offset() report them. Element (i0, i1, ..., ik) lives at storage index
 *
 *     offset + i0·stride[0] + i1·stride[1] + ... + ik·stride[k]
 *
 * and at byte offset (that index)·element_size in the storage.
 *
 * Example: x = arange(16).view(4, 4) is contiguous (row-major):
 *
 *     shape (4, 4)   stride (4, 1)   offset 0
 *
 *     storage  0  1  2  3  4  5 [6] 7  8  9 10 11 12 13 14 15
 *
 *     x[1, 2] is at 0 + 1·4 + 2·1 = 6 (the 7th cell): moving down one row skips
 *     4 elements, moving right one column skips 1.
 *
 * A view is a new NkTensor over the SAME storage with other metadata — nothing is
 * copied, and writing through one is visible through the other:
 *
 *     x.t()          shape (4, 4)   stride (1, 4)   offset 0   (x.t()[2, 1] is at 6)
 *     x[1]           shape (4)      stride (1)      offset 4
 *     x[:, 1]        shape (4)      stride (4)      offset 1
 *     x[::2, 1:3]    shape (2, 2)   stride (8, 1)   offset 1
 *     x.view(2, 8)   shape (2, 8)   stride (8, 1)   offset 0
 *     arange(4).expand(3, 4)        stride (0, 1)   (stride 0: one row read 3 times)
 *
 * A tensor is contiguous when its strides are the row-major ones of its shape
 * (size-1 dims may have any stride, as in PyTorch). view() needs strides it can
 * express without moving data, so x.t().view(16) fails (PyTorch's reason: "view size
 * is not compatible with input tensor's size and stride ...") and
 * x.t().contiguous().view(16) works: contiguous() copies into a new storage (copies
 * are ops, nk-ops.h: the tensor core itself only describes layouts).
 *
 * OWNERSHIP AND ERRORS
 *
 * NkTensor is a refcounted boxed type (nk_tensor_ref/unref, g_autoptr(NkTensor)).
 * Every function that makes a tensor returns a new reference (transfer full), also
 * for views. Invalid views and out-of-range indices are GErrors in NK_TENSOR_ERROR,
 * one sentence naming the shapes/strides involved; passing NULL or an out-of-range
 * dtype is a programmer error (g_return_val_if_fail).
 *
 * Dims are int and may be negative (counted from the end, like PyTorch); sizes and
 * indices are gint64. Shapes are passed as (ndim, const gint64 *shape); the NK_SHAPE()
 * macro writes both: nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (4, 4), &error).
 *
 * The struct is public for fast reads (ops, autograd, the strides page); treat its
 * fields as read-only and use the functions below to make new layouts.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-dtype.h"
#include "nk-kernels.h"
#include "nk-storage.h"

G_BEGIN_DECLS

#define NK_TENSOR_ERROR (nk_tensor_error_quark ())

/**
 * NkTensorError:
 * @NK_TENSOR_ERROR_SHAPE: shapes/sizes that do not fit (view, reshape, broadcast,
 *   matmul mismatch, numel mismatch)
 * @NK_TENSOR_ERROR_INDEX: an index or dim out of range
 * @NK_TENSOR_ERROR_STRIDE: a layout that the strides cannot express (view of a
 *   non-viewable layout, as_strided outside the storage)
 * @NK_TENSOR_ERROR_DTYPE: an op that does not accept the dtype(s)
 * @NK_TENSOR_ERROR_DEVICE: operands on different devices, or the device failed
 * @NK_TENSOR_ERROR_MEMORY: the allocation failed
 *
 * Why a tensor or an op was refused; the message is one sentence naming the
 * shapes, strides or indices involved (PyTorch's words where it has them).
 */
typedef enum {
  NK_TENSOR_ERROR_SHAPE,
  NK_TENSOR_ERROR_INDEX,
  NK_TENSOR_ERROR_STRIDE,
  NK_TENSOR_ERROR_DTYPE,
  NK_TENSOR_ERROR_DEVICE,
  NK_TENSOR_ERROR_MEMORY,
} NkTensorError;

NK_AVAILABLE_IN_ALL
GQuark nk_tensor_error_quark (void);

/**
 * NK_SHAPE:
 * @...: the sizes
 *
 * Writes (ndim, shape) for the many functions taking a shape:
 * nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (4, 4), &error). C only.
 */
#define NK_SHAPE(...) \
  ((int) (sizeof ((gint64[]) { __VA_ARGS__ }) / sizeof (gint64))), ((const gint64[]) { __VA_ARGS__ })

/* Slice stop meaning "to the end" (Python's x[a:]). */
#define NK_SLICE_END G_MAXINT64

#define NK_TYPE_TENSOR (nk_tensor_get_type ())

typedef struct _NkTensor NkTensor;

/**
 * NkTensor:
 * @dtype: element format
 * @ndim: number of dims (0 for a scalar)
 * @shape: sizes, @ndim used
 * @stride: strides in elements, @ndim used
 * @offset: storage index of element (0, ..., 0)
 * @storage: the storage (shared by views)
 * @requires_grad: whether autograd records ops on this tensor
 * @grad: (nullable): the accumulated gradient, owned (nk_tensor_set_grad)
 *
 * Read-only in practice; see the top of this file.
 */
struct _NkTensor
{
  /*< private >*/
  gatomicrefcount ref_count;

  /*< public >*/
  NkDType    dtype;
  int        ndim;
  gint64     shape[NK_MAX_DIMS];
  gint64     stride[NK_MAX_DIMS];
  gint64     offset;
  NkStorage *storage;

  gboolean   requires_grad;
  NkTensor  *grad;

  /*< private >*/
  gpointer       autograd;
  GDestroyNotify autograd_destroy;
};

NK_AVAILABLE_IN_ALL
GType       nk_tensor_get_type          (void) G_GNUC_CONST;

NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_ref               (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
void        nk_tensor_unref             (NkTensor       *tensor);

/* ---- construction ---------------------------------------------------------------- */

/**
 * nk_tensor_new_full:
 * @device: (nullable): device, or %NULL for the thread's default (nk_device_get_default)
 * @dtype: a storage dtype (not TF32)
 * @ndim: number of dims (0..NK_MAX_DIMS)
 * @shape: (array length=ndim): sizes (≥ 0)
 * @bucket: the bucket of the new storage
 * @zeroed: fill with zero bytes (0.0 in every format here)
 * @error: return location for a #GError
 *
 * A fresh contiguous tensor with its own storage.
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_new_full          (NkDevice       *device,
                                         NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         NkBucket        bucket,
                                         gboolean        zeroed,
                                         GError        **error);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_empty             (NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_zeros             (NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_ones              (NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_full              (NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         double          value,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_empty_like        (NkTensor       *like,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_zeros_like        (NkTensor       *like,
                                         GError        **error);

/**
 * nk_tensor_arange:
 * @dtype: element format (torch.arange(n) is int64; the lessons use f32)
 * @n: number of elements
 * @error: return location for a #GError
 *
 * The 1-D tensor 0, 1, ..., n-1 (each value rounded to @dtype).
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_arange            (NkDType         dtype,
                                         gint64          n,
                                         GError        **error);

/**
 * nk_tensor_new_from_data: (skip)
 * @dtype: element format of @data
 * @ndim: number of dims
 * @shape: (array length=ndim): sizes
 * @data: numel·element_size bytes in row-major order, copied
 * @error: return location for a #GError
 *
 * A tensor from raw bytes in @dtype's layout. Skipped for bindings, which cannot
 * say how many bytes @data holds; they use nk_tensor_new_from_doubles().
 *
 * Returns: (transfer full) (nullable): a contiguous tensor on the default device
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_new_from_data     (NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         gconstpointer   data,
                                         GError        **error);

/**
 * nk_tensor_new_from_doubles:
 * @dtype: element format (each value rounded once to it, as nk_dtype_encode does)
 * @ndim: number of dims
 * @shape: (array length=ndim): sizes
 * @values: (array): numel values in row-major order
 * @error: return location for a #GError
 *
 * A tensor from values, each rounded once to @dtype (torch.tensor(values).view(shape)).
 *
 * Returns: (transfer full) (nullable): a contiguous tensor on the default device
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_new_from_doubles  (NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         const double   *values,
                                         GError        **error);

/**
 * nk_tensor_new_view:
 * @storage: the storage
 * @dtype: element format
 * @ndim: number of dims
 * @shape: (array length=ndim): sizes
 * @stride: (array length=ndim) (nullable): strides, %NULL for contiguous
 * @offset: storage offset in elements
 * @error: return location for a #GError
 *
 * Any layout over an existing storage (how checkpoints and token files become
 * tensors). Checked: every element must lie inside the storage.
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_new_view          (NkStorage      *storage,
                                         NkDType         dtype,
                                         int             ndim,
                                         const gint64   *shape,
                                         const gint64   *stride,
                                         gint64          offset,
                                         GError        **error);

/* ---- metadata -------------------------------------------------------------------- */

NK_AVAILABLE_IN_ALL
gint64      nk_tensor_numel             (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
gsize       nk_tensor_nbytes            (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
gsize       nk_tensor_element_size      (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
gint64      nk_tensor_size              (NkTensor       *tensor,
                                         int             dim);
NK_AVAILABLE_IN_ALL
gint64      nk_tensor_get_stride        (NkTensor       *tensor,
                                         int             dim);
NK_AVAILABLE_IN_ALL
NkDevice   *nk_tensor_get_device        (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_is_contiguous     (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_same_storage      (NkTensor       *a,
                                         NkTensor       *b);
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_same_shape        (NkTensor       *a,
                                         NkTensor       *b);
/**
 * nk_tensor_storage_numel:
 * @tensor: a tensor
 *
 * How many elements of @tensor's dtype its storage holds: the storage's bytes divided
 * by @tensor's element size (a storage has no dtype of its own; views of one storage
 * in two dtypes get two answers). PyTorch's x.untyped_storage().nbytes() //
 * x.element_size(). Every element of @tensor lies below this index.
 *
 * Returns: the number of elements
 */
NK_AVAILABLE_IN_ALL
gint64      nk_tensor_storage_numel     (NkTensor       *tensor);

/**
 * nk_tensor_format_layout:
 * @tensor: a tensor
 *
 * "shape (4, 4), stride (1, 4), offset 0" — what error messages quote.
 *
 * Returns: (transfer full): the text
 */
NK_AVAILABLE_IN_ALL
char       *nk_tensor_format_layout     (NkTensor       *tensor);

NK_AVAILABLE_IN_ALL
char       *nk_format_shape             (int             ndim,
                                         const gint64   *shape);

/* ---- views (never copy; share the storage) --------------------------------------- */

/* Copies and the reshapes that may copy (nk_tensor_contiguous, _clone, _copy_, _fill_,
 * _to_device, _reshape, _flatten) are ops: nk-ops.h. */

NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_select            (NkTensor       *tensor,
                                         int             dim,
                                         gint64          index,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_narrow            (NkTensor       *tensor,
                                         int             dim,
                                         gint64          start,
                                         gint64          length,
                                         GError        **error);
/**
 * nk_tensor_slice:
 * @tensor: a tensor
 * @dim: the dim
 * @start: first index (negative counts from the end; clamped like Python)
 * @stop: one past the last (NK_SLICE_END for "to the end"; clamped)
 * @step: > 0 (PyTorch refuses negative steps, and so do we)
 * @error: return location for a #GError
 *
 * x[start:stop:step] along @dim: stride·step, offset + start·stride.
 *
 * Returns: (transfer full) (nullable): the view
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_slice             (NkTensor       *tensor,
                                         int             dim,
                                         gint64          start,
                                         gint64          stop,
                                         gint64          step,
                                         GError        **error);

/**
 * nk_tensor_view:
 * @tensor: a tensor
 * @ndim: number of dims of the result
 * @shape: (array length=ndim): sizes; at most one -1 (inferred; refused beside a 0
 *   on an empty tensor, where it could be any size: PyTorch's "cannot reshape tensor
 *   of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be
 *   any value and is ambiguous")
 * @error: return location for a #GError
 *
 * Same data, new shape, without copying. Works whenever each group of old dims that
 * merges or splits is contiguous within itself (PyTorch's computeStride); otherwise
 * NK_TENSOR_ERROR_STRIDE with PyTorch's message: "view size is not compatible with
 * input tensor's size and stride (at least one dimension spans across two contiguous
 * subspaces). Use .reshape(...) instead." followed by the shapes and strides.
 *
 * Returns: (transfer full) (nullable): the view
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_view              (NkTensor       *tensor,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_transpose         (NkTensor       *tensor,
                                         int             dim0,
                                         int             dim1,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_t                 (NkTensor       *tensor,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_permute           (NkTensor       *tensor,
                                         int             ndim,
                                         const int      *dims,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_expand            (NkTensor       *tensor,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_unsqueeze         (NkTensor       *tensor,
                                         int             dim,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_squeeze           (NkTensor       *tensor,
                                         int             dim,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_squeeze_all       (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_unflatten         (NkTensor       *tensor,
                                         int             dim,
                                         int             ndim,
                                         const gint64   *sizes,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_diagonal          (NkTensor       *tensor,
                                         gint64          offset,
                                         int             dim1,
                                         int             dim2,
                                         GError        **error);
/**
 * nk_tensor_as_strided:
 * @tensor: a tensor (its storage is used; its own layout is ignored)
 * @ndim: number of dims
 * @shape: (array length=ndim): sizes (≥ 0)
 * @stride: (array length=ndim): strides (≥ 0)
 * @offset: storage offset (≥ 0), or -1 for @tensor's own offset
 * @error: return location for a #GError
 *
 * Any layout over the same storage. Refused (NK_TENSOR_ERROR_STRIDE) when the
 * largest index reached lies outside the storage, with PyTorch's words:
 * "setStorage: sizes [...], strides [...], storage offset N, and itemsize M requiring
 * a storage size of X are out of bounds for storage of size Y".
 *
 * Returns: (transfer full) (nullable): the view
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_as_strided        (NkTensor       *tensor,
                                         int             ndim,
                                         const gint64   *shape,
                                         const gint64   *stride,
                                         gint64          offset,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_alias             (NkTensor       *tensor);

/* ---- elements -------------------------------------------------------------------- */

/**
 * nk_tensor_get_item:
 * @tensor: a tensor
 * @index: (array): @tensor->ndim indices (negative count from the end)
 * @out_value: (out): the element, decoded exactly to a double
 * @error: return location for a #GError (NK_TENSOR_ERROR_INDEX)
 *
 * Reads one element (via the device for non-CPU tensors: slow, for tests and UI).
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_get_item          (NkTensor       *tensor,
                                         const gint64   *index,
                                         double         *out_value,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_set_item          (NkTensor       *tensor,
                                         const gint64   *index,
                                         double          value,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_item              (NkTensor       *tensor,
                                         double         *out_value,
                                         GError        **error);
NK_AVAILABLE_IN_ALL
gint64      nk_tensor_storage_index     (NkTensor       *tensor,
                                         const gint64   *index);

/**
 * nk_tensor_to_doubles:
 * @tensor: a tensor
 * @out_n: (out) (optional): numel
 *
 * Every element in logical row-major order, decoded exactly.
 *
 * Returns: (transfer full) (array length=out_n): g_free() it
 */
NK_AVAILABLE_IN_ALL
double     *nk_tensor_to_doubles        (NkTensor       *tensor,
                                         gsize          *out_n);

/**
 * nk_tensor_data: (skip)
 * @tensor: a tensor on the CPU
 *
 * The address of element (0, ..., 0): storage data + offset·element_size. CPU code
 * indexes from it with the strides. %NULL for non-CPU tensors. Skipped for
 * bindings: a raw pointer into the storage (nk_tensor_to_doubles() copies).
 *
 * Returns: (transfer none) (nullable): the pointer
 */
NK_AVAILABLE_IN_ALL
gpointer    nk_tensor_data              (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
float      *nk_tensor_data_f32          (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
double     *nk_tensor_data_f64          (NkTensor       *tensor);

/* ---- autograd slots (the tensor core never looks inside) ------------------------- */

NK_AVAILABLE_IN_ALL
void        nk_tensor_set_requires_grad (NkTensor       *tensor,
                                         gboolean        requires_grad);
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_get_requires_grad (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_get_grad          (NkTensor       *tensor);
NK_AVAILABLE_IN_ALL
void        nk_tensor_set_grad          (NkTensor       *tensor,
                                         NkTensor       *grad);
/**
 * nk_tensor_set_autograd: (skip)
 * @tensor: a tensor
 * @data: (nullable): autograd's node for this tensor (grad_fn), opaque here
 * @destroy: (nullable): frees @data when replaced or when the tensor dies
 *
 * The slot autograd attaches its tape to. Views do not inherit it. Skipped for
 * bindings: autograd's own opaque node.
 */
NK_AVAILABLE_IN_ALL
void        nk_tensor_set_autograd      (NkTensor       *tensor,
                                         gpointer        data,
                                         GDestroyNotify  destroy);
NK_AVAILABLE_IN_ALL
gpointer    nk_tensor_get_autograd      (NkTensor       *tensor);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkTensor, nk_tensor_unref)

G_END_DECLS
