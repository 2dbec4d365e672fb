/* test-train-metrics.c: a training step's exports: CSV bytes and JSON Lines
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: CSV text written by hand (floats as printf's %.17g writes them), and
 * json-glib's parser reading back what the builder wrote.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-train-metrics.h"

static void
fill_example_metrics (NkTrainMetrics m[2])
{
  memset (m, 0, 2 * sizeof *m);
  m[0].step = 1;
  m[0].loss = 2.5;
  m[0].flops = 1000;
  m[0].seconds = 0.125;
  m[0].flops_per_s = 8000;
  m[0].peak_flops_per_s = 1e12;
  m[0].mfu = ldexp (1.0, -27);
  m[0].memory[NK_BUCKET_PARAMS] = 100;
  m[0].memory[NK_BUCKET_GRADS] = 200;
  m[0].memory[NK_BUCKET_OPTIMIZER] = 300;
  m[0].memory[NK_BUCKET_ACTIVATIONS] = 400;
  m[0].memory[NK_BUCKET_DATA] = 50;
  m[0].memory[NK_BUCKET_OTHER] = 7;
  m[0].flops_forward = 400;
  m[0].flops_backward = 600;
  m[0].flops_matmul = 900;
  m[0].seconds_forward = 0.0625;
  m[0].seconds_backward = 0.03125;
  m[0].seconds_optimizer = 0.03125;
  m[0].loss_scale = 1;
  m[1] = m[0];
  m[1].step = 2;
  m[1].loss = NAN;
  m[1].seconds = 0;
  m[1].flops_per_s = INFINITY;
  m[1].peak_flops_per_s = -INFINITY;
  m[1].mfu = NAN;
  m[1].loss_scale = 32768;
  m[1].skipped = TRUE;
}

/* The CSV export, byte for byte, against text written by hand (the floats as
 * printf's %.17g writes them, which is what g_ascii_dtostr promises to round-trip). */
static void
test_metrics_csv (void)
{
  NkTrainMetrics m[2];
  g_autofree char *csv = NULL;
  g_autofree char *empty = NULL;
  const char *expected =
    "step,loss,flops,seconds,flops_per_s,peak_flops_per_s,mfu,device,"
    "memory_params,memory_grads,memory_optimizer,memory_activations,"
    "memory_data,flops_forward,flops_backward,flops_matmul,"
    "seconds_forward,seconds_backward,seconds_optimizer,"
    "loss_scale,skipped\n"
    "1,2.5,1000,0.125,8000,1000000000000,7.4505805969238281e-09,cuda:0,"
    "100,200,300,400,50,400,600,900,0.0625,0.03125,0.03125,1,0\n"
    "2,nan,1000,0,inf,-inf,nan,cuda:0,"
    "100,200,300,400,50,400,600,900,0.0625,0.03125,0.03125,32768,1\n";

  fill_example_metrics (m);
  csv = nk_train_metrics_to_csv (m, 2, "cuda:0");
  g_assert_cmpstr (csv, ==, expected);
  empty = nk_train_metrics_to_csv (NULL, 0, NULL);
  g_assert_cmpstr (empty, ==, NK_TRAIN_CSV_HEADER);
}

/* JSON Lines: one parseable object per step with CLI.md's fields, then "done". */
static void
test_metrics_json_lines (void)
{
  NkTrainMetrics m[2];
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  fill_example_metrics (m);
  m[1].loss = 1.25;
  text = nk_train_metrics_to_json_lines (m, 2, "cpu");
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_cmpstr (lines[3], ==, "");
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;

      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      if (i < 2)
        {
          g_assert_cmpint (json_object_get_int_member (o, "step"), ==, i + 1);
          g_assert_cmpstr (json_object_get_string_member (o, "device"), ==, "cpu");
          g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "memory"), "activations"),
                           ==, 400);
        }
      else
        {
          g_assert_true (json_object_get_boolean_member (o, "done"));
          g_assert_cmpint (json_object_get_int_member (o, "steps"), ==, 2);
          g_assert_cmpfloat (json_object_get_double_member (o, "final_loss"), ==, 1.25);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/train-metrics/csv", test_metrics_csv);
  g_test_add_func ("/engine/train-metrics/json-lines", test_metrics_json_lines);

  return g_test_run ();
}
