/* napkin-loss-plot.c: loss against step, raw and smoothed, with a run to compare
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The plot is bound to a run's loss series (#NapkinLossPlot:series) and draws it
 * decimated per pixel column, redrawing when the series changes. Smoothing is presentation only: an exponential moving average
 * (debiased, as TensorBoard's) drawn on top of the raw line, which stays visible
 * underneath, so smoothing never hides a point. A second run (the lecture's
 * "lr 0.01 vs 0.1") can share the axes. Across wall time, a run compared with a
 * plan gets a dashed mark at the time the plan says its latest tokens take
 * (nk_import_prediction_seconds_for_tokens()): the line ending right of the mark
 * is a run behind its plan.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-loss-plot.h"
#include "napkin-pace-plot.h"
#include "napkin-run-axis.h"

typedef struct {
  NapkinSeries *raw;       /* the bound model */
  NapkinSeries *smooth;    /* derived from it, the plot's own */
  gulong        changed_id;
  double        ema;
  double        weight;   /* 1 - smoothing^t, for the debiasing */
  /* another x axis than the step: the run's (step, x) map (the model's) and
   * the raw and smoothed points moved onto it (the plot's own) */
  NapkinSeries *map;
  gulong        map_changed_id;
  NapkinSeries *shown_raw;
  NapkinSeries *shown_smooth;
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
  NapkinXAxis x_axis;
  gboolean   log_x;
  double     plan_time;
};

G_DEFINE_FINAL_TYPE (NapkinLossPlot, napkin_loss_plot, NAPKIN_TYPE_PLOT)

enum {
  PROP_0,
  PROP_SERIES,
  PROP_COMPARE,
  PROP_LOG_SCALE,
  PROP_SMOOTHING,
  PROP_LOG_X,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
line_clear_map (Line *line)
{
  if (line->map != NULL)
    g_clear_signal_handler (&line->map_changed_id, line->map);
  g_clear_object (&line->map);
  g_clear_object (&line->shown_raw);
  g_clear_object (&line->shown_smooth);
}

static void
line_remap (Line *line)
{
  if (line->map == NULL || line->raw == NULL)
    return;
  if (line->shown_raw == NULL)
    {
      line->shown_raw = napkin_series_new ();
      line->shown_smooth = napkin_series_new ();
    }
  napkin_series_remap (line->shown_raw, line->raw, line->map);
  napkin_series_remap (line->shown_smooth, line->smooth, line->map);
}

/* What is drawn: the points on the step axis, or moved onto another. */
static NapkinSeries *
line_shown (Line     *line,
            gboolean  smoothed)
{
  if (line->map != NULL)
    return smoothed ? line->shown_smooth : line->shown_raw;
  return smoothed ? line->smooth : line->raw;
}

static void
line_clear (Line *line)
{
  if (line->raw != NULL)
    g_clear_signal_handler (&line->changed_id, line->raw);
  g_clear_object (&line->raw);
  g_clear_object (&line->smooth);
  line->ema = line->weight = 0;
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

  if (line->smooth == NULL)
    return;
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

  if (self->line.raw != NULL && napkin_series_get_last (self->line.raw, &step, &loss))
    text = g_strdup_printf (_("Loss plot: %u steps, last loss %.6g at step %.0f"),
                            napkin_series_get_length (self->line.raw), loss, step);
  else
    text = g_strdup (_("Loss plot: no steps yet"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

/* A line that has points, but none on the chosen x axis: the run lacks what it needs. */
static gboolean
line_missing (NapkinLossPlot *self,
              Line           *line)
{
  return self->x_axis != NAPKIN_X_AXIS_STEP && line->map == NULL;
}

static gboolean
line_has_points (Line *line)
{
  return line->raw != NULL && napkin_series_get_length (line->raw) > 0;
}

/* Widens [*lo, *hi] and [*x_lo, *x_hi] to take @line's points. */
static void
line_bounds (NapkinLossPlot *self,
             Line           *line,
             double         *lo,
             double         *hi,
             double         *x_lo,
             double         *x_hi)
{
  NapkinSeries *shown = line_shown (line, FALSE);
  guint n = napkin_series_get_length (shown);
  double a, b;

  if (n == 0)
    return;
  if (napkin_series_get_y_bounds (shown, &a, &b))
    *lo = MIN (*lo, a), *hi = MAX (*hi, b);
  *x_hi = MAX (*x_hi, napkin_series_get_x (shown, n - 1));
  /* the least x a log axis can show */
  for (guint i = 0; i < n; i++)
    if (napkin_series_get_x (shown, i) > 0)
      {
        *x_lo = MIN (*x_lo, napkin_series_get_x (shown, i));
        break;
      }
}

static NapkinPlotFormatFunc
x_format (NapkinXAxis axis)
{
  switch (axis)
    {
    case NAPKIN_X_AXIS_TOKENS:
    case NAPKIN_X_AXIS_FLOPS:
      return napkin_plot_format_count;
    case NAPKIN_X_AXIS_TIME:
      return napkin_pace_plot_format_time;
    case NAPKIN_X_AXIS_RELATIVE:
      return napkin_plot_format_fraction;
    case NAPKIN_X_AXIS_STEP:
    case NAPKIN_N_X_AXES:
    default:
      return NULL;
    }
}

static void
set_x_range (NapkinLossPlot  *self,
             NapkinPlotFrame *frame,
             double           x_lo,
             double           x_hi)
{
  frame->x_format = x_format (self->x_axis);
  if (self->log_x)
    napkin_plot_frame_set_log_x_range (frame, x_lo, x_hi);
  else if (self->x_axis == NAPKIN_X_AXIS_STEP)
    napkin_plot_frame_set_x_range (frame, MIN (1, x_hi), MAX (x_hi, 2));
  else
    napkin_plot_frame_set_x_range (frame, 0, x_hi > 0 ? x_hi : 1);
}

/* With smoothing: the spread of the raw points as a tinted band (the envelope),
 * a sparse raw line over it, the smoothed line on top. */
static void
draw_line (NapkinLossPlot        *self,
           Line                  *line,
           cairo_t               *cr,
           const NapkinPlotFrame *frame,
           const NapkinPlotStyle *style,
           NapkinPlotColor        color)
{
  NapkinSeries *raw = line_shown (line, FALSE);

  if (self->smoothing > 0)
    {
      napkin_plot_draw_envelope (style, cr, frame, raw, color, 0.25);
      if (napkin_series_get_length (raw) <= frame->width)
        napkin_plot_draw_series (style, cr, frame, raw, color, 0.35, 1.5);
      napkin_plot_draw_series (style, cr, frame, line_shown (line, TRUE), color, 1, 2);
    }
  else
    napkin_plot_draw_series (style, cr, frame, raw, color, 1, 1.5);
}

static char *
dup_missing_label (NapkinLossPlot *self,
                   const char     *label)
{
  /* Translators: a run's legend entry on an x axis its log cannot give, then why */
  return g_strdup_printf (_("%s: %s"), label, napkin_x_axis_get_missing (self->x_axis));
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
  double lo = INFINITY, hi = -INFINITY, x_lo = INFINITY, x_hi = 0;
  gboolean have_line = line_has_points (&self->line) && !line_missing (self, &self->line);
  gboolean have_compare = line_has_points (&self->compare) && !line_missing (self, &self->compare);
  const char *labels[3];
  NapkinPlotColor colors[3] = { NAPKIN_PLOT_BLUE, NAPKIN_PLOT_ORANGE, NAPKIN_PLOT_PURPLE };
  gboolean dashed[3] = { FALSE, FALSE, TRUE };
  gboolean plan_shown = have_line && self->x_axis == NAPKIN_X_AXIS_TIME
                        && isfinite (self->plan_time) && self->plan_time >= 0;
  guint n_labels;
  g_autofree char *line_note = NULL;
  g_autofree char *compare_note = NULL;
  g_autofree char *x_label = NULL;
  double legend_h;

  if (!have_line && !have_compare)
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              line_has_points (&self->line) ? napkin_x_axis_get_missing (self->x_axis)
                              : _("The loss appears here once a run starts"));
      return;
    }

  if (have_line)
    line_bounds (self, &self->line, &lo, &hi, &x_lo, &x_hi);
  if (have_compare)
    line_bounds (self, &self->compare, &lo, &hi, &x_lo, &x_hi);
  if (plan_shown)
    x_hi = MAX (x_hi, self->plan_time);
  if (self->log_scale && !(lo > 0))
    {
      /* A zero loss has no place on a log axis: start at the least positive one. */
      lo = hi / 1e6;
    }

  /* legend: a run left off the axis says why */
  labels[0] = self->label != NULL ? self->label : _("This run");
  labels[1] = self->compare_label != NULL ? self->compare_label : _("Compared run");
  if (line_has_points (&self->line) && !have_line)
    labels[0] = line_note = dup_missing_label (self, labels[0]);
  if (line_has_points (&self->compare) && !have_compare)
    labels[1] = compare_note = dup_missing_label (self, labels[1]);
  n_labels = line_has_points (&self->compare) ? 2 : 1;
  if (plan_shown)
    {
      colors[n_labels] = NAPKIN_PLOT_PURPLE;
      dashed[n_labels] = TRUE;
      labels[n_labels++] = _("Plan’s time for these tokens");
    }
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, dashed, n_labels);

  set_x_range (self, &frame, x_lo, x_hi);
  napkin_plot_frame_set_y_range (&frame, lo, hi, self->log_scale, !self->log_scale);
  napkin_plot_frame_place (&frame, style, cr, width, height, legend_h + 8,
                           napkin_plot_format_plain);
  x_label = self->log_x ? g_strdup_printf (_("%s (log scale)"), napkin_x_axis_get_title (self->x_axis))
                        : g_strdup (napkin_x_axis_get_title (self->x_axis));
  napkin_plot_draw_axes (style, cr, &frame, x_label,
                         self->log_scale ? _("Loss (log scale)") : _("Loss"), napkin_plot_format_plain);

  if (have_compare)
    draw_line (self, &self->compare, cr, &frame, style, NAPKIN_PLOT_ORANGE);
  if (have_line)
    draw_line (self, &self->line, cr, &frame, style, NAPKIN_PLOT_BLUE);
  if (plan_shown)
    napkin_plot_draw_vline (style, cr, &frame, self->plan_time, NAPKIN_PLOT_PURPLE, 1.5,
                            (const double[]) { 6, 4 });
  napkin_plot_set_frame (plot, &frame);

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
    case PROP_SERIES:
      g_value_set_object (value, self->line.raw);
      break;
    case PROP_COMPARE:
      g_value_set_object (value, self->compare.raw);
      break;
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, self->log_scale);
      break;
    case PROP_SMOOTHING:
      g_value_set_double (value, self->smoothing);
      break;
    case PROP_LOG_X:
      g_value_set_boolean (value, self->log_x);
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
    case PROP_SERIES:
      napkin_loss_plot_set_series (self, g_value_get_object (value));
      break;
    case PROP_COMPARE:
      napkin_loss_plot_set_compare (self, g_value_get_object (value), self->compare_label);
      break;
    case PROP_LOG_SCALE:
      napkin_loss_plot_set_log_scale (self, g_value_get_boolean (value));
      break;
    case PROP_SMOOTHING:
      napkin_loss_plot_set_smoothing (self, g_value_get_double (value));
      break;
    case PROP_LOG_X:
      napkin_loss_plot_set_log_x (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_loss_plot_dispose (GObject *object)
{
  NapkinLossPlot *self = NAPKIN_LOSS_PLOT (object);

  line_clear (&self->line);
  line_clear (&self->compare);
  line_clear_map (&self->line);
  line_clear_map (&self->compare);

  G_OBJECT_CLASS (napkin_loss_plot_parent_class)->dispose (object);
}

static void
napkin_loss_plot_finalize (GObject *object)
{
  NapkinLossPlot *self = NAPKIN_LOSS_PLOT (object);

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

  object_class->dispose = napkin_loss_plot_dispose;
  object_class->finalize = napkin_loss_plot_finalize;
  object_class->get_property = napkin_loss_plot_get_property;
  object_class->set_property = napkin_loss_plot_set_property;

  /**
   * NapkinLossPlot:series: (nullable)
   *
   * The run's (step, loss) points, drawn in blue.
   */
  properties[PROP_SERIES] =
    g_param_spec_object ("series", NULL, NULL, NAPKIN_TYPE_SERIES,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinLossPlot:compare: (nullable)
   *
   * Another run's points on the same axes, in orange.
   */
  properties[PROP_COMPARE] =
    g_param_spec_object ("compare", NULL, NULL, NAPKIN_TYPE_SERIES,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOG_SCALE] =
    g_param_spec_boolean ("log-scale", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SMOOTHING] =
    g_param_spec_double ("smoothing", NULL, NULL, 0.0, 0.999, 0.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinLossPlot:log-x:
   *
   * The x axis in decades.
   */
  properties[PROP_LOG_X] =
    g_param_spec_boolean ("log-x", NULL, NULL, FALSE,
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
  self->plan_time = NAN;
  update_accessible (self);
}

GtkWidget *
napkin_loss_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_LOSS_PLOT, NULL);
}

/* The raw series changed: extend the smoothed line, or redo it when points went. */
static void
on_line_changed (NapkinSeries   *series,
                 guint           position,
                 guint           removed,
                 guint           added,
                 NapkinLossPlot *self)
{
  Line *line = series == self->line.raw ? &self->line : &self->compare;

  if (removed > 0 || position != napkin_series_get_length (line->smooth))
    line_resmooth (line, self->smoothing);
  else
    for (guint i = position; i < position + added; i++)
      line_smooth_one (line, self->smoothing, napkin_series_get_x (series, i),
                       napkin_series_get_y (series, i));
  line_remap (line);
  if (line == &self->line)
    update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
line_bind (NapkinLossPlot *self,
           Line           *line,
           NapkinSeries   *series)
{
  line_clear (line);
  if (series == NULL)
    return;
  line->raw = g_object_ref (series);
  line->smooth = napkin_series_new ();
  line_resmooth (line, self->smoothing);
  line_remap (line);
  line->changed_id = g_signal_connect (series, "changed", G_CALLBACK (on_line_changed), self);
}

/**
 * napkin_loss_plot_set_series:
 * @self: a loss plot
 * @series: (nullable): the run's (step, loss) points
 *
 * Binds the plot to @series: it draws what the series holds and redraws when it
 * changes. The series is shared, not copied.
 */
void
napkin_loss_plot_set_series (NapkinLossPlot *self,
                             NapkinSeries   *series)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  g_return_if_fail (series == NULL || NAPKIN_IS_SERIES (series));

  if (self->line.raw == series)
    return;
  line_bind (self, &self->line, series);
  update_accessible (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERIES]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_loss_plot_get_series:
 * @self: a loss plot
 *
 * Returns: (transfer none) (nullable): the bound (step, loss) points
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
 * Returns: (transfer none) (nullable): the smoothed line drawn over the raw one
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
 * Draws another run on the same axes, bound as #NapkinLossPlot:series is.
 */
void
napkin_loss_plot_set_compare (NapkinLossPlot *self,
                              NapkinSeries   *series,
                              const char     *label)
{
  g_autofree char *new_label = g_strdup (label);
  gboolean changed;

  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  g_return_if_fail (series == NULL || NAPKIN_IS_SERIES (series));

  changed = self->compare.raw != series;
  if (changed)
    line_bind (self, &self->compare, series);
  g_free (self->compare_label);
  self->compare_label = series != NULL ? g_steal_pointer (&new_label) : NULL;
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARE]);
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
  if (self->line.raw != NULL)
    line_resmooth (&self->line, smoothing);
  if (self->compare.raw != NULL)
    line_resmooth (&self->compare, smoothing);
  line_remap (&self->line);
  line_remap (&self->compare);
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

/* The hover text on another axis than the step: the x value, formatted as its ticks. */
static char *
dup_axis_readout (NapkinLossPlot *self,
                  double          at,
                  GString        *text)
{
  NapkinPlotFormatFunc format = x_format (self->x_axis);
  Line *lines[2] = { &self->line, &self->compare };
  double x, y;

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *value = NULL;

      if (lines[k]->map == NULL || !nearest (line_shown (lines[k], FALSE), at, &x, &y))
        continue;
      value = format (x);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      /* Translators: the x axis's title, its value there, the loss */
      g_string_append_printf (text, _("%s %s: loss %.6g"), napkin_x_axis_get_title (self->x_axis), value, y);
    }
  if (text->len == 0)
    {
      g_string_free (text, TRUE);
      return NULL;
    }
  return g_string_free (text, FALSE);
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

  if (self->x_axis != NAPKIN_X_AXIS_STEP)
    return dup_axis_readout (self, step, text);
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


/* The map changed (steps arrived, a plan came): the points move with it. */
static void
on_map_changed (NapkinSeries   *map,
                guint           position,
                guint           removed,
                guint           added,
                NapkinLossPlot *self)
{
  line_remap (map == self->line.map ? &self->line : &self->compare);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
line_set_map (NapkinLossPlot *self,
              Line           *line,
              NapkinSeries   *map)
{
  if (line->map == map && map != NULL)
    return;
  line_clear_map (line);
  if (map == NULL)
    return;
  line->map = g_object_ref (map);
  line->map_changed_id = g_signal_connect (map, "changed", G_CALLBACK (on_map_changed), self);
  line_remap (line);
}

/**
 * napkin_loss_plot_set_x_axis:
 * @self: a loss plot
 * @axis: what goes across
 * @map: (nullable): for another axis than the step, the run's (step, x) map
 *   (napkin_run_dup_x_map()); %NULL where the run lacks what @axis needs
 * @compare_map: (nullable): the compared run's
 *
 * Puts @axis across: each point moves to its step's x in its run's map. A run
 * without a map is not drawn; the plot says what it lacks.
 */
void
napkin_loss_plot_set_x_axis (NapkinLossPlot *self,
                             NapkinXAxis     axis,
                             NapkinSeries   *map,
                             NapkinSeries   *compare_map)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  g_return_if_fail (axis < NAPKIN_N_X_AXES);

  self->x_axis = axis;
  line_set_map (self, &self->line, axis == NAPKIN_X_AXIS_STEP ? NULL : map);
  line_set_map (self, &self->compare, axis == NAPKIN_X_AXIS_STEP ? NULL : compare_map);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

NapkinXAxis
napkin_loss_plot_get_x_axis (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), NAPKIN_X_AXIS_STEP);
  return self->x_axis;
}

/**
 * napkin_loss_plot_set_plan_time:
 * @self: a loss plot
 * @seconds: the wall time the run's plan gives its latest tokens
 *   (nk_import_prediction_seconds_for_tokens()); NAN: no plan
 *
 * Across wall time, marks @seconds with a dashed line named in the legend.
 */
void
napkin_loss_plot_set_plan_time (NapkinLossPlot *self,
                                double          seconds)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  if (self->plan_time == seconds || (isnan (self->plan_time) && isnan (seconds)))
    return;
  self->plan_time = seconds;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Returns: the plan's time the plot marks, NAN when none */
double
napkin_loss_plot_get_plan_time (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), NAN);
  return self->plan_time;
}

gboolean
napkin_loss_plot_get_log_x (NapkinLossPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_LOSS_PLOT (self), FALSE);
  return self->log_x;
}

void
napkin_loss_plot_set_log_x (NapkinLossPlot *self,
                            gboolean        log_x)
{
  g_return_if_fail (NAPKIN_IS_LOSS_PLOT (self));
  log_x = !!log_x;
  if (self->log_x == log_x)
    return;
  self->log_x = log_x;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_X]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
