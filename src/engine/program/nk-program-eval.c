/* nk-program-eval.c: the tensor language's evaluator: expressions, operators, statements
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-einops.h"
#include "nk-ops.h"
#include "nk-program-private.h"

/**
 * _nk_eval_fail:
 * @ev: the evaluation
 * @node: where the failure is, for its column
 * @code: an #NkProgramError
 * @format: the reason, one sentence without a capital or a full stop
 *
 * Records the failure of the statement; only the first one counts.
 */
void
_nk_eval_fail (NkEval     *ev,
               NkNode     *node,
               int         code,
               const char *format,
               ...)
{
  va_list args;

  if (ev->error != NULL)
    return;
  va_start (args, format);
  ev->error = g_error_new_valist (NK_PROGRAM_ERROR, code, format, args);
  va_end (args);
  ev->error_pos = node->pos;
}

/* Takes @error (from the tensor core or einops) into the program's domain. */
void
_nk_eval_fail_with (NkEval *ev,
                    NkNode *node,
                    GError *error)
{
  int code = NK_PROGRAM_ERROR_TYPE;

  if (error->domain == NK_TENSOR_ERROR)
    switch (error->code)
      {
      case NK_TENSOR_ERROR_SHAPE:
      case NK_TENSOR_ERROR_STRIDE: code = NK_PROGRAM_ERROR_SHAPE; break;
      case NK_TENSOR_ERROR_INDEX: code = NK_PROGRAM_ERROR_INDEX; break;
      case NK_TENSOR_ERROR_MEMORY: code = NK_PROGRAM_ERROR_LIMIT; break;
      default: break;
      }
  else if (error->domain == NK_EINOPS_ERROR)
    switch (error->code)
      {
      case NK_EINOPS_ERROR_PATTERN: code = NK_PROGRAM_ERROR_SYNTAX; break;
      case NK_EINOPS_ERROR_AXIS: code = NK_PROGRAM_ERROR_NAME; break;
      case NK_EINOPS_ERROR_LIMIT: code = NK_PROGRAM_ERROR_LIMIT; break;
      default: code = NK_PROGRAM_ERROR_SHAPE; break;
      }
  else if (error->domain == NK_DEVICE_ERROR && error->code == NK_DEVICE_ERROR_OUT_OF_MEMORY)
    code = NK_PROGRAM_ERROR_LIMIT;
  _nk_eval_fail (ev, node, code, "%s", error->message);
  g_error_free (error);
}

/**
 * _nk_eval_charge:
 * @ev: the evaluation
 * @node: the op, for the error's column
 * @elements: how many elements the op reads or writes
 *
 * Counts an op's elements against the program's work budget. Views cost nothing;
 * copies, arithmetic and reductions cost what they touch, so that a program of
 * many cheap-looking statements (fifty sums of an expanded 4 Mi-element view)
 * stops with a sentence instead of running for minutes.
 *
 * Returns: %FALSE (with the failure in @ev) once the budget is spent
 */
gboolean
_nk_eval_charge (NkEval *ev,
                 NkNode *node,
                 double  elements)
{
  NkProgram *self = ev->self;

  if ((double) self->work + elements > (double) self->max_work)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
                     _("the program would read and write more than %" PRId64 " elements in all, "
                       "the most one program may do"), self->max_work);
      return FALSE;
    }
  self->work += (gint64) elements;
  return TRUE;
}

/**
 * _nk_eval_tensor_result:
 * @ev: the evaluation
 * @node: the op that made @tensor, for the error's column and the statement's facts
 * @tensor: (transfer full) (nullable): the op's result, %NULL when it failed
 * @error: the op's error when @tensor is %NULL
 *
 * Every tensor value passes here: the size caps of the header, the budget of
 * storage the program has allocated, and (for new storage) the elements written
 * against the work budget. @error is a pointer so that it is read after @tensor
 * was computed: C leaves the order of argument evaluation open.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL with the failure in @ev
 */
NkProgramValue *
_nk_eval_tensor_result (NkEval    *ev,
                        NkNode    *node,
                        NkTensor  *tensor,
                        GError   **error)
{
  NkProgram *self = ev->self;
  gint64 numel;

  if (tensor == NULL)
    {
      g_assert (error != NULL && *error != NULL);
      _nk_eval_fail_with (ev, node, g_steal_pointer (error));
      return NULL;
    }
  numel = nk_tensor_numel (tensor);
  if (numel > NK_PROGRAM_MAX_NUMEL)
    {
      g_autofree char *shape = nk_format_shape (tensor->ndim, tensor->shape);

      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
                     _("a tensor of shape %s has %" PRId64 " elements, more than the %"
                       PRId64 " a program may make"),
                     shape, numel, NK_PROGRAM_MAX_NUMEL);
      nk_tensor_unref (tensor);
      return NULL;
    }
  if (!g_hash_table_contains (self->storages, tensor->storage))
    {
      g_hash_table_add (self->storages, nk_storage_ref (tensor->storage));
      g_ptr_array_add (ev->new_storages, tensor->storage);
      g_ptr_array_add (ev->new_nodes, node);
      self->allocated += nk_storage_get_nbytes (tensor->storage) / MAX (1, nk_tensor_element_size (tensor));
      if (self->allocated > NK_PROGRAM_MAX_TOTAL_NUMEL)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
                         _("the program has allocated more than %" PRId64 " elements in all"),
                         NK_PROGRAM_MAX_TOTAL_NUMEL);
          nk_tensor_unref (tensor);
          return NULL;
        }
      if (!_nk_eval_charge (ev, node, (double) nk_tensor_storage_numel (tensor)))
        {
          nk_tensor_unref (tensor);
          return NULL;
        }
    }
  return _nk_program_value_new_tensor (tensor);
}

/* x.T, x.shape, x.ndim */
static NkProgramValue *
eval_attr (NkEval         *ev,
           NkNode         *node,
           NkProgramValue *object)
{
  NkTensor *x;
  GError *error = NULL;

  if (object->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s has no attribute “%s”"),
                     _nk_program_kind_name (object->kind), node->text);
      return NULL;
    }
  x = object->tensor;
  if (g_str_equal (node->text, "T"))
    {
      int dims[NK_MAX_DIMS];

      /* x.T reverses every dim */
      for (int i = 0; i < x->ndim; i++)
        dims[i] = x->ndim - 1 - i;
      return _nk_eval_tensor_result (ev, node,
                                     x->ndim > 0 ? nk_tensor_permute (x, x->ndim, dims, &error)
                                                 : nk_tensor_alias (x),
                                     &error);
    }
  if (g_str_equal (node->text, "shape"))
    return _nk_program_value_new_tuple (x->ndim, x->shape);
  if (g_str_equal (node->text, "ndim"))
    return _nk_program_value_new_int (x->ndim);

  /* A method named without its parentheses is the likely slip. */
  _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_NAME,
                 _("tensors have no attribute “%s” (methods need parentheses: x.%s())"),
                 node->text, node->text);
  return NULL;
}

static NkProgramValue *
scalar_arith (NkEval         *ev,
              NkNode         *node,
              char            op,
              NkProgramValue *a,
              NkProgramValue *b)
{
  double x = a->d, y = b->d, r;
  gboolean ints = a->kind != NK_PROGRAM_VALUE_FLOAT && b->kind != NK_PROGRAM_VALUE_FLOAT;

  switch (op)
    {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/':
      if (y == 0)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("division by zero"));
          return NULL;
        }
      r = x / y;
      ints = FALSE;
      break;
    default:
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“@” needs two tensors"));
      return NULL;
    }
  if (ints && fabs (r) <= NK_PROGRAM_MAX_INT)
    return _nk_program_value_new_int ((gint64) r);
  return _nk_program_value_new_float (r);
}

static NkProgramValue *
matmul (NkEval   *ev,
        NkNode   *node,
        NkTensor *a,
        NkTensor *b)
{
  gint64 m, n, k, batch = 1;
  double out, work;
  GError *error = NULL;

  if (a->ndim == 0 || b->ndim == 0)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
                     _("both arguments to matmul need to be at least 1D, but they are %dD and %dD"),
                     a->ndim, b->ndim);
      return NULL;
    }
  /* Estimate the work before the core does it, so a hostile program cannot ask for
   * a trillion multiply-adds. */
  k = a->shape[a->ndim - 1];
  m = a->ndim >= 2 ? a->shape[a->ndim - 2] : 1;
  n = b->ndim >= 2 ? b->shape[b->ndim - 1] : 1;
  if (a->ndim > 2 || b->ndim > 2)
    {
      gint64 out_shape[NK_MAX_DIMS];
      int out_ndim;

      if (nk_broadcast_shapes (MAX (a->ndim - 2, 0), a->shape, MAX (b->ndim - 2, 0), b->shape,
                               &out_ndim, out_shape, NULL))
        for (int i = 0; i < out_ndim; i++)
          batch *= out_shape[i];
    }
  out = (double) batch * m * n;
  work = out * k;
  if (out > NK_PROGRAM_MAX_NUMEL || work > NK_PROGRAM_MAX_WORK)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
                     _("this matmul would make %.0f elements with %.3g multiply-adds; a program may make "
                       "%" PRId64 " elements and %" PRId64 " multiply-adds"),
                     out, work, NK_PROGRAM_MAX_NUMEL, NK_PROGRAM_MAX_WORK);
      return NULL;
    }
  if (!_nk_eval_charge (ev, node, work + (double) nk_tensor_numel (a) + nk_tensor_numel (b)))
    return NULL;
  return _nk_eval_tensor_result (ev, node, nk_matmul (a, b, &error), &error);
}

/* a OP b, with @a already evaluated: the left operand is the chain's link. */
static NkProgramValue *
eval_binary (NkEval         *ev,
             NkNode         *node,
             NkProgramValue *a)
{
  g_autoptr(NkProgramValue) b = NULL;
  static const NkBinaryOp ops[] = { ['+'] = NK_BINARY_ADD, ['-'] = NK_BINARY_SUB,
                                    ['*'] = NK_BINARY_MUL, ['/'] = NK_BINARY_DIV };
  gboolean a_tensor, b_tensor;
  GError *error = NULL;

  b = _nk_eval_expr (ev, node->b);
  if (b == NULL)
    return NULL;

  a_tensor = a->kind == NK_PROGRAM_VALUE_TENSOR;
  b_tensor = b->kind == NK_PROGRAM_VALUE_TENSOR;
  if ((!a_tensor && a->kind != NK_PROGRAM_VALUE_INT && a->kind != NK_PROGRAM_VALUE_FLOAT &&
       a->kind != NK_PROGRAM_VALUE_BOOL) ||
      (!b_tensor && b->kind != NK_PROGRAM_VALUE_INT && b->kind != NK_PROGRAM_VALUE_FLOAT &&
       b->kind != NK_PROGRAM_VALUE_BOOL))
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“%c” cannot combine %s and %s"), node->op,
                     _nk_program_kind_name (a->kind), _nk_program_kind_name (b->kind));
      return NULL;
    }

  if (node->op == '@')
    {
      if (!a_tensor || !b_tensor)
        {
          _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“@” needs two tensors, not %s and %s"),
                         _nk_program_kind_name (a->kind), _nk_program_kind_name (b->kind));
          return NULL;
        }
      return matmul (ev, node, a->tensor, b->tensor);
    }
  if (!a_tensor && !b_tensor)
    return scalar_arith (ev, node, node->op, a, b);
  if (a_tensor && b_tensor)
    {
      gint64 shape[NK_MAX_DIMS];
      int ndim;

      if (!nk_broadcast_shapes (a->tensor->ndim, a->tensor->shape, b->tensor->ndim,
                                b->tensor->shape, &ndim, shape, &error))
        {
          _nk_eval_fail_with (ev, node, error);
          return NULL;
        }
      if (!_nk_program_check_sizes (ev, node, ndim, shape, NK_SIZES_NO_MINUS_ONE) ||
          !_nk_eval_charge (ev, node, (double) nk_tensor_numel (a->tensor) + nk_tensor_numel (b->tensor)))
        return NULL;
      return _nk_eval_tensor_result (ev, node, nk_binary (ops[(int) node->op], a->tensor, b->tensor, &error),
                                     &error);
    }
  if (!_nk_eval_charge (ev, node, (double) nk_tensor_numel (a_tensor ? a->tensor : b->tensor)))
    return NULL;
  if (a_tensor)
    return _nk_eval_tensor_result (ev, node,
                                   nk_binary_scalar (ops[(int) node->op], a->tensor, b->d, FALSE, &error),
                                   &error);
  return _nk_eval_tensor_result (ev, node,
                                 nk_binary_scalar (ops[(int) node->op], b->tensor, a->d, TRUE, &error),
                                 &error);
}

/* (3, 4) and [3, 4]: tuples of integers (sizes, dims). */
static NkProgramValue *
eval_tuple (NkEval *ev,
            NkNode *node)
{
  gint64 items[NK_MAX_DIMS];

  if (node->items->len > NK_MAX_DIMS)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE,
                     _("a tuple of sizes or dims has at most %d items"), NK_MAX_DIMS);
      return NULL;
    }
  for (guint i = 0; i < node->items->len; i++)
    {
      NkNode *item = g_ptr_array_index (node->items, i);
      g_autoptr(NkProgramValue) v = _nk_eval_expr (ev, item);

      if (v == NULL || !_nk_value_as_int (ev, item, v, _("an item of a tuple"), &items[i]))
        return NULL;
    }
  return _nk_program_value_new_tuple (node->items->len, items);
}

/* -a and +a */
static NkProgramValue *
eval_unary (NkEval         *ev,
            NkNode         *node,
            NkProgramValue *a)
{
  GError *error = NULL;

  if (node->op == '+' && a->kind != NK_PROGRAM_VALUE_TUPLE && a->kind != NK_PROGRAM_VALUE_STRING &&
      a->kind != NK_PROGRAM_VALUE_NONE)
    return nk_program_value_ref (a);
  if (a->kind == NK_PROGRAM_VALUE_TENSOR)
    {
      if (!_nk_eval_charge (ev, node, (double) nk_tensor_numel (a->tensor)))
        return NULL;
      return _nk_eval_tensor_result (ev, node, nk_neg (a->tensor, &error), &error);
    }
  if (a->kind == NK_PROGRAM_VALUE_INT || a->kind == NK_PROGRAM_VALUE_BOOL)
    return _nk_program_value_new_int (-a->i);
  if (a->kind == NK_PROGRAM_VALUE_FLOAT)
    return _nk_program_value_new_float (-a->d);
  _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“%c” cannot be applied to %s"), node->op,
                 _nk_program_kind_name (a->kind));
  return NULL;
}

/* The leaves of a chain: literals, names, tuples and calls. */
static NkProgramValue *
eval_leaf (NkEval *ev,
           NkNode *node)
{
  switch (node->kind)
    {
    case NK_NODE_NUMBER:
      if (node->is_int && fabs (node->number) <= NK_PROGRAM_MAX_INT)
        return _nk_program_value_new_int ((gint64) node->number);
      return _nk_program_value_new_float (node->number);

    case NK_NODE_STRING:
      return _nk_program_value_new_string (node->text);

    case NK_NODE_BOOL:
      return _nk_program_value_new_bool (node->is_int);

    case NK_NODE_NONE:
      return _nk_program_value_new (NK_PROGRAM_VALUE_NONE);

    case NK_NODE_NAME:
      {
        NkBinding *b = g_hash_table_lookup (ev->self->env, node->text);

        if (b == NULL)
          {
            _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_NAME, _("name “%s” is not defined"), node->text);
            return NULL;
          }
        return nk_program_value_ref (b->value);
      }

    case NK_NODE_TUPLE:
    case NK_NODE_LIST:
      return eval_tuple (ev, node);

    case NK_NODE_CALL:
      return _nk_eval_call (ev, node);

    case NK_NODE_ELLIPSIS:
    case NK_NODE_SLICE:
    case NK_NODE_KWARG:
    case NK_NODE_ASSIGN:
    case NK_NODE_EXPR:
    default:
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SYNTAX, _("this cannot be used as a value"));
      return NULL;
    }
}

/* A link of a chain applied to the value of what it hangs on (its ->a). */
static NkProgramValue *
eval_link (NkEval         *ev,
           NkNode         *node,
           NkProgramValue *a)
{
  switch (node->kind)
    {
    case NK_NODE_UNARY: return eval_unary (ev, node, a);
    case NK_NODE_BINARY: return eval_binary (ev, node, a);
    case NK_NODE_METHOD: return _nk_eval_method (ev, node, a);
    case NK_NODE_ATTR: return eval_attr (ev, node, a);
    case NK_NODE_INDEX: return _nk_eval_index (ev, node, a);
    default: g_assert_not_reached ();
    }
}

static gboolean
is_link (NkNode *node)
{
  return node->kind == NK_NODE_UNARY || node->kind == NK_NODE_BINARY ||
         node->kind == NK_NODE_METHOD || node->kind == NK_NODE_ATTR ||
         node->kind == NK_NODE_INDEX;
}

/**
 * _nk_eval_expr:
 * @ev: the evaluation
 * @node: an expression
 *
 * A program's trees lean left: 1 + 1 + … + 1 and x.T.T….T are chains whose length
 * is the program's, not its nesting. The chain of ->a links is walked down in a
 * loop and its values are folded back up, so only nesting (which the parser
 * caps at %NK_PROGRAM_MAX_DEPTH) recurses; the depth check here is a backstop.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL with the failure in @ev
 */
NkProgramValue *
_nk_eval_expr (NkEval *ev,
               NkNode *node)
{
  g_autoptr(GPtrArray) chain = NULL;
  NkProgramValue *result;
  NkNode *leaf = node;

  if (ev->error != NULL)
    return NULL;
  if (++ev->depth > 4 * NK_PROGRAM_MAX_DEPTH)
    {
      _nk_eval_fail (ev, node, NK_PROGRAM_ERROR_SYNTAX, _("the expression is nested too deeply"));
      ev->depth--;
      return NULL;
    }

  while (is_link (leaf))
    {
      if (chain == NULL)
        chain = g_ptr_array_new ();
      g_ptr_array_add (chain, leaf);
      leaf = leaf->a;
    }
  result = eval_leaf (ev, leaf);
  for (guint i = chain ? chain->len : 0; result != NULL && ev->error == NULL && i-- > 0;)
    {
      NkNode *link = g_ptr_array_index (chain, i);
      NkProgramValue *next = eval_link (ev, link, result);

      nk_program_value_unref (result);
      result = next;
      if (result == NULL && ev->error == NULL)
        _nk_eval_fail (ev, link, NK_PROGRAM_ERROR_TYPE, _("this has no value"));
    }

  ev->depth--;
  if (result == NULL && ev->error == NULL)
    _nk_eval_fail (ev, leaf, NK_PROGRAM_ERROR_TYPE, _("this has no value"));
  if (ev->error != NULL)
    g_clear_pointer (&result, nk_program_value_unref);
  return result;
}

static void
bind (NkEval         *ev,
      const char     *name,
      NkProgramValue *value)
{
  NkProgram *self = ev->self;
  NkBinding *b = g_hash_table_lookup (self->env, name);

  if (b == NULL)
    {
      b = g_new0 (NkBinding, 1);
      b->name = g_strdup (name);
      g_hash_table_insert (self->env, b->name, b);
    }
  else
    g_ptr_array_remove (self->order, b);
  g_clear_pointer (&b->value, nk_program_value_unref);
  b->value = nk_program_value_ref (value);
  b->statement = ev->statement;
  g_ptr_array_add (self->order, b);
}


/* The operation a node stands for, as a program spells it. */
static const char *
node_op_name (NkNode *node)
{
  switch (node->kind)
    {
    case NK_NODE_CALL:
    case NK_NODE_METHOD:
    case NK_NODE_ATTR:
      return node->text;
    case NK_NODE_INDEX:
      return "[]";
    case NK_NODE_UNARY:
    case NK_NODE_BINARY:
      switch (node->op)
        {
        case '+': return "+";
        case '-': return "-";
        case '*': return "*";
        case '/': return "/";
        case '@': return "@";
        default: return NULL;
        }
    default:
      return NULL;
    }
}


/* Which storage the statement allocated, and which op allocated the one its
 * value lives in: the op that copied, not the view taken of the copy. */
static void
record_facts (NkEval         *ev,
              NkNode         *stmt,
              NkProgramValue *value)
{
  NkStatementFacts facts = { 0 };
  NkNode *alloc = NULL;
  NkNode *expr = stmt->kind == NK_NODE_ASSIGN && stmt->a->kind == NK_NODE_NAME ? stmt->b : stmt->a;

  for (guint i = 0; i < ev->new_storages->len; i++)
    {
      NkStorage *storage = g_ptr_array_index (ev->new_storages, i);

      facts.new_bytes += nk_storage_get_nbytes (storage);
      if (value->kind == NK_PROGRAM_VALUE_TENSOR && value->tensor->storage == storage)
        alloc = g_ptr_array_index (ev->new_nodes, i);
    }
  if (alloc == NULL && ev->new_nodes->len > 0)
    alloc = g_ptr_array_index (ev->new_nodes, ev->new_nodes->len - 1);

  facts.copied = alloc != NULL && !_nk_program_is_constructor (alloc);
  facts.op = node_op_name (alloc != NULL ? alloc : expr);
  g_array_append_val (ev->self->stmt_facts, facts);
}

/**
 * _nk_eval_statement:
 * @ev: the evaluation, its statement number set
 * @stmt: an ASSIGN or EXPR node
 * @name: (out) (transfer full) (nullable): the name the statement binds or writes to
 *
 * Runs one statement, binds its name and keeps its value and facts in the program.
 *
 * Returns: %FALSE on a failure (in @ev)
 */
gboolean
_nk_eval_statement (NkEval *ev,
                    NkNode *stmt,
                    char  **name)
{
  NkProgramValue *value = NULL;

  *name = NULL;
  if (stmt->kind == NK_NODE_ASSIGN)
    {
      if (stmt->a->kind == NK_NODE_NAME)
        {
          value = _nk_eval_expr (ev, stmt->b);
          if (value != NULL)
            {
              bind (ev, stmt->a->text, value);
              *name = g_strdup (stmt->a->text);
            }
        }
      else
        {
          NkNode *root = stmt->a;

          value = _nk_eval_assign_index (ev, stmt->a, stmt->b);
          while (root->kind == NK_NODE_INDEX)
            root = root->a;
          if (value != NULL)
            *name = g_strdup (root->text);
        }
    }
  else
    {
      value = _nk_eval_expr (ev, stmt->a);
      if (stmt->a->kind == NK_NODE_NAME)
        *name = g_strdup (stmt->a->text);
    }
  if (value == NULL)
    {
      g_clear_pointer (name, g_free);
      return FALSE;
    }
  g_ptr_array_add (ev->self->values, value);
  g_ptr_array_add (ev->self->stmt_names, *name);
  record_facts (ev, stmt, value);
  return TRUE;
}
