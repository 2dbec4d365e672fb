/* nk-precision.h: the precision policy of a training run, shared by the planner and the trainer
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One enum for both: the planner counts the bytes a policy keeps per parameter and
 * per activation, the trainer runs it. The GEnum (nk-enum-types.h) nicks are the
 * CLI names; "mixed" (the planner's historical name) reads as bf16-mixed.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

/**
 * NkPrecision:
 * @NK_PRECISION_FP32: everything in fp32
 * @NK_PRECISION_BF16_MIXED: fp32 master weights and optimizer state; matmul inputs,
 *   weights and gradients for compute and saved activations in bf16
 * @NK_PRECISION_FP16_MIXED: as bf16-mixed with fp16, plus dynamic loss scaling
 * @NK_PRECISION_MXFP8: as bf16-mixed, but every linear layer's matmul operands,
 *   forward and backward, in OCP MXFP8 (E4M3 elements, blocks of 32 along the
 *   reduction; the GPT trainer emulates it, nk-autograd-quant.h)
 * @NK_PRECISION_NVFP4: as bf16-mixed, but every linear layer's matmul operands in
 *   NVIDIA's NVFP4 (E2M1 elements, blocks of 16 with E4M3 scales under an fp32 tensor
 *   scale), the gradients' rounded stochastically
 *
 * The precision policy of a training run: which format the matmuls, the stored
 * activations and the master weights use, and so the bytes per parameter the
 * planner and the trainer count.
 */
typedef enum {
  NK_PRECISION_FP32,
  NK_PRECISION_BF16_MIXED,
  NK_PRECISION_FP16_MIXED, /*< nick=fp16 >*/
  NK_PRECISION_MXFP8,
  NK_PRECISION_NVFP4,
} NkPrecision;

NK_AVAILABLE_IN_ALL
const char *nk_precision_to_string   (NkPrecision  precision);
NK_AVAILABLE_IN_ALL
gboolean    nk_precision_from_string (const char  *text,
                                      NkPrecision *out_precision);
NK_AVAILABLE_IN_ALL
gboolean    nk_precision_is_mixed    (NkPrecision  precision);
NK_AVAILABLE_IN_ALL
gboolean    nk_precision_is_block_scaled (NkPrecision precision);

G_END_DECLS
