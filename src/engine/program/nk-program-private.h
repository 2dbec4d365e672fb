/* nk-program-private.h: the internals the tensor language's files share (and its tests)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The language is cut as json-glib cuts JSON: a lexer (nk-program-lexer.c) feeds a
 * recursive-descent parser (nk-program-parser.c) that builds a tree of NkNode; the
 * evaluator (nk-program-eval.c, with nk-program-args.c for arguments and
 * nk-program-index.c for x[...]) walks it, calling the builtins of two tables
 * (nk-program-functions.c, nk-program-methods.c); values are NkProgramValue
 * (nk-program-value.c); the NkProgram object (nk-program.c) runs a program and
 * keeps what it did.
 */
#pragma once

#include <glib-object.h>

#include "nk-program.h"

G_BEGIN_DECLS

/* Deeper nesting (brackets, calls, subscripts) than this is refused, so that a
 * hostile program cannot blow the C stack of the parser or the evaluator. Chains
 * (1 + 1 + …, x.T.T…, - - 1) are not nesting: both walk them in a loop. */
#define NK_PROGRAM_MAX_DEPTH 64

/* Integers from the program are kept within ±2^53 so they are exact as doubles and
 * sums of two never overflow. */
#define NK_PROGRAM_MAX_INT (G_GINT64_CONSTANT (1) << 53)

/* ---- lexer (nk-program-lexer.c) ------------------------------------------------- */

typedef enum {
  NK_TOK_EOF,
  NK_TOK_NEWLINE,
  NK_TOK_SEMI,
  NK_TOK_NAME,
  NK_TOK_NUMBER,
  NK_TOK_STRING,
  NK_TOK_LPAREN,
  NK_TOK_RPAREN,
  NK_TOK_LBRACKET,
  NK_TOK_RBRACKET,
  NK_TOK_COMMA,
  NK_TOK_COLON,
  NK_TOK_DOT,
  NK_TOK_ELLIPSIS,
  NK_TOK_ASSIGN,
  NK_TOK_PLUS,
  NK_TOK_MINUS,
  NK_TOK_STAR,
  NK_TOK_SLASH,
  NK_TOK_AT,
} NkTokKind;

typedef struct {
  NkTokKind kind;
  guint     pos;       /* byte offset of the first character */
  guint     len;       /* bytes */
  double    number;
  gboolean  is_int;
  char     *text;      /* NAME: the name; STRING: the unquoted contents */
} NkToken;

typedef struct {
  const char *source;
  gsize       length;
  gsize       at;            /* the next byte to read */
  int         bracket_depth;
  NkToken     tok;           /* the current token */
  GError     *error;         /* the first syntax error */
  guint       error_pos;
} NkLexer;

void        _nk_lexer_init     (NkLexer    *lex,
                                const char *source);
void        _nk_lexer_clear    (NkLexer    *lex);
gboolean    _nk_lexer_next     (NkLexer    *lex);
void        _nk_lexer_fail     (NkLexer    *lex,
                                guint       pos,
                                const char *format,
                                ...) G_GNUC_PRINTF (3, 4);
const char *_nk_token_describe (NkTokKind   kind);

/* ---- syntax tree (nk-program-parser.c, nk-program-dump.c) ----------------------- */

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

struct _NkNode {
  NkNodeKind kind;
  guint      pos;       /* byte offset of the token that names the node */
  char       op;        /* UNARY/BINARY: one of + - * / @ */
  double     number;
  gboolean   is_int;
  char      *text;      /* NAME, STRING, CALL/METHOD/ATTR name, KWARG name */
  NkNode    *a, *b, *c; /* operands (a: the object of METHOD/ATTR/INDEX); SLICE: start,
                         * stop, step; ASSIGN: target, value */
  GPtrArray *items;     /* args / subscripts / elements, not owned */
};

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

/* ---- values (nk-program-value.c) ------------------------------------------------ */

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

NkProgramValue *_nk_program_value_new        (NkProgramValueKind  kind);
NkProgramValue *_nk_program_value_new_tensor (NkTensor           *tensor);
NkProgramValue *_nk_program_value_new_int    (gint64              i);
NkProgramValue *_nk_program_value_new_float  (double              d);
NkProgramValue *_nk_program_value_new_bool   (gboolean            b);
NkProgramValue *_nk_program_value_new_tuple  (guint               n,
                                              const gint64       *items);
NkProgramValue *_nk_program_value_new_string (const char         *string);
const char     *_nk_program_kind_name        (NkProgramValueKind  kind);

/* ---- the program object (nk-program.c) ------------------------------------------ */

typedef struct {
  char           *name;
  NkProgramValue *value;
  guint           statement;   /* 1-based */
} NkBinding;

/* What one statement did to memory, for the page to say "reshape copied". */
typedef struct {
  const char *op;          /* static or in the arena: valid until the next run */
  gboolean    copied;
  gsize       new_bytes;
} NkStatementFacts;

struct _NkProgram
{
  GObject     parent_instance;

  NkDType     dtype;
  char       *source;

  GPtrArray  *arena;
  GArray     *statements;    /* NkStatementInfo, every statement that parsed */
  GPtrArray  *values;        /* NkProgramValue per statement that ran */
  GPtrArray  *stmt_names;    /* char * (nullable) per statement that ran */
  GHashTable *env;           /* name → NkBinding */
  GPtrArray  *order;         /* NkBinding (not owned), by statement */

  GArray     *stmt_facts;    /* NkStatementFacts per statement that ran */

  guint       error_statement;
  guint       error_column;
  guint       error_offset;  /* byte offset of the failure in the source */
  guint       error_start;   /* the failing statement's range, in bytes */
  guint       error_end;
  char       *error_reason;

  GHashTable *storages;      /* storages counted against the allocation budget */
  gint64      allocated;     /* elements of those storages */
  gint64      work;          /* elements read and written, against max_work */
  gint64      max_work;      /* NK_PROGRAM_MAX_TOTAL_WORK unless set lower */
};

/* ---- evaluation (nk-program-eval.c) --------------------------------------------- */

typedef struct {
  NkProgram *self;
  guint      statement;    /* 1-based */
  GError    *error;
  guint      error_pos;
  int        depth;
  GPtrArray *new_storages; /* NkStorage (not owned) the statement allocated ... */
  GPtrArray *new_nodes;    /* ... and the NkNode of the op that did, in step */
} NkEval;

void            _nk_eval_fail          (NkEval     *ev,
                                        NkNode     *node,
                                        int         code,
                                        const char *format,
                                        ...) G_GNUC_PRINTF (4, 5);
void            _nk_eval_fail_with     (NkEval     *ev,
                                        NkNode     *node,
                                        GError     *error);
gboolean        _nk_eval_charge        (NkEval     *ev,
                                        NkNode     *node,
                                        double      elements);
NkProgramValue *_nk_eval_tensor_result (NkEval     *ev,
                                        NkNode     *node,
                                        NkTensor   *tensor,
                                        GError    **error);
NkProgramValue *_nk_eval_expr          (NkEval     *ev,
                                        NkNode     *node);
gboolean        _nk_eval_statement     (NkEval     *ev,
                                        NkNode     *stmt,
                                        char      **name);

/* x[...] (nk-program-index.c) */
NkProgramValue *_nk_eval_index         (NkEval          *ev,
                                        NkNode          *node,
                                        NkProgramValue  *object);
NkProgramValue *_nk_eval_assign_index  (NkEval          *ev,
                                        NkNode          *target,
                                        NkNode          *value_node);

/* ---- arguments (nk-program-args.c) ---------------------------------------------- */

typedef struct {
  GPtrArray *pos;          /* NkProgramValue */
  GPtrArray *pos_nodes;    /* NkNode, for error columns */
  GPtrArray *kw_names;     /* const char * */
  GPtrArray *kw_values;    /* NkProgramValue */
  GPtrArray *kw_nodes;
} NkArgs;

void            _nk_args_clear    (NkArgs            *args);
gboolean        _nk_args_eval     (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args);
NkProgramValue *_nk_args_pos      (NkArgs            *args,
                                   guint              i);
NkNode         *_nk_args_node     (NkArgs            *args,
                                   guint              i,
                                   NkNode            *call);
NkProgramValue *_nk_args_named    (NkArgs            *args,
                                   const char        *name,
                                   int                i,
                                   NkNode           **node,
                                   NkNode            *call);
gboolean        _nk_args_check    (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args,
                                   guint              min,
                                   guint              max,
                                   const char *const *keywords);
gboolean        _nk_args_shape    (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args,
                                   guint              first,
                                   int               *ndim,
                                   gint64            *shape);
gboolean        _nk_args_int      (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args,
                                   guint              i,
                                   const char        *what,
                                   gint64            *out);
gboolean        _nk_args_dim      (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args,
                                   guint              i,
                                   NkTensor          *x,
                                   int                extra,
                                   int               *out);
NkTensor       *_nk_args_tensor   (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args,
                                   guint              i);
const char     *_nk_args_string   (NkEval            *ev,
                                   NkNode            *call,
                                   NkArgs            *args,
                                   guint              i);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NkArgs, _nk_args_clear)

gboolean _nk_value_as_int         (NkEval         *ev,
                                  NkNode         *node,
                                  NkProgramValue *value,
                                  const char     *what,
                                  gint64         *out);
gboolean _nk_value_as_number      (NkEval         *ev,
                                  NkNode         *node,
                                  NkProgramValue *value,
                                  const char     *what,
                                  double         *out);
gboolean _nk_value_as_dims        (NkEval         *ev,
                                  NkNode         *node,
                                  NkProgramValue *value,
                                  NkTensor       *t,
                                  int            *n,
                                  int            *dims);
gboolean _nk_program_wrap_dim     (NkEval         *ev,
                                  NkNode         *node,
                                  gint64          dim,
                                  int             ndim,
                                  int            *out);
/* What a -1 among the sizes means: nothing (refused), the one size view and reshape
 * infer, or (expand) the existing size, in any number of dimensions. */
typedef enum {
  NK_SIZES_NO_MINUS_ONE,
  NK_SIZES_INFER_ONE,
  NK_SIZES_KEEP_EACH,
} NkSizesMinusOne;

gboolean _nk_program_check_sizes  (NkEval         *ev,
                                  NkNode         *node,
                                  int             n,
                                  const gint64   *sizes,
                                  NkSizesMinusOne minus_one);

/* ---- builtins (nk-program-functions.c, nk-program-methods.c) -------------------- */

typedef struct _NkBuiltin NkBuiltin;

/* @x is the tensor a method is called on (%NULL for functions); @args is %NULL for
 * a builtin flagged %NK_BUILTIN_RAW_ARGS, which reads its own syntax. */
typedef NkProgramValue *(*NkBuiltinFunc) (NkEval          *ev,
                                          NkNode          *call,
                                          NkArgs          *args,
                                          NkTensor        *x,
                                          const NkBuiltin *builtin);

typedef enum {
  NK_BUILTIN_RAW_ARGS     = 1 << 0,  /* gets the unevaluated call: tensor([[…]]) */
  NK_BUILTIN_OWN_ARITY    = 1 << 1,  /* checks its own arguments and keywords */
  NK_BUILTIN_CONSTRUCTOR  = 1 << 2,  /* makes storage from nothing: not a copy */
} NkBuiltinFlags;

struct _NkBuiltin {
  const char        *name;
  guint              min_args;     /* positional arguments */
  guint              max_args;     /* G_MAXUINT: any number */
  const char *const *keywords;     /* the keyword arguments it takes, or %NULL */
  NkBuiltinFlags     flags;
  int                data;         /* for handlers shared by several names */
  NkBuiltinFunc      func;
};

/* Both tables are sorted by name and searched with bsearch(). */
const NkBuiltin *_nk_program_functions       (guint      *n);
const NkBuiltin *_nk_program_methods         (guint      *n);
const NkBuiltin *_nk_program_find_builtin    (const NkBuiltin *table,
                                              guint            n,
                                              const char      *name);
NkProgramValue  *_nk_program_call_builtin    (NkEval          *ev,
                                              NkNode          *call,
                                              const NkBuiltin *builtin,
                                              NkArgs          *args,
                                              NkTensor        *x);
NkProgramValue  *_nk_eval_call               (NkEval          *ev,
                                              NkNode          *call);
NkProgramValue  *_nk_eval_method             (NkEval          *ev,
                                              NkNode          *call,
                                              NkProgramValue  *object);
gboolean         _nk_program_is_constructor  (NkNode          *node);

G_END_DECLS
