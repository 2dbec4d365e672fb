/* napkin-formats-rounding.h: the Number formats page's Rounding section
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "napkin-rounding-demo.h"
#include "napkin-series.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_FORMATS_ROUNDING (napkin_formats_rounding_get_type ())

G_DECLARE_FINAL_TYPE (NapkinFormatsRounding, napkin_formats_rounding, NAPKIN, FORMATS_ROUNDING,
                      GtkWidget)

GtkWidget    *napkin_formats_rounding_new            (void);
void          napkin_formats_rounding_set_value_text (NapkinFormatsRounding *self,
                                                      const char            *text);
gboolean      napkin_formats_rounding_set_dtype      (NapkinFormatsRounding *self,
                                                      NkDType                dtype);
gboolean      napkin_formats_rounding_set_sum_dtype  (NapkinFormatsRounding *self,
                                                      NkDType                dtype);
void          napkin_formats_rounding_set_n_steps    (NapkinFormatsRounding *self,
                                                      guint                  n_steps);

/* What it shows, for tests */
const NapkinStochasticCounts *napkin_formats_rounding_get_counts (NapkinFormatsRounding *self);
NapkinSeries *napkin_formats_rounding_get_sum        (NapkinFormatsRounding *self,
                                                      NkRoundingMode         mode);
GtkWidget    *napkin_formats_rounding_get_sum_plot   (NapkinFormatsRounding *self);
GtkWidget    *napkin_formats_rounding_get_histogram  (NapkinFormatsRounding *self);
const char   *napkin_formats_rounding_get_error      (NapkinFormatsRounding *self);

G_END_DECLS
