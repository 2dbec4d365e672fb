/* napkin-scale-plot.h: an fp16 run's loss scale and skipped steps over time
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-series.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_SCALE_PLOT (napkin_scale_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinScalePlot, napkin_scale_plot, NAPKIN, SCALE_PLOT, NapkinPlot)

GtkWidget    *napkin_scale_plot_new         (void);
void          napkin_scale_plot_set_series  (NapkinScalePlot       *self,
                                             NapkinSeries          *scale,
                                             NapkinSeries          *skipped);
NapkinSeries *napkin_scale_plot_get_series  (NapkinScalePlot       *self);
NapkinSeries *napkin_scale_plot_get_skipped (NapkinScalePlot       *self);

G_END_DECLS
