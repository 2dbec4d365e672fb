/* nk-trainer.c: one toy training run on a worker thread, with honest accounting
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "nk-autograd.h"
#include "nk-checkpoint.h"
#include "nk-cpuinfo.h"
#include "nk-data.h"
#include "nk-gpus.h"
#include "nk-ops.h"
#include "nk-optim.h"
#include "nk-safetensors.h"
#include "nk-trainer.h"

G_DEFINE_QUARK (nk-trainer-error-quark, nk_trainer_error)

/* fp16 loss scaling: torch.cuda.amp.GradScaler's defaults. */
#define LOSS_SCALE_INIT     65536.0
#define LOSS_SCALE_GROWTH   2000

/* ---- config ---------------------------------------------------------------------- */

NkTrainConfig *
nk_train_config_new (void)
{
  NkTrainConfig *config = g_new0 (NkTrainConfig, 1);

  config->model = NK_MODEL_CRUNCHER;
  config->dim = 64;
  config->layers = 2;
  config->batch = 8;
  config->context = 32;
  config->steps = 100;
  config->lr = 0.01;
  config->optimizer = NK_OPTIMIZER_ADAMW;
  config->device = g_strdup ("cpu");
  config->precision = NK_TRAIN_PRECISION_FP32;
  config->init_kind = NK_INIT_TRUNC_NORMAL;
  config->checkpoint_keep = 3;
  config->history_limit = 10000;
  return config;
}

NkTrainConfig *
nk_train_config_copy (const NkTrainConfig *config)
{
  NkTrainConfig *copy = g_memdup2 (config, sizeof *config);

  copy->device = g_strdup (config->device);
  copy->init_file = g_strdup (config->init_file);
  copy->inputs = g_strdup (config->inputs);
  copy->targets = g_strdup (config->targets);
  copy->text_file = g_strdup (config->text_file);
  copy->checkpoint_dir = g_strdup (config->checkpoint_dir);
  copy->resume_dir = g_strdup (config->resume_dir);
  return copy;
}

void
nk_train_config_free (NkTrainConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->device);
  g_free (config->init_file);
  g_free (config->inputs);
  g_free (config->targets);
  g_free (config->text_file);
  g_free (config->checkpoint_dir);
  g_free (config->resume_dir);
  g_free (config);
}

G_DEFINE_BOXED_TYPE (NkTrainConfig, nk_train_config, nk_train_config_copy, nk_train_config_free)

GType
nk_trainer_state_get_type (void)
{
  static gsize type_id;

  if (g_once_init_enter (&type_id))
    {
      static const GEnumValue values[] = {
        { NK_TRAINER_STATE_IDLE, "NK_TRAINER_STATE_IDLE", "idle" },
        { NK_TRAINER_STATE_RUNNING, "NK_TRAINER_STATE_RUNNING", "running" },
        { NK_TRAINER_STATE_PAUSED, "NK_TRAINER_STATE_PAUSED", "paused" },
        { NK_TRAINER_STATE_FINISHED, "NK_TRAINER_STATE_FINISHED", "finished" },
        { NK_TRAINER_STATE_STOPPED, "NK_TRAINER_STATE_STOPPED", "stopped" },
        { NK_TRAINER_STATE_FAILED, "NK_TRAINER_STATE_FAILED", "failed" },
        { 0, NULL, NULL },
      };
      g_once_init_leave (&type_id, g_enum_register_static ("NkTrainerState", values));
    }
  return type_id;
}

const char *
nk_train_precision_to_string (NkTrainPrecision precision)
{
  switch (precision)
    {
    case NK_TRAIN_PRECISION_BF16_MIXED: return "bf16-mixed";
    case NK_TRAIN_PRECISION_FP16: return "fp16";
    case NK_TRAIN_PRECISION_FP32:
    default: return "fp32";
    }
}

gboolean
nk_train_precision_from_string (const char       *text,
                                NkTrainPrecision *out_precision)
{
  if (g_strcmp0 (text, "fp32") == 0)
    *out_precision = NK_TRAIN_PRECISION_FP32;
  else if (g_strcmp0 (text, "bf16-mixed") == 0)
    *out_precision = NK_TRAIN_PRECISION_BF16_MIXED;
  else if (g_strcmp0 (text, "fp16") == 0 || g_strcmp0 (text, "fp16-mixed") == 0)
    *out_precision = NK_TRAIN_PRECISION_FP16;
  else
    return FALSE;
  return TRUE;
}

gboolean
nk_train_config_validate (const NkTrainConfig  *config,
                          GError              **error)
{
  g_return_val_if_fail (config != NULL, FALSE);

  if (!(config->lr > 0.0) || !isfinite (config->lr))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The learning rate --lr must be a positive number, not %g."), config->lr);
      return FALSE;
    }
  if (config->dim == 0 || config->dim > 65536)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--dim must be between 1 and 65536, not %u."), config->dim);
      return FALSE;
    }
  if (config->layers > 4096)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--layers must be at most 4096, not %u."), config->layers);
      return FALSE;
    }
  if (config->batch == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--batch must be at least 1."));
      return FALSE;
    }
  if (config->steps == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--steps must be at least 1."));
      return FALSE;
    }
  if (config->model == NK_MODEL_TINY_LM && config->context == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The context length must be at least 1 token."));
      return FALSE;
    }
  if ((config->inputs == NULL) != (config->targets == NULL))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--inputs and --targets go together: give both or neither."));
      return FALSE;
    }
  if (config->checkpoint_every > 0 && config->checkpoint_dir == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--checkpoint-every needs --checkpoint-dir."));
      return FALSE;
    }
  return TRUE;
}

char *
nk_train_config_to_json (const NkTrainConfig *config)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, nk_model_kind_to_string (config->model));
  json_builder_set_member_name (b, "dim");
  json_builder_add_int_value (b, config->dim);
  json_builder_set_member_name (b, "layers");
  json_builder_add_int_value (b, config->layers);
  json_builder_set_member_name (b, "batch");
  json_builder_add_int_value (b, config->batch);
  if (config->model == NK_MODEL_TINY_LM)
    {
      json_builder_set_member_name (b, "context");
      json_builder_add_int_value (b, config->context);
    }
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, (gint64) config->steps);
  json_builder_set_member_name (b, "lr");
  json_builder_add_double_value (b, config->lr);
  json_builder_set_member_name (b, "optimizer");
  json_builder_add_string_value (b, nk_optimizer_to_string (config->optimizer));
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) config->seed);
  json_builder_set_member_name (b, "precision");
  json_builder_add_string_value (b, nk_train_precision_to_string (config->precision));
  json_builder_set_member_name (b, "init");
  json_builder_add_string_value (b, nk_init_kind_to_string (config->init_kind));
  /* The data and starting weights make a run as much as the numbers above do: two
   * runs that differ only here must not take each other's checkpoints for their own. */
  {
    const struct { const char *name; const char *value; } files[] = {
      { "init_file", config->init_file }, { "inputs", config->inputs },
      { "targets", config->targets }, { "text", config->text_file },
    };

    for (guint i = 0; i < G_N_ELEMENTS (files); i++)
      if (files[i].value != NULL)
        {
          json_builder_set_member_name (b, files[i].name);
          json_builder_add_string_value (b, files[i].value);
        }
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

/* ---- the object ------------------------------------------------------------------ */

struct _NkTrainer
{
  GObject          parent_instance;

  NkTrainConfig   *config;
  NkTrainerState   state;
  char            *error_message;
  gboolean         started;

  /* Shared with the worker; under mutex unless atomic. */
  GMutex           mutex;
  GCond            cond;
  gint             pause_requested;    /* atomic */
  gint             stop_requested;     /* atomic */
  gint             checkpoint_requested; /* atomic */
  gint             parked;             /* atomic */
  guint64          steps_done;
  guint64          start_step;
  NkTrainMetrics   latest;
  gboolean         have_latest;
  GArray          *history;
  gboolean         idle_pending;
  GMainContext    *context;
  gboolean         sync;

  /* Owned by whichever thread runs the steps; read by others only after the run. */
  NkModel         *model;
  NkDevice        *device;
  double           published_loss;
  double           published_mfu;
  double           published_flops_per_s;
  guint64          published_step;
};

G_DEFINE_FINAL_TYPE (NkTrainer, nk_trainer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONFIG,
  PROP_STATE,
  PROP_STEP,
  PROP_LOSS,
  PROP_MFU,
  PROP_FLOPS_PER_S,
  PROP_ERROR_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_STEP,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
nk_trainer_finalize (GObject *object)
{
  NkTrainer *self = NK_TRAINER (object);

  g_clear_pointer (&self->config, nk_train_config_free);
  g_clear_pointer (&self->error_message, g_free);
  g_clear_pointer (&self->history, g_array_unref);
  g_clear_pointer (&self->model, nk_model_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (nk_trainer_parent_class)->finalize (object);
}

static void
nk_trainer_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  NkTrainer *self = NK_TRAINER (object);

  switch (prop_id)
    {
    case PROP_CONFIG:
      g_value_set_boxed (value, self->config);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_STEP:
      g_value_set_uint64 (value, self->published_step);
      break;
    case PROP_LOSS:
      g_value_set_double (value, self->published_loss);
      break;
    case PROP_MFU:
      g_value_set_double (value, self->published_mfu);
      break;
    case PROP_FLOPS_PER_S:
      g_value_set_double (value, self->published_flops_per_s);
      break;
    case PROP_ERROR_MESSAGE:
      g_value_set_string (value, self->error_message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_trainer_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  NkTrainer *self = NK_TRAINER (object);

  switch (prop_id)
    {
    case PROP_CONFIG:
      g_clear_pointer (&self->config, nk_train_config_free);
      self->config = g_value_get_boxed (value) != NULL
                     ? nk_train_config_copy (g_value_get_boxed (value))
                     : nk_train_config_new ();
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_trainer_class_init (NkTrainerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = nk_trainer_finalize;
  object_class->get_property = nk_trainer_get_property;
  object_class->set_property = nk_trainer_set_property;

  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, NK_TYPE_TRAIN_CONFIG,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, NK_TYPE_TRAINER_STATE, NK_TRAINER_STATE_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STEP] =
    g_param_spec_uint64 ("step", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOSS] =
    g_param_spec_double ("loss", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MFU] =
    g_param_spec_double ("mfu", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FLOPS_PER_S] =
    g_param_spec_double ("flops-per-s", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ERROR_MESSAGE] =
    g_param_spec_string ("error-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NkTrainer::step:
   * @self: the trainer
   * @metrics: (type gpointer): the latest step's `const NkTrainMetrics *`, valid during
   *   the emission
   *
   * Emitted on the main context after one or more steps (coalesced), or after every
   * step under nk_trainer_run_sync().
   */
  signals[SIGNAL_STEP] =
    g_signal_new ("step", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
nk_trainer_init (NkTrainer *self)
{
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->history = g_array_new (FALSE, FALSE, sizeof (NkTrainMetrics));
  self->published_loss = NAN;
  self->published_mfu = NAN;
  self->published_flops_per_s = NAN;
}

NkTrainer *
nk_trainer_new (const NkTrainConfig *config)
{
  return g_object_new (NK_TYPE_TRAINER, "config", config, NULL);
}

const NkTrainConfig *
nk_trainer_get_config (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  return self->config;
}

static void
set_state (NkTrainer      *self,
           NkTrainerState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* Main thread (or the sync caller): properties and ::step from the latest metrics. */
static void
deliver (NkTrainer *self)
{
  NkTrainMetrics m;
  gboolean have;

  g_mutex_lock (&self->mutex);
  have = self->have_latest;
  m = self->latest;
  self->idle_pending = FALSE;
  g_mutex_unlock (&self->mutex);

  if (!have || m.step == self->published_step)
    return;

  g_object_freeze_notify (G_OBJECT (self));
  self->published_step = m.step;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
  if (!(m.loss == self->published_loss))
    {
      self->published_loss = m.loss;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOSS]);
    }
  if (!(m.mfu == self->published_mfu))
    {
      self->published_mfu = m.mfu;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MFU]);
    }
  if (!(m.flops_per_s == self->published_flops_per_s))
    {
      self->published_flops_per_s = m.flops_per_s;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FLOPS_PER_S]);
    }
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[SIGNAL_STEP], 0, &m);
}

static gboolean
deliver_idle (gpointer data)
{
  deliver (NK_TRAINER (data));
  return G_SOURCE_REMOVE;
}

/* Worker: store the step, and ask the main context for at most one delivery. */
static void
publish (NkTrainer            *self,
         const NkTrainMetrics *m)
{
  gboolean schedule = FALSE;

  g_mutex_lock (&self->mutex);
  self->latest = *m;
  self->have_latest = TRUE;
  self->steps_done = m->step;
  /* Bounded: when full, the oldest tenth goes at once, so a long run pays one move
   * per limit/10 steps rather than one per step. */
  if (self->config->history_limit > 0 && self->history->len >= self->config->history_limit)
    g_array_remove_range (self->history, 0,
                          MIN (self->history->len, MAX (self->config->history_limit / 10, 1)));
  g_array_append_val (self->history, *m);
  if (!self->sync && !self->idle_pending)
    schedule = self->idle_pending = TRUE;
  g_mutex_unlock (&self->mutex);

  if (self->sync)
    deliver (self);
  else if (schedule)
    {
      g_autoptr(GSource) source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_LOW);
      g_source_set_callback (source, deliver_idle, g_object_ref (self), g_object_unref);
      g_source_set_static_name (source, "[napkin] trainer step");
      g_source_attach (source, self->context);
    }
}

/* ---- the run --------------------------------------------------------------------- */

typedef struct {
  NkTrainer          *self;
  const NkTrainConfig *config;
  NkModel            *model;
  NkOptim            *optim;
  NkArena            *arena;
  NkArrayDataset     *dataset;
  NkTokenStream      *tokens;
  NkTensor           *x_host;   /* DATA, CPU: [B, D] f32, or [B·T] int32 */
  NkTensor           *y_host;   /* DATA, CPU: [B] f32, or [B·T] int32 */
  NkTensor           *x;        /* the same on the run's device (x_host on the CPU) */
  NkTensor           *y;
  NkTensor           *window;   /* DATA, CPU: [B, T+1] int32 (LM) */
  guint64             data_key;
  double              peak;
  double              predicted[4];
  double              loss_scale;
  guint64             good_steps;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->optim, nk_optim_free);
  g_clear_pointer (&run->arena, nk_arena_free);
  g_clear_pointer (&run->dataset, nk_array_dataset_free);
  g_clear_pointer (&run->tokens, nk_token_stream_free);
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
             NkTrainPrecision  precision)
{
  return nk_gpus_device_peak (device, precision == NK_TRAIN_PRECISION_FP32 ? NK_PEAK_FP32
                                      : precision == NK_TRAIN_PRECISION_FP16 ? NK_PEAK_FP16
                                      : NK_PEAK_BF16);
}

static void
predict_memory (Run *run)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkPlan) plan = nk_plan_new ();
  double seq = c->model == NK_MODEL_TINY_LM ? c->context : 1;

  nk_plan_set_params (plan, (double) nk_model_count_parameters (run->model));
  nk_plan_set_optimizer (plan, c->optimizer);
  nk_plan_set_precision (plan, NK_PRECISION_FP32);
  g_object_set (plan, "batch", (double) c->batch, "seq", seq,
                "layers", (double) MAX (c->layers, 1), "d-model", (double) c->dim, NULL);
  run->predicted[0] = nk_plan_get_output (plan, "memory-params");
  run->predicted[1] = nk_plan_get_output (plan, "memory-grads");
  run->predicted[2] = nk_plan_get_output (plan, "memory-optimizer");
  /* The master weights, their grads and the optimizer state stay fp32 in every
   * precision (the narrow weight copies are per-step temporaries), so nk-plan's fp32
   * column is exact for them. Activations are counted per tensor the model keeps
   * (nk_model_activation_bytes()): for the fp32 Cruncher that is nk-plan's linear
   * formula plus B·8 + 4 bytes; under bf16/fp16 it adds layer 0's rounded input, and
   * the tiny LM is no linear model at all. */
  run->predicted[3] = (double) nk_model_activation_bytes (run->model, (guint64) c->batch * (guint64) seq,
                                                          c->precision == NK_TRAIN_PRECISION_BF16_MIXED
                                                          ? NK_DTYPE_BF16
                                                          : c->precision == NK_TRAIN_PRECISION_FP16
                                                          ? NK_DTYPE_F16 : NK_DTYPE_F32);
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
  gint64 shape_y[1] = { rows };

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

static gboolean
setup_data (Run      *run,
            GError  **error)
{
  const NkTrainConfig *c = run->config;

  if (c->model == NK_MODEL_CRUNCHER)
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

  if (c->text_file != NULL)
    {
      run->tokens = nk_token_stream_new_from_file (c->text_file, error);
      if (run->tokens == NULL)
        return FALSE;
    }
  else
    run->tokens = nk_token_stream_new_default ();

  run->window = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32,
                                    NK_SHAPE (c->batch, c->context + 1),
                                    NK_BUCKET_DATA, TRUE, error);
  if (run->window == NULL)
    return FALSE;
  return setup_buffers (run, NK_DTYPE_INT32, 1, (gint64) c->batch * c->context, 1, error);
}

static gboolean
fill_batch (Run      *run,
            guint64   step,
            GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkRng) rng = data_rng_for_step (run, step);

  if (c->model == NK_MODEL_CRUNCHER)
    {
      if (run->dataset != NULL)
        nk_array_dataset_fill (run->dataset, step, nk_tensor_data_f32 (run->x_host),
                               nk_tensor_data_f32 (run->y_host));
      else
        nk_data_synthetic_fill (rng, c->dim, c->batch, nk_tensor_data_f32 (run->x_host),
                                nk_tensor_data_f32 (run->y_host));
    }
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
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  nk_checkpoint_set_step (ck, step);
  nk_checkpoint_set_rng (ck, rng);
  nk_checkpoint_set_config (ck, config_json);
  nk_checkpoint_set_metadata (ck, "loss_scale", g_ascii_dtostr (buf, sizeof buf, run->loss_scale));
  g_snprintf (buf, sizeof buf, "%" PRIu64, run->good_steps);
  nk_checkpoint_set_metadata (ck, "good_steps", buf);
  if (!nk_model_save_checkpoint (run->model, ck, error)
      || !nk_optim_save_state (run->optim, ck, error))
    return FALSE;
  return nk_checkpoint_save (ck, c->checkpoint_dir, c->checkpoint_keep, NULL, error);
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
  step = nk_checkpoint_get_step (ck);
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

/* One step; fills @m. */
static gboolean
run_step (Run            *run,
          guint64         step,
          NkTrainMetrics *m,
          GError        **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkTensor) loss = NULL;
  double t0, t1, t2, t3;
  guint64 f0, f1;
  NkDevice *device = nk_device_get_default ();
  gboolean fp16 = c->precision == NK_TRAIN_PRECISION_FP16;

  memset (m, 0, sizeof *m);
  m->step = step + 1;

  if (!fill_batch (run, step, error))
    return FALSE;

  nk_arena_reset (run->arena);
  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();

  t0 = now_seconds ();
  loss = nk_model_loss (run->model, run->x, run->y, error);
  if (loss == NULL || !nk_tensor_item (loss, &m->loss, error))
    return FALSE;
  f0 = nk_flops_get ();
  t1 = now_seconds ();

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
  f1 = nk_flops_get ();
  if (!nk_device_synchronize (device, error))
    return FALSE;
  t2 = now_seconds ();

  m->loss_scale = fp16 ? run->loss_scale : 1.0;
  if (fp16 && (!isfinite (m->loss) || !grads_finite (run->model)))
    {
      /* Overflow: skip the update, halve the scale (GradScaler's rule). */
      m->skipped = TRUE;
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
  if (!nk_model_zero_grad (run->model, error) || !nk_device_synchronize (device, error))
    return FALSE;
  t3 = now_seconds ();

  m->flops_forward = f0;
  m->flops_backward = f1 - f0;
  m->flops = f1;
  m->flops_matmul = nk_autograd_get_matmul_flops ();
  m->seconds_forward = t1 - t0;
  m->seconds_backward = t2 - t1;
  m->seconds_optimizer = t3 - t2;
  m->seconds = t3 - t0;
  m->flops_per_s = m->seconds > 0 ? (double) m->flops / m->seconds : NAN;
  m->peak_flops_per_s = run->peak;
  m->mfu = m->flops_per_s / run->peak;
  for (int b = 0; b < NK_N_BUCKETS; b++)
    nk_device_get_bytes (device, b, &m->memory[b], &m->memory_peak[b]);
  memcpy (m->predicted, run->predicted, sizeof m->predicted);
  return TRUE;
}

/* Waits while paused; FALSE when the run should end. */
static gboolean
wait_if_paused (NkTrainer    *self,
                GCancellable *cancellable)
{
  g_mutex_lock (&self->mutex);
  while (g_atomic_int_get (&self->pause_requested) && !g_atomic_int_get (&self->stop_requested)
         && !g_cancellable_is_cancelled (cancellable))
    {
      g_atomic_int_set (&self->parked, TRUE);
      /* Wake now and then to notice a cancellable, which does not signal us. */
      g_cond_wait_until (&self->cond, &self->mutex,
                         g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND);
    }
  g_atomic_int_set (&self->parked, FALSE);
  g_mutex_unlock (&self->mutex);

  return !g_atomic_int_get (&self->stop_requested) && !g_cancellable_is_cancelled (cancellable);
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

static gboolean
run_internal (NkTrainer     *self,
              GCancellable  *cancellable,
              GError       **error)
{
  const NkTrainConfig *c = self->config;
  Run run = { 0, };
  NkDevice *previous_device = nk_device_get_default ();
  NkBucket previous_bucket;
  NkArena *previous_arena;
  NkDType previous_autocast;
  NkDevice *device;
  guint64 step = 0;
  gboolean ok = FALSE;
  guint n_params;

  if (!nk_train_config_validate (c, error))
    return FALSE;

  /* A run that does not resume from its checkpoint directory must not write over
   * another run's checkpoints there: refuse before doing any work. */
  if (c->checkpoint_dir != NULL && !same_directory (c->checkpoint_dir, c->resume_dir))
    {
      g_autofree char *config_json = nk_train_config_to_json (c);

      if (!nk_checkpoint_check_dir (c->checkpoint_dir, config_json, error))
        return FALSE;
    }

  device = nk_device_lookup (c->device != NULL ? c->device : "cpu", error);
  if (device == NULL)
    return FALSE;
  self->device = device;

  nk_device_set_default (device);
  /* Temporaries inside nk-ops must not pass for activations. */
  previous_bucket = nk_storage_set_default_bucket (NK_BUCKET_OTHER);
  run.arena = nk_arena_new ();
  previous_arena = nk_arena_set_current (run.arena);
  previous_autocast = nk_autograd_set_autocast (c->precision == NK_TRAIN_PRECISION_BF16_MIXED
                                                ? NK_DTYPE_BF16
                                                : c->precision == NK_TRAIN_PRECISION_FP16
                                                ? NK_DTYPE_F16 : NK_DTYPE_F32);

  run.self = self;
  run.config = c;
  run.data_key = c->seed ^ G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  run.loss_scale = c->precision == NK_TRAIN_PRECISION_FP16 ? LOSS_SCALE_INIT : 1.0;

  g_clear_pointer (&self->model, nk_model_free);
  if (c->model == NK_MODEL_CRUNCHER)
    self->model = nk_model_new_cruncher (c->dim, c->layers, NK_DTYPE_F32, error);
  else
    self->model = nk_model_new_tiny_lm (256, c->dim, c->layers, NK_DTYPE_F32, error);
  if (self->model == NULL)
    goto out;
  run.model = self->model;

  {
    g_autoptr(NkRng) init_rng = nk_rng_new (c->seed);

    if (!nk_model_init (run.model, init_rng, c->init_kind, error))
      goto out;
  }
  if (c->init_file != NULL)
    {
      g_autoptr(NkSafetensors) st = nk_safetensors_load (c->init_file, error);

      if (st == NULL || !nk_model_load_state_dict (run.model, st, error))
        goto out;
    }

  {
    NkTensor **params = nk_model_get_params (run.model, &n_params);

    run.optim = nk_optim_new (c->optimizer, c->lr, params,
                              nk_model_get_param_names (run.model), n_params, error);
    if (run.optim == NULL)
      goto out;
  }

  if (!setup_data (&run, error))
    goto out;

  if (c->resume_dir != NULL && !resume (&run, &step, error))
    goto out;
  self->start_step = step;

  run.peak = device_peak (device, c->precision);
  predict_memory (&run);
  nk_device_reset_peak (device);

  ok = TRUE;
  for (; step < c->steps; step++)
    {
      NkTrainMetrics m;
      gboolean checkpoint;

      if (!wait_if_paused (self, cancellable))
        break;
      if (!run_step (&run, step, &m, error))
        {
          ok = FALSE;
          break;
        }

      checkpoint = c->checkpoint_dir != NULL
                   && ((c->checkpoint_every > 0 && m.step % c->checkpoint_every == 0)
                       || m.step == c->steps
                       || g_atomic_int_compare_and_exchange (&self->checkpoint_requested, TRUE, FALSE));
      if (checkpoint && !save_checkpoint (&run, m.step, error))
        {
          ok = FALSE;
          break;
        }
      publish (self, &m);
    }

  if (ok && step < c->steps && c->checkpoint_dir != NULL
      && g_atomic_int_get (&self->checkpoint_requested))
    ok = save_checkpoint (&run, step, error);

out:
  run_clear (&run);
  nk_autograd_set_autocast (previous_autocast);
  nk_arena_set_current (previous_arena);
  nk_storage_set_default_bucket (previous_bucket);
  nk_device_set_default (previous_device);
  return ok;
}

static void
finish_state (NkTrainer    *self,
              gboolean      ok,
              const GError *error)
{
  deliver (self);
  if (!ok)
    {
      g_free (self->error_message);
      self->error_message = g_strdup (error != NULL ? error->message : _("The run failed."));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR_MESSAGE]);
      set_state (self, NK_TRAINER_STATE_FAILED);
    }
  else if (nk_trainer_get_steps_done (self) < self->config->steps)
    set_state (self, NK_TRAINER_STATE_STOPPED);
  else
    set_state (self, NK_TRAINER_STATE_FINISHED);
}

static gboolean
claim (NkTrainer  *self,
       GError    **error)
{
  if (self->started)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_BUSY,
                   _("This trainer has already run; make a new one for another run."));
      return FALSE;
    }
  self->started = TRUE;
  return TRUE;
}

gboolean
nk_trainer_run_sync (NkTrainer     *self,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);

  if (!claim (self, error))
    return FALSE;
  self->sync = TRUE;
  set_state (self, NK_TRAINER_STATE_RUNNING);
  ok = run_internal (self, cancellable, &local_error);
  finish_state (self, ok, local_error);
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return ok;
}

static void
worker (GTask        *task,
        gpointer      source_object,
        gpointer      task_data,
        GCancellable *cancellable)
{
  GError *error = NULL;

  if (run_internal (NK_TRAINER (source_object), cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
nk_trainer_start (NkTrainer           *self,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (NK_IS_TRAINER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, nk_trainer_start);
  if (!claim (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  self->context = g_main_context_ref_thread_default ();
  set_state (self, g_atomic_int_get (&self->pause_requested)
                   ? NK_TRAINER_STATE_PAUSED : NK_TRAINER_STATE_RUNNING);
  g_task_run_in_thread (task, worker);
}

gboolean
nk_trainer_start_finish (NkTrainer     *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  ok = g_task_propagate_boolean (G_TASK (result), &local_error);
  /* The last step's idle may still be queued behind this callback: deliver it now. */
  if (!g_error_matches (local_error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_BUSY))
    finish_state (self, ok, local_error);
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return ok;
}

void
nk_trainer_pause (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_atomic_int_set (&self->pause_requested, TRUE);
  if (self->state == NK_TRAINER_STATE_RUNNING)
    set_state (self, NK_TRAINER_STATE_PAUSED);
}

void
nk_trainer_resume (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->pause_requested, FALSE);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  if (self->state == NK_TRAINER_STATE_PAUSED)
    set_state (self, NK_TRAINER_STATE_RUNNING);
}

void
nk_trainer_stop (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->stop_requested, TRUE);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

void
nk_trainer_checkpoint_now (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));
  g_atomic_int_set (&self->checkpoint_requested, TRUE);
}

NkTrainerState
nk_trainer_get_state (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NK_TRAINER_STATE_IDLE);
  return self->state;
}

gboolean
nk_trainer_is_parked (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  return g_atomic_int_get (&self->parked);
}

guint64
nk_trainer_get_steps_done (NkTrainer *self)
{
  guint64 n;

  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  g_mutex_lock (&self->mutex);
  n = self->steps_done;
  g_mutex_unlock (&self->mutex);
  return n;
}

guint64
nk_trainer_get_start_step (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  return self->start_step;
}

gboolean
nk_trainer_get_latest (NkTrainer      *self,
                       NkTrainMetrics *out_metrics)
{
  gboolean have;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_mutex_lock (&self->mutex);
  have = self->have_latest;
  if (have)
    *out_metrics = self->latest;
  g_mutex_unlock (&self->mutex);
  return have;
}

GArray *
nk_trainer_get_history (NkTrainer *self)
{
  GArray *copy;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  copy = g_array_sized_new (FALSE, FALSE, sizeof (NkTrainMetrics), self->history->len);
  g_array_append_vals (copy, self->history->data, self->history->len);
  g_mutex_unlock (&self->mutex);
  return copy;
}

NkModel *
nk_trainer_get_model (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  return self->model;
}

guint64
nk_trainer_get_n_parameters (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  return self->model != NULL ? nk_model_count_parameters (self->model) : 0;
}

const char *
nk_trainer_get_device_name (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  return self->device != NULL ? nk_device_get_name (self->device) : self->config->device;
}

gboolean
nk_trainer_save (NkTrainer   *self,
                 const char  *path,
                 GError     **error)
{
  g_autoptr(NkSafetensorsWriter) writer = NULL;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (self->state != NK_TRAINER_STATE_RUNNING
                        && self->state != NK_TRAINER_STATE_PAUSED, FALSE);

  if (self->model == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                   _("There is no model to save: the run did not start."));
      return FALSE;
    }
  writer = nk_safetensors_writer_new ();
  return nk_model_save_state_dict (self->model, writer, error)
         && nk_safetensors_writer_write (writer, path, error);
}
