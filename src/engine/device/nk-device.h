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
 * What a backend implements (the table NkDeviceOps, in nk-device-impl.h): allocate,
 * free, copy (host↔device, device→device),
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

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-dtype.h"
#include "nk-kernels.h"

G_BEGIN_DECLS

#define NK_DEVICE_ERROR (nk_device_error_quark ())

/**
 * NkDeviceError:
 * @NK_DEVICE_ERROR_NOT_FOUND: no such device, or its module cannot load
 * @NK_DEVICE_ERROR_OUT_OF_MEMORY: an allocation failed (message names bucket sizes)
 * @NK_DEVICE_ERROR_UNSUPPORTED: the device cannot run this op/dtype
 * @NK_DEVICE_ERROR_FAILED: the driver or library reported an error
 *
 * Why a device could not be found or could not do what was asked.
 */
typedef enum {
  NK_DEVICE_ERROR_NOT_FOUND,
  NK_DEVICE_ERROR_OUT_OF_MEMORY,
  NK_DEVICE_ERROR_UNSUPPORTED,
  NK_DEVICE_ERROR_FAILED,
} NkDeviceError;

NK_AVAILABLE_IN_ALL
GQuark nk_device_error_quark (void);

/**
 * NkBucket:
 * @NK_BUCKET_PARAMS: model parameters
 * @NK_BUCKET_GRADS: their gradients
 * @NK_BUCKET_OPTIMIZER: optimizer state (momentum, Adam's m and v)
 * @NK_BUCKET_ACTIVATIONS: forward outputs kept for backward, and other op outputs
 * @NK_BUCKET_DATA: input batches, token streams
 * @NK_BUCKET_OTHER: everything else (the default)
 * @NK_N_BUCKETS: the number of buckets; nk_device_get_bytes() reads it as "all"
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

NK_AVAILABLE_IN_ALL
const char *nk_bucket_to_string (NkBucket bucket);

/**
 * NkDeviceKind:
 * @NK_DEVICE_CPU: host memory, OpenBLAS
 * @NK_DEVICE_CUDA: an NVIDIA GPU, cuBLAS
 *
 * The kind of hardware behind a device.
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
 *
 * Which way nk_device_copy() moves bytes.
 */
typedef enum {
  NK_COPY_HOST_TO_DEVICE,
  NK_COPY_DEVICE_TO_HOST,
  NK_COPY_DEVICE_TO_DEVICE,
} NkCopyKind;

#define NK_TYPE_DEVICE (nk_device_get_type ())

/**
 * NkDevice:
 *
 * A place tensors live and ops run: the CPU, or a CUDA GPU through the module.
 * It counts the live and peak bytes of each #NkBucket. Devices are registered once
 * and never freed, so a #NkDevice pointer stays valid for the whole process.
 */
typedef struct _NkDevice NkDevice;

NK_AVAILABLE_IN_ALL
GType              nk_device_get_type       (void) G_GNUC_CONST;

/* ---- finding devices ------------------------------------------------------------- */

/**
 * nk_device_get_cpu:
 *
 * The device that is always there: host memory and OpenBLAS.
 *
 * Returns: (transfer none): the CPU device (a process-wide singleton)
 */
NK_AVAILABLE_IN_ALL
NkDevice          *nk_device_get_cpu        (void);

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
NK_AVAILABLE_IN_ALL
NkDevice          *nk_device_lookup         (const char  *name,
                                             GError     **error);

/**
 * nk_device_list:
 *
 * The CPU and the devices registered so far; a CUDA device appears once
 * nk_device_lookup() or the probe has loaded the module.
 *
 * Returns: (transfer container) (element-type NkDevice): the devices known so far
 */
NK_AVAILABLE_IN_ALL
GPtrArray         *nk_device_list           (void);

/**
 * nk_device_get_default:
 *
 * The device new tensors land on when a constructor is not told otherwise, per
 * thread (a worker sets it for its run). Starts as the CPU.
 *
 * Returns: (transfer none): the calling thread's default device
 */
NK_AVAILABLE_IN_ALL
NkDevice          *nk_device_get_default    (void);
NK_AVAILABLE_IN_ALL
void               nk_device_set_default    (NkDevice    *device);

NK_AVAILABLE_IN_ALL
const char        *nk_device_get_name       (NkDevice    *device);
NK_AVAILABLE_IN_ALL
NkDeviceKind       nk_device_get_kind       (NkDevice    *device);
NK_AVAILABLE_IN_ALL
char              *nk_device_describe       (NkDevice    *device);

/* ---- memory accounting ----------------------------------------------------------- */

/**
 * nk_device_alloc: (skip)
 * @device: a device
 * @nbytes: size (0 is allowed and returns a unique non-NULL pointer)
 * @bucket: what the bytes are for
 * @error: return location for a #GError
 *
 * Allocates and counts @nbytes into @bucket's live (and, if exceeded, peak) bytes.
 * Storages call this; other code wants nk_storage_new(). Skipped for bindings,
 * which hold storages, not device pointers.
 *
 * Returns: (nullable): device memory, or %NULL with NK_DEVICE_ERROR_OUT_OF_MEMORY
 */
NK_AVAILABLE_IN_ALL
gpointer           nk_device_alloc          (NkDevice    *device,
                                             gsize        nbytes,
                                             NkBucket     bucket,
                                             GError     **error);
NK_AVAILABLE_IN_ALL
void               nk_device_free           (NkDevice    *device,
                                             gpointer     ptr,
                                             gsize        nbytes,
                                             NkBucket     bucket);

NK_AVAILABLE_IN_ALL
void               nk_device_move_bytes     (NkDevice    *device,
                                             gsize        nbytes,
                                             NkBucket     from,
                                             NkBucket     to);
NK_AVAILABLE_IN_ALL
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
 *
 * The measured memory the app shows beside the planner's prediction.
 */
NK_AVAILABLE_IN_ALL
void               nk_device_get_bytes      (NkDevice    *device,
                                             NkBucket     bucket,
                                             guint64     *out_live,
                                             guint64     *out_peak);
NK_AVAILABLE_IN_ALL
void               nk_device_reset_peak     (NkDevice    *device);

NK_AVAILABLE_IN_ALL
gboolean           nk_device_memory_info    (NkDevice    *device,
                                             guint64     *out_free,
                                             guint64     *out_total,
                                             GError     **error);

/* ---- data movement and sync ------------------------------------------------------ */

NK_AVAILABLE_IN_ALL
gboolean           nk_device_copy           (NkDevice      *device,
                                             NkCopyKind     kind,
                                             gpointer       dst,
                                             gconstpointer  src,
                                             gsize          nbytes,
                                             GError       **error);
NK_AVAILABLE_IN_ALL
gboolean           nk_device_rows           (NkDevice          *device,
                                             NkDType            dtype,
                                             const NkRowsCall  *call,
                                             GError           **error);
NK_AVAILABLE_IN_ALL
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

NK_AVAILABLE_IN_ALL
NkDeviceTimer     *nk_device_timer_start    (NkDevice      *device);
NK_AVAILABLE_IN_ALL
double             nk_device_timer_stop     (NkDeviceTimer *timer);
NK_AVAILABLE_IN_ALL
void               nk_device_timer_free     (NkDeviceTimer *timer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkDeviceTimer, nk_device_timer_free)

G_END_DECLS
