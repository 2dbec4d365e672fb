/* napkin-plot-axes.c: what the training plots share: palette, frame, axes, lines
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include <adwaita.h>

#include "nk-units.h"
#include "napkin-plot-axes.h"

#define TICK_GAP       6.0
#define AXIS_PAD       8.0
#define MAX_COLUMNS    8192

/* libadwaita's named palette colours: the darker tone reads on light backgrounds,
 * the lighter on dark ones; the first four match the planner's memory chart so
 * buckets keep their hue from page to page. */
static const struct {
  const char *light;
  const char *dark;
} palette_names[NAPKIN_PLOT_N_COLORS] = {
  [NAPKIN_PLOT_BLUE]   = { "blue_3",   "blue_2" },
  [NAPKIN_PLOT_GREEN]  = { "green_5",  "green_2" },
  [NAPKIN_PLOT_YELLOW] = { "yellow_5", "yellow_2" },
  [NAPKIN_PLOT_PURPLE] = { "purple_3", "purple_2" },
  [NAPKIN_PLOT_ORANGE] = { "orange_5", "orange_2" },
  [NAPKIN_PLOT_RED]    = { "red_3",    "red_2" },
  [NAPKIN_PLOT_BROWN]  = { "brown_3",  "brown_2" },
};

/* @over composited onto the opaque @under. */
static GdkRGBA
composite (const GdkRGBA *over,
           const GdkRGBA *under)
{
  GdkRGBA out = {
    over->red * over->alpha + under->red * (1 - over->alpha),
    over->green * over->alpha + under->green * (1 - over->alpha),
    over->blue * over->alpha + under->blue * (1 - over->alpha),
    1,
  };

  return out;
}

/**
 * napkin_plot_style_init_for_widget:
 * @style: (out caller-allocates): the style to fill
 * @widget: the plot widget
 *
 * Takes the widget's foreground colour, font and palette from its style context,
 * and whether the style is dark from #AdwStyleManager.
 */
void
napkin_plot_style_init_for_widget (NapkinPlotStyle *style,
                                   GtkWidget       *widget)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);
  PangoContext *pango = gtk_widget_get_pango_context (widget);
  GdkRGBA window_bg;

  gtk_style_context_get_color (context, &style->fg);
  style->dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  /* Dark cards are translucent white over the window (libadwaita's card_bg_color),
   * which painted opaque would be a white box: take the colour they look. */
  if (!gtk_style_context_lookup_color (context, "window_bg_color", &window_bg))
    window_bg = (GdkRGBA) { 0, 0, 0, 0 };
  if (!gtk_style_context_lookup_color (context, "card_bg_color", &style->bg))
    style->bg = window_bg;
  if (style->bg.alpha < 0.99 && window_bg.alpha > 0.99)
    style->bg = composite (&style->bg, &window_bg);
  for (guint c = 0; c < NAPKIN_PLOT_N_COLORS; c++)
    if (!gtk_style_context_lookup_color (context,
                                         style->dark ? palette_names[c].dark : palette_names[c].light,
                                         &style->palette[c]))
      style->palette[c] = style->fg;
  style->font = pango_font_description_copy (pango_context_get_font_description (pango));
}

void
napkin_plot_style_clear (NapkinPlotStyle *style)
{
  g_clear_pointer (&style->font, pango_font_description_free);
}

void
napkin_plot_style_set_color (const NapkinPlotStyle *style,
                             cairo_t               *cr,
                             NapkinPlotColor        color,
                             double                 alpha)
{
  const GdkRGBA *c = &style->palette[color];

  cairo_set_source_rgba (cr, c->red, c->green, c->blue, alpha);
}

void
napkin_plot_style_set_fg (const NapkinPlotStyle *style,
                          cairo_t               *cr,
                          double                 alpha)
{
  cairo_set_source_rgba (cr, style->fg.red, style->fg.green, style->fg.blue,
                         style->fg.alpha * alpha);
}

/**
 * napkin_plot_layout:
 * @style: the style
 * @cr: where the text will go
 * @text: the text
 * @small: 85 % of the font size (ticks, legends)
 * @bold: bold weight
 *
 * Returns: (transfer full): a layout for @text
 */
PangoLayout *
napkin_plot_layout (const NapkinPlotStyle *style,
                    cairo_t               *cr,
                    const char            *text,
                    gboolean               small,
                    gboolean               bold)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoAttrList) attrs = pango_attr_list_new ();

  pango_layout_set_font_description (layout, style->font);
  if (small)
    pango_attr_list_insert (attrs, pango_attr_scale_new (0.85));
  if (bold)
    pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  /* Tabular figures keep tick labels from jittering as values change. */
  pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum"));
  pango_layout_set_attributes (layout, attrs);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

/* Draws @text with its (xalign, yalign) point at (x, y), in the current source. */
void
napkin_plot_draw_text (const NapkinPlotStyle *style,
                       cairo_t               *cr,
                       const char            *text,
                       double                 x,
                       double                 y,
                       double                 xalign,
                       double                 yalign,
                       gboolean               small,
                       gboolean               bold)
{
  g_autoptr(PangoLayout) layout = napkin_plot_layout (style, cr, text, small, bold);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, round (x - xalign * w), round (y - yalign * h));
  pango_cairo_show_layout (cr, layout);
}

/* ------------------------------------------------------------ ticks */

static double
nice_step (double span,
           int    max_ticks)
{
  double raw = span / MAX (max_ticks, 1);
  double mag = pow (10, floor (log10 (raw)));
  double f = raw / mag;

  if (f <= 1)
    return mag;
  if (f <= 2)
    return 2 * mag;
  if (f <= 5)
    return 5 * mag;
  return 10 * mag;
}

/**
 * napkin_plot_frame_set_y_range:
 * @frame: a frame
 * @min: least value to show
 * @max: greatest value to show
 * @log_y: a logarithmic axis (non-positive values are clipped away)
 * @from_zero: a linear axis that starts at 0 (bytes, rates)
 *
 * Widens [@min, @max] to round tick values (whole decades when log).
 */
void
napkin_plot_frame_set_y_range (NapkinPlotFrame *frame,
                               double           min,
                               double           max,
                               gboolean         log_y,
                               gboolean         from_zero)
{
  frame->log_y = log_y;
  if (log_y)
    {
      if (!(max > 0))
        max = 1;
      if (!(min > 0) || min > max)
        min = max / 10;
      frame->y0 = pow (10, floor (log10 (min)));
      frame->y1 = pow (10, ceil (log10 (max)));
      if (frame->y1 <= frame->y0)
        frame->y1 = frame->y0 * 10;
      return;
    }
  if (!isfinite (min) || !isfinite (max))
    min = 0, max = 1;
  if (from_zero)
    min = MIN (min, 0);
  if (max <= min)
    max = min + (min != 0 ? fabs (min) : 1);
  {
    double step = nice_step (max - min, 5);

    frame->y0 = floor (min / step) * step;
    frame->y1 = ceil (max / step) * step;
  }
}

void
napkin_plot_frame_set_x_range (NapkinPlotFrame *frame,
                               double           min,
                               double           max)
{
  if (!isfinite (min) || !isfinite (max) || max <= min)
    max = min + 1;
  frame->log_x = FALSE;
  frame->x0 = min;
  frame->x1 = max;
}

/**
 * napkin_plot_frame_set_log_x_range:
 * @frame: a frame
 * @min: least value to show (non-positive: a thousandth of @max)
 * @max: greatest value to show
 *
 * A logarithmic x axis from the decade at or below @min to the one at or above @max.
 */
void
napkin_plot_frame_set_log_x_range (NapkinPlotFrame *frame,
                                   double           min,
                                   double           max)
{
  if (!(max > 0) || !isfinite (max))
    max = 1;
  if (!(min > 0) || min > max)
    min = max / 1e3;
  frame->log_x = TRUE;
  frame->x0 = pow (10, floor (log10 (min)));
  frame->x1 = pow (10, ceil (log10 (max)));
  if (frame->x1 <= frame->x0)
    frame->x1 = frame->x0 * 10;
}

double
napkin_plot_frame_x_to_px (const NapkinPlotFrame *frame,
                           double                 x)
{
  if (frame->log_x)
    return frame->left + (log10 (MAX (x, frame->x0 * 1e-3)) - log10 (frame->x0))
                         / (log10 (frame->x1) - log10 (frame->x0)) * frame->width;
  return frame->left + (x - frame->x0) / (frame->x1 - frame->x0) * frame->width;
}

double
napkin_plot_frame_px_to_x (const NapkinPlotFrame *frame,
                           double                 px)
{
  double t = (px - frame->left) / frame->width;

  if (frame->log_x)
    return pow (10, log10 (frame->x0) + t * (log10 (frame->x1) - log10 (frame->x0)));
  return frame->x0 + t * (frame->x1 - frame->x0);
}

double
napkin_plot_frame_y_to_px (const NapkinPlotFrame *frame,
                           double                 y)
{
  double t;

  if (frame->log_y)
    t = (log10 (MAX (y, frame->y0 * 1e-3)) - log10 (frame->y0))
        / (log10 (frame->y1) - log10 (frame->y0));
  else
    t = (y - frame->y0) / (frame->y1 - frame->y0);
  return frame->top + (1 - t) * frame->height;
}

/* The tick values of the y axis: 1-2-5 steps, or decades (every other one when
 * there are many). Returns how many were written to @out (at most 32). */
static guint
y_ticks (const NapkinPlotFrame *frame,
         double                *out)
{
  guint n = 0;

  if (frame->log_y)
    {
      int d0 = (int) round (log10 (frame->y0));
      int d1 = (int) round (log10 (frame->y1));
      int every = MAX (1, (d1 - d0 + 5) / 6);

      for (int d = d0; d <= d1 && n < 32; d += every)
        out[n++] = pow (10, d);
    }
  else
    {
      double step = nice_step (frame->y1 - frame->y0, 5);

      for (double v = frame->y0; v <= frame->y1 + step * 1e-6 && n < 32; v += step)
        out[n++] = fabs (v) < step * 1e-9 ? 0 : v;
    }
  return n;
}

/* The tick values of the x axis (at most 32). */
static guint
x_ticks (const NapkinPlotFrame *frame,
         double                *out)
{
  int max_ticks = MAX (2, (int) (frame->width / 90));
  guint n = 0;
  double step;

  if (frame->log_x)
    {
      int d0 = (int) round (log10 (frame->x0));
      int d1 = (int) round (log10 (frame->x1));
      int every = MAX (1, (d1 - d0 + max_ticks - 1) / max_ticks);

      for (int d = d0; d <= d1 && n < 32; d += every)
        out[n++] = pow (10, d);
      return n;
    }
  step = nice_step (frame->x1 - frame->x0, max_ticks);
  if (frame->x_format == NULL)
    step = MAX (1, step);
  for (double v = ceil (frame->x0 / step) * step; v <= frame->x1 + step * 1e-9 && n < 32; v += step)
    out[n++] = fabs (v) < step * 1e-9 ? 0 : v;
  return n;
}

/**
 * napkin_plot_frame_place:
 * @frame: a frame whose y range is set
 * @style: the style
 * @cr: the target
 * @width: of the whole plot
 * @height: of the whole plot
 * @top_reserved: pixels above the plotting area (legend)
 * @y_format: formats the tick values
 *
 * Sets the plotting area: room on the left for the widest tick label, below for
 * the x ticks and the axis title.
 */
void
napkin_plot_frame_place (NapkinPlotFrame       *frame,
                         const NapkinPlotStyle *style,
                         cairo_t               *cr,
                         double                 width,
                         double                 height,
                         double                 top_reserved,
                         NapkinPlotFormatFunc   y_format)
{
  double ticks[32];
  guint n = y_ticks (frame, ticks);
  int widest = 0, text_h = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = y_format (ticks[i]);
      g_autoptr(PangoLayout) layout = napkin_plot_layout (style, cr, text, TRUE, FALSE);
      int w;

      pango_layout_get_pixel_size (layout, &w, &text_h);
      widest = MAX (widest, w);
    }
  if (text_h == 0)
    text_h = 14;
  frame->left = widest + TICK_GAP + AXIS_PAD + text_h + 4;
  frame->top = top_reserved + text_h / 2.0;
  frame->width = MAX (10, width - frame->left - AXIS_PAD - 4);
  frame->height = MAX (10, height - frame->top - 2 * text_h - TICK_GAP - AXIS_PAD);
}

/**
 * napkin_plot_draw_axes:
 * @style: the style
 * @cr: the target
 * @frame: a placed frame
 * @x_label: the x axis title, with its unit
 * @y_label: the y axis title, with its unit
 * @y_format: formats the y tick values
 *
 * Grid lines at the ticks, the tick labels, and the axis titles (the y title
 * turned on its side).
 */
void
napkin_plot_draw_axes (const NapkinPlotStyle *style,
                       cairo_t               *cr,
                       const NapkinPlotFrame *frame,
                       const char            *x_label,
                       const char            *y_label,
                       NapkinPlotFormatFunc   y_format)
{
  double ticks[32];
  guint n = y_ticks (frame, ticks);
  double bottom = frame->top + frame->height;
  double right = frame->left + frame->width;
  int text_h;

  cairo_save (cr);
  cairo_set_line_width (cr, 1);

  /* y grid and labels */
  for (guint i = 0; i < n; i++)
    {
      double py = round (napkin_plot_frame_y_to_px (frame, ticks[i])) + 0.5;
      g_autofree char *text = y_format (ticks[i]);

      napkin_plot_style_set_fg (style, cr, i == 0 ? 0.3 : 0.1);
      cairo_move_to (cr, frame->left, py);
      cairo_line_to (cr, right, py);
      cairo_stroke (cr);
      napkin_plot_style_set_fg (style, cr, 0.7);
      napkin_plot_draw_text (style, cr, text, frame->left - TICK_GAP, py, 1.0, 0.5, TRUE, FALSE);
    }

  /* x ticks: whole steps, 1-2-5 steps of another quantity, or decades */
  n = x_ticks (frame, ticks);
  for (guint i = 0; i < n; i++)
    {
      double px = round (napkin_plot_frame_x_to_px (frame, ticks[i])) + 0.5;
      g_autofree char *text = frame->x_format != NULL ? frame->x_format (ticks[i])
                                                      : napkin_plot_format_count (ticks[i]);

      napkin_plot_style_set_fg (style, cr, 0.1);
      cairo_move_to (cr, px, frame->top);
      cairo_line_to (cr, px, bottom);
      cairo_stroke (cr);
      napkin_plot_style_set_fg (style, cr, 0.3);
      cairo_move_to (cr, px, bottom);
      cairo_line_to (cr, px, bottom + 4);
      cairo_stroke (cr);
      napkin_plot_style_set_fg (style, cr, 0.7);
      napkin_plot_draw_text (style, cr, text, px, bottom + TICK_GAP, 0.5, 0.0, TRUE, FALSE);
    }

  /* axis titles */
  {
    g_autoptr(PangoLayout) probe = napkin_plot_layout (style, cr, "Hg", TRUE, FALSE);

    pango_layout_get_pixel_size (probe, NULL, &text_h);
  }
  napkin_plot_style_set_fg (style, cr, 0.55);
  napkin_plot_draw_text (style, cr, x_label, frame->left + frame->width / 2,
                         bottom + TICK_GAP + text_h + 2, 0.5, 0.0, TRUE, FALSE);
  {
    g_autoptr(PangoLayout) layout = napkin_plot_layout (style, cr, y_label, TRUE, FALSE);
    int w, h;

    pango_layout_get_pixel_size (layout, &w, &h);
    cairo_save (cr);
    cairo_translate (cr, 2, frame->top + frame->height / 2 + w / 2.0);
    cairo_rotate (cr, -G_PI / 2);
    cairo_move_to (cr, 0, 0);
    pango_cairo_show_layout (cr, layout);
    cairo_restore (cr);
  }
  cairo_restore (cr);
}

/**
 * napkin_plot_draw_frame:
 * @frame: a frame whose x and y ranges are set
 * @style: the style
 * @cr: the target
 * @width: of the whole plot
 * @height: of the whole plot
 * @top_reserved: pixels above the plotting area (a legend, a caption)
 * @x_label: the x axis title, with its unit
 * @y_label: the y axis title, with its unit
 * @y_format: formats the y tick values
 *
 * napkin_plot_frame_place() then napkin_plot_draw_axes(), with the one @y_format, so
 * the room left of the frame is measured on the tick labels that are drawn there.
 */
void
napkin_plot_draw_frame (NapkinPlotFrame       *frame,
                        const NapkinPlotStyle *style,
                        cairo_t               *cr,
                        double                 width,
                        double                 height,
                        double                 top_reserved,
                        const char            *x_label,
                        const char            *y_label,
                        NapkinPlotFormatFunc   y_format)
{
  napkin_plot_frame_place (frame, style, cr, width, height, top_reserved, y_format);
  napkin_plot_draw_axes (style, cr, frame, x_label, y_label, y_format);
}

/**
 * napkin_plot_frame_hover_x:
 * @frame: a placed frame
 * @px: the pointer's x in pixels (negative when it is away)
 * @out_x: (out) (optional): the data x under the pointer
 *
 * Returns: whether the pointer is over the plotting area's columns
 */
gboolean
napkin_plot_frame_hover_x (const NapkinPlotFrame *frame,
                           double                 px,
                           double                *out_x)
{
  if (px < frame->left || px > frame->left + frame->width)
    return FALSE;
  if (out_x != NULL)
    *out_x = napkin_plot_frame_px_to_x (frame, px);
  return TRUE;
}

/**
 * napkin_plot_frame_hover_index:
 * @frame: a placed frame
 * @px: the pointer's x in pixels (negative when it is away)
 * @series: the series to read out
 * @out_index: (out): the first point of @series at or after the pointer's x, the
 *   last point when none is
 *
 * Returns: whether the pointer is over the plotting area and @series has points
 */
gboolean
napkin_plot_frame_hover_index (const NapkinPlotFrame *frame,
                               double                 px,
                               NapkinSeries          *series,
                               guint                 *out_index)
{
  guint n = series != NULL ? napkin_series_get_length (series) : 0;
  double x;

  if (n == 0 || !napkin_plot_frame_hover_x (frame, px, &x))
    return FALSE;
  *out_index = MIN (napkin_series_lower_bound (series, x), n - 1);
  return TRUE;
}

/* Per pixel column of @frame, the least and greatest y of @series (NAN: none).
 * On a log x axis the columns are equal in decades: each one's points are found
 * by a binary search of its edges. */
static void
decimate (NapkinSeries          *series,
          const NapkinPlotFrame *frame,
          guint                  columns,
          double                *mins,
          double                *maxs)
{
  guint n = napkin_series_get_length (series);
  guint begin;

  if (!frame->log_x)
    {
      napkin_series_decimate (series, frame->x0, frame->x1, columns, mins, maxs);
      return;
    }
  begin = napkin_series_lower_bound (series, frame->x0);
  for (guint c = 0; c < columns; c++)
    {
      double edge = napkin_plot_frame_px_to_x (frame, frame->left + (c + 1) * frame->width / columns);
      guint end = c + 1 == columns ? n : napkin_series_lower_bound (series, edge);

      /* the last column ends at x1 itself */
      while (c + 1 == columns && end > begin && napkin_series_get_x (series, end - 1) > frame->x1)
        end--;
      if (end <= begin || !napkin_series_range_minmax (series, begin, end, &mins[c], &maxs[c]))
        mins[c] = maxs[c] = NAN;
      begin = MAX (begin, end);
    }
}

/* Each run of columns with points becomes one filled band: its top edge along
 * the maxima, its bottom edge back along the minima, widened by @half (half a
 * line) so a flat stretch still shows as a line. One fill is far cheaper than
 * stroking a zig-zag through every min and max. */
static void
fill_band (cairo_t               *cr,
           const NapkinPlotFrame *frame,
           guint                  columns,
           const double          *mins,
           const double          *maxs,
           double                 half)
{
  double col_w = frame->width / columns;
  guint c = 0;

  while (c < columns)
    {
      guint first;

      while (c < columns && (isnan (mins[c]) || (frame->log_y && maxs[c] <= 0)))
        c++;
      if (c == columns)
        break;
      first = c;
      while (c < columns && !isnan (mins[c]) && !(frame->log_y && maxs[c] <= 0))
        c++;
      /* Flat across each column: a spike of one point covers its whole
       * column to its tip, where a vertex at the column's centre would
       * taper to nothing. */
      for (guint k = first; k < c; k++)
        {
          double py = napkin_plot_frame_y_to_px (frame, maxs[k]) - half;

          if (k == first)
            cairo_move_to (cr, frame->left + k * col_w - half, py);
          else
            cairo_line_to (cr, frame->left + k * col_w, py);
          cairo_line_to (cr, frame->left + (k + 1) * col_w + (k + 1 == c ? half : 0), py);
        }
      for (guint k = c; k-- > first; )
        {
          double py = napkin_plot_frame_y_to_px (frame, frame->log_y ? MAX (mins[k], frame->y0 * 1e-3)
                                                                      : mins[k]) + half;

          cairo_line_to (cr, frame->left + (k + 1) * col_w + (k + 1 == c ? half : 0), py);
          cairo_line_to (cr, frame->left + k * col_w - (k == first ? half : 0), py);
        }
      cairo_close_path (cr);
    }
  cairo_fill (cr);
}

/* On a log x axis the first decades hold few points, columns apart: a line joins
 * each column to the next one with points, unless a non-finite loss lies
 * between (a gap stays a gap). */
static void
bridge_columns (cairo_t               *cr,
                const NapkinPlotFrame *frame,
                NapkinSeries          *series,
                guint                  columns,
                const double          *mins,
                const double          *maxs,
                double                 line_width)
{
  double col_w = frame->width / columns;
  guint previous = G_MAXUINT;

  cairo_set_line_width (cr, line_width);
  for (guint c = 0; c < columns; c++)
    {
      if (isnan (mins[c]) || (frame->log_y && maxs[c] <= 0))
        continue;
      if (previous != G_MAXUINT && c > previous + 1
          && napkin_series_lower_bound (series, napkin_plot_frame_px_to_x (frame, frame->left + (previous + 1) * col_w))
             == napkin_series_lower_bound (series, napkin_plot_frame_px_to_x (frame, frame->left + c * col_w)))
        {
          cairo_move_to (cr, frame->left + (previous + 0.5) * col_w,
                         napkin_plot_frame_y_to_px (frame, (mins[previous] + maxs[previous]) / 2));
          cairo_line_to (cr, frame->left + (c + 0.5) * col_w,
                         napkin_plot_frame_y_to_px (frame, (mins[c] + maxs[c]) / 2));
          cairo_stroke (cr);
        }
      previous = c;
    }
}

/**
 * napkin_plot_draw_series:
 * @style: the style
 * @cr: the target
 * @frame: a placed frame
 * @series: the points
 * @color: the line's colour
 * @alpha: its opacity
 * @line_width: its width
 *
 * With fewer points than pixel columns every point is a vertex; with more, each
 * column is reduced to its min and max (napkin_series_decimate()) and the line
 * runs through both, so no extreme and never the newest point is lost.
 */
void
napkin_plot_draw_series (const NapkinPlotStyle *style,
                         cairo_t               *cr,
                         const NapkinPlotFrame *frame,
                         NapkinSeries          *series,
                         NapkinPlotColor        color,
                         double                 alpha,
                         double                 line_width)
{
  guint n = napkin_series_get_length (series);
  guint columns = (guint) CLAMP (ceil (frame->width), 1, MAX_COLUMNS);
  gboolean pen_down = FALSE;

  if (n == 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, frame->left - line_width, frame->top - line_width,
                   frame->width + 2 * line_width, frame->height + 2 * line_width);
  cairo_clip (cr);
  cairo_set_line_width (cr, line_width);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  napkin_plot_style_set_color (style, cr, color, alpha);

  if (n <= columns)
    {
      for (guint i = 0; i < n; i++)
        {
          double y = napkin_series_get_y (series, i);
          double px = napkin_plot_frame_x_to_px (frame, napkin_series_get_x (series, i));

          if (!isfinite (y) || (frame->log_y && y <= 0))
            {
              pen_down = FALSE;
              continue;
            }
          if (pen_down)
            cairo_line_to (cr, px, napkin_plot_frame_y_to_px (frame, y));
          else
            cairo_move_to (cr, px, napkin_plot_frame_y_to_px (frame, y));
          pen_down = TRUE;
        }
      cairo_stroke (cr);
      /* A short series shows its points, so one step is visible as a dot. */
      if (n <= 64)
        for (guint i = 0; i < n; i++)
          {
            double y = napkin_series_get_y (series, i);

            if (!isfinite (y) || (frame->log_y && y <= 0))
              continue;
            cairo_arc (cr, napkin_plot_frame_x_to_px (frame, napkin_series_get_x (series, i)),
                       napkin_plot_frame_y_to_px (frame, y), line_width + 1, 0, 2 * G_PI);
            cairo_fill (cr);
          }
    }
  else
    {
      g_autofree double *mins = g_new (double, columns);
      g_autofree double *maxs = g_new (double, columns);

      decimate (series, frame, columns, mins, maxs);
      fill_band (cr, frame, columns, mins, maxs, line_width / 2);
      if (frame->log_x)
        bridge_columns (cr, frame, series, columns, mins, maxs, line_width);
    }
  cairo_restore (cr);
}

/**
 * napkin_plot_draw_envelope:
 * @style: the style
 * @cr: the target
 * @frame: a placed frame
 * @series: the points
 * @color: the band's colour
 * @alpha: its opacity (a light tint)
 *
 * Fills, in each pixel column, the band from the least to the greatest point of
 * @series there: the spread a smoothed line is drawn over.
 */
void
napkin_plot_draw_envelope (const NapkinPlotStyle *style,
                           cairo_t               *cr,
                           const NapkinPlotFrame *frame,
                           NapkinSeries          *series,
                           NapkinPlotColor        color,
                           double                 alpha)
{
  guint columns = (guint) CLAMP (ceil (frame->width), 1, MAX_COLUMNS);
  g_autofree double *mins = g_new (double, columns);
  g_autofree double *maxs = g_new (double, columns);

  if (napkin_series_get_length (series) == 0)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, frame->left, frame->top, frame->width, frame->height);
  cairo_clip (cr);
  napkin_plot_style_set_color (style, cr, color, alpha);
  decimate (series, frame, columns, mins, maxs);
  fill_band (cr, frame, columns, mins, maxs, 0);
  cairo_restore (cr);
}

/* One straight stroke in pixels, in @color at @alpha; @dash: (nullable) on and off
 * lengths. The cairo state is left as it was. */
static void
stroke_line (const NapkinPlotStyle *style,
             cairo_t               *cr,
             NapkinPlotColor        color,
             double                 alpha,
             double                 line_width,
             const double          *dash,
             double                 x0,
             double                 y0,
             double                 x1,
             double                 y1)
{
  cairo_save (cr);
  cairo_set_line_width (cr, line_width);
  if (dash != NULL)
    cairo_set_dash (cr, dash, 2, 0);
  napkin_plot_style_set_color (style, cr, color, alpha);
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* A horizontal reference line across the frame (peak, capacity, prediction). */
void
napkin_plot_draw_hline (const NapkinPlotStyle *style,
                        cairo_t               *cr,
                        const NapkinPlotFrame *frame,
                        double                 y,
                        NapkinPlotColor        color,
                        gboolean               dashed)
{
  double py;

  if (!isfinite (y) || (frame->log_y && y <= 0))
    return;
  py = round (napkin_plot_frame_y_to_px (frame, y)) + 0.5;
  if (py < frame->top - 1 || py > frame->top + frame->height + 1)
    return;
  stroke_line (style, cr, color, 1, 1.5, dashed ? (double[]) { 6, 4 } : NULL,
               frame->left, py, frame->left + frame->width, py);
}

/**
 * napkin_plot_draw_vline:
 * @style: the style
 * @cr: the target
 * @frame: a placed frame
 * @x: where, in data units; nothing is drawn outside the x range
 * @color: the line's colour
 * @line_width: in pixels
 * @dash: (array fixed-size=2) (nullable): on and off lengths, or %NULL for a solid line
 *
 * A vertical marker the frame's height (a value, a mean, a format's edge), on the
 * pixel grid.
 */
void
napkin_plot_draw_vline (const NapkinPlotStyle *style,
                        cairo_t               *cr,
                        const NapkinPlotFrame *frame,
                        double                 x,
                        NapkinPlotColor        color,
                        double                 line_width,
                        const double          *dash)
{
  double px;

  if (x < frame->x0 || x > frame->x1)
    return;
  px = round (napkin_plot_frame_x_to_px (frame, x)) + 0.5;
  stroke_line (style, cr, color, 1, line_width, dash,
               px, frame->top, px, frame->top + frame->height);
}

/**
 * napkin_plot_draw_segment:
 * @style: the style
 * @cr: the target
 * @frame: a placed frame
 * @x0: start, data units
 * @y0: start, data units
 * @x1: end, data units
 * @y1: end, data units
 * @color: the line's colour
 * @alpha: its opacity
 * @dashed: dashed as napkin_plot_draw_hline() dashes, or solid
 *
 * A straight line between two data points, 1.5 pixels wide (a closed form drawn
 * beside the measured series, as the exact sum under the rounded ones).
 */
void
napkin_plot_draw_segment (const NapkinPlotStyle *style,
                          cairo_t               *cr,
                          const NapkinPlotFrame *frame,
                          double                 x0,
                          double                 y0,
                          double                 x1,
                          double                 y1,
                          NapkinPlotColor        color,
                          double                 alpha,
                          gboolean               dashed)
{
  stroke_line (style, cr, color, alpha, 1.5, dashed ? (double[]) { 6, 4 } : NULL,
               napkin_plot_frame_x_to_px (frame, x0), napkin_plot_frame_y_to_px (frame, y0),
               napkin_plot_frame_x_to_px (frame, x1), napkin_plot_frame_y_to_px (frame, y1));
}

/**
 * napkin_plot_draw_legend:
 * @style: the style
 * @cr: the target
 * @x: left edge
 * @y: top edge
 * @max_width: wrap entries to a new row past this width
 * @labels: (array length=n): entry texts
 * @colors: (array length=n): entry colours
 * @dashed: (array length=n) (nullable): entries drawn as dashed lines, not swatches
 * @n: entries
 *
 * Entries flow left to right and wrap.
 *
 * Returns: the height the legend took
 */
double
napkin_plot_draw_legend (const NapkinPlotStyle *style,
                         cairo_t               *cr,
                         double                 x,
                         double                 y,
                         double                 max_width,
                         const char * const    *labels,
                         const NapkinPlotColor *colors,
                         const gboolean        *dashed,
                         guint                  n)
{
  double cx = x, cy = y;
  int h = 0;

  cairo_save (cr);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PangoLayout) layout = napkin_plot_layout (style, cr, labels[i], TRUE, FALSE);
      int w;

      pango_layout_get_pixel_size (layout, &w, &h);
      if (cx > x && cx + 20 + w > x + max_width)
        {
          cx = x;
          cy += h + 4;
        }
      napkin_plot_style_set_color (style, cr, colors[i], 1);
      if (dashed != NULL && dashed[i])
        {
          cairo_set_line_width (cr, 1.5);
          cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
          cairo_move_to (cr, cx, cy + h / 2.0);
          cairo_line_to (cr, cx + 14, cy + h / 2.0);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
        }
      else
        {
          cairo_rectangle (cr, cx + 1, cy + (h - 10) / 2.0, 12, 10);
          cairo_fill (cr);
        }
      napkin_plot_style_set_fg (style, cr, 0.85);
      cairo_move_to (cr, cx + 19, cy);
      pango_cairo_show_layout (cr, layout);
      cx += 19 + w + 16;
    }
  cairo_restore (cr);
  return cy - y + h;
}

/* A plot with nothing to show says so in its middle. */
void
napkin_plot_draw_empty (const NapkinPlotStyle *style,
                        cairo_t               *cr,
                        double                 width,
                        double                 height,
                        const char            *text)
{
  napkin_plot_style_set_fg (style, cr, 0.45);
  napkin_plot_draw_text (style, cr, text, width / 2, height / 2, 0.5, 0.5, FALSE, FALSE);
}

/* A vertical cursor at @px and a small box with @text beside it. */
void
napkin_plot_draw_readout (const NapkinPlotStyle *style,
                          cairo_t               *cr,
                          const NapkinPlotFrame *frame,
                          double                 px,
                          const char            *text)
{
  g_autoptr(PangoLayout) layout = napkin_plot_layout (style, cr, text, TRUE, FALSE);
  int w, h;
  double bx, by = frame->top + 6;

  cairo_save (cr);
  napkin_plot_style_set_fg (style, cr, 0.4);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, round (px) + 0.5, frame->top);
  cairo_line_to (cr, round (px) + 0.5, frame->top + frame->height);
  cairo_stroke (cr);

  pango_layout_get_pixel_size (layout, &w, &h);
  bx = px + 10;
  if (bx + w + 12 > frame->left + frame->width)
    bx = px - 10 - w - 12;
  cairo_rectangle (cr, bx, by, w + 12, h + 8);
  cairo_set_source_rgba (cr, style->bg.red, style->bg.green, style->bg.blue, 0.92);
  cairo_fill_preserve (cr);
  napkin_plot_style_set_fg (style, cr, 0.25);
  cairo_stroke (cr);
  napkin_plot_style_set_fg (style, cr, 0.9);
  cairo_move_to (cr, bx + 6, by + 4);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);
}

/* ------------------------------------------------------------ number formats */

/* Steps, tokens, FLOPs: whole numbers with a "k", "M", ... once they get long. */
char *
napkin_plot_format_count (double value)
{
  if (fabs (value) >= 1e18)
    return g_strdup_printf ("%gE", value / 1e18);
  if (fabs (value) >= 1e15)
    return g_strdup_printf ("%gP", value / 1e15);
  if (fabs (value) >= 1e12)
    return g_strdup_printf ("%gT", value / 1e12);
  if (fabs (value) >= 1e9)
    return g_strdup_printf ("%gG", value / 1e9);
  if (fabs (value) >= 1e6)
    return g_strdup_printf ("%gM", value / 1e6);
  if (fabs (value) >= 1e4)
    return g_strdup_printf ("%gk", value / 1e3);
  return g_strdup_printf ("%.0f", value);
}

char *
napkin_plot_format_plain (double value)
{
  if (value != 0 && (fabs (value) < 1e-3 || fabs (value) >= 1e5))
    return g_strdup_printf ("%.0e", value);
  return g_strdup_printf ("%g", value);
}

/* A share of something, 0 to 1. */
char *
napkin_plot_format_fraction (double value)
{
  return g_strdup_printf ("%g", value);
}

/* Wall time: seconds, then minutes and hours once they get long. */
char *
napkin_plot_format_seconds (double value)
{
  if (fabs (value) >= 7200)
    return g_strdup_printf ("%gh", value / 3600);
  if (fabs (value) >= 120)
    return g_strdup_printf ("%gmin", value / 60);
  return g_strdup_printf ("%gs", value);
}

char *
napkin_plot_format_bytes (double value)
{
  return nk_units_format_bytes (value);
}

char *
napkin_plot_format_rate (double value)
{
  return nk_units_format_rate (value);
}
