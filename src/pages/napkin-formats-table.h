/* napkin-formats-table.h: the Number formats page's all-values table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-dtype.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_FORMATS_TABLE (napkin_formats_table_get_type ())

G_DECLARE_FINAL_TYPE (NapkinFormatsTable, napkin_formats_table, NAPKIN, FORMATS_TABLE, GtkWidget)

GtkWidget  *napkin_formats_table_new       (void);
gboolean    napkin_formats_table_set_dtype (NapkinFormatsTable *self,
                                            NkDType             dtype);
NkDType     napkin_formats_table_get_dtype (NapkinFormatsTable *self);
GListModel *napkin_formats_table_get_rows  (NapkinFormatsTable *self);

G_END_DECLS
