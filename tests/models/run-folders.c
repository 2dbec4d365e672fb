/* run-folders.c: run folders of the five low-precision recipes, written by hand for the tests
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "nk-test-util.h"
#include "run-folders.h"

const NkTestRecipe nk_test_recipes[NK_TEST_N_RECIPES] = {
  { "bf16", NK_PRECISION_BF16_MIXED, NK_MX_SCALE_UP, FALSE, "bf16-mixed" },
  { "mxfp8up", NK_PRECISION_MXFP8, NK_MX_SCALE_UP, FALSE, "MXFP8, scale rounded up" },
  { "mxfp8floor", NK_PRECISION_MXFP8, NK_MX_SCALE_FLOOR, FALSE, "MXFP8, scale floored (OCP)" },
  { "nvfp4SR", NK_PRECISION_NVFP4, NK_MX_SCALE_UP, FALSE, "NVFP4, stochastic rounding" },
  { "nvfp4nearest", NK_PRECISION_NVFP4, NK_MX_SCALE_UP, TRUE, "NVFP4, nearest rounding" },
};

/* Returns: (transfer full): the folder root/<recipe>-seed<seed>, named so, finished, with
 * @n_steps steps; the shares only for the block-scaled recipes, as the trainer writes */
char *
nk_test_write_run_folder (const char  *root,
                          guint        r,
                          guint        seed,
                          guint        n_steps,
                          NkTestCurve  loss,
                          NkTestCurve  flushed,
                          NkTestCurve  clipped)
{
  g_autofree char *name = g_strdup_printf ("%s-seed%u", nk_test_recipes[r].name, seed);
  char *dir = g_build_filename (root, name, NULL);
  g_autofree char *meta = g_build_filename (dir, "meta.json", NULL);
  g_autofree char *config_path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *metrics = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autoptr(NkTrainConfig) c = nk_test_done_means_gpt (nk_test_recipes[r].precision);
  g_autofree char *config = NULL;
  g_autofree char *meta_text = NULL;
  g_autoptr(GString) lines = g_string_new (NULL);

  c->mx_scale = nk_test_recipes[r].rule;
  c->nvfp4_nearest = nk_test_recipes[r].nearest;
  c->seed = seed;
  c->steps = n_steps;
  config = nk_train_config_to_json (c);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  meta_text = g_strdup_printf ("{\"version\":1,\"name\":\"%s\",\"created\":1795859101,"
                               "\"status\":\"finished\"}", name);
  g_assert_true (g_file_set_contents (meta, meta_text, -1, NULL));
  g_assert_true (g_file_set_contents (config_path, config, -1, NULL));
  for (guint s = 1; s <= n_steps; s++)
    {
      g_string_append_printf (lines, "{\"step\":%u,\"loss\":%.17g,\"seconds\":0.5,\"precision\":\"%s\"", s,
                              loss (r, seed, s), nk_precision_to_string (nk_test_recipes[r].precision));
      if (nk_precision_is_block_scaled (nk_test_recipes[r].precision))
        g_string_append_printf (lines, ",\"quant_flushed\":%.17g,\"quant_clipped\":%.17g",
                                flushed (r, seed, s), clipped (r, seed, s));
      g_string_append (lines, "}\n");
    }
  g_assert_true (g_file_set_contents (metrics, lines->str, lines->len, NULL));
  return dir;
}

/* Returns: (transfer full): the run in @dir as the Training page lists it (steps not read yet) */
NapkinRun *
nk_test_read_run_folder (const char *dir,
                         guint       index)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRunInfo) info = nk_run_info_read (dir, &error);
  NapkinRun *run;

  g_assert_no_error (error);
  run = napkin_run_new_from_folder (info, index, &error);
  g_assert_no_error (error);
  return run;
}
