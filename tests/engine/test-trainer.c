/* test-trainer.c: NkTrainer: determinism, memory against nk-plan, control, learning
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "nk-checkpoint.h"
#include "nk-cpuinfo.h"
#include "nk-plan.h"
#include "nk-trainer.h"

static NkTrainConfig *
small_config (void)
{
  NkTrainConfig *c = nk_train_config_new ();

  c->dim = 16;
  c->layers = 2;
  c->batch = 4;
  c->steps = 20;
  c->lr = 0.01;
  c->seed = 7;
  return c;
}

static GArray *
run (const NkTrainConfig *config,
     const char          *save_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);

  nk_trainer_run_sync (trainer, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FINISHED);
  if (save_path != NULL)
    g_assert_true (nk_trainer_save (trainer, save_path, &error));
  g_assert_no_error (error);
  return nk_trainer_get_history (trainer);
}

static void
test_determinism (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autofree char *dir = g_dir_make_tmp ("napkin-trainer-XXXXXX", &error);
  g_autofree char *pa = g_build_filename (dir, "a.safetensors", NULL);
  g_autofree char *pb = g_build_filename (dir, "b.safetensors", NULL);
  g_autoptr(GArray) a = run (c, pa);
  g_autoptr(GArray) b = run (c, pb);
  g_autoptr(GArray) other = NULL;
  g_autofree char *ba = NULL, *bb = NULL;
  gsize la, lb;

  g_assert_cmpuint (a->len, ==, 20);
  g_assert_cmpuint (b->len, ==, 20);
  for (guint i = 0; i < a->len; i++)
    {
      const NkTrainMetrics *ma = &g_array_index (a, NkTrainMetrics, i);
      const NkTrainMetrics *mb = &g_array_index (b, NkTrainMetrics, i);

      g_assert_cmpuint (ma->step, ==, i + 1);
      g_assert_true (memcmp (&ma->loss, &mb->loss, sizeof (double)) == 0);
      g_assert_cmpuint (ma->flops, ==, mb->flops);
    }
  g_assert_true (g_file_get_contents (pa, &ba, &la, NULL));
  g_assert_true (g_file_get_contents (pb, &bb, &lb, NULL));
  g_assert_cmpmem (ba, la, bb, lb);

  /* Another seed is another run. */
  c->seed = 8;
  other = run (c, NULL);
  g_assert_cmpfloat (g_array_index (other, NkTrainMetrics, 0).loss, !=,
                     g_array_index (a, NkTrainMetrics, 0).loss);

  g_unlink (pa);
  g_unlink (pb);
  g_rmdir (dir);
}

/* Measured bytes per bucket against nk-plan's formulas for the same model. */
static void
test_memory_matches_plan (void)
{
  static const NkOptimizer optimizers[] = {
    NK_OPTIMIZER_SGD, NK_OPTIMIZER_MOMENTUM, NK_OPTIMIZER_ADAMW,
  };

  for (guint o = 0; o < G_N_ELEMENTS (optimizers); o++)
    {
      g_autoptr(NkTrainConfig) c = small_config ();
      g_autoptr(NkPlan) plan = nk_plan_new ();
      g_autoptr(GArray) h = NULL;
      guint64 params;
      const NkTrainMetrics *last;

      c->dim = 32;
      c->layers = 3;
      c->batch = 64;
      c->steps = 5;
      c->optimizer = optimizers[o];
      c->lr = 1e-4;
      h = run (c, NULL);
      last = &g_array_index (h, NkTrainMetrics, h->len - 1);

      /* The oracle: nk-plan with the closed-form parameter count of seed 001. */
      params = 32 * 32 * 3 + 32 * 3 + 32 + 1;
      nk_plan_set_params (plan, params);
      nk_plan_set_optimizer (plan, optimizers[o]);
      g_object_set (plan, "batch", 64.0, "seq", 1.0, "layers", 3.0, "d-model", 32.0, NULL);

      g_assert_cmpfloat (last->memory[NK_BUCKET_PARAMS], ==, nk_plan_get_output (plan, "memory-params"));
      g_assert_cmpfloat (last->memory[NK_BUCKET_GRADS], ==, nk_plan_get_output (plan, "memory-grads"));
      g_assert_cmpfloat (last->memory[NK_BUCKET_OPTIMIZER], ==, nk_plan_get_output (plan, "memory-optimizer"));
      g_assert_cmpfloat (fabs (last->memory[NK_BUCKET_ACTIVATIONS]
                               / nk_plan_get_output (plan, "memory-activations") - 1.0), <, 0.10);
      g_assert_cmpfloat (last->predicted[0], ==, nk_plan_get_output (plan, "memory-params"));

      /* Steady state: no bucket grows after the first step. */
      for (guint i = 1; i < h->len; i++)
        for (int b = 0; b < NK_N_BUCKETS; b++)
          g_assert_cmpuint (g_array_index (h, NkTrainMetrics, i).memory[b], ==,
                            g_array_index (h, NkTrainMetrics, 0).memory[b]);
    }
}

/* The same for bf16-mixed and the tiny LM. The activation oracle is counted by hand
 * from what each layer keeps for backward: B×D values per Cruncher layer output (2
 * bytes in bf16) plus, in bf16, the rounded copy of the fp32 input batch; for the LM
 * (N = B·T tokens, V = 256) the fp32 embedding N×D, per layer a Linear and a ReLU
 * output N×D each, the logits N×V, and in bf16 the rounded embedding N×D and the
 * fp32 logits for the softmax N×V. Terms of B or 1 values are left to the 10%. */
static void
test_memory_matches_plan_mixed_lm (void)
{
  static const struct {
    NkModelKind       model;
    NkPrecision  precision;
    guint             layers;
  } cases[] = {
    { NK_MODEL_CRUNCHER, NK_PRECISION_FP32, 2 },
    { NK_MODEL_CRUNCHER, NK_PRECISION_BF16_MIXED, 2 },
    { NK_MODEL_CRUNCHER, NK_PRECISION_BF16_MIXED, 1 },
    { NK_MODEL_TINY_LM, NK_PRECISION_FP32, 2 },
    { NK_MODEL_TINY_LM, NK_PRECISION_BF16_MIXED, 2 },
    { NK_MODEL_TINY_LM, NK_PRECISION_BF16_MIXED, 1 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(NkTrainConfig) c = small_config ();
      g_autoptr(NkPlan) plan = nk_plan_new ();
      g_autoptr(GArray) h = NULL;
      const NkTrainMetrics *last;
      double B = 64, D = 32, L = cases[k].layers, T = 8, V = 256, N = B * T;
      double params, act;
      gboolean bf16 = cases[k].precision == NK_PRECISION_BF16_MIXED;

      c->model = cases[k].model;
      c->precision = cases[k].precision;
      c->dim = (guint) D;
      c->layers = cases[k].layers;
      c->batch = (guint) B;
      c->context = (guint) T;
      c->steps = 3;
      c->lr = 1e-4;
      c->optimizer = NK_OPTIMIZER_ADAMW;
      h = run (c, NULL);
      last = &g_array_index (h, NkTrainMetrics, h->len - 1);

      if (cases[k].model == NK_MODEL_CRUNCHER)
        {
          params = D * D * L + D * L + D + 1;
          act = bf16 ? (L + 1) * B * D * 2 : L * B * D * 4;
        }
      else
        {
          params = V * D + (D * D + D) * L + V * D + V;
          act = N * D * 4 + L * 2 * N * D * (bf16 ? 2 : 4) + N * V * (bf16 ? 2 : 4);
          if (bf16)
            act += N * D * 2 + N * V * 4;
        }
      nk_plan_set_params (plan, params);
      nk_plan_set_optimizer (plan, NK_OPTIMIZER_ADAMW);

      g_test_message ("%s %s L=%u: activations measured %" G_GUINT64_FORMAT ", predicted %.0f, "
                      "counted by hand %.0f",
                      nk_model_kind_to_string (c->model), nk_precision_to_string (c->precision),
                      c->layers, last->memory[NK_BUCKET_ACTIVATIONS], last->predicted[3], act);
      g_assert_cmpfloat (last->memory[NK_BUCKET_PARAMS], ==, nk_plan_get_output (plan, "memory-params"));
      g_assert_cmpfloat (last->memory[NK_BUCKET_GRADS], ==, nk_plan_get_output (plan, "memory-grads"));
      g_assert_cmpfloat (last->memory[NK_BUCKET_OPTIMIZER], ==, nk_plan_get_output (plan, "memory-optimizer"));
      g_assert_cmpfloat (last->predicted[0], ==, last->memory[NK_BUCKET_PARAMS]);
      g_assert_cmpfloat (last->predicted[1], ==, last->memory[NK_BUCKET_GRADS]);
      g_assert_cmpfloat (last->predicted[2], ==, last->memory[NK_BUCKET_OPTIMIZER]);
      g_assert_cmpfloat (fabs (last->memory[NK_BUCKET_ACTIVATIONS] / act - 1.0), <, 0.10);
      g_assert_cmpfloat (fabs (last->predicted[3] / act - 1.0), <, 0.10);
      g_assert_cmpfloat (fabs (last->memory[NK_BUCKET_ACTIVATIONS] / last->predicted[3] - 1.0), <, 0.10);
    }
}

static GBytes *
read_all (const char *path)
{
  char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_bytes_new_take (contents, len);
}

static void
flip_last_byte (const char *path)
{
  g_autofree char *bytes = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  bytes[len - 1] ^= 1;
  g_assert_true (g_file_set_contents (path, bytes, len, NULL));
}

/* Never lose another run's checkpoints: a fresh run of another config into their
 * directory is refused before it writes anything; a run resumed from step k replaces
 * its own later checkpoints and nothing else. */
static void
test_checkpoint_dir_other_run (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("napkin-trainer-XXXXXX", &error);
  g_autofree char *dir = g_build_filename (root, "a", NULL);
  g_autofree char *dir_b = g_build_filename (root, "b", NULL);
  g_autoptr(NkTrainConfig) a = small_config ();
  g_autoptr(NkTrainConfig) b = NULL;
  g_autofree char *p2 = NULL, *p4 = NULL, *p6 = NULL, *p8 = NULL, *b10 = NULL, *foreign10 = NULL;
  g_autoptr(GBytes) orig2 = NULL, orig4 = NULL, orig6 = NULL, foreign = NULL, now = NULL;
  g_autoptr(NkCheckpoint) first6 = NULL;

  a->steps = 6;
  a->checkpoint_dir = g_strdup (dir);
  a->checkpoint_every = 2;
  a->checkpoint_keep = 0;
  g_array_unref (run (a, NULL));
  p2 = nk_checkpoint_path_for_step (dir, 2);
  p4 = nk_checkpoint_path_for_step (dir, 4);
  p6 = nk_checkpoint_path_for_step (dir, 6);
  p8 = nk_checkpoint_path_for_step (dir, 8);
  orig2 = read_all (p2);
  orig4 = read_all (p4);
  orig6 = read_all (p6);
  first6 = nk_checkpoint_load (p6, &error);
  g_assert_no_error (error);

  /* Another config (lr), fresh, into the same directory: refused, nothing touched. */
  b = nk_train_config_copy (a);
  b->lr = 0.02;
  {
    g_autoptr(NkTrainer) t = nk_trainer_new (b);

    g_assert_false (nk_trainer_run_sync (t, NULL, &error));
    g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_OTHER_RUN);
    g_assert_nonnull (strstr (error->message, dir));
    g_assert_nonnull (strstr (error->message, "already holds checkpoints of another run"));
    g_assert_nonnull (strstr (error->message, "lr"));
    g_assert_nonnull (strstr (error->message, "--resume"));
    g_assert_cmpuint (nk_trainer_get_steps_done (t), ==, 0);
    g_clear_error (&error);
  }
  now = read_all (p6);
  g_assert_true (g_bytes_equal (now, orig6));
  g_clear_pointer (&now, g_bytes_unref);

  /* Run B elsewhere makes a checkpoint of another run; a damaged copy of it lands in
   * A's directory at a higher step (so resuming cannot pick it). */
  g_free (b->checkpoint_dir);
  b->checkpoint_dir = g_strdup (dir_b);
  b->steps = 10;
  g_array_unref (run (b, NULL));
  b10 = nk_checkpoint_path_for_step (dir_b, 10);
  foreign10 = nk_checkpoint_path_for_step (dir, 10);
  foreign = read_all (b10);
  g_assert_true (g_file_set_contents (foreign10, g_bytes_get_data (foreign, NULL),
                                      g_bytes_get_size (foreign), NULL));
  flip_last_byte (foreign10);
  g_clear_pointer (&foreign, g_bytes_unref);
  foreign = read_all (foreign10);

  /* A's step 6 damaged: resuming A (to step 8) goes back to 4, rewrites its own 6
   * with the parameters an uninterrupted run saved, adds 8, keeps 2 and 4, and leaves
   * B's file exactly as it was. */
  flip_last_byte (p6);
  {
    g_autoptr(NkTrainConfig) r = nk_train_config_copy (a);
    g_autoptr(NkTrainer) t = NULL;

    r->steps = 8;
    r->resume_dir = g_strdup (dir);
    t = nk_trainer_new (r);
    g_assert_true (nk_trainer_run_sync (t, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (nk_trainer_get_start_step (t), ==, 4);
  }
  {
    g_autoptr(NkCheckpoint) ck6 = nk_checkpoint_load (p6, &error);
    g_autoptr(NkCheckpoint) ck8 = NULL;

    g_assert_no_error (error);
    g_assert_cmpuint (nk_checkpoint_get_n_tensors (ck6), ==, nk_checkpoint_get_n_tensors (first6));
    for (guint i = 0; i < nk_checkpoint_get_n_tensors (first6); i++)
      {
        const NkSafetensorsTensor *x = nk_checkpoint_get_tensor_info (first6, i);
        const NkSafetensorsTensor *y = nk_checkpoint_lookup (ck6, x->name);

        g_assert_nonnull (y);
        g_assert_cmpmem (x->data, x->nbytes, y->data, y->nbytes);
      }
    ck8 = nk_checkpoint_load (p8, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (nk_checkpoint_get_step (ck8), ==, 8);
  }
  now = read_all (p2);
  g_assert_true (g_bytes_equal (now, orig2));
  g_clear_pointer (&now, g_bytes_unref);
  now = read_all (p4);
  g_assert_true (g_bytes_equal (now, orig4));
  g_clear_pointer (&now, g_bytes_unref);
  now = read_all (foreign10);
  g_assert_true (g_bytes_equal (now, foreign));
  g_clear_pointer (&now, g_bytes_unref);

  g_clear_pointer (&first6, nk_checkpoint_unref);
  {
    const char *const dirs[] = { dir, dir_b };

    for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
      {
        g_autoptr(GDir) gd = g_dir_open (dirs[d], 0, NULL);
        const char *name;

        while (gd && (name = g_dir_read_name (gd)) != NULL)
          {
            g_autofree char *path = g_build_filename (dirs[d], name, NULL);

            g_unlink (path);
          }
        g_rmdir (dirs[d]);
      }
    g_rmdir (root);
  }
}

static void
on_step_stop_at_5 (NkTrainer            *trainer,
                   const NkTrainMetrics *m,
                   gpointer              data)
{
  if (m->step == 5)
    nk_trainer_stop (trainer);
}

static void
test_stop_sync (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;

  c->steps = 1000;
  t = nk_trainer_new (c);
  g_signal_connect (t, "step", G_CALLBACK (on_step_stop_at_5), NULL);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_cmpuint (nk_trainer_get_steps_done (t), ==, 5);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_STOPPED);
}

typedef struct {
  GMainLoop *loop;
  guint      signals;
  guint64    last_step;
  gboolean   done;
  gboolean   ok;
} AsyncData;

static void
on_step_async (NkTrainer            *trainer,
               const NkTrainMetrics *m,
               AsyncData            *d)
{
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_assert_cmpuint (m->step, >, d->last_step);
  d->last_step = m->step;
  d->signals++;
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  AsyncData *d = data;

  d->ok = nk_trainer_start_finish (NK_TRAINER (source), result, NULL);
  d->done = TRUE;
  g_main_loop_quit (d->loop);
}

static void
iterate_until (gboolean (*cond) (NkTrainer *), NkTrainer *t)
{
  while (!cond (t))
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
has_steps (NkTrainer *t)
{
  return nk_trainer_get_steps_done (t) >= 3;
}

static void
test_pause_stop_async (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  AsyncData d = { 0, };
  guint64 at_pause, parked_at;
  g_autoptr(GArray) history = NULL;

  c->steps = 10000000;
  t = nk_trainer_new (c);
  d.loop = g_main_loop_new (NULL, FALSE);
  g_signal_connect (t, "step", G_CALLBACK (on_step_async), &d);
  nk_trainer_start (t, NULL, on_done, &d);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_RUNNING);

  iterate_until (has_steps, t);

  nk_trainer_pause (t);
  /* Read after pause() returned: from here at most the step in flight may finish. */
  at_pause = nk_trainer_get_steps_done (t);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_PAUSED);
  while (!nk_trainer_is_parked (t))
    g_usleep (1000);
  parked_at = nk_trainer_get_steps_done (t);
  /* At most the step that was running when pause() was called. */
  g_assert_cmpuint (parked_at, <=, at_pause + 1);
  g_usleep (50000);
  g_assert_cmpuint (nk_trainer_get_steps_done (t), ==, parked_at);

  nk_trainer_resume (t);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_RUNNING);
  while (nk_trainer_get_steps_done (t) < parked_at + 3)
    g_usleep (1000);
  nk_trainer_stop (t);
  g_main_loop_run (d.loop);

  g_assert_true (d.done);
  g_assert_true (d.ok);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_cmpuint (nk_trainer_get_steps_done (t), <, c->steps);
  /* Coalesced: never more signals than steps, the last one delivered. */
  g_assert_cmpuint (d.signals, <=, nk_trainer_get_steps_done (t));
  g_assert_cmpuint (d.last_step, ==, nk_trainer_get_steps_done (t));
  history = nk_trainer_get_history (t);
  g_assert_cmpuint (history->len, ==, nk_trainer_get_steps_done (t));
  g_main_loop_unref (d.loop);
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the default context until @t leaves RUNNING/PAUSED, or 30 s pass. */
static NkTrainerState
wait_for_end (NkTrainer *t)
{
  gboolean timed_out = FALSE;
  guint timeout = g_timeout_add_seconds (30, set_flag, &timed_out);

  while (!timed_out && (nk_trainer_get_state (t) == NK_TRAINER_STATE_RUNNING
                        || nk_trainer_get_state (t) == NK_TRAINER_STATE_PAUSED))
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timeout);
  return nk_trainer_get_state (t);
}

/* While the worker runs: what it set before its first step reads back on the main
 * thread (under the trainer's mutex), against the config's closed form. */
static void
on_step_stop_at_3 (NkTrainer            *trainer,
                   const NkTrainMetrics *m,
                   gpointer              data)
{
  g_assert_cmpuint (nk_trainer_get_n_parameters (trainer), ==,
                    nk_train_config_count_parameters (nk_trainer_get_config (trainer)));
  g_assert_nonnull (nk_trainer_get_model (trainer));
  g_assert_cmpstr (nk_trainer_get_device_name (trainer), ==, "cpu");
  if (m->step >= 3)
    nk_trainer_stop (trainer);
}

/* A run started without a callback (nobody calls start_finish) still ends in
 * FINISHED, STOPPED or FAILED: the oracle is the run_sync twin's state for the
 * same config, and the error message for the failure. */
static void
test_start_without_callback (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainConfig) diverging = small_config ();
  g_autoptr(NkTrainConfig) endless = small_config ();
  g_autoptr(NkTrainer) finished = NULL;
  g_autoptr(NkTrainer) failed = NULL;
  g_autoptr(NkTrainer) stopped = NULL;

  c->steps = 5;
  finished = nk_trainer_new (c);
  nk_trainer_start (finished, NULL, NULL, NULL);
  g_assert_cmpint (wait_for_end (finished), ==, NK_TRAINER_STATE_FINISHED);
  g_assert_cmpuint (nk_trainer_get_steps_done (finished), ==, 5);

  diverging->optimizer = NK_OPTIMIZER_SGD;
  diverging->lr = 1e3;
  diverging->steps = 200;
  failed = nk_trainer_new (diverging);
  nk_trainer_start (failed, NULL, NULL, NULL);
  g_assert_cmpint (wait_for_end (failed), ==, NK_TRAINER_STATE_FAILED);
  {
    g_autofree char *message = NULL;

    g_object_get (failed, "error-message", &message, NULL);
    g_assert_nonnull (strstr (message, "diverged"));
  }

  endless->steps = 10000000;
  stopped = nk_trainer_new (endless);
  g_signal_connect (stopped, "step", G_CALLBACK (on_step_stop_at_3), NULL);
  nk_trainer_start (stopped, NULL, NULL, NULL);
  g_assert_cmpint (wait_for_end (stopped), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_cmpuint (nk_trainer_get_steps_done (stopped), <, endless->steps);
}

static void
on_step_cancel_at_3 (NkTrainer            *trainer,
                     const NkTrainMetrics *m,
                     GCancellable         *cancellable)
{
  if (m->step >= 3)
    g_cancellable_cancel (cancellable);
}

/* The cancellable stops the run like nk_trainer_stop() (the header's promise and
 * what run_sync does): STOPPED, and start_finish() says TRUE. */
static void
test_cancel_async (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  AsyncData d = { 0, };

  c->steps = 10000000;
  t = nk_trainer_new (c);
  d.loop = g_main_loop_new (NULL, FALSE);
  g_signal_connect (t, "step", G_CALLBACK (on_step_cancel_at_3), cancellable);
  nk_trainer_start (t, cancellable, on_done, &d);
  g_main_loop_run (d.loop);
  g_assert_true (d.done);
  g_assert_true (d.ok);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_STOPPED);
  g_assert_cmpuint (nk_trainer_get_steps_done (t), <, c->steps);
  g_main_loop_unref (d.loop);
}

static void
test_diverges (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;

  c->optimizer = NK_OPTIMIZER_SGD;
  c->lr = 1e3;
  c->steps = 200;
  t = nk_trainer_new (c);
  g_assert_false (nk_trainer_run_sync (t, NULL, &error));
  g_assert_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_DIVERGED);
  g_test_message ("%s", error->message);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_FAILED);
  g_assert_cmpuint (nk_trainer_get_steps_done (t), <, 200);
}

static void
test_bad_config (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(GError) error = NULL;

  c->lr = 0.0;
  g_assert_false (nk_train_config_validate (c, &error));
  g_assert_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG);
  g_assert_cmpstr (error->message, ==, "The learning rate --lr must be a positive number, not 0.");
  g_clear_error (&error);

  /* --batches feeds the architectures that read sequences: the sentence names
   * them from the table, as it named "gpt" by hand before */
  c->lr = 0.01;
  c->batches_file = g_strdup ("batches.bin");
  g_assert_false (nk_train_config_validate (c, &error));
  g_assert_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG);
  g_assert_cmpstr (error->message, ==, "--batches is for --model gpt.");
}

/* The byte-level LM learns the bundled text: the loss starts near log 256 (uniform
 * guesses) and falls well below it. */
static void
test_tiny_lm_learns (void)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  g_autoptr(GArray) h = NULL;
  double first, last = 0.0;

  c->model = NK_MODEL_TINY_LM;
  c->dim = 32;
  c->layers = 1;
  c->batch = 8;
  c->context = 16;
  c->steps = 150;
  c->lr = 0.01;
  c->optimizer = NK_OPTIMIZER_ADAM;
  h = run (c, NULL);
  first = g_array_index (h, NkTrainMetrics, 0).loss;
  for (guint i = h->len - 10; i < h->len; i++)
    last += g_array_index (h, NkTrainMetrics, i).loss / 10.0;
  g_test_message ("tiny LM loss: first %.3f, mean of last 10 %.3f, log 256 = %.3f",
                  first, last, log (256.0));
  g_assert_cmpfloat (fabs (first - log (256.0)), <, 1.5);
  g_assert_cmpfloat (last, <, 0.6 * log (256.0));
}

/* bf16-mixed keeps fp32 masters (same params/grads/optimizer bytes) and halves the
 * saved activations; the losses stay close to fp32's. */
static void
test_bf16_mixed (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(GArray) f = NULL, h = NULL;
  const NkTrainMetrics *a, *b;

  c->dim = 32;
  c->batch = 32;
  c->steps = 10;
  f = run (c, NULL);
  c->precision = NK_PRECISION_BF16_MIXED;
  h = run (c, NULL);
  a = &g_array_index (f, NkTrainMetrics, 9);
  b = &g_array_index (h, NkTrainMetrics, 9);
  g_assert_cmpuint (a->memory[NK_BUCKET_PARAMS], ==, b->memory[NK_BUCKET_PARAMS]);
  g_assert_cmpuint (a->memory[NK_BUCKET_GRADS], ==, b->memory[NK_BUCKET_GRADS]);
  g_assert_cmpuint (a->memory[NK_BUCKET_OPTIMIZER], ==, b->memory[NK_BUCKET_OPTIMIZER]);
  g_assert_cmpuint (b->memory[NK_BUCKET_ACTIVATIONS], <, a->memory[NK_BUCKET_ACTIVATIONS]);
  /* Half the bytes per saved value, plus layer 0's rounded input (L = 2 here):
   * (L + 1)·B·D·2 against L·B·D·4, give or take the B-sized loss terms. */
  g_assert_cmpfloat (fabs (b->predicted[3] / (a->predicted[3] * 3.0 / 4.0) - 1.0), <, 0.05);
  for (guint i = 0; i < 10; i++)
    {
      double la = g_array_index (f, NkTrainMetrics, i).loss;
      double lb = g_array_index (h, NkTrainMetrics, i).loss;

      /* bf16 has 8 significant bits: a relative error of a few 2⁻⁸ per layer */
      g_assert_cmpfloat (fabs (lb - la), <=, 0.05 * fabs (la));
    }
}

/* fp16 with dynamic loss scaling: GradScaler's rule, step by step. */
static void
test_fp16_loss_scaling (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(GArray) h = NULL;
  guint skipped = 0;

  c->precision = NK_PRECISION_FP16_MIXED;
  c->steps = 30;
  h = run (c, NULL);
  g_assert_cmpfloat (g_array_index (h, NkTrainMetrics, 0).loss_scale, ==, 65536.0);
  for (guint i = 0; i + 1 < h->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (h, NkTrainMetrics, i);
      const NkTrainMetrics *next = &g_array_index (h, NkTrainMetrics, i + 1);

      skipped += m->skipped;
      g_assert_cmpfloat (next->loss_scale, ==, m->skipped ? m->loss_scale / 2 : m->loss_scale);
    }
  /* The synthetic task's loss (~10⁴) times 65536 overflows fp16's 65504 at once. */
  g_assert_cmpuint (skipped, >, 0);
  g_test_message ("%u skipped steps, final scale %g", skipped,
                  g_array_index (h, NkTrainMetrics, h->len - 1).loss_scale);
}

static void
on_step_checkpoint_at_3 (NkTrainer            *trainer,
                         const NkTrainMetrics *m,
                         gpointer              data)
{
  if (m->step == 3)
    nk_trainer_checkpoint_now (trainer);
}

static void
test_checkpoint_now (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autofree char *dir = g_dir_make_tmp ("napkin-ck-XXXXXX", &error);
  g_autofree char *step4 = NULL, *step10 = NULL;

  c->steps = 10;
  c->checkpoint_dir = g_strdup (dir);
  c->checkpoint_keep = 0;
  t = nk_trainer_new (c);
  g_signal_connect (t, "step", G_CALLBACK (on_step_checkpoint_at_3), NULL);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_no_error (error);
  /* Requested after step 3, written after the next step; and the final one. */
  step4 = nk_checkpoint_path_for_step (dir, 4);
  step10 = nk_checkpoint_path_for_step (dir, 10);
  files = nk_checkpoint_list (dir, &error);
  g_assert_cmpuint (files->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (files, 0), ==, step10);
  g_assert_cmpstr (g_ptr_array_index (files, 1), ==, step4);
  for (guint i = 0; i < files->len; i++)
    g_unlink (g_ptr_array_index (files, i));
  g_rmdir (dir);
}

/* The CPU peak from a canned /proc/cpuinfo, worked by hand. */
static void
test_cpu_peak (void)
{
  const char *text =
    "processor\t: 0\nmodel name\t: Test CPU @ 3.00GHz\nphysical id\t: 0\ncpu cores\t: 4\n"
    "cpu MHz\t\t: 2000.000\nflags\t\t: fpu sse avx avx2 fma\n\n"
    "processor\t: 1\nphysical id\t: 0\ncpu cores\t: 4\n";
  g_autoptr(NkCpuInfo) info = nk_cpu_info_parse (text, 8, 0);
  g_autoptr(NkCpuInfo) fixed = nk_cpu_info_parse (text, 8, 3500000);

  /* 4 physical cores (8 logical) × 2 FMA × 8 lanes (avx2) × 2 × 2.0 GHz */
  g_assert_cmpuint (info->cores, ==, 4);
  g_assert_cmpuint (info->lanes_fp32, ==, 8);
  g_assert_cmpfloat (info->peak_fp32, ==, 4.0 * 2 * 8 * 2 * 2.0e9);
  /* cpufreq's maximum wins over the current MHz */
  g_assert_cmpfloat (fixed->peak_fp32, ==, 4.0 * 2 * 8 * 2 * 3.5e9);
}

/* ---- histograms ------------------------------------------------------------------ */

/* The brute-force oracle: each value rounded into the format by nk_dtype_round
 * (exact, one value at a time) and the result's class read off its bits; the binade
 * found by walking powers of two, not by frexp. */
static void
brute_force_counts (const float *v,
                    gsize        n,
                    NkDType      dtype,
                    guint64     *out_underflow,
                    guint64     *out_subnormal,
                    guint64     *out_overflow,
                    guint64     *bins)
{
  *out_underflow = *out_subnormal = *out_overflow = 0;
  for (gsize i = 0; i < n; i++)
    {
      double a = fabs ((double) v[i]);
      NkDTypeRounding r;
      NkDTypeDecoded d;

      if (a == 0.0 || !isfinite (a))
        continue;
      if (bins != NULL)
        for (int e = NK_TRAIN_HISTOGRAM_MIN_EXP; e <= NK_TRAIN_HISTOGRAM_MAX_EXP; e++)
          if (ldexp (1.0, e) <= a && a < ldexp (1.0, e + 1))
            bins[e - NK_TRAIN_HISTOGRAM_MIN_EXP]++;
      nk_dtype_round (dtype, v[i], NK_OVERFLOW_DEFAULT, &r);
      nk_dtype_decode (dtype, r.bits, &d);
      if (d.klass == NK_DTYPE_CLASS_ZERO)
        (*out_underflow)++;
      else if (d.klass == NK_DTYPE_CLASS_SUBNORMAL)
        (*out_subnormal)++;
      else if (d.klass == NK_DTYPE_CLASS_INF)
        (*out_overflow)++;
    }
}

static void
test_histogram_counts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr(NkTensor) t = NULL;
  guint64 bins[NK_TRAIN_HISTOGRAM_N_BINS] = { 0 };
  guint64 zeros = 0, nonfinite = 0;
  NkTrainHistogram h;
  /* The edges, both sides: fp16's half smallest subnormal 2⁻²⁵ (a tie: to 0), its
   * smallest normal less half a subnormal step (a tie: up to normal), its largest
   * finite plus half an ulp 65520 (a tie: to inf); bf16's 2⁻¹³⁴ and 2⁻¹²⁶ − 2⁻¹³⁴. */
  const double edges[] = {
    0x1p-25, 0x1p-24, 0x1p-14 - 0x1p-25, 0x1p-14, 65504, 65519, 65520, 1e30,
    0x1p-134, 0x1p-133, 0x1p-126 - 0x1p-134, 0x1p-126, 0x1p-149, 3.3895313892515355e38,
  };
  float v;

  /* A sweep through and around fp16's subnormals, 2⁻³⁰ .. 2⁻¹⁰, 37 values a binade */
  for (int e = -30; e < -10; e++)
    for (int k = 0; k < 37; k++)
      {
        v = (float) ldexp (1.0 + k / 37.0, e);
        g_array_append_val (values, v);
        v = -v;
        g_array_append_val (values, v);
      }
  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    for (int dir = -1; dir <= 1; dir++)
      {
        v = dir == 0 ? (float) edges[i] : nextafterf ((float) edges[i], dir * INFINITY);
        g_array_append_val (values, v);
      }
  v = 0.0f; g_array_append_val (values, v);
  v = -0.0f; g_array_append_val (values, v);
  v = INFINITY; g_array_append_val (values, v);
  v = NAN; g_array_append_val (values, v);
  for (guint i = 0; i < values->len; i++)
    {
      float x = g_array_index (values, float, i);

      zeros += x == 0.0f;
      nonfinite += !isfinite (x);
    }

  t = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_F32, NK_SHAPE (values->len),
                          NK_BUCKET_OTHER, FALSE, &error);
  g_assert_no_error (error);
  memcpy (nk_tensor_data_f32 (t), values->data, values->len * sizeof (float));
  g_assert_true (nk_train_histogram_compute (t, &h, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (h.total, ==, values->len);
  g_assert_cmpuint (h.zeros, ==, zeros);
  g_assert_cmpuint (h.nonfinite, ==, nonfinite);
  g_assert_cmpuint (h.below + h.above, ==, 0);
  for (guint f = 0; f < NK_TRAIN_HISTOGRAM_N_FORMATS; f++)
    {
      guint64 u, sub, o;

      brute_force_counts ((float *) values->data, values->len, nk_train_histogram_format_dtype (f),
                          &u, &sub, &o, f == 0 ? bins : NULL);
      g_test_message ("%s: %" G_GUINT64_FORMAT " underflow, %" G_GUINT64_FORMAT " subnormal, %"
                      G_GUINT64_FORMAT " overflow", f == 0 ? "fp16" : "bf16", u, sub, o);
      g_assert_cmpuint (h.underflow[f], ==, u);
      g_assert_cmpuint (h.subnormal[f], ==, sub);
      g_assert_cmpuint (h.overflow[f], ==, o);
      /* the sweep straddles fp16's subnormals: all three outcomes occur */
      if (f == NK_TRAIN_HISTOGRAM_F16)
        g_assert_true (u > 0 && sub > 0 && o > 0);
    }
  for (guint i = 0; i < NK_TRAIN_HISTOGRAM_N_BINS; i++)
    g_assert_cmpuint (h.bins[i], ==, bins[i]);
}

/* A run that histograms its gradients: every N steps (and at the first and last),
 * of the tensor chosen, which a brute-force recount over its gradient agrees with. */
static void
test_histogram_in_run (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(GError) error = NULL;
  NkTrainHistogram h;

  c->steps = 7;
  c->histogram_every = 3;
  t = nk_trainer_new (c);
  g_assert_false (nk_trainer_get_histogram (t, &h));
  nk_trainer_set_histogram_source (t, "layers.1.weight", FALSE);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (nk_trainer_get_histogram (t, &h));
  /* the last step is always taken */
  g_assert_cmpuint (h.step, ==, 7);
  g_assert_cmpstr (h.name, ==, "layers.1.weight");
  g_assert_false (h.gradient);
  g_assert_cmpuint (h.total, ==, 16 * 16);
  {
    /* every element is counted exactly once */
    guint64 sum = h.zeros + h.nonfinite + h.below + h.above;

    for (guint i = 0; i < NK_TRAIN_HISTOGRAM_N_BINS; i++)
      sum += h.bins[i];
    g_assert_cmpuint (sum, ==, h.total);
  }
}

static void
test_histogram_default_source (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(GError) error = NULL;
  NkTrainHistogram h;

  c->steps = 2;
  c->histogram_every = 100;
  t = nk_trainer_new (c);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_true (nk_trainer_get_histogram (t, &h));
  /* the last layer's weight gradient, [1, D] */
  g_assert_cmpstr (h.name, ==, "final.weight");
  g_assert_true (h.gradient);
  g_assert_cmpuint (h.total, ==, 16);
  g_assert_cmpfloat (h.scale, ==, 1.0);
}

/* fp16 with an absurd first scale: every step overflows until the scale has been
 * halved into range; the counter says how many, as the history does step by step. */
static void
test_fp16_skipped_counter (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) h = NULL;
  guint64 skipped = 0;
  const NkTrainMetrics *last;

  c->precision = NK_PRECISION_FP16_MIXED;
  c->loss_scale_init = 0x1p100;
  c->steps = 120;
  t = nk_trainer_new (c);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_no_error (error);
  h = nk_trainer_get_history (t);
  for (guint i = 0; i < h->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (h, NkTrainMetrics, i);

      skipped += m->skipped;
      g_assert_cmpuint (m->skipped_steps, ==, skipped);
    }
  last = &g_array_index (h, NkTrainMetrics, h->len - 1);
  g_assert_cmpuint (nk_trainer_get_skipped_steps (t), ==, skipped);
  /* 2¹⁰⁰ · loss overflows fp16 (max 65504) until at least ~85 halvings */
  g_assert_cmpuint (skipped, >=, 85);
  /* fewer than 2000 good steps, so the scale never grew: it was only halved */
  g_assert_cmpfloat (last->loss_scale * ldexp (1.0, (int) (skipped - last->skipped)), ==, 0x1p100);
}

/* ---- history, checkpoints, prediction --------------------------------------------- */

static void
test_history_ring (void)
{
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) all = NULL;
  g_autoptr(GArray) tail = NULL;
  g_autoptr(GArray) none = NULL;
  g_autoptr(GArray) early = NULL;

  c->steps = 50;
  c->history_limit = 16;
  t = nk_trainer_new (c);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  all = nk_trainer_get_history (t);
  /* the newest 16 steps, oldest first */
  g_assert_cmpuint (all->len, ==, 16);
  for (guint i = 0; i < all->len; i++)
    g_assert_cmpuint (g_array_index (all, NkTrainMetrics, i).step, ==, 35 + i);
  tail = nk_trainer_get_history_range (t, 45);
  g_assert_cmpuint (tail->len, ==, 6);
  for (guint i = 0; i < tail->len; i++)
    g_assert_true (memcmp (&g_array_index (tail, NkTrainMetrics, i),
                           &g_array_index (all, NkTrainMetrics, 10 + i), sizeof (NkTrainMetrics)) == 0);
  none = nk_trainer_get_history_range (t, 51);
  g_assert_cmpuint (none->len, ==, 0);
  /* steps already dropped are not there to give */
  early = nk_trainer_get_history_range (t, 1);
  g_assert_cmpuint (early->len, ==, 16);
}

typedef struct {
  guint64  steps_seen;
  guint64  steps[8];
  char    *paths[8];
  guint    n;
} Written;

static void
on_written (NkTrainer  *trainer,
            guint64     step,
            const char *path,
            Written    *w)
{
  /* announced after its step */
  g_assert_cmpuint (w->steps_seen, >=, step);
  g_assert_cmpuint (w->n, <, G_N_ELEMENTS (w->steps));
  w->steps[w->n] = step;
  w->paths[w->n++] = g_strdup (path);
}

static void
on_step_count (NkTrainer            *trainer,
               const NkTrainMetrics *m,
               Written              *w)
{
  w->steps_seen = m->step;
  if (m->step == 3)
    nk_trainer_checkpoint_now (trainer);
}

static void
test_checkpoint_written_signal (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) c = small_config ();
  g_autoptr(NkTrainer) t = NULL;
  g_autofree char *dir = g_dir_make_tmp ("napkin-ckw-XXXXXX", &error);
  g_autoptr(GPtrArray) files = NULL;
  Written w = { 0 };

  c->steps = 10;
  c->checkpoint_dir = g_strdup (dir);
  c->checkpoint_every = 5;
  c->checkpoint_keep = 0;
  t = nk_trainer_new (c);
  g_signal_connect (t, "step", G_CALLBACK (on_step_count), &w);
  g_signal_connect (t, "checkpoint-written", G_CALLBACK (on_written), &w);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  /* the interval's 5 and 10, and the request after step 3, written after step 4:
   * each announced with the file nk-checkpoint names for its step */
  g_assert_cmpuint (w.n, ==, 3);
  g_assert_cmpuint (w.steps[0], ==, 4);
  g_assert_cmpuint (w.steps[1], ==, 5);
  g_assert_cmpuint (w.steps[2], ==, 10);
  files = nk_checkpoint_list (dir, &error);
  g_assert_cmpuint (files->len, ==, 3);
  for (guint i = 0; i < w.n; i++)
    {
      g_autofree char *expected = nk_checkpoint_path_for_step (dir, w.steps[i]);

      g_assert_cmpstr (w.paths[i], ==, expected);
      g_assert_true (g_file_test (w.paths[i], G_FILE_TEST_IS_REGULAR));
      g_unlink (w.paths[i]);
      g_free (w.paths[i]);
    }
  g_rmdir (dir);
}

/* The prediction before a run is what the built model and the run itself say. */
static void
test_prediction (void)
{
  const struct { NkModelKind kind; guint dim, layers, batch; NkPrecision precision; } cases[] = {
    { NK_MODEL_CRUNCHER, 16, 2, 4, NK_PRECISION_FP32 },
    { NK_MODEL_CRUNCHER, 8, 0, 3, NK_PRECISION_BF16_MIXED },
    { NK_MODEL_TINY_LM, 16, 1, 2, NK_PRECISION_FP16_MIXED },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NkTrainConfig) c = small_config ();
      g_autoptr(NkTrainer) t = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) h = NULL;
      g_auto(GStrv) names = NULL;
      const char *const *built;
      const NkTrainMetrics *m;
      NkTrainPrediction p;
      guint n = 0;

      c->model = cases[i].kind;
      c->dim = cases[i].dim;
      c->layers = cases[i].layers;
      c->batch = cases[i].batch;
      c->context = 8;
      c->precision = cases[i].precision;
      c->steps = 1;
      nk_train_config_predict (c, 2e9, &p);
      t = nk_trainer_new (c);
      g_assert_true (nk_trainer_run_sync (t, NULL, &error));
      g_assert_no_error (error);
      h = nk_trainer_get_history (t);
      m = &g_array_index (h, NkTrainMetrics, 0);

      g_assert_cmpuint (p.n_parameters, ==, nk_trainer_get_n_parameters (t));
      for (guint b = 0; b < 4; b++)
        g_assert_cmpfloat (p.memory[b], ==, m->predicted[b]);
      /* nk-plan's 6 · N · tokens, and the time at the rate given */
      g_assert_cmpfloat (p.flops_per_step, ==,
                         6.0 * (double) p.n_parameters * c->batch * (c->model == NK_MODEL_TINY_LM ? 8 : 1));
      g_assert_cmpfloat_with_epsilon (p.seconds_per_step, p.flops_per_step / 2e9, 1e-15);
      names = nk_train_config_dup_param_names (c);
      built = nk_model_get_param_names (nk_trainer_get_model (t));
      for (; built[n] != NULL; n++)
        g_assert_cmpstr (names[n], ==, built[n]);
      g_assert_null (names[n]);
    }
  {
    g_autoptr(NkTrainConfig) c = small_config ();
    NkTrainPrediction p;

    nk_train_config_predict (c, NAN, &p);
    g_assert_true (isnan (p.seconds_per_step));
  }
}

/* The measured rate: positive, below the derived peak by the lecture's
 * reasoning (no device beats its peak; 1.5× allows for a turbo clock above the
 * nominal), and asked twice, the same number (measured once). */
static void
test_gemm_rate (void)
{
  g_autoptr(GError) error = NULL;
  double rate, again, peeked;
  double peak = nk_cpu_info_get ()->peak_fp32;
  g_autofree char *reason = NULL;

  rate = nk_train_gemm_rate_measure_sync ("cpu", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (isfinite (rate) && rate > 0);
  if (isfinite (peak) && peak > 0)
    g_assert_cmpfloat (rate, <, 1.5 * peak);
  g_assert_true (nk_train_gemm_rate_peek ("cpu", &peeked, &reason));
  g_assert_null (reason);
  g_assert_cmpfloat (peeked, ==, rate);
  again = nk_train_gemm_rate_measure_sync ("cpu", NULL, &error);
  g_assert_cmpfloat (again, ==, rate);

  /* a device that is not there: NAN and its reason, remembered */
  rate = nk_train_gemm_rate_measure_sync ("nosuchdevice", NULL, &error);
  g_assert_nonnull (error);
  g_assert_true (isnan (rate));
  g_assert_true (nk_train_gemm_rate_peek ("nosuchdevice", &peeked, &reason));
  g_assert_cmpstr (reason, ==, error->message);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/trainer/determinism", test_determinism);
  g_test_add_func ("/engine/trainer/memory-matches-plan", test_memory_matches_plan);
  g_test_add_func ("/engine/trainer/memory-matches-plan-mixed-lm", test_memory_matches_plan_mixed_lm);
  g_test_add_func ("/engine/trainer/stop-sync", test_stop_sync);
  g_test_add_func ("/engine/trainer/pause-stop-async", test_pause_stop_async);
  g_test_add_func ("/engine/trainer/diverges", test_diverges);
  g_test_add_func ("/engine/trainer/start-without-callback", test_start_without_callback);
  g_test_add_func ("/engine/trainer/cancel-async", test_cancel_async);
  g_test_add_func ("/engine/trainer/bad-config", test_bad_config);
  g_test_add_func ("/engine/trainer/tiny-lm-learns", test_tiny_lm_learns);
  g_test_add_func ("/engine/trainer/bf16-mixed", test_bf16_mixed);
  g_test_add_func ("/engine/trainer/fp16-loss-scaling", test_fp16_loss_scaling);
  g_test_add_func ("/engine/trainer/checkpoint-now", test_checkpoint_now);
  g_test_add_func ("/engine/trainer/checkpoint-dir-other-run", test_checkpoint_dir_other_run);
  g_test_add_func ("/engine/cpuinfo/peak", test_cpu_peak);
  g_test_add_func ("/engine/trainer/histogram/counts", test_histogram_counts);
  g_test_add_func ("/engine/trainer/histogram/in-run", test_histogram_in_run);
  g_test_add_func ("/engine/trainer/histogram/default-source", test_histogram_default_source);
  g_test_add_func ("/engine/trainer/fp16-skipped-counter", test_fp16_skipped_counter);
  g_test_add_func ("/engine/trainer/history-ring", test_history_ring);
  g_test_add_func ("/engine/trainer/checkpoint-written", test_checkpoint_written_signal);
  g_test_add_func ("/engine/trainer/prediction", test_prediction);
  g_test_add_func ("/engine/trainer/gemm-rate", test_gemm_rate);

  return g_test_run ();
}
