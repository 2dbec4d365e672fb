/* nk-import-plan.h: a plan's prediction beside an imported run's measurement
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A plan written by `napkin-cli plan --json` (or the Planner's export) predicts
 * a step's time, tokens per second, MFU and the most loaded GPU's memory. The
 * CLI's `import --plan` and the Training page read it with
 * nk_import_plan_load() and set it beside the run with nk_import_compare().
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

#include "nk-log-import.h"

G_BEGIN_DECLS

/**
 * NK_IMPORT_PLAN_MAX_BYTES:
 *
 * The largest plan file read, 16 MiB: a plan's JSON is a few kilobytes.
 */
#define NK_IMPORT_PLAN_MAX_BYTES ((goffset) 16 << 20)

/**
 * NkImportPrediction:
 * @seconds: a step's time, in seconds
 * @tokens_per_s: tokens per second, the whole job's
 * @mfu: model FLOPs utilisation, a fraction (PaLM's count, the plan's own)
 * @memory_max_bytes: the most loaded GPU's memory, in bytes
 * @gpus: the layout's TP × PP × CP × DP, for engines that print per-GPU throughput
 * @mfu_torchtitan: the plan's MFU on torchtitan's FLOP count (`mfu_by_engine`)
 * @mfu_nanogpt: on nanoGPT's
 * @mfu_llmc: on llm.c's
 * @mfu_hardware: the plan's MFU counting recompute (Megatron-LM's TFLOP/s do)
 * @peak: the GPU's peak, in FLOP/s
 * @dtype: the peak's format ("bf16"), "" when the plan does not say
 * @seq: tokens per sequence: the layout's tokens per step / global batch
 * @target_tokens: the run's token target: the layout's tokens per step × its
 *   steps (the plan's tokens rounded up to whole steps)
 *
 * What a plan predicts; NAN where the plan has no such field (0 in
 * @target_tokens also means none).
 */
typedef struct {
  double seconds;
  double tokens_per_s;
  double mfu;
  double memory_max_bytes;
  double gpus;
  double mfu_torchtitan, mfu_nanogpt, mfu_llmc;
  double mfu_hardware;
  double peak;
  char   dtype[8];
  double seq;
  double target_tokens;
} NkImportPrediction;

/**
 * NkImportQuantity:
 * @NK_IMPORT_Q_SECONDS: a step's time
 * @NK_IMPORT_Q_TOKENS_PER_S: tokens per second
 * @NK_IMPORT_Q_MFU: model FLOPs utilisation
 * @NK_IMPORT_Q_MEMORY: the most loaded GPU's memory
 * @NK_IMPORT_Q_FLOPS: FLOP/s per GPU
 * @NK_IMPORT_N_QUANTITIES: the number of quantities above (not a quantity)
 *
 * What a plan and an imported run are compared on.
 */
typedef enum {
  NK_IMPORT_Q_SECONDS,
  NK_IMPORT_Q_TOKENS_PER_S,
  NK_IMPORT_Q_MFU,
  NK_IMPORT_Q_MEMORY,
  NK_IMPORT_Q_FLOPS,
  NK_IMPORT_N_QUANTITIES
} NkImportQuantity;

/**
 * NkImportComparison:
 * @predicted: the plan's figure per #NkImportQuantity
 * @measured: the run's: the median over its steps after its first (the warm-up);
 *   the peak for memory
 * @ratio: measured / predicted
 * @largest: the quantity whose ratio is farthest from 1 (the largest unexplained
 *   term), -1 when none compares
 * @mfu_count: whose FLOP count the MFUs are on: the log's engine ("torchtitan") when
 *   the plan has its count, else "model" (PaLM's, the plan's own)
 *
 * A plan set beside an imported run, per quantity; NAN where either side lacks it.
 * The predicted MFU is on the log's engine's own FLOP count where the plan has it.
 */
typedef struct {
  double      predicted[NK_IMPORT_N_QUANTITIES];
  double      measured[NK_IMPORT_N_QUANTITIES];
  double      ratio[NK_IMPORT_N_QUANTITIES];
  int         largest;
  const char *mfu_count;
} NkImportComparison;

NK_AVAILABLE_IN_ALL
const char *nk_import_quantity_name (NkImportQuantity          quantity);
NK_AVAILABLE_IN_ALL
gboolean    nk_import_plan_read     (JsonNode                 *root,
                                     NkImportPrediction       *out,
                                     GError                  **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_import_plan_load     (const char               *path,
                                     NkImportPrediction       *out,
                                     GError                  **error);
NK_AVAILABLE_IN_ALL
double      nk_import_prediction_get_mfu (const NkImportPrediction *prediction,
                                          NkLogFormat               format,
                                          const char              **count);
NK_AVAILABLE_IN_ALL
double      nk_import_prediction_tokens_after       (const NkImportPrediction *prediction,
                                                     double                    seconds);
NK_AVAILABLE_IN_ALL
double      nk_import_prediction_seconds_for_tokens (const NkImportPrediction *prediction,
                                                     double                    tokens);
NK_AVAILABLE_IN_ALL
double      nk_import_prediction_get_target_seconds (const NkImportPrediction *prediction);
NK_AVAILABLE_IN_ALL
void        nk_import_compare       (const NkImportPrediction *prediction,
                                     const NkImport           *import,
                                     NkImportComparison       *out);

G_END_DECLS
