/* nk-quantize-impl.h: a block quantizer's per-block math, for gcc and nvcc alike
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a device runs for nk_quantize_fake_f32() (nk-quantize-fast.c): the CUDA
 * device's quantize kernel (src/gpu/nk-cuda-kernels.cu) calls nk_qk_block() once per
 * block, and the host emulation of that device (src/gpu/emu) runs the very same
 * function on the CPU, where test-cuda-emu-quant holds it equal, bit for bit and
 * count for count, to the CPU's nk_quantize_fake_f32(). The arithmetic is the CPU
 * fast path's, operation for operation (see the top of nk-quantize-fast.c):
 *
 * MX, nearest-even: X = 2^e from the block's largest |x| bit pattern; a = |x| · 2^−e
 * in float; a's fraction rounded to m bits by adding half an ulp and masking
 * (normals), or to the subnormal quantum by (a + magic) − magic; saturated; × X.
 * NVFP4: s_t = amax / 2688 in float, s_b = e4m3(amax_block / (6 s_t)) nearest-even
 * in double, S = s_b · s_t (exact in double). Nearest-even compares |x| with the
 * E2M1 midpoints × S as float bounds; stochastic divides |x| / S in double and
 * rounds away from zero when the element's Philox word u < frac · 2³², its word
 * being number counter + (row · cols + column) of the stream (one draw per element,
 * row-major, as nk_rng_next_u32() would give them).
 *
 * Exactness on a GPU: float and double +, −, ×, / and conversions round to nearest
 * even on both (nvcc without --use_fast_math keeps subnormals and IEEE division).
 * The one thing nvcc does that gcc does not is fuse a product into a following sum
 * (an FMA rounds once where the CPU rounds twice): every product that feeds a sum
 * here is written nk_qk_fmul()/nk_qk_dmul(), which nvcc never fuses.
 *
 * Plain C that nvcc accepts (as nk-kernels.h): no GLib, no statics. Not installed:
 * for the devices' implementers only, as nk-device-impl.h.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
# define NK_QK_FN __host__ __device__ static inline
#else
# define NK_QK_FN static inline
#endif

/* NVFP4's weight-gradient rotation works on blocks of this many elements. */
#define NK_QK_ROTATION 16

/* What one quantize call of a device does (NkDeviceOps.quantize): @rows × @cols
 * contiguous floats at @src (device memory) into @dst (may be @src), in blocks of
 * @block along each row, the last one of a row short where @block does not divide
 * @cols. MX (@nvfp4 0): element grid @m fraction bits, smallest normal exponent
 * @emin, largest normal exponent @emax, largest magnitude @maxv, @is_int for mxint8;
 * @rule_up: NVIDIA's scale rule (else OCP's floor); nearest-even only. NVFP4
 * (@nvfp4 1): nearest-even, or with @stochastic the Philox words of key @key from
 * @counter on. @counts (device memory, two words): the flushed and the clipped
 * elements are added to [0] and [1]. @rotate: each block of 16 along a row (@cols a
 * multiple of 16) is first replaced by its rotation nk_qk_rotate16() with the
 * factors @rotation, in @dst; then @dst is quantized in place. */
typedef struct {
  int                 nvfp4;
  int                 stochastic;
  int                 rule_up;
  int                 m, emin, emax, is_int;
  float               maxv;
  int64_t             rows, cols;
  int64_t             block;
  const float        *src;
  float              *dst;
  uint32_t            key[2];
  uint64_t            counter;
  unsigned long long *counts;
  int                 rotate;
  float               rotation[NK_QK_ROTATION];
} NkQuantizeCall;

/* ---- bits and exact arithmetic ------------------------------------------------- */

NK_QK_FN uint32_t
nk_qk_f2u (float f)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (f);
#else
  uint32_t u;

  memcpy (&u, &f, sizeof u);
  return u;
#endif
}

NK_QK_FN float
nk_qk_u2f (uint32_t u)
{
#ifdef __CUDA_ARCH__
  return __uint_as_float (u);
#else
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
#endif
}

NK_QK_FN uint64_t
nk_qk_d2u (double d)
{
#ifdef __CUDA_ARCH__
  return (uint64_t) __double_as_longlong (d);
#else
  uint64_t u;

  memcpy (&u, &d, sizeof u);
  return u;
#endif
}

NK_QK_FN double
nk_qk_u2d (uint64_t u)
{
#ifdef __CUDA_ARCH__
  return __longlong_as_double ((long long) u);
#else
  double d;

  memcpy (&d, &u, sizeof d);
  return d;
#endif
}

/* a × b rounded on its own, never fused into a following sum */
NK_QK_FN float
nk_qk_fmul (float a,
            float b)
{
#ifdef __CUDA_ARCH__
  return __fmul_rn (a, b);
#else
  return a * b;
#endif
}

NK_QK_FN double
nk_qk_dmul (double a,
            double b)
{
#ifdef __CUDA_ARCH__
  return __dmul_rn (a, b);
#else
  return a * b;
#endif
}

/* 2^e as a float, e in [−149, 127] */
NK_QK_FN float
nk_qk_pow2f (int e)
{
  return e >= -126 ? nk_qk_u2f ((uint32_t) (e + 127) << 23) : nk_qk_u2f (1u << (e + 149));
}

/* floor(log2) of a positive finite float from its bits */
NK_QK_FN int
nk_qk_floor_log2_bits (uint32_t u)
{
  if (u >= 0x00800000u)
    return (int) (u >> 23) - 127;
#ifdef __CUDA_ARCH__
  return (31 - __clz ((int) u)) - 149;
#else
  return (31 - __builtin_clz (u)) - 149;
#endif
}

/* The largest |x| bit pattern of @n floats (non-negative floats order as their bits). */
NK_QK_FN uint32_t
nk_qk_amax_bits (const float *x,
                 int64_t      n)
{
  uint32_t m = 0;

  for (int64_t i = 0; i < n; i++)
    {
      uint32_t v = nk_qk_f2u (x[i]) & 0x7fffffffu;

      m = v > m ? v : m;
    }
  return m;
}

/* ---- NVFP4's rotation ---------------------------------------------------------------- */

/* y = H₁₆ · diag(s) · x / 4 for one block of 16 (may be in place), H₁₆ Sylvester's
 * Hadamard matrix (H[i][j] = (−1)^popcount(i & j)) and @factors[j] = s_j / 4 = ±¼:
 * the products first (exact but for subnormals), then the fast Walsh–Hadamard
 * transform's butterflies for h = 1, 2, 4, 8: t[i] + t[i + h] and t[i] − t[i + h].
 * nk-quantize-fast.c's vector copy does the same operations in the same order. */
NK_QK_FN void
nk_qk_rotate16 (const float *x,
                float       *y,
                const float *factors)
{
  float t[NK_QK_ROTATION];

  for (int i = 0; i < NK_QK_ROTATION; i++)
    t[i] = nk_qk_fmul (x[i], factors[i]);
  for (int h = 1; h < NK_QK_ROTATION; h *= 2)
    for (int i = 0; i < NK_QK_ROTATION; i++)
      if ((i & h) == 0)
        {
          float a = t[i], b = t[i + h];

          t[i] = a + b;
          t[i + h] = a - b;
        }
  memcpy (y, t, sizeof t);
}

/* ---- MX --------------------------------------------------------------------------- */

/* The scale exponent e (X = 2^e) from the block's amax bits, in [−127, 127]. */
NK_QK_FN int
nk_qk_mx_exponent (uint32_t ua,
                   int      emax,
                   float    maxv,
                   int      rule_up)
{
  int e;

  if (ua == 0)
    return -127;
  e = nk_qk_floor_log2_bits (ua) - emax;
  if (e < -127)
    return -127;
  if (rule_up && nk_qk_u2f (ua) > maxv * nk_qk_pow2f (e))
    e++;
  return e < 127 ? e : 127;
}

/* One MX block, nearest-even, in place or not. */
NK_QK_FN void
nk_qk_mx_block (const NkQuantizeCall *c,
                const float          *x,
                float                *y,
                int64_t               len,
                unsigned long long   *flushed,
                unsigned long long   *clipped)
{
  const int e = nk_qk_mx_exponent (nk_qk_amax_bits (x, len), c->emax, c->maxv, c->rule_up);
  const uint32_t shift = 23 - (uint32_t) c->m;
  const uint32_t half = (1u << (shift - 1)) - 1;
  const uint32_t mask = ~((1u << shift) - 1);
  const uint32_t min_normal = nk_qk_f2u (nk_qk_pow2f (c->emin));
  const float magic = c->is_int ? nk_qk_pow2f (23 - c->m) : nk_qk_pow2f (c->emin - c->m + 23);
  const uint32_t max_bits = nk_qk_f2u (c->maxv);
  const float inv = nk_qk_pow2f (-e), scale = nk_qk_pow2f (e);

  for (int64_t i = 0; i < len; i++)
    {
      uint32_t ux = nk_qk_f2u (x[i]);
      uint32_t mag = ux & 0x7fffffffu;
      float a = nk_qk_fmul (nk_qk_u2f (mag), inv);
      uint32_t ua = nk_qk_f2u (a);
      uint32_t rn = (ua + half + ((ua >> shift) & 1u)) & mask;
      uint32_t rs = nk_qk_f2u ((a + magic) - magic);
      uint32_t r = c->is_int || ua < min_normal ? rs : rn;

      *clipped += ua > max_bits;
      r = r > max_bits ? max_bits : r;
      *flushed += mag != 0 && r == 0;
      y[i] = nk_qk_u2f (nk_qk_f2u (nk_qk_u2f (r) * scale) | (ux & 0x80000000u));
    }
}

/* ---- NVFP4 ------------------------------------------------------------------------ */

/* s_t = amax / (6 × 448), in float */
NK_QK_FN float
nk_qk_nvfp4_tensor_scale (uint32_t amax_bits)
{
  return (float) ((double) nk_qk_u2f (amax_bits) / (6.0 * 448.0));
}

/* S = s_b × s_t with s_b = e4m3(amax_block / (6 s_t)), nearest-even, saturated at
 * 448 (0 where s_t is): E4M3 has 3 fraction bits, its smallest normal is 2^−6. */
NK_QK_FN double
nk_qk_nvfp4_scale (uint32_t amax_block_bits,
                   float    s_t)
{
  const uint64_t shift = 52 - 3;
  double a, rn, rs, s_b;
  uint64_t ua;

  if (s_t == 0.0f)
    return 0.0;
  a = (double) nk_qk_u2f (amax_block_bits) / (6.0 * (double) s_t);
  ua = nk_qk_d2u (a);
  rn = nk_qk_u2d ((ua + (((uint64_t) 1 << (shift - 1)) - 1) + ((ua >> shift) & 1))
                  & ~(((uint64_t) 1 << shift) - 1));
  rs = (a + 8796093022208.0) - 8796093022208.0;       /* 2^(−6 − 3 + 52) */
  s_b = a < 0.015625 ? rs : rn;
  s_b = s_b > 448.0 ? 448.0 : s_b;
  return s_b * (double) s_t;
}

/* The float nearest a double t ≥ 0 at or below it: a float y > t exactly when
 * y > below (t). */
NK_QK_FN float
nk_qk_below_f (double t)
{
  float f = (float) t;

  return (double) f > t ? nk_qk_u2f (nk_qk_f2u (f) - 1) : f;
}

/* The float nearest a double t > 0 at or above it: a float y ≥ t exactly when
 * y ≥ above (t). */
NK_QK_FN float
nk_qk_above_f (double t)
{
  float f = (float) t;

  return (double) f < t ? nk_qk_u2f (nk_qk_f2u (f) + 1) : f;
}

/* One NVFP4 block with S ≠ 0, nearest-even: |x|'s E2M1 code is the number of
 * midpoints m_k × S (0.25 0.75 1.25 1.75 2.5 3.5 5) it passes, a tie going to the
 * even code (> for odd k, ≥ for even k), each compared as a float bound. */
NK_QK_FN void
nk_qk_nvfp4_nearest (const float        *x,
                     float              *y,
                     int64_t             len,
                     double              S,
                     unsigned long long *flushed,
                     unsigned long long *clipped)
{
  const float t1 = nk_qk_below_f (0.25 * S), t2 = nk_qk_above_f (0.75 * S);
  const float t3 = nk_qk_below_f (1.25 * S), t4 = nk_qk_above_f (1.75 * S);
  const float t5 = nk_qk_below_f (2.5 * S), t6 = nk_qk_above_f (3.5 * S);
  const float t7 = nk_qk_below_f (5.0 * S), tc = nk_qk_below_f (6.0 * S);
  const uint32_t v1 = nk_qk_f2u ((float) (0.5 * S)), v2 = nk_qk_f2u ((float) S);
  const uint32_t v3 = nk_qk_f2u ((float) (1.5 * S)), v4 = nk_qk_f2u ((float) (2.0 * S));
  const uint32_t v5 = nk_qk_f2u ((float) (3.0 * S)), v6 = nk_qk_f2u ((float) (4.0 * S));
  const uint32_t v7 = nk_qk_f2u ((float) (6.0 * S));

  for (int64_t i = 0; i < len; i++)
    {
      uint32_t ux = nk_qk_f2u (x[i]);
      uint32_t mag = ux & 0x7fffffffu;
      float a = nk_qk_u2f (mag);
      uint32_t r = 0;

      r = a > t1 ? v1 : r;
      r = a >= t2 ? v2 : r;
      r = a > t3 ? v3 : r;
      r = a >= t4 ? v4 : r;
      r = a > t5 ? v5 : r;
      r = a >= t6 ? v6 : r;
      r = a > t7 ? v7 : r;
      *clipped += a > tc;
      *flushed += mag != 0 && a <= t1;
      y[i] = nk_qk_u2f (r | (ux & 0x80000000u));
    }
}

/* Philox4x32-10 (nk_philox4x32_10() in nk-rng.c) of counter {block, block >> 32, 0, 0} */
NK_QK_FN void
nk_qk_philox (uint64_t        block,
              const uint32_t  key[2],
              uint32_t        out[4])
{
  uint32_t c0 = (uint32_t) block, c1 = (uint32_t) (block >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = key[0], k1 = key[1];

  for (int round = 0; round < 10; round++)
    {
      uint64_t p0 = (uint64_t) 0xD2511F53u * c0;
      uint64_t p1 = (uint64_t) 0xCD9E8D57u * c2;

      c0 = (uint32_t) (p1 >> 32) ^ c1 ^ k0;
      c1 = (uint32_t) p1;
      c2 = (uint32_t) (p0 >> 32) ^ c3 ^ k1;
      c3 = (uint32_t) p0;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* One element, stochastic, S ≠ 0: nk_quant_round_mag()'s rule on E2M1's grid
 * (spacing q = 0.5 below 2, 1 below 4, 2 up to 6; away from zero when u < frac ·
 * 2³²; frac 0 never rounds away). t = a / q is exact (q a power of two), its floor
 * (t < 12) an int conversion, frac = t − floor exact. */
NK_QK_FN uint32_t
nk_qk_nvfp4_stochastic (uint32_t            ux,
                        double              S,
                        uint32_t            u,
                        unsigned long long *flushed,
                        unsigned long long *clipped)
{
  uint32_t mag = ux & 0x7fffffffu;
  double a = (double) nk_qk_u2f (mag) / S;
  double q = a >= 4.0 ? 2.0 : a >= 2.0 ? 1.0 : 0.5;
  double iq = a >= 4.0 ? 0.5 : a >= 2.0 ? 1.0 : 2.0;
  double t = nk_qk_dmul (a, iq);
  double lo = (double) (int32_t) (t < 12.0 ? t : 0.0);   /* NaN too */
  double frac = t - lo;
  double r = (lo + ((double) u < nk_qk_dmul (frac, 4294967296.0) ? 1.0 : 0.0)) * q;

  r = r > 6.0 ? 6.0 : r;
  r = a >= 6.0 ? 6.0 : r;
  *clipped += a > 6.0;
  *flushed += mag != 0 && r == 0.0;
  return nk_qk_f2u ((float) (r * S)) | (ux & 0x80000000u);
}

/* One NVFP4 block; @word: the stream position of its first element. */
NK_QK_FN void
nk_qk_nvfp4_block (const NkQuantizeCall *c,
                   float                 s_t,
                   const float          *x,
                   float                *y,
                   int64_t               len,
                   uint64_t              word,
                   unsigned long long   *flushed,
                   unsigned long long   *clipped)
{
  double S = nk_qk_nvfp4_scale (nk_qk_amax_bits (x, len), s_t);
  uint64_t cached = ~(uint64_t) 0;
  uint32_t w[4] = { 0, 0, 0, 0 };

  if (S == 0.0)
    {
      /* every element flushed to a zero of its sign (and no draw matters) */
      for (int64_t i = 0; i < len; i++)
        {
          uint32_t ux = nk_qk_f2u (x[i]);

          *flushed += (ux & 0x7fffffffu) != 0;
          y[i] = nk_qk_u2f (ux & 0x80000000u);
        }
      return;
    }
  if (!c->stochastic)
    {
      nk_qk_nvfp4_nearest (x, y, len, S, flushed, clipped);
      return;
    }
  for (int64_t i = 0; i < len; i++)
    {
      uint64_t k = word + (uint64_t) i;
      uint32_t lane = (uint32_t) (k & 3);

      if (k >> 2 != cached)
        {
          nk_qk_philox (k >> 2, c->key, w);
          cached = k >> 2;
        }
      y[i] = nk_qk_u2f (nk_qk_nvfp4_stochastic (nk_qk_f2u (x[i]),
                                                S, lane == 0 ? w[0] : lane == 1 ? w[1]
                                                   : lane == 2 ? w[2] : w[3],
                                                flushed, clipped));
    }
}

/* ---- one block of a call ------------------------------------------------------------ */

/* Block @q of the call (row q / blocks-per-row), with the tensor scale @s_t
 * (NVFP4; nk_qk_nvfp4_tensor_scale() of the whole array's amax). Counts add up in
 * @flushed and @clipped. */
NK_QK_FN void
nk_qk_block (const NkQuantizeCall *c,
             float                 s_t,
             int64_t               q,
             unsigned long long   *flushed,
             unsigned long long   *clipped)
{
  int64_t per_row = (c->cols + c->block - 1) / c->block;
  int64_t row = q / per_row, c0 = (q % per_row) * c->block;
  int64_t off = row * c->cols + c0;
  int64_t len = c->cols - c0 < c->block ? c->cols - c0 : c->block;

  if (c->nvfp4)
    nk_qk_nvfp4_block (c, s_t, c->src + off, c->dst + off, len, c->counter + (uint64_t) off,
                       flushed, clipped);
  else
    nk_qk_mx_block (c, c->src + off, c->dst + off, len, flushed, clipped);
}
