/* test-train-history.c: NkTrainHistory keeps every step exactly, in ~40 bytes per step
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: a generator that is a pure function of the step index (a million steps
 * are compared with it bit for bit), the array a history was filled from, and the
 * trainer's own ring for a real run.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-trainer.h"

/* A synthetic fp32 run, as the trainer reports one: the loss and the four timings
 * vary every step, FLOPs, bytes, peak and prediction stay, flops_per_s and mfu are
 * the trainer's quotients. A pure function of @i, so it is its own oracle. */
static void
synthetic_step (guint64         i,
                guint64         first_step,
                NkTrainMetrics *m)
{
  guint32 h = (guint32) (i * 2654435761u);

  memset (m, 0, sizeof *m);
  m->step = first_step + i;
  m->loss = (float) (5.0 * exp (-(double) i / 1e5) + (h % 1000) * 1e-4);
  m->seconds_forward = 1e-4 + (h % 977) * 1e-7;
  m->seconds_backward = 2e-4 + (h % 631) * 1e-7;
  m->seconds_optimizer = 5e-5 + (h % 313) * 1e-7;
  m->seconds = m->seconds_forward + m->seconds_backward + m->seconds_optimizer;
  m->flops = 123456;
  m->flops_forward = 41152;
  m->flops_backward = 82304;
  m->flops_matmul = 120000;
  m->flops_per_s = m->seconds > 0 ? (double) m->flops / m->seconds : NAN;
  m->peak_flops_per_s = 2.5e12;
  m->mfu = m->flops_per_s / m->peak_flops_per_s;
  for (int b = 0; b < NK_N_BUCKETS; b++)
    {
      m->memory[b] = 1000 * (b + 1);
      m->memory_peak[b] = 1500 * (b + 1);
    }
  for (int k = 0; k < 4; k++)
    m->predicted[k] = 1000.0 * (k + 1);
  m->loss_scale = 1.0;
}

/* What stays: the 5 varying columns as plain chunks (one partly filled chunk each
 * at most), the others as a handful of runs. */
static gsize
history_bound (gsize n)
{
  gsize chunks = (n + NK_TRAIN_HISTORY_CHUNK - 1) / NK_TRAIN_HISTORY_CHUNK;

  return 5 * chunks * NK_TRAIN_HISTORY_CHUNK * sizeof (double) + 64 * 1024;
}

/* A million steps: every value comes back bit for bit, the plots' column copies and
 * the step search agree with the generator, and the bytes kept stay within ~40 per
 * step (a ring of NkTrainMetrics would keep sizeof (NkTrainMetrics) per step). */
static void
test_history_million (void)
{
  const gsize n = 1000000;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autofree double *col = g_new (double, 1000);
  gsize bytes;

  for (gsize i = 0; i < n; i++)
    {
      NkTrainMetrics m;

      synthetic_step (i, 501, &m);
      nk_train_history_append (h, &m);
    }
  g_assert_cmpuint (nk_train_history_get_n (h), ==, n);
  bytes = nk_train_history_get_memory_size (h);
  g_test_message ("%" G_GSIZE_FORMAT " steps: %" G_GSIZE_FORMAT " bytes, %.1f bytes per step "
                  "(sizeof (NkTrainMetrics) = %" G_GSIZE_FORMAT ")",
                  n, bytes, (double) bytes / n, sizeof (NkTrainMetrics));
  g_assert_cmpuint (bytes, <=, history_bound (n));
  g_assert_cmpuint (bytes, <, n * sizeof (NkTrainMetrics) / 5);

  for (gsize i = 0; i < n; i += (i < 5000 ? 1 : 7919))
    {
      NkTrainMetrics want, got;

      synthetic_step (i, 501, &want);
      nk_train_history_get (h, i, &got);
      g_assert_true (memcmp (&want, &got, sizeof want) == 0);
      g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_MFU, i), ==, want.mfu);
    }
  g_assert_cmpuint (nk_train_history_copy_column (h, NK_TRAIN_COLUMN_LOSS, n - 500, 1000, col), ==, 500);
  for (gsize i = 0; i < 500; i++)
    {
      NkTrainMetrics want;

      synthetic_step (n - 500 + i, 501, &want);
      g_assert_cmpfloat (col[i], ==, want.loss);
    }
  g_assert_cmpuint (nk_train_history_copy_column (h, NK_TRAIN_COLUMN_MEMORY + NK_BUCKET_DATA, 10, 3, col), ==, 3);
  g_assert_cmpfloat (col[2], ==, 5000.0);
  g_assert_cmpuint (nk_train_history_lower_bound (h, 0), ==, 0);
  g_assert_cmpuint (nk_train_history_lower_bound (h, 501 + 123456), ==, 123456);
  g_assert_cmpuint (nk_train_history_lower_bound (h, 501 + n), ==, n);
}

/* Rows the predictions do not fit (gaps in the steps, odd quotients, NaN payloads,
 * skipped steps) are kept exactly all the same; exports from the history equal the
 * exports of the array it was filled from. */
static void
test_history_exact (void)
{
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (NkTrainMetrics));
  g_autofree char *csv_a = NULL;
  g_autofree char *csv_h = NULL;
  g_autofree char *json_a = NULL;
  g_autofree char *json_h = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);

  for (guint i = 0; i < 3000; i++)
    {
      NkTrainMetrics m;
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      synthetic_step (i, 1, &m);
      if (i % 7 == 0)
        m.step += 1000 + i;
      if (i % 5 == 0)
        memcpy (&m.flops_per_s, &bits, sizeof bits);
      if (i % 11 == 0)
        m.mfu = -0.0;
      if (i % 13 == 0)
        m.memory[NK_BUCKET_OTHER] = g_rand_int (rand);
      m.skipped = i % 17 == 0;
      m.loss_scale = i % 17 == 0 ? 32768.0 : 65536.0;
      g_array_append_val (steps, m);
    }
  nk_train_history_append_steps (h, (NkTrainMetrics *) steps->data, steps->len);
  for (guint i = 0; i < steps->len; i++)
    {
      NkTrainMetrics got;

      nk_train_history_get (h, i, &got);
      g_assert_true (memcmp (&got, &g_array_index (steps, NkTrainMetrics, i), sizeof got) == 0);
    }
  csv_a = nk_train_metrics_to_csv ((NkTrainMetrics *) steps->data, steps->len, "cpu");
  csv_h = nk_train_history_to_csv (h, "cpu");
  g_assert_cmpstr (csv_h, ==, csv_a);
  json_a = nk_train_metrics_to_json_lines ((NkTrainMetrics *) steps->data, steps->len, "cpu");
  json_h = nk_train_history_to_json_lines (h, "cpu");
  g_assert_cmpstr (json_h, ==, json_a);

  nk_train_history_clear (h);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 0);
  g_free (json_h);
  json_h = nk_train_history_to_json_lines (h, NULL);
  g_assert_cmpstr (json_h, ==, "{\"done\":true,\"steps\":0,\"final_loss\":\"nan\"}\n");
}

/* The boxed type's copy (what a binding gets): every step of the copy equals the
 * generator's after the original is gone, over two chunks of the plain columns and
 * the runs of the others, and a step appended to the copy leaves the original alone. */
static void
test_history_copy (void)
{
  const gsize n = NK_TRAIN_HISTORY_CHUNK + 1000;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(NkTrainHistory) copy = NULL;
  g_autoptr(NkTrainHistory) copy2 = NULL;
  NkTrainMetrics m;

  g_assert_true (g_type_is_a (NK_TYPE_TRAIN_HISTORY, G_TYPE_BOXED));
  for (gsize i = 0; i < n; i++)
    {
      synthetic_step (i, 1, &m);
      nk_train_history_append (h, &m);
    }
  copy = g_boxed_copy (NK_TYPE_TRAIN_HISTORY, h);
  g_assert_cmpuint (nk_train_history_get_memory_size (copy), ==,
                    nk_train_history_get_memory_size (h));
  synthetic_step (n, 1, &m);
  nk_train_history_append (h, &m);
  g_clear_pointer (&h, nk_train_history_free);

  g_assert_cmpuint (nk_train_history_get_n (copy), ==, n);
  for (gsize i = 0; i < n; i++)
    {
      NkTrainMetrics got, want;

      synthetic_step (i, 1, &want);
      nk_train_history_get (copy, i, &got);
      g_assert_true (memcmp (&got, &want, sizeof got) == 0);
    }

  nk_train_history_clear (copy);
  copy2 = nk_train_history_copy (copy);
  g_assert_cmpuint (nk_train_history_get_n (copy2), ==, 0);
}

/* A real run, its steps handed over the way the page takes them (ranges since the
 * last step seen), kept in a history: the figure in bytes per step. */
static void
on_step_to_history (NkTrainer            *trainer,
                    const NkTrainMetrics *m,
                    NkTrainHistory       *h)
{
  gsize n = nk_train_history_get_n (h);
  guint64 last = n > 0 ? (guint64) nk_train_history_get_value (h, NK_TRAIN_COLUMN_STEP, n - 1) : 0;
  g_autoptr(GArray) range = nk_trainer_get_history_range (trainer, last + 1);

  nk_train_history_append_steps (h, (NkTrainMetrics *) range->data, range->len);
}

static void
test_history_of_run (void)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(GArray) ring = NULL;
  g_autoptr(GError) error = NULL;
  gsize bytes;

  c->dim = 16;
  c->batch = 4;
  c->seed = 7;
  c->steps = 3000;
  c->history_limit = 64;
  t = nk_trainer_new (c);
  g_signal_connect (t, "step", G_CALLBACK (on_step_to_history), h);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 3000);
  ring = nk_trainer_get_history (t);
  g_assert_cmpuint (ring->len, ==, 64);
  for (guint i = 0; i < ring->len; i++)
    {
      NkTrainMetrics got;

      nk_train_history_get (h, 3000 - 64 + i, &got);
      g_assert_true (memcmp (&got, &g_array_index (ring, NkTrainMetrics, i), sizeof got) == 0);
    }
  bytes = nk_train_history_get_memory_size (h);
  g_test_message ("a 3000-step Cruncher run: %" G_GSIZE_FORMAT " bytes in the history", bytes);
  g_assert_cmpuint (bytes, <=, history_bound (3000));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/train-history/million", test_history_million);
  g_test_add_func ("/engine/train-history/exact", test_history_exact);
  g_test_add_func ("/engine/train-history/copy", test_history_copy);
  g_test_add_func ("/engine/train-history/of-run", test_history_of_run);

  return g_test_run ();
}
