/* nk-safetensors.h: safetensors files, read (validated) and written atomically
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The format (huggingface/safetensors):
 *
 *     N (u64, little-endian)  HEADER (N bytes of JSON, space padded)  PAYLOAD
 *
 * HEADER is one JSON object: for each tensor
 *     "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]}
 * with offsets relative to PAYLOAD, plus an optional "__metadata__" object whose values
 * are all strings. Reading checks what the reference implementation checks and a bit
 * more: N fits in the file (and ≤ 100 MB), the JSON parses and is an object, every
 * entry has a known dtype (F32 F16 BF16 F64 I64 I32 U16), a shape of non-negative
 * integers and two offsets with BEGIN ≤ END ≤ payload size, END − BEGIN equals
 * numel × item size (no overflow), and the tensors, sorted by BEGIN, tile the payload
 * exactly (no overlap, no gap, nothing left over). Each failure is an
 * %NK_SAFETENSORS_ERROR that names the file and the tensor.
 *
 * Writing produces the bytes the Python/Rust `safetensors` package writes for the same
 * dict: tensors ordered by dtype alignment (largest first) then name, compact JSON
 * with "__metadata__" first, header padded with spaces to a multiple of 8. Files are
 * written atomically: a temp file in the same directory is written, fsync'ed and
 * renamed over the target (then the directory is fsync'ed), so the target name never
 * holds a half-written file; a full disk is a #GError and leaves no temp file behind.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-device.h"
#include "nk-dtype.h"

G_BEGIN_DECLS

#define NK_SAFETENSORS_ERROR (nk_safetensors_error_quark ())

/**
 * NkSafetensorsError:
 * @NK_SAFETENSORS_ERROR_IO: the file cannot be opened, read or written (disk full)
 * @NK_SAFETENSORS_ERROR_TRUNCATED: the file is shorter than its header says
 * @NK_SAFETENSORS_ERROR_HEADER: the header is not valid JSON of the expected form
 * @NK_SAFETENSORS_ERROR_DTYPE: a tensor has a dtype this engine does not know
 * @NK_SAFETENSORS_ERROR_OFFSETS: offsets out of range, overlapping, leaving gaps, or
 *   not matching the shape
 * @NK_SAFETENSORS_ERROR_NOT_FOUND: no tensor of that name
 * @NK_SAFETENSORS_ERROR_SHAPE: a tensor does not have the dtype or shape the caller needs
 *
 * The ways reading or writing a safetensors file fails, in the %NK_SAFETENSORS_ERROR
 * domain.
 */
typedef enum {
  NK_SAFETENSORS_ERROR_IO,
  NK_SAFETENSORS_ERROR_TRUNCATED,
  NK_SAFETENSORS_ERROR_HEADER,
  NK_SAFETENSORS_ERROR_DTYPE,
  NK_SAFETENSORS_ERROR_OFFSETS,
  NK_SAFETENSORS_ERROR_NOT_FOUND,
  NK_SAFETENSORS_ERROR_SHAPE,
} NkSafetensorsError;

NK_AVAILABLE_IN_ALL
GQuark nk_safetensors_error_quark (void);

/**
 * NK_SAFETENSORS_MAX_DIMS:
 *
 * The largest number of dimensions a tensor read or written here may have.
 */
#define NK_SAFETENSORS_MAX_DIMS 8

NK_AVAILABLE_IN_ALL
const char *nk_safetensors_dtype_to_string   (NkDType      dtype);
NK_AVAILABLE_IN_ALL
gboolean    nk_safetensors_dtype_from_string (const char  *name,
                                              NkDType     *out_dtype);

/**
 * NkSafetensorsTensor:
 * @name: the tensor's name (e.g. "layers.0.weight")
 * @dtype: its dtype
 * @ndim: number of dimensions
 * @shape: sizes (the first @ndim are used)
 * @numel: number of elements
 * @data: its bytes, C order, little-endian, read-only (unaligned in general)
 * @nbytes: numel × item size
 * @offset: its position in the file's payload
 *
 * A view of one tensor of a parsed file, valid while the file is.
 */
typedef struct {
  const char   *name;
  NkDType       dtype;
  guint         ndim;
  gint64        shape[NK_SAFETENSORS_MAX_DIMS];
  guint64       numel;
  gconstpointer data;
  gsize         nbytes;
  guint64       offset;
} NkSafetensorsTensor;

#define NK_TYPE_SAFETENSORS (nk_safetensors_get_type ())

/**
 * NkSafetensors:
 *
 * A parsed, validated safetensors file: its tensors (views into the mapped file or
 * the bytes given) and its "__metadata__" strings. Refcounted.
 */
typedef struct _NkSafetensors NkSafetensors;

NK_AVAILABLE_IN_ALL
GType            nk_safetensors_get_type      (void) G_GNUC_CONST;

/**
 * nk_safetensors_load:
 * @path: a .safetensors file
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR)
 *
 * Maps @path (no copy) and validates it.
 *
 * Returns: (transfer full) (nullable): the parsed file
 */
NK_AVAILABLE_IN_ALL
NkSafetensors   *nk_safetensors_load          (const char    *path,
                                               GError       **error);

/**
 * nk_safetensors_new_from_bytes:
 * @bytes: the whole file
 * @name: (nullable): the name used in error messages, or %NULL
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR)
 *
 * Parses and validates a safetensors file already in memory (no copy).
 *
 * Returns: (transfer full) (nullable): the parsed file, keeping a ref on @bytes
 */
NK_AVAILABLE_IN_ALL
NkSafetensors   *nk_safetensors_new_from_bytes (GBytes       *bytes,
                                                const char   *name,
                                                GError      **error);

NK_AVAILABLE_IN_ALL
NkSafetensors   *nk_safetensors_ref           (NkSafetensors *st);
NK_AVAILABLE_IN_ALL
void             nk_safetensors_unref         (NkSafetensors *st);

NK_AVAILABLE_IN_ALL
const char      *nk_safetensors_get_name      (NkSafetensors *st);
NK_AVAILABLE_IN_ALL
guint            nk_safetensors_get_n_tensors (NkSafetensors *st);
NK_AVAILABLE_IN_ALL
const NkSafetensorsTensor *nk_safetensors_get_tensor_info (NkSafetensors *st,
                                                           guint          index);
NK_AVAILABLE_IN_ALL
const NkSafetensorsTensor *nk_safetensors_lookup (NkSafetensors *st,
                                                  const char    *name);

NK_AVAILABLE_IN_ALL
const char      *nk_safetensors_get_metadata  (NkSafetensors *st,
                                               const char    *key);
NK_AVAILABLE_IN_ALL
GPtrArray       *nk_safetensors_get_metadata_keys (NkSafetensors *st);

NK_AVAILABLE_IN_ALL
gconstpointer    nk_safetensors_get_payload   (NkSafetensors *st,
                                               gsize         *out_size);

/**
 * nk_safetensors_read_into: (skip)
 * @st: a parsed file
 * @name: a tensor name
 * @dtype: the dtype the caller expects
 * @ndim: the number of dimensions it expects
 * @shape: (array length=ndim): the sizes it expects
 * @dst: where to copy the bytes (numel × item size, host memory)
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR_NOT_FOUND or _SHAPE)
 *
 * Copies a tensor into caller memory after checking it is exactly what the caller
 * needs ("init.safetensors: 'layers.0.weight' has shape [32, 32], the model needs
 * [64, 64]"). Not for bindings (@dst is a raw buffer): they call
 * nk_safetensors_get_tensor().
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean         nk_safetensors_read_into     (NkSafetensors *st,
                                               const char    *name,
                                               NkDType        dtype,
                                               guint          ndim,
                                               const gint64  *shape,
                                               gpointer       dst,
                                               GError       **error);

/* ---- writing ------------------------------------------------------------------- */

/**
 * NkSafetensorsWriter:
 *
 * A safetensors file being put together: tensors (each held as immutable bytes) and
 * metadata, written in one go by nk_safetensors_writer_write(). A boxed type; a copy
 * shares the tensors' bytes.
 */
typedef struct _NkSafetensorsWriter NkSafetensorsWriter;

#define NK_TYPE_SAFETENSORS_WRITER (nk_safetensors_writer_get_type ())

NK_AVAILABLE_IN_ALL
GType            nk_safetensors_writer_get_type (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkSafetensorsWriter *nk_safetensors_writer_new  (void);
NK_AVAILABLE_IN_ALL
NkSafetensorsWriter *nk_safetensors_writer_copy (NkSafetensorsWriter *writer);
NK_AVAILABLE_IN_ALL
void             nk_safetensors_writer_free   (NkSafetensorsWriter *writer);

/**
 * nk_safetensors_writer_add: (skip)
 * @writer: a writer
 * @name: a tensor name not added before (and not "__metadata__")
 * @dtype: one of the dtypes nk_safetensors_dtype_to_string() knows
 * @ndim: number of dimensions (≤ %NK_SAFETENSORS_MAX_DIMS)
 * @shape: (array length=ndim): sizes
 * @data: numel × item size bytes, C order, little-endian; copied
 *
 * Adds a tensor. Programmer errors (duplicate name, bad dtype) are g_return_if_fail.
 * Not for bindings (@data is a raw buffer): they call
 * nk_safetensors_writer_add_bytes() or nk_safetensors_writer_add_tensor().
 */
NK_AVAILABLE_IN_ALL
void             nk_safetensors_writer_add    (NkSafetensorsWriter *writer,
                                               const char    *name,
                                               NkDType        dtype,
                                               guint          ndim,
                                               const gint64  *shape,
                                               gconstpointer  data);

NK_AVAILABLE_IN_ALL
void             nk_safetensors_writer_add_bytes (NkSafetensorsWriter *writer,
                                                  const char    *name,
                                                  NkDType        dtype,
                                                  guint          ndim,
                                                  const gint64  *shape,
                                                  GBytes        *bytes);

NK_AVAILABLE_IN_ALL
void             nk_safetensors_writer_set_metadata (NkSafetensorsWriter *writer,
                                                     const char    *key,
                                                     const char    *value);

NK_AVAILABLE_IN_ALL
GBytes          *nk_safetensors_writer_to_bytes (NkSafetensorsWriter *writer);

/**
 * nk_safetensors_writer_write:
 * @writer: a writer
 * @path: the target file
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR_IO)
 *
 * Writes atomically (temp file in the same directory, fsync, rename, fsync of the
 * directory). On failure the target is untouched and no temp file remains.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean         nk_safetensors_writer_write  (NkSafetensorsWriter *writer,
                                               const char    *path,
                                               GError       **error);

/**
 * nk_file_write_atomic:
 * @path: the target file
 * @chunks: (array length=n_chunks): the pieces to write, in order
 * @n_chunks: how many
 * @error: return location for a #GError (%G_FILE_ERROR)
 *
 * The atomic write under nk_safetensors_writer_write() and nk_npy_save(): a temp
 * file ".NAME.tmp-XXXXXX" beside @path, written, fsync'ed, renamed over @path, then
 * the directory fsync'ed. On any failure the temp file is removed.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean         nk_file_write_atomic         (const char    *path,
                                               GBytes *const *chunks,
                                               guint          n_chunks,
                                               GError       **error);

/* ---- tensors ------------------------------------------------------------------- */

typedef struct _NkTensor NkTensor;

/**
 * nk_safetensors_get_tensor:
 * @st: a parsed file
 * @name: a tensor name
 * @bucket: the bucket for the new tensor's storage
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR_NOT_FOUND)
 *
 * Copies a tensor out of the file.
 *
 * Returns: (transfer full) (nullable): a contiguous copy on the calling thread's
 *   default device
 */
NK_AVAILABLE_IN_ALL
NkTensor        *nk_safetensors_get_tensor    (NkSafetensors *st,
                                               const char    *name,
                                               NkBucket       bucket,
                                               GError       **error);

/**
 * nk_safetensors_writer_add_tensor:
 * @writer: a writer
 * @name: the tensor name
 * @tensor: a tensor of a dtype safetensors holds, any layout, any device
 * @error: return location for a #GError (a device copy can fail)
 *
 * Gathers @tensor to host memory in C order and adds it (copied now, so the tensor
 * may change afterwards).
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean         nk_safetensors_writer_add_tensor (NkSafetensorsWriter *writer,
                                                   const char    *name,
                                                   NkTensor      *tensor,
                                                   GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkSafetensors, nk_safetensors_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkSafetensorsWriter, nk_safetensors_writer_free)

G_END_DECLS
