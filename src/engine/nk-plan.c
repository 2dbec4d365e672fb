/* nk-plan.c: the budget planner: compute time, cost and memory of a training run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-json.h"
#include "nk-plan.h"
#include "nk-units.h"

#define SECONDS_PER_DAY 86400.0

G_DEFINE_QUARK (nk-plan-error-quark, nk_plan_error)

/* ---------------------------------------------------------------- enums */

/**
 * nk_activation_model_to_string:
 * @model: an activation model
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

/**
 * nk_plan_dtype_is_supported:
 * @dtype: a peak column
 *
 * Training plans use the tensor formats fp32, tf32, bf16, fp16 and fp8; fp64 and
 * int8 peaks are in the table for reference only.
 *
 * Returns: %TRUE for the dtypes #NkPlan:dtype accepts
 */
gboolean
nk_plan_dtype_is_supported (NkPeakDtype dtype)
{
  return dtype == NK_PEAK_FP32 || dtype == NK_PEAK_TF32 || dtype == NK_PEAK_BF16
         || dtype == NK_PEAK_FP16 || dtype == NK_PEAK_FP8;
}

/* ---------------------------------------------------------------- tables */

/* Numeric inputs, kept in one array so setters, properties and validation share
 * one description. */
enum {
  IN_PARAMS, IN_TOKENS, IN_GPUS, IN_MFU, IN_BATCH, IN_SEQ, IN_LAYERS, IN_D_MODEL,
  IN_HEADS, IN_D_FF, IN_VOCAB, IN_PRICE, IN_DEADLINE, N_INPUTS
};

/* @optional inputs read empty text as 0, "not given". */
static const struct {
  const char *name;
  double      default_value;
  gboolean    optional;
} inputs[N_INPUTS] = {
  [IN_PARAMS]   = { "params", 70e9, FALSE },
  [IN_TOKENS]   = { "tokens", 15e12, FALSE },
  [IN_GPUS]     = { "gpus", 1024, FALSE },
  [IN_MFU]      = { "mfu", 0.5, FALSE },
  [IN_BATCH]    = { "batch", 0, TRUE },
  [IN_SEQ]      = { "seq", 0, TRUE },
  [IN_LAYERS]   = { "layers", 0, TRUE },
  [IN_D_MODEL]  = { "d-model", 0, TRUE },
  [IN_HEADS]    = { "heads", 0, TRUE },
  [IN_D_FF]     = { "d-ff", 0, TRUE },
  [IN_VOCAB]    = { "vocab", 0, TRUE },
  [IN_PRICE]    = { "price", 0, TRUE },
  [IN_DEADLINE] = { "deadline-days", 0, TRUE },
};

static int
input_index (const char *name)
{
  for (guint i = 0; i < N_INPUTS; i++)
    if (g_strcmp0 (inputs[i].name, name) == 0)
      return i;
  return -1;
}

/* Numeric outputs. */
enum {
  V_TOTAL_FLOPS, V_PEAK, V_FLOPS_PER_DAY, V_DAYS, V_GPU_HOURS, V_COST, V_HBM,
  V_BYTES_PER_PARAM, V_PARAM_BYTES, V_GRAD_BYTES, V_OPT_BYTES,
  V_MEM_PARAMS, V_MEM_GRADS, V_MEM_OPT, V_MEM_ACT, V_MEM_TOTAL,
  V_MEM_PARAMS_GPU, V_MEM_GRADS_GPU, V_MEM_OPT_GPU, V_MEM_ACT_GPU, V_MEM_PER_GPU,
  V_ACT_LINEAR, V_ACT_TRANSFORMER, V_ACT_TRANSFORMER_CKPT,
  V_LARGEST, V_GPUS_DEADLINE, V_SIZED_PARAMS, V_SIZED_EMBED, V_SIZED_FWD,
  V_FITS_FORMULA, /* a formula slot only: "fits" is a boolean property */
  N_VALUES = V_FITS_FORMULA,
  N_FORMULAS
};

static const char *value_names[N_FORMULAS] = {
  [V_TOTAL_FLOPS] = "total-flops",
  [V_PEAK] = "peak-flops-per-gpu",
  [V_FLOPS_PER_DAY] = "flops-per-day",
  [V_DAYS] = "days",
  [V_GPU_HOURS] = "gpu-hours",
  [V_COST] = "cost",
  [V_HBM] = "hbm-per-gpu",
  [V_BYTES_PER_PARAM] = "bytes-per-param",
  [V_PARAM_BYTES] = "param-bytes",
  [V_GRAD_BYTES] = "grad-bytes",
  [V_OPT_BYTES] = "optimizer-bytes",
  [V_MEM_PARAMS] = "memory-params",
  [V_MEM_GRADS] = "memory-grads",
  [V_MEM_OPT] = "memory-optimizer",
  [V_MEM_ACT] = "memory-activations",
  [V_MEM_TOTAL] = "memory-total",
  [V_MEM_PARAMS_GPU] = "memory-params-per-gpu",
  [V_MEM_GRADS_GPU] = "memory-grads-per-gpu",
  [V_MEM_OPT_GPU] = "memory-optimizer-per-gpu",
  [V_MEM_ACT_GPU] = "memory-activations-per-gpu",
  [V_MEM_PER_GPU] = "memory-per-gpu",
  [V_ACT_LINEAR] = "activations-linear",
  [V_ACT_TRANSFORMER] = "activations-transformer",
  [V_ACT_TRANSFORMER_CKPT] = "activations-transformer-checkpointed",
  [V_LARGEST] = "largest-params",
  [V_GPUS_DEADLINE] = "gpus-for-deadline",
  [V_SIZED_PARAMS] = "sized-params",
  [V_SIZED_EMBED] = "sized-embedding-params",
  [V_SIZED_FWD] = "sized-forward-flops-per-token",
  [V_FITS_FORMULA] = "fits",
};

/* The numeric inputs plus every other input an error can be about. */
#define MAX_INPUT_ERRORS (N_INPUTS + 8)

typedef struct {
  const char *input;    /* a static property name */
  char       *message;
} InputError;

/* Everything a recompute produces; compared field by field to notify only what
 * changed. */
typedef struct {
  double     values[N_VALUES];
  char      *formulas[N_FORMULAS];
  gboolean   valid;
  gboolean   fits;
  char      *error;
  char      *error_input;
  GQuark     error_domain;
  int        error_code;
  char      *gpu_name;
  char      *bytes_text;
  /* Every bad input's own sentence (the first per input), so a form can mark
   * each row, not only the first one. */
  InputError input_errors[MAX_INPUT_ERRORS];
  guint      n_input_errors;
} Outputs;

struct _NkPlan
{
  GObject            parent_instance;

  double             in[N_INPUTS];
  /* Why an input has no value (text that is not a number), or NULL. */
  char              *invalid[N_INPUTS];
  char              *gpu;
  NkPeakDtype        dtype;
  gboolean           sparse;
  NkOptimizer        optimizer;
  NkPrecision        precision;
  int                zero_stage;
  NkActivationModel  activation_model;
  gboolean           checkpointing;

  Outputs            out;
  guint              revision;
};

G_DEFINE_FINAL_TYPE (NkPlan, nk_plan, G_TYPE_OBJECT)

enum {
  PROP_0,
  /* inputs */
  PROP_IN_FIRST,
  PROP_IN_LAST = PROP_IN_FIRST + N_INPUTS - 1,
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
  PROP_VALUE_LAST = PROP_VALUE_FIRST + N_VALUES - 1,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---------------------------------------------------------------- formatting */

/* Numbers inside formulas: plain for small whole numbers (1024, 86400), otherwise
 * the lecture's short scientific notation with up to four significant digits
 * (7.0e10, 9.895e14, 6.3e24). */
static void
append_num (GString *s,
            double   v)
{
  char buf[64];
  char *e, *end;
  int exponent;

  if (!isfinite (v))
    {
      g_string_append (s, "—");
      return;
    }
  if (v == floor (v) && fabs (v) < 1e6)
    {
      g_string_append_printf (s, "%.0f", v);
      return;
    }
  if (fabs (v) >= 1e3 && fabs (v) < 1e6)
    {
      g_string_append_printf (s, "%.0f", v);
      return;
    }
  if (fabs (v) >= 1e-3 && fabs (v) < 1e3)
    {
      g_snprintf (buf, sizeof buf, "%.4g", v);
      g_string_append (s, buf);
      return;
    }
  g_snprintf (buf, sizeof buf, "%.3e", v);
  e = strchr (buf, 'e');
  exponent = atoi (e + 1);
  *e = '\0';
  /* Trim trailing zeros but keep one decimal: 7.000 -> 7.0, 9.895 stays. */
  end = e - 1;
  while (end > buf + 2 && *end == '0' && end[-1] != '.')
    *end-- = '\0';
  g_string_append_printf (s, "%se%d", buf, exponent);
}

static char *
num (double v)
{
  GString *s = g_string_new (NULL);

  append_num (s, v);
  return g_string_free (s, FALSE);
}

/* A tiny printf where %N is a number for append_num() and %s a string; keeps the
 * formula templates readable and translatable. */
static char *
formula (const char *format,
         ...)
{
  GString *s = g_string_new (NULL);
  va_list args;

  va_start (args, format);
  for (const char *p = format; *p; p++)
    {
      if (p[0] == '%' && p[1] == 'N')
        {
          append_num (s, va_arg (args, double));
          p++;
        }
      else if (p[0] == '%' && p[1] == 's')
        {
          g_string_append (s, va_arg (args, const char *));
          p++;
        }
      else
        g_string_append_c (s, *p);
    }
  va_end (args);
  return g_string_free (s, FALSE);
}

/* ---------------------------------------------------------------- computing */

typedef struct {
  NkPlan  *self;
  Outputs *o;
} Calc;

static void G_GNUC_PRINTF (5, 6)
fail (Calc       *c,
      const char *input,
      GQuark      domain,
      int         code,
      const char *format,
      ...)
{
  Outputs *o = c->o;
  va_list args;
  char *message;
  gboolean known = FALSE;

  o->valid = FALSE;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  for (guint i = 0; i < o->n_input_errors && !known; i++)
    known = g_str_equal (o->input_errors[i].input, input);
  if (!known && o->n_input_errors < MAX_INPUT_ERRORS)
    {
      o->input_errors[o->n_input_errors].input = input;
      o->input_errors[o->n_input_errors].message = g_strdup (message);
      o->n_input_errors++;
    }

  if (o->error != NULL)
    {
      g_free (message);
      return;
    }
  o->error = message;
  o->error_input = g_strdup (input);
  o->error_domain = domain;
  o->error_code = code;
}

/* An input is good when finite and within its range; @whole asks for an integer. */
static gboolean
check_input (Calc       *c,
             int         which,
             double      minimum,
             gboolean    allow_equal,
             gboolean    whole,
             const char *sentence)
{
  double v = c->self->in[which];

  if (c->self->invalid[which] != NULL)
    {
      fail (c, inputs[which].name, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
            "%s", c->self->invalid[which]);
      return FALSE;
    }
  if (isfinite (v) && (allow_equal ? v >= minimum : v > minimum)
      && (!whole || v == floor (v)))
    return TRUE;
  fail (c, inputs[which].name, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
        "%s", sentence);
  return FALSE;
}

/* A result too large for a double is refused rather than shown as inf. */
static double
checked (Calc       *c,
         double      value,
         const char *input,
         const char *what)
{
  if (isfinite (value) || isnan (value))
    return value;
  fail (c, input, NK_PLAN_ERROR, NK_PLAN_ERROR_OVERFLOW,
        _("The %s is too large for a double-precision number"), what);
  return NAN;
}

static double
shard (double bytes,
       int    stage,
       int    from_stage,
       double gpus)
{
  return stage >= from_stage ? bytes / gpus : bytes;
}

/* The forward model behind every inverse question, so the inverse answers are
 * exactly consistent with what the plan says for them. */
static double
bytes_per_param_per_gpu (const double *v,
                         int           stage,
                         double        gpus)
{
  return shard (v[V_PARAM_BYTES], stage, 3, gpus)
         + shard (v[V_GRAD_BYTES], stage, 2, gpus)
         + shard (v[V_OPT_BYTES], stage, 1, gpus);
}

static double
days_with_gpus (double total,
                double peak,
                double mfu,
                double gpus)
{
  return total / (peak * mfu * gpus * SECONDS_PER_DAY);
}

static double
largest_params (const double *v,
                int           stage,
                double        gpus,
                double        hbm,
                double        act_per_gpu)
{
  double per = bytes_per_param_per_gpu (v, stage, gpus);
  double n;

  if (!isfinite (per) || !isfinite (hbm) || !isfinite (act_per_gpu) || per <= 0)
    return NAN;
  n = floor ((hbm - act_per_gpu) / per);
  if (n <= 0)
    return 0;
  /* Division and floor can land one off either way; settle on the forward test. */
  while (n > 0 && n * per + act_per_gpu > hbm)
    n -= 1;
  while ((n + 1) * per + act_per_gpu <= hbm)
    n += 1;
  return n;
}

static const char *
zero_text (int stage)
{
  switch (stage)
    {
    case 0: return _("ZeRO-0: everything replicated on every GPU");
    case 1: return _("ZeRO-1: optimizer state sharded over the GPUs");
    case 2: return _("ZeRO-2: optimizer state and gradients sharded over the GPUs");
    default: return _("ZeRO-3: parameters, gradients and optimizer state sharded over the GPUs");
    }
}

static void
compute (NkPlan  *self,
         Outputs *o)
{
  Calc c = { self, o };
  double *v = o->values;
  const double *in = self->in;
  const NkGpu *gpu;
  gboolean params_ok, tokens_ok, gpus_ok, mfu_ok, peak_ok = FALSE, price_ok, deadline_ok;
  gboolean act_inputs_ok, act_given, seq_ok, layers_ok, d_model_ok, d_ff_ok, vocab_ok;
  double gpus = in[IN_GPUS];
  double act_bytes_per_value;
  int z = self->zero_stage;

  for (guint i = 0; i < N_VALUES; i++)
    v[i] = NAN;
  o->valid = TRUE;

  /* Validate in the order of the form, so the first sentence names the first row
   * a person would fix. */
  params_ok = check_input (&c, IN_PARAMS, 0, FALSE, FALSE,
                           _("Parameters must be a positive number"));
  tokens_ok = check_input (&c, IN_TOKENS, 0, FALSE, FALSE,
                           _("Tokens must be a positive number"));

  gpu = nk_gpus_lookup (self->gpu);
  if (gpu == NULL)
    {
      g_autoptr(GError) error = NULL;

      nk_gpus_check_id (self->gpu, &error);
      fail (&c, "gpu", NK_PLAN_ERROR, NK_PLAN_ERROR_UNKNOWN_GPU, "%s", error->message);
      o->gpu_name = g_strdup (self->gpu ? self->gpu : "");
    }
  else
    o->gpu_name = g_strdup (gpu->name);

  gpus_ok = check_input (&c, IN_GPUS, 1, TRUE, TRUE,
                         _("GPUs must be a whole number, at least 1"));
  mfu_ok = check_input (&c, IN_MFU, 0, FALSE, FALSE,
                        _("MFU must be greater than 0 and at most 1"));
  if (mfu_ok && in[IN_MFU] > 1)
    {
      mfu_ok = FALSE;
      fail (&c, "mfu", NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
            "%s", _("MFU must be greater than 0 and at most 1"));
    }

  if (!nk_plan_dtype_is_supported (self->dtype))
    fail (&c, "dtype", NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
          _("The dtype must be fp32, tf32, bf16, fp16 or fp8, not %s"),
          nk_peak_dtype_to_string (self->dtype));
  else if (gpu != NULL)
    {
      double peak = nk_gpu_get_peak (gpu, self->dtype, self->sparse);

      if (isfinite (peak))
        {
          peak_ok = TRUE;
          v[V_PEAK] = peak;
          if (self->sparse)
            o->formulas[V_PEAK] =
              formula (_("%s 2:4-sparse %s peak = %N FLOP/s (dense: %N FLOP/s; the sparse figure "
                         "holds only for matrices with 2 of every 4 weights zero)"),
                       gpu->name, nk_peak_dtype_to_string (self->dtype), peak,
                       gpu->peak[self->dtype]);
          else if (isfinite (gpu->peak_sparse[self->dtype]))
            o->formulas[V_PEAK] =
              formula (_("%s dense %s peak = %N FLOP/s (the datasheet's %N FLOP/s is with 2:4 sparsity)"),
                       gpu->name, nk_peak_dtype_to_string (self->dtype), peak,
                       gpu->peak_sparse[self->dtype]);
          else
            o->formulas[V_PEAK] = formula (_("%s dense %s peak = %N FLOP/s"),
                                           gpu->name, nk_peak_dtype_to_string (self->dtype),
                                           peak);
        }
      else
        fail (&c, self->sparse ? "sparse" : "dtype", NK_PLAN_ERROR, NK_PLAN_ERROR_NO_PEAK,
              self->sparse
              ? _("The GPU table lists no 2:4-sparse peak for %s in %s; turn sparsity off or choose another dtype")
              : _("The GPU table lists no dense peak for %s in %s; choose another dtype or GPU"),
              gpu->name, nk_peak_dtype_to_string (self->dtype));
    }

  if (self->zero_stage < 0 || self->zero_stage > 3)
    fail (&c, "zero-stage", NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
          "%s", _("The ZeRO stage must be 0, 1, 2 or 3"));

  act_inputs_ok = check_input (&c, IN_BATCH, 0, TRUE, TRUE,
                               _("Batch must be a whole number of sequences (0 when not given)"));
  seq_ok = check_input (&c, IN_SEQ, 0, TRUE, TRUE,
                        _("Sequence length must be a whole number (0 when not given)"));
  layers_ok = check_input (&c, IN_LAYERS, 0, TRUE, TRUE,
                           _("Layers must be a whole number (0 when not given)"));
  d_model_ok = check_input (&c, IN_D_MODEL, 0, TRUE, TRUE,
                            _("d_model must be a whole number (0 when not given)"));
  act_inputs_ok &= seq_ok && layers_ok && d_model_ok;
  act_inputs_ok &= check_input (&c, IN_HEADS, 0, TRUE, TRUE,
                                _("Heads must be a whole number (0 when not given)"));
  d_ff_ok = check_input (&c, IN_D_FF, 0, TRUE, TRUE,
                         _("d_ff must be a whole number (0 for 4 × d_model)"));
  vocab_ok = check_input (&c, IN_VOCAB, 0, TRUE, TRUE,
                          _("Vocabulary size must be a whole number (0 when not given)"));
  price_ok = check_input (&c, IN_PRICE, 0, TRUE, FALSE,
                          _("Price must be zero or a positive number of dollars per GPU-hour"));
  deadline_ok = check_input (&c, IN_DEADLINE, 0, TRUE, FALSE,
                             _("The deadline must be zero or a positive number of days"));

  /* Compute. */
  if (params_ok && tokens_ok)
    {
      v[V_TOTAL_FLOPS] = checked (&c, 6.0 * in[IN_PARAMS] * in[IN_TOKENS], "params",
                                  _("total FLOPs count (6 × params × tokens)"));
      o->formulas[V_TOTAL_FLOPS] = formula (_("6 × %N params × %N tokens = %N FLOPs"),
                                            in[IN_PARAMS], in[IN_TOKENS], v[V_TOTAL_FLOPS]);
    }
  if (peak_ok && mfu_ok && gpus_ok)
    {
      v[V_FLOPS_PER_DAY] = checked (&c, v[V_PEAK] * in[IN_MFU] * gpus * SECONDS_PER_DAY,
                                    "gpus", _("FLOPs per day"));
      o->formulas[V_FLOPS_PER_DAY] =
        formula (_("%N FLOP/s × %N MFU × %N GPUs × 86400 s/day = %N FLOPs/day"),
                 v[V_PEAK], in[IN_MFU], gpus, v[V_FLOPS_PER_DAY]);
    }
  if (isfinite (v[V_TOTAL_FLOPS]) && isfinite (v[V_FLOPS_PER_DAY]))
    {
      char days_text[32];

      v[V_DAYS] = checked (&c, days_with_gpus (v[V_TOTAL_FLOPS], v[V_PEAK], in[IN_MFU], gpus),
                           "tokens", _("number of days"));
      g_snprintf (days_text, sizeof days_text, "%.1f", v[V_DAYS]);
      o->formulas[V_DAYS] = formula (_("%N FLOPs / %N FLOPs/day = %s days"),
                                     v[V_TOTAL_FLOPS], v[V_FLOPS_PER_DAY],
                                     isfinite (v[V_DAYS]) ? days_text : "—");
      v[V_GPU_HOURS] = checked (&c, v[V_DAYS] * 24.0 * gpus, "gpus", _("number of GPU-hours"));
      o->formulas[V_GPU_HOURS] = formula (_("%s days × 24 h × %N GPUs = %N GPU-hours"),
                                          days_text, gpus, v[V_GPU_HOURS]);
      if (price_ok)
        {
          v[V_COST] = checked (&c, v[V_GPU_HOURS] * in[IN_PRICE], "price", _("cost"));
          o->formulas[V_COST] = formula (_("%N GPU-hours × $%N per GPU-hour = $%N"),
                                         v[V_GPU_HOURS], in[IN_PRICE], v[V_COST]);
        }
    }
  if (isfinite (v[V_TOTAL_FLOPS]) && peak_ok && mfu_ok && deadline_ok && in[IN_DEADLINE] > 0)
    {
      double n = ceil (v[V_TOTAL_FLOPS]
                       / (v[V_PEAK] * in[IN_MFU] * SECONDS_PER_DAY * in[IN_DEADLINE]));

      if (!isfinite (n) || n > 1e15)
        fail (&c, "deadline-days", NK_PLAN_ERROR, NK_PLAN_ERROR_OVERFLOW,
              "%s", _("The deadline is too short for any plausible number of GPUs"));
      else
        {
          n = MAX (n, 1);
          while (n > 1 && days_with_gpus (v[V_TOTAL_FLOPS], v[V_PEAK], in[IN_MFU], n - 1)
                          <= in[IN_DEADLINE])
            n -= 1;
          while (days_with_gpus (v[V_TOTAL_FLOPS], v[V_PEAK], in[IN_MFU], n) > in[IN_DEADLINE])
            n += 1;
          v[V_GPUS_DEADLINE] = n;
          o->formulas[V_GPUS_DEADLINE] =
            formula (_("⌈%N FLOPs / (%N FLOP/s × %N MFU × 86400 s/day × %N days)⌉ = %N GPUs"),
                     v[V_TOTAL_FLOPS], v[V_PEAK], in[IN_MFU], in[IN_DEADLINE], n);
        }
    }

  /* Memory per parameter. */
  {
    double state = nk_optimizer_state_bytes (self->optimizer);
    const char *opt = nk_optimizer_to_string (self->optimizer);

    if (nk_precision_is_mixed (self->precision))
      {
        v[V_PARAM_BYTES] = 2;
        v[V_GRAD_BYTES] = 2;
        v[V_OPT_BYTES] = 4 + state;
        v[V_BYTES_PER_PARAM] = 8 + state;
        o->bytes_text = formula ("2 + 2 + 4 + %N = %N", state, v[V_BYTES_PER_PARAM]);
        o->formulas[V_BYTES_PER_PARAM] =
          formula (_("2 (bf16 params) + 2 (bf16 grads) + 4 (fp32 master params) + %N (%s state, fp32) "
                     "= %N bytes per parameter"), state, opt, v[V_BYTES_PER_PARAM]);
      }
    else
      {
        v[V_PARAM_BYTES] = 4;
        v[V_GRAD_BYTES] = 4;
        v[V_OPT_BYTES] = state;
        v[V_BYTES_PER_PARAM] = 8 + state;
        o->bytes_text = formula ("4 + 4 + %N = %N", state, v[V_BYTES_PER_PARAM]);
        o->formulas[V_BYTES_PER_PARAM] =
          formula (_("4 (fp32 params) + 4 (fp32 grads) + %N (%s state, fp32) = %N bytes per parameter"),
                   state, opt, v[V_BYTES_PER_PARAM]);
      }
    o->formulas[V_PARAM_BYTES] = formula ("%N", v[V_PARAM_BYTES]);
    o->formulas[V_GRAD_BYTES] = formula ("%N", v[V_GRAD_BYTES]);
    o->formulas[V_OPT_BYTES] = formula ("%N", v[V_OPT_BYTES]);
  }

  /* Activations. */
  act_bytes_per_value = nk_precision_is_mixed (self->precision) ? 2 : 4;
  act_given = act_inputs_ok && in[IN_BATCH] > 0 && in[IN_SEQ] > 0 && in[IN_LAYERS] > 0
              && in[IN_D_MODEL] > 0;
  if (act_given)
    {
      double b = in[IN_BATCH], s = in[IN_SEQ], L = in[IN_LAYERS], h = in[IN_D_MODEL];
      double values = b * s * h * L;

      v[V_ACT_LINEAR] = checked (&c, values * act_bytes_per_value, "batch", _("activation memory"));
      o->formulas[V_ACT_LINEAR] =
        formula (_("batch %N × seq %N × d_model %N × layers %N = %N values × %N B = %N B "
                   "(the lecture's deep linear model)"),
                 b, s, h, L, values, act_bytes_per_value, v[V_ACT_LINEAR]);
      if (in[IN_HEADS] > 0)
        {
          double a = in[IN_HEADS];
          double per_layer = s * b * h * (34.0 + 5.0 * a * s / h);

          v[V_ACT_TRANSFORMER] = checked (&c, L * per_layer, "batch", _("activation memory"));
          o->formulas[V_ACT_TRANSFORMER] =
            formula (_("layers %N × s %N × b %N × h %N × (34 + 5 × a %N × s %N / h %N) B = %N B "
                       "(Korthikanti et al. 2022, eq. 1, 16-bit activations)"),
                     L, s, b, h, a, s, h, v[V_ACT_TRANSFORMER]);
          v[V_ACT_TRANSFORMER_CKPT] = checked (&c, 2.0 * s * b * h * L + per_layer, "batch",
                                               _("activation memory"));
          o->formulas[V_ACT_TRANSFORMER_CKPT] =
            formula (_("2 × s %N × b %N × h %N × layers %N B (checkpointed layer inputs) + %N B "
                       "(one layer recomputed) = %N B (Korthikanti et al. 2022, full recomputation)"),
                     s, b, h, L, per_layer, v[V_ACT_TRANSFORMER_CKPT]);
        }
    }
  if (!act_inputs_ok)
    v[V_MEM_ACT] = NAN;
  else if (!act_given)
    {
      v[V_MEM_ACT] = 0;
      o->formulas[V_MEM_ACT] = g_strdup (_("0 B (give batch, seq, layers and d_model to count activations)"));
    }
  else if (self->activation_model == NK_ACTIVATION_MODEL_LINEAR)
    {
      v[V_MEM_ACT] = v[V_ACT_LINEAR];
      o->formulas[V_MEM_ACT] = g_strdup (o->formulas[V_ACT_LINEAR]);
    }
  else if (in[IN_HEADS] <= 0)
    fail (&c, "heads", NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
          "%s", _("The transformer activation estimate needs the number of attention heads"));
  else
    {
      int which = self->checkpointing ? V_ACT_TRANSFORMER_CKPT : V_ACT_TRANSFORMER;

      v[V_MEM_ACT] = v[which];
      o->formulas[V_MEM_ACT] = g_strdup (o->formulas[which]);
    }

  /* Memory per bucket, one full copy, then per GPU. */
  if (params_ok)
    {
      double n = in[IN_PARAMS];

      v[V_MEM_PARAMS] = checked (&c, n * v[V_PARAM_BYTES], "params", _("parameter memory"));
      v[V_MEM_GRADS] = checked (&c, n * v[V_GRAD_BYTES], "params", _("gradient memory"));
      v[V_MEM_OPT] = checked (&c, n * v[V_OPT_BYTES], "params", _("optimizer memory"));
      v[V_MEM_TOTAL] = checked (&c, v[V_MEM_PARAMS] + v[V_MEM_GRADS] + v[V_MEM_OPT] + v[V_MEM_ACT],
                                "params", _("memory total"));
      o->formulas[V_MEM_PARAMS] = formula (_("%N params × %N B = %N B"), n, v[V_PARAM_BYTES], v[V_MEM_PARAMS]);
      o->formulas[V_MEM_GRADS] = formula (_("%N params × %N B = %N B"), n, v[V_GRAD_BYTES], v[V_MEM_GRADS]);
      o->formulas[V_MEM_OPT] = formula (_("%N params × %N B = %N B"), n, v[V_OPT_BYTES], v[V_MEM_OPT]);
      o->formulas[V_MEM_TOTAL] = formula (_("%N params × (%s) B + %N B activations = %N B"),
                                          n, o->bytes_text, v[V_MEM_ACT], v[V_MEM_TOTAL]);
    }
  /* The GPU's memory depends on the GPU alone, so it is known even while the
   * GPU count is not. */
  if (gpu != NULL && isfinite (gpu->memory))
    {
      v[V_HBM] = gpu->memory;
      o->formulas[V_HBM] = formula (_("%s: %N B (as the datasheet gives it: GB = 1e9 B)"),
                                    gpu->name, gpu->memory);
    }
  else if (gpu != NULL)
    fail (&c, "gpu", NK_PLAN_ERROR, NK_PLAN_ERROR_NO_PEAK,
          _("The table gives no memory size for %s"), gpu->name);

  if (gpus_ok && z >= 0 && z <= 3)
    {
      double per = bytes_per_param_per_gpu (v, z, gpus);

      if (isfinite (v[V_MEM_ACT]))
        {
          v[V_MEM_ACT_GPU] = v[V_MEM_ACT] / gpus;
          o->formulas[V_MEM_ACT_GPU] = formula (_("%N B / %N GPUs (data parallel) = %N B"),
                                                v[V_MEM_ACT], gpus, v[V_MEM_ACT_GPU]);
        }
      if (params_ok)
        {
          v[V_MEM_PARAMS_GPU] = shard (v[V_MEM_PARAMS], z, 3, gpus);
          v[V_MEM_GRADS_GPU] = shard (v[V_MEM_GRADS], z, 2, gpus);
          v[V_MEM_OPT_GPU] = shard (v[V_MEM_OPT], z, 1, gpus);
          v[V_MEM_PER_GPU] = v[V_MEM_PARAMS_GPU] + v[V_MEM_GRADS_GPU] + v[V_MEM_OPT_GPU]
                             + v[V_MEM_ACT_GPU];
          o->formulas[V_MEM_PARAMS_GPU] = formula (z >= 3 ? _("%N B / %N GPUs = %N B") : _("%N B (replicated; %N GPUs) = %N B"),
                                                   v[V_MEM_PARAMS], gpus, v[V_MEM_PARAMS_GPU]);
          o->formulas[V_MEM_GRADS_GPU] = formula (z >= 2 ? _("%N B / %N GPUs = %N B") : _("%N B (replicated; %N GPUs) = %N B"),
                                                  v[V_MEM_GRADS], gpus, v[V_MEM_GRADS_GPU]);
          o->formulas[V_MEM_OPT_GPU] = formula (z >= 1 ? _("%N B / %N GPUs = %N B") : _("%N B (replicated; %N GPUs) = %N B"),
                                                v[V_MEM_OPT], gpus, v[V_MEM_OPT_GPU]);
          o->formulas[V_MEM_PER_GPU] =
            formula (_("%s: %N params × %N B per parameter per GPU + %N B activations = %N B per GPU"),
                     zero_text (z), in[IN_PARAMS], per, v[V_MEM_ACT_GPU], v[V_MEM_PER_GPU]);
        }
      if (isfinite (v[V_HBM]))
        {
          v[V_LARGEST] = largest_params (v, z, gpus, v[V_HBM], v[V_MEM_ACT_GPU]);
          if (isfinite (v[V_LARGEST]))
            o->formulas[V_LARGEST] =
              formula (_("(%N GPUs × %N B HBM − %N B activations) / (%N GPUs × %N B per parameter per GPU) "
                         "= %N params (%s; %s B per parameter)"),
                       gpus, v[V_HBM], v[V_MEM_ACT], gpus, per, v[V_LARGEST], zero_text (z),
                       o->bytes_text);
        }
    }
  o->fits = isfinite (v[V_MEM_PER_GPU]) && isfinite (v[V_HBM]) && v[V_MEM_PER_GPU] <= v[V_HBM];
  if (isfinite (v[V_MEM_PER_GPU]) && isfinite (v[V_HBM]))
    o->formulas[V_FITS_FORMULA] =
      formula (o->fits ? _("%N B per GPU ≤ %N B HBM: fits") : _("%N B per GPU > %N B HBM: does not fit"),
               v[V_MEM_PER_GPU], v[V_HBM]);

  /* Transformer sizing (seed 002, the OpenAI table): needs only the shape, so a
   * bad batch does not hide it, but a bad d_ff does (4 · d_model would be a
   * silent guess). */
  if (d_model_ok && layers_ok && d_ff_ok && in[IN_D_MODEL] > 0 && in[IN_LAYERS] > 0)
    {
      double d = in[IN_D_MODEL], L = in[IN_LAYERS];
      double d_attn = d;
      double d_ff = in[IN_D_FF] > 0 ? in[IN_D_FF] : 4 * d;

      v[V_SIZED_PARAMS] = checked (&c, 2.0 * d * L * (2.0 * d_attn + d_ff), "d-model",
                                   _("parameter count"));
      o->formulas[V_SIZED_PARAMS] =
        formula (_("2 × d_model %N × n_layer %N × (2 × d_attn %N + d_ff %N) = %N params (embeddings excluded)"),
                 d, L, d_attn, d_ff, v[V_SIZED_PARAMS]);
      if (seq_ok && in[IN_SEQ] > 0)
        {
          double n_ctx = in[IN_SEQ];

          v[V_SIZED_FWD] = checked (&c, 2.0 * v[V_SIZED_PARAMS] + 2.0 * L * n_ctx * d_attn,
                                    "seq", _("forward FLOPs per token"));
          o->formulas[V_SIZED_FWD] =
            formula (_("2 × %N + 2 × n_layer %N × n_ctx %N × d_attn %N = %N FLOPs per token"),
                     v[V_SIZED_PARAMS], L, n_ctx, d_attn, v[V_SIZED_FWD]);
          if (vocab_ok && in[IN_VOCAB] > 0)
            {
              v[V_SIZED_EMBED] = (in[IN_VOCAB] + n_ctx) * d;
              o->formulas[V_SIZED_EMBED] =
                formula (_("(n_vocab %N + n_ctx %N) × d_model %N = %N params"),
                         in[IN_VOCAB], n_ctx, d, v[V_SIZED_EMBED]);
            }
        }
    }
}

static void
outputs_clear (Outputs *o)
{
  for (guint i = 0; i < N_FORMULAS; i++)
    g_clear_pointer (&o->formulas[i], g_free);
  g_clear_pointer (&o->error, g_free);
  g_clear_pointer (&o->error_input, g_free);
  g_clear_pointer (&o->gpu_name, g_free);
  g_clear_pointer (&o->bytes_text, g_free);
  for (guint i = 0; i < o->n_input_errors; i++)
    g_clear_pointer (&o->input_errors[i].message, g_free);
  o->n_input_errors = 0;
}

static gboolean
same_input_errors (const Outputs *a,
                   const Outputs *b)
{
  if (a->n_input_errors != b->n_input_errors)
    return FALSE;
  for (guint i = 0; i < a->n_input_errors; i++)
    if (!g_str_equal (a->input_errors[i].input, b->input_errors[i].input)
        || !g_str_equal (a->input_errors[i].message, b->input_errors[i].message))
      return FALSE;
  return TRUE;
}

static gboolean
same_double (double a,
             double b)
{
  return a == b || (isnan (a) && isnan (b));
}

/* Recomputes every output and notifies each changed property once. The caller
 * has frozen notifications, so handlers see the whole new state. */
static void
recompute (NkPlan *self)
{
  Outputs fresh = { 0 };
  Outputs *old = &self->out;
  gboolean any = FALSE;

  compute (self, &fresh);

  for (guint i = 0; i < N_VALUES; i++)
    if (!same_double (old->values[i], fresh.values[i]))
      {
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE_FIRST + i]);
        any = TRUE;
      }
#define NOTIFY_IF(cond, prop) \
  if (cond) { g_object_notify_by_pspec (G_OBJECT (self), properties[prop]); any = TRUE; }
  NOTIFY_IF (old->valid != fresh.valid, PROP_VALID);
  NOTIFY_IF (old->fits != fresh.fits, PROP_FITS);
  NOTIFY_IF (g_strcmp0 (old->error, fresh.error) != 0, PROP_ERROR);
  NOTIFY_IF (g_strcmp0 (old->error_input, fresh.error_input) != 0, PROP_ERROR_INPUT);
  NOTIFY_IF (g_strcmp0 (old->gpu_name, fresh.gpu_name) != 0, PROP_GPU_NAME);
  NOTIFY_IF (g_strcmp0 (old->bytes_text, fresh.bytes_text) != 0, PROP_BYTES_PER_PARAM_TEXT);
#undef NOTIFY_IF
  for (guint i = 0; i < N_FORMULAS && !any; i++)
    if (g_strcmp0 (old->formulas[i], fresh.formulas[i]) != 0)
      any = TRUE;
  if (!same_input_errors (old, &fresh))
    any = TRUE;

  outputs_clear (old);
  *old = fresh;
  if (any)
    {
      self->revision++;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REVISION]);
    }
}

/* ---------------------------------------------------------------- GObject */

static void
nk_plan_finalize (GObject *object)
{
  NkPlan *self = NK_PLAN (object);

  g_clear_pointer (&self->gpu, g_free);
  for (guint i = 0; i < N_INPUTS; i++)
    g_clear_pointer (&self->invalid[i], g_free);
  outputs_clear (&self->out);

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
      g_value_set_double (value, self->in[prop_id - PROP_IN_FIRST]);
      return;
    }
  if (prop_id >= PROP_VALUE_FIRST && prop_id <= PROP_VALUE_LAST)
    {
      g_value_set_double (value, self->out.values[prop_id - PROP_VALUE_FIRST]);
      return;
    }

  switch (prop_id)
    {
    case PROP_GPU: g_value_set_string (value, self->gpu); break;
    case PROP_DTYPE: g_value_set_enum (value, self->dtype); break;
    case PROP_SPARSE: g_value_set_boolean (value, self->sparse); break;
    case PROP_OPTIMIZER: g_value_set_enum (value, self->optimizer); break;
    case PROP_PRECISION: g_value_set_enum (value, self->precision); break;
    case PROP_ZERO_STAGE: g_value_set_int (value, self->zero_stage); break;
    case PROP_ACTIVATION_MODEL: g_value_set_enum (value, self->activation_model); break;
    case PROP_CHECKPOINTING: g_value_set_boolean (value, self->checkpointing); break;
    case PROP_VALID: g_value_set_boolean (value, self->out.valid); break;
    case PROP_ERROR: g_value_set_string (value, self->out.error); break;
    case PROP_ERROR_INPUT: g_value_set_string (value, self->out.error_input); break;
    case PROP_GPU_NAME: g_value_set_string (value, self->out.gpu_name); break;
    case PROP_BYTES_PER_PARAM_TEXT: g_value_set_string (value, self->out.bytes_text); break;
    case PROP_FITS: g_value_set_boolean (value, self->out.fits); break;
    case PROP_REVISION: g_value_set_uint (value, self->revision); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Every input goes through here: notify the input and the outputs together, and
 * nothing at all when the value did not change. */
#define SET_INPUT(self, field, value, prop)                                \
  G_STMT_START {                                                           \
    if ((self)->field != (value))                                          \
      {                                                                    \
        g_object_freeze_notify (G_OBJECT (self));                          \
        (self)->field = (value);                                           \
        g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);      \
        recompute (self);                                                  \
        g_object_thaw_notify (G_OBJECT (self));                            \
      }                                                                    \
  } G_STMT_END

/* @message is why the input has no value (then @value is NAN), or NULL. */
static void
set_input_state (NkPlan     *self,
                 guint       which,
                 double      value,
                 const char *message)
{
  gboolean value_changed = !same_double (self->in[which], value)
                           || signbit (self->in[which]) != signbit (value);

  if (!value_changed && g_strcmp0 (self->invalid[which], message) == 0)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  self->in[which] = value;
  g_free (self->invalid[which]);
  self->invalid[which] = g_strdup (message);
  if (value_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IN_FIRST + which]);
  recompute (self);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
set_input_double (NkPlan *self,
                  guint   which,
                  double  value)
{
  set_input_state (self, which, value, NULL);
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
      set_input_double (self, prop_id - PROP_IN_FIRST, g_value_get_double (value));
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
      SET_INPUT (self, activation_model, (NkActivationModel) g_value_get_enum (value),
                 PROP_ACTIVATION_MODEL);
      break;
    case PROP_CHECKPOINTING:
      SET_INPUT (self, checkpointing, g_value_get_boolean (value), PROP_CHECKPOINTING);
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

  object_class->finalize = nk_plan_finalize;
  object_class->get_property = nk_plan_get_property;
  object_class->set_property = nk_plan_set_property;

  /* Numeric inputs take any double, even NaN or ±inf: refusing bad input is the
   * plan's job (with a sentence), not a GLib warning's. */
  for (guint i = 0; i < N_INPUTS; i++)
    properties[PROP_IN_FIRST + i] =
      g_param_spec_double (inputs[i].name, NULL, NULL, -INFINITY, INFINITY,
                           inputs[i].default_value, rw);

  properties[PROP_GPU] = g_param_spec_string ("gpu", NULL, NULL, "h100-sxm", rw);
  properties[PROP_DTYPE] = g_param_spec_enum ("dtype", NULL, NULL, NK_TYPE_PEAK_DTYPE,
                                              NK_PEAK_BF16, rw);
  properties[PROP_SPARSE] = g_param_spec_boolean ("sparse", NULL, NULL, FALSE, rw);
  properties[PROP_OPTIMIZER] = g_param_spec_enum ("optimizer", NULL, NULL, NK_TYPE_OPTIMIZER,
                                                  NK_OPTIMIZER_ADAMW, rw);
  properties[PROP_PRECISION] = g_param_spec_enum ("precision", NULL, NULL, NK_TYPE_PRECISION,
                                                  NK_PRECISION_FP32, rw);
  properties[PROP_ZERO_STAGE] = g_param_spec_int ("zero-stage", NULL, NULL, 0, 3, 0, rw);
  properties[PROP_ACTIVATION_MODEL] =
    g_param_spec_enum ("activation-model", NULL, NULL, NK_TYPE_ACTIVATION_MODEL,
                       NK_ACTIVATION_MODEL_LINEAR, rw);
  properties[PROP_CHECKPOINTING] = g_param_spec_boolean ("checkpointing", NULL, NULL, FALSE, rw);

  properties[PROP_VALID] = g_param_spec_boolean ("valid", NULL, NULL, TRUE, ro);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, ro);
  properties[PROP_ERROR_INPUT] = g_param_spec_string ("error-input", NULL, NULL, NULL, ro);
  properties[PROP_GPU_NAME] = g_param_spec_string ("gpu-name", NULL, NULL, NULL, ro);
  properties[PROP_BYTES_PER_PARAM_TEXT] =
    g_param_spec_string ("bytes-per-param-text", NULL, NULL, NULL, ro);
  properties[PROP_FITS] = g_param_spec_boolean ("fits", NULL, NULL, FALSE, ro);
  properties[PROP_REVISION] = g_param_spec_uint ("revision", NULL, NULL, 0, G_MAXUINT, 0, ro);
  for (guint i = 0; i < N_VALUES; i++)
    properties[PROP_VALUE_FIRST + i] =
      g_param_spec_double (value_names[i], NULL, NULL, -INFINITY, INFINITY, 0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
nk_plan_init (NkPlan *self)
{
  for (guint i = 0; i < N_INPUTS; i++)
    self->in[i] = inputs[i].default_value;
  self->gpu = g_strdup ("h100-sxm");
  self->dtype = NK_PEAK_BF16;
  self->optimizer = NK_OPTIMIZER_ADAMW;
  self->precision = NK_PRECISION_FP32;
  self->activation_model = NK_ACTIVATION_MODEL_LINEAR;
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

/* ---------------------------------------------------------------- accessors */

#define DOUBLE_INPUT(name, WHICH)                                          \
double                                                                     \
nk_plan_get_##name (NkPlan *self)                                          \
{                                                                          \
  g_return_val_if_fail (NK_IS_PLAN (self), NAN);                           \
  return self->in[WHICH];                                                  \
}                                                                          \
void                                                                       \
nk_plan_set_##name (NkPlan *self,                                          \
                    double  value)                                         \
{                                                                          \
  g_return_if_fail (NK_IS_PLAN (self));                                    \
  set_input_double (self, WHICH, value);                                   \
}

/**
 * nk_plan_get_params: (get-property params)
 * @self: a plan
 * Returns: the parameter count
 */
/**
 * nk_plan_set_params: (set-property params)
 * @self: a plan
 * @value: the parameter count; not positive makes the plan invalid
 */
DOUBLE_INPUT (params, IN_PARAMS)
/**
 * nk_plan_get_tokens: (get-property tokens)
 * @self: a plan
 * Returns: the number of training tokens
 */
/**
 * nk_plan_set_tokens: (set-property tokens)
 * @self: a plan
 * @value: the number of training tokens
 */
DOUBLE_INPUT (tokens, IN_TOKENS)
/**
 * nk_plan_get_gpus: (get-property gpus)
 * @self: a plan
 * Returns: the number of GPUs
 */
/**
 * nk_plan_set_gpus: (set-property gpus)
 * @self: a plan
 * @value: the number of GPUs, a whole number >= 1
 */
DOUBLE_INPUT (gpus, IN_GPUS)
/**
 * nk_plan_get_mfu: (get-property mfu)
 * @self: a plan
 * Returns: the model FLOPs utilization
 */
/**
 * nk_plan_set_mfu: (set-property mfu)
 * @self: a plan
 * @value: the model FLOPs utilization, in (0, 1]
 */
DOUBLE_INPUT (mfu, IN_MFU)
/**
 * nk_plan_get_price: (get-property price)
 * @self: a plan
 * Returns: dollars per GPU-hour
 */
/**
 * nk_plan_set_price: (set-property price)
 * @self: a plan
 * @value: dollars per GPU-hour, >= 0
 */
DOUBLE_INPUT (price, IN_PRICE)
/**
 * nk_plan_get_batch: (get-property batch)
 * @self: a plan
 * Returns: the global batch in sequences, 0 when not given
 */
/**
 * nk_plan_set_batch: (set-property batch)
 * @self: a plan
 * @value: the global batch in sequences, a whole number; 0 when not given
 */
DOUBLE_INPUT (batch, IN_BATCH)
/**
 * nk_plan_get_seq: (get-property seq)
 * @self: a plan
 * Returns: the sequence length (n_ctx for sizing), 0 when not given
 */
/**
 * nk_plan_set_seq: (set-property seq)
 * @self: a plan
 * @value: the sequence length, a whole number; 0 when not given
 */
DOUBLE_INPUT (seq, IN_SEQ)
/**
 * nk_plan_get_layers: (get-property layers)
 * @self: a plan
 * Returns: the number of layers, 0 when not given
 */
/**
 * nk_plan_set_layers: (set-property layers)
 * @self: a plan
 * @value: the number of layers, a whole number; 0 when not given
 */
DOUBLE_INPUT (layers, IN_LAYERS)
/**
 * nk_plan_get_d_model: (get-property d-model)
 * @self: a plan
 * Returns: the hidden size, 0 when not given
 */
/**
 * nk_plan_set_d_model: (set-property d-model)
 * @self: a plan
 * @value: the hidden size, a whole number; 0 when not given
 */
DOUBLE_INPUT (d_model, IN_D_MODEL)
/**
 * nk_plan_get_heads: (get-property heads)
 * @self: a plan
 * Returns: the number of attention heads, 0 when not given
 */
/**
 * nk_plan_set_heads: (set-property heads)
 * @self: a plan
 * @value: the number of attention heads, a whole number; 0 when not given
 */
DOUBLE_INPUT (heads, IN_HEADS)
/**
 * nk_plan_get_d_ff: (get-property d-ff)
 * @self: a plan
 * Returns: the feed-forward width, 0 for 4 · d_model
 */
/**
 * nk_plan_set_d_ff: (set-property d-ff)
 * @self: a plan
 * @value: the feed-forward width, a whole number; 0 for 4 · d_model
 */
DOUBLE_INPUT (d_ff, IN_D_FF)
/**
 * nk_plan_get_vocab: (get-property vocab)
 * @self: a plan
 * Returns: the vocabulary size, 0 when not given
 */
/**
 * nk_plan_set_vocab: (set-property vocab)
 * @self: a plan
 * @value: the vocabulary size, a whole number; 0 when not given
 */
DOUBLE_INPUT (vocab, IN_VOCAB)
/**
 * nk_plan_get_deadline_days: (get-property deadline-days)
 * @self: a plan
 * Returns: the deadline for #NkPlan:gpus-for-deadline, 0 when not asked
 */
/**
 * nk_plan_set_deadline_days: (set-property deadline-days)
 * @self: a plan
 * @value: days, >= 0; 0 when not asked
 */
DOUBLE_INPUT (deadline_days, IN_DEADLINE)

/**
 * nk_plan_set_input_text:
 * @self: a plan
 * @name: a numeric input property: params, tokens, gpus, mfu, batch, seq, layers,
 *   d-model, heads, d-ff, vocab, price or deadline-days
 * @text: what the person typed ("70B", "15T", "7e10", "abc", "")
 *
 * Sets @name from text as a form holds it, parsed with nk_units_parse(). Empty
 * text is 0 ("not given") for the optional inputs (all but params, tokens, gpus
 * and mfu). Text that is not a number leaves the input without a value: it reads
 * NAN, the outputs that need it are NAN, and nk_plan_get_input_error() gives the
 * parser's sentence. This is how a page says "invalid" without a sentinel value
 * (GObject refuses NAN through g_object_set()).
 *
 * Returns: %TRUE when @text is a number (the plan may still refuse its value,
 *   e.g. 0 GPUs; see nk_plan_get_input_error())
 */
gboolean
nk_plan_set_input_text (NkPlan     *self,
                        const char *name,
                        const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *stripped = NULL;
  double value = 0;
  int which;

  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  which = input_index (name);
  g_return_val_if_fail (which >= 0, FALSE);

  stripped = g_strstrip (g_strdup (text ? text : ""));
  if (inputs[which].optional && stripped[0] == '\0')
    value = 0;
  else if (!nk_units_parse (stripped, &value, &error))
    {
      set_input_state (self, which, NAN, error->message);
      return FALSE;
    }
  set_input_state (self, which, value, NULL);
  return TRUE;
}

/**
 * nk_plan_invalidate_input:
 * @self: a plan
 * @name: a numeric input property, as for nk_plan_set_input_text()
 * @message: one sentence saying what is wrong with the input
 *
 * Leaves @name without a value, for callers that parse text their own way: the
 * input reads NAN, the plan is invalid with @message as the input's error, and
 * the outputs that need it are NAN. Setting a value clears it.
 */
void
nk_plan_invalidate_input (NkPlan     *self,
                          const char *name,
                          const char *message)
{
  int which;

  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (message != NULL);
  which = input_index (name);
  g_return_if_fail (which >= 0);

  set_input_state (self, which, NAN, message);
}

/**
 * nk_plan_get_input_error:
 * @self: a plan
 * @name: an input property name ("params", "gpu", "dtype", "zero-stage", ...)
 *
 * Unlike #NkPlan:error, which names only the first bad input, every bad input
 * has its own sentence here, so a form can mark each row.
 *
 * Returns: (nullable): why @name is not acceptable, or %NULL when it is
 */
const char *
nk_plan_get_input_error (NkPlan     *self,
                         const char *name)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < self->out.n_input_errors; i++)
    if (g_str_equal (self->out.input_errors[i].input, name))
      return self->out.input_errors[i].message;
  return NULL;
}

/**
 * nk_plan_get_activation_model: (get-property activation-model)
 * @self: a plan
 * Returns: how activations are estimated
 */
NkActivationModel
nk_plan_get_activation_model (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_ACTIVATION_MODEL_LINEAR);
  return self->activation_model;
}

/**
 * nk_plan_set_activation_model: (set-property activation-model)
 * @self: a plan
 * @model: the lecture's deep linear model or the transformer estimate
 */
void
nk_plan_set_activation_model (NkPlan            *self,
                              NkActivationModel  model)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (model <= NK_ACTIVATION_MODEL_TRANSFORMER);
  SET_INPUT (self, activation_model, model, PROP_ACTIVATION_MODEL);
}

/**
 * nk_plan_get_checkpointing: (get-property checkpointing)
 * @self: a plan
 * Returns: whether the transformer estimate assumes full activation checkpointing
 */
gboolean
nk_plan_get_checkpointing (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->checkpointing;
}

/**
 * nk_plan_set_checkpointing: (set-property checkpointing)
 * @self: a plan
 * @checkpointing: assume full activation checkpointing (transformer estimate)
 */
void
nk_plan_set_checkpointing (NkPlan   *self,
                           gboolean  checkpointing)
{
  g_return_if_fail (NK_IS_PLAN (self));
  checkpointing = !!checkpointing;
  SET_INPUT (self, checkpointing, checkpointing, PROP_CHECKPOINTING);
}

/* Outputs that may be NAN: C getters, since GObject cannot carry NAN into a
 * property binding or g_object_set() on the other side. */
#define DOUBLE_OUTPUT(name, WHICH)                                         \
double                                                                     \
nk_plan_get_##name (NkPlan *self)                                          \
{                                                                          \
  g_return_val_if_fail (NK_IS_PLAN (self), NAN);                           \
  return self->out.values[WHICH];                                          \
}

/**
 * nk_plan_get_total_flops: (get-property total-flops)
 * @self: a plan
 * Returns: 6 · params · tokens, NAN when not computable
 */
DOUBLE_OUTPUT (total_flops, V_TOTAL_FLOPS)
/**
 * nk_plan_get_peak_flops_per_gpu: (get-property peak-flops-per-gpu)
 * @self: a plan
 * Returns: the GPU's peak FLOP/s for the dtype, NAN when the table has none
 */
DOUBLE_OUTPUT (peak_flops_per_gpu, V_PEAK)
/**
 * nk_plan_get_flops_per_day: (get-property flops-per-day)
 * @self: a plan
 * Returns: peak · mfu · gpus · 86400, NAN when not computable
 */
DOUBLE_OUTPUT (flops_per_day, V_FLOPS_PER_DAY)
/**
 * nk_plan_get_days: (get-property days)
 * @self: a plan
 * Returns: the training time in days, NAN when not computable
 */
DOUBLE_OUTPUT (days, V_DAYS)
/**
 * nk_plan_get_gpu_hours: (get-property gpu-hours)
 * @self: a plan
 * Returns: days · 24 · gpus, NAN when not computable
 */
DOUBLE_OUTPUT (gpu_hours, V_GPU_HOURS)
/**
 * nk_plan_get_cost: (get-property cost)
 * @self: a plan
 * Returns: GPU-hours · price in USD, NAN when not computable
 */
DOUBLE_OUTPUT (cost, V_COST)
/**
 * nk_plan_get_hbm_per_gpu: (get-property hbm-per-gpu)
 * @self: a plan
 * Returns: the GPU's memory in bytes as the datasheet gives it (known whenever
 *   the GPU is, even while the GPU count is not), NAN otherwise
 */
DOUBLE_OUTPUT (hbm_per_gpu, V_HBM)
/**
 * nk_plan_get_memory_params_per_gpu: (get-property memory-params-per-gpu)
 * @self: a plan
 * Returns: bytes of parameters each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_params_per_gpu, V_MEM_PARAMS_GPU)
/**
 * nk_plan_get_memory_grads_per_gpu: (get-property memory-grads-per-gpu)
 * @self: a plan
 * Returns: bytes of gradients each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_grads_per_gpu, V_MEM_GRADS_GPU)
/**
 * nk_plan_get_memory_optimizer_per_gpu: (get-property memory-optimizer-per-gpu)
 * @self: a plan
 * Returns: bytes of optimizer state each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_optimizer_per_gpu, V_MEM_OPT_GPU)
/**
 * nk_plan_get_memory_activations_per_gpu: (get-property memory-activations-per-gpu)
 * @self: a plan
 * Returns: bytes of activations each GPU holds, NAN when not computable
 */
DOUBLE_OUTPUT (memory_activations_per_gpu, V_MEM_ACT_GPU)
/**
 * nk_plan_get_memory_per_gpu: (get-property memory-per-gpu)
 * @self: a plan
 * Returns: the bytes each GPU holds in all, NAN when not computable
 */
DOUBLE_OUTPUT (memory_per_gpu, V_MEM_PER_GPU)
/**
 * nk_plan_get_largest_params: (get-property largest-params)
 * @self: a plan
 * Returns: the most whole parameters that fit, NAN when not computable
 */
DOUBLE_OUTPUT (largest_params, V_LARGEST)
/**
 * nk_plan_get_gpus_for_deadline: (get-property gpus-for-deadline)
 * @self: a plan
 * Returns: the fewest GPUs that finish within #NkPlan:deadline-days, NAN when
 *   not asked or not computable
 */
DOUBLE_OUTPUT (gpus_for_deadline, V_GPUS_DEADLINE)
/**
 * nk_plan_get_sized_params: (get-property sized-params)
 * @self: a plan
 * Returns: 2 · d_model · n_layer · (2 · d_attn + d_ff), NAN without d-model and layers
 */
DOUBLE_OUTPUT (sized_params, V_SIZED_PARAMS)
/**
 * nk_plan_get_sized_embedding_params: (get-property sized-embedding-params)
 * @self: a plan
 * Returns: (n_vocab + n_ctx) · d_model, NAN without vocab and seq
 */
DOUBLE_OUTPUT (sized_embedding_params, V_SIZED_EMBED)
/**
 * nk_plan_get_sized_forward_flops_per_token: (get-property sized-forward-flops-per-token)
 * @self: a plan
 * Returns: 2 · N + 2 · n_layer · n_ctx · d_attn, NAN without seq
 */
DOUBLE_OUTPUT (sized_forward_flops_per_token, V_SIZED_FWD)

/**
 * nk_plan_get_gpu_name: (get-property gpu-name)
 * @self: a plan
 * Returns: (nullable): the GPU's name from the table ("NVIDIA H100 SXM5 80 GB"), or the id
 *   when the table has no such GPU
 */
const char *
nk_plan_get_gpu_name (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->out.gpu_name;
}

/**
 * nk_plan_get_bytes_per_param_text: (get-property bytes-per-param-text)
 * @self: a plan
 * Returns: (nullable): bytes per parameter as a sum, "4 + 4 + 8 = 16"
 */
const char *
nk_plan_get_bytes_per_param_text (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->out.bytes_text;
}

/**
 * nk_plan_get_gpu: (get-property gpu)
 * @self: a plan
 * Returns: (nullable): the GPU table id
 */
const char *
nk_plan_get_gpu (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->gpu;
}

/**
 * nk_plan_set_gpu: (set-property gpu)
 * @self: a plan
 * @gpu: (nullable): a GPU table id; an unknown one makes the plan invalid
 */
void
nk_plan_set_gpu (NkPlan     *self,
                 const char *gpu)
{
  g_return_if_fail (NK_IS_PLAN (self));

  if (g_strcmp0 (self->gpu, gpu) == 0)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  g_free (self->gpu);
  self->gpu = g_strdup (gpu);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GPU]);
  recompute (self);
  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * nk_plan_get_dtype: (get-property dtype)
 * @self: a plan
 * Returns: the dtype whose peak the plan uses
 */
NkPeakDtype
nk_plan_get_dtype (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_PEAK_BF16);
  return self->dtype;
}

/**
 * nk_plan_set_dtype: (set-property dtype)
 * @self: a plan
 * @dtype: fp32, tf32, bf16, fp16 or fp8 (others make the plan invalid)
 */
void
nk_plan_set_dtype (NkPlan      *self,
                   NkPeakDtype  dtype)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (dtype >= 0 && dtype < NK_PEAK_N_DTYPES);
  SET_INPUT (self, dtype, dtype, PROP_DTYPE);
}

/**
 * nk_plan_get_sparse: (get-property sparse)
 * @self: a plan
 * Returns: whether the 2:4 sparsity peak is used
 */
gboolean
nk_plan_get_sparse (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->sparse;
}

/**
 * nk_plan_set_sparse: (set-property sparse)
 * @self: a plan
 * @sparse: use the datasheet's 2:4 structured-sparsity peak instead of the dense one
 */
void
nk_plan_set_sparse (NkPlan   *self,
                    gboolean  sparse)
{
  g_return_if_fail (NK_IS_PLAN (self));
  sparse = !!sparse;
  SET_INPUT (self, sparse, sparse, PROP_SPARSE);
}

/**
 * nk_plan_get_optimizer: (get-property optimizer)
 * @self: a plan
 * Returns: the optimizer
 */
NkOptimizer
nk_plan_get_optimizer (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_OPTIMIZER_ADAMW);
  return self->optimizer;
}

/**
 * nk_plan_set_optimizer: (set-property optimizer)
 * @self: a plan
 * @optimizer: the optimizer, which sets the bytes of state per parameter
 */
void
nk_plan_set_optimizer (NkPlan      *self,
                       NkOptimizer  optimizer)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (optimizer <= NK_OPTIMIZER_ADAMW);
  SET_INPUT (self, optimizer, optimizer, PROP_OPTIMIZER);
}

/**
 * nk_plan_get_precision: (get-property precision)
 * @self: a plan
 * Returns: the precision policy
 */
NkPrecision
nk_plan_get_precision (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NK_PRECISION_FP32);
  return self->precision;
}

/**
 * nk_plan_set_precision: (set-property precision)
 * @self: a plan
 * @precision: fp32 or mixed
 */
void
nk_plan_set_precision (NkPlan      *self,
                       NkPrecision  precision)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (precision <= NK_PRECISION_FP16_MIXED);
  SET_INPUT (self, precision, precision, PROP_PRECISION);
}

/**
 * nk_plan_get_zero_stage: (get-property zero-stage)
 * @self: a plan
 * Returns: the ZeRO stage, 0 to 3
 */
int
nk_plan_get_zero_stage (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), 0);
  return self->zero_stage;
}

/**
 * nk_plan_set_zero_stage: (set-property zero-stage)
 * @self: a plan
 * @stage: 0 replicates everything; 1 shards optimizer state; 2 also gradients;
 *   3 also parameters
 */
void
nk_plan_set_zero_stage (NkPlan *self,
                        int     stage)
{
  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (stage >= 0 && stage <= 3);
  SET_INPUT (self, zero_stage, stage, PROP_ZERO_STAGE);
}

/**
 * nk_plan_get_valid: (get-property valid)
 * @self: a plan
 *
 * Returns: %TRUE when every input is acceptable and every asked-for result finite
 */
gboolean
nk_plan_get_valid (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->out.valid;
}

/**
 * nk_plan_get_error: (get-property error)
 * @self: a plan
 *
 * Returns: (nullable): one sentence about the first bad input, or %NULL
 */
const char *
nk_plan_get_error (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->out.error;
}

/**
 * nk_plan_get_error_input: (get-property error-input)
 * @self: a plan
 *
 * Returns: (nullable): the property name of the input the error is about
 *   ("params", "mfu", "gpu", ...), or %NULL
 */
const char *
nk_plan_get_error_input (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  return self->out.error_input;
}

/**
 * nk_plan_check:
 * @self: a plan
 * @error: the plan's error as a #GError in %NK_PLAN_ERROR
 *
 * Returns: %TRUE when the plan is valid
 */
gboolean
nk_plan_check (NkPlan  *self,
               GError **error)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);

  if (self->out.valid)
    return TRUE;
  g_set_error_literal (error, self->out.error_domain, self->out.error_code, self->out.error);
  return FALSE;
}

static int
value_index (const char *name)
{
  for (guint i = 0; i < N_FORMULAS; i++)
    if (g_strcmp0 (value_names[i], name) == 0)
      return i;
  return -1;
}

/**
 * nk_plan_get_output:
 * @self: a plan
 * @name: a numeric output property, e.g. "days" or "memory-per-gpu"
 *
 * The same as reading the property, without a GValue (for tight loops and the CLI).
 *
 * Returns: the value, NAN when it cannot be computed
 */
double
nk_plan_get_output (NkPlan     *self,
                    const char *name)
{
  int i;

  g_return_val_if_fail (NK_IS_PLAN (self), NAN);
  i = value_index (name);
  g_return_val_if_fail (i >= 0 && i < N_VALUES, NAN);
  return self->out.values[i];
}

/**
 * nk_plan_get_fits: (get-property fits)
 * @self: a plan
 *
 * Returns: %TRUE when the memory per GPU is known and at most the GPU's HBM
 */
gboolean
nk_plan_get_fits (NkPlan *self)
{
  g_return_val_if_fail (NK_IS_PLAN (self), FALSE);
  return self->out.fits;
}

/**
 * nk_plan_get_formula:
 * @self: a plan
 * @output: a numeric output property name, or "fits"
 *
 * The formula behind @output with this plan's numbers in it, e.g.
 * "6 × 7.0e10 params × 1.5e13 tokens = 6.3e24 FLOPs". Formulas change with the
 * values; #NkPlan:revision is notified whenever any of them changes.
 *
 * Returns: (nullable): the formula, or %NULL when @output is not computed
 */
const char *
nk_plan_get_formula (NkPlan     *self,
                     const char *output)
{
  int i;

  g_return_val_if_fail (NK_IS_PLAN (self), NULL);
  i = value_index (output);
  g_return_val_if_fail (i >= 0, NULL);
  return self->out.formulas[i];
}

/**
 * nk_plan_largest_params_for_stage:
 * @self: a plan
 * @stage: a ZeRO stage, 0 to 3
 *
 * The answer #NkPlan:largest-params would give under another ZeRO stage, so a
 * page can show which assumption an answer rests on (the lecture's 4.0e10 on
 * 8 H100s is ZeRO-3; replicated, ZeRO-0, it is 5.0e9).
 *
 * Returns: whole parameters, NAN when the memory inputs are not valid
 */
double
nk_plan_largest_params_for_stage (NkPlan *self,
                                  int     stage)
{
  const double *v;
  double gpus;

  g_return_val_if_fail (NK_IS_PLAN (self), NAN);
  g_return_val_if_fail (stage >= 0 && stage <= 3, NAN);

  v = self->out.values;
  gpus = self->in[IN_GPUS];
  if (!isfinite (gpus) || gpus < 1 || gpus != floor (gpus))
    return NAN;
  return largest_params (v, stage, gpus, v[V_HBM], v[V_MEM_ACT_GPU]);
}

/* ---------------------------------------------------------------- output */

/**
 * nk_plan_build_json:
 * @self: a plan
 * @builder: a builder expecting a value
 * @flags: optional fields
 *
 * Adds the plan as CLI.md's `napkin-cli plan --json` object (the app's export
 * writes the same). Non-finite numbers become the strings "nan"/"inf".
 */
void
nk_plan_build_json (NkPlan          *self,
                    JsonBuilder     *builder,
                    NkPlanJsonFlags  flags)
{
  const double *v;

  g_return_if_fail (NK_IS_PLAN (self));
  g_return_if_fail (JSON_IS_BUILDER (builder));

  v = self->out.values;
  json_builder_begin_object (builder);
  if (!(flags & NK_PLAN_JSON_NO_COMPUTE))
    {
      nk_json_add_member_double (builder, "total_flops", v[V_TOTAL_FLOPS]);
      nk_json_add_member_double (builder, "peak_flops_per_gpu", v[V_PEAK]);
      nk_json_add_member_double (builder, "flops_per_day", v[V_FLOPS_PER_DAY]);
      nk_json_add_member_double (builder, "days", v[V_DAYS]);
      nk_json_add_member_double (builder, "gpu_hours", v[V_GPU_HOURS]);
      if (flags & NK_PLAN_JSON_COST)
        nk_json_add_member_double (builder, "cost", v[V_COST]);
    }
  else
    nk_json_add_member_double (builder, "peak_flops_per_gpu", v[V_PEAK]);

  json_builder_set_member_name (builder, "memory");
  json_builder_begin_object (builder);
  nk_json_add_member_double (builder, "params", v[V_MEM_PARAMS]);
  nk_json_add_member_double (builder, "grads", v[V_MEM_GRADS]);
  nk_json_add_member_double (builder, "optimizer", v[V_MEM_OPT]);
  nk_json_add_member_double (builder, "activations", v[V_MEM_ACT]);
  nk_json_add_member_double (builder, "total", v[V_MEM_TOTAL]);
  nk_json_add_member_double (builder, "per_gpu", v[V_MEM_PER_GPU]);
  nk_json_add_member_double (builder, "hbm_per_gpu", v[V_HBM]);
  json_builder_set_member_name (builder, "fits");
  json_builder_add_boolean_value (builder, self->out.fits);
  nk_json_add_member_double (builder, "bytes_per_param", v[V_BYTES_PER_PARAM]);
  json_builder_set_member_name (builder, "zero_stage");
  json_builder_add_int_value (builder, self->zero_stage);
  json_builder_end_object (builder);

  if (flags & NK_PLAN_JSON_LARGEST)
    nk_json_add_member_double (builder, "largest_params", v[V_LARGEST]);
  if (flags & NK_PLAN_JSON_DEADLINE)
    {
      nk_json_add_member_double (builder, "deadline_days", self->in[IN_DEADLINE]);
      nk_json_add_member_double (builder, "gpus_for_deadline", v[V_GPUS_DEADLINE]);
    }
  if (isfinite (v[V_SIZED_PARAMS]))
    {
      json_builder_set_member_name (builder, "sizing");
      json_builder_begin_object (builder);
      nk_json_add_member_double (builder, "params", v[V_SIZED_PARAMS]);
      if (isfinite (v[V_SIZED_EMBED]))
        nk_json_add_member_double (builder, "embedding_params", v[V_SIZED_EMBED]);
      if (isfinite (v[V_SIZED_FWD]))
        nk_json_add_member_double (builder, "forward_flops_per_token", v[V_SIZED_FWD]);
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "assumptions");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "gpu");
  json_builder_add_string_value (builder, self->gpu ? self->gpu : "");
  json_builder_set_member_name (builder, "dtype");
  json_builder_add_string_value (builder, nk_peak_dtype_to_string (self->dtype));
  json_builder_set_member_name (builder, "sparse");
  json_builder_add_boolean_value (builder, self->sparse);
  json_builder_set_member_name (builder, "optimizer");
  json_builder_add_string_value (builder, nk_optimizer_to_string (self->optimizer));
  json_builder_set_member_name (builder, "precision");
  json_builder_add_string_value (builder, nk_precision_to_string (self->precision));
  json_builder_set_member_name (builder, "activation_model");
  json_builder_add_string_value (builder, nk_activation_model_to_string (self->activation_model));
  json_builder_set_member_name (builder, "checkpointing");
  json_builder_add_boolean_value (builder, self->checkpointing);
  json_builder_end_object (builder);

  json_builder_end_object (builder);
}

static void
summary_row (GString    *s,
             const char *label,
             const char *value,
             const char *formula_text)
{
  /* Pad by characters, not bytes: labels and values carry "×" and "—". */
  glong label_len = g_utf8_strlen (label, -1);
  glong value_len = g_utf8_strlen (value, -1);

  g_string_append_printf (s, "  %s%*s  %s%*s", label, (int) MAX (0, 18 - label_len), "",
                          value, (int) MAX (0, 22 - value_len), "");
  if (formula_text != NULL)
    g_string_append_printf (s, "  %s", formula_text);
  while (s->len > 0 && s->str[s->len - 1] == ' ')
    g_string_truncate (s, s->len - 1);
  g_string_append_c (s, '\n');
}

static void
summary_value (GString    *s,
               NkPlan     *self,
               const char *label,
               int         which,
               char       *value_text)
{
  summary_row (s, label, value_text, self->out.formulas[which]);
  g_free (value_text);
}

static char *
bytes_text (double bytes)
{
  g_autofree char *binary = nk_units_format_bytes (bytes);
  g_autofree char *sci = NULL;

  if (!isfinite (bytes))
    return g_strdup ("—");
  if (bytes < 1024)
    return g_steal_pointer (&binary);
  sci = num (bytes);
  return g_strdup_printf ("%s (%s B)", binary, sci);
}

static char *
sci_unit (double      value,
          const char *unit)
{
  g_autofree char *n = num (value);

  if (!isfinite (value))
    return g_strdup ("—");
  return g_strdup_printf ("%s %s", n, unit);
}

/**
 * nk_plan_format_summary:
 * @self: a plan
 * @flags: the optional parts, as for nk_plan_build_json()
 *
 * The plan for people: aligned rows with units, each followed by its formula with
 * the numbers in it. `napkin-cli plan` prints it; the page copies it to the
 * clipboard.
 *
 * Returns: (transfer full): the text, ending in a newline
 */
char *
nk_plan_format_summary (NkPlan          *self,
                        NkPlanJsonFlags  flags)
{
  GString *s;
  const double *v;
  const char *dtype;

  g_return_val_if_fail (NK_IS_PLAN (self), NULL);

  s = g_string_new (NULL);
  v = self->out.values;
  dtype = nk_peak_dtype_to_string (self->dtype);

  if (!(flags & NK_PLAN_JSON_NO_COMPUTE))
    {
      g_string_append_printf (s, _("Compute (%s %s, MFU %g, %g × %s)\n"),
                              self->sparse ? _("2:4-sparse") : _("dense"), dtype,
                              self->in[IN_MFU], self->in[IN_GPUS],
                              self->out.gpu_name ? self->out.gpu_name : "");
      summary_value (s, self, _("total FLOPs"), V_TOTAL_FLOPS, sci_unit (v[V_TOTAL_FLOPS], "FLOPs"));
      summary_value (s, self, _("peak per GPU"), V_PEAK, nk_units_format_rate (v[V_PEAK]));
      summary_value (s, self, _("FLOPs per day"), V_FLOPS_PER_DAY,
                     sci_unit (v[V_FLOPS_PER_DAY], "FLOPs/day"));
      summary_value (s, self, _("time"), V_DAYS,
                     isfinite (v[V_DAYS]) ? g_strdup_printf (_("%.1f days"), v[V_DAYS]) : g_strdup ("—"));
      summary_value (s, self, _("GPU-hours"), V_GPU_HOURS, sci_unit (v[V_GPU_HOURS], "GPU-h"));
      if (flags & NK_PLAN_JSON_COST)
        summary_value (s, self, _("cost"), V_COST,
                       sci_unit (v[V_COST], "USD"));
      g_string_append_c (s, '\n');
    }

  g_string_append_printf (s, _("Memory (%s, %s precision, %s)\n"),
                          nk_optimizer_to_string (self->optimizer),
                          nk_precision_to_string (self->precision),
                          zero_text (self->zero_stage));
  summary_row (s, _("bytes/param"), self->out.bytes_text ? self->out.bytes_text : "—",
               self->out.formulas[V_BYTES_PER_PARAM]);
  summary_value (s, self, _("params"), V_MEM_PARAMS, bytes_text (v[V_MEM_PARAMS]));
  summary_value (s, self, _("grads"), V_MEM_GRADS, bytes_text (v[V_MEM_GRADS]));
  summary_value (s, self, _("optimizer state"), V_MEM_OPT, bytes_text (v[V_MEM_OPT]));
  summary_value (s, self, _("activations"), V_MEM_ACT, bytes_text (v[V_MEM_ACT]));
  summary_value (s, self, _("total"), V_MEM_TOTAL, bytes_text (v[V_MEM_TOTAL]));
  summary_value (s, self, _("per GPU"), V_MEM_PER_GPU, bytes_text (v[V_MEM_PER_GPU]));
  summary_value (s, self, _("HBM per GPU"), V_HBM, bytes_text (v[V_HBM]));
  summary_row (s, _("fits"), isfinite (v[V_MEM_PER_GPU]) && isfinite (v[V_HBM])
                             ? (self->out.fits ? _("yes") : _("no")) : "—",
               self->out.formulas[V_FITS_FORMULA]);

  if (flags & NK_PLAN_JSON_LARGEST)
    {
      g_string_append_c (s, '\n');
      g_string_append (s, _("Largest model that fits\n"));
      summary_value (s, self, _("largest params"), V_LARGEST, sci_unit (v[V_LARGEST], "params"));
      for (int stage = 0; stage <= 3; stage++)
        {
          g_autofree char *label = g_strdup_printf (_("at ZeRO-%d"), stage);
          g_autofree char *n = sci_unit (nk_plan_largest_params_for_stage (self, stage), "params");

          summary_row (s, label, n, stage == self->zero_stage ? _("← the assumption of this answer") : NULL);
        }
    }
  if (flags & NK_PLAN_JSON_DEADLINE)
    {
      g_autofree char *label = g_strdup_printf (_("GPUs for %g days"), self->in[IN_DEADLINE]);

      g_string_append_c (s, '\n');
      summary_value (s, self, label, V_GPUS_DEADLINE, sci_unit (v[V_GPUS_DEADLINE], "GPUs"));
    }
  if (isfinite (v[V_SIZED_PARAMS]))
    {
      g_string_append_c (s, '\n');
      g_string_append (s, _("Transformer sizing (OpenAI table, Kaplan et al. 2020)\n"));
      summary_value (s, self, _("params"), V_SIZED_PARAMS, sci_unit (v[V_SIZED_PARAMS], "params"));
      if (isfinite (v[V_SIZED_EMBED]))
        summary_value (s, self, _("embeddings"), V_SIZED_EMBED, sci_unit (v[V_SIZED_EMBED], "params"));
      if (isfinite (v[V_SIZED_FWD]))
        summary_value (s, self, _("forward/token"), V_SIZED_FWD, sci_unit (v[V_SIZED_FWD], "FLOPs"));
    }
  if (isfinite (v[V_ACT_TRANSFORMER]) || isfinite (v[V_ACT_LINEAR]))
    {
      g_string_append_c (s, '\n');
      g_string_append (s, _("Activation estimates (whole batch)\n"));
      summary_value (s, self, _("linear model"), V_ACT_LINEAR, bytes_text (v[V_ACT_LINEAR]));
      if (isfinite (v[V_ACT_TRANSFORMER]))
        {
          summary_value (s, self, _("transformer"), V_ACT_TRANSFORMER, bytes_text (v[V_ACT_TRANSFORMER]));
          summary_value (s, self, _("checkpointed"), V_ACT_TRANSFORMER_CKPT,
                         bytes_text (v[V_ACT_TRANSFORMER_CKPT]));
        }
    }
  return g_string_free (s, FALSE);
}
