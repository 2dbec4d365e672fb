/* test-checkpoint.c: checkpoint round trips, keep-last-K, checksums, falling back past bad files
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#include "nk-test-util.h"
#include "nk-checkpoint.h"
#include "nk-tensor.h"

#define D 4

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static char *
names_joined (const char *dir)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* A small Cruncher-like state_dict plus momentum state, values a function of @step. */
static NkCheckpoint *
make_checkpoint (guint64  step,
                 NkRng   *rng)
{
  NkCheckpoint *ck = nk_checkpoint_new ();
  float w[D * D], b[D], fw[D], fb[1], m[D * D];

  for (guint i = 0; i < D * D; i++)
    {
      w[i] = (float) step + i * 0.25f;
      m[i] = -w[i] / 3.0f;
    }
  for (guint i = 0; i < D; i++)
    b[i] = fw[i] = (float) i - (float) step;
  fb[0] = 1.0f / 3.0f;

  nk_checkpoint_set_step (ck, step);
  if (rng)
    nk_checkpoint_set_rng (ck, rng);
  nk_checkpoint_set_config (ck, "{\"model\": \"cruncher\", \"dim\": 4, \"layers\": 1}");
  nk_checkpoint_set_metadata (ck, "note", "hello");
  nk_checkpoint_add_data (ck, "layers.0.weight", NK_DTYPE_F32, 2, (gint64[]) { D, D }, w);
  nk_checkpoint_add_data (ck, "layers.0.bias", NK_DTYPE_F32, 1, (gint64[]) { D }, b);
  nk_checkpoint_add_data (ck, "final.weight", NK_DTYPE_F32, 2, (gint64[]) { 1, D }, fw);
  nk_checkpoint_add_data (ck, "final.bias", NK_DTYPE_F32, 1, (gint64[]) { 1 }, fb);
  nk_checkpoint_add_data (ck, "optimizer.layers.0.weight.momentum_buffer", NK_DTYPE_F32, 2,
                          (gint64[]) { D, D }, m);
  return ck;
}

static void
test_round_trip (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autoptr(NkRng) rng = nk_rng_new (99);
  g_autoptr(NkRng) restored = NULL;
  g_autoptr(NkCheckpoint) ck = NULL;
  g_autoptr(NkCheckpoint) back = NULL;
  g_autoptr(NkSafetensors) st = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *expected_sum = NULL;
  gsize len;
  guint64 n = 0;

  for (guint i = 0; i < 13; i++)
    nk_rng_normal (rng, 0, 1);
  ck = make_checkpoint (100, rng);

  g_assert_true (nk_checkpoint_save (ck, dir, 3, &path, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (path, "/step-00000100.safetensors"));

  back = nk_checkpoint_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (nk_checkpoint_get_path (back), ==, path);
  g_assert_cmpuint (nk_checkpoint_get_step (back), ==, 100);
  g_assert_cmpstr (nk_checkpoint_get_config (back), ==,
                   "{\"model\": \"cruncher\", \"dim\": 4, \"layers\": 1}");
  g_assert_cmpstr (nk_checkpoint_get_metadata (back, "note"), ==, "hello");
  g_assert_cmpuint (nk_checkpoint_get_n_tensors (back), ==, 5);

  /* Every tensor bit for bit. */
  for (guint i = 0; i < nk_checkpoint_get_n_tensors (ck); i++)
    {
      const NkSafetensorsTensor *a = nk_checkpoint_get_tensor_info (ck, i);
      const NkSafetensorsTensor *b = nk_checkpoint_lookup (back, a->name);

      g_assert_nonnull (b);
      g_assert_cmpint (a->dtype, ==, b->dtype);
      g_assert_cmpuint (a->ndim, ==, b->ndim);
      for (guint d = 0; d < a->ndim; d++)
        g_assert_cmpint (a->shape[d], ==, b->shape[d]);
      g_assert_cmpmem (a->data, a->nbytes, b->data, b->nbytes);
    }

  /* The generator continues exactly where the saved one was. */
  restored = nk_checkpoint_get_rng (back);
  g_assert_nonnull (restored);
  for (guint i = 0; i < 50; i++)
    g_assert_cmphex (nk_rng_next_u32 (restored), ==, nk_rng_next_u32 (rng));

  /* The recorded checksum follows nk-checkpoint.h's rule, recomputed here straight
   * from the file's bytes: SHA-256 of the whole file with the digits, found as text in
   * the header after "checksum":"sha256:, read as 64 '0'. */
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  for (int i = 7; i >= 0; i--)
    n = (n << 8) | (guint8) contents[i];
  {
    const char *key = "\"checksum\":\"sha256:";
    g_autofree char *header = g_strndup (contents + 8, n);
    const char *at = strstr (header, key);
    gsize digits;
    g_autofree char *copy = g_memdup2 (contents, len);

    g_assert_nonnull (at);
    digits = 8 + (gsize) (at - header) + strlen (key);
    memset (copy + digits, '0', 64);
    g_checksum_update (sum, (const guchar *) copy, len);
    expected_sum = g_strconcat ("sha256:", g_checksum_get_string (sum), NULL);
    g_assert_cmpmem (contents + digits, 64, expected_sum + 7, 64);
  }
  st = nk_safetensors_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (nk_safetensors_get_metadata (st, "checksum"), ==, expected_sum);
  /* The Python recipe in nk-checkpoint.h agrees, where Debian's python3 is there. */
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      const char *script =
        "import sys, json, hashlib\n"
        "b = open(sys.argv[1], 'rb').read(); n = int.from_bytes(b[:8], 'little')\n"
        "h = json.loads(b[8:8 + n])['__metadata__']['checksum'][len('sha256:'):]\n"
        "i = b.index(h.encode())\n"
        "print(hashlib.sha256(b[:i] + b'0' * 64 + b[i + 64:]).hexdigest() == h)\n";
      const char *argv[] = { "/usr/bin/python3", "-c", script, path, NULL };
      g_autofree char *out = NULL;
      int status;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                                   NULL, NULL, &out, NULL, &status, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (out, ==, "True\n");
    }
  g_assert_cmpstr (nk_safetensors_get_metadata (st, "format"), ==, "napkin-checkpoint-1");
  g_assert_cmpstr (nk_safetensors_get_metadata (st, "step"), ==, "100");
  /* The model's tensors are plain state_dict entries a PyTorch loader can take. */
  g_assert_nonnull (nk_safetensors_lookup (st, "layers.0.weight"));

  /* Re-saving a loaded checkpoint writes the same bytes. */
  {
    g_autofree char *again = g_build_filename (dir, "again.safetensors", NULL);
    g_autofree char *contents2 = NULL;
    gsize len2;

    g_assert_true (nk_checkpoint_save_to_file (back, again, &error));
    g_file_get_contents (again, &contents2, &len2, &error);
    g_assert_cmpmem (contents, len, contents2, len2);
  }

  g_clear_pointer (&st, nk_safetensors_unref);
  g_clear_pointer (&back, nk_checkpoint_unref);
  nk_test_remove_tree (dir);
}

static void
test_read_into (void)
{
  g_autoptr(NkCheckpoint) ck = make_checkpoint (3, NULL);
  g_autoptr(GError) error = NULL;
  float w[D * D];

  g_assert_true (nk_checkpoint_read_into (ck, "layers.0.weight", NK_DTYPE_F32, 2,
                                          (gint64[]) { D, D }, w, &error));
  g_assert_cmpfloat (w[5], ==, 3.0f + 5 * 0.25f);
  g_assert_false (nk_checkpoint_read_into (ck, "layers.0.weight", NK_DTYPE_F32, 2,
                                           (gint64[]) { 8, 8 }, w, &error));
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_false (nk_checkpoint_read_into (ck, "layers.1.weight", NK_DTYPE_F32, 2,
                                           (gint64[]) { D, D }, w, &error));
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_NOT_FOUND);
  g_assert_null (nk_checkpoint_get_rng (ck));
}

static void
corrupt_byte (const char *path,
              gssize      offset_from_end)
{
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  contents[len - offset_from_end] ^= 0x01;
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
}

static void
truncate_file (const char *path,
               gsize       keep)
{
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (keep, <, len);
  g_assert_true (g_file_set_contents (path, contents, keep, NULL));
}

static void
test_keep_last (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autoptr(GError) error = NULL;
  g_autofree char *names = NULL;
  g_autofree char *stale = g_build_filename (dir, ".step-00000007.safetensors.tmp-Ab12Cd", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);

  for (guint64 step = 1; step <= 5; step++)
    {
      g_autoptr(NkCheckpoint) ck = make_checkpoint (step * 10, NULL);

      g_assert_true (nk_checkpoint_save (ck, dir, 2, NULL, &error));
      g_assert_no_error (error);
    }
  names = names_joined (dir);
  g_assert_cmpstr (names, ==, "step-00000040.safetensors step-00000050.safetensors");
  g_clear_pointer (&names, g_free);

  /* A temp file a killed save left is removed by the next save, and so is a higher
   * step of this run that is not intact (the reason a run resumed from further back);
   * files that are not checkpoints stay. */
  g_file_set_contents (stale, "partial", -1, NULL);
  g_file_set_contents (other, "mine", -1, NULL);
  {
    g_autoptr(NkCheckpoint) ck = make_checkpoint (45, NULL);
    g_autofree char *p50 = nk_checkpoint_path_for_step (dir, 50);

    corrupt_byte (p50, 1);
    g_assert_true (nk_checkpoint_save (ck, dir, 2, NULL, &error));
  }
  names = names_joined (dir);
  g_assert_cmpstr (names, ==, "notes.txt step-00000040.safetensors step-00000045.safetensors");
  g_clear_pointer (&names, g_free);

  /* keep_last 0 keeps everything. */
  {
    g_autoptr(NkCheckpoint) ck = make_checkpoint (46, NULL);

    g_assert_true (nk_checkpoint_save (ck, dir, 0, NULL, &error));
  }
  names = names_joined (dir);
  g_assert_cmpstr (names, ==, "notes.txt step-00000040.safetensors step-00000045.safetensors "
                   "step-00000046.safetensors");

  /* The listing is newest first. */
  {
    g_autoptr(GPtrArray) list = nk_checkpoint_list (dir, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (list->len, ==, 3);
    g_assert_true (g_str_has_suffix (list->pdata[0], "step-00000046.safetensors"));
    g_assert_true (g_str_has_suffix (list->pdata[2], "step-00000040.safetensors"));
  }
  nk_test_remove_tree (dir);
}

static void
test_checksum_mismatch (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autoptr(NkCheckpoint) ck = make_checkpoint (7, NULL);
  g_autoptr(NkCheckpoint) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  g_assert_true (nk_checkpoint_save (ck, dir, 0, &path, &error));
  /* One flipped bit in the last parameter: structurally valid, but not what was saved. */
  corrupt_byte (path, 1);
  back = nk_checkpoint_load (path, &error);
  g_assert_null (back);
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_CHECKSUM);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_clear_error (&error);

  /* A truncated file fails structurally. */
  truncate_file (path, 100);
  back = nk_checkpoint_load (path, &error);
  g_assert_null (back);
  g_assert_error (error, NK_SAFETENSORS_ERROR, NK_SAFETENSORS_ERROR_TRUNCATED);
  g_clear_error (&error);

  /* A safetensors file that is not a checkpoint. */
  {
    g_autoptr(NkSafetensorsWriter) w = nk_safetensors_writer_new ();
    float x = 1;

    nk_safetensors_writer_add (w, "x", NK_DTYPE_F32, 1, (gint64[]) { 1 }, &x);
    nk_safetensors_writer_set_metadata (w, "format", "pt");
    g_assert_true (nk_safetensors_writer_write (w, path, &error));
    back = nk_checkpoint_load (path, &error);
    g_assert_null (back);
    g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "napkin-checkpoint-1"));
  }
  nk_test_remove_tree (dir);
}

static void
test_find_latest_intact (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autofree char *missing = g_build_filename (dir, "none", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) skipped = NULL;
  g_autoptr(NkCheckpoint) found = NULL;
  g_autofree char *p3 = NULL;
  g_autofree char *p4 = NULL;

  /* No directory, and an empty one: a clear "no checkpoint". */
  g_assert_null (nk_checkpoint_find_latest_intact (missing, NULL, &error));
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (nk_checkpoint_find_latest_intact (dir, NULL, &error));
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_NOT_FOUND);
  g_clear_error (&error);

  for (guint64 step = 1; step <= 4; step++)
    {
      g_autoptr(NkCheckpoint) ck = make_checkpoint (step, NULL);

      g_assert_true (nk_checkpoint_save (ck, dir, 0, NULL, &error));
    }
  p3 = nk_checkpoint_path_for_step (dir, 3);
  p4 = nk_checkpoint_path_for_step (dir, 4);

  /* Newest truncated (a copy made by a tool that died), the one before bit-flipped. */
  truncate_file (p4, 200);
  corrupt_byte (p3, 3);

  found = nk_checkpoint_find_latest_intact (dir, &skipped, &error);
  g_assert_no_error (error);
  g_assert_nonnull (found);
  g_assert_cmpuint (nk_checkpoint_get_step (found), ==, 2);
  g_assert_cmpuint (skipped->len, ==, 2);
  g_assert_true (g_str_has_prefix (skipped->pdata[0], p4));
  g_assert_true (g_str_has_prefix (skipped->pdata[1], p3));
  g_assert_nonnull (strstr (skipped->pdata[1], "checksum"));
  g_clear_pointer (&found, nk_checkpoint_unref);
  g_clear_pointer (&skipped, g_ptr_array_unref);

  /* A file renamed to another step is not trusted. */
  {
    g_autofree char *p2 = nk_checkpoint_path_for_step (dir, 2);
    g_autofree char *p9 = nk_checkpoint_path_for_step (dir, 9);
    g_autofree char *contents = NULL;
    gsize len;

    g_file_get_contents (p2, &contents, &len, NULL);
    g_file_set_contents (p9, contents, len, NULL);
    found = nk_checkpoint_find_latest_intact (dir, &skipped, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (nk_checkpoint_get_step (found), ==, 2);
    g_assert_cmpuint (skipped->len, ==, 3);
    g_assert_nonnull (strstr (skipped->pdata[0], "step 9"));
    g_clear_pointer (&found, nk_checkpoint_unref);
    g_clear_pointer (&skipped, g_ptr_array_unref);
  }

  /* Nothing intact: the error lists every problem. */
  {
    g_autofree char *p1 = nk_checkpoint_path_for_step (dir, 1);
    g_autofree char *p2 = nk_checkpoint_path_for_step (dir, 2);

    truncate_file (p1, 7);
    corrupt_byte (p2, 1);
    g_assert_null (nk_checkpoint_find_latest_intact (dir, NULL, &error));
    g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_NOT_FOUND);
    g_assert_nonnull (strstr (error->message, "step-00000001.safetensors"));
    g_assert_nonnull (strstr (error->message, "step-00000004.safetensors"));
  }
  nk_test_remove_tree (dir);
}

static void
test_disk_full (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autoptr(GError) error = NULL;
  g_autoptr(NkCheckpoint) first = make_checkpoint (1, NULL);
  g_autoptr(NkCheckpoint) big = make_checkpoint (2, NULL);
  g_autoptr(NkCheckpoint) found = NULL;
  g_autofree float *lots = g_new0 (float, 1 << 16);
  g_autofree char *names = NULL;
  struct rlimit old, lim;
  void (*old_handler) (int);
  gboolean ok;

  g_assert_true (nk_checkpoint_save (first, dir, 1, NULL, &error));
  nk_checkpoint_add_data (big, "optimizer.big", NK_DTYPE_F32, 1, (gint64[]) { 1 << 16 }, lots);

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  lim = old;
  lim.rlim_cur = 8192;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
  ok = nk_checkpoint_save (big, dir, 1, NULL, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);
  signal (SIGXFSZ, old_handler);

  /* The failed save reports it, leaves nothing behind and deletes nothing. */
  g_assert_false (ok);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "step-00000002.safetensors"));
  g_clear_error (&error);
  names = names_joined (dir);
  g_assert_cmpstr (names, ==, "step-00000001.safetensors");
  found = nk_checkpoint_find_latest_intact (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (nk_checkpoint_get_step (found), ==, 1);
  g_clear_pointer (&found, nk_checkpoint_unref);
  nk_test_remove_tree (dir);
}

static void
test_tensors (void)
{
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) w = NULL;
  g_autoptr(NkTensor) wt = NULL;
  g_autoptr(NkTensor) back = NULL;
  const double values[6] = { 1, 2, 3, 4, 5, 6 };
  double v;

  w = nk_tensor_new_from_doubles (NK_DTYPE_F32, NK_SHAPE (2, 3), values, &error);
  wt = nk_tensor_t (w, &error);
  g_assert_true (nk_checkpoint_add_tensor (ck, "w", wt, &error));
  g_assert_no_error (error);
  back = nk_checkpoint_get_tensor (ck, "w", NK_BUCKET_OPTIMIZER, &error);
  g_assert_no_error (error);
  g_assert_cmpint (back->shape[0], ==, 3);
  g_assert_cmpint (nk_storage_get_bucket (back->storage), ==, NK_BUCKET_OPTIMIZER);
  nk_tensor_get_item (back, (gint64[]) { 0, 1 }, &v, &error);
  g_assert_cmpfloat (v, ==, 4.0);
}

/* Replaces the first @from in @path's bytes by @to (same length). */
static void
edit_file (const char *path,
           const char *from,
           const char *to)
{
  g_autofree char *contents = NULL;
  gsize len, n = strlen (from);

  g_assert_cmpuint (strlen (to), ==, n);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  for (gsize i = 0; i + n <= len; i++)
    if (memcmp (contents + i, from, n) == 0)
      {
        memcpy (contents + i, to, n);
        g_assert_true (g_file_set_contents (path, contents, len, NULL));
        return;
      }
  g_assert_not_reached ();
}

/* One changed digit in step, rng or config: still valid JSON and safetensors, still a
 * plausible checkpoint, but not what was saved. */
static void
test_metadata_tamper (void)
{
  static const struct { const char *from, *to; } edits[] = {
    { "\"step\":\"2\"", "\"step\":\"3\"" },
    { ":123\",", ":124\"," },                       /* the rng's counter */
    { "\\\"dim\\\": 4", "\\\"dim\\\": 5" },         /* in the escaped config */
  };

  for (guint e = 0; e < G_N_ELEMENTS (edits); e++)
    {
      g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
      g_autoptr(NkRng) rng = nk_rng_new_from_state (99, 123);
      g_autoptr(NkCheckpoint) back = NULL;
      g_autoptr(NkCheckpoint) found = NULL;
      g_autoptr(GPtrArray) skipped = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *p2 = NULL;

      for (guint64 step = 1; step <= 2; step++)
        {
          g_autoptr(NkCheckpoint) ck = make_checkpoint (step, rng);

          g_assert_true (nk_checkpoint_save (ck, dir, 0, NULL, &error));
          g_assert_no_error (error);
        }
      p2 = nk_checkpoint_path_for_step (dir, 2);
      back = nk_checkpoint_load (p2, &error);
      g_assert_no_error (error);
      g_clear_pointer (&back, nk_checkpoint_unref);

      edit_file (p2, edits[e].from, edits[e].to);
      back = nk_checkpoint_load (p2, &error);
      g_assert_null (back);
      g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_CHECKSUM);
      g_assert_true (g_str_has_prefix (error->message, p2));
      g_assert_nonnull (strstr (error->message, "checksum"));
      g_clear_error (&error);

      found = nk_checkpoint_find_latest_intact (dir, &skipped, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (nk_checkpoint_get_step (found), ==, 1);
      g_assert_cmpuint (skipped->len, ==, 1);
      g_assert_nonnull (strstr (skipped->pdata[0], "checksum"));
      nk_test_remove_tree (dir);
    }
}

static NkCheckpoint *
make_run_checkpoint (guint64     step,
                     const char *config)
{
  NkCheckpoint *ck = make_checkpoint (step, NULL);

  nk_checkpoint_set_config (ck, config);
  return ck;
}

static char *
file_contents (const char *path)
{
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

/* A directory of one run is not another run's to write over or prune. */
static void
test_other_run (void)
{
  const char *run_a = "{\"model\":\"cruncher\",\"dim\":4,\"steps\":30,\"lr\":0.01}";
  const char *run_a_longer = "{\"model\":\"cruncher\",\"dim\":4,\"steps\":90,\"lr\":0.01}";
  const char *run_b = "{\"model\":\"cruncher\",\"dim\":4,\"steps\":30,\"lr\":0.1}";
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autofree char *missing = g_build_filename (dir, "none", NULL);
  g_autofree char *p10 = nk_checkpoint_path_for_step (dir, 10);
  g_autofree char *p20 = nk_checkpoint_path_for_step (dir, 20);
  g_autofree char *before10 = NULL, *before20 = NULL, *after = NULL;
  g_autofree char *names = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (nk_checkpoint_same_run (run_a, run_a_longer));
  g_assert_false (nk_checkpoint_same_run (run_a, run_b));
  g_assert_true (nk_checkpoint_same_run (NULL, NULL));
  g_assert_false (nk_checkpoint_same_run (run_a, NULL));

  g_assert_true (nk_checkpoint_check_dir (missing, run_b, &error));
  g_assert_no_error (error);

  for (guint64 step = 10; step <= 20; step += 10)
    {
      g_autoptr(NkCheckpoint) ck = make_run_checkpoint (step, run_a);

      g_assert_true (nk_checkpoint_save (ck, dir, 0, NULL, &error));
      g_assert_no_error (error);
    }
  before10 = file_contents (p10);
  before20 = file_contents (p20);

  /* Run A (even asked to run longer) may write there; run B may not. */
  g_assert_true (nk_checkpoint_check_dir (dir, run_a_longer, &error));
  g_assert_no_error (error);
  g_assert_false (nk_checkpoint_check_dir (dir, run_b, &error));
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_OTHER_RUN);
  g_assert_true (g_str_has_prefix (error->message, "“"));
  g_assert_nonnull (strstr (error->message, dir));
  g_assert_nonnull (strstr (error->message, "already holds checkpoints of another run"));
  g_assert_nonnull (strstr (error->message, "lr 0.01"));
  g_assert_nonnull (strstr (error->message, "lr 0.1"));
  g_assert_null (strstr (error->message, "steps"));
  g_assert_nonnull (strstr (error->message, "--resume"));
  g_clear_error (&error);

  /* Saving B's step 20 over A's intact one is refused and changes nothing ... */
  {
    g_autoptr(NkCheckpoint) ck = make_run_checkpoint (20, run_b);

    g_assert_false (nk_checkpoint_save (ck, dir, 1, NULL, &error));
    g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_OTHER_RUN);
    g_clear_error (&error);
    after = file_contents (p20);
    g_assert_cmpstr (after, ==, before20);
    g_clear_pointer (&after, g_free);
  }
  /* ... and B's lower and higher steps leave A's files alone, whatever keep_last. */
  for (guint64 step = 5; step <= 25; step += 20)
    {
      g_autoptr(NkCheckpoint) ck = make_run_checkpoint (step, run_b);

      g_assert_true (nk_checkpoint_save (ck, dir, 1, NULL, &error));
      g_assert_no_error (error);
    }
  names = names_joined (dir);
  g_assert_cmpstr (names, ==, "step-00000010.safetensors step-00000020.safetensors "
                   "step-00000025.safetensors");
  g_clear_pointer (&names, g_free);
  after = file_contents (p10);
  g_assert_cmpstr (after, ==, before10);
  g_clear_pointer (&after, g_free);

  /* Run A resumed from step 10 (its step 20 damaged) replaces its own later
   * checkpoint, and B's step 25 stays. */
  corrupt_byte (p20, 1);
  {
    g_autoptr(NkCheckpoint) found = nk_checkpoint_find_latest_intact (dir, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (nk_checkpoint_get_step (found), ==, 25);   /* B's: the newest intact */
  }
  {
    g_autoptr(NkCheckpoint) ck = make_run_checkpoint (15, run_a);
    g_autoptr(NkCheckpoint) b25 = NULL;
    g_autofree char *p25 = nk_checkpoint_path_for_step (dir, 25);

    g_assert_true (nk_checkpoint_save (ck, dir, 3, NULL, &error));
    g_assert_no_error (error);
    names = names_joined (dir);
    g_assert_cmpstr (names, ==, "step-00000010.safetensors step-00000015.safetensors "
                     "step-00000025.safetensors");
    g_clear_pointer (&names, g_free);
    b25 = nk_checkpoint_load (p25, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (nk_checkpoint_get_config (b25), ==, run_b);
  }

  /* A file too damaged to tell whose it is: a fresh run does not take the risk. */
  {
    g_autofree char *p99 = nk_checkpoint_path_for_step (dir, 99);

    g_assert_true (g_file_set_contents (p99, "garbage", -1, NULL));
    g_assert_false (nk_checkpoint_check_dir (dir, run_a, &error));
    g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_OTHER_RUN);
    g_assert_nonnull (strstr (error->message, "step-00000099.safetensors"));
  }
  nk_test_remove_tree (dir);
}

/* The comparison a resume makes. Oracle: the differing members listed by hand for
 * configs written by hand. */
static void
test_config_changes (void)
{
  static const char base[] =
    "{\"model\":\"cruncher\",\"dim\":8,\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\","
    "\"seed\":0,\"precision\":\"fp32\"}";
  static const struct {
    const char *requested;
    const char *expected;    /* the names, joined by spaces */
  } cases[] = {
    { "{\"model\":\"cruncher\",\"dim\":8,\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\","
      "\"seed\":0,\"precision\":\"fp32\"}", "" },
    /* more (or fewer) steps: how far to run, not which run */
    { "{\"model\":\"cruncher\",\"dim\":8,\"steps\":500,\"lr\":0.01,\"optimizer\":\"adamw\","
      "\"seed\":0,\"precision\":\"fp32\"}", "" },
    /* member order does not matter */
    { "{\"precision\":\"fp32\",\"seed\":0,\"optimizer\":\"adamw\",\"lr\":0.01,\"steps\":20,"
      "\"dim\":8,\"model\":\"cruncher\"}", "" },
    { "{\"model\":\"cruncher\",\"dim\":8,\"steps\":20,\"lr\":0.5,\"optimizer\":\"sgd\","
      "\"seed\":7,\"precision\":\"fp32\"}", "lr optimizer seed" },
    { "{\"model\":\"cruncher\",\"dim\":8,\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\","
      "\"seed\":0,\"precision\":\"fp16\"}", "precision" },
    { "{\"model\":\"tiny-lm\",\"dim\":16,\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\","
      "\"seed\":0,\"precision\":\"fp32\"}", "model dim" },
    /* a data file on one side only */
    { "{\"model\":\"cruncher\",\"dim\":8,\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\","
      "\"seed\":0,\"precision\":\"fp32\",\"inputs\":\"x.npy\"}", "inputs" },
    { "{\"model\":\"cruncher\",\"dim\":8,\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\","
      "\"seed\":0}", "precision" },
    { "not json", "config" },
    { NULL, "config" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(GStrv) names = nk_checkpoint_config_changes (base, cases[i].requested);
      g_autofree char *joined = g_strjoinv (" ", names);

      g_test_message ("case %u: %s", i, cases[i].requested);
      g_assert_cmpstr (joined, ==, cases[i].expected);
    }
  {
    g_auto(GStrv) names = nk_checkpoint_config_changes (NULL, NULL);

    g_assert_cmpuint (g_strv_length (names), ==, 0);
  }
}

static void
test_check_resume (void)
{
  static const char saved[] =
    "{\"model\":\"cruncher\",\"steps\":20,\"lr\":0.01,\"optimizer\":\"adamw\",\"seed\":0}";
  static const char changed[] =
    "{\"model\":\"cruncher\",\"steps\":20,\"lr\":0.5,\"optimizer\":\"sgd\",\"seed\":7}";
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_new ();
  g_autoptr(GError) error = NULL;

  nk_checkpoint_set_step (ck, 20);
  nk_checkpoint_set_config (ck, saved);

  /* exactly at the end: nothing left to do, which is no error */
  g_assert_true (nk_checkpoint_check_resume (ck, saved, 20, &error));
  g_assert_no_error (error);
  g_assert_true (nk_checkpoint_check_resume (ck, saved, 30, &error));
  g_assert_no_error (error);

  /* fewer steps than it holds: refused with both numbers */
  g_assert_false (nk_checkpoint_check_resume (ck, saved, 10, &error));
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_STEPS);
  g_assert_nonnull (strstr (error->message, "holds 20 steps"));
  g_assert_nonnull (strstr (error->message, "the 10 asked for"));
  g_clear_error (&error);

  /* another configuration: every field named with both values */
  g_assert_false (nk_checkpoint_check_resume (ck, changed, 30, &error));
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_CONFIG_CHANGED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "lr (0.01 → 0.5)"));
  g_assert_nonnull (strstr (error->message, "optimizer (adamw → sgd)"));
  g_assert_nonnull (strstr (error->message, "seed (0 → 7)"));
  g_assert_nonnull (strstr (error->message, "--steps"));
  g_assert_null (strchr (error->message, '\n'));
}

/* The loss a checkpoint records reads back as the same double. */
static void
test_loss (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  static const double losses[] = { 32.801288604736328, 1e-300, 0.1, NAN, INFINITY };
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (losses); i++)
    {
      g_autoptr(NkCheckpoint) ck = make_checkpoint (i + 1, NULL);
      g_autoptr(NkCheckpoint) back = NULL;
      g_autofree char *path = NULL;

      nk_checkpoint_set_loss (ck, losses[i]);
      g_assert_true (nk_checkpoint_save (ck, dir, 0, &path, &error));
      g_assert_no_error (error);
      back = nk_checkpoint_load (path, &error);
      g_assert_no_error (error);
      if (isnan (losses[i]))
        g_assert_true (isnan (nk_checkpoint_get_loss (back)));
      else
        g_assert_true (nk_checkpoint_get_loss (back) == losses[i]);
    }
  {
    g_autoptr(NkCheckpoint) ck = make_checkpoint (1, NULL);

    g_assert_true (isnan (nk_checkpoint_get_loss (ck)));   /* not recorded */
  }
  nk_test_remove_tree (dir);
}

/* One writer per folder: a second lock on the same folder fails, naming this
 * process (flock locks belong to the open file, so one process is enough). */
static void
test_lock (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-ck");
  g_autofree char *sub = g_build_filename (dir, "run", NULL);
  g_autofree char *pid = g_strdup_printf ("in use by process %d;", (int) getpid ());
  g_autofree char *file = g_build_filename (dir, "a-file", NULL);
  g_autofree char *under_file = g_build_filename (file, "ck", NULL);
  g_autoptr(GError) error = NULL;
  NkCheckpointLock *first, *second;

  first = nk_checkpoint_lock (sub, &error);          /* creates the folder */
  g_assert_no_error (error);
  g_assert_nonnull (first);
  g_assert_true (g_file_test (sub, G_FILE_TEST_IS_DIR));

  second = nk_checkpoint_lock (sub, &error);
  g_assert_null (second);
  g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_LOCKED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, sub));
  g_assert_nonnull (strstr (error->message, pid));
  g_clear_error (&error);

  nk_checkpoint_unlock (first);
  second = nk_checkpoint_lock (sub, &error);
  g_assert_no_error (error);
  g_assert_nonnull (second);
  nk_checkpoint_unlock (second);

  /* a folder that cannot exist fails before any work, naming it */
  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  g_assert_null (nk_checkpoint_lock (under_file, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
  g_assert_nonnull (strstr (error->message, under_file));
  g_clear_error (&error);

  nk_test_remove_tree (sub);
  nk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/checkpoint/round-trip", test_round_trip);
  g_test_add_func ("/engine/checkpoint/read-into", test_read_into);
  g_test_add_func ("/engine/checkpoint/keep-last", test_keep_last);
  g_test_add_func ("/engine/checkpoint/checksum-mismatch", test_checksum_mismatch);
  g_test_add_func ("/engine/checkpoint/find-latest-intact", test_find_latest_intact);
  g_test_add_func ("/engine/checkpoint/disk-full", test_disk_full);
  g_test_add_func ("/engine/checkpoint/metadata-tamper", test_metadata_tamper);
  g_test_add_func ("/engine/checkpoint/other-run", test_other_run);
  g_test_add_func ("/engine/checkpoint/tensors", test_tensors);
  g_test_add_func ("/engine/checkpoint/config-changes", test_config_changes);
  g_test_add_func ("/engine/checkpoint/check-resume", test_check_resume);
  g_test_add_func ("/engine/checkpoint/loss", test_loss);
  g_test_add_func ("/engine/checkpoint/lock", test_lock);

  return g_test_run ();
}
