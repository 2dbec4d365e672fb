/* nk-program-index.c: x[...] in the tensor language: integers, slices, None and "...",
 * read as views and written through
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-ops.h"
#include "nk-program-private.h"

/* A bound of a slice; a missing one or None is @dflt. */
static gboolean
slice_bound (NkEval  *ev,
             NkNode  *node,
             gint64  *out,
             gint64   dflt)
{
  g_autoptr(NkProgramValue) v = NULL;

  if (node == NULL)
    {
      *out = dflt;
      return TRUE;
    }
  v = _nk_eval_expr (ev, node);
  if (v == NULL)
    return FALSE;
  if (v->kind == NK_PROGRAM_VALUE_NONE)
    {
      *out = dflt;
      return TRUE;
    }
  return _nk_value_as_int (ev, node, v, _("a slice bound"), out);
}

/* x[None] at @dim: a new dim of size 1 */
static NkTensor *
index_none (NkEval   *ev,
            NkNode   *sub,
            NkTensor *t,
            int       dim)
{
  GError *error = NULL;
  NkTensor *next;

  if (t->ndim >= NK_MAX_DIMS)
    {
      _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_SHAPE, _("tensors have at most %d dimensions"),
                     NK_MAX_DIMS);
      return NULL;
    }
  next = nk_tensor_unsqueeze (t, dim, &error);
  if (next == NULL)
    _nk_eval_fail_with (ev, sub, error);
  return next;
}

/* x[start:stop:step] at @dim */
static NkTensor *
index_slice (NkEval   *ev,
             NkNode   *sub,
             NkTensor *t,
             int       dim)
{
  gint64 start, stop, step;
  GError *error = NULL;
  NkTensor *next;

  if (!slice_bound (ev, sub->a, &start, 0) ||
      !slice_bound (ev, sub->b, &stop, NK_SLICE_END) ||
      !slice_bound (ev, sub->c, &step, 1))
    return NULL;
  if (step <= 0)
    {
      _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_INDEX, _("step must be greater than zero"));
      return NULL;
    }
  /* The new stride is stride × step: keep it far from overflowing. */
  if (step > NK_PROGRAM_MAX_NUMEL ||
      (double) ABS (t->stride[dim]) * (double) step > (double) NK_PROGRAM_MAX_INT)
    {
      _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_LIMIT, _("the step %" PRId64 " is too large"), step);
      return NULL;
    }
  next = nk_tensor_slice (t, dim, start, stop, step, &error);
  if (next == NULL)
    _nk_eval_fail_with (ev, sub, error);
  return next;
}

/* x[i] at @dim: selects, dropping the dim */
static NkTensor *
index_integer (NkEval   *ev,
               NkNode   *sub,
               NkTensor *t,
               int       dim)
{
  g_autoptr(NkProgramValue) v = _nk_eval_expr (ev, sub);
  GError *error = NULL;
  NkTensor *next;
  gint64 index;

  if (v == NULL)
    return NULL;
  if (v->kind == NK_PROGRAM_VALUE_TENSOR || v->kind == NK_PROGRAM_VALUE_TUPLE)
    {
      _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_TYPE,
                     _("indexing with %s (advanced indexing) is not supported; use integers, "
                       "slices, None or ..."), _nk_program_kind_name (v->kind));
      return NULL;
    }
  if (!_nk_value_as_int (ev, sub, v, _("an index"), &index))
    return NULL;
  if (index < -t->shape[dim] || index >= t->shape[dim])
    {
      _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_INDEX,
                     _("index %" PRId64 " is out of bounds for dimension %d with size %"
                       PRId64), index, dim, t->shape[dim]);
      return NULL;
    }
  next = nk_tensor_select (t, dim, index, &error);
  if (next == NULL)
    _nk_eval_fail_with (ev, sub, error);
  return next;
}

/* x[subscripts]: ints select (dropping the dim), slices narrow with a step, None
 * inserts a dim of size 1, "..." stands for every dim not named. All views. */
static NkProgramValue *
index_tensor (NkEval   *ev,
              NkNode   *node,
              NkTensor *x)
{
  g_autoptr(NkTensor) t = nk_tensor_alias (x);
  int consumed = 0, dim = 0;
  gboolean seen_ellipsis = FALSE;

  for (guint i = 0; i < node->items->len; i++)
    {
      NkNode *sub = g_ptr_array_index (node->items, i);

      if (sub->kind != NK_NODE_ELLIPSIS && sub->kind != NK_NODE_NONE)
        consumed++;
    }
  if (consumed > x->ndim)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_INDEX,
                     _("too many indices for tensor of dimension %d"), x->ndim);
      return NULL;
    }

  for (guint i = 0; i < node->items->len; i++)
    {
      NkNode *sub = g_ptr_array_index (node->items, i);
      NkTensor *next;

      if (sub->kind == NK_NODE_ELLIPSIS)
        {
          if (seen_ellipsis)
            {
              _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_INDEX,
                             _("an index can only have a single ellipsis (“...”)"));
              return NULL;
            }
          seen_ellipsis = TRUE;
          dim += x->ndim - consumed;
          continue;
        }
      if (sub->kind == NK_NODE_NONE)
        next = index_none (ev, sub, t, dim++);
      else if (sub->kind == NK_NODE_SLICE)
        next = index_slice (ev, sub, t, dim++);
      else
        next = index_integer (ev, sub, t, dim);
      if (next == NULL)
        return NULL;
      nk_tensor_unref (t);
      t = next;
    }
  return _nk_eval_tensor_result (ev, node, g_steal_pointer (&t), NULL);
}

/**
 * _nk_eval_index:
 * @ev: the evaluation
 * @node: an INDEX node
 * @object: the value of @node->a
 *
 * Returns: (transfer full) (nullable): a view of the tensor, or an item of a tuple
 */
NkProgramValue *
_nk_eval_index (NkEval         *ev,
                NkNode         *node,
                NkProgramValue *object)
{
  if (object->kind == NK_PROGRAM_VALUE_TENSOR)
    return index_tensor (ev, node, object->tensor);
  if (object->kind == NK_PROGRAM_VALUE_TUPLE)
    {
      NkNode *sub = g_ptr_array_index (node->items, 0);
      g_autoptr(NkProgramValue) v = NULL;
      gint64 index;

      if (node->items->len != 1 || sub->kind == NK_NODE_SLICE || sub->kind == NK_NODE_ELLIPSIS ||
          sub->kind == NK_NODE_NONE)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("a tuple takes one integer index"));
          return NULL;
        }
      v = _nk_eval_expr (ev, sub);
      if (v == NULL || !_nk_value_as_int (ev, sub, v, _("an index"), &index))
        return NULL;
      if (index < -(gint64) object->n_tuple || index >= (gint64) object->n_tuple)
        {
          _nk_eval_fail (ev, sub, NK_PROGRAM_ERROR_INDEX, _("tuple index %" PRId64 " out of range"),
                         index);
          return NULL;
        }
      return _nk_program_value_new_int (object->tuple[index < 0 ? index + object->n_tuple : index]);
    }
  _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s cannot be indexed"),
                 _nk_program_kind_name (object->kind));
  return NULL;
}

/**
 * _nk_eval_assign_index:
 * @ev: the evaluation
 * @target: the INDEX node assigned to
 * @value_node: the value
 *
 * x[...] = value: writes through the view into the shared storage.
 *
 * Returns: (transfer full) (nullable): the value of the name indexed, after the write
 */
NkProgramValue *
_nk_eval_assign_index (NkEval *ev,
                       NkNode *target,
                       NkNode *value_node)
{
  g_autoptr(NkProgramValue) value = _nk_eval_expr (ev, value_node);
  g_autoptr(NkProgramValue) view = NULL;
  NkNode *root = target;
  GError *error = NULL;
  gboolean ok;

  if (value == NULL)
    return NULL;
  view = _nk_eval_expr (ev, target);
  if (view == NULL)
    return NULL;
  if (view->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      _nk_eval_fail (ev, target, NK_PROGRAM_ERROR_TYPE, _("only elements of a tensor can be assigned to"));
      return NULL;
    }
  if (value->kind == NK_PROGRAM_VALUE_TENSOR)
    {
      gint64 shape[NK_MAX_DIMS];
      int ndim;

      /* copy_ broadcasts the source to the destination, never the other way. */
      if (!nk_broadcast_shapes (view->tensor->ndim, view->tensor->shape, value->tensor->ndim,
                                value->tensor->shape, &ndim, shape, &error))
        {
          _nk_eval_fail_with (ev, target, error);
          return NULL;
        }
      if (ndim != view->tensor->ndim ||
          memcmp (shape, view->tensor->shape, ndim * sizeof (gint64)) != 0)
        {
          g_autofree char *a = nk_format_shape (value->tensor->ndim, value->tensor->shape);
          g_autofree char *b = nk_format_shape (view->tensor->ndim, view->tensor->shape);

          _nk_eval_fail (ev, target, NK_PROGRAM_ERROR_SHAPE,
                         _("a tensor of shape %s cannot be assigned to a view of shape %s"), a, b);
          return NULL;
        }
      if (!_nk_eval_charge (ev, target, 2.0 * nk_tensor_numel (view->tensor)))
        return NULL;
      ok = nk_tensor_copy_ (view->tensor, value->tensor, &error);
    }
  else
    {
      double d;

      if (!_nk_value_as_number (ev, value_node, value, _("the assigned value"), &d))
        return NULL;
      if (!_nk_eval_charge (ev, target, (double) nk_tensor_numel (view->tensor)))
        return NULL;
      ok = nk_tensor_fill_ (view->tensor, d, &error);
    }
  if (!ok)
    {
      _nk_eval_fail_with (ev, target, error);
      return NULL;
    }
  while (root->kind == NK_NODE_INDEX)
    root = root->a;
  return _nk_eval_expr (ev, root);
}

