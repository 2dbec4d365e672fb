/* nk-emu-memory.c: device and pinned memory of the emulated card, copies and memsets
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every cudaMalloc is its own heap block of exactly the bytes asked for, so that
 * AddressSanitizer catches a kernel or a copy that runs past it. Copies check their
 * direction and their extent against the blocks, as the CUDA runtime does. What is
 * asynchronous follows CUDA's rules for pageable memory: a host-to-device copy from
 * pageable memory takes its bytes at the call, a device-to-host copy into pageable
 * memory returns once done; to and from pinned memory both wait in the stream.
 */
#include "nk-emu-private.h"

#include <stdlib.h>
#include <string.h>

#ifndef __has_feature
# define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature (address_sanitizer)
# include <sanitizer/asan_interface.h>
# define NK_EMU_POISON(p, n) ASAN_POISON_MEMORY_REGION ((p), (n))
# define NK_EMU_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION ((p), (n))
#else
# define NK_EMU_POISON(p, n) ((void) (p), (void) (n))
# define NK_EMU_UNPOISON(p, n) ((void) (p), (void) (n))
#endif

typedef struct {
  char    *base;
  size_t   size;
  gboolean pinned;
} Block;

static GTree *blocks;            /* base → Block, device and pinned */
static int device_depth;         /* > 0 while queued work runs */

static int
compare_address (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  return (guintptr) a < (guintptr) b ? -1 : (guintptr) a > (guintptr) b;
}

static GTree *
get_blocks (void)
{
  if (blocks == NULL)
    blocks = g_tree_new_full (compare_address, NULL, NULL, g_free);
  return blocks;
}

/* The block that holds @ptr (its end included, for empty views at the end), or NULL. */
static Block *
find_block (const void *ptr)
{
  GTreeNode *node = g_tree_upper_bound (get_blocks (), ptr);
  Block *block;

  node = node != NULL ? g_tree_node_previous (node) : g_tree_node_last (get_blocks ());
  if (node == NULL)
    return NULL;
  block = g_tree_node_value (node);
  return (const char *) ptr <= block->base + block->size ? block : NULL;
}

/* Where @ptr points and whether [ptr, ptr + count) stays inside its block. */
NkEmuSpace
nk_emu_classify (const void *ptr,
                 size_t      count,
                 gboolean   *in_bounds)
{
  Block *block = ptr != NULL ? find_block (ptr) : NULL;

  if (block == NULL)
    {
      *in_bounds = TRUE;
      return NK_EMU_HOST;
    }
  *in_bounds = count <= (size_t) (block->base + block->size - (const char *) ptr);
  return block->pinned ? NK_EMU_PINNED : NK_EMU_DEVICE;
}

NK_EMU_EXPORT const char *
nk_emu_check_kernel_pointer (const void *ptr)
{
  const char *why = NULL;
  gboolean in_bounds;

  nk_emu_lock ();
  if (ptr != NULL && nk_emu_classify (ptr, 0, &in_bounds) == NK_EMU_HOST)
    why = "a kernel argument points into host memory, not into a device allocation";
  nk_emu_unlock ();
  return why;
}

static gboolean
poison_one (gpointer key,
            gpointer value,
            gpointer user_data)
{
  Block *block = value;

  if (!block->pinned)
    {
      if (GPOINTER_TO_INT (user_data))
        NK_EMU_POISON (block->base, block->size);
      else
        NK_EMU_UNPOISON (block->base, block->size);
    }
  return FALSE;
}

/* Device memory is addressable only while the emulated device runs queued work. */
void
nk_emu_device_enter (void)
{
  if (device_depth++ == 0)
    g_tree_foreach (get_blocks (), poison_one, GINT_TO_POINTER (FALSE));
}

void
nk_emu_device_leave (void)
{
  if (--device_depth == 0)
    g_tree_foreach (get_blocks (), poison_one, GINT_TO_POINTER (TRUE));
}

static cudaError_t
add_block (void  **ptr,
           size_t  size,
           gboolean pinned)
{
  Block *block;
  void *base = NULL;

  /* cudaMalloc's 256-byte alignment; the size stays exact for the sanitizer. */
  if (posix_memalign (&base, 256, MAX (size, 1)) != 0)
    return cudaErrorMemoryAllocation;
  block = g_new0 (Block, 1);
  block->base = base;
  block->size = size;
  block->pinned = pinned;
  g_tree_insert (get_blocks (), base, block);
  if (!pinned && device_depth == 0)
    NK_EMU_POISON (base, size);
  *ptr = base;
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaMalloc (void   **ptr,
            size_t   size)
{
  NkEmuConfig *config;
  NkCudaEmuStats *stats;
  cudaError_t error = nk_emu_sticky_error ();

  nk_emu_lock ();
  config = nk_emu_config ();
  stats = nk_emu_stats ();
  stats->malloc_calls++;
  *ptr = NULL;
  if (error != cudaSuccess || size == 0)
    goto out;
  if (config->fail_malloc > 0 && --config->fail_malloc == 0)
    error = cudaErrorMemoryAllocation;
  else if (size > config->memory_bytes - MIN (stats->device_bytes, config->memory_bytes))
    error = cudaErrorMemoryAllocation;
  else if ((error = add_block (ptr, size, FALSE)) == cudaSuccess)
    {
      stats->device_bytes += size;
      stats->device_blocks++;
      stats->peak_device_bytes = MAX (stats->peak_device_bytes, stats->device_bytes);
    }
out:
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

static cudaError_t
remove_block (void     *ptr,
              gboolean  pinned)
{
  Block *block;

  if (ptr == NULL)
    return cudaSuccess;
  block = g_tree_lookup (get_blocks (), ptr);
  if (block == NULL || block->pinned != pinned)
    return pinned ? cudaErrorInvalidValue : cudaErrorInvalidDevicePointer;
  /* cudaFree and cudaFreeHost wait for the device, as CUDA's do. */
  nk_emu_drain_all ();
  nk_emu_host_wait ("cudaFree/cudaFreeHost");
  if (pinned)
    nk_emu_stats ()->pinned_bytes -= block->size;
  else
    {
      nk_emu_stats ()->device_bytes -= block->size;
      nk_emu_stats ()->device_blocks--;
    }
  NK_EMU_UNPOISON (block->base, block->size);
  free (block->base);
  g_tree_remove (get_blocks (), ptr);
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaFree (void *ptr)
{
  cudaError_t error;

  nk_emu_lock ();
  nk_emu_stats ()->free_calls++;
  error = nk_emu_set_error (remove_block (ptr, FALSE));
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaMallocHost (void   **ptr,
                size_t   size)
{
  cudaError_t error;

  nk_emu_lock ();
  nk_emu_stats ()->host_alloc_calls++;
  *ptr = NULL;
  error = nk_emu_sticky_error ();
  if (error == cudaSuccess && (error = add_block (ptr, size, TRUE)) == cudaSuccess)
    nk_emu_stats ()->pinned_bytes += size;
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaFreeHost (void *ptr)
{
  cudaError_t error;

  nk_emu_lock ();
  error = nk_emu_set_error (remove_block (ptr, TRUE));
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaMemGetInfo (size_t *free_bytes,
                size_t *total_bytes)
{
  NkEmuConfig *config;
  guint64 used;

  nk_emu_lock ();
  config = nk_emu_config ();
  used = MIN (nk_emu_stats ()->device_bytes, config->memory_bytes);
  *free_bytes = config->memory_bytes - used;
  *total_bytes = config->memory_bytes;
  nk_emu_unlock ();
  return nk_emu_set_error (cudaSuccess);
}

typedef struct {
  void       *dst;
  const void *src;
  size_t      count;
  int         value;        /* memset's byte, or -1 for a copy */
  void       *snapshot;     /* pageable source bytes taken at the call */
} Transfer;

static cudaError_t
run_transfer (gpointer data)
{
  Transfer *t = data;

  if (t->value >= 0)
    memset (t->dst, t->value, t->count);
  else
    memmove (t->dst, t->snapshot != NULL ? t->snapshot : t->src, t->count);
  return cudaSuccess;
}

static void
free_transfer (gpointer data)
{
  Transfer *t = data;

  g_free (t->snapshot);
  g_free (t);
}

/* Checks a copy's direction and extents; counts it. */
static cudaError_t
check_copy (void                *dst,
            const void          *src,
            size_t               count,
            enum cudaMemcpyKind  kind,
            NkEmuSpace          *dst_space,
            NkEmuSpace          *src_space)
{
  gboolean dst_ok, src_ok;
  gboolean dst_device, src_device;
  NkCudaEmuStats *stats = nk_emu_stats ();

  *dst_space = nk_emu_classify (dst, count, &dst_ok);
  *src_space = nk_emu_classify (src, count, &src_ok);
  dst_device = *dst_space == NK_EMU_DEVICE;
  src_device = *src_space == NK_EMU_DEVICE;
  if ((int) kind < 0 || kind > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  if (kind == cudaMemcpyDefault)
    kind = src_device ? (dst_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                      : (dst_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  /* The direction must name what the pointers are; device extents must fit. */
  if (dst_device != (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
      || src_device != (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice)
      || !dst_ok || !src_ok || (count > 0 && (dst == NULL || src == NULL)))
    return cudaErrorInvalidValue;
  if (kind == cudaMemcpyHostToDevice)
    stats->copies_to_device++, stats->bytes_to_device += count;
  else if (kind == cudaMemcpyDeviceToHost)
    stats->copies_to_host++, stats->bytes_to_host += count;
  else if (kind == cudaMemcpyDeviceToDevice)
    stats->copies_on_device++;
  return cudaSuccess;
}

static cudaError_t
copy_locked (void                *dst,
             const void          *src,
             size_t               count,
             enum cudaMemcpyKind  kind,
             cudaStream_t         stream_handle,
             gboolean             sync)
{
  NkEmuSpace dst_space, src_space;
  NkEmuStream *stream;
  Transfer *t;
  cudaError_t error = nk_emu_sticky_error ();

  if (error != cudaSuccess)
    return error;
  if ((stream = nk_emu_stream_get (stream_handle, &error)) == NULL)
    return error;
  if ((error = check_copy (dst, src, count, kind, &dst_space, &src_space)) != cudaSuccess)
    return error;
  if (count == 0)
    return cudaSuccess;
  t = g_new0 (Transfer, 1);
  t->dst = dst;
  t->src = src;
  t->count = count;
  t->value = -1;
  if (src_space == NK_EMU_HOST)
    t->snapshot = g_memdup2 (src, count);
  nk_emu_enqueue (stream, run_transfer, t, free_transfer);
  if (sync || dst_space == NK_EMU_HOST)
    {
      nk_emu_host_wait (sync ? "cudaMemcpy" : "cudaMemcpyAsync into pageable memory");
      return sync ? nk_emu_drain_all () : nk_emu_drain (stream);
    }
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaMemcpyAsync (void                *dst,
                 const void          *src,
                 size_t               count,
                 enum cudaMemcpyKind  kind,
                 cudaStream_t         stream)
{
  cudaError_t error;

  nk_emu_lock ();
  error = nk_emu_set_error (copy_locked (dst, src, count, kind, stream, FALSE));
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaMemcpy (void                *dst,
            const void          *src,
            size_t               count,
            enum cudaMemcpyKind  kind)
{
  cudaError_t error;

  nk_emu_lock ();
  error = nk_emu_set_error (copy_locked (dst, src, count, kind, NULL, TRUE));
  nk_emu_unlock ();
  return error;
}

static cudaError_t
memset_locked (void         *ptr,
               int           value,
               size_t        count,
               cudaStream_t  stream_handle,
               gboolean      sync)
{
  gboolean in_bounds;
  NkEmuStream *stream;
  Transfer *t;
  cudaError_t error = nk_emu_sticky_error ();

  if (error != cudaSuccess || (stream = nk_emu_stream_get (stream_handle, &error)) == NULL)
    return error;
  if (nk_emu_classify (ptr, count, &in_bounds) != NK_EMU_DEVICE || !in_bounds)
    return cudaErrorInvalidValue;
  t = g_new0 (Transfer, 1);
  t->dst = ptr;
  t->count = count;
  t->value = value & 0xff;
  nk_emu_enqueue (stream, run_transfer, t, free_transfer);
  if (sync)
    {
      nk_emu_host_wait ("cudaMemset");
      return nk_emu_drain_all ();
    }
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaMemsetAsync (void         *ptr,
                 int           value,
                 size_t        count,
                 cudaStream_t  stream)
{
  cudaError_t error;

  nk_emu_lock ();
  error = nk_emu_set_error (memset_locked (ptr, value, count, stream, FALSE));
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaMemset (void   *ptr,
            int     value,
            size_t  count)
{
  cudaError_t error;

  nk_emu_lock ();
  error = nk_emu_set_error (memset_locked (ptr, value, count, NULL, TRUE));
  nk_emu_unlock ();
  return error;
}
