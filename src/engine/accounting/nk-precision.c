/* nk-precision.c: the precision policy of a training run, shared by the planner and the trainer
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-precision.h"

/**
 * nk_precision_to_string:
 * @precision: a precision policy
 *
 * The name `napkin-cli train --precision` takes and JSON writes.
 *
 * Returns: its CLI name ("fp32", "bf16-mixed", "fp16", "mxfp8", "nvfp4")
 */
const char *
nk_precision_to_string (NkPrecision precision)
{
  return nk_enum_to_nick (NK_TYPE_PRECISION, precision);
}

/**
 * nk_precision_from_string:
 * @text: "fp32", "bf16-mixed", "fp16", "mxfp8", "nvfp4" (also "mixed" for bf16-mixed
 *   and "fp16-mixed")
 * @out_precision: (out): the policy
 *
 * Reads a policy's CLI name or one of its aliases.
 *
 * Returns: %TRUE if @text names a policy
 */
gboolean
nk_precision_from_string (const char  *text,
                          NkPrecision *out_precision)
{
  int value;

  g_return_val_if_fail (out_precision != NULL, FALSE);
  if (g_strcmp0 (text, "mixed") == 0)
    value = NK_PRECISION_BF16_MIXED;
  else if (g_strcmp0 (text, "fp16-mixed") == 0)
    value = NK_PRECISION_FP16_MIXED;
  else if (!nk_enum_from_nick (NK_TYPE_PRECISION, text, &value))
    return FALSE;
  *out_precision = value;
  return TRUE;
}

/**
 * nk_precision_is_mixed:
 * @precision: a precision policy
 *
 * Whether the policy keeps fp32 master weights beside 16-bit compute copies.
 *
 * Returns: %TRUE when compute runs in a 16-bit format over fp32 master weights
 */
gboolean
nk_precision_is_mixed (NkPrecision precision)
{
  return precision != NK_PRECISION_FP32;
}

/**
 * nk_precision_is_block_scaled:
 * @precision: a precision policy
 *
 * Whether the policy multiplies in a block-scaled format (MXFP8, NVFP4) over
 * bf16-mixed: a recipe the trainer emulates for the GPT alone.
 *
 * Returns: %TRUE for %NK_PRECISION_MXFP8 and %NK_PRECISION_NVFP4
 */
gboolean
nk_precision_is_block_scaled (NkPrecision precision)
{
  return precision == NK_PRECISION_MXFP8 || precision == NK_PRECISION_NVFP4;
}
