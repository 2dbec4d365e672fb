/* nk-emu-device.c: the emulated card's identity, errors, counters and test controls
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The card is configured once, from NAPKIN_CUDA_EMU_* at the first call (defaults: one
 * H100 SXM, as nvidia-smi names it, with its 132 SMs and 81,559 MiB). Error numbers
 * and sentences are CUDA's. An error from queued work is sticky, as a GPU fault is:
 * every later call returns it.
 */
#include "nk-emu-private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GRecMutex emu_lock;
static NkEmuConfig config;
static NkCudaEmuStats stats;
static cudaError_t sticky_error = cudaSuccess;
static __thread cudaError_t last_error = cudaSuccess;

static gint64
env_int (const char *name,
         gint64      fallback)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? g_ascii_strtoll (value, NULL, 10) : fallback;
}

static void
read_config (void)
{
  const char *name = g_getenv ("NAPKIN_CUDA_EMU_NAME");
  const char *cc = g_getenv ("NAPKIN_CUDA_EMU_CC");
  const char *launch = g_getenv ("NAPKIN_CUDA_EMU_FAIL_LAUNCH");
  const char *order = g_getenv ("NAPKIN_CUDA_EMU_ORDER");

  g_strlcpy (config.name, name != NULL ? name : "NVIDIA H100 80GB HBM3", sizeof config.name);
  config.devices = (int) env_int ("NAPKIN_CUDA_EMU_DEVICES", 1);
  config.sms = (int) env_int ("NAPKIN_CUDA_EMU_SMS", 132);
  config.clock_mhz = (int) env_int ("NAPKIN_CUDA_EMU_CLOCK_MHZ", 1980);
  config.driver_version = (int) env_int ("NAPKIN_CUDA_EMU_DRIVER", 13000);
  config.configured_memory_bytes = (guint64) env_int ("NAPKIN_CUDA_EMU_MEMORY_MIB", 81559) << 20;
  config.memory_bytes = config.configured_memory_bytes;
  config.major = 9;
  config.minor = 0;
  if (cc != NULL && sscanf (cc, "%d.%d", &config.major, &config.minor) != 2)
    config.major = 9, config.minor = 0;
  config.fail_malloc = (guint) env_int ("NAPKIN_CUDA_EMU_FAIL_MALLOC", 0);
  config.fail_launch = (guint) (launch != NULL ? g_ascii_strtoull (launch, NULL, 10) : 0);
  config.fail_launch_sticky = launch != NULL && strstr (launch, ":sticky") != NULL;
  config.reverse_order = g_strcmp0 (order, "reverse") == 0;
}

void
nk_emu_lock (void)
{
  static gsize once;

  if (g_once_init_enter (&once))
    {
      read_config ();
      g_once_init_leave (&once, 1);
    }
  g_rec_mutex_lock (&emu_lock);
}

void
nk_emu_unlock (void)
{
  g_rec_mutex_unlock (&emu_lock);
}

NkEmuConfig *
nk_emu_config (void)
{
  return &config;
}

NkCudaEmuStats *
nk_emu_stats (void)
{
  return &stats;
}

/* Records @error as this thread's last error (unless a sticky one stands) and returns
 * what the call must return. */
cudaError_t
nk_emu_set_error (cudaError_t error)
{
  if (sticky_error != cudaSuccess)
    return last_error = sticky_error;
  if (error != cudaSuccess)
    last_error = error;
  return error;
}

cudaError_t
nk_emu_sticky_error (void)
{
  return sticky_error;
}

/* A fault of queued work: said once on stderr (the GPU would say nothing; the
 * emulation says what and where) and sticky from now on. */
void
nk_emu_fault (cudaError_t  error,
              const char  *format,
              ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "nk-cuda-emu: %s (%s)\n", text, cudaGetErrorString (error));
  if (sticky_error == cudaSuccess)
    sticky_error = error;
  last_error = sticky_error;
}

/* Counts a call that makes the host wait for the device; NAPKIN_CUDA_EMU_TRACE=1 names
 * each on stderr, to find the waits inside a step. */
void
nk_emu_host_wait (const char *call)
{
  static int trace = -1;

  if (trace < 0)
    trace = g_strcmp0 (g_getenv ("NAPKIN_CUDA_EMU_TRACE"), "1") == 0;
  stats.host_waits++;
  if (trace)
    fprintf (stderr, "nk-cuda-emu: host waits in %s\n", call);
}

NK_EMU_EXPORT const char *
cudaGetErrorString (cudaError_t error)
{
  switch (error)
    {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    }
  return "unrecognized error code";
}

NK_EMU_EXPORT const char *
cudaGetErrorName (cudaError_t error)
{
  switch (error)
    {
#define NAME(e) case e: return #e
    NAME (cudaSuccess);
    NAME (cudaErrorInvalidValue);
    NAME (cudaErrorMemoryAllocation);
    NAME (cudaErrorInvalidConfiguration);
    NAME (cudaErrorInvalidDevicePointer);
    NAME (cudaErrorInvalidMemcpyDirection);
    NAME (cudaErrorInsufficientDriver);
    NAME (cudaErrorNoDevice);
    NAME (cudaErrorInvalidDevice);
    NAME (cudaErrorInvalidResourceHandle);
    NAME (cudaErrorNotReady);
    NAME (cudaErrorIllegalAddress);
    NAME (cudaErrorLaunchOutOfResources);
    NAME (cudaErrorLaunchFailure);
#undef NAME
    }
  return "cudaErrorUnknown";
}

NK_EMU_EXPORT cudaError_t
cudaGetLastError (void)
{
  cudaError_t error;

  nk_emu_lock ();
  error = sticky_error != cudaSuccess ? sticky_error : last_error;
  last_error = cudaSuccess;
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaPeekAtLastError (void)
{
  cudaError_t error;

  nk_emu_lock ();
  error = sticky_error != cudaSuccess ? sticky_error : last_error;
  nk_emu_unlock ();
  return error;
}

/* The driver check every entry point makes first. */
static cudaError_t
check_driver (void)
{
  return config.driver_version < 13000 ? cudaErrorInsufficientDriver : cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaGetDeviceCount (int *count)
{
  cudaError_t error;

  nk_emu_lock ();
  *count = 0;
  if ((error = check_driver ()) == cudaSuccess && config.devices <= 0)
    error = cudaErrorNoDevice;
  if (error == cudaSuccess)
    *count = config.devices;
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

static cudaError_t
check_ordinal (int device)
{
  cudaError_t error = check_driver ();

  if (error == cudaSuccess && (device < 0 || device >= config.devices))
    error = cudaErrorInvalidDevice;
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaGetDeviceProperties (struct cudaDeviceProp *prop,
                         int                    device)
{
  cudaError_t error;

  nk_emu_lock ();
  if ((error = check_ordinal (device)) == cudaSuccess)
    {
      memset (prop, 0, sizeof *prop);
      g_strlcpy (prop->name, config.name, sizeof prop->name);
      prop->totalGlobalMem = config.memory_bytes;
      prop->sharedMemPerBlock = 48 * 1024;
      prop->regsPerBlock = 65536;
      prop->warpSize = 32;
      prop->maxThreadsPerBlock = 1024;
      prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
      prop->maxThreadsDim[2] = 64;
      prop->maxGridSize[0] = G_MAXINT;
      prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
      prop->major = config.major;
      prop->minor = config.minor;
      prop->multiProcessorCount = config.sms;
      prop->l2CacheSize = 50 * 1024 * 1024;
      prop->maxThreadsPerMultiProcessor = 2048;
      prop->sharedMemPerMultiprocessor = 228 * 1024;
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaDeviceGetAttribute (int                 *value,
                        enum cudaDeviceAttr  attr,
                        int                  device)
{
  cudaError_t error;

  nk_emu_lock ();
  if ((error = check_ordinal (device)) == cudaSuccess)
    switch (attr)
      {
      case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
      case cudaDevAttrWarpSize: *value = 32; break;
      case cudaDevAttrClockRate: *value = config.clock_mhz * 1000; break;
      case cudaDevAttrMultiProcessorCount: *value = config.sms; break;
      case cudaDevAttrMemoryClockRate: *value = 2619000; break;
      case cudaDevAttrGlobalMemoryBusWidth: *value = 5120; break;
      case cudaDevAttrComputeCapabilityMajor: *value = config.major; break;
      case cudaDevAttrComputeCapabilityMinor: *value = config.minor; break;
      default: error = cudaErrorInvalidValue; break;
      }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

static __thread int current_device;

NK_EMU_EXPORT cudaError_t
cudaSetDevice (int device)
{
  cudaError_t error;

  nk_emu_lock ();
  if ((error = check_ordinal (device)) == cudaSuccess)
    current_device = device;
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaGetDevice (int *device)
{
  *device = current_device;
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaDriverGetVersion (int *version)
{
  nk_emu_lock ();
  *version = config.driver_version;
  nk_emu_unlock ();
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaRuntimeGetVersion (int *version)
{
  *version = 13000;
  return cudaSuccess;
}

NK_EMU_EXPORT void
nk_cuda_emu_get_stats (NkCudaEmuStats *out)
{
  nk_emu_lock ();
  *out = stats;
  nk_emu_unlock ();
}

NK_EMU_EXPORT void
nk_cuda_emu_set_memory (uint64_t total_bytes)
{
  nk_emu_lock ();
  config.memory_bytes = total_bytes != 0 ? total_bytes : config.configured_memory_bytes;
  nk_emu_unlock ();
}

NK_EMU_EXPORT void
nk_cuda_emu_fail_malloc (unsigned int nth)
{
  nk_emu_lock ();
  config.fail_malloc = nth;
  nk_emu_unlock ();
}

NK_EMU_EXPORT void
nk_cuda_emu_fail_launch (unsigned int nth,
                         int          sticky)
{
  nk_emu_lock ();
  config.fail_launch = nth;
  config.fail_launch_sticky = sticky != 0;
  nk_emu_unlock ();
}

NK_EMU_EXPORT void
nk_cuda_emu_set_reverse_order (int reverse)
{
  nk_emu_lock ();
  config.reverse_order = reverse != 0;
  nk_emu_unlock ();
}
