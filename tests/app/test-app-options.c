/* test-app-options.c: the app's command line: a log followed on the Training page beside a plan
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test runs the application as `napkin ARGS` would (g_application_run() with
 * an argv), with an empty $XDG_DATA_HOME of its own (set here rather than by
 * G_TEST_OPTION_ISOLATE_DIRS, whose XDG_DATA_DIRS hide the MIME database a shown
 * window needs for its SVG icons). Oracles:
 * the torchtitan lines written here by hand, the second one appended by a real
 * process (sh) while the page follows the file; the plan's figures as this file
 * writes them; options that cannot go together end with exit status 2 before any
 * window opens.
 */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <glib/gstdio.h>

#include "napkin-application.h"
#include "napkin-window.h"
#include "napkin-training-page-private.h"
#include "nk-test-util.h"

#define MAX_WAIT_ITERATIONS 600000

#define LINE1 "step:  1  loss: 12.2500  memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%"
#define LINE2 "step:  2  loss: 11.5000  memory: 42.00GiB(52.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%"

/* What a plan's JSON holds that a comparison reads (CLI.md, napkin-cli plan --json). */
#define PLAN_JSON "{\"time_per_step\": {\"total\": 0.5}, \"tokens_per_s\": 25000, \"mfu_model\": 0.3," \
                  " \"memory\": {\"per_gpu_max\": 42949672960}," \
                  " \"layout\": {\"dp\": 8, \"tp\": 1, \"pp\": 1, \"cp\": 1}}"

typedef struct {
  char     *log;
  gboolean  checked;
} Followed;

/* Runs once the window is up and the command line has been acted on. */
static gboolean
check_followed (gpointer data)
{
  Followed *f = data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (g_application_get_default ()));
  NapkinTrainingPage *page;
  g_autoptr(NapkinRun) run = NULL;
  g_autofree char *append = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;
  guint64 waited = 0;

  g_assert_nonnull (window);
  g_assert_cmpstr (napkin_window_get_page (NAPKIN_WINDOW (window)), ==, "training");
  page = NAPKIN_TRAINING_PAGE (napkin_window_get_page_widget (NAPKIN_WINDOW (window), "training"));
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 1);
  run = g_list_model_get_item (G_LIST_MODEL (page->runs), 0);
  /* followed, shown, with the plan beside it */
  g_assert_nonnull (napkin_run_get_follower (run));
  g_assert_true (napkin_run_view_get_run (page->run_view) == run);
  g_assert_cmpstr (napkin_run_get_name (run), ==, "train.log");
  g_assert_nonnull (napkin_run_get_plan (run));
  g_assert_cmpfloat (napkin_run_get_plan (run)->tokens_per_s, ==, 25000);
  g_assert_cmpfloat (napkin_run_get_plan (run)->seconds, ==, 0.5);

  /* a second line, written by another process while the page follows */
  append = g_strdup_printf ("printf '%%s\\n' '%s' >> '%s'", LINE2, f->log);
  g_assert_true (g_spawn_sync (NULL, (char *[]) { "/bin/sh", "-c", append, NULL }, NULL, G_SPAWN_DEFAULT,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  while (napkin_run_get_last_step (run) < 2 && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_run_get_last_step (run), ==, 2);
  g_assert_cmpfloat (napkin_series_get_y (napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS), 1), ==, 11.5);
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_RUNNING);

  f->checked = TRUE;
  gtk_window_destroy (window);
  return G_SOURCE_REMOVE;
}

static void
on_window_added (GtkApplication *app,
                 GtkWindow      *window,
                 Followed       *f)
{
  g_idle_add (check_followed, f);
}

static int
run_app (const char * const *args,
         Followed           *f)
{
  g_autoptr(NapkinApplication) app = napkin_application_new ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (f != NULL)
    g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), f);
  g_ptr_array_add (argv, "napkin");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return g_application_run (G_APPLICATION (app), (int) argv->len - 1, (char **) argv->pdata);
}

/* napkin --follow train.log --plan plan.json: the Training page follows the log,
 * shows it, and sets the plan beside it; a line another process appends arrives. */
static void
test_follow_with_plan (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-follow-XXXXXX", NULL);
  g_autofree char *plan = g_build_filename (dir, "plan.json", NULL);
  Followed f = { g_build_filename (dir, "train.log", NULL), FALSE };

  g_assert_true (g_file_set_contents (f.log, LINE1 "\n", -1, NULL));
  g_assert_true (g_file_set_contents (plan, PLAN_JSON, -1, NULL));
  g_assert_cmpint (run_app ((const char *[]) { "--follow", f.log, "--plan", plan, NULL }, &f), ==, 0);
  g_assert_true (f.checked);
  g_free (f.log);
  nk_test_remove_tree (dir);
}

/* --plan without a log, and two logs at once: exit 2, no window. */
static void
test_refused (void)
{
  g_assert_cmpint (run_app ((const char *[]) { "--plan", "plan.json", NULL }, NULL), ==, 2);
  g_assert_cmpint (run_app ((const char *[]) { "--follow", "a.log", "--open-log", "b.log", NULL }, NULL), ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_home = g_dir_make_tmp ("napkin-app-options-XXXXXX", NULL);
  int status;

  g_assert_nonnull (data_home);
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_test_init (&argc, &argv, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "C.UTF-8");
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/app/follow-with-plan", test_follow_with_plan);
  g_test_add_func ("/ui/app/refused", test_refused);
  status = g_test_run ();
  nk_test_remove_tree (data_home);
  return status;
}
