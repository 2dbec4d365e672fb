/* nk-autograd-ops.c: recorded matmul, linear, elementwise ops, reductions, casts and
 * views, each forward followed by its backward
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each op opens with its NkAgOp (name and backward), then its forward (which records
 * a node pointing at it), then its backward — the pair micrograd writes as one
 * method, llm.c as matmul_forward / matmul_backward.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "nk-autograd-nn.h"
#include "nk-autograd-private.h"

/* Accumulates @contrib (transfer full: a new tensor, or %NULL when making it failed
 * and set @error) into the gradient of @t. */
static gboolean
accumulate_new (NkTensor  *t,
                NkTensor  *contrib,
                GError   **error)
{
  g_autoptr(NkTensor) owned = contrib;

  return owned != NULL && _nk_ag_accumulate (t, owned, TRUE, error);
}

/* ---- matmul: out [m, n] = a [m, k] · b [k, n] -------------------------------------- */

static gboolean matmul_backward (NkAgNode *node, GError **error);
static const NkAgOp matmul_op = { "matmul", matmul_backward };

/**
 * nk_ag_matmul:
 * @a: [m, k]
 * @b: [k, n]
 * @error: return location for a #GError
 *
 * The product a·b of two 2-D tensors, recorded for backward; 2·m·n·k FLOPs forward
 * (%NK_FLOP_KIND_LINEAR), twice that backward.
 *
 * Returns: (transfer full) (nullable): [m, n]
 */
NkTensor *
nk_ag_matmul (NkTensor  *a,
              NkTensor  *b,
              GError   **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  if (a->ndim != 2 || b->ndim != 2 || a->shape[1] != b->shape[0])
    {
      g_autofree char *sa = nk_format_shape (a->ndim, a->shape);
      g_autofree char *sb = nk_format_shape (b->ndim, b->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("Cannot multiply matrices of shapes %s and %s."), sa, sb);
      return NULL;
    }

  out = nk_arena_take (nk_promote_types (a->dtype, b->dtype),
                       NK_SHAPE (a->shape[0], b->shape[1]), NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_matmul_out (out, a, b, 1.0, 0.0, error))
    return NULL;
  _nk_ag_count_flops (NK_FLOP_KIND_LINEAR,
                      2 * (guint64) (a->shape[0] * a->shape[1] * b->shape[1]), FALSE);
  _nk_ag_record (out, &matmul_op, a, b, NULL);
  return g_steal_pointer (&out);
}

static gboolean
matmul_backward (NkAgNode  *node,
                 GError   **error)
{
  NkTensor *a = node->in[0], *b = node->in[1], *g = node->grad;
  NkTensor *target;
  double beta;
  guint64 flops = 2 * (guint64) (a->shape[0] * a->shape[1] * b->shape[1]);

  if (nk_autograd_requires_grad (a))
    {
      g_autoptr(NkTensor) bt = nk_tensor_t (b, error);

      /* dA [m, k] = g [m, n] · Bᵀ [n, k] */
      if (bt == NULL || (target = _nk_ag_grad_target (a, &beta, error)) == NULL
          || !nk_matmul_out (target, g, bt, 1.0, beta, error))
        return FALSE;
      _nk_ag_count_flops (NK_FLOP_KIND_LINEAR, flops, FALSE);
    }
  if (nk_autograd_requires_grad (b))
    {
      g_autoptr(NkTensor) at = nk_tensor_t (a, error);

      /* dB [k, n] = Aᵀ [k, m] · g [m, n] */
      if (at == NULL || (target = _nk_ag_grad_target (b, &beta, error)) == NULL
          || !nk_matmul_out (target, at, g, 1.0, beta, error))
        return FALSE;
      _nk_ag_count_flops (NK_FLOP_KIND_LINEAR, flops, FALSE);
    }
  return TRUE;
}

/* ---- linear: out [B, out] = x [B, in] · Wᵀ [in, out] + bias [out] ------------------ */

static gboolean linear_backward (NkAgNode *node, GError **error);
static const NkAgOp linear_op = { "linear", linear_backward };

static gboolean
check_linear (NkTensor  *x,
              NkTensor  *weight,
              NkTensor  *bias,
              GError   **error)
{
  if (x->ndim != 2 || weight->ndim != 2 || x->shape[1] != weight->shape[1]
      || (bias != NULL && (bias->ndim != 1 || bias->shape[0] != weight->shape[0])))
    {
      g_autofree char *sx = nk_format_shape (x->ndim, x->shape);
      g_autofree char *sw = nk_format_shape (weight->ndim, weight->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A linear layer with weight %s cannot take an input of shape %s."),
                   sw, sx);
      return FALSE;
    }
  return TRUE;
}

/* The operands the product reads: @x and @weight themselves, or under autocast the
 * input (kept for backward) and a per-step copy of the fp32 master weight rounded to
 * the narrow format (the master weight and its gradient stay fp32). */
static gboolean
linear_operands (NkTensor   *x,
                 NkTensor   *weight,
                 NkTensor  **out_x,
                 NkTensor  **out_w,
                 GError    **error)
{
  NkDType autocast = nk_autograd_get_autocast ();
  g_autoptr(NkTensor) xc = NULL;
  g_autoptr(NkTensor) wc = NULL;

  if (autocast == NK_DTYPE_F32)
    {
      *out_x = nk_tensor_ref (x);
      *out_w = nk_tensor_ref (weight);
      return TRUE;
    }
  if (x->dtype != autocast)
    {
      xc = nk_arena_take (autocast, x->ndim, x->shape, NK_BUCKET_ACTIVATIONS, error);
      if (xc == NULL || !nk_tensor_copy_ (xc, x, error))
        return FALSE;
    }
  else
    xc = nk_tensor_ref (x);
  wc = nk_arena_take (autocast, weight->ndim, weight->shape, NK_BUCKET_OTHER, error);
  if (wc == NULL || !nk_tensor_copy_ (wc, weight, error))
    return FALSE;
  *out_x = g_steal_pointer (&xc);
  *out_w = g_steal_pointer (&wc);
  return TRUE;
}

/* The product under a block-scaled recipe (nk-autograd-quant.h): x and W quantized
 * in blocks along `in`, accumulated in float32, written in the compute dtype. The
 * node keeps x in that dtype (as autocast keeps its rounded input): backward
 * quantizes it again along the batch. The weight needs no copy: backward quantizes
 * the fp32 master along `out`. */
static NkTensor *
linear_block_quant (NkTensor  *x,
                    NkTensor  *weight,
                    NkTensor  *bias,
                    GError   **error)
{
  NkDType autocast = nk_autograd_get_autocast ();
  NkDType dt = autocast != NK_DTYPE_F32 ? autocast : x->dtype;
  g_autoptr(NkTensor) xq = NULL;
  g_autoptr(NkTensor) wq = NULL;
  g_autoptr(NkTensor) wqt = NULL;
  g_autoptr(NkTensor) xs = NULL;
  g_autoptr(NkTensor) out = NULL;
  NkAgNode *node;

  if ((xq = _nk_ag_block_quant_operand (x, FALSE, FALSE, FALSE, error)) == NULL
      || (wq = _nk_ag_block_quant_operand (weight, FALSE, FALSE, FALSE, error)) == NULL
      || (wqt = nk_tensor_t (wq, error)) == NULL)
    return NULL;
  out = nk_arena_take (dt, NK_SHAPE (x->shape[0], weight->shape[0]), NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_matmul_out (out, xq, wqt, 1.0, 0.0, error))
    return NULL;
  _nk_ag_count_flops (NK_FLOP_KIND_LINEAR,
                      2 * (guint64) (x->shape[0] * x->shape[1] * weight->shape[0]), FALSE);
  if (bias != NULL && !nk_binary_out (NK_BINARY_ADD, out, out, bias, error))
    return NULL;
  if (!nk_autograd_requires_grad (x) && !nk_autograd_requires_grad (weight)
      && (bias == NULL || !nk_autograd_requires_grad (bias)))
    return g_steal_pointer (&out);
  if (x->dtype != dt)
    {
      xs = nk_arena_take (dt, x->ndim, x->shape, NK_BUCKET_ACTIVATIONS, error);
      if (xs == NULL || !nk_tensor_copy_ (xs, x, error))
        return NULL;
    }
  else
    xs = nk_tensor_ref (x);
  node = _nk_ag_record (out, &linear_op, x, weight, bias);
  if (node != NULL)
    {
      node->sub = 1;
      node->saved[0] = g_steal_pointer (&xs);
    }
  return g_steal_pointer (&out);
}

NkTensor *
nk_ag_linear (NkTensor  *x,
              NkTensor  *weight,
              NkTensor  *bias,
              GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  g_autoptr(NkTensor) wt = NULL;
  g_autoptr(NkTensor) xc = NULL;
  g_autoptr(NkTensor) wc = NULL;
  NkAgNode *node;

  g_return_val_if_fail (x != NULL && weight != NULL, NULL);

  if (!check_linear (x, weight, bias, error))
    return NULL;
  if (_nk_ag_block_quant_active ())
    return linear_block_quant (x, weight, bias, error);
  if (!linear_operands (x, weight, &xc, &wc, error))
    return NULL;

  wt = nk_tensor_t (wc, error);
  if (wt == NULL)
    return NULL;
  out = nk_arena_take (xc->dtype, NK_SHAPE (x->shape[0], weight->shape[0]),
                       NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_matmul_out (out, xc, wt, 1.0, 0.0, error))
    return NULL;
  _nk_ag_count_flops (NK_FLOP_KIND_LINEAR,
                      2 * (guint64) (x->shape[0] * x->shape[1] * weight->shape[0]), FALSE);
  /* In place: the bias backward does not need the pre-bias value. */
  if (bias != NULL && !nk_binary_out (NK_BINARY_ADD, out, out, bias, error))
    return NULL;
  node = _nk_ag_record (out, &linear_op, x, weight, bias);
  if (node != NULL && nk_autograd_get_autocast () != NK_DTYPE_F32)
    {
      node->saved[0] = g_steal_pointer (&xc);
      node->saved[1] = g_steal_pointer (&wc);
    }
  return g_steal_pointer (&out);
}

/* dst (= or +=) the sum over rows of g [rows, cols] — a bias gradient without a
 * temporary. One FLOP per element of g, as nk-ops counts reductions. */
static gboolean
sum_rows_into (NkTensor  *dst,
               NkTensor  *g,
               gboolean   accumulate,
               GError   **error)
{
  gint64 rows = g->shape[0], cols = g->shape[1];
  g_autofree double *acc = NULL;

  if (!_nk_ag_is_cpu_float (dst) || !_nk_ag_is_cpu_float (g))
    {
      g_autoptr(NkTensor) s = nk_sum_to_shape (g, dst->ndim, dst->shape, error);

      if (s == NULL)
        return FALSE;
      return accumulate ? nk_add_ (dst, s, error) : nk_tensor_copy_ (dst, s, error);
    }

  /* Row by row, in order of memory, into float64 sums: the column-by-column walk
   * strided through g and was a tenth of the Cruncher's backward. */
  acc = g_new0 (double, cols);
  if (accumulate)
    for (gint64 j = 0; j < cols; j++)
      acc[j] = _nk_ag_load (dst, j);
  if (g->dtype == NK_DTYPE_F32)
    {
      const float *row = nk_tensor_data_f32 (g);

      for (gint64 i = 0; i < rows; i++, row += cols)
        for (gint64 j = 0; j < cols; j++)
          acc[j] += row[j];
    }
  else
    {
      const double *row = nk_tensor_data_f64 (g);

      for (gint64 i = 0; i < rows; i++, row += cols)
        for (gint64 j = 0; j < cols; j++)
          acc[j] += row[j];
    }
  for (gint64 j = 0; j < cols; j++)
    _nk_ag_store (dst, j, acc[j]);
  nk_flops_add ((guint64) (rows * cols));
  return TRUE;
}

/* The recipe's two backward products, each operand quantized along the product's
 * own reduction: dx = dy·W along `out` (dy stochastically rounded under NVFP4),
 * dW = dyᵀ·x along the batch. */
static gboolean
linear_backward_block_quant (NkAgNode  *node,
                             GError   **error)
{
  NkTensor *x = node->in[0], *w = node->in[1], *g = node->grad;
  NkTensor *target;
  double beta;
  guint64 flops = 2 * (guint64) (x->shape[0] * x->shape[1] * w->shape[0]);

  if (nk_autograd_requires_grad (x))
    {
      /* dx [B, in] = dy [B, out] · (Wᵀ [in, out] in blocks along out)ᵀ */
      g_autoptr(NkTensor) gq = _nk_ag_block_quant_operand (g, FALSE, TRUE, FALSE, error);
      g_autoptr(NkTensor) wtq = gq != NULL ? _nk_ag_block_quant_operand (w, TRUE, FALSE, FALSE, error) : NULL;
      g_autoptr(NkTensor) wq = wtq != NULL ? nk_tensor_t (wtq, error) : NULL;

      if (wq == NULL || (target = _nk_ag_grad_target (x, &beta, error)) == NULL
          || !nk_matmul_out (target, gq, wq, 1.0, beta, error))
        return FALSE;
      _nk_ag_count_flops (NK_FLOP_KIND_LINEAR, flops, FALSE);
    }
  if (nk_autograd_requires_grad (w))
    {
      /* dW [out, in] += (dyᵀ [out, B]) · (xᵀ [in, B])ᵀ, both in blocks along B */
      g_autoptr(NkTensor) gtq = _nk_ag_block_quant_operand (g, TRUE, TRUE, TRUE, error);
      g_autoptr(NkTensor) xtq = gtq != NULL ? _nk_ag_block_quant_operand (node->saved[0], TRUE, FALSE, TRUE, error) : NULL;
      g_autoptr(NkTensor) xq = xtq != NULL ? nk_tensor_t (xtq, error) : NULL;

      if (xq == NULL || (target = _nk_ag_grad_target (w, &beta, error)) == NULL
          || !nk_matmul_out (target, gtq, xq, 1.0, beta, error))
        return FALSE;
      _nk_ag_count_flops (NK_FLOP_KIND_LINEAR, flops, FALSE);
    }
  return TRUE;
}

static gboolean
linear_backward (NkAgNode  *node,
                 GError   **error)
{
  NkTensor *x = node->in[0], *w = node->in[1], *b = node->in[2], *g = node->grad;
  /* Under autocast the products use the rounded copies forward used. */
  NkTensor *xs = node->saved[0] != NULL ? node->saved[0] : x;
  NkTensor *ws = node->saved[1] != NULL ? node->saved[1] : w;
  NkTensor *target;
  double beta;
  guint64 flops = 2 * (guint64) (x->shape[0] * x->shape[1] * w->shape[0]);

  if (node->sub == 1)
    {
      if (!linear_backward_block_quant (node, error))
        return FALSE;
    }
  else
    {
      if (nk_autograd_requires_grad (x))
        {
          /* dx [B, in] = g [B, out] · W [out, in] */
          if ((target = _nk_ag_grad_target (x, &beta, error)) == NULL
              || !nk_matmul_out (target, g, ws, 1.0, beta, error))
            return FALSE;
          _nk_ag_count_flops (NK_FLOP_KIND_LINEAR, flops, FALSE);
        }
      if (nk_autograd_requires_grad (w))
        {
          /* dW [out, in] += gᵀ [out, B] · x [B, in] */
          g_autoptr(NkTensor) gt = nk_tensor_t (g, error);

          if (gt == NULL || (target = _nk_ag_grad_target (w, &beta, error)) == NULL
              || !nk_matmul_out (target, gt, xs, 1.0, beta, error))
            return FALSE;
          _nk_ag_count_flops (NK_FLOP_KIND_LINEAR, flops, FALSE);
        }
    }
  if (b != NULL && nk_autograd_requires_grad (b))
    {
      if ((target = _nk_ag_grad_target (b, &beta, error)) == NULL
          || !sum_rows_into (target, g, beta != 0.0, error))
        return FALSE;
    }
  return TRUE;
}

/* ---- binary: out = a ∘ b with broadcasting (add, sub, mul, div) -------------------- */

static gboolean add_backward (NkAgNode *node, GError **error);
static gboolean sub_backward (NkAgNode *node, GError **error);
static gboolean mul_backward (NkAgNode *node, GError **error);
static gboolean div_backward (NkAgNode *node, GError **error);
static const NkAgOp add_op = { "binary_add", add_backward };
static const NkAgOp sub_op = { "binary_sub", sub_backward };
static const NkAgOp mul_op = { "binary_mul", mul_backward };
static const NkAgOp div_op = { "binary_div", div_backward };

static const NkAgOp *
binary_op (NkBinaryOp op)
{
  switch (op)
    {
    case NK_BINARY_ADD: return &add_op;
    case NK_BINARY_SUB: return &sub_op;
    case NK_BINARY_MUL: return &mul_op;
    case NK_BINARY_DIV: return &div_op;
    default: return NULL;
    }
}

/**
 * nk_ag_binary:
 * @op: add, sub, mul or div
 * @a: a tensor
 * @b: a tensor broadcastable with @a (NumPy's rules)
 * @error: return location for a #GError
 *
 * Elementwise a op b with broadcasting, recorded for backward (a broadcast input's
 * gradient is summed over the broadcast dimensions). One FLOP per output element.
 *
 * Returns: (transfer full) (nullable): the result, of the broadcast shape
 */
NkTensor *
nk_ag_binary (NkBinaryOp   op,
              NkTensor    *a,
              NkTensor    *b,
              GError     **error)
{
  g_autoptr(NkTensor) out = NULL;
  gint64 shape[NK_MAX_DIMS];
  int ndim;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  if (binary_op (op) == NULL)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("Autograd has no gradient for this binary operation."));
      return NULL;
    }
  if (!nk_broadcast_shapes (a->ndim, a->shape, b->ndim, b->shape, &ndim, shape, error))
    return NULL;
  out = nk_arena_take (nk_promote_types (a->dtype, b->dtype), ndim, shape,
                       NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_binary_out (op, out, a, b, error))
    return NULL;
  _nk_ag_record (out, binary_op (op), a, b, NULL);
  return g_steal_pointer (&out);
}

/**
 * nk_ag_add:
 * @a: a tensor
 * @b: a tensor broadcastable with @a
 * @error: return location for a #GError
 *
 * a + b, as nk_ag_binary() with %NK_BINARY_ADD.
 *
 * Returns: (transfer full) (nullable): the sum
 */
NkTensor *
nk_ag_add (NkTensor *a, NkTensor *b, GError **error)
{
  return nk_ag_binary (NK_BINARY_ADD, a, b, error);
}

/**
 * nk_ag_sub:
 * @a: a tensor
 * @b: a tensor broadcastable with @a
 * @error: return location for a #GError
 *
 * a − b, as nk_ag_binary() with %NK_BINARY_SUB.
 *
 * Returns: (transfer full) (nullable): the difference
 */
NkTensor *
nk_ag_sub (NkTensor *a, NkTensor *b, GError **error)
{
  return nk_ag_binary (NK_BINARY_SUB, a, b, error);
}

/**
 * nk_ag_mul:
 * @a: a tensor
 * @b: a tensor broadcastable with @a
 * @error: return location for a #GError
 *
 * a · b elementwise, as nk_ag_binary() with %NK_BINARY_MUL.
 *
 * Returns: (transfer full) (nullable): the product
 */
NkTensor *
nk_ag_mul (NkTensor *a, NkTensor *b, GError **error)
{
  return nk_ag_binary (NK_BINARY_MUL, a, b, error);
}

/* Broadcast operands get their contributions summed back to their shape by
 * _nk_ag_accumulate(); g itself is passed on where the local derivative is 1. */

static gboolean
add_backward (NkAgNode  *node,
              GError   **error)
{
  NkTensor *a = node->in[0], *b = node->in[1], *g = node->grad;

  return _nk_ag_accumulate (a, g, FALSE, error) && _nk_ag_accumulate (b, g, FALSE, error);
}

static gboolean
sub_backward (NkAgNode  *node,
              GError   **error)
{
  NkTensor *a = node->in[0], *b = node->in[1], *g = node->grad;

  if (!_nk_ag_accumulate (a, g, FALSE, error))
    return FALSE;
  return !nk_autograd_requires_grad (b) || accumulate_new (b, nk_neg (g, error), error);
}

static gboolean
mul_backward (NkAgNode  *node,
              GError   **error)
{
  NkTensor *a = node->in[0], *b = node->in[1], *g = node->grad;

  if (nk_autograd_requires_grad (a) && !accumulate_new (a, nk_mul (g, b, error), error))
    return FALSE;
  return !nk_autograd_requires_grad (b) || accumulate_new (b, nk_mul (g, a, error), error);
}

static gboolean
div_backward (NkAgNode  *node,
              GError   **error)
{
  NkTensor *a = node->in[0], *b = node->in[1], *g = node->grad;
  g_autoptr(NkTensor) q = NULL;
  g_autoptr(NkTensor) m = NULL;

  if (nk_autograd_requires_grad (a) && !accumulate_new (a, nk_div (g, b, error), error))
    return FALSE;
  if (!nk_autograd_requires_grad (b))
    return TRUE;
  /* d(a/b)/db = −a/b² = −out/b */
  if ((q = nk_div (node->out, b, error)) == NULL || (m = nk_mul (g, q, error)) == NULL)
    return FALSE;
  return accumulate_new (b, nk_neg (m, error), error);
}

/* ---- mul_scalar: out = a·s --------------------------------------------------------- */

static gboolean mul_scalar_backward (NkAgNode *node, GError **error);
static const NkAgOp mul_scalar_op = { "mul_scalar", mul_scalar_backward };

/**
 * nk_ag_mul_scalar:
 * @a: a tensor
 * @s: the factor
 * @error: return location for a #GError
 *
 * a·s, recorded for backward (the gradient is multiplied by @s). One FLOP per element.
 *
 * Returns: (transfer full) (nullable): the scaled tensor
 */
NkTensor *
nk_ag_mul_scalar (NkTensor  *a,
                  double     s,
                  GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  NkAgNode *node;

  g_return_val_if_fail (a != NULL, NULL);
  out = _nk_ag_take_like (a, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_binary_scalar_out (NK_BINARY_MUL, out, a, s, FALSE, error))
    return NULL;
  node = _nk_ag_record (out, &mul_scalar_op, a, NULL, NULL);
  if (node != NULL)
    node->scalar = s;
  return g_steal_pointer (&out);
}

static gboolean
mul_scalar_backward (NkAgNode  *node,
                     GError   **error)
{
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);

  if (da == NULL
      || !nk_binary_scalar_out (NK_BINARY_MUL, da, node->grad, node->scalar, FALSE, error))
    return FALSE;
  return _nk_ag_accumulate (a, da, TRUE, error);
}

/* ---- unary: out = f(a) ------------------------------------------------------------- */

/* A unary op and its derivative: da = rule (g, a or out), times factor. */
typedef struct {
  NkAgOp      op;
  NkBinaryOp  rule;
  gboolean    of_output;   /* the rule reads the output (else the input) */
  double      factor;      /* 1: none */
} UnaryOp;

static gboolean unary_backward (NkAgNode *node, GError **error);
static gboolean neg_backward (NkAgNode *node, GError **error);

/* Backward of exp, sqrt, tanh and sigmoid reads the output, which is alive as long
 * as the node's tensor is (a ref would be a cycle: they read node->out). */
static const UnaryOp unary_ops[NK_N_UNARY_OPS] = {
  [NK_UNARY_NEG]     = { { "unary_neg", neg_backward } },
  [NK_UNARY_EXP]     = { { "unary_exp", unary_backward }, NK_BINARY_MUL, TRUE, 1.0 },
  [NK_UNARY_LOG]     = { { "unary_log", unary_backward }, NK_BINARY_DIV, FALSE, 1.0 },
  [NK_UNARY_SQRT]    = { { "unary_sqrt", unary_backward }, NK_BINARY_DIV, TRUE, 0.5 },
  [NK_UNARY_SQUARE]  = { { "unary_square", unary_backward }, NK_BINARY_MUL, FALSE, 2.0 },
  [NK_UNARY_TANH]    = { { "unary_tanh", unary_backward }, NK_BINARY_TANH_BACKWARD, TRUE, 1.0 },
  [NK_UNARY_SIGMOID] = { { "unary_sigmoid", unary_backward }, NK_BINARY_SIGMOID_BACKWARD, TRUE,
                         1.0 },
  [NK_UNARY_RELU]    = { { "unary_relu", unary_backward }, NK_BINARY_RELU_BACKWARD, FALSE, 1.0 },
  [NK_UNARY_GELU]    = { { "unary_gelu", unary_backward }, NK_BINARY_GELU_BACKWARD, FALSE, 1.0 },
  [NK_UNARY_SILU]    = { { "unary_silu", unary_backward }, NK_BINARY_SILU_BACKWARD, FALSE, 1.0 },
};

/**
 * nk_ag_unary:
 * @op: neg, exp, log, sqrt, square, tanh, sigmoid, relu, gelu or silu
 * @a: a tensor
 * @error: return location for a #GError
 *
 * Applies @op to every element, recorded for backward.
 *
 * Returns: (transfer full) (nullable): the result, of @a's shape
 */
NkTensor *
nk_ag_unary (NkUnaryOp   op,
             NkTensor   *a,
             GError    **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL, NULL);

  if ((guint) op >= NK_N_UNARY_OPS || unary_ops[op].op.backward == NULL)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("Autograd has no gradient for this unary operation."));
      return NULL;
    }
  out = _nk_ag_take_like (a, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_unary_out (op, out, a, error))
    return NULL;
  _nk_ag_record (out, &unary_ops[op].op, a, NULL, NULL);
  return g_steal_pointer (&out);
}

/**
 * nk_ag_relu:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * max(a, 0), as nk_ag_unary() with %NK_UNARY_RELU.
 *
 * Returns: (transfer full) (nullable): the result
 */
NkTensor *
nk_ag_relu (NkTensor  *a,
            GError   **error)
{
  return nk_ag_unary (NK_UNARY_RELU, a, error);
}

static gboolean
unary_backward (NkAgNode  *node,
                GError   **error)
{
  const UnaryOp *u = (const UnaryOp *) node->op;
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = NULL;

  if (!nk_autograd_requires_grad (a))
    return TRUE;
  da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
  if (da == NULL
      || !nk_binary_out (u->rule, da, node->grad, u->of_output ? node->out : a, error)
      || (u->factor != 1.0 && !nk_mul_scalar_ (da, u->factor, error)))
    return FALSE;
  return _nk_ag_accumulate (a, da, TRUE, error);
}

static gboolean
neg_backward (NkAgNode  *node,
              GError   **error)
{
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = NULL;

  if (!nk_autograd_requires_grad (a))
    return TRUE;
  da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
  if (da == NULL || !nk_unary_out (NK_UNARY_NEG, da, node->grad, error))
    return FALSE;
  return _nk_ag_accumulate (a, da, TRUE, error);
}

/* ---- sum, mean: out = Σ a, Σ a / n (0-D) ------------------------------------------- */

static gboolean sum_backward (NkAgNode *node, GError **error);
static gboolean mean_backward (NkAgNode *node, GError **error);
static const NkAgOp sum_op = { "sum", sum_backward };
static const NkAgOp mean_op = { "mean", mean_backward };

static NkTensor *
reduce_all (NkTensor      *a,
            const NkAgOp  *op,
            GError       **error)
{
  g_autoptr(NkTensor) r = NULL;
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL, NULL);
  r = op == &sum_op ? nk_sum (a, 0, NULL, FALSE, error) : nk_mean (a, 0, NULL, FALSE, error);
  if (r == NULL)
    return NULL;
  out = nk_arena_take (r->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_tensor_copy_ (out, r, error))
    return NULL;
  _nk_ag_record (out, op, a, NULL, NULL);
  return g_steal_pointer (&out);
}

/**
 * nk_ag_sum:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * The sum of every element, recorded for backward (each element's gradient is the
 * output's).
 *
 * Returns: (transfer full) (nullable): a 0-D tensor
 */
NkTensor *
nk_ag_sum (NkTensor  *a,
           GError   **error)
{
  return reduce_all (a, &sum_op, error);
}

/**
 * nk_ag_mean:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * The mean of every element, recorded for backward (each element's gradient is the
 * output's divided by the element count).
 *
 * Returns: (transfer full) (nullable): a 0-D tensor
 */
NkTensor *
nk_ag_mean (NkTensor  *a,
            GError   **error)
{
  return reduce_all (a, &mean_op, error);
}

/* Every element of the input gets the same gradient @v. */
static gboolean
fill_backward (NkAgNode  *node,
               double     v,
               GError   **error)
{
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);

  if (da == NULL || !nk_tensor_fill_ (da, v, error))
    return FALSE;
  return _nk_ag_accumulate (a, da, TRUE, error);
}

static gboolean
sum_backward (NkAgNode  *node,
              GError   **error)
{
  return fill_backward (node, _nk_ag_scalar_of (node->grad), error);
}

static gboolean
mean_backward (NkAgNode  *node,
               GError   **error)
{
  double v = _nk_ag_scalar_of (node->grad);

  v /= (double) MAX (nk_tensor_numel (node->in[0]), 1);
  return fill_backward (node, v, error);
}

/* ---- cast: a copy in another dtype; the gradient is cast back ---------------------- */

static gboolean cast_backward (NkAgNode *node, GError **error);
static const NkAgOp cast_op = { "cast", cast_backward };

/**
 * nk_ag_cast:
 * @a: a tensor
 * @dtype: the dtype wanted
 * @error: return location for a #GError
 *
 * A copy of @a in @dtype (rounded once); backward casts the gradient back to @a's dtype.
 *
 * Returns: (transfer full) (nullable): the copy
 */
NkTensor *
nk_ag_cast (NkTensor  *a,
            NkDType    dtype,
            GError   **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL, NULL);
  out = nk_arena_take (dtype, a->ndim, a->shape, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_tensor_copy_ (out, a, error))
    return NULL;
  _nk_ag_record (out, &cast_op, a, NULL, NULL);
  return g_steal_pointer (&out);
}

static gboolean
cast_backward (NkAgNode  *node,
               GError   **error)
{
  NkTensor *a = node->in[0];
  g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);

  if (da == NULL || !nk_tensor_copy_ (da, node->grad, error))
    return FALSE;
  return _nk_ag_accumulate (a, da, TRUE, error);
}

/* ---- views: view, transpose, narrow (no copies) ------------------------------------ */

typedef enum {
  VIEW_VIEW,
  VIEW_TRANSPOSE,
  VIEW_NARROW,
} ViewKind;

static gboolean view_backward (NkAgNode *node, GError **error);
static const NkAgOp view_op = { "view", view_backward };
static const NkAgOp transpose_op = { "transpose", view_backward };
static const NkAgOp narrow_op = { "narrow", view_backward };

static NkTensor *
finish_view (NkTensor      *x,
             NkTensor      *view,
             const NkAgOp  *op,
             ViewKind       kind,
             gint64         p0,
             gint64         p1,
             gint64         p2)
{
  NkAgNode *node;

  if (view == NULL)
    return NULL;
  node = _nk_ag_record (view, op, x, NULL, NULL);
  if (node != NULL)
    {
      node->sub = kind;
      node->iparam[0] = p0;
      node->iparam[1] = p1;
      node->iparam[2] = p2;
    }
  return view;
}

/**
 * nk_ag_view:
 * @x: a tensor
 * @ndim: the new number of dimensions
 * @shape: (array length=ndim): the new sizes, at most one -1 (inferred)
 * @error: return location for a #GError (where no view can be made: call
 *   nk_ag_contiguous() first then)
 *
 * x.view(shape), as nk_tensor_view(): a view sharing @x's storage; backward reshapes
 * the gradient back.
 *
 * Returns: (transfer full) (nullable): the view
 */
NkTensor *
nk_ag_view (NkTensor      *x,
            int            ndim,
            const gint64  *shape,
            GError       **error)
{
  g_return_val_if_fail (x != NULL, NULL);
  return finish_view (x, nk_tensor_view (x, ndim, shape, error), &view_op, VIEW_VIEW,
                      0, 0, 0);
}

/**
 * nk_ag_transpose:
 * @x: a tensor
 * @dim0: a dimension
 * @dim1: another dimension
 * @error: return location for a #GError
 *
 * x.transpose(dim0, dim1): a view with the two dimensions' sizes and strides swapped.
 *
 * Returns: (transfer full) (nullable): the view
 */
NkTensor *
nk_ag_transpose (NkTensor  *x,
                 int        dim0,
                 int        dim1,
                 GError   **error)
{
  g_return_val_if_fail (x != NULL, NULL);
  return finish_view (x, nk_tensor_transpose (x, dim0, dim1, error), &transpose_op,
                      VIEW_TRANSPOSE, dim0, dim1, 0);
}

/**
 * nk_ag_narrow:
 * @x: a tensor
 * @dim: the dimension to narrow
 * @start: the first index kept
 * @length: how many indices are kept
 * @error: return location for a #GError
 *
 * x.narrow(dim, start, length): a view of a slice; c_attn's q, k and v are narrows of
 * its output. Backward adds the gradient into that slice of @x's.
 *
 * Returns: (transfer full) (nullable): the view
 */
NkTensor *
nk_ag_narrow (NkTensor  *x,
              int        dim,
              gint64     start,
              gint64     length,
              GError   **error)
{
  g_return_val_if_fail (x != NULL, NULL);
  if (dim < 0)
    dim += x->ndim;
  if (start < 0 && dim >= 0 && dim < x->ndim)
    start += x->shape[dim];
  return finish_view (x, nk_tensor_narrow (x, dim, start, length, error), &narrow_op,
                      VIEW_NARROW, dim, start, length);
}

/* Applies the view a view node made to @t (a tensor with the view input's shape). */
static NkTensor *
apply_view (NkAgNode  *node,
            NkTensor  *t,
            GError   **error)
{
  NkTensor *out = node->out;

  switch ((ViewKind) node->sub)
    {
    case VIEW_VIEW:
      return nk_tensor_view (t, out->ndim, out->shape, error);
    case VIEW_TRANSPOSE:
      return nk_tensor_transpose (t, (int) node->iparam[0], (int) node->iparam[1], error);
    case VIEW_NARROW:
      return nk_tensor_narrow (t, (int) node->iparam[0], node->iparam[1], node->iparam[2],
                               error);
    }
  g_return_val_if_reached (NULL);
}

/* Whether the view covers every element of its input (no zero-fill needed). */
static gboolean
view_covers_input (NkAgNode *node)
{
  return nk_tensor_numel (node->out) == nk_tensor_numel (node->in[0]);
}

/*
 * For a view whose own gradient has not started, the matching view of its base's
 * gradient (zero-filled first when the view covers only part of it), so a product
 * writes through the view and no copy back is needed.
 */
NkTensor *
_nk_ag_grad_target_through (NkTensor  *t,
                            double    *beta,
                            GError   **error)
{
  NkAgNode *node = _nk_ag_node_of (t);
  g_autoptr(NkTensor) base_target = NULL;
  NkTensor *view, *target;
  double base_beta;

  if (node == NULL || node->op->backward != view_backward || node->grad != NULL
      || !nk_autograd_requires_grad (node->in[0]))
    {
      target = _nk_ag_grad_target (t, beta, error);
      return target != NULL ? nk_tensor_ref (target) : NULL;
    }

  base_target = _nk_ag_grad_target_through (node->in[0], &base_beta, error);
  if (base_target == NULL)
    return NULL;
  if (base_beta == 0.0 && !view_covers_input (node))
    {
      if (!nk_tensor_fill_ (base_target, 0.0, error))
        return NULL;
      base_beta = 1.0;
    }
  /* A view forward made on its input's strides may not exist on the gradient's
   * (contiguous) ones: then the view's own gradient buffer takes it. */
  view = apply_view (node, base_target, NULL);
  if (view != NULL)
    {
      *beta = base_beta;
      return view;
    }
  /* The base's buffer was handed out for overwriting: it must hold zeros now. */
  if (base_beta == 0.0 && !nk_tensor_fill_ (base_target, 0.0, error))
    return NULL;
  target = _nk_ag_grad_target (t, beta, error);
  return target != NULL ? nk_tensor_ref (target) : NULL;
}

/* Adds the gradient into the matching region of the base's gradient. */
static gboolean
view_backward (NkAgNode  *node,
               GError   **error)
{
  g_autoptr(NkTensor) target = NULL;
  g_autoptr(NkTensor) region = NULL;
  NkTensor *x = node->in[0];
  double beta;

  if (!nk_autograd_requires_grad (x))
    return TRUE;
  /* Through the base's own view chain, so a view of a view lands in one place. */
  target = _nk_ag_grad_target_through (x, &beta, error);
  if (target == NULL)
    return FALSE;
  if (beta == 0.0 && !view_covers_input (node))
    {
      if (!nk_tensor_fill_ (target, 0.0, error))
        return FALSE;
      beta = 1.0;
    }
  region = apply_view (node, target, error);
  if (region == NULL)
    return FALSE;
  if (beta == 0.0)
    return nk_tensor_copy_ (region, node->grad, error);
  return nk_add_ (region, node->grad, error);
}

/* ---- contiguous: a copy where @x is not contiguous --------------------------------- */

static gboolean contiguous_backward (NkAgNode *node, GError **error);
static const NkAgOp contiguous_op = { "contiguous", contiguous_backward };

/**
 * nk_ag_contiguous:
 * @x: a tensor
 * @error: return location for a #GError
 *
 * x.contiguous(): @x itself (a new reference) when it is contiguous, else a copy in C
 * order recorded for backward.
 *
 * Returns: (transfer full) (nullable): a contiguous tensor
 */
NkTensor *
nk_ag_contiguous (NkTensor  *x,
                  GError   **error)
{
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (x != NULL, NULL);
  if (nk_tensor_is_contiguous (x))
    return nk_tensor_ref (x);
  out = _nk_ag_take_like (x, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_tensor_copy_ (out, x, error))
    return NULL;
  _nk_ag_record (out, &contiguous_op, x, NULL, NULL);
  return g_steal_pointer (&out);
}

static gboolean
contiguous_backward (NkAgNode  *node,
                     GError   **error)
{
  return _nk_ag_accumulate (node->in[0], node->grad, FALSE, error);
}

/* ---- the list ---------------------------------------------------------------------- */

const NkAgOp *const _nk_ag_ops_core[] = {
  &matmul_op, &linear_op, &add_op, &sub_op, &mul_op, &div_op, &mul_scalar_op,
  &unary_ops[NK_UNARY_NEG].op, &unary_ops[NK_UNARY_EXP].op, &unary_ops[NK_UNARY_LOG].op,
  &unary_ops[NK_UNARY_SQRT].op, &unary_ops[NK_UNARY_SQUARE].op,
  &unary_ops[NK_UNARY_TANH].op, &unary_ops[NK_UNARY_SIGMOID].op,
  &unary_ops[NK_UNARY_RELU].op, &unary_ops[NK_UNARY_GELU].op, &unary_ops[NK_UNARY_SILU].op,
  &sum_op, &mean_op, &cast_op, &view_op, &transpose_op, &narrow_op, &contiguous_op,
};
const guint _nk_ag_n_ops_core = G_N_ELEMENTS (_nk_ag_ops_core);
