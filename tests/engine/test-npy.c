/* test-npy.c: .npy files built byte by byte, round trips, and every kind of corruption
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "nk-npy.h"
#include "nk-tensor.h"

/* The oracle: a .npy assembled here from the format description (magic, version,
 * little-endian header length, dict text padded with spaces and ended by '\n' so the
 * data starts at a multiple of 64, then the raw elements). */
static GBytes *
build_npy (guint         major,
           const char   *dict,
           gconstpointer data,
           gsize         nbytes)
{
  GByteArray *out = g_byte_array_new ();
  gsize prefix = major == 1 ? 10 : 12;
  GString *header = g_string_new (dict);
  guint8 len[4];

  while ((prefix + header->len + 1) % 64 != 0)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');

  g_byte_array_append (out, (const guint8 *) "\x93NUMPY", 6);
  g_byte_array_append (out, (const guint8[]) { major, 0 }, 2);
  len[0] = header->len & 0xff;
  len[1] = (header->len >> 8) & 0xff;
  len[2] = (header->len >> 16) & 0xff;
  len[3] = (header->len >> 24) & 0xff;
  g_byte_array_append (out, len, major == 1 ? 2 : 4);
  g_byte_array_append (out, (const guint8 *) header->str, header->len);
  if (nbytes)
    g_byte_array_append (out, data, nbytes);
  g_string_free (header, TRUE);
  return g_byte_array_free_to_bytes (out);
}

static char *
write_temp (GBytes     *bytes,
            const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("napkin-npy-XXXXXX", &error);
  char *path;

  g_assert_no_error (error);
  path = g_build_filename (dir, name, NULL);
  g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
  return path;
}

static void
remove_temp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_read_hand_built (void)
{
  const float values[6] = { 0.5f, -1.0f, 2.25f, 1e-30f, -0.0f, 3.0f };
  g_autoptr(GBytes) bytes = build_npy (1, "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (2, 3), }", values, sizeof values);
  g_autofree char *path = write_temp (bytes, "x.npy");
  g_autoptr(GError) error = NULL;
  g_autoptr(NkNpyArray) a = NULL;
  g_autoptr(NkNpyArray) b = NULL;

  a = nk_npy_array_new_from_bytes (bytes, "x.npy", &error);
  g_assert_no_error (error);
  b = nk_npy_array_load (path, &error);
  g_assert_no_error (error);

  for (NkNpyArray **p = (NkNpyArray *[]) { a, b, NULL }; *p; p++)
    {
      g_assert_cmpint (nk_npy_array_get_dtype (*p), ==, NK_NPY_F4);
      g_assert_cmpuint (nk_npy_array_get_ndim (*p), ==, 2);
      g_assert_cmpint (nk_npy_array_get_shape (*p)[0], ==, 2);
      g_assert_cmpint (nk_npy_array_get_shape (*p)[1], ==, 3);
      g_assert_cmpuint (nk_npy_array_get_n_elements (*p), ==, 6);
      g_assert_cmpmem (nk_npy_array_get_data (*p), nk_npy_array_get_nbytes (*p),
                       values, sizeof values);
    }
  g_assert_cmpstr (nk_npy_array_get_name (b), ==, path);
  remove_temp (path);
}

static void
test_read_versions_and_dtypes (void)
{
  const struct {
    guint       major;
    const char *dict;
    NkNpyDType  dtype;
    gsize       item;
    guint       ndim;
    gint64      numel;
  } cases[] = {
    { 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", NK_NPY_F8, 8, 1, 4 },
    { 3, "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 2)}", NK_NPY_I4, 4, 2, 4 },
    { 1, "{'shape': (3,), 'fortran_order': False, 'descr': '<i8'}", NK_NPY_I8, 8, 1, 3 },
    { 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1, 1, 5), }", NK_NPY_U2, 2, 3, 5 },
    { 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (7,), }", NK_NPY_U1, 1, 1, 7 },
    { 1, "{'descr': '<u1', 'fortran_order': False, 'shape': (2,), }", NK_NPY_U1, 1, 1, 2 },
    { 1, "{'descr': '=f4', 'fortran_order': False, 'shape': (), }", NK_NPY_F4, 4, 0, 1 },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", NK_NPY_F4, 4, 2, 0 },
    { 1, "{'descr':'<f4','fortran_order':False,'shape':(2L,)}", NK_NPY_F4, 4, 1, 2 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize nbytes = cases[i].item * cases[i].numel;
      g_autofree guint8 *data = g_malloc (MAX (nbytes, 1));
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(NkNpyArray) a = NULL;

      for (gsize k = 0; k < nbytes; k++)
        data[k] = (guint8) (k * 37 + i);
      bytes = build_npy (cases[i].major, cases[i].dict, data, nbytes);
      a = nk_npy_array_new_from_bytes (bytes, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (nk_npy_array_get_dtype (a), ==, cases[i].dtype);
      g_assert_cmpuint (nk_npy_array_get_ndim (a), ==, cases[i].ndim);
      g_assert_cmpuint (nk_npy_array_get_n_elements (a), ==, cases[i].numel);
      g_assert_cmpmem (nk_npy_array_get_data (a), nk_npy_array_get_nbytes (a), data, nbytes);
    }
}

static void
test_write_bytes (void)
{
  const gint32 values[5] = { 1, -2, 3, G_MAXINT32, G_MININT32 };
  const guint16 u[1] = { 65535 };
  g_autoptr(GBytes) expected = NULL;
  g_autoptr(GBytes) written = NULL;
  g_autoptr(GBytes) expected_u = NULL;
  g_autoptr(GBytes) written_u = NULL;

  /* numpy.save's exact bytes for these arrays (checked against numpy 1.24). */
  expected = build_npy (1, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }",
                        values, sizeof values);
  written = nk_npy_to_bytes (NK_NPY_I4, 1, (gint64[]) { 5 }, values);
  g_assert_true (g_bytes_equal (expected, written));
  g_assert_cmpuint (g_bytes_get_size (written), ==, 128 + sizeof values);

  expected_u = build_npy (1, "{'descr': '<u2', 'fortran_order': False, 'shape': (), }", u, 2);
  written_u = nk_npy_to_bytes (NK_NPY_U2, 0, NULL, u);
  g_assert_true (g_bytes_equal (expected_u, written_u));
}

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("napkin-npy-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "rt.npy", NULL);
  float f[24];
  guint16 u[7] = { 0, 1, 255, 256, 1000, 65534, 65535 };
  gint32 i32[3] = { -7, 0, 7 };
  const struct {
    NkNpyDType dtype;
    guint ndim;
    gint64 shape[3];
    gconstpointer data;
    gsize nbytes;
  } cases[] = {
    { NK_NPY_F4, 3, { 2, 3, 4 }, f, sizeof f },
    { NK_NPY_U2, 1, { 7 }, u, sizeof u },
    { NK_NPY_I4, 2, { 3, 1 }, i32, sizeof i32 },
  };

  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (f); k++)
    f[k] = (float) k / 7.0f - 1.0f;

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(NkNpyArray) a = NULL;

      nk_npy_save (path, cases[c].dtype, cases[c].ndim, cases[c].shape, cases[c].data, &error);
      g_assert_no_error (error);
      a = nk_npy_array_load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpint (nk_npy_array_get_dtype (a), ==, cases[c].dtype);
      g_assert_cmpuint (nk_npy_array_get_ndim (a), ==, cases[c].ndim);
      for (guint d = 0; d < cases[c].ndim; d++)
        g_assert_cmpint (nk_npy_array_get_shape (a)[d], ==, cases[c].shape[d]);
      g_assert_cmpmem (nk_npy_array_get_data (a), nk_npy_array_get_nbytes (a),
                       cases[c].data, cases[c].nbytes);
      /* numpy puts the data at a multiple of 64; a mapped file is page aligned. */
      g_assert_cmpuint ((guintptr) nk_npy_array_get_data (a) % 64, ==, 0);
    }

  /* The atomic write leaves only the file itself. */
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);

    g_assert_cmpstr (g_dir_read_name (d), ==, "rt.npy");
    g_assert_null (g_dir_read_name (d));
  }
  g_unlink (path);
  g_rmdir (dir);
}

static void
expect_refused (GBytes     *bytes,
                NkNpyError  code,
                const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkNpyArray) a = nk_npy_array_new_from_bytes (bytes, "bad.npy", &error);

  g_assert_null (a);
  g_assert_error (error, NK_NPY_ERROR, (gint) code);
  /* Every message names the file. */
  g_assert_true (g_str_has_prefix (error->message, "bad.npy: "));
  if (fragment && strstr (error->message, fragment) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, fragment);
}

static void
test_corruption (void)
{
  const float v[4] = { 1, 2, 3, 4 };
  g_autoptr(GBytes) good = build_npy (1, "{'descr': '<f4', 'fortran_order': False, "
                                      "'shape': (4,), }", v, sizeof v);
  const guint8 *gd = g_bytes_get_data (good, NULL);
  gsize gsize_ = g_bytes_get_size (good);
  const struct {
    const char *dict;
    NkNpyError  code;
    const char *fragment;
  } dicts[] = {
    { "'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", NK_NPY_ERROR_BAD_HEADER, "{" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)", NK_NPY_ERROR_BAD_HEADER, NULL },
    { "{'descr': '<f4', 'fortran_order': False}", NK_NPY_ERROR_BAD_HEADER, "shape" },
    { "{'descr': '<f4', 'shape': (4,)}", NK_NPY_ERROR_BAD_HEADER, "fortran_order" },
    { "{'fortran_order': False, 'shape': (4,)}", NK_NPY_ERROR_BAD_HEADER, "descr" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}",
      NK_NPY_ERROR_BAD_HEADER, "“x”" },
    { "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}",
      NK_NPY_ERROR_BAD_HEADER, "twice" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}", NK_NPY_ERROR_BAD_HEADER, "shape" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", NK_NPY_ERROR_BAD_HEADER, "shape" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': [4]}", NK_NPY_ERROR_BAD_HEADER, "shape" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
      NK_NPY_ERROR_BAD_HEADER, "shape" },
    { "{'descr': '<f4', 'fortran_order': false, 'shape': (4,)}", NK_NPY_ERROR_BAD_HEADER, "True or False" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} junk", NK_NPY_ERROR_BAD_HEADER, "stray" },
    { "{'descr': '<f4', 'fortran_order': True, 'shape': (4,)}", NK_NPY_ERROR_UNSUPPORTED, "Fortran" },
    { "{'descr': '<c8', 'fortran_order': False, 'shape': (4,)}", NK_NPY_ERROR_UNSUPPORTED, "<c8" },
    { "{'descr': '>f4', 'fortran_order': False, 'shape': (4,)}", NK_NPY_ERROR_UNSUPPORTED, ">f4" },
    { "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,)}",
      NK_NPY_ERROR_UNSUPPORTED, "structured" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)}", NK_NPY_ERROR_TRUNCATED, "truncated" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", NK_NPY_ERROR_TRUNCATED, "16" },
    { "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,4)}",
      NK_NPY_ERROR_BAD_HEADER, "shape" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (dicts); i++)
    {
      g_autoptr(GBytes) bytes = build_npy (1, dicts[i].dict, v, sizeof v);

      expect_refused (bytes, dicts[i].code, dicts[i].fragment);
    }

  /* Magic and version. */
  {
    g_autofree guint8 *copy = g_memdup2 (gd, gsize_);
    g_autoptr(GBytes) b1 = NULL;
    g_autoptr(GBytes) b2 = NULL;
    g_autoptr(GBytes) b3 = NULL;

    copy[1] = 'n';
    b1 = g_bytes_new (copy, gsize_);
    expect_refused (b1, NK_NPY_ERROR_BAD_MAGIC, "NUMPY");
    copy[1] = 'N';
    copy[6] = 4;
    b2 = g_bytes_new (copy, gsize_);
    expect_refused (b2, NK_NPY_ERROR_BAD_MAGIC, "4.0");
    copy[6] = 1;
    /* A header length beyond the file. */
    copy[8] = 0xff;
    copy[9] = 0x7f;
    b3 = g_bytes_new (copy, gsize_);
    expect_refused (b3, NK_NPY_ERROR_BAD_HEADER, "32767");
  }

  /* Every truncation of a valid file is refused (and none crashes). */
  for (gsize len = 0; len < gsize_; len++)
    {
      g_autoptr(GBytes) cut = g_bytes_new (gd, len);
      g_autoptr(GError) error = NULL;
      g_autoptr(NkNpyArray) a = nk_npy_array_new_from_bytes (cut, "cut.npy", &error);

      g_assert_null (a);
      g_assert_true (error != NULL && error->domain == NK_NPY_ERROR);
    }
  /* One byte too many is refused too: the shape must account for every byte. */
  {
    g_autofree guint8 *longer = g_malloc0 (gsize_ + 1);
    g_autoptr(GBytes) b = NULL;

    memcpy (longer, gd, gsize_);
    b = g_bytes_new (longer, gsize_ + 1);
    expect_refused (b, NK_NPY_ERROR_TRUNCATED, "17");
  }
}

static void
test_file_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkNpyArray) a = nk_npy_array_load ("/nonexistent/napkin/x.npy", &error);
  g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
  g_autofree char *path = write_temp (empty, "empty.npy");
  g_autoptr(NkNpyArray) b = NULL;

  g_assert_null (a);
  g_assert_error (error, NK_NPY_ERROR, NK_NPY_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent/napkin/x.npy"));
  g_clear_error (&error);

  b = nk_npy_array_load (path, &error);
  g_assert_null (b);
  g_assert_error (error, NK_NPY_ERROR, NK_NPY_ERROR_BAD_MAGIC);
  g_clear_error (&error);
  remove_temp (path);

  /* A folder or a device is refused by name, not by what mmap() says of it
   * ("No such device", "Invalid argument"). */
  {
    const char *not_files[] = { ".", "/dev/null" };

    for (guint i = 0; i < G_N_ELEMENTS (not_files); i++)
      {
        g_autoptr(NkNpyArray) c = nk_npy_array_load (not_files[i], &error);
        g_autofree char *expected = g_strdup_printf ("“%s” is not a regular file", not_files[i]);

        g_assert_null (c);
        g_assert_error (error, NK_NPY_ERROR, NK_NPY_ERROR_IO);
        g_assert_nonnull (strstr (error->message, expected));
        g_clear_error (&error);
      }
  }
}

static void
test_check (void)
{
  const float v[6] = { 0 };
  g_autoptr(GBytes) bytes = build_npy (1, "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (3, 2), }", v, sizeof v);
  g_autoptr(NkNpyArray) a = nk_npy_array_new_from_bytes (bytes, "X.npy", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (nk_npy_array_check (a, NK_NPY_F4, 2, (gint64[]) { -1, 2 }, &error));
  g_assert_no_error (error);
  g_assert_false (nk_npy_array_check (a, NK_NPY_F4, 2, (gint64[]) { -1, 4 }, &error));
  g_assert_error (error, NK_NPY_ERROR, NK_NPY_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==,
                   "X.npy has dtype “<f4” and shape (3, 2), expected “<f4” with shape (N, 4)");
  g_clear_error (&error);
  g_assert_false (nk_npy_array_check (a, NK_NPY_U2, 1, NULL, &error));
  g_assert_error (error, NK_NPY_ERROR, NK_NPY_ERROR_SHAPE);
}

static void
test_tensor (void)
{
  const float values[6] = { 1, 2, 3, 4, 5, 6 };
  const guint8 bytes_u1[3] = { 0, 200, 255 };
  g_autoptr(GBytes) bytes = build_npy (1, "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (2, 3), }", values, sizeof values);
  g_autoptr(GBytes) bytes_u = build_npy (1, "{'descr': '|u1', 'fortran_order': False, "
                                         "'shape': (3,), }", bytes_u1, 3);
  g_autofree char *path = write_temp (bytes, "t.npy");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *out = g_build_filename (dir, "t2.npy", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) t = NULL;
  g_autoptr(NkTensor) tt = NULL;
  g_autoptr(NkNpyArray) back = NULL;
  g_autoptr(NkNpyArray) au = NULL;
  g_autoptr(NkTensor) tu = NULL;
  g_autofree char *contents = NULL;
  gsize len;
  double v;

  t = nk_npy_load_tensor (path, NK_BUCKET_DATA, &error);
  g_assert_no_error (error);
  g_assert_cmpint (t->dtype, ==, NK_DTYPE_F32);
  g_assert_cmpint (t->ndim, ==, 2);
  g_assert_cmpint (t->shape[0], ==, 2);
  g_assert_cmpint (t->shape[1], ==, 3);
  g_assert_cmpint (nk_storage_get_bucket (t->storage), ==, NK_BUCKET_DATA);
  nk_tensor_get_item (t, (gint64[]) { 1, 2 }, &v, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (v, ==, 6.0);

  /* The mapping is private: writing the tensor leaves the file as it was. */
  nk_tensor_set_item (t, (gint64[]) { 0, 0 }, 100.0, &error);
  g_assert_no_error (error);
  nk_tensor_get_item (t, (gint64[]) { 0, 0 }, &v, &error);
  g_assert_cmpfloat (v, ==, 100.0);
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (contents, len, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

  /* A transposed view is written in its logical C order. */
  tt = nk_tensor_t (t, &error);
  g_assert_no_error (error);
  nk_npy_save_tensor (out, tt, &error);
  g_assert_no_error (error);
  back = nk_npy_array_load (out, &error);
  g_assert_no_error (error);
  g_assert_cmpint (nk_npy_array_get_shape (back)[0], ==, 3);
  g_assert_cmpint (nk_npy_array_get_shape (back)[1], ==, 2);
  {
    const float expect[6] = { 100, 4, 2, 5, 3, 6 };

    g_assert_cmpmem (nk_npy_array_get_data (back), 24, expect, 24);
  }

  /* uint8 has no engine dtype: widened to uint16. */
  au = nk_npy_array_new_from_bytes (bytes_u, "u.npy", &error);
  g_assert_no_error (error);
  tu = nk_npy_array_to_tensor (au, NK_BUCKET_DATA, &error);
  g_assert_no_error (error);
  g_assert_cmpint (tu->dtype, ==, NK_DTYPE_UINT16);
  nk_tensor_get_item (tu, (gint64[]) { 1 }, &v, &error);
  g_assert_cmpfloat (v, ==, 200.0);

  g_unlink (out);
  remove_temp (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/npy/read/hand-built", test_read_hand_built);
  g_test_add_func ("/engine/npy/read/versions-and-dtypes", test_read_versions_and_dtypes);
  g_test_add_func ("/engine/npy/write/bytes", test_write_bytes);
  g_test_add_func ("/engine/npy/write/round-trip", test_round_trip);
  g_test_add_func ("/engine/npy/corruption", test_corruption);
  g_test_add_func ("/engine/npy/file-errors", test_file_errors);
  g_test_add_func ("/engine/npy/check", test_check);
  g_test_add_func ("/engine/npy/tensor", test_tensor);

  return g_test_run ();
}
