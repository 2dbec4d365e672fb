/* test-model-arch.c: the model architecture table: every entry filled, and each agreeing with its model
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles that share no code with a table's closed forms: the model it builds
 * (its tensors counted and named one by one), the activations bucket a real
 * training step leaves on the device, the GEnum the app and the settings use.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-enum-types.h"
#include "nk-model-arch.h"
#include "nk-trainer.h"

/* Small sizes every architecture takes (a GPT's 2 heads divide its width). */
static const NkModelShape small = { .vocab = 256, .dim = 8, .layers = 2, .n_head = 2, .context = 5 };

/* Each architecture fills every required entry, sits at its kind's index, and is
 * found by its name, its alias and its kind; its name is the GEnum's nick. */
static void
test_table (void)
{
  g_autoptr(GEnumClass) enums = g_type_class_ref (NK_TYPE_MODEL_KIND);
  guint n;
  const NkModelArch *const *archs = nk_model_archs (&n);

  g_assert_cmpuint (n, >=, 3);
  g_assert_cmpuint (n, ==, enums->n_values);
  for (guint i = 0; i < n; i++)
    {
      const NkModelArch *a = archs[i];
      GEnumValue *v = g_enum_get_value (enums, (int) i);
      NkModelKind kind;

      g_test_message ("%s", a->name);
      g_assert_cmpint (a->kind, ==, i);
      g_assert_nonnull (v);
      g_assert_cmpstr (a->name, ==, v->value_nick);
      g_assert_true (nk_model_arch_lookup (a->kind) == a);
      g_assert_true (nk_model_arch_find (a->name) == a);
      if (a->alias != NULL)
        g_assert_true (nk_model_arch_find (a->alias) == a);
      g_assert_cmpstr (nk_model_kind_to_string (a->kind), ==, a->name);
      g_assert_true (nk_model_kind_from_string (a->name, &kind));
      g_assert_cmpint (kind, ==, a->kind);

      g_assert_true (a->title != NULL && *a->title != '\0');
      g_assert_true (a->description != NULL && g_str_has_suffix (a->description, "."));
      g_assert_true (isfinite (a->default_lr) && a->default_lr > 0);
      g_assert_true ((a->fields & (NK_MODEL_FIELD_DIM | NK_MODEL_FIELD_LAYERS))
                     == (NK_MODEL_FIELD_DIM | NK_MODEL_FIELD_LAYERS));
      g_assert_cmpint (a->metadata & ~a->fields, ==, 0);
      /* a model of tokens reads sequences of a length */
      if (a->input != NK_MODEL_INPUT_VECTORS)
        g_assert_true (a->fields & NK_MODEL_FIELD_CONTEXT);
      if (a->generate != NULL)
        g_assert_cmpint (a->input, !=, NK_MODEL_INPUT_VECTORS);

      g_assert_nonnull (a->check_shape);
      g_assert_nonnull (a->build);
      g_assert_nonnull (a->init);
      g_assert_nonnull (a->forward);
      g_assert_nonnull (a->loss);
      g_assert_nonnull (a->count_parameters);
      g_assert_nonnull (a->param_names);
      g_assert_nonnull (a->activation_bytes);
      g_assert_nonnull (a->describe);
      /* the PaLM split of a step's FLOPs needs the formula it splits */
      if (a->flops_terms != NULL)
        g_assert_nonnull (a->step_flops);
    }
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      g_assert_cmpstr (archs[i]->name, !=, archs[j]->name);

  g_assert_null (nk_model_arch_lookup ((NkModelKind) n));
  g_assert_null (nk_model_arch_find ("resnet"));
  g_assert_null (nk_model_arch_find (NULL));
}

/* What a table says of a model before it is built is what the built model has:
 * the parameters counted tensor by tensor, the names in order. */
static void
test_built (void)
{
  guint n;
  const NkModelArch *const *archs = nk_model_archs (&n);

  for (guint i = 0; i < n; i++)
    {
      const NkModelArch *a = archs[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(NkModel) m = NULL;
      g_autoptr(NkRng) rng = nk_rng_new (3);
      g_auto(GStrv) names = NULL;
      NkModelShape bad = small;
      NkTensor **params;
      guint64 numel = 0;
      guint n_params;

      g_test_message ("%s", a->name);
      g_assert_true (a->check_shape (&small, &error));
      g_assert_no_error (error);
      m = nk_model_new (a->kind, &small, NK_DTYPE_F32, &error);
      g_assert_no_error (error);
      g_assert_true (nk_model_get_arch (m) == a);
      g_assert_cmpint (nk_model_get_kind (m), ==, a->kind);
      g_assert_cmpuint (nk_model_get_dim (m), ==, small.dim);
      g_assert_cmpuint (nk_model_get_layers (m), ==, small.layers);
      g_assert_true (nk_model_init (m, rng, NK_INIT_TRUNC_NORMAL, &error));
      g_assert_no_error (error);

      params = nk_model_get_params (m, &n_params);
      names = a->param_names (&small);
      g_assert_cmpuint (g_strv_length (names), ==, n_params);
      for (guint p = 0; p < n_params; p++)
        {
          numel += (guint64) nk_tensor_numel (params[p]);
          g_assert_cmpstr (names[p], ==, nk_model_get_param_name (m, p));
        }
      g_assert_cmpuint (a->count_parameters (&small), ==, numel);
      g_assert_cmpuint (nk_model_count_parameters (m), ==, numel);
      g_assert_true (g_strv_equal ((const char *const *) names, nk_model_get_param_names (m)));

      /* sizes it cannot build: a sentence, from the check and from the builder alike */
      bad.dim = 0;
      g_assert_false (a->check_shape (&bad, &error));
      g_assert_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID);
      g_clear_error (&error);
      g_assert_null (nk_model_new (a->kind, &bad, NK_DTYPE_F32, &error));
      g_assert_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID);
    }
}

/* A table's activation bytes are the activations bucket the device counts after
 * one real training step, in fp32 and under bf16 autocast; the terms, where a
 * table has them, sum to the same. */
static void
test_activations_measured (void)
{
  static const NkPrecision precisions[] = { NK_PRECISION_FP32, NK_PRECISION_BF16_MIXED };
  static const NkDType computes[] = { NK_DTYPE_F32, NK_DTYPE_BF16 };
  guint n;
  const NkModelArch *const *archs = nk_model_archs (&n);

  for (guint i = 0; i < n; i++)
    for (guint p = 0; p < G_N_ELEMENTS (precisions); p++)
      {
        const NkModelArch *a = archs[i];
        g_autoptr(GError) error = NULL;
        g_autoptr(NkTrainConfig) c = nk_train_config_new ();
        g_autoptr(NkTrainer) trainer = NULL;
        g_autoptr(GArray) h = NULL;
        guint64 batch = 3, rows, expected;
        const NkTrainMetrics *m;

        c->model = a->kind;
        c->dim = small.dim;
        c->layers = small.layers;
        c->n_head = small.n_head;
        c->context = small.context;
        c->batch = (guint) batch;
        c->steps = 1;
        c->lr = a->default_lr;
        c->precision = precisions[p];
        trainer = nk_trainer_new (c);
        nk_trainer_run_sync (trainer, NULL, &error);
        g_assert_no_error (error);
        h = nk_trainer_get_history (trainer);
        g_assert_cmpuint (h->len, ==, 1);
        m = &g_array_index (h, NkTrainMetrics, 0);

        rows = a->fields & NK_MODEL_FIELD_CONTEXT ? batch * small.context : batch;
        expected = a->activation_bytes (&small, rows, NK_DTYPE_F32, computes[p]);
        g_test_message ("%s %s: measured %" G_GUINT64_FORMAT ", table %" G_GUINT64_FORMAT,
                        a->name, nk_precision_to_string (precisions[p]),
                        m->memory[NK_BUCKET_ACTIVATIONS], expected);
        g_assert_cmpuint (m->memory[NK_BUCKET_ACTIVATIONS], ==, expected);

        if (a->activation_terms != NULL)
          {
            guint64 terms[NK_ACT_N_TERMS], sum = 0;

            a->activation_terms (&small, batch, computes[p], terms);
            for (guint t = 0; t < NK_ACT_N_TERMS; t++)
              sum += terms[t];
            g_assert_cmpuint (sum, ==, expected);
          }
      }
}

/* A kind no table fills is refused with a sentence, not a crash. */
static void
test_unknown_kind (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  NkModelKind kind = NK_MODEL_GPT;
  guint n;

  nk_model_archs (&n);
  g_assert_false (nk_model_kind_from_string ("resnet", &kind));
  g_assert_cmpint (kind, ==, NK_MODEL_GPT);
  c->model = (NkModelKind) n;
  g_assert_false (nk_train_config_validate (c, &error));
  g_assert_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/model-arch/table", test_table);
  g_test_add_func ("/engine/model-arch/built", test_built);
  g_test_add_func ("/engine/model-arch/activations-measured", test_activations_measured);
  g_test_add_func ("/engine/model-arch/unknown-kind", test_unknown_kind);
  return g_test_run ();
}
