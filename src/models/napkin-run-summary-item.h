/* napkin-run-summary-item.h: one run's line in the table of runs: the run and its figures
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A #NapkinRunSummaryItem holds a #NapkinRun and the #NkRunSummary the engine
 * computes of it (nk-run-summary.h), and keeps the summary current: a live run's
 * or a followed log's as its steps come (at most four times a second), an
 * imported run's when its plan changes. A run read from disk whose steps are not
 * in memory is summarised from its folder on a thread; until then the item is
 * pending. The table of runs (#NapkinRunsTable) shows and sorts these items.
 */
#pragma once

#include <gio/gio.h>

#include "nk-run-summary.h"
#include "napkin-run.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_RUN_SUMMARY_ITEM (napkin_run_summary_item_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunSummaryItem, napkin_run_summary_item, NAPKIN, RUN_SUMMARY_ITEM, GObject)

NapkinRunSummaryItem *napkin_run_summary_item_new         (NapkinRun            *run);
NapkinRun            *napkin_run_summary_item_get_run     (NapkinRunSummaryItem *self);
const NkRunSummary   *napkin_run_summary_item_get_summary (NapkinRunSummaryItem *self);
gboolean              napkin_run_summary_item_is_pending  (NapkinRunSummaryItem *self);
const char           *napkin_run_summary_item_get_source  (NapkinRunSummaryItem *self);
const char           *napkin_run_summary_item_get_text    (NapkinRunSummaryItem *self,
                                                           NkRunSummaryField     field);
void                  napkin_run_summary_item_update      (NapkinRunSummaryItem *self);

G_END_DECLS
