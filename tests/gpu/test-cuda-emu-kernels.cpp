/* test-cuda-emu-kernels.cpp: the CUDA emulation's own checks, with kernels of its own
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the emulation promises the module's tests (src/gpu/emu/README.md), each against
 * an oracle computed here on the host: launch geometry, __shared__ memory and
 * __syncthreads (a block reduction, right in both thread orders, and the same kernel
 * without its barriers caught out), warp shuffles and votes, deferred streams and
 * events, copy checks, cuBLAS's argument checks and arithmetic, narrow-float rounding,
 * and the faults a GPU would raise (divergent barrier, host pointer, matrix past its
 * allocation, out-of-bounds write under AddressSanitizer), each in a subprocess since
 * a fault leaves the context unusable, as on a GPU.
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nk-cuda-emu.h"

#ifndef __has_feature
# define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature (address_sanitizer)
# define HAVE_ASAN 1
#else
# define HAVE_ASAN 0
#endif

#define LAUNCH(kernel, grid, block) nk_emu_launch (kernel, grid, block, 0, nullptr, #kernel)

static void
check (cudaError_t error)
{
  g_assert_cmpstr (cudaGetErrorString (error), ==, cudaGetErrorString (cudaSuccess));
}

/* ---- geometry -------------------------------------------------------------------- */

__global__ static void
write_ids (unsigned int *out)
{
  unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned int threads = blockDim.x * blockDim.y * blockDim.z;

  atomicAdd (&out[block * threads + thread], block * threads + thread + 1);
}

static void
test_geometry (void)
{
  const unsigned int n = 3 * 2 * 2 * (5 * 4 * 3);
  unsigned int *d = nullptr, host[3 * 2 * 2 * 5 * 4 * 3];

  check (cudaMalloc ((void **) &d, sizeof host));
  check (cudaMemset (d, 0, sizeof host));
  LAUNCH (write_ids, dim3 (3, 2, 2), dim3 (5, 4, 3)) (d);
  check (cudaGetLastError ());
  check (cudaMemcpy (host, d, sizeof host, cudaMemcpyDeviceToHost));
  for (unsigned int i = 0; i < n; i++)
    g_assert_cmpuint (host[i], ==, i + 1);

  /* Geometry CUDA refuses is refused at the launch, and the launch is dropped. */
  LAUNCH (write_ids, dim3 (1), dim3 (1025)) (d);
  g_assert_cmpint (cudaGetLastError (), ==, cudaErrorInvalidConfiguration);
  LAUNCH (write_ids, dim3 (0), dim3 (32)) (d);
  g_assert_cmpint (cudaGetLastError (), ==, cudaErrorInvalidConfiguration);
  LAUNCH (write_ids, dim3 (1, 65536), dim3 (32)) (d);
  g_assert_cmpint (cudaGetLastError (), ==, cudaErrorInvalidConfiguration);
  g_assert_cmpint (cudaGetLastError (), ==, cudaSuccess);
  check (cudaFree (d));
}

/* ---- shared memory and barriers -------------------------------------------------- */

/* The classic tree reduction: every step reads what other threads wrote before the
 * barrier. */
template <bool kBarriers>
__global__ static void
block_sum (const float *in, float *out, int n)
{
  __shared__ float partial[256];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;

  partial[tid] = i < n ? in[i] : 0.0f;
  if (kBarriers)
    __syncthreads ();
  for (int half = blockDim.x / 2; half > 0; half /= 2)
    {
      if (tid < half)
        partial[tid] += partial[tid + half];
      if (kBarriers)
        __syncthreads ();
    }
  if (tid == 0)
    out[blockIdx.x] = partial[0];
}

/* Sums per block with or without barriers; returns how many blocks were right. */
static int
run_block_sum (bool barriers, bool reverse)
{
  const int n = 1000, blocks = 4;
  float host[1000], sums[4], *din = nullptr, *dout = nullptr;
  int right = 0;

  for (int i = 0; i < n; i++)
    host[i] = (float) ((i * 37) % 101) - 50.0f;
  check (cudaMalloc ((void **) &din, sizeof host));
  check (cudaMalloc ((void **) &dout, sizeof sums));
  check (cudaMemcpy (din, host, sizeof host, cudaMemcpyHostToDevice));
  nk_cuda_emu_set_reverse_order (reverse);
  if (barriers)
    LAUNCH (block_sum<true>, dim3 (blocks), dim3 (256)) (din, dout, n);
  else
    LAUNCH (block_sum<false>, dim3 (blocks), dim3 (256)) (din, dout, n);
  check (cudaMemcpy (sums, dout, sizeof sums, cudaMemcpyDeviceToHost));
  nk_cuda_emu_set_reverse_order (0);
  for (int b = 0; b < blocks; b++)
    {
      double expected = 0.0;
      for (int i = b * 256; i < MIN (n, (b + 1) * 256); i++)
        expected += host[i];
      right += sums[b] == (float) expected;
    }
  check (cudaFree (din));
  check (cudaFree (dout));
  return right;
}

static void
test_barriers (void)
{
  g_assert_cmpint (run_block_sum (true, false), ==, 4);
  g_assert_cmpint (run_block_sum (true, true), ==, 4);
  /* Without barriers, thread 0 runs to its end before thread 128 has written what it
   * reads: the emulation runs each thread up to its next barrier, so a missing one
   * shows (in the first-to-last order here; the reverse order catches a kernel that
   * reads from lower threads). */
  g_assert_cmpint (run_block_sum (false, false), <, 4);
}

/* ---- warps ----------------------------------------------------------------------- */

__global__ static void
warp_ops (const int *in, int *sums, int *maxes, unsigned int *ballots, int *rotated)
{
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, v = in[threadIdx.x], m = v;

  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync (0xffffffffu, v, offset);
  for (int mask = 1; mask < 32; mask *= 2)
    m = max (m, __shfl_xor_sync (0xffffffffu, m, mask));
  if (lane == 0)
    sums[warp] = v;
  maxes[threadIdx.x] = m;
  ballots[threadIdx.x] = __ballot_sync (0xffffffffu, in[threadIdx.x] % 3 == 0);
  rotated[threadIdx.x] = __shfl_sync (0xffffffffu, in[threadIdx.x], lane + 1);
  __syncwarp ();
}

static void
test_warps (void)
{
  int in[64], sums[2], maxes[64], rotated[64], *d[4];
  unsigned int ballots[64], *dballots = nullptr;

  for (int i = 0; i < 64; i++)
    in[i] = (i * 53) % 71;
  for (int k = 0; k < 4; k++)
    check (cudaMalloc ((void **) &d[k], sizeof in));
  check (cudaMalloc ((void **) &dballots, sizeof ballots));
  check (cudaMemcpy (d[0], in, sizeof in, cudaMemcpyHostToDevice));
  LAUNCH (warp_ops, dim3 (1), dim3 (64)) (d[0], d[1], d[2], dballots, d[3]);
  check (cudaMemcpy (sums, d[1], sizeof sums, cudaMemcpyDeviceToHost));
  check (cudaMemcpy (maxes, d[2], sizeof maxes, cudaMemcpyDeviceToHost));
  check (cudaMemcpy (ballots, dballots, sizeof ballots, cudaMemcpyDeviceToHost));
  check (cudaMemcpy (rotated, d[3], sizeof rotated, cudaMemcpyDeviceToHost));
  for (int w = 0; w < 2; w++)
    {
      int sum = 0, mx = 0;
      unsigned int vote = 0;

      for (int l = 0; l < 32; l++)
        {
          sum += in[w * 32 + l];
          mx = MAX (mx, in[w * 32 + l]);
          vote |= (in[w * 32 + l] % 3 == 0 ? 1u : 0u) << l;
        }
      g_assert_cmpint (sums[w], ==, sum);
      for (int l = 0; l < 32; l++)
        {
          g_assert_cmpint (maxes[w * 32 + l], ==, mx);
          g_assert_cmpuint (ballots[w * 32 + l], ==, vote);
          g_assert_cmpint (rotated[w * 32 + l], ==, in[w * 32 + (l + 1) % 32]);
        }
    }
  for (int k = 0; k < 4; k++)
    check (cudaFree (d[k]));
  check (cudaFree (dballots));
}

/* ---- streams, events, copies ----------------------------------------------------- */

static void
test_deferred_streams (void)
{
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, end = nullptr, untimed = nullptr;
  float *pinned = nullptr, *d = nullptr, back[4], ms = -1.0f;
  NkCudaEmuStats before, after;

  check (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  check (cudaEventCreate (&start));
  check (cudaEventCreate (&end));
  check (cudaEventCreateWithFlags (&untimed, cudaEventDisableTiming));
  check (cudaMallocHost ((void **) &pinned, 4 * sizeof (float)));
  check (cudaMalloc ((void **) &d, 4 * sizeof (float)));

  nk_cuda_emu_get_stats (&before);
  for (int i = 0; i < 4; i++)
    pinned[i] = (float) i;
  check (cudaEventRecord (start, stream));
  check (cudaMemcpyAsync (d, pinned, 4 * sizeof (float), cudaMemcpyHostToDevice, stream));
  check (cudaEventRecord (end, stream));
  /* Nothing ran yet: the host may not refill the pinned buffer before the event. */
  g_assert_cmpint (cudaEventQuery (end), ==, cudaErrorNotReady);
  g_assert_cmpint (cudaEventElapsedTime (&ms, start, end), ==, cudaErrorNotReady);
  pinned[0] = 99.0f;
  check (cudaEventSynchronize (end));
  check (cudaEventQuery (end));
  check (cudaEventElapsedTime (&ms, start, end));
  g_assert_cmpfloat (ms, >=, 0.0f);
  check (cudaMemcpy (back, d, sizeof back, cudaMemcpyDeviceToHost));
  /* The copy read the pinned buffer when it ran, after the host's late write. */
  g_assert_cmpfloat (back[0], ==, 99.0f);
  g_assert_cmpfloat (back[3], ==, 3.0f);
  nk_cuda_emu_get_stats (&after);
  g_assert_cmpuint (after.host_waits - before.host_waits, ==, 2);

  check (cudaEventRecord (untimed, stream));
  check (cudaStreamSynchronize (stream));
  g_assert_cmpint (cudaEventElapsedTime (&ms, start, untimed), ==,
                   cudaErrorInvalidResourceHandle);
  cudaGetLastError ();

  /* Copies CUDA refuses: past the allocation, the wrong direction, a bad stream. */
  g_assert_cmpint (cudaMemcpy (d, back, 5 * sizeof (float), cudaMemcpyHostToDevice), ==,
                   cudaErrorInvalidValue);
  g_assert_cmpint (cudaMemcpy (d + 1, back, 4 * sizeof (float), cudaMemcpyHostToDevice), ==,
                   cudaErrorInvalidValue);
  g_assert_cmpint (cudaMemcpy (back, d, sizeof back, cudaMemcpyHostToDevice), ==,
                   cudaErrorInvalidValue);
  g_assert_cmpint (cudaMemsetAsync (back, 0, sizeof back, stream), ==, cudaErrorInvalidValue);
  g_assert_cmpint (cudaFree (back), ==, cudaErrorInvalidDevicePointer);
  g_assert_cmpint (cudaGetLastError (), ==, cudaErrorInvalidDevicePointer);
  g_assert_cmpint (cudaGetLastError (), ==, cudaSuccess);

  check (cudaFree (d));
  check (cudaFreeHost (pinned));
  check (cudaEventDestroy (start));
  check (cudaEventDestroy (end));
  check (cudaEventDestroy (untimed));
  check (cudaStreamDestroy (stream));
}

static void
test_device_identity (void)
{
  struct cudaDeviceProp prop;
  size_t free_bytes = 0, total = 0;
  int sms = 0, count = 0;
  void *p = nullptr;

  check (cudaGetDeviceCount (&count));
  g_assert_cmpint (count, ==, 1);
  check (cudaGetDeviceProperties (&prop, 0));
  g_assert_cmpstr (prop.name, ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpint (prop.multiProcessorCount, ==, 132);
  g_assert_cmpuint (prop.totalGlobalMem, ==, (guint64) 81559 << 20);
  check (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  g_assert_cmpint (sms, ==, 132);
  g_assert_cmpint (cudaGetDeviceProperties (&prop, 1), ==, cudaErrorInvalidDevice);
  cudaGetLastError ();

  /* A small card runs out of memory as a big one does. */
  nk_cuda_emu_set_memory (1 << 20);
  g_assert_cmpint (cudaMalloc (&p, (1 << 20) + 1), ==, cudaErrorMemoryAllocation);
  g_assert_null (p);
  check (cudaMalloc (&p, 1 << 19));
  check (cudaMemGetInfo (&free_bytes, &total));
  g_assert_cmpuint (free_bytes, ==, 1 << 19);
  g_assert_cmpuint (total, ==, 1 << 20);
  check (cudaFree (p));
  nk_cuda_emu_set_memory (0);
  nk_cuda_emu_fail_malloc (2);
  check (cudaMalloc (&p, 64));
  {
    void *second = nullptr;
    g_assert_cmpint (cudaMalloc (&second, 64), ==, cudaErrorMemoryAllocation);
    g_assert_null (second);
  }
  cudaGetLastError ();
  check (cudaFree (p));
  g_assert_cmpstr (cudaGetErrorString (cudaErrorMemoryAllocation), ==, "out of memory");
}

/* ---- narrow floats --------------------------------------------------------------- */

static void
test_narrow_rounding (void)
{
  /* Ties to even, overflow to infinity, subnormals, from a double in one rounding. */
  g_assert_cmphex (__double2half (1.0 + ldexp (1.0, -11)).__x, ==, 0x3c00);
  g_assert_cmphex (__double2half (1.0 + 3 * ldexp (1.0, -11)).__x, ==, 0x3c02);
  g_assert_cmphex (__double2half (1.0 + ldexp (1.0, -11) + ldexp (1.0, -40)).__x, ==, 0x3c01);
  g_assert_cmphex (__double2half (65504.0).__x, ==, 0x7bff);
  g_assert_cmphex (__double2half (65520.0).__x, ==, 0x7c00);
  g_assert_cmphex (__double2half (-ldexp (1.0, -24)).__x, ==, 0x8001);
  g_assert_cmphex (__double2half (ldexp (1.0, -25)).__x, ==, 0x0000);
  g_assert_cmphex (__double2half (NAN).__x & 0x7e00, ==, 0x7e00);
  g_assert_cmphex (__double2bfloat16 (1.0 + ldexp (1.0, -8)).__x, ==, 0x3f80);
  g_assert_cmphex (__double2bfloat16 (1.0 + 3 * ldexp (1.0, -8)).__x, ==, 0x3f82);
  g_assert_cmphex (__double2bfloat16 (3.0e38 * 1.2).__x, ==, 0x7f80);
  g_assert_cmpfloat (__half2float (__half{ 0x0001 }), ==, ldexp (1.0, -24));
  g_assert_cmpfloat (__bfloat162float (__nv_bfloat16{ 0xc040 }), ==, -3.0);
}

/* ---- cuBLAS ---------------------------------------------------------------------- */

/* C = alpha·op(A)·op(B) + beta·C in column-major, in double: the oracle. */
static void
reference_gemm (bool ta, bool tb, int m, int n, int k, double alpha, const double *a, int lda,
                const double *b, int ldb, double beta, double *c, int ldc)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      {
        double acc = 0.0;
        for (int p = 0; p < k; p++)
          acc += (ta ? a[p + i * lda] : a[i + p * lda]) * (tb ? b[j + p * ldb] : b[p + j * ldb]);
        c[i + j * ldc] = alpha * acc + beta * c[i + j * ldc];
      }
}

static void
test_cublas (void)
{
  enum { M = 7, N = 5, K = 6, LD = 9 };
  double ha[LD * LD], hb[LD * LD], hc[LD * LD];
  float fa[LD * LD], fb[LD * LD], fc[LD * LD];
  float *da = nullptr, *db = nullptr, *dc = nullptr, alpha = 1.5f, beta = 0.5f;
  cublasHandle_t handle = nullptr;

  for (int i = 0; i < LD * LD; i++)
    {
      fa[i] = (float) (ha[i] = ((i * 7) % 13) / 4.0 - 1.5);
      fb[i] = (float) (hb[i] = ((i * 5) % 11) / 8.0 - 0.5);
      fc[i] = (float) (hc[i] = ((i * 3) % 7) / 2.0);
    }
  check (cudaMalloc ((void **) &da, sizeof fa));
  check (cudaMalloc ((void **) &db, sizeof fb));
  check (cudaMalloc ((void **) &dc, sizeof fc));
  g_assert_cmpint (cublasCreate (&handle), ==, CUBLAS_STATUS_SUCCESS);
  for (int t = 0; t < 4; t++)
    {
      bool ta = t & 1, tb = t & 2;
      double want[LD * LD];
      float got[LD * LD];

      memcpy (want, hc, sizeof want);
      check (cudaMemcpy (da, fa, sizeof fa, cudaMemcpyHostToDevice));
      check (cudaMemcpy (db, fb, sizeof fb, cudaMemcpyHostToDevice));
      check (cudaMemcpy (dc, fc, sizeof fc, cudaMemcpyHostToDevice));
      g_assert_cmpint (cublasGemmEx (handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                     tb ? CUBLAS_OP_T : CUBLAS_OP_N, M, N, K, &alpha, da,
                                     CUDA_R_32F, LD, db, CUDA_R_32F, LD, &beta, dc, CUDA_R_32F,
                                     LD, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                       ==, CUBLAS_STATUS_SUCCESS);
      reference_gemm (ta, tb, M, N, K, 1.5, ha, LD, hb, LD, 0.5, want, LD);
      check (cudaMemcpy (got, dc, sizeof got, cudaMemcpyDeviceToHost));
      for (int i = 0; i < LD * LD; i++)
        {
          /* Rows past m in each column are padding and stay as they were. */
          double expected = (i % LD) < M && i / LD < N ? want[i] : hc[i];
          g_assert_cmpfloat (fabs (got[i] - expected), <=, 1e-5 * (1.0 + fabs (expected)));
        }
    }

  /* cuBLAS's own checks: leading dimensions below the rows, types it lacks. */
  g_assert_cmpint (cublasGemmEx (handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da,
                                 CUDA_R_32F, M - 1, db, CUDA_R_32F, LD, &beta, dc, CUDA_R_32F,
                                 LD, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   ==, CUBLAS_STATUS_INVALID_VALUE);
  g_assert_cmpint (cublasGemmEx (handle, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, da,
                                 CUDA_R_32F, K - 1, db, CUDA_R_32F, LD, &beta, dc, CUDA_R_32F,
                                 LD, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   ==, CUBLAS_STATUS_INVALID_VALUE);
  g_assert_cmpint (cublasGemmEx (handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da,
                                 CUDA_R_32F, LD, db, CUDA_R_32F, LD, &beta, dc, CUDA_R_32F,
                                 M - 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   ==, CUBLAS_STATUS_INVALID_VALUE);
  g_assert_cmpint (cublasGemmEx (handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da,
                                 CUDA_R_16BF, LD, db, CUDA_R_16BF, LD, &beta, dc, CUDA_R_32F,
                                 LD, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
                   ==, CUBLAS_STATUS_NOT_SUPPORTED);

  /* TF32 rounds the inputs to 10 mantissa bits: 1 + 2^-12 becomes 1. */
  {
    float one_plus = 1.0f + ldexpf (1.0f, -12), one = 1.0f, zero = 0.0f, out = 0.0f;
    check (cudaMemcpy (da, &one_plus, sizeof (float), cudaMemcpyHostToDevice));
    check (cudaMemcpy (db, &one, sizeof (float), cudaMemcpyHostToDevice));
    g_assert_cmpint (cublasGemmEx (handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, da,
                                   CUDA_R_32F, 1, db, CUDA_R_32F, 1, &zero, dc, CUDA_R_32F, 1,
                                   CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                     ==, CUBLAS_STATUS_SUCCESS);
    check (cudaMemcpy (&out, dc, sizeof (float), cudaMemcpyDeviceToHost));
    g_assert_cmpfloat (out, ==, 1.0f);
  }
  g_assert_cmpint (cublasDestroy (handle), ==, CUBLAS_STATUS_SUCCESS);
  check (cudaFree (da));
  check (cudaFree (db));
  check (cudaFree (dc));
}

/* ---- faults, each in a subprocess ------------------------------------------------ */

__global__ static void
divergent_barrier (int *out)
{
  if (threadIdx.x < 40)
    __syncthreads ();
  else
    __syncwarp ();
  out[threadIdx.x] = 1;
}

__global__ static void
write_past (int *out, int n)
{
  out[n + threadIdx.x] = 1;
}

static void
fault_child (int which)
{
  int *d = nullptr, host = 0;
  cublasHandle_t handle = nullptr;
  float one = 1.0f;

  check (cudaMalloc ((void **) &d, 64 * sizeof (int)));
  switch (which)
    {
    case 0:
      LAUNCH (divergent_barrier, dim3 (1), dim3 (64)) (d);
      break;
    case 1:
      LAUNCH (write_past, dim3 (1), dim3 (32)) (&host, 0);
      break;
    case 2:
      cublasCreate (&handle);
      /* lda 8 over 8 columns of 8 rows needs 64 floats; the block holds 64 ints, and
       * B with ldb 9 runs past it. */
      g_assert_cmpint (cublasGemmEx (handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d,
                                     CUDA_R_32F, 8, d, CUDA_R_32F, 9, &one, d, CUDA_R_32F, 8,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                       ==, CUBLAS_STATUS_EXECUTION_FAILED);
      break;
    case 3:
      LAUNCH (write_past, dim3 (1), dim3 (4)) (d, 64);
      break;
    case 4:
      /* The host reads device memory, which a GPU does not map. */
      check (cudaDeviceSynchronize ());
      host = d[3];
      break;
    }
  g_printerr ("sync: %s\n", cudaGetErrorString (cudaDeviceSynchronize ()));
  g_printerr ("after: %s\n", cudaGetErrorString (cudaMemset (d, 0, 4)));
  if (handle != nullptr)
    cublasDestroy (handle);
  cudaFree (d);
  (void) host;
}

static void
test_faults (void)
{
  static const char *const expected[] = {
    "*divergent barrier*unspecified launch failure*sync: unspecified launch failure*"
    "after: unspecified launch failure*",
    "*write_past*host memory*sync: an illegal memory access was encountered*",
    "*operand B*not inside one device allocation*sync: an illegal memory access*",
  };

  for (int which = 0; which < 3; which++)
    {
      g_autofree char *path = g_strdup_printf ("/gpu/emu/faults/subprocess/%d", which);

      g_test_trap_subprocess (path, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr (expected[which]);
    }
}

/* Under AddressSanitizer: a kernel writing past its block, and the host touching
 * device memory, are reported where they happen. */
static void
test_sanitizer_faults (void)
{
  if (!HAVE_ASAN)
    {
      g_test_skip ("not an AddressSanitizer build");
      return;
    }
  g_test_trap_subprocess ("/gpu/emu/faults/subprocess/3", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*heap-buffer-overflow*write_past*");
  g_test_trap_subprocess ("/gpu/emu/faults/subprocess/4", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*use-after-poison*");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gpu/emu/geometry", test_geometry);
  g_test_add_func ("/gpu/emu/barriers", test_barriers);
  g_test_add_func ("/gpu/emu/warps", test_warps);
  g_test_add_func ("/gpu/emu/deferred-streams", test_deferred_streams);
  g_test_add_func ("/gpu/emu/device-identity", test_device_identity);
  g_test_add_func ("/gpu/emu/narrow-rounding", test_narrow_rounding);
  g_test_add_func ("/gpu/emu/cublas", test_cublas);
  g_test_add_func ("/gpu/emu/faults", test_faults);
  g_test_add_func ("/gpu/emu/sanitizer-faults", test_sanitizer_faults);
  for (int which = 0; which < 5; which++)
    {
      g_autofree char *path = g_strdup_printf ("/gpu/emu/faults/subprocess/%d", which);
      g_test_add_data_func (path, GINT_TO_POINTER (which),
                            [] (gconstpointer data) { fault_child (GPOINTER_TO_INT (data)); });
    }
  return g_test_run ();
}
