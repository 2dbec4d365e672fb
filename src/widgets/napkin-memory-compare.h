/* napkin-memory-compare.h: measured GPU memory as bars beside the plan's per-GPU buckets
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_MEMORY_COMPARE (napkin_memory_compare_get_type ())

G_DECLARE_FINAL_TYPE (NapkinMemoryCompare, napkin_memory_compare, NAPKIN, MEMORY_COMPARE, GtkWidget)

GtkWidget *napkin_memory_compare_new  (void);
void       napkin_memory_compare_set  (NapkinMemoryCompare      *self,
                                       const NkMemoryMeasure    *measure,
                                       const NkMemoryComparison *comparison);
guint      napkin_memory_compare_get_n_bars (NapkinMemoryCompare *self);
void       napkin_memory_compare_draw (NapkinMemoryCompare      *self,
                                       cairo_t                  *cr,
                                       int                       width,
                                       int                       height);

G_END_DECLS
