/* test-cli-sample.c: `napkin-cli sample`: run folders, JSON in any bytes, text as it comes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 21, items 13 and 15. Oracles: the same seed draws the same tokens whatever
 * the folder was named by and however many tokens were asked for (so a run folder
 * samples what its checkpoints/ samples, and the first bytes streamed are the first
 * bytes of a short run's text); the strict RFC 8259 checker of tests/common; and the
 * process's own end (killed by the test, not exited).
 */
#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>

#include "nk-test-json.h"
#include "nk-test-util.h"

static char *tmpdir;

/* A byte-level GPT trained for one step in run folder @name (block size @block). */
static char *
train_run (const char *name,
           const char *embd,
           const char *block)
{
  g_autofree char *text = g_build_filename (tmpdir, "text.txt", NULL);
  char *dir = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GString) corpus = g_string_new (NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "--model", "gpt", "--n-layer", "1", "--n-head", "2", "--n-embd", embd,
                         "--block-size", block, "--batch", "1", "--steps", "1", "--text", text,
                         "--run-dir", dir, NULL };

  for (guint i = 0; i < 64; i++)
    g_string_append (corpus, "The napkin counts every byte it moves. ");
  g_assert_true (g_file_set_contents (text, corpus->str, corpus->len, NULL));
  g_assert_cmpint (nk_test_cli ("train", args, NULL, &err), ==, 0);
  return dir;
}

/* sample --from RUN_DIR reads the newest checkpoint in RUN_DIR/checkpoints, as
 * --resume does (before: "no checkpoint" in the run folder itself, exit 1). */
static void
test_from_run_dir (void)
{
  g_autofree char *run = NULL, *ckdir = NULL;
  g_auto(NkTestRun) a = { 0 };
  g_auto(NkTestRun) b = { 0 };

  if (nk_test_cli_path () == NULL)
    return;
  run = train_run ("small", "8", "8");
  ckdir = g_build_filename (run, "checkpoints", NULL);
  {
    const char *args[] = { "--from", run, "--prompt", "The", "--tokens", "40", "--seed", "7",
                           "--json", NULL };

    g_assert_true (nk_test_run_cli (&a, "sample", args, NULL, 0));
  }
  {
    const char *args[] = { "--from", ckdir, "--prompt", "The", "--tokens", "40", "--seed", "7",
                           "--json", NULL };

    g_assert_true (nk_test_run_cli (&b, "sample", args, NULL, 0));
  }
  g_test_message ("%s", a.err);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_cmpstr (a.out, ==, b.out);
  g_assert_nonnull (strstr (a.out, "\"tokens\":["));
}

/* At temperature 50 the draws are close to uniform over the 200 most likely bytes:
 * control characters, DEL, bytes that are no UTF-8 and NUL all come out. The line is
 * strict JSON; its tokens are the N asked for (before: a raw 0x1f in the text). */
static void
test_json_any_bytes (void)
{
  g_autofree char *run = NULL, *ckdir = NULL;
  g_auto(NkTestRun) r = { 0 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  gboolean seen_control = FALSE, seen_high = FALSE;
  JsonArray *tokens;

  if (nk_test_cli_path () == NULL)
    return;
  run = train_run ("hot", "8", "8");
  ckdir = g_build_filename (run, "checkpoints", NULL);
  {
    const char *args[] = { "--from", ckdir, "--prompt", "a", "--tokens", "4000", "--temperature",
                           "50", "--seed", "3", "--json", NULL };

    g_assert_true (nk_test_run_cli (&r, "sample", args, NULL, 0));
  }
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (nk_test_json_assert_lines (r.out, r.out_len), ==, 1);

  g_assert_true (json_parser_load_from_data (parser, r.out, -1, &error));
  g_assert_no_error (error);
  tokens = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "tokens");
  g_assert_cmpuint (json_array_get_length (tokens), ==, 4000);
  for (guint i = 0; i < 4000; i++)
    {
      gint64 t = json_array_get_int_element (tokens, i);

      seen_control |= t < 0x20;
      seen_high |= t >= 0x80;
    }
  /* the draw did reach what the writer has to escape or replace */
  g_assert_true (seen_control);
  g_assert_true (seen_high);
}

/* sample --tokens 1048576 prints the text as it is drawn: the first bytes arrive on
 * the pipe while the process is still drawing (it would need hours for all of them:
 * block size 256, no cache), and they are the first bytes a short run prints with
 * the same seed. Then the test stops it. No clock: before the fix the first read
 * waited for the end of the whole run (the test timed out). */
static void
test_streams (void)
{
  g_autofree char *run = NULL, *ckdir = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(NkTestRun) brief = { 0 };
  char buf[16];
  gssize n;

  if (nk_test_cli_path () == NULL)
    return;
  run = train_run ("stream", "32", "256");
  ckdir = g_build_filename (run, "checkpoints", NULL);
  {
    const char *args[] = { "--from", ckdir, "--prompt", "The", "--tokens", "1048576", "--seed", "5",
                           NULL };

    process = nk_test_spawn_cli ("sample", args,
                                 G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  }
  n = g_input_stream_read (g_subprocess_get_stdout_pipe (process), buf, sizeof buf, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (n, >, 0);
  g_subprocess_force_exit (process);
  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  /* it did not end on its own: the bytes came before the run's end */
  g_assert_false (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGKILL);

  {
    const char *args[] = { "--from", ckdir, "--prompt", "The", "--tokens", "16", "--seed", "5",
                           NULL };

    g_assert_true (nk_test_run_cli (&brief, "sample", args, NULL, 0));
  }
  g_assert_cmpint (brief.status, ==, 0);
  g_assert_cmpuint (brief.out_len, ==, 16 + 1);
  g_assert_cmpmem (buf, n, brief.out, n);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = nk_test_make_temp_dir ("napkin-cli-sample");
  g_test_add_func ("/cli/sample/from-run-dir", test_from_run_dir);
  g_test_add_func ("/cli/sample/json-any-bytes", test_json_any_bytes);
  g_test_add_func ("/cli/sample/streams", test_streams);
  ret = g_test_run ();
  nk_test_remove_tree (tmpdir);
  g_free (tmpdir);
  return ret;
}
