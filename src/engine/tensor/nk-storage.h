/* nk-storage.h: refcounted bytes on a device, tagged with a memory bucket
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A storage is the 1-D array of bytes under one or more tensors (every view of a
 * tensor refs the same storage). It knows its device and its bucket (NkBucket, in
 * nk-device.h); the device counts its bytes live while the storage exists. Storages
 * are untyped: a tensor's dtype says how to read them.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-device.h"

G_BEGIN_DECLS

#define NK_TYPE_STORAGE (nk_storage_get_type ())

/**
 * NkStorage:
 *
 * A reference-counted run of bytes on a device, tagged with the #NkBucket its
 * bytes are counted in. It has no dtype or shape: tensors (nk-tensor.h) are views
 * that say how to read it, and several views may share one storage.
 */
typedef struct _NkStorage NkStorage;

NK_AVAILABLE_IN_ALL
GType       nk_storage_get_type      (void) G_GNUC_CONST;

/**
 * nk_storage_new:
 * @device: (nullable): the device, or %NULL for the thread's default device
 * @nbytes: size in bytes
 * @bucket: what the bytes are for
 * @error: return location for a #GError (NK_DEVICE_ERROR_OUT_OF_MEMORY)
 *
 * Allocates uninitialised bytes.
 *
 * Returns: (transfer full) (nullable): a new storage
 */
NK_AVAILABLE_IN_ALL
NkStorage  *nk_storage_new           (NkDevice       *device,
                                      gsize           nbytes,
                                      NkBucket        bucket,
                                      GError        **error);

/**
 * nk_storage_new_zeroed:
 * @device: (nullable): the device, or %NULL for the thread's default
 * @nbytes: size in bytes
 * @bucket: what the bytes are for
 * @error: return location for a #GError
 *
 * Allocates bytes set to zero (0.0 in every format here).
 *
 * Returns: (transfer full) (nullable): a new storage filled with zero bytes
 */
NK_AVAILABLE_IN_ALL
NkStorage  *nk_storage_new_zeroed    (NkDevice       *device,
                                      gsize           nbytes,
                                      NkBucket        bucket,
                                      GError        **error);

/**
 * nk_storage_new_for_host_data:
 * @data: host memory that stays valid until @destroy is called
 * @nbytes: its size
 * @bucket: the bucket its bytes are counted in (mapped files: NK_BUCKET_DATA)
 * @destroy: (nullable): called with @user_data when the storage is freed
 * @user_data: for @destroy (e.g. a GMappedFile to unref)
 *
 * Wraps memory the caller owns (a GMappedFile, a GBytes) as a CPU storage without
 * copying, so a token file larger than RAM can be viewed as a tensor.
 *
 * Returns: (transfer full): a new storage on the CPU device
 */
NK_AVAILABLE_IN_ALL
NkStorage  *nk_storage_new_for_host_data (gpointer        data,
                                          gsize           nbytes,
                                          NkBucket        bucket,
                                          GDestroyNotify  destroy,
                                          gpointer        user_data);

/**
 * nk_storage_ref:
 * @storage: a storage
 *
 * Takes a reference; thread-safe. Every tensor over the storage holds one.
 *
 * Returns: (transfer full): @storage
 */
NK_AVAILABLE_IN_ALL
NkStorage  *nk_storage_ref           (NkStorage      *storage);

/**
 * nk_storage_unref:
 * @storage: (transfer full): a storage
 *
 * Drops a reference; the last one frees the bytes (or calls the destroy function of
 * wrapped host memory) and takes them out of the bucket's live count.
 */
NK_AVAILABLE_IN_ALL
void        nk_storage_unref         (NkStorage      *storage);

/**
 * nk_storage_get_data: (skip)
 * @storage: a storage
 *
 * The bytes themselves. Skipped for bindings: a raw pointer, into device memory on
 * a GPU.
 *
 * Returns: (transfer none): device memory (host memory on the CPU)
 */
NK_AVAILABLE_IN_ALL
gpointer    nk_storage_get_data      (NkStorage      *storage);

/**
 * nk_storage_get_nbytes:
 * @storage: a storage
 *
 * The storage's size (PyTorch's x.untyped_storage().nbytes()).
 *
 * Returns: the size in bytes
 */
NK_AVAILABLE_IN_ALL
gsize       nk_storage_get_nbytes    (NkStorage      *storage);

/**
 * nk_storage_get_device:
 * @storage: a storage
 *
 * The device the bytes live on.
 *
 * Returns: (transfer none): the device
 */
NK_AVAILABLE_IN_ALL
NkDevice   *nk_storage_get_device    (NkStorage      *storage);

/**
 * nk_storage_get_bucket:
 * @storage: a storage
 *
 * What the bytes are counted as on their device.
 *
 * Returns: the bucket
 */
NK_AVAILABLE_IN_ALL
NkBucket    nk_storage_get_bucket    (NkStorage      *storage);

/**
 * nk_storage_set_bucket:
 * @storage: a storage
 * @bucket: the new bucket
 *
 * Re-tags the bytes (e.g. an op output that autograd keeps becomes an activation);
 * the device moves the live count between buckets.
 */
NK_AVAILABLE_IN_ALL
void        nk_storage_set_bucket    (NkStorage      *storage,
                                      NkBucket        bucket);

/**
 * nk_storage_get_id:
 * @storage: a storage
 *
 * A process-unique number (from 1) naming the storage, e.g. in `napkin-cli tensor`'s
 * "storage": {"id": ...}. Two tensors share storage iff their ids match.
 *
 * Returns: the id
 */
NK_AVAILABLE_IN_ALL
guint64     nk_storage_get_id        (NkStorage      *storage);

/**
 * nk_storage_get_default_bucket:
 *
 * The bucket that op outputs and constructors without an explicit bucket use, per
 * thread. The training loop sets NK_BUCKET_ACTIVATIONS around a forward pass.
 * Starts as NK_BUCKET_OTHER.
 *
 * Returns: the calling thread's default bucket
 */
NK_AVAILABLE_IN_ALL
NkBucket    nk_storage_get_default_bucket (void);

/**
 * nk_storage_set_default_bucket:
 * @bucket: the new default for this thread
 *
 * Sets the bucket later op outputs and constructors on this thread count their
 * bytes in (nk_storage_get_default_bucket()).
 *
 * Returns: the previous default, so callers can restore it
 */
NK_AVAILABLE_IN_ALL
NkBucket    nk_storage_set_default_bucket (NkBucket   bucket);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkStorage, nk_storage_unref)

G_END_DECLS
