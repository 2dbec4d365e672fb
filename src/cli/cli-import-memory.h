/* cli-import-memory.h: `napkin-cli import` of a PyTorch memory snapshot or memory_stats JSON
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-memory-snapshot.h"

G_BEGIN_DECLS

/* @plan: a plan's JSON file, or NULL; returns the exit code */
int nk_cli_import_memory (const char *path,
                          const char *plan,
                          gboolean    json);

G_END_DECLS
