/* test-run-form-gpt.c: the Training page's run form makes a GPT config
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the config the form builds against the values set in its inputs,
 * and nk_train_config_validate()'s own refusal of a width that the heads do not
 * divide and of a learning rate; the combo rows' labels as the template listed
 * them before the rows were bound to the engine's enums; the settings' nicks as
 * the schema lists them.
 */
#include "config.h"

#include <adwaita.h>
#include <locale.h>
#include <string.h>

#include "napkin-run-form.h"
#include "nk-enum-types.h"

static void
set_spin (NapkinRunForm *form,
          const char    *name,
          double         value)
{
  GtkWidget *spin = napkin_run_form_get_input (form, name);

  g_assert_true (GTK_IS_SPIN_BUTTON (spin));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
}

static void
test_gpt_choice (void)
{
  NapkinRunForm *form = NAPKIN_RUN_FORM (napkin_run_form_new ());
  GtkWidget *heads;
  const NkTrainConfig *c;

  g_object_ref_sink (form);
  heads = napkin_run_form_get_input (form, "heads");
  g_assert_nonnull (heads);
  /* Hidden for the Cruncher. */
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_ancestor (heads, ADW_TYPE_ACTION_ROW)));

  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_run_form_get_input (form, "model")), 2);
  set_spin (form, "dim", 32);
  set_spin (form, "layers", 2);
  set_spin (form, "heads", 4);
  set_spin (form, "context", 16);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (heads, ADW_TYPE_ACTION_ROW)));
  /* The group says what the chosen model is (it described the Cruncher for every model). */
  g_assert_true (g_str_has_prefix (adw_preferences_group_get_description (ADW_PREFERENCES_GROUP (
                   gtk_widget_get_ancestor (heads, ADW_TYPE_PREFERENCES_GROUP))), "nanoGPT’s GPT"));
  c = napkin_run_form_get_config (form);
  g_assert_nonnull (c);
  g_assert_cmpint (c->model, ==, NK_MODEL_GPT);
  g_assert_cmpuint (c->n_head, ==, 4);
  g_assert_cmpuint (c->dim, ==, 32);
  g_assert_cmpuint (c->context, ==, 16);
  g_assert_cmpuint (nk_train_config_count_parameters (c), ==,
                    12 * 2 * 32 * 32 + 13 * 2 * 32 + (256 + 16) * 32 + 2 * 32);
  /* The Cruncher's default rate became nanoGPT's, as napkin-cli train does */
  g_assert_cmpfloat (c->lr, ==, 0.001);

  set_spin (form, "heads", 5);
  g_assert_null (napkin_run_form_get_config (form));
  g_assert_nonnull (strstr (napkin_run_form_get_error (form), "not a multiple of 5 heads"));

  g_assert_finalize_object (form);
}

/* A learning rate the person typed stays when the model changes; a model's default
 * follows the model (0.01 for the Cruncher, 0.001 for the GPT, as the CLI). */
static void
test_lr_follows_model (void)
{
  NapkinRunForm *form = NAPKIN_RUN_FORM (napkin_run_form_new ());
  GtkEditable *lr;
  AdwComboRow *model;

  g_object_ref_sink (form);
  lr = GTK_EDITABLE (napkin_run_form_get_input (form, "lr"));
  model = ADW_COMBO_ROW (napkin_run_form_get_input (form, "model"));
  g_assert_cmpstr (gtk_editable_get_text (lr), ==, "0.01");
  adw_combo_row_set_selected (model, 2);
  g_assert_cmpstr (gtk_editable_get_text (lr), ==, "0.001");
  adw_combo_row_set_selected (model, 0);
  g_assert_cmpstr (gtk_editable_get_text (lr), ==, "0.01");
  gtk_editable_set_text (lr, "0.05");
  adw_combo_row_set_selected (model, 2);
  g_assert_cmpstr (gtk_editable_get_text (lr), ==, "0.05");
  adw_combo_row_set_selected (model, 1);
  g_assert_cmpstr (gtk_editable_get_text (lr), ==, "0.05");
  g_assert_finalize_object (form);
}

/* The label a combo row shows for its item at @position. */
static char *
row_label (AdwComboRow *row,
           guint        position)
{
  g_autoptr(GObject) item = g_list_model_get_item (adw_combo_row_get_model (row), position);
  g_auto(GValue) value = G_VALUE_INIT;

  g_assert_nonnull (item);
  g_assert_true (gtk_expression_evaluate (adw_combo_row_get_expression (row), item, &value));
  return g_value_dup_string (&value);
}

/* The combo rows list the engine's enums in their order, by the names the rows
 * showed before; choosing a row's item puts that value in the config. */
static void
test_enum_rows (void)
{
  static const struct {
    const char *input;
    GType     (*type) (void);
    const char *labels[7];
  } rows[] = {
    { "model", nk_model_kind_get_type,
      { "Cruncher (deep linear)", "Tiny language model", "GPT (nanoGPT’s)" } },
    { "optimizer", nk_optimizer_get_type,
      { "SGD", "SGD with momentum", "AdaGrad", "RMSprop", "Adam", "AdamW" } },
    { "precision", nk_precision_get_type,
      { "fp32", "bf16 mixed", "fp16 with loss scaling", "MXFP8 (GPT, emulated)", "NVFP4 (GPT, emulated)" } },
  };
  NapkinRunForm *form = NAPKIN_RUN_FORM (napkin_run_form_new ());

  g_object_ref_sink (form);
  /* The engine's defaults: the Cruncher, AdamW, fp32. */
  g_assert_cmpint (napkin_run_form_get_config (form)->model, ==, NK_MODEL_CRUNCHER);
  g_assert_cmpint (napkin_run_form_get_config (form)->optimizer, ==, NK_OPTIMIZER_ADAMW);
  g_assert_cmpint (napkin_run_form_get_config (form)->precision, ==, NK_PRECISION_FP32);
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      AdwComboRow *row = ADW_COMBO_ROW (napkin_run_form_get_input (form, rows[r].input));
      GListModel *model = adw_combo_row_get_model (row);
      g_autoptr(GEnumClass) klass = g_type_class_ref (rows[r].type ());

      /* the block-scaled recipes are the GPT's */
      adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_run_form_get_input (form, "model")),
                                  r == 2 ? 2 : 0);
      g_assert_true (ADW_IS_ENUM_LIST_MODEL (model));
      g_assert_true (adw_enum_list_model_get_enum_type (ADW_ENUM_LIST_MODEL (model)) == rows[r].type ());
      g_assert_cmpuint (g_list_model_get_n_items (model), ==, g_strv_length ((char **) rows[r].labels));
      g_assert_cmpuint (g_list_model_get_n_items (model), ==, klass->n_values);
      for (guint i = 0; rows[r].labels[i] != NULL; i++)
        {
          g_autofree char *label = row_label (row, i);
          const NkTrainConfig *c;
          int chosen;

          g_assert_cmpstr (label, ==, rows[r].labels[i]);
          adw_combo_row_set_selected (row, i);
          c = napkin_run_form_get_config (form);
          g_assert_nonnull (c);
          chosen = r == 0 ? (int) c->model : r == 1 ? (int) c->optimizer : (int) c->precision;
          g_assert_cmpint (chosen, ==, klass->values[i].value);
        }
      adw_combo_row_set_selected (row, 0);
    }
  g_assert_finalize_object (form);
}

/* MXFP8 and NVFP4 bring their own choice, shown under the recipe that has it; the
 * Cruncher refuses them with the engine's sentence. */
static void
test_block_recipes (void)
{
  NapkinRunForm *form = NAPKIN_RUN_FORM (napkin_run_form_new ());
  AdwComboRow *model = ADW_COMBO_ROW (napkin_run_form_get_input (form, "model"));
  AdwComboRow *precision = ADW_COMBO_ROW (napkin_run_form_get_input (form, "precision"));
  GtkWidget *up = napkin_run_form_get_input (form, "mx-scale-up");
  GtkWidget *sr = napkin_run_form_get_input (form, "nvfp4-stochastic");
  const NkTrainConfig *c;

  g_object_ref_sink (form);
  g_assert_true (GTK_IS_SWITCH (up) && GTK_IS_SWITCH (sr));
  g_assert_false (gtk_widget_is_visible (up) || gtk_widget_is_visible (sr));
  adw_combo_row_set_selected (model, 2);
  adw_combo_row_set_selected (precision, 3);
  c = napkin_run_form_get_config (form);
  g_assert_nonnull (c);
  g_assert_cmpint (c->precision, ==, NK_PRECISION_MXFP8);
  g_assert_cmpint (c->mx_scale, ==, NK_MX_SCALE_UP);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (up, ADW_TYPE_ACTION_ROW)));
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_ancestor (sr, ADW_TYPE_ACTION_ROW)));
  gtk_switch_set_active (GTK_SWITCH (up), FALSE);
  g_assert_cmpint (napkin_run_form_get_config (form)->mx_scale, ==, NK_MX_SCALE_FLOOR);

  adw_combo_row_set_selected (precision, 4);
  c = napkin_run_form_get_config (form);
  g_assert_cmpint (c->precision, ==, NK_PRECISION_NVFP4);
  g_assert_false (c->nvfp4_nearest);
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_ancestor (up, ADW_TYPE_ACTION_ROW)));
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (sr, ADW_TYPE_ACTION_ROW)));
  gtk_switch_set_active (GTK_SWITCH (sr), FALSE);
  g_assert_true (napkin_run_form_get_config (form)->nvfp4_nearest);

  adw_combo_row_set_selected (model, 0);
  g_assert_null (napkin_run_form_get_config (form));
  g_assert_nonnull (strstr (napkin_run_form_get_error (form), "GPT only"));
  g_assert_finalize_object (form);
}

/* The choices are kept in settings by the schema's names (the GEnum nicks), both ways. */
static void
test_enum_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.napkinml.Napkin");
  NapkinRunForm *form = NAPKIN_RUN_FORM (napkin_run_form_new ());
  g_autofree char *kept = NULL;

  g_object_ref_sink (form);
  g_settings_set_string (settings, "training-model", "tiny-lm");
  g_settings_set_string (settings, "training-optimizer", "momentum");
  g_settings_set_string (settings, "training-precision", "bf16-mixed");
  napkin_run_form_bind_settings (form, settings);
  g_assert_cmpint (napkin_run_form_get_config (form)->model, ==, NK_MODEL_TINY_LM);
  g_assert_cmpint (napkin_run_form_get_config (form)->optimizer, ==, NK_OPTIMIZER_MOMENTUM);
  g_assert_cmpint (napkin_run_form_get_config (form)->precision, ==, NK_PRECISION_BF16_MIXED);
  /* the last item of each row, kept by its nick */
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_run_form_get_input (form, "model")), 2);
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_run_form_get_input (form, "precision")), 2);
  kept = g_settings_get_string (settings, "training-model");
  g_assert_cmpstr (kept, ==, "gpt");
  g_clear_pointer (&kept, g_free);
  kept = g_settings_get_string (settings, "training-precision");
  g_assert_cmpstr (kept, ==, "fp16");
  napkin_run_form_bind_settings (form, NULL);
  g_assert_finalize_object (form);
  g_settings_reset (settings, "training-model");
  g_settings_reset (settings, "training-optimizer");
  g_settings_reset (settings, "training-precision");
}

/* A learning rate the engine refuses marks the row with the engine's own sentence,
 * worded for a form (no CLI flag in it): the form keeps no rule of its own. */
static void
test_lr_engine_rule (void)
{
  static const double rates[] = { -0.1, 0, -5e3 };
  static const char *const typed[] = { "-0.1", "0", "-5e3" };
  NapkinRunForm *form = NAPKIN_RUN_FORM (napkin_run_form_new ());
  GtkWidget *lr;

  g_object_ref_sink (form);
  lr = napkin_run_form_get_input (form, "lr");
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      g_autoptr(NkTrainConfig) c = nk_train_config_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) dup_error = NULL;
      g_autoptr(NkTrainConfig) dup = NULL;

      c->lr = rates[i];
      g_assert_false (nk_train_config_validate (c, NULL));
      g_assert_false (nk_optimizer_check_lr (rates[i], NULL, &error));
      g_assert_null (strstr (error->message, "--lr"));
      gtk_editable_set_text (GTK_EDITABLE (lr), typed[i]);
      g_assert_null (napkin_run_form_get_config (form));
      g_assert_cmpstr (napkin_run_form_get_error (form), ==, error->message);
      g_assert_true (gtk_widget_has_css_class (lr, "error"));
      dup = napkin_run_form_dup_config (form, &dup_error);
      g_assert_null (dup);
      g_assert_error (dup_error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG);
    }
  /* not a number at all: the form's one check, that it reads a number */
  gtk_editable_set_text (GTK_EDITABLE (lr), "fast");
  g_assert_nonnull (strstr (napkin_run_form_get_error (form), "“fast” is not a number"));
  gtk_editable_set_text (GTK_EDITABLE (lr), "1e-3");
  g_assert_null (napkin_run_form_get_error (form));
  g_assert_false (gtk_widget_has_css_class (lr, "error"));
  g_assert_cmpfloat (napkin_run_form_get_config (form)->lr, ==, 1e-3);
  g_assert_finalize_object (form);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "en_US.UTF-8");
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/run-form/gpt", test_gpt_choice);
  g_test_add_func ("/ui/run-form/lr-follows-model", test_lr_follows_model);
  g_test_add_func ("/ui/run-form/enum-rows", test_enum_rows);
  g_test_add_func ("/ui/run-form/enum-settings", test_enum_settings);
  g_test_add_func ("/ui/run-form/block-recipes", test_block_recipes);
  g_test_add_func ("/ui/run-form/lr-engine-rule", test_lr_engine_rule);
  return g_test_run ();
}
