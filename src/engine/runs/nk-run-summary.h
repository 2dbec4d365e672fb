/* nk-run-summary.h: a run in one line of figures: final and best loss, tokens, throughput, MFU, peak memory
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a table of runs shows and sorts by, computed once per run from its steps:
 * a run of Napkin's (its #NkTrainHistory, or its folder on disk) or a log of another
 * engine (its #NkImport). The typical step is the median over the steps after the
 * first, which warms up (as nk_import_compare() measures a log against its plan);
 * the peak is the largest value any step reported. A figure the run does not tell
 * is NAN: unknown, shown as an em dash and sorted after every known figure
 * (nk_run_summary_compare()).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-import-plan.h"
#include "nk-log-import.h"
#include "nk-train-history.h"

G_BEGIN_DECLS

/**
 * NkRunSummaryField:
 * @NK_RUN_SUMMARY_FINAL_LOSS: the loss of the last step that has one
 * @NK_RUN_SUMMARY_BEST_LOSS: the lowest finite loss of any step
 * @NK_RUN_SUMMARY_TOKENS: tokens seen: tokens per step times the last step
 * @NK_RUN_SUMMARY_TOKENS_PER_S: the whole job's tokens per second, the median step's
 * @NK_RUN_SUMMARY_MFU: model FLOPs utilisation (a fraction), the median step's
 * @NK_RUN_SUMMARY_PEAK_MEMORY: the most bytes any step reported, in bytes
 * @NK_RUN_SUMMARY_N_FIELDS: how many fields (not a field)
 *
 * The figures of an #NkRunSummary, the columns a table of runs sorts by.
 */
typedef enum {
  NK_RUN_SUMMARY_FINAL_LOSS,
  NK_RUN_SUMMARY_BEST_LOSS,
  NK_RUN_SUMMARY_TOKENS,
  NK_RUN_SUMMARY_TOKENS_PER_S,
  NK_RUN_SUMMARY_MFU,
  NK_RUN_SUMMARY_PEAK_MEMORY,
  NK_RUN_SUMMARY_N_FIELDS
} NkRunSummaryField;

/**
 * NkRunSummary:
 * @last_step: the last step's number (0: no step)
 * @best_step: the step of @value[%NK_RUN_SUMMARY_BEST_LOSS] (0: none)
 * @value: each #NkRunSummaryField's figure, NAN where the run does not tell it
 *
 * A run's figures. A plain struct; a boxed type for bindings.
 */
typedef struct {
  guint64 last_step;
  guint64 best_step;
  double  value[NK_RUN_SUMMARY_N_FIELDS];
} NkRunSummary;

#define NK_TYPE_RUN_SUMMARY (nk_run_summary_get_type ())

NK_AVAILABLE_IN_ALL
GType         nk_run_summary_get_type     (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkRunSummary *nk_run_summary_copy         (const NkRunSummary      *summary);
NK_AVAILABLE_IN_ALL
void          nk_run_summary_free         (NkRunSummary            *summary);

NK_AVAILABLE_IN_ALL
void          nk_run_summary_init         (NkRunSummary            *summary);
NK_AVAILABLE_IN_ALL
void          nk_run_summary_from_history (NkTrainHistory          *history,
                                           double                   tokens_per_step,
                                           NkRunSummary            *out);
NK_AVAILABLE_IN_ALL
void          nk_run_summary_from_import  (const NkImport          *import,
                                           const NkImportPrediction *plan,
                                           NkRunSummary            *out);
NK_AVAILABLE_IN_ALL
gboolean      nk_run_summary_read         (const char              *dir,
                                           NkRunSummary            *out,
                                           GError                 **error);

NK_AVAILABLE_IN_ALL
double        nk_run_summary_get          (const NkRunSummary      *summary,
                                           NkRunSummaryField        field);
NK_AVAILABLE_IN_ALL
int           nk_run_summary_compare      (const NkRunSummary      *a,
                                           const NkRunSummary      *b,
                                           NkRunSummaryField        field,
                                           gboolean                 inverted);
NK_AVAILABLE_IN_ALL
char         *nk_run_summary_format       (const NkRunSummary      *summary,
                                           NkRunSummaryField        field);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkRunSummary, nk_run_summary_free)

G_END_DECLS
