/* napkin-plot.c: the widget every training plot derives from
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <cairo-svg.h>
#include <glib/gi18n.h>

#include "napkin-plot.h"
#include "napkin-plot-private.h"

#define MIN_WIDTH 240

typedef struct {
  double          hover_x;   /* widget pixels, < 0 when the pointer is away */
  NapkinPlotFrame frame;     /* of the last drawing, for the tests */
  gboolean        have_frame;
} NapkinPlotPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (NapkinPlot, napkin_plot, GTK_TYPE_WIDGET)

static void
napkin_plot_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  NapkinPlotStyle style;
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;
  napkin_plot_style_init_for_widget (&style, widget);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  napkin_plot_draw (NAPKIN_PLOT (widget), cr, width, height, &style);
  cairo_destroy (cr);
  napkin_plot_style_clear (&style);
}

static void
napkin_plot_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  NapkinPlotClass *klass = NAPKIN_PLOT_GET_CLASS (widget);

  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? MIN_WIDTH : klass->min_height;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? klass->natural_width : klass->natural_height;
}

static void
set_hover_x (NapkinPlot *self,
             double      x)
{
  NapkinPlotPrivate *priv = napkin_plot_get_instance_private (self);

  priv->hover_x = x;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           NapkinPlot               *self)
{
  set_hover_x (self, x);
}

static void
on_leave (GtkEventControllerMotion *controller,
          NapkinPlot               *self)
{
  set_hover_x (self, -1);
}

static void
napkin_plot_class_init (NapkinPlotClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  widget_class->snapshot = napkin_plot_snapshot;
  widget_class->measure = napkin_plot_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
  klass->min_height = 180;
  klass->natural_height = 240;
  klass->natural_width = 480;
}

static void
napkin_plot_init (NapkinPlot *self)
{
  NapkinPlotPrivate *priv = napkin_plot_get_instance_private (self);
  GtkEventController *motion = gtk_event_controller_motion_new ();

  priv->hover_x = -1;
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
}

/**
 * napkin_plot_get_hover_x:
 * @self: a plot
 *
 * Returns: the pointer's x in widget pixels, or a negative number when it is away
 */
double
napkin_plot_get_hover_x (NapkinPlot *self)
{
  NapkinPlotPrivate *priv;

  g_return_val_if_fail (NAPKIN_IS_PLOT (self), -1);
  priv = napkin_plot_get_instance_private (self);
  return priv->hover_x;
}

/**
 * napkin_plot_bind_series:
 * @self: a plot
 * @slot: where the plot keeps the series (a reference)
 * @series: (nullable): the model to show, or %NULL
 *
 * Points @slot at @series and redraws the plot whenever @series changes (and
 * once now), as sysprof's XY layers follow their series.
 *
 * Returns: whether @slot changed
 */
gboolean
napkin_plot_bind_series (NapkinPlot    *self,
                         NapkinSeries **slot,
                         NapkinSeries  *series)
{
  g_return_val_if_fail (NAPKIN_IS_PLOT (self), FALSE);
  g_return_val_if_fail (series == NULL || NAPKIN_IS_SERIES (series), FALSE);

  if (*slot == series)
    return FALSE;
  if (*slot != NULL)
    g_signal_handlers_disconnect_by_func (*slot, napkin_plot_changed, self);
  g_set_object (slot, series);
  if (series != NULL)
    g_signal_connect_swapped (series, "changed", G_CALLBACK (napkin_plot_changed), self);
  napkin_plot_changed (self);
  return TRUE;
}

/**
 * napkin_plot_changed:
 * @self: a plot
 *
 * What the plot shows changed: it redraws, and its accessible description
 * follows (a chart's data reaches a screen reader as the picture does).
 */
void
napkin_plot_changed (NapkinPlot *self)
{
  NapkinPlotClass *klass;

  g_return_if_fail (NAPKIN_IS_PLOT (self));

  klass = NAPKIN_PLOT_GET_CLASS (self);
  if (klass->describe != NULL)
    {
      g_autofree char *text = klass->describe (self);

      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      text != NULL ? text : "", -1);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* A plot's draw function says where its data went. */
void
napkin_plot_set_frame (NapkinPlot            *self,
                       const NapkinPlotFrame *frame)
{
  NapkinPlotPrivate *priv;

  g_return_if_fail (NAPKIN_IS_PLOT (self));
  priv = napkin_plot_get_instance_private (self);
  priv->frame = *frame;
  priv->have_frame = TRUE;
}

/* Returns: whether the last drawing placed a frame (an empty plot does not). */
gboolean
_napkin_plot_get_frame (NapkinPlot      *self,
                        NapkinPlotFrame *out_frame)
{
  NapkinPlotPrivate *priv;

  g_return_val_if_fail (NAPKIN_IS_PLOT (self), FALSE);
  priv = napkin_plot_get_instance_private (self);
  *out_frame = priv->frame;
  return priv->have_frame;
}

/**
 * napkin_plot_draw:
 * @self: a plot
 * @cr: the target, its origin at the plot's top left
 * @width: pixels across
 * @height: pixels down
 * @style: colours and font
 *
 * Draws the plot into any Cairo context: the widget's snapshot, an export, or the
 * frame-time benchmark's image surface.
 */
void
napkin_plot_draw (NapkinPlot            *self,
                  cairo_t               *cr,
                  int                    width,
                  int                    height,
                  const NapkinPlotStyle *style)
{
  NapkinPlotPrivate *priv;

  g_return_if_fail (NAPKIN_IS_PLOT (self));
  priv = napkin_plot_get_instance_private (self);
  priv->have_frame = FALSE;
  NAPKIN_PLOT_GET_CLASS (self)->draw (self, cr, width, height, style);
}

/**
 * napkin_plot_save:
 * @self: a plot
 * @path: ends in .png or .svg
 * @width: pixels (PNG) or points (SVG)
 * @height: pixels or points
 * @error: return location for a #GError
 *
 * Writes the plot as it is, in the widget's colours and font but without a hover
 * readout, on the opaque background of a card, to a PNG image or an SVG file.
 *
 * Returns: %TRUE if the file was written
 */
gboolean
napkin_plot_save (NapkinPlot  *self,
                  const char  *path,
                  int          width,
                  int          height,
                  GError     **error)
{
  NapkinPlotPrivate *priv;
  NapkinPlotStyle style;
  cairo_surface_t *surface;
  cairo_status_t status;
  gboolean svg = g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".SVG");
  double saved;
  cairo_t *cr;

  g_return_val_if_fail (NAPKIN_IS_PLOT (self), FALSE);
  priv = napkin_plot_get_instance_private (self);

  napkin_plot_style_init_for_widget (&style, GTK_WIDGET (self));
  if (svg)
    surface = cairo_svg_surface_create (path, width, height);
  else
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  gdk_cairo_set_source_rgba (cr, &style.bg);
  cairo_paint (cr);
  cairo_translate (cr, 12, 12);
  saved = priv->hover_x;
  priv->hover_x = -1;
  napkin_plot_draw (self, cr, width - 24, height - 24, &style);
  priv->hover_x = saved;
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  if (svg)
    {
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
    }
  else
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_destroy (surface);
  napkin_plot_style_clear (&style);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_autofree char *name = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not write the plot to “%s”: %s."), name,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
