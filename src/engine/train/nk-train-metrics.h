/* nk-train-metrics.h: what each training step reports, and its exports (JSON Lines, CSV)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One #NkTrainMetrics per step. `napkin-cli train --json-lines` prints the JSON of
 * each step and the app exports the same objects; the CSV export has one row per
 * step with the columns of %NK_TRAIN_CSV_HEADER. Both live here so the CLI and the
 * app write the very same bytes.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

#include "nk-autograd.h"
#include "nk-precision.h"
#include "nk-storage.h"

G_BEGIN_DECLS

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
 * @flops_formula: the planner's FLOPs for the step (nk_train_config_predict(): 6·N
 *   per token, and for a GPT PaLM's 12·L·T·d per token of attention besides)
 * @flops_attention: of @flops_matmul, attention's batched products (GPT)
 * @flops_norm: LayerNorm's element-wise work (GPT; #NK_FLOP_KIND_NORM)
 * @flops_activation: GELU's (#NK_FLOP_KIND_ACTIVATION)
 * @flops_softmax: the causal softmax's (#NK_FLOP_KIND_SOFTMAX)
 * @flops_embedding: the embedding's backward scatter-add (#NK_FLOP_KIND_EMBEDDING)
 * @precision: the run's precision policy
 * @quant_elements: under mxfp8 or nvfp4, the matmul operand elements the step
 *   quantized (forward and backward; 0 otherwise)
 * @quant_flushed: of those, the share of nonzero values flushed to zero
 * @quant_clipped: of those, the share clipped at the element format's largest value
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
  double   flops_formula;
  guint64  flops_attention;
  guint64  flops_norm;
  guint64  flops_activation;
  guint64  flops_softmax;
  guint64  flops_embedding;
  NkPrecision precision;
  guint64  quant_elements;
  double   quant_flushed;
  double   quant_clipped;
} NkTrainMetrics;

#define NK_TYPE_TRAIN_METRICS (nk_train_metrics_get_type ())

NK_AVAILABLE_IN_ALL
GType          nk_train_metrics_get_type   (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkTrainMetrics *nk_train_metrics_copy      (const NkTrainMetrics *metrics);
NK_AVAILABLE_IN_ALL
void           nk_train_metrics_free       (NkTrainMetrics       *metrics);

NK_AVAILABLE_IN_ALL
double         nk_train_metrics_get_flop_kinds (const NkTrainMetrics *metrics,
                                                double                kinds[NK_N_FLOP_KINDS]);

NK_AVAILABLE_IN_ALL
void           nk_train_metrics_build_json (const NkTrainMetrics *metrics,
                                            const char           *device,
                                            JsonBuilder          *builder);
NK_AVAILABLE_IN_ALL
void           nk_train_done_build_json    (guint64               steps,
                                            double                final_loss,
                                            JsonBuilder          *builder);

/**
 * NK_TRAIN_CSV_HEADER:
 *
 * The first line of the CSV export (with its newline): the step's counters, its
 * device, the live bytes of the params, grads, optimizer, activations and data
 * buckets, the phases' FLOPs and seconds, the fp16 loss scale and whether the step
 * was skipped (0 or 1). Floating-point cells are g_ascii_dtostr()'s shortest
 * round-trip text, or "nan", "inf", "-inf".
 */
#define NK_TRAIN_CSV_HEADER \
  "step,loss,flops,seconds,flops_per_s,peak_flops_per_s,mfu,device," \
  "memory_params,memory_grads,memory_optimizer,memory_activations," \
  "memory_data,flops_forward,flops_backward,flops_matmul," \
  "seconds_forward,seconds_backward,seconds_optimizer," \
  "loss_scale,skipped\n"

NK_AVAILABLE_IN_ALL
void           nk_train_metrics_append_csv (const NkTrainMetrics *metrics,
                                            const char           *device,
                                            GString              *out);
NK_AVAILABLE_IN_ALL
char          *nk_train_metrics_to_csv     (const NkTrainMetrics *steps,
                                            gsize                 n_steps,
                                            const char           *device);
NK_AVAILABLE_IN_ALL
char          *nk_train_metrics_to_json_lines (const NkTrainMetrics *steps,
                                               gsize                 n_steps,
                                               const char           *device);

G_END_DECLS
