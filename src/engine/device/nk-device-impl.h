/* nk-device-impl.h: what a device backend implements, for the code that implements one
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ggml's ggml-backend-impl.h split: nk-device.h is what a program uses (finding
 * devices, memory accounting, copies, timers); this header is the backend's side
 * of it: the table of entry points a backend fills (NkDeviceOps), how a backend
 * registers, and how a loadable module (src/gpu) is found and checked. The CPU
 * backend (nk-device-cpu.c), the CUDA module and the tensor layer, which
 * dispatches each op through the table, include it; nothing above them does.
 * Not part of <napkin.h>.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include "nk-device.h"
#include "nk-gemm-plan.h"
#include "nk-kernels.h"
#include "nk-quantize-impl.h"

G_BEGIN_DECLS

/* Bump when NkDeviceOps changes layout; modules refuse a mismatch. */
#define NK_DEVICE_ABI_VERSION 5

/**
 * NkDeviceOps:
 *
 * What a backend implements. @backend is the pointer given to nk_device_register().
 * Data pointers are the storages' base pointers; element offsets and strides come in
 * the NkIter / NkReduceIter / NkGemmPlan. Entries that can fail take a GError and
 * must never abort the process. Kernels may be asynchronous (CUDA stream order);
 * nk_device_synchronize() waits.
 *
 * @supports_dtype: whether unary/binary/reduce/triangle run natively in @dtype;
 *   nk-ops casts other dtypes to f32 (f64 for f64 and integers) around the call.
 * @cast: converts elements of any storage dtype to any other along @it (operand 0
 *   out, 1 in); rounding to narrow floats follows nk-dtype (nearest even, default
 *   overflow). Also used for plain strided copies (same dtype).
 * @fill: writes @value (rounded to @dtype) along operand 0 of @it.
 * @unary: out = op(a); @binary: out = op(a, b); when @b is %NULL, operand 2 is the
 *   scalar @scalar (and with @scalar_first, out = op(scalar, a)).
 * @reduce: see NkReduceIter; out has the input's dtype.
 * @triangle: @it is 2-operand with the matrix in the last two dims; keeps element
 *   (i, j) where j - i >= @diagonal (@upper) or j - i <= @diagonal, zeroes the rest.
 * @optimizer: one update of @n contiguous f32 parameters (nk_kernel_optim_update).
 * @gemm: C = alpha·op(first)·op(second) + beta·C per the plan, which the caller has
 *   already made copy-free (no copy_* flag set). Operands of @dtype, C of @out_dtype,
 *   as @supports_gemm_dtype allows: f32 and f64, optionally bf16/f16 and bf16/f16
 *   operands into f32 (autocast's backward: narrow products accumulated in f32).
 * @rows: the row kernels of LayerNorm, causal softmax and embeddings (NkRowsCall in
 *   nk-kernels.h, over its shared bodies); f32 and f64.
 * @quantize: block quantize-then-dequantize of contiguous f32 rows (NkQuantizeCall in
 *   nk-quantize-impl.h, whose per-block math it runs): the same bits and counts as
 *   nk_quantize_fake_f32() on the CPU. Optional (%NULL: the CPU, whose callers call
 *   nk_quantize_fake_f32() themselves).
 */
typedef struct {
  guint abi_version;
  NkDeviceKind kind;

  void      (*destroy)            (gpointer backend);
  char     *(*describe)           (gpointer backend);

  gpointer  (*alloc)              (gpointer backend,
                                   gsize nbytes,
                                   GError **error);
  void      (*free)               (gpointer backend,
                                   gpointer ptr,
                                   gsize nbytes);
  gboolean  (*copy)               (gpointer backend,
                                   NkCopyKind kind,
                                   gpointer dst,
                                   gconstpointer src,
                                   gsize nbytes,
                                   GError **error);

  gboolean  (*supports_dtype)     (gpointer backend,
                                   NkDType dtype);
  gboolean  (*supports_gemm_dtype)(gpointer backend,
                                   NkDType dtype,
                                   NkDType out_dtype);

  gboolean  (*cast)               (gpointer backend,
                                   const NkIter *it,
                                   NkDType out_dtype,
                                   gpointer out,
                                   NkDType in_dtype,
                                   gconstpointer in,
                                   GError **error);
  gboolean  (*fill)               (gpointer backend,
                                   const NkIter *it,
                                   NkDType dtype,
                                   gpointer out,
                                   double value,
                                   GError **error);
  gboolean  (*unary)              (gpointer backend,
                                   NkUnaryOp op,
                                   const NkIter *it,
                                   NkDType dtype,
                                   gpointer out,
                                   gconstpointer a,
                                   GError **error);
  gboolean  (*binary)             (gpointer backend,
                                   NkBinaryOp op,
                                   const NkIter *it,
                                   NkDType dtype,
                                   gpointer out,
                                   gconstpointer a,
                                   gconstpointer b,
                                   double scalar,
                                   gboolean scalar_first,
                                   GError **error);
  gboolean  (*reduce)             (gpointer backend,
                                   NkReduceOp op,
                                   const NkReduceIter *it,
                                   NkDType dtype,
                                   gpointer out,
                                   gconstpointer in,
                                   GError **error);
  gboolean  (*triangle)           (gpointer backend,
                                   gboolean upper,
                                   gint64 diagonal,
                                   const NkIter *it,
                                   NkDType dtype,
                                   gpointer out,
                                   gconstpointer in,
                                   GError **error);
  gboolean  (*optimizer)          (gpointer backend,
                                   const NkOptimStep *step,
                                   gsize n,
                                   float *param,
                                   const float *grad,
                                   float *state1,
                                   float *state2,
                                   GError **error);
  gboolean  (*gemm)               (gpointer backend,
                                   const NkGemmPlan *plan,
                                   NkDType dtype,
                                   NkDType out_dtype,
                                   double alpha,
                                   gconstpointer a,
                                   gconstpointer b,
                                   double beta,
                                   gpointer c,
                                   GError **error);

  gboolean  (*rows)               (gpointer backend,
                                   NkDType dtype,
                                   const NkRowsCall *call,
                                   GError **error);

  gboolean  (*quantize)           (gpointer backend,
                                   const NkQuantizeCall *call,
                                   GError **error);

  gboolean  (*synchronize)        (gpointer backend,
                                   GError **error);
  gboolean  (*memory_info)        (gpointer backend,
                                   guint64 *free_bytes,
                                   guint64 *total_bytes,
                                   GError **error);

  /* Timer: an opaque mark (a CUDA event, or a host timestamp). */
  gpointer  (*timer_mark)         (gpointer backend);
  double    (*timer_elapsed)      (gpointer backend,
                                   gpointer start_mark,
                                   gpointer end_mark);
  void      (*timer_free)         (gpointer backend,
                                   gpointer mark);
} NkDeviceOps;

/* The callback a device module receives; returns the registered device. */
typedef NkDevice *(*NkDeviceModuleRegister) (const char        *name,
                                             const NkDeviceOps *ops,
                                             gpointer           backend);

typedef gboolean (*NkDeviceModuleInit) (guint                   abi_version,
                                        NkDeviceModuleRegister  register_func,
                                        GError                **error);

/**
 * nk_device_register:
 * @name: "cuda:0", ...; must be unique
 * @ops: (transfer none): the backend's table, static for the process lifetime
 * @backend: passed back to every op
 *
 * Adds a device. Devices live until the process ends.
 *
 * Returns: (transfer none): the device
 */
NkDevice          *nk_device_register       (const char        *name,
                                             const NkDeviceOps *ops,
                                             gpointer           backend);

const NkDeviceOps *nk_device_get_ops        (NkDevice    *device);
gpointer           nk_device_get_backend    (NkDevice    *device);

G_END_DECLS
