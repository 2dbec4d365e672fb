/* test-memory-snapshot.c: PyTorch memory snapshots and memory_stats read exactly
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: the pickles are written byte by byte here, following CPython's
 * Lib/pickle.py (_Pickler.save_dict/_batch_setitems: a one-item batch is SETITEM
 * without MARK, batches of 1000; memoize after each str/list/dict; protocol 4's
 * MEMOIZE and FRAME, protocol 2's BINPUT/LONG_BINPUT; save_long's LONG1 of the
 * fewest two's-complement bytes) in the structure torch/cuda/memory.py's _snapshot()
 * has, with sizes chosen so that every total is worked out by hand in the comments.
 * The timeline's downsampling is checked against a brute force over the entries.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "napkin.h"
#include "nk-test-util.h"

/* -- a tiny pickle writer ------------------------------------------------------- */

#define BATCH 1000

typedef struct {
  guint n, i;
  gboolean dict;
} Open;

typedef struct {
  GByteArray *body;
  GArray     *boundaries;   /* offsets in body where an opcode starts */
  GHashTable *memo;         /* str -> index + 1 */
  guint       next_memo;
  int         proto;
  Open        open[32];
  guint       depth;
  guint       batch;
  guint       long_puts, long_gets;
} Pw;

static void
pw_init (Pw  *w,
         int  proto)
{
  memset (w, 0, sizeof *w);
  w->body = g_byte_array_new ();
  w->boundaries = g_array_new (FALSE, FALSE, sizeof (guint));
  w->memo = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  w->proto = proto;
  w->batch = BATCH;
}

static void
op (Pw           *w,
    guint8        code,
    const guint8 *arg,
    guint         n)
{
  guint at = w->body->len;

  g_array_append_val (w->boundaries, at);
  g_byte_array_append (w->body, &code, 1);
  if (n > 0)
    g_byte_array_append (w->body, arg, n);
}

static void
le_bytes (guint8  *out,
          guint64  v,
          guint    n)
{
  for (guint i = 0; i < n; i++)
    out[i] = (guint8) (v >> (8 * i));
}

static void
memoize (Pw *w)
{
  guint8 a[4];

  if (w->proto >= 4)
    op (w, 0x94, NULL, 0);
  else if (w->next_memo < 256)
    {
      a[0] = (guint8) w->next_memo;
      op (w, 'q', a, 1);
    }
  else
    {
      le_bytes (a, w->next_memo, 4);
      op (w, 'r', a, 4);
      w->long_puts++;
    }
  w->next_memo++;
}

/* An item of the innermost open container is about to be written. */
static void
item_begin (Pw *w)
{
  Open *o;

  if (w->depth == 0)
    return;
  o = &w->open[w->depth - 1];
  if (o->dict && o->i % 2 == 1)
    return;
  {
    guint idx = o->dict ? o->i / 2 : o->i;
    guint n = o->dict ? o->n / 2 : o->n;

    if (idx % w->batch == 0 && n - idx > 1)
      op (w, '(', NULL, 0);
  }
}

static void
item_end (Pw *w)
{
  Open *o;
  guint idx, n, in_batch;

  if (w->depth == 0)
    return;
  o = &w->open[w->depth - 1];
  o->i++;
  if (o->dict && o->i % 2 == 1)
    return;
  idx = o->dict ? o->i / 2 : o->i;
  n = o->dict ? o->n / 2 : o->n;
  if (idx % w->batch != 0 && idx != n)
    return;
  in_batch = idx % w->batch == 0 ? MIN (w->batch, idx) : idx % w->batch;
  if (in_batch > 1)
    op (w, o->dict ? 'u' : 'e', NULL, 0);
  else
    op (w, o->dict ? 's' : 'a', NULL, 0);
}

static void
pw_str (Pw         *w,
        const char *s)
{
  guint len = strlen (s);
  gpointer hit = g_hash_table_lookup (w->memo, s);
  guint8 a[4];

  item_begin (w);
  if (hit != NULL)
    {
      guint index = GPOINTER_TO_UINT (hit) - 1;

      if (index < 256)
        {
          a[0] = (guint8) index;
          op (w, 'h', a, 1);
        }
      else
        {
          le_bytes (a, index, 4);
          op (w, 'j', a, 4);
          w->long_gets++;
        }
    }
  else
    {
      if (w->proto >= 4 && len < 256)
        {
          a[0] = (guint8) len;
          op (w, 0x8c, a, 1);
        }
      else
        {
          le_bytes (a, len, 4);
          op (w, 'X', a, 4);
        }
      g_byte_array_append (w->body, (const guint8 *) s, len);
      g_hash_table_insert (w->memo, g_strdup (s), GUINT_TO_POINTER (w->next_memo + 1));
      memoize (w);
    }
  item_end (w);
}

static void
pw_int (Pw     *w,
        gint64  v)
{
  guint8 a[9];

  item_begin (w);
  if (v >= 0 && v < 256)
    {
      a[0] = (guint8) v;
      op (w, 'K', a, 1);
    }
  else if (v >= 0 && v < 65536)
    {
      le_bytes (a, (guint64) v, 2);
      op (w, 'M', a, 2);
    }
  else if (v >= G_MININT32 && v <= G_MAXINT32)
    {
      le_bytes (a, (guint64) v, 4);
      op (w, 'J', a, 4);
    }
  else
    {
      /* save_long: the fewest bytes whose top bit is the sign */
      guint n = 1;

      while (n < 8 && !(v >= -((gint64) 1 << (8 * n - 1)) && v < ((gint64) 1 << (8 * n - 1))))
        n++;
      a[0] = (guint8) n;
      le_bytes (a + 1, (guint64) v, n);
      op (w, 0x8a, a, n + 1);
    }
  item_end (w);
}

static void
pw_float (Pw     *w,
          double  v)
{
  guint8 a[8];
  guint64 bits;

  item_begin (w);
  memcpy (&bits, &v, 8);
  for (guint i = 0; i < 8; i++)
    a[i] = (guint8) (bits >> (56 - 8 * i));
  op (w, 'G', a, 8);
  item_end (w);
}

static void
pw_bool (Pw       *w,
         gboolean  v)
{
  item_begin (w);
  op (w, v ? 0x88 : 0x89, NULL, 0);
  item_end (w);
}

static void
pw_pair_tuple (Pw     *w,
               gint64  a,
               gint64  b)
{
  guint depth = w->depth;

  item_begin (w);
  w->depth = 0;    /* the tuple's items are on the stack, not in a container */
  pw_int (w, a);
  pw_int (w, b);
  w->depth = depth;
  op (w, 0x86, NULL, 0);
  memoize (w);
  item_end (w);
}

/* A dict of @n_keys keys or a list of @n items; close with pw_end(). */
static void
pw_begin (Pw       *w,
          gboolean  dict,
          guint     n)
{
  item_begin (w);
  op (w, dict ? '}' : ']', NULL, 0);
  memoize (w);
  w->open[w->depth++] = (Open) { .n = dict ? 2 * n : n, .dict = dict };
}

static void
pw_end (Pw *w)
{
  g_assert_cmpuint (w->open[w->depth - 1].i, ==, w->open[w->depth - 1].n);
  w->depth--;
  item_end (w);
}

/* The pickle: PROTO, then (protocol 4) frames of about 100 bytes cut at opcode
 * boundaries, as _Framer does at its (larger) target; STOP inside the last frame. */
static GBytes *
pw_finish (Pw *w)
{
  GByteArray *out = g_byte_array_new ();
  guint8 head[2] = { 0x80, (guint8) w->proto };
  guint8 stop = '.';
  guint start = 0;

  g_byte_array_append (out, head, 2);
  op (w, stop, NULL, 0);
  if (w->proto < 4)
    g_byte_array_append (out, w->body->data, w->body->len);
  for (guint b = 1; w->proto >= 4 && b <= w->boundaries->len; b++)
    {
      guint end = b < w->boundaries->len ? g_array_index (w->boundaries, guint, b) : w->body->len;

      if (end - start >= 100 || end == w->body->len)
        {
          guint8 frame[9] = { 0x95 };

          le_bytes (frame + 1, end - start, 8);
          g_byte_array_append (out, frame, 9);
          g_byte_array_append (out, w->body->data + start, end - start);
          start = end;
        }
    }
  g_byte_array_unref (w->body);
  g_array_unref (w->boundaries);
  g_hash_table_unref (w->memo);
  return g_byte_array_free_to_bytes (out);
}

/* -- the snapshot written ------------------------------------------------------ */

static void
frames (Pw         *w,
        const char *name,
        gint64      line)
{
  pw_str (w, "frames");
  pw_begin (w, FALSE, 2);
  for (guint i = 0; i < 2; i++)
    {
      pw_begin (w, TRUE, 3);
      pw_str (w, "filename");
      pw_str (w, i == 0 ? "/opt/train.py" : "/usr/lib/python3/dist-packages/torch/nn/modules/module.py");
      pw_str (w, "line");
      pw_int (w, line + i);
      pw_str (w, "name");
      pw_str (w, name);
      pw_end (w);
    }
  pw_end (w);
}

static void
block (Pw         *w,
       gint64      address,
       gint64      size,
       const char *state)
{
  pw_begin (w, TRUE, 5);
  pw_str (w, "address");
  pw_int (w, address);
  pw_str (w, "size");
  pw_int (w, size);
  pw_str (w, "requested_size");
  pw_int (w, size - (size > 512 ? 512 : 0));
  pw_str (w, "state");
  pw_str (w, state);
  frames (w, "forward", 10);
  pw_end (w);
}

typedef struct {
  gint64      size;
  const char *state;
} Blk;

static void
segment (Pw        *w,
         gint64     address,
         gint64     allocated,
         gint64     active,
         const Blk *blocks,
         guint      n_blocks)
{
  gint64 total = 0;

  for (guint i = 0; i < n_blocks; i++)
    total += blocks[i].size;
  pw_begin (w, TRUE, 12);
  pw_str (w, "device");
  pw_int (w, 0);
  pw_str (w, "address");
  pw_int (w, address);
  pw_str (w, "total_size");
  pw_int (w, total);
  pw_str (w, "allocated_size");
  pw_int (w, allocated);
  pw_str (w, "active_size");
  pw_int (w, active);
  pw_str (w, "requested_size");
  pw_int (w, allocated - 512);
  pw_str (w, "stream");
  pw_int (w, 0);
  pw_str (w, "segment_type");
  pw_str (w, total < (gint64) 1 << 22 ? "small" : "large");
  pw_str (w, "segment_pool_id");
  pw_pair_tuple (w, 0, 0);
  pw_str (w, "is_expandable");
  pw_bool (w, FALSE);
  frames (w, "empty_cache", 40);
  pw_str (w, "blocks");
  pw_begin (w, FALSE, n_blocks);
  for (guint i = 0; i < n_blocks; i++)
    {
      block (w, address, blocks[i].size, blocks[i].state);
      address += blocks[i].size;
    }
  pw_end (w);
  pw_end (w);
}

typedef struct {
  const char *action;
  gint64      size;
  gint64      time_us;
} Entry;

static void
trace_entry (Pw          *w,
             const Entry *e,
             const char  *function)
{
  gboolean oom = strcmp (e->action, "oom") == 0;

  pw_begin (w, TRUE, 6);
  pw_str (w, "action");
  pw_str (w, e->action);
  pw_str (w, "addr");
  pw_int (w, G_GINT64_CONSTANT (0x7f3a00000000) + e->size);
  pw_str (w, "size");
  pw_int (w, e->size);
  pw_str (w, "stream");
  pw_int (w, 0);
  if (oom)
    {
      pw_str (w, "device_free");
      pw_int (w, 1024);
    }
  else
    frames (w, function, 77);
  pw_str (w, "time_us");
  pw_int (w, e->time_us);
  pw_end (w);
}

/* Segment A (2 MiB): 512 KiB active_allocated, 256 KiB active_pending_free, 768 KiB
 * and 512 KiB inactive; allocated_size 524288, active_size 786432.
 * Segment B (20 MiB): 10 MiB active_allocated, 10 MiB inactive.
 * reserved 2097152 + 20971520 = 23068672; allocated 524288 + 10485760 = 11010048;
 * active 786432 + 10485760 = 11272192; inactive 786432 + 524288 + 10485760 = 11796480,
 * the largest 10485760, fragmentation 1 − 10485760 / 11796480 = 1/9.
 * Device 0's trace: alloc 1000 (t 1), alloc 3000 (2), free_requested 1000 (3),
 * free_completed 1000 (4), segment_alloc 2 MiB (5), oom (6), alloc 5000 (7),
 * free_completed 3000 (8): 8 entries, 1 oom, net +5000, highest +8000; it began at
 * 11010048 − 5000 = 11005048 and peaked at 11013048. */
static const Blk seg_a[] = {
  { 524288, "active_allocated" }, { 262144, "active_pending_free" },
  { 786432, "inactive" }, { 524288, "inactive" },
};
static const Blk seg_b[] = { { 10485760, "active_allocated" }, { 10485760, "inactive" } };
static const Entry trace0[] = {
  { "alloc", 1000, 1 }, { "alloc", 3000, 2 }, { "free_requested", 1000, 3 },
  { "free_completed", 1000, 4 }, { "segment_alloc", 2097152, 5 }, { "oom", 4096, 6 },
  { "alloc", 5000, 7 }, { "free_completed", 3000, 8 },
};
#define BASE 11005048.0

static GBytes *
write_snapshot (int       proto,
                guint     n_devices,
                guint     batch)
{
  Pw w;

  pw_init (&w, proto);
  w.batch = batch;
  pw_begin (&w, TRUE, 3);
  pw_str (&w, "segments");
  pw_begin (&w, FALSE, 2);
  segment (&w, G_GINT64_CONSTANT (0x7f3a00000000), 524288, 786432, seg_a, G_N_ELEMENTS (seg_a));
  segment (&w, G_GINT64_CONSTANT (0x7f3c00000000), 10485760, 10485760, seg_b, G_N_ELEMENTS (seg_b));
  pw_end (&w);
  pw_str (&w, "device_traces");
  pw_begin (&w, FALSE, n_devices);
  for (guint d = 0; d < n_devices; d++)
    {
      guint n = d == 0 ? G_N_ELEMENTS (trace0) : 0;

      pw_begin (&w, FALSE, n);
      for (guint i = 0; i < n; i++)
        trace_entry (&w, &trace0[i], "backward");
      pw_end (&w);
    }
  pw_end (&w);
  pw_str (&w, "allocator_settings");
  pw_begin (&w, TRUE, 2);
  pw_str (&w, "garbage_collection_threshold");
  pw_float (&w, 0.8);
  pw_str (&w, "expandable_segments");
  pw_bool (&w, FALSE);
  pw_end (&w);
  pw_end (&w);
  return pw_finish (&w);
}

static void
check_snapshot (const NkMemoryMeasure *m)
{
  static const double points[][3] = {
    { 1, BASE + 1000, BASE + 1000 }, { 2, BASE + 4000, BASE + 4000 }, { 4, BASE + 3000, BASE + 3000 },
    { 7, BASE + 8000, BASE + 8000 }, { 8, BASE + 5000, BASE + 5000 },
  };

  g_assert_cmpint (m->source, ==, NK_MEMORY_SOURCE_SNAPSHOT);
  g_assert_cmpfloat (m->reserved, ==, 23068672);
  g_assert_cmpfloat (m->allocated, ==, 11010048);
  g_assert_cmpfloat (m->active, ==, 11272192);
  g_assert_cmpfloat (m->segments, ==, 2);
  g_assert_cmpfloat (m->blocks, ==, 6);
  g_assert_cmpfloat (m->block_count[NK_MEMORY_BLOCK_ACTIVE_ALLOCATED], ==, 2);
  g_assert_cmpfloat (m->block_count[NK_MEMORY_BLOCK_ACTIVE_PENDING_FREE], ==, 1);
  g_assert_cmpfloat (m->block_count[NK_MEMORY_BLOCK_INACTIVE], ==, 3);
  g_assert_cmpfloat (m->block_bytes[NK_MEMORY_BLOCK_ACTIVE_ALLOCATED], ==, 11010048);
  g_assert_cmpfloat (m->block_bytes[NK_MEMORY_BLOCK_ACTIVE_PENDING_FREE], ==, 262144);
  g_assert_cmpfloat (m->block_bytes[NK_MEMORY_BLOCK_INACTIVE], ==, 11796480);
  g_assert_cmpfloat (m->free_bytes, ==, 11796480);
  g_assert_cmpfloat (m->largest_free_block, ==, 10485760);
  g_assert_cmpfloat_with_epsilon (m->fragmentation, 1.0 / 9, 1e-15);
  g_assert_cmpfloat (m->trace_entries, ==, 8);
  g_assert_cmpfloat (m->ooms, ==, 1);
  g_assert_cmpfloat (m->peak_allocated, ==, 11013048);
  g_assert_true (isnan (m->peak_reserved));
  g_assert_cmpint (m->timeline_device, ==, 0);
  g_assert_cmpuint (m->n_timeline, ==, G_N_ELEMENTS (points));
  for (guint i = 0; i < m->n_timeline; i++)
    {
      g_assert_cmpfloat (m->timeline[i].time_us, ==, points[i][0]);
      g_assert_cmpfloat (m->timeline[i].min_bytes, ==, points[i][1]);
      g_assert_cmpfloat (m->timeline[i].max_bytes, ==, points[i][2]);
    }
}

static void
test_protocols (void)
{
  /* protocol 2 (BINPUT) and 4 and 5 (MEMOIZE, FRAME); batches of 1000 as pickle
   * writes them and of 2 (every APPENDS and SETITEMS split); one device (its
   * device_traces is a one-item list: APPEND, no MARK) and two */
  static const int protos[] = { 2, 4, 5 };

  for (guint p = 0; p < G_N_ELEMENTS (protos); p++)
    for (guint devices = 1; devices <= 2; devices++)
      for (guint batch = 2; batch <= BATCH; batch += BATCH - 2)
        {
          g_autoptr(GBytes) pickle = write_snapshot (protos[p], devices, batch);
          g_autoptr(GError) error = NULL;
          NkMemoryMeasure m;
          gsize len;
          const guint8 *data = g_bytes_get_data (pickle, &len);

          g_assert_true (nk_memory_snapshot_read (data, len, &m, &error));
          g_assert_no_error (error);
          check_snapshot (&m);
          g_assert_cmpint (nk_memory_sniff (data, len), ==, NK_MEMORY_SOURCE_SNAPSHOT);
        }
}

static void
test_truncated (void)
{
  /* every prefix is an error (never a crash, never a result) */
  static const int protos[] = { 2, 4 };

  for (guint p = 0; p < G_N_ELEMENTS (protos); p++)
    {
      g_autoptr(GBytes) pickle = write_snapshot (protos[p], 2, BATCH);
      gsize len;
      const guint8 *data = g_bytes_get_data (pickle, &len);

      for (gsize n = 0; n < len; n++)
        {
          g_autofree guint8 *copy = g_memdup2 (data, n);
          g_autoptr(GError) error = NULL;
          NkMemoryMeasure m;

          g_assert_false (nk_memory_snapshot_read (copy, n, &m, &error));
          g_assert_nonnull (error);
          g_assert_true (error->domain == NK_MEMORY_SNAPSHOT_ERROR);
        }
    }
}

static void
expect_error (const char *bytes,
              gsize       len,
              int         code,
              const char *words)
{
  g_autoptr(GError) error = NULL;
  NkMemoryMeasure m;

  g_assert_false (nk_memory_snapshot_read ((const guint8 *) bytes, len, &m, &error));
  g_assert_error (error, NK_MEMORY_SNAPSHOT_ERROR, code);
  if (strstr (error->message, words) == NULL)
    g_error ("“%s” does not say “%s”", error->message, words);
}

static void
test_refused (void)
{
  /* what pickletools.dis shows for os.system("x"): GLOBAL, then REDUCE */
  static const char global[] = "\x80\x02" "cos\nsystem\n" "X\x01\x00\x00\x00x" "\x85R.";
  static const char stack_global[] = "\x80\x04\x8c\x02os\x8c\x06system\x93)R.";
  static const char reduce[] = "\x80\x02})R.";
  static const char build[] = "\x80\x02}}b.";
  static const char obj[] = "\x80\x02(o.";

  expect_error (global, sizeof global - 1, NK_MEMORY_SNAPSHOT_ERROR_REFUSED, "Byte 2: the pickle uses GLOBAL (0x63)");
  expect_error (stack_global, sizeof stack_global - 1, NK_MEMORY_SNAPSHOT_ERROR_REFUSED, "Byte 14: the pickle uses STACK_GLOBAL");
  expect_error (reduce, sizeof reduce - 1, NK_MEMORY_SNAPSHOT_ERROR_REFUSED, "Byte 4: the pickle uses REDUCE");
  expect_error (build, sizeof build - 1, NK_MEMORY_SNAPSHOT_ERROR_REFUSED, "Byte 4: the pickle uses BUILD");
  expect_error (obj, sizeof obj - 1, NK_MEMORY_SNAPSHOT_ERROR_REFUSED, "OBJ");
}

static void
test_malformed (void)
{
  static const char never_stored[] = "\x80\x02h\x05.";
  static const char far_put[] = "\x80\x02}r\x00\x00\x00\x10.";
  static const char underflow[] = "\x80\x02(s.";
  static const char no_mark[] = "\x80\x02]e.";
  static const char odd[] = "\x80\x02}(K\x01u.";
  static const char not_list[] = "\x80\x02}K\x01" "a.";
  static const char huge_string[] = "\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f.";
  static const char proto1[] = "\x80\x01}.";
  static const char not_snapshot[] = "\x80\x02}q\x00.";
  static const char list_not_segments[] = "\x80\x02]q\x00K\x01" "a.";
  static const char opcode[] = "\x80\x02\xff.";

  expect_error (never_stored, sizeof never_stored - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "BINGET reads memo entry 5, which was never stored");
  expect_error (far_put, sizeof far_put - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "past any");
  expect_error (underflow, sizeof underflow - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "too few items");
  expect_error (no_mark, sizeof no_mark - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "APPENDS without a MARK");
  expect_error (odd, sizeof odd - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "key without a value");
  expect_error (not_list, sizeof not_list - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "not a list");
  expect_error (huge_string, sizeof huge_string - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "ends inside BINUNICODE8");
  expect_error (proto1, sizeof proto1 - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "protocol 1");
  expect_error (not_snapshot, sizeof not_snapshot - 1, NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT, "segments");
  expect_error (list_not_segments, sizeof list_not_segments - 1, NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT, "segments");
  expect_error (opcode, sizeof opcode - 1, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT, "0xff is no pickle opcode");
  expect_error ("{}", 2, NK_MEMORY_SNAPSHOT_ERROR_UNKNOWN_FORMAT, "PROTO");
}

static void
test_deep (void)
{
  /* 600 nested MARKs: more than the reader allows, refused in a sentence */
  GString *s = g_string_new ("\x80\x02");
  g_autoptr(GError) error = NULL;
  NkMemoryMeasure m;

  for (guint i = 0; i < 600; i++)
    g_string_append_len (s, "]q\x00(", 4);
  g_assert_false (nk_memory_snapshot_read ((const guint8 *) s->str, s->len, &m, &error));
  g_assert_error (error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "deeper"));
  g_string_free (s, TRUE);
}

static void
timeline_downsampled (int proto)
{
  /* 1500 entries of sizes from a fixed rule: the points fill (512), halve (stride 2),
   * fill and halve again (stride 4): 375 points, each the least and most of 4
   * consecutive entries' running totals, checked by brute force */
  enum { N = 1500, STRIDE = 4 };
  Pw w;
  g_autoptr(GBytes) pickle = NULL;
  NkMemoryMeasure m;
  gint64 running = 0, lo_all = 0, hi_all = 0;
  double sums[N];
  static const Blk one[] = { { 1 << 20, "active_allocated" } };

  pw_init (&w, proto);
  pw_begin (&w, TRUE, 2);
  pw_str (&w, "segments");
  pw_begin (&w, FALSE, 1);
  segment (&w, 1 << 30, 1 << 20, 1 << 20, one, 1);
  pw_end (&w);
  pw_str (&w, "device_traces");
  pw_begin (&w, FALSE, 1);
  pw_begin (&w, FALSE, N);
  for (guint i = 0; i < N; i++)
    {
      Entry e = { (i * 7) % 3 == 0 ? "free_completed" : "alloc", 100 + (i * 37) % 1000, 1000 + i };

      g_autofree char *name = g_strdup_printf ("step%u", i / 50);

      trace_entry (&w, &e, name);
      running += strcmp (e.action, "alloc") == 0 ? e.size : -e.size;
      sums[i] = (double) running;
      lo_all = MIN (lo_all, running);
      hi_all = MAX (hi_all, running);
    }
  pw_end (&w);
  pw_end (&w);
  pw_end (&w);
  pickle = pw_finish (&w);
  /* protocol 2 past 256 memo entries: LONG_BINPUT, and LONG_BINGET of the names
   * first met there */
  g_assert_true (proto >= 4 || (w.long_puts > 0 && w.long_gets > 0));
  {
    gsize len;
    const guint8 *data = g_bytes_get_data (pickle, &len);
    double base = (double) (1 << 20) - (double) running;

    g_assert_true (nk_memory_snapshot_read (data, len, &m, NULL));
    g_assert_cmpuint (m.n_timeline, ==, (N + STRIDE - 1) / STRIDE);
    g_assert_cmpfloat (m.peak_allocated, ==, base + (double) hi_all);
    for (guint p = 0; p < m.n_timeline; p++)
      {
        double lo = INFINITY, hi = -INFINITY;

        for (guint i = p * STRIDE; i < MIN ((p + 1) * STRIDE, N); i++)
          {
            lo = MIN (lo, sums[i]);
            hi = MAX (hi, sums[i]);
          }
        g_assert_cmpfloat (m.timeline[p].time_us, ==, 1000 + p * STRIDE);
        g_assert_cmpfloat (m.timeline[p].min_bytes, ==, base + lo);
        g_assert_cmpfloat (m.timeline[p].max_bytes, ==, base + hi);
      }
  }
}

static void
test_timeline_downsampled (void)
{
  timeline_downsampled (2);
  timeline_downsampled (4);
}

/* -- memory_stats ---------------------------------------------------------------- */

/* the keys torch.cuda.memory_stats() writes, a few of each kind, in its order */
static const char stats_flat[] =
  "{\"active.all.allocated\": 120, \"active.all.current\": 7, \"active.all.freed\": 113,"
  " \"active.all.peak\": 30, \"active_bytes.all.current\": 1610612736,"
  " \"active_bytes.all.peak\": 4294967296, \"allocated_bytes.all.allocated\": 99999999999,"
  " \"allocated_bytes.all.current\": 1073741824, \"allocated_bytes.all.freed\": 98926258175,"
  " \"allocated_bytes.all.peak\": 3221225472, \"allocated_bytes.large_pool.current\": 1000,"
  " \"allocation.all.current\": 5, \"inactive_split.all.current\": 3,"
  " \"inactive_split_bytes.all.current\": 402653184, \"num_alloc_retries\": 0, \"num_ooms\": 2,"
  " \"requested_bytes.all.current\": 1073741000, \"reserved_bytes.all.current\": 2147483648,"
  " \"reserved_bytes.all.peak\": 5368709120, \"segment.all.current\": 4}";

static void
check_stats (const NkMemoryMeasure *m)
{
  g_assert_cmpint (m->source, ==, NK_MEMORY_SOURCE_STATS);
  g_assert_cmpfloat (m->allocated, ==, 1073741824);
  g_assert_cmpfloat (m->reserved, ==, 2147483648);
  g_assert_cmpfloat (m->active, ==, 1610612736);
  g_assert_cmpfloat (m->peak_allocated, ==, 3221225472);
  g_assert_cmpfloat (m->peak_reserved, ==, 5368709120);
  g_assert_cmpfloat (m->segments, ==, 4);
  g_assert_cmpfloat (m->blocks, ==, 8);
  g_assert_cmpfloat (m->free_bytes, ==, 2147483648.0 - 1610612736.0);
  g_assert_cmpfloat (m->ooms, ==, 2);
  g_assert_true (isnan (m->largest_free_block));
  g_assert_true (isnan (m->fragmentation));
  g_assert_cmpuint (m->n_timeline, ==, 0);
}

static void
test_stats (void)
{
  static const char nested[] =
    "{\"active_bytes\": {\"all\": {\"current\": 1610612736, \"peak\": 1}},"
    " \"allocated_bytes\": {\"all\": {\"current\": 1073741824, \"peak\": 3221225472}},"
    " \"allocation\": {\"all\": {\"current\": 5}}, \"inactive_split\": {\"all\": {\"current\": 3}},"
    " \"num_ooms\": 2, \"reserved_bytes\": {\"all\": {\"current\": 2147483648, \"peak\": 5368709120}},"
    " \"segment\": {\"all\": {\"current\": 4}}}";
  const char *texts[] = { stats_flat, nested };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      NkMemoryMeasure m;

      g_assert_cmpint (nk_memory_sniff ((const guint8 *) texts[i], strlen (texts[i])), ==, NK_MEMORY_SOURCE_STATS);
      g_assert_true (json_parser_load_from_data (parser, texts[i], -1, NULL));
      g_assert_true (nk_memory_stats_read (json_parser_get_root (parser), &m, NULL));
      check_stats (&m);
    }
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;
    NkMemoryMeasure m;

    g_assert_true (json_parser_load_from_data (parser, "{\"step\": 1, \"loss\": 2}", -1, NULL));
    g_assert_cmpint (nk_memory_sniff ((const guint8 *) "{\"step\": 1}", 11), ==, NK_MEMORY_SOURCE_NONE);
    g_assert_false (nk_memory_stats_read (json_parser_get_root (parser), &m, &error));
    g_assert_error (error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT);
  }
}

/* -- the CLI, end to end ---------------------------------------------------------- */

/* a plan's memory as `napkin-cli plan --json` writes it: one GPU, 16 bytes per
 * parameter of 124M (mixed-precision AdamW), 4 GiB of activations */
static const char plan_text[] =
  "{\"total_flops\": 1e18, \"days\": 1, \"memory\": {\"params\": 496000000.0,"
  " \"grads\": 496000000.0, \"optimizer\": 992000000.0, \"activations\": 4294967296.0,"
  " \"total\": 6278967296.0, \"per_gpu\": 6278967296.0, \"fits\": true}}";

static JsonObject *
memory_of (JsonParser *parser,
           const char *out)
{
  JsonObject *o;

  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  return json_object_get_object_member (o, "memory");
}

static void
test_cli (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("memsnap");
  g_autofree char *snap = g_build_filename (dir, "snapshot.pickle", NULL);
  g_autofree char *stats = g_build_filename (dir, "stats.json", NULL);
  g_autofree char *plan = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.pickle", NULL);
  g_autoptr(GBytes) pickle = write_snapshot (4, 2, BATCH);
  g_autofree char *out = NULL, *err = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_true (g_file_set_contents (snap, g_bytes_get_data (pickle, NULL), g_bytes_get_size (pickle), NULL));
  g_assert_true (g_file_set_contents (stats, stats_flat, -1, NULL));
  g_assert_true (g_file_set_contents (plan, plan_text, -1, NULL));
  g_assert_true (g_file_set_contents (bad, "\x80\x02" "cos\nsystem\n.", -1, NULL));

  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { snap, "--plan", plan, NULL }, &out, NULL), ==, 0);
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *m = memory_of (parser, out);
    JsonObject *planned = json_object_get_object_member (m, "planned");
    JsonObject *ratio = json_object_get_object_member (m, "ratio");
    JsonObject *states = json_object_get_object_member (m, "blocks_by_state");

    g_assert_cmpstr (json_object_get_string_member (m, "source"), ==, "snapshot");
    g_assert_cmpint (json_object_get_int_member (m, "allocated"), ==, 11010048);
    g_assert_cmpint (json_object_get_int_member (m, "reserved"), ==, 23068672);
    g_assert_cmpint (json_object_get_int_member (m, "peak_allocated"), ==, 11013048);
    g_assert_cmpint (json_object_get_int_member (m, "segments"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (m, "blocks"), ==, 6);
    g_assert_cmpint (json_object_get_int_member (m, "largest_free_block"), ==, 10485760);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (m, "fragmentation"), 1.0 / 9, 1e-12);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (states, "inactive"), "bytes"), ==, 11796480);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (m, "timeline")), ==, 5);
    g_assert_cmpfloat (json_object_get_double_member (planned, "optimizer"), ==, 992000000.0);
    g_assert_cmpfloat (json_object_get_double_member (planned, "per_gpu"), ==, 6278967296.0);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (ratio, "allocated"), 11010048.0 / 6278967296.0, 1e-15);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (ratio, "peak_allocated"), 11013048.0 / 6278967296.0, 1e-15);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (ratio, "reserved"), 23068672.0 / 6278967296.0, 1e-15);
  }
  g_clear_pointer (&out, g_free);

  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { stats, NULL }, &out, NULL), ==, 0);
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *m = memory_of (parser, out);

    g_assert_cmpstr (json_object_get_string_member (m, "source"), ==, "memory_stats");
    g_assert_cmpint (json_object_get_int_member (m, "allocated"), ==, 1073741824);
    g_assert_cmpint (json_object_get_int_member (m, "peak_allocated"), ==, 3221225472);
    g_assert_cmpint (json_object_get_int_member (m, "reserved"), ==, 2147483648);
    g_assert_false (json_object_has_member (m, "largest_free_block"));
  }
  g_clear_pointer (&out, g_free);

  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { bad, NULL }, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "GLOBAL"));
  g_assert_nonnull (strstr (err, "bad.pickle"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { snap, "--plan", bad, NULL }, &out, NULL), ==, 1);
  nk_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/memory-snapshot/protocols", test_protocols);
  g_test_add_func ("/engine/memory-snapshot/truncated", test_truncated);
  g_test_add_func ("/engine/memory-snapshot/refused", test_refused);
  g_test_add_func ("/engine/memory-snapshot/malformed", test_malformed);
  g_test_add_func ("/engine/memory-snapshot/deep", test_deep);
  g_test_add_func ("/engine/memory-snapshot/timeline", test_timeline_downsampled);
  g_test_add_func ("/engine/memory-snapshot/stats", test_stats);
  g_test_add_func ("/engine/memory-snapshot/cli", test_cli);
  return g_test_run ();
}
