/* nk-data.c: training data: the lecture's synthetic task, .npy arrays, token streams
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "nk-data.h"
#include "nk-file-util.h"
#include "nk-tensor.h"

/**
 * nk_data_error_quark:
 *
 * The domain of %NK_DATA_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-data-error-quark, nk_data_error)

#define DEFAULT_TEXT_RESOURCE "/io/github/napkinml/Napkin/engine/tiny-text.txt"

/* A contiguous tensor on the default device in the DATA bucket, filled from host bytes. */
static NkTensor *
data_tensor_new (NkDType         dtype,
                 int             ndim,
                 const gint64   *shape,
                 gconstpointer   host,
                 GError        **error)
{
  g_autoptr(NkTensor) tensor = NULL;
  gsize nbytes;

  tensor = nk_tensor_new_full (NULL, dtype, ndim, shape, NK_BUCKET_DATA, FALSE, error);
  if (tensor == NULL)
    return NULL;
  nbytes = nk_tensor_nbytes (tensor);
  if (nbytes && !nk_device_copy (nk_tensor_get_device (tensor), NK_COPY_HOST_TO_DEVICE,
                                 nk_storage_get_data (tensor->storage), host, nbytes, error))
    return NULL;
  return g_steal_pointer (&tensor);
}

/* ---- the synthetic linear task --------------------------------------------------- */

void
nk_data_synthetic_fill (NkRng *rng,
                        guint  dim,
                        guint  batch,
                        float *x,
                        float *y)
{
  g_return_if_fail (rng != NULL);
  g_return_if_fail (x != NULL || (gsize) dim * batch == 0);
  g_return_if_fail (y != NULL || batch == 0);

  nk_rng_fill_normal_f32 (rng, x, (gsize) batch * dim, 0.0, 1.0);
  for (guint b = 0; b < batch; b++)
    {
      const float *row = x + (gsize) b * dim;
      double acc = 0.0;

      /* true_w[j] = j; a double sum is exact enough that the result is the correctly
       * rounded dot product for any D a lesson uses, independent of summation order. */
      for (guint j = 0; j < dim; j++)
        acc += (double) j * row[j];
      y[b] = (float) acc;
    }
}

gboolean
nk_data_synthetic_batch (NkRng      *rng,
                         guint       dim,
                         guint       batch,
                         NkTensor  **out_x,
                         NkTensor  **out_y,
                         GError    **error)
{
  g_autofree float *x = NULL;
  g_autofree float *y = NULL;
  g_autoptr(NkTensor) tx = NULL;
  g_autoptr(NkTensor) ty = NULL;

  g_return_val_if_fail (rng != NULL, FALSE);
  g_return_val_if_fail (out_x != NULL && out_y != NULL, FALSE);

  x = g_new (float, MAX ((gsize) batch * dim, 1));
  y = g_new (float, MAX (batch, 1));
  nk_data_synthetic_fill (rng, dim, batch, x, y);

  tx = data_tensor_new (NK_DTYPE_F32, NK_SHAPE ((gint64) batch, (gint64) dim), x, error);
  if (tx == NULL)
    return FALSE;
  ty = data_tensor_new (NK_DTYPE_F32, NK_SHAPE ((gint64) batch), y, error);
  if (ty == NULL)
    return FALSE;

  *out_x = g_steal_pointer (&tx);
  *out_y = g_steal_pointer (&ty);
  return TRUE;
}

/* ---- arrays from .npy ------------------------------------------------------------ */

struct _NkArrayDataset
{
  NkNpyArray  *inputs;
  NkNpyArray  *targets;
  /* Aligned copies, only when a hand-made file put the data at an odd offset. */
  float       *x_copy;
  float       *y_copy;
  const float *x;
  const float *y;
  guint64      n_rows;
  guint        dim;
  guint        batch;
};

G_DEFINE_BOXED_TYPE (NkArrayDataset, nk_array_dataset, nk_array_dataset_copy, nk_array_dataset_free)

static const float *
aligned_floats (NkNpyArray  *array,
                float      **copy)
{
  gconstpointer data = nk_npy_array_get_data (array);

  if (((guintptr) data % G_ALIGNOF (float)) == 0)
    return data;
  *copy = g_malloc (MAX (nk_npy_array_get_nbytes (array), 1));
  memcpy (*copy, data, nk_npy_array_get_nbytes (array));
  return *copy;
}

/* The first NaN or infinity in @values as "row R, column C", or FALSE if none:
 * training on one would report a diverged loss, blaming the learning rate. */
static gboolean
find_nonfinite (const float *values,
                guint64      n_rows,
                guint64      n_cols,
                guint64     *out_row,
                guint64     *out_col)
{
  guint64 n = n_rows * n_cols;

  for (guint64 i = 0; i < n; i++)
    if (!isfinite (values[i]))
      {
        *out_row = i / n_cols;
        *out_col = i % n_cols;
        return TRUE;
      }
  return FALSE;
}

static gboolean
check_finite (NkNpyArray   *array,
              const float  *values,
              guint64       n_rows,
              guint64       n_cols,
              GError      **error)
{
  guint64 row, col;

  if (!find_nonfinite (values, n_rows, n_cols, &row, &col))
    return TRUE;
  if (n_cols == 1)
    g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_VALUES,
                 _("%s: element %" PRIu64 " is %g; training data must be finite."),
                 nk_npy_array_get_name (array), row, (double) values[row]);
  else
    g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_VALUES,
                 _("%s: row %" PRIu64 ", column %" PRIu64 " is %g; training data must "
                   "be finite."), nk_npy_array_get_name (array), row, col,
                 (double) values[row * n_cols + col]);
  return FALSE;
}

/**
 * nk_array_dataset_new_from_arrays:
 * @inputs: X, float32 [N, D]
 * @targets: Y, float32 [N] or [N, 1]
 * @batch: B, which must divide N
 * @error: return location for a #GError (as nk_array_dataset_new())
 *
 * As nk_array_dataset_new(), from arrays already parsed; the dataset takes a
 * reference on each.
 *
 * Returns: (transfer full) (nullable): the dataset
 */
NkArrayDataset *
nk_array_dataset_new_from_arrays (NkNpyArray  *inputs,
                                  NkNpyArray  *targets,
                                  guint        batch,
                                  GError     **error)
{
  NkArrayDataset *ds;
  const gint64 *xs, *ys;
  guint64 n;

  g_return_val_if_fail (inputs != NULL, NULL);
  g_return_val_if_fail (targets != NULL, NULL);
  g_return_val_if_fail (batch > 0, NULL);

  xs = nk_npy_array_get_shape (inputs);
  ys = nk_npy_array_get_shape (targets);

  if (nk_npy_array_get_dtype (inputs) != NK_NPY_F4 || nk_npy_array_get_ndim (inputs) != 2)
    {
      g_autoptr(GError) local = NULL;

      nk_npy_array_check (inputs, NK_NPY_F4, 2, NULL, &local);
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE,
                   _("The inputs must be float32 [N, D]: %s"), local->message);
      return NULL;
    }
  n = (guint64) xs[0];
  if (n == 0 || xs[1] <= 0 || xs[1] > G_MAXUINT)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE,
                   _("The inputs %s have shape (%" PRId64 ", %" PRId64
                     "): there must be at least one row and one column."),
                   nk_npy_array_get_name (inputs), xs[0], xs[1]);
      return NULL;
    }
  if (nk_npy_array_get_dtype (targets) != NK_NPY_F4
      || !(nk_npy_array_get_ndim (targets) == 1
           || (nk_npy_array_get_ndim (targets) == 2 && ys[1] == 1))
      || (guint64) ys[0] != n)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE,
                   _("The targets %s must be float32 with shape (%" PRIu64 ",) "
                     "to match the %" PRIu64 " rows of %s, but they are "
                     "“%s” with %u dimension(s) and %" PRId64 " rows."),
                   nk_npy_array_get_name (targets), n, n, nk_npy_array_get_name (inputs),
                   nk_npy_dtype_to_descr (nk_npy_array_get_dtype (targets)),
                   nk_npy_array_get_ndim (targets),
                   nk_npy_array_get_ndim (targets) ? ys[0] : 0);
      return NULL;
    }
  if (n % batch != 0)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_BATCH,
                   _("The %" PRIu64 " rows of %s are not a multiple of the "
                     "batch size %u, so a batch would wrap around; use a batch size "
                     "that divides %" PRIu64 "."),
                   n, nk_npy_array_get_name (inputs), batch, n);
      return NULL;
    }

  ds = g_new0 (NkArrayDataset, 1);
  ds->inputs = nk_npy_array_ref (inputs);
  ds->targets = nk_npy_array_ref (targets);
  ds->n_rows = n;
  ds->dim = (guint) xs[1];
  ds->batch = batch;
  ds->x = aligned_floats (inputs, &ds->x_copy);
  ds->y = aligned_floats (targets, &ds->y_copy);
  if (!check_finite (inputs, ds->x, n, ds->dim, error)
      || !check_finite (targets, ds->y, n, 1, error))
    {
      nk_array_dataset_free (ds);
      return NULL;
    }
  return ds;
}

NkArrayDataset *
nk_array_dataset_new (const char  *inputs_path,
                      const char  *targets_path,
                      guint        batch,
                      GError     **error)
{
  g_autoptr(NkNpyArray) inputs = NULL;
  g_autoptr(NkNpyArray) targets = NULL;

  g_return_val_if_fail (inputs_path != NULL, NULL);
  g_return_val_if_fail (targets_path != NULL, NULL);

  inputs = nk_npy_array_load (inputs_path, error);
  if (inputs == NULL)
    return NULL;
  targets = nk_npy_array_load (targets_path, error);
  if (targets == NULL)
    return NULL;
  return nk_array_dataset_new_from_arrays (inputs, targets, batch, error);
}

/**
 * nk_array_dataset_copy:
 * @ds: a dataset
 *
 * Copies the dataset: the copy shares the two mapped, read-only arrays (a reference
 * each), so it costs no more than the struct.
 *
 * Returns: (transfer full): the copy; free it with nk_array_dataset_free()
 */
NkArrayDataset *
nk_array_dataset_copy (NkArrayDataset *ds)
{
  NkArrayDataset *copy;

  g_return_val_if_fail (ds != NULL, NULL);

  copy = g_memdup2 (ds, sizeof *ds);
  copy->inputs = nk_npy_array_ref (ds->inputs);
  copy->targets = nk_npy_array_ref (ds->targets);
  copy->x_copy = copy->y_copy = NULL;
  copy->x = aligned_floats (copy->inputs, &copy->x_copy);
  copy->y = aligned_floats (copy->targets, &copy->y_copy);
  return copy;
}

/**
 * nk_array_dataset_free:
 * @ds: (nullable) (transfer full): a dataset
 *
 * Frees the dataset and drops its references on the arrays.
 */
void
nk_array_dataset_free (NkArrayDataset *ds)
{
  if (ds == NULL)
    return;
  nk_npy_array_unref (ds->inputs);
  nk_npy_array_unref (ds->targets);
  g_free (ds->x_copy);
  g_free (ds->y_copy);
  g_free (ds);
}

/**
 * nk_array_dataset_get_n_rows:
 * @ds: a dataset
 *
 * The number of rows N, shared by X and Y.
 *
 * Returns: N
 */
guint64
nk_array_dataset_get_n_rows (NkArrayDataset *ds)
{
  g_return_val_if_fail (ds != NULL, 0);
  return ds->n_rows;
}

/**
 * nk_array_dataset_get_dim:
 * @ds: a dataset
 *
 * The number of input features D (X's second dimension).
 *
 * Returns: D
 */
guint
nk_array_dataset_get_dim (NkArrayDataset *ds)
{
  g_return_val_if_fail (ds != NULL, 0);
  return ds->dim;
}

/**
 * nk_array_dataset_get_batch:
 * @ds: a dataset
 *
 * The rows served per step, B.
 *
 * Returns: B
 */
guint
nk_array_dataset_get_batch (NkArrayDataset *ds)
{
  g_return_val_if_fail (ds != NULL, 0);
  return ds->batch;
}

/**
 * nk_array_dataset_batch_start:
 * @ds: a dataset
 * @step: the step, from 0
 *
 * The first row of step @step's batch: (step·B) mod N, so the rows are read in order
 * and wrap around after each epoch.
 *
 * Returns: the row index
 */
guint64
nk_array_dataset_batch_start (NkArrayDataset *ds,
                              guint64         step)
{
  g_return_val_if_fail (ds != NULL, 0);

  /* (step·B) mod N without overflowing for huge step counts. */
  return (guint64) (((unsigned __int128) step * ds->batch) % ds->n_rows);
}

void
nk_array_dataset_get_batch_data (NkArrayDataset  *ds,
                                 guint64          step,
                                 const float    **out_x,
                                 const float    **out_y)
{
  guint64 start;

  g_return_if_fail (ds != NULL);

  start = nk_array_dataset_batch_start (ds, step);
  if (out_x)
    *out_x = ds->x + start * ds->dim;
  if (out_y)
    *out_y = ds->y + start;
}

/**
 * nk_array_dataset_fill: (skip)
 * @ds: a dataset
 * @step: the step, from 0
 * @x: (out caller-allocates): room for B·D floats, row-major [B, D]
 * @y: (out caller-allocates): room for B floats
 *
 * Copies step @step's rows into caller buffers. Not for bindings (raw buffers): they
 * call nk_array_dataset_batch().
 */
void
nk_array_dataset_fill (NkArrayDataset *ds,
                       guint64         step,
                       float          *x,
                       float          *y)
{
  const float *sx, *sy;

  g_return_if_fail (ds != NULL);
  g_return_if_fail (x != NULL && y != NULL);

  nk_array_dataset_get_batch_data (ds, step, &sx, &sy);
  memcpy (x, sx, (gsize) ds->batch * ds->dim * sizeof (float));
  memcpy (y, sy, (gsize) ds->batch * sizeof (float));
}

/**
 * nk_array_dataset_batch:
 * @ds: a dataset
 * @step: the step, from 0
 * @out_x: (out) (transfer full): f32 [B, D] in %NK_BUCKET_DATA
 * @out_y: (out) (transfer full): f32 [B] in %NK_BUCKET_DATA
 * @error: return location for a #GError (allocation)
 *
 * Copies step @step's rows into two new contiguous CPU tensors.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_array_dataset_batch (NkArrayDataset  *ds,
                        guint64          step,
                        NkTensor       **out_x,
                        NkTensor       **out_y,
                        GError         **error)
{
  g_autoptr(NkTensor) tx = NULL;
  g_autoptr(NkTensor) ty = NULL;
  const float *sx, *sy;

  g_return_val_if_fail (ds != NULL, FALSE);
  g_return_val_if_fail (out_x != NULL && out_y != NULL, FALSE);

  nk_array_dataset_get_batch_data (ds, step, &sx, &sy);
  tx = data_tensor_new (NK_DTYPE_F32, NK_SHAPE ((gint64) ds->batch, (gint64) ds->dim), sx, error);
  if (tx == NULL)
    return FALSE;
  ty = data_tensor_new (NK_DTYPE_F32, NK_SHAPE ((gint64) ds->batch), sy, error);
  if (ty == NULL)
    return FALSE;

  *out_x = g_steal_pointer (&tx);
  *out_y = g_steal_pointer (&ty);
  return TRUE;
}

/* ---- token streams --------------------------------------------------------------- */

typedef enum {
  TOKENS_U8,
  TOKENS_U16,
  TOKENS_I32,
} TokenKind;

struct _NkTokenStream
{
  GBytes       *bytes;     /* holds the memory (a mapped file's, or the text's) */
  char         *name;      /* the file, for messages */
  NkNpyArray   *array;     /* when the stream came from a .npy */
  const guint8 *base;
  guint64       length;
  TokenKind     kind;
  guint         vocab;
};

G_DEFINE_BOXED_TYPE (NkTokenStream, nk_token_stream, nk_token_stream_copy, nk_token_stream_free)

/* Mapped .npy data is aligned in practice but a raw .bin slice need not be: read
 * tokens bytewise (the compiler turns this into one load where it may). */
static inline guint32
read_token (const NkTokenStream *ts,
            guint64              i)
{
  switch (ts->kind)
    {
    case TOKENS_U8:
      return ts->base[i];
    case TOKENS_U16:
      {
        guint16 v;

        memcpy (&v, ts->base + 2 * i, 2);
        return GUINT16_FROM_LE (v);
      }
    case TOKENS_I32:
    default:
      {
        guint32 v;

        memcpy (&v, ts->base + 4 * i, 4);
        return GUINT32_FROM_LE (v);
      }
    }
}

NkTokenStream *
nk_token_stream_new_from_file (const char  *path,
                               GError     **error)
{
  g_autoptr(NkTokenStream) ts = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) local = NULL;
  gsize size;
  const guint8 *data;

  g_return_val_if_fail (path != NULL, NULL);

  if (!nk_file_check_regular (path, &local))
    {
      g_set_error_literal (error, NK_DATA_ERROR, NK_DATA_ERROR_IO, local->message);
      return NULL;
    }
  mapped = g_mapped_file_new (path, FALSE, &local);
  if (mapped == NULL)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_IO,
                   _("Could not open the token file: %s"), local->message);
      return NULL;
    }

  ts = g_new0 (NkTokenStream, 1);
  ts->name = g_strdup (path);
  ts->bytes = g_mapped_file_get_bytes (mapped);
  data = g_bytes_get_data (ts->bytes, &size);

  if (size >= 6 && memcmp (data, "\x93NUMPY", 6) == 0)
    {
      NkNpyDType dtype;

      ts->array = nk_npy_array_new_from_bytes (ts->bytes, path, error);
      if (ts->array == NULL)
        return NULL;
      dtype = nk_npy_array_get_dtype (ts->array);
      if (nk_npy_array_get_ndim (ts->array) != 1
          || (dtype != NK_NPY_U2 && dtype != NK_NPY_I4 && dtype != NK_NPY_U1))
        {
          g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                       _("%s: a token stream must be a 1-D array of uint16 or int32, "
                         "not “%s” with %u dimensions"), path,
                       nk_npy_dtype_to_descr (dtype), nk_npy_array_get_ndim (ts->array));
          return NULL;
        }
      ts->base = nk_npy_array_get_data (ts->array);
      ts->length = nk_npy_array_get_n_elements (ts->array);
      ts->kind = dtype == NK_NPY_U2 ? TOKENS_U16 : dtype == NK_NPY_I4 ? TOKENS_I32 : TOKENS_U8;
    }
  else
    {
      if (size % 2 != 0)
        {
          g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                       _("%s: a raw token file holds little-endian uint16 tokens, but its "
                         "%zu bytes are an odd number"), path, size);
          return NULL;
        }
      ts->base = data;
      ts->length = size / 2;
      ts->kind = TOKENS_U16;
    }

  if (ts->length == 0)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                   _("%s: the token stream is empty"), path);
      return NULL;
    }

  if (ts->kind == TOKENS_I32)
    {
      guint32 max = 0;

      /* One sequential pass: negative tokens would index outside any embedding. */
      for (guint64 i = 0; i < ts->length; i++)
        {
          gint32 v = (gint32) read_token (ts, i);

          if (v < 0)
            {
              g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                           _("%s: token %" PRIu64 " is %d; tokens must not be "
                             "negative"), path, i, v);
              return NULL;
            }
          max = MAX (max, (guint32) v);
        }
      if (max == G_MAXINT32)
        {
          g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                       _("%s: token %u is too large for a vocabulary"), path, max);
          return NULL;
        }
      ts->vocab = max + 1;
    }
  else
    ts->vocab = ts->kind == TOKENS_U16 ? 65536 : 256;

  return g_steal_pointer (&ts);
}

NkTokenStream *
nk_token_stream_new_from_text (GBytes *bytes)
{
  NkTokenStream *ts;
  gsize size;

  g_return_val_if_fail (bytes != NULL, NULL);

  ts = g_new0 (NkTokenStream, 1);
  ts->name = g_strdup (_("the text"));
  ts->bytes = g_bytes_ref (bytes);
  ts->base = g_bytes_get_data (bytes, &size);
  ts->length = size;
  ts->kind = TOKENS_U8;
  ts->vocab = 256;
  return ts;
}

NkTokenStream *
nk_token_stream_new_from_text_file (const char  *path,
                                    GError     **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;
  NkTokenStream *ts;

  g_return_val_if_fail (path != NULL, NULL);

  if (!nk_file_check_regular (path, &local))
    {
      g_set_error_literal (error, NK_DATA_ERROR, NK_DATA_ERROR_IO, local->message);
      return NULL;
    }
  mapped = g_mapped_file_new (path, FALSE, &local);
  if (mapped == NULL)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_IO,
                   _("Could not open the text file: %s"), local->message);
      return NULL;
    }
  bytes = g_mapped_file_get_bytes (mapped);
  if (g_bytes_get_size (bytes) == 0)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                   _("%s: the text is empty"), path);
      return NULL;
    }
  ts = nk_token_stream_new_from_text (bytes);
  g_free (ts->name);
  ts->name = g_strdup (path);
  return ts;
}

/**
 * nk_data_get_default_text:
 *
 * The engine's bundled default text (data/tiny-text.txt), the one
 * nk_token_stream_new_default() reads.
 *
 * Returns: (transfer full): the text's bytes
 */
GBytes *
nk_data_get_default_text (void)
{
  GBytes *bytes;

  bytes = g_resources_lookup_data (DEFAULT_TEXT_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  /* Compiled into the engine: missing means a broken build, not a user error. */
  g_return_val_if_fail (bytes != NULL, g_bytes_new_static ("", 0));
  return bytes;
}

NkTokenStream *
nk_token_stream_new_default (void)
{
  g_autoptr(GBytes) bytes = nk_data_get_default_text ();

  return nk_token_stream_new_from_text (bytes);
}

/**
 * nk_token_stream_copy:
 * @ts: a stream
 *
 * Copies the stream: the tokens are read-only and shared (a reference on the mapped
 * file or the text), so the copy costs no more than the struct.
 *
 * Returns: (transfer full): the copy; free it with nk_token_stream_free()
 */
NkTokenStream *
nk_token_stream_copy (NkTokenStream *ts)
{
  NkTokenStream *copy;

  g_return_val_if_fail (ts != NULL, NULL);

  copy = g_memdup2 (ts, sizeof *ts);
  copy->bytes = ts->bytes ? g_bytes_ref (ts->bytes) : NULL;
  copy->name = g_strdup (ts->name);
  copy->array = ts->array ? nk_npy_array_ref (ts->array) : NULL;
  return copy;
}

/**
 * nk_token_stream_free:
 * @ts: (nullable) (transfer full): a stream
 *
 * Frees the stream and drops its reference on the file or text.
 */
void
nk_token_stream_free (NkTokenStream *ts)
{
  if (ts == NULL)
    return;
  g_clear_pointer (&ts->array, nk_npy_array_unref);
  g_clear_pointer (&ts->bytes, g_bytes_unref);
  g_free (ts->name);
  g_free (ts);
}

/**
 * nk_token_stream_get_length:
 * @ts: a stream
 *
 * The number of tokens in the stream.
 *
 * Returns: the length in tokens
 */
guint64
nk_token_stream_get_length (NkTokenStream *ts)
{
  g_return_val_if_fail (ts != NULL, 0);
  return ts->length;
}

/**
 * nk_token_stream_get_vocab_size:
 * @ts: a stream
 *
 * The vocabulary the stream's tokens come from: 65536 for uint16 files, 256 for
 * uint8 files and text, max token + 1 for int32 files.
 *
 * Returns: the vocabulary size
 */
guint
nk_token_stream_get_vocab_size (NkTokenStream *ts)
{
  g_return_val_if_fail (ts != NULL, 0);
  return ts->vocab;
}

gboolean
nk_token_stream_check_vocab (NkTokenStream  *ts,
                             guint           vocab,
                             GError        **error)
{
  g_return_val_if_fail (ts != NULL, FALSE);

  /* Only the first bad token is named; a file of 10^8 tokens scans in well under a
   * second from the page cache, which is nothing beside the run it would have broken. */
  for (guint64 i = 0; i < ts->length; i++)
    {
      guint32 token = read_token (ts, i);

      if (token >= vocab)
        {
          g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS,
                       _("%s: token %" PRIu64 " (counting from 0) is %u, outside the "
                         "model’s vocabulary of %u."), ts->name, i, token, vocab);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * nk_token_stream_get_token:
 * @ts: a stream
 * @index: a position, below nk_token_stream_get_length()
 *
 * Reads one token.
 *
 * Returns: token @index
 */
guint32
nk_token_stream_get_token (NkTokenStream *ts,
                           guint64        index)
{
  g_return_val_if_fail (ts != NULL, 0);
  g_return_val_if_fail (index < ts->length, 0);

  return read_token (ts, index);
}

gboolean
nk_token_stream_sample_fill (NkTokenStream  *ts,
                             NkRng          *rng,
                             guint           batch,
                             guint           context,
                             gint32         *out,
                             guint64        *out_starts,
                             GError        **error)
{
  guint64 window = (guint64) context + 1;

  g_return_val_if_fail (ts != NULL, FALSE);
  g_return_val_if_fail (rng != NULL, FALSE);
  g_return_val_if_fail (out != NULL || batch == 0, FALSE);

  if (ts->length < window)
    {
      g_set_error (error, NK_DATA_ERROR, NK_DATA_ERROR_BATCH,
                   _("The token stream has %" PRIu64 " tokens, fewer than the "
                     "%" PRIu64 " a window of context %u needs."),
                   ts->length, window, context);
      return FALSE;
    }

  for (guint b = 0; b < batch; b++)
    {
      guint64 start = nk_rng_uniform_int (rng, ts->length - window + 1);
      gint32 *row = out + (gsize) b * window;

      if (out_starts)
        out_starts[b] = start;
      for (guint64 i = 0; i < window; i++)
        row[i] = (gint32) read_token (ts, start + i);
    }
  return TRUE;
}

/**
 * nk_token_stream_sample:
 * @ts: a stream
 * @rng: the run's generator
 * @batch: B
 * @context: T
 * @error: return location for a #GError (%NK_DATA_ERROR_BATCH if the stream is
 *   shorter than T+1 tokens)
 *
 * As nk_token_stream_sample_fill(): B windows of T+1 tokens at uniform random starts,
 * as rows of a new tensor (inputs are columns 0..T−1, targets 1..T).
 *
 * Returns: (transfer full) (nullable): an int32 tensor [B, T+1] in %NK_BUCKET_DATA
 */
NkTensor *
nk_token_stream_sample (NkTokenStream  *ts,
                        NkRng          *rng,
                        guint           batch,
                        guint           context,
                        GError        **error)
{
  g_autofree gint32 *host = NULL;

  g_return_val_if_fail (ts != NULL, NULL);

  host = g_new (gint32, MAX ((gsize) batch * (context + 1), 1));
  if (!nk_token_stream_sample_fill (ts, rng, batch, context, host, NULL, error))
    return NULL;
  return data_tensor_new (NK_DTYPE_INT32, NK_SHAPE ((gint64) batch, (gint64) context + 1),
                          host, error);
}
