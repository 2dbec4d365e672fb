/* nk-log-follow.c: a log or TensorBoard folder still being written, read as it grows
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules (when a step is emitted, restarted steps, truncation, rotation, the end)
 * are said in nk-log-follow.h. Lines and TensorBoard points are read by
 * nk-log-import.c's readers (nk-log-import-private.h); this file only frames bytes
 * into complete lines and records and decides when a step is complete.
 */
#include "config.h"

#include "nk-log-follow.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "nk-enum-types.h"
#include "nk-file-util.h"
#include "nk-log-import-private.h"
#include "nk-tfevents.h"

/* A TensorBoard record past this is no scalar's (a graph, an image): skipped unread. */
#define MAX_RECORD (1 << 20)
/* The most event files a followed folder holds (per-rank subfolders). */
#define MAX_SOURCES 256

typedef struct {
  char *path;
  int fd;
  dev_t dev;
  ino_t ino;
  goffset offset;           /* bytes of fd read */
  GByteArray *partial;      /* read, not yet a complete line or record */
  goffset skip;             /* bytes still to drop: an over-long line or record */
  gboolean tfevents;
  gboolean broken;          /* a TFRecord's framing is lost: nothing after it is read */
} Source;

/**
 * NkLogFollower:
 *
 * A log file or TensorBoard folder read while its engine still writes it: each
 * step once, in order, as its lines complete; truncation and rotation noticed and
 * said; ended by the engine's end line, idleness or nk_log_follower_stop(). See
 * nk-log-follow.h for when a step is emitted.
 */
struct _NkLogFollower
{
  GObject parent_instance;

  char *path;
  NkLogFormat format;
  gboolean folder;          /* a TensorBoard folder: sources found as they appear */
  double idle_timeout;
  guint poll_interval;

  GPtrArray *sources;       /* Source * */
  GFileMonitor *monitor;
  GMainContext *context;    /* the thread-default context at start: the sources' */
  GSource *poll;
  GSource *more;            /* an idle that reads on while a backlog is left */
  gint64 last_growth;
  gboolean grew;            /* since the last poll */
  gboolean running;
  NkLogFollowEnd end_reason;

  NkImportStep pending;
  gboolean have_pending;
  double pending_memory;    /* a memory line before any step */
  gint64 last_emitted;
  gboolean have_emitted;
  gint64 last_replaced;
  gboolean have_replaced;

  guint n_steps;
  guint skipped_lines;
  guint rejected_lines;
  guint replaced_steps;
  char *first_rejected;
};

G_DEFINE_FINAL_TYPE (NkLogFollower, nk_log_follower, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PATH,
  PROP_FORMAT,
  PROP_IDLE_TIMEOUT,
  PROP_POLL_INTERVAL,
  PROP_RUNNING,
  PROP_END_REASON,
  PROP_N_STEPS,
  N_PROPS
};

enum {
  SIGNAL_STEP,
  SIGNAL_NOTICE,
  SIGNAL_ENDED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void follower_end (NkLogFollower *self, NkLogFollowEnd reason);

/* -- sources ------------------------------------------------------------------------ */

static Source *
source_new (const char *path,
            gboolean    tfevents)
{
  Source *s = g_new0 (Source, 1);

  s->path = g_strdup (path);
  s->fd = -1;
  s->partial = g_byte_array_new ();
  s->tfevents = tfevents;
  return s;
}

static void
source_close (Source *s)
{
  if (s->fd >= 0)
    close (s->fd);
  s->fd = -1;
  s->offset = 0;
  s->skip = 0;
  s->broken = FALSE;
  g_byte_array_set_size (s->partial, 0);
}

static void
source_free (gpointer data)
{
  Source *s = data;

  source_close (s);
  g_byte_array_unref (s->partial);
  g_free (s->path);
  g_free (s);
}

static void
notice (NkLogFollower *self,
        const char    *sentence)
{
  g_signal_emit (self, signals[SIGNAL_NOTICE], 0, sentence);
}

/* Opens @s's path if it names a regular file now; FALSE (and a notice when it is
 * something else) if not. */
static gboolean
source_open (NkLogFollower *self,
             Source        *s)
{
  g_autoptr(GError) error = NULL;
  struct stat st;
  int fd;

  if (g_access (s->path, F_OK) != 0)
    return FALSE;           /* not there yet, or renamed away: waited for */
  fd = nk_file_open_regular (s->path, G_MAXINT64, NULL, &error);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      if (fd >= 0)
        close (fd);
      notice (self, error != NULL ? error->message : g_strerror (errno));
      follower_end (self, NK_LOG_FOLLOW_END_ERROR);
      return FALSE;
    }
  s->fd = fd;
  s->dev = st.st_dev;
  s->ino = st.st_ino;
  return TRUE;
}

/* -- steps -------------------------------------------------------------------------- */

static void
flush_pending (NkLogFollower *self)
{
  NkImportStep step;

  if (!self->have_pending)
    return;
  step = self->pending;
  self->have_pending = FALSE;
  self->last_emitted = step.step;
  self->have_emitted = TRUE;
  self->n_steps++;
  g_signal_emit (self, signals[SIGNAL_STEP], 0, &step);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_STEPS]);
}

static void
reject (NkLogFollower *self,
        char          *why)
{
  self->skipped_lines++;
  self->rejected_lines++;
  if (self->first_rejected == NULL)
    self->first_rejected = why;
  else
    g_free (why);
}

/* One line's (or point's) values for its step: gathered into the pending step, or
 * the pending step emitted and this one pending; a step at or below the last one
 * emitted is a restart's and counted, never emitted twice. */
static void
take_step (NkLogFollower      *self,
           const NkImportStep *one)
{
  if (self->have_pending && self->pending.step == one->step)
    {
      _nk_import_step_merge (&self->pending, one);
      return;
    }
  flush_pending (self);
  if (self->have_emitted && one->step <= self->last_emitted)
    {
      if (!self->have_replaced || self->last_replaced != one->step)
        self->replaced_steps++;
      self->last_replaced = one->step;
      self->have_replaced = TRUE;
      return;
    }
  self->have_replaced = FALSE;
  self->pending = *one;
  self->have_pending = TRUE;
  if (!isnan (self->pending_memory))
    {
      NkImportStep memory = { one->step, NAN, NAN, NAN, NAN, self->pending_memory, NAN, NAN, 0 };

      _nk_import_step_merge (&self->pending, &memory);
      self->pending_memory = NAN;
    }
}

static void
take_memory (NkLogFollower *self,
             double         memory)
{
  if (isnan (memory))
    return;
  if (self->have_pending)
    {
      if (isnan (self->pending.memory_max_bytes) || memory > self->pending.memory_max_bytes)
        self->pending.memory_max_bytes = memory;
    }
  else if (!self->have_emitted && (isnan (self->pending_memory) || memory > self->pending_memory))
    self->pending_memory = memory;
}

/* One complete line, its newline cut off. FALSE when it ended the run. */
static gboolean
take_line (NkLogFollower *self,
           char          *line)
{
  NkImportStep one;
  char *why = NULL;

  _nk_log_line_clean (line);
  line = g_strstrip (line);
  if (line[0] == '\0')
    return TRUE;
  if (self->format == NK_LOG_FORMAT_AUTO)
    {
      self->format = _nk_log_line_detect (line);
      if (self->format == NK_LOG_FORMAT_AUTO)
        {
          self->skipped_lines++;
          return TRUE;
        }
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FORMAT]);
    }
  if (_nk_log_line_is_end (self->format, line))
    {
      follower_end (self, NK_LOG_FOLLOW_END_RUN_ENDED);
      return FALSE;
    }
  switch (_nk_log_line_parse (self->format, line, &one, &why))
    {
    case NK_LOG_LINE_STEP: take_step (self, &one); break;
    case NK_LOG_LINE_MEMORY: take_memory (self, one.memory_max_bytes); break;
    case NK_LOG_LINE_REJECTED: reject (self, why); break;
    default: self->skipped_lines++; break;
    }
  return TRUE;
}

/* Cuts @s's buffer into lines as import does (newline, lone "\r" or NUL end one); a
 * line past NK_LOG_IMPORT_MAX_LINE is dropped unread and counted. */
static void
take_lines (NkLogFollower *self,
            Source        *s)
{
  GByteArray *b = s->partial;
  gsize start = 0;

  for (gsize i = 0; i < b->len && self->running; i++)
    {
      char c = (char) b->data[i];

      if (c != '\n' && c != '\r' && c != '\0')
        continue;
      if (i - start > NK_LOG_IMPORT_MAX_LINE)
        self->skipped_lines++;
      else if (i > start)
        {
          b->data[i] = '\0';
          if (!take_line (self, (char *) b->data + start))
            return;
        }
      start = i + 1;
    }
  g_byte_array_remove_range (b, 0, start);
  /* a line already too long waits for its end without being held (source_read()) */
  if (b->len > NK_LOG_IMPORT_MAX_LINE)
    {
      g_byte_array_set_size (b, 0);
      s->skip = 1;
    }
}

static void
take_record (NkLogFollower *self,
             const guint8  *data,
             gsize          len)
{
  g_autoptr(NkScalarLog) log = nk_scalar_log_new ();
  GHashTableIter it;
  gpointer tag, points;

  nk_scalar_log_add_buffer (log, data, len);
  self->skipped_lines += log->n_skipped;
  g_hash_table_iter_init (&it, log->tags);
  while (g_hash_table_iter_next (&it, &tag, &points))
    for (guint i = 0; i < ((GArray *) points)->len; i++)
      {
        NkImportStep one;
        char *why = NULL;

        switch (_nk_log_import_point (tag, &g_array_index ((GArray *) points, NkScalarPoint, i),
                                      &one, &why))
          {
          case NK_LOG_LINE_STEP: take_step (self, &one); break;
          case NK_LOG_LINE_REJECTED: reject (self, why); break;
          default: break;
          }
      }
}

/* Cuts @s's buffer into TFRecords (length, its masked CRC-32C, data, the data's
 * CRC): complete ones are read, a partial one waits. */
static void
take_records (NkLogFollower *self,
              Source        *s)
{
  GByteArray *b = s->partial;
  gsize off = 0;

  while (!s->broken && b->len - off >= 12)
    {
      guint64 n;
      guint32 len_crc;

      memcpy (&n, b->data + off, 8);
      memcpy (&len_crc, b->data + off + 8, 4);
      if (nk_crc32c_mask (nk_crc32c (0, b->data + off, 8)) != GUINT32_FROM_LE (len_crc))
        {
          g_autofree char *what = g_strdup_printf (_("The event file “%s” is corrupt at byte %"
                                                     PRId64 "; nothing after it is read."),
                                                   s->path, s->offset - (goffset) (b->len - off));
          s->broken = TRUE;
          self->skipped_lines++;
          notice (self, what);
          break;
        }
      n = GUINT64_FROM_LE (n);
      if (n > MAX_RECORD)
        {
          self->skipped_lines++;
          s->skip = (goffset) n + 16;
          break;
        }
      if (b->len - off < 12 + n + 4)
        break;
      take_record (self, b->data + off, 12 + n + 4);
      off += 12 + n + 4;
    }
  g_byte_array_remove_range (b, 0, s->broken ? b->len : off);
  if (s->skip > 0)
    {
      gsize drop = MIN ((goffset) b->len, s->skip);

      g_byte_array_remove_range (b, 0, drop);
      s->skip -= drop;
    }
}

/* -- reading ------------------------------------------------------------------------ */

/* Whether @s's path now names another file than the one open, or a shorter one. */
static void
check_replaced (NkLogFollower *self,
                Source        *s,
                goffset        size)
{
  struct stat st;

  if (size < s->offset)
    {
      g_autofree char *what = g_strdup_printf (_("“%s” was truncated (%" PRId64
                                                 " bytes where %" PRId64
                                                 " were read); reading it again from its start."),
                                               s->path, (gint64) size, (gint64) s->offset);
      notice (self, what);
      s->offset = 0;
      s->skip = 0;
      g_byte_array_set_size (s->partial, 0);
      return;
    }
  if (size == s->offset && g_stat (s->path, &st) == 0
      && (st.st_dev != s->dev || st.st_ino != s->ino))
    {
      g_autofree char *what = g_strdup_printf (_("“%s” was replaced by a new file (rotated); "
                                                 "reading the new file from its start."),
                                               s->path);
      notice (self, what);
      source_close (s);
    }
}

/* Reads at most @budget new bytes of @s; returns how many. */
static gsize
source_read (NkLogFollower *self,
             Source        *s,
             gsize          budget)
{
  struct stat st;
  gsize want, done = 0;

  if (s->broken || (s->fd < 0 && !source_open (self, s)))
    return 0;
  if (fstat (s->fd, &st) != 0)
    return 0;
  check_replaced (self, s, st.st_size);
  if (s->fd < 0)
    return 0;               /* rotated: the new file is opened on the next turn */
  want = (gsize) MIN ((goffset) budget, st.st_size - s->offset);
  while (done < want && self->running)
    {
      gsize old = s->partial->len;
      gsize chunk = MIN (want - done, 65536);
      gssize got;

      g_byte_array_set_size (s->partial, old + chunk);
      got = pread (s->fd, s->partial->data + old, chunk, s->offset);
      if (got <= 0)
        {
          g_byte_array_set_size (s->partial, old);
          break;
        }
      g_byte_array_set_size (s->partial, old + (gsize) got);
      s->offset += got;
      done += (gsize) got;
      if (s->skip > 0 && !s->tfevents)
        {
          /* inside an over-long line: only its end is looked for */
          guint8 *nl = NULL;

          for (gsize i = old; i < s->partial->len && nl == NULL; i++)
            if (s->partial->data[i] == '\n' || s->partial->data[i] == '\r' || s->partial->data[i] == 0)
              nl = s->partial->data + i;
          if (nl == NULL)
            {
              g_byte_array_set_size (s->partial, 0);
              continue;
            }
          g_byte_array_remove_range (s->partial, 0, nl - s->partial->data);
          s->skip = 0;
          self->skipped_lines++;
        }
      if (s->tfevents)
        take_records (self, s);
      else
        take_lines (self, s);
    }
  return done;
}

static gboolean
name_is_tfevents (const char *name)
{
  return strstr (name, "tfevents") != NULL;
}

/* Adds the event files that appeared under @dir (recursively, not through links). */
static void
find_sources (NkLogFollower *self,
              const char    *dir,
              int            depth)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d != NULL && depth <= 16 && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len && self->sources->len < MAX_SOURCES; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      gboolean known = FALSE;

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          find_sources (self, path, depth + 1);
          continue;
        }
      if (!name_is_tfevents (g_ptr_array_index (names, i)))
        continue;
      for (guint k = 0; k < self->sources->len && !known; k++)
        known = strcmp (((Source *) g_ptr_array_index (self->sources, k))->path, path) == 0;
      if (!known)
        g_ptr_array_add (self->sources, source_new (path, TRUE));
    }
}

/* Reads what is new, at most NK_LOG_FOLLOW_MAX_READ bytes; TRUE if bytes are left. */
static gboolean
read_some (NkLogFollower *self)
{
  gsize budget = NK_LOG_FOLLOW_MAX_READ;
  gboolean left = FALSE;

  if (self->folder)
    find_sources (self, self->path, 0);
  for (guint i = 0; i < self->sources->len && self->running; i++)
    {
      Source *s = g_ptr_array_index (self->sources, i);
      gsize got = source_read (self, s, budget);
      struct stat st;

      if (got > 0)
        {
          self->grew = TRUE;
          self->last_growth = g_get_monotonic_time ();
        }
      budget -= got;
      if (budget == 0 && s->fd >= 0 && fstat (s->fd, &st) == 0 && st.st_size > s->offset)
        left = TRUE;
      if (budget == 0)
        return TRUE;
    }
  return left;
}

static gboolean
read_more_cb (gpointer data)
{
  NkLogFollower *self = data;

  if (self->running && read_some (self))
    return G_SOURCE_CONTINUE;
  g_clear_pointer (&self->more, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
read_now (NkLogFollower *self)
{
  if (self->running && read_some (self) && self->running && self->more == NULL)
    {
      self->more = g_idle_source_new ();
      g_source_set_callback (self->more, read_more_cb, self, NULL);
      g_source_set_static_name (self->more, "NkLogFollower backlog");
      g_source_attach (self->more, self->context);
    }
}

/* Whether a source holds the first part of a line or record: the pending step may
 * not be complete yet (DeepSpeed's second line of the step being written). */
static gboolean
holds_partial (NkLogFollower *self)
{
  for (guint i = 0; i < self->sources->len; i++)
    {
      Source *s = g_ptr_array_index (self->sources, i);

      if (s->partial->len > 0 || s->skip > 0)
        return TRUE;
    }
  return FALSE;
}

/* The poll: reads, emits the pending step when nothing came since the poll before
 * and no line is half-written, ends after the idle timeout. */
static gboolean
poll_cb (gpointer data)
{
  NkLogFollower *self = data;

  self->grew = FALSE;
  read_now (self);
  if (!self->running)
    return G_SOURCE_CONTINUE;   /* follower_end() removed this source */
  if (!self->grew && self->more == NULL && !holds_partial (self))
    flush_pending (self);
  if (self->idle_timeout > 0
      && g_get_monotonic_time () - self->last_growth >= (gint64) (self->idle_timeout * G_USEC_PER_SEC))
    follower_end (self, NK_LOG_FOLLOW_END_IDLE);
  return G_SOURCE_CONTINUE;
}

static void
monitor_changed_cb (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other,
                    GFileMonitorEvent  event,
                    gpointer           data)
{
  read_now (data);
}

/* Removes the poll and the backlog idle from the context they were attached to
 * (g_source_remove() knows only the global default context). */
static void
clear_sources (NkLogFollower *self)
{
  if (self->poll != NULL)
    g_source_destroy (self->poll);
  g_clear_pointer (&self->poll, g_source_unref);
  if (self->more != NULL)
    g_source_destroy (self->more);
  g_clear_pointer (&self->more, g_source_unref);
}

static void
follower_end (NkLogFollower  *self,
              NkLogFollowEnd  reason)
{
  g_autoptr(NkLogFollower) hold G_GNUC_UNUSED = g_object_ref (self);

  if (!self->running)
    return;
  self->running = FALSE;
  flush_pending (self);
  clear_sources (self);
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->monitor, monitor_changed_cb, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  self->end_reason = reason;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_END_REASON]);
  g_signal_emit (self, signals[SIGNAL_ENDED], 0, reason);
}

/* -- the object --------------------------------------------------------------------- */

static void
nk_log_follower_dispose (GObject *object)
{
  NkLogFollower *self = NK_LOG_FOLLOWER (object);

  self->running = FALSE;
  clear_sources (self);
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->monitor, monitor_changed_cb, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  G_OBJECT_CLASS (nk_log_follower_parent_class)->dispose (object);
}

static void
nk_log_follower_finalize (GObject *object)
{
  NkLogFollower *self = NK_LOG_FOLLOWER (object);

  g_ptr_array_unref (self->sources);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->path);
  g_free (self->first_rejected);
  G_OBJECT_CLASS (nk_log_follower_parent_class)->finalize (object);
}

static void
nk_log_follower_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NkLogFollower *self = NK_LOG_FOLLOWER (object);

  switch (prop_id)
    {
    case PROP_PATH: g_value_set_string (value, self->path); break;
    case PROP_FORMAT: g_value_set_enum (value, self->format); break;
    case PROP_IDLE_TIMEOUT: g_value_set_double (value, self->idle_timeout); break;
    case PROP_POLL_INTERVAL: g_value_set_uint (value, self->poll_interval); break;
    case PROP_RUNNING: g_value_set_boolean (value, self->running); break;
    case PROP_END_REASON: g_value_set_enum (value, self->end_reason); break;
    case PROP_N_STEPS: g_value_set_uint (value, self->n_steps); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_log_follower_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NkLogFollower *self = NK_LOG_FOLLOWER (object);

  switch (prop_id)
    {
    case PROP_PATH: self->path = g_value_dup_string (value); break;
    case PROP_FORMAT: self->format = g_value_get_enum (value); break;
    case PROP_IDLE_TIMEOUT: nk_log_follower_set_idle_timeout (self, g_value_get_double (value)); break;
    case PROP_POLL_INTERVAL: nk_log_follower_set_poll_interval (self, g_value_get_uint (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_log_follower_class_init (NkLogFollowerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = nk_log_follower_dispose;
  object_class->finalize = nk_log_follower_finalize;
  object_class->get_property = nk_log_follower_get_property;
  object_class->set_property = nk_log_follower_set_property;

  /**
   * NkLogFollower:path:
   *
   * The log file, TensorBoard folder or llm.c output folder (with its main.log)
   * followed.
   */
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NkLogFollower:format:
   *
   * The engine whose log it is: as given, or %NK_LOG_FORMAT_AUTO until the first
   * line that is an engine's says which (notified then).
   */
  properties[PROP_FORMAT] =
    g_param_spec_enum ("format", NULL, NULL, NK_TYPE_LOG_FORMAT, NK_LOG_FORMAT_AUTO,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_EXPLICIT_NOTIFY
                       | G_PARAM_STATIC_STRINGS);
  /**
   * NkLogFollower:idle-timeout:
   *
   * Seconds without growth after which following ends
   * (%NK_LOG_FOLLOW_END_IDLE); 0, the default, never.
   */
  properties[PROP_IDLE_TIMEOUT] =
    g_param_spec_double ("idle-timeout", NULL, NULL, 0, 1e9, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkLogFollower:poll-interval:
   *
   * How often, in milliseconds, the path is looked at whether or not the file
   * system reported a change (10 to 60000; 250 by default). A step is emitted
   * within about one interval of its last line.
   */
  properties[PROP_POLL_INTERVAL] =
    g_param_spec_uint ("poll-interval", NULL, NULL, 10, 60000, 250,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkLogFollower:running:
   *
   * Whether it follows now: from nk_log_follower_start() until it ends.
   */
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkLogFollower:end-reason:
   *
   * Why following ended; %NK_LOG_FOLLOW_END_NONE before.
   */
  properties[PROP_END_REASON] =
    g_param_spec_enum ("end-reason", NULL, NULL, NK_TYPE_LOG_FOLLOW_END, NK_LOG_FOLLOW_END_NONE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkLogFollower:n-steps:
   *
   * The steps emitted so far.
   */
  properties[PROP_N_STEPS] =
    g_param_spec_uint ("n-steps", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NkLogFollower::step:
   * @self: the follower
   * @step: the step, complete: each step number once, in increasing order
   *
   * A step whose lines are complete (see the rules in nk-log-follow.h).
   */
  signals[SIGNAL_STEP] =
    g_signal_new ("step", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, NK_TYPE_IMPORT_STEP | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * NkLogFollower::notice:
   * @self: the follower
   * @sentence: what happened, one sentence to show a person
   *
   * Something the person should know: the file was truncated or rotated and is
   * read again from its start, an event file is corrupt, the path cannot be read.
   */
  signals[SIGNAL_NOTICE] =
    g_signal_new ("notice", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * NkLogFollower::ended:
   * @self: the follower
   * @reason: why (an #NkLogFollowEnd)
   *
   * Following ended; the last pending step was emitted before.
   */
  signals[SIGNAL_ENDED] =
    g_signal_new ("ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, NK_TYPE_LOG_FOLLOW_END);
}

static void
nk_log_follower_init (NkLogFollower *self)
{
  self->poll_interval = 250;
  self->sources = g_ptr_array_new_with_free_func (source_free);
  self->pending_memory = NAN;
}

/**
 * nk_log_follower_new:
 * @path: a log file, a TensorBoard folder or an llm.c output folder
 * @format: the engine that writes it, or %NK_LOG_FORMAT_AUTO
 *
 * A follower of @path; nothing is read before nk_log_follower_start().
 *
 * Returns: (transfer full): the follower
 */
NkLogFollower *
nk_log_follower_new (const char  *path,
                     NkLogFormat  format)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (format <= NK_LOG_FORMAT_TENSORBOARD, NULL);

  return g_object_new (NK_TYPE_LOG_FOLLOWER, "path", path, "format", format, NULL);
}

static gboolean
dir_sources (NkLogFollower  *self,
             GError        **error)
{
  g_autofree char *main_log = g_build_filename (self->path, "main.log", NULL);

  /* llm.c writes main.log into its -o folder (train_gpt2.cu, logger_init) */
  if (self->format == NK_LOG_FORMAT_LLMC
      || (self->format == NK_LOG_FORMAT_AUTO && g_file_test (main_log, G_FILE_TEST_EXISTS)))
    {
      self->format = NK_LOG_FORMAT_LLMC;
      g_ptr_array_add (self->sources, source_new (main_log, FALSE));
      return TRUE;
    }
  if (self->format != NK_LOG_FORMAT_AUTO && self->format != NK_LOG_FORMAT_TENSORBOARD)
    {
      g_set_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT,
                   _("Following a folder reads TensorBoard event files or llm.c’s main.log; "
                     "follow the %s console log in “%s” instead."),
                   nk_log_format_to_string (self->format), self->path);
      return FALSE;
    }
  self->format = NK_LOG_FORMAT_TENSORBOARD;
  self->folder = TRUE;
  return TRUE;
}

/**
 * nk_log_follower_start:
 * @self: a follower
 * @error: return location for a #GError (%NK_LOG_IMPORT_ERROR_IO: @path is missing
 *   or neither a regular file nor a folder; %NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT: a
 *   folder with a format that writes no folder)
 *
 * Starts following on the thread-default main context: what the path holds now is
 * read first, over as many turns of the main loop as it takes, then what is added.
 *
 * Returns: %TRUE if it follows now
 */
gboolean
nk_log_follower_start (NkLogFollower  *self,
                       GError        **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) local = NULL;
  GSource *poll;
  int fd;

  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), FALSE);
  g_return_val_if_fail (!self->running && self->end_reason == NK_LOG_FOLLOW_END_NONE, FALSE);

  if (g_file_test (self->path, G_FILE_TEST_IS_DIR))
    {
      if (!dir_sources (self, error))
        return FALSE;
    }
  else
    {
      /* a FIFO or a device is refused by name, as import refuses it */
      fd = nk_file_open_regular (self->path, G_MAXINT64, NULL, &local);
      if (fd < 0)
        {
          g_set_error_literal (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_IO, local->message);
          return FALSE;
        }
      close (fd);
      g_ptr_array_add (self->sources,
                       source_new (self->path, self->format == NK_LOG_FORMAT_TENSORBOARD
                                   || (self->format == NK_LOG_FORMAT_AUTO
                                       && name_is_tfevents (self->path))));
      if (((Source *) g_ptr_array_index (self->sources, 0))->tfevents)
        self->format = NK_LOG_FORMAT_TENSORBOARD;
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FORMAT]);
  file = g_file_new_for_path (self->path);
  self->monitor = self->folder ? g_file_monitor_directory (file, G_FILE_MONITOR_NONE, NULL, NULL)
                               : g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);
  if (self->monitor != NULL)
    g_signal_connect (self->monitor, "changed", G_CALLBACK (monitor_changed_cb), self);
  self->running = TRUE;
  self->last_growth = g_get_monotonic_time ();
  poll = g_timeout_source_new (self->poll_interval);
  g_source_set_callback (poll, poll_cb, self, NULL);
  g_source_set_static_name (poll, "NkLogFollower poll");
  self->context = g_main_context_ref_thread_default ();
  g_source_attach (poll, self->context);
  self->poll = poll;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  read_now (self);
  return TRUE;
}

/**
 * nk_log_follower_stop:
 * @self: a follower
 *
 * Ends following (%NK_LOG_FOLLOW_END_STOPPED) after emitting the pending step, as
 * `napkin-cli import --follow` does on SIGINT. Nothing happens if it has ended.
 */
void
nk_log_follower_stop (NkLogFollower *self)
{
  g_return_if_fail (NK_IS_LOG_FOLLOWER (self));

  follower_end (self, NK_LOG_FOLLOW_END_STOPPED);
}

/**
 * nk_log_follower_get_path:
 * @self: a follower
 *
 * Its #NkLogFollower:path.
 *
 * Returns: (transfer none): the path followed
 */
const char *
nk_log_follower_get_path (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), NULL);
  return self->path;
}

/**
 * nk_log_follower_get_format:
 * @self: a follower
 *
 * Its #NkLogFollower:format.
 *
 * Returns: the engine, or %NK_LOG_FORMAT_AUTO while no line said
 */
NkLogFormat
nk_log_follower_get_format (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), NK_LOG_FORMAT_AUTO);
  return self->format;
}

/**
 * nk_log_follower_get_idle_timeout:
 * @self: a follower
 *
 * Its #NkLogFollower:idle-timeout.
 *
 * Returns: seconds, 0 for never
 */
double
nk_log_follower_get_idle_timeout (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), 0);
  return self->idle_timeout;
}

/**
 * nk_log_follower_set_idle_timeout:
 * @self: a follower
 * @seconds: seconds without growth that end following, 0 for never
 *
 * Sets #NkLogFollower:idle-timeout; counted from the last growth (or the start).
 */
void
nk_log_follower_set_idle_timeout (NkLogFollower *self,
                                  double         seconds)
{
  g_return_if_fail (NK_IS_LOG_FOLLOWER (self));
  g_return_if_fail (seconds >= 0 && seconds <= 1e9);

  if (self->idle_timeout == seconds)
    return;
  self->idle_timeout = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IDLE_TIMEOUT]);
}

/**
 * nk_log_follower_get_poll_interval:
 * @self: a follower
 *
 * Its #NkLogFollower:poll-interval.
 *
 * Returns: milliseconds
 */
guint
nk_log_follower_get_poll_interval (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), 0);
  return self->poll_interval;
}

/**
 * nk_log_follower_set_poll_interval:
 * @self: a follower, not started
 * @milliseconds: 10 to 60000
 *
 * Sets #NkLogFollower:poll-interval, before nk_log_follower_start().
 */
void
nk_log_follower_set_poll_interval (NkLogFollower *self,
                                   guint          milliseconds)
{
  g_return_if_fail (NK_IS_LOG_FOLLOWER (self));
  g_return_if_fail (milliseconds >= 10 && milliseconds <= 60000);
  g_return_if_fail (!self->running);

  if (self->poll_interval == milliseconds)
    return;
  self->poll_interval = milliseconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POLL_INTERVAL]);
}

/**
 * nk_log_follower_get_running:
 * @self: a follower
 *
 * Its #NkLogFollower:running.
 *
 * Returns: whether it follows now
 */
gboolean
nk_log_follower_get_running (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), FALSE);
  return self->running;
}

/**
 * nk_log_follower_get_end_reason:
 * @self: a follower
 *
 * Its #NkLogFollower:end-reason.
 *
 * Returns: why it ended, %NK_LOG_FOLLOW_END_NONE before
 */
NkLogFollowEnd
nk_log_follower_get_end_reason (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), NK_LOG_FOLLOW_END_NONE);
  return self->end_reason;
}

/**
 * nk_log_follower_get_n_steps:
 * @self: a follower
 *
 * Its #NkLogFollower:n-steps.
 *
 * Returns: the steps emitted
 */
guint
nk_log_follower_get_n_steps (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), 0);
  return self->n_steps;
}

/**
 * nk_log_follower_get_skipped_lines:
 * @self: a follower
 *
 * As #NkImport's skipped_lines: every non-blank line (or record) read but not as a
 * step.
 *
 * Returns: the lines skipped
 */
guint
nk_log_follower_get_skipped_lines (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), 0);
  return self->skipped_lines;
}

/**
 * nk_log_follower_get_rejected_lines:
 * @self: a follower
 *
 * As #NkImport's rejected_lines: the format's lines whose values no run can have.
 *
 * Returns: the lines rejected
 */
guint
nk_log_follower_get_rejected_lines (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), 0);
  return self->rejected_lines;
}

/**
 * nk_log_follower_get_replaced_steps:
 * @self: a follower
 *
 * The steps logged again at or below the last one emitted (a restarted run, a file
 * read again after truncation or rotation), not emitted again.
 *
 * Returns: the steps not emitted again
 */
guint
nk_log_follower_get_replaced_steps (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), 0);
  return self->replaced_steps;
}

/**
 * nk_log_follower_get_first_rejected:
 * @self: a follower
 *
 * Which line was rejected first and why, as #NkImport's first_rejected.
 *
 * Returns: (transfer none) (nullable): the sentence, or %NULL
 */
const char *
nk_log_follower_get_first_rejected (NkLogFollower *self)
{
  g_return_val_if_fail (NK_IS_LOG_FOLLOWER (self), NULL);
  return self->first_rejected;
}

/**
 * nk_log_follow_end_to_string:
 * @reason: a reason
 *
 * The reason's name in `napkin-cli import --follow`'s done object.
 *
 * Returns: (transfer none): "none", "run-ended", "idle", "stopped" or "error"
 */
const char *
nk_log_follow_end_to_string (NkLogFollowEnd reason)
{
  static const char *const names[] = { "none", "run-ended", "idle", "stopped", "error" };

  g_return_val_if_fail (reason <= NK_LOG_FOLLOW_END_ERROR, NULL);
  return names[reason];
}
