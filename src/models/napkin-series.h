/* napkin-series.h: every point of a plotted series, and its per-pixel min/max
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A #NapkinSeries keeps every (x, y) point a plot was given, in order of
 * non-decreasing x (steps). Drawing a million points into a few hundred pixel
 * columns needs, per column, only the smallest and largest y; the series answers
 * that without visiting every point by keeping a pyramid of block minima and
 * maxima (blocks of 16, 256, 4096, ... points) that each append updates in
 * O(levels). Non-finite y values are kept but never count as a minimum or
 * maximum, so a NaN loss leaves a gap rather than a spike.
 *
 * A series is the model a plot is bound to, as sysprof's XY layers are bound to
 * theirs: every change emits #NapkinSeries::changed and the plots that show it
 * redraw; nothing pushes points into a widget. Series of one run can share their
 * x column (napkin_series_new_sharing_x()): the steps are then stored once.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_SERIES (napkin_series_get_type ())

G_DECLARE_FINAL_TYPE (NapkinSeries, napkin_series, NAPKIN, SERIES, GObject)

NapkinSeries *napkin_series_new          (void);
NapkinSeries *napkin_series_new_sharing_x (NapkinSeries *leader);

void          napkin_series_append       (NapkinSeries *self,
                                          double        x,
                                          double        y);
void          napkin_series_clear        (NapkinSeries *self);
void          napkin_series_remap        (NapkinSeries *self,
                                          NapkinSeries *from,
                                          NapkinSeries *map);
void          napkin_series_begin_update (NapkinSeries *self);
void          napkin_series_end_update   (NapkinSeries *self);
guint         napkin_series_get_length   (NapkinSeries *self);
gsize         napkin_series_get_memory_size (NapkinSeries *self);
double        napkin_series_get_x        (NapkinSeries *self,
                                          guint         index);
double        napkin_series_get_y        (NapkinSeries *self,
                                          guint         index);
gboolean      napkin_series_get_last     (NapkinSeries *self,
                                          double       *out_x,
                                          double       *out_y);
guint         napkin_series_lower_bound  (NapkinSeries *self,
                                          double        x);
gboolean      napkin_series_range_minmax (NapkinSeries *self,
                                          guint         begin,
                                          guint         end,
                                          double       *out_min,
                                          double       *out_max);
gboolean      napkin_series_get_y_bounds (NapkinSeries *self,
                                          double       *out_min,
                                          double       *out_max);
/* Column c of n over [x0, x1] holds the points whose
 *   c = floor ((x - x0) · n / (x1 - x0)),  with x == x1 in column n - 1;
 * out_min[c] / out_max[c] are NAN where a column has no finite y. */
guint         napkin_series_decimate     (NapkinSeries *self,
                                          double        x0,
                                          double        x1,
                                          guint         n_columns,
                                          double       *out_min,
                                          double       *out_max);

G_END_DECLS
