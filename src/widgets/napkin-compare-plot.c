/* napkin-compare-plot.c: several runs' loss, or their flushed or clipped shares, on one plot
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bound to a #NapkinRunCompare (the runs picked in Compare Runs) and one of its
 * quantities, the plot draws each run's line in the style the model gives it:
 * a colour per recipe and a dash pattern per run, so lines differ by more than
 * colour. The legend above shows each line's sample and label; where the plot
 * is wide enough, each recipe's name also stands right of where its lines end,
 * moved apart so names never overlap. The shares are drawn in per cent from 0.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-compare-plot.h"
#include "napkin-pace-plot.h"

#define LINE_WIDTH       2.0
#define SAMPLE_WIDTH     24.0
/* the end labels need this much room besides the plot's least width */
#define END_LABELS_WIDTH 460

G_STATIC_ASSERT (NAPKIN_RUN_COMPARE_N_COLORS == NAPKIN_PLOT_N_COLORS);

/* With round caps each dash grows by the line's width and each gap shrinks by
 * it: solid, dashed, dotted, dash-dotted. */
static const struct {
  double on_off[4];
  int    n;
} dashes[NAPKIN_RUN_COMPARE_N_DASHES] = {
  { { 0 }, 0 },
  { { 7, 6 }, 2 },
  { { 0, 5 }, 2 },
  { { 11, 5, 0, 5 }, 4 },
};

struct _NapkinComparePlot
{
  NapkinPlot             parent_instance;

  NapkinRunCompare      *model;
  NapkinCompareQuantity  what;
};

G_DEFINE_FINAL_TYPE (NapkinComparePlot, napkin_compare_plot, NAPKIN_TYPE_PLOT)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_QUANTITY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/**
 * napkin_compare_plot_get_dash:
 * @dash: a line's dash (napkin_run_compare_get_dash())
 * @out_n: (out): how many on and off lengths, 0 for a solid line
 *
 * Returns: (array length=out_n): the on and off lengths cairo draws @dash with
 */
const double *
napkin_compare_plot_get_dash (guint  dash,
                              int   *out_n)
{
  g_return_val_if_fail (dash < NAPKIN_RUN_COMPARE_N_DASHES, NULL);
  *out_n = dashes[dash].n;
  return dashes[dash].on_off;
}

static void
set_dash (cairo_t *cr,
          guint    dash)
{
  int n = 0;
  const double *on_off = napkin_compare_plot_get_dash (dash, &n);

  cairo_set_dash (cr, n > 0 ? on_off : NULL, n, 0);
}

/* ------------------------------------------------------------ what is drawn */

static char *
format_percent (double value)
{
  return g_strdup_printf ("%g %%", 100 * value);
}

static char *
format_loss (double value)
{
  return g_strdup_printf ("%g", value);
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

/* The lines with points of the plot's quantity, in the model's order. */
static GArray *
drawn_lines (NapkinComparePlot *self)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n = self->model != NULL ? napkin_run_compare_get_n_lines (self->model) : 0;

  for (guint i = 0; i < n; i++)
    {
      NapkinSeries *series = napkin_run_compare_get_series (self->model, i, self->what);

      if (series != NULL && napkin_series_get_length (series) > 0)
        g_array_append_val (lines, i);
    }
  return lines;
}

static const char *
empty_text (NapkinComparePlot *self)
{
  guint n = self->model != NULL ? napkin_run_compare_get_n_lines (self->model) : 0;
  guint pending = 0, missing = 0;

  for (guint i = 0; i < n; i++)
    {
      pending += napkin_run_compare_is_pending (self->model, i);
      missing += napkin_run_compare_is_missing (self->model, i);
    }
  if (n == 0)
    return self->what == NAPKIN_COMPARE_LOSS ? _("Pick runs in the table to draw them here")
                                             : _("Pick mxfp8 or nvfp4 runs to see their shares");
  if (pending > 0)
    return _("Reading the runs’ steps…");
  if (missing == n)
    return napkin_x_axis_get_missing (napkin_run_compare_get_x_axis (self->model));
  if (self->what != NAPKIN_COMPARE_LOSS)
    return _("None of the picked runs quantizes: only mxfp8 and nvfp4 do");
  return _("No steps yet");
}

/* The legend: each line's sample in its colour and dash, and its label; entries
 * flow left to right and wrap. Returns its height. */
static double
draw_legend (NapkinComparePlot     *self,
             const NapkinPlotStyle *style,
             cairo_t               *cr,
             double                 width,
             GArray                *lines)
{
  double cx = 0, cy = 0;
  int h = 0;

  cairo_save (cr);
  cairo_set_line_width (cr, LINE_WIDTH);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (guint k = 0; k < lines->len; k++)
    {
      guint i = g_array_index (lines, guint, k);
      g_autoptr(PangoLayout) layout =
        napkin_plot_layout (style, cr, napkin_run_compare_get_label (self->model, i), TRUE, FALSE);
      int w;

      pango_layout_get_pixel_size (layout, &w, &h);
      if (cx > 0 && cx + SAMPLE_WIDTH + 6 + w > width)
        {
          cx = 0;
          cy += h + 4;
        }
      napkin_plot_style_set_color (style, cr, napkin_run_compare_get_color (self->model, i), 1);
      set_dash (cr, napkin_run_compare_get_dash (self->model, i));
      cairo_move_to (cr, cx + 1, cy + h / 2.0);
      cairo_line_to (cr, cx + SAMPLE_WIDTH - 1, cy + h / 2.0);
      cairo_stroke (cr);
      napkin_plot_style_set_fg (style, cr, 0.85);
      cairo_move_to (cr, cx + SAMPLE_WIDTH + 6, cy);
      pango_cairo_show_layout (cr, layout);
      cx += SAMPLE_WIDTH + 6 + w + 16;
    }
  cairo_restore (cr);
  return lines->len > 0 ? cy + h + 8 : 0;
}

/* The bounds of every drawn line's points. The losses' y range fits the points
 * right of the first tenth of the x axis: the first steps' losses, several times
 * the later ones, and a spike would flatten the differences the comparison is
 * about (the lines still run off the top there). */
static void
bounds (NapkinComparePlot *self,
        GArray            *lines,
        double            *lo,
        double            *hi,
        double            *x_hi)
{
  *lo = INFINITY, *hi = -INFINITY, *x_hi = 0;
  for (guint k = 0; k < lines->len; k++)
    {
      NapkinSeries *series = napkin_run_compare_get_series (self->model, g_array_index (lines, guint, k),
                                                            self->what);

      *x_hi = MAX (*x_hi, napkin_series_get_x (series, napkin_series_get_length (series) - 1));
    }
  for (guint k = 0; k < lines->len; k++)
    {
      NapkinSeries *series = napkin_run_compare_get_series (self->model, g_array_index (lines, guint, k),
                                                            self->what);
      guint n = napkin_series_get_length (series);
      guint begin = self->what == NAPKIN_COMPARE_LOSS ? napkin_series_lower_bound (series, *x_hi / 10) : 0;
      double a, b;

      if (begin >= n)
        begin = 0;
      if (napkin_series_range_minmax (series, begin, n, &a, &b))
        *lo = MIN (*lo, a), *hi = MAX (*hi, b);
    }
}

typedef struct {
  double      y;
  guint       color;
  const char *text;
} EndLabel;

static int
compare_end_labels (gconstpointer a,
                    gconstpointer b)
{
  const EndLabel *p = a, *q = b;

  return (p->y > q->y) - (p->y < q->y);
}

/* Each recipe's name right of the frame, at the mean height of its lines' last
 * points, pushed apart to a line of text each and kept inside the frame. */
static void
draw_end_labels (NapkinComparePlot     *self,
                 const NapkinPlotStyle *style,
                 cairo_t               *cr,
                 const NapkinPlotFrame *frame,
                 GArray                *lines)
{
  g_autoptr(GArray) labels = g_array_new (FALSE, TRUE, sizeof (EndLabel));
  g_autoptr(GArray) counts = g_array_new (FALSE, TRUE, sizeof (guint));
  g_autoptr(PangoLayout) probe = napkin_plot_layout (style, cr, "Hg", TRUE, FALSE);
  double bottom = frame->top + frame->height;
  int h;

  pango_layout_get_pixel_size (probe, NULL, &h);
  for (guint k = 0; k < lines->len; k++)
    {
      guint i = g_array_index (lines, guint, k);
      guint group = napkin_run_compare_get_group (self->model, i);
      double x, y;

      if (!napkin_series_get_last (napkin_run_compare_get_series (self->model, i, self->what), &x, &y)
          || !isfinite (y))
        continue;
      if (group >= labels->len)
        {
          g_array_set_size (labels, group + 1);
          g_array_set_size (counts, group + 1);
        }
      g_array_index (labels, EndLabel, group).y += napkin_plot_frame_y_to_px (frame, y);
      g_array_index (labels, EndLabel, group).color = napkin_run_compare_get_color (self->model, i);
      g_array_index (labels, EndLabel, group).text = napkin_run_compare_get_group_label (self->model, i);
      g_array_index (counts, guint, group)++;
    }
  for (guint g = labels->len; g-- > 0; )
    if (g_array_index (counts, guint, g) == 0)
      g_array_remove_index (labels, g), g_array_remove_index (counts, g);
    else
      g_array_index (labels, EndLabel, g).y /= g_array_index (counts, guint, g);
  g_array_sort (labels, compare_end_labels);
  /* down past the one above, then up from the frame's bottom */
  for (guint g = 0; g < labels->len; g++)
    {
      EndLabel *l = &g_array_index (labels, EndLabel, g);

      l->y = MAX (l->y, g > 0 ? l[-1].y + h : frame->top + h / 2.0);
    }
  for (guint g = labels->len; g-- > 0; )
    {
      EndLabel *l = &g_array_index (labels, EndLabel, g);

      l->y = MIN (l->y, g + 1 < labels->len ? l[1].y - h : bottom - h / 2.0);
    }
  for (guint g = 0; g < labels->len; g++)
    {
      EndLabel *l = &g_array_index (labels, EndLabel, g);

      napkin_plot_style_set_color (style, cr, l->color, 1);
      napkin_plot_draw_text (style, cr, l->text, frame->left + frame->width + 8, l->y, 0, 0.5, TRUE, TRUE);
    }
}

/* The widest recipe name, for the room right of the frame. */
static double
end_labels_width (NapkinComparePlot     *self,
                  const NapkinPlotStyle *style,
                  cairo_t               *cr,
                  GArray                *lines)
{
  int widest = 0;

  for (guint k = 0; k < lines->len; k++)
    {
      g_autoptr(PangoLayout) layout =
        napkin_plot_layout (style, cr, napkin_run_compare_get_group_label (self->model, g_array_index (lines, guint, k)),
                            TRUE, TRUE);
      int w;

      pango_layout_get_pixel_size (layout, &w, NULL);
      widest = MAX (widest, w);
    }
  return widest + 12;
}

/* Under the pointer: the x, and each line's value at its first point there. */
static void
draw_hover (NapkinComparePlot     *self,
            const NapkinPlotStyle *style,
            cairo_t               *cr,
            const NapkinPlotFrame *frame,
            GArray                *lines,
            NapkinPlotFormatFunc   y_format)
{
  double px = napkin_plot_get_hover_x (NAPKIN_PLOT (self));
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *x_text = NULL;
  double x;

  if (!napkin_plot_frame_hover_x (frame, px, &x))
    return;
  x_text = frame->x_format != NULL ? frame->x_format (x) : napkin_plot_format_count (round (x));
  g_string_append (text, x_text);
  for (guint k = 0; k < lines->len; k++)
    {
      guint i = g_array_index (lines, guint, k);
      NapkinSeries *series = napkin_run_compare_get_series (self->model, i, self->what);
      g_autofree char *value = NULL;
      guint index;

      if (!napkin_plot_frame_hover_index (frame, px, series, &index))
        continue;
      value = y_format (napkin_series_get_y (series, index));
      g_string_append_printf (text, "\n%s: %s", napkin_run_compare_get_label (self->model, i), value);
    }
  /* a box wider than the frame would be cut: then the legend and the axes must do */
  {
    g_autoptr(PangoLayout) layout = napkin_plot_layout (style, cr, text->str, TRUE, FALSE);
    int w;

    pango_layout_get_pixel_size (layout, &w, NULL);
    /* napkin_plot_draw_readout() puts it right of the pointer, else left */
    if (px + 22 + w > frame->left + frame->width && px - 22 - w < 0)
      return;
  }
  napkin_plot_draw_readout (style, cr, frame, px, text->str);
}

static const char *
y_title (NapkinCompareQuantity what)
{
  switch (what)
    {
    case NAPKIN_COMPARE_FLUSHED:
      return _("Flushed");
    case NAPKIN_COMPARE_CLIPPED:
      return _("Clipped");
    case NAPKIN_COMPARE_LOSS:
    case NAPKIN_COMPARE_N_QUANTITIES:
    default:
      return _("Loss");
    }
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinComparePlot *self = NAPKIN_COMPARE_PLOT (plot);
  g_autoptr(GArray) lines = drawn_lines (self);
  NapkinXAxis axis = self->model != NULL ? napkin_run_compare_get_x_axis (self->model) : NAPKIN_X_AXIS_STEP;
  gboolean shares = self->what != NAPKIN_COMPARE_LOSS;
  NapkinPlotFormatFunc y_format = shares ? format_percent : format_loss;
  gboolean end_labels = width >= END_LABELS_WIDTH;
  NapkinPlotFrame frame = { 0 };
  double lo, hi, x_hi, legend_h, right = 0;

  if (lines->len == 0)
    {
      napkin_plot_draw_empty (style, cr, width, height, empty_text (self));
      return;
    }
  legend_h = draw_legend (self, style, cr, width, lines);
  bounds (self, lines, &lo, &hi, &x_hi);
  napkin_plot_frame_set_y_range (&frame, lo, hi, FALSE, shares);
  frame.x_format = x_format (axis);
  if (axis == NAPKIN_X_AXIS_STEP)
    napkin_plot_frame_set_x_range (&frame, MIN (1, x_hi), MAX (x_hi, 2));
  else
    napkin_plot_frame_set_x_range (&frame, 0, x_hi > 0 ? x_hi : 1);
  napkin_plot_frame_place (&frame, style, cr, width, height, legend_h, y_format);
  if (end_labels)
    {
      right = MIN (end_labels_width (self, style, cr, lines), width / 3.0);
      frame.width = MAX (10, frame.width - right);
    }
  napkin_plot_draw_axes (style, cr, &frame, napkin_x_axis_get_title (axis), y_title (self->what), y_format);
  napkin_plot_set_frame (plot, &frame);

  for (guint k = 0; k < lines->len; k++)
    {
      guint i = g_array_index (lines, guint, k);

      cairo_save (cr);
      /* napkin_plot_draw_series() strokes with the dash it finds set */
      set_dash (cr, napkin_run_compare_get_dash (self->model, i));
      napkin_plot_draw_series (style, cr, &frame, napkin_run_compare_get_series (self->model, i, self->what),
                               napkin_run_compare_get_color (self->model, i), 0.95, LINE_WIDTH);
      cairo_restore (cr);
    }
  if (end_labels)
    draw_end_labels (self, style, cr, &frame, lines);
  draw_hover (self, style, cr, &frame, lines, y_format);
}

/* NapkinPlotClass.describe */
static char *
describe (NapkinPlot *plot)
{
  NapkinComparePlot *self = NAPKIN_COMPARE_PLOT (plot);

  return self->model != NULL ? napkin_run_compare_dup_description (self->model, self->what) : NULL;
}

/* ------------------------------------------------------------ GObject */

static void
napkin_compare_plot_dispose (GObject *object)
{
  napkin_compare_plot_set_model (NAPKIN_COMPARE_PLOT (object), NULL);
  G_OBJECT_CLASS (napkin_compare_plot_parent_class)->dispose (object);
}

static void
napkin_compare_plot_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NapkinComparePlot *self = NAPKIN_COMPARE_PLOT (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    case PROP_QUANTITY:
      g_value_set_uint (value, self->what);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_compare_plot_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NapkinComparePlot *self = NAPKIN_COMPARE_PLOT (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      napkin_compare_plot_set_model (self, g_value_get_object (value));
      break;
    case PROP_QUANTITY:
      self->what = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_compare_plot_class_init (NapkinComparePlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->dispose = napkin_compare_plot_dispose;
  object_class->get_property = napkin_compare_plot_get_property;
  object_class->set_property = napkin_compare_plot_set_property;
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 220;
  plot_class->natural_height = 300;

  /**
   * NapkinComparePlot:model:
   *
   * The runs compared, with their lines' styles and labels.
   */
  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, NAPKIN_TYPE_RUN_COMPARE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinComparePlot:quantity:
   *
   * What the plot draws of each run, a #NapkinCompareQuantity.
   */
  properties[PROP_QUANTITY] =
    g_param_spec_uint ("quantity", NULL, NULL, 0, NAPKIN_COMPARE_N_QUANTITIES - 1, NAPKIN_COMPARE_LOSS,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "napkin-compare-plot");
}

static void
napkin_compare_plot_init (NapkinComparePlot *self)
{
}

/**
 * napkin_compare_plot_new:
 * @model: (nullable): the runs compared
 * @what: what to draw of each
 *
 * Returns: (transfer floating): a plot of @what of @model's runs
 */
GtkWidget *
napkin_compare_plot_new (NapkinRunCompare      *model,
                         NapkinCompareQuantity  what)
{
  return g_object_new (NAPKIN_TYPE_COMPARE_PLOT, "quantity", what, "model", model, NULL);
}

/* Returns: (transfer none) (nullable): the runs compared */
NapkinRunCompare *
napkin_compare_plot_get_model (NapkinComparePlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_COMPARE_PLOT (self), NULL);
  return self->model;
}

/* Binds the plot to @model: it redraws, and its description follows, on each change. */
void
napkin_compare_plot_set_model (NapkinComparePlot *self,
                               NapkinRunCompare  *model)
{
  g_return_if_fail (NAPKIN_IS_COMPARE_PLOT (self));
  g_return_if_fail (model == NULL || NAPKIN_IS_RUN_COMPARE (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_func (self->model, napkin_plot_changed, self);
  g_set_object (&self->model, model);
  if (model != NULL)
    g_signal_connect_swapped (model, "changed", G_CALLBACK (napkin_plot_changed), self);
  napkin_plot_changed (NAPKIN_PLOT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

/* Returns: what the plot draws of each run */
NapkinCompareQuantity
napkin_compare_plot_get_quantity (NapkinComparePlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_COMPARE_PLOT (self), NAPKIN_COMPARE_LOSS);
  return self->what;
}
