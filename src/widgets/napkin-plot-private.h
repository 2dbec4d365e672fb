/* napkin-plot-private.h: what the tests may ask a plot that people never need
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "napkin-plot.h"

G_BEGIN_DECLS

gboolean _napkin_plot_get_frame (NapkinPlot      *self,
                                 NapkinPlotFrame *out_frame);

G_END_DECLS
