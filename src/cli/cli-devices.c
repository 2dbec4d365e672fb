/* cli-devices.c: `napkin-cli devices`, the CPU with its derived peak, and CUDA devices
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>

#include "cli-common.h"
#include "nk-blas.h"
#include "nk-cpuinfo.h"
#include "nk-device.h"
#include "nk-gpus.h"
#include "nk-json.h"
#include "nk-units.h"

static void
print_cpu (gboolean json)
{
  const NkCpuInfo *cpu = nk_cpu_info_get ();

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, "cpu");
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, "cpu");
      json_builder_set_member_name (b, "model");
      json_builder_add_string_value (b, cpu->model);
      json_builder_set_member_name (b, "cores");
      json_builder_add_int_value (b, cpu->cores);
      json_builder_set_member_name (b, "logical_processors");
      json_builder_add_int_value (b, cpu->logical);
      json_builder_set_member_name (b, "simd");
      json_builder_add_string_value (b, cpu->simd);
      json_builder_set_member_name (b, "fp32_lanes");
      json_builder_add_int_value (b, cpu->lanes_fp32);
      json_builder_set_member_name (b, "fma_units");
      json_builder_add_int_value (b, cpu->fma_units);
      nk_json_add_member_double (b, "clock_hz", cpu->clock_hz);
      json_builder_set_member_name (b, "clock_source");
      json_builder_add_string_value (b, cpu->clock_source);
      json_builder_set_member_name (b, "peak");
      json_builder_begin_object (b);
      nk_json_add_member_double (b, "fp32", cpu->peak_fp32);
      nk_json_add_member_double (b, "fp64", cpu->peak_fp64);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "derivation");
      json_builder_add_string_value (b, cpu->derivation);
      json_builder_set_member_name (b, "blas_kernels");
      json_builder_add_string_value (b, nk_blas_get_kernels ());
      json_builder_end_object (b);
      nk_cli_print_json (b);
    }
  else
    {
      g_autofree char *peak = nk_units_format_rate (cpu->peak_fp32);

      printf (_("cpu     %s\n"), cpu->model);
      printf (_("        %u cores (%u logical processors), %s, %u FMA units per core\n"),
              cpu->cores, cpu->logical, cpu->simd, cpu->fma_units);
      printf (_("        peak fp32 %s = %s\n"), peak, cpu->derivation);
      printf (_("        OpenBLAS kernels: %s\n"), nk_blas_get_kernels ());
    }
}

int
nk_cli_devices_main (int    argc,
                     char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) devices = NULL;
  gboolean json = FALSE;
  int exit_code;
  NkDevice *cuda;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("One JSON object per device"), NULL },
    { NULL }
  };

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, _("List the CPU (with its derived peak FLOP/s) and the CUDA devices, or why there are none."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!nk_cli_parse_options (context, &argc, &argv, nk_cli_wants_json (argc, argv), &exit_code))
    return exit_code;
  if (argc > 1)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("Unexpected argument “%s”."), argv[1]);

  print_cpu (json);

  cuda = nk_device_lookup ("cuda", &error);
  if (cuda == NULL)
    {
      if (json)
        {
          g_autoptr(JsonBuilder) b = json_builder_new ();

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "id");
          json_builder_add_string_value (b, "cuda");
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, "cuda");
          json_builder_set_member_name (b, "available");
          json_builder_add_boolean_value (b, FALSE);
          json_builder_set_member_name (b, "reason");
          json_builder_add_string_value (b, error->message);
          json_builder_end_object (b);
          nk_cli_print_json (b);
        }
      else
        printf ("cuda    %s\n", error->message);
      return NK_EXIT_OK;
    }

  devices = nk_device_list ();
  for (guint i = 0; i < devices->len; i++)
    {
      NkDevice *d = g_ptr_array_index (devices, i);
      g_autofree char *desc = NULL;
      guint64 free_bytes = 0, total_bytes = 0;

      if (nk_device_get_kind (d) != NK_DEVICE_CUDA)
        continue;
      desc = nk_device_describe (d);
      nk_device_memory_info (d, &free_bytes, &total_bytes, NULL);
      if (json)
        {
          g_autoptr(JsonBuilder) b = json_builder_new ();

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "id");
          json_builder_add_string_value (b, nk_device_get_name (d));
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, "cuda");
          json_builder_set_member_name (b, "available");
          json_builder_add_boolean_value (b, TRUE);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, desc);
          json_builder_set_member_name (b, "memory");
          json_builder_add_int_value (b, (gint64) total_bytes);
          json_builder_end_object (b);
          nk_cli_print_json (b);
        }
      else
        printf ("%-7s %s\n", nk_device_get_name (d), desc);
    }
  return NK_EXIT_OK;
}
