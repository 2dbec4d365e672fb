/* napkin-sum-plot.h: a running sum kept in a narrow format, by rounding mode
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-series.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_SUM_PLOT (napkin_sum_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinSumPlot, napkin_sum_plot, NAPKIN, SUM_PLOT, NapkinPlot)

GtkWidget *napkin_sum_plot_new        (void);
void       napkin_sum_plot_set_series (NapkinSumPlot *self,
                                       NapkinSeries  *exact,
                                       NapkinSeries  *nearest,
                                       NapkinSeries  *stochastic,
                                       const char    *format_name);

G_END_DECLS
