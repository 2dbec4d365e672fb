/* nk-data-batches.c: fixed batches from an int32/int64 .npy [N, B, T+1] (--batches)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "nk-data.h"

struct _NkBatchFile
{
  NkNpyArray   *array;
  const guint8 *base;
  gboolean      wide;     /* int64 */
  guint64       n, batch, width;   /* width = T + 1 */
};

G_DEFINE_BOXED_TYPE (NkBatchFile, nk_batch_file, nk_batch_file_copy, nk_batch_file_free)

static inline gint64
read_token (const NkBatchFile *bf,
            guint64            i)
{
  if (bf->wide)
    {
      gint64 v;

      memcpy (&v, bf->base + 8 * i, 8);
      return GINT64_FROM_LE (v);
    }
  else
    {
      gint32 v;

      memcpy (&v, bf->base + 4 * i, 4);
      return GINT32_FROM_LE (v);
    }
}

/* One pass over every token, naming the first outside [0, vocab). */
static gboolean
check_tokens (NkBatchFile  *bf,
              const char   *path,
              guint         vocab,
              GError      **error)
{
  guint64 total = bf->n * bf->batch * bf->width;

  for (guint64 i = 0; i < total; i++)
    {
      gint64 v = read_token (bf, i);

      if (v < 0 || v >= vocab)
        {
          guint64 col = i % bf->width, row = (i / bf->width) % bf->batch;
          guint64 b = i / (bf->width * bf->batch);

          g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                       _("%s: the token at batch %" PRIu64 ", row %" PRIu64 ", column %" PRIu64
                         " (counting from 0) is %" PRId64 ", outside the model’s vocabulary of %u."),
                       path, b, row, col, v, vocab);
          return FALSE;
        }
    }
  return TRUE;
}

NkBatchFile *
nk_batch_file_new (const char  *path,
                   guint        vocab,
                   GError     **error)
{
  g_autoptr(NkNpyArray) array = NULL;
  g_autoptr(NkBatchFile) bf = NULL;
  const gint64 *shape;
  NkNpyDType dtype;

  g_return_val_if_fail (path != NULL, NULL);

  array = nk_npy_array_load (path, error);
  if (array == NULL)
    return NULL;
  dtype = nk_npy_array_get_dtype (array);
  shape = nk_npy_array_get_shape (array);
  if ((dtype != NK_NPY_I4 && dtype != NK_NPY_I8) || nk_npy_array_get_ndim (array) != 3
      || shape[0] < 1 || shape[1] < 1 || shape[2] < 2)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE,
                   _("%s: batches must be an int32 or int64 array [N, B, T+1] with N, B ≥ 1 "
                     "and T ≥ 1, not “%s” with %u dimensions."), path,
                   nk_npy_dtype_to_descr (dtype), nk_npy_array_get_ndim (array));
      return NULL;
    }

  bf = g_new0 (NkBatchFile, 1);
  bf->array = g_steal_pointer (&array);
  bf->base = nk_npy_array_get_data (bf->array);
  bf->wide = dtype == NK_NPY_I8;
  bf->n = shape[0];
  bf->batch = shape[1];
  bf->width = shape[2];
  if (!check_tokens (bf, path, vocab, error))
    return NULL;
  return g_steal_pointer (&bf);
}

/**
 * nk_batch_file_copy:
 * @bf: a batch file
 *
 * Copies the batch file: the tokens are read-only and shared (a reference on the
 * mapped array), so the copy costs no more than the struct.
 *
 * Returns: (transfer full): the copy; free it with nk_batch_file_free()
 */
NkBatchFile *
nk_batch_file_copy (NkBatchFile *bf)
{
  NkBatchFile *copy;

  g_return_val_if_fail (bf != NULL, NULL);

  copy = g_memdup2 (bf, sizeof *bf);
  copy->array = nk_npy_array_ref (bf->array);
  return copy;
}

/**
 * nk_batch_file_free:
 * @bf: (nullable) (transfer full): a batch file
 *
 * Frees the batch file and drops its reference on the mapped array.
 */
void
nk_batch_file_free (NkBatchFile *bf)
{
  if (bf == NULL)
    return;
  g_clear_pointer (&bf->array, nk_npy_array_unref);
  g_free (bf);
}

/**
 * nk_batch_file_get_n:
 * @bf: a batch file
 *
 * The number of batches N in the file (its first dimension).
 *
 * Returns: N
 */
guint64
nk_batch_file_get_n (NkBatchFile *bf)
{
  return bf->n;
}

/**
 * nk_batch_file_get_batch:
 * @bf: a batch file
 *
 * The rows per batch B (the file's second dimension).
 *
 * Returns: B
 */
guint64
nk_batch_file_get_batch (NkBatchFile *bf)
{
  return bf->batch;
}

/**
 * nk_batch_file_get_context:
 * @bf: a batch file
 *
 * The sequence length T: one less than the file's last dimension.
 *
 * Returns: T
 */
guint64
nk_batch_file_get_context (NkBatchFile *bf)
{
  return bf->width - 1;
}

/**
 * nk_batch_file_fill: (skip)
 * @bf: a batch file
 * @step: the step, from 0
 * @x: (out caller-allocates): room for B·T int32 inputs, row-major [B, T]
 * @y: (out caller-allocates): room for B·T int32 targets, row-major [B, T]
 *
 * Writes step @step's inputs (batch t mod N, columns 0..T−1) and targets (columns
 * 1..T). Not for bindings (raw buffers).
 */
void
nk_batch_file_fill (NkBatchFile *bf,
                    guint64      step,
                    gint32      *x,
                    gint32      *y)
{
  guint64 t = bf->width - 1;
  guint64 first = (step % bf->n) * bf->batch * bf->width;

  for (guint64 r = 0; r < bf->batch; r++)
    for (guint64 c = 0; c < t; c++)
      {
        x[r * t + c] = (gint32) read_token (bf, first + r * bf->width + c);
        y[r * t + c] = (gint32) read_token (bf, first + r * bf->width + c + 1);
      }
}
