/* napkin-plot.h: the widget every training plot derives from
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A plot only draws: NapkinPlot gives it a snapshot, the pointer's position for
 * a hover readout, its size request, PNG/SVG export, and the binding to the
 * #NapkinSeries models it shows (a redraw on each #NapkinSeries::changed). The drawing itself takes
 * any Cairo context, so a benchmark or an export can call it without a widget.
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-plot-axes.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_PLOT (napkin_plot_get_type ())

G_DECLARE_DERIVABLE_TYPE (NapkinPlot, napkin_plot, NAPKIN, PLOT, GtkWidget)

/**
 * NapkinPlotClass:
 * @draw: draws the plot at @width × @height with @style
 * @min_height: the least height it can be drawn in
 * @natural_height: the height it asks for
 * @natural_width: the width it asks for (every plot can shrink to 240)
 * @describe: (nullable): the plot's data in words, what a sighted person reads
 *   off it, for its accessible description; %NULL or "" when it shows nothing
 */
struct _NapkinPlotClass
{
  GtkWidgetClass parent_class;

  void (*draw) (NapkinPlot            *self,
                cairo_t               *cr,
                int                    width,
                int                    height,
                const NapkinPlotStyle *style);
  char *(*describe) (NapkinPlot *self);

  int min_height;
  int natural_height;
  int natural_width;
};

void     napkin_plot_draw        (NapkinPlot            *self,
                                  cairo_t               *cr,
                                  int                    width,
                                  int                    height,
                                  const NapkinPlotStyle *style);
double   napkin_plot_get_hover_x (NapkinPlot  *self);

/* For the plots themselves: binding a series model, and the frame last drawn. */
gboolean napkin_plot_bind_series (NapkinPlot    *self,
                                  NapkinSeries **slot,
                                  NapkinSeries  *series);
void     napkin_plot_changed     (NapkinPlot  *self);
void     napkin_plot_set_frame   (NapkinPlot            *self,
                                  const NapkinPlotFrame *frame);
gboolean napkin_plot_save        (NapkinPlot  *self,
                                  const char  *path,
                                  int          width,
                                  int          height,
                                  GError     **error);

G_END_DECLS
