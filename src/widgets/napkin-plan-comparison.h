/* napkin-plan-comparison.h: a plan's prediction beside a run's measurement, quantity by quantity
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "nk-import-plan.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_PLAN_COMPARISON (napkin_plan_comparison_get_type ())

G_DECLARE_FINAL_TYPE (NapkinPlanComparison, napkin_plan_comparison, NAPKIN, PLAN_COMPARISON, GtkWidget)

GtkWidget  *napkin_plan_comparison_new          (void);
void        napkin_plan_comparison_set          (NapkinPlanComparison     *self,
                                                 const NkImportComparison *comparison);
const char *napkin_plan_comparison_get_cell     (NapkinPlanComparison     *self,
                                                 NkImportQuantity          quantity,
                                                 guint                     column);
const char *napkin_plan_comparison_get_verdict  (NapkinPlanComparison     *self);

G_END_DECLS
