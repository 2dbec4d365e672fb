/* napkin-bit-row.h: one format's bits as focusable cells, coloured by field
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "nk-dtype.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_BIT_ROW (napkin_bit_row_get_type ())

G_DECLARE_FINAL_TYPE (NapkinBitRow, napkin_bit_row, NAPKIN, BIT_ROW, GtkWidget)

GtkWidget *napkin_bit_row_new           (NkDType       dtype,
                                         const char   *action_name);
NkDType    napkin_bit_row_get_dtype     (NapkinBitRow *self);
guint64    napkin_bit_row_get_bits      (NapkinBitRow *self);
void       napkin_bit_row_set_bits      (NapkinBitRow *self,
                                         guint64       bits);
gboolean   napkin_bit_row_get_known     (NapkinBitRow *self);
void       napkin_bit_row_set_known     (NapkinBitRow *self,
                                         gboolean      known);
char      *napkin_bit_row_dup_text      (NapkinBitRow *self);
gboolean   napkin_bit_row_focus_bit     (NapkinBitRow *self,
                                         guint         index);

G_END_DECLS
