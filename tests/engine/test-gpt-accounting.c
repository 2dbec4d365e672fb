/* test-gpt-accounting.c: the Planner's formulas against Napkin's GPT, term by term
 * (issue 12): activations by tensor, FLOPs by kind
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: each activation term counted by hand for issue 12's Done-means run (d 128, L 4,
 * H 4, T 64, B 16, V 256) — the GPT's tensors as the ops allocate them, the
 * Planner's as Korthikanti et al. 2022 list them; their sum against the totals
 * the two sides already answer for (memory-max-activations, and
 * nk_gpt_activation_bytes(), which test-gpt checks against the measured bucket).
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "nk-npy.h"

#include "nk-gpt.h"
#include "nk-plan.h"
#include "nk-train-config.h"
#include "nk-test-util.h"

enum { D = 128, L = 4, H = 4, T = 64, B = 16, V = 256, N = B * T };

static double
sum (const double *terms)
{
  double s = 0;

  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    s += terms[i];
  return s;
}

/* fp32: where both count the same tensor at 4 bytes, they agree to the byte. */
static void
test_fp32_by_hand (void)
{
  g_autoptr(NkTrainConfig) config = nk_test_done_means_gpt (NK_PRECISION_FP32);
  double planner[NK_ACT_N_TERMS], stored[NK_ACT_N_TERMS];
  const double sbh = (double) N * D, scores = (double) B * H * T * T;

  g_assert_true (nk_train_config_activation_terms (config, planner, stored));

  /* Napkin's GPT: the embedding sum and two sums a block; 2L + 1 LayerNorms */
  g_assert_cmpfloat (stored[NK_ACT_TERM_RESIDUAL], ==, 9 * sbh * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_NORM_STATS], ==, 9 * 2.0 * N * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_NORM_OUTPUT], ==, 9 * sbh * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_QKV], ==, L * 3 * sbh * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_ATTN_OUTPUT], ==, L * sbh * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_MLP], ==, L * 8 * sbh * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_SCORES], ==, L * scores * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_PROBS], ==, L * scores * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_PROJ_OUTPUT], ==, L * 2 * sbh * 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_DROPOUT], ==, 0);
  g_assert_cmpfloat (stored[NK_ACT_TERM_LOGITS], ==, (double) N * V * 4 + 4);
  g_assert_cmpfloat (stored[NK_ACT_TERM_AUTOCAST], ==, 0);
  g_assert_cmpfloat (sum (stored), ==,
                     (double) nk_gpt_activation_bytes (V, D, L, H, B, T, NK_DTYPE_F32));

  /* Korthikanti et al. at p = 4: per layer two LayerNorm inputs 2p·sbh, the QKV
   * and FFN inputs 2p·sbh, Q K V 3p·sbh, the projection input p·sbh, the GELU's
   * 8p·sbh, softmax output p·as²b, masks 2·sbh + as²b and attention dropout's
   * output p·as²b; the final LayerNorm's input and output, the embedding's mask,
   * the fp32 logits 4·sbV; Napkin's planner adds 2 fp32 statistics a token and
   * LayerNorm. */
  g_assert_cmpfloat (planner[NK_ACT_TERM_RESIDUAL], ==, (2 * L + 1) * sbh * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_NORM_STATS], ==, (2 * L + 1) * 2.0 * N * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_NORM_OUTPUT], ==, (2 * L + 1) * sbh * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_QKV], ==, L * 3 * sbh * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_ATTN_OUTPUT], ==, L * sbh * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_MLP], ==, L * 8 * sbh * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_SCORES], ==, 0);
  g_assert_cmpfloat (planner[NK_ACT_TERM_PROBS], ==, L * scores * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_PROJ_OUTPUT], ==, 0);
  g_assert_cmpfloat (planner[NK_ACT_TERM_DROPOUT], ==, L * (2 * sbh + scores * 5) + sbh);
  g_assert_cmpfloat (planner[NK_ACT_TERM_LOGITS], ==, 4.0 * N * V);
  g_assert_cmpfloat (planner[NK_ACT_TERM_AUTOCAST], ==, 0);
  {
    NkTrainPrediction p;

    nk_train_config_predict (config, NAN, &p);
    g_assert_cmpfloat (fabs (sum (planner) / p.activations_planner - 1), <, 1e-12);
  }

  /* Issue 12's Done means: within 5 % (−4.1 %). */
  g_assert_cmpfloat (fabs (sum (planner) / sum (stored) - 1), <=, 0.05);
}

/* bf16-mixed: the Planner counts 2 bytes a value; the GPT keeps its stream,
 * LayerNorm outputs and probabilities in fp32 and adds autocast's copies. */
static void
test_bf16_by_hand (void)
{
  g_autoptr(NkTrainConfig) config = nk_test_done_means_gpt (NK_PRECISION_BF16_MIXED);
  double planner[NK_ACT_N_TERMS], stored[NK_ACT_N_TERMS];
  const double sbh = (double) N * D, scores = (double) B * H * T * T;

  g_assert_true (nk_train_config_activation_terms (config, planner, stored));
  g_assert_cmpfloat (stored[NK_ACT_TERM_RESIDUAL], ==, 9 * sbh * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_RESIDUAL], ==, 9 * sbh * 2);
  g_assert_cmpfloat (stored[NK_ACT_TERM_QKV], ==, L * 3 * sbh * 2);
  g_assert_cmpfloat (planner[NK_ACT_TERM_QKV], ==, L * 3 * sbh * 2);
  g_assert_cmpfloat (stored[NK_ACT_TERM_PROBS], ==, L * scores * 4);
  g_assert_cmpfloat (planner[NK_ACT_TERM_PROBS], ==, L * scores * 2);
  g_assert_cmpfloat (planner[NK_ACT_TERM_DROPOUT], ==, L * (2 * sbh + scores * 3) + sbh);
  /* rounded LayerNorm outputs 2·N·d·2 and probabilities B·H·T²·2, widened scores
   * B·H·T²·4 a layer; ln_f's output N·d·2 */
  g_assert_cmpfloat (stored[NK_ACT_TERM_AUTOCAST], ==, L * (2 * sbh * 2 + scores * 6) + sbh * 2);
  g_assert_cmpfloat (stored[NK_ACT_TERM_LOGITS], ==, (double) N * V * (2 + 4) + 4);
  g_assert_cmpfloat (sum (stored), ==,
                     (double) nk_gpt_activation_bytes (V, D, L, H, B, T, NK_DTYPE_BF16));
}

/* Korthikanti et al.'s Table 2 at cluster scale, GPT-3 175B on t = 8 with
 * sequence parallelism: per layer 34·sbh/t + 5·as²b/t at p = 2, of which the
 * masks are 2·sbh/t + as²b/t; the terms add up to the plan's memory. */
static void
test_cluster_terms (void)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  double terms[NK_ACT_N_TERMS];
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8, layers = 96 / 8.0;

  g_object_set (plan, "gpus", 64.0, "layers", 96.0, "d-model", h, "heads", a, "seq", s,
                "vocab", 51200.0, "batch", 8.0, "precision", NK_PRECISION_BF16_MIXED, NULL);
  g_object_set (plan, "tp", 8, "pp", 8, "micro-batch", 1, "sequence-parallel", TRUE, NULL);
  g_assert_true (nk_plan_get_activation_terms (plan, terms));
  g_assert_cmpfloat (fabs (sum (terms) / nk_plan_get_output (plan, "memory-max-activations") - 1), <, 1e-12);
  /* first stage, 8 micro-batches in flight: the layers' masks plus the embedding's */
  g_assert_cmpfloat (fabs (terms[NK_ACT_TERM_DROPOUT]
                           / (layers * 8 * (2 * s * b * h / t + a * s * s * b * 3 / t) + 8 * s * b * h / t) - 1),
                     <, 1e-12);
  g_assert_cmpfloat (terms[NK_ACT_TERM_SCORES], ==, 0);
  g_assert_cmpfloat (terms[NK_ACT_TERM_LOGITS], ==, 0);   /* not the last stage */
}

static void
test_names (void)
{
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    {
      g_assert_cmpuint (strlen (nk_act_term_name (i)), >, 0);
      g_assert_cmpuint (strlen (nk_act_term_why (i)), >, strlen (nk_act_term_name (i)));
    }
  {
    g_autoptr(NkTrainConfig) config = nk_train_config_new ();
    double planner[NK_ACT_N_TERMS], stored[NK_ACT_N_TERMS];

    config->model = NK_MODEL_CRUNCHER;
    g_assert_false (nk_train_config_activation_terms (config, planner, stored));
    g_assert_cmpfloat (sum (planner) + sum (stored), ==, 0);
  }
}

/* A GPT step's FLOPs by kind as the ops count them (napkin-cli train
 * --json-lines), against each kind's closed form written out here from
 * nk-autograd-nn.h's conventions, and nk_gpt_op_flops(). */
static void
test_flops_by_kind (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-accounting-XXXXXX", NULL);
  g_autofree char *batches = g_build_filename (dir, "batches.npy", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  enum { v = 64, t = 8, l = 2, h = 2, d = 16, b = 3, n = b * t };
  gint32 data[b * (t + 1)];
  const char *train[] = { "train", "--model", "gpt", "--n-layer", "2", "--n-head", "2", "--n-embd", "16",
                          "--block-size", "8", "--vocab", "64", "--batch", "3", "--steps", "1",
                          "--batches", batches, "--json-lines", NULL };
  double kinds[NK_N_FLOP_KINDS];
  JsonObject *o;

  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    data[i] = (gint32) ((i * 5) % v);
  g_assert_true (nk_npy_save (batches, NK_NPY_I4, 3, (const gint64[]) { 1, b, t + 1 }, data, &error));
  g_assert_cmpint (nk_test_cli (NULL, train, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_true (json_parser_load_from_data (parser, lines[0], -1, &error));
  o = json_node_get_object (json_parser_get_root (parser));

  /* Linears: per token c_attn 2·d·3d, c_proj 2·d², c_fc 2·d·4d, c_proj 2·4d·d a
   * layer and the head 2·d·V, ×3 with both gradients */
  g_assert_cmpint (json_object_get_int_member (o, "flops_matmul")
                   - json_object_get_int_member (o, "flops_attention"), ==,
                   3 * n * (l * 24 * d * d + 2 * d * v));
  /* q·kᵀ and att·v: 2·T·d each a token and layer, ×3 */
  g_assert_cmpint (json_object_get_int_member (o, "flops_attention"), ==, 3 * l * n * 4 * t * d);
  /* 2L + 1 LayerNorms, 8 forward and 13 backward an element */
  g_assert_cmpint (json_object_get_int_member (o, "flops_norm"), ==, (2 * l + 1) * n * d * 21);
  /* GELU on 4d per token, 1 forward and 1 backward */
  g_assert_cmpint (json_object_get_int_member (o, "flops_activation"), ==, l * n * 4 * d * 2);
  /* the causal softmax: 11 per visible score, T(T + 1)/2 a head and sequence */
  g_assert_cmpint (json_object_get_int_member (o, "flops_softmax"), ==, l * b * h * (t * (t + 1) / 2) * 11);
  /* the token rows' gradient scattered into wte, 1 an element */
  g_assert_cmpint (json_object_get_int_member (o, "flops_embedding"), ==, n * d);

  nk_gpt_op_flops (v, d, l, h, t, b, kinds);
  g_assert_cmpfloat (kinds[NK_FLOP_KIND_LINEAR] + kinds[NK_FLOP_KIND_ATTENTION], ==,
                     (double) json_object_get_int_member (o, "flops_matmul"));
  g_assert_cmpfloat (kinds[NK_FLOP_KIND_NORM], ==, (double) json_object_get_int_member (o, "flops_norm"));
  g_assert_cmpfloat (kinds[NK_FLOP_KIND_ACTIVATION], ==, (double) json_object_get_int_member (o, "flops_activation"));
  g_assert_cmpfloat (kinds[NK_FLOP_KIND_SOFTMAX], ==, (double) json_object_get_int_member (o, "flops_softmax"));
  g_assert_cmpfloat (kinds[NK_FLOP_KIND_EMBEDDING], ==, (double) json_object_get_int_member (o, "flops_embedding"));
  /* what no kind holds (adds, bias gradients, the loss) is some, and small */
  {
    double kinds_sum = 0, total = (double) json_object_get_int_member (o, "flops");

    for (guint i = 0; i < NK_N_FLOP_KINDS; i++)
      kinds_sum += kinds[i];
    g_assert_cmpfloat (total, >, kinds_sum);
    g_assert_cmpfloat (total, <, 1.2 * kinds_sum);
  }
  nk_test_remove_tree (dir);
}

/* napkin-cli plan --json carries the same terms as "activation_terms". */
static void
test_plan_json (void)
{
  const char *plan[] = { "plan", "--layers", "4", "--d-model", "128", "--heads", "4", "--seq", "64",
                         "--vocab", "256", "--batch", "16", "--gpus", "1", "--gpu", "h100-sxm",
                         "--tokens", "512000", "--mfu", "0.4", "--json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) config = nk_test_done_means_gpt (NK_PRECISION_FP32);
  double planner[NK_ACT_N_TERMS], stored[NK_ACT_N_TERMS];
  JsonObject *terms;

  g_assert_cmpint (nk_test_cli (NULL, plan, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  terms = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                         "activation_terms");
  g_assert_nonnull (terms);
  g_assert_cmpuint (json_object_get_size (terms), ==, NK_ACT_N_TERMS);
  g_assert_true (nk_train_config_activation_terms (config, planner, stored));
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    g_assert_cmpfloat (json_object_get_double_member (terms, nk_act_term_key (i)), ==, planner[i]);
  g_assert_cmpfloat (json_object_get_double_member (terms, "residual"), ==, 9.0 * N * D * 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/gpt-accounting/activations/fp32-by-hand", test_fp32_by_hand);
  g_test_add_func ("/engine/gpt-accounting/activations/bf16-by-hand", test_bf16_by_hand);
  g_test_add_func ("/engine/gpt-accounting/activations/cluster", test_cluster_terms);
  g_test_add_func ("/engine/gpt-accounting/activations/names", test_names);
  g_test_add_func ("/engine/gpt-accounting/flops-by-kind", test_flops_by_kind);
  g_test_add_func ("/engine/gpt-accounting/plan-json", test_plan_json);
  return g_test_run ();
}
