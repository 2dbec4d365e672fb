/* nk-safetensors-private.h: helpers nk-checkpoint shares with nk-safetensors
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-safetensors.h"

G_BEGIN_DECLS

/* The tensors of a file, in order and by name: what a loaded file and a checkpoint
 * both keep. */
typedef struct
{
  GArray     *tensors;  /* NkSafetensorsTensor; names owned */
  GHashTable *by_name;  /* name (the tensor's own string) → index + 1 */
} NkTensorTable;

void      _nk_tensor_table_init        (NkTensorTable             *table);
void      _nk_tensor_table_clear       (NkTensorTable             *table);
/* Makes tensors[@index] found by its name; FALSE when the name is taken. */
gboolean  _nk_tensor_table_index       (NkTensorTable             *table,
                                        guint                      index);
const NkSafetensorsTensor *_nk_tensor_table_get    (const NkTensorTable *table,
                                                    guint                index);
const NkSafetensorsTensor *_nk_tensor_table_lookup (const NkTensorTable *table,
                                                    const char          *name);

/* NOT_FOUND when @t is NULL, SHAPE when dtype/shape differ; messages start with @file. */
gboolean  _nk_safetensors_check_tensor (const char                *file,
                                        const NkSafetensorsTensor *t,
                                        const char                *name,
                                        NkDType                    dtype,
                                        guint                      ndim,
                                        const gint64              *shape,
                                        GError                   **error);

/* A contiguous copy of @t on the default device, its storage in @bucket. */
NkTensor *_nk_safetensors_tensor_new   (const NkSafetensorsTensor *t,
                                        NkBucket                   bucket,
                                        GError                   **error);

/* @tensor gathered to host memory in C order (a copy). */
GBytes   *_nk_tensor_to_host_bytes     (NkTensor                  *tensor,
                                        GError                   **error);

/* The file's pieces as nk_safetensors_writer_write() writes them: the 8-byte length
 * plus header, then each tensor's bytes in file order. When @value_key is a metadata
 * key, *@out_value_offset is the position of its value's text (after the opening
 * quote) in the first piece, G_MAXSIZE if the key is not set. */
GPtrArray    *_nk_safetensors_writer_get_chunks (NkSafetensorsWriter *writer,
                                                 const char          *value_key,
                                                 gsize               *out_value_offset);

/* Returns: (transfer none): every byte of the file, length included */
gconstpointer _nk_safetensors_get_file     (NkSafetensors             *st,
                                            gsize                     *out_size);

G_END_DECLS
