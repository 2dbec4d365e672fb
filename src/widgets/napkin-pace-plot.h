/* napkin-pace-plot.h: time to tokens: a run's tokens seen against wall time beside its plan's line
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-series.h"
#include "nk-import-plan.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_PACE_PLOT (napkin_pace_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinPacePlot, napkin_pace_plot, NAPKIN, PACE_PLOT, NapkinPlot)

GtkWidget    *napkin_pace_plot_new          (void);
void          napkin_pace_plot_set_maps     (NapkinPacePlot           *self,
                                             NapkinSeries             *time_map,
                                             NapkinSeries             *tokens_map);
void          napkin_pace_plot_set_plan     (NapkinPacePlot           *self,
                                             const NkImportPrediction *plan);
NapkinSeries *napkin_pace_plot_get_measured (NapkinPacePlot           *self);
char         *napkin_pace_plot_format_time  (double                    seconds);

G_END_DECLS
