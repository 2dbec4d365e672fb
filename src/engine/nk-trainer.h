/* nk-trainer.h: one toy training run on a worker thread, with honest accounting
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkTrainer owns one run. Its #NkTrainConfig is frozen at construction; start()
 * runs the steps on a worker thread (g_task_run_in_thread) that owns every tensor of
 * the run. Between steps the worker checks an atomic control word (pause, stop,
 * checkpoint now), so each takes effect within one step. After each step it stores
 * the step's #NkTrainMetrics under a mutex (latest + a bounded history) and, if none is
 * pending yet, schedules one idle (G_PRIORITY_LOW) on the caller's main context that
 * updates the properties and emits #NkTrainer::step there: however fast the steps,
 * at most one idle is pending and widgets are only touched on the main thread.
 * nk_trainer_run_sync() runs the same loop on the calling thread and emits ::step
 * after every step (for tests and the CLI). Each checkpoint written is announced the
 * same way by #NkTrainer::checkpoint-written, after the ::step of its step.
 *
 * A step: batch for step t (a pure function of seed and t) → forward (nk_ag_* ops,
 * FLOPs counted by the ops) → backward → optimizer → zero_grad. The FLOPs of each
 * phase come from nk-ops' per-thread counter, the seconds from the monotonic clock,
 * the peak from the device (nk-gpus row of a CUDA device for the run's dtype, or the
 * CPU's derived peak, nk-cpuinfo.h), memory from the device's per-bucket counters, and
 * the prediction beside it from nk-plan's formulas for the same model.
 *
 * Steady state allocates no storage: the forward outputs and backward temporaries
 * come from an #NkArena that hands the same buffers out again every step (nk-autograd.h),
 * parameter gradients and optimizer state are allocated once with the model and
 * optimizer, and the batch is written into two DATA buffers allocated once.
 *
 * Checkpoints (nk-checkpoint.h) hold the parameters, optimizer state, step, data
 * generator state and config; the data stream is a pure function of (seed, step),
 * so a run resumed from a checkpoint repeats the uninterrupted run bit for bit.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "nk-device.h"
#include "nk-init.h"
#include "nk-model.h"
#include "nk-enum-types.h"
#include "nk-optim.h"
#include "nk-precision.h"

G_BEGIN_DECLS

#define NK_TRAINER_ERROR (nk_trainer_error_quark ())

/**
 * NkTrainerError:
 * @NK_TRAINER_ERROR_CONFIG: an invalid setting (lr ≤ 0, zero batch, ...): bad usage
 * @NK_TRAINER_ERROR_DIVERGED: the loss became NaN or infinite
 * @NK_TRAINER_ERROR_BUSY: the trainer is already running or has run
 * @NK_TRAINER_ERROR_FAILED: anything else (files, devices) — the message says what
 */
typedef enum {
  NK_TRAINER_ERROR_CONFIG,
  NK_TRAINER_ERROR_DIVERGED,
  NK_TRAINER_ERROR_BUSY,
  NK_TRAINER_ERROR_FAILED,
} NkTrainerError;

GQuark nk_trainer_error_quark (void);

/**
 * NkTrainerState:
 * @NK_TRAINER_STATE_IDLE: not started
 * @NK_TRAINER_STATE_RUNNING: steps are running
 * @NK_TRAINER_STATE_PAUSED: paused between two steps
 * @NK_TRAINER_STATE_FINISHED: all steps done
 * @NK_TRAINER_STATE_STOPPED: stopped on request
 * @NK_TRAINER_STATE_FAILED: stopped by an error (#NkTrainer:error-message)
 */
typedef enum {
  NK_TRAINER_STATE_IDLE,
  NK_TRAINER_STATE_RUNNING,
  NK_TRAINER_STATE_PAUSED,
  NK_TRAINER_STATE_FINISHED,
  NK_TRAINER_STATE_STOPPED,
  NK_TRAINER_STATE_FAILED,
} NkTrainerState;

#define NK_TYPE_TRAIN_CONFIG   (nk_train_config_get_type ())

/**
 * NkTrainConfig:
 * @model: cruncher or tiny-lm
 * @dim: D
 * @layers: L
 * @batch: B (sequences for the LM)
 * @context: T, tokens per sequence (LM only; default 32)
 * @steps: optimizer steps to run in total (a resumed run continues to this)
 * @lr: learning rate, > 0
 * @optimizer: the rule (default adamw, as `napkin-cli plan`)
 * @seed: seeds the initialisation and the data stream
 * @device: "cpu", "cuda", "cuda:N" or "auto"
 * @precision: fp32, bf16-mixed or fp16
 * @init_kind: truncated normal (default) or N(0, 1)
 * @init_file: (nullable): a safetensors state_dict loaded over the initialisation
 * @inputs: (nullable): X.npy [N, D] (Cruncher)
 * @targets: (nullable): Y.npy [N] (Cruncher)
 * @text_file: (nullable): LM tokens (text bytes, .npy or .bin); %NULL: bundled text
 * @checkpoint_dir: (nullable): where to write checkpoints; a run that does not resume
 *   from this directory refuses to start when it holds checkpoints of another config
 *   (nk_checkpoint_check_dir()), and saves never replace or prune another run's files
 * @checkpoint_every: write one every N steps (0: only at the end and on request)
 * @checkpoint_keep: how many to keep (0: all)
 * @resume_dir: (nullable): continue from the newest intact checkpoint there
 * @history_limit: most steps kept in the history (0: all); when full, each new step
 *   replaces the oldest (a ring buffer: O(1) per step however long the run)
 * @loss_scale_init: fp16's first loss scale (default 65536, GradScaler's); not part of
 *   the config's JSON, since a resumed run takes its scale from the checkpoint
 * @histogram_every: compute a #NkTrainHistogram of the chosen tensor every N steps on
 *   the worker (0: never, the default; nk_trainer_set_histogram_source())
 */
typedef struct {
  NkModelKind       model;
  guint             dim;
  guint             layers;
  guint             batch;
  guint             context;
  guint64           steps;
  double            lr;
  NkOptimizer       optimizer;
  guint64           seed;
  char             *device;
  NkPrecision  precision;
  NkInitKind        init_kind;
  char             *init_file;
  char             *inputs;
  char             *targets;
  char             *text_file;
  char             *checkpoint_dir;
  guint64           checkpoint_every;
  guint             checkpoint_keep;
  char             *resume_dir;
  guint             history_limit;
  double            loss_scale_init;
  guint64           histogram_every;
} NkTrainConfig;

GType          nk_train_config_get_type  (void) G_GNUC_CONST;
/* The defaults: cruncher, D 64, L 2, B 8, T 32, 100 steps, lr 0.01, adamw, seed 0,
 * cpu, fp32, truncated normal, keep 3 checkpoints, history 10000 steps. */
NkTrainConfig *nk_train_config_new       (void);
NkTrainConfig *nk_train_config_copy      (const NkTrainConfig *config);
void           nk_train_config_free      (NkTrainConfig       *config);
/* Checks the numbers (not the files): NK_TRAINER_ERROR_CONFIG naming the setting. */
gboolean       nk_train_config_validate  (const NkTrainConfig *config,
                                          GError             **error);
/* Returns: (transfer full): the config as a JSON object (what checkpoints record, and
 * what tells two runs apart): model, dim, layers, batch, context (LM), steps, lr,
 * optimizer, seed, precision, init, and the init_file/inputs/targets/text paths when
 * set. */
char          *nk_train_config_to_json   (const NkTrainConfig *config);

/* The model the config describes, without building it (nk-model's closed forms). */
guint64        nk_train_config_count_parameters (const NkTrainConfig *config);
/* Returns: (transfer full): its parameters' state_dict names, in order */
char         **nk_train_config_dup_param_names  (const NkTrainConfig *config);

/**
 * NkTrainPrediction:
 * @n_parameters: what the model will have (nk_train_config_count_parameters())
 * @tokens_per_step: B (Cruncher) or B·T (LM)
 * @flops_per_step: nk-plan's 6 · N · tokens for one step
 * @memory: the bytes the trainer predicts beside its measurements
 *   (#NkTrainMetrics.predicted): params, grads, optimizer (nk-plan's fp32 formulas)
 *   and activations (nk_model_kind_activation_bytes() in the run's precision)
 * @memory_total: their sum
 * @gemm_rate: the matmul rate the time is predicted at (FLOP/s; NAN: not known)
 * @seconds_per_step: @flops_per_step / @gemm_rate (NAN without a rate)
 *
 * What a run will cost before it starts: the numbers of the Training page's
 * prediction card.
 */
typedef struct {
  guint64 n_parameters;
  double  tokens_per_step;
  double  flops_per_step;
  double  memory[4];
  double  memory_total;
  double  gemm_rate;
  double  seconds_per_step;
} NkTrainPrediction;

void           nk_train_config_predict   (const NkTrainConfig *config,
                                          double               gemm_rate,
                                          NkTrainPrediction   *out);

/**
 * NK_TRAIN_GEMM_RATE_SIZE:
 *
 * The matmul nk_train_gemm_rate_measure() times: C = A · B, all N × N, fp32.
 * A few hundred cubed is big enough for BLAS to reach its steady rate and small
 * enough to take milliseconds.
 */
#define NK_TRAIN_GEMM_RATE_SIZE 384

/**
 * nk_train_gemm_rate_measure_sync:
 * @device: "cpu", "cuda", "cuda:N" or "auto"
 * @cancellable: (nullable): a cancellable
 * @error: return location for a #GError (no such device: the device's reason)
 *
 * Times an fp32 matmul of %NK_TRAIN_GEMM_RATE_SIZE cubed on @device (two warm-ups,
 * then the median of seven) and remembers the answer for the process, so only the
 * first call per device does any work; a failure is remembered too. The operands are
 * tensors in %NK_BUCKET_OTHER, freed before returning. Blocks for tens of
 * milliseconds: the app calls nk_train_gemm_rate_measure() instead.
 *
 * Returns: the measured FLOP/s, or NAN with @error set
 */
double         nk_train_gemm_rate_measure_sync   (const char          *device,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
/* The same on a worker thread; @callback runs on the caller's main context. */
void           nk_train_gemm_rate_measure        (const char          *device,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
double         nk_train_gemm_rate_measure_finish (GAsyncResult        *result,
                                                  GError             **error);
/**
 * nk_train_gemm_rate_peek:
 * @device: a device name as for nk_train_gemm_rate_measure_sync()
 * @out_rate: (out): the rate, NAN when the measurement failed
 * @out_reason: (out) (optional) (transfer full): why it failed, or %NULL
 *
 * Returns: whether @device was measured already (then the answer is at hand)
 */
gboolean       nk_train_gemm_rate_peek           (const char          *device,
                                                  double              *out_rate,
                                                  char               **out_reason);

/**
 * NkTrainMetrics:
 * @step: the step just done, from 1
 * @loss: its loss (before the update)
 * @flops: FLOPs counted by the ops during the step (forward + backward + loss)
 * @flops_forward: of which forward (incl. the loss)
 * @flops_backward: of which backward
 * @flops_matmul: of which matmuls (the rest are elementwise/reductions)
 * @seconds: wall time of the step
 * @seconds_forward: forward
 * @seconds_backward: backward
 * @seconds_optimizer: optimizer update and zero_grad
 * @flops_per_s: flops / seconds
 * @peak_flops_per_s: the device's peak for the run's dtype
 * @mfu: flops_per_s / peak
 * @memory: live bytes per #NkBucket after the step (device counters)
 * @memory_peak: peak bytes per bucket since the run started
 * @predicted: the predicted bytes for params, grads, optimizer (nk-plan's fp32
 *   formulas, exact in every precision) and activations (nk_model_activation_bytes():
 *   what the model keeps, tensor by tensor; nk-plan's linear formula plus B·8 + 4
 *   bytes for the fp32 Cruncher)
 * @loss_scale: the fp16 loss scale (1 otherwise)
 * @skipped: fp16: the step was skipped because a gradient overflowed
 * @skipped_steps: fp16: steps skipped so far in the run, this one included (a resumed
 *   run counts from its checkpoint's count)
 *
 * What each step reports.
 */
typedef struct {
  guint64  step;
  double   loss;
  guint64  flops;
  guint64  flops_forward;
  guint64  flops_backward;
  guint64  flops_matmul;
  double   seconds;
  double   seconds_forward;
  double   seconds_backward;
  double   seconds_optimizer;
  double   flops_per_s;
  double   peak_flops_per_s;
  double   mfu;
  guint64  memory[NK_N_BUCKETS];
  guint64  memory_peak[NK_N_BUCKETS];
  double   predicted[4];
  double   loss_scale;
  gboolean skipped;
  guint64  skipped_steps;
} NkTrainMetrics;

/* The JSON of `napkin-cli train --json-lines` (CLI.md's fields first, then what the
 * app shows beside them): one object per step, then one for the end of the run. */
void           nk_train_metrics_build_json (const NkTrainMetrics *metrics,
                                            const char           *device,
                                            JsonBuilder          *builder);
void           nk_train_done_build_json    (guint64               steps,
                                            double                final_loss,
                                            JsonBuilder          *builder);

/* The histogram's bins: 2^e ≤ |x| < 2^(e+1) for e from -149 (fp32's smallest
 * subnormal) to 127 (its largest binade), so every nonzero finite fp32 falls in one. */
#define NK_TRAIN_HISTOGRAM_MIN_EXP  (-149)
#define NK_TRAIN_HISTOGRAM_MAX_EXP  127
#define NK_TRAIN_HISTOGRAM_N_BINS   (NK_TRAIN_HISTOGRAM_MAX_EXP - NK_TRAIN_HISTOGRAM_MIN_EXP + 1)

/**
 * NkTrainHistogramFormat:
 * @NK_TRAIN_HISTOGRAM_F16: IEEE half
 * @NK_TRAIN_HISTOGRAM_BF16: bfloat16
 *
 * The compute formats a histogram checks its values against.
 */
typedef enum {
  NK_TRAIN_HISTOGRAM_F16,
  NK_TRAIN_HISTOGRAM_BF16,
  NK_TRAIN_HISTOGRAM_N_FORMATS
} NkTrainHistogramFormat;

NkDType nk_train_histogram_format_dtype (NkTrainHistogramFormat format);

/**
 * NkTrainHistogram:
 * @step: the step it was taken at (0: not from a run)
 * @name: the parameter's state_dict name ("final.weight")
 * @gradient: of the parameter's gradient (else of its values)
 * @scale: the factor the values carry: the loss scale for an fp16 run's gradients
 *   (they are histogrammed as backward left them, scaled, which is what fp16 would
 *   hold), 1 otherwise
 * @total: elements
 * @zeros: exact zeros (±0)
 * @nonfinite: inf and NaN
 * @bins: nonzero finite elements by binade: bins[i] counts
 *   2^(i + %NK_TRAIN_HISTOGRAM_MIN_EXP) ≤ |x| < 2^(i + 1 + %NK_TRAIN_HISTOGRAM_MIN_EXP)
 * @below: nonzero magnitudes under the first bin (only an f64 tensor has them)
 * @above: finite magnitudes past the last bin (likewise)
 * @underflow: per format: nonzero values that round (to nearest even) to ±0
 * @subnormal: per format: values that round to a subnormal (fewer significant bits)
 * @overflow: per format: finite values that round to ±inf
 *
 * How a tensor's values spread over the binades, and what rounding them into each
 * compute format would do: the mixed-precision lesson's "how much underflows in
 * fp16 and in bf16". The format thresholds come from nk_dtype_limits().
 */
typedef struct {
  guint64  step;
  char     name[64];
  gboolean gradient;
  double   scale;
  guint64  total;
  guint64  zeros;
  guint64  nonfinite;
  guint64  bins[NK_TRAIN_HISTOGRAM_N_BINS];
  guint64  below;
  guint64  above;
  guint64  underflow[NK_TRAIN_HISTOGRAM_N_FORMATS];
  guint64  subnormal[NK_TRAIN_HISTOGRAM_N_FORMATS];
  guint64  overflow[NK_TRAIN_HISTOGRAM_N_FORMATS];
} NkTrainHistogram;

/**
 * nk_train_histogram_compute:
 * @tensor: an f32 or f64 tensor on any device (a device tensor is read back)
 * @out: (out caller-allocates): the histogram; step 0, name empty, scale 1
 * @error: return location for a #GError
 *
 * One pass over @tensor's elements in logical order.
 *
 * Returns: %TRUE on success
 */
gboolean nk_train_histogram_compute (NkTensor          *tensor,
                                     NkTrainHistogram  *out,
                                     GError           **error);


G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkTrainConfig, nk_train_config_free)

#define NK_TYPE_TRAINER (nk_trainer_get_type ())

G_DECLARE_FINAL_TYPE (NkTrainer, nk_trainer, NK, TRAINER, GObject)

/* Returns: (transfer full): a trainer with a frozen copy of @config */
NkTrainer      *nk_trainer_new              (const NkTrainConfig *config);

/* Returns: (transfer none): the frozen config */
const NkTrainConfig *nk_trainer_get_config  (NkTrainer       *self);

/**
 * nk_trainer_start:
 * @self: an idle trainer
 * @cancellable: (nullable): stops the run like nk_trainer_stop()
 * @callback: called on the caller's main context when the run ends
 * @user_data: for @callback
 *
 * Runs the whole run on a worker thread.
 */
void            nk_trainer_start            (NkTrainer           *self,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
/* Returns: %TRUE if the run finished or was stopped; %FALSE with the error */
gboolean        nk_trainer_start_finish     (NkTrainer           *self,
                                             GAsyncResult        *result,
                                             GError             **error);

/**
 * nk_trainer_run_sync:
 * @self: an idle trainer
 * @cancellable: (nullable): a cancellable
 * @error: return location for a #GError
 *
 * The same run on the calling thread; ::step is emitted after every step.
 *
 * Returns: %TRUE if all steps ran (or nk_trainer_stop() ended the run)
 */
gboolean        nk_trainer_run_sync         (NkTrainer           *self,
                                             GCancellable        *cancellable,
                                             GError             **error);

/* Take effect between two steps. */
void            nk_trainer_pause            (NkTrainer           *self);
void            nk_trainer_resume           (NkTrainer           *self);
void            nk_trainer_stop             (NkTrainer           *self);
/* Writes a checkpoint after the current step (needs a checkpoint dir). */
void            nk_trainer_checkpoint_now   (NkTrainer           *self);

NkTrainerState  nk_trainer_get_state        (NkTrainer           *self);
/* Whether the worker has seen the pause and is waiting. */
gboolean        nk_trainer_is_parked        (NkTrainer           *self);
/* Steps done so far (read atomically; also from other threads). */
guint64         nk_trainer_get_steps_done   (NkTrainer           *self);
/* The step a resumed run started after (0 for a fresh run). */
guint64         nk_trainer_get_start_step   (NkTrainer           *self);

/* The latest metrics; %FALSE before the first step. */
gboolean        nk_trainer_get_latest       (NkTrainer           *self,
                                             NkTrainMetrics      *out_metrics);
/* Returns: (transfer full) (element-type NkTrainMetrics): a copy of the history */
GArray         *nk_trainer_get_history      (NkTrainer           *self);
/**
 * nk_trainer_get_history_range:
 * @self: a trainer
 * @from_step: the first step wanted (steps count from 1)
 *
 * The steps from @from_step on that the history still holds, so a listener that
 * has seen steps up to s asks for s + 1 and copies only what is new.
 *
 * Returns: (transfer full) (element-type NkTrainMetrics): a copy of those steps
 */
GArray         *nk_trainer_get_history_range (NkTrainer          *self,
                                              guint64             from_step);
/* fp16 steps skipped so far (the #NkTrainer:skipped-steps property). */
guint64         nk_trainer_get_skipped_steps (NkTrainer          *self);

/**
 * nk_trainer_set_histogram_source:
 * @self: a trainer
 * @name: (nullable): a parameter's state_dict name; %NULL: the gradient of the last
 *   weight ("final.weight", "head.weight")
 * @gradient: histogram its gradient rather than its values
 *
 * Chooses the tensor the worker histograms every #NkTrainConfig.histogram_every steps;
 * may be called at any time: the next step takes a new histogram.
 */
void            nk_trainer_set_histogram_source (NkTrainer       *self,
                                                 const char      *name,
                                                 gboolean         gradient);
/* The latest histogram; %FALSE before the first. */
gboolean        nk_trainer_get_histogram     (NkTrainer          *self,
                                              NkTrainHistogram   *out);

/* The model (for tests and --save, when the run is not running). (transfer none) */
NkModel        *nk_trainer_get_model        (NkTrainer           *self);
guint64         nk_trainer_get_n_parameters (NkTrainer           *self);
/* Returns: (transfer none): the device's name ("cpu", "cuda:0") once started */
const char     *nk_trainer_get_device_name  (NkTrainer           *self);

/* Writes the model's state_dict (PyTorch names) as safetensors, atomically. */
gboolean        nk_trainer_save             (NkTrainer           *self,
                                             const char          *path,
                                             GError             **error);

G_END_DECLS
