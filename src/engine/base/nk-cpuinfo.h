/* nk-cpuinfo.h: this machine's CPU and its peak FLOP/s, derived from /proc/cpuinfo
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A CPU has no datasheet row in the GPU table, so its peak is derived:
 *
 *     peak = cores × FMA units per core × SIMD lanes × 2 (an FMA is 2 FLOPs) × clock
 *
 * cores: physical cores this process may run on (min of the affinity mask and
 * "cpu cores" × sockets, so hyper-threads, which share the FMA units, are not
 * counted twice); SIMD lanes: 16 fp32 lanes with avx512f, 8 with avx/avx2, 4 with
 * sse; FMA units: 2 when the "fma" flag is present (every AVX2/AVX-512 server core
 * since Haswell has two FMA ports — an assumption cpuinfo cannot confirm), else 1
 * (separate multiply and add ports give the same 2 FLOPs per lane and cycle);
 * clock: cpufreq's cpuinfo_max_freq when the kernel exposes it, else "cpu MHz"
 * (the nominal clock under a hypervisor). fp64 has half the lanes.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_TYPE_CPU_INFO (nk_cpu_info_get_type ())

/**
 * NkCpuInfo:
 * @model: "model name"
 * @cores: physical cores used for the peak
 * @logical: logical processors this process may use
 * @simd: "avx512f", "avx2", "avx" or "sse"
 * @lanes_fp32: fp32 lanes per vector
 * @fma_units: FMA units per core assumed
 * @clock_hz: clock in Hz
 * @clock_source: where the clock came from
 * @peak_fp32: FLOP/s
 * @peak_fp64: FLOP/s
 * @derivation: the formula with the numbers in it, for people
 *
 * The CPU's peak FLOP rates and where they come from: the denominator of a CPU
 * run's MFU.
 */
typedef struct {
  char   *model;
  guint   cores;
  guint   logical;
  char   *simd;
  guint   lanes_fp32;
  guint   fma_units;
  double  clock_hz;
  char   *clock_source;
  double  peak_fp32;
  double  peak_fp64;
  char   *derivation;
} NkCpuInfo;

/**
 * nk_cpu_info_get:
 *
 * Reads /proc/cpuinfo once; later calls return the same answer.
 *
 * Returns: (transfer none): the CPU's description (fields may be 0 / NAN where
 *   cpuinfo says nothing)
 */
NK_AVAILABLE_IN_ALL
const NkCpuInfo *nk_cpu_info_get   (void);

NK_AVAILABLE_IN_ALL
GType            nk_cpu_info_get_type (void) G_GNUC_CONST;

NK_AVAILABLE_IN_ALL
NkCpuInfo       *nk_cpu_info_parse (const char *cpuinfo,
                                    guint       online,
                                    guint64     max_freq_khz);
NK_AVAILABLE_IN_ALL
NkCpuInfo       *nk_cpu_info_copy  (const NkCpuInfo *info);
NK_AVAILABLE_IN_ALL
void             nk_cpu_info_free  (NkCpuInfo  *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkCpuInfo, nk_cpu_info_free)

G_END_DECLS
