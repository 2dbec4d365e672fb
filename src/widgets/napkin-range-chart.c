/* napkin-range-chart.c: the magnitudes each format can hold, on one log10 axis
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One lane per format: a pale band from the smallest subnormal to the smallest
 * normal, a solid band from there to the largest finite value, both read from
 * nk_dtype_limits(). A vertical line marks the input's magnitude; in each lane a
 * dot marks where the format's nearest value lands, or a cross where the value
 * is lost (rounded to zero, to infinity or to NaN). The chart draws what it is
 * told; it rounds nothing itself. Its accessible description says the same in
 * words, from the same limits and results.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-range-chart.h"

#define LABEL_WIDTH   84   /* room for "e4m3fnuz", "fp6-e3m2" */
#define RIGHT_MARGIN  44
#define TOP_MARGIN    24
#define LANE_HEIGHT   18
#define LANE_GAP      10
#define AXIS_HEIGHT   28
#define MIN_AXIS      160   /* narrowest axis: at 360 px the card still fits */
#define MIN_TICK_GAP  44    /* room for a label such as "10⁻⁴⁰" */

typedef struct {
  NkDType       dtype;
  NkDTypeLimits limits;
  gboolean      known;
  double        value;
} Lane;

struct _NapkinRangeChart
{
  GtkWidget  parent_instance;

  GArray    *lanes;   /* (element-type Lane) */
  gboolean   input_known;
  double     input;
  char      *input_label;
  char      *description;
};

G_DEFINE_FINAL_TYPE (NapkinRangeChart, napkin_range_chart, GTK_TYPE_WIDGET)

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              const char *fallback,
              GdkRGBA    *out)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);

  if (!gtk_style_context_lookup_color (context, name, out))
    gdk_rgba_parse (out, fallback);
}

static void
domain (NapkinRangeChart *self,
        double           *out_lo,
        double           *out_hi)
{
  double lo = 0, hi = 0;

  for (guint i = 0; i < self->lanes->len; i++)
    {
      const Lane *lane = &g_array_index (self->lanes, Lane, i);

      lo = MIN (lo, log10 (lane->limits.min_subnormal));
      hi = MAX (hi, log10 (lane->limits.max));
    }
  if (self->input_known && isfinite (self->input) && self->input != 0)
    {
      double x = log10 (fabs (self->input));

      lo = MIN (lo, x - 1);
      hi = MAX (hi, x + 1);
    }
  *out_lo = floor (lo / 10) * 10;
  *out_hi = ceil (hi / 10) * 10;
  if (*out_hi - *out_lo < 10)
    *out_hi = *out_lo + 10;
}

/* "10⁻⁴⁰" */
static char *
power_of_ten (int exponent)
{
  static const char *superscripts[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  g_autofree char *digits = g_strdup_printf ("%d", ABS (exponent));
  GString *s = g_string_new ("10");

  if (exponent < 0)
    g_string_append (s, "⁻");
  for (const char *p = digits; *p; p++)
    g_string_append (s, superscripts[*p - '0']);
  return g_string_free (s, FALSE);
}

static void
show_text (cairo_t      *cr,
           PangoLayout  *layout,
           const char   *text,
           double        x,
           double        y,
           double        xalign)
{
  int width, height;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &width, &height);
  cairo_move_to (cr, x - xalign * width, y - height / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_cross (cairo_t *cr,
            double   x,
            double   y,
            double   r)
{
  cairo_move_to (cr, x - r, y - r);
  cairo_line_to (cr, x + r, y + r);
  cairo_move_to (cr, x + r, y - r);
  cairo_line_to (cr, x - r, y + r);
  cairo_stroke (cr);
}

/* A magnitude in the description: three digits are plenty to hear a range by. */
static char *
describe_number (double value)
{
  if (isnan (value))
    return g_strdup (_("NaN"));
  if (isinf (value))
    return g_strdup (value < 0 ? _("minus infinity") : _("infinity"));
  return g_strdup_printf ("%.3g", value);
}

/* The chart in words, for screen readers: each lane's spans and, when the
 * input is marked, where it lands in each format. */
static void
update_description (NapkinRangeChart *self)
{
  g_autoptr(GString) text = g_string_new (_("The magnitudes each number format can hold, "
                                            "on a logarithmic axis."));
  gboolean marked = self->input_known && isfinite (self->input) && self->input != 0;

  for (guint i = 0; i < self->lanes->len; i++)
    {
      const Lane *lane = &g_array_index (self->lanes, Lane, i);
      g_autofree char *min_normal = describe_number (lane->limits.min_normal);
      g_autofree char *max = describe_number (lane->limits.max);
      g_autofree char *min_subnormal = describe_number (lane->limits.min_subnormal);

      g_string_append_c (text, ' ');
      /* Translators: a format's name, then its smallest normal, largest finite
       * and smallest subnormal magnitudes */
      g_string_append_printf (text, _("%s: normal values from %s to %s, subnormals down to %s."),
                              nk_dtype_info (lane->dtype)->cli_name, min_normal, max,
                              min_subnormal);
    }

  if (marked)
    {
      g_string_append_c (text, ' ');
      /* Translators: the input's label, e.g. "|x| = 1e-8" */
      g_string_append_printf (text, _("The input is marked at %s."),
                              self->input_label != NULL ? self->input_label : "");
      for (guint i = 0; i < self->lanes->len; i++)
        {
          const Lane *lane = &g_array_index (self->lanes, Lane, i);
          g_autofree char *value = NULL;

          if (!lane->known)
            continue;
          value = describe_number (lane->value);
          g_string_append_c (text, ' ');
          if (isfinite (lane->value) && lane->value != 0)
            /* Translators: a format's name and the value the input becomes there */
            g_string_append_printf (text, _("%s holds it as %s."),
                                    nk_dtype_info (lane->dtype)->cli_name, value);
          else
            /* Translators: a format's name and what the lost input becomes: 0,
             * infinity or NaN */
            g_string_append_printf (text, _("%s loses it: it becomes %s."),
                                    nk_dtype_info (lane->dtype)->cli_name, value);
        }
    }

  if (g_strcmp0 (self->description, text->str) == 0)
    return;
  g_free (self->description);
  self->description = g_strdup (text->str);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->description,
                                  -1);
}

static void
napkin_range_chart_snapshot (GtkWidget   *widget,
                             GtkSnapshot *snapshot)
{
  NapkinRangeChart *self = NAPKIN_RANGE_CHART (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr(PangoLayout) layout = NULL;
  GdkRGBA fg, band, marker;
  double lo, hi, x0, x1, scale, step, input_x = 0;
  gboolean have_input_x = FALSE;
  cairo_t *cr;

  if (width <= LABEL_WIDTH + RIGHT_MARGIN || self->lanes->len == 0)
    return;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  lookup_color (widget, "blue_3", "#62a0ea", &band);
  lookup_color (widget, "error_color", "#e01b24", &marker);

  domain (self, &lo, &hi);
  x0 = LABEL_WIDTH;
  x1 = width - RIGHT_MARGIN;
  scale = (x1 - x0) / (hi - lo);
#define X(log10_value) (x0 + ((log10_value) - lo) * scale)

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  layout = gtk_widget_create_pango_layout (widget, NULL);

  /* Grid and axis: a tick every 10 decades, closer when the span is short and
   * further apart when the chart is narrow, so that no two labels overlap. */
  step = (hi - lo) > 60 ? 10 : (hi - lo) > 20 ? 5 : 1;
  while (step * scale < MIN_TICK_GAP && step < hi - lo)
    step *= 2;
  cairo_set_line_width (cr, 1);
  for (double d = lo; d <= hi + 0.5; d += step)
    {
      g_autofree char *text = power_of_ten ((int) d);
      double x = round (X (d)) + 0.5;

      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, d == 0 ? 0.35 : 0.12);
      cairo_move_to (cr, x, TOP_MARGIN - 4);
      cairo_line_to (cr, x, height - AXIS_HEIGHT + 4);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.7);
      show_text (cr, layout, text, x, height - AXIS_HEIGHT / 2.0 + 2, 0.5);
    }

  if (self->input_known && isfinite (self->input) && self->input != 0)
    {
      input_x = X (log10 (fabs (self->input)));
      have_input_x = TRUE;
    }

  for (guint i = 0; i < self->lanes->len; i++)
    {
      const Lane *lane = &g_array_index (self->lanes, Lane, i);
      const NkDTypeInfo *info = nk_dtype_info (lane->dtype);
      double y = TOP_MARGIN + i * (LANE_HEIGHT + LANE_GAP);
      double cy = y + LANE_HEIGHT / 2.0;
      double sub = X (log10 (lane->limits.min_subnormal));
      double norm = X (log10 (lane->limits.min_normal));
      double max = X (log10 (lane->limits.max));

      gdk_cairo_set_source_rgba (cr, &fg);
      show_text (cr, layout, info->cli_name, x0 - 12, cy, 1);

      cairo_set_source_rgba (cr, band.red, band.green, band.blue, 0.45);
      cairo_rectangle (cr, sub, y + 3, norm - sub, LANE_HEIGHT - 6);
      cairo_fill (cr);
      cairo_set_source_rgba (cr, band.red, band.green, band.blue, 0.9);
      cairo_rectangle (cr, norm, y, max - norm, LANE_HEIGHT);
      cairo_fill (cr);

      if (!lane->known || !have_input_x)
        continue;

      if (isfinite (lane->value) && lane->value != 0)
        {
          double x = X (log10 (fabs (lane->value)));

          cairo_arc (cr, x, cy, 5, 0, 2 * G_PI);
          gdk_cairo_set_source_rgba (cr, &fg);
          cairo_fill_preserve (cr);
          cairo_set_source_rgba (cr, band.red, band.green, band.blue, 1);
          cairo_set_line_width (cr, 1.5);
          cairo_stroke (cr);
        }
      else
        {
          /* The value did not survive: a cross where it was, and what it became. */
          const char *became = isnan (lane->value) ? "NaN" : isinf (lane->value) ? "∞" : "0";
          g_autofree char *text = g_strdup_printf ("→ %s", became);

          gdk_cairo_set_source_rgba (cr, &marker);
          cairo_set_line_width (cr, 2);
          draw_cross (cr, input_x, cy, 5);
          /* Write it on the side away from the band: left of an underflow,
           * right of an overflow. */
          if (lane->value == 0 ? input_x - 60 > 0 : input_x + 60 > width)
            show_text (cr, layout, text, input_x - 10, cy, 1);
          else
            show_text (cr, layout, text, input_x + 10, cy, 0);
        }
    }

  if (have_input_x)
    {
      double bottom = TOP_MARGIN + self->lanes->len * (LANE_HEIGHT + LANE_GAP) - LANE_GAP + 4;

      gdk_cairo_set_source_rgba (cr, &marker);
      cairo_set_line_width (cr, 2);
      cairo_move_to (cr, input_x, TOP_MARGIN - 6);
      cairo_line_to (cr, input_x, bottom);
      cairo_stroke (cr);
      if (self->input_label != NULL)
        show_text (cr, layout, self->input_label, input_x,
                   TOP_MARGIN / 2.0 - 2, input_x < x0 + 40 ? 0 : input_x > x1 - 40 ? 1 : 0.5);
    }

#undef X
  cairo_destroy (cr);
}

static void
napkin_range_chart_measure (GtkWidget      *widget,
                            GtkOrientation  orientation,
                            int             for_size,
                            int            *minimum,
                            int            *natural,
                            int            *minimum_baseline,
                            int            *natural_baseline)
{
  NapkinRangeChart *self = NAPKIN_RANGE_CHART (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = LABEL_WIDTH + RIGHT_MARGIN + MIN_AXIS;
      *natural = LABEL_WIDTH + RIGHT_MARGIN + 640;
    }
  else
    *minimum = *natural = TOP_MARGIN + self->lanes->len * (LANE_HEIGHT + LANE_GAP)
                          + AXIS_HEIGHT;
}

static void
napkin_range_chart_finalize (GObject *object)
{
  NapkinRangeChart *self = NAPKIN_RANGE_CHART (object);

  g_clear_pointer (&self->lanes, g_array_unref);
  g_clear_pointer (&self->input_label, g_free);
  g_clear_pointer (&self->description, g_free);

  G_OBJECT_CLASS (napkin_range_chart_parent_class)->finalize (object);
}

static void
napkin_range_chart_class_init (NapkinRangeChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = napkin_range_chart_finalize;
  widget_class->snapshot = napkin_range_chart_snapshot;
  widget_class->measure = napkin_range_chart_measure;

  gtk_widget_class_set_css_name (widget_class, "rangechart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
napkin_range_chart_init (NapkinRangeChart *self)
{
  self->lanes = g_array_new (FALSE, TRUE, sizeof (Lane));
  update_description (self);
}

/**
 * napkin_range_chart_new:
 *
 * Returns: (transfer full): a new, empty range chart
 */
GtkWidget *
napkin_range_chart_new (void)
{
  return g_object_new (NAPKIN_TYPE_RANGE_CHART, NULL);
}

/**
 * napkin_range_chart_add_format:
 * @self: a range chart
 * @dtype: a floating-point format
 *
 * Adds a lane for @dtype below the others; its spans come from nk_dtype_limits().
 */
void
napkin_range_chart_add_format (NapkinRangeChart *self,
                               NkDType           dtype)
{
  Lane lane = { .dtype = dtype };

  g_return_if_fail (NAPKIN_IS_RANGE_CHART (self));
  g_return_if_fail (nk_dtype_is_float (dtype));

  nk_dtype_limits (dtype, &lane.limits);
  g_array_append_val (self->lanes, lane);
  update_description (self);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/**
 * napkin_range_chart_set_input:
 * @self: a range chart
 * @known: whether there is a current input
 * @value: the input value
 * @label: (nullable): the text above its marker
 *
 * Marks the input's magnitude on the axis.
 */
void
napkin_range_chart_set_input (NapkinRangeChart *self,
                              gboolean          known,
                              double            value,
                              const char       *label)
{
  g_return_if_fail (NAPKIN_IS_RANGE_CHART (self));

  self->input_known = known;
  self->input = value;
  g_free (self->input_label);
  self->input_label = g_strdup (label);
  update_description (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_range_chart_set_result:
 * @self: a range chart
 * @dtype: a format the chart has a lane for
 * @known: whether the format has a current value
 * @value: the format's nearest representable value to the input
 *
 * Marks where the input lands in @dtype.
 */
void
napkin_range_chart_set_result (NapkinRangeChart *self,
                               NkDType           dtype,
                               gboolean          known,
                               double            value)
{
  g_return_if_fail (NAPKIN_IS_RANGE_CHART (self));

  for (guint i = 0; i < self->lanes->len; i++)
    {
      Lane *lane = &g_array_index (self->lanes, Lane, i);

      if (lane->dtype == dtype)
        {
          lane->known = known;
          lane->value = value;
          update_description (self);
          gtk_widget_queue_draw (GTK_WIDGET (self));
          return;
        }
    }
  g_return_if_reached ();
}

/**
 * napkin_range_chart_get_description:
 * @self: a range chart
 *
 * The chart in words, as its accessible description gives it to screen readers.
 *
 * Returns: (transfer none): the description
 */
const char *
napkin_range_chart_get_description (NapkinRangeChart *self)
{
  g_return_val_if_fail (NAPKIN_IS_RANGE_CHART (self), NULL);

  return self->description;
}
