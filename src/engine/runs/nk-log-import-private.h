/* nk-log-import-private.h: import's line and point readers, one line at a time
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one home of each engine's line format (nk-log-import.c) read one line (or one
 * TensorBoard point) at a time, for nk-log-follow.c.
 */
#pragma once

#include "nk-log-import.h"
#include "nk-tfevents.h"

G_BEGIN_DECLS

typedef enum {
  NK_LOG_LINE_OTHER,      /* not one of the format's lines */
  NK_LOG_LINE_STEP,       /* a step's line */
  NK_LOG_LINE_MEMORY,     /* a line that adds memory to the last step (Megatron-LM) or nothing */
  NK_LOG_LINE_REJECTED,   /* the format's line, with a value no run can have */
} NkLogLineKind;

void           _nk_log_line_clean     (char                *line);
NkLogLineKind  _nk_log_line_parse     (NkLogFormat          format,
                                       const char          *line,
                                       NkImportStep        *out,
                                       char               **why);
NkLogFormat    _nk_log_line_detect    (const char          *line);
gboolean       _nk_log_line_is_end    (NkLogFormat          format,
                                       const char          *line);
NkLogLineKind  _nk_log_import_point   (const char          *tag,
                                       const NkScalarPoint *pt,
                                       NkImportStep        *out,
                                       char               **why);
void           _nk_import_step_merge  (NkImportStep        *into,
                                       const NkImportStep  *from);

G_END_DECLS
