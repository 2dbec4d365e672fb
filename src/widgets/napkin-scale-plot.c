/* napkin-scale-plot.c: an fp16 run's loss scale and skipped steps over time
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GradScaler's rhythm made visible: the scale (log axis, it moves by factors of two)
 * as a step line, and each skipped step as a red tick under it — every halving has
 * its tick. Skipped steps are their own series (step, running count), so a run of a
 * million steps draws its ticks through the same per-column reduction as its line.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <inttypes.h>

#include "napkin-scale-plot.h"

struct _NapkinScalePlot
{
  GtkWidget     parent_instance;

  NapkinSeries *scale;
  NapkinSeries *skipped;     /* one point per skipped step: (step, skipped so far) */
};

G_DEFINE_FINAL_TYPE (NapkinScalePlot, napkin_scale_plot, NAPKIN_TYPE_PLOT)

#define TICK_HEIGHT 10

static char *
format_scale (double value)
{
  int e;

  /* Scales are powers of two: say which. */
  if (value > 0 && frexp (value, &e) == 0.5)
    return g_strdup_printf ("2^%d", e - 1);
  return napkin_plot_format_plain (value);
}

/* NapkinPlotClass.describe: the scale now and how many steps were skipped. */
static char *
describe (NapkinPlot *plot)
{
  NapkinScalePlot *self = NAPKIN_SCALE_PLOT (plot);
  double step, scale, skipped = 0;
  g_autofree char *scale_text = NULL;

  if (self->scale == NULL || !napkin_series_get_last (self->scale, &step, &scale))
    return NULL;
  if (self->skipped != NULL)
    napkin_series_get_last (self->skipped, NULL, &skipped);
  scale_text = format_scale (scale);
  return g_strdup_printf (_("Loss scale %s at step %.0f; %.0f steps skipped"),
                          scale_text, step, skipped);
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinScalePlot *self = NAPKIN_SCALE_PLOT (plot);
  double hover_x = napkin_plot_get_hover_x (plot);
  NapkinPlotFrame frame = { 0 };
  double lo = INFINITY, hi = -INFINITY, xmax = 1;
  const NapkinPlotColor colors[2] = { NAPKIN_PLOT_BLUE, NAPKIN_PLOT_RED };
  g_autofree char *skipped_label = NULL;
  const char *labels[2];
  double legend_h, last_skipped = 0;
  guint64 skipped_so_far;
  guint n_columns, i;

  if (self->scale == NULL || napkin_series_get_length (self->scale) == 0)
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              _("An fp16 run’s loss scale appears here"));
      return;
    }
  napkin_series_get_y_bounds (self->scale, &lo, &hi);
  napkin_series_get_last (self->scale, &xmax, NULL);
  if (self->skipped != NULL)
    napkin_series_get_last (self->skipped, NULL, &last_skipped);
  skipped_so_far = (guint64) last_skipped;

  skipped_label = g_strdup_printf (g_dngettext (NULL, "Skipped step (%" PRIu64 " so far)",
                                                "Skipped steps (%" PRIu64 " so far)",
                                                skipped_so_far),
                                   skipped_so_far);
  labels[0] = _("Loss scale");
  labels[1] = skipped_label;
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, NULL, 2);

  napkin_plot_frame_set_x_range (&frame, MIN (1, xmax), MAX (xmax, 2));
  napkin_plot_frame_set_y_range (&frame, lo / 2, hi * 2, TRUE, FALSE);
  napkin_plot_draw_frame (&frame, style, cr, width, height, legend_h + 8,
                          _("Step"), _("Loss scale (log)"), format_scale);
  napkin_plot_draw_series (style, cr, &frame, self->scale, NAPKIN_PLOT_BLUE, 1, 1.5);

  /* A tick in every pixel column that holds a skipped step. */
  n_columns = (guint) MAX (1, frame.width);
  if (self->skipped != NULL && napkin_series_get_length (self->skipped) > 0)
    {
      g_autofree double *mins = g_new (double, n_columns);
      g_autofree double *maxs = g_new (double, n_columns);
      double bottom = frame.top + frame.height;

      napkin_series_decimate (self->skipped, frame.x0, frame.x1, n_columns, mins, maxs);
      napkin_plot_style_set_color (style, cr, NAPKIN_PLOT_RED, 0.9);
      cairo_set_line_width (cr, 1);
      for (guint c = 0; c < n_columns; c++)
        if (!isnan (mins[c]))
          {
            double px = floor (frame.left + c * frame.width / n_columns) + 0.5;

            cairo_move_to (cr, px, bottom);
            cairo_line_to (cr, px, bottom - TICK_HEIGHT);
          }
      cairo_stroke (cr);
    }
  napkin_plot_set_frame (plot, &frame);

  if (napkin_plot_frame_hover_index (&frame, hover_x, self->scale, &i))
    {
      g_autofree char *scale = format_scale (napkin_series_get_y (self->scale, i));
      g_autofree char *text = g_strdup_printf (_("Step %.0f: scale %s"),
                                               napkin_series_get_x (self->scale, i), scale);

      napkin_plot_draw_readout (style, cr, &frame, hover_x, text);
    }
}

static void
napkin_scale_plot_dispose (GObject *object)
{
  NapkinScalePlot *self = NAPKIN_SCALE_PLOT (object);

  napkin_scale_plot_set_series (self, NULL, NULL);

  G_OBJECT_CLASS (napkin_scale_plot_parent_class)->dispose (object);
}

static void
napkin_scale_plot_class_init (NapkinScalePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->dispose = napkin_scale_plot_dispose;
  gtk_widget_class_set_css_name (widget_class, "napkin-scale-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 160;
  plot_class->natural_height = 220;
  plot_class->natural_width = 480;
}

static void
napkin_scale_plot_init (NapkinScalePlot *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The fp16 loss scale and the skipped steps over time"), -1);
}

GtkWidget *
napkin_scale_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_SCALE_PLOT, NULL);
}

/**
 * napkin_scale_plot_set_series:
 * @self: a scale plot
 * @scale: (nullable): a run's (step, loss scale) points
 * @skipped: (nullable): one (step, skipped steps so far) point per skipped step
 *
 * Binds the plot to an fp16 run's series; it redraws when they change.
 */
void
napkin_scale_plot_set_series (NapkinScalePlot *self,
                              NapkinSeries    *scale,
                              NapkinSeries    *skipped)
{
  g_return_if_fail (NAPKIN_IS_SCALE_PLOT (self));
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->scale, scale);
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->skipped, skipped);
}

/**
 * napkin_scale_plot_get_series:
 * @self: a scale plot
 *
 * Returns: (transfer none) (nullable): the bound (step, loss scale) points
 */
NapkinSeries *
napkin_scale_plot_get_series (NapkinScalePlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_SCALE_PLOT (self), NULL);
  return self->scale;
}

/**
 * napkin_scale_plot_get_skipped:
 * @self: a scale plot
 *
 * Returns: (transfer none) (nullable): one (step, skipped so far) point per skipped step
 */
NapkinSeries *
napkin_scale_plot_get_skipped (NapkinScalePlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_SCALE_PLOT (self), NULL);
  return self->skipped;
}

