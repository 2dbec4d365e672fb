/* bench-dtype.c: bulk float32 conversion speed, against a plain copy of the same array
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run by hand: bench-dtype [--n N] [--reps R] [--json]. Single thread. Prints the
 * best of R runs in million elements per second; bench-dtype.py runs numpy and
 * PyTorch on the same machine and prints the ratios.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nk-dtype.h"

typedef enum { FROM_F32, TO_F32, COPY } Kind;

typedef struct {
  const char *name;
  Kind        kind;
  NkDType     dtype;
  gboolean    portable;
} Case;

static const Case cases[] = {
  { "memcpy f32",             COPY,     NK_DTYPE_F32,  FALSE },
  { "f32->f16",               FROM_F32, NK_DTYPE_F16,  FALSE },
  { "f32->f16 portable",      FROM_F32, NK_DTYPE_F16,  TRUE },
  { "f32->bf16",              FROM_F32, NK_DTYPE_BF16, FALSE },
  { "f32->bf16 portable",     FROM_F32, NK_DTYPE_BF16, TRUE },
  { "f32->e4m3",              FROM_F32, NK_DTYPE_E4M3, FALSE },
  { "f32->e4m3 portable",     FROM_F32, NK_DTYPE_E4M3, TRUE },
  { "f32->e5m2",              FROM_F32, NK_DTYPE_E5M2, FALSE },
  { "f32->e5m2 portable",     FROM_F32, NK_DTYPE_E5M2, TRUE },
  { "f16->f32",               TO_F32,   NK_DTYPE_F16,  FALSE },
  { "bf16->f32",              TO_F32,   NK_DTYPE_BF16, FALSE },
  { "e4m3->f32",              TO_F32,   NK_DTYPE_E4M3, FALSE },
  { "e5m2->f32",              TO_F32,   NK_DTYPE_E5M2, FALSE },
  /* issue 25's element formats, one code per byte */
  { "f32->fp6-e3m2",          FROM_F32, NK_DTYPE_FP6_E3M2, FALSE },
  { "f32->fp6-e2m3",          FROM_F32, NK_DTYPE_FP6_E2M3, FALSE },
  { "f32->fp4-e2m1",          FROM_F32, NK_DTYPE_FP4_E2M1, FALSE },
  { "f32->fp4-e2m1 portable", FROM_F32, NK_DTYPE_FP4_E2M1, TRUE },
  { "f32->e8m0",              FROM_F32, NK_DTYPE_E8M0, FALSE },
  { "f32->e4m3fnuz",          FROM_F32, NK_DTYPE_E4M3FNUZ, FALSE },
  { "f32->e5m2fnuz",          FROM_F32, NK_DTYPE_E5M2FNUZ, FALSE },
  { "fp4-e2m1->f32",          TO_F32,   NK_DTYPE_FP4_E2M1, FALSE },
  { "e8m0->f32",              TO_F32,   NK_DTYPE_E8M0, FALSE },
};

int
main (int   argc,
      char *argv[])
{
  gint64 n = 1 << 24;
  gint reps = 20;
  gboolean json = FALSE;
  g_autoptr(GOptionContext) context = g_option_context_new ("— bulk number-format conversion speed");
  g_autoptr(GError) error = NULL;
  const GOptionEntry entries[] = {
    { "n", 0, 0, G_OPTION_ARG_INT64, &n, "Elements per array (default 16777216)", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Runs; the best counts (default 20)", "R" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "One JSON object per case", NULL },
    { NULL }
  };
  float *src, *back;
  guint8 *narrow;
  GRand *rand;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || n <= 0 || reps <= 0)
    {
      g_printerr ("bench-dtype: %s\n", error ? error->message : "--n and --reps must be positive");
      return 2;
    }

  /* Normal values spread over a few decades, as activations are; the same
   * distribution bench-dtype.py gives numpy and torch. */
  rand = g_rand_new_with_seed (1);
  src = g_new (float, n);
  back = g_new (float, n);
  narrow = g_malloc (n * 4);
  for (gint64 i = 0; i < n; i++)
    {
      double u1 = g_rand_double (rand), u2 = g_rand_double (rand);

      src[i] = (float) (sqrt (-2 * log (1 - u1)) * cos (2 * G_PI * u2) * 100);
    }
  g_rand_free (rand);
  memset (back, 0, n * sizeof (float));
  memset (narrow, 0, n * 4);

  if (!json)
    g_print ("%-22s %-9s %12s %10s\n", "case", "path", "Melem/s", "GB/s");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const Case *k = &cases[c];
      gint64 best = G_MAXINT64;
      double melems, bytes;
      const char *path;
      gsize esize = nk_dtype_element_size (k->dtype);

      nk_dtype_bulk_force_portable (k->portable);
      if (k->kind == TO_F32)
        nk_dtype_convert_from_f32 (k->dtype, src, narrow, n, NK_OVERFLOW_DEFAULT);
      for (int r = 0; r < reps; r++)
        {
          gint64 t0 = g_get_monotonic_time (), t;

          switch (k->kind)
            {
            case COPY:
              memcpy (back, src, n * sizeof (float));
              break;
            case FROM_F32:
              nk_dtype_convert_from_f32 (k->dtype, src, narrow, n, NK_OVERFLOW_DEFAULT);
              break;
            case TO_F32:
            default:
              nk_dtype_convert_to_f32 (k->dtype, narrow, back, n);
              break;
            }
          t = g_get_monotonic_time () - t0;
          best = MIN (best, t);
        }
      path = k->kind == COPY ? "libc" : nk_dtype_bulk_path (k->dtype);
      if (k->kind == TO_F32 && nk_dtype_element_size (k->dtype) == 1)
        path = "table";  /* one-byte codes widen by a 256-entry lookup on every machine */
      melems = n / (double) MAX (best, 1);
      bytes = n * (4.0 + (k->kind == COPY ? 4.0 : esize)) / (MAX (best, 1) * 1e3);
      if (json)
        g_print ("{\"case\":\"%s\",\"path\":\"%s\",\"n\":%" G_GINT64_FORMAT ",\"seconds\":%.6f,"
                 "\"melem_per_s\":%.1f,\"gb_per_s\":%.2f}\n",
                 k->name, path, n, best / 1e6,
                 melems, bytes);
      else
        g_print ("%-22s %-9s %12.1f %10.2f\n", k->name, path, melems, bytes);
    }
  nk_dtype_bulk_force_portable (FALSE);

  g_free (src);
  g_free (back);
  g_free (narrow);
  return 0;
}
