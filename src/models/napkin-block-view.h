/* napkin-block-view.h: a block quantization as the Number formats page shows it
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "nk-quantize.h"

G_BEGIN_DECLS

/* A vector longer than this is cut to its first values when read. */
#define NAPKIN_BLOCK_VIEW_MAX_VALUES (1u << 20)
/* The element table shows the elements of this many first blocks. */
#define NAPKIN_BLOCK_VIEW_SHOWN_BLOCKS 8
/* The block table shows this many first blocks. */
#define NAPKIN_BLOCK_VIEW_SHOWN_BLOCK_ROWS 256

/* The columns of the tables, in order. */
typedef enum {
  NAPKIN_BLOCK_COLUMN_INDEX,
  NAPKIN_BLOCK_COLUMN_ELEMENTS,
  NAPKIN_BLOCK_COLUMN_SCALE,
  NAPKIN_BLOCK_COLUMN_SCALE_BITS,
  NAPKIN_BLOCK_COLUMN_LARGEST,
  NAPKIN_BLOCK_COLUMN_FLUSHED,
  NAPKIN_BLOCK_COLUMN_CLIPPED,
  NAPKIN_BLOCK_N_COLUMNS
} NapkinBlockColumn;

typedef enum {
  NAPKIN_ELEMENT_COLUMN_INDEX,
  NAPKIN_ELEMENT_COLUMN_INPUT,
  NAPKIN_ELEMENT_COLUMN_CODE,
  NAPKIN_ELEMENT_COLUMN_ELEMENT,
  NAPKIN_ELEMENT_COLUMN_VALUE,
  NAPKIN_ELEMENT_COLUMN_ERROR,
  NAPKIN_ELEMENT_COLUMN_WHY,
  NAPKIN_ELEMENT_N_COLUMNS
} NapkinElementColumn;

const char *const *napkin_block_view_block_titles   (void);
const char *const *napkin_block_view_element_titles (void);

gboolean    napkin_block_view_parse      (const char      *text,
                                          GArray         **out_values,
                                          GError         **error);
gboolean    napkin_block_view_read_npy   (const char      *path,
                                          GArray         **out_values,
                                          guint64         *out_total,
                                          GError         **error);
GStrv       napkin_block_view_list_tensors (const char    *path,
                                            GError       **error);
gboolean    napkin_block_view_read_tensor (const char     *path,
                                           const char     *name,
                                           GArray        **out_values,
                                           guint64        *out_total,
                                           GError        **error);

GListModel *napkin_block_view_block_rows   (NkQuantization *quantization);
GListModel *napkin_block_view_element_rows (NkQuantization *quantization);
char       *napkin_block_view_summary      (NkQuantization *quantization,
                                            guint64         total_values);
char       *napkin_block_view_format_number (double         value);

G_END_DECLS
