/* run-folders.h: run folders of the five low-precision recipes, written by hand for the tests
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * meta.json, config.json (issue 12's GPT in a recipe, with its seed) and
 * metrics.jsonl lines typed with printf from closed forms of the recipe, seed and
 * step (%.17g: every number reads back exactly), as benchmarks/train-low-precision
 * leaves them; read back as the Training page reads them.
 */
#pragma once

#include "napkin-run.h"

G_BEGIN_DECLS

typedef struct {
  const char    *name;
  NkPrecision    precision;
  NkMxScaleRule  rule;
  gboolean       nearest;
  const char    *recipe;   /* how Compare Runs names it (napkin_run_compare_dup_recipe()) */
} NkTestRecipe;

#define NK_TEST_N_RECIPES 5

/* bf16-mixed, mxfp8 scale up, mxfp8 scale floor, nvfp4 stochastic, nvfp4 nearest */
extern const NkTestRecipe nk_test_recipes[NK_TEST_N_RECIPES];

typedef double (*NkTestCurve) (guint recipe,
                               guint seed,
                               guint step);

char      *nk_test_write_run_folder (const char  *root,
                                     guint        recipe,
                                     guint        seed,
                                     guint        n_steps,
                                     NkTestCurve  loss,
                                     NkTestCurve  flushed,
                                     NkTestCurve  clipped);
NapkinRun *nk_test_read_run_folder  (const char  *dir,
                                     guint        index);

G_END_DECLS
