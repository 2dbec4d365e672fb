/* napkin-planner-page-private.h: the Planner page's insides: its widgets, what its actions share, test hooks
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page (napkin-planner-page.c) and its actions (napkin-planner-page-actions.c)
 * share the instance struct; the `_napkin_planner_page_get_*` hooks are for tests
 * only: the app talks to the page through its properties and actions.
 */
#pragma once

#include <adwaita.h>

#include "nk-plan.h"
#include "napkin-memory-chart.h"
#include "napkin-planner-page.h"

G_BEGIN_DECLS

typedef enum {
  GROUP_MODEL,
  GROUP_ARCHITECTURE,
  GROUP_HARDWARE,
  GROUP_ACTIVATIONS,
  GROUP_DEADLINE,
  N_GROUPS
} FormGroup;

struct _NapkinPlannerPage
{
  GtkWidget            parent_instance;

  NkPlan              *plan;
  GSettings           *settings;

  /* layout */
  GtkWidget           *form_scroller;
  GtkWidget           *results_scroller;
  GtkWidget           *vertical_separator;
  GtkWidget           *horizontal_separator;

  /* form */
  AdwEntryRow         *params_row;
  GtkLabel            *params_value;
  AdwEntryRow         *tokens_row;
  GtkLabel            *tokens_value;
  AdwEntryRow         *d_ff_row;
  AdwEntryRow         *vocab_row;
  AdwExpanderRow      *sized_row;
  GtkLabel            *sized_formula;
  AdwComboRow         *gpu_row;
  AdwComboRow         *dtype_row;
  AdwActionRow        *peak_row;
  GtkLabel            *peak_value;
  AdwActionRow        *sparse_row;
  GtkSwitch           *sparse_switch;
  AdwEntryRow         *gpus_row;
  AdwEntryRow         *mfu_row;
  AdwEntryRow         *price_row;
  AdwComboRow         *optimizer_row;
  AdwComboRow         *precision_row;
  AdwComboRow         *zero_row;
  AdwComboRow         *activation_model_row;
  AdwEntryRow         *batch_row;
  AdwEntryRow         *seq_row;
  AdwEntryRow         *layers_row;
  AdwEntryRow         *d_model_row;
  AdwEntryRow         *heads_row;
  AdwActionRow        *checkpointing_row;
  GtkSwitch           *checkpointing_switch;
  AdwActionRow        *largest_row;
  AdwEntryRow         *deadline_row;
  GtkLabel            *deadline_label;
  GtkLabel            *group_errors[N_GROUPS];

  /* results */
  GtkLabel            *days_label;
  GtkLabel            *headline_caption;
  GtkLabel            *headline_error;
  GtkLabel            *days_value;
  GtkLabel            *days_formula;
  GtkLabel            *gpu_hours_value;
  GtkLabel            *gpu_hours_formula;
  GtkLabel            *cost_value;
  GtkLabel            *cost_formula;
  GtkLabel            *flops_value;
  GtkLabel            *flops_formula;
  GtkLabel            *rate_value;
  GtkLabel            *rate_formula;
  AdwPreferencesGroup *memory_group;
  NapkinMemoryChart   *chart;
  AdwActionRow        *bytes_row;
  GtkLabel            *bytes_value;
  GtkLabel            *memory_value;
  GtkLabel            *memory_formula;
};


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

void         _napkin_planner_page_install_actions (GtkWidgetClass    *widget_class);
void         _napkin_planner_page_set_entry_text  (NapkinPlannerPage *self,
                                                   const char        *input,
                                                   const char        *text);
char        *_napkin_planner_page_format_fill_in  (double             value);

G_END_DECLS
