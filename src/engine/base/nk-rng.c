/* nk-rng.c: Philox4x32-10 and the distributions drawn from it
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "nk-rng.h"

/**
 * nk_rng_error_quark:
 *
 * The error domain of the random generator: a saved state that does not parse.
 *
 * Returns: the #GQuark of %NK_RNG_ERROR
 */
G_DEFINE_QUARK (nk-rng-error-quark, nk_rng_error)

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u  /* golden ratio */
#define PHILOX_W1 0xBB67AE85u  /* sqrt(3) - 1 */

#define STATE_PREFIX "philox4x32-10:"

struct _NkRng
{
  guint64 seed;
  guint64 counter;

  /* One computed block, so four consecutive words cost one Philox call. Derived
   * entirely from (seed, block): never part of the state. */
  gboolean cache_valid;
  guint64  cache_block;
  guint32  cache[4];
};

G_DEFINE_BOXED_TYPE (NkRng, nk_rng, nk_rng_copy, nk_rng_free)

void
nk_philox4x32_10 (const guint32 ctr[4],
                  const guint32 key[2],
                  guint32       out[4])
{
  guint32 c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  guint32 k0 = key[0], k1 = key[1];

  for (guint round = 0; round < 10; round++)
    {
      guint64 p0 = (guint64) PHILOX_M0 * c0;
      guint64 p1 = (guint64) PHILOX_M1 * c2;
      guint32 hi0 = (guint32) (p0 >> 32), lo0 = (guint32) p0;
      guint32 hi1 = (guint32) (p1 >> 32), lo1 = (guint32) p1;

      c0 = hi1 ^ c1 ^ k0;
      c1 = lo1;
      c2 = hi0 ^ c3 ^ k1;
      c3 = lo0;

      k0 += PHILOX_W0;
      k1 += PHILOX_W1;
    }

  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/**
 * nk_rng_new:
 * @seed: the seed (the Philox key)
 *
 * Starts the stream of @seed at its first word.
 *
 * Returns: (transfer full): a generator at counter 0
 */
NkRng *
nk_rng_new (guint64 seed)
{
  return nk_rng_new_from_state (seed, 0);
}

/**
 * nk_rng_new_from_state:
 * @seed: a seed from nk_rng_get_state()
 * @counter: a counter from nk_rng_get_state()
 *
 * Restores a saved generator: the state is only these two numbers, so the new
 * generator draws the same words the saved one would have drawn next.
 *
 * Returns: (transfer full): a generator that continues exactly where the saved one was
 */
NkRng *
nk_rng_new_from_state (guint64 seed,
                       guint64 counter)
{
  NkRng *rng = g_new0 (NkRng, 1);

  rng->seed = seed;
  rng->counter = counter;
  return rng;
}

/**
 * nk_rng_copy:
 * @rng: a generator
 *
 * Copies the state; the copy and @rng then draw the same words independently.
 *
 * Returns: (transfer full): a new generator at the same seed and counter
 */
NkRng *
nk_rng_copy (const NkRng *rng)
{
  g_return_val_if_fail (rng != NULL, NULL);

  return g_memdup2 (rng, sizeof *rng);
}

/**
 * nk_rng_free:
 * @rng: (transfer full) (nullable): a generator
 *
 * Frees a generator from nk_rng_new() or its siblings.
 */
void
nk_rng_free (NkRng *rng)
{
  g_free (rng);
}

/**
 * nk_rng_get_state:
 * @rng: a generator
 * @out_seed: (out) (optional): the seed
 * @out_counter: (out) (optional): the number of 32-bit words drawn so far
 *
 * The whole state, what a checkpoint saves (nk_rng_new_from_state() restores it).
 */
void
nk_rng_get_state (const NkRng *rng,
                  guint64     *out_seed,
                  guint64     *out_counter)
{
  g_return_if_fail (rng != NULL);

  if (out_seed)
    *out_seed = rng->seed;
  if (out_counter)
    *out_counter = rng->counter;
}

/**
 * nk_rng_set_state:
 * @rng: a generator
 * @seed: the new seed
 * @counter: the new counter, in 32-bit words
 *
 * Moves @rng to word @counter of the stream of @seed, as if it had been made there
 * with nk_rng_new_from_state().
 */
void
nk_rng_set_state (NkRng   *rng,
                  guint64  seed,
                  guint64  counter)
{
  g_return_if_fail (rng != NULL);

  rng->seed = seed;
  rng->counter = counter;
  rng->cache_valid = FALSE;
}

/**
 * nk_rng_get_seed:
 * @rng: a generator
 *
 * The seed the generator was made with (or set to).
 *
 * Returns: the seed
 */
guint64
nk_rng_get_seed (const NkRng *rng)
{
  g_return_val_if_fail (rng != NULL, 0);
  return rng->seed;
}

/**
 * nk_rng_get_counter:
 * @rng: a generator
 *
 * How far the stream has advanced; the top of nk-rng.h says how many words each
 * draw consumes.
 *
 * Returns: the number of 32-bit words drawn so far
 */
guint64
nk_rng_get_counter (const NkRng *rng)
{
  g_return_val_if_fail (rng != NULL, 0);
  return rng->counter;
}

/**
 * nk_rng_to_string:
 * @rng: a generator
 *
 * The state as text, the form checkpoints keep in their metadata.
 *
 * Returns: (transfer full): "philox4x32-10:SEED:COUNTER" (decimal)
 */
char *
nk_rng_to_string (const NkRng *rng)
{
  g_return_val_if_fail (rng != NULL, NULL);

  return g_strdup_printf (STATE_PREFIX "%" PRIu64 ":%" PRIu64,
                          rng->seed, rng->counter);
}

/**
 * nk_rng_new_from_string:
 * @text: a string from nk_rng_to_string()
 * @error: return location for a #GError (%NK_RNG_ERROR_PARSE)
 *
 * Restores a generator from its text form.
 *
 * Returns: (transfer full) (nullable): the generator, or %NULL if @text is malformed
 */
NkRng *
nk_rng_new_from_string (const char  *text,
                        GError     **error)
{
  g_auto(GStrv) parts = NULL;
  guint64 seed, counter;

  g_return_val_if_fail (text != NULL, NULL);

  if (!g_str_has_prefix (text, STATE_PREFIX))
    goto bad;
  parts = g_strsplit (text + strlen (STATE_PREFIX), ":", -1);
  if (g_strv_length (parts) != 2
      || !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT64, &seed, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 0, G_MAXUINT64, &counter, NULL))
    goto bad;

  return nk_rng_new_from_state (seed, counter);

bad:
  g_set_error (error, NK_RNG_ERROR, NK_RNG_ERROR_PARSE,
               _("The random generator state “%s” is not of the form "
                 "“philox4x32-10:SEED:COUNTER”."), text);
  return NULL;
}

/**
 * nk_rng_next_u32:
 * @rng: a generator
 *
 * The next word of the stream (consumes 1 word).
 *
 * Returns: 32 random bits
 */
guint32
nk_rng_next_u32 (NkRng *rng)
{
  guint64 block = rng->counter >> 2;
  guint lane = rng->counter & 3;

  if (!rng->cache_valid || rng->cache_block != block)
    {
      guint32 ctr[4] = { (guint32) block, (guint32) (block >> 32), 0, 0 };
      guint32 key[2] = { (guint32) rng->seed, (guint32) (rng->seed >> 32) };

      nk_philox4x32_10 (ctr, key, rng->cache);
      rng->cache_block = block;
      rng->cache_valid = TRUE;
    }

  rng->counter++;
  return rng->cache[lane];
}

/**
 * nk_rng_next_u64:
 * @rng: a generator
 *
 * Two words of the stream, the first as the low half (consumes 2 words).
 *
 * Returns: 64 random bits
 */
guint64
nk_rng_next_u64 (NkRng *rng)
{
  guint64 lo = nk_rng_next_u32 (rng);
  guint64 hi = nk_rng_next_u32 (rng);

  return (hi << 32) | lo;
}

/**
 * nk_rng_uniform_float:
 * @rng: a generator
 *
 * A float uniform on [0, 1) with 24 random bits (consumes 1 word).
 *
 * Returns: the deviate
 */
float
nk_rng_uniform_float (NkRng *rng)
{
  return (float) (nk_rng_next_u32 (rng) >> 8) * 0x1p-24f;
}

/**
 * nk_rng_uniform_double:
 * @rng: a generator
 *
 * A double uniform on [0, 1) with 53 random bits (consumes 2 words).
 *
 * Returns: the deviate
 */
double
nk_rng_uniform_double (NkRng *rng)
{
  return (double) (nk_rng_next_u64 (rng) >> 11) * 0x1p-53;
}

/**
 * nk_rng_uniform_int:
 * @rng: a generator
 * @n: the bound, > 0
 *
 * Draws by rejection, so every value is equally likely (2 words per try).
 *
 * Returns: an integer uniform on [0, @n), without modulo bias
 */
guint64
nk_rng_uniform_int (NkRng   *rng,
                    guint64  n)
{
  guint64 threshold, x;

  g_return_val_if_fail (n > 0, 0);

  /* 2^64 mod n words are thrown away so every residue is equally likely. */
  threshold = (0 - n) % n;
  do
    x = nk_rng_next_u64 (rng);
  while (x < threshold);

  return x % n;
}

/* Two independent standard normals from two words (Box–Muller). u1 is in (0, 1] so
 * the log is finite; with 32-bit uniforms the largest magnitude is
 * sqrt(2·ln 2^32) ≈ 6.66, far beyond anything an init or a test needs. */
static inline void
normal_pair (NkRng  *rng,
             double *z0,
             double *z1)
{
  double u1 = ((double) nk_rng_next_u32 (rng) + 1.0) * 0x1p-32;
  double u2 = (double) nk_rng_next_u32 (rng) * 0x1p-32;
  double r = sqrt (-2.0 * log (u1));
  double theta = 2.0 * G_PI * u2;

  *z0 = r * cos (theta);
  if (z1)
    *z1 = r * sin (theta);
}

/**
 * nk_rng_normal:
 * @rng: a generator
 * @mean: the mean
 * @std: the standard deviation
 *
 * A deviate of N(@mean, @std²) by Box–Muller in double, the cosine branch only
 * (consumes 2 words).
 *
 * Returns: the deviate
 */
double
nk_rng_normal (NkRng  *rng,
               double  mean,
               double  std)
{
  double z;

  normal_pair (rng, &z, NULL);
  return mean + std * z;
}

double
nk_rng_truncated_normal (NkRng  *rng,
                         double  mean,
                         double  std,
                         double  a,
                         double  b)
{
  double z;

  g_return_val_if_fail (a < b, mean);

  do
    normal_pair (rng, &z, NULL);
  while (z < a || z > b);

  return mean + std * z;
}

/**
 * nk_rng_fill_uniform_f32:
 * @rng: a generator
 * @out: (array length=n): the buffer to fill
 * @n: the number of elements
 * @low: the lower bound
 * @high: the upper bound, above @low
 *
 * Fills @out with floats uniform on [@low, @high), one word each.
 */
void
nk_rng_fill_uniform_f32 (NkRng *rng,
                         float *out,
                         gsize  n,
                         float  low,
                         float  high)
{
  double span = (double) high - (double) low;

  for (gsize i = 0; i < n; i++)
    out[i] = (float) (low + span * nk_rng_uniform_float (rng));
}

/**
 * nk_rng_fill_normal_f32:
 * @rng: a generator
 * @out: (array length=n): the buffer to fill
 * @n: the number of elements
 * @mean: the mean
 * @std: the standard deviation
 *
 * Fills @out with N(@mean, @std²) deviates computed in double and rounded once to
 * float. Both Box–Muller branches are used, 2 words per pair; an odd last element
 * takes a pair and drops the sine.
 */
void
nk_rng_fill_normal_f32 (NkRng  *rng,
                        float  *out,
                        gsize   n,
                        double  mean,
                        double  std)
{
  gsize i = 0;

  for (; i + 1 < n; i += 2)
    {
      double z0, z1;

      normal_pair (rng, &z0, &z1);
      out[i] = (float) (mean + std * z0);
      out[i + 1] = (float) (mean + std * z1);
    }
  if (i < n)
    out[i] = (float) nk_rng_normal (rng, mean, std);
}

/**
 * nk_rng_fill_truncated_normal_f32:
 * @rng: a generator
 * @out: (array length=n): the buffer to fill
 * @n: the number of elements
 * @mean: the mean of the untruncated normal
 * @std: its standard deviation
 * @a: lower bound, in standard deviations from @mean
 * @b: upper bound, in standard deviations from @mean, @a < @b
 *
 * Truncated normals as nk_rng_truncated_normal() defines them, but candidates are
 * drawn as Box–Muller pairs (2 words per pair, both used), so the values differ
 * from @n scalar calls.
 */
void
nk_rng_fill_truncated_normal_f32 (NkRng  *rng,
                                  float  *out,
                                  gsize   n,
                                  double  mean,
                                  double  std,
                                  double  a,
                                  double  b)
{
  gsize i = 0;

  g_return_if_fail (a < b);

  /* Candidates come in Box–Muller pairs and are accepted in order; a pair's second
   * candidate is dropped when the buffer is already full. */
  while (i < n)
    {
      double z[2];

      normal_pair (rng, &z[0], &z[1]);
      for (guint k = 0; k < 2 && i < n; k++)
        if (z[k] >= a && z[k] <= b)
          out[i++] = (float) (mean + std * z[k]);
    }
}
