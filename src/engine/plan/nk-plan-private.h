/* nk-plan-private.h: what the planner object and its report share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-plan-compute.h"
#include "nk-plan.h"

G_BEGIN_DECLS

/* Everything a recompute produces: the pure result and its text. Compared field
 * by field to notify only what changed. */
typedef struct {
  NkPlanResult  result;
  char         *formulas[NK_PLAN_N_FORMULAS];
  char         *bytes_text;
  char         *gpu_name;
  /* One sentence per problem, parallel to result.problems: each bad input's own
   * sentence, so a form can mark each row; the first is the plan's error. */
  char         *messages[NK_PLAN_MAX_PROBLEMS];
} NkPlanOutputs;

void                 _nk_plan_outputs_fill  (NkPlanOutputs      *outputs,
                                             const NkPlanInputs *inputs,
                                             char *const        *invalid);
void                 _nk_plan_outputs_clear (NkPlanOutputs      *outputs);
int                  _nk_plan_problem_code  (NkPlanProblemKind   kind);
const char          *_nk_plan_zero_text     (int                 stage);

/* nk-plan-report.c's text helpers: %N is a number, %s a string */
char                *_nk_plan_formula       (const char         *format,
                                             ...);
char                *_nk_plan_bytes_text    (double              bytes);
char                *_nk_plan_sci_unit      (double              value,
                                             const char         *unit);
void                 _nk_plan_summary_row   (GString            *s,
                                             const char         *label,
                                             const char         *value,
                                             const char         *formula_text);

/* nk-plan-cluster-report.c: the cluster model's text */
void                 _nk_plan_report_cluster       (const NkPlanInputs *inputs,
                                                    const NkPlanResult *result,
                                                    char              **formulas);
char                *_nk_plan_layout_sentence      (const NkPlanInputs *inputs,
                                                    const NkPlanResult *result,
                                                    const NkPlanProblem *problem);
void                 _nk_plan_build_json_cluster   (JsonBuilder        *builder,
                                                    const NkPlanInputs *inputs,
                                                    const NkPlanResult *result);
void                 _nk_plan_summary_cluster      (GString            *s,
                                                    const NkPlanInputs *inputs,
                                                    const NkPlanOutputs *outputs);

const NkPlanInputs  *_nk_plan_get_inputs    (NkPlan             *self);
const NkPlanOutputs *_nk_plan_get_outputs   (NkPlan             *self);

G_END_DECLS
