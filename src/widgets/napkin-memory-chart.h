/* napkin-memory-chart.h: stacked bars of what each GPU holds, against its HBM
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_MEMORY_CHART (napkin_memory_chart_get_type ())

G_DECLARE_FINAL_TYPE (NapkinMemoryChart, napkin_memory_chart, NAPKIN, MEMORY_CHART, GtkWidget)

/**
 * NapkinMemoryBucket:
 * @NAPKIN_MEMORY_PARAMS: parameters
 * @NAPKIN_MEMORY_GRADS: gradients
 * @NAPKIN_MEMORY_OPTIMIZER: optimizer state (and the fp32 master copy)
 * @NAPKIN_MEMORY_ACTIVATIONS: activations
 * @NAPKIN_MEMORY_LOW_PRECISION: a low-precision recipe's weight copies and
 *   scales (in the legend only where it holds bytes)
 * @NAPKIN_MEMORY_N_BUCKETS: the number of buckets
 *
 * The stacked segments of a bar, bottom to top.
 */
typedef enum {
  NAPKIN_MEMORY_PARAMS,
  NAPKIN_MEMORY_GRADS,
  NAPKIN_MEMORY_OPTIMIZER,
  NAPKIN_MEMORY_ACTIVATIONS,
  NAPKIN_MEMORY_LOW_PRECISION,
  NAPKIN_MEMORY_N_BUCKETS,
} NapkinMemoryBucket;

GtkWidget *napkin_memory_chart_new         (void);
double     napkin_memory_chart_get_bytes   (NapkinMemoryChart  *self,
                                            NapkinMemoryBucket  bucket);
void       napkin_memory_chart_set_bytes   (NapkinMemoryChart  *self,
                                            NapkinMemoryBucket  bucket,
                                            double              bytes);
double     napkin_memory_chart_get_expert_bytes (NapkinMemoryChart  *self,
                                                 NapkinMemoryBucket  bucket);
void       napkin_memory_chart_set_expert_bytes (NapkinMemoryChart  *self,
                                                 NapkinMemoryBucket  bucket,
                                                 double              bytes);
double     napkin_memory_chart_get_hbm     (NapkinMemoryChart  *self);
void       napkin_memory_chart_set_hbm     (NapkinMemoryChart  *self,
                                            double              hbm);
double     napkin_memory_chart_get_gpus    (NapkinMemoryChart  *self);
void       napkin_memory_chart_set_gpus    (NapkinMemoryChart  *self,
                                            double              gpus);
gboolean   napkin_memory_chart_get_fits    (NapkinMemoryChart  *self);
void       napkin_memory_chart_set_fits    (NapkinMemoryChart  *self,
                                            gboolean            fits);

G_END_DECLS
