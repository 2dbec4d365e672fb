/* cli-format.c: `napkin-cli format`: how a number is stored in f32, f16, bf16, fp8,
 * fp6, fp4 and e8m0, in every rounding mode
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-common.h"
#include "nk-dtype.h"
#include "nk-json.h"

/* Lines per block in stdin mode: output is built a block at a time. */
#define BLOCK_LINES 4096

/* The formats CLI.md lets `format` take. */
static const NkDType cli_dtypes[] = {
  NK_DTYPE_F32, NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_E4M3, NK_DTYPE_E5M2,
  NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1, NK_DTYPE_E8M0,
  NK_DTYPE_E4M3FNUZ, NK_DTYPE_E5M2FNUZ,
};

typedef struct {
  char *input;
  char *bits;
  char *binary;
  char *exact;
  NkDTypeItem item;
  NkDTypeDecoded decoded;
  double abs_error;
  double rel_error;
  gboolean unrepresentable;  /* the format cannot hold the value: bits null */
} Row;

static void
row_clear (Row *row)
{
  g_clear_pointer (&row->input, g_free);
  g_clear_pointer (&row->bits, g_free);
  g_clear_pointer (&row->binary, g_free);
  g_clear_pointer (&row->exact, g_free);
}

typedef struct {
  NkDType        dtype;
  NkOverflow     overflow;
  NkRoundingMode mode;
  NkRng         *rng;   /* --seed's generator: one draw per value item */
  gboolean       json;
  gboolean   header_done;
  int        widths[9];
} Formatter;

/* Shortest decimal that reads back as @value: what people and JSON parsers want. */
static void
format_double (char   *buf,
               gsize   size,
               double  value)
{
  if (isnan (value))
    g_strlcpy (buf, "nan", size);
  else if (isinf (value))
    g_strlcpy (buf, value > 0 ? "inf" : "-inf", size);
  else
    {
      /* main() keeps LC_NUMERIC at "C", so plain snprintf writes a '.' */
      snprintf (buf, size, "%.15g", value);
      if (strtod (buf, NULL) != value)
        snprintf (buf, size, "%.17g", value);
    }
}

static void
json_append_string (GString    *out,
                    const char *text)
{
  nk_json_append_string (out, text, -1);
}

static void
json_append_double (GString *out,
                    double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  format_double (buf, sizeof buf, value);
  if (isfinite (value))
    g_string_append (out, buf);
  else
    json_append_string (out, buf);
}

/* Significant digits of a plain decimal like "-0.000123": the exact value, when
 * short, is the best JSON number there is. */
static int
significant_digits (const char *decimal)
{
  int n = 0;
  gboolean leading = TRUE;

  for (const char *p = decimal; *p; p++)
    if (g_ascii_isdigit (*p) && !(leading && *p == '0'))
      {
        leading = FALSE;
        n++;
      }
  return n;
}

/* CLI.md's suffixes K, M, B (or G), T on a decimal item: "1.5K" becomes the
 * decimal "1.5e3", so the value is still rounded once, from its exact decimal.
 * Returns %NULL when @text has no such suffix (bits never do: "0x7b" is bits). */
static char *
expand_suffix (const char *text)
{
  g_autofree char *mantissa = NULL;
  gsize len = strlen (text);
  const char *digits;
  char *e, *end = NULL;
  gint64 exponent = 0;
  int shift;

  /* Most items have no suffix: stdin mode must not pay for a copy of each. */
  while (len > 0 && g_ascii_isspace (text[len - 1]))
    len--;
  if (len < 2 || strchr ("KkMmBbGgTt", text[len - 1]) == NULL)
    return NULL;
  mantissa = g_strstrip (g_strdup (text));
  len = strlen (mantissa);
  digits = mantissa;
  if (len < 2 || strpbrk (mantissa, "xX") != NULL)
    return NULL;
  switch (g_ascii_toupper (mantissa[len - 1]))
    {
    case 'K': shift = 3; break;
    case 'M': shift = 6; break;
    case 'B':
    case 'G': shift = 9; break;
    case 'T': shift = 12; break;
    default: return NULL;
    }
  mantissa[len - 1] = '\0';
  if (*digits == '+' || *digits == '-')
    digits++;
  if (!g_ascii_isdigit (*digits) && *digits != '.')
    return NULL;
  e = strpbrk (mantissa, "eE");
  if (e != NULL)
    {
      exponent = g_ascii_strtoll (e + 1, &end, 10);
      if (end == e + 1 || *end != '\0')
        return NULL;
      /* Far beyond any double either way; keeps the sum below from overflowing. */
      exponent = CLAMP (exponent, -100000, 100000);
      *e = '\0';
    }
  return g_strdup_printf ("%se%" PRId64, mantissa, exponent + shift);
}

/* @error's sentence with the input in it shown by nk_cli_quote_len(): the parser
 * quotes the item as given, so a newline would split the line, a 100 KB item would
 * be echoed whole, and bytes that are not UTF-8 would break the {"error"} JSON. */
static char *
quoted_failure (const char   *text,
                gssize        len,
                const GError *error)
{
  g_autofree char *raw = g_strdup_printf ("“%s”", text);
  g_autofree char *quoted = nk_cli_quote_len (text, len);
  const char *at = strstr (error->message, raw);

  if (at == NULL)
    return g_strdup_printf ("%s: %s", quoted, error->message);
  return g_strdup_printf ("%.*s%s%s", (int) (at - error->message), error->message,
                          quoted, at + strlen (raw));
}

/* Fills @row from @text, or names @text in @error. */
static gboolean
row_fill (const Formatter *fmt,
          const char      *text,
          Row             *row,
          GError         **error)
{
  g_autofree char *expanded = expand_suffix (text);
  NkDTypeRounding rounding;
  guint64 bits;

  /* An item that only looks suffixed ("infK") is refused under its own name. */
  if (expanded == NULL || !nk_dtype_parse_item (fmt->dtype, expanded, &row->item, NULL))
    if (!nk_dtype_parse_item (fmt->dtype, text, &row->item, error))
      return FALSE;

  if (row->item.is_bits)
    bits = row->item.bits;
  else
    {
      /* nk-dtype is the one home of the rounding error: the page shows the same. */
      nk_dtype_round_with_mode (fmt->dtype, row->item.value, fmt->overflow, fmt->mode,
                                fmt->rng, &rounding);
      bits = rounding.bits;
      row->abs_error = rounding.abs_error;
      row->rel_error = rounding.rel_error;
      row->unrepresentable = rounding.status == NK_ROUNDING_UNREPRESENTABLE;
    }
  nk_dtype_decode (fmt->dtype, bits, &row->decoded);
  row->input = g_utf8_make_valid (text, -1);
  if (row->unrepresentable)
    {
      /* no pattern holds it: CLI.md's class unrepresentable, bits null */
      row->decoded.klass = NK_DTYPE_CLASS_UNREPRESENTABLE;
      row->decoded.sign = signbit (row->item.value) ? 1 : 0;
      row->decoded.value = NAN;
      row->bits = g_strdup ("-");
      row->binary = g_strdup ("-");
      row->exact = g_strdup ("nan");
      return TRUE;
    }
  row->bits = nk_dtype_format_bits (fmt->dtype, bits);
  row->binary = nk_dtype_format_binary (fmt->dtype, bits, " ");
  row->exact = nk_dtype_exact_decimal_double (row->decoded.value);
  return TRUE;
}

static void
append_json_row (const Formatter *fmt,
                 const Row       *row,
                 GString         *out)
{
  const NkDTypeDecoded *d = &row->decoded;

  g_string_append (out, "{\"dtype\":\"");
  g_string_append (out, nk_dtype_info (fmt->dtype)->cli_name);
  g_string_append (out, "\",\"input\":");
  json_append_string (out, row->input);
  if (row->unrepresentable)
    g_string_append (out, ",\"bits\":null");
  else
    g_string_append_printf (out, ",\"bits\":\"%s\"", row->bits);
  g_string_append_printf (out, ",\"class\":\"%s\",\"sign\":%u,\"exponent\":",
                          nk_dtype_class_to_string (d->klass), d->sign);
  if (d->klass == NK_DTYPE_CLASS_NORMAL || d->klass == NK_DTYPE_CLASS_SUBNORMAL)
    g_string_append_printf (out, "%d", d->exponent);
  else
    g_string_append (out, "null");
  g_string_append (out, ",\"value\":");
  if (isfinite (d->value) && significant_digits (row->exact) <= 17)
    g_string_append (out, row->exact);  /* exact and short: no printf needed */
  else
    json_append_double (out, d->value);
  g_string_append (out, ",\"exact\":\"");
  g_string_append (out, row->exact);
  g_string_append_c (out, '"');
  if (!row->item.is_bits)
    {
      g_string_append (out, ",\"abs_error\":");
      json_append_double (out, row->abs_error);
      g_string_append (out, ",\"rel_error\":");
      json_append_double (out, row->rel_error);
    }
  g_string_append (out, "}\n");
}

/* The human table's cells of @row, in column order. */
static void
row_cells (const Row *row,
           char       cells[9][G_ASCII_DTOSTR_BUF_SIZE + 16],
           const char *long_cells[9])
{
  const NkDTypeDecoded *d = &row->decoded;

  for (int i = 0; i < 9; i++)
    {
      cells[i][0] = '\0';
      long_cells[i] = cells[i];
    }
  long_cells[0] = row->input;
  long_cells[1] = row->bits;
  long_cells[2] = row->binary;
  long_cells[3] = nk_dtype_class_to_string (d->klass);
  if (d->klass == NK_DTYPE_CLASS_NORMAL || d->klass == NK_DTYPE_CLASS_SUBNORMAL)
    g_snprintf (cells[4], sizeof cells[4], "%d", d->exponent);
  else
    g_strlcpy (cells[4], "-", sizeof cells[4]);
  format_double (cells[5], sizeof cells[5], d->value);
  if (row->item.is_bits)
    {
      g_strlcpy (cells[6], "-", sizeof cells[6]);
      g_strlcpy (cells[7], "-", sizeof cells[7]);
    }
  else
    {
      for (int i = 6; i <= 7; i++)
        {
          double e = i == 6 ? row->abs_error : row->rel_error;

          if (isfinite (e))
            g_ascii_formatd (cells[i], sizeof cells[i], "%.3g", e);
          else
            format_double (cells[i], sizeof cells[i], e);
        }
    }
  long_cells[8] = row->exact;
}

static void
append_human_rows (Formatter *fmt,
                   Row       *rows,
                   guint      n_rows,
                   GString   *out)
{
  const char *headers[9] = {
    _("INPUT"), _("BITS"), _("S EXP FRACTION"), _("CLASS"), _("EXP"), _("VALUE"),
    _("ABS ERROR"), _("REL ERROR"), _("EXACT"),
  };
  typedef char Cells[9][G_ASCII_DTOSTR_BUF_SIZE + 16];
  typedef const char *CellRefs[9];
  Cells *cells = g_new (Cells, MAX (n_rows, 1));
  CellRefs *long_cells = g_new (CellRefs, MAX (n_rows, 1));

  /* Widths only grow, so a long stream stays aligned block after block. */
  for (int i = 0; i < 9; i++)
    fmt->widths[i] = MAX (fmt->widths[i], (int) g_utf8_strlen (headers[i], -1));
  for (guint r = 0; r < n_rows; r++)
    {
      row_cells (&rows[r], cells[r], long_cells[r]);
      for (int i = 0; i < 8; i++)
        fmt->widths[i] = MAX (fmt->widths[i], (int) g_utf8_strlen (long_cells[r][i], -1));
    }

  if (!fmt->header_done)
    {
      for (int i = 0; i < 9; i++)
        g_string_append_printf (out, "%s%*s", headers[i],
                                i < 8 ? fmt->widths[i] - (int) g_utf8_strlen (headers[i], -1) + 2 : 0, "");
      g_string_append_c (out, '\n');
      fmt->header_done = TRUE;
    }
  for (guint r = 0; r < n_rows; r++)
    {
      for (int i = 0; i < 9; i++)
        {
          g_string_append (out, long_cells[r][i]);
          if (i < 8)
            for (int pad = fmt->widths[i] - (int) g_utf8_strlen (long_cells[r][i], -1) + 2; pad > 0; pad--)
              g_string_append_c (out, ' ');
        }
      g_string_append_c (out, '\n');
    }
  g_free (cells);
  g_free (long_cells);
}

static void
emit (Formatter *fmt,
      Row       *rows,
      guint      n_rows)
{
  g_autoptr(GString) out = g_string_sized_new (n_rows * 160 + 256);

  if (fmt->json)
    for (guint r = 0; r < n_rows; r++)
      append_json_row (fmt, &rows[r], out);
  else
    append_human_rows (fmt, rows, n_rows, out);
  fwrite (out->str, 1, out->len, stdout);
}

static int
run_stdin (Formatter *fmt)
{
  Row *rows = g_new0 (Row, BLOCK_LINES);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  guint n_rows = 0;
  guint64 line_number = 0;
  int status = NK_EXIT_OK;

  while ((len = getline (&line, &cap, stdin)) != -1)
    {
      g_autoptr(GError) error = NULL;

      line_number++;
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
      /* A NUL would end the item early ("1\0009" read as "1"): refuse the line. */
      if (memchr (line, '\0', len) != NULL)
        g_set_error_literal (&error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE,
                             _("it holds a NUL byte; items are text, one per line"));
      if (error != NULL || !row_fill (fmt, line, &rows[n_rows], &error))
        {
          g_autofree char *message = quoted_failure (line, len, error);

          emit (fmt, rows, n_rows);
          fflush (stdout);
          status = nk_cli_fail (fmt->json, NK_EXIT_USAGE,
                                /* Translators: "line 3: “abc” is not a number…" */
                                _("line %" PRIu64 ": %s"), line_number, message);
          break;
        }
      if (++n_rows == BLOCK_LINES)
        {
          emit (fmt, rows, n_rows);
          for (guint r = 0; r < n_rows; r++)
            row_clear (&rows[r]);
          n_rows = 0;
        }
    }
  if (status == NK_EXIT_OK)
    emit (fmt, rows, n_rows);
  for (guint r = 0; r < BLOCK_LINES; r++)
    row_clear (&rows[r]);
  g_free (rows);
  free (line);
  return status;
}

int
nk_cli_format_main (int    argc,
                    char **argv)
{
  g_autofree char *dtype_name = NULL;
  g_autofree char *rounding_name = NULL;
  g_autofree char *seed_text = NULL;
  g_autoptr(NkRng) rng = NULL;
  guint64 seed = 0;
  g_auto(GStrv) remaining = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_auto(NkCliNegatives) negatives = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) names = g_string_new (NULL);
  gboolean saturate = FALSE;
  gboolean json = nk_cli_wants_json (argc, argv);
  gboolean known = FALSE;
  Formatter fmt = { 0 };
  char **parse_argv;
  int parse_argc;
  int exit_code;
  const GOptionEntry entries[] = {
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_name,
      N_("Number format: f32, f16, bf16, e4m3, e5m2, fp6-e3m2, fp6-e2m3, fp4-e2m1, e8m0, "
         "e4m3fnuz or e5m2fnuz (aliases: fp32 float32 float, fp16 float16 half, bfloat16, "
         "fp8-e4m3 e4m3fn, fp8-e5m2)"), "D" },
    { "saturate", 0, 0, G_OPTION_ARG_NONE, &saturate,
      N_("Overflow to ±max (CUDA satfinite) instead of ±inf or NaN"), NULL },
    { "rounding", 0, 0, G_OPTION_ARG_STRING, &rounding_name,
      N_("Rounding: nearest (ties to even, the default), up, down, zero or stochastic"),
      N_("MODE") },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text,
      N_("Seed of --rounding stochastic's generator (default 0): the same seed gives the "
         "same bits"), "S" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("One JSON object per item"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &remaining, NULL, N_("[ITEM…]") },
    { NULL }
  };

  /* Negative items are items, not options (CLI.md). */
  nk_cli_negatives_init (&negatives, argc, argv);
  parse_argc = (int) negatives.argv->len - 1;
  parse_argv = (char **) negatives.argv->pdata;

  context = g_option_context_new (_("— show how numbers are stored in a number format"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("An ITEM is a decimal value (1e-8, -0, inf, nan, 465, 1.5K) or raw bits (0x7e).\n"
      "Negative items are items, not options: --dtype e4m3 -465 works, as does -- -465.\n"
      "With no ITEM, items are read from standard input, one per line.\n"
      "Overflow: f32, f16, bf16 and e5m2 go to ±inf; e4m3 goes to NaN past 448;\n"
      "e4m3fnuz and e5m2fnuz go to NaN (0x80); fp6 and fp4 always saturate.\n"
      "With --saturate, anything beyond the largest finite magnitude becomes ±max.\n"
      "e8m0 takes the power of two at or below a value (above it with --rounding up).\n"
      "A value a format cannot hold at all (NaN in fp6 or fp4, zero or a negative\n"
      "value in e8m0) is the class unrepresentable, with no bits.\n"
      "--rounding up and down are toward +inf and −inf; past the largest value a\n"
      "mode that rounds toward zero gives ±max. stochastic rounds to one of the two\n"
      "neighbours with probability proportional to closeness, one draw per item."));
  if (!nk_cli_parse_options (context, &parse_argc, &parse_argv, json, &exit_code))
    return exit_code;

  for (guint i = 0; i < G_N_ELEMENTS (cli_dtypes); i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "", nk_dtype_info (cli_dtypes[i])->cli_name);
  if (dtype_name == NULL)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--dtype is required (one of %s)"), names->str);
  if (!nk_dtype_from_name (dtype_name, &fmt.dtype, &error))
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--dtype: “%s” is not one of %s"), dtype_name, names->str);
  for (guint i = 0; i < G_N_ELEMENTS (cli_dtypes); i++)
    known |= cli_dtypes[i] == fmt.dtype;
  if (!known)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--dtype: “%s” is not one of %s"), dtype_name, names->str);

  fmt.mode = NK_ROUNDING_MODE_NEAREST_EVEN;
  if (rounding_name != NULL && !nk_rounding_mode_from_string (rounding_name, &fmt.mode))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--rounding: “%s” is not one of nearest, up, down, zero, stochastic"),
                        rounding_name);
  if (seed_text != NULL && !g_ascii_string_to_unsigned (seed_text, 10, 0, G_MAXUINT64, &seed, NULL))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--seed: “%s” is not a whole number from 0 to 18446744073709551615"),
                        seed_text);
  rng = nk_rng_new (seed);
  fmt.rng = rng;
  fmt.overflow = saturate ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;
  fmt.json = json;

  /* Our writes are whole blocks; a large buffer keeps stdin mode to few syscalls. */
  setvbuf (stdout, NULL, _IOFBF, 1 << 20);

  if (remaining == NULL || remaining[0] == NULL)
    return run_stdin (&fmt);

  {
    guint n = g_strv_length (remaining);
    Row *rows = g_new0 (Row, n);
    int status = NK_EXIT_OK;

    for (guint i = 0; i < n; i++)
      {
        const char *text = nk_cli_negatives_original (&negatives, remaining[i]);

        if (!row_fill (&fmt, text, &rows[i], &error))
          {
            g_autofree char *message = quoted_failure (text, -1, error);

            status = nk_cli_fail (json, NK_EXIT_USAGE, "%s", message);
            break;
          }
      }
    if (status == NK_EXIT_OK)
      emit (&fmt, rows, n);
    for (guint i = 0; i < n; i++)
      row_clear (&rows[i]);
    g_free (rows);
    return status;
  }
}
