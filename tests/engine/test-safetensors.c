/* test-safetensors.c: safetensors built by hand, byte compatibility, corruption, atomic writes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#include "nk-test-util.h"
#include "nk-safetensors.h"
#include "nk-tensor.h"

/* The oracle: 8-byte little-endian length, the JSON text exactly as given (padded with
 * spaces to a multiple of 8 when @pad), then the payload. */
static GBytes *
build_file (const char    *json,
            gboolean       pad,
            gconstpointer  payload,
            gsize          payload_len)
{
  GByteArray *out = g_byte_array_new ();
  GString *header = g_string_new (json);
  guint64 n;

  while (pad && header->len % 8 != 0)
    g_string_append_c (header, ' ');
  n = header->len;
  for (guint i = 0; i < 8; i++)
    {
      guint8 b = (n >> (8 * i)) & 0xff;

      g_byte_array_append (out, &b, 1);
    }
  g_byte_array_append (out, (const guint8 *) header->str, header->len);
  if (payload_len)
    g_byte_array_append (out, payload, payload_len);
  g_string_free (header, TRUE);
  return g_byte_array_free_to_bytes (out);
}

static void
test_read_hand_built (void)
{
  /* w: F32 [2, 2] at [0, 16); b: BF16 [2] at [16, 20); ids: I64 [1] at [20, 28)
   * (the reader must not care about the order of the JSON keys). */
  const float w[4] = { 1.0f, -2.0f, 0.5f, 3.0f };
  const guint16 b[2] = { 0x3f80, 0xc000 };    /* bf16 1.0, -2.0 */
  const gint64 ids[1] = { -42 };
  guint8 payload[28];
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkSafetensors) st = NULL;
  g_autoptr(GPtrArray) keys = NULL;
  const NkSafetensorsTensor *t;
  gsize size;

  memcpy (payload, w, 16);
  memcpy (payload + 16, b, 4);
  memcpy (payload + 20, ids, 8);
  bytes = build_file ("{\"ids\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[20,28]},"
                      "\"__metadata__\":{\"format\":\"pt\",\"note\":\"caf\xc3\xa9\"},"
                      "\"w\":{\"data_offsets\":[0,16],\"dtype\":\"F32\",\"shape\":[2,2]},"
                      "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[16,20]}}",
                      TRUE, payload, sizeof payload);

  st = nk_safetensors_new_from_bytes (bytes, "hand.safetensors", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (nk_safetensors_get_n_tensors (st), ==, 3);

  /* Payload order. */
  g_assert_cmpstr (nk_safetensors_get_tensor_info (st, 0)->name, ==, "w");
  g_assert_cmpstr (nk_safetensors_get_tensor_info (st, 1)->name, ==, "b");
  g_assert_cmpstr (nk_safetensors_get_tensor_info (st, 2)->name, ==, "ids");

  t = nk_safetensors_lookup (st, "w");
  g_assert_nonnull (t);
  g_assert_cmpint (t->dtype, ==, NK_DTYPE_F32);
  g_assert_cmpuint (t->ndim, ==, 2);
  g_assert_cmpint (t->shape[0], ==, 2);
  g_assert_cmpint (t->shape[1], ==, 2);
  g_assert_cmpuint (t->numel, ==, 4);
  g_assert_cmpmem (t->data, t->nbytes, w, sizeof w);

  t = nk_safetensors_lookup (st, "b");
  g_assert_cmpint (t->dtype, ==, NK_DTYPE_BF16);
  g_assert_cmpmem (t->data, t->nbytes, b, sizeof b);
  t = nk_safetensors_lookup (st, "ids");
  g_assert_cmpint (t->dtype, ==, NK_DTYPE_INT64);
  g_assert_cmpmem (t->data, t->nbytes, ids, sizeof ids);
  g_assert_null (nk_safetensors_lookup (st, "nope"));

  g_assert_cmpstr (nk_safetensors_get_metadata (st, "format"), ==, "pt");
  g_assert_cmpstr (nk_safetensors_get_metadata (st, "note"), ==, "caf\xc3\xa9");
  keys = nk_safetensors_get_metadata_keys (st);
  g_assert_cmpuint (keys->len, ==, 2);
  g_assert_cmpstr (keys->pdata[0], ==, "format");

  g_assert_true (nk_safetensors_get_payload (st, &size) != NULL);
  g_assert_cmpuint (size, ==, sizeof payload);
}

/* What the reference implementation (Rust crate, used by safetensors.torch.save_file)
 * writes for {"attn.0": torch.arange(6.).reshape(1, 2, 3)}: a 64-byte header that
 * needs no padding, then the six floats. */
static void
test_write_reference_bytes (void)
{
  const float data[6] = { 0, 1, 2, 3, 4, 5 };
  static const char expected_header[] =
    "\x40\0\0\0\0\0\0\0"
    "{\"attn.0\":{\"dtype\":\"F32\",\"shape\":[1,2,3],\"data_offsets\":[0,24]}}";
  g_autoptr(NkSafetensorsWriter) w = nk_safetensors_writer_new ();
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *p;
  gsize len;

  nk_safetensors_writer_add (w, "attn.0", NK_DTYPE_F32, 3, (gint64[]) { 1, 2, 3 }, data);
  bytes = nk_safetensors_writer_to_bytes (w);
  p = g_bytes_get_data (bytes, &len);
  g_assert_cmpuint (len, ==, sizeof expected_header - 1 + sizeof data);
  g_assert_cmpmem (p, sizeof expected_header - 1, expected_header, sizeof expected_header - 1);
  g_assert_cmpmem (p + sizeof expected_header - 1, sizeof data, data, sizeof data);

  /* The boxed copy (what a binding gets) writes the same reference bytes after the
   * original is gone, and a tensor added to it does not reach the original. */
  {
    NkSafetensorsWriter *copy = g_boxed_copy (NK_TYPE_SAFETENSORS_WRITER, w);
    g_autoptr(GBytes) again = NULL;
    g_autoptr(GBytes) original = NULL;

    g_clear_pointer (&w, nk_safetensors_writer_free);
    again = nk_safetensors_writer_to_bytes (copy);
    g_assert_true (g_bytes_equal (again, bytes));
    w = nk_safetensors_writer_copy (copy);
    nk_safetensors_writer_add (copy, "extra", NK_DTYPE_F32, 1, (gint64[]) { 1 }, data);
    nk_safetensors_writer_free (copy);
    original = nk_safetensors_writer_to_bytes (w);
    g_assert_true (g_bytes_equal (original, bytes));
  }
}

/* Tensor order (dtype alignment, largest first, then name), "__metadata__" first,
 * compact JSON, space padding to 8: written out by hand. */
static void
test_write_order_and_padding (void)
{
  const gint64 i64[1] = { 7 };
  const float f32[2] = { 1, 2 };
  const float f32b[1] = { 3 };
  const guint16 bf16[1] = { 0x3f80 };
  const guint16 u16[3] = { 1, 2, 3 };
  const double f64[1] = { 0.25 };
  const gint32 i32[1] = { -1 };
  const char *json =
    "{\"__metadata__\":{\"a\":\"1\",\"format\":\"pt\",\"q\":\"say \\\"hi\\\"\\n\"},"
    "\"z\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
    "\"y\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[8,16]},"
    "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
    "\"b\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[24,28]},"
    "\"x\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[28,32]},"
    "\"c\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[32,34]},"
    "\"e\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[34,34]},"
    "\"d\":{\"dtype\":\"U16\",\"shape\":[3],\"data_offsets\":[34,40]}}";
  guint8 payload[40];
  g_autoptr(GBytes) expected = NULL;
  g_autoptr(GBytes) written = NULL;
  g_autoptr(NkSafetensorsWriter) w = nk_safetensors_writer_new ();

  memcpy (payload, i64, 8);
  memcpy (payload + 8, f64, 8);
  memcpy (payload + 16, f32, 8);
  memcpy (payload + 24, f32b, 4);
  memcpy (payload + 28, i32, 4);
  memcpy (payload + 32, bf16, 2);
  memcpy (payload + 34, u16, 6);
  expected = build_file (json, TRUE, payload, sizeof payload);

  nk_safetensors_writer_add (w, "d", NK_DTYPE_UINT16, 1, (gint64[]) { 3 }, u16);
  nk_safetensors_writer_add (w, "b", NK_DTYPE_F32, 2, (gint64[]) { 1, 1 }, f32b);
  nk_safetensors_writer_add (w, "e", NK_DTYPE_F16, 1, (gint64[]) { 0 }, NULL);
  nk_safetensors_writer_add (w, "c", NK_DTYPE_BF16, 1, (gint64[]) { 1 }, bf16);
  nk_safetensors_writer_add (w, "x", NK_DTYPE_INT32, 1, (gint64[]) { 1 }, i32);
  nk_safetensors_writer_add (w, "a", NK_DTYPE_F32, 1, (gint64[]) { 2 }, f32);
  nk_safetensors_writer_add (w, "y", NK_DTYPE_F64, 0, NULL, f64);
  nk_safetensors_writer_add (w, "z", NK_DTYPE_INT64, 1, (gint64[]) { 1 }, i64);
  nk_safetensors_writer_set_metadata (w, "q", "say \"hi\"\n");
  nk_safetensors_writer_set_metadata (w, "format", "pt");
  nk_safetensors_writer_set_metadata (w, "a", "1");

  written = nk_safetensors_writer_to_bytes (w);
  if (!g_bytes_equal (expected, written))
    {
      g_autofree char *got = g_strndup ((const char *) g_bytes_get_data (written, NULL) + 8,
                                        g_bytes_get_size (written) - 8 - sizeof payload);

      g_error ("header differs:\n%s", got);
    }

  /* The same file read back gives the same tensors. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkSafetensors) st = nk_safetensors_new_from_bytes (written, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (nk_safetensors_get_n_tensors (st), ==, 8);
    g_assert_cmpstr (nk_safetensors_get_metadata (st, "q"), ==, "say \"hi\"\n");
    g_assert_cmpuint (nk_safetensors_lookup (st, "y")->ndim, ==, 0);
    g_assert_cmpuint (nk_safetensors_lookup (st, "y")->numel, ==, 1);
    g_assert_cmpuint (nk_safetensors_lookup (st, "e")->numel, ==, 0);
  }
}

static guint
count_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (d))
    n++;
  return n;
}

static void
test_round_trip_file (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-st");
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autoptr(NkSafetensorsWriter) w = nk_safetensors_writer_new ();
  g_autoptr(NkSafetensors) st = NULL;
  g_autoptr(GError) error = NULL;
  float weight[12];
  float got[12];

  for (guint i = 0; i < 12; i++)
    weight[i] = (float) i * 0.1f - 0.3f;
  nk_safetensors_writer_add (w, "layers.0.weight", NK_DTYPE_F32, 2, (gint64[]) { 3, 4 }, weight);
  nk_safetensors_writer_add (w, "final.bias", NK_DTYPE_F32, 1, (gint64[]) { 1 }, weight);
  nk_safetensors_writer_set_metadata (w, "format", "pt");

  g_assert_true (nk_safetensors_writer_write (w, path, &error));
  g_assert_no_error (error);
  /* Writing again replaces the file atomically; no temp file is left either time. */
  g_assert_true (nk_safetensors_writer_write (w, path, &error));
  g_assert_cmpuint (count_entries (dir), ==, 1);

  st = nk_safetensors_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (nk_safetensors_read_into (st, "layers.0.weight", NK_DTYPE_F32, 2,
                                           (gint64[]) { 3, 4 }, got, &error));
  g_assert_cmpmem (got, sizeof got, weight, sizeof weight);

  g_assert_false (nk_safetensors_read_into (st, "layers.0.weight", NK_DTYPE_F32, 2,
                                            (gint64[]) { 4, 3 }, got, &error));
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "“layers.0.weight” is F32 [3, 4], the model needs F32 [4, 3]"));
  g_clear_error (&error);
  g_assert_false (nk_safetensors_read_into (st, "layers.1.weight", NK_DTYPE_F32, 2,
                                            (gint64[]) { 3, 4 }, got, &error));
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Unwritable target: an error, and nothing created. */
  {
    g_autofree char *bad = g_build_filename (dir, "missing-subdir", "x.safetensors", NULL);

    g_assert_false (nk_safetensors_writer_write (w, bad, &error));
    g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_IO);
    g_assert_nonnull (strstr (error->message, "x.safetensors"));
    g_clear_error (&error);
  }

  g_clear_pointer (&st, nk_safetensors_unref);
  nk_test_remove_tree (dir);
}

/* A full disk, simulated with a file size limit: the write fails with a GError, the
 * previous file under the target name is intact, and no temp file remains. */
static void
test_disk_full (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-st");
  g_autofree char *path = g_build_filename (dir, "ck.safetensors", NULL);
  g_autoptr(NkSafetensorsWriter) small = nk_safetensors_writer_new ();
  g_autoptr(NkSafetensorsWriter) big = nk_safetensors_writer_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autofree char *after = NULL;
  g_autofree float *data = g_new0 (float, 65536);
  struct rlimit old, lim;
  void (*old_handler) (int);
  gsize after_len;
  gboolean ok;

  nk_safetensors_writer_add (small, "x", NK_DTYPE_F32, 1, (gint64[]) { 1 }, data);
  g_assert_true (nk_safetensors_writer_write (small, path, &error));
  before = nk_safetensors_writer_to_bytes (small);
  nk_safetensors_writer_add (big, "x", NK_DTYPE_F32, 1, (gint64[]) { 65536 }, data);

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  lim = old;
  lim.rlim_cur = 4096;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
  ok = nk_safetensors_writer_write (big, path, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);
  signal (SIGXFSZ, old_handler);

  g_assert_false (ok);
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_cmpuint (count_entries (dir), ==, 1);
  g_file_get_contents (path, &after, &after_len, NULL);
  g_assert_cmpmem (after, after_len, g_bytes_get_data (before, NULL), g_bytes_get_size (before));

  nk_test_remove_tree (dir);
}

static void
expect_refused (GBytes             *bytes,
                NkSafetensorsError  code,
                const char         *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkSafetensors) st = nk_safetensors_new_from_bytes (bytes, "bad.safetensors", &error);

  g_assert_null (st);
  g_assert_error (error, NK_SAFETENSORS_ERROR, (gint) code);
  g_assert_true (g_str_has_prefix (error->message, "bad.safetensors: "));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  if (fragment && strstr (error->message, fragment) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, fragment);
}

static void
test_corruption (void)
{
  guint8 payload[16] = { 0 };
  const struct {
    const char         *json;
    gsize               payload_len;
    NkSafetensorsError  code;
    const char         *fragment;
  } cases[] = {
    { "[1, 2]", 16, NK_SAFETENSORS_ERROR_HEADER, "{" },
    { "{\"a\": {\"dtype\": \"F32\", ", 16, NK_SAFETENSORS_ERROR_HEADER, "JSON" },
    { "{\"a\": 5}", 16, NK_SAFETENSORS_ERROR_HEADER, "“a”" },
    { "{\"a\":{\"dtype\":\"Q4\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_DTYPE, "“Q4”" },
    { "{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[16],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_DTYPE, "“a”" },
    { "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,16]}}", 16, NK_SAFETENSORS_ERROR_HEADER, "shape" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[-4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "shape" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4.0],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "shape" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "data_offsets" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[16,0]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "before it begins" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 12,
      NK_SAFETENSORS_ERROR_OFFSETS, "beyond" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,32]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "beyond" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "3 × 4" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "“a”" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "overlap" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[12,16]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "gap" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 16,
      NK_SAFETENSORS_ERROR_OFFSETS, "cover 8" },
    /* json-glib takes a C-style octal escape, "\\256" → byte 0xae, which is not
     * UTF-8 (fuzz-safetensors found it in a checksum value; the writer then failed) */
    { "{\"__metadata__\":{\"checksum\":\"sh\\256:00\"},\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "not valid UTF-8" },
    { "{\"a\\256\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "not valid UTF-8" },
    /* lone surrogate escapes: refused, and the message quoting them is still UTF-8 */
    { "{\"__metadata__\":{\"k\":\"\\ud800\"},\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "JSON" },
    { "{\"\\udc00\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "JSON" },
    { "{\"__metadata__\":[1],\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
      NK_SAFETENSORS_ERROR_HEADER, "__metadata__" },
    { "{\"__metadata__\":{\"step\":5},\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
      16, NK_SAFETENSORS_ERROR_HEADER, "“step”" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}\xff", 16,
      NK_SAFETENSORS_ERROR_HEADER, "UTF-8" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) bytes = build_file (cases[i].json, TRUE, payload, cases[i].payload_len);

      expect_refused (bytes, cases[i].code, cases[i].fragment);
    }

  /* The length field. */
  {
    g_autoptr(GBytes) tiny = g_bytes_new_static ("\x10\0\0", 3);
    guint8 beyond[16] = { 200, 0, 0, 0, 0, 0, 0, 0, '{', '}' };
    guint8 huge[16] = { 0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}' };
    g_autoptr(GBytes) b1 = g_bytes_new (beyond, sizeof beyond);
    g_autoptr(GBytes) b2 = g_bytes_new (huge, sizeof huge);

    expect_refused (tiny, NK_SAFETENSORS_ERROR_TRUNCATED, "8-byte");
    expect_refused (b1, NK_SAFETENSORS_ERROR_TRUNCATED, "200");
    expect_refused (b2, NK_SAFETENSORS_ERROR_HEADER, "100000000");
  }

  /* Every truncation of a valid file is refused. */
  {
    g_autoptr(GBytes) good = build_file ("{\"__metadata__\":{\"k\":\"v\"},"
                                         "\"a\":{\"dtype\":\"F32\",\"shape\":[4],"
                                         "\"data_offsets\":[0,16]}}", TRUE, payload, 16);
    const guint8 *gd = g_bytes_get_data (good, NULL);

    for (gsize len = 0; len < g_bytes_get_size (good); len++)
      {
        g_autoptr(GBytes) cut = g_bytes_new (gd, len);
        g_autoptr(GError) error = NULL;
        g_autoptr(NkSafetensors) st = nk_safetensors_new_from_bytes (cut, NULL, &error);

        g_assert_null (st);
        g_assert_true (error != NULL && error->domain == NK_SAFETENSORS_ERROR);
      }
  }
}

static void
test_load_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkSafetensors) st = nk_safetensors_load ("/nonexistent/napkin.safetensors", &error);

  g_assert_null (st);
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent/napkin.safetensors"));
}

static void
test_tensors (void)
{
  g_autoptr(NkSafetensorsWriter) w = nk_safetensors_writer_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a = NULL;
  g_autoptr(NkTensor) at = NULL;
  g_autoptr(NkTensor) back = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(NkSafetensors) st = NULL;
  const double values[6] = { 1, 2, 3, 4, 5, 6 };
  const float expect[6] = { 1, 4, 2, 5, 3, 6 };
  double v;

  a = nk_tensor_new_from_doubles (NK_DTYPE_F32, NK_SHAPE (2, 3), values, &error);
  g_assert_no_error (error);
  at = nk_tensor_t (a, &error);
  g_assert_no_error (error);
  /* A strided view is stored in its logical C order. */
  g_assert_true (nk_safetensors_writer_add_tensor (w, "at", at, &error));
  g_assert_no_error (error);
  bytes = nk_safetensors_writer_to_bytes (w);
  st = nk_safetensors_new_from_bytes (bytes, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (nk_safetensors_lookup (st, "at")->data, 24, expect, 24);

  back = nk_safetensors_get_tensor (st, "at", NK_BUCKET_PARAMS, &error);
  g_assert_no_error (error);
  g_assert_cmpint (back->ndim, ==, 2);
  g_assert_cmpint (back->shape[0], ==, 3);
  g_assert_cmpint (nk_storage_get_bucket (back->storage), ==, NK_BUCKET_PARAMS);
  nk_tensor_get_item (back, (gint64[]) { 2, 1 }, &v, &error);
  g_assert_cmpfloat (v, ==, 6.0);

  g_assert_null (nk_safetensors_get_tensor (st, "nope", NK_BUCKET_PARAMS, &error));
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/safetensors/read/hand-built", test_read_hand_built);
  g_test_add_func ("/engine/safetensors/write/reference-bytes", test_write_reference_bytes);
  g_test_add_func ("/engine/safetensors/write/order-and-padding", test_write_order_and_padding);
  g_test_add_func ("/engine/safetensors/write/round-trip", test_round_trip_file);
  g_test_add_func ("/engine/safetensors/write/disk-full", test_disk_full);
  g_test_add_func ("/engine/safetensors/corruption", test_corruption);
  g_test_add_func ("/engine/safetensors/load-errors", test_load_errors);
  g_test_add_func ("/engine/safetensors/tensors", test_tensors);

  return g_test_run ();
}
