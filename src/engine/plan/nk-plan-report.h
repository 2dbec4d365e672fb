/* nk-plan-report.h: the budget planner's text as pure functions of its inputs and result
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk_plan_compute() (nk-plan-compute.h) fills an #NkPlanResult from an
 * #NkPlanInputs; everything here reads those two structs and writes text: each
 * output's formula with the numbers in it, one sentence per problem, CLI.md's
 * JSON, the summary `napkin-cli plan` prints and a launch spec. Nothing here
 * decides a number or knows the #NkPlan object, whose methods
 * (nk_plan_format_summary(), nk_plan_build_json(), ...) call these on its own
 * structs. A search loop, a test or another engine layer calls them on a
 * struct it filled:
 *
 *   NkPlanInputs in;
 *   NkPlanResult r;
 *   NkPlanReport report = { 0 };
 *
 *   nk_plan_inputs_init (&in);
 *   nk_plan_compute (&in, &r);
 *   nk_plan_report_fill (&report, &in, &r, NULL);
 *   summary = nk_plan_report_format_summary (&in, &r, &report, NK_PLAN_JSON_NONE);
 *   nk_plan_report_clear (&report);
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>
#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

#include "nk-launch.h"
#include "nk-plan-compute.h"

G_BEGIN_DECLS

#define NK_PLAN_ERROR (nk_plan_error_quark ())

/**
 * NkPlanError:
 * @NK_PLAN_ERROR_INVALID_INPUT: an input is outside its range, is not a number, or
 *   breaks a rule of the parallel layout
 * @NK_PLAN_ERROR_UNKNOWN_GPU: the GPU id is not in the GPU table
 * @NK_PLAN_ERROR_NO_PEAK: the GPU table lacks a number the plan needs: the peak in
 *   the dtype, the memory size or a bandwidth
 * @NK_PLAN_ERROR_OVERFLOW: a result is beyond the range of a double, or no
 *   plausible GPU count meets the deadline
 * @NK_PLAN_ERROR_NO_LAYOUT: --best-layout found no layout that fits
 *
 * The codes of %NK_PLAN_ERROR, the domain of nk_plan_check()'s errors; the
 * message is the plan's sentence (#NkPlan:error), the code its kind
 * (from the #NkPlanProblemKind of the first problem).
 */
typedef enum {
  NK_PLAN_ERROR_INVALID_INPUT,
  NK_PLAN_ERROR_UNKNOWN_GPU,
  NK_PLAN_ERROR_NO_PEAK,
  NK_PLAN_ERROR_OVERFLOW,
  NK_PLAN_ERROR_NO_LAYOUT,
} NkPlanError;

/**
 * NkPlanJsonFlags:
 * @NK_PLAN_JSON_NONE: the fields CLI.md always prints
 * @NK_PLAN_JSON_COST: add `cost`
 * @NK_PLAN_JSON_LARGEST: add `largest_params`
 * @NK_PLAN_JSON_DEADLINE: add `deadline_days` and `gpus_for_deadline`
 * @NK_PLAN_JSON_NO_COMPUTE: leave out the time fields (params or tokens not given)
 *
 * The optional parts of the plan's JSON (CLI.md's `napkin-cli plan --json`) and
 * summary, as the CLI's options ask for them.
 */
typedef enum {
  NK_PLAN_JSON_NONE       = 0,
  NK_PLAN_JSON_COST       = 1 << 0,
  NK_PLAN_JSON_LARGEST    = 1 << 1,
  NK_PLAN_JSON_DEADLINE   = 1 << 2,
  NK_PLAN_JSON_NO_COMPUTE = 1 << 3,
} NkPlanJsonFlags;

/**
 * NkPlanReport:
 * @formulas: each output's formula with its numbers, indexed by #NkPlanValue
 *   (%NULL where the output was not computed)
 * @bytes_text: the bytes per parameter as a sum, "4 + 4 + 8 = 16"
 * @gpu_name: the GPU's name from the table (or its id as typed when unknown)
 * @messages: one sentence per problem, parallel to #NkPlanResult.problems; the
 *   first is the plan's error
 *
 * The text of one result. Zero-initialise it, fill it with
 * nk_plan_report_fill() and free it with nk_plan_report_clear().
 */
typedef struct {
  char *formulas[NK_PLAN_N_FORMULAS];
  char *bytes_text;
  char *gpu_name;
  char *messages[NK_PLAN_MAX_PROBLEMS];
} NkPlanReport;

NK_AVAILABLE_IN_ALL
GQuark      nk_plan_error_quark           (void);

NK_AVAILABLE_IN_ALL
void        nk_plan_report_fill           (NkPlanReport       *report,
                                           const NkPlanInputs *inputs,
                                           const NkPlanResult *result,
                                           char *const        *invalid);
NK_AVAILABLE_IN_ALL
void        nk_plan_report_clear          (NkPlanReport       *report);
NK_AVAILABLE_IN_ALL
gboolean    nk_plan_report_check          (const NkPlanResult *result,
                                           const NkPlanReport *report,
                                           GError            **error);
NK_AVAILABLE_IN_ALL
const char *nk_plan_zero_text             (int                 stage);

NK_AVAILABLE_IN_ALL
void        nk_plan_report_build_json     (const NkPlanInputs *inputs,
                                           const NkPlanResult *result,
                                           NkPlanJsonFlags     flags,
                                           JsonBuilder        *builder);
NK_AVAILABLE_IN_ALL
char       *nk_plan_report_format_summary (const NkPlanInputs *inputs,
                                           const NkPlanResult *result,
                                           const NkPlanReport *report,
                                           NkPlanJsonFlags     flags);

/* nk-plan-launch.c */
NK_AVAILABLE_IN_ALL
gboolean    nk_plan_report_launch_spec    (const NkPlanInputs *inputs,
                                           const NkPlanResult *result,
                                           const NkPlanReport *report,
                                           NkLaunchSpec       *spec,
                                           GError            **error);

G_END_DECLS
