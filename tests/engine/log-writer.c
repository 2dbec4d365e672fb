/* log-writer.c: a process that writes a log (or a TensorBoard event file) while a test
 * follows it
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * log-writer FILE ACTION...; each action one argument, done in order:
 *   t:TEXT              append TEXT in one write()
 *   s:MS                sleep MS milliseconds
 *   T                   truncate FILE to 0 bytes (writes go on at its new end)
 *   R:NEW               rename FILE to NEW, then create FILE anew (logrotate's create)
 *   e:TAG:STEP:VALUE[;TAG:STEP:VALUE...]
 *                       append TensorBoard scalar records (FILE an event file) in one
 *                       write(), their bytes made by the engine's own NkEventWriter
 *   h:...               the same in two halves, 300 ms apart
 *   A:PATH              the acknowledgement file for a:
 *   a:N                 wait until the acknowledgement file holds a number >= N (the
 *                       test writes there how many steps it received), at most 30 s
 *                       (then exit 3): the writer goes on only once the follower has
 *                       emitted what it wrote, so no clock decides what "live" means
 * An event file gets the writer's first record (file_version) before its first e/h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "nk-tfevents.h"

typedef struct {
  NkEventWriter *writer;
  char *dir;
  goffset offset;
} Records;

static void
write_all (int         fd,
           const void *data,
           gsize       len)
{
  const char *p = data;

  while (len > 0)
    {
      gssize n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        g_error ("log-writer: write: %s", g_strerror (errno));
      p += n;
      len -= (gsize) n;
    }
}

/* The bytes the writer added to its file since the last call. */
static GBytes *
new_bytes (Records *r)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  GBytes *out;

  if (!nk_event_writer_flush (r->writer, NULL)
      || !g_file_get_contents (nk_event_writer_get_path (r->writer), &text, &len, NULL))
    g_error ("log-writer: cannot read the scratch event file");
  out = g_bytes_new (text + r->offset, len - (gsize) r->offset);
  r->offset = (goffset) len;
  return out;
}

static GBytes *
record (Records    *r,
        const char *spec,
        gboolean   *first)
{
  g_auto(GStrv) part = g_strsplit (spec, ":", 3);
  g_autoptr(GBytes) head = NULL;
  g_autoptr(GBytes) rec = NULL;
  g_autoptr(GByteArray) all = g_byte_array_new ();

  if (g_strv_length (part) != 3)
    g_error ("log-writer: bad record “%s”", spec);
  if (r->writer == NULL)
    {
      r->dir = g_dir_make_tmp ("log-writer-XXXXXX", NULL);
      r->writer = nk_event_writer_new (r->dir, NULL);
      g_assert (r->writer != NULL);
      head = new_bytes (r);
    }
  if (!nk_event_writer_add_scalar (r->writer, part[0], g_ascii_strtoll (part[1], NULL, 10),
                                   1.7e9, (float) g_ascii_strtod (part[2], NULL), NULL))
    g_error ("log-writer: cannot add a scalar");
  rec = new_bytes (r);
  if (head != NULL && *first)
    g_byte_array_append (all, g_bytes_get_data (head, NULL), g_bytes_get_size (head));
  *first = FALSE;
  g_byte_array_append (all, g_bytes_get_data (rec, NULL), g_bytes_get_size (rec));
  return g_byte_array_free_to_bytes (g_steal_pointer (&all));
}

static gboolean
wait_ack (const char *path,
          guint64     n)
{
  for (guint tries = 0; tries < 3000; tries++)
    {
      g_autofree char *text = NULL;

      if (path != NULL && g_file_get_contents (path, &text, NULL, NULL)
          && g_ascii_strtoull (text, NULL, 10) >= n)
        return TRUE;
      g_usleep (10 * 1000);
    }
  return FALSE;
}

int
main (int    argc,
      char **argv)
{
  Records r = { 0 };
  const char *ack = NULL;
  gboolean first = TRUE;
  int fd;

  if (argc < 2)
    {
      fprintf (stderr, "usage: log-writer FILE ACTION...\n");
      return 2;
    }
  fd = open (argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    g_error ("log-writer: %s: %s", argv[1], g_strerror (errno));
  for (int i = 2; i < argc; i++)
    {
      const char *a = argv[i];

      if (g_str_has_prefix (a, "t:"))
        write_all (fd, a + 2, strlen (a + 2));
      else if (g_str_has_prefix (a, "s:"))
        g_usleep ((gulong) g_ascii_strtoull (a + 2, NULL, 10) * 1000);
      else if (g_str_has_prefix (a, "A:"))
        ack = a + 2;
      else if (g_str_has_prefix (a, "a:"))
        {
          if (!wait_ack (ack, g_ascii_strtoull (a + 2, NULL, 10)))
            return 3;
        }
      else if (strcmp (a, "T") == 0)
        {
          if (ftruncate (fd, 0) != 0)
            g_error ("log-writer: ftruncate: %s", g_strerror (errno));
        }
      else if (g_str_has_prefix (a, "R:"))
        {
          if (g_rename (argv[1], a + 2) != 0)
            g_error ("log-writer: rename: %s", g_strerror (errno));
          close (fd);
          fd = open (argv[1], O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
          if (fd < 0)
            g_error ("log-writer: %s: %s", argv[1], g_strerror (errno));
        }
      else if (g_str_has_prefix (a, "e:") || g_str_has_prefix (a, "h:"))
        {
          g_auto(GStrv) specs = g_strsplit (a + 2, ";", -1);
          g_autoptr(GByteArray) all = g_byte_array_new ();
          g_autoptr(GBytes) b = NULL;
          gsize len, half;

          for (guint k = 0; specs[k] != NULL; k++)
            {
              g_autoptr(GBytes) one = record (&r, specs[k], &first);

              g_byte_array_append (all, g_bytes_get_data (one, NULL), g_bytes_get_size (one));
            }
          b = g_byte_array_free_to_bytes (g_steal_pointer (&all));
          len = g_bytes_get_size (b);
          half = a[0] == 'h' ? len / 2 : len;
          write_all (fd, g_bytes_get_data (b, NULL), half);
          if (half < len)
            {
              g_usleep (300 * 1000);
              write_all (fd, (const char *) g_bytes_get_data (b, NULL) + half, len - half);
            }
        }
      else
        g_error ("log-writer: unknown action “%s”", a);
    }
  close (fd);
  if (r.writer != NULL)
    {
      g_autofree char *path = g_strdup (nk_event_writer_get_path (r.writer));

      nk_event_writer_free (r.writer);
      g_remove (path);
      g_rmdir (r.dir);
      g_free (r.dir);
    }
  return 0;
}
