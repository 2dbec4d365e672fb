/* bench-memory-snapshot.c: reading a 1 GB PyTorch memory snapshot, against read()ing its bytes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-memory-snapshot [MEGABYTES] [PATH]   (default 1024, a file in the temp folder)
 * Writes a pickle of the structure torch.cuda.memory._dump_snapshot() writes (protocol 4
 * with 64 KiB frames, memoized keys and frame strings read back with BINGET/LONG_BINGET,
 * 8-frame stack traces on every block and trace entry, half the bytes in segments and
 * half in device 0's trace), then prints:
 *   - seconds to read() the file once in 1 MiB chunks (the reference, page cache warm);
 *   - seconds nk_memory_snapshot_load() takes, and the ratio;
 *   - the process's peak RSS (getrusage) over the file's size.
 * The goal (issue 23): a 1 GB snapshot read in under 10 s with peak memory under twice
 * the file. The figures read are checked against the totals written.
 */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "napkin.h"

/* user + system seconds of this process: the machine may be shared */
static double
cpu_seconds (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return (double) u.ru_utime.tv_sec + (double) u.ru_utime.tv_usec * 1e-6
         + (double) u.ru_stime.tv_sec + (double) u.ru_stime.tv_usec * 1e-6;
}

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

typedef struct {
  FILE       *f;
  GByteArray *frame;
  guint64     memo, written;
  GHashTable *strs;
} W;

static void
put (W            *w,
     const void   *p,
     gsize         n)
{
  g_byte_array_append (w->frame, p, n);
}

/* At an opcode boundary: a full frame goes out as FRAME + length + bytes. */
static void
boundary (W        *w,
          gboolean  last)
{
  guint8 head[9] = { 0x95 };

  if (w->frame->len < 65536 && !last)
    return;
  for (guint i = 0; i < 8; i++)
    head[1 + i] = (guint8) ((guint64) w->frame->len >> (8 * i));
  fwrite (head, 1, 9, w->f);
  fwrite (w->frame->data, 1, w->frame->len, w->f);
  w->written += 9 + w->frame->len;
  g_byte_array_set_size (w->frame, 0);
}

static void
op (W      *w,
    guint8  code)
{
  boundary (w, FALSE);
  put (w, &code, 1);
}

static void
memoize (W *w)
{
  op (w, 0x94);
  w->memo++;
}

static void
str (W          *w,
     const char *s)
{
  gpointer hit = g_hash_table_lookup (w->strs, s);

  if (hit != NULL)
    {
      guint64 index = GPOINTER_TO_SIZE (hit) - 1;

      if (index < 256)
        {
          guint8 a = (guint8) index;

          op (w, 'h');
          put (w, &a, 1);
        }
      else
        {
          guint32 a = GUINT32_TO_LE ((guint32) index);

          op (w, 'j');
          put (w, &a, 4);
        }
      return;
    }
  {
    guint8 len = (guint8) strlen (s);

    op (w, 0x8c);
    put (w, &len, 1);
    put (w, s, len);
    g_hash_table_insert (w->strs, g_strdup (s), GSIZE_TO_POINTER (w->memo + 1));
    memoize (w);
  }
}

static void
int_ (W      *w,
      gint64  v)
{
  if (v >= 0 && v < 256)
    {
      guint8 a = (guint8) v;

      op (w, 'K');
      put (w, &a, 1);
    }
  else if (v >= 0 && v <= G_MAXINT32)
    {
      guint32 a = GUINT32_TO_LE ((guint32) v);

      op (w, 'J');
      put (w, &a, 4);
    }
  else
    {
      guint8 a[7] = { 6 };

      for (guint i = 0; i < 6; i++)
        a[1 + i] = (guint8) ((guint64) v >> (8 * i));
      op (w, 0x8a);
      put (w, a, 7);
    }
}

/* A container of @n > 1 items, one batch (n ≤ 1000): the caller writes the items. */
static void
open_ (W        *w,
       gboolean  dict)
{
  op (w, dict ? '}' : ']');
  memoize (w);
  op (w, '(');
}

static void
close_ (W        *w,
        gboolean  dict)
{
  op (w, dict ? 'u' : 'e');
}

/* A list of @n items in pickle's batches of 1000: call before item @i. */
static void
batch_item (W     *w,
            guint  i,
            guint  n)
{
  if (i > 0 && i % 1000 == 0)
    close_ (w, FALSE);
  if (i % 1000 == 0)
    op (w, '(');
}

static const char *const files[] = {
  "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py",
  "/opt/conda/lib/python3.11/site-packages/torch/nn/functional.py",
  "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py",
  "/workspace/torchtitan/torchtitan/models/llama3/model.py",
  "/workspace/torchtitan/torchtitan/train.py",
};

static void
frames (W      *w,
        guint64 salt)
{
  str (w, "frames");
  open_ (w, FALSE);
  for (guint i = 0; i < 8; i++)
    {
      char name[32];

      g_snprintf (name, sizeof name, "fn_%u", (guint) ((salt * 31 + i * 7) % 400));
      open_ (w, TRUE);
      str (w, "filename");
      str (w, files[(salt + i) % G_N_ELEMENTS (files)]);
      str (w, "line");
      int_ (w, (gint64) (100 + (salt * 13 + i) % 900));
      str (w, "name");
      str (w, name);
      close_ (w, TRUE);
    }
  close_ (w, FALSE);
}

typedef struct {
  double allocated, reserved;
} Totals;

static void
segment (W       *w,
         guint64  s,
         Totals  *t)
{
  enum { BLOCKS = 64, SIZE = 1 << 20 };
  gint64 address = G_GINT64_CONSTANT (0x7f0000000000) + (gint64) s * BLOCKS * SIZE;
  gint64 allocated = 0;

  for (guint b = 0; b < BLOCKS; b++)
    allocated += (s + b) % 3 != 0 ? SIZE : 0;
  open_ (w, TRUE);
  str (w, "device"); int_ (w, 0);
  str (w, "address"); int_ (w, address);
  str (w, "total_size"); int_ (w, BLOCKS * SIZE);
  str (w, "allocated_size"); int_ (w, allocated);
  str (w, "active_size"); int_ (w, allocated);
  str (w, "requested_size"); int_ (w, allocated);
  str (w, "stream"); int_ (w, 0);
  str (w, "segment_type"); str (w, "large");
  str (w, "blocks");
  open_ (w, FALSE);
  for (guint b = 0; b < BLOCKS; b++)
    {
      open_ (w, TRUE);
      str (w, "address"); int_ (w, address + (gint64) b * SIZE);
      str (w, "size"); int_ (w, SIZE);
      str (w, "requested_size"); int_ (w, SIZE);
      str (w, "state"); str (w, (s + b) % 3 != 0 ? "active_allocated" : "inactive");
      frames (w, s * BLOCKS + b);
      close_ (w, TRUE);
    }
  close_ (w, FALSE);
  close_ (w, TRUE);
  t->allocated += (double) allocated;
  t->reserved += BLOCKS * SIZE;
}

static void
entry (W       *w,
       guint64  i)
{
  open_ (w, TRUE);
  str (w, "action"); str (w, i % 2 == 0 ? "alloc" : "free_completed");
  str (w, "addr"); int_ (w, G_GINT64_CONSTANT (0x7f0000000000) + (gint64) (i / 2) * 4096);
  str (w, "size"); int_ (w, 4096);
  str (w, "stream"); int_ (w, 0);
  str (w, "time_us"); int_ (w, G_GINT64_CONSTANT (1700000000000000) + (gint64) i);
  frames (w, i);
  close_ (w, TRUE);
}

/* About @bytes of snapshot: segments of 64 blocks (~190 KB each) and trace entries
 * (~190 B each) in equal parts. */
static Totals
write_snapshot (const char *path,
                guint64     bytes)
{
  W w = { .f = fopen (path, "wb"), .frame = g_byte_array_new (),
          .strs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };
  guint8 proto[2] = { 0x80, 4 };
  guint n_segments = (guint) MAX (2, bytes / 2 / 12500 / 64 * 1.0);
  guint n_entries = (guint) MAX (2, bytes / 2 / 190);
  Totals t = { 0 };

  g_assert (w.f != NULL);
  fwrite (proto, 1, 2, w.f);
  open_ (&w, TRUE);
  str (&w, "segments");
  op (&w, ']');
  memoize (&w);
  for (guint s = 0; s < n_segments; s++)
    {
      batch_item (&w, s, n_segments);
      segment (&w, s, &t);
    }
  close_ (&w, FALSE);
  str (&w, "device_traces");
  op (&w, ']');
  memoize (&w);
  op (&w, ']');
  memoize (&w);
  for (guint i = 0; i < n_entries; i++)
    {
      batch_item (&w, i, n_entries);
      entry (&w, i);
    }
  close_ (&w, FALSE);
  op (&w, 'a');         /* one device: APPEND, no MARK */
  close_ (&w, TRUE);
  op (&w, '.');
  boundary (&w, TRUE);
  fclose (w.f);
  g_byte_array_unref (w.frame);
  g_hash_table_unref (w.strs);
  return t;
}

int
main (int    argc,
      char **argv)
{
  guint64 mb = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 1024;
  g_autofree char *path = argc > 2 ? g_strdup (argv[2])
                                   : g_build_filename (g_get_tmp_dir (), "bench-memory-snapshot.pickle", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *buffer = g_malloc (1 << 20);
  NkMemoryMeasure *m = g_new0 (NkMemoryMeasure, 1);
  struct rusage ru;
  GStatBuf st;
  double t0, c0, t_read, t_parse, c_read = 0, c_parse;
  Totals totals;
  gssize got;
  int fd;

  totals = write_snapshot (path, mb << 20);
  g_assert (g_stat (path, &st) == 0);
  /* the reference, twice so the page cache is warm for both */
  for (guint pass = 0; pass < 2; pass++)
    {
      t0 = now_seconds ();
      c0 = cpu_seconds ();
      fd = open (path, O_RDONLY);
      while ((got = read (fd, buffer, 1 << 20)) > 0)
        ;
      close (fd);
      t_read = now_seconds () - t0;
      c_read = cpu_seconds () - c0;
    }
  t0 = now_seconds ();
  c0 = cpu_seconds ();
  if (!nk_memory_snapshot_load (path, m, &error))
    g_error ("%s", error->message);
  t_parse = now_seconds () - t0;
  c_parse = cpu_seconds () - c0;
  getrusage (RUSAGE_SELF, &ru);
  g_assert (m->allocated == totals.allocated && m->reserved == totals.reserved);
  g_print ("snapshot: %.1f MB (%s), %.0f segments, %.0f blocks, %.0f trace entries\n",
           (double) st.st_size / 1e6, path, m->segments, m->blocks, m->trace_entries);
  g_print ("read() once:             %.3f s wall, %.3f s CPU\n", t_read, c_read);
  g_print ("nk_memory_snapshot_load: %.3f s wall, %.3f s CPU  (%.1f× read()'s wall, %.1f× its CPU; %.0f MB/s)\n",
           t_parse, c_parse, t_parse / t_read, c_parse / c_read, (double) st.st_size / 1e6 / t_parse);
  g_print ("peak RSS: %.1f MB = %.3f × the file\n",
           (double) ru.ru_maxrss / 1024.0, (double) ru.ru_maxrss * 1024.0 / (double) st.st_size);
  if (argc <= 2)
    g_unlink (path);
  g_free (m);
  return 0;
}
