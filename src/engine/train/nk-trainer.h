/* nk-trainer.h: one toy training run on a worker thread, with honest accounting
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkTrainer owns one run. Its #NkTrainConfig is frozen at construction; start()
 * runs the steps on a worker thread (g_task_run_in_thread) that owns every tensor of
 * the run. Between steps the worker checks an atomic control word (pause, stop,
 * checkpoint now), so each takes effect within one step. After each step it stores
 * the step's #NkTrainMetrics under a mutex (latest + a bounded history) and, if none is
 * pending yet, schedules one idle (G_PRIORITY_LOW) on the caller's main context that
 * updates the properties and emits #NkTrainer::step there: however fast the steps,
 * at most one idle is pending and widgets are only touched on the main thread.
 * nk_trainer_run_sync() runs the same loop on the calling thread and emits ::step
 * after every step (for tests and the CLI). Each checkpoint written is announced the
 * same way by #NkTrainer::checkpoint-written, after the ::step of its step.
 *
 * A step: batch for step t (a pure function of seed and t) → forward (nk_ag_* ops,
 * FLOPs counted by the ops) → backward → optimizer → zero_grad. The FLOPs of each
 * phase come from nk-ops' per-thread counter, the seconds from the monotonic clock,
 * the peak from the device (nk-gpus row of a CUDA device for the run's dtype, or the
 * CPU's derived peak, nk-cpuinfo.h), memory from the device's per-bucket counters, and
 * the prediction beside it from nk-plan's formulas for the same model.
 *
 * Steady state allocates no storage: the forward outputs and backward temporaries
 * come from an #NkArena that hands the same buffers out again every step (nk-autograd.h),
 * parameter gradients and optimizer state are allocated once with the model and
 * optimizer, and the batch is written into two DATA buffers allocated once.
 *
 * Checkpoints (nk-checkpoint.h) hold the parameters, optimizer state, step, data
 * generator state and config; the data stream is a pure function of (seed, step),
 * so a run resumed from a checkpoint repeats the uninterrupted run bit for bit.
 *
 * The parts live in their own files, all included here: the settings
 * (nk-train-config.h), the matmul rate the prediction uses (nk-gemm-rate.h), the
 * per-step metrics and their exports (nk-train-metrics.h), histograms
 * (nk-train-histogram.h), a compact store of a whole run's metrics
 * (nk-train-history.h); this object and its thread are nk-trainer.c, the steps
 * themselves nk-train-loop.c.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

#include "nk-device.h"
#include "nk-enum-types.h"
#include "nk-gemm-rate.h"
#include "nk-model.h"
#include "nk-train-config.h"
#include "nk-train-histogram.h"
#include "nk-train-history.h"
#include "nk-train-metrics.h"

G_BEGIN_DECLS

/**
 * NkTrainerState:
 * @NK_TRAINER_STATE_IDLE: not started
 * @NK_TRAINER_STATE_RUNNING: steps are running
 * @NK_TRAINER_STATE_PAUSED: paused between two steps
 * @NK_TRAINER_STATE_FINISHED: all steps done
 * @NK_TRAINER_STATE_STOPPED: stopped on request
 * @NK_TRAINER_STATE_FAILED: stopped by an error (#NkTrainer:error-message)
 *
 * Where a trainer's run is (#NkTrainer:state).
 */
typedef enum {
  NK_TRAINER_STATE_IDLE,
  NK_TRAINER_STATE_RUNNING,
  NK_TRAINER_STATE_PAUSED,
  NK_TRAINER_STATE_FINISHED,
  NK_TRAINER_STATE_STOPPED,
  NK_TRAINER_STATE_FAILED,
} NkTrainerState;

/**
 * NK_TRAINER_SAMPLE_TOKENS:
 *
 * How many tokens each of a GPT run's samples (nk_trainer_dup_sample()) has.
 */
#define NK_TRAINER_SAMPLE_TOKENS 200

#define NK_TYPE_TRAINER (nk_trainer_get_type ())

NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkTrainer, nk_trainer, NK, TRAINER, GObject)

NK_AVAILABLE_IN_ALL
NkTrainer      *nk_trainer_new              (const NkTrainConfig *config);

NK_AVAILABLE_IN_ALL
const NkTrainConfig *nk_trainer_get_config  (NkTrainer       *self);

/**
 * nk_trainer_start:
 * @self: an idle trainer
 * @cancellable: (nullable): stops the run like nk_trainer_stop()
 * @callback: (nullable): called on the caller's main context when the run ends
 * @user_data: for @callback
 *
 * Runs the whole run on a worker thread. When it ends, the trainer delivers its
 * last step and sets its state (FINISHED, STOPPED or FAILED) on the caller's main
 * context first, then calls @callback: the state ends the same whether or not
 * there is a callback that calls nk_trainer_start_finish().
 */
NK_AVAILABLE_IN_ALL
void            nk_trainer_start            (NkTrainer           *self,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
NK_AVAILABLE_IN_ALL
gboolean        nk_trainer_start_finish     (NkTrainer           *self,
                                             GAsyncResult        *result,
                                             GError             **error);

/**
 * nk_trainer_run_sync:
 * @self: an idle trainer
 * @cancellable: (nullable): a cancellable
 * @error: return location for a #GError
 *
 * The same run on the calling thread; ::step is emitted after every step.
 *
 * Returns: %TRUE if all steps ran (or nk_trainer_stop() ended the run)
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_trainer_run_sync         (NkTrainer           *self,
                                             GCancellable        *cancellable,
                                             GError             **error);

NK_AVAILABLE_IN_ALL
void            nk_trainer_pause            (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
void            nk_trainer_resume           (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
void            nk_trainer_stop             (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
void            nk_trainer_checkpoint_now   (NkTrainer           *self);
/**
 * nk_trainer_abort:
 * @self: a trainer
 * @error: why the run cannot go on
 *
 * Ends the run between two steps, as FAILED with @error (the first abort's error
 * wins); any thread may call it (a recorder whose folder cannot be written does).
 */
NK_AVAILABLE_IN_ALL
void            nk_trainer_abort            (NkTrainer           *self,
                                             const GError        *error);

/**
 * NkTrainerObserver:
 * @ready: the run has proven it can go on (settings checked, checkpoint loaded)
 *   and starts after @start_step; called once, before step 1
 * @step: a step was measured; called before a checkpoint of it is written and
 *   before ::step is scheduled, between two timed steps, so it must only copy
 *   and queue
 * @sync: returns once everything @step was given is on disk; called before each
 *   checkpoint is written, when the run parks on a pause and when it stops
 *
 * What a recorder of the run (nk-run-recorder.h) is told, on the thread that runs
 * the steps (the worker, or the caller of nk_trainer_run_sync()). Because @step
 * comes before the checkpoint and @sync waits, a checkpoint of step s never exists
 * on disk before the steps up to s do: a run killed at any point and resumed from
 * its newest checkpoint has every step before it.
 */
typedef struct {
  void (*ready) (NkTrainer            *trainer,
                 guint64               start_step,
                 gpointer              user_data);
  void (*step)  (NkTrainer            *trainer,
                 const NkTrainMetrics *metrics,
                 gpointer              user_data);
  void (*sync)  (NkTrainer            *trainer,
                 gpointer              user_data);
} NkTrainerObserver;

/**
 * nk_trainer_set_observer: (skip)
 * @self: a trainer
 * @observer: (nullable): the calls, copied; %NULL detaches
 * @user_data: for them
 *
 * One observer per trainer, attached before start(); detaching waits for a call
 * in progress, so @user_data may go once this returns. Not for bindings (C
 * function pointers called on the worker thread): they connect to ::step.
 */
NK_AVAILABLE_IN_ALL
void            nk_trainer_set_observer     (NkTrainer               *self,
                                             const NkTrainerObserver *observer,
                                             gpointer                 user_data);

NK_AVAILABLE_IN_ALL
NkTrainerState  nk_trainer_get_state        (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
gboolean        nk_trainer_is_parked        (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
guint64         nk_trainer_get_steps_done   (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
guint64         nk_trainer_get_start_step   (NkTrainer           *self);

NK_AVAILABLE_IN_ALL
gboolean        nk_trainer_get_latest       (NkTrainer           *self,
                                             NkTrainMetrics      *out_metrics);
NK_AVAILABLE_IN_ALL
GArray         *nk_trainer_get_history      (NkTrainer           *self);
/**
 * nk_trainer_get_history_range:
 * @self: a trainer
 * @from_step: the first step wanted (steps count from 1)
 *
 * The steps from @from_step on that the history still holds, so a listener that
 * has seen steps up to s asks for s + 1 and copies only what is new.
 *
 * Returns: (transfer container) (element-type NkTrainMetrics): a copy of those steps
 */
NK_AVAILABLE_IN_ALL
GArray         *nk_trainer_get_history_range (NkTrainer          *self,
                                              guint64             from_step);
NK_AVAILABLE_IN_ALL
guint64         nk_trainer_get_skipped_steps (NkTrainer          *self);

/**
 * nk_trainer_set_histogram_source:
 * @self: a trainer
 * @name: (nullable): a parameter's state_dict name; %NULL: the gradient of the last
 *   weight ("final.weight", "head.weight")
 * @gradient: histogram its gradient rather than its values
 *
 * Chooses the tensor the worker histograms every #NkTrainConfig.histogram_every steps;
 * may be called at any time: the next step takes a new histogram.
 */
NK_AVAILABLE_IN_ALL
void            nk_trainer_set_histogram_source (NkTrainer       *self,
                                                 const char      *name,
                                                 gboolean         gradient);
NK_AVAILABLE_IN_ALL
gboolean        nk_trainer_get_histogram     (NkTrainer          *self,
                                              NkTrainHistogram   *out);
/**
 * nk_trainer_dup_sample:
 * @self: a trainer
 * @out_step: (out) (optional): the step after which it was drawn
 *
 * A GPT run with #NkTrainConfig.sample_every draws NK_TRAINER_SAMPLE_TOKENS tokens
 * every that many steps (and after the last), continuing a newline, with nanoGPT's
 * sample.py settings (temperature 0.8, top-k 200) and a generator seeded by the step.
 *
 * Returns: (transfer full) (nullable): the latest sample's text (valid UTF-8), or
 *   %NULL before the first
 */
NK_AVAILABLE_IN_ALL
char           *nk_trainer_dup_sample        (NkTrainer          *self,
                                              guint64            *out_step);

NK_AVAILABLE_IN_ALL
NkModel        *nk_trainer_get_model        (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
guint64         nk_trainer_get_n_parameters (NkTrainer           *self);
NK_AVAILABLE_IN_ALL
const char     *nk_trainer_get_device_name  (NkTrainer           *self);

NK_AVAILABLE_IN_ALL
gboolean        nk_trainer_save             (NkTrainer           *self,
                                             const char          *path,
                                             GError             **error);

G_END_DECLS
