/* nk-emu-private.h: what the parts of the emulated CUDA runtime share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One recursive lock guards the whole emulated card: API calls take it, and queued
 * work runs under it at the point a stream is drained, in order, one operation at a
 * time, on the thread that waits. Device memory is poisoned for AddressSanitizer
 * while host code runs, so a host access to a device pointer is caught as it would
 * fault on a GPU.
 */
#pragma once

#include <glib.h>

#include "cuda_runtime.h"
#include "nk-cuda-emu.h"

#define NK_EMU_EXPORT __attribute__ ((visibility ("default")))

/* The emulated cuBLAS (a library of its own) calls these too. */
#pragma GCC visibility push(default)

typedef struct {
  char     name[256];
  int      devices;
  int      sms;
  int      major, minor;
  int      clock_mhz;
  int      driver_version;
  guint64  memory_bytes;
  guint64  configured_memory_bytes;
  guint    fail_malloc;          /* countdown, 0 = off */
  guint    fail_launch;          /* countdown, 0 = off */
  gboolean fail_launch_sticky;
  gboolean reverse_order;
} NkEmuConfig;

/* nk-emu-device.c */
NkEmuConfig *nk_emu_config       (void);
NkCudaEmuStats *nk_emu_stats        (void);
void         nk_emu_lock         (void);
void         nk_emu_unlock       (void);
cudaError_t  nk_emu_set_error    (cudaError_t error);
cudaError_t  nk_emu_sticky_error (void);
void         nk_emu_fault        (cudaError_t error, const char *format, ...) G_GNUC_PRINTF (2, 3);
void         nk_emu_host_wait    (const char *call);

/* nk-emu-memory.c */
typedef enum { NK_EMU_HOST, NK_EMU_PINNED, NK_EMU_DEVICE } NkEmuSpace;
NkEmuSpace   nk_emu_classify     (const void *ptr, size_t count, gboolean *in_bounds);
void         nk_emu_device_enter (void);
void         nk_emu_device_leave (void);

/* nk-emu-stream.c */
typedef cudaError_t (*NkEmuRun) (gpointer data);
typedef struct CUstream_st NkEmuStream;
NkEmuStream *nk_emu_stream_get   (cudaStream_t stream, cudaError_t *error);
void         nk_emu_enqueue      (NkEmuStream *stream, NkEmuRun run, gpointer data,
                                  GDestroyNotify destroy);
cudaError_t  nk_emu_drain        (NkEmuStream *stream);
cudaError_t  nk_emu_drain_all    (void);

/* nk-emu-launch.c */
cudaError_t  nk_emu_run_grid     (const unsigned int grid[3], const unsigned int block[3],
                                  void (*thread_fn) (void *), void *closure,
                                  const char *name);

#pragma GCC visibility pop
