/* cuda_fp16.h (host emulation): __half storage and the conversions Napkin's kernels use
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-emu-half.h"

typedef struct __half { unsigned short __x; } __half;

static inline float __half2float (__half h) { return nk_emu_half_to_float (h.__x); }
static inline __half __double2half (double v) { __half h = { nk_emu_double_to_half (v) }; return h; }
static inline __half __float2half (float v) { return __double2half (v); }
static inline __half __float2half_rn (float v) { return __double2half (v); }
