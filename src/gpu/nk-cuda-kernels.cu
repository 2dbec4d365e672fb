/* nk-cuda-kernels.cu: grid-stride loops around the shared per-element bodies
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only launch configuration and indexing live here. The math is nk-kernels.h's, so
 * what the CPU tests prove about a body holds for the GPU too; narrow formats widen
 * to float and round back with CUDA's round-to-nearest-even conversions, as nk-dtype
 * does on the CPU.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nk-cuda-kernels.h"

#define NK_THREADS 256

/* nvcc's launch syntax, or the host emulation's launcher when this file is compiled
 * as C++ against src/gpu/emu (the test build; see src/gpu/emu/README.md). */
#ifdef __CUDACC__
# define NK_LAUNCH(kernel, grid, block, shared, stream) kernel<<<grid, block, shared, stream>>>
#else
# define NK_LAUNCH(kernel, grid, block, shared, stream) \
  nk_emu_launch (kernel, grid, block, shared, stream, #kernel)
#endif

static unsigned int
nk_blocks_for (int64_t n)
{
  int64_t blocks = (n + NK_THREADS - 1) / NK_THREADS;
  /* A grid-stride loop covers the rest; 65535·4 blocks keep every SM busy. */
  if (blocks > 65535 * 4)
    blocks = 65535 * 4;
  return blocks < 1 ? 1 : (unsigned int) blocks;
}

__device__ static double
nk_load (NkCudaElem type, const void *base, int64_t i)
{
  switch (type)
    {
    case NK_CUDA_F32: return ((const float *) base)[i];
    case NK_CUDA_F64: return ((const double *) base)[i];
    case NK_CUDA_F16: return __half2float (((const __half *) base)[i]);
    case NK_CUDA_BF16: return __bfloat162float (((const __nv_bfloat16 *) base)[i]);
    case NK_CUDA_I64: return (double) ((const int64_t *) base)[i];
    case NK_CUDA_I32: return ((const int32_t *) base)[i];
    case NK_CUDA_U16: return ((const uint16_t *) base)[i];
    case NK_CUDA_U8: return ((const uint8_t *) base)[i];
    }
  return 0.0;
}

__device__ static void
nk_store (NkCudaElem type, void *base, int64_t i, double v)
{
  switch (type)
    {
    case NK_CUDA_F32: ((float *) base)[i] = (float) v; break;
    /* f64 → f16/bf16 rounds once, from the double, like nk-dtype's encoder. */
    case NK_CUDA_F64: ((double *) base)[i] = v; break;
    case NK_CUDA_F16: ((__half *) base)[i] = __double2half (v); break;
    case NK_CUDA_BF16: ((__nv_bfloat16 *) base)[i] = __double2bfloat16 (v); break;
    case NK_CUDA_I64: ((int64_t *) base)[i] = (int64_t) v; break;
    case NK_CUDA_I32: ((int32_t *) base)[i] = (int32_t) v; break;
    case NK_CUDA_U16: ((uint16_t *) base)[i] = (uint16_t) v; break;
    case NK_CUDA_U8: ((uint8_t *) base)[i] = (uint8_t) v; break;
    }
}

__global__ static void
nk_cast_kernel (NkIter it, NkCudaElem out_type, void *out, NkCudaElem in_type, const void *in)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < it.numel;
       i += (int64_t) gridDim.x * blockDim.x)
    nk_store (out_type, out, nk_iter_offset (&it, 0, i),
              nk_load (in_type, in, nk_iter_offset (&it, 1, i)));
}

__global__ static void
nk_fill_kernel (NkIter it, NkCudaElem type, void *out, double value)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < it.numel;
       i += (int64_t) gridDim.x * blockDim.x)
    nk_store (type, out, nk_iter_offset (&it, 0, i), value);
}

template <typename T>
__global__ static void
nk_unary_kernel (int op, NkIter it, T *out, const T *a)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < it.numel;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      T x = a[nk_iter_offset (&it, 1, i)];
      if (sizeof (T) == sizeof (double))
        out[nk_iter_offset (&it, 0, i)] = (T) nk_kernel_unary_d (op, (double) x);
      else
        out[nk_iter_offset (&it, 0, i)] = (T) nk_kernel_unary_f (op, (float) x);
    }
}

template <typename T>
__global__ static void
nk_binary_kernel (int op, NkIter it, T *out, const T *a, const T *b, double scalar,
                  int scalar_first)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < it.numel;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      double x = a[nk_iter_offset (&it, 1, i)];
      double y = b != NULL ? (double) b[nk_iter_offset (&it, 2, i)] : scalar;
      if (b == NULL && scalar_first)
        {
          double t = x;
          x = y;
          y = t;
        }
      if (sizeof (T) == sizeof (double))
        out[nk_iter_offset (&it, 0, i)] = (T) nk_kernel_binary_d (op, x, y);
      else
        out[nk_iter_offset (&it, 0, i)] = (T) nk_kernel_binary_f (op, (float) x, (float) y);
    }
}

/* ---- contiguous fast paths -----------------------------------------------------------
 * Operands that coalesce to one unit-stride dim skip the offset arithmetic, and each
 * thread loads NK_UNROLL elements before it stores any: one element a thread left too
 * few bytes in flight to reach HBM's rate (a cast ran at a quarter of it on an H200). */
#define NK_UNROLL 4

__device__ static float nk_widen (float x) { return x; }
__device__ static float nk_widen (__nv_bfloat16 x) { return __bfloat162float (x); }
__device__ static float nk_widen (__half x) { return __half2float (x); }
/* float → bf16/f16 rounds to nearest even, as the double path does: a float is exact
 * in double, so rounding either gives the same bits. */
__device__ static void nk_narrow (float v, float *out) { *out = v; }
__device__ static void nk_narrow (float v, __nv_bfloat16 *out) { *out = __float2bfloat16_rn (v); }
__device__ static void nk_narrow (float v, __half *out) { *out = __float2half_rn (v); }

template <typename In, typename Out>
__global__ static void
nk_cast_contiguous_kernel (int64_t n, Out *out, const In *in)
{
  int64_t stride = (int64_t) gridDim.x * blockDim.x;

  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n; i += stride * NK_UNROLL)
    {
      float v[NK_UNROLL];

      for (int k = 0; k < NK_UNROLL; k++)
        if (i + k * stride < n)
          v[k] = nk_widen (in[i + k * stride]);
      for (int k = 0; k < NK_UNROLL; k++)
        if (i + k * stride < n)
          nk_narrow (v[k], &out[i + k * stride]);
    }
}

/* float operands (b NULL: the scalar), as nk_binary_kernel<float> computes them. */
__global__ static void
nk_binary_contiguous_kernel (int op, int64_t n, float *out, const float *a, const float *b,
                             float scalar, int scalar_first)
{
  int64_t stride = (int64_t) gridDim.x * blockDim.x;

  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n; i += stride * NK_UNROLL)
    {
      float x[NK_UNROLL], y[NK_UNROLL];

      for (int k = 0; k < NK_UNROLL; k++)
        if (i + k * stride < n)
          {
            x[k] = a[i + k * stride];
            y[k] = b != NULL ? b[i + k * stride] : scalar;
          }
      for (int k = 0; k < NK_UNROLL; k++)
        if (i + k * stride < n)
          out[i + k * stride] = b == NULL && scalar_first ? nk_kernel_binary_f (op, y[k], x[k])
                                                          : nk_kernel_binary_f (op, x[k], y[k]);
    }
}

__global__ static void
nk_unary_contiguous_kernel (int op, int64_t n, float *out, const float *a)
{
  int64_t stride = (int64_t) gridDim.x * blockDim.x;

  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n; i += stride * NK_UNROLL)
    {
      float x[NK_UNROLL];

      for (int k = 0; k < NK_UNROLL; k++)
        if (i + k * stride < n)
          x[k] = a[i + k * stride];
      for (int k = 0; k < NK_UNROLL; k++)
        if (i + k * stride < n)
          out[i + k * stride] = nk_kernel_unary_f (op, x[k]);
    }
}

/* Whether operands 0 .. @nops - 1 of @it are one unit-stride run each. */
static bool
nk_iter_contiguous (const NkIter *it, int nops)
{
  if (it->ndim != 1)
    return false;
  for (int j = 0; j < nops; j++)
    if (it->stride[j][0] != 1)
      return false;
  return true;
}

/* Where output @o of a reduction reads its first element and writes its result. */
__device__ static void
nk_reduce_bases (const NkReduceIter *it, int64_t o, int64_t *in_base, int64_t *out_off)
{
  *in_base = it->in_offset;
  *out_off = it->out_offset;
  for (int d = it->ndim - it->nreduce - 1; d >= 0; d--)
    {
      int64_t idx = o % it->shape[d];
      o /= it->shape[d];
      *in_base += idx * it->in_stride[d];
      *out_off += idx * it->out_stride[d];
    }
}

/* The offset of reduced element @r (row-major over the reduced dims) from @in_base. */
__device__ static int64_t
nk_reduce_offset (const NkReduceIter *it, int64_t in_base, int64_t r)
{
  if (it->nreduce == 1)
    return in_base + r * it->in_stride[it->ndim - 1];
  for (int d = it->ndim - 1; d >= it->ndim - it->nreduce; d--)
    {
      in_base += (r % it->shape[d]) * it->in_stride[d];
      r /= it->shape[d];
    }
  return in_base;
}

/* Many outputs: one thread per output element, walking its reduced elements in order,
 * with the CPU device's order and double accumulator, so sums agree to rounding. */
template <typename T>
__global__ static void
nk_reduce_kernel (int op, NkReduceIter it, int64_t nout, T *out, const T *in)
{
  for (int64_t o = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; o < nout;
       o += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t in_base, out_off;
      double acc = nk_kernel_reduce_init (op);

      nk_reduce_bases (&it, o, &in_base, &out_off);
      for (int64_t r = 0; r < it.count; r++)
        acc = nk_kernel_reduce_step (op, acc, (double) in[nk_reduce_offset (&it, in_base, r)]);
      out[out_off] = (T) nk_kernel_reduce_finish (op, acc, it.count);
    }
}

/* Few outputs (a bias gradient, a loss): one thread each left the GPU all but idle.
 * Block (o, s) folds split s of output o's elements, its threads striding through
 * the split, into double sums that a tree in shared memory combines. With one split
 * the block writes the output; with several, a partial for nk_reduce_partials_kernel.
 * The order differs from the CPU's, the double accumulator does not. */
template <typename T>
__global__ static void
nk_reduce_block_kernel (int op, NkReduceIter it, int64_t splits, T *out, double *partials,
                        const T *in)
{
  __shared__ double lane[NK_THREADS];
  int64_t o = blockIdx.x, s = blockIdx.y;
  int64_t chunk = (it.count + splits - 1) / splits;
  int64_t end = (s + 1) * chunk < it.count ? (s + 1) * chunk : it.count;
  int64_t in_base, out_off;
  double acc = nk_kernel_reduce_init (op);

  nk_reduce_bases (&it, o, &in_base, &out_off);
  for (int64_t r = s * chunk + threadIdx.x; r < end; r += blockDim.x)
    acc = nk_kernel_reduce_step (op, acc, (double) in[nk_reduce_offset (&it, in_base, r)]);
  lane[threadIdx.x] = acc;
  __syncthreads ();
  for (unsigned int width = NK_THREADS / 2; width > 0; width /= 2)
    {
      if (threadIdx.x < width)
        lane[threadIdx.x] = nk_kernel_reduce_step (op, lane[threadIdx.x], lane[threadIdx.x + width]);
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    {
      if (splits == 1)
        out[out_off] = (T) nk_kernel_reduce_finish (op, lane[0], it.count);
      else
        partials[o * splits + s] = lane[0];
    }
}

/* Folds each output's partials in order and writes it. */
template <typename T>
__global__ static void
nk_reduce_partials_kernel (int op, NkReduceIter it, int64_t nout, int64_t splits, T *out,
                           const double *partials)
{
  for (int64_t o = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; o < nout;
       o += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t in_base, out_off;
      double acc = nk_kernel_reduce_init (op);

      nk_reduce_bases (&it, o, &in_base, &out_off);
      for (int64_t s = 0; s < splits; s++)
        acc = nk_kernel_reduce_step (op, acc, partials[o * splits + s]);
      out[out_off] = (T) nk_kernel_reduce_finish (op, acc, it.count);
    }
}

template <typename T>
__global__ static void
nk_triangle_kernel (int upper, int64_t diagonal, NkIter it, T *out, const T *in)
{
  int64_t rows = it.ndim >= 2 ? it.shape[it.ndim - 2] : 1;
  int64_t cols = it.ndim >= 1 ? it.shape[it.ndim - 1] : 1;
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < it.numel;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t col = i % cols, row = (i / cols) % rows;
      int keep = upper ? (col - row >= diagonal) : (col - row <= diagonal);
      out[nk_iter_offset (&it, 0, i)] = keep ? in[nk_iter_offset (&it, 1, i)] : (T) 0;
    }
}

__global__ static void
nk_optimizer_kernel (NkOptimStep step, int64_t n, float *param, const float *grad,
                     float *state1, float *state2)
{
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    nk_kernel_optim_update (&step, &param[i], grad[i], state1 ? &state1[i] : NULL,
                            state2 ? &state2[i] : NULL);
}

/* Row sums across a warp (every lane gets the total). */
__device__ static double
nk_warp_sum (double v)
{
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, o);
  return v;
}

__device__ static double
nk_warp_max (double v)
{
  for (int o = 16; o > 0; o >>= 1)
    {
      double u = __shfl_xor_sync (0xffffffffu, v, o);
      v = u > v ? u : v;
    }
  return v;
}

/* LayerNorm and the causal softmax, a warp per row: lanes stride the row (coalesced
 * loads), partial sums in double meet through shuffles, and each element goes through
 * the body the CPU's row loop uses. Rows are warp-uniform, so every lane reaches each
 * shuffle. */
#define NK_DEFINE_WARP_ROWS_KERNEL(T, S)                                             \
__global__ static void                                                               \
nk_rows_warp_kernel_##S (NkRowsCall c)                                               \
{                                                                                    \
  const T *in0 = (const T *) c.in[0], *in1 = (const T *) c.in[1];                    \
  const T *in2 = (const T *) c.in[2], *in3 = (const T *) c.in[3];                    \
  const T *in4 = (const T *) c.in[4];                                                \
  T *o0 = (T *) c.out[0], *o1 = (T *) c.out[1], *o2 = (T *) c.out[2];                \
  int64_t n = c.cols;                                                                \
  int lane = threadIdx.x & 31;                                                       \
  int64_t warps = ((int64_t) gridDim.x * blockDim.x) / 32;                           \
  for (int64_t r = (blockIdx.x * (int64_t) blockDim.x + threadIdx.x) / 32;           \
       r < c.rows; r += warps)                                                       \
    {                                                                                \
      const T *x = in0 + r * n;                                                      \
      T *y = o0 + r * n;                                                             \
      switch (c.op)                                                                  \
        {                                                                            \
        case NK_ROWS_LAYERNORM:                                                      \
          {                                                                          \
            double sum = 0.0, var = 0.0, mean, rstd;                                 \
            for (int64_t j = lane; j < n; j += 32)                                   \
              sum += (double) x[j];                                                  \
            mean = n > 0 ? nk_warp_sum (sum) / (double) n : 0.0;                     \
            for (int64_t j = lane; j < n; j += 32)                                   \
              var += ((double) x[j] - mean) * ((double) x[j] - mean);                \
            var = nk_warp_sum (var);                                                 \
            rstd = 1.0 / sqrt ((n > 0 ? var / (double) n : 0.0) + c.scalar);         \
            for (int64_t j = lane; j < n; j += 32)                                   \
              y[j] = (T) nk_kernel_layernorm_elem ((double) x[j], mean, rstd,        \
                                                   in1 ? (double) in1[j] : 1.0,      \
                                                   in2 ? (double) in2[j] : 0.0);     \
            if (lane == 0)                                                           \
              {                                                                      \
                o1[r] = (T) mean;                                                    \
                o2[r] = (T) rstd;                                                    \
              }                                                                      \
          }                                                                          \
          break;                                                                     \
        case NK_ROWS_LAYERNORM_DX:                                                   \
          {                                                                          \
            const T *dy = in4 + r * n;                                               \
            double mean = (double) in2[r], rstd = (double) in3[r], s1 = 0.0, s2 = 0.0; \
            for (int64_t j = lane; j < n; j += 32)                                   \
              {                                                                      \
                double dxh = (double) dy[j] * (in1 ? (double) in1[j] : 1.0);         \
                s1 += dxh;                                                           \
                s2 += dxh * (((double) x[j] - mean) * rstd);                         \
              }                                                                      \
            s1 = n > 0 ? nk_warp_sum (s1) / (double) n : 0.0;                        \
            s2 = n > 0 ? nk_warp_sum (s2) / (double) n : 0.0;                        \
            for (int64_t j = lane; j < n; j += 32)                                   \
              y[j] = (T) nk_kernel_layernorm_dx_elem ((double) x[j],                 \
                                                      in1 ? (double) in1[j] : 1.0,   \
                                                      (double) dy[j], mean, rstd,    \
                                                      s1, s2);                       \
          }                                                                          \
          break;                                                                     \
        case NK_ROWS_SOFTMAX_CAUSAL:                                                 \
          {                                                                          \
            int64_t i = r % c.period, last = i < n - 1 ? i : n - 1;                  \
            double m = -INFINITY, sum = 0.0;                                         \
            for (int64_t j = lane; j <= last; j += 32)                               \
              {                                                                      \
                double v = c.scalar * (double) x[j];                                 \
                m = v > m ? v : m;                                                   \
              }                                                                      \
            m = nk_warp_max (m);                                                     \
            for (int64_t j = lane; j <= last; j += 32)                               \
              {                                                                      \
                double e = exp (c.scalar * (double) x[j] - m);                       \
                y[j] = (T) e;                                                        \
                sum += e;                                                            \
              }                                                                      \
            sum = nk_warp_sum (sum);                                                 \
            for (int64_t j = lane; j < n; j += 32)                                   \
              y[j] = j <= last ? (T) ((double) y[j] / sum) : (T) 0;                  \
          }                                                                          \
          break;                                                                     \
        case NK_ROWS_CROSS_ENTROPY:                                                  \
        case NK_ROWS_CROSS_ENTROPY_BACKWARD:                                         \
          {                                                                          \
            const int64_t *tg = (const int64_t *) c.in[5];                           \
            double m = -INFINITY, sum = 0.0, lse;                                    \
            for (int64_t j = lane; j < n; j += 32)                                   \
              m = (double) x[j] > m ? (double) x[j] : m;                             \
            m = nk_warp_max (m);                                                     \
            for (int64_t j = lane; j < n; j += 32)                                   \
              sum += exp ((double) x[j] - m);                                        \
            lse = m + log (nk_warp_sum (sum));                                       \
            if (c.op == NK_ROWS_CROSS_ENTROPY)                                       \
              {                                                                      \
                if (lane == 0)                                                       \
                  ((double *) c.out[0])[r] = lse - (double) x[tg[r]];                \
              }                                                                      \
            else                                                                     \
              for (int64_t j = lane; j < n; j += 32)                                 \
                y[j] = (T) nk_kernel_cross_entropy_dx_elem ((double) x[j], lse,      \
                                                            j == tg[r],              \
                                                            c.scalar * (double) in1[0]); \
          }                                                                          \
          break;                                                                     \
        case NK_ROWS_SOFTMAX_CAUSAL_BACKWARD:                                        \
          {                                                                          \
            const T *dy = in4 + r * n;                                               \
            int64_t i = r % c.period, last = i < n - 1 ? i : n - 1;                  \
            double dot = 0.0;                                                        \
            for (int64_t j = lane; j <= last; j += 32)                               \
              dot += (double) dy[j] * (double) x[j];                                 \
            dot = nk_warp_sum (dot);                                                 \
            for (int64_t j = lane; j < n; j += 32)                                   \
              y[j] = j <= last ? (T) nk_kernel_softmax_dx_elem ((double) x[j],       \
                                                                (double) dy[j], dot, \
                                                                c.scalar)            \
                               : (T) 0;                                              \
          }                                                                          \
          break;                                                                     \
        }                                                                            \
    }                                                                                \
  (void) in3;                                                                        \
}

NK_DEFINE_WARP_ROWS_KERNEL (float, f)
NK_DEFINE_WARP_ROWS_KERNEL (double, d)

/* The row kernels of LayerNorm, causal softmax and embeddings: a thread per row
 * (per column for LayerNorm's parameter gradients, per element for the gather and
 * the scatter), each running the body the CPU runs, in the same order. The scatter
 * sums a token's rows in position order: deterministic, no atomics. */
#define NK_DEFINE_ROWS_KERNEL(T, S)                                                  \
__global__ static void                                                               \
nk_rows_kernel_##S (NkRowsCall c, int64_t items)                                     \
{                                                                                    \
  const T *in0 = (const T *) c.in[0], *in1 = (const T *) c.in[1];                    \
  const T *in2 = (const T *) c.in[2], *in3 = (const T *) c.in[3];                    \
  const T *in4 = (const T *) c.in[4];                                                \
  const int64_t *i5 = (const int64_t *) c.in[5], *i6 = (const int64_t *) c.in[6];    \
  T *o0 = (T *) c.out[0], *o1 = (T *) c.out[1], *o2 = (T *) c.out[2];                \
  int64_t n = c.cols;                                                                \
  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < items;       \
       i += (int64_t) gridDim.x * blockDim.x)                                        \
    switch (c.op)                                                                    \
      {                                                                              \
      case NK_ROWS_LAYERNORM:                                                        \
        nk_kernel_layernorm_row_##S (in0 + i * n, in1, in2, n, c.scalar, o0 + i * n, \
                                     o1 + i, o2 + i);                                \
        break;                                                                       \
      case NK_ROWS_LAYERNORM_DX:                                                     \
        nk_kernel_layernorm_backward_row_##S (in0 + i * n, in1, in2[i], in3[i],      \
                                              in4 + i * n, n, o0 + i * n, NULL,      \
                                              NULL);                                 \
        break;                                                                       \
      case NK_ROWS_LAYERNORM_PARAMS:                                                 \
        {                                                                            \
          /* Pass 1 (items = chunks·cols): chunk sums into the scratch; pass 2     \
           * (period = -1, items = cols): the chunks in order. */                    \
          double *part = (double *) c.out[2];                                        \
          int64_t chunks = (c.rows + NK_ROWS_CHUNK - 1) / NK_ROWS_CHUNK;             \
          if (c.period >= 0)                                                         \
            {                                                                        \
              int64_t k = i / n, j = i % n, r1 = (k + 1) * NK_ROWS_CHUNK;            \
              nk_kernel_layernorm_params_col_##S (in0, in2, in3, in4,                \
                                                  k * NK_ROWS_CHUNK,                 \
                                                  r1 < c.rows ? r1 : c.rows, n, j,   \
                                                  &part[i], &part[chunks * n + i]);  \
              break;                                                                 \
            }                                                                        \
          double dw = 0.0, db = 0.0;                                                 \
          for (int64_t k = 0; k < chunks; k++)                                       \
            {                                                                        \
              dw += part[k * n + i];                                                 \
              db += part[chunks * n + k * n + i];                                    \
            }                                                                        \
          if (o0 != NULL)                                                            \
            o0[i] = (T) ((c.accumulate ? (double) o0[i] : 0.0) + dw);                \
          if (o1 != NULL)                                                            \
            o1[i] = (T) ((c.accumulate ? (double) o1[i] : 0.0) + db);                \
        }                                                                            \
        break;                                                                       \
      case NK_ROWS_SOFTMAX_CAUSAL:                                                   \
        nk_kernel_softmax_causal_row_##S (in0 + i * n, i % c.period, n, c.scalar,    \
                                          o0 + i * n);                               \
        break;                                                                       \
      case NK_ROWS_SOFTMAX_CAUSAL_BACKWARD:                                          \
        nk_kernel_softmax_causal_backward_row_##S (in0 + i * n, in4 + i * n,         \
                                                   i % c.period, n, c.scalar,        \
                                                   o0 + i * n);                      \
        break;                                                                       \
      case NK_ROWS_GATHER:                                                           \
        o0[i] = in0[i5[i / n] * n + i % n];                                          \
        break;                                                                       \
      case NK_ROWS_CROSS_ENTROPY:                                                    \
        {                                                                            \
          /* The mean in row order, as the CPU sums it. */                           \
          const double *loss = (const double *) c.out[0];                            \
          double acc = 0.0;                                                          \
          for (int64_t r = 0; r < c.rows; r++)                                       \
            acc += loss[r];                                                          \
          *o1 = (T) (acc / (double) (c.rows > 0 ? c.rows : 1));                      \
        }                                                                            \
        break;                                                                       \
      case NK_ROWS_SCATTER:                                                          \
        {                                                                            \
          double acc = nk_kernel_scatter_rows_##S (in4, i5, i6, n, i / n, i % n);    \
          o0[i] = (T) ((c.accumulate ? (double) o0[i] : 0.0) + acc);                 \
        }                                                                            \
        break;                                                                       \
      }                                                                              \
  (void) o2;                                                                         \
}

NK_DEFINE_ROWS_KERNEL (float, f)
NK_DEFINE_ROWS_KERNEL (double, d)

extern "C" int
nk_cuda_launch_cast (void *stream, const NkIter *it, NkCudaElem out_type, void *out,
                     NkCudaElem in_type, const void *in)
{
  cudaStream_t s = (cudaStream_t) stream;
  unsigned int blocks = nk_blocks_for ((it->numel + NK_UNROLL - 1) / NK_UNROLL);
  int64_t n = it->numel;

  if (nk_iter_contiguous (it, 2))
    {
      char *o = (char *) out;
      const char *x = (const char *) in;

      /* The mixed-precision step's casts: master weights and activations to bf16/f16,
       * gradients back to f32. */
      if (in_type == NK_CUDA_F32 && out_type == NK_CUDA_BF16)
        {
          NK_LAUNCH ((nk_cast_contiguous_kernel<float, __nv_bfloat16>), blocks, NK_THREADS, 0, s) (
            n, (__nv_bfloat16 *) o + it->offset[0], (const float *) x + it->offset[1]);
          return (int) cudaGetLastError ();
        }
      if (in_type == NK_CUDA_BF16 && out_type == NK_CUDA_F32)
        {
          NK_LAUNCH ((nk_cast_contiguous_kernel<__nv_bfloat16, float>), blocks, NK_THREADS, 0, s) (
            n, (float *) o + it->offset[0], (const __nv_bfloat16 *) x + it->offset[1]);
          return (int) cudaGetLastError ();
        }
      if (in_type == NK_CUDA_F32 && out_type == NK_CUDA_F16)
        {
          NK_LAUNCH ((nk_cast_contiguous_kernel<float, __half>), blocks, NK_THREADS, 0, s) (
            n, (__half *) o + it->offset[0], (const float *) x + it->offset[1]);
          return (int) cudaGetLastError ();
        }
      if (in_type == NK_CUDA_F16 && out_type == NK_CUDA_F32)
        {
          NK_LAUNCH ((nk_cast_contiguous_kernel<__half, float>), blocks, NK_THREADS, 0, s) (
            n, (float *) o + it->offset[0], (const __half *) x + it->offset[1]);
          return (int) cudaGetLastError ();
        }
    }
  NK_LAUNCH (nk_cast_kernel, nk_blocks_for (it->numel), NK_THREADS, 0, s) (
    *it, out_type, out, in_type, in);
  return (int) cudaGetLastError ();
}

extern "C" int
nk_cuda_launch_fill (void *stream, const NkIter *it, NkCudaElem type, void *out, double value)
{
  NK_LAUNCH (nk_fill_kernel, nk_blocks_for (it->numel), NK_THREADS, 0, (cudaStream_t) stream) (
    *it, type, out, value);
  return (int) cudaGetLastError ();
}

extern "C" int
nk_cuda_launch_unary (void *stream, int op, const NkIter *it, int is_f64, void *out,
                      const void *a)
{
  if (is_f64)
    NK_LAUNCH (nk_unary_kernel<double>, nk_blocks_for (it->numel), NK_THREADS, 0,
               (cudaStream_t) stream) (
      op, *it, (double *) out, (const double *) a);
  else if (nk_iter_contiguous (it, 2))
    NK_LAUNCH (nk_unary_contiguous_kernel, nk_blocks_for ((it->numel + NK_UNROLL - 1) / NK_UNROLL),
               NK_THREADS, 0, (cudaStream_t) stream) (
      op, it->numel, (float *) out + it->offset[0], (const float *) a + it->offset[1]);
  else
    NK_LAUNCH (nk_unary_kernel<float>, nk_blocks_for (it->numel), NK_THREADS, 0,
               (cudaStream_t) stream) (
      op, *it, (float *) out, (const float *) a);
  return (int) cudaGetLastError ();
}

extern "C" int
nk_cuda_launch_binary (void *stream, int op, const NkIter *it, int is_f64, void *out,
                       const void *a, const void *b, double scalar, int scalar_first)
{
  if (is_f64)
    NK_LAUNCH (nk_binary_kernel<double>, nk_blocks_for (it->numel), NK_THREADS, 0,
               (cudaStream_t) stream) (
      op, *it, (double *) out, (const double *) a, (const double *) b, scalar, scalar_first);
  else if (nk_iter_contiguous (it, b != NULL ? 3 : 2))
    NK_LAUNCH (nk_binary_contiguous_kernel, nk_blocks_for ((it->numel + NK_UNROLL - 1) / NK_UNROLL),
               NK_THREADS, 0, (cudaStream_t) stream) (
      op, it->numel, (float *) out + it->offset[0], (const float *) a + it->offset[1],
      b != NULL ? (const float *) b + it->offset[2] : NULL, (float) scalar, scalar_first);
  else
    NK_LAUNCH (nk_binary_kernel<float>, nk_blocks_for (it->numel), NK_THREADS, 0,
               (cudaStream_t) stream) (
      op, *it, (float *) out, (const float *) a, (const float *) b, scalar, scalar_first);
  return (int) cudaGetLastError ();
}

/* A thread per output once there are this many outputs; below, blocks per output. */
#define NK_REDUCE_THREAD_PER_OUTPUT 65536
/* About as many blocks as keep every SM busy, when outputs are few and long; the
 * partials of split reductions fit the scratch. */
#define NK_REDUCE_TARGET_BLOCKS NK_CUDA_REDUCE_PARTIALS

template <typename T>
static void
nk_reduce_launch (cudaStream_t stream, int op, const NkReduceIter *it, int64_t nout, T *out,
                  const T *in, double *partials)
{
  int64_t splits = 1;

  if (nout >= NK_REDUCE_THREAD_PER_OUTPUT)
    {
      NK_LAUNCH (nk_reduce_kernel<T>, nk_blocks_for (nout), NK_THREADS, 0, stream) (
        op, *it, nout, out, in);
      return;
    }
  /* Split long reductions until the blocks fill the GPU, each split at least eight
   * elements a thread; the partials fit the scratch (nout · splits <= the target). */
  while (splits * 2 * nout <= NK_REDUCE_TARGET_BLOCKS && it->count / (splits * 2) >= 8 * NK_THREADS)
    splits *= 2;
  {
    dim3 grid ((unsigned int) nout, (unsigned int) splits);

    NK_LAUNCH (nk_reduce_block_kernel<T>, grid, NK_THREADS, 0, stream) (
      op, *it, splits, out, partials, in);
  }
  if (splits > 1)
    NK_LAUNCH (nk_reduce_partials_kernel<T>, nk_blocks_for (nout), NK_THREADS, 0, stream) (
      op, *it, nout, splits, out, partials);
}

extern "C" int
nk_cuda_launch_reduce (void *stream, int op, const NkReduceIter *it, int is_f64, void *out,
                       const void *in, double *partials)
{
  int64_t nout = 1;
  for (int d = 0; d < it->ndim - it->nreduce; d++)
    nout *= it->shape[d];
  if (nout == 0)
    return (int) cudaGetLastError ();
  if (is_f64)
    nk_reduce_launch ((cudaStream_t) stream, op, it, nout, (double *) out, (const double *) in,
                      partials);
  else
    nk_reduce_launch ((cudaStream_t) stream, op, it, nout, (float *) out, (const float *) in,
                      partials);
  return (int) cudaGetLastError ();
}

extern "C" int
nk_cuda_launch_triangle (void *stream, int upper, int64_t diagonal, const NkIter *it,
                         int is_f64, void *out, const void *in)
{
  if (is_f64)
    NK_LAUNCH (nk_triangle_kernel<double>, nk_blocks_for (it->numel), NK_THREADS, 0,
               (cudaStream_t) stream) (
      upper, diagonal, *it, (double *) out, (const double *) in);
  else
    NK_LAUNCH (nk_triangle_kernel<float>, nk_blocks_for (it->numel), NK_THREADS, 0,
               (cudaStream_t) stream) (
      upper, diagonal, *it, (float *) out, (const float *) in);
  return (int) cudaGetLastError ();
}

extern "C" int
nk_cuda_launch_optimizer (void *stream, const NkOptimStep *step, int64_t n, float *param,
                          const float *grad, float *state1, float *state2)
{
  NK_LAUNCH (nk_optimizer_kernel, nk_blocks_for (n), NK_THREADS, 0, (cudaStream_t) stream) (
    *step, n, param, grad, state1, state2);
  return (int) cudaGetLastError ();
}

static int
nk_cuda_launch_items (void *stream, int is_f64, const NkRowsCall *call, int64_t items)
{
  if (items <= 0)
    return 0;
  if (is_f64)
    NK_LAUNCH (nk_rows_kernel_d, nk_blocks_for (items), NK_THREADS, 0, (cudaStream_t) stream) (
      *call, items);
  else
    NK_LAUNCH (nk_rows_kernel_f, nk_blocks_for (items), NK_THREADS, 0, (cudaStream_t) stream) (
      *call, items);
  return (int) cudaGetLastError ();
}

extern "C" int
nk_cuda_launch_rows (void *stream, int is_f64, const NkRowsCall *call)
{
  int64_t items;

  switch (call->op)
    {
    case NK_ROWS_LAYERNORM_PARAMS: items = call->cols; break;
    case NK_ROWS_GATHER: items = call->rows * call->cols; break;
    case NK_ROWS_SCATTER: items = call->vocab * call->cols; break;
    default: items = call->rows; break;
    }
  if (items <= 0)
    return 0;
  if (call->op == NK_ROWS_LAYERNORM || call->op == NK_ROWS_LAYERNORM_DX
      || call->op == NK_ROWS_SOFTMAX_CAUSAL || call->op == NK_ROWS_SOFTMAX_CAUSAL_BACKWARD
      || call->op == NK_ROWS_CROSS_ENTROPY || call->op == NK_ROWS_CROSS_ENTROPY_BACKWARD)
    {
      /* A warp per row. */
      if (is_f64)
        NK_LAUNCH (nk_rows_warp_kernel_d, nk_blocks_for (items * 32), NK_THREADS, 0,
                   (cudaStream_t) stream) (*call);
      else
        NK_LAUNCH (nk_rows_warp_kernel_f, nk_blocks_for (items * 32), NK_THREADS, 0,
                   (cudaStream_t) stream) (*call);
      if (call->op != NK_ROWS_CROSS_ENTROPY || cudaPeekAtLastError () != cudaSuccess)
        return (int) cudaGetLastError ();
      /* Then the mean of the rows' losses. */
      return nk_cuda_launch_items (stream, is_f64, call, 1);
    }
  if (call->op == NK_ROWS_LAYERNORM_PARAMS)
    {
      /* Chunk sums (a thread per chunk and column), then the chunks in order. */
      NkRowsCall second = *call;
      int64_t chunks = (call->rows + NK_ROWS_CHUNK - 1) / NK_ROWS_CHUNK;
      int status;

      second.period = -1;
      if (call->out[2] == NULL)
        return (int) cudaErrorInvalidValue;
      if ((status = nk_cuda_launch_items (stream, is_f64, call, chunks * call->cols)) != 0)
        return status;
      return nk_cuda_launch_items (stream, is_f64, &second, call->cols);
    }
  return nk_cuda_launch_items (stream, is_f64, call, items);
}

/* ---- block quantization ------------------------------------------------------------
 * A thread per block of the format (16 or 32 elements, a warp covering 32 neighbouring
 * blocks of a row or two), its math nk_qk_block()'s — the function the CPU tests hold
 * equal to nk_quantize_fake_f32() through the host emulation. NVFP4 first finds the
 * tensor's amax (a max of bit patterns, which order as the magnitudes do). */
#define NK_QUANT_AMAX_BLOCKS 1024

__global__ static void
nk_quant_amax_kernel (int64_t n, const float *src, unsigned int *amax)
{
  unsigned int m = 0;

  for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      unsigned int v = nk_qk_f2u (src[i]) & 0x7fffffffu;
      m = v > m ? v : m;
    }
  for (int o = 16; o > 0; o >>= 1)
    {
      unsigned int u = __shfl_xor_sync (0xffffffffu, m, o);
      m = u > m ? u : m;
    }
  if ((threadIdx.x & 31) == 0 && m != 0)
    atomicMax (amax, m);
}

__global__ static void
nk_quant_blocks_kernel (NkQuantizeCall c, int64_t nblocks, const unsigned int *amax)
{
  float s_t = c.nvfp4 ? nk_qk_nvfp4_tensor_scale (*amax) : 0.0f;
  unsigned long long flushed = 0, clipped = 0;

  for (int64_t q = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; q < nblocks;
       q += (int64_t) gridDim.x * blockDim.x)
    nk_qk_block (&c, s_t, q, &flushed, &clipped);
  if (flushed != 0)
    atomicAdd (&c.counts[0], flushed);
  if (clipped != 0)
    atomicAdd (&c.counts[1], clipped);
}

/* NVFP4's weight-gradient rotation, a thread per block of 16: src → dst. */
__global__ static void
nk_quant_rotate_kernel (NkQuantizeCall c, int64_t nblocks)
{
  for (int64_t q = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; q < nblocks;
       q += (int64_t) gridDim.x * blockDim.x)
    nk_qk_rotate16 (c.src + q * NK_QK_ROTATION, c.dst + q * NK_QK_ROTATION, c.rotation);
}

extern "C" int
nk_cuda_launch_quantize (void *stream, const NkQuantizeCall *asked, unsigned int *amax)
{
  cudaStream_t s = (cudaStream_t) stream;
  NkQuantizeCall quantize = *asked;
  const NkQuantizeCall *call = &quantize;
  int64_t n = call->rows * call->cols;
  int64_t nblocks = call->rows * ((call->cols + call->block - 1) / call->block);
  unsigned int amax_blocks = nk_blocks_for (n);

  if (n == 0)
    return 0;
  if (asked->rotate)
    {
      /* rotated into dst first; then dst is quantized in place */
      if (call->cols % NK_QK_ROTATION != 0)
        return (int) cudaErrorInvalidValue;
      NK_LAUNCH (nk_quant_rotate_kernel, nk_blocks_for (n / NK_QK_ROTATION), NK_THREADS, 0, s) (
        *asked, n / NK_QK_ROTATION);
      if (cudaPeekAtLastError () != cudaSuccess)
        return (int) cudaGetLastError ();
      quantize.src = quantize.dst;
      quantize.rotate = 0;
    }
  if (call->nvfp4)
    {
      cudaError_t status = cudaMemsetAsync (amax, 0, sizeof *amax, s);

      if (status != cudaSuccess)
        return (int) status;
      NK_LAUNCH (nk_quant_amax_kernel,
                 amax_blocks < NK_QUANT_AMAX_BLOCKS ? amax_blocks : NK_QUANT_AMAX_BLOCKS,
                 NK_THREADS, 0, s) (n, call->src, amax);
      if (cudaPeekAtLastError () != cudaSuccess)
        return (int) cudaGetLastError ();
    }
  NK_LAUNCH (nk_quant_blocks_kernel, nk_blocks_for (nblocks), NK_THREADS, 0, s) (
    *call, nblocks, call->nvfp4 ? amax : NULL);
  return (int) cudaGetLastError ();
}
