/* napkin-runs-table.h: the runs side by side in a table that sorts by each figure
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "napkin-run-summary-item.h"

G_BEGIN_DECLS

/**
 * NapkinRunsColumn:
 * @NAPKIN_RUNS_COLUMN_NAME: the run's name
 * @NAPKIN_RUNS_COLUMN_SOURCE: what ran it (Napkin and its model, or another engine)
 * @NAPKIN_RUNS_COLUMN_FINAL_LOSS: #NK_RUN_SUMMARY_FINAL_LOSS
 * @NAPKIN_RUNS_COLUMN_BEST_LOSS: #NK_RUN_SUMMARY_BEST_LOSS
 * @NAPKIN_RUNS_COLUMN_TOKENS: #NK_RUN_SUMMARY_TOKENS
 * @NAPKIN_RUNS_COLUMN_TOKENS_PER_S: #NK_RUN_SUMMARY_TOKENS_PER_S
 * @NAPKIN_RUNS_COLUMN_MFU: #NK_RUN_SUMMARY_MFU
 * @NAPKIN_RUNS_COLUMN_PEAK_MEMORY: #NK_RUN_SUMMARY_PEAK_MEMORY
 * @NAPKIN_RUNS_N_COLUMNS: how many columns
 *
 * The table's columns, left to right; a figure's column is
 * %NAPKIN_RUNS_COLUMN_FINAL_LOSS + its #NkRunSummaryField.
 */
typedef enum {
  NAPKIN_RUNS_COLUMN_NAME,
  NAPKIN_RUNS_COLUMN_SOURCE,
  NAPKIN_RUNS_COLUMN_FINAL_LOSS,
  NAPKIN_RUNS_COLUMN_BEST_LOSS,
  NAPKIN_RUNS_COLUMN_TOKENS,
  NAPKIN_RUNS_COLUMN_TOKENS_PER_S,
  NAPKIN_RUNS_COLUMN_MFU,
  NAPKIN_RUNS_COLUMN_PEAK_MEMORY,
  NAPKIN_RUNS_N_COLUMNS
} NapkinRunsColumn;

#define NAPKIN_TYPE_RUNS_TABLE (napkin_runs_table_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunsTable, napkin_runs_table, NAPKIN, RUNS_TABLE, GtkWidget)

GtkWidget     *napkin_runs_table_new             (GListModel       *runs);
GListModel    *napkin_runs_table_get_runs        (NapkinRunsTable  *self);
void           napkin_runs_table_set_runs        (NapkinRunsTable  *self,
                                                  GListModel       *runs);
void           napkin_runs_table_sort_by         (NapkinRunsTable  *self,
                                                  NapkinRunsColumn  column,
                                                  GtkSortType       order);
GListModel    *napkin_runs_table_get_model       (NapkinRunsTable  *self);
guint          napkin_runs_table_get_n_pending   (NapkinRunsTable  *self);
GtkColumnView *napkin_runs_table_get_column_view (NapkinRunsTable  *self);
char          *napkin_runs_table_dup_cell_text   (NapkinRunsTable  *self,
                                                  guint             position,
                                                  NapkinRunsColumn  column);

G_END_DECLS
