/* test-model.c: the Cruncher and the tiny LM: sizes, gradients and the seed's FLOPs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-model.h"
#include "nk-rng.h"

/* Seed 001: D²·L + D·L + D + 1, with the names of model.state_dict(). */
static void
test_cruncher_parameters (void)
{
  static const guint dims[] = { 1, 4, 64 };
  static const guint layers[] = { 0, 1, 2, 5 };

  for (guint i = 0; i < G_N_ELEMENTS (dims); i++)
    for (guint j = 0; j < G_N_ELEMENTS (layers); j++)
      {
        g_autoptr(GError) error = NULL;
        guint64 d = dims[i], l = layers[j];
        g_autoptr(NkModel) m = nk_model_new_cruncher (d, l, NK_DTYPE_F32, &error);

        g_assert_no_error (error);
        g_assert_cmpuint (nk_model_count_parameters (m), ==, d * d * l + d * l + d + 1);
      }

  {
    g_autoptr(NkModel) m = nk_model_new_cruncher (64, 2, NK_DTYPE_F32, NULL);
    static const char *names[] = {
      "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
      "final.weight", "final.bias",
    };
    static const gint64 numel[] = { 64 * 64, 64, 64 * 64, 64, 64, 1 };
    guint n;
    NkTensor **params = nk_model_get_params (m, &n);

    g_assert_cmpuint (n, ==, G_N_ELEMENTS (names));
    for (guint i = 0; i < n; i++)
      {
        g_assert_cmpstr (nk_model_get_param_name (m, i), ==, names[i]);
        g_assert_cmpint (nk_tensor_numel (params[i]), ==, numel[i]);
        g_assert_cmpint (nk_storage_get_bucket (params[i]->storage), ==, NK_BUCKET_PARAMS);
        g_assert_cmpint (nk_storage_get_bucket (params[i]->grad->storage), ==, NK_BUCKET_GRADS);
      }
    /* PyTorch layout: weight [out, in] */
    g_assert_cmpint (params[4]->shape[0], ==, 1);
    g_assert_cmpint (params[4]->shape[1], ==, 64);
  }
}

/* The lecture's init: |w| ≤ 3/sqrt(fan_in), and the sample std near 1/sqrt(fan_in). */
static void
test_init (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_cruncher (256, 1, NK_DTYPE_F32, &error);
  g_autoptr(NkRng) rng = nk_rng_new (3);
  NkTensor **params;
  g_autofree double *w = NULL;
  double sum2 = 0.0, bound = 3.0 / 16.0;
  gsize n;

  g_assert_true (nk_model_init (m, rng, NK_INIT_TRUNC_NORMAL, &error));
  params = nk_model_get_params (m, NULL);
  w = nk_tensor_to_doubles (params[0], &n);
  for (gsize i = 0; i < n; i++)
    {
      g_assert_cmpfloat (fabs (w[i]), <=, bound);
      sum2 += w[i] * w[i];
    }
  /* The ±3σ truncation shrinks the variance by 1 − 6φ(3)/(2Φ(3) − 1) ≈ 0.9733. */
  g_assert_cmpfloat_with_epsilon (sqrt (sum2 / n), sqrt (0.97333) / 16.0, 0.002);
}

typedef struct {
  NkModel  *model;
  NkTensor *x;
  NkTensor *y;
} ModelData;

static NkTensor *
f_model (NkTensor **in, guint n, gpointer data, GError **error)
{
  ModelData *d = data;

  return nk_model_loss (d->model, d->x, d->y, error);
}

static void
check_model (NkModel  *model,
             NkTensor *x,
             NkTensor *y)
{
  g_autoptr(GError) error = NULL;
  ModelData d = { model, x, y };
  guint n;
  NkTensor **params = nk_model_get_params (model, &n);
  double max_error = NAN;

  g_assert_true (nk_autograd_gradcheck (f_model, params, n, &d, 1e-6, 1e-6, 1e-5,
                                        &max_error, &error));
  g_assert_no_error (error);
  g_test_message ("largest |analytic - numeric| = %.3g", max_error);
}

static void
test_cruncher_gradients (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_cruncher (3, 2, NK_DTYPE_F64, &error);
  g_autoptr(NkRng) rng = nk_rng_new (11);
  double xv[12], yv[4];
  g_autoptr(NkTensor) x = NULL, y = NULL;

  g_assert_true (nk_model_init (m, rng, NK_INIT_NORMAL, &error));
  for (int i = 0; i < 12; i++)
    xv[i] = nk_rng_normal (rng, 0, 1);
  for (int i = 0; i < 4; i++)
    yv[i] = nk_rng_normal (rng, 0, 1);
  x = nk_tensor_new_from_doubles (NK_DTYPE_F64, NK_SHAPE (4, 3), xv, &error);
  y = nk_tensor_new_from_doubles (NK_DTYPE_F64, NK_SHAPE (4), yv, &error);
  check_model (m, x, y);
}

static void
test_tiny_lm_gradients (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_tiny_lm (7, 3, 2, NK_DTYPE_F64, &error);
  g_autoptr(NkRng) rng = nk_rng_new (12);
  g_autoptr(NkTensor) x = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (2, 3),
                                                   (const gint32[]) { 1, 4, 6, 0, 1, 1 }, &error);
  g_autoptr(NkTensor) y = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (2, 3),
                                                   (const gint32[]) { 4, 6, 2, 1, 1, 3 }, &error);

  g_assert_no_error (error);
  g_assert_true (nk_model_init (m, rng, NK_INIT_NORMAL, &error));
  /* V·D + L·(D² + D) + V·D + V */
  g_assert_cmpuint (nk_model_count_parameters (m), ==, 7 * 3 + 2 * (9 + 3) + 7 * 3 + 7);
  g_assert_cmpstr (nk_model_get_param_name (m, 0), ==, "embedding.weight");
  g_assert_cmpstr (nk_model_get_param_name (m, 5), ==, "head.weight");
  check_model (m, x, y);
}

/* Seed 000's two-layer example: H1 = X·W1, H2 = H1·W2, L = mean(H2²), X needs a
 * gradient too ("optional backprop to input"). Counted matmul FLOPs must be
 * forward 2BD² + 2BDK and backward 4BD² + 4BDK exactly; the rest is elementwise. */
static void
test_seed_flops (void)
{
  const gint64 B = 8, D = 16, K = 4;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_tensor_ones (NK_DTYPE_F32, NK_SHAPE (B, D), &error);
  g_autoptr(NkTensor) w1 = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (D, D), 0.01, &error);
  g_autoptr(NkTensor) w2 = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (D, K), 0.02, &error);
  g_autoptr(NkTensor) h1 = NULL, h2 = NULL, sq = NULL, loss = NULL;
  guint64 fwd_total, fwd_matmul, bwd_total, bwd_matmul;

  nk_tensor_set_requires_grad (x, TRUE);
  nk_tensor_set_requires_grad (w1, TRUE);
  nk_tensor_set_requires_grad (w2, TRUE);

  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();
  h1 = nk_ag_matmul (x, w1, &error);
  h2 = nk_ag_matmul (h1, w2, &error);
  sq = nk_ag_unary (NK_UNARY_SQUARE, h2, &error);
  loss = nk_ag_mean (sq, &error);
  g_assert_no_error (error);
  fwd_total = nk_flops_get ();
  fwd_matmul = nk_autograd_get_matmul_flops ();

  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();
  g_assert_true (nk_autograd_backward (loss, &error));
  bwd_total = nk_flops_get ();
  bwd_matmul = nk_autograd_get_matmul_flops ();

  g_assert_cmpuint (fwd_matmul, ==, 2 * B * D * D + 2 * B * D * K);
  g_assert_cmpuint (bwd_matmul, ==, 4 * B * D * D + 4 * B * D * K);
  /* Every counted FLOP of a matmul is in nk-ops' counter too. */
  g_assert_cmpuint (fwd_total, >=, fwd_matmul);
  g_assert_cmpuint (bwd_total, >=, bwd_matmul);
  /* Elementwise: the square and the mean's sum (≈ 2BK forward, the seed's note);
   * 2·H2 ⊙ G (≈ 2BK backward). */
  g_test_message ("elementwise FLOPs: forward %" G_GUINT64_FORMAT ", backward %" G_GUINT64_FORMAT " (BK = %" G_GINT64_FORMAT ")",
                  fwd_total - fwd_matmul, bwd_total - bwd_matmul, B * K);
  g_assert_cmpuint (fwd_total - fwd_matmul, ==, 2 * B * K);
  g_assert_cmpuint (bwd_total - bwd_matmul, <=, 3 * B * K);
}

/* One Cruncher step against 6·B·P: the first layer's input needs no gradient, so the
 * counted matmuls are 6·B·(weights) − 2·B·D² exactly, and the total is within a few
 * percent of 6·B·P (biases and the loss are elementwise). */
static void
test_cruncher_step_flops (void)
{
  const gint64 B = 32, D = 64, L = 3;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_cruncher (D, L, NK_DTYPE_F32, &error);
  g_autoptr(NkRng) rng = nk_rng_new (5);
  g_autoptr(NkTensor) x = nk_tensor_ones (NK_DTYPE_F32, NK_SHAPE (B, D), &error);
  g_autoptr(NkTensor) y = nk_tensor_ones (NK_DTYPE_F32, NK_SHAPE (B), &error);
  g_autoptr(NkTensor) loss = NULL;
  guint64 weights = D * D * L + D, params, total, matmul;

  g_assert_true (nk_model_init (m, rng, NK_INIT_TRUNC_NORMAL, &error));
  params = nk_model_count_parameters (m);
  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();
  loss = nk_model_loss (m, x, y, &error);
  g_assert_true (nk_autograd_backward (loss, &error));
  total = nk_flops_get ();
  matmul = nk_autograd_get_matmul_flops ();

  g_assert_cmpuint (matmul, ==, 6 * B * weights - 2 * B * D * D);
  g_test_message ("step FLOPs %" G_GUINT64_FORMAT " vs 6·B·P = %" G_GUINT64_FORMAT,
                  total, 6 * B * params);
  g_assert_cmpfloat (fabs ((double) (total + 2 * B * D * D) / (6.0 * B * params) - 1.0), <, 0.03);
}

static void
test_state_dict_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) small = nk_model_new_cruncher (4, 1, NK_DTYPE_F32, &error);
  g_autoptr(NkModel) big = nk_model_new_cruncher (8, 1, NK_DTYPE_F32, &error);
  g_autoptr(NkSafetensorsWriter) w = nk_safetensors_writer_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(NkSafetensors) st = NULL;

  g_assert_true (nk_model_save_state_dict (small, w, &error));
  bytes = nk_safetensors_writer_to_bytes (w);
  st = nk_safetensors_new_from_bytes (bytes, "small.safetensors", &error);
  g_assert_no_error (error);
  g_assert_true (nk_model_load_state_dict (small, st, &error));
  g_assert_false (nk_model_load_state_dict (big, st, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "layers.0.weight"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/model/cruncher/parameters", test_cruncher_parameters);
  g_test_add_func ("/engine/model/init/trunc-normal", test_init);
  g_test_add_func ("/engine/model/cruncher/gradients", test_cruncher_gradients);
  g_test_add_func ("/engine/model/tiny-lm/gradients", test_tiny_lm_gradients);
  g_test_add_func ("/engine/model/flops/seed-two-layer", test_seed_flops);
  g_test_add_func ("/engine/model/flops/cruncher-step", test_cruncher_step_flops);
  g_test_add_func ("/engine/model/state-dict/errors", test_state_dict_errors);

  return g_test_run ();
}
