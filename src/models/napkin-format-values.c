/* napkin-format-values.c: every code of a narrow format, its value and its class
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The all-values table of the Number formats page: for a format of up to eight
 * bits, one #NapkinTextRow per code, 0 to 2^bits − 1, with the code in hex and
 * in binary field by field, the value nk_dtype_decode() gives it (the shortest
 * decimal that reads back as exactly that double) and its class. 256 rows are
 * made in well under a millisecond, so the model is built whole.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "napkin-format-values.h"
#include "napkin-text-row.h"

/**
 * napkin_format_values_titles:
 *
 * Returns: (transfer none): the table's column titles, translated
 */
const char *const *
napkin_format_values_titles (void)
{
  static const char *titles[NAPKIN_VALUES_N_COLUMNS + 1];

  if (titles[0] == NULL)
    {
      titles[NAPKIN_VALUES_COLUMN_HEX] = _("Code");
      titles[NAPKIN_VALUES_COLUMN_BINARY] = _("Bits");
      titles[NAPKIN_VALUES_COLUMN_VALUE] = _("Value");
      titles[NAPKIN_VALUES_COLUMN_CLASS] = _("Class");
    }
  return titles;
}

/**
 * napkin_format_values_supports:
 * @dtype: a format
 *
 * Returns: whether @dtype is a float format of at most
 *   %NAPKIN_FORMAT_VALUES_MAX_BITS bits
 */
gboolean
napkin_format_values_supports (NkDType dtype)
{
  return nk_dtype_is_float (dtype) &&
         nk_dtype_info (dtype)->bits <= NAPKIN_FORMAT_VALUES_MAX_BITS;
}

/**
 * napkin_format_values_shortest:
 * @value: a double
 *
 * Returns: (transfer full): the shortest decimal that reads back as @value
 *   ("448", "0.001953125", "1.7014118346046923e38"), "NaN", "∞", "−0"
 */
char *
napkin_format_values_shortest (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const char *e;

  if (isnan (value))
    return g_strdup ("NaN");
  if (isinf (value))
    return g_strdup (value < 0 ? "−∞" : "∞");
  if (value == 0)
    return g_strdup (signbit (value) ? "−0" : "0");
  /* "240", not "2.4e2" */
  if (value == nearbyint (value) && fabs (value) < 1e15)
    return g_strdup_printf ("%.0f", value);
  for (int digits = 1; digits <= 17; digits++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  e = strchr (buf, 'e');
  if (e == NULL)
    return g_strdup (buf);
  return g_strdup_printf ("%.*se%d", (int) (e - buf), buf, atoi (e + 1));
}

/**
 * napkin_format_values_new:
 * @dtype: a format napkin_format_values_supports()
 *
 * Returns: (transfer full): a #GListModel of #NapkinTextRow, one per code in
 *   order, cells as #NapkinValuesColumn, each marked with its class's
 *   untranslated name ("normal", "nan" ...)
 */
GListModel *
napkin_format_values_new (NkDType dtype)
{
  GListStore *store = g_list_store_new (NAPKIN_TYPE_TEXT_ROW);
  guint n;

  g_return_val_if_fail (napkin_format_values_supports (dtype), G_LIST_MODEL (store));

  n = 1u << nk_dtype_info (dtype)->bits;
  for (guint bits = 0; bits < n; bits++)
    {
      g_autoptr(NapkinTextRow) row = NULL;
      NkDTypeDecoded decoded;
      g_autofree char *hex = nk_dtype_format_bits (dtype, bits);
      g_autofree char *binary = nk_dtype_format_binary (dtype, bits, " ");
      g_autofree char *value = NULL;

      nk_dtype_decode (dtype, bits, &decoded);
      value = napkin_format_values_shortest (decoded.value);
      row = napkin_text_row_new (nk_dtype_class_to_string (decoded.klass), hex, binary, value,
                                 nk_dtype_class_display_name (decoded.klass), NULL);
      g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}
