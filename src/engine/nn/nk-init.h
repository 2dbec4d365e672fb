/* nk-init.h: parameter initialisation: the lecture's truncated normal, and N(0, 1)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lecture's point (seed 000, "Parameter Initialization"): with w ~ N(0, 1), each
 * output of x·w grows like sqrt(fan_in) and deep products blow up. Scaling by
 * 1/sqrt(fan_in) keeps outputs O(1) whatever the width; truncating at ±3 standard
 * deviations removes the rare outliers. NK_INIT_NORMAL keeps the unscaled N(0, 1) so
 * the blow-up can be shown.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-rng.h"
#include "nk-safetensors.h"
#include "nk-tensor.h"

G_BEGIN_DECLS

#define NK_INIT_ERROR (nk_init_error_quark ())

/**
 * NkInitError:
 * @NK_INIT_ERROR_NONFINITE: starting weights that hold a NaN or an infinity
 *
 * The ways checking starting weights fails, in the %NK_INIT_ERROR domain.
 */
typedef enum {
  NK_INIT_ERROR_NONFINITE,
} NkInitError;

NK_AVAILABLE_IN_ALL
GQuark nk_init_error_quark (void);

/**
 * NkInitKind:
 * @NK_INIT_TRUNC_NORMAL: N(0, 1/fan_in) truncated at ±3 std (the default)
 * @NK_INIT_NORMAL: N(0, 1), unscaled (the lesson on why it blows up)
 *
 * How the lecture's models draw their starting weights (`--init`).
 */
typedef enum {
  NK_INIT_TRUNC_NORMAL,
  NK_INIT_NORMAL,
} NkInitKind;

/**
 * nk_init_trunc_normal_:
 * @tensor: an f32 or f64 tensor on any device, filled in place (drawn on the CPU)
 * @rng: the generator
 * @std: the standard deviation
 * @a: lower bound in standard deviations (the lecture: -3)
 * @b: upper bound in standard deviations (the lecture: 3)
 *
 * Fills @tensor with draws of N(0, std²) truncated to [a·std, b·std], redrawing
 * what falls outside (torch.nn.init.trunc_normal_ with its bounds in standard
 * deviations).
 *
 * Returns: %TRUE on success (%FALSE for a tensor it cannot fill)
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_init_trunc_normal_ (NkTensor   *tensor,
                                   NkRng      *rng,
                                   double      std,
                                   double      a,
                                   double      b);

NK_AVAILABLE_IN_ALL
gboolean    nk_init_normal_       (NkTensor   *tensor,
                                   NkRng      *rng,
                                   double      mean,
                                   double      std);

/**
 * nk_init_param_:
 * @tensor: a parameter whose fan-in is @fan_in
 * @rng: the generator
 * @kind: the rule
 * @fan_in: inputs per output (a Linear's in_features)
 *
 * Draws a parameter's starting values by @kind: N(0, 1/fan_in) truncated at ±3
 * standard deviations, or N(0, 1).
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_init_param_        (NkTensor   *tensor,
                                   NkRng      *rng,
                                   NkInitKind  kind,
                                   gint64      fan_in);

NK_AVAILABLE_IN_ALL
const char *nk_init_kind_to_string (NkInitKind kind);

/**
 * nk_init_check_finite:
 * @st: a state_dict a run is about to start from (--init)
 * @error: return location for a #GError (%NK_INIT_ERROR_NONFINITE naming the file,
 *   the tensor and the flat index of its first NaN or infinity)
 *
 * Starting weights that are not finite make the first loss NaN, which would be
 * reported as a divergence and blamed on the learning rate; this says what is wrong.
 * Only floating-point tensors are read.
 *
 * Returns: %TRUE if every floating-point value in @st is finite
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_init_check_finite  (NkSafetensors *st,
                                   GError       **error);

G_END_DECLS
