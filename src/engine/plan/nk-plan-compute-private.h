/* nk-plan-compute-private.h: what the planner's arithmetic shares with its report inside the plan folder
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-plan-compute.h"

G_BEGIN_DECLS

/* nk-plan-compute.c: the batch the whole-batch activation estimates count */
double  _nk_plan_activation_batch  (const NkPlanInputs *inputs);
/* nk-plan-compute.c: the N of the days' 6·N·tokens: --params, scaled to the
 * active share of a mixture of experts whose shape is known */
double  _nk_plan_flops_params      (const NkPlanInputs *inputs,
                                    const NkPlanResult *result);

G_END_DECLS
