/* nk-dtype-bulk.c: float32 arrays to and from f16, bf16 and fp8, fast and exact
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every path here gives bit for bit what nk_dtype_encode() gives for the same
 * float (widened to double, which is exact) and what nk_dtype_decode() gives
 * narrowed to float, NaN included (canonical quiet NaN, sign kept): the tests
 * check that on all 2^32 float32 inputs for f16 and bf16.
 *
 * The portable paths are integer bit tricks; on x86-64 with AVX2 and F16C
 * (checked at run time) f16 uses the conversion instructions and bf16/fp8 use
 * AVX2 versions of the same bit tricks.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-dtype.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define NK_HAVE_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define NK_HAVE_X86 0
#endif

static gboolean force_portable;

/* A narrow IEEE-like format as the bit tricks need it. */
typedef struct {
  guint    e, m;             /* exponent and fraction bits */
  int      bias;
  guint32  max_mag;          /* largest finite magnitude pattern */
  guint32  ovf_default;      /* what overflow gives by default: inf, or NaN (e4m3) */
  guint32  nan_mag;          /* canonical quiet NaN */
  guint32  min_normal_f32;   /* f32 bits of 2^(1 − bias) */
  guint32  magic_f32;        /* f32 bits of 2^(1 − bias − m + 23), see narrow_from_f32 */
  gboolean nan_unsigned;     /* NaN gives nan_mag whatever its sign (fp6, fp4: +max) */
  gboolean no_neg_zero;      /* a zero result drops its sign (fnuz: −0 is NaN) */
} Narrow;

#define NARROW_X(E, M, BIAS, MAX, OVF, NANM, NAN_UNSIGNED, NO_NEG_ZERO) \
  { E, M, BIAS, MAX, OVF, NANM, (guint32) (127 + 1 - (BIAS)) << 23, \
    (guint32) (127 + 1 - (BIAS) - (M) + 23) << 23, NAN_UNSIGNED, NO_NEG_ZERO }
#define NARROW(E, M, BIAS, MAX, OVF, NANM) NARROW_X (E, M, BIAS, MAX, OVF, NANM, FALSE, FALSE)

static const Narrow narrow_f16 = NARROW (5, 10, 15, 0x7bff, 0x7c00, 0x7e00);
static const Narrow narrow_e4m3 = NARROW (4, 3, 7, 0x7e, 0x7f, 0x7f);
static const Narrow narrow_e5m2 = NARROW (5, 2, 15, 0x7b, 0x7c, 0x7e);
/* fp6 and fp4 always saturate and hold no NaN: a NaN becomes +max (see nk-dtype.h) */
static const Narrow narrow_e3m2 = NARROW_X (3, 2, 3, 0x1f, 0x1f, 0x1f, TRUE, FALSE);
static const Narrow narrow_e2m3 = NARROW_X (2, 3, 1, 0x1f, 0x1f, 0x1f, TRUE, FALSE);
static const Narrow narrow_e2m1 = NARROW_X (2, 1, 1, 0x7, 0x7, 0x7, TRUE, FALSE);
/* fnuz: overflow and NaN are 0x80, which the sign bit ORed in leaves alone */
static const Narrow narrow_e4m3fnuz = NARROW_X (4, 3, 8, 0x7f, 0x80, 0x80, FALSE, TRUE);
static const Narrow narrow_e5m2fnuz = NARROW_X (5, 2, 16, 0x7f, 0x80, 0x80, FALSE, TRUE);

/* The narrow formats of one byte per code, by dtype; NULL for the others. */
static const Narrow *
narrow_of (NkDType dtype)
{
  switch (dtype)
    {
    case NK_DTYPE_E4M3: return &narrow_e4m3;
    case NK_DTYPE_E5M2: return &narrow_e5m2;
    case NK_DTYPE_FP6_E3M2: return &narrow_e3m2;
    case NK_DTYPE_FP6_E2M3: return &narrow_e2m3;
    case NK_DTYPE_FP4_E2M1: return &narrow_e2m1;
    case NK_DTYPE_E4M3FNUZ: return &narrow_e4m3fnuz;
    case NK_DTYPE_E5M2FNUZ: return &narrow_e5m2fnuz;
    default: return NULL;
    }
}

static inline guint32
f32_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static inline float
f32_from_bits (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

/* f32 → narrow, round to nearest even. In the normal range, adding
 * 2^(s−1) − 1 + (lowest kept bit) and shifting right by s = 23 − m rounds the
 * fraction to even, and a carry into the exponent is the right answer. Below
 * the narrow format's min normal, adding magic = 2^(emin − m + 23) in float
 * makes the FPU round |x| to a multiple of 2^(emin − m), the subnormal quantum
 * (the sum's ulp); its bits minus magic's are the subnormal pattern. */
static inline guint32
narrow_from_f32 (const Narrow *fmt,
                 guint32       u,
                 gboolean      saturate)
{
  guint32 sign = (u >> 31) << (fmt->e + fmt->m);
  guint32 a = u & 0x7fffffff;
  guint32 r;

  if (a > 0x7f800000)
    return (fmt->nan_unsigned ? 0 : sign) | fmt->nan_mag;
  if (a < fmt->min_normal_f32)
    {
      float sum = f32_from_bits (a) + f32_from_bits (fmt->magic_f32);

      r = f32_bits (sum) - fmt->magic_f32;
    }
  else
    {
      guint s = 23 - fmt->m;

      r = (a + ((1u << (s - 1)) - 1) + ((a >> s) & 1)) >> s;
      r -= (guint32) (127 - fmt->bias) << fmt->m;
    }
  if (r > fmt->max_mag)
    r = saturate ? fmt->max_mag : fmt->ovf_default;
  if (r == 0 && fmt->no_neg_zero)
    return 0;
  return sign | r;
}

/* e8m0, the power of two at or below: a positive normal float's code is its own
 * biased exponent; float subnormals are below 2^−126, so 2^−127 (code 0, also
 * the clamp below 2^−127). Zero, negatives and NaN are 0xff; +inf overflows. */
static inline guint8
e8m0_from_f32 (guint32  u,
               gboolean saturate)
{
  guint32 ef = u >> 23;  /* sign and exponent */
  guint32 r = (u == 0 || ef >= 0xff) ? 0xff : ef;  /* +0; negative; inf and NaN */

  /* branch-free, so the loop vectorises */
  return (guint8) ((saturate && u == 0x7f800000) ? 0xfe : r);
}

/* narrow → f32, exact. */
static inline guint32
narrow_to_f32 (const Narrow *fmt,
               guint32       h)
{
  guint32 sign = (h >> (fmt->e + fmt->m)) << 31;
  guint32 be = (h >> fmt->m) & ((1u << fmt->e) - 1);
  guint32 f = h & ((1u << fmt->m) - 1);

  guint32 mag = h & ((1u << (fmt->e + fmt->m)) - 1);

  if (fmt->ovf_default == fmt->nan_mag)
    {
      /* no infinities (e4m3): one NaN magnitude, the rest of the top binade is normal */
      if (mag == fmt->nan_mag)
        return sign | 0x7fc00000;
    }
  else if (be == (1u << fmt->e) - 1)
    return sign | (f ? 0x7fc00000 : 0x7f800000);
  if (be == 0)
    {
      /* f × 2^(emin − m): exact in float */
      float v = (float) f * f32_from_bits ((guint32) (127 + 1 - fmt->bias - (int) fmt->m) << 23);

      return sign | f32_bits (v);
    }
  return sign | ((be - (guint32) fmt->bias + 127) << 23) | (f << (23 - fmt->m));
}

static inline guint16
bf16_from_f32 (guint32  u,
               gboolean saturate)
{
  guint32 r;

  if ((u & 0x7fffffff) > 0x7f800000)
    return (guint16) (((u >> 16) & 0x8000) | 0x7fc0);
  /* bf16 is the top half of f32: round the bottom half to nearest even. A carry
   * out of the largest finite value lands exactly on inf. */
  r = (u + 0x7fff + ((u >> 16) & 1)) >> 16;
  if (saturate && (r & 0x7fff) == 0x7f80)
    r -= 1;
  return (guint16) r;
}

static inline guint32
bf16_to_f32 (guint16 h)
{
  guint32 u = (guint32) h << 16;

  if ((u & 0x7fffffff) > 0x7f800000)
    return (u & 0x80000000) | 0x7fc00000;
  return u;
}

static inline guint32
f32_canonical (guint32 u)
{
  if ((u & 0x7fffffff) > 0x7f800000)
    return (u & 0x80000000) | 0x7fc00000;
  return u;
}

/* fp8 → f32 by table: 256 entries. */
static guint32 e4m3_table[256];
static guint32 e5m2_table[256];
/* the formats of issue 25, from the scalar decoder (exact in float) */
static guint32 low_tables[6][256];

static guint32 *
low_table (NkDType dtype)
{
  return (guint) dtype >= NK_DTYPE_FP6_E3M2 && dtype <= NK_DTYPE_E5M2FNUZ
         ? low_tables[dtype - NK_DTYPE_FP6_E3M2] : NULL;
}

static void
ensure_fp8_tables (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      for (guint i = 0; i < 256; i++)
        {
          e4m3_table[i] = narrow_to_f32 (&narrow_e4m3, i);
          e5m2_table[i] = narrow_to_f32 (&narrow_e5m2, i);
        }
      for (NkDType d = NK_DTYPE_FP6_E3M2; d <= NK_DTYPE_E5M2FNUZ; d++)
        for (guint i = 0; i < 256; i++)
          {
            guint32 u = 0x7fc00000;

            if ((i & ~nk_dtype_bits_mask (d)) == 0)
              {
                double v = nk_dtype_to_double (d, i);

                if (isnan (v))
                  u = signbit (v) ? 0xffc00000 : 0x7fc00000;
                else
                  u = f32_bits ((float) v);
              }
            low_tables[d - NK_DTYPE_FP6_E3M2][i] = u;
          }
      g_once_init_leave (&initialized, 1);
    }
}

/* ---- portable loops -------------------------------------------------------- */

static void
from_f32_portable (NkDType      dtype,
                   const float *src,
                   void        *dst,
                   gsize        n,
                   gboolean     saturate)
{
  const guint32 *in = (const guint32 *) src;

  switch (dtype)
    {
    case NK_DTYPE_F32:
      for (gsize i = 0; i < n; i++)
        {
          guint32 u = f32_canonical (in[i]);

          if (saturate && (u & 0x7fffffff) == 0x7f800000)
            u -= 1;
          ((guint32 *) dst)[i] = u;
        }
      break;
    case NK_DTYPE_F16:
      for (gsize i = 0; i < n; i++)
        ((guint16 *) dst)[i] = (guint16) narrow_from_f32 (&narrow_f16, in[i], saturate);
      break;
    case NK_DTYPE_BF16:
      for (gsize i = 0; i < n; i++)
        ((guint16 *) dst)[i] = bf16_from_f32 (in[i], saturate);
      break;
    case NK_DTYPE_E4M3:
      for (gsize i = 0; i < n; i++)
        ((guint8 *) dst)[i] = (guint8) narrow_from_f32 (&narrow_e4m3, in[i], saturate);
      break;
    case NK_DTYPE_E5M2:
      for (gsize i = 0; i < n; i++)
        ((guint8 *) dst)[i] = (guint8) narrow_from_f32 (&narrow_e5m2, in[i], saturate);
      break;
    case NK_DTYPE_E8M0:
      for (gsize i = 0; i < n; i++)
        ((guint8 *) dst)[i] = e8m0_from_f32 (in[i], saturate);
      break;
    default:
      {
        const Narrow *fmt = narrow_of (dtype);

        g_return_if_fail (fmt != NULL);
        for (gsize i = 0; i < n; i++)
          ((guint8 *) dst)[i] = (guint8) narrow_from_f32 (fmt, in[i], saturate);
      }
    }
}

static void
to_f32_portable (NkDType     dtype,
                 const void *src,
                 float      *dst,
                 gsize       n)
{
  guint32 *out = (guint32 *) dst;

  switch (dtype)
    {
    case NK_DTYPE_F32:
      for (gsize i = 0; i < n; i++)
        out[i] = f32_canonical (((const guint32 *) src)[i]);
      break;
    case NK_DTYPE_F16:
      for (gsize i = 0; i < n; i++)
        out[i] = narrow_to_f32 (&narrow_f16, ((const guint16 *) src)[i]);
      break;
    case NK_DTYPE_BF16:
      for (gsize i = 0; i < n; i++)
        out[i] = bf16_to_f32 (((const guint16 *) src)[i]);
      break;
    case NK_DTYPE_E4M3:
      ensure_fp8_tables ();
      for (gsize i = 0; i < n; i++)
        out[i] = e4m3_table[((const guint8 *) src)[i]];
      break;
    case NK_DTYPE_E5M2:
      ensure_fp8_tables ();
      for (gsize i = 0; i < n; i++)
        out[i] = e5m2_table[((const guint8 *) src)[i]];
      break;
    default:
      {
        const guint32 *table = low_table (dtype);

        g_return_if_fail (table != NULL);
        ensure_fp8_tables ();
        for (gsize i = 0; i < n; i++)
          out[i] = table[((const guint8 *) src)[i]];
      }
    }
}

/* ---- x86-64: AVX2 and F16C ------------------------------------------------- */

#if NK_HAVE_X86

#define NK_TARGET __attribute__((target ("avx2,f16c")))

/* NaN lanes → sign | 0x7fc00000, so the instructions produce the canonical NaN. */
NK_TARGET static inline __m256
canonical_nan_ps (__m256 x)
{
  __m256 nan_lanes = _mm256_cmp_ps (x, x, _CMP_UNORD_Q);
  __m256 canonical = _mm256_or_ps (_mm256_and_ps (x, _mm256_castsi256_ps (_mm256_set1_epi32 ((int) 0x80000000))),
                                   _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fc00000)));

  return _mm256_blendv_ps (x, canonical, nan_lanes);
}

NK_TARGET static void
f16_from_f32_f16c (const float *src,
                   guint16     *dst,
                   gsize        n,
                   gboolean     saturate)
{
  const __m256 max = _mm256_set1_ps (65504.0f);
  const __m256 min = _mm256_set1_ps (-65504.0f);
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256 x = _mm256_loadu_ps (src + i);

      if (saturate)
        {
          /* min/max return the second operand for NaN: x second keeps NaN */
          x = _mm256_min_ps (max, x);
          x = _mm256_max_ps (min, x);
        }
      x = canonical_nan_ps (x);
      _mm_storeu_si128 ((__m128i *) (dst + i),
                        _mm256_cvtps_ph (x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
  for (; i < n; i++)
    dst[i] = (guint16) narrow_from_f32 (&narrow_f16, f32_bits (src[i]), saturate);
}

NK_TARGET static void
f16_to_f32_f16c (const guint16 *src,
                 float         *dst,
                 gsize          n)
{
  const __m256 nan_keep = _mm256_castsi256_ps (_mm256_set1_epi32 ((int) 0xffc00000));
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256 x = _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) (src + i)));
      __m256 nan_lanes = _mm256_cmp_ps (x, x, _CMP_UNORD_Q);

      /* the instruction keeps the payload; the sign and quiet bit alone stay */
      x = _mm256_blendv_ps (x, _mm256_and_ps (x, nan_keep), nan_lanes);
      _mm256_storeu_ps (dst + i, x);
    }
  for (; i < n; i++)
    ((guint32 *) dst)[i] = narrow_to_f32 (&narrow_f16, src[i]);
}

NK_TARGET static inline __m256i
bf16_from_f32_avx2_8 (__m256i  u,
                      gboolean saturate)
{
  const __m256i abs_mask = _mm256_set1_epi32 (0x7fffffff);
  const __m256i inf = _mm256_set1_epi32 (0x7f800000);
  __m256i a = _mm256_and_si256 (u, abs_mask);
  __m256i nan_lanes = _mm256_cmpgt_epi32 (a, inf);
  __m256i lsb = _mm256_and_si256 (_mm256_srli_epi32 (u, 16), _mm256_set1_epi32 (1));
  __m256i r = _mm256_srli_epi32 (_mm256_add_epi32 (_mm256_add_epi32 (u, _mm256_set1_epi32 (0x7fff)), lsb), 16);
  __m256i nan_value = _mm256_or_si256 (_mm256_and_si256 (_mm256_srli_epi32 (u, 16), _mm256_set1_epi32 (0x8000)),
                                       _mm256_set1_epi32 (0x7fc0));

  if (saturate)
    {
      __m256i inf_lanes = _mm256_cmpeq_epi32 (_mm256_and_si256 (r, _mm256_set1_epi32 (0x7fff)),
                                              _mm256_set1_epi32 (0x7f80));

      r = _mm256_add_epi32 (r, inf_lanes);  /* −1 on inf lanes: 0x7f80 → 0x7f7f */
    }
  return _mm256_blendv_epi8 (r, nan_value, nan_lanes);
}

NK_TARGET static void
bf16_from_f32_avx2 (const float *src,
                    guint16     *dst,
                    gsize        n,
                    gboolean     saturate)
{
  gsize i = 0;

  for (; i + 16 <= n; i += 16)
    {
      __m256i r0 = bf16_from_f32_avx2_8 (_mm256_loadu_si256 ((const __m256i *) (src + i)), saturate);
      __m256i r1 = bf16_from_f32_avx2_8 (_mm256_loadu_si256 ((const __m256i *) (src + i + 8)), saturate);
      __m256i packed = _mm256_permute4x64_epi64 (_mm256_packus_epi32 (r0, r1), 0xd8);

      _mm256_storeu_si256 ((__m256i *) (dst + i), packed);
    }
  for (; i < n; i++)
    dst[i] = bf16_from_f32 (f32_bits (src[i]), saturate);
}

NK_TARGET static void
bf16_to_f32_avx2 (const guint16 *src,
                  float         *dst,
                  gsize          n)
{
  const __m256i abs_mask = _mm256_set1_epi32 (0x7fffffff);
  const __m256i inf = _mm256_set1_epi32 (0x7f800000);
  const __m256i nan_keep = _mm256_set1_epi32 ((int) 0x80000000);
  const __m256i quiet = _mm256_set1_epi32 (0x7fc00000);
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256i u = _mm256_slli_epi32 (_mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) (src + i))), 16);
      __m256i nan_lanes = _mm256_cmpgt_epi32 (_mm256_and_si256 (u, abs_mask), inf);
      __m256i canonical = _mm256_or_si256 (_mm256_and_si256 (u, nan_keep), quiet);

      _mm256_storeu_si256 ((__m256i *) (dst + i), _mm256_blendv_epi8 (u, canonical, nan_lanes));
    }
  for (; i < n; i++)
    ((guint32 *) dst)[i] = bf16_to_f32 (src[i]);
}

/* narrow_from_f32 on 8 lanes: both roundings computed, then chosen per lane. */
NK_TARGET static inline __m256i
narrow_from_f32_avx2_8 (const Narrow *fmt,
                        __m256i       u,
                        gboolean      saturate)
{
  const guint s = 23 - fmt->m;
  __m256i a = _mm256_and_si256 (u, _mm256_set1_epi32 (0x7fffffff));
  __m256i sign = _mm256_slli_epi32 (_mm256_srli_epi32 (u, 31), (int) (fmt->e + fmt->m));
  __m256i magic = _mm256_set1_epi32 ((int) fmt->magic_f32);
  __m256i sub = _mm256_sub_epi32 (_mm256_castps_si256 (_mm256_add_ps (_mm256_castsi256_ps (a),
                                                                      _mm256_castsi256_ps (magic))),
                                  magic);
  __m256i lsb = _mm256_and_si256 (_mm256_srli_epi32 (a, (int) s), _mm256_set1_epi32 (1));
  __m256i norm = _mm256_srli_epi32 (_mm256_add_epi32 (_mm256_add_epi32 (a, _mm256_set1_epi32 ((1 << (s - 1)) - 1)), lsb),
                                    (int) s);
  __m256i is_sub, ovf, nan_lanes, r;

  norm = _mm256_sub_epi32 (norm, _mm256_set1_epi32 ((127 - fmt->bias) << fmt->m));
  is_sub = _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) fmt->min_normal_f32), a);
  r = _mm256_blendv_epi8 (norm, sub, is_sub);
  ovf = _mm256_cmpgt_epi32 (r, _mm256_set1_epi32 ((int) fmt->max_mag));
  r = _mm256_blendv_epi8 (r, _mm256_set1_epi32 ((int) (saturate ? fmt->max_mag : fmt->ovf_default)), ovf);
  nan_lanes = _mm256_cmpgt_epi32 (a, _mm256_set1_epi32 (0x7f800000));
  r = _mm256_blendv_epi8 (r, _mm256_set1_epi32 ((int) fmt->nan_mag), nan_lanes);
  if (fmt->nan_unsigned)
    sign = _mm256_andnot_si256 (nan_lanes, sign);
  if (fmt->no_neg_zero)
    sign = _mm256_andnot_si256 (_mm256_cmpeq_epi32 (r, _mm256_setzero_si256 ()), sign);
  return _mm256_or_si256 (r, sign);
}

/* e8m0_from_f32 on 8 lanes */
NK_TARGET static inline __m256i
e8m0_from_f32_avx2_8 (__m256i  u,
                      gboolean saturate)
{
  __m256i ef = _mm256_srli_epi32 (u, 23);
  __m256i bad = _mm256_or_si256 (_mm256_cmpeq_epi32 (u, _mm256_setzero_si256 ()),
                                 _mm256_cmpgt_epi32 (ef, _mm256_set1_epi32 (0xfe)));
  __m256i r = _mm256_blendv_epi8 (ef, _mm256_set1_epi32 (0xff), bad);

  if (saturate)
    r = _mm256_blendv_epi8 (r, _mm256_set1_epi32 (0xfe),
                            _mm256_cmpeq_epi32 (u, _mm256_set1_epi32 (0x7f800000)));
  return r;
}

/* One byte per code: @fmt's narrow format, or e8m0 where @fmt is NULL. */
NK_TARGET static inline __m256i
byte_codes_avx2_8 (const Narrow *fmt,
                   __m256i       u,
                   gboolean      saturate)
{
  return fmt != NULL ? narrow_from_f32_avx2_8 (fmt, u, saturate) : e8m0_from_f32_avx2_8 (u, saturate);
}

NK_TARGET static void
fp8_from_f32_avx2 (const Narrow *fmt,
                   const float  *src,
                   guint8       *dst,
                   gsize         n,
                   gboolean      saturate)
{
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  gsize i = 0;

  for (; i + 32 <= n; i += 32)
    {
      __m256i r0 = byte_codes_avx2_8 (fmt, _mm256_loadu_si256 ((const __m256i *) (src + i)), saturate);
      __m256i r1 = byte_codes_avx2_8 (fmt, _mm256_loadu_si256 ((const __m256i *) (src + i + 8)), saturate);
      __m256i r2 = byte_codes_avx2_8 (fmt, _mm256_loadu_si256 ((const __m256i *) (src + i + 16)), saturate);
      __m256i r3 = byte_codes_avx2_8 (fmt, _mm256_loadu_si256 ((const __m256i *) (src + i + 24)), saturate);
      __m256i p01 = _mm256_packus_epi32 (r0, r1);
      __m256i p23 = _mm256_packus_epi32 (r2, r3);
      __m256i bytes = _mm256_packus_epi16 (p01, p23);

      _mm256_storeu_si256 ((__m256i *) (dst + i), _mm256_permutevar8x32_epi32 (bytes, order));
    }
  for (; i < n; i++)
    dst[i] = fmt != NULL ? (guint8) narrow_from_f32 (fmt, f32_bits (src[i]), saturate)
                         : e8m0_from_f32 (f32_bits (src[i]), saturate);
}

static gboolean
have_avx2_f16c (void)
{
  static gsize checked = 0;
  static gboolean have = FALSE;

  if (g_once_init_enter (&checked))
    {
      unsigned int eax, ebx, ecx, edx;

      /* cpuid rather than __builtin_cpu_supports ("f16c"), which clang 14 (the
       * fuzz build's compiler) does not know: leaf 1 ECX bit 29 is F16C, leaf 7 EBX
       * bit 5 AVX2; OSXSAVE (ECX bit 27) says the OS saves the YMM registers. */
      __builtin_cpu_init ();
      have = __builtin_cpu_supports ("avx2")
             && __get_cpuid (1, &eax, &ebx, &ecx, &edx)
             && (ecx & (1u << 29)) != 0 && (ecx & (1u << 27)) != 0;
      g_once_init_leave (&checked, 1);
    }
  return have;
}

#endif /* NK_HAVE_X86 */

static gboolean
use_simd (void)
{
#if NK_HAVE_X86
  return !force_portable && have_avx2_f16c ();
#else
  return FALSE;
#endif
}

static gboolean
is_bulk_dtype (NkDType dtype)
{
  return dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F16 || dtype == NK_DTYPE_BF16 ||
         dtype == NK_DTYPE_E8M0 || narrow_of (dtype) != NULL;
}

/**
 * nk_dtype_convert_from_f32:
 * @dtype: f32, f16, bf16, e4m3, e5m2, or one of the low-precision formats
 *   (fp6-e3m2, fp6-e2m3, fp4-e2m1, e8m0, e4m3fnuz, e5m2fnuz: one code per byte,
 *   not packed)
 * @src: (array length=n): floats
 * @dst: room for @n elements of @dtype
 * @n: number of elements
 * @overflow: what magnitudes beyond the max become
 *
 * Rounds every element as nk_dtype_encode() does, bit for bit, NaN included.
 */
void
nk_dtype_convert_from_f32 (NkDType      dtype,
                           const float *src,
                           void        *dst,
                           gsize        n,
                           NkOverflow   overflow)
{
  gboolean saturate = overflow == NK_OVERFLOW_SATURATE;

  g_return_if_fail (is_bulk_dtype (dtype));
  g_return_if_fail (n == 0 || (src != NULL && dst != NULL));

#if NK_HAVE_X86
  if (use_simd ())
    switch (dtype)
      {
      case NK_DTYPE_F16:
        f16_from_f32_f16c (src, dst, n, saturate);
        return;
      case NK_DTYPE_BF16:
        bf16_from_f32_avx2 (src, dst, n, saturate);
        return;
      case NK_DTYPE_E4M3:
        fp8_from_f32_avx2 (&narrow_e4m3, src, dst, n, saturate);
        return;
      case NK_DTYPE_E5M2:
      case NK_DTYPE_FP6_E3M2:
      case NK_DTYPE_FP6_E2M3:
      case NK_DTYPE_FP4_E2M1:
      case NK_DTYPE_E4M3FNUZ:
      case NK_DTYPE_E5M2FNUZ:
      case NK_DTYPE_E8M0:
        fp8_from_f32_avx2 (narrow_of (dtype), src, dst, n, saturate);
        return;
      case NK_DTYPE_F32:
      default:
        break;
      }
#endif
  from_f32_portable (dtype, src, dst, n, saturate);
}

/**
 * nk_dtype_convert_to_f32:
 * @dtype: any format nk_dtype_convert_from_f32() takes
 * @src: @n elements of @dtype
 * @dst: (array length=n): room for @n floats
 * @n: number of elements
 *
 * Widens every element exactly, as nk_dtype_decode() does; NaN becomes the
 * canonical float NaN with its sign.
 */
void
nk_dtype_convert_to_f32 (NkDType     dtype,
                         const void *src,
                         float      *dst,
                         gsize       n)
{
  g_return_if_fail (is_bulk_dtype (dtype));
  g_return_if_fail (n == 0 || (src != NULL && dst != NULL));

#if NK_HAVE_X86
  if (use_simd ())
    switch (dtype)
      {
      case NK_DTYPE_F16:
        f16_to_f32_f16c (src, dst, n);
        return;
      case NK_DTYPE_BF16:
        bf16_to_f32_avx2 (src, dst, n);
        return;
      case NK_DTYPE_F32:
      case NK_DTYPE_E4M3:
      case NK_DTYPE_E5M2:
      default:
        break;
      }
#endif
  to_f32_portable (dtype, src, dst, n);
}

/**
 * nk_dtype_bulk_path:
 * @dtype: a format
 *
 * Which conversion code path this machine takes (SIMD or portable) for @dtype; the
 * results are the same bit for bit either way.
 *
 * Returns: a short name of the code path that conversion from f32 to @dtype
 *   takes on this machine now, e.g. "f16c", "avx2" or "portable" (for
 *   benchmarks and reports)
 */
const char *
nk_dtype_bulk_path (NkDType dtype)
{
  if (!is_bulk_dtype (dtype) || !use_simd ())
    return "portable";
  switch (dtype)
    {
    case NK_DTYPE_F16: return "f16c";
    case NK_DTYPE_BF16:
    case NK_DTYPE_E4M3:
    case NK_DTYPE_E5M2:
    case NK_DTYPE_FP6_E3M2:
    case NK_DTYPE_FP6_E2M3:
    case NK_DTYPE_FP4_E2M1:
    case NK_DTYPE_E4M3FNUZ:
    case NK_DTYPE_E5M2FNUZ:
    case NK_DTYPE_E8M0: return "avx2";
    case NK_DTYPE_F32:
    default: return "portable";
    }
}

/**
 * nk_dtype_bulk_force_portable:
 * @portable: %TRUE to use the portable paths even where SIMD exists
 *
 * For tests and benchmarks, so both paths are checked on one machine. Not
 * thread-safe against conversions running at the time.
 */
void
nk_dtype_bulk_force_portable (gboolean portable)
{
  force_portable = portable;
}
