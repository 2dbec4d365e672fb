/* test-planner-cluster.c: the Planner page's Parallelism and Cluster Step groups, and the step-time bar's pixels
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the plan's properties (the form edits nothing else), the settings
 * keys, `napkin-cli plan --export` run in a child process (the page must write
 * its bytes), and for the bar the part edges computed here from the values.
 */
#include "config.h"

#include <math.h>
#include <glib/gstdio.h>

#include "napkin-application.h"
#include "napkin-cluster-form.h"
#include "napkin-cluster-results.h"
#include "napkin-planner-page-private.h"
#include "napkin-stacked-bar.h"
#include "nk-gpt.h"
#include "nk-train-config.h"
#include "nk-test-ui-util.h"
#include "nk-test-util.h"

static void
type (NapkinPlannerPage *page,
      const char        *input,
      const char        *text)
{
  gtk_editable_set_text (_napkin_planner_page_get_entry (page, input), text);
}

/* A Llama-7B-like model on 64 H100s: the shape and batch the cluster needs. */
static NapkinPlannerPage *
cluster_page (void)
{
  NapkinPlannerPage *page = NAPKIN_PLANNER_PAGE (g_object_ref_sink (napkin_planner_page_new ()));

  type (page, "layers", "32");
  type (page, "d-model", "4096");
  type (page, "heads", "32");
  type (page, "seq", "4096");
  type (page, "vocab", "32000");
  type (page, "batch", "256");
  type (page, "gpus", "64");
  type (page, "params", "7B");
  type (page, "tokens", "1T");
  return page;
}

/* Each control edits its plan property and the plan's changes show in it. */
static void
test_form_binds_plan (void)
{
  NapkinPlannerPage *page = cluster_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterForm *form = NAPKIN_CLUSTER_FORM (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_FORM));
  NapkinClusterResults *results =
    NAPKIN_CLUSTER_RESULTS (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS));
  int tp, recompute;
  gboolean sp;

  g_assert_nonnull (form);
  g_assert_nonnull (results);
  g_assert_true (napkin_cluster_form_get_plan (form) == plan);
  g_assert_true (napkin_cluster_results_get_plan (results) == plan);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, "tp")), 2);
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "recompute")), 1);
  gtk_switch_set_active (GTK_SWITCH (_napkin_cluster_form_get_control (form, "sequence-parallel")), TRUE);
  g_object_get (plan, "tp", &tp, "recompute", &recompute, "sequence-parallel", &sp, NULL);
  g_assert_cmpint (tp, ==, 2);
  g_assert_cmpint (recompute, ==, NK_RECOMPUTE_SELECTIVE);
  g_assert_true (sp);
  g_assert_cmpfloat (nk_plan_get_output (plan, "layout-dp"), ==, 32);   /* 64 / 2 */

  g_object_set (plan, "pp", 4, NULL);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, "pp"))),
                     ==, 4);
  g_assert_nonnull (strstr (_napkin_cluster_results_get_step_text (results), "per step"));
  g_assert_finalize_object (page);
}

/* The layout is kept in settings, "planner-" + the property name. */
static void
test_form_settings (void)
{
  g_autoptr(GSettings) settings = napkin_settings_new ();
  NapkinPlannerPage *page = cluster_page ();
  NapkinClusterForm *form = NAPKIN_CLUSTER_FORM (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_FORM));
  g_autofree char *ffn = NULL;
  int pp;

  g_assert_nonnull (settings);
  g_settings_set_int (settings, "planner-pp", 2);
  napkin_planner_page_set_settings (page, settings);
  g_assert_true (napkin_cluster_form_get_settings (form) == settings);
  /* the stored value reached the plan (the page's keys replaced the typed shape) */
  g_object_get (napkin_planner_page_get_plan (page), "pp", &pp, NULL);
  g_assert_cmpint (pp, ==, 2);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, "pp"))),
                     ==, 2);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, "tp")), 4);
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "ffn")), 1);
  g_assert_cmpint (g_settings_get_int (settings, "planner-tp"), ==, 4);
  ffn = g_settings_get_string (settings, "planner-ffn");
  g_assert_cmpstr (ffn, ==, "swiglu");

  napkin_planner_page_set_settings (page, NULL);
  g_settings_reset (settings, "planner-tp");
  g_settings_reset (settings, "planner-pp");
  g_settings_reset (settings, "planner-ffn");
  g_assert_finalize_object (page);
}

/* "Export Launch Config" writes what `napkin-cli plan ... --export` prints. */
static void
test_export_matches_cli (void)
{
  static const NkLaunchEngine engines[] = {
    NK_LAUNCH_ENGINE_DEEPSPEED, NK_LAUNCH_ENGINE_MEGATRON, NK_LAUNCH_ENGINE_TORCHTITAN,
  };
  NapkinPlannerPage *page = cluster_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterResults *results =
    NAPKIN_CLUSTER_RESULTS (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS));
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-cluster");

  /* torchtitan wants Llama's shape: SwiGLU, untied, a ZeRO stage with TP */
  type (page, "d-ff", "11008");
  g_object_set (plan, "tp", 2, "micro-batch", 2, "ffn", NK_FFN_SWIGLU, "tied-embeddings", FALSE,
                "zero-stage", 1, "precision", NK_PRECISION_BF16_MIXED, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (engines); i++)
    {
      const char *engine = nk_launch_engine_to_string (engines[i]);
      const char *args[] = { "--params", "7B", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "64",
                             "--mfu", "0.5", "--layers", "32", "--d-model", "4096", "--heads", "32",
                             "--seq", "4096", "--vocab", "32000", "--d-ff", "11008", "--batch", "256",
                             "--tp", "2", "--micro-batch", "2", "--ffn", "swiglu", "--zero", "1",
                             "--precision", "mixed", "--export", engine, NULL };
      g_autofree char *path = g_build_filename (dir, nk_launch_engine_file_name (engines[i]), NULL);
      g_autofree char *written = NULL;
      g_autoptr(GError) error = NULL;
      g_auto(NkTestRun) run = { 0 };

      if (engines[i] == NK_LAUNCH_ENGINE_DEEPSPEED)
        {
          /* DeepSpeed's config cannot say TP: its export refuses with the rule */
          g_assert_false (napkin_cluster_results_export (results, engines[i], path, &error));
          g_assert_error (error, NK_LAUNCH_ERROR, NK_LAUNCH_ERROR_UNSUPPORTED);
          continue;
        }
      g_assert_true (napkin_cluster_results_export (results, engines[i], path, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
      if (!nk_test_run_cli (&run, "plan", args, NULL, 0))
        continue;
      g_test_message ("%s: %s", engine, run.err);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (written, ==, run.out);
    }
  nk_test_remove_tree (dir);
  g_assert_finalize_object (page);
}


/* Issue 12: the "Napkin's GPT" preset plans the Training page's GPT run. Oracles:
 * the trainer's own parameter count (params, grads, optimizer state are 4, 4 and
 * 8 bytes each, exactly) and the bytes the GPT stores (within 5 %); the Training
 * page's keys get the same run. */
static void
test_gpt_preset (void)
{
  g_autoptr(GSettings) settings = napkin_settings_new ();
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  NapkinPlannerPage *page = NAPKIN_PLANNER_PAGE (g_object_ref_sink (napkin_planner_page_new ()));
  NkPlan *plan = napkin_planner_page_get_plan (page);
  double n, stored;
  g_autofree char *model = NULL;
  g_autofree char *lr = NULL;

  napkin_planner_page_set_settings (page, settings);
  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "gpt");

  config->model = NK_MODEL_GPT;
  config->dim = 128;
  config->layers = 4;
  config->n_head = 4;
  config->context = 64;
  config->batch = 16;
  n = (double) nk_train_config_count_parameters (config);
  g_assert_cmpfloat (nk_plan_get_params (plan), ==, n);
  g_assert_cmpfloat (nk_plan_get_output (plan, "memory-max-params"), ==, 4 * n);
  g_assert_cmpfloat (nk_plan_get_output (plan, "memory-max-grads"), ==, 4 * n);
  g_assert_cmpfloat (nk_plan_get_output (plan, "memory-max-optimizer"), ==, 8 * n);
  stored = nk_gpt_activation_bytes (nk_train_config_get_vocab (config), 128, 4, 4, 16, 64, NK_DTYPE_F32);
  g_assert_cmpfloat (fabs (nk_plan_get_output (plan, "memory-max-activations") / stored - 1), <=, 0.05);
  /* "Activations by tensor": Q, K and V are 3 of the 4-byte s·b·h a layer, 6 MiB of the
   * plan's 46,342,144 B (test-gpt-accounting counts every term by hand); the scores
   * before softmax are no term of the plan's, so their line is hidden */
  {
    NapkinClusterResults *results =
      NAPKIN_CLUSTER_RESULTS (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS));
    g_autofree char *qkv = g_strdup_printf ("Q, K and V: 6 MiB, %.1f %%", 100.0 * 4 * 3 * 1024 * 128 * 4 / 46342144);

    g_assert_cmpfloat (nk_plan_get_output (plan, "memory-max-activations"), ==, 46342144);
    g_assert_cmpstr (_napkin_cluster_results_get_term_text (results, NK_ACT_TERM_QKV), ==, qkv);
    g_assert_cmpstr (_napkin_cluster_results_get_term_text (results, NK_ACT_TERM_SCORES), ==, "");
  }

  model = g_settings_get_string (settings, "training-model");
  g_assert_cmpstr (model, ==, "gpt");
  g_assert_cmpint (g_settings_get_int (settings, "training-n-head"), ==, 4);
  lr = g_settings_get_string (settings, "training-lr");
  g_assert_cmpfloat (g_ascii_strtod (lr, NULL), ==, 0.001);   /* nanoGPT's shakespeare_char rate */

  napkin_planner_page_set_settings (page, NULL);
  g_settings_reset (settings, "training-model");
  g_settings_reset (settings, "training-layers");
  g_settings_reset (settings, "training-dim");
  g_settings_reset (settings, "training-n-head");
  g_settings_reset (settings, "training-context");
  g_settings_reset (settings, "training-batch");
  g_settings_reset (settings, "training-steps");
  g_settings_reset (settings, "training-optimizer");
  g_settings_reset (settings, "training-precision");
  g_settings_reset (settings, "training-lr");
  g_assert_finalize_object (page);
}

/* ---------------------------------------------------------------- the bar */

static gboolean
same_color (const guint8  *argb,
            const GdkRGBA *color)
{
  guint32 v = *(const guint32 *) (gconstpointer) argb;
  double r = ((v >> 16) & 0xff) / 255.0, g = ((v >> 8) & 0xff) / 255.0, b = (v & 0xff) / 255.0;

  return ((v >> 24) & 0xff) == 0xff
         && fabs (r - color->red) + fabs (g - color->green) + fabs (b - color->blue) < 0.05;
}

/* Every part covers exactly the pixel columns its share of the sum gives it; a
 * zero part covers none. */
static void
test_stacked_bar_pixels (void)
{
  static const double values[] = { 3, 1, 0, 2, 4 };
  static const char *const labels[] = { "a", "b", "c", "d", "e" };
  const int width = 500, height = 80;
  NapkinStackedBar *bar = NAPKIN_STACKED_BAR (g_object_ref_sink (napkin_stacked_bar_new ()));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  graphene_rect_t rect;
  double total = 10, before = 0;
  const guint8 *row;

  napkin_stacked_bar_set_parts (bar, G_N_ELEMENTS (values), values, labels);
  napkin_stacked_bar_draw (bar, cr, width, height);
  cairo_surface_flush (surface);
  napkin_stacked_bar_get_bar_rect (bar, width, &rect);
  row = cairo_image_surface_get_data (surface)
        + (int) (rect.origin.y + rect.size.height / 2) * cairo_image_surface_get_stride (surface);

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      GdkRGBA color;
      int left = (int) round (before / total * width), right = (int) round ((before + values[i]) / total * width);
      int covered = 0;

      napkin_stacked_bar_get_color (bar, i, &color);
      for (int x = 0; x < width; x++)
        {
          gboolean inside = x >= left && x < right;

          if (same_color (row + 4 * x, &color))
            {
              covered++;
              g_assert_true (inside);
            }
        }
      g_assert_cmpint (covered, ==, right - left);
      before += values[i];
    }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_assert_finalize_object (bar);
}

/* A legend entry wider than the bar (the step bar in a 360 px window:
 * "exposed data-parallel communication 132 ms") wraps within the width it is
 * drawn in: drawn 160 px wide on a 400 px surface, no pixel right of 160 is
 * painted. */
static void
test_stacked_bar_legend_wraps (void)
{
  static const double values[] = { 3, 1 };
  static const char *const labels[] = { "compute 11.9 s", "exposed data-parallel communication 132 ms" };
  const int width = 160, surface_w = 400, height = 200;
  NapkinStackedBar *bar = NAPKIN_STACKED_BAR (g_object_ref_sink (napkin_stacked_bar_new ()));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, surface_w, height);
  cairo_t *cr = cairo_create (surface);
  const guint8 *data;
  int stride, painted = 0;

  napkin_stacked_bar_set_parts (bar, G_N_ELEMENTS (values), values, labels);
  napkin_stacked_bar_draw (bar, cr, width, height);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < height; y++)
    for (int x = width; x < surface_w; x++)
      painted += data[y * stride + 4 * x + 3] != 0;
  g_assert_cmpint (painted, ==, 0);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_assert_finalize_object (bar);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/planner-cluster/form/binds-plan", test_form_binds_plan);
  g_test_add_func ("/ui/planner-cluster/form/settings", test_form_settings);
  g_test_add_func ("/ui/planner-cluster/export-matches-cli", test_export_matches_cli);
  g_test_add_func ("/ui/planner-cluster/gpt-preset", test_gpt_preset);
  g_test_add_func ("/ui/planner-cluster/stacked-bar/pixels", test_stacked_bar_pixels);
  g_test_add_func ("/ui/planner-cluster/stacked-bar/legend-wraps", test_stacked_bar_legend_wraps);
  return g_test_run ();
}
