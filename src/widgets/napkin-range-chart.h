/* napkin-range-chart.h: the magnitudes each format can hold, on one log10 axis
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "nk-dtype.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_RANGE_CHART (napkin_range_chart_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRangeChart, napkin_range_chart, NAPKIN, RANGE_CHART, GtkWidget)

GtkWidget  *napkin_range_chart_new             (void);
void        napkin_range_chart_add_format      (NapkinRangeChart *self,
                                                NkDType           dtype);
void        napkin_range_chart_set_input       (NapkinRangeChart *self,
                                                gboolean          known,
                                                double            value,
                                                const char       *label);
void        napkin_range_chart_set_result      (NapkinRangeChart *self,
                                                NkDType           dtype,
                                                gboolean          known,
                                                double            value);
const char *napkin_range_chart_get_description (NapkinRangeChart *self);

G_END_DECLS
