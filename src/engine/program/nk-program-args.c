/* nk-program-args.c: the arguments of the tensor language's builtins, and the
 * conversions of values to the sizes, dims and numbers the tensor core takes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-program-private.h"

void
_nk_args_clear (NkArgs *args)
{
  g_clear_pointer (&args->pos, g_ptr_array_unref);
  g_clear_pointer (&args->pos_nodes, g_ptr_array_unref);
  g_clear_pointer (&args->kw_names, g_ptr_array_unref);
  g_clear_pointer (&args->kw_values, g_ptr_array_unref);
  g_clear_pointer (&args->kw_nodes, g_ptr_array_unref);
}

/* The product of sizes, refusing negative sizes and anything beyond the cap before
 * the tensor core multiplies them. -1 is allowed as @minus_one says; the tensor core
 * resolves it (and the result's size is checked against the cap there). */
gboolean
_nk_program_check_sizes (NkEval          *ev,
                         NkNode          *node,
                         int              n,
                         const gint64    *sizes,
                         NkSizesMinusOne  minus_one)
{
  gint64 product = 1;
  int inferred = 0;

  for (int i = 0; i < n; i++)
    {
      if (sizes[i] == -1 && minus_one != NK_SIZES_NO_MINUS_ONE)
        {
          /* expand's -1 keeps a size, as often as it is given (PyTorch's
           * x.expand(2, -1, -1)); only view and reshape infer one. */
          if (minus_one == NK_SIZES_INFER_ONE && ++inferred > 1)
            {
              _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE, _("only one dimension can be inferred"));
              return FALSE;
            }
          continue;
        }
      /* expand's other negative sizes are the tensor core's to refuse, in
       * PyTorch's words ("must match the existing size"). */
      if (sizes[i] < 0 && minus_one == NK_SIZES_KEEP_EACH)
        continue;
      if (sizes[i] < 0)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
                         _("invalid shape dimension %" PRId64), sizes[i]);
          return FALSE;
        }
      if (sizes[i] > NK_PROGRAM_MAX_NUMEL)
        goto too_large;
      if (sizes[i] > 0)
        {
          product *= sizes[i];
          if (product > NK_PROGRAM_MAX_NUMEL)
            goto too_large;
        }
    }
  return TRUE;

too_large:
  {
    g_autofree char *shape = nk_format_shape (n, sizes);

    _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
                   _("the shape %s has more than the %" PRId64 " elements a program may make"),
                   shape, NK_PROGRAM_MAX_NUMEL);
    return FALSE;
  }
}

gboolean
_nk_value_as_int (NkEval         *ev,
                  NkNode         *node,
                  NkProgramValue *value,
                  const char     *what,
                  gint64         *out)
{
  if (value->kind == NK_PROGRAM_VALUE_INT || value->kind == NK_PROGRAM_VALUE_BOOL)
    {
      *out = value->i;
      return TRUE;
    }
  if (value->kind == NK_PROGRAM_VALUE_FLOAT && value->d == floor (value->d) &&
      fabs (value->d) <= NK_PROGRAM_MAX_INT)
    {
      *out = (gint64) value->d;
      return TRUE;
    }
  /* A whole number past 2^53 (an integer literal too long to stay exact) is not
   * "not an integer": say what the limit is, and print the number whole. */
  if (value->kind == NK_PROGRAM_VALUE_FLOAT && value->d == floor (value->d))
    _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE,
                   _("%s must be an integer from -2^53 to 2^53 (%" PRId64 "), not %.*g"),
                   what, NK_PROGRAM_MAX_INT, fabs (value->d) < 1e21 ? 21 : 6, value->d);
  else if (value->kind == NK_PROGRAM_VALUE_FLOAT)
    _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s must be an integer, not %g"), what, value->d);
  else
    _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s must be an integer, not %s"), what,
                   _nk_program_kind_name (value->kind));
  return FALSE;
}

gboolean
_nk_value_as_number (NkEval         *ev,
                     NkNode         *node,
                     NkProgramValue *value,
                     const char     *what,
                     double         *out)
{
  if (value->kind == NK_PROGRAM_VALUE_INT || value->kind == NK_PROGRAM_VALUE_BOOL ||
      value->kind == NK_PROGRAM_VALUE_FLOAT)
    {
      *out = value->d;
      return TRUE;
    }
  _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s must be a number, not %s"), what,
                 _nk_program_kind_name (value->kind));
  return FALSE;
}

/* PyTorch's dim wrapping: -ndim ≤ dim < ndim (ndim of at least 1 for 0-D). */
gboolean
_nk_program_wrap_dim (NkEval *ev,
                      NkNode *node,
                      gint64  dim,
                      int     ndim,
                      int    *out)
{
  int n = MAX (ndim, 1);

  if (dim < -n || dim >= n)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_INDEX,
                     _("Dimension out of range (expected to be in range of [%d, %d], but got %"
                       PRId64 ")"), -n, n - 1, dim);
      return FALSE;
    }
  *out = (int) (dim < 0 ? dim + n : dim);
  return TRUE;
}

gboolean
_nk_args_eval (NkEval    *ev,
               NkNode    *call,
               NkArgs    *args)
{
  args->pos = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_program_value_unref);
  args->pos_nodes = g_ptr_array_new ();
  args->kw_names = g_ptr_array_new ();
  args->kw_values = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_program_value_unref);
  args->kw_nodes = g_ptr_array_new ();

  for (guint i = 0; i < call->items->len; i++)
    {
      NkNode *arg = g_ptr_array_index (call->items, i);
      NkProgramValue *value;

      if (arg->kind == NK_NODE_KWARG)
        {
          for (guint j = 0; j < args->kw_names->len; j++)
            if (g_str_equal (g_ptr_array_index (args->kw_names, j), arg->text))
              {
                _nk_eval_fail (ev, arg, NK_PROGRAM_ERROR_TYPE,
                               _("the keyword argument “%s” is given twice"), arg->text);
                return FALSE;
              }
          value = _nk_eval_expr (ev, arg->a);
          if (value == NULL)
            return FALSE;
          g_ptr_array_add (args->kw_names, arg->text);
          g_ptr_array_add (args->kw_values, value);
          g_ptr_array_add (args->kw_nodes, arg);
        }
      else
        {
          value = _nk_eval_expr (ev, arg);
          if (value == NULL)
            return FALSE;
          g_ptr_array_add (args->pos, value);
          g_ptr_array_add (args->pos_nodes, arg);
        }
    }
  return TRUE;
}

NkProgramValue *
_nk_args_pos (NkArgs *args,
              guint i)
{
  return i < args->pos->len ? g_ptr_array_index (args->pos, i) : NULL;
}

NkNode *
_nk_args_node (NkArgs *args,
               guint   i,
               NkNode *call)
{
  return i < args->pos_nodes->len ? g_ptr_array_index (args->pos_nodes, i) : call;
}

/* A keyword argument, or the positional one at @i when @i >= 0. */
NkProgramValue *
_nk_args_named (NkArgs     *args,
                const char *name,
                int         i,
                NkNode    **node,
                NkNode     *call)
{
  for (guint j = 0; j < args->kw_names->len; j++)
    if (g_str_equal (g_ptr_array_index (args->kw_names, j), name))
      {
        *node = g_ptr_array_index (args->kw_nodes, j);
        return g_ptr_array_index (args->kw_values, j);
      }
  *node = i >= 0 ? _nk_args_node (args, i, call) : call;
  return i >= 0 ? _nk_args_pos (args, i) : NULL;
}

/* Positional count in [min, max]; no keywords beyond @keywords. */
gboolean
_nk_args_check (NkEval            *ev,
                NkNode            *call,
                NkArgs            *args,
                guint              min,
                guint              max,
                const char *const *keywords)
{
  if (args->pos->len < min || args->pos->len > max)
    {
      if (min == max)
        _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE,
                       g_dngettext (GETTEXT_PACKAGE, "%s() takes %u argument but %u were given",
                                    "%s() takes %u arguments but %u were given", min),
                       call->text, min, args->pos->len);
      else if (max == G_MAXUINT)
        _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE,
                       _("%s() takes at least %u arguments but %u were given"),
                       call->text, min, args->pos->len);
      else
        _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_TYPE,
                       _("%s() takes from %u to %u arguments but %u were given"),
                       call->text, min, max, args->pos->len);
      return FALSE;
    }
  for (guint j = 0; j < args->kw_names->len; j++)
    {
      const char *name = g_ptr_array_index (args->kw_names, j);

      if (keywords == NULL || !g_strv_contains (keywords, name))
        {
          _nk_eval_fail (ev, g_ptr_array_index (args->kw_nodes, j), NK_PROGRAM_ERROR_NAME,
                         _("%s() has no argument called “%s”"), call->text, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* Sizes given as varargs ints (view(3, 4)) or one tuple (view((3, 4)), view(x.shape)),
 * starting at positional @first. */
gboolean
_nk_args_shape (NkEval  *ev,
                NkNode  *call,
                NkArgs  *args,
                guint    first,
                int     *ndim,
                gint64  *shape)
{
  NkProgramValue *only = _nk_args_pos (args, first);

  if (args->pos->len == first + 1 && only->kind == NK_PROGRAM_VALUE_TUPLE)
    {
      if (only->n_tuple > NK_MAX_DIMS)
        {
          _nk_eval_fail (ev, _nk_args_node (args, first, call), NK_PROGRAM_ERROR_SHAPE,
                         _("tensors have at most %d dimensions, not %u"), NK_MAX_DIMS, only->n_tuple);
          return FALSE;
        }
      *ndim = only->n_tuple;
      memcpy (shape, only->tuple, only->n_tuple * sizeof (gint64));
      return TRUE;
    }
  if (args->pos->len - first > NK_MAX_DIMS)
    {
      _nk_eval_fail (ev, call, NK_PROGRAM_ERROR_SHAPE,
                     _("tensors have at most %d dimensions, not %u"), NK_MAX_DIMS, args->pos->len - first);
      return FALSE;
    }
  *ndim = args->pos->len - first;
  for (guint i = first; i < args->pos->len; i++)
    if (!_nk_value_as_int (ev, _nk_args_node (args, i, call), _nk_args_pos (args, i), _("a size"), &shape[i - first]))
      return FALSE;
  return TRUE;
}

/* Dims given as varargs or one tuple (permute(1, 0), sum((0, 1))). */
gboolean
_nk_value_as_dims (NkEval         *ev,
                   NkNode         *node,
                   NkProgramValue *value,
                   NkTensor       *t,
                   int            *n,
                   int            *dims)
{
  if (value->kind == NK_PROGRAM_VALUE_TUPLE)
    {
      if (value->n_tuple > NK_MAX_DIMS)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_INDEX, _("too many dimensions (%u)"), value->n_tuple);
          return FALSE;
        }
      *n = value->n_tuple;
      for (guint i = 0; i < value->n_tuple; i++)
        if (!_nk_program_wrap_dim (ev, node, value->tuple[i], t->ndim, &dims[i]))
          return FALSE;
      return TRUE;
    }
  {
    gint64 d;

    *n = 1;
    return _nk_value_as_int (ev, node, value, _("a dimension"), &d) &&
           _nk_program_wrap_dim (ev, node, d, t->ndim, &dims[0]);
  }
}


NkTensor *
_nk_args_tensor (NkEval *ev,
                 NkNode *call,
                 NkArgs *args,
                 guint   i)
{
  NkProgramValue *v = _nk_args_pos (args, i);

  if (v->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      _nk_eval_fail (ev, _nk_args_node (args, i, call), NK_PROGRAM_ERROR_TYPE,
                     _("%s() needs a tensor here, not %s"), call->text, _nk_program_kind_name (v->kind));
      return NULL;
    }
  return v->tensor;
}

const char *
_nk_args_string (NkEval *ev,
                 NkNode *call,
                 NkArgs *args,
                 guint   i)
{
  NkProgramValue *v = _nk_args_pos (args, i);

  if (v->kind != NK_PROGRAM_VALUE_STRING)
    {
      _nk_eval_fail (ev, _nk_args_node (args, i, call), NK_PROGRAM_ERROR_TYPE,
                     _("%s() needs a string here, not %s"), call->text, _nk_program_kind_name (v->kind));
      return NULL;
    }
  return v->string;
}


gboolean
_nk_args_int (NkEval     *ev,
              NkNode     *call,
              NkArgs     *args,
              guint       i,
              const char *what,
              gint64     *out)
{
  return _nk_value_as_int (ev, _nk_args_node (args, i, call), _nk_args_pos (args, i), what, out);
}

gboolean
_nk_args_dim (NkEval   *ev,
              NkNode   *call,
              NkArgs   *args,
              guint     i,
              NkTensor *x,
              int       extra,
              int      *out)
{
  gint64 d;

  return _nk_args_int (ev, call, args, i, _("a dimension"), &d) &&
         _nk_program_wrap_dim (ev, _nk_args_node (args, i, call), d, x->ndim + extra, out);
}

