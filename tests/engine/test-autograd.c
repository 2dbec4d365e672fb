/* test-autograd.c: every op's gradient against float64 central differences
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "nk-autograd.h"
#include "nk-test-util.h"
#include "nk-rng.h"

typedef struct {
  int op;
} OpData;

static NkTensor *
f_unary (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_unary (((OpData *) data)->op, in[0], error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static NkTensor *
f_binary (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_binary (((OpData *) data)->op, in[0], in[1], error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static NkTensor *
f_matmul (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_matmul (in[0], in[1], error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static NkTensor *
f_linear (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_linear (in[0], in[1], n > 2 ? in[2] : NULL, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static NkTensor *
f_mul_scalar (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_mul_scalar (in[0], -2.5, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static NkTensor *
f_mean_of_square (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_unary (NK_UNARY_SQUARE, in[0], error);

  return y != NULL ? nk_ag_mean (y, error) : NULL;
}

static NkTensor *
f_mse (NkTensor **in, guint n, gpointer data, GError **error)
{
  return nk_ag_mse_loss (in[0], data, error);
}

static NkTensor *
f_cross_entropy (NkTensor **in, guint n, gpointer data, GError **error)
{
  return nk_ag_cross_entropy (in[0], data, error);
}

static NkTensor *
f_embedding (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_embedding (in[0], data, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static void
check (NkAutogradFunc  f,
       NkTensor      **inputs,
       guint           n,
       gpointer        data)
{
  g_autoptr(GError) error = NULL;
  double max_error = NAN;

  g_assert_true (nk_autograd_gradcheck (f, inputs, n, data, 1e-6, 1e-7, 1e-6, &max_error, &error));
  g_assert_no_error (error);
  g_test_message ("largest |analytic - numeric| = %.3g", max_error);
}

static void
test_unary (void)
{
  static const int ops[] = {
    NK_UNARY_NEG, NK_UNARY_EXP, NK_UNARY_LOG, NK_UNARY_SQRT, NK_UNARY_SQUARE,
    NK_UNARY_TANH, NK_UNARY_SIGMOID, NK_UNARY_RELU, NK_UNARY_GELU, NK_UNARY_SILU,
  };
  g_autoptr(NkRng) rng = nk_rng_new (1);

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      gboolean positive = ops[i] == NK_UNARY_LOG || ops[i] == NK_UNARY_SQRT;
      g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (3, 4), positive);
      OpData data = { ops[i] };

      /* relu has a kink at 0: keep the samples away from it (|x| ≥ 0.5 after this). */
      if (ops[i] == NK_UNARY_RELU)
        {
          g_autoptr(NkTensor) y = nk_test_random_f64 (rng, NK_SHAPE (3, 4), TRUE);
          g_autofree double *v = nk_tensor_to_doubles (y, NULL);

          for (int k = 0; k < 12; k++)
            {
              gint64 idx[2] = { k / 4, k % 4 };
              nk_tensor_set_item (x, idx, (k % 3 == 0) ? -v[k] : v[k], NULL);
            }
        }
      g_test_message ("unary op %d", ops[i]);
      check (f_unary, &x, 1, &data);
    }
}

static void
test_binary_broadcast (void)
{
  static const int ops[] = { NK_BINARY_ADD, NK_BINARY_SUB, NK_BINARY_MUL, NK_BINARY_DIV };
  g_autoptr(NkRng) rng = nk_rng_new (2);

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      OpData data = { ops[i] };
      NkTensor *same[2] = {
        nk_test_random_f64 (rng, NK_SHAPE (3, 4), FALSE),
        nk_test_random_f64 (rng, NK_SHAPE (3, 4), TRUE),
      };
      /* [3, 4] op [4] and [3, 1] op [1, 4]: the gradient is summed over stretched dims */
      NkTensor *row[2] = {
        nk_test_random_f64 (rng, NK_SHAPE (3, 4), FALSE),
        nk_test_random_f64 (rng, NK_SHAPE (4), TRUE),
      };
      NkTensor *outer[2] = {
        nk_test_random_f64 (rng, NK_SHAPE (3, 1), TRUE),
        nk_test_random_f64 (rng, NK_SHAPE (1, 4), TRUE),
      };

      check (f_binary, same, 2, &data);
      check (f_binary, row, 2, &data);
      check (f_binary, outer, 2, &data);
      for (int k = 0; k < 2; k++)
        {
          nk_tensor_unref (same[k]);
          nk_tensor_unref (row[k]);
          nk_tensor_unref (outer[k]);
        }
    }
}

static void
test_matmul (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (3);
  NkTensor *in[2] = {
    nk_test_random_f64 (rng, NK_SHAPE (3, 5), FALSE),
    nk_test_random_f64 (rng, NK_SHAPE (5, 2), FALSE),
  };

  check (f_matmul, in, 2, NULL);
  nk_tensor_unref (in[0]);
  nk_tensor_unref (in[1]);
}

static void
test_linear (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (4);
  NkTensor *in[3] = {
    nk_test_random_f64 (rng, NK_SHAPE (4, 3), FALSE),
    nk_test_random_f64 (rng, NK_SHAPE (5, 3), FALSE),   /* [out, in] */
    nk_test_random_f64 (rng, NK_SHAPE (5), FALSE),
  };

  check (f_linear, in, 3, NULL);
  check (f_linear, in, 2, NULL);
  for (int k = 0; k < 3; k++)
    nk_tensor_unref (in[k]);
}

static void
test_scalar_and_reductions (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (5);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (2, 3), FALSE);
  g_autoptr(NkTensor) y = nk_test_random_f64 (rng, NK_SHAPE (2, 3), FALSE);

  check (f_mul_scalar, &x, 1, NULL);
  check (f_mean_of_square, &y, 1, NULL);
}

static void
test_losses (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (6);
  g_autoptr(NkTensor) pred = nk_test_random_f64 (rng, NK_SHAPE (5, 1), FALSE);
  g_autoptr(NkTensor) target = nk_test_random_f64 (rng, NK_SHAPE (5), FALSE);
  g_autoptr(NkTensor) logits = nk_test_random_f64 (rng, NK_SHAPE (4, 6), FALSE);
  g_autoptr(NkTensor) classes = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (4),
                                                         (const gint32[]) { 0, 5, 2, 2 }, &error);
  g_autoptr(NkTensor) table = nk_test_random_f64 (rng, NK_SHAPE (7, 3), FALSE);
  g_autoptr(NkTensor) tokens = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (5),
                                                        (const gint32[]) { 1, 6, 1, 0, 1 }, &error);

  g_assert_no_error (error);
  check (f_mse, &pred, 1, target);
  check (f_cross_entropy, &logits, 1, classes);
  /* Token 1 appears three times: its row receives three gradients. */
  check (f_embedding, &table, 1, tokens);
}

static void
test_cross_entropy_value (void)
{
  g_autoptr(GError) error = NULL;
  /* Uniform logits over V classes: the loss is log V exactly. */
  g_autoptr(NkTensor) logits = nk_tensor_zeros (NK_DTYPE_F64, NK_SHAPE (3, 256), &error);
  g_autoptr(NkTensor) t = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (3),
                                                   (const gint32[]) { 7, 0, 255 }, &error);
  g_autoptr(NkTensor) loss = nk_ag_cross_entropy (logits, t, &error);
  double v;

  g_assert_no_error (error);
  g_assert_true (nk_tensor_item (loss, &v, &error));
  g_assert_cmpfloat_with_epsilon (v, log (256.0), 1e-12);
}

/* The seeds' computation-graph interlude: a value used twice gets both gradients. */
static void
test_fan_out (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (7);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (4), FALSE);
  g_autoptr(NkTensor) xx = NULL, y = NULL, s = NULL;
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *gv = NULL;

  nk_tensor_set_requires_grad (x, TRUE);
  /* s = Σ (x·x + x): ds/dx = 2x + 1 */
  xx = nk_ag_mul (x, x, &error);
  y = nk_ag_add (xx, x, &error);
  s = nk_ag_sum (y, &error);
  g_assert_no_error (error);
  g_assert_true (nk_autograd_backward (s, &error));
  g_assert_no_error (error);
  gv = nk_tensor_to_doubles (x->grad, NULL);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (gv[i], 2 * xv[i] + 1, 1e-12);

  /* A second backward (new graph) accumulates into the leaf, as PyTorch's does. */
  {
    g_autoptr(NkTensor) s2 = nk_ag_sum (x, &error);
    g_autofree double *g2 = NULL;

    g_assert_true (nk_autograd_backward (s2, &error));
    g2 = nk_tensor_to_doubles (x->grad, NULL);
    for (int i = 0; i < 4; i++)
      g_assert_cmpfloat_with_epsilon (g2[i], 2 * xv[i] + 2, 1e-12);
  }

  g_assert_true (nk_autograd_zero_grad (&x, 1, &error));
  g_free (gv);
  gv = nk_tensor_to_doubles (x->grad, NULL);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (gv[i], ==, 0.0);
}

static void
test_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (8);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (3), FALSE);
  g_autoptr(NkTensor) y = NULL;

  nk_tensor_set_requires_grad (x, TRUE);
  y = nk_ag_unary (NK_UNARY_EXP, x, &error);
  g_assert_false (nk_autograd_backward (y, &error));
  g_assert_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_NOT_SCALAR);
  g_clear_error (&error);

  {
    g_autoptr(NkTensor) plain = nk_test_random_f64 (rng, NK_SHAPE (1), FALSE);

    g_assert_false (nk_autograd_backward (plain, &error));
    g_assert_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_NO_GRAPH);
  }
}

/* The checker itself must catch a wrong gradient: here the square is computed
 * outside autograd, so backward misses it. */
static NkTensor *
f_wrong (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) hidden = nk_mul (in[0], in[0], error);
  g_autoptr(NkTensor) y = hidden != NULL ? nk_ag_mul (in[0], hidden, error) : NULL;

  return y != NULL ? nk_ag_sum (y, error) : NULL;
}

static void
test_checker_catches (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (9);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (3), TRUE);

  g_assert_false (nk_autograd_gradcheck (f_wrong, &x, 1, NULL, 1e-6, 1e-7, 1e-6, NULL, &error));
  g_assert_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_MISMATCH);
}

/* With an arena, the second identical step reuses every buffer: no new storage. */
static void
test_arena_reuse (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkArena) arena = nk_arena_new ();
  g_autoptr(NkRng) rng = nk_rng_new (10);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (4, 3), FALSE);
  g_autoptr(NkTensor) w = nk_test_random_f64 (rng, NK_SHAPE (5, 3), FALSE);
  g_autoptr(NkTensor) b = nk_test_random_f64 (rng, NK_SHAPE (5), FALSE);
  guint64 ids[2] = { 0, 0 };
  guint64 live[2][NK_N_BUCKETS];
  NkArena *previous;

  nk_tensor_set_requires_grad (w, TRUE);
  nk_tensor_set_requires_grad (b, TRUE);
  previous = nk_arena_set_current (arena);
  for (int step = 0; step < 3; step++)
    {
      g_autoptr(NkTensor) h = NULL, r = NULL, loss = NULL;

      nk_arena_reset (arena);
      h = nk_ag_linear (x, w, b, &error);
      r = nk_ag_relu (h, &error);
      loss = nk_ag_mean (r, &error);
      g_assert_no_error (error);
      g_assert_true (nk_autograd_backward (loss, &error));
      if (step > 0)
        {
          ids[step - 1] = nk_storage_get_id (h->storage);
          for (int k = 0; k < NK_N_BUCKETS; k++)
            nk_device_get_bytes (nk_device_get_cpu (), k, &live[step - 1][k], NULL);
        }
    }
  nk_arena_set_current (previous);
  g_assert_cmpuint (ids[0], ==, ids[1]);
  for (int k = 0; k < NK_N_BUCKETS; k++)
    g_assert_cmpuint (live[0][k], ==, live[1][k]);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/autograd/unary", test_unary);
  g_test_add_func ("/engine/autograd/binary-broadcast", test_binary_broadcast);
  g_test_add_func ("/engine/autograd/matmul", test_matmul);
  g_test_add_func ("/engine/autograd/linear", test_linear);
  g_test_add_func ("/engine/autograd/scalar-and-reductions", test_scalar_and_reductions);
  g_test_add_func ("/engine/autograd/losses", test_losses);
  g_test_add_func ("/engine/autograd/cross-entropy-uniform", test_cross_entropy_value);
  g_test_add_func ("/engine/autograd/fan-out", test_fan_out);
  g_test_add_func ("/engine/autograd/errors", test_errors);
  g_test_add_func ("/engine/autograd/checker-catches", test_checker_catches);
  g_test_add_func ("/engine/autograd/arena-reuse", test_arena_reuse);

  return g_test_run ();
}
