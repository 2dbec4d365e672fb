/* cublas_v2.h (host emulation): the subset of cuBLAS Napkin's device uses
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Names, signatures and numbers from cuBLAS 13's cublas_api.h. The emulated library
 * (nk-emu-cublas.c) is built as libcublas.so.13 in the build tree only, so the module
 * finds it through its own dlopen() path.
 */
#pragma once

#include "cuda_runtime.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
} cublasStatus_t;

typedef enum {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_OP_C = 2,
} cublasOperation_t;

typedef enum {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
} cublasComputeType_t;

typedef enum {
  CUBLAS_GEMM_DEFAULT = -1,
} cublasGemmAlgo_t;

typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate_v2 (cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2 (cublasHandle_t handle);
cublasStatus_t cublasSetStream_v2 (cublasHandle_t handle, cudaStream_t stream);
const char    *cublasGetStatusString (cublasStatus_t status);
cublasStatus_t cublasGemmEx (cublasHandle_t handle, cublasOperation_t transa,
                             cublasOperation_t transb, int m, int n, int k,
                             const void *alpha, const void *A, cudaDataType Atype, int lda,
                             const void *B, cudaDataType Btype, int ldb, const void *beta,
                             void *C, cudaDataType Ctype, int ldc,
                             cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx (cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const void *alpha, const void *A,
                                           cudaDataType Atype, int lda, long long int strideA,
                                           const void *B, cudaDataType Btype, int ldb,
                                           long long int strideB, const void *beta, void *C,
                                           cudaDataType Ctype, int ldc, long long int strideC,
                                           int batchCount, cublasComputeType_t computeType,
                                           cublasGemmAlgo_t algo);

#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasSetStream cublasSetStream_v2

#ifdef __cplusplus
}
#endif
