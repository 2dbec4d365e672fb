/* napkin-memory-chart.c: stacked bars of what each GPU holds, against its HBM
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chart draws what it is told and decides nothing: the planner page binds
 * the per-GPU bytes of each bucket, the HBM size and whether the plan fits from
 * an NkPlan. Under data parallelism every GPU holds the same bytes, so beyond a
 * handful of GPUs the bars stand for the first few and the last one.
 */
#include "config.h"

#include <math.h>
#include <adwaita.h>
#include <glib/gi18n.h>

#include "nk-units.h"
#include "napkin-memory-chart.h"

#define MAX_BARS 8
/* Bars shorter than this against the HBM are drawn to their own scale. */
#define MIN_BAR_HEIGHT 6.0

struct _NapkinMemoryChart
{
  GtkWidget  parent_instance;

  double     bytes[NAPKIN_MEMORY_N_BUCKETS];
  /* the routed experts' share of each bucket, drawn hatched inside it */
  double     expert[NAPKIN_MEMORY_N_BUCKETS];
  double     hbm;
  double     gpus;
  gboolean   fits;
};

G_DEFINE_FINAL_TYPE (NapkinMemoryChart, napkin_memory_chart, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PARAMS,
  PROP_GRADS,
  PROP_OPTIMIZER,
  PROP_ACTIVATIONS,
  PROP_LOW_PRECISION,
  PROP_HBM,
  PROP_GPUS,
  PROP_FITS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* libadwaita's named palette colours, the same as the training plots' (napkin-plot-axes.c):
 * the darker tone reads on a light background, the lighter one on a dark background;
 * the four hues stay apart for colour-blind readers because they also differ in
 * lightness. The RGBA values are those colours, for a theme that lacks the names. */
static const struct {
  const char *name;
  const char *light_name;
  const char *dark_name;
  GdkRGBA     light;
  GdkRGBA     dark;
} buckets[NAPKIN_MEMORY_N_BUCKETS] = {
  { N_("Parameters"),      "blue_3",   "blue_2",   { 0.208, 0.518, 0.894, 1 }, { 0.384, 0.627, 0.918, 1 } },
  { N_("Gradients"),       "green_5",  "green_2",  { 0.149, 0.635, 0.412, 1 }, { 0.341, 0.890, 0.537, 1 } },
  { N_("Optimizer state"), "yellow_5", "yellow_2", { 0.898, 0.647, 0.039, 1 }, { 0.973, 0.894, 0.361, 1 } },
  { N_("Activations"),     "purple_3", "purple_2", { 0.569, 0.255, 0.675, 1 }, { 0.753, 0.380, 0.796, 1 } },
  { N_("Low-precision copies"), "orange_4", "orange_2", { 0.902, 0.380, 0.000, 1 }, { 1.000, 0.639, 0.282, 1 } },
};

/* Each bucket's colour from the style context, in the tone for a dark or light style
 * as AdwStyleManager says. */
static void
lookup_bucket_colors (GtkStyleContext *style,
                      GdkRGBA          colors[NAPKIN_MEMORY_N_BUCKETS])
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    if (!gtk_style_context_lookup_color (style, dark ? buckets[i].dark_name : buckets[i].light_name,
                                         &colors[i]))
      colors[i] = dark ? buckets[i].dark : buckets[i].light;
}

/* The low-precision copies have a legend entry only where a recipe keeps some. */
static gboolean
bucket_shown (NapkinMemoryChart *self,
              guint              bucket)
{
  return bucket != NAPKIN_MEMORY_LOW_PRECISION || self->bytes[bucket] > 0;
}

static gboolean
same_double (double a,
             double b)
{
  return a == b || (isnan (a) && isnan (b));
}

/* The routed experts' bytes over the buckets (0 for a dense model). */
static double
expert_bytes (NapkinMemoryChart *self)
{
  double total = 0;

  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    total += self->expert[i];
  return total;
}

static double
total_bytes (NapkinMemoryChart *self)
{
  double total = 0;

  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    total += self->bytes[i];
  return total;
}

/* NAN, or a negative value set through a property (GObject refuses NaN there),
 * means the planner has no estimate to draw. */
static gboolean
has_estimate (NapkinMemoryChart *self)
{
  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    if (!isfinite (self->bytes[i]) || self->bytes[i] < 0)
      return FALSE;
  return isfinite (self->hbm) && self->hbm > 0;
}

/* What a sighted person reads off the chart: the total against the HBM and
 * the verdict (the name), each bucket's bytes as the legend gives them (the
 * description). */
static void
update_accessible_label (NapkinMemoryChart *self)
{
  g_autofree char *total = nk_units_format_bytes (total_bytes (self));
  g_autofree char *hbm = nk_units_format_bytes (self->hbm);
  g_autofree char *text = NULL;
  g_autoptr(GString) description = g_string_new (NULL);

  if (!has_estimate (self))
    text = g_strdup (_("Memory per GPU: no estimate"));
  else if (self->fits)
    text = g_strdup_printf (_("Memory per GPU: %s of %s, fits"), total, hbm);
  else
    text = g_strdup_printf (_("Memory per GPU: %s of %s, does not fit"), total, hbm);
  if (has_estimate (self))
    for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
      {
        g_autofree char *value = NULL;

        if (!bucket_shown (self, i))
          continue;
        value = nk_units_format_bytes (self->bytes[i]);
        /* "Parameters 140 GiB", as the legend reads */
        g_string_append_printf (description, i > 0 ? "; %s %s" : "%s %s",
                                _(buckets[i].name), value);
      }
  if (has_estimate (self) && expert_bytes (self) > 0)
    {
      g_autofree char *value = nk_units_format_bytes (expert_bytes (self));

      /* as the legend's hatched entry reads */
      g_string_append_printf (description, "; %s %s", _("routed experts' share of parameters, gradients and optimizer state"), value);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, text,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description->str,
                                  -1);
}

static void
changed (NapkinMemoryChart *self,
         guint              prop_id)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
  update_accessible_label (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static PangoLayout *
make_layout (GtkWidget  *widget,
             const char *text,
             gboolean    small,
             gboolean    bold)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);
  PangoAttrList *attrs = pango_attr_list_new ();

  /* Byte counts line up when digits have one width. */
  pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum=1"));
  if (small)
    pango_attr_list_insert (attrs, pango_attr_scale_new (PANGO_SCALE_SMALL));
  if (bold)
    pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  return layout;
}

static void
show_layout (cairo_t     *cr,
             PangoLayout *layout,
             double       x,
             double       y)
{
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

static void
rounded_top_rect (cairo_t *cr,
                  double   x,
                  double   y,
                  double   w,
                  double   h,
                  double   r)
{
  r = MIN (r, MIN (w / 2, h));
  cairo_new_sub_path (cr);
  cairo_move_to (cr, x, y + h);
  cairo_line_to (cr, x, y + r);
  cairo_arc (cr, x + r, y + r, r, G_PI, 1.5 * G_PI);
  cairo_arc (cr, x + w - r, y + r, r, 1.5 * G_PI, 2 * G_PI);
  cairo_line_to (cr, x + w, y + h);
  cairo_close_path (cr);
}

/* What one frame draws with: the colours of the current style and the plot's box. */
typedef struct {
  NapkinMemoryChart *self;
  GtkWidget         *widget;
  cairo_t           *cr;
  GdkRGBA            fg;
  GdkRGBA            error;
  GdkRGBA            colors[NAPKIN_MEMORY_N_BUCKETS];
  double             width;
  double             plot_top;
  double             plot_bottom;
  double             plot_h;
  double             plot_w;
  double             ymax;
  double             zoomed_from;  /* the bars' height at the HBM's scale, 0 if not zoomed */
} Paint;

/* Diagonal lines over a rectangle: the routed experts' share of a segment,
 * and the legend's swatch for it. */
static void
hatch (cairo_t       *cr,
       const GdkRGBA *fg,
       double         x,
       double         y,
       double         w,
       double         h)
{
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.55);
  cairo_set_line_width (cr, 1.5);
  for (double d = -h; d < w; d += 5)
    {
      cairo_move_to (cr, x + d, y + h);
      cairo_line_to (cr, x + d + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* Legend: one entry per bucket with its bytes, in as few rows as its entries
 * fit without running into the next swatch. Returns where its first row starts. */
static double
draw_legend (Paint  *p,
             double  height)
{
  /* the buckets, then (index N_BUCKETS) the routed experts' hatched share */
  PangoLayout *names[NAPKIN_MEMORY_N_BUCKETS + 1], *values[NAPKIN_MEMORY_N_BUCKETS + 1];
  int name_w[NAPKIN_MEMORY_N_BUCKETS + 1], entry_w = 0;
  guint shown[NAPKIN_MEMORY_N_BUCKETS + 1], n = 0;
  int legend_cols, legend_rows;
  g_autoptr(PangoLayout) probe = make_layout (p->widget, "Hg", TRUE, FALSE);
  double legend_top;
  int text_h;

  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    if (bucket_shown (p->self, i))
      shown[n++] = i;
  if (expert_bytes (p->self) > 0)
    shown[n++] = NAPKIN_MEMORY_N_BUCKETS;
  for (guint k = 0; k < n; k++)
    {
      gboolean experts = shown[k] == NAPKIN_MEMORY_N_BUCKETS;
      g_autofree char *value = nk_units_format_bytes (experts ? expert_bytes (p->self) : p->self->bytes[shown[k]]);
      int value_w;

      names[k] = make_layout (p->widget, experts ? _("Routed experts") : _(buckets[shown[k]].name), TRUE, FALSE);
      values[k] = make_layout (p->widget, value, TRUE, TRUE);
      pango_layout_get_pixel_size (names[k], &name_w[k], NULL);
      pango_layout_get_pixel_size (values[k], &value_w, NULL);
      /* swatch, name, value and a gap before the next swatch */
      entry_w = MAX (entry_w, 16 + name_w[k] + 6 + value_w + 16);
    }
  /* the fewest rows whose columns fit, the entries spread evenly over them */
  for (legend_rows = 1; legend_rows < (int) n; legend_rows++)
    if ((((int) n + legend_rows - 1) / legend_rows) * entry_w <= p->width)
      break;
  legend_cols = MAX (1, ((int) n + legend_rows - 1) / legend_rows);
  legend_rows = ((int) n + legend_cols - 1) / legend_cols;

  pango_layout_get_pixel_size (probe, NULL, &text_h);
  legend_top = height - legend_rows * (text_h + 6);
  for (guint k = 0; k < n; k++)
    {
      double col_w = p->width / legend_cols;
      double x = (k % legend_cols) * col_w;
      double y = legend_top + (k / legend_cols) * (text_h + 6);

      if (shown[k] == NAPKIN_MEMORY_N_BUCKETS)
        hatch (p->cr, &p->fg, x, y + (text_h - 10) / 2.0, 10, 10);
      else
        {
          gdk_cairo_set_source_rgba (p->cr, &p->colors[shown[k]]);
          cairo_rectangle (p->cr, x, y + (text_h - 10) / 2.0, 10, 10);
          cairo_fill (p->cr);
        }

      gdk_cairo_set_source_rgba (p->cr, &p->fg);
      show_layout (p->cr, names[k], x + 16, y);
      show_layout (p->cr, values[k], x + 16 + name_w[k] + 6, y);
      g_object_unref (names[k]);
      g_object_unref (values[k]);
    }
  return legend_top;
}

/* Header: the per-GPU total against the HBM, and the verdict. Returns its height. */
static int
draw_header (Paint  *p,
             double  total)
{
  NapkinMemoryChart *self = p->self;
  g_autofree char *total_text = nk_units_format_bytes (total);
  g_autofree char *hbm_text = nk_units_format_bytes (self->hbm);
  g_autofree char *header = NULL;
  g_autoptr(PangoLayout) header_layout = NULL;
  int text_w, text_h;

  if (has_estimate (self))
    header = g_strdup_printf (_("%s per GPU of %s HBM"), total_text, hbm_text);
  else
    header = g_strdup (_("No estimate: check the highlighted input"));
  header_layout = make_layout (p->widget, header, FALSE, FALSE);
  pango_layout_set_width (header_layout, (int) (p->width * 0.7) * PANGO_SCALE);
  pango_layout_set_ellipsize (header_layout, PANGO_ELLIPSIZE_END);
  gdk_cairo_set_source_rgba (p->cr, &p->fg);
  show_layout (p->cr, header_layout, 0, 0);

  if (has_estimate (self))
    {
      g_autoptr(PangoLayout) verdict = make_layout (p->widget,
                                                    self->fits ? _("Fits") : _("Does not fit"),
                                                    FALSE, TRUE);

      pango_layout_get_pixel_size (verdict, &text_w, NULL);
      gdk_cairo_set_source_rgba (p->cr, self->fits ? &p->colors[NAPKIN_MEMORY_GRADS] : &p->error);
      show_layout (p->cr, verdict, p->width - text_w, 0);
    }
  pango_layout_get_pixel_size (header_layout, NULL, &text_h);
  return text_h;
}

/* One slot: a GPU's stacked bar with its label, or the ellipsis between the first
 * GPUs and the last. */
static void
draw_bar (Paint    *p,
          double    total,
          guint     slot,
          guint     n_slots,
          guint     n_gpus,
          gboolean  short_labels)
{
  NapkinMemoryChart *self = p->self;
  cairo_t *cr = p->cr;
  double slot_w = p->plot_w / n_slots;
  double bar_w = MIN (slot_w * 0.62, 72);
  double x = slot * slot_w + (slot_w - bar_w) / 2;
  double y = p->plot_bottom;
  gboolean ellipsis = n_gpus > MAX_BARS && slot == n_slots - 2;
  guint gpu_index = (n_gpus > MAX_BARS && slot == n_slots - 1) ? n_gpus - 1 : slot;
  g_autofree char *label = NULL;
  g_autoptr(PangoLayout) label_layout = NULL;
  double bar_h = total / p->ymax * p->plot_h;
  int text_w;

  if (ellipsis)
    label = g_strdup ("…");
  else if (short_labels)
    label = g_strdup_printf ("%u", gpu_index);
  else
    label = g_strdup_printf (_("GPU %u"), gpu_index);
  label_layout = make_layout (p->widget, label, TRUE, FALSE);
  pango_layout_get_pixel_size (label_layout, &text_w, NULL);
  if (text_w <= slot_w || ellipsis)
    {
      cairo_save (cr);
      gdk_cairo_set_source_rgba (cr, &p->fg);
      cairo_push_group (cr);
      show_layout (cr, label_layout, slot * slot_w + (slot_w - text_w) / 2, p->plot_bottom + 6);
      cairo_pop_group_to_source (cr);
      cairo_paint_with_alpha (cr, 0.7);
      cairo_restore (cr);
    }
  if (ellipsis)
    return;

  /* Clip to the bar's rounded outline and stack the buckets inside it, with
   * a hairline gap between them. */
  cairo_save (cr);
  rounded_top_rect (cr, x, p->plot_bottom - bar_h, bar_w, bar_h, 4);
  cairo_clip (cr);
  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    {
      double h = self->bytes[i] / p->ymax * p->plot_h;

      if (!(h > 0))
        continue;
      gdk_cairo_set_source_rgba (cr, &p->colors[i]);
      cairo_rectangle (cr, x, y - h, bar_w, MAX (h - 1, 0.5));
      cairo_fill (cr);
      /* the experts' share at the segment's foot */
      if (self->expert[i] > 0)
        {
          double eh = MIN (self->expert[i] / p->ymax * p->plot_h, h);

          hatch (cr, &p->fg, x, y - eh, bar_w, MAX (eh - 1, 0.5));
        }
      y -= h;
    }
  cairo_restore (cr);

  if (!self->fits)
    {
      gdk_cairo_set_source_rgba (cr, &p->error);
      cairo_set_line_width (cr, 2);
      rounded_top_rect (cr, x - 1, p->plot_bottom - bar_h - 1, bar_w + 2, bar_h + 1, 5);
      cairo_stroke (cr);
    }
}

/* Bars: every GPU holds the same under data parallelism, so past MAX_BARS the
 * chart shows the first ones, an ellipsis and the last. */
static void
draw_bars (Paint  *p,
           double  total)
{
  double gpus = p->self->gpus;
  guint n_gpus = (guint) CLAMP (isfinite (gpus) ? gpus : 1, 1, G_MAXUINT);
  guint n_bars = MIN (n_gpus, MAX_BARS);
  guint n_slots = n_bars + (n_gpus > MAX_BARS ? 1 : 0);
  g_autofree char *widest = g_strdup_printf (_("GPU %u"), n_gpus - 1);
  g_autoptr(PangoLayout) probe = make_layout (p->widget, widest, TRUE, FALSE);
  int text_w;

  /* "GPU 1023" where it fits under its bar, the bare index where it does not. */
  pango_layout_get_pixel_size (probe, &text_w, NULL);
  for (guint slot = 0; slot < n_slots; slot++)
    draw_bar (p, total, slot, n_slots, n_gpus, text_w > p->plot_w / n_slots - 4);
}

/* The baseline and the HBM line over the bars; the HBM line's label sits in a
 * gutter at the right end of the line, where no bar can cover it. */
static void
draw_lines (Paint       *p,
            PangoLayout *hbm_layout)
{
  cairo_t *cr = p->cr;
  double y = floor (p->plot_bottom - p->self->hbm / p->ymax * p->plot_h) + 0.5;
  static const double dash[] = { 6, 4 };
  int hbm_w, hbm_h;

  /* Zoomed in on bars far below the HBM: its line would be off the top, so
   * its label points up there. */
  if (p->self->hbm > p->ymax)
    y = floor (p->plot_top) + 0.5;

  cairo_save (cr);
  cairo_set_source_rgba (cr, p->fg.red, p->fg.green, p->fg.blue, 0.25);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, 0, floor (p->plot_bottom) + 0.5);
  cairo_line_to (cr, p->plot_w, floor (p->plot_bottom) + 0.5);
  cairo_stroke (cr);
  cairo_restore (cr);

  if (p->self->fits)
    cairo_set_source_rgba (cr, p->fg.red, p->fg.green, p->fg.blue, 0.8);
  else
    gdk_cairo_set_source_rgba (cr, &p->error);
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
  cairo_move_to (cr, 0, y);
  cairo_line_to (cr, p->plot_w + 4, y);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);

  pango_layout_get_pixel_size (hbm_layout, &hbm_w, &hbm_h);
  show_layout (cr, hbm_layout, p->width - hbm_w,
               CLAMP (y - hbm_h / 2.0, p->plot_top - hbm_h / 2.0, p->plot_bottom - hbm_h));
}

/* Says the bars are magnified, and how tall they would be against the HBM;
 * the plot starts below it. */
static void
draw_zoom_note (Paint *p)
{
  g_autofree char *note = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  int note_h;

  if (p->zoomed_from < 1)
    note = g_strdup (_("Zoomed in: against the HBM these bars would be under a pixel tall"));
  else
    note = g_strdup_printf (_("Zoomed in: against the HBM these bars would be %.0f px tall"),
                            p->zoomed_from);
  layout = make_layout (p->widget, note, TRUE, FALSE);
  pango_layout_set_width (layout, (int) p->plot_w * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_get_pixel_size (layout, NULL, &note_h);
  cairo_save (p->cr);
  gdk_cairo_set_source_rgba (p->cr, &p->fg);
  cairo_push_group (p->cr);
  show_layout (p->cr, layout, 0, p->plot_top - 12);
  cairo_pop_group_to_source (p->cr);
  cairo_paint_with_alpha (p->cr, 0.7);
  cairo_restore (p->cr);
  p->plot_top += note_h;
  p->plot_h = p->plot_bottom - p->plot_top;
}

static void
napkin_memory_chart_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  NapkinMemoryChart *self = NAPKIN_MEMORY_CHART (widget);
  GtkStyleContext *style = gtk_widget_get_style_context (widget);
  double height = gtk_widget_get_height (widget);
  double total = total_bytes (self);
  Paint p = { .self = self, .widget = widget, .width = gtk_widget_get_width (widget) };
  g_autoptr(PangoLayout) label_probe = NULL;
  double legend_top;
  int label_h;

  if (p.width <= 0 || height <= 0)
    return;

  gtk_style_context_get_color (style, &p.fg);
  if (!gtk_style_context_lookup_color (style, "error_color", &p.error))
    gdk_rgba_parse (&p.error, "#e01b24");
  lookup_bucket_colors (style, p.colors);

  p.cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, p.width, height));
  legend_top = draw_legend (&p, height);
  p.plot_top = draw_header (&p, total) + 18;
  label_probe = make_layout (widget, "GPU 0", TRUE, FALSE);
  pango_layout_get_pixel_size (label_probe, NULL, &label_h);
  p.plot_bottom = legend_top - 12 - label_h - 6;
  p.plot_h = p.plot_bottom - p.plot_top;
  p.plot_w = p.width;
  p.ymax = MAX (total, self->hbm) * 1.08;
  /* A small model's bars would be a few pixels against the HBM: draw them to
   * their own scale and say how tall they would have been. */
  if (has_estimate (self) && total > 0 && total / p.ymax * p.plot_h < MIN_BAR_HEIGHT)
    {
      p.zoomed_from = total / p.ymax * p.plot_h;
      p.ymax = total * 1.08;
    }

  if (!has_estimate (self))
    {
      cairo_set_source_rgba (p.cr, p.fg.red, p.fg.green, p.fg.blue, 0.25);
      cairo_set_line_width (p.cr, 1);
      cairo_move_to (p.cr, 0, floor (p.plot_bottom) + 0.5);
      cairo_line_to (p.cr, p.width, floor (p.plot_bottom) + 0.5);
      cairo_stroke (p.cr);
    }
  else if (p.plot_h >= 20 && p.ymax > 0)
    {
      g_autofree char *hbm_text = nk_units_format_bytes (self->hbm);
      g_autofree char *hbm_label = p.zoomed_from > 0
                                   ? g_strdup_printf (_("HBM %s ↑"), hbm_text)
                                   : g_strdup_printf (_("HBM %s"), hbm_text);
      g_autoptr(PangoLayout) hbm_layout = make_layout (widget, hbm_label, TRUE, TRUE);
      int hbm_w;

      pango_layout_get_pixel_size (hbm_layout, &hbm_w, NULL);
      p.plot_w = MAX (p.width - hbm_w - 12, p.width / 2);
      if (p.zoomed_from > 0)
        draw_zoom_note (&p);
      draw_bars (&p, total);
      draw_lines (&p, hbm_layout);
    }
  cairo_destroy (p.cr);
}

static void
napkin_memory_chart_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 280;
      *natural = 480;
    }
  else
    {
      *minimum = 260;
      *natural = 320;
    }
}

static void
napkin_memory_chart_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NapkinMemoryChart *self = NAPKIN_MEMORY_CHART (object);

  switch (prop_id)
    {
    case PROP_PARAMS:
    case PROP_GRADS:
    case PROP_OPTIMIZER:
    case PROP_ACTIVATIONS:
    case PROP_LOW_PRECISION:
      g_value_set_double (value, self->bytes[prop_id - PROP_PARAMS]);
      break;
    case PROP_HBM:
      g_value_set_double (value, self->hbm);
      break;
    case PROP_GPUS:
      g_value_set_double (value, self->gpus);
      break;
    case PROP_FITS:
      g_value_set_boolean (value, self->fits);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_memory_chart_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NapkinMemoryChart *self = NAPKIN_MEMORY_CHART (object);

  switch (prop_id)
    {
    case PROP_PARAMS:
    case PROP_GRADS:
    case PROP_OPTIMIZER:
    case PROP_ACTIVATIONS:
    case PROP_LOW_PRECISION:
      napkin_memory_chart_set_bytes (self, prop_id - PROP_PARAMS, g_value_get_double (value));
      break;
    case PROP_HBM:
      napkin_memory_chart_set_hbm (self, g_value_get_double (value));
      break;
    case PROP_GPUS:
      napkin_memory_chart_set_gpus (self, g_value_get_double (value));
      break;
    case PROP_FITS:
      napkin_memory_chart_set_fits (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_memory_chart_class_init (NapkinMemoryChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  static const char *bucket_props[] = { "params", "grads", "optimizer", "activations", "low-precision" };

  object_class->get_property = napkin_memory_chart_get_property;
  object_class->set_property = napkin_memory_chart_set_property;
  widget_class->snapshot = napkin_memory_chart_snapshot;
  widget_class->measure = napkin_memory_chart_measure;

  /**
   * NapkinMemoryChart:params: (attributes org.gtk.Property.get=napkin_memory_chart_get_bytes)
   *
   * Bytes of parameters each GPU holds. No estimate is NAN through
   * napkin_memory_chart_set_bytes(), or any negative value through the property
   * (GObject refuses NaN in properties). "grads", "optimizer", "activations"
   * and "low-precision" are the other buckets.
   */
  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    properties[PROP_PARAMS + i] =
      g_param_spec_double (bucket_props[i], NULL, NULL,
                           -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                           G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NapkinMemoryChart:hbm:
   *
   * The memory of one GPU in bytes, drawn as a line across the bars.
   */
  properties[PROP_HBM] =
    g_param_spec_double ("hbm", NULL, NULL,
                         -G_MAXDOUBLE, G_MAXDOUBLE, 80e9,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NapkinMemoryChart:gpus:
   *
   * How many GPUs hold the state; one bar each, up to eight.
   */
  properties[PROP_GPUS] =
    g_param_spec_double ("gpus", NULL, NULL,
                         -G_MAXDOUBLE, G_MAXDOUBLE, 1,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NapkinMemoryChart:fits:
   *
   * Whether the bytes fit the HBM; the bars and the line turn red when not.
   */
  properties[PROP_FITS] =
    g_param_spec_boolean ("fits", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "memorychart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
napkin_memory_chart_init (NapkinMemoryChart *self)
{
  self->hbm = 80e9;
  self->gpus = 1;
  self->fits = TRUE;
  update_accessible_label (self);
}

/**
 * napkin_memory_chart_new:
 *
 * Returns: (transfer full): a new, empty chart
 */
GtkWidget *
napkin_memory_chart_new (void)
{
  return g_object_new (NAPKIN_TYPE_MEMORY_CHART, NULL);
}

/**
 * napkin_memory_chart_get_bytes:
 * @self: a chart
 * @bucket: which bucket
 *
 * Returns: the bytes of @bucket each GPU holds, NAN when there is no estimate
 */
double
napkin_memory_chart_get_bytes (NapkinMemoryChart  *self,
                               NapkinMemoryBucket  bucket)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_CHART (self), NAN);
  g_return_val_if_fail (bucket < NAPKIN_MEMORY_N_BUCKETS, NAN);

  return self->bytes[bucket];
}

/**
 * napkin_memory_chart_set_bytes:
 * @self: a chart
 * @bucket: which bucket
 * @bytes: the bytes each GPU holds, NAN for no estimate
 */
void
napkin_memory_chart_set_bytes (NapkinMemoryChart  *self,
                               NapkinMemoryBucket  bucket,
                               double              bytes)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_CHART (self));
  g_return_if_fail (bucket < NAPKIN_MEMORY_N_BUCKETS);

  if (same_double (self->bytes[bucket], bytes))
    return;
  self->bytes[bucket] = bytes;
  changed (self, PROP_PARAMS + bucket);
}

/**
 * napkin_memory_chart_get_expert_bytes:
 * @self: a chart
 * @bucket: which bucket
 *
 * Returns: the routed experts' share of @bucket's bytes (0 without experts)
 */
double
napkin_memory_chart_get_expert_bytes (NapkinMemoryChart  *self,
                                      NapkinMemoryBucket  bucket)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_CHART (self), NAN);
  g_return_val_if_fail (bucket < NAPKIN_MEMORY_N_BUCKETS, NAN);

  return self->expert[bucket];
}

/**
 * napkin_memory_chart_set_expert_bytes:
 * @self: a chart
 * @bucket: which bucket
 * @bytes: the routed experts' share of @bucket, drawn hatched at the foot of
 *   its segment and summed in one legend entry; 0 (or NAN) for none
 */
void
napkin_memory_chart_set_expert_bytes (NapkinMemoryChart  *self,
                                      NapkinMemoryBucket  bucket,
                                      double              bytes)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_CHART (self));
  g_return_if_fail (bucket < NAPKIN_MEMORY_N_BUCKETS);

  if (!(bytes > 0))
    bytes = 0;
  if (self->expert[bucket] == bytes)
    return;
  self->expert[bucket] = bytes;
  update_accessible_label (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_memory_chart_get_hbm:
 * @self: a chart
 *
 * Returns: the memory of one GPU in bytes
 */
double
napkin_memory_chart_get_hbm (NapkinMemoryChart *self)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_CHART (self), NAN);

  return self->hbm;
}

/**
 * napkin_memory_chart_set_hbm:
 * @self: a chart
 * @hbm: the memory of one GPU in bytes
 */
void
napkin_memory_chart_set_hbm (NapkinMemoryChart *self,
                             double             hbm)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_CHART (self));

  if (same_double (self->hbm, hbm))
    return;
  self->hbm = hbm;
  changed (self, PROP_HBM);
}

/**
 * napkin_memory_chart_get_gpus:
 * @self: a chart
 *
 * Returns: the number of GPUs
 */
double
napkin_memory_chart_get_gpus (NapkinMemoryChart *self)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_CHART (self), NAN);

  return self->gpus;
}

/**
 * napkin_memory_chart_set_gpus:
 * @self: a chart
 * @gpus: the number of GPUs
 */
void
napkin_memory_chart_set_gpus (NapkinMemoryChart *self,
                              double             gpus)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_CHART (self));

  if (same_double (self->gpus, gpus))
    return;
  self->gpus = gpus;
  changed (self, PROP_GPUS);
}

/**
 * napkin_memory_chart_get_fits:
 * @self: a chart
 *
 * Returns: whether the bytes fit the HBM
 */
gboolean
napkin_memory_chart_get_fits (NapkinMemoryChart *self)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_CHART (self), FALSE);

  return self->fits;
}

/**
 * napkin_memory_chart_set_fits:
 * @self: a chart
 * @fits: whether the bytes fit the HBM
 */
void
napkin_memory_chart_set_fits (NapkinMemoryChart *self,
                              gboolean           fits)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_CHART (self));

  fits = !!fits;
  if (self->fits == fits)
    return;
  self->fits = fits;
  changed (self, PROP_FITS);
}
