/* test-command-run.c: commands run by NkCommandRun, with real processes, their log and their end
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the bytes each shell script prints, written out here by hand (the log
 * must hold exactly them, stderr merged); command.json read back with json-glib;
 * the exit status and signals as POSIX defines them for `exit 3`, a shell that
 * ignores SIGINT (`trap '' INT`) and a plain `sleep` (ended by SIGINT, its default);
 * and, for the children, /proc: the pid a script's background child printed must
 * be gone once the command has been stopped.
 */
#include "config.h"

#include <errno.h>
#include <sys/prctl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>

#include "nk-command-run.h"
#include "nk-test-util.h"

/* Turns the main loop until @run has ended (the harness's timeout guards a hang). */
static void
wait_ended (NkCommandRun *run)
{
  while (nk_command_run_get_running (run))
    g_main_context_iteration (NULL, TRUE);
}

static char *
read_log (NkCommandRun *run)
{
  g_autofree char *path = nk_command_run_dup_log_path (run);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* Turns the main loop until the log holds @needle. */
static char *
wait_for_output (NkCommandRun *run,
                 const char   *needle)
{
  for (;;)
    {
      g_autofree char *text = read_log (run);
      const char *at = strstr (text, needle);

      if (at != NULL)
        return g_strdup (at + strlen (needle));
      g_assert_true (nk_command_run_get_running (run));
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
}

static NkCommandRun *
start (const char *command_line,
       const char *tmp,
       double      grace)
{
  g_autofree char *folder = g_build_filename (tmp, "run", NULL);
  g_autoptr(GError) error = NULL;
  NkCommandRun *run = nk_command_run_new (command_line, tmp, &error);

  g_assert_no_error (error);
  nk_command_run_set_grace_period (run, grace);
  g_assert_true (nk_command_run_start (run, folder, &error));
  g_assert_no_error (error);
  g_assert_true (nk_command_run_get_running (run));
  g_assert_cmpint (nk_command_run_get_pid (run), >, 0);
  return run;
}

static void
on_ended (NkCommandRun *run,
          guint        *count)
{
  (*count)++;
}

/* A nanoGPT-style log printed over a second's time, half of it on stderr, then
 * `exit 3`: the log holds every byte, the run says how it ended. */
static void
test_log_and_exit_status (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  const char *script =
    "sh -c 'echo \"step 0: train loss 10.9876, val loss 10.9712\"; sleep 0.2; "
    "echo \"iter 0: loss 10.9876, time 1234.56ms, mfu -100.00%\"; sleep 0.2; "
    "echo \"iter 1: loss 9.8765, time 98.76ms, mfu 12.34%\" >&2; sleep 0.2; "
    "printf \"iter 2: loss 8.7654, time 97.65ms, mfu 12.50%%\\n\"; pwd; exit 3'";
  g_autofree char *expected = NULL;
  g_autoptr(NkCommandRun) run = start (script, tmp, 5.0);
  g_autofree char *text = NULL;
  g_autofree char *status = NULL;
  g_autofree char *json_path = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *real_tmp = realpath (tmp, NULL);
  JsonObject *object;
  JsonArray *argv;
  guint ended = 0;

  g_signal_connect (run, "ended", G_CALLBACK (on_ended), &ended);
  status = nk_command_run_dup_status (run);
  g_assert_cmpstr (status, ==, "running");
  g_clear_pointer (&status, g_free);
  wait_ended (run);
  g_assert_cmpuint (ended, ==, 1);

  /* What the script prints, by hand; pwd shows it ran in its working folder. */
  expected = g_strdup_printf ("step 0: train loss 10.9876, val loss 10.9712\n"
                              "iter 0: loss 10.9876, time 1234.56ms, mfu -100.00%%\n"
                              "iter 1: loss 9.8765, time 98.76ms, mfu 12.34%%\n"
                              "iter 2: loss 8.7654, time 97.65ms, mfu 12.50%%\n"
                              "%s\n", real_tmp);
  text = read_log (run);
  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpint (nk_command_run_get_exit_status (run), ==, 3);
  g_assert_cmpint (nk_command_run_get_term_signal (run), ==, 0);
  status = nk_command_run_dup_status (run);
  g_assert_cmpstr (status, ==, "exited with status 3");

  json_path = g_build_filename (nk_command_run_get_folder (run), "command.json", NULL);
  g_assert_true (json_parser_load_from_file (parser, json_path, &error));
  g_assert_no_error (error);
  object = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (object, "version"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (object, "command"), ==, script);
  g_assert_cmpstr (json_object_get_string_member (object, "status"), ==, "exited");
  g_assert_cmpint (json_object_get_int_member (object, "exit_status"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (object, "pid"), ==, nk_command_run_get_pid (run));
  g_assert_true (json_object_get_null_member (object, "signal"));
  argv = json_object_get_array_member (object, "argv");
  g_assert_cmpuint (json_array_get_length (argv), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (argv, 0), ==, "sh");
  g_assert_cmpstr (json_array_get_string_element (argv, 1), ==, "-c");
  g_assert_true (g_str_has_prefix (json_array_get_string_element (argv, 2), "echo \"step 0:"));

  nk_test_remove_tree (tmp);
}

/* The command writes its log itself: with Napkin's main loop never turning (as
 * when Napkin hangs or is killed) its lines still reach the file, and a command
 * that outlives Napkin keeps writing there (it read a pipe once, and a dead Napkin
 * ended the command at its next line). */
static void
test_log_without_napkin (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  g_autoptr(NkCommandRun) run = start ("sh -c 'echo one; echo two >&2; echo three'", tmp, 5.0);
  g_autofree char *text = NULL;

  for (int i = 0; i < 500; i++)
    {
      g_free (text);
      text = read_log (run);
      if (strlen (text) >= strlen ("one\ntwo\nthree\n"))
        break;
      g_usleep (10000);   /* not g_main_context_iteration: nothing of Napkin runs */
    }
  g_assert_cmpstr (text, ==, "one\ntwo\nthree\n");
  wait_ended (run);
  g_assert_cmpint (nk_command_run_get_exit_status (run), ==, 0);
  nk_test_remove_tree (tmp);
}

/* A plain sleep ends at SIGINT, its default action: Stop's first signal. */
static void
test_stop_sigint (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  g_autoptr(NkCommandRun) run = start ("sleep 100", tmp, 60.0);
  g_autofree char *status = NULL;

  nk_command_run_stop (run);
  g_assert_true (nk_command_run_get_stopping (run));
  wait_ended (run);
  g_assert_cmpint (nk_command_run_get_term_signal (run), ==, SIGINT);
  status = nk_command_run_dup_status (run);
  g_assert_cmpstr (status, ==, "killed by SIGINT");
  nk_test_remove_tree (tmp);
}

/* A command that ignores SIGINT is ended by the SIGTERM one grace period later
 * (not SIGKILL, which would come a period after that). */
static void
test_stop_ignoring_sigint (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  g_autoptr(NkCommandRun) run =
    start ("sh -c 'trap \"\" INT; echo ready; while :; do sleep 0.05; done'", tmp, 0.3);
  g_autofree char *rest = wait_for_output (run, "ready\n");
  g_autofree char *status = NULL;

  nk_command_run_stop (run);
  wait_ended (run);
  g_assert_cmpint (nk_command_run_get_term_signal (run), ==, SIGTERM);
  status = nk_command_run_dup_status (run);
  g_assert_cmpstr (status, ==, "killed by SIGTERM");
  nk_test_remove_tree (tmp);
}

/* Linux: a process is gone when /proc has no entry for it, or only a zombie's
 * (waiting for whoever adopted it to reap it). */
static gboolean
process_gone (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *stat = NULL;
  const char *paren;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;
  paren = strrchr (stat, ')');
  return paren != NULL && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The shell's background child ignores SIGINT (a non-interactive shell's `&`
 * does) and outlives the shell: only a signal to the whole group ends it. */
static void
test_stop_reaches_children (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  g_autoptr(NkCommandRun) run = start ("sh -c 'sleep 100 & echo child $!; wait'", tmp, 0.3);
  g_autofree char *rest = wait_for_output (run, "child ");
  gint64 child;

  while (strchr (rest, '\n') == NULL)
    {
      g_free (rest);
      rest = wait_for_output (run, "child ");
    }
  child = g_ascii_strtoll (rest, NULL, 10);
  g_assert_cmpint (child, >, 1);
  g_assert_false (process_gone (child));

  nk_command_run_stop (run);
  wait_ended (run);
  /* SIGKILL or SIGTERM reach it in the same instant the group's signal is sent;
   * what is left is the kernel tearing it down. */
  for (guint i = 0; i < 500 && !process_gone (child); i++)
    g_usleep (10000);
  g_assert_true (process_gone (child));
  nk_test_remove_tree (tmp);
}

/* Each wrong input is a sentence in its own code, never a crash. */
static void
test_bad_input (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  g_autofree char *folder = g_build_filename (tmp, "run", NULL);
  g_autofree char *missing = g_build_filename (tmp, "no-such-folder", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkCommandRun) run = NULL;

  g_assert_null (nk_command_run_new ("   ", tmp, &error));
  g_assert_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_COMMAND);
  g_clear_error (&error);
  g_assert_null (nk_command_run_new ("python 'train.py", tmp, &error));
  g_assert_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_COMMAND);
  g_clear_error (&error);

  run = nk_command_run_new ("./no-such-program --flag", tmp, &error);
  g_assert_no_error (error);
  g_assert_false (nk_command_run_start (run, folder, &error));
  g_assert_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_START);
  g_assert_nonnull (strstr (error->message, "./no-such-program"));
  g_assert_false (nk_command_run_get_running (run));
  g_clear_error (&error);
  g_clear_object (&run);

  run = nk_command_run_new ("true", missing, &error);
  g_assert_false (nk_command_run_start (run, folder, &error));
  g_assert_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_FOLDER);
  g_assert_nonnull (strstr (error->message, missing));
  nk_test_remove_tree (tmp);
}

/* The Napkin of a restart: a command started by a Napkin that is gone. The child
 * test (a process of its own, like that Napkin) starts `exec sleep 30` and exits
 * without waiting; the command, orphaned, comes to this process (a subreaper, as
 * init or systemd --user would take it), which reads its folder back. */
static void
test_adopt_child (void)
{
  g_autoptr(NkCommandRun) run = NULL;

  if (!g_test_subprocess ())
    {
      g_test_skip ("the child of /engine/command-run/adopt/running");
      return;
    }
  run = start ("sh -c 'echo started; exec sleep 30'", g_getenv ("NK_TEST_ADOPT_DIR"), 5.0);
  g_free (wait_for_output (run, "started\n"));
  /* exits now, the command's wait pending: nothing of this process stops it */
}

static void
on_reaped (GPid     pid,
           int      status,
           gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

static JsonObject *
read_command_json (const char *folder,
                   JsonParser *parser)
{
  g_autofree char *path = g_build_filename (folder, "command.json", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* Read back while it runs: running, its pid and line as started; Stop (SIGINT to
 * its group) ends it; the end is seen without being its parent, exit status
 * unknown, and command.json says so. Read back again: ended, unknown. */
static void
test_adopt_running (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  g_autofree char *folder = g_build_filename (tmp, "run", NULL);
  g_autoptr(NkCommandRun) run = NULL;
  g_autoptr(NkCommandRun) again = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *status = NULL;
  gboolean reaped = FALSE;
  JsonObject *object;
  guint ended = 0;

  g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 1), ==, 0);
  g_setenv ("NK_TEST_ADOPT_DIR", tmp, TRUE);
  g_test_trap_subprocess ("/engine/command-run/adopt/child", 60 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();

  run = nk_command_run_new_from_folder (folder, &error);
  g_assert_no_error (error);
  g_assert_true (nk_command_run_get_running (run));
  g_assert_true (nk_command_run_get_exit_known (run));
  g_assert_cmpint (nk_command_run_get_pid (run), ==,
                   json_object_get_int_member (read_command_json (folder, parser), "pid"));
  g_assert_cmpstr (nk_command_run_get_command_line (run), ==, "sh -c 'echo started; exec sleep 30'");
  g_assert_cmpstr (nk_command_run_get_argv (run)[2], ==, "echo started; exec sleep 30");
  g_assert_cmpstr (nk_command_run_get_folder (run), ==, folder);
  g_assert_cmpint (llabs (nk_command_run_get_started (run) - g_get_real_time () / G_USEC_PER_SEC), <, 60);
  /* the orphan is this process's child now: reap it when it ends */
  g_child_watch_add ((GPid) nk_command_run_get_pid (run), on_reaped, &reaped);

  g_signal_connect (run, "ended", G_CALLBACK (on_ended), &ended);
  nk_command_run_stop (run);
  wait_ended (run);
  g_assert_cmpuint (ended, ==, 1);
  g_assert_true (reaped);
  g_assert_false (nk_command_run_get_exit_known (run));
  status = nk_command_run_dup_status (run);
  g_assert_cmpstr (status, ==, "ended, its exit status unknown (an earlier Napkin started it)");
  object = read_command_json (folder, parser);
  g_assert_cmpstr (json_object_get_string_member (object, "status"), ==, "ended");
  g_assert_true (json_object_get_null_member (object, "exit_status"));

  again = nk_command_run_new_from_folder (folder, &error);
  g_assert_no_error (error);
  g_assert_false (nk_command_run_get_running (again));
  g_assert_false (nk_command_run_get_exit_known (again));
  nk_test_remove_tree (tmp);
}

/* Writes a command.json of @status for @pid started at @started into @tmp/@name. */
static char *
write_command_json (const char *tmp,
                    const char *name,
                    const char *status,
                    gint64      pid,
                    gint64      started,
                    const char *tail)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  char *folder = g_build_filename (tmp, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  path = g_build_filename (folder, "command.json", NULL);
  text = g_strdup_printf ("{\"version\":1,\"command\":\"train\",\"argv\":[\"train\"],\"working_dir\":\"/\","
                          "\"started\":%" G_GINT64_FORMAT ",\"pid\":%" G_GINT64_FORMAT ",\"status\":\"%s\"%s}",
                          started, pid, status, tail);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return folder;
}

/* A command.json that says "running" of a process that is another one now (this
 * test's own process, alive but started at another time; or an id no process
 * has) is not running: it ended unseen. Ends as they were written read back as
 * written; a folder without a readable command.json is one sentence; the list
 * is newest first and leaves such folders out. */
static void
test_adopt_ended_and_bad (void)
{
  g_autofree char *tmp = nk_test_make_temp_dir ("command-run");
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  g_autoptr(GSubprocess) done = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL, "true", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) list = NULL;
  gint64 gone;
  struct {
    const char *status, *tail;
    gint64      pid, started;
    gboolean    exit_known;
    const char *sentence;
  } cases[] = {
    { "running", "", getpid (), now - 3600, FALSE, "ended, its exit status unknown (an earlier Napkin started it)" },
    { "running", "", 0, now - 60, FALSE, "ended, its exit status unknown (an earlier Napkin started it)" },
    { "exited", ",\"exit_status\":3,\"signal\":null", 4242, now - 30, TRUE, "exited with status 3" },
    { "killed", ",\"exit_status\":0,\"signal\":\"SIGTERM\"", 4243, now - 20, TRUE, "killed by SIGTERM" },
  };
  const char *bad[] = {
    "", "not json", "[1,2]", "{\"version\":2,\"argv\":[\"a\"],\"started\":5,\"pid\":9,\"status\":\"exited\"}",
    "{\"version\":1,\"argv\":[],\"started\":5,\"pid\":9,\"status\":\"exited\"}",
    "{\"version\":1,\"argv\":[1],\"started\":5,\"pid\":9,\"status\":\"exited\"}",
    "{\"version\":1,\"argv\":[\"a\"],\"started\":5,\"pid\":-9,\"status\":\"exited\"}",
    "{\"version\":1,\"argv\":[\"a\"],\"pid\":9,\"status\":\"exited\"}",
    "{\"version\":1,\"argv\":\"a\",\"started\":5,\"pid\":9,\"status\":\"exited\"}",
    "{\"version\":1,\"argv\":[\"a\"],\"started\":\"x\",\"pid\":9,\"status\":[1]}",
  };

  /* an id no process has: one that has ended and been reaped */
  g_assert_true (g_subprocess_wait (done, NULL, &error));
  gone = g_ascii_strtoll (g_subprocess_get_identifier (done) != NULL ? g_subprocess_get_identifier (done) : "0", NULL, 10);
  cases[1].pid = gone > 1 ? gone : 999999;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("case-%u", i);
      g_autofree char *folder = write_command_json (tmp, name, cases[i].status, cases[i].pid, cases[i].started, cases[i].tail);
      g_autoptr(NkCommandRun) run = nk_command_run_new_from_folder (folder, &error);
      g_autofree char *sentence = NULL;

      g_assert_no_error (error);
      g_assert_false (nk_command_run_get_running (run));
      g_assert_cmpint (nk_command_run_get_exit_known (run), ==, cases[i].exit_known);
      sentence = nk_command_run_dup_status (run);
      g_assert_cmpstr (sentence, ==, cases[i].sentence);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("bad-%u", i);
      g_autofree char *folder = g_build_filename (tmp, name, NULL);
      g_autofree char *path = g_build_filename (folder, "command.json", NULL);

      g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
      g_assert_true (g_file_set_contents (path, bad[i], -1, NULL));
      g_assert_null (nk_command_run_new_from_folder (folder, &error));
      g_assert_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_FOLDER);
      g_assert_nonnull (strstr (error->message, folder));
      g_clear_error (&error);
    }

  /* newest first: cases 3, 2, 1, 0 by their start */
  list = nk_command_run_list (tmp);
  g_assert_cmpuint (list->len, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < list->len; i++)
    g_assert_true (g_str_has_suffix (nk_command_run_get_folder (g_ptr_array_index (list, i)),
                                     (const char *[]) { "case-3", "case-2", "case-1", "case-0" }[i]));
  nk_test_remove_tree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/command-run/log-and-exit-status", test_log_and_exit_status);
  g_test_add_func ("/engine/command-run/log-without-napkin", test_log_without_napkin);
  g_test_add_func ("/engine/command-run/stop/sigint", test_stop_sigint);
  g_test_add_func ("/engine/command-run/stop/ignoring-sigint", test_stop_ignoring_sigint);
  g_test_add_func ("/engine/command-run/stop/children", test_stop_reaches_children);
  g_test_add_func ("/engine/command-run/bad-input", test_bad_input);
  g_test_add_func ("/engine/command-run/adopt/child", test_adopt_child);
  g_test_add_func ("/engine/command-run/adopt/running", test_adopt_running);
  g_test_add_func ("/engine/command-run/adopt/ended-and-bad", test_adopt_ended_and_bad);

  return g_test_run ();
}
