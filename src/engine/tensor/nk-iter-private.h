/* nk-iter-private.h: the strided element iterator: how ops walk up to three operands
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Ops describe each operand by its strides over one shared logical shape; these
 * functions turn that into the NkIter the device kernels walk (nk-kernels.h), and
 * choose the layouts of fresh outputs.
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

G_END_DECLS
