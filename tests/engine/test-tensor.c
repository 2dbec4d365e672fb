/* test-tensor.c: views, strides and storage sharing against closed forms and the lecture
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the lecture's worked numbers (stride(0) == 4, x[1, 2] at 6), closed-form
 * strides/offsets written by hand, values read straight from the storage bytes with
 * the address rule offset + Σ i·stride (computed here, not by the code under test),
 * and PyTorch's error texts (checked with torch 2.x by hand).
 */
#include "config.h"

#include <string.h>

#include "nk-ops.h"
#include "nk-tensor.h"

/* x = arange(n) as f32, then viewed as (r, c). */
static NkTensor *
arange_view (gint64 r,
             gint64 c)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a = nk_tensor_arange (NK_DTYPE_F32, r * c, &error);
  NkTensor *x;

  g_assert_no_error (error);
  x = nk_tensor_view (a, NK_SHAPE (r, c), &error);
  g_assert_no_error (error);
  return x;
}

static float
raw (NkTensor     *t,
     const gint64 *idx)
{
  const float *base = nk_storage_get_data (t->storage);
  gint64 pos = t->offset;

  for (int d = 0; d < t->ndim; d++)
    pos += idx[d] * t->stride[d];
  return base[pos];
}

static void
assert_layout (NkTensor     *t,
               int           ndim,
               const gint64 *shape,
               const gint64 *stride,
               gint64        offset)
{
  g_assert_cmpint (t->ndim, ==, ndim);
  for (int d = 0; d < ndim; d++)
    {
      g_assert_cmpint (t->shape[d], ==, shape[d]);
      if (shape[d] != 1)
        g_assert_cmpint (t->stride[d], ==, stride[d]);
    }
  g_assert_cmpint (t->offset, ==, offset);
}

#define LAYOUT(t, shape, stride, offset) \
  assert_layout ((t), G_N_ELEMENTS (((gint64[]) shape)), (gint64[]) shape, (gint64[]) stride, (offset))
#define L(...) { __VA_ARGS__ }

static void
test_lecture_strides (void)
{
  g_autoptr(NkTensor) x = arange_view (4, 4);
  g_autoptr(GError) error = NULL;
  double v;

  g_assert_cmpint (nk_tensor_get_stride (x, 0), ==, 4);
  g_assert_cmpint (nk_tensor_get_stride (x, 1), ==, 1);
  g_assert_cmpint (nk_tensor_storage_index (x, (gint64[]) { 1, 2 }), ==, 6);
  g_assert_true (nk_tensor_get_item (x, (gint64[]) { 1, 2 }, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (v, ==, 6.0);
  g_assert_true (nk_tensor_is_contiguous (x));
  g_assert_cmpuint (nk_tensor_nbytes (x), ==, 64);
}

static void
test_views_closed_form (void)
{
  g_autoptr(NkTensor) x = arange_view (4, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) t = nk_tensor_t (x, &error);
  g_autoptr(NkTensor) row = nk_tensor_select (x, 0, 1, &error);
  g_autoptr(NkTensor) col = nk_tensor_select (x, 1, -3, &error);
  g_autoptr(NkTensor) s0 = nk_tensor_slice (x, 0, 0, NK_SLICE_END, 2, &error);
  g_autoptr(NkTensor) s1 = nk_tensor_slice (s0, 1, 1, 3, 1, &error);
  g_autoptr(NkTensor) v28 = nk_tensor_view (x, NK_SHAPE (2, -1), &error);
  g_autoptr(NkTensor) nar = nk_tensor_narrow (x, 1, 1, 2, &error);
  g_autoptr(NkTensor) perm = NULL;
  g_autoptr(NkTensor) x3 = NULL;
  g_autoptr(NkTensor) un = nk_tensor_unsqueeze (x, 1, &error);
  g_autoptr(NkTensor) un_end = nk_tensor_unsqueeze (x, -1, &error);
  g_autoptr(NkTensor) sq = nk_tensor_squeeze (un, 1, &error);
  g_autoptr(NkTensor) diag = nk_tensor_diagonal (x, 0, 0, 1, &error);
  g_autoptr(NkTensor) diag1 = nk_tensor_diagonal (x, 1, 0, 1, &error);
  g_autoptr(NkTensor) diagm = nk_tensor_diagonal (x, -2, 0, 1, &error);
  g_autoptr(NkTensor) unf = nk_tensor_unflatten (x, 1, NK_SHAPE (2, -1), &error);
  g_autoptr(NkTensor) flat = NULL;
  g_assert_no_error (error);

  LAYOUT (t, L (4, 4), L (1, 4), 0);
  g_assert_false (nk_tensor_is_contiguous (t));
  g_assert_cmpint (nk_tensor_storage_index (t, (gint64[]) { 2, 1 }), ==, 6);
  LAYOUT (row, L (4), L (1), 4);
  LAYOUT (col, L (4), L (4), 1);
  LAYOUT (s0, L (2, 4), L (8, 1), 0);
  LAYOUT (s1, L (2, 2), L (8, 1), 1);
  LAYOUT (v28, L (2, 8), L (8, 1), 0);
  LAYOUT (nar, L (4, 2), L (4, 1), 1);
  LAYOUT (un, L (4, 1, 4), L (4, 4, 1), 0);
  LAYOUT (un_end, L (4, 4, 1), L (4, 1, 1), 0);
  LAYOUT (sq, L (4, 4), L (4, 1), 0);
  LAYOUT (diag, L (4), L (5), 0);
  LAYOUT (diag1, L (3), L (5), 1);
  LAYOUT (diagm, L (2), L (5), 8);
  LAYOUT (unf, L (4, 2, 2), L (4, 2, 1), 0);

  x3 = nk_tensor_view (x, NK_SHAPE (2, 2, 4), &error);
  g_assert_no_error (error);
  perm = nk_tensor_permute (x3, 3, (int[]) { 2, 0, 1 }, &error);
  g_assert_no_error (error);
  LAYOUT (perm, L (4, 2, 2), L (1, 8, 4), 0);
  flat = nk_tensor_flatten (x3, 1, 2, &error);
  g_assert_no_error (error);
  LAYOUT (flat, L (2, 8), L (8, 1), 0);
  g_assert_true (nk_tensor_same_storage (flat, x));

  /* Every element of every view is the storage element the address rule names. */
  {
    NkTensor *views[] = { t, s1, nar, diag1, diagm, perm };
    for (guint i = 0; i < G_N_ELEMENTS (views); i++)
      {
        g_autofree double *vals = nk_tensor_to_doubles (views[i], NULL);
        gint64 idx[NK_MAX_DIMS] = { 0 };
        gint64 n = nk_tensor_numel (views[i]);
        for (gint64 k = 0; k < n; k++)
          {
            g_assert_cmpfloat (vals[k], ==, raw (views[i], idx));
            for (int d = views[i]->ndim - 1; d >= 0; d--)
              {
                if (++idx[d] < views[i]->shape[d])
                  break;
                idx[d] = 0;
              }
          }
      }
  }
}

static void
test_slice_clamps (void)
{
  g_autoptr(NkTensor) x = arange_view (1, 10);
  g_autoptr(NkTensor) v = NULL;
  g_autoptr(GError) error = NULL;

  /* Python semantics: x[0, -3:100:2] is elements 7, 9. */
  v = nk_tensor_slice (x, 1, -3, 100, 2, &error);
  g_assert_no_error (error);
  LAYOUT (v, L (1, 2), L (10, 2), 7);
  g_clear_pointer (&v, nk_tensor_unref);
  v = nk_tensor_slice (x, 1, 8, 3, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (v->shape[1], ==, 0);
  g_clear_pointer (&v, nk_tensor_unref);

  v = nk_tensor_slice (x, 1, 0, 3, 0, &error);
  g_assert_null (v);
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, "slice step cannot be zero");
}

static void
test_view_of_transpose_fails (void)
{
  g_autoptr(NkTensor) x = arange_view (3, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) y = nk_tensor_t (x, &error);
  g_autoptr(NkTensor) bad = NULL;
  g_autoptr(NkTensor) c = NULL;
  g_autoptr(NkTensor) ok = NULL;
  g_autoptr(NkTensor) r = NULL;
  g_autofree double *vals = NULL;

  g_assert_no_error (error);
  bad = nk_tensor_view (y, NK_SHAPE (12), &error);
  g_assert_null (bad);
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE);
  g_assert_true (g_str_has_prefix (error->message,
      "view size is not compatible with input tensor's size and stride (at least one "
      "dimension spans across two contiguous subspaces). Use .reshape(...) instead."));
  /* The message quotes the layout that could not be viewed. */
  g_assert_nonnull (strstr (error->message, "shape (4, 3), stride (1, 4)"));
  g_clear_error (&error);

  /* contiguous() copies, then view works. */
  c = nk_tensor_contiguous (y, &error);
  g_assert_no_error (error);
  g_assert_false (nk_tensor_same_storage (c, x));
  ok = nk_tensor_view (c, NK_SHAPE (12), &error);
  g_assert_no_error (error);
  vals = nk_tensor_to_doubles (ok, NULL);
  /* y = x.t() read row by row: 0 4 8 1 5 9 2 6 10 3 7 11 */
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (vals[i], ==, (double) ((i % 3) * 4 + i / 3));

  /* reshape copies only when it must. */
  r = nk_tensor_reshape (y, NK_SHAPE (12), &error);
  g_assert_no_error (error);
  g_assert_false (nk_tensor_same_storage (r, x));
  g_clear_pointer (&r, nk_tensor_unref);
  r = nk_tensor_reshape (x, NK_SHAPE (6, 2), &error);
  g_assert_no_error (error);
  g_assert_true (nk_tensor_same_storage (r, x));

  /* contiguous() of a contiguous tensor is the tensor. */
  {
    g_autoptr(NkTensor) same = nk_tensor_contiguous (x, &error);
    g_assert_true (same == x);
  }
}

static void
test_view_rules (void)
{
  g_autoptr(NkTensor) x = arange_view (4, 6);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) cols = nk_tensor_narrow (x, 1, 0, 3, &error);  /* (4, 3) stride (6, 1) */
  g_autoptr(NkTensor) v = NULL;

  g_assert_no_error (error);
  /* Splitting a dim is always fine; merging across the gap is not. */
  v = nk_tensor_view (cols, NK_SHAPE (2, 2, 3), &error);
  g_assert_no_error (error);
  LAYOUT (v, L (2, 2, 3), L (12, 6, 1), 0);
  g_clear_pointer (&v, nk_tensor_unref);
  v = nk_tensor_view (cols, NK_SHAPE (12), &error);
  g_assert_null (v);
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE);
  g_clear_error (&error);

  v = nk_tensor_view (x, NK_SHAPE (5, -1), &error);
  g_assert_null (v);
  g_assert_cmpstr (error->message, ==, "shape '[5, -1]' is invalid for input of size 24");
  g_clear_error (&error);
  v = nk_tensor_view (x, NK_SHAPE (-1, -1), &error);
  g_assert_cmpstr (error->message, ==, "only one dimension can be inferred");
  g_clear_error (&error);
}

static void
test_write_through (void)
{
  g_autoptr(NkTensor) x = arange_view (4, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) y = nk_tensor_t (x, &error);
  g_autoptr(NkTensor) row = nk_tensor_select (x, 0, 2, &error);
  double v;

  g_assert_no_error (error);
  g_assert_true (nk_tensor_set_item (y, (gint64[]) { 0, 0 }, 100.0, &error));
  g_assert_true (nk_tensor_set_item (y, (gint64[]) { 2, 1 }, -6.0, &error));
  g_assert_true (nk_tensor_get_item (x, (gint64[]) { 0, 0 }, &v, &error));
  g_assert_cmpfloat (v, ==, 100.0);
  g_assert_true (nk_tensor_get_item (x, (gint64[]) { 1, 2 }, &v, &error));
  g_assert_cmpfloat (v, ==, -6.0);

  g_assert_true (nk_tensor_fill_ (row, 7.0, &error));
  g_assert_no_error (error);
  for (int j = 0; j < 4; j++)
    g_assert_cmpfloat (((float *) nk_storage_get_data (x->storage))[8 + j], ==, 7.0f);
  g_assert_cmpfloat (((float *) nk_storage_get_data (x->storage))[7], ==, 7.0f);  /* x[1, 3], untouched */
  g_assert_cmpfloat (((float *) nk_storage_get_data (x->storage))[12], ==, 12.0f);

  g_assert_false (nk_tensor_get_item (x, (gint64[]) { 4, 0 }, &v, &error));
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, "index 4 is out of bounds for dimension 0 with size 4");
}

static void
test_expand (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a = nk_tensor_arange (NK_DTYPE_F32, 4, &error);
  g_autoptr(NkTensor) e = nk_tensor_expand (a, NK_SHAPE (3, 4), &error);
  g_autoptr(NkTensor) col = NULL;
  g_autoptr(NkTensor) e2 = NULL;
  g_autoptr(NkTensor) bad = NULL;
  g_autofree double *vals = NULL;

  g_assert_no_error (error);
  LAYOUT (e, L (3, 4), L (0, 1), 0);
  g_assert_true (nk_tensor_same_storage (a, e));
  vals = nk_tensor_to_doubles (e, NULL);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (vals[i], ==, (double) (i % 4));

  col = nk_tensor_view (a, NK_SHAPE (4, 1), &error);
  e2 = nk_tensor_expand (col, NK_SHAPE (2, -1, 5), &error);
  g_assert_no_error (error);
  LAYOUT (e2, L (2, 4, 5), L (0, 1, 0), 0);

  bad = nk_tensor_expand (a, NK_SHAPE (3, 5), &error);
  g_assert_null (bad);
  g_assert_cmpstr (error->message, ==,
                   "The expanded size of the tensor (5) must match the existing size (4) at "
                   "non-singleton dimension 1.  Target sizes: [3, 5].  Tensor sizes: [4]");
}

static void
test_as_strided (void)
{
  g_autoptr(NkTensor) x = arange_view (3, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) win = NULL;
  g_autoptr(NkTensor) bad = NULL;

  /* Overlapping windows of 3 with step 1: a classic as_strided use. */
  win = nk_tensor_as_strided (x, NK_SHAPE (10, 3), (gint64[]) { 1, 1 }, 0, &error);
  g_assert_no_error (error);
  {
    double v;
    g_assert_true (nk_tensor_get_item (win, (gint64[]) { 9, 2 }, &v, &error));
    g_assert_cmpfloat (v, ==, 11.0);
  }

  bad = nk_tensor_as_strided (x, NK_SHAPE (4, 4), (gint64[]) { 4, 1 }, 0, &error);
  g_assert_null (bad);
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE);
  g_assert_cmpstr (error->message, ==,
                   "setStorage: sizes [4, 4], strides [4, 1], storage offset 0, and itemsize 4 "
                   "requiring a storage size of 64 are out of bounds for storage of size 48");
  g_clear_error (&error);
  bad = nk_tensor_as_strided (x, NK_SHAPE (2), (gint64[]) { 1 }, 11, &error);
  g_assert_null (bad);
  g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE);
}

static void
test_errors (void)
{
  g_autoptr(NkTensor) x = arange_view (3, 4);
  g_autoptr(NkTensor) x3 = NULL;
  g_autoptr(GError) error = NULL;
  NkTensor *r;

  r = nk_tensor_select (x, 0, 5, &error);
  g_assert_null (r);
  g_assert_cmpstr (error->message, ==, "select(): index 5 out of range for tensor of size [3, 4] at dimension 0");
  g_clear_error (&error);
  r = nk_tensor_narrow (x, 1, 2, 3, &error);
  g_assert_cmpstr (error->message, ==, "start (2) + length (3) exceeds dimension size (4).");
  g_clear_error (&error);
  r = nk_tensor_transpose (x, 0, 2, &error);
  g_assert_cmpstr (error->message, ==, "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  g_clear_error (&error);
  r = nk_tensor_permute (x, 2, (int[]) { 0, 0 }, &error);
  g_assert_cmpstr (error->message, ==, "permute(): duplicate dims are not allowed.");
  g_clear_error (&error);
  x3 = nk_tensor_unsqueeze (x, 0, &error);
  r = nk_tensor_t (x3, &error);
  g_assert_cmpstr (error->message, ==, "t() expects a tensor with <= 2 dimensions, but self is 3D");
  g_clear_error (&error);
  r = nk_tensor_flatten (x, 1, 0, &error);
  g_assert_cmpstr (error->message, ==, "flatten() has invalid args: start_dim cannot come after end_dim");
  g_clear_error (&error);
  r = nk_tensor_unflatten (x, 1, NK_SHAPE (3, -1), &error);
  g_assert_cmpstr (error->message, ==, "unflatten: Provided sizes [3, -1] don't multiply up to the size of dim 1 (4) in the input tensor");
  g_clear_error (&error);
  r = nk_tensor_diagonal (x, 0, 0, 0, &error);
  g_assert_cmpstr (error->message, ==, "diagonal dimensions cannot be identical 0, 0");
  g_assert_null (r);
}

static void
test_memory_buckets (void)
{
  NkDevice *cpu = nk_device_get_cpu ();
  g_autoptr(GError) error = NULL;
  guint64 live0, live1, peak1, act;
  NkBucket old;

  nk_device_get_bytes (cpu, NK_BUCKET_PARAMS, &live0, NULL);
  {
    g_autoptr(NkTensor) p = nk_tensor_new_full (NULL, NK_DTYPE_F32, NK_SHAPE (10, 10),
                                                NK_BUCKET_PARAMS, TRUE, &error);
    g_autoptr(NkTensor) view = nk_tensor_t (p, &error);
    g_assert_no_error (error);
    nk_device_get_bytes (cpu, NK_BUCKET_PARAMS, &live1, &peak1);
    g_assert_cmpuint (live1 - live0, ==, 400);   /* views cost nothing */
    g_assert_cmpuint (peak1, >=, live1);
    g_assert_cmpfloat (((float *) nk_tensor_data (p))[99], ==, 0.0f);
  }
  nk_device_get_bytes (cpu, NK_BUCKET_PARAMS, &live1, &peak1);
  g_assert_cmpuint (live1, ==, live0);
  g_assert_cmpuint (peak1, >=, live0 + 400);

  /* The per-thread default bucket tags what constructors allocate. */
  old = nk_storage_set_default_bucket (NK_BUCKET_ACTIVATIONS);
  nk_device_get_bytes (cpu, NK_BUCKET_ACTIVATIONS, &act, NULL);
  {
    g_autoptr(NkTensor) a = nk_tensor_zeros (NK_DTYPE_BF16, NK_SHAPE (3, 5), &error);
    guint64 now;
    nk_device_get_bytes (cpu, NK_BUCKET_ACTIVATIONS, &now, NULL);
    g_assert_cmpuint (now - act, ==, 30);
    nk_storage_set_bucket (a->storage, NK_BUCKET_GRADS);
    nk_device_get_bytes (cpu, NK_BUCKET_ACTIVATIONS, &now, NULL);
    g_assert_cmpuint (now, ==, act);
  }
  nk_storage_set_default_bucket (old);
}

static void
test_dtypes_and_items (void)
{
  g_autoptr(GError) error = NULL;
  static const double vals[] = { 1.0, 0.1, -3.5, 1e30 };
  g_autoptr(NkTensor) b = nk_tensor_new_from_doubles (NK_DTYPE_BF16, NK_SHAPE (4), vals, &error);
  g_autoptr(NkTensor) i = nk_tensor_arange (NK_DTYPE_INT64, 5, &error);
  g_autofree double *out = NULL;
  double v;

  g_assert_no_error (error);
  out = nk_tensor_to_doubles (b, NULL);
  for (int k = 0; k < 4; k++)
    g_assert_cmpfloat (out[k], ==, nk_dtype_to_double (NK_DTYPE_BF16, nk_dtype_encode (NK_DTYPE_BF16, vals[k], NK_OVERFLOW_DEFAULT)));
  g_assert_cmpuint (nk_tensor_nbytes (b), ==, 8);
  g_assert_true (nk_tensor_get_item (i, (gint64[]) { -1 }, &v, &error));
  g_assert_cmpfloat (v, ==, 4.0);
  g_assert_cmpuint (nk_tensor_nbytes (i), ==, 40);
}

/* nk_tensor_storage_numel: storage bytes / the tensor's own element size. */
static void
test_storage_numel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = arange_view (3, 4);                       /* 12 f32 = 48 bytes */
  g_autoptr(NkTensor) s = nk_tensor_slice (x, 1, 1, NK_SLICE_END, 2, &error);
  g_autoptr(NkTensor) d = nk_tensor_new_view (x->storage, NK_DTYPE_F64, NK_SHAPE (6), NULL, 0, &error);
  g_autoptr(NkTensor) h = nk_tensor_new_view (x->storage, NK_DTYPE_BF16, NK_SHAPE (24), NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_cmpint (nk_tensor_storage_numel (x), ==, 12);
  g_assert_cmpint (nk_tensor_storage_numel (s), ==, 12);   /* a view: the whole storage */
  g_assert_cmpint (nk_tensor_storage_numel (d), ==, 6);
  g_assert_cmpint (nk_tensor_storage_numel (h), ==, 24);
}

/* Shapes and strides whose products overflow a gint64 are GErrors, never UB (the
 * sanitizer build runs this). PyTorch refuses the same ones ("numel: integer
 * multiplication overflow", "Storage size calculation overflowed ..."). */
static void
test_overflow (void)
{
  const gint64 big = G_GINT64_CONSTANT (1) << 40, huge = G_GINT64_CONSTANT (1) << 62;
  g_autoptr(NkTensor) one = arange_view (1, 1);
  g_autoptr(NkTensor) x = arange_view (4, 4);
  g_autoptr(NkTensor) empty = NULL;

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) e = nk_tensor_expand (one, NK_SHAPE (big, big), &error);
    g_assert_null (e);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "(1099511627776, 1099511627776)"));
  }
  {
    /* numel 0, but the contiguous strides 4·2^62·2^62 do not fit. */
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) z = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (4, huge, huge, 0), &error);
    g_assert_null (z);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) a = nk_tensor_as_strided (x, NK_SHAPE (big, big), (gint64[]) { big, big },
                                                  0, &error);
    g_assert_null (a);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
  }
  {
    /* Few elements, but the last one's index 2·(2^63/2 - 1) + 1 + 1 overflows. */
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) a = nk_tensor_as_strided (x, NK_SHAPE (3, 2),
                                                  (gint64[]) { G_MAXINT64 / 2, 1 }, 0, &error);
    g_assert_null (a);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE);
    g_assert_true (g_str_has_prefix (error->message, "Storage size calculation overflowed"));
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) v = nk_tensor_new_view (x->storage, NK_DTYPE_F32, NK_SHAPE (2, 2),
                                                (gint64[]) { G_MAXINT64 / 2, 1 }, 4, &error);
    g_assert_null (v);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_STRIDE);
  }
  {
    g_autoptr(GError) error = NULL;
    empty = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (0), &error);
    g_assert_no_error (error);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) v = nk_tensor_view (empty, NK_SHAPE (4, huge, huge, 0), &error);
    g_assert_null (v);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) v = nk_tensor_reshape (empty, NK_SHAPE (huge, 0, huge, 4), &error);
    g_assert_null (v);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
  }
  {
    /* An empty view with sizes that fit stays fine (torch: strides (4, 1, 1)). */
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) v = nk_tensor_view (empty, NK_SHAPE (huge / 4, 4, 0), &error);
    g_assert_no_error (error);
    g_assert_cmpint (v->stride[0], ==, 4);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkTensor) v = nk_tensor_slice (x, 0, 0, NK_SLICE_END, G_MAXINT64 / 2, &error);
    g_assert_null (v);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_INDEX);
  }
}

/* Zero-size shapes through every op that infers a size or steps (issue 11: x.view(-1, 0)
 * on an empty x divided by a zero product, SIGFPE). Oracle: PyTorch 1.13's answers,
 * run by hand (shape and strides, or its error text). */
enum { OP_VIEW, OP_RESHAPE, OP_UNFLATTEN };

typedef struct {
  int           op;
  int           in_ndim;
  gint64        in_shape[3];
  int           ndim;
  gint64        shape[4];
  int           out_ndim;         /* when it works */
  gint64        out_shape[4];
  gint64        out_stride[4];
  const char   *message;          /* when it fails */
} ZeroCase;

#define AMBIGUOUS(s) "cannot reshape tensor of 0 elements into shape " s " because the " \
                     "unspecified dimension size -1 can be any value and is ambiguous"

static const ZeroCase zero_cases[] = {
  { OP_VIEW,      1, { 0 },    2, { -1, 0 },     0, { 0 }, { 0 }, AMBIGUOUS ("[-1, 0]") },
  { OP_RESHAPE,   1, { 0 },    2, { -1, 0 },     0, { 0 }, { 0 }, AMBIGUOUS ("[-1, 0]") },
  { OP_RESHAPE,   2, { 2, 0 }, 2, { 0, -1 },     0, { 0 }, { 0 }, AMBIGUOUS ("[0, -1]") },
  { OP_VIEW,      1, { 0 },    3, { 0, -1, 5 },  0, { 0 }, { 0 }, AMBIGUOUS ("[0, -1, 5]") },
  { OP_VIEW,      1, { 0 },    3, { -1, 0, 1 },  0, { 0 }, { 0 }, AMBIGUOUS ("[-1, 0, 1]") },
  { OP_VIEW,      1, { 3 },    2, { -1, 0 },     0, { 0 }, { 0 },
    "shape '[-1, 0]' is invalid for input of size 3" },
  { OP_VIEW,      1, { 0 },    2, { -1, 5 },     2, { 0, 5 }, { 5, 1 }, NULL },
  { OP_VIEW,      1, { 0 },    1, { -1 },        1, { 0 }, { 1 }, NULL },
  { OP_VIEW,      2, { 0, 3 }, 2, { 3, 0 },      2, { 3, 0 }, { 1, 1 }, NULL },
  { OP_RESHAPE,   2, { 2, 0 }, 2, { -1, 7 },     2, { 0, 7 }, { 7, 1 }, NULL },
  { OP_UNFLATTEN, 1, { 0 },    2, { -1, 0 },     0, { 0 }, { 0 }, AMBIGUOUS ("[-1, 0]") },
  { OP_UNFLATTEN, 1, { 0 },    2, { 0, -1 },     0, { 0 }, { 0 }, AMBIGUOUS ("[0, -1]") },
  { OP_UNFLATTEN, 1, { 0 },    2, { -1, 5 },     2, { 0, 5 }, { 5, 1 }, NULL },
  { OP_UNFLATTEN, 2, { 0, 3 }, 2, { 0, 0 },      3, { 0, 0, 3 }, { 3, 3, 1 }, NULL },
  { OP_UNFLATTEN, 2, { 4, 0 }, 2, { 2, -1 },     3, { 2, 2, 0 }, { 2, 1, 1 }, NULL },
  { OP_UNFLATTEN, 1, { 3 },    2, { -1, 0 },     0, { 0 }, { 0 },
    "unflatten: Provided sizes [-1, 0] don't multiply up to the size of dim 0 (3) in the "
    "input tensor" },
};

static void
test_zero_size_infer (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (zero_cases); i++)
    {
      const ZeroCase *c = &zero_cases[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(NkTensor) x = nk_tensor_zeros (NK_DTYPE_F32, c->in_ndim, c->in_shape, &error);
      g_autoptr(NkTensor) y = NULL;

      g_assert_no_error (error);
      g_test_message ("case %" G_GSIZE_FORMAT, i);
      switch (c->op)
        {
        case OP_VIEW: y = nk_tensor_view (x, c->ndim, c->shape, &error); break;
        case OP_RESHAPE: y = nk_tensor_reshape (x, c->ndim, c->shape, &error); break;
        case OP_UNFLATTEN: y = nk_tensor_unflatten (x, 0, c->ndim, c->shape, &error); break;
        default: g_assert_not_reached ();
        }
      if (c->message != NULL)
        {
          g_assert_null (y);
          g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
          g_assert_cmpstr (error->message, ==, c->message);
          continue;
        }
      g_assert_no_error (error);
      g_assert_cmpint (y->ndim, ==, c->out_ndim);
      for (int d = 0; d < y->ndim; d++)
        {
          g_assert_cmpint (y->shape[d], ==, c->out_shape[d]);
          g_assert_cmpint (y->stride[d], ==, c->out_stride[d]);
        }
    }
}

/* Slices, narrows, diagonals and as_strided of size-0 dims (PyTorch's layouts), and
 * steps too large to add to a size: NumPy and Python's len(range(0, 4, 2**63 - 1))
 * say 1 (PyTorch 1.13's own arithmetic overflows there and says 0). */
static void
test_zero_size_steps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) e = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (3, 0), &error);
  g_autoptr(NkTensor) w = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (0, 4), &error);
  g_autoptr(NkTensor) five = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (5), &error);
  g_autoptr(NkTensor) x = arange_view (4, 4);

  g_assert_no_error (error);
  {
    g_autoptr(NkTensor) s = nk_tensor_slice (e, 0, 0, NK_SLICE_END, 2, &error);
    g_assert_no_error (error);
    LAYOUT (s, L (2, 0), L (2, 1), 0);                 /* zeros(3, 0)[::2] */
  }
  {
    g_autoptr(NkTensor) s = nk_tensor_slice (e, 1, 5, NK_SLICE_END, 3, &error);
    g_assert_no_error (error);
    LAYOUT (s, L (3, 0), L (1, 3), 0);                 /* zeros(3, 0)[:, 5::3] */
  }
  {
    g_autoptr(NkTensor) n = nk_tensor_narrow (w, 0, 0, 0, &error);
    g_assert_no_error (error);
    LAYOUT (n, L (0, 4), L (4, 1), 0);
  }
  {
    g_autoptr(NkTensor) d = nk_tensor_diagonal (w, 2, 0, 1, &error);
    g_assert_no_error (error);
    g_assert_cmpint (d->ndim, ==, 1);
    g_assert_cmpint (d->shape[0], ==, 0);
    g_assert_cmpint (d->stride[0], ==, 5);
  }
  {
    /* Nothing is addressed, so no offset is out of bounds (torch agrees). */
    g_autoptr(NkTensor) a = nk_tensor_as_strided (five, NK_SHAPE (0, 3), (gint64[]) { 7, 1 },
                                                  100, &error);
    g_assert_no_error (error);
    LAYOUT (a, L (0, 3), L (7, 1), 100);
  }
  {
    g_autoptr(NkTensor) s = nk_tensor_slice (x, 1, 0, NK_SLICE_END, G_MAXINT64, &error);
    g_assert_no_error (error);
    LAYOUT (s, L (4, 1), L (4, G_MAXINT64), 0);
  }
  {
    g_autoptr(NkTensor) s = nk_tensor_slice (x, 1, 1, 3, G_MAXINT64 - 1, &error);
    g_assert_no_error (error);
    LAYOUT (s, L (4, 1), L (4, 1), 1);
  }
}

/* -1 in expand keeps a size and may appear in every existing dim (issue 10), but not
 * in a new leading one. PyTorch 1.13's layouts and words. */
static void
test_expand_keep (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) col = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (3, 1), &error);
  g_autoptr(NkTensor) row = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (1, 3), &error);
  g_autoptr(NkTensor) empty = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (0, 1), &error);

  g_assert_no_error (error);
  {
    g_autoptr(NkTensor) t = nk_tensor_expand (col, NK_SHAPE (-1, -1), &error);
    g_assert_no_error (error);
    LAYOUT (t, L (3, 1), L (1, 1), 0);
  }
  {
    g_autoptr(NkTensor) t = nk_tensor_expand (row, NK_SHAPE (2, -1, -1), &error);
    g_assert_no_error (error);
    LAYOUT (t, L (2, 1, 3), L (0, 3, 1), 0);
  }
  {
    g_autoptr(NkTensor) t = nk_tensor_expand (empty, NK_SHAPE (-1, 4), &error);
    g_assert_no_error (error);
    LAYOUT (t, L (0, 4), L (1, 0), 0);
  }
  {
    g_autoptr(NkTensor) t = nk_tensor_expand (row, NK_SHAPE (-1, -1, -1), &error);
    g_assert_null (t);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
    g_assert_cmpstr (error->message, ==, "The expanded size of the tensor (-1) isn't allowed "
                     "in a leading, non-existing dimension 0");
    g_clear_error (&error);
  }
  {
    /* PyTorch checks from the last dim back: the mismatch in dim 1 is found before
     * the leading -1 in dim 0. */
    g_autoptr(NkTensor) c2 = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (2, 1), &error);
    g_autoptr(NkTensor) t = nk_tensor_expand (c2, NK_SHAPE (-1, 1, -1), &error);
    g_assert_null (t);
    g_assert_cmpstr (error->message, ==, "The expanded size of the tensor (1) must match the "
                     "existing size (2) at non-singleton dimension 1.  Target sizes: [-1, 1, -1].  "
                     "Tensor sizes: [2, 1]");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/tensor/lecture-strides", test_lecture_strides);
  g_test_add_func ("/engine/tensor/views-closed-form", test_views_closed_form);
  g_test_add_func ("/engine/tensor/slice-clamps", test_slice_clamps);
  g_test_add_func ("/engine/tensor/view-of-transpose-fails", test_view_of_transpose_fails);
  g_test_add_func ("/engine/tensor/view-rules", test_view_rules);
  g_test_add_func ("/engine/tensor/write-through", test_write_through);
  g_test_add_func ("/engine/tensor/expand", test_expand);
  g_test_add_func ("/engine/tensor/as-strided", test_as_strided);
  g_test_add_func ("/engine/tensor/errors", test_errors);
  g_test_add_func ("/engine/tensor/memory-buckets", test_memory_buckets);
  g_test_add_func ("/engine/tensor/dtypes-and-items", test_dtypes_and_items);
  g_test_add_func ("/engine/tensor/storage-numel", test_storage_numel);
  g_test_add_func ("/engine/tensor/overflow", test_overflow);
  g_test_add_func ("/engine/tensor/zero-size/infer", test_zero_size_infer);
  g_test_add_func ("/engine/tensor/zero-size/steps", test_zero_size_steps);
  g_test_add_func ("/engine/tensor/expand-keep", test_expand_keep);

  return g_test_run ();
}
