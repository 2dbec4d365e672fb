/* cli-sample.c: napkin-cli sample — a trained GPT continues a prompt
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "nk-gpt.h"
#include "nk-json.h"
#include "nk-run-dir.h"

/* nanoGPT's sample.py defaults. */
#define DEFAULT_TEMPERATURE 0.8
#define DEFAULT_TOP_K       200

static gboolean
parse_whole (const char  *flag,
             const char  *text,
             double       max,
             guint       *out,
             GError     **error)
{
  double v;

  if (text == NULL)
    return TRUE;
  if (!nk_cli_parse_number (flag, text, &v, error))
    return FALSE;
  if (!(v >= 0) || v != floor (v) || v > max)
    {
      g_autofree char *quoted = nk_cli_quote (text);

      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s must be a whole number from 0 to %.0f, not %s."), flag, max, quoted);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

/* Byte-level models: each token below 256 is a byte of the text. */
static void
append_token (GString *text,
              guint32  token)
{
  if (token < 256)
    g_string_append_c (text, (char) token);
  else
    g_string_append_printf (text, "<%u>", token);
}

/* Without --json the text is printed as it is drawn: a million tokens take minutes. */
static void
print_token (guint32  token,
             gpointer user_data)
{
  GString *text = user_data;

  g_string_truncate (text, 0);
  append_token (text, token);
  fwrite (text->str, 1, text->len, stdout);
  fflush (stdout);
}

/* {"text": ..., "tokens": [...]}: the text's bytes exactly, NUL bytes included, in
 * nk-json's one escaper (json-glib's builder ends a string at its first NUL). */
static void
print_json (GArray *tokens)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) line = g_string_new ("{\"text\":");

  for (guint i = 0; i < tokens->len; i++)
    append_token (text, g_array_index (tokens, guint32, i));
  nk_json_append_string (line, text->str, text->len);
  g_string_append (line, ",\"tokens\":[");
  for (guint i = 0; i < tokens->len; i++)
    g_string_append_printf (line, "%s%u", i ? "," : "", g_array_index (tokens, guint32, i));
  g_string_append (line, "]}\n");
  fwrite (line->str, 1, line->len, stdout);
}

int
nk_cli_sample_main (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) model = NULL;
  g_autoptr(NkRng) rng = NULL;
  g_autoptr(GArray) out = NULL;
  g_autoptr(GString) chunk = g_string_new (NULL);
  g_autofree char *from = NULL, *prompt = NULL, *n_tokens = NULL, *temperature = NULL;
  g_autofree char *top_k = NULL, *seed = NULL, *checkpoints = NULL;
  g_autofree guint32 *ids = NULL;
  gboolean json = FALSE;
  double temp = DEFAULT_TEMPERATURE, seed_value = 0;
  guint n = 0, k = DEFAULT_TOP_K;
  gsize len;
  int exit_code;

  const GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_FILENAME, &from,
      N_("A run folder, a checkpoint folder (its newest checkpoint) or a saved GPT state_dict (safetensors)"),
      "DIR|FILE" },
    { "prompt", 0, 0, G_OPTION_ARG_STRING, &prompt, N_("The text to continue (its bytes are the tokens)"), "TEXT" },
    { "tokens", 0, 0, G_OPTION_ARG_STRING, &n_tokens, N_("How many tokens to add"), "N" },
    { "temperature", 0, 0, G_OPTION_ARG_STRING, &temperature,
      N_("Divides the logits (default 0.8; 0 picks the most likely token)"), "F" },
    { "top-k", 0, 0, G_OPTION_ARG_STRING, &top_k, N_("Sample from the K most likely tokens (default 200, 0 = all)"), "K" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed, N_("Seed of the draws (default 0)"), "S" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print {\"text\", \"tokens\"}"), NULL },
    { NULL }
  };

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, _("Continue a prompt with a trained GPT, as nanoGPT’s sample.py."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!nk_cli_parse_options (context, &argc, &argv, nk_cli_wants_json (argc, argv), &exit_code))
    return exit_code;
  if (argc > 1)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("Unexpected argument “%s”."), argv[1]);
  if (from == NULL || prompt == NULL || n_tokens == NULL)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("sample needs --from, --prompt and --tokens."));
  if (!parse_whole ("--tokens", n_tokens, 1 << 20, &n, &error)
      || !parse_whole ("--top-k", top_k, G_MAXINT32, &k, &error)
      || (temperature != NULL && !nk_cli_parse_number ("--temperature", temperature, &temp, &error))
      || (seed != NULL && !nk_cli_parse_number ("--seed", seed, &seed_value, &error)))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
  if (!(temp >= 0) || !isfinite (temp))
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--temperature must be 0 or more, not %g."), temp);
  if (!(seed_value >= 0) || seed_value != floor (seed_value) || seed_value > 9007199254740992.0)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--seed must be a whole number from 0 to 2^53."));
  len = strlen (prompt);
  if (len == 0)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--prompt must hold at least one character."));

  /* A run folder's checkpoints, as --resume finds them. */
  checkpoints = nk_run_dir_resolve_checkpoints (from);
  model = nk_gpt_load (checkpoints, &error);
  if (model == NULL)
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  ids = g_new (guint32, len);
  for (gsize i = 0; i < len; i++)
    ids[i] = (guint8) prompt[i];
  rng = nk_rng_new ((guint64) seed_value);
  out = nk_gpt_generate_stream (model, ids, len, n, temp, k, rng,
                                json ? NULL : print_token, chunk, &error);
  if (out == NULL)
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  if (json)
    print_json (out);
  else
    fputc ('\n', stdout);
  return NK_EXIT_OK;
}
