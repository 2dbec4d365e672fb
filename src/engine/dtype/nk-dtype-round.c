/* nk-dtype-round.c: rounding a double into a format, in every rounding mode
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One encoder for every floating-point format: the value's magnitude is cut to
 * the format's quantum in its binade (the truncated pattern), and the mode
 * decides whether the next pattern up in magnitude is taken instead. Patterns
 * grow with magnitude across binades (a carry out of the fraction is the next
 * exponent), so "the next value away from zero" is the pattern plus one.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-dtype.h"
#include "nk-dtype-private.h"

/* What decided a pattern besides rounding: nk_dtype_round_with_mode()'s status. */
typedef enum {
  NOTE_NONE,
  NOTE_OVERFLOWED,      /* past max (or an infinity that did not stay one) */
  NOTE_TOWARD_ZERO_MAX, /* past max, but the mode rounds it toward zero: ±max */
  NOTE_UNREPRESENTABLE, /* NaN in fp6/fp4; zero or negative in e8m0 */
} Note;

static guint64
overflow_bits (const NkDTypeInfo *info,
               guint64            sign,
               NkOverflow         overflow)
{
  if (overflow == NK_OVERFLOW_SATURATE || info->nan_style == NK_NAN_NONE)
    return sign | nk_dtype_max_magnitude (info);
  if (info->has_inf)
    return sign | nk_dtype_inf_magnitude (info);
  if (info->nan_style == NK_NAN_NEGATIVE_ZERO)
    return nk_dtype_nan_magnitude (info);
  return sign | nk_dtype_nan_magnitude (info);
}

/* Whether the mode rounds a value of this sign toward zero. */
static gboolean
toward_zero (NkRoundingMode mode,
             gboolean       negative)
{
  return mode == NK_ROUNDING_MODE_TOWARD_ZERO ||
         (mode == NK_ROUNDING_MODE_DOWN && !negative) ||
         (mode == NK_ROUNDING_MODE_UP && negative);
}

/* Whether to take the neighbour away from zero. @half: the remainder against
 * half a quantum (−1, 0, +1); @frac: the remainder in quanta, in (0, 1); @u: the
 * stochastic draw in [0, 1). */
static gboolean
rounds_away (NkRoundingMode mode,
             gboolean       negative,
             int            half,
             gboolean       lo_odd,
             double         frac,
             double         u)
{
  switch (mode)
    {
    case NK_ROUNDING_MODE_NEAREST_EVEN:
      return half > 0 || (half == 0 && lo_odd);
    case NK_ROUNDING_MODE_UP:
      return !negative;
    case NK_ROUNDING_MODE_DOWN:
      return negative;
    case NK_ROUNDING_MODE_STOCHASTIC:
      return u < frac;
    case NK_ROUNDING_MODE_TOWARD_ZERO:
    default:
      return FALSE;
    }
}

/* E8M0: 2^(b − 127), b in 0..254; 0xff NaN; no sign, no zero. Nearest-even is the
 * OCP scale's floor (see the header), so it rounds toward zero like down and zero;
 * values below 2^−127 become 2^−127 in every mode. */
static guint64
encode_e8m0 (double          value,
             NkOverflow      overflow,
             NkRoundingMode  mode,
             double          u,
             Note           *note)
{
  double f, frac;
  int e, k;
  gboolean away;

  if (isnan (value))
    return 0xff;
  if (value <= 0 || signbit (value))
    {
      *note = NOTE_UNREPRESENTABLE;
      return 0xff;
    }
  if (isinf (value))
    {
      *note = NOTE_OVERFLOWED;
      return overflow == NK_OVERFLOW_SATURATE ? 0xfe : 0xff;
    }

  f = frexp (value, &e);
  k = e - 1;                   /* 2^k <= value < 2^(k+1) */
  frac = 2.0 * f - 1.0;        /* value / 2^k − 1, exact */
  if (frac == 0)
    away = FALSE;
  else if (mode == NK_ROUNDING_MODE_UP)
    away = TRUE;
  else if (mode == NK_ROUNDING_MODE_STOCHASTIC)
    away = u < frac;
  else
    away = FALSE;
  k += away;
  if (k < -127)
    return 0x00;
  if (k > 127)
    {
      /* as encode_float: past max, only the modes that round toward zero keep max */
      if (mode != NK_ROUNDING_MODE_UP && mode != NK_ROUNDING_MODE_STOCHASTIC)
        {
          *note = NOTE_TOWARD_ZERO_MAX;
          return 0xfe;
        }
      *note = NOTE_OVERFLOWED;
      return overflow == NK_OVERFLOW_SATURATE ? 0xfe : 0xff;
    }
  return (guint64) (k + 127);
}

/* Every other floating-point format: the table's layout. */
static guint64
encode_float (NkDType         dtype,
              double          value,
              NkOverflow      overflow,
              NkRoundingMode  mode,
              double          u,
              Note           *note)
{
  const NkDTypeInfo *info = nk_dtype_table_row (dtype);
  guint64 bits, sign, sig, md, n, rem, mant, mag;
  guint ed, m = info->mantissa_bits;
  int q, ex, e_eff, shift, emin, half;
  gint64 max_biased;
  gboolean negative, away;
  double frac;

  memcpy (&bits, &value, sizeof bits);
  negative = (bits >> 63) != 0;
  sign = negative ? nk_dtype_sign_bit (info) : 0;
  ed = (bits >> 52) & 0x7ff;
  md = bits & ((G_GUINT64_CONSTANT (1) << 52) - 1);

  if (ed == 0x7ff)
    {
      if (md != 0)
        {
          if (info->nan_style == NK_NAN_NONE)
            {
              *note = NOTE_UNREPRESENTABLE;
              return nk_dtype_max_magnitude (info);
            }
          if (info->nan_style == NK_NAN_NEGATIVE_ZERO)
            return nk_dtype_nan_magnitude (info);
          return sign | nk_dtype_nan_magnitude (info);
        }
      if (overflow == NK_OVERFLOW_DEFAULT && info->has_inf)
        return dtype == NK_DTYPE_F64 ? bits : sign | nk_dtype_inf_magnitude (info);
      *note = NOTE_OVERFLOWED;
      return overflow_bits (info, sign, overflow);
    }
  if (dtype == NK_DTYPE_F64)
    return bits;
  if (ed == 0 && md == 0)
    return info->nan_style == NK_NAN_NEGATIVE_ZERO ? 0 : sign;

  /* value = sig × 2^q exactly, with sig a 53-bit integer */
  sig = ed ? md | (G_GUINT64_CONSTANT (1) << 52) : md;
  q = (ed ? (int) ed : 1) - 1075;
  ex = q + 63 - __builtin_clzll (sig);
  emin = 1 - info->bias;
  e_eff = MAX (ex, emin);
  /* n = sig × 2^(q − (e_eff − m)) truncated: the magnitude in units of the
   * quantum 2^(e_eff − m) of the binade (or of the subnormals); rem the rest. */
  shift = e_eff - (int) m - q;
  if (shift <= 0)
    {
      n = sig << -shift;
      rem = 0;
      half = -1;
      frac = 0;
    }
  else if (shift >= 64)
    {
      n = 0;
      rem = sig;
      half = -1;  /* sig < 2^53 <= half a quantum */
      frac = ldexp ((double) sig, -shift);
    }
  else
    {
      guint64 h = G_GUINT64_CONSTANT (1) << (shift - 1);

      n = sig >> shift;
      rem = sig & ((G_GUINT64_CONSTANT (1) << shift) - 1);
      half = rem > h ? 1 : rem == h ? 0 : -1;
      frac = ldexp ((double) rem, -shift);  /* rem < 2^53: exact */
    }
  away = rem != 0 && rounds_away (mode, negative, half, (n & 1) != 0, frac, u);
  n += away;
  if (n >> (m + 1))
    {
      e_eff++;
      n >>= 1;
    }

  if (n < (G_GUINT64_CONSTANT (1) << m))
    mag = n;  /* subnormal or zero: biased exponent 0 */
  else
    {
      mant = n - (G_GUINT64_CONSTANT (1) << m);
      max_biased = (gint64) (nk_dtype_max_magnitude (info) >> m);
      if ((gint64) e_eff + info->bias > max_biased ||
          ((gint64) e_eff + info->bias == max_biased &&
           mant > (nk_dtype_max_magnitude (info) & nk_dtype_mantissa_mask (info))))
        {
          if (toward_zero (mode, negative))
            {
              *note = NOTE_TOWARD_ZERO_MAX;
              return sign | nk_dtype_max_magnitude (info);
            }
          *note = NOTE_OVERFLOWED;
          return overflow_bits (info, sign, overflow);
        }
      mag = ((guint64) (e_eff + info->bias) << m) | mant;
    }
  if (mag == 0 && info->nan_style == NK_NAN_NEGATIVE_ZERO)
    return 0;  /* no −0: the pattern is NaN */
  return sign | mag;
}

static guint64
encode (NkDType         dtype,
        double          value,
        NkOverflow      overflow,
        NkRoundingMode  mode,
        NkRng          *rng,
        Note           *note)
{
  /* One draw per value whatever the value, so item i always uses draw i. */
  double u = mode == NK_ROUNDING_MODE_STOCHASTIC ? nk_rng_uniform_double (rng) : 0.0;

  *note = NOTE_NONE;
  if (dtype == NK_DTYPE_E8M0)
    return encode_e8m0 (value, overflow, mode, u, note);
  return encode_float (dtype, value, overflow, mode, u, note);
}

static gboolean
mode_args_ok (NkDType        dtype,
              NkRoundingMode mode,
              NkRng         *rng)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), FALSE);
  g_return_val_if_fail ((guint) mode <= NK_ROUNDING_MODE_STOCHASTIC, FALSE);
  g_return_val_if_fail (mode != NK_ROUNDING_MODE_STOCHASTIC || rng != NULL, FALSE);
  return TRUE;
}

/**
 * nk_dtype_encode_with_mode:
 * @dtype: a floating-point format
 * @value: any double
 * @overflow: what a magnitude beyond the largest finite value becomes
 * @mode: how to pick between the two representable neighbours of @value
 * @rng: (nullable): the generator %NK_ROUNDING_MODE_STOCHASTIC draws from, one
 *   draw per call whatever @value is; unused (may be %NULL) in the other modes
 *
 * Rounds @value once to @dtype in @mode, with gradual underflow and the sign of
 * zero kept (except in the fnuz formats, which have no −0). Overflow is the rule
 * of #NkRoundingMode; NaN, infinities and what a format cannot hold are the
 * rules at the top of nk-dtype.h. %NK_ROUNDING_MODE_NEAREST_EVEN is
 * nk_dtype_encode().
 *
 * Returns: the pattern
 */
guint64
nk_dtype_encode_with_mode (NkDType        dtype,
                           double         value,
                           NkOverflow     overflow,
                           NkRoundingMode mode,
                           NkRng         *rng)
{
  Note note;

  if (!mode_args_ok (dtype, mode, rng))
    return 0;
  return encode (dtype, value, overflow, mode, rng, &note);
}

/**
 * nk_dtype_encode:
 * @dtype: a floating-point format
 * @value: any double
 * @overflow: what a magnitude beyond the largest finite value becomes
 *
 * Rounds @value once to @dtype: to nearest, ties to even, with gradual underflow
 * and the sign of zero kept. With %NK_OVERFLOW_DEFAULT a value whose rounded
 * magnitude passes the max becomes ±inf, or NaN in a format without infinities
 * (e4m3: 464 → 448, 465 → NaN, inf → NaN); with %NK_OVERFLOW_SATURATE it and
 * ±inf become ±max. NaN becomes the canonical quiet NaN with @value's sign.
 * E8M0 takes the power of two at or below @value (the OCP scale's rule).
 *
 * Returns: the pattern
 */
guint64
nk_dtype_encode (NkDType    dtype,
                 double     value,
                 NkOverflow overflow)
{
  Note note;

  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  return encode (dtype, value, overflow, NK_ROUNDING_MODE_NEAREST_EVEN, NULL, &note);
}

/**
 * nk_dtype_round_with_mode:
 * @dtype: a floating-point format
 * @value: any double
 * @overflow: what a magnitude beyond the largest finite value becomes
 * @mode: how to pick between the two representable neighbours of @value
 * @rng: (nullable): the generator %NK_ROUNDING_MODE_STOCHASTIC draws from (one
 *   draw per call); unused (may be %NULL) in the other modes
 * @out: (out caller-allocates): the pattern, its value, the error and the status
 *
 * Rounds @value as nk_dtype_encode_with_mode() does and reports what that did
 * to it, as nk_dtype_round() does. A value past max that @mode rounds toward
 * zero is %NK_ROUNDING_SATURATED; a value the format cannot hold is
 * %NK_ROUNDING_UNREPRESENTABLE, with errors NaN.
 *
 * Returns: %TRUE (%FALSE on a programmer error: not a float format, or
 *   %NK_ROUNDING_MODE_STOCHASTIC without @rng)
 */
gboolean
nk_dtype_round_with_mode (NkDType          dtype,
                          double           value,
                          NkOverflow       overflow,
                          NkRoundingMode   mode,
                          NkRng           *rng,
                          NkDTypeRounding *out)
{
  NkDTypeDecoded decoded;
  Note note;

  if (!mode_args_ok (dtype, mode, rng))
    return FALSE;
  g_return_val_if_fail (out != NULL, FALSE);

  out->bits = encode (dtype, value, overflow, mode, rng, &note);
  nk_dtype_decode (dtype, out->bits, &decoded);
  out->value = decoded.value;
  if (note == NOTE_UNREPRESENTABLE)
    {
      out->abs_error = NAN;
      out->rel_error = NAN;
      out->status = NK_ROUNDING_UNREPRESENTABLE;
      return TRUE;
    }
  out->abs_error = value == decoded.value ? 0.0 : value - decoded.value;
  out->rel_error = out->abs_error == 0 ? 0.0 : out->abs_error / fabs (value);

  if (isnan (value))
    out->status = NK_ROUNDING_EXACT;
  else if (note == NOTE_OVERFLOWED)
    out->status = decoded.klass == NK_DTYPE_CLASS_NAN ? NK_ROUNDING_OVERFLOW_TO_NAN
                : decoded.klass == NK_DTYPE_CLASS_INF ? NK_ROUNDING_OVERFLOW_TO_INF
                : NK_ROUNDING_SATURATED;
  else if (note == NOTE_TOWARD_ZERO_MAX)
    out->status = NK_ROUNDING_SATURATED;
  else if (value == decoded.value)
    out->status = NK_ROUNDING_EXACT;
  else if (decoded.klass == NK_DTYPE_CLASS_ZERO)
    out->status = NK_ROUNDING_UNDERFLOW_TO_ZERO;
  else if (decoded.klass == NK_DTYPE_CLASS_SUBNORMAL)
    out->status = NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL;
  else
    out->status = NK_ROUNDING_ROUNDED;
  return TRUE;
}

/**
 * nk_dtype_round:
 * @dtype: a floating-point format
 * @value: any double
 * @overflow: what a magnitude beyond the largest finite value becomes
 * @out: (out caller-allocates): the pattern, its value, the error and the status
 *
 * Rounds @value as nk_dtype_encode() does and reports what that did to it.
 *
 * The error is CLI.md's: @out->abs_error is @value minus the decoded value, and
 * @out->rel_error is that over |@value|. Equal values have no error, so a zero
 * or an infinity that the format keeps has 0 and 0, not inf − inf or 0 / 0. Where
 * the difference has no finite answer it is what IEEE arithmetic says: 1e-8
 * rounded to +0 in f16 has abs_error 1e-8 and rel_error 1; a finite value
 * overflowed to +inf has −inf and −inf; ±inf saturated to ±max has ±inf and NaN;
 * anything that became NaN, and a NaN input, has NaN and NaN.
 *
 * The status: a NaN input stays NaN and counts as %NK_ROUNDING_EXACT (only its
 * payload is dropped). A value that passes max, or an infinity that does not
 * stay one, is %NK_ROUNDING_SATURATED, %NK_ROUNDING_OVERFLOW_TO_INF or
 * %NK_ROUNDING_OVERFLOW_TO_NAN as @overflow and the format decide. Otherwise it
 * is %NK_ROUNDING_EXACT when the format holds @value (subnormals included);
 * %NK_ROUNDING_UNDERFLOW_TO_ZERO when a nonzero value became ±0;
 * %NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL when it rounded to a subnormal; and
 * %NK_ROUNDING_ROUNDED when it rounded to a normal value (a value just below the
 * smallest normal that rounds up to it included). What the format cannot hold
 * at all is %NK_ROUNDING_UNREPRESENTABLE.
 *
 * Returns: %TRUE (%FALSE on a programmer error: not a float format)
 */
gboolean
nk_dtype_round (NkDType          dtype,
                double           value,
                NkOverflow       overflow,
                NkDTypeRounding *out)
{
  return nk_dtype_round_with_mode (dtype, value, overflow,
                                   NK_ROUNDING_MODE_NEAREST_EVEN, NULL, out);
}

static const char *const mode_names[] = { "nearest", "up", "down", "zero", "stochastic" };

/**
 * nk_rounding_mode_to_string:
 * @mode: a rounding mode
 *
 * The mode as CLI.md's --rounding spells it (the GEnum nick).
 *
 * Returns: "nearest", "up", "down", "zero" or "stochastic"
 */
const char *
nk_rounding_mode_to_string (NkRoundingMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), NULL);

  return mode_names[mode];
}

/**
 * nk_rounding_mode_from_string:
 * @name: a --rounding name: nearest, up, down, zero or stochastic
 * @out_mode: (out): the mode
 *
 * Reads CLI.md's --rounding names, matched without regard to ASCII case.
 *
 * Returns: %TRUE when @name is one of them
 */
gboolean
nk_rounding_mode_from_string (const char     *name,
                              NkRoundingMode *out_mode)
{
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (out_mode != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_ascii_strcasecmp (name, mode_names[i]) == 0)
      {
        *out_mode = (NkRoundingMode) i;
        return TRUE;
      }
  return FALSE;
}
