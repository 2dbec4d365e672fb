/* napkin-memory-plot.h: device memory by bucket over the steps, stacked
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-series.h"

G_BEGIN_DECLS

/* The buckets drawn, bottom to top (NkBucket order without "other"). */
#define NAPKIN_MEMORY_PLOT_N_BUCKETS 5
/* Predicted by nk-plan: params, grads, optimizer, activations. */
#define NAPKIN_MEMORY_PLOT_N_PREDICTED 4

#define NAPKIN_TYPE_MEMORY_PLOT (napkin_memory_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinMemoryPlot, napkin_memory_plot, NAPKIN, MEMORY_PLOT, NapkinPlot)

GtkWidget    *napkin_memory_plot_new           (void);
void          napkin_memory_plot_set_series    (NapkinMemoryPlot    *self,
                                                NapkinSeries *const *series);
NapkinSeries *napkin_memory_plot_get_series    (NapkinMemoryPlot *self,
                                                guint             bucket);
void          napkin_memory_plot_set_predicted (NapkinMemoryPlot *self,
                                                const double     *predicted);
void          napkin_memory_plot_set_capacity  (NapkinMemoryPlot *self,
                                                double            bytes);

G_END_DECLS
