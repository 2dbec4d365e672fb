/* nk-cuda-device.c: the CUDA + cuBLAS device, loaded by nk-device as a GModule
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built only when meson finds nvcc. The CUDA runtime is linked statically; cuBLAS is
 * opened with dlopen() only when a device is opened, so asking "is there a GPU?" on
 * a machine without one maps none of cuBLAS's hundreds of megabytes (the app asks
 * at start-up to explain a disabled CUDA choice). Where the driver is missing or too
 * old, init fails with CUDA's own sentence; where libcublas is missing, with
 * dlerror()'s. Either way the engine goes on with the CPU.
 *
 * Every CUDA and cuBLAS call goes through NK_CUDA_TRY / NK_CUBLAS_TRY, which turn a
 * failure into a GError carrying the call, file and line; nothing here exits.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <glib.h>
#include <gmodule.h>
#include <string.h>

#include "nk-cuda-kernels.h"
#include "nk-device-impl.h"

/* The engine's NK_DEVICE_ERROR, reached by name: the module links no engine symbol. */
#define NK_CUDA_ERROR (g_quark_from_static_string ("nk-device-error-quark"))

/* The cuBLAS entry points Napkin uses, resolved from libcublas at first need. */
static struct {
  __typeof__ (cublasCreate_v2)             *create;
  __typeof__ (cublasDestroy_v2)            *destroy;
  __typeof__ (cublasSetStream_v2)          *set_stream;
  __typeof__ (cublasGemmEx)                *gemm_ex;
  __typeof__ (cublasGemmStridedBatchedEx)  *gemm_strided_batched_ex;
  __typeof__ (cublasGetStatusString)       *status_string;
} cublas_api;

static gboolean
load_cublas (GError **error)
{
  static const char *candidates[] = {
    NK_CUDA_LIBDIR "/libcublas.so." G_STRINGIFY (CUBLAS_VER_MAJOR),
    "libcublas.so." G_STRINGIFY (CUBLAS_VER_MAJOR),
    "libcublas.so",
  };
  static void *handle;
  const char *reason = NULL;

  if (handle != NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (candidates) && handle == NULL; i++)
    if ((handle = dlopen (candidates[i], RTLD_NOW | RTLD_LOCAL)) == NULL && reason == NULL)
      reason = dlerror ();
  if (handle == NULL)
    {
      g_set_error (error, NK_CUDA_ERROR, NK_DEVICE_ERROR_NOT_FOUND,
                   "cuBLAS cannot be loaded: %s", reason ? reason : "not found");
      return FALSE;
    }

#define RESOLVE(field, symbol) \
  if ((*(void **) &cublas_api.field = dlsym (handle, symbol)) == NULL) \
    { \
      g_set_error (error, NK_CUDA_ERROR, NK_DEVICE_ERROR_NOT_FOUND, \
                   "cuBLAS lacks %s: %s", symbol, dlerror ()); \
      dlclose (handle); \
      handle = NULL; \
      return FALSE; \
    }
  RESOLVE (create, "cublasCreate_v2");
  RESOLVE (destroy, "cublasDestroy_v2");
  RESOLVE (set_stream, "cublasSetStream_v2");
  RESOLVE (gemm_ex, "cublasGemmEx");
  RESOLVE (gemm_strided_batched_ex, "cublasGemmStridedBatchedEx");
  RESOLVE (status_string, "cublasGetStatusString");
#undef RESOLVE
  return TRUE;
}

static gboolean
nk_cuda_fail (cudaError_t   status,
              const char   *call,
              const char   *file,
              int           line,
              GError      **error)
{
  int code = status == cudaErrorMemoryAllocation ? NK_DEVICE_ERROR_OUT_OF_MEMORY
                                                 : NK_DEVICE_ERROR_FAILED;

  g_set_error (error, NK_CUDA_ERROR, code, "%s (%s failed at %s:%d)",
               cudaGetErrorString (status), call, file, line);
  return FALSE;
}

static gboolean
nk_cublas_fail (cublasStatus_t  status,
                const char     *call,
                const char     *file,
                int             line,
                GError        **error)
{
  g_set_error (error, NK_CUDA_ERROR,
               status == CUBLAS_STATUS_ALLOC_FAILED ? NK_DEVICE_ERROR_OUT_OF_MEMORY
                                                    : NK_DEVICE_ERROR_FAILED,
               "cuBLAS: %s (%s failed at %s:%d)", cublas_api.status_string (status), call,
               file, line);
  return FALSE;
}

#define NK_CUDA_TRY(call, error) \
  G_STMT_START { \
    cudaError_t nk_status_ = (call); \
    if (nk_status_ != cudaSuccess) \
      return nk_cuda_fail (nk_status_, #call, __FILE__, __LINE__, (error)); \
  } G_STMT_END

#define NK_CUBLAS_TRY(call, error) \
  G_STMT_START { \
    cublasStatus_t nk_status_ = (call); \
    if (nk_status_ != CUBLAS_STATUS_SUCCESS) \
      return nk_cublas_fail (nk_status_, #call, __FILE__, __LINE__, (error)); \
  } G_STMT_END

/* A launcher's status, checked like a call. */
#define NK_LAUNCH_TRY(launch, error) NK_CUDA_TRY ((cudaError_t) (launch), (error))

/* The body of a float kernel's entry point (`backend` in scope): f32 and f64 only,
 * nothing to launch when @empty. */
#define NK_FLOAT_KERNEL(dtype, empty, launch, error) \
  G_STMT_START { \
    if (!cuda_supports_dtype (backend, (dtype))) \
      return unsupported ((dtype), (error)); \
    if (empty) \
      return TRUE; \
    NK_LAUNCH_TRY ((launch), (error)); \
    return TRUE; \
  } G_STMT_END

typedef struct {
  int              ordinal;
  struct cudaDeviceProp prop;
  cudaStream_t     stream;
  cublasHandle_t   cublas;
  gboolean         tf32;

  /* The caching allocator: freed blocks wait here by rounded size so that a
   * steady-state training step never calls cudaMalloc. */
  GMutex           lock;
  GHashTable      *cache;          /* gsize rounded → GSList of device pointers */
  guint64          cached_bytes;
  guint64          cuda_malloc_calls;

  /* Pinned staging for host→device batches, so copies are asynchronous. */
  void            *pinned;
  gsize            pinned_size;
  cudaEvent_t      pinned_free;

  guint64          bytes_to_device, bytes_to_host, transfers;
} NkCudaBackend;

static gsize
round_size (gsize nbytes)
{
  /* 512-byte granules below 1 MiB, then whole MiB: few distinct sizes to cache. */
  if (nbytes <= (1u << 20))
    return MAX ((gsize) 512, (nbytes + 511) & ~(gsize) 511);
  return (nbytes + (1u << 20) - 1) & ~(((gsize) 1 << 20) - 1);
}

static gboolean
release_cache (NkCudaBackend  *self,
               GError        **error)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      for (GSList *l = value; l != NULL; l = l->next)
        cudaFree (l->data);
      g_slist_free (value);
      g_hash_table_iter_remove (&iter);
    }
  self->cached_bytes = 0;
  return TRUE;
}

static gpointer
cuda_alloc (gpointer   backend,
            gsize      nbytes,
            GError   **error)
{
  NkCudaBackend *self = backend;
  gsize size = round_size (nbytes);
  gpointer ptr = NULL;
  GSList *list;
  cudaError_t status;

  g_mutex_lock (&self->lock);
  list = g_hash_table_lookup (self->cache, GSIZE_TO_POINTER (size));
  if (list != NULL)
    {
      ptr = list->data;
      g_hash_table_insert (self->cache, GSIZE_TO_POINTER (size), g_slist_delete_link (list, list));
      self->cached_bytes -= size;
      g_mutex_unlock (&self->lock);
      return ptr;
    }

  cudaSetDevice (self->ordinal);
  status = cudaMalloc (&ptr, size);
  if (status == cudaErrorMemoryAllocation)
    {
      /* Cached blocks of other sizes may be what stands in the way. */
      cudaGetLastError ();
      release_cache (self, NULL);
      status = cudaMalloc (&ptr, size);
    }
  self->cuda_malloc_calls++;
  g_mutex_unlock (&self->lock);

  if (status != cudaSuccess)
    {
      size_t free_bytes = 0, total_bytes = 0;

      cudaGetLastError ();
      cudaMemGetInfo (&free_bytes, &total_bytes);
      g_set_error (error, NK_CUDA_ERROR,
                   status == cudaErrorMemoryAllocation ? NK_DEVICE_ERROR_OUT_OF_MEMORY
                                                       : NK_DEVICE_ERROR_FAILED,
                   "%s: cannot allocate %zu bytes on %s "
                   "(%zu of %zu bytes free)",
                   cudaGetErrorString (status), nbytes, self->prop.name,
                   (gsize) free_bytes, (gsize) total_bytes);
      return NULL;
    }
  return ptr;
}

static void
cuda_free (gpointer backend,
           gpointer ptr,
           gsize    nbytes)
{
  NkCudaBackend *self = backend;
  gsize size = round_size (nbytes);
  GSList *list;

  if (ptr == NULL)
    return;
  g_mutex_lock (&self->lock);
  list = g_hash_table_lookup (self->cache, GSIZE_TO_POINTER (size));
  g_hash_table_insert (self->cache, GSIZE_TO_POINTER (size), g_slist_prepend (list, ptr));
  self->cached_bytes += size;
  g_mutex_unlock (&self->lock);
}

static gboolean
cuda_copy (gpointer        backend,
           NkCopyKind      kind,
           gpointer        dst,
           gconstpointer   src,
           gsize           nbytes,
           GError        **error)
{
  NkCudaBackend *self = backend;

  self->transfers++;
  switch (kind)
    {
    case NK_COPY_HOST_TO_DEVICE:
      self->bytes_to_device += nbytes;
      /* Through a pinned buffer the copy is a DMA that runs while the host goes on;
       * the event says when the buffer may be refilled. */
      NK_CUDA_TRY (cudaEventSynchronize (self->pinned_free), error);
      if (nbytes > self->pinned_size)
        {
          if (self->pinned != NULL)
            NK_CUDA_TRY (cudaFreeHost (self->pinned), error);
          self->pinned = NULL;
          self->pinned_size = 0;
          NK_CUDA_TRY (cudaMallocHost (&self->pinned, nbytes), error);
          self->pinned_size = nbytes;
        }
      memcpy (self->pinned, src, nbytes);
      NK_CUDA_TRY (cudaMemcpyAsync (dst, self->pinned, nbytes, cudaMemcpyHostToDevice,
                                    self->stream), error);
      NK_CUDA_TRY (cudaEventRecord (self->pinned_free, self->stream), error);
      return TRUE;

    case NK_COPY_DEVICE_TO_HOST:
      self->bytes_to_host += nbytes;
      NK_CUDA_TRY (cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToHost, self->stream),
                   error);
      /* The host reads @dst next: this is the one synchronisation a step needs. */
      NK_CUDA_TRY (cudaStreamSynchronize (self->stream), error);
      return TRUE;

    case NK_COPY_DEVICE_TO_DEVICE:
      NK_CUDA_TRY (cudaMemcpyAsync (dst, src, nbytes, cudaMemcpyDeviceToDevice, self->stream),
                   error);
      return TRUE;
    }
  return TRUE;
}

static gboolean
elem_of (NkDType     dtype,
         NkCudaElem *out)
{
  switch (dtype)
    {
    case NK_DTYPE_F32: *out = NK_CUDA_F32; return TRUE;
    case NK_DTYPE_F64: *out = NK_CUDA_F64; return TRUE;
    case NK_DTYPE_F16: *out = NK_CUDA_F16; return TRUE;
    case NK_DTYPE_BF16: *out = NK_CUDA_BF16; return TRUE;
    case NK_DTYPE_INT64: *out = NK_CUDA_I64; return TRUE;
    case NK_DTYPE_INT32: *out = NK_CUDA_I32; return TRUE;
    case NK_DTYPE_UINT16: *out = NK_CUDA_U16; return TRUE;
    default: return FALSE;
    }
}

static gboolean
unsupported (NkDType   dtype,
             GError  **error)
{
  g_set_error (error, NK_CUDA_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
               "the CUDA device does not store dtype %d (fp8 tensors stay on the CPU)",
               (int) dtype);
  return FALSE;
}

static gboolean
cuda_supports_dtype (gpointer backend,
                     NkDType  dtype)
{
  return dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64;
}

static gboolean
cuda_supports_gemm_dtype (gpointer backend,
                          NkDType  dtype,
                          NkDType  out_dtype)
{
  gboolean narrow = dtype == NK_DTYPE_BF16 || dtype == NK_DTYPE_F16;

  if (out_dtype != dtype)
    return narrow && out_dtype == NK_DTYPE_F32;
  return dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64 || narrow;
}

static gboolean
cuda_cast (gpointer        backend,
           const NkIter   *it,
           NkDType         out_dtype,
           gpointer        out,
           NkDType         in_dtype,
           gconstpointer   in,
           GError        **error)
{
  NkCudaBackend *self = backend;
  NkCudaElem out_elem, in_elem;

  if (!elem_of (out_dtype, &out_elem))
    return unsupported (out_dtype, error);
  if (!elem_of (in_dtype, &in_elem))
    return unsupported (in_dtype, error);
  if (it->numel == 0)
    return TRUE;
  NK_LAUNCH_TRY (nk_cuda_launch_cast (self->stream, it, out_elem, out, in_elem, in), error);
  return TRUE;
}

static gsize
elem_size (NkCudaElem elem)
{
  switch (elem)
    {
    case NK_CUDA_F64: case NK_CUDA_I64: return 8;
    case NK_CUDA_F32: case NK_CUDA_I32: return 4;
    case NK_CUDA_F16: case NK_CUDA_BF16: case NK_CUDA_U16: return 2;
    case NK_CUDA_U8: return 1;
    }
  return 0;
}

static gboolean
cuda_fill (gpointer        backend,
           const NkIter   *it,
           NkDType         dtype,
           gpointer        out,
           double          value,
           GError        **error)
{
  NkCudaBackend *self = backend;
  NkCudaElem elem;

  /* nk-storage zero-fills new storage of any dtype as bytes of fp8 0.0. */
  if ((dtype == NK_DTYPE_E4M3 || dtype == NK_DTYPE_E5M2) && value == 0.0)
    elem = NK_CUDA_U8;
  else if (!elem_of (dtype, &elem))
    return unsupported (dtype, error);
  if (it->numel == 0)
    return TRUE;
  /* +0.0 into contiguous elements is zero bytes in every format: a memset runs at the
   * copy engine's rate (new storage and gradients are zero-filled every step). */
  if (value == 0.0 && !signbit (value) && it->ndim == 1 && it->stride[0][0] == 1)
    {
      gsize es = elem_size (elem);

      NK_CUDA_TRY (cudaMemsetAsync ((char *) out + it->offset[0] * es, 0, it->numel * es,
                                    self->stream), error);
      return TRUE;
    }
  NK_LAUNCH_TRY (nk_cuda_launch_fill (self->stream, it, elem, out, value), error);
  return TRUE;
}

static gboolean
cuda_unary (gpointer        backend,
            NkUnaryOp       op,
            const NkIter   *it,
            NkDType         dtype,
            gpointer        out,
            gconstpointer   a,
            GError        **error)
{
  NkCudaBackend *self = backend;

  NK_FLOAT_KERNEL (dtype, it->numel == 0,
                   nk_cuda_launch_unary (self->stream, op, it, dtype == NK_DTYPE_F64, out, a),
                   error);
}

static gboolean
cuda_binary (gpointer        backend,
             NkBinaryOp      op,
             const NkIter   *it,
             NkDType         dtype,
             gpointer        out,
             gconstpointer   a,
             gconstpointer   b,
             double          scalar,
             gboolean        scalar_first,
             GError        **error)
{
  NkCudaBackend *self = backend;

  NK_FLOAT_KERNEL (dtype, it->numel == 0,
                   nk_cuda_launch_binary (self->stream, op, it, dtype == NK_DTYPE_F64, out, a, b,
                                          scalar, scalar_first), error);
}

static gboolean
launch_reduce (gpointer              backend,
               NkReduceOp            op,
               const NkReduceIter   *it,
               NkDType               dtype,
               gpointer              out,
               gconstpointer         in,
               double               *partials,
               GError              **error)
{
  NkCudaBackend *self = backend;

  NK_FLOAT_KERNEL (dtype, FALSE,
                   nk_cuda_launch_reduce (self->stream, op, it, dtype == NK_DTYPE_F64, out, in,
                                          partials),
                   error);
}

static gboolean
cuda_reduce (gpointer              backend,
             NkReduceOp            op,
             const NkReduceIter   *it,
             NkDType               dtype,
             gpointer              out,
             gconstpointer         in,
             GError              **error)
{
  NkCudaBackend *self = backend;
  /* Scratch for the partial sums of reductions with few outputs; handing it back at
   * once is safe: whoever takes it next queues behind this launch on the one stream. */
  double *partials = cuda_alloc (self, NK_CUDA_REDUCE_PARTIALS * sizeof (double), error);
  gboolean ok;

  if (partials == NULL)
    return FALSE;
  ok = launch_reduce (self, op, it, dtype, out, in, partials, error);
  cuda_free (self, partials, NK_CUDA_REDUCE_PARTIALS * sizeof (double));
  return ok;
}

static gboolean
cuda_triangle (gpointer        backend,
               gboolean        upper,
               gint64          diagonal,
               const NkIter   *it,
               NkDType         dtype,
               gpointer        out,
               gconstpointer   in,
               GError        **error)
{
  NkCudaBackend *self = backend;

  NK_FLOAT_KERNEL (dtype, it->numel == 0,
                   nk_cuda_launch_triangle (self->stream, upper, diagonal, it,
                                            dtype == NK_DTYPE_F64, out, in), error);
}

static gboolean
cuda_optimizer (gpointer            backend,
                const NkOptimStep  *step,
                gsize               n,
                float              *param,
                const float        *grad,
                float              *state1,
                float              *state2,
                GError            **error)
{
  NkCudaBackend *self = backend;

  if (n == 0)
    return TRUE;
  NK_LAUNCH_TRY (nk_cuda_launch_optimizer (self->stream, step, (int64_t) n, param, grad,
                                           state1, state2), error);
  return TRUE;
}

static gboolean
cuda_rows (gpointer            backend,
           NkDType             dtype,
           const NkRowsCall   *call,
           GError            **error)
{
  NkCudaBackend *self = backend;

  NK_FLOAT_KERNEL (dtype, FALSE,
                   nk_cuda_launch_rows (self->stream, dtype == NK_DTYPE_F64, call), error);
}

/* Block quantization: NVFP4's tensor amax goes through a word of scratch from the
 * caching allocator, handed back at once (whoever takes it next queues behind this
 * launch on the one stream). */
static gboolean
cuda_quantize (gpointer               backend,
               const NkQuantizeCall  *call,
               GError               **error)
{
  NkCudaBackend *self = backend;
  unsigned int *amax = NULL;
  int status;

  if (call->rows * call->cols == 0)
    return TRUE;
  if (call->nvfp4 && (amax = cuda_alloc (self, sizeof *amax, error)) == NULL)
    return FALSE;
  status = nk_cuda_launch_quantize (self->stream, call, amax);
  if (amax != NULL)
    cuda_free (self, amax, sizeof *amax);
  NK_LAUNCH_TRY (status, error);
  return TRUE;
}

/* Runs the plan the CPU path runs (nk-gemm-plan.h): same operand order, transposes and
 * leading dimensions, one strided-batched call for a batch. Inputs in bf16/f16 are
 * multiplied with fp32 accumulation; fp32 uses TF32 tensor cores only when asked. */
static gboolean
cuda_gemm (gpointer            backend,
           const NkGemmPlan   *plan,
           NkDType             dtype,
           NkDType             out_dtype,
           double              alpha,
           gconstpointer       a,
           gconstpointer       b,
           double              beta,
           gpointer            c,
           GError            **error)
{
  NkCudaBackend *self = backend;
  cudaDataType_t type, out_type;
  cublasComputeType_t compute;
  float alpha_f = (float) alpha, beta_f = (float) beta;
  const void *alpha_p = &alpha_f, *beta_p = &beta_f;
  cublasOperation_t op_first = plan->trans_first ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_second = plan->trans_second ? CUBLAS_OP_T : CUBLAS_OP_N;
  gconstpointer first = nk_gemm_plan_first (plan, a, b);
  gconstpointer second = nk_gemm_plan_second (plan, a, b);

  if (nk_gemm_plan_needs_copy (plan))
    {
      g_set_error (error, NK_CUDA_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
                   "gemm plan still needs a copy: %s", "the caller must copy first");
      return FALSE;
    }

  switch (dtype)
    {
    case NK_DTYPE_F32:
      type = CUDA_R_32F;
      compute = self->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case NK_DTYPE_BF16:
      type = CUDA_R_16BF;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case NK_DTYPE_F16:
      type = CUDA_R_16F;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case NK_DTYPE_F64:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      alpha_p = &alpha;
      beta_p = &beta;
      break;
    default:
      return unsupported (dtype, error);
    }
  /* bf16/f16 operands into an f32 C: the same f32 accumulation, no rounding of C. */
  if (out_dtype == dtype)
    out_type = type;
  else if (out_dtype == NK_DTYPE_F32 && (dtype == NK_DTYPE_BF16 || dtype == NK_DTYPE_F16))
    out_type = CUDA_R_32F;
  else
    return unsupported (out_dtype, error);

  if (plan->batch <= 1)
    NK_CUBLAS_TRY (cublas_api.gemm_ex (self->cublas, op_first, op_second,
                                 (int) plan->m, (int) plan->n, (int) plan->k,
                                 alpha_p, first, type, (int) plan->ld_first,
                                 second, type, (int) plan->ld_second,
                                 beta_p, c, out_type, (int) plan->ldc,
                                 compute, CUBLAS_GEMM_DEFAULT), error);
  else
    NK_CUBLAS_TRY (cublas_api.gemm_strided_batched_ex (self->cublas, op_first, op_second,
                                               (int) plan->m, (int) plan->n, (int) plan->k,
                                               alpha_p, first, type, (int) plan->ld_first,
                                               (long long) plan->stride_first,
                                               second, type, (int) plan->ld_second,
                                               (long long) plan->stride_second,
                                               beta_p, c, out_type, (int) plan->ldc,
                                               (long long) plan->stride_c, (int) plan->batch,
                                               compute, CUBLAS_GEMM_DEFAULT), error);
  return TRUE;
}

static gboolean
cuda_synchronize (gpointer   backend,
                  GError   **error)
{
  NkCudaBackend *self = backend;

  NK_CUDA_TRY (cudaStreamSynchronize (self->stream), error);
  return TRUE;
}

static gboolean
cuda_memory_info (gpointer   backend,
                  guint64   *free_bytes,
                  guint64   *total_bytes,
                  GError   **error)
{
  NkCudaBackend *self = backend;
  size_t free_b = 0, total_b = 0;

  NK_CUDA_TRY (cudaSetDevice (self->ordinal), error);
  NK_CUDA_TRY (cudaMemGetInfo (&free_b, &total_b), error);
  /* Blocks in our cache are free for Napkin even though CUDA counts them used. */
  *free_bytes = free_b + self->cached_bytes;
  *total_bytes = total_b;
  return TRUE;
}

static gpointer
cuda_timer_mark (gpointer backend)
{
  NkCudaBackend *self = backend;
  cudaEvent_t event = NULL;

  if (cudaEventCreate (&event) != cudaSuccess)
    return NULL;
  cudaEventRecord (event, self->stream);
  return event;
}

static double
cuda_timer_elapsed (gpointer backend,
                    gpointer start_mark,
                    gpointer end_mark)
{
  float ms = 0.0f;

  if (start_mark == NULL || end_mark == NULL)
    return 0.0;
  if (cudaEventSynchronize ((cudaEvent_t) end_mark) != cudaSuccess
      || cudaEventElapsedTime (&ms, (cudaEvent_t) start_mark, (cudaEvent_t) end_mark) != cudaSuccess)
    return 0.0;
  return ms * 1e-3;
}

static void
cuda_timer_free (gpointer backend,
                 gpointer mark)
{
  if (mark != NULL)
    cudaEventDestroy ((cudaEvent_t) mark);
}

static char *
cuda_describe (gpointer backend)
{
  NkCudaBackend *self = backend;
  int driver = 0, runtime = 0, clock_khz = 0;
  size_t free_b = 0, total_b = 0;

  cudaDriverGetVersion (&driver);
  cudaRuntimeGetVersion (&runtime);
  cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, self->ordinal);
  cudaMemGetInfo (&free_b, &total_b);
  /* The CUDA name comes first and alone before " — ": the GPU table matches on it. */
  return g_strdup_printf ("%s — compute capability %d.%d, %d SMs, %.0f MHz, "
                          "%.1f GiB (%.1f GiB free), driver %d.%d, runtime %d.%d, "
                          "%" PRIu64 " transfers (%.1f MiB to the device, "
                          "%.1f MiB to the host), %" PRIu64 " cudaMalloc calls",
                          self->prop.name, self->prop.major, self->prop.minor,
                          self->prop.multiProcessorCount, clock_khz / 1e3,
                          total_b / 1073741824.0, free_b / 1073741824.0,
                          driver / 1000, (driver % 1000) / 10,
                          runtime / 1000, (runtime % 1000) / 10,
                          self->transfers, self->bytes_to_device / 1048576.0,
                          self->bytes_to_host / 1048576.0, self->cuda_malloc_calls);
}

static void
cuda_destroy (gpointer backend)
{
  NkCudaBackend *self = backend;

  release_cache (self, NULL);
  g_hash_table_unref (self->cache);
  if (self->pinned != NULL)
    cudaFreeHost (self->pinned);
  cudaEventDestroy (self->pinned_free);
  cublas_api.destroy (self->cublas);
  cudaStreamDestroy (self->stream);
  g_mutex_clear (&self->lock);
  g_free (self);
}

static const NkDeviceOps cuda_ops = {
  .abi_version = NK_DEVICE_ABI_VERSION,
  .kind = NK_DEVICE_CUDA,
  .destroy = cuda_destroy,
  .describe = cuda_describe,
  .alloc = cuda_alloc,
  .free = cuda_free,
  .copy = cuda_copy,
  .supports_dtype = cuda_supports_dtype,
  .supports_gemm_dtype = cuda_supports_gemm_dtype,
  .cast = cuda_cast,
  .fill = cuda_fill,
  .unary = cuda_unary,
  .binary = cuda_binary,
  .reduce = cuda_reduce,
  .triangle = cuda_triangle,
  .optimizer = cuda_optimizer,
  .gemm = cuda_gemm,
  .rows = cuda_rows,
  .quantize = cuda_quantize,
  .synchronize = cuda_synchronize,
  .memory_info = cuda_memory_info,
  .timer_mark = cuda_timer_mark,
  .timer_elapsed = cuda_timer_elapsed,
  .timer_free = cuda_timer_free,
};

static gboolean
open_device (int             ordinal,
             NkCudaBackend **out,
             GError        **error)
{
  g_autofree NkCudaBackend *self = g_new0 (NkCudaBackend, 1);

  self->ordinal = ordinal;
  NK_CUDA_TRY (cudaGetDeviceProperties (&self->prop, ordinal), error);
  NK_CUDA_TRY (cudaSetDevice (ordinal), error);
  NK_CUDA_TRY (cudaStreamCreateWithFlags (&self->stream, cudaStreamNonBlocking), error);
  NK_CUDA_TRY (cudaEventCreateWithFlags (&self->pinned_free, cudaEventDisableTiming), error);
  if (!load_cublas (error))
    return FALSE;
  NK_CUBLAS_TRY (cublas_api.create (&self->cublas), error);
  NK_CUBLAS_TRY (cublas_api.set_stream (self->cublas, self->stream), error);
  /* TF32 only on request (NAPKIN_CUDA_TF32=1): fp32 means fp32 unless said otherwise. */
  self->tf32 = g_strcmp0 (g_getenv ("NAPKIN_CUDA_TF32"), "1") == 0;
  g_mutex_init (&self->lock);
  self->cache = g_hash_table_new (NULL, NULL);
  *out = g_steal_pointer (&self);
  return TRUE;
}

/**
 * nk_device_module_init:
 * @abi_version: the engine's NK_DEVICE_ABI_VERSION
 * @register_func: registers one device with the engine
 * @error: the reason there is no usable device, as one sentence
 *
 * Finds the CUDA devices and registers each as "cuda:N".
 *
 * Returns: %TRUE when at least one device was registered
 */
G_MODULE_EXPORT gboolean nk_device_module_init (guint                   abi_version,
                                                NkDeviceModuleRegister  register_func,
                                                GError                **error);

G_MODULE_EXPORT gboolean
nk_device_module_init (guint                   abi_version,
                       NkDeviceModuleRegister  register_func,
                       GError                **error)
{
  cudaError_t status;
  int count = 0, registered = 0;

  if (abi_version != NK_DEVICE_ABI_VERSION)
    {
      g_set_error (error, NK_CUDA_ERROR, NK_DEVICE_ERROR_NOT_FOUND,
                   "the CUDA module was built for device interface %d, the engine has %u",
                   NK_DEVICE_ABI_VERSION, abi_version);
      return FALSE;
    }

  status = cudaGetDeviceCount (&count);
  if (status != cudaSuccess || count == 0)
    {
      /* CUDA's sentence is the reason people need: "CUDA driver version is
       * insufficient for CUDA runtime version", "no CUDA-capable device is detected". */
      g_set_error (error, NK_CUDA_ERROR, NK_DEVICE_ERROR_NOT_FOUND, "%s",
                   status != cudaSuccess ? cudaGetErrorString (status)
                                         : "no CUDA-capable device is detected");
      cudaGetLastError ();
      return FALSE;
    }

  for (int i = 0; i < count; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *name = g_strdup_printf ("cuda:%d", i);
      NkCudaBackend *backend = NULL;

      if (!open_device (i, &backend, &local_error))
        {
          if (registered == 0 && i == count - 1)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return FALSE;
            }
          continue;
        }
      register_func (name, &cuda_ops, backend);
      registered++;
    }
  return registered > 0;
}
