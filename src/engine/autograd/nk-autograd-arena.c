/* nk-autograd-arena.c: op outputs and backward temporaries reused slot by slot
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A training step runs the same ops on the same shapes every time: the n-th request
 * of a step gets the n-th buffer of the previous step (nk-autograd.h, BUFFER REUSE).
 */
#include "config.h"

#include "nk-autograd-private.h"

struct _NkArena
{
  GPtrArray *slots;   /* NkTensor*, owned */
  guint      cursor;
};

static __thread NkArena *current_arena;

/**
 * nk_arena_new: (skip)
 *
 * An empty arena, to make current with nk_arena_set_current() on the thread that runs
 * the steps. Not for bindings (see #NkArena).
 *
 * Returns: (transfer full): the arena
 */
NkArena *
nk_arena_new (void)
{
  NkArena *arena = g_new0 (NkArena, 1);

  arena->slots = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);
  return arena;
}

/**
 * nk_arena_free: (skip)
 * @arena: (nullable) (transfer full): an arena that is no thread's current one
 *
 * Frees the arena and drops its buffers.
 */
void
nk_arena_free (NkArena *arena)
{
  if (arena == NULL)
    return;
  if (current_arena == arena)
    current_arena = NULL;
  g_ptr_array_unref (arena->slots);
  g_free (arena);
}

/**
 * nk_arena_reset: (skip)
 * @arena: an arena
 *
 * Starts the next step: the next request gets slot 0 again.
 */
void
nk_arena_reset (NkArena *arena)
{
  g_return_if_fail (arena != NULL);
  arena->cursor = 0;
}

/**
 * nk_arena_get_bytes: (skip)
 * @arena: an arena
 * @bucket: a memory bucket
 *
 * The bytes of the arena's buffers that are counted in @bucket.
 *
 * Returns: the size in bytes
 */
guint64
nk_arena_get_bytes (NkArena  *arena,
                    NkBucket  bucket)
{
  guint64 total = 0;

  g_return_val_if_fail (arena != NULL, 0);
  for (guint i = 0; i < arena->slots->len; i++)
    {
      NkTensor *t = g_ptr_array_index (arena->slots, i);

      if (nk_storage_get_bucket (t->storage) == bucket)
        total += nk_storage_get_nbytes (t->storage);
    }
  return total;
}

/**
 * nk_arena_set_current: (skip)
 * @arena: (nullable): the arena the calling thread's nk_ag_*() ops take buffers
 *   from, or %NULL to allocate fresh tensors
 *
 * Sets the calling thread's arena. Not for bindings (see #NkArena).
 *
 * Returns: (transfer none) (nullable): the previous arena
 */
NkArena *
nk_arena_set_current (NkArena *arena)
{
  NkArena *previous = current_arena;

  current_arena = arena;
  return previous;
}

/**
 * nk_arena_get_current: (skip)
 *
 * The calling thread's arena, set by nk_arena_set_current().
 *
 * Returns: (transfer none) (nullable): the arena, or %NULL when none is set
 */
NkArena *
nk_arena_get_current (void)
{
  return current_arena;
}

static gboolean
slot_matches (NkTensor     *t,
              NkDType       dtype,
              int           ndim,
              const gint64 *shape,
              NkBucket      bucket)
{
  if (t->dtype != dtype || t->ndim != ndim
      || nk_storage_get_bucket (t->storage) != bucket
      || nk_tensor_get_device (t) != nk_device_get_default ())
    return FALSE;
  for (int d = 0; d < ndim; d++)
    if (t->shape[d] != shape[d])
      return FALSE;
  return TRUE;
}

NkTensor *
nk_arena_take (NkDType        dtype,
               int            ndim,
               const gint64  *shape,
               NkBucket       bucket,
               GError       **error)
{
  NkArena *arena = current_arena;
  NkTensor *t;

  if (arena == NULL)
    return nk_tensor_new_full (NULL, dtype, ndim, shape, bucket, FALSE, error);

  if (arena->cursor < arena->slots->len)
    {
      t = g_ptr_array_index (arena->slots, arena->cursor);
      if (slot_matches (t, dtype, ndim, shape, bucket))
        {
          arena->cursor++;
          /* A reused buffer starts a new life: no grad, no node. */
          nk_tensor_set_autograd (t, NULL, NULL);
          nk_tensor_set_grad (t, NULL);
          nk_tensor_set_requires_grad (t, FALSE);
          return nk_tensor_ref (t);
        }
    }

  t = nk_tensor_new_full (NULL, dtype, ndim, shape, bucket, FALSE, error);
  if (t == NULL)
    return NULL;
  if (arena->cursor < arena->slots->len)
    {
      /* The step changed shape here: this slot is reallocated once. */
      nk_tensor_unref (g_ptr_array_index (arena->slots, arena->cursor));
      g_ptr_array_index (arena->slots, arena->cursor) = nk_tensor_ref (t);
    }
  else
    g_ptr_array_add (arena->slots, nk_tensor_ref (t));
  arena->cursor++;
  return t;
}

NkTensor *
_nk_ag_take_like (NkTensor  *like,
                  NkBucket   bucket,
                  GError   **error)
{
  return nk_arena_take (like->dtype, like->ndim, like->shape, bucket, error);
}
