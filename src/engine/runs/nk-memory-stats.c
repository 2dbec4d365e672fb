/* nk-memory-stats.c: torch.cuda.memory_stats() as JSON, telling the files apart, and the plan beside them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * memory_stats() keys are "<stat>.<pool>.<metric>" (c10/cuda/CUDACachingAllocator's
 * DeviceStats, torch/cuda/memory.py): allocated_bytes.all.current, .peak,
 * reserved_bytes.all.current, active_bytes.all.current, segment.all.current,
 * allocation.all.current, inactive_split.all.current, num_ooms.
 * memory_stats_as_nested_dict() nests the same keys.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "nk-file-util.h"
#include "nk-memory-snapshot.h"

static const char *const state_names[NK_MEMORY_N_BLOCK_STATES] = {
  "active_allocated", "active_pending_free", "inactive",
};

static const char *const bucket_names[NK_MEMORY_N_BUCKETS] = {
  "params", "grads", "optimizer", "activations", "total", "per_gpu",
};

static const char *const measured_names[NK_MEMORY_N_MEASURED] = {
  "allocated", "peak_allocated", "reserved",
};

/**
 * nk_memory_block_state_name:
 * @state: a block's state
 *
 * The state as a snapshot writes it ("active_allocated").
 *
 * Returns: (transfer none): the state as a snapshot writes it ("active_allocated")
 */
const char *
nk_memory_block_state_name (NkMemoryBlockState state)
{
  g_return_val_if_fail (state < NK_MEMORY_N_BLOCK_STATES, NULL);
  return state_names[state];
}

/**
 * nk_memory_bucket_name:
 * @bucket: a plan's memory figure
 *
 * Its name under the plan's "memory" ("params", "per_gpu").
 *
 * Returns: (transfer none): its name under the plan's "memory" ("params", "per_gpu")
 */
const char *
nk_memory_bucket_name (NkMemoryBucket bucket)
{
  g_return_val_if_fail (bucket < NK_MEMORY_N_BUCKETS, NULL);
  return bucket_names[bucket];
}

/**
 * nk_memory_measured_name:
 * @measured: a measured figure
 *
 * Its name in `napkin-cli import`'s "memory" ("allocated").
 *
 * Returns: (transfer none): its name in `napkin-cli import`'s "memory" ("allocated")
 */
const char *
nk_memory_measured_name (NkMemoryMeasured measured)
{
  g_return_val_if_fail (measured < NK_MEMORY_N_MEASURED, NULL);
  return measured_names[measured];
}

/**
 * nk_memory_sniff:
 * @head: (array length=length): a file's first bytes (4 KiB are plenty)
 * @length: their count
 *
 * Tells a snapshot pickle (PROTO, protocol 2 to 5) and a memory_stats JSON object
 * (its first key an allocator statistic's, flat or nested) from anything else, by
 * content alone.
 *
 * Returns: what @head looks like, %NK_MEMORY_SOURCE_NONE when neither
 */
NkMemorySource
nk_memory_sniff (const guint8 *head,
                 gsize         length)
{
  static const char *const stats_keys[] = {
    "\"active.", "\"active_bytes", "\"allocated_bytes", "\"allocation", "\"inactive_split",
    "\"max_split_size", "\"num_alloc_retries", "\"num_ooms", "\"num_sync_all_streams",
    "\"num_device_alloc", "\"num_device_free", "\"oversize_", "\"requested_bytes",
    "\"reserved_bytes", "\"segment", "\"active\"",
  };
  gsize i = 0;

  g_return_val_if_fail (head != NULL || length == 0, NK_MEMORY_SOURCE_NONE);
  if (length >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
    return NK_MEMORY_SOURCE_SNAPSHOT;
  while (i < length && g_ascii_isspace (head[i]))
    i++;
  if (i >= length || head[i] != '{')
    return NK_MEMORY_SOURCE_NONE;
  for (i++; i < length && g_ascii_isspace (head[i]); i++)
    ;
  for (guint k = 0; k < G_N_ELEMENTS (stats_keys); k++)
    {
      gsize n = strlen (stats_keys[k]);

      if (length - i >= n && memcmp (head + i, stats_keys[k], n) == 0)
        return NK_MEMORY_SOURCE_STATS;
    }
  return NK_MEMORY_SOURCE_NONE;
}

/**
 * nk_memory_sniff_file:
 * @path: a file someone handed us
 *
 * nk_memory_sniff() on @path's first 4 KiB; a file that cannot be opened as a
 * regular file is %NK_MEMORY_SOURCE_NONE (its reader says why).
 *
 * Returns: what the file looks like
 */
NkMemorySource
nk_memory_sniff_file (const char *path)
{
  guint8 head[4096];
  gssize got;
  int fd;

  g_return_val_if_fail (path != NULL, NK_MEMORY_SOURCE_NONE);
  fd = nk_file_open_regular (path, G_MAXINT64, NULL, NULL);
  if (fd < 0)
    return NK_MEMORY_SOURCE_NONE;
  got = read (fd, head, sizeof head);
  close (fd);
  return got > 0 ? nk_memory_sniff (head, (gsize) got) : NK_MEMORY_SOURCE_NONE;
}

/* "stat.pool.metric" flat, or nested objects; NAN where absent or not a number. */
static double
stat_at (JsonObject *o,
         const char *stat,
         const char *metric)
{
  g_autofree char *flat = metric != NULL ? g_strconcat (stat, ".all.", metric, NULL) : g_strdup (stat);
  JsonNode *n = json_object_get_member (o, flat);

  if (n == NULL && metric != NULL)
    {
      JsonNode *s = json_object_get_member (o, stat);
      JsonNode *all = s != NULL && JSON_NODE_HOLDS_OBJECT (s)
                      ? json_object_get_member (json_node_get_object (s), "all") : NULL;

      n = all != NULL && JSON_NODE_HOLDS_OBJECT (all)
          ? json_object_get_member (json_node_get_object (all), metric) : NULL;
    }
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  if (json_node_get_value_type (n) != G_TYPE_INT64 && json_node_get_value_type (n) != G_TYPE_DOUBLE)
    return NAN;
  return json_node_get_double (n);
}

/**
 * nk_memory_stats_read:
 * @root: `torch.cuda.memory_stats()` as JSON
 * @out: (out caller-allocates): what it measured
 * @error: when @root is no memory_stats object (no allocated_bytes and
 *   reserved_bytes)
 *
 * Reads allocated_bytes, reserved_bytes and active_bytes (current and peak),
 * segment, allocation + inactive_split (the blocks) and num_ooms. memory_stats()
 * has no largest free block, so that and the fragmentation are NAN.
 *
 * Returns: %TRUE when @out holds the figures
 */
gboolean
nk_memory_stats_read (JsonNode         *root,
                      NkMemoryMeasure  *out,
                      GError          **error)
{
  JsonObject *o;
  double ooms;

  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto not_stats;
  o = json_node_get_object (root);
  out->source = NK_MEMORY_SOURCE_STATS;
  out->allocated = stat_at (o, "allocated_bytes", "current");
  out->reserved = stat_at (o, "reserved_bytes", "current");
  if (isnan (out->allocated) || isnan (out->reserved))
    goto not_stats;
  out->active = stat_at (o, "active_bytes", "current");
  out->peak_allocated = stat_at (o, "allocated_bytes", "peak");
  out->peak_reserved = stat_at (o, "reserved_bytes", "peak");
  out->segments = stat_at (o, "segment", "current");
  out->blocks = stat_at (o, "allocation", "current") + stat_at (o, "inactive_split", "current");
  for (guint s = 0; s < NK_MEMORY_N_BLOCK_STATES; s++)
    out->block_count[s] = out->block_bytes[s] = NAN;
  out->largest_free_block = out->fragmentation = NAN;
  out->free_bytes = isnan (out->active) ? NAN : out->reserved - out->active;
  ooms = stat_at (o, "num_ooms", NULL);
  out->ooms = isnan (ooms) ? 0 : ooms;
  out->timeline_device = -1;
  return TRUE;

not_stats:
  memset (out, 0, sizeof *out);
  g_set_error_literal (error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT,
                       _("This JSON is not torch.cuda.memory_stats(): it has no allocated_bytes.all.current and reserved_bytes.all.current."));
  return FALSE;
}

static gboolean
stats_load (const char       *path,
            NkMemoryMeasure  *out,
            GError          **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  gsize len = 0;

  if (!nk_file_read_regular (path, NK_MEMORY_STATS_MAX_BYTES, &text, &len, error))
    return FALSE;
  if (!json_parser_load_from_data (parser, text, (gssize) len, error))
    return FALSE;
  return nk_memory_stats_read (json_parser_get_root (parser), out, error);
}

/**
 * nk_memory_load:
 * @path: a `_dump_snapshot()` pickle or a memory_stats JSON file
 * @out: (out caller-allocates): what it measured
 * @error: one sentence naming @path
 *
 * Reads either file, told apart by content (nk_memory_sniff()).
 *
 * Returns: %TRUE when @out holds the figures
 */
gboolean
nk_memory_load (const char       *path,
                NkMemoryMeasure  *out,
                GError          **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  if (!nk_file_check_regular (path, error))
    return FALSE;
  switch (nk_memory_sniff_file (path))
    {
    case NK_MEMORY_SOURCE_SNAPSHOT:
      return nk_memory_snapshot_load (path, out, error);
    case NK_MEMORY_SOURCE_STATS:
      if (stats_load (path, out, &local))
        return TRUE;
      break;
    case NK_MEMORY_SOURCE_NONE:
    default:
      g_set_error_literal (&local, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_UNKNOWN_FORMAT,
                           _("neither a PyTorch memory snapshot (a pickle) nor torch.cuda.memory_stats() as JSON."));
      break;
    }
  name = g_filename_display_name (path);
  if (strstr (local->message, name) != NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  else
    g_set_error (error, local->domain, local->code, "“%s”: %s", name, local->message);
  return FALSE;
}

/**
 * nk_memory_planned_read:
 * @root: a plan's JSON (`napkin-cli plan --json`)
 * @planned: (array fixed-size=6) (out caller-allocates): bytes per #NkMemoryBucket,
 *   NAN where the plan lacks one
 * @error: when @root has no "memory" object with a per_gpu or total
 *
 * %TRUE when the plan has memory figures.
 *
 * Returns: %TRUE when the plan has memory figures
 */
gboolean
nk_memory_planned_read (JsonNode  *root,
                        double    *planned,
                        GError   **error)
{
  JsonNode *m = NULL;

  g_return_val_if_fail (planned != NULL, FALSE);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    m = json_object_get_member (json_node_get_object (root), "memory");
  for (guint b = 0; b < NK_MEMORY_N_BUCKETS; b++)
    planned[b] = m != NULL && JSON_NODE_HOLDS_OBJECT (m) ? stat_at (json_node_get_object (m), bucket_names[b], NULL) : NAN;
  if (isnan (planned[NK_MEMORY_BUCKET_PER_GPU]) && isnan (planned[NK_MEMORY_BUCKET_TOTAL]))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("This is not a plan from “napkin-cli plan --json” (no memory.per_gpu or memory.total)."));
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_memory_planned_load:
 * @path: a plan's JSON file
 * @planned: (array fixed-size=6) (out caller-allocates): bytes per #NkMemoryBucket
 * @error: one sentence naming @path
 *
 * %TRUE when the plan file has memory figures.
 *
 * Returns: %TRUE when the plan file has memory figures
 */
gboolean
nk_memory_planned_load (const char  *path,
                        double      *planned,
                        GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, FALSE);
  if (!nk_file_read_regular (path, ((goffset) 16) << 20, &text, &len, error))
    return FALSE;
  if (json_parser_load_from_data (parser, text, (gssize) len, &local)
      && nk_memory_planned_read (json_parser_get_root (parser), planned, &local))
    return TRUE;
  name = g_filename_display_name (path);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "“%s”: %s", name, local->message);
  return FALSE;
}

/**
 * nk_memory_compare:
 * @measure: what PyTorch measured
 * @planned: (array fixed-size=6): the plan's bytes per #NkMemoryBucket
 * @out: (out caller-allocates): the two side by side
 *
 * Sets each measured figure beside the plan's per-GPU memory (its total where the
 * plan has no per-GPU figure) and each bucket's share of it.
 */
void
nk_memory_compare (const NkMemoryMeasure *measure,
                   const double          *planned,
                   NkMemoryComparison    *out)
{
  double per_gpu, total;

  g_return_if_fail (measure != NULL && planned != NULL && out != NULL);
  total = planned[NK_MEMORY_BUCKET_TOTAL];
  per_gpu = isnan (planned[NK_MEMORY_BUCKET_PER_GPU]) ? total : planned[NK_MEMORY_BUCKET_PER_GPU];
  for (guint b = 0; b < NK_MEMORY_N_BUCKETS; b++)
    {
      out->planned[b] = planned[b];
      out->per_gpu_share[b] = total > 0 ? planned[b] * (per_gpu / total) : NAN;
    }
  out->measured[NK_MEMORY_MEASURED_ALLOCATED] = measure->allocated;
  out->measured[NK_MEMORY_MEASURED_PEAK_ALLOCATED] = measure->peak_allocated;
  out->measured[NK_MEMORY_MEASURED_RESERVED] = measure->reserved;
  for (guint m = 0; m < NK_MEMORY_N_MEASURED; m++)
    out->ratio[m] = per_gpu > 0 && isfinite (per_gpu) ? out->measured[m] / per_gpu : NAN;
}
