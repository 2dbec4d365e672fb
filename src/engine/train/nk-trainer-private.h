/* nk-trainer-private.h: what the trainer object and its run loop share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The run loop (nk-train-loop.c) runs on whichever thread runs the steps (the
 * worker, or the caller of nk_trainer_run_sync()) and reaches the object only
 * through these calls, each of which takes the object's mutex where it touches
 * state that other threads read.
 */
#pragma once

#include "nk-trainer.h"

G_BEGIN_DECLS

/* nk-train-loop.c: the whole run on the calling thread. */
gboolean  _nk_train_loop_run                  (NkTrainer          *self,
                                               GCancellable       *cancellable,
                                               GError            **error);

/* nk-trainer.c, for the loop. */
gboolean  _nk_trainer_wait_if_paused          (NkTrainer          *self,
                                               GCancellable       *cancellable);
gboolean  _nk_trainer_take_checkpoint_request (NkTrainer          *self);
gboolean  _nk_trainer_checkpoint_requested    (NkTrainer          *self);
void      _nk_trainer_set_device              (NkTrainer          *self,
                                               NkDevice           *device);
void      _nk_trainer_set_model               (NkTrainer          *self,
                                               NkModel            *model);
void      _nk_trainer_set_start_step          (NkTrainer          *self,
                                               guint64             step);
void      _nk_trainer_publish                 (NkTrainer          *self,
                                               const NkTrainMetrics *metrics);
/* The observer's (nk_trainer_set_observer()): a step measured, before its
 * checkpoint; and, first thing in writing a checkpoint, a wait until the observer
 * has every step on disk. */
void      _nk_trainer_record_step             (NkTrainer          *self,
                                               const NkTrainMetrics *metrics);
void      _nk_trainer_sync_observer           (NkTrainer          *self);
void      _nk_trainer_announce_checkpoint     (NkTrainer          *self,
                                               guint64             step,
                                               char               *path);
char     *_nk_trainer_dup_histogram_source    (NkTrainer          *self,
                                               gboolean           *out_gradient);
gboolean  _nk_trainer_histogram_source_changed (NkTrainer         *self);
void      _nk_trainer_store_histogram         (NkTrainer          *self,
                                               const NkTrainHistogram *histogram);
/* Takes @text. */
void      _nk_trainer_store_sample            (NkTrainer          *self,
                                               guint64             step,
                                               char               *text);

G_END_DECLS
