/* test-quantize-portable.c: test-quantize.c against the portable build of nk-quantize-fast.c
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On x86-64 the engine's nk_quantize_fake_f32() runs its AVX2 clone wherever
 * the CPU has AVX2, so test-quantize never reaches the baseline (SSE2) code on
 * such a machine, nor the lane-by-lane code other CPUs compile the vector
 * extensions to. This file builds nk-quantize-fast.c once more, without clones,
 * under another name, and runs every test of test-quantize.c with that build in
 * the place of the engine's.
 */
#define NK_QUANTIZE_FAST_PORTABLE 1
#define nk_quantize_fake_f32 nk_quantize_fake_f32_portable
#define nk_quantize_rotate16_f32 nk_quantize_rotate16_f32_portable

#include "nk-quantize-fast.c"

#include "test-quantize.c"
