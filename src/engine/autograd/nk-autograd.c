/* nk-autograd.c: the tape — nodes, their order, the backward pass, ambient state
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tape knows no op: each op's file records a node that points at the op's
 * NkAgOp (its backward, defined beside its forward), and backward here calls it.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-autograd-private.h"

/**
 * nk_autograd_error_quark:
 *
 * The domain of %NK_AUTOGRAD_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-autograd-error-quark, nk_autograd_error)

/* ---- ambient state: autocast and FLOP counters ------------------------------------ */

static __thread guint64 flops_by_kind[NK_N_FLOP_KINDS];
/* F32 means off; BF16/F16 round matmul inputs and outputs (mixed precision). */
static __thread NkDType autocast_dtype = NK_DTYPE_F32;

NkDType
nk_autograd_set_autocast (NkDType dtype)
{
  NkDType previous = autocast_dtype;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_BF16
                        || dtype == NK_DTYPE_F16, previous);
  autocast_dtype = dtype;
  return previous;
}

/**
 * nk_autograd_get_autocast:
 *
 * The calling thread's autocast dtype, set by nk_autograd_set_autocast().
 *
 * Returns: %NK_DTYPE_BF16 or %NK_DTYPE_F16 when on, %NK_DTYPE_F32 when off
 */
NkDType
nk_autograd_get_autocast (void)
{
  return autocast_dtype;
}

/**
 * nk_autograd_get_matmul_flops:
 *
 * The matmul FLOPs nk_ag_*() ops ran forward and backward on this thread since the
 * last reset (a subset of nk_flops_get()): %NK_FLOP_KIND_LINEAR +
 * %NK_FLOP_KIND_ATTENTION.
 *
 * Returns: the FLOPs
 */
guint64
nk_autograd_get_matmul_flops (void)
{
  return flops_by_kind[NK_FLOP_KIND_LINEAR] + flops_by_kind[NK_FLOP_KIND_ATTENTION];
}

/**
 * nk_autograd_get_flops:
 * @kind: a kind
 *
 * The FLOPs of one kind that nk_ag_*() ops ran on this thread since the last reset.
 *
 * Returns: the FLOPs
 */
guint64
nk_autograd_get_flops (NkFlopKind kind)
{
  g_return_val_if_fail (kind < NK_N_FLOP_KINDS, 0);
  return flops_by_kind[kind];
}

/**
 * nk_autograd_reset_matmul_flops:
 *
 * Resets this thread's counters of every #NkFlopKind (not nk_flops_get()'s total).
 */
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

/* ---- nodes ------------------------------------------------------------------------ */

/* Graphs are built and run on one thread, so per-thread counters order them. */
static __thread guint64 node_seq;
static __thread guint   mark_epoch;

static void
node_free (gpointer data)
{
  NkAgNode *node = data;

  for (guint i = 0; i < G_N_ELEMENTS (node->in); i++)
    g_clear_pointer (&node->in[i], nk_tensor_unref);
  for (guint i = 0; i < G_N_ELEMENTS (node->saved); i++)
    g_clear_pointer (&node->saved[i], nk_tensor_unref);
  g_clear_pointer (&node->grad, nk_tensor_unref);
  g_free (node);
}

NkAgNode *
_nk_ag_node_of (NkTensor *t)
{
  return t != NULL ? nk_tensor_get_autograd (t) : NULL;
}

/**
 * nk_autograd_requires_grad:
 * @t: a tensor
 *
 * Whether any autograd node or leaf makes @t part of a graph.
 *
 * Returns: %TRUE if backward would reach @t
 */
gboolean
nk_autograd_requires_grad (NkTensor *t)
{
  return t != NULL && (t->requires_grad || _nk_ag_node_of (t) != NULL);
}

const char *
nk_autograd_get_op_name (NkTensor *t)
{
  NkAgNode *node = _nk_ag_node_of (t);

  return node != NULL ? node->op->name : NULL;
}

NkAgNode *
_nk_ag_record (NkTensor     *out,
               const NkAgOp *op,
               NkTensor     *a,
               NkTensor     *b,
               NkTensor     *c)
{
  NkAgNode *node;

  g_return_val_if_fail (op != NULL && op->backward != NULL, NULL);

  if (!nk_autograd_requires_grad (a) && !nk_autograd_requires_grad (b)
      && !nk_autograd_requires_grad (c))
    {
      nk_tensor_set_autograd (out, NULL, NULL);
      nk_tensor_set_requires_grad (out, FALSE);
      return NULL;
    }

  node = g_new0 (NkAgNode, 1);
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

/* ---- gradients -------------------------------------------------------------------- */

NkTensor *
_nk_ag_grad_target (NkTensor  *t,
                    double    *beta,
                    GError   **error)
{
  NkAgNode *node = _nk_ag_node_of (t);

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

gboolean
_nk_ag_accumulate (NkTensor  *t,
                   NkTensor  *contrib,
                   gboolean   fresh,
                   GError   **error)
{
  g_autoptr(NkTensor) reduced = NULL;
  NkAgNode *node;
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

/* ---- the backward pass ------------------------------------------------------------ */

static int
compare_seq_desc (gconstpointer pa,
                  gconstpointer pb)
{
  const NkAgNode *a = *(NkAgNode * const *) pa, *b = *(NkAgNode * const *) pb;

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
      NkAgNode *node = _nk_ag_node_of (cur);

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

/**
 * nk_autograd_release:
 * @t: a tensor
 *
 * Drops the graph nodes reachable from @t without running backward (an evaluation's
 * forward, say).
 */
void
nk_autograd_release (NkTensor *t)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);

  g_return_if_fail (t != NULL);
  collect (t, ++mark_epoch, nodes, outs);
  release_outs (outs);
}

/* A loss backward can start from, or %FALSE with the reason. */
static gboolean
check_loss (NkTensor  *loss,
            GError   **error)
{
  if (nk_tensor_numel (loss) != 1)
    {
      g_autofree char *s = nk_format_shape (loss->ndim, loss->shape);

      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_NOT_SCALAR,
                   _("Backward needs a one-element loss, not a tensor of shape %s."), s);
      return FALSE;
    }
  if (_nk_ag_node_of (loss) == NULL)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_NO_GRAPH,
                   _("The loss does not depend on any tensor that requires grad."));
      return FALSE;
    }
  return TRUE;
}

gboolean
nk_autograd_backward_scaled (NkTensor  *loss,
                             double     scale,
                             GError   **error)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);
  NkAgNode *root;
  gboolean ok = TRUE;

  g_return_val_if_fail (loss != NULL, FALSE);
  if (!check_loss (loss, error))
    return FALSE;

  root = _nk_ag_node_of (loss);
  collect (loss, ++mark_epoch, nodes, outs);
  /* Reverse creation order is a topological order: an op's inputs exist before it. */
  g_ptr_array_sort (nodes, compare_seq_desc);

  root->grad = nk_arena_take (loss->dtype, loss->ndim, loss->shape, NK_BUCKET_OTHER, error);
  if (root->grad == NULL || !nk_tensor_fill_ (root->grad, scale, error))
    ok = FALSE;

  for (guint i = 0; ok && i < nodes->len; i++)
    {
      NkAgNode *node = g_ptr_array_index (nodes, i);

      if (node->grad == NULL)
        continue;
      ok = node->op->backward (node, error);
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

/**
 * nk_autograd_zero_grad:
 * @params: (array length=n_params): the leaves
 * @n_params: their count
 * @error: return location for a #GError
 *
 * Sets each leaf's grad to zeros, keeping the buffer so %NK_BUCKET_GRADS holds still.
 *
 * Returns: %TRUE on success
 */
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
