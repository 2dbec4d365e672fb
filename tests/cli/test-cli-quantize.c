/* test-cli-quantize.c: napkin-cli quantize against CLI.md, answers worked by hand
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The expected codes and values below are worked out by hand from CLI.md's rules
 * (the workings are in the comments); test-quantize checks the engine against an
 * enumerating oracle on many more inputs.
 */
#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-npy.h"
#include "nk-test-util.h"

/* Every command prints compact JSON, one object on one line: no blank, tab or
 * newline between tokens. Read by hand, outside the strings (which may hold
 * blanks of their own), so the check does not lean on the writer's code. */
static void
assert_compact_line (const char *json)
{
  gboolean in_string = FALSE;
  const char *p;

  for (p = json; *p != '\0' && *p != '\n'; p++)
    {
      if (in_string && *p == '\\' && p[1] != '\0')
        p++;
      else if (*p == '"')
        in_string = !in_string;
      else if (!in_string && g_ascii_isspace (*p))
        g_error ("blank at byte %td outside a string in “%.60s…”", p - json, json);
    }
  g_assert_false (in_string);
  g_assert_cmpstr (p, ==, "\n");
}

static JsonObject *
run_json (NkTestRun *run, const char *const *args, const char *input)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  nk_test_run_cli (run, "quantize", args, input, input ? strlen (input) : 0);
  g_assert_cmpint (run->status, ==, 0);
  assert_compact_line (run->out);
  json_parser_load_from_data (parser, run->out, -1, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
assert_strings (JsonArray *a, const char *const *want)
{
  g_assert_cmpuint (json_array_get_length (a), ==, g_strv_length ((char **) want));
  for (guint i = 0; want[i]; i++)
    g_assert_cmpstr (json_array_get_string_element (a, i), ==, want[i]);
}

static void
assert_doubles (JsonArray *a, const double *want, guint n)
{
  g_assert_cmpuint (json_array_get_length (a), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (json_array_get_double_element (a, i), ==, want[i]);
}

static JsonObject *
block_at (JsonObject *o, guint i)
{
  return json_array_get_object_element (json_object_get_array_member (o, "blocks"), i);
}

static void
test_mxfp4 (void)
{
  /* amax 6: X = 2^(floor(log2 6) − 2) = 1 (E8M0 0x7f). 6 → 0x7; 2.5 is halfway
   * between 2 (0x4) and 3 (0x5): even → 2; −0.75 halfway between 0.5 (0x1)
   * and 1 (0x2): even → −1 (0xa); 0.1 < 0.25 → 0, flushed. */
  g_auto(NkTestRun) run = { 0 };
  const char *args[] = { "--format", "mxfp4", "--json", "6", "2.5", "-0.75", "0.1", NULL };
  const char *codes[] = { "0x7", "0x4", "0xa", "0x0", NULL };
  const double values[] = { 6, 2, -1, 0 };
  g_autoptr(JsonObject) o = run_json (&run, args, NULL);
  JsonObject *err = json_object_get_object_member (o, "error");

  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "mxfp4");
  g_assert_cmpint (json_object_get_int_member (o, "block"), ==, 32);
  g_assert_cmpfloat (json_object_get_double_member (o, "bits_per_element"), ==, 4.25);
  g_assert_false (json_object_has_member (o, "tensor_scale"));
  g_assert_cmpfloat (json_object_get_double_member (block_at (o, 0), "scale"), ==, 1.0);
  g_assert_cmpstr (json_object_get_string_member (block_at (o, 0), "scale_bits"), ==, "0x7f");
  assert_strings (json_object_get_array_member (block_at (o, 0), "codes"), codes);
  assert_doubles (json_object_get_array_member (block_at (o, 0), "values"), values, 4);
  /* errors 0, 0.5, 0.25, 0.1 */
  g_assert_cmpfloat (json_object_get_double_member (err, "max_abs"), ==, 0.5);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (err, "rmse"),
                                  sqrt ((0.25 + 0.0625 + 0.01) / 4), 1e-15);
  g_assert_cmpfloat (json_object_get_double_member (err, "max_rel"), ==, 1.0);
}

static void
test_scale_rounding (void)
{
  /* 500 in mxfp8-e4m3. floor: X = 2^(8 − 8) = 1, 500 > 448 clips to 448.
   * up: 500 / 1 > 448, so X = 2 (0x80); 250 lies between 240 and 256 → 256,
   * value 512. */
  g_auto(NkTestRun) r1 = { 0 };
  g_auto(NkTestRun) r2 = { 0 };
  const char *floor_args[] = { "--format", "mxfp8-e4m3", "--json", "500", NULL };
  const char *up_args[] = { "--format", "mxfp8-e4m3", "--scale-rounding", "up", "--json", "500", NULL };
  const double v_floor[] = { 448 }, v_up[] = { 512 };
  g_autoptr(JsonObject) f = run_json (&r1, floor_args, NULL);
  g_autoptr(JsonObject) u = run_json (&r2, up_args, NULL);

  g_assert_cmpstr (json_object_get_string_member (block_at (f, 0), "scale_bits"), ==, "0x7f");
  assert_doubles (json_object_get_array_member (block_at (f, 0), "values"), v_floor, 1);
  g_assert_cmpint (json_object_get_int_member (f, "clipped"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (block_at (u, 0), "scale_bits"), ==, "0x80");
  assert_doubles (json_object_get_array_member (block_at (u, 0), "values"), v_up, 1);
  g_assert_cmpint (json_object_get_int_member (u, "clipped"), ==, 0);
}

static void
test_nvfp4_stdin (void)
{
  /* amax 2688 = 6 × 448: s_t = 1; s_b = e4m3(2688 / 6) = 448 (0x7e);
   * 2688 / 448 = 6 → 0x7; 1 / 448 < 0.25 → 0. Read from stdin. */
  g_auto(NkTestRun) run = { 0 };
  const char *args[] = { "--format", "nvfp4", "--json", NULL };
  const char *codes[] = { "0x7", "0x0", NULL };
  const double values[] = { 2688, 0 };
  g_autoptr(JsonObject) o = run_json (&run, args, "2688\n1\n");

  g_assert_cmpint (json_object_get_int_member (o, "block"), ==, 16);
  g_assert_cmpfloat (json_object_get_double_member (o, "bits_per_element"), ==, 4.5);
  g_assert_cmpfloat (json_object_get_double_member (o, "tensor_scale"), ==, 1.0);
  g_assert_cmpfloat (json_object_get_double_member (block_at (o, 0), "scale"), ==, 448);
  g_assert_cmpstr (json_object_get_string_member (block_at (o, 0), "scale_bits"), ==, "0x7e");
  assert_strings (json_object_get_array_member (block_at (o, 0), "codes"), codes);
  assert_doubles (json_object_get_array_member (block_at (o, 0), "values"), values, 2);
}

static void
test_npy (void)
{
  /* a 2 × 3 float64 and float32 file, flattened; block 4 → a short last block */
  g_autofree char *dir = nk_test_make_temp_dir ("quantize");
  g_autofree char *p64 = g_build_filename (dir, "x64.npy", NULL);
  g_autofree char *p32 = g_build_filename (dir, "x32.npy", NULL);
  g_autofree char *pi4 = g_build_filename (dir, "xi4.npy", NULL);
  const double d[6] = { 1, 2, 3, 4, 0.5, -8 };
  const float f[6] = { 1, 2, 3, 4, 0.5f, -8 };
  const gint32 ints[6] = { 1, 2, 3, 4, 5, 6 };
  const gint64 shape[2] = { 2, 3 };
  /* mxint8, blocks [1 2 3 4] [0.5 −8]: X = 2^2 → k/64 × 4 exact for all;
   * X = 2^3 → 0.5 / 8 = 4/64, −8 / 8 = −1 = −64/64 (0xc0) */
  const char *codes1[] = { "0x04", "0xc0", NULL };
  const double values1[] = { 0.5, -8 };
  g_autoptr(GError) error = NULL;

  g_assert_true (nk_npy_save (p64, NK_NPY_F8, 2, shape, d, &error));
  g_assert_true (nk_npy_save (p32, NK_NPY_F4, 2, shape, f, &error));
  g_assert_true (nk_npy_save (pi4, NK_NPY_I4, 2, shape, ints, &error));
  for (guint k = 0; k < 2; k++)
    {
      g_auto(NkTestRun) run = { 0 };
      const char *args[] = { "--format", "mxint8", "--block", "4", "--json", k ? p32 : p64, NULL };
      g_autoptr(JsonObject) o = run_json (&run, args, NULL);

      g_assert_cmpint (json_object_get_int_member (o, "n"), ==, 6);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "blocks")), ==, 2);
      g_assert_cmpfloat (json_object_get_double_member (block_at (o, 0), "scale"), ==, 4);
      assert_strings (json_object_get_array_member (block_at (o, 1), "codes"), codes1);
      assert_doubles (json_object_get_array_member (block_at (o, 1), "values"), values1, 2);
      g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "error"),
                                                        "max_abs"), ==, 0);
    }
  {
    g_auto(NkTestRun) run = { 0 };
    const char *args[] = { "--format", "mxint8", pi4, NULL };

    nk_test_run_cli (&run, "quantize", args, NULL, 0);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "<i4"));
  }
  nk_test_remove_tree (dir);
}

static void
test_stochastic_seed (void)
{
  const char *a[] = { "--format", "mxfp4", "--rounding", "stochastic", "--seed", "7", "--json",
                      "6", "0.3", "1.2", "-2.6", "0.9", "4.4", NULL };
  g_auto(NkTestRun) r1 = { 0 };
  g_auto(NkTestRun) r2 = { 0 };

  nk_test_run_cli (&r1, "quantize", a, NULL, 0);
  nk_test_run_cli (&r2, "quantize", a, NULL, 0);
  g_assert_cmpint (r1.status, ==, 0);
  g_assert_cmpstr (r1.out, ==, r2.out);
  g_assert_nonnull (strstr (r1.out, "\"rounding\":\"stochastic\""));
}

static void
test_errors (void)
{
  struct { const char *args[8]; const char *needle; } cases[] = {
    { { "--format", "mxfp4", "1", "nan", "3", NULL }, "value 1 " },
    { { "--format", "mxfp4", "1", "-inf", NULL }, "value 1 " },
    { { "--format", "mxfp5", "1", NULL }, "mxfp5" },
    { { "1", NULL }, "--format" },
    { { "--format", "mxfp4", "--block", "0", "1", NULL }, "--block" },
    { { "--format", "mxfp4", "--scale-rounding", "ceil", "1", NULL }, "ceil" },
    { { "--format", "mxfp4", "--rounding", "up", "1", NULL }, "--rounding" },
    { { "--format", "mxfp4", "--seed", "-1", "1", NULL }, "--seed" },
    { { "--format", "mxfp4", "1", "abc", NULL }, "abc" },
    { { "--format", "mxfp4", "--frobnicate", "1", NULL }, "frobnicate" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_auto(NkTestRun) jrun = { 0 };
      g_autoptr(GPtrArray) jargs = g_ptr_array_new ();

      nk_test_run_cli (&run, "quantize", cases[i].args, NULL, 0);
      g_assert_cmpint (run.status, ==, 2);
      if (strstr (run.err, cases[i].needle) == NULL)
        g_error ("case %u: “%s” not in “%s”", i, cases[i].needle, run.err);
      /* with --json, the error is also a JSON object on stdout */
      g_ptr_array_add (jargs, (gpointer) "--json");
      for (guint k = 0; cases[i].args[k]; k++)
        g_ptr_array_add (jargs, (gpointer) cases[i].args[k]);
      g_ptr_array_add (jargs, NULL);
      nk_test_run_cli (&jrun, "quantize", (const char *const *) jargs->pdata, NULL, 0);
      g_assert_cmpint (jrun.status, ==, 2);
      g_assert_nonnull (strstr (jrun.out, "{\"error\""));
    }
}

static void
test_human (void)
{
  g_auto(NkTestRun) run = { 0 };
  const char *args[] = { "--format", "mxfp4", "6", "2.5", "-0.75", "0.1", NULL };

  nk_test_run_cli (&run, "quantize", args, NULL, 0);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "bits per element   4.25"));
  g_assert_nonnull (strstr (run.out, "block 0: scale 2^0 = 1 (0x7f), largest |value| 6 (index 0)"));
  g_assert_nonnull (strstr (run.out, "flushed"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-quantize/mxfp4", test_mxfp4);
  g_test_add_func ("/cli-quantize/scale-rounding", test_scale_rounding);
  g_test_add_func ("/cli-quantize/nvfp4-stdin", test_nvfp4_stdin);
  g_test_add_func ("/cli-quantize/npy", test_npy);
  g_test_add_func ("/cli-quantize/stochastic-seed", test_stochastic_seed);
  g_test_add_func ("/cli-quantize/errors", test_errors);
  g_test_add_func ("/cli-quantize/human", test_human);
  return g_test_run ();
}
