/* nk-checkpoint.c: training checkpoints as checksummed safetensors files
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "nk-json.h"
#include "nk-checkpoint.h"
#include "nk-file-util.h"
#include "nk-safetensors-private.h"
#include "nk-tensor.h"

/**
 * nk_checkpoint_error_quark:
 *
 * The domain of %NK_CHECKPOINT_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-checkpoint-error-quark, nk_checkpoint_error)

#define KEY_FORMAT   "format"
#define KEY_STEP     "step"
#define KEY_RNG      "rng"
#define KEY_CONFIG   "config"
#define KEY_CHECKSUM "checksum"
#define KEY_LOSS     "loss"
#define CHECKSUM_PREFIX "sha256:"
#define CHECKSUM_DIGITS 64
#define CHECKSUM_PLACEHOLDER "0000000000000000000000000000000000000000000000000000000000000000"
G_STATIC_ASSERT (sizeof CHECKSUM_PLACEHOLDER == CHECKSUM_DIGITS + 1);

#define FILE_PREFIX "step-"
#define FILE_SUFFIX ".safetensors"

struct _NkCheckpoint
{
  gatomicrefcount ref_count;

  char          *path;
  guint64        step;
  gboolean       has_rng;
  guint64        rng_seed;
  guint64        rng_counter;
  char          *config;
  GHashTable    *metadata;   /* extra keys: char* → char* */

  NkTensorTable  table;
  GPtrArray     *bytes;      /* GBytes per tensor, for one built in memory */
  NkSafetensors *file;       /* for one loaded: owns the tensors' bytes */
};

G_DEFINE_BOXED_TYPE (NkCheckpoint, nk_checkpoint, nk_checkpoint_ref, nk_checkpoint_unref)

static gboolean
is_reserved (const char *key)
{
  return g_str_equal (key, KEY_FORMAT) || g_str_equal (key, KEY_STEP)
         || g_str_equal (key, KEY_RNG) || g_str_equal (key, KEY_CONFIG)
         || g_str_equal (key, KEY_CHECKSUM);
}

/**
 * nk_checkpoint_new:
 *
 * Starts an empty checkpoint to fill with nk_checkpoint_add_tensor() and the setters,
 * then write with nk_checkpoint_save().
 *
 * Returns: (transfer full): the checkpoint
 */
NkCheckpoint *
nk_checkpoint_new (void)
{
  NkCheckpoint *ck = g_new0 (NkCheckpoint, 1);

  g_atomic_ref_count_init (&ck->ref_count);
  ck->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  _nk_tensor_table_init (&ck->table);
  ck->bytes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  return ck;
}

/**
 * nk_checkpoint_ref:
 * @ck: a checkpoint
 *
 * Adds a reference.
 *
 * Returns: (transfer full): @ck
 */
NkCheckpoint *
nk_checkpoint_ref (NkCheckpoint *ck)
{
  g_return_val_if_fail (ck != NULL, NULL);

  g_atomic_ref_count_inc (&ck->ref_count);
  return ck;
}

/**
 * nk_checkpoint_unref:
 * @ck: (transfer full): a checkpoint
 *
 * Drops a reference; the last one frees the tensors (or unmaps the file).
 */
void
nk_checkpoint_unref (NkCheckpoint *ck)
{
  g_return_if_fail (ck != NULL);

  if (!g_atomic_ref_count_dec (&ck->ref_count))
    return;

  _nk_tensor_table_clear (&ck->table);
  g_ptr_array_unref (ck->bytes);
  g_hash_table_unref (ck->metadata);
  g_clear_pointer (&ck->file, nk_safetensors_unref);
  g_free (ck->config);
  g_free (ck->path);
  g_free (ck);
}

/**
 * nk_checkpoint_set_step:
 * @ck: a checkpoint being built
 * @step: the number of optimizer steps done when the checkpoint was taken
 *
 * Records the step, stored as metadata "step".
 */
void
nk_checkpoint_set_step (NkCheckpoint *ck,
                        guint64       step)
{
  g_return_if_fail (ck != NULL);
  ck->step = step;
}

/**
 * nk_checkpoint_get_step:
 * @ck: a checkpoint
 *
 * The step the run was at: the number of optimizer steps done.
 *
 * Returns: the step
 */
guint64
nk_checkpoint_get_step (NkCheckpoint *ck)
{
  g_return_val_if_fail (ck != NULL, 0);
  return ck->step;
}

/**
 * nk_checkpoint_set_rng:
 * @ck: a checkpoint being built
 * @rng: the run's generator
 *
 * Records the generator's (seed, counter); a loaded checkpoint gives it back.
 */
void
nk_checkpoint_set_rng (NkCheckpoint *ck,
                       const NkRng  *rng)
{
  g_return_if_fail (ck != NULL);
  g_return_if_fail (rng != NULL);

  nk_rng_get_state (rng, &ck->rng_seed, &ck->rng_counter);
  ck->has_rng = TRUE;
}

/**
 * nk_checkpoint_get_rng:
 * @ck: a checkpoint
 *
 * A generator in the state recorded by nk_checkpoint_set_rng(), so a resumed run draws
 * the same numbers as an uninterrupted one.
 *
 * Returns: (transfer full) (nullable): the generator, or %NULL if none was recorded
 */
NkRng *
nk_checkpoint_get_rng (NkCheckpoint *ck)
{
  g_return_val_if_fail (ck != NULL, NULL);

  return ck->has_rng ? nk_rng_new_from_state (ck->rng_seed, ck->rng_counter) : NULL;
}

/**
 * nk_checkpoint_set_config:
 * @ck: a checkpoint being built
 * @config_json: (nullable): a JSON object as text; stored verbatim
 *
 * Records the run's configuration, the one nk_checkpoint_check_resume() compares.
 */
void
nk_checkpoint_set_config (NkCheckpoint *ck,
                          const char   *config_json)
{
  g_return_if_fail (ck != NULL);

  g_free (ck->config);
  ck->config = g_strdup (config_json);
}

/**
 * nk_checkpoint_get_config:
 * @ck: a checkpoint
 *
 * The configuration recorded by nk_checkpoint_set_config().
 *
 * Returns: (transfer none) (nullable): the config text, or %NULL if none
 */
const char *
nk_checkpoint_get_config (NkCheckpoint *ck)
{
  g_return_val_if_fail (ck != NULL, NULL);
  return ck->config;
}

/**
 * nk_checkpoint_set_metadata:
 * @ck: a checkpoint being built
 * @key: a key other than the reserved ones (format, step, rng, config, loss, checksum)
 * @value: its text
 *
 * Records an extra "__metadata__" string.
 */
void
nk_checkpoint_set_metadata (NkCheckpoint *ck,
                            const char   *key,
                            const char   *value)
{
  g_return_if_fail (ck != NULL);
  g_return_if_fail (key != NULL && !is_reserved (key));
  g_return_if_fail (value != NULL);

  g_hash_table_insert (ck->metadata, g_strdup (key), g_strdup (value));
}

/**
 * nk_checkpoint_get_metadata:
 * @ck: a checkpoint
 * @key: a metadata key
 *
 * Reads an extra "__metadata__" string.
 *
 * Returns: (transfer none) (nullable): the value, or %NULL if @key is absent
 */
const char *
nk_checkpoint_get_metadata (NkCheckpoint *ck,
                            const char   *key)
{
  g_return_val_if_fail (ck != NULL, NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (ck->metadata, key);
}

/**
 * nk_checkpoint_set_loss:
 * @ck: a checkpoint being built
 * @loss: the loss of the step the checkpoint holds the run after
 *
 * Records @loss as metadata "loss" (the shortest decimal that reads back to the same
 * double; "nan", "inf"): a run resumed with nothing left to do reports it as its final
 * loss.
 */
void
nk_checkpoint_set_loss (NkCheckpoint *ck,
                        double        loss)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_if_fail (ck != NULL);

  /* g_ascii_dtostr gives the shortest text that reads back to the same double. */
  if (isnan (loss))
    g_strlcpy (buf, "nan", sizeof buf);
  else if (isinf (loss))
    g_strlcpy (buf, loss > 0 ? "inf" : "-inf", sizeof buf);
  else
    g_ascii_dtostr (buf, sizeof buf, loss);
  nk_checkpoint_set_metadata (ck, KEY_LOSS, buf);
}

/**
 * nk_checkpoint_get_loss:
 * @ck: a checkpoint
 *
 * The loss recorded by nk_checkpoint_set_loss().
 *
 * Returns: the loss, NAN when none was recorded
 */
double
nk_checkpoint_get_loss (NkCheckpoint *ck)
{
  const char *text;
  char *end = NULL;
  double v;

  g_return_val_if_fail (ck != NULL, NAN);

  text = nk_checkpoint_get_metadata (ck, KEY_LOSS);
  if (text == NULL)
    return NAN;
  v = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' ? v : NAN;
}

static void
add_entry (NkCheckpoint              *ck,
           const NkSafetensorsTensor *info)
{
  NkSafetensorsTensor t = *info;

  t.name = g_strdup (info->name);
  g_array_append_val (ck->table.tensors, t);
  _nk_tensor_table_index (&ck->table, ck->table.tensors->len - 1);
}

static void
add_bytes (NkCheckpoint *ck,
           const char   *name,
           NkDType       dtype,
           guint         ndim,
           const gint64 *shape,
           GBytes       *bytes)
{
  NkSafetensorsTensor t = { 0 };
  gsize item;

  g_return_if_fail (ck->file == NULL);
  g_return_if_fail (name != NULL && !g_hash_table_contains (ck->table.by_name, name));
  g_return_if_fail (nk_safetensors_dtype_to_string (dtype) != NULL);
  g_return_if_fail (ndim <= NK_SAFETENSORS_MAX_DIMS);

  item = nk_dtype_element_size (dtype);
  t.name = name;
  t.dtype = dtype;
  t.ndim = ndim;
  t.numel = 1;
  for (guint d = 0; d < ndim; d++)
    {
      g_return_if_fail (shape[d] >= 0);
      t.shape[d] = shape[d];
      t.numel *= (guint64) shape[d];
    }
  g_return_if_fail (g_bytes_get_size (bytes) == t.numel * item);
  t.data = g_bytes_get_data (bytes, &t.nbytes);

  g_ptr_array_add (ck->bytes, g_bytes_ref (bytes));
  add_entry (ck, &t);
}

void
nk_checkpoint_add_data (NkCheckpoint  *ck,
                        const char    *name,
                        NkDType        dtype,
                        guint          ndim,
                        const gint64  *shape,
                        gconstpointer  data)
{
  g_autoptr(GBytes) bytes = NULL;
  guint64 numel = 1;

  g_return_if_fail (ck != NULL);
  g_return_if_fail (ndim <= NK_SAFETENSORS_MAX_DIMS);
  g_return_if_fail (ndim == 0 || shape != NULL);

  for (guint d = 0; d < ndim; d++)
    numel *= (guint64) MAX (shape[d], 0);
  bytes = g_bytes_new (data, numel * nk_dtype_element_size (dtype));
  add_bytes (ck, name, dtype, ndim, shape, bytes);
}

/**
 * nk_checkpoint_add_tensor:
 * @ck: a checkpoint being built
 * @name: a tensor name not added before (a PyTorch state_dict name)
 * @tensor: the tensor (any layout, any device)
 * @error: return location for a #GError
 *
 * Gathers @tensor to host memory in C order and adds a copy of it under @name.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_checkpoint_add_tensor (NkCheckpoint  *ck,
                          const char    *name,
                          NkTensor      *tensor,
                          GError       **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (ck != NULL, FALSE);
  g_return_val_if_fail (tensor != NULL, FALSE);

  if (nk_safetensors_dtype_to_string (tensor->dtype) == NULL)
    {
      g_set_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_DTYPE,
                   _("Tensor “%s” has dtype %s, which a checkpoint cannot hold"),
                   name, nk_dtype_info (tensor->dtype)->name);
      return FALSE;
    }
  bytes = _nk_tensor_to_host_bytes (tensor, error);
  if (bytes == NULL)
    return FALSE;
  add_bytes (ck, name, tensor->dtype, (guint) tensor->ndim, tensor->shape, bytes);
  return TRUE;
}

/**
 * nk_checkpoint_get_n_tensors:
 * @ck: a checkpoint
 *
 * The number of tensors held.
 *
 * Returns: the count
 */
guint
nk_checkpoint_get_n_tensors (NkCheckpoint *ck)
{
  g_return_val_if_fail (ck != NULL, 0);
  return ck->table.tensors->len;
}

/**
 * nk_checkpoint_get_tensor_info:
 * @ck: a checkpoint
 * @index: below nk_checkpoint_get_n_tensors()
 *
 * The entry of tensor @index, in the order added (or file order when loaded).
 *
 * Returns: (transfer none): its name, dtype, shape and bytes
 */
const NkSafetensorsTensor *
nk_checkpoint_get_tensor_info (NkCheckpoint *ck,
                               guint         index)
{
  g_return_val_if_fail (ck != NULL, NULL);
  return _nk_tensor_table_get (&ck->table, index);
}

/**
 * nk_checkpoint_lookup:
 * @ck: a checkpoint
 * @name: a tensor name
 *
 * Finds a tensor's entry by name.
 *
 * Returns: (transfer none) (nullable): the entry called @name, or %NULL
 */
const NkSafetensorsTensor *
nk_checkpoint_lookup (NkCheckpoint *ck,
                      const char   *name)
{
  g_return_val_if_fail (ck != NULL, NULL);
  return _nk_tensor_table_lookup (&ck->table, name);
}

static const char *
display_name (NkCheckpoint *ck)
{
  return ck->path ? ck->path : _("the checkpoint");
}

gboolean
nk_checkpoint_read_into (NkCheckpoint  *ck,
                         const char    *name,
                         NkDType        dtype,
                         guint          ndim,
                         const gint64  *shape,
                         gpointer       dst,
                         GError       **error)
{
  const NkSafetensorsTensor *t;

  g_return_val_if_fail (ck != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (ndim == 0 || shape != NULL, FALSE);

  t = nk_checkpoint_lookup (ck, name);
  if (!_nk_safetensors_check_tensor (display_name (ck), t, name, dtype, ndim, shape, error))
    return FALSE;
  g_return_val_if_fail (t->nbytes == 0 || dst != NULL, FALSE);
  if (t->nbytes)
    memcpy (dst, t->data, t->nbytes);
  return TRUE;
}

/**
 * nk_checkpoint_get_tensor:
 * @ck: a checkpoint
 * @name: a tensor name
 * @bucket: the bucket the new tensor's storage is counted in
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR_NOT_FOUND when there
 *   is no tensor @name)
 *
 * Copies a tensor out of the checkpoint.
 *
 * Returns: (transfer full) (nullable): a contiguous copy of @name on the default device
 */
NkTensor *
nk_checkpoint_get_tensor (NkCheckpoint  *ck,
                          const char    *name,
                          NkBucket       bucket,
                          GError       **error)
{
  const NkSafetensorsTensor *t;

  g_return_val_if_fail (ck != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  t = nk_checkpoint_lookup (ck, name);
  if (t == NULL)
    {
      g_set_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_NOT_FOUND,
                   _("%s: there is no tensor “%s”"), display_name (ck), name);
      return NULL;
    }
  return _nk_safetensors_tensor_new (t, bucket, error);
}

/**
 * nk_checkpoint_get_path:
 * @ck: a checkpoint
 *
 * The file a loaded checkpoint came from.
 *
 * Returns: (transfer none) (nullable): the path, %NULL for one built in memory
 */
const char *
nk_checkpoint_get_path (NkCheckpoint *ck)
{
  g_return_val_if_fail (ck != NULL, NULL);
  return ck->path;
}

/* ---- files ---------------------------------------------------------------------- */

/**
 * nk_checkpoint_path_for_step:
 * @dir: a checkpoint folder
 * @step: a step
 *
 * The file name nk_checkpoint_save() gives the checkpoint of step @step.
 *
 * Returns: (transfer full): DIR/step-%08llu.safetensors
 */
char *
nk_checkpoint_path_for_step (const char *dir,
                             guint64     step)
{
  g_autofree char *base = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  base = g_strdup_printf (FILE_PREFIX "%08" PRIu64 FILE_SUFFIX, step);
  return g_build_filename (dir, base, NULL);
}

gboolean
nk_checkpoint_save_to_file (NkCheckpoint  *ck,
                            const char    *path,
                            GError       **error)
{
  g_autoptr(NkSafetensorsWriter) writer = NULL;
  g_autoptr(GChecksum) sum = NULL;
  g_autoptr(GPtrArray) chunks = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *checksum = NULL;
  g_autofree char *step = NULL;
  g_autofree char *header = NULL;
  gconstpointer header_data;
  gsize header_size, value_offset, digits_offset;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (ck != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  writer = nk_safetensors_writer_new ();
  for (guint i = 0; i < ck->table.tensors->len; i++)
    {
      const NkSafetensorsTensor *t = &g_array_index (ck->table.tensors, NkSafetensorsTensor, i);
      g_autoptr(GBytes) bytes = NULL;

      /* A loaded checkpoint's bytes live in its mapped file; re-saving references them. */
      if (ck->file)
        bytes = g_bytes_new_with_free_func (t->data, t->nbytes,
                                            (GDestroyNotify) nk_safetensors_unref,
                                            nk_safetensors_ref (ck->file));
      else
        bytes = g_bytes_ref (ck->bytes->pdata[i]);
      nk_safetensors_writer_add_bytes (writer, t->name, t->dtype, t->ndim, t->shape, bytes);
    }

  g_hash_table_iter_init (&iter, ck->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    nk_safetensors_writer_set_metadata (writer, key, value);

  step = g_strdup_printf ("%" PRIu64, ck->step);
  nk_safetensors_writer_set_metadata (writer, KEY_FORMAT, NK_CHECKPOINT_FORMAT);
  nk_safetensors_writer_set_metadata (writer, KEY_STEP, step);
  if (ck->has_rng)
    {
      g_autoptr(NkRng) rng = nk_rng_new_from_state (ck->rng_seed, ck->rng_counter);
      g_autofree char *state = nk_rng_to_string (rng);

      nk_safetensors_writer_set_metadata (writer, KEY_RNG, state);
    }
  if (ck->config)
    nk_safetensors_writer_set_metadata (writer, KEY_CONFIG, ck->config);

  /* The checksum covers the whole file with its own digits as the placeholder (see
   * nk-checkpoint.h), so the header is built once with the placeholder, hashed with
   * the payload, and the digits are then written over the placeholder. */
  checksum = g_strconcat (CHECKSUM_PREFIX, CHECKSUM_PLACEHOLDER, NULL);
  nk_safetensors_writer_set_metadata (writer, KEY_CHECKSUM, checksum);
  chunks = _nk_safetensors_writer_get_chunks (writer, KEY_CHECKSUM, &value_offset);
  header_data = g_bytes_get_data (chunks->pdata[0], &header_size);
  digits_offset = value_offset + strlen (CHECKSUM_PREFIX);
  g_assert (value_offset != G_MAXSIZE && digits_offset + CHECKSUM_DIGITS <= header_size);

  sum = g_checksum_new (G_CHECKSUM_SHA256);
  for (guint i = 0; i < chunks->len; i++)
    {
      gsize len;
      gconstpointer data = g_bytes_get_data (chunks->pdata[i], &len);

      if (len)
        g_checksum_update (sum, data, (gssize) len);
    }
  header = g_memdup2 (header_data, header_size);
  memcpy (header + digits_offset, g_checksum_get_string (sum), CHECKSUM_DIGITS);
  g_bytes_unref (g_ptr_array_index (chunks, 0));
  g_ptr_array_index (chunks, 0) = g_bytes_new_take (g_steal_pointer (&header), header_size);

  if (!nk_file_write_atomic (path, (GBytes *const *) chunks->pdata, chunks->len, &local))
    {
      g_set_error_literal (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_IO,
                           local->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_step_name (const char *base,
                 guint64    *out_step)
{
  gsize len = strlen (base);
  gsize plen = strlen (FILE_PREFIX), slen = strlen (FILE_SUFFIX);
  g_autofree char *digits = NULL;

  if (len <= plen + slen || !g_str_has_prefix (base, FILE_PREFIX)
      || !g_str_has_suffix (base, FILE_SUFFIX))
    return FALSE;
  digits = g_strndup (base + plen, len - plen - slen);
  for (const char *p = digits; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64, out_step, NULL);
}

typedef struct {
  guint64  step;
  char    *path;
} Found;

static int
compare_found (gconstpointer a,
               gconstpointer b)
{
  const Found *x = a, *y = b;

  if (x->step != y->step)
    return x->step > y->step ? -1 : 1;
  return strcmp (x->path, y->path);
}

static GArray *
list_found (const char  *dir,
            GError     **error)
{
  g_autoptr(GDir) d = NULL;
  g_autoptr(GError) local = NULL;
  GArray *found = g_array_new (FALSE, FALSE, sizeof (Found));
  const char *base;

  d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return found;
      g_propagate_error (error, g_steal_pointer (&local));
      g_array_unref (found);
      return NULL;
    }
  while ((base = g_dir_read_name (d)) != NULL)
    {
      Found f;

      if (!parse_step_name (base, &f.step))
        continue;
      f.path = g_build_filename (dir, base, NULL);
      g_array_append_val (found, f);
    }
  g_array_sort (found, compare_found);
  return found;
}

static void
free_found (GArray *found)
{
  for (guint i = 0; i < found->len; i++)
    g_free (g_array_index (found, Found, i).path);
  g_array_unref (found);
}

GPtrArray *
nk_checkpoint_list (const char  *dir,
                    GError     **error)
{
  GArray *found;
  GPtrArray *paths;

  g_return_val_if_fail (dir != NULL, NULL);

  found = list_found (dir, error);
  if (found == NULL)
    return NULL;
  paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < found->len; i++)
    g_ptr_array_add (paths, g_strdup (g_array_index (found, Found, i).path));
  free_found (found);
  return paths;
}

/* Temp files of our atomic writes (".step-N.safetensors.tmp-XXXXXX") that a killed
 * process left behind. */
static void
remove_stale_temps (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *base;

  if (d == NULL)
    return;
  while ((base = g_dir_read_name (d)) != NULL)
    {
      const char *tmp;
      g_autofree char *target = NULL;
      guint64 step;

      if (base[0] != '.' || (tmp = strstr (base, ".tmp-")) == NULL)
        continue;
      target = g_strndup (base + 1, tmp - base - 1);
      if (parse_step_name (target, &step))
        {
          g_autofree char *path = g_build_filename (dir, base, NULL);

          g_unlink (path);
        }
    }
}

/* ---- which run a file belongs to ------------------------------------------------- */

/* Members that say how far to run rather than which run. */
static const char *const config_ignored[] = { "steps" };

static JsonObject *
config_object (JsonParser *parser,
               const char *text)
{
  JsonNode *root;

  if (text == NULL || !nk_json_parser_load (parser, text, -1, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  return root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
}

static gboolean
config_ignores (const char *member)
{
  for (guint i = 0; i < G_N_ELEMENTS (config_ignored); i++)
    if (g_str_equal (member, config_ignored[i]))
      return TRUE;
  return FALSE;
}

static char *
member_text (JsonObject *object,
             const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL)
    return g_strdup (_("none"));
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return json_to_string (node, FALSE);
}

static void
add_members (GHashTable *seen,
             GPtrArray  *order,
             JsonObject *object)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    if (!config_ignores (l->data) && g_hash_table_add (seen, l->data))
      g_ptr_array_add (order, l->data);
}

/* One member that differs: its name and both values as text. */
typedef struct {
  char *name;
  char *theirs;
  char *ours;
} Change;

static void
change_free (gpointer data)
{
  Change *c = data;

  g_free (c->name);
  g_free (c->theirs);
  g_free (c->ours);
  g_free (c);
}

static Change *
change_new (const char *name,
            char       *theirs,
            char       *ours)
{
  Change *c = g_new0 (Change, 1);

  c->name = g_strdup (name);
  c->theirs = theirs;
  c->ours = ours;
  return c;
}

/* The members of two configs that differ (but for config_ignored), in the order they
 * appear in @theirs, then @ours. Text that is not a JSON object differs as a whole,
 * as the member "config", unless both texts are equal. */
static GPtrArray *
config_changes (const char *theirs,
                const char *ours)
{
  g_autoptr(JsonParser) pa = json_parser_new ();
  g_autoptr(JsonParser) pb = json_parser_new ();
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GPtrArray) order = NULL;
  GPtrArray *changes = g_ptr_array_new_with_free_func (change_free);
  JsonObject *a, *b;

  if (theirs == NULL && ours == NULL)
    return changes;
  a = config_object (pa, theirs);
  b = config_object (pb, ours);
  if (a == NULL || b == NULL)
    {
      if (g_strcmp0 (theirs, ours) != 0)
        g_ptr_array_add (changes, change_new ("config", g_strdup (theirs ? theirs : _("none")),
                                              g_strdup (ours ? ours : _("none"))));
      return changes;
    }

  seen = g_hash_table_new (g_str_hash, g_str_equal);
  order = g_ptr_array_new ();
  add_members (seen, order, a);
  add_members (seen, order, b);
  for (guint i = 0; i < order->len; i++)
    {
      const char *m = order->pdata[i];
      JsonNode *na = json_object_get_member (a, m);
      JsonNode *nb = json_object_get_member (b, m);

      if (na != NULL && nb != NULL && json_node_equal (na, nb))
        continue;
      g_ptr_array_add (changes, change_new (m, member_text (a, m), member_text (b, m)));
    }
  return changes;
}

/* NULL when @theirs and @ours are the same run; else "dim 32, lr 0.1 where this run
 * has dim 64, lr 0.01" for the error message. */
static char *
config_differences (const char *theirs,
                    const char *ours)
{
  g_autoptr(GPtrArray) changes = config_changes (theirs, ours);
  g_autoptr(GString) a_text = NULL;
  g_autoptr(GString) b_text = NULL;

  if (changes->len == 0)
    return NULL;
  a_text = g_string_new (NULL);
  b_text = g_string_new (NULL);
  for (guint i = 0; i < changes->len; i++)
    {
      const Change *c = changes->pdata[i];

      g_string_append_printf (a_text, "%s%s %s", i ? ", " : "", c->name, c->theirs);
      g_string_append_printf (b_text, "%s%s %s", i ? ", " : "", c->name, c->ours);
    }
  return g_strdup_printf (_("%s where this run has %s"), a_text->str, b_text->str);
}

char **
nk_checkpoint_config_changes (const char *saved,
                              const char *requested)
{
  g_autoptr(GPtrArray) changes = config_changes (saved, requested);
  GStrvBuilder *builder = g_strv_builder_new ();
  char **names;

  for (guint i = 0; i < changes->len; i++)
    g_strv_builder_add (builder, ((const Change *) changes->pdata[i])->name);
  names = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return names;
}

gboolean
nk_checkpoint_check_resume (NkCheckpoint  *ck,
                            const char    *config_json,
                            guint64        steps,
                            GError       **error)
{
  g_autoptr(GPtrArray) changes = NULL;
  const char *name;

  g_return_val_if_fail (ck != NULL, FALSE);

  name = display_name (ck);
  changes = config_changes (ck->config, config_json);
  if (changes->len > 0)
    {
      g_autoptr(GString) list = g_string_new (NULL);

      for (guint i = 0; i < changes->len; i++)
        {
          const Change *c = changes->pdata[i];

          g_string_append_printf (list, "%s%s (%s → %s)", i ? ", " : "",
                                  c->name, c->theirs, c->ours);
        }
      g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_CONFIG_CHANGED,
                   _("Cannot resume from %s: this run changes %s; resuming may change "
                     "only --steps, so give the checkpoint’s settings again or start a "
                     "new run in another folder."), name, list->str);
      return FALSE;
    }
  if (ck->step > steps)
    {
      g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_STEPS,
                   _("Cannot resume from %s: it holds %" PRIu64 " steps, more than the "
                     "%" PRIu64 " asked for, and a run cannot go back; ask for --steps %"
                     PRIu64 " or more."), name, ck->step, steps, ck->step);
      return FALSE;
    }
  return TRUE;
}

gboolean
nk_checkpoint_same_run (const char *config_a,
                        const char *config_b)
{
  g_autofree char *diff = config_differences (config_a, config_b);

  return diff == NULL;
}

/* Reads only the header: FALSE when the file is not even a readable safetensors file
 * (then *out_reason says why); else *out_diff is NULL for the same run. */
static gboolean
peek_run (const char  *path,
          const char  *config,
          char       **out_diff,
          char       **out_reason)
{
  g_autoptr(NkSafetensors) st = NULL;
  g_autoptr(GError) local = NULL;

  st = nk_safetensors_load (path, &local);
  if (st == NULL)
    {
      if (out_reason)
        *out_reason = g_strdup (local->message);
      return FALSE;
    }
  *out_diff = config_differences (nk_safetensors_get_metadata (st, KEY_CONFIG), config);
  return TRUE;
}

static gboolean
is_intact (const char *path)
{
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_load (path, NULL);

  return ck != NULL;
}

gboolean
nk_checkpoint_check_dir (const char  *dir,
                         const char  *config_json,
                         GError     **error)
{
  GArray *found;
  gboolean ok = TRUE;

  g_return_val_if_fail (dir != NULL, FALSE);

  found = list_found (dir, error);
  if (found == NULL)
    return FALSE;
  for (guint i = 0; i < found->len && ok; i++)
    {
      const char *path = g_array_index (found, Found, i).path;
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *diff = NULL;
      g_autofree char *reason = NULL;
      g_autofree char *what = NULL;

      if (!peek_run (path, config_json, &diff, &reason))
        what = g_strdup_printf (_("%s cannot be read to tell: %s"), base, reason);
      else if (diff != NULL)
        what = g_strdup_printf (_("%s has %s"), base, diff);
      if (what != NULL)
        {
          g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_OTHER_RUN,
                       _("“%s” already holds checkpoints of another run (%s); choose another "
                         "directory or --resume it."), dir, what);
          ok = FALSE;
        }
    }
  free_found (found);
  return ok;
}

gboolean
nk_checkpoint_save (NkCheckpoint  *ck,
                    const char    *dir,
                    guint          keep_last,
                    char         **out_path,
                    GError       **error)
{
  g_autofree char *path = NULL;
  GArray *found;
  guint kept = 0;

  g_return_val_if_fail (ck != NULL, FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);

  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not create the checkpoint directory “%s”: %s"),
                   dir, g_strerror (errsv));
      return FALSE;
    }

  path = nk_checkpoint_path_for_step (dir, ck->step);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *diff = NULL;

      if (peek_run (path, ck->config, &diff, NULL) && diff != NULL && is_intact (path))
        {
          g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_OTHER_RUN,
                       _("Will not replace “%s”: it is a checkpoint of another run (it has "
                         "%s); choose another directory."), path, diff);
          return FALSE;
        }
    }
  if (!nk_checkpoint_save_to_file (ck, path, error))
    return FALSE;

  /* Only now that the new file is in place may old ones go, and only this run's. */
  remove_stale_temps (dir);
  found = list_found (dir, NULL);
  if (found != NULL)
    {
      for (guint i = 0; i < found->len; i++)
        {
          Found *f = &g_array_index (found, Found, i);
          g_autofree char *diff = NULL;
          gboolean keep;

          if (g_str_equal (f->path, path))
            {
              kept++;
              continue;
            }
          if (!peek_run (f->path, ck->config, &diff, NULL) || diff != NULL)
            continue;     /* not this run's: never ours to delete */

          if (f->step > ck->step)
            keep = is_intact (f->path);
          else
            keep = keep_last == 0 || kept < keep_last;
          if (keep)
            kept++;

          if (!keep && g_unlink (f->path) != 0)
            g_warning ("Could not delete the old checkpoint “%s”: %s",
                       f->path, g_strerror (errno));
        }
      free_found (found);
    }

  if (out_path)
    *out_path = g_steal_pointer (&path);
  return TRUE;
}

/* A checkpoint that is not what it says: the message names the file first. */
#define invalid(error, path, ...) \
  nk_file_fail ((error), NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_INVALID, (path), __VA_ARGS__)

static gboolean
is_checksum_text (const char *text)
{
  if (text == NULL || !g_str_has_prefix (text, CHECKSUM_PREFIX)
      || strlen (text) != strlen (CHECKSUM_PREFIX) + CHECKSUM_DIGITS)
    return FALSE;
  for (const char *p = text + strlen (CHECKSUM_PREFIX); *p; p++)
    if (!g_ascii_isdigit (*p) && !(*p >= 'a' && *p <= 'f'))
      return FALSE;
  return TRUE;
}

/* The rule in nk-checkpoint.h: SHA-256 of the whole file with the first occurrence of
 * the recorded digits read as the placeholder. NULL when the digits are not there. */
static char *
file_checksum (NkSafetensors *st,
               const char    *digits)
{
  g_autoptr(GChecksum) sum = NULL;
  const guint8 *file, *found = NULL;
  gsize size;

  file = _nk_safetensors_get_file (st, &size);
  for (const guint8 *p = file; size >= CHECKSUM_DIGITS && p <= file + size - CHECKSUM_DIGITS; p++)
    {
      p = memchr (p, digits[0], (gsize) (file + size - CHECKSUM_DIGITS + 1 - p));
      if (p == NULL)
        break;
      if (memcmp (p, digits, CHECKSUM_DIGITS) == 0)
        {
          found = p;
          break;
        }
    }
  if (found == NULL)
    return NULL;

  sum = g_checksum_new (G_CHECKSUM_SHA256);
  if (found > file)
    g_checksum_update (sum, file, (gssize) (found - file));
  g_checksum_update (sum, (const guchar *) CHECKSUM_PLACEHOLDER, CHECKSUM_DIGITS);
  if (found + CHECKSUM_DIGITS < file + size)
    g_checksum_update (sum, found + CHECKSUM_DIGITS,
                       (gssize) (file + size - found - CHECKSUM_DIGITS));
  return g_strdup (g_checksum_get_string (sum));
}

NkCheckpoint *
nk_checkpoint_load (const char  *path,
                    GError     **error)
{
  g_autoptr(NkSafetensors) st = NULL;
  g_autoptr(NkCheckpoint) ck = NULL;
  g_autoptr(GPtrArray) keys = NULL;
  const char *format, *step, *rng, *config, *checksum;

  g_return_val_if_fail (path != NULL, NULL);

  st = nk_safetensors_load (path, error);
  if (st == NULL)
    return NULL;

  format = nk_safetensors_get_metadata (st, KEY_FORMAT);
  step = nk_safetensors_get_metadata (st, KEY_STEP);
  rng = nk_safetensors_get_metadata (st, KEY_RNG);
  config = nk_safetensors_get_metadata (st, KEY_CONFIG);
  checksum = nk_safetensors_get_metadata (st, KEY_CHECKSUM);

  /* The checksum first: a changed digit anywhere (step, rng, config, data) must read
   * as corruption, not as a different but plausible checkpoint. */
  if (checksum != NULL || (format != NULL && g_str_equal (format, NK_CHECKPOINT_FORMAT)))
    {
      g_autofree char *computed = NULL;

      if (!is_checksum_text (checksum))
        {
          invalid (error, path, _("its metadata “checksum” is missing or not “sha256:” "
                                  "and 64 lowercase hex digits"));
          return NULL;
        }
      computed = file_checksum (st, checksum + strlen (CHECKSUM_PREFIX));
      if (computed == NULL || !g_str_equal (checksum + strlen (CHECKSUM_PREFIX), computed))
        {
          g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_CHECKSUM,
                       _("%s: the file does not match its checksum (it is corrupt or was "
                         "edited): recorded %s, computed %s%s"),
                       path, checksum, computed ? CHECKSUM_PREFIX : "",
                       computed ? computed : _("nothing (the recorded digits are not in the file as written)"));
          return NULL;
        }
    }

  if (format == NULL || !g_str_equal (format, NK_CHECKPOINT_FORMAT))
    {
      invalid (error, path, _("not a Napkin checkpoint (its metadata “format” is “%s”, "
                              "expected “%s”)"),
               format ? format : "", NK_CHECKPOINT_FORMAT);
      return NULL;
    }

  ck = nk_checkpoint_new ();
  ck->path = g_strdup (path);

  if (step == NULL || !g_ascii_string_to_unsigned (step, 10, 0, G_MAXUINT64, &ck->step, NULL))
    {
      invalid (error, path, _("its metadata “step” is missing or not a number"));
      return NULL;
    }
  if (rng != NULL)
    {
      g_autoptr(NkRng) gen = NULL;
      g_autoptr(GError) local = NULL;

      gen = nk_rng_new_from_string (rng, &local);
      if (gen == NULL)
        {
          invalid (error, path, "%s", local->message);
          return NULL;
        }
      nk_rng_get_state (gen, &ck->rng_seed, &ck->rng_counter);
      ck->has_rng = TRUE;
    }
  if (config != NULL)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) local = NULL;

      if (!nk_json_parser_load (parser, config, -1, &local)
          || json_parser_get_root (parser) == NULL
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          invalid (error, path, _("its metadata “config” is not a JSON object"));
          return NULL;
        }
      ck->config = g_strdup (config);
    }

  keys = nk_safetensors_get_metadata_keys (st);
  for (guint i = 0; i < keys->len; i++)
    if (!is_reserved (keys->pdata[i]))
      g_hash_table_insert (ck->metadata, g_strdup (keys->pdata[i]),
                           g_strdup (nk_safetensors_get_metadata (st, keys->pdata[i])));

  for (guint i = 0; i < nk_safetensors_get_n_tensors (st); i++)
    add_entry (ck, nk_safetensors_get_tensor_info (st, i));
  ck->file = g_steal_pointer (&st);

  return g_steal_pointer (&ck);
}

NkCheckpoint *
nk_checkpoint_find_latest_intact (const char  *dir,
                                  GPtrArray  **out_skipped,
                                  GError     **error)
{
  g_autoptr(GPtrArray) skipped = NULL;
  GArray *found;
  NkCheckpoint *result = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  found = list_found (dir, error);
  if (found == NULL)
    return NULL;

  skipped = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < found->len && result == NULL; i++)
    {
      Found *f = &g_array_index (found, Found, i);
      g_autoptr(GError) local = NULL;
      NkCheckpoint *ck = nk_checkpoint_load (f->path, &local);

      if (ck != NULL && ck->step != f->step)
        {
          invalid (&local, f->path, _("its name says step %" PRIu64 " but its "
                                      "metadata says %" PRIu64),
                   f->step, ck->step);
          g_clear_pointer (&ck, nk_checkpoint_unref);
        }
      if (ck != NULL)
        result = ck;
      else
        g_ptr_array_add (skipped, g_strdup (local->message));
    }
  free_found (found);

  if (result == NULL)
    {
      if (skipped->len == 0)
        g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_NOT_FOUND,
                     _("There is no checkpoint (step-N.safetensors) in “%s”."), dir);
      else
        {
          g_autofree char *all = NULL;

          g_ptr_array_add (skipped, NULL);
          all = g_strjoinv ("; ", (char **) skipped->pdata);

          g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_NOT_FOUND,
                       _("No intact checkpoint in “%s”: %s"), dir, all);
        }
      return NULL;
    }

  if (out_skipped)
    *out_skipped = g_steal_pointer (&skipped);
  return result;
}

/* ---- one writer per folder -------------------------------------------------------- */

struct _NkCheckpointLock
{
  int   fd;
  char *dir;
};

/* The process id the holder wrote into the lock file, or 0 when it cannot be read
 * (the holder may be between truncating and writing it). */
static gint64
read_holder (int fd)
{
  char buf[32] = { 0 };
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  gint64 pid;

  if (n <= 0)
    return 0;
  buf[n] = '\0';
  g_strstrip (buf);
  if (!g_ascii_string_to_signed (buf, 10, 1, G_MAXINT32, &pid, NULL))
    return 0;
  return pid;
}

NkCheckpointLock *
nk_checkpoint_lock (const char  *dir,
                    GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *pid_text = NULL;
  NkCheckpointLock *lock;
  int fd, errsv;

  g_return_val_if_fail (dir != NULL, NULL);

  /* Creates the folder, and fails now rather than at the first checkpoint when no
   * file can be written there. */
  if (!nk_file_check_writable_dir (dir, error))
    return NULL;

  path = g_build_filename (dir, NK_CHECKPOINT_LOCK_NAME, NULL);
  fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not open the lock file “%s”: %s"), path, g_strerror (errsv));
      return NULL;
    }
  /* flock() locks belong to the open file, so two runs in one process exclude each
   * other too, and the kernel drops the lock when a killed run's descriptor closes:
   * a stale lock file never blocks anyone. */
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      gint64 holder;

      errsv = errno;
      holder = errsv == EWOULDBLOCK ? read_holder (fd) : 0;
      close (fd);
      if (errsv != EWOULDBLOCK)
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                     _("Could not lock the checkpoint folder “%s”: %s"), dir, g_strerror (errsv));
      else if (holder > 0)
        g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_LOCKED,
                     _("Checkpoint folder “%s” is in use by process %" PRId64 "; wait for "
                       "that run to end or choose another folder."), dir, holder);
      else
        g_set_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_LOCKED,
                     _("Checkpoint folder “%s” is in use by another process; wait for "
                       "that run to end or choose another folder."), dir);
      return NULL;
    }

  pid_text = g_strdup_printf ("%d\n", (int) getpid ());
  if (ftruncate (fd, 0) != 0
      || pwrite (fd, pid_text, strlen (pid_text), 0) != (ssize_t) strlen (pid_text))
    g_debug ("Could not record the process id in %s: %s", path, g_strerror (errno));

  lock = g_new0 (NkCheckpointLock, 1);
  lock->fd = fd;
  lock->dir = g_strdup (dir);
  return lock;
}

/**
 * nk_checkpoint_unlock: (skip)
 * @lock: (nullable) (transfer full): a lock from nk_checkpoint_lock()
 *
 * Releases the lock by closing its file (which stays, so a waiting run keeps locking
 * the same file).
 */
void
nk_checkpoint_unlock (NkCheckpointLock *lock)
{
  if (lock == NULL)
    return;
  /* The file stays: removing it would let a third run lock a new file while a second
   * still waits on the old one. Closing releases the lock. */
  close (lock->fd);
  g_free (lock->dir);
  g_free (lock);
}
