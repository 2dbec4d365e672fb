/* test-ops.c: elementwise ops, broadcasting, reductions, triu/tril, casts, FLOP counts
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: float64 loops over logical indices written here, values read from the
 * storage with the address rule, nk-dtype's scalar encoder for casts (a different
 * code path than the bulk conversion the casts use), closed-form FLOP counts.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-kernels.h"
#include "nk-ops.h"
#include "nk-test-util.h"

/* Element at a logical index, via the address rule on the raw f32/f64 storage. */
static double
at (NkTensor     *t,
    const gint64 *idx)
{
  gint64 pos = t->offset;
  const char *base = nk_storage_get_data (t->storage);

  for (int d = 0; d < t->ndim; d++)
    pos += idx[d] * t->stride[d];
  if (t->dtype == NK_DTYPE_F64)
    return ((const double *) base)[pos];
  g_assert_cmpint (t->dtype, ==, NK_DTYPE_F32);
  return ((const float *) base)[pos];
}

/* Broadcast read: idx is in the result's rank. */
static double
at_bcast (NkTensor     *t,
          int           ndim,
          const gint64 *idx)
{
  gint64 local[NK_MAX_DIMS];
  int lead = ndim - t->ndim;

  for (int d = 0; d < t->ndim; d++)
    local[d] = t->shape[d] == 1 ? 0 : idx[d + lead];
  return at (t, local);
}

static gboolean
next_index (int           ndim,
            const gint64 *shape,
            gint64       *idx)
{
  for (int d = ndim - 1; d >= 0; d--)
    {
      if (++idx[d] < shape[d])
        return TRUE;
      idx[d] = 0;
    }
  return FALSE;
}

static void
test_broadcast_binary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a0 = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (4, 3), 1);
  g_autoptr(NkTensor) a = nk_tensor_t (a0, &error);               /* (3, 4) transposed */
  g_autoptr(NkTensor) b0 = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (2, 1, 8), 2);
  g_autoptr(NkTensor) b = nk_tensor_slice (b0, 2, 0, NK_SLICE_END, 2, &error);  /* (2, 1, 4) step 2 */
  static const NkBinaryOp ops[] = { NK_BINARY_ADD, NK_BINARY_SUB, NK_BINARY_MUL, NK_BINARY_DIV,
                                    NK_BINARY_MAX, NK_BINARY_LT };

  g_assert_no_error (error);
  for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
    {
      g_autoptr(NkTensor) c = NULL;
      gint64 idx[3] = { 0 };
      guint64 f0 = nk_flops_get ();

      c = nk_binary (ops[o], a, b, &error);
      g_assert_no_error (error);
      g_assert_cmpint (c->ndim, ==, 3);
      g_assert_cmpint (c->shape[0], ==, 2);
      g_assert_cmpint (c->shape[1], ==, 3);
      g_assert_cmpint (c->shape[2], ==, 4);
      g_assert_cmpuint (nk_flops_get () - f0, ==, 24);
      do
        {
          double x = at_bcast (a, 3, idx), y = at_bcast (b, 3, idx), ref;
          switch (ops[o])
            {
            case NK_BINARY_ADD: ref = x + y; break;
            case NK_BINARY_SUB: ref = x - y; break;
            case NK_BINARY_MUL: ref = x * y; break;
            case NK_BINARY_DIV: ref = x / y; break;
            case NK_BINARY_MAX: ref = x > y ? x : y; break;
            default: ref = x < y ? 1.0 : 0.0; break;
            }
          g_assert_cmpfloat_with_epsilon (at (c, idx), ref, 1e-6 * (1.0 + fabs (ref)));
        }
      while (next_index (3, c->shape, idx));
    }

  /* PyTorch's words for shapes that do not broadcast. */
  {
    g_autoptr(NkTensor) p = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (3, 4), 0);
    g_autoptr(NkTensor) q = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (3), 0);
    g_autoptr(NkTensor) r = nk_add (p, q, &error);
    g_assert_null (r);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
    g_assert_true (g_str_has_prefix (error->message,
        "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"));
  }
}

static void
test_result_layout_follows_inputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (3, 4), 0);
  g_autoptr(NkTensor) xt = nk_tensor_t (x, &error);
  g_autoptr(NkTensor) y = nk_add_scalar (xt, 1.0, &error);
  g_autoptr(NkTensor) s = nk_tensor_slice (x, 1, 0, NK_SLICE_END, 2, &error);
  g_autoptr(NkTensor) z = nk_add_scalar (s, 1.0, &error);

  g_assert_no_error (error);
  /* torch: (x.t() + 1).stride() == (1, 4); (x[:, ::2] + 1).stride() == (2, 1) */
  g_assert_cmpint (y->stride[0], ==, 1);
  g_assert_cmpint (y->stride[1], ==, 4);
  g_assert_cmpint (z->stride[0], ==, 2);
  g_assert_cmpint (z->stride[1], ==, 1);
}

static void
test_unary_and_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x0 = nk_test_filled (NK_DTYPE_F64, NK_SHAPE (5, 6), 3);
  g_autoptr(NkTensor) x = nk_tensor_slice (x0, 0, 1, NK_SLICE_END, 2, &error);  /* (2, 6) */
  g_autoptr(NkTensor) e = nk_unary (NK_UNARY_EXP, x, &error);
  g_autoptr(NkTensor) r = nk_relu (x, &error);
  g_autoptr(NkTensor) t = nk_unary (NK_UNARY_TANH, x, &error);
  g_autoptr(NkTensor) g = nk_unary (NK_UNARY_GELU, x, &error);
  g_autoptr(NkTensor) m = nk_binary_scalar (NK_BINARY_SUB, x, 1.0, TRUE, &error);  /* 1 - x */
  gint64 idx[2] = { 0 };

  g_assert_no_error (error);
  do
    {
      double v = at (x, idx);
      g_assert_cmpfloat (at (e, idx), ==, exp (v));
      g_assert_cmpfloat (at (r, idx), ==, v > 0 ? v : 0.0);
      g_assert_cmpfloat (at (t, idx), ==, tanh (v));
      g_assert_cmpfloat_with_epsilon (at (g, idx), 0.5 * v * erfc (-v / sqrt (2.0)), 1e-12);
      g_assert_cmpfloat (at (m, idx), ==, 1.0 - v);
    }
  while (next_index (2, x->shape, idx));

  /* In place, through a view: x0[1::2] *= 2 touches only those rows. */
  {
    g_autofree double *before = nk_tensor_to_doubles (x0, NULL);
    g_autofree double *after = NULL;
    g_assert_true (nk_mul_scalar_ (x, 2.0, &error));
    after = nk_tensor_to_doubles (x0, NULL);
    for (int i = 0; i < 30; i++)
      g_assert_cmpfloat (after[i], ==, (i / 6) % 2 == 1 ? 2.0 * before[i] : before[i]);
  }
}

static void
test_reductions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x0 = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (4, 3, 5), 4);
  g_autoptr(NkTensor) x = nk_tensor_permute (x0, 3, (int[]) { 2, 0, 1 }, &error);  /* (5, 4, 3) */
  static const NkReduceOp ops[] = { NK_REDUCE_SUM, NK_REDUCE_MEAN, NK_REDUCE_MAX, NK_REDUCE_MIN };

  g_assert_no_error (error);
  for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
    for (int keep = 0; keep < 2; keep++)
      {
        int dims[] = { 0, -1 };
        g_autoptr(NkTensor) r = NULL;
        guint64 f0 = nk_flops_get ();

        r = nk_reduce (ops[o], x, 2, dims, keep, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (nk_flops_get () - f0, ==, 60);
        if (keep)
          {
            g_assert_cmpint (r->ndim, ==, 3);
            g_assert_cmpint (r->shape[0], ==, 1);
            g_assert_cmpint (r->shape[1], ==, 4);
            g_assert_cmpint (r->shape[2], ==, 1);
          }
        else
          {
            g_assert_cmpint (r->ndim, ==, 1);
            g_assert_cmpint (r->shape[0], ==, 4);
          }
        for (gint64 j = 0; j < 4; j++)
          {
            double acc = ops[o] == NK_REDUCE_MAX ? -INFINITY : ops[o] == NK_REDUCE_MIN ? INFINITY : 0.0;
            gint64 ridx[3] = { 0, 0, 0 };
            for (gint64 i = 0; i < 5; i++)
              for (gint64 k = 0; k < 3; k++)
                {
                  double v = at (x, (gint64[]) { i, j, k });
                  if (ops[o] == NK_REDUCE_MAX)
                    acc = MAX (acc, v);
                  else if (ops[o] == NK_REDUCE_MIN)
                    acc = MIN (acc, v);
                  else
                    acc += v;
                }
            if (ops[o] == NK_REDUCE_MEAN)
              acc /= 15.0;
            if (keep)
              ridx[1] = j;
            else
              ridx[0] = j;
            g_assert_cmpfloat_with_epsilon (at (r, ridx), acc, 1e-6);
          }
      }

  /* Everything, and sum_to_shape (the bias gradient). */
  {
    g_autoptr(NkTensor) all = nk_sum (x, 0, NULL, FALSE, &error);
    g_autoptr(NkTensor) bias = nk_sum_to_shape (x, NK_SHAPE (4, 1), &error);
    double total = 0.0, v;
    g_assert_no_error (error);
    g_assert_cmpint (all->ndim, ==, 0);
    for (gint64 i = 0; i < 60; i++)
      total += (double) (((i * 7 + 4 * 5) % 23) - 11) / 4.0 + 0.125;
    g_assert_true (nk_tensor_item (all, &v, &error));
    g_assert_cmpfloat_with_epsilon (v, total, 1e-5);
    g_assert_cmpint (bias->ndim, ==, 2);
    g_assert_cmpint (bias->shape[0], ==, 4);
    g_assert_cmpint (bias->shape[1], ==, 1);
  }

  {
    g_autoptr(NkTensor) empty = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (0, 3), &error);
    g_autoptr(NkTensor) bad = nk_reduce (NK_REDUCE_MAX, empty, 1, (int[]) { 0 }, FALSE, &error);
    g_assert_null (bad);
    g_assert_cmpstr (error->message, ==, "amax(): Expected reduction dim 0 to have non-zero size.");
  }
}

static void
test_triu_tril (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x0 = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (2, 4, 5), 5);
  g_autoptr(NkTensor) x = nk_tensor_transpose (x0, 1, 2, &error);   /* (2, 5, 4) */

  for (gint64 diag = -2; diag <= 2; diag++)
    {
      g_autoptr(NkTensor) u = nk_triu (x, diag, &error);
      g_autoptr(NkTensor) l = nk_tril (x, diag, &error);
      gint64 idx[3] = { 0 };
      g_assert_no_error (error);
      do
        {
          gint64 i = idx[1], j = idx[2];
          double v = at (x, idx);
          g_assert_cmpfloat (at (u, idx), ==, j - i >= diag ? v : 0.0);
          g_assert_cmpfloat (at (l, idx), ==, j - i <= diag ? v : 0.0);
        }
      while (next_index (3, x->shape, idx));
    }
}

static void
test_casts (void)
{
  static const NkDType targets[] = { NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_E4M3, NK_DTYPE_E5M2,
                                     NK_DTYPE_F64, NK_DTYPE_INT32 };
  static const double vals[] = { 0.0, -0.0, 1.0, 0.1, 3.14159, -2.5, 448.0, 464.0, 1e-8,
                                 65504.0, 1e5, -7.75, 0.333333, 1e-3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_tensor_new_from_doubles (NK_DTYPE_F64, NK_SHAPE (G_N_ELEMENTS (vals)),
                                                      vals, &error);
  g_autoptr(NkTensor) xf = nk_cast (x, NK_DTYPE_F32, &error);
  g_autoptr(NkTensor) xe = NULL;

  g_assert_no_error (error);
  for (guint t = 0; t < G_N_ELEMENTS (targets); t++)
    {
      NkTensor *srcs[2] = { x, xf };
      for (int s = 0; s < 2; s++)
        {
          g_autoptr(NkTensor) c = nk_cast (srcs[s], targets[t], &error);
          g_autofree double *got = NULL;
          g_assert_no_error (error);
          got = nk_tensor_to_doubles (c, NULL);
          for (guint i = 0; i < G_N_ELEMENTS (vals); i++)
            {
              /* f32 source: the f32 value rounded once; f64 source: the value rounded once. */
              double v = s == 0 ? vals[i] : (double) (float) vals[i];
              double ref;
              if (targets[t] == NK_DTYPE_F64)
                ref = v;
              else if (targets[t] == NK_DTYPE_INT32)
                ref = trunc (v);
              else
                ref = nk_dtype_to_double (targets[t], nk_dtype_encode (targets[t], v, NK_OVERFLOW_DEFAULT));
              if (isnan (ref))
                g_assert_true (isnan (got[i]));
              else
                {
                  g_assert_cmpfloat (got[i], ==, ref);
                  if (targets[t] != NK_DTYPE_INT32)
                    g_assert_cmpint (signbit (got[i]), ==, signbit (ref));
                }
            }
        }
    }

  /* A strided cast reads the view, not the storage order. */
  xe = nk_tensor_slice (xf, 0, 1, NK_SLICE_END, 3, &error);
  {
    g_autoptr(NkTensor) c = nk_cast (xe, NK_DTYPE_BF16, &error);
    g_autofree double *got = nk_tensor_to_doubles (c, NULL);
    for (gint64 i = 0; i < xe->shape[0]; i++)
      g_assert_cmpfloat (got[i], ==, nk_dtype_to_double (NK_DTYPE_BF16,
          nk_dtype_encode (NK_DTYPE_BF16, (float) vals[1 + 3 * i], NK_OVERFLOW_DEFAULT)));
  }
}

static void
test_mixed_dtypes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a = nk_test_filled (NK_DTYPE_BF16, NK_SHAPE (3, 4), 1);
  g_autoptr(NkTensor) b = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (4), 2);
  g_autoptr(NkTensor) c = nk_mul (a, b, &error);
  g_autoptr(NkTensor) d = nk_add (a, a, &error);
  g_autofree double *av = nk_tensor_to_doubles (a, NULL);
  g_autofree double *bv = nk_tensor_to_doubles (b, NULL);
  g_autofree double *cv = nk_tensor_to_doubles (c, NULL);
  g_autofree double *dv = nk_tensor_to_doubles (d, NULL);

  g_assert_no_error (error);
  g_assert_cmpint (c->dtype, ==, NK_DTYPE_F32);
  g_assert_cmpint (d->dtype, ==, NK_DTYPE_BF16);
  for (int i = 0; i < 12; i++)
    {
      g_assert_cmpfloat (cv[i], ==, (double) ((float) av[i] * (float) bv[i % 4]));
      g_assert_cmpfloat (dv[i], ==, nk_dtype_to_double (NK_DTYPE_BF16,
          nk_dtype_encode (NK_DTYPE_BF16, (float) av[i] + (float) av[i], NK_OVERFLOW_DEFAULT)));
    }
}

static void
test_softmax (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_filled (NK_DTYPE_F64, NK_SHAPE (3, 5), 2);
  g_autoptr(NkTensor) s = nk_softmax (x, -1, &error);
  g_autoptr(NkTensor) ls = nk_log_softmax (x, 1, &error);

  g_assert_no_error (error);
  for (gint64 i = 0; i < 3; i++)
    {
      double z = 0.0;
      for (gint64 j = 0; j < 5; j++)
        z += exp (at (x, (gint64[]) { i, j }));
      for (gint64 j = 0; j < 5; j++)
        {
          double v = at (x, (gint64[]) { i, j });
          g_assert_cmpfloat_with_epsilon (at (s, (gint64[]) { i, j }), exp (v) / z, 1e-14);
          g_assert_cmpfloat_with_epsilon (at (ls, (gint64[]) { i, j }), v - log (z), 1e-13);
        }
    }
}

static void
test_index_select (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) emb = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (6, 3), 1);
  static const gint64 ids[] = { 5, 0, 5, 2 };
  g_autoptr(NkTensor) idx = nk_tensor_new_from_data (NK_DTYPE_INT64, NK_SHAPE (2, 2), ids, &error);
  g_autoptr(NkTensor) rows = nk_index_select (emb, 0, idx, &error);
  g_autoptr(NkTensor) grad = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (6, 3), &error);

  g_assert_no_error (error);
  g_assert_cmpint (rows->ndim, ==, 3);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++)
      g_assert_cmpfloat (at (rows, (gint64[]) { r / 2, r % 2, c }), ==,
                         at (emb, (gint64[]) { ids[r], c }));

  g_assert_true (nk_index_add_ (grad, 0, idx, rows, &error));
  g_assert_no_error (error);
  for (int c = 0; c < 3; c++)
    {
      g_assert_cmpfloat (at (grad, (gint64[]) { 5, c }), ==, 2.0 * at (emb, (gint64[]) { 5, c }));
      g_assert_cmpfloat (at (grad, (gint64[]) { 1, c }), ==, 0.0);
    }
}

static void
test_optimizer_kernel (void)
{
  /* 3 elements, and enough that the CPU splits the update over its threads in
   * uneven slices: every element must still get exactly one update. */
  static const gint64 sizes[] = { 3, 1000003 };

  for (guint c = 0; c < G_N_ELEMENTS (sizes); c++)
    {
      g_autoptr(GError) error = NULL;
      gint64 n = sizes[c];
      g_autoptr(NkTensor) p = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (n), 1.0, &error);
      g_autoptr(NkTensor) g = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (n), 0);
      g_autoptr(NkTensor) m = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (n), &error);
      g_autoptr(NkTensor) v = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (n), &error);
      NkOptimStep st = { .kind = NK_OPTIM_ADAM, .lr = 0.1f, .beta1 = 0.9f, .beta2 = 0.999f,
                         .eps = 1e-8f, .step = 1 };
      const float *gd = nk_tensor_data_f32 (g), *pd = nk_tensor_data_f32 (p);

      /* Adam's first step moves every weight by lr·sign(g) (bias correction undoes
       * the (1 - beta) factors exactly, up to eps). */
      g_assert_true (nk_optimizer_step_ (&st, p, g, m, v, &error));
      g_assert_no_error (error);
      for (gint64 i = 0; i < n; i++)
        if (fabs (pd[i] - (1.0 - 0.1 * (gd[i] > 0 ? 1 : gd[i] < 0 ? -1 : 0))) > 1e-5)
          g_error ("element %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT ": %g", i, n, pd[i]);
    }
}

/* Layouts where an input is read across its rows while the output runs along its
 * own (x.t() + y): the CPU transposes tiles of that input into a buffer first. Sizes
 * leave partial tiles on both edges; the oracle reads every operand with the address
 * rule and computes in double. */
static void
check_binary_ref (NkBinaryOp  op,
                  NkTensor   *c,
                  NkTensor   *a,
                  NkTensor   *b)
{
  gint64 idx[NK_MAX_DIMS] = { 0 };
  double tol = c->dtype == NK_DTYPE_F64 ? 1e-15 : 1e-6;

  do
    {
      double x = at_bcast (a, c->ndim, idx), y = at_bcast (b, c->ndim, idx);
      double ref = op == NK_BINARY_ADD ? x + y : op == NK_BINARY_SUB ? x - y : x * y;
      g_assert_cmpfloat_with_epsilon (at (c, idx), ref, tol * (1.0 + fabs (ref)));
    }
  while (next_index (c->ndim, c->shape, idx));
}

static void
test_crosswise_tiles (void)
{
  static const NkDType dtypes[] = { NK_DTYPE_F32, NK_DTYPE_F64 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      g_autoptr(GError) error = NULL;
      NkDType dt = dtypes[t];
      g_autoptr(NkTensor) a0 = nk_test_filled (dt, NK_SHAPE (301, 37), 1);
      g_autoptr(NkTensor) a = nk_tensor_t (a0, &error);                 /* (37, 301), stride (1, 37) */
      g_autoptr(NkTensor) b = nk_test_filled (dt, NK_SHAPE (37, 301), 2);       /* contiguous */
      g_autoptr(NkTensor) b2 = nk_test_filled (dt, NK_SHAPE (37, 301), 5);
      g_autoptr(NkTensor) c1 = NULL, c2 = NULL;
      g_autoptr(NkTensor) out0 = NULL, out = NULL;
      g_autoptr(NkTensor) w = nk_test_filled (dt, NK_SHAPE (2, 50, 61), 3);
      g_autoptr(NkTensor) ws = NULL, wt = NULL, v = NULL, out3 = NULL;

      g_assert_no_error (error);
      /* The result follows a (torch: (a + b).stride() == (1, 37)), so b is the
       * crosswise one; with b first the roles swap. */
      c1 = nk_add (a, b, &error);
      g_assert_no_error (error);
      g_assert_cmpint (c1->stride[0], ==, 1);
      check_binary_ref (NK_BINARY_ADD, c1, a, b);
      c2 = nk_mul (b, a, &error);
      g_assert_no_error (error);
      g_assert_cmpint (c2->stride[1], ==, 1);
      check_binary_ref (NK_BINARY_MUL, c2, b, a);

      /* A transposed output with two contiguous inputs: both are crosswise. */
      out0 = nk_tensor_zeros (dt, NK_SHAPE (301, 37), &error);
      out = nk_tensor_t (out0, &error);
      g_assert_true (nk_binary_out (NK_BINARY_SUB, out, b, b2, &error));
      g_assert_no_error (error);
      check_binary_ref (NK_BINARY_SUB, out, b, b2);

      /* 3-D, the crosswise input with row stride 2 (a step-2 slice, transposed) and a
       * contiguous output: the general gather. */
      ws = nk_tensor_slice (w, 2, 1, NK_SLICE_END, 2, &error);        /* (2, 50, 30) */
      wt = nk_tensor_transpose (ws, 1, 2, &error);                     /* (2, 30, 50), stride (3050, 2, 61) */
      v = nk_test_filled (dt, NK_SHAPE (2, 30, 50), 4);
      out3 = nk_tensor_zeros (dt, NK_SHAPE (2, 30, 50), &error);
      g_assert_no_error (error);
      g_assert_true (nk_binary_out (NK_BINARY_SUB, out3, wt, v, &error));
      g_assert_no_error (error);
      check_binary_ref (NK_BINARY_SUB, out3, wt, v);
    }
}

/* contiguous() of transposed views in every element size (1, 2, 4 and 8 bytes), the
 * crosswise copy: the bytes of the copy's element (i, j) must be those at the source's
 * address offset + i·stride[0] + j·stride[1]. */
static void
test_crosswise_copy (void)
{
  static const NkDType dtypes[] = { NK_DTYPE_E4M3, NK_DTYPE_BF16, NK_DTYPE_F32, NK_DTYPE_INT32,
                                    NK_DTYPE_F64, NK_DTYPE_INT64 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    for (int step = 1; step <= 2; step++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(NkTensor) x0 = nk_test_filled (dtypes[t], NK_SHAPE (70, 45 * step), 6);
        g_autoptr(NkTensor) xs = nk_tensor_slice (x0, 1, 0, NK_SLICE_END, step, &error);
        g_autoptr(NkTensor) xt = nk_tensor_t (xs, &error);     /* (45, 70) */
        g_autoptr(NkTensor) c = nk_tensor_contiguous (xt, &error);
        const guint8 *src = nk_storage_get_data (xt->storage);
        const guint8 *dst = nk_storage_get_data (c->storage);
        gsize es = nk_dtype_element_size (dtypes[t]);

        g_assert_no_error (error);
        g_assert_false (nk_tensor_same_storage (c, xt));
        g_assert_cmpint (c->stride[0], ==, 70);
        for (gint64 i = 0; i < 45; i++)
          for (gint64 j = 0; j < 70; j++)
            {
              gint64 pos = xt->offset + i * xt->stride[0] + j * xt->stride[1];
              g_assert_cmpmem (dst + (c->offset + i * 70 + j) * es, es, src + pos * es, es);
            }
      }
}

static NkTensor *
arange2 (NkDType dtype,
         gint64  r,
         gint64  c)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a = nk_tensor_arange (dtype, r * c, &error);
  NkTensor *x = nk_tensor_view (a, NK_SHAPE (r, c), &error);

  g_assert_no_error (error);
  return x;
}

/* Outputs that share storage with an input in another layout: the result is always
 * the op applied to the old values (closed forms on arange). Computed element by
 * element in place, each of these would read values it had already overwritten. */
static void
test_partial_overlap (void)
{
  g_autoptr(GError) error = NULL;

  {
    /* x[1:] = x[:-1] * 10 on arange(8): 0, 0, 10, 20, ..., 60. */
    g_autoptr(NkTensor) x = nk_tensor_arange (NK_DTYPE_F32, 8, &error);
    g_autoptr(NkTensor) dst = nk_tensor_slice (x, 0, 1, NK_SLICE_END, 1, &error);
    g_autoptr(NkTensor) src = nk_tensor_slice (x, 0, 0, 7, 1, &error);
    g_autofree double *v = NULL;
    g_assert_true (nk_binary_scalar_out (NK_BINARY_MUL, dst, src, 10.0, FALSE, &error));
    g_assert_no_error (error);
    v = nk_tensor_to_doubles (x, NULL);
    g_assert_cmpfloat (v[0], ==, 0.0);
    for (int i = 1; i < 8; i++)
      g_assert_cmpfloat (v[i], ==, 10.0 * (i - 1));
  }
  {
    /* x = x.t() + 0 on a 5×5 arange: x[i, j] = 5j + i. */
    g_autoptr(NkTensor) x = arange2 (NK_DTYPE_F64, 5, 5);
    g_autoptr(NkTensor) xt = nk_tensor_t (x, &error);
    g_assert_true (nk_binary_scalar_out (NK_BINARY_ADD, x, xt, 0.0, FALSE, &error));
    g_assert_no_error (error);
    for (gint64 i = 0; i < 5; i++)
      for (gint64 j = 0; j < 5; j++)
        g_assert_cmpfloat (at (x, (gint64[]) { i, j }), ==, 5.0 * j + i);
  }
  {
    /* x = x[0] (broadcast over rows) + x: x[i, j] = j + 4i + j. */
    g_autoptr(NkTensor) x = arange2 (NK_DTYPE_F32, 3, 4);
    g_autoptr(NkTensor) row = nk_tensor_select (x, 0, 0, &error);
    g_assert_true (nk_binary_out (NK_BINARY_ADD, x, row, x, &error));
    g_assert_no_error (error);
    for (gint64 i = 0; i < 3; i++)
      for (gint64 j = 0; j < 4; j++)
        g_assert_cmpfloat (at (x, (gint64[]) { i, j }), ==, 2.0 * j + 4.0 * i);
  }
  {
    /* Exact aliasing is the in-place form and stays in place: x += x. */
    g_autoptr(NkTensor) x = arange2 (NK_DTYPE_F32, 3, 4);
    gpointer data = nk_tensor_data (x);
    g_assert_true (nk_add_ (x, x, &error));
    g_assert_no_error (error);
    g_assert_true (nk_tensor_data (x) == data);
    for (gint64 i = 0; i < 12; i++)
      g_assert_cmpfloat (((float *) data)[i], ==, 2.0 * i);
  }
  {
    /* x.copy_(x.t()) transposes in place. */
    g_autoptr(NkTensor) x = arange2 (NK_DTYPE_INT32, 4, 4);
    g_autoptr(NkTensor) xt = nk_tensor_t (x, &error);
    g_autofree double *v = NULL;
    g_assert_true (nk_tensor_copy_ (x, xt, &error));
    g_assert_no_error (error);
    v = nk_tensor_to_doubles (x, NULL);
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
        g_assert_cmpfloat (v[i * 4 + j], ==, 4.0 * j + i);
  }
  {
    /* a = a @ a (torch.mm(a, a, out=a) returns zeros): [[1, 2], [3, 4]]² = [[7, 10], [15, 22]]. */
    g_autoptr(NkTensor) a = nk_tensor_new_from_doubles (NK_DTYPE_F32, NK_SHAPE (2, 2),
                                                        (double[]) { 1, 2, 3, 4 }, &error);
    g_autofree double *v = NULL;
    g_assert_true (nk_matmul_out (a, a, a, 1.0, 0.0, &error));
    g_assert_no_error (error);
    v = nk_tensor_to_doubles (a, NULL);
    g_assert_cmpfloat (v[0], ==, 7.0);
    g_assert_cmpfloat (v[1], ==, 10.0);
    g_assert_cmpfloat (v[2], ==, 15.0);
    g_assert_cmpfloat (v[3], ==, 22.0);
  }
}

/* torch.sum of integers is int64 (checked by hand: torch.tensor([...], dtype=torch.int32)
 * .sum().dtype == torch.int64); max/min keep the dtype. */
static void
test_integer_sums (void)
{
  g_autoptr(GError) error = NULL;
  const double m = 2147483647.0;   /* INT32_MAX: three of them overflow an int32 */
  g_autoptr(NkTensor) x = nk_tensor_new_from_doubles (NK_DTYPE_INT32, NK_SHAPE (2, 3),
                                                      (double[]) { m, m, m, -5, 7, 1 }, &error);
  g_autoptr(NkTensor) u = nk_tensor_new_from_doubles (NK_DTYPE_UINT16, NK_SHAPE (3),
                                                      (double[]) { 65535, 65535, 2 }, &error);
  g_autoptr(NkTensor) all = nk_sum (x, 0, NULL, FALSE, &error);
  g_autoptr(NkTensor) rows = nk_sum (x, 1, (int[]) { 1 }, TRUE, &error);
  g_autoptr(NkTensor) us = nk_sum (u, 0, NULL, FALSE, &error);
  g_autoptr(NkTensor) mx = nk_reduce (NK_REDUCE_MAX, x, 0, NULL, FALSE, &error);
  g_autofree double *r = NULL;
  double v;

  g_assert_no_error (error);
  g_assert_cmpint (all->dtype, ==, NK_DTYPE_INT64);
  g_assert_cmpint (rows->dtype, ==, NK_DTYPE_INT64);
  g_assert_cmpint (us->dtype, ==, NK_DTYPE_INT64);
  g_assert_cmpint (mx->dtype, ==, NK_DTYPE_INT32);
  g_assert_true (nk_tensor_item (all, &v, &error));
  g_assert_cmpint ((gint64) v, ==, G_GINT64_CONSTANT (6442450944));   /* 3·(2^31 - 1) + 3 */
  g_assert_cmpint (*(const gint64 *) nk_tensor_data (all), ==, G_GINT64_CONSTANT (6442450944));
  g_assert_true (nk_tensor_item (us, &v, &error));
  g_assert_cmpfloat (v, ==, 131072.0);
  g_assert_cmpint (rows->ndim, ==, 2);
  r = nk_tensor_to_doubles (rows, NULL);
  g_assert_cmpfloat (r[0], ==, 3.0 * m);
  g_assert_cmpfloat (r[1], ==, 3.0);
}

/* The contiguous sum path (eight double lanes). Oracle: a float64 sequential sum
 * here, and exactness where every order is exact (integers). */
static void
test_sum_lanes (void)
{
  g_autoptr(GError) error = NULL;
  static const gint64 lengths[] = { 1, 7, 8, 9, 1000, 100003 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    for (int t = 0; t < 2; t++)
      {
        NkDType dt = t ? NK_DTYPE_F64 : NK_DTYPE_F32;
        gint64 n = lengths[l];
        g_autoptr(NkTensor) x = nk_test_filled (dt, NK_SHAPE (3, n), (int) l);
        g_autoptr(NkTensor) ints = NULL;
        g_autoptr(NkTensor) rows = nk_sum (x, 1, (int[]) { -1 }, FALSE, &error);
        g_autoptr(NkTensor) mean = nk_mean (x, 0, NULL, FALSE, &error);
        g_autoptr(NkTensor) isum = NULL;
        g_autofree double *iv = g_new (double, 3 * n);
        double total = 0.0, got;

        g_assert_no_error (error);
        for (gint64 i = 0; i < 3; i++)
          {
            double ref = 0.0;
            for (gint64 j = 0; j < n; j++)
              ref += at (x, (gint64[]) { i, j });
            total += ref;
            g_assert_cmpfloat_with_epsilon (at (rows, (gint64[]) { i }), ref,
                                            (t ? 1e-12 : 1e-6) * (1.0 + fabs (ref)));
          }
        g_assert_true (nk_tensor_item (mean, &got, &error));
        g_assert_cmpfloat_with_epsilon (got, total / (3.0 * n), 1e-6);

        /* Integers up to 2^24 are exact in f32 and their sums exact in double. */
        for (gint64 i = 0; i < 3 * n; i++)
          iv[i] = (double) ((i * 2654435761u) % 16777216u) - 8388608.0;
        ints = nk_tensor_new_from_doubles (dt, NK_SHAPE (3 * n), iv, &error);
        isum = nk_sum (ints, 0, NULL, FALSE, &error);
        g_assert_no_error (error);
        {
          double exact = 0.0;
          for (gint64 i = 0; i < 3 * n; i++)
            exact += iv[i];
          g_assert_true (nk_tensor_item (isum, &got, &error));
          if (t)
            g_assert_cmpfloat (got, ==, exact);
          else
            g_assert_cmpfloat (got, ==, (double) (float) exact);
        }
      }

  /* The documented order: lane 0 holds x[0] + x[8], lane 1 x[1]. With x[0] = 2^60,
   * x[1] = -2^60, x[8] = 1 the lanes give (2^60 + 1) + -2^60 = 0 in double (a
   * sequential sum gives 1): the same 0 on every run and machine. */
  {
    double v[9] = { 1152921504606846976.0, -1152921504606846976.0, 0, 0, 0, 0, 0, 0, 1.0 };
    g_autoptr(NkTensor) x = nk_tensor_new_from_doubles (NK_DTYPE_F64, NK_SHAPE (9), v, &error);
    g_autoptr(NkTensor) s = nk_sum (x, 0, NULL, FALSE, &error);
    double got;
    g_assert_true (nk_tensor_item (s, &got, &error));
    g_assert_cmpfloat (got, ==, ((v[0] + v[8]) + v[1]));
    g_assert_cmpfloat (got, ==, 0.0);
  }
}

/* PyTorch refuses the mean of integers rather than truncate it. */
static void
test_integer_mean_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_tensor_new_from_doubles (NK_DTYPE_INT64, NK_SHAPE (3), (double[]) { 1, 2, 4 },
                                                      &error);
  g_autoptr(NkTensor) mean = NULL;

  g_assert_no_error (error);
  mean = nk_mean (x, 0, NULL, FALSE, &error);
  g_assert_null (mean);
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_DTYPE);
  g_assert_nonnull (strstr (error->message, "Got: Long"));
}

/* Every op on tensors with a size-0 dim (issue 11's class: nothing may divide by an
 * empty product). Oracle: PyTorch 1.13's shapes, strides and values, run by hand. */
static void
test_zero_size (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) e30 = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (3, 0), &error);
  g_autoptr(NkTensor) e03 = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (0, 3), &error);
  g_autoptr(NkTensor) e203 = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (2, 0, 3), &error);
  g_autoptr(NkTensor) row = nk_tensor_ones (NK_DTYPE_F32, NK_SHAPE (3), &error);

  g_assert_no_error (error);
  /* fill_, copy_ (broadcasting an empty or a full source), clone, contiguous */
  g_assert_true (nk_tensor_fill_ (e30, 2.0, &error));
  g_assert_true (nk_tensor_copy_ (e03, row, &error));
  g_assert_no_error (error);
  {
    g_autoptr(NkTensor) t = nk_tensor_t (e03, &error);
    g_autoptr(NkTensor) c = nk_tensor_contiguous (t, &error);   /* empty: already contiguous */
    g_autoptr(NkTensor) k = nk_tensor_clone (t, &error);
    gsize n = 99;
    g_autofree double *v = nk_tensor_to_doubles (k, &n);

    g_assert_no_error (error);
    g_assert_true (c->storage == e03->storage);
    g_assert_cmpint (c->stride[0], ==, 1);
    g_assert_cmpint (c->stride[1], ==, 3);
    g_assert_cmpint (k->shape[0], ==, 3);
    g_assert_cmpint (k->shape[1], ==, 0);
    g_assert_cmpuint (n, ==, 0);
  }
  /* reshape and flatten of an empty tensor that view() could also take */
  {
    g_autoptr(NkTensor) t = nk_tensor_transpose (e203, 0, 2, &error);
    g_autoptr(NkTensor) r = nk_tensor_reshape (t, NK_SHAPE (3, -1), &error);
    g_autoptr(NkTensor) f = nk_tensor_flatten (e203, 1, -1, &error);
    g_autoptr(NkTensor) bad = NULL;

    g_assert_no_error (error);
    g_assert_cmpint (r->shape[0], ==, 3);
    g_assert_cmpint (r->shape[1], ==, 0);
    g_assert_cmpint (r->stride[0], ==, 1);
    g_assert_cmpint (r->stride[1], ==, 1);
    g_assert_cmpint (f->ndim, ==, 2);
    g_assert_cmpint (f->shape[1], ==, 0);
    g_assert_cmpint (f->stride[0], ==, 1);
    bad = nk_tensor_reshape (t, NK_SHAPE (0, -1), &error);
    g_assert_null (bad);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
    g_assert_true (g_str_has_prefix (error->message, "cannot reshape tensor of 0 elements"));
    g_clear_error (&error);
  }
  /* reductions: sums are 0, means NaN, max refused with PyTorch's words */
  {
    g_autoptr(NkTensor) s = nk_sum (e03, 1, (int[]) { 0 }, FALSE, &error);
    g_autoptr(NkTensor) m = nk_mean (e03, 1, (int[]) { 0 }, FALSE, &error);
    g_autoptr(NkTensor) all = nk_sum (e30, 0, NULL, FALSE, &error);
    g_autoptr(NkTensor) mx = NULL;
    g_autofree double *sv = NULL, *mv = NULL;
    double a = -1;

    g_assert_no_error (error);
    sv = nk_tensor_to_doubles (s, NULL);
    mv = nk_tensor_to_doubles (m, NULL);
    for (int i = 0; i < 3; i++)
      {
        g_assert_cmpfloat (sv[i], ==, 0.0);
        g_assert_true (isnan (mv[i]));
      }
    g_assert_true (nk_tensor_item (all, &a, &error));
    g_assert_cmpfloat (a, ==, 0.0);
    mx = nk_reduce (NK_REDUCE_MAX, e30, 1, (int[]) { 1 }, FALSE, &error);
    g_assert_null (mx);
    g_assert_cmpstr (error->message, ==, "amax(): Expected reduction dim 1 to have non-zero size.");
    g_clear_error (&error);
  }
  /* softmax over an empty dim is empty, not an error (torch.zeros(3, 0).softmax(1)) */
  {
    g_autoptr(NkTensor) p = nk_softmax (e30, 1, &error);
    g_autoptr(NkTensor) lp = nk_log_softmax (e03, 0, &error);

    g_assert_no_error (error);
    g_assert_true (nk_tensor_same_shape (p, e30));
    g_assert_true (nk_tensor_same_shape (lp, e03));
  }
  /* matmul with k = 0 is zeros; with m = 0 it is empty */
  {
    g_autoptr(NkTensor) a = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (2, 0), &error);
    g_autoptr(NkTensor) b = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (0, 3), &error);
    g_autoptr(NkTensor) c = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (3, 2), 5.0, &error);
    g_autoptr(NkTensor) ab = nk_matmul (a, b, &error);
    g_autoptr(NkTensor) e = nk_matmul (e03, c, &error);
    g_autofree double *v = NULL;

    g_assert_no_error (error);
    v = nk_tensor_to_doubles (ab, NULL);
    g_assert_cmpint (ab->shape[0], ==, 2);
    g_assert_cmpint (ab->shape[1], ==, 3);
    for (int i = 0; i < 6; i++)
      g_assert_cmpfloat (v[i], ==, 0.0);
    g_assert_cmpint (e->shape[0], ==, 0);
    g_assert_cmpint (e->shape[1], ==, 2);
  }
  /* index_select with no indices, and of an empty dim */
  {
    g_autoptr(NkTensor) none = nk_tensor_zeros (NK_DTYPE_INT64, NK_SHAPE (0), &error);
    g_autoptr(NkTensor) two = nk_tensor_new_from_doubles (NK_DTYPE_INT64, NK_SHAPE (2),
                                                          (double[]) { 1, 2 }, &error);
    g_autoptr(NkTensor) x = nk_tensor_ones (NK_DTYPE_F32, NK_SHAPE (3, 4), &error);
    g_autoptr(NkTensor) s0 = nk_index_select (x, 0, none, &error);
    g_autoptr(NkTensor) s1 = nk_index_select (e03, 1, two, &error);

    g_assert_no_error (error);
    g_assert_cmpint (s0->shape[0], ==, 0);
    g_assert_cmpint (s0->shape[1], ==, 4);
    g_assert_cmpint (s1->shape[0], ==, 0);
    g_assert_cmpint (s1->shape[1], ==, 2);
  }
}

/* nk_iter_offset(), the flat-index walk CUDA's kernels use, against an odometer over
 * the multi-index: every position of random shapes and strides, 0 to 4 dims, the
 * one-dim fast path included. */
static void
test_iter_offset (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (int trial = 0; trial < 200; trial++)
    {
      NkIter it = { 0 };
      gint64 idx[NK_MAX_DIMS] = { 0 };

      it.ndim = trial % 5;
      it.numel = 1;
      for (int d = 0; d < it.ndim; d++)
        {
          it.shape[d] = g_rand_int_range (rand, 1, 6);
          it.numel *= it.shape[d];
          for (int j = 0; j < 3; j++)
            it.stride[j][d] = g_rand_int_range (rand, -7, 40);
        }
      for (int j = 0; j < 3; j++)
        it.offset[j] = g_rand_int_range (rand, 0, 100);
      for (gint64 i = 0; i < it.numel; i++)
        {
          for (int j = 0; j < 3; j++)
            {
              gint64 expected = it.offset[j];

              for (int d = 0; d < it.ndim; d++)
                expected += idx[d] * it.stride[j][d];
              g_assert_cmpint (nk_iter_offset (&it, j, i), ==, expected);
            }
          /* the next multi-index, last dim fastest */
          for (int d = it.ndim - 1; d >= 0 && ++idx[d] == it.shape[d]; d--)
            idx[d] = 0;
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/ops/broadcast-binary", test_broadcast_binary);
  g_test_add_func ("/engine/ops/iter-offset", test_iter_offset);
  g_test_add_func ("/engine/ops/result-layout", test_result_layout_follows_inputs);
  g_test_add_func ("/engine/ops/unary-and-scalar", test_unary_and_scalar);
  g_test_add_func ("/engine/ops/reductions", test_reductions);
  g_test_add_func ("/engine/ops/triu-tril", test_triu_tril);
  g_test_add_func ("/engine/ops/casts", test_casts);
  g_test_add_func ("/engine/ops/mixed-dtypes", test_mixed_dtypes);
  g_test_add_func ("/engine/ops/softmax", test_softmax);
  g_test_add_func ("/engine/ops/index-select", test_index_select);
  g_test_add_func ("/engine/ops/optimizer-kernel", test_optimizer_kernel);
  g_test_add_func ("/engine/ops/crosswise/tiles", test_crosswise_tiles);
  g_test_add_func ("/engine/ops/crosswise/copy", test_crosswise_copy);
  g_test_add_func ("/engine/ops/partial-overlap", test_partial_overlap);
  g_test_add_func ("/engine/ops/integer-sums", test_integer_sums);
  g_test_add_func ("/engine/ops/sum-lanes", test_sum_lanes);
  g_test_add_func ("/engine/ops/integer-mean-refused", test_integer_mean_refused);
  g_test_add_func ("/engine/ops/zero-size", test_zero_size);

  return g_test_run ();
}
