/* nk-plan.c: the budget planner object: inputs as properties, outputs kept up to date
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The numbers come from nk_plan_compute() (nk-plan-compute.c), their text from
 * the report (nk-plan-report.c), both pure functions of the plan's
 * #NkPlanInputs and #NkPlanResult; this file holds the properties, notifies,
 * and wraps the report in methods that read its own structs.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-plan-private.h"
#include "nk-units.h"

/**
 * nk_activation_model_to_string:
 * @model: an activation model
 *
 * Names @model by its nick, as #NkPlan:activation-model's GType has it.
 *
 * Returns: "linear" or "transformer"
 */
const char *
nk_activation_model_to_string (NkActivationModel model)
{
  return nk_enum_to_nick (NK_TYPE_ACTIVATION_MODEL, model);
}

/**
 * nk_activation_model_from_string:
 * @text: "linear" or "transformer"
 * @out_model: (out): the model
 *
 * Parses an activation model's name, the inverse of nk_activation_model_to_string().
 *
 * Returns: %TRUE if @text names a model
 */
gboolean
nk_activation_model_from_string (const char        *text,
                                 NkActivationModel *out_model)
{
  int value;

  g_return_val_if_fail (out_model != NULL, FALSE);
  if (!nk_enum_from_nick (NK_TYPE_ACTIVATION_MODEL, text, &value))
    return FALSE;
  *out_model = value;
  return TRUE;
}

/* ---------------------------------------------------------------- tables */

int
_nk_plan_input_index (const char *name)
{
  for (guint i = 0; i < NK_PLAN_N_INPUTS; i++)
    if (g_strcmp0 (nk_plan_input_name (i), name) == 0)
      return i;
  return -1;
}


G_DEFINE_FINAL_TYPE (NkPlan, nk_plan, G_TYPE_OBJECT)

/* The layout inputs (issue 14), one row each: kebab-case name, kind and range
 * (the defaults are nk_plan_inputs_init()'s; NkPlanInputs.layout holds ints). */
typedef enum { LAYOUT_INT, LAYOUT_BOOL, LAYOUT_ENUM } LayoutKind;

static const struct {
  const char *name;
  LayoutKind  kind;
  GType     (*enum_type) (void);
  int         min, max;
} layout_inputs[NK_PLAN_N_LAYOUT] = {
  [NK_PLAN_L_TP] = { "tp", LAYOUT_INT, NULL, 1, 1 << 20 },
  [NK_PLAN_L_PP] = { "pp", LAYOUT_INT, NULL, 1, 1 << 20 },
  [NK_PLAN_L_CP] = { "cp", LAYOUT_INT, NULL, 1, 1 << 20 },
  /* 0: derived, gpus / (tp · pp · cp) */
  [NK_PLAN_L_DP] = { "dp", LAYOUT_INT, NULL, 0, G_MAXINT },
  [NK_PLAN_L_VIRTUAL_STAGES] = { "virtual-stages", LAYOUT_INT, NULL, 1, 1 << 10 },
  [NK_PLAN_L_SEQUENCE_PARALLEL] = { "sequence-parallel", LAYOUT_BOOL, NULL, 0, 1 },
  [NK_PLAN_L_RECOMPUTE] = { "recompute", LAYOUT_ENUM, nk_recompute_get_type, 0, 0 },
  [NK_PLAN_L_FLASH_ATTENTION] = { "flash-attention", LAYOUT_BOOL, NULL, 0, 1 },
  [NK_PLAN_L_GRAD_PRECISION] = { "grad-precision", LAYOUT_ENUM, nk_grad_precision_get_type, 0, 0 },
  [NK_PLAN_L_GPUS_PER_NODE] = { "gpus-per-node", LAYOUT_INT, NULL, 1, 1 << 16 },
  /* 0: the global batch over DP in one micro-batch */
  [NK_PLAN_L_MICRO_BATCH] = { "micro-batch", LAYOUT_INT, NULL, 0, G_MAXINT },
  /* 0: the batch input (sequences per step, all GPUs together) */
  [NK_PLAN_L_GLOBAL_BATCH] = { "global-batch", LAYOUT_INT, NULL, 0, G_MAXINT },
  /* 0: as many as the heads (multi-head attention) */
  [NK_PLAN_L_KV_HEADS] = { "kv-heads", LAYOUT_INT, NULL, 0, G_MAXINT },
  [NK_PLAN_L_FFN] = { "ffn", LAYOUT_ENUM, nk_ffn_get_type, 0, 0 },
  [NK_PLAN_L_TIED_EMBEDDINGS] = { "tied-embeddings", LAYOUT_BOOL, NULL, 0, 1 },
  [NK_PLAN_L_CAPACITY] = { "capacity", LAYOUT_ENUM, nk_capacity_get_type, 0, 0 },
  [NK_PLAN_L_MFU_AUTO] = { "mfu-auto", LAYOUT_BOOL, NULL, 0, 1 },
  [NK_PLAN_L_BEST_LAYOUT] = { "best-layout", LAYOUT_BOOL, NULL, 0, 1 },
  /* percent of the reported memory kept free for the allocator's fragmentation */
  [NK_PLAN_L_MEMORY_RESERVE] = { "memory-reserve", LAYOUT_INT, NULL, 0, 90 },
  /* ZeRO-3 as PyTorch FSDP rather than DeepSpeed: full recompute reuses the
   * backward's all-gather instead of gathering again */
  [NK_PLAN_L_FSDP] = { "fsdp", LAYOUT_BOOL, NULL, 0, 1 },
  /* 0: the GPU table's NVLink domain (at least the GPUs per node) */
  [NK_PLAN_L_NVLINK_DOMAIN] = { "nvlink-domain", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_DROPOUT] = { "dropout", LAYOUT_BOOL, NULL, 0, 1 },
  /* 0: d_model / heads */
  [NK_PLAN_L_HEAD_DIM] = { "head-dim", LAYOUT_INT, NULL, 0, 1 << 20 },
  /* 0: a dense model */
  [NK_PLAN_L_EXPERTS] = { "experts", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_EXPERTS_PER_TOKEN] = { "experts-per-token", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_SHARED_EXPERTS] = { "shared-experts", LAYOUT_INT, NULL, 0, 1 << 20 },
  /* 0: d_ff */
  [NK_PLAN_L_EXPERT_D_FF] = { "expert-d-ff", LAYOUT_INT, NULL, 0, G_MAXINT },
  [NK_PLAN_L_DENSE_LAYERS] = { "dense-layers", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_EP] = { "ep", LAYOUT_INT, NULL, 1, 1 << 20 },
  [NK_PLAN_L_ETP] = { "etp", LAYOUT_INT, NULL, 1, 1 << 20 },
  [NK_PLAN_L_ATTENTION] = { "attention", LAYOUT_ENUM, nk_attention_get_type, 0, 0 },
  /* 0: Q projected directly (DeepSeek-V2-Lite); the others 0: not given */
  [NK_PLAN_L_Q_LORA_RANK] = { "q-lora-rank", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_KV_LORA_RANK] = { "kv-lora-rank", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_QK_NOPE_HEAD_DIM] = { "qk-nope-head-dim", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_QK_ROPE_HEAD_DIM] = { "qk-rope-head-dim", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_V_HEAD_DIM] = { "v-head-dim", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_RECIPE] = { "recipe", LAYOUT_ENUM, nk_plan_recipe_get_type, 0, 0 },
  /* 0: an even share */
  [NK_PLAN_L_FIRST_STAGE_LAYERS] = { "first-stage-layers", LAYOUT_INT, NULL, 0, 1 << 20 },
  [NK_PLAN_L_LAST_STAGE_LAYERS] = { "last-stage-layers", LAYOUT_INT, NULL, 0, 1 << 20 },
  /* the step-time model's overlaps (nk-plan-cluster-time.c) */
  [NK_PLAN_L_TP_COMM_OVERLAP] = { "tp-comm-overlap", LAYOUT_BOOL, NULL, 0, 1 },
  [NK_PLAN_L_EP_COMM_OVERLAP] = { "ep-comm-overlap", LAYOUT_BOOL, NULL, 0, 1 },
  /* the linear weights only in the recipe's format (no 16-bit copy) */
  [NK_PLAN_L_FP8_PARAM_GATHER] = { "fp8-param-gather", LAYOUT_BOOL, NULL, 0, 1 },
  /* 0: every layer's activations stay on the GPU */
  [NK_PLAN_L_CPU_OFFLOAD_LAYERS] = { "cpu-offload-layers", LAYOUT_INT, NULL, 0, 1 << 20 },
  /* the expert all-to-alls' dispatcher: DeepEP's (one network copy per domain) */
  [NK_PLAN_L_DEEPEP] = { "deepep", LAYOUT_BOOL, NULL, 0, 1 },
};

static void get_layout_value (NkPlan *self, guint which, GValue *value);


GParamSpec *_nk_plan_properties[N_PROPS];
/* The error of a result: its first problem. */
const char *
_nk_plan_outputs_error (const NkPlanOutputs *o)
{
  return o->result.n_problems > 0 ? o->report.messages[0] : NULL;
}

const char *
_nk_plan_outputs_error_input (const NkPlanOutputs *o)
{
  return o->result.n_problems > 0 ? o->result.problems[0].input : NULL;
}

static gboolean
same_input_errors (const NkPlanOutputs *a,
                   const NkPlanOutputs *b)
{
  if (a->result.n_problems != b->result.n_problems)
    return FALSE;
  for (guint i = 0; i < a->result.n_problems; i++)
    if (!g_str_equal (a->result.problems[i].input, b->result.problems[i].input)
        || g_strcmp0 (a->report.messages[i], b->report.messages[i]) != 0)
      return FALSE;
  return TRUE;
}

static gboolean
same_double (double a,
             double b)
{
  return a == b || (isnan (a) && isnan (b));
}

static void
compute (NkPlan        *self,
         NkPlanOutputs *outputs)
{
  nk_plan_compute (&self->in, &outputs->result);
  nk_plan_report_fill (&outputs->report, &self->in, &outputs->result, self->invalid);
}

/* Notifies each changed output, formulas and per-input sentences included; TRUE if any. */
static gboolean
notify_changes (NkPlan              *self,
                const NkPlanOutputs *old,
                const NkPlanOutputs *fresh)
{
  gboolean any = FALSE;

  for (guint i = 0; i < NK_PLAN_N_VALUES; i++)
    if (!same_double (old->result.values[i], fresh->result.values[i]))
      {
        g_object_notify_by_pspec (G_OBJECT (self), _nk_plan_properties[PROP_VALUE_FIRST + i]);
        any = TRUE;
      }
#define NOTIFY_IF(cond, prop) \
  if (cond) { g_object_notify_by_pspec (G_OBJECT (self), _nk_plan_properties[prop]); any = TRUE; }
  NOTIFY_IF (old->result.valid != fresh->result.valid, PROP_VALID);
  NOTIFY_IF (old->result.fits != fresh->result.fits, PROP_FITS);
  NOTIFY_IF (g_strcmp0 (_nk_plan_outputs_error (old), _nk_plan_outputs_error (fresh)) != 0, PROP_ERROR);
  NOTIFY_IF (g_strcmp0 (_nk_plan_outputs_error_input (old), _nk_plan_outputs_error_input (fresh)) != 0,
             PROP_ERROR_INPUT);
  NOTIFY_IF (g_strcmp0 (old->report.gpu_name, fresh->report.gpu_name) != 0, PROP_GPU_NAME);
  NOTIFY_IF (g_strcmp0 (old->report.bytes_text, fresh->report.bytes_text) != 0,
             PROP_BYTES_PER_PARAM_TEXT);
#undef NOTIFY_IF
  for (guint i = 0; i < NK_PLAN_N_FORMULAS && !any; i++)
    if (g_strcmp0 (old->report.formulas[i], fresh->report.formulas[i]) != 0)
      any = TRUE;
  return any || !same_input_errors (old, fresh);
}

/* Recomputes every output and notifies each changed property once. The caller
 * has frozen notifications, so handlers see the whole new state. */
void
_nk_plan_recompute (NkPlan *self)
{
  NkPlanOutputs fresh = { 0 };
  gboolean any;

  compute (self, &fresh);
  any = notify_changes (self, &self->out, &fresh);
  nk_plan_report_clear (&self->out.report);
  self->out = fresh;
  if (any)
    {
      self->revision++;
      g_object_notify_by_pspec (G_OBJECT (self), _nk_plan_properties[PROP_REVISION]);
    }
}

/* ---------------------------------------------------------------- GObject */

static void
nk_plan_finalize (GObject *object)
{
  NkPlan *self = NK_PLAN (object);

  g_clear_pointer (&self->gpu, g_free);
  for (guint i = 0; i < NK_PLAN_N_INPUTS; i++)
    g_clear_pointer (&self->invalid[i], g_free);
  nk_plan_report_clear (&self->out.report);

  G_OBJECT_CLASS (nk_plan_parent_class)->finalize (object);
}

static void
nk_plan_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  NkPlan *self = NK_PLAN (object);

  if (prop_id >= PROP_IN_FIRST && prop_id <= PROP_IN_LAST)
    {
      g_value_set_double (value, self->in.in[prop_id - PROP_IN_FIRST]);
      return;
    }
  if (prop_id >= PROP_VALUE_FIRST && prop_id <= PROP_VALUE_LAST)
    {
      g_value_set_double (value, self->out.result.values[prop_id - PROP_VALUE_FIRST]);
      return;
    }
  if (prop_id >= PROP_LAYOUT_FIRST && prop_id <= PROP_LAYOUT_LAST)
    {
      get_layout_value (self, prop_id - PROP_LAYOUT_FIRST, value);
      return;
    }

  switch (prop_id)
    {
    case PROP_GPU: g_value_set_string (value, self->gpu); break;
    case PROP_DTYPE: g_value_set_enum (value, self->in.dtype); break;
    case PROP_SPARSE: g_value_set_boolean (value, self->in.sparse); break;
    case PROP_OPTIMIZER: g_value_set_enum (value, self->in.optimizer); break;
    case PROP_PRECISION: g_value_set_enum (value, self->in.precision); break;
    case PROP_ZERO_STAGE: g_value_set_int (value, self->in.zero_stage); break;
    case PROP_ACTIVATION_MODEL: g_value_set_enum (value, self->in.activation_model); break;
    case PROP_CHECKPOINTING: g_value_set_boolean (value, self->in.checkpointing); break;
    case PROP_VALID: g_value_set_boolean (value, self->out.result.valid); break;
    case PROP_ERROR: g_value_set_string (value, _nk_plan_outputs_error (&self->out)); break;
    case PROP_ERROR_INPUT: g_value_set_string (value, _nk_plan_outputs_error_input (&self->out)); break;
    case PROP_GPU_NAME: g_value_set_string (value, self->out.report.gpu_name); break;
    case PROP_BYTES_PER_PARAM_TEXT: g_value_set_string (value, self->out.report.bytes_text); break;
    case PROP_FITS: g_value_set_boolean (value, self->out.result.fits); break;
    case PROP_REVISION: g_value_set_uint (value, self->revision); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}


/* @message is why the input has no value (then @value is NAN), or NULL. */
void
_nk_plan_set_input_state (NkPlan     *self,
                 guint       which,
                 double      value,
                 const char *message)
{
  gboolean value_changed = !same_double (self->in.in[which], value)
                           || signbit (self->in.in[which]) != signbit (value);

  if (!value_changed && g_strcmp0 (self->invalid[which], message) == 0)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  self->in.in[which] = value;
  g_free (self->invalid[which]);
  self->invalid[which] = g_strdup (message);
  self->in.missing[which] = message != NULL;
  if (value_changed)
    g_object_notify_by_pspec (G_OBJECT (self), _nk_plan_properties[PROP_IN_FIRST + which]);
  _nk_plan_recompute (self);
  g_object_thaw_notify (G_OBJECT (self));
}

void
_nk_plan_set_input_double (NkPlan *self,
                  guint   which,
                  double  value)
{
  _nk_plan_set_input_state (self, which, value, NULL);
}

static void
get_layout_value (NkPlan *self,
                  guint   which,
                  GValue *value)
{
  int v = self->in.layout[which];

  switch (layout_inputs[which].kind)
    {
    case LAYOUT_INT: g_value_set_int (value, v); break;
    case LAYOUT_BOOL: g_value_set_boolean (value, v != 0); break;
    case LAYOUT_ENUM: g_value_set_enum (value, v); break;
    default: g_assert_not_reached ();
    }
}

static void
set_layout_value (NkPlan       *self,
                  guint         which,
                  const GValue *value)
{
  int v = 0;

  switch (layout_inputs[which].kind)
    {
    case LAYOUT_INT: v = g_value_get_int (value); break;
    case LAYOUT_BOOL: v = g_value_get_boolean (value) ? 1 : 0; break;
    case LAYOUT_ENUM: v = g_value_get_enum (value); break;
    default: g_assert_not_reached ();
    }
  SET_INPUT (self, in.layout[which], v, PROP_LAYOUT_FIRST + which);
}

static GParamSpec *
layout_pspec (guint       which,
              int         def,
              GParamFlags flags)
{
  const char *name = layout_inputs[which].name;

  switch (layout_inputs[which].kind)
    {
    case LAYOUT_INT:
      return g_param_spec_int (name, NULL, NULL, layout_inputs[which].min,
                               layout_inputs[which].max, def, flags);
    case LAYOUT_BOOL:
      return g_param_spec_boolean (name, NULL, NULL, def != 0, flags);
    case LAYOUT_ENUM:
      return g_param_spec_enum (name, NULL, NULL, layout_inputs[which].enum_type (), def, flags);
    default:
      g_assert_not_reached ();
    }
  return NULL;
}

static void
nk_plan_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  NkPlan *self = NK_PLAN (object);

  if (prop_id >= PROP_IN_FIRST && prop_id <= PROP_IN_LAST)
    {
      _nk_plan_set_input_double (self, prop_id - PROP_IN_FIRST, g_value_get_double (value));
      return;
    }
  if (prop_id >= PROP_LAYOUT_FIRST && prop_id <= PROP_LAYOUT_LAST)
    {
      set_layout_value (self, prop_id - PROP_LAYOUT_FIRST, value);
      return;
    }

  switch (prop_id)
    {
    case PROP_GPU: nk_plan_set_gpu (self, g_value_get_string (value)); break;
    case PROP_DTYPE: nk_plan_set_dtype (self, g_value_get_enum (value)); break;
    case PROP_SPARSE: nk_plan_set_sparse (self, g_value_get_boolean (value)); break;
    case PROP_OPTIMIZER: nk_plan_set_optimizer (self, g_value_get_enum (value)); break;
    case PROP_PRECISION: nk_plan_set_precision (self, g_value_get_enum (value)); break;
    case PROP_ZERO_STAGE: nk_plan_set_zero_stage (self, g_value_get_int (value)); break;
    case PROP_ACTIVATION_MODEL:
      SET_INPUT (self, in.activation_model, (NkActivationModel) g_value_get_enum (value),
                 PROP_ACTIVATION_MODEL);
      break;
    case PROP_CHECKPOINTING:
      SET_INPUT (self, in.checkpointing, g_value_get_boolean (value), PROP_CHECKPOINTING);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_plan_class_init (NkPlanClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  NkPlanInputs d;

  nk_plan_inputs_init (&d);
  object_class->finalize = nk_plan_finalize;
  object_class->get_property = nk_plan_get_property;
  object_class->set_property = nk_plan_set_property;

  /* Numeric inputs take any double, even NaN or ±inf: the plan refuses bad input with
   * a sentence, not a GLib warning. The properties' doc comments are in nk-plan.h. */
  for (guint i = 0; i < NK_PLAN_N_INPUTS; i++)
    _nk_plan_properties[PROP_IN_FIRST + i] =
      g_param_spec_double (nk_plan_input_name (i), NULL, NULL, -INFINITY, INFINITY,
                           d.in[i], rw);

  for (guint i = 0; i < NK_PLAN_N_LAYOUT; i++)
    _nk_plan_properties[PROP_LAYOUT_FIRST + i] = layout_pspec (i, d.layout[i], rw);

  _nk_plan_properties[PROP_GPU] = g_param_spec_string ("gpu", NULL, NULL, d.gpu, rw);
  _nk_plan_properties[PROP_DTYPE] = g_param_spec_enum ("dtype", NULL, NULL, NK_TYPE_PEAK_DTYPE, d.dtype, rw);
  _nk_plan_properties[PROP_SPARSE] = g_param_spec_boolean ("sparse", NULL, NULL, d.sparse, rw);
  _nk_plan_properties[PROP_OPTIMIZER] = g_param_spec_enum ("optimizer", NULL, NULL, NK_TYPE_OPTIMIZER,
                                                  d.optimizer, rw);
  _nk_plan_properties[PROP_PRECISION] = g_param_spec_enum ("precision", NULL, NULL, NK_TYPE_PRECISION,
                                                  d.precision, rw);
  _nk_plan_properties[PROP_ZERO_STAGE] = g_param_spec_int ("zero-stage", NULL, NULL, 0, 3, d.zero_stage, rw);
  _nk_plan_properties[PROP_ACTIVATION_MODEL] =
    g_param_spec_enum ("activation-model", NULL, NULL, NK_TYPE_ACTIVATION_MODEL,
                       d.activation_model, rw);
  _nk_plan_properties[PROP_CHECKPOINTING] = g_param_spec_boolean ("checkpointing", NULL, NULL,
                                                         d.checkpointing, rw);

  _nk_plan_properties[PROP_VALID] = g_param_spec_boolean ("valid", NULL, NULL, TRUE, ro);
  _nk_plan_properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, ro);
  _nk_plan_properties[PROP_ERROR_INPUT] = g_param_spec_string ("error-input", NULL, NULL, NULL, ro);
  _nk_plan_properties[PROP_GPU_NAME] = g_param_spec_string ("gpu-name", NULL, NULL, NULL, ro);
  _nk_plan_properties[PROP_BYTES_PER_PARAM_TEXT] =
    g_param_spec_string ("bytes-per-param-text", NULL, NULL, NULL, ro);
  _nk_plan_properties[PROP_FITS] = g_param_spec_boolean ("fits", NULL, NULL, FALSE, ro);
  _nk_plan_properties[PROP_REVISION] = g_param_spec_uint ("revision", NULL, NULL, 0, G_MAXUINT, 0, ro);
  for (guint i = 0; i < NK_PLAN_N_VALUES; i++)
    _nk_plan_properties[PROP_VALUE_FIRST + i] =
      g_param_spec_double (nk_plan_value_name (i), NULL, NULL, -INFINITY, INFINITY, 0, ro);

  g_object_class_install_properties (object_class, N_PROPS, _nk_plan_properties);
}

static void
nk_plan_init (NkPlan *self)
{
  nk_plan_inputs_init (&self->in);
  self->gpu = g_strdup (self->in.gpu);
  self->in.gpu = self->gpu;
  compute (self, &self->out);
}

/**
 * nk_plan_new:
 *
 * A plan with the lecture's first question as its inputs: 70e9 parameters,
 * 15e12 tokens, 1024 H100 SXM, dense bf16, MFU 0.5, AdamW in fp32, ZeRO-0.
 *
 * Returns: (transfer full): a new plan
 */
NkPlan *
nk_plan_new (void)
{
  return g_object_new (NK_TYPE_PLAN, NULL);
}

