/* nk-run-recorder.c: the one writer of a run's folder, on a thread of its own
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "nk-checkpoint.h"
#include "nk-run-dir-private.h"
#include "nk-run-recorder.h"

/* A batch is what arrives within BATCH_WINDOW of its first step, at most BATCH_MAX
 * steps: a tiny model does a step in microseconds, and one write() per step would
 * cost more than the step. */
#define BATCH_WINDOW (20 * G_TIME_SPAN_MILLISECOND)
#define BATCH_MAX    4096

struct _NkRunRecorder
{
  GObject                 parent_instance;

  NkTrainer              *trainer;
  char                   *dir;
  char                   *held;          /* the folder's key in held_folders */
  NkTrainConfig          *config;
  NkTrainPrediction       prediction;
  gboolean                resuming;      /* begun once the trainer is ready */
  guint64                 start_step;
  NkRunRecorderLinesFunc  lines_func;
  gpointer                lines_data;
  gboolean                closed;

  /* Shared with the recorder's thread, under mutex. */
  GMutex                  mutex;
  GCond                   cond;
  GThread                *thread;
  NkRunWriter            *writer;        /* the thread's, once the run began */
  GArray                 *queue;         /* NkTrainMetrics waiting */
  guint64                 sync_wanted;
  guint64                 sync_done;
  gboolean                finish_wanted;
  NkRunStatus             finish_status;
  char                   *finish_message;
  gboolean                finished;
  gboolean                quit;
  GError                 *error;         /* the first write that failed */
  gsize                   bad_lines;
  guint64                 last_step;     /* written */
  double                  last_loss;
};

/**
 * NkRunRecorder:
 *
 * Writes one trainer's run into a run folder (config.json, metrics.jsonl, the
 * TensorBoard events, status.json) on a thread of its own, so the steps never wait
 * for the disk; the one owner of a run folder while the run lasts.
 */
G_DEFINE_FINAL_TYPE (NkRunRecorder, nk_run_recorder, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TRAINER,
  PROP_DIR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- one recorder per folder in this process -------------------------------------- */

/* flock() refuses a second lock of this process with the sentence for another
 * process; the folders this process's recorders hold are known here first. */
static GMutex      held_mutex;
static GHashTable *held_folders;

static char *
folder_key (const char *dir)
{
  return g_canonicalize_filename (dir, NULL);
}

static gboolean
hold_folder (const char  *key,
             const char  *dir,
             GError     **error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&held_mutex);
  if (held_folders == NULL)
    held_folders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_contains (held_folders, key))
    {
      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_IN_USE,
                   _("Run folder “%s” is being written by another run of this process; wait "
                     "for that run to end or choose another folder."), dir);
      ok = FALSE;
    }
  else
    g_hash_table_add (held_folders, g_strdup (key));
  g_mutex_unlock (&held_mutex);
  return ok;
}

static void
release_folder (NkRunRecorder *self)
{
  g_autofree char *key = g_steal_pointer (&self->held);

  if (key == NULL)
    return;
  g_mutex_lock (&held_mutex);
  g_hash_table_remove (held_folders, key);
  g_mutex_unlock (&held_mutex);
}

/* ---- the recorder's thread ------------------------------------------------------- */

/* Under the mutex: the recorder's first error; the run cannot go on without its
 * folder, so it ends with the error. */
static void
set_error (NkRunRecorder *self,
           GError        *error)
{
  if (self->error == NULL)
    {
      self->error = error;
      nk_trainer_abort (self->trainer, error);
    }
  else
    g_error_free (error);
}

static gboolean
write_batch (NkRunRecorder  *self,
             GArray         *batch,
             GString        *lines,
             GError        **error)
{
  const NkTrainMetrics *steps = (const NkTrainMetrics *) (gpointer) batch->data;
  const char *device = nk_trainer_get_device_name (self->trainer);

  g_string_truncate (lines, 0);
  for (guint i = 0; i < batch->len; i++)
    _nk_run_metrics_format (&steps[i], device, lines);
  if (!_nk_run_writer_write_lines (self->writer, lines->str, lines->len, steps, batch->len,
                                   error))
    return FALSE;
  if (self->lines_func != NULL)
    self->lines_func (lines->str, lines->len, self->lines_data);
  return TRUE;
}

/* The loss a run resumed with nothing left to do ends on: its checkpoint's. */
static double
resumed_loss (const NkTrainConfig *config)
{
  g_autoptr(NkCheckpoint) ck = NULL;

  if (config->resume_dir == NULL)
    return NAN;
  ck = nk_checkpoint_find_latest_intact (config->resume_dir, NULL, NULL);
  return ck != NULL ? nk_checkpoint_get_loss (ck) : NAN;
}

/* The final status, once every step is written. */
static void
write_finish (NkRunRecorder *self,
              NkRunStatus    status,
              const char    *message)
{
  g_autoptr(GError) error = NULL;
  guint64 steps = self->last_step;
  double loss = self->last_loss;

  if (steps <= self->start_step)
    {
      steps = self->start_step;
      loss = steps > 0 ? resumed_loss (self->config) : NAN;
    }
  if (!nk_run_writer_finish (self->writer, status, steps, loss, message, &error))
    g_debug ("Run folder %s: %s", self->dir, error->message);
}

/* What one turn of the thread is to do, taken under the mutex. */
typedef struct {
  gboolean  begun;       /* the folder is the run's (a resume is begun once ready) */
  gboolean  failed;      /* an earlier write failed: nothing more is written */
  gboolean  sync;
  gboolean  finish;
  NkRunStatus status;
  char     *message;     /* a FAILED run's sentence */
} Turn;

/* Writes one batch, and the fsync and final status asked for with it. */
static void
write_turn (NkRunRecorder *self,
            GArray        *batch,
            const Turn    *turn,
            GString       *lines)
{
  g_autoptr(GError) error = NULL;
  gboolean begun = turn->begun;
  gboolean ok = TRUE;

  if (turn->failed || !begun)
    ok = TRUE;
  else if (batch->len > 0 && !write_batch (self, batch, lines, &error))
    ok = FALSE;
  else if (turn->sync && !_nk_run_writer_sync (self->writer, &error))
    ok = FALSE;
  g_mutex_lock (&self->mutex);
  if (ok && begun && !turn->failed && batch->len > 0)
    {
      const NkTrainMetrics *last = &g_array_index (batch, NkTrainMetrics, batch->len - 1);

      self->last_step = last->step;
      self->last_loss = last->loss;
    }
  if (!ok)
    set_error (self, g_error_copy (error));
  g_mutex_unlock (&self->mutex);
  /* A run whose folder could not be written failed, however its trainer ended. */
  if (turn->finish && begun)
    write_finish (self, error != NULL || turn->failed ? NK_RUN_STATUS_FAILED : turn->status,
                  error != NULL ? error->message : turn->message);
}

/* Under the mutex: whether the thread has something to do now. */
static gboolean
urgent (NkRunRecorder *self)
{
  return self->sync_done != self->sync_wanted || (self->finish_wanted && !self->finished)
         || self->quit || self->queue->len >= BATCH_MAX;
}

static gpointer
recorder_thread (gpointer data)
{
  NkRunRecorder *self = data;
  g_autoptr(GArray) batch = g_array_new (FALSE, FALSE, sizeof (NkTrainMetrics));
  g_autoptr(GString) lines = g_string_sized_new (4096);

  g_mutex_lock (&self->mutex);
  for (;;)
    {
      Turn turn = { 0, };
      guint64 ticket;
      gboolean quit;
      GArray *swap;

      while (self->queue->len == 0 && !urgent (self))
        g_cond_wait (&self->cond, &self->mutex);
      if (!urgent (self))
        {
          gint64 deadline = g_get_monotonic_time () + BATCH_WINDOW;

          while (!urgent (self) && g_cond_wait_until (&self->cond, &self->mutex, deadline))
            ;
        }
      swap = self->queue;
      self->queue = batch;
      batch = swap;
      ticket = self->sync_wanted;
      turn.finish = self->finish_wanted && !self->finished;
      turn.status = self->finish_status;
      turn.sync = ticket != self->sync_done || turn.finish || self->quit;
      turn.failed = self->error != NULL;
      turn.begun = _nk_run_writer_has_begun (self->writer);
      turn.message = g_strdup (self->error != NULL ? self->error->message : self->finish_message);
      quit = self->quit;
      g_mutex_unlock (&self->mutex);

      write_turn (self, batch, &turn, lines);
      g_array_set_size (batch, 0);
      g_free (turn.message);

      g_mutex_lock (&self->mutex);
      self->sync_done = ticket;
      if (turn.finish)
        {
          self->finished = TRUE;
          /* nk_run_writer_finish() released the lock: so does this process. */
          release_folder (self);
        }
      g_cond_broadcast (&self->cond);
      if (quit && self->queue->len == 0)
        break;
    }
  g_mutex_unlock (&self->mutex);
  return NULL;
}

/* Waits until the thread has done a turn that began after this call. */
static void
wait_for_turn (NkRunRecorder *self)
{
  guint64 ticket;

  g_mutex_lock (&self->mutex);
  if (self->thread != NULL && !self->quit)
    {
      ticket = ++self->sync_wanted;
      g_cond_broadcast (&self->cond);
      while (self->sync_done < ticket)
        g_cond_wait (&self->cond, &self->mutex);
    }
  g_mutex_unlock (&self->mutex);
}

/* ---- what the trainer tells it, on the thread that runs the steps ------------------- */

static void
on_ready (NkTrainer *trainer,
          guint64    start_step,
          gpointer   user_data)
{
  NkRunRecorder *self = user_data;
  GError *error = NULL;

  g_mutex_lock (&self->mutex);
  self->start_step = start_step;
  /* Proven: the settings match the checkpoint's and it loaded. Only now is the
   * folder changed. */
  if (self->resuming && self->error == NULL
      && !_nk_run_writer_begin (self->writer, self->config, &self->prediction, start_step,
                                &self->bad_lines, &error))
    set_error (self, error);
  g_mutex_unlock (&self->mutex);
}

static void
on_step (NkTrainer            *trainer,
         const NkTrainMetrics *m,
         gpointer              user_data)
{
  NkRunRecorder *self = user_data;

  g_mutex_lock (&self->mutex);
  if (self->error == NULL)
    {
      g_array_append_val (self->queue, *m);
      if (self->queue->len == 1 || self->queue->len >= BATCH_MAX)
        g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->mutex);
}

static void
on_sync (NkTrainer *trainer,
         gpointer   user_data)
{
  wait_for_turn (user_data);
}

static const NkTrainerObserver observer = { on_ready, on_step, on_sync };

/* The trainer's end, wherever its state is set (the main thread, or the caller of
 * nk_trainer_run_sync()): recorded after every step. */
static void
on_trainer_state (NkTrainer     *trainer,
                  GParamSpec    *pspec,
                  NkRunRecorder *self)
{
  NkTrainerState state = nk_trainer_get_state (trainer);
  g_autofree char *message = NULL;

  if (state != NK_TRAINER_STATE_FINISHED && state != NK_TRAINER_STATE_STOPPED
      && state != NK_TRAINER_STATE_FAILED)
    return;
  if (state == NK_TRAINER_STATE_FAILED)
    g_object_get (trainer, "error-message", &message, NULL);
  g_mutex_lock (&self->mutex);
  if (!self->finish_wanted)
    {
      self->finish_wanted = TRUE;
      self->finish_status = state == NK_TRAINER_STATE_FINISHED ? NK_RUN_STATUS_FINISHED
                            : state == NK_TRAINER_STATE_STOPPED ? NK_RUN_STATUS_STOPPED
                            : NK_RUN_STATUS_FAILED;
      self->finish_message = g_steal_pointer (&message);
      g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->mutex);
}

/* ---- GObject ---------------------------------------------------------------------- */

static void
nk_run_recorder_dispose (GObject *object)
{
  NkRunRecorder *self = NK_RUN_RECORDER (object);

  nk_run_recorder_close (self, NULL);
  g_clear_object (&self->trainer);

  G_OBJECT_CLASS (nk_run_recorder_parent_class)->dispose (object);
}

static void
nk_run_recorder_finalize (GObject *object)
{
  NkRunRecorder *self = NK_RUN_RECORDER (object);

  release_folder (self);
  g_clear_pointer (&self->writer, nk_run_writer_free);
  g_clear_pointer (&self->queue, g_array_unref);
  g_clear_pointer (&self->config, nk_train_config_free);
  g_clear_error (&self->error);
  g_free (self->finish_message);
  g_free (self->dir);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (nk_run_recorder_parent_class)->finalize (object);
}

static void
nk_run_recorder_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NkRunRecorder *self = NK_RUN_RECORDER (object);

  switch (prop_id)
    {
    case PROP_TRAINER:
      g_value_set_object (value, self->trainer);
      break;
    case PROP_DIR:
      g_value_set_string (value, self->dir);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_run_recorder_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NkRunRecorder *self = NK_RUN_RECORDER (object);

  switch (prop_id)
    {
    case PROP_TRAINER:
      self->trainer = g_value_dup_object (value);
      break;
    case PROP_DIR:
      self->dir = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_run_recorder_class_init (NkRunRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = nk_run_recorder_dispose;
  object_class->finalize = nk_run_recorder_finalize;
  object_class->get_property = nk_run_recorder_get_property;
  object_class->set_property = nk_run_recorder_set_property;

  /**
   * NkRunRecorder:trainer:
   *
   * The trainer whose run is recorded.
   */
  properties[PROP_TRAINER] =
    g_param_spec_object ("trainer", NULL, NULL, NK_TYPE_TRAINER,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NkRunRecorder:dir:
   *
   * The run folder written.
   */
  properties[PROP_DIR] =
    g_param_spec_string ("dir", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
nk_run_recorder_init (NkRunRecorder *self)
{
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->queue = g_array_new (FALSE, FALSE, sizeof (NkTrainMetrics));
  self->last_loss = NAN;
}

/* ---- opening ---------------------------------------------------------------------- */

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

/* What can be refused without touching anything. */
static gboolean
check_folder (NkRunRecorder  *self,
              GError        **error)
{
  const NkTrainConfig *c = self->config;

  /* Its lock is the run folder's: the trainer could not take it too. */
  if (same_directory (c->checkpoint_dir, self->dir) || same_directory (c->resume_dir, self->dir))
    {
      g_autofree char *ckdir = nk_run_dir_get_checkpoint_dir (self->dir);

      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_CHECKPOINTS,
                   _("The checkpoints of run folder “%s” are in “%s”, not in the run folder "
                     "itself."), self->dir, ckdir);
      return FALSE;
    }
  if (_nk_run_dir_has_run (self->dir) && c->resume_dir == NULL)
    {
      g_set_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_HAS_RUN,
                   _("“%s” already holds a run; resume it from its checkpoints or choose "
                     "another folder."), self->dir);
      return FALSE;
    }
  return TRUE;
}

static gboolean
open_folder (NkRunRecorder  *self,
             GError        **error)
{
  g_autofree char *key = folder_key (self->dir);
  double rate = NAN;

  self->config = nk_train_config_copy (nk_trainer_get_config (self->trainer));
  /* Another run of this process first: its folder holds a run, but not a finished one. */
  if (!hold_folder (key, self->dir, error))
    return FALSE;
  self->held = g_steal_pointer (&key);
  if (!check_folder (self, error))
    return FALSE;
  self->writer = _nk_run_writer_lock (self->dir, error);
  if (self->writer == NULL)
    return FALSE;
  nk_train_gemm_rate_peek (self->config->device, &rate, NULL);
  nk_train_config_predict (self->config, rate, &self->prediction);
  /* A folder with a run in it waits for the trainer's proof (on_ready); a new one
   * has nothing to lose and is listed as running from now. */
  self->resuming = _nk_run_dir_has_run (self->dir);
  if (!self->resuming
      && !_nk_run_writer_begin (self->writer, self->config, &self->prediction, 0, NULL, error))
    return FALSE;
  return TRUE;
}

NkRunRecorder *
nk_run_recorder_new (NkTrainer   *trainer,
                     const char  *dir,
                     GError     **error)
{
  g_autoptr(NkRunRecorder) self = NULL;

  g_return_val_if_fail (NK_IS_TRAINER (trainer), NULL);
  g_return_val_if_fail (nk_trainer_get_state (trainer) == NK_TRAINER_STATE_IDLE, NULL);
  g_return_val_if_fail (dir != NULL, NULL);

  self = g_object_new (NK_TYPE_RUN_RECORDER, "trainer", trainer, "dir", dir, NULL);
  if (!open_folder (self, error))
    {
      self->closed = TRUE;
      return NULL;
    }
  self->thread = g_thread_new ("nk-run-recorder", recorder_thread, self);
  nk_trainer_set_observer (trainer, &observer, self);
  g_signal_connect_object (trainer, "notify::state", G_CALLBACK (on_trainer_state), self, 0);
  return g_steal_pointer (&self);
}

/* ---- the rest --------------------------------------------------------------------- */

/**
 * nk_run_recorder_set_name:
 * @self: a recorder whose trainer has not started
 * @name: the run's name, as the app lists it
 * @error: return location for a #GError
 *
 * Names the run in its folder (meta.json's "name"); without a name the app calls
 * a run by its settings. A resumed run takes @name over the name it had.
 *
 * Returns: %FALSE when meta.json could not be written
 */
gboolean
nk_run_recorder_set_name (NkRunRecorder  *self,
                          const char     *name,
                          GError        **error)
{
  gboolean ok;

  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  g_mutex_lock (&self->mutex);
  ok = _nk_run_writer_set_name (self->writer, name, error);
  g_mutex_unlock (&self->mutex);
  return ok;
}

/**
 * nk_run_recorder_get_dir:
 * @self: a recorder
 *
 * The run folder the recorder writes.
 *
 * Returns: (transfer none): the folder
 */
const char *
nk_run_recorder_get_dir (NkRunRecorder *self)
{
  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), NULL);
  return self->dir;
}

/**
 * nk_run_recorder_get_trainer:
 * @self: a recorder
 *
 * The trainer whose run is recorded.
 *
 * Returns: (transfer none): the trainer
 */
NkTrainer *
nk_run_recorder_get_trainer (NkRunRecorder *self)
{
  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), NULL);
  return self->trainer;
}

/**
 * nk_run_recorder_set_lines_func: (skip)
 * @self: a recorder that has not started
 * @func: (nullable): called with each batch of lines written to metrics.jsonl
 * @user_data: for @func
 *
 * Sets what is told each batch of lines once it reached the file; set it before the
 * trainer starts. Not for bindings: @func runs on the recorder's own thread, which
 * gjs cannot take; they read metrics.jsonl or connect to NkTrainer::step.
 */
void
nk_run_recorder_set_lines_func (NkRunRecorder          *self,
                                NkRunRecorderLinesFunc  func,
                                gpointer                user_data)
{
  g_return_if_fail (NK_IS_RUN_RECORDER (self));

  g_mutex_lock (&self->mutex);
  self->lines_func = func;
  self->lines_data = user_data;
  g_mutex_unlock (&self->mutex);
}

static gboolean
take_error (NkRunRecorder  *self,
            GError        **error)
{
  gboolean ok;

  g_mutex_lock (&self->mutex);
  ok = self->error == NULL;
  if (!ok)
    g_propagate_error (error, g_error_copy (self->error));
  g_mutex_unlock (&self->mutex);
  return ok;
}

gboolean
nk_run_recorder_flush_sync (NkRunRecorder  *self,
                            GError        **error)
{
  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), FALSE);

  wait_for_turn (self);
  return take_error (self, error);
}

gboolean
nk_run_recorder_close (NkRunRecorder  *self,
                       GError        **error)
{
  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), FALSE);

  if (self->closed)
    return take_error (self, error);
  self->closed = TRUE;
  /* Detaching waits for a call of the trainer's in progress. */
  nk_trainer_set_observer (self->trainer, NULL, NULL);
  g_signal_handlers_disconnect_by_func (self->trainer, on_trainer_state, self);
  g_mutex_lock (&self->mutex);
  self->quit = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  g_clear_pointer (&self->thread, g_thread_join);
  /* Unfinished, the folder reads as interrupted; a refused resume never began. */
  g_clear_pointer (&self->writer, nk_run_writer_free);
  release_folder (self);
  return take_error (self, error);
}

/**
 * nk_run_recorder_get_bad_lines:
 * @self: a recorder
 *
 * The lines of metrics.jsonl that were no step, kept where they were when the run
 * resumed into the folder.
 *
 * Returns: the count (0 for a new folder, or before the run began)
 */
gsize
nk_run_recorder_get_bad_lines (NkRunRecorder *self)
{
  gsize n;

  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), 0);
  g_mutex_lock (&self->mutex);
  n = self->bad_lines;
  g_mutex_unlock (&self->mutex);
  return n;
}

/**
 * nk_run_recorder_get_last_step:
 * @self: a recorder
 *
 * The last step written to the folder.
 *
 * Returns: the step, 0 for none
 */
guint64
nk_run_recorder_get_last_step (NkRunRecorder *self)
{
  guint64 step;

  g_return_val_if_fail (NK_IS_RUN_RECORDER (self), 0);
  g_mutex_lock (&self->mutex);
  step = self->last_step;
  g_mutex_unlock (&self->mutex);
  return step;
}
