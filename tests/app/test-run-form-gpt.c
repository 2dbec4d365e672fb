/* test-run-form-gpt.c: the Training page's run form makes a GPT config
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the config the form builds against the values set in its inputs,
 * and nk_train_config_validate()'s own refusal of a width that the heads do not
 * divide.
 */
#include "config.h"

#include <adwaita.h>
#include <locale.h>
#include <string.h>

#include "napkin-run-form.h"

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
  return g_test_run ();
}
