/* test-storage-diagram-model.c: the Strides page's model, without a display
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: the stride rule, written out by hand — element (i0, i1) of a view sits at
 * offset + i0·stride0 + i1·stride1 of its storage — for the lecture's 3 × 4 arange,
 * its transpose and a strided slice; and the bytes of 12 float32 elements.
 */
#include "config.h"

#include "napkin-storage-diagram-model.h"
#include "nk-test-util.h"

static NapkinStorageDiagramModel *
model_of (const char *source)
{
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;
  NapkinStorageDiagramModel *model = napkin_storage_diagram_model_new ();

  g_assert_true (nk_program_run (program, source, &error));
  g_assert_no_error (error);
  napkin_storage_diagram_model_set_program (model, program);
  return model;
}

static void
assert_addresses (NapkinStorageDiagramModel *model,
                  const char                *name,
                  const gint64              *expected,
                  gint64                     n_expected)
{
  int t = napkin_storage_diagram_model_find_tensor (model, name);
  gint64 n = -1;
  const gint64 *addresses;

  g_assert_cmpint (t, >=, 0);
  addresses = napkin_storage_diagram_model_get_tensor_addresses (model, t, &n);
  g_assert_cmpint (n, ==, n_expected);
  for (gint64 i = 0; i < n; i++)
    g_assert_cmpint (addresses[i], ==, expected[i]);
}

/* x = arange(12).view(3, 4): strides (4, 1); y = x.t(): (1, 4); z = x[1:, ::2]:
 * offset 4, strides (4, 2). One storage of 12 elements behind all three. */
static void
test_views_share_one_storage (void)
{
  g_autoptr(NapkinStorageDiagramModel) model =
    model_of ("x = arange(12.).view(3, 4); y = x.t(); z = x[1:, ::2]");
  const gint64 x[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
  const gint64 y[12] = { 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11 };
  const gint64 z[4] = { 4, 6, 8, 10 };
  int t;

  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 1);
  g_assert_cmpint (napkin_storage_diagram_model_get_storage_numel (model, 0), ==, 12);
  g_assert_cmpuint (napkin_storage_diagram_model_get_storage_nbytes (model, 0), ==, 12 * 4);
  assert_addresses (model, "x", x, 12);
  assert_addresses (model, "y", y, 12);
  assert_addresses (model, "z", z, 4);
  t = napkin_storage_diagram_model_find_tensor (model, "y");
  g_assert_cmpuint (napkin_storage_diagram_model_get_tensor_storage (model, t), ==, 0);
  g_assert_cmpstr (napkin_storage_diagram_model_get_tensor_shares_with (model, t), ==, "x");
}

/* contiguous() of a transpose copies: a second storage, y's elements in y's order. */
static void
test_contiguous_copies (void)
{
  g_autoptr(NapkinStorageDiagramModel) model =
    model_of ("x = arange(6.).view(2, 3); y = x.t().contiguous()");
  const gint64 dense[6] = { 0, 1, 2, 3, 4, 5 };
  int t = napkin_storage_diagram_model_find_tensor (model, "y");
  double value;

  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 2);
  g_assert_cmpuint (napkin_storage_diagram_model_get_tensor_storage (model, t), ==, 1);
  assert_addresses (model, "y", dense, 6);
  /* y = [[0, 3], [1, 4], [2, 5]] laid out row by row */
  g_assert_true (napkin_storage_diagram_model_get_storage_value (model, 1, 1, &value));
  g_assert_cmpfloat (value, ==, 3.0);
  g_assert_true (napkin_storage_diagram_model_get_storage_value (model, 1, 2, &value));
  g_assert_cmpfloat (value, ==, 1.0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/storage-diagram/views-share-one-storage", test_views_share_one_storage);
  g_test_add_func ("/models/storage-diagram/contiguous-copies", test_contiguous_copies);
  return g_test_run ();
}
