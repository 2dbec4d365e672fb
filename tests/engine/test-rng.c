/* test-rng.c: Philox4x32-10 against Random123's answers, distributions, exact resume
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "nk-rng.h"

/* Random123 1.14, tests/kat_vectors: "philox4x32 10" lines (ctr, key, expected). */
static const struct {
  guint32 ctr[4];
  guint32 key[2];
  guint32 out[4];
} kat[] = {
  { { 0x00000000, 0x00000000, 0x00000000, 0x00000000 }, { 0x00000000, 0x00000000 },
    { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
  { { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff }, { 0xffffffff, 0xffffffff },
    { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
  { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 },
    { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
};

static void
test_philox_kat (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (kat); i++)
    {
      guint32 out[4];

      nk_philox4x32_10 (kat[i].ctr, kat[i].key, out);
      for (guint k = 0; k < 4; k++)
        g_assert_cmphex (out[k], ==, kat[i].out[k]);
    }
}

static void
test_stream_layout (void)
{
  g_autoptr(NkRng) zero = nk_rng_new (0);
  /* The last block the 64-bit word counter reaches: 2^62 - 1. */
  g_autoptr(NkRng) ones = nk_rng_new_from_state (G_MAXUINT64, G_MAXUINT64 - 3);

  /* Seed 0 at counter 0 is the all-zero KAT block, word by word. */
  for (guint k = 0; k < 4; k++)
    g_assert_cmphex (nk_rng_next_u32 (zero), ==, kat[0].out[k]);
  g_assert_cmpuint (nk_rng_get_counter (zero), ==, 4);

  /* Block 2^62 - 1 with key all ones is ctr = {0xffffffff, 0x3fffffff, 0, 0}: the
   * stream must put the block index in the low counter words. */
  {
    guint32 ctr[4] = { 0xffffffff, 0x3fffffff, 0, 0 }, key[2] = { 0xffffffff, 0xffffffff };
    guint32 out[4];

    nk_philox4x32_10 (ctr, key, out);
    g_assert_cmphex (nk_rng_next_u32 (ones), ==, out[0]);
    g_assert_cmphex (nk_rng_next_u32 (ones), ==, out[1]);
  }

  /* u64 is (hi << 32) | lo of two consecutive words. */
  {
    g_autoptr(NkRng) r = nk_rng_new (0);
    guint64 v = nk_rng_next_u64 (r);

    g_assert_cmphex (v, ==, ((guint64) kat[0].out[1] << 32) | kat[0].out[0]);
  }
}

static void
test_word_accounting (void)
{
  g_autoptr(NkRng) r = nk_rng_new (7);
  float buf[5];

  nk_rng_uniform_float (r);
  g_assert_cmpuint (nk_rng_get_counter (r), ==, 1);
  nk_rng_uniform_double (r);
  g_assert_cmpuint (nk_rng_get_counter (r), ==, 3);
  nk_rng_normal (r, 0, 1);
  g_assert_cmpuint (nk_rng_get_counter (r), ==, 5);
  nk_rng_fill_normal_f32 (r, buf, 5, 0, 1);
  g_assert_cmpuint (nk_rng_get_counter (r), ==, 11);
  nk_rng_fill_uniform_f32 (r, buf, 5, -1, 1);
  g_assert_cmpuint (nk_rng_get_counter (r), ==, 16);
}

static void
test_resume (void)
{
  g_autoptr(NkRng) a = nk_rng_new (20260101);
  g_autoptr(NkRng) b = NULL;
  g_autoptr(NkRng) c = NULL;
  g_autoptr(NkRng) d = NULL;
  g_autofree char *state = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;
  guint64 seed, counter;
  float fa[33], fb[33];

  /* Leave the generator mid-block with a mix of draws. */
  nk_rng_next_u32 (a);
  nk_rng_normal (a, 0, 1);
  nk_rng_uniform_int (a, 1000);

  nk_rng_get_state (a, &seed, &counter);
  g_assert_cmpuint (seed, ==, 20260101);
  b = nk_rng_new_from_state (seed, counter);
  state = nk_rng_to_string (a);
  expected = g_strdup_printf ("philox4x32-10:20260101:%" G_GUINT64_FORMAT, counter);
  g_assert_cmpstr (state, ==, expected);
  c = nk_rng_new_from_string (state, &error);
  g_assert_no_error (error);
  d = nk_rng_new (1);
  nk_rng_next_u32 (d);      /* a stale cache must not survive set_state */
  nk_rng_set_state (d, seed, counter);

  for (guint i = 0; i < 100; i++)
    {
      guint32 w = nk_rng_next_u32 (a);

      g_assert_cmphex (nk_rng_next_u32 (b), ==, w);
      g_assert_cmphex (nk_rng_next_u32 (c), ==, w);
      g_assert_cmphex (nk_rng_next_u32 (d), ==, w);
    }

  nk_rng_fill_truncated_normal_f32 (a, fa, G_N_ELEMENTS (fa), 0, 0.125, -3, 3);
  nk_rng_fill_truncated_normal_f32 (b, fb, G_N_ELEMENTS (fb), 0, 0.125, -3, 3);
  g_assert_cmpmem (fa, sizeof fa, fb, sizeof fb);
  g_assert_cmpuint (nk_rng_get_counter (a), ==, nk_rng_get_counter (b));
}

static void
test_state_string_bad (void)
{
  const char *bad[] = { "", "philox4x32-10:", "philox4x32-10:1", "philox4x32-10:1:2:3",
                        "philox4x32-10:-1:2", "philox4x32-10:1:x", "pcg:1:2",
                        "philox4x32-10:18446744073709551616:0" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkRng) r = nk_rng_new_from_string (bad[i], &error);

      g_assert_null (r);
      g_assert_error (error, NK_RNG_ERROR, NK_RNG_ERROR_PARSE);
    }
}

static void
test_seeds_differ (void)
{
  g_autoptr(NkRng) a = nk_rng_new (1);
  g_autoptr(NkRng) b = nk_rng_new (2);
  g_autoptr(NkRng) a2 = nk_rng_new (1);
  guint same = 0;

  for (guint i = 0; i < 64; i++)
    {
      guint32 x = nk_rng_next_u32 (a);

      same += x == nk_rng_next_u32 (b);
      g_assert_cmphex (x, ==, nk_rng_next_u32 (a2));
    }
  g_assert_cmpuint (same, <, 2);
}

/* Sample moments: mean, variance, and the fourth standardized moment. */
typedef struct {
  double mean, var, kurt, min, max;
} Moments;

static Moments
moments (const double *x,
         gsize         n)
{
  Moments m = { 0, 0, 0, INFINITY, -INFINITY };
  double m2 = 0, m4 = 0;

  for (gsize i = 0; i < n; i++)
    {
      m.mean += x[i];
      m.min = MIN (m.min, x[i]);
      m.max = MAX (m.max, x[i]);
    }
  m.mean /= n;
  for (gsize i = 0; i < n; i++)
    {
      double d = x[i] - m.mean;

      m2 += d * d;
      m4 += d * d * d * d;
    }
  m.var = m2 / n;
  m.kurt = (m4 / n) / (m.var * m.var);
  return m;
}

#define N_SAMPLES 200000

static void
test_uniform_moments (void)
{
  g_autoptr(NkRng) r = nk_rng_new (11);
  g_autofree double *x = g_new (double, N_SAMPLES);
  Moments m;

  for (gsize i = 0; i < N_SAMPLES; i++)
    x[i] = nk_rng_uniform_double (r);
  m = moments (x, N_SAMPLES);
  /* U(0,1): mean 1/2 (sd of the estimate sqrt(1/12/n) ≈ 6.5e-4), variance 1/12,
   * kurtosis 9/5. Bounds are 5 standard errors. */
  g_assert_cmpfloat_with_epsilon (m.mean, 0.5, 5 * sqrt (1.0 / 12 / N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.var, 1.0 / 12, 5 * sqrt (1.0 / 180 / N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.kurt, 1.8, 0.02);
  g_assert_cmpfloat (m.min, >=, 0.0);
  g_assert_cmpfloat (m.max, <, 1.0);

  for (gsize i = 0; i < N_SAMPLES; i++)
    x[i] = nk_rng_uniform_float (r);
  m = moments (x, N_SAMPLES);
  g_assert_cmpfloat_with_epsilon (m.mean, 0.5, 5 * sqrt (1.0 / 12 / N_SAMPLES));
  g_assert_cmpfloat (m.max, <, 1.0);
}

static void
test_uniform_int (void)
{
  g_autoptr(NkRng) r = nk_rng_new (12);
  guint counts[10] = { 0 };
  double chi2 = 0;
  const guint n = 100000;

  for (guint i = 0; i < n; i++)
    {
      guint64 v = nk_rng_uniform_int (r, 10);

      g_assert_cmpuint (v, <, 10);
      counts[v]++;
    }
  for (guint k = 0; k < 10; k++)
    chi2 += (counts[k] - n / 10.0) * (counts[k] - n / 10.0) / (n / 10.0);
  /* chi-square with 9 degrees of freedom: P(X > 27.88) = 0.001. */
  g_assert_cmpfloat (chi2, <, 27.88);

  g_assert_cmpuint (nk_rng_uniform_int (r, 1), ==, 0);
  for (guint i = 0; i < 1000; i++)
    g_assert_cmpuint (nk_rng_uniform_int (r, G_MAXUINT64 / 2 + 2), <, G_MAXUINT64 / 2 + 2);
}

static void
test_normal_moments (void)
{
  g_autoptr(NkRng) r = nk_rng_new (13);
  g_autofree double *x = g_new (double, N_SAMPLES);
  g_autofree float *f = g_new (float, N_SAMPLES);
  Moments m;

  for (gsize i = 0; i < N_SAMPLES; i++)
    x[i] = nk_rng_normal (r, 2.0, 3.0);
  m = moments (x, N_SAMPLES);
  /* N(2, 9): the mean estimate has sd 3/sqrt(n), the variance estimate 9·sqrt(2/n),
   * the kurtosis estimate sqrt(24/n). */
  g_assert_cmpfloat_with_epsilon (m.mean, 2.0, 5 * 3 / sqrt (N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.var, 9.0, 5 * 9 * sqrt (2.0 / N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.kurt, 3.0, 5 * sqrt (24.0 / N_SAMPLES));

  nk_rng_fill_normal_f32 (r, f, N_SAMPLES, 0.0, 1.0);
  for (gsize i = 0; i < N_SAMPLES; i++)
    x[i] = f[i];
  m = moments (x, N_SAMPLES);
  g_assert_cmpfloat_with_epsilon (m.mean, 0.0, 5 / sqrt (N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.var, 1.0, 5 * sqrt (2.0 / N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.kurt, 3.0, 5 * sqrt (24.0 / N_SAMPLES));
}

/* Closed forms of the normal truncated to [a, b] (in standard units):
 * Z = Φ(b) − Φ(a), mean = (φ(a) − φ(b)) / Z,
 * var = 1 + (a·φ(a) − b·φ(b)) / Z − mean². */
static double
phi (double x)
{
  return exp (-0.5 * x * x) / sqrt (2 * G_PI);
}

static double
Phi (double x)
{
  return 0.5 * erfc (-x / G_SQRT2);
}

static void
check_truncated (double a,
                 double b,
                 double mean,
                 double std,
                 gboolean fill)
{
  g_autoptr(NkRng) r = nk_rng_new (14);
  g_autofree double *x = g_new (double, N_SAMPLES);
  double Z = Phi (b) - Phi (a);
  double tmean = (phi (a) - phi (b)) / Z;
  double tvar = 1 + (a * phi (a) - b * phi (b)) / Z - tmean * tmean;
  Moments m;

  if (fill)
    {
      g_autofree float *f = g_new (float, N_SAMPLES);

      nk_rng_fill_truncated_normal_f32 (r, f, N_SAMPLES, mean, std, a, b);
      for (gsize i = 0; i < N_SAMPLES; i++)
        x[i] = f[i];
    }
  else
    for (gsize i = 0; i < N_SAMPLES; i++)
      x[i] = nk_rng_truncated_normal (r, mean, std, a, b);

  m = moments (x, N_SAMPLES);
  /* Rounding to float can move a value by half an ulp past the bound. */
  g_assert_cmpfloat (m.min, >=, mean + a * std - 1e-6 * std);
  g_assert_cmpfloat (m.max, <=, mean + b * std + 1e-6 * std);
  g_assert_cmpfloat_with_epsilon (m.mean, mean + std * tmean, 5 * std * sqrt (tvar / N_SAMPLES));
  g_assert_cmpfloat_with_epsilon (m.var, std * std * tvar,
                                  5 * std * std * tvar * sqrt (2.0 / N_SAMPLES));
}

static void
test_truncated_normal (void)
{
  /* The lecture's init: std 1/sqrt(fan_in), truncated at ±3 std (variance 0.9733). */
  check_truncated (-3, 3, 0.0, 1 / sqrt (64), FALSE);
  check_truncated (-3, 3, 0.0, 1 / sqrt (64), TRUE);
  /* Asymmetric bounds move the mean: the closed form checks both tails. */
  check_truncated (-1, 2, 5.0, 2.0, FALSE);
  check_truncated (-1, 2, 5.0, 2.0, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/rng/philox/known-answers", test_philox_kat);
  g_test_add_func ("/engine/rng/stream/layout", test_stream_layout);
  g_test_add_func ("/engine/rng/stream/word-accounting", test_word_accounting);
  g_test_add_func ("/engine/rng/state/resume", test_resume);
  g_test_add_func ("/engine/rng/state/bad-strings", test_state_string_bad);
  g_test_add_func ("/engine/rng/seeds", test_seeds_differ);
  g_test_add_func ("/engine/rng/uniform/moments", test_uniform_moments);
  g_test_add_func ("/engine/rng/uniform-int/chi-square", test_uniform_int);
  g_test_add_func ("/engine/rng/normal/moments", test_normal_moments);
  g_test_add_func ("/engine/rng/truncated-normal/moments", test_truncated_normal);

  return g_test_run ();
}
