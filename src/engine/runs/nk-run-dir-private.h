/* nk-run-dir-private.h: the run folder's writer in the steps the recorder takes apart
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk_run_writer_open() locks a folder and begins a run in it at once. The recorder
 * (nk-run-recorder.c) needs the two apart: it locks when it is attached, and begins
 * (drops the steps after the resume point, rewrites meta.json, config.json and
 * plan.json, adds an event file) only once the trainer has proven it can go on, so a
 * refused resume leaves the folder as it found it.
 */
#pragma once

#include "nk-run-dir.h"

G_BEGIN_DECLS

/**
 * NkRunLineKind:
 * @NK_RUN_LINE_BLANK: only white space
 * @NK_RUN_LINE_STEP: a step
 * @NK_RUN_LINE_DONE: the closing `{"done": ...}` line
 * @NK_RUN_LINE_BAD: anything else (garbage, a torn write)
 */
typedef enum {
  NK_RUN_LINE_BLANK,
  NK_RUN_LINE_STEP,
  NK_RUN_LINE_DONE,
  NK_RUN_LINE_BAD,
} NkRunLineKind;

/* nk-run-metrics.c */
NkRunLineKind _nk_run_metrics_scan_line (const char     *line,
                                         gsize           length,
                                         NkTrainMetrics *out);

/* Appends one step's `--json-lines` object and a newline to @out: the bytes
 * metrics.jsonl gets and `napkin-cli train --json-lines` prints. */
void         _nk_run_metrics_format    (const NkTrainMetrics *metrics,
                                        const char           *device,
                                        GString              *out);

/* Whether @dir already holds a run (a meta.json or a metrics.jsonl). */
gboolean     _nk_run_dir_has_run       (const char     *dir);

/**
 * _nk_run_dir_keep_steps:
 * @dir: a run folder, locked by the caller
 * @keep_steps: the step the run goes on after
 * @out_bad_lines: (out) (optional): lines kept that are no step (a corrupt line
 *   among the kept steps stays where it is, and readers skip and count it)
 * @error: return location for a #GError
 *
 * Leaves metrics.jsonl with its steps up to @keep_steps, each once and in order,
 * dropping the later ones, the closing line and a torn last line. The file is
 * replaced whole (write a temporary, fsync, rename), never truncated in place, and
 * left alone when nothing is to be dropped.
 *
 * Returns: %FALSE when the file could not be read or replaced (it is then unchanged)
 */
gboolean     _nk_run_dir_keep_steps    (const char     *dir,
                                        guint64         keep_steps,
                                        gsize          *out_bad_lines,
                                        GError        **error);

/* Locks @dir (nk_checkpoint_lock()) and writes nothing. */
NkRunWriter *_nk_run_writer_lock       (const char              *dir,
                                        GError                 **error);
/* Begins the run in a locked folder: as nk_run_writer_open() after its lock. */
gboolean     _nk_run_writer_begin      (NkRunWriter             *writer,
                                        const NkTrainConfig     *config,
                                        const NkTrainPrediction *prediction,
                                        guint64                  keep_steps,
                                        gsize                   *out_bad_lines,
                                        GError                 **error);
gboolean     _nk_run_writer_has_begun  (NkRunWriter             *writer);
/* Names the run (meta.json's "name"), now if it has begun, else when it begins. */
gboolean     _nk_run_writer_set_name   (NkRunWriter             *writer,
                                        const char              *name,
                                        GError                 **error);
/* Appends @lines (whole lines, formatted from @metrics) with one write(), then the
 * steps' scalars to the event file, flushed. */
gboolean     _nk_run_writer_write_lines (NkRunWriter            *writer,
                                         const char             *lines,
                                         gsize                   length,
                                         const NkTrainMetrics   *metrics,
                                         gsize                   n_steps,
                                         GError                **error);
/* fsync()s metrics.jsonl: what was written survives a power cut too. */
gboolean     _nk_run_writer_sync       (NkRunWriter             *writer,
                                        GError                 **error);

G_END_DECLS
