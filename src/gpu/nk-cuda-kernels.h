/* nk-cuda-kernels.h: the launchers of the CUDA kernels, callable from C
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each launcher enqueues one grid-stride kernel on @stream whose per-element math is a
 * body from src/engine/nk-kernels.h — the same code the CPU device runs and the CPU
 * tests check. They return a cudaError_t (as int) so that this header needs no CUDA
 * include; nk-cuda-device.c turns it into a GError with file and line.
 */
#pragma once

#include <stdint.h>

#include "nk-kernels.h"
#include "nk-quantize-impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element codes the kernels understand: the NkDType values they support. */
typedef enum {
  NK_CUDA_F32,
  NK_CUDA_F64,
  NK_CUDA_F16,
  NK_CUDA_BF16,
  NK_CUDA_I64,
  NK_CUDA_I32,
  NK_CUDA_U16,
  NK_CUDA_U8,     /* bytes: how the engine zero-fills any storage (as fp8 0.0) */
} NkCudaElem;

int nk_cuda_launch_cast     (void *stream, const NkIter *it, NkCudaElem out_type, void *out,
                             NkCudaElem in_type, const void *in);
int nk_cuda_launch_fill     (void *stream, const NkIter *it, NkCudaElem type, void *out,
                             double value);
int nk_cuda_launch_unary    (void *stream, int op, const NkIter *it, int is_f64, void *out,
                             const void *a);
int nk_cuda_launch_binary   (void *stream, int op, const NkIter *it, int is_f64, void *out,
                             const void *a, const void *b, double scalar, int scalar_first);
/* @partials: device scratch of NK_CUDA_REDUCE_PARTIALS doubles, for reductions with
 * few outputs, split across blocks. */
#define NK_CUDA_REDUCE_PARTIALS 1024
int nk_cuda_launch_reduce   (void *stream, int op, const NkReduceIter *it, int is_f64,
                             void *out, const void *in, double *partials);
int nk_cuda_launch_triangle (void *stream, int upper, int64_t diagonal, const NkIter *it,
                             int is_f64, void *out, const void *in);
int nk_cuda_launch_optimizer (void *stream, const NkOptimStep *step, int64_t n, float *param,
                              const float *grad, float *state1, float *state2);
/* LayerNorm, causal softmax, embedding gather/scatter (NkRowsCall), f32 or f64. */
int nk_cuda_launch_rows     (void *stream, int is_f64, const NkRowsCall *call);
/* Block quantize-then-dequantize (NkQuantizeCall, nk-quantize-impl.h). @amax: device
 * scratch of one word for NVFP4's tensor amax (unused by MX formats). */
int nk_cuda_launch_quantize (void *stream, const NkQuantizeCall *call, unsigned int *amax);

#ifdef __cplusplus
}
#endif
