/* cuda_bf16.h (host emulation): __nv_bfloat16 storage and the conversions Napkin uses
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-emu-half.h"

typedef struct __nv_bfloat16 { unsigned short __x; } __nv_bfloat16;

static inline float __bfloat162float (__nv_bfloat16 b) { return nk_emu_bf16_to_float (b.__x); }
static inline __nv_bfloat16
__double2bfloat16 (double v)
{
  __nv_bfloat16 b = { nk_emu_double_to_bf16 (v) };
  return b;
}
static inline __nv_bfloat16 __float2bfloat16 (float v) { return __double2bfloat16 (v); }
static inline __nv_bfloat16 __float2bfloat16_rn (float v) { return __double2bfloat16 (v); }
