/* nk-json.c: JSON Lines output shared by napkin-cli and the app's exports, and JSON input kept safe
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-file-util.h"
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

/* ---------------------------------------------------------------- strings */

/* One byte of valid UTF-8 text: '"' and '\\' escaped, and every control character
 * below 0x20 (the short forms where JSON has them); DEL and the bytes of multibyte
 * characters as they are, as serde_json writes them. */
static void
append_byte (GString *out,
             guchar   c)
{
  switch (c)
    {
    case '"': g_string_append (out, "\\\""); break;
    case '\\': g_string_append (out, "\\\\"); break;
    case '\b': g_string_append (out, "\\b"); break;
    case '\f': g_string_append (out, "\\f"); break;
    case '\n': g_string_append (out, "\\n"); break;
    case '\r': g_string_append (out, "\\r"); break;
    case '\t': g_string_append (out, "\\t"); break;
    default:
      if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
}

/* The one escaper of string contents (without the quotes): @n bytes of @text, NUL
 * bytes included (as \u0000). JSON text is UTF-8 (RFC 8259, 8.1): each byte that is
 * not part of valid UTF-8 becomes U+FFFD, one per byte as g_utf8_make_valid() does,
 * so a name or a sampled text in any bytes is still one JSON string. */
static void
append_escaped (GString    *out,
                const char *text,
                gsize       n)
{
  const char *p = text, *end = text + n;

  while (p < end)
    {
      const char *valid_end;

      /* Stops at the first byte that is invalid, or NUL. */
      g_utf8_validate_len (p, end - p, &valid_end);
      for (; p < valid_end; p++)
        append_byte (out, (guchar) *p);
      if (p < end)
        {
          g_string_append (out, *p == '\0' ? "\\u0000" : "\357\277\275");
          p++;
        }
    }
}

/**
 * nk_json_append_string:
 * @out: where the JSON goes
 * @text: the string's bytes, in any encoding
 * @length: its length in bytes (NUL bytes are part of it), or -1 when nul-terminated
 *
 * Appends @text as one JSON string, quotes included: every control character
 * escaped, invalid UTF-8 replaced by U+FFFD. Every JSON string Napkin writes by hand
 * goes through here; what json-glib's generator writes is repaired by the same rule
 * (nk_json_node_to_data()).
 */
void
nk_json_append_string (GString    *out,
                       const char *text,
                       gssize      length)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (text != NULL || length == 0);

  g_string_append_c (out, '"');
  append_escaped (out, text, length < 0 ? strlen (text) : (gsize) length);
  g_string_append_c (out, '"');
}

/* What json-glib 1.6 (bookworm) writes is not always JSON, so its output is
 * repaired in one pass:
 * - inside strings it escapes control characters below 0x1f only, so 0x1f stays a
 *   raw byte, and it copies invalid UTF-8 through: each run of raw bytes goes
 *   through the one escaper (its escapes are ASCII and kept as they are);
 * - it appends ".0" to every double it prints without a '.', so an exact 6e18
 *   comes out as "6e+18.0", which no JSON parser (json-glib's own included) reads:
 *   that ".0" after an exponent, outside strings, is dropped. */
static char *
repair_generated (const char *json,
                  gsize      *length)
{
  GString *out = g_string_sized_new (strlen (json) + 16);
  const char *p = json;

  while (*p != '\0')
    {
      if (*p == '"')
        {
          g_string_append_c (out, *p++);
          while (*p != '\0' && *p != '"')
            {
              gsize run;

              if (*p == '\\' && p[1] != '\0')
                {
                  g_string_append_len (out, p, 2);
                  p += 2;
                  continue;
                }
              run = strcspn (p, "\\\"");
              append_escaped (out, p, MAX (run, 1));
              p += MAX (run, 1);
            }
          if (*p == '"')
            g_string_append_c (out, *p++);
          continue;
        }
      if (*p == 'e' || *p == 'E')
        {
          g_string_append_c (out, *p++);
          if (*p == '+' || *p == '-')
            g_string_append_c (out, *p++);
          while (g_ascii_isdigit (*p))
            g_string_append_c (out, *p++);
          if (p[0] == '.' && p[1] == '0' && !g_ascii_isdigit (p[2]))
            p += 2;
          continue;
        }
      g_string_append_c (out, *p++);
    }
  if (length != NULL)
    *length = out->len;
  return g_string_free (out, FALSE);
}

/**
 * nk_json_node_to_data:
 * @root: a complete JSON value
 * @pretty: whether to indent it over several lines
 * @length: (out) (optional): its length in bytes
 *
 * json_generator_to_data() made JSON: strings escaped as nk_json_append_string()
 * does, numbers that JSON parsers read. Every JSON document Napkin generates (CLI
 * output, run folders, configs) goes through here.
 *
 * Returns: (transfer full): the JSON text, without a final newline
 */
char *
nk_json_node_to_data (JsonNode *root,
                      gboolean  pretty,
                      gsize    *length)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *raw = NULL;

  g_return_val_if_fail (root != NULL, NULL);

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, pretty);
  raw = json_generator_to_data (generator, NULL);
  return repair_generated (raw, length);
}

/**
 * nk_json_to_line:
 * @builder: a builder holding one complete value
 *
 * One record of a JSON Lines file (a run's metrics, its history): the builder's
 * value, its strings escaped as nk_json_append_string() does.
 *
 * Returns: (transfer full): the value as one line of compact JSON, without a newline
 */
char *
nk_json_to_line (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  return nk_json_node_to_data (root, FALSE, NULL);
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
 * @error: why not: not a regular file, over %NK_JSON_MAX_FILE_BYTES, empty, too deep,
 *   or json-glib's sentence
 *
 * Loads a JSON file a person handed the app through nk_json_parser_load(), so its
 * nesting is checked before json-glib parses it.
 *
 * Returns: %TRUE when @parser holds the file's document
 */
gboolean
nk_json_parser_load_file (JsonParser  *parser,
                          const char  *path,
                          GError     **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;

  /* a FIFO or a device is refused, not waited on; json-glib has no sentence for an
   * empty document (it warns and fails without one) */
  if (!nk_file_read_regular (path, NK_JSON_MAX_FILE_BYTES, &text, &length, error))
    return FALSE;
  if (length == 0)
    {
      g_autofree char *name = g_filename_display_name (path);

      g_set_error (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE,
                   _("“%s” is empty, not JSON."), name);
      return FALSE;
    }
  return nk_json_parser_load (parser, text, (gssize) length, error);
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
