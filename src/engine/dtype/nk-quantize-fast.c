/* nk-quantize-fast.c: block quantize-then-dequantize of float32 arrays, for training
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk_quantize_fake_f32() gives, for every float32 input, the float32 nearest
 * the value nk_quantize() gives (MX values are floats already, so: the same
 * value), with the same counts of flushed and clipped elements. The nearest-even
 * path is one pass per block with float bit tricks and no calls:
 *
 * MX: the scale X = 2^e comes from the block's largest |x| bit pattern (its
 * exponent field); a = |x| × 2^−e is exact. Above the element's min normal,
 * adding 2^(s−1) − 1 + (the lowest kept bit) to a's bits and masking the s =
 * 23 − m low bits rounds a's fraction to m bits, ties to even (a carry into the
 * exponent is right). Below it, (a + 2^(emin − m + 23)) − 2^(emin − m + 23)
 * makes the FPU round a to a multiple of the subnormal quantum 2^(emin − m)
 * (mxint8: of 2^−6). Then min(r, max) saturates and r × X is exact.
 *
 * NVFP4, nearest-even: no division. With S = s_b × s_t (28 bits, exact in
 * double) an element's E2M1 code is the number of midpoints m_k × S its |x|
 * passes (exact in double, and exactly a float compare against the float bound
 * below or above each); see nvfp4_block_nearest(). Stochastic: the row's
 * Philox words in bulk (the words nk_rng_next_u32() would give, eight blocks
 * at a time) and a branch-free double loop of nk_quant_round_mag()'s rule.
 *
 * Directed rounding takes the per-element path nk_quantize() takes (one
 * 32-bit draw per element, row-major order, for stochastic everywhere).
 */
#include "config.h"

/* The block loops below are written to vectorise; -O2's cheap cost model
 * leaves loops of unknown trip count scalar. */
#if defined (__GNUC__) && !defined (__clang__)
#pragma GCC optimize ("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <string.h>

#include "nk-quantize.h"
#include "nk-quantize-private.h"
#include "nk-quantize-impl.h"

#define NK_INLINE static inline __attribute__((always_inline))

/* x86-64: an AVX2 copy of the hot loops too, picked at load time (not when
 * tests/engine/test-quantize-portable.c builds this file again to test the
 * portable code on a machine that has AVX2) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined (NK_QUANTIZE_FAST_PORTABLE)
#define NK_CLONES __attribute__((target_clones ("avx2", "default")))
#else
#define NK_CLONES
#endif

typedef guint32 nk_u32_alias __attribute__((may_alias));
typedef guint64 nk_u64_alias __attribute__((may_alias));

NK_INLINE guint32
f2u (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

NK_INLINE float
u2f (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

NK_INLINE guint64
d2u (double d)
{
  guint64 u;

  memcpy (&u, &d, sizeof u);
  return u;
}

NK_INLINE double
u2d (guint64 u)
{
  double d;

  memcpy (&d, &u, sizeof d);
  return d;
}

/* 2^e as a float, e in [−149, 127] */
NK_INLINE float
pow2f (int e)
{
  return e >= -126 ? u2f ((guint32) (e + 127) << 23) : u2f (1u << (e + 149));
}

/* The largest |x| bit pattern of n floats (non-negative floats order as their
 * bits do). */
NK_INLINE guint32
amax_bits (const float *x,
           gsize        n)
{
  const nk_u32_alias *u = (const nk_u32_alias *) x;
  guint32 m = 0;

  for (gsize i = 0; i < n; i++)
    {
      guint32 v = u[i] & 0x7fffffffu;

      m = v > m ? v : m;
    }
  return m;
}

/* floor(log2) of a positive finite float from its bits */
NK_INLINE int
floor_log2_bits (guint32 u)
{
  if (u >= 0x00800000u)
    return (int) (u >> 23) - 127;
  return (31 - __builtin_clz (u)) - 149;
}

/* The MX scale exponent from amax's bits; nk_quant_mx_exponent() by bits. */
NK_INLINE int
mx_exponent_bits (guint32       ua,
                  int           emax,
                  float         maxv,
                  NkMxScaleRule rule)
{
  int e;

  if (ua == 0)
    return -127;
  e = floor_log2_bits (ua) - emax;
  if (e < -127)
    return -127;
  if (rule == NK_MX_SCALE_UP && u2f (ua) > maxv * pow2f (e))
    e++;
  return MIN (e, 127);
}

/* One MX block, nearest-even: the bit tricks of the top of this file. */
NK_INLINE void
mx_block_nearest (const float *src,
                  float       *dst,
                  guint        len,
                  int          e,
                  guint        M,
                  int          EMIN,
                  float        MAXV,
                  gboolean     IS_INT,
                  guint64     *flushed,
                  guint64     *clipped)
{
  const nk_u32_alias *sx = (const nk_u32_alias *) src;
  nk_u32_alias *dx = (nk_u32_alias *) dst;
  const guint32 shift = 23 - M;
  const guint32 half = (1u << (shift - 1)) - 1;
  const guint32 mask = ~((1u << shift) - 1);
  const guint32 min_normal = f2u (pow2f (EMIN));
  const float magic = IS_INT ? pow2f (23 - (int) M) : pow2f (EMIN - (int) M + 23);
  const guint32 max_bits = f2u (MAXV);
  const float inv = pow2f (-e);
  const float scale = pow2f (e);
  guint32 nf = 0, nc = 0;

  /* branch-free, in integers where a choice is made, so that it vectorises */
  for (guint i = 0; i < len; i++)
    {
      guint32 ux = sx[i];
      guint32 mag = ux & 0x7fffffffu;
      float a = u2f (mag) * inv;
      guint32 ua = f2u (a);
      guint32 rn = (ua + half + ((ua >> shift) & 1u)) & mask;
      guint32 rs = f2u ((a + magic) - magic);
      guint32 sub = IS_INT ? 0xffffffffu : 0u - (guint32) (ua < min_normal);
      guint32 r = (rs & sub) | (rn & ~sub);

      nc += ua > max_bits;
      r = r > max_bits ? max_bits : r;
      nf += (guint32) (mag != 0) & (guint32) (r == 0);
      dx[i] = f2u (u2f (r) * scale) | (ux & 0x80000000u);
    }
  *flushed += nf;
  *clipped += nc;
}

/* One row of MX blocks; constants folded per format by the callers below. */
NK_INLINE void
mx_row_nearest (const float   *src,
                float         *dst,
                gsize          cols,
                guint          block,
                NkMxScaleRule  rule,
                guint          M,
                int            EMIN,
                int            EMAX,
                float          MAXV,
                gboolean       IS_INT,
                guint64       *flushed,
                guint64       *clipped)
{
  for (gsize c0 = 0; c0 < cols; c0 += block)
    {
      guint len = (guint) MIN ((gsize) block, cols - c0);

      /* the usual full block of 32 with its length known: unrolled vector code */
      if (len == 32)
        {
          int e = mx_exponent_bits (amax_bits (src + c0, 32), EMAX, MAXV, rule);

          mx_block_nearest (src + c0, dst + c0, 32, e, M, EMIN, MAXV, IS_INT, flushed, clipped);
        }
      else
        {
          int e = mx_exponent_bits (amax_bits (src + c0, len), EMAX, MAXV, rule);

          mx_block_nearest (src + c0, dst + c0, len, e, M, EMIN, MAXV, IS_INT, flushed, clipped);
        }
    }
}

#define MX_ROWS(name, M, EMIN, EMAX, MAXV, IS_INT)                              \
NK_CLONES static void                                                           \
mx_rows_##name (const float *src, float *dst, gsize rows, gsize cols,           \
                guint block, NkMxScaleRule rule, guint64 *fl, guint64 *cl)      \
{                                                                               \
  for (gsize r = 0; r < rows; r++)                                              \
    mx_row_nearest (src + r * cols, dst + r * cols, cols, block, rule,          \
                    M, EMIN, EMAX, MAXV, IS_INT, fl, cl);                       \
}

MX_ROWS (e4m3, 3, -6, 8, 448.0f, FALSE)
MX_ROWS (e5m2, 2, -14, 15, 57344.0f, FALSE)
MX_ROWS (e3m2, 2, -2, 4, 28.0f, FALSE)
MX_ROWS (e2m3, 3, 0, 2, 7.5f, FALSE)
MX_ROWS (e2m1, 1, 0, 2, 6.0f, FALSE)
MX_ROWS (int8, 6, 0, 0, 127.0f / 64.0f, TRUE)

/* a ≥ 0 rounded to m fraction bits above 2^emin, to multiples of 2^(emin − m)
 * below, nearest-even, saturated at maxv: the double version of the trick. */
NK_INLINE double
round_nearest_d (double a,
                 guint  M,
                 int    EMIN,
                 double MAXV)
{
  const guint64 shift = 52 - M;
  guint64 ua = d2u (a);
  double rn = u2d ((ua + ((G_GUINT64_CONSTANT (1) << (shift - 1)) - 1) + ((ua >> shift) & 1))
                   & ~((G_GUINT64_CONSTANT (1) << shift) - 1));
  double magic = ldexp (1.0, EMIN - (int) M + 52);
  double rs = (a + magic) - magic;
  double r = a < ldexp (1.0, EMIN) ? rs : rn;

  return r > MAXV ? MAXV : r;
}

/* The float32 nearest a double t ≥ 0 at or below it (t itself when t is a float):
 * for a float y, y > t exactly when y > below_f (t). */
NK_INLINE float
below_f (double t)
{
  float f = (float) t;

  return (double) f > t ? u2f (f2u (f) - 1) : f;      /* f > 0: the float below */
}

/* The float32 nearest a double t > 0 at or above it: for a float y, y ≥ t
 * exactly when y ≥ above_f (t). */
NK_INLINE float
above_f (double t)
{
  float f = (float) t;

  return (double) f < t ? u2f (f2u (f) + 1) : f;      /* f finite: the float above */
}

/* One NVFP4 block, nearest-even, by comparison: with S = s_b × s_t (28 bits,
 * exact in double) the E2M1 code of |x| / S is the number of midpoints
 * m_k × S it passes, m = 0.25 0.75 1.25 1.75 2.5 3.5 5; a tie goes to the even
 * code, so past m_k means > for odd k and ≥ for even k. m_k × S (31 bits) is
 * exact in double, and a float y passes it exactly when it passes the float
 * bound below_f / above_f gives; so the element loop is float compares and
 * selects of the eight dequantized values (float) (v_k × S), and vectorises. */
NK_INLINE void
nvfp4_block_nearest (const float *src,
                     float       *dst,
                     guint        len,
                     double       S,
                     guint64     *flushed,
                     guint64     *clipped)
{
  const nk_u32_alias *sx = (const nk_u32_alias *) src;
  nk_u32_alias *dx = (nk_u32_alias *) dst;
  const float t1 = below_f (0.25 * S), t2 = above_f (0.75 * S), t3 = below_f (1.25 * S);
  const float t4 = above_f (1.75 * S), t5 = below_f (2.5 * S), t6 = above_f (3.5 * S);
  const float t7 = below_f (5.0 * S), tc = below_f (6.0 * S);
  const guint32 v1 = f2u ((float) (0.5 * S)), v2 = f2u ((float) S);
  const guint32 v3 = f2u ((float) (1.5 * S)), v4 = f2u ((float) (2.0 * S));
  const guint32 v5 = f2u ((float) (3.0 * S)), v6 = f2u ((float) (4.0 * S));
  const guint32 v7 = f2u ((float) (6.0 * S));
  guint32 nf = 0, nc = 0;

  for (guint i = 0; i < len; i++)
    {
      guint32 ux = sx[i];
      guint32 mag = ux & 0x7fffffffu;
      float a = u2f (mag);
      guint32 r = 0;

      r = a > t1 ? v1 : r;
      r = a >= t2 ? v2 : r;
      r = a > t3 ? v3 : r;
      r = a >= t4 ? v4 : r;
      r = a > t5 ? v5 : r;
      r = a >= t6 ? v6 : r;
      r = a > t7 ? v7 : r;
      nc += a > tc;
      nf += (guint32) (mag != 0) & (guint32) (a <= t1);
      dx[i] = r | (ux & 0x80000000u);
    }
  *flushed += nf;
  *clipped += nc;
}

/* Philox4x32-10 (nk_philox4x32_10(), nk-rng.c) on eight counters at once, lane
 * by lane in arrays, so that each round is vector code (32 × 32 → 64 products):
 * out[4 j + w] is word w of counter {block + j, (block + j) >> 32, 0, 0}. */
#define PHILOX_LANES 8
NK_INLINE void
philox_x8 (guint64        block,
           const guint32  key[2],
           guint32       *out)
{
  guint32 c0[PHILOX_LANES], c1[PHILOX_LANES], c2[PHILOX_LANES], c3[PHILOX_LANES];
  guint32 k0 = key[0], k1 = key[1];

  for (guint j = 0; j < PHILOX_LANES; j++)
    {
      c0[j] = (guint32) (block + j);
      c1[j] = (guint32) ((block + j) >> 32);
      c2[j] = 0;
      c3[j] = 0;
    }
  for (guint round = 0; round < 10; round++)
    {
      for (guint j = 0; j < PHILOX_LANES; j++)
        {
          guint64 p0 = (guint64) 0xD2511F53u * c0[j];
          guint64 p1 = (guint64) 0xCD9E8D57u * c2[j];
          guint32 n0 = (guint32) (p1 >> 32) ^ c1[j] ^ k0;
          guint32 n2 = (guint32) (p0 >> 32) ^ c3[j] ^ k1;

          c1[j] = (guint32) p1;
          c3[j] = (guint32) p0;
          c0[j] = n0;
          c2[j] = n2;
        }
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
  for (guint j = 0; j < PHILOX_LANES; j++)
    {
      out[4 * j] = c0[j];
      out[4 * j + 1] = c1[j];
      out[4 * j + 2] = c2[j];
      out[4 * j + 3] = c3[j];
    }
}

/* Words counter … counter + n − 1 of the stream of key (what n calls of
 * nk_rng_next_u32() return), eight Philox blocks at a time. */
static void
philox_words (const guint32 key[2],
              guint64       counter,
              guint32      *out,
              gsize         n)
{
  guint32 w[4 * PHILOX_LANES];
  gsize i = 0;

  /* up to the next block boundary, then whole runs of eight blocks */
  while (i < n && ((counter + i) & 3) != 0)
    {
      guint64 c = counter + i;
      guint32 ctr[4] = { (guint32) (c >> 2), (guint32) (c >> 34), 0, 0 };

      nk_philox4x32_10 (ctr, key, w);
      for (; i < n && ((counter + i) & 3) != 0; i++)
        out[i] = w[(counter + i) & 3];
    }
  for (; i + 4 * PHILOX_LANES <= n; i += 4 * PHILOX_LANES)
    philox_x8 ((counter + i) >> 2, key, out + i);
  if (i < n)
    {
      philox_x8 ((counter + i) >> 2, key, w);
      memcpy (out + i, w, (n - i) * sizeof *out);
    }
}

/* One NVFP4 block, stochastic: nk_quant_round_mag()'s rule on E2M1's grid
 * (spacing q = 0.5 below 2, 1 below 4, 2 up to 6; away from zero when the draw
 * u < frac · 2³²) with a = |x| / S in double as there, written without
 * branches or calls so that it vectorises. t = a / q is exact (q a power of
 * two), its floor (t < 12) an int conversion, frac = t − floor exact; frac 0
 * never rounds away. u becomes a double exactly through a signed int. */
NK_INLINE void
nvfp4_block_stochastic (const float   *src,
                        float         *dst,
                        guint          len,
                        double         S,
                        const guint32 *u,
                        guint64       *flushed,
                        guint64       *clipped)
{
  const nk_u32_alias *sx = (const nk_u32_alias *) src;
  nk_u32_alias *dx = (nk_u32_alias *) dst;
  guint32 nf = 0, nc = 0;

  for (guint i = 0; i < len; i++)
    {
      guint32 ux = sx[i];
      guint32 mag = ux & 0x7fffffffu;
      double a = (double) u2f (mag) / S;
      double q = a >= 4.0 ? 2.0 : a >= 2.0 ? 1.0 : 0.5;
      double iq = a >= 4.0 ? 0.5 : a >= 2.0 ? 1.0 : 2.0;
      double t = a * iq;
      double lo = (double) (gint32) (t < 12.0 ? t : 0.0);   /* NaN too */
      double frac = t - lo;
      double du = (double) (gint32) (u[i] ^ 0x80000000u) + 2147483648.0;
      double r = (lo + (du < frac * 4294967296.0 ? 1.0 : 0.0)) * q;

      r = r > 6.0 ? 6.0 : r;
      r = a >= 6.0 ? 6.0 : r;
      nc += a > 6.0;
      nf += (guint32) (mag != 0) & (guint32) (r == 0.0);
      dx[i] = f2u ((float) (r * S)) | (ux & 0x80000000u);
    }
  *flushed += nf;
  *clipped += nc;
}

/* The per-element path of the other rounding modes (and NVFP4 blocks whose
 * scale is zero): what nk_quantize() does, value by value. */
static void
block_slow (NkBlockFormat   format,
            const float    *src,
            float          *dst,
            guint           len,
            double          mul,
            NkRoundingMode  rounding,
            NkRng          *rng,
            NkQuantizeStats *st)
{
  const NkQuantElem *el = nk_quant_elem (format);

  for (guint i = 0; i < len; i++)
    {
      double v = src[i];
      gboolean negative = signbit (v) != 0;
      guint32 u = rounding == NK_ROUNDING_MODE_STOCHASTIC ? nk_rng_next_u32 (rng) : 0;
      double a = mul == 0.0 ? 0.0 : fabs (v) / mul;
      double r = nk_quant_round_mag (el, a, negative, rounding, u);

      st->clipped += a > el->max;
      st->flushed += v != 0.0 && r == 0.0;
      dst[i] = (float) ((negative ? -r : r) * mul);
    }
}

/* ---- NVFP4 nearest-even, vectorised across blocks ----------------------------
 *
 * GCC's vector extensions, eight 32-bit lanes (one AVX2 register in the avx2
 * clone, two SSE2 ones in the default). A row goes in chunks of NVFP4_CHUNK
 * 16-element blocks, in three passes whose results stay in L1:
 * - each block's amax, eight blocks at a time (reduced across registers);
 * - each block's record, eight blocks at a time with a block per lane, then
 *   transposed to a block per register: T = its seven bounds and its clip
 *   bound, V = 0 and its seven values (nvfp4_block_nearest()'s, for
 *   S = s_b × s_t with s_b as the scalar path rounds it);
 * - the elements, eight at a time: the code (the number of bounds passed) by
 *   a binary search over T's lanes, the value V[code].
 * The bounds of nvfp4_block_nearest() that are passed at ≥ are stored as the
 * float below them, passed at > (for floats y, y ≥ b ⟺ y > the float below b),
 * so that every bound is passed at > and, bounds never decreasing, the bounds
 * passed are the first code ones: the same code as the select chain, the same
 * bits. A block whose s_b is 0 gets bounds of +inf: every element becomes ±0
 * and is counted flushed, as block_slow() does for it. */
#if defined (__GNUC__)
/* every function taking or returning these is inlined: no ABI is crossed */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef float   nk_v8f __attribute__ ((vector_size (32)));
typedef gint32  nk_v8i __attribute__ ((vector_size (32)));
typedef double  nk_v4d __attribute__ ((vector_size (32)));
typedef gint64  nk_v4l __attribute__ ((vector_size (32)));
typedef float   nk_v4f __attribute__ ((vector_size (16)));

#define NVFP4_CHUNK 64

/* The small loops over lanes and registers below are unrolled (#pragma GCC
 * unroll: clang knows it too), so that their vectors stay in registers. */

/* The chunk's tables: records of eight floats per block. */
typedef struct {
  float amax[NVFP4_CHUNK];
  float T[8 * NVFP4_CHUNK];
  float V[8 * NVFP4_CHUNK];
} Nvfp4Chunk;

NK_INLINE nk_v8i
load_v8i (const float *p)
{
  nk_v8i v;

  memcpy (&v, p, sizeof v);
  return v;
}

NK_INLINE void
store_v8i (float  *p,
           nk_v8i  v)
{
  memcpy (p, &v, sizeof v);
}

NK_INLINE nk_v8i
splat_v8i (gint32 x)
{
  return (nk_v8i) { x, x, x, x, x, x, x, x };
}

NK_INLINE nk_v8f
splat_v8f (float x)
{
  nk_v8f v = { x };

  return __builtin_shufflevector (v, v, 0, 0, 0, 0, 0, 0, 0, 0);     /* one broadcast */
}

NK_INLINE nk_v8i
select_v8i (nk_v8i m,
            nk_v8i a,
            nk_v8i b)
{
  return (m & a) | (~m & b);
}

NK_INLINE nk_v8i
max_v8i (nk_v8i a,
         nk_v8i b)
{
  return select_v8i (a > b, a, b);
}

/* v[idx[j]] in lane j, idx in 0–7: one vpermd on AVX2 (clang, which has no
 * variable shuffle builtin, goes lane by lane) */
NK_INLINE nk_v8i
permute_v8i (nk_v8i v,
             nk_v8i idx)
{
#if defined (__GNUC__) && !defined (__clang__)
  return __builtin_shuffle (v, idx);
#else
  nk_v8i r;

  for (guint j = 0; j < 8; j++)
    r[j] = v[idx[j] & 7];
  return r;
#endif
}

/* Two-register shuffles: 32-bit pairs interleaved within 128-bit halves (LO1:
 * lanes 0 1 4 5 of a and b, HI1: 2 3 6 7), 64-bit pairs (LO2, HI2), the halves
 * (LO3: a's and b's low ones, HI3: their high ones). */
#define SHUFFLE_LO1(a, b) __builtin_shufflevector (a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define SHUFFLE_HI1(a, b) __builtin_shufflevector (a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define SHUFFLE_LO2(a, b) __builtin_shufflevector (a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define SHUFFLE_HI2(a, b) __builtin_shufflevector (a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define SHUFFLE_LO3(a, b) __builtin_shufflevector (a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define SHUFFLE_HI3(a, b) __builtin_shufflevector (a, b, 4, 5, 6, 7, 12, 13, 14, 15)

/* The largest |x| bit pattern of each of the eight blocks of 16 at p, lane j
 * block j's: each block's two registers, then pairs of registers folded into
 * one (shuffles within 128-bit halves, then across them). */
NK_INLINE nk_v8i
amax_8_blocks (const float *p)
{
  const nk_v8i abs = splat_v8i (0x7fffffff);
  nk_v8i m[8], x[4], y[2];

  #pragma GCC unroll 8
  for (guint j = 0; j < 8; j++)
    m[j] = max_v8i (load_v8i (p + 16 * j) & abs, load_v8i (p + 16 * j + 8) & abs);
  /* x[i]: the maxima of lanes {0,2} {1,3} {4,6} {5,7} of m[2i] and m[2i + 1],
   * interleaved; y: of lanes 0–3 and 4–7 of four blocks; then all eight */
  #pragma GCC unroll 8
  for (guint i = 0; i < 4; i++)
    x[i] = max_v8i (SHUFFLE_LO1 (m[2 * i], m[2 * i + 1]), SHUFFLE_HI1 (m[2 * i], m[2 * i + 1]));
  #pragma GCC unroll 8
  for (guint i = 0; i < 2; i++)
    y[i] = max_v8i (SHUFFLE_LO2 (x[2 * i], x[2 * i + 1]), SHUFFLE_HI2 (x[2 * i], x[2 * i + 1]));
  return max_v8i (SHUFFLE_LO3 (y[0], y[1]), SHUFFLE_HI3 (y[0], y[1]));
}

/* r[i][j] ↔ r[j][i]: unpacks of 32-bit, then 64-bit pairs within 128-bit
 * halves, then the halves. */
NK_INLINE void
transpose_8x8 (nk_v8i r[8])
{
  nk_v8i t[8], u[8];

  #pragma GCC unroll 8
  for (guint i = 0; i < 8; i += 2)
    {
      t[i] = SHUFFLE_LO1 (r[i], r[i + 1]);          /* columns 0 1 4 5 */
      t[i + 1] = SHUFFLE_HI1 (r[i], r[i + 1]);      /* columns 2 3 6 7 */
    }
  #pragma GCC unroll 8
  for (guint i = 0; i < 8; i += 4)
    #pragma GCC unroll 8
    for (guint j = 0; j < 2; j++)
      {
        u[i + 2 * j] = SHUFFLE_LO2 (t[i + j], t[i + j + 2]);
        u[i + 2 * j + 1] = SHUFFLE_HI2 (t[i + j], t[i + j + 2]);
      }
  /* u[0..3]: rows 0–3 of columns {0,4} {1,5} {2,6} {3,7}; u[4..7] rows 4–7 */
  #pragma GCC unroll 8
  for (guint j = 0; j < 4; j++)
    {
      r[j] = SHUFFLE_LO3 (u[j], u[j + 4]);
      r[j + 4] = SHUFFLE_HI3 (u[j], u[j + 4]);
    }
}

/* Lanes 0–3 (@hi FALSE) or 4–7 of a, widened to double. */
NK_INLINE nk_v4d
half_v4d (nk_v8f   a,
          gboolean hi)
{
  nk_v4f h = hi ? __builtin_shufflevector (a, a, 4, 5, 6, 7) : __builtin_shufflevector (a, a, 0, 1, 2, 3);

  return __builtin_convertvector (h, nk_v4d);
}

/* Two halves narrowed to float, as one register. */
NK_INLINE nk_v8f
join_v8f (nk_v4d lo,
          nk_v4d hi)
{
  return __builtin_shufflevector (__builtin_convertvector (lo, nk_v4f),
                                  __builtin_convertvector (hi, nk_v4f), 0, 1, 2, 3, 4, 5, 6, 7);
}

/* The low 32 bits of each 64-bit lane of lo, then of hi (comparison masks:
 * −1 or 0). */
NK_INLINE nk_v8i
join_masks (nk_v4l lo,
            nk_v4l hi)
{
  return __builtin_shufflevector ((nk_v8i) lo, (nk_v8i) hi, 0, 2, 4, 6, 8, 10, 12, 14);
}

/* round_nearest_d (x, 3, −6, 448), four lanes: e4m3's nearest-even value of x ≥ 0
 * (mantissa bits above 2^−6, the magic sum below), saturated. */
NK_INLINE nk_v4d
e4m3_nearest_v4 (nk_v4d x)
{
  const nk_v4l shift = { 49, 49, 49, 49 }, one = { 1, 1, 1, 1 };
  const nk_v4l half = one * ((G_GINT64_CONSTANT (1) << 48) - 1);
  const nk_v4l mask = ~(one * ((G_GINT64_CONSTANT (1) << 49) - 1));
  const nk_v4d maxv = { 448.0, 448.0, 448.0, 448.0 };
  nk_v4l ux = (nk_v4l) x;
  nk_v4l rn = (ux + half + ((ux >> shift) & one)) & mask;
  nk_v4d rs = (x + 0x1p43) - 0x1p43;
  nk_v4l sub = x < 0x1p-6;
  nk_v4d r = (nk_v4d) (((nk_v4l) rs & sub) | (rn & ~sub));
  nk_v4l big = r > 448.0;

  return (nk_v4d) (((nk_v4l) maxv & big) | ((nk_v4l) r & ~big));
}

/* The float bits of the largest float ≤ t (@strict FALSE: below_f (t)) or < t
 * (@strict TRUE: the float below above_f (t)) for the exact t = p × s_t, eight
 * lanes, in float alone: f = p × s_t rounded, and the sign of t − f =
 * (p × s_hi − f) + p × s_lo, where s_t = s_hi + s_lo splits s_t's significand
 * 12 + 12 bits. Exact for p of at most 12 significant bits (the products are then
 * exact, p × s_hi − f by Sterbenz's lemma, and a rounded sum has the sign of the
 * exact one) while nothing underflows or overflows: nvfp4_records_8_blocks()
 * takes this path for 2^−100 ≤ s_t ≤ 2^100 only. */
NK_INLINE nk_v8i
bound_split_v8 (nk_v8f   p,
                nk_v8f   st,
                nk_v8f   s_hi,
                nk_v8f   s_lo,
                gboolean strict)
{
  nk_v8f f = p * st;
  nk_v8f e = (p * s_hi - f) + p * s_lo;            /* t − f, its sign exact */

  return (nk_v8i) f + (strict ? e <= 0.0f : e < 0.0f);      /* −1: one float down */
}

/* The same through double, for any s_t: t = m × S exact in double. */
NK_INLINE nk_v8i
bound_double_v8 (double   m,
                 nk_v4d   S_lo,
                 nk_v4d   S_hi,
                 gboolean strict)
{
  nk_v4d t_lo = m * S_lo, t_hi = m * S_hi;
  nk_v8f f = join_v8f (t_lo, t_hi);
  nk_v4d b_lo = half_v4d (f, FALSE), b_hi = half_v4d (f, TRUE);

  return (nk_v8i) f + (strict ? join_masks (b_lo >= t_lo, b_hi >= t_hi)
                              : join_masks (b_lo > t_lo, b_hi > t_hi));
}

/* The records of blocks b … b + 7 of the chunk, from their amax: s_b in double
 * as round_nearest_d() gives it for amax / (6 s_t); the bounds m_k × S (k odd in
 * nvfp4_block_nearest()'s order, passed at ≥ there: strict) and 6 × S (the clip
 * bound); the values (float) (v_k × S). m_k × s_b and v_k × s_b are exact floats
 * (at most 7 significant bits), so a value is (v_k × s_b) × s_t in float, one
 * rounding of the exact product. */
NK_INLINE void
nvfp4_records_8_blocks (Nvfp4Chunk *ch,
                        gsize       b,
                        float       s_t,
                        gboolean    split)
{
  static const float mid[8] = { 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f };
  static const float val[7] = { 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f };
  const nk_v8f st = splat_v8f (s_t);
  const nk_v8f s_hi = (nk_v8f) ((nk_v8i) st & (gint32) 0xfffff000);
  const nk_v8f s_lo = st - s_hi;
  const double d6 = 6.0 * (double) s_t;
  nk_v8f amax, sb;
  nk_v4d sb_lo, sb_hi;
  nk_v8i zero, r[8];

  memcpy (&amax, ch->amax + b, sizeof amax);
  sb_lo = e4m3_nearest_v4 (half_v4d (amax, FALSE) / d6);
  sb_hi = e4m3_nearest_v4 (half_v4d (amax, TRUE) / d6);
  sb = join_v8f (sb_lo, sb_hi);                   /* exact: e4m3 values */
  zero = sb == 0.0f;
  #pragma GCC unroll 8
  for (guint k = 0; k < 8; k++)
    {
      gboolean strict = k % 2 == 1 && k < 7;

      r[k] = split ? bound_split_v8 (mid[k] * sb, st, s_hi, s_lo, strict)
                   : bound_double_v8 (mid[k], sb_lo * (double) s_t, sb_hi * (double) s_t, strict);
      r[k] = select_v8i (zero, splat_v8i (0x7f800000), r[k]);
    }
  transpose_8x8 (r);
  #pragma GCC unroll 8
  for (guint j = 0; j < 8; j++)
    store_v8i (ch->T + 8 * (b + j), r[j]);
  r[0] = splat_v8i (0);
  #pragma GCC unroll 8
  for (guint k = 0; k < 7; k++)
    r[k + 1] = (nk_v8i) ((val[k] * sb) * st);
  transpose_8x8 (r);
  #pragma GCC unroll 8
  for (guint j = 0; j < 8; j++)
    store_v8i (ch->V + 8 * (b + j), r[j]);
}

/* One block of 16 (at src, dst) with its records T and V: each element's code
 * by binary search (past T[3]? then T[1] or T[5]; then T[0], T[2], T[4] or
 * T[6]), its value V[code] with its sign. Counts in lanes: nc the elements past
 * the clip bound T[7], nf the flushed ones (code 0, less the zeros). */
NK_INLINE void
nvfp4_elements_16 (const float *src,
                   float       *dst,
                   nk_v8f       T,
                   nk_v8i       V,
                   nk_v8i      *nf,
                   nk_v8i      *nc)
{
  const nk_v8f t4 = __builtin_shufflevector (T, T, 3, 3, 3, 3, 3, 3, 3, 3);
  const nk_v8f tc = __builtin_shufflevector (T, T, 7, 7, 7, 7, 7, 7, 7, 7);

  #pragma GCC unroll 8
  for (guint h = 0; h < 16; h += 8)
    {
      nk_v8i x = load_v8i (src + h);
      nk_v8i mag = x & 0x7fffffff;
      nk_v8f a = (nk_v8f) mag;
      nk_v8i code = (a > t4) & 4;

      code |= (a > (nk_v8f) permute_v8i ((nk_v8i) T, code | 1)) & 2;
      code |= (a > (nk_v8f) permute_v8i ((nk_v8i) T, code)) & 1;
      *nc -= a > tc;                                 /* a mask is −1 */
      *nf += (mag == 0) - (code == 0);
      store_v8i (dst + h, permute_v8i (V, code) | (x ^ mag));
    }
}

NK_INLINE gint64
sum_v8i (nk_v8i v)
{
  gint64 s = 0;

  #pragma GCC unroll 8
  for (guint j = 0; j < 8; j++)
    s += v[j];
  return s;
}

/* n ≤ NVFP4_CHUNK full blocks of 16 at src, dst. */
NK_INLINE void
nvfp4_chunk_nearest16 (const float     *src,
                       float           *dst,
                       gsize            n,
                       float            s_t,
                       Nvfp4Chunk      *ch,
                       NkQuantizeStats *st)
{
  gboolean split = s_t >= 0x1p-100f && s_t <= 0x1p100f;
  nk_v8i nf = splat_v8i (0), nc = splat_v8i (0);
  gsize b = 0;

  for (; b + 8 <= n; b += 8)
    {
      nk_v8i m = amax_8_blocks (src + 16 * b);

      memcpy (ch->amax + b, &m, sizeof m);
    }
  for (; b < n; b++)
    ch->amax[b] = u2f (amax_bits (src + 16 * b, 16));
  for (; b % 8 != 0; b++)
    ch->amax[b] = 0.0f;
  for (gsize g = 0; g < b; g += 8)
    nvfp4_records_8_blocks (ch, g, s_t, split);
  for (b = 0; b < n; b++)
    nvfp4_elements_16 (src + 16 * b, dst + 16 * b, (nk_v8f) load_v8i (ch->T + 8 * b),
                       load_v8i (ch->V + 8 * b), &nf, &nc);
  st->flushed += (guint64) sum_v8i (nf);
  st->clipped += (guint64) sum_v8i (nc);
}

typedef gint32  nk_v4i __attribute__ ((vector_size (16)));

NK_INLINE nk_v4d
select_v4d (nk_v4l m,
            nk_v4d a,
            nk_v4d b)
{
  return (nk_v4d) ((m & (nk_v4l) a) | (~m & (nk_v4l) b));
}

NK_INLINE nk_v4d
splat_v4d (double x)
{
  return (nk_v4d) { x, x, x, x };
}

/* Four elements of nvfp4_block_stochastic(), its operations lane by lane (the
 * same bits): |x| / S in double, the binade's step q, the floor t of a / q below
 * 12 (the largest code's), up by one when the element's word u < frac · 2³². */
NK_INLINE void
nvfp4_stochastic_4 (const float   *src,
                    float         *dst,
                    nk_v4d         S,
                    const guint32 *u,
                    nk_v4l        *nf,
                    nk_v4l        *nc)
{
  const nk_v4d six = splat_v4d (6.0);
  nk_v4i ux, uw, mag, bits;
  nk_v4d a, q, iq, t, lo, du, r;
  nk_v4l ge4, ge2;

  memcpy (&ux, src, sizeof ux);
  memcpy (&uw, u, sizeof uw);
  mag = ux & 0x7fffffff;
  a = __builtin_convertvector ((nk_v4f) mag, nk_v4d) / S;
  ge4 = a >= 4.0;
  ge2 = a >= 2.0;
  q = select_v4d (ge4, splat_v4d (2.0), select_v4d (ge2, splat_v4d (1.0), splat_v4d (0.5)));
  iq = select_v4d (ge4, splat_v4d (0.5), select_v4d (ge2, splat_v4d (1.0), splat_v4d (2.0)));
  t = a * iq;
  lo = __builtin_convertvector (__builtin_convertvector (select_v4d (t < 12.0, t, splat_v4d (0.0)),
                                                        nk_v4i),
                                nk_v4d);                   /* NaN too */
  du = __builtin_convertvector (uw ^ (gint32) 0x80000000, nk_v4d) + 2147483648.0;
  r = (lo + select_v4d (du < (t - lo) * 4294967296.0, splat_v4d (1.0), splat_v4d (0.0))) * q;
  r = select_v4d (r > 6.0, six, r);
  r = select_v4d (a >= 6.0, six, r);
  *nc -= a > 6.0;                                          /* a mask is −1 */
  *nf -= __builtin_convertvector (mag != 0, nk_v4l) & (r == 0.0);
  bits = (nk_v4i) __builtin_convertvector (r * S, nk_v4f) | (ux & (gint32) 0x80000000);
  memcpy (dst, &bits, sizeof bits);
}

/* A full block of 16, stochastically (S ≠ 0): nvfp4_block_stochastic() four lanes
 * at a time. */
NK_INLINE void
nvfp4_block_stochastic16 (const float   *src,
                          float         *dst,
                          double         S,
                          const guint32 *u,
                          guint64       *flushed,
                          guint64       *clipped)
{
  nk_v4l nf = { 0, 0, 0, 0 }, nc = { 0, 0, 0, 0 };

  #pragma GCC unroll 4
  for (guint i = 0; i < 16; i += 4)
    nvfp4_stochastic_4 (src + i, dst + i, splat_v4d (S), u + i, &nf, &nc);
  *flushed += (guint64) (nf[0] + nf[1] + nf[2] + nf[3]);
  *clipped += (guint64) (nc[0] + nc[1] + nc[2] + nc[3]);
}

/* A row of nb full 16-element NVFP4 blocks, nearest-even (s_t ≠ 0). */
NK_INLINE void
nvfp4_row_nearest16 (const float     *src,
                     float           *dst,
                     gsize            nb,
                     float            s_t,
                     NkQuantizeStats *st)
{
  Nvfp4Chunk ch;

  for (gsize b0 = 0; b0 < nb; b0 += NVFP4_CHUNK)
    nvfp4_chunk_nearest16 (src + 16 * b0, dst + 16 * b0, MIN (nb - b0, NVFP4_CHUNK), s_t, &ch, st);
}

NK_CLONES static void
fake_nvfp4 (const float     *src,
            float           *dst,
            gsize            rows,
            gsize            cols,
            guint            block,
            NkRoundingMode   rounding,
            NkRng           *rng,
            NkQuantizeStats *st)
{
  float s_t = nk_quant_nvfp4_tensor_scale (u2f (amax_bits (src, rows * cols)));
  gboolean stochastic = rounding == NK_ROUNDING_MODE_STOCHASTIC;
  g_autofree guint32 *u = stochastic ? g_new (guint32, cols) : NULL;
  guint64 seed = 0, counter = 0;
  guint32 key[2] = { 0, 0 };

  if (stochastic)
    {
      nk_rng_get_state (rng, &seed, &counter);
      key[0] = (guint32) seed;
      key[1] = (guint32) (seed >> 32);
    }
  for (gsize r = 0; r < rows; r++)
    {
      /* one draw per element, row-major: this row's words in bulk */
      if (stochastic)
        {
          philox_words (key, counter, u, cols);
          counter += cols;
        }
      gsize c_start = 0;

      /* full blocks of 16, nearest-even: the row at once */
      if (rounding == NK_ROUNDING_MODE_NEAREST_EVEN && block == 16 && s_t != 0.0f && cols >= 16)
        {
          nvfp4_row_nearest16 (src + r * cols, dst + r * cols, cols / 16, s_t, st);
          c_start = cols / 16 * 16;
        }
      for (gsize c0 = c_start; c0 < cols; c0 += block)
        {
          gsize off = r * cols + c0;
          guint len = (guint) MIN ((gsize) block, cols - c0);
          double amax = u2f (len == 16 ? amax_bits (src + off, 16) : amax_bits (src + off, len));
          double s_b = s_t == 0.0f ? 0.0 : round_nearest_d (amax / (6.0 * s_t), 3, -6, 448.0);
          double S = s_b * s_t;

          if (rounding == NK_ROUNDING_MODE_NEAREST_EVEN && S != 0.0 && len == 16)
            nvfp4_block_nearest (src + off, dst + off, 16, S, &st->flushed, &st->clipped);
          else if (rounding == NK_ROUNDING_MODE_NEAREST_EVEN && S != 0.0)
            nvfp4_block_nearest (src + off, dst + off, len, S, &st->flushed, &st->clipped);
          else if (stochastic && S != 0.0 && len == 16)
            nvfp4_block_stochastic16 (src + off, dst + off, S, u + c0, &st->flushed, &st->clipped);
          else if (stochastic && S != 0.0)
            nvfp4_block_stochastic (src + off, dst + off, len, S, u + c0, &st->flushed, &st->clipped);
          else if (stochastic)
            {
              /* S = 0: every element is 0 (and no draw matters) */
              for (guint i = 0; i < len; i++)
                {
                  st->flushed += src[off + i] != 0.0f;
                  dst[off + i] = u2f (f2u (0.0f) | (f2u (src[off + i]) & 0x80000000u));
                }
            }
          else
            block_slow (NK_BLOCK_FORMAT_NVFP4, src + off, dst + off, len, S, rounding, rng, st);
        }
    }
  if (stochastic)
    nk_rng_set_state (rng, seed, counter);
}

static void
fake_mx_slow (NkBlockFormat    format,
              const float     *src,
              float           *dst,
              gsize            rows,
              gsize            cols,
              guint            block,
              NkMxScaleRule    rule,
              NkRoundingMode   rounding,
              NkRng           *rng,
              NkQuantizeStats *st)
{
  for (gsize r = 0; r < rows; r++)
    for (gsize c0 = 0; c0 < cols; c0 += block)
      {
        gsize off = r * cols + c0;
        guint len = (guint) MIN ((gsize) block, cols - c0);
        double amax = u2f (amax_bits (src + off, len));
        int e = nk_quant_mx_exponent (format, amax, rule);

        block_slow (format, src + off, dst + off, len, ldexp (1.0, e), rounding, rng, st);
      }
}

/**
 * nk_quantize_fake_f32: (skip)
 * @format: the block format
 * @src: (array): @rows × @cols finite floats, row-major
 * @dst: (array): where the dequantized values go (may be @src)
 * @rows: rows
 * @cols: columns; blocks run along each row, the last one short where @block
 *   does not divide @cols
 * @block: elements per block, at least 1
 * @rule: how an MX block's scale is picked (NVFP4 ignores it)
 * @rounding: how elements are rounded
 * @rng: (nullable): the generator for %NK_ROUNDING_MODE_STOCHASTIC (one 32-bit
 *   draw per element, row-major order); required for it
 * @stats: (nullable) (inout): counts to add to
 *
 * Quantize-then-dequantize for training: each element becomes the float32
 * nearest its dequantized value under @format (NVFP4's tensor scale taken over
 * the whole array), exactly what nk_quantize() gives for the same values one
 * row at a time. Non-finite input gives unspecified (but no undefined) results.
 */
void
nk_quantize_fake_f32 (NkBlockFormat    format,
                      const float     *src,
                      float           *dst,
                      gsize            rows,
                      gsize            cols,
                      guint            block,
                      NkMxScaleRule    rule,
                      NkRoundingMode   rounding,
                      NkRng           *rng,
                      NkQuantizeStats *stats)
{
  NkQuantizeStats st = { 0, 0, 0 };

  g_return_if_fail ((guint) format < NK_N_BLOCK_FORMATS);
  g_return_if_fail (block > 0);
  g_return_if_fail ((src != NULL && dst != NULL) || rows * cols == 0);
  g_return_if_fail (rounding != NK_ROUNDING_MODE_STOCHASTIC || rng != NULL);

  if (format == NK_BLOCK_FORMAT_NVFP4)
    fake_nvfp4 (src, dst, rows, cols, block, rounding, rng, &st);
  else if (rounding != NK_ROUNDING_MODE_NEAREST_EVEN)
    fake_mx_slow (format, src, dst, rows, cols, block, rule, rounding, rng, &st);
  else
    switch (format)
      {
      case NK_BLOCK_FORMAT_MXFP8_E4M3:
        mx_rows_e4m3 (src, dst, rows, cols, block, rule, &st.flushed, &st.clipped);
        break;
      case NK_BLOCK_FORMAT_MXFP8_E5M2:
        mx_rows_e5m2 (src, dst, rows, cols, block, rule, &st.flushed, &st.clipped);
        break;
      case NK_BLOCK_FORMAT_MXFP6_E3M2:
        mx_rows_e3m2 (src, dst, rows, cols, block, rule, &st.flushed, &st.clipped);
        break;
      case NK_BLOCK_FORMAT_MXFP6_E2M3:
        mx_rows_e2m3 (src, dst, rows, cols, block, rule, &st.flushed, &st.clipped);
        break;
      case NK_BLOCK_FORMAT_MXFP4:
        mx_rows_e2m1 (src, dst, rows, cols, block, rule, &st.flushed, &st.clipped);
        break;
      case NK_BLOCK_FORMAT_MXINT8:
        mx_rows_int8 (src, dst, rows, cols, block, rule, &st.flushed, &st.clipped);
        break;
      case NK_BLOCK_FORMAT_NVFP4:
      case NK_N_BLOCK_FORMATS:
      default:
        g_assert_not_reached ();
      }

  if (stats != NULL)
    {
      stats->elements += rows * cols;
      stats->flushed += st.flushed;
      stats->clipped += st.clipped;
    }
}

/* One butterfly stage of the rotation within a vector of eight: lanes without bit
 * @h take t[i] + t[i + h], lanes with it t[i − h] − t[i] (nk_qk_rotate16()'s a + b
 * and a − b, the same operands in the same order). */
#define ROTATE_STAGE(v, h, ...)                                                 \
  G_STMT_START {                                                                \
    nk_v8f p_ = __builtin_shufflevector ((v), (v), __VA_ARGS__);                \
    (v) = (nk_v8f) select_v8i (rotate_upper_##h, (nk_v8i) (p_ - (v)), (nk_v8i) ((v) + p_)); \
  } G_STMT_END

NK_CLONES static void
rotate16_rows (const float *src,
               float       *dst,
               gsize        nblocks,
               const float *factors)
{
  static const nk_v8i rotate_upper_1 = { 0, -1, 0, -1, 0, -1, 0, -1 };
  static const nk_v8i rotate_upper_2 = { 0, 0, -1, -1, 0, 0, -1, -1 };
  static const nk_v8i rotate_upper_4 = { 0, 0, 0, 0, -1, -1, -1, -1 };
  nk_v8f f_lo, f_hi;

  memcpy (&f_lo, factors, sizeof f_lo);
  memcpy (&f_hi, factors + 8, sizeof f_hi);
  for (gsize q = 0; q < nblocks; q++)
    {
      nk_v8f lo = (nk_v8f) load_v8i (src + 16 * q) * f_lo;
      nk_v8f hi = (nk_v8f) load_v8i (src + 16 * q + 8) * f_hi;
      nk_v8f sum;

      ROTATE_STAGE (lo, 1, 1, 0, 3, 2, 5, 4, 7, 6);
      ROTATE_STAGE (hi, 1, 1, 0, 3, 2, 5, 4, 7, 6);
      ROTATE_STAGE (lo, 2, 2, 3, 0, 1, 6, 7, 4, 5);
      ROTATE_STAGE (hi, 2, 2, 3, 0, 1, 6, 7, 4, 5);
      ROTATE_STAGE (lo, 4, 4, 5, 6, 7, 0, 1, 2, 3);
      ROTATE_STAGE (hi, 4, 4, 5, 6, 7, 0, 1, 2, 3);
      sum = lo + hi;
      hi = lo - hi;
      store_v8i (dst + 16 * q, (nk_v8i) sum);
      store_v8i (dst + 16 * q + 8, (nk_v8i) hi);
    }
}

#undef ROTATE_STAGE

/**
 * nk_quantize_rotate16_f32: (skip)
 * @src: (array): @n floats, @n a multiple of 16
 * @dst: (array): where the rotated floats go (may be @src)
 * @n: elements
 * @factors: (array fixed-size=16): s_j / 4 for a random sign s_j = ±1 per position
 *
 * NVFP4's random Hadamard transform (NVIDIA's NVFP4 training recipe): every block
 * of 16 consecutive floats x becomes H₁₆ · diag(s) · x / 4, H₁₆ Sylvester's 16 × 16
 * Hadamard matrix, an orthogonal map, so a product summed over the blocks' dimension
 * is unchanged in exact arithmetic while each block's values are mixed before
 * nk_quantize_fake_f32() quantizes them. The butterflies of the fast Walsh–Hadamard
 * transform in float32, in an order a device's quantize kernel repeats (the same
 * bits there).
 */
void
nk_quantize_rotate16_f32 (const float *src,
                           float       *dst,
                           gsize        n,
                           const float *factors)
{
  g_return_if_fail (n % NK_QK_ROTATION == 0);

  rotate16_rows (src, dst, n / NK_QK_ROTATION, factors);
}
