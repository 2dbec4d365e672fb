/* cli-import.c: `napkin-cli import`, another engine's log or a TensorBoard folder as steps
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CLI.md, "napkin-cli import": one JSON object per step, then {"done": true, "format",
 * "steps", "skipped_lines"}; with --plan each step carries the plan's prediction. The
 * output is JSON lines with or without --json-lines (the contract describes only that
 * output; the flag makes errors JSON too).
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "nk-json.h"
#include "nk-log-import.h"

typedef struct {
  double seconds, tokens_per_s, mfu, memory_max_bytes;
} Predicted;

/* The first member named @name in @node, depth first (the cluster fields may sit at the
 * top level or inside an object of the plan). */
static JsonNode *
find_member (JsonNode   *node,
             const char *name,
             int         depth)
{
  JsonObject *o;
  g_autoptr(GList) members = NULL;

  if (node == NULL || depth > 8 || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  o = json_node_get_object (node);
  if (json_object_has_member (o, name))
    return json_object_get_member (o, name);
  members = json_object_get_members (o);
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *hit = find_member (json_object_get_member (o, l->data), name, depth + 1);
      if (hit != NULL)
        return hit;
    }
  return NULL;
}

static double
number_at (JsonNode   *root,
           const char *outer,
           const char *inner)
{
  JsonNode *n = find_member (root, outer, 0);

  if (n != NULL && inner != NULL)
    n = JSON_NODE_HOLDS_OBJECT (n) ? json_object_get_member (json_node_get_object (n), inner) : NULL;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  if (json_node_get_value_type (n) != G_TYPE_DOUBLE && json_node_get_value_type (n) != G_TYPE_INT64)
    return NAN;
  return json_node_get_double (n);
}

static gboolean
read_plan (const char *path,
           Predicted  *p,
           GError    **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (!json_parser_load_from_file (parser, path, error))
    return FALSE;
  root = json_parser_get_root (parser);
  p->seconds = number_at (root, "time_per_step", "total");
  p->tokens_per_s = number_at (root, "tokens_per_s", NULL);
  p->mfu = number_at (root, "mfu_model", NULL);
  p->memory_max_bytes = number_at (root, "memory", "per_gpu_max");
  if (isnan (p->seconds) && isnan (p->tokens_per_s) && isnan (p->mfu) && isnan (p->memory_max_bytes))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a plan from “napkin-cli plan --json” (no time_per_step, tokens_per_s, mfu_model or memory)."),
                   path);
      return FALSE;
    }
  return TRUE;
}

static void
add_if (JsonBuilder *b,
        const char  *name,
        double       v)
{
  if (!isnan (v))
    nk_json_add_member_double (b, name, v);
}

static void
print_step (const NkImportStep *s,
            const Predicted    *p)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "step");
  json_builder_add_int_value (b, s->step);
  add_if (b, "loss", s->loss);
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

static void
print_done (const NkImport *import)
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
  gboolean json = FALSE;
  NkLogFormat format = NK_LOG_FORMAT_AUTO;
  Predicted predicted;
  int exit_code;

  const GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_text,
      N_("auto (default), torchtitan, megatron, deepspeed, nanogpt, llmc or tensorboard"), "FORMAT" },
    { "plan", 0, 0, G_OPTION_ARG_FILENAME, &plan,
      N_("A plan from “napkin-cli plan --json”: each step carries its prediction"), "PLAN.json" },
    { "json-lines", 0, 0, G_OPTION_ARG_NONE, &json, N_("Errors as JSON too"), NULL },
    { NULL }
  };

  context = g_option_context_new ("FILE|DIR");
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
  if (plan != NULL && !read_plan (plan, &predicted, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);

  import = nk_log_import (argv[1], format, &error);
  if (import == NULL)
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  for (guint i = 0; i < import->steps->len; i++)
    print_step (&g_array_index (import->steps, NkImportStep, i), plan != NULL ? &predicted : NULL);
  print_done (import);
  return NK_EXIT_OK;
}
