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

#define NK_INLINE static inline __attribute__((always_inline))

/* x86-64: an AVX2 copy of the hot loops too, picked at load time */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
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

/* A row of full 16-element NVFP4 blocks, nearest-even, in three passes so that
 * the per-block work vectorises across blocks as the element work does: each
 * block's amax; its S and float bounds and values (nvfp4_block_nearest()'s, in
 * arrays of nb, P[k × nb + b]); the elements. Blocks with S = 0 take
 * block_slow(). P holds 17 × nb floats. */
static void block_slow (NkBlockFormat, const float *, float *, guint, double,
                        NkRoundingMode, NkRng *, NkQuantizeStats *);

NK_INLINE void
nvfp4_row_nearest16 (const float     *src,
                     float           *dst,
                     gsize            nb,
                     float            s_t,
                     float           *P,
                     NkQuantizeStats *st)
{
  const nk_u32_alias *sx = (const nk_u32_alias *) src;
  nk_u32_alias *dx = (nk_u32_alias *) dst;
  nk_u32_alias *Pu = (nk_u32_alias *) P;
  const double d6 = 6.0 * s_t;
  guint32 nf = 0, nc = 0;

  for (gsize b = 0; b < nb; b++)
    Pu[16 * nb + b] = amax_bits (src + 16 * b, 16);
  for (gsize b = 0; b < nb; b++)
    {
      double S = round_nearest_d ((double) u2f (Pu[16 * nb + b]) / d6, 3, -6, 448.0) * s_t;

      P[0 * nb + b] = below_f (0.25 * S);
      P[1 * nb + b] = above_f (0.75 * S);
      P[2 * nb + b] = below_f (1.25 * S);
      P[3 * nb + b] = above_f (1.75 * S);
      P[4 * nb + b] = below_f (2.5 * S);
      P[5 * nb + b] = above_f (3.5 * S);
      P[6 * nb + b] = below_f (5.0 * S);
      P[7 * nb + b] = below_f (6.0 * S);
      P[8 * nb + b] = (float) (0.5 * S);
      P[9 * nb + b] = (float) S;
      P[10 * nb + b] = (float) (1.5 * S);
      P[11 * nb + b] = (float) (2.0 * S);
      P[12 * nb + b] = (float) (3.0 * S);
      P[13 * nb + b] = (float) (4.0 * S);
      P[14 * nb + b] = (float) (6.0 * S);
      Pu[15 * nb + b] = S == 0.0;
    }
  for (gsize b = 0; b < nb; b++)
    {
      const float t1 = P[b], t2 = P[nb + b], t3 = P[2 * nb + b], t4 = P[3 * nb + b];
      const float t5 = P[4 * nb + b], t6 = P[5 * nb + b], t7 = P[6 * nb + b], tc = P[7 * nb + b];
      const guint32 v1 = Pu[8 * nb + b], v2 = Pu[9 * nb + b], v3 = Pu[10 * nb + b];
      const guint32 v4 = Pu[11 * nb + b], v5 = Pu[12 * nb + b], v6 = Pu[13 * nb + b];
      const guint32 v7 = Pu[14 * nb + b];

      if (G_UNLIKELY (Pu[15 * nb + b]))
        {
          block_slow (NK_BLOCK_FORMAT_NVFP4, src + 16 * b, dst + 16 * b, 16, 0.0,
                      NK_ROUNDING_MODE_NEAREST_EVEN, NULL, st);
          continue;
        }
      for (guint i = 0; i < 16; i++)
        {
          guint32 ux = sx[16 * b + i];
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
          dx[16 * b + i] = r | (ux & 0x80000000u);
        }
    }
  st->flushed += nf;
  st->clipped += nc;
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
  g_autofree float *P = rounding == NK_ROUNDING_MODE_NEAREST_EVEN && block == 16
                        ? g_new (float, 17 * (cols / 16) + 1) : NULL;
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
          nvfp4_row_nearest16 (src + r * cols, dst + r * cols, cols / 16, s_t, P, st);
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
            nvfp4_block_stochastic (src + off, dst + off, 16, S, u + c0, &st->flushed, &st->clipped);
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
