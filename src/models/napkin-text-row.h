/* napkin-text-row.h: one row of a table the app shows: its cells' text and a mark
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_TEXT_ROW (napkin_text_row_get_type ())

G_DECLARE_FINAL_TYPE (NapkinTextRow, napkin_text_row, NAPKIN, TEXT_ROW, GObject)

NapkinTextRow *napkin_text_row_new           (const char     *mark,
                                              const char     *first_cell,
                                              ...) G_GNUC_NULL_TERMINATED;
NapkinTextRow *napkin_text_row_new_take      (const char     *mark,
                                              GStrv           cells);
guint          napkin_text_row_get_n_cells   (NapkinTextRow  *self);
const char    *napkin_text_row_get_cell      (NapkinTextRow  *self,
                                              guint           column);
const char    *napkin_text_row_get_mark      (NapkinTextRow  *self);
char          *napkin_text_row_dup_text      (NapkinTextRow  *self);

G_END_DECLS
