/* test-formats-blocks.c: the Number formats page's Blocks, Rounding and All Values parts
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles are worked by hand from the OCP MX v1.0 rules and the formats'
 * definitions, not by nk-quantize or nk-dtype:
 *   [1, 2, 448, 0.001, 500, 1e-5] in MXFP8 (E4M3), one block. amax = 500 and
 *   floor(log2 500) = 8 = e4m3's emax, so the floor rule's scale is 2^0 (E8M0
 *   bits 127 = 0x7f). 1 = 0 0111 000 = 0x38, 2 = 0x40, 448 = 0 1111 110 = 0x7e,
 *   all exact; 0.001 = 0.512 × 2^−9 rounds to e4m3's smallest subnormal 2^−9 =
 *   0.001953125 (0x01); 500 > 448 clips to 448 (0x7e); 1e-5 < 2^−10 flushes to 0.
 *   With the scale rounded up, 500 / 2^0 > 448 so the scale is 2^1 (0x80):
 *   1 → 0.5 = 0 0110 000 = 0x30, 2 → 1 = 0x38, 448 → 224 = 1.75 × 2^7 =
 *   0 1110 110 = 0x76, 500 → 250, nearer 256 than 240, = 0 1111 000 = 0x78
 *   (value 512, rounded, not clipped); 0.0005 = 0.256 × 2^−9 and 5e-6 flush.
 *   bf16's running sum of 1.0: exact up to 256, where the spacing becomes 2 and
 *   256 + 1 is a tie that goes to the even 256 for ever (f16: 2048).
 *   bf16 around 1.003: neighbours 1 and 1 + 2^−7.
 *   e4m3 has 2^8 codes: 0x7e = 448, 0x7f NaN, 0x01 = 2^−9; e8m0 0x7f = 2^0;
 *   fp4 e2m1 has 16: 0x7 = 6, 0x1 = 0.5 (subnormal).
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "napkin-formats-blocks.h"
#include "napkin-formats-page.h"
#include "napkin-formats-rounding.h"
#include "napkin-formats-table.h"
#include "napkin-block-view.h"
#include "napkin-format-values.h"
#include "napkin-text-row.h"
#include "nk-test-ui-util.h"

typedef struct {
  GtkWidget         *window;
  NapkinFormatsPage *page;
  NapkinFormatsBlocks *blocks;
  NapkinFormatsRounding *rounding;
  NapkinFormatsTable *table;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->window = gtk_window_new ();
  fixture->page = NAPKIN_FORMATS_PAGE (napkin_formats_page_new ());
  g_object_ref (fixture->page);
  gtk_window_set_child (GTK_WINDOW (fixture->window), GTK_WIDGET (fixture->page));
  gtk_window_set_default_size (GTK_WINDOW (fixture->window), 1000, 800);
  gtk_window_present (GTK_WINDOW (fixture->window));
  fixture->blocks = NAPKIN_FORMATS_BLOCKS (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                                    NAPKIN_TYPE_FORMATS_BLOCKS));
  fixture->rounding = NAPKIN_FORMATS_ROUNDING (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                                        NAPKIN_TYPE_FORMATS_ROUNDING));
  fixture->table = NAPKIN_FORMATS_TABLE (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                                  NAPKIN_TYPE_FORMATS_TABLE));
  g_assert_nonnull (fixture->blocks);
  g_assert_nonnull (fixture->rounding);
  g_assert_nonnull (fixture->table);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (fixture->window));
  g_assert_finalize_object (fixture->page);
}

/* The model keeps its rows alive: the reference get_item gave is dropped. */
static NapkinTextRow *
row_at (GListModel *model,
        guint       index)
{
  NapkinTextRow *row;

  g_assert_nonnull (model);
  g_assert_cmpuint (index, <, g_list_model_get_n_items (model));
  row = g_list_model_get_item (model, index);
  g_object_unref (row);
  return row;
}

static void
assert_element (NapkinFormatsBlocks *blocks,
                guint                index,
                const char          *code,
                const char          *value,
                const char          *mark)
{
  NapkinTextRow *row = row_at (napkin_formats_blocks_get_element_rows (blocks), index);

  g_assert_cmpstr (napkin_text_row_get_cell (row, NAPKIN_ELEMENT_COLUMN_CODE), ==, code);
  g_assert_cmpstr (napkin_text_row_get_cell (row, NAPKIN_ELEMENT_COLUMN_VALUE), ==, value);
  g_assert_cmpstr (napkin_text_row_get_mark (row), ==, mark);
}

static void
test_mxfp8_floor (Fixture       *fixture,
                  gconstpointer  data)
{
  NapkinFormatsBlocks *blocks = fixture->blocks;
  NapkinTextRow *block, *flushed;

  napkin_formats_blocks_set_format (blocks, NK_BLOCK_FORMAT_MXFP8_E4M3);
  napkin_formats_blocks_set_scale_rule (blocks, NK_MX_SCALE_FLOOR);
  napkin_formats_blocks_set_values_text (blocks, "1, 2, 448, 0.001, 500, 1e-5");
  g_assert_null (napkin_formats_blocks_get_error (blocks));

  g_assert_cmpuint (g_list_model_get_n_items (napkin_formats_blocks_get_block_rows (blocks)), ==, 1);
  block = row_at (napkin_formats_blocks_get_block_rows (blocks), 0);
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_SCALE), ==, "2^0");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_SCALE_BITS), ==, "0x7f");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_LARGEST), ==, "500 (#4)");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_FLUSHED), ==, "1");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_CLIPPED), ==, "1");

  g_assert_cmpuint (g_list_model_get_n_items (napkin_formats_blocks_get_element_rows (blocks)), ==, 6);
  assert_element (blocks, 0, "0x38", "1", "exact");
  assert_element (blocks, 1, "0x40", "2", "exact");
  assert_element (blocks, 2, "0x7e", "448", "exact");
  assert_element (blocks, 3, "0x01", "0.00195312", "rounded");
  assert_element (blocks, 4, "0x7e", "448", "clipped");
  assert_element (blocks, 5, "0x00", "0", "flushed");
  /* Why 1e-5 was lost: the block's largest value, named with its place. */
  flushed = row_at (napkin_formats_blocks_get_element_rows (blocks), 5);
  g_assert_nonnull (strstr (napkin_text_row_get_cell (flushed, NAPKIN_ELEMENT_COLUMN_WHY), "500 (#4)"));
  /* 500 − 448 = 52 is the largest error */
  g_assert_nonnull (strstr (napkin_formats_blocks_get_summary (blocks), "Largest error 52,"));
}

static void
test_mxfp8_up (Fixture       *fixture,
               gconstpointer  data)
{
  NapkinFormatsBlocks *blocks = fixture->blocks;
  NapkinTextRow *block;

  napkin_formats_blocks_set_format (blocks, NK_BLOCK_FORMAT_MXFP8_E4M3);
  napkin_formats_blocks_set_scale_rule (blocks, NK_MX_SCALE_UP);
  napkin_formats_blocks_set_values_text (blocks, "1, 2, 448, 0.001, 500, 1e-5");

  block = row_at (napkin_formats_blocks_get_block_rows (blocks), 0);
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_SCALE), ==, "2^1");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_SCALE_BITS), ==, "0x80");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_FLUSHED), ==, "2");
  g_assert_cmpstr (napkin_text_row_get_cell (block, NAPKIN_BLOCK_COLUMN_CLIPPED), ==, "0");
  assert_element (blocks, 0, "0x30", "1", "exact");
  assert_element (blocks, 1, "0x38", "2", "exact");
  assert_element (blocks, 2, "0x76", "448", "exact");
  assert_element (blocks, 3, "0x00", "0", "flushed");
  assert_element (blocks, 4, "0x78", "512", "rounded");
  assert_element (blocks, 5, "0x00", "0", "flushed");
}

/* 100 blocks of 32: the block table lists all of them, the element table the
 * first 8 blocks' 256 elements, and the summary says so. */
static void
test_large (Fixture       *fixture,
            gconstpointer  data)
{
  NapkinFormatsBlocks *blocks = fixture->blocks;
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < 3200; i++)
    g_string_append_printf (text, "%u ", i % 7 + 1);
  napkin_formats_blocks_set_format (blocks, NK_BLOCK_FORMAT_MXFP4);
  napkin_formats_blocks_set_values_text (blocks, text->str);
  g_assert_cmpuint (g_list_model_get_n_items (napkin_formats_blocks_get_block_rows (blocks)), ==, 100);
  g_assert_cmpuint (g_list_model_get_n_items (napkin_formats_blocks_get_element_rows (blocks)), ==,
                    8 * 32);
  g_assert_nonnull (strstr (napkin_formats_blocks_get_summary (blocks), "3200 values in 100 blocks"));
  g_assert_nonnull (strstr (napkin_formats_blocks_get_summary (blocks), "first 8 blocks"));
}

static void
test_bad_input (Fixture       *fixture,
                gconstpointer  data)
{
  NapkinFormatsBlocks *blocks = fixture->blocks;
  GListModel *elements;

  napkin_formats_blocks_set_values_text (blocks, "1, abc, 3");
  g_assert_nonnull (napkin_formats_blocks_get_error (blocks));
  g_assert_nonnull (strstr (napkin_formats_blocks_get_error (blocks), "Value 2, “abc”"));
  elements = napkin_formats_blocks_get_element_rows (blocks);
  g_assert_true (elements == NULL || g_list_model_get_n_items (elements) == 0);
  /* Good input clears it. */
  napkin_formats_blocks_set_values_text (blocks, "[1.0, 2.0]");
  g_assert_null (napkin_formats_blocks_get_error (blocks));
  g_assert_cmpuint (g_list_model_get_n_items (napkin_formats_blocks_get_element_rows (blocks)), ==, 2);
}

/* A float32 .npy written byte by byte as numpy's format 1.0 spells it. */
static char *
write_npy (const float *values,
           guint        n)
{
  g_autofree char *dir = g_dir_make_tmp ("fpage-XXXXXX", NULL);
  char *path = g_build_filename (dir, "v.npy", NULL);
  g_autofree char *dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, 'shape': (%u,), }", n);
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  guint header_len = 10 + strlen (dict) + 1;
  guint pad = (64 - header_len % 64) % 64;
  guint16 len16 = GUINT16_TO_LE ((guint16) (strlen (dict) + pad + 1));

  g_byte_array_append (bytes, (const guint8 *) "\x93NUMPY\x01\x00", 8);
  g_byte_array_append (bytes, (const guint8 *) &len16, 2);
  g_byte_array_append (bytes, (const guint8 *) dict, strlen (dict));
  for (guint i = 0; i < pad; i++)
    g_byte_array_append (bytes, (const guint8 *) " ", 1);
  g_byte_array_append (bytes, (const guint8 *) "\n", 1);
  g_byte_array_append (bytes, (const guint8 *) values, n * sizeof (float));
  g_assert_true (g_file_set_contents (path, (const char *) bytes->data, bytes->len, NULL));
  return path;
}

static void
test_npy (Fixture       *fixture,
          gconstpointer  data)
{
  const float values[] = { 1, 2, 448, 0.001f, 500, 1e-5f };
  g_autofree char *path = write_npy (values, G_N_ELEMENTS (values));
  g_autofree char *dir = g_path_get_dirname (path);
  NapkinFormatsBlocks *blocks = fixture->blocks;

  napkin_formats_blocks_set_format (blocks, NK_BLOCK_FORMAT_MXFP8_E4M3);
  napkin_formats_blocks_set_scale_rule (blocks, NK_MX_SCALE_FLOOR);
  g_assert_true (napkin_formats_blocks_load_npy (blocks, path));
  assert_element (blocks, 2, "0x7e", "448", "exact");
  assert_element (blocks, 4, "0x7e", "448", "clipped");
  assert_element (blocks, 5, "0x00", "0", "flushed");

  /* Not a .npy: a sentence, and the last good vector stays. */
  g_assert_true (g_file_set_contents (path, "not numpy", -1, NULL));
  g_assert_false (napkin_formats_blocks_load_npy (blocks, path));
  g_assert_nonnull (napkin_formats_blocks_get_error (blocks));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_running_sum (Fixture       *fixture,
                  gconstpointer  data)
{
  NapkinFormatsRounding *rounding = fixture->rounding;
  NapkinSeries *nearest, *stochastic;
  double last, y;
  g_autofree char *description = NULL;

  napkin_formats_rounding_set_sum_dtype (rounding, NK_DTYPE_BF16);
  napkin_formats_rounding_set_n_steps (rounding, 1024);
  nearest = napkin_formats_rounding_get_sum (rounding, NK_ROUNDING_MODE_NEAREST_EVEN);
  stochastic = napkin_formats_rounding_get_sum (rounding, NK_ROUNDING_MODE_STOCHASTIC);
  g_assert_cmpuint (napkin_series_get_length (nearest), ==, 1025);
  /* exact up to 256, then 256 for ever */
  for (guint k = 0; k <= 256; k++)
    g_assert_cmpfloat (napkin_series_get_y (nearest, k), ==, k);
  for (guint k = 257; k <= 1024; k++)
    g_assert_cmpfloat (napkin_series_get_y (nearest, k), ==, 256);
  /* Stochastic keeps its expectation, 1024; below 768 is many sigmas away. */
  g_assert_true (napkin_series_get_last (stochastic, NULL, &last));
  g_assert_cmpfloat (last, >, 768);
  description = nk_test_accessible_dup_property (GTK_ACCESSIBLE (napkin_formats_rounding_get_sum_plot (rounding)),
                                                 GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  g_assert_nonnull (strstr (description, "stalls at 256 from addition 256"));

  /* f16 stalls at 2048 */
  napkin_formats_rounding_set_sum_dtype (rounding, NK_DTYPE_F16);
  napkin_formats_rounding_set_n_steps (rounding, 4096);
  g_assert_cmpfloat (napkin_series_get_y (nearest, 2048), ==, 2048);
  g_assert_true (napkin_series_get_last (nearest, NULL, &y));
  g_assert_cmpfloat (y, ==, 2048);
}

static void
test_stochastic_counts (Fixture       *fixture,
                        gconstpointer  data)
{
  NapkinFormatsRounding *rounding = fixture->rounding;
  const NapkinStochasticCounts *c;
  double p, sigma;

  napkin_formats_rounding_set_dtype (rounding, NK_DTYPE_BF16);
  napkin_formats_rounding_set_value_text (rounding, "1.003");
  c = napkin_formats_rounding_get_counts (rounding);
  g_assert_nonnull (c);
  g_assert_cmpfloat (c->below, ==, 1);
  g_assert_cmpfloat (c->above, ==, 1 + ldexp (1, -7));
  g_assert_cmpuint (c->n_other, ==, 0);
  g_assert_cmpuint (c->n_below + c->n_above, ==, c->n);
  /* the mean of n Bernoulli picks: within 5 sigma of the value */
  p = (1.003 - 1) / ldexp (1, -7);
  sigma = ldexp (1, -7) * sqrt (p * (1 - p) / c->n);
  g_assert_cmpfloat (fabs (c->mean - 1.003), <, 5 * sigma);

  napkin_formats_rounding_set_value_text (rounding, "banana");
  g_assert_null (napkin_formats_rounding_get_counts (rounding));
  g_assert_nonnull (napkin_formats_rounding_get_error (rounding));
}

static void
assert_value_row (GListModel *rows,
                  guint       code,
                  const char *value,
                  const char *klass)
{
  NapkinTextRow *row = row_at (rows, code);

  g_assert_cmpstr (napkin_text_row_get_cell (row, NAPKIN_VALUES_COLUMN_VALUE), ==, value);
  g_assert_cmpstr (napkin_text_row_get_mark (row), ==, klass);
}

static void
test_all_values (Fixture       *fixture,
                 gconstpointer  data)
{
  NapkinFormatsTable *table = fixture->table;
  GListModel *rows;

  g_assert_true (napkin_formats_table_set_dtype (table, NK_DTYPE_E4M3));
  rows = napkin_formats_table_get_rows (table);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1 << 8);
  assert_value_row (rows, 0x00, "0", "zero");
  assert_value_row (rows, 0x01, "0.001953125", "subnormal");
  assert_value_row (rows, 0x38, "1", "normal");
  assert_value_row (rows, 0x7e, "448", "normal");
  assert_value_row (rows, 0x7f, "NaN", "nan");
  assert_value_row (rows, 0x80, "−0", "zero");

  g_assert_true (napkin_formats_table_set_dtype (table, NK_DTYPE_FP4_E2M1));
  rows = napkin_formats_table_get_rows (table);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1 << 4);
  assert_value_row (rows, 0x1, "0.5", "subnormal");
  assert_value_row (rows, 0x7, "6", "normal");
  assert_value_row (rows, 0xf, "-6", "normal");

  g_assert_true (napkin_formats_table_set_dtype (table, NK_DTYPE_FP6_E2M3));
  g_assert_cmpuint (g_list_model_get_n_items (napkin_formats_table_get_rows (table)), ==, 1 << 6);
  assert_value_row (napkin_formats_table_get_rows (table), 0x1f, "7.5", "normal");

  g_assert_true (napkin_formats_table_set_dtype (table, NK_DTYPE_E8M0));
  rows = napkin_formats_table_get_rows (table);
  assert_value_row (rows, 0x7f, "1", "normal");
  assert_value_row (rows, 0x80, "2", "normal");
  assert_value_row (rows, 0xff, "NaN", "nan");

  g_assert_true (napkin_formats_table_set_dtype (table, NK_DTYPE_E4M3FNUZ));
  rows = napkin_formats_table_get_rows (table);
  assert_value_row (rows, 0x80, "NaN", "nan");
  assert_value_row (rows, 0x7f, "240", "normal");

  /* f16 has 65536 codes: not offered */
  g_assert_false (napkin_formats_table_set_dtype (table, NK_DTYPE_F16));
}

/* Every part of the page is reachable: the section switcher goes there. */
static void
test_sections (Fixture       *fixture,
               gconstpointer  data)
{
  GtkStack *stack = GTK_STACK (nk_test_find_descendant (GTK_WIDGET (fixture->page), GTK_TYPE_STACK));

  for (const char * const *name = (const char *[]) { "blocks", "rounding", "values", "elements", NULL };
       *name != NULL; name++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "formats.section",
                                                 "s", *name));
      g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, *name);
    }
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/ui/formats/blocks/mxfp8-floor", Fixture, NULL,
              fixture_set_up, test_mxfp8_floor, fixture_tear_down);
  g_test_add ("/ui/formats/blocks/mxfp8-up", Fixture, NULL,
              fixture_set_up, test_mxfp8_up, fixture_tear_down);
  g_test_add ("/ui/formats/blocks/large", Fixture, NULL,
              fixture_set_up, test_large, fixture_tear_down);
  g_test_add ("/ui/formats/blocks/bad-input", Fixture, NULL,
              fixture_set_up, test_bad_input, fixture_tear_down);
  g_test_add ("/ui/formats/blocks/npy", Fixture, NULL,
              fixture_set_up, test_npy, fixture_tear_down);
  g_test_add ("/ui/formats/rounding/running-sum", Fixture, NULL,
              fixture_set_up, test_running_sum, fixture_tear_down);
  g_test_add ("/ui/formats/rounding/stochastic-counts", Fixture, NULL,
              fixture_set_up, test_stochastic_counts, fixture_tear_down);
  g_test_add ("/ui/formats/all-values", Fixture, NULL,
              fixture_set_up, test_all_values, fixture_tear_down);
  g_test_add ("/ui/formats/sections", Fixture, NULL,
              fixture_set_up, test_sections, fixture_tear_down);

  return g_test_run ();
}
