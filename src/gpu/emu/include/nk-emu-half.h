/* nk-emu-half.h (host emulation): IEEE-style narrow float encoding for fp16 and bf16
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written from the formats' definitions, not from nk-dtype (whose encoders are what the
 * tests compare the emulated GPU against): one rounding, to nearest even, straight from
 * a double, with subnormals, overflow to infinity and quiet NaNs, as CUDA's __double2half
 * and __double2bfloat16 do.
 */
#pragma once

#include <math.h>
#include <stdint.h>

static inline uint16_t
nk_emu_encode_narrow (double v, int exp_bits, int man_bits)
{
  int bias = (1 << (exp_bits - 1)) - 1, emin = 1 - bias, e = 0;
  uint16_t sign = signbit (v) ? (uint16_t) (1u << (exp_bits + man_bits)) : 0;
  uint16_t exp_all = (uint16_t) (((1u << exp_bits) - 1) << man_bits);
  double a = fabs (v), q, one = ldexp (1.0, man_bits);

  if (isnan (v))
    return sign | exp_all | (uint16_t) (1u << (man_bits - 1));
  if (a == 0.0)
    return sign;
  if (isinf (a))
    return sign | exp_all;
  frexp (a, &e);
  e -= 1;                                   /* a = 1.f · 2^e */
  if (e < emin)
    e = emin;                               /* subnormal: the smallest quantum */
  q = rint (ldexp (a, man_bits - e));       /* quanta of 2^(e - man_bits), to even */
  if (q >= 2.0 * one)
    {
      e++;
      q /= 2.0;
    }
  if (e > bias)
    return sign | exp_all;
  if (q < one)
    return sign | (uint16_t) q;
  return sign | (uint16_t) ((e + bias) << man_bits) | (uint16_t) (q - one);
}

static inline double
nk_emu_decode_narrow (uint16_t bits, int exp_bits, int man_bits)
{
  int bias = (1 << (exp_bits - 1)) - 1;
  unsigned exp_field = (bits >> man_bits) & ((1u << exp_bits) - 1);
  unsigned man = bits & ((1u << man_bits) - 1);
  double sign = (bits >> (exp_bits + man_bits)) ? -1.0 : 1.0;

  if (exp_field == (1u << exp_bits) - 1)
    return man ? NAN : sign * INFINITY;
  if (exp_field == 0)
    return sign * ldexp ((double) man, 1 - bias - man_bits);
  return sign * ldexp ((double) (man | (1u << man_bits)), (int) exp_field - bias - man_bits);
}

static inline uint16_t nk_emu_double_to_half (double v) { return nk_emu_encode_narrow (v, 5, 10); }
static inline uint16_t nk_emu_double_to_bf16 (double v) { return nk_emu_encode_narrow (v, 8, 7); }
static inline float nk_emu_half_to_float (uint16_t h) { return (float) nk_emu_decode_narrow (h, 5, 10); }
static inline float nk_emu_bf16_to_float (uint16_t b) { return (float) nk_emu_decode_narrow (b, 8, 7); }
