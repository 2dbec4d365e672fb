/* nk-program-lexer.c: the tensor language's lexer: bytes of source to tokens
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-program-private.h"

/**
 * _nk_token_describe:
 * @kind: a token kind
 *
 * Returns: the token as a syntax error names it ("“)”", "a number")
 */
const char *
_nk_token_describe (NkTokKind kind)
{
  switch (kind)
    {
    case NK_TOK_EOF: return _("the end of the program");
    case NK_TOK_NEWLINE: return _("the end of the line");
    case NK_TOK_SEMI: return "“;”";
    case NK_TOK_NAME: return _("a name");
    case NK_TOK_NUMBER: return _("a number");
    case NK_TOK_STRING: return _("a string");
    case NK_TOK_LPAREN: return "“(”";
    case NK_TOK_RPAREN: return "“)”";
    case NK_TOK_LBRACKET: return "“[”";
    case NK_TOK_RBRACKET: return "“]”";
    case NK_TOK_COMMA: return "“,”";
    case NK_TOK_COLON: return "“:”";
    case NK_TOK_DOT: return "“.”";
    case NK_TOK_ELLIPSIS: return "“...”";
    case NK_TOK_ASSIGN: return "“=”";
    case NK_TOK_PLUS: return "“+”";
    case NK_TOK_MINUS: return "“-”";
    case NK_TOK_STAR: return "“*”";
    case NK_TOK_SLASH: return "“/”";
    case NK_TOK_AT: return "“@”";
    default: g_assert_not_reached ();
    }
}

void
_nk_lexer_init (NkLexer    *lex,
                const char *source)
{
  memset (lex, 0, sizeof *lex);
  lex->source = source;
  lex->length = strlen (source);
}

/* Frees the current token's text; the error, if any, stays with the caller. */
void
_nk_lexer_clear (NkLexer *lex)
{
  g_clear_pointer (&lex->tok.text, g_free);
}

/**
 * _nk_lexer_fail:
 * @lex: the lexer
 * @pos: the byte offset the error is at
 * @format: the reason, one sentence without a capital or a full stop
 *
 * Records a syntax error; only the first one counts.
 */
void
_nk_lexer_fail (NkLexer    *lex,
                guint       pos,
                const char *format,
                ...)
{
  va_list args;

  if (lex->error != NULL)
    return;
  va_start (args, format);
  lex->error = g_error_new_valist (NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_SYNTAX, format, args);
  va_end (args);
  lex->error_pos = pos;
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

/* Newlines inside brackets are whitespace, as in Python, so a long tensor([...])
 * literal may span lines; so are comments and backslash-newline. */
static void
skip_space (NkLexer *p)
{
  const char *s = p->source;

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
}

/* The end of the digits of a number starting at @at, and whether it is an integer. */
static gsize
number_end (NkLexer  *p,
            gsize     end,
            gboolean *is_int)
{
  const char *s = p->source;

  *is_int = TRUE;
  while (end < p->length && (g_ascii_isdigit (s[end]) || s[end] == '_'))
    end++;
  if (end < p->length && s[end] == '.' && !(end + 1 < p->length && s[end + 1] == '.'))
    {
      *is_int = FALSE;
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
          *is_int = FALSE;
          end = e;
          while (end < p->length && g_ascii_isdigit (s[end]))
            end++;
        }
    }
  return end;
}

static gboolean
lex_number (NkLexer *p)
{
  const char *s = p->source;
  NkToken *t = &p->tok;
  gboolean is_int;
  gsize end = number_end (p, p->at, &is_int);
  g_autofree char *text = NULL;
  char *stop = NULL;
  char *w;

  if (end < p->length && is_name_char (s[end]))
    {
      _nk_lexer_fail (p, p->at, _("“%.*s” is not a number"), (int) (end + 1 - p->at), s + p->at);
      return FALSE;
    }
  text = g_strndup (s + p->at, end - p->at);
  /* Python allows 1_000_000; strtod does not. */
  w = text;
  for (const char *r = text; *r; r++)
    if (*r != '_')
      *w++ = *r;
  *w = '\0';
  t->kind = NK_TOK_NUMBER;
  t->number = g_ascii_strtod (text, &stop);
  t->is_int = is_int;
  t->len = end - p->at;
  if (stop == text || *stop != '\0' || !isfinite (t->number))
    {
      _nk_lexer_fail (p, p->at, _("“%s” is not a number a double can hold"), text);
      return FALSE;
    }
  p->at = end;
  return TRUE;
}

static gboolean
lex_string (NkLexer *p)
{
  const char *s = p->source;
  NkToken *t = &p->tok;
  char quote = s[p->at];
  gsize end = p->at + 1;

  while (end < p->length && s[end] != quote && s[end] != '\n')
    end++;
  if (end >= p->length || s[end] != quote)
    {
      _nk_lexer_fail (p, t->pos, _("this string is not closed"));
      return FALSE;
    }
  t->kind = NK_TOK_STRING;
  t->text = g_strndup (s + p->at + 1, end - p->at - 1);
  t->len = end + 1 - p->at;
  return TRUE;
}

static void
lex_name (NkLexer *p)
{
  gsize end = p->at;

  while (end < p->length && is_name_char (p->source[end]))
    end++;
  p->tok.kind = NK_TOK_NAME;
  p->tok.text = g_strndup (p->source + p->at, end - p->at);
  p->tok.len = end - p->at;
}

/* Names the character whole, even when it is not ASCII. */
static gboolean
lex_stray (NkLexer *p)
{
  const char *s = p->source;
  gsize avail = p->length - p->at;
  const char *next = g_utf8_find_next_char (s + p->at, s + p->length);
  gsize n = next ? (gsize) (next - (s + p->at)) : avail;
  g_autofree char *what = g_strndup (s + p->at, MIN (n, avail));

  if (!g_utf8_validate (what, -1, NULL))
    _nk_lexer_fail (p, p->tok.pos, _("the program is not valid UTF-8 text"));
  else
    _nk_lexer_fail (p, p->tok.pos, _("“%s” is not part of the language"), what);
  return FALSE;
}

/* The tokens of one character. */
static gboolean
lex_punctuation (NkLexer   *p,
                 NkTokKind *kind)
{
  switch (p->source[p->at])
    {
    case '\n': *kind = NK_TOK_NEWLINE; return TRUE;
    case ';': *kind = NK_TOK_SEMI; return TRUE;
    case '(': *kind = NK_TOK_LPAREN; p->bracket_depth++; return TRUE;
    case ')': *kind = NK_TOK_RPAREN; p->bracket_depth = MAX (0, p->bracket_depth - 1); return TRUE;
    case '[': *kind = NK_TOK_LBRACKET; p->bracket_depth++; return TRUE;
    case ']': *kind = NK_TOK_RBRACKET; p->bracket_depth = MAX (0, p->bracket_depth - 1); return TRUE;
    case ',': *kind = NK_TOK_COMMA; return TRUE;
    case ':': *kind = NK_TOK_COLON; return TRUE;
    case '=': *kind = NK_TOK_ASSIGN; return TRUE;
    case '+': *kind = NK_TOK_PLUS; return TRUE;
    case '-': *kind = NK_TOK_MINUS; return TRUE;
    case '*': *kind = NK_TOK_STAR; return TRUE;
    case '/': *kind = NK_TOK_SLASH; return TRUE;
    case '@': *kind = NK_TOK_AT; return TRUE;
    default: return FALSE;
    }
}

/**
 * _nk_lexer_next:
 * @lex: the lexer
 *
 * Reads the next token into @lex->tok.
 *
 * Returns: %FALSE on a syntax error (in @lex->error)
 */
gboolean
_nk_lexer_next (NkLexer *p)
{
  const char *s = p->source;
  NkToken *t = &p->tok;
  char c;

  g_clear_pointer (&t->text, g_free);
  t->number = 0;
  t->is_int = FALSE;
  skip_space (p);
  t->pos = p->at;
  t->len = 1;
  if (p->at >= p->length)
    {
      t->kind = NK_TOK_EOF;
      t->len = 0;
      return TRUE;
    }

  c = s[p->at];
  if (lex_punctuation (p, &t->kind))
    ;
  else if (c == '.' && p->at + 2 < p->length && s[p->at + 1] == '.' && s[p->at + 2] == '.')
    {
      t->kind = NK_TOK_ELLIPSIS;
      t->len = 3;
    }
  else if (g_ascii_isdigit (c) || (c == '.' && p->at + 1 < p->length && g_ascii_isdigit (s[p->at + 1])))
    return lex_number (p);
  else if (c == '.')
    t->kind = NK_TOK_DOT;
  else if (c == '"' || c == '\'')
    {
      if (!lex_string (p))
        return FALSE;
    }
  else if (is_name_start (c))
    lex_name (p);
  else
    return lex_stray (p);
  p->at += t->len;
  return TRUE;
}
