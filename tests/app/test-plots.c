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
      double px = f->left + (x - f->x0) / (f->x1 - f->x0) * f->width;
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
  g_assert_cmpuint (checked, >, WIDTH / 2);
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

  return g_test_run ();
}
