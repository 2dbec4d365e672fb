/* test-json-depth.c: JSON a person hands the app cannot nest its way into a stack overflow
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * json-glib 1.6 recurses once per "[" or "{" with no limit: a file of a hundred
 * thousand of them crashed `napkin-cli import --plan`, `sample --from` and could
 * crash the app at start-up through a run folder's meta.json. Oracles: the
 * nesting depth counted here by construction, and the processes' exit status.
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "nk-json.h"
#include "nk-run-dir.h"
#include "nk-safetensors.h"
#include "nk-test-util.h"

#define DEEP 200000

/* @depth "[" then as many "]" */
static char *
nested (guint depth)
{
  char *text = g_malloc (2 * (gsize) depth + 1);

  memset (text, '[', depth);
  memset (text + depth, ']', depth);
  text[2 * (gsize) depth] = '\0';
  return text;
}

static void
test_depth_limit (void)
{
  g_autofree char *ok = nested (NK_JSON_MAX_DEPTH);
  g_autofree char *over = nested (NK_JSON_MAX_DEPTH + 1);
  g_autofree char *deep = nested (DEEP);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) in_string = g_string_new ("{\"a\": \"");

  g_assert_true (nk_json_check_depth (ok, -1, NULL));
  g_assert_true (nk_json_parser_load (parser, ok, -1, NULL));
  g_assert_false (nk_json_check_depth (over, -1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_assert_false (nk_json_parser_load (parser, deep, -1, &error));
  g_assert_nonnull (strstr (error->message, "512"));
  g_clear_error (&error);
  g_assert_null (nk_json_from_string (deep, &error));
  g_clear_error (&error);

  /* brackets inside a string are text, an escaped quote does not end it */
  for (guint i = 0; i < DEEP; i++)
    g_string_append (in_string, i % 1000 == 0 ? "\\\"[" : "[{");
  g_string_append (in_string, "\"}");
  g_assert_true (nk_json_check_depth (in_string->str, (gssize) in_string->len, NULL));
  g_assert_true (nk_json_parser_load (parser, in_string->str, (gssize) in_string->len, &error));
  g_assert_no_error (error);
}

/* A run folder whose meta.json nests too deep is a sentence, not a crash, and the
 * listing goes on. */
static void
test_run_folder (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("napkin-deep");
  g_autofree char *dir = g_build_filename (root, "20261124-100000-1", NULL);
  g_autofree char *meta = g_build_filename (dir, "meta.json", NULL);
  g_autofree char *deep = nested (DEEP);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  NkRunInfo *info;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (meta, deep, -1, NULL));
  info = nk_run_info_read (dir, &error);
  g_assert_null (info);
  g_assert_nonnull (error);
  g_clear_error (&error);
  runs = nk_run_dir_list (root, &error);
  g_assert_no_error (error);
  g_assert_nonnull (runs);
  nk_test_remove_tree (root);
}

/* A safetensors header nested a hundred thousand deep */
static void
test_safetensors (void)
{
  g_autofree char *deep = nested (DEEP);
  gsize n = strlen (deep);
  g_autofree guint8 *bytes = g_malloc (8 + n);
  g_autoptr(GBytes) file = NULL;
  g_autoptr(GError) error = NULL;
  NkSafetensors *st;

  for (guint i = 0; i < 8; i++)
    bytes[i] = (guint8) (((guint64) n >> (8 * i)) & 0xff);
  memcpy (bytes + 8, deep, n);
  file = g_bytes_new (bytes, 8 + n);
  st = nk_safetensors_new_from_bytes (file, "deep.safetensors", &error);
  g_assert_null (st);
  g_assert_nonnull (error);
}

/* The CLI: a plan nested too deep is one sentence, exit 1 like a bad log (issue 21,
 * item 14). */
static void
test_cli_plan (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-deep-cli");
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  g_autofree char *plan = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *deep = nested (DEEP);
  const char *args[] = { log, "--plan", plan, NULL };
  g_auto(NkTestRun) run = { 0 };

  g_assert_true (g_file_set_contents (log, "iter 1: loss 3.5000, time 250.00ms, mfu 40.00%\n", -1, NULL));
  g_assert_true (g_file_set_contents (plan, deep, -1, NULL));
  if (!nk_test_run_cli (&run, "import", args, NULL, 0))
    return;
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "nests deeper"));
  nk_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/json/depth-limit", test_depth_limit);
  g_test_add_func ("/engine/json/run-folder", test_run_folder);
  g_test_add_func ("/engine/json/safetensors", test_safetensors);
  g_test_add_func ("/engine/json/cli-plan", test_cli_plan);
  return g_test_run ();
}
