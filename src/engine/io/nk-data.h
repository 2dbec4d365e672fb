/* nk-data.h: training data: the lecture's synthetic task, .npy arrays, token streams
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three sources of batches, all deterministic given the seeded generator:
 *
 *  - The lecture's synthetic linear task: true_w = (0, 1, ..., D-1), x ~ N(0, 1),
 *    y = x · true_w. Row r of a batch takes D normals from the generator in order
 *    (nk_rng_fill_normal_f32 over the whole [B, D] block), and y is the dot product
 *    accumulated in double and rounded once to float32.
 *  - Arrays from .npy (CLI.md --inputs/--targets): X float32 [N, D], Y float32 [N]
 *    (or [N, 1]); step t (from 0) takes rows [(t·B) mod N, (t·B) mod N + B), and N must
 *    be a multiple of B so a batch never wraps.
 *  - Token streams for next-token prediction: a 1-D .npy of uint16 or int32, a raw
 *    .bin of little-endian uint16 (as nanoGPT writes them), or bytes of text (vocab
 *    256). Files are memory-mapped (GMappedFile), so a stream larger than RAM works:
 *    only the pages a batch touches are read (the lecture's np.memmap point). A batch
 *    is B windows of T+1 consecutive tokens at starts drawn uniformly from
 *    [0, length − T − 1] (nk_rng_uniform_int, one call per row, in row order); inputs
 *    are columns 0..T−1, targets 1..T.
 *
 * The *_fill functions write into caller buffers (so a training loop can reuse the same
 * storages every step); the tensor versions allocate contiguous CPU tensors whose
 * storages are counted in %NK_BUCKET_DATA.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-device.h"
#include "nk-npy.h"
#include "nk-rng.h"

G_BEGIN_DECLS

#define NK_DATA_ERROR (nk_data_error_quark ())

/**
 * NkDataError:
 * @NK_DATA_ERROR_SHAPE: inputs/targets with the wrong dtype, rank or row count
 * @NK_DATA_ERROR_BATCH: the batch size does not divide the rows, or exceeds the stream
 * @NK_DATA_ERROR_TOKENS: a token stream that is empty, of odd byte length, or holds a
 *   token outside [0, vocab)
 * @NK_DATA_ERROR_IO: a file cannot be read (missing, not a regular file, unreadable)
 * @NK_DATA_ERROR_VALUES: inputs or targets holding a NaN or an infinity
 *
 * Malformed .npy files are reported as %NK_NPY_ERROR.
 */
typedef enum {
  NK_DATA_ERROR_SHAPE,
  NK_DATA_ERROR_BATCH,
  NK_DATA_ERROR_TOKENS,
  NK_DATA_ERROR_IO,
  NK_DATA_ERROR_VALUES,
} NkDataError;

NK_AVAILABLE_IN_ALL
GQuark nk_data_error_quark (void);

typedef struct _NkTensor NkTensor;

/* ---- the synthetic linear task --------------------------------------------------- */

/**
 * nk_data_synthetic_fill: (skip)
 * @rng: the run's generator (advanced by 2·⌈B·D/2⌉ words)
 * @dim: D
 * @batch: B
 * @x: (out caller-allocates): B·D floats, row-major [B, D]
 * @y: (out caller-allocates): B floats
 *
 * Draws one batch of the lecture's task: x ~ N(0, 1), y = Σ_j j·x[j]. Not for
 * bindings (raw buffers): they call nk_data_synthetic_batch().
 */
NK_AVAILABLE_IN_ALL
void          nk_data_synthetic_fill     (NkRng      *rng,
                                          guint       dim,
                                          guint       batch,
                                          float      *x,
                                          float      *y);

/**
 * nk_data_synthetic_batch:
 * @rng: the run's generator
 * @dim: D
 * @batch: B
 * @out_x: (out) (transfer full): f32 [B, D] in %NK_BUCKET_DATA
 * @out_y: (out) (transfer full): f32 [B] in %NK_BUCKET_DATA
 * @error: return location for a #GError (allocation)
 *
 * Draws one batch of the lecture's task as nk_data_synthetic_fill() does, into two
 * new tensors.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean      nk_data_synthetic_batch    (NkRng      *rng,
                                          guint       dim,
                                          guint       batch,
                                          NkTensor  **out_x,
                                          NkTensor  **out_y,
                                          GError    **error);

/* ---- arrays from .npy ------------------------------------------------------------ */

/**
 * NkArrayDataset:
 *
 * Inputs and targets from two float32 .npy files, X [N, D] and Y [N] or [N, 1],
 * mapped and checked once, served B rows per step in order (step t reads rows
 * (t·B) mod N onwards). A boxed type; a copy shares the read-only arrays.
 */
typedef struct _NkArrayDataset NkArrayDataset;

#define NK_TYPE_ARRAY_DATASET (nk_array_dataset_get_type ())

NK_AVAILABLE_IN_ALL
GType           nk_array_dataset_get_type (void) G_GNUC_CONST;

/**
 * nk_array_dataset_new:
 * @inputs_path: X.npy, float32 [N, D]
 * @targets_path: Y.npy, float32 [N] or [N, 1]
 * @batch: B, which must divide N
 * @error: return location for a #GError (%NK_NPY_ERROR for a bad file,
 *   %NK_DATA_ERROR_SHAPE for mismatched arrays, %NK_DATA_ERROR_BATCH when N % B != 0,
 *   %NK_DATA_ERROR_VALUES naming the file, row and column of a NaN or infinity)
 *
 * Maps both files (no copy) and checks them, every value included: one pass over
 * the data when it is opened, so a bad row fails now rather than at the step that
 * reads it.
 *
 * Returns: (transfer full) (nullable): the dataset
 */
NK_AVAILABLE_IN_ALL
NkArrayDataset *nk_array_dataset_new     (const char *inputs_path,
                                          const char *targets_path,
                                          guint       batch,
                                          GError    **error);

NK_AVAILABLE_IN_ALL
NkArrayDataset *nk_array_dataset_new_from_arrays (NkNpyArray *inputs,
                                                  NkNpyArray *targets,
                                                  guint       batch,
                                                  GError    **error);
NK_AVAILABLE_IN_ALL
NkArrayDataset *nk_array_dataset_copy    (NkArrayDataset *ds);
NK_AVAILABLE_IN_ALL
void          nk_array_dataset_free      (NkArrayDataset *ds);

NK_AVAILABLE_IN_ALL
guint64       nk_array_dataset_get_n_rows (NkArrayDataset *ds);
NK_AVAILABLE_IN_ALL
guint         nk_array_dataset_get_dim    (NkArrayDataset *ds);
NK_AVAILABLE_IN_ALL
guint         nk_array_dataset_get_batch  (NkArrayDataset *ds);

NK_AVAILABLE_IN_ALL
guint64       nk_array_dataset_batch_start (NkArrayDataset *ds,
                                            guint64         step);

/**
 * nk_array_dataset_get_batch_data: (skip)
 * @ds: a dataset
 * @step: the step, from 0
 * @out_x: (out) (transfer none): B·D floats of the mapped X (read-only, not copied)
 * @out_y: (out) (transfer none): B floats of the mapped Y
 *
 * Points at step @step's rows in place. Not for bindings (raw pointers into the
 * mapping): they call nk_array_dataset_batch().
 */
NK_AVAILABLE_IN_ALL
void          nk_array_dataset_get_batch_data (NkArrayDataset *ds,
                                               guint64         step,
                                               const float   **out_x,
                                               const float   **out_y);

NK_AVAILABLE_IN_ALL
void          nk_array_dataset_fill      (NkArrayDataset *ds,
                                          guint64         step,
                                          float          *x,
                                          float          *y);

NK_AVAILABLE_IN_ALL
gboolean      nk_array_dataset_batch     (NkArrayDataset *ds,
                                          guint64         step,
                                          NkTensor      **out_x,
                                          NkTensor      **out_y,
                                          GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkArrayDataset, nk_array_dataset_free)

/* ---- token streams --------------------------------------------------------------- */

/**
 * NkTokenStream:
 *
 * A read-only sequence of tokens (a mapped .npy or .bin, or text read byte by
 * byte) that training samples windows of T+1 tokens from. A boxed type; a copy
 * shares the tokens.
 */
typedef struct _NkTokenStream NkTokenStream;

#define NK_TYPE_TOKEN_STREAM (nk_token_stream_get_type ())

NK_AVAILABLE_IN_ALL
GType          nk_token_stream_get_type  (void) G_GNUC_CONST;

/**
 * nk_token_stream_new_from_file:
 * @path: a 1-D .npy of uint16, int32 or uint8 tokens (detected by its magic),
 *   otherwise raw little-endian uint16 (.bin)
 * @error: return location for a #GError
 *
 * Maps the file (no copy). The vocabulary is 65536 for uint16 streams, 256 for uint8
 * and max token + 1 for int32 ones (found by one pass over the file, which also refuses
 * negative tokens).
 *
 * Returns: (transfer full) (nullable): the stream
 */
NK_AVAILABLE_IN_ALL
NkTokenStream *nk_token_stream_new_from_file (const char *path,
                                              GError    **error);

/**
 * nk_token_stream_new_from_text:
 * @bytes: text; every byte is a token (vocab 256)
 *
 * A byte-level stream over text already in memory (no copy).
 *
 * Returns: (transfer full): the stream, keeping a ref on @bytes
 */
NK_AVAILABLE_IN_ALL
NkTokenStream *nk_token_stream_new_from_text (GBytes     *bytes);

/**
 * nk_token_stream_new_from_text_file:
 * @path: a text file (UTF-8 or anything else: every byte is a token, vocab 256)
 * @error: return location for a #GError (%NK_DATA_ERROR_IO, or
 *   %NK_DATA_ERROR_TOKENS for an empty file)
 *
 * Maps the file (no copy); what `--text` reads, whatever its extension.
 *
 * Returns: (transfer full) (nullable): the stream
 */
NK_AVAILABLE_IN_ALL
NkTokenStream *nk_token_stream_new_from_text_file (const char *path,
                                                   GError    **error);

/**
 * nk_token_stream_new_default:
 *
 * The engine's bundled default text (data/tiny-text.txt, an original few-KB English
 * text about napkin math, compiled in as a resource) as a byte-level stream.
 *
 * Returns: (transfer full): the stream
 */
NK_AVAILABLE_IN_ALL
NkTokenStream *nk_token_stream_new_default (void);

NK_AVAILABLE_IN_ALL
GBytes        *nk_data_get_default_text  (void);

NK_AVAILABLE_IN_ALL
NkTokenStream *nk_token_stream_copy      (NkTokenStream *ts);
NK_AVAILABLE_IN_ALL
void          nk_token_stream_free       (NkTokenStream *ts);

NK_AVAILABLE_IN_ALL
guint64       nk_token_stream_get_length (NkTokenStream *ts);
NK_AVAILABLE_IN_ALL
guint         nk_token_stream_get_vocab_size (NkTokenStream *ts);
/**
 * nk_token_stream_check_vocab:
 * @ts: a stream
 * @vocab: the model's vocabulary size
 * @error: return location for a #GError (%NK_DATA_ERROR_TOKENS naming the file, the
 *   index of the first token ≥ @vocab and its value)
 *
 * Scans the whole stream once, so a bad token deep in a large file is refused when the
 * file is opened, not at the step that happens to sample it.
 *
 * Returns: %TRUE if every token is below @vocab
 */
NK_AVAILABLE_IN_ALL
gboolean      nk_token_stream_check_vocab (NkTokenStream *ts,
                                           guint          vocab,
                                           GError       **error);
NK_AVAILABLE_IN_ALL
guint32       nk_token_stream_get_token  (NkTokenStream *ts,
                                          guint64        index);

/**
 * nk_token_stream_sample_fill: (skip)
 * @ts: a stream
 * @rng: the run's generator
 * @batch: B
 * @context: T
 * @out: (out caller-allocates): B·(T+1) int32 tokens, row-major [B, T+1]
 * @out_starts: (out caller-allocates) (optional): the B start positions
 * @error: return location for a #GError (%NK_DATA_ERROR_BATCH if the stream is shorter
 *   than T+1 tokens)
 *
 * Draws B windows of T+1 tokens at uniform random starts (one nk_rng_uniform_int()
 * per row) into caller buffers. Not for bindings (raw buffers): they call
 * nk_token_stream_sample().
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean      nk_token_stream_sample_fill (NkTokenStream *ts,
                                           NkRng         *rng,
                                           guint          batch,
                                           guint          context,
                                           gint32        *out,
                                           guint64       *out_starts,
                                           GError       **error);

NK_AVAILABLE_IN_ALL
NkTensor     *nk_token_stream_sample     (NkTokenStream *ts,
                                          NkRng         *rng,
                                          guint          batch,
                                          guint          context,
                                          GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkTokenStream, nk_token_stream_free)

/* ---- fixed batches (--batches) --------------------------------------------------- */

/**
 * NkBatchFile:
 *
 * Fixed batches from an int32 or int64 .npy [N, B, T+1] (`--batches`), mapped and
 * checked once; step t reads batch t mod N. A boxed type; a copy shares the tokens.
 */
typedef struct _NkBatchFile NkBatchFile;

#define NK_TYPE_BATCH_FILE (nk_batch_file_get_type ())

NK_AVAILABLE_IN_ALL
GType         nk_batch_file_get_type     (void) G_GNUC_CONST;

/**
 * nk_batch_file_new:
 * @path: an int32 or int64 .npy [N, B, T+1]
 * @vocab: the model's vocabulary; every token is checked against it now
 * @error: return location for a #GError (%NK_NPY_ERROR for a bad file,
 *   %NK_DATA_ERROR_SHAPE for another dtype or rank, %NK_DATA_ERROR_TOKENS naming the
 *   file, batch, row and column of the first token outside [0, @vocab))
 *
 * Step t (from 0) uses batch t mod N: inputs [:, :T], targets [:, 1:], so a run is
 * reproducible outside Napkin (the parity check feeds PyTorch the same file).
 *
 * Returns: (transfer full) (nullable): the file
 */
NK_AVAILABLE_IN_ALL
NkBatchFile  *nk_batch_file_new          (const char   *path,
                                          guint         vocab,
                                          GError      **error);
NK_AVAILABLE_IN_ALL
NkBatchFile  *nk_batch_file_copy         (NkBatchFile  *bf);
NK_AVAILABLE_IN_ALL
void          nk_batch_file_free         (NkBatchFile  *bf);
NK_AVAILABLE_IN_ALL
guint64       nk_batch_file_get_n        (NkBatchFile  *bf);
NK_AVAILABLE_IN_ALL
guint64       nk_batch_file_get_batch    (NkBatchFile  *bf);
NK_AVAILABLE_IN_ALL
guint64       nk_batch_file_get_context  (NkBatchFile  *bf);
NK_AVAILABLE_IN_ALL
void          nk_batch_file_fill         (NkBatchFile  *bf,
                                          guint64       step,
                                          gint32       *x,
                                          gint32       *y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkBatchFile, nk_batch_file_free)

G_END_DECLS
