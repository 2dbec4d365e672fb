/* nk-gpus.h: the GPU table the planner reads (datasheet peaks, memory, CUDA names)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The table is data/gpus.json, compiled in as the resource
 * /io/github/napkinml/Napkin/engine/gpus.json. It is the one home of GPU facts:
 * every row names the datasheet its figures come from. Figures are as the
 * datasheet prints them: memory in bytes with GB = 1e9 (an "80 GB" H100 is 80e9),
 * bandwidth in bytes/s, peaks in FLOP/s (OP/s for int8). A peak the device has no
 * unit for (or the datasheet does not list) is NAN, never 0.
 *
 * Dense is the default everywhere. The 2:4 structured-sparsity figures that
 * datasheets print with an asterisk are kept apart, in @peak_sparse: the H100 SXM's
 * "1979 TFLOP/s" bf16 is the sparse figure, its dense bf16 peak is 989.5 TFLOP/s.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-enum-types.h"

G_BEGIN_DECLS

#define NK_GPUS_ERROR (nk_gpus_error_quark ())

/**
 * NkGpusError:
 * @NK_GPUS_ERROR_PARSE: the table is not JSON, or not an array of rows
 * @NK_GPUS_ERROR_INVALID: a row lacks a field or has one of the wrong kind
 * @NK_GPUS_ERROR_UNKNOWN: an id that is not in the table
 *
 * Why the GPU table or an id was refused.
 */
typedef enum {
  NK_GPUS_ERROR_PARSE,
  NK_GPUS_ERROR_INVALID,
  NK_GPUS_ERROR_UNKNOWN,
} NkGpusError;

/**
 * NkPeakDtype:
 * @NK_PEAK_FP64: IEEE double (the tensor-core figure where the datasheet has one)
 * @NK_PEAK_FP32: IEEE single, no tensor cores
 * @NK_PEAK_TF32: TensorFloat-32 tensor cores
 * @NK_PEAK_BF16: bfloat16 tensor cores (fp32 accumulate)
 * @NK_PEAK_FP16: float16 tensor cores (fp32 accumulate)
 * @NK_PEAK_FP8: fp8 (e4m3/e5m2) tensor cores
 * @NK_PEAK_INT8: int8 tensor cores (OP/s)
 * @NK_PEAK_FP4: 4-bit float tensor cores (NVFP4 on Blackwell, MXFP4 on the MI355X)
 * @NK_PEAK_N_DTYPES: the number of columns
 *
 * The columns of the table's peaks. Registered as a GEnum whose nicks are the
 * CLI's and JSON's names ("fp32", "bf16", ...), so GSettings can bind it.
 */
typedef enum {
  NK_PEAK_FP64,
  NK_PEAK_FP32,
  NK_PEAK_TF32,
  NK_PEAK_BF16,
  NK_PEAK_FP16,
  NK_PEAK_FP8,
  NK_PEAK_INT8,
  NK_PEAK_FP4,
  NK_PEAK_N_DTYPES, /*< skip >*/
} NkPeakDtype;

#define NK_TYPE_GPU        (nk_gpu_get_type ())

/**
 * NkGpu:
 * @id: stable identifier ("h100-sxm"), as the CLI's --gpu takes it
 * @name: the product name for people ("NVIDIA H100 SXM5 80 GB")
 * @memory: device memory in bytes as the datasheet gives it, NAN when unknown
 * @bandwidth: memory bandwidth in bytes/s, NAN when unknown
 * @memory_reported: the bytes CUDA reports for the card (an H100 SXM's 81,559 MiB,
 *   85.5e9 B, not the datasheet's 80e9), NAN when not known
 * @nvlink_bandwidth: GPU-to-GPU bandwidth inside a node, bytes/s each way per GPU
 *   (half the datasheet's "both directions" figure), NAN where there is none
 * @network_bandwidth: bandwidth between nodes, bytes/s per GPU (one NIC per GPU
 *   in the vendor's reference server), NAN where the table gives none
 * @peak: dense peaks in FLOP/s, indexed by #NkPeakDtype, NAN where none
 * @peak_sparse: 2:4 structured-sparsity peaks, NAN where the datasheet lists none
 * @cuda_names: (array zero-terminated=1): the names CUDA reports for the device
 *   (cudaDeviceProp.name / nvidia-smi), so a real device can be matched
 * @source: the datasheet(s) the figures come from, with URLs
 * @interconnect_source: (nullable): where the memory_reported and bandwidth
 *   figures come from
 * @notes: (nullable): caveats a person should read beside the figures
 * @nvlink_domain: how many GPUs share one NVLink (or Infinity Fabric) domain, where
 *   @nvlink_bandwidth holds between any two of them: 8 on an HGX board, 72 in a
 *   GB200/GB300 NVL72 rack, 2 for a bridged PCIe pair; 1 where there is none
 * @achievable: the best measured dense matmul rate in FLOP/s, indexed by
 *   #NkPeakDtype, NAN where none was measured (every GEMM falls short of the
 *   datasheet: an H100 reaches about 80 % in bf16)
 * @achievable_source: (nullable): the measurement behind @achievable
 *
 * One row of the table. Rows returned by the table are owned by it and live for
 * the whole process; nk_gpu_copy() gives an independent copy.
 */
typedef struct {
  char   *id;
  char   *name;
  double  memory;
  double  bandwidth;
  double  memory_reported;
  double  nvlink_bandwidth;
  double  network_bandwidth;
  double  peak[NK_PEAK_N_DTYPES];
  double  peak_sparse[NK_PEAK_N_DTYPES];
  char  **cuda_names;
  char   *source;
  char   *interconnect_source;
  char   *notes;
  guint   nvlink_domain;
  double  achievable[NK_PEAK_N_DTYPES];
  char   *achievable_source;
} NkGpu;

NK_AVAILABLE_IN_ALL
GQuark        nk_gpus_error_quark       (void);
NK_AVAILABLE_IN_ALL
GType         nk_gpu_get_type           (void) G_GNUC_CONST;

NK_AVAILABLE_IN_ALL
const char   *nk_peak_dtype_to_string   (NkPeakDtype   dtype);
NK_AVAILABLE_IN_ALL
gboolean      nk_peak_dtype_from_string (const char   *text,
                                         NkPeakDtype  *out_dtype);

NK_AVAILABLE_IN_ALL
NkGpu        *nk_gpu_copy               (const NkGpu  *gpu);
NK_AVAILABLE_IN_ALL
void          nk_gpu_free               (NkGpu        *gpu);
NK_AVAILABLE_IN_ALL
double        nk_gpu_get_peak           (const NkGpu  *gpu,
                                         NkPeakDtype   dtype,
                                         gboolean      sparse);
NK_AVAILABLE_IN_ALL
double        nk_gpu_get_achievable     (const NkGpu  *gpu,
                                         NkPeakDtype   dtype);

NK_AVAILABLE_IN_ALL
GPtrArray    *nk_gpus_parse             (const char   *json,
                                         gssize        length,
                                         GError      **error);
NK_AVAILABLE_IN_ALL
const GPtrArray *nk_gpus_get_all        (void);
NK_AVAILABLE_IN_ALL
const NkGpu  *nk_gpus_lookup            (const char   *id);
NK_AVAILABLE_IN_ALL
const NkGpu  *nk_gpus_lookup_cuda_name  (const char   *cuda_name);
NK_AVAILABLE_IN_ALL
gboolean      nk_gpus_check_id          (const char   *id,
                                         GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkGpu, nk_gpu_free)

G_END_DECLS
