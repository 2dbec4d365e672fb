/* nk-dtype-private.h: the format table's fields as patterns, shared by nk-dtype.c
 * (decode, neighbours, limits) and nk-dtype-round.c (encode in every mode)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-dtype.h"

G_BEGIN_DECLS

const NkDTypeInfo *nk_dtype_table_row (NkDType dtype);

static inline guint64
nk_dtype_exponent_all_ones (const NkDTypeInfo *info)
{
  return (G_GUINT64_CONSTANT (1) << info->exponent_bits) - 1;
}

static inline guint64
nk_dtype_mantissa_mask (const NkDTypeInfo *info)
{
  return (G_GUINT64_CONSTANT (1) << info->mantissa_bits) - 1;
}

/* 0 for a format without a sign (e8m0) */
static inline guint64
nk_dtype_sign_bit (const NkDTypeInfo *info)
{
  return info->is_signed ? G_GUINT64_CONSTANT (1) << (info->bits - 1) : 0;
}

/* Every pattern below the sign bit set: the largest magnitude pattern there is. */
static inline guint64
nk_dtype_all_magnitude (const NkDTypeInfo *info)
{
  return (G_GUINT64_CONSTANT (1) << (info->exponent_bits + info->mantissa_bits)) - 1;
}

/* The largest finite magnitude, as a pattern. */
static inline guint64
nk_dtype_max_magnitude (const NkDTypeInfo *info)
{
  switch (info->nan_style)
    {
    case NK_NAN_ALL_ONES:
      return nk_dtype_all_magnitude (info) - 1;
    case NK_NAN_NONE:
    case NK_NAN_NEGATIVE_ZERO:
      return nk_dtype_all_magnitude (info);
    case NK_NAN_IEEE:
    default:
      return ((nk_dtype_exponent_all_ones (info) - 1) << info->mantissa_bits) |
             nk_dtype_mantissa_mask (info);
    }
}

static inline guint64
nk_dtype_inf_magnitude (const NkDTypeInfo *info)
{
  return nk_dtype_exponent_all_ones (info) << info->mantissa_bits;
}

/* The canonical NaN without the sign; the fnuz NaN is the sign bit itself. Formats
 * without NaN have none: callers check nan_style first. */
static inline guint64
nk_dtype_nan_magnitude (const NkDTypeInfo *info)
{
  switch (info->nan_style)
    {
    case NK_NAN_ALL_ONES:
      return nk_dtype_all_magnitude (info);
    case NK_NAN_NEGATIVE_ZERO:
      return G_GUINT64_CONSTANT (1) << (info->bits - 1);
    case NK_NAN_NONE:
      return nk_dtype_all_magnitude (info);
    case NK_NAN_IEEE:
    default:
      /* The quiet bit (top fraction bit) alone: the canonical quiet NaN. */
      return nk_dtype_inf_magnitude (info) | (G_GUINT64_CONSTANT (1) << (info->mantissa_bits - 1));
    }
}

/* The unbiased exponent of the smallest normal: 1 − bias, but −bias in e8m0,
 * whose pattern 0 is 2^−127 (no zero, no subnormals). */
static inline int
nk_dtype_min_exponent_of (const NkDTypeInfo *info)
{
  return info->mantissa_bits == 0 ? -info->bias : 1 - info->bias;
}

G_END_DECLS
