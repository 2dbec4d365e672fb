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
 */
#include "config.h"

#include <math.h>
#include <adwaita.h>

#include "napkin-loss-plot.h"
#include "napkin-memory-plot.h"
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

  return g_test_run ();
}
