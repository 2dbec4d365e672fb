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
        g_assert_cmpuint (1 + info->exponent_bits + info->mantissa_bits, ==, info->bits);
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

  return g_test_run ();
}
