/* nk-log-import.h: training logs of other engines read as steps
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * torchtitan, Megatron-LM, DeepSpeed (console and CSV monitor), nanoGPT, llm.c (stdout
 * and main.log) and TensorBoard folders. Each parser follows its engine's format
 * strings (cited in nk-log-import.c). Each engine's MFU is its own formula:
 *   torchtitan: 6·(N − N_emb) + 6·L·H·d_head·S FLOPs per token
 *     (torchtitan/models/utils.py:455, embeddings kept when tied), over the bf16 peak;
 *   Megatron-LM: reports TFLOP/s per GPU from num_floating_point_operations
 *     (megatron/training/training.py:802), which counts activation recompute when it is on;
 *   nanoGPT: 6N + 12·L·H·Q·T per token (model.py:296), over A100 bf16 312 TFLOP/s;
 *   llm.c: gpt2_estimate_mfu (train_gpt2.cu:1143), 6N + 6·L·C·T per token, over the
 *     GPU's bf16 peak.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_LOG_IMPORT_ERROR (nk_log_import_error_quark ())

/**
 * NkLogImportError:
 * @NK_LOG_IMPORT_ERROR_IO: the file or folder cannot be read
 * @NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT: no known format matches the input
 * @NK_LOG_IMPORT_ERROR_EMPTY: the input is in the format asked for but holds no step
 *
 * The ways importing a log fails, in the %NK_LOG_IMPORT_ERROR domain.
 */
typedef enum {
  NK_LOG_IMPORT_ERROR_IO,
  NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT,
  NK_LOG_IMPORT_ERROR_EMPTY,
} NkLogImportError;

/**
 * NkLogFormat:
 * @NK_LOG_FORMAT_AUTO: whichever format the input turns out to be in
 * @NK_LOG_FORMAT_TORCHTITAN: torchtitan's console log
 * @NK_LOG_FORMAT_MEGATRON: Megatron-LM's console log
 * @NK_LOG_FORMAT_DEEPSPEED: DeepSpeed's console log or CSV monitor folder
 * @NK_LOG_FORMAT_NANOGPT: nanoGPT's train.py output
 * @NK_LOG_FORMAT_LLMC: llm.c's stdout or main.log
 * @NK_LOG_FORMAT_TENSORBOARD: TensorBoard event files
 *
 * The engines whose logs Napkin reads (`napkin-cli import --format`).
 */
typedef enum {
  NK_LOG_FORMAT_AUTO,
  NK_LOG_FORMAT_TORCHTITAN,
  NK_LOG_FORMAT_MEGATRON,
  NK_LOG_FORMAT_DEEPSPEED,
  NK_LOG_FORMAT_NANOGPT,
  NK_LOG_FORMAT_LLMC,
  NK_LOG_FORMAT_TENSORBOARD,
} NkLogFormat;

/**
 * NK_LOG_IMPORT_MAX_BYTES:
 *
 * The largest log file (or CSV, or TensorBoard event file) read, 1 GiB: a long run's
 * log of a million steps from 8 ranks is a few hundred MB.
 */
#define NK_LOG_IMPORT_MAX_BYTES ((goffset) 1 << 30)
/**
 * NK_LOG_IMPORT_MAX_LINE:
 *
 * The longest line read, in bytes. A longer line is no engine's (a Megatron-LM line
 * is about 600 bytes): skipped unread, so that no pattern runs over megabytes of one
 * line.
 */
#define NK_LOG_IMPORT_MAX_LINE 65536
/**
 * NK_LOG_IMPORT_MAX_STEP:
 *
 * The largest step read: 2^53, the last whole number every JSON reader holds
 * exactly; a larger one is a corrupt line.
 */
#define NK_LOG_IMPORT_MAX_STEP (G_GINT64_CONSTANT (1) << 53)

/**
 * NkImportField:
 * @NK_IMPORT_FIELD_LOSS: the step has a loss, which may be NaN or ±inf (a diverged run)
 *
 * The fields whose value the source printed even when it is not finite.
 */
typedef enum {
  NK_IMPORT_FIELD_LOSS = 1 << 0,
} NkImportField;

/**
 * NkImportStep:
 * @step: the step number
 * @loss: its loss, which may be NaN or ±inf (see @present)
 * @tokens_per_s: as the engine prints it (torchtitan: per GPU; llm.c: whole job)
 * @tflops_per_gpu: TFLOP/s per GPU (Megatron-LM's)
 * @mfu: a fraction (0.42), on the engine's own FLOP count
 * @memory_max_bytes: the most memory a GPU held, in bytes
 * @seconds: the step's time, in seconds
 * @samples_per_s: sequences per second: DeepSpeed's CurrSamplesPerSec, Megatron-LM's
 *   global batch size over its elapsed time per iteration
 * @present: #NkImportField flags: what the source printed, NaN or not
 *
 * One step of an imported log; a field the source does not have is NAN (the loss:
 * see @present). Every field but the loss is finite and not negative where present.
 * A boxed type (#NkLogFollower::step carries one).
 */
typedef struct {
  gint64 step;
  double loss;
  double tokens_per_s;
  double tflops_per_gpu;
  double mfu;
  double memory_max_bytes;
  double seconds;
  double samples_per_s;
  guint present;
} NkImportStep;

/**
 * NkImport:
 * @format: the format the log was read as
 * @steps: (element-type NkImportStep): the steps, by step
 * @skipped_lines: every non-blank line (or record) not read as a step: not the
 *   format's, cut short, or one of @rejected_lines
 * @rejected_lines: the format's lines whose values cannot be (a negative time, an
 *   MFU over 100 %, a step past %NK_LOG_IMPORT_MAX_STEP)
 * @replaced_steps: steps logged again after a later step (a restarted run): the
 *   later line is the one kept
 * @first_rejected: (nullable): which line was rejected first (line number and value)
 *
 * What a log import read. A boxed type; a copy duplicates the steps.
 */
typedef struct {
  NkLogFormat format;
  GArray *steps;
  guint skipped_lines;
  guint rejected_lines;
  guint replaced_steps;
  char *first_rejected;
} NkImport;

#define NK_TYPE_IMPORT (nk_import_get_type ())
#define NK_TYPE_IMPORT_STEP (nk_import_step_get_type ())

NK_AVAILABLE_IN_ALL
GType        nk_import_get_type        (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
GType        nk_import_step_get_type   (void) G_GNUC_CONST;

NK_AVAILABLE_IN_ALL
GQuark       nk_log_import_error_quark (void);

NK_AVAILABLE_IN_ALL
const char  *nk_log_format_to_string   (NkLogFormat  format);
NK_AVAILABLE_IN_ALL
gboolean     nk_log_format_from_string (const char  *text,
                                        NkLogFormat *out);

NK_AVAILABLE_IN_ALL
NkImport    *nk_log_import             (const char  *path,
                                        NkLogFormat  format,
                                        GError     **error);
NK_AVAILABLE_IN_ALL
NkImport    *nk_log_import_text        (const char  *text,
                                        gsize        len,
                                        NkLogFormat  format,
                                        GError     **error);
NK_AVAILABLE_IN_ALL
NkImport    *nk_import_copy            (const NkImport *import);
NK_AVAILABLE_IN_ALL
guint        nk_import_get_n_steps     (const NkImport *import);
NK_AVAILABLE_IN_ALL
gboolean     nk_import_get_step        (const NkImport *import,
                                        guint           index,
                                        NkImportStep   *out_step);
NK_AVAILABLE_IN_ALL
void         nk_import_free            (NkImport    *import);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkImport, nk_import_free)

G_END_DECLS
