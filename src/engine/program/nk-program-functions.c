/* nk-program-functions.c: the tensor language's functions (arange, zeros, ones,
 * tensor, rearrange, reduce, einsum, same_storage) as a table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-einops.h"
#include "nk-ops.h"
#include "nk-program-private.h"

/* ---- tensor([[...]]) ---- */

static gboolean
literal_shape (NkEval *ev,
               NkNode *node,
               int     depth,
               int    *ndim,
               gint64 *shape)
{
  if (node->kind != NK_NODE_LIST && node->kind != NK_NODE_TUPLE)
    {
      if (*ndim < 0)
        *ndim = depth;
      else if (*ndim != depth)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
                         _("the nested lists have different depths"));
          return FALSE;
        }
      return TRUE;
    }
  if (depth >= NK_MAX_DIMS)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
                     _("tensors have at most %d dimensions"), NK_MAX_DIMS);
      return FALSE;
    }
  if (*ndim >= 0 && depth >= *ndim)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE, _("the nested lists have different depths"));
      return FALSE;
    }
  if (shape[depth] < 0)
    shape[depth] = node->items->len;
  else if (shape[depth] != (gint64) node->items->len)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
                     _("expected a sequence of length %" PRId64 " at dim %d (got %u)"),
                     shape[depth], depth, node->items->len);
      return FALSE;
    }
  if (node->items->len == 0)
    {
      if (*ndim < 0)
        *ndim = depth + 1;
      else if (*ndim != depth + 1)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE, _("the nested lists have different depths"));
          return FALSE;
        }
    }
  for (guint i = 0; i < node->items->len; i++)
    if (!literal_shape (ev, g_ptr_array_index (node->items, i), depth + 1, ndim, shape))
      return FALSE;
  return TRUE;
}

static gboolean
literal_values (NkEval *ev,
                NkNode *node,
                GArray *values)
{
  if (node->kind == NK_NODE_LIST || node->kind == NK_NODE_TUPLE)
    {
      for (guint i = 0; i < node->items->len; i++)
        if (!literal_values (ev, g_ptr_array_index (node->items, i), values))
          return FALSE;
      return TRUE;
    }
  {
    g_autoptr(NkProgramValue) v = _nk_eval_expr (ev, node);
    double d;

    if (v == NULL || !_nk_value_as_number (ev, node, v, _("an element of tensor()"), &d))
      return FALSE;
    g_array_append_val (values, d);
    return TRUE;
  }
}

/* tensor([[...]]) reads its nested list itself: lists are not values of the language. */
static NkProgramValue *
call_tensor (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *x,
             const NkBuiltin *builtin)
{
  NkNode *data;
  gint64 shape[NK_MAX_DIMS];
  int ndim = -1;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  GError *error = NULL;
  NkTensor *t;

  if (call->items->len != 1 || ((NkNode *) g_ptr_array_index (call->items, 0))->kind == NK_NODE_KWARG)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE,
                     _("tensor() takes one argument: a number or a nested list of numbers"));
      return NULL;
    }
  data = g_ptr_array_index (call->items, 0);
  for (int i = 0; i < NK_MAX_DIMS; i++)
    shape[i] = -1;
  if (!literal_shape (ev, data, 0, &ndim, shape))
    return NULL;
  if (!literal_values (ev, data, values))
    return NULL;
  t = nk_tensor_new_from_doubles (ev->self->dtype, ndim, shape, (double *) values->data, &error);
  return _nk_eval_tensor_result (ev, call, t, &error);
}

/* ---- constructors ---- */

/* PyTorch's checks, in its order: a zero step, non-finite bounds, and bounds that
 * the step walks away from (arange(-1), arange(3, 1), arange(1, 3, -1)). */
static gboolean
check_range (NkEval *ev,
             NkNode *call,
             double  start,
             double  end,
             double  step)
{
  if (step == 0)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE, _("step must be nonzero"));
      return FALSE;
    }
  if (!isfinite (start) || !isfinite (end) || !isfinite (ceil ((end - start) / step)))
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE, _("arange() needs finite bounds"));
      return FALSE;
    }
  if (!((step > 0 && end >= start) || (step < 0 && end <= start)))
    {
      char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];

      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE,
                     _("upper bound and larger bound inconsistent with step sign (arange "
                       "from %s to %s in steps of %s)"),
                     g_ascii_formatd (a, sizeof a, "%g", start), g_ascii_formatd (b, sizeof b, "%g", end),
                     g_ascii_formatd (c, sizeof c, "%g", step));
      return FALSE;
    }
  return TRUE;
}

/* arange(end), arange(start, end), arange(start, end, step) */
static NkProgramValue *
call_arange (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *unused,
             const NkBuiltin *builtin)
{
  static const char *const what[3] = { N_("the start"), N_("the end"), N_("the step") };
  double bounds[3] = { 0, 0, 1 };
  g_autofree double *values = NULL;
  GError *error = NULL;
  double count;
  NkTensor *t;
  gint64 n;

  for (guint i = 0; i < args->pos->len; i++)
    {
      guint slot = args->pos->len == 1 ? 1 : i;

      if (!_nk_value_as_number (ev, _nk_args_node (args, i, call), _nk_args_pos (args, i),
                                _(what[slot]), &bounds[slot]))
        return NULL;
    }
  if (!check_range (ev, call, bounds[0], bounds[1], bounds[2]))
    return NULL;
  count = ceil ((bounds[1] - bounds[0]) / bounds[2]);
  if (count > NK_PROGRAM_MAX_NUMEL)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_LIMIT,
                     _("arange() would make %.0f elements, more than the %" PRId64
                       " a program may make"), count, NK_PROGRAM_MAX_NUMEL);
      return NULL;
    }
  n = count > 0 ? (gint64) count : 0;
  values = g_new (double, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = bounds[0] + (double) i * bounds[2];
  t = nk_tensor_new_from_doubles (ev->self->dtype, 1, &n, values, &error);
  return _nk_eval_tensor_result (ev, call, t, &error);
}

/* zeros(…) and ones(…): the fill value is the entry's data */
static NkProgramValue *
call_filled (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *unused,
             const NkBuiltin *builtin)
{
  gint64 shape[NK_MAX_DIMS];
  int ndim;
  GError *error = NULL;
  NkTensor *t;

  if (!_nk_args_shape (ev, call, args, 0, &ndim, shape) ||
      !_nk_program_check_sizes (ev, call, ndim, shape, NK_SIZES_NO_MINUS_ONE))
    return NULL;
  t = nk_tensor_full (ev->self->dtype, ndim, shape, builtin->data, &error);
  return _nk_eval_tensor_result (ev, call, t, &error);
}

/* ---- einops ---- */

/* rearrange(x, "pattern", a=2) and reduce(x, "pattern", "sum", a=2) */
static NkProgramValue *
call_einops (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *unused,
             const NkBuiltin *builtin)
{
  gboolean reduce = builtin->data;
  guint n_fixed = reduce ? 3 : 2;
  NkTensor *x;
  const char *pattern;
  NkEinopsReduction reduction = NK_EINOPS_SUM;
  g_autofree gint64 *sizes = NULL;
  GError *error = NULL;
  NkTensor *t;

  if (args->pos->len != n_fixed)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE,
                     reduce ? _("reduce() takes a tensor, a pattern and a reduction (\"sum\", \"mean\", "
                                "\"max\" or \"min\"), then sizes as name=value")
                            : _("rearrange() takes a tensor and a pattern, then sizes as name=value"));
      return NULL;
    }
  if ((x = _nk_args_tensor (ev, call, args, 0)) == NULL ||
      (pattern = _nk_args_string (ev, call, args, 1)) == NULL)
    return NULL;
  if (reduce)
    {
      const char *name = _nk_args_string (ev, call, args, 2);

      if (name == NULL)
        return NULL;
      if (!nk_einops_reduction_from_name (name, &reduction, &error))
        {
          _nk_eval_fail_with (ev, _nk_args_node (args, 2, call), error);
          return NULL;
        }
    }
  if (reduce && !_nk_eval_charge (ev, call, (double) nk_tensor_numel (x)))
    return NULL;
  sizes = g_new0 (gint64, args->kw_names->len + 1);
  for (guint i = 0; i < args->kw_names->len; i++)
    if (!_nk_value_as_int (ev, g_ptr_array_index (args->kw_nodes, i), g_ptr_array_index (args->kw_values, i),
                           _("an axis size"), &sizes[i]))
      return NULL;
  if (reduce)
    t = nk_einops_reduce (x, pattern, reduction, args->kw_names->len,
                          (const char *const *) args->kw_names->pdata, sizes, &error);
  else
    t = nk_einops_rearrange (x, pattern, args->kw_names->len,
                             (const char *const *) args->kw_names->pdata, sizes, &error);
  return _nk_eval_tensor_result (ev, call, t, &error);
}

/* einsum(x, y, "b s h, b t h -> b s t") */
static NkProgramValue *
call_einsum (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *unused,
             const NkBuiltin *builtin)
{
  g_autofree NkTensor **operands = NULL;
  const char *pattern;
  GError *error = NULL;
  double read = 0;
  NkTensor *t;
  guint n;

  n = args->pos->len - 1;
  operands = g_new0 (NkTensor *, n);
  for (guint i = 0; i < n; i++)
    {
      if ((operands[i] = _nk_args_tensor (ev, call, args, i)) == NULL)
        return NULL;
      read += (double) nk_tensor_numel (operands[i]);
    }
  if ((pattern = _nk_args_string (ev, call, args, n)) == NULL ||
      !_nk_eval_charge (ev, call, read))
    return NULL;
  t = nk_einops_einsum (n, operands, pattern, NK_PROGRAM_MAX_NUMEL, &error);
  return _nk_eval_tensor_result (ev, call, t, &error);
}

static NkProgramValue *
call_same_storage (NkEval          *ev,
                   NkNode          *call,
                   NkArgs          *args,
                   NkTensor        *unused,
                   const NkBuiltin *builtin)
{
  NkTensor *a, *b;

  if ((a = _nk_args_tensor (ev, call, args, 0)) == NULL ||
      (b = _nk_args_tensor (ev, call, args, 1)) == NULL)
    return NULL;
  return _nk_program_value_new_bool (nk_tensor_same_storage (a, b));
}

/* ---- the table ---- */

#define ANY G_MAXUINT

/* Sorted by name (strcmp) for bsearch(); the tests check the order. */
static const NkBuiltin functions[] = {
  { "arange", 1, 3, NULL, NK_BUILTIN_CONSTRUCTOR, 0, call_arange },
  { "einsum", 2, ANY, NULL, 0, 0, call_einsum },
  { "ones", 0, ANY, NULL, NK_BUILTIN_CONSTRUCTOR, 1, call_filled },
  { "rearrange", 0, ANY, NULL, NK_BUILTIN_OWN_ARITY, FALSE, call_einops },
  { "reduce", 0, ANY, NULL, NK_BUILTIN_OWN_ARITY, TRUE, call_einops },
  { "same_storage", 2, 2, NULL, 0, 0, call_same_storage },
  { "tensor", 1, 1, NULL, NK_BUILTIN_RAW_ARGS | NK_BUILTIN_CONSTRUCTOR, 0, call_tensor },
  { "zeros", 0, ANY, NULL, NK_BUILTIN_CONSTRUCTOR, 0, call_filled },
};

/**
 * _nk_program_functions:
 * @n: (out): the number of entries
 *
 * Returns: (array length=n): the table of functions, sorted by name
 */
const NkBuiltin *
_nk_program_functions (guint *n)
{
  *n = G_N_ELEMENTS (functions);
  return functions;
}

static int
compare_name (const void *key,
              const void *entry)
{
  return strcmp (key, ((const NkBuiltin *) entry)->name);
}

/**
 * _nk_program_find_builtin:
 * @table: a table sorted by name
 * @n: its length
 * @name: the name called
 *
 * Returns: (nullable): the entry, or %NULL when there is none of that name
 */
const NkBuiltin *
_nk_program_find_builtin (const NkBuiltin *table,
                          guint            n,
                          const char      *name)
{
  return bsearch (name, table, n, sizeof *table, compare_name);
}

/**
 * _nk_program_call_builtin:
 * @ev: the evaluation
 * @call: the CALL or METHOD node
 * @builtin: its table entry
 * @args: its evaluated arguments
 * @x: (nullable): the tensor of a method
 *
 * Checks the argument count and keywords of the entry, then calls it.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL with the failure in @ev
 */
NkProgramValue *
_nk_program_call_builtin (NkEval          *ev,
                          NkNode          *call,
                          const NkBuiltin *builtin,
                          NkArgs          *args,
                          NkTensor        *x)
{
  if (!(builtin->flags & NK_BUILTIN_OWN_ARITY) &&
      !_nk_args_check (ev, call, args, builtin->min_args, builtin->max_args, builtin->keywords))
    return NULL;
  return builtin->func (ev, call, args, x, builtin);
}

/**
 * _nk_eval_call:
 * @ev: the evaluation
 * @call: a CALL node
 *
 * Returns: (transfer full) (nullable): the function's value
 */
NkProgramValue *
_nk_eval_call (NkEval *ev,
               NkNode *call)
{
  const NkBuiltin *fn = _nk_program_find_builtin (functions, G_N_ELEMENTS (functions), call->text);
  g_auto(NkArgs) args = { 0 };

  if (fn != NULL && (fn->flags & NK_BUILTIN_RAW_ARGS))
    return fn->func (ev, call, NULL, NULL, fn);
  /* The arguments first, as Python does: f(undefined) names the argument. */
  if (!_nk_args_eval (ev, call, &args))
    return NULL;
  if (fn == NULL)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_NAME,
                     _("“%s” is not a function (there are arange, zeros, ones, tensor, rearrange, "
                       "reduce, einsum and same_storage)"), call->text);
      return NULL;
    }
  return _nk_program_call_builtin (ev, call, fn, &args, NULL);
}

/**
 * _nk_program_is_constructor:
 * @node: a node
 *
 * Constructors make new storage from nothing: that is no copy.
 *
 * Returns: whether @node calls one
 */
gboolean
_nk_program_is_constructor (NkNode *node)
{
  const NkBuiltin *fn;

  if (node->kind != NK_NODE_CALL)
    return FALSE;
  fn = _nk_program_find_builtin (functions, G_N_ELEMENTS (functions), node->text);
  return fn != NULL && (fn->flags & NK_BUILTIN_CONSTRUCTOR);
}
