/* test-cli-json-out.c: every JSON napkin-cli writes is strict JSON, whatever bytes went in
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 21, item 13: a byte 0x1f, or bytes that are no UTF-8, in a program, a file
 * name or a flag's value came back raw inside JSON strings (json-glib 1.6 escapes
 * control characters below 0x1f only, and copies invalid UTF-8). Each command's
 * --json / --json-lines output, and each JSON file a run folder holds (config, meta,
 * plan, metrics.jsonl, the checkpoint's safetensors header with the config in it),
 * goes through the strict RFC 8259 checker of tests/common; json-glib's lenient
 * parser reads all of them and so is no oracle here. `tensor` and `sample` have
 * their own cases in test-cli-tensor.c and test-cli-sample.c.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "nk-test-json.h"
#include "nk-test-util.h"

/* Every control character 0x01..0x1f and DEL, valid UTF-8 (what a string flag takes:
 * napkin-cli refuses other arguments as "not valid UTF-8" before reading them)... */
#define CONTROLS "\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020" \
                 "\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037\177"
/* ...and with three bytes that are no UTF-8, for file names (which are bytes). */
#define HOSTILE CONTROLS "\377\300\355"

static char *tmpdir;

/* Runs napkin-cli; each stdout line must be strict JSON, and stderr, which a terminal
 * shows, must carry no control character but newlines and tabs (an input's controls
 * are echoed as \xNN, so a name cannot move the cursor or set colours). Returns the
 * exit status. */
static int
run_strict (const char        *command,
            const char *const *args,
            guint             *n_lines)
{
  g_auto(NkTestRun) run = { 0 };

  g_assert_true (nk_test_run_cli (&run, command, args, NULL, 0));
  g_test_message ("%s: %s", command, run.err);
  *n_lines = nk_test_json_assert_lines (run.out, run.out_len);
  for (gsize i = 0; i < run.err_len; i++)
    if (((guchar) run.err[i] < 0x20 && run.err[i] != '\n' && run.err[i] != '\t')
        || run.err[i] == 0x7f)
      g_error ("%s: stderr byte %" G_GSIZE_FORMAT " is the control character 0x%02x",
               command, i, (guchar) run.err[i]);
  return run.status;
}

/* Errors echo what they were given: a flag's value, a file name, an item. */
static void
test_errors (void)
{
  const struct {
    const char *command;
    const char *args[12];
    int         status;
  } cases[] = {
    { "plan", { "--json", "--gpu", "h100" CONTROLS, "--params", "7B", "--tokens", "1T",
                "--gpus", "8", "--mfu", "0.4", NULL }, 2 },
    { "plan", { "--json", "--gpu", "h100-sxm", "--params", "7B" CONTROLS, "--tokens", "1T",
                "--gpus", "8", "--mfu", "0.4", NULL }, 2 },
    { "format", { "--json", "--dtype", "f32", "1\037", NULL }, 2 },
    { "format", { "--json", "--dtype", "f32" CONTROLS, "1", NULL }, 2 },
    { "import", { "--json-lines", "/nonexistent/" HOSTILE, NULL }, 1 },
    { "train", { "--json-lines", "--dim", "4", "--layers", "1", "--steps", "1",
                 "--inputs", "/nonexistent/x" HOSTILE ".npy", "--targets", "/nonexistent/y.npy",
                 NULL }, 1 },
    { "train", { "--json-lines", "--optimizer", "adam" CONTROLS, NULL }, 2 },
    { "sample", { "--json", "--from", "/nonexistent/" HOSTILE, "--prompt", "a", "--tokens", "1",
                  NULL }, 1 },
    { "tensor", { "--json", "x = arange(3) \037", NULL }, 1 },
    { "bench", { "matmul", "--json", "--m", "2" CONTROLS, "--k", "2", "--n", "2", NULL }, 2 },
  };

  if (nk_test_cli_path () == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint n = 0;

      g_test_message ("case %u", i);
      g_assert_cmpint (run_strict (cases[i].command, cases[i].args, &n), ==, cases[i].status);
      g_assert_cmpuint (n, ==, 1);
    }
}

/* Answers with only fixed names in them still go through the one writer. */
static void
test_answers (void)
{
  const struct {
    const char *command;
    const char *args[12];
  } cases[] = {
    { "gpus", { "--json", NULL } },
    { "devices", { "--json", NULL } },
    { "format", { "--json", "--dtype", "e4m3", "465", "1e-8", "nan", "0x7e", NULL } },
    { "plan", { "--json", "--gpu", "h100-sxm", "--params", "70B", "--tokens", "15T", "--gpus",
                "4096", "--mfu", "0.4", NULL } },
    { "tensor", { "--json", "--all", "x = arange(6).view(2, 3); y = x.t(); z = y.sum()", NULL } },
  };

  if (nk_test_cli_path () == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint n = 0;

      g_assert_cmpint (run_strict (cases[i].command, cases[i].args, &n), ==, 0);
      g_assert_cmpuint (n, >, 0);
    }
}

static void
assert_file_strict (const char *dir,
                    const char *name,
                    gboolean    lines)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0, where = 0;

  g_assert_true (g_file_get_contents (path, &text, &len, &error));
  g_assert_no_error (error);
  if (lines)
    g_assert_cmpuint (nk_test_json_assert_lines (text, len), >, 0);
  else if (!nk_test_json_is_strict (text, len, &where))
    g_error ("%s is not strict JSON at byte %" G_GSIZE_FORMAT, name, where);
}

/* The 8-byte length, then the JSON header. */
static void
assert_checkpoints_strict (const char *dir)
{
  g_autofree char *ckdir = g_build_filename (dir, "checkpoints", NULL);
  g_autoptr(GDir) d = g_dir_open (ckdir, 0, NULL);
  const char *base;
  guint n_files = 0;

  g_assert_nonnull (d);
  while ((base = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (ckdir, base, NULL);
      g_autofree char *data = NULL;
      gsize len = 0, where = 0;
      guint64 n;

      if (!g_str_has_suffix (base, ".safetensors"))
        continue;
      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      g_assert_cmpuint (len, >=, 8);
      memcpy (&n, data, 8);
      n = GUINT64_FROM_LE (n);
      g_assert_cmpuint (n, <=, len - 8);
      if (!nk_test_json_is_strict (data + 8, n, &where))
        g_error ("%s's header is not strict JSON at byte %" G_GSIZE_FORMAT, base, where);
      n_files++;
    }
  g_assert_cmpuint (n_files, >, 0);
}

/* A GPT trained on a text whose file name holds every hostile byte, into a run folder
 * whose name holds 0x1f: the lines printed and every JSON the folder keeps. */
static void
test_run_folder (void)
{
  g_autofree char *text = g_build_filename (tmpdir, "text" HOSTILE ".txt", NULL);
  g_autofree char *dir = g_build_filename (tmpdir, "run\037" HOSTILE, NULL);
  const char *args[] = { "--json-lines", "--model", "gpt", "--n-layer", "1", "--n-head", "1",
                         "--n-embd", "8", "--block-size", "8", "--batch", "2", "--steps", "3",
                         "--checkpoint-every", "2", "--text", text, "--run-dir", dir, NULL };
  guint n = 0;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_true (g_file_set_contents (text, "napkin arithmetic, napkin arithmetic\n", -1, NULL));
  g_assert_cmpint (run_strict ("train", args, &n), ==, 0);
  g_assert_cmpuint (n, ==, 3 + 1);
  assert_file_strict (dir, "config.json", FALSE);
  assert_file_strict (dir, "meta.json", FALSE);
  assert_file_strict (dir, "plan.json", FALSE);
  assert_file_strict (dir, "metrics.jsonl", TRUE);
  assert_checkpoints_strict (dir);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = nk_test_make_temp_dir ("napkin-cli-json-out");
  g_test_add_func ("/cli/json-out/errors", test_errors);
  g_test_add_func ("/cli/json-out/answers", test_answers);
  g_test_add_func ("/cli/json-out/run-folder", test_run_folder);
  ret = g_test_run ();
  nk_test_remove_tree (tmpdir);
  g_free (tmpdir);
  return ret;
}
