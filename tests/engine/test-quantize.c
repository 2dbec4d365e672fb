/* test-quantize.c: block-scaled formats against the spec, written out again here
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The oracle is this file's own reading of CLI.md's "napkin-cli quantize" (OCP
 * MX v1.0 and NVFP4), in doubles and by enumeration, sharing no code with the
 * engine: each element format's non-negative values are listed code by code
 * from (E, M, bias) and sorted; a value rounds to the nearer of the two listed
 * values around it (a tie to the even code), saturating at the last; an MX
 * scale's exponent is found by doubling and halving, not by ilogb or bits;
 * NVFP4's block scale is the nearest of the 127 finite e4m3 values listed.
 *
 * Then nk_quantize_fake_f32() (float bit tricks) must equal nk_quantize() bit
 * for bit, on random and adversarial float32 inputs, and stochastic rounding
 * must only give the two neighbours, average to the value, and repeat by seed.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "nk-quantize.h"
#include "nk-quantize-impl.h"
#include "nk-test-util.h"

/* ---- the oracle ---------------------------------------------------------- */

typedef struct {
  int     e, m, bias;      /* fp elements; e = 0: fixed point k / 64 */
  double  vals[256];       /* non-negative values, by magnitude code */
  guint   n;
  int     emax;
  guint   width;
} Grid;

static void
grid_init (Grid *g, int e, int m, int bias, gboolean e4m3_nan, gboolean e5m2_ieee)
{
  memset (g, 0, sizeof *g);
  g->e = e;
  g->m = m;
  g->bias = bias;
  if (e == 0)
    {
      for (int k = 0; k <= 127; k++)
        g->vals[g->n++] = k / 64.0;
      g->emax = 0;
      g->width = 8;
      return;
    }
  g->width = 1 + e + m;
  for (guint code = 0; code < (1u << (e + m)); code++)
    {
      guint ef = code >> m, f = code & ((1u << m) - 1);
      double v;

      if (e5m2_ieee && ef == (1u << e) - 1)
        break;                                  /* inf and NaN */
      if (e4m3_nan && code == (1u << (e + m)) - 1)
        break;                                  /* 0x7f: NaN */
      if (ef == 0)
        v = f / (double) (1u << m) * pow (2.0, 1 - bias);
      else
        v = (1.0 + f / (double) (1u << m)) * pow (2.0, (int) ef - bias);
      g->vals[g->n++] = v;
    }
  /* emax: the exponent of the largest value */
  g->emax = 0;
  for (double p = 1.0; p * 2.0 <= g->vals[g->n - 1]; p *= 2.0)
    g->emax++;
}

static double
grid_max (const Grid *g)
{
  return g->vals[g->n - 1];
}

/* The index of the value a ≥ 0 rounds to, nearest-even, saturating. */
static guint
grid_round (const Grid *g, double a)
{
  guint i = 0;

  if (a >= grid_max (g))
    return g->n - 1;
  while (g->vals[i + 1] <= a)
    i++;
  if (g->vals[i] == a)
    return i;
  if (a - g->vals[i] < g->vals[i + 1] - a)
    return i;
  if (a - g->vals[i] > g->vals[i + 1] - a)
    return i + 1;
  return (i % 2 == 0) ? i : i + 1;
}

typedef struct {
  double   scale;
  guint32  scale_bits;
  guint32  code;
  double   value;
  NkQuantizeChange change;
} OracleElem;

static Grid grids[NK_N_BLOCK_FORMATS];
static Grid grid_e4m3;

static void
grids_init (void)
{
  grid_init (&grids[NK_BLOCK_FORMAT_MXFP8_E4M3], 4, 3, 7, TRUE, FALSE);
  grid_init (&grids[NK_BLOCK_FORMAT_MXFP8_E5M2], 5, 2, 15, FALSE, TRUE);
  grid_init (&grids[NK_BLOCK_FORMAT_MXFP6_E3M2], 3, 2, 3, FALSE, FALSE);
  grid_init (&grids[NK_BLOCK_FORMAT_MXFP6_E2M3], 2, 3, 1, FALSE, FALSE);
  grid_init (&grids[NK_BLOCK_FORMAT_MXFP4], 2, 1, 1, FALSE, FALSE);
  grid_init (&grids[NK_BLOCK_FORMAT_MXINT8], 0, 6, 0, FALSE, FALSE);
  grid_init (&grids[NK_BLOCK_FORMAT_NVFP4], 2, 1, 1, FALSE, FALSE);
  grid_init (&grid_e4m3, 4, 3, 7, TRUE, FALSE);
}

/* floor(log2 a) for a > 0, by doubling and halving */
static int
oracle_floor_log2 (double a)
{
  int k = 0;
  double p = 1.0;

  while (p > a)
    {
      p /= 2.0;
      k--;
    }
  while (p * 2.0 <= a)
    {
      p *= 2.0;
      k++;
    }
  return k;
}

static void
oracle_element (const Grid *g, double v, double mul, OracleElem *out)
{
  double a = mul == 0.0 ? 0.0 : fabs (v) / mul;
  guint idx = grid_round (g, a);
  double r = g->vals[idx];
  gboolean neg = signbit (v) != 0;

  if (g->e == 0)
    out->code = (guint32) ((gint32) (neg ? -(int) idx : (int) idx)) & 0xff;
  else
    out->code = idx | ((neg ? 1u : 0u) << (g->e + g->m));
  out->value = (neg ? -r : r) * mul;
  if (out->value == v)
    out->change = NK_QUANTIZE_EXACT;
  else if (r == 0.0)
    out->change = NK_QUANTIZE_FLUSHED;
  else if (a > grid_max (g))
    out->change = NK_QUANTIZE_CLIPPED;
  else
    out->change = NK_QUANTIZE_ROUNDED;
}

/* The whole vector, as CLI.md says. */
static OracleElem *
oracle_quantize (NkBlockFormat fmt, const double *v, gsize n, guint block,
                 NkMxScaleRule rule, double *out_tensor_scale)
{
  const Grid *g = &grids[fmt];
  OracleElem *out = g_new0 (OracleElem, n);
  float s_t = 1.0f;

  if (fmt == NK_BLOCK_FORMAT_NVFP4)
    {
      double amax = 0;

      for (gsize i = 0; i < n; i++)
        amax = MAX (amax, fabs (v[i]));
      s_t = (float) (amax / (6.0 * 448.0));
    }
  *out_tensor_scale = s_t;

  for (gsize b0 = 0; b0 < n; b0 += block)
    {
      gsize len = MIN (block, n - b0);
      double amax = 0, scale, mul;
      guint32 bits;

      for (gsize i = 0; i < len; i++)
        amax = MAX (amax, fabs (v[b0 + i]));
      if (fmt == NK_BLOCK_FORMAT_NVFP4)
        {
          guint idx = s_t == 0.0f ? 0 : grid_round (&grid_e4m3, amax / (6.0 * (double) s_t));

          scale = grid_e4m3.vals[idx];
          bits = idx;
          mul = scale * (double) s_t;
        }
      else
        {
          int k;

          if (amax == 0.0)
            k = -127;
          else
            {
              k = oracle_floor_log2 (amax) - g->emax;
              if (rule == NK_MX_SCALE_UP)
                while (amax / pow (2.0, k) > grid_max (g))
                  k++;
            }
          k = CLAMP (k, -127, 127);
          scale = pow (2.0, k);
          bits = (guint32) (k + 127);
          mul = scale;
        }
      for (gsize i = 0; i < len; i++)
        {
          oracle_element (g, v[b0 + i], mul, &out[b0 + i]);
          out[b0 + i].scale = scale;
          out[b0 + i].scale_bits = bits;
        }
    }
  return out;
}

/* ---- comparing ------------------------------------------------------------ */

static void
check_against_oracle (NkBlockFormat fmt, const double *v, gsize n, guint block,
                      NkMxScaleRule rule, const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkQuantization) q = nk_quantize (fmt, v, n, block, rule,
                                             NK_ROUNDING_MODE_NEAREST_EVEN, NULL, &error);
  double ts;
  g_autofree OracleElem *o = oracle_quantize (fmt, v, n, block, rule, &ts);
  NkQuantizeSummary sum;
  double max_abs = 0, sq = 0;

  g_assert_no_error (error);
  g_assert_nonnull (q);
  g_assert_cmpuint (nk_quantization_get_n_blocks (q), ==, (n + block - 1) / block);
  if (fmt == NK_BLOCK_FORMAT_NVFP4)
    g_assert_cmpfloat (nk_quantization_get_tensor_scale (q), ==, ts);
  for (gsize i = 0; i < n; i++)
    {
      NkQuantizeElement e;
      NkQuantizeBlock b;

      g_assert_true (nk_quantization_get_element (q, i, &e));
      g_assert_true (nk_quantization_get_block (q, e.block, &b));
      if (e.value != o[i].value || e.code != o[i].code || b.scale != o[i].scale
          || b.scale_bits != o[i].scale_bits || e.change != o[i].change)
        g_error ("%s, %s (%s): value %zu = %.17g: engine scale %.17g (0x%x) code 0x%x "
                 "value %.17g change %d; oracle scale %.17g (0x%x) code 0x%x value %.17g "
                 "change %d", what, nk_block_format_info (fmt)->name,
                 rule == NK_MX_SCALE_UP ? "up" : "floor", i, v[i], b.scale, b.scale_bits,
                 e.code, e.value, e.change, o[i].scale, o[i].scale_bits, o[i].code,
                 o[i].value, o[i].change);
      g_assert_cmpfloat (e.abs_error, ==, v[i] - o[i].value);
      g_assert_cmpuint (e.block, ==, i / block);
      max_abs = MAX (max_abs, fabs (v[i] - o[i].value));
    }
  for (gsize i = 0; i < n; i++)
    if (max_abs > 0)
      sq += pow ((v[i] - o[i].value) / max_abs, 2);
  nk_quantization_get_summary (q, &sum);
  g_assert_cmpfloat (sum.max_abs, ==, max_abs);
  g_assert_cmpfloat_with_epsilon (sum.rmse, n ? max_abs * sqrt (sq / n) : 0, 1e-12 * max_abs + DBL_MIN);
}

static const NkMxScaleRule rules[] = { NK_MX_SCALE_FLOOR, NK_MX_SCALE_UP };

static void
check_all (const double *v, gsize n, guint block, const char *what)
{
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    for (guint r = 0; r < G_N_ELEMENTS (rules); r++)
      check_against_oracle ((NkBlockFormat) f, v, n, block, rules[r], what);
}

/* ---- the spec's cases ----------------------------------------------------- */

static void
test_oracle_grids (void)
{
  /* the oracle's own lists against the figures CLI.md and the OCP spec give */
  g_assert_cmpfloat (grid_max (&grids[NK_BLOCK_FORMAT_MXFP8_E4M3]), ==, 448);
  g_assert_cmpfloat (grid_max (&grids[NK_BLOCK_FORMAT_MXFP8_E5M2]), ==, 57344);
  g_assert_cmpfloat (grid_max (&grids[NK_BLOCK_FORMAT_MXFP6_E3M2]), ==, 28);
  g_assert_cmpfloat (grid_max (&grids[NK_BLOCK_FORMAT_MXFP6_E2M3]), ==, 7.5);
  g_assert_cmpfloat (grid_max (&grids[NK_BLOCK_FORMAT_MXFP4]), ==, 6);
  g_assert_cmpint (grids[NK_BLOCK_FORMAT_MXFP8_E4M3].emax, ==, 8);
  g_assert_cmpint (grids[NK_BLOCK_FORMAT_MXFP8_E5M2].emax, ==, 15);
  g_assert_cmpint (grids[NK_BLOCK_FORMAT_MXFP6_E3M2].emax, ==, 4);
  g_assert_cmpint (grids[NK_BLOCK_FORMAT_MXFP6_E2M3].emax, ==, 2);
  g_assert_cmpint (grids[NK_BLOCK_FORMAT_MXFP4].emax, ==, 2);
  g_assert_cmpint (grids[NK_BLOCK_FORMAT_MXINT8].emax, ==, 0);
  g_assert_cmpuint (grids[NK_BLOCK_FORMAT_MXFP4].n, ==, 8);
  g_assert_cmpuint (grid_e4m3.n, ==, 127);
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    {
      const NkBlockFormatInfo *info = nk_block_format_info ((NkBlockFormat) f);

      g_assert_cmpfloat (info->element_max, ==, grid_max (&grids[f]));
      g_assert_cmpint (info->element_emax, ==, grids[f].emax);
      g_assert_cmpuint (info->element_bits, ==, grids[f].width);
    }
}

static void
test_names (void)
{
  NkBlockFormat f;
  NkMxScaleRule r;
  g_autoptr(GError) error = NULL;
  const char *names[] = { "mxfp8-e4m3", "mxfp8-e5m2", "mxfp6-e3m2", "mxfp6-e2m3",
                          "mxfp4", "mxint8", "nvfp4" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_assert_true (nk_block_format_from_name (names[i], &f, NULL));
      g_assert_cmpint (f, ==, (int) i);
      g_assert_cmpstr (nk_block_format_info (f)->name, ==, names[i]);
    }
  g_assert_false (nk_block_format_from_name ("mxfp5", &f, &error));
  g_assert_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_UNKNOWN);
  g_assert_true (nk_mx_scale_rule_from_name ("up", &r, NULL));
  g_assert_cmpint (r, ==, NK_MX_SCALE_UP);
  g_assert_true (nk_mx_scale_rule_from_name ("floor", &r, NULL));
  g_assert_cmpint (r, ==, NK_MX_SCALE_FLOOR);
  g_assert_false (nk_mx_scale_rule_from_name ("ceil", &r, NULL));
  /* CLI.md: elements plus scales */
  g_assert_cmpfloat (nk_block_format_bits_per_element (NK_BLOCK_FORMAT_MXFP4, 32), ==, 4.25);
  g_assert_cmpfloat (nk_block_format_bits_per_element (NK_BLOCK_FORMAT_NVFP4, 16), ==, 4.5);
  g_assert_cmpfloat (nk_block_format_bits_per_element (NK_BLOCK_FORMAT_MXFP8_E4M3, 32), ==, 8.25);
  g_assert_cmpfloat (nk_block_format_bits_per_element (NK_BLOCK_FORMAT_MXFP6_E2M3, 32), ==, 6.25);
}

static void
test_all_zero (void)
{
  double v[40] = { 0 };

  check_all (v, 40, 32, "all zero");
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    {
      g_autoptr(NkQuantization) q = nk_quantize ((NkBlockFormat) f, v, 40, 32, NK_MX_SCALE_FLOOR,
                                                 NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
      NkQuantizeBlock b;
      NkQuantizeElement e;

      g_assert_true (nk_quantization_get_block (q, 0, &b));
      if (f != NK_BLOCK_FORMAT_NVFP4)
        {
          /* CLI.md: X = 2^−127, zero codes */
          g_assert_cmpfloat (b.scale, ==, ldexp (1.0, -127));
          g_assert_cmpuint (b.scale_bits, ==, 0);
        }
      for (guint i = 0; i < 40; i++)
        {
          g_assert_true (nk_quantization_get_element (q, i, &e));
          g_assert_cmpuint (e.code, ==, 0);
          g_assert_cmpint (e.change, ==, NK_QUANTIZE_EXACT);
        }
    }
}

static void
test_subnormal_blocks (void)
{
  double v[64];

  /* float32 subnormals only: the E8M0 scale clamps at 2^−127 */
  for (guint i = 0; i < 32; i++)
    v[i] = ldexp ((double) (i * 37 % 101) - 50, -140 - (int) (i % 9));
  /* a block whose values land on the elements' subnormals: amax sets a normal
   * scale, the rest are 2^-9 .. 2^-2 of it */
  v[32] = 1.0;
  for (guint i = 33; i < 64; i++)
    v[i] = ((i % 2) ? -1 : 1) * ldexp (1.0 + (i % 7) / 8.0, -2 - (int) (i % 12));
  check_all (v, 64, 32, "subnormal");
  check_all (v, 64, 16, "subnormal/16");
}

static void
test_huge (void)
{
  /* beyond what E8M0 describes: X clamps at 2^127, elements clip at max */
  double v[] = { 1e300, -3e299, 1e200, 1.0, 0.0, -1e250, 2e38, 1e-300 };

  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    if (f != NK_BLOCK_FORMAT_NVFP4)
      for (guint r = 0; r < 2; r++)
        check_against_oracle ((NkBlockFormat) f, v, G_N_ELEMENTS (v), 4, rules[r], "huge");
  {
    g_autoptr(NkQuantization) q = nk_quantize (NK_BLOCK_FORMAT_MXFP8_E4M3, v, 2, 2,
                                               NK_MX_SCALE_UP, NK_ROUNDING_MODE_NEAREST_EVEN,
                                               NULL, NULL);
    NkQuantizeBlock b;
    NkQuantizeElement e;

    nk_quantization_get_block (q, 0, &b);
    g_assert_cmpuint (b.scale_bits, ==, 254);
    nk_quantization_get_element (q, 0, &e);
    g_assert_cmpfloat (e.value, ==, 448 * ldexp (1.0, 127));
    g_assert_cmpint (e.change, ==, NK_QUANTIZE_CLIPPED);
  }
  /* float32's largest values: no clamp needed, nvfp4 included */
  {
    double w[] = { FLT_MAX, -FLT_MAX / 3, 1.0, 1e30, 0.0, -1e38, 3e38, 5 };

    check_all (w, G_N_ELEMENTS (w), 4, "float max");
  }
}

static void
test_mixed_sign_short_pow2 (void)
{
  double v[45];

  for (guint i = 0; i < 45; i++)
    v[i] = ((i * 7) % 3 == 0 ? -1.0 : 1.0) * (0.01 + (i * 0.173));
  /* block 0's amax is exactly a power of two */
  v[5] = -4.0;
  /* block 1 (from 32): a short last block of 13 with amax 2^-3 */
  for (guint i = 32; i < 45; i++)
    v[i] = v[i] / 100.0;
  v[40] = 0.125;
  check_all (v, 45, 32, "mixed");
  check_all (v, 45, 16, "mixed/16");
  check_all (v, 45, 7, "mixed/7");
  check_all (v, 45, 1, "mixed/1");
}

static void
test_flush_and_clip (void)
{
  /* 1.99 × 2^k with the floor rule: 509 × X in e4m3 > 448 clips; the small
   * neighbours flush */
  double v[32];
  g_autoptr(NkQuantization) q = NULL;
  NkQuantizeElement e;
  NkQuantizeBlock b;

  for (guint i = 0; i < 32; i++)
    v[i] = 1e-6 * (i + 1);
  v[3] = 1.99;
  check_all (v, 32, 32, "flush/clip");

  q = nk_quantize (NK_BLOCK_FORMAT_MXFP8_E4M3, v, 32, 32, NK_MX_SCALE_FLOOR,
                   NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
  nk_quantization_get_block (q, 0, &b);
  g_assert_cmpfloat (b.amax, ==, 1.99);
  g_assert_cmpuint (b.amax_index, ==, 3);
  g_assert_cmpfloat (b.scale, ==, ldexp (1.0, -8));
  g_assert_cmpuint (b.scale_bits, ==, 119);
  nk_quantization_get_element (q, 3, &e);
  g_assert_cmpint (e.change, ==, NK_QUANTIZE_CLIPPED);
  g_assert_cmpfloat (e.value, ==, 448.0 / 256.0);
  g_assert_cmpuint (e.code, ==, 0x7e);
  nk_quantization_get_element (q, 0, &e);
  g_assert_cmpint (e.change, ==, NK_QUANTIZE_FLUSHED);
  g_assert_cmpuint (b.n_clipped, ==, 1);
  g_clear_pointer (&q, nk_quantization_unref);

  /* the up rule: X = 2^−7, nothing clips */
  q = nk_quantize (NK_BLOCK_FORMAT_MXFP8_E4M3, v, 32, 32, NK_MX_SCALE_UP,
                   NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
  nk_quantization_get_block (q, 0, &b);
  g_assert_cmpfloat (b.scale, ==, ldexp (1.0, -7));
  g_assert_cmpuint (b.n_clipped, ==, 0);

  /* NVFP4: a block scale that rounds down makes its largest element clip */
  {
    double w[16] = { 6.0 * 448.0, 0 };
    double x[32];
    double ts;
    g_autofree OracleElem *o = NULL;

    for (guint i = 0; i < 16; i++)
      x[i] = w[i];
    for (guint i = 16; i < 32; i++)
      x[i] = (i == 16) ? 6.0 * 1.0625 * 0.999 : 0.3;   /* s_b 1.0625·0.999 → e4m3 1.0 */
    check_against_oracle (NK_BLOCK_FORMAT_NVFP4, x, 32, 16, NK_MX_SCALE_FLOOR, "nvfp4 clip");
    o = oracle_quantize (NK_BLOCK_FORMAT_NVFP4, x, 32, 16, NK_MX_SCALE_FLOOR, &ts);
    g_assert_cmpfloat (ts, ==, 1.0);
    g_assert_cmpfloat (o[16].scale, ==, 1.0);
    g_assert_cmpint (o[16].change, ==, NK_QUANTIZE_CLIPPED);
  }
}

/* Values at and next to every midpoint of each grid, times a few scales. */
static double *
adversarial (NkBlockFormat fmt, gsize *out_n)
{
  const Grid *g = &grids[fmt];
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  int exps[] = { 0, -3, 5, -20, 17, -126, -140 };

  for (guint k = 0; k < G_N_ELEMENTS (exps); k++)
    {
      /* the block's amax first, a power of two times the max: sets X = 2^exp */
      double lead = grid_max (g) * ldexp (1.0, exps[k]);

      for (guint i = 0; i + 1 < g->n; i++)
        {
          double mids[] = { g->vals[i], (g->vals[i] + g->vals[i + 1]) / 2.0 };

          for (guint j = 0; j < 2; j++)
            {
              float m = (float) ldexp (mids[j], exps[k]);
              float around[] = { m, nextafterf (m, 0.0f), nextafterf (m, INFINITY), -m };

              if ((a->len % 32) == 0)
                g_array_append_val (a, lead);
              for (guint t = 0; t < 4; t++)
                {
                  double d = around[t];

                  g_array_append_val (a, d);
                }
            }
        }
    }
  *out_n = a->len;
  return (double *) g_array_free (a, FALSE);
}

static void
test_midpoints (void)
{
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    {
      gsize n;
      g_autofree double *v = adversarial ((NkBlockFormat) f, &n);

      for (guint r = 0; r < 2; r++)
        check_against_oracle ((NkBlockFormat) f, v, n, f == NK_BLOCK_FORMAT_NVFP4 ? 16 : 32,
                              rules[r], "midpoints");
    }
}

/* NVFP4 ties: with amax = 2688 × 2^k the tensor scale is 2^k, so every
 * midpoint times s_b × s_t is a float and a tie is really a tie. */
static void
test_nvfp4_ties (void)
{
  const Grid *g = &grids[NK_BLOCK_FORMAT_NVFP4];
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  double sbs[] = { 1.0, 1.125, 0.0078125, 448.0, 13.0, 0.001953125 };
  double lead = 2688.0 * 0.25;

  for (guint s = 0; s < G_N_ELEMENTS (sbs); s++)
    {
      double S = sbs[s] * 0.25;
      double top = 6.0 * S;

      g_array_append_val (a, lead);
      for (guint i = 1; i < 16; i++)
        {
          double pad = 0;

          g_array_append_val (a, pad);
        }
      /* a block whose amax gives s_b = sbs[s] exactly */
      g_array_append_val (a, top);
      for (guint i = 0; i + 1 < g->n; i++)
        {
          double mid = (g->vals[i] + g->vals[i + 1]) / 2.0 * S;
          float m = (float) mid;
          double near[] = { mid, nextafterf (m, 0.0f), nextafterf (m, INFINITY), -mid };

          g_assert_cmpfloat ((double) m, ==, mid);
          for (guint t = 0; t < 4 && a->len % 16 != 0; t++)
            g_array_append_val (a, near[t]);
          if (a->len % 16 == 0)
            g_array_append_val (a, top);
        }
      while (a->len % 16 != 0)
        {
          double z = -S * 0.3;

          g_array_append_val (a, z);
        }
    }
  check_against_oracle (NK_BLOCK_FORMAT_NVFP4, (double *) a->data, a->len, 16,
                        NK_MX_SCALE_FLOOR, "nvfp4 ties");
  g_array_free (a, TRUE);
}

static void
test_errors (void)
{
  double v[] = { 1.0, 2.0, NAN, 3.0 };
  double w[] = { 1.0, -INFINITY };
  double big[] = { 1.0, 1e39 };
  g_autoptr(GError) error = NULL;

  g_assert_null (nk_quantize (NK_BLOCK_FORMAT_MXFP4, v, 4, 32, NK_MX_SCALE_FLOOR,
                              NK_ROUNDING_MODE_NEAREST_EVEN, NULL, &error));
  g_assert_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_NOT_FINITE);
  g_assert_nonnull (strstr (error->message, "value 2 "));
  g_clear_error (&error);
  g_assert_null (nk_quantize (NK_BLOCK_FORMAT_MXFP4, w, 2, 32, NK_MX_SCALE_FLOOR,
                              NK_ROUNDING_MODE_NEAREST_EVEN, NULL, &error));
  g_assert_nonnull (strstr (error->message, "value 1 (counting from 0) is -inf"));
  g_clear_error (&error);
  g_assert_null (nk_quantize (NK_BLOCK_FORMAT_MXFP4, v, 2, 0, NK_MX_SCALE_FLOOR,
                              NK_ROUNDING_MODE_NEAREST_EVEN, NULL, &error));
  g_assert_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_BLOCK);
  g_clear_error (&error);
  g_assert_null (nk_quantize (NK_BLOCK_FORMAT_NVFP4, big, 2, 16, NK_MX_SCALE_FLOOR,
                              NK_ROUNDING_MODE_NEAREST_EVEN, NULL, &error));
  g_assert_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_RANGE);
}

/* ---- the fast path equals the people path --------------------------------- */

static guint32
fbits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static void
random_floats (NkRng *rng, float *x, gsize n, int spread)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 r = nk_rng_next_u32 (rng);
      double m = nk_rng_uniform_double (rng) * 2.0 - 1.0;
      int e = (int) (r % (2 * spread + 1)) - spread;

      switch (r >> 28)
        {
        case 0: x[i] = 0.0f; break;
        case 1: x[i] = -0.0f; break;
        case 2: x[i] = (float) ldexp (m, -130 - (int) (r % 19)); break;    /* subnormal */
        case 3: x[i] = (float) ldexp (m, 127); break;                      /* huge */
        default: x[i] = (float) ldexp (m, e); break;
        }
    }
}

static void
compare_fast (NkBlockFormat fmt, const float *x, gsize rows, gsize cols, guint block,
              NkMxScaleRule rule, NkRoundingMode mode, guint64 seed, const char *what)
{
  gsize n = rows * cols;
  g_autofree float *dst = g_new (float, n);
  g_autofree double *xd = g_new (double, n);
  NkRng *r1 = nk_rng_new (seed), *r2 = nk_rng_new (seed);
  NkQuantizeStats st = { 5, 1, 2 };        /* added to, not cleared */
  g_autoptr(NkQuantization) q = NULL;
  NkQuantizeSummary sum;

  for (gsize i = 0; i < n; i++)
    xd[i] = x[i];
  nk_quantize_fake_f32 (fmt, x, dst, rows, cols, block, rule, mode, r1, &st);
  q = nk_quantize (fmt, xd, n, block, rule, mode, r2, NULL);
  g_assert_nonnull (q);
  for (gsize i = 0; i < n; i++)
    {
      NkQuantizeElement e;

      nk_quantization_get_element (q, i, &e);
      if (fbits (dst[i]) != fbits ((float) e.value))
        g_error ("%s: %s rule %d mode %d: x[%zu] = %.9g (0x%08x): fast %.9g (0x%08x), "
                 "people %.17g", what, nk_block_format_info (fmt)->name, rule, mode, i,
                 x[i], fbits (x[i]), dst[i], fbits (dst[i]), e.value);
    }
  nk_quantization_get_summary (q, &sum);
  g_assert_cmpuint (st.elements, ==, 5 + n);
  g_assert_cmpuint (st.flushed, ==, 1 + sum.n_flushed);
  g_assert_cmpuint (st.clipped, ==, 2 + sum.n_clipped);
  g_assert_cmpuint (nk_rng_get_counter (r1), ==, nk_rng_get_counter (r2));
  nk_rng_free (r1);
  nk_rng_free (r2);
}

static void
test_fast_equals_people (void)
{
  NkRng *rng = nk_rng_new (2026);
  const gsize rows = 8, cols = 96;
  g_autofree float *x = g_new (float, rows * cols);
  NkRoundingMode modes[] = { NK_ROUNDING_MODE_NEAREST_EVEN, NK_ROUNDING_MODE_STOCHASTIC,
                             NK_ROUNDING_MODE_UP, NK_ROUNDING_MODE_DOWN,
                             NK_ROUNDING_MODE_TOWARD_ZERO };

  for (guint trial = 0; trial < 12; trial++)
    {
      random_floats (rng, x, rows * cols, trial < 6 ? 8 : 60);
      for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
        for (guint r = 0; r < 2; r++)
          for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
            {
              /* blocks dividing the columns: the same blocks as the flat vector */
              compare_fast ((NkBlockFormat) f, x, rows, cols, 32, rules[r], modes[m], trial, "random/32");
              compare_fast ((NkBlockFormat) f, x, rows, cols, 16, rules[r], modes[m], trial, "random/16");
              /* one row, a short last block */
              compare_fast ((NkBlockFormat) f, x, 1, 77, 32, rules[r], modes[m], trial, "row/77");
              compare_fast ((NkBlockFormat) f, x, 1, 93, 16, rules[r], modes[m], trial, "row/93");
            }
    }
  nk_rng_free (rng);

  /* the adversarial sets: midpoints and their neighbours */
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    {
      gsize n;
      g_autofree double *v = adversarial ((NkBlockFormat) f, &n);
      g_autofree float *xf = g_new (float, n);

      for (gsize i = 0; i < n; i++)
        xf[i] = (float) v[i];
      for (guint r = 0; r < 2; r++)
        for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
          compare_fast ((NkBlockFormat) f, xf, 1, n, f == NK_BLOCK_FORMAT_NVFP4 ? 16 : 32,
                        rules[r], modes[m], 7, "midpoints");
    }
}

static void
test_fast_rows_and_in_place (void)
{
  /* blocks restart at each row: a row-major 3 × 40 with block 32 equals each
   * row alone (MX); in place equals out of place */
  NkRng *rng = nk_rng_new (9);
  float x[120], y[120], z[120];

  random_floats (rng, x, 120, 10);
  for (guint f = 0; f < NK_BLOCK_FORMAT_NVFP4; f++)
    {
      nk_quantize_fake_f32 ((NkBlockFormat) f, x, y, 3, 40, 32, NK_MX_SCALE_FLOOR,
                            NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
      for (guint r = 0; r < 3; r++)
        {
          nk_quantize_fake_f32 ((NkBlockFormat) f, x + 40 * r, z + 40 * r, 1, 40, 32,
                                NK_MX_SCALE_FLOOR, NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
          compare_fast ((NkBlockFormat) f, x + 40 * r, 1, 40, 32, NK_MX_SCALE_FLOOR,
                        NK_ROUNDING_MODE_NEAREST_EVEN, 0, "row");
        }
      g_assert_cmpmem (y, sizeof y, z, sizeof z);
      memcpy (z, x, sizeof z);
      nk_quantize_fake_f32 ((NkBlockFormat) f, z, z, 3, 40, 32, NK_MX_SCALE_FLOOR,
                            NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
      g_assert_cmpmem (y, sizeof y, z, sizeof z);
    }
  nk_rng_free (rng);
}

/* NVFP4's fast paths against nk_quantize() on 2^20 values per array: random
 * spreads (zeros, −0, subnormals, huge), and blocks built on exact ties. With a
 * tensor amax of 2688 × 2^k the tensor scale is 2^k; a block whose amax is
 * 6 × s_b × 2^k (s_b an e4m3 value) then has S = s_b × 2^k, and its other
 * elements are the E2M1 midpoints and grid values times S (floats: 3 + 4
 * significant bits), one float step either side of them, or random. */
static void
nvfp4_ties_floats (NkRng *rng, float *x, gsize n, int k)
{
  static const double pts[] = { 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6 };

  for (gsize b = 0; b + 16 <= n; b += 16)
    {
      /* s_b = (8 + j) / 8 × 2^e, normal e4m3 up to 448 */
      int e = (int) (nk_rng_next_u32 (rng) % 15) - 6;
      double s_b = MIN ((8 + nk_rng_next_u32 (rng) % 8) / 8.0 * ldexp (1.0, e), 448.0);
      double S = s_b * ldexp (1.0, k);

      x[b] = (float) (6.0 * S);
      for (guint i = 1; i < 16; i++)
        {
          guint32 r = nk_rng_next_u32 (rng);
          float v = (float) (pts[r % G_N_ELEMENTS (pts)] * S);

          switch ((r >> 8) % 4)
            {
            case 0: v = nextafterf (v, 0.0f); break;
            case 1: v = nextafterf (v, G_MAXFLOAT); break;
            case 2: break;
            default: v = (float) (nk_rng_uniform_double (rng) * 6.0 * S); break;
            }
          x[b + i] = (r >> 31) ? -v : v;
        }
    }
  /* the tensor amax: 2688 × 2^k exactly, so that s_t = 2^k and the ties are
   * exact (a block of s_b = 448 may hold a float just above 6 × 448 × 2^k:
   * that one becomes the amax itself) */
  x[0] = (float) ldexp (2688.0, k);
  for (gsize i = 1; i < n; i++)
    if (fabsf (x[i]) > x[0])
      x[i] = copysignf (x[0], x[i]);
}

static void
test_nvfp4_fast_million (void)
{
  const gsize rows = 64, cols = 16384, n = rows * cols;
  g_autofree float *x = g_new (float, n);
  NkRng *rng = nk_rng_new (25);
  const int ks[] = { 0, -20, -133, 100 };   /* −133: S and its midpoints subnormal */

  for (guint t = 0; t < G_N_ELEMENTS (ks); t++)
    {
      nvfp4_ties_floats (rng, x, n, ks[t]);
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, rows, cols, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_NEAREST_EVEN, t, "nvfp4 ties, 2^20");
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, 1, n - 5, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_NEAREST_EVEN, t, "nvfp4 ties, short last block");
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, rows, cols, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_STOCHASTIC, t, "nvfp4 ties stochastic, 2^20");
    }
  for (int spread = 4; spread <= 64; spread *= 4)
    {
      random_floats (rng, x, n, spread);
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, rows, cols, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_NEAREST_EVEN, spread, "nvfp4 random, 2^20");
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, rows, cols, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_STOCHASTIC, spread, "nvfp4 random stochastic, 2^20");
    }

  /* non-finite input: results unspecified, but the call returns */
  x[3] = NAN;
  x[40] = INFINITY;
  x[77] = -INFINITY;
  nk_quantize_fake_f32 (NK_BLOCK_FORMAT_NVFP4, x, x, rows, cols, 16, NK_MX_SCALE_UP,
                        NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
  nk_rng_free (rng);
}

/* NVFP4's bounds for any tensor scale: s_t not a power of two (the fast path
 * decides on which side of the exact m_k × S a float lies from s_t split in two
 * halves, or in double where s_t is beyond 2^±100: both sides of both edges),
 * and each block's elements the floats nearest the midpoints, grid values and
 * 6 × S, and up to two float steps either side of them. */
static void
nvfp4_bound_floats (NkRng *rng, float *x, gsize n, double s_t_aim)
{
  static const double pts[] = { 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6 };
  float amax = (float) (2688.0 * s_t_aim);
  double s_t = (float) (amax / 2688.0);         /* CLI.md's s_t, as a float */

  for (gsize b = 0; b + 16 <= n; b += 16)
    {
      int e = (int) (nk_rng_next_u32 (rng) % 15) - 6;
      double s_b = MIN ((8 + nk_rng_next_u32 (rng) % 8) / 8.0 * ldexp (1.0, e), 448.0);
      double S = s_b * s_t;

      x[b] = (float) (6.0 * S);
      for (guint i = 1; i < 16; i++)
        {
          guint32 r = nk_rng_next_u32 (rng);
          float v = (float) (pts[r % G_N_ELEMENTS (pts)] * S);

          for (int step = (int) ((r >> 8) % 5) - 2; step != 0; step += step > 0 ? -1 : 1)
            v = nextafterf (v, step > 0 ? G_MAXFLOAT : 0.0f);
          x[b + i] = (r >> 31) ? -v : v;
        }
    }
  x[0] = amax;
  for (gsize i = 1; i < n; i++)
    if (fabsf (x[i]) > amax)
      x[i] = copysignf (amax, x[i]);
}

static void
test_nvfp4_fast_bounds (void)
{
  const gsize rows = 16, cols = 4096, n = rows * cols;
  g_autofree float *x = g_new (float, n);
  NkRng *rng = nk_rng_new (2525);
  const double aims[] = { 1.0 / 2688.0 * 3.7, 0.0137, 123.456,
                          0x1p-100 * 1.37, 0x1p-100 * 0.73, 0x1p100 * 0.73, 0x1p100 * 1.37,
                          0x1p-120 * 1.1, 0x1p-135 * 1.3 };

  for (guint t = 0; t < G_N_ELEMENTS (aims); t++)
    {
      nvfp4_bound_floats (rng, x, n, aims[t]);
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, rows, cols, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_NEAREST_EVEN, t, "nvfp4 bounds");
      compare_fast (NK_BLOCK_FORMAT_NVFP4, x, rows, cols, 16, NK_MX_SCALE_UP,
                    NK_ROUNDING_MODE_STOCHASTIC, t, "nvfp4 bounds stochastic");
    }
  nk_rng_free (rng);
}

/* NVFP4's rows go in chunks of blocks, eight at a time: rows of 1 to 150
 * blocks (within a chunk, across chunks, a last group short of eight) and a
 * short last block; blocks whose scale is 0 among them; in place equals out of
 * place. */
static void
test_nvfp4_fast_rows (void)
{
  NkRng *rng = nk_rng_new (16);
  const gsize max_cols = 150 * 16 + 9;
  g_autofree float *x = g_new (float, 3 * max_cols);
  g_autofree float *y = g_new (float, 3 * max_cols);
  g_autofree float *z = g_new (float, 3 * max_cols);
  const gsize nbs[] = { 1, 7, 8, 9, 63, 64, 65, 71, 72, 129, 150 };

  for (guint t = 0; t < G_N_ELEMENTS (nbs); t++)
    for (guint tail = 0; tail < 2; tail++)
      {
        gsize cols = nbs[t] * 16 + (tail ? 9 : 0);

        random_floats (rng, x, 3 * cols, 40);     /* spread 2^±40: blocks of S = 0 */
        for (gsize i = 0; tail && i < 3 * cols; i++)
          if (fabsf (x[i]) > 0x1p40f)
            x[i] = copysignf (0x1p40f, x[i]);     /* no 2^127: s_t in 2^±100 */
        for (guint r = 0; r < 3; r++)
          compare_fast (NK_BLOCK_FORMAT_NVFP4, x + r * cols, 1, cols, 16, NK_MX_SCALE_UP,
                        NK_ROUNDING_MODE_NEAREST_EVEN, t, "nvfp4 row");
        if (!tail)
          compare_fast (NK_BLOCK_FORMAT_NVFP4, x, 3, cols, 16, NK_MX_SCALE_UP,
                        NK_ROUNDING_MODE_NEAREST_EVEN, t, "nvfp4 rows");
        nk_quantize_fake_f32 (NK_BLOCK_FORMAT_NVFP4, x, y, 3, cols, 16, NK_MX_SCALE_UP,
                              NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
        memcpy (z, x, 3 * cols * sizeof *z);
        nk_quantize_fake_f32 (NK_BLOCK_FORMAT_NVFP4, z, z, 3, cols, 16, NK_MX_SCALE_UP,
                              NK_ROUNDING_MODE_NEAREST_EVEN, NULL, NULL);
        g_assert_cmpmem (y, 3 * cols * sizeof *y, z, 3 * cols * sizeof *z);
      }
  nk_rng_free (rng);
}

/* ---- stochastic rounding --------------------------------------------------- */

static void
test_stochastic (void)
{
  /* a block [amax, v]: v / X sits between two grid values; over many seeds the
   * dequantized v is only ever those two and averages to v */
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    {
      const Grid *g = &grids[f];
      double X = 1.0;
      double vals[2] = { grid_max (g), 0 };
      double lo, hi, sum = 0;
      guint i = g->n / 3, n_lo = 0, n_hi = 0;
      const guint N = 20000;
      double ts;

      vals[1] = g->vals[i] + 0.3 * (g->vals[i + 1] - g->vals[i]);
      if (f == NK_BLOCK_FORMAT_NVFP4)
        {
          /* amax 6 → s_t = 1/448, s_b = 448: S = 1 */
          g_autofree OracleElem *o = oracle_quantize ((NkBlockFormat) f, vals, 2, 16,
                                                      NK_MX_SCALE_FLOOR, &ts);
          X = o[0].scale * ts;
        }
      lo = g->vals[i] * X;
      hi = g->vals[i + 1] * X;
      for (guint s = 0; s < N; s++)
        {
          NkRng *rng = nk_rng_new (s);
          g_autoptr(NkQuantization) q = nk_quantize ((NkBlockFormat) f, vals, 2, 32,
                                                     NK_MX_SCALE_FLOOR,
                                                     NK_ROUNDING_MODE_STOCHASTIC, rng, NULL);
          NkQuantizeElement e;

          nk_quantization_get_element (q, 1, &e);
          g_assert_true (e.value == lo || e.value == hi);
          n_lo += e.value == lo;
          n_hi += e.value == hi;
          sum += e.value;
          nk_rng_free (rng);
        }
      g_assert_cmpuint (n_lo + n_hi, ==, N);
      /* P(hi) = 0.3; the mean's standard deviation is (hi − lo) √(0.21 / N):
       * 6 of them is a bound a correct rounder passes with certainty for
       * these fixed seeds, and a biased one (nearest: P = 0) fails */
      g_assert_cmpfloat (fabs (sum / N - vals[1]), <,
                         6 * (hi - lo) * sqrt (0.21 / N) + 1e-300);
      g_assert_cmpuint (n_hi, >, 0);
      g_assert_cmpuint (n_lo, >, 0);
    }

  /* the same seed gives the same result; another seed another */
  {
    double v[64];
    NkRng *a = nk_rng_new (42), *b = nk_rng_new (42), *c = nk_rng_new (43);
    g_autoptr(NkQuantization) qa = NULL, qb = NULL, qc = NULL;
    gboolean differs = FALSE;

    for (guint i = 0; i < 64; i++)
      v[i] = sin (i * 1.7) * (1 + i);
    qa = nk_quantize (NK_BLOCK_FORMAT_MXFP4, v, 64, 32, NK_MX_SCALE_FLOOR,
                      NK_ROUNDING_MODE_STOCHASTIC, a, NULL);
    qb = nk_quantize (NK_BLOCK_FORMAT_MXFP4, v, 64, 32, NK_MX_SCALE_FLOOR,
                      NK_ROUNDING_MODE_STOCHASTIC, b, NULL);
    qc = nk_quantize (NK_BLOCK_FORMAT_MXFP4, v, 64, 32, NK_MX_SCALE_FLOOR,
                      NK_ROUNDING_MODE_STOCHASTIC, c, NULL);
    for (guint i = 0; i < 64; i++)
      {
        NkQuantizeElement ea, eb, ec;

        nk_quantization_get_element (qa, i, &ea);
        nk_quantization_get_element (qb, i, &eb);
        nk_quantization_get_element (qc, i, &ec);
        g_assert_cmpuint (ea.code, ==, eb.code);
        differs |= ea.code != ec.code;
      }
    g_assert_true (differs);
    nk_rng_free (a);
    nk_rng_free (b);
    nk_rng_free (c);
  }
}

/* NVFP4's weight-gradient rotation: the vectorised pass gives nk_qk_rotate16()'s bits
 * (what a device's kernel runs), in place too, and both are H₁₆·diag(s)·x/4 — H₁₆
 * by Sylvester's doubling in double (nk_test_hadamard16()) — within the float error of four
 * rounds of sums: 4.001 · 2⁻²⁴ · Σ|x_j|/4 per element. */
static void
test_rotate16 (void)
{
  enum { BLOCKS = 37, N = 16 * BLOCKS };
  static const float factors[16] = { 0.25f, -0.25f, -0.25f, 0.25f, 0.25f, 0.25f, -0.25f, 0.25f,
                                     -0.25f, -0.25f, 0.25f, -0.25f, 0.25f, -0.25f, 0.25f, 0.25f };
  double h[16][16];
  float x[N], fast[N], slow[N], in_place[N];
  g_autoptr(NkRng) rng = nk_rng_new (16);

  nk_test_hadamard16 (h);
  for (guint i = 0; i < N; i++)
    x[i] = (float) ldexp (nk_rng_uniform_double (rng) * 2.0 - 1.0,
                          (int) (nk_rng_next_u32 (rng) % 41) - 20);
  x[5] = 0.0f;
  x[6] = -0.0f;
  memcpy (in_place, x, sizeof x);
  nk_quantize_rotate16_f32 (x, fast, N, factors);
  nk_quantize_rotate16_f32 (in_place, in_place, N, factors);
  for (guint q = 0; q < BLOCKS; q++)
    nk_qk_rotate16 (x + 16 * q, slow + 16 * q, factors);
  for (guint q = 0; q < BLOCKS; q++)
    for (guint i = 0; i < 16; i++)
      {
        guint k = 16 * q + i;
        double want = 0.0, size = 0.0;

        g_assert_cmphex (fbits (fast[k]), ==, fbits (slow[k]));
        g_assert_cmphex (fbits (in_place[k]), ==, fbits (slow[k]));
        for (guint j = 0; j < 16; j++)
          {
            want += h[i][j] * factors[j] * x[16 * q + j];
            size += fabs (x[16 * q + j]) / 4.0;
          }
        g_assert_cmpfloat (fabs (fast[k] - want), <=, 4.001 * 0x1p-24 * size);
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  grids_init ();
  g_test_add_func ("/quantize/oracle-grids", test_oracle_grids);
  g_test_add_func ("/quantize/names", test_names);
  g_test_add_func ("/quantize/all-zero", test_all_zero);
  g_test_add_func ("/quantize/subnormal", test_subnormal_blocks);
  g_test_add_func ("/quantize/huge", test_huge);
  g_test_add_func ("/quantize/mixed-sign-short-pow2", test_mixed_sign_short_pow2);
  g_test_add_func ("/quantize/flush-and-clip", test_flush_and_clip);
  g_test_add_func ("/quantize/midpoints", test_midpoints);
  g_test_add_func ("/quantize/nvfp4-ties", test_nvfp4_ties);
  g_test_add_func ("/quantize/errors", test_errors);
  g_test_add_func ("/quantize/fast-equals-people", test_fast_equals_people);
  g_test_add_func ("/quantize/fast-rows-in-place", test_fast_rows_and_in_place);
  g_test_add_func ("/quantize/nvfp4-fast-million", test_nvfp4_fast_million);
  g_test_add_func ("/quantize/nvfp4-fast-bounds", test_nvfp4_fast_bounds);
  g_test_add_func ("/quantize/nvfp4-fast-rows", test_nvfp4_fast_rows);
  g_test_add_func ("/quantize/stochastic", test_stochastic);
  g_test_add_func ("/quantize/rotate16", test_rotate16);
  return g_test_run ();
}
