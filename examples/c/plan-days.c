/* plan-days.c: the lecture's 143.9 days, from C against the installed libnapkin-1
 *
 *   cc plan-days.c $(pkg-config --cflags --libs napkin-1) -o plan-days
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <napkin.h>
#include <stdio.h>

int
main (void)
{
  g_autoptr (NkPlan) plan = g_object_new (NK_TYPE_PLAN, "params", 7e10, "tokens", 1.5e13,
                                          "gpu", "h100-sxm", "gpus", 1024.0, "mfu", 0.5, NULL);

  printf ("%s: %.1f days\n", nk_plan_get_gpu_name (plan), nk_plan_get_days (plan));
  return 0;
}
