/* test-training-page.c: the Training page runs, pauses, stops and exports toy runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page is driven only through its actions and form inputs, as a person would.
 * Oracles: the step count asked for (every step must be plotted), the trainer's
 * own history (what the plots and exports must hold, value for value), and an
 * independent `napkin-cli train --json-lines` process on the same config, whose
 * losses and FLOPs must equal the page's export bit for bit (the run is a pure
 * function of its config and seed).
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "napkin-training-page.h"

/* Bounds the waits so a broken page fails instead of hanging; not a timing test. */
#define MAX_WAIT_ITERATIONS 600000

static NapkinTrainingPage *
new_page (void)
{
  NapkinTrainingPage *page = NAPKIN_TRAINING_PAGE (napkin_training_page_new ());

  g_object_ref_sink (page);
  return page;
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

static void
set_lr (NapkinTrainingPage *page,
        const char         *text)
{
  gtk_editable_set_text (GTK_EDITABLE (napkin_training_page_get_input (page, "lr")), text);
}

static void
small_cruncher (NapkinTrainingPage *page,
                double              steps)
{
  set_spin (page, "dim", 8);
  set_spin (page, "layers", 2);
  set_spin (page, "batch", 4);
  set_spin (page, "steps", steps);
  set_spin (page, "seed", 3);
  set_lr (page, "0.01");
}

static gboolean
run_done (NapkinTrainingPage *page,
          guint               index)
{
  NkTrainer *trainer = napkin_training_page_get_trainer (page, index);
  NkTrainerState state;

  if (trainer == NULL)
    return FALSE;
  state = nk_trainer_get_state (trainer);
  return !napkin_training_page_is_running (page)
         && (state == NK_TRAINER_STATE_FINISHED || state == NK_TRAINER_STATE_STOPPED
             || state == NK_TRAINER_STATE_FAILED);
}

/* Runs the main loop until @pred holds; the worker publishes through idles. */
static void
wait_until (gboolean (*pred) (NapkinTrainingPage *page, guint index),
            NapkinTrainingPage *page,
            guint               index)
{
  guint i;

  for (i = 0; i < MAX_WAIT_ITERATIONS && !pred (page, index); i++)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
  g_assert_true (pred (page, index));
  /* Let the finished callback's last idles run. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
steps_at_least_3 (NapkinTrainingPage *page,
                  guint               index)
{
  NkTrainer *trainer = napkin_training_page_get_trainer (page, index);

  return trainer != NULL && nk_trainer_get_steps_done (trainer) >= 3;
}

static gboolean
parked (NapkinTrainingPage *page,
        guint               index)
{
  NkTrainer *trainer = napkin_training_page_get_trainer (page, index);

  return nk_trainer_is_parked (trainer) && nk_trainer_get_state (trainer) == NK_TRAINER_STATE_PAUSED;
}

static guint64 resumed_from;

static gboolean
moved_on (NapkinTrainingPage *page,
          guint               index)
{
  return nk_trainer_get_steps_done (napkin_training_page_get_trainer (page, index)) > resumed_from;
}

static void
start (NapkinTrainingPage *page)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.start", NULL));
}

/* Every step of the history is in every plot, value for value. */
static void
assert_plots_match_history (NapkinTrainingPage *page,
                            NkTrainer          *trainer)
{
  g_autoptr(GArray) history = nk_trainer_get_history (trainer);
  NapkinSeries *loss = napkin_loss_plot_get_series (napkin_training_page_get_loss_plot (page));
  NapkinSeries *rate = napkin_throughput_plot_get_series (napkin_training_page_get_throughput_plot (page));
  NapkinMemoryPlot *memory = napkin_training_page_get_memory_plot (page);
  const NkBucket buckets[] = { NK_BUCKET_PARAMS, NK_BUCKET_GRADS, NK_BUCKET_OPTIMIZER,
                               NK_BUCKET_ACTIVATIONS, NK_BUCKET_DATA };

  g_assert_cmpuint (napkin_series_get_length (loss), ==, history->len);
  g_assert_cmpuint (napkin_series_get_length (rate), ==, history->len);
  for (guint i = 0; i < history->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);

      g_assert_cmpfloat (napkin_series_get_x (loss, i), ==, (double) m->step);
      g_assert_cmpfloat (napkin_series_get_y (loss, i), ==, m->loss);
      g_assert_cmpfloat (napkin_series_get_y (rate, i), ==, m->flops_per_s);
      for (guint b = 0; b < G_N_ELEMENTS (buckets); b++)
        g_assert_cmpfloat (napkin_series_get_y (napkin_memory_plot_get_series (memory, b), i),
                           ==, (double) m->memory[buckets[b]]);
    }
}

static char *
tmp_path (const char *dir,
          const char *name)
{
  return g_build_filename (dir, name, NULL);
}

/* ------------------------------------------------------------ runs */

static void
test_run_to_completion (void)
{
  NapkinTrainingPage *page = new_page ();
  NkTrainer *trainer;
  g_autoptr(GArray) history = NULL;
  const NkTrainMetrics *last;
  g_autofree char *loss_text = NULL;
  g_autofree char *summary = NULL;

  small_cruncher (page, 30);
  g_assert_null (napkin_training_page_get_form_error (page));
  /* the prediction card: D²L + DL + D + 1 = 64·2 + 8·2 + 8 + 1 parameters (seed 001) */
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "params"), ==, "153");

  start (page);
  wait_until (run_done, page, 0);

  trainer = napkin_training_page_get_trainer (page, 0);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FINISHED);
  history = nk_trainer_get_history (trainer);
  /* oracle: the 30 steps asked for, numbered 1..30 */
  g_assert_cmpuint (history->len, ==, 30);
  g_assert_cmpuint (g_array_index (history, NkTrainMetrics, 29).step, ==, 30);
  assert_plots_match_history (page, trainer);
  g_assert_cmpuint (nk_trainer_get_n_parameters (trainer), ==, 8 * 8 * 2 + 8 * 2 + 8 + 1);

  last = &g_array_index (history, NkTrainMetrics, history->len - 1);
  loss_text = g_strdup_printf ("%.6g", last->loss);
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "loss"), ==, loss_text);
  summary = napkin_training_page_dup_run_summary (page, 0);
  g_assert_nonnull (strstr (summary, loss_text));
  g_assert_nonnull (strstr (summary, "finished"));
  g_assert_nonnull (strstr (napkin_training_page_get_label_text (page, "progress"), "Step 30 of 30"));

  g_object_unref (page);
}

/* Spawns the CLI on the same config and returns its JSON objects. */
static GPtrArray *
cli_json_lines (const char *const *extra)
{
  const char *cli = g_getenv ("NAPKIN_CLI");
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  int status;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (char *) cli);
  for (const char *const *a = (const char *const[]) { "train", "--model", "cruncher", "--dim", "8",
                                                      "--layers", "2", "--batch", "4", "--steps", "30",
                                                      "--lr", "0.01", "--optimizer", "adamw",
                                                      "--seed", "3", "--json-lines", NULL }; *a; a++)
    g_ptr_array_add (argv, (char *) *a);
  for (; extra != NULL && *extra; extra++)
    g_ptr_array_add (argv, (char *) *extra);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      {
        JsonNode *node = json_from_string (lines[i], NULL);

        g_assert_nonnull (node);
        g_ptr_array_add (objects, node);
      }
  return objects;
}

static void
test_exports (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autofree char *dir = g_dir_make_tmp ("napkin-training-XXXXXX", NULL);
  g_autofree char *csv = tmp_path (dir, "run.csv");
  g_autofree char *jsonl = tmp_path (dir, "run.jsonl");
  g_autoptr(GArray) history = NULL;
  g_autoptr(GPtrArray) cli = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  small_cruncher (page, 30);
  start (page);
  wait_until (run_done, page, 0);
  history = nk_trainer_get_history (napkin_training_page_get_trainer (page, 0));

  /* CSV: a header and one row per step, losses exact */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.export-csv", "s", csv));
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "step,loss,flops,seconds,flops_per_s,peak_flops_per_s,mfu,device,"));
  for (guint i = 0; i < history->len; i++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[i + 1], ",", -1);
      const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);

      g_assert_cmpuint (g_ascii_strtoull (cells[0], NULL, 10), ==, m->step);
      g_assert_cmpfloat (g_ascii_strtod (cells[1], NULL), ==, m->loss);
      g_assert_cmpuint (g_ascii_strtoull (cells[2], NULL, 10), ==, m->flops);
      g_assert_cmpstr (cells[7], ==, "cpu");
      g_assert_cmpuint (g_ascii_strtoull (cells[8], NULL, 10), ==, m->memory[NK_BUCKET_PARAMS]);
    }
  g_assert_cmpstr (lines[history->len + 1], ==, "");

  /* JSON Lines: the CLI's fields, and the CLI's losses and FLOPs for this config */
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&lines, g_strfreev);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.export-jsonl", "s", jsonl));
  g_assert_true (g_file_get_contents (jsonl, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  cli = cli_json_lines (NULL);
  g_assert_cmpuint (cli->len, ==, history->len + 1);
  for (guint i = 0; i <= history->len; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (lines[i], NULL);
      JsonObject *ours, *theirs = json_node_get_object (g_ptr_array_index (cli, i));
      g_autoptr(GList) members = json_object_get_members (theirs);

      g_assert_nonnull (node);
      ours = json_node_get_object (node);
      /* every field the CLI prints is there */
      for (GList *l = members; l != NULL; l = l->next)
        g_assert_true (json_object_has_member (ours, l->data));
      if (i == history->len)
        {
          const NkTrainMetrics *last = &g_array_index (history, NkTrainMetrics, i - 1);

          g_assert_true (json_object_get_boolean_member (ours, "done"));
          g_assert_cmpint (json_object_get_int_member (ours, "steps"), ==, 30);
          g_assert_cmpfloat (json_object_get_double_member (ours, "final_loss"), ==, last->loss);
          g_assert_cmpfloat (json_object_get_double_member (theirs, "final_loss"), ==, last->loss);
          continue;
        }
      {
        const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);
        JsonObject *memory = json_object_get_object_member (ours, "memory");

        g_assert_cmpint (json_object_get_int_member (ours, "step"), ==, (gint64) m->step);
        g_assert_cmpfloat (json_object_get_double_member (ours, "loss"), ==, m->loss);
        g_assert_cmpint (json_object_get_int_member (ours, "flops"), ==, (gint64) m->flops);
        g_assert_cmpint (json_object_get_int_member (memory, "optimizer"), ==,
                         (gint64) m->memory[NK_BUCKET_OPTIMIZER]);
        /* the independent process */
        g_assert_cmpfloat (json_object_get_double_member (theirs, "loss"), ==, m->loss);
        g_assert_cmpint (json_object_get_int_member (theirs, "flops"), ==, (gint64) m->flops);
        g_assert_cmpstr (json_object_get_string_member (theirs, "device"), ==,
                         json_object_get_string_member (ours, "device"));
      }
    }

  /* each plot as PNG (the size asked for) and SVG */
  for (const char *const *kind = (const char *const[]) { "loss", "memory", "throughput", NULL }; *kind; kind++)
    {
      g_autofree char *png = g_strdup_printf ("%s/%s.png", dir, *kind);
      g_autofree char *svg = g_strdup_printf ("%s/%s.svg", dir, *kind);
      g_autofree char *target_png = g_strdup_printf ("%s:%s", *kind, png);
      g_autofree char *target_svg = g_strdup_printf ("%s:%s", *kind, svg);
      g_autofree char *svg_text = NULL;
      cairo_surface_t *image;

      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.export-plot", "s", target_png));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.export-plot", "s", target_svg));
      image = cairo_image_surface_create_from_png (png);
      g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
      g_assert_cmpint (cairo_image_surface_get_width (image), ==, 960);
      g_assert_cmpint (cairo_image_surface_get_height (image), ==, 420);
      cairo_surface_destroy (image);
      g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
      g_assert_nonnull (strstr (svg_text, "<svg"));
      g_remove (png);
      g_remove (svg);
    }

  g_remove (csv);
  g_remove (jsonl);
  g_rmdir (dir);
  g_object_unref (page);
}

static void
test_pause_resume_stop (void)
{
  NapkinTrainingPage *page = new_page ();
  NkTrainer *trainer;
  guint64 at_pause;

  small_cruncher (page, 1000000);
  start (page);
  g_assert_true (napkin_training_page_is_running (page));
  wait_until (steps_at_least_3, page, 0);
  trainer = napkin_training_page_get_trainer (page, 0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.pause", NULL));
  wait_until (parked, page, 0);
  at_pause = nk_trainer_get_steps_done (trainer);
  /* a parked worker does no step, however long the main loop runs */
  for (guint i = 0; i < 20; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
  g_assert_cmpuint (nk_trainer_get_steps_done (trainer), ==, at_pause);
  g_assert_true (napkin_training_page_is_running (page));
  g_assert_nonnull (strstr (napkin_training_page_get_label_text (page, "progress"), "paused"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.resume", NULL));
  resumed_from = at_pause;
  wait_until (moved_on, page, 0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.stop", NULL));
  wait_until (run_done, page, 0);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_cmpuint (nk_trainer_get_steps_done (trainer), <, 1000000);
  g_assert_false (napkin_training_page_is_running (page));
  /* every step that ran is plotted */
  g_assert_cmpuint (napkin_series_get_length (napkin_loss_plot_get_series (napkin_training_page_get_loss_plot (page))),
                    ==, nk_trainer_get_steps_done (trainer));
  assert_plots_match_history (page, trainer);

  g_object_unref (page);
}

/* ------------------------------------------------------------ faults */

static void
test_form_errors (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autoptr(NkTrainConfig) config = NULL;

  small_cruncher (page, 5);
  for (const char *const *bad = (const char *const[]) { "abc", "-0.1", "0", "", NULL }; *bad; bad++)
    {
      set_lr (page, *bad);
      g_assert_nonnull (napkin_training_page_get_form_error (page));
      g_assert_true (gtk_widget_has_css_class (napkin_training_page_get_input (page, "lr"), "error"));
      /* Start is disabled: nothing happens */
      gtk_widget_activate_action (GTK_WIDGET (page), "training.start", NULL);
      g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 0);
    }
  set_lr (page, "1e-3");
  g_assert_null (napkin_training_page_get_form_error (page));
  g_assert_false (gtk_widget_has_css_class (napkin_training_page_get_input (page, "lr"), "error"));
  config = napkin_training_page_dup_config (page, NULL);
  g_assert_nonnull (config);
  g_assert_cmpfloat (config->lr, ==, 1e-3);
  g_assert_cmpuint (config->steps, ==, 5);
  g_assert_cmpuint (config->dim, ==, 8);

  g_object_unref (page);
}

/* A diverging run stops with the trainer's message and keeps what was plotted. */
static void
test_diverged_run (void)
{
  NapkinTrainingPage *page = new_page ();
  NkTrainer *trainer;

  small_cruncher (page, 2000);
  set_lr (page, "1e6");
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_training_page_get_input (page, "optimizer")), 0);
  start (page);
  wait_until (run_done, page, 0);
  trainer = napkin_training_page_get_trainer (page, 0);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FAILED);
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "status"), !=, "");
  assert_plots_match_history (page, trainer);
  g_assert_cmpuint (napkin_series_get_length (napkin_loss_plot_get_series (napkin_training_page_get_loss_plot (page))),
                    >, 0);
  g_object_unref (page);
}

/* A text file that does not exist fails the run with a sentence naming it. */
static void
test_bad_text_file (void)
{
  NapkinTrainingPage *page = new_page ();

  small_cruncher (page, 5);
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_training_page_get_input (page, "model")), 1);
  napkin_training_page_set_text_file (page, "/nonexistent/napkin-tokens.txt");
  start (page);
  wait_until (run_done, page, 0);
  g_assert_cmpint (nk_trainer_get_state (napkin_training_page_get_trainer (page, 0)), ==,
                   NK_TRAINER_STATE_FAILED);
  g_assert_nonnull (strstr (napkin_training_page_get_label_text (page, "status"), "napkin-tokens.txt"));
  g_object_unref (page);
}

/* The lecture's comparison: lr 0.01 against lr 0.1 on the same axes. */
static void
test_compare_runs (void)
{
  NapkinTrainingPage *page = new_page ();
  NapkinSeries *compare;
  g_autoptr(GArray) first = NULL;

  small_cruncher (page, 20);
  start (page);
  wait_until (run_done, page, 0);
  set_lr (page, "0.1");
  start (page);
  wait_until (run_done, page, 1);
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 2);
  g_assert_true (napkin_training_page_get_shown_trainer (page) == napkin_training_page_get_trainer (page, 1));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.compare-run", "i", 0));
  compare = napkin_loss_plot_get_compare (napkin_training_page_get_loss_plot (page));
  g_assert_nonnull (compare);
  first = nk_trainer_get_history (napkin_training_page_get_trainer (page, 0));
  g_assert_cmpuint (napkin_series_get_length (compare), ==, first->len);
  for (guint i = 0; i < first->len; i++)
    g_assert_cmpfloat (napkin_series_get_y (compare, i), ==, g_array_index (first, NkTrainMetrics, i).loss);

  /* re-opening the first run puts its steps back in the plots */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.open-run", "u", 0));
  g_assert_true (napkin_training_page_get_shown_trainer (page) == napkin_training_page_get_trainer (page, 0));
  assert_plots_match_history (page, napkin_training_page_get_trainer (page, 0));
  g_object_unref (page);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/training/run-to-completion", test_run_to_completion);
  g_test_add_func ("/ui/training/exports", test_exports);
  g_test_add_func ("/ui/training/pause-resume-stop", test_pause_resume_stop);
  g_test_add_func ("/ui/training/form-errors", test_form_errors);
  g_test_add_func ("/ui/training/diverged", test_diverged_run);
  g_test_add_func ("/ui/training/bad-text-file", test_bad_text_file);
  g_test_add_func ("/ui/training/compare", test_compare_runs);

  return g_test_run ();
}
