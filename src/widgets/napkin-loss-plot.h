/* napkin-loss-plot.h: loss against step, raw and smoothed, with a run to compare
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-run-axis.h"
#include "napkin-series.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_LOSS_PLOT (napkin_loss_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinLossPlot, napkin_loss_plot, NAPKIN, LOSS_PLOT, NapkinPlot)

GtkWidget    *napkin_loss_plot_new            (void);
void          napkin_loss_plot_set_series     (NapkinLossPlot *self,
                                               NapkinSeries   *series);
NapkinSeries *napkin_loss_plot_get_series     (NapkinLossPlot *self);
NapkinSeries *napkin_loss_plot_get_smoothed   (NapkinLossPlot *self);
void          napkin_loss_plot_set_label      (NapkinLossPlot *self,
                                               const char     *label);
void          napkin_loss_plot_set_compare    (NapkinLossPlot *self,
                                               NapkinSeries   *series,
                                               const char     *label);
NapkinSeries *napkin_loss_plot_get_compare    (NapkinLossPlot *self);
gboolean      napkin_loss_plot_get_log_scale  (NapkinLossPlot *self);
void          napkin_loss_plot_set_log_scale  (NapkinLossPlot *self,
                                               gboolean        log_scale);
double        napkin_loss_plot_get_smoothing  (NapkinLossPlot *self);
void          napkin_loss_plot_set_smoothing  (NapkinLossPlot *self,
                                               double          smoothing);
void          napkin_loss_plot_set_x_axis     (NapkinLossPlot *self,
                                               NapkinXAxis     axis,
                                               NapkinSeries   *map,
                                               NapkinSeries   *compare_map);
NapkinXAxis   napkin_loss_plot_get_x_axis     (NapkinLossPlot *self);
gboolean      napkin_loss_plot_get_log_x      (NapkinLossPlot *self);
void          napkin_loss_plot_set_log_x      (NapkinLossPlot *self,
                                               gboolean        log_x);
void          napkin_loss_plot_set_plan_time  (NapkinLossPlot *self,
                                               double          seconds);
double        napkin_loss_plot_get_plan_time  (NapkinLossPlot *self);
char         *napkin_loss_plot_dup_readout    (NapkinLossPlot *self,
                                               double          step);

G_END_DECLS
