/* nk-test-util.h: what the tests share: running napkin-cli, temporary folders, test tensors
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One home for the spawning and clean-up code every CLI and file test needs, so a
 * fix (capturing stderr, bytes with NULs on stdin, a missing NAPKIN_CLI, a locale
 * for one run) lands once; for the random inputs and weighted loss the gradient
 * checks share; and for the patterned tensors the op tests fill.
 */
#pragma once

#include <gio/gio.h>
#include <glib.h>

#include "nk-rng.h"
#include "nk-tensor.h"
#include "nk-train-config.h"

G_BEGIN_DECLS

/* One napkin-cli run: its exit status (-1 if it did not exit) and what it printed
 * (the lengths are the bytes printed: more than strlen() when a NUL was printed). */
typedef struct {
  int    status;
  char  *out;
  char  *err;
  gsize  out_len;
  gsize  err_len;
} NkTestRun;

void        nk_test_run_clear      (NkTestRun          *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NkTestRun, nk_test_run_clear)

const char *nk_test_cli_path       (void);
gboolean    nk_test_run_cli        (NkTestRun          *run,
                                    const char         *command,
                                    const char *const  *args,
                                    const char         *input,
                                    gsize               input_len);
gboolean    nk_test_run_cli_env    (NkTestRun          *run,
                                    const char *const  *env,
                                    const char         *command,
                                    const char *const  *args,
                                    const char         *input,
                                    gsize               input_len);
GSubprocess *nk_test_spawn_cli     (const char         *command,
                                    const char *const  *args,
                                    GSubprocessFlags    flags);

int         nk_test_cli            (const char         *command,
                                    const char *const  *args,
                                    char              **out,
                                    char              **err);

NkTensor   *nk_test_random_f64     (NkRng              *rng,
                                    int                 ndim,
                                    const gint64       *shape,
                                    gboolean            positive);
NkTensor   *nk_test_weighted_sum   (NkTensor           *y,
                                    GError            **error);
NkTensor   *nk_test_filled         (NkDType             dtype,
                                    int                 ndim,
                                    const gint64       *shape,
                                    int                 salt);

/* Issue 12's Done-means GPT (d 128, L 4, H 4, T 64, B 16, bytes) in @precision. */
NkTrainConfig *nk_test_done_means_gpt (NkPrecision     precision);

/* A Cruncher small enough to run 80 steps in milliseconds, with a checkpoint every
 * ten steps in run folder @dir's checkpoints/ (and resuming from there when @resume). */
NkTrainConfig *nk_test_small_run_config (const char *dir,
                                         guint64     steps,
                                         gboolean    resume);

/* Sylvester's 16 × 16 Hadamard matrix, h[i][j] = ±1, by doubling [1] four times:
 * the oracle of NVFP4's weight-gradient rotation. */
void        nk_test_hadamard16     (double              h[16][16]);

char       *nk_test_make_temp_dir  (const char         *name);
void        nk_test_remove_tree    (const char         *path);

G_END_DECLS
