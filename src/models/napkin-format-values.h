/* napkin-format-values.h: every code of a narrow format, its value and its class
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "nk-dtype.h"

G_BEGIN_DECLS

/* The widest format whose every code is listed: 2^8 rows. */
#define NAPKIN_FORMAT_VALUES_MAX_BITS 8

typedef enum {
  NAPKIN_VALUES_COLUMN_HEX,
  NAPKIN_VALUES_COLUMN_BINARY,
  NAPKIN_VALUES_COLUMN_VALUE,
  NAPKIN_VALUES_COLUMN_CLASS,
  NAPKIN_VALUES_N_COLUMNS
} NapkinValuesColumn;

const char *const *napkin_format_values_titles     (void);
gboolean           napkin_format_values_supports   (NkDType dtype);
GListModel        *napkin_format_values_new        (NkDType dtype);
char              *napkin_format_values_shortest   (double  value);

G_END_DECLS
