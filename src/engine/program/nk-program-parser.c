/* nk-program-parser.c: the tensor language's parser: tokens to a tree of NkNode
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Recursive descent, one function per rule:
 *
 *     stmt    := expr ['=' expr]
 *     expr    := term (('+' | '-') term)*
 *     term    := unary (('*' | '/' | '@') unary)*
 *     unary   := ('-' | '+')* postfix
 *     postfix := primary ('.' NAME ['(' args ')'] | '[' subscripts ']')*
 *     primary := NUMBER | STRING | NAME ['(' args ')'] | '(' ... ')' | '[' items ']'
 *
 * Only expr recurses into itself through brackets, so the depth it counts is the
 * nesting a person sees; chains of operators, signs and methods are loops.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include "nk-program-private.h"

static void
node_free (gpointer data)
{
  NkNode *node = data;

  g_free (node->text);
  g_clear_pointer (&node->items, g_ptr_array_unref);
  g_free (node);
}

typedef struct {
  NkLexer    lex;
  GPtrArray *arena;       /* every node, owned */
  int        depth;       /* nesting: brackets, calls, subscripts */
} Parser;

static NkNode *
node_new (Parser     *p,
          NkNodeKind  kind,
          guint       pos)
{
  NkNode *node = g_new0 (NkNode, 1);

  node->kind = kind;
  node->pos = pos;
  g_ptr_array_add (p->arena, node);
  return node;
}

static gboolean
accept (Parser  *p,
        NkTokKind  kind)
{
  if (p->lex.error != NULL || p->lex.tok.kind != kind)
    return FALSE;
  return _nk_lexer_next (&p->lex);
}

static gboolean
expect (Parser     *p,
        NkTokKind     kind,
        const char *context)
{
  if (p->lex.error != NULL)
    return FALSE;
  if (p->lex.tok.kind == kind)
    return _nk_lexer_next (&p->lex);
  /* Translators: e.g. "expected “)” to close the call, found “;”" */
  _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("expected %s %s, found %s"),
                  _nk_token_describe (kind), context, _nk_token_describe (p->lex.tok.kind));
  return FALSE;
}

static NkNode *parse_expr (Parser *p);

static gboolean
enter (Parser *p)
{
  if (++p->depth > NK_PROGRAM_MAX_DEPTH)
    {
      _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("the expression is nested more than %d levels deep"),
                      NK_PROGRAM_MAX_DEPTH);
      return FALSE;
    }
  return TRUE;
}

/* args := [arg (',' arg)* [',']] ; arg := expr | NAME '=' expr.
 * The caller has consumed the opening parenthesis. */
static GPtrArray *
parse_args (Parser *p)
{
  GPtrArray *args = g_ptr_array_new ();
  gboolean seen_keyword = FALSE;

  while (p->lex.error == NULL && p->lex.tok.kind != NK_TOK_RPAREN)
    {
      NkNode *arg;
      guint pos = p->lex.tok.pos;

      arg = parse_expr (p);
      if (arg == NULL)
        break;
      if (p->lex.tok.kind == NK_TOK_ASSIGN)
        {
          NkNode *kw;

          if (arg->kind != NK_NODE_NAME)
            {
              _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("only a name can be given a value in a call"));
              break;
            }
          _nk_lexer_next (&p->lex);
          kw = node_new (p, NK_NODE_KWARG, pos);
          kw->text = g_strdup (arg->text);
          kw->a = parse_expr (p);
          if (kw->a == NULL)
            break;
          seen_keyword = TRUE;
          arg = kw;
        }
      else if (seen_keyword)
        {
          _nk_lexer_fail (&p->lex, pos, _("a positional argument cannot follow a keyword argument"));
          break;
        }
      g_ptr_array_add (args, arg);
      if (!accept (p, NK_TOK_COMMA))
        break;
    }
  expect (p, NK_TOK_RPAREN, _("to close the argument list"));
  return args;
}

/* subscript := '...' | [expr] ':' [expr] [':' [expr]] | expr */
static NkNode *
parse_subscript (Parser *p)
{
  guint pos = p->lex.tok.pos;
  NkNode *start = NULL;
  NkNode *slice;

  if (p->lex.tok.kind == NK_TOK_ELLIPSIS)
    {
      _nk_lexer_next (&p->lex);
      return node_new (p, NK_NODE_ELLIPSIS, pos);
    }
  if (p->lex.tok.kind != NK_TOK_COLON)
    {
      start = parse_expr (p);
      if (start == NULL || p->lex.tok.kind != NK_TOK_COLON)
        return start;
    }
  _nk_lexer_next (&p->lex);
  slice = node_new (p, NK_NODE_SLICE, pos);
  slice->a = start;
  if (p->lex.tok.kind != NK_TOK_COLON && p->lex.tok.kind != NK_TOK_COMMA && p->lex.tok.kind != NK_TOK_RBRACKET)
    {
      slice->b = parse_expr (p);
      if (slice->b == NULL)
        return NULL;
    }
  if (accept (p, NK_TOK_COLON))
    {
      if (p->lex.tok.kind != NK_TOK_COMMA && p->lex.tok.kind != NK_TOK_RBRACKET)
        {
          slice->c = parse_expr (p);
          if (slice->c == NULL)
            return NULL;
        }
    }
  return p->lex.error ? NULL : slice;
}

/* Elements of a list or tuple; the caller consumed the opening bracket. */
static GPtrArray *
parse_items (Parser  *p,
             NkTokKind  close,
             NkNode  *first)
{
  GPtrArray *items = g_ptr_array_new ();

  if (first != NULL)
    g_ptr_array_add (items, first);
  while (p->lex.error == NULL && p->lex.tok.kind != close)
    {
      NkNode *item = parse_expr (p);

      if (item == NULL)
        break;
      g_ptr_array_add (items, item);
      if (!accept (p, NK_TOK_COMMA))
        break;
    }
  expect (p, close, close == NK_TOK_RBRACKET ? _("to close the list") : _("to close the tuple"));
  return items;
}

/* A name, a keyword constant or a call: NAME ['(' args ')'] */
static NkNode *
parse_name (Parser *p)
{
  const char *text = p->lex.tok.text;
  guint pos = p->lex.tok.pos;
  NkNode *node;

  if (g_str_equal (text, "True") || g_str_equal (text, "False"))
    {
      node = node_new (p, NK_NODE_BOOL, pos);
      node->is_int = g_str_equal (text, "True");
    }
  else if (g_str_equal (text, "None"))
    node = node_new (p, NK_NODE_NONE, pos);
  else
    {
      node = node_new (p, NK_NODE_NAME, pos);
      node->text = g_strdup (text);
    }
  _nk_lexer_next (&p->lex);
  if (node->kind == NK_NODE_NAME && p->lex.tok.kind == NK_TOK_LPAREN)
    {
      node->kind = NK_NODE_CALL;
      _nk_lexer_next (&p->lex);
      node->items = parse_args (p);
    }
  return p->lex.error ? NULL : node;
}

/* '(' ')' | '(' expr ')' | '(' expr ',' [items] ')' */
static NkNode *
parse_parenthesis (Parser *p)
{
  guint pos = p->lex.tok.pos;
  NkNode *first, *node;

  _nk_lexer_next (&p->lex);
  if (p->lex.tok.kind == NK_TOK_RPAREN)
    {
      _nk_lexer_next (&p->lex);
      node = node_new (p, NK_NODE_TUPLE, pos);
      node->items = g_ptr_array_new ();
      return p->lex.error ? NULL : node;
    }
  first = parse_expr (p);
  if (first == NULL)
    return NULL;
  if (accept (p, NK_TOK_COMMA))
    {
      node = node_new (p, NK_NODE_TUPLE, pos);
      node->items = parse_items (p, NK_TOK_RPAREN, first);
      return p->lex.error ? NULL : node;
    }
  expect (p, NK_TOK_RPAREN, _("to close the parenthesis"));
  return p->lex.error ? NULL : first;
}

static NkNode *
parse_primary (Parser *p)
{
  guint pos = p->lex.tok.pos;
  NkNode *node;

  switch (p->lex.tok.kind)
    {
    case NK_TOK_NUMBER:
      node = node_new (p, NK_NODE_NUMBER, pos);
      node->number = p->lex.tok.number;
      node->is_int = p->lex.tok.is_int;
      _nk_lexer_next (&p->lex);
      return p->lex.error ? NULL : node;

    case NK_TOK_STRING:
      node = node_new (p, NK_NODE_STRING, pos);
      node->text = g_strdup (p->lex.tok.text);
      _nk_lexer_next (&p->lex);
      return p->lex.error ? NULL : node;

    case NK_TOK_NAME:
      return parse_name (p);

    case NK_TOK_LPAREN:
      return parse_parenthesis (p);

    case NK_TOK_LBRACKET:
      _nk_lexer_next (&p->lex);
      node = node_new (p, NK_NODE_LIST, pos);
      node->items = parse_items (p, NK_TOK_RBRACKET, NULL);
      return p->lex.error ? NULL : node;

    case NK_TOK_ELLIPSIS:
      _nk_lexer_fail (&p->lex, pos, _("“...” can only be used inside [ ]"));
      return NULL;

    case NK_TOK_COLON:
      _nk_lexer_fail (&p->lex, pos, _("a slice “:” can only be used inside [ ]"));
      return NULL;

    default:
      _nk_lexer_fail (&p->lex, pos, _("expected a value, found %s"), _nk_token_describe (p->lex.tok.kind));
      return NULL;
    }
}

static NkNode *
parse_postfix (Parser *p)
{
  NkNode *node = parse_primary (p);

  while (node != NULL && p->lex.error == NULL)
    {
      if (p->lex.tok.kind == NK_TOK_DOT)
        {
          NkNode *member;

          _nk_lexer_next (&p->lex);
          if (p->lex.tok.kind != NK_TOK_NAME)
            {
              _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("expected a method or attribute name after “.”, found %s"),
                              _nk_token_describe (p->lex.tok.kind));
              return NULL;
            }
          member = node_new (p, NK_NODE_ATTR, p->lex.tok.pos);
          member->text = g_strdup (p->lex.tok.text);
          member->a = node;
          _nk_lexer_next (&p->lex);
          if (p->lex.tok.kind == NK_TOK_LPAREN)
            {
              member->kind = NK_NODE_METHOD;
              _nk_lexer_next (&p->lex);
              member->items = parse_args (p);
            }
          node = member;
        }
      else if (p->lex.tok.kind == NK_TOK_LBRACKET)
        {
          NkNode *index = node_new (p, NK_NODE_INDEX, p->lex.tok.pos);

          index->a = node;
          index->items = g_ptr_array_new ();
          _nk_lexer_next (&p->lex);
          if (p->lex.tok.kind == NK_TOK_RBRACKET)
            {
              _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("an index is missing between “[” and “]”"));
              return NULL;
            }
          while (p->lex.error == NULL && p->lex.tok.kind != NK_TOK_RBRACKET)
            {
              NkNode *sub = parse_subscript (p);

              if (sub == NULL)
                break;
              g_ptr_array_add (index->items, sub);
              if (!accept (p, NK_TOK_COMMA))
                break;
            }
          expect (p, NK_TOK_RBRACKET, _("to close the index"));
          node = index;
        }
      else
        break;
    }
  return p->lex.error ? NULL : node;
}

/* unary := ('-' | '+')* postfix. A run of signs is a chain, not nesting: it is
 * read in a loop, so "- - - … 1" costs no stack. */
static NkNode *
parse_unary (Parser *p)
{
  g_autoptr(GArray) signs = NULL;
  NkNode *node;

  while (p->lex.tok.kind == NK_TOK_MINUS || p->lex.tok.kind == NK_TOK_PLUS)
    {
      NkNode *sign = node_new (p, NK_NODE_UNARY, p->lex.tok.pos);

      sign->op = p->lex.tok.kind == NK_TOK_MINUS ? '-' : '+';
      if (signs == NULL)
        signs = g_array_new (FALSE, FALSE, sizeof (NkNode *));
      g_array_append_val (signs, sign);
      if (!_nk_lexer_next (&p->lex))
        return NULL;
    }
  node = parse_postfix (p);
  for (guint i = signs ? signs->len : 0; node != NULL && i-- > 0;)
    {
      NkNode *sign = g_array_index (signs, NkNode *, i);

      sign->a = node;
      node = sign;
    }
  return node;
}

static NkNode *
parse_term (Parser *p)
{
  NkNode *left = parse_unary (p);

  while (left != NULL && p->lex.error == NULL &&
         (p->lex.tok.kind == NK_TOK_STAR || p->lex.tok.kind == NK_TOK_SLASH || p->lex.tok.kind == NK_TOK_AT))
    {
      NkNode *node = node_new (p, NK_NODE_BINARY, p->lex.tok.pos);

      node->op = p->lex.tok.kind == NK_TOK_STAR ? '*' : p->lex.tok.kind == NK_TOK_SLASH ? '/' : '@';
      _nk_lexer_next (&p->lex);
      node->a = left;
      node->b = parse_unary (p);
      left = node->b ? node : NULL;
    }
  return p->lex.error ? NULL : left;
}

static NkNode *
parse_expr (Parser *p)
{
  NkNode *left;

  if (!enter (p))
    return NULL;
  left = parse_term (p);
  while (left != NULL && p->lex.error == NULL &&
         (p->lex.tok.kind == NK_TOK_PLUS || p->lex.tok.kind == NK_TOK_MINUS))
    {
      NkNode *node = node_new (p, NK_NODE_BINARY, p->lex.tok.pos);

      node->op = p->lex.tok.kind == NK_TOK_PLUS ? '+' : '-';
      _nk_lexer_next (&p->lex);
      node->a = left;
      node->b = parse_term (p);
      left = node->b ? node : NULL;
    }
  p->depth--;
  return p->lex.error ? NULL : left;
}

static gboolean
is_assignable (NkNode *node)
{
  if (node->kind == NK_NODE_NAME)
    return TRUE;
  if (node->kind == NK_NODE_INDEX)
    {
      while (node->kind == NK_NODE_INDEX)
        node = node->a;
      return node->kind == NK_NODE_NAME;
    }
  return FALSE;
}

/* stmt := expr ['=' expr] */
static NkNode *
parse_statement (Parser *p)
{
  guint pos = p->lex.tok.pos;
  NkNode *target = parse_expr (p);
  NkNode *stmt;

  if (target == NULL)
    return NULL;
  if (p->lex.tok.kind == NK_TOK_ASSIGN)
    {
      guint eq = p->lex.tok.pos;

      if (!is_assignable (target))
        {
          _nk_lexer_fail (&p->lex, eq, _("only a name or an indexed name can be assigned to"));
          return NULL;
        }
      _nk_lexer_next (&p->lex);
      stmt = node_new (p, NK_NODE_ASSIGN, eq);
      stmt->a = target;
      stmt->b = parse_expr (p);
      if (stmt->b == NULL)
        return NULL;
    }
  else
    {
      stmt = node_new (p, NK_NODE_EXPR, pos);
      stmt->a = target;
    }
  if (p->lex.tok.kind != NK_TOK_SEMI && p->lex.tok.kind != NK_TOK_NEWLINE && p->lex.tok.kind != NK_TOK_EOF)
    {
      if (p->lex.tok.kind == NK_TOK_ASSIGN)
        _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("a statement can only assign once"));
      else
        _nk_lexer_fail (&p->lex, p->lex.tok.pos, _("expected “;” or a new line before %s"),
                        _nk_token_describe (p->lex.tok.kind));
      return NULL;
    }
  return stmt;
}

/**
 * _nk_program_parse:
 * @source: the program text
 * @arena: (out): every node, to free with g_ptr_array_unref()
 * @statements: (out): the statements that parsed, in order (NkStatementInfo)
 * @error: the syntax error, if any
 * @error_pos: (out): the byte offset of the syntax error
 * @error_stmt_start: (out): the byte offset where the failing statement starts
 *
 * Parses statement after statement; on a syntax error the statements before the
 * failing one are kept, so a caller can still evaluate them.
 *
 * Returns: %TRUE when the whole program parsed
 */
gboolean
_nk_program_parse (const char  *source,
                   GPtrArray  **arena,
                   GArray     **statements,
                   GError     **error,
                   guint       *error_pos,
                   guint       *error_stmt_start)
{
  Parser p = { 0 };
  GArray *stmts = g_array_new (FALSE, TRUE, sizeof (NkStatementInfo));

  _nk_lexer_init (&p.lex, source);
  p.arena = g_ptr_array_new_with_free_func (node_free);
  *error_pos = 0;
  *error_stmt_start = 0;

  if (_nk_lexer_next (&p.lex))
    {
      for (;;)
        {
          NkStatementInfo info = { 0 };

          /* A bad character right after a separator starts the next statement. */
          while (p.lex.tok.kind == NK_TOK_SEMI || p.lex.tok.kind == NK_TOK_NEWLINE)
            {
              if (!_nk_lexer_next (&p.lex))
                {
                  *error_stmt_start = p.lex.error_pos;
                  break;
                }
            }
          if (p.lex.error != NULL || p.lex.tok.kind == NK_TOK_EOF)
            break;
          info.start = p.lex.tok.pos;
          *error_stmt_start = info.start;
          info.node = parse_statement (&p);
          if (info.node == NULL)
            break;
          /* The statement ends where its last token ended. */
          info.end = p.lex.tok.pos;
          while (info.end > info.start && g_ascii_isspace (source[info.end - 1]))
            info.end--;
          g_array_append_val (stmts, info);
        }
    }
  else
    *error_stmt_start = 0;

  _nk_lexer_clear (&p.lex);
  *arena = p.arena;
  *statements = stmts;
  if (p.lex.error != NULL)
    {
      *error_pos = p.lex.error_pos;
      if (*error_stmt_start > *error_pos)
        *error_stmt_start = *error_pos;
      g_propagate_error (error, p.lex.error);
      return FALSE;
    }
  return TRUE;
}