/* nk-train-history.h: every step of a run, kept once, column by column, in a few bytes per step
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The trainer's own history is a bounded ring (#NkTrainConfig.history_limit): a
 * hand-over buffer from its worker to listeners, which ask for the steps since the
 * last one they saw (nk_trainer_get_history_range()). Whoever keeps a whole run,
 * a million steps or more, appends those steps to one #NkTrainHistory.
 *
 * Each field of #NkTrainMetrics is a column of 64-bit words (a double's bits, or a
 * count). Most columns hardly change from step to step: the FLOPs of a step, the
 * bytes per memory bucket, the peak, the prediction, the loss scale. A column is
 * therefore kept as runs of equal words, and turns into a plain array (in chunks
 * of %NK_TRAIN_HISTORY_CHUNK words, so growing never copies it) only once it has
 * more runs than that would cost. Three columns are kept as their difference from
 * what the others predict, so they too become runs: the step (one more than its
 * index's), flops_per_s (flops / seconds) and mfu (flops_per_s / peak). What stays
 * is the loss and the four timings: about 40 bytes per step, every value given
 * back bit for bit (nk_train_history_get()).
 *
 * Not thread-safe: one thread (the app's main thread) appends and reads.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-train-metrics.h"

G_BEGIN_DECLS

/**
 * NK_TRAIN_HISTORY_CHUNK:
 *
 * Words per chunk of a plain column: 32 KiB.
 */
#define NK_TRAIN_HISTORY_CHUNK 4096

/**
 * NkTrainColumn:
 * @NK_TRAIN_COLUMN_STEP: #NkTrainMetrics.step
 * @NK_TRAIN_COLUMN_LOSS: .loss
 * @NK_TRAIN_COLUMN_FLOPS: .flops
 * @NK_TRAIN_COLUMN_FLOPS_FORWARD: .flops_forward
 * @NK_TRAIN_COLUMN_FLOPS_BACKWARD: .flops_backward
 * @NK_TRAIN_COLUMN_FLOPS_MATMUL: .flops_matmul
 * @NK_TRAIN_COLUMN_SECONDS: .seconds
 * @NK_TRAIN_COLUMN_SECONDS_FORWARD: .seconds_forward
 * @NK_TRAIN_COLUMN_SECONDS_BACKWARD: .seconds_backward
 * @NK_TRAIN_COLUMN_SECONDS_OPTIMIZER: .seconds_optimizer
 * @NK_TRAIN_COLUMN_FLOPS_PER_S: .flops_per_s
 * @NK_TRAIN_COLUMN_PEAK_FLOPS_PER_S: .peak_flops_per_s
 * @NK_TRAIN_COLUMN_MFU: .mfu
 * @NK_TRAIN_COLUMN_LOSS_SCALE: .loss_scale
 * @NK_TRAIN_COLUMN_SKIPPED: .skipped (0 or 1)
 * @NK_TRAIN_COLUMN_SKIPPED_STEPS: .skipped_steps
 * @NK_TRAIN_COLUMN_MEMORY: .memory[b] is column %NK_TRAIN_COLUMN_MEMORY + b (an #NkBucket)
 * @NK_TRAIN_COLUMN_MEMORY_PEAK: .memory_peak[b] likewise
 * @NK_TRAIN_COLUMN_PREDICTED: .predicted[i] is column %NK_TRAIN_COLUMN_PREDICTED + i
 * @NK_TRAIN_COLUMN_FLOPS_FORMULA: .flops_formula
 * @NK_TRAIN_COLUMN_FLOPS_ATTENTION: .flops_attention
 * @NK_TRAIN_COLUMN_QUANT_FLUSHED: .quant_flushed (0 in a run without a block-scaled recipe)
 * @NK_TRAIN_COLUMN_QUANT_CLIPPED: .quant_clipped
 * @NK_TRAIN_N_COLUMNS: how many columns
 *
 * The columns of an #NkTrainHistory: one per field of #NkTrainMetrics it keeps
 * (an array field takes one column per element).
 */
typedef enum {
  NK_TRAIN_COLUMN_STEP,
  NK_TRAIN_COLUMN_LOSS,
  NK_TRAIN_COLUMN_FLOPS,
  NK_TRAIN_COLUMN_FLOPS_FORWARD,
  NK_TRAIN_COLUMN_FLOPS_BACKWARD,
  NK_TRAIN_COLUMN_FLOPS_MATMUL,
  NK_TRAIN_COLUMN_SECONDS,
  NK_TRAIN_COLUMN_SECONDS_FORWARD,
  NK_TRAIN_COLUMN_SECONDS_BACKWARD,
  NK_TRAIN_COLUMN_SECONDS_OPTIMIZER,
  NK_TRAIN_COLUMN_FLOPS_PER_S,
  NK_TRAIN_COLUMN_PEAK_FLOPS_PER_S,
  NK_TRAIN_COLUMN_MFU,
  NK_TRAIN_COLUMN_LOSS_SCALE,
  NK_TRAIN_COLUMN_SKIPPED,
  NK_TRAIN_COLUMN_SKIPPED_STEPS,
  NK_TRAIN_COLUMN_MEMORY,
  NK_TRAIN_COLUMN_MEMORY_PEAK = NK_TRAIN_COLUMN_MEMORY + NK_N_BUCKETS,
  NK_TRAIN_COLUMN_PREDICTED = NK_TRAIN_COLUMN_MEMORY_PEAK + NK_N_BUCKETS,
  NK_TRAIN_COLUMN_FLOPS_FORMULA = NK_TRAIN_COLUMN_PREDICTED + 4,
  NK_TRAIN_COLUMN_FLOPS_ATTENTION,
  NK_TRAIN_COLUMN_QUANT_FLUSHED,
  NK_TRAIN_COLUMN_QUANT_CLIPPED,
  NK_TRAIN_N_COLUMNS
} NkTrainColumn;

/**
 * NkTrainHistory:
 *
 * Every step of a run, kept column by column in a few bytes per step (see above).
 * A boxed type; a copy duplicates the columns as they are kept.
 */
typedef struct _NkTrainHistory NkTrainHistory;

#define NK_TYPE_TRAIN_HISTORY (nk_train_history_get_type ())

NK_AVAILABLE_IN_ALL
GType           nk_train_history_get_type        (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkTrainHistory *nk_train_history_new             (void);
NK_AVAILABLE_IN_ALL
NkTrainHistory *nk_train_history_copy            (NkTrainHistory       *self);
NK_AVAILABLE_IN_ALL
void            nk_train_history_free            (NkTrainHistory       *self);

NK_AVAILABLE_IN_ALL
void            nk_train_history_append          (NkTrainHistory       *self,
                                                  const NkTrainMetrics *metrics);
NK_AVAILABLE_IN_ALL
void            nk_train_history_append_steps    (NkTrainHistory       *self,
                                                  const NkTrainMetrics *steps,
                                                  gsize                 n_steps);
NK_AVAILABLE_IN_ALL
void            nk_train_history_clear           (NkTrainHistory       *self);

NK_AVAILABLE_IN_ALL
gsize           nk_train_history_get_n           (NkTrainHistory       *self);
NK_AVAILABLE_IN_ALL
void            nk_train_history_get             (NkTrainHistory       *self,
                                                  gsize                 index,
                                                  NkTrainMetrics       *out);
NK_AVAILABLE_IN_ALL
double          nk_train_history_get_value       (NkTrainHistory       *self,
                                                  NkTrainColumn         column,
                                                  gsize                 index);
NK_AVAILABLE_IN_ALL
gsize           nk_train_history_copy_column     (NkTrainHistory       *self,
                                                  NkTrainColumn         column,
                                                  gsize                 from,
                                                  gsize                 n,
                                                  double               *out);
NK_AVAILABLE_IN_ALL
gsize           nk_train_history_lower_bound     (NkTrainHistory       *self,
                                                  guint64               step);
NK_AVAILABLE_IN_ALL
gsize           nk_train_history_get_memory_size (NkTrainHistory       *self);

NK_AVAILABLE_IN_ALL
char           *nk_train_history_to_csv          (NkTrainHistory       *self,
                                                  const char           *device);
NK_AVAILABLE_IN_ALL
char           *nk_train_history_to_json_lines   (NkTrainHistory       *self,
                                                  const char           *device);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkTrainHistory, nk_train_history_free)

G_END_DECLS
