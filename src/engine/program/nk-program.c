/* nk-program.c: NkProgram, a tensor program's run: its statements, names, values and failure
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-program.h"
#include "nk-program-private.h"

/**
 * nk_program_error_quark:
 *
 * The error domain of the tensor language: text that does not parse, and
 * statements that fail when they run.
 *
 * Returns: the #GQuark of %NK_PROGRAM_ERROR
 */
G_DEFINE_QUARK (nk-program-error-quark, nk_program_error)

static void
binding_free (gpointer data)
{
  NkBinding *b = data;

  g_free (b->name);
  g_clear_pointer (&b->value, nk_program_value_unref);
  g_free (b);
}

/**
 * NkProgram:
 *
 * The tensor language of the Strides page and `napkin-cli tensor`: a few lines of
 * PyTorch-like statements (x = arange(16).view(4, 4); y = x.t()) run on the
 * engine's tensors, with what each statement made, viewed or copied. Runs are
 * bounded (%NK_PROGRAM_MAX_NUMEL and its siblings), so any text is safe to run.
 */
G_DEFINE_FINAL_TYPE (NkProgram, nk_program, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DTYPE,
  PROP_SOURCE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
nk_program_reset (NkProgram *self)
{
  g_clear_pointer (&self->values, g_ptr_array_unref);
  g_clear_pointer (&self->stmt_names, g_ptr_array_unref);
  g_clear_pointer (&self->order, g_ptr_array_unref);
  g_clear_pointer (&self->env, g_hash_table_unref);
  g_clear_pointer (&self->statements, g_array_unref);
  g_clear_pointer (&self->arena, g_ptr_array_unref);
  g_clear_pointer (&self->storages, g_hash_table_unref);
  g_clear_pointer (&self->stmt_facts, g_array_unref);
  g_clear_pointer (&self->error_reason, g_free);
  self->error_statement = 0;
  self->error_column = 0;
  self->error_offset = 0;
  self->error_start = 0;
  self->error_end = 0;
  self->allocated = 0;
  self->work = 0;

  self->stmt_facts = g_array_new (FALSE, TRUE, sizeof (NkStatementFacts));

  self->values = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_program_value_unref);
  self->stmt_names = g_ptr_array_new_with_free_func (g_free);
  self->order = g_ptr_array_new ();
  self->env = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, binding_free);
  self->storages = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) nk_storage_unref, NULL);
}

static void
nk_program_finalize (GObject *object)
{
  NkProgram *self = NK_PROGRAM (object);

  g_clear_pointer (&self->values, g_ptr_array_unref);
  g_clear_pointer (&self->stmt_names, g_ptr_array_unref);
  g_clear_pointer (&self->order, g_ptr_array_unref);
  g_clear_pointer (&self->env, g_hash_table_unref);
  g_clear_pointer (&self->statements, g_array_unref);
  g_clear_pointer (&self->arena, g_ptr_array_unref);
  g_clear_pointer (&self->storages, g_hash_table_unref);
  g_clear_pointer (&self->stmt_facts, g_array_unref);
  g_clear_pointer (&self->error_reason, g_free);
  g_clear_pointer (&self->source, g_free);

  G_OBJECT_CLASS (nk_program_parent_class)->finalize (object);
}

static void
nk_program_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  NkProgram *self = NK_PROGRAM (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      g_value_set_uint (value, self->dtype);
      break;
    case PROP_SOURCE:
      g_value_set_string (value, self->source);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_program_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  NkProgram *self = NK_PROGRAM (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      nk_program_set_dtype (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_program_class_init (NkProgramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = nk_program_finalize;
  object_class->get_property = nk_program_get_property;
  object_class->set_property = nk_program_set_property;

  /**
   * NkProgram:dtype:
   *
   * The #NkDType every tensor of the program is stored in (f32 by default). Takes
   * effect at the next nk_program_run().
   */
  properties[PROP_DTYPE] =
    g_param_spec_uint ("dtype", NULL, NULL,
                       0, NK_N_DTYPES - 1, NK_DTYPE_F32,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NkProgram:source:
   *
   * The text of the last run.
   */
  properties[PROP_SOURCE] =
    g_param_spec_string ("source", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
nk_program_init (NkProgram *self)
{
  self->dtype = NK_DTYPE_F32;
  self->max_work = NK_PROGRAM_MAX_TOTAL_WORK;
  nk_program_reset (self);
}

/**
 * nk_program_new:
 *
 * A program holds the tensor language's interpreter state: the text it last ran, each
 * statement's value and facts, and the names bound at the end.
 *
 * Returns: (transfer full): an empty program in f32
 */
NkProgram *
nk_program_new (void)
{
  return g_object_new (NK_TYPE_PROGRAM, NULL);
}

/**
 * nk_program_get_dtype:
 * @self: a program
 *
 * The dtype every tensor a run makes is stored in (the #NkProgram:dtype property).
 *
 * Returns: the dtype tensors are stored in
 */
NkDType
nk_program_get_dtype (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NK_DTYPE_F32);
  return self->dtype;
}

/**
 * nk_program_set_dtype:
 * @self: a program
 * @dtype: a storage dtype of nk-dtype (not tf32)
 *
 * Sets the dtype of every tensor the next run makes.
 */
void
nk_program_set_dtype (NkProgram *self,
                      NkDType    dtype)
{
  g_return_if_fail (NK_IS_PROGRAM (self));
  g_return_if_fail (dtype < NK_N_DTYPES && nk_dtype_info (dtype)->is_storage);

  if (self->dtype == dtype)
    return;
  self->dtype = dtype;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DTYPE]);
}

/**
 * nk_program_set_max_work:
 * @self: a program
 * @elements: at least 1, at most %NK_PROGRAM_MAX_TOTAL_WORK
 *
 * Lowers the elements the next runs' ops may read and write in all (the default is
 * %NK_PROGRAM_MAX_TOTAL_WORK). For callers that must answer sooner than a whole
 * budget takes, such as a fuzzer under AddressSanitizer.
 */
void
nk_program_set_max_work (NkProgram *self,
                         gint64     elements)
{
  g_return_if_fail (NK_IS_PROGRAM (self));
  g_return_if_fail (elements >= 1 && elements <= NK_PROGRAM_MAX_TOTAL_WORK);

  self->max_work = elements;
}

/**
 * nk_program_get_source:
 * @self: a program
 *
 * The text nk_program_run() was last given.
 *
 * Returns: (nullable): the text of the last run
 */
const char *
nk_program_get_source (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  return self->source;
}

static guint
column_of (const char *source,
           guint       stmt_start,
           guint       pos)
{
  if (pos < stmt_start)
    pos = stmt_start;
  /* Characters, not bytes: a pattern string may hold “…” or other UTF-8 */
  return g_utf8_pointer_to_offset (source + stmt_start, source + pos) + 1;
}

/* Runs the statements that parsed, stopping at the first that fails. */
static void
run_statements (NkProgram *self,
                NkEval    *ev)
{
  ev->self = self;
  ev->new_storages = g_ptr_array_new ();
  ev->new_nodes = g_ptr_array_new ();
  for (guint i = 0; i < self->statements->len; i++)
    {
      NkStatementInfo *info = &g_array_index (self->statements, NkStatementInfo, i);
      char *name;

      ev->statement = i + 1;
      ev->depth = 0;
      g_ptr_array_set_size (ev->new_storages, 0);
      g_ptr_array_set_size (ev->new_nodes, 0);
      if (!_nk_eval_statement (ev, info->node, &name))
        {
          self->error_statement = i + 1;
          self->error_offset = MAX (ev->error_pos, info->start);
          self->error_start = info->start;
          self->error_end = MAX (info->end, self->error_offset);
          self->error_column = column_of (self->source, info->start, ev->error_pos);
          self->error_reason = g_strdup (ev->error->message);
          break;
        }
    }
  g_clear_pointer (&ev->new_storages, g_ptr_array_unref);
  g_clear_pointer (&ev->new_nodes, g_ptr_array_unref);
}

/* The statement after the last one that parsed is the one that failed. */
static void
record_parse_error (NkProgram *self,
                    guint      parse_pos,
                    guint      parse_stmt_start,
                    GError    *parse_error)
{
  const char *source = self->source;
  gsize len = strlen (source), end;

  self->error_statement = self->statements->len + 1;
  self->error_offset = MAX (parse_pos, parse_stmt_start);
  self->error_start = parse_stmt_start;
  /* A statement that did not parse has no end of its own: it runs to the
   * end of the line the failure is on. */
  end = MIN (self->error_offset, len);
  while (end < len && source[end] != '\n')
    end++;
  while (end > self->error_offset && g_ascii_isspace (source[end - 1]))
    end--;
  self->error_end = end;
  self->error_column = column_of (source, parse_stmt_start, parse_pos);
  self->error_reason = g_strdup (parse_error->message);
}

/**
 * nk_program_run:
 * @self: a program
 * @source: the program text
 * @error: the first failure, in NK_PROGRAM_ERROR: "statement 3, column 3: view size is
 *   not compatible with input tensor's size and stride ..."
 *
 * Parses and runs @source from an empty environment. The statements before a
 * failing one keep their values; nk_program_get_error_statement() and
 * nk_program_get_error_column() say where it failed.
 *
 * Returns: %TRUE when every statement ran
 */
gboolean
nk_program_run (NkProgram   *self,
                const char  *source,
                GError     **error)
{
  g_autoptr(GError) parse_error = NULL;
  NkEval ev = { 0 };
  guint parse_pos = 0, parse_stmt_start = 0;
  gboolean parsed;

  g_return_val_if_fail (NK_IS_PROGRAM (self), FALSE);
  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  nk_program_reset (self);
  if (g_strcmp0 (self->source, source) != 0)
    {
      g_free (self->source);
      self->source = g_strdup (source);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
    }

  if (!g_utf8_validate (source, -1, NULL))
    {
      parse_error = g_error_new (NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_SYNTAX,
                                 _("the program is not valid UTF-8 text"));
      self->statements = g_array_new (FALSE, TRUE, sizeof (NkStatementInfo));
      self->arena = g_ptr_array_new ();
      parsed = FALSE;
    }
  else
    parsed = _nk_program_parse (source, &self->arena, &self->statements, &parse_error,
                                &parse_pos, &parse_stmt_start);

  run_statements (self, &ev);
  if (ev.error == NULL && !parsed)
    {
      record_parse_error (self, parse_pos, parse_stmt_start, parse_error);
      ev.error = g_steal_pointer (&parse_error);
    }

  if (ev.error != NULL)
    {
      g_set_error (error, NK_PROGRAM_ERROR, ev.error->code,
                   /* Translators: "statement 3, column 3: view size is not compatible ..." */
                   _("statement %u, column %u: %s"),
                   self->error_statement, self->error_column, self->error_reason);
      g_error_free (ev.error);
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_program_get_n_statements:
 * @self: a program
 *
 * The statements of the last run that succeeded, in order; after a failure, those
 * before it.
 *
 * Returns: how many statements ran successfully
 */
guint
nk_program_get_n_statements (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), 0);
  return self->values->len;
}

/**
 * nk_program_get_statement_range:
 * @self: a program
 * @index: a statement, from 0; may also be the failing statement (error_statement - 1)
 *   when it parsed
 * @start: (out) (optional): byte offset of its first character in the source
 * @end: (out) (optional): byte offset just past its last character
 *
 * Where a statement is in the source, to highlight it.
 */
void
nk_program_get_statement_range (NkProgram *self,
                                guint      index,
                                guint     *start,
                                guint     *end)
{
  NkStatementInfo *info;

  g_return_if_fail (NK_IS_PROGRAM (self));
  g_return_if_fail (index < self->statements->len);

  info = &g_array_index (self->statements, NkStatementInfo, index);
  if (start)
    *start = info->start;
  if (end)
    *end = info->end;
}

/**
 * nk_program_get_statement_value:
 * @self: a program
 * @index: a statement that ran, from 0
 *
 * The statement's value: the value of an expression, the value assigned to a
 * name, or for `x[i] = v` the tensor x after the write.
 *
 * Returns: (transfer none): the value
 */
NkProgramValue *
nk_program_get_statement_value (NkProgram *self,
                                guint      index)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (index < self->values->len, NULL);
  return g_ptr_array_index (self->values, index);
}

/**
 * nk_program_get_statement_name:
 * @self: a program
 * @index: a statement that ran, from 0
 *
 * The name a statement is shown under.
 *
 * Returns: (nullable): the name the statement assigned (or wrote through, or
 *   named alone), %NULL for an anonymous expression
 */
const char *
nk_program_get_statement_name (NkProgram *self,
                               guint      index)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (index < self->stmt_names->len, NULL);
  return g_ptr_array_index (self->stmt_names, index);
}

/**
 * nk_program_get_last_value:
 * @self: a program
 *
 * What `napkin-cli tensor` prints: the value of the last statement.
 *
 * Returns: (transfer none) (nullable): the value of the last statement that ran
 */
NkProgramValue *
nk_program_get_last_value (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  return self->values->len ? g_ptr_array_index (self->values, self->values->len - 1) : NULL;
}

/**
 * nk_program_get_last_name:
 * @self: a program
 *
 * The name of the last statement's value, for the printout.
 *
 * Returns: (nullable): the name of the last statement that ran (see
 *   nk_program_get_statement_name())
 */
const char *
nk_program_get_last_name (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  return self->stmt_names->len ? g_ptr_array_index (self->stmt_names, self->stmt_names->len - 1)
                               : NULL;
}

/**
 * nk_program_get_error_statement:
 * @self: a program
 *
 * Which statement the last run failed in.
 *
 * Returns: the failing statement, from 1; 0 when the last run succeeded
 */
guint
nk_program_get_error_statement (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), 0);
  return self->error_statement;
}

/**
 * nk_program_get_error_column:
 * @self: a program
 *
 * Where in its statement the last run failed.
 *
 * Returns: the column of the failure inside its statement, from 1 (in characters
 *   from the statement's first character); 0 when the last run succeeded
 */
guint
nk_program_get_error_column (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), 0);
  return self->error_column;
}

/**
 * nk_program_get_error_reason:
 * @self: a program
 *
 * Why the last run failed: the message of its #GError after the "statement N, column
 * C:" prefix.
 *
 * Returns: (nullable): the reason of the failure, without the position
 */
const char *
nk_program_get_error_reason (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  return self->error_reason;
}

/**
 * nk_program_get_error_offset:
 * @self: a program
 *
 * Where the failure is, as a byte offset into the source: the token the parser
 * stopped at, or the operation that failed (the same place the column counts to).
 * Separators, blank lines, comments and `\`-continuations before the statement are
 * already accounted for, so a caller never needs to re-tokenize the source.
 *
 * Returns: the byte offset; 0 when the last run succeeded
 */
guint
nk_program_get_error_offset (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), 0);
  return self->error_offset;
}

/**
 * nk_program_get_error_range:
 * @self: a program
 * @start: (out) (optional): byte offset of the failing statement's first character
 * @end: (out) (optional): byte offset just past its last character
 *
 * The failing statement, also when it did not parse: it then ends at the end of
 * the line the syntax error is on. The error offset lies within [@start, @end].
 *
 * Returns: %FALSE (and 0, 0) when the last run succeeded
 */
gboolean
nk_program_get_error_range (NkProgram *self,
                            guint     *start,
                            guint     *end)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), FALSE);

  if (start)
    *start = self->error_start;
  if (end)
    *end = self->error_end;
  return self->error_statement != 0;
}

static NkStatementFacts *
facts_at (NkProgram *self,
          guint      index)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (index < self->stmt_facts->len, NULL);
  return &g_array_index (self->stmt_facts, NkStatementFacts, index);
}

/**
 * nk_program_get_statement_copied:
 * @self: a program
 * @index: a statement that ran, from 0
 *
 * Whether the statement copied elements into a new storage: contiguous() of a
 * tensor that is not contiguous, a reshape() the strides cannot express as a
 * view, clone(), arithmetic, matmul, reductions. Views (and contiguous() of a
 * contiguous tensor, which returns the tensor itself, as in PyTorch) copy
 * nothing; constructors such as arange() make new storage but copy nothing.
 *
 * Returns: %TRUE when the statement copied
 */
gboolean
nk_program_get_statement_copied (NkProgram *self,
                                 guint      index)
{
  NkStatementFacts *facts = facts_at (self, index);
  return facts ? facts->copied : FALSE;
}

/**
 * nk_program_get_statement_new_bytes:
 * @self: a program
 * @index: a statement that ran, from 0
 *
 * The memory a statement added: the bytes of the copies and new tensors it made.
 *
 * Returns: the bytes of the storages the statement allocated (by copying or by
 *   constructing); 0 for a view
 */
gsize
nk_program_get_statement_new_bytes (NkProgram *self,
                                    guint      index)
{
  NkStatementFacts *facts = facts_at (self, index);
  return facts ? facts->new_bytes : 0;
}

/**
 * nk_program_get_statement_op:
 * @self: a program
 * @index: a statement that ran, from 0
 *
 * The operation that made the statement's value, as the program spells it
 * ("reshape", "t", "T", "arange", "@", "+", or "[]" for indexing). When the
 * statement allocated, it is the op that made the value's storage: for
 * `y.contiguous().view(16)` that is "contiguous", not "view".
 *
 * Returns: (nullable): the op, %NULL when the value is a name or a literal
 */
const char *
nk_program_get_statement_op (NkProgram *self,
                             guint      index)
{
  NkStatementFacts *facts = facts_at (self, index);
  return facts ? facts->op : NULL;
}

/**
 * nk_program_get_n_names:
 * @self: a program
 *
 * The names bound when the last run ended, for the Strides page's list of tensors.
 *
 * Returns: how many names are bound after the run
 */
guint
nk_program_get_n_names (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), 0);
  return self->order->len;
}

static NkBinding *
binding_at (NkProgram *self,
            guint      index)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (index < self->order->len, NULL);
  return g_ptr_array_index (self->order, index);
}

/**
 * nk_program_get_name:
 * @self: a program
 * @index: from 0, in the order of the statements that last bound the names
 *
 * One of the names bound at the end of the run.
 *
 * Returns: the name
 */
const char *
nk_program_get_name (NkProgram *self,
                     guint      index)
{
  NkBinding *b = binding_at (self, index);
  return b ? b->name : NULL;
}

/**
 * nk_program_get_name_value:
 * @self: a program
 * @index: from 0
 *
 * The value a name holds at the end of the run.
 *
 * Returns: (transfer none): the value bound to the name
 */
NkProgramValue *
nk_program_get_name_value (NkProgram *self,
                           guint      index)
{
  NkBinding *b = binding_at (self, index);
  return b ? b->value : NULL;
}

/**
 * nk_program_get_name_statement:
 * @self: a program
 * @index: from 0
 *
 * Which statement gave a name its value.
 *
 * Returns: the statement (from 1) that last assigned the name
 */
guint
nk_program_get_name_statement (NkProgram *self,
                               guint      index)
{
  NkBinding *b = binding_at (self, index);
  return b ? b->statement : 0;
}

/**
 * nk_program_get_name_shares_with:
 * @self: a program
 * @index: from 0
 *
 * Which earlier name's tensor is a view of the same storage: what the Strides page's
 * storage diagram draws as shared memory.
 *
 * Returns: (nullable): the first earlier name whose tensor has the same storage,
 *   or %NULL when the name's tensor owns its storage alone (or is no tensor)
 */
const char *
nk_program_get_name_shares_with (NkProgram *self,
                                 guint      index)
{
  NkBinding *b = binding_at (self, index);

  if (b == NULL || b->value->kind != NK_PROGRAM_VALUE_TENSOR)
    return NULL;
  for (guint j = 0; j < index; j++)
    {
      NkBinding *other = g_ptr_array_index (self->order, j);

      if (other->value->kind == NK_PROGRAM_VALUE_TENSOR &&
          nk_tensor_same_storage (other->value->tensor, b->value->tensor))
        return other->name;
    }
  return NULL;
}

/**
 * nk_program_lookup:
 * @self: a program
 * @name: a name
 *
 * The value of a name at the end of the last run.
 *
 * Returns: (transfer none) (nullable): the value bound to @name after the run
 */
NkProgramValue *
nk_program_lookup (NkProgram  *self,
                   const char *name)
{
  NkBinding *b;

  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  b = g_hash_table_lookup (self->env, name);
  return b ? b->value : NULL;
}
