/* test-data.c: the synthetic task in closed form, .npy batching, token windows from mapped files
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "nk-test-util.h"
#include "nk-data.h"
#include "nk-tensor.h"

/* The synthetic task, recomputed from the generator's raw words with the documented
 * Box–Muller formula (u1 = (w0 + 1)·2^-32, u2 = w1·2^-32, z = sqrt(−2 ln u1)·(cos, sin)
 * 2π u2) and y = Σ j·x_j in long double. */
static void
test_synthetic_closed_form (void)
{
  const guint dim = 7, batch = 5;      /* 35 values: an odd count ends on a lone cosine */
  g_autoptr(NkRng) rng = nk_rng_new (3);
  g_autoptr(NkRng) raw = nk_rng_new (3);
  float x[35], y[5], xr[36];

  nk_data_synthetic_fill (rng, dim, batch, x, y);

  for (guint i = 0; i < 36; i += 2)
    {
      double u1 = ((double) nk_rng_next_u32 (raw) + 1.0) * 0x1p-32;
      double u2 = (double) nk_rng_next_u32 (raw) * 0x1p-32;
      double r = sqrt (-2.0 * log (u1));

      xr[i] = (float) (r * cos (2 * G_PI * u2));
      xr[i + 1] = (float) (r * sin (2 * G_PI * u2));
    }
  g_assert_cmpuint (nk_rng_get_counter (rng), ==, nk_rng_get_counter (raw));

  for (guint b = 0; b < batch; b++)
    {
      long double acc = 0;

      for (guint j = 0; j < dim; j++)
        {
          g_assert_cmpfloat (x[b * dim + j], ==, xr[b * dim + j]);
          acc += (long double) j * x[b * dim + j];
        }
      g_assert_cmpfloat (y[b], ==, (float) acc);
    }

  /* The tensor form draws the same numbers from the same state, into the DATA bucket. */
  {
    g_autoptr(NkRng) again = nk_rng_new (3);
    g_autoptr(NkTensor) tx = NULL;
    g_autoptr(NkTensor) ty = NULL;
    g_autoptr(GError) error = NULL;

    g_assert_true (nk_data_synthetic_batch (again, dim, batch, &tx, &ty, &error));
    g_assert_no_error (error);
    g_assert_cmpint (tx->ndim, ==, 2);
    g_assert_cmpint (tx->shape[0], ==, batch);
    g_assert_cmpint (tx->shape[1], ==, dim);
    g_assert_cmpint (ty->ndim, ==, 1);
    g_assert_cmpint (nk_storage_get_bucket (tx->storage), ==, NK_BUCKET_DATA);
    g_assert_cmpint (nk_storage_get_bucket (ty->storage), ==, NK_BUCKET_DATA);
    g_assert_cmpmem (nk_tensor_data (tx), sizeof x, x, sizeof x);
    g_assert_cmpmem (nk_tensor_data (ty), sizeof y, y, sizeof y);
  }
}

static void
write_xy (const char *dir,
          guint64     n,
          guint       d,
          char      **out_x,
          char      **out_y)
{
  g_autofree float *x = g_new (float, n * d);
  g_autofree float *y = g_new (float, n);
  g_autoptr(GError) error = NULL;

  for (guint64 r = 0; r < n; r++)
    {
      for (guint c = 0; c < d; c++)
        x[r * d + c] = (float) (10 * r + c);
      y[r] = (float) r;
    }
  *out_x = g_build_filename (dir, "X.npy", NULL);
  *out_y = g_build_filename (dir, "Y.npy", NULL);
  nk_npy_save (*out_x, NK_NPY_F4, 2, (gint64[]) { n, d }, x, &error);
  g_assert_no_error (error);
  nk_npy_save (*out_y, NK_NPY_F4, 1, (gint64[]) { n }, y, &error);
  g_assert_no_error (error);
}

static void
test_array_batches (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-data");
  g_autofree char *xp = NULL;
  g_autofree char *yp = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkArrayDataset) ds = NULL;
  /* CLI.md: step t uses rows [(t·B) mod N, + B). N = 6, B = 2. */
  const struct { guint64 step; guint64 start; } cases[] = {
    { 0, 0 }, { 1, 2 }, { 2, 4 }, { 3, 0 }, { 4, 2 }, { 1000, 2 },
    /* 2^62 · 2 = 2^63 ≡ 2 (mod 6): no overflow on huge step counts. */
    { G_GUINT64_CONSTANT (1) << 62, 2 },
  };

  write_xy (dir, 6, 3, &xp, &yp);
  ds = nk_array_dataset_new (xp, yp, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (nk_array_dataset_get_n_rows (ds), ==, 6);
  g_assert_cmpuint (nk_array_dataset_get_dim (ds), ==, 3);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      float x[6], y[2];

      g_assert_cmpuint (nk_array_dataset_batch_start (ds, cases[i].step), ==, cases[i].start);
      nk_array_dataset_fill (ds, cases[i].step, x, y);
      for (guint r = 0; r < 2; r++)
        {
          g_assert_cmpfloat (y[r], ==, (float) (cases[i].start + r));
          for (guint c = 0; c < 3; c++)
            g_assert_cmpfloat (x[r * 3 + c], ==, (float) (10 * (cases[i].start + r) + c));
        }
    }

  {
    g_autoptr(NkTensor) tx = NULL;
    g_autoptr(NkTensor) ty = NULL;
    double v;

    g_assert_true (nk_array_dataset_batch (ds, 2, &tx, &ty, &error));
    g_assert_no_error (error);
    g_assert_cmpint (tx->shape[0], ==, 2);
    g_assert_cmpint (tx->shape[1], ==, 3);
    g_assert_cmpint (nk_storage_get_bucket (tx->storage), ==, NK_BUCKET_DATA);
    nk_tensor_get_item (tx, (gint64[]) { 1, 2 }, &v, &error);
    g_assert_cmpfloat (v, ==, 52.0);
    nk_tensor_get_item (ty, (gint64[]) { 0 }, &v, &error);
    g_assert_cmpfloat (v, ==, 4.0);
  }

  g_clear_pointer (&ds, nk_array_dataset_free);
  nk_test_remove_tree (dir);
}

static void
test_array_errors (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-data");
  g_autofree char *xp = NULL;
  g_autofree char *yp = NULL;
  g_autofree char *bad = g_build_filename (dir, "Y2.npy", NULL);
  g_autofree char *yn1 = g_build_filename (dir, "Yn1.npy", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkArrayDataset) ds = NULL;
  float y5[5] = { 0 };
  double y6[6] = { 0 };

  write_xy (dir, 6, 3, &xp, &yp);

  ds = nk_array_dataset_new (xp, yp, 4, &error);
  g_assert_null (ds);
  g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_BATCH);
  g_assert_nonnull (strstr (error->message, "6 rows"));
  g_assert_nonnull (strstr (error->message, "batch size 4"));
  g_clear_error (&error);

  /* Too few targets. */
  nk_npy_save (bad, NK_NPY_F4, 1, (gint64[]) { 5 }, y5, &error);
  ds = nk_array_dataset_new (xp, bad, 2, &error);
  g_assert_null (ds);
  g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE);
  g_clear_error (&error);

  /* float64 targets. */
  nk_npy_save (bad, NK_NPY_F8, 1, (gint64[]) { 6 }, y6, &error);
  ds = nk_array_dataset_new (xp, bad, 2, &error);
  g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "<f8"));
  g_clear_error (&error);

  /* Inputs that are 1-D. */
  ds = nk_array_dataset_new (yp, yp, 2, &error);
  g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_SHAPE);
  g_clear_error (&error);

  /* A corrupt file is an npy error naming it. */
  g_file_set_contents (bad, "not numpy", -1, NULL);
  ds = nk_array_dataset_new (xp, bad, 2, &error);
  g_assert_error (error, NK_NPY_ERROR, NK_NPY_ERROR_BAD_MAGIC);
  g_assert_nonnull (strstr (error->message, bad));
  g_clear_error (&error);

  /* Targets shaped [N, 1] are accepted. */
  nk_npy_save (yn1, NK_NPY_F4, 2, (gint64[]) { 6, 1 }, y6, &error);
  ds = nk_array_dataset_new (xp, yn1, 3, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);

  g_clear_pointer (&ds, nk_array_dataset_free);
  nk_test_remove_tree (dir);
}

static void
check_windows (NkTokenStream *ts,
               const guint32 *expected,
               guint64        length)
{
  g_autoptr(NkRng) rng = nk_rng_new (5);
  const guint batch = 64, context = 9;
  gint32 out[64 * 10];
  guint64 starts[64];
  g_autoptr(GError) error = NULL;
  gboolean saw_first = FALSE, saw_last = FALSE;

  g_assert_cmpuint (nk_token_stream_get_length (ts), ==, length);
  for (guint rep = 0; rep < 50; rep++)
    {
      g_assert_true (nk_token_stream_sample_fill (ts, rng, batch, context, out, starts, &error));
      g_assert_no_error (error);
      for (guint b = 0; b < batch; b++)
        {
          g_assert_cmpuint (starts[b] + context + 1, <=, length);
          saw_first |= starts[b] == 0;
          saw_last |= starts[b] + context + 1 == length;
          for (guint i = 0; i <= context; i++)
            {
              g_assert_cmpint (out[b * (context + 1) + i], ==, (gint32) expected[starts[b] + i]);
              g_assert_cmpint (out[b * (context + 1) + i], <, (gint64) nk_token_stream_get_vocab_size (ts));
            }
        }
    }
  /* 3200 uniform starts over ~100 positions reach both ends. */
  g_assert_true (saw_first);
  g_assert_true (saw_last);
}

static void
test_token_streams (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-data");
  g_autofree char *bin = g_build_filename (dir, "tokens.bin", NULL);
  g_autofree char *npy16 = g_build_filename (dir, "tokens16.npy", NULL);
  g_autofree char *npy32 = g_build_filename (dir, "tokens32.npy", NULL);
  g_autoptr(GError) error = NULL;
  const guint64 n = 101;
  guint32 expected[101];
  guint8 raw[202];
  guint16 u16[101];
  gint32 i32[101];

  for (guint64 i = 0; i < n; i++)
    {
      expected[i] = (guint32) ((i * 7919 + 3) % 65536);
      /* Raw .bin is little-endian uint16, written byte by byte here. */
      raw[2 * i] = expected[i] & 0xff;
      raw[2 * i + 1] = expected[i] >> 8;
      u16[i] = (guint16) expected[i];
      i32[i] = (gint32) expected[i];
    }
  g_file_set_contents (bin, (const char *) raw, sizeof raw, &error);
  g_assert_no_error (error);
  nk_npy_save (npy16, NK_NPY_U2, 1, (gint64[]) { n }, u16, &error);
  nk_npy_save (npy32, NK_NPY_I4, 1, (gint64[]) { n }, i32, &error);
  g_assert_no_error (error);

  {
    g_autoptr(NkTokenStream) ts = nk_token_stream_new_from_file (bin, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (nk_token_stream_get_vocab_size (ts), ==, 65536);
    check_windows (ts, expected, n);
  }
  {
    g_autoptr(NkTokenStream) ts = nk_token_stream_new_from_file (npy16, &error);

    g_assert_no_error (error);
    check_windows (ts, expected, n);
  }
  {
    g_autoptr(NkTokenStream) ts = nk_token_stream_new_from_file (npy32, &error);
    guint32 max = 0;

    g_assert_no_error (error);
    for (guint64 i = 0; i < n; i++)
      max = MAX (max, expected[i]);
    g_assert_cmpuint (nk_token_stream_get_vocab_size (ts), ==, max + 1);
    check_windows (ts, expected, n);
  }

  /* The tensor form: int32 [B, T+1] in the DATA bucket, the same windows. */
  {
    g_autoptr(NkTokenStream) ts = nk_token_stream_new_from_file (bin, &error);
    g_autoptr(NkRng) a = nk_rng_new (8);
    g_autoptr(NkRng) b = nk_rng_new (8);
    g_autoptr(NkTensor) t = nk_token_stream_sample (ts, a, 3, 4, &error);
    gint32 out[15];

    g_assert_no_error (error);
    g_assert_cmpint (t->dtype, ==, NK_DTYPE_INT32);
    g_assert_cmpint (t->shape[0], ==, 3);
    g_assert_cmpint (t->shape[1], ==, 5);
    g_assert_cmpint (nk_storage_get_bucket (t->storage), ==, NK_BUCKET_DATA);
    nk_token_stream_sample_fill (ts, b, 3, 4, out, NULL, &error);
    g_assert_cmpmem (nk_tensor_data (t), sizeof out, out, sizeof out);
  }

  /* Bad streams. */
  {
    g_autoptr(NkTokenStream) ts = NULL;
    g_autoptr(NkRng) rng = nk_rng_new (1);
    gint32 out[200];

    g_file_set_contents (bin, "abc", 3, NULL);
    ts = nk_token_stream_new_from_file (bin, &error);
    g_assert_null (ts);
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS);
    g_assert_nonnull (strstr (error->message, "odd"));
    g_clear_error (&error);

    g_file_set_contents (bin, "", 0, NULL);
    ts = nk_token_stream_new_from_file (bin, &error);
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS);
    g_clear_error (&error);

    i32[50] = -3;
    nk_npy_save (npy32, NK_NPY_I4, 1, (gint64[]) { n }, i32, NULL);
    ts = nk_token_stream_new_from_file (npy32, &error);
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS);
    g_assert_nonnull (strstr (error->message, "token 50 is -3"));
    g_clear_error (&error);

    nk_npy_save (npy32, NK_NPY_I4, 2, (gint64[]) { 1, n }, i32, NULL);
    ts = nk_token_stream_new_from_file (npy32, &error);
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS);
    g_clear_error (&error);

    ts = nk_token_stream_new_from_file (npy16, &error);
    g_assert_no_error (error);
    g_assert_false (nk_token_stream_sample_fill (ts, rng, 1, 101, out, NULL, &error));
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_BATCH);
    g_clear_error (&error);
    /* Exactly the whole stream as one window is fine. */
    g_assert_true (nk_token_stream_sample_fill (ts, rng, 1, 100, out, NULL, &error));
    g_assert_cmpint (out[100], ==, (gint32) expected[100]);

    g_assert_null (nk_token_stream_new_from_file ("/nonexistent/tokens.bin", &error));
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_IO);
  }

  nk_test_remove_tree (dir);
}

static void
test_default_text (void)
{
  g_autoptr(GBytes) text = nk_data_get_default_text ();
  g_autoptr(NkTokenStream) ts = nk_token_stream_new_default ();
  gsize len;
  const char *p = g_bytes_get_data (text, &len);
  g_autofree char *copy = g_strndup (p, len);

  g_assert_cmpuint (len, >, 2000);
  g_assert_true (g_utf8_validate (p, (gssize) len, NULL));
  g_assert_nonnull (strstr (copy, "napkin"));
  g_assert_cmpuint (nk_token_stream_get_length (ts), ==, len);
  g_assert_cmpuint (nk_token_stream_get_vocab_size (ts), ==, 256);
  for (guint64 i = 0; i < len; i += 97)
    g_assert_cmpuint (nk_token_stream_get_token (ts, i), ==, (guint8) p[i]);
}

/* A bad token deep in a large file is refused when the file is opened, naming the
 * file, the index and the value. Oracle: the file is built by hand with one token
 * out of range at a known index. */
static void
test_token_vocab (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-data");
  g_autofree char *path = g_build_filename (dir, "tokens.bin", NULL);
  const guint64 n = 200000, bad_at = 150000;
  g_autofree guint16 *tokens = g_new (guint16, n);
  g_autoptr(NkTokenStream) ts = NULL;
  g_autoptr(GError) error = NULL;

  for (guint64 i = 0; i < n; i++)
    tokens[i] = GUINT16_TO_LE ((guint16) (i % 256));
  tokens[bad_at] = GUINT16_TO_LE (9999);
  g_assert_true (g_file_set_contents (path, (const char *) tokens, n * 2, NULL));

  ts = nk_token_stream_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_true (nk_token_stream_check_vocab (ts, 10000, &error));
  g_assert_no_error (error);
  g_assert_false (nk_token_stream_check_vocab (ts, 256, &error));
  g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "token 150000 "));
  g_assert_nonnull (strstr (error->message, "is 9999"));
  g_assert_nonnull (strstr (error->message, "256"));
  g_clear_error (&error);

  /* not a regular file: said so, for every reader of token files */
  {
    const char *not_files[] = { "/dev/null", dir };

    for (guint i = 0; i < G_N_ELEMENTS (not_files); i++)
      {
        g_autoptr(NkTokenStream) t = nk_token_stream_new_from_file (not_files[i], &error);

        g_assert_null (t);
        g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_IO);
        g_assert_nonnull (strstr (error->message, "is not a regular file"));
        g_assert_nonnull (strstr (error->message, not_files[i]));
        g_clear_error (&error);
      }
  }
  g_unlink (path);
  nk_test_remove_tree (dir);
}

/* A NaN or infinity in X or Y is refused when the arrays are opened, with its place. */
static void
test_array_nonfinite (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-data");
  g_autofree char *xp = g_build_filename (dir, "X.npy", NULL);
  g_autofree char *yp = g_build_filename (dir, "Y.npy", NULL);
  float x[6 * 3], y[6];
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = (float) i;
  for (guint i = 0; i < G_N_ELEMENTS (y); i++)
    y[i] = (float) -i;

  x[3 * 3 + 1] = NAN;                                   /* row 3, column 1 */
  g_assert_true (nk_npy_save (xp, NK_NPY_F4, 2, (gint64[]) { 6, 3 }, x, &error));
  g_assert_true (nk_npy_save (yp, NK_NPY_F4, 1, (gint64[]) { 6 }, y, &error));
  {
    g_autoptr(NkArrayDataset) ds = nk_array_dataset_new (xp, yp, 2, &error);

    g_assert_null (ds);
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_VALUES);
    g_test_message ("%s", error->message);
    g_assert_true (g_str_has_prefix (error->message, xp));
    g_assert_nonnull (strstr (error->message, "row 3, column 1 is nan"));
    g_clear_error (&error);
  }

  x[3 * 3 + 1] = 0.5f;
  y[5] = -INFINITY;
  g_assert_true (nk_npy_save (xp, NK_NPY_F4, 2, (gint64[]) { 6, 3 }, x, &error));
  g_assert_true (nk_npy_save (yp, NK_NPY_F4, 1, (gint64[]) { 6 }, y, &error));
  {
    g_autoptr(NkArrayDataset) ds = nk_array_dataset_new (xp, yp, 2, &error);

    g_assert_null (ds);
    g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_VALUES);
    g_assert_true (g_str_has_prefix (error->message, yp));
    g_assert_nonnull (strstr (error->message, "element 5 is -inf"));
    g_clear_error (&error);
  }
  g_unlink (xp);
  g_unlink (yp);
  nk_test_remove_tree (dir);
}

/* What a binding gets from the boxed types: a copy reads the same rows and tokens as
 * the files hold (the values written here are the oracle) after its original is
 * freed. The second dataset's arrays start at an odd address, so it reads from the
 * aligned copies the dataset makes, and its copy must make its own. */
static void
test_copies (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-data");
  g_autofree char *xp = NULL;
  g_autofree char *yp = NULL;
  g_autofree char *bp = g_build_filename (dir, "batches.npy", NULL);
  g_autoptr(GError) error = NULL;
  float x[6], y[2];

  write_xy (dir, 6, 3, &xp, &yp);
  {
    NkArrayDataset *ds = nk_array_dataset_new (xp, yp, 2, &error);
    g_autoptr(NkArrayDataset) copy = NULL;

    g_assert_no_error (error);
    copy = g_boxed_copy (NK_TYPE_ARRAY_DATASET, ds);
    nk_array_dataset_free (ds);
    nk_array_dataset_fill (copy, 1, x, y);
    for (guint r = 0; r < 2; r++)
      {
        g_assert_cmpfloat (y[r], ==, (float) (2 + r));
        for (guint c = 0; c < 3; c++)
          g_assert_cmpfloat (x[r * 3 + c], ==, (float) (10 * (2 + r) + c));
      }
  }
  {
    float xv[18], yv[6];
    g_autoptr(GBytes) xb = NULL;
    g_autoptr(GBytes) yb = NULL;
    g_autoptr(GBytes) xs = NULL;
    g_autoptr(GBytes) ys = NULL;
    g_autofree guint8 *xbuf = NULL;
    g_autofree guint8 *ybuf = NULL;
    g_autoptr(NkNpyArray) xa = NULL;
    g_autoptr(NkNpyArray) ya = NULL;
    NkArrayDataset *ds;
    g_autoptr(NkArrayDataset) copy = NULL;

    for (guint r = 0; r < 6; r++)
      {
        for (guint c = 0; c < 3; c++)
          xv[r * 3 + c] = (float) (10 * r + c);
        yv[r] = (float) r;
      }
    xb = nk_npy_to_bytes (NK_NPY_F4, 2, (gint64[]) { 6, 3 }, xv);
    yb = nk_npy_to_bytes (NK_NPY_F4, 1, (gint64[]) { 6 }, yv);
    /* The same files one byte into a buffer: the elements are misaligned. */
    xbuf = g_malloc (g_bytes_get_size (xb) + 1);
    ybuf = g_malloc (g_bytes_get_size (yb) + 1);
    memcpy (xbuf + 1, g_bytes_get_data (xb, NULL), g_bytes_get_size (xb));
    memcpy (ybuf + 1, g_bytes_get_data (yb, NULL), g_bytes_get_size (yb));
    xs = g_bytes_new_static (xbuf + 1, g_bytes_get_size (xb));
    ys = g_bytes_new_static (ybuf + 1, g_bytes_get_size (yb));
    xa = nk_npy_array_new_from_bytes (xs, "X.npy", &error);
    g_assert_no_error (error);
    ya = nk_npy_array_new_from_bytes (ys, "Y.npy", &error);
    g_assert_no_error (error);
    g_assert_cmpuint ((guintptr) nk_npy_array_get_data (xa) % G_ALIGNOF (float), !=, 0);
    ds = nk_array_dataset_new_from_arrays (xa, ya, 2, &error);
    g_assert_no_error (error);
    copy = nk_array_dataset_copy (ds);
    nk_array_dataset_free (ds);
    nk_array_dataset_fill (copy, 2, x, y);
    for (guint r = 0; r < 2; r++)
      {
        g_assert_cmpfloat (y[r], ==, (float) (4 + r));
        for (guint c = 0; c < 3; c++)
          g_assert_cmpfloat (x[r * 3 + c], ==, (float) (10 * (4 + r) + c));
      }
  }
  {
    g_autoptr(GBytes) text = g_bytes_new_static ("napkin", 6);
    NkTokenStream *ts = nk_token_stream_new_from_text (text);
    g_autoptr(NkTokenStream) copy = g_boxed_copy (NK_TYPE_TOKEN_STREAM, ts);

    nk_token_stream_free (ts);
    g_assert_cmpuint (nk_token_stream_get_length (copy), ==, 6);
    g_assert_cmpuint (nk_token_stream_get_vocab_size (copy), ==, 256);
    for (guint i = 0; i < 6; i++)
      g_assert_cmpuint (nk_token_stream_get_token (copy, i), ==, (guint8) "napkin"[i]);
  }
  {
    gint32 data[3 * 2 * 5];
    gint32 bx[2 * 4], by[2 * 4];
    NkBatchFile *bf;
    g_autoptr(NkBatchFile) copy = NULL;

    for (guint i = 0; i < G_N_ELEMENTS (data); i++)
      data[i] = (gint32) i;
    g_assert_true (nk_npy_save (bp, NK_NPY_I4, 3, (gint64[]) { 3, 2, 5 }, data, &error));
    bf = nk_batch_file_new (bp, 30, &error);
    g_assert_no_error (error);
    copy = g_boxed_copy (NK_TYPE_BATCH_FILE, bf);
    nk_batch_file_free (bf);
    g_assert_cmpuint (nk_batch_file_get_n (copy), ==, 3);
    g_assert_cmpuint (nk_batch_file_get_context (copy), ==, 4);
    /* Step 4 reads batch 4 mod 3 = 1: tokens 10..14 and 15..19. */
    nk_batch_file_fill (copy, 4, bx, by);
    for (int r = 0; r < 2; r++)
      for (int c = 0; c < 4; c++)
        {
          g_assert_cmpint (bx[r * 4 + c], ==, 10 + r * 5 + c);
          g_assert_cmpint (by[r * 4 + c], ==, 10 + r * 5 + c + 1);
        }
  }
  nk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/data/synthetic/closed-form", test_synthetic_closed_form);
  g_test_add_func ("/engine/data/arrays/batches", test_array_batches);
  g_test_add_func ("/engine/data/arrays/errors", test_array_errors);
  g_test_add_func ("/engine/data/tokens/windows", test_token_streams);
  g_test_add_func ("/engine/data/tokens/default-text", test_default_text);
  g_test_add_func ("/engine/data/tokens/vocab", test_token_vocab);
  g_test_add_func ("/engine/data/arrays/nonfinite", test_array_nonfinite);
  g_test_add_func ("/engine/data/copies", test_copies);

  return g_test_run ();
}
