/* napkin-compare-plot.h: several runs' loss, or their flushed or clipped shares, on one plot
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-run-compare.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_COMPARE_PLOT (napkin_compare_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinComparePlot, napkin_compare_plot, NAPKIN, COMPARE_PLOT, NapkinPlot)

GtkWidget             *napkin_compare_plot_new          (NapkinRunCompare      *model,
                                                         NapkinCompareQuantity  what);
NapkinRunCompare      *napkin_compare_plot_get_model    (NapkinComparePlot     *self);
void                   napkin_compare_plot_set_model    (NapkinComparePlot     *self,
                                                         NapkinRunCompare      *model);
NapkinCompareQuantity  napkin_compare_plot_get_quantity (NapkinComparePlot     *self);
const double          *napkin_compare_plot_get_dash     (guint                  dash,
                                                         int                   *out_n);

G_END_DECLS
