/* test-cli-train.c: `napkin-cli train`: JSON lines, kill-and-resume, bad inputs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "nk-test-util.h"
#include "nk-npy.h"

static char *tmpdir;

static JsonObject *
parse_line (const char *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, line, -1, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_json_lines (void)
{
  const char *args[] = { "--dim", "16", "--layers", "1", "--batch", "4", "--steps", "5",
                         "--lr", "0.01", "--json-lines", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  double last_loss = 0;
  /* Seed 001: D²L + DL + D + 1 parameters, 4 bytes each */
  const gint64 param_bytes = 4 * (16 * 16 * 1 + 16 * 1 + 16 + 1);

  g_assert_cmpint (nk_test_cli ("train", args, &out, &err), ==, 0);
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);

  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(JsonObject) o = parse_line (lines[i]);
      JsonObject *mem;
      static const char *fields[] = {
        "step", "loss", "flops", "seconds", "flops_per_s", "peak_flops_per_s", "mfu",
        "device", "memory",
      };

      for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
        g_assert_true (json_object_has_member (o, fields[f]));
      g_assert_cmpint (json_object_get_int_member (o, "step"), ==, i + 1);
      g_assert_cmpint (json_object_get_int_member (o, "flops"), >, 0);
      g_assert_cmpstr (json_object_get_string_member (o, "device"), ==, "cpu");
      mem = json_object_get_object_member (o, "memory");
      g_assert_cmpint (json_object_get_int_member (mem, "params"), ==, param_bytes);
      g_assert_cmpint (json_object_get_int_member (mem, "grads"), ==, param_bytes);
      /* adamw (the default): two moments */
      g_assert_cmpint (json_object_get_int_member (mem, "optimizer"), ==, 2 * param_bytes);
      g_assert_cmpint (json_object_get_int_member (mem, "activations"), >, 0);
      last_loss = json_object_get_double_member (o, "loss");
    }

  {
    g_autoptr(JsonObject) done = parse_line (lines[5]);

    g_assert_true (json_object_get_boolean_member (done, "done"));
    g_assert_cmpint (json_object_get_int_member (done, "steps"), ==, 5);
    g_assert_cmpfloat (json_object_get_double_member (done, "final_loss"), ==, last_loss);
  }
}

static char *
read_file (const char *path,
           gsize      *len)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  g_assert_true (g_file_get_contents (path, &data, len, &error));
  g_assert_no_error (error);
  return data;
}

/* Reads lines from @process's stdout until one has "step" ≥ @step (or it ends);
 * returns the last step seen. */
static gint64
read_until_step (GSubprocess *process,
                 gint64       step)
{
  g_autoptr(GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  gint64 seen = 0;

  /* The pipe stays open until the process is gone: closing it would kill a
   * writing child with SIGPIPE before the test's own signal. */
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (in), FALSE);
  while (seen < step)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);
      g_autoptr(JsonObject) o = NULL;

      g_assert_no_error (error);
      if (line == NULL)
        break;
      o = parse_line (line);
      if (json_object_has_member (o, "step"))
        seen = json_object_get_int_member (o, "step");
    }
  return seen;
}

/* Kills @process with SIGKILL and reaps it: it must have died of that signal. */
static void
kill_and_wait (GSubprocess *process)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_send_signal (process, SIGKILL);
  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGKILL);
}

static void
test_kill_and_resume (void)
{
  g_autofree char *ckdir = g_build_filename (tmpdir, "ck", NULL);
  g_autofree char *whole = g_build_filename (tmpdir, "whole.safetensors", NULL);
  g_autofree char *resumed = g_build_filename (tmpdir, "resumed.safetensors", NULL);
  const char *common[] = { "--dim", "32", "--layers", "2", "--batch", "8", "--steps", "2000",
                           "--lr", "0.001", "--optimizer", "adam", "--seed", "3" };
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autofree char *a = NULL, *b = NULL, *out = NULL, *err = NULL;
  gsize la, lb;
  gint64 seen;

  /* The run that is never interrupted. */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new ();

    for (guint i = 0; i < G_N_ELEMENTS (common); i++)
      g_ptr_array_add (args, (gpointer) common[i]);
    g_ptr_array_add (args, (gpointer) "--save");
    g_ptr_array_add (args, whole);
    g_ptr_array_add (args, NULL);
    g_assert_cmpint (nk_test_cli ("train", (const char *const *) args->pdata, NULL, NULL), ==, 0);
  }

  /* The same run with checkpoints, killed mid-run. Our reading paces it: a child
   * that is ahead blocks on the full pipe. */
  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (argv, (gpointer) common[i]);
  g_ptr_array_add (argv, (gpointer) "--checkpoint-dir");
  g_ptr_array_add (argv, ckdir);
  g_ptr_array_add (argv, (gpointer) "--checkpoint-every");
  g_ptr_array_add (argv, (gpointer) "37");
  g_ptr_array_add (argv, (gpointer) "--json-lines");
  g_ptr_array_add (argv, NULL);
  process = nk_test_spawn_cli ("train", (const char *const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_assert_nonnull (process);
  seen = read_until_step (process, 300);
  g_assert_cmpint (seen, >=, 300);
  kill_and_wait (process);

  /* Resume to the end from the newest intact checkpoint. */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new ();
    g_autoptr(GPtrArray) files = NULL;

    for (guint i = 0; i < G_N_ELEMENTS (common); i++)
      g_ptr_array_add (args, (gpointer) common[i]);
    g_ptr_array_add (args, (gpointer) "--resume");
    g_ptr_array_add (args, ckdir);
    g_ptr_array_add (args, (gpointer) "--save");
    g_ptr_array_add (args, resumed);
    g_ptr_array_add (args, (gpointer) "--json-lines");
    g_ptr_array_add (args, NULL);
    g_assert_cmpint (nk_test_cli ("train", (const char *const *) args->pdata, &out, &err), ==, 0);
    /* It really resumed: its first line is past step 1. */
    {
      g_auto(GStrv) lines = g_strsplit (out, "\n", 2);
      g_autoptr(JsonObject) first = parse_line (lines[0]);

      g_test_message ("resumed at step %" G_GINT64_FORMAT,
                      json_object_get_int_member (first, "step"));
      g_assert_cmpint (json_object_get_int_member (first, "step"), >, 37);
    }
  }

  a = read_file (whole, &la);
  b = read_file (resumed, &lb);
  g_assert_cmpmem (a, la, b, lb);
}

static void
expect_failure (const char *const *args,
                int                code,
                const char        *needle)
{
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (nk_test_cli ("train", args, &out, &err), ==, code);
  g_test_message ("stderr: %s", err);
  g_assert_true (g_str_has_prefix (err, "napkin-cli: "));
  if (needle != NULL)
    g_assert_nonnull (strstr (err, needle));
  /* With --json-lines the sentence is also a JSON object on stdout. */
  if (g_strv_contains (args, "--json-lines"))
    {
      g_autoptr(JsonObject) o = parse_line (g_strstrip (out));
      g_assert_true (json_object_has_member (o, "error"));
    }
}

static void
test_bad_inputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *x10 = g_build_filename (tmpdir, "x10.npy", NULL);
  g_autofree char *y10 = g_build_filename (tmpdir, "y10.npy", NULL);
  g_autofree char *junk = g_build_filename (tmpdir, "junk.npy", NULL);
  g_autofree char *small = g_build_filename (tmpdir, "small.safetensors", NULL);
  float xs[10 * 4] = { 0 }, ys[10] = { 0 };

  g_assert_true (nk_npy_save (x10, NK_NPY_F4, 2, (const gint64[]) { 10, 4 }, xs, &error));
  g_assert_true (nk_npy_save (y10, NK_NPY_F4, 1, (const gint64[]) { 10 }, ys, &error));
  g_assert_true (g_file_set_contents (junk, "\x93NUMPY this is not an array", -1, &error));
  g_assert_no_error (error);

  {
    const char *a[] = { "--lr", "0", "--steps", "2", NULL };
    expect_failure (a, 2, "--lr");
  }
  {
    const char *a[] = { "--lr", "-0.5", "--steps", "2", "--json-lines", NULL };
    expect_failure (a, 2, "--lr");
  }
  {
    const char *a[] = { "--lr", "abc", NULL };
    expect_failure (a, 2, "--lr");
  }
  {
    const char *a[] = { "--dim", "4", "--batch", "4", "--steps", "2", "--inputs", x10,
                        "--targets", y10, NULL };
    expect_failure (a, 1, NULL);
  }
  {
    const char *a[] = { "--dim", "4", "--batch", "5", "--steps", "2", "--inputs", junk,
                        "--targets", y10, "--json-lines", NULL };
    expect_failure (a, 1, "junk.npy");
  }
  {
    const char *make[] = { "--dim", "8", "--layers", "1", "--steps", "1", "--save", small, NULL };
    const char *a[] = { "--dim", "16", "--layers", "1", "--steps", "1", "--init", small, NULL };

    g_assert_cmpint (nk_test_cli ("train", make, NULL, NULL), ==, 0);
    expect_failure (a, 1, "layers.0.weight");
  }
  if (g_getenv ("NAPKIN_HAVE_GPU") == NULL)
    {
      const char *a[] = { "--device", "cuda", "--steps", "1", "--json-lines", NULL };
      expect_failure (a, 1, "no CUDA device");
    }
}

/* Runs "napkin-cli COMMAND ARGS..." and parses its one JSON line per object. */
static GPtrArray *
run_json (const char *const *args)
{
  g_auto(NkTestRun) run = { 0, };
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_assert_true (nk_test_run_cli (&run, NULL, args, NULL, 0));
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (g_strstrip (run.out), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_ptr_array_add (objects, parse_line (lines[i]));
  return objects;
}

/* The CPU row: its peak is the product of the factors it reports, and the SIMD width
 * agrees with the flags in /proc/cpuinfo read here. */
static void
test_devices (void)
{
  const char *args[] = { "devices", "--json", NULL };
  g_autoptr(GPtrArray) objs = run_json (args);
  g_autofree char *cpuinfo = NULL;
  JsonObject *cpu;
  double peak;
  gint64 lanes;

  g_assert_cmpuint (objs->len, >=, 2);
  cpu = g_ptr_array_index (objs, 0);
  g_assert_cmpstr (json_object_get_string_member (cpu, "id"), ==, "cpu");
  peak = json_object_get_double_member (json_object_get_object_member (cpu, "peak"), "fp32");
  lanes = json_object_get_int_member (cpu, "fp32_lanes");
  g_assert_cmpfloat_with_epsilon (peak,
                                  json_object_get_int_member (cpu, "cores")
                                  * json_object_get_int_member (cpu, "fma_units")
                                  * lanes * 2.0 * json_object_get_double_member (cpu, "clock_hz"),
                                  peak * 1e-12);
  if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL))
    {
      const char *kernels = json_object_get_string_member (cpu, "blas_kernels");

      if (strstr (cpuinfo, " avx512f") != NULL)
        g_assert_cmpint (lanes, ==, 16);
      else if (strstr (cpuinfo, " avx2") != NULL)
        g_assert_cmpint (lanes, ==, 8);
      /* A CPU with AVX2 and FMA never runs on OpenBLAS's SSE-era fallbacks (where
       * the library did not know the model, the CLI asked for better ones). */
      if (strstr (cpuinfo, " avx2") != NULL && strstr (cpuinfo, " fma") != NULL
          && g_getenv ("OPENBLAS_CORETYPE") == NULL)
        g_assert_false (g_strv_contains ((const char *const[]) { "Prescott", "Core2", "Penryn", "Dunnington",
                                                                 "Nehalem", "Sandybridge", "Atom", NULL },
                                         kernels));
    }
  /* Then CUDA devices, or one object saying why there are none. */
  {
    JsonObject *cuda = g_ptr_array_index (objs, 1);

    g_assert_cmpstr (json_object_get_string_member (cuda, "kind"), ==, "cuda");
    if (!json_object_get_boolean_member (cuda, "available"))
      g_assert_true (g_str_has_prefix (json_object_get_string_member (cuda, "reason"),
                                       "no CUDA device"));
  }
}

static void
test_bench_matmul (void)
{
  const char *args[] = { "bench", "matmul", "--m", "64", "--k", "32", "--n", "48",
                         "--runs", "3", "--json", NULL };
  g_autoptr(GPtrArray) objs = run_json (args);
  JsonObject *o;
  double flops, seconds, rate, peak;

  g_assert_cmpuint (objs->len, ==, 1);
  o = g_ptr_array_index (objs, 0);
  flops = json_object_get_double_member (o, "flops");
  seconds = json_object_get_double_member (o, "seconds");
  rate = json_object_get_double_member (o, "flops_per_s");
  peak = json_object_get_double_member (o, "peak_flops_per_s");
  g_assert_cmpfloat (flops, ==, 2.0 * 64 * 32 * 48);
  g_assert_cmpfloat (seconds, >, 0.0);
  g_assert_cmpfloat_with_epsilon (rate, flops / seconds, rate * 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "mfu"), rate / peak, 1e-12);
}

/* The oracle is PyTorch: the same init, data and steps through torch.optim must end
 * with the same parameters to float rounding (tests/train-reference.py). */
static void
test_matches_pytorch (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "train-reference.py", NULL);
  g_autofree char *work = g_build_filename (tmpdir, "torch", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  const char *argv[] = { "/usr/bin/python3", script, nk_test_cli_path (), work, NULL };
  int status;

  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  g_mkdir_with_parents (work, 0700);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      g_test_skip ("PyTorch is not installed for /usr/bin/python3");
      return;
    }
  g_test_message ("%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *space = strchr (lines[i], ' ');

      g_assert_nonnull (space);
      g_assert_cmpfloat (g_ascii_strtod (space + 1, NULL), <, 1e-4);
    }
}

/* ---- issue 11: resume states, one writer, outputs and inputs checked up front ---- */

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The names in @dir, sorted, joined by spaces. */
static char *
list_names (const char *dir)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* Runs "train" with @common followed by the NULL-terminated @extra. */
static int
run_train (const char *const *common,
           guint              n_common,
           const char *const *extra,
           char             **out,
           char             **err)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  for (guint i = 0; i < n_common; i++)
    g_ptr_array_add (args, (gpointer) common[i]);
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, NULL);
  return nk_test_cli ("train", (const char *const *) args->pdata, out, err);
}

/* The last line of JSON-lines output. */
static JsonObject *
last_object (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);

  while (n > 0 && lines[n - 1][0] == '\0')
    n--;
  g_assert_cmpuint (n, >, 0);
  return parse_line (lines[n - 1]);
}

static guint
count_step_lines (const char *out)
{
  guint n = 0;

  for (const char *p = out; (p = strstr (p, "{\"step\":")) != NULL; p++)
    n++;
  return n;
}

/* A run killed after its last checkpoint but before "done" (here: one that finished)
 * resumes to nothing left to do and reports the checkpoint's true loss; one asked for
 * fewer steps than the checkpoint holds is refused and saves nothing. Oracle: the
 * final loss the uninterrupted run printed. */
static void
test_resume_at_end (void)
{
  g_autofree char *ckdir = g_build_filename (tmpdir, "ck-end", NULL);
  g_autofree char *save = g_build_filename (tmpdir, "end.safetensors", NULL);
  const char *common[] = { "--dim", "8", "--layers", "1", "--seed", "5", "--json-lines" };
  g_autofree char *out = NULL, *err = NULL;
  double final_loss;

  {
    const char *extra[] = { "--steps", "8", "--checkpoint-dir", ckdir, "--checkpoint-every",
                            "4", NULL };
    g_autoptr(JsonObject) done = NULL;

    g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), extra, &out, NULL), ==, 0);
    done = last_object (out);
    final_loss = json_object_get_double_member (done, "final_loss");
    g_assert_true (isfinite (final_loss));
    g_clear_pointer (&out, g_free);
  }
  {
    const char *extra[] = { "--steps", "8", "--resume", ckdir, NULL };
    g_autoptr(JsonObject) done = NULL;

    g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), extra, &out, NULL), ==, 0);
    g_assert_cmpuint (count_step_lines (out), ==, 0);
    done = last_object (out);
    g_assert_cmpint (json_object_get_int_member (done, "steps"), ==, 8);
    /* before: "final_loss": "nan" */
    g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (done, "final_loss")));
    g_assert_cmpfloat (json_object_get_double_member (done, "final_loss"), ==, final_loss);
    g_clear_pointer (&out, g_free);
  }
  {
    const char *extra[] = { "--steps", "6", "--resume", ckdir, "--save", save, NULL };

    /* before: exit 0, and the 8-step model saved as the 6-step one */
    g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), extra, &out, &err), ==, 1);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, "holds 8 steps"));
    g_assert_nonnull (strstr (err, "--steps 8"));
    g_assert_false (g_file_test (save, G_FILE_TEST_EXISTS));
  }
}

/* Resuming with another configuration is refused, naming each changed field; only
 * what --help calls safe (more steps) is allowed. */
static void
test_resume_config (void)
{
  g_autofree char *ckdir = g_build_filename (tmpdir, "ck-config", NULL);
  const char *common[] = { "--dim", "8", "--layers", "1", "--json-lines" };
  const char *first[] = { "--steps", "6", "--lr", "0.01", "--optimizer", "adamw", "--seed", "0",
                          "--checkpoint-dir", ckdir, "--checkpoint-every", "3", NULL };
  static const struct {
    const char *args[7];
    const char *fields[3];
  } changes[] = {
    { { "--optimizer", "sgd", "--lr", "0.5", "--seed", "7", NULL },
      { "optimizer (adamw → sgd)", "lr (0.01 → 0.5)", "seed (0 → 7)" } },
    { { "--lr", "0.01", "--optimizer", "adamw", "--precision", "fp16", NULL },
      { "precision (fp32 → fp16", NULL, NULL } },
    { { "--lr", "0.01", "--optimizer", "adamw", "--dim", "16", NULL },
      { "dim (8 → 16)", NULL, NULL } },
  };
  g_autofree char *names_before = NULL;

  g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), first, NULL, NULL), ==, 0);
  names_before = list_names (ckdir);

  for (guint i = 0; i < G_N_ELEMENTS (changes); i++)
    {
      g_autoptr(GPtrArray) extra = g_ptr_array_new ();
      g_autofree char *out = NULL, *err = NULL;
      g_autofree char *names_after = NULL;

      g_ptr_array_add (extra, (gpointer) "--steps");
      g_ptr_array_add (extra, (gpointer) "12");
      g_ptr_array_add (extra, (gpointer) "--resume");
      g_ptr_array_add (extra, ckdir);
      for (guint j = 0; changes[i].args[j] != NULL; j++)
        g_ptr_array_add (extra, (gpointer) changes[i].args[j]);
      g_ptr_array_add (extra, NULL);
      /* before: exit 0, continuing silently from the AdamW weights */
      g_assert_cmpint (run_train (common, G_N_ELEMENTS (common),
                                  (const char *const *) extra->pdata, &out, &err), ==, 1);
      g_test_message ("%s", err);
      for (guint j = 0; j < G_N_ELEMENTS (changes[i].fields) && changes[i].fields[j]; j++)
        g_assert_nonnull (strstr (err, changes[i].fields[j]));
      g_assert_cmpuint (count_step_lines (out), ==, 0);
      names_after = list_names (ckdir);
      g_assert_cmpstr (names_after, ==, names_before);
    }

  /* More steps is safe. */
  {
    const char *more[] = { "--steps", "9", "--lr", "0.01", "--optimizer", "adamw", "--seed", "0",
                           "--resume", ckdir, NULL };
    g_autofree char *out = NULL;

    g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), more, &out, NULL), ==, 0);
    g_assert_cmpuint (count_step_lines (out), ==, 3);
  }
}

/* A second run on a folder another run is writing to is refused, naming the process.
 * Before: both ran, and one died when the other's clean-up deleted its temp file. */
static void
test_one_writer (void)
{
  g_autofree char *ckdir = g_build_filename (tmpdir, "ck-shared", NULL);
  g_autofree char *pid_text = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char *first[] = { "--dim", "8", "--layers", "1", "--steps", "1000000",
                          "--checkpoint-dir", ckdir, "--checkpoint-every", "50", "--json-lines",
                          NULL };
  const char *second[] = { "--dim", "8", "--layers", "1", "--steps", "100", "--checkpoint-dir",
                           ckdir, "--json-lines", NULL };
  g_autoptr(GSubprocess) process = NULL;

  process = nk_test_spawn_cli ("train", first, G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  if (process == NULL)
    return;
  g_assert_cmpint (read_until_step (process, 1), >=, 1);

  g_assert_cmpint (nk_test_cli ("train", second, &out, &err), ==, 1);
  pid_text = g_strdup_printf ("is in use by process %s", g_subprocess_get_identifier (process));
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, pid_text));
  g_assert_nonnull (strstr (err, ckdir));
  g_assert_cmpuint (count_step_lines (out), ==, 0);

  kill_and_wait (process);

  /* The dead run's lock went with it: the folder is free again (the resume may
   * still be refused for holding more steps than 1, but not for being in use). */
  {
    const char *third[] = { "--dim", "8", "--layers", "1", "--steps", "1", "--resume", ckdir,
                            "--json-lines", NULL };
    g_autofree char *e = NULL;

    nk_test_cli ("train", third, NULL, &e);
    g_test_message ("%s", e);
    g_assert_null (strstr (e, "in use"));
  }
}

/* Every output location is checked before step 1: a bad --save or checkpoint folder
 * fails at once, having trained nothing (before: after all 2,000 steps). */
static void
test_outputs_first (void)
{
  g_autofree char *file = g_build_filename (tmpdir, "plain-file", NULL);
  g_autofree char *under_file = g_build_filename (file, "ck", NULL);
  g_autofree char *save_under_file = g_build_filename (file, "x.safetensors", NULL);
  const char *common[] = { "--dim", "8", "--layers", "1", "--steps", "2000", "--json-lines" };
  const struct {
    const char *args[5];
    const char *needle;
  } cases[] = {
    { { "--save", "/nonexistent/dir/x.safetensors", NULL }, "/nonexistent/dir" },
    { { "--save", save_under_file, NULL }, save_under_file },
    { { "--save", tmpdir, NULL }, "it is a folder" },
    { { "--checkpoint-dir", under_file, NULL }, under_file },
    { { "--resume", under_file, NULL }, under_file },
  };

  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), cases[i].args, &out, &err), ==, 1);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].needle));
      g_assert_cmpuint (count_step_lines (out), ==, 0);
    }
}

/* Issue 21, item 15: --resume of a folder that does not exist is a typo, not a fresh
 * run: refused (exit 1, naming it) before anything is created, neither the folder nor
 * its parent (before: `--resume /nonexistent/x` made /nonexistent and trained from
 * step 0). Oracle: the file system, looked at after the run. */
static void
test_resume_missing (void)
{
  g_autofree char *parent = g_build_filename (tmpdir, "no-such-parent", NULL);
  g_autofree char *nested = g_build_filename (parent, "x", NULL);
  g_autofree char *plain = g_build_filename (tmpdir, "no-such-run", NULL);
  g_autofree char *run_dir = g_build_filename (tmpdir, "resume-missing-run", NULL);
  const char *common[] = { "--dim", "8", "--layers", "1", "--steps", "3", "--json-lines" };
  const struct {
    const char *args[5];
    const char *needle;
  } cases[] = {
    { { "--resume", nested, NULL }, nested },
    { { "--resume", plain, NULL }, plain },
    /* with somewhere to write: still nothing is written */
    { { "--resume", plain, "--run-dir", run_dir, NULL }, plain },
    { { "--resume", plain, "--checkpoint-dir", run_dir, NULL }, plain },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (run_train (common, G_N_ELEMENTS (common), cases[i].args, &out, &err), ==, 1);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[i].needle));
      g_assert_nonnull (strstr (err, "resume"));
      g_assert_cmpuint (count_step_lines (out), ==, 0);
      g_assert_nonnull (strstr (out, "{\"error\":"));
      g_assert_false (g_file_test (parent, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (plain, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (run_dir, G_FILE_TEST_EXISTS));
    }
}

/* Writes a Cruncher state_dict (D 4, one layer) as safetensors by hand, with one
 * NaN at layers.0.weight[5]: the oracle is the format's definition. */
static void
write_nan_state_dict (const char *path)
{
  static const char header[] =
    "{\"layers.0.weight\":{\"dtype\":\"F32\",\"shape\":[4,4],\"data_offsets\":[0,64]},"
    "\"layers.0.bias\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[64,80]},"
    "\"final.weight\":{\"dtype\":\"F32\",\"shape\":[1,4],\"data_offsets\":[80,96]},"
    "\"final.bias\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[96,100]}}";
  g_autoptr(GByteArray) file = g_byte_array_new ();
  guint64 n = GUINT64_TO_LE (sizeof header - 1);
  float values[25];

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = 0.125f * (float) i;
  values[5] = NAN;
  g_byte_array_append (file, (const guint8 *) &n, 8);
  g_byte_array_append (file, (const guint8 *) header, sizeof header - 1);
  g_byte_array_append (file, (const guint8 *) values, sizeof values);
  g_assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
}

/* Inputs are validated when opened, naming file and place: a bad token deep in a
 * token file, NaN in X.npy or in --init, and paths that are not regular files. */
static void
test_inputs_on_open (void)
{
  g_autofree char *tokens = g_build_filename (tmpdir, "tokens.bin", NULL);
  g_autofree char *xnan = g_build_filename (tmpdir, "xnan.npy", NULL);
  g_autofree char *y = g_build_filename (tmpdir, "y8.npy", NULL);
  g_autofree char *init = g_build_filename (tmpdir, "nan-init.safetensors", NULL);
  g_autoptr(GError) error = NULL;
  const guint64 n = 200000;
  g_autofree guint16 *t = g_new (guint16, n);
  float xs[8 * 4], ys[8] = { 0 };

  for (guint64 i = 0; i < n; i++)
    t[i] = GUINT16_TO_LE ((guint16) (i % 200));
  t[150000] = GUINT16_TO_LE (9999);
  g_assert_true (g_file_set_contents (tokens, (const char *) t, n * 2, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (xs); i++)
    xs[i] = (float) i;
  xs[2 * 4 + 3] = INFINITY;
  g_assert_true (nk_npy_save (xnan, NK_NPY_F4, 2, (const gint64[]) { 8, 4 }, xs, &error));
  g_assert_true (nk_npy_save (y, NK_NPY_F4, 1, (const gint64[]) { 8 }, ys, &error));
  g_assert_no_error (error);
  write_nan_state_dict (init);

  {
    /* before: accepted, then "Token 9999 is outside the vocabulary of 256" at some step */
    const char *a[] = { "--model", "tiny-lm", "--dim", "8", "--layers", "1", "--steps", "5000",
                        "--tokens", tokens, "--json-lines", NULL };
    expect_failure (a, 1, "token 150000 ");
    expect_failure (a, 1, "tokens.bin");
  }
  {
    /* before: "The loss became NaN at step 1 … try a smaller --lr" */
    const char *a[] = { "--dim", "4", "--layers", "1", "--batch", "4", "--steps", "3",
                        "--inputs", xnan, "--targets", y, NULL };
    expect_failure (a, 1, "row 2, column 3 is inf");
  }
  {
    const char *a[] = { "--dim", "4", "--layers", "1", "--steps", "3", "--init", init, NULL };
    expect_failure (a, 1, "tensor “layers.0.weight” holds a NaN or an infinity at index 5");
  }
  {
    /* before: "Failed to map …: mmap() failed" / "No such device" */
    const char *a[] = { "--model", "tiny-lm", "--steps", "1", "--text", "/dev/null", NULL };
    const char *b[] = { "--steps", "1", "--inputs", ".", "--targets", y, NULL };
    const char *c[] = { "--steps", "1", "--init", tmpdir, NULL };

    expect_failure (a, 1, "“/dev/null” is not a regular file");
    expect_failure (b, 1, "“.” is not a regular file");
    expect_failure (c, 1, "is not a regular file");
  }
}

/* One range per numeric option, stated once for every value outside it; a misspelt
 * device is bad input (2) naming the string, not the driver's "no CUDA device" (1). */
static void
test_ranges_and_devices (void)
{
  static const struct {
    const char *flag;
    const char *range;
    const char *bad[4];
  } ranges[] = {
    { "--steps", "from 1 to 9223372036854775807", { "-1", "0", "2.5", NULL } },
    { "--dim", "from 1 to 65536", { "-1", "0", "65537", NULL } },
    { "--batch", "from 1 to 4294967295", { "-1", "0", "4294967296", NULL } },
    { "--layers", "from 0 to 4096", { "-1", "4097", NULL, NULL } },
    { "--context", "from 1 to 1048576", { "-1", "0", NULL, NULL } },
    { "--checkpoint-keep", "from 0 to 4294967295", { "-1", "0.5", NULL, NULL } },
  };
  static const char *const devices[] = { "cuda:abc", "cuda:", "cuda:-5", "cuda:1x", "gpu" };

  for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
    for (guint j = 0; j < G_N_ELEMENTS (ranges[i].bad) && ranges[i].bad[j]; j++)
      {
        const char *a[] = { ranges[i].flag, ranges[i].bad[j], "--json-lines", NULL };
        g_autofree char *expected = g_strdup_printf ("%s must be a whole number %s, not “%s”.",
                                                     ranges[i].flag, ranges[i].range,
                                                     ranges[i].bad[j]);

        expect_failure (a, 2, expected);
      }
  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    {
      const char *a[] = { "--steps", "1", "--device", devices[i], "--json-lines", NULL };
      g_autofree char *expected = g_strdup_printf ("“%s” is not a device name", devices[i]);

      expect_failure (a, 2, expected);
    }
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* ---- run folders (--run-dir): resumed into, refused, killed, corrupt ---------------- */

/* metrics.jsonl read with json-glib, not the engine's scanner: the steps in file
 * order, the lines that are no JSON object, and the closing lines. */
typedef struct {
  GArray *steps;
  guint   bad;
  guint   done;
} FolderMetrics;

static void
folder_metrics_clear (FolderMetrics *fm)
{
  g_clear_pointer (&fm->steps, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FolderMetrics, folder_metrics_clear)

static void
read_folder_metrics (const char    *dir,
                     FolderMetrics *fm)
{
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *text = read_file (path, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  fm->steps = g_array_new (FALSE, FALSE, sizeof (gint64));
  fm->bad = fm->done = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;

      if (*lines[i] == '\0')
        continue;
      if (!json_parser_load_from_data (parser, lines[i], -1, NULL)
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          fm->bad++;
          continue;
        }
      o = json_node_get_object (json_parser_get_root (parser));
      if (json_object_has_member (o, "step"))
        {
          gint64 step = json_object_get_int_member (o, "step");

          g_array_append_val (fm->steps, step);
        }
      else if (json_object_has_member (o, "done"))
        fm->done++;
      else
        fm->bad++;
    }
}

/* Every step 1..n once, in order. */
static void
assert_steps_once (const FolderMetrics *fm,
                   gint64               n)
{
  g_assert_cmpuint (fm->steps->len, ==, n);
  for (guint i = 0; i < fm->steps->len; i++)
    g_assert_cmpint (g_array_index (fm->steps, gint64, i), ==, i + 1);
}

static char *
meta_member (const char *dir,
             const char *member)
{
  g_autofree char *path = g_build_filename (dir, "meta.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return g_strdup (json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)),
                                                  member));
}

static char *
meta_status (const char *dir)
{
  return meta_member (dir, "status");
}

/* Every file under @dir (relative path → bytes) but the lock files, whose content
 * is only the id of the last process that locked them. */
static void
snapshot_into (GHashTable *files,
               const char *root,
               const char *rel)
{
  g_autofree char *path = rel != NULL ? g_build_filename (root, rel, NULL) : g_strdup (root);
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *sub = rel != NULL ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *full = g_build_filename (root, sub, NULL);

      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        snapshot_into (files, root, sub);
      else if (strcmp (name, ".napkin-lock") != 0)
        {
          gsize len;
          char *data = read_file (full, &len);

          g_hash_table_insert (files, g_steal_pointer (&sub), g_bytes_new_take (data, len));
        }
    }
}

static GHashTable *
snapshot_folder (const char *dir)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_bytes_unref);

  snapshot_into (files, dir, NULL);
  return files;
}

static void
assert_same_snapshot (GHashTable *before,
                      GHashTable *after)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (after), ==, g_hash_table_size (before));
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GBytes *now = g_hash_table_lookup (after, key);

      g_test_message ("%s", (const char *) key);
      g_assert_nonnull (now);
      g_assert_true (g_bytes_equal (now, value));
    }
}

/* A small GPT with a checkpoint every 10 steps, and @extra. */
static int
train_gpt (const char *const *extra,
           char             **out,
           char             **err)
{
  const char *common[] = { "--model", "gpt", "--n-layer", "1", "--n-embd", "16", "--n-head",
                           "2", "--block-size", "8", "--batch", "2", "--checkpoint-every",
                           "10" };
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (args, (gpointer) common[i]);
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, NULL);
  return nk_test_cli ("train", (const char *const *) args->pdata, out, err);
}

/* What the README promises: `--resume F --run-dir F` goes on in its own folder.
 * Before: exit 1, "in use by process <its own>", after emptying metrics.jsonl,
 * writing meta.json as failed and adding an event file. */
static void
test_run_dir_resume_own_folder (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "run-own", NULL);
  const char *first[] = { "--steps", "40", "--run-dir", dir, NULL };
  const char *second[] = { "--steps", "80", "--resume", dir, "--run-dir", dir, "--json-lines",
                           NULL };
  g_auto(FolderMetrics) fm = { 0, };
  g_autofree char *status = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_cmpint (train_gpt (first, NULL, NULL), ==, 0);
  g_assert_cmpint (train_gpt (second, &out, &err), ==, 0);
  g_test_message ("%s", err);
  read_folder_metrics (dir, &fm);
  assert_steps_once (&fm, 80);
  g_assert_cmpuint (fm.bad, ==, 0);
  g_assert_cmpuint (fm.done, ==, 1);
  status = meta_status (dir);
  g_assert_cmpstr (status, ==, "finished");
  /* It resumed: it printed steps 41..80 (then its done line). */
  lines = g_strsplit (g_strstrip (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 41);
  {
    g_autoptr(JsonObject) o = parse_line (lines[0]);

    g_assert_cmpint (json_object_get_int_member (o, "step"), ==, 41);
  }
}

/* --name names the run folder (meta.json's "name", what the app lists), from the
 * start and to the end; a resume with another --name renames it. Bad: an empty
 * name, and --name without a folder, exit 2 and write nothing. */
static void
test_run_dir_name (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "run-named", NULL);
  g_autofree char *unnamed = g_build_filename (tmpdir, "run-unnamed", NULL);
  const char *first[] = { "--steps", "20", "--run-dir", dir, "--name", "lr sweep · 3e-4", NULL };
  const char *second[] = { "--steps", "30", "--resume", dir, "--run-dir", dir, "--name", "renamed", NULL };
  const char *plain[] = { "--steps", "10", "--run-dir", unnamed, NULL };
  const char *empty[] = { "--steps", "10", "--run-dir", unnamed, "--name", "  ", NULL };
  const char *no_dir[] = { "--steps", "10", "--name", "x", NULL };
  g_autofree char *name = NULL, *status = NULL, *err = NULL, *err2 = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_cmpint (train_gpt (first, NULL, NULL), ==, 0);
  name = meta_member (dir, "name");
  status = meta_status (dir);
  g_assert_cmpstr (name, ==, "lr sweep · 3e-4");
  g_assert_cmpstr (status, ==, "finished");
  g_clear_pointer (&name, g_free);
  g_assert_cmpint (train_gpt (second, NULL, NULL), ==, 0);
  name = meta_member (dir, "name");
  g_assert_cmpstr (name, ==, "renamed");
  g_clear_pointer (&name, g_free);
  /* without --name the folder says no name ("": the app names it) */
  g_assert_cmpint (train_gpt (plain, NULL, NULL), ==, 0);
  name = meta_member (unnamed, "name");
  g_assert_cmpstr (name, ==, "");
  nk_test_remove_tree (unnamed);

  g_assert_cmpint (train_gpt (empty, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--name"));
  g_assert_false (g_file_test (unnamed, G_FILE_TEST_EXISTS));
  g_assert_cmpint (train_gpt (no_dir, NULL, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "--run-dir"));
}

/* A resume the checkpoint refuses (a changed lr) leaves the folder as it found it,
 * byte for byte. Before: metrics.jsonl truncated, meta.json rewritten as failed, a
 * second event file. */
static void
test_run_dir_refused_resume (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "run-refused", NULL);
  g_autofree char *ckdir = g_build_filename (dir, "checkpoints", NULL);
  const char *first[] = { "--steps", "30", "--run-dir", dir, NULL };
  const char *changed[] = { "--steps", "60", "--lr", "0.5", "--resume", dir, "--run-dir", dir,
                            NULL };
  const char *changed_ck[] = { "--steps", "60", "--lr", "0.5", "--resume", ckdir, "--run-dir",
                               dir, NULL };
  g_autoptr(GHashTable) before = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_cmpint (train_gpt (first, NULL, NULL), ==, 0);
  before = snapshot_folder (dir);
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *err = NULL;
      g_autoptr(GHashTable) after = NULL;

      g_assert_cmpint (train_gpt (i == 0 ? changed : changed_ck, NULL, &err), ==, 1);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, "lr"));
      after = snapshot_folder (dir);
      assert_same_snapshot (before, after);
    }
}

/* Waits until @dir's metrics.jsonl has at least @lines lines and a checkpoint exists. */
static void
wait_for_folder (const char *dir,
                 guint       lines)
{
  g_autofree char *metrics = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *ckdir = g_build_filename (dir, "checkpoints", NULL);

  for (guint i = 0; i < 20000; i++)
    {
      g_autofree char *text = NULL;
      g_autoptr(GPtrArray) cks = NULL;
      guint n = 0;

      if (g_file_get_contents (metrics, &text, NULL, NULL))
        for (const char *p = text; (p = strchr (p, '\n')) != NULL; p++)
          n++;
      if (n >= lines && g_file_test (ckdir, G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GDir) d = g_dir_open (ckdir, 0, NULL);
          const char *name;

          while (d != NULL && (name = g_dir_read_name (d)) != NULL)
            if (g_str_has_suffix (name, ".safetensors"))
              return;
        }
      g_usleep (1000);
    }
  g_assert_not_reached ();
}

/* kill -9 at a random moment, then resume into the same folder: every step 1..N once,
 * in order (those after the checkpoint were dropped and run again). Before: the
 * resume was refused (exit 1) after emptying metrics.jsonl. */
static void
test_run_dir_killed_resumes (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20);

  if (nk_test_cli_path () == NULL)
    return;
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/run-killed-%u", tmpdir, round);
      const char *args[] = { "--dim", "8", "--layers", "1", "--steps", "100000000",
                             "--checkpoint-every", "25", "--run-dir", dir, NULL };
      g_autoptr(GSubprocess) process = NULL;
      g_auto(FolderMetrics) fm = { 0, };
      g_autofree char *steps = NULL;
      g_autofree char *status = NULL;

      process = nk_test_spawn_cli ("train", args, G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
      g_assert_nonnull (process);
      wait_for_folder (dir, 60);
      g_usleep (g_rand_int_range (rand, 0, 200000));
      kill_and_wait (process);

      read_folder_metrics (dir, &fm);
      g_test_message ("killed after %u steps written", fm.steps->len);
      steps = g_strdup_printf ("%u", fm.steps->len + 100);
      {
        const char *resume[] = { "--dim", "8", "--layers", "1", "--steps", steps,
                                 "--checkpoint-every", "25", "--resume", dir, "--run-dir", dir,
                                 NULL };

        folder_metrics_clear (&fm);
        g_assert_cmpint (nk_test_cli ("train", resume, NULL, NULL), ==, 0);
      }
      read_folder_metrics (dir, &fm);
      assert_steps_once (&fm, g_ascii_strtoll (steps, NULL, 10));
      g_assert_cmpuint (fm.bad, ==, 0);
      status = meta_status (dir);
      g_assert_cmpstr (status, ==, "finished");
    }
}

/* A garbage line in the middle of metrics.jsonl is skipped and counted, never the end
 * of the steps: a resume keeps every valid step. Before: the steps after it (6..30)
 * were dropped. */
static void
test_run_dir_corrupt_line (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "run-corrupt", NULL);
  g_autofree char *ckdir = g_build_filename (dir, "checkpoints", NULL);
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  const char *first[] = { "--steps", "30", "--run-dir", dir, NULL };
  const char *resume[] = { "--steps", "60", "--resume", ckdir, "--run-dir", dir, NULL };
  g_auto(FolderMetrics) fm = { 0, };
  g_autofree char *text = NULL;
  g_autoptr(GString) edited = g_string_new (NULL);
  const char *p;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_cmpint (train_gpt (first, NULL, NULL), ==, 0);
  text = read_file (path, NULL);
  /* after the fifth line */
  p = text;
  for (guint i = 0; i < 5; i++)
    p = strchr (p, '\n') + 1;
  g_string_append_len (edited, text, p - text);
  g_string_append (edited, "{\"step\": 6, \"loss\": garbage\n");
  g_string_append (edited, p);
  g_assert_true (g_file_set_contents (path, edited->str, -1, NULL));

  g_assert_cmpint (train_gpt (resume, NULL, NULL), ==, 0);
  read_folder_metrics (dir, &fm);
  assert_steps_once (&fm, 60);
  g_assert_cmpuint (fm.bad, ==, 1);
  g_assert_cmpuint (fm.done, ==, 1);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("napkin-cli-train-XXXXXX", NULL);

  g_test_add_func ("/cli/train/json-lines", test_json_lines);
  g_test_add_func ("/cli/train/kill-and-resume", test_kill_and_resume);
  g_test_add_func ("/cli/train/bad-inputs", test_bad_inputs);
  g_test_add_func ("/cli/train/matches-pytorch", test_matches_pytorch);
  g_test_add_func ("/cli/train/resume-at-end", test_resume_at_end);
  g_test_add_func ("/cli/train/resume-config", test_resume_config);
  g_test_add_func ("/cli/train/one-writer", test_one_writer);
  g_test_add_func ("/cli/train/outputs-first", test_outputs_first);
  g_test_add_func ("/cli/train/inputs-on-open", test_inputs_on_open);
  g_test_add_func ("/cli/train/ranges-and-devices", test_ranges_and_devices);
  g_test_add_func ("/cli/train/run-dir/resume-own-folder", test_run_dir_resume_own_folder);
  g_test_add_func ("/cli/train/run-dir/name", test_run_dir_name);
  g_test_add_func ("/cli/train/run-dir/refused-resume", test_run_dir_refused_resume);
  g_test_add_func ("/cli/train/run-dir/killed-resumes", test_run_dir_killed_resumes);
  g_test_add_func ("/cli/train/run-dir/corrupt-line", test_run_dir_corrupt_line);
  g_test_add_func ("/cli/train/resume-missing", test_resume_missing);
  g_test_add_func ("/cli/devices/cpu-peak", test_devices);
  g_test_add_func ("/cli/bench/matmul", test_bench_matmul);

  ret = g_test_run ();
  remove_tree (tmpdir);
  g_free (tmpdir);
  return ret;
}
