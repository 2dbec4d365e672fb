/* napkin-storage-diagram.h: storage strips and logical grids, drawn with Cairo
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-storage-diagram-model.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_STORAGE_DIAGRAM (napkin_storage_diagram_get_type ())

G_DECLARE_FINAL_TYPE (NapkinStorageDiagram, napkin_storage_diagram, NAPKIN, STORAGE_DIAGRAM, GtkWidget)

GtkWidget                 *napkin_storage_diagram_new       (void);
NapkinStorageDiagramModel *napkin_storage_diagram_get_model (NapkinStorageDiagram      *self);
void                       napkin_storage_diagram_set_model (NapkinStorageDiagram      *self,
                                                             NapkinStorageDiagramModel *model);

G_END_DECLS
