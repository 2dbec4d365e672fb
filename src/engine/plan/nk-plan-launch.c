/* nk-plan-launch.c: a plan's layout as a launch spec for a distributed engine
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A pure function of the plan's inputs and result, as the rest of its report.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "nk-plan-report.h"

/**
 * nk_plan_report_launch_spec:
 * @inputs: the inputs @result was computed from
 * @result: a result of nk_plan_compute()
 * @report: its report (the sentence of an invalid plan's error)
 * @spec: (out caller-allocates): the spec to fill
 * @error: why there is no launch to write
 *
 * Fills @spec with the plan's shape and its layout as used (after the
 * best-layout search), the steps for the token budget, the precision,
 * recompute and optimizer. The page's "Export launch config" and
 * `napkin-cli plan --export` both call this, then nk_launch_write(), so they
 * write the same bytes.
 *
 * Returns: %FALSE when the plan is invalid or has no layout (a transformer
 *   shape, a sequence and a global batch)
 */
gboolean
nk_plan_report_launch_spec (const NkPlanInputs *inputs,
                            const NkPlanResult *result,
                            const NkPlanReport *report,
                            NkLaunchSpec       *spec,
                            GError            **error)
{
  const NkPlanInputs *in = inputs;
  const NkPlanResult *r = result;
  const double *x, *v;

  g_return_val_if_fail (inputs != NULL && result != NULL && report != NULL, FALSE);
  g_return_val_if_fail (spec != NULL, FALSE);

  if (!nk_plan_report_check (result, report, error))
    return FALSE;
  x = in->in;
  v = r->values;
  if (!r->cluster)
    {
      g_set_error_literal (error, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
                           _("A launch config needs a layout: give the layers, d_model, heads, "
                             "sequence length and global batch"));
      return FALSE;
    }

  nk_launch_spec_init (spec);
  spec->layers = (guint) x[NK_PLAN_IN_LAYERS];
  spec->d_model = (guint) x[NK_PLAN_IN_D_MODEL];
  spec->heads = (guint) x[NK_PLAN_IN_HEADS];
  spec->kv_heads = (guint) in->layout[NK_PLAN_L_KV_HEADS];
  spec->d_ff = (guint) x[NK_PLAN_IN_D_FF];
  spec->ffn = in->layout[NK_PLAN_L_FFN];
  spec->vocab = (guint) x[NK_PLAN_IN_VOCAB];
  spec->tied_embeddings = in->layout[NK_PLAN_L_TIED_EMBEDDINGS] != 0;
  spec->seq = (guint) x[NK_PLAN_IN_SEQ];

  spec->dp = (guint) v[NK_PLAN_V_LAYOUT_DP];
  spec->tp = (guint) v[NK_PLAN_V_LAYOUT_TP];
  spec->pp = (guint) v[NK_PLAN_V_LAYOUT_PP];
  spec->cp = (guint) v[NK_PLAN_V_LAYOUT_CP];
  spec->virtual_stages = (guint) r->layout[NK_PLAN_L_VIRTUAL_STAGES];
  spec->sequence_parallel = r->layout[NK_PLAN_L_SEQUENCE_PARALLEL] != 0;
  spec->micro_batch = (guint64) v[NK_PLAN_V_MICRO_BATCH];
  spec->global_batch = (guint64) v[NK_PLAN_V_GLOBAL_BATCH];
  spec->grad_accum = (guint64) v[NK_PLAN_V_GRAD_ACCUM];
  spec->gpus = (guint) x[NK_PLAN_IN_GPUS];
  spec->gpus_per_node = (guint) in->layout[NK_PLAN_L_GPUS_PER_NODE];
  spec->nodes = (guint) v[NK_PLAN_V_NODES];
  spec->zero_stage = (guint) r->zero_stage;

  /* The run the time priced: the matmuls in the peak's format (--dtype);
   * "mixed" is 16-bit weights with fp32 master copies, in fp16 when that is
   * the peak and in bf16 otherwise (also under FP8 linears). An fp32 peak
   * under mixed precision is left for nk_launch_check() to refuse. */
  if (in->sparse)
    {
      g_set_error_literal (error, NK_PLAN_ERROR, NK_PLAN_ERROR_INVALID_INPUT,
                           _("The plan priced 2:4-sparse matmuls, which none of the engines trains with; "
                             "plan the dense peak to export."));
      return FALSE;
    }
  spec->matmul_dtype = in->dtype;
  if (!nk_precision_is_mixed (in->precision))
    spec->precision = NK_PRECISION_FP32;
  else
    spec->precision = in->dtype == NK_PEAK_FP16 ? NK_PRECISION_FP16_MIXED : NK_PRECISION_BF16_MIXED;
  spec->fp32_grads = !(nk_precision_is_mixed (in->precision)
                       && in->layout[NK_PLAN_L_GRAD_PRECISION] == NK_GRAD_PRECISION_BF16);
  spec->recompute = r->layout[NK_PLAN_L_RECOMPUTE];
  spec->flash_attention = in->layout[NK_PLAN_L_FLASH_ATTENTION] != 0;
  spec->optimizer = in->optimizer;
  spec->train_steps = r->has[NK_PLAN_V_STEPS] && v[NK_PLAN_V_STEPS] >= 1 ? (guint64) v[NK_PLAN_V_STEPS] : 1;
  return TRUE;
}
