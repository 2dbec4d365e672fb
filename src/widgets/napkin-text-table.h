/* napkin-text-table.h: a list model of text rows shown as a table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_TEXT_TABLE (napkin_text_table_get_type ())

G_DECLARE_FINAL_TYPE (NapkinTextTable, napkin_text_table, NAPKIN, TEXT_TABLE, GtkWidget)

GtkWidget     *napkin_text_table_new          (const char *const *titles,
                                               const char        *accessible_label);
void           napkin_text_table_set_model    (NapkinTextTable   *self,
                                               GListModel        *model);
GListModel    *napkin_text_table_get_model    (NapkinTextTable   *self);
GtkColumnView *napkin_text_table_get_view     (NapkinTextTable   *self);
void           napkin_text_table_set_expand_column (NapkinTextTable *self,
                                                    guint            column);

G_END_DECLS
