/* napkin-neighbour-plot.c: where one value lands when rounded stochastically many times
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A histogram with two bars, because stochastic rounding only ever gives a
 * value's two neighbours: one bar at the neighbour below, one at the neighbour
 * above, each as tall as the times it came out. A red line marks the value and
 * a blue one the mean of the results, which lies close to it. The counts come
 * from napkin_rounding_stochastic_counts(); the plot only draws them.
 */
#include "config.h"

#include <math.h>
#include <inttypes.h>
#include <glib/gi18n.h>

#include "napkin-format-values.h"
#include "napkin-neighbour-plot.h"

struct _NapkinNeighbourPlot
{
  NapkinPlot             parent_instance;

  gboolean               known;
  NapkinStochasticCounts counts;
  char                  *format_name;
};

G_DEFINE_FINAL_TYPE (NapkinNeighbourPlot, napkin_neighbour_plot, NAPKIN_TYPE_PLOT)

/* NapkinPlotClass.describe */
static char *
describe (NapkinPlot *plot)
{
  NapkinNeighbourPlot *self = NAPKIN_NEIGHBOUR_PLOT (plot);
  const NapkinStochasticCounts *c = &self->counts;
  g_autofree char *value = NULL, *below = NULL, *above = NULL, *mean = NULL;

  if (!self->known)
    return NULL;
  value = napkin_format_values_shortest (c->value);
  below = napkin_format_values_shortest (c->below);
  above = napkin_format_values_shortest (c->above);
  mean = g_strdup_printf ("%.6g", c->mean);
  if (c->below == c->above)
    /* Translators: a value, a format, how many times it was rounded */
    return g_strdup_printf (_("%s is a value of %s: all %" PRIu64 " roundings give it."),
                            value, self->format_name, c->n);
  /* Translators: value, format, times rounded, neighbour below, its count,
   * neighbour above, its count, the mean of the results */
  return g_strdup_printf (_("%s rounded %" PRIu64 " times into %s: %s %" PRIu64
                            " times, %s %" PRIu64 " times; mean %s."),
                          value, c->n, self->format_name, below, c->n_below, above, c->n_above,
                          mean);
}

static void
draw_bar (const NapkinPlotStyle *style,
          cairo_t               *cr,
          const NapkinPlotFrame *frame,
          double                 x,
          double                 half_width,
          guint64                count)
{
  double x0 = napkin_plot_frame_x_to_px (frame, x - half_width);
  double x1 = napkin_plot_frame_x_to_px (frame, x + half_width);
  double y0 = napkin_plot_frame_y_to_px (frame, 0);
  double y1 = napkin_plot_frame_y_to_px (frame, (double) count);
  g_autofree char *label = napkin_format_values_shortest (x);
  g_autofree char *text = g_strdup_printf ("%s × %" PRIu64, label, count);

  napkin_plot_style_set_color (style, cr, NAPKIN_PLOT_GREEN, 0.75);
  cairo_rectangle (cr, x0, y1, x1 - x0, y0 - y1);
  cairo_fill (cr);
  napkin_plot_draw_text (style, cr, text, (x0 + x1) / 2, MAX (y1 - 4, frame->top + 12),
                         0.5, 1, TRUE, FALSE);
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinNeighbourPlot *self = NAPKIN_NEIGHBOUR_PLOT (plot);
  const NapkinStochasticCounts *c = &self->counts;
  const NapkinPlotColor colors[2] = { NAPKIN_PLOT_RED, NAPKIN_PLOT_BLUE };
  const char *labels[2];
  NapkinPlotFrame frame = { 0 };
  double gap, legend_h;

  if (!self->known)
    {
      napkin_plot_draw_empty (style, cr, width, height, _("Type a finite value to round"));
      return;
    }
  gap = c->above - c->below;
  if (gap == 0)
    gap = fabs (c->value) > 0 ? fabs (c->value) / 4 : 1;

  labels[0] = _("Value");
  labels[1] = _("Mean of the results");
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, NULL, 2);
  napkin_plot_frame_set_x_range (&frame, c->below - gap / 2, c->above + gap / 2);
  napkin_plot_frame_set_y_range (&frame, 0, (double) c->n * 1.15, FALSE, TRUE);
  napkin_plot_draw_frame (&frame, style, cr, width, height, legend_h + 8,
                          _("Result"), _("Times"), napkin_plot_format_count);
  if (c->below == c->above)
    draw_bar (style, cr, &frame, c->below, gap / 8, c->n);
  else
    {
      draw_bar (style, cr, &frame, c->below, gap / 8, c->n_below);
      draw_bar (style, cr, &frame, c->above, gap / 8, c->n_above);
    }
  napkin_plot_draw_vline (style, cr, &frame, c->value, NAPKIN_PLOT_RED, 2, NULL);
  napkin_plot_draw_vline (style, cr, &frame, c->mean, NAPKIN_PLOT_BLUE, 2, NULL);
  napkin_plot_set_frame (plot, &frame);
}

static void
napkin_neighbour_plot_finalize (GObject *object)
{
  NapkinNeighbourPlot *self = NAPKIN_NEIGHBOUR_PLOT (object);

  g_clear_pointer (&self->format_name, g_free);

  G_OBJECT_CLASS (napkin_neighbour_plot_parent_class)->finalize (object);
}

static void
napkin_neighbour_plot_class_init (NapkinNeighbourPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->finalize = napkin_neighbour_plot_finalize;
  gtk_widget_class_set_css_name (widget_class, "napkin-neighbour-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 180;
  plot_class->natural_height = 220;
  plot_class->natural_width = 480;
}

static void
napkin_neighbour_plot_init (NapkinNeighbourPlot *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Results of stochastic rounding"), -1);
}

/**
 * napkin_neighbour_plot_new:
 *
 * Returns: (transfer full): a new, empty plot
 */
GtkWidget *
napkin_neighbour_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_NEIGHBOUR_PLOT, NULL);
}

/**
 * napkin_neighbour_plot_set_counts:
 * @self: a plot
 * @counts: (nullable): what napkin_rounding_stochastic_counts() found, or %NULL
 *   for nothing
 * @format_name: the format rounded into, for the description
 *
 * Shows @counts.
 */
void
napkin_neighbour_plot_set_counts (NapkinNeighbourPlot          *self,
                                  const NapkinStochasticCounts *counts,
                                  const char                   *format_name)
{
  g_return_if_fail (NAPKIN_IS_NEIGHBOUR_PLOT (self));

  self->known = counts != NULL;
  if (counts != NULL)
    self->counts = *counts;
  g_free (self->format_name);
  self->format_name = g_strdup (format_name);
  napkin_plot_changed (NAPKIN_PLOT (self));
}
