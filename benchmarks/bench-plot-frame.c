/* bench-plot-frame.c: one frame of the three training plots with 1,000,000 steps
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fills the loss (plus a compared run), memory and throughput plots with N steps
 * each, then draws all three into cairo image surfaces of the sizes the page
 * gives them in a 1280×1000 window, and prints the median milliseconds per frame
 * (the target is under 8 ms). The reference, measured in the same run, draws the
 * loss series the naive way, one path vertex per step.
 *
 * With --memory, it runs a real Cruncher run of STEPS steps (D 8, L 2, B 4) the
 * way the Training page does, through a #NapkinRun, and prints what the page
 * keeps of it: bytes per step by the run's own accounting, and the growth of
 * the process's resident set over the run (no display needed).
 *
 *   xvfb-run -a build/benchmarks/bench-plot-frame [STEPS] [FRAMES]
 *   build/benchmarks/bench-plot-frame --memory [STEPS]
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <adwaita.h>

#include "napkin-run.h"
#include "napkin-loss-plot.h"
#include "napkin-memory-plot.h"
#include "napkin-throughput-plot.h"

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

/* Resident bytes, from /proc/self/statm. */
static double
resident_bytes (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;

  if (!g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    return NAN;
  fields = g_strsplit (text, " ", -1);
  return g_ascii_strtod (fields[1], NULL) * sysconf (_SC_PAGESIZE);
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!napkin_run_start_finish (NAPKIN_RUN (source), result, &error))
    g_printerr ("the run failed: %s\n", error->message);
  *(gboolean *) user_data = TRUE;
}

static int
bench_memory (guint64 steps)
{
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(NapkinRun) run = NULL;
  gboolean done = FALSE;
  double rss0, rss1, kept;
  gint64 t0;

  config->dim = 8;
  config->layers = 2;
  config->batch = 4;
  config->steps = steps;
  config->seed = 3;
  trainer = nk_trainer_new (config);
  run = napkin_run_new (trainer, 0);
  rss0 = resident_bytes ();
  t0 = g_get_monotonic_time ();
  napkin_run_start (run, on_run_done, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  rss1 = resident_bytes ();
  kept = (double) napkin_run_get_memory_size (run);
  g_print ("%" G_GUINT64_FORMAT " Cruncher steps in %.1f s; the page keeps %.1f MB: %.1f bytes per step "
           "(history %.1f, plotted series %.1f)\n",
           napkin_run_get_last_step (run), (g_get_monotonic_time () - t0) / 1e6, kept / 1e6,
           kept / (double) steps,
           (double) nk_train_history_get_memory_size (napkin_run_get_history (run)) / (double) steps,
           (kept - (double) nk_train_history_get_memory_size (napkin_run_get_history (run))) / (double) steps);
  g_print ("resident set grew by %.1f MB over the run: %.1f bytes per step "
           "(the trainer's 10000-step ring: %.1f MB of it)\n",
           (rss1 - rss0) / 1e6, (rss1 - rss0) / (double) steps,
           10000.0 * sizeof (NkTrainMetrics) / 1e6);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  guint n_steps = argc > 1 ? (guint) atoi (argv[1]) : 1000000;
  guint frames = argc > 2 ? (guint) atoi (argv[2]) : 30;
  NapkinLossPlot *loss;
  NapkinMemoryPlot *memory;
  NapkinThroughputPlot *throughput;
  g_autoptr(NapkinSeries) steps = napkin_series_new ();
  g_autoptr(NapkinSeries) other = napkin_series_new ();
  g_autoptr(NapkinSeries) rate = NULL;
  NapkinSeries *buckets[NAPKIN_MEMORY_PLOT_N_BUCKETS];
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  NapkinPlotStyle style;
  cairo_surface_t *loss_surface, *small_surface;
  g_autofree double *times = NULL;
  double *parts[3];
  double reference_ms, frame_ms;
  gint64 t0;

  if (argc > 1 && g_str_equal (argv[1], "--memory"))
    return bench_memory (argc > 2 ? g_ascii_strtoull (argv[2], NULL, 10) : 1000000);
  if (!gtk_init_check ())
    {
      g_printerr ("bench-plot-frame needs a display: run it under xvfb-run -a\n");
      return 77;
    }
  adw_init ();

  loss = g_object_ref_sink (NAPKIN_LOSS_PLOT (napkin_loss_plot_new ()));
  memory = g_object_ref_sink (NAPKIN_MEMORY_PLOT (napkin_memory_plot_new ()));
  throughput = g_object_ref_sink (NAPKIN_THROUGHPUT_PLOT (napkin_throughput_plot_new ()));

  /* The series as a run keeps them: the loss owns the steps, the others share them. */
  rate = napkin_series_new_sharing_x (steps);
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    buckets[b] = napkin_series_new_sharing_x (steps);
  napkin_loss_plot_set_series (loss, steps);
  napkin_memory_plot_set_series (memory, buckets);
  napkin_throughput_plot_set_series (throughput, rate);

  t0 = g_get_monotonic_time ();
  for (guint i = 1; i <= n_steps; i++)
    {
      double noise = g_rand_double_range (rand, 0.5, 1.5);
      double bytes[NAPKIN_MEMORY_PLOT_N_BUCKETS] = { 33e3, 33e3, 66e3, 4e3 + (i % 7) * 100, 300 };

      napkin_series_append (steps, i, 1e5 / sqrt (i) * noise);
      napkin_series_append (other, i, 3e5 / sqrt (i) * noise);
      for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
        napkin_series_append (buckets[b], i, bytes[b]);
      napkin_series_append (rate, i, 1e9 * noise);
    }
  g_print ("filled %u steps × 8 series in %.0f ms\n", n_steps, (g_get_monotonic_time () - t0) / 1e3);
  napkin_loss_plot_set_compare (loss, other, "Run 1 · lr 0.01");
  napkin_loss_plot_set_smoothing (loss, 0.9);
  {
    double predicted[NAPKIN_MEMORY_PLOT_N_PREDICTED] = { 33e3, 33e3, 66e3, 4e3 };

    napkin_memory_plot_set_predicted (memory, predicted);
  }
  napkin_memory_plot_set_capacity (memory, 2.5e10);
  napkin_throughput_plot_set_peak (throughput, 2.9e11, "fp32");
  napkin_throughput_plot_set_mfu (throughput, 0.004);
  napkin_throughput_plot_set_split (throughput, 1e-4, 2e-4, 0.5e-4);

  napkin_plot_style_init_for_widget (&style, GTK_WIDGET (loss));
  loss_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 840, 250);
  small_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 230);

  /* the reference: every step a vertex */
  {
    cairo_t *cr = cairo_create (loss_surface);
    NapkinSeries *series = napkin_loss_plot_get_series (loss);

    t0 = g_get_monotonic_time ();
    cairo_move_to (cr, 0, 0);
    for (guint i = 0; i < n_steps; i++)
      cairo_line_to (cr, 840.0 * i / n_steps, 250 - napkin_series_get_y (series, i) / 1e5 * 250);
    cairo_stroke (cr);
    cairo_surface_flush (loss_surface);
    reference_ms = (g_get_monotonic_time () - t0) / 1e3;
    cairo_destroy (cr);
  }

  times = g_new (double, frames);
  parts[0] = g_new (double, frames);
  parts[1] = g_new (double, frames);
  parts[2] = g_new (double, frames);
  for (guint f = 0; f < frames; f++)
    {
      cairo_t *cr;
      gint64 t1, t2;

      t0 = g_get_monotonic_time ();
      cr = cairo_create (loss_surface);
      napkin_plot_draw (NAPKIN_PLOT (loss), cr, 840, 250, &style);
      cairo_destroy (cr);
      cairo_surface_flush (loss_surface);
      t1 = g_get_monotonic_time ();
      cr = cairo_create (small_surface);
      napkin_plot_draw (NAPKIN_PLOT (memory), cr, 400, 230, &style);
      cairo_destroy (cr);
      cairo_surface_flush (small_surface);
      t2 = g_get_monotonic_time ();
      cr = cairo_create (small_surface);
      napkin_plot_draw (NAPKIN_PLOT (throughput), cr, 400, 230, &style);
      cairo_destroy (cr);
      cairo_surface_flush (small_surface);
      times[f] = (g_get_monotonic_time () - t0) / 1e3;
      parts[0][f] = (t1 - t0) / 1e3;
      parts[1][f] = (t2 - t1) / 1e3;
      parts[2][f] = (g_get_monotonic_time () - t2) / 1e3;
    }
  frame_ms = median (times, frames);
  g_print ("per plot (median ms): loss %.2f, memory %.2f, throughput %.2f\n",
           median (parts[0], frames), median (parts[1], frames), median (parts[2], frames));

  g_print ("three plots, %u steps each (loss + compared run + smoothing, 5 memory buckets, "
           "throughput): %.2f ms per frame (median of %u; target < 8 ms)\n", n_steps, frame_ms, frames);
  g_print ("reference, the loss series alone drawn with one vertex per step: %.1f ms (%.0f× slower)\n",
           reference_ms, reference_ms / frame_ms);

  for (guint i = 0; i < 3; i++)
    g_free (parts[i]);
  napkin_plot_style_clear (&style);
  cairo_surface_destroy (loss_surface);
  cairo_surface_destroy (small_surface);
  g_object_unref (loss);
  g_object_unref (memory);
  g_object_unref (throughput);
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    g_object_unref (buckets[b]);
  return 0;
}
