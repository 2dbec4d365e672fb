/* fuzz-memory-snapshot.c: libFuzzer target: any bytes as a PyTorch memory snapshot or memory_stats JSON
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `napkin-cli import` and the Training page read a snapshot pickle someone hands
 * them (nk_memory_snapshot_read) without running it, and memory_stats JSON
 * (nk_memory_stats_read), told apart by nk_memory_sniff. Each input must end in
 * figures or one GError sentence (a refused opcode is REFUSED, never run); figures
 * keep their own rules: the timeline within NK_MEMORY_TIMELINE_MAX points, each
 * point's least not above its most, the peak the highest point, block counts that
 * add up. The same bytes read from a file (nk_memory_snapshot_load, streamed
 * through its buffer) give the same answer as from memory.
 */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "fuzz-common.h"
#include "nk-memory-snapshot.h"

static void
check_figures (const NkMemoryMeasure *m)
{
  double highest = -INFINITY, blocks = 0;

  g_assert (m->n_timeline <= NK_MEMORY_TIMELINE_MAX);
  g_assert ((m->timeline_device < 0) == (m->n_timeline == 0) || m->n_timeline == 0);
  for (guint i = 0; i < m->n_timeline; i++)
    {
      g_assert (!(m->timeline[i].min_bytes > m->timeline[i].max_bytes));
      highest = MAX (highest, m->timeline[i].max_bytes);
    }
  if (m->n_timeline > 0 && isfinite (highest) && isfinite (m->peak_allocated))
    g_assert (m->peak_allocated >= highest || m->peak_allocated == highest);
  if (!isnan (m->block_count[0]))
    {
      for (guint s = 0; s < NK_MEMORY_N_BLOCK_STATES; s++)
        blocks += m->block_count[s];
      g_assert (blocks == m->blocks);
    }
  g_assert (m->ooms <= m->trace_entries || m->source == NK_MEMORY_SOURCE_STATS);
}

static void
check_load (const uint8_t         *data,
            size_t                 size,
            gboolean               ok,
            const NkMemoryMeasure *from_memory)
{
  static char *path;
  g_autoptr(GError) error = NULL;
  NkMemoryMeasure *m = g_new0 (NkMemoryMeasure, 1);
  gboolean loaded;

  if (path == NULL)
    path = g_strdup_printf ("%s/fuzz-memory-snapshot-%d.pickle", g_get_tmp_dir (), (int) getpid ());
  g_assert (g_file_set_contents (path, (const char *) data, (gssize) size, NULL));
  loaded = nk_memory_snapshot_load (path, m, &error);
  g_unlink (path);
  g_assert (loaded == ok);
  g_assert (loaded == (error == NULL));
  if (loaded)
    g_assert (memcmp (m, from_memory, sizeof *m) == 0);
  else
    g_assert (strchr (error->message, '\n') == NULL);
  g_free (m);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* a private copy, so ASan sees reads past the end as overflows */
  g_autofree uint8_t *copy = g_memdup2 (data, size);
  g_autoptr(GError) error = NULL;
  NkMemoryMeasure *m = g_new0 (NkMemoryMeasure, 1);
  NkMemorySource source = nk_memory_sniff (copy, size);
  gboolean ok;

  ok = nk_memory_snapshot_read (copy, size, m, &error);
  g_assert (ok == (error == NULL));
  if (ok)
    check_figures (m);
  else
    {
      g_assert (error->domain == NK_MEMORY_SNAPSHOT_ERROR);
      g_assert (strchr (error->message, '\n') == NULL);
    }
  if (source == NK_MEMORY_SOURCE_SNAPSHOT || ok)
    check_load (copy, size, ok, m);
  if (source == NK_MEMORY_SOURCE_STATS)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) stats_error = NULL;

      if (json_parser_load_from_data (parser, (const char *) copy, (gssize) size, NULL))
        {
          ok = nk_memory_stats_read (json_parser_get_root (parser), m, &stats_error);
          g_assert (ok == (stats_error == NULL));
          if (ok)
            check_figures (m);
        }
    }
  g_free (m);
  return 0;
}
