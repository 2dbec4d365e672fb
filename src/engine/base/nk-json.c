/* nk-json.c: JSON Lines output shared by napkin-cli and the app's exports, and JSON input kept safe
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

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

/* ---------------------------------------------------------------- input */

/**
 * nk_json_check_depth:
 * @text: JSON text
 * @length: its length in bytes, or -1 when nul-terminated
 * @error: one sentence when it nests too deep
 *
 * json-glib 1.6 parses arrays and objects by recursion with no limit, so a file
 * of a hundred thousand "[" overflows the stack. Every JSON a person can hand
 * the app (plans, run folders, checkpoint and safetensors headers) goes through
 * here first: brackets inside strings do not count.
 *
 * Returns: %FALSE when @text nests deeper than %NK_JSON_MAX_DEPTH
 */
gboolean
nk_json_check_depth (const char  *text,
                     gssize       length,
                     GError     **error)
{
  gsize n = length < 0 ? strlen (text) : (gsize) length;
  gboolean in_string = FALSE, escaped = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < n; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if ((c == '[' || c == '{') && ++depth > NK_JSON_MAX_DEPTH)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The JSON nests deeper than %d levels"), NK_JSON_MAX_DEPTH);
          return FALSE;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

/**
 * nk_json_parser_load:
 * @parser: a parser
 * @text: JSON text
 * @length: its length in bytes, or -1 when nul-terminated
 * @error: why not: too deep, or json-glib's sentence
 *
 * json_parser_load_from_data() behind nk_json_check_depth().
 *
 * Returns: %TRUE when @parser holds the document
 */
gboolean
nk_json_parser_load (JsonParser  *parser,
                     const char  *text,
                     gssize       length,
                     GError     **error)
{
  return nk_json_check_depth (text, length, error)
         && json_parser_load_from_data (parser, text, length, error);
}

/**
 * nk_json_parser_load_file:
 * @parser: a parser
 * @path: a JSON file
 * @error: why not: unreadable, too deep, or json-glib's sentence
 *
 * Returns: %TRUE when @parser holds the file's document
 */
gboolean
nk_json_parser_load_file (JsonParser  *parser,
                          const char  *path,
                          GError     **error)
{
  g_autoptr(GMappedFile) file = g_mapped_file_new (path, FALSE, error);

  if (file == NULL)
    return FALSE;
  return nk_json_parser_load (parser, g_mapped_file_get_contents (file),
                              (gssize) g_mapped_file_get_length (file), error);
}

/**
 * nk_json_from_string:
 * @text: nul-terminated JSON
 * @error: why not
 *
 * json_from_string() behind nk_json_check_depth().
 *
 * Returns: (transfer full) (nullable): the document's root
 */
JsonNode *
nk_json_from_string (const char  *text,
                     GError     **error)
{
  if (!nk_json_check_depth (text, -1, error))
    return NULL;
  return json_from_string (text, error);
}
