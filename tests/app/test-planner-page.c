/* test-planner-page.c: the Planner page shows the lecture's answers and never NaN
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the lecture's worked examples (seeds), recomputed here in float64
 * from the datasheet figures they use, not from the engine.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "napkin-application.h"
#include "napkin-memory-chart.h"
#include "napkin-planner-page-private.h"
#include "nk-test-ui-util.h"
#include "nk-test-util.h"

/* Seeds: H100 SXM dense bf16 peak (the datasheet's 1979 TFLOP/s is 2:4-sparse)
 * and its 80 GB of HBM as the datasheet counts them. */
#define H100_DENSE_BF16 989.5e12
#define H100_HBM        80e9

static NapkinPlannerPage *
new_page (void)
{
  NapkinPlannerPage *page = NAPKIN_PLANNER_PAGE (napkin_planner_page_new ());

  g_object_ref_sink (page);
  return page;
}

static void
type (NapkinPlannerPage *page,
      const char        *input,
      const char        *text)
{
  GtkEditable *editable = _napkin_planner_page_get_entry (page, input);

  g_assert_nonnull (editable);
  gtk_editable_set_text (editable, text);
}

static gboolean
row_has_error (NapkinPlannerPage *page,
               const char        *input)
{
  GtkWidget *row = _napkin_planner_page_get_input_row (page, input);

  g_assert_nonnull (row);
  return gtk_widget_has_css_class (row, "error");
}

/* What assistive technology reads: the invalid state of the row and of the text
 * inside it, through GTK's test API. */
static gboolean
row_is_invalid (NapkinPlannerPage         *page,
                const char                *input,
                GtkAccessibleInvalidState  expected)
{
  GtkWidget *row = _napkin_planner_page_get_input_row (page, input);
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (row));
  g_autofree char *row_state = gtk_test_accessible_check_state (GTK_ACCESSIBLE (row),
                                                                GTK_ACCESSIBLE_STATE_INVALID,
                                                                expected);
  g_autofree char *text_state = gtk_test_accessible_check_state (GTK_ACCESSIBLE (text),
                                                                 GTK_ACCESSIBLE_STATE_INVALID,
                                                                 expected);

  if (row_state != NULL || text_state != NULL)
    g_test_message ("invalid state of %s: row %s, text %s", input, row_state, text_state);
  return row_state == NULL && text_state == NULL;
}

static char *
oracle_days_text (double params,
                  double tokens,
                  double gpus,
                  double mfu)
{
  double days = 6.0 * params * tokens / (H100_DENSE_BF16 * mfu * gpus * 86400.0);

  return g_strdup_printf ("%.1f days", days);
}

/* The shown texts with the person's own quoted input removed, so that an error
 * sentence echoing "nan" is not mistaken for a computed NaN. */
static gboolean
shows_non_finite (NapkinPlannerPage *page,
                  char             **out_texts)
{
  g_autofree char *texts = _napkin_planner_page_dup_output_texts (page);
  g_autoptr(GRegex) quoted = g_regex_new ("“[^”]*”", 0, 0, NULL);
  g_autoptr(GRegex) bad = g_regex_new ("\\b(nan|-?inf|infinity)\\b", G_REGEX_CASELESS, 0, NULL);
  g_autofree char *unquoted = g_regex_replace_literal (quoted, texts, -1, 0, "", 0, NULL);
  gboolean found = g_regex_match (bad, unquoted, 0, NULL);

  if (out_texts != NULL)
    *out_texts = g_steal_pointer (&texts);
  return found;
}

static void
test_worked_example (void)
{
  NapkinPlannerPage *page = new_page ();
  g_autofree char *expected = oracle_days_text (70e9, 15e12, 1024, 0.5);

  /* Start away from the defaults so the typing is what sets the answer. */
  type (page, "params", "1");
  _napkin_planner_page_set_gpu (page, "a100-sxm-80");

  type (page, "params", "70B");
  type (page, "tokens", "15T");
  type (page, "gpus", "1024");
  type (page, "mfu", "0.5");
  _napkin_planner_page_set_gpu (page, "h100-sxm");

  g_assert_cmpstr (expected, ==, "143.9 days");
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, expected);
  g_assert_cmpstr (nk_plan_get_gpu (napkin_planner_page_get_plan (page)), ==, "h100-sxm");
  g_assert_cmpfloat_with_epsilon (nk_plan_get_params (napkin_planner_page_get_plan (page)),
                                  70e9, 1e-3);
  g_assert_false (row_has_error (page, "params"));

  /* Typing "7e10" is the same number. */
  type (page, "params", "7e10");
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, expected);

  /* Decades read as years (Julian, 365.25 days), not "10278.5 days". */
  {
    double days = 6.0 * 5e12 * 15e12 / (H100_DENSE_BF16 * 0.5 * 1024 * 86400.0);
    g_autofree char *years = g_strdup_printf ("%.1f years", days / 365.25);

    type (page, "params", "5T");
    g_assert_cmpfloat (days, >, 2 * 365.25);
    g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, years);
    type (page, "params", "70B");
    g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, expected);
  }

  /* The 2:4-sparse peak would halve the time: the page must not use it by default. */
  g_assert_false (nk_plan_get_sparse (napkin_planner_page_get_plan (page)));

  g_assert_finalize_object (page);
}

static void
test_preset_time (void)
{
  NapkinPlannerPage *page = new_page ();
  g_autofree char *expected = oracle_days_text (70e9, 15e12, 1024, 0.5);

  type (page, "params", "13B");
  type (page, "gpus", "64");
  type (page, "mfu", "0.3");
  _napkin_planner_page_set_gpu (page, "v100");
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), !=, expected);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "time"));
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, expected);
  g_assert_cmpstr (gtk_editable_get_text (_napkin_planner_page_get_entry (page, "params")), ==, "70B");

  g_assert_finalize_object (page);
}

static void
test_preset_largest (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  g_autofree char *texts = NULL;
  /* AdamW in fp32: 4 + 4 + 8 = 16 bytes per parameter. */
  double sharded = 8 * H100_HBM / 16.0;
  double replicated = H100_HBM / 16.0;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "planner.preset", "s", "largest"));

  g_assert_cmpint (nk_plan_get_zero_stage (plan), ==, 3);
  g_assert_cmpfloat_with_epsilon (nk_plan_get_params (plan), sharded, 1.0);
  g_assert_cmpfloat_with_epsilon (sharded, 4.0e10, 1.0);
  g_assert_cmpstr (gtk_editable_get_text (_napkin_planner_page_get_entry (page, "params")), ==, "40B");
  g_assert_true (nk_plan_get_fits (plan));
  g_assert_cmpfloat_with_epsilon (nk_plan_largest_params_for_stage (plan, 0), replicated, 1.0);

  /* The page says which assumption the answer rests on: both answers are shown. */
  texts = _napkin_planner_page_dup_output_texts (page);
  g_assert_nonnull (strstr (texts, "4.0e10"));
  g_assert_nonnull (strstr (texts, "5.0e9"));
  g_assert_nonnull (strstr (texts, "4 + 4 + 8 = 16"));

  g_assert_finalize_object (page);
}

static void
test_bad_params (void)
{
  NapkinPlannerPage *page = new_page ();

  type (page, "params", "abc");
  g_assert_true (row_has_error (page, "params"));
  g_assert_true (row_is_invalid (page, "params", GTK_ACCESSIBLE_INVALID_TRUE));
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, "—");
  g_assert_false (shows_non_finite (page, NULL));

  /* Fixing the row clears the error and brings the answer back. */
  type (page, "params", "70B");
  g_assert_false (row_has_error (page, "params"));
  g_assert_true (row_is_invalid (page, "params", GTK_ACCESSIBLE_INVALID_FALSE));
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, "143.9 days");

  g_assert_finalize_object (page);
}

static void
test_bad_sweep (void)
{
  static const struct {
    const char *input;
    const char *text;
    gboolean    hides_days;
  } cases[] = {
    { "params", "abc", TRUE },
    { "params", "-70B", TRUE },
    { "params", "0", TRUE },
    { "params", "1e400", TRUE },
    { "params", "nan", TRUE },
    { "params", "inf", TRUE },
    { "params", "", TRUE },
    { "params", "1e300", TRUE },   /* 6 · N · D overflows: refused, not inf */
    { "tokens", "-1", TRUE },
    { "tokens", "1e400", TRUE },
    { "gpus", "0", TRUE },
    { "gpus", "-8", TRUE },
    { "gpus", "1.5", TRUE },
    { "gpus", "abc", TRUE },
    { "mfu", "0", TRUE },
    { "mfu", "1.5", TRUE },
    { "mfu", "-0.5", TRUE },
    { "mfu", "1e400", TRUE },
    { "price", "-2", FALSE },
    { "price", "abc", FALSE },
    { "batch", "-1", FALSE },
    { "batch", "abc", FALSE },
    { "seq", "1e400", FALSE },
    { "layers", "2.5", FALSE },
    { "d-model", "-4096", FALSE },
    { "heads", "x", FALSE },
    { "d-ff", "wide", FALSE },
    { "d-ff", "-3072", FALSE },
    { "vocab", "50k5", FALSE },
    { "deadline-days", "-3", FALSE },
    { "deadline-days", "abc", FALSE },
  };
  NapkinPlannerPage *page = new_page ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GtkEditable *editable = _napkin_planner_page_get_entry (page, cases[i].input);
      g_autofree char *good = g_strdup (gtk_editable_get_text (editable));
      g_autofree char *texts = NULL;

      g_test_message ("%s = “%s”", cases[i].input, cases[i].text);
      type (page, cases[i].input, cases[i].text);
      g_assert_true (row_has_error (page, cases[i].input));
      if (shows_non_finite (page, &texts))
        g_error ("%s = “%s” shows a non-finite number:\n%s", cases[i].input, cases[i].text, texts);
      if (cases[i].hides_days)
        g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, "—");
      else
        g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, "143.9 days");

      /* The activation and deadline rows need all their partners to matter;
       * give them partners so the bad value is really used. */
      if (g_str_equal (cases[i].input, "batch"))
        {
          type (page, "seq", "2048");
          type (page, "layers", "80");
          type (page, "d-model", "8192");
          g_assert_true (row_has_error (page, "batch"));
          g_assert_false (shows_non_finite (page, NULL));
          type (page, "seq", "");
          type (page, "layers", "");
          type (page, "d-model", "");
        }

      type (page, cases[i].input, good);
      g_assert_false (row_has_error (page, cases[i].input));
      g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, "143.9 days");
    }

  /* A dtype the GPU has no peak for: the V100 has no fp8 tensor cores. */
  _napkin_planner_page_set_gpu (page, "v100");
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_planner_page_get_input_row (page, "dtype")), 4);
  g_assert_cmpint (nk_plan_get_dtype (napkin_planner_page_get_plan (page)), ==, NK_PEAK_FP8);
  g_assert_true (row_has_error (page, "dtype"));
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, "—");
  g_assert_false (shows_non_finite (page, NULL));

  g_assert_finalize_object (page);
}

static void
test_fewest_gpus (void)
{
  NapkinPlannerPage *page = new_page ();
  double per_gpu_day = H100_DENSE_BF16 * 0.5 * 86400.0;
  double needed = ceil (6.0 * 70e9 * 15e12 / (per_gpu_day * 30.0));
  g_autofree char *expected = g_strdup_printf ("%.0f", needed);

  type (page, "deadline-days", "30");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "planner.fewest-gpus", NULL));
  g_assert_cmpstr (gtk_editable_get_text (_napkin_planner_page_get_entry (page, "gpus")), ==, expected);
  /* The answer meets the deadline, one GPU fewer would not. */
  g_assert_cmpfloat (nk_plan_get_output (napkin_planner_page_get_plan (page), "days"), <=, 30.0);
  g_assert_cmpfloat (6.0 * 70e9 * 15e12 / (per_gpu_day * (needed - 1)), >, 30.0);

  g_assert_finalize_object (page);
}

/* Seed 002, the OpenAI table, for GPT-2 small: the oracle adds up the table's
 * rows (attention QKV and projection, feed-forward) in float64 rather than
 * using the closed form the engine uses. */
static void
test_architecture (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  const double d_model = 768, n_layer = 12, d_ff = 3072, n_ctx = 1024, d_attn = 768;
  double qkv = n_layer * d_model * 3 * d_attn;
  double proj = n_layer * d_attn * d_model;
  double ff = n_layer * 2 * d_model * d_ff;
  double n = qkv + proj + ff;
  double forward = 2 * n + 2 * n_layer * n_ctx * d_attn;
  g_autofree char *n_text = g_strdup_printf ("%.0f", n);
  /* 85M parameters on 15T tokens take hours, not days, on 1024 H100s. */
  double hours = 24 * 6.0 * n * 15e12 / (H100_DENSE_BF16 * 0.5 * 1024 * 86400.0);
  g_autofree char *expected_time = g_strdup_printf ("%.1f h", hours);
  g_autofree char *texts = NULL;

  g_assert_cmpfloat (n, ==, 2 * d_model * n_layer * (2 * d_attn + d_ff));
  g_assert_cmpfloat (hours, >=, 2);
  g_assert_cmpfloat (hours, <, 48);

  /* Nothing to size yet: "Use" changes nothing. */
  gtk_widget_activate_action (GTK_WIDGET (page), "planner.use-architecture", NULL);
  g_assert_cmpstr (gtk_editable_get_text (_napkin_planner_page_get_entry (page, "params")), ==, "70B");

  type (page, "d-model", "768");
  type (page, "layers", "12");
  type (page, "d-ff", "3072");
  type (page, "seq", "1024");
  type (page, "vocab", "50257");
  g_assert_false (row_has_error (page, "d-ff"));
  g_assert_cmpfloat (nk_plan_get_sized_params (plan), ==, n);
  g_assert_cmpfloat (nk_plan_get_sized_forward_flops_per_token (plan), ==, forward);

  /* The formula is shown with the person's numbers in it. */
  texts = _napkin_planner_page_dup_output_texts (page);
  g_assert_nonnull (strstr (texts, "d_model 768 × n_layer 12 × (2 × d_attn 768 + d_ff 3072)"));
  g_assert_nonnull (strstr (texts, "n_ctx 1024"));
  g_assert_nonnull (strstr (texts, "n_vocab 50257"));

  /* "Use" fills in the exact count, and the time follows it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "planner.use-architecture", NULL));
  g_assert_cmpstr (gtk_editable_get_text (_napkin_planner_page_get_entry (page, "params")), ==, n_text);
  g_assert_cmpfloat (nk_plan_get_params (plan), ==, n);
  g_assert_cmpstr (_napkin_planner_page_get_days_text (page), ==, expected_time);

  /* A bad d_ff is marked, and the size is not guessed with 4 · d_model. */
  type (page, "d-ff", "abc");
  g_assert_true (row_has_error (page, "d-ff"));
  g_assert_true (isnan (nk_plan_get_sized_params (plan)));
  g_assert_false (shows_non_finite (page, NULL));
  /* Empty d_ff is the table's default, 4 · d_model: for GPT-2 that is 3072 again. */
  type (page, "d-ff", "");
  g_assert_false (row_has_error (page, "d-ff"));
  g_assert_cmpfloat (nk_plan_get_sized_params (plan), ==, n);

  g_assert_finalize_object (page);
}

static void
assert_description_has (GtkWidget  *widget,
                        const char *text)
{
  g_autofree char *description = nk_test_accessible_dup_property (GTK_ACCESSIBLE (widget),
                                                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  g_test_message ("%s: %s", G_OBJECT_TYPE_NAME (widget), description);
  g_assert_nonnull (description);
  g_assert_nonnull (strstr (description, text));
}

static void
collect_preset_rows (GtkWidget *widget,
                     GPtrArray *rows)
{
  if (ADW_IS_ACTION_ROW (widget))
    {
      GtkWidget *button = adw_action_row_get_activatable_widget (ADW_ACTION_ROW (widget));

      if (GTK_IS_ACTIONABLE (button)
          && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), "planner.preset") == 0)
        g_ptr_array_add (rows, widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_preset_rows (child, rows);
}

/* Each Lecture Question and Published Run is one Tab stop: its row takes the
 * focus (and Enter there applies it through the row's activatable widget), its
 * button does not. Oracle: the three questions of the seeds the page offers and
 * the two published runs (DeepSeek-V3, the Llama-3-70B-class NVL72 run). */
static void
test_presets_one_tab_stop (void)
{
  NapkinPlannerPage *page = new_page ();
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  collect_preset_rows (GTK_WIDGET (page), rows);
  g_assert_cmpuint (rows->len, ==, 5);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      GtkWidget *button = adw_action_row_get_activatable_widget (ADW_ACTION_ROW (row));

      g_assert_true (gtk_widget_get_focusable (row));
      g_assert_false (gtk_widget_get_focusable (button));
    }
  g_assert_finalize_object (page);
}

static void
test_zero_stage_chart (void)
{
  NapkinPlannerPage *page = new_page ();
  NkPlan *plan = napkin_planner_page_get_plan (page);
  GtkWidget *zero_row = _napkin_planner_page_get_input_row (page, "zero-stage");
  NapkinMemoryChart *chart = NAPKIN_MEMORY_CHART (nk_test_find_descendant (GTK_WIDGET (page),
                                                                   NAPKIN_TYPE_MEMORY_CHART));

  /* 70B with AdamW in fp32 at ZeRO 0: every GPU holds 4 + 4 + 8 bytes per
   * parameter, far beyond 80 GB. */
  g_assert_nonnull (chart);
  g_assert_cmpfloat_with_epsilon (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_PARAMS),
                                  70e9 * 4, 1.0);
  g_assert_cmpfloat_with_epsilon (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_OPTIMIZER),
                                  70e9 * 8, 1.0);
  g_assert_cmpfloat_with_epsilon (napkin_memory_chart_get_hbm (chart), H100_HBM, 1.0);
  g_assert_false (napkin_memory_chart_get_fits (chart));
  /* A screen reader gets the legend's numbers: 70e9 × 4 B = 260.8 GiB, × 8 B = 521.5 GiB. */
  assert_description_has (GTK_WIDGET (chart), "Parameters 261 GiB");
  assert_description_has (GTK_WIDGET (chart), "Gradients 261 GiB");
  assert_description_has (GTK_WIDGET (chart), "Optimizer state 522 GiB");

  /* ZeRO 3 shards all of it over the 1024 GPUs. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (zero_row), 3);
  g_assert_cmpint (nk_plan_get_zero_stage (plan), ==, 3);
  g_assert_cmpfloat_with_epsilon (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_PARAMS),
                                  70e9 * 4 / 1024, 1.0);
  g_assert_cmpfloat_with_epsilon (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_GRADS),
                                  70e9 * 4 / 1024, 1.0);
  g_assert_cmpfloat_with_epsilon (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_OPTIMIZER),
                                  70e9 * 8 / 1024, 1.0);
  g_assert_true (napkin_memory_chart_get_fits (chart));
  /* and follows the data: 70e9 × 4 B / 1024 = 260.8 MiB */
  assert_description_has (GTK_WIDGET (chart), "Parameters 261 MiB");

  /* A bad parameter count leaves the chart with no estimate rather than the old bars. */
  type (page, "params", "abc");
  g_assert_true (isnan (napkin_memory_chart_get_bytes (chart, NAPKIN_MEMORY_PARAMS)));

  g_assert_finalize_object (page);
}

/* Resets every key of the Planner's. */
static void
reset_planner_keys (GSettings *settings)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    if (g_str_has_prefix (keys[i], "planner-"))
      g_settings_reset (settings, keys[i]);
}

static void
test_settings_kept (void)
{
  g_autoptr(GSettings) settings = napkin_settings_new ();
  g_autoptr(GSettings) reread = napkin_settings_new ();
  NapkinPlannerPage *page;

  g_assert_nonnull (settings);
  reset_planner_keys (settings);

  page = new_page ();
  napkin_planner_page_set_settings (page, settings);
  type (page, "params", "13B");
  _napkin_planner_page_set_gpu (page, "a100-sxm-80");
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_planner_page_get_input_row (page, "dtype")), 4);
  adw_combo_row_set_selected (ADW_COMBO_ROW (_napkin_planner_page_get_input_row (page, "zero-stage")), 3);

  /* Each input is its own typed key, written as it changes (read back through a
   * second settings object, not the page). */
  g_assert_cmpstr (g_settings_get_string (reread, "planner-params"), ==, "13B");
  g_assert_cmpstr (g_settings_get_string (reread, "planner-gpu"), ==, "a100-sxm-80");
  g_assert_cmpstr (g_settings_get_string (reread, "planner-dtype"), ==, "fp8");
  g_assert_cmpuint (g_settings_get_uint (reread, "planner-zero-stage"), ==, 3);
  g_assert_cmpstr (g_settings_get_string (reread, "planner-tokens"), ==, "15T");
  g_assert_finalize_object (page);

  page = new_page ();
  napkin_planner_page_set_settings (page, settings);
  g_assert_cmpstr (gtk_editable_get_text (_napkin_planner_page_get_entry (page, "params")), ==, "13B");
  g_assert_cmpstr (nk_plan_get_gpu (napkin_planner_page_get_plan (page)), ==, "a100-sxm-80");
  g_assert_cmpint (nk_plan_get_dtype (napkin_planner_page_get_plan (page)), ==, NK_PEAK_FP8);
  g_assert_cmpint (nk_plan_get_zero_stage (napkin_planner_page_get_plan (page)), ==, 3);
  g_assert_cmpfloat_with_epsilon (nk_plan_get_params (napkin_planner_page_get_plan (page)), 13e9, 1e-3);

  /* A key changed elsewhere shows in the form. */
  g_settings_set_string (reread, "planner-tokens", "2T");
  g_assert_cmpfloat_with_epsilon (nk_plan_get_tokens (napkin_planner_page_get_plan (page)), 2e12, 1e-3);
  g_assert_finalize_object (page);

  reset_planner_keys (settings);
}

static void
test_export_matches_cli (void)
{
  NapkinPlannerPage *page;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *exported = NULL;
  g_auto(NkTestRun) cli = { 0 };
  g_autoptr(JsonNode) page_json = NULL;
  g_autoptr(JsonNode) cli_json = NULL;
  g_autoptr(GError) error = NULL;
  const char *args[] = { "--params", "70e9", "--tokens", "15e12", "--gpu", "h100-sxm",
                         "--gpus", "1024", "--mfu", "0.5", "--largest", "--json", NULL };

  if (!nk_test_run_cli (&cli, "plan", args, NULL, 0))
    return;
  g_assert_cmpint (cli.status, ==, 0);

  page = new_page ();
  dir = g_dir_make_tmp ("napkin-planner-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "plan.json", NULL);
  g_assert_true (_napkin_planner_page_export (page, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &exported, NULL, &error));

  /* The same object as the CLI prints, field for field. */
  page_json = json_from_string (exported, &error);
  g_assert_no_error (error);
  cli_json = json_from_string (cli.out, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (page_json, cli_json));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_node_get_object (page_json), "days"),
                                  6.0 * 70e9 * 15e12 / (H100_DENSE_BF16 * 0.5 * 1024 * 86400.0), 1e-9);

  g_unlink (path);
  g_rmdir (dir);
  g_assert_finalize_object (page);
}

static void
test_in_window (void)
{
  GtkWidget *window = gtk_window_new ();
  NapkinPlannerPage *page = new_page ();

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (page)) == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (page)), >=, 360);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (page);
}

int
main (int    argc,
      char **argv)
{
  /* GTK's test backend keeps the accessible states and descriptions checked here. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/planner/worked-example", test_worked_example);
  g_test_add_func ("/ui/planner/preset/time", test_preset_time);
  g_test_add_func ("/ui/planner/preset/largest", test_preset_largest);
  g_test_add_func ("/ui/planner/bad-input/params", test_bad_params);
  g_test_add_func ("/ui/planner/bad-input/sweep", test_bad_sweep);
  g_test_add_func ("/ui/planner/inverse/fewest-gpus", test_fewest_gpus);
  g_test_add_func ("/ui/planner/architecture/gpt2-small", test_architecture);
  g_test_add_func ("/ui/planner/memory/zero-stage", test_zero_stage_chart);
  g_test_add_func ("/ui/planner/presets-one-tab-stop", test_presets_one_tab_stop);
  g_test_add_func ("/ui/planner/settings-kept", test_settings_kept);
  g_test_add_func ("/ui/planner/export-matches-cli", test_export_matches_cli);
  g_test_add_func ("/ui/planner/in-window", test_in_window);

  return g_test_run ();
}
