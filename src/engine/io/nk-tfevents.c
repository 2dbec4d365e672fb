/* nk-tfevents.c: TensorBoard event files, scalars written and read
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The protobuf wire format is written and read by hand here rather than with
 * protobuf-c: we use nine fields of three messages (varint, fixed64, fixed32 and
 * length-delimited only), the reader must survive arbitrary bytes (fuzzed), and
 * skipping unknown fields is a loop of a few lines. A generated parser would add a build
 * dependency and a .proto for less code than it replaces. Field numbers checked against
 * tensorflow/tensorboard 70b76c922, tensorboard/compat/proto/: event.proto:17,20,27,31
 * (wall_time 1, step 2, file_version 3, summary 5), summary.proto:111,122,127,132
 * (tag 1, simple_value 2, tensor 8, value 1), tensor.proto:18,39,51,54 (dtype 1,
 * tensor_content 4, float_val 5, double_val 6), types.proto:20-21 (DT_FLOAT 1, DT_DOUBLE 2).
 */
#include "config.h"

#include "nk-tfevents.h"
#include "nk-file-util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

/**
 * nk_tfevents_error_quark:
 *
 * The domain of %NK_TFEVENTS_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-tfevents-error-quark, nk_tfevents_error)

/* -- CRC-32C ------------------------------------------------------------------- */

static guint32 crc_table[256];

static gpointer
crc_table_init (gpointer data)
{
  for (guint32 i = 0; i < 256; i++)
    {
      guint32 c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      crc_table[i] = c;
    }
  return NULL;
}

/**
 * nk_crc32c:
 * @crc: the CRC so far (0 to start)
 * @data: (array length=len) (element-type guint8): the bytes
 * @len: their count
 *
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum TFRecord frames
 * carry.
 *
 * Returns: the CRC of the bytes so far
 */
guint32
nk_crc32c (guint32     crc,
           const void *data,
           gsize       len)
{
  static GOnce once = G_ONCE_INIT;
  const guint8 *p = data;

  g_once (&once, crc_table_init, NULL);
  crc = ~crc;
  for (gsize i = 0; i < len; i++)
    crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/**
 * nk_crc32c_mask:
 * @crc: a CRC-32C
 *
 * TensorFlow's mask of a CRC: rotated right by 15 bits plus 0xa282ead8, as the records
 * store it.
 *
 * Returns: the masked CRC
 */
guint32
nk_crc32c_mask (guint32 crc)
{
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/* -- protobuf wire format, writing --------------------------------------------- */

static void
put_varint (GByteArray *b,
            guint64     v)
{
  while (v >= 0x80)
    {
      guint8 c = (guint8) (v | 0x80);
      g_byte_array_append (b, &c, 1);
      v >>= 7;
    }
  guint8 c = (guint8) v;
  g_byte_array_append (b, &c, 1);
}

static void
put_key (GByteArray *b,
         guint       field,
         guint       wire)
{
  put_varint (b, ((guint64) field << 3) | wire);
}

static void
put_bytes (GByteArray   *b,
           guint         field,
           const guint8 *data,
           gsize         len)
{
  put_key (b, field, 2);
  put_varint (b, len);
  g_byte_array_append (b, data, len);
}

static void
put_double (GByteArray *b,
            guint       field,
            double      v)
{
  guint64 u;
  memcpy (&u, &v, 8);
  u = GUINT64_TO_LE (u);
  put_key (b, field, 1);
  g_byte_array_append (b, (const guint8 *) &u, 8);
}

static void
put_float (GByteArray *b,
           guint       field,
           float       v)
{
  guint32 u;
  memcpy (&u, &v, 4);
  u = GUINT32_TO_LE (u);
  put_key (b, field, 5);
  g_byte_array_append (b, (const guint8 *) &u, 4);
}

/* -- writer -------------------------------------------------------------------- */

struct _NkEventWriter {
  char *path;
  FILE *file;
};

static gboolean
write_record (NkEventWriter *w,
              GByteArray    *data,
              GError       **error)
{
  guint64 len = GUINT64_TO_LE ((guint64) data->len);
  guint32 len_crc = GUINT32_TO_LE (nk_crc32c_mask (nk_crc32c (0, &len, 8)));
  guint32 data_crc = GUINT32_TO_LE (nk_crc32c_mask (nk_crc32c (0, data->data, data->len)));

  if (fwrite (&len, 8, 1, w->file) != 1
      || fwrite (&len_crc, 4, 1, w->file) != 1
      || (data->len > 0 && fwrite (data->data, data->len, 1, w->file) != 1)
      || fwrite (&data_crc, 4, 1, w->file) != 1)
    {
      g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO,
                   _("Cannot write to “%s”: %s"), w->path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_event_writer_new: (skip)
 * @dir: the folder (created, with parents, if missing)
 * @error: return location for a #GError (%NK_TFEVENTS_ERROR_IO)
 *
 * Creates DIR/events.out.tfevents.TIME.HOST.PID and writes its file_version record.
 * Not for bindings (see #NkEventWriter).
 *
 * Returns: (transfer full) (nullable): the writer
 */
NkEventWriter *
nk_event_writer_new (const char *dir,
                     GError    **error)
{
  g_autoptr(NkEventWriter) w = g_new0 (NkEventWriter, 1);
  g_autoptr(GByteArray) b = g_byte_array_new ();
  static const char version[] = "brain.Event:2";
  double now = g_get_real_time () / 1e6;
  g_autofree char *name = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO,
                   _("Cannot create the folder “%s”: %s"), dir, g_strerror (errno));
      return NULL;
    }
  name = g_strdup_printf ("events.out.tfevents.%" G_GINT64_FORMAT ".%s.%d",
                          (gint64) now, g_get_host_name (), (int) getpid ());
  w->path = g_build_filename (dir, name, NULL);
  w->file = g_fopen (w->path, "wb");
  if (w->file == NULL)
    {
      g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO,
                   _("Cannot create “%s”: %s"), w->path, g_strerror (errno));
      return NULL;
    }
  put_double (b, 1, now);
  put_bytes (b, 3, (const guint8 *) version, sizeof version - 1);
  if (!write_record (w, b, error) || !nk_event_writer_flush (w, error))
    return NULL;
  return g_steal_pointer (&w);
}

/**
 * nk_event_writer_get_path: (skip)
 * @writer: a writer
 *
 * The event file's full path.
 *
 * Returns: (transfer none): the path
 */
const char *
nk_event_writer_get_path (NkEventWriter *writer)
{
  return writer->path;
}

/**
 * nk_event_writer_add_scalar: (skip)
 * @writer: a writer
 * @tag: the scalar's name ("train/loss")
 * @step: the step (a step of 0 is left out of the record: protobuf's default)
 * @wall_time: seconds since the epoch; a value < 0 for now
 * @value: the scalar
 * @error: return location for a #GError (%NK_TFEVENTS_ERROR_IO)
 *
 * Appends one Event {wall_time, step, summary {value {tag, simple_value}}} record.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_event_writer_add_scalar (NkEventWriter *writer,
                            const char    *tag,
                            gint64         step,
                            double         wall_time,
                            float          value,
                            GError       **error)
{
  g_autoptr(GByteArray) v = g_byte_array_new ();
  g_autoptr(GByteArray) s = g_byte_array_new ();
  g_autoptr(GByteArray) e = g_byte_array_new ();

  g_return_val_if_fail (writer != NULL && tag != NULL, FALSE);

  if (wall_time < 0)
    wall_time = g_get_real_time () / 1e6;
  put_bytes (v, 1, (const guint8 *) tag, strlen (tag));
  put_float (v, 2, value);
  put_bytes (s, 1, v->data, v->len);
  put_double (e, 1, wall_time);
  if (step != 0)
    {
      put_key (e, 2, 0);
      put_varint (e, (guint64) step);
    }
  put_bytes (e, 5, s->data, s->len);
  return write_record (writer, e, error);
}

/**
 * nk_event_writer_flush: (skip)
 * @writer: a writer
 * @error: return location for a #GError (%NK_TFEVENTS_ERROR_IO)
 *
 * Hands the records written so far to the system.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_event_writer_flush (NkEventWriter *writer,
                       GError       **error)
{
  if (fflush (writer->file) != 0)
    {
      g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO,
                   _("Cannot write to “%s”: %s"), writer->path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_event_writer_close: (skip)
 * @writer: (nullable) (transfer full): a writer
 * @error: return location for a #GError (%NK_TFEVENTS_ERROR_IO)
 *
 * Flushes and closes the file, then frees @writer.
 *
 * Returns: %TRUE if every record reached the file
 */
gboolean
nk_event_writer_close (NkEventWriter *writer,
                       GError       **error)
{
  gboolean ok = TRUE;

  if (writer == NULL)
    return TRUE;
  if (writer->file != NULL)
    {
      ok = nk_event_writer_flush (writer, error);
      if (fclose (writer->file) != 0 && ok)
        {
          g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO,
                       _("Cannot close “%s”: %s"), writer->path, g_strerror (errno));
          ok = FALSE;
        }
      writer->file = NULL;
    }
  nk_event_writer_free (writer);
  return ok;
}

/**
 * nk_event_writer_free: (skip)
 * @writer: (nullable) (transfer full): a writer
 *
 * Closes the file without reporting errors and frees @writer.
 */
void
nk_event_writer_free (NkEventWriter *writer)
{
  if (writer == NULL)
    return;
  if (writer->file != NULL)
    fclose (writer->file);
  g_free (writer->path);
  g_free (writer);
}

/* -- protobuf wire format, reading --------------------------------------------- */

typedef struct {
  const guint8 *p, *end;
} Cursor;

typedef struct {
  guint field, wire;
  guint64 u;                /* varint, fixed64, fixed32 */
  const guint8 *data;       /* length-delimited */
  gsize len;
} Field;

static gboolean
get_varint (Cursor  *c,
            guint64 *out)
{
  guint64 v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      if (c->p >= c->end)
        return FALSE;
      guint8 b = *c->p++;
      v |= (guint64) (b & 0x7f) << shift;
      if (!(b & 0x80))
        {
          *out = v;
          return TRUE;
        }
    }
  return FALSE;
}

/* Reads the next field; FALSE at the end or on malformed bytes (*bad set then). */
static gboolean
next_field (Cursor   *c,
            Field    *f,
            gboolean *bad)
{
  guint64 key;

  if (c->p >= c->end)
    return FALSE;
  if (!get_varint (c, &key) || (key >> 3) == 0 || (key >> 3) > G_MAXUINT)
    goto malformed;
  f->field = (guint) (key >> 3);
  f->wire = key & 7;
  f->data = NULL;
  f->len = 0;
  switch (f->wire)
    {
    case 0:
      if (!get_varint (c, &f->u))
        goto malformed;
      return TRUE;
    case 1:
    case 5:
      {
        gsize n = f->wire == 1 ? 8 : 4;
        guint64 u = 0;
        if ((gsize) (c->end - c->p) < n)
          goto malformed;
        for (gsize i = 0; i < n; i++)
          u |= (guint64) c->p[i] << (8 * i);
        f->u = u;
        c->p += n;
        return TRUE;
      }
    case 2:
      if (!get_varint (c, &f->u) || f->u > (guint64) (c->end - c->p))
        goto malformed;
      f->data = c->p;
      f->len = (gsize) f->u;
      c->p += f->len;
      return TRUE;
    default:
      break;
    }
malformed:
  *bad = TRUE;
  return FALSE;
}

static double
u64_as_double (guint64 u)
{
  double d;
  memcpy (&d, &u, 8);
  return d;
}

static float
u32_as_float (guint32 u)
{
  float x;
  memcpy (&x, &u, 4);
  return x;
}

/* TensorProto (tensor.proto): dtype = 1 (DT_FLOAT 1, DT_DOUBLE 2), tensor_content = 4,
 * float_val = 5 (packed or not), double_val = 6. The first element is the scalar. */
static gboolean
read_tensor (const guint8 *data,
             gsize         len,
             double       *out,
             gboolean     *bad)
{
  Cursor c = { data, data + len };
  Field f;
  guint64 dtype = 0;
  gboolean have = FALSE;
  const guint8 *content = NULL;
  gsize content_len = 0;

  while (next_field (&c, &f, bad))
    {
      if (f.field == 1 && f.wire == 0)
        dtype = f.u;
      else if (f.field == 4 && f.wire == 2)
        content = f.data, content_len = f.len;
      else if (!have && f.field == 5 && f.wire == 5)
        *out = u32_as_float ((guint32) f.u), have = TRUE;
      else if (!have && f.field == 5 && f.wire == 2 && f.len >= 4)
        {
          guint32 u;

          /* packed bytes sit at any offset: copy, never load through a cast */
          memcpy (&u, f.data, 4);
          *out = u32_as_float (GUINT32_FROM_LE (u)), have = TRUE;
        }
      else if (!have && f.field == 6 && f.wire == 1)
        *out = u64_as_double (f.u), have = TRUE;
      else if (!have && f.field == 6 && f.wire == 2 && f.len >= 8)
        {
          guint64 u;
          memcpy (&u, f.data, 8);
          *out = u64_as_double (GUINT64_FROM_LE (u)), have = TRUE;
        }
    }
  if (*bad)
    return FALSE;
  if (have)
    return TRUE;
  if (content != NULL && dtype == 1 && content_len >= 4)
    {
      guint32 u;
      memcpy (&u, content, 4);
      *out = u32_as_float (GUINT32_FROM_LE (u));
      return TRUE;
    }
  if (content != NULL && dtype == 2 && content_len >= 8)
    {
      guint64 u;
      memcpy (&u, content, 8);
      *out = u64_as_double (GUINT64_FROM_LE (u));
      return TRUE;
    }
  return FALSE;
}

static void
add_point (NkScalarLog *log,
           const char  *tag,
           gsize        tag_len,
           gint64       step,
           double       wall_time,
           double       value)
{
  g_autofree char *key = g_strndup (tag, tag_len);
  GArray *a = g_hash_table_lookup (log->tags, key);
  NkScalarPoint pt = { step, wall_time, value };

  if (a == NULL)
    {
      a = g_array_new (FALSE, FALSE, sizeof (NkScalarPoint));
      g_hash_table_insert (log->tags, g_steal_pointer (&key), a);
    }
  g_array_append_val (a, pt);
}

/* Summary.Value: tag = 1, simple_value = 2, tensor = 8. */
static gboolean
read_value (NkScalarLog  *log,
            const guint8 *data,
            gsize         len,
            gint64        step,
            double        wall_time)
{
  Cursor c = { data, data + len };
  Field f;
  gboolean bad = FALSE, have = FALSE;
  const guint8 *tag = NULL;
  gsize tag_len = 0;
  double value = 0;

  while (next_field (&c, &f, &bad))
    {
      if (f.field == 1 && f.wire == 2)
        tag = f.data, tag_len = f.len;
      else if (f.field == 2 && f.wire == 5)
        value = u32_as_float ((guint32) f.u), have = TRUE;
      else if (f.field == 8 && f.wire == 2 && !have)
        have = read_tensor (f.data, f.len, &value, &bad);
    }
  if (bad)
    return FALSE;
  if (have && tag != NULL && g_utf8_validate ((const char *) tag, tag_len, NULL)
      && memchr (tag, 0, tag_len) == NULL)
    add_point (log, (const char *) tag, tag_len, step, wall_time, value);
  return TRUE;
}

/* Event: wall_time = 1, step = 2, summary = 5 (Summary: value = 1). FALSE if malformed. */
static gboolean
read_event (NkScalarLog  *log,
            const guint8 *data,
            gsize         len)
{
  Cursor c = { data, data + len };
  Field f;
  gboolean bad = FALSE;
  double wall_time = 0;
  gint64 step = 0;
  const guint8 *summary = NULL;
  gsize summary_len = 0;

  while (next_field (&c, &f, &bad))
    {
      if (f.field == 1 && f.wire == 1)
        wall_time = u64_as_double (f.u);
      else if (f.field == 2 && f.wire == 0)
        step = (gint64) f.u;
      else if (f.field == 5 && f.wire == 2)
        summary = f.data, summary_len = f.len;
    }
  if (bad)
    return FALSE;
  if (summary == NULL)
    return TRUE;
  c.p = summary;
  c.end = summary + summary_len;
  while (next_field (&c, &f, &bad))
    if (f.field == 1 && f.wire == 2 && !read_value (log, f.data, f.len, step, wall_time))
      return FALSE;
  return !bad;
}

/**
 * nk_scalar_log_add_buffer:
 * @log: a log (which may hold other files)
 * @data: (array length=len): one event file's bytes
 * @len: their count
 *
 * Reads the scalars of an event file already in memory into @log. Corrupt or
 * truncated records are skipped and counted; a corrupt length ends the file (its
 * framing is lost).
 */
void
nk_scalar_log_add_buffer (NkScalarLog  *log,
                          const guint8 *data,
                          gsize         len)
{
  gsize off = 0;

  log->n_files++;
  while (off < len)
    {
      guint64 n;
      guint32 len_crc, data_crc;

      if (len - off < 12)
        {
          log->n_skipped++;         /* a torn header at the end */
          return;
        }
      memcpy (&n, data + off, 8);
      memcpy (&len_crc, data + off + 8, 4);
      n = GUINT64_FROM_LE (n);
      if (nk_crc32c_mask (nk_crc32c (0, data + off, 8)) != GUINT32_FROM_LE (len_crc))
        {
          log->n_skipped++;         /* the framing is lost: nothing after it can be trusted */
          return;
        }
      off += 12;
      if (n > len - off || len - off - n < 4)
        {
          log->n_skipped++;         /* a record cut short */
          return;
        }
      memcpy (&data_crc, data + off + n, 4);
      if (nk_crc32c_mask (nk_crc32c (0, data + off, n)) != GUINT32_FROM_LE (data_crc)
          || !read_event (log, data + off, n))
        log->n_skipped++;
      else
        log->n_records++;
      off += n + 4;
    }
}

G_DEFINE_BOXED_TYPE (NkScalarLog, nk_scalar_log, nk_scalar_log_copy, nk_scalar_log_free)

/**
 * nk_scalar_log_new:
 *
 * An empty log, to fill with nk_scalar_log_add_buffer().
 *
 * Returns: (transfer full): the log
 */
NkScalarLog *
nk_scalar_log_new (void)
{
  NkScalarLog *log = g_new0 (NkScalarLog, 1);

  log->tags = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) g_array_unref);
  return log;
}

/**
 * nk_scalar_log_copy:
 * @log: a log
 *
 * Copies the log: every tag's points are duplicated, so the copy and @log change
 * independently.
 *
 * Returns: (transfer full): the copy; free it with nk_scalar_log_free()
 */
NkScalarLog *
nk_scalar_log_copy (NkScalarLog *log)
{
  NkScalarLog *copy;
  GHashTableIter iter;
  gpointer tag, points;

  g_return_val_if_fail (log != NULL, NULL);

  copy = nk_scalar_log_new ();
  copy->n_files = log->n_files;
  copy->n_records = log->n_records;
  copy->n_skipped = log->n_skipped;
  g_hash_table_iter_init (&iter, log->tags);
  while (g_hash_table_iter_next (&iter, &tag, &points))
    g_hash_table_insert (copy->tags, g_strdup (tag), g_array_copy (points));
  return copy;
}

static gboolean
read_file_into (NkScalarLog *log,
                const char  *path,
                GError     **error)
{
  g_autoptr(GMappedFile) map = NULL;
  g_autoptr(GError) local = NULL;
  goffset size = 0;
  int fd;

  /* a FIFO or a device is refused, never opened blocking nor read forever */
  fd = nk_file_open_regular (path, NK_TFEVENTS_MAX_BYTES, &size, &local);
  if (fd < 0)
    {
      g_set_error_literal (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO, local->message);
      return FALSE;
    }
  /* empty files cannot be mapped on every system */
  if (size > 0)
    map = g_mapped_file_new_from_fd (fd, FALSE, NULL);
  close (fd);
  if (size > 0 && map == NULL)
    {
      g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO,
                   _("Cannot read “%s”."), path);
      return FALSE;
    }
  if (map != NULL)
    nk_scalar_log_add_buffer (log, (const guint8 *) g_mapped_file_get_contents (map),
                              g_mapped_file_get_length (map));
  return TRUE;
}

static void
collect_files (const char *dir,
               GPtrArray  *out,
               int         depth)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL || depth > 16)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK))
            collect_files (path, out, depth + 1);
        }
      else if (strstr (name, "tfevents") != NULL)
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

static int
compare_points (gconstpointer a,
                gconstpointer b)
{
  const NkScalarPoint *x = a, *y = b;
  return (x->step > y->step) - (x->step < y->step);
}

/**
 * nk_scalar_log_read:
 * @path: an event file, or a folder
 * @error: return location for a #GError (%NK_TFEVENTS_ERROR_IO, or
 *   %NK_TFEVENTS_ERROR_NOT_FOUND for a folder without event files)
 *
 * Reads one event file (@path a file) or every file whose name contains "tfevents"
 * under @path (a folder, recursively: per-rank subfolders), as
 * nk_scalar_log_add_buffer() each.
 *
 * Returns: (transfer full) (nullable): the log
 */
NkScalarLog *
nk_scalar_log_read (const char *path,
                    GError    **error)
{
  g_autoptr(NkScalarLog) log = nk_scalar_log_new ();
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter it;
  gpointer value;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      collect_files (path, files, 0);
      if (files->len == 0)
        {
          g_set_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_NOT_FOUND,
                       _("The folder “%s” holds no TensorBoard event file (no file name contains “tfevents”)."),
                       path);
          return NULL;
        }
      g_ptr_array_sort (files, (GCompareFunc) g_strcmp0);
    }
  else
    g_ptr_array_add (files, g_strdup (path));

  for (guint i = 0; i < files->len; i++)
    if (!read_file_into (log, g_ptr_array_index (files, i), error))
      return NULL;

  g_hash_table_iter_init (&it, log->tags);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      GArray *a = value;
      /* g_array_sort is not stable; merge sort by step keeps file order within a step */
      g_qsort_with_data (a->data, a->len, sizeof (NkScalarPoint),
                         (GCompareDataFunc) compare_points, NULL);
    }
  return g_steal_pointer (&log);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/**
 * nk_scalar_log_get_tags:
 * @log: a log
 * @n_tags: (out) (optional): the number of tags
 *
 * The tags the log holds, sorted by name.
 *
 * Returns: (transfer container) (array length=n_tags): the tags; free the array
 *   only (g_free()), not the strings
 */
const char **
nk_scalar_log_get_tags (NkScalarLog *log,
                        guint       *n_tags)
{
  guint n = 0;
  const char **tags = (const char **) g_hash_table_get_keys_as_array (log->tags, &n);

  qsort (tags, n, sizeof (char *), compare_strings);
  if (n_tags != NULL)
    *n_tags = n;
  return tags;
}

/**
 * nk_scalar_log_get:
 * @log: a log
 * @tag: a tag
 *
 * The points of one tag.
 *
 * Returns: (transfer none) (nullable) (element-type NkScalarPoint): the points
 *   sorted by step, %NULL when @tag is absent
 */
GArray *
nk_scalar_log_get (NkScalarLog *log,
                   const char  *tag)
{
  return g_hash_table_lookup (log->tags, tag);
}

/**
 * nk_scalar_log_free:
 * @log: (nullable) (transfer full): a log
 *
 * Frees the log and its points.
 */
void
nk_scalar_log_free (NkScalarLog *log)
{
  if (log == NULL)
    return;
  g_hash_table_unref (log->tags);
  g_free (log);
}
