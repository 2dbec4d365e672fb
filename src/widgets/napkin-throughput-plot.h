/* napkin-throughput-plot.h: measured FLOP/s per step against the device's peak
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-series.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_THROUGHPUT_PLOT (napkin_throughput_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinThroughputPlot, napkin_throughput_plot, NAPKIN, THROUGHPUT_PLOT, NapkinPlot)

GtkWidget    *napkin_throughput_plot_new        (void);
void          napkin_throughput_plot_set_series (NapkinThroughputPlot *self,
                                                 NapkinSeries         *series);
NapkinSeries *napkin_throughput_plot_get_series (NapkinThroughputPlot *self);
void          napkin_throughput_plot_set_peak   (NapkinThroughputPlot *self,
                                                 double                peak,
                                                 const char           *dtype);
void          napkin_throughput_plot_set_plan   (NapkinThroughputPlot *self,
                                                 double                plan);
double        napkin_throughput_plot_get_plan   (NapkinThroughputPlot *self);
void          napkin_throughput_plot_set_mfu    (NapkinThroughputPlot *self,
                                                 double                mfu);
void          napkin_throughput_plot_set_split  (NapkinThroughputPlot *self,
                                                 double                forward,
                                                 double                backward,
                                                 double                optimizer);

G_END_DECLS
