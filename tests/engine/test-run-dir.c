/* test-run-dir.c: run folders: written, read back, torn, listed, renamed, interrupted
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the metrics written (read back bit for bit), glibc's strtod for the
 * number scanner (random doubles in every form JSON writers use), json-glib as an
 * independent reader of the same file, and a real `napkin-cli train --run-dir`
 * killed with SIGKILL after N steps reached its stdout (the folder must then list
 * as interrupted with at least N steps).
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "nk-test-util.h"
#include "nk-json.h"
#include "nk-rng.h"
#include "nk-run-dir.h"
#include "nk-tfevents.h"

static void
fake_step (guint64         step,
           NkTrainMetrics *m)
{
  memset (m, 0, sizeof *m);
  m->step = step;
  m->loss = 1000.0 / (double) step + 1e-3 * sin ((double) step);
  m->flops = 1000 + step % 3;
  m->flops_forward = 400;
  m->flops_backward = 600;
  m->flops_matmul = 990;
  m->seconds = 1e-4 * (1.0 + 0.37 * cos ((double) step));
  m->seconds_forward = m->seconds / 3;
  m->seconds_backward = m->seconds / 7;
  m->seconds_optimizer = m->seconds / 11;
  m->flops_per_s = (double) m->flops / m->seconds;
  m->peak_flops_per_s = 3.3e11;
  m->mfu = m->flops_per_s / m->peak_flops_per_s;
  m->memory[NK_BUCKET_PARAMS] = 33540;
  m->memory[NK_BUCKET_GRADS] = 33540;
  m->memory[NK_BUCKET_OPTIMIZER] = 67080 + step;
  m->memory[NK_BUCKET_ACTIVATIONS] = 4164;
  m->predicted[0] = 33540;
  m->predicted[1] = 33540.5;
  m->predicted[2] = 67080;
  m->predicted[3] = 4164.25;
  m->loss_scale = step == 3 ? NAN : step == 4 ? INFINITY : 1.0;
  m->skipped = step % 5 == 0;
}

static void
assert_same_double (double a,
                    double b)
{
  if (isnan (a))
    g_assert_true (isnan (b));
  else
    g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
}

static void
assert_same_step (const NkTrainMetrics *a,
                  const NkTrainMetrics *b)
{
  g_assert_cmpuint (a->step, ==, b->step);
  assert_same_double (a->loss, b->loss);
  g_assert_cmpuint (a->flops, ==, b->flops);
  g_assert_cmpuint (a->flops_forward, ==, b->flops_forward);
  g_assert_cmpuint (a->flops_backward, ==, b->flops_backward);
  g_assert_cmpuint (a->flops_matmul, ==, b->flops_matmul);
  assert_same_double (a->seconds, b->seconds);
  assert_same_double (a->seconds_forward, b->seconds_forward);
  assert_same_double (a->seconds_backward, b->seconds_backward);
  assert_same_double (a->seconds_optimizer, b->seconds_optimizer);
  assert_same_double (a->flops_per_s, b->flops_per_s);
  assert_same_double (a->peak_flops_per_s, b->peak_flops_per_s);
  assert_same_double (a->mfu, b->mfu);
  for (guint i = 0; i < 4; i++)
    assert_same_double (a->predicted[i], b->predicted[i]);
  g_assert_cmpuint (a->memory[NK_BUCKET_PARAMS], ==, b->memory[NK_BUCKET_PARAMS]);
  g_assert_cmpuint (a->memory[NK_BUCKET_OPTIMIZER], ==, b->memory[NK_BUCKET_OPTIMIZER]);
  g_assert_cmpuint (a->memory[NK_BUCKET_ACTIVATIONS], ==, b->memory[NK_BUCKET_ACTIVATIONS]);
  assert_same_double (a->loss_scale, b->loss_scale);
  g_assert_cmpint (!!a->skipped, ==, !!b->skipped);
}

static char *
write_run (const char *root,
           guint       n_steps,
           gboolean    finish)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = nk_run_dir_new_path (root, &error);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkRunWriter) w = NULL;
  NkTrainPrediction p;

  g_assert_no_error (error);
  config->dim = 7;
  config->steps = n_steps;
  nk_train_config_predict (config, 1e9, &p);
  w = nk_run_writer_open (dir, config, &p, 0, &error);
  g_assert_no_error (error);
  for (guint s = 1; s <= n_steps; s++)
    {
      NkTrainMetrics m;

      fake_step (s, &m);
      g_assert_true (nk_run_writer_append (w, &m, 1, "cpu", &error));
      g_assert_no_error (error);
    }
  if (finish)
    {
      g_assert_true (nk_run_writer_finish (w, NK_RUN_STATUS_FINISHED, n_steps, 0.5, NULL, &error));
      g_assert_no_error (error);
    }
  return g_steal_pointer (&dir);
}

/* The run's TensorBoard file holds every step's figures, as float32 (the event
 * format's simple_value), in the folder beside metrics.jsonl. */
static void
test_event_file (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-dir");
  g_autofree char *dir = write_run (root, 50, TRUE);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkScalarLog) log = nk_scalar_log_read (dir, &error);
  static const char *const tags[] = {
    "loss", "seconds", "flops_per_s", "mfu", "memory/params", "memory/optimizer",
  };

  g_assert_no_error (error);
  g_assert_cmpuint (log->n_files, ==, 1);
  g_assert_cmpuint (log->n_skipped, ==, 0);
  for (guint t = 0; t < G_N_ELEMENTS (tags); t++)
    {
      GArray *points = nk_scalar_log_get (log, tags[t]);

      g_assert_nonnull (points);
      g_assert_cmpuint (points->len, ==, 50);
      for (guint i = 0; i < points->len; i++)
        {
          const NkScalarPoint *p = &g_array_index (points, NkScalarPoint, i);
          NkTrainMetrics m;
          double want;

          fake_step (i + 1, &m);
          want = t == 0 ? m.loss : t == 1 ? m.seconds : t == 2 ? m.flops_per_s
                 : t == 3 ? m.mfu : t == 4 ? (double) m.memory[NK_BUCKET_PARAMS]
                 : (double) m.memory[NK_BUCKET_OPTIMIZER];
          g_assert_cmpint (p->step, ==, i + 1);
          g_assert_cmpfloat (p->value, ==, (double) (float) want);
          g_assert_cmpfloat (p->wall_time, >, 1.7e9);
        }
    }
  /* fake_step's loss scale is NaN at step 3 (not written), inf at 4 */
  g_assert_cmpuint (nk_scalar_log_get (log, "loss_scale")->len, ==, 49);
  nk_test_remove_tree (root);
}

/* napkin-cli train --run-dir writes the event file too: its losses are the
 * metrics.jsonl losses rounded to float32, step for step. */
static void
test_cli_event_file (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-dir");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  const char *const args[] = { "--dim", "4", "--layers", "1", "--steps", "20",
                               "--run-dir", dir, NULL };
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(NkScalarLog) log = NULL;
  g_autoptr(GError) error = NULL;
  NkRunMetricsInfo mi;
  GArray *loss;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_cmpint (nk_test_cli ("train", args, NULL, NULL), ==, 0);
  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_assert_no_error (error);
  g_free (mi.device);
  log = nk_scalar_log_read (dir, &error);
  g_assert_no_error (error);
  loss = nk_scalar_log_get (log, "loss");
  g_assert_nonnull (loss);
  g_assert_cmpuint (loss->len, ==, 20);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 20);
  for (guint i = 0; i < 20; i++)
    {
      NkTrainMetrics m;

      nk_train_history_get (h, i, &m);
      g_assert_cmpint (g_array_index (loss, NkScalarPoint, i).step, ==, (gint64) m.step);
      g_assert_cmpfloat (g_array_index (loss, NkScalarPoint, i).value, ==, (double) (float) m.loss);
    }
  nk_test_remove_tree (root);
}

static void
test_write_read_back (void)
{
  g_autofree char *root = g_dir_make_tmp ("test-run-dir-XXXXXX", NULL);
  g_autofree char *dir = write_run (root, 50, TRUE);
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(NkRunInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  NkRunMetricsInfo mi;

  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 50);
  g_assert_cmpuint (mi.bad_lines, ==, 0);
  g_assert_true (mi.done);
  g_assert_cmpstr (mi.device, ==, "cpu");
  g_free (mi.device);
  for (guint s = 1; s <= 50; s++)
    {
      NkTrainMetrics want, got;

      fake_step (s, &want);
      nk_train_history_get (h, s - 1, &got);
      assert_same_step (&want, &got);
    }

  /* json-glib, an independent reader, sees the same steps and the closing line. */
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 52);
  for (guint i = 0; i < 51; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (lines[i], &error);
      JsonObject *o;

      g_assert_no_error (error);
      o = json_node_get_object (node);
      if (i < 50)
        {
          g_assert_cmpint (json_object_get_int_member (o, "step"), ==, i + 1);
          g_assert_cmpfloat (json_object_get_double_member (o, "loss"), ==,
                             nk_train_history_get_value (h, NK_TRAIN_COLUMN_LOSS, i));
        }
      else
        g_assert_true (json_object_get_boolean_member (o, "done"));
    }

  /* The end alone: back over the closing line to step 50. */
  {
    NkTrainMetrics last, want;

    g_assert_true (nk_run_dir_read_last_step (dir, &last));
    fake_step (50, &want);
    assert_same_step (&want, &last);
  }

  info = nk_run_info_read (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (info->status, ==, NK_RUN_STATUS_FINISHED);
  g_assert_nonnull (info->config);
  g_assert_cmpuint (info->config->dim, ==, 7);
  g_assert_cmpuint (info->config->steps, ==, 50);
  g_assert_true (info->has_plan);
  g_assert_cmpuint (info->prediction.n_parameters, ==,
                    nk_train_config_count_parameters (info->config));
  g_assert_false (info->has_checkpoint);

  /* The boxed copy (what a binding gets) says the same once the original is gone. */
  {
    NkRunInfo *copy = g_boxed_copy (NK_TYPE_RUN_INFO, info);
    g_autofree char *info_path = g_strdup (info->path);

    g_clear_pointer (&info, nk_run_info_free);
    g_assert_cmpstr (copy->path, ==, info_path);
    g_assert_cmpint (copy->status, ==, NK_RUN_STATUS_FINISHED);
    g_assert_cmpuint (copy->config->dim, ==, 7);
    g_assert_cmpuint (copy->config->steps, ==, 50);
    g_assert_true (copy->has_plan);
    g_assert_cmpuint (copy->prediction.n_parameters, ==,
                      nk_train_config_count_parameters (copy->config));
    nk_run_info_free (copy);
  }
  nk_test_remove_tree (root);
}

/* A crash inside the last write() leaves half a line: it is counted, not trusted. */
static void
test_torn_last_line (void)
{
  g_autofree char *root = g_dir_make_tmp ("test-run-dir-XXXXXX", NULL);
  g_autofree char *dir = write_run (root, 10, FALSE);
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *text = NULL;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(GError) error = NULL;
  gsize len;
  NkRunMetricsInfo mi;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  /* Cut inside step 10's line, and put garbage in the middle. */
  {
    g_autoptr(GString) s = g_string_new_len (text, len - 40);
    char *second = strchr (s->str, '\n') + 1;

    g_string_insert (s, second - s->str, "not json\n{\"step\": 3, \"loss\": \n\n");
    g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  }
  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 9);
  g_assert_cmpuint (mi.bad_lines, ==, 3);
  g_assert_false (mi.done);
  g_free (mi.device);
  for (guint s = 1; s <= 9; s++)
    g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_STEP, s - 1), ==, s);
  /* The end alone: back over the torn line to step 9. */
  {
    NkTrainMetrics last, want;

    g_assert_true (nk_run_dir_read_last_step (dir, &last));
    fake_step (9, &want);
    assert_same_step (&want, &last);
  }
  nk_test_remove_tree (root);
}

/* The scanner's doubles against strtod: random bit patterns, printed as json-glib
 * (%.17g), shortest, with exponents and with few digits. */
static void
test_numbers_match_strtod (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (7);
  const char *formats[] = { "%.17g", "%.15g", "%.6e", "%.3f", "%.1f" };

  for (guint i = 0; i < 40000; i++)
    {
      guint64 bits = nk_rng_next_u64 (rng);
      double v, want;
      char num[64];
      g_autofree char *line = NULL;
      g_autoptr(NkTrainHistory) h = nk_train_history_new ();
      NkRunMetricsInfo mi;

      /* Half of them in the range training metrics live in. */
      if (i % 2 == 0)
        v = ldexp ((double) (bits >> 11) / 9007199254740992.0, (int) (bits % 80) - 40);
      else
        memcpy (&v, &bits, sizeof v);
      if (!isfinite (v))
        continue;
      g_ascii_formatd (num, sizeof num, formats[i % G_N_ELEMENTS (formats)], v);
      want = g_ascii_strtod (num, NULL);
      line = g_strdup_printf ("{\"step\":1,\"loss\":%s}\n", num);
      nk_run_metrics_parse (line, strlen (line), h, &mi);
      g_assert_cmpuint (mi.bad_lines, ==, 0);
      g_assert_cmpuint (nk_train_history_get_n (h), ==, 1);
      assert_same_double (want, nk_train_history_get_value (h, NK_TRAIN_COLUMN_LOSS, 0));
    }
}

/* Members in any order, unknown ones (nested too), whitespace: still a step. */
static void
test_any_valid_object (void)
{
  const char *text =
    "{ \"extra\": [1, {\"a\": null}], \"loss\" : 2.5, \"memory\": {\"grads\": 7, \"x\": true},\n"
    "  \"flops_formula\": 12.0, \"step\": 4, \"device\": \"cuda:0\" }\n";
  const char *one_line = "{ \"extra\": [1, {\"a\": null}], \"loss\" : 2.5, \"memory\": "
                         "{\"grads\": 7, \"x\": true}, \"flops_formula\": 12.0, \"step\": 4, "
                         "\"device\": \"cuda:0\" }\n";
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  NkRunMetricsInfo mi;
  NkTrainMetrics m;

  /* Split over two lines it is two bad lines: JSON Lines are one object a line. */
  nk_run_metrics_parse (text, strlen (text), h, &mi);
  g_assert_cmpuint (mi.bad_lines, ==, 2);
  g_free (mi.device);
  nk_run_metrics_parse (one_line, strlen (one_line), h, &mi);
  g_assert_cmpuint (mi.bad_lines, ==, 0);
  g_assert_cmpstr (mi.device, ==, "cuda:0");
  g_free (mi.device);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 1);
  nk_train_history_get (h, 0, &m);
  g_assert_cmpuint (m.step, ==, 4);
  g_assert_cmpfloat (m.loss, ==, 2.5);
  g_assert_cmpuint (m.memory[NK_BUCKET_GRADS], ==, 7);
}

/* A block-scaled run's shares of operand elements flushed and clipped, as the
 * trainer writes them (issue 25's lines, copied from a real nvfp4 run), in
 * another order, beside a "precision" string member, and missing (a bf16 run's
 * line): oracle, g_ascii_strtod of each number's text as typed here. */
static void
test_quant_shares (void)
{
  static const struct {
    const char *line;
    const char *flushed;   /* NULL: no member, reads 0 */
    const char *clipped;
  } cases[] = {
    { "{\"step\":1,\"loss\":5.5078930854797363,\"skipped\":false,\"precision\":\"nvfp4\","
      "\"quant_flushed\":0.072027108775063992,\"quant_clipped\":0.034706350072658917}",
      "0.072027108775063992", "0.034706350072658917" },
    { "{\"quant_clipped\":1.25e-3, \"precision\":\"mxfp8\",\"step\":2,"
      "\"quant_flushed\":0.5,\"loss\":4}", "0.5", "1.25e-3" },
    { "{\"step\":3,\"loss\":3.5,\"precision\":\"bf16-mixed\"}", NULL, NULL },
    { "{\"step\":4,\"loss\":2,\"quant_flushed\":0,\"quant_clipped\":1}", "0", "1" },
  };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  NkRunMetricsInfo mi;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_string_append_printf (text, "%s\n", cases[i].line);
  nk_run_metrics_parse (text->str, text->len, h, &mi);
  g_free (mi.device);
  g_assert_cmpuint (mi.bad_lines, ==, 0);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double flushed = cases[i].flushed != NULL ? g_ascii_strtod (cases[i].flushed, NULL) : 0;
      double clipped = cases[i].clipped != NULL ? g_ascii_strtod (cases[i].clipped, NULL) : 0;
      NkTrainMetrics m;

      nk_train_history_get (h, i, &m);
      g_assert_cmpuint (m.step, ==, i + 1);
      g_assert_cmpfloat (m.quant_flushed, ==, flushed);
      g_assert_cmpfloat (m.quant_clipped, ==, clipped);
      g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_QUANT_FLUSHED, i), ==, flushed);
      g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_QUANT_CLIPPED, i), ==, clipped);
    }
}

static void
test_list_rename (void)
{
  g_autofree char *root = g_dir_make_tmp ("test-run-dir-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (root, "nope", NULL);
  g_autofree char *a = write_run (root, 3, TRUE);
  g_autofree char *b = write_run (root, 4, TRUE);
  g_autofree char *junk = g_build_filename (root, "not-a-run", NULL);
  g_autoptr(GPtrArray) runs = NULL;
  g_autoptr(GError) error = NULL;
  NkRunInfo *first;

  g_mkdir (junk, 0755);
  runs = nk_run_dir_list (missing, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 0);
  g_clear_pointer (&runs, g_ptr_array_unref);

  g_assert_true (nk_run_dir_set_name (a, "baseline “lr 0.01”", &error));
  g_assert_no_error (error);
  runs = nk_run_dir_list (root, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 2);
  first = g_ptr_array_index (runs, 0);
  /* b was created after a (same second or later; the id's counter breaks ties). */
  g_assert_cmpstr (first->path, ==, b);
  g_assert_cmpstr (first->name, ==, first->id);
  first = g_ptr_array_index (runs, 1);
  g_assert_cmpstr (first->path, ==, a);
  g_assert_cmpstr (first->name, ==, "baseline “lr 0.01”");
  /* The folder keeps its id. */
  g_assert_true (g_file_test (a, G_FILE_TEST_IS_DIR));
  g_assert_true (g_str_has_prefix (first->id, "20"));
  nk_test_remove_tree (root);
}

/* config.json reads back into the settings that wrote it: what tells two runs apart
 * (nk_train_config_to_json(), the checkpoints' own test of "the same run") is equal. */
static void
test_config_round_trip (void)
{
  g_autofree char *root = g_dir_make_tmp ("test-run-dir-XXXXXX", NULL);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkRunWriter) w = NULL;
  g_autoptr(NkRunInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autofree char *want = NULL, *got = NULL;
  const NkModelKind kinds[] = { NK_MODEL_CRUNCHER, NK_MODEL_TINY_LM, NK_MODEL_GPT };

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      config->model = kinds[k];
      config->dim = 24;
      config->layers = 3;
      config->context = 16;
      config->lr = 3e-4;
      config->seed = 77;
      config->optimizer = NK_OPTIMIZER_ADAM;
      config->init_kind = NK_INIT_NORMAL;
      g_free (config->text_file);
      config->text_file = g_strdup ("/data/some text.txt");
      config->checkpoint_every = 40;
      config->n_head = 6;
      config->vocab = 300;
      g_free (config->tokens_file);
      config->tokens_file = g_strdup ("tokens.bin");
      w = nk_run_writer_open (dir, config, NULL, 0, &error);
      g_assert_no_error (error);
      g_clear_pointer (&w, nk_run_writer_free);
      info = nk_run_info_read (dir, &error);
      g_assert_no_error (error);
      g_assert_nonnull (info->config);
      g_clear_pointer (&want, g_free);
      g_clear_pointer (&got, g_free);
      want = nk_train_config_to_json (config);
      got = nk_train_config_to_json (info->config);
      g_assert_cmpstr (got, ==, want);
      g_assert_cmpuint (info->config->checkpoint_every, ==, 40);
      g_assert_cmpstr (info->config->device, ==, config->device);
      g_clear_pointer (&info, nk_run_info_free);
    }
  nk_test_remove_tree (root);
}

/* A resumed run keeps the steps up to its checkpoint and appends after them. */
static void
test_resume_keeps_steps (void)
{
  g_autofree char *root = g_dir_make_tmp ("test-run-dir-XXXXXX", NULL);
  g_autofree char *dir = write_run (root, 40, FALSE);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(NkRunWriter) w = NULL;
  g_autoptr(GError) error = NULL;
  NkRunMetricsInfo mi;

  g_assert_true (nk_run_dir_set_name (dir, "kept", &error));
  w = nk_run_writer_open (dir, config, NULL, 25, &error);
  g_assert_no_error (error);
  for (guint s = 26; s <= 30; s++)
    {
      NkTrainMetrics m;

      fake_step (s, &m);
      m.loss = -1.0 * s;
      g_assert_true (nk_run_writer_append (w, &m, 1, "cpu", &error));
    }
  g_assert_true (nk_run_writer_finish (w, NK_RUN_STATUS_STOPPED, 30, -30.0, NULL, &error));
  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 30);
  g_assert_cmpuint (mi.bad_lines, ==, 0);
  g_free (mi.device);
  for (guint s = 1; s <= 30; s++)
    {
      NkTrainMetrics want;

      fake_step (s, &want);
      g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_STEP, s - 1), ==, s);
      g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_LOSS, s - 1), ==,
                         s <= 25 ? want.loss : -1.0 * s);
    }
  {
    g_autoptr(NkRunInfo) info = nk_run_info_read (dir, &error);

    g_assert_cmpstr (info->name, ==, "kept");
    g_assert_cmpint (info->status, ==, NK_RUN_STATUS_STOPPED);
  }
  nk_test_remove_tree (root);
}

/* A writer alive in this process: running; dropped without finishing: interrupted. */
static void
test_running_then_interrupted (void)
{
  g_autofree char *root = g_dir_make_tmp ("test-run-dir-XXXXXX", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = nk_run_dir_new_path (root, &error);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  NkRunWriter *w;
  NkRunInfo *info;

  w = nk_run_writer_open (dir, config, NULL, 0, &error);
  g_assert_no_error (error);
  info = nk_run_info_read (dir, &error);
  g_assert_cmpint (info->status, ==, NK_RUN_STATUS_RUNNING);
  g_assert_cmpint (info->pid, ==, getpid ());
  g_assert_false (info->has_plan);
  nk_run_info_free (info);
  /* A second writer is refused while the first holds the folder. */
  g_assert_null (nk_run_writer_open (dir, config, NULL, 0, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  nk_run_writer_free (w);
  info = nk_run_info_read (dir, &error);
  g_assert_cmpint (info->status, ==, NK_RUN_STATUS_INTERRUPTED);
  nk_run_info_free (info);
  nk_test_remove_tree (root);
}

/* Done means (issue 15): kill -9 during a run; the folder lists as interrupted with
 * every step that reached stdout, and it resumes from its checkpoint. */
static void
test_cli_killed (void)
{
  g_autofree char *root = NULL;
  g_autofree char *dir = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(NkRunInfo) info = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  NkRunMetricsInfo mi;
  guint seen = 0;
  const guint N = 200;
  g_autoptr(GString) printed = g_string_new (NULL);
  g_autofree char *metrics_path = NULL;
  g_autofree char *written = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  root = nk_test_make_temp_dir ("test-run-dir");
  dir = g_build_filename (root, "run", NULL);
  metrics_path = g_build_filename (dir, "metrics.jsonl", NULL);
  {
    const char *args[] = { "--dim", "8", "--layers", "1", "--steps", "100000000",
                           "--checkpoint-every", "50", "--json-lines", "--run-dir", dir, NULL };

    proc = nk_test_spawn_cli ("train", args, G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  }
  g_assert_nonnull (proc);
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  while (seen < N)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      g_string_append (printed, line);
      g_string_append_c (printed, '\n');
      seen++;
    }
  g_subprocess_send_signal (proc, SIGKILL);
  g_subprocess_wait (proc, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (g_subprocess_get_if_exited (proc));
  g_assert_true (g_subprocess_get_if_signaled (proc));
  g_assert_cmpint (g_subprocess_get_term_sig (proc), ==, SIGKILL);

  runs = nk_run_dir_list (root, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (runs->len, ==, 1);
  info = nk_run_info_read (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (info->status, ==, NK_RUN_STATUS_INTERRUPTED);
  g_assert_true (info->has_checkpoint);
  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_assert_cmpuint (nk_train_history_get_n (h), >=, N);
  g_assert_cmpuint (mi.bad_lines, <=, 1);
  g_assert_false (mi.done);
  g_free (mi.device);
  for (gsize i = 0; i < nk_train_history_get_n (h); i++)
    g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_STEP, i), ==, i + 1);
  /* metrics.jsonl holds the very bytes --json-lines printed. */
  g_assert_true (g_file_get_contents (metrics_path, &written, NULL, NULL));
  g_assert_true (g_str_has_prefix (written, printed->str));
  nk_test_remove_tree (root);
}

/* Issue 21, item 15: the folder --resume names must exist; a run folder (one with a
 * meta.json) means its checkpoints/, any other folder itself. Nothing is created on
 * the way, not even a parent. Oracle: the file system, as the test laid it out. */
static void
test_resolve_resume (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-dir");
  g_autofree char *missing = g_build_filename (root, "no-parent", "x", NULL);
  g_autofree char *parent = g_build_filename (root, "no-parent", NULL);
  g_autofree char *file = g_build_filename (root, "file", NULL);
  g_autofree char *run = g_build_filename (root, "run", NULL);
  g_autofree char *meta = g_build_filename (run, "meta.json", NULL);
  g_autofree char *run_ck = g_build_filename (run, "checkpoints", NULL);
  g_autofree char *got = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_null (nk_run_dir_resolve_resume (missing, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, missing));
  g_assert_false (g_file_test (parent, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  g_assert_null (nk_run_dir_resolve_resume (file, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
  g_assert_nonnull (strstr (error->message, file));
  g_clear_error (&error);

  got = nk_run_dir_resolve_resume (root, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, root);
  g_clear_pointer (&got, g_free);

  g_assert_cmpint (g_mkdir (run, 0755), ==, 0);
  g_assert_true (g_file_set_contents (meta, "{}", -1, NULL));
  got = nk_run_dir_resolve_resume (run, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==, run_ck);
  nk_test_remove_tree (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/run-dir/resolve-resume", test_resolve_resume);

  g_test_add_func ("/engine/run-dir/write-read-back", test_write_read_back);
  g_test_add_func ("/engine/run-dir/event-file", test_event_file);
  g_test_add_func ("/engine/run-dir/cli-event-file", test_cli_event_file);
  g_test_add_func ("/engine/run-dir/torn-last-line", test_torn_last_line);
  g_test_add_func ("/engine/run-dir/numbers-match-strtod", test_numbers_match_strtod);
  g_test_add_func ("/engine/run-dir/any-valid-object", test_any_valid_object);
  g_test_add_func ("/engine/run-dir/quant-shares", test_quant_shares);
  g_test_add_func ("/engine/run-dir/list-rename", test_list_rename);
  g_test_add_func ("/engine/run-dir/config-round-trip", test_config_round_trip);
  g_test_add_func ("/engine/run-dir/resume-keeps-steps", test_resume_keeps_steps);
  g_test_add_func ("/engine/run-dir/running-then-interrupted", test_running_then_interrupted);
  g_test_add_func ("/engine/run-dir/cli-killed", test_cli_killed);
  return g_test_run ();
}
