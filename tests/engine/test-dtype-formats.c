/* test-dtype-formats.c: the low-precision element formats and the rounding modes,
 * against oracles written here
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Decoding: each format's definition typed here (OCP MX v1.0 for fp6/fp4/e8m0,
 * AMD's fnuz for e4m3fnuz/e5m2fnuz), with hand-written tables and limits.
 * Encoding: exhaustive enumeration. Every code of the format is decoded by the
 * oracle, the finite values sorted, and a test value's two neighbours found by
 * bracketing in that list; each rounding mode's choice between them is then
 * its definition (nearer, ties to the even code; above; below; toward zero; the
 * one above with probability (x − lo) / (hi − lo), checked against the same
 * draw the engine takes from a copy of the generator). Nothing here calls the
 * encoder to compute an expected value.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-dtype.h"
#include "nk-enum-types.h"

typedef enum {
  STYLE_IEEE,    /* inf and NaN at the all-ones exponent */
  STYLE_FN,      /* e4m3fn: no inf, only s.1111.111 NaN */
  STYLE_NONE,    /* fp6/fp4: no inf, no NaN */
  STYLE_FNUZ,    /* no inf, no −0: 0x80 is NaN */
  STYLE_E8M0,    /* 2^(b − 127), 0xff NaN */
} Style;

typedef struct {
  NkDType dtype;
  guint   bits, e, m;
  int     bias;
  Style   style;
  double  max;          /* typed from the specs */
  double  min_normal;
  double  min_sub;
  double  epsilon;
} Spec;

static const Spec specs[] = {
  { NK_DTYPE_FP6_E3M2, 6, 3, 2, 3, STYLE_NONE, 28.0, 0.25, 0.0625, 0.25 },
  { NK_DTYPE_FP6_E2M3, 6, 2, 3, 1, STYLE_NONE, 7.5, 1.0, 0.125, 0.125 },
  { NK_DTYPE_FP4_E2M1, 4, 2, 1, 1, STYLE_NONE, 6.0, 1.0, 0.5, 0.5 },
  { NK_DTYPE_E8M0, 8, 8, 0, 127, STYLE_E8M0, 0x1p127, 0x1p-127, 0x1p-127, 1.0 },
  { NK_DTYPE_E4M3FNUZ, 8, 4, 3, 8, STYLE_FNUZ, 240.0, 0x1p-7, 0x1p-10, 0.125 },
  { NK_DTYPE_E5M2FNUZ, 8, 5, 2, 16, STYLE_FNUZ, 57344.0, 0x1p-15, 0x1p-17, 0.25 },
  /* the older formats, for the rounding modes */
  { NK_DTYPE_E4M3, 8, 4, 3, 7, STYLE_FN, 448.0, 0x1p-6, 0x1p-9, 0.125 },
  { NK_DTYPE_E5M2, 8, 5, 2, 15, STYLE_IEEE, 57344.0, 0x1p-14, 0x1p-16, 0.25 },
  { NK_DTYPE_F16, 16, 5, 10, 15, STYLE_IEEE, 65504.0, 0x1p-14, 0x1p-24, 0x1p-10 },
  { NK_DTYPE_BF16, 16, 8, 7, 127, STYLE_IEEE, 0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7 },
};

#define N_NEW_FORMATS 6

/* ---- the oracle's decoding ----------------------------------------------- */

static double
pow2 (int k)
{
  double v = 1.0;

  for (; k > 0; k--)
    v *= 2;
  for (; k < 0; k++)
    v /= 2;
  return v;
}

/* NAN for NaN patterns, ±INFINITY for infinities. */
static double
oracle_value (const Spec *s,
              guint       code)
{
  guint e_all = (1u << s->e) - 1, f_all = (1u << s->m) - 1;
  guint sign, e, f;
  double v;

  if (s->style == STYLE_E8M0)
    return code == 0xff ? NAN : pow2 ((int) code - 127);
  sign = (code >> (s->bits - 1)) & 1;
  e = (code >> s->m) & e_all;
  f = code & f_all;
  if (s->style == STYLE_IEEE && e == e_all)
    return f ? NAN : (sign ? -INFINITY : INFINITY);
  if (s->style == STYLE_FN && e == e_all && f == f_all)
    return NAN;
  if (s->style == STYLE_FNUZ && code == 1u << (s->bits - 1))
    return NAN;
  if (e == 0)
    v = f * pow2 (1 - s->bias - (int) s->m);
  else
    v = (f + (1u << s->m)) * pow2 ((int) e - s->bias - (int) s->m);
  return sign ? -v : v;
}

static gboolean
same_double (double a,
             double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  return a == b && signbit (a) == signbit (b);
}

/* Every code decodes to the oracle's value, and a few are checked by hand. */
static void
test_decode_all (void)
{
  /* OCP MX v1.0 table of E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6 */
  static const double e2m1[8] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];

      for (guint code = 0; code < (1u << s->bits); code++)
        {
          NkDTypeDecoded d;
          double want = oracle_value (s, code);

          g_assert_true (nk_dtype_decode (s->dtype, code, &d));
          if (!same_double (d.value, want) && !(isnan (want) && isnan (d.value)))
            g_error ("%s 0x%x: %.17g, oracle %.17g", nk_dtype_info (s->dtype)->cli_name,
                     code, d.value, want);
          g_assert_true (same_double (nk_dtype_to_double (s->dtype, code), d.value));
          if (isnan (want))
            g_assert_cmpint (d.klass, ==, NK_DTYPE_CLASS_NAN);
          else if (isinf (want))
            g_assert_cmpint (d.klass, ==, NK_DTYPE_CLASS_INF);
          else if (want == 0)
            g_assert_cmpint (d.klass, ==, NK_DTYPE_CLASS_ZERO);
          else if (fabs (want) < s->min_normal)
            g_assert_cmpint (d.klass, ==, NK_DTYPE_CLASS_SUBNORMAL);
          else
            g_assert_cmpint (d.klass, ==, NK_DTYPE_CLASS_NORMAL);
        }
    }

  for (guint code = 0; code < 16; code++)
    {
      double v = e2m1[code & 7];

      g_assert_true (same_double (nk_dtype_to_double (NK_DTYPE_FP4_E2M1, code),
                                  code & 8 ? -v : v));
    }
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_FP6_E3M2, 0x1f), ==, 28.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_FP6_E3M2, 0x3f), ==, -28.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_FP6_E3M2, 0x01), ==, 0.0625);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_FP6_E2M3, 0x1f), ==, 7.5);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_FP6_E2M3, 0x01), ==, 0.125);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E8M0, 0x7f), ==, 1.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E8M0, 0x00), ==, 0x1p-127);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E8M0, 0xfe), ==, 0x1p127);
  g_assert_true (isnan (nk_dtype_to_double (NK_DTYPE_E8M0, 0xff)));
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E4M3FNUZ, 0x7f), ==, 240.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E4M3FNUZ, 0x40), ==, 1.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E4M3FNUZ, 0x01), ==, 0x1p-10);
  g_assert_true (isnan (nk_dtype_to_double (NK_DTYPE_E4M3FNUZ, 0x80)));
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E4M3FNUZ, 0xff), ==, -240.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E5M2FNUZ, 0x7f), ==, 57344.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E5M2FNUZ, 0x40), ==, 1.0);
  g_assert_cmpfloat (nk_dtype_to_double (NK_DTYPE_E5M2FNUZ, 0x01), ==, 0x1p-17);
  g_assert_true (isnan (nk_dtype_to_double (NK_DTYPE_E5M2FNUZ, 0x80)));
}

/* ---- the oracle's encoding ----------------------------------------------- */

typedef struct {
  double value;
  guint  code;
} Entry;

typedef struct {
  const Spec *s;
  Entry      *e;     /* finite values ascending, one entry per value (+0 for zero) */
  guint       n;
  double      gap;   /* the quantum of the top binade: max + gap is the first value
                      * past max with an unbounded exponent */
} Table;

static int
cmp_entry (gconstpointer a,
           gconstpointer b)
{
  double x = ((const Entry *) a)->value, y = ((const Entry *) b)->value;

  return x < y ? -1 : x > y;
}

static void
table_init (Table      *t,
            const Spec *s)
{
  guint ncodes = 1u << s->bits;

  t->s = s;
  t->e = g_new (Entry, ncodes);
  t->n = 0;
  for (guint code = 0; code < ncodes; code++)
    {
      double v = oracle_value (s, code);

      if (!isfinite (v) || (v == 0 && signbit (v)))
        continue;
      t->e[t->n].value = v;
      t->e[t->n].code = code;
      t->n++;
    }
  qsort (t->e, t->n, sizeof *t->e, cmp_entry);
  g_assert_cmpfloat (t->e[t->n - 1].value, ==, s->max);
  g_assert_cmpfloat (t->e[0].value, ==, s->style == STYLE_E8M0 ? s->min_sub : -s->max);
  t->gap = s->max - t->e[t->n - 2].value;
  if (s->style == STYLE_E8M0)
    t->gap = s->max;  /* 2^127 → 2^128 */
}

static guint
neg_zero_code (const Spec *s)
{
  return s->style == STYLE_FNUZ ? 0 : 1u << (s->bits - 1);
}

static guint
code_of (const Table *t,
         guint        index,
         gboolean     negative)
{
  if (t->e[index].value == 0 && negative)
    return neg_zero_code (t->s);
  return t->e[index].code;
}

/* What the format does with a value past max that is not rounded toward zero,
 * and with ±inf. */
static guint
overflow_code (const Spec *s,
               gboolean    negative,
               NkOverflow  overflow)
{
  guint sign = negative ? 1u << (s->bits - 1) : 0;
  guint max_code = s->style == STYLE_FN ? 0x7e
                 : s->style == STYLE_IEEE ? ((((1u << s->e) - 2) << s->m) | ((1u << s->m) - 1))
                 : (1u << (s->bits - 1)) - 1;

  if (s->style == STYLE_E8M0)
    return overflow == NK_OVERFLOW_SATURATE ? 0xfe : 0xff;
  if (overflow == NK_OVERFLOW_SATURATE || s->style == STYLE_NONE)
    return sign | max_code;
  switch (s->style)
    {
    case STYLE_IEEE: return sign | (((1u << s->e) - 1) << s->m);
    case STYLE_FN: return sign | 0x7f;
    case STYLE_FNUZ: return 0x80;
    case STYLE_NONE:
    case STYLE_E8M0:
    default: g_assert_not_reached ();
    }
}

static guint
max_code (const Table *t,
          gboolean     negative)
{
  guint code = t->e[t->n - 1].code;

  return negative ? code | (1u << (t->s->bits - 1)) : code;
}

/* The oracle: @x finite and, for e8m0, positive. @u is the stochastic draw. */
static guint
oracle_encode (const Table   *t,
               double         x,
               NkOverflow     overflow,
               NkRoundingMode mode,
               double         u,
               gboolean      *out_saturated_by_mode)
{
  const Spec *s = t->s;
  gboolean negative = signbit (x) != 0;
  double a = fabs (x), lo, hi;
  guint ilo, ihi = 0, lo_code, hi_code;
  gboolean lo_even, take_hi, mag_toward_zero;

  *out_saturated_by_mode = FALSE;
  /* the magnitudes: bracket |x| in the non-negative half of the list */
  if (s->style == STYLE_E8M0)
    {
      if (a < t->e[0].value)
        return t->e[0].code;  /* below 2^−127: the smallest value, every mode */
      ilo = 0;
    }
  else
    {
      ilo = 0;
      while (t->e[ilo].value < 0)
        ilo++;
    }
  /* bisection: the last entry whose value is <= a */
  {
    guint lo_i = ilo, hi_i = t->n;  /* e[lo_i] <= a, e[hi_i] > a (or the end) */

    while (hi_i - lo_i > 1)
      {
        guint mid = lo_i + (hi_i - lo_i) / 2;

        if (t->e[mid].value <= a)
          lo_i = mid;
        else
          hi_i = mid;
      }
    ilo = lo_i;
  }
  lo = t->e[ilo].value;
  if (lo == a)
    return negative ? code_of (t, ilo, TRUE) | (a != 0 ? 1u << (s->bits - 1) : 0) : t->e[ilo].code;
  if (ilo + 1 < t->n)
    {
      ihi = ilo + 1;
      hi = t->e[ihi].value;
    }
  else
    {
      /* past max: the next value of an unbounded exponent */
      hi = s->max + t->gap;
      if (a >= hi)
        lo = hi = NAN;  /* both neighbours past max */
    }

  mag_toward_zero = mode == NK_ROUNDING_MODE_TOWARD_ZERO ||
                    (mode == NK_ROUNDING_MODE_DOWN && !negative) ||
                    (mode == NK_ROUNDING_MODE_UP && negative);
  if (isnan (lo))
    {
      if (mag_toward_zero || (s->style == STYLE_E8M0 && mode != NK_ROUNDING_MODE_UP &&
                              mode != NK_ROUNDING_MODE_STOCHASTIC))
        {
          *out_saturated_by_mode = TRUE;
          return max_code (t, negative);
        }
      return overflow_code (s, negative, overflow);
    }

  lo_code = code_of (t, ilo, negative) | (negative && lo != 0 ? 1u << (s->bits - 1) : 0);
  lo_even = (t->e[ilo].code & 1) == 0;
  switch (mode)
    {
    case NK_ROUNDING_MODE_NEAREST_EVEN:
      if (s->style == STYLE_E8M0)
        take_hi = FALSE;  /* the MX scale's floor */
      else
        take_hi = a - lo > hi - a || (a - lo == hi - a && !lo_even);
      break;
    case NK_ROUNDING_MODE_UP:
      take_hi = !negative;
      break;
    case NK_ROUNDING_MODE_DOWN:
      take_hi = negative;
      break;
    case NK_ROUNDING_MODE_STOCHASTIC:
      take_hi = u < (a - lo) / (hi - lo);
      break;
    case NK_ROUNDING_MODE_TOWARD_ZERO:
    default:
      take_hi = FALSE;
      break;
    }
  if (!take_hi)
    return lo_code;
  if (ihi == 0)
    return overflow_code (s, negative, overflow);
  hi_code = t->e[ihi].code | (negative ? 1u << (s->bits - 1) : 0);
  return hi_code;
}

/* Test values for one format: every value, every midpoint, quarter points, the
 * doubles either side of each, past max, huge, tiny, and random ones. */
static GArray *
test_values (const Table *t)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  guint32 state = 12345;
  double x;

#define ADD(X) G_STMT_START { x = (X); g_array_append_val (v, x); } G_STMT_END
  /* every value of the 4-, 6- and 8-bit formats; every 41st of f16 and bf16 */
  guint stride = t->s->bits > 8 ? 41 : 1;

  for (guint i = 0; i < t->n; i = (i + stride < t->n || i == t->n - 1) ? i + stride : t->n - 1)
    {
      double a = t->e[i].value;
      double b = i + 1 < t->n ? t->e[i + 1].value : a + t->gap;

      ADD (a);
      ADD (nextafter (a, -INFINITY));
      ADD (nextafter (a, INFINITY));
      ADD ((a + b) / 2);
      ADD (nextafter ((a + b) / 2, -INFINITY));
      ADD (nextafter ((a + b) / 2, INFINITY));
      ADD (a + (b - a) / 4);
      ADD (a + 3 * (b - a) / 4);
    }
  ADD (t->s->max + t->gap);
  ADD (nextafter (t->s->max + t->gap, INFINITY));
  ADD (t->s->max + 3 * t->gap);
  ADD (1e300);
  ADD (DBL_MAX);
  ADD (4.9e-324);
  ADD (1e-300);
  ADD (t->s->min_sub / 2);
  ADD (t->s->min_sub / 4);
  ADD (t->s->min_sub * 0.75);
  ADD (0.0);
  for (guint i = 0; i < 2000; i++)
    {
      double m, lg;

      state = state * 1664525u + 1013904223u;
      m = 1.0 + state / 4294967296.0;
      state = state * 1664525u + 1013904223u;
      lg = log2 (t->s->min_sub) - 3 + (log2 (t->s->max) - log2 (t->s->min_sub) + 5) * (state / 4294967296.0);
      ADD (ldexp (m, (int) floor (lg)));
    }
#undef ADD
  /* and each negated */
  for (guint i = 0, n = v->len; i < n; i++)
    {
      x = -g_array_index (v, double, i);
      g_array_append_val (v, x);
    }
  return v;
}

static const NkRoundingMode all_modes[] = {
  NK_ROUNDING_MODE_NEAREST_EVEN, NK_ROUNDING_MODE_UP, NK_ROUNDING_MODE_DOWN,
  NK_ROUNDING_MODE_TOWARD_ZERO, NK_ROUNDING_MODE_STOCHASTIC,
};

/* Every format, every mode, both overflow rules, against the oracle. */
static void
test_encode_all_modes (void)
{
  guint64 checks = 0;

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];
      g_autoptr(GArray) values = NULL;
      Table t;

      table_init (&t, s);
      values = test_values (&t);
      for (guint mi = 0; mi < G_N_ELEMENTS (all_modes); mi++)
        for (int ov = 0; ov < 2; ov++)
          {
            NkOverflow overflow = ov ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;
            NkRoundingMode mode = all_modes[mi];
            NkRng *rng = nk_rng_new (1000 + i * 10 + mi);

            for (guint k = 0; k < values->len; k++)
              {
                double x = g_array_index (values, double, k);
                NkRng *copy = nk_rng_copy (rng);
                double u = nk_rng_uniform_double (copy);
                gboolean by_mode;
                NkDTypeRounding r;
                guint want;
                guint64 got;

                nk_rng_free (copy);
                if (s->style == STYLE_E8M0 && (x <= 0 || signbit (x)))
                  continue;  /* unrepresentable: test_unrepresentable */
                want = oracle_encode (&t, x, overflow, mode, u, &by_mode);
                g_assert_true (nk_dtype_round_with_mode (s->dtype, x, overflow, mode, rng, &r));
                got = r.bits;
                if (got != want)
                  g_error ("%s %s %s: %.17g → 0x%" G_GINT64_MODIFIER "x, oracle 0x%x",
                           nk_dtype_info (s->dtype)->cli_name, nk_rounding_mode_to_string (mode),
                           ov ? "saturate" : "default", x, got, want);
                if (by_mode)
                  g_assert_cmpint (r.status, ==, NK_ROUNDING_SATURATED);
                if (mode == NK_ROUNDING_MODE_NEAREST_EVEN)
                  g_assert_cmpuint (nk_dtype_encode (s->dtype, x, overflow), ==, want);
                else if (mode != NK_ROUNDING_MODE_STOCHASTIC)
                  g_assert_cmpuint (nk_dtype_encode_with_mode (s->dtype, x, overflow, mode, NULL), ==, want);
                checks++;
              }
            nk_rng_free (rng);
          }
      g_free (t.e);
    }
  g_test_message ("%" G_GUINT64_FORMAT " encodings checked against the oracle", checks);
}

/* NaN, ±inf and ±0, and what a format cannot hold at all. */
static void
test_specials (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const Spec *s = &specs[i];
      Table t;

      table_init (&t, s);
      for (guint mi = 0; mi < G_N_ELEMENTS (all_modes); mi++)
        for (int ov = 0; ov < 2; ov++)
          {
            NkOverflow overflow = ov ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;
            g_autoptr(NkRng) rng = nk_rng_new (7);
            NkDTypeRounding r;

            for (int neg = 0; neg < 2; neg++)
              {
                double inf = neg ? -INFINITY : INFINITY;
                guint sign = neg ? 1u << (s->bits - 1) : 0;

                /* NaN */
                g_assert_true (nk_dtype_round_with_mode (s->dtype, neg ? -NAN : NAN, overflow,
                                                         all_modes[mi], rng, &r));
                switch (s->style)
                  {
                  case STYLE_NONE:
                    g_assert_cmpint (r.status, ==, NK_ROUNDING_UNREPRESENTABLE);
                    g_assert_cmpuint (r.bits, ==, (1u << (s->bits - 1)) - 1);  /* +max */
                    break;
                  case STYLE_FNUZ: g_assert_cmpuint (r.bits, ==, 0x80); break;
                  case STYLE_E8M0: g_assert_cmpuint (r.bits, ==, 0xff); break;
                  case STYLE_FN: g_assert_cmpuint (r.bits, ==, sign | 0x7f); break;
                  case STYLE_IEEE:
                    g_assert_cmpuint (r.bits, ==, sign | (((1u << s->e) - 1) << s->m) | (1u << (s->m - 1)));
                    break;
                  default: g_assert_not_reached ();
                  }
                if (s->style != STYLE_NONE)
                  g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);

                /* ±inf */
                g_assert_true (nk_dtype_round_with_mode (s->dtype, inf, overflow, all_modes[mi], rng, &r));
                if (s->style == STYLE_E8M0 && neg)
                  {
                    g_assert_cmpint (r.status, ==, NK_ROUNDING_UNREPRESENTABLE);
                    g_assert_cmpuint (r.bits, ==, 0xff);
                  }
                else if (s->style == STYLE_IEEE && !ov)
                  {
                    g_assert_cmpuint (r.bits, ==, sign | (((1u << s->e) - 1) << s->m));
                    g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
                  }
                else
                  g_assert_cmpuint (r.bits, ==, overflow_code (s, neg, overflow));

                /* ±0 */
                g_assert_true (nk_dtype_round_with_mode (s->dtype, neg ? -0.0 : 0.0, overflow,
                                                         all_modes[mi], rng, &r));
                if (s->style == STYLE_E8M0)
                  {
                    g_assert_cmpint (r.status, ==, NK_ROUNDING_UNREPRESENTABLE);
                    g_assert_cmpuint (r.bits, ==, 0xff);
                  }
                else
                  {
                    g_assert_cmpint (r.status, ==, NK_ROUNDING_EXACT);
                    g_assert_cmpuint (r.bits, ==, neg ? neg_zero_code (s) : 0);
                  }
              }
            /* e8m0 takes no negative value */
            if (s->style == STYLE_E8M0)
              {
                g_assert_true (nk_dtype_round_with_mode (s->dtype, -1.0, overflow, all_modes[mi], rng, &r));
                g_assert_cmpint (r.status, ==, NK_ROUNDING_UNREPRESENTABLE);
                g_assert_cmpuint (r.bits, ==, 0xff);
                g_assert_true (isnan (r.abs_error));
              }
          }
      g_free (t.e);
    }

  /* the CLI.md sentences */
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_FP4_E2M1, 7.0, NK_OVERFLOW_DEFAULT), ==, 0x7);
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_FP4_E2M1, -1e30, NK_OVERFLOW_DEFAULT), ==, 0xf);
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_E8M0, 3.0, NK_OVERFLOW_DEFAULT), ==, 0x80);
  g_assert_cmpuint (nk_dtype_encode_with_mode (NK_DTYPE_E8M0, 3.0, NK_OVERFLOW_DEFAULT,
                                               NK_ROUNDING_MODE_UP, NULL), ==, 0x81);
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_E4M3FNUZ, 248.0, NK_OVERFLOW_DEFAULT), ==, 0x80);
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_E4M3FNUZ, 247.0, NK_OVERFLOW_DEFAULT), ==, 0x7f);
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_E4M3FNUZ, -248.0, NK_OVERFLOW_SATURATE), ==, 0xff);
  g_assert_cmpuint (nk_dtype_encode (NK_DTYPE_E4M3FNUZ, -1e-30, NK_OVERFLOW_DEFAULT), ==, 0x00);
  /* IEEE 754 §7.4: round-down of a huge positive value is max, round-up is inf */
  g_assert_cmpuint (nk_dtype_encode_with_mode (NK_DTYPE_F16, 1e9, NK_OVERFLOW_DEFAULT,
                                               NK_ROUNDING_MODE_DOWN, NULL), ==, 0x7bff);
  g_assert_cmpuint (nk_dtype_encode_with_mode (NK_DTYPE_F16, 1e9, NK_OVERFLOW_DEFAULT,
                                               NK_ROUNDING_MODE_UP, NULL), ==, 0x7c00);
  g_assert_cmpuint (nk_dtype_encode_with_mode (NK_DTYPE_F16, -1e9, NK_OVERFLOW_DEFAULT,
                                               NK_ROUNDING_MODE_UP, NULL), ==, 0xfbff);
}

/* Stochastic rounding: only the two neighbours, the mean converges, and the same
 * seed gives the same bits. */
static void
test_stochastic (void)
{
  /* fp4: 2.6 lies between 2 and 3; P(3) = 0.6. One seed per draw, seeds 1..N. */
  const guint n = 20000;
  double sum = 0, mean, sigma;
  guint64 first[64];

  for (guint seed = 1; seed <= n; seed++)
    {
      g_autoptr(NkRng) rng = nk_rng_new (seed);
      NkDTypeRounding r;

      g_assert_true (nk_dtype_round_with_mode (NK_DTYPE_FP4_E2M1, 2.6, NK_OVERFLOW_DEFAULT,
                                               NK_ROUNDING_MODE_STOCHASTIC, rng, &r));
      g_assert_true (r.value == 2.0 || r.value == 3.0);
      sum += r.value;
    }
  mean = sum / n;
  /* one draw has standard deviation sqrt(0.6 × 0.4) ≈ 0.49: 6 sigma of the mean */
  sigma = sqrt (0.6 * 0.4 / n);
  g_test_message ("fp4 stochastic mean of 2.6 over %u seeds: %.5f (6 sigma = %.5f)", n, mean, 6 * sigma);
  g_assert_cmpfloat (fabs (mean - 2.6), <, 6 * sigma);

  /* bf16: 1 + 2^−10 between 1 and 1 + 2^−7: P(up) = 1/8, one generator, many draws */
  {
    g_autoptr(NkRng) rng = nk_rng_new (42);
    double x = 1.0 + 0x1p-10, s2 = 0;

    for (guint i = 0; i < n; i++)
      {
        double v = nk_dtype_to_double (NK_DTYPE_BF16,
                                       nk_dtype_encode_with_mode (NK_DTYPE_BF16, x, NK_OVERFLOW_DEFAULT,
                                                                  NK_ROUNDING_MODE_STOCHASTIC, rng));

        g_assert_true (v == 1.0 || v == 1.0 + 0x1p-7);
        s2 += v;
      }
    sigma = 0x1p-7 * sqrt (0.125 * 0.875 / n);
    g_assert_cmpfloat (fabs (s2 / n - x), <, 6 * sigma);
  }

  /* same seed, same bits; one draw per value whatever the value */
  for (int pass = 0; pass < 2; pass++)
    {
      g_autoptr(NkRng) rng = nk_rng_new (99);

      for (guint i = 0; i < G_N_ELEMENTS (first); i++)
        {
          double x = i % 8 == 0 ? NAN : i % 8 == 1 ? 0.0 : 0.1 * i;
          guint64 bits = nk_dtype_encode_with_mode (NK_DTYPE_E4M3FNUZ, x, NK_OVERFLOW_DEFAULT,
                                                    NK_ROUNDING_MODE_STOCHASTIC, rng);

          if (pass == 0)
            first[i] = bits;
          else
            g_assert_cmpuint (bits, ==, first[i]);
        }
      g_assert_cmpuint (nk_rng_get_counter (rng), >, 0);
      if (pass == 1)
        {
          g_autoptr(NkRng) other = nk_rng_new (99);

          for (guint i = 0; i < G_N_ELEMENTS (first); i++)
            nk_rng_uniform_double (other);
          g_assert_cmpuint (nk_rng_get_counter (rng), ==, nk_rng_get_counter (other));
        }
    }
}

/* Limits, neighbours, ulp, formulas and names of the new formats. */
static void
test_limits_and_neighbours (void)
{
  for (guint i = 0; i < N_NEW_FORMATS; i++)
    {
      const Spec *s = &specs[i];
      NkDTypeLimits l;
      Table t;

      nk_dtype_limits (s->dtype, &l);
      g_assert_cmpfloat (l.max, ==, s->max);
      g_assert_cmpfloat (l.min_normal, ==, s->min_normal);
      g_assert_cmpfloat (l.min_subnormal, ==, s->min_sub);
      g_assert_cmpfloat (l.epsilon, ==, s->epsilon);
      g_assert_cmpfloat (nk_dtype_to_double (s->dtype, nk_dtype_epsilon_bits (s->dtype)), ==, s->epsilon);
      g_assert_cmpfloat (nk_dtype_to_double (s->dtype, nk_dtype_one_bits (s->dtype)), ==, 1.0);
      g_assert_cmpfloat (nk_dtype_to_double (s->dtype, nk_dtype_max_bits (s->dtype)), ==, s->max);
      g_assert_cmpfloat (ldexp (1.0, l.min_exponent), ==, s->min_normal);
      g_assert_false (nk_dtype_info (s->dtype)->is_storage);

      /* next_up / next_down walk the oracle's sorted list */
      table_init (&t, s);
      for (guint k = 0; k < t.n; k++)
        {
          guint up = k + 1 < t.n ? t.e[k + 1].code : t.e[k].code;
          guint down = k > 0 ? t.e[k - 1].code : t.e[k].code;
          double v = t.e[k].value;

          if (v == 0)
            continue;  /* zeros: below */
          if (s->style != STYLE_E8M0 && k > 0 && t.e[k - 1].value == 0 && v > 0)
            down = 0;
          if (s->style != STYLE_E8M0 && k + 1 < t.n && t.e[k + 1].value == 0)
            up = s->style == STYLE_FNUZ ? 0 : 1u << (s->bits - 1);  /* −min_sub → −0 */
          g_assert_cmpuint (nk_dtype_next_up (s->dtype, t.e[k].code), ==, up);
          g_assert_cmpuint (nk_dtype_next_down (s->dtype, t.e[k].code), ==, down);
          /* ulp: the gap above |v| in its binade (below max at max) */
          if (v > 0)
            {
              double gap = k + 1 < t.n ? t.e[k + 1].value - v : v - t.e[k - 1].value;

              if (s->style == STYLE_E8M0)
                gap = v;  /* the binade [2^k, 2^(k+1)) has one value: its quantum is 2^k */

              g_assert_cmpfloat (nk_dtype_ulp (s->dtype, v), ==, gap);
            }
        }
      if (s->style != STYLE_E8M0)
        {
          g_assert_cmpuint (nk_dtype_next_up (s->dtype, 0), ==, 1);
          g_assert_cmpfloat (nk_dtype_to_double (s->dtype, nk_dtype_next_down (s->dtype, 0)), ==, -s->min_sub);
        }
      g_free (t.e);
    }

  {
    g_autofree char *b1 = nk_dtype_format_binary (NK_DTYPE_FP4_E2M1, 0x7, " ");
    g_autofree char *b2 = nk_dtype_format_binary (NK_DTYPE_E8M0, 0xfe, " ");
    g_autofree char *b3 = nk_dtype_format_binary (NK_DTYPE_FP6_E2M3, 0x1f, " ");
    g_autofree char *f1 = nk_dtype_formula (NK_DTYPE_E8M0, 0x7f, NK_FORMULA_DECIMAL);
    g_autofree char *f2 = nk_dtype_formula (NK_DTYPE_FP4_E2M1, 0x7, NK_FORMULA_DECIMAL);
    g_autofree char *f3 = nk_dtype_formula (NK_DTYPE_E4M3FNUZ, 0x80, NK_FORMULA_DECIMAL);
    g_autofree char *x1 = nk_dtype_exact_decimal (NK_DTYPE_E8M0, 0x7c);
    g_autofree char *h1 = nk_dtype_format_bits (NK_DTYPE_FP6_E3M2, 0x3f);
    NkDTypeItem item;
    NkDType d;
    GEnumClass *klass;
    g_autoptr(GError) error = NULL;

    g_assert_cmpstr (b1, ==, "0 11 1");
    g_assert_cmpstr (b2, ==, "11111110");
    g_assert_cmpstr (b3, ==, "0 11 111");
    g_assert_cmpstr (f1, ==, "2^(127 − 127)");
    g_assert_cmpstr (f2, ==, "(−1)^0 × 1.5 × 2^(3 − 1)");
    g_assert_nonnull (strstr (f3, "NaN"));
    g_assert_cmpstr (x1, ==, "0.125");
    g_assert_cmpstr (h1, ==, "0x3f");
    g_assert_true (nk_dtype_parse_item (NK_DTYPE_FP6_E3M2, "0x3f", &item, NULL));
    g_assert_false (nk_dtype_parse_item (NK_DTYPE_FP6_E3M2, "0x40", &item, &error));
    g_assert_error (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_TOO_WIDE);
    g_assert_cmpstr (nk_dtype_class_to_string (NK_DTYPE_CLASS_UNREPRESENTABLE), ==, "unrepresentable");

    for (guint i = 0; i < N_NEW_FORMATS; i++)
      {
        g_assert_true (nk_dtype_from_name (nk_dtype_info (specs[i].dtype)->cli_name, &d, NULL));
        g_assert_cmpint (d, ==, specs[i].dtype);
      }
    g_assert_cmpstr (nk_dtype_info (NK_DTYPE_FP6_E3M2)->cli_name, ==, "fp6-e3m2");
    g_assert_cmpstr (nk_dtype_info (NK_DTYPE_E5M2FNUZ)->cli_name, ==, "e5m2fnuz");
    g_assert_true (nk_dtype_from_name ("FP4-E2M1", &d, NULL));
    g_assert_cmpint (d, ==, NK_DTYPE_FP4_E2M1);

    /* the GEnum nicks are the CLI names */
    klass = g_type_class_ref (NK_TYPE_ROUNDING_MODE);
    g_assert_cmpint (g_enum_get_value_by_nick (klass, "nearest")->value, ==, NK_ROUNDING_MODE_NEAREST_EVEN);
    g_assert_cmpint (g_enum_get_value_by_nick (klass, "zero")->value, ==, NK_ROUNDING_MODE_TOWARD_ZERO);
    g_assert_cmpint (g_enum_get_value_by_nick (klass, "stochastic")->value, ==, NK_ROUNDING_MODE_STOCHASTIC);
    g_type_class_unref (klass);
    klass = g_type_class_ref (NK_TYPE_DTYPE);
    for (guint i = 0; i < N_NEW_FORMATS; i++)
      g_assert_cmpstr (g_enum_get_value (klass, specs[i].dtype)->value_nick, ==,
                       nk_dtype_info (specs[i].dtype)->cli_name);
    g_type_class_unref (klass);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/dtype-formats/decode-all", test_decode_all);
  g_test_add_func ("/dtype-formats/encode-all-modes", test_encode_all_modes);
  g_test_add_func ("/dtype-formats/specials", test_specials);
  g_test_add_func ("/dtype-formats/stochastic", test_stochastic);
  g_test_add_func ("/dtype-formats/limits-neighbours", test_limits_and_neighbours);

  return g_test_run ();
}
