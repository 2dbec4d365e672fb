/* napkin-planner-page.h: the Planner page: a training budget from a few numbers
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-plan.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_PLANNER_PAGE (napkin_planner_page_get_type ())

G_DECLARE_FINAL_TYPE (NapkinPlannerPage, napkin_planner_page, NAPKIN, PLANNER_PAGE, GtkWidget)

GtkWidget   *napkin_planner_page_new            (void);
NkPlan      *napkin_planner_page_get_plan       (NapkinPlannerPage *self);
void         napkin_planner_page_set_settings   (NapkinPlannerPage *self,
                                                 GSettings         *settings);

G_END_DECLS
