/* nk-cuda-emu.h: the test-only controls and counters of the emulated CUDA card
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tests that link libnapkin-cudart-emu call these; the same controls exist as
 * environment variables (NAPKIN_CUDA_EMU_*, read at the first CUDA call, see README.md
 * in this folder) for tests that run napkin-cli.
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t malloc_calls;        /* cudaMalloc calls, failed ones included */
  uint64_t free_calls;
  uint64_t host_alloc_calls;    /* cudaMallocHost */
  uint64_t launches;            /* kernels enqueued */
  uint64_t gemms;               /* cuBLAS gemm calls enqueued (a batch counts once) */
  uint64_t copies_to_device, copies_to_host, copies_on_device;
  uint64_t bytes_to_device, bytes_to_host;
  uint64_t host_waits;          /* calls that made the host wait for the device */
  uint64_t device_bytes;        /* cudaMalloc'd and not freed */
  uint64_t device_blocks;
  uint64_t peak_device_bytes;
  uint64_t pinned_bytes;        /* cudaMallocHost'd and not freed */
} NkCudaEmuStats;

void nk_cuda_emu_get_stats   (NkCudaEmuStats *stats);
/* The emulated card's capacity in bytes (0: back to the configured one). */
void nk_cuda_emu_set_memory  (uint64_t total_bytes);
/* The @nth cudaMalloc from now fails with "out of memory" (0: none). */
void nk_cuda_emu_fail_malloc (unsigned int nth);
/* The @nth kernel launch from now fails: at launch with "too many resources requested
 * for launch" or, when @sticky, as a fault at the next synchronisation that leaves
 * the context unusable (as a real one does) (0: none). */
void nk_cuda_emu_fail_launch (unsigned int nth, int sticky);
/* Blocks run their threads last to first (1) or first to last (0): a kernel whose
 * result depends on the order lacks a barrier. */
void nk_cuda_emu_set_reverse_order (int reverse);

#ifdef __cplusplus
}
#endif
