/* nk-quantize-private.h: what nk-quantize.c and nk-quantize-fast.c share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-quantize.h"

G_BEGIN_DECLS

/* An element grid: e exponent bits, m fraction bits, bias, emin = 1 − bias
 * (the smallest normal's exponent), the largest magnitude; is_int: fixed point
 * k / 2^m (mxint8). */
typedef struct {
  guint    e, m;
  int      bias;
  int      emin;
  double   max;
  gboolean is_int;
} NkQuantElem;

extern const NkQuantElem nk_quant_e4m3;

const NkQuantElem *nk_quant_elem               (NkBlockFormat      format);
int                nk_quant_mx_exponent        (NkBlockFormat      format,
                                                double             amax,
                                                NkMxScaleRule      rule);
double             nk_quant_round_mag          (const NkQuantElem *el,
                                                double             a,
                                                gboolean           negative,
                                                NkRoundingMode     mode,
                                                guint32            u);
guint32            nk_quant_encode             (const NkQuantElem *el,
                                                double             r,
                                                gboolean           negative);
float              nk_quant_nvfp4_tensor_scale (double             amax);
double             nk_quant_nvfp4_block_scale  (double             amax_block,
                                                float              s_t);

G_END_DECLS
