/* nk-autograd.c: reverse-mode automatic differentiation over nk-ops
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-autograd-private.h"

G_DEFINE_QUARK (nk-autograd-error-quark, nk_autograd_error)

/* ---- arenas ---------------------------------------------------------------------- */

struct _NkArena
{
  GPtrArray *slots;   /* NkTensor*, owned */
  guint      cursor;
};

static __thread NkArena *current_arena;
static __thread guint64 flops_by_kind[NK_N_FLOP_KINDS];
/* F32 means off; BF16/F16 round matmul inputs and outputs (mixed precision). */
static __thread NkDType autocast_dtype = NK_DTYPE_F32;

NkArena *
nk_arena_new (void)
{
  NkArena *arena = g_new0 (NkArena, 1);

  arena->slots = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);
  return arena;
}

void
nk_arena_free (NkArena *arena)
{
  if (arena == NULL)
    return;
  if (current_arena == arena)
    current_arena = NULL;
  g_ptr_array_unref (arena->slots);
  g_free (arena);
}

void
nk_arena_reset (NkArena *arena)
{
  g_return_if_fail (arena != NULL);
  arena->cursor = 0;
}

guint64
nk_arena_get_bytes (NkArena  *arena,
                    NkBucket  bucket)
{
  guint64 total = 0;

  g_return_val_if_fail (arena != NULL, 0);
  for (guint i = 0; i < arena->slots->len; i++)
    {
      NkTensor *t = g_ptr_array_index (arena->slots, i);

      if (nk_storage_get_bucket (t->storage) == bucket)
        total += nk_storage_get_nbytes (t->storage);
    }
  return total;
}

NkArena *
nk_arena_set_current (NkArena *arena)
{
  NkArena *previous = current_arena;

  current_arena = arena;
  return previous;
}

NkArena *
nk_arena_get_current (void)
{
  return current_arena;
}

static gboolean
slot_matches (NkTensor     *t,
              NkDType       dtype,
              int           ndim,
              const gint64 *shape,
              NkBucket      bucket)
{
  if (t->dtype != dtype || t->ndim != ndim
      || nk_storage_get_bucket (t->storage) != bucket
      || nk_tensor_get_device (t) != nk_device_get_default ())
    return FALSE;
  for (int d = 0; d < ndim; d++)
    if (t->shape[d] != shape[d])
      return FALSE;
  return TRUE;
}

NkTensor *
nk_arena_take (NkDType        dtype,
               int            ndim,
               const gint64  *shape,
               NkBucket       bucket,
               GError       **error)
{
  NkArena *arena = current_arena;
  NkTensor *t;

  if (arena == NULL)
    return nk_tensor_new_full (NULL, dtype, ndim, shape, bucket, FALSE, error);

  if (arena->cursor < arena->slots->len)
    {
      t = g_ptr_array_index (arena->slots, arena->cursor);
      if (slot_matches (t, dtype, ndim, shape, bucket))
        {
          arena->cursor++;
          /* A reused buffer starts a new life: no grad, no node. */
          nk_tensor_set_autograd (t, NULL, NULL);
          nk_tensor_set_grad (t, NULL);
          nk_tensor_set_requires_grad (t, FALSE);
          return nk_tensor_ref (t);
        }
    }

  t = nk_tensor_new_full (NULL, dtype, ndim, shape, bucket, FALSE, error);
  if (t == NULL)
    return NULL;
  if (arena->cursor < arena->slots->len)
    {
      /* The step changed shape here: this slot is reallocated once. */
      nk_tensor_unref (g_ptr_array_index (arena->slots, arena->cursor));
      g_ptr_array_index (arena->slots, arena->cursor) = nk_tensor_ref (t);
    }
  else
    g_ptr_array_add (arena->slots, nk_tensor_ref (t));
  arena->cursor++;
  return t;
}

NkDType
nk_autograd_set_autocast (NkDType dtype)
{
  NkDType previous = autocast_dtype;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_BF16
                        || dtype == NK_DTYPE_F16, previous);
  autocast_dtype = dtype;
  return previous;
}

NkDType
nk_autograd_get_autocast (void)
{
  return autocast_dtype;
}

guint64
nk_autograd_get_matmul_flops (void)
{
  return flops_by_kind[NK_FLOP_KIND_LINEAR] + flops_by_kind[NK_FLOP_KIND_ATTENTION];
}

guint64
nk_autograd_get_flops (NkFlopKind kind)
{
  g_return_val_if_fail (kind < NK_N_FLOP_KINDS, 0);
  return flops_by_kind[kind];
}

void
nk_autograd_reset_matmul_flops (void)
{
  memset (flops_by_kind, 0, sizeof flops_by_kind);
}

void
_nk_ag_count_flops (NkFlopKind kind,
                    guint64    flops,
                    gboolean   add_to_total)
{
  flops_by_kind[kind] += flops;
  if (add_to_total)
    nk_flops_add (flops);
}

/* ---- nodes ----------------------------------------------------------------------- */

/* Graphs are built and run on one thread, so per-thread counters order them. */
static __thread guint64 node_seq;
static __thread guint   mark_epoch;

static void
node_free (gpointer data)
{
  Node *node = data;

  for (guint i = 0; i < G_N_ELEMENTS (node->in); i++)
    g_clear_pointer (&node->in[i], nk_tensor_unref);
  g_clear_pointer (&node->saved, nk_tensor_unref);
  g_clear_pointer (&node->saved2, nk_tensor_unref);
  g_clear_pointer (&node->saved3, nk_tensor_unref);
  g_clear_pointer (&node->grad, nk_tensor_unref);
  g_free (node);
}

Node *
_nk_ag_node_of (NkTensor *t)
{
  return t != NULL ? nk_tensor_get_autograd (t) : NULL;
}

gboolean
nk_autograd_requires_grad (NkTensor *t)
{
  return t != NULL && (t->requires_grad || _nk_ag_node_of (t) != NULL);
}

/* Attaches a node to @out when any input needs a gradient. */
Node *
_nk_ag_record (NkTensor *out,
               NodeOp    op,
               NkTensor *a,
               NkTensor *b,
               NkTensor *c)
{
  Node *node;

  if (!nk_autograd_requires_grad (a) && !nk_autograd_requires_grad (b)
      && !nk_autograd_requires_grad (c))
    {
      nk_tensor_set_autograd (out, NULL, NULL);
      nk_tensor_set_requires_grad (out, FALSE);
      return NULL;
    }

  node = g_new0 (Node, 1);
  node->op = op;
  node->seq = node_seq++;
  node->in[0] = a != NULL ? nk_tensor_ref (a) : NULL;
  node->in[1] = b != NULL ? nk_tensor_ref (b) : NULL;
  node->in[2] = c != NULL ? nk_tensor_ref (c) : NULL;
  node->out = out;
  nk_tensor_set_autograd (out, node, node_free);
  nk_tensor_set_requires_grad (out, TRUE);
  return node;
}

/* ---- small kernels on the public API --------------------------------------------- */

static gboolean
is_cpu_float (NkTensor *t)
{
  return nk_device_get_kind (nk_tensor_get_device (t)) == NK_DEVICE_CPU
         && (t->dtype == NK_DTYPE_F32 || t->dtype == NK_DTYPE_F64)
         && nk_tensor_is_contiguous (t);
}

static inline double
load (NkTensor *t,
      gint64    i)
{
  return t->dtype == NK_DTYPE_F32 ? (double) nk_tensor_data_f32 (t)[i]
                                  : nk_tensor_data_f64 (t)[i];
}

static inline void
store (NkTensor *t,
       gint64    i,
       double    v)
{
  if (t->dtype == NK_DTYPE_F32)
    nk_tensor_data_f32 (t)[i] = (float) v;
  else
    nk_tensor_data_f64 (t)[i] = v;
}

static gboolean
read_index (NkTensor *index,
            gint64    i,
            gint64   *out)
{
  gconstpointer data = nk_tensor_data (index);

  switch (index->dtype)
    {
    case NK_DTYPE_INT32: *out = ((const gint32 *) data)[i * index->stride[0]]; return TRUE;
    case NK_DTYPE_INT64: *out = ((const gint64 *) data)[i * index->stride[0]]; return TRUE;
    case NK_DTYPE_UINT16: *out = ((const guint16 *) data)[i * index->stride[0]]; return TRUE;
    default: return FALSE;
    }
}

static double
scalar_of (NkTensor *t)
{
  double v = NAN;

  nk_tensor_item (t, &v, NULL);
  return v;
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

  if (!is_cpu_float (dst) || !is_cpu_float (g))
    {
      g_autoptr(NkTensor) s = nk_sum_to_shape (g, dst->ndim, dst->shape, error);

      if (s == NULL)
        return FALSE;
      return accumulate ? nk_add_ (dst, s, error) : nk_tensor_copy_ (dst, s, error);
    }

  /* Row by row, in order of memory, into float64 sums: the column-by-column walk
   * strided through g and was a tenth of the Cruncher's backward. */
  {
    g_autofree double *acc = g_new0 (double, cols);

    if (accumulate)
      for (gint64 j = 0; j < cols; j++)
        acc[j] = load (dst, j);
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
      store (dst, j, acc[j]);
  }
  nk_flops_add ((guint64) (rows * cols));
  return TRUE;
}

/* Where the gradient of @t goes, and whether to add (beta 1) or overwrite (beta 0). */
NkTensor *
_nk_ag_grad_target (NkTensor  *t,
                    double    *beta,
                    GError   **error)
{
  Node *node = _nk_ag_node_of (t);

  if (node != NULL)
    {
      if (node->grad == NULL)
        {
          node->grad = nk_arena_take (t->dtype, t->ndim, t->shape, NK_BUCKET_OTHER, error);
          if (node->grad == NULL)
            return NULL;
          *beta = 0.0;
        }
      else
        *beta = 1.0;
      return node->grad;
    }

  if (t->grad == NULL)
    {
      g_autoptr(NkTensor) g = nk_tensor_new_full (nk_tensor_get_device (t), t->dtype,
                                                  t->ndim, t->shape, NK_BUCKET_GRADS,
                                                  TRUE, error);
      if (g == NULL)
        return NULL;
      nk_tensor_set_grad (t, g);
    }
  *beta = 1.0;
  return t->grad;
}

/* Adds @contrib (possibly of a broadcast shape) to the gradient of @t. @fresh: the
 * buffer is private to the caller, so a first contribution can be adopted as is. */
gboolean
_nk_ag_accumulate (NkTensor  *t,
                   NkTensor  *contrib,
                   gboolean   fresh,
                   GError   **error)
{
  g_autoptr(NkTensor) reduced = NULL;
  Node *node;
  NkTensor *target;
  double beta;

  if (!nk_autograd_requires_grad (t))
    return TRUE;

  if (!nk_tensor_same_shape (t, contrib))
    {
      reduced = nk_sum_to_shape (contrib, t->ndim, t->shape, error);
      if (reduced == NULL)
        return FALSE;
      contrib = reduced;
      fresh = TRUE;
    }

  node = _nk_ag_node_of (t);
  if (node != NULL && node->grad == NULL && fresh && contrib->dtype == t->dtype
      && nk_tensor_is_contiguous (contrib))
    {
      node->grad = nk_tensor_ref (contrib);
      return TRUE;
    }

  target = _nk_ag_grad_target (t, &beta, error);
  if (target == NULL)
    return FALSE;
  if (beta == 0.0)
    return nk_tensor_copy_ (target, contrib, error);
  return nk_add_ (target, contrib, error);
}

/* ---- forward ops ----------------------------------------------------------------- */

NkTensor *
_nk_ag_take_like (NkTensor  *like,
                  NkBucket   bucket,
                  GError   **error)
{
  return nk_arena_take (like->dtype, like->ndim, like->shape, bucket, error);
}

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
  flops_by_kind[NK_FLOP_KIND_LINEAR] += 2 * (guint64) (a->shape[0] * a->shape[1] * b->shape[1]);
  _nk_ag_record (out, OP_MATMUL, a, b, NULL);
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
  Node *node;

  g_return_val_if_fail (x != NULL && weight != NULL, NULL);

  if (x->ndim != 2 || weight->ndim != 2 || x->shape[1] != weight->shape[1]
      || (bias != NULL && (bias->ndim != 1 || bias->shape[0] != weight->shape[0])))
    {
      g_autofree char *sx = nk_format_shape (x->ndim, x->shape);
      g_autofree char *sw = nk_format_shape (weight->ndim, weight->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("A linear layer with weight %s cannot take an input of shape %s."),
                   sw, sx);
      return NULL;
    }

  if (autocast_dtype != NK_DTYPE_F32)
    {
      /* Mixed precision: the input (kept for backward) and a per-step copy of the
       * fp32 master weight are rounded to the narrow format; the product comes back
       * in it. The master weight and its gradient stay fp32. */
      if (x->dtype != autocast_dtype)
        {
          xc = nk_arena_take (autocast_dtype, x->ndim, x->shape, NK_BUCKET_ACTIVATIONS, error);
          if (xc == NULL || !nk_tensor_copy_ (xc, x, error))
            return NULL;
        }
      else
        xc = nk_tensor_ref (x);
      wc = nk_arena_take (autocast_dtype, weight->ndim, weight->shape, NK_BUCKET_OTHER, error);
      if (wc == NULL || !nk_tensor_copy_ (wc, weight, error))
        return NULL;
    }
  else
    {
      xc = nk_tensor_ref (x);
      wc = nk_tensor_ref (weight);
    }

  wt = nk_tensor_t (wc, error);
  if (wt == NULL)
    return NULL;
  out = nk_arena_take (xc->dtype, NK_SHAPE (x->shape[0], weight->shape[0]),
                       NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_matmul_out (out, xc, wt, 1.0, 0.0, error))
    return NULL;
  flops_by_kind[NK_FLOP_KIND_LINEAR] += 2 * (guint64) (x->shape[0] * x->shape[1] * weight->shape[0]);
  /* In place: the bias backward does not need the pre-bias value. */
  if (bias != NULL && !nk_binary_out (NK_BINARY_ADD, out, out, bias, error))
    return NULL;
  node = _nk_ag_record (out, OP_LINEAR, x, weight, bias);
  if (node != NULL && autocast_dtype != NK_DTYPE_F32)
    {
      node->saved = g_steal_pointer (&xc);
      node->saved2 = g_steal_pointer (&wc);
    }
  return g_steal_pointer (&out);
}

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

  if (op != NK_BINARY_ADD && op != NK_BINARY_SUB && op != NK_BINARY_MUL
      && op != NK_BINARY_DIV)
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
  if (_nk_ag_record (out, OP_BINARY, a, b, NULL) != NULL)
    ((Node *) nk_tensor_get_autograd (out))->sub = op;
  return g_steal_pointer (&out);
}

NkTensor *
nk_ag_add (NkTensor *a, NkTensor *b, GError **error)
{
  return nk_ag_binary (NK_BINARY_ADD, a, b, error);
}

NkTensor *
nk_ag_sub (NkTensor *a, NkTensor *b, GError **error)
{
  return nk_ag_binary (NK_BINARY_SUB, a, b, error);
}

NkTensor *
nk_ag_mul (NkTensor *a, NkTensor *b, GError **error)
{
  return nk_ag_binary (NK_BINARY_MUL, a, b, error);
}

NkTensor *
nk_ag_mul_scalar (NkTensor  *a,
                  double     s,
                  GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  Node *node;

  g_return_val_if_fail (a != NULL, NULL);
  out = _nk_ag_take_like (a, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_binary_scalar_out (NK_BINARY_MUL, out, a, s, FALSE, error))
    return NULL;
  node = _nk_ag_record (out, OP_MUL_SCALAR, a, NULL, NULL);
  if (node != NULL)
    node->scalar = s;
  return g_steal_pointer (&out);
}

NkTensor *
nk_ag_unary (NkUnaryOp   op,
             NkTensor   *a,
             GError    **error)
{
  g_autoptr(NkTensor) out = NULL;
  Node *node;

  g_return_val_if_fail (a != NULL, NULL);

  switch (op)
    {
    case NK_UNARY_NEG: case NK_UNARY_EXP: case NK_UNARY_LOG: case NK_UNARY_SQRT:
    case NK_UNARY_SQUARE: case NK_UNARY_TANH: case NK_UNARY_SIGMOID:
    case NK_UNARY_RELU: case NK_UNARY_GELU: case NK_UNARY_SILU:
      break;
    default:
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("Autograd has no gradient for this unary operation."));
      return NULL;
    }

  out = _nk_ag_take_like (a, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_unary_out (op, out, a, error))
    return NULL;
  node = _nk_ag_record (out, OP_UNARY, a, NULL, NULL);
  if (node != NULL)
    {
      node->sub = op;
      /* Backward of these reads the output, which is alive as long as the node's
       * tensor is; a ref would be a cycle, so they read node->out instead. */
    }
  return g_steal_pointer (&out);
}

NkTensor *
nk_ag_relu (NkTensor  *a,
            GError   **error)
{
  return nk_ag_unary (NK_UNARY_RELU, a, error);
}

static NkTensor *
reduce_all (NkTensor  *a,
            NodeOp     op,
            GError   **error)
{
  g_autoptr(NkTensor) r = NULL;
  g_autoptr(NkTensor) out = NULL;

  g_return_val_if_fail (a != NULL, NULL);
  r = op == OP_SUM ? nk_sum (a, 0, NULL, FALSE, error) : nk_mean (a, 0, NULL, FALSE, error);
  if (r == NULL)
    return NULL;
  out = nk_arena_take (r->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_tensor_copy_ (out, r, error))
    return NULL;
  _nk_ag_record (out, op, a, NULL, NULL);
  return g_steal_pointer (&out);
}

NkTensor *
nk_ag_sum (NkTensor  *a,
           GError   **error)
{
  return reduce_all (a, OP_SUM, error);
}

NkTensor *
nk_ag_mean (NkTensor  *a,
            GError   **error)
{
  return reduce_all (a, OP_MEAN, error);
}

NkTensor *
nk_ag_mse_loss (NkTensor  *pred,
                NkTensor  *target,
                GError   **error)
{
  g_autoptr(NkTensor) diff = NULL;
  g_autoptr(NkTensor) pflat = NULL;
  g_autoptr(NkTensor) tflat = NULL;
  g_autoptr(NkTensor) out = NULL;
  gint64 n;
  Node *node;

  g_return_val_if_fail (pred != NULL && target != NULL, NULL);

  n = nk_tensor_numel (pred);
  if (n != nk_tensor_numel (target))
    {
      g_autofree char *sp = nk_format_shape (pred->ndim, pred->shape);
      g_autofree char *st = nk_format_shape (target->ndim, target->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("The predictions %s and the targets %s differ in size."), sp, st);
      return NULL;
    }

  pflat = nk_tensor_reshape (pred, NK_SHAPE (n), error);
  if (pflat == NULL)
    return NULL;
  tflat = nk_tensor_reshape (target, NK_SHAPE (n), error);
  if (tflat == NULL)
    return NULL;
  /* At least fp32: a bf16 prediction minus an fp32 target keeps fp32's digits. */
  diff = nk_arena_take (nk_promote_types (nk_promote_types (pred->dtype, target->dtype),
                                          NK_DTYPE_F32),
                        NK_SHAPE (n), NK_BUCKET_ACTIVATIONS, error);
  if (diff == NULL || !nk_binary_out (NK_BINARY_SUB, diff, pflat, tflat, error))
    return NULL;

  out = nk_arena_take (diff->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL)
    return NULL;
  if (is_cpu_float (diff))
    {
      double acc = 0.0;

      for (gint64 i = 0; i < n; i++)
        {
          double d = load (diff, i);
          acc += d * d;
        }
      nk_flops_add (2 * (guint64) n);
      if (!nk_tensor_fill_ (out, n > 0 ? acc / (double) n : NAN, error))
        return NULL;
    }
  else
    {
      g_autoptr(NkTensor) sq = nk_unary (NK_UNARY_SQUARE, diff, error);
      g_autoptr(NkTensor) m = sq != NULL ? nk_mean (sq, 0, NULL, FALSE, error) : NULL;

      if (m == NULL || !nk_tensor_copy_ (out, m, error))
        return NULL;
    }

  node = _nk_ag_record (out, OP_MSE, pred, NULL, NULL);
  if (node != NULL)
    node->saved = g_steal_pointer (&diff);
  return g_steal_pointer (&out);
}

/* Per row: max and log Σ exp(x − max). */
static void
row_logsumexp (NkTensor *logits,
               gint64    row,
               gint64    v,
               double   *out_max,
               double   *out_lse)
{
  double m = -INFINITY, s = 0.0;

  for (gint64 j = 0; j < v; j++)
    m = MAX (m, load (logits, row * v + j));
  for (gint64 j = 0; j < v; j++)
    s += exp (load (logits, row * v + j) - m);
  *out_max = m;
  *out_lse = m + log (s);
}

NkTensor *
nk_ag_cross_entropy (NkTensor  *logits,
                     NkTensor  *targets,
                     GError   **error)
{
  g_autoptr(NkTensor) out = NULL;
  gint64 n, v;
  double acc = 0.0;

  g_return_val_if_fail (logits != NULL && targets != NULL, NULL);

  if (logits->ndim != 2 || targets->ndim != 1 || targets->shape[0] != logits->shape[0])
    {
      g_autofree char *sl = nk_format_shape (logits->ndim, logits->shape);
      g_autofree char *st = nk_format_shape (targets->ndim, targets->shape);

      g_set_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE,
                   _("Cross-entropy needs logits [N, V] and targets [N], not %s and %s."),
                   sl, st);
      return NULL;
    }
  if (logits->dtype != NK_DTYPE_F32 && logits->dtype != NK_DTYPE_F64)
    {
      /* Mixed precision: the softmax runs in fp32 on a recorded widening copy. */
      g_autoptr(NkTensor) wide = nk_ag_cast (logits, NK_DTYPE_F32, error);

      return wide != NULL ? nk_ag_cross_entropy (wide, targets, error) : NULL;
    }
  if (!is_cpu_float (logits)
      || nk_device_get_kind (nk_tensor_get_device (targets)) != NK_DEVICE_CPU)
    /* Other layouts and devices: the same math over the device's row kernels. */
    return _nk_ag_cross_entropy_rows (logits, targets, error);

  n = logits->shape[0];
  v = logits->shape[1];
  for (gint64 i = 0; i < n; i++)
    {
      double m, lse;
      gint64 t;

      if (!read_index (targets, i, &t))
        {
          g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                       _("Cross-entropy targets must be integer class indices, not %s."),
                       nk_dtype_info (targets->dtype)->name);
          return NULL;
        }
      if (t < 0 || t >= v)
        {
          /* The value is what is wrong; the row says where to look. */
          g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                       _("Target %" PRId64 " (row %" PRId64 ") is not a class index "
                         "below %" PRId64 "."), t, i, v);
          return NULL;
        }
      row_logsumexp (logits, i, v, &m, &lse);
      acc += lse - load (logits, i * v + t);
    }
  nk_flops_add (4 * (guint64) (n * v));

  out = nk_arena_take (logits->dtype, 0, NULL, NK_BUCKET_ACTIVATIONS, error);
  if (out == NULL || !nk_tensor_fill_ (out, acc / (double) MAX (n, 1), error))
    return NULL;
  _nk_ag_record (out, OP_CROSS_ENTROPY, logits, NULL, NULL);
  if (_nk_ag_node_of (out) != NULL)
    _nk_ag_node_of (out)->saved = nk_tensor_ref (targets);
  return g_steal_pointer (&out);
}

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
  _nk_ag_record (out, OP_CAST, a, NULL, NULL);
  return g_steal_pointer (&out);
}

/* ---- backward -------------------------------------------------------------------- */

static gboolean
backward_linear (Node    *node,
                 GError **error)
{
  NkTensor *x = node->in[0], *w = node->in[1], *b = node->in[2], *g = node->grad;
  /* Under autocast the products use the rounded copies forward used. */
  NkTensor *xs = node->saved != NULL ? node->saved : x;
  NkTensor *ws = node->saved2 != NULL ? node->saved2 : w;
  NkTensor *target;
  double beta;
  gint64 rows = x->shape[0], in = x->shape[1], out = w->shape[0];

  if (nk_autograd_requires_grad (x))
    {
      /* dx [B, in] = g [B, out] · W [out, in] */
      if ((target = _nk_ag_grad_target (x, &beta, error)) == NULL
          || !nk_matmul_out (target, g, ws, 1.0, beta, error))
        return FALSE;
      flops_by_kind[NK_FLOP_KIND_LINEAR] += 2 * (guint64) (rows * in * out);
    }
  if (nk_autograd_requires_grad (w))
    {
      /* dW [out, in] += gᵀ [out, B] · x [B, in] */
      g_autoptr(NkTensor) gt = nk_tensor_t (g, error);

      if (gt == NULL || (target = _nk_ag_grad_target (w, &beta, error)) == NULL
          || !nk_matmul_out (target, gt, xs, 1.0, beta, error))
        return FALSE;
      flops_by_kind[NK_FLOP_KIND_LINEAR] += 2 * (guint64) (rows * in * out);
    }
  if (b != NULL && nk_autograd_requires_grad (b))
    {
      if ((target = _nk_ag_grad_target (b, &beta, error)) == NULL
          || !sum_rows_into (target, g, beta != 0.0, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
backward_matmul (Node    *node,
                 GError **error)
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
      flops_by_kind[NK_FLOP_KIND_LINEAR] += flops;
    }
  if (nk_autograd_requires_grad (b))
    {
      g_autoptr(NkTensor) at = nk_tensor_t (a, error);

      /* dB [k, n] = Aᵀ [k, m] · g [m, n] */
      if (at == NULL || (target = _nk_ag_grad_target (b, &beta, error)) == NULL
          || !nk_matmul_out (target, at, g, 1.0, beta, error))
        return FALSE;
      flops_by_kind[NK_FLOP_KIND_LINEAR] += flops;
    }
  return TRUE;
}

static gboolean
backward_binary (Node    *node,
                 GError **error)
{
  NkTensor *a = node->in[0], *b = node->in[1], *g = node->grad;

  if (nk_autograd_requires_grad (a))
    {
      g_autoptr(NkTensor) da = NULL;

      switch (node->sub)
        {
        case NK_BINARY_ADD:
        case NK_BINARY_SUB:
          da = nk_tensor_ref (g);
          break;
        case NK_BINARY_MUL:
          da = nk_mul (g, b, error);
          break;
        default: /* DIV */
          da = nk_div (g, b, error);
          break;
        }
      if (da == NULL || !_nk_ag_accumulate (a, da, da != g, error))
        return FALSE;
    }
  if (nk_autograd_requires_grad (b))
    {
      g_autoptr(NkTensor) db = NULL;

      switch (node->sub)
        {
        case NK_BINARY_ADD:
          db = nk_tensor_ref (g);
          break;
        case NK_BINARY_SUB:
          db = nk_neg (g, error);
          break;
        case NK_BINARY_MUL:
          db = nk_mul (g, a, error);
          break;
        default:
          {
            /* d(a/b)/db = −a/b² = −out/b */
            g_autoptr(NkTensor) q = nk_div (node->out, b, error);
            g_autoptr(NkTensor) m = q != NULL ? nk_mul (g, q, error) : NULL;

            db = m != NULL ? nk_neg (m, error) : NULL;
          }
          break;
        }
      if (db == NULL || !_nk_ag_accumulate (b, db, db != g, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
backward_unary (Node    *node,
                GError **error)
{
  NkTensor *a = node->in[0], *g = node->grad, *out = node->out;
  g_autoptr(NkTensor) da = NULL;

  if (!nk_autograd_requires_grad (a))
    return TRUE;

  da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
  if (da == NULL)
    return FALSE;

  switch (node->sub)
    {
    case NK_UNARY_NEG:
      if (!nk_unary_out (NK_UNARY_NEG, da, g, error))
        return FALSE;
      break;
    case NK_UNARY_EXP:
      if (!nk_binary_out (NK_BINARY_MUL, da, g, out, error))
        return FALSE;
      break;
    case NK_UNARY_LOG:
      if (!nk_binary_out (NK_BINARY_DIV, da, g, a, error))
        return FALSE;
      break;
    case NK_UNARY_SQRT:
      if (!nk_binary_out (NK_BINARY_DIV, da, g, out, error)
          || !nk_mul_scalar_ (da, 0.5, error))
        return FALSE;
      break;
    case NK_UNARY_SQUARE:
      if (!nk_binary_out (NK_BINARY_MUL, da, g, a, error)
          || !nk_mul_scalar_ (da, 2.0, error))
        return FALSE;
      break;
    case NK_UNARY_TANH:
      if (!nk_binary_out (NK_BINARY_TANH_BACKWARD, da, g, out, error))
        return FALSE;
      break;
    case NK_UNARY_SIGMOID:
      if (!nk_binary_out (NK_BINARY_SIGMOID_BACKWARD, da, g, out, error))
        return FALSE;
      break;
    case NK_UNARY_RELU:
      if (!nk_binary_out (NK_BINARY_RELU_BACKWARD, da, g, a, error))
        return FALSE;
      break;
    case NK_UNARY_GELU:
      if (!nk_binary_out (NK_BINARY_GELU_BACKWARD, da, g, a, error))
        return FALSE;
      break;
    case NK_UNARY_SILU:
      if (!nk_binary_out (NK_BINARY_SILU_BACKWARD, da, g, a, error))
        return FALSE;
      break;
    default:
      g_assert_not_reached ();
    }
  return _nk_ag_accumulate (a, da, TRUE, error);
}

static gboolean
backward_node (Node    *node,
               GError **error)
{
  NkTensor *a = node->in[0], *g = node->grad;

  if (node->backward != NULL)
    return node->backward (node, error);
  switch (node->op)
    {
    case OP_LINEAR:
      return backward_linear (node, error);
    case OP_MATMUL:
      return backward_matmul (node, error);
    case OP_BINARY:
      return backward_binary (node, error);
    case OP_UNARY:
      return backward_unary (node, error);

    case OP_MUL_SCALAR:
      {
        g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);

        if (da == NULL
            || !nk_binary_scalar_out (NK_BINARY_MUL, da, g, node->scalar, FALSE, error))
          return FALSE;
        return _nk_ag_accumulate (a, da, TRUE, error);
      }

    case OP_SUM:
    case OP_MEAN:
      {
        g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
        double v = scalar_of (g);

        if (node->op == OP_MEAN)
          v /= (double) MAX (nk_tensor_numel (a), 1);
        if (da == NULL || !nk_tensor_fill_ (da, v, error))
          return FALSE;
        return _nk_ag_accumulate (a, da, TRUE, error);
      }

    case OP_MSE:
      {
        /* d/dpred mean((pred − t)²) = 2·(pred − t)/n */
        g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
        g_autoptr(NkTensor) flat = NULL;
        gint64 n = nk_tensor_numel (a);

        if (da == NULL)
          return FALSE;
        flat = nk_tensor_view (da, NK_SHAPE (n), error);
        if (flat == NULL
            || !nk_binary_scalar_out (NK_BINARY_MUL, flat, node->saved,
                                      2.0 * scalar_of (g) / (double) MAX (n, 1), FALSE, error))
          return FALSE;
        return _nk_ag_accumulate (a, da, TRUE, error);
      }

    case OP_CROSS_ENTROPY:
      {
        /* d/dlogits = (softmax − onehot(target))·g/N */
        g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);
        gint64 n = a->shape[0], v = a->shape[1];
        double scale = scalar_of (g) / (double) MAX (n, 1);

        if (da == NULL)
          return FALSE;
        for (gint64 i = 0; i < n; i++)
          {
            double m, lse;
            gint64 t = 0;

            read_index (node->saved, i, &t);
            row_logsumexp (a, i, v, &m, &lse);
            for (gint64 j = 0; j < v; j++)
              store (da, i * v + j,
                     (exp (load (a, i * v + j) - lse) - (j == t ? 1.0 : 0.0)) * scale);
          }
        nk_flops_add (3 * (guint64) (n * v));
        return _nk_ag_accumulate (a, da, TRUE, error);
      }

    case OP_CAST:
      {
        g_autoptr(NkTensor) da = _nk_ag_take_like (a, NK_BUCKET_OTHER, error);

        if (da == NULL || !nk_tensor_copy_ (da, g, error))
          return FALSE;
        return _nk_ag_accumulate (a, da, TRUE, error);
      }

    default:
      g_assert_not_reached ();
    }
  return FALSE;
}

static int
compare_seq_desc (gconstpointer pa,
                  gconstpointer pb)
{
  const Node *a = *(Node * const *) pa, *b = *(Node * const *) pb;

  return a->seq < b->seq ? 1 : a->seq > b->seq ? -1 : 0;
}

/* Every node reachable from @t, with a ref on its output in @outs. */
static void
collect (NkTensor  *t,
         guint      mark,
         GPtrArray *nodes,
         GPtrArray *outs)
{
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, t);
  while (stack->len > 0)
    {
      NkTensor *cur = g_ptr_array_steal_index (stack, stack->len - 1);
      Node *node = _nk_ag_node_of (cur);

      if (node == NULL || node->mark == mark)
        continue;
      node->mark = mark;
      g_ptr_array_add (nodes, node);
      g_ptr_array_add (outs, nk_tensor_ref (cur));
      for (guint i = 0; i < G_N_ELEMENTS (node->in); i++)
        if (node->in[i] != NULL)
          g_ptr_array_add (stack, node->in[i]);
    }
  g_ptr_array_unref (stack);
}

static void
release_outs (GPtrArray *outs)
{
  for (guint i = 0; i < outs->len; i++)
    nk_tensor_set_autograd (g_ptr_array_index (outs, i), NULL, NULL);
}

void
nk_autograd_release (NkTensor *t)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);

  g_return_if_fail (t != NULL);
  collect (t, ++mark_epoch, nodes, outs);
  release_outs (outs);
}

gboolean
nk_autograd_backward_scaled (NkTensor  *loss,
                             double     scale,
                             GError   **error)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);
  Node *root;
  gboolean ok = TRUE;

  g_return_val_if_fail (loss != NULL, FALSE);

  if (nk_tensor_numel (loss) != 1)
    {
      g_autofree char *s = nk_format_shape (loss->ndim, loss->shape);

      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_NOT_SCALAR,
                   _("Backward needs a one-element loss, not a tensor of shape %s."), s);
      return FALSE;
    }
  root = _nk_ag_node_of (loss);
  if (root == NULL)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_NO_GRAPH,
                   _("The loss does not depend on any tensor that requires grad."));
      return FALSE;
    }

  collect (loss, ++mark_epoch, nodes, outs);
  g_ptr_array_sort (nodes, compare_seq_desc);

  root->grad = nk_arena_take (loss->dtype, loss->ndim, loss->shape, NK_BUCKET_OTHER, error);
  if (root->grad == NULL || !nk_tensor_fill_ (root->grad, scale, error))
    ok = FALSE;

  for (guint i = 0; ok && i < nodes->len; i++)
    {
      Node *node = g_ptr_array_index (nodes, i);

      if (node->grad == NULL)
        continue;
      ok = backward_node (node, error);
      /* A gradient is dead once its node has passed it on. */
      g_clear_pointer (&node->grad, nk_tensor_unref);
    }

  release_outs (outs);
  return ok;
}

gboolean
nk_autograd_backward (NkTensor  *loss,
                      GError   **error)
{
  return nk_autograd_backward_scaled (loss, 1.0, error);
}

gboolean
nk_autograd_zero_grad (NkTensor **params,
                       guint      n_params,
                       GError   **error)
{
  for (guint i = 0; i < n_params; i++)
    if (params[i]->grad != NULL && !nk_tensor_fill_ (params[i]->grad, 0.0, error))
      return FALSE;
  return TRUE;
}

/* ---- gradient check -------------------------------------------------------------- */

static gboolean
eval_scalar (NkAutogradFunc   func,
             NkTensor       **inputs,
             guint            n_inputs,
             gpointer         user_data,
             double          *out,
             GError         **error)
{
  g_autoptr(NkTensor) r = func (inputs, n_inputs, user_data, error);

  if (r == NULL)
    return FALSE;
  nk_autograd_release (r);
  return nk_tensor_item (r, out, error);
}

static void
unravel (NkTensor *t,
         gint64    linear,
         gint64   *index)
{
  for (int d = t->ndim - 1; d >= 0; d--)
    {
      index[d] = linear % t->shape[d];
      linear /= t->shape[d];
    }
}

gboolean
nk_autograd_gradcheck (NkAutogradFunc   func,
                       NkTensor       **inputs,
                       guint            n_inputs,
                       gpointer         user_data,
                       double           eps,
                       double           atol,
                       double           rtol,
                       double          *out_max_error,
                       GError         **error)
{
  g_autoptr(NkTensor) result = NULL;
  double max_error = 0.0;

  g_return_val_if_fail (func != NULL && inputs != NULL, FALSE);

  for (guint i = 0; i < n_inputs; i++)
    {
      nk_tensor_set_requires_grad (inputs[i], TRUE);
      nk_tensor_set_grad (inputs[i], NULL);
    }

  result = func (inputs, n_inputs, user_data, error);
  if (result == NULL || !nk_autograd_backward (result, error))
    return FALSE;

  for (guint i = 0; i < n_inputs; i++)
    {
      NkTensor *x = inputs[i];
      g_autofree double *analytic = NULL;
      gint64 n = nk_tensor_numel (x);

      if (x->grad != NULL)
        analytic = nk_tensor_to_doubles (x->grad, NULL);

      for (gint64 e = 0; e < n; e++)
        {
          gint64 index[NK_MAX_DIMS] = { 0 };
          double orig, fp, fm, numeric, a, err;

          unravel (x, e, index);
          if (!nk_tensor_get_item (x, index, &orig, error)
              || !nk_tensor_set_item (x, index, orig + eps, error)
              || !eval_scalar (func, inputs, n_inputs, user_data, &fp, error)
              || !nk_tensor_set_item (x, index, orig - eps, error)
              || !eval_scalar (func, inputs, n_inputs, user_data, &fm, error)
              || !nk_tensor_set_item (x, index, orig, error))
            return FALSE;

          numeric = (fp - fm) / (2.0 * eps);
          a = analytic != NULL ? analytic[e] : 0.0;
          err = fabs (a - numeric);
          max_error = MAX (max_error, err);
          if (!(err <= atol + rtol * fabs (numeric)))
            {
              g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_MISMATCH,
                           _("Input %u, element %" PRId64 ": backward gives %.10g but finite differences give %.10g."),
                           i, e, a, numeric);
              if (out_max_error != NULL)
                *out_max_error = max_error;
              return FALSE;
            }
        }
    }

  if (out_max_error != NULL)
    *out_max_error = max_error;
  return TRUE;
}
