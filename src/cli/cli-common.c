/* cli-common.c: what every napkin-cli command shares: exit codes, errors, JSON lines
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "nk-json.h"
#include "nk-units.h"

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

  fprintf (stderr, "napkin-cli: %s\n", message);
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
