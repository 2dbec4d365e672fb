/* napkin-rounding-demo.h: stochastic rounding, many times over, and a running sum
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "napkin-series.h"
#include "nk-dtype.h"

G_BEGIN_DECLS

/**
 * NapkinStochasticCounts:
 * @value: the value rounded
 * @below: the representable value at or below it (round down)
 * @above: the representable value at or above it (round up)
 * @n: how many times it was rounded
 * @n_below: how many times the result was @below
 * @n_above: how many times it was @above (when @below == @above, all of them)
 * @n_other: results that were neither (none, if rounding is right)
 * @mean: the mean of the @n results
 *
 * One value rounded @n times, stochastically.
 */
typedef struct {
  double  value;
  double  below;
  double  above;
  guint64 n;
  guint64 n_below;
  guint64 n_above;
  guint64 n_other;
  double  mean;
} NapkinStochasticCounts;

gboolean napkin_rounding_stochastic_counts (NkDType                 dtype,
                                            double                  value,
                                            guint64                 n,
                                            guint64                 seed,
                                            NapkinStochasticCounts *out);
double   napkin_rounding_running_sum       (NkDType                 dtype,
                                            double                  addend,
                                            guint                   n_steps,
                                            NkRoundingMode          mode,
                                            guint64                 seed,
                                            NapkinSeries           *out);

G_END_DECLS
