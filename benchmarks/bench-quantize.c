/* bench-quantize.c: block quantize-then-dequantize speed, against a memcpy of the same array
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run by hand: bench-quantize [--rows R] [--cols C] [--reps N]. Single thread.
 * Times nk_quantize_fake_f32() on a rows × cols float32 matrix (default 4096 ×
 * 4096, normal values) for each block format, and a memcpy of the same bytes in
 * the same process, both on this one thread; prints the best of N runs (wall)
 * and the median of the thread's CPU time over them (CLOCK_THREAD_CPUTIME_ID:
 * time spent waiting for a core on a loaded machine does not count), each with
 * its ratio quantize / memcpy. Issue 25's target: MXFP8 and NVFP4 at most
 * 4 × memcpy.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nk-cpuinfo.h"
#include "nk-quantize.h"

static double
thread_seconds (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* the best wall time of reps runs; *cpu_median: the median of their thread CPU times */
static double
best_of (int reps, void (*fn) (gpointer), gpointer data, double *cpu_median)
{
  g_autofree double *cpu = g_new (double, reps);
  double best = G_MAXDOUBLE;

  for (int r = 0; r < reps; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      double c0 = thread_seconds ();

      fn (data);
      cpu[r] = thread_seconds () - c0;
      best = MIN (best, (g_get_monotonic_time () - t0) / 1e6);
    }
  qsort (cpu, reps, sizeof *cpu, compare_doubles);
  *cpu_median = cpu[reps / 2];
  return best;
}

typedef struct {
  const float    *src;
  float          *dst;
  gsize           rows, cols;
  NkBlockFormat   format;
  NkRoundingMode  rounding;
  NkRng          *rng;
} Job;

static void
run_copy (gpointer data)
{
  Job *job = data;

  memcpy (job->dst, job->src, job->rows * job->cols * sizeof (float));
}

static void
run_quantize (gpointer data)
{
  Job *job = data;

  nk_quantize_fake_f32 (job->format, job->src, job->dst, job->rows, job->cols,
                        nk_block_format_info (job->format)->default_block, NK_MX_SCALE_UP,
                        job->rounding, job->rng, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gint64 rows = 4096, cols = 4096;
  gint reps = 10;
  g_autoptr(GOptionContext) context = g_option_context_new ("— block quantization speed");
  g_autoptr(GError) error = NULL;
  const GOptionEntry entries[] = {
    { "rows", 0, 0, G_OPTION_ARG_INT64, &rows, "Rows (default 4096)", "R" },
    { "cols", 0, 0, G_OPTION_ARG_INT64, &cols, "Columns (default 4096)", "C" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Runs; the best counts (default 10)", "N" },
    { NULL }
  };
  const NkCpuInfo *cpu = nk_cpu_info_get ();
  NkRng *rng = nk_rng_new (1);
  Job job = { 0 };
  float *src, *dst;
  double t_copy, c_copy;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || rows < 1 || cols < 1 || reps < 1)
    {
      g_printerr ("bench-quantize: %s\n", error ? error->message : "rows, cols and reps must be positive");
      return 2;
    }
  src = g_new (float, rows * cols);
  dst = g_new (float, rows * cols);
  nk_rng_fill_normal_f32 (rng, src, rows * cols, 0.0f, 1.0f);
  memset (dst, 0, rows * cols * sizeof (float));
  job = (Job) { src, dst, (gsize) rows, (gsize) cols, 0, NK_ROUNDING_MODE_NEAREST_EVEN, rng };

  printf ("CPU: %s\n", cpu->model ? cpu->model : "(unknown)");
  printf ("%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " float32, %d runs each; memcpy and "
          "quantize on the same single thread\n", rows, cols, reps);
  printf ("%-26s %9s  %9s  %s\n", "", "best wall", "CPU median", "ratios to memcpy (wall, CPU)");
  t_copy = best_of (reps, run_copy, &job, &c_copy);
  printf ("%-26s %9.2f ms  %7.2f ms  %.2f GB/s\n", "memcpy", t_copy * 1e3, c_copy * 1e3,
          2.0 * rows * cols * sizeof (float) / t_copy / 1e9);
  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    for (guint s = 0; s < 2; s++)
      {
        g_autofree char *name = NULL;
        double t, c;

        if (s == 1 && f != NK_BLOCK_FORMAT_NVFP4 && f != NK_BLOCK_FORMAT_MXFP8_E4M3)
          continue;
        job.format = (NkBlockFormat) f;
        job.rounding = s ? NK_ROUNDING_MODE_STOCHASTIC : NK_ROUNDING_MODE_NEAREST_EVEN;
        name = g_strdup_printf ("%s%s", nk_block_format_info (job.format)->name,
                                s ? " stochastic" : "");
        t = best_of (reps, run_quantize, &job, &c);
        printf ("%-26s %9.2f ms  %7.2f ms  %6.2f x  %6.2f x memcpy\n", name, t * 1e3, c * 1e3,
                t / t_copy, c / c_copy);
      }
  nk_rng_free (rng);
  g_free (src);
  g_free (dst);
  return 0;
}
