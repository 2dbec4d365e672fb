/* napkin-pace-plot.c: time to tokens: a run's tokens seen against wall time beside its plan's line
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where a run is against where its plan says it should be: the measured line
 * joins the run's two x-axis maps (napkin-run-axis.h) at each step, its wall
 * time across and its tokens seen up; the plan's line is its tokens per second
 * times the time, from the origin (nk_import_prediction_tokens_after()). A dot
 * on the plan's line at the run's latest tokens marks when the plan reaches
 * them: the horizontal gap from it to the measured line's end is the time the
 * run is behind (right of the dot) or ahead. The plan's time to the run's token
 * target, when the plan has one, is said under the legend. Every figure is the
 * engine's; the plot only places them.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-pace-plot.h"
#include "napkin-run-axis.h"
#include "nk-units.h"

struct _NapkinPacePlot
{
  NapkinPlot          parent_instance;

  NapkinSeries       *time_map;     /* (step, seconds), the run's */
  NapkinSeries       *tokens_map;   /* (step, tokens), the run's */
  gulong              time_changed_id;
  gulong              tokens_changed_id;
  NapkinSeries       *measured;     /* (seconds, tokens), the plot's own */
  gboolean            dirty;
  NkImportPrediction  plan;
  gboolean            has_plan;
};

G_DEFINE_FINAL_TYPE (NapkinPacePlot, napkin_pace_plot, NAPKIN_TYPE_PLOT)

/* The two maps joined on the step: both are in order of step, one pass. */
static void
join_maps (NapkinPacePlot *self)
{
  guint n = self->time_map != NULL ? napkin_series_get_length (self->time_map) : 0;
  guint m = self->tokens_map != NULL ? napkin_series_get_length (self->tokens_map) : 0;
  guint j = 0;

  napkin_series_begin_update (self->measured);
  napkin_series_clear (self->measured);
  for (guint i = 0; i < n; i++)
    {
      double step = napkin_series_get_x (self->time_map, i);

      while (j < m && napkin_series_get_x (self->tokens_map, j) < step)
        j++;
      if (j < m && napkin_series_get_x (self->tokens_map, j) == step)
        napkin_series_append (self->measured, napkin_series_get_y (self->time_map, i),
                              napkin_series_get_y (self->tokens_map, j));
    }
  napkin_series_end_update (self->measured);
  self->dirty = FALSE;
}

/**
 * napkin_pace_plot_get_measured:
 * @self: a pace plot
 *
 * Returns: (transfer none): the run's (wall time, tokens seen) points the plot draws
 */
NapkinSeries *
napkin_pace_plot_get_measured (NapkinPacePlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_PACE_PLOT (self), NULL);
  if (self->dirty)
    join_maps (self);
  return self->measured;
}

/**
 * napkin_pace_plot_format_time:
 * @seconds: a tick of a wall-time axis
 *
 * The frame puts ticks at round numbers of seconds (200, 400, …): they stay
 * round in seconds below 10,000 s, then read in hours and days.
 *
 * Returns: (transfer full): "800 s", "5.56 h", "11.6 d"
 */
char *
napkin_pace_plot_format_time (double seconds)
{
  if (fabs (seconds) >= 1e6)
    return g_strdup_printf ("%.3g d", seconds / 86400);
  if (fabs (seconds) >= 1e4)
    return g_strdup_printf ("%.3g h", seconds / 3600);
  return g_strdup_printf ("%g s", seconds);
}

static gboolean
has_rate (NapkinPacePlot *self)
{
  return self->has_plan && isfinite (nk_import_prediction_tokens_after (&self->plan, 1));
}

/* NapkinPlotClass.describe: where the run is, where the plan would be, and the
 * plan's time to the target. */
static char *
describe (NapkinPlot *plot)
{
  NapkinPacePlot *self = NAPKIN_PACE_PLOT (plot);
  NapkinSeries *measured = napkin_pace_plot_get_measured (self);
  double seconds, tokens, target;
  g_autofree char *tokens_text = NULL;
  g_autofree char *took = NULL;
  g_autofree char *planned = NULL;
  GString *text;

  if (!has_rate (self) || !napkin_series_get_last (measured, &seconds, &tokens))
    return NULL;
  tokens_text = nk_units_format_sci (tokens, 3);
  took = nk_units_format_duration (seconds);
  planned = nk_units_format_duration (nk_import_prediction_seconds_for_tokens (&self->plan, tokens));
  text = g_string_new (NULL);
  /* Translators: tokens seen, then two durations */
  g_string_append_printf (text, _("%s tokens seen after %s; the plan reaches them after %s"),
                          tokens_text, took, planned);
  target = nk_import_prediction_get_target_seconds (&self->plan);
  if (isfinite (target))
    {
      g_autofree char *target_tokens = nk_units_format_sci (self->plan.target_tokens, 3);
      g_autofree char *target_time = nk_units_format_duration (target);

      g_string_append (text, "; ");
      g_string_append_printf (text, _("the plan reaches the run’s %s tokens after %s"), target_tokens, target_time);
    }
  return g_string_free (text, FALSE);
}

/* The legend, and under it the dot's meaning and the plan's time to the
 * target; returns their height. */
static double
draw_legend (NapkinPacePlot        *self,
             const NapkinPlotStyle *style,
             cairo_t               *cr,
             int                    width,
             double                 seconds,
             double                 tokens)
{
  static const NapkinPlotColor colors[2] = { NAPKIN_PLOT_GREEN, NAPKIN_PLOT_PURPLE };
  static const gboolean dashed[2] = { FALSE, TRUE };
  double target = nk_import_prediction_get_target_seconds (&self->plan);
  g_autofree char *rate = nk_units_format_sci (self->plan.tokens_per_s, 3);
  g_autofree char *plan_label = g_strdup_printf (_("Plan: %s tokens/s"), rate);
  const char *labels[2] = { _("Measured"), plan_label };
  double h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, dashed, 2);
  g_autofree char *tokens_text = nk_units_format_sci (tokens, 3);
  g_autofree char *planned = nk_units_format_duration (nk_import_prediction_seconds_for_tokens (&self->plan, tokens));
  g_autofree char *took = nk_units_format_duration (seconds);
  /* Translators: ● is the dot drawn on the plan's line; tokens, then two durations */
  g_autofree char *now = g_strdup_printf (_("● The plan reaches the run’s %s tokens after %s; the run took %s."),
                                          tokens_text, planned, took);
  g_autofree char *text = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  int w, lh;

  if (isfinite (target))
    {
      g_autofree char *target_tokens = nk_units_format_sci (self->plan.target_tokens, 3);
      g_autofree char *target_time = nk_units_format_duration (target);

      /* Translators: the run's token target, then a duration */
      text = g_strdup_printf (_("%s Its target, %s tokens, after %s."), now, target_tokens, target_time);
    }
  layout = napkin_plot_layout (style, cr, text != NULL ? text : now, TRUE, FALSE);
  pango_layout_set_width (layout, width * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_get_pixel_size (layout, &w, &lh);
  napkin_plot_style_set_fg (style, cr, 0.75);
  cairo_move_to (cr, 0, h + 4);
  pango_cairo_show_layout (cr, layout);
  return h + 4 + lh;
}

static void
draw_readout (NapkinPacePlot        *self,
              const NapkinPlotStyle *style,
              cairo_t               *cr,
              const NapkinPlotFrame *frame,
              double                 hover_x)
{
  NapkinSeries *measured = self->measured;
  double seconds = napkin_plot_frame_px_to_x (frame, hover_x);
  guint n = napkin_series_get_length (measured);
  guint i = MIN (napkin_series_lower_bound (measured, seconds), n - 1);
  g_autofree char *time = nk_units_format_duration (seconds);
  g_autofree char *plan = nk_units_format_sci (nk_import_prediction_tokens_after (&self->plan, seconds), 3);
  g_autofree char *run = nk_units_format_sci (napkin_series_get_y (measured, i), 3);
  /* Translators: a time, then the plan's tokens and the run's at that time */
  g_autofree char *text = g_strdup_printf (_("%s: plan %s, run %s tokens"), time, plan, run);

  napkin_plot_draw_readout (style, cr, frame, hover_x, text);
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinPacePlot *self = NAPKIN_PACE_PLOT (plot);
  NapkinSeries *measured = napkin_pace_plot_get_measured (self);
  double hover_x = napkin_plot_get_hover_x (plot);
  NapkinPlotFrame frame = { 0 };
  double seconds, tokens, plan_seconds, x_hi, legend_h;

  if (!has_rate (self))
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              _("The plan’s tokens against time appear here with a plan that predicts a throughput"));
      return;
    }
  if (!napkin_series_get_last (measured, &seconds, &tokens))
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              self->time_map == NULL ? napkin_x_axis_get_missing (NAPKIN_X_AXIS_TIME)
                              : self->tokens_map == NULL ? napkin_x_axis_get_missing (NAPKIN_X_AXIS_TOKENS)
                              : _("The tokens seen appear here once the run logs a step"));
      return;
    }
  plan_seconds = nk_import_prediction_seconds_for_tokens (&self->plan, tokens);
  x_hi = MAX (seconds, plan_seconds);
  legend_h = draw_legend (self, style, cr, width, seconds, tokens);

  frame.x_format = napkin_pace_plot_format_time;
  napkin_plot_frame_set_x_range (&frame, 0, x_hi > 0 ? x_hi : 1);
  napkin_plot_frame_set_y_range (&frame, 0, MAX (tokens, nk_import_prediction_tokens_after (&self->plan, x_hi)),
                                 FALSE, TRUE);
  napkin_plot_frame_place (&frame, style, cr, width, height, legend_h + 8, napkin_plot_format_count);
  napkin_plot_draw_axes (style, cr, &frame, _("Wall time"), _("Tokens seen"), napkin_plot_format_count);
  napkin_plot_draw_segment (style, cr, &frame, 0, 0, frame.x1, nk_import_prediction_tokens_after (&self->plan, frame.x1),
                            NAPKIN_PLOT_PURPLE, 1, TRUE);
  napkin_plot_draw_series (style, cr, &frame, measured, NAPKIN_PLOT_GREEN, 1, 1.5);
  /* the plan's time for the run's latest tokens */
  napkin_plot_style_set_color (style, cr, NAPKIN_PLOT_PURPLE, 1);
  cairo_arc (cr, napkin_plot_frame_x_to_px (&frame, plan_seconds), napkin_plot_frame_y_to_px (&frame, tokens),
             4, 0, 2 * G_PI);
  cairo_fill (cr);
  napkin_plot_set_frame (plot, &frame);

  if (hover_x >= frame.left && hover_x <= frame.left + frame.width)
    draw_readout (self, style, cr, &frame, hover_x);
}

static void
on_map_changed (NapkinPacePlot *self)
{
  self->dirty = TRUE;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

static void
set_map (NapkinPacePlot  *self,
         NapkinSeries   **slot,
         gulong          *handler,
         NapkinSeries    *map)
{
  if (*slot != NULL)
    g_clear_signal_handler (handler, *slot);
  g_set_object (slot, map);
  if (map != NULL)
    *handler = g_signal_connect_swapped (map, "changed", G_CALLBACK (on_map_changed), self);
}

/**
 * napkin_pace_plot_set_maps:
 * @self: a pace plot
 * @time_map: (nullable): the run's (step, wall time) map, %NAPKIN_X_AXIS_TIME's
 * @tokens_map: (nullable): the run's (step, tokens seen) map, %NAPKIN_X_AXIS_TOKENS's
 *
 * Binds the plot to a run's maps (napkin_run_dup_x_map()); it redraws as they
 * follow the run.
 */
void
napkin_pace_plot_set_maps (NapkinPacePlot *self,
                           NapkinSeries   *time_map,
                           NapkinSeries   *tokens_map)
{
  g_return_if_fail (NAPKIN_IS_PACE_PLOT (self));
  g_return_if_fail (time_map == NULL || NAPKIN_IS_SERIES (time_map));
  g_return_if_fail (tokens_map == NULL || NAPKIN_IS_SERIES (tokens_map));

  if (self->time_map == time_map && self->tokens_map == tokens_map)
    return;
  set_map (self, &self->time_map, &self->time_changed_id, time_map);
  set_map (self, &self->tokens_map, &self->tokens_changed_id, tokens_map);
  on_map_changed (self);
}

/**
 * napkin_pace_plot_set_plan:
 * @self: a pace plot
 * @plan: (nullable): the prediction the run is compared with, copied; %NULL: none
 */
void
napkin_pace_plot_set_plan (NapkinPacePlot           *self,
                           const NkImportPrediction *plan)
{
  g_return_if_fail (NAPKIN_IS_PACE_PLOT (self));

  self->has_plan = plan != NULL;
  if (plan != NULL)
    self->plan = *plan;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

static void
napkin_pace_plot_dispose (GObject *object)
{
  NapkinPacePlot *self = NAPKIN_PACE_PLOT (object);

  set_map (self, &self->time_map, &self->time_changed_id, NULL);
  set_map (self, &self->tokens_map, &self->tokens_changed_id, NULL);
  G_OBJECT_CLASS (napkin_pace_plot_parent_class)->dispose (object);
}

static void
napkin_pace_plot_finalize (GObject *object)
{
  NapkinPacePlot *self = NAPKIN_PACE_PLOT (object);

  g_clear_object (&self->measured);
  G_OBJECT_CLASS (napkin_pace_plot_parent_class)->finalize (object);
}

static void
napkin_pace_plot_class_init (NapkinPacePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->dispose = napkin_pace_plot_dispose;
  object_class->finalize = napkin_pace_plot_finalize;
  gtk_widget_class_set_css_name (widget_class, "napkin-pace-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 180;
  plot_class->natural_height = 220;
  plot_class->natural_width = 480;
}

static void
napkin_pace_plot_init (NapkinPacePlot *self)
{
  self->measured = napkin_series_new ();
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Tokens seen against wall time, beside the plan’s"), -1);
}

GtkWidget *
napkin_pace_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_PACE_PLOT, NULL);
}
