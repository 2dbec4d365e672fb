/* nk-trainer.c: the NkTrainer object: its thread, controls, and the steps it hands over
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "nk-safetensors.h"
#include "nk-trainer-private.h"

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
  /* The history: a ring of hist_cap slots, hist_len used from hist_head (the oldest);
   * it grows by doubling up to history_limit, then each step replaces the oldest. */
  NkTrainMetrics  *hist;
  gsize            hist_cap;
  gsize            hist_len;
  gsize            hist_head;
  GQueue           checkpoints;        /* CheckpointWritten*, not yet announced */
  char            *histogram_name;     /* what to histogram; NULL: the default */
  gboolean         histogram_gradient;
  gboolean         histogram_dirty;
  NkTrainHistogram histogram;
  gboolean         have_histogram;
  char            *sample;             /* the latest GPT sample, or NULL */
  guint64          sample_step;
  gboolean         idle_pending;
  GMainContext    *context;
  gboolean         sync;

  /* The observer (a run recorder): called on the thread that runs the steps under
   * observer_mutex, so detaching waits for a call in progress. */
  GMutex           observer_mutex;
  NkTrainerObserver observer;
  gpointer         observer_data;
  gboolean         has_observer;
  GError          *abort_error;        /* under mutex */

  /* Set by the thread that runs the steps, once, before the first step; read by
   * others under the mutex. The model's tensors are the worker's while it runs. */
  NkModel         *model;
  guint64          n_parameters;
  NkDevice        *device;

  /* The main thread's (or the sync caller's): what the properties last said. */
  double           published_loss;
  double           published_mfu;
  double           published_flops_per_s;
  guint64          published_step;
  guint64          published_skipped;
};

typedef struct {
  guint64  step;
  char    *path;
} CheckpointWritten;

static void
checkpoint_written_free (gpointer data)
{
  CheckpointWritten *w = data;

  g_free (w->path);
  g_free (w);
}

/**
 * NkTrainer:
 *
 * A training run of one #NkTrainConfig: it builds the model, optimizer and data on
 * a worker thread (or the caller's, nk_trainer_run_sync()), runs the steps, writes
 * checkpoints, and publishes each step's #NkTrainMetrics on the main context through
 * its properties and ::step.
 */
G_DEFINE_FINAL_TYPE (NkTrainer, nk_trainer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONFIG,
  PROP_STATE,
  PROP_STEP,
  PROP_LOSS,
  PROP_MFU,
  PROP_FLOPS_PER_S,
  PROP_SKIPPED_STEPS,
  PROP_ERROR_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_STEP,
  SIGNAL_CHECKPOINT_WRITTEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
nk_trainer_finalize (GObject *object)
{
  NkTrainer *self = NK_TRAINER (object);

  g_clear_pointer (&self->config, nk_train_config_free);
  g_clear_pointer (&self->error_message, g_free);
  g_clear_pointer (&self->hist, g_free);
  g_queue_clear_full (&self->checkpoints, checkpoint_written_free);
  g_clear_pointer (&self->histogram_name, g_free);
  g_clear_pointer (&self->sample, g_free);
  g_clear_pointer (&self->model, nk_model_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_error (&self->abort_error);
  g_mutex_clear (&self->mutex);
  g_mutex_clear (&self->observer_mutex);
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
    case PROP_SKIPPED_STEPS:
      g_value_set_uint64 (value, self->published_skipped);
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

  /**
   * NkTrainer:config:
   *
   * The run's settings, a frozen copy made at construction.
   */
  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, NK_TYPE_TRAIN_CONFIG,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:state:
   *
   * Where the run is: idle, running, paused, finished, stopped or failed.
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, NK_TYPE_TRAINER_STATE, NK_TRAINER_STATE_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:step:
   *
   * The latest delivered step, from 1 (0 before the first).
   */
  properties[PROP_STEP] =
    g_param_spec_uint64 ("step", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:loss:
   *
   * The latest delivered step's loss (NAN before the first).
   */
  properties[PROP_LOSS] =
    g_param_spec_double ("loss", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:mfu:
   *
   * The latest delivered step's model FLOPs utilisation: its counted FLOP/s over the
   * device's peak for the run's dtype (NAN before the first).
   */
  properties[PROP_MFU] =
    g_param_spec_double ("mfu", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:flops-per-s:
   *
   * The latest delivered step's FLOPs (counted by the ops) over its wall time, in
   * FLOP/s (NAN before the first).
   */
  properties[PROP_FLOPS_PER_S] =
    g_param_spec_double ("flops-per-s", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:skipped-steps:
   *
   * fp16 steps skipped so far because a gradient overflowed (always 0 otherwise),
   * as of the latest delivered step.
   */
  properties[PROP_SKIPPED_STEPS] =
    g_param_spec_uint64 ("skipped-steps", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:error-message:
   *
   * Why a failed run failed, one sentence; %NULL unless #NkTrainer:state is
   * %NK_TRAINER_STATE_FAILED.
   */
  properties[PROP_ERROR_MESSAGE] =
    g_param_spec_string ("error-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NkTrainer::step:
   * @self: the trainer
   * @metrics: the latest step's metrics, valid during the emission (a handler that
   *   keeps them copies them: nk_train_metrics_copy())
   *
   * Emitted on the main context after one or more steps (coalesced), or after every
   * step under nk_trainer_run_sync().
   */
  signals[SIGNAL_STEP] =
    g_signal_new ("step", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, NK_TYPE_TRAIN_METRICS | G_SIGNAL_TYPE_STATIC_SCOPE);

  /**
   * NkTrainer::checkpoint-written:
   * @self: the trainer
   * @step: the step the checkpoint holds the run after
   * @path: the file written
   *
   * Emitted on the main context for each checkpoint the run wrote (on its interval,
   * at the last step, after nk_trainer_checkpoint_now(), and the one a stop with a
   * pending request writes), after the ::step that delivers @step.
   */
  signals[SIGNAL_CHECKPOINT_WRITTEN] =
    g_signal_new ("checkpoint-written", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_STRING);
}

static void
nk_trainer_init (NkTrainer *self)
{
  g_mutex_init (&self->mutex);
  g_mutex_init (&self->observer_mutex);
  g_cond_init (&self->cond);
  g_queue_init (&self->checkpoints);
  self->published_loss = NAN;
  self->published_mfu = NAN;
  self->published_flops_per_s = NAN;
}

/**
 * nk_trainer_new:
 * @config: the run's settings
 *
 * A trainer for one run of @config, idle until nk_trainer_start() or
 * nk_trainer_run_sync().
 *
 * Returns: (transfer full): a trainer with a frozen copy of @config
 */
NkTrainer *
nk_trainer_new (const NkTrainConfig *config)
{
  return g_object_new (NK_TYPE_TRAINER, "config", config, NULL);
}

/**
 * nk_trainer_get_config:
 * @self: a trainer
 *
 * The settings the trainer froze at construction.
 *
 * Returns: (transfer none): the frozen config
 */
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

static void deliver_step (NkTrainer      *self,
                          NkTrainMetrics *m);

/* Main thread (or the sync caller): properties and ::step from the latest metrics,
 * then ::checkpoint-written for the checkpoints written since. */
static void
deliver (NkTrainer *self)
{
  NkTrainMetrics m;
  gboolean have;
  GQueue checkpoints;
  CheckpointWritten *w;

  g_mutex_lock (&self->mutex);
  have = self->have_latest;
  m = self->latest;
  self->idle_pending = FALSE;
  checkpoints = self->checkpoints;
  g_queue_init (&self->checkpoints);
  g_mutex_unlock (&self->mutex);

  if (have && m.step != self->published_step)
    deliver_step (self, &m);
  /* After the step they belong to, so a listener already has that step. */
  while ((w = g_queue_pop_head (&checkpoints)) != NULL)
    {
      g_signal_emit (self, signals[SIGNAL_CHECKPOINT_WRITTEN], 0, w->step, w->path);
      checkpoint_written_free (w);
    }
}

static void
deliver_step (NkTrainer      *self,
              NkTrainMetrics *mp)
{
  NkTrainMetrics m = *mp;

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
  if (m.skipped_steps != self->published_skipped)
    {
      self->published_skipped = m.skipped_steps;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SKIPPED_STEPS]);
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

/* Under the mutex. */
static void
history_push (NkTrainer            *self,
              const NkTrainMetrics *m)
{
  gsize limit = self->config->history_limit;

  if (limit > 0 && self->hist_len == limit)
    {
      /* Full: the newest takes the oldest's slot, O(1). */
      self->hist[self->hist_head] = *m;
      self->hist_head = (self->hist_head + 1) % limit;
      return;
    }
  if (self->hist_len == self->hist_cap)
    {
      /* Not wrapped yet (the ring only wraps once full), so a plain resize keeps the
       * order. */
      gsize cap = MAX (self->hist_cap * 2, 64);

      if (limit > 0)
        cap = MIN (cap, limit);
      self->hist = g_renew (NkTrainMetrics, self->hist, cap);
      self->hist_cap = cap;
    }
  self->hist[(self->hist_head + self->hist_len) % self->hist_cap] = *m;
  self->hist_len++;
}

static inline const NkTrainMetrics *
history_at (NkTrainer *self,
            gsize      i)
{
  return &self->hist[(self->hist_head + i) % self->hist_cap];
}

/* Under the mutex: copies entries [from, hist_len) in order. */
static GArray *
history_copy_from (NkTrainer *self,
                   gsize      from)
{
  gsize n = from < self->hist_len ? self->hist_len - from : 0;
  GArray *copy = g_array_sized_new (FALSE, FALSE, sizeof (NkTrainMetrics), n);

  if (n > 0)
    {
      gsize first = (self->hist_head + from) % self->hist_cap;
      gsize run1 = MIN (n, self->hist_cap - first);

      g_array_append_vals (copy, &self->hist[first], run1);
      g_array_append_vals (copy, &self->hist[0], n - run1);
    }
  return copy;
}

/* Worker: store the step, and ask the main context for at most one delivery. */
void
_nk_trainer_publish (NkTrainer            *self,
                     const NkTrainMetrics *m)
{
  gboolean schedule = FALSE;

  g_mutex_lock (&self->mutex);
  self->latest = *m;
  self->have_latest = TRUE;
  self->steps_done = m->step;
  history_push (self, m);
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

/* ---- the observer ------------------------------------------------------------------ */

void
nk_trainer_set_observer (NkTrainer               *self,
                         const NkTrainerObserver *observer,
                         gpointer                 user_data)
{
  g_return_if_fail (NK_IS_TRAINER (self));
  g_return_if_fail (observer == NULL || !self->started);

  g_mutex_lock (&self->observer_mutex);
  self->has_observer = observer != NULL;
  if (observer != NULL)
    self->observer = *observer;
  self->observer_data = observer != NULL ? user_data : NULL;
  g_mutex_unlock (&self->observer_mutex);
}

void
_nk_trainer_record_step (NkTrainer            *self,
                         const NkTrainMetrics *m)
{
  g_mutex_lock (&self->observer_mutex);
  if (self->has_observer && self->observer.step != NULL)
    self->observer.step (self, m, self->observer_data);
  g_mutex_unlock (&self->observer_mutex);
}

void
_nk_trainer_sync_observer (NkTrainer *self)
{
  g_mutex_lock (&self->observer_mutex);
  if (self->has_observer && self->observer.sync != NULL)
    self->observer.sync (self, self->observer_data);
  g_mutex_unlock (&self->observer_mutex);
}

static void
observer_ready (NkTrainer *self,
                guint64    start_step)
{
  g_mutex_lock (&self->observer_mutex);
  if (self->has_observer && self->observer.ready != NULL)
    self->observer.ready (self, start_step, self->observer_data);
  g_mutex_unlock (&self->observer_mutex);
}

void
nk_trainer_abort (NkTrainer    *self,
                  const GError *error)
{
  g_return_if_fail (NK_IS_TRAINER (self));
  g_return_if_fail (error != NULL);

  g_mutex_lock (&self->mutex);
  if (self->abort_error == NULL)
    self->abort_error = g_error_copy (error);
  g_atomic_int_set (&self->stop_requested, TRUE);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

/* A run that ended well but was aborted fails with the abort's error. */
static gboolean
check_aborted (NkTrainer  *self,
               gboolean    ok,
               GError    **error)
{
  g_mutex_lock (&self->mutex);
  if (ok && self->abort_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->abort_error));
      ok = FALSE;
    }
  g_mutex_unlock (&self->mutex);
  return ok;
}

/* ---- for the run loop (nk-trainer-private.h), on the thread that runs the steps -- */

/* Waits while paused; FALSE when the run should end. */
gboolean
_nk_trainer_wait_if_paused (NkTrainer    *self,
                            GCancellable *cancellable)
{
  gboolean go_on;

  /* A pause and a stop are points to be on disk at. */
  if (g_atomic_int_get (&self->pause_requested) && !g_atomic_int_get (&self->stop_requested))
    _nk_trainer_sync_observer (self);
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

  go_on = !g_atomic_int_get (&self->stop_requested) && !g_cancellable_is_cancelled (cancellable);
  if (!go_on)
    _nk_trainer_sync_observer (self);
  return go_on;
}

/* Whether nk_trainer_checkpoint_now() asked for one, clearing the request. */
gboolean
_nk_trainer_take_checkpoint_request (NkTrainer *self)
{
  return g_atomic_int_compare_and_exchange (&self->checkpoint_requested, TRUE, FALSE);
}

gboolean
_nk_trainer_checkpoint_requested (NkTrainer *self)
{
  return g_atomic_int_get (&self->checkpoint_requested);
}

void
_nk_trainer_set_device (NkTrainer *self,
                        NkDevice  *device)
{
  g_mutex_lock (&self->mutex);
  self->device = device;
  g_mutex_unlock (&self->mutex);
}

/* Takes @model; set once per run, before the first step. */
void
_nk_trainer_set_model (NkTrainer *self,
                       NkModel   *model)
{
  g_mutex_lock (&self->mutex);
  g_clear_pointer (&self->model, nk_model_free);
  self->model = model;
  self->n_parameters = model != NULL ? nk_model_count_parameters (model) : 0;
  g_mutex_unlock (&self->mutex);
}

void
_nk_trainer_set_start_step (NkTrainer *self,
                            guint64    step)
{
  g_mutex_lock (&self->mutex);
  self->start_step = step;
  g_mutex_unlock (&self->mutex);
  /* Set once the run has checked its settings and loaded its checkpoint. */
  observer_ready (self, step);
}

/* Takes @path: announced by ::checkpoint-written after the ::step of @step. */
void
_nk_trainer_announce_checkpoint (NkTrainer *self,
                                 guint64    step,
                                 char      *path)
{
  CheckpointWritten *written = g_new0 (CheckpointWritten, 1);

  written->step = step;
  written->path = path;
  g_mutex_lock (&self->mutex);
  g_queue_push_tail (&self->checkpoints, written);
  g_mutex_unlock (&self->mutex);
}

/* Returns: (transfer full) (nullable): the parameter to histogram (%NULL: the
 * default), and whether its gradient; the source counts as seen from here. */
char *
_nk_trainer_dup_histogram_source (NkTrainer *self,
                                  gboolean  *out_gradient)
{
  char *name;

  g_mutex_lock (&self->mutex);
  name = g_strdup (self->histogram_name);
  *out_gradient = self->histogram_gradient;
  self->histogram_dirty = FALSE;
  g_mutex_unlock (&self->mutex);
  return name;
}

gboolean
_nk_trainer_histogram_source_changed (NkTrainer *self)
{
  gboolean dirty;

  g_mutex_lock (&self->mutex);
  dirty = self->histogram_dirty;
  g_mutex_unlock (&self->mutex);
  return dirty;
}

void
_nk_trainer_store_histogram (NkTrainer              *self,
                             const NkTrainHistogram *histogram)
{
  g_mutex_lock (&self->mutex);
  self->histogram = *histogram;
  self->have_histogram = TRUE;
  g_mutex_unlock (&self->mutex);
}

void
_nk_trainer_store_sample (NkTrainer *self,
                          guint64    step,
                          char      *text)
{
  g_mutex_lock (&self->mutex);
  g_free (self->sample);
  self->sample = text;
  self->sample_step = step;
  g_mutex_unlock (&self->mutex);
}

char *
nk_trainer_dup_sample (NkTrainer *self,
                       guint64   *out_step)
{
  char *text;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  text = g_strdup (self->sample);
  if (out_step != NULL)
    *out_step = self->sample_step;
  g_mutex_unlock (&self->mutex);
  return text;
}

/* ---- running ------------------------------------------------------------------- */

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
  ok = _nk_train_loop_run (self, cancellable, &local_error);
  ok = check_aborted (self, ok, &local_error);
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

  if (check_aborted (NK_TRAINER (source_object),
                     _nk_train_loop_run (NK_TRAINER (source_object), cancellable, &error),
                     &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The worker's task ends here, on the caller's context, whether or not the caller
 * passed a callback or calls nk_trainer_start_finish(): the state leaves RUNNING
 * either way. The caller's task then returns the same result. */
static void
on_worker_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  gboolean ok;

  ok = g_task_propagate_boolean (G_TASK (result), &error);
  /* The last step's idle may still be queued behind this callback: deliver it now. */
  finish_state (NK_TRAINER (source), ok, error);
  if (ok)
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
  g_autoptr(GTask) worker_task = NULL;
  GError *error = NULL;

  g_return_if_fail (NK_IS_TRAINER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, nk_trainer_start);
  g_task_set_check_cancellable (task, FALSE);
  if (!claim (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  self->context = g_main_context_ref_thread_default ();
  set_state (self, g_atomic_int_get (&self->pause_requested)
                   ? NK_TRAINER_STATE_PAUSED : NK_TRAINER_STATE_RUNNING);
  worker_task = g_task_new (self, cancellable, on_worker_done, g_steal_pointer (&task));
  /* A cancelled run ends between two steps like a stopped one (as under
   * nk_trainer_run_sync()), not with "Operation was cancelled". */
  g_task_set_check_cancellable (worker_task, FALSE);
  g_task_set_source_tag (worker_task, worker);
  g_task_set_name (worker_task, "[napkin] training run");
  g_task_run_in_thread (worker_task, worker);
}

/**
 * nk_trainer_start_finish:
 * @self: a trainer
 * @result: the result given to nk_trainer_start()'s callback
 * @error: return location for a #GError (why the run failed)
 *
 * Finishes nk_trainer_start().
 *
 * Returns: %TRUE if the run finished or was stopped; %FALSE with the error
 */
gboolean
nk_trainer_start_finish (NkTrainer     *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == nk_trainer_start, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * nk_trainer_pause:
 * @self: a trainer
 *
 * Asks the run to wait after the current step; takes effect between two steps.
 */
void
nk_trainer_pause (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_atomic_int_set (&self->pause_requested, TRUE);
  if (self->state == NK_TRAINER_STATE_RUNNING)
    set_state (self, NK_TRAINER_STATE_PAUSED);
}

/**
 * nk_trainer_resume:
 * @self: a trainer
 *
 * Lets a paused run go on; takes effect between two steps.
 */
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

/**
 * nk_trainer_stop:
 * @self: a trainer
 *
 * Asks the run to end after the current step, as STOPPED (a pending
 * nk_trainer_checkpoint_now() is still written).
 */
void
nk_trainer_stop (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->stop_requested, TRUE);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

/**
 * nk_trainer_checkpoint_now:
 * @self: a trainer
 *
 * Asks for a checkpoint after the current step (the config needs a checkpoint dir).
 */
void
nk_trainer_checkpoint_now (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));
  g_atomic_int_set (&self->checkpoint_requested, TRUE);
}

/**
 * nk_trainer_get_state:
 * @self: a trainer
 *
 * The run's state, as #NkTrainer:state says it on the main context.
 *
 * Returns: the state
 */
NkTrainerState
nk_trainer_get_state (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NK_TRAINER_STATE_IDLE);
  return self->state;
}

/**
 * nk_trainer_is_parked:
 * @self: a trainer
 *
 * Whether the thread that runs the steps has seen the pause and is waiting.
 *
 * Returns: %TRUE when parked
 */
gboolean
nk_trainer_is_parked (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  return g_atomic_int_get (&self->parked);
}

/**
 * nk_trainer_get_steps_done:
 * @self: a trainer
 *
 * The steps done so far, read under the trainer's mutex (any thread may ask).
 *
 * Returns: the number of steps, counting a resumed run's from its checkpoint
 */
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

/**
 * nk_trainer_get_start_step:
 * @self: a trainer
 *
 * The step a resumed run started after.
 *
 * Returns: the checkpoint's step, 0 for a fresh run
 */
guint64
nk_trainer_get_start_step (NkTrainer *self)
{
  guint64 step;

  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  g_mutex_lock (&self->mutex);
  step = self->start_step;
  g_mutex_unlock (&self->mutex);
  return step;
}

/**
 * nk_trainer_get_latest:
 * @self: a trainer
 * @out_metrics: (out caller-allocates): the latest step's metrics
 *
 * Copies the latest step's metrics.
 *
 * Returns: %FALSE before the first step
 */
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

/**
 * nk_trainer_get_history:
 * @self: a trainer
 *
 * Every step the history still holds, as nk_trainer_get_history_range() from step 0.
 *
 * Returns: (transfer container) (element-type NkTrainMetrics): a copy of the history
 */
GArray *
nk_trainer_get_history (NkTrainer *self)
{
  GArray *copy;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  copy = history_copy_from (self, 0);
  g_mutex_unlock (&self->mutex);
  return copy;
}

GArray *
nk_trainer_get_history_range (NkTrainer *self,
                              guint64    from_step)
{
  gsize lo, hi;
  GArray *copy;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  /* Steps rise through the ring: the first one at or after from_step, by bisection. */
  lo = 0;
  hi = self->hist_len;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (history_at (self, mid)->step < from_step)
        lo = mid + 1;
      else
        hi = mid;
    }
  copy = history_copy_from (self, lo);
  g_mutex_unlock (&self->mutex);
  return copy;
}

/**
 * nk_trainer_get_skipped_steps:
 * @self: a trainer
 *
 * The fp16 steps skipped so far because a gradient overflowed (the
 * #NkTrainer:skipped-steps property).
 *
 * Returns: the count
 */
guint64
nk_trainer_get_skipped_steps (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  return self->published_skipped;
}

void
nk_trainer_set_histogram_source (NkTrainer  *self,
                                 const char *name,
                                 gboolean    gradient)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_free (self->histogram_name);
  self->histogram_name = g_strdup (name);
  self->histogram_gradient = name == NULL || gradient;
  self->histogram_dirty = TRUE;
  g_mutex_unlock (&self->mutex);
}

/**
 * nk_trainer_get_histogram:
 * @self: a trainer
 * @out: (out caller-allocates): the latest histogram
 *
 * Copies the latest histogram (see nk_trainer_set_histogram_source()).
 *
 * Returns: %FALSE before the first
 */
gboolean
nk_trainer_get_histogram (NkTrainer        *self,
                          NkTrainHistogram *out)
{
  gboolean have;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_mutex_lock (&self->mutex);
  have = self->have_histogram;
  if (have)
    *out = self->histogram;
  g_mutex_unlock (&self->mutex);
  return have;
}

/* The model pointer is set once by the thread that runs the steps, under the mutex;
 * the model is never replaced or freed before the trainer, so the pointer stays
 * good after the lock is dropped (its values only between runs, as documented). */
/**
 * nk_trainer_get_model: (skip)
 * @self: a trainer
 *
 * The model, set once by the thread that runs the steps before the first step; any
 * thread may ask. Its values change while the run runs, so read them (tests, --save)
 * only when it is not running. Not for bindings (see #NkModel).
 *
 * Returns: (transfer none) (nullable): the model, %NULL until built
 */
NkModel *
nk_trainer_get_model (NkTrainer *self)
{
  NkModel *model;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  model = self->model;
  g_mutex_unlock (&self->mutex);
  return model;
}

/**
 * nk_trainer_get_n_parameters:
 * @self: a trainer
 *
 * The model's number of scalar parameters, set once the model is built.
 *
 * Returns: the count, 0 until the model is built
 */
guint64
nk_trainer_get_n_parameters (NkTrainer *self)
{
  guint64 n;

  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  g_mutex_lock (&self->mutex);
  n = self->n_parameters;
  g_mutex_unlock (&self->mutex);
  return n;
}

/* Devices live as long as the process, so their names do too; the config is frozen. */
/**
 * nk_trainer_get_device_name:
 * @self: a trainer
 *
 * The device the run uses.
 *
 * Returns: (transfer none): the device's name ("cpu", "cuda:0") once the run has
 *   found its device, the config's device before
 */
const char *
nk_trainer_get_device_name (NkTrainer *self)
{
  NkDevice *device;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  device = self->device;
  g_mutex_unlock (&self->mutex);
  return device != NULL ? nk_device_get_name (device) : self->config->device;
}

/**
 * nk_trainer_save:
 * @self: a trainer that is not running
 * @path: the .safetensors file to write
 * @error: return location for a #GError
 *
 * Writes the model's state_dict (PyTorch names) as safetensors, atomically.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_trainer_save (NkTrainer   *self,
                 const char  *path,
                 GError     **error)
{
  g_autoptr(NkSafetensorsWriter) writer = NULL;
  NkModel *model;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (self->state != NK_TRAINER_STATE_RUNNING
                        && self->state != NK_TRAINER_STATE_PAUSED, FALSE);

  model = nk_trainer_get_model (self);
  if (model == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                   _("There is no model to save: the run did not start."));
      return FALSE;
    }
  writer = nk_safetensors_writer_new ();
  return nk_model_save_state_dict (model, writer, error)
         && nk_safetensors_writer_write (writer, path, error);
}
