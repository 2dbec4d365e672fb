/* nk-program.h: a small PyTorch-flavoured tensor language, parsed and evaluated
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The language of `napkin-cli tensor` and of the Strides & views page:
 *
 *     x = arange(16).view(4, 4)      # statements end with ";" or a new line
 *     y = x[:, 1]                    # a view: shares x's storage
 *     y[0] = 100                     # writes through to x
 *     x.t().view(16)                 # error: PyTorch's reason, statement 4, column 7
 *
 * Values are tensors, integers, floats, booleans, tuples of integers and strings.
 * Every tensor a program makes is stored in the program's dtype (f32 unless set),
 * so the page can show the storage shrink under f16, bf16 or e4m3.
 *
 * A program runs statement after statement and stops at the first one that fails;
 * a syntax error is such a failure too, and the statements before it still run.
 * The failing statement (1-based) and the column inside it (1-based, in
 * characters from the statement's first character) are kept, and are also the
 * start of the GError's message; so are the failure's byte offset in the source
 * and the failing statement's byte range, for editors that mark it.
 *
 * Every tensor a program makes is capped at %NK_PROGRAM_MAX_NUMEL elements, and
 * all it allocates together at %NK_PROGRAM_MAX_TOTAL_NUMEL, so that a typo such
 * as arange(1e12) is an error rather than an out-of-memory kill; the elements its
 * ops read and write together are capped at %NK_PROGRAM_MAX_TOTAL_WORK (views
 * cost nothing), so that a long program of cheap-looking statements ends in
 * seconds rather than hours.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-dtype.h"
#include "nk-tensor.h"

G_BEGIN_DECLS

/**
 * NK_PROGRAM_MAX_NUMEL:
 *
 * The largest tensor a program may make (4 Mi elements: 16 MiB in f32).
 */
#define NK_PROGRAM_MAX_NUMEL       (G_GINT64_CONSTANT (1) << 22)
/**
 * NK_PROGRAM_MAX_TOTAL_NUMEL:
 *
 * What one program may allocate in all (32 Mi elements).
 */
#define NK_PROGRAM_MAX_TOTAL_NUMEL (G_GINT64_CONSTANT (1) << 25)
/**
 * NK_PROGRAM_MAX_WORK:
 *
 * The most multiply-adds one matmul or einsum may do (256 Mi).
 */
#define NK_PROGRAM_MAX_WORK        (G_GINT64_CONSTANT (1) << 28)
/**
 * NK_PROGRAM_MAX_TOTAL_WORK:
 *
 * The most elements one program's ops may read and write in all (1 Gi).
 */
#define NK_PROGRAM_MAX_TOTAL_WORK  (G_GINT64_CONSTANT (1) << 30)

#define NK_PROGRAM_ERROR (nk_program_error_quark ())

/**
 * NkProgramError:
 * @NK_PROGRAM_ERROR_SYNTAX: the text does not parse
 * @NK_PROGRAM_ERROR_NAME: an unknown name, function, method or keyword
 * @NK_PROGRAM_ERROR_TYPE: a value of the wrong kind, a wrong argument count
 * @NK_PROGRAM_ERROR_INDEX: an index or dimension out of range
 * @NK_PROGRAM_ERROR_SHAPE: shapes that do not fit; a view the strides cannot express
 * @NK_PROGRAM_ERROR_LIMIT: more elements than the program may allocate or touch
 *
 * Why a run of the tensor language stopped; the message starts with the statement
 * and column.
 */
typedef enum {
  NK_PROGRAM_ERROR_SYNTAX,
  NK_PROGRAM_ERROR_NAME,
  NK_PROGRAM_ERROR_TYPE,
  NK_PROGRAM_ERROR_INDEX,
  NK_PROGRAM_ERROR_SHAPE,
  NK_PROGRAM_ERROR_LIMIT,
} NkProgramError;

NK_AVAILABLE_IN_ALL
GQuark nk_program_error_quark (void);

/**
 * NkProgramValueKind:
 * @NK_PROGRAM_VALUE_NONE: no value (None)
 * @NK_PROGRAM_VALUE_TENSOR: a tensor
 * @NK_PROGRAM_VALUE_INT: an integer (a size, a stride, an offset)
 * @NK_PROGRAM_VALUE_FLOAT: a float
 * @NK_PROGRAM_VALUE_BOOL: a boolean (is_contiguous, same_storage)
 * @NK_PROGRAM_VALUE_TUPLE: a tuple of integers (shape, size(), stride())
 * @NK_PROGRAM_VALUE_STRING: a string (an einops pattern)
 *
 * What a statement or a name holds.
 */
typedef enum {
  NK_PROGRAM_VALUE_NONE,
  NK_PROGRAM_VALUE_TENSOR,
  NK_PROGRAM_VALUE_INT,
  NK_PROGRAM_VALUE_FLOAT,
  NK_PROGRAM_VALUE_BOOL,
  NK_PROGRAM_VALUE_TUPLE,
  NK_PROGRAM_VALUE_STRING,
} NkProgramValueKind;

/**
 * NkProgramValue:
 *
 * A value of the tensor language: a tensor, a number, a boolean, a tuple of
 * integers or a string, reference-counted (nk_program_value_get_kind() says which).
 */
typedef struct _NkProgramValue NkProgramValue;

#define NK_TYPE_PROGRAM_VALUE (nk_program_value_get_type ())
NK_AVAILABLE_IN_ALL
GType               nk_program_value_get_type   (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkProgramValue     *nk_program_value_ref        (NkProgramValue *value);
NK_AVAILABLE_IN_ALL
void                nk_program_value_unref      (NkProgramValue *value);
NK_AVAILABLE_IN_ALL
NkProgramValueKind  nk_program_value_get_kind   (const NkProgramValue *value);
NK_AVAILABLE_IN_ALL
NkTensor           *nk_program_value_get_tensor (const NkProgramValue *value);
NK_AVAILABLE_IN_ALL
gint64              nk_program_value_get_int    (const NkProgramValue *value);
NK_AVAILABLE_IN_ALL
double              nk_program_value_get_double (const NkProgramValue *value);
NK_AVAILABLE_IN_ALL
gboolean            nk_program_value_get_bool   (const NkProgramValue *value);
NK_AVAILABLE_IN_ALL
const gint64       *nk_program_value_get_tuple  (const NkProgramValue *value,
                                                 guint                *n_items);
NK_AVAILABLE_IN_ALL
const char         *nk_program_value_get_string (const NkProgramValue *value);
NK_AVAILABLE_IN_ALL
char               *nk_program_value_to_string  (const NkProgramValue *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkProgramValue, nk_program_value_unref)

#define NK_TYPE_PROGRAM (nk_program_get_type ())
NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkProgram, nk_program, NK, PROGRAM, GObject)

NK_AVAILABLE_IN_ALL
NkProgram      *nk_program_new                    (void);

NK_AVAILABLE_IN_ALL
NkDType         nk_program_get_dtype              (NkProgram   *self);
NK_AVAILABLE_IN_ALL
void            nk_program_set_dtype              (NkProgram   *self,
                                                   NkDType      dtype);
NK_AVAILABLE_IN_ALL
void            nk_program_set_max_work           (NkProgram   *self,
                                                   gint64       elements);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_source             (NkProgram   *self);

NK_AVAILABLE_IN_ALL
gboolean        nk_program_run                    (NkProgram   *self,
                                                   const char  *source,
                                                   GError     **error);

/* Statements: index from 0 to n - 1 (the error statement counts from 1) */
NK_AVAILABLE_IN_ALL
guint           nk_program_get_n_statements       (NkProgram   *self);
NK_AVAILABLE_IN_ALL
void            nk_program_get_statement_range    (NkProgram   *self,
                                                   guint        index,
                                                   guint       *start,
                                                   guint       *end);
NK_AVAILABLE_IN_ALL
NkProgramValue *nk_program_get_statement_value    (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_statement_name     (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
gboolean        nk_program_get_statement_copied   (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
gsize           nk_program_get_statement_new_bytes (NkProgram  *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_statement_op       (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
NkProgramValue *nk_program_get_last_value         (NkProgram   *self);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_last_name          (NkProgram   *self);

/* The failure, if the last run failed */
NK_AVAILABLE_IN_ALL
guint           nk_program_get_error_statement    (NkProgram   *self);
NK_AVAILABLE_IN_ALL
guint           nk_program_get_error_column       (NkProgram   *self);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_error_reason       (NkProgram   *self);
NK_AVAILABLE_IN_ALL
guint           nk_program_get_error_offset       (NkProgram   *self);
NK_AVAILABLE_IN_ALL
gboolean        nk_program_get_error_range        (NkProgram   *self,
                                                   guint       *start,
                                                   guint       *end);

/* Names bound at the end of the run, in the order of the statements that bound them */
NK_AVAILABLE_IN_ALL
guint           nk_program_get_n_names            (NkProgram   *self);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_name               (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
NkProgramValue *nk_program_get_name_value         (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
guint           nk_program_get_name_statement     (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
const char     *nk_program_get_name_shares_with   (NkProgram   *self,
                                                   guint        index);
NK_AVAILABLE_IN_ALL
NkProgramValue *nk_program_lookup                 (NkProgram   *self,
                                                   const char  *name);

G_END_DECLS
