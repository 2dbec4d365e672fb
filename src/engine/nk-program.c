/* nk-program.c: a small PyTorch-flavoured tensor language: lexer, parser, evaluator
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
#include "nk-program.h"
#include "nk-program-private.h"

G_DEFINE_QUARK (nk-program-error-quark, nk_program_error)

/* Deeper nesting than this is refused, so that a hostile program cannot blow the
 * C stack of the recursive-descent parser or the evaluator. */
#define MAX_DEPTH 64

/* ------------------------------------------------------------------------------
 * Lexer
 * ------------------------------------------------------------------------------ */

typedef enum {
  TOK_EOF,
  TOK_NEWLINE,
  TOK_SEMI,
  TOK_NAME,
  TOK_NUMBER,
  TOK_STRING,
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_LBRACKET,
  TOK_RBRACKET,
  TOK_COMMA,
  TOK_COLON,
  TOK_DOT,
  TOK_ELLIPSIS,
  TOK_ASSIGN,
  TOK_PLUS,
  TOK_MINUS,
  TOK_STAR,
  TOK_SLASH,
  TOK_AT,
} TokKind;

typedef struct {
  TokKind  kind;
  guint    pos;       /* byte offset of the first character */
  guint    len;       /* bytes */
  double   number;
  gboolean is_int;
  char    *text;      /* NAME: the name; STRING: the unquoted contents */
} Token;

static const char *
tok_describe (TokKind kind)
{
  switch (kind)
    {
    case TOK_EOF: return _("the end of the program");
    case TOK_NEWLINE: return _("the end of the line");
    case TOK_SEMI: return "“;”";
    case TOK_NAME: return _("a name");
    case TOK_NUMBER: return _("a number");
    case TOK_STRING: return _("a string");
    case TOK_LPAREN: return "“(”";
    case TOK_RPAREN: return "“)”";
    case TOK_LBRACKET: return "“[”";
    case TOK_RBRACKET: return "“]”";
    case TOK_COMMA: return "“,”";
    case TOK_COLON: return "“:”";
    case TOK_DOT: return "“.”";
    case TOK_ELLIPSIS: return "“...”";
    case TOK_ASSIGN: return "“=”";
    case TOK_PLUS: return "“+”";
    case TOK_MINUS: return "“-”";
    case TOK_STAR: return "“*”";
    case TOK_SLASH: return "“/”";
    case TOK_AT: return "“@”";
    default: g_assert_not_reached ();
    }
}

/* ------------------------------------------------------------------------------
 * Syntax tree
 * ------------------------------------------------------------------------------ */

struct _NkNode {
  NkNodeKind kind;
  guint      pos;       /* byte offset of the token that names the node */
  char       op;        /* UNARY/BINARY: one of + - * / @ */
  double     number;
  gboolean   is_int;
  char      *text;      /* NAME, STRING, CALL/METHOD/ATTR name, KWARG name */
  NkNode    *a, *b, *c; /* operands; SLICE: start, stop, step; ASSIGN: target, value */
  GPtrArray *items;     /* args / subscripts / elements, not owned */
};

static void
node_free (gpointer data)
{
  NkNode *node = data;

  g_free (node->text);
  g_clear_pointer (&node->items, g_ptr_array_unref);
  g_free (node);
}

typedef struct {
  const char *source;
  gsize       length;
  gsize       at;          /* lexer position */
  int         bracket_depth;
  Token       tok;         /* current token */
  GPtrArray  *arena;       /* every node, owned */
  int         depth;
  GError     *error;
  guint       error_pos;
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

static void
parser_fail (Parser     *p,
             guint       pos,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

static void
parser_fail (Parser     *p,
             guint       pos,
             const char *format,
             ...)
{
  va_list args;

  if (p->error != NULL)
    return;
  va_start (args, format);
  p->error = g_error_new_valist (NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_SYNTAX, format, args);
  va_end (args);
  p->error_pos = pos;
}

static gboolean
is_name_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Reads the next token into p->tok. Newlines inside brackets are whitespace, as
 * in Python, so a long tensor([...]) literal may span lines. */
static gboolean
lex_next (Parser *p)
{
  const char *s = p->source;
  Token *t = &p->tok;

  g_clear_pointer (&t->text, g_free);
  t->number = 0;
  t->is_int = FALSE;

  for (;;)
    {
      char c = p->at < p->length ? s[p->at] : '\0';

      if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && p->bracket_depth > 0))
        p->at++;
      else if (c == '\\' && p->at + 1 < p->length && s[p->at + 1] == '\n')
        p->at += 2;
      else if (c == '#')
        {
          while (p->at < p->length && s[p->at] != '\n')
            p->at++;
        }
      else
        break;
    }

  t->pos = p->at;
  t->len = 1;
  if (p->at >= p->length)
    {
      t->kind = TOK_EOF;
      t->len = 0;
      return TRUE;
    }

  switch (s[p->at])
    {
    case '\n': t->kind = TOK_NEWLINE; break;
    case ';': t->kind = TOK_SEMI; break;
    case '(': t->kind = TOK_LPAREN; p->bracket_depth++; break;
    case ')': t->kind = TOK_RPAREN; p->bracket_depth = MAX (0, p->bracket_depth - 1); break;
    case '[': t->kind = TOK_LBRACKET; p->bracket_depth++; break;
    case ']': t->kind = TOK_RBRACKET; p->bracket_depth = MAX (0, p->bracket_depth - 1); break;
    case ',': t->kind = TOK_COMMA; break;
    case ':': t->kind = TOK_COLON; break;
    case '=': t->kind = TOK_ASSIGN; break;
    case '+': t->kind = TOK_PLUS; break;
    case '-': t->kind = TOK_MINUS; break;
    case '*': t->kind = TOK_STAR; break;
    case '/': t->kind = TOK_SLASH; break;
    case '@': t->kind = TOK_AT; break;
    case '.':
      if (p->at + 2 < p->length + 0 && s[p->at + 1] == '.' && s[p->at + 2] == '.')
        {
          t->kind = TOK_ELLIPSIS;
          t->len = 3;
        }
      else if (p->at + 1 < p->length && g_ascii_isdigit (s[p->at + 1]))
        goto number;
      else
        t->kind = TOK_DOT;
      break;

    case '"':
    case '\'':
      {
        char quote = s[p->at];
        gsize end = p->at + 1;

        while (end < p->length && s[end] != quote && s[end] != '\n')
          end++;
        if (end >= p->length || s[end] != quote)
          {
            parser_fail (p, t->pos, _("this string is not closed"));
            return FALSE;
          }
        t->kind = TOK_STRING;
        t->text = g_strndup (s + p->at + 1, end - p->at - 1);
        t->len = end + 1 - p->at;
      }
      break;

    default:
      if (g_ascii_isdigit (s[p->at]))
        goto number;
      if (is_name_start (s[p->at]))
        {
          gsize end = p->at;

          while (end < p->length && is_name_char (s[end]))
            end++;
          t->kind = TOK_NAME;
          t->text = g_strndup (s + p->at, end - p->at);
          t->len = end - p->at;
          break;
        }
      {
        /* Name the character whole, even when it is not ASCII. */
        gsize avail = p->length - p->at;
        const char *next = g_utf8_find_next_char (s + p->at, s + p->length);
        gsize n = next ? (gsize) (next - (s + p->at)) : avail;
        g_autofree char *what = g_strndup (s + p->at, MIN (n, avail));

        if (!g_utf8_validate (what, -1, NULL))
          parser_fail (p, t->pos, _("the program is not valid UTF-8 text"));
        else
          parser_fail (p, t->pos, _("“%s” is not part of the language"), what);
        return FALSE;
      }
    }
  p->at += t->len;
  return TRUE;

number:
  {
    gsize end = p->at;
    gboolean is_int = TRUE;
    g_autofree char *text = NULL;
    char *stop = NULL;

    while (end < p->length && (g_ascii_isdigit (s[end]) || s[end] == '_'))
      end++;
    if (end < p->length && s[end] == '.' && !(end + 1 < p->length && s[end + 1] == '.'))
      {
        is_int = FALSE;
        end++;
        while (end < p->length && g_ascii_isdigit (s[end]))
          end++;
      }
    if (end < p->length && (s[end] == 'e' || s[end] == 'E'))
      {
        gsize e = end + 1;

        if (e < p->length && (s[e] == '+' || s[e] == '-'))
          e++;
        if (e < p->length && g_ascii_isdigit (s[e]))
          {
            is_int = FALSE;
            end = e;
            while (end < p->length && g_ascii_isdigit (s[end]))
              end++;
          }
      }
    if (end < p->length && is_name_char (s[end]))
      {
        parser_fail (p, p->at, _("“%.*s” is not a number"),
                     (int) (end + 1 - p->at), s + p->at);
        return FALSE;
      }
    text = g_strndup (s + p->at, end - p->at);
    /* Python allows 1_000_000; strtod does not. */
    {
      char *w = text;
      for (const char *r = text; *r; r++)
        if (*r != '_')
          *w++ = *r;
      *w = '\0';
    }
    t->kind = TOK_NUMBER;
    t->number = g_ascii_strtod (text, &stop);
    t->is_int = is_int;
    t->len = end - p->at;
    if (stop == text || *stop != '\0' || !isfinite (t->number))
      {
        parser_fail (p, p->at, _("“%s” is not a number a double can hold"), text);
        return FALSE;
      }
    p->at = end;
    return TRUE;
  }
}

static gboolean
accept (Parser  *p,
        TokKind  kind)
{
  if (p->error != NULL || p->tok.kind != kind)
    return FALSE;
  return lex_next (p);
}

static gboolean
expect (Parser     *p,
        TokKind     kind,
        const char *context)
{
  if (p->error != NULL)
    return FALSE;
  if (p->tok.kind == kind)
    return lex_next (p);
  /* Translators: e.g. "expected “)” to close the call, found “;”" */
  parser_fail (p, p->tok.pos, _("expected %s %s, found %s"),
               tok_describe (kind), context, tok_describe (p->tok.kind));
  return FALSE;
}

static NkNode *parse_expr (Parser *p);

static gboolean
enter (Parser *p)
{
  if (++p->depth > MAX_DEPTH)
    {
      parser_fail (p, p->tok.pos, _("the expression is nested more than %d levels deep"),
                   MAX_DEPTH);
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

  while (p->error == NULL && p->tok.kind != TOK_RPAREN)
    {
      NkNode *arg;
      guint pos = p->tok.pos;

      arg = parse_expr (p);
      if (arg == NULL)
        break;
      if (p->tok.kind == TOK_ASSIGN)
        {
          NkNode *kw;

          if (arg->kind != NK_NODE_NAME)
            {
              parser_fail (p, p->tok.pos, _("only a name can be given a value in a call"));
              break;
            }
          lex_next (p);
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
          parser_fail (p, pos, _("a positional argument cannot follow a keyword argument"));
          break;
        }
      g_ptr_array_add (args, arg);
      if (!accept (p, TOK_COMMA))
        break;
    }
  expect (p, TOK_RPAREN, _("to close the argument list"));
  return args;
}

/* subscript := '...' | [expr] ':' [expr] [':' [expr]] | expr */
static NkNode *
parse_subscript (Parser *p)
{
  guint pos = p->tok.pos;
  NkNode *start = NULL;
  NkNode *slice;

  if (p->tok.kind == TOK_ELLIPSIS)
    {
      lex_next (p);
      return node_new (p, NK_NODE_ELLIPSIS, pos);
    }
  if (p->tok.kind != TOK_COLON)
    {
      start = parse_expr (p);
      if (start == NULL || p->tok.kind != TOK_COLON)
        return start;
    }
  lex_next (p);
  slice = node_new (p, NK_NODE_SLICE, pos);
  slice->a = start;
  if (p->tok.kind != TOK_COLON && p->tok.kind != TOK_COMMA && p->tok.kind != TOK_RBRACKET)
    {
      slice->b = parse_expr (p);
      if (slice->b == NULL)
        return NULL;
    }
  if (accept (p, TOK_COLON))
    {
      if (p->tok.kind != TOK_COMMA && p->tok.kind != TOK_RBRACKET)
        {
          slice->c = parse_expr (p);
          if (slice->c == NULL)
            return NULL;
        }
    }
  return p->error ? NULL : slice;
}

/* Elements of a list or tuple; the caller consumed the opening bracket. */
static GPtrArray *
parse_items (Parser  *p,
             TokKind  close,
             NkNode  *first)
{
  GPtrArray *items = g_ptr_array_new ();

  if (first != NULL)
    g_ptr_array_add (items, first);
  while (p->error == NULL && p->tok.kind != close)
    {
      NkNode *item = parse_expr (p);

      if (item == NULL)
        break;
      g_ptr_array_add (items, item);
      if (!accept (p, TOK_COMMA))
        break;
    }
  expect (p, close, close == TOK_RBRACKET ? _("to close the list") : _("to close the tuple"));
  return items;
}

static NkNode *
parse_primary (Parser *p)
{
  guint pos = p->tok.pos;
  NkNode *node;

  switch (p->tok.kind)
    {
    case TOK_NUMBER:
      node = node_new (p, NK_NODE_NUMBER, pos);
      node->number = p->tok.number;
      node->is_int = p->tok.is_int;
      lex_next (p);
      return p->error ? NULL : node;

    case TOK_STRING:
      node = node_new (p, NK_NODE_STRING, pos);
      node->text = g_strdup (p->tok.text);
      lex_next (p);
      return p->error ? NULL : node;

    case TOK_NAME:
      if (g_str_equal (p->tok.text, "True") || g_str_equal (p->tok.text, "False"))
        {
          node = node_new (p, NK_NODE_BOOL, pos);
          node->is_int = g_str_equal (p->tok.text, "True");
        }
      else if (g_str_equal (p->tok.text, "None"))
        node = node_new (p, NK_NODE_NONE, pos);
      else
        {
          node = node_new (p, NK_NODE_NAME, pos);
          node->text = g_strdup (p->tok.text);
        }
      lex_next (p);
      if (node->kind == NK_NODE_NAME && p->tok.kind == TOK_LPAREN)
        {
          node->kind = NK_NODE_CALL;
          lex_next (p);
          node->items = parse_args (p);
        }
      return p->error ? NULL : node;

    case TOK_LPAREN:
      {
        NkNode *first;

        lex_next (p);
        if (p->tok.kind == TOK_RPAREN)
          {
            lex_next (p);
            node = node_new (p, NK_NODE_TUPLE, pos);
            node->items = g_ptr_array_new ();
            return p->error ? NULL : node;
          }
        first = parse_expr (p);
        if (first == NULL)
          return NULL;
        if (accept (p, TOK_COMMA))
          {
            node = node_new (p, NK_NODE_TUPLE, pos);
            node->items = parse_items (p, TOK_RPAREN, first);
            return p->error ? NULL : node;
          }
        expect (p, TOK_RPAREN, _("to close the parenthesis"));
        return p->error ? NULL : first;
      }

    case TOK_LBRACKET:
      lex_next (p);
      node = node_new (p, NK_NODE_LIST, pos);
      node->items = parse_items (p, TOK_RBRACKET, NULL);
      return p->error ? NULL : node;

    case TOK_ELLIPSIS:
      parser_fail (p, pos, _("“...” can only be used inside [ ]"));
      return NULL;

    case TOK_COLON:
      parser_fail (p, pos, _("a slice “:” can only be used inside [ ]"));
      return NULL;

    default:
      parser_fail (p, pos, _("expected a value, found %s"), tok_describe (p->tok.kind));
      return NULL;
    }
}

static NkNode *
parse_postfix (Parser *p)
{
  NkNode *node = parse_primary (p);

  while (node != NULL && p->error == NULL)
    {
      if (p->tok.kind == TOK_DOT)
        {
          NkNode *member;

          lex_next (p);
          if (p->tok.kind != TOK_NAME)
            {
              parser_fail (p, p->tok.pos, _("expected a method or attribute name after “.”, found %s"),
                           tok_describe (p->tok.kind));
              return NULL;
            }
          member = node_new (p, NK_NODE_ATTR, p->tok.pos);
          member->text = g_strdup (p->tok.text);
          member->a = node;
          lex_next (p);
          if (p->tok.kind == TOK_LPAREN)
            {
              member->kind = NK_NODE_METHOD;
              lex_next (p);
              member->items = parse_args (p);
            }
          node = member;
        }
      else if (p->tok.kind == TOK_LBRACKET)
        {
          NkNode *index = node_new (p, NK_NODE_INDEX, p->tok.pos);

          index->a = node;
          index->items = g_ptr_array_new ();
          lex_next (p);
          if (p->tok.kind == TOK_RBRACKET)
            {
              parser_fail (p, p->tok.pos, _("an index is missing between “[” and “]”"));
              return NULL;
            }
          while (p->error == NULL && p->tok.kind != TOK_RBRACKET)
            {
              NkNode *sub = parse_subscript (p);

              if (sub == NULL)
                break;
              g_ptr_array_add (index->items, sub);
              if (!accept (p, TOK_COMMA))
                break;
            }
          expect (p, TOK_RBRACKET, _("to close the index"));
          node = index;
        }
      else
        break;
    }
  return p->error ? NULL : node;
}

static NkNode *
parse_unary (Parser *p)
{
  if (p->tok.kind == TOK_MINUS || p->tok.kind == TOK_PLUS)
    {
      NkNode *node = node_new (p, NK_NODE_UNARY, p->tok.pos);

      node->op = p->tok.kind == TOK_MINUS ? '-' : '+';
      lex_next (p);
      if (!enter (p))
        return NULL;
      node->a = parse_unary (p);
      p->depth--;
      return node->a ? node : NULL;
    }
  return parse_postfix (p);
}

static NkNode *
parse_term (Parser *p)
{
  NkNode *left = parse_unary (p);

  while (left != NULL && p->error == NULL &&
         (p->tok.kind == TOK_STAR || p->tok.kind == TOK_SLASH || p->tok.kind == TOK_AT))
    {
      NkNode *node = node_new (p, NK_NODE_BINARY, p->tok.pos);

      node->op = p->tok.kind == TOK_STAR ? '*' : p->tok.kind == TOK_SLASH ? '/' : '@';
      lex_next (p);
      node->a = left;
      node->b = parse_unary (p);
      left = node->b ? node : NULL;
    }
  return p->error ? NULL : left;
}

static NkNode *
parse_expr (Parser *p)
{
  NkNode *left;

  if (!enter (p))
    return NULL;
  left = parse_term (p);
  while (left != NULL && p->error == NULL &&
         (p->tok.kind == TOK_PLUS || p->tok.kind == TOK_MINUS))
    {
      NkNode *node = node_new (p, NK_NODE_BINARY, p->tok.pos);

      node->op = p->tok.kind == TOK_PLUS ? '+' : '-';
      lex_next (p);
      node->a = left;
      node->b = parse_term (p);
      left = node->b ? node : NULL;
    }
  p->depth--;
  return p->error ? NULL : left;
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
  guint pos = p->tok.pos;
  NkNode *target = parse_expr (p);
  NkNode *stmt;

  if (target == NULL)
    return NULL;
  if (p->tok.kind == TOK_ASSIGN)
    {
      guint eq = p->tok.pos;

      if (!is_assignable (target))
        {
          parser_fail (p, eq, _("only a name or an indexed name can be assigned to"));
          return NULL;
        }
      lex_next (p);
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
  if (p->tok.kind != TOK_SEMI && p->tok.kind != TOK_NEWLINE && p->tok.kind != TOK_EOF)
    {
      if (p->tok.kind == TOK_ASSIGN)
        parser_fail (p, p->tok.pos, _("a statement can only assign once"));
      else
        parser_fail (p, p->tok.pos, _("expected “;” or a new line before %s"),
                     tok_describe (p->tok.kind));
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

  p.source = source;
  p.length = strlen (source);
  p.arena = g_ptr_array_new_with_free_func (node_free);
  *error_pos = 0;
  *error_stmt_start = 0;

  if (lex_next (&p))
    {
      for (;;)
        {
          NkStatementInfo info = { 0 };

          /* A bad character right after a separator starts the next statement. */
          while (p.tok.kind == TOK_SEMI || p.tok.kind == TOK_NEWLINE)
            {
              if (!lex_next (&p))
                {
                  *error_stmt_start = p.error_pos;
                  break;
                }
            }
          if (p.error != NULL || p.tok.kind == TOK_EOF)
            break;
          info.start = p.tok.pos;
          *error_stmt_start = info.start;
          info.node = parse_statement (&p);
          if (info.node == NULL)
            break;
          /* The statement ends where its last token ended. */
          info.end = p.tok.pos;
          while (info.end > info.start && g_ascii_isspace (source[info.end - 1]))
            info.end--;
          g_array_append_val (stmts, info);
        }
    }
  else
    *error_stmt_start = 0;

  g_clear_pointer (&p.tok.text, g_free);
  *arena = p.arena;
  *statements = stmts;
  if (p.error != NULL)
    {
      *error_pos = p.error_pos;
      if (*error_stmt_start > *error_pos)
        *error_stmt_start = *error_pos;
      g_propagate_error (error, p.error);
      return FALSE;
    }
  return TRUE;
}

static void
dump_node (GString *out,
           NkNode  *node)
{
  if (node == NULL)
    {
      g_string_append (out, "_");
      return;
    }
  switch (node->kind)
    {
    case NK_NODE_NUMBER:
      if (node->is_int)
        g_string_append_printf (out, "%.0f", node->number);
      else
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (out, g_ascii_dtostr (buf, sizeof buf, node->number));
          if (strpbrk (buf, ".eEn") == NULL)
            g_string_append (out, ".0");
        }
      break;
    case NK_NODE_STRING: g_string_append_printf (out, "\"%s\"", node->text); break;
    case NK_NODE_NAME: g_string_append (out, node->text); break;
    case NK_NODE_BOOL: g_string_append (out, node->is_int ? "True" : "False"); break;
    case NK_NODE_NONE: g_string_append (out, "None"); break;
    case NK_NODE_ELLIPSIS: g_string_append (out, "..."); break;
    case NK_NODE_SLICE:
      g_string_append (out, "(: ");
      dump_node (out, node->a);
      g_string_append_c (out, ' ');
      dump_node (out, node->b);
      g_string_append_c (out, ' ');
      dump_node (out, node->c);
      g_string_append_c (out, ')');
      break;
    case NK_NODE_UNARY:
      g_string_append_printf (out, "(%c ", node->op);
      dump_node (out, node->a);
      g_string_append_c (out, ')');
      break;
    case NK_NODE_BINARY:
      g_string_append_printf (out, "(%c ", node->op);
      dump_node (out, node->a);
      g_string_append_c (out, ' ');
      dump_node (out, node->b);
      g_string_append_c (out, ')');
      break;
    case NK_NODE_KWARG:
      g_string_append_printf (out, "%s=", node->text);
      dump_node (out, node->a);
      break;
    case NK_NODE_ATTR:
      g_string_append (out, "(. ");
      dump_node (out, node->a);
      g_string_append_printf (out, " %s)", node->text);
      break;
    case NK_NODE_ASSIGN:
      g_string_append (out, "(= ");
      dump_node (out, node->a);
      g_string_append_c (out, ' ');
      dump_node (out, node->b);
      g_string_append_c (out, ')');
      break;
    case NK_NODE_EXPR:
      dump_node (out, node->a);
      break;
    case NK_NODE_CALL:
    case NK_NODE_METHOD:
    case NK_NODE_INDEX:
    case NK_NODE_TUPLE:
    case NK_NODE_LIST:
      if (node->kind == NK_NODE_CALL)
        g_string_append_printf (out, "(call %s", node->text);
      else if (node->kind == NK_NODE_METHOD)
        {
          g_string_append_printf (out, "(.%s ", node->text);
          dump_node (out, node->a);
        }
      else if (node->kind == NK_NODE_INDEX)
        {
          g_string_append (out, "([] ");
          dump_node (out, node->a);
        }
      else
        g_string_append (out, node->kind == NK_NODE_TUPLE ? "(tuple" : "(list");
      for (guint i = 0; i < node->items->len; i++)
        {
          g_string_append_c (out, ' ');
          dump_node (out, g_ptr_array_index (node->items, i));
        }
      g_string_append_c (out, ')');
      break;
    default:
      g_assert_not_reached ();
    }
}

/**
 * _nk_program_dump:
 * @source: a program
 * @error: the syntax error
 *
 * The parse tree as an S-expression per statement, joined by "; ". The tests use it
 * to check precedence and shapes of the tree without evaluating.
 *
 * Returns: (transfer full) (nullable): the dump, or %NULL on a syntax error
 */
char *
_nk_program_dump (const char  *source,
                  GError     **error)
{
  g_autoptr(GPtrArray) arena = NULL;
  g_autoptr(GArray) stmts = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  guint pos, start;

  if (!_nk_program_parse (source, &arena, &stmts, error, &pos, &start))
    return NULL;
  for (guint i = 0; i < stmts->len; i++)
    {
      if (i > 0)
        g_string_append (out, "; ");
      dump_node (out, g_array_index (stmts, NkStatementInfo, i).node);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ------------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------------ */

struct _NkProgramValue {
  gatomicrefcount     ref_count;
  NkProgramValueKind  kind;
  NkTensor           *tensor;
  gint64              i;
  double              d;
  gint64             *tuple;
  guint               n_tuple;
  char               *string;
};

G_DEFINE_BOXED_TYPE (NkProgramValue, nk_program_value, nk_program_value_ref, nk_program_value_unref)

static NkProgramValue *
value_new (NkProgramValueKind kind)
{
  NkProgramValue *value = g_new0 (NkProgramValue, 1);

  g_atomic_ref_count_init (&value->ref_count);
  value->kind = kind;
  return value;
}

static NkProgramValue *
value_new_tensor (NkTensor *tensor)
{
  NkProgramValue *value = value_new (NK_PROGRAM_VALUE_TENSOR);

  value->tensor = tensor;   /* takes the reference */
  return value;
}

static NkProgramValue *
value_new_int (gint64 i)
{
  NkProgramValue *value = value_new (NK_PROGRAM_VALUE_INT);

  value->i = i;
  value->d = (double) i;
  return value;
}

static NkProgramValue *
value_new_float (double d)
{
  NkProgramValue *value = value_new (NK_PROGRAM_VALUE_FLOAT);

  value->d = d;
  return value;
}

static NkProgramValue *
value_new_bool (gboolean b)
{
  NkProgramValue *value = value_new (NK_PROGRAM_VALUE_BOOL);

  value->i = b ? 1 : 0;
  value->d = value->i;
  return value;
}

static NkProgramValue *
value_new_tuple (guint         n,
                 const gint64 *items)
{
  NkProgramValue *value = value_new (NK_PROGRAM_VALUE_TUPLE);

  value->n_tuple = n;
  value->tuple = g_memdup2 (items, MAX (n, 1) * sizeof (gint64));
  return value;
}

/**
 * nk_program_value_ref:
 * @value: a value
 *
 * Returns: (transfer full): @value
 */
NkProgramValue *
nk_program_value_ref (NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);

  g_atomic_ref_count_inc (&value->ref_count);
  return value;
}

/**
 * nk_program_value_unref:
 * @value: (transfer full): a value
 */
void
nk_program_value_unref (NkProgramValue *value)
{
  g_return_if_fail (value != NULL);

  if (g_atomic_ref_count_dec (&value->ref_count))
    {
      g_clear_pointer (&value->tensor, nk_tensor_unref);
      g_free (value->tuple);
      g_free (value->string);
      g_free (value);
    }
}

/**
 * nk_program_value_get_kind:
 * @value: a value
 *
 * Returns: what @value holds
 */
NkProgramValueKind
nk_program_value_get_kind (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NK_PROGRAM_VALUE_NONE);
  return value->kind;
}

/**
 * nk_program_value_get_tensor:
 * @value: a value
 *
 * Returns: (transfer none) (nullable): the tensor, or %NULL if @value is not one
 */
NkTensor *
nk_program_value_get_tensor (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);
  return value->tensor;
}

/**
 * nk_program_value_get_int:
 * @value: an int or bool value
 *
 * Returns: the integer (0 for other kinds)
 */
gint64
nk_program_value_get_int (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, 0);
  return value->i;
}

/**
 * nk_program_value_get_double:
 * @value: an int, float or bool value
 *
 * Returns: the number as a double (0 for other kinds)
 */
double
nk_program_value_get_double (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, 0);
  return value->d;
}

/**
 * nk_program_value_get_bool:
 * @value: a bool value
 *
 * Returns: the boolean
 */
gboolean
nk_program_value_get_bool (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, FALSE);
  return value->i != 0;
}

/**
 * nk_program_value_get_tuple:
 * @value: a tuple value
 * @n_items: (out): number of items
 *
 * Returns: (transfer none) (array length=n_items) (nullable): the items
 */
const gint64 *
nk_program_value_get_tuple (const NkProgramValue *value,
                            guint                *n_items)
{
  g_return_val_if_fail (value != NULL, NULL);
  g_return_val_if_fail (n_items != NULL, NULL);
  *n_items = value->n_tuple;
  return value->tuple;
}

/**
 * nk_program_value_get_string:
 * @value: a string value
 *
 * Returns: (transfer none) (nullable): the string
 */
const char *
nk_program_value_get_string (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);
  return value->string;
}

static void
append_double (GString *out,
               double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (d))
    g_string_append (out, "nan");
  else if (isinf (d))
    g_string_append (out, d > 0 ? "inf" : "-inf");
  else
    {
      g_ascii_formatd (buf, sizeof buf, "%.9g", d);
      g_string_append (out, buf);
      if (strpbrk (buf, ".e") == NULL)
        g_string_append (out, ".0");
    }
}

/**
 * nk_program_value_to_string:
 * @value: a value
 *
 * The value as Python would print it for scalars, booleans, tuples and strings
 * ("4", "0.5", "True", "(4, 1)", "'b h'"); a tensor's layout for tensors.
 *
 * Returns: (transfer full): the text
 */
char *
nk_program_value_to_string (const NkProgramValue *value)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (value != NULL, NULL);

  switch (value->kind)
    {
    case NK_PROGRAM_VALUE_NONE:
      g_string_append (out, "None");
      break;
    case NK_PROGRAM_VALUE_TENSOR:
      {
        g_autofree char *layout = nk_tensor_format_layout (value->tensor);
        g_string_append (out, layout);
      }
      break;
    case NK_PROGRAM_VALUE_INT:
      g_string_append_printf (out, "%" PRId64, value->i);
      break;
    case NK_PROGRAM_VALUE_FLOAT:
      append_double (out, value->d);
      break;
    case NK_PROGRAM_VALUE_BOOL:
      g_string_append (out, value->i ? "True" : "False");
      break;
    case NK_PROGRAM_VALUE_TUPLE:
      g_string_append_c (out, '(');
      for (guint i = 0; i < value->n_tuple; i++)
        g_string_append_printf (out, "%s%" PRId64, i ? ", " : "", value->tuple[i]);
      if (value->n_tuple == 1)
        g_string_append_c (out, ',');
      g_string_append_c (out, ')');
      break;
    case NK_PROGRAM_VALUE_STRING:
      g_string_append_printf (out, "'%s'", value->string);
      break;
    default:
      g_assert_not_reached ();
    }
  return g_string_free (out, FALSE);
}

static const char *
kind_name (NkProgramValueKind kind)
{
  switch (kind)
    {
    case NK_PROGRAM_VALUE_NONE: return _("None");
    case NK_PROGRAM_VALUE_TENSOR: return _("a tensor");
    case NK_PROGRAM_VALUE_INT: return _("an integer");
    case NK_PROGRAM_VALUE_FLOAT: return _("a float");
    case NK_PROGRAM_VALUE_BOOL: return _("a boolean");
    case NK_PROGRAM_VALUE_TUPLE: return _("a tuple");
    case NK_PROGRAM_VALUE_STRING: return _("a string");
    default: g_assert_not_reached ();
    }
}

/* ------------------------------------------------------------------------------
 * The program object
 * ------------------------------------------------------------------------------ */

typedef struct {
  char           *name;
  NkProgramValue *value;
  guint           statement;   /* 1-based */
} Binding;

/* What one statement did to memory, for the page to say "reshape copied". */
typedef struct {
  const char *op;          /* static or in the arena: valid until the next run */
  gboolean    copied;
  gsize       new_bytes;
} StatementFacts;

static void
binding_free (gpointer data)
{
  Binding *b = data;

  g_free (b->name);
  g_clear_pointer (&b->value, nk_program_value_unref);
  g_free (b);
}

struct _NkProgram
{
  GObject     parent_instance;

  NkDType     dtype;
  char       *source;

  GPtrArray  *arena;
  GArray     *statements;    /* NkStatementInfo, every statement that parsed */
  GPtrArray  *values;        /* NkProgramValue per statement that ran */
  GPtrArray  *stmt_names;    /* char * (nullable) per statement that ran */
  GHashTable *env;           /* name → Binding */
  GPtrArray  *order;         /* Binding (not owned), by statement */

  GArray     *stmt_facts;    /* StatementFacts per statement that ran */

  guint       error_statement;
  guint       error_column;
  guint       error_offset;  /* byte offset of the failure in the source */
  guint       error_start;   /* the failing statement's range, in bytes */
  guint       error_end;
  char       *error_reason;

  GHashTable *storages;      /* storages counted against the allocation budget */
  gint64      allocated;
};

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

  self->stmt_facts = g_array_new (FALSE, TRUE, sizeof (StatementFacts));

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
  nk_program_reset (self);
}

/**
 * nk_program_new:
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
 * nk_program_get_source:
 * @self: a program
 *
 * Returns: (nullable): the text of the last run
 */
const char *
nk_program_get_source (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  return self->source;
}

/* ------------------------------------------------------------------------------
 * Evaluation
 * ------------------------------------------------------------------------------ */

/* Integers from the program are kept within ±2^53 so they are exact as doubles and
 * sums of two never overflow. */
#define MAX_INT (G_GINT64_CONSTANT (1) << 53)

typedef struct {
  NkProgram *self;
  guint      statement;    /* 1-based */
  GError    *error;
  guint      error_pos;
  int        depth;
  GPtrArray *new_storages; /* NkStorage (not owned) the statement allocated ... */
  GPtrArray *new_nodes;    /* ... and the NkNode of the op that did, in step */
} Eval;

typedef struct {
  GPtrArray *pos;          /* NkProgramValue */
  GPtrArray *pos_nodes;    /* NkNode, for error columns */
  GPtrArray *kw_names;     /* const char * */
  GPtrArray *kw_values;    /* NkProgramValue */
  GPtrArray *kw_nodes;
  guint     *kw_used;
} Args;

static void
args_clear (Args *args)
{
  g_clear_pointer (&args->pos, g_ptr_array_unref);
  g_clear_pointer (&args->pos_nodes, g_ptr_array_unref);
  g_clear_pointer (&args->kw_names, g_ptr_array_unref);
  g_clear_pointer (&args->kw_values, g_ptr_array_unref);
  g_clear_pointer (&args->kw_nodes, g_ptr_array_unref);
  g_clear_pointer (&args->kw_used, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Args, args_clear)

static void
fail (Eval       *ev,
      NkNode     *node,
      int         code,
      const char *format,
      ...) G_GNUC_PRINTF (4, 5);

static void
fail (Eval       *ev,
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
static void
fail_with (Eval   *ev,
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
  fail (ev, node, code, "%s", error->message);
  g_error_free (error);
}

/* Every tensor value passes here: the size caps of the header, and the budget of
 * storage the program has allocated. */
/* @error is a pointer so that it is read after @tensor was computed: C leaves the
 * order of argument evaluation open. */
static NkProgramValue *
tensor_result (Eval      *ev,
               NkNode    *node,
               NkTensor  *tensor,
               GError   **error)
{
  NkProgram *self = ev->self;
  gint64 numel;

  if (tensor == NULL)
    {
      g_assert (error != NULL && *error != NULL);
      fail_with (ev, node, g_steal_pointer (error));
      return NULL;
    }
  numel = nk_tensor_numel (tensor);
  if (numel > NK_PROGRAM_MAX_NUMEL)
    {
      g_autofree char *shape = nk_format_shape (tensor->ndim, tensor->shape);

      fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
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
          fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
                _("the program has allocated more than %" PRId64 " elements in all"),
                NK_PROGRAM_MAX_TOTAL_NUMEL);
          nk_tensor_unref (tensor);
          return NULL;
        }
    }
  return value_new_tensor (tensor);
}

/* The product of sizes, refusing negative sizes and anything beyond the cap before
 * the tensor core multiplies them. -1 (inferred) is allowed when @allow_infer. */
static gboolean
check_sizes (Eval         *ev,
             NkNode       *node,
             int           n,
             const gint64 *sizes,
             gboolean      allow_infer)
{
  gint64 product = 1;
  int inferred = 0;

  for (int i = 0; i < n; i++)
    {
      if (sizes[i] == -1 && allow_infer)
        {
          if (++inferred > 1)
            {
              fail (ev, node, NK_PROGRAM_ERROR_SHAPE, _("only one dimension can be inferred"));
              return FALSE;
            }
          continue;
        }
      if (sizes[i] < 0)
        {
          fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
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

    fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
          _("the shape %s has more than the %" PRId64 " elements a program may make"),
          shape, NK_PROGRAM_MAX_NUMEL);
    return FALSE;
  }
}

static NkProgramValue *eval_expr (Eval *ev, NkNode *node);

static gboolean
as_int (Eval           *ev,
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
      fabs (value->d) <= MAX_INT)
    {
      *out = (gint64) value->d;
      return TRUE;
    }
  if (value->kind == NK_PROGRAM_VALUE_FLOAT)
    fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s must be an integer, not %g"), what, value->d);
  else
    fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s must be an integer, not %s"), what,
          kind_name (value->kind));
  return FALSE;
}

static gboolean
as_number (Eval           *ev,
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
  fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s must be a number, not %s"), what,
        kind_name (value->kind));
  return FALSE;
}

/* PyTorch's dim wrapping: -ndim ≤ dim < ndim (ndim of at least 1 for 0-D). */
static gboolean
wrap_dim (Eval   *ev,
          NkNode *node,
          gint64  dim,
          int     ndim,
          int    *out)
{
  int n = MAX (ndim, 1);

  if (dim < -n || dim >= n)
    {
      fail (ev, node, NK_PROGRAM_ERROR_INDEX,
            _("Dimension out of range (expected to be in range of [%d, %d], but got %"
              PRId64 ")"), -n, n - 1, dim);
      return FALSE;
    }
  *out = (int) (dim < 0 ? dim + n : dim);
  return TRUE;
}

static gboolean
eval_args (Eval      *ev,
           NkNode    *call,
           Args      *args)
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
                fail (ev, arg, NK_PROGRAM_ERROR_TYPE,
                      _("the keyword argument “%s” is given twice"), arg->text);
                return FALSE;
              }
          value = eval_expr (ev, arg->a);
          if (value == NULL)
            return FALSE;
          g_ptr_array_add (args->kw_names, arg->text);
          g_ptr_array_add (args->kw_values, value);
          g_ptr_array_add (args->kw_nodes, arg);
        }
      else
        {
          value = eval_expr (ev, arg);
          if (value == NULL)
            return FALSE;
          g_ptr_array_add (args->pos, value);
          g_ptr_array_add (args->pos_nodes, arg);
        }
    }
  args->kw_used = g_new0 (guint, args->kw_names->len + 1);
  return TRUE;
}

static NkProgramValue *
arg_pos (Args *args,
         guint i)
{
  return i < args->pos->len ? g_ptr_array_index (args->pos, i) : NULL;
}

static NkNode *
arg_node (Args   *args,
          guint   i,
          NkNode *call)
{
  return i < args->pos_nodes->len ? g_ptr_array_index (args->pos_nodes, i) : call;
}

/* A keyword argument, or the positional one at @i when @i >= 0. */
static NkProgramValue *
arg_named (Args       *args,
           const char *name,
           int         i,
           NkNode    **node,
           NkNode     *call)
{
  for (guint j = 0; j < args->kw_names->len; j++)
    if (g_str_equal (g_ptr_array_index (args->kw_names, j), name))
      {
        args->kw_used[j] = 1;
        *node = g_ptr_array_index (args->kw_nodes, j);
        return g_ptr_array_index (args->kw_values, j);
      }
  *node = i >= 0 ? arg_node (args, i, call) : call;
  return i >= 0 ? arg_pos (args, i) : NULL;
}

/* Positional count in [min, max]; no keywords beyond @keywords. */
static gboolean
check_arity (Eval              *ev,
             NkNode            *call,
             Args              *args,
             guint              min,
             guint              max,
             const char *const *keywords)
{
  if (args->pos->len < min || args->pos->len > max)
    {
      if (min == max)
        fail (ev, call, NK_PROGRAM_ERROR_TYPE,
              g_dngettext (GETTEXT_PACKAGE, "%s() takes %u argument but %u were given",
                           "%s() takes %u arguments but %u were given", min),
              call->text, min, args->pos->len);
      else if (max == G_MAXUINT)
        fail (ev, call, NK_PROGRAM_ERROR_TYPE,
              _("%s() takes at least %u arguments but %u were given"),
              call->text, min, args->pos->len);
      else
        fail (ev, call, NK_PROGRAM_ERROR_TYPE,
              _("%s() takes from %u to %u arguments but %u were given"),
              call->text, min, max, args->pos->len);
      return FALSE;
    }
  for (guint j = 0; j < args->kw_names->len; j++)
    {
      const char *name = g_ptr_array_index (args->kw_names, j);

      if (keywords == NULL || !g_strv_contains (keywords, name))
        {
          fail (ev, g_ptr_array_index (args->kw_nodes, j), NK_PROGRAM_ERROR_NAME,
                _("%s() has no argument called “%s”"), call->text, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* Sizes given as varargs ints (view(3, 4)) or one tuple (view((3, 4)), view(x.shape)),
 * starting at positional @first. */
static gboolean
shape_args (Eval    *ev,
            NkNode  *call,
            Args    *args,
            guint    first,
            int     *ndim,
            gint64  *shape)
{
  NkProgramValue *only = arg_pos (args, first);

  if (args->pos->len == first + 1 && only->kind == NK_PROGRAM_VALUE_TUPLE)
    {
      if (only->n_tuple > NK_MAX_DIMS)
        {
          fail (ev, arg_node (args, first, call), NK_PROGRAM_ERROR_SHAPE,
                _("tensors have at most %d dimensions, not %u"), NK_MAX_DIMS, only->n_tuple);
          return FALSE;
        }
      *ndim = only->n_tuple;
      memcpy (shape, only->tuple, only->n_tuple * sizeof (gint64));
      return TRUE;
    }
  if (args->pos->len - first > NK_MAX_DIMS)
    {
      fail (ev, call, NK_PROGRAM_ERROR_SHAPE,
            _("tensors have at most %d dimensions, not %u"), NK_MAX_DIMS, args->pos->len - first);
      return FALSE;
    }
  *ndim = args->pos->len - first;
  for (guint i = first; i < args->pos->len; i++)
    if (!as_int (ev, arg_node (args, i, call), arg_pos (args, i), _("a size"), &shape[i - first]))
      return FALSE;
  return TRUE;
}

/* Dims given as varargs or one tuple (permute(1, 0), sum((0, 1))). */
static gboolean
dims_arg (Eval           *ev,
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
          fail (ev, node, NK_PROGRAM_ERROR_INDEX, _("too many dimensions (%u)"), value->n_tuple);
          return FALSE;
        }
      *n = value->n_tuple;
      for (guint i = 0; i < value->n_tuple; i++)
        if (!wrap_dim (ev, node, value->tuple[i], t->ndim, &dims[i]))
          return FALSE;
      return TRUE;
    }
  {
    gint64 d;

    *n = 1;
    return as_int (ev, node, value, _("a dimension"), &d) &&
           wrap_dim (ev, node, d, t->ndim, &dims[0]);
  }
}

/* ---- tensor([[...]]) ---- */

static gboolean
literal_shape (Eval   *ev,
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
          fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
                _("the nested lists have different depths"));
          return FALSE;
        }
      return TRUE;
    }
  if (depth >= NK_MAX_DIMS)
    {
      fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
            _("tensors have at most %d dimensions"), NK_MAX_DIMS);
      return FALSE;
    }
  if (*ndim >= 0 && depth >= *ndim)
    {
      fail (ev, node, NK_PROGRAM_ERROR_SHAPE, _("the nested lists have different depths"));
      return FALSE;
    }
  if (shape[depth] < 0)
    shape[depth] = node->items->len;
  else if (shape[depth] != (gint64) node->items->len)
    {
      fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
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
          fail (ev, node, NK_PROGRAM_ERROR_SHAPE, _("the nested lists have different depths"));
          return FALSE;
        }
    }
  for (guint i = 0; i < node->items->len; i++)
    if (!literal_shape (ev, g_ptr_array_index (node->items, i), depth + 1, ndim, shape))
      return FALSE;
  return TRUE;
}

static gboolean
literal_values (Eval   *ev,
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
    g_autoptr(NkProgramValue) v = eval_expr (ev, node);
    double d;

    if (v == NULL || !as_number (ev, node, v, _("an element of tensor()"), &d))
      return FALSE;
    g_array_append_val (values, d);
    return TRUE;
  }
}

static NkProgramValue *
make_tensor_literal (Eval   *ev,
                     NkNode *call)
{
  NkNode *data;
  gint64 shape[NK_MAX_DIMS];
  int ndim = -1;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  GError *error = NULL;
  NkTensor *t;

  if (call->items->len != 1 || ((NkNode *) g_ptr_array_index (call->items, 0))->kind == NK_NODE_KWARG)
    {
      fail (ev, call, NK_PROGRAM_ERROR_TYPE,
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
  return tensor_result (ev, call, t, &error);
}

/* ---- constructors and functions ---- */

static NkProgramValue *
call_arange (Eval   *ev,
             NkNode *call,
             Args   *args)
{
  double start = 0, end, step = 1, count;
  g_autofree double *values = NULL;
  GError *error = NULL;
  NkTensor *t;
  gint64 n;

  if (!check_arity (ev, call, args, 1, 3, NULL))
    return NULL;
  if (args->pos->len == 1)
    {
      if (!as_number (ev, arg_node (args, 0, call), arg_pos (args, 0), _("the end"), &end))
        return NULL;
    }
  else
    {
      if (!as_number (ev, arg_node (args, 0, call), arg_pos (args, 0), _("the start"), &start) ||
          !as_number (ev, arg_node (args, 1, call), arg_pos (args, 1), _("the end"), &end))
        return NULL;
      if (args->pos->len == 3 &&
          !as_number (ev, arg_node (args, 2, call), arg_pos (args, 2), _("the step"), &step))
        return NULL;
    }
  if (step == 0)
    {
      fail (ev, call, NK_PROGRAM_ERROR_TYPE, _("step must be nonzero"));
      return NULL;
    }
  count = ceil ((end - start) / step);
  if (!isfinite (count))
    {
      fail (ev, call, NK_PROGRAM_ERROR_TYPE, _("arange() needs finite bounds"));
      return NULL;
    }
  if (count > NK_PROGRAM_MAX_NUMEL)
    {
      fail (ev, call, NK_PROGRAM_ERROR_LIMIT,
            _("arange() would make %.0f elements, more than the %" PRId64
              " a program may make"), count, NK_PROGRAM_MAX_NUMEL);
      return NULL;
    }
  n = count > 0 ? (gint64) count : 0;
  values = g_new (double, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = start + (double) i * step;
  t = nk_tensor_new_from_doubles (ev->self->dtype, 1, &n, values, &error);
  return tensor_result (ev, call, t, &error);
}

static NkProgramValue *
call_filled (Eval   *ev,
             NkNode *call,
             Args   *args,
             double  fill)
{
  gint64 shape[NK_MAX_DIMS];
  int ndim;
  GError *error = NULL;
  NkTensor *t;

  if (!check_arity (ev, call, args, 0, G_MAXUINT, NULL) ||
      !shape_args (ev, call, args, 0, &ndim, shape) ||
      !check_sizes (ev, call, ndim, shape, FALSE))
    return NULL;
  t = nk_tensor_full (ev->self->dtype, ndim, shape, fill, &error);
  return tensor_result (ev, call, t, &error);
}

static NkTensor *
arg_tensor (Eval   *ev,
            NkNode *call,
            Args   *args,
            guint   i)
{
  NkProgramValue *v = arg_pos (args, i);

  if (v->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      fail (ev, arg_node (args, i, call), NK_PROGRAM_ERROR_TYPE,
            _("%s() needs a tensor here, not %s"), call->text, kind_name (v->kind));
      return NULL;
    }
  return v->tensor;
}

static const char *
arg_string (Eval   *ev,
            NkNode *call,
            Args   *args,
            guint   i)
{
  NkProgramValue *v = arg_pos (args, i);

  if (v->kind != NK_PROGRAM_VALUE_STRING)
    {
      fail (ev, arg_node (args, i, call), NK_PROGRAM_ERROR_TYPE,
            _("%s() needs a string here, not %s"), call->text, kind_name (v->kind));
      return NULL;
    }
  return v->string;
}

/* rearrange(x, "pattern", a=2) and reduce(x, "pattern", "sum", a=2) */
static NkProgramValue *
call_einops (Eval     *ev,
             NkNode   *call,
             Args     *args,
             gboolean  reduce)
{
  guint n_fixed = reduce ? 3 : 2;
  NkTensor *x;
  const char *pattern;
  NkEinopsReduction reduction = NK_EINOPS_SUM;
  g_autofree gint64 *sizes = NULL;
  GError *error = NULL;
  NkTensor *t;

  if (args->pos->len != n_fixed)
    {
      fail (ev, call, NK_PROGRAM_ERROR_TYPE,
            reduce ? _("reduce() takes a tensor, a pattern and a reduction (\"sum\", \"mean\", "
                       "\"max\" or \"min\"), then sizes as name=value")
                   : _("rearrange() takes a tensor and a pattern, then sizes as name=value"));
      return NULL;
    }
  if ((x = arg_tensor (ev, call, args, 0)) == NULL ||
      (pattern = arg_string (ev, call, args, 1)) == NULL)
    return NULL;
  if (reduce)
    {
      const char *name = arg_string (ev, call, args, 2);

      if (name == NULL)
        return NULL;
      if (!nk_einops_reduction_from_name (name, &reduction, &error))
        {
          fail_with (ev, arg_node (args, 2, call), error);
          return NULL;
        }
    }
  sizes = g_new0 (gint64, args->kw_names->len + 1);
  for (guint i = 0; i < args->kw_names->len; i++)
    if (!as_int (ev, g_ptr_array_index (args->kw_nodes, i), g_ptr_array_index (args->kw_values, i),
                 _("an axis size"), &sizes[i]))
      return NULL;
  if (reduce)
    t = nk_einops_reduce (x, pattern, reduction, args->kw_names->len,
                          (const char *const *) args->kw_names->pdata, sizes, &error);
  else
    t = nk_einops_rearrange (x, pattern, args->kw_names->len,
                             (const char *const *) args->kw_names->pdata, sizes, &error);
  return tensor_result (ev, call, t, &error);
}

static NkProgramValue *
call_einsum (Eval   *ev,
             NkNode *call,
             Args   *args)
{
  g_autofree NkTensor **operands = NULL;
  const char *pattern;
  GError *error = NULL;
  NkTensor *t;
  guint n;

  if (!check_arity (ev, call, args, 2, G_MAXUINT, NULL))
    return NULL;
  n = args->pos->len - 1;
  operands = g_new0 (NkTensor *, n);
  for (guint i = 0; i < n; i++)
    if ((operands[i] = arg_tensor (ev, call, args, i)) == NULL)
      return NULL;
  if ((pattern = arg_string (ev, call, args, n)) == NULL)
    return NULL;
  t = nk_einops_einsum (n, operands, pattern, NK_PROGRAM_MAX_NUMEL, &error);
  return tensor_result (ev, call, t, &error);
}

static NkProgramValue *
eval_call (Eval   *ev,
           NkNode *call)
{
  g_auto(Args) args = { 0 };
  const char *name = call->text;

  /* tensor() reads its nested list itself: lists are not values of the language. */
  if (g_str_equal (name, "tensor"))
    return make_tensor_literal (ev, call);

  if (!eval_args (ev, call, &args))
    return NULL;

  if (g_str_equal (name, "arange"))
    return call_arange (ev, call, &args);
  if (g_str_equal (name, "zeros"))
    return call_filled (ev, call, &args, 0.0);
  if (g_str_equal (name, "ones"))
    return call_filled (ev, call, &args, 1.0);
  if (g_str_equal (name, "rearrange"))
    return call_einops (ev, call, &args, FALSE);
  if (g_str_equal (name, "reduce"))
    return call_einops (ev, call, &args, TRUE);
  if (g_str_equal (name, "einsum"))
    return call_einsum (ev, call, &args);
  if (g_str_equal (name, "same_storage"))
    {
      NkTensor *a, *b;

      if (!check_arity (ev, call, &args, 2, 2, NULL) ||
          (a = arg_tensor (ev, call, &args, 0)) == NULL ||
          (b = arg_tensor (ev, call, &args, 1)) == NULL)
        return NULL;
      return value_new_bool (nk_tensor_same_storage (a, b));
    }

  fail (ev, call, NK_PROGRAM_ERROR_NAME,
        _("“%s” is not a function (there are arange, zeros, ones, tensor, rearrange, reduce, "
          "einsum and same_storage)"), name);
  return NULL;
}

/* ---- methods ---- */

static NkProgramValue *
reduce_method (Eval       *ev,
               NkNode     *call,
               Args       *args,
               NkTensor   *x,
               NkReduceOp  op)
{
  static const char *const keywords[] = { "dim", "keepdim", NULL };
  NkProgramValue *dim_value, *keep_value;
  NkNode *dim_node, *keep_node;
  int dims[NK_MAX_DIMS];
  int n = 0;
  gboolean keepdim = FALSE;
  GError *error = NULL;
  NkTensor *t;

  if (!check_arity (ev, call, args, 0, 2, keywords))
    return NULL;
  dim_value = arg_named (args, "dim", 0, &dim_node, call);
  keep_value = arg_named (args, "keepdim", 1, &keep_node, call);
  if (dim_value != NULL && dim_value->kind != NK_PROGRAM_VALUE_NONE &&
      !dims_arg (ev, dim_node, dim_value, x, &n, dims))
    return NULL;
  if (keep_value != NULL)
    {
      if (keep_value->kind != NK_PROGRAM_VALUE_BOOL)
        {
          fail (ev, keep_node, NK_PROGRAM_ERROR_TYPE, _("keepdim must be True or False"));
          return NULL;
        }
      keepdim = keep_value->i != 0;
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (dims[i] == dims[j])
        {
          fail (ev, dim_node, NK_PROGRAM_ERROR_INDEX,
                _("dim %d appears multiple times in the list of dims"), dims[i]);
          return NULL;
        }
  if (x->ndim == 0)
    n = 0;
  t = nk_reduce (op, x, n, dims, keepdim, &error);
  return tensor_result (ev, call, t, &error);
}

static gboolean
int_arg (Eval       *ev,
         NkNode     *call,
         Args       *args,
         guint       i,
         const char *what,
         gint64     *out)
{
  return as_int (ev, arg_node (args, i, call), arg_pos (args, i), what, out);
}

static gboolean
dim_arg (Eval     *ev,
         NkNode   *call,
         Args     *args,
         guint     i,
         NkTensor *x,
         int       extra,
         int      *out)
{
  gint64 d;

  return int_arg (ev, call, args, i, _("a dimension"), &d) &&
         wrap_dim (ev, arg_node (args, i, call), d, x->ndim + extra, out);
}

static NkProgramValue *
eval_method (Eval   *ev,
             NkNode *call)
{
  g_autoptr(NkProgramValue) object = NULL;
  g_auto(Args) args = { 0 };
  const char *name = call->text;
  NkTensor *x;
  NkTensor *t = NULL;
  GError *error = NULL;

  object = eval_expr (ev, call->a);
  if (object == NULL)
    return NULL;
  if (!eval_args (ev, call, &args))
    return NULL;
  if (object->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      fail (ev, call, NK_PROGRAM_ERROR_TYPE,
            _("%s() is a method of tensors, but this is %s"), name, kind_name (object->kind));
      return NULL;
    }
  x = object->tensor;

  if (g_str_equal (name, "view") || g_str_equal (name, "reshape") ||
      g_str_equal (name, "expand"))
    {
      gint64 shape[NK_MAX_DIMS];
      int ndim;

      if (!check_arity (ev, call, &args, 1, G_MAXUINT, NULL) ||
          !shape_args (ev, call, &args, 0, &ndim, shape) ||
          !check_sizes (ev, call, ndim, shape, TRUE))
        return NULL;
      if (g_str_equal (name, "view"))
        t = nk_tensor_view (x, ndim, shape, &error);
      else if (g_str_equal (name, "reshape"))
        t = nk_tensor_reshape (x, ndim, shape, &error);
      else
        t = nk_tensor_expand (x, ndim, shape, &error);
    }
  else if (g_str_equal (name, "transpose"))
    {
      int d0, d1;

      if (!check_arity (ev, call, &args, 2, 2, NULL) ||
          !dim_arg (ev, call, &args, 0, x, 0, &d0) ||
          !dim_arg (ev, call, &args, 1, x, 0, &d1))
        return NULL;
      if (x->ndim == 0)
        return tensor_result (ev, call, nk_tensor_alias (x), NULL);
      t = nk_tensor_transpose (x, d0, d1, &error);
    }
  else if (g_str_equal (name, "t"))
    {
      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      t = nk_tensor_t (x, &error);
    }
  else if (g_str_equal (name, "permute"))
    {
      int dims[NK_MAX_DIMS];
      gint64 raw[NK_MAX_DIMS];
      int n;
      guint seen = 0;

      if (!check_arity (ev, call, &args, 1, G_MAXUINT, NULL) ||
          !shape_args (ev, call, &args, 0, &n, raw))
        return NULL;
      if (n != x->ndim)
        {
          fail (ev, call, NK_PROGRAM_ERROR_SHAPE,
                _("permute(sparse_coo): number of dimensions in the tensor input does not "
                  "match the length of the desired ordering of dimensions i.e. input.dim() = %d "
                  "is not equal to len(dims) = %d"), x->ndim, n);
          return NULL;
        }
      for (int i = 0; i < n; i++)
        {
          if (!wrap_dim (ev, call, raw[i], x->ndim, &dims[i]))
            return NULL;
          if (seen & (1u << dims[i]))
            {
              fail (ev, call, NK_PROGRAM_ERROR_INDEX, _("permute(): duplicate dims are not allowed."));
              return NULL;
            }
          seen |= 1u << dims[i];
        }
      t = n > 0 ? nk_tensor_permute (x, n, dims, &error) : nk_tensor_alias (x);
    }
  else if (g_str_equal (name, "contiguous") || g_str_equal (name, "clone"))
    {
      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      t = g_str_equal (name, "clone") ? nk_tensor_clone (x, &error)
                                      : nk_tensor_contiguous (x, &error);
    }
  else if (g_str_equal (name, "narrow"))
    {
      gint64 start, length;
      int dim;

      if (!check_arity (ev, call, &args, 3, 3, NULL) ||
          !dim_arg (ev, call, &args, 0, x, 0, &dim) ||
          !int_arg (ev, call, &args, 1, _("the start"), &start) ||
          !int_arg (ev, call, &args, 2, _("the length"), &length))
        return NULL;
      if (x->ndim == 0)
        {
          fail (ev, call, NK_PROGRAM_ERROR_INDEX, _("narrow() cannot be applied to a 0-dim tensor."));
          return NULL;
        }
      t = nk_tensor_narrow (x, dim, start, length, &error);
    }
  else if (g_str_equal (name, "select"))
    {
      gint64 index;
      int dim;

      if (!check_arity (ev, call, &args, 2, 2, NULL) ||
          !dim_arg (ev, call, &args, 0, x, 0, &dim) ||
          !int_arg (ev, call, &args, 1, _("the index"), &index))
        return NULL;
      if (x->ndim == 0)
        {
          fail (ev, call, NK_PROGRAM_ERROR_INDEX, _("select() cannot be applied to a 0-dim tensor."));
          return NULL;
        }
      t = nk_tensor_select (x, dim, index, &error);
    }
  else if (g_str_equal (name, "unsqueeze"))
    {
      int dim;

      if (!check_arity (ev, call, &args, 1, 1, NULL) ||
          !dim_arg (ev, call, &args, 0, x, 1, &dim))
        return NULL;
      if (x->ndim >= NK_MAX_DIMS)
        {
          fail (ev, call, NK_PROGRAM_ERROR_SHAPE, _("tensors have at most %d dimensions"),
                NK_MAX_DIMS);
          return NULL;
        }
      t = nk_tensor_unsqueeze (x, dim, &error);
    }
  else if (g_str_equal (name, "squeeze"))
    {
      int dim;

      if (!check_arity (ev, call, &args, 0, 1, NULL))
        return NULL;
      if (args.pos->len == 0)
        t = nk_tensor_squeeze_all (x);
      else if (!dim_arg (ev, call, &args, 0, x, 0, &dim))
        return NULL;
      else
        t = x->ndim == 0 ? nk_tensor_alias (x) : nk_tensor_squeeze (x, dim, &error);
    }
  else if (g_str_equal (name, "flatten"))
    {
      static const char *const keywords[] = { "start_dim", "end_dim", NULL };
      NkProgramValue *v;
      NkNode *n;
      gint64 s = 0, e = -1;
      int start, end;

      if (!check_arity (ev, call, &args, 0, 2, keywords))
        return NULL;
      if ((v = arg_named (&args, "start_dim", 0, &n, call)) != NULL &&
          !as_int (ev, n, v, _("start_dim"), &s))
        return NULL;
      if ((v = arg_named (&args, "end_dim", 1, &n, call)) != NULL &&
          !as_int (ev, n, v, _("end_dim"), &e))
        return NULL;
      if (!wrap_dim (ev, call, s, x->ndim, &start) || !wrap_dim (ev, call, e, x->ndim, &end))
        return NULL;
      if (start > end)
        {
          fail (ev, call, NK_PROGRAM_ERROR_INDEX,
                _("flatten() has invalid args: start_dim cannot come after end_dim"));
          return NULL;
        }
      if (x->ndim == 0)
        {
          gint64 one = 1;
          t = nk_tensor_reshape (x, 1, &one, &error);
        }
      else
        t = nk_tensor_flatten (x, start, end, &error);
    }
  else if (g_str_equal (name, "triu") || g_str_equal (name, "tril"))
    {
      static const char *const keywords[] = { "diagonal", NULL };
      NkProgramValue *v;
      NkNode *n;
      gint64 diagonal = 0;

      if (!check_arity (ev, call, &args, 0, 1, keywords))
        return NULL;
      if ((v = arg_named (&args, "diagonal", 0, &n, call)) != NULL &&
          !as_int (ev, n, v, _("diagonal"), &diagonal))
        return NULL;
      if (x->ndim < 2)
        {
          fail (ev, call, NK_PROGRAM_ERROR_SHAPE,
                _("%s: input tensor must have at least 2 dimensions"), name);
          return NULL;
        }
      t = g_str_equal (name, "triu") ? nk_triu (x, diagonal, &error) : nk_tril (x, diagonal, &error);
    }
  else if (g_str_equal (name, "sum"))
    return reduce_method (ev, call, &args, x, NK_REDUCE_SUM);
  else if (g_str_equal (name, "mean"))
    return reduce_method (ev, call, &args, x, NK_REDUCE_MEAN);
  else if (g_str_equal (name, "is_contiguous"))
    {
      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      return value_new_bool (nk_tensor_is_contiguous (x));
    }
  else if (g_str_equal (name, "stride") || g_str_equal (name, "size"))
    {
      const gint64 *items = g_str_equal (name, "stride") ? x->stride : x->shape;
      int dim;

      if (!check_arity (ev, call, &args, 0, 1, NULL))
        return NULL;
      if (args.pos->len == 0)
        return value_new_tuple (x->ndim, items);
      if (x->ndim == 0)
        {
          fail (ev, call, NK_PROGRAM_ERROR_INDEX,
                _("Dimension specified as 0 but tensor has no dimensions"));
          return NULL;
        }
      if (!dim_arg (ev, call, &args, 0, x, 0, &dim))
        return NULL;
      return value_new_int (items[dim]);
    }
  else if (g_str_equal (name, "storage_offset"))
    {
      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      return value_new_int (x->offset);
    }
  else if (g_str_equal (name, "numel"))
    {
      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      return value_new_int (nk_tensor_numel (x));
    }
  else if (g_str_equal (name, "dim"))
    {
      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      return value_new_int (x->ndim);
    }
  else if (g_str_equal (name, "item"))
    {
      double d;

      if (!check_arity (ev, call, &args, 0, 0, NULL))
        return NULL;
      if (!nk_tensor_item (x, &d, &error))
        {
          fail_with (ev, call, error);
          return NULL;
        }
      return value_new_float (d);
    }
  else
    {
      fail (ev, call, NK_PROGRAM_ERROR_NAME, _("tensors have no method “%s”"), name);
      return NULL;
    }

  return tensor_result (ev, call, t, &error);
}

static NkProgramValue *
eval_attr (Eval   *ev,
           NkNode *node)
{
  g_autoptr(NkProgramValue) object = eval_expr (ev, node->a);
  NkTensor *x;
  GError *error = NULL;

  if (object == NULL)
    return NULL;
  if (object->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s has no attribute “%s”"),
            kind_name (object->kind), node->text);
      return NULL;
    }
  x = object->tensor;
  if (g_str_equal (node->text, "T"))
    {
      int dims[NK_MAX_DIMS];

      /* x.T reverses every dim */
      for (int i = 0; i < x->ndim; i++)
        dims[i] = x->ndim - 1 - i;
      return tensor_result (ev, node,
                            x->ndim > 0 ? nk_tensor_permute (x, x->ndim, dims, &error)
                                        : nk_tensor_alias (x),
                            &error);
    }
  if (g_str_equal (node->text, "shape"))
    return value_new_tuple (x->ndim, x->shape);
  if (g_str_equal (node->text, "ndim"))
    return value_new_int (x->ndim);

  /* A method named without its parentheses is the likely slip. */
  fail (ev, node, NK_PROGRAM_ERROR_NAME,
        _("tensors have no attribute “%s” (methods need parentheses: x.%s())"),
        node->text, node->text);
  return NULL;
}

/* ---- indexing ---- */

static gboolean
slice_bound (Eval    *ev,
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
  v = eval_expr (ev, node);
  if (v == NULL)
    return FALSE;
  if (v->kind == NK_PROGRAM_VALUE_NONE)
    {
      *out = dflt;
      return TRUE;
    }
  return as_int (ev, node, v, _("a slice bound"), out);
}

/* x[subscripts]: ints select (dropping the dim), slices narrow with a step, None
 * inserts a dim of size 1, "..." stands for every dim not named. All views. */
static NkProgramValue *
index_tensor (Eval     *ev,
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
      fail (ev, node, NK_PROGRAM_ERROR_INDEX,
            _("too many indices for tensor of dimension %d"), x->ndim);
      return NULL;
    }

  for (guint i = 0; i < node->items->len; i++)
    {
      NkNode *sub = g_ptr_array_index (node->items, i);
      GError *error = NULL;
      NkTensor *next = NULL;

      if (sub->kind == NK_NODE_ELLIPSIS)
        {
          if (seen_ellipsis)
            {
              fail (ev, sub, NK_PROGRAM_ERROR_INDEX, _("an index can only have a single ellipsis (“...”)"));
              return NULL;
            }
          seen_ellipsis = TRUE;
          dim += x->ndim - consumed;
          continue;
        }
      if (sub->kind == NK_NODE_NONE)
        {
          if (t->ndim >= NK_MAX_DIMS)
            {
              fail (ev, sub, NK_PROGRAM_ERROR_SHAPE, _("tensors have at most %d dimensions"),
                    NK_MAX_DIMS);
              return NULL;
            }
          next = nk_tensor_unsqueeze (t, dim, &error);
          dim++;
        }
      else if (sub->kind == NK_NODE_SLICE)
        {
          gint64 start, stop, step;

          if (!slice_bound (ev, sub->a, &start, 0) ||
              !slice_bound (ev, sub->b, &stop, NK_SLICE_END) ||
              !slice_bound (ev, sub->c, &step, 1))
            return NULL;
          if (step <= 0)
            {
              fail (ev, sub, NK_PROGRAM_ERROR_INDEX, _("step must be greater than zero"));
              return NULL;
            }
          /* The new stride is stride × step: keep it far from overflowing. */
          if (step > NK_PROGRAM_MAX_NUMEL ||
              (double) ABS (t->stride[dim]) * (double) step > (double) MAX_INT)
            {
              fail (ev, sub, NK_PROGRAM_ERROR_LIMIT,
                    _("the step %" PRId64 " is too large"), step);
              return NULL;
            }
          next = nk_tensor_slice (t, dim, start, stop, step, &error);
          dim++;
        }
      else
        {
          g_autoptr(NkProgramValue) v = eval_expr (ev, sub);
          gint64 index;

          if (v == NULL)
            return NULL;
          if (v->kind == NK_PROGRAM_VALUE_TENSOR || v->kind == NK_PROGRAM_VALUE_TUPLE)
            {
              fail (ev, sub, NK_PROGRAM_ERROR_TYPE,
                    _("indexing with %s (advanced indexing) is not supported; use integers, "
                      "slices, None or ..."), kind_name (v->kind));
              return NULL;
            }
          if (!as_int (ev, sub, v, _("an index"), &index))
            return NULL;
          if (index < -t->shape[dim] || index >= t->shape[dim])
            {
              fail (ev, sub, NK_PROGRAM_ERROR_INDEX,
                    _("index %" PRId64 " is out of bounds for dimension %d with size %"
                      PRId64), index, dim, t->shape[dim]);
              return NULL;
            }
          next = nk_tensor_select (t, dim, index, &error);
        }
      if (next == NULL)
        {
          fail_with (ev, sub, error);
          return NULL;
        }
      nk_tensor_unref (t);
      t = next;
    }
  return tensor_result (ev, node, g_steal_pointer (&t), NULL);
}

static NkProgramValue *
eval_index (Eval   *ev,
            NkNode *node)
{
  g_autoptr(NkProgramValue) object = eval_expr (ev, node->a);

  if (object == NULL)
    return NULL;
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
          fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("a tuple takes one integer index"));
          return NULL;
        }
      v = eval_expr (ev, sub);
      if (v == NULL || !as_int (ev, sub, v, _("an index"), &index))
        return NULL;
      if (index < -(gint64) object->n_tuple || index >= (gint64) object->n_tuple)
        {
          fail (ev, sub, NK_PROGRAM_ERROR_INDEX, _("tuple index %" PRId64 " out of range"),
                index);
          return NULL;
        }
      return value_new_int (object->tuple[index < 0 ? index + object->n_tuple : index]);
    }
  fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("%s cannot be indexed"), kind_name (object->kind));
  return NULL;
}

/* ---- operators ---- */

static NkProgramValue *
scalar_arith (Eval           *ev,
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
          fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("division by zero"));
          return NULL;
        }
      r = x / y;
      ints = FALSE;
      break;
    default:
      fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“@” needs two tensors"));
      return NULL;
    }
  if (ints && fabs (r) <= MAX_INT)
    return value_new_int ((gint64) r);
  return value_new_float (r);
}

static NkProgramValue *
matmul (Eval     *ev,
        NkNode   *node,
        NkTensor *a,
        NkTensor *b)
{
  gint64 m, n, k, batch = 1;
  double out, work;
  GError *error = NULL;

  if (a->ndim == 0 || b->ndim == 0)
    {
      fail (ev, node, NK_PROGRAM_ERROR_SHAPE,
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
      fail (ev, node, NK_PROGRAM_ERROR_LIMIT,
            _("this matmul would make %.0f elements with %.3g multiply-adds; a program may make "
              "%" PRId64 " elements and %" PRId64 " multiply-adds"),
            out, work, NK_PROGRAM_MAX_NUMEL, NK_PROGRAM_MAX_WORK);
      return NULL;
    }
  return tensor_result (ev, node, nk_matmul (a, b, &error), &error);
}

static NkProgramValue *
eval_binary (Eval   *ev,
             NkNode *node)
{
  g_autoptr(NkProgramValue) a = eval_expr (ev, node->a);
  g_autoptr(NkProgramValue) b = NULL;
  static const NkBinaryOp ops[] = { ['+'] = NK_BINARY_ADD, ['-'] = NK_BINARY_SUB,
                                    ['*'] = NK_BINARY_MUL, ['/'] = NK_BINARY_DIV };
  gboolean a_tensor, b_tensor;
  GError *error = NULL;

  if (a == NULL)
    return NULL;
  b = eval_expr (ev, node->b);
  if (b == NULL)
    return NULL;

  a_tensor = a->kind == NK_PROGRAM_VALUE_TENSOR;
  b_tensor = b->kind == NK_PROGRAM_VALUE_TENSOR;
  if ((!a_tensor && a->kind != NK_PROGRAM_VALUE_INT && a->kind != NK_PROGRAM_VALUE_FLOAT &&
       a->kind != NK_PROGRAM_VALUE_BOOL) ||
      (!b_tensor && b->kind != NK_PROGRAM_VALUE_INT && b->kind != NK_PROGRAM_VALUE_FLOAT &&
       b->kind != NK_PROGRAM_VALUE_BOOL))
    {
      fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“%c” cannot combine %s and %s"), node->op,
            kind_name (a->kind), kind_name (b->kind));
      return NULL;
    }

  if (node->op == '@')
    {
      if (!a_tensor || !b_tensor)
        {
          fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“@” needs two tensors, not %s and %s"),
                kind_name (a->kind), kind_name (b->kind));
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
          fail_with (ev, node, error);
          return NULL;
        }
      if (!check_sizes (ev, node, ndim, shape, FALSE))
        return NULL;
      return tensor_result (ev, node, nk_binary (ops[(int) node->op], a->tensor, b->tensor, &error),
                            &error);
    }
  if (a_tensor)
    return tensor_result (ev, node,
                          nk_binary_scalar (ops[(int) node->op], a->tensor, b->d, FALSE, &error),
                          &error);
  return tensor_result (ev, node,
                        nk_binary_scalar (ops[(int) node->op], b->tensor, a->d, TRUE, &error),
                        &error);
}

static NkProgramValue *
eval_expr (Eval   *ev,
           NkNode *node)
{
  NkProgramValue *result = NULL;

  if (ev->error != NULL)
    return NULL;
  if (++ev->depth > 4 * MAX_DEPTH)
    {
      fail (ev, node, NK_PROGRAM_ERROR_SYNTAX, _("the expression is nested too deeply"));
      ev->depth--;
      return NULL;
    }

  switch (node->kind)
    {
    case NK_NODE_NUMBER:
      if (node->is_int && fabs (node->number) <= MAX_INT)
        result = value_new_int ((gint64) node->number);
      else
        result = value_new_float (node->number);
      break;

    case NK_NODE_STRING:
      result = value_new (NK_PROGRAM_VALUE_STRING);
      result->string = g_strdup (node->text);
      break;

    case NK_NODE_BOOL:
      result = value_new_bool (node->is_int);
      break;

    case NK_NODE_NONE:
      result = value_new (NK_PROGRAM_VALUE_NONE);
      break;

    case NK_NODE_NAME:
      {
        Binding *b = g_hash_table_lookup (ev->self->env, node->text);

        if (b == NULL)
          fail (ev, node, NK_PROGRAM_ERROR_NAME, _("name “%s” is not defined"), node->text);
        else
          result = nk_program_value_ref (b->value);
      }
      break;

    case NK_NODE_TUPLE:
    case NK_NODE_LIST:
      {
        gint64 items[NK_MAX_DIMS];

        if (node->items->len > NK_MAX_DIMS)
          {
            fail (ev, node, NK_PROGRAM_ERROR_TYPE,
                  _("a tuple of sizes or dims has at most %d items"), NK_MAX_DIMS);
            break;
          }
        for (guint i = 0; i < node->items->len; i++)
          {
            NkNode *item = g_ptr_array_index (node->items, i);
            g_autoptr(NkProgramValue) v = eval_expr (ev, item);

            if (v == NULL || !as_int (ev, item, v, _("an item of a tuple"), &items[i]))
              break;
          }
        if (ev->error == NULL)
          result = value_new_tuple (node->items->len, items);
      }
      break;

    case NK_NODE_UNARY:
      {
        g_autoptr(NkProgramValue) a = eval_expr (ev, node->a);
        GError *error = NULL;

        if (a == NULL)
          break;
        if (node->op == '+' && a->kind != NK_PROGRAM_VALUE_TUPLE && a->kind != NK_PROGRAM_VALUE_STRING &&
            a->kind != NK_PROGRAM_VALUE_NONE)
          result = nk_program_value_ref (a);
        else if (a->kind == NK_PROGRAM_VALUE_TENSOR)
          result = tensor_result (ev, node, nk_neg (a->tensor, &error), &error);
        else if (a->kind == NK_PROGRAM_VALUE_INT || a->kind == NK_PROGRAM_VALUE_BOOL)
          result = value_new_int (-a->i);
        else if (a->kind == NK_PROGRAM_VALUE_FLOAT)
          result = value_new_float (-a->d);
        else
          fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("“%c” cannot be applied to %s"), node->op,
                kind_name (a->kind));
      }
      break;

    case NK_NODE_BINARY:
      result = eval_binary (ev, node);
      break;

    case NK_NODE_CALL:
      result = eval_call (ev, node);
      break;

    case NK_NODE_METHOD:
      result = eval_method (ev, node);
      break;

    case NK_NODE_ATTR:
      result = eval_attr (ev, node);
      break;

    case NK_NODE_INDEX:
      result = eval_index (ev, node);
      break;

    case NK_NODE_ELLIPSIS:
    case NK_NODE_SLICE:
    case NK_NODE_KWARG:
    case NK_NODE_ASSIGN:
    case NK_NODE_EXPR:
    default:
      fail (ev, node, NK_PROGRAM_ERROR_SYNTAX, _("this cannot be used as a value"));
      break;
    }

  ev->depth--;
  if (result == NULL && ev->error == NULL)
    fail (ev, node, NK_PROGRAM_ERROR_TYPE, _("this has no value"));
  if (ev->error != NULL)
    g_clear_pointer (&result, nk_program_value_unref);
  return result;
}

static void
bind (Eval           *ev,
      const char     *name,
      NkProgramValue *value)
{
  NkProgram *self = ev->self;
  Binding *b = g_hash_table_lookup (self->env, name);

  if (b == NULL)
    {
      b = g_new0 (Binding, 1);
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

/* x[...] = value: writes through the view into the shared storage. */
static NkProgramValue *
assign_index (Eval   *ev,
              NkNode *target,
              NkNode *value_node)
{
  g_autoptr(NkProgramValue) value = eval_expr (ev, value_node);
  g_autoptr(NkProgramValue) view = NULL;
  NkNode *root = target;
  GError *error = NULL;
  gboolean ok;

  if (value == NULL)
    return NULL;
  view = eval_expr (ev, target);
  if (view == NULL)
    return NULL;
  if (view->kind != NK_PROGRAM_VALUE_TENSOR)
    {
      fail (ev, target, NK_PROGRAM_ERROR_TYPE, _("only elements of a tensor can be assigned to"));
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
          fail_with (ev, target, error);
          return NULL;
        }
      if (ndim != view->tensor->ndim ||
          memcmp (shape, view->tensor->shape, ndim * sizeof (gint64)) != 0)
        {
          g_autofree char *a = nk_format_shape (value->tensor->ndim, value->tensor->shape);
          g_autofree char *b = nk_format_shape (view->tensor->ndim, view->tensor->shape);

          fail (ev, target, NK_PROGRAM_ERROR_SHAPE,
                _("a tensor of shape %s cannot be assigned to a view of shape %s"), a, b);
          return NULL;
        }
      ok = nk_tensor_copy_ (view->tensor, value->tensor, &error);
    }
  else
    {
      double d;

      if (!as_number (ev, value_node, value, _("the assigned value"), &d))
        return NULL;
      ok = nk_tensor_fill_ (view->tensor, d, &error);
    }
  if (!ok)
    {
      fail_with (ev, target, error);
      return NULL;
    }
  while (root->kind == NK_NODE_INDEX)
    root = root->a;
  return eval_expr (ev, root);
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

/* Constructors make new storage from nothing: that is no copy. */
static gboolean
is_constructor (NkNode *node)
{
  static const char *names[] = { "arange", "zeros", "ones", "tensor" };

  if (node->kind != NK_NODE_CALL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (node->text, names[i]))
      return TRUE;
  return FALSE;
}

/* Which storage the statement allocated, and which op allocated the one its
 * value lives in: the op that copied, not the view taken of the copy. */
static void
record_facts (Eval           *ev,
              NkNode         *stmt,
              NkProgramValue *value)
{
  StatementFacts facts = { 0 };
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

  facts.copied = alloc != NULL && !is_constructor (alloc);
  facts.op = node_op_name (alloc != NULL ? alloc : expr);
  g_array_append_val (ev->self->stmt_facts, facts);
}

static gboolean
run_statement (Eval   *ev,
               NkNode *stmt,
               char  **name)
{
  NkProgramValue *value = NULL;

  *name = NULL;
  if (stmt->kind == NK_NODE_ASSIGN)
    {
      if (stmt->a->kind == NK_NODE_NAME)
        {
          value = eval_expr (ev, stmt->b);
          if (value != NULL)
            {
              bind (ev, stmt->a->text, value);
              *name = g_strdup (stmt->a->text);
            }
        }
      else
        {
          NkNode *root = stmt->a;

          value = assign_index (ev, stmt->a, stmt->b);
          while (root->kind == NK_NODE_INDEX)
            root = root->a;
          if (value != NULL)
            *name = g_strdup (root->text);
        }
    }
  else
    {
      value = eval_expr (ev, stmt->a);
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
  Eval ev = { 0 };
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
      const char *end;

      g_utf8_validate (source, -1, &end);
      parse_error = g_error_new (NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_SYNTAX,
                                 _("the program is not valid UTF-8 text"));
      self->statements = g_array_new (FALSE, TRUE, sizeof (NkStatementInfo));
      self->arena = g_ptr_array_new ();
      parsed = FALSE;
      parse_pos = parse_stmt_start = 0;
    }
  else
    parsed = _nk_program_parse (source, &self->arena, &self->statements, &parse_error,
                                &parse_pos, &parse_stmt_start);

  ev.self = self;
  ev.new_storages = g_ptr_array_new ();
  ev.new_nodes = g_ptr_array_new ();
  for (guint i = 0; i < self->statements->len; i++)
    {
      NkStatementInfo *info = &g_array_index (self->statements, NkStatementInfo, i);
      char *name;

      ev.statement = i + 1;
      ev.depth = 0;
      g_ptr_array_set_size (ev.new_storages, 0);
      g_ptr_array_set_size (ev.new_nodes, 0);
      if (!run_statement (&ev, info->node, &name))
        {
          self->error_statement = i + 1;
          self->error_offset = MAX (ev.error_pos, info->start);
          self->error_start = info->start;
          self->error_end = MAX (info->end, self->error_offset);
          self->error_column = column_of (source, info->start, ev.error_pos);
          self->error_reason = g_strdup (ev.error->message);
          break;
        }
    }
  g_ptr_array_unref (ev.new_storages);
  g_ptr_array_unref (ev.new_nodes);

  if (ev.error == NULL && !parsed)
    {
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

static StatementFacts *
facts_at (NkProgram *self,
          guint      index)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (index < self->stmt_facts->len, NULL);
  return &g_array_index (self->stmt_facts, StatementFacts, index);
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
  StatementFacts *facts = facts_at (self, index);
  return facts ? facts->copied : FALSE;
}

/**
 * nk_program_get_statement_new_bytes:
 * @self: a program
 * @index: a statement that ran, from 0
 *
 * Returns: the bytes of the storages the statement allocated (by copying or by
 *   constructing); 0 for a view
 */
gsize
nk_program_get_statement_new_bytes (NkProgram *self,
                                    guint      index)
{
  StatementFacts *facts = facts_at (self, index);
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
  StatementFacts *facts = facts_at (self, index);
  return facts ? facts->op : NULL;
}

/**
 * nk_program_get_n_names:
 * @self: a program
 *
 * Returns: how many names are bound after the run
 */
guint
nk_program_get_n_names (NkProgram *self)
{
  g_return_val_if_fail (NK_IS_PROGRAM (self), 0);
  return self->order->len;
}

static Binding *
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
 * Returns: the name
 */
const char *
nk_program_get_name (NkProgram *self,
                     guint      index)
{
  Binding *b = binding_at (self, index);
  return b ? b->name : NULL;
}

/**
 * nk_program_get_name_value:
 * @self: a program
 * @index: from 0
 *
 * Returns: (transfer none): the value bound to the name
 */
NkProgramValue *
nk_program_get_name_value (NkProgram *self,
                           guint      index)
{
  Binding *b = binding_at (self, index);
  return b ? b->value : NULL;
}

/**
 * nk_program_get_name_statement:
 * @self: a program
 * @index: from 0
 *
 * Returns: the statement (from 1) that last assigned the name
 */
guint
nk_program_get_name_statement (NkProgram *self,
                               guint      index)
{
  Binding *b = binding_at (self, index);
  return b ? b->statement : 0;
}

/**
 * nk_program_get_name_shares_with:
 * @self: a program
 * @index: from 0
 *
 * Returns: (nullable): the first earlier name whose tensor has the same storage,
 *   or %NULL when the name's tensor owns its storage alone (or is no tensor)
 */
const char *
nk_program_get_name_shares_with (NkProgram *self,
                                 guint      index)
{
  Binding *b = binding_at (self, index);

  if (b == NULL || b->value->kind != NK_PROGRAM_VALUE_TENSOR)
    return NULL;
  for (guint j = 0; j < index; j++)
    {
      Binding *other = g_ptr_array_index (self->order, j);

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
 * Returns: (transfer none) (nullable): the value bound to @name after the run
 */
NkProgramValue *
nk_program_lookup (NkProgram  *self,
                   const char *name)
{
  Binding *b;

  g_return_val_if_fail (NK_IS_PROGRAM (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  b = g_hash_table_lookup (self->env, name);
  return b ? b->value : NULL;
}
