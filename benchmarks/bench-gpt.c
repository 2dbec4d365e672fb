/* bench-gpt.c: one GPT training step against PyTorch's in the same run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-gpt [D L H T B V REPS ROUNDS]   (default 256 4 4 128 16 256 5 3)
 * Issue 12's CPU figure: Runs /usr/bin/python3 bench-gpt.py (nanoGPT's GPT in torch,
 * 2 threads) and NkTrainer (--model gpt, AdamW, fp32, on the CPU) in alternating
 * rounds and prints the best step time of each, the ratio napkin / torch (goal
 * ≤ 1), napkin's phases and FLOP split, the CPU and the BLAS kernels both ran on.
 *
 * Usage: bench-gpt --precisions [D L H T B V REPS ROUNDS]   (default 128 4 4 64 16 256 5 3)
 * Issue 25's CPU figure: napkin alone in bf16-mixed, mxfp8 and nvfp4 (the emulated
 * block-scaled recipes) in alternating rounds, each one's best step and its ratio
 * to bf16-mixed's (goal ≤ 1.5).
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nk-autograd.h"
#include "nk-blas.h"
#include "nk-cpuinfo.h"
#include "nk-trainer.h"

static double
torch_step (const int *a)
{
  g_autofree char *script = g_build_filename (BENCH_SOURCE_DIR, "bench-gpt.py", NULL);
  g_autofree char *out = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  int status;
  const char *p;

  g_ptr_array_add (argv, g_strdup ("/usr/bin/python3"));
  g_ptr_array_add (argv, g_strdup (script));
  for (int i = 0; i < 7; i++)
    g_ptr_array_add (argv, g_strdup_printf ("%d", a[i]));
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
                     &status, &error) || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-gpt: PyTorch reference failed: %s\n", error->message);
      return NAN;
    }
  p = strstr (out, "torch-step ");
  return p != NULL ? g_ascii_strtod (p + strlen ("torch-step "), NULL) : NAN;
}

/* The best step of one napkin run, or FALSE. */
static gboolean
napkin_step (const int      *a,
             NkPrecision     precision,
             NkTrainMetrics *best)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) h = NULL;

  c->model = NK_MODEL_GPT;
  c->dim = a[0];
  c->layers = a[1];
  c->n_head = a[2];
  c->context = a[3];
  c->batch = a[4];
  c->vocab = a[5];
  c->steps = 2 + a[6];
  c->lr = 1e-4;
  c->optimizer = NK_OPTIMIZER_ADAMW;
  c->precision = precision;
  trainer = nk_trainer_new (c);
  if (!nk_trainer_run_sync (trainer, NULL, &error))
    {
      g_printerr ("bench-gpt: %s\n", error->message);
      return FALSE;
    }
  h = nk_trainer_get_history (trainer);
  for (guint i = 2; i < h->len; i++)
    if (g_array_index (h, NkTrainMetrics, i).seconds < best->seconds)
      *best = g_array_index (h, NkTrainMetrics, i);
  return TRUE;
}

/* Issue 25: the block-scaled recipes against bf16-mixed, napkin alone. */
static int
precisions (int    argc,
            char **argv)
{
  static const int defaults[8] = { 128, 4, 4, 64, 16, 256, 5, 3 };
  static const NkPrecision recipes[] = { NK_PRECISION_BF16_MIXED, NK_PRECISION_MXFP8, NK_PRECISION_NVFP4 };
  NkTrainMetrics best[G_N_ELEMENTS (recipes)];
  int a[8];

  for (int i = 0; i < 8; i++)
    a[i] = argc > i + 2 ? atoi (argv[i + 2]) : defaults[i];
  for (guint r = 0; r < G_N_ELEMENTS (recipes); r++)
    best[r] = (NkTrainMetrics) { .seconds = INFINITY };
  g_print ("GPT step: d=%d L=%d heads=%d T=%d B=%d V=%d, AdamW, CPU "
           "(best of %d after 2 warm-up steps; %d rounds alternating the recipes)\n",
           a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  g_print ("  CPU %s; BLAS kernels %s\n", nk_cpu_info_get ()->model != NULL
           ? nk_cpu_info_get ()->model : "?", nk_blas_get_kernels ());
  for (int round = 0; round < a[7]; round++)
    for (guint r = 0; r < G_N_ELEMENTS (recipes); r++)
      if (!napkin_step (a, recipes[r], &best[r]))
        return 1;
  for (guint r = 0; r < G_N_ELEMENTS (recipes); r++)
    g_print ("  %-10s step %.4f s  (forward %.4f s, backward %.4f s)  ratio to bf16-mixed %.3f%s\n",
             nk_precision_to_string (recipes[r]), best[r].seconds, best[r].seconds_forward,
             best[r].seconds_backward, best[r].seconds / best[0].seconds,
             r > 0 ? "  (goal ≤ 1.5)" : "");
  return 0;
}

int
main (int    argc,
      char **argv)
{
  static const int defaults[8] = { 256, 4, 4, 128, 16, 256, 5, 3 };
  int a[8];
  double torch = INFINITY;
  NkTrainMetrics best = { .seconds = INFINITY };
  const NkCpuInfo *cpu;

  /* The kernels the app runs on; torch, started from here, inherits them. */
  nk_blas_reexec_if_kernels_weak (argv);
  setlocale (LC_ALL, "");
  if (argc > 1 && strcmp (argv[1], "--precisions") == 0)
    return precisions (argc, argv);
  for (int i = 0; i < 8; i++)
    a[i] = argc > i + 1 ? atoi (argv[i + 1]) : defaults[i];
  cpu = nk_cpu_info_get ();
  g_print ("GPT step: d=%d L=%d heads=%d T=%d B=%d V=%d, AdamW, fp32, CPU (best of %d after 2 warm-up "
           "steps; %d rounds alternating torch and napkin)\n", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  g_print ("  CPU %s (%u cores, %s); BLAS kernels %s\n", cpu->model != NULL ? cpu->model : "?",
           cpu->cores, cpu->simd != NULL ? cpu->simd : "?", nk_blas_get_kernels ());
  /* The machine's speed drifts over minutes: alternate, keep each one's best. */
  for (int round = 0; round < a[7]; round++)
    {
      torch = MIN (torch, torch_step (a));
      if (!napkin_step (a, NK_PRECISION_FP32, &best))
        return 1;
    }
  g_print ("  napkin step        %.4f s  (forward %.4f s, backward %.4f s, optimizer %.4f s)\n",
           best.seconds, best.seconds_forward, best.seconds_backward, best.seconds_optimizer);
  g_print ("  FLOPs %.4g counted: matmul %.4g (of which attention %.4g), elementwise %.4g; "
           "formula %.4g\n", (double) best.flops, (double) best.flops_matmul,
           (double) best.flops_attention, (double) (best.flops - best.flops_matmul), best.flops_formula);
  g_print ("  torch step         %.4f s\n", torch);
  g_print ("  ratio napkin/torch %.3f  (goal ≤ 1)\n", best.seconds / torch);
  return 0;
}
