/* nk-autograd-quant.h: block-scaled matmul operands (MXFP8, NVFP4) for this thread's linear layers
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Training in a block format, emulated: while a recipe is set, every nk_ag_linear()
 * quantizes each operand of each of its three products to the format along that
 * product's reduction dimension (nk_quantize_fake_f32(): quantize, then dequantize
 * to float32), and the product accumulates in float32:
 *
 *     y  [B, out] = x [B, in] · Wᵀ          x and W in blocks along in
 *     dx [B, in]  = dy [B, out] · W         dy and Wᵀ in blocks along out
 *     dW [out, in] = dyᵀ · x                dyᵀ and xᵀ in blocks along B
 *
 * as NVIDIA's Transformer Engine runs MXFP8 and NVFP4 on Blackwell (a rowwise and a
 * columnwise copy of each tensor). Everything else follows nk_autograd_set_autocast().
 * Stochastic rounding draws from a Philox stream keyed by the recipe's seed that
 * nk_autograd_seek_block_quant() positions, so a step is a pure function of (seed,
 * step) and a resumed run repeats the same draws.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-quantize.h"
#include "nk-version-macros.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
void      nk_autograd_set_block_quant    (NkBlockFormat   format,
                                          guint           block,
                                          NkMxScaleRule   scale_rule,
                                          gboolean        stochastic_grads,
                                          guint64         seed);
NK_AVAILABLE_IN_ALL
void      nk_autograd_clear_block_quant  (void);
NK_AVAILABLE_IN_ALL
gboolean  nk_autograd_get_block_quant    (NkBlockFormat  *out_format);
NK_AVAILABLE_IN_ALL
gboolean  nk_autograd_pause_block_quant  (gboolean        paused);
NK_AVAILABLE_IN_ALL
void      nk_autograd_seek_block_quant   (guint64         step);
NK_AVAILABLE_IN_ALL
void      nk_autograd_take_quant_stats   (NkQuantizeStats *out_stats);

G_END_DECLS
