/* nk-program-private.h: the parse tree of the tensor language, shared with its tests
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  NK_NODE_NUMBER,
  NK_NODE_STRING,
  NK_NODE_NAME,
  NK_NODE_BOOL,
  NK_NODE_NONE,
  NK_NODE_ELLIPSIS,
  NK_NODE_SLICE,
  NK_NODE_TUPLE,
  NK_NODE_LIST,
  NK_NODE_UNARY,
  NK_NODE_BINARY,
  NK_NODE_CALL,
  NK_NODE_METHOD,
  NK_NODE_ATTR,
  NK_NODE_INDEX,
  NK_NODE_KWARG,
  NK_NODE_ASSIGN,
  NK_NODE_EXPR,
} NkNodeKind;

typedef struct _NkNode NkNode;

typedef struct {
  NkNode *node;
  guint   start;   /* byte offsets of the statement in the source */
  guint   end;
} NkStatementInfo;

gboolean _nk_program_parse (const char  *source,
                            GPtrArray  **arena,
                            GArray     **statements,
                            GError     **error,
                            guint       *error_pos,
                            guint       *error_stmt_start);
char    *_nk_program_dump  (const char  *source,
                            GError     **error);

G_END_DECLS
