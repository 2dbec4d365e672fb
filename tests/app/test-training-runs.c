/* test-training-runs.c: the Training page's runs on disk: listed, reopened, renamed, trashed
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test has its own empty $XDG_DATA_HOME (G_TEST_OPTION_ISOLATE_DIRS). Oracles:
 * the steps the test wrote into a folder with the engine's writer (the page must
 * plot exactly those), meta.json read with json-glib (rename), the folder's
 * presence on disk and in the trash (delete), and a live run's own history (the
 * folder the page writes must read back to it).
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "napkin-training-page-private.h"
#include "nk-test-util.h"

#define MAX_WAIT_ITERATIONS 600000

static char *
runs_root (void)
{
  return g_build_filename (g_get_user_data_dir (), "napkin", "runs", NULL);
}

static double
fake_loss (guint64 step)
{
  return 100.0 / (double) step + 0.25 * sin ((double) step);
}

/* A folder of @steps steps under the runs folder; finished, or left as if killed. */
static char *
write_folder_of (const char    *id,
                 NkTrainConfig *config,
                 guint          steps,
                 gboolean       finish,
                 gboolean       checkpoint)
{
  g_autofree char *root = runs_root ();
  g_autofree char *dir = g_build_filename (root, id, NULL);
  g_autoptr(NkRunWriter) w = NULL;
  g_autoptr(GError) error = NULL;

  config->steps = steps;
  w = nk_run_writer_open (dir, config, NULL, 0, &error);
  g_assert_no_error (error);
  for (guint s = 1; s <= steps; s++)
    {
      NkTrainMetrics m = { 0, };

      m.step = s;
      m.loss = fake_loss (s);
      m.seconds = 1e-3;
      m.loss_scale = 1;
      g_assert_true (nk_run_writer_append (w, &m, 1, "cpu", &error));
    }
  if (finish)
    g_assert_true (nk_run_writer_finish (w, NK_RUN_STATUS_FINISHED, steps, fake_loss (steps),
                                         NULL, &error));
  if (checkpoint)
    {
      g_autofree char *ckdir = nk_run_dir_get_checkpoint_dir (dir);
      g_autofree char *ck = g_build_filename (ckdir, "step-00000001.safetensors", NULL);

      g_mkdir_with_parents (ckdir, 0755);
      g_assert_true (g_file_set_contents (ck, "", 0, NULL));
    }
  return g_steal_pointer (&dir);
}

static char *
write_folder (const char *id,
              guint       steps,
              gboolean    finish,
              gboolean    checkpoint)
{
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();

  config->dim = 5;
  return write_folder_of (id, config, steps, finish, checkpoint);
}

static NapkinTrainingPage *
new_page (void)
{
  NapkinTrainingPage *page = NAPKIN_TRAINING_PAGE (napkin_training_page_new ());

  g_object_ref_sink (page);
  return page;
}

static void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
test_listed_newest_first (void)
{
  g_autofree char *a = write_folder ("20261124-100000-1", 30, TRUE, FALSE);
  g_autofree char *b = write_folder ("20261124-110000-1", 20, TRUE, FALSE);
  g_autofree char *c = write_folder ("20261124-120000-1", 10, FALSE, TRUE);
  NapkinTrainingPage *page;
  NapkinRun *run;
  NapkinSeries *loss;
  g_autofree char *summary = NULL;
  guint64 waited = 0;

  page = new_page ();
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 3);
  /* Run numbers count from the oldest; the list shows the newest first. */
  run = _napkin_training_page_get_run (page, 0);
  g_assert_cmpstr (napkin_run_get_folder (run), ==, a);
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_FINISHED);
  g_assert_false (napkin_run_is_interrupted (run));
  run = _napkin_training_page_get_run (page, 2);
  g_assert_cmpstr (napkin_run_get_folder (run), ==, c);
  g_assert_true (napkin_run_is_interrupted (run));
  g_assert_true (napkin_run_is_resumable (run));
  /* Listing reads only the end of each folder: nothing is shown (or read) yet. */
  g_assert_false (napkin_run_get_shown (run));
  g_assert_cmpuint (napkin_run_get_last_step (run), ==, 10);
  summary = napkin_training_page_dup_run_summary (page, 2);
  g_assert_nonnull (strstr (summary, "interrupted"));

  /* Its steps, as written, without retraining. */
  run = _napkin_training_page_get_run (page, 1);
  g_assert_cmpstr (napkin_run_get_folder (run), ==, b);
  loss = napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS);
  g_assert_cmpuint (napkin_series_get_length (loss), ==, 20);
  for (guint i = 0; i < 20; i++)
    {
      g_assert_cmpfloat (napkin_series_get_x (loss, i), ==, i + 1);
      g_assert_cmpfloat (napkin_series_get_y (loss, i), ==, fake_loss (i + 1));
    }
  g_assert_cmpuint (nk_train_history_get_n (napkin_run_get_history (run)), ==, 20);

  /* Reopen one, compare it with another on the same axes. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-run", "u", 1));
  g_assert_true (napkin_run_get_shown (_napkin_training_page_get_run (page, 1)));
  /* Run 0 is not read yet: its steps are read on a thread, and the page holds
   * itself until they are in; wait for that (before: a drain() that returned
   * while the thread still ran, and the page was not finalized under load). */
  run = _napkin_training_page_get_run (page, 0);
  g_assert_false (napkin_run_is_loaded (run));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.compare-run", "i", 0));
  while (napkin_run_view_get_compare (page->run_view) != run && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (napkin_run_view_get_compare (page->run_view) == run);
  g_assert_true (napkin_run_is_loaded (run));
  loss = napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS);
  g_assert_cmpuint (napkin_series_get_length (loss), ==, 30);
  g_assert_cmpfloat (napkin_series_get_y (loss, 29), ==, fake_loss (30));
  drain ();
  g_assert_finalize_object (page);
}

static void
test_rename (void)
{
  g_autofree char *a = write_folder ("20261124-100000-1", 5, TRUE, FALSE);
  g_autofree char *meta = g_build_filename (a, "meta.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;
  NapkinTrainingPage *page = new_page ();

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.rename-run", "(us)",
                                             0, "  lr sweep, baseline "));
  g_assert_cmpstr (napkin_run_get_name (_napkin_training_page_get_run (page, 0)), ==,
                   "lr sweep, baseline");
  summary = napkin_training_page_dup_run_summary (page, 0);
  g_assert_true (g_str_has_prefix (summary, "lr sweep, baseline"));
  /* On disk: the name in meta.json, the folder unchanged. */
  g_assert_true (json_parser_load_from_file (parser, meta, &error));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)),
                                                  "name"), ==, "lr sweep, baseline");
  g_assert_true (g_file_test (a, G_FILE_TEST_IS_DIR));
  /* And after a restart. */
  napkin_training_page_reload_runs (page);
  g_assert_cmpstr (napkin_run_get_name (_napkin_training_page_get_run (page, 0)), ==,
                   "lr sweep, baseline");

  /* No name: a dialog asks, showing the current one. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.rename-run", "(us)",
                                             0, ""));
  {
    g_autoptr(GListModel) toplevels = gtk_window_get_toplevels ();
    AdwMessageDialog *dialog = NULL;
    GtkEditable *entry;

    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

        if (ADW_IS_MESSAGE_DIALOG (w))
          dialog = ADW_MESSAGE_DIALOG (w);
      }
    g_assert_nonnull (dialog);
    entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
    g_assert_cmpstr (gtk_editable_get_text (entry), ==, "lr sweep, baseline");
    gtk_editable_set_text (entry, "from the dialog");
    adw_message_dialog_response (dialog, "rename");
    gtk_window_destroy (GTK_WINDOW (dialog));
  }
  g_assert_cmpstr (napkin_run_get_name (_napkin_training_page_get_run (page, 0)), ==,
                   "from the dialog");
  drain ();
  g_assert_finalize_object (page);
}

/* Runs nobody named (`napkin-cli train --run-dir` without --name) are told
 * apart by their settings, as a sweep of recipes and seeds writes them: the
 * model, the precision with its rule, the seed. Oracle: the names typed here. */
static void
test_default_names (void)
{
  static const struct {
    const char *id;
    NkPrecision precision;
    NkMxScaleRule mx_scale;
    gboolean nearest;
    guint64 seed;
    const char *name;
  } runs[] = {
    { "20261128-094500-1", NK_PRECISION_NVFP4, NK_MX_SCALE_UP, FALSE, 1, "GPT · NVFP4, stochastic rounding · seed 1" },
    { "20261128-094500-2", NK_PRECISION_NVFP4, NK_MX_SCALE_UP, TRUE, 1, "GPT · NVFP4, nearest rounding · seed 1" },
    { "20261128-094500-3", NK_PRECISION_MXFP8, NK_MX_SCALE_FLOOR, FALSE, 2, "GPT · MXFP8, scale floored (OCP) · seed 2" },
    { "20261128-094500-4", NK_PRECISION_BF16_MIXED, NK_MX_SCALE_UP, FALSE, 0, "GPT · bf16-mixed · seed 0" },
  };
  g_autoptr(GHashTable) want = g_hash_table_new (g_str_hash, g_str_equal);
  NapkinTrainingPage *page;

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autoptr(NkTrainConfig) config = nk_train_config_new ();
      g_autofree char *dir = NULL;

      config->model = NK_MODEL_GPT;
      config->precision = runs[i].precision;
      config->mx_scale = runs[i].mx_scale;
      config->nvfp4_nearest = runs[i].nearest;
      config->seed = runs[i].seed;
      dir = write_folder_of (runs[i].id, config, 3, TRUE, FALSE);
      g_hash_table_insert (want, g_steal_pointer (&dir), (gpointer) runs[i].name);
    }
  page = new_page ();
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, G_N_ELEMENTS (runs));
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      NapkinRun *run = _napkin_training_page_get_run (page, i);

      g_assert_cmpstr (napkin_run_get_name (run), ==, g_hash_table_lookup (want, napkin_run_get_folder (run)));
    }
  drain ();
  g_assert_finalize_object (page);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autofree char *root = runs_root ();
      g_autofree char *dir = g_build_filename (root, runs[i].id, NULL);

      nk_test_remove_tree (dir);
    }
}

static void
test_trash (void)
{
  g_autofree char *a = write_folder ("20261124-100000-1", 5, TRUE, FALSE);
  g_autofree char *b = write_folder ("20261124-110000-1", 5, TRUE, FALSE);
  g_autofree char *gone = NULL;
  g_autofree char *name_a = NULL, *name_b = NULL, *expected = NULL;
  NapkinTrainingPage *page = new_page ();
  const char *toast;

  /* GIO finds the home trash through $HOME, which the isolated dirs name but do
   * not create. */
  g_assert_cmpint (g_mkdir_with_parents (g_get_home_dir (), 0700), ==, 0);

  /* A folder already gone cannot be trashed: one sentence, and the run stays. */
  gone = g_strconcat (b, "-elsewhere", NULL);
  g_assert_cmpint (g_rename (b, gone), ==, 0);
  name_b = g_strdup (napkin_run_get_name (_napkin_training_page_get_run (page, 1)));
  name_a = g_strdup (napkin_run_get_name (_napkin_training_page_get_run (page, 0)));
  /* Unnamed runs are called by their settings. */
  g_assert_cmpstr (name_a, ==, "Cruncher · fp32 · seed 0");
  expected = g_strdup_printf ("Could not move “%s” to the trash: ", name_b);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.trash-run", "u", 1));
  toast = napkin_training_page_get_last_toast (page);
  g_assert_nonnull (toast);
  g_assert_true (g_str_has_prefix (toast, expected));
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 2);
  g_assert_cmpint (g_rename (gone, b), ==, 0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.trash-run", "u", 0));
  toast = napkin_training_page_get_last_toast (page);
  g_test_message ("trash: %s", toast);
  if (g_file_test (a, G_FILE_TEST_EXISTS))
    {
      /* Some file systems have no trash: then the sentence says why, and the run stays. */
      g_assert_true (g_str_has_prefix (toast, "Could not move"));
      g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 2);
    }
  else
    {
      g_autofree char *trashed = g_build_filename (g_get_user_data_dir (), "Trash", "files",
                                                   "20261124-100000-1", "meta.json", NULL);

      g_autofree char *moved = g_strdup_printf ("“%s” moved to the trash", name_a);

      g_assert_cmpstr (toast, ==, moved);
      g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 1);
      g_assert_true (g_file_test (trashed, G_FILE_TEST_EXISTS));
      /* Runs keep their numbers: run 1 is still there, run 0 is not. */
      g_assert_null (_napkin_training_page_get_run (page, 0));
      g_assert_cmpstr (napkin_run_get_folder (_napkin_training_page_get_run (page, 1)), ==, b);
    }
  drain ();
  g_assert_finalize_object (page);
}

static void
set_spin (NapkinTrainingPage *page,
          const char         *name,
          double              value)
{
  GtkWidget *spin = napkin_training_page_get_input (page, name);

  g_assert_true (GTK_IS_SPIN_BUTTON (spin));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
}

/* A run the page starts writes its folder; a restart reads it back as it ran. */
static void
test_new_run_writes_folder (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autofree char *root = runs_root ();
  g_autoptr(GPtrArray) infos = NULL;
  g_autoptr(GArray) ran = NULL;
  NkTrainer *trainer;
  NkRunInfo *info;
  NapkinRun *run;
  guint i;

  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 0);
  set_spin (page, "dim", 8);
  set_spin (page, "layers", 1);
  set_spin (page, "batch", 4);
  set_spin (page, "steps", 300);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.start", NULL));
  trainer = napkin_training_page_get_trainer (page, 0);
  for (i = 0; i < MAX_WAIT_ITERATIONS && napkin_training_page_is_running (page); i++)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
  drain ();
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FINISHED);
  /* The folder is written on a thread of its own: wait for it. */
  napkin_run_flush_folder (_napkin_training_page_get_run (page, 0));
  ran = nk_trainer_get_history (trainer);
  g_assert_cmpuint (ran->len, ==, 300);

  infos = nk_run_dir_list (root, NULL);
  g_assert_cmpuint (infos->len, ==, 1);
  info = g_ptr_array_index (infos, 0);
  g_assert_cmpint (info->status, ==, NK_RUN_STATUS_FINISHED);
  g_assert_cmpuint (info->config->dim, ==, 8);
  g_assert_true (info->has_plan);

  napkin_training_page_reload_runs (page);
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 1);
  run = _napkin_training_page_get_run (page, 0);
  g_assert_true (napkin_run_is_from_disk (run));
  g_assert_cmpuint (nk_train_history_get_n (napkin_run_get_history (run)), ==, 300);
  for (i = 0; i < 300; i++)
    {
      NkTrainMetrics m;

      nk_train_history_get (napkin_run_get_history (run), i, &m);
      g_assert_cmpuint (m.step, ==, g_array_index (ran, NkTrainMetrics, i).step);
      g_assert_cmpfloat (m.loss, ==, g_array_index (ran, NkTrainMetrics, i).loss);
      g_assert_cmpfloat (m.seconds, ==, g_array_index (ran, NkTrainMetrics, i).seconds);
    }
  drain ();
  g_assert_finalize_object (page);
}

/* Done means (issue 15): a run killed with SIGKILL lists as interrupted with every
 * step it printed, and resumes from its checkpoint into the same folder. */
static void
test_killed_run_resumes (void)
{
  g_autofree char *root = runs_root ();
  g_autofree char *dir = g_build_filename (root, "20261124-090000-1", NULL);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  NapkinTrainingPage *page;
  NapkinRun *run;
  NkTrainer *trainer;
  guint64 seen = 0, start;
  guint i;

  proc = nk_test_spawn_cli ("train", (const char *[]) { "--dim", "8", "--layers", "1", "--steps",
                                                        "100000000", "--checkpoint-every", "100",
                                                        "--json-lines", "--run-dir", dir, NULL },
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  if (proc == NULL)
    return;
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  while (seen < 500)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);

      g_assert_nonnull (line);
      seen++;
    }
  g_subprocess_force_exit (proc);
  g_assert_true (g_subprocess_wait (proc, NULL, NULL));

  page = new_page ();
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 1);
  run = _napkin_training_page_get_run (page, 0);
  g_assert_true (napkin_run_is_interrupted (run));
  g_assert_true (napkin_run_is_resumable (run));
  g_assert_cmpuint (napkin_run_get_last_step (run), >=, seen);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.resume-run", "u", 0));
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 1);
  trainer = napkin_training_page_get_trainer (page, 1);
  g_assert_nonnull (trainer);
  for (i = 0; i < MAX_WAIT_ITERATIONS && nk_trainer_get_steps_done (trainer) < 50; i++)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
  start = nk_trainer_get_start_step (trainer);
  g_assert_cmpuint (start, >=, 100);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.stop", NULL));
  for (i = 0; i < MAX_WAIT_ITERATIONS && napkin_training_page_is_running (page); i++)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
  drain ();
  napkin_run_flush_folder (_napkin_training_page_get_run (page, 1));

  /* One folder, every step once: the killed run's up to its checkpoint, then the
   * resumed run's. */
  g_test_message ("last toast: %s", napkin_training_page_get_last_toast (page));
  g_assert_true (nk_run_dir_read_metrics (dir, h, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (nk_train_history_get_n (h), >, start);
  for (gsize k = 0; k < nk_train_history_get_n (h); k++)
    g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_STEP, k), ==, k + 1);
  napkin_training_page_reload_runs (page);
  run = _napkin_training_page_get_run (page, 0);
  g_assert_false (napkin_run_is_interrupted (run));
  g_assert_cmpint (napkin_run_get_state (run), ==, NK_TRAINER_STATE_STOPPED);
  drain ();
  g_assert_finalize_object (page);
}

/* A run's row names its model as the CLI's flags do: each of the three models. */
static void
test_describe_models (void)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  g_autofree char *cruncher = NULL, *lm = NULL, *gpt = NULL;

  c->dim = 32;
  c->layers = 2;
  c->context = 16;
  c->n_head = 4;
  c->model = NK_MODEL_CRUNCHER;
  cruncher = napkin_run_describe_config (c);
  c->model = NK_MODEL_TINY_LM;
  lm = napkin_run_describe_config (c);
  c->model = NK_MODEL_GPT;
  gpt = napkin_run_describe_config (c);
  g_assert_true (g_str_has_prefix (cruncher, "Cruncher D 32 · L 2 · batch "));
  g_assert_true (g_str_has_prefix (lm, "Tiny LM D 32 · L 2 · T 16 · batch "));
  g_assert_true (g_str_has_prefix (gpt, "GPT L 2 · H 4 · d 32 · T 16 · batch "));
}


/* Opening a run from disk reads its steps on a thread: the action returns at
 * once, the run is shown when its steps are in, every one of them. */
static void
test_open_reads_on_thread (void)
{
  g_autofree char *a = write_folder ("20261124-130000-1", 50, TRUE, FALSE);
  NapkinTrainingPage *page = new_page ();
  NapkinRun *run = _napkin_training_page_get_run (page, 0);
  guint64 waited = 0;

  g_assert_false (napkin_run_is_loaded (run));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-run", "u", 0));
  while (!napkin_run_get_shown (run) && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (napkin_run_get_shown (run));
  g_assert_true (napkin_run_is_loaded (run));
  g_assert_cmpuint (napkin_series_get_length (napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS)), ==, 50);
  g_assert_cmpfloat (napkin_series_get_y (napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS), 49), ==,
                     fake_loss (50));
  drain ();
  g_assert_finalize_object (page);
}

/* "Open a Run Log…": a torchtitan log written here from its format string becomes a
 * finished run at the top of the list, with the log's losses; a plan's JSON sets
 * it beside the plan, a plan file that is empty or no file is a toast naming it; a
 * file in no known format is one sentence and no run. */
static void
test_open_log (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-log-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  g_autofree char *plan = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *junk = g_build_filename (dir, "junk.txt", NULL);
  g_autofree char *empty_plan = g_build_filename (dir, "empty.json", NULL);
  NapkinTrainingPage *page = new_page ();
  NapkinRun *run;
  NapkinSeries *loss;
  NkImportComparison comparison;
  guint before = napkin_training_page_get_n_runs (page);
  guint64 waited = 0;

  g_assert_true (g_file_set_contents (log,
    "step:  1  loss: 12.2500  memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%\n"
    "noise that is no step\n"
    "step:  2  loss: 11.5000  memory: 42.00GiB(52.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%\n"
    "step:  3  loss: 10.7500  memory: 41.00GiB(51.00%)  tps: 3,200  tflops: 320.00  mfu: 32.00%\n", -1, NULL));
  g_assert_true (g_file_set_contents (plan, "{\"time_per_step\": {\"total\": 2.0}, \"tokens_per_s\": 20000,"
                                      " \"mfu_model\": 0.4, \"memory\": {\"per_gpu_max\": 4.0e10},"
                                      " \"layout\": {\"dp\": 8, \"tp\": 1, \"pp\": 1, \"cp\": 1}}", -1, NULL));
  g_assert_true (g_file_set_contents (junk, "nothing here\n", -1, NULL));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-log", "s", log));
  while (napkin_training_page_get_n_runs (page) == before && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, before + 1);
  run = g_list_model_get_item (G_LIST_MODEL (page->runs), 0);
  g_object_unref (run);   /* the list keeps it */
  g_assert_nonnull (napkin_run_get_import (run));
  g_assert_cmpuint (napkin_run_get_import (run)->steps->len, ==, 3);
  g_assert_cmpstr (napkin_run_get_name (run), ==, "train.log");
  loss = napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS);
  g_assert_cmpuint (napkin_series_get_length (loss), ==, 3);
  g_assert_cmpfloat (napkin_series_get_y (loss, 2), ==, 10.75);
  g_assert_true (napkin_run_view_get_run (page->run_view) == run);
  g_assert_false (napkin_run_get_comparison (run, &comparison));
  {
    int min = 0;

    /* An imported run's view fits a 360 px phone inside the page's 18 px
     * margins (it was 329 px: the plan card's title beside its button). */
    gtk_widget_measure (GTK_WIDGET (page->run_view), GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
    g_assert_cmpint (min, <=, 360 - 2 * 18);
  }

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.compare-plan", "s", plan));
  g_assert_true (napkin_run_get_comparison (run, &comparison));
  /* tokens/s: the median of 3,000 and 3,200 per GPU, times the plan's 8 GPUs */
  g_assert_cmpfloat (comparison.measured[NK_IMPORT_Q_TOKENS_PER_S], ==, 3100.0 * 8);
  g_assert_cmpfloat (comparison.predicted[NK_IMPORT_Q_MFU], ==, 0.4);

  before = napkin_training_page_get_n_runs (page);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-log", "s", junk));
  waited = 0;
  while (napkin_training_page_get_last_toast (page) != NULL
         && g_str_has_prefix (napkin_training_page_get_last_toast (page), "Read ")
         && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  g_test_message ("junk: %s", napkin_training_page_get_last_toast (page));
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, before);
  g_assert_nonnull (strstr (napkin_training_page_get_last_toast (page), "torchtitan"));

  /* a 0-byte plan (it crashed the app) and /dev/null: a toast naming the file, and
   * the run keeps the comparison it had */
  {
    g_autofree char *said = g_strdup_printf ("The plan “%s” is empty: write one with “napkin-cli plan --json”.",
                                             empty_plan);

    g_assert_true (g_file_set_contents (empty_plan, "", 0, NULL));
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.compare-plan", "s", empty_plan));
    g_assert_cmpstr (napkin_training_page_get_last_toast (page), ==, said);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.compare-plan", "s", "/dev/null"));
    g_assert_cmpstr (napkin_training_page_get_last_toast (page), ==,
                     "“/dev/null” is not a regular file (it is a device).");
    g_assert_true (napkin_run_get_comparison (run, &comparison));
    g_assert_cmpfloat (comparison.predicted[NK_IMPORT_Q_MFU], ==, 0.4);
  }

  g_unlink (log);
  g_unlink (plan);
  g_unlink (junk);
  g_unlink (empty_plan);
  g_rmdir (dir);
  g_assert_finalize_object (page);
}

/* The buttons of @widget's tree that are on screen (they and their parents visible)
 * and run @action. */
static guint
count_shown_buttons (GtkWidget  *widget,
                     const char *action)
{
  guint n = 0;

  if (!gtk_widget_get_visible (widget))
    return 0;
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    n++;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += count_shown_buttons (child, action);
  return n;
}

/* An imported run offers Compare with a Plan… once, in its Plan and Measurement
 * card (the facts in the settings' place had a second one). */
static void
test_one_compare_plan_button (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-log-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  NapkinTrainingPage *page = new_page ();
  guint before = napkin_training_page_get_n_runs (page);
  guint64 waited = 0;

  g_assert_true (g_file_set_contents (log,
    "step:  1  loss: 12.2500  memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%\n"
    "step:  2  loss: 11.5000  memory: 42.00GiB(52.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%\n", -1, NULL));
  /* before: nothing imported, no button */
  g_assert_cmpuint (count_shown_buttons (GTK_WIDGET (page), "training.compare-plan"), ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-log", "s", log));
  while (napkin_training_page_get_n_runs (page) == before && waited++ < MAX_WAIT_ITERATIONS)
    g_main_context_iteration (NULL, TRUE);
  drain ();
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (page->facts)));
  g_assert_cmpuint (count_shown_buttons (GTK_WIDGET (page), "training.compare-plan"), ==, 1);
  g_unlink (log);
  g_rmdir (dir);
  g_assert_finalize_object (page);
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

  g_test_add_func ("/ui/training/runs/describe-models", test_describe_models);
  g_test_add_func ("/ui/training/runs/listed-newest-first", test_listed_newest_first);
  g_test_add_func ("/ui/training/runs/rename", test_rename);
  g_test_add_func ("/ui/training/runs/trash", test_trash);
  g_test_add_func ("/ui/training/runs/default-names", test_default_names);
  g_test_add_func ("/ui/training/runs/new-run-writes-folder", test_new_run_writes_folder);
  g_test_add_func ("/ui/training/runs/killed-run-resumes", test_killed_run_resumes);
  g_test_add_func ("/ui/training/runs/open-log", test_open_log);
  g_test_add_func ("/ui/training/runs/open-reads-on-thread", test_open_reads_on_thread);
  g_test_add_func ("/ui/training/runs/one-compare-plan-button", test_one_compare_plan_button);
  return g_test_run ();
}
