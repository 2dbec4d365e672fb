/* nk-blas.c: which OpenBLAS kernels run, and the fix when OpenBLAS does not know the CPU
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "nk-blas.h"

/* OpenBLAS's own API (cblas.h declares it, but only in some versions). */
char *openblas_get_corename (void);

/**
 * nk_blas_get_kernels:
 *
 * The kernels OpenBLAS picked for this CPU when it loaded (what the benchmarks
 * print beside their figures).
 *
 * Returns: the name of the kernels OpenBLAS chose ("SkylakeX", "Haswell",
 *   "Prescott", ...)
 */
const char *
nk_blas_get_kernels (void)
{
  return openblas_get_corename ();
}

/**
 * nk_blas_better_kernels:
 * @current: the kernels OpenBLAS chose
 * @avx512: whether the CPU (and the kernel) support AVX-512 F, CD, BW, DQ and VL
 * @avx2_fma: whether they support AVX2 and FMA
 *
 * Only the generic fallbacks OpenBLAS picks for a CPU it does not know are
 * replaced; a CPU OpenBLAS recognises keeps its choice.
 *
 * Returns: (nullable): the kernels to ask for, or %NULL to keep @current
 */
const char *
nk_blas_better_kernels (const char *current,
                        gboolean    avx512,
                        gboolean    avx2_fma)
{
  static const char *const fallbacks[] = {
    "Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Sandybridge", "Katmai",
    "Coppermine", "Northwood", "Banias", "Atom", "unknown", NULL,
  };

  if (current == NULL || !g_strv_contains (fallbacks, current))
    return NULL;
  if (avx512)
    return "SkylakeX";
  if (avx2_fma)
    return "Haswell";
  return NULL;
}

/**
 * nk_blas_reexec_if_kernels_weak:
 * @argv: the program's arguments, as main() got them
 *
 * Call first thing in main(). Where OpenBLAS fell back to generic kernels on a CPU
 * with AVX2 or AVX-512, runs the program again with OPENBLAS_CORETYPE set (so
 * processes it starts, numpy in the benchmarks say, get the same kernels). Returns
 * when nothing needs doing or the exec fails.
 */
void
nk_blas_reexec_if_kernels_weak (char **argv)
{
  const char *better;

  if (g_getenv ("OPENBLAS_CORETYPE") != NULL)
    return;
  __builtin_cpu_init ();
  better = nk_blas_better_kernels (nk_blas_get_kernels (),
                                   __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512cd")
                                     && __builtin_cpu_supports ("avx512bw") && __builtin_cpu_supports ("avx512dq")
                                     && __builtin_cpu_supports ("avx512vl"),
                                   __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"));
  if (better == NULL)
    return;
  /* Set even if the exec fails, so it is never tried twice. */
  g_setenv ("OPENBLAS_CORETYPE", better, TRUE);
  execv ("/proc/self/exe", argv);
}

static pthread_mutex_t gemm_mutex = PTHREAD_MUTEX_INITIALIZER;

static void
fork_prepare (void)
{
  pthread_mutex_lock (&gemm_mutex);
}

static void
fork_done (void)
{
  pthread_mutex_unlock (&gemm_mutex);
}

/**
 * nk_blas_lock:
 *
 * Taken around every BLAS call. The first call registers the fork handlers: after
 * OpenBLAS registered its own while it loaded, so ours run before it (prepare
 * handlers run in reverse order of registration).
 */
void
nk_blas_lock (void)
{
  static gsize registered = 0;

  if (g_once_init_enter (&registered))
    {
      pthread_atfork (fork_prepare, fork_done, fork_done);
      g_once_init_leave (&registered, 1);
    }
  pthread_mutex_lock (&gemm_mutex);
}

/**
 * nk_blas_unlock:
 *
 * Ends the BLAS call nk_blas_lock() began, letting a waiting fork() proceed.
 */
void
nk_blas_unlock (void)
{
  pthread_mutex_unlock (&gemm_mutex);
}
