/* napkin-storage-diagram-model.h: what the storage diagram shows and highlights
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "nk-program.h"
#include "nk-tensor.h"

G_BEGIN_DECLS

/* Of larger tensors and storages, the diagram draws this many first elements. */
#define NAPKIN_STORAGE_DIAGRAM_MAX_CELLS 512

#define NAPKIN_TYPE_STORAGE_DIAGRAM_MODEL (napkin_storage_diagram_model_get_type ())

G_DECLARE_FINAL_TYPE (NapkinStorageDiagramModel, napkin_storage_diagram_model,
                      NAPKIN, STORAGE_DIAGRAM_MODEL, GObject)

NapkinStorageDiagramModel *napkin_storage_diagram_model_new (void);

void          napkin_storage_diagram_model_set_program         (NapkinStorageDiagramModel *self,
                                                                NkProgram                 *program);

/* Storages: one strip each, in the order the names first use them */
guint         napkin_storage_diagram_model_get_n_storages      (NapkinStorageDiagramModel *self);
gint64        napkin_storage_diagram_model_get_storage_numel   (NapkinStorageDiagramModel *self,
                                                                guint                      storage);
gint64        napkin_storage_diagram_model_get_storage_n_drawn (NapkinStorageDiagramModel *self,
                                                                guint                      storage);
gsize         napkin_storage_diagram_model_get_storage_nbytes  (NapkinStorageDiagramModel *self,
                                                                guint                      storage);
const char   *napkin_storage_diagram_model_get_storage_owner   (NapkinStorageDiagramModel *self,
                                                                guint                      storage);
gboolean      napkin_storage_diagram_model_get_storage_value   (NapkinStorageDiagramModel *self,
                                                                guint                      storage,
                                                                gint64                     cell,
                                                                double                    *out_value);
gsize         napkin_storage_diagram_model_get_total_nbytes    (NapkinStorageDiagramModel *self);
NkDType       napkin_storage_diagram_model_get_dtype           (NapkinStorageDiagramModel *self);

/* Tensors: one logical grid each, in the order of the statements that named them */
guint         napkin_storage_diagram_model_get_n_tensors       (NapkinStorageDiagramModel *self);
const char   *napkin_storage_diagram_model_get_tensor_name     (NapkinStorageDiagramModel *self,
                                                                guint                      tensor);
NkTensor     *napkin_storage_diagram_model_get_tensor          (NapkinStorageDiagramModel *self,
                                                                guint                      tensor);
guint         napkin_storage_diagram_model_get_tensor_storage  (NapkinStorageDiagramModel *self,
                                                                guint                      tensor);
const char   *napkin_storage_diagram_model_get_tensor_shares_with (NapkinStorageDiagramModel *self,
                                                                   guint                      tensor);
const gint64 *napkin_storage_diagram_model_get_tensor_addresses (NapkinStorageDiagramModel *self,
                                                                 guint                      tensor,
                                                                 gint64                    *n_elements);
const double *napkin_storage_diagram_model_get_tensor_values   (NapkinStorageDiagramModel *self,
                                                                guint                      tensor,
                                                                gint64                    *n_elements);
const char   *napkin_storage_diagram_model_get_tensor_op       (NapkinStorageDiagramModel *self,
                                                                guint                      tensor);
gboolean      napkin_storage_diagram_model_get_tensor_copied   (NapkinStorageDiagramModel *self,
                                                                guint                      tensor);
int           napkin_storage_diagram_model_find_tensor         (NapkinStorageDiagramModel *self,
                                                                const char                *name);

/* What is selected, pointed at and stepped through */
int           napkin_storage_diagram_model_get_selected        (NapkinStorageDiagramModel *self);
void          napkin_storage_diagram_model_set_selected        (NapkinStorageDiagramModel *self,
                                                                int                        tensor);
const char   *napkin_storage_diagram_model_get_selected_name   (NapkinStorageDiagramModel *self);
gint64       *napkin_storage_diagram_model_dup_highlighted_cells (NapkinStorageDiagramModel *self,
                                                                  guint                     *n_cells);
guint         napkin_storage_diagram_model_get_cell_hits       (NapkinStorageDiagramModel *self,
                                                                guint                      storage,
                                                                gint64                     cell);

void          napkin_storage_diagram_model_set_hover           (NapkinStorageDiagramModel *self,
                                                                int                        tensor,
                                                                gint64                     element);
int           napkin_storage_diagram_model_get_hover_tensor    (NapkinStorageDiagramModel *self);
gint64        napkin_storage_diagram_model_get_hover_element   (NapkinStorageDiagramModel *self);
void          napkin_storage_diagram_model_set_hover_cell      (NapkinStorageDiagramModel *self,
                                                                int                        storage,
                                                                gint64                     cell);
int           napkin_storage_diagram_model_get_hover_storage   (NapkinStorageDiagramModel *self);
gint64        napkin_storage_diagram_model_get_hover_cell      (NapkinStorageDiagramModel *self);
gint64       *napkin_storage_diagram_model_dup_cell_readers    (NapkinStorageDiagramModel *self,
                                                                guint                      tensor,
                                                                guint                     *n_elements);

gint64        napkin_storage_diagram_model_get_step            (NapkinStorageDiagramModel *self);
void          napkin_storage_diagram_model_set_step            (NapkinStorageDiagramModel *self,
                                                                gint64                     step);
gboolean      napkin_storage_diagram_model_step                (NapkinStorageDiagramModel *self,
                                                                int                        delta);

gboolean      napkin_storage_diagram_model_get_focus           (NapkinStorageDiagramModel *self,
                                                                int                       *out_tensor,
                                                                gint64                    *out_element,
                                                                gint64                    *out_cell);
gboolean      napkin_storage_diagram_model_get_jump            (NapkinStorageDiagramModel *self,
                                                                gint64                    *out_from,
                                                                gint64                    *out_to);
char         *napkin_storage_diagram_model_dup_formula         (NapkinStorageDiagramModel *self);
char         *napkin_storage_diagram_model_format_bytes        (gsize                      nbytes);
char         *napkin_storage_diagram_model_dup_name            (NapkinStorageDiagramModel *self);
char         *napkin_storage_diagram_model_dup_description     (NapkinStorageDiagramModel *self);
char         *napkin_storage_diagram_model_dup_index_text      (NapkinStorageDiagramModel *self,
                                                                guint                      tensor,
                                                                gint64                     element);

G_END_DECLS
