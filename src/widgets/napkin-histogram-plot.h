/* napkin-histogram-plot.h: a tensor's values by binade against what fp16 and bf16 can hold
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "nk-trainer.h"
#include "napkin-plot-axes.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_HISTOGRAM_PLOT (napkin_histogram_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinHistogramPlot, napkin_histogram_plot, NAPKIN, HISTOGRAM_PLOT, NapkinPlot)

GtkWidget              *napkin_histogram_plot_new           (void);
void                    napkin_histogram_plot_set_histogram (NapkinHistogramPlot    *self,
                                                             const NkTrainHistogram *histogram);
const NkTrainHistogram *napkin_histogram_plot_get_histogram (NapkinHistogramPlot    *self);

G_END_DECLS
