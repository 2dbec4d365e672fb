/* test-einops.c: rearrange, reduce and einsum against hand-written loops
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-einops.h"
#include "nk-ops.h"
#include "nk-program.h"

/* Element i of every test tensor: distinct, not integers, so a wrong index shows. */
static double
element (gsize i)
{
  return 0.5 + (double) ((i * 7919) % 101) - 0.25 * (double) (i % 3);
}

static NkTensor *
make (int           ndim,
      const gint64 *shape)
{
  g_autoptr(GError) error = NULL;
  gsize n = 1;
  g_autofree double *values = NULL;
  NkTensor *t;

  for (int i = 0; i < ndim; i++)
    n *= shape[i];
  values = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    values[i] = element (i);
  t = nk_tensor_new_from_doubles (NK_DTYPE_F64, ndim, shape, values, &error);
  g_assert_no_error (error);
  return t;
}

static void
assert_shape (NkTensor     *t,
              int           ndim,
              const gint64 *shape)
{
  g_assert_cmpint (t->ndim, ==, ndim);
  for (int i = 0; i < ndim; i++)
    g_assert_cmpint (t->shape[i], ==, shape[i]);
}

static NkTensor *
rearrange1 (NkTensor   *x,
            const char *pattern,
            const char *name,
            gint64      size)
{
  g_autoptr(GError) error = NULL;
  const char *names[] = { name };
  NkTensor *y = nk_einops_rearrange (x, pattern, name ? 1 : 0, names, &size, &error);

  g_assert_no_error (error);
  return y;
}

/* "b (h d) -> b h d", h=2: y[b][h][d] = x[b][h·D + d]; a split is always a view */
static void
test_rearrange_split (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (3, 10));
  g_autoptr(NkTensor) y = rearrange1 (x, "b (h d) -> b h d", "h", 2);
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *yv = nk_tensor_to_doubles (y, NULL);

  assert_shape (y, NK_SHAPE (3, 2, 5));
  g_assert_true (nk_tensor_same_storage (x, y));
  for (int b = 0; b < 3; b++)
    for (int h = 0; h < 2; h++)
      for (int d = 0; d < 5; d++)
        g_assert_cmpfloat (yv[(b * 2 + h) * 5 + d], ==, xv[b * 10 + h * 5 + d]);
}

/* The lecture's "... (heads hidden) -> ... heads hidden" and back */
static void
test_rearrange_heads (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (2, 3, 8));
  g_autoptr(NkTensor) y = rearrange1 (x, "... (heads hidden) -> ... heads hidden", "heads", 2);
  g_autoptr(NkTensor) z = rearrange1 (y, "... heads hidden -> ... (heads hidden)", NULL, 0);
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *yv = nk_tensor_to_doubles (y, NULL);
  g_autofree double *zv = nk_tensor_to_doubles (z, NULL);

  assert_shape (y, NK_SHAPE (2, 3, 2, 4));
  g_assert_cmpint (y->stride[2], ==, 4);
  g_assert_cmpint (y->stride[3], ==, 1);
  g_assert_true (nk_tensor_same_storage (x, y));
  for (int i = 0; i < 48; i++)
    {
      g_assert_cmpfloat (yv[i], ==, xv[i]);  /* a split keeps row-major order */
      g_assert_cmpfloat (zv[i], ==, xv[i]);
    }
  assert_shape (z, NK_SHAPE (2, 3, 8));
  g_assert_true (nk_tensor_same_storage (x, z));
}

/* A permutation is a view; merging axes that the permutation separated copies */
static void
test_rearrange_permute (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (2, 3, 4));
  g_autoptr(NkTensor) t = rearrange1 (x, "b h w -> b w h", NULL, 0);
  g_autoptr(NkTensor) m = rearrange1 (x, "b h w -> (w b) h", NULL, 0);
  g_autoptr(NkTensor) u = rearrange1 (x, "b h w -> b 1 h () w", NULL, 0);
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *tv = nk_tensor_to_doubles (t, NULL);
  g_autofree double *mv = nk_tensor_to_doubles (m, NULL);

  assert_shape (t, NK_SHAPE (2, 4, 3));
  g_assert_true (nk_tensor_same_storage (x, t));
  assert_shape (m, NK_SHAPE (8, 3));
  g_assert_false (nk_tensor_same_storage (x, m));
  assert_shape (u, NK_SHAPE (2, 1, 3, 1, 4));
  g_assert_true (nk_tensor_same_storage (x, u));
  for (int b = 0; b < 2; b++)
    for (int h = 0; h < 3; h++)
      for (int w = 0; w < 4; w++)
        {
          double v = xv[(b * 3 + h) * 4 + w];

          g_assert_cmpfloat (tv[(b * 4 + w) * 3 + h], ==, v);
          g_assert_cmpfloat (mv[(w * 2 + b) * 3 + h], ==, v);
        }
}

/* reduce "... h -> ..." and "b s h -> b s" with every reduction, against loops */
static void
test_reduce (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (2, 3, 4));
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  const char *patterns[] = { "... h -> ...", "b s h -> b s" };

  for (guint p = 0; p < G_N_ELEMENTS (patterns); p++)
    for (NkEinopsReduction r = NK_EINOPS_SUM; r <= NK_EINOPS_MIN; r++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(NkTensor) y = nk_einops_reduce (x, patterns[p], r, 0, NULL, NULL, &error);
        g_autofree double *yv = NULL;

        g_assert_no_error (error);
        assert_shape (y, NK_SHAPE (2, 3));
        yv = nk_tensor_to_doubles (y, NULL);
        for (int bs = 0; bs < 6; bs++)
          {
            double sum = 0, max = -INFINITY, min = INFINITY, expect;

            for (int h = 0; h < 4; h++)
              {
                double v = xv[bs * 4 + h];

                sum += v;
                max = MAX (max, v);
                min = MIN (min, v);
              }
            expect = r == NK_EINOPS_SUM ? sum : r == NK_EINOPS_MEAN ? sum / 4
                   : r == NK_EINOPS_MAX ? max : min;
            g_assert_cmpfloat_with_epsilon (yv[bs], expect, 1e-12);
          }
      }

  {
    /* dropping the first and last axis, keeping the middle */
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) y = nk_einops_reduce (x, "b s h -> s", NK_EINOPS_SUM, 0, NULL, NULL, &error);
    g_autofree double *yv = NULL;

    g_assert_no_error (error);
    yv = nk_tensor_to_doubles (y, NULL);
    for (int s = 0; s < 3; s++)
      {
        double sum = 0;

        for (int b = 0; b < 2; b++)
          for (int h = 0; h < 4; h++)
            sum += xv[(b * 3 + s) * 4 + h];
        g_assert_cmpfloat_with_epsilon (yv[s], sum, 1e-12);
      }
  }
}

/* einsum "b s h, b t h -> b s t" against the triple loop */
static void
test_einsum_attention (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (2, 3, 5));
  g_autoptr(NkTensor) y0 = make (NK_SHAPE (2, 4, 5));
  g_autoptr(NkTensor) y = nk_mul_scalar (y0, -0.5, NULL);
  NkTensor *ops[] = { x, y };
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) z = nk_einops_einsum (2, ops, "b s h, b t h -> b s t", 0, &error);
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *yv = nk_tensor_to_doubles (y, NULL);
  g_autofree double *zv = NULL;

  g_assert_no_error (error);
  assert_shape (z, NK_SHAPE (2, 3, 4));
  zv = nk_tensor_to_doubles (z, NULL);
  for (int b = 0; b < 2; b++)
    for (int s = 0; s < 3; s++)
      for (int t = 0; t < 4; t++)
        {
          double sum = 0;

          for (int h = 0; h < 5; h++)
            sum += xv[(b * 3 + s) * 5 + h] * yv[(b * 4 + t) * 5 + h];
          g_assert_cmpfloat_with_epsilon (zv[(b * 3 + s) * 4 + t], sum, 1e-9);
        }
}

/* The lecture's "... hidden1, hidden1 hidden2 -> ... hidden2", and a sum over a
 * name only one operand has */
static void
test_einsum_ellipsis (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (2, 3, 4));
  g_autoptr(NkTensor) w = make (NK_SHAPE (4, 5));
  NkTensor *ops[] = { x, w };
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) z = nk_einops_einsum (2, ops, "... hidden1, hidden1 hidden2 -> ... hidden2",
                                            0, &error);
  g_autoptr(NkTensor) s = NULL;
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *wv = nk_tensor_to_doubles (w, NULL);
  g_autofree double *zv = NULL, *sv = NULL;

  g_assert_no_error (error);
  assert_shape (z, NK_SHAPE (2, 3, 5));
  zv = nk_tensor_to_doubles (z, NULL);
  for (int bs = 0; bs < 6; bs++)
    for (int j = 0; j < 5; j++)
      {
        double sum = 0;

        for (int k = 0; k < 4; k++)
          sum += xv[bs * 4 + k] * wv[k * 5 + j];
        g_assert_cmpfloat_with_epsilon (zv[bs * 5 + j], sum, 1e-9);
      }

  /* "b s h -> h b": a permutation with a sum over s */
  s = nk_einops_einsum (1, ops, "b s h -> h b", 0, &error);
  g_assert_no_error (error);
  assert_shape (s, NK_SHAPE (4, 2));
  sv = nk_tensor_to_doubles (s, NULL);
  for (int h = 0; h < 4; h++)
    for (int b = 0; b < 2; b++)
      {
        double sum = 0;

        for (int i = 0; i < 3; i++)
          sum += xv[(b * 3 + i) * 4 + h];
        g_assert_cmpfloat_with_epsilon (sv[h * 2 + b], sum, 1e-12);
      }
}

static void
assert_rearrange_fails (const char *pattern,
                        const char *name,
                        gint64      size,
                        int         code,
                        const char *needle)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (2, 6));
  g_autoptr(GError) error = NULL;
  const char *names[] = { name };
  g_autoptr(NkTensor) y = nk_einops_rearrange (x, pattern, name ? 1 : 0, names, &size, &error);

  g_assert_null (y);
  g_assert_error (error, NK_EINOPS_ERROR, code);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s”: message “%s” lacks “%s”", pattern, error->message, needle);
}

static void
test_errors (void)
{
  assert_rearrange_fails ("b (h d) -> b h d", "h", 4, NK_EINOPS_ERROR_DIVISIBILITY, "do not divide");
  assert_rearrange_fails ("b (h d) -> b h d", NULL, 0, NK_EINOPS_ERROR_DIVISIBILITY, "all but one");
  assert_rearrange_fails ("b c -> b c x", NULL, 0, NK_EINOPS_ERROR_AXIS, "“x” is on the right");
  assert_rearrange_fails ("b c -> b", NULL, 0, NK_EINOPS_ERROR_AXIS, "“c” is on the left");
  assert_rearrange_fails ("b c -> b c", "q", 3, NK_EINOPS_ERROR_AXIS, "no axis “q”");
  assert_rearrange_fails ("b c -> b c", "b", 3, NK_EINOPS_ERROR_SHAPE, "has size 2");
  assert_rearrange_fails ("b c d -> b c d", NULL, 0, NK_EINOPS_ERROR_SHAPE, "the tensor has 2");
  assert_rearrange_fails ("b b -> b", NULL, 0, NK_EINOPS_ERROR_PATTERN, "appears twice");
  assert_rearrange_fails ("b (c -> b c", NULL, 0, NK_EINOPS_ERROR_PATTERN, "not closed");
  assert_rearrange_fails ("b c", NULL, 0, NK_EINOPS_ERROR_PATTERN, "->");
  assert_rearrange_fails ("b c -> b 2 c", NULL, 0, NK_EINOPS_ERROR_PATTERN, "only 1");

  {
    g_autoptr(NkTensor) x = make (NK_SHAPE (2, 3));
    g_autoptr(NkTensor) y = make (NK_SHAPE (4, 3));
    NkTensor *ops[] = { x, y };
    g_autoptr(GError) error = NULL;

    g_assert_null (nk_einops_einsum (2, ops, "a b, a b -> a", 0, &error));
    g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE);
    g_clear_error (&error);
    g_assert_null (nk_einops_einsum (2, ops, "a b -> a", 0, &error));
    g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN);
    g_clear_error (&error);
    g_assert_null (nk_einops_einsum (2, ops, "a b, c b -> a z", 0, &error));
    g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS);
    g_clear_error (&error);
    /* an outer product past the caller's limit is refused before allocating */
    g_assert_null (nk_einops_einsum (2, ops, "a b, c d -> a b c d", 50, &error));
    g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_LIMIT);
  }
}

/* A name twice in one input reads a diagonal, as torch.einsum: "i i -> i" is
 * x[i][i], "i i ->" the trace, "b i i -> b i" a batch of diagonals (a view), and
 * "i i, i j -> j" contracts the diagonal with another input. */
static void
test_einsum_diagonal (void)
{
  g_autoptr(NkTensor) x = make (NK_SHAPE (4, 4));
  g_autoptr(NkTensor) b = make (NK_SHAPE (3, 4, 4));
  g_autoptr(NkTensor) w = make (NK_SHAPE (4, 5));
  g_autoptr(NkTensor) odd = make (NK_SHAPE (4, 5));
  g_autoptr(GError) error = NULL;
  g_autofree double *xv = nk_tensor_to_doubles (x, NULL);
  g_autofree double *bv = nk_tensor_to_doubles (b, NULL);
  g_autofree double *wv = nk_tensor_to_doubles (w, NULL);

  {
    g_autoptr(NkTensor) d = nk_einops_einsum (1, &x, "i i -> i", 0, &error);
    g_autofree double *dv = NULL;

    g_assert_no_error (error);
    assert_shape (d, NK_SHAPE (4));
    g_assert_true (nk_tensor_same_storage (d, x));
    dv = nk_tensor_to_doubles (d, NULL);
    for (int i = 0; i < 4; i++)
      g_assert_cmpfloat (dv[i], ==, xv[i * 4 + i]);
  }
  {
    g_autoptr(NkTensor) tr = nk_einops_einsum (1, &x, "i i ->", 0, &error);
    double got, want = 0;

    g_assert_no_error (error);
    g_assert_true (nk_tensor_item (tr, &got, &error));
    for (int i = 0; i < 4; i++)
      want += xv[i * 4 + i];
    g_assert_cmpfloat_with_epsilon (got, want, 1e-12);
  }
  {
    g_autoptr(NkTensor) d = nk_einops_einsum (1, &b, "n i i -> n i", 0, &error);
    g_autofree double *dv = NULL;

    g_assert_no_error (error);
    assert_shape (d, NK_SHAPE (3, 4));
    dv = nk_tensor_to_doubles (d, NULL);
    for (int n = 0; n < 3; n++)
      for (int i = 0; i < 4; i++)
        g_assert_cmpfloat (dv[n * 4 + i], ==, bv[n * 16 + i * 4 + i]);
  }
  {
    NkTensor *ops[] = { x, w };
    g_autoptr(NkTensor) z = nk_einops_einsum (2, ops, "i i, i j -> j", 0, &error);
    g_autofree double *zv = NULL;

    g_assert_no_error (error);
    assert_shape (z, NK_SHAPE (5));
    zv = nk_tensor_to_doubles (z, NULL);
    for (int j = 0; j < 5; j++)
      {
        double sum = 0;

        for (int i = 0; i < 4; i++)
          sum += xv[i * 4 + i] * wv[i * 5 + j];
        g_assert_cmpfloat_with_epsilon (zv[j], sum, 1e-9);
      }
  }
  g_assert_null (nk_einops_einsum (1, &odd, "i i -> i", 0, &error));
  g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE);
  g_clear_error (&error);
  /* the output still names each axis once */
  g_assert_null (nk_einops_einsum (1, &x, "i j -> i i", 0, &error));
  g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN);
}

/* The same through the language, as the CLI and the page use it */
static void
test_program (void)
{
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;
  NkTensor *t;

  g_assert_true (nk_program_run (program,
                                 "x = arange(48).view(2, 3, 8)\n"
                                 "y = rearrange(x, \"... (heads hidden) -> ... heads hidden\", heads=2)\n"
                                 "s = reduce(x, \"... h -> ...\", \"sum\")\n"
                                 "z = einsum(x, x, \"b s h, b t h -> b s t\")",
                                 &error));
  g_assert_no_error (error);
  t = nk_program_value_get_tensor (nk_program_lookup (program, "y"));
  assert_shape (t, NK_SHAPE (2, 3, 2, 4));
  g_assert_cmpstr (nk_program_get_name_shares_with (program, 1), ==, "x");
  t = nk_program_value_get_tensor (nk_program_lookup (program, "s"));
  /* row r of x holds 8r .. 8r+7, whose sum is 64r + 28 */
  {
    g_autofree double *v = nk_tensor_to_doubles (t, NULL);

    for (int r = 0; r < 6; r++)
      g_assert_cmpfloat (v[r], ==, 64 * r + 28);
  }

  g_assert_false (nk_program_run (program,
                                  "x = arange(12).view(2, 6)\n"
                                  "y = rearrange(x, \"b (h d) -> b h d\", h=4)", &error));
  g_assert_error (error, NK_PROGRAM_ERROR, NK_PROGRAM_ERROR_SHAPE);
  g_assert_cmpuint (nk_program_get_error_statement (program), ==, 2);
  g_assert_cmpuint (nk_program_get_error_column (program), ==, 5);
}

/* Axes of size 0 (issue 11's class): a known product of 0 is never divided by, and
 * an empty dimension with such a product is refused because the unknown axis could
 * be any size (Python's einops dies there with ZeroDivisionError). Oracles: the
 * shapes PyTorch's reshape gives, sums of nothing are 0 and means NaN. */
static void
test_zero_size (void)
{
  g_autoptr(NkTensor) empty = make (NK_SHAPE (0));
  g_autoptr(NkTensor) e30 = make (NK_SHAPE (3, 0));
  g_autoptr(NkTensor) e03 = make (NK_SHAPE (0, 3));
  g_autoptr(NkTensor) six = make (NK_SHAPE (6));
  const char *b[] = { "b" };
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(NkTensor) y = nk_einops_rearrange (empty, "(a b) -> a b", 1, b,
                                                 (gint64[]) { 2 }, &error);
    g_assert_no_error (error);
    assert_shape (y, NK_SHAPE (0, 2));
  }
  {
    g_autoptr(NkTensor) y = nk_einops_rearrange (empty, "(a b) -> a b", 1, b,
                                                 (gint64[]) { 0 }, &error);
    g_assert_null (y);
    g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_DIVISIBILITY);
    g_assert_nonnull (strstr (error->message, "could be anything"));
    g_clear_error (&error);
  }
  {
    g_autoptr(NkTensor) y = nk_einops_rearrange (six, "(a b) -> a b", 1, b,
                                                 (gint64[]) { 0 }, &error);
    g_assert_null (y);
    g_assert_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_DIVISIBILITY);
    g_clear_error (&error);
  }
  {
    g_autoptr(NkTensor) y = nk_einops_rearrange (e30, "a (b c) -> a b c", 1, b,
                                                 (gint64[]) { 2 }, &error);
    g_autoptr(NkTensor) z = nk_einops_rearrange (e03, "a b -> (b a)", 0, NULL, NULL, &error);
    g_assert_no_error (error);
    assert_shape (y, NK_SHAPE (3, 2, 0));
    assert_shape (z, NK_SHAPE (0));
  }
  {
    g_autoptr(NkTensor) s = nk_einops_reduce (e03, "a b -> b", NK_EINOPS_SUM, 0, NULL, NULL,
                                              &error);
    g_autoptr(NkTensor) m = nk_einops_reduce (e03, "a b -> b", NK_EINOPS_MEAN, 0, NULL, NULL,
                                              &error);
    g_autofree double *sv = NULL, *mv = NULL;

    g_assert_no_error (error);
    sv = nk_tensor_to_doubles (s, NULL);
    mv = nk_tensor_to_doubles (m, NULL);
    for (int i = 0; i < 3; i++)
      {
        g_assert_cmpfloat (sv[i], ==, 0.0);
        g_assert_true (isnan (mv[i]));
      }
  }
  {
    g_autoptr(NkTensor) x = make (NK_SHAPE (2, 0));
    NkTensor *ops[] = { x, e03 };
    g_autoptr(NkTensor) p = nk_einops_einsum (2, ops, "i j, j k -> i k", 0, &error);
    g_autofree double *v = NULL;

    g_assert_no_error (error);
    assert_shape (p, NK_SHAPE (2, 3));
    v = nk_tensor_to_doubles (p, NULL);
    for (int i = 0; i < 6; i++)
      g_assert_cmpfloat (v[i], ==, 0.0);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/einops/rearrange/split", test_rearrange_split);
  g_test_add_func ("/engine/einops/rearrange/heads", test_rearrange_heads);
  g_test_add_func ("/engine/einops/rearrange/permute", test_rearrange_permute);
  g_test_add_func ("/engine/einops/reduce", test_reduce);
  g_test_add_func ("/engine/einops/einsum/attention", test_einsum_attention);
  g_test_add_func ("/engine/einops/einsum/ellipsis", test_einsum_ellipsis);
  g_test_add_func ("/engine/einops/einsum/diagonal", test_einsum_diagonal);
  g_test_add_func ("/engine/einops/errors", test_errors);
  g_test_add_func ("/engine/einops/program", test_program);
  g_test_add_func ("/engine/einops/zero-size", test_zero_size);

  return g_test_run ();
}
