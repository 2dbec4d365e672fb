/* test-dtype.c: number formats against an oracle written here, not in nk-dtype
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The oracle is the textbook definition, on integers: a pattern s|e|f means
 * (−1)^s × n × 2^k with n = f (+ 2^M for normals) and k = max(e, 1) − bias − M.
 * Rounding is checked against midpoints of neighbouring values, which are exact
 * doubles for every format tested here.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-dtype.h"

typedef struct {
  NkDType  dtype;
  guint    bits, e, m;
  int      bias;
  gboolean fn;  /* E4M3FN: no inf, only all-ones NaN */
} Spec;

/* From the IEEE 754 and OCP FP8 specifications, typed here on purpose. */
static const Spec specs[] = {
  { NK_DTYPE_F16,  16, 5, 10, 15,  FALSE },
  { NK_DTYPE_BF16, 16, 8, 7,  127, FALSE },
  { NK_DTYPE_E4M3, 8,  4, 3,  7,   TRUE },
  { NK_DTYPE_E5M2, 8,  5, 2,  15,  FALSE },
};

typedef struct {
  NkDTypeClass klass;
  guint        sign;
  int          exponent;
  guint64      mantissa;
  double       value;
} Oracle;

static void
oracle_decode (const Spec *s,
               guint64     bits,
               Oracle     *o)
{
  guint64 e_all = (1u << s->e) - 1;
  guint64 f_all = (1u << s->m) - 1;
  guint64 e = (bits >> s->m) & e_all;
  guint64 f = bits & f_all;
  guint64 n;
  int k;

  o->sign = (bits >> (s->bits - 1)) & 1;
  o->mantissa = f;
  if ((!s->fn && e == e_all) || (s->fn && e == e_all && f == f_all))
    {
      o->klass = (s->fn || f != 0) ? NK_DTYPE_CLASS_NAN : NK_DTYPE_CLASS_INF;
      o->exponent = 0;
      o->value = o->klass == NK_DTYPE_CLASS_NAN ? NAN : (o->sign ? -INFINITY : INFINITY);
      return;
    }
  o->klass = e == 0 ? (f == 0 ? NK_DTYPE_CLASS_ZERO : NK_DTYPE_CLASS_SUBNORMAL) : NK_DTYPE_CLASS_NORMAL;
  n = e == 0 ? f : f + (G_GUINT64_CONSTANT (1) << s->m);
  k = (int) (e == 0 ? 1 : e) - s->bias - (int) s->m;
  o->exponent = (int) (e == 0 ? 1 : e) - s->bias;
  /* n × 2^k by repeated doubling/halving: exact, and not ldexp */
  o->value = (double) n;
  for (; k > 0; k--)
    o->value *= 2;
  for (; k < 0; k++)
    o->value /= 2;
  if (o->sign)
    o->value = -o->value;
}

static gboolean
same_double (double a,
             double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  return a == b && signbit (a) == signbit (b);
}

static void
test_decode_exhaustive (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];

      for (guint64 bits = 0; bits < (G_GUINT64_CONSTANT (1) << s->bits); bits++)
        {
          NkDTypeDecoded d;
          Oracle o;
          guint64 again;

          oracle_decode (s, bits, &o);
          g_assert_true (nk_dtype_decode (s->dtype, bits, &d));
          g_assert_cmpint (d.klass, ==, o.klass);
          g_assert_cmpuint (d.sign, ==, o.sign);
          g_assert_cmpuint (d.mantissa, ==, o.mantissa);
          if (o.klass != NK_DTYPE_CLASS_NAN && o.klass != NK_DTYPE_CLASS_INF)
            g_assert_cmpint (d.exponent, ==, o.exponent);
          if (!same_double (d.value, o.value))
            g_error ("%s 0x%" G_GINT64_MODIFIER "x: %.17g, oracle %.17g",
                     nk_dtype_info (s->dtype)->cli_name, bits, d.value, o.value);

          /* re-encodes to itself; NaN to a NaN */
          again = nk_dtype_encode (s->dtype, d.value, NK_OVERFLOW_DEFAULT);
          if (o.klass == NK_DTYPE_CLASS_NAN)
            {
              NkDTypeDecoded n;

              nk_dtype_decode (s->dtype, again, &n);
              g_assert_cmpint (n.klass, ==, NK_DTYPE_CLASS_NAN);
              g_assert_cmpuint (n.sign, ==, o.sign);
            }
          else
            g_assert_cmphex (again, ==, bits);
        }
    }
}

#ifdef __FLT16_MAX__
static void
test_f16_vs_float16 (void)
{
  GRand *rand = g_rand_new_with_seed (16);

  /* decode: the compiler's own _Float16 */
  for (guint32 bits = 0; bits < 65536; bits++)
    {
      guint16 h = (guint16) bits;
      _Float16 x;

      memcpy (&x, &h, sizeof x);
      g_assert_true (same_double (nk_dtype_to_double (NK_DTYPE_F16, bits), (double) x));
    }

  /* encode: double → _Float16 rounds once, to nearest even */
  for (guint i = 0; i < 2000000; i++)
    {
      double d = ldexp (g_rand_double_range (rand, -2, 2), g_rand_int_range (rand, -30, 20));
      _Float16 x = (_Float16) d;
      guint16 h;

      memcpy (&h, &x, sizeof h);
      g_assert_cmphex (nk_dtype_encode (NK_DTYPE_F16, d, NK_OVERFLOW_DEFAULT), ==, h);
    }
  g_rand_free (rand);
}
#endif

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Every tie between neighbours rounds to the even pattern; a hair off a tie goes
 * to the nearer one; both signs. */
static void
test_encode_ties (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];
      guint64 n_patterns = G_GUINT64_CONSTANT (1) << (s->bits - 1);  /* non-negative half */
      g_autofree double *values = g_new (double, n_patterns);
      guint n_values = 0;

      for (guint64 bits = 0; bits < n_patterns; bits++)
        {
          Oracle o;

          oracle_decode (s, bits, &o);
          if (isfinite (o.value))
            values[n_values++] = o.value;
        }
      qsort (values, n_values, sizeof (double), compare_doubles);

      for (guint j = 0; j + 1 < n_values; j++)
        {
          double lo = values[j], hi = values[j + 1];
          double mid = (lo + hi) / 2;
          guint64 lo_bits = nk_dtype_encode (s->dtype, lo, NK_OVERFLOW_DEFAULT);
          guint64 hi_bits = nk_dtype_encode (s->dtype, hi, NK_OVERFLOW_DEFAULT);
          guint64 even = (lo_bits & 1) ? hi_bits : lo_bits;
          guint64 sign = G_GUINT64_CONSTANT (1) << (s->bits - 1);

          g_assert_true (mid > lo && mid < hi);  /* exact midpoint */
          g_assert_cmphex (lo_bits + 1, ==, hi_bits);
          g_assert_cmphex (nk_dtype_encode (s->dtype, mid, NK_OVERFLOW_DEFAULT), ==, even);
          g_assert_cmphex (nk_dtype_encode (s->dtype, -mid, NK_OVERFLOW_DEFAULT), ==, even | sign);
          g_assert_cmphex (nk_dtype_encode (s->dtype, nextafter (mid, 0), NK_OVERFLOW_DEFAULT), ==, lo_bits);
          g_assert_cmphex (nk_dtype_encode (s->dtype, nextafter (mid, INFINITY), NK_OVERFLOW_DEFAULT), ==, hi_bits);
          g_assert_cmphex (nk_dtype_encode (s->dtype, -nextafter (mid, INFINITY), NK_OVERFLOW_SATURATE), ==, hi_bits | sign);

          /* neighbours and ulp agree with the sorted list */
          g_assert_cmphex (nk_dtype_next_up (s->dtype, lo_bits), ==, hi_bits);
          g_assert_cmphex (nk_dtype_next_down (s->dtype, hi_bits), ==, lo_bits);
          g_assert_cmphex (nk_dtype_next_down (s->dtype, lo_bits | sign), ==, hi_bits | sign);
          if (lo > 0)
            g_assert_cmpfloat (nk_dtype_ulp (s->dtype, lo), ==, hi - lo);
        }
    }
}

/* Around max, min normal, half the min subnormal; both overflow modes. */
static void
test_encode_boundaries (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];
      NkDType t = s->dtype;
      int emax = s->fn ? (1 << s->e) - 1 - s->bias : (1 << s->e) - 2 - s->bias;
      guint fmax = s->fn ? (1u << s->m) - 2 : (1u << s->m) - 1;
      double max = ldexp (1.0 + ldexp (fmax, -(int) s->m), emax);
      double ulp_max = ldexp (1.0, emax - (int) s->m);
      double min_normal = ldexp (1.0, 1 - s->bias);
      double min_sub = ldexp (1.0, 1 - s->bias - (int) s->m);
      guint64 sign = G_GUINT64_CONSTANT (1) << (s->bits - 1);
      guint64 max_bits = nk_dtype_encode (t, max, NK_OVERFLOW_DEFAULT);
      guint64 over = s->fn ? (sign - 1) : (((G_GUINT64_CONSTANT (1) << s->e) - 1) << s->m);
      double boundary = max + ulp_max / 2;

      g_assert_cmpfloat (nk_dtype_to_double (t, max_bits), ==, max);
      /* the tie above max: IEEE max is odd so the tie overflows; e4m3's is even */
      g_assert_cmphex (nk_dtype_encode (t, boundary, NK_OVERFLOW_DEFAULT), ==, s->fn ? max_bits : over);
      g_assert_cmphex (nk_dtype_encode (t, nextafter (boundary, 0), NK_OVERFLOW_DEFAULT), ==, max_bits);
      g_assert_cmphex (nk_dtype_encode (t, nextafter (boundary, INFINITY), NK_OVERFLOW_DEFAULT), ==, over);
      g_assert_cmphex (nk_dtype_encode (t, -nextafter (boundary, INFINITY), NK_OVERFLOW_DEFAULT), ==, over | sign);
      g_assert_cmphex (nk_dtype_encode (t, INFINITY, NK_OVERFLOW_DEFAULT), ==, over);
      g_assert_cmphex (nk_dtype_encode (t, 1e300, NK_OVERFLOW_DEFAULT), ==, over);
      /* saturate: everything beyond is ±max; NaN stays NaN */
      g_assert_cmphex (nk_dtype_encode (t, nextafter (boundary, INFINITY), NK_OVERFLOW_SATURATE), ==, max_bits);
      g_assert_cmphex (nk_dtype_encode (t, INFINITY, NK_OVERFLOW_SATURATE), ==, max_bits);
      g_assert_cmphex (nk_dtype_encode (t, -INFINITY, NK_OVERFLOW_SATURATE), ==, max_bits | sign);
      g_assert_true (isnan (nk_dtype_to_double (t, nk_dtype_encode (t, NAN, NK_OVERFLOW_SATURATE))));
      g_assert_true (isnan (nk_dtype_to_double (t, nk_dtype_encode (t, NAN, NK_OVERFLOW_DEFAULT))));

      /* min normal and the subnormal just below it */
      g_assert_cmphex (nk_dtype_encode (t, min_normal, NK_OVERFLOW_DEFAULT), ==, G_GUINT64_CONSTANT (1) << s->m);
      g_assert_cmphex (nk_dtype_encode (t, min_normal - min_sub, NK_OVERFLOW_DEFAULT), ==, (G_GUINT64_CONSTANT (1) << s->m) - 1);
      g_assert_cmphex (nk_dtype_encode (t, min_normal - min_sub / 2, NK_OVERFLOW_DEFAULT), ==, G_GUINT64_CONSTANT (1) << s->m);

      /* half the min subnormal is a tie to 0 (even); a hair above it is min_sub */
      g_assert_cmphex (nk_dtype_encode (t, min_sub / 2, NK_OVERFLOW_DEFAULT), ==, 0);
      g_assert_cmphex (nk_dtype_encode (t, -min_sub / 2, NK_OVERFLOW_DEFAULT), ==, sign);
      g_assert_cmphex (nk_dtype_encode (t, nextafter (min_sub / 2, 1), NK_OVERFLOW_DEFAULT), ==, 1);
      g_assert_cmphex (nk_dtype_encode (t, min_sub * 1.5, NK_OVERFLOW_DEFAULT), ==, 2);  /* tie → even */
      g_assert_cmphex (nk_dtype_encode (t, 5e-324, NK_OVERFLOW_DEFAULT), ==, 0);
      g_assert_cmphex (nk_dtype_encode (t, -0.0, NK_OVERFLOW_DEFAULT), ==, sign);

      /* next/previous at the edges */
      g_assert_cmphex (nk_dtype_next_up (t, 0), ==, 1);
      g_assert_cmphex (nk_dtype_next_up (t, sign), ==, 1);
      g_assert_cmphex (nk_dtype_next_down (t, 0), ==, sign | 1);
      g_assert_cmphex (nk_dtype_next_down (t, 1), ==, 0);
      g_assert_cmphex (nk_dtype_next_up (t, max_bits), ==, s->fn ? max_bits : over);
      if (!s->fn)
        g_assert_cmphex (nk_dtype_next_down (t, over), ==, max_bits);
      g_assert_cmpfloat (nk_dtype_ulp (t, 0), ==, min_sub);
      g_assert_cmpfloat (nk_dtype_ulp (t, max), ==, ulp_max);
      g_assert_cmpfloat (nk_dtype_ulp (t, -1.0), ==, ldexp (1.0, -(int) s->m));
    }
}

/* The lecture's and CLI.md's worked examples. */
static void
test_encode_examples (void)
{
  NkDTypeLimits l;

  /* float16 underflows 1e-8, bfloat16 keeps it */
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_F16, 1e-8, NK_OVERFLOW_DEFAULT), ==, 0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_BF16, nk_dtype_encode (NK_DTYPE_BF16, 1e-8, NK_OVERFLOW_DEFAULT)), !=, 0);
  g_assert_cmpfloat_with_epsilon (nk_dtype_to_double (NK_DTYPE_BF16, nk_dtype_encode (NK_DTYPE_BF16, 1e-8, NK_OVERFLOW_DEFAULT)),
                                  1e-8, 1e-10);

  nk_dtype_limits (NK_DTYPE_E4M3, &l);
  g_assert_cmpfloat (l.max, ==, 448);
  nk_dtype_limits (NK_DTYPE_E5M2, &l);
  g_assert_cmpfloat (l.max, ==, 57344);
  nk_dtype_limits (NK_DTYPE_F16, &l);
  g_assert_cmpfloat (l.max, ==, (1 + 1023.0 / 1024) * 32768);  /* the lecture's formula */

  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E4M3, 464, NK_OVERFLOW_DEFAULT), ==, 0x7e);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E4M3, 465, NK_OVERFLOW_DEFAULT), ==, 0x7f);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E4M3, -465, NK_OVERFLOW_DEFAULT), ==, 0xff);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E4M3, INFINITY, NK_OVERFLOW_DEFAULT), ==, 0x7f);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E4M3, 465, NK_OVERFLOW_SATURATE), ==, 0x7e);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E5M2, 61440, NK_OVERFLOW_DEFAULT), ==, 0x7c);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E5M2, 61439, NK_OVERFLOW_DEFAULT), ==, 0x7b);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_F32, 1.0, NK_OVERFLOW_DEFAULT), ==, 0x3f800000);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_F16, 1.0, NK_OVERFLOW_DEFAULT), ==, 0x3c00);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_BF16, 1.0, NK_OVERFLOW_DEFAULT), ==, 0x3f80);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_TF32, 1.0, NK_OVERFLOW_DEFAULT), ==, 0x1fc00);
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_F64, 1.0, NK_OVERFLOW_DEFAULT), ==, G_GUINT64_CONSTANT (0x3ff0000000000000));
}

/* f32 against the C cast, the float the compiler makes. */
static void
test_encode_f32_vs_cast (void)
{
  GRand *rand = g_rand_new_with_seed (32);

  for (guint i = 0; i < 2000000; i++)
    {
      double d = ldexp (g_rand_double_range (rand, -2, 2), g_rand_int_range (rand, -160, 130));
      float f = (float) d;
      guint32 u;

      memcpy (&u, &f, sizeof u);
      g_assert_cmphex (nk_dtype_encode (NK_DTYPE_F32, d, NK_OVERFLOW_DEFAULT), ==, u);
    }
  g_rand_free (rand);
}

static void
test_limits (void)
{
  struct {
    NkDType dtype;
    double  max, min_normal, min_subnormal, epsilon;
    int     precision;
  } closed[] = {
    { NK_DTYPE_F32,  (2 - ldexp (1, -23)) * ldexp (1, 127), ldexp (1, -126), ldexp (1, -149), ldexp (1, -23), 6 },
    { NK_DTYPE_F16,  65504, ldexp (1, -14), ldexp (1, -24), ldexp (1, -10), 3 },
    { NK_DTYPE_BF16, (2 - ldexp (1, -7)) * ldexp (1, 127), ldexp (1, -126), ldexp (1, -133), ldexp (1, -7), 2 },
    { NK_DTYPE_E4M3, 448, ldexp (1, -6), ldexp (1, -9), 0.125, 0 },
    { NK_DTYPE_E5M2, 57344, ldexp (1, -14), ldexp (1, -16), 0.25, 0 },
    { NK_DTYPE_F64,  G_MAXDOUBLE, G_MINDOUBLE, 4.9406564584124654e-324, ldexp (1, -52), 15 },
    { NK_DTYPE_TF32, (2 - ldexp (1, -10)) * ldexp (1, 127), ldexp (1, -126), ldexp (1, -136), ldexp (1, -10), 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (closed); i++)
    {
      NkDTypeLimits l;

      nk_dtype_limits (closed[i].dtype, &l);
      g_assert_cmpfloat (l.max, ==, closed[i].max);
      g_assert_cmpfloat (l.min_normal, ==, closed[i].min_normal);
      g_assert_cmpfloat (l.min_subnormal, ==, closed[i].min_subnormal);
      g_assert_cmpfloat (l.epsilon, ==, closed[i].epsilon);
      g_assert_cmpint (l.precision, ==, closed[i].precision);
      g_assert_cmpfloat_with_epsilon (l.range_decades, log10 (closed[i].max) - log10 (closed[i].min_normal), 1e-9);
      g_assert_cmpfloat_with_epsilon (l.range_decades_subnormal,
                                      log10 (closed[i].max) - log10 (closed[i].min_subnormal), 1e-9);
      g_assert_cmpfloat (nk_dtype_ulp (closed[i].dtype, 1.0), ==, closed[i].epsilon);
    }
  /* float16 spans about 12 decades with subnormals, bfloat16 about 78 */
  {
    NkDTypeLimits l;

    nk_dtype_limits (NK_DTYPE_F16, &l);
    g_assert_cmpfloat_with_epsilon (l.range_decades_subnormal, 12.04, 0.01);
    g_assert_cmpfloat_with_epsilon (l.decimal_digits, 11 * 0.30103, 0.001);
  }
}

static void
test_exact_decimal (void)
{
  struct { NkDType dtype; guint64 bits; const char *exact; } cases[] = {
    { NK_DTYPE_F32, 0x00000001,
      "0.00000000000000000000000000000000000000000000140129846432481707092372958328991613128026194187651577175706828388979108268586060148663818836212158203125" },
    { NK_DTYPE_BF16, 0x0001,
      "0.0000000000000000000000000000000000000000918354961579912115600575419704879435795832466228193376178712270530013483949005603790283203125" },
    { NK_DTYPE_F16, 0x0001, "0.000000059604644775390625" },
    { NK_DTYPE_F16, 0x7bff, "65504" },
    { NK_DTYPE_F16, 0xfbff, "-65504" },
    { NK_DTYPE_E4M3, 0x7e, "448" },
    { NK_DTYPE_E4M3, 0x7f, "nan" },
    { NK_DTYPE_E5M2, 0xfc, "-inf" },
    { NK_DTYPE_E5M2, 0x80, "-0" },
    { NK_DTYPE_F32, 0x3dcccccd, "0.100000001490116119384765625" },
    { NK_DTYPE_F32, 0x7f7fffff, "340282346638528859811704183484516925440" },
    { NK_DTYPE_F64, G_GUINT64_CONSTANT (0x3fb999999999999a), "0.1000000000000000055511151231257827021181583404541015625" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *exact = nk_dtype_exact_decimal (cases[i].dtype, cases[i].bits);

      g_assert_cmpstr (exact, ==, cases[i].exact);
    }

  /* every f16 value: the expansion reads back exactly, and has exactly as many
   * fraction digits as the power of two in its denominator */
  for (guint32 bits = 0; bits < 0x7c00; bits++)
    {
      double v = nk_dtype_to_double (NK_DTYPE_F16, bits);
      g_autofree char *exact = nk_dtype_exact_decimal (NK_DTYPE_F16, bits);
      const char *point = strchr (exact, '.');
      int denominator_log2 = 0;

      g_assert_cmpfloat (g_ascii_strtod (exact, NULL), ==, v);
      for (double x = v; x != floor (x); x *= 2)
        denominator_log2++;
      g_assert_cmpint (point ? (int) strlen (point + 1) : 0, ==, denominator_log2);
    }

  /* f64's smallest subnormal: 751 significant digits after 323 zeros */
  {
    g_autofree char *tiny = nk_dtype_exact_decimal_double (4.9406564584124654e-324);

    g_assert_cmpint (strlen (tiny), ==, 2 + 1074);
    g_assert_true (g_str_has_prefix (tiny, "0.000"));
    g_assert_true (g_str_has_suffix (tiny, "625"));
  }
}

static void
test_names (void)
{
  struct { const char *name; NkDType dtype; } names[] = {
    { "f32", NK_DTYPE_F32 }, { "fp32", NK_DTYPE_F32 }, { "float32", NK_DTYPE_F32 }, { "float", NK_DTYPE_F32 },
    { "f16", NK_DTYPE_F16 }, { "fp16", NK_DTYPE_F16 }, { "float16", NK_DTYPE_F16 }, { "half", NK_DTYPE_F16 },
    { "bf16", NK_DTYPE_BF16 }, { "bfloat16", NK_DTYPE_BF16 },
    { "e4m3", NK_DTYPE_E4M3 }, { "fp8-e4m3", NK_DTYPE_E4M3 }, { "e4m3fn", NK_DTYPE_E4M3 },
    { "e5m2", NK_DTYPE_E5M2 }, { "fp8-e5m2", NK_DTYPE_E5M2 },
    { "f64", NK_DTYPE_F64 }, { "tf32", NK_DTYPE_TF32 }, { "int64", NK_DTYPE_INT64 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      NkDType dtype = NK_N_DTYPES;

      g_assert_true (nk_dtype_from_name (names[i].name, &dtype, NULL));
      g_assert_cmpint (dtype, ==, names[i].dtype);
    }

  {
    g_autoptr(GError) error = NULL;
    NkDType dtype;

    g_assert_false (nk_dtype_from_name ("f8", &dtype, &error));
    g_assert_error (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_UNKNOWN);
    g_assert_nonnull (strstr (error->message, "f8"));
  }

  /* sizes from the table, and the table's own consistency */
  g_assert_cmpuint (nk_dtype_element_size (NK_DTYPE_F32), ==, 4);
  g_assert_cmpuint (nk_dtype_element_size (NK_DTYPE_BF16), ==, 2);
  g_assert_cmpuint (nk_dtype_element_size (NK_DTYPE_E4M3), ==, 1);
  g_assert_cmpuint (nk_dtype_element_size (NK_DTYPE_INT64), ==, 8);
  g_assert_false (nk_dtype_info (NK_DTYPE_TF32)->is_storage);
  for (guint i = 0; i < NK_N_DTYPES; i++)
    {
      const NkDTypeInfo *info = nk_dtype_info (i);

      if (info->is_float)
        g_assert_cmpuint ((info->is_signed ? 1 : 0) + info->exponent_bits + info->mantissa_bits, ==, info->bits);
      if (info->is_storage)
        g_assert_cmpuint (info->element_size * 8, ==, info->bits);
    }
}

static void
test_items (void)
{
  struct { const char *text; gboolean is_bits; guint64 bits; double value; } good[] = {
    { "0x7e", TRUE, 0x7e, 0 },
    { "0X7F", TRUE, 0x7f, 0 },
    { "0x0000007e", TRUE, 0x7e, 0 },
    { "465", FALSE, 0, 465 },
    { "-465", FALSE, 0, -465 },
    { "1e-8", FALSE, 0, 1e-8 },
    { " 1.5 ", FALSE, 0, 1.5 },
    { "inf", FALSE, 0, INFINITY },
    { "-inf", FALSE, 0, -INFINITY },
    { "-0", FALSE, 0, -0.0 },
    { "pi", FALSE, 0, G_PI },
    { "-pi", FALSE, 0, -G_PI },
    { "e", FALSE, 0, G_E },
    { "1e999", FALSE, 0, INFINITY },
  };
  struct { const char *text; int code; } bad[] = {
    { "", NK_DTYPE_ERROR_EMPTY },
    { "   ", NK_DTYPE_ERROR_EMPTY },
    { "abc", NK_DTYPE_ERROR_INVALID },
    { "1.5x", NK_DTYPE_ERROR_INVALID },
    { "0x", NK_DTYPE_ERROR_INVALID },
    { "0x7g", NK_DTYPE_ERROR_INVALID },
    { "-0x7e", NK_DTYPE_ERROR_INVALID },
    { "0x1p3", NK_DTYPE_ERROR_INVALID },
    { "0x100", NK_DTYPE_ERROR_TOO_WIDE },
    { "0x3c00", NK_DTYPE_ERROR_TOO_WIDE },
    { "0x123456789abcdef01", NK_DTYPE_ERROR_TOO_WIDE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      NkDTypeItem item;

      g_assert_true (nk_dtype_parse_item (NK_DTYPE_E4M3, good[i].text, &item, &error));
      g_assert_no_error (error);
      g_assert_cmpint (item.is_bits, ==, good[i].is_bits);
      if (item.is_bits)
        g_assert_cmphex (item.bits, ==, good[i].bits);
      else
        g_assert_true (same_double (item.value, good[i].value));
    }
  {
    NkDTypeItem item;

    g_assert_true (nk_dtype_parse_item (NK_DTYPE_E4M3, "nan", &item, NULL));
    g_assert_true (isnan (item.value));
    g_assert_true (nk_dtype_parse_item (NK_DTYPE_F16, "0x3c00", &item, NULL));
    g_assert_cmphex (item.bits, ==, 0x3c00);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      NkDTypeItem item;

      g_assert_false (nk_dtype_parse_item (NK_DTYPE_E4M3, bad[i].text, &item, &error));
      g_assert_error (error, NK_DTYPE_ERROR, bad[i].code);
      if (bad[i].code != NK_DTYPE_ERROR_EMPTY)
        g_assert_nonnull (strstr (error->message, bad[i].text));
    }
}

static void
test_formula (void)
{
  struct { NkDType dtype; guint64 bits; NkFormulaStyle style; const char *text; } cases[] = {
    { NK_DTYPE_F32, 0x40400000, NK_FORMULA_DECIMAL, "(−1)^0 × 1.5 × 2^(128 − 127)" },
    { NK_DTYPE_F16, 0x0100, NK_FORMULA_DECIMAL, "(−1)^0 × 0.25 × 2^(1 − 15)" },
    { NK_DTYPE_E4M3, 0x7e, NK_FORMULA_BINARY, "(−1)^0 × 1.110₂ × 2^(15 − 7)" },
    { NK_DTYPE_E4M3, 0xfe, NK_FORMULA_DECIMAL, "(−1)^1 × 1.75 × 2^(15 − 7)" },
    { NK_DTYPE_E5M2, 0x01, NK_FORMULA_BINARY, "(−1)^0 × 0.01₂ × 2^(1 − 15)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = nk_dtype_formula (cases[i].dtype, cases[i].bits, cases[i].style);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
  {
    g_autofree char *inf = nk_dtype_formula (NK_DTYPE_E5M2, 0x7c, NK_FORMULA_DECIMAL);
    g_autofree char *nan = nk_dtype_formula (NK_DTYPE_E4M3, 0x7f, NK_FORMULA_DECIMAL);

    g_assert_nonnull (strstr (inf, "∞"));
    g_assert_nonnull (strstr (nan, "NaN"));
  }
}

static void
test_format_bits (void)
{
  struct { NkDType dtype; guint64 bits; const char *hex, *binary; } cases[] = {
    { NK_DTYPE_E4M3, 0x7e, "0x7e", "0 1111 110" },
    { NK_DTYPE_E5M2, 0x01, "0x01", "0 00000 01" },
    { NK_DTYPE_F16, 0x3c00, "0x3c00", "0 01111 0000000000" },
    { NK_DTYPE_F32, 0x3f800000, "0x3f800000", "0 01111111 00000000000000000000000" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *hex = nk_dtype_format_bits (cases[i].dtype, cases[i].bits);
      g_autofree char *binary = nk_dtype_format_binary (cases[i].dtype, cases[i].bits, " ");

      g_assert_cmpstr (hex, ==, cases[i].hex);
      g_assert_cmpstr (binary, ==, cases[i].binary);
    }
}

/* ---- nk_dtype_round: status and error against the spec ------------------ */

/* The status the definition gives when @x rounds to the positive pattern @r. */
static NkRoundingStatus
oracle_status (const Spec *s,
               double      x,
               guint64     r)
{
  Oracle o;

  oracle_decode (s, r, &o);
  if (fabs (x) == o.value)
    return NK_ROUNDING_EXACT;
  if (r == 0)
    return NK_ROUNDING_UNDERFLOW_TO_ZERO;
  if (r < (G_GUINT64_CONSTANT (1) << s->m))
    return NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL;
  return NK_ROUNDING_ROUNDED;
}

/* Rounds ±@x both ways and checks it lands on pattern @r with error @err (the
 * exact x − value, a short dyadic: the caller knows it without subtracting). */
static void
check_round (const Spec *s,
             double      x,
             guint64     r,
             double      err)
{
  guint64 sign = G_GUINT64_CONSTANT (1) << (s->bits - 1);
  NkRoundingStatus status = oracle_status (s, x, r);
  Oracle o;

  oracle_decode (s, r, &o);
  for (int neg = 0; neg <= 1; neg++)
    for (int mode = 0; mode <= 1; mode++)
      {
        NkOverflow overflow = mode ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;
        double input = neg ? -x : x;
        NkDTypeRounding got;

        g_assert_true (nk_dtype_round (s->dtype, input, overflow, &got));
        if (got.bits != (neg ? (r | sign) : r) || got.status != status)
          g_error ("%s %.17g: bits 0x%" G_GINT64_MODIFIER "x status %d, oracle 0x%"
                   G_GINT64_MODIFIER "x status %d", nk_dtype_info (s->dtype)->cli_name,
                   input, got.bits, got.status, neg ? (r | sign) : r, status);
        g_assert_cmphex (got.bits, ==, nk_dtype_encode (s->dtype, input, overflow));
        g_assert_true (same_double (got.value, neg ? -o.value : o.value));
        g_assert_cmpfloat (got.abs_error, ==, neg ? -err : err);
        if (err == 0)
          g_assert_cmpfloat (got.rel_error, ==, 0);
        else
          /* the quotient, checked in long double: within half an ulp of a double */
          {
            long double rel = (long double) (neg ? -err : err) / (long double) x;

            g_assert_cmpfloat (fabsl ((long double) got.rel_error - rel), <=, fabsl (rel) * 0x1p-52L);
          }
      }
}

/* Every positive finite pattern; a quarter, half and three quarters of the way
 * to its neighbour; the same past max. Each input has a known nearest pattern
 * and a known error, so neither depends on nk_dtype_encode(). */
static void
test_round_sweep (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];
      guint64 e_all = (G_GUINT64_CONSTANT (1) << s->e) - 1;
      guint64 f_all = (G_GUINT64_CONSTANT (1) << s->m) - 1;
      guint64 max_bits = s->fn ? (e_all << s->m) | (f_all - 1) : ((e_all - 1) << s->m) | f_all;
      guint64 inf_bits = e_all << s->m;
      guint64 sign = G_GUINT64_CONSTANT (1) << (s->bits - 1);
      Oracle max, below_max;
      double gap, x;

      for (guint64 p = 0; p < max_bits; p++)
        {
          Oracle lo, hi;

          oracle_decode (s, p, &lo);
          oracle_decode (s, p + 1, &hi);
          gap = hi.value - lo.value;
          check_round (s, lo.value, p, 0);
          check_round (s, lo.value + gap / 4, p, gap / 4);
          check_round (s, lo.value + 3 * gap / 4, p + 1, -gap / 4);
          /* the tie goes to the even pattern */
          check_round (s, lo.value + gap / 2, (p & 1) ? p + 1 : p, (p & 1) ? -gap / 2 : gap / 2);
        }

      /* Past max: a quarter ulp rounds back; three quarters overflow. The tie
       * overflows where max is odd (IEEE) and stays where it is even (e4m3). */
      oracle_decode (s, max_bits, &max);
      oracle_decode (s, max_bits - 1, &below_max);
      gap = max.value - below_max.value;
      check_round (s, max.value, max_bits, 0);
      check_round (s, max.value + gap / 4, max_bits, gap / 4);
      if (s->fn)
        check_round (s, max.value + gap / 2, max_bits, gap / 2);

      for (int neg = 0; neg <= 1; neg++)
        {
          double over[] = { max.value + 3 * gap / 4, s->fn ? 1e300 : max.value + gap / 2, 1e300 };

          for (guint j = 0; j < G_N_ELEMENTS (over); j++)
            {
              NkDTypeRounding got;

              x = neg ? -over[j] : over[j];
              nk_dtype_round (s->dtype, x, NK_OVERFLOW_DEFAULT, &got);
              if (s->fn)
                {
                  g_assert_cmpint (got.status, ==, NK_ROUNDING_OVERFLOW_TO_NAN);
                  g_assert_cmphex (got.bits, ==, (neg ? sign : 0) | (e_all << s->m) | f_all);
                  g_assert_true (isnan (got.abs_error) && isnan (got.rel_error));
                }
              else
                {
                  g_assert_cmpint (got.status, ==, NK_ROUNDING_OVERFLOW_TO_INF);
                  g_assert_cmphex (got.bits, ==, (neg ? sign : 0) | inf_bits);
                  g_assert_cmpfloat (got.abs_error, ==, neg ? INFINITY : -INFINITY);
                  g_assert_cmpfloat (got.rel_error, ==, neg ? INFINITY : -INFINITY);
                }

              nk_dtype_round (s->dtype, x, NK_OVERFLOW_SATURATE, &got);
              g_assert_cmpint (got.status, ==, NK_ROUNDING_SATURATED);
              g_assert_cmphex (got.bits, ==, (neg ? sign : 0) | max_bits);
              g_assert_cmpfloat (got.value, ==, neg ? -max.value : max.value);
              g_assert_cmpfloat (got.abs_error, ==, neg ? -(over[j] - max.value) : over[j] - max.value);
            }
        }
    }
}

/* The examples people meet first, computed by hand. */
static void
test_round_examples (void)
{
  NkDTypeRounding r;

  /* the lecture's 1e-8: gone in f16, the whole of it is the error */
  nk_dtype_round (NK_DTYPE_F16, 1e-8, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_UNDERFLOW_TO_ZERO);
  g_assert_cmphex (r.bits, ==, 0x0000);
  g_assert_cmpfloat (r.abs_error, ==, 1e-8);
  g_assert_cmpfloat (r.rel_error, ==, 1);
  nk_dtype_round (NK_DTYPE_F16, -1e-8, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmphex (r.bits, ==, 0x8000);
  g_assert_cmpfloat (r.abs_error, ==, -1e-8);
  g_assert_cmpfloat (r.rel_error, ==, -1);
  /* ... and kept in bf16 as 43 × 2^-32 */
  nk_dtype_round (NK_DTYPE_BF16, 1e-8, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_ROUNDED);
  g_assert_cmpfloat (r.value, ==, 43 * 0x1p-32);
  g_assert_cmpfloat (r.abs_error, ==, 1e-8 - 43 * 0x1p-32);

  /* e4m3: 465 is past the tie at 464, 464 ties to even 448 */
  nk_dtype_round (NK_DTYPE_E4M3, 465, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_OVERFLOW_TO_NAN);
  g_assert_cmphex (r.bits, ==, 0x7f);
  g_assert_true (isnan (r.value) && isnan (r.abs_error) && isnan (r.rel_error));
  nk_dtype_round (NK_DTYPE_E4M3, 465, NK_OVERFLOW_SATURATE, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_SATURATED);
  g_assert_cmphex (r.bits, ==, 0x7e);
  g_assert_cmpfloat (r.value, ==, 448);
  g_assert_cmpfloat (r.abs_error, ==, 17);
  g_assert_cmpfloat (r.rel_error, ==, 17.0 / 465);
  for (int mode = 0; mode <= 1; mode++)
    {
      nk_dtype_round (NK_DTYPE_E4M3, 464, mode ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT, &r);
      g_assert_cmpint (r.status, ==, NK_ROUNDING_ROUNDED);
      g_assert_cmphex (r.bits, ==, 0x7e);
      g_assert_cmpfloat (r.abs_error, ==, 16);
      g_assert_cmpfloat (r.rel_error, ==, 16.0 / 464);
    }

  /* 1.0 everywhere, f64 and tf32 included */
  for (NkDType t = 0; t < NK_N_DTYPES; t++)
    if (nk_dtype_is_float (t))
      {
        nk_dtype_round (t, 1.0, NK_OVERFLOW_DEFAULT, &r);
        g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
        g_assert_cmphex (r.bits, ==, nk_dtype_one_bits (t));
        g_assert_cmpfloat (r.abs_error, ==, 0);
        g_assert_cmpfloat (r.rel_error, ==, 0);
      }

  /* f16 subnormals: 2^-24 is held; 1.25 × 2^-24 loses its quarter */
  nk_dtype_round (NK_DTYPE_F16, 0x1p-24, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
  g_assert_cmphex (r.bits, ==, 0x0001);
  nk_dtype_round (NK_DTYPE_F16, 1.25 * 0x1p-24, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL);
  g_assert_cmphex (r.bits, ==, 0x0001);
  g_assert_cmpfloat (r.abs_error, ==, 0x1p-26);
  g_assert_cmpfloat (r.rel_error, ==, 0.2);
  /* just under the smallest normal, rounding up to it, is merely rounded */
  nk_dtype_round (NK_DTYPE_F16, 0x1p-14 - 0x1p-26, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_ROUNDED);
  g_assert_cmphex (r.bits, ==, 0x0400);

  /* f16's edge: 65519 rounds down to max, 65520 is the tie that overflows */
  nk_dtype_round (NK_DTYPE_F16, 65519, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_ROUNDED);
  g_assert_cmpfloat (r.value, ==, 65504);
  g_assert_cmpfloat (r.abs_error, ==, 15);
  nk_dtype_round (NK_DTYPE_F16, 65520, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_OVERFLOW_TO_INF);
  g_assert_cmphex (r.bits, ==, 0x7c00);
  g_assert_cmpfloat (r.abs_error, ==, -INFINITY);
  g_assert_cmpfloat (r.rel_error, ==, -INFINITY);

  /* f32: 1e-45 rounds up to 2^-149, 1e-46 is gone */
  nk_dtype_round (NK_DTYPE_F32, 1e-45, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL);
  g_assert_cmphex (r.bits, ==, 0x00000001);
  nk_dtype_round (NK_DTYPE_F32, 1e-46, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_UNDERFLOW_TO_ZERO);
  nk_dtype_round (NK_DTYPE_F32, 0.1, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_ROUNDED);
  g_assert_cmpfloat (r.abs_error, ==, 0.1 - (double) 0.1f);
  nk_dtype_round (NK_DTYPE_F64, 0.1, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
}

/* Zeros, infinities and NaN, as nk_dtype_round() documents them. */
static void
test_round_specials (void)
{
  NkDTypeRounding r;

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];
      guint64 sign = G_GUINT64_CONSTANT (1) << (s->bits - 1);

      for (int neg = 0; neg <= 1; neg++)
        for (int mode = 0; mode <= 1; mode++)
          {
            NkOverflow overflow = mode ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;
            double inf = neg ? -INFINITY : INFINITY;

            /* ±0 are held, sign and all, with no error */
            nk_dtype_round (s->dtype, neg ? -0.0 : 0.0, overflow, &r);
            g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
            g_assert_cmphex (r.bits, ==, neg ? sign : 0);
            g_assert_true (r.abs_error == 0 && r.rel_error == 0);

            /* NaN stays NaN: exact, but no error can be measured */
            nk_dtype_round (s->dtype, neg ? -NAN : NAN, overflow, &r);
            g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
            g_assert_true (isnan (r.value) && isnan (r.abs_error) && isnan (r.rel_error));

            nk_dtype_round (s->dtype, inf, overflow, &r);
            if (mode)
              {
                g_assert_cmpint (r.status, ==, NK_ROUNDING_SATURATED);
                g_assert_cmpfloat (r.abs_error, ==, inf);
                g_assert_true (isnan (r.rel_error));  /* inf / inf */
              }
            else if (s->fn)
              {
                g_assert_cmpint (r.status, ==, NK_ROUNDING_OVERFLOW_TO_NAN);
                g_assert_true (isnan (r.abs_error) && isnan (r.rel_error));
              }
            else
              {
                g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
                g_assert_cmpfloat (r.value, ==, inf);
                g_assert_true (r.abs_error == 0 && r.rel_error == 0);
              }
          }
    }

  /* f64 keeps every double; only saturation changes an infinity */
  nk_dtype_round (NK_DTYPE_F64, INFINITY, NK_OVERFLOW_DEFAULT, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
  nk_dtype_round (NK_DTYPE_F64, -INFINITY, NK_OVERFLOW_SATURATE, &r);
  g_assert_cmpint (r.status, ==, NK_ROUNDING_SATURATED);
  g_assert_cmpfloat (r.value, ==, -G_MAXDOUBLE);
}

/* Epsilon, 2^-M: its pattern decodes to it by the spec, and to what finfo says. */
static void
test_epsilon_bits (void)
{
  static const struct {
    NkDType dtype;
    guint64 bits;
  } known[] = {
    { NK_DTYPE_F32, 0x34000000 }, { NK_DTYPE_F16, 0x1400 }, { NK_DTYPE_BF16, 0x3c00 },
    { NK_DTYPE_E4M3, 0x20 }, { NK_DTYPE_E5M2, 0x34 }, { NK_DTYPE_TF32, 0x1d400 },
    { NK_DTYPE_F64, G_GUINT64_CONSTANT (0x3cb0000000000000) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    {
      NkDTypeLimits limits;

      nk_dtype_limits (known[i].dtype, &limits);
      g_assert_cmphex (nk_dtype_epsilon_bits (known[i].dtype), ==, known[i].bits);
      g_assert_cmpfloat (nk_dtype_to_double (known[i].dtype, known[i].bits), ==, limits.epsilon);
    }
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      Oracle o;

      oracle_decode (&specs[i], nk_dtype_epsilon_bits (specs[i].dtype), &o);
      g_assert_cmpfloat (o.value, ==, ldexp (1.0, -(int) specs[i].m));
    }
}

/* The display names are translatable, the CLI's spellings are not; with no
 * translation (the tests run in the C locale) they read the same. */
static void
test_class_names (void)
{
  static const char *const cli[] = { "zero", "subnormal", "normal", "inf", "nan" };

  for (NkDTypeClass k = NK_DTYPE_CLASS_ZERO; k <= NK_DTYPE_CLASS_NAN; k++)
    {
      g_assert_cmpstr (nk_dtype_class_to_string (k), ==, cli[k]);
      g_assert_cmpstr (nk_dtype_class_display_name (k), ==, cli[k]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/dtype/decode/exhaustive", test_decode_exhaustive);
#ifdef __FLT16_MAX__
  g_test_add_func ("/engine/dtype/f16/float16", test_f16_vs_float16);
#endif
  g_test_add_func ("/engine/dtype/encode/ties", test_encode_ties);
  g_test_add_func ("/engine/dtype/encode/boundaries", test_encode_boundaries);
  g_test_add_func ("/engine/dtype/encode/examples", test_encode_examples);
  g_test_add_func ("/engine/dtype/f32/cast", test_encode_f32_vs_cast);
  g_test_add_func ("/engine/dtype/limits", test_limits);
  g_test_add_func ("/engine/dtype/exact-decimal", test_exact_decimal);
  g_test_add_func ("/engine/dtype/names", test_names);
  g_test_add_func ("/engine/dtype/items", test_items);
  g_test_add_func ("/engine/dtype/formula", test_formula);
  g_test_add_func ("/engine/dtype/format-bits", test_format_bits);
  g_test_add_func ("/engine/dtype/round/sweep", test_round_sweep);
  g_test_add_func ("/engine/dtype/round/examples", test_round_examples);
  g_test_add_func ("/engine/dtype/round/specials", test_round_specials);
  g_test_add_func ("/engine/dtype/epsilon-bits", test_epsilon_bits);
  g_test_add_func ("/engine/dtype/class-names", test_class_names);

  return g_test_run ();
}
