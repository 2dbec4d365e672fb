/* napkin-run.c: one training run the Training page started, and its history
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "napkin-run.h"
#include "napkin-run-compare.h"
#include "nk-import-plan.h"
#include "nk-run-dir.h"
#include "nk-run-recorder.h"

/* The memory plot's buckets, in NapkinRunSeries order from PARAMS. */
static const NkBucket series_buckets[] = {
  NK_BUCKET_PARAMS, NK_BUCKET_GRADS, NK_BUCKET_OPTIMIZER, NK_BUCKET_ACTIVATIONS, NK_BUCKET_DATA,
};

struct _NapkinRun
{
  GObject         parent_instance;

  NkTrainer      *trainer;
  guint           index;
  char           *name;
  NkTrainerState  state;
  guint64         last_step;
  double          last_loss;
  NkTrainMetrics  latest;
  gboolean        have_latest;
  char           *error;
  guint64         checkpoint_step;
  gint64          started_us;
  gint64          ended_us;
  gboolean        shown;
  NkTrainHistory *history;
  NapkinSeries   *series[NAPKIN_RUN_N_SERIES];

  /* Its folder on disk (nk-run-dir.h): written while it runs, by its recorder, or
   * read back. */
  char           *folder;
  NkRunRecorder  *recorder;
  gboolean        from_disk;
  gboolean        interrupted;
  gboolean        resumable;
  double          disk_seconds;   /* a run from disk: the sum of its steps' times */
  gboolean        loaded;         /* a run from disk: its steps are read */

  /* A run read from another engine's log (nk-log-import.h), and the plan it is
   * compared with (nk-import-plan.h). */
  NkImport       *import;
  char           *import_path;
  NkImportPrediction plan;
  gboolean        have_plan;

  /* A log followed as it grows (nk-log-follow.h), written by a command Napkin
   * launched (nk-command-run.h) or by a job elsewhere. */
  NkLogFollower  *follower;
  NkCommandRun   *command;
  char           *notice;
};

static void ensure_loaded (NapkinRun *self);
static char *dup_follow_description (NapkinRun *self);

G_DEFINE_FINAL_TYPE (NapkinRun, napkin_run, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TRAINER,
  PROP_INDEX,
  PROP_NAME,
  PROP_STATE,
  PROP_LAST_STEP,
  PROP_ERROR,
  PROP_CHECKPOINT_STEP,
  PROP_SHOWN,
  PROP_HAS_PLAN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------ following the trainer */

static void
add_step (NapkinRun            *self,
          const NkTrainMetrics *m)
{
  double x = (double) m->step;

  self->last_step = m->step;
  self->last_loss = m->loss;
  self->latest = *m;
  self->have_latest = TRUE;
  /* The loss series owns the x column: it goes first. */
  napkin_series_append (self->series[NAPKIN_RUN_SERIES_LOSS], x, m->loss);
  for (guint b = 0; b < G_N_ELEMENTS (series_buckets); b++)
    napkin_series_append (self->series[NAPKIN_RUN_SERIES_PARAMS + b], x,
                          (double) m->memory[series_buckets[b]]);
  napkin_series_append (self->series[NAPKIN_RUN_SERIES_THROUGHPUT], x, m->flops_per_s);
  /* Only fp16 scales its loss: the others' scale series stays empty. */
  if (nk_trainer_get_config (self->trainer)->precision == NK_PRECISION_FP16_MIXED)
    napkin_series_append (self->series[NAPKIN_RUN_SERIES_SCALE], x, m->loss_scale);
  if (m->skipped)
    napkin_series_append (self->series[NAPKIN_RUN_SERIES_SKIPPED], x, (double) m->skipped_steps);
  /* Only the block-scaled recipes quantize: the others' shares stay empty, not 0. */
  if (nk_precision_is_block_scaled (nk_trainer_get_config (self->trainer)->precision))
    {
      napkin_series_append (self->series[NAPKIN_RUN_SERIES_QUANT_FLUSHED], x, m->quant_flushed);
      napkin_series_append (self->series[NAPKIN_RUN_SERIES_QUANT_CLIPPED], x, m->quant_clipped);
    }
}

/* Waits until the folder holds every step the run has done, and its end once it
 * has ended (the recorder writes on a thread of its own). */
void
napkin_run_flush_folder (NapkinRun *self)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (NAPKIN_IS_RUN (self));

  if (self->recorder != NULL && !nk_run_recorder_flush_sync (self->recorder, &error))
    g_debug ("Run folder %s: %s", self->folder, error->message);
}

/* Brings the run up to the trainer's latest step, copying from the trainer only
 * the steps that the coalesced ::step skipped. */
static void
catch_up (NapkinRun            *self,
          const NkTrainMetrics *latest)
{
  guint64 before = self->last_step;

  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_begin_update (self->series[i]);
  if (latest != NULL && latest->step == self->last_step + 1)
    {
      nk_train_history_append (self->history, latest);
      add_step (self, latest);
    }
  else if (latest == NULL || latest->step > self->last_step)
    {
      g_autoptr(GArray) missing = nk_trainer_get_history_range (self->trainer, self->last_step + 1);

      nk_train_history_append_steps (self->history, (const NkTrainMetrics *) (gpointer) missing->data,
                                     missing->len);
      for (guint i = 0; i < missing->len; i++)
        add_step (self, &g_array_index (missing, NkTrainMetrics, i));
    }
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_end_update (self->series[i]);
  if (self->last_step != before)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_STEP]);
}

static void
on_trainer_step (NkTrainer            *trainer,
                 const NkTrainMetrics *m,
                 NapkinRun            *self)
{
  catch_up (self, m);
}

static void
on_trainer_state (NkTrainer  *trainer,
                  GParamSpec *pspec,
                  NapkinRun  *self)
{
  NkTrainerState state = nk_trainer_get_state (trainer);

  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void
on_checkpoint_written (NkTrainer  *trainer,
                       guint64     step,
                       const char *path,
                       NapkinRun  *self)
{
  self->checkpoint_step = step;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKPOINT_STEP]);
}

static void
set_trainer (NapkinRun *self,
             NkTrainer *trainer)
{
  self->trainer = g_object_ref (trainer);
  self->state = nk_trainer_get_state (trainer);
  g_signal_connect_object (trainer, "step", G_CALLBACK (on_trainer_step), self, 0);
  g_signal_connect_object (trainer, "notify::state", G_CALLBACK (on_trainer_state), self, 0);
  g_signal_connect_object (trainer, "checkpoint-written", G_CALLBACK (on_checkpoint_written), self, 0);
}

/* ------------------------------------------------------------ GObject */

static void
napkin_run_dispose (GObject *object)
{
  NapkinRun *self = NAPKIN_RUN (object);

  /* A run still going is stopped; its thread ends on its own. */
  if (napkin_run_is_live (self))
    {
      nk_trainer_stop (self->trainer);
      nk_trainer_resume (self->trainer);
    }
  /* What is queued is written first; a run not ended leaves its folder reading as
   * interrupted, which is what it is. */
  if (self->recorder != NULL)
    nk_run_recorder_close (self->recorder, NULL);
  g_clear_object (&self->recorder);
  g_clear_object (&self->trainer);
  if (self->follower != NULL)
    g_signal_handlers_disconnect_by_data (self->follower, self);
  g_clear_object (&self->follower);
  if (self->command != NULL)
    g_signal_handlers_disconnect_by_data (self->command, self);
  g_clear_object (&self->command);

  G_OBJECT_CLASS (napkin_run_parent_class)->dispose (object);
}

static void
napkin_run_finalize (GObject *object)
{
  NapkinRun *self = NAPKIN_RUN (object);

  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    g_clear_object (&self->series[i]);
  g_clear_pointer (&self->history, nk_train_history_free);
  g_free (self->name);
  g_free (self->error);
  g_free (self->folder);
  g_clear_pointer (&self->import, nk_import_free);
  g_free (self->import_path);
  g_free (self->notice);

  G_OBJECT_CLASS (napkin_run_parent_class)->finalize (object);
}

static void
napkin_run_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  NapkinRun *self = NAPKIN_RUN (object);

  switch (prop_id)
    {
    case PROP_TRAINER:
      g_value_set_object (value, self->trainer);
      break;
    case PROP_INDEX:
      g_value_set_uint (value, self->index);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_LAST_STEP:
      g_value_set_uint64 (value, self->last_step);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_CHECKPOINT_STEP:
      g_value_set_uint64 (value, self->checkpoint_step);
      break;
    case PROP_SHOWN:
      g_value_set_boolean (value, self->shown);
      break;
    case PROP_HAS_PLAN:
      g_value_set_boolean (value, self->have_plan);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  NapkinRun *self = NAPKIN_RUN (object);

  switch (prop_id)
    {
    case PROP_TRAINER:
      set_trainer (self, g_value_get_object (value));
      break;
    case PROP_INDEX:
      self->index = g_value_get_uint (value);
      self->name = g_strdup_printf (_("Run %u"), self->index + 1);
      break;
    case PROP_SHOWN:
      napkin_run_set_shown (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_class_init (NapkinRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = napkin_run_dispose;
  object_class->finalize = napkin_run_finalize;
  object_class->get_property = napkin_run_get_property;
  object_class->set_property = napkin_run_set_property;

  properties[PROP_TRAINER] =
    g_param_spec_object ("trainer", NULL, NULL, NK_TYPE_TRAINER,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INDEX] =
    g_param_spec_uint ("index", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, NK_TYPE_TRAINER_STATE, NK_TRAINER_STATE_IDLE, ro);
  properties[PROP_LAST_STEP] = g_param_spec_uint64 ("last-step", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, ro);
  properties[PROP_CHECKPOINT_STEP] =
    g_param_spec_uint64 ("checkpoint-step", NULL, NULL, 0, G_MAXUINT64, 0, ro);
  /**
   * NapkinRun:shown:
   *
   * Whether the page's run view shows this run (its row says so).
   */
  properties[PROP_SHOWN] =
    g_param_spec_boolean ("shown", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinRun:has-plan:
   *
   * Whether an imported run is compared with a plan (napkin_run_set_plan()).
   */
  properties[PROP_HAS_PLAN] = g_param_spec_boolean ("has-plan", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
napkin_run_init (NapkinRun *self)
{
  NapkinSeries *steps = napkin_series_new ();

  self->last_loss = NAN;
  self->history = nk_train_history_new ();
  self->series[NAPKIN_RUN_SERIES_LOSS] = steps;
  for (guint i = NAPKIN_RUN_SERIES_LOSS + 1; i < NAPKIN_RUN_N_SERIES; i++)
    self->series[i] = i == NAPKIN_RUN_SERIES_SKIPPED ? napkin_series_new ()   /* sparse: its steps are its own */
                                                     : napkin_series_new_sharing_x (steps);
}

/**
 * napkin_run_new:
 * @trainer: the run's trainer, not started yet
 * @index: the run's number on the page, from 0 ("Run 1")
 *
 * Returns: (transfer full): a run following @trainer
 */
NapkinRun *
napkin_run_new (NkTrainer *trainer,
                guint      index)
{
  g_return_val_if_fail (NK_IS_TRAINER (trainer), NULL);
  return g_object_new (NAPKIN_TYPE_RUN, "trainer", trainer, "index", index, NULL);
}

/* ------------------------------------------------------------ running */

static void
on_trainer_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NapkinRun *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  self->ended_us = g_get_monotonic_time ();
  /* Whatever the last idle did not deliver. */
  catch_up (self, NULL);
  on_trainer_state (self->trainer, NULL, self);
  /* The recorder records the run's end itself. */
  if (!nk_trainer_start_finish (self->trainer, result, &error))
    {
      g_free (self->error);
      self->error = g_strdup (error->message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
      g_task_return_error (task, g_steal_pointer (&error));
    }
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * napkin_run_start:
 * @self: a run whose trainer has not started
 * @callback: called on the main context when the run has ended
 * @user_data: for @callback
 *
 * Starts the trainer on its worker thread; the run follows it from here on.
 */
void
napkin_run_start (NapkinRun           *self,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NAPKIN_IS_RUN (self));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, napkin_run_start);
  self->started_us = g_get_monotonic_time ();
  nk_trainer_start (self->trainer, NULL, on_trainer_done, task);
  on_trainer_state (self->trainer, NULL, self);
}

/* Returns: %TRUE if the run finished or was stopped; %FALSE with the trainer's error */
gboolean
napkin_run_start_finish (NapkinRun     *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------ getters */

NkTrainer *
napkin_run_get_trainer (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->trainer;
}

const NkTrainConfig *
napkin_run_get_config (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return nk_trainer_get_config (self->trainer);
}

guint
napkin_run_get_index (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), 0);
  return self->index;
}

const char *
napkin_run_get_name (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->name;
}

NkTrainerState
napkin_run_get_state (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NK_TRAINER_STATE_IDLE);
  return self->state;
}

/* Returns: whether the run is running or paused */
gboolean
napkin_run_is_live (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  if (self->trainer == NULL)
    return FALSE;
  return self->state == NK_TRAINER_STATE_RUNNING || self->state == NK_TRAINER_STATE_PAUSED;
}

guint64
napkin_run_get_last_step (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), 0);
  return self->last_step;
}

/* Returns: the latest step's loss (the final loss once the run has ended), NAN before */
double
napkin_run_get_last_loss (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NAN);
  return self->last_loss;
}

/* Returns: (nullable): the latest step's metrics, %NULL before the first step */
const NkTrainMetrics *
napkin_run_get_latest (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->have_latest ? &self->latest : NULL;
}

/* Returns: (nullable): why the run failed */
const char *
napkin_run_get_error (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->error;
}

/* Returns: the step of the last checkpoint written, 0 for none */
guint64
napkin_run_get_checkpoint_step (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), 0);
  return self->checkpoint_step;
}

/* Returns: seconds since the run started, up to its end */
double
napkin_run_get_elapsed (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), 0);
  if (self->from_disk)
    {
      ensure_loaded (self);
      return self->disk_seconds;
    }
  if (self->started_us == 0)
    return 0;
  return ((self->ended_us != 0 ? self->ended_us : g_get_monotonic_time ()) - self->started_us) / 1e6;
}

gboolean
napkin_run_get_shown (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  return self->shown;
}

void
napkin_run_set_shown (NapkinRun *self,
                      gboolean   shown)
{
  g_return_if_fail (NAPKIN_IS_RUN (self));
  shown = !!shown;
  if (self->shown == shown)
    return;
  self->shown = shown;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOWN]);
}

/**
 * napkin_run_get_series:
 * @self: a run
 * @which: which series
 *
 * Returns: (transfer none): the series, every step the run has reported
 */
NapkinSeries *
napkin_run_get_series (NapkinRun       *self,
                       NapkinRunSeries  which)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  g_return_val_if_fail (which < NAPKIN_RUN_N_SERIES, NULL);
  ensure_loaded (self);
  return self->series[which];
}

/**
 * napkin_run_get_history:
 * @self: a run
 *
 * Returns: (transfer none): every step the run has reported, every field, the
 *   one full record of the run (exports write it)
 */
NkTrainHistory *
napkin_run_get_history (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  ensure_loaded (self);
  return self->history;
}

/**
 * napkin_run_get_memory_size:
 * @self: a run
 *
 * What the page keeps of this run: its full history and the series the plots
 * draw (the trainer's bounded hand-over ring is the engine's, not counted here).
 *
 * Returns: bytes
 */
gsize
napkin_run_get_memory_size (NapkinRun *self)
{
  gsize bytes;

  g_return_val_if_fail (NAPKIN_IS_RUN (self), 0);
  bytes = sizeof *self + nk_train_history_get_memory_size (self->history);
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    bytes += napkin_series_get_memory_size (self->series[i]);
  return bytes;
}

/* ------------------------------------------------------------ text */

/**
 * napkin_run_describe_config:
 * @config: a run's config
 *
 * Returns: (transfer full): one line naming the model and the settings
 */
char *
napkin_run_describe_config (const NkTrainConfig *c)
{
  const NkModelArch *arch = nk_model_arch_lookup (c->model);
  g_autofree char *model = NULL;
  NkModelShape shape;

  nk_train_config_get_shape (c, &shape);
  model = arch != NULL ? arch->describe (&shape) : g_strdup (nk_model_kind_to_string (c->model));
  return g_strdup_printf (_("%s · batch %u · %" PRIu64 " steps · lr %g · %s · %s · %s"),
                          model, c->batch, c->steps, c->lr,
                          nk_optimizer_to_string (c->optimizer),
                          nk_precision_to_string (c->precision), c->device);
}

/* Returns: (transfer full): a loss as the page writes it (six digits; NaN, ±∞) */
char *
napkin_run_format_loss (double loss)
{
  if (!isfinite (loss))
    return g_strdup (isnan (loss) ? "NaN" : loss > 0 ? "∞" : "−∞");
  return g_strdup_printf ("%.6g", loss);
}

/* ------------------------------------------------------------ its folder on disk */

/**
 * napkin_run_write_folder:
 * @self: a run whose trainer has not started
 * @folder: the run folder to write (nk-run-dir.h): a new one, or the folder of the
 *   run this one resumes (its steps up to the checkpoint stay, and the rest of the
 *   folder is untouched until the trainer has loaded the checkpoint)
 * @error: return location for a #GError
 *
 * Attaches the folder's recorder (nk-run-recorder.h) to the run's trainer: from
 * napkin_run_start() on, every step the trainer runs is appended to the folder's
 * metrics.jsonl, on the recorder's thread, and its end is recorded there.
 *
 * Returns: %FALSE when the folder cannot be written
 */
gboolean
napkin_run_write_folder (NapkinRun   *self,
                         const char  *folder,
                         GError     **error)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  g_return_val_if_fail (folder != NULL, FALSE);
  g_return_val_if_fail (self->recorder == NULL, FALSE);

  self->recorder = nk_run_recorder_new (self->trainer, folder, error);
  if (self->recorder == NULL)
    return FALSE;
  g_free (self->folder);
  self->folder = g_strdup (folder);
  return TRUE;
}

static NkTrainerState
state_of_status (NkRunStatus status)
{
  switch (status)
    {
    case NK_RUN_STATUS_FINISHED:
      return NK_TRAINER_STATE_FINISHED;
    case NK_RUN_STATUS_FAILED:
      return NK_TRAINER_STATE_FAILED;
    case NK_RUN_STATUS_RUNNING:
    case NK_RUN_STATUS_STOPPED:
    case NK_RUN_STATUS_INTERRUPTED:
    default:
      /* One another process still writes is not this app's to pause or stop. */
      return NK_TRAINER_STATE_STOPPED;
    }
}

/**
 * napkin_run_dup_default_name:
 * @config: a run's config
 *
 * The name of a run nobody named: its model, its precision (with the MX scale
 * rule or NVFP4's rounding, as napkin_run_compare_dup_recipe() says it) and its
 * seed, "GPT · NVFP4, stochastic rounding · seed 1".
 *
 * Returns: (transfer full): the name
 */
char *
napkin_run_dup_default_name (const NkTrainConfig *config)
{
  const NkModelArch *arch;
  g_autofree char *model = NULL;
  g_autofree char *recipe = NULL;
  char *paren;

  g_return_val_if_fail (config != NULL, NULL);

  arch = nk_model_arch_lookup (config->model);
  /* the model's title without its aside: "GPT (nanoGPT’s)" is "GPT" */
  model = g_strdup (arch != NULL ? _(arch->title) : nk_model_kind_to_string (config->model));
  if ((paren = strstr (model, " (")) != NULL)
    *paren = '\0';
  recipe = napkin_run_compare_dup_recipe (config);
  /* Translators: a run's default name: its model ("GPT"), its precision
   * ("NVFP4, stochastic rounding") and its seed */
  return g_strdup_printf (_("%s · %s · seed %" PRIu64), model, recipe, (uint64_t) config->seed);
}

/**
 * napkin_run_new_from_folder:
 * @info: a run folder's description (nk_run_info_read())
 * @index: the run's number on the page
 * @error: return location for a #GError
 *
 * A run read back from disk: its series filled from the folder's metrics.jsonl,
 * nothing retrained. Its trainer is built from the folder's config and never
 * started, so everything that asks a run for its trainer works unchanged.
 *
 * Returns: (transfer full) (nullable): the run
 */
NapkinRun *
napkin_run_new_from_folder (const NkRunInfo  *info,
                            guint             index,
                            GError          **error)
{
  g_autoptr(NkTrainConfig) config = NULL;
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(NapkinRun) self = NULL;

  g_return_val_if_fail (info != NULL, NULL);

  config = info->config != NULL ? nk_train_config_copy (info->config) : nk_train_config_new ();
  trainer = nk_trainer_new (config);
  self = napkin_run_new (trainer, index);
  g_free (self->name);
  /* Unnamed, a run is called by its settings (runs of a sweep differ in them),
   * else by when it started, rather than by its folder's id. */
  if (g_strcmp0 (info->name, info->id) == 0 && info->config != NULL)
    self->name = napkin_run_dup_default_name (info->config);
  else if (g_strcmp0 (info->name, info->id) == 0 && info->created > 0)
    {
      g_autoptr(GDateTime) created = g_date_time_new_from_unix_local (info->created);
      /* Translators: a run's default name; strftime codes as g_date_time_format() */
      g_autofree char *when = g_date_time_format (created, _("%e %b %Y, %H:%M"));

      self->name = g_strdup_printf (_("Run of %s"), g_strstrip (when));
    }
  else
    self->name = g_strdup (info->name);
  self->folder = g_strdup (info->path);
  self->from_disk = TRUE;
  self->state = state_of_status (info->status);
  self->interrupted = info->status == NK_RUN_STATUS_INTERRUPTED;
  self->resumable = self->interrupted && info->has_checkpoint;
  self->error = g_strdup (info->error);
  /* The list shows the last step; the steps themselves are read when the run is
   * shown or compared, so a folder of million-step runs opens at once. */
  if (nk_run_dir_read_last_step (info->path, &self->latest))
    {
      self->have_latest = TRUE;
      self->last_step = self->latest.step;
      self->last_loss = self->latest.loss;
    }
  return g_steal_pointer (&self);
}

/* Reads a folder's steps into a new history: the slow half of loading, safe on
 * any thread. */
static NkTrainHistory *
read_history (const char  *folder,
              GError     **error)
{
  g_autoptr(NkTrainHistory) history = nk_train_history_new ();
  NkRunMetricsInfo metrics;

  if (!nk_run_dir_read_metrics (folder, history, &metrics, error))
    return NULL;
  g_free (metrics.device);
  return g_steal_pointer (&history);
}

/* The run's series and history from @history (taken), on the main thread. */
static void
take_history (NapkinRun      *self,
              NkTrainHistory *history)
{
  guint64 before = self->last_step;
  gsize n = nk_train_history_get_n (history);

  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_begin_update (self->series[i]);
  for (gsize i = 0; i < n; i++)
    {
      NkTrainMetrics m;

      nk_train_history_get (history, i, &m);
      add_step (self, &m);
      self->disk_seconds += m.seconds;
    }
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_end_update (self->series[i]);
  nk_train_history_free (self->history);
  self->history = history;
  if (self->last_step != before)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_STEP]);
}

/* Reads a run from disk's steps into its history and series, once. */
static void
ensure_loaded (NapkinRun *self)
{
  g_autoptr(GError) error = NULL;
  NkTrainHistory *history;

  if (!self->from_disk || self->loaded)
    return;
  self->loaded = TRUE;
  history = read_history (self->folder, &error);
  if (history == NULL)
    {
      g_debug ("Run folder %s: %s", self->folder, error->message);
      return;
    }
  take_history (self, history);
}

static void
load_in_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GError *error = NULL;
  NkTrainHistory *history = read_history (task_data, &error);

  if (history == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, history, (GDestroyNotify) nk_train_history_free);
}

/**
 * napkin_run_is_loaded:
 * @self: a run
 *
 * Returns: whether its steps are in memory (always, for a run of this session)
 */
gboolean
napkin_run_is_loaded (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  return !self->from_disk || self->loaded;
}

/**
 * napkin_run_load_async:
 * @self: a run
 * @callback: called on the main thread once its steps are in
 * @user_data: for @callback
 *
 * Reads a run from disk's steps on a thread (a million-step metrics.jsonl takes
 * most of a second), then fills its series on the main thread. A run already
 * loaded calls back at once.
 */
void
napkin_run_load_async (NapkinRun           *self,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NAPKIN_IS_RUN (self));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, napkin_run_load_async);
  if (napkin_run_is_loaded (self))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_task_set_task_data (task, g_strdup (self->folder), g_free);
  g_task_run_in_thread (task, load_in_thread);
}

/**
 * napkin_run_load_finish:
 * @self: a run
 * @result: the result
 * @error: why its steps could not be read (the run stays listed)
 *
 * Returns: whether the steps are in
 */
gboolean
napkin_run_load_finish (NapkinRun     *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  NkTrainHistory *history;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (g_task_get_task_data (G_TASK (result)) == NULL)
    return g_task_propagate_boolean (G_TASK (result), error);   /* it was loaded already */
  history = g_task_propagate_pointer (G_TASK (result), error);
  if (napkin_run_is_loaded (self))
    {
      /* a synchronous reader came first: keep its steps */
      g_clear_pointer (&history, nk_train_history_free);
      return TRUE;
    }
  self->loaded = TRUE;
  if (history == NULL)
    return FALSE;
  take_history (self, history);
  return TRUE;
}

/* Returns: (nullable): the run's folder on disk */
const char *
napkin_run_get_folder (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->folder;
}

/* Returns: whether the run was read back from disk rather than run by this page */
gboolean
napkin_run_is_from_disk (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  return self->from_disk;
}

/* Returns: whether its folder was left by a run that crashed or was killed */
gboolean
napkin_run_is_interrupted (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  return self->interrupted;
}

/* Returns: whether it is interrupted and has a checkpoint to go on from */
gboolean
napkin_run_is_resumable (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  return self->resumable;
}

/**
 * napkin_run_rename:
 * @self: a run
 * @name: its new name
 * @error: return location for a #GError
 *
 * Renames the run, and its folder's record of its name (the folder keeps its id).
 *
 * Returns: %FALSE when the folder could not be written (the name stays)
 */
gboolean
napkin_run_rename (NapkinRun   *self,
                   const char  *name,
                   GError     **error)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (g_strcmp0 (self->name, name) == 0)
    return TRUE;
  if (self->folder != NULL && !nk_run_dir_set_name (self->folder, name, error))
    return FALSE;
  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
  return TRUE;
}

/* ------------------------------------------------------------ runs of other engines */

/**
 * napkin_run_new_from_import:
 * @import: (transfer full): another engine's log as steps (nk_log_import())
 * @path: the file or folder it was read from
 * @index: the run's number on the page
 *
 * A finished run with the log's loss and throughput (TFLOP/s per GPU) as its
 * series; it has no config of Napkin's and no folder.
 *
 * Returns: (transfer full): the run
 */
NapkinRun *
napkin_run_new_from_import (NkImport   *import,
                            const char *path,
                            guint       index)
{
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);
  g_autofree char *base = g_path_get_basename (path);
  NapkinRun *self;

  g_return_val_if_fail (import != NULL && path != NULL, NULL);

  self = napkin_run_new (trainer, index);
  self->import = import;
  self->import_path = g_strdup (path);
  self->state = NK_TRAINER_STATE_FINISHED;
  g_free (self->name);
  self->name = g_strdup (base);
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_begin_update (self->series[i]);
  for (guint i = 0; i < import->steps->len; i++)
    {
      const NkImportStep *s = &g_array_index (import->steps, NkImportStep, i);
      double x = (double) s->step;

      napkin_series_append (self->series[NAPKIN_RUN_SERIES_LOSS], x, s->loss);
      if (isfinite (s->tflops_per_gpu))
        napkin_series_append (self->series[NAPKIN_RUN_SERIES_THROUGHPUT], x, s->tflops_per_gpu * 1e12);
      self->last_step = MAX (s->step, 0);
      if (isfinite (s->loss))
        self->last_loss = s->loss;
    }
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_end_update (self->series[i]);
  return self;
}

/* Returns: (nullable): the file or folder an imported run was read from */
const char *
napkin_run_get_import_path (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->import_path;
}

/* Returns: (nullable): the log a run was imported from, or %NULL for a run of Napkin's */
const NkImport *
napkin_run_get_import (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->import;
}

/**
 * napkin_run_dup_description:
 * @self: a run
 *
 * Returns: (transfer full): its config in a line, or for an imported run where
 *   it comes from
 */
char *
napkin_run_dup_description (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);

  if (self->import == NULL)
    return napkin_run_describe_config (napkin_run_get_config (self));
  if (self->follower != NULL)
    return dup_follow_description (self);
  /* Translators: "%s log" with an engine's name (torchtitan, megatron, deepspeed,
   * nanogpt, llmc, tensorboard), then the steps read and the lines skipped */
  return g_strdup_printf (_("%s log · %u steps read · %u lines skipped"),
                          nk_log_format_to_string (self->import->format), self->import->steps->len,
                          self->import->skipped_lines);
}

/**
 * napkin_run_set_plan:
 * @self: an imported run
 * @plan: (nullable): the plan's prediction to compare with, or %NULL for none
 */
void
napkin_run_set_plan (NapkinRun                *self,
                     const NkImportPrediction *plan)
{
  g_return_if_fail (NAPKIN_IS_RUN (self));

  self->have_plan = plan != NULL;
  if (plan != NULL)
    self->plan = *plan;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_PLAN]);
}

/* Returns: (nullable): the plan an imported run is compared with */
const NkImportPrediction *
napkin_run_get_plan (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->have_plan ? &self->plan : NULL;
}

/**
 * napkin_run_get_comparison:
 * @self: a run
 * @out: (out caller-allocates): the run beside its plan
 *
 * Returns: %FALSE when the run is not imported or has no plan
 */
gboolean
napkin_run_get_comparison (NapkinRun          *self,
                           NkImportComparison *out)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), FALSE);

  if (self->import == NULL || !self->have_plan)
    return FALSE;
  nk_import_compare (&self->plan, self->import, out);
  return TRUE;
}

/* ------------------------------------------------------------ logs followed as they grow */

static void
on_follower_step (NkLogFollower      *follower,
                  const NkImportStep *s,
                  NapkinRun          *self)
{
  double x = (double) s->step;

  g_array_append_val (self->import->steps, *s);
  self->import->format = nk_log_follower_get_format (follower);
  self->import->skipped_lines = nk_log_follower_get_skipped_lines (follower);
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_begin_update (self->series[i]);
  napkin_series_append (self->series[NAPKIN_RUN_SERIES_LOSS], x, s->loss);
  if (isfinite (s->tflops_per_gpu))
    napkin_series_append (self->series[NAPKIN_RUN_SERIES_THROUGHPUT], x, s->tflops_per_gpu * 1e12);
  for (guint i = 0; i < NAPKIN_RUN_N_SERIES; i++)
    napkin_series_end_update (self->series[i]);
  self->last_step = MAX (s->step, 0);
  if (isfinite (s->loss))
    self->last_loss = s->loss;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_STEP]);
}

static void
on_follower_notice (NkLogFollower *follower,
                    const char    *sentence,
                    NapkinRun     *self)
{
  g_free (self->notice);
  self->notice = g_strdup (sentence);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
set_state (NapkinRun      *self,
           NkTrainerState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* A log followed on its own ends with its follower; a command's log with the command. */
static void
on_follower_ended (NkLogFollower  *follower,
                   NkLogFollowEnd  reason,
                   NapkinRun      *self)
{
  self->ended_us = g_get_monotonic_time ();
  if (self->command == NULL)
    set_state (self, reason == NK_LOG_FOLLOW_END_ERROR ? NK_TRAINER_STATE_FAILED : NK_TRAINER_STATE_FINISHED);
}

static void
on_command_ended (NkCommandRun *command,
                  NapkinRun    *self)
{
  gboolean stopped = nk_command_run_get_stopping (command);
  gboolean clean = nk_command_run_get_term_signal (command) == 0
                   && nk_command_run_get_exit_status (command) == 0;

  /* The follower reads what the command wrote last, then ends once the log has
   * been quiet for a moment. */
  if (nk_log_follower_get_running (self->follower))
    nk_log_follower_set_idle_timeout (self->follower, 0.5);
  g_free (self->error);
  self->error = nk_command_run_dup_status (command);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
  set_state (self, stopped ? NK_TRAINER_STATE_STOPPED : clean ? NK_TRAINER_STATE_FINISHED
                                                               : NK_TRAINER_STATE_FAILED);
}

/* "torchrun train.py", "sh launch-demo.sh": the program and the first word that
 * is no option, each without its folder. */
static char *
command_name (const char * const *argv)
{
  g_autofree char *program = g_path_get_basename (argv[0]);

  for (guint i = 1; argv[i] != NULL; i++)
    if (argv[i][0] != '-' && strchr (argv[i], '=') == NULL)
      {
        g_autofree char *what = g_path_get_basename (argv[i]);

        return g_strdup_printf ("%s %s", program, what);
      }
  return g_steal_pointer (&program);
}

/**
 * napkin_run_new_following:
 * @path: a log (or TensorBoard folder) still being written
 * @command: (nullable): the command writing it, started, or %NULL for a job elsewhere
 * @index: the run's number on the page
 * @error: return location for a #GError
 *
 * A run of another engine whose steps come as its log grows: its series grow with
 * them, its state is running until the command ends (or, without one, until the
 * follower ends), and #NapkinRun:error holds the command's end ("exited with
 * status 3") or the follower's last notice.
 *
 * Returns: (transfer full) (nullable): the run, following, or %NULL when the log
 *   cannot be followed
 */
NapkinRun *
napkin_run_new_following (const char    *path,
                          NkCommandRun  *command,
                          guint          index,
                          GError       **error)
{
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);
  g_autoptr(NkLogFollower) follower = nk_log_follower_new (path, NK_LOG_FORMAT_AUTO);
  g_autoptr(NapkinRun) self = NULL;
  g_autofree char *base = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (command == NULL || NK_IS_COMMAND_RUN (command), NULL);

  self = napkin_run_new (trainer, index);
  self->import = g_new0 (NkImport, 1);
  self->import->format = NK_LOG_FORMAT_AUTO;
  self->import->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  self->import_path = g_strdup (path);
  self->follower = g_object_ref (follower);
  g_signal_connect (follower, "step", G_CALLBACK (on_follower_step), self);
  g_signal_connect (follower, "notice", G_CALLBACK (on_follower_notice), self);
  g_signal_connect (follower, "ended", G_CALLBACK (on_follower_ended), self);
  if (command != NULL)
    {
      self->command = g_object_ref (command);
      g_signal_connect (command, "ended", G_CALLBACK (on_command_ended), self);
      /* A command can be quiet for hours: its end, not silence, ends following. */
      nk_log_follower_set_idle_timeout (follower, 0);
      base = command_name (nk_command_run_get_argv (command));
    }
  else
    base = g_path_get_basename (path);
  g_free (self->name);
  self->name = g_strdup (base);
  self->started_us = g_get_monotonic_time ();
  self->state = NK_TRAINER_STATE_RUNNING;
  if (!nk_log_follower_start (follower, error))
    return NULL;
  if (command != NULL && !nk_command_run_get_running (command))
    on_command_ended (command, self);
  return g_steal_pointer (&self);
}

/* Returns: (nullable) (transfer none): the command writing a followed run's log */
NkCommandRun *
napkin_run_get_command (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->command;
}

/* Returns: (nullable) (transfer none): what follows a run's log as it grows */
NkLogFollower *
napkin_run_get_follower (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->follower;
}

/* Returns: (nullable): the follower's last notice (truncated, rotated, unreadable) */
const char *
napkin_run_get_notice (NapkinRun *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (self), NULL);
  return self->notice;
}

static char *
dup_follow_description (NapkinRun *self)
{
  const char *engine = self->import->format == NK_LOG_FORMAT_AUTO
                       ? _("engine not known yet") : nk_log_format_to_string (self->import->format);

  if (self->command != NULL)
    {
      g_autofree char *status = nk_command_run_dup_status (self->command);

      /* Translators: a launched command's run: its engine (or "engine not known
       * yet"), the steps read, and where the command is ("running", "exited with
       * status 3", "killed by SIGTERM") */
      return g_strdup_printf (_("%s · %u steps read · %s"), engine, self->import->steps->len, status);
    }
  /* Translators: a followed log: its engine, the steps read so far */
  return g_strdup_printf (_("%s log · %u steps read · followed"), engine, self->import->steps->len);
}
