/* nk-program.c: a small PyTorch-flavoured tensor language: lexer, parser, evaluator
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

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
