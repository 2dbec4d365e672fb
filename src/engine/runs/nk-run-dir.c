/* nk-run-dir.c: a training run's folder: its writer, its description, the list of runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "nk-checkpoint.h"
#include "nk-json.h"
#include "nk-run-dir-private.h"
#include "nk-tfevents.h"

#define META_NAME    "meta.json"
#define CONFIG_NAME  "config.json"
#define PLAN_NAME    "plan.json"
#define METRICS_NAME "metrics.jsonl"
#define CHECKPOINTS_NAME "checkpoints"

/**
 * nk_run_dir_error_quark:
 *
 * The domain of %NK_RUN_DIR_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-run-dir-error-quark, nk_run_dir_error)

G_DEFINE_BOXED_TYPE (NkRunInfo, nk_run_info, nk_run_info_copy, nk_run_info_free)

struct _NkRunWriter {
  char             *dir;
  NkCheckpointLock *lock;
  int               fd;
  char             *name;
  gint64            created;
  GString          *buffer;
  NkEventWriter    *events;
};

static const char *status_names[] = {
  [NK_RUN_STATUS_RUNNING] = "running",
  [NK_RUN_STATUS_FINISHED] = "finished",
  [NK_RUN_STATUS_STOPPED] = "stopped",
  [NK_RUN_STATUS_FAILED] = "failed",
  [NK_RUN_STATUS_INTERRUPTED] = "interrupted",
};

/**
 * nk_run_status_to_string:
 * @status: a status
 *
 * The status's word in meta.json and the CLI's JSON.
 *
 * Returns: (transfer none): "running", "finished", "stopped", "failed" or
 *   "interrupted"
 */
const char *
nk_run_status_to_string (NkRunStatus status)
{
  g_return_val_if_fail (status <= NK_RUN_STATUS_INTERRUPTED, NULL);
  return status_names[status];
}

/**
 * nk_run_dir_default_root:
 *
 * The default home of runs.
 *
 * Returns: (transfer full): `$XDG_DATA_HOME/napkin/runs` (not created)
 */
char *
nk_run_dir_default_root (void)
{
  return g_build_filename (g_get_user_data_dir (), "napkin", "runs", NULL);
}

/**
 * nk_run_dir_get_checkpoint_dir:
 * @dir: a run folder
 *
 * The checkpoint folder of a run folder.
 *
 * Returns: (transfer full): DIR/checkpoints
 */
char *
nk_run_dir_get_checkpoint_dir (const char *dir)
{
  return g_build_filename (dir, CHECKPOINTS_NAME, NULL);
}

/**
 * nk_run_dir_resolve_checkpoints:
 * @dir: a folder (or file)
 *
 * The checkpoint folder `--resume DIR` and `sample --from DIR` mean: a run folder's
 * (one with a meta.json) checkpoints/, any other folder (or file) itself.
 *
 * Returns: (transfer full): the checkpoint folder
 */
char *
nk_run_dir_resolve_checkpoints (const char *dir)
{
  g_autofree char *meta = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  meta = g_build_filename (dir, META_NAME, NULL);
  if (g_file_test (meta, G_FILE_TEST_IS_REGULAR))
    return nk_run_dir_get_checkpoint_dir (dir);
  return g_strdup (dir);
}

/**
 * nk_run_dir_resolve_resume:
 * @dir: a folder given to resume from
 * @error: return location for a #GError (%G_FILE_ERROR naming @dir)
 *
 * nk_run_dir_resolve_checkpoints() for a run to resume: @dir must be a folder that
 * exists, so a typo does not become a fresh run from step 0. Creates nothing.
 *
 * Returns: (transfer full) (nullable): the checkpoint folder, or %NULL naming @dir
 */
char *
nk_run_dir_resolve_resume (const char  *dir,
                           GError     **error)
{
  g_return_val_if_fail (dir != NULL, NULL);

  /* Only looked at: a resume that is refused creates nothing, not even a parent. */
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("There is no folder “%s” to resume from."), dir);
      return NULL;
    }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
                   _("“%s” is not a folder: a run resumes from a run folder or a "
                     "checkpoint folder."), dir);
      return NULL;
    }
  return nk_run_dir_resolve_checkpoints (dir);
}

char *
nk_run_dir_new_path (const char  *root,
                     GError     **error)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");

  g_return_val_if_fail (root != NULL, NULL);

  if (g_mkdir_with_parents (root, 0755) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not create the folder of runs “%s”: %s"), root, g_strerror (errsv));
      return NULL;
    }
  /* mkdir() is the test and the claim in one: two writers never share a folder. */
  for (guint n = 1; n < 100000; n++)
    {
      g_autofree char *name = g_strdup_printf ("%s-%u", stamp, n);
      g_autofree char *path = g_build_filename (root, name, NULL);
      int errsv;

      if (g_mkdir (path, 0755) == 0)
        return g_steal_pointer (&path);
      errsv = errno;
      if (errsv != EEXIST)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                       _("Could not create the run folder “%s”: %s"), path, g_strerror (errsv));
          return NULL;
        }
    }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
               _("Could not find a free name for a run folder in “%s”."), root);
  return NULL;
}

/* ---- files written whole ---------------------------------------------------------- */

static gboolean
write_json_node (const char   *dir,
                 const char   *name,
                 JsonNode     *root,
                 GError      **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  gsize len;

  text = nk_json_node_to_data (root, TRUE, &len);
  return g_file_set_contents_full (path, text, len,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0644, error);
}

static gboolean
write_json_file (const char   *dir,
                 const char   *name,
                 JsonBuilder  *builder,
                 GError      **error)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  return write_json_node (dir, name, root, error);
}

static gboolean
write_meta (const char   *dir,
            const char   *name,
            gint64        created,
            NkRunStatus   status,
            const char   *message,
            GError      **error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name != NULL ? name : "");
  json_builder_set_member_name (b, "created");
  json_builder_add_int_value (b, created);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, nk_run_status_to_string (status));
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, getpid ());
  if (message != NULL)
    {
      json_builder_set_member_name (b, "error");
      json_builder_add_string_value (b, message);
    }
  json_builder_end_object (b);
  return write_json_file (dir, META_NAME, b, error);
}

static gboolean
write_config (const char           *dir,
              const NkTrainConfig  *config,
              GError              **error)
{
  g_autofree char *base = nk_train_config_to_json (config);
  g_autoptr(JsonNode) node = nk_json_from_string (base, error);
  JsonObject *obj;

  if (node == NULL)
    return FALSE;
  obj = json_node_get_object (node);
  /* What resuming needs beyond what tells two runs apart. */
  json_object_set_string_member (obj, "device", config->device != NULL ? config->device : "cpu");
  json_object_set_int_member (obj, "checkpoint_every", (gint64) config->checkpoint_every);
  json_object_set_int_member (obj, "checkpoint_keep", config->checkpoint_keep);
  if (config->checkpoint_dir != NULL)
    json_object_set_string_member (obj, "checkpoint_dir", config->checkpoint_dir);
  return write_json_node (dir, CONFIG_NAME, node, error);
}

static gboolean
write_plan (const char               *dir,
            const NkTrainPrediction  *p,
            GError                  **error)
{
  static const char *memory_names[] = { "params", "grads", "optimizer", "activations" };
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "n_parameters");
  json_builder_add_int_value (b, (gint64) p->n_parameters);
  nk_json_add_member_double (b, "tokens_per_step", p->tokens_per_step);
  nk_json_add_member_double (b, "flops_per_step", p->flops_per_step);
  nk_json_add_member_double (b, "seconds_per_step", p->seconds_per_step);
  nk_json_add_member_double (b, "gemm_rate", p->gemm_rate);
  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (memory_names); i++)
    nk_json_add_member_double (b, memory_names[i], p->memory[i]);
  json_builder_end_object (b);
  nk_json_add_member_double (b, "memory_total", p->memory_total);
  json_builder_end_object (b);
  return write_json_file (dir, PLAN_NAME, b, error);
}

/* ---- metrics.jsonl kept up to a step ------------------------------------------------ */

#define METRICS_TEMP_PREFIX ".metrics.jsonl-"

gboolean
_nk_run_dir_has_run (const char *dir)
{
  g_autofree char *meta = g_build_filename (dir, META_NAME, NULL);
  g_autofree char *metrics = g_build_filename (dir, METRICS_NAME, NULL);

  return g_file_test (meta, G_FILE_TEST_EXISTS) || g_file_test (metrics, G_FILE_TEST_EXISTS);
}

typedef struct {
  gsize offset;
  gsize length;
} Range;

static void
add_range (GArray *ranges,
           gsize   offset,
           gsize   length)
{
  Range *last = ranges->len > 0 ? &g_array_index (ranges, Range, ranges->len - 1) : NULL;
  Range r = { offset, length };

  if (last != NULL && last->offset + last->length == offset)
    last->length += length;
  else
    g_array_append_val (ranges, r);
}

/* The byte ranges of @data that stay: each step up to @keep once, in order, and the
 * lines between two kept steps (a corrupt line there is kept, and counted, rather
 * than taken for the end of the file). Returns: whether anything is dropped */
static gboolean
plan_kept_ranges (const char *data,
                  gsize       length,
                  guint64     keep,
                  GArray     *ranges,
                  gsize      *out_bad)
{
  g_autoptr(GArray) pending = g_array_new (FALSE, FALSE, sizeof (Range));
  const char *p = data, *end = data + length;
  gboolean dropped = FALSE;
  guint64 last_kept = 0;
  gsize bad = 0, pending_bad = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize line_len = nl != NULL ? (gsize) (nl + 1 - p) : (gsize) (end - p);
      NkTrainMetrics m;
      NkRunLineKind kind = _nk_run_metrics_scan_line (p, nl != NULL ? (gsize) (nl - p) : line_len, &m);

      if (nl == NULL)
        dropped = TRUE;   /* torn: the writer died inside its last write() */
      else if (kind == NK_RUN_LINE_STEP && m.step > last_kept && m.step <= keep)
        {
          for (guint i = 0; i < pending->len; i++)
            add_range (ranges, g_array_index (pending, Range, i).offset,
                       g_array_index (pending, Range, i).length);
          g_array_set_size (pending, 0);
          bad += pending_bad;
          pending_bad = 0;
          add_range (ranges, p - data, line_len);
          last_kept = m.step;
        }
      else if (kind == NK_RUN_LINE_BAD || kind == NK_RUN_LINE_BLANK)
        {
          Range r = { p - data, line_len };

          g_array_append_val (pending, r);
          pending_bad += kind == NK_RUN_LINE_BAD;
        }
      else
        dropped = TRUE;   /* the closing line, a step to run again, a repeat */
      p += line_len;
    }
  if (out_bad != NULL)
    *out_bad = bad;
  return dropped || pending->len > 0;
}

static gboolean
write_fd_all (int          fd,
              const char  *data,
              gsize        len,
              const char  *path,
              GError     **error)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;

          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                       _("Could not write “%s”: %s"), path, g_strerror (errsv));
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

static void
sync_dir (const char *dir)
{
  int fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

  if (fd < 0)
    return;
  if (fsync (fd) != 0)
    g_debug ("fsync of %s: %s", dir, g_strerror (errno));
  close (fd);
}

/* A temporary left by a resume that was killed while it replaced metrics.jsonl. */
static void
remove_stale_temps (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, METRICS_TEMP_PREFIX))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);

        g_unlink (path);
      }
}

/* Writes @ranges of @data to a new file and renames it over @path. */
static gboolean
replace_with_ranges (const char  *dir,
                     const char  *path,
                     const char  *data,
                     GArray      *ranges,
                     GError     **error)
{
  g_autofree char *tmp = g_build_filename (dir, METRICS_TEMP_PREFIX "XXXXXX", NULL);
  gboolean ok = TRUE;
  int fd, errsv;

  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not create a file in “%s”: %s"), dir, g_strerror (errsv));
      return FALSE;
    }
  for (guint i = 0; ok && i < ranges->len; i++)
    ok = write_fd_all (fd, data + g_array_index (ranges, Range, i).offset,
                       g_array_index (ranges, Range, i).length, tmp, error);
  if (ok && fsync (fd) != 0)
    {
      errsv = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not write “%s”: %s"), tmp, g_strerror (errsv));
      ok = FALSE;
    }
  close (fd);
  if (ok && g_rename (tmp, path) != 0)
    {
      errsv = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not replace “%s”: %s"), path, g_strerror (errsv));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmp);
  else
    sync_dir (dir);
  return ok;
}

gboolean
_nk_run_dir_keep_steps (const char  *dir,
                        guint64      keep_steps,
                        gsize       *out_bad_lines,
                        GError     **error)
{
  g_autofree char *path = g_build_filename (dir, METRICS_NAME, NULL);
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  g_autoptr(GMappedFile) map = NULL;
  g_autoptr(GError) local = NULL;
  const char *data;
  gsize length;

  if (out_bad_lines != NULL)
    *out_bad_lines = 0;
  remove_stale_temps (dir);
  map = g_mapped_file_new (path, FALSE, &local);
  if (map == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  data = g_mapped_file_get_contents (map);
  length = g_mapped_file_get_length (map);
  if (length == 0 || !plan_kept_ranges (data, length, keep_steps, ranges, out_bad_lines))
    return TRUE;
  return replace_with_ranges (dir, path, data, ranges, error);
}

/* ---- the writer ----------------------------------------------------------------- */

/* The name and creation time a resumed run keeps; a name given for it
 * (_nk_run_writer_set_name()) stays. */
static void
read_existing_meta (const char  *dir,
                    char       **name,
                    gint64      *created)
{
  g_autoptr(NkRunInfo) info = nk_run_info_read (dir, NULL);

  if (info != NULL)
    {
      if (*name == NULL)
        *name = g_strcmp0 (info->name, info->id) != 0 ? g_strdup (info->name) : NULL;
      *created = info->created;
    }
}

gboolean
_nk_run_writer_set_name (NkRunWriter  *w,
                         const char   *name,
                         GError      **error)
{
  g_return_val_if_fail (w != NULL && name != NULL, FALSE);

  g_free (w->name);
  w->name = g_strdup (name);
  /* a new folder's meta.json is written already; a resumed one's when it begins */
  return w->fd < 0 || nk_run_dir_set_name (w->dir, name, error);
}

NkRunWriter *
_nk_run_writer_lock (const char  *dir,
                     GError     **error)
{
  g_autoptr(NkRunWriter) w = g_new0 (NkRunWriter, 1);

  g_return_val_if_fail (dir != NULL, NULL);

  w->fd = -1;
  w->dir = g_strdup (dir);
  w->buffer = g_string_sized_new (1024);
  w->created = g_get_real_time () / G_USEC_PER_SEC;
  w->lock = nk_checkpoint_lock (dir, error);
  if (w->lock == NULL)
    return NULL;
  return g_steal_pointer (&w);
}

gboolean
_nk_run_writer_has_begun (NkRunWriter *writer)
{
  return writer->fd >= 0;
}

gboolean
_nk_run_writer_begin (NkRunWriter              *w,
                      const NkTrainConfig      *config,
                      const NkTrainPrediction  *prediction,
                      guint64                   keep_steps,
                      gsize                    *out_bad_lines,
                      GError                  **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (w != NULL && w->lock != NULL && w->fd < 0, FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  if (_nk_run_dir_has_run (w->dir))
    read_existing_meta (w->dir, &w->name, &w->created);
  /* Before anything says "running": a crash from here on leaves each kept step once. */
  if (!_nk_run_dir_keep_steps (w->dir, keep_steps, out_bad_lines, error))
    return FALSE;
  if (!write_meta (w->dir, w->name, w->created, NK_RUN_STATUS_RUNNING, NULL, error)
      || !write_config (w->dir, config, error))
    return FALSE;
  if (prediction != NULL && !write_plan (w->dir, prediction, error))
    return FALSE;
  w->events = nk_event_writer_new (w->dir, error);
  if (w->events == NULL)
    return FALSE;
  path = g_build_filename (w->dir, METRICS_NAME, NULL);
  w->fd = g_open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (w->fd < 0)
    {
      int errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not open “%s”: %s"), path, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

NkRunWriter *
nk_run_writer_open (const char               *dir,
                    const NkTrainConfig      *config,
                    const NkTrainPrediction  *prediction,
                    guint64                   keep_steps,
                    GError                  **error)
{
  g_autoptr(NkRunWriter) w = NULL;

  g_return_val_if_fail (dir != NULL, NULL);
  g_return_val_if_fail (config != NULL, NULL);

  w = _nk_run_writer_lock (dir, error);
  if (w == NULL || !_nk_run_writer_begin (w, config, prediction, keep_steps, NULL, error))
    return NULL;
  return g_steal_pointer (&w);
}

/**
 * nk_run_writer_get_dir: (skip)
 * @writer: a writer
 *
 * The run folder written.
 *
 * Returns: (transfer none): the folder
 */
const char *
nk_run_writer_get_dir (NkRunWriter *writer)
{
  g_return_val_if_fail (writer != NULL, NULL);
  return writer->dir;
}

static gboolean
write_all (NkRunWriter  *w,
           const char   *data,
           gsize         len,
           GError      **error)
{
  g_autoptr(GError) local = NULL;

  if (write_fd_all (w->fd, data, len, METRICS_NAME, &local))
    return TRUE;
  g_set_error (error, local->domain, local->code,
               _("Could not write the run’s metrics in “%s”: %s"), w->dir,
               strchr (local->message, ':') != NULL ? strchr (local->message, ':') + 2
                                                    : local->message);
  return FALSE;
}

/* TensorBoard's names for a step's figures; bytes under memory/ as the buckets. */
static const char *const bucket_tags[] = {
  [NK_BUCKET_PARAMS] = "memory/params",
  [NK_BUCKET_GRADS] = "memory/grads",
  [NK_BUCKET_OPTIMIZER] = "memory/optimizer",
  [NK_BUCKET_ACTIVATIONS] = "memory/activations",
};

/* One step's scalars into the event file, unflushed. */
static gboolean
add_step_scalars (NkRunWriter           *writer,
                  const NkTrainMetrics  *m,
                  GError               **error)
{
  const struct { const char *tag; double value; } figures[] = {
    { "loss", m->loss },
    { "seconds", m->seconds },
    { "flops_per_s", m->flops_per_s },
    { "mfu", m->mfu },
  };

  g_return_val_if_fail (writer != NULL && writer->events != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (figures); i++)
    if (!nk_event_writer_add_scalar (writer->events, figures[i].tag, (gint64) m->step, -1,
                                     (float) figures[i].value, error))
      return FALSE;
  for (guint b = 0; b < G_N_ELEMENTS (bucket_tags); b++)
    if (!nk_event_writer_add_scalar (writer->events, bucket_tags[b], (gint64) m->step, -1,
                                     (float) m->memory[b], error))
      return FALSE;
  /* Only fp16 runs scale the loss (0 otherwise). */
  if (m->loss_scale > 0
      && !nk_event_writer_add_scalar (writer->events, "loss_scale", (gint64) m->step, -1,
                                      (float) m->loss_scale, error))
    return FALSE;
  return TRUE;
}

gboolean
_nk_run_writer_write_lines (NkRunWriter           *writer,
                            const char            *lines,
                            gsize                  length,
                            const NkTrainMetrics  *metrics,
                            gsize                  n_steps,
                            GError               **error)
{
  g_return_val_if_fail (writer != NULL && writer->fd >= 0, FALSE);
  g_return_val_if_fail (metrics != NULL || n_steps == 0, FALSE);

  if (!write_all (writer, lines, length, error))
    return FALSE;
  /* one flush for the batch, as metrics.jsonl gets one write() */
  for (gsize i = 0; i < n_steps; i++)
    if (!add_step_scalars (writer, &metrics[i], error))
      return FALSE;
  return nk_event_writer_flush (writer->events, error);
}

void
_nk_run_metrics_format (const NkTrainMetrics *m,
                        const char           *device,
                        GString              *out)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *line = NULL;

  nk_train_metrics_build_json (m, device, b);
  line = nk_json_to_line (b);
  g_string_append (out, line);
  g_string_append_c (out, '\n');
}

gboolean
nk_run_writer_append (NkRunWriter           *writer,
                      const NkTrainMetrics  *metrics,
                      gsize                  n_steps,
                      const char            *device,
                      GError               **error)
{
  g_return_val_if_fail (writer != NULL && writer->fd >= 0, FALSE);
  g_return_val_if_fail (metrics != NULL || n_steps == 0, FALSE);

  g_string_truncate (writer->buffer, 0);
  for (gsize i = 0; i < n_steps; i++)
    _nk_run_metrics_format (&metrics[i], device, writer->buffer);
  return _nk_run_writer_write_lines (writer, writer->buffer->str, writer->buffer->len,
                                     metrics, n_steps, error);
}

gboolean
_nk_run_writer_sync (NkRunWriter  *writer,
                     GError      **error)
{
  g_return_val_if_fail (writer != NULL && writer->fd >= 0, FALSE);

  if (fsync (writer->fd) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not write the run’s metrics in “%s”: %s"), writer->dir,
                   g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

gboolean
nk_run_writer_finish (NkRunWriter  *writer,
                      NkRunStatus   status,
                      guint64       steps,
                      double        final_loss,
                      const char   *message,
                      GError      **error)
{
  g_return_val_if_fail (writer != NULL && writer->fd >= 0, FALSE);
  g_return_val_if_fail (status != NK_RUN_STATUS_RUNNING
                        && status != NK_RUN_STATUS_INTERRUPTED, FALSE);

  if (status != NK_RUN_STATUS_FAILED)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *line = NULL;

      nk_train_done_build_json (steps, final_loss, b);
      line = nk_json_to_line (b);
      g_string_assign (writer->buffer, line);
      g_string_append_c (writer->buffer, '\n');
      if (!write_all (writer, writer->buffer->str, writer->buffer->len, error))
        return FALSE;
    }
  if (fsync (writer->fd) != 0)
    g_debug ("fsync of %s/%s: %s", writer->dir, METRICS_NAME, g_strerror (errno));
  if (!nk_event_writer_close (g_steal_pointer (&writer->events), error))
    return FALSE;
  if (!write_meta (writer->dir, writer->name, writer->created, status, message, error))
    return FALSE;
  g_clear_pointer (&writer->lock, nk_checkpoint_unlock);
  return TRUE;
}

/**
 * nk_run_writer_free: (skip)
 * @writer: (nullable) (transfer full): a writer
 *
 * Closes the files and releases the lock; a writer not finished leaves a folder that
 * reads as interrupted.
 */
void
nk_run_writer_free (NkRunWriter *writer)
{
  if (writer == NULL)
    return;
  if (writer->fd >= 0)
    close (writer->fd);
  g_clear_pointer (&writer->lock, nk_checkpoint_unlock);
  g_clear_pointer (&writer->events, nk_event_writer_free);
  g_string_free (writer->buffer, TRUE);
  g_free (writer->name);
  g_free (writer->dir);
  g_free (writer);
}

/* ---- reading ------------------------------------------------------------------- */

/**
 * nk_run_dir_is_locked:
 * @dir: a run folder
 *
 * Whether a live process holds the folder's lock (this process's own runs included).
 *
 * Returns: %TRUE when a run writes the folder now
 */
gboolean
nk_run_dir_is_locked (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, NK_CHECKPOINT_LOCK_NAME, NULL);
  gboolean locked = FALSE;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  /* A new open file description conflicts with the writer's lock even inside the
   * writer's own process, so the app sees its own live runs as running. */
  if (flock (fd, LOCK_SH | LOCK_NB) != 0)
    locked = errno == EWOULDBLOCK;
  else
    flock (fd, LOCK_UN);
  close (fd);
  return locked;
}

static gboolean
status_from_string (const char  *text,
                    NkRunStatus *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (status_names); i++)
    if (g_strcmp0 (text, status_names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

static JsonObject *
read_json_object (const char  *dir,
                  const char  *name,
                  JsonParser  *parser,
                  GError     **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  JsonNode *root;

  if (!nk_json_parser_load_file (parser, path, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_CORRUPT,
                   _("“%s” is not a JSON object."), path);
      return NULL;
    }
  return json_node_get_object (root);
}

static void
read_plan (NkRunInfo *info)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o = read_json_object (info->path, PLAN_NAME, parser, NULL);
  static const char *memory_names[] = { "params", "grads", "optimizer", "activations" };
  NkTrainPrediction *p = &info->prediction;
  JsonObject *mem;

  if (o == NULL)
    return;
#define D(name) (json_object_has_member (o, name) \
                 && json_node_get_value_type (json_object_get_member (o, name)) != G_TYPE_STRING \
                 ? json_object_get_double_member (o, name) : NAN)
  p->n_parameters = (guint64) json_object_get_int_member_with_default (o, "n_parameters", 0);
  p->tokens_per_step = D ("tokens_per_step");
  p->flops_per_step = D ("flops_per_step");
  p->seconds_per_step = D ("seconds_per_step");
  p->gemm_rate = D ("gemm_rate");
  p->memory_total = D ("memory_total");
#undef D
  mem = json_object_get_object_member (o, "memory");
  for (guint i = 0; mem != NULL && i < G_N_ELEMENTS (memory_names); i++)
    p->memory[i] = json_object_get_double_member_with_default (mem, memory_names[i], NAN);
  info->has_plan = TRUE;
}

static gboolean
has_checkpoint (const char *dir)
{
  g_autofree char *ckdir = nk_run_dir_get_checkpoint_dir (dir);
  g_autoptr(GDir) d = g_dir_open (ckdir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".safetensors"))
      return TRUE;
  return FALSE;
}

/**
 * nk_run_info_read:
 * @dir: a run folder
 * @error: return location for a #GError (%NK_RUN_DIR_ERROR_NOT_A_RUN without a
 *   readable meta.json)
 *
 * Describes the run in @dir from its meta.json, config.json, plan.json, lock and
 * checkpoints, without reading its metrics.
 *
 * Returns: (transfer full) (nullable): the description
 */
NkRunInfo *
nk_run_info_read (const char  *dir,
                  GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(NkRunInfo) info = g_new0 (NkRunInfo, 1);
  g_autoptr(GError) local = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *config_text = NULL;
  JsonObject *meta;
  const char *name;

  g_return_val_if_fail (dir != NULL, NULL);

  info->path = g_strdup (dir);
  info->id = g_path_get_basename (dir);
  meta = read_json_object (dir, META_NAME, parser, &local);
  if (meta == NULL)
    {
      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_NOT_A_RUN,
                   _("“%s” is not a run folder: %s"), dir, local->message);
      return NULL;
    }
  name = json_object_get_string_member_with_default (meta, "name", "");
  info->name = g_strdup (name != NULL && *name != '\0' ? name : info->id);
  info->created = json_object_get_int_member_with_default (meta, "created", 0);
  info->pid = json_object_get_int_member_with_default (meta, "pid", 0);
  info->error = g_strdup (json_object_get_string_member_with_default (meta, "error", NULL));
  if (!status_from_string (json_object_get_string_member_with_default (meta, "status", ""),
                           &info->status))
    info->status = NK_RUN_STATUS_INTERRUPTED;
  if (info->status == NK_RUN_STATUS_RUNNING && !nk_run_dir_is_locked (dir))
    info->status = NK_RUN_STATUS_INTERRUPTED;

  config_path = g_build_filename (dir, CONFIG_NAME, NULL);
  if (g_file_get_contents (config_path, &config_text, NULL, NULL))
    info->config = nk_run_config_from_json (config_text, NULL);
  read_plan (info);
  info->has_checkpoint = has_checkpoint (dir);
  return g_steal_pointer (&info);
}

/**
 * nk_run_info_copy:
 * @info: a run's description
 *
 * Copies the description, its strings and its config.
 *
 * Returns: (transfer full): the copy; free it with nk_run_info_free()
 */
NkRunInfo *
nk_run_info_copy (const NkRunInfo *info)
{
  NkRunInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->path = g_strdup (info->path);
  copy->id = g_strdup (info->id);
  copy->name = g_strdup (info->name);
  copy->error = g_strdup (info->error);
  copy->config = info->config ? nk_train_config_copy (info->config) : NULL;
  return copy;
}

/**
 * nk_run_info_free:
 * @info: (nullable) (transfer full): a run's description
 *
 * Frees the description.
 */
void
nk_run_info_free (NkRunInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->path);
  g_free (info->id);
  g_free (info->name);
  g_free (info->error);
  g_clear_pointer (&info->config, nk_train_config_free);
  g_free (info);
}

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  const NkRunInfo *x = *(NkRunInfo * const *) a;
  const NkRunInfo *y = *(NkRunInfo * const *) b;

  if (x->created != y->created)
    return x->created < y->created ? 1 : -1;
  /* Ids sort by time too, and break ties within one second by their counter. */
  return -strcmp (x->id, y->id);
}

GPtrArray *
nk_run_dir_list (const char  *root,
                 GError     **error)
{
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_run_info_free);
  g_autoptr(GError) local = NULL;
  g_autoptr(GDir) d = NULL;
  const char *name;

  g_return_val_if_fail (root != NULL, NULL);

  d = g_dir_open (root, 0, &local);
  if (d == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&runs);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (root, name, NULL);
      NkRunInfo *info;

      if (!g_file_test (path, G_FILE_TEST_IS_DIR))
        continue;
      info = nk_run_info_read (path, NULL);
      if (info != NULL)
        g_ptr_array_add (runs, info);
    }
  g_ptr_array_sort (runs, compare_newest_first);
  return g_steal_pointer (&runs);
}

/**
 * nk_run_dir_set_name:
 * @dir: a run folder
 * @name: the new name
 * @error: return location for a #GError
 *
 * Renames the run: meta.json's "name", rewritten atomically; the folder keeps its id.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_run_dir_set_name (const char  *dir,
                     const char  *name,
                     GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *meta;

  g_return_val_if_fail (dir != NULL && name != NULL, FALSE);

  meta = read_json_object (dir, META_NAME, parser, error);
  if (meta == NULL)
    return FALSE;
  json_object_set_string_member (meta, "name", name);
  return write_json_node (dir, META_NAME, json_parser_get_root (parser), error);
}

gboolean
nk_run_dir_read_metrics (const char        *dir,
                         NkTrainHistory    *history,
                         NkRunMetricsInfo  *out_info,
                         GError           **error)
{
  g_autofree char *path = g_build_filename (dir, METRICS_NAME, NULL);
  g_autoptr(GMappedFile) map = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (dir != NULL && history != NULL, FALSE);

  if (out_info != NULL)
    memset (out_info, 0, sizeof *out_info);
  map = g_mapped_file_new (path, FALSE, &local);
  if (map == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  nk_run_metrics_parse (g_mapped_file_get_contents (map), g_mapped_file_get_length (map),
                        history, out_info);
  return TRUE;
}

static const char *
last_newline (const char *data,
              const char *end)
{
  while (end > data)
    if (*--end == '\n')
      return end;
  return NULL;
}

gboolean
nk_run_dir_read_last_step (const char     *dir,
                           NkTrainMetrics *out)
{
  g_autofree char *path = g_build_filename (dir, METRICS_NAME, NULL);
  g_autoptr(GMappedFile) map = NULL;
  const char *data, *end, *p;
  gsize length;

  g_return_val_if_fail (dir != NULL && out != NULL, FALSE);

  map = g_mapped_file_new (path, FALSE, NULL);
  if (map == NULL || (length = g_mapped_file_get_length (map)) == 0)
    return FALSE;
  data = g_mapped_file_get_contents (map);
  end = data + length;
  /* Back over the closing line, a torn line and garbage, one complete line at a time. */
  while (end > data)
    {
      g_autoptr(NkTrainHistory) h = nk_train_history_new ();

      if (end[-1] != '\n')
        {
          end = last_newline (data, end);
          if (end == NULL)
            return FALSE;
          end++;
          continue;
        }
      p = last_newline (data, end - 1);
      p = p != NULL ? p + 1 : data;
      nk_run_metrics_parse (p, end - p, h, NULL);
      if (nk_train_history_get_n (h) == 1)
        {
          nk_train_history_get (h, 0, out);
          return TRUE;
        }
      end = p;
    }
  return FALSE;
}

/* ---- config.json → settings ------------------------------------------------------- */

static char *
dup_string_member (JsonObject *o,
                   const char *name)
{
  return g_strdup (json_object_get_string_member_with_default (o, name, NULL));
}

/**
 * nk_run_config_from_json:
 * @json: a config.json (or a checkpoint's config)
 * @error: return location for a #GError (%NK_RUN_DIR_ERROR_CORRUPT naming what is
 *   wrong)
 *
 * Reads a config back into settings; fields it lacks keep their defaults
 * (nk_train_config_new()).
 *
 * Returns: (transfer full) (nullable): the settings
 */
NkTrainConfig *
nk_run_config_from_json (const char  *json,
                         GError     **error)
{
  g_autoptr(JsonNode) node = nk_json_from_string (json, error);
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  JsonObject *o;
  const char *s;

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_CORRUPT,
                   _("A run’s config is not a JSON object."));
      return NULL;
    }
  o = json_node_get_object (node);
  if ((s = json_object_get_string_member_with_default (o, "model", NULL)) != NULL
      && !nk_model_kind_from_string (s, &c->model))
    {
      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_CORRUPT,
                   _("A run’s config names an unknown model “%s”."), s);
      return NULL;
    }
  c->dim = json_object_get_int_member_with_default (o, "dim", c->dim);
  c->layers = json_object_get_int_member_with_default (o, "layers", c->layers);
  c->batch = json_object_get_int_member_with_default (o, "batch", c->batch);
  c->context = json_object_get_int_member_with_default (o, "context", c->context);
  c->steps = json_object_get_int_member_with_default (o, "steps", c->steps);
  c->lr = json_object_get_double_member_with_default (o, "lr", c->lr);
  c->seed = json_object_get_int_member_with_default (o, "seed", c->seed);
  if ((s = json_object_get_string_member_with_default (o, "optimizer", NULL)) != NULL)
    nk_optimizer_from_string (s, &c->optimizer);
  if ((s = json_object_get_string_member_with_default (o, "precision", NULL)) != NULL)
    nk_precision_from_string (s, &c->precision);
  /* The block-scaled recipes' choices (nk_train_config_to_json() writes them under
   * mxfp8 and nvfp4 only). */
  c->mx_scale = g_strcmp0 (json_object_get_string_member_with_default (o, "mx_scale", NULL),
                           "floor") == 0 ? NK_MX_SCALE_FLOOR : NK_MX_SCALE_UP;
  c->nvfp4_nearest = g_strcmp0 (json_object_get_string_member_with_default (o, "nvfp4_rounding", NULL),
                                "nearest") == 0;
  if (g_strcmp0 (json_object_get_string_member_with_default (o, "init", NULL),
                 nk_init_kind_to_string (NK_INIT_NORMAL)) == 0)
    c->init_kind = NK_INIT_NORMAL;
  if ((s = json_object_get_string_member_with_default (o, "device", NULL)) != NULL)
    {
      g_free (c->device);
      c->device = g_strdup (s);
    }
  c->init_file = dup_string_member (o, "init_file");
  c->inputs = dup_string_member (o, "inputs");
  c->targets = dup_string_member (o, "targets");
  c->text_file = dup_string_member (o, "text");
  /* The GPT's (nk_train_config_to_json() writes them for a GPT only). */
  c->n_head = json_object_get_int_member_with_default (o, "n_head", c->n_head);
  c->vocab = json_object_get_int_member_with_default (o, "vocab", c->vocab);
  c->tokens_file = dup_string_member (o, "tokens");
  c->batches_file = dup_string_member (o, "batches");
  c->checkpoint_dir = dup_string_member (o, "checkpoint_dir");
  c->checkpoint_every = json_object_get_int_member_with_default (o, "checkpoint_every",
                                                                 c->checkpoint_every);
  c->checkpoint_keep = json_object_get_int_member_with_default (o, "checkpoint_keep",
                                                                c->checkpoint_keep);
  return g_steal_pointer (&c);
}
