/* nk-test-util.c: what the tests share: running napkin-cli, temporary folders
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "nk-autograd.h"
#include "nk-run-dir.h"
#include "nk-test-util.h"

void
nk_test_run_clear (NkTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

/**
 * nk_test_cli_path:
 *
 * Returns: (nullable): the napkin-cli meson test puts in $NAPKIN_CLI, or %NULL
 *   (after g_test_skip()) when the test runs on its own
 */
const char *
nk_test_cli_path (void)
{
  const char *cli = g_getenv ("NAPKIN_CLI");

  if (cli == NULL)
    g_test_skip ("NAPKIN_CLI is not set (run through meson test)");
  return cli;
}

/* A pipe's bytes as a string (cut at a NUL; the length is kept beside it); an
 * empty GBytes may have NULL data. */
static char *
bytes_to_string (GBytes *bytes)
{
  gsize size = bytes != NULL ? g_bytes_get_size (bytes) : 0;

  return g_strndup (size > 0 ? g_bytes_get_data (bytes, NULL) : "", size);
}

/* A launcher for napkin-cli @command @args, with @env ("NAME=VALUE" pairs) set
 * over the test's own environment. */
static GSubprocessLauncher *
cli_launcher (const char        *cli,
              const char *const *env,
              const char        *command,
              const char *const *args,
              GSubprocessFlags   flags,
              GPtrArray         *argv)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);

  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (env[i], "=", 2);

      g_assert_nonnull (pair[1]);
      g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
    }
  g_ptr_array_add (argv, (gpointer) cli);
  if (command != NULL)
    g_ptr_array_add (argv, (gpointer) command);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return launcher;
}

/**
 * nk_test_spawn_cli:
 * @command: (nullable): the subcommand put before @args ("train"), or %NULL
 * @args: NULL-terminated arguments
 * @flags: how to connect its standard streams (a pipe to read while it runs)
 *
 * Starts napkin-cli and returns without waiting, for a test that reads its output
 * as it comes or stops it (g_subprocess_force_exit()).
 *
 * Returns: (transfer full) (nullable): the process, or %NULL (the test skipped)
 *   outside meson test
 */
GSubprocess *
nk_test_spawn_cli (const char        *command,
                   const char *const *args,
                   GSubprocessFlags   flags)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = nk_test_cli_path ();
  GSubprocess *process;

  if (cli == NULL)
    return NULL;
  launcher = cli_launcher (cli, NULL, command, args, flags, argv);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

/**
 * nk_test_run_cli_env:
 * @run: (out caller-allocates): cleared, then filled
 * @env: (nullable): NULL-terminated "NAME=VALUE" pairs to set for the run
 *   (LANGUAGE=de), over the test's environment
 * @command: (nullable): the subcommand put before @args ("train"), or %NULL
 * @args: NULL-terminated arguments
 * @input: (nullable): bytes for standard input (may hold NULs), or %NULL for none
 * @input_len: the length of @input
 *
 * Runs napkin-cli and waits for it, capturing stdout and stderr whole.
 *
 * Returns: %FALSE (the test skipped) outside meson test
 */
gboolean
nk_test_run_cli_env (NkTestRun         *run,
                     const char *const *env,
                     const char        *command,
                     const char *const *args,
                     const char        *input,
                     gsize              input_len)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GBytes) in = input != NULL ? g_bytes_new (input, input_len) : NULL;
  g_autoptr(GBytes) out = NULL, err = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = nk_test_cli_path ();

  nk_test_run_clear (run);
  run->status = -1;
  if (cli == NULL)
    return FALSE;
  launcher = cli_launcher (cli, env, command, args,
                           (input != NULL ? G_SUBPROCESS_FLAGS_STDIN_PIPE : 0) |
                           G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, argv);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate (process, in, NULL, &out, &err, &error));
  g_assert_no_error (error);
  run->out = bytes_to_string (out);
  run->err = bytes_to_string (err);
  run->out_len = out != NULL ? g_bytes_get_size (out) : 0;
  run->err_len = err != NULL ? g_bytes_get_size (err) : 0;
  if (g_subprocess_get_if_exited (process))
    run->status = g_subprocess_get_exit_status (process);
  return TRUE;
}

/**
 * nk_test_run_cli:
 * @run: (out caller-allocates): cleared, then filled
 * @command: (nullable): the subcommand put before @args ("train"), or %NULL
 * @args: NULL-terminated arguments
 * @input: (nullable): bytes for standard input (may hold NULs), or %NULL for none
 * @input_len: the length of @input
 *
 * nk_test_run_cli_env() in the test's own environment.
 *
 * Returns: %FALSE (the test skipped) outside meson test
 */
gboolean
nk_test_run_cli (NkTestRun         *run,
                 const char        *command,
                 const char *const *args,
                 const char        *input,
                 gsize              input_len)
{
  return nk_test_run_cli_env (run, NULL, command, args, input, input_len);
}

/**
 * nk_test_cli:
 * @command: (nullable): the subcommand put before @args, or %NULL
 * @args: NULL-terminated arguments
 * @out: (out) (optional): stdout
 * @err: (out) (optional): stderr (captured either way, to keep it out of the log)
 *
 * nk_test_run_cli() without standard input, for tests that want the exit code.
 *
 * Returns: napkin-cli's exit status, -1 when it did not exit (or did not run)
 */
int
nk_test_cli (const char        *command,
             const char *const *args,
             char             **out,
             char             **err)
{
  g_auto(NkTestRun) run = { 0 };

  nk_test_run_cli (&run, command, args, NULL, 0);
  if (out != NULL)
    *out = g_steal_pointer (&run.out);
  if (err != NULL)
    *err = g_steal_pointer (&run.err);
  return run.status;
}

/**
 * nk_test_random_f64:
 * @rng: the generator
 * @ndim: dims
 * @shape: (array length=ndim): sizes
 * @positive: %TRUE for |N(0, 1)| + 0.5 (inputs of log, sqrt, division)
 *
 * Returns: (transfer full): a contiguous f64 tensor of N(0, 1) draws
 */
NkTensor *
nk_test_random_f64 (NkRng        *rng,
                    int           ndim,
                    const gint64 *shape,
                    gboolean      positive)
{
  g_autoptr(GError) error = NULL;
  g_autofree double *v = NULL;
  gint64 n = 1;
  NkTensor *t;

  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  v = g_new (double, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    {
      v[i] = nk_rng_normal (rng, 0.0, 1.0);
      if (positive)
        v[i] = fabs (v[i]) + 0.5;
    }
  t = nk_tensor_new_from_doubles (NK_DTYPE_F64, ndim, shape, v, &error);
  g_assert_no_error (error);
  return t;
}

/**
 * nk_test_weighted_sum:
 * @y: a recorded tensor
 * @error: return location for a #GError
 *
 * Σ w ⊙ y with fixed random weights w, so a gradient check's upstream gradient is
 * not all ones.
 *
 * Returns: (transfer full) (nullable): the scalar
 */
NkTensor *
nk_test_weighted_sum (NkTensor  *y,
                      GError   **error)
{
  g_autoptr(NkRng) rng = nk_rng_new (99);
  g_autoptr(NkTensor) w = nk_test_random_f64 (rng, y->ndim, y->shape, FALSE);
  g_autoptr(NkTensor) p = nk_ag_mul (y, w, error);

  return p != NULL ? nk_ag_sum (p, error) : NULL;
}

/**
 * nk_test_filled:
 * @dtype: the element type
 * @ndim: dims
 * @shape: (array length=ndim): sizes
 * @salt: makes tensors of the same shape differ
 *
 * A tensor whose element i (in row-major order) is
 * ((7 i + 5 salt) mod 23 − 11) / 4 + 1/8: small multiples of 1/8, never 0, so
 * exact in every format down to fp16 and bf16 and safe to divide by.
 *
 * Returns: (transfer full): a contiguous tensor
 */
NkTensor *
nk_test_filled (NkDType       dtype,
                int           ndim,
                const gint64 *shape,
                int           salt)
{
  g_autoptr(GError) error = NULL;
  g_autofree double *v = NULL;
  gint64 n = 1;
  NkTensor *t;

  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  v = g_new (double, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    v[i] = (double) (((i * 7 + salt * 5) % 23) - 11) / 4.0 + 0.125;
  t = nk_tensor_new_from_doubles (dtype, ndim, shape, v, &error);
  g_assert_no_error (error);
  return t;
}

/**
 * nk_test_make_temp_dir:
 * @name: a prefix for the folder's name ("napkin-ck")
 *
 * Returns: (transfer full): a new empty folder under the temporary directory
 */
char *
nk_test_make_temp_dir (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *pattern = g_strconcat (name, "-XXXXXX", NULL);
  char *dir = g_dir_make_tmp (pattern, &error);

  g_assert_no_error (error);
  return dir;
}

/**
 * nk_test_remove_tree:
 * @path: a file or folder
 *
 * Removes @path and, for a folder, everything in it (symbolic links are removed,
 * never followed).
 */
void
nk_test_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      dir = g_dir_open (path, 0, NULL);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          nk_test_remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

NkTrainConfig *
nk_test_done_means_gpt (NkPrecision precision)
{
  NkTrainConfig *c = nk_train_config_new ();

  c->model = NK_MODEL_GPT;
  c->dim = 128;
  c->layers = 4;
  c->n_head = 4;
  c->context = 64;
  c->batch = 16;
  c->precision = precision;
  return c;
}

NkTrainConfig *
nk_test_small_run_config (const char *dir,
                          guint64     steps,
                          gboolean    resume)
{
  NkTrainConfig *c = nk_train_config_new ();

  c->dim = 4;
  c->layers = 1;
  c->batch = 2;
  c->steps = steps;
  c->checkpoint_every = 10;
  c->checkpoint_dir = nk_run_dir_get_checkpoint_dir (dir);
  if (resume)
    c->resume_dir = nk_run_dir_get_checkpoint_dir (dir);
  return c;
}

void
nk_test_hadamard16 (double h[16][16])
{
  h[0][0] = 1.0;
  for (guint n = 1; n < 16; n *= 2)
    for (guint i = 0; i < n; i++)
      for (guint j = 0; j < n; j++)
        {
          h[i][j + n] = h[i][j];
          h[i + n][j] = h[i][j];
          h[i + n][j + n] = -h[i][j];
        }
}
