/* test-autograd-nn.c: the GPT's ops against float64 references and finite differences
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: every gradient against float64 central differences (nk_autograd_gradcheck,
 * itself shown to catch a wrong gradient in test-autograd); forward values against
 * float64 loops written here (LayerNorm's mean 0 and variance v/(v+eps), GELU at
 * points from erf tables, causal softmax rows that sum to 1 with exact zeros above
 * the diagonal, a naive triple loop for the batched products); FLOP counts against
 * their closed forms.
 */
#include "config.h"

#include <math.h>

#include "nk-autograd-nn.h"
#include "nk-gemm-plan.h"
#include "nk-rng.h"
#include "nk-test-util.h"

static void
assert_gradcheck (NkAutogradFunc  func,
                  NkTensor      **inputs,
                  guint           n,
                  gpointer        data)
{
  g_autoptr(GError) error = NULL;
  double max_err = -1.0;

  g_assert_true (nk_autograd_gradcheck (func, inputs, n, data, 1e-6, 1e-7, 1e-5, &max_err,
                                        &error));
  g_assert_no_error (error);
  g_test_message ("max |analytic - numeric| = %.3g", max_err);
}

/* ---- LayerNorm ------------------------------------------------------------------- */

static void
test_layer_norm_forward (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (1);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (4, 7), FALSE);
  g_autoptr(NkTensor) w = nk_test_random_f64 (rng, NK_SHAPE (7), FALSE);
  g_autoptr(NkTensor) b = nk_test_random_f64 (rng, NK_SHAPE (7), FALSE);
  g_autoptr(NkTensor) plain = nk_ag_layer_norm (x, NULL, NULL, 1e-5, &error);
  g_autoptr(NkTensor) affine = nk_ag_layer_norm (x, w, b, 1e-5, &error);
  const double *xv = nk_tensor_data_f64 (x), *pv, *av;

  g_assert_no_error (error);
  pv = nk_tensor_data_f64 (plain);
  av = nk_tensor_data_f64 (affine);
  for (int r = 0; r < 4; r++)
    {
      double mean = 0.0, var = 0.0, ym = 0.0, yv = 0.0;

      for (int j = 0; j < 7; j++)
        mean += xv[r * 7 + j] / 7.0;
      for (int j = 0; j < 7; j++)
        var += (xv[r * 7 + j] - mean) * (xv[r * 7 + j] - mean) / 7.0;
      for (int j = 0; j < 7; j++)
        ym += pv[r * 7 + j] / 7.0;
      for (int j = 0; j < 7; j++)
        yv += (pv[r * 7 + j] - ym) * (pv[r * 7 + j] - ym) / 7.0;
      /* Mean 0; the biased variance of the output is var/(var + eps). */
      g_assert_cmpfloat_with_epsilon (ym, 0.0, 1e-12);
      g_assert_cmpfloat_with_epsilon (yv, var / (var + 1e-5), 1e-12);
      for (int j = 0; j < 7; j++)
        {
          double ref = (xv[r * 7 + j] - mean) / sqrt (var + 1e-5)
                       * nk_tensor_data_f64 (w)[j] + nk_tensor_data_f64 (b)[j];
          g_assert_cmpfloat_with_epsilon (av[r * 7 + j], ref, 1e-12);
        }
    }
}

static NkTensor *
f_layer_norm (NkTensor **in, guint n, gpointer data, GError **error)
{
  /* in[0] is [C, R]: its transpose is a non-contiguous [R, C] input. */
  g_autoptr(NkTensor) xt = nk_ag_transpose (in[0], 0, 1, error);
  g_autoptr(NkTensor) y = xt ? nk_ag_layer_norm (xt, n > 1 ? in[1] : NULL,
                                                 n > 2 ? in[2] : NULL, 1e-5, error) : NULL;

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static void
test_layer_norm_gradcheck (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (2);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (5, 3), FALSE);
  g_autoptr(NkTensor) w = nk_test_random_f64 (rng, NK_SHAPE (5), FALSE);
  g_autoptr(NkTensor) b = nk_test_random_f64 (rng, NK_SHAPE (5), FALSE);
  NkTensor *in[3] = { x, w, b };

  assert_gradcheck (f_layer_norm, in, 3, NULL);
  assert_gradcheck (f_layer_norm, in, 1, NULL);
}

/* ---- GELU ------------------------------------------------------------------------ */

static void
test_gelu_points (void)
{
  /* x·Φ(x) with Φ(−3) = 0.0013498980316301, Φ(−1) = 0.15865525393145707, ... (tables). */
  static const double xs[] = { -3.0, -1.0, 0.0, 0.5, 1.0, 2.0 };
  static const double ys[] = { -0.00404969409489031, -0.15865525393145707, 0.0,
                               0.34573123063700656, 0.8413447460685429, 1.9544997361036416 };
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_tensor_new_from_doubles (NK_DTYPE_F64, NK_SHAPE (6), xs, &error);
  g_autoptr(NkTensor) y = nk_ag_gelu (x, &error);

  g_assert_no_error (error);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (nk_tensor_data_f64 (y)[i], ys[i], 1e-13);
}

static NkTensor *
f_gelu (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) xt = nk_ag_transpose (in[0], 0, 1, error);
  g_autoptr(NkTensor) y = xt ? nk_ag_gelu (xt, error) : NULL;

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static void
test_gelu_gradcheck (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (3);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (3, 4), FALSE);

  assert_gradcheck (f_gelu, &x, 1, NULL);
}

/* ---- causal softmax -------------------------------------------------------------- */

static void
test_softmax_causal_forward (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (4);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (2, 5, 5), FALSE);
  g_autoptr(NkTensor) y = NULL;
  double *xv = nk_tensor_data_f64 (x);
  const double *yv;
  double scale = 0.37;

  /* What lies above the diagonal must not be read. */
  xv[0 * 5 + 3] = NAN;
  xv[25 + 1 * 5 + 4] = INFINITY;
  y = nk_ag_softmax_causal (x, scale, &error);
  g_assert_no_error (error);
  yv = nk_tensor_data_f64 (y);
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < 5; i++)
      {
        const double *row = xv + m * 25 + i * 5;
        double mx = -INFINITY, s = 0.0, total = 0.0;

        for (int j = 0; j <= i; j++)
          mx = MAX (mx, scale * row[j]);
        for (int j = 0; j <= i; j++)
          s += exp (scale * row[j] - mx);
        for (int j = 0; j < 5; j++)
          {
            double got = yv[m * 25 + i * 5 + j];

            if (j > i)
              g_assert_true (got == 0.0 && !signbit (got));
            else
              g_assert_cmpfloat_with_epsilon (got, exp (scale * row[j] - mx) / s, 1e-15);
            total += got;
          }
        g_assert_cmpfloat_with_epsilon (total, 1.0, 1e-14);
      }
}

static NkTensor *
f_softmax_causal (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_softmax_causal (in[0], 0.7, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static void
test_softmax_causal_gradcheck (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (5);
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (2, 4, 4), FALSE);
  g_autoptr(GError) error = NULL;

  assert_gradcheck (f_softmax_causal, &x, 1, NULL);
  /* Above the diagonal the gradient is exactly 0. */
  {
    g_autoptr(NkTensor) loss = f_softmax_causal (&x, 1, NULL, &error);

    nk_tensor_set_grad (x, NULL);
    g_assert_true (nk_autograd_backward (loss, &error));
    for (int m = 0; m < 2; m++)
      for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
          g_assert_true (nk_tensor_data_f64 (x->grad)[m * 16 + i * 4 + j] == 0.0);
  }
}

/* ---- batched matmul -------------------------------------------------------------- */

/* C[z, i, j] = Σ_k A[z, i, k]·B[z, k, j] over any strides, by index. */
static double
naive_entry (NkTensor *a,
             NkTensor *b,
             gint64    z1,
             gint64    z2,
             gint64    i,
             gint64    j)
{
  gint64 k = a->shape[3];
  double acc = 0.0;

  for (gint64 p = 0; p < k; p++)
    {
      double x = 0.0, y = 0.0;

      nk_tensor_get_item (a, (gint64[]) { z1, z2, i, p }, &x, NULL);
      nk_tensor_get_item (b, (gint64[]) { z1, z2, p, j }, &y, NULL);
      acc += x * y;
    }
  return acc;
}

typedef struct {
  gint64 B, T, H, hd;
} AttnShape;

/* q, k, v as nanoGPT splits them: narrows of [B·T, 3d], viewed [B, T, H, hd],
 * transposed to [B, H, T, hd]. */
static gboolean
split_qkv (NkTensor         *qkv,
           const AttnShape  *s,
           NkTensor        **out,
           GError          **error)
{
  gint64 d = s->H * s->hd;

  for (int i = 0; i < 3; i++)
    {
      g_autoptr(NkTensor) part = nk_ag_narrow (qkv, 1, i * d, d, error);
      g_autoptr(NkTensor) heads = part ? nk_ag_view (part, NK_SHAPE (s->B, s->T, s->H, s->hd),
                                                     error) : NULL;

      out[i] = heads ? nk_ag_transpose (heads, 1, 2, error) : NULL;
      if (out[i] == NULL)
        return FALSE;
    }
  return TRUE;
}

static void
test_bmm_against_loops (void)
{
  AttnShape s = { 2, 5, 3, 4 };
  g_autoptr(NkRng) rng = nk_rng_new (6);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) qkv = nk_test_random_f64 (rng, NK_SHAPE (s.B * s.T, 3 * s.H * s.hd), FALSE);
  g_autoptr(NkTensor) att = NULL;
  g_autoptr(NkTensor) y = NULL;
  g_autoptr(NkTensor) kt = NULL;
  NkTensor *qkv_parts[3] = { NULL };
  guint64 before = nk_autograd_get_flops (NK_FLOP_KIND_ATTENTION);

  g_assert_true (split_qkv (qkv, &s, qkv_parts, &error));
  g_assert_true (nk_tensor_same_storage (qkv_parts[1], qkv));
  kt = nk_tensor_transpose (qkv_parts[1], -2, -1, &error);

  /* q·kᵀ: k is read through its strides, no copy (the plan needs none). */
  {
    NkGemmMatrix ma = { s.T, s.hd, qkv_parts[0]->stride[2], qkv_parts[0]->stride[3],
                        qkv_parts[0]->stride[1] };
    NkGemmMatrix mb = { s.hd, s.T, kt->stride[2], kt->stride[3], kt->stride[1] };
    NkGemmMatrix mc = { s.T, s.T, s.T, 1, s.T * s.T };
    NkGemmPlan plan;

    g_assert_true (nk_gemm_plan (&ma, &mb, &mc, s.H, &plan));
    g_assert_false (nk_gemm_plan_needs_copy (&plan));
  }

  att = nk_ag_bmm (qkv_parts[0], qkv_parts[1], NK_BMM_TRANS_B, &error);
  g_assert_no_error (error);
  for (gint64 z1 = 0; z1 < s.B; z1++)
    for (gint64 z2 = 0; z2 < s.H; z2++)
      for (gint64 i = 0; i < s.T; i++)
        for (gint64 j = 0; j < s.T; j++)
          {
            double got = 0.0;

            nk_tensor_get_item (att, (gint64[]) { z1, z2, i, j }, &got, NULL);
            g_assert_cmpfloat_with_epsilon (got, naive_entry (qkv_parts[0], kt, z1, z2, i, j),
                                            1e-12);
          }

  /* att·v merged: y[b, t, h·hd + e] = (att·v)[b, h, t, e]. */
  y = nk_ag_bmm (att, qkv_parts[2], NK_BMM_MERGE_HEADS, &error);
  g_assert_no_error (error);
  g_assert_cmpint (y->ndim, ==, 3);
  g_assert_cmpint (y->shape[2], ==, s.H * s.hd);
  g_assert_true (nk_tensor_is_contiguous (y));
  for (gint64 z1 = 0; z1 < s.B; z1++)
    for (gint64 z2 = 0; z2 < s.H; z2++)
      for (gint64 i = 0; i < s.T; i++)
        for (gint64 e = 0; e < s.hd; e++)
          {
            double got = 0.0;

            nk_tensor_get_item (y, (gint64[]) { z1, i, z2 * s.hd + e }, &got, NULL);
            g_assert_cmpfloat_with_epsilon (got, naive_entry (att, qkv_parts[2], z1, z2, i, e),
                                            1e-12);
          }
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_ATTENTION) - before, ==,
                    2 * 2 * (guint64) (s.B * s.H * s.T * s.T * s.hd));
  for (int i = 0; i < 3; i++)
    nk_tensor_unref (qkv_parts[i]);
}

/* The attention of one nanoGPT block from c_attn's output to the merged heads. */
static NkTensor *
f_attention (NkTensor **in, guint n, gpointer data, GError **error)
{
  const AttnShape *s = data;
  NkTensor *parts[3] = { NULL };
  g_autoptr(NkTensor) att = NULL;
  g_autoptr(NkTensor) p = NULL;
  g_autoptr(NkTensor) y = NULL;
  NkTensor *result = NULL;

  if (split_qkv (in[0], s, parts, error)
      && (att = nk_ag_bmm (parts[0], parts[1], NK_BMM_TRANS_B, error)) != NULL
      && (p = nk_ag_softmax_causal (att, 1.0 / sqrt ((double) s->hd), error)) != NULL
      && (y = nk_ag_bmm (p, parts[2], NK_BMM_MERGE_HEADS, error)) != NULL)
    result = nk_test_weighted_sum (y, error);
  for (int i = 0; i < 3; i++)
    g_clear_pointer (&parts[i], nk_tensor_unref);
  return result;
}

static void
test_attention_gradcheck (void)
{
  AttnShape s = { 2, 3, 2, 2 };
  g_autoptr(NkRng) rng = nk_rng_new (7);
  g_autoptr(NkTensor) qkv = nk_test_random_f64 (rng, NK_SHAPE (s.B * s.T, 3 * s.H * s.hd), FALSE);

  assert_gradcheck (f_attention, &qkv, 1, &s);
}

static NkTensor *
f_bmm_trans_a (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_bmm (in[0], in[1], NK_BMM_TRANS_A, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static void
test_bmm_trans_a_gradcheck (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (8);
  g_autoptr(NkTensor) a = nk_test_random_f64 (rng, NK_SHAPE (2, 3, 4), FALSE);   /* used as [2, 4, 3] */
  g_autoptr(NkTensor) b = nk_test_random_f64 (rng, NK_SHAPE (2, 3, 5), FALSE);
  NkTensor *in[2] = { a, b };

  assert_gradcheck (f_bmm_trans_a, in, 2, NULL);
}

/* ---- embedding ------------------------------------------------------------------- */

static NkTensor *
f_embedding (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_embedding (in[0], data, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static void
test_embedding_repeated_ids (void)
{
  static const gint64 ids[] = { 0, 2, 2, 4, 2, 0 };
  g_autoptr(NkRng) rng = nk_rng_new (9);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) w = nk_test_random_f64 (rng, NK_SHAPE (5, 3), FALSE);
  g_autoptr(NkTensor) index = nk_tensor_new_full (NULL, NK_DTYPE_INT64, NK_SHAPE (6),
                                                  NK_BUCKET_OTHER, FALSE, &error);
  g_autoptr(NkTensor) loss = NULL;
  g_autoptr(NkTensor) upstream = NULL;

  memcpy (nk_tensor_data (index), ids, sizeof ids);
  assert_gradcheck (f_embedding, &w, 1, index);

  /* Row 2's gradient is the sum of the three rows that picked it; rows 1, 3 get 0. */
  nk_tensor_set_grad (w, NULL);
  loss = f_embedding (&w, 1, index, &error);
  g_assert_true (nk_autograd_backward (loss, &error));
  {
    g_autoptr(NkRng) wrng = nk_rng_new (99);

    upstream = nk_test_random_f64 (wrng, NK_SHAPE (6, 3), FALSE);
  }
  for (int j = 0; j < 3; j++)
    {
      const double *u = nk_tensor_data_f64 (upstream), *gw = nk_tensor_data_f64 (w->grad);

      g_assert_cmpfloat_with_epsilon (gw[2 * 3 + j], u[1 * 3 + j] + u[2 * 3 + j] + u[4 * 3 + j],
                                      1e-14);
      g_assert_cmpfloat_with_epsilon (gw[0 * 3 + j], u[0 * 3 + j] + u[5 * 3 + j], 1e-14);
      g_assert_true (gw[1 * 3 + j] == 0.0 && gw[3 * 3 + j] == 0.0);
    }
}

/* wte[ids] + wpe[0..T) in one op: against finite differences, and bit for bit
 * against the two ops it replaces (nk_ag_embedding, nk_ag_narrow, nk_ag_add). */
static NkTensor *
f_embedding_positions (NkTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(NkTensor) y = nk_ag_embedding_with_positions (in[0], in[1], data, error);

  return y != NULL ? nk_test_weighted_sum (y, error) : NULL;
}

static NkTensor *
f_embedding_then_add (NkTensor **in, guint n, gpointer data, GError **error)
{
  NkTensor *ids = data;
  g_autoptr(NkTensor) flat = nk_tensor_reshape (ids, NK_SHAPE (nk_tensor_numel (ids)), error);
  g_autoptr(NkTensor) tok = flat ? nk_ag_embedding (in[0], flat, error) : NULL;
  g_autoptr(NkTensor) tok3 = tok ? nk_ag_view (tok, 3, (gint64[]) { ids->shape[0], ids->shape[1], in[0]->shape[1] }, error) : NULL;
  g_autoptr(NkTensor) pos = tok3 ? nk_ag_narrow (in[1], 0, 0, ids->shape[1], error) : NULL;
  g_autoptr(NkTensor) x = pos ? nk_ag_add (tok3, pos, error) : NULL;
  g_autoptr(NkTensor) x2 = x ? nk_ag_view (x, 2, (gint64[]) { nk_tensor_numel (ids), in[0]->shape[1] }, error) : NULL;

  return x2 != NULL ? nk_test_weighted_sum (x2, error) : NULL;
}

static void
test_embedding_with_positions (void)
{
  static const gint64 ids[] = { 0, 2, 2, 4, 2, 0 };
  g_autoptr(NkRng) rng = nk_rng_new (10);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) wte = nk_test_random_f64 (rng, NK_SHAPE (5, 3), FALSE);
  g_autoptr(NkTensor) wpe = nk_test_random_f64 (rng, NK_SHAPE (4, 3), FALSE);
  g_autoptr(NkTensor) index = nk_tensor_new_full (NULL, NK_DTYPE_INT64, NK_SHAPE (2, 3),
                                                  NK_BUCKET_OTHER, FALSE, &error);
  NkTensor *in[2] = { wte, wpe };
  g_autoptr(NkTensor) fused = NULL;
  g_autoptr(NkTensor) fused_wte = NULL;
  g_autoptr(NkTensor) fused_wpe = NULL;
  g_autoptr(NkTensor) apart = NULL;

  memcpy (nk_tensor_data (index), ids, sizeof ids);
  assert_gradcheck (f_embedding_positions, in, 2, index);

  nk_tensor_set_grad (wte, NULL);
  nk_tensor_set_grad (wpe, NULL);
  fused = f_embedding_positions (in, 2, index, &error);
  g_assert_true (nk_autograd_backward (fused, &error));
  fused_wte = nk_tensor_clone (wte->grad, &error);
  fused_wpe = nk_tensor_clone (wpe->grad, &error);
  nk_tensor_set_grad (wte, NULL);
  nk_tensor_set_grad (wpe, NULL);
  apart = f_embedding_then_add (in, 2, index, &error);
  g_assert_true (nk_autograd_backward (apart, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (nk_tensor_data (fused), sizeof (double), nk_tensor_data (apart), sizeof (double));
  g_assert_cmpmem (nk_tensor_data (fused_wte), 15 * sizeof (double), nk_tensor_data (wte->grad), 15 * sizeof (double));
  g_assert_cmpmem (nk_tensor_data (fused_wpe), 12 * sizeof (double), nk_tensor_data (wpe->grad), 12 * sizeof (double));
  /* wpe's fourth row is past T = 3: no gradient */
  g_assert_true (nk_tensor_data_f64 (wpe->grad)[9] == 0.0);

  /* more positions than the table has: a sentence */
  {
    g_autoptr(NkTensor) long_ids = nk_tensor_new_full (NULL, NK_DTYPE_INT64, NK_SHAPE (1, 6),
                                                       NK_BUCKET_OTHER, FALSE, &error);
    g_autoptr(NkTensor) y = nk_ag_embedding_with_positions (wte, wpe, long_ids, &error);

    g_assert_null (y);
    g_assert_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED);
  }
}

/* ---- views ----------------------------------------------------------------------- */

static NkTensor *
f_views (NkTensor **in, guint n, gpointer data, GError **error)
{
  /* wpe[0:3] broadcast over a batch, as the position embedding is added. */
  g_autoptr(NkTensor) pos = nk_ag_narrow (in[0], 0, 1, 3, error);
  g_autoptr(NkTensor) tok = pos ? nk_ag_view (in[1], NK_SHAPE (2, 3, 2), error) : NULL;
  g_autoptr(NkTensor) x = tok ? nk_ag_add (tok, pos, error) : NULL;
  g_autoptr(NkTensor) xt = x ? nk_ag_transpose (x, 0, 2, error) : NULL;
  g_autoptr(NkTensor) xc = xt ? nk_ag_contiguous (xt, error) : NULL;

  return xc != NULL ? nk_test_weighted_sum (xc, error) : NULL;
}

static void
test_views_gradcheck (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (10);
  g_autoptr(NkTensor) wpe = nk_test_random_f64 (rng, NK_SHAPE (5, 2), FALSE);
  g_autoptr(NkTensor) tok = nk_test_random_f64 (rng, NK_SHAPE (6, 2), FALSE);
  NkTensor *in[2] = { wpe, tok };

  assert_gradcheck (f_views, in, 2, NULL);
  /* Rows of wpe outside the narrow get exactly 0. */
  g_assert_true (nk_tensor_data_f64 (wpe->grad)[0] == 0.0);
  g_assert_true (nk_tensor_data_f64 (wpe->grad)[9] == 0.0);
}

/* ---- FLOP counts ----------------------------------------------------------------- */

static void
test_flop_counts (void)
{
  const gint64 R = 6, C = 8, T = 5;
  g_autoptr(NkRng) rng = nk_rng_new (11);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (R, C), FALSE);
  g_autoptr(NkTensor) s = nk_test_random_f64 (rng, NK_SHAPE (3, T, T), FALSE);
  g_autoptr(NkTensor) y = NULL;
  g_autoptr(NkTensor) p = NULL;
  g_autoptr(NkTensor) loss = NULL;
  g_autoptr(NkTensor) g = NULL;
  guint64 total0;

  nk_tensor_set_requires_grad (x, TRUE);
  nk_tensor_set_requires_grad (s, TRUE);
  nk_autograd_reset_matmul_flops ();
  total0 = nk_flops_get ();
  y = nk_ag_layer_norm (x, NULL, NULL, 1e-5, &error);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_NORM), ==, 8 * R * C);
  p = nk_ag_softmax_causal (s, 1.0, &error);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_SOFTMAX), ==, 6 * 3 * T * (T + 1) / 2);
  g = nk_ag_gelu (x, &error);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_ACTIVATION), ==, R * C);
  /* Each kind is also in the thread's total. */
  g_assert_cmpuint (nk_flops_get () - total0, ==, 8 * R * C + 6 * 3 * T * (T + 1) / 2 + R * C);

  {
    g_autoptr(NkTensor) a = nk_ag_sum (y, &error);
    g_autoptr(NkTensor) b = nk_ag_sum (p, &error);
    g_autoptr(NkTensor) c = nk_ag_add (a, b, &error);
    g_autoptr(NkTensor) d = nk_ag_sum (g, &error);

    loss = nk_ag_add (c, d, &error);
  }
  nk_autograd_reset_matmul_flops ();
  g_assert_true (nk_autograd_backward (loss, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_NORM), ==, 13 * R * C);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_SOFTMAX), ==, 5 * 3 * T * (T + 1) / 2);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_ACTIVATION), ==, R * C);
  g_assert_cmpuint (nk_autograd_get_matmul_flops (), ==, 0);
}

/* ---- mixed precision ------------------------------------------------------------- */

/* Under bf16 autocast the products take bf16 operands and return bf16 (as
 * torch.autocast runs bmm), the softmax and LayerNorm widen to f32 (autocast's fp32
 * ops), and gradients reach the f32 leaves in f32. Oracle: the f64 product of the
 * bf16-rounded operands, rounded once. */
static void
test_autocast_bf16 (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (12);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) q64 = nk_test_random_f64 (rng, NK_SHAPE (2, 3, 4), FALSE);
  g_autoptr(NkTensor) k64 = nk_test_random_f64 (rng, NK_SHAPE (2, 3, 4), FALSE);
  g_autoptr(NkTensor) q = nk_cast (q64, NK_DTYPE_F32, &error);
  g_autoptr(NkTensor) k = nk_cast (k64, NK_DTYPE_F32, &error);
  g_autoptr(NkTensor) qb = nk_cast (q, NK_DTYPE_BF16, &error);
  g_autoptr(NkTensor) kb = nk_cast (k, NK_DTYPE_BF16, &error);
  g_autoptr(NkTensor) att = NULL, p = NULL, ln = NULL, s1 = NULL, s2 = NULL, loss = NULL;
  g_autofree double *qv = nk_tensor_to_doubles (qb, NULL);
  g_autofree double *kv = nk_tensor_to_doubles (kb, NULL);
  g_autofree double *av = NULL;
  NkDType previous;

  nk_tensor_set_requires_grad (q, TRUE);
  nk_tensor_set_requires_grad (k, TRUE);
  previous = nk_autograd_set_autocast (NK_DTYPE_BF16);
  att = nk_ag_bmm (q, k, NK_BMM_TRANS_B, &error);
  p = att ? nk_ag_softmax_causal (att, 0.5, &error) : NULL;
  ln = p ? nk_ag_layer_norm (att, NULL, NULL, 1e-5, &error) : NULL;
  nk_autograd_set_autocast (previous);
  g_assert_no_error (error);
  g_assert_cmpint (att->dtype, ==, NK_DTYPE_BF16);
  g_assert_cmpint (p->dtype, ==, NK_DTYPE_F32);
  g_assert_cmpint (ln->dtype, ==, NK_DTYPE_F32);

  av = nk_tensor_to_doubles (att, NULL);
  for (int z = 0; z < 2; z++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        {
          double ref = 0.0;

          for (int e = 0; e < 4; e++)
            ref += qv[z * 12 + i * 4 + e] * kv[z * 12 + j * 4 + e];
          /* One rounding to bf16 (8 significant bits). */
          g_assert_cmpfloat (fabs (av[z * 9 + i * 3 + j] - ref), <=, fabs (ref) * 0x1p-8 + 1e-30);
        }

  s1 = nk_ag_sum (p, &error);
  s2 = nk_ag_sum (ln, &error);
  {
    g_autoptr(NkTensor) w = nk_test_weighted_sum (p, &error);

    loss = nk_ag_add (w, s2, &error);
  }
  g_assert_no_error (error);
  g_assert_true (nk_autograd_backward (loss, &error));
  g_assert_no_error (error);
  g_assert_nonnull (q->grad);
  g_assert_nonnull (k->grad);
  g_assert_cmpint (q->grad->dtype, ==, NK_DTYPE_F32);
  g_assert_cmpfloat (fabs (nk_tensor_data_f32 (q->grad)[0]) + fabs (nk_tensor_data_f32 (k->grad)[1]),
                     >, 0.0);
  nk_autograd_release (s1);
}

/* ---- cross-entropy through the row kernels --------------------------------------- */

static NkTensor *
f_cross_entropy_strided (NkTensor **in, guint n, gpointer data, GError **error)
{
  /* in[0] is [V, N]: its transpose is non-contiguous logits, which take the device
   * row-kernel path (the one CUDA runs) instead of the contiguous CPU loop. */
  g_autoptr(NkTensor) logits = nk_ag_transpose (in[0], 0, 1, error);

  return logits != NULL ? nk_ag_cross_entropy (logits, data, error) : NULL;
}

static void
test_cross_entropy_rows (void)
{
  static const gint64 targets_v[] = { 2, 0, 4, 4 };
  g_autoptr(NkRng) rng = nk_rng_new (13);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_random_f64 (rng, NK_SHAPE (5, 4), FALSE);
  g_autoptr(NkTensor) targets = nk_tensor_new_full (NULL, NK_DTYPE_INT64, NK_SHAPE (4),
                                                    NK_BUCKET_OTHER, FALSE, &error);
  g_autoptr(NkTensor) loss = NULL;
  const double *xv = nk_tensor_data_f64 (x);
  double ref = 0.0, got = 0.0;

  memcpy (nk_tensor_data (targets), targets_v, sizeof targets_v);
  /* float64 reference: mean of logsumexp − the target's logit (column i of x). */
  for (int i = 0; i < 4; i++)
    {
      double s = 0.0;

      for (int v = 0; v < 5; v++)
        s += exp (xv[v * 4 + i]);
      ref += (log (s) - xv[targets_v[i] * 4 + i]) / 4.0;
    }
  loss = f_cross_entropy_strided (&x, 1, targets, &error);
  g_assert_no_error (error);
  g_assert_true (nk_tensor_item (loss, &got, &error));
  g_assert_cmpfloat_with_epsilon (got, ref, 1e-14);
  nk_autograd_release (loss);
  assert_gradcheck (f_cross_entropy_strided, &x, 1, targets);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/autograd/nn/layer-norm/forward", test_layer_norm_forward);
  g_test_add_func ("/autograd/nn/layer-norm/gradcheck", test_layer_norm_gradcheck);
  g_test_add_func ("/autograd/nn/gelu/points", test_gelu_points);
  g_test_add_func ("/autograd/nn/gelu/gradcheck", test_gelu_gradcheck);
  g_test_add_func ("/autograd/nn/softmax-causal/forward", test_softmax_causal_forward);
  g_test_add_func ("/autograd/nn/softmax-causal/gradcheck", test_softmax_causal_gradcheck);
  g_test_add_func ("/autograd/nn/bmm/against-loops", test_bmm_against_loops);
  g_test_add_func ("/autograd/nn/bmm/trans-a-gradcheck", test_bmm_trans_a_gradcheck);
  g_test_add_func ("/autograd/nn/attention/gradcheck", test_attention_gradcheck);
  g_test_add_func ("/autograd/nn/embedding/repeated-ids", test_embedding_repeated_ids);
  g_test_add_func ("/autograd/nn/embedding/with-positions", test_embedding_with_positions);
  g_test_add_func ("/autograd/nn/views/gradcheck", test_views_gradcheck);
  g_test_add_func ("/autograd/nn/flops", test_flop_counts);
  g_test_add_func ("/autograd/nn/autocast-bf16", test_autocast_bf16);
  g_test_add_func ("/autograd/nn/cross-entropy-rows", test_cross_entropy_rows);
  return g_test_run ();
}
