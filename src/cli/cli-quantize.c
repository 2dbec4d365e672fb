/* cli-quantize.c: `napkin-cli quantize`: a vector in a block-scaled format (MX, NVFP4)
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
#include "nk-json.h"
#include "nk-npy.h"
#include "nk-quantize.h"
#include "nk-units.h"

/* Shortest decimal that reads back as @value (inputs are finite here). */
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
      snprintf (buf, size, "%.15g", value);
      if (strtod (buf, NULL) != value)
        snprintf (buf, size, "%.17g", value);
    }
}

static void
append_double (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  format_double (buf, sizeof buf, value);
  if (isfinite (value))
    g_string_append (out, buf);
  else
    g_string_append_printf (out, "\"%s\"", buf);
}

/* A value as typed: plain or scientific, inf/nan (refused later by index), or
 * CLI.md's suffixes K, M, B, T. */
static gboolean
parse_value (const char *text,
             double     *out)
{
  char *end = NULL;

  *out = g_ascii_strtod (text, &end);
  if (end != text && end != NULL)
    {
      while (g_ascii_isspace (*end))
        end++;
      if (*end == '\0')
        return TRUE;
    }
  return nk_units_parse (text, out, NULL);
}

static gboolean
load_npy (const char  *path,
          GArray      *values,
          gboolean     json,
          int         *exit_code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkNpyArray) array = nk_npy_array_load (path, &error);
  guint64 n;

  if (array == NULL)
    {
      *exit_code = nk_cli_fail (json, NK_EXIT_UNSATISFIABLE, _("%s: %s"), path, error->message);
      return FALSE;
    }
  n = nk_npy_array_get_n_elements (array);
  switch (nk_npy_array_get_dtype (array))
    {
    case NK_NPY_F4:
      {
        const float *f = nk_npy_array_get_data (array);

        for (guint64 i = 0; i < n; i++)
          {
            double d = f[i];

            g_array_append_val (values, d);
          }
      }
      break;
    case NK_NPY_F8:
      g_array_append_vals (values, nk_npy_array_get_data (array), n);
      break;
    default:
      *exit_code = nk_cli_fail (json, NK_EXIT_USAGE,
                                /* Translators: "x.npy: its dtype is <i4, not float32 or float64" */
                                _("%s: its dtype is %s, not float32 (<f4) or float64 (<f8)"),
                                path, nk_npy_dtype_to_descr (nk_npy_array_get_dtype (array)));
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_stdin (GArray   *values,
            gboolean  json,
            int      *exit_code)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  guint64 line_number = 0;
  gboolean ok = TRUE;

  while ((len = getline (&line, &cap, stdin)) != -1)
    {
      double v;

      line_number++;
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
      g_strstrip (line);
      if (line[0] == '\0')
        continue;
      if (memchr (line, '\0', len) != NULL || !g_utf8_validate (line, -1, NULL)
          || !parse_value (line, &v))
        {
          g_autofree char *quoted = nk_cli_quote (line);

          *exit_code = nk_cli_fail (json, NK_EXIT_USAGE,
                                    /* Translators: "line 3: “abc” is not a number" */
                                    _("line %" PRIu64 ": %s is not a number"),
                                    line_number, quoted);
          ok = FALSE;
          break;
        }
      g_array_append_val (values, v);
    }
  free (line);
  return ok;
}

static const char *
change_name (NkQuantizeChange change)
{
  switch (change)
    {
    case NK_QUANTIZE_EXACT: return "exact";
    case NK_QUANTIZE_ROUNDED: return "rounded";
    case NK_QUANTIZE_FLUSHED: return "flushed";
    case NK_QUANTIZE_CLIPPED: return "clipped";
    default: return "";
    }
}

static char *
scale_bits_text (NkQuantization *q,
                 guint32         bits)
{
  return g_strdup_printf ("0x%02x", bits);
}

/* Compact, as every other command's JSON (no blank between tokens), and written
 * by hand as `format` writes its rows: a 16M-element .npy becomes one string, not
 * a JsonBuilder tree of 16M nodes. */
static void
print_json (NkQuantization *q,
            const char     *rule_name,
            const char     *rounding_name)
{
  const NkBlockFormatInfo *info = nk_block_format_info (nk_quantization_get_format (q));
  g_autoptr(GString) out = g_string_new (NULL);
  NkQuantizeSummary sum;

  nk_quantization_get_summary (q, &sum);
  g_string_append (out, "{\"format\":");
  nk_json_append_string (out, info->name, -1);
  g_string_append_printf (out, ",\"block\":%u,\"scale_rounding\":\"%s\",\"rounding\":\"%s\""
                          ",\"n\":%" G_GSIZE_FORMAT ",\"bits_per_element\":",
                          nk_quantization_get_block_size (q), rule_name, rounding_name,
                          nk_quantization_get_n_values (q));
  append_double (out, nk_quantization_get_bits_per_element (q));
  if (nk_quantization_get_format (q) == NK_BLOCK_FORMAT_NVFP4)
    {
      g_string_append (out, ",\"tensor_scale\":");
      append_double (out, nk_quantization_get_tensor_scale (q));
      g_string_append_printf (out, ",\"tensor_scale_bits\":\"0x%08x\"",
                              nk_quantization_get_tensor_scale_bits (q));
    }
  g_string_append (out, ",\"blocks\":[");
  for (guint b = 0; b < nk_quantization_get_n_blocks (q); b++)
    {
      NkQuantizeBlock blk;
      g_autofree char *bits = NULL;

      nk_quantization_get_block (q, b, &blk);
      bits = scale_bits_text (q, blk.scale_bits);
      g_string_append (out, b ? ",{\"scale\":" : "{\"scale\":");
      append_double (out, blk.scale);
      g_string_append_printf (out, ",\"scale_bits\":\"%s\",\"amax\":", bits);
      append_double (out, blk.amax);
      g_string_append_printf (out, ",\"amax_index\":%" G_GSIZE_FORMAT
                              ",\"flushed\":%u,\"clipped\":%u,\"codes\":[",
                              blk.amax_index, blk.n_flushed, blk.n_clipped);
      for (guint i = 0; i < blk.length; i++)
        {
          NkQuantizeElement e;
          g_autofree char *code = NULL;

          nk_quantization_get_element (q, blk.start + i, &e);
          code = nk_quantization_format_code (q, e.code);
          g_string_append_printf (out, i ? ",\"%s\"" : "\"%s\"", code);
        }
      g_string_append (out, "],\"values\":[");
      for (guint i = 0; i < blk.length; i++)
        {
          NkQuantizeElement e;

          nk_quantization_get_element (q, blk.start + i, &e);
          if (i)
            g_string_append_c (out, ',');
          append_double (out, e.value);
        }
      g_string_append (out, "]}");
    }
  g_string_append (out, "],\"error\":{\"max_abs\":");
  append_double (out, sum.max_abs);
  g_string_append (out, ",\"rmse\":");
  append_double (out, sum.rmse);
  g_string_append (out, ",\"max_rel\":");
  append_double (out, sum.max_rel);
  g_string_append_printf (out, "},\"flushed\":%" G_GSIZE_FORMAT ",\"clipped\":%"
                          G_GSIZE_FORMAT "}\n", sum.n_flushed, sum.n_clipped);
  fwrite (out->str, 1, out->len, stdout);
}

/* The scale as people read it: 2^k for an E8M0 scale, the value for E4M3. */
static char *
scale_text (NkQuantization  *q,
            NkQuantizeBlock *blk)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  format_double (buf, sizeof buf, blk->scale);
  if (nk_quantization_get_format (q) != NK_BLOCK_FORMAT_NVFP4)
    return g_strdup_printf ("2^%d = %s", (int) blk->scale_bits - 127, buf);
  return g_strdup (buf);
}

static void
print_human (NkQuantization *q,
             const char     *rule_name,
             const char     *rounding_name)
{
  const NkBlockFormatInfo *info = nk_block_format_info (nk_quantization_get_format (q));
  g_autoptr(GString) out = g_string_new (NULL);
  NkQuantizeSummary sum;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b2[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];

  nk_quantization_get_summary (q, &sum);
  g_string_append_printf (out, "%-18s ", _("format"));
  /* Translators: "MXFP8 (E4M3) (e4m3 elements, e8m0 scale per 32)" */
  g_string_append_printf (out, _("%s (%s elements, %s scale per %u)"),
                          info->name, info->element_name, info->scale_dtype_name,
                          nk_quantization_get_block_size (q));
  g_string_append_c (out, '\n');
  if (nk_quantization_get_format (q) != NK_BLOCK_FORMAT_NVFP4)
    g_string_append_printf (out, "%-18s %s\n", _("scale rounding"), rule_name);
  g_string_append_printf (out, "%-18s %s\n", _("rounding"), rounding_name);
  format_double (a, sizeof a, nk_quantization_get_bits_per_element (q));
  g_string_append_printf (out, "%-18s %s\n", _("bits per element"), a);
  if (nk_quantization_get_format (q) == NK_BLOCK_FORMAT_NVFP4)
    {
      format_double (a, sizeof a, nk_quantization_get_tensor_scale (q));
      g_string_append_printf (out, "%-18s %s (0x%08x)\n", _("tensor scale"), a,
                              nk_quantization_get_tensor_scale_bits (q));
    }
  format_double (a, sizeof a, sum.max_abs);
  format_double (b2, sizeof b2, sum.rmse);
  format_double (c, sizeof c, sum.max_rel);
  g_string_append_printf (out, "%-18s max_abs %s, rmse %s, max_rel %s\n", _("error"), a, b2, c);
  g_string_append_printf (out, "%-18s %" G_GSIZE_FORMAT " %s, %" G_GSIZE_FORMAT " %s, %"
                          G_GSIZE_FORMAT " %s, %" G_GSIZE_FORMAT " %s\n", _("elements"),
                          sum.n_exact, _("exact"), sum.n_rounded, _("rounded"),
                          sum.n_flushed, _("flushed"), sum.n_clipped, _("clipped"));

  for (guint b = 0; b < nk_quantization_get_n_blocks (q); b++)
    {
      NkQuantizeBlock blk;
      g_autofree char *scale = NULL;
      g_autofree char *bits = NULL;

      nk_quantization_get_block (q, b, &blk);
      scale = scale_text (q, &blk);
      bits = scale_bits_text (q, blk.scale_bits);
      format_double (a, sizeof a, blk.amax);
      g_string_append_printf (out, "\n");
      g_string_append_printf (out,
                              /* Translators: "block 0: scale 2^-2 = 0.25 (0x7d), largest |value| 1.5 (index 3)" */
                              _("block %u: scale %s (%s), largest |value| %s (index %zu)"),
                              b, scale, bits, a, blk.amax_index);
      g_string_append_c (out, '\n');
      g_string_append_printf (out, "  %8s  %-24s %-6s %-24s %-24s %s\n", _("index"), _("input"),
                              _("code"), _("value"), _("error"), _("change"));
      for (guint i = 0; i < blk.length; i++)
        {
          NkQuantizeElement e;
          g_autofree char *code = NULL;

          nk_quantization_get_element (q, blk.start + i, &e);
          code = nk_quantization_format_code (q, e.code);
          format_double (a, sizeof a, e.input);
          format_double (b2, sizeof b2, e.value);
          format_double (c, sizeof c, e.abs_error);
          g_string_append_printf (out, "  %8" G_GSIZE_FORMAT "  %-24s %-6s %-24s %-24s %s\n",
                                  blk.start + i, a, code, b2, c, change_name (e.change));
        }
    }
  fwrite (out->str, 1, out->len, stdout);
}

/* The values: the arguments, one .npy file, or standard input. */
static gboolean
read_values (char                 **remaining,
             const NkCliNegatives  *negatives,
             GArray     *values,
             gboolean    json,
             int        *exit_code)
{
  if (remaining == NULL || remaining[0] == NULL)
    return read_stdin (values, json, exit_code);
  if (remaining[1] == NULL && g_str_has_suffix (remaining[0], ".npy"))
    return load_npy (remaining[0], values, json, exit_code);
  for (guint i = 0; remaining[i] != NULL; i++)
    {
      const char *text = nk_cli_negatives_original (negatives, remaining[i]);
      double v;

      if (!parse_value (text, &v))
        {
          g_autofree char *quoted = nk_cli_quote (text);

          *exit_code = nk_cli_fail (json, NK_EXIT_USAGE,
                                    /* Translators: "value 2: “abc” is not a number" */
                                    _("value %u: %s is not a number"), i, quoted);
          return FALSE;
        }
      g_array_append_val (values, v);
    }
  return TRUE;
}

/* The flags after --format; returns an exit code, or -1. */
static int
parse_settings (const char     *block_text,
                const char     *rule_name,
                const char     *rounding_name,
                const char     *seed_text,
                gboolean        json,
                guint          *block,
                NkMxScaleRule  *rule,
                NkRoundingMode *rounding,
                guint64        *seed)
{
  g_autoptr(GError) error = NULL;

  if (block_text != NULL)
    {
      double b;

      if (!nk_cli_parse_number ("--block", block_text, &b, &error))
        return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
      if (!(b >= 1 && b <= G_MAXINT32 && b == floor (b)))
        return nk_cli_fail (json, NK_EXIT_USAGE,
                            _("--block: “%s” is not a whole number of at least 1"), block_text);
      *block = (guint) b;
    }
  if (rule_name != NULL && !nk_mx_scale_rule_from_name (rule_name, rule, &error))
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--scale-rounding: %s"), error->message);
  if (rounding_name != NULL && strcmp (rounding_name, "stochastic") == 0)
    *rounding = NK_ROUNDING_MODE_STOCHASTIC;
  else if (rounding_name != NULL && strcmp (rounding_name, "nearest") != 0)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--rounding: “%s” is not nearest or stochastic"), rounding_name);
  if (seed_text != NULL)
    {
      char *end = NULL;

      *seed = g_ascii_strtoull (seed_text, &end, 10);
      if (seed_text[0] == '\0' || seed_text[0] == '-' || end == NULL || *end != '\0')
        return nk_cli_fail (json, NK_EXIT_USAGE,
                            _("--seed: “%s” is not a whole number of at least 0"), seed_text);
    }
  return -1;
}

int
nk_cli_quantize_main (int    argc,
                      char **argv)
{
  g_autofree char *format_name = NULL;
  g_autofree char *rule_name = NULL;
  g_autofree char *rounding_name = NULL;
  g_autofree char *block_text = NULL;
  g_autofree char *seed_text = NULL;
  g_auto(GStrv) remaining = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_auto(NkCliNegatives) negatives = { 0 };
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GError) error = NULL;
  g_autoptr(NkQuantization) q = NULL;
  gboolean json = nk_cli_wants_json (argc, argv);
  NkBlockFormat format;
  NkMxScaleRule rule = NK_MX_SCALE_FLOOR;
  NkRoundingMode rounding = NK_ROUNDING_MODE_NEAREST_EVEN;
  NkRng *rng = NULL;
  guint block;
  guint64 seed = 0;
  char **parse_argv;
  int parse_argc;
  int exit_code = NK_EXIT_OK;
  const GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_name,
      N_("Block format: mxfp8-e4m3, mxfp8-e5m2, mxfp6-e3m2, mxfp6-e2m3, mxfp4, mxint8 or nvfp4"), "F" },
    { "block", 0, 0, G_OPTION_ARG_STRING, &block_text,
      N_("Elements per block (default 32; nvfp4 16)"), "N" },
    { "scale-rounding", 0, 0, G_OPTION_ARG_STRING, &rule_name,
      N_("MX scale rule: floor (OCP v1.0, default) or up (nothing clips)"), "RULE" },
    { "rounding", 0, 0, G_OPTION_ARG_STRING, &rounding_name,
      N_("Element rounding: nearest (ties to even, default) or stochastic"), "MODE" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text,
      N_("Seed of stochastic rounding (default 0)"), "S" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("One JSON object"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &remaining, NULL,
      N_("[VALUE… | FILE.npy]") },
    { NULL }
  };

  /* Negative values are values, not options. */
  nk_cli_negatives_init (&negatives, argc, argv);
  parse_argc = (int) negatives.argv->len - 1;
  parse_argv = (char **) negatives.argv->pdata;

  context = g_option_context_new (_("— a vector in a block-scaled format (MX, NVFP4)"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Values come from the arguments, a float32/float64 .npy file (flattened), or\n"
      "standard input, one per line. MX: blocks share an E8M0 scale\n"
      "X = 2^(floor(log2 amax) − emax); elements are v / X rounded and saturated.\n"
      "NVFP4: E2M1 elements, an E4M3 scale per 16, an fp32 tensor scale."));
  if (!nk_cli_parse_options (context, &parse_argc, &parse_argv, json, &exit_code))
    return exit_code;

  if (format_name == NULL)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--format is required (mxfp8-e4m3, mxfp8-e5m2, mxfp6-e3m2, "
                          "mxfp6-e2m3, mxfp4, mxint8 or nvfp4)"));
  if (!nk_block_format_from_name (format_name, &format, &error))
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--format: %s"), error->message);
  block = nk_block_format_info (format)->default_block;
  if ((exit_code = parse_settings (block_text, rule_name, rounding_name, seed_text, json,
                                   &block, &rule, &rounding, &seed)) >= 0)
    return exit_code;
  exit_code = NK_EXIT_OK;

  if (!read_values (remaining, &negatives, values, json, &exit_code))
    return exit_code;

  if (values->len == 0)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("no values given (arguments, a .npy file or standard input)"));

  if (rounding == NK_ROUNDING_MODE_STOCHASTIC)
    rng = nk_rng_new (seed);
  q = nk_quantize (format, (const double *) values->data, values->len, block, rule, rounding,
                   rng, &error);
  g_clear_pointer (&rng, nk_rng_free);
  if (q == NULL)
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);

  setvbuf (stdout, NULL, _IOFBF, 1 << 20);
  if (json)
    print_json (q, rule == NK_MX_SCALE_UP ? "up" : "floor",
                rounding == NK_ROUNDING_MODE_STOCHASTIC ? "stochastic" : "nearest");
  else
    print_human (q, rule == NK_MX_SCALE_UP ? "up" : "floor",
                 rounding == NK_ROUNDING_MODE_STOCHASTIC ? "stochastic" : "nearest");
  return NK_EXIT_OK;
}
