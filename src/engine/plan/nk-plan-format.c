/* nk-plan-format.c: numbers as the planner's formulas and summary write them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-plan-format.h"
#include "nk-units.h"

/**
 * nk_plan_format_append_number:
 * @s: a string
 * @value: a number
 *
 * Appends a number inside a formula: plain for small whole numbers (1024, 86400),
 * otherwise the lecture's short scientific notation with up to four significant
 * digits (7.0e10, 9.895e14, 6.3e24); "—" when not finite.
 */
void
nk_plan_format_append_number (GString *s,
                              double   value)
{
  char buf[64];
  char *e, *end;
  int exponent;

  if (!isfinite (value))
    {
      g_string_append (s, "—");
      return;
    }
  if (value == floor (value) && fabs (value) < 1e6)
    {
      g_string_append_printf (s, "%.0f", value);
      return;
    }
  if (fabs (value) >= 1e3 && fabs (value) < 1e6)
    {
      g_string_append_printf (s, "%.0f", value);
      return;
    }
  if (fabs (value) >= 1e-3 && fabs (value) < 1e3)
    {
      g_snprintf (buf, sizeof buf, "%.4g", value);
      g_string_append (s, buf);
      return;
    }
  g_snprintf (buf, sizeof buf, "%.3e", value);
  e = strchr (buf, 'e');
  exponent = atoi (e + 1);
  *e = '\0';
  /* Trim trailing zeros but keep one decimal: 7.000 -> 7.0, 9.895 stays. */
  end = e - 1;
  while (end > buf + 2 && *end == '0' && end[-1] != '.')
    *end-- = '\0';
  g_string_append_printf (s, "%se%d", buf, exponent);
}

/**
 * nk_plan_format_number:
 * @value: a number
 *
 * Formats a number the way the plan's formulas show it.
 *
 * Returns: (transfer full): @value as nk_plan_format_append_number() writes it
 */
char *
nk_plan_format_number (double value)
{
  GString *s = g_string_new (NULL);

  nk_plan_format_append_number (s, value);
  return g_string_free (s, FALSE);
}

/**
 * nk_plan_format_formula:
 * @format: a template where %N is a double, %s a string and %% a percent sign
 * @...: the values, in order
 *
 * A tiny printf for formula templates: %N writes a number as
 * nk_plan_format_append_number() does; it keeps the templates readable and
 * translatable. A literal percent sign is written %%, as in every printf
 * template a translator sees ("(1 − %N %% reserve)").
 *
 * Returns: (transfer full): the text
 */
char *
nk_plan_format_formula (const char *format,
                        ...)
{
  GString *s = g_string_new (NULL);
  va_list args;

  va_start (args, format);
  for (const char *p = format; *p; p++)
    {
      if (p[0] == '%' && p[1] == 'N')
        {
          nk_plan_format_append_number (s, va_arg (args, double));
          p++;
        }
      else if (p[0] == '%' && p[1] == 's')
        {
          g_string_append (s, va_arg (args, const char *));
          p++;
        }
      else if (p[0] == '%' && p[1] == '%')
        {
          g_string_append_c (s, '%');
          p++;
        }
      else
        g_string_append_c (s, *p);
    }
  va_end (args);
  return g_string_free (s, FALSE);
}

/**
 * nk_plan_format_days_number:
 * @days: a number of days
 *
 * Days as the lecture writes them inside a formula, "143.9"; with four
 * significant digits where one decimal would say "0.0" or print twenty digits
 * (0.005483, 1.755e22).
 *
 * Returns: (transfer full): the number, "—" when not finite
 */
char *
nk_plan_format_days_number (double days)
{
  if (!isfinite (days))
    return g_strdup ("—");
  if (days < 0.05 || days >= 1e6)
    return nk_plan_format_number (days);
  return g_strdup_printf ("%.1f", days);
}

/**
 * nk_plan_format_days:
 * @days: a duration in days
 *
 * Days as the lecture gives them ("143.9 days"); under a day, hours or minutes
 * ("7.9 min", not "0.0 days"); past a million days, without twenty digits.
 *
 * Returns: (transfer full): the text, "—" when not finite
 */
char *
nk_plan_format_days (double days)
{
  g_autofree char *n = NULL;

  if (!isfinite (days))
    return g_strdup ("—");
  if (days < 1)
    return nk_units_format_duration (days * 86400.0);
  if (days < 1e6)
    return g_strdup_printf (_("%.1f days"), days);
  n = nk_plan_format_number (days);
  return g_strdup_printf (_("%s days"), n);
}

/**
 * nk_plan_format_seconds:
 * @seconds: a duration in seconds
 *
 * Formats a time of the cluster model (a step, a communication) for the summary.
 *
 * Returns: (transfer full): nk_units_format_duration()'s text, "—" when not finite
 */
char *
nk_plan_format_seconds (double seconds)
{
  return isfinite (seconds) ? nk_units_format_duration (seconds) : g_strdup ("—");
}

/**
 * nk_plan_format_bytes:
 * @bytes: a number of bytes
 *
 * Formats a memory size for the summary, with the exact count beside the rounded
 * one so the two can be checked against each other.
 *
 * Returns: (transfer full): binary units with the exact count beside them,
 *   "596 GiB (6.4e11 B)"; under 1 KiB just "512 B"; "—" when not finite
 */
char *
nk_plan_format_bytes (double bytes)
{
  g_autofree char *binary = nk_units_format_bytes (bytes);
  g_autofree char *sci = NULL;

  if (!isfinite (bytes))
    return g_strdup ("—");
  if (bytes < 1024)
    return g_steal_pointer (&binary);
  sci = nk_plan_format_number (bytes);
  return g_strdup_printf ("%s (%s B)", binary, sci);
}

/**
 * nk_plan_format_with_unit:
 * @value: a number
 * @unit: its unit ("FLOPs", "GPU-h")
 *
 * Formats a number as nk_plan_format_number() does, followed by its unit.
 *
 * Returns: (transfer full): "6.3e24 FLOPs"; "—" when not finite
 */
char *
nk_plan_format_with_unit (double      value,
                          const char *unit)
{
  g_autofree char *n = nk_plan_format_number (value);

  if (!isfinite (value))
    return g_strdup ("—");
  return g_strdup_printf ("%s %s", n, unit);
}

/**
 * nk_plan_format_row:
 * @s: the summary being written
 * @label: the row's label
 * @value: its value as text
 * @formula_text: (nullable): the formula behind it
 *
 * Appends one summary row: the label in 18 characters, the value in 22, the
 * formula, no trailing spaces, a newline. Pads by characters, not bytes (labels
 * and values carry "×" and "—").
 */
void
nk_plan_format_row (GString    *s,
                    const char *label,
                    const char *value,
                    const char *formula_text)
{
  glong label_len = g_utf8_strlen (label, -1);
  glong value_len = g_utf8_strlen (value, -1);

  g_string_append_printf (s, "  %s%*s  %s%*s", label, (int) MAX (0, 18 - label_len), "",
                          value, (int) MAX (0, 22 - value_len), "");
  if (formula_text != NULL)
    g_string_append_printf (s, "  %s", formula_text);
  while (s->len > 0 && s->str[s->len - 1] == ' ')
    g_string_truncate (s, s->len - 1);
  g_string_append_c (s, '\n');
}
