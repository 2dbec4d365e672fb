/* test-autograd.c: every op's gradient against float64 central differences
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "nk-autograd.h"
#include "nk-autograd-nn.h"
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

/* ---- every op kind: its backward against float64 finite differences ---------------- */

/* The library lists every kind of node it records (nk_autograd_list_ops()); each must
 * have a case below whose graph holds it, so a new op cannot land without its
 * gradient being checked, and a case cannot silently stop reaching its op. */

typedef enum {
  DRAW_NORMAL,      /* N(0, 1) */
  DRAW_POSITIVE,    /* |N(0, 1)| + 0.5: log, sqrt, divisors */
  DRAW_AWAY,        /* ±(|N(0, 1)| + 0.5), signs mixed: relu's kink stays out of reach */
} Draw;

typedef struct {
  int       arg;        /* the NkUnaryOp / NkBinaryOp of a case */
  NkTensor *tokens;     /* [5] int32 */
  NkTensor *tokens2d;   /* [2, 3] int64 */
  NkTensor *target;     /* [5] f64 */
  NkTensor *classes;    /* [4] int32 */
} CaseData;

typedef struct {
  const char     *op;     /* what nk_autograd_get_op_name() calls the node it checks */
  NkAutogradFunc  f;
  int             arg;
  guint           n_inputs;
  struct { int ndim; gint64 shape[3]; Draw draw; } in[3];
  double          eps, atol;   /* 0: 1e-6 and 1e-7 */
} OpCase;

/* The op names of the nodes the case functions made. */
static GHashTable *seen_ops;

static NkTensor *
seen (NkTensor *y)
{
  if (y != NULL && nk_autograd_get_op_name (y) != NULL)
    g_hash_table_add (seen_ops, (gpointer) nk_autograd_get_op_name (y));
  return y;
}

static NkTensor *
weigh (NkTensor  *y,
       GError   **error)
{
  g_autoptr(NkTensor) owned = seen (y);

  return owned != NULL ? nk_test_weighted_sum (owned, error) : NULL;
}

#define CD(d) ((CaseData *) (d))

static NkTensor *
c_matmul (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_matmul (in[0], in[1], error), error);
}

static NkTensor *
c_linear (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_linear (in[0], in[1], in[2], error), error);
}

static NkTensor *
c_binary (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_binary (CD (d)->arg, in[0], in[1], error), error);
}

static NkTensor *
c_mul_scalar (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_mul_scalar (in[0], -2.5, error), error);
}

static NkTensor *
c_unary (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_unary (CD (d)->arg, in[0], error), error);
}

static NkTensor *
c_sum (NkTensor **in, guint n, gpointer d, GError **error)
{
  return seen (nk_ag_sum (in[0], error));
}

static NkTensor *
c_mean (NkTensor **in, guint n, gpointer d, GError **error)
{
  g_autoptr(NkTensor) sq = nk_ag_mul (in[0], in[0], error);

  return sq != NULL ? seen (nk_ag_mean (sq, error)) : NULL;
}

static NkTensor *
c_cast (NkTensor **in, guint n, gpointer d, GError **error)
{
  /* To f32 and back: the gradient is cast back through both. */
  g_autoptr(NkTensor) narrow = seen (nk_ag_cast (in[0], NK_DTYPE_F32, error));

  return narrow != NULL ? weigh (nk_ag_cast (narrow, NK_DTYPE_F64, error), error) : NULL;
}

static NkTensor *
c_view (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_view (in[0], NK_SHAPE (2, 6), error), error);
}

static NkTensor *
c_transpose (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_transpose (in[0], 0, 1, error), error);
}

static NkTensor *
c_narrow (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_narrow (in[0], 1, 1, 2, error), error);
}

static NkTensor *
c_contiguous (NkTensor **in, guint n, gpointer d, GError **error)
{
  g_autoptr(NkTensor) t = nk_ag_transpose (in[0], 0, 1, error);

  return t != NULL ? weigh (nk_ag_contiguous (t, error), error) : NULL;
}

static NkTensor *
c_bmm (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_bmm (in[0], in[1], NK_BMM_TRANS_B, error), error);
}

static NkTensor *
c_gelu (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_gelu (in[0], error), error);
}

static NkTensor *
c_layer_norm (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_layer_norm (in[0], in[1], in[2], 1e-5, error), error);
}

static NkTensor *
c_softmax_causal (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_softmax_causal (in[0], 0.7, error), error);
}

static NkTensor *
c_embedding (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_embedding (in[0], CD (d)->tokens, error), error);
}

static NkTensor *
c_embedding_with_positions (NkTensor **in, guint n, gpointer d, GError **error)
{
  return weigh (nk_ag_embedding_with_positions (in[0], in[1], CD (d)->tokens2d, error), error);
}

static NkTensor *
c_mse_loss (NkTensor **in, guint n, gpointer d, GError **error)
{
  return seen (nk_ag_mse_loss (in[0], CD (d)->target, error));
}

static NkTensor *
c_cross_entropy (NkTensor **in, guint n, gpointer d, GError **error)
{
  return seen (nk_ag_cross_entropy (in[0], CD (d)->classes, error));
}

static NkTensor *
c_cross_entropy_rows (NkTensor **in, guint n, gpointer d, GError **error)
{
  /* Strided logits (a transpose) take the row kernels' path. */
  g_autoptr(NkTensor) t = nk_ag_transpose (in[0], 0, 1, error);

  return t != NULL ? seen (nk_ag_cross_entropy (t, CD (d)->classes, error)) : NULL;
}

#define IN1(a, b, dr)    { { 2, { a, b }, dr } }
#define IN2(a, b, c, e)  { { 2, { a, b }, DRAW_NORMAL }, { 2, { c, e }, DRAW_NORMAL } }
#define VEC(a, dr)       { 1, { a }, dr }

static const OpCase op_cases[] = {
  { "matmul", c_matmul, 0, 2, IN2 (3, 5, 5, 2) },
  { "linear", c_linear, 0, 3, { { 2, { 4, 3 } }, { 2, { 5, 3 } }, VEC (5, DRAW_NORMAL) } },
  { "binary_add", c_binary, NK_BINARY_ADD, 2, { { 2, { 3, 4 } }, VEC (4, DRAW_NORMAL) } },
  { "binary_sub", c_binary, NK_BINARY_SUB, 2, { { 2, { 3, 4 } }, VEC (4, DRAW_NORMAL) } },
  { "binary_mul", c_binary, NK_BINARY_MUL, 2, { { 2, { 3, 4 } }, VEC (4, DRAW_NORMAL) } },
  { "binary_div", c_binary, NK_BINARY_DIV, 2, { { 2, { 3, 4 } }, VEC (4, DRAW_POSITIVE) } },
  { "mul_scalar", c_mul_scalar, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_neg", c_unary, NK_UNARY_NEG, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_exp", c_unary, NK_UNARY_EXP, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_log", c_unary, NK_UNARY_LOG, 1, IN1 (3, 4, DRAW_POSITIVE) },
  { "unary_sqrt", c_unary, NK_UNARY_SQRT, 1, IN1 (3, 4, DRAW_POSITIVE) },
  { "unary_square", c_unary, NK_UNARY_SQUARE, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_tanh", c_unary, NK_UNARY_TANH, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_sigmoid", c_unary, NK_UNARY_SIGMOID, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_relu", c_unary, NK_UNARY_RELU, 1, IN1 (3, 4, DRAW_AWAY) },
  { "unary_gelu", c_unary, NK_UNARY_GELU, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "unary_silu", c_unary, NK_UNARY_SILU, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "sum", c_sum, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "mean", c_mean, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  /* The function is linear, so the step can be wide: f32 rounds x ± eps by at most
   * 2⁻²⁴·|x| each, which over 2·eps = 2e-2 and weights of a few units stays ~1e-5. */
  { "cast", c_cast, 0, 1, IN1 (3, 4, DRAW_NORMAL), 1e-2, 1e-4 },
  { "view", c_view, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "transpose", c_transpose, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "narrow", c_narrow, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "contiguous", c_contiguous, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "bmm", c_bmm, 0, 2, { { 3, { 2, 3, 4 } }, { 3, { 2, 5, 4 } } } },
  { "gelu", c_gelu, 0, 1, IN1 (3, 4, DRAW_NORMAL) },
  { "layer_norm", c_layer_norm, 0, 3, { { 2, { 3, 4 } }, VEC (4, DRAW_NORMAL),
                                         VEC (4, DRAW_NORMAL) } },
  { "softmax_causal", c_softmax_causal, 0, 1, { { 3, { 2, 4, 4 } } } },
  { "embedding", c_embedding, 0, 1, IN1 (7, 3, DRAW_NORMAL) },
  { "embedding_with_positions", c_embedding_with_positions, 0, 2, IN2 (5, 3, 4, 3) },
  { "mse_loss", c_mse_loss, 0, 1, IN1 (5, 1, DRAW_NORMAL) },
  { "cross_entropy", c_cross_entropy, 0, 1, IN1 (4, 6, DRAW_NORMAL) },
  { "cross_entropy_rows", c_cross_entropy_rows, 0, 1, IN1 (6, 4, DRAW_NORMAL) },
};

static NkTensor *
draw_input (NkRng         *rng,
            int            ndim,
            const gint64  *shape,
            Draw           draw)
{
  NkTensor *t = nk_test_random_f64 (rng, ndim, shape, draw != DRAW_NORMAL);

  if (draw == DRAW_AWAY)
    for (gint64 i = 0; i < nk_tensor_numel (t); i += 2)
      nk_tensor_data_f64 (t)[i] = -nk_tensor_data_f64 (t)[i];
  return t;
}

/* Runs @c's gradient check; seen_ops holds the op names its graphs had. */
static void
check_case (const OpCase *c,
            CaseData     *data,
            NkRng        *rng)
{
  g_autoptr(GError) error = NULL;
  NkTensor *in[3] = { NULL };
  double max_error = NAN;

  for (guint k = 0; k < c->n_inputs; k++)
    in[k] = draw_input (rng, c->in[k].ndim, c->in[k].shape, c->in[k].draw);
  data->arg = c->arg;
  g_hash_table_remove_all (seen_ops);
  g_test_message ("op %s", c->op);
  g_assert_true (nk_autograd_gradcheck (c->f, in, c->n_inputs, data,
                                        c->eps > 0 ? c->eps : 1e-6,
                                        c->atol > 0 ? c->atol : 1e-7, 1e-6, &max_error, &error));
  g_assert_no_error (error);
  g_test_message ("  largest |analytic - numeric| = %.3g", max_error);
  /* The case reached the op it is named for. */
  g_assert_true (g_hash_table_contains (seen_ops, c->op));
  for (guint k = 0; k < c->n_inputs; k++)
    nk_tensor_unref (in[k]);
}

static void
test_every_op (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (11);
  g_autoptr(GHashTable) checked = g_hash_table_new (g_str_hash, g_str_equal);
  const char * const *ops = nk_autograd_list_ops ();
  CaseData data = { 0 };

  data.tokens = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (5),
                                         (const gint32[]) { 1, 6, 1, 0, 1 }, &error);
  data.tokens2d = nk_tensor_new_from_data (NK_DTYPE_INT64, NK_SHAPE (2, 3),
                                           (const gint64[]) { 0, 2, 2, 4, 2, 0 }, &error);
  data.classes = nk_tensor_new_from_data (NK_DTYPE_INT32, NK_SHAPE (4),
                                          (const gint32[]) { 0, 5, 2, 2 }, &error);
  g_assert_no_error (error);
  data.target = nk_test_random_f64 (rng, NK_SHAPE (5), FALSE);
  seen_ops = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < G_N_ELEMENTS (op_cases); i++)
    {
      GHashTableIter iter;
      gpointer name;

      check_case (&op_cases[i], &data, rng);
      g_hash_table_iter_init (&iter, seen_ops);
      while (g_hash_table_iter_next (&iter, &name, NULL))
        {
          /* Every node a graph holds is of a listed kind. */
          if (!g_strv_contains (ops, name))
            g_test_message ("op %s is recorded but not listed", (const char *) name);
          g_assert_true (g_strv_contains (ops, name));
        }
      g_hash_table_add (checked, (gpointer) op_cases[i].op);
    }

  for (guint i = 0; ops[i] != NULL; i++)
    {
      if (!g_hash_table_contains (checked, ops[i]))
        g_test_message ("op %s has no gradient check here", ops[i]);
      g_assert_true (g_hash_table_contains (checked, ops[i]));
    }
  g_assert_cmpuint (g_strv_length ((char **) ops), ==, G_N_ELEMENTS (op_cases));

  g_clear_pointer (&seen_ops, g_hash_table_unref);
  g_clear_pointer (&data.tokens, nk_tensor_unref);
  g_clear_pointer (&data.tokens2d, nk_tensor_unref);
  g_clear_pointer (&data.classes, nk_tensor_unref);
  g_clear_pointer (&data.target, nk_tensor_unref);
}

/* A leaf and a tensor outside any graph have no op; a recorded one names its own. */
static void
test_op_names (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (12);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (2, 3), FALSE);
  g_autoptr(NkTensor) plain = nk_test_random_f64 (rng, NK_SHAPE (2, 3), FALSE);
  g_autoptr(NkTensor) y = NULL;
  g_autoptr(NkTensor) z = NULL;

  nk_tensor_set_requires_grad (x, TRUE);
  y = nk_ag_unary (NK_UNARY_TANH, x, &error);
  z = nk_ag_unary (NK_UNARY_TANH, plain, &error);
  g_assert_no_error (error);
  g_assert_null (nk_autograd_get_op_name (x));
  g_assert_null (nk_autograd_get_op_name (z));
  g_assert_null (nk_autograd_get_op_name (NULL));
  g_assert_cmpstr (nk_autograd_get_op_name (y), ==, "unary_tanh");
  nk_autograd_release (y);
  g_assert_null (nk_autograd_get_op_name (y));
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
  g_test_add_func ("/engine/autograd/every-op", test_every_op);
  g_test_add_func ("/engine/autograd/op-names", test_op_names);

  return g_test_run ();
}
