/* test-cli-format.c: `napkin-cli format` as CLI.md states it: fields, exit codes, stdin
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the built napkin-cli (NAPKIN_CLI) and checks its answers against worked
 * examples and against the C compiler's own float conversion.
 */
#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-test-util.h"

static void
run_cli (const char  *input,
         NkTestRun   *run,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  va_start (ap, run);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  input = input != NULL ? input : "";
  nk_test_run_cli (run, "format", (const char *const *) args->pdata, input, strlen (input));
}

/* The JSON objects of stdout, one per line. */
static GPtrArray *
parse_lines (const char *out)
{
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      if (lines[i][0] == '\0')
        continue;
      json_parser_load_from_data (parser, lines[i], -1, &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
      g_ptr_array_add (objects, json_node_copy (json_parser_get_root (parser)));
    }
  return objects;
}

static JsonObject *
object_at (GPtrArray *objects,
           guint      i)
{
  g_assert_cmpuint (i, <, objects->len);
  return json_node_get_object (g_ptr_array_index (objects, i));
}

static void
test_e4m3_overflow (void)
{
  g_auto(NkTestRun) plain = { 0 };
  g_auto(NkTestRun) saturate = { 0 };
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;

  run_cli (NULL, &plain, "--dtype", "e4m3", "--json", "465", "464", "inf", NULL);
  g_assert_cmpint (plain.status, ==, 0);
  a = parse_lines (plain.out);
  g_assert_cmpuint (a->len, ==, 3);
  g_assert_cmpstr (json_object_get_string_member (object_at (a, 0), "bits"), ==, "0x7f");
  g_assert_cmpstr (json_object_get_string_member (object_at (a, 0), "class"), ==, "nan");
  g_assert_cmpstr (json_object_get_string_member (object_at (a, 0), "value"), ==, "nan");
  g_assert_cmpstr (json_object_get_string_member (object_at (a, 1), "bits"), ==, "0x7e");
  g_assert_cmpfloat (json_object_get_double_member (object_at (a, 1), "value"), ==, 448);
  g_assert_cmpstr (json_object_get_string_member (object_at (a, 2), "bits"), ==, "0x7f");

  run_cli (NULL, &saturate, "--dtype", "e4m3", "--saturate", "--json", "465", "inf", "nan", NULL);
  g_assert_cmpint (saturate.status, ==, 0);
  b = parse_lines (saturate.out);
  g_assert_cmpstr (json_object_get_string_member (object_at (b, 0), "bits"), ==, "0x7e");
  g_assert_cmpfloat (json_object_get_double_member (object_at (b, 0), "value"), ==, 448);
  g_assert_cmpfloat (json_object_get_double_member (object_at (b, 0), "abs_error"), ==, 17);
  g_assert_cmpstr (json_object_get_string_member (object_at (b, 1), "bits"), ==, "0x7e");
  g_assert_cmpstr (json_object_get_string_member (object_at (b, 2), "bits"), ==, "0x7f");
}

static void
test_json_fields (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(GPtrArray) objects = NULL;
  JsonObject *o;

  run_cli (NULL, &run, "--dtype", "fp16", "--json", "1e-8", "65504", "0x0001", "-0", "1", NULL);
  g_assert_cmpint (run.status, ==, 0);
  objects = parse_lines (run.out);
  g_assert_cmpuint (objects->len, ==, 5);

  /* the lecture: 1e-8 underflows in float16 */
  o = object_at (objects, 0);
  g_assert_cmpstr (json_object_get_string_member (o, "dtype"), ==, "f16");
  g_assert_cmpstr (json_object_get_string_member (o, "input"), ==, "1e-8");
  g_assert_cmpstr (json_object_get_string_member (o, "bits"), ==, "0x0000");
  g_assert_cmpstr (json_object_get_string_member (o, "class"), ==, "zero");
  g_assert_cmpint (json_object_get_int_member (o, "sign"), ==, 0);
  g_assert_true (json_object_get_null_member (o, "exponent"));
  g_assert_cmpfloat (json_object_get_double_member (o, "value"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (o, "exact"), ==, "0");
  g_assert_cmpfloat (json_object_get_double_member (o, "abs_error"), ==, 1e-8);
  g_assert_cmpfloat (json_object_get_double_member (o, "rel_error"), ==, 1);

  o = object_at (objects, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "bits"), ==, "0x7bff");
  g_assert_cmpstr (json_object_get_string_member (o, "class"), ==, "normal");
  g_assert_cmpint (json_object_get_int_member (o, "exponent"), ==, 15);
  g_assert_cmpfloat (json_object_get_double_member (o, "value"), ==, 65504);

  /* raw bits: a subnormal, with its effective exponent 1 − 15, and no error fields */
  o = object_at (objects, 2);
  g_assert_cmpstr (json_object_get_string_member (o, "class"), ==, "subnormal");
  g_assert_cmpint (json_object_get_int_member (o, "exponent"), ==, -14);
  g_assert_cmpfloat (json_object_get_double_member (o, "value"), ==, ldexp (1, -24));
  g_assert_cmpstr (json_object_get_string_member (o, "exact"), ==, "0.000000059604644775390625");
  g_assert_false (json_object_has_member (o, "abs_error"));
  g_assert_false (json_object_has_member (o, "rel_error"));

  o = object_at (objects, 3);
  g_assert_cmpstr (json_object_get_string_member (o, "bits"), ==, "0x8000");
  g_assert_cmpint (json_object_get_int_member (o, "sign"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "exact"), ==, "-0");

  o = object_at (objects, 4);
  g_assert_cmpstr (json_object_get_string_member (o, "bits"), ==, "0x3c00");
  g_assert_cmpint (json_object_get_int_member (o, "exponent"), ==, 0);
}

/* bf16 keeps 1e-8 (the lecture), bits are full width, e5m2 max and overflow. */
static void
test_other_formats (void)
{
  g_auto(NkTestRun) bf16 = { 0 };
  g_auto(NkTestRun) e5m2 = { 0 };
  g_auto(NkTestRun) f32 = { 0 };
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;
  g_autoptr(GPtrArray) c = NULL;

  run_cli (NULL, &bf16, "--dtype", "bfloat16", "--json", "1e-8", NULL);
  a = parse_lines (bf16.out);
  g_assert_cmpstr (json_object_get_string_member (object_at (a, 0), "class"), ==, "normal");
  g_assert_cmpfloat (json_object_get_double_member (object_at (a, 0), "value"), !=, 0);

  run_cli (NULL, &e5m2, "--dtype", "fp8-e5m2", "--json", "57344", "61440", NULL);
  b = parse_lines (e5m2.out);
  g_assert_cmpstr (json_object_get_string_member (object_at (b, 0), "bits"), ==, "0x7b");
  g_assert_cmpstr (json_object_get_string_member (object_at (b, 1), "value"), ==, "inf");
  g_assert_cmpstr (json_object_get_string_member (object_at (b, 1), "class"), ==, "inf");

  run_cli (NULL, &f32, "--dtype", "float", "--json", "1", NULL);
  c = parse_lines (f32.out);
  g_assert_cmpstr (json_object_get_string_member (object_at (c, 0), "bits"), ==, "0x3f800000");
  g_assert_cmpstr (json_object_get_string_member (object_at (c, 0), "dtype"), ==, "f32");
}

static void
test_negative_items (void)
{
  const char *forms[][5] = {
    { "--dtype", "e4m3", "--json", "-465", NULL },
    { "--dtype", "e4m3", "--json", "--", "-465" },
    { "-465", "--json", "--dtype", "e4m3", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(GPtrArray) objects = NULL;

      run_cli (NULL, &run, forms[i][0], forms[i][1], forms[i][2], forms[i][3], forms[i][4], NULL);
      g_assert_cmpint (run.status, ==, 0);
      objects = parse_lines (run.out);
      g_assert_cmpuint (objects->len, ==, 1);
      g_assert_cmpstr (json_object_get_string_member (object_at (objects, 0), "input"), ==, "-465");
      g_assert_cmpstr (json_object_get_string_member (object_at (objects, 0), "bits"), ==, "0xff");
    }

  {
    g_auto(NkTestRun) run = { 0 };
    g_autoptr(GPtrArray) objects = NULL;

    run_cli (NULL, &run, "--dtype", "f16", "--json", "-inf", "-0.5", "-pi", NULL);
    g_assert_cmpint (run.status, ==, 0);
    objects = parse_lines (run.out);
    g_assert_cmpstr (json_object_get_string_member (object_at (objects, 0), "bits"), ==, "0xfc00");
    g_assert_cmpstr (json_object_get_string_member (object_at (objects, 1), "bits"), ==, "0xb800");
    g_assert_cmpstr (json_object_get_string_member (object_at (objects, 2), "bits"), ==, "0xc248");
  }
}

static void
test_exit_codes (void)
{
  struct { const char *args[4]; const char *named; } bad[] = {
    { { "--dtype", "e4m3", "abc", NULL }, "abc" },
    { { "--dtype", "e4m3", "0x3c00", NULL }, "0x3c00" },
    { { "--dtype", "e4m3", "", NULL }, "empty" },
    { { "--dtype", "f8", "1", NULL }, "f8" },
    { { "--dtype", "f64", "1", NULL }, "f64" },
    { { "1", NULL }, "--dtype" },
    { { "--dtype", "e4m3", "--frobnicate", "1" }, "frobnicate" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(GPtrArray) objects = NULL;

      run_cli (NULL, &run, "--json", bad[i].args[0], bad[i].args[1], bad[i].args[2], bad[i].args[3], NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, bad[i].named));
      /* one sentence, one line */
      g_assert_cmpint (strchr (run.err, '\n') - run.err, ==, (int) strlen (run.err) - 1);
      objects = parse_lines (run.out);
      g_assert_cmpuint (objects->len, ==, 1);
      g_assert_true (json_object_has_member (object_at (objects, 0), "error"));
    }
}

/* Many lines in one process; each answer equals the compiler's float conversion. */
static void
test_stdin (void)
{
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GPtrArray) objects = NULL;
  g_auto(NkTestRun) run = { 0 };
  GRand *rand = g_rand_new_with_seed (42);
  const guint n = 20000;

  for (guint i = 0; i < n; i++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double v = ldexp (g_rand_double_range (rand, -2, 2), g_rand_int_range (rand, -155, 130));

      g_array_append_val (values, v);
      g_string_append (input, g_ascii_dtostr (buf, sizeof buf, v));
      g_string_append (input, i % 2 ? "\r\n" : "\n");
    }
  g_rand_free (rand);

  run_cli (input->str, &run, "--dtype", "f32", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  objects = parse_lines (run.out);
  g_assert_cmpuint (objects->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = object_at (objects, i);
      float f = (float) g_array_index (values, double, i);
      guint32 u;
      g_autofree char *hex = NULL;

      memcpy (&u, &f, sizeof u);
      hex = g_strdup_printf ("0x%08x", u);
      g_assert_cmpstr (json_object_get_string_member (o, "bits"), ==, hex);
      if (isinf (f))
        g_assert_cmpstr (json_object_get_string_member (o, "value"), ==, f > 0 ? "inf" : "-inf");
      else
        g_assert_cmpfloat (json_object_get_double_member (o, "value"), ==, (double) f);
    }
}

static void
test_stdin_bad_line (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(GPtrArray) objects = NULL;

  run_cli ("1\n2\nbanana\n4\n", &run, "--dtype", "bf16", "--json", NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "banana"));
  g_assert_nonnull (strstr (run.err, "3"));
  objects = parse_lines (run.out);
  /* the two good lines, then the error object */
  g_assert_cmpuint (objects->len, ==, 3);
  g_assert_true (json_object_has_member (object_at (objects, 2), "error"));
}

/* The human table: every row's cells start where the header's columns do. */
static void
test_human_aligned (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;
  const char *bits_col, *class_col;

  run_cli (NULL, &run, "--dtype", "e4m3", "465", "1", "-0.0001", "0x01", NULL);
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 6);  /* header, 4 rows, "" */
  bits_col = strstr (lines[0], "BITS");
  class_col = strstr (lines[0], "CLASS");
  g_assert_nonnull (bits_col);
  g_assert_nonnull (class_col);
  g_assert_true (g_str_has_prefix (lines[1] + (bits_col - lines[0]), "0x7f"));
  g_assert_true (g_str_has_prefix (lines[2] + (bits_col - lines[0]), "0x38"));
  g_assert_true (g_str_has_prefix (lines[3] + (bits_col - lines[0]), "0x80"));
  g_assert_true (g_str_has_prefix (lines[4] + (bits_col - lines[0]), "0x01"));
  g_assert_true (g_str_has_prefix (lines[1] + (class_col - lines[0]), "nan"));
  g_assert_true (g_str_has_prefix (lines[4] + (class_col - lines[0]), "subnormal"));
}

/* As run_cli(), with any bytes on stdin and in the arguments, and the output kept as
 * bytes (it must be checked for UTF-8, not assumed to be). */
static void
run_cli_bytes (const char         *input,
               gsize               input_len,
               NkTestRun          *run,
               const char *const  *argv)
{
  nk_test_run_cli (run, "format", argv, input, input_len);
  /* nothing the CLI prints holds a NUL */
  g_assert_cmpuint (strlen (run->out), ==, run->out_len);
  g_assert_cmpuint (strlen (run->err), ==, run->err_len);
}

/* A failure as CLI.md has it: exit 2, one valid-UTF-8 line on stderr, and with
 * --json one valid JSON {"error"} object on stdout. */
static void
check_one_line_failure (const NkTestRun  *run,
                        const char *needle)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  const char *nl;

  g_test_message ("stderr: %s", run->err);
  g_assert_cmpint (run->status, ==, 2);
  g_assert_true (g_utf8_validate (run->err, -1, NULL));
  nl = strchr (run->err, '\n');
  g_assert_nonnull (nl);
  g_assert_cmpstr (nl + 1, ==, "");
  g_assert_nonnull (strstr (run->err, needle));
  g_assert_true (g_utf8_validate (run->out, -1, NULL));
  g_assert_true (json_parser_load_from_data (parser, run->out, -1, &error));
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (json_node_get_object (json_parser_get_root (parser)),
                                         "error"));
}

/* Hostile bytes on stdin and in arguments (issue 11). Before: "1\0009" was read as
 * "1" (exit 0); 0xFF went raw into the JSON; an invalid argument was "Invalid byte
 * sequence in conversion input"; a newline split the message in two; a 100 KB item
 * was echoed whole. */
static void
test_hostile_input (void)
{
  {
    g_auto(NkTestRun) run = { 0 };
    const char *argv[] = { "--dtype", "f16", "--json", NULL };

    run_cli_bytes ("1\0009\n", 4, &run, argv);
    check_one_line_failure (&run, "“1\\09”: it holds a NUL byte");
  }
  {
    g_auto(NkTestRun) run = { 0 };
    const char *argv[] = { "--dtype", "f16", "--json", NULL };

    run_cli_bytes ("0.5\n\xff\n", 6, &run, argv);
    g_assert_nonnull (strstr (run.out, "\"input\":\"0.5\""));
    {
      /* the good line's object, then the error object */
      const char *first_end = strchr (run.out, '\n');
      NkTestRun rest = { run.status, (char *) (first_end ? first_end + 1 : ""), run.err };

      check_one_line_failure (&rest, "line 2: “\\xff” is not a number");
    }
  }
  {
    g_auto(NkTestRun) run = { 0 };
    const char *argv[] = { "--dtype", "f16", "--json", "a\xff" "b", NULL };

    run_cli_bytes ("", 0, &run, argv);
    check_one_line_failure (&run, "“a\\xffb” is not valid UTF-8");
  }
  {
    g_auto(NkTestRun) run = { 0 };
    const char *argv[] = { "--dtype", "f16", "--json", "1\n2", NULL };

    run_cli_bytes ("", 0, &run, argv);
    check_one_line_failure (&run, "“1\\n2” is not a number");
  }
  {
    g_auto(NkTestRun) run = { 0 };
    g_autofree char *big = g_strnfill (100000, '7');
    const char *argv[] = { "--dtype", "f16", "--json", NULL, NULL };

    big[50] = 'x';
    argv[3] = big;
    run_cli_bytes ("", 0, &run, argv);
    check_one_line_failure (&run, "… (100000 bytes in all) is not a number");
    g_assert_cmpuint (strlen (run.err), <, 400);
  }
}

/* One item's "bits" (NULL when JSON null) for --dtype D [--rounding R] ITEM. */
static char *
bits_of (const char *dtype,
         const char *rounding,
         const char *item,
         char      **out_class)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(GPtrArray) rows = NULL;
  JsonObject *o;

  run_cli (NULL, &run, "--dtype", dtype, "--rounding", rounding, "--json", "--", item, NULL);
  g_assert_cmpint (run.status, ==, 0);
  rows = parse_lines (run.out);
  g_assert_cmpuint (rows->len, ==, 1);
  o = object_at (rows, 0);
  g_assert_cmpstr (json_object_get_string_member (o, "dtype"), ==, dtype);
  if (out_class)
    *out_class = g_strdup (json_object_get_string_member (o, "class"));
  if (json_object_get_null_member (o, "bits"))
    return NULL;
  return g_strdup (json_object_get_string_member (o, "bits"));
}

/* The element formats of issue 25 in every mode; expectations worked by hand from
 * the formats' definitions (fp4 e2m1's values 0 0.5 1 1.5 2 3 4 6, e8m0 2^(b−127),
 * the fnuz formats' bias 8/16 and NaN 0x80). */
static void
test_element_formats (void)
{
  static const struct { const char *dtype, *mode, *item, *bits, *klass; } cases[] = {
    /* 2.5 halfway between 2 (0x4) and 3 (0x5) */
    { "fp4-e2m1", "nearest", "2.5", "0x4", "normal" },
    { "fp4-e2m1", "up", "2.5", "0x5", "normal" },
    { "fp4-e2m1", "down", "2.5", "0x4", "normal" },
    { "fp4-e2m1", "zero", "2.5", "0x4", "normal" },
    { "fp4-e2m1", "nearest", "-2.5", "0xc", "normal" },
    { "fp4-e2m1", "up", "-2.5", "0xc", "normal" },
    { "fp4-e2m1", "down", "-2.5", "0xd", "normal" },
    { "fp4-e2m1", "zero", "-2.5", "0xc", "normal" },
    { "fp4-e2m1", "nearest", "0.25", "0x0", "zero" },     /* tie with 0.5: even 0 */
    { "fp4-e2m1", "up", "0.25", "0x1", "subnormal" },
    { "fp4-e2m1", "nearest", "7", "0x7", "normal" },      /* always saturates */
    { "fp4-e2m1", "up", "1e30", "0x7", "normal" },
    { "fp4-e2m1", "nearest", "-inf", "0xf", "normal" },
    { "fp4-e2m1", "nearest", "nan", NULL, "unrepresentable" },
    { "fp6-e3m2", "nearest", "28", "0x1f", "normal" },
    { "fp6-e3m2", "nearest", "0.0625", "0x01", "subnormal" },
    { "fp6-e3m2", "down", "27.9", "0x1e", "normal" },     /* 24 */
    { "fp6-e2m3", "nearest", "7.5", "0x1f", "normal" },
    { "fp6-e2m3", "zero", "-0.2", "0x21", "subnormal" },  /* −0.125 */
    { "fp6-e2m3", "stochastic", "nan", NULL, "unrepresentable" },
    { "e8m0", "nearest", "3", "0x80", "normal" },         /* the power of two at or below */
    { "e8m0", "up", "3", "0x81", "normal" },
    { "e8m0", "nearest", "1", "0x7f", "normal" },
    { "e8m0", "nearest", "5.877471754111438e-39", "0x00", "normal" },  /* 2^−127 */
    { "e8m0", "nearest", "0", NULL, "unrepresentable" },
    { "e8m0", "up", "-1", NULL, "unrepresentable" },
    { "e8m0", "nearest", "nan", "0xff", "nan" },
    { "e4m3fnuz", "nearest", "240", "0x7f", "normal" },
    { "e4m3fnuz", "nearest", "248", "0x80", "nan" },      /* rounds past 240: NaN */
    { "e4m3fnuz", "zero", "1000", "0x7f", "normal" },     /* toward zero: max */
    { "e4m3fnuz", "nearest", "-0", "0x00", "zero" },      /* no −0 */
    { "e4m3fnuz", "up", "-1e-30", "0x00", "zero" },
    { "e4m3fnuz", "down", "-1e-30", "0x81", "subnormal" },
    { "e5m2fnuz", "nearest", "57344", "0x7f", "normal" },
    { "e5m2fnuz", "nearest", "1", "0x40", "normal" },
    { "e5m2fnuz", "nearest", "inf", "0x80", "nan" },
    /* IEEE 754's directed overflow in the old formats */
    { "f16", "down", "1e9", "0x7bff", "normal" },
    { "f16", "up", "1e9", "0x7c00", "inf" },
    { "f16", "up", "-1e9", "0xfbff", "normal" },
    { "bf16", "zero", "1.00390625", "0x3f80", "normal" },
    { "bf16", "up", "1.00390625", "0x3f81", "normal" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *klass = NULL;
      g_autofree char *bits = bits_of (cases[i].dtype, cases[i].mode, cases[i].item, &klass);

      if (g_strcmp0 (bits, cases[i].bits) != 0 || g_strcmp0 (klass, cases[i].klass) != 0)
        g_error ("%s --rounding %s %s: bits %s class %s, want %s %s", cases[i].dtype,
                 cases[i].mode, cases[i].item, bits ? bits : "null", klass,
                 cases[i].bits ? cases[i].bits : "null", cases[i].klass);
    }

  /* bits as items decode; the fnuz NaN and e8m0's smallest value */
  {
    g_auto(NkTestRun) run = { 0 };
    g_autoptr(GPtrArray) rows = NULL;

    run_cli (NULL, &run, "--dtype", "e5m2fnuz", "--json", "0x01", "0x80", NULL);
    g_assert_cmpint (run.status, ==, 0);
    rows = parse_lines (run.out);
    g_assert_cmpstr (json_object_get_string_member (object_at (rows, 0), "exact"), ==,
                     "0.00000762939453125");  /* 2^−17 */
    g_assert_cmpint (json_object_get_int_member (object_at (rows, 0), "exponent"), ==, -15);
    g_assert_cmpstr (json_object_get_string_member (object_at (rows, 1), "class"), ==, "nan");
    g_assert_false (json_object_has_member (object_at (rows, 0), "abs_error"));
  }
}

/* --rounding stochastic: only the two neighbours, the same seed gives the same
 * bits, another seed other bits; stdin items draw in order. */
static void
test_stochastic (void)
{
  g_autoptr(GString) items = g_string_new (NULL);
  g_auto(NkTestRun) a = { 0 };
  g_auto(NkTestRun) b = { 0 };
  g_auto(NkTestRun) c = { 0 };
  g_autoptr(GPtrArray) rows = NULL;
  guint n_three = 0;

  for (int i = 0; i < 200; i++)
    g_string_append (items, "2.6\n");
  run_cli (items->str, &a, "--dtype", "fp4-e2m1", "--rounding", "stochastic", "--seed", "7", "--json", NULL);
  run_cli (items->str, &b, "--dtype", "fp4-e2m1", "--rounding", "stochastic", "--seed", "7", "--json", NULL);
  run_cli (items->str, &c, "--dtype", "fp4-e2m1", "--rounding", "stochastic", "--seed", "8", "--json", NULL);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpstr (a.out, ==, b.out);
  g_assert_cmpstr (a.out, !=, c.out);
  rows = parse_lines (a.out);
  g_assert_cmpuint (rows->len, ==, 200);
  for (guint i = 0; i < rows->len; i++)
    {
      const char *bits = json_object_get_string_member (object_at (rows, i), "bits");

      g_assert_true (g_str_equal (bits, "0x4") || g_str_equal (bits, "0x5"));
      n_three += g_str_equal (bits, "0x5");
    }
  /* P(3) = 0.6: 120 expected, standard deviation 6.9; 6 sigma either way */
  g_assert_cmpuint (n_three, >, 120 - 42);
  g_assert_cmpuint (n_three, <, 120 + 42);
}

static void
test_rounding_exit_codes (void)
{
  g_auto(NkTestRun) bad = { 0 };
  g_auto(NkTestRun) seed = { 0 };
  g_auto(NkTestRun) dtype = { 0 };

  run_cli (NULL, &bad, "--dtype", "f16", "--rounding", "sideways", "1", NULL);
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--rounding"));
  g_assert_nonnull (strstr (bad.err, "sideways"));
  run_cli (NULL, &seed, "--dtype", "f16", "--rounding", "stochastic", "--seed", "-3", "1", NULL);
  g_assert_cmpint (seed.status, ==, 2);
  g_assert_nonnull (strstr (seed.err, "--seed"));
  run_cli (NULL, &dtype, "--dtype", "fp5", "1", NULL);
  g_assert_cmpint (dtype.status, ==, 2);
  g_assert_nonnull (strstr (dtype.err, "fp4-e2m1"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/format/e4m3-overflow", test_e4m3_overflow);
  g_test_add_func ("/cli/format/json-fields", test_json_fields);
  g_test_add_func ("/cli/format/other-formats", test_other_formats);
  g_test_add_func ("/cli/format/negative-items", test_negative_items);
  g_test_add_func ("/cli/format/exit-codes", test_exit_codes);
  g_test_add_func ("/cli/format/stdin", test_stdin);
  g_test_add_func ("/cli/format/stdin-bad-line", test_stdin_bad_line);
  g_test_add_func ("/cli/format/human-aligned", test_human_aligned);
  g_test_add_func ("/cli/format/hostile-input", test_hostile_input);
  g_test_add_func ("/cli/format/element-formats", test_element_formats);
  g_test_add_func ("/cli/format/stochastic", test_stochastic);
  g_test_add_func ("/cli/format/rounding-exit-codes", test_rounding_exit_codes);

  return g_test_run ();
}
