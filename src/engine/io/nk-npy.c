/* nk-npy.c: NumPy .npy arrays, read (memory-mapped, validated) and written
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "nk-file-util.h"
#include "nk-npy.h"
#include "nk-ops.h"
#include "nk-safetensors.h"
#include "nk-tensor.h"

/**
 * nk_npy_error_quark:
 *
 * The domain of %NK_NPY_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-npy-error-quark, nk_npy_error)

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* numpy itself refuses headers over 10 000 bytes unless told otherwise; a little more
 * slack here costs nothing and still bounds the parser's work. */
#define NPY_MAX_HEADER (1u << 20)

struct _NkNpyArray
{
  gatomicrefcount ref_count;

  char         *name;
  GMappedFile  *mapped;   /* one of mapped / bytes holds the memory */
  GBytes       *bytes;

  NkNpyDType    dtype;
  guint         ndim;
  gint64        shape[NK_NPY_MAX_DIMS];
  guint64       numel;
  const guint8 *data;
  gsize         nbytes;
};

G_DEFINE_BOXED_TYPE (NkNpyArray, nk_npy_array, nk_npy_array_ref, nk_npy_array_unref)

static const struct {
  const char *descr;
  gsize       item_size;
} dtype_table[NK_NPY_N_DTYPES] = {
  [NK_NPY_F4] = { "<f4", 4 },
  [NK_NPY_F8] = { "<f8", 8 },
  [NK_NPY_I4] = { "<i4", 4 },
  [NK_NPY_I8] = { "<i8", 8 },
  [NK_NPY_U2] = { "<u2", 2 },
  [NK_NPY_U1] = { "|u1", 1 },
};

/**
 * nk_npy_dtype_to_descr:
 * @dtype: a dtype
 *
 * The dtype's descr as numpy writes it in the header ('<f4', '|u1', …).
 *
 * Returns: (transfer none): a static string
 */
const char *
nk_npy_dtype_to_descr (NkNpyDType dtype)
{
  g_return_val_if_fail (dtype < NK_NPY_N_DTYPES, NULL);
  return dtype_table[dtype].descr;
}

/**
 * nk_npy_dtype_item_size:
 * @dtype: a dtype
 *
 * The size of one element of @dtype.
 *
 * Returns: the size in bytes
 */
gsize
nk_npy_dtype_item_size (NkNpyDType dtype)
{
  g_return_val_if_fail (dtype < NK_NPY_N_DTYPES, 0);
  return dtype_table[dtype].item_size;
}

/* ---- the header dict ------------------------------------------------------------ */

typedef struct {
  const char *p;
  const char *end;
} Cursor;

static void
skip_space (Cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static gboolean
eat (Cursor *c,
     char    ch)
{
  skip_space (c);
  if (c->p < c->end && *c->p == ch)
    {
      c->p++;
      return TRUE;
    }
  return FALSE;
}

/* A Python string literal in ' or " without escapes (numpy never writes any in the
 * three values it reads). */
static char *
parse_string (Cursor *c)
{
  const char *start;
  char quote;

  skip_space (c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return NULL;
  quote = *c->p++;
  start = c->p;
  while (c->p < c->end && *c->p != quote)
    {
      if (*c->p == '\\' || *c->p == '\n')
        return NULL;
      c->p++;
    }
  if (c->p >= c->end)
    return NULL;
  c->p++;
  return g_strndup (start, c->p - 1 - start);
}

static gboolean
parse_word (Cursor     *c,
            const char *word)
{
  gsize len = strlen (word);

  skip_space (c);
  if ((gsize) (c->end - c->p) >= len && memcmp (c->p, word, len) == 0)
    {
      const char *after = c->p + len;

      if (after < c->end && (g_ascii_isalnum (*after) || *after == '_'))
        return FALSE;
      c->p = after;
      return TRUE;
    }
  return FALSE;
}

static gboolean
parse_int (Cursor *c,
           gint64 *out)
{
  guint64 value = 0;
  gboolean any = FALSE;

  skip_space (c);
  while (c->p < c->end && g_ascii_isdigit (*c->p))
    {
      guint digit = *c->p - '0';

      if (value > ((guint64) G_MAXINT64 - digit) / 10)
        return FALSE;
      value = value * 10 + digit;
      any = TRUE;
      c->p++;
    }
  /* Python 2 era files may spell sizes as 3L. */
  if (any && c->p < c->end && *c->p == 'L')
    c->p++;
  *out = (gint64) value;
  return any;
}

static gboolean
parse_shape (Cursor *c,
             guint  *ndim,
             gint64 *shape)
{
  *ndim = 0;
  if (!eat (c, '('))
    return FALSE;
  if (eat (c, ')'))
    return TRUE;
  for (;;)
    {
      gint64 v;

      if (*ndim >= NK_NPY_MAX_DIMS || !parse_int (c, &v))
        return FALSE;
      shape[(*ndim)++] = v;
      if (eat (c, ')'))
        return *ndim > 1;      /* "(5)" is an int in Python, not a tuple */
      if (!eat (c, ','))
        return FALSE;
      if (eat (c, ')'))
        return TRUE;
    }
}

/* Every message names the file first. */
#define fail(error, code, name, ...) \
  nk_file_fail ((error), NK_NPY_ERROR, (code), (name), __VA_ARGS__)

static gboolean
parse_descr (const char *descr,
             NkNpyDType *out)
{
  char order, kind;
  const char *size;

  if (strlen (descr) != 3)
    return FALSE;
  order = descr[0];
  kind = descr[1];
  size = descr + 2;

  /* '|' (not applicable) and '=' (native) are both little-endian here. */
  if (order != '<' && order != '|' && order != '=')
    return FALSE;
  if (kind == 'u' && *size == '1')
    *out = NK_NPY_U1;
  else if (order == '|')
    return FALSE;
  else if (kind == 'f' && *size == '4')
    *out = NK_NPY_F4;
  else if (kind == 'f' && *size == '8')
    *out = NK_NPY_F8;
  else if (kind == 'i' && *size == '4')
    *out = NK_NPY_I4;
  else if (kind == 'i' && *size == '8')
    *out = NK_NPY_I8;
  else if (kind == 'u' && *size == '2')
    *out = NK_NPY_U2;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_header (NkNpyArray  *array,
              const char  *header,
              gsize        len,
              GError     **error)
{
  Cursor c = { header, header + len };
  gboolean have_descr = FALSE, have_order = FALSE, have_shape = FALSE;
  gboolean fortran = FALSE;
  g_autofree char *descr = NULL;
  const char *name = array->name;

  if (memchr (header, '\0', len) != NULL)
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("the header contains a NUL byte"));
  if (!eat (&c, '{'))
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("the header is not a Python dict (it must start with “{”)"));

  while (!eat (&c, '}'))
    {
      g_autofree char *key = parse_string (&c);

      if (key == NULL)
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the header dict has a malformed key at byte %d"),
                     (int) (c.p - header));
      if (!eat (&c, ':'))
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the header dict has no “:” after “%s”"), key);

      if (g_str_equal (key, "descr") && !have_descr)
        {
          descr = parse_string (&c);
          if (descr == NULL)
            return fail (error, NK_NPY_ERROR_UNSUPPORTED, name,
                         _("its dtype is not a simple type string (structured "
                           "arrays are not supported)"));
          have_descr = TRUE;
        }
      else if (g_str_equal (key, "fortran_order") && !have_order)
        {
          if (parse_word (&c, "True"))
            fortran = TRUE;
          else if (parse_word (&c, "False"))
            fortran = FALSE;
          else
            return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                         _("“fortran_order” is not True or False"));
          have_order = TRUE;
        }
      else if (g_str_equal (key, "shape") && !have_shape)
        {
          if (!parse_shape (&c, &array->ndim, array->shape))
            return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                         _("“shape” is not a tuple of at most %d non-negative "
                           "integers"), NK_NPY_MAX_DIMS);
          have_shape = TRUE;
        }
      else if (have_descr && g_str_equal (key, "descr"))
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the header dict has the key “%s” twice"), key);
      else if ((have_order && g_str_equal (key, "fortran_order"))
               || (have_shape && g_str_equal (key, "shape")))
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the header dict has the key “%s” twice"), key);
      else
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the header dict has an unexpected key “%s”"), key);

      if (!eat (&c, ','))
        {
          if (eat (&c, '}'))
            break;
          return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                       _("the header dict is malformed at byte %d"),
                       (int) (c.p - header));
        }
    }

  skip_space (&c);
  if (c.p != c.end)
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("the header has stray bytes after its dict"));
  if (!have_descr || !have_order || !have_shape)
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("the header dict lacks “%s”"),
                 !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  if (!parse_descr (descr, &array->dtype))
    return fail (error, NK_NPY_ERROR_UNSUPPORTED, name,
                 _("its dtype “%s” is not supported (use <f4, <f8, <i4, <i8, <u2 or |u1)"),
                 descr);
  if (fortran)
    return fail (error, NK_NPY_ERROR_UNSUPPORTED, name,
                 _("it is stored in Fortran (column-major) order; save it with "
                   "numpy.ascontiguousarray first"));
  return TRUE;
}

static gboolean
parse_file (NkNpyArray    *array,
            const guint8  *base,
            gsize          size,
            GError       **error)
{
  const char *name = array->name;
  gsize header_len, data_start, item;
  guint major;

  if (size < NPY_MAGIC_LEN + 2 || memcmp (base, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
    return fail (error, NK_NPY_ERROR_BAD_MAGIC, name,
                 _("not a .npy file (it does not start with “\\x93NUMPY”)"));
  major = base[6];
  if ((major != 1 && major != 2 && major != 3) || base[7] != 0)
    return fail (error, NK_NPY_ERROR_BAD_MAGIC, name,
                 _("unknown .npy format version %u.%u"), major, base[7]);

  if (major == 1)
    {
      if (size < 10)
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the file ends inside its header length"));
      header_len = base[8] | (gsize) base[9] << 8;
      data_start = 10;
    }
  else
    {
      if (size < 12)
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("the file ends inside its header length"));
      header_len = base[8] | (gsize) base[9] << 8 | (gsize) base[10] << 16
                   | (gsize) base[11] << 24;
      data_start = 12;
    }

  if (header_len > NPY_MAX_HEADER)
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("its header claims %zu bytes, more than the %u "
                   "this reader accepts"), header_len, NPY_MAX_HEADER);
  if (header_len > size - data_start)
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("its header claims %zu bytes but only %zu follow"), header_len, size - data_start);
  /* Before 3.0 the header is latin-1; the parser only accepts ASCII syntax anyway. */
  if (major == 3 && !g_utf8_validate ((const char *) base + data_start, header_len, NULL))
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("its version 3.0 header is not valid UTF-8"));

  if (!parse_header (array, (const char *) base + data_start, header_len, error))
    return FALSE;
  data_start += header_len;

  item = dtype_table[array->dtype].item_size;
  array->numel = 1;
  for (guint d = 0; d < array->ndim; d++)
    {
      if (array->shape[d] != 0 && array->numel > G_MAXUINT64 / (guint64) array->shape[d])
        return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                     _("its shape has more elements than a 64-bit count holds"));
      array->numel *= (guint64) array->shape[d];
    }
  if (array->numel > G_MAXSIZE / item)
    return fail (error, NK_NPY_ERROR_BAD_HEADER, name,
                 _("its shape needs more bytes than this machine can address"));

  array->nbytes = array->numel * item;
  if (size - data_start != array->nbytes)
    {
      g_autofree char *shape = NULL;
      GString *s = g_string_new ("(");

      for (guint d = 0; d < array->ndim; d++)
        g_string_append_printf (s, "%s%" PRId64, d ? ", " : "", array->shape[d]);
      g_string_append (s, array->ndim == 1 ? ",)" : ")");
      shape = g_string_free (s, FALSE);

      return fail (error, NK_NPY_ERROR_TRUNCATED, name,
                   size - data_start < array->nbytes
                   ? _("truncated: shape %s of %s needs %zu data bytes "
                       "but only %zu are there")
                   : _("shape %s of %s needs %zu data bytes but %zu are there"),
                   shape, dtype_table[array->dtype].descr, array->nbytes,
                   size - data_start);
    }

  array->data = base + data_start;
  return TRUE;
}

static NkNpyArray *
array_new (const char *name)
{
  NkNpyArray *array = g_new0 (NkNpyArray, 1);

  g_atomic_ref_count_init (&array->ref_count);
  array->name = g_strdup (name ? name : "(.npy bytes)");
  return array;
}

/* Maps @path; writable mappings are private copy-on-write, so the file never changes. */
static GMappedFile *
map_file (const char  *path,
          gboolean     writable,
          GError     **error)
{
  GMappedFile *mapped;
  int fd;
  g_autoptr(GError) local = NULL;
  int errsv;

  if (!nk_file_check_regular (path, &local))
    {
      g_set_error_literal (error, NK_NPY_ERROR, NK_NPY_ERROR_IO, local->message);
      return NULL;
    }
  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, NK_NPY_ERROR, NK_NPY_ERROR_IO,
                   _("Could not open “%s”: %s"), path, g_strerror (errsv));
      return NULL;
    }
  mapped = g_mapped_file_new_from_fd (fd, writable, NULL);
  errsv = errno;
  close (fd);
  if (mapped == NULL)
    g_set_error (error, NK_NPY_ERROR, NK_NPY_ERROR_IO,
                 _("Could not map “%s”: %s"), path, g_strerror (errsv));
  return mapped;
}

static NkNpyArray *
load_mapped (const char  *path,
             gboolean     writable,
             GError     **error)
{
  g_autoptr(NkNpyArray) array = NULL;
  GMappedFile *mapped;

  g_return_val_if_fail (path != NULL, NULL);

  mapped = map_file (path, writable, error);
  if (mapped == NULL)
    return NULL;

  array = array_new (path);
  array->mapped = mapped;
  /* An empty file maps to NULL contents; parse_file reports it as too short. */
  if (!parse_file (array, (const guint8 *) g_mapped_file_get_contents (mapped),
                   g_mapped_file_get_length (mapped), error))
    return NULL;

  return g_steal_pointer (&array);
}

NkNpyArray *
nk_npy_array_load (const char  *path,
                   GError     **error)
{
  return load_mapped (path, FALSE, error);
}

NkNpyArray *
nk_npy_array_new_from_bytes (GBytes      *bytes,
                             const char  *name,
                             GError     **error)
{
  g_autoptr(NkNpyArray) array = NULL;
  gsize size;
  const guint8 *base;

  g_return_val_if_fail (bytes != NULL, NULL);

  array = array_new (name);
  array->bytes = g_bytes_ref (bytes);
  base = g_bytes_get_data (bytes, &size);
  if (!parse_file (array, base, size, error))
    return NULL;

  return g_steal_pointer (&array);
}

/**
 * nk_npy_array_ref:
 * @array: an array
 *
 * Adds a reference; the mapping or bytes stay alive while one is held.
 *
 * Returns: (transfer full): @array
 */
NkNpyArray *
nk_npy_array_ref (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, NULL);

  g_atomic_ref_count_inc (&array->ref_count);
  return array;
}

/**
 * nk_npy_array_unref:
 * @array: (transfer full): an array
 *
 * Drops a reference; the last one unmaps the file (or releases the bytes).
 */
void
nk_npy_array_unref (NkNpyArray *array)
{
  g_return_if_fail (array != NULL);

  if (!g_atomic_ref_count_dec (&array->ref_count))
    return;

  g_clear_pointer (&array->mapped, g_mapped_file_unref);
  g_clear_pointer (&array->bytes, g_bytes_unref);
  g_free (array->name);
  g_free (array);
}

/**
 * nk_npy_array_get_dtype:
 * @array: an array
 *
 * The elements' dtype, from the header's 'descr'.
 *
 * Returns: the dtype
 */
NkNpyDType
nk_npy_array_get_dtype (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, NK_NPY_F4);
  return array->dtype;
}

/**
 * nk_npy_array_get_ndim:
 * @array: an array
 *
 * The number of dimensions, from the header's 'shape'.
 *
 * Returns: ndim (0 for a scalar)
 */
guint
nk_npy_array_get_ndim (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, 0);
  return array->ndim;
}

/**
 * nk_npy_array_get_shape: (skip)
 * @array: an array
 *
 * The sizes of the nk_npy_array_get_ndim() dimensions. Not for bindings (the length
 * is not a parameter): they read the shape of nk_npy_array_to_tensor()'s tensor.
 *
 * Returns: (transfer none): the shape, ndim entries (none for a scalar)
 */
const gint64 *
nk_npy_array_get_shape (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, NULL);
  return array->shape;
}

/**
 * nk_npy_array_get_n_elements:
 * @array: an array
 *
 * The number of elements: the product of the shape (1 for a scalar).
 *
 * Returns: the element count
 */
guint64
nk_npy_array_get_n_elements (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, 0);
  return array->numel;
}

/**
 * nk_npy_array_get_data: (skip)
 * @array: an array
 *
 * The elements in C order, little-endian, read-only; they live in the mapped file or
 * the bytes the array was parsed from. Aligned to the item size when the file's data
 * offset is (numpy's always are). Not for bindings (a raw pointer into the mapping):
 * they call nk_npy_array_to_tensor().
 *
 * Returns: (transfer none): the first element
 */
gconstpointer
nk_npy_array_get_data (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, NULL);
  return array->data;
}

/**
 * nk_npy_array_get_nbytes:
 * @array: an array
 *
 * The size of the data: elements × item size.
 *
 * Returns: the size in bytes
 */
gsize
nk_npy_array_get_nbytes (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, 0);
  return array->nbytes;
}

/**
 * nk_npy_array_get_name:
 * @array: an array
 *
 * The name given at load (the path, or nk_npy_array_new_from_bytes()'s @name), the one
 * error messages use.
 *
 * Returns: (transfer none) (nullable): the name
 */
const char *
nk_npy_array_get_name (NkNpyArray *array)
{
  g_return_val_if_fail (array != NULL, NULL);
  return array->name;
}

static char *
format_shape (guint         ndim,
              const gint64 *shape,
              gboolean      with_any)
{
  GString *s = g_string_new ("(");

  for (guint d = 0; d < ndim; d++)
    {
      if (d)
        g_string_append (s, ", ");
      if (with_any && shape[d] < 0)
        g_string_append (s, d == 0 ? "N" : "*");
      else
        g_string_append_printf (s, "%" PRId64, shape[d]);
    }
  g_string_append (s, ndim == 1 ? ",)" : ")");
  return g_string_free (s, FALSE);
}

gboolean
nk_npy_array_check (NkNpyArray    *array,
                    NkNpyDType     dtype,
                    guint          ndim,
                    const gint64  *shape,
                    GError       **error)
{
  gboolean ok;

  g_return_val_if_fail (array != NULL, FALSE);
  g_return_val_if_fail (dtype < NK_NPY_N_DTYPES, FALSE);

  ok = array->dtype == dtype && array->ndim == ndim;
  for (guint d = 0; ok && shape && d < ndim; d++)
    ok = shape[d] < 0 || shape[d] == array->shape[d];

  if (!ok)
    {
      g_autofree char *have = format_shape (array->ndim, array->shape, FALSE);
      g_autofree char *want = NULL;
      gint64 any[NK_NPY_MAX_DIMS];

      for (guint d = 0; d < ndim && d < NK_NPY_MAX_DIMS; d++)
        any[d] = shape ? shape[d] : -1;
      want = format_shape (MIN (ndim, NK_NPY_MAX_DIMS), any, TRUE);
      g_set_error (error, NK_NPY_ERROR, NK_NPY_ERROR_SHAPE,
                   _("%s has dtype “%s” and shape %s, expected “%s” with shape %s"),
                   array->name, dtype_table[array->dtype].descr, have,
                   dtype_table[dtype].descr, want);
    }
  return ok;
}

/* ---- writing -------------------------------------------------------------------- */

/**
 * nk_npy_to_bytes: (skip)
 * @dtype: the elements' dtype
 * @ndim: number of dimensions (≤ %NK_NPY_MAX_DIMS)
 * @shape: (array length=ndim): sizes
 * @data: the elements, C order, little-endian (shape × item size bytes)
 *
 * Encodes a whole version 1.0 .npy in memory: the bytes nk_npy_save() writes. Not for
 * bindings (@data is a raw buffer): they call nk_npy_save_tensor().
 *
 * Returns: (transfer full): the file's bytes
 */
GBytes *
nk_npy_to_bytes (NkNpyDType    dtype,
                 guint         ndim,
                 const gint64 *shape,
                 gconstpointer data)
{
  g_autofree char *shape_text = NULL;
  GString *header;
  gsize total_header, nbytes;
  guint64 numel = 1;
  guint8 *out;

  g_return_val_if_fail (dtype < NK_NPY_N_DTYPES, NULL);
  g_return_val_if_fail (ndim <= NK_NPY_MAX_DIMS, NULL);
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);

  for (guint d = 0; d < ndim; d++)
    {
      g_return_val_if_fail (shape[d] >= 0, NULL);
      numel *= (guint64) shape[d];
    }
  nbytes = numel * dtype_table[dtype].item_size;
  g_return_val_if_fail (nbytes == 0 || data != NULL, NULL);

  /* Exactly what numpy.save writes: the dict repr, spaces, '\n', total a multiple of 64. */
  shape_text = format_shape (ndim, shape, FALSE);
  header = g_string_new (NULL);
  g_string_append_printf (header, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                          dtype_table[dtype].descr, shape_text);
  total_header = 10 + header->len + 1;
  while (total_header % 64 != 0)
    {
      g_string_append_c (header, ' ');
      total_header++;
    }
  g_string_append_c (header, '\n');

  out = g_malloc (total_header + nbytes);
  memcpy (out, NPY_MAGIC, NPY_MAGIC_LEN);
  out[6] = 1;
  out[7] = 0;
  out[8] = header->len & 0xff;
  out[9] = (header->len >> 8) & 0xff;
  memcpy (out + 10, header->str, header->len);
  if (nbytes)
    memcpy (out + total_header, data, nbytes);
  g_string_free (header, TRUE);

  return g_bytes_new_take (out, total_header + nbytes);
}

gboolean
nk_npy_save (const char    *path,
             NkNpyDType     dtype,
             guint          ndim,
             const gint64  *shape,
             gconstpointer  data,
             GError       **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  bytes = nk_npy_to_bytes (dtype, ndim, shape, data);
  g_return_val_if_fail (bytes != NULL, FALSE);

  if (!nk_file_write_atomic (path, &bytes, 1, &local))
    {
      g_set_error_literal (error, NK_NPY_ERROR, NK_NPY_ERROR_IO, local->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- tensors -------------------------------------------------------------------- */

static gboolean
npy_to_nk_dtype (NkNpyDType  dtype,
                 NkDType    *out)
{
  switch (dtype)
    {
    case NK_NPY_F4: *out = NK_DTYPE_F32; return TRUE;
    case NK_NPY_F8: *out = NK_DTYPE_F64; return TRUE;
    case NK_NPY_I4: *out = NK_DTYPE_INT32; return TRUE;
    case NK_NPY_I8: *out = NK_DTYPE_INT64; return TRUE;
    case NK_NPY_U2: *out = NK_DTYPE_UINT16; return TRUE;
    case NK_NPY_U1: *out = NK_DTYPE_UINT16; return TRUE;
    case NK_NPY_N_DTYPES:
    default:
      return FALSE;
    }
}

static NkTensor *
array_to_tensor (NkNpyArray  *array,
                 NkBucket     bucket,
                 gboolean     may_wrap,
                 GError     **error)
{
  g_autoptr(NkStorage) storage = NULL;
  NkDType dtype;
  gsize item = dtype_table[array->dtype].item_size;

  if (!npy_to_nk_dtype (array->dtype, &dtype))
    g_return_val_if_reached (NULL);
  if (array->ndim > NK_MAX_DIMS)
    {
      g_set_error (error, NK_NPY_ERROR, NK_NPY_ERROR_UNSUPPORTED,
                   _("%s: %u dimensions are more than a tensor holds (%d)"),
                   array->name, array->ndim, NK_MAX_DIMS);
      return NULL;
    }

  if (may_wrap && array->dtype != NK_NPY_U1
      && ((guintptr) array->data % item) == 0)
    {
      storage = nk_storage_new_for_host_data ((gpointer) array->data, array->nbytes, bucket,
                                              (GDestroyNotify) nk_npy_array_unref,
                                              nk_npy_array_ref (array));
    }
  else
    {
      g_autoptr(NkStorage) host = NULL;

      host = nk_storage_new (nk_device_get_cpu (),
                             array->numel * nk_dtype_element_size (dtype), bucket, error);
      if (host == NULL)
        return NULL;
      if (array->dtype == NK_NPY_U1)
        {
          guint16 *dst = nk_storage_get_data (host);

          for (guint64 i = 0; i < array->numel; i++)
            dst[i] = array->data[i];
        }
      else if (array->nbytes)
        memcpy (nk_storage_get_data (host), array->data, array->nbytes);
      storage = g_steal_pointer (&host);
    }

  return nk_tensor_new_view (storage, dtype, (int) array->ndim, array->shape, NULL, 0, error);
}

NkTensor *
nk_npy_array_to_tensor (NkNpyArray  *array,
                        NkBucket     bucket,
                        GError     **error)
{
  g_return_val_if_fail (array != NULL, NULL);

  /* The array's memory may be a read-only mapping: a tensor must be writable. */
  return array_to_tensor (array, bucket, FALSE, error);
}

NkTensor *
nk_npy_load_tensor (const char  *path,
                    NkBucket     bucket,
                    GError     **error)
{
  g_autoptr(NkNpyArray) array = NULL;

  /* A private writable mapping: copy-on-write pages, so the tensor may be written
   * and the file stays as it is. */
  array = load_mapped (path, TRUE, error);
  if (array == NULL)
    return NULL;
  return array_to_tensor (array, bucket, TRUE, error);
}

gboolean
nk_npy_save_tensor (const char  *path,
                    NkTensor    *tensor,
                    GError     **error)
{
  g_autoptr(NkTensor) host = NULL;
  g_autoptr(NkTensor) contiguous = NULL;
  NkNpyDType dtype;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (tensor != NULL, FALSE);

  switch (tensor->dtype)
    {
    case NK_DTYPE_F32: dtype = NK_NPY_F4; break;
    case NK_DTYPE_F64: dtype = NK_NPY_F8; break;
    case NK_DTYPE_INT32: dtype = NK_NPY_I4; break;
    case NK_DTYPE_INT64: dtype = NK_NPY_I8; break;
    case NK_DTYPE_UINT16: dtype = NK_NPY_U2; break;
    default:
      g_set_error (error, NK_NPY_ERROR, NK_NPY_ERROR_UNSUPPORTED,
                   _("%s: a %s tensor cannot be saved as .npy (use f32, f64, int32, "
                     "int64 or uint16)"), path, nk_dtype_info (tensor->dtype)->name);
      return FALSE;
    }

  host = nk_tensor_to_device (tensor, nk_device_get_cpu (), error);
  if (host == NULL)
    return FALSE;
  contiguous = nk_tensor_contiguous (host, error);
  if (contiguous == NULL)
    return FALSE;

  return nk_npy_save (path, dtype, (guint) contiguous->ndim, contiguous->shape,
                      nk_tensor_data (contiguous), error);
}
