/* nk-device.h: the small device interface (CPU here, CUDA as a loadable module)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A device is a table of function pointers (NkDeviceOps) plus the bookkeeping the
 * engine does for every device alike: live and peak bytes per memory bucket, and a
 * name. Tensors and ops never touch device memory directly; they call the entry
 * points below, which account and then dispatch.
 *
 * What a backend implements: allocate, free, copy (host↔device, device→device),
 * gemm (taking an NkGemmPlan, see nk-gemm-plan.h), the elementwise / reduction /
 * triangle / optimizer kernels over an NkIter (see nk-kernels.h, whose per-element
 * bodies it must use), synchronize, memory info and a timer.
 *
 * Devices, and how a CUDA module slots in:
 *  - nk_device_get_cpu() is the always-present CPU singleton (OpenBLAS gemm).
 *  - A backend linked into the program calls nk_device_register() once.
 *  - A backend built as a GModule (src/gpu, DESIGN.md "Build notes") exports
 *
 *        gboolean nk_device_module_init (guint           abi_version,
 *                                        NkDeviceModuleRegister register_func,
 *                                        GError        **error);
 *
 *    nk_device_lookup() loads it on first request for "cuda" (from
 *    NK_BUILD_MODULEDIR, then NK_MODULEDIR, or $NAPKIN_MODULE_DIR), checks
 *    abi_version == NK_DEVICE_ABI_VERSION and the module calls @register_func
 *    for each usable device (or fails with the reason, e.g. "CUDA driver version is
 *    insufficient for CUDA runtime version"). The module needs no engine symbols:
 *    it gets everything through the ops table and the plan it is handed.
 *
 * Thread safety: the byte counters are updated under a lock, so a UI thread may read
 * them while a worker allocates. The backend calls themselves are serialized by the
 * caller (one worker per device at a time, as NkTrainer does).
 */
#pragma once

#include <glib.h>

#include "nk-dtype.h"
#include "nk-gemm-plan.h"
#include "nk-kernels.h"

G_BEGIN_DECLS

#define NK_DEVICE_ERROR (nk_device_error_quark ())

/**
 * NkDeviceError:
 * @NK_DEVICE_ERROR_NOT_FOUND: no such device, or its module cannot load
 * @NK_DEVICE_ERROR_OUT_OF_MEMORY: an allocation failed (message names bucket sizes)
 * @NK_DEVICE_ERROR_UNSUPPORTED: the device cannot run this op/dtype
 * @NK_DEVICE_ERROR_FAILED: the driver or library reported an error
 */
typedef enum {
  NK_DEVICE_ERROR_NOT_FOUND,
  NK_DEVICE_ERROR_OUT_OF_MEMORY,
  NK_DEVICE_ERROR_UNSUPPORTED,
  NK_DEVICE_ERROR_FAILED,
} NkDeviceError;

GQuark nk_device_error_quark (void);

/**
 * NkBucket:
 * @NK_BUCKET_PARAMS: model parameters
 * @NK_BUCKET_GRADS: their gradients
 * @NK_BUCKET_OPTIMIZER: optimizer state (momentum, Adam's m and v)
 * @NK_BUCKET_ACTIVATIONS: forward outputs kept for backward, and other op outputs
 * @NK_BUCKET_DATA: input batches, token streams
 * @NK_BUCKET_OTHER: everything else (the default)
 *
 * What a storage's bytes are for; the device keeps live and peak bytes per bucket
 * so measured memory can be shown beside nk-plan's prediction.
 */
typedef enum {
  NK_BUCKET_PARAMS,
  NK_BUCKET_GRADS,
  NK_BUCKET_OPTIMIZER,
  NK_BUCKET_ACTIVATIONS,
  NK_BUCKET_DATA,
  NK_BUCKET_OTHER,
  NK_N_BUCKETS
} NkBucket;

/* Returns the bucket's short name ("params", "grads", "optimizer", "activations",
 * "data", "other") as CLI.md spells the JSON keys. */
const char *nk_bucket_to_string (NkBucket bucket);

/**
 * NkDeviceKind:
 * @NK_DEVICE_CPU: host memory, OpenBLAS
 * @NK_DEVICE_CUDA: an NVIDIA GPU, cuBLAS
 */
typedef enum {
  NK_DEVICE_CPU,
  NK_DEVICE_CUDA,
} NkDeviceKind;

/**
 * NkCopyKind:
 * @NK_COPY_HOST_TO_DEVICE: src is host memory, dst device memory
 * @NK_COPY_DEVICE_TO_HOST: src is device memory, dst host memory
 * @NK_COPY_DEVICE_TO_DEVICE: both on this device
 */
typedef enum {
  NK_COPY_HOST_TO_DEVICE,
  NK_COPY_DEVICE_TO_HOST,
  NK_COPY_DEVICE_TO_DEVICE,
} NkCopyKind;

typedef struct _NkDevice NkDevice;

/* Bump when NkDeviceOps changes layout; modules refuse a mismatch. */
#define NK_DEVICE_ABI_VERSION 3

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
 *   already made copy-free (no copy_* flag set). f32, f64, and optionally bf16/f16
 *   (@supports_gemm_dtype).
 * @rows: the row kernels of LayerNorm, causal softmax and embeddings (NkRowsCall in
 *   nk-kernels.h, over its shared bodies); f32 and f64.
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
                                   NkDType dtype);

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

/* ---- finding devices ------------------------------------------------------------- */

/**
 * nk_device_get_cpu:
 *
 * Returns: (transfer none): the CPU device (a process-wide singleton)
 */
NkDevice          *nk_device_get_cpu        (void);

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

/**
 * nk_device_lookup:
 * @name: "cpu", "cuda", "cuda:N" or "auto" (the first CUDA device, else the CPU)
 * @error: return location for a #GError
 *
 * Finds a device, loading the CUDA module on first need. Fails with the reason
 * there is no such device ("no CUDA device: ...").
 *
 * Returns: (transfer none) (nullable): the device
 */
NkDevice          *nk_device_lookup         (const char  *name,
                                             GError     **error);

/**
 * nk_device_list:
 *
 * Returns: (transfer container) (element-type NkDevice): the devices known so far
 */
GPtrArray         *nk_device_list           (void);

/**
 * nk_device_get_default:
 *
 * The device new tensors land on when a constructor is not told otherwise, per
 * thread (a worker sets it for its run). Starts as the CPU.
 *
 * Returns: (transfer none): the calling thread's default device
 */
NkDevice          *nk_device_get_default    (void);
void               nk_device_set_default    (NkDevice    *device);

const char        *nk_device_get_name       (NkDevice    *device);
NkDeviceKind       nk_device_get_kind       (NkDevice    *device);
/* Returns: (transfer full): a line about the hardware (model, memory) */
char              *nk_device_describe       (NkDevice    *device);
const NkDeviceOps *nk_device_get_ops        (NkDevice    *device);
gpointer           nk_device_get_backend    (NkDevice    *device);

/* ---- memory accounting ----------------------------------------------------------- */

/**
 * nk_device_alloc:
 * @device: a device
 * @nbytes: size (0 is allowed and returns a unique non-NULL pointer)
 * @bucket: what the bytes are for
 * @error: return location for a #GError
 *
 * Allocates and counts @nbytes into @bucket's live (and, if exceeded, peak) bytes.
 * Storages call this; other code wants nk_storage_new().
 *
 * Returns: (nullable): device memory, or %NULL with NK_DEVICE_ERROR_OUT_OF_MEMORY
 */
gpointer           nk_device_alloc          (NkDevice    *device,
                                             gsize        nbytes,
                                             NkBucket     bucket,
                                             GError     **error);
void               nk_device_free           (NkDevice    *device,
                                             gpointer     ptr,
                                             gsize        nbytes,
                                             NkBucket     bucket);

/* Moves already-counted bytes from one bucket to another (nk_storage_set_bucket). */
void               nk_device_move_bytes     (NkDevice    *device,
                                             gsize        nbytes,
                                             NkBucket     from,
                                             NkBucket     to);
/* Counts bytes the device did not allocate (wrapped host memory) in a bucket. */
void               nk_device_count_bytes    (NkDevice    *device,
                                             gssize       delta,
                                             NkBucket     bucket);

/**
 * nk_device_get_bytes:
 * @device: a device
 * @bucket: a bucket, or %NK_N_BUCKETS for the sum over all buckets
 * @out_live: (out) (optional): bytes allocated now
 * @out_peak: (out) (optional): the most bytes allocated at once since the last
 *   nk_device_reset_peak() (for %NK_N_BUCKETS: the peak of the total)
 */
void               nk_device_get_bytes      (NkDevice    *device,
                                             NkBucket     bucket,
                                             guint64     *out_live,
                                             guint64     *out_peak);
/* Sets every peak to the current live bytes. */
void               nk_device_reset_peak     (NkDevice    *device);

gboolean           nk_device_memory_info    (NkDevice    *device,
                                             guint64     *out_free,
                                             guint64     *out_total,
                                             GError     **error);

/* ---- data movement and sync ------------------------------------------------------ */

gboolean           nk_device_copy           (NkDevice      *device,
                                             NkCopyKind     kind,
                                             gpointer       dst,
                                             gconstpointer  src,
                                             gsize          nbytes,
                                             GError       **error);
gboolean           nk_device_synchronize    (NkDevice    *device,
                                             GError     **error);

/* ---- timer ----------------------------------------------------------------------- */

/**
 * NkDeviceTimer:
 *
 * Times work on a device in device order (CUDA events on a GPU, the monotonic
 * clock on the CPU): start, enqueue work, stop; nk_device_timer_stop() waits for
 * the work and returns the seconds between the marks.
 */
typedef struct _NkDeviceTimer NkDeviceTimer;

NkDeviceTimer     *nk_device_timer_start    (NkDevice      *device);
double             nk_device_timer_stop     (NkDeviceTimer *timer);
void               nk_device_timer_free     (NkDeviceTimer *timer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkDeviceTimer, nk_device_timer_free)

G_END_DECLS
