/* napkin-memory-compare.c: measured GPU memory as bars beside the plan's per-GPU buckets
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One bar per figure on a common scale: the plan's per-GPU memory split into its
 * buckets (params, grads, optimizer state, activations: the engine's per_gpu_share),
 * then what PyTorch measured (allocated, peak allocated, reserved), each with its
 * bytes and the engine's ratio to the plan. The widget draws what it is given and
 * computes nothing but the scale.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "napkin-memory-compare.h"

#define ROW_HEIGHT 44
#define BAR_HEIGHT 14
#define N_BARS (1 + NK_MEMORY_N_MEASURED)
#define LEGEND_LINE 22

struct _NapkinMemoryCompare
{
  GtkWidget          parent_instance;
  NkMemoryMeasure    measure;
  NkMemoryComparison comparison;
  gboolean           has_measure, has_plan;
};

G_DEFINE_FINAL_TYPE (NapkinMemoryCompare, napkin_memory_compare, GTK_TYPE_WIDGET)

/* the buckets' colours (the Planner's memory chart's order), then the measured bars' */
static const GdkRGBA bucket_colors[4] = {
  { 0.21, 0.52, 0.89, 1 }, { 0.15, 0.64, 0.41, 1 }, { 0.90, 0.65, 0.04, 1 }, { 0.57, 0.25, 0.67, 1 },
};
static const GdkRGBA measured_color = { 0.88, 0.11, 0.14, 1 };

static const char *
measured_label (guint m)
{
  switch (m)
    {
    case NK_MEMORY_MEASURED_ALLOCATED:
      return _("Allocated now");
    case NK_MEMORY_MEASURED_PEAK_ALLOCATED:
      return _("Peak allocated");
    case NK_MEMORY_MEASURED_RESERVED:
    default:
      return _("Reserved");
    }
}

static const char *
bucket_label (guint b)
{
  switch (b)
    {
    case NK_MEMORY_BUCKET_PARAMS:
      return _("Parameters");
    case NK_MEMORY_BUCKET_GRADS:
      return _("Gradients");
    case NK_MEMORY_BUCKET_OPTIMIZER:
      return _("Optimizer state");
    case NK_MEMORY_BUCKET_ACTIVATIONS:
    default:
      return _("Activations");
    }
}

static double
planned_per_gpu (const NkMemoryComparison *c)
{
  return isnan (c->planned[NK_MEMORY_BUCKET_PER_GPU]) ? c->planned[NK_MEMORY_BUCKET_TOTAL]
                                                      : c->planned[NK_MEMORY_BUCKET_PER_GPU];
}

/* The text beside bar @i: its bytes, and its ratio to the plan where there is one. */
static char *
bar_text (NapkinMemoryCompare *self,
          guint                i)
{
  g_autofree char *bytes = NULL;
  double v, ratio = NAN;

  if (i == 0)
    v = self->has_plan ? planned_per_gpu (&self->comparison) : NAN;
  else
    {
      v = self->comparison.measured[i - 1];
      ratio = self->has_plan ? self->comparison.ratio[i - 1] : NAN;
    }
  if (isnan (v))
    return g_strdup (i == 0 ? _("no plan") : _("not in this file"));
  bytes = nk_units_format_bytes (v);
  if (isnan (ratio))
    return g_steal_pointer (&bytes);
  /* TRANSLATORS: bytes, then the measured figure over the plan's, e.g. "1.2 GiB, 1.14 × plan" */
  return g_strdup_printf (_("%s, %.2f × plan"), bytes, ratio);
}

static const char *
bar_label (guint i)
{
  return i == 0 ? _("Planned per GPU") : measured_label (i - 1);
}

static void
update_description (NapkinMemoryCompare *self)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < N_BARS; i++)
    {
      g_autofree char *value = bar_text (self, i);

      g_string_append_printf (text, "%s%s: %s", i > 0 ? "; " : "", bar_label (i), value);
    }
  for (guint b = NK_MEMORY_BUCKET_PARAMS; self->has_plan && b <= NK_MEMORY_BUCKET_ACTIVATIONS; b++)
    {
      g_autofree char *value = isnan (self->comparison.per_gpu_share[b]) ? NULL
                               : nk_units_format_bytes (self->comparison.per_gpu_share[b]);

      if (value != NULL)
        g_string_append_printf (text, "; %s: %s", bucket_label (b), value);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text->str, -1);
  g_string_free (text, TRUE);
}

/**
 * napkin_memory_compare_set:
 * @self: a memory comparison
 * @measure: (nullable): what PyTorch measured
 * @comparison: (nullable): the engine's nk_memory_compare() of @measure and a plan
 *
 * Shows @measure's bars, and the plan's beside them when @comparison is given.
 */
void
napkin_memory_compare_set (NapkinMemoryCompare      *self,
                           const NkMemoryMeasure    *measure,
                           const NkMemoryComparison *comparison)
{
  g_return_if_fail (NAPKIN_IS_MEMORY_COMPARE (self));

  self->has_measure = measure != NULL;
  if (measure != NULL)
    self->measure = *measure;
  self->has_plan = comparison != NULL;
  if (comparison != NULL)
    self->comparison = *comparison;
  else if (measure != NULL)
    {
      /* the measured figures alone, no plan: the engine's comparison fields */
      for (guint b = 0; b < NK_MEMORY_N_BUCKETS; b++)
        self->comparison.planned[b] = self->comparison.per_gpu_share[b] = NAN;
      self->comparison.measured[NK_MEMORY_MEASURED_ALLOCATED] = measure->allocated;
      self->comparison.measured[NK_MEMORY_MEASURED_PEAK_ALLOCATED] = measure->peak_allocated;
      self->comparison.measured[NK_MEMORY_MEASURED_RESERVED] = measure->reserved;
      for (guint m = 0; m < NK_MEMORY_N_MEASURED; m++)
        self->comparison.ratio[m] = NAN;
    }
  update_description (self);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

guint
napkin_memory_compare_get_n_bars (NapkinMemoryCompare *self)
{
  g_return_val_if_fail (NAPKIN_IS_MEMORY_COMPARE (self), 0);
  return self->has_measure ? N_BARS : 0;
}

static void
draw_label (GtkWidget  *widget,
            cairo_t    *cr,
            const char *text,
            double      x,
            double      y,
            double      width,
            gboolean    dim)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
  GdkRGBA fg;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  fg.alpha *= dim ? 0.7 : 1;
  pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  gdk_cairo_set_source_rgba (cr, &fg);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

/* Draws the bars into @cr at @width × @height (the widget's snapshot and tests). */
void
napkin_memory_compare_draw (NapkinMemoryCompare *self,
                            cairo_t             *cr,
                            int                  width,
                            int                  height)
{
  GtkWidget *widget = GTK_WIDGET (self);
  const NkMemoryComparison *c = &self->comparison;
  double scale = 0, x;

  g_return_if_fail (NAPKIN_IS_MEMORY_COMPARE (self));
  if (!self->has_measure)
    return;
  scale = self->has_plan && planned_per_gpu (c) > 0 ? planned_per_gpu (c) : 0;
  for (guint m = 0; m < NK_MEMORY_N_MEASURED; m++)
    if (isfinite (c->measured[m]))
      scale = MAX (scale, c->measured[m]);
  for (guint i = 0; i < N_BARS; i++)
    {
      g_autofree char *value = bar_text (self, i);
      double y = i * ROW_HEIGHT;

      draw_label (widget, cr, bar_label (i), 0, y, width / 2.0, FALSE);
      {
        g_autoptr(PangoLayout) probe = gtk_widget_create_pango_layout (widget, value);
        int tw;

        pango_layout_get_pixel_size (probe, &tw, NULL);
        draw_label (widget, cr, value, MAX (width / 2.0, width - tw), y, width / 2.0, TRUE);
      }
      if (scale <= 0)
        continue;
      x = 0;
      if (i == 0)
        for (guint b = NK_MEMORY_BUCKET_PARAMS; b <= NK_MEMORY_BUCKET_ACTIVATIONS; b++)
          {
            double w = isfinite (c->per_gpu_share[b]) ? c->per_gpu_share[b] / scale * width : 0;

            gdk_cairo_set_source_rgba (cr, &bucket_colors[b]);
            cairo_rectangle (cr, x, y + 22, MAX (0, w - 1), BAR_HEIGHT);
            cairo_fill (cr);
            x += w;
          }
      else if (isfinite (c->measured[i - 1]))
        {
          gdk_cairo_set_source_rgba (cr, &measured_color);
          cairo_rectangle (cr, 0, y + 22, c->measured[i - 1] / scale * width, BAR_HEIGHT);
          cairo_fill (cr);
        }
    }
  if (self->has_plan)
    {
      /* the buckets' legend under the bars, wrapping at the widget's width */
      double lx = 0, ly = N_BARS * ROW_HEIGHT + 4;

      for (guint b = NK_MEMORY_BUCKET_PARAMS; b <= NK_MEMORY_BUCKET_ACTIVATIONS; b++)
        {
          g_autoptr(PangoLayout) probe = gtk_widget_create_pango_layout (widget, bucket_label (b));
          int tw;

          pango_layout_get_pixel_size (probe, &tw, NULL);
          if (lx > 0 && lx + 18 + tw > width)
            {
              lx = 0;
              ly += LEGEND_LINE;
            }
          gdk_cairo_set_source_rgba (cr, &bucket_colors[b]);
          cairo_rectangle (cr, lx, ly + 4, 12, 12);
          cairo_fill (cr);
          draw_label (widget, cr, bucket_label (b), lx + 18, ly, tw + 1, TRUE);
          lx += 18 + tw + 16;
        }
    }
  (void) height;
}

static void
napkin_memory_compare_snapshot (GtkWidget   *widget,
                                GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));

  napkin_memory_compare_draw (NAPKIN_MEMORY_COMPARE (widget), cr, width, height);
  cairo_destroy (cr);
}

static void
napkin_memory_compare_measure (GtkWidget      *widget,
                               GtkOrientation  orientation,
                               int             for_size,
                               int            *minimum,
                               int            *natural,
                               int            *minimum_baseline,
                               int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 480;
    }
  else
    /* room for the legend on up to two lines (it wraps below ~400 px) */
    *minimum = *natural = N_BARS * ROW_HEIGHT + 4
                          + (NAPKIN_MEMORY_COMPARE (widget)->has_plan ? (for_size >= 0 && for_size < 400 ? 2 : 1) * LEGEND_LINE : 0);
}

static void
napkin_memory_compare_class_init (NapkinMemoryCompareClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->snapshot = napkin_memory_compare_snapshot;
  widget_class->measure = napkin_memory_compare_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
napkin_memory_compare_init (NapkinMemoryCompare *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Measured memory beside the plan"), -1);
}

GtkWidget *
napkin_memory_compare_new (void)
{
  return g_object_new (NAPKIN_TYPE_MEMORY_COMPARE, NULL);
}
