/* napkin-cluster-form.h: the Planner's parallelism inputs, bound to an NkPlan
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-plan.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_CLUSTER_FORM (napkin_cluster_form_get_type ())

G_DECLARE_FINAL_TYPE (NapkinClusterForm, napkin_cluster_form, NAPKIN, CLUSTER_FORM, AdwPreferencesGroup)

NkPlan    *napkin_cluster_form_get_plan     (NapkinClusterForm *self);
void       napkin_cluster_form_set_plan     (NapkinClusterForm *self,
                                             NkPlan            *plan);
GSettings *napkin_cluster_form_get_settings (NapkinClusterForm *self);
void       napkin_cluster_form_set_settings (NapkinClusterForm *self,
                                             GSettings         *settings);
GtkWidget *_napkin_cluster_form_get_control (NapkinClusterForm *self,
                                             const char        *property);
const char *_napkin_cluster_form_get_error_text (NapkinClusterForm *self);

void       napkin_form_mark_invalid         (GtkWidget         *row,
                                             const char        *sentence);

G_END_DECLS
