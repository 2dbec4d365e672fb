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

#include <locale.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "nk-test-util.h"
#include "nk-test-ui-util.h"
#include "nk-checkpoint.h"
#include "nk-units.h"
#include "napkin-training-page-private.h"
#include "nk-blas.h"

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

/* Every step the run did is in every plot, and the steps the trainer's hand-over
 * ring still holds (its last 10000) are there value for value. */
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
  guint64 first = nk_trainer_get_start_step (trainer) + 1;
  guint64 done = nk_trainer_get_steps_done (trainer);

  g_assert_cmpuint (napkin_series_get_length (loss), ==, done - first + 1);
  g_assert_cmpuint (napkin_series_get_length (rate), ==, done - first + 1);
  g_assert_cmpuint (history->len, >, 0);
  g_assert_cmpuint (g_array_index (history, NkTrainMetrics, history->len - 1).step, ==, done);
  for (guint i = 0; i < history->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);
      guint k = (guint) (m->step - first);

      g_assert_cmpfloat (napkin_series_get_x (loss, k), ==, (double) m->step);
      g_assert_cmpfloat (napkin_series_get_y (loss, k), ==, m->loss);
      g_assert_cmpfloat (napkin_series_get_y (rate, k), ==, m->flops_per_s);
      for (guint b = 0; b < G_N_ELEMENTS (buckets); b++)
        g_assert_cmpfloat (napkin_series_get_y (napkin_memory_plot_get_series (memory, b), k),
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

  g_assert_finalize_object (page);
}

/* Spawns the CLI on the same config and returns its JSON objects. */
static GPtrArray *
cli_json_lines (const char *const *extra)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_auto(NkTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (const char *const *a = (const char *const[]) { "--model", "cruncher", "--dim", "8",
                                                      "--layers", "2", "--batch", "4", "--steps", "30",
                                                      "--lr", "0.01", "--optimizer", "adamw",
                                                      "--seed", "3", "--json-lines", NULL }; *a; a++)
    g_ptr_array_add (args, (char *) *a);
  for (; extra != NULL && *extra; extra++)
    g_ptr_array_add (args, (char *) *extra);
  g_ptr_array_add (args, NULL);
  /* A real fork while the page's matmul-rate measurement may be running: Debian's
   * OpenBLAS 0.3.21 would hang in its fork handler without nk_blas_lock. (GSubprocess
   * forks: it leaves posix_spawn() to callers that keep every descriptor open.) */
  g_assert_true (nk_test_run_cli (&run, "train", (const char *const *) args->pdata, NULL, 0));
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
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
  g_assert_finalize_object (page);
}

/* A run longer than the trainer's hand-over ring (10000 steps) is kept whole by
 * the page, once: every step in the plots and in the export. Oracle: the steps
 * asked for, numbered 1..N, and the ring's own copy of the last 10000. */
static void
test_long_run_kept (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autofree char *dir = g_dir_make_tmp ("napkin-training-long-XXXXXX", NULL);
  g_autofree char *csv = tmp_path (dir, "run.csv");
  g_autoptr(GArray) ring = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  const guint steps = 12000;

  small_cruncher (page, steps);
  start (page);
  wait_until (run_done, page, 0);
  ring = nk_trainer_get_history (napkin_training_page_get_trainer (page, 0));
  g_assert_cmpuint (ring->len, ==, 10000);
  assert_plots_match_history (page, napkin_training_page_get_trainer (page, 0));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.export-csv", "s", csv));
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, steps + 2);
  for (guint i = 0; i < steps; i++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[i + 1], ",", 3);

      g_assert_cmpuint (g_ascii_strtoull (cells[0], NULL, 10), ==, i + 1);
      if (i >= steps - ring->len)
        g_assert_cmpfloat (g_ascii_strtod (cells[1], NULL), ==,
                           g_array_index (ring, NkTrainMetrics, i - (steps - ring->len)).loss);
    }
  g_test_message ("the page keeps %.1f bytes per step",
                  (double) napkin_training_page_get_memory_size (page) / steps);

  g_remove (csv);
  g_rmdir (dir);
  g_assert_finalize_object (page);
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

  g_assert_finalize_object (page);
}

/* ------------------------------------------------------------ settings */

/* The form is kept in typed settings keys: a new page on the same settings shows
 * what the last one was given, and the keys hold the typed values. Oracle: the
 * values set, read back through GSettings and through a second page. */
static void
test_settings_kept (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.napkinml.Napkin");
  NapkinTrainingPage *page = new_page ();
  g_autoptr(NkTrainConfig) config = NULL;
  g_autofree char *lr = NULL;
  g_autofree char *optimizer = NULL;

  napkin_training_page_set_settings (page, settings);
  small_cruncher (page, 77);
  set_lr (page, "3e-3");
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_training_page_get_input (page, "optimizer")), 1);
  napkin_training_page_set_checkpoint_dir (page, "/tmp/napkin-kept");
  g_assert_cmpint (g_settings_get_int (settings, "training-steps"), ==, 77);
  g_assert_cmpint (g_settings_get_int (settings, "training-dim"), ==, 8);
  lr = g_settings_get_string (settings, "training-lr");
  g_assert_cmpstr (lr, ==, "3e-3");
  optimizer = g_settings_get_string (settings, "training-optimizer");
  g_assert_cmpstr (optimizer, ==, "momentum");
  g_assert_finalize_object (page);

  page = new_page ();
  napkin_training_page_set_settings (page, settings);
  config = napkin_training_page_dup_config (page, NULL);
  g_assert_nonnull (config);
  g_assert_cmpuint (config->steps, ==, 77);
  g_assert_cmpuint (config->dim, ==, 8);
  g_assert_cmpuint (config->seed, ==, 3);
  g_assert_cmpfloat (config->lr, ==, 3e-3);
  g_assert_cmpint (config->optimizer, ==, NK_OPTIMIZER_MOMENTUM);
  g_assert_cmpstr (config->checkpoint_dir, ==, "/tmp/napkin-kept");
  /* no checkpoints again: kept as the empty string */
  napkin_training_page_set_checkpoint_dir (page, NULL);
  g_clear_pointer (&lr, g_free);
  lr = g_settings_get_string (settings, "training-checkpoint-dir");
  g_assert_cmpstr (lr, ==, "");
  g_assert_finalize_object (page);
  g_settings_reset (settings, "training-steps");
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

  g_assert_finalize_object (page);
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
  g_assert_finalize_object (page);
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
  g_assert_finalize_object (page);
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
  g_assert_finalize_object (page);
}

/* The x-axis control: the drop-down of the five axes; choosing tokens puts a finished
 * Cruncher run's loss at B = 4 samples a step (the oracle: 4 × step, and the loss
 * the trainer's history has at that step). */
static GtkDropDown *
find_x_axis_control (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkDropDown *found;

      if (GTK_IS_DROP_DOWN (child)
          && g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (child))) == NAPKIN_N_X_AXES
          && g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (GTK_DROP_DOWN (child))), 0),
                        "Step") == 0)
        return GTK_DROP_DOWN (child);
      if ((found = find_x_axis_control (child)) != NULL)
        return found;
    }
  return NULL;
}

static void
test_x_axis_control (void)
{
  NapkinTrainingPage *page = new_page ();
  NapkinLossPlot *plot = napkin_training_page_get_loss_plot (page);
  GtkDropDown *control = find_x_axis_control (GTK_WIDGET (page));
  g_autoptr(GArray) history = NULL;
  g_autofree char *readout = NULL;
  g_autofree char *expected = NULL;
  double loss_at_5;

  g_assert_nonnull (control);
  g_assert_true (gtk_widget_get_focusable (GTK_WIDGET (control)) || gtk_widget_get_first_child (GTK_WIDGET (control)) != NULL);
  small_cruncher (page, 20);
  start (page);
  wait_until (run_done, page, 0);
  history = nk_trainer_get_history (napkin_training_page_get_trainer (page, 0));
  g_assert_cmpuint (history->len, ==, 20);
  loss_at_5 = g_array_index (history, NkTrainMetrics, 4).loss;

  gtk_drop_down_set_selected (control, NAPKIN_X_AXIS_TOKENS);
  g_assert_cmpint (napkin_loss_plot_get_x_axis (plot), ==, NAPKIN_X_AXIS_TOKENS);
  readout = napkin_loss_plot_dup_readout (plot, 4 * 5);
  expected = g_strdup_printf ("Tokens seen 20: loss %.6g", loss_at_5);
  g_assert_cmpstr (readout, ==, expected);
  gtk_drop_down_set_selected (control, NAPKIN_X_AXIS_STEP);
  g_assert_cmpint (napkin_loss_plot_get_x_axis (plot), ==, NAPKIN_X_AXIS_STEP);
  g_assert_finalize_object (page);
}

/* ------------------------------------------------------------ prediction */

/* The card's time is the engine's prediction at the measured matmul rate: 6 · N · B
 * FLOPs (N by the Cruncher's formula, D²L + DL + D + 1) over the rate measured. */
static gboolean
rate_measured (NapkinTrainingPage *page,
               guint               index)
{
  double rate;

  return nk_train_gemm_rate_peek ("cpu", &rate, NULL)
         && g_strcmp0 (napkin_training_page_get_label_text (page, "time"), "—") != 0;
}

static void
test_prediction_time (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autofree char *expected = NULL;
  double rate;

  small_cruncher (page, 30);
  wait_until (rate_measured, page, 0);
  g_assert_true (nk_train_gemm_rate_peek ("cpu", &rate, NULL));
  g_assert_true (rate > 0);
  expected = nk_units_format_duration (6.0 * (8 * 8 * 2 + 8 * 2 + 8 + 1) * 4 / rate);
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "time"), ==, expected);
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "params"), ==, "153");
  g_assert_finalize_object (page);
}

/* ------------------------------------------------------------ checkpoints */

typedef struct {
  guint   n;
  guint64 step;
  char   *path;
} Written;

static void
on_written (NkTrainer  *trainer,
            guint64     step,
            const char *path,
            Written    *w)
{
  w->n++;
  w->step = step;
  g_free (w->path);
  w->path = g_strdup (path);
}

static Written written;

static gboolean
checkpoint_seen (NapkinTrainingPage *page,
                 guint               index)
{
  return written.n > 0;
}

static guint64 wanted_steps;

static gboolean
steps_at_least (NapkinTrainingPage *page,
                guint               index)
{
  NkTrainer *trainer = napkin_training_page_get_trainer (page, index);

  return trainer != NULL && nk_trainer_get_steps_done (trainer) >= wanted_steps;
}

/* Checkpoint now through the page writes a checkpoint the trainer announces; a run
 * resumed from that folder through the page goes on from its step, with the very
 * losses the first run had after it (the run is a pure function of seed and step). */
static void
test_checkpoint_and_resume (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autofree char *dir = g_dir_make_tmp ("napkin-training-ck-XXXXXX", NULL);
  NkTrainer *first, *second;
  NkTrainHistory *first_history, *second_history;
  g_autofree char *label = NULL;
  guint64 ck_step, start_step;

  small_cruncher (page, 1000000);
  napkin_training_page_set_checkpoint_dir (page, dir);
  start (page);
  first = napkin_training_page_get_trainer (page, 0);
  memset (&written, 0, sizeof written);
  g_signal_connect (first, "checkpoint-written", G_CALLBACK (on_written), &written);
  wait_until (steps_at_least_3, page, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.checkpoint-now", NULL));
  wait_until (checkpoint_seen, page, 0);
  ck_step = written.step;
  g_assert_cmpuint (ck_step, >=, 3);
  /* the file nk-checkpoint names for that step, and the page says so */
  {
    g_autofree char *expected = nk_checkpoint_path_for_step (dir, ck_step);

    g_assert_cmpstr (written.path, ==, expected);
    g_assert_true (g_file_test (expected, G_FILE_TEST_IS_REGULAR));
  }
  label = g_strdup_printf ("Last checkpoint after step %" G_GUINT64_FORMAT, ck_step);
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "checkpoint"), ==, label);

  /* let the first run go a few steps past its checkpoint, then stop it */
  wanted_steps = ck_step + 4;
  wait_until (steps_at_least, page, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.stop", NULL));
  wait_until (run_done, page, 0);
  g_assert_cmpuint (written.n, ==, 1);
  /* The run's whole history, not the trainer's ring: on a fast machine the run goes
   * thousands of steps past the checkpoint before the stop lands, past the ring's
   * 10,000 steps. */
  first_history = napkin_run_get_history (_napkin_training_page_get_run (page, 0));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.resume-from-checkpoint", "s", dir));
  g_assert_cmpuint (napkin_training_page_get_n_runs (page), ==, 2);
  second = napkin_training_page_get_trainer (page, 1);
  wanted_steps = ck_step + 3;
  wait_until (steps_at_least, page, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.stop", NULL));
  wait_until (run_done, page, 1);

  start_step = nk_trainer_get_start_step (second);
  g_assert_cmpuint (start_step, ==, ck_step);
  /* the run's whole history again: the trainer's ring may have dropped the first
   * steps by the time the stop lands on a loaded machine */
  second_history = napkin_run_get_history (_napkin_training_page_get_run (page, 1));
  g_assert_cmpuint (nk_train_history_get_n (second_history), >=, 3);
  for (guint i = 0; i < 3; i++)
    {
      NkTrainMetrics second_step, first_step;
      const NkTrainMetrics *m = &second_step;
      const NkTrainMetrics *o = &first_step;

      nk_train_history_get (second_history, i, &second_step);

      g_assert_cmpuint (nk_train_history_get_n (first_history), >, ck_step + i);
      nk_train_history_get (first_history, ck_step + i, &first_step);

      /* the step count continues, and so does the run */
      g_assert_cmpuint (m->step, ==, ck_step + 1 + i);
      g_assert_cmpuint (o->step, ==, m->step);
      g_assert_cmpfloat (m->loss, ==, o->loss);
    }
  assert_plots_match_history (page, second);

  g_free (written.path);
  memset (&written, 0, sizeof written);
  nk_test_remove_tree (dir);
  g_assert_finalize_object (page);
}

/* ------------------------------------------------------------ closing */

static AdwMessageDialog *
find_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  AdwMessageDialog *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w))
        found = ADW_MESSAGE_DIALOG (w);
    }
  return found;
}

static gboolean
stopped (NapkinTrainingPage *page,
         guint               index)
{
  return run_done (page, index);
}

/* Closing during a run asks; "Keep Training" keeps it going, "Stop and Close" stops
 * it, writes a checkpoint first (there is a folder), and closes the window once the
 * run has ended. */
static void
test_close_during_run (void)
{
  NapkinTrainingPage *page = new_page ();
  g_autofree char *dir = g_dir_make_tmp ("napkin-training-close-XXXXXX", NULL);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *window_alive = window;
  AdwMessageDialog *dialog;
  NkTrainer *trainer;
  g_autoptr(GPtrArray) files = NULL;

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window_alive);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  small_cruncher (page, 1000000);
  napkin_training_page_set_checkpoint_dir (page, dir);
  start (page);
  trainer = napkin_training_page_get_trainer (page, 0);
  memset (&written, 0, sizeof written);
  g_signal_connect (trainer, "checkpoint-written", G_CALLBACK (on_written), &written);
  wait_until (steps_at_least_3, page, 0);
  g_assert_true (napkin_training_page_is_running (page));

  napkin_training_page_confirm_close (page, GTK_WINDOW (window));
  dialog = find_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "cancel");
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (napkin_training_page_is_running (page));
  g_assert_nonnull (window_alive);
  g_assert_cmpuint (written.n, ==, 0);

  napkin_training_page_confirm_close (page, GTK_WINDOW (window));
  dialog = find_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "stop");
  wait_until (stopped, page, 0);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_false (napkin_training_page_is_running (page));
  /* the checkpoint holds the last step that ran */
  g_assert_cmpuint (written.n, ==, 1);
  g_assert_cmpuint (written.step, ==, nk_trainer_get_steps_done (trainer));
  files = nk_checkpoint_list (dir, NULL);
  g_assert_cmpuint (files->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (files, 0), ==, written.path);
  g_assert_null (window_alive);

  g_free (written.path);
  memset (&written, 0, sizeof written);
  nk_test_remove_tree (dir);
  g_assert_finalize_object (page);
}

/* ------------------------------------------------------------ mixed precision */

static void
export_and_check (NapkinTrainingPage *page,
                  const char         *kind)
{
  const char *keep = g_getenv ("NAPKIN_TEST_EXPORT_DIR");
  g_autofree char *dir = keep != NULL ? g_strdup (keep) : g_dir_make_tmp ("napkin-export-XXXXXX", NULL);
  g_autofree char *png = g_strdup_printf ("%s/%s.png", dir, kind);
  g_autofree char *target = g_strdup_printf ("%s:%s", kind, png);
  cairo_surface_t *image;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.export-plot", "s", target));
  image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, 960);
  cairo_surface_destroy (image);
  if (keep == NULL)
    {
      g_remove (png);
      g_rmdir (dir);
    }
}

/* An fp16 run through the page: the label's skipped count and the scale plot agree
 * with a brute-force count over the trainer's history; the histogram shown is the
 * trainer's latest, of the last weight's gradient by default. */
static void
test_fp16_run (void)
{
  NapkinTrainingPage *page = new_page ();
  NkTrainer *trainer;
  g_autoptr(GArray) history = NULL;
  g_autofree char *scale_text = NULL;
  NapkinScalePlot *scale_plot;
  const NkTrainHistogram *shown;
  NkTrainHistogram h;
  guint64 skipped = 0;

  small_cruncher (page, 30);
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_training_page_get_input (page, "precision")), 2);
  start (page);
  wait_until (run_done, page, 0);
  trainer = napkin_training_page_get_trainer (page, 0);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FINISHED);
  history = nk_trainer_get_history (trainer);
  for (guint i = 0; i < history->len; i++)
    skipped += g_array_index (history, NkTrainMetrics, i).skipped;
  /* the synthetic task's loss times 65536 overflows fp16 at first */
  g_assert_cmpuint (skipped, >, 0);
  scale_text = g_strdup_printf ("%g · %" G_GUINT64_FORMAT " skipped",
                                g_array_index (history, NkTrainMetrics, history->len - 1).loss_scale,
                                skipped);
  g_assert_cmpstr (napkin_training_page_get_label_text (page, "scale"), ==, scale_text);
  g_assert_cmpuint (nk_trainer_get_skipped_steps (trainer), ==, skipped);

  scale_plot = napkin_training_page_get_scale_plot (page);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (scale_plot)))));
  g_assert_cmpuint (napkin_series_get_length (napkin_scale_plot_get_series (scale_plot)), ==, history->len);
  g_assert_cmpuint (napkin_series_get_length (napkin_scale_plot_get_skipped (scale_plot)), ==, skipped);
  for (guint i = 0; i < history->len; i++)
    g_assert_cmpfloat (napkin_series_get_y (napkin_scale_plot_get_series (scale_plot), i), ==,
                       g_array_index (history, NkTrainMetrics, i).loss_scale);

  g_assert_true (nk_trainer_get_histogram (trainer, &h));
  shown = napkin_histogram_plot_get_histogram (napkin_training_page_get_histogram_plot (page));
  g_assert_nonnull (shown);
  g_assert_true (memcmp (shown, &h, sizeof h) == 0);
  g_assert_cmpuint (h.step, ==, 30);
  g_assert_cmpstr (h.name, ==, "final.weight");
  g_assert_true (h.gradient);
  g_assert_cmpuint (h.total, ==, 8);
  export_and_check (page, "scale");
  export_and_check (page, "histogram");
  g_assert_finalize_object (page);
}

static gboolean
histogram_of_values (NapkinTrainingPage *page,
                     guint               index)
{
  const NkTrainHistogram *h = napkin_histogram_plot_get_histogram (napkin_training_page_get_histogram_plot (page));

  return h != NULL && g_str_equal (h->name, "layers.0.weight") && !h->gradient;
}

/* Choosing another tensor during a run: the worker's next histogram is of it. */
static void
test_histogram_choice (void)
{
  NapkinTrainingPage *page = new_page ();
  GtkDropDown *source = NULL;
  GListModel *items;
  const NkTrainHistogram *h;

  small_cruncher (page, 1000000);
  start (page);
  wait_until (steps_at_least_3, page, 0);
  /* the drop-down's rows: 6 gradients, then 6 value tensors, state_dict order */
  for (GtkWidget *w = GTK_WIDGET (napkin_training_page_get_histogram_plot (page)); w != NULL; w = gtk_widget_get_parent (w))
    for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL && source == NULL; c = gtk_widget_get_next_sibling (c))
      for (GtkWidget *d = gtk_widget_get_first_child (c); d != NULL && source == NULL; d = gtk_widget_get_next_sibling (d))
        if (GTK_IS_DROP_DOWN (d))
          source = GTK_DROP_DOWN (d);
  g_assert_nonnull (source);
  items = gtk_drop_down_get_model (source);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 12);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 6), ==, "Values of layers.0.weight");
  gtk_drop_down_set_selected (source, 6);
  wait_until (histogram_of_values, page, 0);
  h = napkin_histogram_plot_get_histogram (napkin_training_page_get_histogram_plot (page));
  g_assert_cmpuint (h->total, ==, 64);
  /* truncated-normal weights: none zero, none beyond fp16's range */
  g_assert_cmpuint (h->zeros + h->nonfinite + h->overflow[NK_TRAIN_HISTOGRAM_F16], ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.stop", NULL));
  wait_until (run_done, page, 0);
  g_assert_finalize_object (page);
}

/* ------------------------------------------------------------ layout */

static gboolean
folded_state_known (NapkinTrainingPage *page,
                    guint               index)
{
  return gtk_widget_get_width (GTK_WIDGET (page)) > 0;
}

/* At 800 px the page fits without sideways scrolling: its minimum width fits, the
 * form folds away behind the Run Settings button; at 1280 px both are side by side. */
static void
test_narrow_window (void)
{
  /* The leaflet folds where the form (360 px) and the run view's minimum (its
   * header wraps on a phone: about 350 px) no longer fit side by side. */
  const int widths[] = { 600, 900, 1280 };

  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      NapkinTrainingPage *page = new_page ();
      GtkWidget *window = gtk_window_new ();
      int min = 0, nat = 0;

      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 700);
      gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
      gtk_widget_measure (GTK_WIDGET (page), GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
      g_test_message ("page minimum width %d", min);
      g_assert_cmpint (min, <=, widths[i]);
      gtk_window_present (GTK_WINDOW (window));
      wait_until (folded_state_known, page, 0);
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (page)), <=, widths[i]);
      g_assert_true (adw_leaflet_get_folded (napkin_training_page_get_leaflet (page)) == (widths[i] < 700));
      gtk_window_destroy (GTK_WINDOW (window));
      g_assert_finalize_object (page);
    }
}

/* The row whose tooltip is @tooltip, depth first. */
static AdwActionRow *
find_row_with_tooltip (GtkWidget  *widget,
                       const char *tooltip)
{
  if (ADW_IS_ACTION_ROW (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return ADW_ACTION_ROW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      AdwActionRow *found = find_row_with_tooltip (child, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The GPU switch says what CUDA's own words mean for the person, and keeps the
 * words in its tooltip. Oracle: CUDA's sentence for a missing driver, as
 * nk-cuda-device.c passes it on, and the module loader's for missing libraries. */
static void
test_cuda_reason (void)
{
  static const struct {
    const char *raw;
    const char *says;
  } cases[] = {
    { "CUDA driver version is insufficient for CUDA runtime version", "NVIDIA driver" },
    { "libcudart.so.13: cannot open shared object file: No such file or directory", "CUDA libraries" },
    { "no CUDA-capable device is detected", "no NVIDIA GPU" },
    /* as nk_device_lookup() words the reason of a build without the module */
    { "no CUDA device: this build has no CUDA module", "no GPU support" },
  };
  NapkinRunForm *form = g_object_ref_sink (NAPKIN_RUN_FORM (napkin_run_form_new ()));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      AdwActionRow *row;
      const char *subtitle;

      napkin_run_form_set_cuda (form, FALSE, cases[i].raw);
      row = find_row_with_tooltip (GTK_WIDGET (form), cases[i].raw);
      g_assert_nonnull (row);
      subtitle = adw_action_row_get_subtitle (row);
      g_test_message ("%s → %s", cases[i].raw, subtitle);
      g_assert_null (strstr (subtitle, cases[i].raw));
      g_assert_nonnull (strstr (subtitle, cases[i].says));
    }
  g_assert_finalize_object (form);
}

int
main (int   argc,
      char *argv[])
{
  /* The CLI this test compares against bit for bit runs on the kernels the app
   * runs on: the same choice here. */
  nk_blas_reexec_if_kernels_weak (argv);
  /* Each test gets its own empty $XDG_DATA_HOME, so the page lists only the runs
   * (run folders) that test starts. gtk_test_init() passes no options on to
   * g_test_init(); the rest is what it does. */
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "en_US.UTF-8");
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/training/run-to-completion", test_run_to_completion);
  g_test_add_func ("/ui/training/exports", test_exports);
  g_test_add_func ("/ui/training/long-run-kept", test_long_run_kept);
  g_test_add_func ("/ui/training/pause-resume-stop", test_pause_resume_stop);
  g_test_add_func ("/ui/training/form-errors", test_form_errors);
  g_test_add_func ("/ui/training/settings-kept", test_settings_kept);
  g_test_add_func ("/ui/training/diverged", test_diverged_run);
  g_test_add_func ("/ui/training/bad-text-file", test_bad_text_file);
  g_test_add_func ("/ui/training/compare", test_compare_runs);
  g_test_add_func ("/ui/training/x-axis-control", test_x_axis_control);
  g_test_add_func ("/ui/training/prediction-time", test_prediction_time);
  g_test_add_func ("/ui/training/checkpoint-and-resume", test_checkpoint_and_resume);
  g_test_add_func ("/ui/training/close-during-run", test_close_during_run);
  g_test_add_func ("/ui/training/fp16-run", test_fp16_run);
  g_test_add_func ("/ui/training/histogram-choice", test_histogram_choice);
  g_test_add_func ("/ui/training/narrow-window", test_narrow_window);
  g_test_add_func ("/ui/training/cuda-reason", test_cuda_reason);

  return g_test_run ();
}
