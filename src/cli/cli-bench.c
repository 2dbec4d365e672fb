/* cli-bench.c: `napkin-cli bench matmul`, the measured FLOP/s of C = A·B against the peak
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli-common.h"
#include "nk-cpuinfo.h"
#include "nk-device.h"
#include "nk-device-peak.h"
#include "nk-json.h"
#include "nk-ops.h"
#include "nk-rng.h"
#include "nk-tensor.h"
#include "nk-units.h"

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
device_peak (NkDevice *device,
             NkDType   dtype)
{
  return nk_device_get_peak (device, dtype == NK_DTYPE_BF16 ? NK_PEAK_BF16 : NK_PEAK_FP32);
}

static gboolean
parse_size (const char  *flag,
            const char  *text,
            gint64      *out,
            GError     **error)
{
  double v;

  if (text == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s is required."), flag);
      return FALSE;
    }
  if (!nk_cli_parse_number (flag, text, &v, error))
    return FALSE;
  if (!(v >= 1) || v != floor (v) || v > 1e6)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s must be a whole number from 1 to 1000000, not “%s”."), flag, text);
      return FALSE;
    }
  *out = (gint64) v;
  return TRUE;
}

int
nk_cli_bench_main (int    argc,
                   char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *m_text = NULL, *k_text = NULL, *n_text = NULL, *dtype_text = NULL;
  g_autofree char *device_text = NULL, *runs_text = NULL;
  g_autoptr(NkTensor) a = NULL, b = NULL, c = NULL;
  g_autoptr(NkRng) rng = NULL;
  g_autofree double *times = NULL;
  gboolean json = FALSE;
  gint64 m, k, n, runs = 10;
  NkDType dtype = NK_DTYPE_F32;
  NkDevice *device;
  double flops, median, peak;
  int exit_code;
  const GOptionEntry entries[] = {
    { "m", 0, 0, G_OPTION_ARG_STRING, &m_text, N_("Rows of A and C"), "M" },
    { "k", 0, 0, G_OPTION_ARG_STRING, &k_text, N_("Columns of A, rows of B"), "K" },
    { "n", 0, 0, G_OPTION_ARG_STRING, &n_text, N_("Columns of B and C"), "N" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_text, N_("fp32 (default) or bf16"), "DTYPE" },
    { "device", 0, 0, G_OPTION_ARG_STRING, &device_text, N_("cpu (default) or cuda"), "DEVICE" },
    { "runs", 0, 0, G_OPTION_ARG_STRING, &runs_text, N_("Timed runs after warm-up (default 10)"), "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print one JSON object"), NULL },
    { NULL }
  };

  context = g_option_context_new ("matmul");
  g_option_context_set_summary (context, _("Time C = A·B after warm-up (median of the runs) and compare with the device’s peak."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!nk_cli_parse_options (context, &argc, &argv, nk_cli_wants_json (argc, argv), &exit_code))
    return exit_code;

  if (argc < 2)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("bench needs a benchmark name: “napkin-cli bench matmul --m M --k K --n N”."));
  if (strcmp (argv[1], "matmul") != 0)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("“%s” is not a benchmark; the one there is: “napkin-cli bench matmul --m M --k K --n N”."),
                        argv[1]);
  if (argc > 2)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("Unexpected argument “%s”."), argv[2]);

  if (!parse_size ("--m", m_text, &m, &error) || !parse_size ("--k", k_text, &k, &error)
      || !parse_size ("--n", n_text, &n, &error)
      || (runs_text != NULL && !parse_size ("--runs", runs_text, &runs, &error)))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);

  if (dtype_text == NULL || strcmp (dtype_text, "fp32") == 0 || strcmp (dtype_text, "f32") == 0)
    dtype = NK_DTYPE_F32;
  else if (strcmp (dtype_text, "bf16") == 0)
    dtype = NK_DTYPE_BF16;
  else
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--dtype: “%s” is not fp32 or bf16."), dtype_text);

  /* A malformed name (cuda:abc) is bad input before any driver is asked. */
  if (device_text != NULL && !nk_cli_check_device_name ("--device", device_text, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
  device = nk_device_lookup (device_text != NULL ? device_text : "cpu", &error);
  /* A CUDA device that is missing is exit 1 (CLI.md); a name that is no device is bad usage. */
  if (device == NULL)
    return nk_cli_fail_error (json,
                              device_text != NULL && g_str_has_prefix (device_text, "cuda")
                              ? NK_EXIT_UNSATISFIABLE : NK_EXIT_USAGE, error);
  /* Random operands (zeros would let nothing be skipped either, but look suspicious),
   * drawn on the CPU and moved to the device: a device tensor has no host address. */
  rng = nk_rng_new (1);
  {
    g_autoptr(NkTensor) a32 = nk_tensor_empty (NK_DTYPE_F32, NK_SHAPE (m, k), &error);
    g_autoptr(NkTensor) b32 = a32 != NULL ? nk_tensor_empty (NK_DTYPE_F32, NK_SHAPE (k, n), &error) : NULL;
    g_autoptr(NkTensor) a_host = NULL, b_host = NULL;

    if (b32 == NULL)
      return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
    nk_rng_fill_normal_f32 (rng, nk_tensor_data_f32 (a32), m * k, 0.0, 1.0);
    nk_rng_fill_normal_f32 (rng, nk_tensor_data_f32 (b32), k * n, 0.0, 1.0);
    a_host = nk_cast (a32, dtype, &error);
    b_host = a_host != NULL ? nk_cast (b32, dtype, &error) : NULL;
    a = b_host != NULL ? nk_tensor_to_device (a_host, device, &error) : NULL;
    b = a != NULL ? nk_tensor_to_device (b_host, device, &error) : NULL;
    nk_device_set_default (device);
    c = b != NULL ? nk_tensor_empty (dtype, NK_SHAPE (m, n), &error) : NULL;
    if (c == NULL)
      return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  }

  times = g_new (double, runs);
  for (gint64 r = -3; r < runs; r++)
    {
      double t0 = now_seconds ();

      if (!nk_matmul_out (c, a, b, 1.0, 0.0, &error) || !nk_device_synchronize (device, &error))
        return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
      if (r >= 0)
        times[r] = now_seconds () - t0;
    }
  qsort (times, runs, sizeof (double), compare_double);
  median = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
  flops = 2.0 * (double) m * (double) k * (double) n;
  peak = device_peak (device, dtype);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "m");
      json_builder_add_int_value (builder, m);
      json_builder_set_member_name (builder, "k");
      json_builder_add_int_value (builder, k);
      json_builder_set_member_name (builder, "n");
      json_builder_add_int_value (builder, n);
      json_builder_set_member_name (builder, "dtype");
      json_builder_add_string_value (builder, dtype == NK_DTYPE_BF16 ? "bf16" : "fp32");
      json_builder_set_member_name (builder, "device");
      json_builder_add_string_value (builder, nk_device_get_name (device));
      nk_json_add_member_double (builder, "flops", flops);
      nk_json_add_member_double (builder, "seconds", median);
      nk_json_add_member_double (builder, "flops_per_s", flops / median);
      nk_json_add_member_double (builder, "peak_flops_per_s", peak);
      nk_json_add_member_double (builder, "mfu", flops / median / peak);
      json_builder_set_member_name (builder, "runs");
      json_builder_add_int_value (builder, runs);
      json_builder_end_object (builder);
      nk_cli_print_json (builder);
    }
  else
    {
      g_autofree char *time = nk_units_format_duration (median);
      g_autofree char *rate = nk_units_format_rate (flops / median);
      g_autofree char *peak_text = nk_units_format_rate (peak);

      printf (_("matmul %" PRId64 "×%" PRId64 " · %" PRId64 "×%" PRId64 " (%s, %s)\n"),
              m, k, k, n, dtype == NK_DTYPE_BF16 ? "bf16" : "fp32", nk_device_get_name (device));
      printf (_("  flops             %.4g (2·M·K·N)\n"), flops);
      printf (_("  seconds           %s (median of %" PRId64 " runs after 3 warm-up runs)\n"), time, runs);
      printf (_("  flops_per_s       %s\n"), rate);
      printf (_("  peak_flops_per_s  %s\n"), peak_text);
      printf (_("  mfu               %.1f%%\n"), 100.0 * flops / median / peak);
    }
  return NK_EXIT_OK;
}
