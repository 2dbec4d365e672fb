/* nk-rng.h: one seeded, counter-based random generator (Philox4x32-10)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", SC 2011; the generator of Random123, curand's CURAND_RNG_PSEUDO_PHILOX4_32_10
 * and PyTorch's CUDA generator) is a keyed bijection: 10 rounds turn a 128-bit counter
 * and a 64-bit key into 128 random bits. There is no hidden state, so
 *
 *     state = (seed, counter)
 *
 * where seed is the key (key[0] = low 32 bits, key[1] = high 32 bits) and counter is
 * the number of 32-bit words drawn so far. Word i of the stream is lane i % 4 of
 * philox (ctr = {block, block >> 32, 0, 0}, key) with block = i / 4. Saving the two
 * numbers and restoring them resumes the stream exactly, which is what a checkpoint
 * needs; nothing is cached that the two numbers do not determine.
 *
 * The streams are our own layout: the same seed does not give PyTorch's (CPU
 * mt19937) numbers. What is promised is: same seed, same calls → same bits, on every
 * machine (only integer arithmetic and correctly rounded libm calls — log, sqrt,
 * cos, sin — are involved; the normal deviates go through double).
 *
 * How draws consume words (so a reader can predict the counter):
 *   nk_rng_next_u32 1, nk_rng_next_u64 2, nk_rng_uniform_float 1, nk_rng_uniform_double 2,
 *   nk_rng_normal 2 (Box–Muller, cosine branch only), nk_rng_uniform_int 2 per try
 *   (rejection, so unbiased), nk_rng_truncated_normal 2 per try (rejection),
 *   fills: 1 word per uniform float, 2 words per *pair* of normals (both branches;
 *   an odd last one takes a pair and drops the sine).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_RNG_ERROR (nk_rng_error_quark ())

/**
 * NkRngError:
 * @NK_RNG_ERROR_PARSE: a state string is not "philox4x32-10:SEED:COUNTER"
 *
 * Why nk_rng_new_from_string() refused a saved state.
 */
typedef enum {
  NK_RNG_ERROR_PARSE,
} NkRngError;

NK_AVAILABLE_IN_ALL
GQuark nk_rng_error_quark (void);

#define NK_TYPE_RNG (nk_rng_get_type ())

/**
 * NkRng:
 *
 * A Philox4x32-10 generator: nothing but a seed and a counter (the top of
 * nk-rng.h), so a copy or a saved state continues the same stream.
 */
typedef struct _NkRng NkRng;

NK_AVAILABLE_IN_ALL
GType      nk_rng_get_type      (void) G_GNUC_CONST;

/**
 * nk_philox4x32_10:
 * @ctr: the 128-bit counter, four 32-bit words
 * @key: the 64-bit key, two 32-bit words
 * @out: (out caller-allocates): four 32-bit random words
 *
 * The bare block function (what Random123's philox4x32(ctr, key) computes), exposed so
 * tests can check it against the published known-answer vectors.
 */
NK_AVAILABLE_IN_ALL
void       nk_philox4x32_10     (const guint32  ctr[4],
                                 const guint32  key[2],
                                 guint32        out[4]);

NK_AVAILABLE_IN_ALL
NkRng     *nk_rng_new           (guint64        seed);

NK_AVAILABLE_IN_ALL
NkRng     *nk_rng_new_from_state (guint64       seed,
                                  guint64       counter);
NK_AVAILABLE_IN_ALL
NkRng     *nk_rng_copy          (const NkRng   *rng);
NK_AVAILABLE_IN_ALL
void       nk_rng_free          (NkRng         *rng);

NK_AVAILABLE_IN_ALL
void       nk_rng_get_state     (const NkRng   *rng,
                                 guint64       *out_seed,
                                 guint64       *out_counter);
NK_AVAILABLE_IN_ALL
void       nk_rng_set_state     (NkRng         *rng,
                                 guint64        seed,
                                 guint64        counter);
NK_AVAILABLE_IN_ALL
guint64    nk_rng_get_seed      (const NkRng   *rng);
NK_AVAILABLE_IN_ALL
guint64    nk_rng_get_counter   (const NkRng   *rng);

NK_AVAILABLE_IN_ALL
char      *nk_rng_to_string     (const NkRng   *rng);

NK_AVAILABLE_IN_ALL
NkRng     *nk_rng_new_from_string (const char  *text,
                                   GError     **error);

NK_AVAILABLE_IN_ALL
guint32    nk_rng_next_u32      (NkRng         *rng);
NK_AVAILABLE_IN_ALL
guint64    nk_rng_next_u64      (NkRng         *rng);

NK_AVAILABLE_IN_ALL
float      nk_rng_uniform_float (NkRng         *rng);
NK_AVAILABLE_IN_ALL
double     nk_rng_uniform_double (NkRng        *rng);

NK_AVAILABLE_IN_ALL
guint64    nk_rng_uniform_int   (NkRng         *rng,
                                 guint64        n);

NK_AVAILABLE_IN_ALL
double     nk_rng_normal        (NkRng         *rng,
                                 double         mean,
                                 double         std);

/**
 * nk_rng_truncated_normal:
 * @rng: a generator
 * @mean: the mean of the untruncated normal
 * @std: its standard deviation
 * @a: lower bound, in standard deviations from @mean (the lecture: -3)
 * @b: upper bound, in standard deviations from @mean (the lecture: 3), @a < @b
 *
 * A normal deviate conditioned on [mean + a·std, mean + b·std], by rejection:
 * standard normals are drawn until one falls in [a, b]. Rejection is exact (no
 * approximation of the inverse CDF) and cheap for the lecture's ±3 (99.73% accepted);
 * bounds that leave almost no mass are the caller's problem (programmer error when
 * b - a is not positive). PyTorch's trunc_normal_ takes absolute bounds instead; the
 * lecture's init is std = 1/sqrt(fan_in), a = -3, b = 3 here.
 *
 * Returns: the deviate
 */
NK_AVAILABLE_IN_ALL
double     nk_rng_truncated_normal (NkRng      *rng,
                                    double      mean,
                                    double      std,
                                    double      a,
                                    double      b);

NK_AVAILABLE_IN_ALL
void       nk_rng_fill_uniform_f32 (NkRng      *rng,
                                    float      *out,
                                    gsize       n,
                                    float       low,
                                    float       high);
NK_AVAILABLE_IN_ALL
void       nk_rng_fill_normal_f32  (NkRng      *rng,
                                    float      *out,
                                    gsize       n,
                                    double      mean,
                                    double      std);
NK_AVAILABLE_IN_ALL
void       nk_rng_fill_truncated_normal_f32 (NkRng  *rng,
                                             float  *out,
                                             gsize   n,
                                             double  mean,
                                             double  std,
                                             double  a,
                                             double  b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkRng, nk_rng_free)

G_END_DECLS
