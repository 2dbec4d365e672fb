/* napkin-plot-axes.h: what the training plots share: palette, frame, axes, lines
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The plots draw with Cairo into whatever surface they are given: a widget's
 * snapshot (gtk_snapshot_append_cairo), a PNG or SVG export, or a benchmark's
 * image surface. So nothing here needs a widget: a #NapkinPlotStyle carries the
 * foreground, whether the style is dark, the font, and the palette, all taken
 * from a widget's style once per drawing.
 */
#pragma once

#include <gtk/gtk.h>

#include "napkin-series.h"

G_BEGIN_DECLS

/**
 * NapkinPlotColor:
 *
 * libadwaita's named palette colours, one tone for light and one for dark styles, in the order
 * the plots use them (the memory buckets use the first five, as the planner's chart).
 */
typedef enum {
  NAPKIN_PLOT_BLUE,
  NAPKIN_PLOT_GREEN,
  NAPKIN_PLOT_YELLOW,
  NAPKIN_PLOT_PURPLE,
  NAPKIN_PLOT_ORANGE,
  NAPKIN_PLOT_RED,
  NAPKIN_PLOT_BROWN,
  NAPKIN_PLOT_N_COLORS
} NapkinPlotColor;

typedef struct {
  GdkRGBA               fg;
  GdkRGBA               bg;
  gboolean              dark;
  PangoFontDescription *font;
  GdkRGBA               palette[NAPKIN_PLOT_N_COLORS];
} NapkinPlotStyle;

typedef struct {
  /* the plotting area, pixels */
  double   left;
  double   top;
  double   width;
  double   height;
  /* the data shown: x0..x1 across, y0..y1 up (y in data units, also when log) */
  double   x0;
  double   x1;
  double   y0;
  double   y1;
  gboolean log_y;
  /* x0..x1 across in decades (both > 0) */
  gboolean log_x;
  /* formats the x tick values; NULL: whole steps (napkin_plot_format_count()) */
  char *(*x_format) (double value);
} NapkinPlotFrame;

typedef char *(*NapkinPlotFormatFunc) (double value);

void     napkin_plot_style_init_for_widget (NapkinPlotStyle       *style,
                                            GtkWidget             *widget);
void     napkin_plot_style_clear           (NapkinPlotStyle       *style);
void     napkin_plot_style_set_color       (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            NapkinPlotColor        color,
                                            double                 alpha);
void     napkin_plot_style_set_fg          (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            double                 alpha);

PangoLayout *napkin_plot_layout            (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const char            *text,
                                            gboolean               small,
                                            gboolean               bold);
void     napkin_plot_draw_text             (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const char            *text,
                                            double                 x,
                                            double                 y,
                                            double                 xalign,
                                            double                 yalign,
                                            gboolean               small,
                                            gboolean               bold);

void     napkin_plot_frame_set_y_range     (NapkinPlotFrame       *frame,
                                            double                 min,
                                            double                 max,
                                            gboolean               log_y,
                                            gboolean               from_zero);
void     napkin_plot_frame_set_x_range     (NapkinPlotFrame       *frame,
                                            double                 min,
                                            double                 max);
void     napkin_plot_frame_set_log_x_range (NapkinPlotFrame       *frame,
                                            double                 min,
                                            double                 max);
void     napkin_plot_frame_place           (NapkinPlotFrame       *frame,
                                            const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            double                 width,
                                            double                 height,
                                            double                 top_reserved,
                                            NapkinPlotFormatFunc   y_format);
double   napkin_plot_frame_x_to_px         (const NapkinPlotFrame *frame,
                                            double                 x);
double   napkin_plot_frame_px_to_x         (const NapkinPlotFrame *frame,
                                            double                 px);
double   napkin_plot_frame_y_to_px         (const NapkinPlotFrame *frame,
                                            double                 y);

void     napkin_plot_draw_axes             (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            const char            *x_label,
                                            const char            *y_label,
                                            NapkinPlotFormatFunc   y_format);
void     napkin_plot_draw_frame            (NapkinPlotFrame       *frame,
                                            const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            double                 width,
                                            double                 height,
                                            double                 top_reserved,
                                            const char            *x_label,
                                            const char            *y_label,
                                            NapkinPlotFormatFunc   y_format);
gboolean napkin_plot_frame_hover_x         (const NapkinPlotFrame *frame,
                                            double                 px,
                                            double                *out_x);
gboolean napkin_plot_frame_hover_index     (const NapkinPlotFrame *frame,
                                            double                 px,
                                            NapkinSeries          *series,
                                            guint                 *out_index);
void     napkin_plot_draw_series           (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            NapkinSeries          *series,
                                            NapkinPlotColor        color,
                                            double                 alpha,
                                            double                 line_width);
void     napkin_plot_draw_envelope         (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            NapkinSeries          *series,
                                            NapkinPlotColor        color,
                                            double                 alpha);
void     napkin_plot_draw_hline            (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            double                 y,
                                            NapkinPlotColor        color,
                                            gboolean               dashed);
void     napkin_plot_draw_vline            (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            double                 x,
                                            NapkinPlotColor        color,
                                            double                 line_width,
                                            const double          *dash);
void     napkin_plot_draw_segment          (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            double                 x0,
                                            double                 y0,
                                            double                 x1,
                                            double                 y1,
                                            NapkinPlotColor        color,
                                            double                 alpha,
                                            gboolean               dashed);
double   napkin_plot_draw_legend           (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            double                 x,
                                            double                 y,
                                            double                 max_width,
                                            const char * const    *labels,
                                            const NapkinPlotColor *colors,
                                            const gboolean        *dashed,
                                            guint                  n);
void     napkin_plot_draw_empty            (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            double                 width,
                                            double                 height,
                                            const char            *text);
void     napkin_plot_draw_readout          (const NapkinPlotStyle *style,
                                            cairo_t               *cr,
                                            const NapkinPlotFrame *frame,
                                            double                 px,
                                            const char            *text);

char    *napkin_plot_format_count          (double                 value);
char    *napkin_plot_format_plain          (double                 value);
char    *napkin_plot_format_fraction       (double                 value);
char    *napkin_plot_format_seconds        (double                 value);
char    *napkin_plot_format_bytes          (double                 value);
char    *napkin_plot_format_rate           (double                 value);

G_END_DECLS
