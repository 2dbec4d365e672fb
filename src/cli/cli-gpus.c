/* cli-gpus.c: napkin-cli gpus: the GPU table with its sources
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "nk-gpus.h"
#include "nk-json.h"

/* CLI.md: a missing unit is null, not "nan": it is absent, not a failed number. */
static void
add_figure (JsonBuilder *builder,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (builder, name);
  if (isfinite (value))
    nk_json_add_double (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_peaks (JsonBuilder  *builder,
           const char   *name,
           const double *peaks)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  for (int i = 0; i < NK_PEAK_N_DTYPES; i++)
    add_figure (builder, nk_peak_dtype_to_string (i), peaks[i]);
  json_builder_end_object (builder);
}

static void
print_json (const NkGpu *gpu)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, gpu->id);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, gpu->name);
  add_figure (builder, "memory", gpu->memory);
  add_figure (builder, "bandwidth", gpu->bandwidth);
  add_figure (builder, "memory_reported", gpu->memory_reported);
  add_figure (builder, "nvlink_bandwidth", gpu->nvlink_bandwidth);
  add_figure (builder, "network_bandwidth", gpu->network_bandwidth);
  json_builder_set_member_name (builder, "nvlink_domain");
  json_builder_add_int_value (builder, gpu->nvlink_domain);
  add_peaks (builder, "peak", gpu->peak);
  add_peaks (builder, "peak_sparse", gpu->peak_sparse);
  json_builder_set_member_name (builder, "achievable");
  json_builder_begin_object (builder);
  add_figure (builder, "bf16", gpu->achievable[NK_PEAK_BF16]);
  add_figure (builder, "fp8", gpu->achievable[NK_PEAK_FP8]);
  json_builder_end_object (builder);
  if (gpu->achievable_source[0] != '\0')
    {
      json_builder_set_member_name (builder, "achievable_source");
      json_builder_add_string_value (builder, gpu->achievable_source);
    }
  json_builder_set_member_name (builder, "cuda_names");
  json_builder_begin_array (builder);
  for (guint i = 0; gpu->cuda_names[i] != NULL; i++)
    json_builder_add_string_value (builder, gpu->cuda_names[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "source");
  json_builder_add_string_value (builder, gpu->source);
  if (gpu->interconnect_source != NULL && gpu->interconnect_source[0] != '\0')
    {
      json_builder_set_member_name (builder, "interconnect_source");
      json_builder_add_string_value (builder, gpu->interconnect_source);
    }
  if (gpu->notes != NULL && gpu->notes[0] != '\0')
    {
      json_builder_set_member_name (builder, "notes");
      json_builder_add_string_value (builder, gpu->notes);
    }
  json_builder_end_object (builder);
  nk_cli_print_json (builder);
}

/* Datasheet style for people: decimal units, as the table stores them. */
static char *
cell (double value,
      double scale,
      const char *unit)
{
  if (!isfinite (value))
    return g_strdup ("—");
  return g_strdup_printf ("%g%s", value / scale, unit);
}

static void
print_cell (const char *text,
            int         width)
{
  glong len = g_utf8_strlen (text, -1);

  printf ("%*s%s", (int) MAX (0, width - len), "", text);
}

static void
print_table (const GPtrArray *table)
{
  static const NkPeakDtype columns[] = { NK_PEAK_FP32, NK_PEAK_TF32, NK_PEAK_BF16,
                                         NK_PEAK_FP16, NK_PEAK_FP8, NK_PEAK_FP4 };

  printf ("%-13s", _("id"));
  print_cell (_("memory"), 8);
  print_cell (_("bandwidth"), 11);
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    print_cell (nk_peak_dtype_to_string (columns[c]), 9);
  print_cell (_("bf16 sparse"), 13);
  printf ("  %s\n", _("name"));

  for (guint i = 0; i < table->len; i++)
    {
      const NkGpu *gpu = g_ptr_array_index (table, i);
      g_autofree char *memory = cell (gpu->memory, 1e9, " GB");
      g_autofree char *bandwidth = cell (gpu->bandwidth, 1e12, " TB/s");
      g_autofree char *sparse = cell (gpu->peak_sparse[NK_PEAK_BF16], 1e12, "");

      printf ("%-13s", gpu->id);
      print_cell (memory, 8);
      print_cell (bandwidth, 11);
      for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
        {
          g_autofree char *peak = cell (gpu->peak[columns[c]], 1e12, "");

          print_cell (peak, 9);
        }
      print_cell (sparse, 13);
      printf ("  %s\n", gpu->name);
    }
  printf ("\n%s\n", _("Peaks are dense TFLOP/s (bf16 sparse: with 2:4 structured sparsity). "
                      "Memory as the datasheet gives it (GB = 1e9 B)."));
  printf ("%s\n", _("Run “napkin-cli gpus ID” for a GPU’s sources and notes, --json for every figure."));
}

static void
print_details (const NkGpu *gpu)
{
  g_autofree char *memory = cell (gpu->memory, 1e9, " GB");
  g_autofree char *bandwidth = cell (gpu->bandwidth, 1e12, " TB/s");
  g_autofree char *reported = cell (gpu->memory_reported, 1e9, " GB");
  g_autofree char *nvlink = cell (gpu->nvlink_bandwidth, 1e9, " GB/s each way");
  g_autofree char *network = cell (gpu->network_bandwidth, 1e9, " GB/s per GPU");

  printf ("%s (%s)\n", gpu->name, gpu->id);
  printf ("  %-12s %s\n", _("memory"), memory);
  printf ("  %-12s %s\n", _("bandwidth"), bandwidth);
  if (isfinite (gpu->memory_reported))
    printf ("  %-12s %s (%.0f MiB)\n", _("reported"), reported, gpu->memory_reported / 1048576.0);
  printf ("  %-12s %s\n", _("NVLink"), nvlink);
  printf ("  %-12s ", _("domain"));
  printf (g_dngettext (GETTEXT_PACKAGE, "%u GPU on one NVLink", "%u GPUs on one NVLink",
                       gpu->nvlink_domain),
          gpu->nvlink_domain);
  printf ("\n");
  printf ("  %-12s %s\n", _("network"), network);
  printf ("  %-12s %14s %14s %14s\n", _("TFLOP/s"), _("dense"), _("2:4 sparse"), _("measured"));
  for (int i = 0; i < NK_PEAK_N_DTYPES; i++)
    {
      g_autofree char *dense = cell (gpu->peak[i], 1e12, "");
      g_autofree char *sparse = cell (gpu->peak_sparse[i], 1e12, "");
      g_autofree char *measured = cell (gpu->achievable[i], 1e12, "");

      printf ("  %-12s", nk_peak_dtype_to_string (i));
      print_cell (dense, 15);
      print_cell (sparse, 15);
      print_cell (measured, 15);
      printf ("\n");
    }
  if (gpu->cuda_names[0] != NULL)
    {
      g_autofree char *names = g_strjoinv (", ", gpu->cuda_names);

      printf ("  %-12s %s\n", _("CUDA names"), names);
    }
  printf ("  %-12s %s\n", _("source"), gpu->source);
  if (gpu->interconnect_source != NULL && gpu->interconnect_source[0] != '\0')
    printf ("  %-12s %s\n", _("interconnect"), gpu->interconnect_source);
  if (gpu->achievable_source[0] != '\0')
    printf ("  %-12s %s\n", _("measured"), gpu->achievable_source);
  if (gpu->notes != NULL && gpu->notes[0] != '\0')
    printf ("  %-12s %s\n", _("notes"), gpu->notes);
}

int
nk_cli_gpus_main (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  gboolean json = nk_cli_wants_json (argc, argv);
  gboolean want_json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &want_json, N_("One JSON object per GPU"), NULL },
    { NULL }
  };
  const GPtrArray *table;
  int exit_code;

  context = g_option_context_new (_("[ID…] — the GPU table: memory, bandwidth, peaks and their sources"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!nk_cli_parse_options (context, &argc, &argv, json, &exit_code))
    return exit_code;
  json = json || want_json;

  table = nk_gpus_get_all ();
  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!nk_gpus_check_id (argv[i], &error))
        return nk_cli_fail (json, NK_EXIT_USAGE, "%s", error->message);
    }

  if (argc > 1)
    {
      for (int i = 1; i < argc; i++)
        {
          const NkGpu *gpu = nk_gpus_lookup (argv[i]);

          if (json)
            print_json (gpu);
          else
            {
              if (i > 1)
                printf ("\n");
              print_details (gpu);
            }
        }
    }
  else if (json)
    for (guint i = 0; i < table->len; i++)
      print_json (g_ptr_array_index (table, i));
  else
    print_table (table);
  return NK_EXIT_OK;
}
