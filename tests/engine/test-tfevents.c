/* test-tfevents.c: TensorBoard event files checked by a decoder written here
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The oracle shares no code with nk-tfevents.c: CRC-32C is a bitwise loop over the
 * reflected Castagnoli polynomial, and the protobuf wire format is decoded (and, for
 * the reader tests, encoded) here by hand from event.proto / summary.proto / tensor.proto.
 * TensorBoard's own Python is not installed on this machine, so it is not used.
 */
#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#include "nk-tfevents.h"

/* AddressSanitizer maps terabytes of shadow: no address-space limit under it */
#if defined (__has_feature)
#define NK_HAS_ASAN __has_feature (address_sanitizer)
#else
#define NK_HAS_ASAN 0
#endif

static guint32
ref_crc32c (const guint8 *p,
            gsize         n)
{
  guint32 crc = 0xffffffffu;
  for (gsize i = 0; i < n; i++)
    {
      crc ^= p[i];
      for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
  return crc ^ 0xffffffffu;
}

static guint32
ref_mask (guint32 crc)
{
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static void
test_crc_vectors (void)
{
  guint8 buf[32];

  g_assert_cmphex (nk_crc32c (0, "123456789", 9), ==, 0xE3069283u);
  g_assert_cmphex (ref_crc32c ((const guint8 *) "123456789", 9), ==, 0xE3069283u);
  memset (buf, 0, 32);
  g_assert_cmphex (nk_crc32c (0, buf, 32), ==, 0x8A9136AAu);
  memset (buf, 0xff, 32);
  g_assert_cmphex (nk_crc32c (0, buf, 32), ==, 0x62A8AB43u);
  for (int i = 0; i < 32; i++)
    buf[i] = (guint8) i;                /* RFC 3720 B.4: incrementing bytes */
  g_assert_cmphex (nk_crc32c (0, buf, 32), ==, 0x46DD794Eu);
  /* incremental use equals one pass */
  g_assert_cmphex (nk_crc32c (nk_crc32c (0, buf, 10), buf + 10, 22), ==, 0x46DD794Eu);
  g_assert_cmphex (nk_crc32c_mask (0x12345678u), ==, ref_mask (0x12345678u));
}

/* -- the independent decoder ------------------------------------------------------ */

static guint64
dec_varint (const guint8 **p,
            const guint8  *end)
{
  guint64 v = 0;
  int shift = 0;
  while (TRUE)
    {
      g_assert_true (*p < end);
      guint8 b = *(*p)++;
      v |= (guint64) (b & 0x7f) << shift;
      if (!(b & 0x80))
        return v;
      shift += 7;
      g_assert_cmpint (shift, <, 64);
    }
}

typedef struct {
  double wall_time;
  gint64 step;
  char *file_version;
  char *tag;
  float simple_value;
  gboolean has_value;
} RefEvent;

/* Event {1 wall_time double, 2 step int64, 3 file_version string, 5 summary}
 * Summary {1 value} Value {1 tag, 2 simple_value float} */
static void
dec_event (const guint8 *p,
           const guint8 *end,
           RefEvent     *ev,
           int           depth)
{
  while (p < end)
    {
      guint64 key = dec_varint (&p, end);
      guint field = key >> 3, wire = key & 7;
      if (wire == 1)
        {
          g_assert_cmpint (field, ==, 1);
          g_assert_cmpint (depth, ==, 0);
          memcpy (&ev->wall_time, p, 8);
          p += 8;
        }
      else if (wire == 5)
        {
          g_assert_cmpint (depth, ==, 2);
          g_assert_cmpint (field, ==, 2);
          memcpy (&ev->simple_value, p, 4);
          ev->has_value = TRUE;
          p += 4;
        }
      else if (wire == 0)
        {
          g_assert_cmpint (field, ==, 2);
          ev->step = (gint64) dec_varint (&p, end);
        }
      else
        {
          g_assert_cmpint (wire, ==, 2);
          guint64 n = dec_varint (&p, end);
          g_assert_cmpuint (n, <=, (guint64) (end - p));
          if (depth == 0 && field == 3)
            ev->file_version = g_strndup ((const char *) p, n);
          else if (depth == 0 && field == 5)
            dec_event (p, p + n, ev, 1);
          else if (depth == 1 && field == 1)
            dec_event (p, p + n, ev, 2);
          else if (depth == 2 && field == 1)
            ev->tag = g_strndup ((const char *) p, n);
          else
            g_assert_not_reached ();
          p += n;
        }
    }
}

/* Splits a file into records, checking both masked CRCs with the bitwise CRC. */
static GArray *
dec_file (const guint8 *data,
          gsize         len)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (RefEvent));
  gsize off = 0;

  while (off < len)
    {
      guint64 n;
      guint32 c1, c2;
      RefEvent ev = { 0 };

      g_assert_cmpuint (len - off, >=, 16);
      memcpy (&n, data + off, 8);
      memcpy (&c1, data + off + 8, 4);
      g_assert_cmphex (c1, ==, ref_mask (ref_crc32c (data + off, 8)));
      g_assert_cmpuint (len - off - 16, >=, n);
      memcpy (&c2, data + off + 12 + n, 4);
      g_assert_cmphex (c2, ==, ref_mask (ref_crc32c (data + off + 12, n)));
      dec_event (data + off + 12, data + off + 12 + n, &ev, 0);
      g_array_append_val (events, ev);
      off += 16 + n;
    }
  return events;
}

static void
test_writer_decoded_independently (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tfevents-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "run", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *path = NULL;
  g_autofree char *base = NULL;
  gsize len = 0;
  NkEventWriter *w = nk_event_writer_new (sub, &error);
  GArray *events;

  g_assert_no_error (error);
  path = g_strdup (nk_event_writer_get_path (w));
  base = g_path_get_basename (path);
  g_assert_true (g_str_has_prefix (base, "events.out.tfevents."));
  g_assert_true (nk_event_writer_add_scalar (w, "loss", 0, 1700000000.5, 4.25f, &error));
  g_assert_true (nk_event_writer_add_scalar (w, "loss", 1, 1700000001.25, 3.5f, &error));
  g_assert_true (nk_event_writer_add_scalar (w, "perf/mfu", 300000000000LL, 1700000002.0, 0.375f, &error));
  g_assert_true (nk_event_writer_close (w, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  events = dec_file ((const guint8 *) contents, len);
  g_assert_cmpuint (events->len, ==, 4);
  g_assert_cmpstr (g_array_index (events, RefEvent, 0).file_version, ==, "brain.Event:2");
  g_assert_cmpstr (g_array_index (events, RefEvent, 1).tag, ==, "loss");
  g_assert_cmpfloat (g_array_index (events, RefEvent, 1).simple_value, ==, 4.25f);
  g_assert_cmpint (g_array_index (events, RefEvent, 1).step, ==, 0);
  g_assert_cmpfloat (g_array_index (events, RefEvent, 1).wall_time, ==, 1700000000.5);
  g_assert_cmpint (g_array_index (events, RefEvent, 2).step, ==, 1);
  g_assert_cmpfloat (g_array_index (events, RefEvent, 2).simple_value, ==, 3.5f);
  g_assert_cmpstr (g_array_index (events, RefEvent, 3).tag, ==, "perf/mfu");
  g_assert_cmpint (g_array_index (events, RefEvent, 3).step, ==, 300000000000LL);
  g_assert_cmpfloat (g_array_index (events, RefEvent, 3).simple_value, ==, 0.375f);
  for (guint i = 0; i < events->len; i++)
    {
      g_free (g_array_index (events, RefEvent, i).file_version);
      g_free (g_array_index (events, RefEvent, i).tag);
    }
  g_array_unref (events);

  g_remove (path);
  g_rmdir (sub);
  g_rmdir (dir);
}

/* -- an independent encoder, for the reader ----------------------------------------- */

static void
enc_varint (GByteArray *b,
            guint64     v)
{
  do
    {
      guint8 c = (v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
      g_byte_array_append (b, &c, 1);
      v >>= 7;
    }
  while (v != 0);
}

static void
enc_lenfield (GByteArray *b,
              guint       field,
              GByteArray *inner)
{
  enc_varint (b, (field << 3) | 2);
  enc_varint (b, inner->len);
  g_byte_array_append (b, inner->data, inner->len);
}

static void
enc_record (GByteArray *file,
            GByteArray *data)
{
  guint64 n = data->len;
  guint32 c1 = ref_mask (ref_crc32c ((const guint8 *) &n, 8));
  guint32 c2 = ref_mask (ref_crc32c (data->data, data->len));
  g_byte_array_append (file, (const guint8 *) &n, 8);
  g_byte_array_append (file, (const guint8 *) &c1, 4);
  g_byte_array_append (file, data->data, data->len);
  g_byte_array_append (file, (const guint8 *) &c2, 4);
}

/* kind 0: simple_value; 1: tensor float_val (packed); 2: tensor double_val;
 * 3: tensor_content DT_FLOAT; 4: tensor_content DT_DOUBLE */
static void
enc_scalar_event (GByteArray *file,
                  const char *tag,
                  gint64      step,
                  double      value,
                  int         kind)
{
  g_autoptr(GByteArray) ev = g_byte_array_new ();
  g_autoptr(GByteArray) sum = g_byte_array_new ();
  g_autoptr(GByteArray) val = g_byte_array_new ();
  g_autoptr(GByteArray) ten = g_byte_array_new ();
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  double wall = 1700000000.0 + step;
  float f = (float) value;

  enc_varint (val, (1 << 3) | 2);
  enc_varint (val, strlen (tag));
  g_byte_array_append (val, (const guint8 *) tag, strlen (tag));
  if (kind == 0)
    {
      enc_varint (val, (2 << 3) | 5);
      g_byte_array_append (val, (const guint8 *) &f, 4);
    }
  else
    {
      enc_varint (ten, (1 << 3) | 0);
      enc_varint (ten, (kind == 2 || kind == 4) ? 2 : 1);
      if (kind == 1 || kind == 3)
        g_byte_array_append (packed, (const guint8 *) &f, 4);
      else
        g_byte_array_append (packed, (const guint8 *) &value, 8);
      enc_lenfield (ten, kind == 1 ? 5 : kind == 2 ? 6 : 4, packed);
      enc_lenfield (val, 8, ten);
    }
  enc_lenfield (sum, 1, val);
  enc_varint (ev, (1 << 3) | 1);
  g_byte_array_append (ev, (const guint8 *) &wall, 8);
  enc_varint (ev, (2 << 3) | 0);
  enc_varint (ev, (guint64) step);
  enc_lenfield (ev, 5, sum);
  enc_record (file, ev);
}

static void
write_bytes (const char *path,
             GByteArray *b)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len, NULL));
}

static void
test_reader_two_ranks_tensor_values (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tfevents-XXXXXX", NULL);
  g_autofree char *p0 = g_build_filename (dir, "rank0", "events.out.tfevents.1.host.1", NULL);
  g_autofree char *p1 = g_build_filename (dir, "rank1", "events.out.tfevents.1.host.2", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);
  g_autoptr(GByteArray) f0 = g_byte_array_new ();
  g_autoptr(GByteArray) f1 = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NkScalarLog) log = NULL;
  g_autofree const char **tags = NULL;
  guint n_tags = 0;
  GArray *a;

  for (int s = 0; s < 5; s++)
    enc_scalar_event (f0, "loss", s, 5.0 - s, s % 5);
  for (int s = 0; s < 3; s++)
    enc_scalar_event (f1, "rank1/mfu", s, 0.25 + s / 8.0, 2);
  write_bytes (p0, f0);
  write_bytes (p1, f1);
  g_assert_true (g_file_set_contents (other, "not an event file", -1, NULL));

  log = nk_scalar_log_read (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->n_files, ==, 2);
  g_assert_cmpuint (log->n_records, ==, 8);
  g_assert_cmpuint (log->n_skipped, ==, 0);
  tags = nk_scalar_log_get_tags (log, &n_tags);
  g_assert_cmpuint (n_tags, ==, 2);
  g_assert_cmpstr (tags[0], ==, "loss");
  g_assert_cmpstr (tags[1], ==, "rank1/mfu");
  a = nk_scalar_log_get (log, "loss");
  g_assert_cmpuint (a->len, ==, 5);
  for (int s = 0; s < 5; s++)
    {
      g_assert_cmpint (g_array_index (a, NkScalarPoint, s).step, ==, s);
      g_assert_cmpfloat (g_array_index (a, NkScalarPoint, s).value, ==, 5.0 - s);
      g_assert_cmpfloat (g_array_index (a, NkScalarPoint, s).wall_time, ==, 1700000000.0 + s);
    }
  a = nk_scalar_log_get (log, "rank1/mfu");
  g_assert_cmpfloat (g_array_index (a, NkScalarPoint, 2).value, ==, 0.5);

  /* The boxed copy (what a binding gets) holds the same points once the log is gone. */
  {
    NkScalarLog *copy = g_boxed_copy (NK_TYPE_SCALAR_LOG, log);

    g_clear_pointer (&log, nk_scalar_log_free);
    g_assert_cmpuint (copy->n_files, ==, 2);
    g_assert_cmpuint (copy->n_records, ==, 8);
    g_assert_cmpuint (g_hash_table_size (copy->tags), ==, 2);
    a = nk_scalar_log_get (copy, "loss");
    g_assert_cmpuint (a->len, ==, 5);
    for (int s = 0; s < 5; s++)
      {
        g_assert_cmpint (g_array_index (a, NkScalarPoint, s).step, ==, s);
        g_assert_cmpfloat (g_array_index (a, NkScalarPoint, s).value, ==, 5.0 - s);
      }
    a = nk_scalar_log_get (copy, "rank1/mfu");
    g_assert_cmpfloat (g_array_index (a, NkScalarPoint, 2).value, ==, 0.5);
    nk_scalar_log_free (copy);
  }

  g_remove (p0);
  g_remove (p1);
  g_remove (other);
  g_autofree char *r0 = g_path_get_dirname (p0);
  g_autofree char *r1 = g_path_get_dirname (p1);
  g_rmdir (r0);
  g_rmdir (r1);

  /* an empty folder is an error, not an empty run */
  g_clear_pointer (&log, nk_scalar_log_free);
  log = nk_scalar_log_read (dir, &error);
  g_assert_null (log);
  g_assert_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_NOT_FOUND);
  g_rmdir (dir);
}

static void
test_reader_corrupt_and_truncated (void)
{
  g_autoptr(GByteArray) f = g_byte_array_new ();
  g_autoptr(NkScalarLog) log = nk_scalar_log_new ();
  gsize rec1;

  enc_scalar_event (f, "loss", 1, 1.0, 0);
  rec1 = f->len;
  enc_scalar_event (f, "loss", 2, 2.0, 0);
  enc_scalar_event (f, "loss", 3, 3.0, 0);
  f->data[rec1 + 14] ^= 0x40;           /* a bit flip in record 2's data: bad data CRC */
  g_byte_array_set_size (f, f->len - 3); /* record 3 cut short */
  nk_scalar_log_add_buffer (log, f->data, f->len);
  g_assert_cmpuint (log->n_records, ==, 1);
  g_assert_cmpuint (log->n_skipped, ==, 2);
  g_assert_cmpuint (nk_scalar_log_get (log, "loss")->len, ==, 1);

  /* a bad length CRC loses the framing: the rest of the file is one skip */
  g_byte_array_set_size (f, 0);
  enc_scalar_event (f, "loss", 1, 1.0, 0);
  enc_scalar_event (f, "loss", 2, 2.0, 0);
  f->data[rec1 + 8] ^= 1;
  nk_scalar_log_add_buffer (log, f->data, f->len);
  g_assert_cmpuint (log->n_records, ==, 2);
  g_assert_cmpuint (log->n_skipped, ==, 3);

  /* every prefix of a good file: no crash, skips ≤ 1 */
  g_byte_array_set_size (f, 0);
  for (int s = 0; s < 4; s++)
    enc_scalar_event (f, "x", s, s, s);
  for (gsize cut = 0; cut <= f->len; cut++)
    {
      g_autoptr(NkScalarLog) l = nk_scalar_log_new ();
      nk_scalar_log_add_buffer (l, f->data, cut);
      g_assert_cmpuint (l->n_skipped, <=, 1);
    }
}

/* A device is no event file: /dev/zero could not be mapped (its size is 0) and was
 * then read until memory ran out; it is refused by name, and an empty regular file
 * is an event file with no record. In a subprocess with a time limit and, outside
 * AddressSanitizer, a memory limit, so that a regression fails rather than eats the
 * machine. (FIFOs, which blocked, are tested the same way in test-log-import.) */
static void
refuses_devices_child (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tfevents-empty-XXXXXX", NULL);
  g_autofree char *empty = g_build_filename (dir, "events.out.tfevents.0.host", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkScalarLog) refused = nk_scalar_log_read ("/dev/zero", &error);
  g_autoptr(NkScalarLog) log = NULL;

  g_assert_null (refused);
  g_assert_error (error, NK_TFEVENTS_ERROR, NK_TFEVENTS_ERROR_IO);
  g_assert_cmpstr (error->message, ==, "“/dev/zero” is not a regular file (it is a device).");
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  log = nk_scalar_log_read (empty, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->n_records, ==, 0);
  g_assert_cmpuint (log->n_skipped, ==, 0);
  g_remove (empty);
  g_rmdir (dir);
}

static void
test_reader_refuses_devices (void)
{
  if (g_test_subprocess ())
    {
#if !defined (__SANITIZE_ADDRESS__) && !NK_HAS_ASAN
      struct rlimit limit = { (rlim_t) 4 << 30, (rlim_t) 4 << 30 };

      g_assert_cmpint (setrlimit (RLIMIT_AS, &limit), ==, 0);
#endif
      refuses_devices_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tfevents/crc32c-vectors", test_crc_vectors);
  g_test_add_func ("/tfevents/writer-decoded-independently", test_writer_decoded_independently);
  g_test_add_func ("/tfevents/reader-two-ranks-tensor-values", test_reader_two_ranks_tensor_values);
  g_test_add_func ("/tfevents/reader-corrupt-and-truncated", test_reader_corrupt_and_truncated);
  g_test_add_func ("/tfevents/reader-refuses-devices", test_reader_refuses_devices);
  return g_test_run ();
}
