/* nk-train-config.h: what a training run is (its frozen settings), checked, as JSON, predicted
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkTrainConfig is a plain struct the form, the CLI and the tests fill; the
 * trainer freezes a copy. This file also holds the training engine's error domain,
 * since validating a config is the first thing that can fail, and the prediction
 * a config makes before any step runs (the Training page's card, and the dashed
 * lines the trainer draws beside its measurements).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-activation-terms.h"
#include "nk-init.h"
#include "nk-model-arch.h"
#include "nk-optim.h"
#include "nk-precision.h"
#include "nk-quantize.h"

G_BEGIN_DECLS

#define NK_TRAINER_ERROR (nk_trainer_error_quark ())

/**
 * NkTrainerError:
 * @NK_TRAINER_ERROR_CONFIG: an invalid setting (lr ≤ 0, zero batch, ...): bad usage
 * @NK_TRAINER_ERROR_DIVERGED: the loss became NaN or infinite
 * @NK_TRAINER_ERROR_BUSY: the trainer is already running or has run
 * @NK_TRAINER_ERROR_FAILED: anything else (files, devices) — the message says what
 *
 * The ways a training run is refused or ends early, in the %NK_TRAINER_ERROR domain.
 */
typedef enum {
  NK_TRAINER_ERROR_CONFIG,
  NK_TRAINER_ERROR_DIVERGED,
  NK_TRAINER_ERROR_BUSY,
  NK_TRAINER_ERROR_FAILED,
} NkTrainerError;

NK_AVAILABLE_IN_ALL
GQuark nk_trainer_error_quark (void);

/**
 * NK_TRAIN_LM_VOCAB:
 *
 * The tiny LM's vocabulary: it reads bytes.
 */
#define NK_TRAIN_LM_VOCAB 256

#define NK_TYPE_TRAIN_CONFIG   (nk_train_config_get_type ())

/**
 * NkTrainConfig:
 * @model: cruncher, tiny-lm or gpt
 * @dim: D (the GPT's n_embd)
 * @layers: L (the GPT's n_layer)
 * @batch: B (sequences for the LMs)
 * @context: T, tokens per sequence (LMs only; default 32; the GPT's block size)
 * @steps: optimizer steps to run in total (a resumed run continues to this)
 * @lr: learning rate, > 0
 * @optimizer: the rule (default adamw, as `napkin-cli plan`)
 * @seed: seeds the initialisation and the data stream
 * @device: "cpu", "cuda", "cuda:N" or "auto"
 * @precision: fp32, bf16-mixed, fp16, or (GPT, CPU) the emulated mxfp8 or nvfp4
 * @init_kind: truncated normal (default) or N(0, 1)
 * @init_file: (nullable): a safetensors state_dict loaded over the initialisation
 * @inputs: (nullable): X.npy [N, D] (Cruncher)
 * @targets: (nullable): Y.npy [N] (Cruncher)
 * @text_file: (nullable): UTF-8 text read as bytes (vocab 256); %NULL: bundled text
 * @n_head: the GPT's heads (default 4)
 * @vocab: the GPT's vocabulary (0: 256 bytes, or what --tokens/--batches need)
 * @tokens_file: (nullable): LM tokens: a uint16 .bin or uint16/int32 .npy stream
 * @batches_file: (nullable): GPT batches, int32/int64 .npy [N, B, T+1]; step t uses
 *   batch t mod N
 * @sample_every: a GPT writes a sample of its text every N steps on the worker
 *   (nk_trainer_dup_sample(); 0: never, the default; not part of the JSON)
 * @checkpoint_dir: (nullable): where to write checkpoints; a run that does not resume
 *   from this directory refuses to start when it holds checkpoints of another config
 *   (nk_checkpoint_check_dir()), and saves never replace or prune another run's files
 * @checkpoint_every: write one every N steps (0: only at the end and on request)
 * @checkpoint_keep: how many to keep (0: all)
 * @resume_dir: (nullable): continue from the newest intact checkpoint there
 * @history_limit: most steps kept in the trainer's history (0: all); when full, each
 *   new step replaces the oldest (a ring buffer: O(1) per step however long the run).
 *   The ring hands steps over to listeners (nk_trainer_get_history_range()) at
 *   sizeof (#NkTrainMetrics), 256 bytes, a step; a listener that keeps a whole run
 *   keeps it in an #NkTrainHistory (about 40 bytes a step) and leaves this bounded.
 * @loss_scale_init: fp16's first loss scale (default 65536, GradScaler's); not part of
 *   the config's JSON, since a resumed run takes its scale from the checkpoint
 * @histogram_every: compute a #NkTrainHistogram of the chosen tensor every N steps on
 *   the worker (0: never, the default; nk_trainer_set_histogram_source())
 * @mx_scale: how mxfp8's block scales are picked (default %NK_MX_SCALE_UP, NVIDIA's
 *   recipe; %NK_MX_SCALE_FLOOR is the OCP v1.0 rule); in the JSON as "mx_scale"
 *   under mxfp8
 * @nvfp4_nearest: nvfp4 rounds the gradients to nearest-even too, instead of
 *   stochastically (the recipe without its stochastic rounding, for the lesson); in
 *   the JSON as "nvfp4_rounding" under nvfp4
 *
 * The settings of one training run, as `napkin-cli train` takes them and the
 * trainer freezes them. A boxed type; a copy duplicates the strings.
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
  NkPrecision       precision;
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
  guint             n_head;
  guint             vocab;
  char             *tokens_file;
  char             *batches_file;
  guint64           sample_every;
  NkMxScaleRule     mx_scale;
  gboolean          nvfp4_nearest;
} NkTrainConfig;

NK_AVAILABLE_IN_ALL
GType          nk_train_config_get_type  (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkTrainConfig *nk_train_config_new       (void);
NK_AVAILABLE_IN_ALL
double         nk_train_config_default_lr (NkModelKind         model);
NK_AVAILABLE_IN_ALL
NkTrainConfig *nk_train_config_copy      (const NkTrainConfig *config);
NK_AVAILABLE_IN_ALL
void           nk_train_config_free      (NkTrainConfig       *config);
NK_AVAILABLE_IN_ALL
gboolean       nk_train_config_validate  (const NkTrainConfig *config,
                                          GError             **error);
NK_AVAILABLE_IN_ALL
char          *nk_train_config_to_json   (const NkTrainConfig *config);

NK_AVAILABLE_IN_ALL
guint          nk_train_config_get_vocab (const NkTrainConfig *config);

NK_AVAILABLE_IN_ALL
void           nk_train_config_get_shape (const NkTrainConfig *config,
                                          NkModelShape        *shape);

NK_AVAILABLE_IN_ALL
guint64        nk_train_config_count_parameters (const NkTrainConfig *config);
NK_AVAILABLE_IN_ALL
char         **nk_train_config_dup_param_names  (const NkTrainConfig *config);

/**
 * NkTrainPrediction:
 * @n_parameters: what the model will have (nk_train_config_count_parameters())
 * @tokens_per_step: B (Cruncher) or B·T (LM)
 * @flops_per_step: nk-plan's 6 · N · tokens for one step
 * @memory: the bytes the trainer predicts beside its measurements
 *   (#NkTrainMetrics.predicted): params, grads, optimizer (nk-plan's fp32 formulas)
 *   and activations (the model's #NkModelArch.activation_bytes in the run's precision)
 * @memory_total: their sum
 * @gemm_rate: the matmul rate the time is predicted at (FLOP/s; NAN: not known)
 * @seconds_per_step: @flops_per_step / @gemm_rate (NAN without a rate)
 * @activations_planner: a GPT's activations as the Planner's transformer formulas
 *   count them (Korthikanti et al. 2022, the cluster model on one GPU), beside
 *   @memory[3], what the GPT stores; NAN for other models
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
  double  activations_planner;
} NkTrainPrediction;

NK_AVAILABLE_IN_ALL
void           nk_train_config_predict   (const NkTrainConfig *config,
                                          double               gemm_rate,
                                          NkTrainPrediction   *out);

NK_AVAILABLE_IN_ALL
gboolean       nk_train_config_activation_terms (const NkTrainConfig *config,
                                                 double               planner[NK_ACT_N_TERMS],
                                                 double               stored[NK_ACT_N_TERMS]);

NK_AVAILABLE_IN_ALL
gboolean       nk_train_config_flops_terms      (const NkTrainConfig *config,
                                                 double               palm[NK_N_FLOP_KINDS],
                                                 double               ops[NK_N_FLOP_KINDS]);

NK_AVAILABLE_IN_ALL
NkDType        nk_train_config_compute_dtype (const NkTrainConfig *config);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkTrainConfig, nk_train_config_free)

G_END_DECLS
