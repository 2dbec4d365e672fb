/* nk-storage.c: refcounted bytes on a device, tagged with a memory bucket
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "nk-device-impl.h"
#include "nk-storage.h"

struct _NkStorage
{
  gatomicrefcount ref_count;
  NkDevice       *device;
  gpointer        data;
  gsize           nbytes;
  NkBucket        bucket;
  guint64         id;

  /* Wrapped host memory: not the device's to free. */
  gboolean        wrapped;
  GDestroyNotify  destroy;
  gpointer        user_data;
  GMutex          bucket_lock;
};

G_DEFINE_BOXED_TYPE (NkStorage, nk_storage, nk_storage_ref, nk_storage_unref)

static guint64 next_id = 1;
static __thread NkBucket default_bucket = NK_BUCKET_OTHER;

static guint64
take_id (void)
{
  static GMutex lock;
  guint64 id;

  g_mutex_lock (&lock);
  id = next_id++;
  g_mutex_unlock (&lock);
  return id;
}

NkStorage *
nk_storage_new (NkDevice  *device,
                gsize      nbytes,
                NkBucket   bucket,
                GError   **error)
{
  NkStorage *storage;
  gpointer data;

  g_return_val_if_fail (bucket < NK_N_BUCKETS, NULL);

  if (device == NULL)
    device = nk_device_get_default ();
  data = nk_device_alloc (device, nbytes, bucket, error);
  if (data == NULL)
    return NULL;

  storage = g_new0 (NkStorage, 1);
  g_atomic_ref_count_init (&storage->ref_count);
  storage->device = device;
  storage->data = data;
  storage->nbytes = nbytes;
  storage->bucket = bucket;
  storage->id = take_id ();
  g_mutex_init (&storage->bucket_lock);
  return storage;
}

NkStorage *
nk_storage_new_zeroed (NkDevice  *device,
                       gsize      nbytes,
                       NkBucket   bucket,
                       GError   **error)
{
  NkStorage *storage = nk_storage_new (device, nbytes, bucket, error);
  NkIter it = { 0 };

  if (storage == NULL)
    return NULL;
  if (nbytes == 0)
    return storage;

  /* Zero bytes are 0.0 in every format here; fill as bytes through the device. */
  it.ndim = 1;
  it.numel = (gint64) nbytes;
  it.shape[0] = (gint64) nbytes;
  it.stride[0][0] = 1;
  if (!nk_device_get_ops (storage->device)->fill (nk_device_get_backend (storage->device),
                                                   &it, NK_DTYPE_E4M3, storage->data, 0.0,
                                                   error))
    {
      nk_storage_unref (storage);
      return NULL;
    }
  return storage;
}

NkStorage *
nk_storage_new_for_host_data (gpointer       data,
                              gsize          nbytes,
                              NkBucket       bucket,
                              GDestroyNotify destroy,
                              gpointer       user_data)
{
  NkStorage *storage;

  g_return_val_if_fail (data != NULL || nbytes == 0, NULL);
  g_return_val_if_fail (bucket < NK_N_BUCKETS, NULL);

  storage = g_new0 (NkStorage, 1);
  g_atomic_ref_count_init (&storage->ref_count);
  storage->device = nk_device_get_cpu ();
  storage->data = data;
  storage->nbytes = nbytes;
  storage->bucket = bucket;
  storage->id = take_id ();
  storage->wrapped = TRUE;
  storage->destroy = destroy;
  storage->user_data = user_data;
  g_mutex_init (&storage->bucket_lock);
  nk_device_count_bytes (storage->device, (gssize) nbytes, bucket);
  return storage;
}

NkStorage *
nk_storage_ref (NkStorage *storage)
{
  g_return_val_if_fail (storage != NULL, NULL);

  g_atomic_ref_count_inc (&storage->ref_count);
  return storage;
}

void
nk_storage_unref (NkStorage *storage)
{
  g_return_if_fail (storage != NULL);

  if (!g_atomic_ref_count_dec (&storage->ref_count))
    return;

  if (storage->wrapped)
    {
      nk_device_count_bytes (storage->device, -(gssize) storage->nbytes, storage->bucket);
      if (storage->destroy != NULL)
        storage->destroy (storage->user_data);
    }
  else
    nk_device_free (storage->device, storage->data, storage->nbytes, storage->bucket);
  g_mutex_clear (&storage->bucket_lock);
  g_free (storage);
}

gpointer
nk_storage_get_data (NkStorage *storage)
{
  g_return_val_if_fail (storage != NULL, NULL);
  return storage->data;
}

gsize
nk_storage_get_nbytes (NkStorage *storage)
{
  g_return_val_if_fail (storage != NULL, 0);
  return storage->nbytes;
}

NkDevice *
nk_storage_get_device (NkStorage *storage)
{
  g_return_val_if_fail (storage != NULL, NULL);
  return storage->device;
}

NkBucket
nk_storage_get_bucket (NkStorage *storage)
{
  NkBucket bucket;

  g_return_val_if_fail (storage != NULL, NK_BUCKET_OTHER);

  g_mutex_lock (&storage->bucket_lock);
  bucket = storage->bucket;
  g_mutex_unlock (&storage->bucket_lock);
  return bucket;
}

void
nk_storage_set_bucket (NkStorage *storage,
                       NkBucket   bucket)
{
  g_return_if_fail (storage != NULL);
  g_return_if_fail (bucket < NK_N_BUCKETS);

  g_mutex_lock (&storage->bucket_lock);
  if (storage->bucket != bucket)
    {
      nk_device_move_bytes (storage->device, storage->nbytes, storage->bucket, bucket);
      storage->bucket = bucket;
    }
  g_mutex_unlock (&storage->bucket_lock);
}

guint64
nk_storage_get_id (NkStorage *storage)
{
  g_return_val_if_fail (storage != NULL, 0);
  return storage->id;
}

NkBucket
nk_storage_get_default_bucket (void)
{
  return default_bucket;
}

NkBucket
nk_storage_set_default_bucket (NkBucket bucket)
{
  NkBucket old = default_bucket;

  g_return_val_if_fail (bucket < NK_N_BUCKETS, old);

  default_bucket = bucket;
  return old;
}
