/* nk-safetensors.c: safetensors files, read (validated) and written atomically
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "nk-json.h"
#include "nk-file-util.h"
#include "nk-ops.h"
#include "nk-safetensors.h"
#include "nk-safetensors-private.h"
#include "nk-tensor.h"

/**
 * nk_safetensors_error_quark:
 *
 * The domain of %NK_SAFETENSORS_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-safetensors-error-quark, nk_safetensors_error)

/* The reference implementation's limit, so a file it writes we read and vice versa. */
#define MAX_HEADER_SIZE 100000000u

/* In the reference implementation's Dtype order (increasing alignment), which decides
 * the order tensors are written in. */
static const struct {
  NkDType     dtype;
  const char *name;
  gsize       size;
  int         rank;
} dtype_table[] = {
  { NK_DTYPE_UINT16, "U16",  2, 6 },
  { NK_DTYPE_F16,    "F16",  2, 7 },
  { NK_DTYPE_BF16,   "BF16", 2, 8 },
  { NK_DTYPE_INT32,  "I32",  4, 9 },
  { NK_DTYPE_F32,    "F32",  4, 11 },
  { NK_DTYPE_F64,    "F64",  8, 12 },
  { NK_DTYPE_INT64,  "I64",  8, 13 },
};

static int
dtype_index (NkDType dtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_table); i++)
    if (dtype_table[i].dtype == dtype)
      return (int) i;
  return -1;
}

/**
 * nk_safetensors_dtype_to_string:
 * @dtype: a dtype
 *
 * The dtype's name in a safetensors header ("F32", "BF16", …).
 *
 * Returns: (transfer none) (nullable): the name, %NULL for a dtype safetensors files
 *   here cannot hold
 */
const char *
nk_safetensors_dtype_to_string (NkDType dtype)
{
  int i = dtype_index (dtype);

  return i < 0 ? NULL : dtype_table[i].name;
}

/**
 * nk_safetensors_dtype_from_string:
 * @name: a header's dtype name ("F32")
 * @out_dtype: (out): the dtype
 *
 * Reads a name nk_safetensors_dtype_to_string() writes.
 *
 * Returns: %FALSE for a name this engine does not know
 */
gboolean
nk_safetensors_dtype_from_string (const char *name,
                                  NkDType    *out_dtype)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (dtype_table); i++)
    if (g_str_equal (dtype_table[i].name, name))
      {
        if (out_dtype)
          *out_dtype = dtype_table[i].dtype;
        return TRUE;
      }
  return FALSE;
}

static gsize
dtype_size (NkDType dtype)
{
  int i = dtype_index (dtype);

  return i < 0 ? 0 : dtype_table[i].size;
}

/* ---- atomic files --------------------------------------------------------------- */

static gboolean
write_all (int            fd,
           const guint8  *data,
           gsize          len,
           int           *out_errno)
{
  while (len > 0)
    {
      gssize n = write (fd, data, MIN (len, (gsize) G_MAXSSIZE));

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          *out_errno = errno;
          return FALSE;
        }
      if (n == 0)
        {
          *out_errno = ENOSPC;
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

gboolean
nk_file_write_atomic (const char     *path,
                      GBytes *const  *chunks,
                      guint           n_chunks,
                      GError        **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp = NULL;
  int fd, dir_fd, errsv = 0;
  const char *step = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (n_chunks == 0 || chunks != NULL, FALSE);

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp = g_strdup_printf ("%s/.%s.tmp-XXXXXX", dir, base);

  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not create a file in “%s” to write “%s”: %s"),
                   dir, path, g_strerror (errsv));
      return FALSE;
    }

  /* Not fchmod: the umask already applied to 0666 is what people expect. */
  for (guint i = 0; i < n_chunks; i++)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (chunks[i], &len);

      if (len && !write_all (fd, data, len, &errsv))
        {
          step = "write";
          break;
        }
    }
  if (step == NULL && fsync (fd) != 0)
    {
      errsv = errno;
      step = "fsync";
    }
  if (close (fd) != 0 && step == NULL)
    {
      errsv = errno;
      step = "close";
    }
  if (step == NULL && g_rename (tmp, path) != 0)
    {
      errsv = errno;
      step = "rename";
    }

  if (step != NULL)
    {
      g_unlink (tmp);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not write “%s”: %s"), path, g_strerror (errsv));
      return FALSE;
    }

  /* The rename is durable only once the directory entry is; file systems that cannot
   * fsync a directory still did the rename, so that is not an error. */
  dir_fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (dir_fd >= 0)
    {
      (void) fsync (dir_fd);
      close (dir_fd);
    }
  return TRUE;
}

/* ---- reading -------------------------------------------------------------------- */

struct _NkSafetensors
{
  gatomicrefcount ref_count;

  char         *name;
  GBytes       *bytes;
  const guint8 *payload;
  gsize         payload_size;

  NkTensorTable table;        /* in payload order */
  GHashTable   *metadata;     /* char* → char* */
};

G_DEFINE_BOXED_TYPE (NkSafetensors, nk_safetensors, nk_safetensors_ref, nk_safetensors_unref)

/* Every message names the file first. */
#define fail(error, code, name, ...) \
  nk_file_fail ((error), NK_SAFETENSORS_ERROR, (code), (name), __VA_ARGS__)

static void
clear_tensor (gpointer data)
{
  NkSafetensorsTensor *t = data;

  g_free ((char *) t->name);
}

void
_nk_tensor_table_init (NkTensorTable *table)
{
  table->tensors = g_array_new (FALSE, TRUE, sizeof (NkSafetensorsTensor));
  g_array_set_clear_func (table->tensors, clear_tensor);
  table->by_name = g_hash_table_new (g_str_hash, g_str_equal);
}

void
_nk_tensor_table_clear (NkTensorTable *table)
{
  /* The keys are the tensors' names: the table goes first. */
  g_clear_pointer (&table->by_name, g_hash_table_unref);
  g_clear_pointer (&table->tensors, g_array_unref);
}

gboolean
_nk_tensor_table_index (NkTensorTable *table,
                        guint          index)
{
  const char *name = g_array_index (table->tensors, NkSafetensorsTensor, index).name;

  if (g_hash_table_contains (table->by_name, name))
    return FALSE;
  g_hash_table_insert (table->by_name, (gpointer) name, GUINT_TO_POINTER (index + 1));
  return TRUE;
}

const NkSafetensorsTensor *
_nk_tensor_table_get (const NkTensorTable *table,
                      guint                index)
{
  g_return_val_if_fail (index < table->tensors->len, NULL);

  return &g_array_index (table->tensors, NkSafetensorsTensor, index);
}

const NkSafetensorsTensor *
_nk_tensor_table_lookup (const NkTensorTable *table,
                         const char          *name)
{
  guint index;

  g_return_val_if_fail (name != NULL, NULL);

  index = GPOINTER_TO_UINT (g_hash_table_lookup (table->by_name, name));
  return index ? &g_array_index (table->tensors, NkSafetensorsTensor, index - 1) : NULL;
}

/* A JSON integer ≥ 0 (not a float, not a bool, not beyond int64). */
static gboolean
get_count (JsonNode *node,
           guint64  *out)
{
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

static int
compare_offsets (gconstpointer a,
                 gconstpointer b)
{
  const NkSafetensorsTensor *x = a, *y = b;
  guint64 xe = x->offset + x->nbytes, ye = y->offset + y->nbytes;

  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  if (xe != ye)
    return xe < ye ? -1 : 1;
  return 0;
}

static gboolean
parse_entry (NkSafetensors  *st,
             const char     *tname,
             JsonNode       *node,
             GError        **error)
{
  NkSafetensorsTensor t = { 0 };
  JsonObject *obj;
  JsonNode *dtype_node, *shape_node, *offsets_node;
  JsonArray *shape, *offsets;
  const char *dtype_name;
  guint64 begin, end, numel = 1;
  gsize item;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("the entry of tensor “%s” is not a JSON object"), tname);
  obj = json_node_get_object (node);

  dtype_node = json_object_get_member (obj, "dtype");
  if (dtype_node == NULL || !JSON_NODE_HOLDS_VALUE (dtype_node)
      || json_node_get_value_type (dtype_node) != G_TYPE_STRING)
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("tensor “%s” has no “dtype” string"), tname);
  dtype_name = json_node_get_string (dtype_node);
  if (!nk_safetensors_dtype_from_string (dtype_name, &t.dtype))
    return fail (error, NK_SAFETENSORS_ERROR_DTYPE, st->name,
                 _("tensor “%s” has dtype “%s”, which is not one of F32, F16, BF16, "
                   "F64, I64, I32, U16"), tname, dtype_name);
  item = dtype_size (t.dtype);

  shape_node = json_object_get_member (obj, "shape");
  if (shape_node == NULL || !JSON_NODE_HOLDS_ARRAY (shape_node))
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("tensor “%s” has no “shape” list"), tname);
  shape = json_node_get_array (shape_node);
  if (json_array_get_length (shape) > NK_SAFETENSORS_MAX_DIMS)
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("tensor “%s” has %u dimensions, more than the %d supported"),
                 tname, json_array_get_length (shape), NK_SAFETENSORS_MAX_DIMS);
  t.ndim = json_array_get_length (shape);
  for (guint d = 0; d < t.ndim; d++)
    {
      guint64 size;

      if (!get_count (json_array_get_element (shape, d), &size)
          || size > (guint64) G_MAXINT64)
        return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                     _("tensor “%s” has a shape entry that is not a non-negative "
                       "integer"), tname);
      t.shape[d] = (gint64) size;
      if (size != 0 && numel > G_MAXUINT64 / size)
        return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                     _("tensor “%s” has more elements than a 64-bit count holds"), tname);
      numel *= size;
    }
  t.numel = numel;

  offsets_node = json_object_get_member (obj, "data_offsets");
  if (offsets_node == NULL || !JSON_NODE_HOLDS_ARRAY (offsets_node)
      || json_array_get_length (offsets = json_node_get_array (offsets_node)) != 2
      || !get_count (json_array_get_element (offsets, 0), &begin)
      || !get_count (json_array_get_element (offsets, 1), &end))
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("tensor “%s” has no “data_offsets” pair of non-negative integers"),
                 tname);

  if (begin > end)
    return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                 _("tensor “%s” ends (%" PRIu64 ") before it begins (%"
                   PRIu64 ")"), tname, end, begin);
  if (end > st->payload_size)
    return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                 _("tensor “%s” ends at byte %" PRIu64 " of the data, "
                   "beyond its %zu bytes"),
                 tname, end, st->payload_size);
  if (numel > G_MAXUINT64 / item || end - begin != numel * item)
    return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                 _("tensor “%s” has %" PRIu64 " bytes of data, but its "
                   "shape and dtype need %" PRIu64 " × %zu"),
                 tname, end - begin, numel, item);

  t.name = g_strdup (tname);
  t.offset = begin;
  t.nbytes = (gsize) (end - begin);
  t.data = st->payload + begin;
  g_array_append_val (st->table.tensors, t);
  return TRUE;
}

static gboolean
parse_metadata (NkSafetensors  *st,
                JsonNode       *node,
                GError        **error)
{
  JsonObject *obj;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("“__metadata__” is not a JSON object"));
  obj = json_node_get_object (node);
  members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *value = json_object_get_member (obj, l->data);

      /* json-glib takes C-style escapes ("\256") that decode to bytes not UTF-8. */
      if (!g_utf8_validate (l->data, -1, NULL))
        return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                     _("a metadata key is not valid UTF-8"));
      if (!JSON_NODE_HOLDS_VALUE (value)
          || json_node_get_value_type (value) != G_TYPE_STRING)
        return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                     _("the metadata value of “%s” is not a string"),
                     (const char *) l->data);
      if (!g_utf8_validate (json_node_get_string (value), -1, NULL))
        return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                     _("the metadata value of “%s” is not valid UTF-8"),
                     (const char *) l->data);
      g_hash_table_insert (st->metadata, g_strdup (l->data),
                           g_strdup (json_node_get_string (value)));
    }
  return TRUE;
}

static gboolean
parse_file (NkSafetensors  *st,
            GError        **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) json_error = NULL;
  g_autoptr(GList) members = NULL;
  const guint8 *base;
  gsize size;
  guint64 n = 0, expect;
  JsonNode *root;
  JsonObject *obj;

  base = g_bytes_get_data (st->bytes, &size);
  if (size < 8)
    return fail (error, NK_SAFETENSORS_ERROR_TRUNCATED, st->name,
                 _("the file has %zu bytes, too few for the 8-byte "
                   "header length of a safetensors file"), size);
  for (int i = 7; i >= 0; i--)
    n = (n << 8) | base[i];
  if (n > MAX_HEADER_SIZE)
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("the header length %" PRIu64 " is larger than the %u bytes "
                   "safetensors allows"), n, MAX_HEADER_SIZE);
  if (n > size - 8)
    return fail (error, NK_SAFETENSORS_ERROR_TRUNCATED, st->name,
                 _("the header claims %" PRIu64 " bytes but the file has only %zu after the length (truncated?)"), n, size - 8);
  if (n < 2 || base[8] != '{')
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("the header is not a JSON object (it must start with “{”)"));
  if (!g_utf8_validate ((const char *) base + 8, (gssize) n, NULL))
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("the header is not valid UTF-8"));

  st->payload = base + 8 + n;
  st->payload_size = size - 8 - (gsize) n;

  parser = json_parser_new_immutable ();
  if (!nk_json_parser_load (parser, (const char *) base + 8, (gssize) n, &json_error))
    {
      /* json-glib quotes the bad bytes, which need not be UTF-8. */
      g_autofree char *reason = g_utf8_make_valid (json_error->message, -1);

      return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                   _("the header is not valid JSON: %s"), reason);
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                 _("the header is not a JSON object"));
  obj = json_node_get_object (root);

  members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *node = json_object_get_member (obj, key);

      if (!g_utf8_validate (key, -1, NULL))
        return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                     _("a tensor name is not valid UTF-8"));
      if (g_str_equal (key, "__metadata__"))
        {
          if (!parse_metadata (st, node, error))
            return FALSE;
        }
      else if (!parse_entry (st, key, node, error))
        return FALSE;
    }

  g_array_sort (st->table.tensors, compare_offsets);
  expect = 0;
  for (guint i = 0; i < st->table.tensors->len; i++)
    {
      NkSafetensorsTensor *t = &g_array_index (st->table.tensors, NkSafetensorsTensor, i);

      if (t->offset != expect)
        {
          if (t->offset < expect)
            {
              const NkSafetensorsTensor *prev =
                &g_array_index (st->table.tensors, NkSafetensorsTensor, i - 1);

              return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                           _("tensors “%s” and “%s” overlap (bytes %" PRIu64
                             " to %" PRIu64 ")"),
                           prev->name, t->name, t->offset, expect);
            }
          return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                       _("there is a gap of unused bytes before tensor “%s” (bytes %"
                         PRIu64 " to %" PRIu64 ")"),
                       t->name, expect, t->offset);
        }
      expect = t->offset + t->nbytes;
      /* JSON keys are unique, but a "\u0000" in one makes two C names equal. */
      if (!_nk_tensor_table_index (&st->table, i))
        return fail (error, NK_SAFETENSORS_ERROR_HEADER, st->name,
                     _("the tensor name “%s” appears twice"), t->name);
    }
  if (expect != st->payload_size)
    return fail (error, NK_SAFETENSORS_ERROR_OFFSETS, st->name,
                 _("the tensors cover %" PRIu64 " bytes of data but the file "
                   "has %zu (truncated or padded?)"),
                 expect, st->payload_size);
  return TRUE;
}

NkSafetensors *
nk_safetensors_new_from_bytes (GBytes      *bytes,
                               const char  *name,
                               GError     **error)
{
  NkSafetensors *st;

  g_return_val_if_fail (bytes != NULL, NULL);

  st = g_new0 (NkSafetensors, 1);
  g_atomic_ref_count_init (&st->ref_count);
  st->name = g_strdup (name ? name : "(safetensors bytes)");
  st->bytes = g_bytes_ref (bytes);
  _nk_tensor_table_init (&st->table);
  st->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (!parse_file (st, error))
    {
      nk_safetensors_unref (st);
      return NULL;
    }
  return st;
}

NkSafetensors *
nk_safetensors_load (const char  *path,
                     GError     **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (nk_file_check_regular (path, &local))
    mapped = g_mapped_file_new (path, FALSE, &local);
  if (mapped == NULL)
    {
      g_set_error_literal (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_IO,
                           local->message);
      return NULL;
    }
  bytes = g_mapped_file_get_bytes (mapped);
  return nk_safetensors_new_from_bytes (bytes, path, error);
}

/**
 * nk_safetensors_ref:
 * @st: a parsed file
 *
 * Adds a reference.
 *
 * Returns: (transfer full): @st
 */
NkSafetensors *
nk_safetensors_ref (NkSafetensors *st)
{
  g_return_val_if_fail (st != NULL, NULL);

  g_atomic_ref_count_inc (&st->ref_count);
  return st;
}

/**
 * nk_safetensors_unref:
 * @st: (transfer full): a parsed file
 *
 * Drops a reference; the last one unmaps the file (or releases the bytes).
 */
void
nk_safetensors_unref (NkSafetensors *st)
{
  g_return_if_fail (st != NULL);

  if (!g_atomic_ref_count_dec (&st->ref_count))
    return;

  _nk_tensor_table_clear (&st->table);
  g_hash_table_unref (st->metadata);
  g_bytes_unref (st->bytes);
  g_free (st->name);
  g_free (st);
}

/**
 * nk_safetensors_get_name:
 * @st: a parsed file
 *
 * The name given at load (the path, or nk_safetensors_new_from_bytes()'s @name), the
 * one error messages use.
 *
 * Returns: (transfer none) (nullable): the name
 */
const char *
nk_safetensors_get_name (NkSafetensors *st)
{
  g_return_val_if_fail (st != NULL, NULL);
  return st->name;
}

/**
 * nk_safetensors_get_n_tensors:
 * @st: a parsed file
 *
 * The number of tensors in the file.
 *
 * Returns: the count
 */
guint
nk_safetensors_get_n_tensors (NkSafetensors *st)
{
  g_return_val_if_fail (st != NULL, 0);
  return st->table.tensors->len;
}

/**
 * nk_safetensors_get_tensor_info:
 * @st: a parsed file
 * @index: below nk_safetensors_get_n_tensors()
 *
 * Tensor @index, in payload order.
 *
 * Returns: (transfer none): its name, dtype, shape and bytes
 */
const NkSafetensorsTensor *
nk_safetensors_get_tensor_info (NkSafetensors *st,
                                guint          index)
{
  g_return_val_if_fail (st != NULL, NULL);
  return _nk_tensor_table_get (&st->table, index);
}

/**
 * nk_safetensors_lookup:
 * @st: a parsed file
 * @name: a tensor name
 *
 * Finds a tensor by name.
 *
 * Returns: (transfer none) (nullable): the tensor called @name, or %NULL
 */
const NkSafetensorsTensor *
nk_safetensors_lookup (NkSafetensors *st,
                       const char    *name)
{
  g_return_val_if_fail (st != NULL, NULL);
  return _nk_tensor_table_lookup (&st->table, name);
}

/**
 * nk_safetensors_get_metadata:
 * @st: a parsed file
 * @key: a "__metadata__" key
 *
 * Reads one "__metadata__" string.
 *
 * Returns: (transfer none) (nullable): the value, or %NULL when @key is absent
 */
const char *
nk_safetensors_get_metadata (NkSafetensors *st,
                             const char    *key)
{
  g_return_val_if_fail (st != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (st->metadata, key);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/**
 * nk_safetensors_get_metadata_keys:
 * @st: a parsed file
 *
 * Every "__metadata__" key.
 *
 * Returns: (transfer container) (element-type utf8): the keys, sorted
 */
GPtrArray *
nk_safetensors_get_metadata_keys (NkSafetensors *st)
{
  GPtrArray *keys;
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (st != NULL, NULL);

  keys = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, st->metadata);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_strings);
  return keys;
}

gconstpointer
_nk_safetensors_get_file (NkSafetensors *st,
                          gsize         *out_size)
{
  g_return_val_if_fail (st != NULL, NULL);

  return g_bytes_get_data (st->bytes, out_size);
}

/**
 * nk_safetensors_get_payload: (skip)
 * @st: a parsed file
 * @out_size: (out) (optional): the payload's size in bytes
 *
 * All the tensors' bytes, in file order, where they lie in the mapping. Not for
 * bindings (a raw pointer into the mapping).
 *
 * Returns: (transfer none): the payload
 */
gconstpointer
nk_safetensors_get_payload (NkSafetensors *st,
                            gsize         *out_size)
{
  g_return_val_if_fail (st != NULL, NULL);

  if (out_size)
    *out_size = st->payload_size;
  return st->payload;
}

static char *
format_dims (guint         ndim,
             const gint64 *shape)
{
  GString *s = g_string_new ("[");

  for (guint d = 0; d < ndim; d++)
    g_string_append_printf (s, "%s%" PRId64, d ? ", " : "", shape[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

gboolean
_nk_safetensors_check_tensor (const char                *file,
                              const NkSafetensorsTensor *t,
                              const char                *name,
                              NkDType                    dtype,
                              guint                      ndim,
                              const gint64              *shape,
                              GError                   **error)
{
  gboolean same = t != NULL && t->dtype == dtype && t->ndim == ndim;

  if (t == NULL)
    {
      g_set_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_NOT_FOUND,
                   _("%s: there is no tensor “%s”"), file, name);
      return FALSE;
    }
  for (guint d = 0; same && d < ndim; d++)
    same = t->shape[d] == shape[d];
  if (!same)
    {
      g_autofree char *have = format_dims (t->ndim, t->shape);
      g_autofree char *want = format_dims (ndim, shape);

      g_set_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_SHAPE,
                   _("%s: “%s” is %s %s, the model needs %s %s"), file, name,
                   nk_safetensors_dtype_to_string (t->dtype), have,
                   nk_safetensors_dtype_to_string (dtype) ? nk_safetensors_dtype_to_string (dtype) : "?",
                   want);
      return FALSE;
    }
  return TRUE;
}

gboolean
nk_safetensors_read_into (NkSafetensors *st,
                          const char    *name,
                          NkDType        dtype,
                          guint          ndim,
                          const gint64  *shape,
                          gpointer       dst,
                          GError       **error)
{
  const NkSafetensorsTensor *t;

  g_return_val_if_fail (st != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (ndim == 0 || shape != NULL, FALSE);

  t = nk_safetensors_lookup (st, name);
  if (!_nk_safetensors_check_tensor (st->name, t, name, dtype, ndim, shape, error))
    return FALSE;
  g_return_val_if_fail (t->nbytes == 0 || dst != NULL, FALSE);
  if (t->nbytes)
    memcpy (dst, t->data, t->nbytes);
  return TRUE;
}

/* ---- writing -------------------------------------------------------------------- */

typedef struct {
  char    *name;
  NkDType  dtype;
  guint    ndim;
  gint64   shape[NK_SAFETENSORS_MAX_DIMS];
  GBytes  *bytes;
} Entry;

struct _NkSafetensorsWriter
{
  GPtrArray  *entries;       /* Entry */
  GHashTable *names;         /* borrowed from entries */
  GHashTable *metadata;      /* char* → char* */
};

static void
entry_free (gpointer data)
{
  Entry *e = data;

  g_free (e->name);
  g_bytes_unref (e->bytes);
  g_free (e);
}

G_DEFINE_BOXED_TYPE (NkSafetensorsWriter, nk_safetensors_writer,
                     nk_safetensors_writer_copy, nk_safetensors_writer_free)

/**
 * nk_safetensors_writer_new:
 *
 * A writer with no tensors and no metadata.
 *
 * Returns: (transfer full): the writer
 */
NkSafetensorsWriter *
nk_safetensors_writer_new (void)
{
  NkSafetensorsWriter *writer = g_new0 (NkSafetensorsWriter, 1);

  writer->entries = g_ptr_array_new_with_free_func (entry_free);
  writer->names = g_hash_table_new (g_str_hash, g_str_equal);
  writer->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return writer;
}

/**
 * nk_safetensors_writer_copy:
 * @writer: a writer
 *
 * Copies the writer: the same tensors, in the same order, sharing their immutable
 * bytes, and the same metadata; adding to one does not change the other.
 *
 * Returns: (transfer full): the copy; free it with nk_safetensors_writer_free()
 */
NkSafetensorsWriter *
nk_safetensors_writer_copy (NkSafetensorsWriter *writer)
{
  NkSafetensorsWriter *copy;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (writer != NULL, NULL);

  copy = nk_safetensors_writer_new ();
  for (guint i = 0; i < writer->entries->len; i++)
    {
      const Entry *e = g_ptr_array_index (writer->entries, i);

      nk_safetensors_writer_add_bytes (copy, e->name, e->dtype, e->ndim, e->shape, e->bytes);
    }
  g_hash_table_iter_init (&iter, writer->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (copy->metadata, g_strdup (key), g_strdup (value));
  return copy;
}

/**
 * nk_safetensors_writer_free:
 * @writer: (nullable) (transfer full): a writer
 *
 * Frees the writer and drops its references on the tensors' bytes.
 */
void
nk_safetensors_writer_free (NkSafetensorsWriter *writer)
{
  if (writer == NULL)
    return;
  g_hash_table_unref (writer->names);
  g_hash_table_unref (writer->metadata);
  g_ptr_array_unref (writer->entries);
  g_free (writer);
}

/**
 * nk_safetensors_writer_add_bytes:
 * @writer: a writer
 * @name: a tensor name not added before (and not "__metadata__")
 * @dtype: one of the dtypes nk_safetensors_dtype_to_string() knows
 * @ndim: number of dimensions (≤ %NK_SAFETENSORS_MAX_DIMS)
 * @shape: (array length=ndim): sizes
 * @bytes: numel × item size bytes, C order, little-endian
 *
 * As nk_safetensors_writer_add(), taking a reference on @bytes instead of copying.
 */
void
nk_safetensors_writer_add_bytes (NkSafetensorsWriter *writer,
                                 const char          *name,
                                 NkDType              dtype,
                                 guint                ndim,
                                 const gint64        *shape,
                                 GBytes              *bytes)
{
  Entry *e;
  guint64 numel = 1;

  g_return_if_fail (writer != NULL);
  g_return_if_fail (name != NULL && !g_str_equal (name, "__metadata__"));
  g_return_if_fail (g_utf8_validate (name, -1, NULL));
  g_return_if_fail (!g_hash_table_contains (writer->names, name));
  g_return_if_fail (dtype_index (dtype) >= 0);
  g_return_if_fail (ndim <= NK_SAFETENSORS_MAX_DIMS);
  g_return_if_fail (ndim == 0 || shape != NULL);
  g_return_if_fail (bytes != NULL);

  for (guint d = 0; d < ndim; d++)
    {
      g_return_if_fail (shape[d] >= 0);
      numel *= (guint64) shape[d];
    }
  g_return_if_fail (g_bytes_get_size (bytes) == numel * dtype_size (dtype));

  e = g_new0 (Entry, 1);
  e->name = g_strdup (name);
  e->dtype = dtype;
  e->ndim = ndim;
  if (ndim)
    memcpy (e->shape, shape, ndim * sizeof (gint64));
  e->bytes = g_bytes_ref (bytes);
  g_ptr_array_add (writer->entries, e);
  g_hash_table_add (writer->names, e->name);
}

void
nk_safetensors_writer_add (NkSafetensorsWriter *writer,
                           const char          *name,
                           NkDType              dtype,
                           guint                ndim,
                           const gint64        *shape,
                           gconstpointer        data)
{
  g_autoptr(GBytes) bytes = NULL;
  guint64 numel = 1;

  g_return_if_fail (dtype_index (dtype) >= 0);
  g_return_if_fail (ndim <= NK_SAFETENSORS_MAX_DIMS);
  for (guint d = 0; d < ndim; d++)
    numel *= (guint64) MAX (shape[d], 0);

  bytes = g_bytes_new (data, numel * dtype_size (dtype));
  nk_safetensors_writer_add_bytes (writer, name, dtype, ndim, shape, bytes);
}

/**
 * nk_safetensors_writer_set_metadata:
 * @writer: a writer
 * @key: a "__metadata__" key
 * @value: its string
 *
 * Sets a "__metadata__" string, replacing one set before under @key.
 */
void
nk_safetensors_writer_set_metadata (NkSafetensorsWriter *writer,
                                    const char          *key,
                                    const char          *value)
{
  g_return_if_fail (writer != NULL);
  g_return_if_fail (key != NULL && g_utf8_validate (key, -1, NULL));
  g_return_if_fail (value != NULL && g_utf8_validate (value, -1, NULL));

  g_hash_table_insert (writer->metadata, g_strdup (key), g_strdup (value));
}

/* The reference order: larger alignment first, then by name (byte order). */
static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const Entry *x = *(const Entry *const *) a, *y = *(const Entry *const *) b;
  int rx = dtype_table[dtype_index (x->dtype)].rank;
  int ry = dtype_table[dtype_index (y->dtype)].rank;

  if (rx != ry)
    return ry - rx;
  return strcmp (x->name, y->name);
}

/* JSON strings as serde_json writes them: only '"', '\\' and control characters
 * escaped, everything else (UTF-8 included) verbatim; nk-json's one escaper. */
static void
append_json_string (GString    *out,
                    const char *s)
{
  nk_json_append_string (out, s, -1);
}

/* Sorts the entries and builds the 8-byte length plus padded header. When @value_key
 * is a metadata key, *@out_value_offset is where its value's text (after the opening
 * quote) starts in the returned bytes. */
static GBytes *
prepare_header (NkSafetensorsWriter *writer,
                const char          *value_key,
                gsize               *out_value_offset)
{
  GString *json = g_string_new ("{");
  guint64 offset = 0, n;
  gboolean first = TRUE;
  gsize value_offset = G_MAXSIZE;

  g_ptr_array_sort (writer->entries, compare_entries);

  if (g_hash_table_size (writer->metadata) > 0)
    {
      g_autoptr(GPtrArray) keys = g_ptr_array_new ();
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, writer->metadata);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_ptr_array_add (keys, key);
      g_ptr_array_sort (keys, compare_strings);

      g_string_append (json, "\"__metadata__\":{");
      for (guint i = 0; i < keys->len; i++)
        {
          if (i)
            g_string_append_c (json, ',');
          append_json_string (json, keys->pdata[i]);
          g_string_append_c (json, ':');
          if (value_key != NULL && g_str_equal (keys->pdata[i], value_key))
            value_offset = 8 + json->len + 1;
          append_json_string (json, g_hash_table_lookup (writer->metadata, keys->pdata[i]));
        }
      g_string_append_c (json, '}');
      first = FALSE;
    }

  for (guint i = 0; i < writer->entries->len; i++)
    {
      Entry *e = writer->entries->pdata[i];
      gsize len = g_bytes_get_size (e->bytes);

      if (!first)
        g_string_append_c (json, ',');
      first = FALSE;
      append_json_string (json, e->name);
      g_string_append_printf (json, ":{\"dtype\":\"%s\",\"shape\":[",
                              nk_safetensors_dtype_to_string (e->dtype));
      for (guint d = 0; d < e->ndim; d++)
        g_string_append_printf (json, "%s%" PRId64, d ? "," : "", e->shape[d]);
      g_string_append_printf (json, "],\"data_offsets\":[%" PRIu64 ",%"
                              PRIu64 "]}", offset, offset + len);
      offset += len;
    }
  g_string_append_c (json, '}');

  /* Padding to 8 keeps every tensor aligned for its dtype when the file is mapped. */
  while (json->len % 8 != 0)
    g_string_append_c (json, ' ');

  n = json->len;
  for (int i = 7; i >= 0; i--)
    g_string_prepend_c (json, (char) ((n >> (8 * i)) & 0xff));

  if (out_value_offset)
    *out_value_offset = value_offset;
  return g_string_free_to_bytes (json);
}

GPtrArray *
_nk_safetensors_writer_get_chunks (NkSafetensorsWriter *writer,
                                   const char          *value_key,
                                   gsize               *out_value_offset)
{
  GPtrArray *chunks;

  g_return_val_if_fail (writer != NULL, NULL);

  chunks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (chunks, prepare_header (writer, value_key, out_value_offset));
  for (guint i = 0; i < writer->entries->len; i++)
    g_ptr_array_add (chunks, g_bytes_ref (((Entry *) writer->entries->pdata[i])->bytes));
  return chunks;
}

/**
 * nk_safetensors_writer_to_bytes:
 * @writer: a writer
 *
 * The whole file in memory: the bytes nk_safetensors_writer_write() writes.
 *
 * Returns: (transfer full): the file's bytes
 */
GBytes *
nk_safetensors_writer_to_bytes (NkSafetensorsWriter *writer)
{
  g_autoptr(GBytes) header = NULL;
  GByteArray *out;

  g_return_val_if_fail (writer != NULL, NULL);

  header = prepare_header (writer, NULL, NULL);
  out = g_byte_array_new ();
  g_byte_array_append (out, g_bytes_get_data (header, NULL), g_bytes_get_size (header));
  for (guint i = 0; i < writer->entries->len; i++)
    {
      Entry *e = writer->entries->pdata[i];
      gsize len;
      const guint8 *data = g_bytes_get_data (e->bytes, &len);

      if (len)
        g_byte_array_append (out, data, len);
    }
  return g_byte_array_free_to_bytes (out);
}

gboolean
nk_safetensors_writer_write (NkSafetensorsWriter *writer,
                             const char          *path,
                             GError             **error)
{
  g_autoptr(GPtrArray) chunks = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  chunks = _nk_safetensors_writer_get_chunks (writer, NULL, NULL);
  if (!nk_file_write_atomic (path, (GBytes *const *) chunks->pdata, chunks->len, &local))
    {
      g_set_error_literal (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_IO,
                           local->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- tensors -------------------------------------------------------------------- */

NkTensor *
_nk_safetensors_tensor_new (const NkSafetensorsTensor  *t,
                            NkBucket                    bucket,
                            GError                    **error)
{
  g_autoptr(NkTensor) tensor = NULL;

  tensor = nk_tensor_new_full (NULL, t->dtype, (int) t->ndim, t->shape, bucket, FALSE, error);
  if (tensor == NULL)
    return NULL;
  /* The file's bytes may be unaligned; the device copy is a byte copy. */
  if (t->nbytes
      && !nk_device_copy (nk_tensor_get_device (tensor), NK_COPY_HOST_TO_DEVICE,
                          nk_storage_get_data (tensor->storage), t->data, t->nbytes, error))
    return NULL;
  return g_steal_pointer (&tensor);
}

NkTensor *
nk_safetensors_get_tensor (NkSafetensors  *st,
                           const char     *name,
                           NkBucket        bucket,
                           GError        **error)
{
  const NkSafetensorsTensor *t;

  g_return_val_if_fail (st != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  t = nk_safetensors_lookup (st, name);
  if (t == NULL)
    {
      g_set_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_NOT_FOUND,
                   _("%s: there is no tensor “%s”"), st->name, name);
      return NULL;
    }
  return _nk_safetensors_tensor_new (t, bucket, error);
}

GBytes *
_nk_tensor_to_host_bytes (NkTensor  *tensor,
                          GError   **error)
{
  g_autoptr(NkTensor) host = NULL;
  g_autoptr(NkTensor) contiguous = NULL;

  host = nk_tensor_to_device (tensor, nk_device_get_cpu (), error);
  if (host == NULL)
    return NULL;
  contiguous = nk_tensor_contiguous (host, error);
  if (contiguous == NULL)
    return NULL;
  return g_bytes_new (nk_tensor_data (contiguous), nk_tensor_nbytes (contiguous));
}

gboolean
nk_safetensors_writer_add_tensor (NkSafetensorsWriter *writer,
                                  const char          *name,
                                  NkTensor            *tensor,
                                  GError             **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (tensor != NULL, FALSE);

  if (dtype_index (tensor->dtype) < 0)
    {
      g_set_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_DTYPE,
                   _("Tensor “%s” has dtype %s, which safetensors files here cannot "
                     "hold"), name, nk_dtype_info (tensor->dtype)->name);
      return FALSE;
    }
  bytes = _nk_tensor_to_host_bytes (tensor, error);
  if (bytes == NULL)
    return FALSE;
  nk_safetensors_writer_add_bytes (writer, name, tensor->dtype, (guint) tensor->ndim,
                                   tensor->shape, bytes);
  return TRUE;
}
