/* bench-train.c: one Cruncher training step against PyTorch's in the same run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-train [D L B REPS ROUNDS]   (default 1024 4 1024 5 3)
 * Runs /usr/bin/python3 bench-train.py (torch, 2 threads) for the same step, then
 * NkTrainer on the CPU (SGD, fp32) and prints:
 *   - the best step time of each and the ratio nk / torch (≤ 1 is the goal);
 *   - the matmul rate inside the step (counted matmul FLOPs over forward + backward
 *     time) against nk_matmul_out's rate on a B×D·D×D product measured here
 *     (what `napkin-cli bench matmul` measures), the goal being > 85%;
 *   - the device's bytes per bucket (constant after step 1: no allocation in the
 *     steady state) and the process's peak RSS against buckets + idle RSS.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nk-blas.h"
#include "nk-ops.h"
#include "nk-trainer.h"

#define LR 1e-9

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* VmRSS or VmHWM of this process, in bytes. */
static double
proc_status_bytes (const char *key)
{
  g_autofree char *text = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL)
      || (p = strstr (text, key)) == NULL)
    return NAN;
  return g_ascii_strtod (p + strlen (key) + 1, NULL) * 1024.0;
}

static double
torch_step (int d, int l, int b, int reps)
{
  g_autofree char *script = g_build_filename (BENCH_SOURCE_DIR, "bench-train.py", NULL);
  g_autofree char *out = NULL;
  g_autofree char *sd = g_strdup_printf ("%d", d), *sl = g_strdup_printf ("%d", l);
  g_autofree char *sb = g_strdup_printf ("%d", b), *sr = g_strdup_printf ("%d", reps);
  g_autofree char *slr = g_strdup_printf ("%g", LR);
  const char *argv[] = { "/usr/bin/python3", script, sd, sl, sb, sr, slr, NULL };
  g_autoptr(GError) error = NULL;
  int status;
  const char *p;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
                     &status, &error) || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-train: PyTorch reference failed: %s\n", error->message);
      return NAN;
    }
  p = strstr (out, "torch-step ");
  return p != NULL ? g_ascii_strtod (p + strlen ("torch-step "), NULL) : NAN;
}

static double
matmul_rate (int b, int d, int reps)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (b, d), 0.5, &error);
  g_autoptr(NkTensor) w = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (d, d), 0.25, &error);
  g_autoptr(NkTensor) wt = nk_tensor_t (w, &error);
  g_autoptr(NkTensor) c = nk_tensor_empty (NK_DTYPE_F32, NK_SHAPE (b, d), &error);
  double best = INFINITY;

  g_assert_no_error (error);
  for (int r = -2; r < reps; r++)
    {
      double t0 = now_seconds ();

      g_assert_true (nk_matmul_out (c, x, wt, 1.0, 0.0, &error));
      if (r >= 0)
        best = MIN (best, now_seconds () - t0);
    }
  return 2.0 * b * d * (double) d / best;
}

int
main (int    argc,
      char **argv)
{
  int d = argc > 1 ? atoi (argv[1]) : 1024;
  int l = argc > 2 ? atoi (argv[2]) : 4;
  int b = argc > 3 ? atoi (argv[3]) : 1024;
  int reps = argc > 4 ? atoi (argv[4]) : 5;
  int rounds = argc > 5 ? atoi (argv[5]) : 3;
  double torch = INFINITY, nk = INFINITY, rate = 0, step_rate = 0, idle_rss, peak_rss, buckets = 0;
  NkTrainMetrics best_metrics = { 0 };
  const NkTrainMetrics *best = &best_metrics;

  /* The kernels the app runs on; numpy and torch, started from here, inherit them. */
  nk_blas_reexec_if_kernels_weak (argv);
  setlocale (LC_ALL, "");
  g_print ("Cruncher step: D=%d L=%d B=%d, SGD, fp32, CPU (best of %d after 2 warm-up steps; "
           "%d rounds alternating torch and napkin)\n", d, l, b, reps, rounds);
  idle_rss = proc_status_bytes ("VmRSS:");
  /* This machine's speed drifts by tens of percent over minutes: alternating the two
   * and keeping each one's best compares them under the same conditions. */
  for (int round = 0; round < rounds; round++)
    {
      g_autoptr(NkTrainConfig) c = nk_train_config_new ();
      g_autoptr(NkTrainer) trainer = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) h = NULL;

      torch = MIN (torch, torch_step (d, l, b, reps));
      c->dim = d;
      c->layers = l;
      c->batch = b;
      c->steps = 2 + reps;
      c->lr = LR;
      c->optimizer = NK_OPTIMIZER_SGD;
      trainer = nk_trainer_new (c);
      if (!nk_trainer_run_sync (trainer, NULL, &error))
        {
          g_printerr ("bench-train: %s\n", error->message);
          return 1;
        }
      h = nk_trainer_get_history (trainer);
      for (guint i = 2; i < h->len; i++)
        {
          const NkTrainMetrics *m = &g_array_index (h, NkTrainMetrics, i);

          if (m->seconds < nk)
            nk = m->seconds, best_metrics = *m;
        }
      for (guint i = 1; i < h->len; i++)
        for (int k = 0; k < NK_N_BUCKETS; k++)
          if (g_array_index (h, NkTrainMetrics, i).memory_peak[k] != g_array_index (h, NkTrainMetrics, 0).memory_peak[k])
            g_print ("  NOTE: bucket %s peak changed after step 1\n", nk_bucket_to_string (k));
      rate = MAX (rate, matmul_rate (b, d, reps));
    }
  peak_rss = proc_status_bytes ("VmHWM:");
  step_rate = best->flops_matmul / (best->seconds_forward + best->seconds_backward);
  for (int k = 0; k < NK_N_BUCKETS; k++)
    buckets += best->memory[k];

  g_print ("  napkin step        %.4f s  (%.4g FLOPs, %.1f%% matmul; forward %.4f s, backward %.4f s, optimizer %.4f s)\n",
           nk, (double) best->flops, 100.0 * best->flops_matmul / best->flops,
           best->seconds_forward, best->seconds_backward, best->seconds_optimizer);
  g_print ("  torch step         %.4f s\n", torch);
  g_print ("  ratio napkin/torch %.3f  (goal ≤ 1)\n", nk / torch);
  g_print ("  matmul rate in the step %.4g FLOP/s vs nk_matmul_out %dx%d·%dx%d %.4g FLOP/s: %.1f%% (goal > 85%%)\n",
           step_rate, b, d, d, d, rate, 100.0 * step_rate / rate);
  g_print ("  MFU %.2f%% of %.4g FLOP/s\n", 100.0 * best->mfu, best->peak_flops_per_s);
  g_print ("  buckets: params %.4g, grads %.4g, optimizer %.4g, activations %.4g, data %.4g, other %.4g bytes\n",
           (double) best->memory[NK_BUCKET_PARAMS], (double) best->memory[NK_BUCKET_GRADS],
           (double) best->memory[NK_BUCKET_OPTIMIZER], (double) best->memory[NK_BUCKET_ACTIVATIONS],
           (double) best->memory[NK_BUCKET_DATA], (double) best->memory[NK_BUCKET_OTHER]);
  g_print ("  peak RSS %.4g bytes vs buckets %.4g + idle RSS %.4g = %.4g: %.3f× (goal ≤ 1.2)\n",
           peak_rss, buckets, idle_rss, buckets + idle_rss, peak_rss / (buckets + idle_rss));
  return 0;
}
