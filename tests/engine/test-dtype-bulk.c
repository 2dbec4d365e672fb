/* test-dtype-bulk.c: bulk conversion equals scalar conversion, on every float32
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The oracle is nk_dtype_encode()/nk_dtype_decode() — exact, integer-only code
 * that test-dtype checks against the definition — and the bulk paths (F16C,
 * AVX2 bit tricks, portable bit tricks) are separate code that must agree with
 * it bit for bit. f16 and bf16 are checked on all 2^32 inputs on two threads;
 * with NAPKIN_EXHAUSTIVE=0, or in a sanitizer build, on a strided sample.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-dtype.h"

#define CHUNK (1u << 16)
#define SAMPLE_STRIDE 4099u

static gboolean
exhaustive (void)
{
  const char *env = g_getenv ("NAPKIN_EXHAUSTIVE");

#if defined(__SANITIZE_ADDRESS__)
  return FALSE;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
  return FALSE;
#endif
#endif
  return env == NULL || strcmp (env, "0") != 0;
}

static guint32
float_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static float
bits_float (guint32 u)
{
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

static guint64
load (NkDType     dtype,
      const void *p,
      gsize       i)
{
  switch (nk_dtype_element_size (dtype))
    {
    case 1: return ((const guint8 *) p)[i];
    case 2: return ((const guint16 *) p)[i];
    default: return ((const guint32 *) p)[i];
    }
}

/* The scalar answer for a bulk to_f32: the exact value as a float, NaN canonical. */
static guint32
expected_f32 (NkDType dtype,
              guint64 bits)
{
  double d = nk_dtype_to_double (dtype, bits);

  if (isnan (d))
    return signbit (d) ? 0xffc00000 : 0x7fc00000;
  return float_bits ((float) d);
}

typedef struct {
  NkDType    dtype;
  NkOverflow overflow;
  guint64    start, end;   /* u32 inputs start, start + step, … < end */
  guint32    step;
  guint64    checked;
  guint64    mismatches;
  guint32    first_bad;
} Job;

static gpointer
run_job (gpointer data)
{
  Job *job = data;
  float *src = g_new (float, CHUNK);
  guint8 *dst = g_malloc (CHUNK * 4);
  guint64 u = job->start;

  while (u < job->end)
    {
      gsize n = 0;

      for (; n < CHUNK && u < job->end; n++, u += job->step)
        src[n] = bits_float ((guint32) u);
      nk_dtype_convert_from_f32 (job->dtype, src, dst, n, job->overflow);
      for (gsize i = 0; i < n; i++)
        {
          guint64 want = nk_dtype_encode (job->dtype, (double) src[i], job->overflow);

          if (load (job->dtype, dst, i) != want)
            {
              if (job->mismatches++ == 0)
                job->first_bad = float_bits (src[i]);
            }
        }
      job->checked += n;
    }
  g_free (src);
  g_free (dst);
  return NULL;
}

/* All inputs (or the strided sample) split over two threads. */
static void
check_all_f32 (NkDType    dtype,
               NkOverflow overflow,
               guint32    step)
{
  Job jobs[2];
  GThread *threads[2];
  guint64 total = G_GUINT64_CONSTANT (1) << 32;
  guint64 half = (total / 2 / step) * step;

  for (guint t = 0; t < 2; t++)
    {
      memset (&jobs[t], 0, sizeof jobs[t]);
      jobs[t].dtype = dtype;
      jobs[t].overflow = overflow;
      jobs[t].step = step;
      jobs[t].start = t == 0 ? 0 : half;
      jobs[t].end = t == 0 ? half : total;
      threads[t] = g_thread_new ("bulk-check", run_job, &jobs[t]);
    }
  for (guint t = 0; t < 2; t++)
    g_thread_join (threads[t]);
  for (guint t = 0; t < 2; t++)
    {
      if (jobs[t].mismatches)
        g_error ("%s (%s, %s): %" G_GUINT64_FORMAT " mismatches, first at f32 0x%08x",
                 nk_dtype_info (dtype)->cli_name, nk_dtype_bulk_path (dtype),
                 overflow == NK_OVERFLOW_SATURATE ? "saturate" : "default",
                 jobs[t].mismatches, jobs[t].first_bad);
    }
  g_assert_cmpuint (jobs[0].checked + jobs[1].checked, ==, (total + step - 1) / step);
}

static void
test_all_f32 (gconstpointer data)
{
  NkDType dtype = GPOINTER_TO_INT (data);

  if (!exhaustive ())
    {
      g_test_message ("strided sample (NAPKIN_EXHAUSTIVE=0 or sanitizer build)");
      check_all_f32 (dtype, NK_OVERFLOW_DEFAULT, SAMPLE_STRIDE);
      return;
    }
  check_all_f32 (dtype, NK_OVERFLOW_DEFAULT, 1);
}

/* Every format, both overflow modes, both code paths, on a strided sample. */
static void
test_sample_all_paths (void)
{
  const NkDType dtypes[] = { NK_DTYPE_F32, NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_E4M3, NK_DTYPE_E5M2,
    NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1, NK_DTYPE_E8M0,
    NK_DTYPE_E4M3FNUZ, NK_DTYPE_E5M2FNUZ };

  for (guint portable = 0; portable < 2; portable++)
    {
      nk_dtype_bulk_force_portable (portable);
      for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
        for (guint mode = 0; mode < 2; mode++)
          check_all_f32 (dtypes[i], mode ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT,
                         exhaustive () ? 257 : SAMPLE_STRIDE * 4);
    }
  nk_dtype_bulk_force_portable (FALSE);
}

static void
check_array (NkDType      dtype,
             const float *src,
             gsize        n)
{
  g_autofree guint8 *dst = g_malloc (n * 4 + 4);

  for (guint mode = 0; mode < 2; mode++)
    {
      NkOverflow overflow = mode ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;

      /* an odd offset and length so the vector loops and their tails both run */
      nk_dtype_convert_from_f32 (dtype, src + 1, dst, n - 1, overflow);
      for (gsize i = 0; i + 1 < n; i++)
        {
          guint64 want = nk_dtype_encode (dtype, (double) src[i + 1], overflow);

          if (load (dtype, dst, i) != want)
            g_error ("%s (%s): f32 0x%08x gave 0x%" G_GINT64_MODIFIER "x, want 0x%" G_GINT64_MODIFIER "x",
                     nk_dtype_info (dtype)->cli_name, nk_dtype_bulk_path (dtype),
                     float_bits (src[i + 1]), load (dtype, dst, i), want);
        }
    }
}

/* fp8: all specials, every value and midpoint of the format with its float
 * neighbours, and a large random sample, on both paths. */
static void
test_fp8 (void)
{
  const NkDType dtypes[] = { NK_DTYPE_E4M3, NK_DTYPE_E5M2,
    NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1, NK_DTYPE_E8M0,
    NK_DTYPE_E4M3FNUZ, NK_DTYPE_E5M2FNUZ };
  const gsize n_random = exhaustive () ? 1u << 24 : 1u << 18;
  GRand *rand = g_rand_new_with_seed (8);
  g_autofree float *random = g_new (float, n_random);
  GArray *special = g_array_new (FALSE, FALSE, sizeof (float));
  const float fixed[] = {
    0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, 448.0f, 464.0f, 465.0f, 480.0f,
    57344.0f, 61439.0f, 61440.0f, 65536.0f, 1e-8f, 1e-45f, 3.4028235e38f, -3.4028235e38f,
    1.17549435e-38f, bits_float (0x7f800001), bits_float (0xffbfffff), bits_float (0x7fffffff),
  };

  for (gsize i = 0; i < n_random; i++)
    random[i] = bits_float (g_rand_int (rand));

  g_array_append_vals (special, fixed, G_N_ELEMENTS (fixed));
  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (guint bits = 0; bits < (1u << nk_dtype_info (dtypes[d])->bits); bits++)
      {
        double v = nk_dtype_to_double (dtypes[d], bits);
        double next = nk_dtype_to_double (dtypes[d], nk_dtype_next_up (dtypes[d], bits));

        if (!isfinite (v))
          continue;
        for (int k = 0; k < 2; k++)
          {
            /* the value and the midpoint above it, with their float neighbours */
            float f = (float) (k == 0 ? v : (isfinite (next) ? (v + next) / 2 : v * 1.0625));

            g_array_append_val (special, f);
            f = nextafterf (f, INFINITY);
            g_array_append_val (special, f);
            f = nextafterf (nextafterf (f, -INFINITY), -INFINITY);
            g_array_append_val (special, f);
          }
      }

  for (guint portable = 0; portable < 2; portable++)
    {
      nk_dtype_bulk_force_portable (portable);
      for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
        {
          check_array (dtypes[d], (const float *) special->data, special->len);
          check_array (dtypes[d], random, n_random);
        }
    }
  nk_dtype_bulk_force_portable (FALSE);
  g_array_unref (special);
  g_rand_free (rand);
}

/* Every 8- and 16-bit pattern widens to exactly the decoded value. */
static void
test_to_f32 (void)
{
  const NkDType dtypes[] = { NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_E4M3, NK_DTYPE_E5M2,
    NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1, NK_DTYPE_E8M0,
    NK_DTYPE_E4M3FNUZ, NK_DTYPE_E5M2FNUZ };
  g_autofree guint8 *src = g_malloc (2 * 65537);
  g_autofree guint32 *dst = g_new (guint32, 65537);

  for (guint portable = 0; portable < 2; portable++)
    {
      nk_dtype_bulk_force_portable (portable);
      for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
        {
          NkDType dtype = dtypes[d];
          gsize n = (gsize) 1 << nk_dtype_info (dtype)->bits;

          for (gsize i = 0; i < n; i++)
            {
              if (nk_dtype_element_size (dtype) == 1)
                src[i] = (guint8) i;
              else
                ((guint16 *) src)[i] = (guint16) i;
            }
          nk_dtype_convert_to_f32 (dtype, src, (float *) dst, n);
          for (gsize i = 0; i < n; i++)
            if (dst[i] != expected_f32 (dtype, i))
              g_error ("%s (%s): 0x%" G_GSIZE_MODIFIER "x widened to 0x%08x, want 0x%08x",
                       nk_dtype_info (dtype)->cli_name, nk_dtype_bulk_path (dtype), i, dst[i],
                       expected_f32 (dtype, i));

          /* and back: a round trip is the identity except on NaN */
          {
            g_autofree guint8 *back = g_malloc (2 * n);

            nk_dtype_convert_from_f32 (dtype, (const float *) dst, back, n, NK_OVERFLOW_DEFAULT);
            for (gsize i = 0; i < n; i++)
              if (!isnan (bits_float (dst[i])))
                g_assert_cmphex (load (dtype, back, i), ==, i);
          }
        }
    }
  nk_dtype_bulk_force_portable (FALSE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/engine/dtype/bulk/f16/all-f32", GINT_TO_POINTER (NK_DTYPE_F16), test_all_f32);
  g_test_add_data_func ("/engine/dtype/bulk/bf16/all-f32", GINT_TO_POINTER (NK_DTYPE_BF16), test_all_f32);
  /* the formats of issue 25: every float32 input, bulk against scalar */
  g_test_add_data_func ("/engine/dtype/bulk/fp6-e3m2/all-f32", GINT_TO_POINTER (NK_DTYPE_FP6_E3M2), test_all_f32);
  g_test_add_data_func ("/engine/dtype/bulk/fp6-e2m3/all-f32", GINT_TO_POINTER (NK_DTYPE_FP6_E2M3), test_all_f32);
  g_test_add_data_func ("/engine/dtype/bulk/fp4-e2m1/all-f32", GINT_TO_POINTER (NK_DTYPE_FP4_E2M1), test_all_f32);
  g_test_add_data_func ("/engine/dtype/bulk/e8m0/all-f32", GINT_TO_POINTER (NK_DTYPE_E8M0), test_all_f32);
  g_test_add_data_func ("/engine/dtype/bulk/e4m3fnuz/all-f32", GINT_TO_POINTER (NK_DTYPE_E4M3FNUZ), test_all_f32);
  g_test_add_data_func ("/engine/dtype/bulk/e5m2fnuz/all-f32", GINT_TO_POINTER (NK_DTYPE_E5M2FNUZ), test_all_f32);
  g_test_add_func ("/engine/dtype/bulk/sample", test_sample_all_paths);
  g_test_add_func ("/engine/dtype/bulk/fp8", test_fp8);
  g_test_add_func ("/engine/dtype/bulk/to-f32", test_to_f32);

  return g_test_run ();
}
