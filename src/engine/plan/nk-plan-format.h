/* nk-plan-format.h: numbers as the planner's formulas and summary write them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A leaf: plain numbers in, text out; nothing here knows a plan. The report
 * (nk-plan-report.c, nk-plan-cluster-report.c) writes every formula and summary
 * row with these, so a number reads the same wherever the planner shows it:
 *
 *   nk_plan_format_number (7e10)                  "7.0e10"
 *   nk_plan_format_number (86400)                 "86400"
 *   nk_plan_format_formula ("%N × %s", 6.0, "N")  "6 × N"
 *   nk_plan_format_bytes (640e9)                  "596 GiB (6.4e11 B)"
 *   nk_plan_format_days (143.87)                  "143.9 days"
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
void   nk_plan_format_append_number (GString    *s,
                                     double      value);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_number        (double      value);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_formula       (const char *format,
                                     ...);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_days_number   (double      days);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_days          (double      days);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_seconds       (double      seconds);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_bytes         (double      bytes);
NK_AVAILABLE_IN_ALL
char  *nk_plan_format_with_unit     (double      value,
                                     const char *unit);
NK_AVAILABLE_IN_ALL
void   nk_plan_format_row           (GString    *s,
                                     const char *label,
                                     const char *value,
                                     const char *formula_text);

G_END_DECLS
