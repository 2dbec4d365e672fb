/* nk-npy.h: NumPy .npy arrays, read (memory-mapped, validated) and written
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The format (numpy/lib/format.py, "NEP 1"):
 *
 *     "\x93NUMPY" major minor  HEADER_LEN  HEADER  DATA
 *
 * HEADER_LEN is a little-endian uint16 (version 1.0) or uint32 (2.0 and 3.0; 3.0 only
 * allows UTF-8 in the header), HEADER is a Python dict literal
 * "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" padded with spaces
 * and ended by '\n', and DATA is the elements in C order (fortran_order False).
 *
 * Read: '<f4' '<f8' '<i4' '<i8' '<u2' '|u1' (also '<u1' and, on this little-endian
 * engine, '=' byte order), C order only. A file is opened with GMappedFile and its data
 * is not copied; everything is checked (magic, version, header length, the dict's
 * syntax and keys, shape, and that shape × itemsize equals the bytes after the header)
 * and every failure is an %NK_NPY_ERROR naming the file and the problem.
 * Written: f4, u2, i4 (and the other dtypes above), version 1.0, header padded so the
 * data starts at a multiple of 64 bytes like numpy ≥ 1.16 writes it.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-device.h"

G_BEGIN_DECLS

#define NK_NPY_ERROR (nk_npy_error_quark ())

/**
 * NkNpyError:
 * @NK_NPY_ERROR_IO: the file cannot be opened, read or written
 * @NK_NPY_ERROR_BAD_MAGIC: the file does not start with "\x93NUMPY" or has an
 *   unknown version
 * @NK_NPY_ERROR_BAD_HEADER: the header is short or is not the expected dict
 * @NK_NPY_ERROR_UNSUPPORTED: a valid .npy this engine cannot use (dtype, Fortran order)
 * @NK_NPY_ERROR_TRUNCATED: the data is shorter or longer than the shape says
 * @NK_NPY_ERROR_SHAPE: the array does not have the shape or dtype the caller needs
 *
 * The ways reading or writing a .npy fails, in the %NK_NPY_ERROR domain.
 */
typedef enum {
  NK_NPY_ERROR_IO,
  NK_NPY_ERROR_BAD_MAGIC,
  NK_NPY_ERROR_BAD_HEADER,
  NK_NPY_ERROR_UNSUPPORTED,
  NK_NPY_ERROR_TRUNCATED,
  NK_NPY_ERROR_SHAPE,
} NkNpyError;

NK_AVAILABLE_IN_ALL
GQuark nk_npy_error_quark (void);

/**
 * NkNpyDType:
 * @NK_NPY_F4: '<f4' float32
 * @NK_NPY_F8: '<f8' float64
 * @NK_NPY_I4: '<i4' int32
 * @NK_NPY_I8: '<i8' int64
 * @NK_NPY_U2: '<u2' uint16
 * @NK_NPY_U1: '|u1' uint8
 * @NK_NPY_N_DTYPES: the number of dtypes above (not a dtype)
 *
 * The element types this engine reads and writes, named by numpy's descr strings.
 */
typedef enum {
  NK_NPY_F4,
  NK_NPY_F8,
  NK_NPY_I4,
  NK_NPY_I8,
  NK_NPY_U2,
  NK_NPY_U1,
  NK_NPY_N_DTYPES
} NkNpyDType;

/**
 * NK_NPY_MAX_DIMS:
 *
 * The largest ndim accepted (numpy's NPY_MAXDIMS is 32; the engine's tensors need far
 * fewer).
 */
#define NK_NPY_MAX_DIMS 8

NK_AVAILABLE_IN_ALL
const char *nk_npy_dtype_to_descr  (NkNpyDType dtype);
NK_AVAILABLE_IN_ALL
gsize       nk_npy_dtype_item_size (NkNpyDType dtype);

#define NK_TYPE_NPY_ARRAY (nk_npy_array_get_type ())

/**
 * NkNpyArray:
 *
 * A parsed, validated .npy: dtype, shape and a pointer to the (read-only) elements,
 * which live in the mapped file or the bytes it was parsed from. Refcounted.
 */
typedef struct _NkNpyArray NkNpyArray;

NK_AVAILABLE_IN_ALL
GType        nk_npy_array_get_type   (void) G_GNUC_CONST;

/**
 * nk_npy_array_load:
 * @path: a .npy file
 * @error: return location for a #GError (%NK_NPY_ERROR)
 *
 * Maps @path (no copy; works for files larger than memory) and validates it.
 *
 * Returns: (transfer full) (nullable): the array
 */
NK_AVAILABLE_IN_ALL
NkNpyArray  *nk_npy_array_load       (const char   *path,
                                      GError      **error);

/**
 * nk_npy_array_new_from_bytes:
 * @bytes: the whole file's bytes
 * @name: (nullable): what to call it in error messages (a file name), or %NULL
 * @error: return location for a #GError (%NK_NPY_ERROR)
 *
 * Parses and validates .npy bytes that are already in memory. The array keeps a
 * reference on @bytes.
 *
 * Returns: (transfer full) (nullable): the array
 */
NK_AVAILABLE_IN_ALL
NkNpyArray  *nk_npy_array_new_from_bytes (GBytes   *bytes,
                                          const char *name,
                                          GError  **error);

NK_AVAILABLE_IN_ALL
NkNpyArray  *nk_npy_array_ref        (NkNpyArray   *array);
NK_AVAILABLE_IN_ALL
void         nk_npy_array_unref      (NkNpyArray   *array);

NK_AVAILABLE_IN_ALL
NkNpyDType   nk_npy_array_get_dtype  (NkNpyArray   *array);
NK_AVAILABLE_IN_ALL
guint        nk_npy_array_get_ndim   (NkNpyArray   *array);
NK_AVAILABLE_IN_ALL
const gint64 *nk_npy_array_get_shape (NkNpyArray   *array);
NK_AVAILABLE_IN_ALL
guint64      nk_npy_array_get_n_elements (NkNpyArray *array);
NK_AVAILABLE_IN_ALL
gconstpointer nk_npy_array_get_data  (NkNpyArray   *array);
NK_AVAILABLE_IN_ALL
gsize        nk_npy_array_get_nbytes (NkNpyArray   *array);
NK_AVAILABLE_IN_ALL
const char  *nk_npy_array_get_name   (NkNpyArray   *array);

/**
 * nk_npy_array_check:
 * @array: an array
 * @dtype: the dtype required
 * @ndim: the number of dimensions required
 * @shape: (array length=ndim) (nullable): required sizes, -1 for "any"; %NULL for all any
 * @error: return location for a #GError (%NK_NPY_ERROR_SHAPE)
 *
 * Checks that the caller got what it needs, with a message like "X.npy has dtype
 * '<f8' and shape (10, 3), expected '<f4' with shape (N, 4)".
 *
 * Returns: %TRUE if @array matches
 */
NK_AVAILABLE_IN_ALL
gboolean     nk_npy_array_check      (NkNpyArray   *array,
                                      NkNpyDType    dtype,
                                      guint         ndim,
                                      const gint64 *shape,
                                      GError      **error);

/**
 * nk_npy_save: (skip)
 * @path: the file to write (replaced atomically)
 * @dtype: the elements' dtype
 * @ndim: number of dimensions (≤ %NK_NPY_MAX_DIMS)
 * @shape: (array length=ndim): sizes
 * @data: the elements, C order, little-endian
 * @error: return location for a #GError (%NK_NPY_ERROR_IO)
 *
 * Writes a version 1.0 .npy of @data (shape × item size bytes) to @path, replacing
 * it atomically. Not for bindings (@data is a raw buffer): they call
 * nk_npy_save_tensor().
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean     nk_npy_save             (const char   *path,
                                      NkNpyDType    dtype,
                                      guint         ndim,
                                      const gint64 *shape,
                                      gconstpointer data,
                                      GError      **error);

NK_AVAILABLE_IN_ALL
GBytes      *nk_npy_to_bytes         (NkNpyDType    dtype,
                                      guint         ndim,
                                      const gint64 *shape,
                                      gconstpointer data);

/* ---- tensors ------------------------------------------------------------------- */

typedef struct _NkTensor NkTensor;

/**
 * nk_npy_load_tensor:
 * @path: a .npy file
 * @bucket: the bucket the tensor's storage is counted in (usually %NK_BUCKET_DATA)
 * @error: return location for a #GError (%NK_NPY_ERROR)
 *
 * Loads a .npy as a contiguous CPU tensor (f4 → f32, f8 → f64, i4 → int32,
 * i8 → int64, u2 → uint16; u1 is widened to uint16, the engine has no uint8 dtype).
 * When the data is aligned, the tensor's storage wraps a private copy-on-write mapping
 * of the file, so nothing is read until it is used and writes never reach the file;
 * otherwise the elements are copied.
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor    *nk_npy_load_tensor      (const char   *path,
                                      NkBucket      bucket,
                                      GError      **error);

/**
 * nk_npy_array_to_tensor:
 * @array: an array
 * @bucket: the bucket for the tensor's storage
 * @error: return location for a #GError
 *
 * As nk_npy_load_tensor(), from an already parsed array (the storage keeps a
 * reference on @array).
 *
 * Returns: (transfer full) (nullable): the tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor    *nk_npy_array_to_tensor  (NkNpyArray   *array,
                                      NkBucket      bucket,
                                      GError      **error);

/**
 * nk_npy_save_tensor:
 * @path: the file to write
 * @tensor: any tensor of dtype f32, f64, int32, int64 or uint16 (strided and on any
 *   device are fine: it is gathered to host memory in C order)
 * @error: return location for a #GError
 *
 * Writes @tensor as a .npy with its dtype and shape, replaced atomically.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean     nk_npy_save_tensor      (const char   *path,
                                      NkTensor     *tensor,
                                      GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkNpyArray, nk_npy_array_unref)

G_END_DECLS
