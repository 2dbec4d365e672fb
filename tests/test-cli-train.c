/* test-cli-train.c: `napkin-cli train`: JSON lines, kill-and-resume, bad inputs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nk-npy.h"

static char *tmpdir;

static const char *
cli (void)
{
  const char *path = g_getenv ("NAPKIN_CLI");

  g_assert_nonnull (path);
  return path;
}

/* Runs napkin-cli with @args (NULL-terminated after "train"); returns the exit code. */
static int
run_cli (const char *const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out_sink = NULL, *err_sink = NULL;
  int status = -1;

  /* Capture even what the caller does not read, so it stays out of the test log. */
  if (out == NULL)
    out = &out_sink;
  if (err == NULL)
    err = &err_sink;
  g_ptr_array_add (argv, (gpointer) cli ());
  g_ptr_array_add (argv, (gpointer) "train");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

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

  g_assert_cmpint (run_cli (args, &out, &err), ==, 0);
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

/* Reads lines from @fd until one has "step" ≥ @step; returns the last step seen. */
static gint64
read_until_step (int     fd,
                 gint64  step)
{
  g_autoptr(GString) line = g_string_new (NULL);
  gint64 seen = 0;
  char c;

  while (seen < step && read (fd, &c, 1) == 1)
    {
      if (c != '\n')
        {
          g_string_append_c (line, c);
          continue;
        }
      {
        g_autoptr(JsonObject) o = parse_line (line->str);

        if (json_object_has_member (o, "step"))
          seen = json_object_get_int_member (o, "step");
      }
      g_string_truncate (line, 0);
    }
  return seen;
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
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL, *b = NULL, *out = NULL, *err = NULL;
  gsize la, lb;
  GPid pid;
  int out_fd, status;
  gint64 seen;

  /* The run that is never interrupted. */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new ();

    for (guint i = 0; i < G_N_ELEMENTS (common); i++)
      g_ptr_array_add (args, (gpointer) common[i]);
    g_ptr_array_add (args, (gpointer) "--save");
    g_ptr_array_add (args, whole);
    g_ptr_array_add (args, NULL);
    g_assert_cmpint (run_cli ((const char *const *) args->pdata, NULL, NULL), ==, 0);
  }

  /* The same run with checkpoints, killed mid-run. Our reading paces it: a child
   * that is ahead blocks on the full pipe. */
  g_ptr_array_add (argv, (gpointer) cli ());
  g_ptr_array_add (argv, (gpointer) "train");
  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (argv, (gpointer) common[i]);
  g_ptr_array_add (argv, (gpointer) "--checkpoint-dir");
  g_ptr_array_add (argv, ckdir);
  g_ptr_array_add (argv, (gpointer) "--checkpoint-every");
  g_ptr_array_add (argv, (gpointer) "37");
  g_ptr_array_add (argv, (gpointer) "--json-lines");
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
                                           NULL, &out_fd, NULL, &error));
  g_assert_no_error (error);
  seen = read_until_step (out_fd, 300);
  g_assert_cmpint (seen, >=, 300);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  close (out_fd);
  g_spawn_close_pid (pid);

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
    g_assert_cmpint (run_cli ((const char *const *) args->pdata, &out, &err), ==, 0);
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

  g_assert_cmpint (run_cli (args, &out, &err), ==, code);
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

    g_assert_cmpint (run_cli (make, NULL, NULL), ==, 0);
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
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  int status;

  g_ptr_array_add (argv, (gpointer) cli ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  lines = g_strsplit (g_strstrip (out), "\n", -1);
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
  const char *argv[] = { "/usr/bin/python3", script, cli (), work, NULL };
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
  g_test_add_func ("/cli/devices/cpu-peak", test_devices);
  g_test_add_func ("/cli/bench/matmul", test_bench_matmul);

  ret = g_test_run ();
  remove_tree (tmpdir);
  g_free (tmpdir);
  return ret;
}
