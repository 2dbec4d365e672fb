/* nk-test-json.c: a strict RFC 8259 checker for the JSON Napkin writes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written from the RFC's ABNF (sections 2-7) and section 8.1 (UTF-8), with the UTF-8
 * decoder from the Unicode standard's table 3-7 (well-formed byte sequences): no
 * GLib UTF-8 function, no json-glib, so it shares nothing with the writers it checks.
 */
#include <string.h>

#include "nk-test-json.h"

/* Deeper than anything Napkin writes; a checker must not overflow its own stack. */
#define MAX_DEPTH 1024

typedef struct {
  const guchar *p;
  const guchar *end;
  const guchar *start;
  guint         depth;
} Scan;

static gboolean value (Scan *s);

static void
skip_ws (Scan *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static gboolean
literal (Scan       *s,
         const char *word)
{
  for (; *word != '\0'; word++, s->p++)
    if (s->p >= s->end || *s->p != (guchar) *word)
      return FALSE;
  return TRUE;
}

static gboolean
digits (Scan *s)
{
  const guchar *from = s->p;

  while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
    s->p++;
  return s->p > from;
}

/* number = [ minus ] int [ frac ] [ exp ] */
static gboolean
number (Scan *s)
{
  if (s->p < s->end && *s->p == '-')
    s->p++;
  if (s->p < s->end && *s->p == '0')
    s->p++;
  else if (s->p >= s->end || *s->p < '1' || *s->p > '9' || !digits (s))
    return FALSE;
  if (s->p < s->end && *s->p == '.')
    {
      s->p++;
      if (!digits (s))
        return FALSE;
    }
  if (s->p < s->end && (*s->p == 'e' || *s->p == 'E'))
    {
      s->p++;
      if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
        s->p++;
      if (!digits (s))
        return FALSE;
    }
  return TRUE;
}

/* One well-formed UTF-8 sequence of 2 to 4 bytes (Unicode table 3-7). */
static gboolean
utf8_multibyte (Scan *s)
{
  guchar b = *s->p;
  guchar lo = 0x80, hi = 0xbf;
  int more;

  if (b >= 0xc2 && b <= 0xdf)
    more = 1;
  else if (b >= 0xe0 && b <= 0xef)
    {
      more = 2;
      if (b == 0xe0)
        lo = 0xa0;            /* no overlong three-byte form */
      else if (b == 0xed)
        hi = 0x9f;            /* no surrogates */
    }
  else if (b >= 0xf0 && b <= 0xf4)
    {
      more = 3;
      if (b == 0xf0)
        lo = 0x90;            /* no overlong four-byte form */
      else if (b == 0xf4)
        hi = 0x8f;            /* nothing above U+10FFFF */
    }
  else
    return FALSE;
  s->p++;
  for (int i = 0; i < more; i++, s->p++)
    {
      if (s->p >= s->end || *s->p < lo || *s->p > hi)
        return FALSE;
      lo = 0x80;
      hi = 0xbf;
    }
  return TRUE;
}

static gboolean
hex4 (Scan  *s,
      guint *out)
{
  *out = 0;
  for (int i = 0; i < 4; i++, s->p++)
    {
      guchar c = s->p < s->end ? *s->p : 0;

      if (c >= '0' && c <= '9')
        *out = *out * 16 + (c - '0');
      else if (c >= 'a' && c <= 'f')
        *out = *out * 16 + (c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        *out = *out * 16 + (c - 'A' + 10);
      else
        return FALSE;
    }
  return TRUE;
}

/* After the backslash: the eight short escapes, or \uXXXX (surrogates paired). */
static gboolean
escape (Scan *s)
{
  guint u, low;

  if (s->p >= s->end)
    return FALSE;
  if (strchr ("\"\\/bfnrt", *s->p) != NULL && *s->p != '\0')
    {
      s->p++;
      return TRUE;
    }
  if (*s->p != 'u')
    return FALSE;
  s->p++;
  if (!hex4 (s, &u))
    return FALSE;
  if (u >= 0xdc00 && u <= 0xdfff)
    return FALSE;
  if (u >= 0xd800 && u <= 0xdbff)
    return s->end - s->p >= 2 && s->p[0] == '\\' && s->p[1] == 'u'
           && (s->p += 2, hex4 (s, &low)) && low >= 0xdc00 && low <= 0xdfff;
  return TRUE;
}

/* string = quotation-mark *char quotation-mark;
 * unescaped = %x20-21 / %x23-5B / %x5D-10FFFF */
static gboolean
string (Scan *s)
{
  if (s->p >= s->end || *s->p != '"')
    return FALSE;
  s->p++;
  while (s->p < s->end)
    {
      guchar c = *s->p;

      if (c == '"')
        {
          s->p++;
          return TRUE;
        }
      if (c == '\\')
        {
          s->p++;
          if (!escape (s))
            return FALSE;
        }
      else if (c < 0x20)
        return FALSE;
      else if (c < 0x80)
        s->p++;
      else if (!utf8_multibyte (s))
        return FALSE;
    }
  return FALSE;
}

/* begin-X ws [ item *( ws value-separator ws item ) ] ws end-X */
static gboolean
members (Scan    *s,
         gboolean object)
{
  guchar close = object ? '}' : ']';

  if (++s->depth > MAX_DEPTH)
    return FALSE;
  s->p++;
  skip_ws (s);
  if (s->p < s->end && *s->p == close)
    {
      s->p++;
      s->depth--;
      return TRUE;
    }
  for (;;)
    {
      if (object)
        {
          if (!string (s))
            return FALSE;
          skip_ws (s);
          if (s->p >= s->end || *s->p != ':')
            return FALSE;
          s->p++;
          skip_ws (s);
        }
      if (!value (s))
        return FALSE;
      skip_ws (s);
      if (s->p < s->end && *s->p == ',')
        {
          s->p++;
          skip_ws (s);
          continue;
        }
      if (s->p < s->end && *s->p == close)
        {
          s->p++;
          s->depth--;
          return TRUE;
        }
      return FALSE;
    }
}

static gboolean
value (Scan *s)
{
  if (s->p >= s->end)
    return FALSE;
  switch (*s->p)
    {
    case '{': return members (s, TRUE);
    case '[': return members (s, FALSE);
    case '"': return string (s);
    case 't': return literal (s, "true");
    case 'f': return literal (s, "false");
    case 'n': return literal (s, "null");
    default: return number (s);
    }
}

gboolean
nk_test_json_is_strict (const char *text,
                        gsize       length,
                        gsize      *where)
{
  Scan s = { (const guchar *) text, (const guchar *) text + length, (const guchar *) text, 0 };
  gboolean ok;

  skip_ws (&s);
  ok = value (&s);
  if (ok)
    {
      skip_ws (&s);
      ok = s.p == s.end;
    }
  if (!ok && where != NULL)
    *where = (gsize) (MIN (s.p, s.end) - s.start);
  return ok;
}

guint
nk_test_json_assert_lines (const char *text,
                           gsize       length)
{
  const char *p = text, *end = text + length;
  guint n = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize len = (nl != NULL ? nl : end) - p, where = 0;

      n++;
      if (!nk_test_json_is_strict (p, len, &where))
        {
          g_autofree char *raw = g_strndup (p, len);
          g_autofree char *shown = g_strescape (raw, NULL);

          g_error ("line %u is not strict JSON (byte %" G_GSIZE_FORMAT "): %s",
                   n, where, shown);
        }
      p = nl != NULL ? nl + 1 : end;
    }
  return n;
}
