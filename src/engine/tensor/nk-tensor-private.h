/* nk-tensor-private.h: tensor-core internals that the ops build on
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-tensor.h"

G_BEGIN_DECLS

/* The one constructor every tensor and view goes through: takes a new ref on
 * @storage; the layout is the caller's to check. */
NkTensor *_nk_tensor_alloc       (NkStorage       *storage,
                                  NkDType          dtype,
                                  int              ndim,
                                  const gint64    *shape,
                                  const gint64    *stride,
                                  gint64           offset);

/* The number of elements of @shape. Refuses negative sizes, and shapes whose
 * product, or whose contiguous strides' span Π max(size, 1), overflows a gint64:
 * every tensor's sizes pass this, so code may multiply them freely. */
gboolean  _nk_checked_numel      (int              ndim,
                                  const gint64    *shape,
                                  gint64          *out_numel,
                                  GError         **error);

/* Row-major strides of @shape (a size 0 counts as 1, as in PyTorch). */
void      _nk_contiguous_strides (int              ndim,
                                  const gint64    *shape,
                                  gint64          *stride);

/* Refuses negative strides and offsets, and layouts that reach past @storage, with
 * PyTorch's words (an empty layout reaches nothing). */
gboolean  _nk_check_in_storage   (NkStorage       *storage,
                                  NkDType          dtype,
                                  int              ndim,
                                  const gint64    *shape,
                                  const gint64    *stride,
                                  gint64           offset,
                                  GError         **error);

/* PyTorch's "[3, 4]" spelling, used where we quote its messages. */
char     *_nk_format_list        (int              ndim,
                                  const gint64    *v);

/* A new tensor over a fresh storage with the given dense strides. */
NkTensor *_nk_tensor_new_strided (NkDevice        *device,
                                  NkDType          dtype,
                                  int              ndim,
                                  const gint64    *shape,
                                  const gint64    *stride,
                                  GError         **error);

/* Whether @a and @b are on one storage and the byte ranges their elements span
 * intersect (cheap and conservative: interleaved layouts that share no element, like
 * x[:, 0] and x[:, 1], still say TRUE). */
gboolean  _nk_tensor_may_overlap (NkTensor        *a,
                                  NkTensor        *b);

/* Fails, as PyTorch does, when a write through @tensor would store several
 * elements in one memory location (a stride of 0 over a dim longer than 1). */
gboolean  _nk_tensor_check_writable (NkTensor      *tensor,
                                     GError       **error);

/* Whether @a and @b address exactly the same elements in the same order (exact
 * aliasing, which elementwise in-place ops allow). */
gboolean  _nk_tensor_same_layout (NkTensor        *a,
                                  NkTensor        *b);

/* Normalises a possibly negative dim; sets PyTorch's IndexError text on failure. */
gboolean  _nk_wrap_dim           (int              dim,
                                  int              ndim,
                                  int             *out_dim,
                                  GError         **error);

/* nk_tensor_view() for callers that can fall back to a copy (reshape, flatten):
 * FALSE with @error for sizes that do not fit @tensor's numel; else TRUE, the sizes
 * with -1 inferred in @out_shape, and in @out_view the view, or %NULL when @tensor's
 * strides cannot express it. */
gboolean  _nk_tensor_try_view    (NkTensor        *tensor,
                                  int              ndim,
                                  const gint64    *shape,
                                  gint64          *out_shape,
                                  NkTensor       **out_view,
                                  GError         **error);

G_END_DECLS
