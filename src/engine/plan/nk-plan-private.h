/* nk-plan-private.h: what the plan object's two files share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-plan.h"

G_BEGIN_DECLS

/* Everything a recompute produces: the pure result and its text. Compared field
 * by field to notify only what changed. */
typedef struct {
  NkPlanResult  result;
  NkPlanReport  report;
} NkPlanOutputs;

struct _NkPlan
{
  GObject        parent_instance;

  /* in.gpu points at @gpu. */
  NkPlanInputs   in;
  char          *gpu;
  /* Why an input has no value (text that is not a number), or NULL. */
  char          *invalid[NK_PLAN_N_INPUTS];

  NkPlanOutputs  out;
  guint          revision;
};

enum {
  PROP_0,
  /* inputs */
  PROP_IN_FIRST,
  PROP_IN_LAST = PROP_IN_FIRST + NK_PLAN_N_INPUTS - 1,
  PROP_GPU,
  PROP_DTYPE,
  PROP_SPARSE,
  PROP_OPTIMIZER,
  PROP_PRECISION,
  PROP_ZERO_STAGE,
  PROP_ACTIVATION_MODEL,
  PROP_CHECKPOINTING,
  /* outputs */
  PROP_VALID,
  PROP_ERROR,
  PROP_ERROR_INPUT,
  PROP_GPU_NAME,
  PROP_BYTES_PER_PARAM_TEXT,
  PROP_FITS,
  PROP_REVISION,
  PROP_VALUE_FIRST,
  PROP_VALUE_LAST = PROP_VALUE_FIRST + NK_PLAN_N_VALUES - 1,
  PROP_LAYOUT_FIRST,
  PROP_LAYOUT_LAST = PROP_LAYOUT_FIRST + NK_PLAN_N_LAYOUT - 1,
  N_PROPS
};

extern GParamSpec *_nk_plan_properties[N_PROPS];

/* Every input goes through here: notify it and the outputs together; nothing if unchanged. */
#define SET_INPUT(self, field, value, prop)                                \
  G_STMT_START {                                                           \
    if ((self)->field != (value))                                          \
      {                                                                    \
        g_object_freeze_notify (G_OBJECT (self));                          \
        (self)->field = (value);                                           \
        g_object_notify_by_pspec (G_OBJECT (self), _nk_plan_properties[prop]); \
        _nk_plan_recompute (self);                                         \
        g_object_thaw_notify (G_OBJECT (self));                            \
      }                                                                    \
  } G_STMT_END

void  _nk_plan_recompute        (NkPlan     *self);
void  _nk_plan_set_input_state  (NkPlan     *self,
                                 guint       which,
                                 double      value,
                                 const char *message);
void  _nk_plan_set_input_double (NkPlan     *self,
                                 guint       which,
                                 double      value);
int   _nk_plan_input_index      (const char *name);
const char *_nk_plan_outputs_error       (const NkPlanOutputs *o);
const char *_nk_plan_outputs_error_input (const NkPlanOutputs *o);

G_END_DECLS
