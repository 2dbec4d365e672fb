/* nk-json.c: JSON Lines output shared by napkin-cli and the app's exports
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "nk-json.h"

/**
 * nk_json_add_double:
 * @builder: a builder expecting a value
 * @value: a double
 *
 * Adds @value as a number, or as the string "nan", "inf" or "-inf" when it is not
 * finite: JSON has no such numbers and CLI.md promises the strings.
 */
void
nk_json_add_double (JsonBuilder *builder,
                    double       value)
{
  if (isnan (value))
    json_builder_add_string_value (builder, "nan");
  else if (isinf (value))
    json_builder_add_string_value (builder, value > 0 ? "inf" : "-inf");
  else
    json_builder_add_double_value (builder, value);
}

/**
 * nk_json_add_member_double:
 * @builder: a builder inside an object
 * @name: the member name
 * @value: a double
 *
 * Adds the member @name with nk_json_add_double().
 */
void
nk_json_add_member_double (JsonBuilder *builder,
                           const char  *name,
                           double       value)
{
  json_builder_set_member_name (builder, name);
  nk_json_add_double (builder, value);
}

/* json-glib 1.6 appends ".0" to every double it prints without a '.', so an exact
 * 6e18 comes out as "6e+18.0", which no JSON parser (json-glib's own included)
 * reads. Drops that ".0" after an exponent, outside strings, in place. */
static void
repair_exponents (char *json)
{
  gboolean in_string = FALSE;
  const char *p = json;
  char *out = json;

  while (*p != '\0')
    {
      if (in_string)
        {
          if (*p == '\\' && p[1] != '\0')
            *out++ = *p++;
          else if (*p == '"')
            in_string = FALSE;
          *out++ = *p++;
          continue;
        }
      if (*p == '"')
        in_string = TRUE;
      else if (*p == 'e' || *p == 'E')
        {
          *out++ = *p++;
          if (*p == '+' || *p == '-')
            *out++ = *p++;
          while (g_ascii_isdigit (*p))
            *out++ = *p++;
          if (p[0] == '.' && p[1] == '0' && !g_ascii_isdigit (p[2]))
            p += 2;
          continue;
        }
      *out++ = *p++;
    }
  *out = '\0';
}

/**
 * nk_json_to_line:
 * @builder: a builder holding one complete value
 *
 * Returns: (transfer full): the value as one line of compact JSON, without a newline
 */
char *
nk_json_to_line (JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);
  char *line;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, FALSE);
  line = json_generator_to_data (generator, NULL);
  repair_exponents (line);
  return line;
}
