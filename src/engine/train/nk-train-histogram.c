/* nk-train-histogram.c: one pass over a tensor: binade counts and fp16/bf16 rounding classes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-device.h"
#include "nk-train-config.h"
#include "nk-train-histogram.h"

/**
 * nk_train_histogram_format_dtype:
 * @format: a compute format
 *
 * The engine dtype of a histogram's compute format.
 *
 * Returns: %NK_DTYPE_F16 or %NK_DTYPE_BF16
 */
NkDType
nk_train_histogram_format_dtype (NkTrainHistogramFormat format)
{
  return format == NK_TRAIN_HISTOGRAM_BF16 ? NK_DTYPE_BF16 : NK_DTYPE_F16;
}

/* Where rounding to nearest even into a format changes a magnitude's class: at or
 * below half the smallest subnormal it becomes 0; from there to half a subnormal
 * step below the smallest normal it is a subnormal (the tie there rounds up to the
 * even smallest normal); from the largest finite plus half its ulp up it is inf
 * (the tie rounds to the even infinity). */
typedef struct {
  double zero_at_most;
  double subnormal_below;
  double inf_from;
} FormatEdges;

static void
format_edges (NkDType      dtype,
              FormatEdges *out)
{
  NkDTypeLimits l;

  nk_dtype_limits (dtype, &l);
  out->zero_at_most = l.min_subnormal / 2;
  out->subnormal_below = l.min_normal - l.min_subnormal / 2;
  out->inf_from = l.max + ldexp (l.epsilon, l.max_exponent) / 2;
}

static inline void
histogram_add (NkTrainHistogram  *h,
               const FormatEdges *edges,
               double             x)
{
  double a = fabs (x);
  int e;

  if (a == 0.0)
    {
      h->zeros++;
      return;
    }
  if (!isfinite (a))
    {
      h->nonfinite++;
      return;
    }
  frexp (a, &e);
  /* frexp: a = m · 2^e with 0.5 ≤ m < 1, so a's binade is 2^(e-1). */
  e -= 1;
  if (e < NK_TRAIN_HISTOGRAM_MIN_EXP)
    h->below++;
  else if (e > NK_TRAIN_HISTOGRAM_MAX_EXP)
    h->above++;
  else
    h->bins[e - NK_TRAIN_HISTOGRAM_MIN_EXP]++;
  for (guint f = 0; f < NK_TRAIN_HISTOGRAM_N_FORMATS; f++)
    {
      if (a <= edges[f].zero_at_most)
        h->underflow[f]++;
      else if (a < edges[f].subnormal_below)
        h->subnormal[f]++;
      else if (a >= edges[f].inf_from)
        h->overflow[f]++;
    }
}

gboolean
nk_train_histogram_compute (NkTensor          *tensor,
                            NkTrainHistogram  *out,
                            GError           **error)
{
  FormatEdges edges[NK_TRAIN_HISTOGRAM_N_FORMATS];
  gint64 n;

  g_return_val_if_fail (tensor != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  out->scale = 1.0;
  for (guint f = 0; f < NK_TRAIN_HISTOGRAM_N_FORMATS; f++)
    format_edges (nk_train_histogram_format_dtype (f), &edges[f]);

  n = nk_tensor_numel (tensor);
  out->total = (guint64) n;
  if (tensor->dtype == NK_DTYPE_F32 && nk_tensor_is_contiguous (tensor)
      && nk_device_get_kind (nk_tensor_get_device (tensor)) == NK_DEVICE_CPU)
    {
      const float *d = nk_tensor_data_f32 (tensor);

      for (gint64 i = 0; i < n; i++)
        histogram_add (out, edges, d[i]);
    }
  else
    {
      g_autofree double *d = nk_tensor_to_doubles (tensor, NULL);

      if (d == NULL && n > 0)
        {
          g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                       _("Cannot read the tensor's values back for its histogram."));
          return FALSE;
        }
      for (gint64 i = 0; i < n; i++)
        histogram_add (out, edges, d[i]);
    }
  return TRUE;
}
