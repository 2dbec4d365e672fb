/* nk-command-run.h: a command someone typed, run in a folder, its output kept as the run's log
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkCommandRun starts a training job Napkin does not run itself (torchrun,
 * deepspeed, llm.c's train_gpt2cu, `python train.py`) from the line a person typed
 * (split as a shell would split it, g_shell_parse_argv(), with no shell between:
 * no pipes, no `$VAR`s) in a working folder they chose, through #GSubprocess. It is
 * the one writer of the command's run folder:
 *
 *   output.log     the command's stdout and stderr merged, byte for byte, written by
 *                  the command itself (its descriptors are the file's, so it and its
 *                  log outlive a Napkin that is killed); what #NkLogFollower follows,
 *                  the engine detected from it
 *   command.json   {"version": 1, "command", "argv", "working_dir", "started" (Unix
 *                  seconds), "pid", "status" ("running", "exited", "killed", or
 *                  "ended" when an earlier Napkin started it: exit_status null),
 *                  "exit_status", "signal"}, rewritten at the start and at the end;
 *                  what a later Napkin reads back (nk_command_run_new_from_folder())
 *
 * The folder has no meta.json, so nk_run_dir_list() does not take it for one of
 * Napkin's own runs.
 *
 * The command runs in a process group of its own (it is made a session leader), so
 * that Stop reaches every process it started, not only the first: nk_command_run_stop()
 * sends SIGINT to the group (what Ctrl-C in a terminal does; torchrun and the
 * engines end cleanly on it), SIGTERM after #NkCommandRun:grace-period seconds if
 * any process of the group is left, and SIGKILL after as long again. Whatever of a
 * stopped command's group is still there when it has ended is killed.
 *
 * The run has ended (#NkCommandRun::ended, #NkCommandRun:running turning %FALSE)
 * when the command has exited. It runs on
 * the thread-default main context of the thread that started it.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_COMMAND_RUN_ERROR (nk_command_run_error_quark ())

/**
 * NkCommandRunError:
 * @NK_COMMAND_RUN_ERROR_COMMAND: the command line is empty or cannot be split
 *   (an unclosed quote)
 * @NK_COMMAND_RUN_ERROR_FOLDER: the working folder or the run folder cannot be used
 * @NK_COMMAND_RUN_ERROR_START: the command cannot be started (not found, not
 *   executable)
 *
 * The ways starting a command fails, in the %NK_COMMAND_RUN_ERROR domain.
 */
typedef enum {
  NK_COMMAND_RUN_ERROR_COMMAND,
  NK_COMMAND_RUN_ERROR_FOLDER,
  NK_COMMAND_RUN_ERROR_START,
} NkCommandRunError;

/**
 * NK_COMMAND_RUN_LOG_NAME:
 *
 * The name of the command's log in its run folder.
 */
#define NK_COMMAND_RUN_LOG_NAME "output.log"

#define NK_TYPE_COMMAND_RUN (nk_command_run_get_type ())

NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkCommandRun, nk_command_run, NK, COMMAND_RUN, GObject)

NK_AVAILABLE_IN_ALL
GQuark        nk_command_run_error_quark     (void);

NK_AVAILABLE_IN_ALL
NkCommandRun *nk_command_run_new             (const char    *command_line,
                                              const char    *working_dir,
                                              GError       **error);
NK_AVAILABLE_IN_ALL
gboolean      nk_command_run_start           (NkCommandRun  *self,
                                              const char    *folder,
                                              GError       **error);
NK_AVAILABLE_IN_ALL
void          nk_command_run_stop            (NkCommandRun  *self);

NK_AVAILABLE_IN_ALL
NkCommandRun *nk_command_run_new_from_folder (const char    *folder,
                                              GError       **error);
NK_AVAILABLE_IN_ALL
GPtrArray    *nk_command_run_list            (const char    *root);
NK_AVAILABLE_IN_ALL
const char   *nk_command_run_get_command_line (NkCommandRun *self);
NK_AVAILABLE_IN_ALL
const char * const *nk_command_run_get_argv  (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
const char   *nk_command_run_get_working_dir (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
const char   *nk_command_run_get_folder      (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
char         *nk_command_run_dup_log_path    (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
gint64        nk_command_run_get_pid         (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
gboolean      nk_command_run_get_running     (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
gboolean      nk_command_run_get_stopping    (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
double        nk_command_run_get_grace_period (NkCommandRun *self);
NK_AVAILABLE_IN_ALL
void          nk_command_run_set_grace_period (NkCommandRun *self,
                                               double        seconds);
NK_AVAILABLE_IN_ALL
int           nk_command_run_get_exit_status (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
int           nk_command_run_get_term_signal (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
char         *nk_command_run_dup_status      (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
gint64        nk_command_run_get_started     (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
gboolean      nk_command_run_get_exit_known  (NkCommandRun  *self);
NK_AVAILABLE_IN_ALL
const char   *nk_command_run_signal_name     (int            signum);

G_END_DECLS
