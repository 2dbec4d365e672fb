/* cuda_runtime.h (host emulation): the subset of the CUDA runtime Napkin's device uses
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A test harness, never shipped: it lets src/gpu's own sources build with gcc/g++ and
 * run on the CPU (see src/gpu/emu/README.md). Names, signatures and error numbers are
 * those of CUDA 13's headers, so code that compiles here compiles against the toolkit;
 * only what the module needs is declared, so using anything else fails to build here
 * first. Device code (kernels) compiles as C++: __global__ is a plain function, the
 * built-in indices are per-thread variables the launcher sets, __syncthreads and the
 * warp intrinsics suspend the calling thread's fiber (nk-emu-launch.c).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------------------- */

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
} cudaError_t;

const char *cudaGetErrorString (cudaError_t error);
const char *cudaGetErrorName (cudaError_t error);
cudaError_t cudaGetLastError (void);
cudaError_t cudaPeekAtLastError (void);

/* ---- devices --------------------------------------------------------------------- */

/* A subset of CUDA 13's struct, same field names (fields CUDA 13 removed, such as
 * clockRate, are absent here too: read them with cudaDeviceGetAttribute). */
struct cudaDeviceProp {
  char   name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int    regsPerBlock;
  int    warpSize;
  int    maxThreadsPerBlock;
  int    maxThreadsDim[3];
  int    maxGridSize[3];
  int    major;
  int    minor;
  int    multiProcessorCount;
  int    l2CacheSize;
  int    maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
};

cudaError_t cudaGetDeviceCount (int *count);
cudaError_t cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaSetDevice (int device);
cudaError_t cudaGetDevice (int *device);
cudaError_t cudaDeviceSynchronize (void);
cudaError_t cudaDriverGetVersion (int *version);
cudaError_t cudaRuntimeGetVersion (int *version);
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes);

/* ---- memory ---------------------------------------------------------------------- */

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

cudaError_t cudaMalloc (void **ptr, size_t size);
cudaError_t cudaFree (void *ptr);
cudaError_t cudaMallocHost (void **ptr, size_t size);
cudaError_t cudaFreeHost (void *ptr);
cudaError_t cudaMemcpy (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t count,
                             enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset (void *ptr, int value, size_t count);
cudaError_t cudaMemsetAsync (void *ptr, int value, size_t count, cudaStream_t stream);

/* ---- streams and events ---------------------------------------------------------- */

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02

cudaError_t cudaStreamCreate (cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy (cudaStream_t stream);
cudaError_t cudaStreamSynchronize (cudaStream_t stream);
cudaError_t cudaStreamQuery (cudaStream_t stream);
cudaError_t cudaStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaEventCreate (cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy (cudaEvent_t event);
cudaError_t cudaEventRecord (cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery (cudaEvent_t event);
cudaError_t cudaEventSynchronize (cudaEvent_t event);
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end);

/* ---- library types (library_types.h) --------------------------------------------- */

typedef enum cudaDataType_t {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_16BF = 14,
} cudaDataType_t;
typedef cudaDataType_t cudaDataType;

/* ---- device side: geometry and the launcher's C entry points ---------------------- */

typedef struct uint3 { unsigned int x, y, z; } uint3;

/* The indices of the CUDA thread now running, set by the launcher for each fiber. */
extern __thread uint3 nk_emu_thread_idx, nk_emu_block_idx, nk_emu_block_dim, nk_emu_grid_dim;

/* One launch: @thread_fn runs once per CUDA thread with @closure; @destroy frees it
 * once the kernel ran (or the launch was refused). Returns the launch's error. */
cudaError_t nk_emu_launch_raw (const unsigned int grid[3], const unsigned int block[3],
                               size_t shared_bytes, cudaStream_t stream,
                               void (*thread_fn) (void *closure), void *closure,
                               void (*destroy) (void *closure), const char *name,
                               const char *bad_argument);
/* NULL when @ptr is NULL or points into device (or pinned) memory; otherwise why not. */
const char *nk_emu_check_kernel_pointer (const void *ptr);
void     nk_emu_syncthreads (void);
void     nk_emu_syncwarp (unsigned int mask);
uint64_t nk_emu_warp_shuffle (unsigned int mask, uint64_t bits, int src_lane);
unsigned int nk_emu_warp_ballot (unsigned int mask, int predicate);

#ifdef __cplusplus
}
#endif

#define threadIdx nk_emu_thread_idx
#define blockIdx nk_emu_block_idx
#define blockDim nk_emu_block_dim
#define gridDim nk_emu_grid_dim

#ifdef __cplusplus
# include <cmath>
# include <cstring>
# include <tuple>
# include <type_traits>
# include <utility>

# define __global__
# define __device__
# define __host__
# define __forceinline__ inline
/* Each OS thread runs one block at a time: its statics are that block's shared memory. */
# define __shared__ static thread_local
# define __syncthreads() nk_emu_syncthreads ()

static constexpr int warpSize = 32;

struct dim3 {
  unsigned int x, y, z;
  dim3 (unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x (vx), y (vy), z (vz) {}
  dim3 (uint3 v) : x (v.x), y (v.y), z (v.z) {}
};

inline float rsqrtf (float x) { return 1.0f / std::sqrt (x); }
inline double rsqrt (double x) { return 1.0 / std::sqrt (x); }
inline float __expf (float x) { return std::exp (x); }
inline float __logf (float x) { return std::log (x); }
inline float __fdividef (float x, float y) { return x / y; }
template <typename T> inline T __ldg (const T *p) { return *p; }
/* CUDA's device max/min overloads. */
inline int max (int a, int b) { return a > b ? a : b; }
inline int min (int a, int b) { return a < b ? a : b; }
inline unsigned int max (unsigned int a, unsigned int b) { return a > b ? a : b; }
inline unsigned int min (unsigned int a, unsigned int b) { return a < b ? a : b; }
inline long long max (long long a, long long b) { return a > b ? a : b; }
inline long long min (long long a, long long b) { return a < b ? a : b; }
inline float max (float a, float b) { return std::fmax (a, b); }
inline float min (float a, float b) { return std::fmin (a, b); }
inline double max (double a, double b) { return std::fmax (a, b); }
inline double min (double a, double b) { return std::fmin (a, b); }
/* One block runs at a time per OS thread and its fibers never preempt each other. */
template <typename T> inline T atomicAdd (T *p, T v) { T old = *p; *p = old + v; return old; }
template <typename T> inline T atomicMax (T *p, T v) { T old = *p; *p = old > v ? old : v; return old; }

template <typename T>
inline T
nk_emu_shfl_bits (unsigned int mask, T var, int src_lane)
{
  static_assert (sizeof (T) <= sizeof (uint64_t), "shuffles move at most 64 bits");
  uint64_t bits = 0;
  std::memcpy (&bits, &var, sizeof (T));
  bits = nk_emu_warp_shuffle (mask, bits, src_lane);
  std::memcpy (&var, &bits, sizeof (T));
  return var;
}

inline int
nk_emu_lane (void)
{
  unsigned int linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return (int) (linear % 32u);
}

template <typename T>
inline T
__shfl_sync (unsigned int mask, T var, int src_lane, int width = 32)
{
  int lane = nk_emu_lane ();
  return nk_emu_shfl_bits (mask, var, (lane / width) * width + ((src_lane % width + width) % width));
}

template <typename T>
inline T
__shfl_down_sync (unsigned int mask, T var, unsigned int delta, int width = 32)
{
  int lane = nk_emu_lane (), in_group = lane % width;
  return nk_emu_shfl_bits (mask, var, in_group + (int) delta < width ? lane + (int) delta : lane);
}

template <typename T>
inline T
__shfl_up_sync (unsigned int mask, T var, unsigned int delta, int width = 32)
{
  int lane = nk_emu_lane (), in_group = lane % width;
  return nk_emu_shfl_bits (mask, var, in_group >= (int) delta ? lane - (int) delta : lane);
}

template <typename T>
inline T
__shfl_xor_sync (unsigned int mask, T var, int lane_mask, int width = 32)
{
  int lane = nk_emu_lane (), src = lane ^ lane_mask;
  return nk_emu_shfl_bits (mask, var, src / width == lane / width ? src : lane);
}

inline unsigned int __ballot_sync (unsigned int mask, int p) { return nk_emu_warp_ballot (mask, p); }
inline int __any_sync (unsigned int mask, int p) { return nk_emu_warp_ballot (mask, p) != 0; }
inline int __all_sync (unsigned int mask, int p) { return nk_emu_warp_ballot (mask, p) == mask; }
inline void __syncwarp (unsigned int mask = 0xffffffffu) { nk_emu_syncwarp (mask); }

/* The launcher: NK_LAUNCH (kernel, grid, block, shared, stream) (args...) in the
 * sources expands to `kernel<<<...>>> (args...)` under nvcc and to this otherwise.
 * Arguments are converted to the kernel's parameter types and copied at launch, as
 * CUDA does; a pointer argument that is neither NULL nor device memory is refused the
 * way a GPU would fault on it. */
template <typename... P>
struct NkEmuLauncher {
  void (*kernel) (P...);
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
  const char *name;

  template <typename T>
  static void
  check_argument (const T &value, const char **bad)
  {
    if constexpr (std::is_pointer_v<T>)
      if (*bad == nullptr)
        *bad = nk_emu_check_kernel_pointer ((const void *) value);
  }

  template <typename... A>
  void
  operator() (A &&...args) const
  {
    using Args = std::tuple<std::decay_t<P>...>;
    struct Closure { void (*kernel) (P...); Args args; };
    const char *bad = nullptr;
    Closure *closure = new Closure{ kernel, Args (std::forward<A> (args)...) };
    std::apply ([&bad] (const auto &...v) { (check_argument (v, &bad), ...); }, closure->args);
    unsigned int g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };
    nk_emu_launch_raw (g, b, shared, stream,
                       [] (void *c) { std::apply (((Closure *) c)->kernel, ((Closure *) c)->args); },
                       closure, [] (void *c) { delete (Closure *) c; }, name, bad);
  }
};

template <typename... P>
inline NkEmuLauncher<P...>
nk_emu_launch (void (*kernel) (P...), dim3 grid, dim3 block, size_t shared, cudaStream_t stream,
               const char *name)
{
  return NkEmuLauncher<P...>{ kernel, grid, block, shared, stream, name };
}
#endif /* __cplusplus */
