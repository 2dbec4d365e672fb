/* nk-train-loop.c: a training run's steps: data, forward, backward, update, checkpoints
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs on whichever thread runs the run and owns every tensor of it; it reaches the
 * #NkTrainer only through nk-trainer-private.h.
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "nk-autograd.h"
#include "nk-autograd-quant.h"
#include "nk-checkpoint.h"
#include "nk-data.h"
#include "nk-device-peak.h"
#include "nk-ops.h"
#include "nk-safetensors.h"
#include "nk-trainer-private.h"

/* fp16 loss scaling: torch.cuda.amp.GradScaler's growth interval. */
#define LOSS_SCALE_GROWTH 2000

typedef struct {
  NkTrainer          *self;
  const NkTrainConfig *config;
  NkModel            *model;
  NkOptim            *optim;
  NkArena            *arena;
  NkArrayDataset     *dataset;
  NkTokenStream      *tokens;
  NkBatchFile        *batches;
  NkTensor           *x_host;   /* DATA, CPU: [B, D] f32, or [B·T] int32 */
  NkTensor           *y_host;   /* DATA, CPU: [B] f32, or [B·T] int32 */
  NkTensor           *x;        /* the same on the run's device (x_host on the CPU) */
  NkTensor           *y;
  NkTensor           *window;   /* DATA, CPU: [B, T+1] int32 (LM) */
  guint64             data_key;
  double              peak;
  double              predicted[4];
  double              flops_formula;
  double              loss_scale;
  guint64             good_steps;
  guint64             skipped_steps;
  gboolean            histogram_taken;
  double              last_loss;   /* of the step the run is after (NAN: none yet) */
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->optim, nk_optim_free);
  g_clear_pointer (&run->arena, nk_arena_free);
  g_clear_pointer (&run->dataset, nk_array_dataset_free);
  g_clear_pointer (&run->tokens, nk_token_stream_free);
  g_clear_pointer (&run->batches, nk_batch_file_free);
  g_clear_pointer (&run->x, nk_tensor_unref);
  g_clear_pointer (&run->y, nk_tensor_unref);
  g_clear_pointer (&run->x_host, nk_tensor_unref);
  g_clear_pointer (&run->y_host, nk_tensor_unref);
  g_clear_pointer (&run->window, nk_tensor_unref);
}

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The data generator at the start of step @step: each step owns 2³² words of the
 * Philox stream, so the batch is a pure function of (seed, step). */
static NkRng *
data_rng_for_step (Run     *run,
                   guint64  step)
{
  return nk_rng_new_from_state (run->data_key, step << 32);
}

static double
device_peak (NkDevice         *device,
             NkPrecision  precision)
{
  return nk_device_get_peak (device, precision == NK_PRECISION_FP32 ? NK_PEAK_FP32
                                      : precision == NK_PRECISION_FP16_MIXED ? NK_PEAK_FP16
                                      : NK_PEAK_BF16);
}

static void
predict_memory (Run *run)
{
  NkTrainPrediction p;

  nk_train_config_predict (run->config, NAN, &p);
  memcpy (run->predicted, p.memory, sizeof run->predicted);
  run->flops_formula = p.flops_per_step;
}

/* Batches are drawn into host buffers, then copied to the device when it is not the
 * CPU; every buffer is allocated once. */
static gboolean
setup_buffers (Run      *run,
               NkDType   dtype,
               int       ndim_x,
               gint64    rows,
               gint64    cols,
               GError  **error)
{
  NkDevice *cpu = nk_device_get_cpu ();
  gint64 shape_x[2] = { rows, cols };
  /* Next-token targets: one per input token. */
  gint64 shape_y[1] = { dtype == NK_DTYPE_INT32 ? rows * cols : rows };

  run->x_host = nk_tensor_new_full (cpu, dtype, ndim_x, shape_x, NK_BUCKET_DATA, TRUE, error);
  if (run->x_host == NULL)
    return FALSE;
  run->y_host = nk_tensor_new_full (cpu, dtype, 1, shape_y, NK_BUCKET_DATA, TRUE, error);
  if (run->y_host == NULL)
    return FALSE;
  if (nk_device_get_default () == cpu)
    {
      run->x = nk_tensor_ref (run->x_host);
      run->y = nk_tensor_ref (run->y_host);
      return TRUE;
    }
  run->x = nk_tensor_new_full (NULL, dtype, ndim_x, shape_x, NK_BUCKET_DATA, TRUE, error);
  run->y = run->x != NULL
           ? nk_tensor_new_full (NULL, dtype, 1, shape_y, NK_BUCKET_DATA, TRUE, error) : NULL;
  return run->y != NULL;
}

/* --batches: the file's B and T must be the run's. */
static gboolean
setup_batches (Run      *run,
               GError  **error)
{
  const NkTrainConfig *c = run->config;

  run->batches = nk_batch_file_new (c->batches_file, nk_train_config_get_vocab (c), error);
  if (run->batches == NULL)
    return FALSE;
  if (nk_batch_file_get_batch (run->batches) != c->batch
      || nk_batch_file_get_context (run->batches) != c->context)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                   _("%s holds batches of %" PRIu64 " sequences of %" PRIu64 " tokens, but the run has --batch %u and --block-size %u."),
                   c->batches_file, nk_batch_file_get_batch (run->batches),
                   nk_batch_file_get_context (run->batches), c->batch, c->context);
      return FALSE;
    }
  return setup_buffers (run, NK_DTYPE_INT32, 2, c->batch, c->context, error);
}

static gboolean
setup_data (Run      *run,
            GError  **error)
{
  const NkTrainConfig *c = run->config;
  NkModelInput input = nk_model_arch_lookup (c->model)->input;

  if (input == NK_MODEL_INPUT_VECTORS)
    {
      if (c->inputs != NULL)
        {
          run->dataset = nk_array_dataset_new (c->inputs, c->targets, c->batch, error);
          if (run->dataset == NULL)
            return FALSE;
          if (nk_array_dataset_get_dim (run->dataset) != c->dim)
            {
              g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                           _("%s has rows of %u values but the model has --dim %u."),
                           c->inputs, nk_array_dataset_get_dim (run->dataset), c->dim);
              return FALSE;
            }
        }
      return setup_buffers (run, NK_DTYPE_F32, 2, c->batch, c->dim, error);
    }

  if (c->batches_file != NULL)
    return setup_batches (run, error);
  if (c->tokens_file != NULL)
    run->tokens = nk_token_stream_new_from_file (c->tokens_file, error);
  else if (c->text_file != NULL)
    run->tokens = nk_token_stream_new_from_text_file (c->text_file, error);
  else
    run->tokens = nk_token_stream_new_default ();
  if (run->tokens == NULL
      || !nk_token_stream_check_vocab (run->tokens, nk_train_config_get_vocab (c), error))
    return FALSE;

  run->window = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32,
                                    NK_SHAPE (c->batch, c->context + 1),
                                    NK_BUCKET_DATA, TRUE, error);
  if (run->window == NULL)
    return FALSE;
  /* A model of sequences (the GPT) reads [B, T]; the tiny LM the same tokens flat. */
  if (input == NK_MODEL_INPUT_SEQUENCES)
    return setup_buffers (run, NK_DTYPE_INT32, 2, c->batch, c->context, error);
  return setup_buffers (run, NK_DTYPE_INT32, 1, (gint64) c->batch * c->context, 1, error);
}

static gboolean
fill_batch (Run      *run,
            guint64   step,
            GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkRng) rng = data_rng_for_step (run, step);

  if (nk_model_arch_lookup (c->model)->input == NK_MODEL_INPUT_VECTORS)
    {
      if (run->dataset != NULL)
        nk_array_dataset_fill (run->dataset, step, nk_tensor_data_f32 (run->x_host),
                               nk_tensor_data_f32 (run->y_host));
      else
        nk_data_synthetic_fill (rng, c->dim, c->batch, nk_tensor_data_f32 (run->x_host),
                                nk_tensor_data_f32 (run->y_host));
    }
  else if (run->batches != NULL)
    nk_batch_file_fill (run->batches, step, nk_tensor_data (run->x_host),
                        nk_tensor_data (run->y_host));
  else
    {
      gint32 *w = nk_tensor_data (run->window);
      gint32 *x = nk_tensor_data (run->x_host);
      gint32 *y = nk_tensor_data (run->y_host);

      if (!nk_token_stream_sample_fill (run->tokens, rng, c->batch, c->context, w, NULL, error))
        return FALSE;
      for (guint b = 0; b < c->batch; b++)
        {
          memcpy (x + (gsize) b * c->context, w + (gsize) b * (c->context + 1),
                  c->context * sizeof (gint32));
          memcpy (y + (gsize) b * c->context, w + (gsize) b * (c->context + 1) + 1,
                  c->context * sizeof (gint32));
        }
    }

  if (run->x != run->x_host
      && (!nk_tensor_copy_ (run->x, run->x_host, error)
          || !nk_tensor_copy_ (run->y, run->y_host, error)))
    return FALSE;
  return TRUE;
}

static gboolean
save_checkpoint (Run      *run,
                 guint64   step,
                 GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_new ();
  g_autoptr(NkRng) rng = data_rng_for_step (run, step);
  g_autofree char *config_json = nk_train_config_to_json (c);
  g_autofree char *path = NULL;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* The run's recorder has every step up to this one on disk before it exists. */
  _nk_trainer_sync_observer (run->self);
  nk_checkpoint_set_step (ck, step);
  nk_checkpoint_set_rng (ck, rng);
  nk_checkpoint_set_config (ck, config_json);
  nk_checkpoint_set_loss (ck, run->last_loss);
  nk_checkpoint_set_metadata (ck, "loss_scale", g_ascii_dtostr (buf, sizeof buf, run->loss_scale));
  g_snprintf (buf, sizeof buf, "%" PRIu64, run->good_steps);
  nk_checkpoint_set_metadata (ck, "good_steps", buf);
  if (c->precision == NK_PRECISION_FP16_MIXED)
    {
      g_snprintf (buf, sizeof buf, "%" PRIu64, run->skipped_steps);
      nk_checkpoint_set_metadata (ck, "skipped_steps", buf);
    }
  if (!nk_model_save_checkpoint (run->model, ck, error)
      || !nk_optim_save_state (run->optim, ck, error)
      || !nk_checkpoint_save (ck, c->checkpoint_dir, c->checkpoint_keep, &path, error))
    return FALSE;

  _nk_trainer_announce_checkpoint (run->self, step, g_steal_pointer (&path));
  return TRUE;
}

static gboolean
resume (Run      *run,
        guint64  *out_step,
        GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(NkCheckpoint) ck = NULL;
  const char *text;
  guint64 step;

  files = nk_checkpoint_list (c->resume_dir, error);
  if (files == NULL)
    return FALSE;
  if (files->len == 0)
    {
      /* Killed before the first checkpoint: there is nothing to lose. */
      *out_step = 0;
      return TRUE;
    }

  ck = nk_checkpoint_find_latest_intact (c->resume_dir, NULL, error);
  if (ck == NULL)
    return FALSE;
  {
    g_autofree char *config_json = nk_train_config_to_json (c);

    if (!nk_checkpoint_check_resume (ck, config_json, c->steps, error))
      return FALSE;
  }
  step = nk_checkpoint_get_step (ck);
  run->last_loss = nk_checkpoint_get_loss (ck);
  if (!nk_model_load_checkpoint (run->model, ck, error)
      || !nk_optim_load_state (run->optim, ck, step, error))
    {
      g_prefix_error (error, _("Cannot resume from %s: "), nk_checkpoint_get_path (ck));
      return FALSE;
    }
  if ((text = nk_checkpoint_get_metadata (ck, "loss_scale")) != NULL)
    run->loss_scale = g_ascii_strtod (text, NULL);
  if ((text = nk_checkpoint_get_metadata (ck, "good_steps")) != NULL)
    run->good_steps = g_ascii_strtoull (text, NULL, 10);
  if ((text = nk_checkpoint_get_metadata (ck, "skipped_steps")) != NULL)
    run->skipped_steps = g_ascii_strtoull (text, NULL, 10);
  *out_step = MIN (step, c->steps);
  return TRUE;
}

static gboolean
grads_finite (NkModel *model)
{
  guint n;
  NkTensor **params = nk_model_get_params (model, &n);

  for (guint i = 0; i < n; i++)
    {
      NkTensor *g = params[i]->grad;
      gint64 numel = nk_tensor_numel (g);

      if (nk_device_get_kind (nk_tensor_get_device (g)) == NK_DEVICE_CPU)
        {
          const float *d = nk_tensor_data_f32 (g);

          for (gint64 j = 0; j < numel; j++)
            if (!isfinite (d[j]))
              return FALSE;
        }
      else
        {
          /* A device gradient is read back (fp16 runs only). */
          g_autofree double *d = nk_tensor_to_doubles (g, NULL);

          for (gint64 j = 0; j < numel; j++)
            if (!isfinite (d[j]))
              return FALSE;
        }
    }
  return TRUE;
}

static gboolean
unscale_grads (NkModel  *model,
               double    scale,
               GError  **error)
{
  guint n;
  NkTensor **params = nk_model_get_params (model, &n);

  for (guint i = 0; i < n; i++)
    if (!nk_mul_scalar_ (params[i]->grad, 1.0 / scale, error))
      return FALSE;
  return TRUE;
}

/* Worker: the histogram of the chosen tensor, stored for nk_trainer_get_histogram().
 * A histogram that cannot be taken leaves the last one; the run goes on. */
static void
take_histogram (Run     *run,
                guint64  step,
                double   scale)
{
  NkTrainer *self = run->self;
  g_autofree char *name = NULL;
  const char *const *names = nk_model_get_param_names (run->model);
  NkTensor **params;
  NkTrainHistogram h;
  gboolean gradient;
  guint n, index = G_MAXUINT;

  name = _nk_trainer_dup_histogram_source (self, &gradient);

  params = nk_model_get_params (run->model, &n);
  for (guint i = 0; name != NULL && i < n; i++)
    if (g_str_equal (names[i], name))
      index = i;
  if (index == G_MAXUINT)
    {
      /* The last layer's weight gradient. */
      gradient = TRUE;
      for (guint i = 0; i < n; i++)
        if (g_str_has_suffix (names[i], ".weight"))
          index = i;
    }
  if (index == G_MAXUINT
      || !nk_train_histogram_compute (gradient ? params[index]->grad : params[index], &h, NULL))
    return;
  h.step = step;
  g_strlcpy (h.name, names[index], sizeof h.name);
  h.gradient = gradient;
  h.scale = gradient ? scale : 1.0;

  _nk_trainer_store_histogram (self, &h);
}

/* Worker: a GPT's text after @step (nk_trainer_dup_sample()). On a GPU the model is
 * copied to the CPU for it; a sample that cannot be drawn leaves the last one. */
static void
take_sample (Run     *run,
             guint64  step)
{
  const guint32 prompt[] = { '\n' };
  g_autoptr(NkRng) rng = nk_rng_new (run->config->seed ^ step);
  g_autoptr(GArray) tokens = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  NkDType autocast;
  gboolean paused;

  if (nk_device_get_default () != nk_device_get_cpu ())
    return;
  /* The sample runs in fp32 whatever the run's precision, outside its arena. */
  autocast = nk_autograd_set_autocast (NK_DTYPE_F32);
  paused = nk_autograd_pause_block_quant (TRUE);
  tokens = nk_model_get_arch (run->model)->generate (run->model, prompt, 1, NK_TRAINER_SAMPLE_TOKENS,
                                                     0.8, 200, rng, NULL);
  nk_autograd_pause_block_quant (paused);
  nk_autograd_set_autocast (autocast);
  if (tokens == NULL)
    return;
  for (guint i = 0; i < tokens->len; i++)
    if (g_array_index (tokens, guint32, i) < 256)
      g_string_append_c (text, (char) g_array_index (tokens, guint32, i));
  _nk_trainer_store_sample (run->self, step, g_utf8_make_valid (text->str, text->len));
}

static gboolean
histogram_due (Run     *run,
               guint64  step)
{
  const NkTrainConfig *c = run->config;

  if (c->histogram_every == 0)
    return FALSE;
  return _nk_trainer_histogram_source_changed (run->self) || !run->histogram_taken
         || step % c->histogram_every == 0 || step == c->steps;
}

/* The step's clock and FLOP counter readings, phase by phase. */
typedef struct {
  double  t0, t1, t2, t2h, t3;
  guint64 f0, f1;
} StepClock;

/* Batch, forward and backward of step @step: @m gets the loss, @clock the readings. */
static gboolean
forward_backward (Run            *run,
                  guint64         step,
                  NkTrainMetrics *m,
                  StepClock      *clock,
                  GError        **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkTensor) loss = NULL;
  gboolean fp16 = c->precision == NK_PRECISION_FP16_MIXED;

  if (!fill_batch (run, step, error))
    return FALSE;

  nk_arena_reset (run->arena);
  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();
  /* The stochastic rounding's draws are a function of (seed, step): resume repeats them. */
  nk_autograd_seek_block_quant (step);

  clock->t0 = now_seconds ();
  loss = nk_model_loss (run->model, run->x, run->y, error);
  if (loss == NULL || !nk_tensor_item (loss, &m->loss, error))
    return FALSE;
  clock->f0 = nk_flops_get ();
  clock->t1 = now_seconds ();

  if (!isfinite (m->loss) && !fp16)
    {
      nk_autograd_release (loss);
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_DIVERGED,
                   _("The loss became %s at step %" PRIu64 ": the run diverged (try a smaller --lr than %g or another --optimizer)."),
                   isnan (m->loss) ? "NaN" : "infinite", step + 1, c->lr);
      return FALSE;
    }

  if (!nk_autograd_backward_scaled (loss, fp16 ? run->loss_scale : 1.0, error))
    return FALSE;
  clock->f1 = nk_flops_get ();
  if (!nk_device_synchronize (nk_device_get_default (), error))
    return FALSE;
  clock->t2 = now_seconds ();
  return TRUE;
}

/* The optimizer's part: in fp16 an overflowed step is skipped and the scale
 * follows GradScaler's rule (halve on overflow, double after a run of good steps). */
static gboolean
update (Run            *run,
        NkTrainMetrics *m,
        GError        **error)
{
  gboolean fp16 = run->config->precision == NK_PRECISION_FP16_MIXED;

  m->loss_scale = fp16 ? run->loss_scale : 1.0;
  if (fp16 && (!isfinite (m->loss) || !grads_finite (run->model)))
    {
      m->skipped = TRUE;
      run->skipped_steps++;
      run->loss_scale /= 2.0;
      run->good_steps = 0;
    }
  else
    {
      if (fp16 && !unscale_grads (run->model, run->loss_scale, error))
        return FALSE;
      if (!nk_optim_step (run->optim, error))
        return FALSE;
      if (fp16 && ++run->good_steps >= LOSS_SCALE_GROWTH)
        {
          run->loss_scale *= 2.0;
          run->good_steps = 0;
        }
    }
  return nk_model_zero_grad (run->model, error)
         && nk_device_synchronize (nk_device_get_default (), error);
}

static void
fill_step_metrics (Run             *run,
                   const StepClock *k,
                   NkTrainMetrics  *m)
{
  NkDevice *device = nk_device_get_default ();

  m->flops_forward = k->f0;
  m->flops_backward = k->f1 - k->f0;
  m->flops = k->f1;
  m->flops_matmul = nk_autograd_get_matmul_flops ();
  m->flops_attention = nk_autograd_get_flops (NK_FLOP_KIND_ATTENTION);
  m->flops_norm = nk_autograd_get_flops (NK_FLOP_KIND_NORM);
  m->flops_activation = nk_autograd_get_flops (NK_FLOP_KIND_ACTIVATION);
  m->flops_softmax = nk_autograd_get_flops (NK_FLOP_KIND_SOFTMAX);
  m->flops_embedding = nk_autograd_get_flops (NK_FLOP_KIND_EMBEDDING);
  m->flops_formula = run->flops_formula;
  m->seconds_forward = k->t1 - k->t0;
  m->seconds_backward = k->t2 - k->t1;
  m->seconds_optimizer = k->t3 - k->t2h;
  /* The histogram's time is no part of the step's. */
  m->seconds = (k->t3 - k->t0) - (k->t2h - k->t2);
  m->skipped_steps = run->skipped_steps;
  m->flops_per_s = m->seconds > 0 ? (double) m->flops / m->seconds : NAN;
  m->peak_flops_per_s = run->peak;
  m->mfu = m->flops_per_s / run->peak;
  for (int b = 0; b < NK_N_BUCKETS; b++)
    nk_device_get_bytes (device, b, &m->memory[b], &m->memory_peak[b]);
  memcpy (m->predicted, run->predicted, sizeof m->predicted);
  m->precision = run->config->precision;
  {
    NkQuantizeStats q;

    nk_autograd_take_quant_stats (&q);
    m->quant_elements = q.elements;
    m->quant_flushed = q.elements > 0 ? (double) q.flushed / (double) q.elements : 0.0;
    m->quant_clipped = q.elements > 0 ? (double) q.clipped / (double) q.elements : 0.0;
  }
}

/* One step (@step counts from 0); fills @m. */
static gboolean
run_step (Run            *run,
          guint64         step,
          NkTrainMetrics *m,
          GError        **error)
{
  gboolean fp16 = run->config->precision == NK_PRECISION_FP16_MIXED;
  StepClock clock;

  memset (m, 0, sizeof *m);
  m->step = step + 1;

  if (!forward_backward (run, step, m, &clock, error))
    return FALSE;

  /* Between backward and the update the gradients are there to see (and, in fp16,
   * still scaled, as fp16 holds them). */
  if (histogram_due (run, m->step))
    {
      take_histogram (run, m->step, fp16 ? run->loss_scale : 1.0);
      run->histogram_taken = TRUE;
    }
  clock.t2h = now_seconds ();

  if (!update (run, m, error))
    return FALSE;
  clock.t3 = now_seconds ();

  /* After the step's clock: the sample's time is no part of it. */
  if (nk_model_get_arch (run->model)->generate != NULL && run->config->sample_every > 0
      && (m->step % run->config->sample_every == 0 || m->step == run->config->steps))
    take_sample (run, m->step);

  fill_step_metrics (run, &clock, m);
  return TRUE;
}

static gboolean
same_directory (const char *a,
                const char *b)
{
  g_autofree char *ca = NULL;
  g_autofree char *cb = NULL;

  if (a == NULL || b == NULL)
    return FALSE;
  ca = g_canonicalize_filename (a, NULL);
  cb = g_canonicalize_filename (b, NULL);
  return g_str_equal (ca, cb);
}

/* Checks that need no work done yet: the numbers, and that a run which does not
 * resume from its checkpoint directory will not write over another run's
 * checkpoints there. */
static gboolean
check_before_start (const NkTrainConfig  *c,
                    GError              **error)
{
  if (!nk_train_config_validate (c, error))
    return FALSE;
  if (c->checkpoint_dir != NULL && !same_directory (c->checkpoint_dir, c->resume_dir))
    {
      g_autofree char *config_json = nk_train_config_to_json (c);

      if (!nk_checkpoint_check_dir (c->checkpoint_dir, config_json, error))
        return FALSE;
    }
  return TRUE;
}

/* Returns: (transfer full) (nullable): the model, initialised from the seed and
 * then from the config's init file, if any */
static NkModel *
build_model (const NkTrainConfig  *c,
             GError              **error)
{
  g_autoptr(NkRng) init_rng = nk_rng_new (c->seed);
  NkModelShape shape;
  NkModel *model;

  nk_train_config_get_shape (c, &shape);
  model = nk_model_new (c->model, &shape, NK_DTYPE_F32, error);
  if (model == NULL)
    return NULL;
  if (!nk_model_init (model, init_rng, c->init_kind, error))
    goto fail;
  if (c->init_file != NULL)
    {
      g_autoptr(NkSafetensors) st = nk_safetensors_load (c->init_file, error);

      if (st == NULL || !nk_init_check_finite (st, error)
          || !nk_model_load_state_dict (model, st, error))
        goto fail;
    }
  return model;

fail:
  nk_model_free (model);
  return NULL;
}

/* Model (handed to the trainer), optimizer, data, and the resumed state; @out_step
 * is the step the run starts after. */
static gboolean
setup_run (Run      *run,
           NkDevice *device,
           guint64  *out_step,
           GError  **error)
{
  const NkTrainConfig *c = run->config;
  NkTensor **params;
  guint n_params;

  run->data_key = c->seed ^ G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  run->last_loss = NAN;
  run->loss_scale = c->precision == NK_PRECISION_FP16_MIXED ? c->loss_scale_init : 1.0;

  run->model = build_model (c, error);
  if (run->model == NULL)
    return FALSE;
  /* The trainer owns it from here (nk_trainer_get_model(), nk_trainer_save()). */
  _nk_trainer_set_model (run->self, run->model);

  params = nk_model_get_params (run->model, &n_params);
  run->optim = nk_optim_new (c->optimizer, c->lr, params,
                             nk_model_get_param_names (run->model), n_params, error);
  if (run->optim == NULL || !setup_data (run, error))
    return FALSE;

  *out_step = 0;
  if (c->resume_dir != NULL && !resume (run, out_step, error))
    return FALSE;
  _nk_trainer_set_start_step (run->self, *out_step);

  run->peak = device_peak (device, c->precision);
  predict_memory (run);
  nk_device_reset_peak (device);
  return TRUE;
}

/* The steps after @step up to the config's, each published; a stop with a
 * checkpoint request pending writes that checkpoint. */
static gboolean
run_steps (Run           *run,
           guint64        step,
           GCancellable  *cancellable,
           GError       **error)
{
  const NkTrainConfig *c = run->config;
  NkTrainer *self = run->self;

  for (; step < c->steps; step++)
    {
      NkTrainMetrics m;
      gboolean checkpoint;

      if (!_nk_trainer_wait_if_paused (self, cancellable))
        break;
      if (!run_step (run, step, &m, error))
        return FALSE;
      run->last_loss = m.loss;
      _nk_trainer_record_step (self, &m);

      checkpoint = c->checkpoint_dir != NULL
                   && ((c->checkpoint_every > 0 && m.step % c->checkpoint_every == 0)
                       || m.step == c->steps
                       || _nk_trainer_take_checkpoint_request (self));
      if (checkpoint && !save_checkpoint (run, m.step, error))
        return FALSE;
      _nk_trainer_publish (self, &m);
    }

  if (step < c->steps && c->checkpoint_dir != NULL && _nk_trainer_checkpoint_requested (self))
    return save_checkpoint (run, step, error);
  return TRUE;
}

/* The per-thread settings a run changes, restored when it ends. */
typedef struct {
  NkDevice *device;
  NkBucket  bucket;
  NkArena  *arena;
  NkDType   autocast;
} ThreadDefaults;

static void
enter_run (Run            *run,
           NkDevice       *device,
           ThreadDefaults *saved)
{
  saved->device = nk_device_get_default ();
  nk_device_set_default (device);
  /* Temporaries inside nk-ops must not pass for activations. */
  saved->bucket = nk_storage_set_default_bucket (NK_BUCKET_OTHER);
  run->arena = nk_arena_new ();
  saved->arena = nk_arena_set_current (run->arena);
  saved->autocast = nk_autograd_set_autocast (nk_train_config_compute_dtype (run->config));
  /* mxfp8 uses E4M3 for every operand, gradients included, as NVIDIA's MXFP8 recipe
   * does (Transformer Engine's MXFP8BlockScaling: "E4M3 is used for all tensors",
   * since the per-32 scale gives each block the range E5M2 was there for); nvfp4 has
   * 1×16 blocks for every operand (the NVFP4 paper's 16×16 weight blocks are left
   * out), rotates the weight gradient's operands by a random Hadamard transform and
   * rounds dy stochastically. */
  if (run->config->precision == NK_PRECISION_MXFP8)
    nk_autograd_set_block_quant (NK_BLOCK_FORMAT_MXFP8_E4M3, 32, run->config->mx_scale,
                                 FALSE, run->config->seed);
  else if (run->config->precision == NK_PRECISION_NVFP4)
    nk_autograd_set_block_quant (NK_BLOCK_FORMAT_NVFP4, 16, NK_MX_SCALE_UP,
                                 !run->config->nvfp4_nearest, run->config->seed);
}

static void
leave_run (Run                  *run,
           const ThreadDefaults *saved)
{
  run_clear (run);
  nk_autograd_clear_block_quant ();
  nk_autograd_set_autocast (saved->autocast);
  nk_arena_set_current (saved->arena);
  nk_storage_set_default_bucket (saved->bucket);
  nk_device_set_default (saved->device);
}

gboolean
_nk_train_loop_run (NkTrainer     *self,
                    GCancellable  *cancellable,
                    GError       **error)
{
  const NkTrainConfig *c = nk_trainer_get_config (self);
  g_autoptr(NkCheckpointLock) lock = NULL;
  Run run = { 0, };
  ThreadDefaults saved;
  NkDevice *device;
  guint64 step = 0;
  gboolean ok;

  if (!check_before_start (c, error))
    return FALSE;
  /* One writer per folder, held to the end; taking it also proves before step 1
   * that the folder can be written. */
  if (c->checkpoint_dir != NULL
      && (lock = nk_checkpoint_lock (c->checkpoint_dir, error)) == NULL)
    return FALSE;
  device = nk_device_lookup (c->device != NULL ? c->device : "cpu", error);
  if (device == NULL)
    return FALSE;
  _nk_trainer_set_device (self, device);

  run.self = self;
  run.config = c;
  enter_run (&run, device, &saved);
  ok = setup_run (&run, device, &step, error)
       && run_steps (&run, step, cancellable, error);
  leave_run (&run, &saved);
  return ok;
}
