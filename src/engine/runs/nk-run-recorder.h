/* nk-run-recorder.h: the one writer of a run's folder, attached to its trainer
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkRunRecorder owns a run folder (nk-run-dir.h) for as long as one
 * #NkTrainer runs: the app (NapkinRun) and `napkin-cli train --run-dir` both write
 * their folders through it, with one policy.
 *
 * Threads: the trainer hands each step to the recorder (#NkTrainerObserver) on the
 * thread that runs the steps, between two timed steps, where the recorder only
 * copies it into a queue. A thread of the recorder's own takes the queue in batches
 * (whatever arrived within a few milliseconds, one write() for all of them), turns
 * the steps into their `--json-lines` objects and writes metrics.jsonl and the
 * TensorBoard event file. It fsync()s at the run's safe points: before each
 * checkpoint is written (the trainer waits, so a checkpoint of step s never exists
 * without the steps up to s), when the run parks on a pause, when it stops, and at
 * its end, when it records the final status the trainer reached.
 *
 * Opening: nk_run_recorder_new() locks the folder (one writer per folder; a folder
 * that another process writes is refused with nk_checkpoint_lock()'s sentence, one
 * that another run of this process writes with a sentence of its own). A new folder
 * is begun at once (meta.json "running", config.json, plan.json, an event file). A
 * folder that already holds a run is only resumed into, and is not touched until the
 * trainer has proven it can go on (its settings match the checkpoint's, the
 * checkpoint loaded): then metrics.jsonl keeps its steps up to the step the run goes
 * on from, each once and in order (replaced whole, never truncated in place; a
 * corrupt line among them stays and is counted, not taken for the end), and the run
 * appends after them. A resume that is refused leaves the folder as it was.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

#include "nk-run-dir.h"
#include "nk-trainer.h"

G_BEGIN_DECLS

#define NK_TYPE_RUN_RECORDER (nk_run_recorder_get_type ())

NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkRunRecorder, nk_run_recorder, NK, RUN_RECORDER, GObject)

/**
 * NkRunRecorderLinesFunc:
 * @lines: (array length=length): whole lines, each step's `--json-lines` object and
 *   a newline, just written to metrics.jsonl
 * @length: their bytes
 * @user_data: the user data
 *
 * Called on the recorder's thread after each batch reached the file, so whoever
 * sees a line printed finds it in metrics.jsonl too (`napkin-cli train
 * --json-lines --run-dir` prints these very bytes).
 */
typedef void (*NkRunRecorderLinesFunc) (const char *lines,
                                        gsize       length,
                                        gpointer    user_data);

/**
 * nk_run_recorder_new:
 * @trainer: a trainer that has not started
 * @dir: the run folder (created, with parents, if missing)
 * @error: return location for a #GError: %NK_CHECKPOINT_ERROR_LOCKED when another
 *   process writes the folder; %NK_RUN_DIR_ERROR_IN_USE when another run of this
 *   process does; %NK_RUN_DIR_ERROR_HAS_RUN when @trainer does not resume and the
 *   folder already holds a run; %NK_RUN_DIR_ERROR_CHECKPOINTS when the trainer's
 *   checkpoints would go into @dir itself
 *
 * Locks @dir and attaches to @trainer; from its start on, every step the trainer
 * runs goes to the folder, and its final state too.
 *
 * Returns: (transfer full) (nullable): the recorder
 */
NK_AVAILABLE_IN_ALL
NkRunRecorder  *nk_run_recorder_new            (NkTrainer              *trainer,
                                                const char             *dir,
                                                GError                **error);
NK_AVAILABLE_IN_ALL
gboolean        nk_run_recorder_set_name       (NkRunRecorder          *self,
                                                const char             *name,
                                                GError                **error);
NK_AVAILABLE_IN_ALL
const char     *nk_run_recorder_get_dir        (NkRunRecorder          *self);
NK_AVAILABLE_IN_ALL
NkTrainer      *nk_run_recorder_get_trainer    (NkRunRecorder          *self);

NK_AVAILABLE_IN_ALL
void            nk_run_recorder_set_lines_func (NkRunRecorder          *self,
                                                NkRunRecorderLinesFunc  func,
                                                gpointer                user_data);

/**
 * nk_run_recorder_flush_sync:
 * @self: a recorder
 * @error: return location for the first error writing the folder met
 *
 * Waits until every step handed over so far is written and fsync()ed, and, once the
 * trainer has ended, its final status too.
 *
 * Returns: %FALSE when writing the folder failed
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_run_recorder_flush_sync     (NkRunRecorder          *self,
                                                GError                **error);
/**
 * nk_run_recorder_close:
 * @self: a recorder
 * @error: return location for the first error writing the folder met
 *
 * Flushes, ends the recorder's thread, detaches from the trainer and releases the
 * folder. A run that has not ended by then leaves its folder reading as interrupted,
 * which is what it is. Closing twice does nothing more.
 *
 * Returns: %FALSE when writing the folder failed
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_run_recorder_close          (NkRunRecorder          *self,
                                                GError                **error);

NK_AVAILABLE_IN_ALL
gsize           nk_run_recorder_get_bad_lines  (NkRunRecorder          *self);
NK_AVAILABLE_IN_ALL
guint64         nk_run_recorder_get_last_step  (NkRunRecorder          *self);

G_END_DECLS
