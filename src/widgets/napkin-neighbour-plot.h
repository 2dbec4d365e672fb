/* napkin-neighbour-plot.h: where one value lands when rounded stochastically many times
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot.h"
#include "napkin-rounding-demo.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_NEIGHBOUR_PLOT (napkin_neighbour_plot_get_type ())

G_DECLARE_FINAL_TYPE (NapkinNeighbourPlot, napkin_neighbour_plot, NAPKIN, NEIGHBOUR_PLOT, NapkinPlot)

GtkWidget *napkin_neighbour_plot_new        (void);
void       napkin_neighbour_plot_set_counts (NapkinNeighbourPlot          *self,
                                             const NapkinStochasticCounts *counts,
                                             const char                   *format_name);

G_END_DECLS
