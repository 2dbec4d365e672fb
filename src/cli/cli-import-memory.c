/* cli-import-memory.c: `napkin-cli import SNAPSHOT.pickle|STATS.json [--plan PLAN.json]`
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CLI.md, "napkin-cli import": one object {"memory": {"allocated", "reserved",
 * "peak_allocated" (where the source has it), "segments", "blocks",
 * "largest_free_block"}}; added: "source", "active", "peak_reserved",
 * "blocks_by_state", "free", "fragmentation", "trace_entries", "ooms" and the
 * downsampled "timeline" [[time_us, least, most], ...] with its "timeline_device";
 * with --plan, "planned" (the plan's memory buckets, the whole job's, and per_gpu)
 * and "ratio" (allocated, peak_allocated and reserved over the plan's per_gpu).
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "cli-common.h"
#include "cli-import-memory.h"
#include "nk-json.h"

static void
add_if (JsonBuilder *b,
        const char  *name,
        double       v)
{
  if (!isnan (v))
    nk_json_add_member_double (b, name, v);
}

static void
add_blocks_by_state (JsonBuilder           *b,
                     const NkMemoryMeasure *m)
{
  if (isnan (m->block_count[0]))
    return;
  json_builder_set_member_name (b, "blocks_by_state");
  json_builder_begin_object (b);
  for (guint s = 0; s < NK_MEMORY_N_BLOCK_STATES; s++)
    {
      json_builder_set_member_name (b, nk_memory_block_state_name (s));
      json_builder_begin_object (b);
      nk_json_add_member_double (b, "count", m->block_count[s]);
      nk_json_add_member_double (b, "bytes", m->block_bytes[s]);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

static void
add_timeline (JsonBuilder           *b,
              const NkMemoryMeasure *m)
{
  if (m->timeline_device < 0)
    return;
  json_builder_set_member_name (b, "timeline_device");
  json_builder_add_int_value (b, m->timeline_device);
  json_builder_set_member_name (b, "timeline");
  json_builder_begin_array (b);
  for (guint i = 0; i < m->n_timeline; i++)
    {
      json_builder_begin_array (b);
      nk_json_add_double (b, m->timeline[i].time_us);
      nk_json_add_double (b, m->timeline[i].min_bytes);
      nk_json_add_double (b, m->timeline[i].max_bytes);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
}

static void
add_plan (JsonBuilder           *b,
          const NkMemoryMeasure *m,
          const double          *planned)
{
  NkMemoryComparison c;

  nk_memory_compare (m, planned, &c);
  json_builder_set_member_name (b, "planned");
  json_builder_begin_object (b);
  for (guint k = 0; k < NK_MEMORY_N_BUCKETS; k++)
    add_if (b, nk_memory_bucket_name (k), c.planned[k]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "ratio");
  json_builder_begin_object (b);
  for (guint k = 0; k < NK_MEMORY_N_MEASURED; k++)
    add_if (b, nk_memory_measured_name (k), c.ratio[k]);
  json_builder_end_object (b);
}

int
nk_cli_import_memory (const char *path,
                      const char *plan,
                      gboolean    json)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GError) error = NULL;
  NkMemoryMeasure *m = g_new0 (NkMemoryMeasure, 1);
  double planned[NK_MEMORY_N_BUCKETS];
  int code = NK_EXIT_OK;

  /* a plan file that cannot be read is a file that cannot be read (exit 1) */
  if (plan != NULL && !nk_memory_planned_load (plan, planned, &error))
    code = nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  else if (!nk_memory_load (path, m, &error))
    code = nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  if (code != NK_EXIT_OK)
    {
      g_free (m);
      return code;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, m->source == NK_MEMORY_SOURCE_SNAPSHOT ? "snapshot" : "memory_stats");
  add_if (b, "allocated", m->allocated);
  add_if (b, "reserved", m->reserved);
  add_if (b, "active", m->active);
  add_if (b, "peak_allocated", m->peak_allocated);
  add_if (b, "peak_reserved", m->peak_reserved);
  add_if (b, "segments", m->segments);
  add_if (b, "blocks", m->blocks);
  add_blocks_by_state (b, m);
  add_if (b, "largest_free_block", m->largest_free_block);
  add_if (b, "free", m->free_bytes);
  add_if (b, "fragmentation", m->fragmentation);
  nk_json_add_member_double (b, "trace_entries", m->trace_entries);
  nk_json_add_member_double (b, "ooms", m->ooms);
  add_timeline (b, m);
  if (plan != NULL)
    add_plan (b, m, planned);
  json_builder_end_object (b);
  json_builder_end_object (b);
  nk_cli_print_json (b);
  g_free (m);
  return NK_EXIT_OK;
}
