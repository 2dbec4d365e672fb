/* nk-gemm-rate.h: the matmul rate a device reaches, measured once per process
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The prediction of a run's seconds per step divides its FLOPs by this rate
 * (nk_train_config_predict()). Measured, not taken from a table, since a toy run
 * on a laptop is nowhere near the datasheet's peak.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

/**
 * NK_TRAIN_GEMM_RATE_SIZE:
 *
 * The matmul nk_train_gemm_rate_measure() times: C = A · B, all N × N, fp32.
 * A few hundred cubed is big enough for BLAS to reach its steady rate and small
 * enough to take milliseconds.
 */
#define NK_TRAIN_GEMM_RATE_SIZE 384

/**
 * nk_train_gemm_rate_measure_sync:
 * @device: "cpu", "cuda", "cuda:N" or "auto"
 * @cancellable: (nullable): a cancellable
 * @error: return location for a #GError (no such device: the device's reason)
 *
 * Times an fp32 matmul of %NK_TRAIN_GEMM_RATE_SIZE cubed on @device (two warm-ups,
 * then the median of seven) and remembers the answer for the process, so only the
 * first call per device does any work; a failure is remembered too. The operands are
 * tensors in %NK_BUCKET_OTHER, freed before returning. Blocks for tens of
 * milliseconds: the app calls nk_train_gemm_rate_measure() instead.
 *
 * Returns: the measured FLOP/s, or NAN with @error set
 */
NK_AVAILABLE_IN_ALL
double         nk_train_gemm_rate_measure_sync   (const char          *device,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
NK_AVAILABLE_IN_ALL
void           nk_train_gemm_rate_measure        (const char          *device,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
NK_AVAILABLE_IN_ALL
double         nk_train_gemm_rate_measure_finish (GAsyncResult        *result,
                                                  GError             **error);
/**
 * nk_train_gemm_rate_peek:
 * @device: a device name as for nk_train_gemm_rate_measure_sync()
 * @out_rate: (out): the rate, NAN when the measurement failed
 * @out_reason: (out) (optional) (transfer full): why it failed, or %NULL
 *
 * Looks up a measurement nk_train_gemm_rate_measure_sync() remembered, without
 * measuring.
 *
 * Returns: whether @device was measured already (then the answer is at hand)
 */
NK_AVAILABLE_IN_ALL
gboolean       nk_train_gemm_rate_peek           (const char          *device,
                                                  double              *out_rate,
                                                  char               **out_reason);

G_END_DECLS
