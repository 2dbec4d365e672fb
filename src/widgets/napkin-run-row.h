/* napkin-run-row.h: one run in the Training page's list
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "napkin-run.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_RUN_ROW (napkin_run_row_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunRow, napkin_run_row, NAPKIN, RUN_ROW, AdwActionRow)

GtkWidget *napkin_run_row_new     (NapkinRun    *run);
NapkinRun *napkin_run_row_get_run (NapkinRunRow *self);

G_END_DECLS
