/* test-command-page.c: the Training page runs a real command, follows its log, stops it, shows its end
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test has its own empty $XDG_DATA_HOME (G_TEST_OPTION_ISOLATE_DIRS), where the
 * command's run folder goes. Oracles: the torchtitan lines the shell script prints,
 * written out here by hand (the run's loss series must hold exactly their losses, the
 * log exactly their bytes); SIGINT's default action, which ends a shell and its
 * foreground sleep (POSIX), for what Stop reports; the window's own destruction for
 * "Stop and Quit".
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "napkin-training-page-private.h"
#include "nk-test-util.h"

#define MAX_WAIT_ITERATIONS 600000

#define LINE1 "step:  1  loss: 12.2500  memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%"
#define LINE2 "step:  2  loss: 11.5000  memory: 42.00GiB(52.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%"
#define LINE3 "step:  3  loss: 10.7500  memory: 41.00GiB(51.00%)  tps: 3,200  tflops: 320.00  mfu: 32.00%"

/* Prints three torchtitan steps a little apart, then runs until stopped. */
#define COMMAND "sh -c 'echo \"" LINE1 "\"; sleep 0.1; echo \"" LINE2 "\"; sleep 0.1; " \
                "echo \"" LINE3 "\"; while :; do sleep 0.05; done'"

static NapkinTrainingPage *
new_page (void)
{
  NapkinTrainingPage *page = NAPKIN_TRAINING_PAGE (napkin_training_page_new ());

  g_object_ref_sink (page);
  return page;
}

static NapkinRun *
launch (NapkinTrainingPage *page,
        const char         *folder)
{
  guint before = napkin_training_page_get_n_runs (page);
  NapkinRun *run;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.run-command", "(ss)",
                                             COMMAND, folder));
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, before + 1);
  run = g_list_model_get_item (G_LIST_MODEL (page->runs), 0);
  g_object_unref (run);   /* the list keeps it */
  g_assert_nonnull (napkin_run_get_command (run));
  return run;
}

static void
test_launch_follow_stop (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-command-XXXXXX", NULL);
  NapkinTrainingPage *page = new_page ();
  NapkinRun *run = launch (page, dir);
  NkCommandRun *command = napkin_run_get_command (run);
  NapkinSeries *loss = napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS);
  g_autofree char *log_path = nk_command_run_dup_log_path (command);
  g_autofree char *log = NULL;
  guint64 waited = 0;

  /* shown at once, running, with its facts in the form's place and only Stop */
  g_assert_true (napkin_run_view_get_run (page->run_view) == run);
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_RUNNING);
  g_assert_cmpstr (napkin_training_page_get_fact (page, "source"), ==, COMMAND);
  g_assert_cmpstr (napkin_training_page_get_fact (page, "working-dir"), ==, dir);
  g_assert_cmpstr (napkin_training_page_get_fact (page, "status"), ==, "running");
  g_assert_true (g_str_has_prefix (nk_command_run_get_folder (command), g_get_user_data_dir ()));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (page->form)));
  g_assert_true (gtk_widget_get_visible (page->stop_command_button));
  g_assert_false (gtk_widget_get_visible (page->start_button));
  g_assert_false (gtk_widget_get_visible (page->stop_button));
  g_assert_false (gtk_widget_get_visible (page->pause_button));

  /* its steps arrive as the command prints them */
  while (napkin_run_get_last_step (run) < 3 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_run_get_last_step (run), ==, 3);
  g_assert_cmpuint (napkin_series_get_length (loss), ==, 3);
  g_assert_cmpfloat (napkin_series_get_y (loss, 0), ==, 12.25);
  g_assert_cmpfloat (napkin_series_get_y (loss, 1), ==, 11.5);
  g_assert_cmpfloat (napkin_series_get_y (loss, 2), ==, 10.75);
  g_assert_cmpstr (napkin_training_page_get_fact (page, "engine"), ==, "torchtitan");
  g_assert_true (nk_command_run_get_running (command));

  /* Stop: SIGINT ends the shell and its sleep */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.stop-command", NULL));
  waited = 0;
  while (nk_command_run_get_running (command) && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (nk_command_run_get_running (command));
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_cmpstr (napkin_run_get_error (run), ==, "killed by SIGINT");
  g_assert_cmpstr (napkin_training_page_get_fact (page, "status"), ==, "killed by SIGINT");
  g_assert_cmpstr (napkin_training_page_get_last_toast (page), ==, "“" COMMAND "” killed by SIGINT");
  g_assert_false (gtk_widget_get_visible (page->stop_command_button));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (page->facts)));

  /* the follower reads to the log's end and ends; every step once */
  waited = 0;
  while (nk_log_follower_get_running (napkin_run_get_follower (run)) && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_series_get_length (loss), ==, 3);
  g_assert_true (g_file_get_contents (log_path, &log, NULL, NULL));
  g_assert_cmpstr (log, ==, LINE1 "\n" LINE2 "\n" LINE3 "\n");

  /* back to the form for a run of Napkin's */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.edit-settings", NULL));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (page->form)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (page->facts)));
  g_assert_true (gtk_widget_get_visible (page->start_button));

  g_assert_finalize_object (page);
  nk_test_remove_tree (dir);
}

/* Follow a Growing Log…: a log written while the page follows it, line by line;
 * its facts name the log, and nothing is there to stop. */
static void
test_follow_log (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-follow-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "train.log", NULL);
  NapkinTrainingPage *page = new_page ();
  FILE *log = fopen (path, "w");
  NapkinRun *run;
  NapkinSeries *loss;
  guint64 waited = 0;

  g_assert_nonnull (log);
  fprintf (log, "starting\n%s\n", LINE1);
  fflush (log);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.follow-log", "s", path));
  run = g_list_model_get_item (G_LIST_MODEL (page->runs), 0);
  g_object_unref (run);   /* the list keeps it */
  loss = napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS);
  g_assert_null (napkin_run_get_command (run));
  g_assert_cmpstr (napkin_run_get_name (run), ==, "train.log");
  g_assert_cmpstr (napkin_training_page_get_fact (page, "source"), ==, path);
  g_assert_null (napkin_training_page_get_fact (page, "working-dir"));
  g_assert_false (gtk_widget_get_visible (page->stop_command_button));
  g_assert_false (gtk_widget_get_visible (page->start_button));
  while (napkin_run_get_last_step (run) < 1 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_str_has_prefix (napkin_training_page_get_fact (page, "shape"),
                                   "1 step read, the last step 1 · loss 12.25 · "));

  /* the second line comes in two writes (a half line waits for its newline) */
  fprintf (log, "%s", LINE2);
  fflush (log);
  g_main_context_iteration (NULL, FALSE);
  fprintf (log, "\n%s\n", LINE3);
  fclose (log);
  waited = 0;
  while (napkin_run_get_last_step (run) < 3 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_series_get_length (loss), ==, 3);
  g_assert_cmpfloat (napkin_series_get_y (loss, 0), ==, 12.25);
  g_assert_cmpfloat (napkin_series_get_y (loss, 1), ==, 11.5);
  g_assert_cmpfloat (napkin_series_get_y (loss, 2), ==, 10.75);
  g_assert_cmpstr (napkin_training_page_get_fact (page, "engine"), ==, "torchtitan");
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_RUNNING);
  /* its shape as the log tells it, in the plural where it is one */
  g_assert_true (g_str_has_prefix (napkin_training_page_get_fact (page, "shape"),
                                   "3 steps read, the last step 3 · loss 10.75 · "));
  g_assert_true (g_str_has_suffix (napkin_training_page_get_fact (page, "shape"), " · 1 other line"));

  g_assert_finalize_object (page);
  nk_test_remove_tree (dir);
}

/* A line that cannot be split, a folder that is not there: a toast, no run. */
static void
test_bad_command (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-command-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *said = g_strdup_printf ("The working folder “%s” is not a folder", missing);
  NapkinTrainingPage *page = new_page ();
  guint before = napkin_training_page_get_n_runs (page);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.run-command", "(ss)",
                                             "python 'train.py", dir));
  g_assert_true (g_str_has_prefix (napkin_training_page_get_last_toast (page), "The command cannot be read"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.run-command", "(ss)",
                                             "true", missing));
  g_assert_cmpstr (napkin_training_page_get_last_toast (page), ==, said);
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, before);
  g_assert_finalize_object (page);
  nk_test_remove_tree (dir);
}

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

/* Closing the window while a command runs asks; Stop and Quit stops it and the
 * window closes once it has ended. */
static void
test_close_asks (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-command-XXXXXX", NULL);
  GtkWidget *window = gtk_window_new ();
  NapkinTrainingPage *page = NAPKIN_TRAINING_PAGE (napkin_training_page_new ());
  NapkinRun *run;
  NkCommandRun *command;
  AdwMessageDialog *dialog;
  guint64 waited = 0;

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  run = launch (page, dir);
  command = g_object_ref (napkin_run_get_command (run));

  napkin_training_page_confirm_close (page, GTK_WINDOW (window));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Stop the Command?");
  g_assert_true (nk_command_run_get_running (command));
  adw_message_dialog_response (dialog, "cancel");
  g_assert_nonnull (window);
  g_assert_true (nk_command_run_get_running (command));

  napkin_training_page_confirm_close (page, GTK_WINDOW (window));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "stop");
  while (window != NULL && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (window);
  g_assert_false (nk_command_run_get_running (command));
  g_assert_true (nk_command_run_get_stopping (command));
  g_object_unref (command);
  nk_test_remove_tree (dir);
}

/* A Napkin started after the one that launched a command lists it: running, its
 * steps from its log, Stop at hand; Stop from there ends it (the end seen without
 * being its parent: its exit status unknown); a Napkin started after that lists it
 * ended, its three steps once. (Both pages live in one process here; the launching
 * page, the command's parent, only reaps it.) */
static void
test_relisted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-command-XXXXXX", NULL);
  NapkinTrainingPage *first = new_page ();
  NapkinRun *launched = launch (first, dir);
  NkCommandRun *command = napkin_run_get_command (launched);
  NapkinTrainingPage *second, *third;
  NapkinRun *run;
  NkCommandRun *adopted;
  guint64 waited = 0;

  while (napkin_run_get_last_step (launched) < 3 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_run_get_last_step (launched), ==, 3);

  second = new_page ();
  g_assert_cmpuint (napkin_training_page_get_n_runs (second), ==, 1);
  run = g_list_model_get_item (G_LIST_MODEL (second->runs), 0);
  g_object_unref (run);
  adopted = napkin_run_get_command (run);
  g_assert_nonnull (adopted);
  g_assert_true (adopted != command);
  g_assert_true (nk_command_run_get_running (adopted));
  g_assert_cmpint (nk_command_run_get_pid (adopted), ==, nk_command_run_get_pid (command));
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_RUNNING);
  waited = 0;
  while (napkin_run_get_last_step (run) < 3 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_series_get_length (napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS)), ==, 3);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (second), "training.open-run", "u",
                                             napkin_run_get_index (run)));
  g_assert_cmpstr (napkin_training_page_get_fact (second, "source"), ==, COMMAND);
  g_assert_cmpstr (napkin_training_page_get_fact (second, "status"), ==, "running");
  g_assert_true (gtk_widget_get_visible (second->stop_command_button));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (second), "training.stop-command", NULL));
  waited = 0;
  while ((nk_command_run_get_running (adopted) || nk_command_run_get_running (command))
         && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (nk_command_run_get_running (adopted));
  g_assert_cmpstr (nk_command_run_get_command_line (adopted), ==, COMMAND);
  g_assert_cmpint (nk_command_run_get_term_signal (command), ==, SIGINT);
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_cmpstr (napkin_training_page_get_fact (second, "status"), ==,
                   "ended, its exit status unknown (an earlier Napkin started it)");
  g_assert_false (gtk_widget_get_visible (second->stop_command_button));

  third = new_page ();
  g_assert_cmpuint (napkin_training_page_get_n_runs (third), ==, 1);
  run = g_list_model_get_item (G_LIST_MODEL (third->runs), 0);
  g_object_unref (run);
  g_assert_false (nk_command_run_get_running (napkin_run_get_command (run)));
  waited = 0;
  while (nk_log_follower_get_running (napkin_run_get_follower (run)) && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_series_get_length (napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS)), ==, 3);

  g_assert_finalize_object (third);
  g_assert_finalize_object (second);
  g_assert_finalize_object (first);
  nk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "en_US.UTF-8");
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/training/command/launch-follow-stop", test_launch_follow_stop);
  g_test_add_func ("/ui/training/command/bad-command", test_bad_command);
  g_test_add_func ("/ui/training/command/follow-log", test_follow_log);
  g_test_add_func ("/ui/training/command/close-asks", test_close_asks);
  g_test_add_func ("/ui/training/command/relisted", test_relisted);
  return g_test_run ();
}
