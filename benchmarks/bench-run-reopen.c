/* bench-run-reopen.c: reopening a million-step run folder, against reading its bytes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-run-reopen [STEPS] [JSON_GLIB_SAMPLE] [DIR]   (default 1000000 20000)
 * With DIR holding a run folder already, only times reading it back (profiling).
 * Writes a run folder of STEPS steps with NkRunWriter (one write() per step, as
 * `napkin-cli train --run-dir` does) and prints:
 *   - the cost per step of that append (µs) beside building the same JSON line
 *     without writing it, i.e. what --json-lines costs anyway;
 *   - the time nk_run_dir_read_metrics() takes to read the steps back into an
 *     NkTrainHistory, beside two references in the same process: reading the
 *     file's bytes (g_file_get_contents), and json-glib parsing the lines one by
 *     one (timed on the first JSON_GLIB_SAMPLE lines, scaled to STEPS).
 * The goal (issue 15): a million steps reopen in under a second.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nk-json.h"
#include "nk-run-dir.h"

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* A step that looks like a real one: a falling noisy loss, jittering times. */
static void
fake_step (guint64         step,
           NkTrainMetrics *m)
{
  double t = 7.5e-5 * (1.0 + 0.1 * sin ((double) step));

  memset (m, 0, sizeof *m);
  m->step = step;
  m->loss = 80000.0 / (1.0 + (double) step) * (1.0 + 0.05 * cos ((double) step * 0.7));
  m->flops = 332848;
  m->flops_forward = 133152;
  m->flops_backward = 199696;
  m->flops_matmul = 330752;
  m->seconds = t;
  m->seconds_forward = t * 0.3;
  m->seconds_backward = t * 0.5;
  m->seconds_optimizer = t * 0.2;
  m->flops_per_s = (double) m->flops / t;
  m->peak_flops_per_s = 332305664000.0;
  m->mfu = m->flops_per_s / m->peak_flops_per_s;
  m->memory[NK_BUCKET_PARAMS] = 33540;
  m->memory[NK_BUCKET_GRADS] = 33540;
  m->memory[NK_BUCKET_OPTIMIZER] = 67080;
  m->memory[NK_BUCKET_ACTIVATIONS] = 4164;
  m->predicted[0] = 33540;
  m->predicted[1] = 33540;
  m->predicted[2] = 67080;
  m->predicted[3] = 4164;
  m->loss_scale = 1;
}

static double
json_glib_seconds (const char *data,
                   gsize       length,
                   gsize       max_lines,
                   gsize      *out_lines)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *p = data, *end = data + length;
  double t0 = now_seconds ();
  gsize n = 0;
  double sink = 0;

  while (p < end && n < max_lines)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize len = (nl != NULL ? nl : end) - p;

      if (json_parser_load_from_data (parser, p, (gssize) len, NULL))
        {
          JsonObject *o = json_node_get_object (json_parser_get_root (parser));

          sink += json_object_get_double_member_with_default (o, "loss", 0);
        }
      n++;
      p = nl != NULL ? nl + 1 : end;
    }
  *out_lines = n;
  if (sink == 42)
    printf (" ");
  return now_seconds () - t0;
}

int
main (int    argc,
      char **argv)
{
  guint64 steps = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 1000000;
  gsize sample = argc > 2 ? g_ascii_strtoull (argv[2], NULL, 10) : 20000;
  g_autofree char *tmp = g_dir_make_tmp ("bench-run-reopen-XXXXXX", NULL);
  g_autofree char *dir = argc > 3 ? g_strdup (argv[3]) : g_build_filename (tmp, "run", NULL);
  g_autofree char *metrics = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkRunWriter) w = NULL;
  g_autoptr(NkTrainHistory) history = nk_train_history_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  NkRunMetricsInfo info;
  gsize length, lines;
  double t0, write_s, build_s, bytes_s, read_s, glib_s;

  if (argc > 3 && g_file_test (metrics, G_FILE_TEST_EXISTS))
    {
      t0 = now_seconds ();
      if (!nk_run_dir_read_metrics (dir, history, &info, &error))
        g_error ("%s", error->message);
      printf ("reopen: %.3f s, %" G_GSIZE_FORMAT " steps\n", now_seconds () - t0,
              nk_train_history_get_n (history));
      g_free (info.device);
      return 0;
    }
  config->steps = steps;
  w = nk_run_writer_open (dir, config, NULL, 0, &error);
  g_assert_no_error (error);

  t0 = now_seconds ();
  for (guint64 s = 1; s <= steps; s++)
    {
      NkTrainMetrics m;

      fake_step (s, &m);
      if (!nk_run_writer_append (w, &m, 1, "cpu", &error))
        g_error ("%s", error->message);
    }
  write_s = now_seconds () - t0;
  nk_run_writer_finish (w, NK_RUN_STATUS_FINISHED, steps, NAN, NULL, NULL);

  t0 = now_seconds ();
  for (guint64 s = 1; s <= MIN (steps, 200000); s++)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *line = NULL;
      NkTrainMetrics m;

      fake_step (s, &m);
      nk_train_metrics_build_json (&m, "cpu", b);
      line = nk_json_to_line (b);
    }
  build_s = (now_seconds () - t0) / (double) MIN (steps, 200000);

  /* Warm the page cache first, so every reader below sees the same memory. */
  g_file_get_contents (metrics, &data, &length, NULL);
  g_clear_pointer (&data, g_free);

  t0 = now_seconds ();
  g_file_get_contents (metrics, &data, &length, NULL);
  bytes_s = now_seconds () - t0;

  t0 = now_seconds ();
  if (!nk_run_dir_read_metrics (dir, history, &info, &error))
    g_error ("%s", error->message);
  read_s = now_seconds () - t0;
  g_assert_cmpuint (nk_train_history_get_n (history), ==, steps);
  g_assert_cmpuint (info.bad_lines, ==, 0);

  glib_s = json_glib_seconds (data, length, sample, &lines) * (double) steps / (double) lines;

  printf ("run folder of %" G_GUINT64_FORMAT " steps, metrics.jsonl %.1f MB\n",
          steps, (double) length / 1e6);
  printf ("append per step:   %.2f µs (write() included); building the JSON line alone %.2f µs\n",
          1e6 * write_s / (double) steps, 1e6 * build_s);
  printf ("reopen (nk_run_dir_read_metrics): %.3f s  (%.0f ns/step, history %.1f MB)\n",
          read_s, 1e9 * read_s / (double) steps,
          (double) nk_train_history_get_memory_size (history) / 1e6);
  printf ("reference, read the bytes:        %.3f s  ratio %.2f\n", bytes_s, read_s / bytes_s);
  printf ("reference, json-glib per line:    %.3f s  ratio %.3f  (%" G_GSIZE_FORMAT " lines timed)\n",
          glib_s, read_s / glib_s, lines);
  printf ("goal: reopen < 1 s: %s\n", read_s < 1.0 ? "met" : "NOT met");

  g_free (info.device);
  if (argc > 3)
    return 0;
  g_unlink (metrics);
  {
    const char *names[] = { "meta.json", "config.json", "plan.json", ".napkin-lock" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *p = g_build_filename (dir, names[i], NULL);
        g_unlink (p);
      }
  }
  g_rmdir (dir);
  g_rmdir (tmp);
  return 0;
}
