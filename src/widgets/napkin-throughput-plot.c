/* napkin-throughput-plot.c: measured FLOP/s per step against the device's peak
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A toy run on a CPU reaches a few percent of the peak, so the axis is
 * logarithmic: the measured line and the peak both stay readable, and the gap
 * between them is the MFU the trainer reports. Beside the legend, a bar splits
 * the latest step's time into forward, backward and the optimizer update. A run
 * compared with a plan shows the plan's FLOP/s as a dashed line of its own
 * colour (#NkImportComparison's predicted FLOP/s per GPU, on the log's count).
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-throughput-plot.h"

struct _NapkinThroughputPlot
{
  NapkinPlot    parent_instance;

  NapkinSeries *series;
  double        peak;
  double        plan;
  char         *dtype;
  double        mfu;
  double        split[3];
};

G_DEFINE_FINAL_TYPE (NapkinThroughputPlot, napkin_throughput_plot, NAPKIN_TYPE_PLOT)

static const NapkinPlotColor split_colors[3] = {
  NAPKIN_PLOT_BLUE, NAPKIN_PLOT_PURPLE, NAPKIN_PLOT_YELLOW,
};

static const char *split_names[3] = { N_("forward"), N_("backward"), N_("update") };

/* The forward / backward / optimizer bar and its text, left-aligned at (x, y).
 * Returns its height. */
static double
draw_split (NapkinThroughputPlot  *self,
            const NapkinPlotStyle *style,
            cairo_t               *cr,
            double                 x,
            double                 y)
{
  double total = self->split[0] + self->split[1] + self->split[2];
  double bar_w = 90, bx = x;
  g_autofree char *text = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  int w, h;

  if (!(total > 0))
    return 0;
  text = g_strdup_printf (_("%s %.0f %% · %s %.0f %% · %s %.0f %%"),
                          _(split_names[0]), 100 * self->split[0] / total,
                          _(split_names[1]), 100 * self->split[1] / total,
                          _(split_names[2]), 100 * self->split[2] / total);
  layout = napkin_plot_layout (style, cr, text, TRUE, FALSE);
  pango_layout_get_pixel_size (layout, &w, &h);
  for (guint i = 0; i < 3; i++)
    {
      double seg = bar_w * self->split[i] / total;

      napkin_plot_style_set_color (style, cr, split_colors[i], 1);
      cairo_rectangle (cr, bx, y + (h - 10) / 2.0, seg, 10);
      cairo_fill (cr);
      bx += seg;
    }
  napkin_plot_style_set_fg (style, cr, 0.75);
  cairo_move_to (cr, x + bar_w + 8, y);
  pango_cairo_show_layout (cr, layout);
  return h;
}

/* NapkinPlotClass.describe: the last step's rate against the peak, the MFU and
 * the split of the step's time, as the legend and the bar say them. */
static char *
describe (NapkinPlot *plot)
{
  NapkinThroughputPlot *self = NAPKIN_THROUGHPUT_PLOT (plot);
  double step, rate, total = self->split[0] + self->split[1] + self->split[2];
  g_autofree char *rate_text = NULL;
  GString *text;

  if (self->series == NULL || !napkin_series_get_last (self->series, &step, &rate))
    return NULL;
  rate_text = napkin_plot_format_rate (rate);
  text = g_string_new (NULL);
  g_string_append_printf (text, _("Measured %s at step %.0f"), rate_text, step);
  if (isfinite (self->peak) && self->peak > 0)
    {
      g_autofree char *peak = napkin_plot_format_rate (self->peak);

      g_string_append (text, "; ");
      g_string_append_printf (text, _("Peak %s: %s"), self->dtype != NULL ? self->dtype : "", peak);
    }
  if (isfinite (self->plan) && self->plan > 0)
    {
      g_autofree char *plan = napkin_plot_format_rate (self->plan);

      g_string_append (text, "; ");
      g_string_append_printf (text, _("Plan %s"), plan);
    }
  if (isfinite (self->mfu))
    {
      g_string_append (text, "; ");
      g_string_append_printf (text, _("MFU %.2f %%"), 100 * self->mfu);
    }
  if (total > 0)
    {
      g_string_append (text, "; ");
      g_string_append_printf (text, _("%s %.0f %% · %s %.0f %% · %s %.0f %%"),
                              _(split_names[0]), 100 * self->split[0] / total,
                              _(split_names[1]), 100 * self->split[1] / total,
                              _(split_names[2]), 100 * self->split[2] / total);
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
  NapkinThroughputPlot *self = NAPKIN_THROUGHPUT_PLOT (plot);
  double hover_x = napkin_plot_get_hover_x (plot);
  NapkinPlotFrame frame = { 0 };
  double lo = INFINITY, hi = -INFINITY, xmax = 1;
  const char *labels[3];
  NapkinPlotColor colors[3] = { NAPKIN_PLOT_GREEN, NAPKIN_PLOT_RED, NAPKIN_PLOT_PURPLE };
  gboolean dashed[3] = { FALSE, TRUE, TRUE };
  gboolean has_plan = isfinite (self->plan) && self->plan > 0;
  g_autofree char *peak_label = NULL;
  g_autofree char *plan_label = NULL;
  g_autofree char *mfu_label = NULL;
  guint n_labels = 0;
  double legend_h, split_h;

  if (self->series == NULL || napkin_series_get_length (self->series) == 0)
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              _("Measured FLOP/s appear here once a run starts"));
      return;
    }
  napkin_series_get_y_bounds (self->series, &lo, &hi);
  napkin_series_get_last (self->series, &xmax, NULL);
  if (isfinite (self->peak) && self->peak > 0)
    hi = MAX (hi, self->peak);
  if (has_plan)
    lo = MIN (lo, self->plan), hi = MAX (hi, self->plan);

  labels[n_labels++] = _("Measured");
  if (isfinite (self->peak) && self->peak > 0)
    {
      g_autofree char *rate = napkin_plot_format_rate (self->peak);

      peak_label = g_strdup_printf (_("Peak %s: %s"), self->dtype != NULL ? self->dtype : "", rate);
      labels[n_labels++] = peak_label;
    }
  else
    {
      peak_label = g_strdup (_("Peak unknown for this device"));
      labels[n_labels++] = peak_label;
    }
  if (has_plan)
    {
      g_autofree char *rate = napkin_plot_format_rate (self->plan);

      plan_label = g_strdup_printf (_("Plan: %s"), rate);
      labels[n_labels++] = plan_label;
    }
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width * 0.7, labels, colors, dashed, n_labels);
  if (isfinite (self->mfu))
    {
      mfu_label = g_strdup_printf (_("MFU %.2f %%"), 100 * self->mfu);
      napkin_plot_style_set_fg (style, cr, 0.9);
      napkin_plot_draw_text (style, cr, mfu_label, width, 0, 1.0, 0.0, FALSE, TRUE);
      legend_h = MAX (legend_h, 20);
    }
  split_h = draw_split (self, style, cr, 0, legend_h + 4);
  if (split_h > 0)
    legend_h += 4 + split_h;

  napkin_plot_frame_set_x_range (&frame, MIN (1, xmax), MAX (xmax, 2));
  napkin_plot_frame_set_y_range (&frame, lo, hi, TRUE, FALSE);
  napkin_plot_frame_place (&frame, style, cr, width, height, legend_h + 8,
                           napkin_plot_format_rate);
  napkin_plot_draw_axes (style, cr, &frame, _("Step"), _("FLOP/s (log scale)"),
                         napkin_plot_format_rate);
  napkin_plot_draw_hline (style, cr, &frame, self->peak, NAPKIN_PLOT_RED, TRUE);
  if (has_plan)
    napkin_plot_draw_hline (style, cr, &frame, self->plan, NAPKIN_PLOT_PURPLE, TRUE);
  napkin_plot_draw_series (style, cr, &frame, self->series, NAPKIN_PLOT_GREEN, 1, 1.5);
  napkin_plot_set_frame (plot, &frame);

  if (hover_x >= frame.left && hover_x <= frame.left + frame.width)
    {
      double step = napkin_plot_frame_px_to_x (&frame, hover_x);
      guint n = napkin_series_get_length (self->series);
      guint i = MIN (napkin_series_lower_bound (self->series, step), n - 1);
      g_autofree char *rate = napkin_plot_format_rate (napkin_series_get_y (self->series, i));
      g_autofree char *text = g_strdup_printf (_("Step %.0f: %s"),
                                               napkin_series_get_x (self->series, i), rate);

      napkin_plot_draw_readout (style, cr, &frame, hover_x, text);
    }
}

static void
napkin_throughput_plot_dispose (GObject *object)
{
  NapkinThroughputPlot *self = NAPKIN_THROUGHPUT_PLOT (object);

  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->series, NULL);

  G_OBJECT_CLASS (napkin_throughput_plot_parent_class)->dispose (object);
}

static void
napkin_throughput_plot_finalize (GObject *object)
{
  NapkinThroughputPlot *self = NAPKIN_THROUGHPUT_PLOT (object);

  g_free (self->dtype);

  G_OBJECT_CLASS (napkin_throughput_plot_parent_class)->finalize (object);
}

static void
napkin_throughput_plot_class_init (NapkinThroughputPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->dispose = napkin_throughput_plot_dispose;
  object_class->finalize = napkin_throughput_plot_finalize;
  gtk_widget_class_set_css_name (widget_class, "napkin-throughput-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 180;
  plot_class->natural_height = 240;
  plot_class->natural_width = 480;
}

static void
napkin_throughput_plot_init (NapkinThroughputPlot *self)
{
  self->peak = NAN;
  self->plan = NAN;
  self->mfu = NAN;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Measured FLOP/s against the peak"), -1);
}

GtkWidget *
napkin_throughput_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_THROUGHPUT_PLOT, NULL);
}

/**
 * napkin_throughput_plot_set_series:
 * @self: a throughput plot
 * @series: (nullable): a run's (step, FLOP/s) points
 *
 * Binds the plot to @series; it redraws when the series changes.
 */
void
napkin_throughput_plot_set_series (NapkinThroughputPlot *self,
                                   NapkinSeries         *series)
{
  g_return_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self));
  napkin_plot_bind_series (NAPKIN_PLOT (self), &self->series, series);
}

/**
 * napkin_throughput_plot_get_series:
 * @self: a throughput plot
 *
 * Returns: (transfer none) (nullable): the bound (step, FLOP/s) points
 */
NapkinSeries *
napkin_throughput_plot_get_series (NapkinThroughputPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self), NULL);
  return self->series;
}

/**
 * napkin_throughput_plot_set_peak:
 * @self: a throughput plot
 * @peak: the device's peak FLOP/s for the run's format (NAN: unknown)
 * @dtype: (nullable): the format's name for the legend
 */
void
napkin_throughput_plot_set_peak (NapkinThroughputPlot *self,
                                 double                peak,
                                 const char           *dtype)
{
  g_return_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self));
  self->peak = peak;
  g_free (self->dtype);
  self->dtype = g_strdup (dtype);
  napkin_plot_changed (NAPKIN_PLOT (self));
}

/**
 * napkin_throughput_plot_set_plan:
 * @self: a throughput plot
 * @plan: the FLOP/s the run's plan predicts, on the plot's count (per GPU for an
 *   imported log: #NkImportComparison's predicted %NK_IMPORT_Q_FLOPS); NAN: no plan
 *
 * Draws the plan's FLOP/s as a dashed line beside the measured one, named in
 * the legend.
 */
void
napkin_throughput_plot_set_plan (NapkinThroughputPlot *self,
                                 double                plan)
{
  g_return_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self));
  if (self->plan == plan || (isnan (self->plan) && isnan (plan)))
    return;
  self->plan = plan;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

/* Returns: the plan's FLOP/s the plot draws, NAN when none */
double
napkin_throughput_plot_get_plan (NapkinThroughputPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self), NAN);
  return self->plan;
}

/* The trainer's model FLOPs utilisation of the latest step, 0..1. */
void
napkin_throughput_plot_set_mfu (NapkinThroughputPlot *self,
                                double                mfu)
{
  g_return_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self));
  self->mfu = mfu;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

/* Seconds of the latest step in forward, backward and the optimizer. */
void
napkin_throughput_plot_set_split (NapkinThroughputPlot *self,
                                  double                forward,
                                  double                backward,
                                  double                optimizer)
{
  g_return_if_fail (NAPKIN_IS_THROUGHPUT_PLOT (self));
  self->split[0] = forward;
  self->split[1] = backward;
  self->split[2] = optimizer;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

