/* napkin-histogram-plot.c: a tensor's values by binade against what fp16 and bf16 can hold
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The mixed-precision lesson in one picture: the trainer histograms a tensor (a
 * gradient, as fp16's backward would hold it, loss scale included) by binade, and
 * counts what rounding into fp16 and bf16 would do to it (nk_train_histogram_compute()).
 * This widget draws those counts: one bar per power of two across, fp16's
 * underflow and subnormal ranges shaded behind them, bf16's edges dashed where they
 * fall inside the view, and the trainer's per-format counts as a caption. The
 * edges are nk-dtype's limits; nothing here counts anything.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <inttypes.h>

#include "nk-dtype.h"
#include "napkin-histogram-plot.h"

struct _NapkinHistogramPlot
{
  GtkWidget         parent_instance;

  NkTrainHistogram *histogram;   /* NULL: nothing yet */
};

G_DEFINE_FINAL_TYPE (NapkinHistogramPlot, napkin_histogram_plot, NAPKIN_TYPE_PLOT)

/* A format's edges in log2 of the magnitude: values below underflow_below round to
 * zero, those below normal_from to subnormals, those from overflow_from up to inf. */
typedef struct {
  double underflow_below;
  double normal_from;
  double overflow_from;
} Edges;

static void
edges_for (NkDType  dtype,
           Edges   *out)
{
  NkDTypeLimits l;

  nk_dtype_limits (dtype, &l);
  out->underflow_below = log2 (l.min_subnormal / 2);
  out->normal_from = log2 (l.min_normal);
  out->overflow_from = log2 (l.max);
}

static char *
percent (guint64 count,
         guint64 total)
{
  if (total == 0)
    return g_strdup ("—");
  if (count > 0 && 100.0 * (double) count / (double) total < 0.1)
    return g_strdup ("<0.1 %");
  return g_strdup_printf ("%.1f %%", 100.0 * (double) count / (double) total);
}

/* "fp16: 12.0 % → 0 · 3.1 % subnormal · 0.0 % → inf" */
static char *
format_summary (const NkTrainHistogram *h,
                NkTrainHistogramFormat  f,
                const char             *name)
{
  g_autofree char *u = percent (h->underflow[f], h->total);
  g_autofree char *s = percent (h->subnormal[f], h->total);
  g_autofree char *o = percent (h->overflow[f], h->total);

  return g_strdup_printf (_("%s: %s round to 0 · %s subnormal · %s to inf"), name, u, s, o);
}

static char *
format_title (const NkTrainHistogram *h)
{
  if (h->gradient && h->scale != 1.0)
    return g_strdup_printf (_("Gradient of %s × loss scale %g, step %" PRIu64),
                            h->name, h->scale, h->step);
  if (h->gradient)
    return g_strdup_printf (_("Gradient of %s, step %" PRIu64), h->name, h->step);
  return g_strdup_printf (_("Values of %s, step %" PRIu64), h->name, h->step);
}

/* NapkinPlotClass.describe: the title and the two summaries the plot prints,
 * and the range of binades its bars cover. */
static char *
describe (NapkinPlot *plot)
{
  const NkTrainHistogram *h = NAPKIN_HISTOGRAM_PLOT (plot)->histogram;
  g_autofree char *title = NULL;
  g_autofree char *s16 = NULL;
  g_autofree char *sbf = NULL;
  int first = -1, last = -1;

  if (h == NULL)
    return NULL;
  for (int i = 0; i < NK_TRAIN_HISTOGRAM_N_BINS; i++)
    if (h->bins[i] > 0)
      {
        if (first < 0)
          first = i;
        last = i;
      }
  title = format_title (h);
  s16 = format_summary (h, NK_TRAIN_HISTOGRAM_F16, "fp16");
  sbf = format_summary (h, NK_TRAIN_HISTOGRAM_BF16, "bf16");
  if (first < 0)
    return g_strdup_printf ("%s. %s. %s.", title, s16, sbf);
  return g_strdup_printf (_("%s. Magnitudes from 2^%d to 2^%d. %s. %s."), title,
                          first + NK_TRAIN_HISTOGRAM_MIN_EXP,
                          last + 1 + NK_TRAIN_HISTOGRAM_MIN_EXP, s16, sbf);
}

static void
shade (const NapkinPlotStyle *style,
       cairo_t               *cr,
       const NapkinPlotFrame *frame,
       double                 from,
       double                 to,
       NapkinPlotColor        color)
{
  double x0 = napkin_plot_frame_x_to_px (frame, MAX (from, frame->x0));
  double x1 = napkin_plot_frame_x_to_px (frame, MIN (to, frame->x1));

  if (x1 <= x0)
    return;
  napkin_plot_style_set_color (style, cr, color, style->dark ? 0.22 : 0.16);
  cairo_rectangle (cr, x0, frame->top, x1 - x0, frame->height);
  cairo_fill (cr);
}

/* NapkinPlotClass.draw */
static void
draw (NapkinPlot            *plot,
      cairo_t               *cr,
      int                    width,
      int                    height,
      const NapkinPlotStyle *style)
{
  NapkinHistogramPlot *self = NAPKIN_HISTOGRAM_PLOT (plot);
  double hover_x = napkin_plot_get_hover_x (plot);
  const NkTrainHistogram *h = self->histogram;
  NapkinPlotFrame frame = { 0 };
  Edges f16, bf16;
  int first = -1, last = -1;
  guint64 most = 0;
  double lo, hi, top, hover_e;
  const char *labels[4];
  const NapkinPlotColor colors[4] = { NAPKIN_PLOT_BLUE, NAPKIN_PLOT_RED, NAPKIN_PLOT_YELLOW, NAPKIN_PLOT_PURPLE };
  const gboolean dashed[4] = { FALSE, FALSE, FALSE, TRUE };
  const double bf16_dash[2] = { 4, 3 };
  g_autofree char *title = NULL;
  g_autofree char *s16 = NULL;
  g_autofree char *sbf = NULL;
  g_autofree char *extra = NULL;
  g_autoptr(PangoLayout) probe = NULL;
  int line_h;

  if (h == NULL || h->total == 0)
    {
      napkin_plot_draw_empty (style, cr, width, height,
                              _("The values of a chosen tensor appear here during a run"));
      return;
    }

  edges_for (NK_DTYPE_F16, &f16);
  edges_for (NK_DTYPE_BF16, &bf16);
  for (int i = 0; i < NK_TRAIN_HISTOGRAM_N_BINS; i++)
    if (h->bins[i] > 0)
      {
        if (first < 0)
          first = i;
        last = i;
        most = MAX (most, h->bins[i]);
      }
  /* The view: the data and fp16's whole range, a binade of air each side. */
  lo = MIN (first >= 0 ? first + NK_TRAIN_HISTOGRAM_MIN_EXP : 0, floor (f16.underflow_below)) - 1;
  hi = MAX (last >= 0 ? last + 1 + NK_TRAIN_HISTOGRAM_MIN_EXP : 0, ceil (f16.overflow_from)) + 1;

  probe = napkin_plot_layout (style, cr, "Hg", TRUE, FALSE);
  pango_layout_get_pixel_size (probe, NULL, &line_h);

  title = format_title (h);
  napkin_plot_style_set_fg (style, cr, 0.9);
  napkin_plot_draw_text (style, cr, title, 0, 0, 0, 0, TRUE, TRUE);
  top = line_h + 4;

  s16 = format_summary (h, NK_TRAIN_HISTOGRAM_F16, "fp16");
  sbf = format_summary (h, NK_TRAIN_HISTOGRAM_BF16, "bf16");
  napkin_plot_style_set_fg (style, cr, 0.75);
  napkin_plot_draw_text (style, cr, s16, 0, top, 0, 0, TRUE, FALSE);
  top += line_h + 2;
  napkin_plot_draw_text (style, cr, sbf, 0, top, 0, 0, TRUE, FALSE);
  top += line_h + 6;

  labels[0] = _("Elements per binade");
  labels[1] = _("fp16 rounds to 0");
  labels[2] = _("fp16 subnormal");
  labels[3] = bf16.underflow_below >= lo ? _("bf16 edges") : _("bf16 reaches 2⁻¹³³, far left");
  top += napkin_plot_draw_legend (style, cr, 0, top, width, labels, colors, dashed, 4) + 6;

  napkin_plot_frame_set_x_range (&frame, lo, hi);
  napkin_plot_frame_set_y_range (&frame, 0, MAX (most, 1), FALSE, TRUE);
  napkin_plot_frame_place (&frame, style, cr, width, height, top, napkin_plot_format_count);

  shade (style, cr, &frame, lo, f16.underflow_below, NAPKIN_PLOT_RED);
  shade (style, cr, &frame, f16.underflow_below, f16.normal_from, NAPKIN_PLOT_YELLOW);
  shade (style, cr, &frame, f16.overflow_from, hi, NAPKIN_PLOT_RED);
  napkin_plot_draw_axes (style, cr, &frame, _("log₂ |value| (binade)"), _("Elements"),
                         napkin_plot_format_count);
  napkin_plot_draw_vline (style, cr, &frame, bf16.underflow_below, NAPKIN_PLOT_PURPLE, 1.5,
                          bf16_dash);
  napkin_plot_draw_vline (style, cr, &frame, bf16.normal_from, NAPKIN_PLOT_PURPLE, 1.5, bf16_dash);

  napkin_plot_style_set_color (style, cr, NAPKIN_PLOT_BLUE, 0.85);
  for (int i = MAX (first, 0); first >= 0 && i <= last; i++)
    {
      double e = i + NK_TRAIN_HISTOGRAM_MIN_EXP;
      double x0, x1, y;

      if (h->bins[i] == 0 || e < lo || e + 1 > hi)
        continue;
      x0 = napkin_plot_frame_x_to_px (&frame, e);
      x1 = napkin_plot_frame_x_to_px (&frame, e + 1);
      y = napkin_plot_frame_y_to_px (&frame, (double) h->bins[i]);
      cairo_rectangle (cr, x0 + 0.5, y, MAX (x1 - x0 - 1, 1), frame.top + frame.height - y);
    }
  cairo_fill (cr);

  if (h->zeros > 0 || h->nonfinite > 0)
    {
      extra = g_strdup_printf (_("%" PRIu64 " exact zeros · %" PRIu64 " inf or NaN"),
                               h->zeros, h->nonfinite);
      napkin_plot_style_set_fg (style, cr, 0.7);
      napkin_plot_draw_text (style, cr, extra, frame.left + frame.width - 4, frame.top + 2,
                             1.0, 0.0, TRUE, FALSE);
    }

  if (napkin_plot_frame_hover_x (&frame, hover_x, &hover_e))
    {
      int e = (int) floor (hover_e);
      int i = e - NK_TRAIN_HISTOGRAM_MIN_EXP;
      g_autofree char *text = NULL;

      if (i >= 0 && i < NK_TRAIN_HISTOGRAM_N_BINS)
        {
          text = g_strdup_printf (_("2^%d ≤ |x| < 2^%d: %" PRIu64), e, e + 1, h->bins[i]);
          napkin_plot_draw_readout (style, cr, &frame, hover_x, text);
        }
    }
}

static void
napkin_histogram_plot_finalize (GObject *object)
{
  NapkinHistogramPlot *self = NAPKIN_HISTOGRAM_PLOT (object);

  g_clear_pointer (&self->histogram, g_free);

  G_OBJECT_CLASS (napkin_histogram_plot_parent_class)->finalize (object);
}

static void
napkin_histogram_plot_class_init (NapkinHistogramPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  NapkinPlotClass *plot_class = NAPKIN_PLOT_CLASS (klass);

  object_class->finalize = napkin_histogram_plot_finalize;
  gtk_widget_class_set_css_name (widget_class, "napkin-histogram-plot");
  plot_class->draw = draw;
  plot_class->describe = describe;
  plot_class->min_height = 220;
  plot_class->natural_height = 280;
  plot_class->natural_width = 480;
}

static void
napkin_histogram_plot_init (NapkinHistogramPlot *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("A tensor's values by power of two against fp16's and bf16's range"), -1);
}

GtkWidget *
napkin_histogram_plot_new (void)
{
  return g_object_new (NAPKIN_TYPE_HISTOGRAM_PLOT, NULL);
}

/**
 * napkin_histogram_plot_set_histogram:
 * @self: a histogram plot
 * @histogram: (nullable): the trainer's histogram (copied), or %NULL for none
 */
void
napkin_histogram_plot_set_histogram (NapkinHistogramPlot    *self,
                                     const NkTrainHistogram *histogram)
{
  g_return_if_fail (NAPKIN_IS_HISTOGRAM_PLOT (self));

  g_clear_pointer (&self->histogram, g_free);
  if (histogram != NULL)
    self->histogram = g_memdup2 (histogram, sizeof *histogram);
  napkin_plot_changed (NAPKIN_PLOT (self));
}

/**
 * napkin_histogram_plot_get_histogram:
 * @self: a histogram plot
 *
 * Returns: (transfer none) (nullable): what the plot draws
 */
const NkTrainHistogram *
napkin_histogram_plot_get_histogram (NapkinHistogramPlot *self)
{
  g_return_val_if_fail (NAPKIN_IS_HISTOGRAM_PLOT (self), NULL);
  return self->histogram;
}

