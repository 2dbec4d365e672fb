/* nk-einops.h: rearrange, reduce and einsum over named dimensions
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The einops way of saying what a reshape, a permute, a reduction or a matmul does
 * to each dimension, by name instead of by position:
 *
 *     rearrange (x, "b s (heads hidden) -> b heads s hidden", heads=2)
 *     reduce    (x, "... hidden -> ...", "sum")
 *     einsum    (x, y, "b s h, b t h -> b s t")
 *
 * A side of a pattern is a list of axes separated by spaces. An axis is a name, a
 * parenthesised group of names whose sizes multiply to one dimension "(h d)",
 * "..." for every dimension not named, or "1" / "()" for a dimension of size 1.
 * At most one size in a group may be unknown: it is the dimension divided by the
 * others, which must divide it. Sizes are given as (name, size) pairs.
 *
 * rearrange and reduce are a reshape into the elementary axes, a permute (and a
 * reduction over the axes the right side drops), and a reshape into the right
 * side's groups: the result is a view of @x whenever the strides allow it (as
 * PyTorch's reshape), else a copy. einsum sums over every name that is not on the
 * right and goes to batched matmul for two operands.
 *
 * Errors (NK_EINOPS_ERROR) name the pattern, the axis and the sizes involved.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

#include "nk-tensor.h"

G_BEGIN_DECLS

#define NK_EINOPS_ERROR (nk_einops_error_quark ())

/**
 * NkEinopsError:
 * @NK_EINOPS_ERROR_PATTERN: the pattern does not parse, or breaks a rule (an axis
 *   twice, "..." twice, a group inside a group)
 * @NK_EINOPS_ERROR_AXIS: an axis on one side and not the other, or a size given
 *   for a name the pattern does not have
 * @NK_EINOPS_ERROR_SHAPE: the tensor has another number of dimensions than the
 *   pattern, or an axis has two different sizes
 * @NK_EINOPS_ERROR_DIVISIBILITY: a group's known sizes do not divide its dimension,
 *   or a group has more than one unknown size
 * @NK_EINOPS_ERROR_LIMIT: the result would be larger than the caller allows
 *
 * Why an einops pattern was refused; the message names the pattern and the shape.
 */
typedef enum {
  NK_EINOPS_ERROR_PATTERN,
  NK_EINOPS_ERROR_AXIS,
  NK_EINOPS_ERROR_SHAPE,
  NK_EINOPS_ERROR_DIVISIBILITY,
  NK_EINOPS_ERROR_LIMIT,
} NkEinopsError;

NK_AVAILABLE_IN_ALL
GQuark nk_einops_error_quark (void);

/**
 * NkEinopsReduction:
 * @NK_EINOPS_SUM: sum
 * @NK_EINOPS_MEAN: mean
 * @NK_EINOPS_MAX: largest element
 * @NK_EINOPS_MIN: smallest element
 *
 * How nk_einops_reduce() combines the elements of the axes a pattern drops.
 */
typedef enum {
  NK_EINOPS_SUM,
  NK_EINOPS_MEAN,
  NK_EINOPS_MAX,
  NK_EINOPS_MIN,
} NkEinopsReduction;

NK_AVAILABLE_IN_ALL
gboolean  nk_einops_reduction_from_name (const char         *name,
                                         NkEinopsReduction  *out_reduction,
                                         GError            **error);

NK_AVAILABLE_IN_ALL
NkTensor *nk_einops_rearrange           (NkTensor           *x,
                                         const char         *pattern,
                                         guint               n_sizes,
                                         const char *const  *size_names,
                                         const gint64       *sizes,
                                         GError            **error);
NK_AVAILABLE_IN_ALL
NkTensor *nk_einops_reduce              (NkTensor           *x,
                                         const char         *pattern,
                                         NkEinopsReduction   reduction,
                                         guint               n_sizes,
                                         const char *const  *size_names,
                                         const gint64       *sizes,
                                         GError            **error);
NK_AVAILABLE_IN_ALL
NkTensor *nk_einops_einsum              (guint               n_operands,
                                         NkTensor *const    *operands,
                                         const char         *pattern,
                                         gint64              max_numel,
                                         GError            **error);

G_END_DECLS
