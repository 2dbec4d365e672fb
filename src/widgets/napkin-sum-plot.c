/* napkin-sum-plot.c: a running sum kept in a narrow format, by rounding mode
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three lines over the number of additions: the exact sum (dashed), the sum
 * rounded to nearest-even after each addition, and the sum rounded
 * stochastically. In bf16 adding 1.0 the nearest-even line goes flat at 256
 * while the stochastic one follows the exact line. The series come from
 * napkin_rounding_running_sum(); the plot only draws them.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-sum-plot.h"

struct _NapkinSumPlot
{
  NapkinPlot    parent_instance;

  NapkinSeries *exact;
  NapkinSeries *nearest;
  NapkinSeries *stochastic;
  char         *format_name;
};

G_DEFINE_FINAL_TYPE (NapkinSumPlot, napkin_sum_plot, NAPKIN_TYPE_PLOT)

/* Where the nearest-even sum stopped growing: the first point of its last value. */
static gboolean
stall_point (NapkinSeries *series,
             double       *out_step,
             double       *out_sum)
{
  guint n = series != NULL ? napkin_series_get_length (series) : 0;
  guint i;
  double last;

  if (n < 2)
    return FALSE;
  last = napkin_series_get_y (series, n - 1);
  for (i = n - 1; i > 0 && napkin_series_get_y (series, i - 1) == last; i--)
    ;
  if (i == n - 1)
    return FALSE;
  *out_step = napkin_series_get_x (series, i);
  *out_sum = last;
  return TRUE;
}

/* NapkinPlotClass.describe: the three sums at the end, and where nearest-even stalled. */
static char *
describe (NapkinPlot *plot)
{
  NapkinSumPlot *self = NAPKIN_SUM_PLOT (plot);
  double steps, exact, nearest, stochastic, stall_step, stall_sum;
  GString *text;

  if (self->exact == NULL || self->nearest == NULL || self->stochastic == NULL ||
      !napkin_series_get_last (self->exact, &steps, &exact) ||
      !napkin_series_get_last (self->nearest, NULL, &nearest) ||
      !napkin_series_get_last (self->stochastic, NULL, &stochastic))
    return NULL;
  text = g_string_new (NULL);
  /* Translators: additions, format, exact sum, nearest-even sum, stochastic sum */
  g_string_append_printf (text, _("After %.0f additions kept in %s: exact sum %g, "
                                  "rounded to nearest-even %g, rounded stochastically %g."),
                          steps, self->format_name, exact, nearest, stochastic);
  if (stall_point (self->nearest, &stall_step, &stall_sum))
    {
      g_string_append_c (text, ' ');
      /* Translators: the sum where rounding to nearest stopped growing, and the step */
      g_string_append_printf (text, _("Nearest-even stalls at %g from addition %.0f on."),
                              stall_sum, stall_step);
    }
  return g_string_free (text, FALSE);
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinSumPlot *self = NAPKIN_SUM_PLOT (plot);
  const NapkinPlotColor colors[3] = { NAPKIN_PLOT_BROWN, NAPKIN_PLOT_RED, NAPKIN_PLOT_BLUE };
  const gboolean dashed[3] = { TRUE, FALSE, FALSE };
  const char *labels[3];
  NapkinPlotFrame frame = { 0 };
  double steps = 1, exact_end = 0, lo = 0, hi = 1, a, b, stall_step, stall_sum, legend_h;

  if (self->exact == NULL || self->nearest == NULL || self->stochastic == NULL ||
      napkin_series_get_length (self->exact) == 0)
    {
      napkin_plot_draw_empty (style, cr, width, height, _("The running sums appear here"));
      return;
    }
  napkin_series_get_last (self->exact, &steps, &exact_end);
  for (NapkinSeries **s = (NapkinSeries *[]) { self->exact, self->nearest, self->stochastic, NULL };
       *s != NULL; s++)
    if (napkin_series_get_y_bounds (*s, &a, &b))
      {
        lo = MIN (lo, a);
        hi = MAX (hi, b);
      }

  labels[0] = _("Exact");
  labels[1] = _("Nearest-even");
  labels[2] = _("Stochastic");
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, dashed, 3);

  napkin_plot_frame_set_x_range (&frame, 0, MAX (steps, 1));
  napkin_plot_frame_set_y_range (&frame, lo, hi, FALSE, TRUE);
  napkin_plot_draw_frame (&frame, style, cr, width, height, legend_h + 8,
                          _("Additions"), _("Sum"), napkin_plot_format_plain);
  /* The exact sum is a straight line (k × addend): dashed, as the legend says. */
  napkin_plot_draw_segment (style, cr, &frame, 0, 0, steps, exact_end,
                            NAPKIN_PLOT_BROWN, 0.8, TRUE);
  napkin_plot_draw_series (style, cr, &frame, self->stochastic, NAPKIN_PLOT_BLUE, 1, 2);
  napkin_plot_draw_series (style, cr, &frame, self->nearest, NAPKIN_PLOT_RED, 1, 2);
  if (stall_point (self->nearest, &stall_step, &stall_sum))
    {
      g_autofree char *text = g_strdup_printf (_("stalls at %g"), stall_sum);
      double px = napkin_plot_frame_x_to_px (&frame, stall_step);
      double py = napkin_plot_frame_y_to_px (&frame, stall_sum);

      napkin_plot_style_set_color (style, cr, NAPKIN_PLOT_RED, 1);
      cairo_arc (cr, px, py, 4, 0, 2 * G_PI);
      cairo_fill (cr);
      napkin_plot_draw_text (style, cr, text, px + 6, py - 4, 0, 1, TRUE, TRUE);
    }
  napkin_plot_set_frame (plot, &frame);
}

static void
napkin_sum_plot_dispose (GObject *object)
{
  NapkinSumPlot *self = NAPKIN_SUM_PLOT (object);

  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->exact, NULL);
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->nearest, NULL);
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->stochastic, NULL);
  g_clear_pointer (&self->format_name, g_free);

  G_OBJECT_CLASS (napkin_sum_plot_parent_class)->dispose (object);
}

static void
napkin_sum_plot_class_init (NapkinSumPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->dispose = napkin_sum_plot_dispose;
  gtk_widget_class_set_css_name (widget_class, "napkin-sum-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 180;
  plot_class->natural_height = 240;
  plot_class->natural_width = 480;
}

static void
napkin_sum_plot_init (NapkinSumPlot *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("A running sum by rounding mode"), -1);
}

/**
 * napkin_sum_plot_new:
 *
 * Returns: (transfer full): a new, empty sum plot
 */
GtkWidget *
napkin_sum_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_SUM_PLOT, NULL);
}

/**
 * napkin_sum_plot_set_series:
 * @self: a sum plot
 * @exact: (nullable): the exact sums, (additions, sum)
 * @nearest: (nullable): the sums rounded to nearest-even after each addition
 * @stochastic: (nullable): the sums rounded stochastically
 * @format_name: the format the sums are kept in, for the description
 *
 * Binds the plot to the three series; it redraws when they change.
 */
void
napkin_sum_plot_set_series (NapkinSumPlot *self,
                            NapkinSeries  *exact,
                            NapkinSeries  *nearest,
                            NapkinSeries  *stochastic,
                            const char    *format_name)
{
  g_return_if_fail (NAPKIN_IS_SUM_PLOT (self));

  g_free (self->format_name);
  self->format_name = g_strdup (format_name);
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->exact, exact);
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->nearest, nearest);
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->stochastic, stochastic);
  napkin_plot_changed (NAPKIN_PLOT (self));
}
