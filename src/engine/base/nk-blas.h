/* nk-blas.h: which OpenBLAS kernels run, and the fix when OpenBLAS does not know the CPU
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * OpenBLAS built with DYNAMIC_ARCH picks its kernels from the CPU's family and model
 * when the library loads. A model newer than the library (Debian bookworm's 0.3.21
 * does not know Emerald Rapids, family 6 model 0xCF) falls back to the Prescott
 * (SSE3) kernels: on this project's build machine an fp32 matmul then runs at 36
 * instead of 206 GFLOP/s. OpenBLAS reads OPENBLAS_CORETYPE only while it loads, so
 * the programs re-execute themselves once with it set; a person who sets it keeps
 * their choice.
 *
 * The same OpenBLAS deadlocks in fork() when another thread is inside a gemm (its
 * fork handler waits for its workers): every gemm holds nk_blas_lock(), and a fork
 * handler registered after OpenBLAS's takes that lock before OpenBLAS's handler
 * runs, so a fork waits for the gemm in flight instead of hanging.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
const char *nk_blas_get_kernels            (void);
NK_AVAILABLE_IN_ALL
const char *nk_blas_better_kernels         (const char *current,
                                            gboolean    avx512,
                                            gboolean    avx2_fma);
NK_AVAILABLE_IN_ALL
void        nk_blas_reexec_if_kernels_weak (char      **argv);
NK_AVAILABLE_IN_ALL
void        nk_blas_lock                   (void);
NK_AVAILABLE_IN_ALL
void        nk_blas_unlock                 (void);

G_END_DECLS
