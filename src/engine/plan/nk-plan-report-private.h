/* nk-plan-report-private.h: what the plan's report and its cluster half share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-plan-compute-private.h"
#include "nk-plan-format.h"
#include "nk-plan-report.h"

G_BEGIN_DECLS

/* nk-plan-cluster-report.c: the cluster model's text */
void   _nk_plan_report_cluster     (const NkPlanInputs  *inputs,
                                    const NkPlanResult  *result,
                                    char               **formulas);
char  *_nk_plan_layout_sentence    (const NkPlanInputs  *inputs,
                                    const NkPlanResult  *result,
                                    const NkPlanProblem *problem);
void   _nk_plan_build_json_cluster (JsonBuilder         *builder,
                                    const NkPlanInputs  *inputs,
                                    const NkPlanResult  *result);
void   _nk_plan_summary_cluster    (GString             *s,
                                    const NkPlanInputs  *inputs,
                                    const NkPlanResult  *result,
                                    const NkPlanReport  *report);

G_END_DECLS
