/* napkin-memory-plot.c: device memory by bucket over the steps, stacked
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the device's per-bucket counters said after each step, as a stacked area
 * (parameters at the bottom, then gradients, optimizer state, activations, data),
 * the planner's prediction for the same run as dashed lines at the cumulative
 * heights where each predicted bucket would end, and the device's capacity when
 * it is near enough to share the scale (a CPU's RAM dwarfs a toy run: it is then
 * named in the legend instead). With more steps than pixels each column shows
 * its largest bytes per bucket.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-memory-plot.h"

#define MAX_COLUMNS 8192
/* The capacity line is drawn when it is at most this many times the data. */
#define CAPACITY_ON_SCALE 4.0

struct _NapkinMemoryPlot
{
  GtkWidget     parent_instance;

  NapkinSeries *series[NAPKIN_MEMORY_PLOT_N_BUCKETS];
  double        predicted[NAPKIN_MEMORY_PLOT_N_PREDICTED];
  double        capacity;
};

G_DEFINE_FINAL_TYPE (NapkinMemoryPlot, napkin_memory_plot, NAPKIN_TYPE_PLOT)

static const NapkinPlotColor bucket_colors[NAPKIN_MEMORY_PLOT_N_BUCKETS] = {
  NAPKIN_PLOT_BLUE, NAPKIN_PLOT_GREEN, NAPKIN_PLOT_YELLOW, NAPKIN_PLOT_PURPLE, NAPKIN_PLOT_BROWN,
};

static const char *bucket_names[NAPKIN_MEMORY_PLOT_N_BUCKETS] = {
  N_("Parameters"), N_("Gradients"), N_("Optimizer state"), N_("Activations"), N_("Data"),
};

/* The stack's vertices: every point when they fit, else each column's maxima. */
static guint
stack_vertices (NapkinMemoryPlot      *self,
                const NapkinPlotFrame *frame,
                double                *vx,
                double               **vals)
{
  guint n = napkin_series_get_length (self->series[0]);
  guint columns = (guint) CLAMP (ceil (frame->width), 1, MAX_COLUMNS);

  if (n <= columns)
    {
      for (guint i = 0; i < n; i++)
        {
          vx[i] = napkin_plot_frame_x_to_px (frame, napkin_series_get_x (self->series[0], i));
          for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
            vals[b][i] = napkin_series_get_y (self->series[b], i);
        }
      return n;
    }
  else
    {
      g_autofree double *mins = g_new (double, columns);
      guint m = 0;

      for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
        napkin_series_decimate (self->series[b], frame->x0, frame->x1, columns, mins, vals[b]);
      /* keep the columns that hold points, packed */
      for (guint c = 0; c < columns; c++)
        {
          if (isnan (vals[0][c]))
            continue;
          vx[m] = frame->left + (c + 0.5) * frame->width / columns;
          for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
            vals[b][m] = isnan (vals[b][c]) ? 0 : vals[b][c];
          m++;
        }
      return m;
    }
}

/* NapkinPlotClass.describe: each bucket at the last step, as the stack shows it,
 * and the device's memory when it is known. */
static char *
describe (NapkinPlot *plot)
{
  NapkinMemoryPlot *self = NAPKIN_MEMORY_PLOT (plot);
  GString *text;
  double step;

  if (self->series[0] == NULL || !napkin_series_get_last (self->series[0], &step, NULL))
    return NULL;
  text = g_string_new (NULL);
  g_string_append_printf (text, _("At step %.0f:"), step);
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    {
      double y;
      g_autofree char *bytes = NULL;

      if (self->series[b] == NULL || !napkin_series_get_last (self->series[b], NULL, &y))
        continue;
      bytes = napkin_plot_format_bytes (y);
      g_string_append_printf (text, " %s %s;", _(bucket_names[b]), bytes);
    }
  if (isfinite (self->capacity) && self->capacity > 0)
    {
      g_autofree char *bytes = napkin_plot_format_bytes (self->capacity);

      g_string_append_printf (text, " ");
      g_string_append_printf (text, _("device memory %s"), bytes);
    }
  else if (text->str[text->len - 1] == ';')
    g_string_truncate (text, text->len - 1);
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
  NapkinMemoryPlot *self = NAPKIN_MEMORY_PLOT (plot);
  double hover_x = napkin_plot_get_hover_x (plot);
  NapkinPlotFrame frame = { 0 };
  guint n = self->series[0] != NULL ? napkin_series_get_length (self->series[0]) : 0;
  double top = 0, predicted_top = 0, xmax = 1;
  gboolean capacity_on_scale;
  const char *labels[NAPKIN_MEMORY_PLOT_N_BUCKETS + 2];
  NapkinPlotColor colors[NAPKIN_MEMORY_PLOT_N_BUCKETS + 2];
  gboolean dashed[NAPKIN_MEMORY_PLOT_N_BUCKETS + 2] = { 0 };
  g_autofree char *capacity_label = NULL;
  guint n_labels = 0, m, hovered;
  double legend_h;
  g_autofree double *vx = NULL;
  double *vals[NAPKIN_MEMORY_PLOT_N_BUCKETS];
  g_autofree double *base = NULL;

  if (n == 0)
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              _("Memory by bucket appears here once a run starts"));
      return;
    }

  /* The tallest stack: each bucket's largest value (every bucket is flat in steady
   * state, so the sum of maxima is the stack's top up to a few bytes). */
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    {
      double lo, hi;

      if (napkin_series_get_y_bounds (self->series[b], &lo, &hi))
        top += hi;
    }
  for (guint p = 0; p < NAPKIN_MEMORY_PLOT_N_PREDICTED; p++)
    if (isfinite (self->predicted[p]))
      predicted_top += self->predicted[p];
  top = MAX (top, predicted_top);
  capacity_on_scale = isfinite (self->capacity) && self->capacity > 0
                      && self->capacity <= CAPACITY_ON_SCALE * MAX (top, 1);
  if (capacity_on_scale)
    top = MAX (top, self->capacity);
  napkin_series_get_last (self->series[0], &xmax, NULL);

  /* legend */
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    {
      labels[n_labels] = _(bucket_names[b]);
      colors[n_labels++] = bucket_colors[b];
    }
  labels[n_labels] = _("Predicted");
  dashed[n_labels] = TRUE;
  colors[n_labels++] = NAPKIN_PLOT_BLUE;
  if (isfinite (self->capacity) && self->capacity > 0)
    {
      g_autofree char *bytes = napkin_plot_format_bytes (self->capacity);

      capacity_label = capacity_on_scale
                       ? g_strdup_printf (_("Device memory %s"), bytes)
                       : g_strdup_printf (_("Device memory %s (off scale)"), bytes);
      labels[n_labels] = capacity_label;
      dashed[n_labels] = TRUE;
      colors[n_labels++] = NAPKIN_PLOT_RED;
    }
  legend_h = napkin_plot_draw_legend (style, cr, 0, 0, width, labels, colors, dashed, n_labels);

  napkin_plot_frame_set_x_range (&frame, MIN (1, xmax), MAX (xmax, 2));
  napkin_plot_frame_set_y_range (&frame, 0, top * 1.05, FALSE, TRUE);
  napkin_plot_draw_frame (&frame, style, cr, width, height, legend_h + 8,
                          _("Step"), _("Bytes on the device"), napkin_plot_format_bytes);

  /* the stacked areas */
  {
    guint cap = MAX (n, (guint) CLAMP (ceil (frame.width), 1, MAX_COLUMNS));

    vx = g_new (double, cap);
    base = g_new0 (double, cap);
    for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
      vals[b] = g_new (double, cap);
    m = stack_vertices (self, &frame, vx, vals);
  }
  cairo_save (cr);
  cairo_rectangle (cr, frame.left, frame.top, frame.width, frame.height);
  cairo_clip (cr);
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS && m > 0; b++)
    {
      /* A single vertex still shows as a thin band one pixel wide. */
      double w = m == 1 ? 1.5 : 0;

      cairo_move_to (cr, vx[0] - w, napkin_plot_frame_y_to_px (&frame, base[0]));
      for (guint i = 0; i < m; i++)
        cairo_line_to (cr, vx[i] + (i + 1 == m ? w : 0),
                       napkin_plot_frame_y_to_px (&frame, base[i] + (isfinite (vals[b][i]) ? vals[b][i] : 0)));
      if (m == 1)
        cairo_line_to (cr, vx[0] - w,
                       napkin_plot_frame_y_to_px (&frame, base[0] + (isfinite (vals[b][0]) ? vals[b][0] : 0)));
      for (guint i = m; i-- > 0; )
        cairo_line_to (cr, vx[i] + (m == 1 ? w : 0), napkin_plot_frame_y_to_px (&frame, base[i]));
      cairo_close_path (cr);
      napkin_plot_style_set_color (style, cr, bucket_colors[b], 0.55);
      cairo_fill_preserve (cr);
      napkin_plot_style_set_color (style, cr, bucket_colors[b], 1);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      for (guint i = 0; i < m; i++)
        base[i] += isfinite (vals[b][i]) ? vals[b][i] : 0;
    }
  cairo_restore (cr);
  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    g_free (vals[b]);

  /* predictions, cumulative like the stack */
  {
    double cumulative = 0;

    for (guint p = 0; p < NAPKIN_MEMORY_PLOT_N_PREDICTED; p++)
      {
        if (!isfinite (self->predicted[p]))
          continue;
        cumulative += self->predicted[p];
        napkin_plot_draw_hline (style, cr, &frame, cumulative, bucket_colors[p], TRUE);
      }
  }
  if (capacity_on_scale)
    napkin_plot_draw_hline (style, cr, &frame, self->capacity, NAPKIN_PLOT_RED, TRUE);
  napkin_plot_set_frame (plot, &frame);

  if (napkin_plot_frame_hover_index (&frame, hover_x, self->series[0], &hovered))
    {
      GString *text = g_string_new (NULL);

      g_string_append_printf (text, _("Step %.0f"), napkin_series_get_x (self->series[0], hovered));
      for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
        {
          g_autofree char *bytes = napkin_plot_format_bytes (napkin_series_get_y (self->series[b], hovered));

          g_string_append_printf (text, "\n%s: %s", _(bucket_names[b]), bytes);
        }
      napkin_plot_draw_readout (style, cr, &frame, hover_x, text->str);
      g_string_free (text, TRUE);
    }
}

static void
napkin_memory_plot_dispose (GObject *object)
{
  NapkinMemoryPlot *self = NAPKIN_MEMORY_PLOT (object);

  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    napkin_plot_bind_series (NAPKIN_PLOT (self), &self->series[b], NULL);

  G_OBJECT_CLASS (napkin_memory_plot_parent_class)->dispose (object);
}

static void
napkin_memory_plot_class_init (NapkinMemoryPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->dispose = napkin_memory_plot_dispose;
  gtk_widget_class_set_css_name (widget_class, "napkin-memory-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 180;
  plot_class->natural_height = 240;
  plot_class->natural_width = 480;
}

static void
napkin_memory_plot_init (NapkinMemoryPlot *self)
{
  for (guint p = 0; p < NAPKIN_MEMORY_PLOT_N_PREDICTED; p++)
    self->predicted[p] = NAN;
  self->capacity = NAN;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Memory by bucket over the steps"), -1);
}

GtkWidget *
napkin_memory_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_MEMORY_PLOT, NULL);
}

/**
 * napkin_memory_plot_set_series:
 * @self: a memory plot
 * @series: (array fixed-size=5) (nullable): (step, bytes) of params, grads,
 *   optimizer, activations and data, of equal lengths, or %NULL for none
 *
 * Binds the plot to a run's five bucket series; it redraws when they change.
 */
void
napkin_memory_plot_set_series (NapkinMemoryPlot    *self,
                               NapkinSeries *const *series)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_PLOT (self));

  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    napkin_plot_bind_series (NAPKIN_PLOT (self), &self->series[b], series != NULL ? series[b] : NULL);
}

/**
 * napkin_memory_plot_get_series:
 * @self: a memory plot
 * @bucket: 0 params, 1 grads, 2 optimizer, 3 activations, 4 data
 *
 * Returns: (transfer none) (nullable): the bound (step, bytes) points of the bucket
 */
NapkinSeries *
napkin_memory_plot_get_series (NapkinMemoryPlot *self,
                               guint             bucket)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_PLOT (self), NULL);
  g_return_val_if_fail (bucket < NAPKIN_MEMORY_PLOT_N_BUCKETS, NULL);
  return self->series[bucket];
}

/**
 * napkin_memory_plot_set_predicted:
 * @self: a memory plot
 * @predicted: (array fixed-size=4) (nullable): nk-plan's bytes for params, grads,
 *   optimizer and activations, or %NULL for none
 */
void
napkin_memory_plot_set_predicted (NapkinMemoryPlot *self,
                                  const double     *predicted)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_PLOT (self));

  for (guint p = 0; p < NAPKIN_MEMORY_PLOT_N_PREDICTED; p++)
    self->predicted[p] = predicted != NULL ? predicted[p] : NAN;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

/* The device's memory in bytes (NAN: unknown). */
void
napkin_memory_plot_set_capacity (NapkinMemoryPlot *self,
                                 double            bytes)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_PLOT (self));
  self->capacity = bytes;
  napkin_plot_changed (NAPKIN_PLOT (self));
}

