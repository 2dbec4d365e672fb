/* nk-train-histogram.h: a tensor's values by binade, and what fp16/bf16 rounding would make of them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The trainer takes one of these of a chosen parameter or gradient every few steps
 * (#NkTrainConfig.histogram_every); the Training page draws it.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

#include "nk-tensor.h"

G_BEGIN_DECLS

/**
 * NK_TRAIN_HISTOGRAM_MIN_EXP:
 *
 * The exponent e of the histogram's first bin, 2^e ≤ |x| < 2^(e+1): fp32's smallest
 * subnormal, so every nonzero finite fp32 falls in a bin.
 */
#define NK_TRAIN_HISTOGRAM_MIN_EXP  (-149)
/**
 * NK_TRAIN_HISTOGRAM_MAX_EXP:
 *
 * The exponent of the histogram's last bin: fp32's largest binade.
 */
#define NK_TRAIN_HISTOGRAM_MAX_EXP  127
/**
 * NK_TRAIN_HISTOGRAM_N_BINS:
 *
 * The number of bins, one per binade from %NK_TRAIN_HISTOGRAM_MIN_EXP to
 * %NK_TRAIN_HISTOGRAM_MAX_EXP.
 */
#define NK_TRAIN_HISTOGRAM_N_BINS   (NK_TRAIN_HISTOGRAM_MAX_EXP - NK_TRAIN_HISTOGRAM_MIN_EXP + 1)

/**
 * NkTrainHistogramFormat:
 * @NK_TRAIN_HISTOGRAM_F16: IEEE half
 * @NK_TRAIN_HISTOGRAM_BF16: bfloat16
 * @NK_TRAIN_HISTOGRAM_N_FORMATS: the number of formats above (not a format)
 *
 * The compute formats a histogram checks its values against.
 */
typedef enum {
  NK_TRAIN_HISTOGRAM_F16,
  NK_TRAIN_HISTOGRAM_BF16,
  NK_TRAIN_HISTOGRAM_N_FORMATS
} NkTrainHistogramFormat;

NK_AVAILABLE_IN_ALL
NkDType nk_train_histogram_format_dtype (NkTrainHistogramFormat format);

/**
 * NkTrainHistogram:
 * @step: the step it was taken at (0: not from a run)
 * @name: the parameter's state_dict name ("final.weight")
 * @gradient: of the parameter's gradient (else of its values)
 * @scale: the factor the values carry: the loss scale for an fp16 run's gradients
 *   (they are histogrammed as backward left them, scaled, which is what fp16 would
 *   hold), 1 otherwise
 * @total: elements
 * @zeros: exact zeros (±0)
 * @nonfinite: inf and NaN
 * @bins: nonzero finite elements by binade: bins[i] counts
 *   2^(i + %NK_TRAIN_HISTOGRAM_MIN_EXP) ≤ |x| < 2^(i + 1 + %NK_TRAIN_HISTOGRAM_MIN_EXP)
 * @below: nonzero magnitudes under the first bin (only an f64 tensor has them)
 * @above: finite magnitudes past the last bin (likewise)
 * @underflow: per format: nonzero values that round (to nearest even) to ±0
 * @subnormal: per format: values that round to a subnormal (fewer significant bits)
 * @overflow: per format: finite values that round to ±inf
 *
 * How a tensor's values spread over the binades, and what rounding them into each
 * compute format would do: the mixed-precision lesson's "how much underflows in
 * fp16 and in bf16". The format thresholds come from nk_dtype_limits().
 */
typedef struct {
  guint64  step;
  char     name[64];
  gboolean gradient;
  double   scale;
  guint64  total;
  guint64  zeros;
  guint64  nonfinite;
  guint64  bins[NK_TRAIN_HISTOGRAM_N_BINS];
  guint64  below;
  guint64  above;
  guint64  underflow[NK_TRAIN_HISTOGRAM_N_FORMATS];
  guint64  subnormal[NK_TRAIN_HISTOGRAM_N_FORMATS];
  guint64  overflow[NK_TRAIN_HISTOGRAM_N_FORMATS];
} NkTrainHistogram;

/**
 * nk_train_histogram_compute:
 * @tensor: an f32 or f64 tensor on any device (a device tensor is read back)
 * @out: (out caller-allocates): the histogram; step 0, name empty, scale 1
 * @error: return location for a #GError
 *
 * One pass over @tensor's elements in logical order.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean nk_train_histogram_compute (NkTensor          *tensor,
                                     NkTrainHistogram  *out,
                                     GError           **error);

G_END_DECLS
