/* cli-import.c: `napkin-cli import`, another engine's log or a TensorBoard folder as steps
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CLI.md, "napkin-cli import": one JSON object per step, then {"done": true, "format",
 * "steps", "skipped_lines"} (and, added, "rejected_lines" and "replaced_steps"); with --plan each step carries the plan's prediction. The
 * output is JSON lines with or without --json-lines (the contract describes only that
 * output; the flag makes errors JSON too).
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "nk-json.h"
#include "nk-import-plan.h"
#include "nk-log-import.h"
#include "cli-import-follow.h"
#include "cli-import-memory.h"

static void
add_if (JsonBuilder *b,
        const char  *name,
        double       v)
{
  if (!isnan (v))
    nk_json_add_member_double (b, name, v);
}

void
nk_cli_import_print_step (const NkImportStep       *s,
                          const NkImportPrediction *p)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "step");
  json_builder_add_int_value (b, s->step);
  /* a diverged run's loss is "nan" or "inf" (CLI.md's non-finite strings) */
  if (s->present & NK_IMPORT_FIELD_LOSS)
    nk_json_add_member_double (b, "loss", s->loss);
  add_if (b, "tokens_per_s", s->tokens_per_s);
  add_if (b, "tflops_per_gpu", s->tflops_per_gpu);
  add_if (b, "mfu", s->mfu);
  add_if (b, "memory_max_bytes", s->memory_max_bytes);
  add_if (b, "seconds", s->seconds);
  if (p != NULL)
    {
      json_builder_set_member_name (b, "predicted");
      json_builder_begin_object (b);
      add_if (b, "seconds", p->seconds);
      add_if (b, "tokens_per_s", p->tokens_per_s);
      add_if (b, "mfu", p->mfu);
      add_if (b, "memory_max_bytes", p->memory_max_bytes);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  nk_cli_print_json (b);
}

/* The run's typical step beside the plan (an addition to CLI.md's done line). */
static void
add_comparison (JsonBuilder              *b,
                const NkImportPrediction *p,
                const NkImport           *import)
{
  NkImportComparison c;

  nk_import_compare (p, import, &c);
  json_builder_set_member_name (b, "comparison");
  json_builder_begin_object (b);
  for (guint q = 0; q < NK_IMPORT_N_QUANTITIES; q++)
    {
      json_builder_set_member_name (b, nk_import_quantity_name (q));
      json_builder_begin_object (b);
      add_if (b, "predicted", c.predicted[q]);
      add_if (b, "measured", c.measured[q]);
      add_if (b, "ratio", c.ratio[q]);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "largest_gap");
  if (c.largest >= 0)
    json_builder_add_string_value (b, nk_import_quantity_name (c.largest));
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

/* What the steps leave out, said on stderr (the output stays JSON lines). */
static void
warn_about (const NkImport *import)
{
  if (import->rejected_lines > 0)
    {
      g_autofree char *what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "Skipped %u line whose values no run can have (%s).",
                                                            "Skipped %u lines whose values no run can have (the first: %s).",
                                                            import->rejected_lines),
                                               import->rejected_lines, import->first_rejected);
      g_printerr (_("napkin-cli: warning: %s\n"), what);
    }
  if (import->replaced_steps > 0)
    {
      g_autofree char *what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u step was logged again after a later step (a restarted run); the later line is kept.",
                                                            "%u steps were logged again after a later step (a restarted run); the later lines are kept.",
                                                            import->replaced_steps),
                                               import->replaced_steps);
      g_printerr (_("napkin-cli: warning: %s\n"), what);
    }
}

/* @ended: why --follow ended (nk_log_follow_end_to_string()), or NULL */
void
nk_cli_import_print_done (const NkImport           *import,
                          const NkImportPrediction *p,
                          const char               *ended)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "done");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, nk_log_format_to_string (import->format));
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, import->steps->len);
  json_builder_set_member_name (b, "skipped_lines");
  json_builder_add_int_value (b, import->skipped_lines);
  json_builder_set_member_name (b, "rejected_lines");
  json_builder_add_int_value (b, import->rejected_lines);
  json_builder_set_member_name (b, "replaced_steps");
  json_builder_add_int_value (b, import->replaced_steps);
  if (ended != NULL)
    {
      json_builder_set_member_name (b, "ended");
      json_builder_add_string_value (b, ended);
    }
  if (p != NULL)
    add_comparison (b, p, import);
  json_builder_end_object (b);
  nk_cli_print_json (b);
}

int
nk_cli_import_main (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) import = NULL;
  g_autofree char *format_text = NULL, *plan = NULL;
  g_autofree char *idle_text = NULL;
  gboolean json = FALSE, follow = FALSE;
  double idle_exit = 0;
  NkLogFormat format = NK_LOG_FORMAT_AUTO;
  NkImportPrediction predicted;
  int exit_code;

  const GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_text,
      N_("auto (default), torchtitan, megatron, deepspeed, nanogpt, llmc or tensorboard"), "FORMAT" },
    { "plan", 0, 0, G_OPTION_ARG_FILENAME, &plan,
      N_("A plan from “napkin-cli plan --json”: each step carries its prediction"), "PLAN.json" },
    { "json-lines", 0, 0, G_OPTION_ARG_NONE, &json, N_("Errors as JSON too"), NULL },
    { "follow", 0, 0, G_OPTION_ARG_NONE, &follow,
      N_("Follow a log still being written: each step as soon as its line is complete"), NULL },
    { "idle-exit", 0, 0, G_OPTION_ARG_STRING, &idle_text,
      N_("With --follow: end after this many seconds without growth"), "SECONDS" },
    { NULL }
  };

  context = g_option_context_new ("FILE|DIR|SNAPSHOT.pickle|STATS.json");
  g_option_context_set_summary (context,
                                _("Read a torchtitan, Megatron-LM, DeepSpeed, nanoGPT or llm.c log, or a TensorBoard folder, as steps."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!nk_cli_parse_options (context, &argc, &argv, nk_cli_wants_json (argc, argv), &exit_code))
    return exit_code;
  if (argc < 2)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("import needs a log file or folder."));
  if (argc > 2)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("Unexpected argument “%s”."), argv[2]);
  if (format_text != NULL && !nk_log_format_from_string (format_text, &format))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--format must be auto, torchtitan, megatron, deepspeed, nanogpt, llmc or tensorboard, not “%s”."),
                        format_text);
  /* a PyTorch memory snapshot or memory_stats JSON, told apart by content */
  if (!follow && format == NK_LOG_FORMAT_AUTO && nk_memory_sniff_file (argv[1]) != NK_MEMORY_SOURCE_NONE)
    return nk_cli_import_memory (argv[1], plan, json);
  if (idle_text != NULL && !nk_cli_import_parse_idle_exit (follow, idle_text, &idle_exit, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
  /* a plan file that cannot be read is a file that cannot be read, as a log is (exit 1) */
  if (plan != NULL && !nk_import_plan_load (plan, &predicted, &error))
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);

  if (follow)
    return nk_cli_import_follow (argv[1], format, idle_exit, plan != NULL ? &predicted : NULL, json);
  import = nk_log_import (argv[1], format, &error);
  if (import == NULL)
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  /* each step's predicted MFU on the log's own FLOP count, as the comparison */
  if (plan != NULL)
    predicted.mfu = nk_import_prediction_get_mfu (&predicted, import->format, NULL);
  for (guint i = 0; i < import->steps->len; i++)
    nk_cli_import_print_step (&g_array_index (import->steps, NkImportStep, i),
                              plan != NULL ? &predicted : NULL);
  nk_cli_import_print_done (import, plan != NULL ? &predicted : NULL, NULL);
  warn_about (import);
  return NK_EXIT_OK;
}
