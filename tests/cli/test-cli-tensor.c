/* test-cli-tensor.c: napkin-cli tensor, run as a person or a script would
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>

#include "nk-test-json.h"
#include "nk-test-util.h"

typedef struct {
  int    status;
  char  *out;
  char  *err;
  char **lines;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
  g_clear_pointer (&run->lines, g_strfreev);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Takes what nk_test_run_cli() captured, and splits stdout into lines. */
static gboolean
take_run (Run       *run,
          NkTestRun *done,
          gboolean   ran)
{
  if (!ran)
    return FALSE;
  g_assert_cmpint (done->status, >=, 0);
  run->status = done->status;
  run->out = g_steal_pointer (&done->out);
  run->err = g_steal_pointer (&done->err);
  run->lines = g_strsplit (g_strchomp (run->out), "\n", -1);
  return TRUE;
}

/* Runs napkin-cli with a NULL-terminated list of arguments. Returns FALSE (and
 * skips) outside meson test. */
static gboolean
run_cli (Run *run,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_auto(NkTestRun) done = { 0 };
  const char *arg;
  va_list ap;

  va_start (ap, run);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return take_run (run, &done, nk_test_run_cli (&done, NULL, (const char *const *) args->pdata, NULL, 0));
}

/* Runs napkin-cli with @input on its standard input. */
static gboolean
run_cli_stdin (Run         *run,
               const char  *input,
               gsize        input_len,
               const char  *const *args)
{
  g_auto(NkTestRun) done = { 0 };

  return take_run (run, &done, nk_test_run_cli (&done, NULL, args, input, input_len));
}

static JsonObject *
parse_line (const char *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, line, -1, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
assert_int_array (JsonObject   *o,
                  const char   *member,
                  guint         n,
                  const gint64 *expected)
{
  JsonArray *a = json_object_get_array_member (o, member);

  g_assert_nonnull (a);
  g_assert_cmpuint (json_array_get_length (a), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (json_array_get_int_element (a, i), ==, expected[i]);
}

static void
assert_values (JsonObject   *o,
               guint         n,
               const double *expected)
{
  JsonArray *a = json_object_get_array_member (o, "values");

  g_assert_nonnull (a);
  g_assert_cmpuint (json_array_get_length (a), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (json_node_get_double (json_array_get_element (a, i)), ==, expected[i]);
}

#define INTS(...) G_N_ELEMENTS (((const gint64[]) { __VA_ARGS__ })), ((const gint64[]) { __VA_ARGS__ })
#define DOUBLES(...) G_N_ELEMENTS (((const double[]) { __VA_ARGS__ })), ((const double[]) { __VA_ARGS__ })

/* Done means: the transposed view fails with PyTorch's reason, exit 1 */
static void
test_view_of_transpose (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) o = NULL;

  if (!run_cli (&run, "tensor", "--json", "x = arange(12).view(3, 4); y = x.t(); y.view(12)", NULL))
    return;
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpuint (g_strv_length (run.lines), ==, 1);
  o = parse_line (run.lines[0]);
  g_assert_nonnull (strstr (json_object_get_string_member (o, "error"),
                            "view size is not compatible with input tensor's size and stride"));
  g_assert_cmpint (json_object_get_int_member (o, "statement"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (o, "column"), ==, 3);
  g_assert_nonnull (strstr (run.err, "view size is not compatible"));
}

/* Every field of CLI.md for a strided view: x[1:3, ::2] of a 4×4 starts at 4 (one
 * row of 4 in), steps 4 per row and 2 per column. */
static void
test_fields (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) o = NULL;
  JsonObject *storage;

  if (!run_cli (&run, "tensor", "--json", "x = arange(16).view(4, 4); y = x[1:3, ::2]", NULL))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpuint (g_strv_length (run.lines), ==, 1);
  o = parse_line (run.lines[0]);
  g_assert_cmpstr (json_object_get_string_member (o, "name"), ==, "y");
  assert_int_array (o, "shape", INTS (2, 2));
  assert_int_array (o, "stride", INTS (4, 2));
  g_assert_cmpint (json_object_get_int_member (o, "offset"), ==, 4);
  g_assert_false (json_object_get_boolean_member (o, "contiguous"));
  g_assert_cmpstr (json_object_get_string_member (o, "dtype"), ==, "f32");
  g_assert_cmpint (json_object_get_int_member (o, "numel"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (o, "bytes"), ==, 16);
  storage = json_object_get_object_member (o, "storage");
  g_assert_nonnull (storage);
  g_assert_cmpint (json_object_get_int_member (storage, "numel"), ==, 16);
  g_assert_cmpint (json_object_get_int_member (storage, "id"), >=, 1);
  assert_values (o, DOUBLES (4, 6, 8, 10));
}

/* --all: every named tensor in order; views carry their base's storage id */
static void
test_all (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) x = NULL, y = NULL, z = NULL;
  JsonObject *xs, *ys, *zs;

  if (!run_cli (&run, "tensor", "--json", "--all",
                "x = arange(6).view(2, 3)\ny = x.t()\nn = y.is_contiguous()\nz = y.contiguous()\ny[0, 1] = 100",
                NULL))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpuint (g_strv_length (run.lines), ==, 3);
  x = parse_line (run.lines[0]);
  y = parse_line (run.lines[1]);
  z = parse_line (run.lines[2]);
  g_assert_cmpstr (json_object_get_string_member (x, "name"), ==, "x");
  g_assert_cmpstr (json_object_get_string_member (y, "name"), ==, "y");
  g_assert_cmpstr (json_object_get_string_member (z, "name"), ==, "z");
  xs = json_object_get_object_member (x, "storage");
  ys = json_object_get_object_member (y, "storage");
  zs = json_object_get_object_member (z, "storage");
  g_assert_cmpint (json_object_get_int_member (xs, "id"), ==, json_object_get_int_member (ys, "id"));
  g_assert_cmpint (json_object_get_int_member (xs, "id"), !=, json_object_get_int_member (zs, "id"));
  /* y[0, 1] is x[1, 0]: the write shows in x, not in the copy z */
  assert_values (x, DOUBLES (0, 1, 2, 100, 4, 5));
  assert_values (z, DOUBLES (0, 3, 1, 4, 2, 5));
  assert_int_array (y, "stride", INTS (1, 3));
}

static void
test_scalars (void)
{
  struct {
    const char *program;
    const char *json;
  } cases[] = {
    { "x = arange(16).view(4, 4); x.stride(0)", "{\"value\":4}" },
    { "x = arange(16).view(4, 4); x.t().is_contiguous()", "{\"value\":false}" },
    { "x = arange(16).view(4, 4); x.stride()", "{\"value\":[4,1]}" },
    { "x = arange(16).view(4, 4); same_storage(x, x[1])", "{\"value\":true}" },
    { "x = arange(16).view(4, 4); x[1:].storage_offset()", "{\"value\":4}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Run) run = { 0 };

      if (!run_cli (&run, "tensor", "--json", cases[i].program, NULL))
        return;
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.lines[0], ==, cases[i].json);
    }
}

static void
test_errors (void)
{
  {
    /* a syntax error is a failing statement too: exit 1, with the column */
    g_auto(Run) run = { 0 };
    g_autoptr(JsonObject) o = NULL;

    if (!run_cli (&run, "tensor", "--json", "x = arange(4); y = x[1,,2]", NULL))
      return;
    g_assert_cmpint (run.status, ==, 1);
    o = parse_line (run.lines[0]);
    g_assert_cmpint (json_object_get_int_member (o, "statement"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (o, "column"), ==, 9);
    g_assert_true (g_str_has_prefix (json_object_get_string_member (o, "error"),
                                     "statement 2, column 9: "));
  }
  {
    g_auto(Run) run = { 0 };

    run_cli (&run, "tensor", "x = arange(1e12)", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_nonnull (strstr (run.err, "more than the 4194304"));
  }
  {
    /* usage errors are 2 */
    const char *bad[][3] = {
      { "tensor", NULL, NULL },
      { "tensor", "--frob", "x = 1" },
      { "tensor", "--dtype=int9", "x = 1" },
      { "tensor", "x = 1", "y = 2" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_auto(Run) run = { 0 };
        g_autoptr(JsonObject) o = NULL;

        run_cli (&run, bad[i][0], "--json", bad[i][1], bad[i][2], NULL);
        g_assert_cmpint (run.status, ==, 2);
        o = parse_line (run.lines[0]);
        g_assert_true (json_object_has_member (o, "error"));
        g_assert_cmpstr (run.err, !=, "");
      }
  }
}

/* --dtype: bytes shrink with the format, values are rounded to it */
static void
test_dtype (void)
{
  const char *dtypes[] = { "f32", "f16", "bf16", "e4m3" };
  const gint64 sizes[] = { 4, 2, 2, 1 };

  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) o = NULL;

      if (!run_cli (&run, "tensor", "--json", "--dtype", dtypes[i], "arange(16).view(4, 4)", NULL))
        return;
      g_assert_cmpint (run.status, ==, 0);
      o = parse_line (run.lines[0]);
      g_assert_cmpstr (json_object_get_string_member (o, "dtype"), ==, dtypes[i]);
      g_assert_cmpint (json_object_get_int_member (o, "bytes"), ==, 16 * sizes[i]);
      g_assert_true (json_object_get_null_member (o, "name"));
    }
}

/* Without --json, for people: the layout and the grid */
static void
test_human (void)
{
  g_auto(Run) run = { 0 };

  if (!run_cli (&run, "tensor", "x = arange(16).view(4, 4); x.t()", NULL))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "x.t()"));
  g_assert_nonnull (strstr (run.out, "(1, 4)"));
  g_assert_nonnull (strstr (run.out, "[[ 0,  4,  8, 12],\n"));
}

/* A program starting with "-" is the program (issue 11), given alone or after "--":
 * -arange(3) is 0, -1, -2 (negation by hand). */
static void
test_leading_minus (void)
{
  const char *forms[][4] = {
    { "tensor", "--json", "-arange(3)", NULL },
    { "tensor", "--json", "--", "-arange(3)" },
    { "tensor", "-arange(3)", "--json", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      g_auto(Run) run = { 0 };
      g_autoptr(JsonObject) o = NULL;

      if (!run_cli (&run, forms[i][0], forms[i][1], forms[i][2], forms[i][3], NULL))
        return;
      g_assert_cmpint (run.status, ==, 0);
      o = parse_line (run.lines[0]);
      assert_values (o, DOUBLES (-0.0, -1, -2));
    }
  {
    /* options stay options: an unknown long one is still bad usage */
    g_auto(Run) run = { 0 };

    run_cli (&run, "tensor", "--frob", "-arange(3)", NULL);
    g_assert_cmpint (run.status, ==, 2);
  }
}

/* `tensor -` reads the program from standard input, so one longer than a command
 * line holds (128 KiB for one argument) runs: 30,000 increments of x make 30000. */
static void
test_stdin (void)
{
  static const char *const args[] = { "tensor", "--json", "-", NULL };
  g_autoptr(GString) program = g_string_new ("x = 0\n");
  g_auto(Run) run = { 0 };

  for (int i = 0; i < 30000; i++)
    g_string_append (program, "x = x + 1\n");
  g_string_append (program, "x");
  g_assert_cmpuint (program->len, >, 128 * 1024);
  if (!run_cli_stdin (&run, program->str, program->len, args))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.lines[0], ==, "{\"value\":30000}");
}

/* Bytes that are not text are bad input (exit 2) with one sentence, from an
 * argument and from standard input alike; the JSON error stays valid UTF-8. */
static void
test_not_text (void)
{
  static const char *const args[] = { "tensor", "--json", "-", NULL };
  {
    g_auto(Run) run = { 0 };
    g_autoptr(JsonObject) o = NULL;
    g_auto(GStrv) err_lines = NULL;

    if (!run_cli (&run, "tensor", "--json", "x = \"\xff\"", NULL))
      return;
    g_assert_cmpint (run.status, ==, 2);
    o = parse_line (run.lines[0]);
    g_assert_nonnull (strstr (json_object_get_string_member (o, "error"), "not valid UTF-8"));
    g_assert_nonnull (strstr (run.err, "offset 5"));
    err_lines = g_strsplit (g_strchomp (run.err), "\n", -1);
    g_assert_cmpuint (g_strv_length (err_lines), ==, 1);
  }
  {
    g_auto(Run) run = { 0 };

    if (!run_cli_stdin (&run, "x = 1\0y", 7, args))
      return;
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "NUL byte at offset 5"));
  }
  {
    g_auto(Run) run = { 0 };

    if (!run_cli_stdin (&run, "x = '\xc3'", 7, args))
      return;
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "not valid UTF-8"));
  }
}

/* --all --json over aliases of a 4 Mi-element view (issue 11: 50 aliases printed
 * 318 MB): the first tensor is whole, the run's budget of 4194304 values is then
 * spent, and the others hold their first and last 3 values with "values_elided".
 * Oracle for the summary: b is arange(20000), so its ends are 0 1 2 and
 * 19997 19998 19999, and 20000 − 6 = 19994 were left out. */
static void
test_all_bounded (void)
{
  g_autoptr(GString) program = g_string_new ("a = ones(4194304); b = arange(20000)");
  g_auto(Run) run = { 0 };
  gsize total = 0;

  for (int i = 0; i < 50; i++)
    g_string_append_printf (program, "; c%d = a", i);
  if (!run_cli (&run, "tensor", "--json", "--all", program->str, NULL))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpuint (g_strv_length (run.lines), ==, 52);
  g_assert_nonnull (strstr (run.lines[0], "\"numel\":4194304"));
  g_assert_null (strstr (run.lines[0], "values_elided"));
  for (guint i = 1; i < 52; i++)
    {
      g_autoptr(JsonObject) o = parse_line (run.lines[i]);
      JsonObject *elided = json_object_get_object_member (o, "values_elided");
      gint64 numel = json_object_get_int_member (o, "numel");

      g_assert_nonnull (elided);
      g_assert_cmpint (json_object_get_int_member (elided, "start"), ==, 3);
      g_assert_cmpint (json_object_get_int_member (elided, "count"), ==, numel - 6);
      if (i == 1)
        assert_values (o, DOUBLES (0, 1, 2, 19997, 19998, 19999));
      else
        assert_values (o, DOUBLES (1, 1, 1, 1, 1, 1));
      total += strlen (run.lines[i]);
    }
  /* the 51 summaries together are a few kilobytes, not 51 × 16 MB */
  g_assert_cmpuint (total, <, 51 * 400);
}

/* For people, a tensor of more than 1000 elements is summarised as PyTorch's
 * print does (threshold 1000, edgeitems 3): torch.arange(4096).view(64, 64). */
static void
test_human_summary (void)
{
  g_auto(Run) run = { 0 };

  if (!run_cli (&run, "tensor", "arange(4096).view(64, 64)", NULL))
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out,
                            "  [[   0,    1,    2,  ...,   61,   62,   63],\n"
                            "   [  64,   65,   66,  ...,  125,  126,  127],\n"
                            "   [ 128,  129,  130,  ...,  189,  190,  191],\n"
                            "   ...,\n"
                            "   [3904, 3905, 3906,  ..., 3965, 3966, 3967],\n"));
  g_assert_nonnull (strstr (run.out, "[4032, 4033, 4034,  ..., 4093, 4094, 4095]]"));
}

/* Issue 21, item 16, as the issue typed it: -1 keeps a size in every existing dim,
 * after any number of new leading ones. Oracle: PyTorch 1.13 prints
 * torch.Size([2, 5, 5]), stride (0, 5, 1), storage_offset 0. */
static void
test_expand_keep_each (void)
{
  g_auto(Run) run = { 0 };
  g_autoptr(JsonObject) o = NULL;

  if (!run_cli (&run, "tensor", "--json",
                "x = arange(25).view(5, 5); x[0:6:1, :].expand(2, -1, -1)", NULL))
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.lines[0]);
  assert_int_array (o, "shape", INTS (2, 5, 5));
  assert_int_array (o, "stride", INTS (0, 5, 1));
  g_assert_cmpint (json_object_get_int_member (o, "offset"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (o, "numel"), ==, 50);
}

/* Issue 21, item 13: a control character in the program comes back inside the error
 * sentence; every one below 0x20 (and DEL) is escaped, so the line is strict JSON
 * (before: json-glib 1.6 left 0x1f raw). Oracle: the strict RFC 8259 checker. */
static void
test_json_controls (void)
{
  for (guint c = 1; c <= 0x7f; c = c == 0x1f ? 0x7f : c + 1)
    {
      g_auto(Run) run = { 0 };
      g_autofree char *program = g_strdup_printf ("x = arange(3) %c", c);

      if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
        continue;  /* white space or a statement break: not an error */
      if (!run_cli (&run, "tensor", "--json", program, NULL))
        return;
      g_assert_cmpint (run.status, ==, 1);
      g_assert_cmpuint (nk_test_json_assert_lines (run.out, strlen (run.out)), ==, 1);
      g_assert_nonnull (strstr (run.out, "\"error\""));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* A napkin-cli that exits without reading its standard input fails a test with
   * EPIPE, instead of killing the test runner. */
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/cli/tensor/view-of-transpose", test_view_of_transpose);
  g_test_add_func ("/cli/tensor/fields", test_fields);
  g_test_add_func ("/cli/tensor/all", test_all);
  g_test_add_func ("/cli/tensor/scalars", test_scalars);
  g_test_add_func ("/cli/tensor/errors", test_errors);
  g_test_add_func ("/cli/tensor/dtype", test_dtype);
  g_test_add_func ("/cli/tensor/human", test_human);
  g_test_add_func ("/cli/tensor/leading-minus", test_leading_minus);
  g_test_add_func ("/cli/tensor/stdin", test_stdin);
  g_test_add_func ("/cli/tensor/not-text", test_not_text);
  g_test_add_func ("/cli/tensor/all-bounded", test_all_bounded);
  g_test_add_func ("/cli/tensor/human-summary", test_human_summary);
  g_test_add_func ("/cli/tensor/expand-keep-each", test_expand_keep_each);
  g_test_add_func ("/cli/tensor/json-controls", test_json_controls);

  return g_test_run ();
}
