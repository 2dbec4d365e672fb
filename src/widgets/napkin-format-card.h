/* napkin-format-card.h: one format's row on the Number formats page
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-bit-row.h"
#include "nk-dtype.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_FORMAT_CARD (napkin_format_card_get_type ())

G_DECLARE_FINAL_TYPE (NapkinFormatCard, napkin_format_card, NAPKIN, FORMAT_CARD, GtkWidget)

/**
 * NapkinFormatCardContent:
 * @known: %FALSE when there is no current value: every field shows "—"
 * @bits: the pattern
 * @hex: the pattern in hex
 * @value: the nearest representable value, short
 * @klass: the class
 * @abs_error: input minus @value
 * @rel_error: @abs_error over the input
 * @formula: the value formula with this pattern's fields
 * @exact: the exact decimal value
 * @note: (nullable): a sentence about underflow or overflow
 * @note_is_warning: whether @note warns
 * @overflow: (nullable): Pango markup comparing the two overflow modes
 *
 * What a card shows: every string is made by the page from nk-dtype's answers.
 */
typedef struct {
  gboolean    known;
  guint64     bits;
  const char *hex;
  const char *value;
  const char *klass;
  const char *abs_error;
  const char *rel_error;
  const char *formula;
  const char *exact;
  const char *note;
  gboolean    note_is_warning;
  const char *overflow;
} NapkinFormatCardContent;

GtkWidget    *napkin_format_card_new           (NkDType                        dtype);
NkDType       napkin_format_card_get_dtype     (NapkinFormatCard              *self);
NapkinBitRow *napkin_format_card_get_bit_row   (NapkinFormatCard              *self);
void          napkin_format_card_show          (NapkinFormatCard              *self,
                                                const NapkinFormatCardContent *content);
void          napkin_format_card_set_hex_error (NapkinFormatCard              *self,
                                                gboolean                       error);
char         *napkin_format_card_dup_field     (NapkinFormatCard              *self,
                                                const char                    *field);

G_END_DECLS
