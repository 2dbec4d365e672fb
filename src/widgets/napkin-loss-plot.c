/* napkin-loss-plot.c: loss against step, raw and smoothed, with a run to compare
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The plot keeps every loss it is given (a #NapkinSeries) and draws it decimated
 * per pixel column. Smoothing is presentation only: an exponential moving average
 * (debiased, as TensorBoard's) drawn on top of the raw line, which stays visible
 * underneath, so smoothing never hides a point. A second run (the lecture's
 * "lr 0.01 vs 0.1") can share the axes.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-loss-plot.h"

typedef struct {
  NapkinSeries *raw;
  NapkinSeries *smooth;
  double        ema;
  double        weight;   /* 1 - smoothing^t, for the debiasing */
} Line;

struct _NapkinLossPlot
{
  GtkWidget  parent_instance;

  Line       line;
  Line       compare;
  char      *label;
  char      *compare_label;
  gboolean   log_scale;
  double     smoothing;
};

G_DEFINE_FINAL_TYPE (NapkinLossPlot, napkin_loss_plot, NAPKIN_TYPE_PLOT)

enum {
  PROP_0,
  PROP_LOG_SCALE,
  PROP_SMOOTHING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
line_init (Line *line)
{
  line->raw = napkin_series_new ();
  line->smooth = napkin_series_new ();
  line->ema = 0;
  line->weight = 0;
}

static void
line_clear (Line *line)
{
  g_clear_pointer (&line->raw, napkin_series_unref);
  g_clear_pointer (&line->smooth, napkin_series_unref);
}

static void
line_smooth_one (Line   *line,
                 double  smoothing,
                 double  x,
                 double  y)
{
  if (!isfinite (y))
    {
      napkin_series_append (line->smooth, x, y);
      return;
    }
  line->ema = smoothing * line->ema + (1 - smoothing) * y;
  line->weight = smoothing * line->weight + (1 - smoothing);
  napkin_series_append (line->smooth, x, line->ema / line->weight);
}

static void
line_resmooth (Line   *line,
               double  smoothing)
{
  guint n = napkin_series_get_length (line->raw);

  napkin_series_clear (line->smooth);
  line->ema = line->weight = 0;
  for (guint i = 0; i < n; i++)
    line_smooth_one (line, smoothing, napkin_series_get_x (line->raw, i),
                     napkin_series_get_y (line->raw, i));
}

static void
update_accessible (NapkinLossPlot *self)
{
  double step, loss;
  g_autofree char *text = NULL;

  if (napkin_series_get_last (self->line.raw, &step, &loss))
    text = g_strdup_printf (_("Loss plot: %u steps, last loss %.6g at step %.0f"),
                            napkin_series_get_length (self->line.raw), loss, step);
  else
    text = g_strdup (_("Loss plot: no steps yet"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinLossPlot *self = NAPKIN_LOSS_PLOT (plot);
  double hover_x = napkin_plot_get_hover_x (plot);
  NapkinPlotFrame frame = { 0 };
  double lo = INFINITY, hi = -INFINITY, xmax = 1, a, b;
  gboolean have_compare = self->compare.raw != NULL && napkin_series_get_length (self->compare.raw) > 0;
  const char *labels[2];
  NapkinPlotColor colors[2] = { NAPKIN_PLOT_BLUE, NAPKIN_PLOT_ORANGE };
  g_autofree char *y_label = NULL;
  double legend_h;

  if (napkin_series_get_length (self->line.raw) == 0 && !have_compare)
    {
      napkin_plot_draw_empty (style, cr, width, height, _("The loss appears here once a run starts"));
      return;
    }

  if (napkin_series_get_y_bounds (self->line.raw, &a, &b))
    lo = MIN (lo, a), hi = MAX (hi, b);
  napkin_series_get_last (self->line.raw, &xmax, NULL);
  if (have_compare)
    {
      double cx;

      if (napkin_series_get_y_bounds (self->compare.raw, &a, &b))
        lo = MIN (lo, a), hi = MAX (hi, b);
      if (napkin_series_get_last (self->compare.raw, &cx, NULL))
        xmax = MAX (xmax, cx);
    }
  if (self->log_scale && !(lo > 0))
    {
      /* A zero loss has no place on a log axis: start at the least positive one. */
      lo = hi / 1e6;
    }

  /* legend */
  labels[0] = self->label != NULL ? self->label : _("This run");
  labels[1] = self->compare_label != NULL ? self->compare_label : _("Compared run");
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, NULL, have_compare ? 2 : 1);

  napkin_plot_frame_set_x_range (&frame, MIN (1, xmax), MAX (xmax, 2));
  napkin_plot_frame_set_y_range (&frame, lo, hi, self->log_scale, !self->log_scale);
  napkin_plot_frame_place (&frame, style, cr, width, height, legend_h + 8,
                           napkin_plot_format_plain);
  y_label = g_strdup (self->log_scale ? _("Loss (log scale)") : _("Loss"));
  napkin_plot_draw_axes (style, cr, &frame, _("Step"), y_label, napkin_plot_format_plain);

  if (have_compare)
    {
      gboolean smooth = self->smoothing > 0;

      napkin_plot_draw_series (style, cr, &frame, self->compare.raw, NAPKIN_PLOT_ORANGE,
                               smooth ? 0.35 : 1, 1.5);
      if (smooth)
        napkin_plot_draw_series (style, cr, &frame, self->compare.smooth, NAPKIN_PLOT_ORANGE, 1, 2);
    }
  if (self->smoothing > 0)
    {
      napkin_plot_draw_series (style, cr, &frame, self->line.raw, NAPKIN_PLOT_BLUE, 0.35, 1.5);
      napkin_plot_draw_series (style, cr, &frame, self->line.smooth, NAPKIN_PLOT_BLUE, 1, 2);
    }
  else
    napkin_plot_draw_series (style, cr, &frame, self->line.raw, NAPKIN_PLOT_BLUE, 1, 1.5);

  if (hover_x >= frame.left && hover_x <= frame.left + frame.width)
    {
      g_autofree char *text = napkin_loss_plot_dup_readout (self, napkin_plot_frame_px_to_x (&frame, hover_x));

      if (text != NULL)
        napkin_plot_draw_readout (style, cr, &frame, hover_x, text);
    }
}

static void
napkin_loss_plot_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  NapkinLossPlot *self = NAPKIN_LOSS_PLOT (object);

  switch (prop_id)
    {
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, self->log_scale);
      break;
    case PROP_SMOOTHING:
      g_value_set_double (value, self->smoothing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_loss_plot_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  NapkinLossPlot *self = NAPKIN_LOSS_PLOT (object);

  switch (prop_id)
    {
    case PROP_LOG_SCALE:
      napkin_loss_plot_set_log_scale (self, g_value_get_boolean (value));
      break;
    case PROP_SMOOTHING:
      napkin_loss_plot_set_smoothing (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_loss_plot_finalize (GObject *object)
{
  NapkinLossPlot *self = NAPKIN_LOSS_PLOT (object);

  line_clear (&self->line);
  line_clear (&self->compare);
  g_free (self->label);
  g_free (self->compare_label);

  G_OBJECT_CLASS (napkin_loss_plot_parent_class)->finalize (object);
}

static void
napkin_loss_plot_class_init (NapkinLossPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->finalize = napkin_loss_plot_finalize;
  object_class->get_property = napkin_loss_plot_get_property;
  object_class->set_property = napkin_loss_plot_set_property;

  properties[PROP_LOG_SCALE] =
    g_param_spec_boolean ("log-scale", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SMOOTHING] =
    g_param_spec_double ("smoothing", NULL, NULL, 0.0, 0.999, 0.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "napkin-loss-plot");
  plot_class->draw = draw;
  plot_class->min_height = 180;
  plot_class->natural_height = 260;
  plot_class->natural_width = 640;
}

static void
napkin_loss_plot_init (NapkinLossPlot *self)
{
  line_init (&self->line);
  update_accessible (self);
}

GtkWidget *
napkin_loss_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_LOSS_PLOT, NULL);
}

/**
 * napkin_loss_plot_append:
 * @self: a loss plot
 * @step: the step (x), not less than the last one
 * @loss: its loss; NaN or infinite values are kept and leave a gap
 *
 * Adds one point of this run.
 */
void
napkin_loss_plot_append (NapkinLossPlot *self,
                         double          step,
                         double          loss)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));

  napkin_series_append (self->line.raw, step, loss);
  line_smooth_one (&self->line, self->smoothing, step, loss);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Forgets this run's points (the compared run stays). */
void
napkin_loss_plot_clear (NapkinLossPlot *self)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));

  napkin_series_clear (self->line.raw);
  line_resmooth (&self->line, self->smoothing);
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_loss_plot_get_series:
 * @self: a loss plot
 *
 * Returns: (transfer none): every (step, loss) point of this run
 */
NapkinSeries *
napkin_loss_plot_get_series (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), NULL);
  return self->line.raw;
}

/**
 * napkin_loss_plot_get_smoothed:
 * @self: a loss plot
 *
 * Returns: (transfer none): the smoothed line drawn over the raw one
 */
NapkinSeries *
napkin_loss_plot_get_smoothed (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), NULL);
  return self->line.smooth;
}

void
napkin_loss_plot_set_label (NapkinLossPlot *self,
                            const char     *label)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  if (g_strcmp0 (self->label, label) == 0)
    return;
  g_free (self->label);
  self->label = g_strdup (label);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_loss_plot_set_compare:
 * @self: a loss plot
 * @series: (nullable): another run's (step, loss) points, or %NULL for none
 * @label: (nullable): its legend text
 *
 * Draws another run on the same axes. The series is shared, not copied.
 */
void
napkin_loss_plot_set_compare (NapkinLossPlot *self,
                              NapkinSeries   *series,
                              const char     *label)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));

  line_clear (&self->compare);
  g_clear_pointer (&self->compare_label, g_free);
  if (series != NULL)
    {
      self->compare.raw = napkin_series_ref (series);
      self->compare.smooth = napkin_series_new ();
      line_resmooth (&self->compare, self->smoothing);
      self->compare_label = g_strdup (label);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_loss_plot_get_compare:
 * @self: a loss plot
 *
 * Returns: (transfer none) (nullable): the compared run's points
 */
NapkinSeries *
napkin_loss_plot_get_compare (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), NULL);
  return self->compare.raw;
}

gboolean
napkin_loss_plot_get_log_scale (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), FALSE);
  return self->log_scale;
}

void
napkin_loss_plot_set_log_scale (NapkinLossPlot *self,
                                gboolean        log_scale)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  log_scale = !!log_scale;
  if (self->log_scale == log_scale)
    return;
  self->log_scale = log_scale;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_SCALE]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

double
napkin_loss_plot_get_smoothing (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), 0);
  return self->smoothing;
}

/**
 * napkin_loss_plot_set_smoothing:
 * @self: a loss plot
 * @smoothing: the moving average's weight of the past, 0 (off) to 0.999
 *
 * Recomputes the smoothed lines from every raw point.
 */
void
napkin_loss_plot_set_smoothing (NapkinLossPlot *self,
                                double          smoothing)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  smoothing = CLAMP (smoothing, 0.0, 0.999);
  if (self->smoothing == smoothing)
    return;
  self->smoothing = smoothing;
  line_resmooth (&self->line, smoothing);
  if (self->compare.raw != NULL)
    line_resmooth (&self->compare, smoothing);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SMOOTHING]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
nearest (NapkinSeries *series,
         double        step,
         double       *out_x,
         double       *out_y)
{
  guint n = series != NULL ? napkin_series_get_length (series) : 0;
  guint i;

  if (n == 0)
    return FALSE;
  i = napkin_series_lower_bound (series, step);
  if (i == n || (i > 0 && step - napkin_series_get_x (series, i - 1) < napkin_series_get_x (series, i) - step))
    i = i > 0 ? i - 1 : 0;
  *out_x = napkin_series_get_x (series, i);
  *out_y = napkin_series_get_y (series, i);
  return TRUE;
}

/**
 * napkin_loss_plot_dup_readout:
 * @self: a loss plot
 * @step: where the pointer is, in steps
 *
 * Returns: (transfer full) (nullable): the hover text for the nearest step
 */
char *
napkin_loss_plot_dup_readout (NapkinLossPlot *self,
                              double          step)
{
  GString *text = g_string_new (NULL);
  double x, y;

  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), NULL);

  if (nearest (self->line.raw, step, &x, &y))
    {
      g_string_append_printf (text, _("Step %.0f: loss %.6g"), x, y);
      if (self->smoothing > 0 && nearest (self->line.smooth, step, &x, &y))
        g_string_append_printf (text, _(" (smoothed %.6g)"), y);
    }
  if (nearest (self->compare.raw, step, &x, &y))
    {
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, _("%s, step %.0f: loss %.6g"),
                              self->compare_label != NULL ? self->compare_label : _("Compared run"),
                              x, y);
    }
  if (text->len == 0)
    {
      g_string_free (text, TRUE);
      return NULL;
    }
  return g_string_free (text, FALSE);
}

