/* nk-units.c: numbers as people type them ("70B", "15T", "7e10") and as they read them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-units.h"

/**
 * nk_units_error_quark:
 *
 * The error domain of nk_units_parse(): text that is not a number a person plans with.
 *
 * Returns: the #GQuark of %NK_UNITS_ERROR
 */
G_DEFINE_QUARK (nk-units-error-quark, nk_units_error)

/**
 * nk_units_parse:
 * @text: what the person typed: "70e9", "70B", "15T", "0.5", " 1.5 k "
 * @out_value: (out): the value
 * @error: a sentence naming @text when it is not a finite number
 *
 * Parses plain and scientific notation with an optional suffix K, M, B or G, T
 * (×1e3, 1e6, 1e9, 1e12; case-insensitive). Infinity, NaN and values beyond the
 * range of a double ("1e400") are refused rather than passed on.
 *
 * Returns: %TRUE when @text is a finite number
 */
gboolean
nk_units_parse (const char  *text,
                double      *out_value,
                GError     **error)
{
  g_autofree char *copy = NULL;
  const char *p;
  char *end = NULL;
  double value, scale = 1.0;

  g_return_val_if_fail (out_value != NULL, FALSE);

  copy = g_strstrip (g_strdup (text ? text : ""));
  if (copy[0] == '\0')
    {
      g_set_error (error, NK_UNITS_ERROR, NK_UNITS_ERROR_EMPTY,
                   _("Enter a number"));
      return FALSE;
    }

  /* strtod would also take "inf", "nan" and hex floats, which are not numbers a
   * person plans with. */
  p = copy;
  if (*p == '+' || *p == '-')
    p++;
  if ((!g_ascii_isdigit (*p) && *p != '.') || strpbrk (copy, "xX") != NULL)
    goto invalid;

  value = g_ascii_strtod (copy, &end);
  if (end == copy)
    goto invalid;
  while (*end == ' ')
    end++;
  switch (g_ascii_toupper (*end))
    {
    case '\0': break;
    case 'K': scale = 1e3; end++; break;
    case 'M': scale = 1e6; end++; break;
    case 'B':
    case 'G': scale = 1e9; end++; break;
    case 'T': scale = 1e12; end++; break;
    default: goto invalid;
    }
  if (*end != '\0')
    goto invalid;

  value *= scale;
  if (!isfinite (value))
    {
      g_set_error (error, NK_UNITS_ERROR, NK_UNITS_ERROR_RANGE,
                   _("“%s” is too large for a double-precision number"), copy);
      return FALSE;
    }

  *out_value = value;
  return TRUE;

invalid:
  g_set_error (error, NK_UNITS_ERROR, NK_UNITS_ERROR_INVALID,
               _("“%s” is not a number (write e.g. 70e9, 70B or 0.5)"), copy);
  return FALSE;
}

/**
 * nk_units_format_bytes:
 * @bytes: a byte count
 *
 * Formats with binary prefixes, three significant digits: "1.12 TiB", "512 B".
 *
 * Returns: (transfer full): the text
 */
char *
nk_units_format_bytes (double bytes)
{
  static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  guint i = 0;
  double v = fabs (bytes);

  if (!isfinite (bytes))
    return g_strdup ("—");
  while (v >= 1024.0 && i + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      i++;
    }
  if (i == 0)
    return g_strdup_printf ("%.0f B", bytes);
  return g_strdup_printf ("%s%.3g %s", bytes < 0 ? "-" : "", v, units[i]);
}

/**
 * nk_units_format_sci:
 * @value: a value
 * @digits: digits after the point
 *
 * Scientific notation as the lecture writes it: "6.3e24", "1.0e+00" becomes "1.0e0".
 *
 * Returns: (transfer full): the text, "—" when @value is not finite
 */
char *
nk_units_format_sci (double value,
                     int    digits)
{
  char buf[64];
  char *e;
  int exponent;

  if (!isfinite (value))
    return g_strdup ("—");
  g_snprintf (buf, sizeof buf, "%.*e", digits, value);
  e = strchr (buf, 'e');
  if (e == NULL)
    return g_strdup (buf);
  exponent = atoi (e + 1);
  *e = '\0';
  return g_strdup_printf ("%se%d", buf, exponent);
}

/**
 * nk_units_format_duration:
 * @seconds: a duration
 *
 * From two years on, durations are in Julian years of 365.25 days: nobody reads
 * "10527.2 days" as 28.8 years.
 *
 * Returns: (transfer full): "28.8 years", "143.9 days", "5.2 h", "3.1 min",
 *   "12.0 s", "850 ms"
 */
char *
nk_units_format_duration (double seconds)
{
  const double year = 365.25 * 86400.0;

  if (!isfinite (seconds) || seconds < 0)
    return g_strdup ("—");
  if (seconds >= 2 * year)
    return g_strdup_printf (_("%.1f years"), seconds / year);
  if (seconds >= 2 * 86400.0)
    return g_strdup_printf (_("%.1f days"), seconds / 86400.0);
  if (seconds >= 2 * 3600.0)
    return g_strdup_printf (_("%.1f h"), seconds / 3600.0);
  if (seconds >= 120.0)
    return g_strdup_printf (_("%.1f min"), seconds / 60.0);
  if (seconds >= 1.0)
    return g_strdup_printf (_("%.1f s"), seconds);
  if (seconds >= 1e-3)
    return g_strdup_printf (_("%.3g ms"), seconds * 1e3);
  return g_strdup_printf (_("%.3g µs"), seconds * 1e6);
}

/**
 * nk_units_format_rate:
 * @flops_per_s: a rate
 *
 * A FLOP rate with an SI prefix and four significant digits; "—" when not finite or
 * negative.
 *
 * Returns: (transfer full): "989.5 TFLOP/s", "54.0 GFLOP/s"
 */
char *
nk_units_format_rate (double flops_per_s)
{
  static const char *prefixes[] = { "", "K", "M", "G", "T", "P", "E" };
  guint i = 0;
  double v = flops_per_s;

  if (!isfinite (flops_per_s) || flops_per_s < 0)
    return g_strdup ("—");
  while (v >= 1000.0 && i + 1 < G_N_ELEMENTS (prefixes))
    {
      v /= 1000.0;
      i++;
    }
  return g_strdup_printf ("%.4g %sFLOP/s", v, prefixes[i]);
}
