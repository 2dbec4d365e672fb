/* cli-common.c: what every napkin-cli command shares: exit codes, errors, JSON lines
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-common.h"
#include "nk-json.h"
#include "nk-units.h"

/**
 * nk_cli_print_error:
 * @message: one sentence
 *
 * Prints "napkin-cli: @message" on stderr with the control characters an input
 * carried shown as \xNN: a path or a GPU name must not move a terminal's cursor
 * or set its colours.
 */
void
nk_cli_print_error (const char *message)
{
  g_autoptr(GString) shown = g_string_new ("napkin-cli: ");

  for (const char *p = message; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20 && *p != '\n' && *p != '\t')
        g_string_append_printf (shown, "\\x%02x", (guchar) *p);
      else if (*p == 0x7f)
        g_string_append (shown, "\\x7f");
      else
        g_string_append_c (shown, *p);
    }
  fprintf (stderr, "%s\n", shown->str);
}

/**
 * nk_cli_fail:
 * @json: whether the command was asked for --json
 * @exit_code: %NK_EXIT_UNSATISFIABLE or %NK_EXIT_USAGE
 * @format: one sentence naming the offending input
 *
 * Prints the sentence on stderr and, with --json, `{"error": "..."}` on stdout.
 *
 * Returns: @exit_code, so a command can `return nk_cli_fail (...)`
 */
int
nk_cli_fail (gboolean    json,
             int         exit_code,
             const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* Whatever bytes an input held, the sentence and its JSON stay valid UTF-8. */
  if (!g_utf8_validate (message, -1, NULL))
    {
      char *valid = g_utf8_make_valid (message, -1);

      g_free (message);
      message = valid;
    }

  nk_cli_print_error (message);
  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, message);
      json_builder_end_object (builder);
      nk_cli_print_json (builder);
    }
  return exit_code;
}

/**
 * nk_cli_fail_error:
 * @json: whether the command was asked for --json
 * @exit_code: the exit code
 * @error: the error whose message is the sentence
 *
 * Returns: @exit_code
 */
int
nk_cli_fail_error (gboolean      json,
                   int           exit_code,
                   const GError *error)
{
  return nk_cli_fail (json, exit_code, "%s", error->message);
}

/**
 * nk_cli_print_json:
 * @builder: a builder holding one complete object
 *
 * Prints the object as one JSON line on stdout.
 */
void
nk_cli_print_json (JsonBuilder *builder)
{
  g_autofree char *line = nk_json_to_line (builder);

  fputs (line, stdout);
  fputc ('\n', stdout);
}

/**
 * nk_cli_parse_options:
 * @context: the command's option context
 * @argc: (inout): argument count
 * @argv: (inout): arguments
 * @json: whether --json appears among the arguments (so the error is JSON too)
 * @exit_code: (out): %NK_EXIT_USAGE on failure
 *
 * Parses options and reports an unknown flag or a bad value as a usage error.
 *
 * Returns: %TRUE when the command should go on
 */
gboolean
nk_cli_parse_options (GOptionContext   *context,
                      int              *argc,
                      char           ***argv,
                      gboolean          json,
                      int              *exit_code)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      /* GOption's conversion error ("Invalid byte sequence in conversion input")
       * does not say which argument: find it. */
      if (error->domain == G_CONVERT_ERROR)
        for (int i = 1; i < *argc; i++)
          if (!g_utf8_validate ((*argv)[i], -1, NULL))
            {
              g_autofree char *quoted = nk_cli_quote ((*argv)[i]);

              *exit_code = nk_cli_fail (json, NK_EXIT_USAGE,
                                        _("The argument %s is not valid UTF-8 text."),
                                        quoted);
              return FALSE;
            }
      *exit_code = nk_cli_fail_error (json, NK_EXIT_USAGE, error);
      return FALSE;
    }
  *exit_code = NK_EXIT_OK;
  return TRUE;
}

/**
 * nk_cli_parse_number:
 * @flag: the flag the value belongs to, e.g. "--params"
 * @text: the value as given
 * @out_value: (out): the value
 * @error: a sentence naming @flag
 *
 * Returns: %TRUE when @text is a number in CLI.md's notation
 */
gboolean
nk_cli_parse_number (const char  *flag,
                     const char  *text,
                     double      *out_value,
                     GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (nk_units_parse (text, out_value, &local_error))
    return TRUE;
  g_set_error (error, local_error->domain, local_error->code,
               /* Translators: e.g. "--params: “abc” is not a number" */
               _("%s: %s"), flag, local_error->message);
  return FALSE;
}

/**
 * nk_cli_wants_json:
 * @argc: argument count
 * @argv: arguments
 *
 * Looks for --json before options are parsed, so that a parse error can be
 * reported as JSON too.
 *
 * Returns: %TRUE if --json is among @argv
 */
gboolean
nk_cli_wants_json (int    argc,
                   char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0)
        break;
      if (strcmp (argv[i], "--json") == 0)
        return TRUE;
    }
  return FALSE;
}

/**
 * nk_cli_check_device_name:
 * @flag: the flag, "--device"
 * @text: the name as given
 * @error: a sentence naming @text
 *
 * The spelling of a device name, before any driver is asked: cpu, auto, cuda, or
 * cuda:N with N a decimal GPU index. A misspelt name is bad input (exit 2); only a
 * well-formed name the machine lacks is exit 1, with the driver's reason.
 *
 * Returns: %TRUE if @text is spelt as a device name
 */
gboolean
nk_cli_check_device_name (const char  *flag,
                          const char  *text,
                          GError     **error)
{
  guint64 index;

  if (g_str_equal (text, "cpu") || g_str_equal (text, "auto") || g_str_equal (text, "cuda"))
    return TRUE;
  /* g_ascii_string_to_unsigned refuses signs, spaces and an empty string. */
  if (g_str_has_prefix (text, "cuda:")
      && g_ascii_string_to_unsigned (text + 5, 10, 0, G_MAXINT32, &index, NULL))
    return TRUE;
  {
    g_autofree char *quoted = nk_cli_quote (text);

    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 _("%s: %s is not a device name (cpu, cuda, cuda:N with N a GPU index "
                   "from 0, or auto)."), flag, quoted);
  }
  return FALSE;
}

/* Characters of an input a message shows before cutting it. */
#define QUOTE_MAX_CHARS 64

/**
 * nk_cli_quote_len:
 * @text: an input as given: any bytes
 * @len: its length in bytes, or -1 when NUL-terminated
 *
 * What a message shows of an input: in “quotes”, on one line, valid UTF-8 whatever
 * the bytes (so the `{"error"}` JSON stays valid JSON), and cut after 64 characters.
 * A control character or NUL is shown as a C escape (\n, \t, \0, \x1b), a byte that
 * is not UTF-8 as \xHH, and a cut input ends in "…" and its full size.
 *
 * Returns: (transfer full): the quoted text
 */
char *
nk_cli_quote_len (const char *text,
                  gssize      len)
{
  GString *out = g_string_new ("“");
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  const char *p = text, *end = text + n;
  guint shown = 0;

  while (p < end && shown < QUOTE_MAX_CHARS)
    {
      gunichar c = *p == '\0' ? 0 : g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guint8) *p);
          p++;
        }
      else
        {
          if (c == '\n')
            g_string_append (out, "\\n");
          else if (c == '\t')
            g_string_append (out, "\\t");
          else if (c == 0)
            g_string_append (out, "\\0");   /* a NUL: g_utf8_next_char steps one byte */
          else if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\x%02x", c);
          else
            g_string_append_unichar (out, c);
          p = g_utf8_next_char (p);
        }
      shown++;
    }
  g_string_append (out, "”");
  if (p < end)
    g_string_append_printf (out, _("… (%zu bytes in all)"), n);
  return g_string_free (out, FALSE);
}

/**
 * nk_cli_quote:
 * @text: a NUL-terminated input
 *
 * Returns: (transfer full): nk_cli_quote_len (@text, -1)
 */
char *
nk_cli_quote (const char *text)
{
  return nk_cli_quote_len (text, -1);
}

/* "-465", "-.5", "-inf", "-pi": a number or a named constant, not an option. */
static gboolean
looks_like_negative_number (const char *arg)
{
  static const char *const words[] = { "inf", "infinity", "nan", "pi", "e", "π" };

  if (arg[0] != '-' || arg[1] == '-' || arg[1] == '\0')
    return FALSE;
  if (g_ascii_isdigit (arg[1]) || arg[1] == '.')
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_ascii_strcasecmp (arg + 1, words[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Fills @n from @argv: negative numbers (not after "--") become "\001INDEX". */
void
nk_cli_negatives_init (NkCliNegatives *n,
                       int             argc,
                       char          **argv)
{
  gboolean after_dashes = FALSE;

  n->argv = g_ptr_array_new ();
  n->originals = g_ptr_array_new ();
  n->placeholders = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < argc; i++)
    {
      if (i > 0 && !after_dashes && looks_like_negative_number (argv[i]))
        {
          char *placeholder = g_strdup_printf ("\001%u", n->placeholders->len);

          g_ptr_array_add (n->placeholders, placeholder);
          g_ptr_array_add (n->originals, argv[i]);
          g_ptr_array_add (n->argv, placeholder);
          continue;
        }
      if (strcmp (argv[i], "--") == 0)
        after_dashes = TRUE;
      g_ptr_array_add (n->argv, argv[i]);
    }
  g_ptr_array_add (n->argv, NULL);
}

/* The argument a remaining @text stands for: itself, or the number it hid. */
const char *
nk_cli_negatives_original (const NkCliNegatives *n,
                           const char           *text)
{
  if (text[0] == '\001')
    {
      guint index = (guint) strtoul (text + 1, NULL, 10);

      if (index < n->originals->len)
        return n->originals->pdata[index];
    }
  return text;
}

void
nk_cli_negatives_clear (NkCliNegatives *n)
{
  g_clear_pointer (&n->argv, g_ptr_array_unref);
  g_clear_pointer (&n->originals, g_ptr_array_unref);
  g_clear_pointer (&n->placeholders, g_ptr_array_unref);
}
