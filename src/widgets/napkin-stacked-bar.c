/* napkin-stacked-bar.c: one horizontal bar split into labelled parts, with a legend
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Planner's step-time breakdown (compute, recompute, element-wise, a
 * recipe's casts, the exposed tensor-parallel, expert and data-parallel
 * communication, bubble):
 * each part's width is its share of the sum, each
 * legend entry says its label as given. The bar draws what it is told and
 * decides nothing.
 */
#include "config.h"

#include <adwaita.h>
#include <math.h>

#include "napkin-stacked-bar.h"

#define BAR_HEIGHT    18.0
#define LEGEND_GAP    10.0
#define SWATCH        10.0

struct _NapkinStackedBar
{
  GtkWidget  parent_instance;

  guint      n_parts;
  double     values[NAPKIN_STACKED_BAR_MAX_PARTS];
  char      *labels[NAPKIN_STACKED_BAR_MAX_PARTS];
  guint      colors[NAPKIN_STACKED_BAR_MAX_PARTS];   /* indices into the palette */
};

G_DEFINE_FINAL_TYPE (NapkinStackedBar, napkin_stacked_bar, GTK_TYPE_WIDGET)

/* libadwaita's named palette, as the memory chart and the plots use it; the
 * fallbacks are those colours for a theme that lacks the names. */
static const struct {
  const char *light_name, *dark_name;
  GdkRGBA     light, dark;
} palette[NAPKIN_STACKED_BAR_MAX_PARTS] = {
  { "blue_3",   "blue_2",   { 0.208, 0.518, 0.894, 1 }, { 0.384, 0.627, 0.918, 1 } },
  { "purple_3", "purple_2", { 0.569, 0.255, 0.675, 1 }, { 0.753, 0.380, 0.796, 1 } },
  { "green_5",  "green_2",  { 0.149, 0.635, 0.412, 1 }, { 0.341, 0.890, 0.537, 1 } },
  { "orange_3", "orange_2", { 1.000, 0.471, 0.000, 1 }, { 1.000, 0.639, 0.282, 1 } },
  { "red_3",    "red_2",    { 0.878, 0.106, 0.141, 1 }, { 0.929, 0.200, 0.231, 1 } },
  { "yellow_5", "yellow_2", { 0.898, 0.647, 0.039, 1 }, { 0.973, 0.894, 0.361, 1 } },
  { "brown_3",  "brown_1",  { 0.596, 0.416, 0.267, 1 }, { 0.804, 0.671, 0.561, 1 } },
  { "dark_2",   "light_3",  { 0.369, 0.361, 0.392, 1 }, { 0.871, 0.867, 0.855, 1 } },
};

/* What a sighted person reads off the bar: each part's legend text and its
 * share of the whole, as the widths show it. The name is its owner's to give. */
static void
update_description (NapkinStackedBar *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  double sum = 0;

  for (guint i = 0; i < self->n_parts; i++)
    sum += self->values[i];
  for (guint i = 0; i < self->n_parts; i++)
    {
      if (i > 0)
        g_string_append (text, "; ");
      if (sum > 0 && isfinite (sum))
        g_string_append_printf (text, "%s (%.0f %%)", self->labels[i], 100 * self->values[i] / sum);
      else
        g_string_append (text, self->labels[i]);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  text->str, -1);
}

GtkWidget *
napkin_stacked_bar_new (void)
{
  return g_object_new (NAPKIN_TYPE_STACKED_BAR, NULL);
}

/**
 * napkin_stacked_bar_set_parts:
 * @self: a bar
 * @n_parts: how many parts, at most %NAPKIN_STACKED_BAR_MAX_PARTS
 * @values: (array length=n_parts): each part's size (negative or NAN: 0)
 * @labels: (array length=n_parts): each part's legend text
 */
void
napkin_stacked_bar_set_parts (NapkinStackedBar  *self,
                              guint              n_parts,
                              const double      *values,
                              const char *const *labels)
{
  g_return_if_fail (NAPKIN_IS_STACKED_BAR (self));
  g_return_if_fail (n_parts <= NAPKIN_STACKED_BAR_MAX_PARTS);

  for (guint i = 0; i < NAPKIN_STACKED_BAR_MAX_PARTS; i++)
    g_clear_pointer (&self->labels[i], g_free);
  self->n_parts = n_parts;
  for (guint i = 0; i < n_parts; i++)
    {
      self->values[i] = values[i] > 0 ? values[i] : 0;
      self->labels[i] = g_strdup (labels[i]);
      self->colors[i] = i;
    }
  update_description (self);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/**
 * napkin_stacked_bar_set_colors:
 * @self: a bar
 * @n_parts: how many parts the colours are for
 * @colors: (array length=n_parts): each part's colour as an index into the
 *   palette (below %NAPKIN_STACKED_BAR_MAX_PARTS), so that a part keeps its
 *   colour when others come and go; napkin_stacked_bar_set_parts() resets
 *   them to the parts' order
 */
void
napkin_stacked_bar_set_colors (NapkinStackedBar *self,
                               guint             n_parts,
                               const guint      *colors)
{
  g_return_if_fail (NAPKIN_IS_STACKED_BAR (self));
  g_return_if_fail (n_parts <= NAPKIN_STACKED_BAR_MAX_PARTS);

  for (guint i = 0; i < n_parts; i++)
    {
      g_return_if_fail (colors[i] < NAPKIN_STACKED_BAR_MAX_PARTS);
      self->colors[i] = colors[i];
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
napkin_stacked_bar_get_n_parts (NapkinStackedBar *self)
{
  g_return_val_if_fail (NAPKIN_IS_STACKED_BAR (self), 0);
  return self->n_parts;
}

/**
 * napkin_stacked_bar_get_color:
 * @self: a bar
 * @part: a part's index
 * @color: (out): its colour in the current (light or dark) style
 */
void
napkin_stacked_bar_get_color (NapkinStackedBar *self,
                              guint             part,
                              GdkRGBA          *color)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkStyleContext *style;

  g_return_if_fail (NAPKIN_IS_STACKED_BAR (self));
  g_return_if_fail (part < NAPKIN_STACKED_BAR_MAX_PARTS);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  style = gtk_widget_get_style_context (GTK_WIDGET (self));
  part = self->colors[part];
  if (!gtk_style_context_lookup_color (style, dark ? palette[part].dark_name : palette[part].light_name, color))
    *color = dark ? palette[part].dark : palette[part].light;
  G_GNUC_END_IGNORE_DEPRECATIONS
}

/**
 * napkin_stacked_bar_get_bar_rect:
 * @self: a bar
 * @width: the widget's width
 * @rect: (out): where the bar is drawn (the legend is below it)
 */
void
napkin_stacked_bar_get_bar_rect (NapkinStackedBar *self,
                                 int               width,
                                 graphene_rect_t  *rect)
{
  graphene_rect_init (rect, 0, 0, MAX (width, 1), BAR_HEIGHT);
}

static PangoLayout *
legend_layout (NapkinStackedBar *self,
               guint             part)
{
  return gtk_widget_create_pango_layout (GTK_WIDGET (self), self->labels[part]);
}

/* Legend entries flow left to right and wrap, each within the width; returns
 * the height they take. */
static double
draw_legend (NapkinStackedBar *self,
             cairo_t          *cr,
             int               width,
             gboolean          paint)
{
  double x = 0, y = BAR_HEIGHT + LEGEND_GAP, line = 0;
  GdkRGBA fg, color;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  for (guint i = 0; i < self->n_parts; i++)
    {
      g_autoptr(PangoLayout) layout = legend_layout (self, i);
      int w, h;
      double entry;

      /* an entry wider than the bar wraps within it (a 360 px window) */
      pango_layout_set_width (layout, MAX (1, width - (int) SWATCH - 6) * PANGO_SCALE);
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_get_pixel_size (layout, &w, &h);
      entry = SWATCH + 6 + w + 18;
      if (x > 0 && x + entry > width)
        {
          x = 0;
          y += line + 4;
          line = 0;
        }
      line = MAX (line, h);
      if (paint)
        {
          napkin_stacked_bar_get_color (self, i, &color);
          gdk_cairo_set_source_rgba (cr, &color);
          cairo_rectangle (cr, x, y + (h - SWATCH) / 2, SWATCH, SWATCH);
          cairo_fill (cr);
          gdk_cairo_set_source_rgba (cr, &fg);
          cairo_move_to (cr, x + SWATCH + 6, y);
          pango_cairo_show_layout (cr, layout);
        }
      x += entry;
    }
  return y + line;
}

/**
 * napkin_stacked_bar_draw:
 * @self: a bar
 * @cr: where to draw
 * @width: the width to draw in
 * @height: the height to draw in
 *
 * Draws the bar (each part's width its share of the sum, in the order given)
 * and the legend; the widget's snapshot calls this, and so can a test.
 */
void
napkin_stacked_bar_draw (NapkinStackedBar *self,
                         cairo_t          *cr,
                         int               width,
                         int               height)
{
  double total = 0, x = 0;
  GdkRGBA color;

  g_return_if_fail (NAPKIN_IS_STACKED_BAR (self));

  for (guint i = 0; i < self->n_parts; i++)
    total += self->values[i];
  if (total > 0 && isfinite (total))
    for (guint i = 0; i < self->n_parts; i++)
      {
        /* Edges on whole pixels, computed from the running sum, so the parts
         * tile the bar exactly. */
        double right = round ((x + self->values[i]) / total * width);
        double left = round (x / total * width);

        napkin_stacked_bar_get_color (self, i, &color);
        gdk_cairo_set_source_rgba (cr, &color);
        cairo_rectangle (cr, left, 0, right - left, BAR_HEIGHT);
        cairo_fill (cr);
        x += self->values[i];
      }
  draw_legend (self, cr, width, TRUE);
}

static void
napkin_stacked_bar_snapshot (GtkWidget   *widget,
                             GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));

  napkin_stacked_bar_draw (NAPKIN_STACKED_BAR (widget), cr, width, height);
  cairo_destroy (cr);
}

static GtkSizeRequestMode
napkin_stacked_bar_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
napkin_stacked_bar_measure (GtkWidget      *widget,
                            GtkOrientation  orientation,
                            int             for_size,
                            int            *minimum,
                            int            *natural,
                            int            *minimum_baseline,
                            int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 120;
      *natural = 400;
      return;
    }
  *minimum = *natural = (int) ceil (draw_legend (NAPKIN_STACKED_BAR (widget), NULL,
                                                 for_size > 0 ? for_size : 400, FALSE));
}

static void
napkin_stacked_bar_finalize (GObject *object)
{
  NapkinStackedBar *self = NAPKIN_STACKED_BAR (object);

  for (guint i = 0; i < NAPKIN_STACKED_BAR_MAX_PARTS; i++)
    g_free (self->labels[i]);
  G_OBJECT_CLASS (napkin_stacked_bar_parent_class)->finalize (object);
}

static void
napkin_stacked_bar_class_init (NapkinStackedBarClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = napkin_stacked_bar_finalize;
  widget_class->snapshot = napkin_stacked_bar_snapshot;
  widget_class->measure = napkin_stacked_bar_measure;
  widget_class->get_request_mode = napkin_stacked_bar_get_request_mode;
  gtk_widget_class_set_css_name (widget_class, "stackedbar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
napkin_stacked_bar_init (NapkinStackedBar *self)
{
}
