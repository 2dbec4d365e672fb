/* test-plots.c: each training plot draws every extreme of its series, pixel column by pixel column
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each plot is bound to a known series and drawn with napkin_plot_draw() into a
 * cairo image surface. Oracle: a brute-force pass over every point, mapped to
 * pixels by the affine (or log) map of the frame the plot reports, gives each
 * pixel column the highest and lowest pixel a point falls on; the pixels of the
 * series' colour in that column must reach both (within the line's half width
 * and antialiasing) and not pass its neighbours' extremes. A blank plot, a plot
 * of another series, or a plot that drops a spike fails; the negative controls
 * below show the check failing on a plot of a different series.
 *
 * A plan's lines (the throughput plot's FLOP/s, the pace plot's tokens against
 * time, the loss plot's mark across wall time) are checked the same way: the
 * pixels of the plan's colour lie where the frame's map puts the plan's closed
 * form (a row, a line through the origin, a column), and there are none at all
 * without a plan.
 */
#include "config.h"

#include <math.h>
#include <adwaita.h>

#include "napkin-loss-plot.h"
#include "napkin-memory-plot.h"
#include "napkin-pace-plot.h"
#include "napkin-plot-private.h"
#include "napkin-scale-plot.h"
#include "napkin-throughput-plot.h"

#define WIDTH    640
#define HEIGHT   320
#define N_POINTS 5000
/* pixels: half the widest line, the round cap, and antialiasing */
#define TOLERANCE 3.0

/* columns a check must see: half the plot, less on a log x axis whose first
 * decades hold few points */
static guint min_checked = WIDTH / 2;

typedef gboolean (*PixelTest) (const guint8 *argb, const GdkRGBA *color);

/* The test series: a slow wave with one-point spikes, all positive (log axes). */
static double
wave (guint i)
{
  return 2 + sin (i / 300.0) + (i % 997 == 500 ? 3 : 0) + (i % 1499 == 700 ? -1.5 : 0);
}

static NapkinSeries *
series_of (double (*f) (guint i))
{
  NapkinSeries *series = napkin_series_new ();

  for (guint i = 1; i <= N_POINTS; i++)
    napkin_series_append (series, i, f (i));
  return series;
}

static void
unpremultiply (const guint8 *argb,
               double       *rgba)
{
  /* CAIRO_FORMAT_ARGB32 is native-endian 32-bit: B G R A in memory on little endian. */
  guint32 v = *(const guint32 *) (gconstpointer) argb;
  double a = ((v >> 24) & 0xff) / 255.0;

  rgba[3] = a;
  rgba[0] = a > 0 ? ((v >> 16) & 0xff) / 255.0 / a : 0;
  rgba[1] = a > 0 ? ((v >> 8) & 0xff) / 255.0 / a : 0;
  rgba[2] = a > 0 ? (v & 0xff) / 255.0 / a : 0;
}

/* Mostly covered by the series' own colour. */
static gboolean
is_color (const guint8  *argb,
          const GdkRGBA *color)
{
  double p[4];

  unpremultiply (argb, p);
  return p[3] > 0.5
         && fabs (p[0] - color->red) + fabs (p[1] - color->green) + fabs (p[2] - color->blue) < 0.3;
}

/* Any palette colour, not the grey of axes, grid and text. */
static gboolean
is_saturated (const guint8  *argb,
              const GdkRGBA *color)
{
  double p[4];

  unpremultiply (argb, p);
  return p[3] > 0.4 && MAX (p[0], MAX (p[1], p[2])) - MIN (p[0], MIN (p[1], p[2])) > 0.2;
}

static double
y_to_px (const NapkinPlotFrame *f,
         double                 y)
{
  double t = f->log_y ? (log10 (y) - log10 (f->y0)) / (log10 (f->y1) - log10 (f->y0))
                      : (y - f->y0) / (f->y1 - f->y0);

  return f->top + (1 - t) * f->height;
}

/* The oracle: per pixel column, the least and greatest pixel row of a point (NAN: none). */
static void
brute_force (NapkinSeries          *series,
             const NapkinPlotFrame *f,
             double                *top,
             double                *bottom)
{
  for (guint j = 0; j < WIDTH; j++)
    top[j] = bottom[j] = NAN;
  for (guint i = 0; i < napkin_series_get_length (series); i++)
    {
      double x = napkin_series_get_x (series, i);
      double px = f->log_x ? f->left + (log10 (x) - log10 (f->x0)) / (log10 (f->x1) - log10 (f->x0)) * f->width
                           : f->left + (x - f->x0) / (f->x1 - f->x0) * f->width;
      double py = y_to_px (f, napkin_series_get_y (series, i));
      int j = (int) floor (px);

      if (j < 0 || j >= WIDTH)
        continue;
      top[j] = isnan (top[j]) ? py : MIN (top[j], py);
      bottom[j] = isnan (bottom[j]) ? py : MAX (bottom[j], py);
    }
}

static double
min3 (const double *v,
      int           j)
{
  return MIN (v[j - 1], MIN (v[j], v[j + 1]));
}

static double
max3 (const double *v,
      int           j)
{
  return MAX (v[j - 1], MAX (v[j], v[j + 1]));
}

/* Columns whose drawn extent disagrees with the oracle's (@bottom NULL: top only). */
static guint
bad_columns (cairo_surface_t       *surface,
             const NapkinPlotFrame *f,
             const double          *top,
             const double          *bottom,
             PixelTest              test,
             const GdkRGBA         *color,
             guint                 *out_checked)
{
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  int row0 = MAX (0, (int) floor (f->top) - 4);
  int row1 = MIN (HEIGHT - 1, (int) ceil (f->top + f->height) + 4);
  guint bad = 0, checked = 0;

  for (int j = (int) ceil (f->left) + 3; j < (int) floor (f->left + f->width) - 3; j++)
    {
      int first = -1, last = -1;

      if (isnan (top[j - 1]) || isnan (top[j]) || isnan (top[j + 1]))
        continue;
      checked++;
      for (int r = row0; r <= row1; r++)
        if (test (data + r * stride + 4 * j, color))
          {
            if (first < 0)
              first = r;
            last = r;
          }
      if (first < 0
          || first > top[j] + TOLERANCE || first < min3 (top, j) - TOLERANCE
          || (bottom != NULL && (last < bottom[j] - TOLERANCE || last > max3 (bottom, j) + TOLERANCE)))
        {
          g_test_message ("column %d: drawn rows %d..%d, points %.1f..%.1f", j, first, last,
                          top[j], bottom != NULL ? bottom[j] : NAN);
          bad++;
        }
    }
  *out_checked = checked;
  return bad;
}

/* Draws @plot as the widget would, and returns the frame it reports. */
static cairo_surface_t *
draw (NapkinPlot      *plot,
      NapkinPlotStyle *style,
      NapkinPlotFrame *frame)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);

  napkin_plot_style_init_for_widget (style, GTK_WIDGET (plot));
  napkin_plot_draw (plot, cr, WIDTH, HEIGHT, style);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  g_assert_true (_napkin_plot_get_frame (plot, frame));
  return surface;
}

/* Checks @plot, drawn from whatever it is bound to, against the oracle of
 * @expected; returns the share of columns that disagree. */
static double
check (NapkinPlot      *plot,
       NapkinSeries    *expected,
       PixelTest        test,
       NapkinPlotColor  color,
       gboolean         both_edges)
{
  NapkinPlotStyle style;
  NapkinPlotFrame frame;
  cairo_surface_t *surface = draw (plot, &style, &frame);
  double top[WIDTH], bottom[WIDTH];
  guint checked, bad;

  brute_force (expected, &frame, top, bottom);
  bad = bad_columns (surface, &frame, top, both_edges ? bottom : NULL, test,
                     &style.palette[color], &checked);
  g_test_message ("%u of %u columns disagree", bad, checked);
  g_assert_cmpuint (checked, >, min_checked);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  return (double) bad / checked;
}

static void
test_loss (void)
{
  NapkinLossPlot *plot = g_object_ref_sink (NAPKIN_LOSS_PLOT (napkin_loss_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (wave);
  g_autoptr(NapkinSeries) other = napkin_series_new ();

  napkin_loss_plot_set_series (plot, series);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), series, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);
  /* a log axis maps the same points elsewhere: still every extreme */
  napkin_loss_plot_set_log_scale (plot, TRUE);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), series, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);
  napkin_loss_plot_set_log_scale (plot, FALSE);

  /* the plot follows its model: points appended later are drawn too */
  for (guint i = N_POINTS + 1; i <= 2 * N_POINTS; i++)
    napkin_series_append (series, i, wave (i));
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), series, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);

  /* negative control: the same check fails for a plot of another series */
  for (guint i = 1; i <= 2 * N_POINTS; i++)
    napkin_series_append (other, i, wave (i) * (1 + 0.5 * sin (i / 50.0)));
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), other, is_color, NAPKIN_PLOT_BLUE, TRUE), >, 0.2);

  g_assert_finalize_object (plot);
}

static double
rate (guint i)
{
  return 1e9 * wave (i);
}

static void
test_throughput (void)
{
  NapkinThroughputPlot *plot = g_object_ref_sink (NAPKIN_THROUGHPUT_PLOT (napkin_throughput_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (rate);
  g_autoptr(NapkinSeries) flat = napkin_series_new ();

  napkin_throughput_plot_set_series (plot, series);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), series, is_color, NAPKIN_PLOT_GREEN, TRUE), ==, 0);
  for (guint i = 1; i <= N_POINTS; i++)
    napkin_series_append (flat, i, 2e9);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), flat, is_color, NAPKIN_PLOT_GREEN, TRUE), >, 0.2);
  g_assert_finalize_object (plot);
}

/* The pixels of @color in rows @r0..@r1, columns @c0..@c1 (inclusive). */
static guint
count_color (cairo_surface_t *surface,
             const GdkRGBA   *color,
             int              c0,
             int              c1,
             int              r0,
             int              r1)
{
  const guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint n = 0;

  for (int r = MAX (r0, 0); r <= MIN (r1, HEIGHT - 1); r++)
    for (int j = MAX (c0, 0); j <= MIN (c1, WIDTH - 1); j++)
      n += is_color (data + r * stride + 4 * j, color);
  return n;
}

/* Columns of the plot area holding the plan's colour, and among them those
 * whose pixels of it stray past @slack rows from @row_of (j) (the oracle's row at
 * the column's centre). Columns within 6 pixels of @skip_px are not looked at. */
static void
plan_columns (cairo_surface_t       *surface,
              const NapkinPlotFrame *f,
              const GdkRGBA         *color,
              double               (*row_of) (const NapkinPlotFrame *f, double x, gpointer data),
              gpointer               data,
              double                 slack,
              double                 skip_px,
              guint                 *out_found,
              guint                 *out_bad,
              guint                 *out_columns)
{
  const guint8 *data_px = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);

  *out_found = *out_bad = *out_columns = 0;
  for (int j = (int) ceil (f->left) + 3; j < (int) floor (f->left + f->width) - 3; j++)
    {
      double x = napkin_plot_frame_px_to_x (f, j + 0.5);
      double row = row_of (f, x, data);
      gboolean found = FALSE, bad = FALSE;

      if (fabs (j + 0.5 - skip_px) < 6)
        continue;
      (*out_columns)++;
      for (int r = (int) floor (f->top); r <= (int) ceil (f->top + f->height); r++)
        if (is_color (data_px + r * stride + 4 * j, color))
          {
            found = TRUE;
            bad |= fabs (r + 0.5 - row) > slack;
          }
      *out_found += found;
      *out_bad += bad;
      if (bad)
        g_test_message ("column %d: the plan's colour off row %.1f", j, row);
    }
}

static double
row_of_value (const NapkinPlotFrame *f,
              double                 x,
              gpointer               data)
{
  return y_to_px (f, *(const double *) data);
}

/* The plan's FLOP/s: a dashed row at the plan's value on the log axis, named
 * in the legend; none without a plan. */
static void
test_throughput_plan (void)
{
  NapkinThroughputPlot *plot = g_object_ref_sink (NAPKIN_THROUGHPUT_PLOT (napkin_throughput_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (rate);
  NapkinPlotStyle style;
  NapkinPlotFrame frame;
  cairo_surface_t *surface;
  double plan = 4.5e9, wrong = 0.8 * plan;
  guint found, bad, columns;

  napkin_throughput_plot_set_series (plot, series);
  napkin_throughput_plot_set_plan (plot, plan);
  g_assert_cmpfloat (napkin_throughput_plot_get_plan (plot), ==, plan);
  surface = draw (NAPKIN_PLOT (plot), &style, &frame);
  plan_columns (surface, &frame, &style.palette[NAPKIN_PLOT_PURPLE], row_of_value, &plan, 1.5, -100,
                &found, &bad, &columns);
  g_test_message ("plan: %u of %u columns drawn, %u off its row", found, columns, bad);
  g_assert_cmpuint (bad, ==, 0);
  /* dashed 6 on, 4 off: well over half the columns, never all */
  g_assert_cmpuint (found, >, columns / 2);
  g_assert_cmpuint (found, <, columns);
  /* negative control: a plan 20 % lower is about 20 pixels away */
  plan_columns (surface, &frame, &style.palette[NAPKIN_PLOT_PURPLE], row_of_value, &wrong, 1.5, -100,
                &found, &bad, &columns);
  g_assert_cmpuint (bad, ==, found);
  g_assert_cmpuint (bad, >, columns / 2);
  /* the measured line is still every extreme of its series */
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), series, is_color, NAPKIN_PLOT_GREEN, TRUE), ==, 0);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);

  /* no plan: not a pixel of its colour, legend included */
  napkin_throughput_plot_set_plan (plot, NAN);
  surface = draw (NAPKIN_PLOT (plot), &style, &frame);
  g_assert_cmpuint (count_color (surface, &style.palette[NAPKIN_PLOT_PURPLE], 0, WIDTH - 1, 0, HEIGHT - 1), ==, 0);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  g_assert_finalize_object (plot);
}

/* GradScaler's staircase: powers of two that halve and grow back. */
static double
scale (guint i)
{
  return ldexp (1, 10 + (int) ((i / 700) % 6));
}

static void
test_scale (void)
{
  NapkinScalePlot *plot = g_object_ref_sink (NAPKIN_SCALE_PLOT (napkin_scale_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (scale);
  g_autoptr(NapkinSeries) skipped = napkin_series_new ();

  napkin_scale_plot_set_series (plot, series, skipped);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), series, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);
  g_assert_finalize_object (plot);
}

/* The stack's top: the bottom bucket varies, the others are constant, so the top
 * of every column is the params' extreme plus the rest. */
static void
test_memory (void)
{
  NapkinMemoryPlot *plot = g_object_ref_sink (NAPKIN_MEMORY_PLOT (napkin_memory_plot_new ()));
  g_autoptr(NapkinSeries) params = napkin_series_new ();
  g_autoptr(NapkinSeries) stacked = napkin_series_new ();
  g_autoptr(NapkinSeries) wrong = napkin_series_new ();
  NapkinSeries *buckets[NAPKIN_MEMORY_PLOT_N_BUCKETS] = { params };
  const double rest[NAPKIN_MEMORY_PLOT_N_BUCKETS] = { 0, 1e4, 2e4, 5e3, 1e3 };

  for (guint b = 1; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    buckets[b] = napkin_series_new_sharing_x (params);
  for (guint i = 1; i <= N_POINTS; i++)
    {
      double sum = 1e4 * wave (i);

      napkin_series_append (params, i, 1e4 * wave (i));
      for (guint b = 1; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
        {
          napkin_series_append (buckets[b], i, rest[b]);
          sum += rest[b];
        }
      napkin_series_append (stacked, i, sum);
      napkin_series_append (wrong, i, sum * 0.7);
    }
  napkin_memory_plot_set_series (plot, buckets);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), stacked, is_saturated, NAPKIN_PLOT_BLUE, FALSE), ==, 0);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), wrong, is_saturated, NAPKIN_PLOT_BLUE, FALSE), >, 0.2);
  for (guint b = 1; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    g_object_unref (buckets[b]);
  g_assert_finalize_object (plot);
}

/* The x values of the axes, in closed form: 4096 tokens, 3e12 FLOPs a step; step
 * times of 0.1 s and 0.15 s taking turns (odd steps the longer); the fraction. */
static double
x_of (NapkinXAxis axis,
      guint       i,
      guint       n)
{
  switch (axis)
    {
    case NAPKIN_X_AXIS_TOKENS:
      return 4096.0 * i;
    case NAPKIN_X_AXIS_FLOPS:
      return 3e12 * i;
    case NAPKIN_X_AXIS_TIME:
      return 0.1 * i + 0.05 * ((i + 1) / 2);
    case NAPKIN_X_AXIS_RELATIVE:
      return (double) i / n;
    case NAPKIN_X_AXIS_STEP:
    case NAPKIN_N_X_AXES:
    default:
      return i;
    }
}

/* The map a run would give: built step by step as sums, not from x_of(). */
static NapkinSeries *
map_of (NapkinXAxis axis,
        guint       n)
{
  NapkinSeries *map = napkin_series_new ();
  double total = 0;

  for (guint i = 1; i <= n; i++)
    {
      switch (axis)
        {
        case NAPKIN_X_AXIS_TOKENS: total += 4096; break;
        case NAPKIN_X_AXIS_FLOPS: total += 3e12; break;
        case NAPKIN_X_AXIS_TIME: total += i % 2 ? 0.15 : 0.1; break;
        case NAPKIN_X_AXIS_RELATIVE: total = (double) i / n; break;
        case NAPKIN_X_AXIS_STEP: case NAPKIN_N_X_AXES: default: total = i; break;
        }
      napkin_series_append (map, i, total);
    }
  return map;
}

/* Each x axis, linear and in decades: every extreme of every column where the
 * oracle puts the points at x_of (step), mapped by the frame (log10 when log). */
static void
test_x_axes (void)
{
  NapkinLossPlot *plot = g_object_ref_sink (NAPKIN_LOSS_PLOT (napkin_loss_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (wave);
  g_autoptr(NapkinSeries) shifted = napkin_series_new ();

  napkin_loss_plot_set_series (plot, series);
  for (NapkinXAxis axis = NAPKIN_X_AXIS_STEP; axis < NAPKIN_N_X_AXES; axis++)
    {
      g_autoptr(NapkinSeries) map = map_of (axis, N_POINTS);
      g_autoptr(NapkinSeries) expected = napkin_series_new ();
      NapkinPlotFrame frame;
      NapkinPlotStyle style;
      cairo_surface_t *surface;

      for (guint i = 1; i <= N_POINTS; i++)
        napkin_series_append (expected, x_of (axis, i, N_POINTS), wave (i));
      g_test_message ("axis %d", axis);
      napkin_loss_plot_set_x_axis (plot, axis, map, NULL);
      napkin_loss_plot_set_log_x (plot, FALSE);
      g_assert_cmpfloat (check (NAPKIN_PLOT (plot), expected, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);
      napkin_loss_plot_set_log_x (plot, TRUE);
      min_checked = WIDTH / 5;
      g_assert_cmpfloat (check (NAPKIN_PLOT (plot), expected, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);
      min_checked = WIDTH / 2;
      /* the frame is in decades, and a point sits where log10 puts it */
      surface = draw (NAPKIN_PLOT (plot), &style, &frame);
      g_assert_true (frame.log_x);
      g_assert_cmpfloat_with_epsilon (log10 (frame.x0), round (log10 (frame.x0)), 1e-9);
      g_assert_cmpfloat_with_epsilon (log10 (frame.x1), round (log10 (frame.x1)), 1e-9);
      g_assert_cmpfloat (frame.x0, <=, x_of (axis, 1, N_POINTS));
      g_assert_cmpfloat (frame.x1, >=, x_of (axis, N_POINTS, N_POINTS));
      g_assert_cmpfloat_with_epsilon (napkin_plot_frame_x_to_px (&frame, x_of (axis, 77, N_POINTS)),
                                      frame.left + frame.width * (log10 (x_of (axis, 77, N_POINTS)) - log10 (frame.x0))
                                                   / (log10 (frame.x1) - log10 (frame.x0)), 1e-9);
      cairo_surface_destroy (surface);
      napkin_plot_style_clear (&style);
      /* negative control: an oracle that puts each loss 300 steps later on the
       * axis finds the plot wrong */
      napkin_series_clear (shifted);
      for (guint i = 1; i <= N_POINTS; i++)
        napkin_series_append (shifted, x_of (axis, i + 300, N_POINTS), wave (i));
      napkin_loss_plot_set_log_x (plot, FALSE);
      g_assert_cmpfloat (check (NAPKIN_PLOT (plot), shifted, is_color, NAPKIN_PLOT_BLUE, TRUE), >, 0.2);
    }
  g_assert_finalize_object (plot);
}

/* A run without what an axis needs is not drawn at all; the compared run that
 * has it still is. */
static void
test_x_axis_missing (void)
{
  NapkinLossPlot *plot = g_object_ref_sink (NAPKIN_LOSS_PLOT (napkin_loss_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (wave);
  g_autoptr(NapkinSeries) other = series_of (rate);
  g_autoptr(NapkinSeries) map = map_of (NAPKIN_X_AXIS_TOKENS, N_POINTS);
  g_autoptr(NapkinSeries) expected = napkin_series_new ();
  NapkinPlotStyle style;
  NapkinPlotFrame frame;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  const guint8 *data;
  int stride;
  guint blue = 0;

  napkin_loss_plot_set_series (plot, series);
  napkin_loss_plot_set_x_axis (plot, NAPKIN_X_AXIS_TOKENS, NULL, NULL);
  napkin_plot_style_init_for_widget (&style, GTK_WIDGET (plot));
  napkin_plot_draw (NAPKIN_PLOT (plot), cr, WIDTH, HEIGHT, &style);
  cairo_surface_flush (surface);
  g_assert_false (_napkin_plot_get_frame (NAPKIN_PLOT (plot), &frame));
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int r = 0; r < HEIGHT; r++)
    for (int j = 0; j < WIDTH; j++)
      blue += is_color (data + r * stride + 4 * j, &style.palette[NAPKIN_PLOT_BLUE]);
  g_assert_cmpuint (blue, ==, 0);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);

  /* the compared run has a map: it alone is drawn, at its tokens */
  for (guint i = 1; i <= N_POINTS; i++)
    napkin_series_append (expected, 4096.0 * i, rate (i));
  napkin_loss_plot_set_compare (plot, other, "other");
  napkin_loss_plot_set_x_axis (plot, NAPKIN_X_AXIS_TOKENS, NULL, map);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), expected, is_color, NAPKIN_PLOT_ORANGE, TRUE), ==, 0);
  g_assert_finalize_object (plot);
}

static double
row_of_rate (const NapkinPlotFrame *f,
             double                 x,
             gpointer               data)
{
  return y_to_px (f, *(const double *) data * x);
}

/* Draws @plot where it places no frame; returns the pixels of @color. */
static guint
color_without_frame (NapkinPlot      *plot,
                     NapkinPlotColor  color)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  NapkinPlotStyle style;
  NapkinPlotFrame frame;
  guint n;

  napkin_plot_style_init_for_widget (&style, GTK_WIDGET (plot));
  napkin_plot_draw (plot, cr, WIDTH, HEIGHT, &style);
  cairo_surface_flush (surface);
  g_assert_false (_napkin_plot_get_frame (plot, &frame));
  n = count_color (surface, &style.palette[color], 0, WIDTH - 1, 0, HEIGHT - 1);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  return n;
}

/* Time to tokens: the run's tokens against its wall time (the maps joined on
 * the step: x_of() in closed form), and the plan's line through the origin at
 * its tokens per second, a row per column from the frame's map; a run 1.6×
 * faster than its plan (4096 tokens per 0.125 s against 20,000 tokens/s). */
static void
test_pace_plan (void)
{
  NapkinPacePlot *plot = g_object_ref_sink (NAPKIN_PACE_PLOT (napkin_pace_plot_new ()));
  g_autoptr(NapkinSeries) time_map = map_of (NAPKIN_X_AXIS_TIME, N_POINTS);
  g_autoptr(NapkinSeries) tokens_map = map_of (NAPKIN_X_AXIS_TOKENS, N_POINTS);
  g_autoptr(NapkinSeries) expected = napkin_series_new ();
  NkImportPrediction plan = { .tokens_per_s = 20000, .target_tokens = 1e8 };
  double rate = 20000, wrong = 25000, tokens = 4096.0 * N_POINTS, slope, slack, dot_px;
  NapkinPlotStyle style;
  NapkinPlotFrame frame;
  cairo_surface_t *surface;
  guint found, bad, columns;

  for (guint i = 1; i <= N_POINTS; i++)
    napkin_series_append (expected, x_of (NAPKIN_X_AXIS_TIME, i, N_POINTS), 4096.0 * i);
  napkin_pace_plot_set_maps (plot, time_map, tokens_map);
  /* without a plan there is no line to set the run beside */
  g_assert_cmpuint (color_without_frame (NAPKIN_PLOT (plot), NAPKIN_PLOT_PURPLE), ==, 0);
  napkin_pace_plot_set_plan (plot, &plan);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), expected, is_color, NAPKIN_PLOT_GREEN, TRUE), ==, 0);

  surface = draw (NAPKIN_PLOT (plot), &style, &frame);
  /* the axis reaches the plan's time for the run's tokens: the run is ahead */
  g_assert_cmpfloat (frame.x1, >=, tokens / rate);
  slope = rate * (frame.x1 - frame.x0) / frame.width * frame.height / (frame.y1 - frame.y0);
  slack = 1.5 + slope / 2 + 0.5;
  dot_px = napkin_plot_frame_x_to_px (&frame, tokens / rate);
  plan_columns (surface, &frame, &style.palette[NAPKIN_PLOT_PURPLE], row_of_rate, &rate, slack, dot_px,
                &found, &bad, &columns);
  g_test_message ("plan: %u of %u columns drawn, %u off its line (slope %.2f px)", found, columns, bad, slope);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (found, >, columns / 3);
  /* the dot: the plan's time for the run's latest tokens, on its line */
  g_assert_cmpuint (count_color (surface, &style.palette[NAPKIN_PLOT_PURPLE],
                                 (int) dot_px - 2, (int) dot_px + 2,
                                 (int) y_to_px (&frame, tokens) - 2, (int) y_to_px (&frame, tokens) + 2), >=, 16);
  /* negative control: a plan of 25,000 tokens/s is elsewhere */
  plan_columns (surface, &frame, &style.palette[NAPKIN_PLOT_PURPLE], row_of_rate, &wrong, slack, dot_px,
                &found, &bad, &columns);
  g_assert_cmpuint (bad, >, found / 2);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);

  /* a run whose log has no step times: said, nothing drawn */
  napkin_pace_plot_set_maps (plot, NULL, tokens_map);
  g_assert_cmpuint (color_without_frame (NAPKIN_PLOT (plot), NAPKIN_PLOT_GREEN), ==, 0);
  g_assert_finalize_object (plot);
}

/* Across wall time, the loss plot marks the plan's time for the run's tokens:
 * one dashed column where the frame's map puts it; across steps, or without a
 * plan, none. */
static void
test_loss_plan_time (void)
{
  NapkinLossPlot *plot = g_object_ref_sink (NAPKIN_LOSS_PLOT (napkin_loss_plot_new ()));
  g_autoptr(NapkinSeries) series = series_of (wave);
  g_autoptr(NapkinSeries) map = map_of (NAPKIN_X_AXIS_TIME, N_POINTS);
  g_autoptr(NapkinSeries) expected = napkin_series_new ();
  const double plan_time = 700;   /* the run's last step ends at 625 s */
  NapkinPlotStyle style;
  NapkinPlotFrame frame;
  cairo_surface_t *surface;
  const GdkRGBA *purple;
  double px, wrong_px;
  int r0, r1;
  guint on, near, wrong;

  for (guint i = 1; i <= N_POINTS; i++)
    napkin_series_append (expected, x_of (NAPKIN_X_AXIS_TIME, i, N_POINTS), wave (i));
  napkin_loss_plot_set_series (plot, series);
  napkin_loss_plot_set_x_axis (plot, NAPKIN_X_AXIS_TIME, map, NULL);
  napkin_loss_plot_set_plan_time (plot, plan_time);
  g_assert_cmpfloat (napkin_loss_plot_get_plan_time (plot), ==, plan_time);
  surface = draw (NAPKIN_PLOT (plot), &style, &frame);
  purple = &style.palette[NAPKIN_PLOT_PURPLE];
  g_assert_cmpfloat (frame.x1, >=, plan_time);
  px = frame.left + (plan_time - frame.x0) / (frame.x1 - frame.x0) * frame.width;
  wrong_px = frame.left + (650 - frame.x0) / (frame.x1 - frame.x0) * frame.width;
  r0 = (int) ceil (frame.top);
  r1 = (int) floor (frame.top + frame.height) - 1;
  on = count_color (surface, purple, 0, WIDTH - 1, r0, r1);
  near = count_color (surface, purple, (int) floor (px - 1.5), (int) ceil (px + 1.5), r0, r1);
  wrong = count_color (surface, purple, (int) floor (wrong_px - 1.5), (int) ceil (wrong_px + 1.5), r0, r1);
  g_test_message ("plan mark: %u pixels in the plot, %u at x %.1f, %u at 650 s", on, near, px, wrong);
  g_assert_cmpuint (near, ==, on);
  /* dashed 6 on, 4 off down the frame's height */
  g_assert_cmpuint (near, >, (guint) (frame.height / 3));
  /* negative control: 50 s earlier is some 30 pixels left, and empty */
  g_assert_cmpuint (wrong, ==, 0);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  g_assert_cmpfloat (check (NAPKIN_PLOT (plot), expected, is_color, NAPKIN_PLOT_BLUE, TRUE), ==, 0);

  /* across steps the mark has no place; without a plan there is none */
  napkin_loss_plot_set_x_axis (plot, NAPKIN_X_AXIS_STEP, NULL, NULL);
  surface = draw (NAPKIN_PLOT (plot), &style, &frame);
  g_assert_cmpuint (count_color (surface, &style.palette[NAPKIN_PLOT_PURPLE], 0, WIDTH - 1, 0, HEIGHT - 1), ==, 0);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  napkin_loss_plot_set_x_axis (plot, NAPKIN_X_AXIS_TIME, map, NULL);
  napkin_loss_plot_set_plan_time (plot, NAN);
  surface = draw (NAPKIN_PLOT (plot), &style, &frame);
  g_assert_cmpuint (count_color (surface, &style.palette[NAPKIN_PLOT_PURPLE], 0, WIDTH - 1, 0, HEIGHT - 1), ==, 0);
  g_assert_cmpfloat (frame.x1, <, plan_time);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  g_assert_finalize_object (plot);
}

/* The envelope fills each column from its least to its greatest point and
 * nothing beyond, on a linear and on a log x axis (the log columns found by
 * binary search); oracle: brute_force() over every point. */
static guint
check_envelope (gboolean log_x,
                double   (*drawn) (guint i))
{
  g_autoptr(NapkinSeries) series = series_of (wave);
  g_autoptr(NapkinSeries) other = series_of (drawn);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  NapkinPlotStyle style = { 0 };
  NapkinPlotFrame f = { .left = 0, .top = 0, .width = WIDTH, .height = HEIGHT };
  double top[WIDTH], bottom[WIDTH];
  const guint8 *data;
  int stride;
  guint inside = 0, outside = 0, bad = 0;

  style.palette[NAPKIN_PLOT_BLUE] = (GdkRGBA) { 0.2, 0.4, 0.9, 1 };
  if (log_x)
    napkin_plot_frame_set_log_x_range (&f, 1, N_POINTS);
  else
    napkin_plot_frame_set_x_range (&f, 1, N_POINTS);
  napkin_plot_frame_set_y_range (&f, 0, 6, FALSE, TRUE);
  napkin_plot_draw_envelope (&style, cr, &f, other, NAPKIN_PLOT_BLUE, 0.25);
  cairo_surface_flush (surface);
  brute_force (series, &f, top, bottom);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int j = 1; j < WIDTH - 1; j++)
    {
      if (isnan (top[j - 1]) || isnan (top[j]) || isnan (top[j + 1]))
        continue;
      for (int r = 0; r < HEIGHT; r++)
        {
          guint8 alpha = data[r * stride + 4 * j + 3];

          if (r >= top[j] + 1.5 && r + 1 <= bottom[j] - 1.5)
            inside++, bad += alpha == 0;
          else if (r + 1 < min3 (top, j) - 1.5 || r > max3 (bottom, j) + 1.5)
            outside++, bad += alpha != 0;
        }
    }
  g_test_message ("%u pixels inside, %u outside, %u wrong", inside, outside, bad);
  g_assert_cmpuint (inside, >, WIDTH);
  g_assert_cmpuint (outside, >, WIDTH * HEIGHT / 5);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return bad;
}

static double
wobble (guint i)
{
  return wave (i) * (1 + 0.5 * sin (i / 50.0));
}

static void
test_envelope (void)
{
  g_assert_cmpuint (check_envelope (FALSE, wave), ==, 0);
  g_assert_cmpuint (check_envelope (TRUE, wave), ==, 0);
  /* negative control: the envelope of another series fails the same oracle */
  g_assert_cmpuint (check_envelope (FALSE, wobble), >, 1000);
  g_assert_cmpuint (check_envelope (TRUE, wobble), >, 1000);
}

/* A plot bound to nothing draws its empty message and places no frame. */
static void
test_unbound (void)
{
  NapkinLossPlot *plot = g_object_ref_sink (NAPKIN_LOSS_PLOT (napkin_loss_plot_new ()));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);
  NapkinPlotStyle style;
  NapkinPlotFrame frame;

  napkin_plot_style_init_for_widget (&style, GTK_WIDGET (plot));
  napkin_plot_draw (NAPKIN_PLOT (plot), cr, WIDTH, HEIGHT, &style);
  g_assert_false (_napkin_plot_get_frame (NAPKIN_PLOT (plot), &frame));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);
  g_assert_finalize_object (plot);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/plots/loss", test_loss);
  g_test_add_func ("/ui/plots/throughput", test_throughput);
  g_test_add_func ("/ui/plots/scale", test_scale);
  g_test_add_func ("/ui/plots/memory", test_memory);
  g_test_add_func ("/ui/plots/unbound", test_unbound);
  g_test_add_func ("/ui/plots/x-axes", test_x_axes);
  g_test_add_func ("/ui/plots/x-axis-missing", test_x_axis_missing);
  g_test_add_func ("/ui/plots/envelope", test_envelope);
  g_test_add_func ("/ui/plots/throughput-plan", test_throughput_plan);
  g_test_add_func ("/ui/plots/pace-plan", test_pace_plan);
  g_test_add_func ("/ui/plots/loss-plan-time", test_loss_plan_time);

  return g_test_run ();
}
