/* nk-program-dump.c: the parse tree as S-expressions, for the tests of the parser
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "nk-program-private.h"

static void dump_node (GString *out,
                       NkNode  *node);

/* Nodes with items: (call f a b), (.m x a b), ([] x i j), (tuple a b), (list a b) */
static void
dump_items (GString *out,
            NkNode  *node)
{
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
}

static void
dump_number (GString *out,
             NkNode  *node)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (node->is_int)
    {
      g_string_append_printf (out, "%.0f", node->number);
      return;
    }
  g_string_append (out, g_ascii_dtostr (buf, sizeof buf, node->number));
  if (strpbrk (buf, ".eEn") == NULL)
    g_string_append (out, ".0");
}

/* One node as an S-expression: operators and calls first, "_" for what is absent. */
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
      dump_number (out, node);
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
      dump_items (out, node);
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