/* nk-log-follow.h: a log or TensorBoard folder still being written, read as it grows
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkLogFollower reads a log file (or a TensorBoard folder, or llm.c's output
 * folder with its main.log) while its engine still writes it, with the line parsers
 * of nk-log-import.h (one home for each format). It runs on the thread-default main
 * context of the thread that calls nk_log_follower_start(): a #GFileMonitor wakes it
 * where the file system reports changes, and it polls every
 * #NkLogFollower:poll-interval milliseconds anyway (network file systems send no
 * events). Each wake-up reads at most %NK_LOG_FOLLOW_MAX_READ new bytes, so a huge
 * backlog is read over several turns of the main loop and never blocks it.
 *
 * What it reads: only complete lines (a half-written last line waits for its
 * newline) and complete TensorBoard records (a record whose bytes are not all there
 * yet waits). A line longer than %NK_LOG_IMPORT_MAX_LINE is skipped unread, as
 * import skips it. The engine is detected (with %NK_LOG_FORMAT_AUTO) from the first
 * complete lines that are any engine's, as nk_log_import() detects it.
 *
 * When a step is emitted: the lines of one step (DeepSpeed's step= line and its
 * throughput line, Megatron-LM's iteration line and its memory report, a
 * TensorBoard step's several tags) are gathered; the step is emitted
 * (#NkLogFollower::step) when a line of another step arrives, when a poll reads
 * nothing new and no line (or record) is half-written (so within about one poll
 * interval of its last line completing, when the writer pauses), or when following
 * ends.
 *
 * Restarted steps: a step number is emitted at most once, and steps are emitted in
 * increasing order. A line of a step at or below the last one emitted — a restarted
 * run logging steps again, or a file re-read from its start after a truncation or a
 * rotation — is not emitted again: it is counted in #NkLogFollower:replaced-steps,
 * once per step, as nk_log_import() counts a step logged again after a later one.
 * Import, which sees the whole file, keeps the later line; a follower has already
 * emitted the earlier one and keeps it. Steps past the last one emitted are emitted
 * as they come.
 *
 * Truncation and rotation: a file that became shorter than what was read
 * (truncated, or rewritten from the start), or whose path now names another file
 * (renamed away and a new one created, logrotate's create mode), is said in a
 * #NkLogFollower::notice and read again from the start of what the path now
 * names. A path that no longer names a file is waited for.
 *
 * The end: the engines that write an end-of-run line end it (reason
 * %NK_LOG_FOLLOW_END_RUN_ENDED): torchtitan ("Training completed", train.py),
 * Megatron-LM ("[after training is done]", training.py's print_datetime) and llm.c's
 * CUDA trainer ("total average iteration time:", train_gpt2.cu). DeepSpeed, nanoGPT,
 * llm.c's CPU trainer and TensorBoard write none: they end on
 * #NkLogFollower:idle-timeout seconds without growth, on nk_log_follower_stop(), or
 * when the path cannot be read (%NK_LOG_FOLLOW_END_ERROR, with a notice saying why).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

#include "nk-log-import.h"

G_BEGIN_DECLS

/**
 * NK_LOG_FOLLOW_MAX_READ:
 *
 * The most bytes a follower reads in one turn of the main loop, 4 MiB: a backlog
 * is read over several turns.
 */
#define NK_LOG_FOLLOW_MAX_READ (4 << 20)

/**
 * NkLogFollowEnd:
 * @NK_LOG_FOLLOW_END_NONE: still following, or not started
 * @NK_LOG_FOLLOW_END_RUN_ENDED: the engine wrote its end-of-run line
 * @NK_LOG_FOLLOW_END_IDLE: #NkLogFollower:idle-timeout seconds passed without growth
 * @NK_LOG_FOLLOW_END_STOPPED: nk_log_follower_stop() was called
 * @NK_LOG_FOLLOW_END_ERROR: the path cannot be read (a notice said why)
 *
 * Why following ended (the `ended` member of `napkin-cli import --follow`'s done
 * object).
 */
typedef enum {
  NK_LOG_FOLLOW_END_NONE,
  NK_LOG_FOLLOW_END_RUN_ENDED,
  NK_LOG_FOLLOW_END_IDLE,
  NK_LOG_FOLLOW_END_STOPPED,
  NK_LOG_FOLLOW_END_ERROR,
} NkLogFollowEnd;

#define NK_TYPE_LOG_FOLLOWER (nk_log_follower_get_type ())

NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkLogFollower, nk_log_follower, NK, LOG_FOLLOWER, GObject)

NK_AVAILABLE_IN_ALL
NkLogFollower  *nk_log_follower_new                (const char     *path,
                                                    NkLogFormat     format);
NK_AVAILABLE_IN_ALL
gboolean        nk_log_follower_start              (NkLogFollower  *self,
                                                    GError        **error);
NK_AVAILABLE_IN_ALL
void            nk_log_follower_stop               (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
const char     *nk_log_follower_get_path           (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
NkLogFormat     nk_log_follower_get_format         (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
double          nk_log_follower_get_idle_timeout   (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
void            nk_log_follower_set_idle_timeout   (NkLogFollower  *self,
                                                    double          seconds);
NK_AVAILABLE_IN_ALL
guint           nk_log_follower_get_poll_interval  (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
void            nk_log_follower_set_poll_interval  (NkLogFollower  *self,
                                                    guint           milliseconds);
NK_AVAILABLE_IN_ALL
gboolean        nk_log_follower_get_running        (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
NkLogFollowEnd  nk_log_follower_get_end_reason     (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
guint           nk_log_follower_get_n_steps        (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
guint           nk_log_follower_get_skipped_lines  (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
guint           nk_log_follower_get_rejected_lines (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
guint           nk_log_follower_get_replaced_steps (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
const char     *nk_log_follower_get_first_rejected (NkLogFollower  *self);
NK_AVAILABLE_IN_ALL
const char     *nk_log_follow_end_to_string        (NkLogFollowEnd  reason);

G_END_DECLS
