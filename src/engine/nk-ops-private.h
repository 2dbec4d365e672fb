/* nk-ops-private.h: iteration layouts shared by nk-tensor.c and nk-ops.c
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-tensor.h"

G_BEGIN_DECLS

/* Fills @it for @nops (≤ 3) operands over @shape: dims reordered so the smallest
 * strides run innermost (PyTorch's TensorIterator order, output first), size-1 dims
 * dropped, and adjacent dims merged where every operand allows it. */
void      _nk_iter_init          (NkIter          *it,
                                  int              ndim,
                                  const gint64    *shape,
                                  int              nops,
                                  const gint64    *const strides[],
                                  const gint64    *offsets);

/* The strides a fresh dense output gets when it follows the dim order of the
 * inputs' strides (so x.t() + 1 has x.t()'s strides, as in PyTorch). */
void      _nk_dense_strides_like (int              ndim,
                                  const gint64    *shape,
                                  int              nin,
                                  const gint64    *const strides[],
                                  gint64          *out_strides);

/* @t's strides aligned to @shape (which @t must broadcast to): 0 on broadcast dims. */
void      _nk_broadcast_strides  (NkTensor        *t,
                                  int              ndim,
                                  const gint64    *shape,
                                  gint64          *out_strides);

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

G_END_DECLS
