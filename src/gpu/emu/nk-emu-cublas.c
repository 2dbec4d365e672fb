/* nk-emu-cublas.c: cuBLAS's gemm entry points on the emulated card, column-major
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built as libcublas.so.13 in the build tree only, so the module reaches it through
 * its own dlopen(). Arguments are checked as cuBLAS documents (sizes, transposes,
 * leading dimensions, the type and compute-type pairs it supports) and, beyond what
 * cuBLAS can, each operand's whole footprint must lie inside one device allocation:
 * a wrong leading dimension or stride that a GPU would turn into silent garbage or a
 * fault is a fault here, with the operand named. The product is queued on the handle's
 * stream and computed with OpenBLAS in fp32/fp64; bf16 and fp16 operands widen to fp32
 * (fp32 accumulation) and C rounds back to nearest even; TF32 rounds A and B to a
 * 10-bit mantissa first.
 */
#include "nk-emu-private.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "cublas_v2.h"
#include "nk-emu-half.h"

struct cublasContext {
  cudaStream_t stream;
};

NK_EMU_EXPORT cublasStatus_t
cublasCreate_v2 (cublasHandle_t *handle)
{
  *handle = g_new0 (struct cublasContext, 1);
  return CUBLAS_STATUS_SUCCESS;
}

NK_EMU_EXPORT cublasStatus_t
cublasDestroy_v2 (cublasHandle_t handle)
{
  if (handle == NULL)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  g_free (handle);
  return CUBLAS_STATUS_SUCCESS;
}

NK_EMU_EXPORT cublasStatus_t
cublasSetStream_v2 (cublasHandle_t handle,
                    cudaStream_t   stream)
{
  if (handle == NULL)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

NK_EMU_EXPORT const char *
cublasGetStatusString (cublasStatus_t status)
{
  switch (status)
    {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    }
  return "unknown error";
}

typedef struct {
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, batch;
  long long stride_a, stride_b, stride_c;
  cudaDataType type_ab, type_c;
  cublasComputeType_t compute;
  double alpha, beta;
  const void *a, *b;
  void *c;
} Gemm;

static size_t
element_size (cudaDataType type)
{
  return type == CUDA_R_64F ? 8 : type == CUDA_R_32F ? 4 : 2;
}

/* Reads @n elements of @type at @p (stride 1) as floats. */
static void
widen (cudaDataType type, const void *p, size_t n, float *out, gboolean tf32)
{
  for (size_t i = 0; i < n; i++)
    {
      float v = type == CUDA_R_32F ? ((const float *) p)[i]
              : type == CUDA_R_16BF ? nk_emu_bf16_to_float (((const uint16_t *) p)[i])
                                    : nk_emu_half_to_float (((const uint16_t *) p)[i]);
      /* TF32 keeps fp32's exponent and 10 mantissa bits, rounded to nearest even. */
      if (tf32 && isfinite (v) && v != 0.0f)
        {
          int e;
          frexpf (v, &e);
          v = ldexpf (rintf (ldexpf (v, 11 - e)), e - 11);
        }
      out[i] = v;
    }
}

/* Elements a column-major operand of @rows×@cols spans with leading dimension @ld. */
static size_t
span (int rows, int cols, int ld)
{
  return rows == 0 || cols == 0 ? 0 : (size_t) ld * (size_t) (cols - 1) + (size_t) rows;
}

static void
gemm_one (const Gemm *g, const void *a, const void *b, void *c)
{
  int ar = g->ta == CUBLAS_OP_N ? g->m : g->k, ac = g->ta == CUBLAS_OP_N ? g->k : g->m;
  int br = g->tb == CUBLAS_OP_N ? g->k : g->n, bc = g->tb == CUBLAS_OP_N ? g->n : g->k;
  CBLAS_TRANSPOSE ta = g->ta == CUBLAS_OP_N ? CblasNoTrans : CblasTrans;
  CBLAS_TRANSPOSE tb = g->tb == CUBLAS_OP_N ? CblasNoTrans : CblasTrans;
  size_t na = span (ar, ac, g->lda), nb = span (br, bc, g->ldb), nc = span (g->m, g->n, g->ldc);
  gboolean tf32 = g->compute == CUBLAS_COMPUTE_32F_FAST_TF32;
  g_autofree float *fa = NULL, *fb = NULL, *fc = NULL;

  if (g->type_ab == CUDA_R_64F)
    {
      cblas_dgemm (CblasColMajor, ta, tb, g->m, g->n, g->k, g->alpha, a, g->lda, b, g->ldb,
                   g->beta, c, g->ldc);
      return;
    }
  if (g->type_ab == CUDA_R_32F && !tf32)
    {
      cblas_sgemm (CblasColMajor, ta, tb, g->m, g->n, g->k, (float) g->alpha, a, g->lda, b,
                   g->ldb, (float) g->beta, c, g->ldc);
      return;
    }
  fa = g_new (float, MAX (na, 1));
  fb = g_new (float, MAX (nb, 1));
  widen (g->type_ab, a, na, fa, tf32);
  widen (g->type_ab, b, nb, fb, tf32);
  if (g->type_c == CUDA_R_32F)
    {
      cblas_sgemm (CblasColMajor, ta, tb, g->m, g->n, g->k, (float) g->alpha, fa, g->lda, fb,
                   g->ldb, (float) g->beta, c, g->ldc);
      return;
    }
  /* A 16-bit C: widened, multiplied in fp32, rounded back once; the padding between
   * columns is never written. */
  fc = g_new (float, MAX (nc, 1));
  widen (g->type_c, c, nc, fc, FALSE);
  cblas_sgemm (CblasColMajor, ta, tb, g->m, g->n, g->k, (float) g->alpha, fa, g->lda, fb, g->ldb,
               (float) g->beta, fc, g->ldc);
  for (int j = 0; j < g->n; j++)
    for (int i = 0; i < g->m; i++)
      {
        size_t at = (size_t) j * g->ldc + i;
        ((uint16_t *) c)[at] = g->type_c == CUDA_R_16BF ? nk_emu_double_to_bf16 (fc[at])
                                                         : nk_emu_double_to_half (fc[at]);
      }
}

static cudaError_t
run_gemm (gpointer data)
{
  const Gemm *g = data;
  size_t ea = element_size (g->type_ab), ec = element_size (g->type_c);

  for (int i = 0; i < g->batch; i++)
    gemm_one (g, (const char *) g->a + (size_t) (i * g->stride_a) * ea,
              (const char *) g->b + (size_t) (i * g->stride_b) * ea,
              (char *) g->c + (size_t) (i * g->stride_c) * ec);
  return cudaSuccess;
}

/* The type and compute-type pairs cuBLAS's GemmEx table lists (the ones used here). */
static gboolean
types_supported (cudaDataType ab, cudaDataType c, cublasComputeType_t compute)
{
  switch (compute)
    {
    case CUBLAS_COMPUTE_64F:
      return ab == CUDA_R_64F && c == CUDA_R_64F;
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return ab == CUDA_R_32F && c == CUDA_R_32F;
    case CUBLAS_COMPUTE_32F:
      return (ab == CUDA_R_32F && c == CUDA_R_32F)
             || ((ab == CUDA_R_16BF || ab == CUDA_R_16F) && (c == ab || c == CUDA_R_32F));
    }
  return FALSE;
}

/* Whether @p (@elements of @size bytes, over @batch strided copies) lies in one device
 * allocation; says which operand does not. */
static gboolean
footprint_ok (const char *operand, const void *p, size_t elements, size_t size, int batch,
              long long stride)
{
  gboolean in_bounds = TRUE;
  size_t bytes = elements * size;
  long long lo = 0, hi = 0;

  if (elements == 0)
    return TRUE;
  if (batch > 1)
    {
      lo = MIN (0, (batch - 1) * stride);
      hi = MAX (0, (batch - 1) * stride);
    }
  if (nk_emu_classify ((const char *) p + lo * (long long) size, bytes + (size_t) (hi - lo) * size,
                       &in_bounds) == NK_EMU_DEVICE && in_bounds)
    return TRUE;
  nk_emu_fault (cudaErrorIllegalAddress,
                "cuBLAS gemm: operand %s (%zu bytes from %p, %d batches %lld apart) is not "
                "inside one device allocation", operand, bytes, p, batch, stride);
  return FALSE;
}

static cublasStatus_t
check_and_queue (cublasHandle_t handle, Gemm *g, const void *alpha, const void *beta)
{
  gboolean f64 = g->compute == CUBLAS_COMPUTE_64F;
  int ar = g->ta == CUBLAS_OP_N ? g->m : g->k, ac = g->ta == CUBLAS_OP_N ? g->k : g->m;
  int br = g->tb == CUBLAS_OP_N ? g->k : g->n, bc = g->tb == CUBLAS_OP_N ? g->n : g->k;
  cudaError_t error = cudaSuccess;
  NkEmuStream *stream;

  if (handle == NULL)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0
      || (g->ta != CUBLAS_OP_N && g->ta != CUBLAS_OP_T && g->ta != CUBLAS_OP_C)
      || (g->tb != CUBLAS_OP_N && g->tb != CUBLAS_OP_T && g->tb != CUBLAS_OP_C)
      || g->lda < MAX (1, ar) || g->ldb < MAX (1, br) || g->ldc < MAX (1, g->m)
      || alpha == NULL || beta == NULL)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!types_supported (g->type_ab, g->type_c, g->compute))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (g->m == 0 || g->n == 0 || g->batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  /* Scalars are read at the call (host pointer mode), in the compute type's scale type. */
  g->alpha = f64 ? *(const double *) alpha : *(const float *) alpha;
  g->beta = f64 ? *(const double *) beta : *(const float *) beta;

  nk_emu_lock ();
  if (nk_emu_sticky_error () != cudaSuccess
      || (stream = nk_emu_stream_get (handle->stream, &error)) == NULL
      || !footprint_ok ("A", g->a, g->k > 0 ? span (ar, ac, g->lda) : 0,
                        element_size (g->type_ab), g->batch, g->stride_a)
      || !footprint_ok ("B", g->b, g->k > 0 ? span (br, bc, g->ldb) : 0,
                        element_size (g->type_ab), g->batch, g->stride_b)
      || !footprint_ok ("C", g->c, span (g->m, g->n, g->ldc), element_size (g->type_c), g->batch,
                        g->stride_c))
    {
      nk_emu_unlock ();
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
  nk_emu_stats ()->gemms++;
  nk_emu_enqueue (stream, run_gemm, g_memdup2 (g, sizeof *g), g_free);
  nk_emu_unlock ();
  return CUBLAS_STATUS_SUCCESS;
}

NK_EMU_EXPORT cublasStatus_t
cublasGemmEx (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
              int n, int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
              const void *B, cudaDataType Btype, int ldb, const void *beta, void *C,
              cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
              cublasGemmAlgo_t algo)
{
  return cublasGemmStridedBatchedEx (handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B,
                                     Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, computeType, algo);
}

NK_EMU_EXPORT cublasStatus_t
cublasGemmStridedBatchedEx (cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, long long int strideA,
                            const void *B, cudaDataType Btype, int ldb, long long int strideB,
                            const void *beta, void *C, cudaDataType Ctype, int ldc,
                            long long int strideC, int batchCount,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
  Gemm g = {
    .ta = transa, .tb = transb, .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc,
    .batch = batchCount, .stride_a = strideA, .stride_b = strideB, .stride_c = strideC,
    .type_ab = Atype, .type_c = Ctype, .compute = computeType, .a = A, .b = B, .c = C,
  };

  if (Atype != Btype)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return check_and_queue (handle, &g, alpha, beta);
}
