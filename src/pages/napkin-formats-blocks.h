/* napkin-formats-blocks.h: the Number formats page's Blocks section
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-quantize.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_FORMATS_BLOCKS (napkin_formats_blocks_get_type ())

G_DECLARE_FINAL_TYPE (NapkinFormatsBlocks, napkin_formats_blocks, NAPKIN, FORMATS_BLOCKS, GtkWidget)

GtkWidget     *napkin_formats_blocks_new             (void);
void           napkin_formats_blocks_set_values_text (NapkinFormatsBlocks *self,
                                                      const char          *text);
const char    *napkin_formats_blocks_get_values_text (NapkinFormatsBlocks *self);
void           napkin_formats_blocks_set_format      (NapkinFormatsBlocks *self,
                                                      NkBlockFormat        format);
void           napkin_formats_blocks_set_scale_rule  (NapkinFormatsBlocks *self,
                                                      NkMxScaleRule        rule);
void           napkin_formats_blocks_set_stochastic  (NapkinFormatsBlocks *self,
                                                      gboolean             stochastic);
gboolean       napkin_formats_blocks_load_npy        (NapkinFormatsBlocks *self,
                                                      const char          *path);
gboolean       napkin_formats_blocks_open_checkpoint (NapkinFormatsBlocks *self,
                                                      const char          *path);
gboolean       napkin_formats_blocks_choose_tensor   (NapkinFormatsBlocks *self,
                                                      const char          *name);

/* What it shows, for tests */
NkQuantization *napkin_formats_blocks_get_quantization (NapkinFormatsBlocks *self);
GListModel    *napkin_formats_blocks_get_block_rows   (NapkinFormatsBlocks *self);
GListModel    *napkin_formats_blocks_get_element_rows (NapkinFormatsBlocks *self);
const char    *napkin_formats_blocks_get_summary      (NapkinFormatsBlocks *self);
const char    *napkin_formats_blocks_get_error        (NapkinFormatsBlocks *self);
gboolean       napkin_formats_blocks_get_busy         (NapkinFormatsBlocks *self);

G_END_DECLS
