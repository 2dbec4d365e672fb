/* nk-autograd-quant-private.h: the block-scaled recipe's operands on a device other than the CPU
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-autograd-private.h"
#include "nk-quantize.h"
#include "nk-rng.h"

G_BEGIN_DECLS

gboolean _nk_ag_quantize_fake_device (NkTensor         *src,
                                      NkTensor         *dst,
                                      NkBlockFormat     format,
                                      guint             block,
                                      NkMxScaleRule     rule,
                                      NkRoundingMode    rounding,
                                      const float      *rotation,
                                      NkRng            *rng,
                                      NkTensor        **counts,
                                      NkQuantizeStats  *stats,
                                      GError          **error);
gboolean _nk_ag_quant_counts_take    (NkTensor         *counts,
                                      NkQuantizeStats  *stats,
                                      GError          **error);

G_END_DECLS
