/* nk-command-run.c: a command someone typed, run in a folder, its output kept as the run's log
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "nk-command-run.h"
#include "nk-json.h"

/**
 * NkCommandRun:
 *
 * A command a person typed, run in a folder of their choice in a process group
 * of its own, its merged output written to `output.log` in its run folder as it
 * comes — by the command itself, into the file, not through Napkin: a Napkin that
 * is killed or crashes leaves the command running and its log whole (a pipe would
 * end it at its next line). See nk-command-run.h for the folder and the way Stop
 * escalates.
 */
struct _NkCommandRun
{
  GObject        parent_instance;

  char          *command_line;
  char         **argv;
  char          *working_dir;
  char          *folder;
  double         grace_period;

  GSubprocess   *process;
  int            log_fd;          /* output.log, open until the command has it */
  GCancellable  *cancellable;
  gint64         pid;
  gint64         started;
  gboolean       running;
  gboolean       exited;          /* the process has been reaped */
  gboolean       stopping;
  int            stop_stage;      /* the signal sent last: 0, SIGINT, SIGTERM, SIGKILL */
  guint          escalate_id;
  int            exit_status;
  int            term_signal;
  gboolean       end_unknown;     /* ended unseen: an earlier Napkin started it */
  guint          poll_id;         /* watching a command an earlier Napkin started */
};

G_DEFINE_FINAL_TYPE (NkCommandRun, nk_command_run, G_TYPE_OBJECT)

/**
 * nk_command_run_error_quark:
 *
 * The error domain of running a command: a line that does not parse, a folder
 * that is not there, a program that does not start.
 *
 * Returns: the #GQuark of %NK_COMMAND_RUN_ERROR
 */
G_DEFINE_QUARK (nk-command-run-error-quark, nk_command_run_error)

enum {
  PROP_0,
  PROP_COMMAND_LINE,
  PROP_WORKING_DIR,
  PROP_FOLDER,
  PROP_PID,
  PROP_RUNNING,
  PROP_STOPPING,
  PROP_GRACE_PERIOD,
  PROP_EXIT_STATUS,
  PROP_TERM_SIGNAL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ------------------------------------------------------------ signals' names */

static const struct {
  int         signum;
  const char *name;
} signal_names[] = {
  { SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" },
  { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
  { SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
  { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" },
  { SIGXFSZ, "SIGXFSZ" },
};

/**
 * nk_command_run_signal_name:
 * @signum: a signal's number
 *
 * The signal's name as `kill -l` spells it with its `SIG` (`SIGTERM`), or %NULL for a
 * signal not in the table.
 *
 * Returns: the signal's name as `kill -l` spells it with its `SIG` (`SIGTERM`), or
 *   %NULL for a signal not in the table
 */
const char *
nk_command_run_signal_name (int signum)
{
  for (guint i = 0; i < G_N_ELEMENTS (signal_names); i++)
    if (signal_names[i].signum == signum)
      return signal_names[i].name;
  return NULL;
}

/* ------------------------------------------------------------ the folder */

static void
write_command_json (NkCommandRun *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *path = g_build_filename (self->folder, "command.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  const char *status = self->running ? "running" : self->end_unknown ? "ended"
                       : self->term_signal != 0 ? "killed" : "exited";

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "command");
  json_builder_add_string_value (builder, self->command_line);
  json_builder_set_member_name (builder, "argv");
  json_builder_begin_array (builder);
  for (guint i = 0; self->argv[i] != NULL; i++)
    json_builder_add_string_value (builder, self->argv[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "working_dir");
  json_builder_add_string_value (builder, self->working_dir);
  json_builder_set_member_name (builder, "started");
  json_builder_add_int_value (builder, self->started);
  json_builder_set_member_name (builder, "pid");
  json_builder_add_int_value (builder, self->pid);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  json_builder_set_member_name (builder, "exit_status");
  if (self->end_unknown)
    json_builder_add_null_value (builder);
  else
    json_builder_add_int_value (builder, self->exit_status);
  json_builder_set_member_name (builder, "signal");
  if (self->term_signal != 0 && nk_command_run_signal_name (self->term_signal) != NULL)
    json_builder_add_string_value (builder, nk_command_run_signal_name (self->term_signal));
  else if (self->term_signal != 0)
    json_builder_add_int_value (builder, self->term_signal);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);

  text = nk_json_to_line (builder);
  /* The log is what matters; a command.json that cannot be written is said, not fatal. */
  if (!g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    g_warning ("%s", error->message);
}

/* ------------------------------------------------------------ the end */

static gboolean
group_alive (NkCommandRun *self)
{
  return self->pid > 0 && kill (-(pid_t) self->pid, 0) == 0;
}

static void
signal_group (NkCommandRun *self,
              int           signum)
{
  self->stop_stage = signum;
  if (self->pid > 0 && kill (-(pid_t) self->pid, signum) != 0 && errno != ESRCH)
    g_debug ("kill (-%" G_GINT64_FORMAT ", %d): %s", self->pid, signum, g_strerror (errno));
}

static void
maybe_end (NkCommandRun *self)
{
  if (!self->running || !self->exited)
    return;

  g_clear_handle_id (&self->escalate_id, g_source_remove);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  /* A stopped command's group goes with it, whatever of it still lingers. */
  if (self->stopping && group_alive (self))
    signal_group (self, SIGKILL);
  self->running = FALSE;
  write_command_json (self);
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXIT_STATUS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TERM_SIGNAL]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[SIGNAL_ENDED], 0);
}

static void
on_waited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NkCommandRun) self = user_data;
  GSubprocess *process = G_SUBPROCESS (source);

  /* Cancelled only when the run is disposed; the process is reaped all the same. */
  if (!g_subprocess_wait_finish (process, result, NULL))
    return;
  self->exited = TRUE;
  if (g_subprocess_get_if_signaled (process))
    self->term_signal = g_subprocess_get_term_sig (process);
  else
    self->exit_status = g_subprocess_get_exit_status (process);
  maybe_end (self);
}

/* ------------------------------------------------------------ stopping */

static gboolean
escalate (gpointer user_data)
{
  NkCommandRun *self = user_data;

  self->escalate_id = 0;
  if (!group_alive (self))
    return G_SOURCE_REMOVE;
  signal_group (self, self->stop_stage == SIGINT ? SIGTERM : SIGKILL);
  if (self->stop_stage != SIGKILL)
    self->escalate_id = g_timeout_add ((guint) (self->grace_period * 1000), escalate, self);
  return G_SOURCE_REMOVE;
}

/**
 * nk_command_run_stop:
 * @self: a command run
 *
 * Asks the command's whole process group to end: SIGINT now, SIGTERM after
 * #NkCommandRun:grace-period seconds if a process of the group is left, SIGKILL
 * after as long again. Returns at once; #NkCommandRun::ended says when it has
 * ended. Does nothing when the command does not run or is already being stopped.
 */
void
nk_command_run_stop (NkCommandRun *self)
{
  g_return_if_fail (NK_IS_COMMAND_RUN (self));

  if (!self->running || self->stopping)
    return;
  self->stopping = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STOPPING]);
  signal_group (self, SIGINT);
  self->escalate_id = g_timeout_add ((guint) (self->grace_period * 1000), escalate, self);
}

/* ------------------------------------------------------------ starting */

/* In the child, before exec: a session (and process group) of its own, so that a
 * signal to the group reaches everything the command starts, and Ctrl-C in the
 * terminal Napkin was started from does not. */
static void
child_setup (gpointer user_data)
{
  setsid ();
}

static gboolean
open_folder (NkCommandRun  *self,
             const char    *folder,
             GError       **error)
{
  g_autofree char *log_path = g_build_filename (folder, NK_COMMAND_RUN_LOG_NAME, NULL);

  if (!g_file_test (self->working_dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_FOLDER,
                   _("The working folder “%s” is not a folder"), self->working_dir);
      return FALSE;
    }
  if (g_mkdir_with_parents (folder, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_FOLDER,
                   _("Cannot create the run folder “%s”: %s"), folder, g_strerror (saved));
      return FALSE;
    }
  /* A new file (an earlier run's log is never overwritten), appended to, so that
   * whatever the command's processes write lands whole and in order. */
  self->log_fd = open (log_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (self->log_fd < 0)
    {
      int saved = errno;

      g_set_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_FOLDER,
                   _("Cannot write the command’s log “%s”: %s"), log_path, g_strerror (saved));
      return FALSE;
    }
  self->folder = g_strdup (folder);
  return TRUE;
}

/**
 * nk_command_run_start:
 * @self: a command run not started yet
 * @folder: its run folder (created, with parents, if missing; must not hold an
 *   `output.log` yet): nk_run_dir_new_path() gives a new one
 * @error: return location for a #GError
 *
 * Starts the command in its working folder, its own process group, stdin from
 * /dev/null, stdout and stderr merged into `output.log` in @folder.
 *
 * Returns: %FALSE with @error when the folder cannot be written or the command
 *   cannot be started
 */
gboolean
nk_command_run_start (NkCommandRun  *self,
                      const char    *folder,
                      GError       **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), FALSE);
  g_return_val_if_fail (folder != NULL, FALSE);
  g_return_val_if_fail (self->started == 0, FALSE);

  if (!open_folder (self, folder, error))
    return FALSE;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  /* The launcher closes the log's descriptor here once the child has it. */
  g_subprocess_launcher_take_stdout_fd (launcher, self->log_fd);
  self->log_fd = -1;
  g_subprocess_launcher_set_cwd (launcher, self->working_dir);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  /* Engines buffer a file's output; Python's flushes each line with this set. */
  g_subprocess_launcher_setenv (launcher, "PYTHONUNBUFFERED", "1", FALSE);
  self->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) self->argv, &local);
  if (self->process == NULL)
    {
      g_set_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_START,
                   _("Cannot start “%s”: %s"), self->argv[0], local->message);
      return FALSE;
    }
  self->pid = g_ascii_strtoll (g_subprocess_get_identifier (self->process), NULL, 10);
  self->started = g_get_real_time () / G_USEC_PER_SEC;
  self->running = TRUE;
  write_command_json (self);
  g_subprocess_wait_async (self->process, self->cancellable, on_waited, g_object_ref (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PID]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  return TRUE;
}

/**
 * nk_command_run_new:
 * @command_line: the command as a person typed it
 * @working_dir: the folder it runs in
 * @error: return location for a #GError (%NK_COMMAND_RUN_ERROR_COMMAND)
 *
 * Splits @command_line as a shell would (quotes and backslashes; no variables,
 * pipes or redirections: for those, run `sh -c '…'`).
 *
 * Returns: (transfer full) (nullable): the run, not started, or %NULL when the line
 *   is empty or cannot be split
 */
NkCommandRun *
nk_command_run_new (const char  *command_line,
                    const char  *working_dir,
                    GError     **error)
{
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) local = NULL;
  NkCommandRun *self;

  g_return_val_if_fail (command_line != NULL && working_dir != NULL, NULL);

  if (!g_shell_parse_argv (command_line, NULL, &argv, &local))
    {
      if (g_error_matches (local, G_SHELL_ERROR, G_SHELL_ERROR_EMPTY_STRING))
        g_set_error_literal (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_COMMAND,
                             _("The command is empty"));
      else
        g_set_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_COMMAND,
                     _("The command cannot be read: %s"), local->message);
      return NULL;
    }
  self = g_object_new (NK_TYPE_COMMAND_RUN, NULL);
  self->command_line = g_strdup (command_line);
  self->argv = g_steal_pointer (&argv);
  self->working_dir = g_strdup (working_dir);
  return self;
}

/* ------------------------------------------------------------ read back */

/* Seconds since the epoch at which process @pid started, from /proc (its stat's
 * 22nd field, in clock ticks after boot, and /proc/stat's btime); -1 where the
 * process is gone, a zombie, not the leader of its own group, or /proc says nothing. */
static double
process_started (gint64 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *stat = NULL, *boot = NULL;
  g_auto(GStrv) fields = NULL;
  const char *end, *btime;

  if (!g_file_get_contents (path, &stat, NULL, NULL)
      || !g_file_get_contents ("/proc/stat", &boot, NULL, NULL)
      || (end = strrchr (stat, ')')) == NULL || (btime = strstr (boot, "\nbtime ")) == NULL)
    return -1;
  /* after the name: state, ppid, pgrp, ... starttime is the 20th */
  fields = g_strsplit (end + 2, " ", 21);
  if (g_strv_length (fields) < 20 || fields[0][0] == 'Z'
      || g_ascii_strtoll (fields[2], NULL, 10) != pid)
    return -1;
  return g_ascii_strtod (btime + 7, NULL) + g_ascii_strtod (fields[19], NULL) / sysconf (_SC_CLK_TCK);
}

/* Whether the command command.json speaks of still runs: its group is there and
 * its leader is the process that started then, not a later one given the same id
 * (a leader gone while the rest of its group runs counts, as Stop reaches them). */
static gboolean
still_running (NkCommandRun *self)
{
  double started;

  if (!group_alive (self))
    return FALSE;
  started = process_started (self->pid);
  return started < 0 ? kill ((pid_t) self->pid, 0) != 0 : fabs (started - self->started) <= 2;
}

static gboolean
poll_adopted (gpointer user_data)
{
  NkCommandRun *self = user_data;

  if (group_alive (self))
    return G_SOURCE_CONTINUE;
  self->poll_id = 0;
  self->exited = TRUE;
  self->end_unknown = TRUE;
  maybe_end (self);
  return G_SOURCE_REMOVE;
}

/* A member that is a string, or %NULL. */
static const char *
member_string (JsonObject *o,
               const char *name)
{
  JsonNode *node = json_object_get_member (o, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

/* A member that is an integer, or @otherwise. */
static gint64
member_int (JsonObject *o,
            const char *name,
            gint64      otherwise)
{
  JsonNode *node = json_object_get_member (o, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64
         ? json_node_get_int (node) : otherwise;
}

/* command.json's fields, each checked; FALSE names the first that is wrong. */
static gboolean
read_command_json (NkCommandRun *self,
                   JsonObject   *o,
                   const char  **status)
{
  JsonNode *argv_node = json_object_get_member (o, "argv");
  JsonArray *argv = argv_node != NULL && JSON_NODE_HOLDS_ARRAY (argv_node) ? json_node_get_array (argv_node) : NULL;

  if (member_int (o, "version", 0) != 1 || argv == NULL
      || json_array_get_length (argv) == 0 || json_array_get_length (argv) > 4096)
    return FALSE;
  self->argv = g_new0 (char *, json_array_get_length (argv) + 1);
  for (guint i = 0; i < json_array_get_length (argv); i++)
    {
      JsonNode *element = json_array_get_element (argv, i);
      const char *word = JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING
                         ? json_node_get_string (element) : NULL;
      if (word == NULL)
        return FALSE;
      self->argv[i] = g_strdup (word);
    }
  self->command_line = g_strdup (member_string (o, "command") != NULL ? member_string (o, "command") : "");
  self->working_dir = g_strdup (member_string (o, "working_dir") != NULL ? member_string (o, "working_dir") : "");
  self->started = member_int (o, "started", 0);
  self->pid = member_int (o, "pid", 0);
  self->exit_status = (int) CLAMP (member_int (o, "exit_status", 0), G_MININT, G_MAXINT);
  self->term_signal = (int) CLAMP (member_int (o, "signal", 0), 0, 64);
  for (guint i = 0; member_string (o, "signal") != NULL && i < G_N_ELEMENTS (signal_names); i++)
    if (g_str_equal (signal_names[i].name, member_string (o, "signal")))
      self->term_signal = signal_names[i].signum;
  *status = member_string (o, "status");
  return self->started > 0 && self->pid > 1 && self->pid <= G_MAXINT32 && *status != NULL;
}

/**
 * nk_command_run_new_from_folder:
 * @folder: a run folder a command run wrote (its `command.json` and `output.log`)
 * @error: return location for a #GError (%NK_COMMAND_RUN_ERROR_FOLDER)
 *
 * A command an earlier Napkin started, read back from its folder: its line, working
 * folder, start, process and end as `command.json` says. One it says runs is running
 * here while its process group is there and its leader is the process that started
 * then (not a later one given the same id); Stop signals that group as for a command
 * started here, and #NkCommandRun::ended comes when the group is gone (looked for
 * twice a second). Its exit status went to the Napkin that started it: unknown here.
 * One that is gone ended unseen, its exit status unknown too.
 *
 * Returns: (transfer full) (nullable): the run, or %NULL when @folder has no
 *   readable `command.json`
 */
NkCommandRun *
nk_command_run_new_from_folder (const char  *folder,
                                GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(NkCommandRun) self = NULL;
  const char *status = NULL;
  gsize length = 0;

  g_return_val_if_fail (folder != NULL, NULL);

  path = g_build_filename (folder, "command.json", NULL);
  self = g_object_new (NK_TYPE_COMMAND_RUN, NULL);
  /* a command.json is a few hundred bytes; a megabyte is not one */
  if (!g_file_get_contents (path, &text, &length, NULL) || length > 1048576
      || !json_parser_load_from_data (parser, text, length, NULL)
      || json_parser_get_root (parser) == NULL
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))
      || !read_command_json (self, json_node_get_object (json_parser_get_root (parser)), &status))
    {
      g_set_error (error, NK_COMMAND_RUN_ERROR, NK_COMMAND_RUN_ERROR_FOLDER,
                   _("“%s” does not hold a command Napkin started"), folder);
      return NULL;
    }
  self->folder = g_strdup (folder);
  self->exited = TRUE;
  if (g_str_equal (status, "running") && still_running (self))
    {
      self->exited = FALSE;
      self->running = TRUE;
      self->poll_id = g_timeout_add (500, poll_adopted, self);
    }
  else if (g_str_equal (status, "running") || g_str_equal (status, "ended"))
    self->end_unknown = TRUE;
  return g_steal_pointer (&self);
}

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  NkCommandRun *x = *(NkCommandRun * const *) a;
  NkCommandRun *y = *(NkCommandRun * const *) b;

  if (x->started != y->started)
    return x->started < y->started ? 1 : -1;
  /* run folders' names sort by time too */
  return -g_strcmp0 (x->folder, y->folder);
}

/**
 * nk_command_run_list:
 * @root: a runs folder
 *
 * The commands started into folders under @root (those with a readable
 * `command.json`), newest first.
 *
 * Returns: (transfer full) (element-type NkCommandRun): the commands, newest first;
 *   empty when there are none or @root cannot be read
 */
GPtrArray *
nk_command_run_list (const char *root)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GDir) d = NULL;
  const char *name;

  g_return_val_if_fail (root != NULL, runs);

  d = g_dir_open (root, 0, NULL);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *folder = g_build_filename (root, name, NULL);
      NkCommandRun *run = nk_command_run_new_from_folder (folder, NULL);

      if (run != NULL)
        g_ptr_array_add (runs, run);
    }
  g_ptr_array_sort (runs, compare_newest_first);
  return runs;
}

/**
 * nk_command_run_get_started:
 * @self: a command run
 *
 * When it started, in seconds since the epoch; 0 before it starts.
 *
 * Returns: when it started, in seconds since the epoch; 0 before it starts
 */
gint64
nk_command_run_get_started (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), 0);
  return self->started;
}

/**
 * nk_command_run_get_exit_known:
 * @self: a command run
 *
 * Whether its end is known: %FALSE for a command an earlier Napkin started that
 * has ended since (its exit status went to that Napkin), %TRUE otherwise.
 *
 * Returns: whether its end is known
 */
gboolean
nk_command_run_get_exit_known (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), FALSE);
  return !self->end_unknown;
}

/* ------------------------------------------------------------ GObject */

static void
nk_command_run_dispose (GObject *object)
{
  NkCommandRun *self = NK_COMMAND_RUN (object);

  /* Only reached once the run has ended (the pending wait holds a
   * reference) or never started. */
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->escalate_id, g_source_remove);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  if (self->log_fd >= 0)
    close (self->log_fd);
  self->log_fd = -1;
  g_clear_object (&self->process);

  G_OBJECT_CLASS (nk_command_run_parent_class)->dispose (object);
}

static void
nk_command_run_finalize (GObject *object)
{
  NkCommandRun *self = NK_COMMAND_RUN (object);

  g_clear_object (&self->cancellable);
  g_free (self->command_line);
  g_strfreev (self->argv);
  g_free (self->working_dir);
  g_free (self->folder);

  G_OBJECT_CLASS (nk_command_run_parent_class)->finalize (object);
}

static void
nk_command_run_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  NkCommandRun *self = NK_COMMAND_RUN (object);

  switch (prop_id)
    {
    case PROP_COMMAND_LINE:
      g_value_set_string (value, self->command_line);
      break;
    case PROP_WORKING_DIR:
      g_value_set_string (value, self->working_dir);
      break;
    case PROP_FOLDER:
      g_value_set_string (value, self->folder);
      break;
    case PROP_PID:
      g_value_set_int64 (value, self->pid);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_STOPPING:
      g_value_set_boolean (value, self->stopping);
      break;
    case PROP_GRACE_PERIOD:
      g_value_set_double (value, self->grace_period);
      break;
    case PROP_EXIT_STATUS:
      g_value_set_int (value, self->exit_status);
      break;
    case PROP_TERM_SIGNAL:
      g_value_set_int (value, self->term_signal);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_command_run_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  NkCommandRun *self = NK_COMMAND_RUN (object);

  switch (prop_id)
    {
    case PROP_GRACE_PERIOD:
      nk_command_run_set_grace_period (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_command_run_class_init (NkCommandRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = nk_command_run_dispose;
  object_class->finalize = nk_command_run_finalize;
  object_class->get_property = nk_command_run_get_property;
  object_class->set_property = nk_command_run_set_property;

  /**
   * NkCommandRun:command-line:
   *
   * The command as it was typed.
   */
  properties[PROP_COMMAND_LINE] = g_param_spec_string ("command-line", NULL, NULL, NULL, ro);
  /**
   * NkCommandRun:working-dir:
   *
   * The folder the command runs in.
   */
  properties[PROP_WORKING_DIR] = g_param_spec_string ("working-dir", NULL, NULL, NULL, ro);
  /**
   * NkCommandRun:folder:
   *
   * Its run folder (`output.log`, `command.json`), %NULL before it starts.
   */
  properties[PROP_FOLDER] = g_param_spec_string ("folder", NULL, NULL, NULL, ro);
  /**
   * NkCommandRun:pid:
   *
   * The command's process id, which is also its process group's; 0 before it
   * starts.
   */
  properties[PROP_PID] = g_param_spec_int64 ("pid", NULL, NULL, 0, G_MAXINT64, 0, ro);
  /**
   * NkCommandRun:running:
   *
   * Whether the command has started and not yet ended (exited, and its output
   * read to the end).
   */
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, ro);
  /**
   * NkCommandRun:stopping:
   *
   * Whether nk_command_run_stop() was called while it ran.
   */
  properties[PROP_STOPPING] = g_param_spec_boolean ("stopping", NULL, NULL, FALSE, ro);
  /**
   * NkCommandRun:grace-period:
   *
   * Seconds between the signals of Stop: SIGINT, then SIGTERM, then SIGKILL.
   */
  properties[PROP_GRACE_PERIOD] =
    g_param_spec_double ("grace-period", NULL, NULL, 0.01, 3600.0, 5.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkCommandRun:exit-status:
   *
   * The status the command exited with; 0 while it runs and when a signal ended it.
   */
  properties[PROP_EXIT_STATUS] = g_param_spec_int ("exit-status", NULL, NULL, 0, 255, 0, ro);
  /**
   * NkCommandRun:term-signal:
   *
   * The signal that ended the command, 0 when it exited by itself or runs.
   */
  properties[PROP_TERM_SIGNAL] = g_param_spec_int ("term-signal", NULL, NULL, 0, G_MAXINT, 0, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NkCommandRun::ended:
   * @self: the command run
   *
   * The command has exited and its output has been read to its end;
   * #NkCommandRun:exit-status or #NkCommandRun:term-signal says how it ended.
   */
  signals[SIGNAL_ENDED] =
    g_signal_new ("ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
nk_command_run_init (NkCommandRun *self)
{
  self->grace_period = 5.0;
  self->log_fd = -1;
  self->cancellable = g_cancellable_new ();
}

/* ------------------------------------------------------------ accessors */

/**
 * nk_command_run_get_command_line:
 * @self: a command run
 *
 * The command as it was typed.
 *
 * Returns: the command as it was typed
 */
const char *
nk_command_run_get_command_line (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), NULL);
  return self->command_line;
}

/**
 * nk_command_run_get_argv:
 * @self: a command run
 *
 * The command's words, as run.
 *
 * Returns: (array zero-terminated=1) (transfer none): the command's words, as run
 */
const char * const *
nk_command_run_get_argv (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), NULL);
  return (const char * const *) self->argv;
}

/**
 * nk_command_run_get_working_dir:
 * @self: a command run
 *
 * The folder the command runs in.
 *
 * Returns: the folder the command runs in
 */
const char *
nk_command_run_get_working_dir (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), NULL);
  return self->working_dir;
}

/**
 * nk_command_run_get_folder:
 * @self: a command run
 *
 * Its run folder, %NULL before it starts.
 *
 * Returns: (nullable): its run folder, %NULL before it starts
 */
const char *
nk_command_run_get_folder (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), NULL);
  return self->folder;
}

/**
 * nk_command_run_dup_log_path:
 * @self: a command run
 *
 * The path of its `output.log`, %NULL before it starts.
 *
 * Returns: (transfer full) (nullable): the path of its `output.log`, %NULL before
 *   it starts
 */
char *
nk_command_run_dup_log_path (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), NULL);
  return self->folder != NULL ? g_build_filename (self->folder, NK_COMMAND_RUN_LOG_NAME, NULL) : NULL;
}

/**
 * nk_command_run_get_pid:
 * @self: a command run
 *
 * The command's process id (and its group's), 0 before it starts.
 *
 * Returns: the command's process id (and its group's), 0 before it starts
 */
gint64
nk_command_run_get_pid (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), 0);
  return self->pid;
}

/**
 * nk_command_run_get_running:
 * @self: a command run
 *
 * Whether it has started and not ended.
 *
 * Returns: whether it has started and not ended
 */
gboolean
nk_command_run_get_running (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), FALSE);
  return self->running;
}

/**
 * nk_command_run_get_stopping:
 * @self: a command run
 *
 * Whether it was asked to stop.
 *
 * Returns: whether it was asked to stop
 */
gboolean
nk_command_run_get_stopping (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), FALSE);
  return self->stopping;
}

/**
 * nk_command_run_get_grace_period:
 * @self: a command run
 *
 * The seconds between the signals of Stop.
 *
 * Returns: the seconds between the signals of Stop
 */
double
nk_command_run_get_grace_period (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), 0.0);
  return self->grace_period;
}

/**
 * nk_command_run_set_grace_period:
 * @self: a command run
 * @seconds: the seconds between the signals of Stop (0.01 to 3600)
 *
 * Sets #NkCommandRun:grace-period; a Stop under way keeps the period it began with
 * for the signal it waits to send.
 */
void
nk_command_run_set_grace_period (NkCommandRun *self,
                                 double        seconds)
{
  g_return_if_fail (NK_IS_COMMAND_RUN (self));
  g_return_if_fail (seconds >= 0.01 && seconds <= 3600.0);

  if (self->grace_period == seconds)
    return;
  self->grace_period = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GRACE_PERIOD]);
}

/**
 * nk_command_run_get_exit_status:
 * @self: a command run
 *
 * The status it exited with (0 while it runs or when a signal ended it).
 *
 * Returns: the status it exited with (0 while it runs or when a signal ended it)
 */
int
nk_command_run_get_exit_status (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), 0);
  return self->exit_status;
}

/**
 * nk_command_run_get_term_signal:
 * @self: a command run
 *
 * The signal that ended it, 0 when none did.
 *
 * Returns: the signal that ended it, 0 when none did
 */
int
nk_command_run_get_term_signal (NkCommandRun *self)
{
  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), 0);
  return self->term_signal;
}

/**
 * nk_command_run_dup_status:
 * @self: a command run
 *
 * Where the command is, as a sentence to show: "not started", "running",
 * "stopping", "exited with status 3", "killed by SIGTERM".
 *
 * Returns: (transfer full): where the command is, as a sentence to show: "not
 *   started", "running", "stopping", "exited with status 3", "killed by SIGTERM"
 */
char *
nk_command_run_dup_status (NkCommandRun *self)
{
  const char *name;

  g_return_val_if_fail (NK_IS_COMMAND_RUN (self), NULL);

  if (self->started == 0)
    return g_strdup (_("not started"));
  if (self->running)
    return g_strdup (self->stopping ? _("stopping") : _("running"));
  if (self->end_unknown)
    return g_strdup (_("ended, its exit status unknown (an earlier Napkin started it)"));
  if (self->term_signal == 0)
    /* Translators: a command's end; %d is its exit status */
    return g_strdup_printf (_("exited with status %d"), self->exit_status);
  name = nk_command_run_signal_name (self->term_signal);
  if (name != NULL)
    /* Translators: a command's end; %s is a signal's name (SIGTERM), not translated */
    return g_strdup_printf (_("killed by %s"), name);
  /* Translators: a command's end; %d is a signal's number */
  return g_strdup_printf (_("killed by signal %d"), self->term_signal);
}
