/* napkin-run.h: one training run the Training page started, and its history
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A #NapkinRun wraps the #NkTrainer of one run for the page: its name, state,
 * latest step, error and last checkpoint as properties, and its history, kept
 * here once: every field of every step in one #NkTrainHistory (what exports
 * write), and the plotted columns as the series the plots are bound to. The
 * plots share these series, and showing the run again rebinds them instead of
 * copying anything; the trainer's own ring is only a bounded hand-over buffer.
 *
 * The run follows its trainer's coalesced ::step on the main thread and, when
 * several steps were done since the last one, copies only the missing ones from
 * the trainer (nk_trainer_get_history_range()), so every step is in the series.
 * The series share one x column (the steps), stored once.
 */
#pragma once

#include <gio/gio.h>

#include "nk-command-run.h"
#include "nk-import-plan.h"
#include "nk-log-follow.h"
#include "nk-run-dir.h"
#include "nk-trainer.h"
#include "napkin-series.h"

G_BEGIN_DECLS

/**
 * NapkinRunSeries:
 * @NAPKIN_RUN_SERIES_LOSS: (step, loss)
 * @NAPKIN_RUN_SERIES_PARAMS: (step, live bytes) of the params bucket
 * @NAPKIN_RUN_SERIES_GRADS: of the grads bucket
 * @NAPKIN_RUN_SERIES_OPTIMIZER: of the optimizer bucket
 * @NAPKIN_RUN_SERIES_ACTIVATIONS: of the activations bucket
 * @NAPKIN_RUN_SERIES_DATA: of the data bucket
 * @NAPKIN_RUN_SERIES_THROUGHPUT: (step, measured FLOP/s)
 * @NAPKIN_RUN_SERIES_SCALE: (step, loss scale) of an fp16 run (empty otherwise)
 * @NAPKIN_RUN_SERIES_SKIPPED: one (step, skipped so far) per skipped fp16 step
 * @NAPKIN_RUN_SERIES_QUANT_FLUSHED: (step, share of the matmul operands' nonzero
 *   elements flushed to zero) of an mxfp8 or nvfp4 run (empty otherwise)
 * @NAPKIN_RUN_SERIES_QUANT_CLIPPED: (step, share clipped at the element format's
 *   largest value) likewise
 *
 * The series of a run; the five memory buckets are consecutive, in the memory
 * plot's order.
 */
typedef enum {
  NAPKIN_RUN_SERIES_LOSS,
  NAPKIN_RUN_SERIES_PARAMS,
  NAPKIN_RUN_SERIES_GRADS,
  NAPKIN_RUN_SERIES_OPTIMIZER,
  NAPKIN_RUN_SERIES_ACTIVATIONS,
  NAPKIN_RUN_SERIES_DATA,
  NAPKIN_RUN_SERIES_THROUGHPUT,
  NAPKIN_RUN_SERIES_SCALE,
  NAPKIN_RUN_SERIES_SKIPPED,
  NAPKIN_RUN_SERIES_QUANT_FLUSHED,
  NAPKIN_RUN_SERIES_QUANT_CLIPPED,
  NAPKIN_RUN_N_SERIES
} NapkinRunSeries;

#define NAPKIN_TYPE_RUN (napkin_run_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRun, napkin_run, NAPKIN, RUN, GObject)

NapkinRun            *napkin_run_new                 (NkTrainer           *trainer,
                                                      guint                index);
NkTrainer            *napkin_run_get_trainer         (NapkinRun           *self);
const NkTrainConfig  *napkin_run_get_config          (NapkinRun           *self);
guint                 napkin_run_get_index           (NapkinRun           *self);
const char           *napkin_run_get_name            (NapkinRun           *self);
NkTrainerState        napkin_run_get_state           (NapkinRun           *self);
gboolean              napkin_run_is_live             (NapkinRun           *self);
guint64               napkin_run_get_last_step       (NapkinRun           *self);
double                napkin_run_get_last_loss       (NapkinRun           *self);
const NkTrainMetrics *napkin_run_get_latest          (NapkinRun           *self);
const char           *napkin_run_get_error           (NapkinRun           *self);
guint64               napkin_run_get_checkpoint_step (NapkinRun           *self);
double                napkin_run_get_elapsed         (NapkinRun           *self);
gboolean              napkin_run_get_shown           (NapkinRun           *self);
void                  napkin_run_set_shown           (NapkinRun           *self,
                                                      gboolean             shown);
NapkinSeries         *napkin_run_get_series          (NapkinRun           *self,
                                                      NapkinRunSeries      which);
NkTrainHistory       *napkin_run_get_history         (NapkinRun           *self);
gsize                 napkin_run_get_memory_size     (NapkinRun           *self);

void                  napkin_run_start               (NapkinRun           *self,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
gboolean              napkin_run_start_finish        (NapkinRun           *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);

/* Its folder on disk (nk-run-dir.h): written while it runs, or read back. */
gboolean              napkin_run_write_folder        (NapkinRun           *self,
                                                      const char          *folder,
                                                      GError             **error);
NapkinRun            *napkin_run_new_from_folder     (const NkRunInfo     *info,
                                                      guint                index,
                                                      GError             **error);
const char           *napkin_run_get_folder          (NapkinRun           *self);
void                  napkin_run_flush_folder        (NapkinRun           *self);
gboolean              napkin_run_is_from_disk        (NapkinRun           *self);
gboolean              napkin_run_is_loaded           (NapkinRun           *self);
void                  napkin_run_load_async          (NapkinRun           *self,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
gboolean              napkin_run_load_finish         (NapkinRun           *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);
gboolean              napkin_run_is_interrupted      (NapkinRun           *self);
gboolean              napkin_run_is_resumable        (NapkinRun           *self);
gboolean              napkin_run_rename              (NapkinRun           *self,
                                                      const char          *name,
                                                      GError             **error);

/* A run of another engine, read from its log (nk-log-import.h), beside a plan. */
NapkinRun            *napkin_run_new_from_import     (NkImport            *import,
                                                      const char          *path,
                                                      guint                index);
const NkImport       *napkin_run_get_import          (NapkinRun           *self);
const char           *napkin_run_get_import_path     (NapkinRun           *self);
void                  napkin_run_set_plan            (NapkinRun                *self,
                                                      const NkImportPrediction *plan);
const NkImportPrediction *napkin_run_get_plan        (NapkinRun           *self);
gboolean              napkin_run_get_comparison      (NapkinRun           *self,
                                                      NkImportComparison  *out);
char                 *napkin_run_dup_description     (NapkinRun           *self);

/* A run of another engine whose log is followed as it grows (nk-log-follow.h),
 * written by a command Napkin launched (nk-command-run.h) or by a job elsewhere. */
NapkinRun            *napkin_run_new_following       (const char          *path,
                                                      NkCommandRun        *command,
                                                      guint                index,
                                                      GError             **error);
NkCommandRun         *napkin_run_get_command         (NapkinRun           *self);
NkLogFollower        *napkin_run_get_follower        (NapkinRun           *self);
const char           *napkin_run_get_notice          (NapkinRun           *self);

char                 *napkin_run_describe_config     (const NkTrainConfig *config);
char                 *napkin_run_dup_default_name    (const NkTrainConfig *config);
char                 *napkin_run_format_loss         (double               loss);

G_END_DECLS
