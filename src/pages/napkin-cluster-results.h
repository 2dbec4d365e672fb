/* napkin-cluster-results.h: the Planner's cluster step: layout, step time, MFU, the most loaded GPU, launch export
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-plan.h"
#include "napkin-memory-chart.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_CLUSTER_RESULTS (napkin_cluster_results_get_type ())

G_DECLARE_FINAL_TYPE (NapkinClusterResults, napkin_cluster_results, NAPKIN, CLUSTER_RESULTS, AdwPreferencesGroup)

NkPlan   *napkin_cluster_results_get_plan (NapkinClusterResults *self);
void      napkin_cluster_results_set_plan (NapkinClusterResults *self,
                                           NkPlan               *plan);
gboolean  napkin_cluster_results_export   (NapkinClusterResults *self,
                                           NkLaunchEngine        engine,
                                           const char           *path,
                                           GError              **error);
GtkWidget *_napkin_cluster_results_get_step_bar (NapkinClusterResults *self);
const char *_napkin_cluster_results_get_step_text (NapkinClusterResults *self);
/* why there is no layout, "" while one is shown */
const char *_napkin_cluster_results_get_status_text (NapkinClusterResults *self);
/* the "Activations by tensor" line of @term, "" while hidden */
const char *_napkin_cluster_results_get_term_text (NapkinClusterResults *self,
                                                   NkActTerm             term);
/* the routed experts' share of @plan's most loaded GPU, into @chart's buckets */
void _napkin_cluster_results_show_experts (NapkinMemoryChart *chart,
                                           NkPlan            *plan);

G_END_DECLS
