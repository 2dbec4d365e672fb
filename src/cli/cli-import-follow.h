/* cli-import-follow.h: `napkin-cli import --follow`, and what it shares with import
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-import-plan.h"
#include "nk-log-import.h"

G_BEGIN_DECLS

/* cli-import.c: one step's and the done object's JSON lines */
void     nk_cli_import_print_step       (const NkImportStep       *s,
                                         const NkImportPrediction *p);
void     nk_cli_import_print_done       (const NkImport           *import,
                                         const NkImportPrediction *p,
                                         const char               *ended);

/* cli-import-follow.c */
gboolean nk_cli_import_parse_idle_exit  (gboolean                  follow,
                                         const char               *text,
                                         double                   *out_seconds,
                                         GError                  **error);
int      nk_cli_import_follow           (const char               *path,
                                         NkLogFormat               format,
                                         double                    idle_exit,
                                         const NkImportPrediction *predicted,
                                         gboolean                  json);

G_END_DECLS
