/* nk-tensor-private.h: tensor-core internals that the ops build on
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-tensor.h"

G_BEGIN_DECLS

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
