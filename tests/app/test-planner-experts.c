/* test-planner-experts.c: the Planner's runs of 2026: the Mixture of experts row, the published-run presets, the step bar's expert all-to-all
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the plan's properties (the form edits nothing else) and the engine's
 * own sentences (the form shows them, verbatim); parameter counts written out
 * here by hand from each model's published configuration (never the engine's
 * formula); and for the bar, the pixel columns each part must cover, computed
 * here from the plan's step-time outputs.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "napkin-cluster-form.h"
#include "napkin-cluster-results.h"
#include "napkin-memory-chart.h"
#include "napkin-planner-page-private.h"
#include "napkin-stacked-bar.h"
#include "nk-test-ui-util.h"
#include "nk-units.h"

static NapkinPlannerPage *
new_page (void)
{
  return NAPKIN_PLANNER_PAGE (g_object_ref_sink (napkin_planner_page_new ()));
}

static NapkinClusterForm *
form_of (NapkinPlannerPage *page)
{
  return NAPKIN_CLUSTER_FORM (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_FORM));
}

static void
type (NapkinPlannerPage *page,
      const char        *input,
      const char        *text)
{
  gtk_editable_set_text (_napkin_planner_page_get_entry (page, input), text);
}

static double
spin_value (NapkinClusterForm *form,
            const char        *property)
{
  return gtk_spin_button_get_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, property)));
}

static double
property_value (NkPlan     *plan,
                const char *property)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (plan), property);
  g_auto(GValue) value = G_VALUE_INIT;

  g_assert_nonnull (pspec);
  g_value_init (&value, pspec->value_type);
  g_object_get_property (G_OBJECT (plan), property, &value);
  if (G_VALUE_HOLDS_INT (&value))
    return g_value_get_int (&value);
  if (G_VALUE_HOLDS_BOOLEAN (&value))
    return g_value_get_boolean (&value);
  return g_value_get_double (&value);
}

/* Each expert control shows its plan property and edits it: a value set on
 * the plan reaches the spin button, a value spun reaches the plan. */
static void
test_experts_bind (void)
{
  static const struct { const char *property; double from_plan, from_row; } cases[] = {
    { "experts", 64, 128 },
    { "experts-per-token", 6, 4 },
    { "shared-experts", 2, 1 },
    { "expert-d-ff", 1408, 2048 },
    { "dense-layers", 1, 3 },
    { "ep", 8, 16 },
    { "etp", 2, 4 },
    { "expert-imbalance", 1.25, 1.5 },
    { "head-dim", 128, 64 },
    { "nvlink-domain", 72, 36 },
    { "first-stage-layers", 3, 5 },
    { "last-stage-layers", 2, 1 },
    { "q-lora-rank", 1536, 768 },
    { "kv-lora-rank", 512, 256 },
    { "qk-nope-head-dim", 128, 64 },
    { "qk-rope-head-dim", 64, 32 },
    { "v-head-dim", 128, 96 },
  };
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterForm *form = form_of (page);

  g_assert_nonnull (form);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *p = cases[i].property;

      g_assert_nonnull (_napkin_cluster_form_get_control (form, p));
      if (g_str_equal (p, "expert-imbalance"))
        g_object_set (plan, p, cases[i].from_plan, NULL);
      else
        g_object_set (plan, p, (int) cases[i].from_plan, NULL);
      g_assert_cmpfloat (spin_value (form, p), ==, cases[i].from_plan);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, p)), cases[i].from_row);
      g_assert_cmpfloat (property_value (plan, p), ==, cases[i].from_row);
    }

  /* the dropout switch and the FFN list's third item (squared ReLU) */
  gtk_switch_set_active (GTK_SWITCH (_napkin_cluster_form_get_control (form, "dropout")), FALSE);
  g_assert_cmpfloat (property_value (plan, "dropout"), ==, 0);
  g_object_set (plan, "dropout", TRUE, NULL);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (_napkin_cluster_form_get_control (form, "dropout"))));
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "ffn")), 2);
  {
    NkFfn ffn;

    g_object_get (plan, "ffn", &ffn, NULL);
    g_assert_cmpint (ffn, ==, NK_FFN_RELU2);
  }
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "attention")), 1);
  {
    NkAttention attention;
    NkPlanRecipe recipe;

    g_object_get (plan, "attention", &attention, NULL);
    g_assert_cmpint (attention, ==, NK_ATTENTION_MLA);
    g_object_set (plan, "attention", NK_ATTENTION_MHA, "recipe", NK_PLAN_RECIPE_MXFP8, NULL);
    g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "recipe"))),
                      ==, NK_PLAN_RECIPE_MXFP8);
    adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "recipe")), 4);
    g_object_get (plan, "recipe", &recipe, NULL);
    g_assert_cmpint (recipe, ==, NK_PLAN_RECIPE_NVFP4);
    g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "attention"))),
                      ==, 0);
  }
  g_assert_finalize_object (page);
}

/* A rule the experts break is the engine's sentence under the form and a red
 * row (the EP row, and the closed row that holds it); fixing it clears both. */
static void
test_experts_errors (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterForm *form = form_of (page);
  GtkWidget *ep_row;
  const char *sentence;

  type (page, "layers", "32");
  type (page, "d-model", "4096");
  type (page, "heads", "32");
  type (page, "seq", "4096");
  type (page, "batch", "256");
  type (page, "gpus", "64");
  /* a layout asked for (a micro-batch): a broken rule is then refused, not left out */
  g_object_set (plan, "micro-batch", 1, "experts", 6, "experts-per-token", 2, "ep", 4, NULL);
  ep_row = gtk_widget_get_ancestor (_napkin_cluster_form_get_control (form, "ep"), ADW_TYPE_ACTION_ROW);

  /* 6 experts do not split over 4 GPUs (Megatron-LM: num_moe_experts % EP == 0) */
  sentence = nk_plan_get_input_error (plan, "ep");
  g_assert_nonnull (sentence);
  g_assert_nonnull (strstr (_napkin_cluster_form_get_error_text (form), sentence));
  g_assert_true (gtk_widget_has_css_class (ep_row, "error"));
  g_assert_true (gtk_widget_has_css_class (gtk_widget_get_ancestor (ep_row, ADW_TYPE_EXPANDER_ROW), "error"));
  /* the Cluster Step says why it has no layout, in the same words */
  {
    NapkinClusterResults *results =
      NAPKIN_CLUSTER_RESULTS (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS));

    g_assert_nonnull (strstr (_napkin_cluster_results_get_status_text (results), sentence));
  }

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (_napkin_cluster_form_get_control (form, "ep")), 2);
  g_assert_null (nk_plan_get_input_error (plan, "ep"));
  g_assert_cmpstr (_napkin_cluster_form_get_error_text (form), ==, "");
  g_assert_false (gtk_widget_has_css_class (ep_row, "error"));
  g_assert_false (gtk_widget_has_css_class (gtk_widget_get_ancestor (ep_row, ADW_TYPE_EXPANDER_ROW), "error"));

  /* more experts per token than experts: the sentence is under experts-per-token */
  g_object_set (plan, "experts-per-token", 7, NULL);
  sentence = nk_plan_get_input_error (plan, "experts-per-token");
  g_assert_nonnull (sentence);
  g_assert_nonnull (strstr (_napkin_cluster_form_get_error_text (form), sentence));
  g_assert_finalize_object (page);
}

/* DeepSeek-V3 (config.json and the technical report, arXiv 2412.19437 §2.1
 * and §4.2), counted here by hand: hidden h = 7168, 61 layers, the first 3 with
 * a dense SwiGLU FFN of 18432, the other 58 with 256 routed and 1 shared
 * SwiGLU expert of 2048 and a 256 × h router, two RMSNorms a layer,
 * vocabulary 129280 untied, a final RMSNorm; latent attention: q_a_proj
 * h·1536, its norm 1536, q_b_proj 1536·128·(128 + 64), kv_a_proj h·(512 + 64),
 * its norm 512, kv_b_proj 512·128·(128 + 128), o_proj 128·128·h. The total is
 * the checkpoint's 671,026,419,200 less each MoE layer's 256 routing-bias
 * entries (58 · 256 = 14,848), which no optimizer trains; published: 671B
 * total, 37B active. */
static void
test_deepseek_v3_preset (void)
{
  const double h = 7168, L = 61, dense = 3, moe = 58, V = 129280;
  const double attention = h * 1536 + 1536 + 1536 * 128.0 * (128 + 64) + h * (512 + 64) + 512
                           + 512 * 128.0 * (128 + 128) + 128 * 128.0 * h;
  const double norms = 2 * h;
  const double dense_ffn = 3 * h * 18432, expert = 3 * h * 2048, router = 256 * h;
  const double common = L * (attention + norms) + dense * dense_ffn + 2 * V * h + h;
  const double total = common + moe * (256 * expert + expert + router);
  const double active = common + moe * (8 * expert + expert + router);
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterForm *form = form_of (page);

  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "deepseek-v3");
  g_assert_cmpfloat (total + moe * 256, ==, 671026419200.0);
  g_assert_cmpfloat (nk_plan_get_output (plan, "shape-params"), ==, total);
  g_assert_cmpfloat (nk_plan_get_output (plan, "shape-params-active"), ==, active);
  /* "Use the shape" put the total into Parameters */
  g_assert_cmpfloat (nk_plan_get_params (plan), ==, total);
  g_assert_cmpstr (nk_plan_get_gpu (plan), ==, "h800");
  g_assert_cmpfloat (nk_plan_get_gpus (plan), ==, 2048);
  g_assert_cmpfloat (fabs (nk_plan_get_tokens (plan) / 14.8e12 - 1), <, 1e-15);
  g_assert_cmpfloat (spin_value (form, "experts"), ==, 256);
  g_assert_cmpfloat (spin_value (form, "experts-per-token"), ==, 8);
  g_assert_cmpfloat (spin_value (form, "shared-experts"), ==, 1);
  g_assert_cmpfloat (spin_value (form, "expert-d-ff"), ==, 2048);
  g_assert_cmpfloat (spin_value (form, "dense-layers"), ==, 3);
  g_assert_cmpfloat (spin_value (form, "ep"), ==, 64);
  g_assert_cmpfloat (spin_value (form, "pp"), ==, 16);
  g_assert_cmpfloat (spin_value (form, "first-stage-layers"), ==, 3);
  g_assert_cmpfloat (spin_value (form, "last-stage-layers"), ==, 2);
  /* 3 + 14 · 4 + 2 = 61: the published layout is planned, and its step timed */
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (nk_plan_get_output (plan, "layout-dp"), ==, 2048 / 16);
  g_assert_true (isfinite (nk_plan_get_output (plan, "time-per-step")));
  g_assert_cmpstr (_napkin_cluster_form_get_error_text (form), ==, "");
  g_assert_cmpfloat (spin_value (form, "kv-lora-rank"), ==, 512);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (_napkin_cluster_form_get_control (form, "recipe"))),
                    ==, NK_PLAN_RECIPE_FP8_BLOCKWISE);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (_napkin_cluster_form_get_control (form, "kv-lora-rank"),
                                                                  ADW_TYPE_ACTION_ROW)));

  /* the lecture's question after it is dense again, with its typed MFU */
  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "time");
  g_assert_cmpfloat (spin_value (form, "experts"), ==, 0);
  g_assert_cmpfloat (property_value (plan, "mfu-auto"), ==, 0);
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_ancestor (_napkin_cluster_form_get_control (form, "kv-lora-rank"),
                                                                   ADW_TYPE_ACTION_ROW)));
  g_assert_cmpfloat (fabs (nk_plan_get_days (plan) / (6 * 70e9 * 15e12 / (989.5e12 * 0.5 * 1024 * 86400)) - 1), <, 1e-12);
  g_assert_finalize_object (page);
}

/* Llama 3 70B (arXiv 2407.21783, table 3; config.json), by hand: 80 layers of
 * h = 8192 with Q and O h × h, K and V h × 8·128, a SwiGLU FFN of 28672 and two
 * RMSNorms; vocabulary 128256 untied; a final RMSNorm: 70,553,706,496, the
 * count Meta's released checkpoint holds. On a GB200 NVL72 rack its TP 8
 * spans two 4-GPU trays but stays in the 72-GPU NVLink domain, so the plan
 * gives no "TP crosses nodes" warning and lays out DP 72 / 8 = 9. */
static void
test_llama3_nvl72_preset (void)
{
  const double h = 8192, layer = 2 * h * h + 2 * h * 1024 + 3 * h * 28672 + 2 * h;
  const double total = 80 * layer + 2 * 128256 * h + h;
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);

  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "llama3-70b-nvl72");
  g_assert_cmpfloat (total, ==, 70553706496.0);
  g_assert_cmpfloat (nk_plan_get_output (plan, "shape-params"), ==, total);
  g_assert_cmpfloat (nk_plan_get_output (plan, "shape-params-active"), ==, total);
  g_assert_cmpstr (nk_plan_get_gpu (plan), ==, "gb200");
  g_assert_cmpfloat (nk_plan_get_output (plan, "layout-tp"), ==, 8);
  g_assert_cmpfloat (nk_plan_get_output (plan, "layout-dp"), ==, 9);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_true (nk_plan_get_fits (plan));
  g_assert_true (isfinite (nk_plan_get_output (plan, "time-per-step")));
  g_assert_finalize_object (page);
}

/* The overlap switches: each edits its plan property, and switching it on
 * hides communication the step showed exposed, by the plan's own outputs
 * read before and after (the engine's time model is tested on its own). The
 * expert switch's row is insensitive without experts: nothing to hide. */
static void
test_comm_overlap_switches (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterForm *form = form_of (page);
  GtkWidget *tp_switch, *ep_switch, *deepep_switch;
  double before;

  tp_switch = _napkin_cluster_form_get_control (form, "tp-comm-overlap");
  ep_switch = _napkin_cluster_form_get_control (form, "ep-comm-overlap");
  g_assert_nonnull (tp_switch);
  g_assert_nonnull (ep_switch);
  deepep_switch = _napkin_cluster_form_get_control (form, "deepep");
  g_assert_nonnull (deepep_switch);

  /* TP 8 on an NVL72 rack: its collectives are exposed until overlapped */
  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "llama3-70b-nvl72");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (tp_switch)));
  before = nk_plan_get_output (plan, "time-exposed-comm");
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-tp-comm"), >, 0);
  gtk_switch_set_active (GTK_SWITCH (tp_switch), TRUE);
  g_assert_cmpfloat (property_value (plan, "tp-comm-overlap"), ==, 1);
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-exposed-comm"), <, before);
  g_object_set (plan, "tp-comm-overlap", FALSE, NULL);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (tp_switch)));
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-exposed-comm"), ==, before);
  g_assert_false (gtk_widget_get_sensitive (gtk_widget_get_ancestor (ep_switch, ADW_TYPE_ACTION_ROW)));
  g_assert_false (gtk_widget_get_sensitive (gtk_widget_get_ancestor (deepep_switch, ADW_TYPE_ACTION_ROW)));
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (deepep_switch)));

  /* DeepSeek-V3's EP 64 crosses 8 nodes; its report hides the all-to-alls
   * (DualPipe), so the preset switches the overlap on; off, they show */
  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "deepseek-v3");
  g_assert_true (gtk_widget_get_sensitive (gtk_widget_get_ancestor (ep_switch, ADW_TYPE_ACTION_ROW)));
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (ep_switch)));
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-ep-comm"), >, 0);
  before = nk_plan_get_output (plan, "time-exposed-comm");
  gtk_switch_set_active (GTK_SWITCH (ep_switch), FALSE);
  g_assert_cmpfloat (property_value (plan, "ep-comm-overlap"), ==, 0);
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-exposed-comm"), >, before);
  /* its all-to-alls cross nodes as DeepEP sends them (the report's own
   * kernels); NCCL's copy-by-copy all-to-all takes longer */
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (deepep_switch)));
  before = nk_plan_get_output (plan, "time-ep-comm");
  gtk_switch_set_active (GTK_SWITCH (deepep_switch), FALSE);
  g_assert_cmpfloat (property_value (plan, "deepep"), ==, 0);
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-ep-comm"), >, before);
  g_assert_finalize_object (page);
}

/* Whether a label under @widget reads @text. */
static gboolean
shows_label (GtkWidget  *widget,
             const char *text)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_label (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (shows_label (c, text))
      return TRUE;
  return FALSE;
}

/* With the search on, the Layout row shows the EP and ETP the search chose
 * (the plan's report, layout.ep and layout.etp), not the ones typed: here EP 4
 * is typed and the fastest layout that fits has another grid. */
static void
test_searched_expert_layout (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  GtkWidget *results = nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *grid = NULL;
  JsonObject *layout;
  gint64 ep, etp;

  g_object_set (plan, "gpu", "h100-sxm", "gpus", 8.0, "tokens", 1e11, "layers", 4.0,
                "d-model", 2048.0, "heads", 16.0, "ffn", NK_FFN_SWIGLU, "d-ff", 8192.0,
                "vocab", 32000.0, "seq", 2048.0, "tied-embeddings", FALSE, "global-batch", 16,
                "experts", 64, "experts-per-token", 4, "expert-d-ff", 8192, "ep", 4,
                "precision", NK_PRECISION_BF16_MIXED, "best-layout", TRUE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  nk_plan_build_json (plan, builder, NK_PLAN_JSON_NONE);
  root = json_builder_get_root (builder);
  layout = json_object_get_object_member (json_node_get_object (root), "layout");
  ep = json_object_get_int_member (layout, "ep");
  etp = json_object_get_int_member (layout, "etp");
  g_assert_true (ep != 4 || etp != 1);
  grid = etp > 1 ? g_strdup_printf ("EP %" G_GINT64_FORMAT " · ETP %" G_GINT64_FORMAT, ep, etp)
                 : g_strdup_printf ("EP %" G_GINT64_FORMAT, ep);
  g_test_message ("searched %s", grid);
  g_assert_true (shows_label (results, grid));
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

/* Pixel columns of @bar's row that have part @part's colour. */
static int
count_columns (NapkinStackedBar *bar,
               guint             part,
               int               width,
               int              *first)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, 120);
  cairo_t *cr = cairo_create (surface);
  graphene_rect_t rect;
  const guint8 *row;
  GdkRGBA color;
  int covered = 0;

  napkin_stacked_bar_draw (bar, cr, width, 120);
  cairo_surface_flush (surface);
  napkin_stacked_bar_get_bar_rect (bar, width, &rect);
  row = cairo_image_surface_get_data (surface)
        + (int) (rect.origin.y + rect.size.height / 2) * cairo_image_surface_get_stride (surface);
  napkin_stacked_bar_get_color (bar, part, &color);
  *first = -1;
  for (int x = 0; x < width; x++)
    if (same_color (row + 4 * x, &color))
      {
        if (*first < 0)
          *first = x;
        covered++;
      }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return covered;
}

/* Every part of the bar covers the pixel columns its plan output's share of
 * the step gives it, in the order given, and the parts tile the step. */
static void
check_bar (NkPlan            *plan,
           NapkinStackedBar  *bar,
           const char *const *outputs,
           guint              n)
{
  const int width = 1000;
  double step = nk_plan_get_output (plan, "time-per-step"), before = 0;

  g_assert_cmpuint (napkin_stacked_bar_get_n_parts (bar), ==, n);
  for (guint i = 0; i < n; i++)
    before += nk_plan_get_output (plan, outputs[i]);
  g_assert_cmpfloat (fabs (before / step - 1), <, 1e-12);
  before = 0;
  for (guint i = 0; i < n; i++)
    {
      double value = nk_plan_get_output (plan, outputs[i]);
      int left = (int) round (before / step * width), right = (int) round ((before + value) / step * width);
      int first, covered = count_columns (bar, i, width, &first);

      g_test_message ("%s: columns %d to %d", outputs[i], left, right);
      g_assert_cmpint (covered, ==, right - left);
      if (covered > 0)
        g_assert_cmpint (first, ==, left);
      before += value;
    }
}

/* Mixtral 8x7B on 64 H100s with EP 8 (README's example): the bar has an
 * "expert all-to-all" part, the plan's time-ep-comm, after the
 * tensor-parallel time; with an FP8 recipe a "casts and scales" part, the
 * plan's time-casts, after the element-wise time. A dense plan has neither. */
static void
test_step_bar_parts (void)
{
  static const char *const dense[] = {
    "time-compute", "time-recompute", "time-memory-bound", "time-tp-comm", "time-dp-exposed", "time-pp-bubble",
  };
  static const char *const dense_tp1[] = {
    "time-compute", "time-recompute", "time-memory-bound", "time-dp-exposed", "time-pp-bubble",
  };
  static const char *const moe[] = {
    "time-compute", "time-recompute", "time-memory-bound", "time-tp-comm", "time-ep-comm", "time-dp-exposed",
    "time-pp-bubble",
  };
  static const char *const moe_fp8[] = {
    "time-compute", "time-recompute", "time-memory-bound", "time-casts", "time-tp-comm", "time-ep-comm",
    "time-dp-exposed", "time-pp-bubble",
  };
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterResults *results =
    NAPKIN_CLUSTER_RESULTS (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS));
  NapkinStackedBar *bar = NAPKIN_STACKED_BAR (_napkin_cluster_results_get_step_bar (results));
  GdkRGBA dense_tp, dense_bubble;

  type (page, "layers", "32");
  type (page, "d-model", "4096");
  type (page, "heads", "32");
  type (page, "d-ff", "14336");
  type (page, "vocab", "32000");
  type (page, "seq", "4096");
  type (page, "batch", "256");
  type (page, "gpus", "64");
  type (page, "tokens", "1T");
  g_object_set (plan, "kv-heads", 8, "ffn", NK_FFN_SWIGLU, "tied-embeddings", FALSE, "micro-batch", 1,
                "flash-attention", TRUE, "zero-stage", 1, "precision", NK_PRECISION_BF16_MIXED, NULL);
  /* at TP 1 no tensor-parallel part (it would say 0 µs) */
  check_bar (plan, bar, dense_tp1, G_N_ELEMENTS (dense_tp1));
  g_object_set (plan, "tp", 2, NULL);
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-tp-comm"), >, 0);
  check_bar (plan, bar, dense, G_N_ELEMENTS (dense));
  /* the colours a part keeps whichever others come in before it */
  napkin_stacked_bar_get_color (bar, 3, &dense_tp);
  napkin_stacked_bar_get_color (bar, 5, &dense_bubble);

  g_object_set (plan, "experts", 8, "experts-per-token", 2, "ep", 8, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-ep-comm"), >, 0);
  check_bar (plan, bar, moe, G_N_ELEMENTS (moe));

  g_object_set (plan, "recipe", NK_PLAN_RECIPE_FP8_TENSORWISE, NULL);
  g_assert_true (nk_plan_get_valid (plan));
  g_assert_cmpfloat (nk_plan_get_output (plan, "time-casts"), >, 0);
  check_bar (plan, bar, moe_fp8, G_N_ELEMENTS (moe_fp8));
  {
    GdkRGBA tp, bubble, casts;

    napkin_stacked_bar_get_color (bar, 4, &tp);
    napkin_stacked_bar_get_color (bar, 7, &bubble);
    napkin_stacked_bar_get_color (bar, 3, &casts);
    g_assert_true (gdk_rgba_equal (&tp, &dense_tp));
    g_assert_true (gdk_rgba_equal (&bubble, &dense_bubble));
    g_assert_false (gdk_rgba_equal (&casts, &dense_tp));
  }

  /* the most loaded GPU's chart holds the recipe's low-precision copies too:
   * its buckets add up to the plan's memory-per-gpu-max */
  {
    NapkinMemoryChart *chart = NAPKIN_MEMORY_CHART (nk_test_find_descendant (GTK_WIDGET (results),
                                                                             NAPKIN_TYPE_MEMORY_CHART));
    double sum = 0;

    for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
      sum += napkin_memory_chart_get_bytes (chart, i);
    g_assert_cmpfloat (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_LOW_PRECISION),
                       ==, nk_plan_get_output (plan, "memory-max-low-precision"));
    g_assert_cmpfloat (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_LOW_PRECISION), >, 0);
    g_assert_cmpfloat (fabs (sum / nk_plan_get_output (plan, "memory-per-gpu-max") - 1), <, 1e-12);
  }
  /* ... and so does the page's Memory per GPU chart, whose header must agree with
   * "Each GPU holds" (memory-per-gpu) */
  {
    NapkinMemoryChart *chart = NAPKIN_MEMORY_CHART (gtk_widget_get_template_child (GTK_WIDGET (page),
                                                                                   NAPKIN_TYPE_PLANNER_PAGE,
                                                                                   "chart"));
    double sum = 0;

    for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
      sum += napkin_memory_chart_get_bytes (chart, i);
    g_assert_cmpfloat (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_LOW_PRECISION), >, 0);
    g_assert_cmpfloat (fabs (sum / nk_plan_get_output (plan, "memory-per-gpu") - 1), <, 1e-12);
  }
  g_assert_finalize_object (page);
}

/* The routed experts' share of a chart's buckets is the plan's figure for it,
 * inside the bucket, and the buckets still add up to @total. */
static void
check_expert_shares (NapkinMemoryChart *chart,
                     NkPlan            *plan,
                     double             total)
{
  static const struct {
    NapkinMemoryBucket bucket;
    const char        *output;
  } shares[] = {
    { NAPKIN_MEMORY_PARAMS, "memory-max-expert-params" },
    { NAPKIN_MEMORY_GRADS, "memory-max-expert-grads" },
    { NAPKIN_MEMORY_OPTIMIZER, "memory-max-expert-optimizer" },
  };
  double sum = 0, experts = 0;
  g_autofree char *description = nk_test_accessible_dup_property (GTK_ACCESSIBLE (chart),
                                                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  g_autofree char *experts_text = NULL, *want = NULL;

  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    sum += napkin_memory_chart_get_bytes (chart, i);
  g_assert_cmpfloat (fabs (sum / total - 1), <, 1e-12);
  for (guint i = 0; i < G_N_ELEMENTS (shares); i++)
    {
      double share = napkin_memory_chart_get_expert_bytes (chart, shares[i].bucket);

      g_assert_cmpfloat (share, ==, nk_plan_get_output (plan, shares[i].output));
      g_assert_cmpfloat (share, >, 0);
      g_assert_cmpfloat (share, <=, napkin_memory_chart_get_bytes (chart, shares[i].bucket));
      experts += share;
    }
  /* a screen reader hears the share the hatching shows */
  experts_text = nk_units_format_bytes (experts);
  want = g_strdup_printf ("routed experts' share of parameters, gradients and optimizer state %s", experts_text);
  g_test_message ("%s", description);
  g_assert_nonnull (strstr (description, want));
}

/* DeepSeek-V3 (the preset): both memory charts show the routed experts'
 * share as the engine counts it; the step bar calls the overlapped
 * all-to-all's cost what it is, the SMs it holds, and the exposed one an
 * expert all-to-all. */
static void
test_deepseek_v3_experts_shown (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  NapkinClusterResults *results =
    NAPKIN_CLUSTER_RESULTS (nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_CLUSTER_RESULTS));
  NapkinMemoryChart *page_chart =
    NAPKIN_MEMORY_CHART (gtk_widget_get_template_child (GTK_WIDGET (page), NAPKIN_TYPE_PLANNER_PAGE, "chart"));
  NapkinMemoryChart *results_chart =
    NAPKIN_MEMORY_CHART (nk_test_find_descendant (GTK_WIDGET (results), NAPKIN_TYPE_MEMORY_CHART));
  GtkAccessible *bar = GTK_ACCESSIBLE (_napkin_cluster_results_get_step_bar (results));
  char *parts;

  gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "deepseek-v3");
  g_assert_true (nk_plan_get_valid (plan));
  check_expert_shares (page_chart, plan, nk_plan_get_output (plan, "memory-per-gpu"));
  check_expert_shares (results_chart, plan, nk_plan_get_output (plan, "memory-per-gpu-max"));

  parts = nk_test_accessible_dup_property (bar, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  g_test_message ("overlapped: %s", parts);
  g_assert_nonnull (strstr (parts, "all-to-all's SMs"));
  g_assert_null (strstr (parts, "expert all-to-all"));
  g_free (parts);
  g_object_set (plan, "ep-comm-overlap", FALSE, NULL);
  parts = nk_test_accessible_dup_property (bar, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  g_assert_nonnull (strstr (parts, "expert all-to-all"));
  g_assert_null (strstr (parts, "SMs"));
  g_free (parts);

  /* a dense plan: no experts' share */
  g_object_set (plan, "experts", 0, NULL);
  if (nk_plan_get_valid (plan))
    for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
      g_assert_cmpfloat (napkin_memory_chart_get_expert_bytes (page_chart, i), ==, 0);
  g_assert_finalize_object (page);
}

/* @chart drawn on its own into an image surface (a new reference), with its
 * current bytes. */
static cairo_surface_t *
render_chart (GtkWidget *chart)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int width = gtk_widget_get_width (chart), height = gtk_widget_get_height (chart);
  g_autoptr(GskRenderNode) node = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);

  /* the widget's own snapshot, not a paintable that waits for the next frame */
  GTK_WIDGET_GET_CLASS (chart)->snapshot (chart, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node != NULL)
    gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static guint32
pixel (cairo_surface_t *surface,
       int              x,
       int              y)
{
  return ((const guint32 *) (cairo_image_surface_get_data (surface)
                             + y * cairo_image_surface_get_stride (surface)))[x];
}

/* The hatching lies where the experts' share is: one GPU holding 10 + 10 + 20
 * + 60 bytes, the experts half of the optimizer's 20. Drawn without and with
 * the share, the pixels that differ in the bar's middle column all lie in the
 * optimizer segment's lower half (the third run of one colour up from the
 * baseline, counted in the first drawing), and they span about half of it. */
static void
test_memory_chart_hatch (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *chart = napkin_memory_chart_new ();
  NapkinMemoryChart *c = NAPKIN_MEMORY_CHART (chart);
  static const double bytes[] = { 10, 10, 20, 60, 0 };
  cairo_surface_t *plain, *hatched;
  int width, height, x, baseline = -1, opt_top = -1, opt_bottom = -1, diff_top = -1, diff_bottom = -1;

  gtk_widget_set_size_request (chart, 300, 400);
  gtk_window_set_child (GTK_WINDOW (window), chart);
  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    napkin_memory_chart_set_bytes (c, i, bytes[i]);
  napkin_memory_chart_set_hbm (c, 200);
  napkin_memory_chart_set_gpus (c, 1);
  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < 1000 && gtk_widget_get_width (chart) == 0; i++)
    g_main_context_iteration (NULL, FALSE);
  width = gtk_widget_get_width (chart);
  height = gtk_widget_get_height (chart);
  g_assert_cmpint (width, >, 0);

  plain = render_chart (chart);
  napkin_memory_chart_set_expert_bytes (c, NAPKIN_MEMORY_OPTIMIZER, 10);
  hatched = render_chart (chart);

  /* one bar, centred in the plot: in its middle column, the runs of one
   * opaque colour 3+ rows long from the top; the longest is the activations,
   * the next the optimizer state (a hairline gap between segments), the bar
   * ends after two more (gradients, parameters) */
  {
    int best = 0, first = -1, last = -1;

    /* the bar's columns hold the longest vertical run of one colour */
    for (int cx = 0; cx < width; cx++)
      {
        int longest_run = 0;

        for (int y = 0, r = 0; y < height; y++)
          {
            r = y > 0 && pixel (plain, cx, y) >> 24 == 0xff && pixel (plain, cx, y) == pixel (plain, cx, y - 1) ? r + 1 : 0;
            longest_run = MAX (longest_run, r);
          }
        if (longest_run > best)
          {
            best = longest_run;
            first = last = cx;
          }
        else if (longest_run == best)
          last = cx;
      }
    x = (first + last) / 2;
  }
  {
    int starts[32], ends[32], n = 0, longest = 0;

    for (int y = 0; y + 2 < height && n < 32; y++)
      if (pixel (plain, x, y) >> 24 == 0xff && pixel (plain, x, y) == pixel (plain, x, y + 1)
          && pixel (plain, x, y) == pixel (plain, x, y + 2))
        {
          int end = y;

          while (end + 1 < height && pixel (plain, x, end + 1) == pixel (plain, x, y))
            end++;
          starts[n] = y;
          ends[n] = end;
          if (end - y > ends[longest] - starts[longest])
            longest = n;
          n++;
          y = end;
        }
    g_assert_cmpint (n, >=, longest + 4);
    opt_top = starts[longest + 1];
    opt_bottom = ends[longest + 1];
    baseline = ends[longest + 3];
    for (int y = starts[longest]; y <= baseline; y++)
      if (pixel (plain, x, y) != pixel (hatched, x, y))
        {
          if (diff_top < 0)
            diff_top = y;
          diff_bottom = y;
        }
  }
  g_test_message ("optimizer rows %d..%d, hatched rows %d..%d", opt_top, opt_bottom, diff_top, diff_bottom);
  g_assert_cmpint (diff_top, >=, 0);
  g_assert_cmpint (diff_bottom, <=, opt_bottom);
  g_assert_cmpint (diff_top, >=, (opt_top + opt_bottom) / 2 - 1);
  g_assert_cmpint (diff_bottom - diff_top + 1, >=, (opt_bottom - opt_top + 1) / 2 - 4);
  cairo_surface_destroy (plain);
  cairo_surface_destroy (hatched);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/planner-experts/form/binds-plan", test_experts_bind);
  g_test_add_func ("/ui/planner-experts/form/errors", test_experts_errors);
  g_test_add_func ("/ui/planner-experts/preset/deepseek-v3", test_deepseek_v3_preset);
  g_test_add_func ("/ui/planner-experts/preset/llama3-70b-nvl72", test_llama3_nvl72_preset);
  g_test_add_func ("/ui/planner-experts/form/comm-overlap", test_comm_overlap_switches);
  g_test_add_func ("/ui/planner-experts/layout/searched-ep", test_searched_expert_layout);
  g_test_add_func ("/ui/planner-experts/step-bar/parts", test_step_bar_parts);
  g_test_add_func ("/ui/planner-experts/memory/deepseek-v3-experts", test_deepseek_v3_experts_shown);
  g_test_add_func ("/ui/planner-experts/memory/hatch-pixels", test_memory_chart_hatch);
  return g_test_run ();
}
