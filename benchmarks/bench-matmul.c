/* bench-matmul.c: matmul and elementwise speed, as ratios against numpy in the same run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-matmul [N [REPS]]   (default 2048 5)
 * Runs /usr/bin/python3 bench-matmul.py for numpy's `a @ b` on the same machine in
 * the same run, then times nk_matmul on contiguous and on transposed operands, and
 * elementwise add on contiguous and on non-contiguous views (best of REPS).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nk-ops.h"

typedef NkTensor *(*BenchFn) (gpointer data, GError **error);

static double
best_seconds (BenchFn  fn,
                gpointer data,
                int      reps)
{
  g_autofree double *t = g_new (double, reps);
  g_autoptr(GError) error = NULL;

  nk_tensor_unref (fn (data, &error));  /* warm-up */
  g_assert_no_error (error);
  for (int i = 0; i < reps; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      NkTensor *r = fn (data, &error);
      t[i] = (g_get_monotonic_time () - t0) / 1e6;
      g_assert_no_error (error);
      nk_tensor_unref (r);
    }
  /* The best repetition: on a shared machine the least disturbed one. */
  for (int i = 1; i < reps; i++)
    t[0] = MIN (t[0], t[i]);
  return t[0];
}

typedef struct { NkTensor *a, *b; } Pair;

static NkTensor *
run_matmul (gpointer data, GError **error)
{
  Pair *p = data;
  return nk_matmul (p->a, p->b, error);
}

static NkTensor *
run_add (gpointer data, GError **error)
{
  Pair *p = data;
  return nk_add (p->a, p->b, error);
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

static double
numpy_value (const char *out,
             const char *key)
{
  const char *p = strstr (out, key);
  if (p == NULL)
    return NAN;
  return g_ascii_strtod (p + strlen (key), NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  gint64 n = argc > 1 ? g_ascii_strtoll (argv[1], NULL, 10) : 2048;
  int reps = argc > 2 ? atoi (argv[2]) : 5;
  g_autofree char *script = g_build_filename (BENCH_SOURCE_DIR, "bench-matmul.py", NULL);
  g_autofree char *nstr = g_strdup_printf ("%" G_GINT64_FORMAT, n);
  g_autofree char *rstr = g_strdup_printf ("%d", reps);
  const char *pyargv[] = { "/usr/bin/python3", script, nstr, rstr, NULL };
  g_autofree char *pyout = NULL;
  double np_mm, np_mmt, np_add, flops = 2.0 * n * n * n;
  double t_mm, t_mmt, t_mmbt, t_add, t_add_t, t_add_step, t_add_mixed;

  if (!g_spawn_sync (NULL, (char **) pyargv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pyout,
                     NULL, NULL, &error))
    {
      g_printerr ("Cannot run numpy reference: %s\n", error->message);
      return 1;
    }
  np_mm = numpy_value (pyout, "matmul-contiguous ");
  np_mmt = numpy_value (pyout, "matmul-transposed ");
  np_add = numpy_value (pyout, "add-contiguous ");
  g_clear_pointer (&pyout, g_free);

  {
    g_autoptr(NkTensor) a = randn (n, n);
    g_autoptr(NkTensor) b = randn (n, n);
    g_autoptr(NkTensor) a0 = randn (n, n);
    g_autoptr(NkTensor) at = nk_tensor_t (a0, &error);
    g_autoptr(NkTensor) bt = nk_tensor_t (b, &error);
    Pair p1 = { a, b }, p2 = { at, b }, p3 = { a, bt };

    t_mm = best_seconds (run_matmul, &p1, reps);
    t_mmt = best_seconds (run_matmul, &p2, reps);
    t_mmbt = best_seconds (run_matmul, &p3, reps);
  }

  {
    gint64 m = 4096;
    g_autoptr(NkTensor) x = randn (m, m);
    g_autoptr(NkTensor) y = randn (m, m);
    g_autoptr(NkTensor) xt = nk_tensor_t (x, &error);
    g_autoptr(NkTensor) yt = nk_tensor_t (y, &error);
    g_autoptr(NkTensor) wx = randn (m, 2 * m);
    g_autoptr(NkTensor) wy = randn (m, 2 * m);
    g_autoptr(NkTensor) sx = nk_tensor_slice (wx, 1, 0, NK_SLICE_END, 2, &error);
    g_autoptr(NkTensor) sy = nk_tensor_slice (wy, 1, 1, NK_SLICE_END, 2, &error);
    Pair c = { x, y }, t = { xt, yt }, s = { sx, sy }, mx = { xt, y };

    t_add = best_seconds (run_add, &c, reps);
    t_add_t = best_seconds (run_add, &t, reps);
    t_add_step = best_seconds (run_add, &s, reps);
    t_add_mixed = best_seconds (run_add, &mx, reps);
  }

  /* numpy again after napkin, so that drift in the machine's load hits both sides. */
  if (g_spawn_sync (NULL, (char **) pyargv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pyout,
                    NULL, NULL, NULL))
    {
      np_mm = MIN (np_mm, numpy_value (pyout, "matmul-contiguous "));
      np_mmt = MIN (np_mmt, numpy_value (pyout, "matmul-transposed "));
      np_add = MIN (np_add, numpy_value (pyout, "add-contiguous "));
    }

  g_print ("matmul ^3 f32 (n=%" G_GINT64_FORMAT ") (best of %d), numpy a @ b in the same run\n", n, reps);
  g_print ("  numpy  a @ b            %8.4f s  %7.1f GFLOP/s\n", np_mm, flops / np_mm / 1e9);
  g_print ("  numpy  a.T @ b          %8.4f s  %7.1f GFLOP/s\n", np_mmt, flops / np_mmt / 1e9);
  g_print ("  napkin a @ b            %8.4f s  %7.1f GFLOP/s  ratio to numpy %.3f\n", t_mm, flops / t_mm / 1e9, np_mm / t_mm);
  g_print ("  napkin a.t() @ b        %8.4f s  %7.1f GFLOP/s  ratio to numpy %.3f\n", t_mmt, flops / t_mmt / 1e9, np_mmt / t_mmt);
  g_print ("  napkin a @ b.t()        %8.4f s  %7.1f GFLOP/s  ratio to numpy %.3f\n", t_mmbt, flops / t_mmbt / 1e9, np_mm / t_mmbt);
  g_print ("elementwise add, 4096x4096 f32 (16.8M elements)\n");
  g_print ("  numpy  x + y            %8.4f s\n", np_add);
  g_print ("  napkin x + y            %8.4f s  ratio to numpy %.3f\n", t_add, np_add / t_add);
  g_print ("  napkin x.t() + y.t()    %8.4f s  speed vs contiguous %.3f\n", t_add_t, t_add / t_add_t);
  g_print ("  napkin x[:, ::2] + y[:, 1::2] %8.4f s  speed vs contiguous %.3f\n", t_add_step, t_add / t_add_step);
  g_print ("  napkin x.t() + y        %8.4f s  speed vs contiguous %.3f\n", t_add_mixed, t_add / t_add_mixed);
  return 0;
}
