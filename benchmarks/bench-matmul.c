/* bench-matmul.c: matmul and elementwise speed, as ratios against numpy in the same run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-matmul [N [REPS]] [--only matmul|elementwise]   (default 2048 7)
 *
 * numpy (/usr/bin/python3 bench-matmul.py, kept running) and Napkin run the same
 * cases interleaved one run at a time — numpy, Napkin, Napkin, numpy, ... — so that a
 * busy machine slows both sides alike; every figure is the MEDIAN of REPS runs and
 * every ratio a ratio of medians. Printed:
 *   - matmul N^3 f32, contiguous and with a transposed operand, against numpy's a @ b
 *     on the same layouts (both OpenBLAS sgemm), and the achieved FLOP/s against the
 *     CPU's peak (nk-cpuinfo's derivation, printed);
 *   - elementwise add on 4096×4096 f32: contiguous against numpy, and the speed of
 *     the three non-contiguous layouts (x.t() + y.t(), step-2 slices, x.t() + y)
 *     relative to contiguous (target >= 0.5).
 * On a machine that other jobs keep busy, multithreaded BLAS on both sides is mostly
 * noise (a preempted thread stalls the others at every barrier): compare with
 * OPENBLAS_NUM_THREADS=1 in the environment, which both processes inherit.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nk-blas.h"
#include "nk-cpuinfo.h"
#include "nk-ops.h"

typedef NkTensor *(*BenchFn) (NkTensor *a, NkTensor *b, GError **error);

typedef struct {
  GPid     pid;
  FILE    *in;
  FILE    *out;
} Numpy;

static gboolean
numpy_start (Numpy   *np,
             gint64   n,
             gint64   m,
             GError **error)
{
  g_autofree char *script = g_build_filename (BENCH_SOURCE_DIR, "bench-matmul.py", NULL);
  g_autofree char *nstr = g_strdup_printf ("%" G_GINT64_FORMAT, n);
  g_autofree char *mstr = g_strdup_printf ("%" G_GINT64_FORMAT, m);
  const char *argv[] = { "/usr/bin/python3", script, nstr, mstr, NULL };
  char line[64];
  int fin, fout;

  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &np->pid, &fin, &fout, NULL, error))
    return FALSE;
  np->in = fdopen (fin, "w");
  np->out = fdopen (fout, "r");
  if (fgets (line, sizeof line, np->out) == NULL || !g_str_has_prefix (line, "ready"))
    {
      g_set_error_literal (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                           "bench-matmul.py did not start (is numpy installed for /usr/bin/python3?)");
      return FALSE;
    }
  return TRUE;
}

static double
numpy_run (Numpy      *np,
           const char *name)
{
  char line[64];

  fprintf (np->in, "%s\n", name);
  fflush (np->in);
  if (fgets (line, sizeof line, np->out) == NULL)
    return NAN;
  return g_ascii_strtod (line, NULL);
}

static void
numpy_stop (Numpy *np)
{
  fprintf (np->in, "quit\n");
  fclose (np->in);
  fclose (np->out);
  g_spawn_close_pid (np->pid);
}

static double
napkin_run (BenchFn   fn,
            NkTensor *a,
            NkTensor *b)
{
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  NkTensor *r = fn (a, b, &error);
  double t = (g_get_monotonic_time () - t0) / 1e6;

  g_assert_no_error (error);
  nk_tensor_unref (r);
  return t;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v,
        int     n)
{
  qsort (v, n, sizeof (double), compare_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static NkTensor *
randn (gint64 r,
       gint64 c)
{
  g_autoptr(GError) error = NULL;
  g_autofree double *v = g_new (double, r * c);
  GRand *rand = g_rand_new_with_seed (42);
  NkTensor *t;

  for (gint64 i = 0; i < r * c; i++)
    v[i] = g_rand_double_range (rand, -1.0, 1.0);
  g_rand_free (rand);
  t = nk_tensor_new_from_doubles (NK_DTYPE_F32, NK_SHAPE (r, c), v, &error);
  g_assert_no_error (error);
  return t;
}

typedef struct {
  const char *numpy_case;
  const char *label;
  BenchFn     fn;
  NkTensor   *a, *b;
  double     *np_t, *nk_t;
  double      np_med, nk_med;
} Case;

/* Runs every case REPS times, interleaved with numpy (numpy first on even reps,
 * Napkin first on odd ones), then takes the medians. @settle_us pauses between
 * runs so that BLAS threads spinning after one side's call do not steal the cores
 * from the other side's next one. */
static void
run_cases (Numpy *np,
           Case  *cases,
           int    ncases,
           int    reps,
           int    settle_us)
{
  for (int c = 0; c < ncases; c++)
    {
      cases[c].np_t = g_new (double, reps);
      cases[c].nk_t = g_new (double, reps);
      /* Napkin's warm-up (numpy warmed up when it started). */
      napkin_run (cases[c].fn, cases[c].a, cases[c].b);
    }
  for (int r = 0; r < reps; r++)
    for (int c = 0; c < ncases; c++)
      for (int side = 0; side < 2; side++)
        {
          if ((side == 0) == (r % 2 == 0))
            cases[c].np_t[r] = numpy_run (np, cases[c].numpy_case);
          else
            cases[c].nk_t[r] = napkin_run (cases[c].fn, cases[c].a, cases[c].b);
          if (settle_us > 0)
            g_usleep (settle_us);
        }
  for (int c = 0; c < ncases; c++)
    {
      cases[c].np_med = median (cases[c].np_t, reps);
      cases[c].nk_med = median (cases[c].nk_t, reps);
      g_free (cases[c].np_t);
      g_free (cases[c].nk_t);
    }
}

static void
print_load (void)
{
  g_autofree char *text = NULL;

  if (g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    printf ("load average (1, 5, 15 min, runnable/total, last pid): %s", text);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *only = NULL;
  gint64 n = 2048, m = 4096;
  int reps = 7, npos = 0;
  Numpy np = { 0 };
  const NkCpuInfo *cpu = nk_cpu_info_get ();
  gboolean do_mm, do_ew;

  /* The kernels the app runs on; numpy and torch, started from here, inherit them. */
  nk_blas_reexec_if_kernels_weak (argv);
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--only") == 0 && i + 1 < argc)
        only = g_strdup (argv[++i]);
      else if (npos == 0 && ++npos)
        n = g_ascii_strtoll (argv[i], NULL, 10);
      else if (npos == 1 && ++npos)
        reps = atoi (argv[i]);
    }
  if (n < 1 || reps < 1)
    {
      g_printerr ("Usage: bench-matmul [N [REPS]] [--only matmul|elementwise]\n");
      return 2;
    }
  do_mm = only == NULL || strcmp (only, "matmul") == 0;
  do_ew = only == NULL || strcmp (only, "elementwise") == 0;

  if (!numpy_start (&np, do_mm ? n : 1, do_ew ? m : 1, &error))
    {
      g_printerr ("Cannot run the numpy reference: %s\n", error->message);
      return 1;
    }

  print_load ();
  printf ("CPU: %s\n", cpu->derivation ? cpu->derivation : "(no peak known)");

  if (do_mm)
    {
      g_autoptr(NkTensor) a = randn (n, n);
      g_autoptr(NkTensor) b = randn (n, n);
      g_autoptr(NkTensor) a0 = randn (n, n);
      g_autoptr(NkTensor) b0 = randn (n, n);
      g_autoptr(NkTensor) at = nk_tensor_t (a0, &error);
      g_autoptr(NkTensor) bt = nk_tensor_t (b0, &error);
      double flops = 2.0 * n * n * n;
      Case cases[] = {
        { "matmul", "a @ b", nk_matmul, a, b },
        { "matmul-at", "a.t() @ b", nk_matmul, at, b },
        { "matmul-bt", "a @ b.t()", nk_matmul, a, bt },
      };

      run_cases (&np, cases, G_N_ELEMENTS (cases), reps, 150000);
      printf ("\nmatmul %" G_GINT64_FORMAT "^3 f32, median of %d interleaved runs "
               "(numpy a @ b on the same layouts, same machine, same time)\n", n, reps);
      printf ("  %-12s %10s %10s %9s %10s %8s\n", "case", "numpy s", "napkin s",
               "GFLOP/s", "vs numpy", "of peak");
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        printf ("  %-12s %10.4f %10.4f %9.1f %10.3f %7.1f%%\n", cases[c].label,
                 cases[c].np_med, cases[c].nk_med, flops / cases[c].nk_med / 1e9,
                 cases[c].np_med / cases[c].nk_med,
                 100.0 * flops / cases[c].nk_med / cpu->peak_fp32);
      printf ("  (\"vs numpy\" = numpy time / napkin time: 1.000 is parity, target within 5%%;\n"
               "   \"of peak\" = achieved FLOP/s / %.1f GFLOP/s fp32 peak)\n",
               cpu->peak_fp32 / 1e9);
    }

  if (do_ew)
    {
      g_autoptr(NkTensor) x = randn (m, m);
      g_autoptr(NkTensor) y = randn (m, m);
      g_autoptr(NkTensor) xt = nk_tensor_t (x, &error);
      g_autoptr(NkTensor) yt = nk_tensor_t (y, &error);
      g_autoptr(NkTensor) wx = randn (m, 2 * m);
      g_autoptr(NkTensor) wy = randn (m, 2 * m);
      g_autoptr(NkTensor) sx = nk_tensor_slice (wx, 1, 0, NK_SLICE_END, 2, &error);
      g_autoptr(NkTensor) sy = nk_tensor_slice (wy, 1, 1, NK_SLICE_END, 2, &error);
      Case cases[] = {
        { "add", "x + y", nk_add, x, y },
        { "add-tt", "x.t() + y.t()", nk_add, xt, yt },
        { "add-step", "x[:, ::2] + y[:, 1::2]", nk_add, sx, sy },
        { "add-mixed", "x.t() + y", nk_add, xt, y },
      };

      run_cases (&np, cases, G_N_ELEMENTS (cases), reps, 0);
      printf ("\nelementwise add, %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
               " f32, median of %d interleaved runs\n", m, m, reps);
      printf ("  %-24s %10s %10s %10s %14s\n", "case", "numpy s", "napkin s", "vs numpy",
               "vs contiguous");
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        printf ("  %-24s %10.4f %10.4f %10.3f %14.3f\n", cases[c].label,
                 cases[c].np_med, cases[c].nk_med, cases[c].np_med / cases[c].nk_med,
                 cases[0].nk_med / cases[c].nk_med);
      printf ("  (\"vs contiguous\" = napkin x + y time / this case's time: target >= 0.5)\n");
    }

  print_load ();
  numpy_stop (&np);
  return 0;
}
