/* test-program.c: the tensor language: parser, error positions, and the lecture's examples
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-program.h"
#include "nk-program-private.h"

/* ---- helpers --------------------------------------------------------------------- */

static void
assert_dump (const char *source,
             const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dump = _nk_program_dump (source, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (dump, ==, expected);
}

static NkProgram *
run_ok (const char *source)
{
  NkProgram *program = nk_program_new ();
  g_autoptr(GError) error = NULL;

  nk_program_run (program, source, &error);
  g_assert_no_error (error);
  return program;
}

/* Runs @source, expects it to fail at @statement/@column with @code, and that the
 * reason contains @needle. */
static void
assert_fails (const char *source,
              int         code,
              guint       statement,
              guint       column,
              const char *needle)
{
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *prefix = NULL;

  g_assert_false (nk_program_run (program, source, &error));
  g_assert_error (error, NK_PROGRAM_ERROR, code);
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("“%s”: message “%s” lacks “%s”", source, error->message, needle);
  if (nk_program_get_error_statement (program) != statement ||
      nk_program_get_error_column (program) != column)
    g_error ("“%s”: failed at statement %u, column %u, not %u, %u (%s)", source,
             nk_program_get_error_statement (program), nk_program_get_error_column (program),
             statement, column, error->message);
  prefix = g_strdup_printf ("statement %u, column %u: ", statement, column);
  g_assert_true (g_str_has_prefix (error->message, prefix));
  g_assert_cmpstr (error->message + strlen (prefix), ==, nk_program_get_error_reason (program));
}

static NkTensor *
tensor_of (NkProgram  *program,
           const char *name)
{
  NkProgramValue *value = name ? nk_program_lookup (program, name)
                               : nk_program_get_last_value (program);

  g_assert_nonnull (value);
  g_assert_cmpint (nk_program_value_get_kind (value), ==, NK_PROGRAM_VALUE_TENSOR);
  return nk_program_value_get_tensor (value);
}

static void
assert_layout (NkTensor     *t,
               int           ndim,
               const gint64 *shape,
               const gint64 *stride,
               gint64        offset)
{
  g_assert_cmpint (t->ndim, ==, ndim);
  for (int i = 0; i < ndim; i++)
    {
      g_assert_cmpint (t->shape[i], ==, shape[i]);
      g_assert_cmpint (t->stride[i], ==, stride[i]);
    }
  g_assert_cmpint (t->offset, ==, offset);
}

static void
assert_values (NkTensor     *t,
               gsize         n,
               const double *expected)
{
  gsize got_n = 0;
  g_autofree double *got = nk_tensor_to_doubles (t, &got_n);

  g_assert_cmpuint (got_n, ==, n);
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (got[i], expected[i], 1e-6);
}

#define LAYOUT(...) ((const gint64[]) { __VA_ARGS__ })
#define VALUES(...) G_N_ELEMENTS (((const double[]) { __VA_ARGS__ })), ((const double[]) { __VA_ARGS__ })

/* ---- parser ---------------------------------------------------------------------- */

static void
test_parse_precedence (void)
{
  /* Python's: * / @ bind tighter than + -, unary minus tighter still, left to right */
  assert_dump ("a + b * c @ d - -e / f", "(- (+ a (@ (* b c) d)) (/ (- e) f))");
  assert_dump ("a - b - c", "(- (- a b) c)");
  assert_dump ("(a - b) * c", "(* (- a b) c)");
  assert_dump ("-x.t()", "(- (.t x))");
  assert_dump ("x.T.shape", "(. (. x T) shape)");
}

static void
test_parse_constructs (void)
{
  assert_dump ("x = arange(12).view(3, 4); y = x.t(); y.view(12)",
               "(= x (.view (call arange 12) 3 4)); (= y (.t x)); (.view y 12)");
  assert_dump ("x[1, -2, ::2, 1:, :3, 1:5:2, ..., None]",
               "([] x 1 (- 2) (: _ _ 2) (: 1 _ _) (: _ 3 _) (: 1 5 2) ... None)");
  assert_dump ("x[0][0] = 100", "(= ([] ([] x 0) 0) 100)");
  assert_dump ("x[:, 1] = -1.5", "(= ([] x (: _ _ _) 1) (- 1.5))");
  assert_dump ("rearrange(x, \"b (h d) -> b h d\", h=2)",
               "(call rearrange x \"b (h d) -> b h d\" h=2)");
  assert_dump ("reduce(x, '... h -> ...', 'sum')", "(call reduce x \"... h -> ...\" \"sum\")");
  assert_dump ("x.sum(dim=(0, 1), keepdim=True)", "(.sum x dim=(tuple 0 1) keepdim=True)");
  assert_dump ("tensor([[1, 2],\n  [3, 4]])\nz = ()\nw = (3,)",
               "(call tensor (list (list 1 2) (list 3 4))); (= z (tuple)); (= w (tuple 3))");
  assert_dump ("x = 1.5e3 + .5 + 1_000  # a comment", "(= x (+ (+ 1500.0 0.5) 1000))");
  assert_dump (";; x = 1;\n\n y = x ;", "(= x 1); (= y x)");
  assert_dump ("same_storage(a, b)", "(call same_storage a b)");
  assert_dump ("x.view(-1)", "(.view x (- 1))");
  assert_dump ("", "");
}

static void
test_parse_errors (void)
{
  /* columns counted by hand, from 1 at the statement's first character */
  assert_fails ("x = arange(4)\ny = x[1,,2]", NK_PROGRAM_ERROR_SYNTAX, 2, 9, "expected a value");
  assert_fails ("x = 1; y = $", NK_PROGRAM_ERROR_SYNTAX, 2, 5, "“$”");
  assert_fails ("x = 1;   $", NK_PROGRAM_ERROR_SYNTAX, 2, 1, "“$”");
  assert_fails ("x = (1, 2", NK_PROGRAM_ERROR_SYNTAX, 1, 10, "to close the tuple");
  assert_fails ("x.view(3, 4", NK_PROGRAM_ERROR_SYNTAX, 1, 12, "to close the argument list");
  assert_fails ("x = = 2", NK_PROGRAM_ERROR_SYNTAX, 1, 5, "expected a value");
  assert_fails ("1 = x", NK_PROGRAM_ERROR_SYNTAX, 1, 3, "can be assigned");
  assert_fails ("x = 1 2", NK_PROGRAM_ERROR_SYNTAX, 1, 7, "before a number");
  assert_fails ("x = y[]", NK_PROGRAM_ERROR_SYNTAX, 1, 7, "index is missing");
  assert_fails ("x = \"abc", NK_PROGRAM_ERROR_SYNTAX, 1, 5, "not closed");
  assert_fails ("f(a=1, 2)", NK_PROGRAM_ERROR_SYNTAX, 1, 8, "positional argument");
  assert_fails ("x = 1 = 2", NK_PROGRAM_ERROR_SYNTAX, 1, 7, "only assign once");
  assert_fails ("x = ...", NK_PROGRAM_ERROR_SYNTAX, 1, 5, "inside [ ]");
  assert_fails ("x = 12abc", NK_PROGRAM_ERROR_SYNTAX, 1, 5, "is not a number");
  /* Columns count characters, not bytes: “é” is two bytes of UTF-8 */
  assert_fails ("s = 'é'; t = é", NK_PROGRAM_ERROR_SYNTAX, 2, 5, "“é”");

  {
    /* A hostile nesting depth is an error, not a stack overflow */
    g_autoptr(GString) deep = g_string_new ("x = ");

    for (int i = 0; i < 10000; i++)
      g_string_append_c (deep, '(');
    assert_fails (deep->str, NK_PROGRAM_ERROR_SYNTAX, 1, 69, "nested");
  }
}

/* The statements before a syntax error still run (what the page shows). */
static void
test_parse_error_keeps_earlier (void)
{
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;

  g_assert_false (nk_program_run (program, "x = arange(4)\ny = x[1", &error));
  g_assert_error (error, NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_SYNTAX);
  g_assert_cmpuint (nk_program_get_n_statements (program), ==, 1);
  g_assert_cmpuint (nk_program_get_error_statement (program), ==, 2);
  g_assert_nonnull (nk_program_lookup (program, "x"));
}

/* ---- evaluation: the lecture ----------------------------------------------------- */

static void
test_eval_storage (void)
{
  /* "Tensor storage": stride(0) == 4, stride(1) == 1, and [1, 2] at index 6 */
  g_autoptr(NkProgram) program =
    run_ok ("x = tensor([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]])\n"
            "s0 = x.stride(0)\n"
            "s1 = x.stride(1)\n"
            "e = x[1, 2]\n"
            "i = 1 * x.stride(0) + 2 * x.stride(1)");
  NkTensor *e;

  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "s0")), ==, 4);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "s1")), ==, 1);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "i")), ==, 6);
  e = tensor_of (program, "e");
  g_assert_cmpint (e->ndim, ==, 0);
  g_assert_cmpint (e->offset, ==, 6);
  assert_values (e, VALUES (6));
  g_assert_cmpstr (nk_program_get_name_shares_with (program, 3), ==, "x");
}

static void
test_eval_slicing (void)
{
  /* "Tensor slicing (views)", step by step */
  g_autoptr(NkProgram) program =
    run_ok ("x = tensor([[1, 2, 3], [4, 5, 6]])\n"
            "r = x[0]\n"
            "c = x[:, 1]\n"
            "v = x.view(3, 2)\n"
            "y = x.transpose(1, 0)\n"
            "x[0][0] = 100\n"
            "same = same_storage(x, y)\n"
            "yc = y.is_contiguous()");

  assert_values (tensor_of (program, "r"), VALUES (100, 2, 3));
  assert_layout (tensor_of (program, "c"), 1, LAYOUT (2), LAYOUT (3), 1);
  assert_values (tensor_of (program, "c"), VALUES (2, 5));
  assert_values (tensor_of (program, "v"), VALUES (100, 2, 3, 4, 5, 6));
  assert_layout (tensor_of (program, "y"), 2, LAYOUT (3, 2), LAYOUT (1, 3), 0);
  /* mutating x mutated y: y[0][0] == 100 */
  assert_values (tensor_of (program, "y"), VALUES (100, 4, 2, 5, 3, 6));
  g_assert_true (nk_program_value_get_bool (nk_program_lookup (program, "same")));
  g_assert_false (nk_program_value_get_bool (nk_program_lookup (program, "yc")));
}

static void
test_eval_view_of_transpose (void)
{
  /* PyTorch's own words (checked with torch 2.x): */
  assert_fails ("x = arange(12).view(3, 4); y = x.t(); y.view(12)", NK_PROGRAM_ERROR_SHAPE, 3, 3,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");

  {
    /* ...and the fix: contiguous() copies, then view works */
    g_autoptr(NkProgram) program =
      run_ok ("x = arange(12).view(3, 4); y = x.t(); z = y.contiguous().view(12)\n"
              "s = same_storage(x, z)");

    assert_values (tensor_of (program, "z"), VALUES (0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11));
    g_assert_false (nk_program_value_get_bool (nk_program_lookup (program, "s")));
    g_assert_null (nk_program_get_name_shares_with (program, 2));
    g_assert_cmpstr (nk_program_get_name_shares_with (program, 1), ==, "x");
  }
}

static void
test_eval_write_through (void)
{
  g_autoptr(NkProgram) program = run_ok ("x = arange(16).view(4, 4); y = x[0]; y[0] = 100\n"
                                         "c = x[:, 2]; c[1:] = -1");
  NkProgramValue *last = nk_program_get_statement_value (program, 2);

  /* y[0] = 100 wrote x's storage; the statement's value is y after the write */
  assert_values (tensor_of (program, "x"),
                 VALUES (100, 1, 2, 3, 4, 5, -1, 7, 8, 9, -1, 11, 12, 13, -1, 15));
  g_assert_cmpstr (nk_program_get_statement_name (program, 2), ==, "y");
  assert_values (nk_program_value_get_tensor (last), VALUES (100, 1, 2, 3));
}

static void
test_eval_views (void)
{
  g_autoptr(NkProgram) program =
    run_ok ("x = arange(16).view(4, 4)\n"
            "a = x[::2, 1:3]\n"
            "b = x.view(2, 8)\n"
            "c = arange(4).expand(3, 4)\n"
            "d = x.narrow(1, 1, 2)\n"
            "e = x.select(1, 3)\n"
            "f = x.unsqueeze(0)\n"
            "g = f.squeeze()\n"
            "h = x.permute(1, 0)\n"
            "i = x.T\n"
            "j = x.reshape(8, 2)\n"
            "k = x.t().reshape(16)\n"
            "l = x[..., None, -1]\n"
            "m = x.flatten()\n"
            "n = x.clone()\n");

  assert_layout (tensor_of (program, "a"), 2, LAYOUT (2, 2), LAYOUT (8, 1), 1);
  assert_values (tensor_of (program, "a"), VALUES (1, 2, 9, 10));
  assert_layout (tensor_of (program, "b"), 2, LAYOUT (2, 8), LAYOUT (8, 1), 0);
  assert_layout (tensor_of (program, "c"), 2, LAYOUT (3, 4), LAYOUT (0, 1), 0);
  assert_layout (tensor_of (program, "d"), 2, LAYOUT (4, 2), LAYOUT (4, 1), 1);
  assert_layout (tensor_of (program, "e"), 1, LAYOUT (4), LAYOUT (4), 3);
  assert_layout (tensor_of (program, "h"), 2, LAYOUT (4, 4), LAYOUT (1, 4), 0);
  assert_layout (tensor_of (program, "i"), 2, LAYOUT (4, 4), LAYOUT (1, 4), 0);
  assert_layout (tensor_of (program, "j"), 2, LAYOUT (8, 2), LAYOUT (2, 1), 0);
  g_assert_cmpint (tensor_of (program, "f")->ndim, ==, 3);
  g_assert_cmpint (tensor_of (program, "g")->ndim, ==, 2);
  /* PyTorch: unsqueeze gives the new dim stride size·stride of the dim it precedes */
  assert_layout (tensor_of (program, "l"), 2, LAYOUT (4, 1), LAYOUT (4, 4), 3);
  assert_values (tensor_of (program, "k"), VALUES (0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));

  /* Views share x's storage; reshape of a transpose, clone and expand of another
   * tensor do not. Names come in statement order. */
  g_assert_cmpuint (nk_program_get_n_names (program), ==, 15);
  for (guint i = 0; i < 15; i++)
    {
      const char *name = nk_program_get_name (program, i);
      const char *shares = nk_program_get_name_shares_with (program, i);
      gboolean view_of_x = strchr ("abdefghijlm", name[0]) != NULL;

      g_assert_cmpuint (nk_program_get_name_statement (program, i), ==, i + 1);
      if (view_of_x)
        g_assert_cmpstr (shares, ==, "x");
      else
        g_assert_null (shares);
    }
}

static void
test_eval_ops (void)
{
  g_autoptr(NkProgram) program =
    run_ok ("x = ones(16, 32); w = ones(32, 2); y = x @ w\n"
            "a = arange(6).view(2, 3)\n"
            "b = (a + 1) * 2 - a / 2\n"
            "c = 1 - a\n"
            "s0 = a.sum(0); s1 = (a / 1).mean(dim=1, keepdim=True); s = a.sum()\n"
            "u = ones(3, 3).triu()\n"
            "sh = y.shape; n = sh[0] * 2 + 0.5\n");
  double b[6], c[6];

  assert_layout (tensor_of (program, "y"), 2, LAYOUT (16, 2), LAYOUT (2, 1), 0);
  {
    /* each output of ones(16, 32) @ ones(32, 2) sums 32 ones */
    double expect[32];

    for (int i = 0; i < 32; i++)
      expect[i] = 32;
    assert_values (tensor_of (program, "y"), 32, expect);
  }
  for (int i = 0; i < 6; i++)
    {
      b[i] = (i + 1) * 2 - i / 2.0;
      c[i] = 1 - i;
    }
  assert_values (tensor_of (program, "b"), 6, b);
  assert_values (tensor_of (program, "c"), 6, c);
  assert_values (tensor_of (program, "s0"), VALUES (3, 5, 7));
  assert_layout (tensor_of (program, "s1"), 2, LAYOUT (2, 1), LAYOUT (1, 1), 0);
  assert_values (tensor_of (program, "s1"), VALUES (1, 4));
  assert_values (tensor_of (program, "s"), VALUES (15));
  /* the lecture's triu */
  assert_values (tensor_of (program, "u"), VALUES (1, 1, 1, 0, 1, 1, 0, 0, 1));
  g_assert_cmpfloat (nk_program_value_get_double (nk_program_lookup (program, "n")), ==, 32.5);
}

static void
test_eval_values (void)
{
  g_autoptr(NkProgram) program =
    run_ok ("x = arange(16).view(4, 4); a = x.stride(); b = x.size(1); c = x.storage_offset()\n"
            "d = x[1:].storage_offset(); e = x.is_contiguous(); f = 7 / 2; g = x.shape");
  guint n;
  const gint64 *items = nk_program_value_get_tuple (nk_program_lookup (program, "a"), &n);
  g_autofree char *text = nk_program_value_to_string (nk_program_lookup (program, "g"));

  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (items[0], ==, 4);
  g_assert_cmpint (items[1], ==, 1);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "b")), ==, 4);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "c")), ==, 0);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "d")), ==, 4);
  g_assert_true (nk_program_value_get_bool (nk_program_lookup (program, "e")));
  g_assert_cmpint (nk_program_value_get_kind (nk_program_lookup (program, "f")), ==,
                   NK_PROGRAM_VALUE_FLOAT);
  g_assert_cmpfloat (nk_program_value_get_double (nk_program_lookup (program, "f")), ==, 3.5);
  g_assert_cmpstr (text, ==, "(4, 4)");
}

static void
test_eval_dtype (void)
{
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;
  NkTensor *x;
  gsize n;
  g_autofree double *values = NULL;

  /* e4m3 has 3 fraction bits: between 16 and 32 the spacing is 2, so 17 ties to
   * the even 16 and 19 to 20 (round to nearest, ties to even). */
  nk_program_set_dtype (program, NK_DTYPE_E4M3);
  g_assert_true (nk_program_run (program, "x = arange(20)", &error));
  g_assert_no_error (error);
  x = tensor_of (program, "x");
  g_assert_cmpint (x->dtype, ==, NK_DTYPE_E4M3);
  g_assert_cmpuint (nk_tensor_nbytes (x), ==, 20);
  values = nk_tensor_to_doubles (x, &n);
  g_assert_cmpfloat (values[17], ==, 16);
  g_assert_cmpfloat (values[19], ==, 20);

  nk_program_set_dtype (program, NK_DTYPE_BF16);
  g_assert_true (nk_program_run (program, "x = arange(20)", &error));
  g_assert_cmpuint (nk_tensor_nbytes (tensor_of (program, "x")), ==, 40);
}

static void
test_eval_errors (void)
{
  assert_fails ("x = arange(4); y = z + 1", NK_PROGRAM_ERROR_NAME, 2, 5, "“z” is not defined");
  assert_fails ("x = arange(4); x[4]", NK_PROGRAM_ERROR_INDEX, 2, 3,
                "index 4 is out of bounds for dimension 0 with size 4");
  assert_fails ("x = arange(4); x[-5]", NK_PROGRAM_ERROR_INDEX, 2, 3, "index -5 is out of bounds");
  assert_fails ("x = arange(4); x[0, 0]", NK_PROGRAM_ERROR_INDEX, 2, 2,
                "too many indices for tensor of dimension 1");
  assert_fails ("x = arange(4); x.view(5)", NK_PROGRAM_ERROR_SHAPE, 2, 3, NULL);
  assert_fails ("x = arange(4); x.transpose(0, 2)", NK_PROGRAM_ERROR_INDEX, 2, 16,
                "Dimension out of range (expected to be in range of [-1, 0], but got 2)");
  assert_fails ("x = arange(4); x.frob()", NK_PROGRAM_ERROR_NAME, 2, 3, "no method “frob”");
  assert_fails ("x = arange(4); x.stride", NK_PROGRAM_ERROR_NAME, 2, 3, "x.stride()");
  assert_fails ("frob(1)", NK_PROGRAM_ERROR_NAME, 1, 1, "not a function");
  assert_fails ("x = ones(2, 3) @ ones(2, 3)", NK_PROGRAM_ERROR_SHAPE, 1, 16, NULL);
  assert_fails ("x = ones(2, 3) + ones(4)", NK_PROGRAM_ERROR_SHAPE, 1, 16, NULL);
  assert_fails ("x = arange(4)[::0]", NK_PROGRAM_ERROR_INDEX, 1, 15, "step must be greater than zero");
  assert_fails ("x = arange(4)[1.5]", NK_PROGRAM_ERROR_TYPE, 1, 15, "must be an integer");
  assert_fails ("x = arange(4); x[0] = ones(2)", NK_PROGRAM_ERROR_SHAPE, 2, 2, NULL);
  assert_fails ("x = arange(4).view(2, 2); x.permute(0, 0)", NK_PROGRAM_ERROR_INDEX, 2, 3,
                "duplicate dims");
  assert_fails ("x = arange(4); x.view(2, 2, 2, 2, 2, 2, 2, 2, 2)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "at most 8");
  assert_fails ("x = 1 / 0", NK_PROGRAM_ERROR_TYPE, 1, 7, "division by zero");
  assert_fails ("x = tensor([[1, 2], [3]])", NK_PROGRAM_ERROR_SHAPE, 1, 21, "length 2");
  assert_fails ("x = ones(2).sum(keepdims=True)", NK_PROGRAM_ERROR_NAME, 1, 17, "keepdims");
}

static void
test_eval_limits (void)
{
  /* A typo must not be an out-of-memory kill: each stops before allocating */
  assert_fails ("x = arange(1e12)", NK_PROGRAM_ERROR_LIMIT, 1, 5, "4194304");
  assert_fails ("x = zeros(100000, 100000)", NK_PROGRAM_ERROR_LIMIT, 1, 5, NULL);
  assert_fails ("x = ones(1).expand(1000000000)", NK_PROGRAM_ERROR_LIMIT, 1, 13, NULL);
  assert_fails ("x = ones(4096, 1) @ ones(1, 4096)", NK_PROGRAM_ERROR_LIMIT, 1, 19, NULL);
  assert_fails ("x = ones(2000, 2000); y = x + x; z = x + y; w = z + z; v = w + w; u = v + v; "
                "t = u + u; s = t + t; r = s + s; q = r + r",
                NK_PROGRAM_ERROR_LIMIT, 9, 7, "in all");
  assert_fails ("x = arange(4); y = x[::4000000][::4000000][::4000000]", NK_PROGRAM_ERROR_LIMIT, 2, 29,
                "too large");
}

/* ---- error offsets and copies ---------------------------------------------------- */

/* Offsets counted by hand: line lengths (with their "\n") are 26, 16, 10, 1, 14; the
 * third statement starts on line 5 at 53; on line 6 (at 67) eleven spaces come
 * before "8", so "$" is at 67 + 13 = 80, 27 characters after the statement's "z". */
static void
test_error_offset_syntax (void)
{
  const char *source = "x = arange(16).view(4, 4)\n"
                       "# the transpose\n"
                       "y = x.t()\n"
                       "\n"
                       "z = y.view(2,\n"
                       "           8 $ 1)";
  g_autoptr(NkProgram) program = nk_program_new ();
  guint start = 1, end = 1;

  g_assert_false (nk_program_run (program, source, NULL));
  g_assert_cmpuint (strlen (source), ==, 84);
  g_assert_cmpuint (nk_program_get_error_statement (program), ==, 3);
  g_assert_cmpuint (nk_program_get_error_column (program), ==, 28);
  g_assert_cmpuint (nk_program_get_error_offset (program), ==, 80);
  g_assert_cmpint (source[80], ==, '$');
  /* it did not parse, so it ends with the line the failure is on */
  g_assert_true (nk_program_get_error_range (program, &start, &end));
  g_assert_cmpuint (start, ==, 53);
  g_assert_cmpuint (end, ==, 84);
  g_assert_cmpuint (nk_program_get_n_statements (program), ==, 2);

  /* a clean run has no error position */
  g_assert_true (nk_program_run (program, "x = arange(3)", NULL));
  g_assert_cmpuint (nk_program_get_error_offset (program), ==, 0);
  g_assert_false (nk_program_get_error_range (program, &start, &end));
  g_assert_cmpuint (start, ==, 0);
  g_assert_cmpuint (end, ==, 0);
}

/* Line lengths 26, 20 and 1 put statement 3's "z" at 49 (after two spaces): its
 * ".view" has "v" at 55, column 7, and the statement ends 14 characters on, at 63. */
static void
test_error_offset_runtime (void)
{
  const char *source = "x = arange(16).view(4, 4)\n"
                       "y = x.t()  # a view\n"
                       "\n"
                       "  z = y.view(16)\n";
  g_autoptr(NkProgram) program = nk_program_new ();
  guint start = 0, end = 0;

  g_assert_false (nk_program_run (program, source, NULL));
  g_assert_cmpuint (nk_program_get_error_statement (program), ==, 3);
  g_assert_cmpuint (nk_program_get_error_column (program), ==, 7);
  g_assert_cmpuint (nk_program_get_error_offset (program), ==, 55);
  g_assert_true (g_str_has_prefix (source + 55, "view(16)"));
  g_assert_true (nk_program_get_error_range (program, &start, &end));
  g_assert_cmpuint (start, ==, 49);
  g_assert_cmpuint (end, ==, 63);
  g_assert_cmpint (source[63], ==, '\n');
}

/* PyTorch: t() and view() are views; reshape() of a transpose must copy, of a
 * contiguous tensor it is a view; contiguous() of a contiguous tensor returns
 * the tensor itself, of a transpose a copy. 16 f32 elements are 64 bytes. */
static void
test_copied (void)
{
  static const struct {
    const char *op;
    gboolean    copied;
    gsize       new_bytes;
  } expected[] = {
    { "arange",     FALSE, 64 },   /* x = arange(16).view(4, 4): made, not copied */
    { "t",          FALSE, 0 },    /* y = x.t() */
    { "view",       FALSE, 0 },    /* v = x.view(2, 8) */
    { "reshape",    FALSE, 0 },    /* r = x.reshape(16) */
    { "reshape",    TRUE,  64 },   /* z = y.reshape(16) */
    { "contiguous", FALSE, 0 },    /* c = x.contiguous() */
    { "contiguous", TRUE,  64 },   /* d = y.contiguous() */
    { "contiguous", TRUE,  64 },   /* e = y.contiguous().view(16): the copy, not the view */
    { "clone",      TRUE,  64 },   /* k = x.clone() */
    { "+",          TRUE,  64 },   /* s = x + 1 */
    { "[]",         FALSE, 0 },    /* w = x[1] */
    { NULL,         FALSE, 0 },    /* a = x */
  };
  g_autoptr(NkProgram) program = run_ok ("x = arange(16).view(4, 4)\n"
                                         "y = x.t()\n"
                                         "v = x.view(2, 8)\n"
                                         "r = x.reshape(16)\n"
                                         "z = y.reshape(16)\n"
                                         "c = x.contiguous()\n"
                                         "d = y.contiguous()\n"
                                         "e = y.contiguous().view(16)\n"
                                         "k = x.clone()\n"
                                         "s = x + 1\n"
                                         "w = x[1]\n"
                                         "a = x");

  g_assert_cmpuint (nk_program_get_n_statements (program), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_cmpstr (nk_program_get_statement_op (program, i), ==, expected[i].op);
      g_assert_cmpint (nk_program_get_statement_copied (program, i), ==, expected[i].copied);
      g_assert_cmpuint (nk_program_get_statement_new_bytes (program, i), ==, expected[i].new_bytes);
    }
  /* the flags agree with storage identity */
  g_assert_true (nk_tensor_same_storage (tensor_of (program, "c"), tensor_of (program, "x")));
  g_assert_true (nk_tensor_same_storage (tensor_of (program, "r"), tensor_of (program, "x")));
  g_assert_false (nk_tensor_same_storage (tensor_of (program, "z"), tensor_of (program, "x")));
  g_assert_false (nk_tensor_same_storage (tensor_of (program, "d"), tensor_of (program, "x")));
}

/* ---- hardening (issue 11) ------------------------------------------------------- */

static char *
repeat (const char *head,
        const char *unit,
        guint       n,
        const char *tail)
{
  GString *out = g_string_new (head);

  for (guint i = 0; i < n; i++)
    g_string_append (out, unit);
  g_string_append (out, tail);
  return g_string_free (out, FALSE);
}

/* A chain is as long as the program, not as deep as its nesting: 1 + 1 + … with
 * 300 terms is 300 (oracle: counting), an even number of .T or of signs is the
 * identity and an odd one reverses (closed form). Nesting is still capped. */
static void
test_chains (void)
{
  g_autofree char *sum = repeat ("x = 1", " + 1", 299, "");
  g_autofree char *long_sum = repeat ("x = 1", " + 1", 20000, "");
  g_autofree char *transposes = repeat ("x = zeros(2, 3)\ny = x", ".T", 260, "");
  g_autofree char *odd_transposes = repeat ("x = zeros(2, 3)\ny = x", ".T", 261, "");
  g_autofree char *signs = repeat ("x = ", "-", 100, "1");
  g_autofree char *odd_signs = repeat ("x = ", "- ", 301, "1");
  g_autofree char *methods = repeat ("x = arange(6).view(2, 3)\ny = x", ".t().contiguous()", 101, "");
  g_autofree char *calls_ok = repeat ("x = ", "(", 60, "1");
  g_autofree char *calls_ok_closed = repeat (calls_ok, ")", 60, "");
  g_autofree char *deep_sum = repeat ("x = ", "1 + (", 70, "1");
  g_autoptr(NkProgram) program = NULL;

  program = run_ok (sum);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "x")), ==, 300);
  g_clear_object (&program);
  program = run_ok (long_sum);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "x")), ==, 20001);
  g_clear_object (&program);
  program = run_ok (transposes);
  assert_layout (tensor_of (program, "y"), 2, LAYOUT (2, 3), LAYOUT (3, 1), 0);
  g_clear_object (&program);
  program = run_ok (odd_transposes);
  assert_layout (tensor_of (program, "y"), 2, LAYOUT (3, 2), LAYOUT (1, 3), 0);
  g_clear_object (&program);
  program = run_ok (signs);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "x")), ==, 1);
  g_clear_object (&program);
  program = run_ok (odd_signs);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "x")), ==, -1);
  g_clear_object (&program);
  /* 101 transposes of a 2×3, each made contiguous: a 3×2 holding x.t() */
  program = run_ok (methods);
  assert_layout (tensor_of (program, "y"), 2, LAYOUT (3, 2), LAYOUT (2, 1), 0);
  assert_values (tensor_of (program, "y"), VALUES (0, 3, 1, 4, 2, 5));
  g_clear_object (&program);
  program = run_ok (calls_ok_closed);
  g_assert_cmpint (nk_program_value_get_int (nk_program_lookup (program, "x")), ==, 1);
  g_clear_object (&program);
  /* real nesting: the 64th "(" opens level 65; the error is at the token after
   * it, the "1" at column 4 + 5 × 64 + 1 = 325 */
  assert_fails (deep_sum, NK_PROGRAM_ERROR_SYNTAX, 1, 325, "nested more than 64 levels");
}

/* A whole number past 2^53 is refused naming the limit, not as "not an integer",
 * and printed whole (4611686018427387904 = 2^62). */
static void
test_huge_sizes (void)
{
  assert_fails ("x = arange(4); x.view(4611686018427387904, 0)", NK_PROGRAM_ERROR_TYPE, 2, 8,
                "a size must be an integer from -2^53 to 2^53 (9007199254740992), not "
                "4611686018427387904");
  assert_fails ("x = arange(4); x[9007199254740994]", NK_PROGRAM_ERROR_TYPE, 2, 3, "2^53");
  assert_fails ("x = arange(4); x.view(2.5)", NK_PROGRAM_ERROR_TYPE, 2, 8,
                "a size must be an integer, not 2.5");
  /* 2^53 itself is an integer: too large a size, said as such */
  assert_fails ("x = arange(4); x.view(9007199254740992)", NK_PROGRAM_ERROR_LIMIT, 2, 3,
                "elements a program may make");
}

/* arange's sign cases against PyTorch 1.13 (torch.arange run on each, by hand):
 * bounds the step walks away from are refused with PyTorch's sentence. */
static void
test_arange_signs (void)
{
  static const struct {
    const char *program;
    int         n;             /* -1: refused */
    double      values[4];
  } cases[] = {
    { "arange(-1)", -1 },
    { "arange(-0.5)", -1 },
    { "arange(3, 1)", -1 },
    { "arange(1, 3, -1)", -1 },
    { "arange(0)", 0 },
    { "arange(5, 5)", 0 },
    { "arange(5, 5, -1)", 0 },
    { "arange(0.5)", 1, { 0 } },
    { "arange(3, 1, -1)", 2, { 3, 2 } },
    { "arange(-3, -1)", 2, { -3, -2 } },
    { "arange(-1, -3, -1)", 2, { -1, -2 } },
    { "arange(2.5, 1, -0.5)", 3, { 2.5, 2, 1.5 } },
    { "arange(1, 0, -0.3)", 4, { 1, 0.7, 0.4, 0.1 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NkProgram) program = nk_program_new ();
      g_autoptr(GError) error = NULL;

      nk_program_set_dtype (program, NK_DTYPE_F64);
      if (cases[i].n < 0)
        {
          assert_fails (cases[i].program, NK_PROGRAM_ERROR_TYPE, 1, 1,
                        "upper bound and larger bound inconsistent with step sign");
          continue;
        }
      g_assert_true (nk_program_run (program, cases[i].program, &error));
      g_assert_no_error (error);
      assert_values (tensor_of (program, NULL), cases[i].n, cases[i].values);
    }
  assert_fails ("arange(0, 1, 0)", NK_PROGRAM_ERROR_TYPE, 1, 1, "step must be nonzero");
}

/* The work budget: each sum of an expanded 4 Mi-element view reads 2^22 elements and
 * writes 1, after a = ones(1) wrote 1; 1 + k (2^22 + 1) ≤ 2^30 holds for k ≤ 255,
 * so the 256th sum (statement 257) is refused, well before 300. */
static void
test_work_budget (void)
{
  g_autoptr(GString) source = g_string_new ("a = ones(1).expand(4194304)");

  for (int i = 0; i < 300; i++)
    g_string_append_printf (source, "; b%d = a.sum()", i);
  assert_fails (source->str, NK_PROGRAM_ERROR_LIMIT, 257, 10, "1073741824 elements in all");
  g_assert_cmpint (NK_PROGRAM_MAX_TOTAL_WORK, ==, G_GINT64_CONSTANT (1) << 30);
}

/* A lowered budget (the fuzzer's 2^24): 1 + k (2^22 + 1) ≤ 2^24 holds for k ≤ 3, so
 * the 4th sum (statement 5) is refused, naming the lowered figure. */
static void
test_work_budget_lowered (void)
{
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;
  const char *source = "a = ones(1).expand(4194304); b = a.sum(); c = a.sum(); "
                       "d = a.sum(); e = a.sum()";

  nk_program_set_max_work (program, G_GINT64_CONSTANT (1) << 24);
  g_assert_false (nk_program_run (program, source, &error));
  g_assert_error (error, NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_LIMIT);
  g_assert_cmpuint (nk_program_get_error_statement (program), ==, 5);
  g_assert_nonnull (strstr (error->message, "16777216 elements in all"));
  /* The budget is per run: the first four statements fit again. */
  g_clear_error (&error);
  g_assert_true (nk_program_run (program, "a = ones(1).expand(4194304); b = a.sum(); "
                                          "c = a.sum(); d = a.sum()", &error));
  g_assert_no_error (error);
}

/* The builtins are tables sorted for bsearch; every method the CLI's help names
 * has an entry, and every entry is found by its own name. */
/* Issue 21, item 16: the language's expand lets -1 keep a size in every existing
 * dimension, with any number of new leading ones, as the tensor core already did
 * (before: "only one dimension can be inferred", view's rule). Oracle: PyTorch 1.13's
 * shapes, strides and messages (python3-torch, Debian bookworm), written in here. */
static void
test_expand_keep_each (void)
{
  const struct {
    const char *source;
    int         ndim;
    gint64      shape[4];
    gint64      stride[4];
  } ok[] = {
    /* x = torch.arange(25).view(5, 5); x[0:6:1, :].expand(2, -1, -1) */
    { "x = arange(25).view(5, 5); x[0:6:1, :].expand(2, -1, -1)", 3, { 2, 5, 5 }, { 0, 5, 1 } },
    { "x = arange(25).view(5, 5); x.expand(3, 2, -1, -1)", 4, { 3, 2, 5, 5 }, { 0, 0, 5, 1 } },
    { "x = arange(25).view(5, 5); x.expand(-1, -1)", 2, { 5, 5 }, { 5, 1 } },
    { "x = ones(1, 3); x.expand(-1, -1)", 2, { 1, 3 }, { 3, 1 } },
    { "x = ones(1, 3); x.expand(4, -1)", 2, { 4, 3 }, { 0, 1 } },
    { "x = ones(1, 3); x.expand(2, 4, -1)", 3, { 2, 4, 3 }, { 0, 0, 1 } },
    { "x = ones(1, 3); x.expand(2, -1, -1)", 3, { 2, 1, 3 }, { 0, 3, 1 } },
    { "x = ones(1, 3); x.expand((2, -1, -1))", 3, { 2, 1, 3 }, { 0, 3, 1 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr(NkProgram) program = run_ok (ok[i].source);

      assert_layout (tensor_of (program, NULL), ok[i].ndim, ok[i].shape, ok[i].stride, 0);
    }
  /* -1 in a new leading dimension: PyTorch's sentence, naming the dimension its
   * walk from the last one reaches first. */
  assert_fails ("x = arange(25).view(5, 5); x.expand(-1, 5, 5)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "The expanded size of the tensor (-1) isn't allowed in a leading, "
                "non-existing dimension 0");
  assert_fails ("x = arange(25).view(5, 5); x.expand(-1, -1, 5)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "The expanded size of the tensor (-1) isn't allowed in a leading, "
                "non-existing dimension 0");
  assert_fails ("x = ones(1, 3); x.expand(2, -1, -1, -1)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "The expanded size of the tensor (-1) isn't allowed in a leading, "
                "non-existing dimension 1");
  assert_fails ("x = arange(25).view(5, 5); x.expand(2, -3, 5)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "The expanded size of the tensor (-3) must match the existing size (5) at "
                "non-singleton dimension 1.  Target sizes: [2, -3, 5].  Tensor sizes: [5, 5]");
  /* view and reshape still infer one size only */
  assert_fails ("x = arange(25).view(5, 5); x.view(-1, -1)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "only one dimension can be inferred");
  assert_fails ("x = arange(25); x.reshape(-1, 5, -1)", NK_PROGRAM_ERROR_SHAPE, 2, 3,
                "only one dimension can be inferred");
}

static void
test_builtin_tables (void)
{
  static const char *const documented[] = {
    "view", "reshape", "transpose", "t", "permute", "contiguous", "narrow", "select",
    "expand", "unsqueeze", "squeeze", "flatten", "clone", "triu", "tril", "sum", "mean",
    "is_contiguous", "stride", "size", "storage_offset", "numel", "dim", "item",
  };
  static const char *const functions[] = {
    "arange", "zeros", "ones", "tensor", "rearrange", "reduce", "einsum", "same_storage",
  };
  const NkBuiltin *tables[2];
  guint n[2];

  tables[0] = _nk_program_methods (&n[0]);
  tables[1] = _nk_program_functions (&n[1]);
  g_assert_cmpuint (n[0], ==, G_N_ELEMENTS (documented));
  g_assert_cmpuint (n[1], ==, G_N_ELEMENTS (functions));
  for (guint t = 0; t < 2; t++)
    for (guint i = 0; i < n[t]; i++)
      {
        if (i > 0)
          g_assert_cmpint (strcmp (tables[t][i - 1].name, tables[t][i].name), <, 0);
        g_assert_true (_nk_program_find_builtin (tables[t], n[t], tables[t][i].name) == &tables[t][i]);
        g_assert_cmpuint (tables[t][i].min_args, <=, tables[t][i].max_args);
      }
  for (guint i = 0; i < G_N_ELEMENTS (documented); i++)
    g_assert_nonnull (_nk_program_find_builtin (tables[0], n[0], documented[i]));
  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    g_assert_nonnull (_nk_program_find_builtin (tables[1], n[1], functions[i]));
  g_assert_null (_nk_program_find_builtin (tables[0], n[0], "frob"));
  g_assert_null (_nk_program_find_builtin (tables[0], n[0], ""));
  g_assert_null (_nk_program_find_builtin (tables[1], n[1], "zzz"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/program/parse/precedence", test_parse_precedence);
  g_test_add_func ("/engine/program/parse/constructs", test_parse_constructs);
  g_test_add_func ("/engine/program/parse/errors", test_parse_errors);
  g_test_add_func ("/engine/program/parse/error-keeps-earlier", test_parse_error_keeps_earlier);
  g_test_add_func ("/engine/program/eval/storage", test_eval_storage);
  g_test_add_func ("/engine/program/eval/slicing", test_eval_slicing);
  g_test_add_func ("/engine/program/eval/view-of-transpose", test_eval_view_of_transpose);
  g_test_add_func ("/engine/program/eval/write-through", test_eval_write_through);
  g_test_add_func ("/engine/program/eval/views", test_eval_views);
  g_test_add_func ("/engine/program/eval/ops", test_eval_ops);
  g_test_add_func ("/engine/program/eval/values", test_eval_values);
  g_test_add_func ("/engine/program/eval/dtype", test_eval_dtype);
  g_test_add_func ("/engine/program/eval/errors", test_eval_errors);
  g_test_add_func ("/engine/program/eval/limits", test_eval_limits);
  g_test_add_func ("/engine/program/error-offset/syntax", test_error_offset_syntax);
  g_test_add_func ("/engine/program/error-offset/runtime", test_error_offset_runtime);
  g_test_add_func ("/engine/program/eval/copied", test_copied);
  g_test_add_func ("/engine/program/eval/chains", test_chains);
  g_test_add_func ("/engine/program/eval/huge-sizes", test_huge_sizes);
  g_test_add_func ("/engine/program/eval/arange-signs", test_arange_signs);
  g_test_add_func ("/engine/program/eval/work-budget", test_work_budget);
  g_test_add_func ("/engine/program/eval/work-budget-lowered", test_work_budget_lowered);
  g_test_add_func ("/engine/program/eval/expand-keep-each", test_expand_keep_each);
  g_test_add_func ("/engine/program/builtins/tables", test_builtin_tables);

  return g_test_run ();
}
