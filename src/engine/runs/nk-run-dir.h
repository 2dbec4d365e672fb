/* nk-run-dir.h: a training run's folder on disk: create, append to, list, read back, describe
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run folder outlives the process that wrote it. One writer writes it: the
 * #NkRunRecorder attached to the run's trainer (nk-run-recorder.h), which the app and
 * `napkin-cli train --run-dir` both use; #NkRunWriter below is its low-level file
 * writer (and what tests use to lay out a folder by hand). Its files:
 *
 *   meta.json       {"version": 1, "name", "created" (Unix seconds), "status"
 *                   ("running", "finished", "stopped", "failed"), "pid", "error"}
 *   config.json     the #NkTrainConfig (nk_train_config_to_json() plus device and
 *                   checkpoint settings): enough to resume the run
 *   plan.json       the #NkTrainPrediction the run started with
 *   metrics.jsonl   exactly `napkin-cli train --json-lines`'s objects, appended in
 *                   batches (one write() per batch, so a crash tears at most the
 *                   last line), fsync()ed before each checkpoint, on pause, stop and
 *                   at the end; then the closing {"done": ...} line
 *   checkpoints/    the run's safetensors checkpoints (nk-checkpoint.h); a checkpoint
 *                   of step s is written only once metrics.jsonl holds steps 1..s
 *   events.out.tfevents.<time>.<host>.<pid>
 *                   the same steps as TensorBoard scalars (nk-tfevents.h): loss,
 *                   seconds, flops_per_s, mfu, memory/<bucket> in bytes and, for fp16,
 *                   loss_scale; a resumed run adds a file of its own
 *   .napkin-lock    held with flock() while the run writes (nk_checkpoint_lock())
 *
 * A folder whose meta.json says "running" while no process holds its lock was left
 * by a run that crashed or was killed: it is described as interrupted, with every
 * step that reached metrics.jsonl. Reading metrics.jsonl back skips, and counts, a
 * torn last line or any line that is not a step, wherever it is: the steps after it
 * are read all the same.
 *
 * Resuming into a run's own folder (`--resume F --run-dir F`, the app's Resume)
 * changes nothing there until the trainer has proven it can go on (settings match,
 * checkpoint loaded, folder locked); a refused resume leaves the folder as it was.
 * Then metrics.jsonl keeps each step up to the checkpoint's once, in order (a
 * corrupt line among them stays where it was), drops the later ones (they run again)
 * and the closing line, by writing a new file and renaming it over the old one,
 * never by truncating in place; the run appends after them. A run killed at any
 * point and resumed so ends with each step 1..N once, in order.
 *
 * The default home of runs is `$XDG_DATA_HOME/napkin/runs/`; each folder's name is
 * its id, `YYYYMMDD-HHMMSS-N` in local time, so names sort by time.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

#include "nk-train-config.h"
#include "nk-train-history.h"
#include "nk-train-metrics.h"

G_BEGIN_DECLS

#define NK_RUN_DIR_ERROR (nk_run_dir_error_quark ())

/**
 * NkRunDirError:
 * @NK_RUN_DIR_ERROR_NOT_A_RUN: the folder has no readable meta.json
 * @NK_RUN_DIR_ERROR_CORRUPT: a file of the run is not what it should be
 * @NK_RUN_DIR_ERROR_HAS_RUN: a run that does not resume was given a folder that
 *   already holds a run
 * @NK_RUN_DIR_ERROR_IN_USE: another run of this process writes the folder
 * @NK_RUN_DIR_ERROR_CHECKPOINTS: the run's checkpoints were to go into the run
 *   folder itself rather than its checkpoints/
 *
 * The ways writing or reading a run folder fails, in the %NK_RUN_DIR_ERROR domain.
 */
typedef enum {
  NK_RUN_DIR_ERROR_NOT_A_RUN,
  NK_RUN_DIR_ERROR_CORRUPT,
  NK_RUN_DIR_ERROR_HAS_RUN,
  NK_RUN_DIR_ERROR_IN_USE,
  NK_RUN_DIR_ERROR_CHECKPOINTS,
} NkRunDirError;

NK_AVAILABLE_IN_ALL
GQuark nk_run_dir_error_quark (void);

/**
 * NkRunStatus:
 * @NK_RUN_STATUS_RUNNING: a live process writes it (it holds the lock)
 * @NK_RUN_STATUS_FINISHED: all its steps ran
 * @NK_RUN_STATUS_STOPPED: stopped on request
 * @NK_RUN_STATUS_FAILED: ended by an error (#NkRunInfo.error)
 * @NK_RUN_STATUS_INTERRUPTED: says "running" but no process holds its lock
 *
 * How a run in a folder ended, or that it still runs.
 */
typedef enum {
  NK_RUN_STATUS_RUNNING,
  NK_RUN_STATUS_FINISHED,
  NK_RUN_STATUS_STOPPED,
  NK_RUN_STATUS_FAILED,
  NK_RUN_STATUS_INTERRUPTED,
} NkRunStatus;

NK_AVAILABLE_IN_ALL
const char *nk_run_status_to_string (NkRunStatus status);

NK_AVAILABLE_IN_ALL
char       *nk_run_dir_default_root (void);

/**
 * nk_run_dir_new_path:
 * @root: the folder of runs (created, with parents, if missing)
 * @error: return location for a #GError
 *
 * Creates a new, empty run folder under @root named by the local time and a
 * counter that makes it unique (`20261124-141502-1`).
 *
 * Returns: (transfer full) (nullable): its path
 */
NK_AVAILABLE_IN_ALL
char       *nk_run_dir_new_path     (const char   *root,
                                     GError      **error);

/* ---- writing ------------------------------------------------------------------ */

/**
 * NkRunWriter:
 *
 * A run folder being written, holding its lock. Not a boxed type: it owns the lock
 * and open files, which can be neither copied nor shared, so bindings do not see
 * it; they record runs with #NkRunRecorder.
 */
typedef struct _NkRunWriter NkRunWriter;

/**
 * nk_run_writer_open: (skip)
 * @dir: the run folder (created, with parents, if missing)
 * @config: the run's settings
 * @prediction: (nullable): what the run is predicted to cost
 * @keep_steps: 0 for a new run; a resumed run's start step: metrics.jsonl keeps its
 *   steps up to that step, once each and in order, and the run appends after them
 * @error: return location for a #GError (%NK_CHECKPOINT_ERROR_LOCKED when a live
 *   process writes the folder)
 *
 * Locks the folder and at once writes meta.json ("running", this process's id),
 * config.json and plan.json: for laying out a folder. A run's folder is written by
 * its #NkRunRecorder, which begins only once the run has proven it can go on. Not
 * for bindings (see #NkRunWriter).
 *
 * Returns: (transfer full) (nullable): the writer
 */
NK_AVAILABLE_IN_ALL
NkRunWriter *nk_run_writer_open     (const char              *dir,
                                     const NkTrainConfig     *config,
                                     const NkTrainPrediction *prediction,
                                     guint64                  keep_steps,
                                     GError                 **error);
NK_AVAILABLE_IN_ALL
const char  *nk_run_writer_get_dir  (NkRunWriter             *writer);

/**
 * nk_run_writer_append: (skip)
 * @writer: a writer
 * @metrics: (array length=n_steps): steps, in order
 * @n_steps: how many
 * @device: the run's device name
 * @error: return location for a #GError
 *
 * Appends the steps' `--json-lines` objects to metrics.jsonl with one write(), so
 * a crash loses at most the steps of the write it interrupted.
 *
 * Returns: %FALSE when the write failed
 */
NK_AVAILABLE_IN_ALL
gboolean     nk_run_writer_append   (NkRunWriter             *writer,
                                     const NkTrainMetrics    *metrics,
                                     gsize                    n_steps,
                                     const char              *device,
                                     GError                 **error);

/**
 * nk_run_writer_finish: (skip)
 * @writer: a writer
 * @status: FINISHED, STOPPED or FAILED
 * @steps: the last step done
 * @final_loss: its loss
 * @message: (nullable): a FAILED run's error sentence
 * @error: return location for a #GError
 *
 * Appends the closing `{"done": true, ...}` line (not for FAILED), records @status
 * and releases the lock.
 *
 * Returns: %FALSE when writing the folder failed
 */
NK_AVAILABLE_IN_ALL
gboolean     nk_run_writer_finish   (NkRunWriter             *writer,
                                     NkRunStatus              status,
                                     guint64                  steps,
                                     double                   final_loss,
                                     const char              *message,
                                     GError                 **error);
NK_AVAILABLE_IN_ALL
void         nk_run_writer_free     (NkRunWriter             *writer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkRunWriter, nk_run_writer_free)

/* ---- reading ------------------------------------------------------------------ */

/**
 * NkRunInfo:
 * @path: the folder
 * @id: its name
 * @name: the name a person gave it (meta.json), or the id
 * @created: Unix seconds
 * @status: as read, with RUNNING turned INTERRUPTED when nobody holds the lock
 * @pid: the writing process's id (0: unknown)
 * @error: (nullable): a failed run's error sentence
 * @config: (nullable): the run's settings, %NULL when config.json is missing or bad
 * @has_plan: whether @prediction was read from plan.json
 * @prediction: the prediction
 * @has_checkpoint: checkpoints/ holds at least one `.safetensors` file
 *
 * What a run folder says about its run, without its metrics. A boxed type; a copy
 * duplicates the strings and the config.
 */
typedef struct {
  char             *path;
  char             *id;
  char             *name;
  gint64            created;
  NkRunStatus       status;
  gint64            pid;
  char             *error;
  NkTrainConfig    *config;
  gboolean          has_plan;
  NkTrainPrediction prediction;
  gboolean          has_checkpoint;
} NkRunInfo;

#define NK_TYPE_RUN_INFO (nk_run_info_get_type ())

NK_AVAILABLE_IN_ALL
GType       nk_run_info_get_type    (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkRunInfo  *nk_run_info_read        (const char   *dir,
                                     GError      **error);
NK_AVAILABLE_IN_ALL
NkRunInfo  *nk_run_info_copy        (const NkRunInfo *info);
NK_AVAILABLE_IN_ALL
void        nk_run_info_free        (NkRunInfo    *info);

/**
 * nk_run_dir_list:
 * @root: the folder of runs
 * @error: return location for a #GError (none when @root does not exist: no runs)
 *
 * Describes every run folder under @root, newest first; folders that are no run
 * (no meta.json) are left out.
 *
 * Returns: (transfer container) (element-type NkRunInfo): the runs
 */
NK_AVAILABLE_IN_ALL
GPtrArray  *nk_run_dir_list         (const char   *root,
                                     GError      **error);

NK_AVAILABLE_IN_ALL
gboolean    nk_run_dir_is_locked    (const char   *dir);

NK_AVAILABLE_IN_ALL
gboolean    nk_run_dir_set_name     (const char   *dir,
                                     const char   *name,
                                     GError      **error);

NK_AVAILABLE_IN_ALL
char       *nk_run_dir_get_checkpoint_dir (const char *dir);
NK_AVAILABLE_IN_ALL
char       *nk_run_dir_resolve_checkpoints (const char *dir);
NK_AVAILABLE_IN_ALL
char       *nk_run_dir_resolve_resume     (const char  *dir,
                                           GError     **error);

/**
 * NkRunMetricsInfo:
 * @bad_lines: lines that were not a step or the closing line (a torn last line
 *   after a crash is one)
 * @done: the closing line was read
 * @device: (nullable): the device the steps name
 *
 * What metrics.jsonl said besides its steps.
 */
typedef struct {
  gsize    bad_lines;
  gboolean done;
  char    *device;
} NkRunMetricsInfo;

/**
 * nk_run_dir_read_metrics:
 * @dir: a run folder
 * @history: where the steps go (appended)
 * @out_info: (out caller-allocates) (optional): what else the file said; free
 *   @device with g_free()
 * @error: return location for a #GError (a missing metrics.jsonl is no error)
 *
 * Reads metrics.jsonl into @history, every value as written (the JSON carries
 * every #NkTrainMetrics field but the peaks, the data bucket and skipped_steps,
 * which read as 0). A million steps read in well under a second
 * (benchmarks/bench-run-reopen).
 *
 * Returns: %FALSE when the file could not be read
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_run_dir_read_metrics (const char        *dir,
                                     NkTrainHistory    *history,
                                     NkRunMetricsInfo  *out_info,
                                     GError           **error);
/**
 * nk_run_dir_read_last_step:
 * @dir: a run folder
 * @out: (out caller-allocates): the last complete step of its metrics.jsonl
 *
 * Reads only the end of the file: what a list of runs shows (the last step and its
 * loss) without reading a million steps.
 *
 * Returns: %FALSE when the folder has no step
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_run_dir_read_last_step (const char     *dir,
                                       NkTrainMetrics *out);
NK_AVAILABLE_IN_ALL
void        nk_run_metrics_parse    (const char        *data,
                                     gsize              length,
                                     NkTrainHistory    *history,
                                     NkRunMetricsInfo  *out_info);

NK_AVAILABLE_IN_ALL
NkTrainConfig *nk_run_config_from_json (const char  *json,
                                        GError     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkRunInfo, nk_run_info_free)

G_END_DECLS
