/* napkin-planner-page-private.h: what the Planner page's tests read and drive
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hooks into the page's widgets and shown text, for tests only: the app talks to the
 * page through its properties and actions.
 */
#pragma once

#include "napkin-planner-page.h"

G_BEGIN_DECLS

GtkEditable *_napkin_planner_page_get_entry      (NapkinPlannerPage *self,
                                                  const char        *input);
GtkWidget   *_napkin_planner_page_get_input_row  (NapkinPlannerPage *self,
                                                  const char        *input);
const char  *_napkin_planner_page_get_days_text  (NapkinPlannerPage *self);
char        *_napkin_planner_page_dup_output_texts (NapkinPlannerPage *self);
void         _napkin_planner_page_set_gpu        (NapkinPlannerPage *self,
                                                  const char        *gpu_id);
gboolean     _napkin_planner_page_export         (NapkinPlannerPage *self,
                                                  const char        *path,
                                                  GError           **error);

G_END_DECLS
