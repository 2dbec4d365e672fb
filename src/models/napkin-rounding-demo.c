/* napkin-rounding-demo.c: stochastic rounding, many times over, and a running sum
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the Rounding section of the Number formats page draws. Every rounding is
 * nk_dtype_round_with_mode()'s; this file only repeats it and counts:
 *
 * - one value rounded n times with %NK_ROUNDING_MODE_STOCHASTIC lands on its two
 *   neighbours only, the one above with probability (v − below) / (above − below),
 *   so the mean of the results tends to v;
 * - a running sum kept in a narrow format, s ← round(s + a): in bf16 with a = 1
 *   it stalls at 256 under nearest-even (256 + 1 is a tie between 256 and 258 and
 *   goes to the even 256), while stochastic rounding keeps its expectation exact
 *   and grows on. The sum s + a itself is exact in a double: both are values of
 *   a format of at most 24 significant bits.
 */
#include "config.h"

#include <math.h>

#include "napkin-rounding-demo.h"

/**
 * napkin_rounding_stochastic_counts:
 * @dtype: a floating-point format
 * @value: a finite value
 * @n: how many times to round it
 * @seed: the generator's seed
 * @out: (out caller-allocates): the neighbours, the counts and the mean
 *
 * Returns: %FALSE when @value is not finite or @dtype not a float format
 */
gboolean
napkin_rounding_stochastic_counts (NkDType                 dtype,
                                   double                  value,
                                   guint64                 n,
                                   guint64                 seed,
                                   NapkinStochasticCounts *out)
{
  g_autoptr(NkRng) rng = NULL;
  NkDTypeRounding below, above;
  double sum = 0;

  g_return_val_if_fail (out != NULL, FALSE);
  if (!nk_dtype_is_float (dtype) || !isfinite (value) || n == 0)
    return FALSE;

  rng = nk_rng_new (seed);
  nk_dtype_round_with_mode (dtype, value, NK_OVERFLOW_SATURATE, NK_ROUNDING_MODE_DOWN, NULL,
                            &below);
  nk_dtype_round_with_mode (dtype, value, NK_OVERFLOW_SATURATE, NK_ROUNDING_MODE_UP, NULL,
                            &above);
  *out = (NapkinStochasticCounts) {
    .value = value, .below = below.value, .above = above.value, .n = n,
  };
  for (guint64 i = 0; i < n; i++)
    {
      NkDTypeRounding r;

      nk_dtype_round_with_mode (dtype, value, NK_OVERFLOW_SATURATE, NK_ROUNDING_MODE_STOCHASTIC,
                                rng, &r);
      sum += r.value;
      if (r.value == above.value)
        out->n_above++;
      else if (r.value == below.value)
        out->n_below++;
      else
        out->n_other++;
    }
  out->mean = sum / n;
  return TRUE;
}

/**
 * napkin_rounding_running_sum:
 * @dtype: a floating-point format
 * @addend: what is added at each step
 * @n_steps: how many additions
 * @mode: how each partial sum is rounded back into @dtype
 * @seed: the seed of the generator %NK_ROUNDING_MODE_STOCHASTIC draws from
 * @out: (nullable): a series to fill with (0, 0) and (k, s_k) for k = 1..@n_steps
 *   (cleared first)
 *
 * Returns: the final sum s_@n_steps
 */
double
napkin_rounding_running_sum (NkDType         dtype,
                             double          addend,
                             guint           n_steps,
                             NkRoundingMode  mode,
                             guint64         seed,
                             NapkinSeries   *out)
{
  g_autoptr(NkRng) rng = nk_rng_new (seed);
  double sum = 0;

  g_return_val_if_fail (nk_dtype_is_float (dtype), NAN);

  if (out != NULL)
    {
      napkin_series_clear (out);
      napkin_series_begin_update (out);
      napkin_series_append (out, 0, 0);
    }
  for (guint k = 1; k <= n_steps; k++)
    {
      NkDTypeRounding r;

      nk_dtype_round_with_mode (dtype, sum + addend, NK_OVERFLOW_DEFAULT, mode, rng, &r);
      sum = r.value;
      if (out != NULL)
        napkin_series_append (out, k, sum);
    }
  if (out != NULL)
    napkin_series_end_update (out);
  return sum;
}
