/* nk-program-methods.c: the tensor language's tensor methods (x.view(…), x.sum(…), …)
 * as a table of name, arity, keywords and handler
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each handler gets its arguments already counted against the entry (and its
 * keywords checked), and follows PyTorch's checks and messages.
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-ops.h"
#include "nk-program-private.h"

/* What view, reshape and expand do with the shape; the entry's data. */
enum {
  SHAPE_VIEW,
  SHAPE_RESHAPE,
  SHAPE_EXPAND,
};

/* x.view(3, 4), x.reshape(-1), x.expand(2, -1): sizes as varargs or one tuple */
static NkProgramValue *
method_shape (NkEval          *ev,
              NkNode          *call,
              NkArgs          *args,
              NkTensor        *x,
              const NkBuiltin *builtin)
{
  gint64 shape[NK_MAX_DIMS];
  GError *error = NULL;
  NkTensor *t;
  int ndim;

  if (!_nk_args_shape (ev, call, args, 0, &ndim, shape) ||
      !_nk_program_check_sizes (ev, call, ndim, shape,
                               builtin->data == SHAPE_EXPAND ? NK_SIZES_KEEP_EACH
                                                             : NK_SIZES_INFER_ONE))
    return NULL;
  switch (builtin->data)
    {
    case SHAPE_VIEW: t = nk_tensor_view (x, ndim, shape, &error); break;
    case SHAPE_RESHAPE: t = nk_tensor_reshape (x, ndim, shape, &error); break;
    case SHAPE_EXPAND: t = nk_tensor_expand (x, ndim, shape, &error); break;
    default: g_assert_not_reached ();
    }
  return _nk_eval_tensor_result (ev, call, t, &error);
}

static NkProgramValue *
method_transpose (NkEval          *ev,
                  NkNode          *call,
                  NkArgs          *args,
                  NkTensor        *x,
                  const NkBuiltin *builtin)
{
  GError *error = NULL;
  int d0, d1;

  if (!_nk_args_dim (ev, call, args, 0, x, 0, &d0) ||
      !_nk_args_dim (ev, call, args, 1, x, 0, &d1))
    return NULL;
  if (x->ndim == 0)
    return _nk_eval_tensor_result (ev, call, nk_tensor_alias (x), NULL);
  return _nk_eval_tensor_result (ev, call, nk_tensor_transpose (x, d0, d1, &error), &error);
}

static NkProgramValue *
method_t (NkEval          *ev,
          NkNode          *call,
          NkArgs          *args,
          NkTensor        *x,
          const NkBuiltin *builtin)
{
  GError *error = NULL;

  return _nk_eval_tensor_result (ev, call, nk_tensor_t (x, &error), &error);
}

static NkProgramValue *
method_permute (NkEval          *ev,
                NkNode          *call,
                NkArgs          *args,
                NkTensor        *x,
                const NkBuiltin *builtin)
{
  int dims[NK_MAX_DIMS];
  gint64 raw[NK_MAX_DIMS];
  GError *error = NULL;
  guint seen = 0;
  int n;

  if (!_nk_args_shape (ev, call, args, 0, &n, raw))
    return NULL;
  if (n != x->ndim)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_SHAPE,
                     _("permute(sparse_coo): number of dimensions in the tensor input does not "
                       "match the length of the desired ordering of dimensions i.e. input.dim() = %d "
                       "is not equal to len(dims) = %d"), x->ndim, n);
      return NULL;
    }
  for (int i = 0; i < n; i++)
    {
      if (!_nk_program_wrap_dim (ev, call, raw[i], x->ndim, &dims[i]))
        return NULL;
      if (seen & (1u << dims[i]))
        {
          _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_INDEX, _("permute(): duplicate dims are not allowed."));
          return NULL;
        }
      seen |= 1u << dims[i];
    }
  return _nk_eval_tensor_result (ev, call,
                                 n > 0 ? nk_tensor_permute (x, n, dims, &error) : nk_tensor_alias (x),
                                 &error);
}

/* contiguous() (data FALSE) and clone() (data TRUE) */
static NkProgramValue *
method_copy (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *x,
             const NkBuiltin *builtin)
{
  GError *error = NULL;
  NkTensor *t = builtin->data ? nk_tensor_clone (x, &error) : nk_tensor_contiguous (x, &error);

  return _nk_eval_tensor_result (ev, call, t, &error);
}

static NkProgramValue *
method_narrow (NkEval          *ev,
               NkNode          *call,
               NkArgs          *args,
               NkTensor        *x,
               const NkBuiltin *builtin)
{
  gint64 start, length;
  GError *error = NULL;
  int dim;

  if (!_nk_args_dim (ev, call, args, 0, x, 0, &dim) ||
      !_nk_args_int (ev, call, args, 1, _("the start"), &start) ||
      !_nk_args_int (ev, call, args, 2, _("the length"), &length))
    return NULL;
  if (x->ndim == 0)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_INDEX, _("narrow() cannot be applied to a 0-dim tensor."));
      return NULL;
    }
  return _nk_eval_tensor_result (ev, call, nk_tensor_narrow (x, dim, start, length, &error), &error);
}

static NkProgramValue *
method_select (NkEval          *ev,
               NkNode          *call,
               NkArgs          *args,
               NkTensor        *x,
               const NkBuiltin *builtin)
{
  GError *error = NULL;
  gint64 index;
  int dim;

  if (!_nk_args_dim (ev, call, args, 0, x, 0, &dim) ||
      !_nk_args_int (ev, call, args, 1, _("the index"), &index))
    return NULL;
  if (x->ndim == 0)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_INDEX, _("select() cannot be applied to a 0-dim tensor."));
      return NULL;
    }
  return _nk_eval_tensor_result (ev, call, nk_tensor_select (x, dim, index, &error), &error);
}

static NkProgramValue *
method_unsqueeze (NkEval          *ev,
                  NkNode          *call,
                  NkArgs          *args,
                  NkTensor        *x,
                  const NkBuiltin *builtin)
{
  GError *error = NULL;
  int dim;

  if (!_nk_args_dim (ev, call, args, 0, x, 1, &dim))
    return NULL;
  if (x->ndim >= NK_MAX_DIMS)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_SHAPE, _("tensors have at most %d dimensions"),
                     NK_MAX_DIMS);
      return NULL;
    }
  return _nk_eval_tensor_result (ev, call, nk_tensor_unsqueeze (x, dim, &error), &error);
}

static NkProgramValue *
method_squeeze (NkEval          *ev,
                NkNode          *call,
                NkArgs          *args,
                NkTensor        *x,
                const NkBuiltin *builtin)
{
  GError *error = NULL;
  int dim;

  if (args->pos->len == 0)
    return _nk_eval_tensor_result (ev, call, nk_tensor_squeeze_all (x), NULL);
  if (!_nk_args_dim (ev, call, args, 0, x, 0, &dim))
    return NULL;
  return _nk_eval_tensor_result (ev, call,
                                 x->ndim == 0 ? nk_tensor_alias (x) : nk_tensor_squeeze (x, dim, &error),
                                 &error);
}

static const char *const flatten_keywords[] = { "start_dim", "end_dim", NULL };

static NkProgramValue *
method_flatten (NkEval          *ev,
                NkNode          *call,
                NkArgs          *args,
                NkTensor        *x,
                const NkBuiltin *builtin)
{
  NkProgramValue *v;
  NkNode *n;
  gint64 s = 0, e = -1;
  int start, end;
  GError *error = NULL;

  if ((v = _nk_args_named (args, "start_dim", 0, &n, call)) != NULL &&
      !_nk_value_as_int (ev, n, v, _("start_dim"), &s))
    return NULL;
  if ((v = _nk_args_named (args, "end_dim", 1, &n, call)) != NULL &&
      !_nk_value_as_int (ev, n, v, _("end_dim"), &e))
    return NULL;
  if (!_nk_program_wrap_dim (ev, call, s, x->ndim, &start) || !_nk_program_wrap_dim (ev, call, e, x->ndim, &end))
    return NULL;
  if (start > end)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_INDEX,
                     _("flatten() has invalid args: start_dim cannot come after end_dim"));
      return NULL;
    }
  if (x->ndim == 0)
    {
      gint64 one = 1;

      return _nk_eval_tensor_result (ev, call, nk_tensor_reshape (x, 1, &one, &error), &error);
    }
  return _nk_eval_tensor_result (ev, call, nk_tensor_flatten (x, start, end, &error), &error);
}

static const char *const triangle_keywords[] = { "diagonal", NULL };

/* triu() (data TRUE) and tril() (data FALSE) */
static NkProgramValue *
method_triangle (NkEval          *ev,
                 NkNode          *call,
                 NkArgs          *args,
                 NkTensor        *x,
                 const NkBuiltin *builtin)
{
  NkProgramValue *v;
  NkNode *n;
  gint64 diagonal = 0;
  GError *error = NULL;

  if ((v = _nk_args_named (args, "diagonal", 0, &n, call)) != NULL &&
      !_nk_value_as_int (ev, n, v, _("diagonal"), &diagonal))
    return NULL;
  if (x->ndim < 2)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_SHAPE,
                     _("%s: input tensor must have at least 2 dimensions"), builtin->name);
      return NULL;
    }
  return _nk_eval_tensor_result (ev, call,
                                 builtin->data ? nk_triu (x, diagonal, &error)
                                               : nk_tril (x, diagonal, &error),
                                 &error);
}

static const char *const reduce_keywords[] = { "dim", "keepdim", NULL };

/* The dims and keepdim of sum() and mean(). */
static gboolean
reduce_args (NkEval   *ev,
             NkNode   *call,
             NkArgs   *args,
             NkTensor *x,
             int      *n,
             int      *dims,
             gboolean *keepdim)
{
  NkNode *dim_node, *keep_node;
  NkProgramValue *dim_value = _nk_args_named (args, "dim", 0, &dim_node, call);
  NkProgramValue *keep_value = _nk_args_named (args, "keepdim", 1, &keep_node, call);

  *n = 0;
  *keepdim = FALSE;
  if (dim_value != NULL && dim_value->kind != NK_PROGRAM_VALUE_NONE &&
      !_nk_value_as_dims (ev, dim_node, dim_value, x, n, dims))
    return FALSE;
  if (keep_value != NULL)
    {
      if (keep_value->kind != NK_PROGRAM_VALUE_BOOL)
        {
          _nk_eval_fail (ev, keep_node, NK_PROGRAM_ERROR_TYPE, _("keepdim must be True or False"));
          return FALSE;
        }
      *keepdim = keep_value->i != 0;
    }
  for (int i = 0; i < *n; i++)
    for (int j = 0; j < i; j++)
      if (dims[i] == dims[j])
        {
          _nk_eval_fail (ev, dim_node, NK_PROGRAM_ERROR_INDEX,
                         _("dim %d appears multiple times in the list of dims"), dims[i]);
          return FALSE;
        }
  return TRUE;
}

/* sum() and mean(); the entry's data is the NkReduceOp */
static NkProgramValue *
method_reduce (NkEval          *ev,
               NkNode          *call,
               NkArgs          *args,
               NkTensor        *x,
               const NkBuiltin *builtin)
{
  int dims[NK_MAX_DIMS];
  gboolean keepdim;
  GError *error = NULL;
  int n;

  if (!reduce_args (ev, call, args, x, &n, dims, &keepdim))
    return NULL;
  if (x->ndim == 0)
    n = 0;
  /* A reduction reads every element, however few it writes. */
  if (!_nk_eval_charge (ev, call, (double) nk_tensor_numel (x)))
    return NULL;
  return _nk_eval_tensor_result (ev, call, nk_reduce (builtin->data, x, n, dims, keepdim, &error),
                                 &error);
}

static NkProgramValue *
method_is_contiguous (NkEval          *ev,
                      NkNode          *call,
                      NkArgs          *args,
                      NkTensor        *x,
                      const NkBuiltin *builtin)
{
  return _nk_program_value_new_bool (nk_tensor_is_contiguous (x));
}

/* stride() (data TRUE) and size() (data FALSE): a tuple, or one dim's */
static NkProgramValue *
method_layout (NkEval          *ev,
               NkNode          *call,
               NkArgs          *args,
               NkTensor        *x,
               const NkBuiltin *builtin)
{
  const gint64 *items = builtin->data ? x->stride : x->shape;
  int dim;

  if (args->pos->len == 0)
    return _nk_program_value_new_tuple (x->ndim, items);
  if (x->ndim == 0)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_INDEX,
                     _("Dimension specified as 0 but tensor has no dimensions"));
      return NULL;
    }
  if (!_nk_args_dim (ev, call, args, 0, x, 0, &dim))
    return NULL;
  return _nk_program_value_new_int (items[dim]);
}

static NkProgramValue *
method_storage_offset (NkEval          *ev,
                       NkNode          *call,
                       NkArgs          *args,
                       NkTensor        *x,
                       const NkBuiltin *builtin)
{
  return _nk_program_value_new_int (x->offset);
}

static NkProgramValue *
method_numel (NkEval          *ev,
              NkNode          *call,
              NkArgs          *args,
              NkTensor        *x,
              const NkBuiltin *builtin)
{
  return _nk_program_value_new_int (nk_tensor_numel (x));
}

static NkProgramValue *
method_dim (NkEval          *ev,
            NkNode          *call,
            NkArgs          *args,
            NkTensor        *x,
            const NkBuiltin *builtin)
{
  return _nk_program_value_new_int (x->ndim);
}

static NkProgramValue *
method_item (NkEval          *ev,
             NkNode          *call,
             NkArgs          *args,
             NkTensor        *x,
             const NkBuiltin *builtin)
{
  GError *error = NULL;
  double d;

  if (!nk_tensor_item (x, &d, &error))
    {
      _nk_eval_fail_with (ev, call, error);
      return NULL;
    }
  return _nk_program_value_new_float (d);
}

#define ANY G_MAXUINT

/* Sorted by name (strcmp) for bsearch(); the tests check the order. */
static const NkBuiltin methods[] = {
  { "clone", 0, 0, NULL, 0, TRUE, method_copy },
  { "contiguous", 0, 0, NULL, 0, FALSE, method_copy },
  { "dim", 0, 0, NULL, 0, 0, method_dim },
  { "expand", 1, ANY, NULL, 0, SHAPE_EXPAND, method_shape },
  { "flatten", 0, 2, flatten_keywords, 0, 0, method_flatten },
  { "is_contiguous", 0, 0, NULL, 0, 0, method_is_contiguous },
  { "item", 0, 0, NULL, 0, 0, method_item },
  { "mean", 0, 2, reduce_keywords, 0, NK_REDUCE_MEAN, method_reduce },
  { "narrow", 3, 3, NULL, 0, 0, method_narrow },
  { "numel", 0, 0, NULL, 0, 0, method_numel },
  { "permute", 1, ANY, NULL, 0, 0, method_permute },
  { "reshape", 1, ANY, NULL, 0, SHAPE_RESHAPE, method_shape },
  { "select", 2, 2, NULL, 0, 0, method_select },
  { "size", 0, 1, NULL, 0, FALSE, method_layout },
  { "squeeze", 0, 1, NULL, 0, 0, method_squeeze },
  { "storage_offset", 0, 0, NULL, 0, 0, method_storage_offset },
  { "stride", 0, 1, NULL, 0, TRUE, method_layout },
  { "sum", 0, 2, reduce_keywords, 0, NK_REDUCE_SUM, method_reduce },
  { "t", 0, 0, NULL, 0, 0, method_t },
  { "transpose", 2, 2, NULL, 0, 0, method_transpose },
  { "tril", 0, 1, triangle_keywords, 0, FALSE, method_triangle },
  { "triu", 0, 1, triangle_keywords, 0, TRUE, method_triangle },
  { "unsqueeze", 1, 1, NULL, 0, 0, method_unsqueeze },
  { "view", 1, ANY, NULL, 0, SHAPE_VIEW, method_shape },
};

/**
 * _nk_program_methods:
 * @n: (out): the number of entries
 *
 * Returns: (array length=n): the table of tensor methods, sorted by name
 */
const NkBuiltin *
_nk_program_methods (guint *n)
{
  *n = G_N_ELEMENTS (methods);
  return methods;
}

/**
 * _nk_eval_method:
 * @ev: the evaluation
 * @call: a METHOD node
 * @object: the value of @call->a
 *
 * Returns: (transfer full) (nullable): the method's value
 */
NkProgramValue *
_nk_eval_method (NkEval         *ev,
                 NkNode         *call,
                 NkProgramValue *object)
{
  g_auto(NkArgs) args = { 0 };
  const NkBuiltin *method;

  if (!_nk_args_eval (ev, call, &args))
    return NULL;
  if (object->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE, _("%s() is a method of tensors, but this is %s"),
                     call->text, _nk_program_kind_name (object->kind));
      return NULL;
    }
  method = _nk_program_find_builtin (methods, G_N_ELEMENTS (methods), call->text);
  if (method == NULL)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_NAME, _("tensors have no method “%s”"), call->text);
      return NULL;
    }
  return _nk_program_call_builtin (ev, call, method, &args, object->tensor);
}
