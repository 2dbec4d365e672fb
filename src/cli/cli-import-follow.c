/* cli-import-follow.c: `napkin-cli import --follow`, a log still being written
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CLI.md, "napkin-cli import FILE|DIR --follow [--idle-exit SECONDS]": each step is
 * printed (and flushed) as soon as the #NkLogFollower emits it; the done object
 * (with, added, "ended": run-ended, idle, stopped or error) is printed when the
 * engine's end line comes, after --idle-exit seconds without growth, or on
 * SIGINT/SIGTERM.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib-unix.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "cli-common.h"
#include "cli-import-follow.h"
#include "nk-log-follow.h"

typedef struct {
  GMainLoop *loop;
  NkLogFollower *follower;
  NkImport *import;           /* the steps, kept only for --plan's comparison */
  NkImportPrediction predicted;
  gboolean have_plan;
  gboolean mfu_set;
} Follow;

/**
 * nk_cli_import_parse_idle_exit:
 * @follow: whether --follow was given
 * @text: --idle-exit's value
 * @out_seconds: (out): the seconds
 * @error: a sentence naming --idle-exit
 *
 * Returns: %TRUE for a number of seconds, positive and finite, given with --follow
 */
gboolean
nk_cli_import_parse_idle_exit (gboolean     follow,
                               const char  *text,
                               double      *out_seconds,
                               GError     **error)
{
  if (!follow)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--idle-exit needs --follow."));
      return FALSE;
    }
  if (!nk_cli_parse_number ("--idle-exit", text, out_seconds, error))
    return FALSE;
  if (!(*out_seconds > 0) || *out_seconds > 1e9)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--idle-exit must be a number of seconds above 0 (at most 1e9), not “%s”."),
                   text);
      return FALSE;
    }
  return TRUE;
}

static void
step_cb (NkLogFollower      *follower,
         const NkImportStep *step,
         Follow             *f)
{
  if (f->have_plan && !f->mfu_set)
    {
      /* each step's predicted MFU on the log's own FLOP count, as import's */
      f->predicted.mfu = nk_import_prediction_get_mfu (&f->predicted,
                                                       nk_log_follower_get_format (follower), NULL);
      f->mfu_set = TRUE;
    }
  nk_cli_import_print_step (step, f->have_plan ? &f->predicted : NULL);
  fflush (stdout);
  if (f->have_plan)
    g_array_append_val (f->import->steps, *step);
}

static void
notice_cb (NkLogFollower *follower,
           const char    *sentence,
           Follow        *f)
{
  g_printerr (_("napkin-cli: %s\n"), sentence);
}

static void
ended_cb (NkLogFollower  *follower,
          NkLogFollowEnd  reason,
          Follow         *f)
{
  g_main_loop_quit (f->loop);
}

static gboolean
signal_cb (gpointer data)
{
  Follow *f = data;

  nk_log_follower_stop (f->follower);
  return G_SOURCE_CONTINUE;
}

static void
print_end (Follow *f)
{
  NkLogFollower *w = f->follower;

  /* "auto" when no line was any engine's */
  f->import->format = nk_log_follower_get_format (w);
  f->import->skipped_lines = nk_log_follower_get_skipped_lines (w);
  f->import->rejected_lines = nk_log_follower_get_rejected_lines (w);
  f->import->replaced_steps = nk_log_follower_get_replaced_steps (w);
  if (!f->have_plan)
    g_array_set_size (f->import->steps, nk_log_follower_get_n_steps (w));
  nk_cli_import_print_done (f->import, f->have_plan ? &f->predicted : NULL,
                            nk_log_follow_end_to_string (nk_log_follower_get_end_reason (w)));
  fflush (stdout);
  if (f->import->rejected_lines > 0)
    {
      g_autofree char *what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "Skipped %u line whose values no run can have (%s).",
                                                            "Skipped %u lines whose values no run can have (the first: %s).",
                                                            f->import->rejected_lines),
                                               f->import->rejected_lines,
                                               nk_log_follower_get_first_rejected (w));
      g_printerr (_("napkin-cli: warning: %s\n"), what);
    }
  if (f->import->replaced_steps > 0)
    {
      g_autofree char *what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u step was logged again at or below a step already printed (a restarted run, or the file read again); it was not printed again.",
                                                            "%u steps were logged again at or below a step already printed (a restarted run, or the file read again); they were not printed again.",
                                                            f->import->replaced_steps),
                                               f->import->replaced_steps);
      g_printerr (_("napkin-cli: warning: %s\n"), what);
    }
}

/**
 * nk_cli_import_follow:
 * @path: the log file or folder
 * @format: its engine, or auto
 * @idle_exit: seconds without growth that end it, 0 for never
 * @predicted: (nullable): the plan's prediction (--plan)
 * @json: errors as JSON
 *
 * Returns: the exit code: 0 when it ended and printed its done object, 1 when the
 *   path cannot be followed (or stopped being readable)
 */
int
nk_cli_import_follow (const char               *path,
                      NkLogFormat               format,
                      double                    idle_exit,
                      const NkImportPrediction *predicted,
                      gboolean                  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) import = g_new0 (NkImport, 1);
  g_autoptr(NkLogFollower) follower = nk_log_follower_new (path, format);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Follow f = { loop, follower, import };
  guint sigint, sigterm;

  import->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  if (predicted != NULL)
    {
      f.predicted = *predicted;
      f.have_plan = TRUE;
    }
  nk_log_follower_set_idle_timeout (follower, idle_exit);
  g_signal_connect (follower, "step", G_CALLBACK (step_cb), &f);
  g_signal_connect (follower, "notice", G_CALLBACK (notice_cb), &f);
  g_signal_connect (follower, "ended", G_CALLBACK (ended_cb), &f);
  sigint = g_unix_signal_add (SIGINT, signal_cb, &f);
  sigterm = g_unix_signal_add (SIGTERM, signal_cb, &f);
  if (nk_log_follower_start (follower, &error))
    {
      /* it may have read to the end line already */
      if (nk_log_follower_get_running (follower))
        g_main_loop_run (loop);
    }
  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_signal_handlers_disconnect_by_data (follower, &f);
  if (error != NULL)
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  print_end (&f);
  return nk_log_follower_get_end_reason (follower) == NK_LOG_FOLLOW_END_ERROR
         ? NK_EXIT_UNSATISFIABLE : NK_EXIT_OK;
}
