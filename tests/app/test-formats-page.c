/* test-formats-page.c: the Number formats page shows what each format makes of a value
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles are worked by hand from the formats' definitions, not by nk-dtype:
 *   1e-8 = 1.34217728 × 2^−27. bf16 keeps 7 fraction bits: 0.34217728 × 128 =
 *   43.80 rounds to 44 = 0101100₂, the biased exponent is −27 + 127 = 100 =
 *   01100100₂, so the bits are 0 01100100 0101100 = 0x322c and the value is
 *   (1 + 44/128) × 2^−27 = 43 × 2^−32 = 1.001171767711639404296875e−8.
 *   f16's smallest subnormal is 2^−24 ≈ 5.96e−8: 1e−8 is under half of it, so 0.
 *   e4m3's largest finite value is 1.75 × 2^8 = 448 (0x7e); 465 is past the
 *   midpoint 464 between 448 and the next step 480, so default overflow gives
 *   NaN (0x7f) and saturation gives 448.
 * Accessibility and layout (issue 26): twelve formats are twelve bit rows, so
 * twelve Tab stops among the bits; 360 px is the HIG's narrowest window.
 */
#include "config.h"

#include <math.h>

#include "napkin-bit-row.h"
#include "napkin-format-card.h"
#include "napkin-formats-page-private.h"
#include "napkin-range-chart.h"
#include "nk-test-page-a11y.h"
#include "nk-test-ui-util.h"

#define NARROW 360

typedef struct {
  GtkWidget         *window;
  NapkinFormatsPage *page;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->window = gtk_window_new ();
  fixture->page = NAPKIN_FORMATS_PAGE (napkin_formats_page_new ());
  g_object_ref (fixture->page);
  gtk_window_set_child (GTK_WINDOW (fixture->window), GTK_WIDGET (fixture->page));
  /* A test may ask for another width in its data. */
  gtk_window_set_default_size (GTK_WINDOW (fixture->window),
                               data != NULL ? GPOINTER_TO_INT (data) : 1000, 800);
  gtk_window_present (GTK_WINDOW (fixture->window));
  napkin_formats_page_set_saturate (fixture->page, FALSE);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (fixture->window));
  g_assert_finalize_object (fixture->page);
}

static void
assert_field (NapkinFormatsPage *page,
              const char        *dtype,
              const char        *field,
              const char        *expected)
{
  g_autofree char *shown = _napkin_formats_page_dup_row_field (page, dtype, field);

  g_assert_cmpstr (shown, ==, expected);
}

static gboolean
field_is_empty (NapkinFormatsPage *page,
                const char        *dtype,
                const char        *field)
{
  g_autofree char *shown = _napkin_formats_page_dup_row_field (page, dtype, field);

  return shown == NULL || *shown == '\0';
}

static void
test_lecture_example (Fixture       *fixture,
                      gconstpointer  data)
{
  NapkinFormatsPage *page = fixture->page;

  g_object_set (page, "value-text", "1e-8", NULL);
  g_assert_null (_napkin_formats_page_get_error (page));

  /* f16: gone. */
  assert_field (page, "f16", "hex", "0x0000");
  assert_field (page, "f16", "value", "0");
  assert_field (page, "f16", "class", "zero");
  assert_field (page, "f16", "bits", "0 00000 0000000000");
  assert_field (page, "f16", "exact", "0");
  g_assert_false (field_is_empty (page, "f16", "note"));

  /* bf16: survives as a normal number. */
  assert_field (page, "bf16", "hex", "0x322c");
  assert_field (page, "bf16", "class", "normal");
  assert_field (page, "bf16", "bits", "0 01100100 0101100");
  assert_field (page, "bf16", "exact", "0.00000001001171767711639404296875");
  g_assert_true (field_is_empty (page, "bf16", "note"));
  {
    g_autofree char *formula = _napkin_formats_page_dup_row_field (page, "bf16", "formula");
    g_autofree char *value = _napkin_formats_page_dup_row_field (page, "bf16", "value");

    g_assert_true (g_str_has_prefix (formula, "(−1)^0 × 1.0101100₂ × 2^(100 − 127)"));
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (value, NULL), ldexp (43, -32), 1e-11);
  }
  /* The rounding error is 1e-8 minus 43 × 2^-32, about -1.17e-11. */
  {
    g_autofree char *abs_error = _napkin_formats_page_dup_row_field (page, "bf16", "abs-error");

    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (abs_error, NULL), 1e-8 - ldexp (43, -32),
                                    1e-13);
  }
}

static void
test_flip_bit (Fixture       *fixture,
               gconstpointer  data)
{
  NapkinFormatsPage *page = fixture->page;

  g_object_set (page, "value-text", "1", NULL);
  assert_field (page, "f32", "hex", "0x3f800000");
  assert_field (page, "f32", "value", "1");

  /* The sign bit of f32 1.0: -1, and every other row follows the new value. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.flip-bit", "(si)",
                                             "f32", 31));
  assert_field (page, "f32", "hex", "0xbf800000");
  assert_field (page, "f32", "value", "-1");
  assert_field (page, "f16", "hex", "0xbc00");
  assert_field (page, "e4m3", "hex", "0xb8");
  g_assert_cmpstr (napkin_formats_page_get_value_text (page), ==, "-1");

  /* The lowest bit of bf16's 1e-8 (0x322c = (128 + 44) × 2^-34): 173 × 2^-34. */
  g_object_set (page, "value-text", "1e-8", NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.flip-bit", "(si)",
                                             "bf16", 0));
  assert_field (page, "bf16", "hex", "0x322d");
  assert_field (page, "bf16", "exact", "0.0000000100699253380298614501953125");
  g_assert_cmpfloat (g_ascii_strtod (napkin_formats_page_get_value_text (page), NULL), ==,
                     ldexp (173, -34));
}

static void
test_step_and_jump (Fixture       *fixture,
                    gconstpointer  data)
{
  NapkinFormatsPage *page = fixture->page;

  /* The next f16 after 1 is 1 + 2^-10. */
  g_object_set (page, "value-text", "1", NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.next", "s", "f16"));
  assert_field (page, "f16", "hex", "0x3c01");
  assert_field (page, "f16", "exact", "1.0009765625");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.previous", "s", "f16"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.previous", "s", "f16"));
  /* Below 1 the step halves: 1 - 2^-11. */
  assert_field (page, "f16", "exact", "0.99951171875");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.jump", "(ss)",
                                             "e4m3", "max"));
  assert_field (page, "e4m3", "hex", "0x7e");
  assert_field (page, "e4m3", "value", "448");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.jump", "(ss)",
                                             "f16", "min-subnormal"));
  assert_field (page, "f16", "exact", "0.000000059604644775390625");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.jump", "(ss)",
                                             "bf16", "epsilon"));
  assert_field (page, "bf16", "exact", "0.0078125");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.set-bits", "(ss)",
                                             "f16", "7c00"));
  assert_field (page, "f16", "class", "inf");
  assert_field (page, "e4m3", "class", "nan");
}

static void
test_saturate (Fixture       *fixture,
               gconstpointer  data)
{
  NapkinFormatsPage *page = fixture->page;

  g_object_set (page, "value-text", "465", NULL);
  assert_field (page, "e4m3", "hex", "0x7f");
  assert_field (page, "e4m3", "class", "nan");
  g_assert_false (field_is_empty (page, "e4m3", "overflow"));
  /* e5m2 reaches 57344: 465 rounds to 448 there in either mode. */
  assert_field (page, "e5m2", "value", "448");
  g_assert_true (field_is_empty (page, "e5m2", "overflow"));

  napkin_formats_page_set_saturate (page, TRUE);
  assert_field (page, "e4m3", "hex", "0x7e");
  assert_field (page, "e4m3", "value", "448");
  assert_field (page, "e4m3", "class", "normal");
  g_assert_false (field_is_empty (page, "e4m3", "overflow"));

  /* 464 is the midpoint and ties to even: 448 in both modes, nothing differs. */
  g_object_set (page, "value-text", "464", NULL);
  assert_field (page, "e4m3", "value", "448");
  g_assert_true (field_is_empty (page, "e4m3", "overflow"));
  napkin_formats_page_set_saturate (page, FALSE);
  assert_field (page, "e4m3", "value", "448");
}

static void
assert_all_dashes (NapkinFormatsPage *page)
{
  for (const char * const *dtype = (const char *[]) { "f32", "f16", "bf16", "e4m3", "e5m2",
                                                      "tf32", NULL }; *dtype; dtype++)
    {
      assert_field (page, *dtype, "value", "—");
      assert_field (page, *dtype, "class", "—");
      assert_field (page, *dtype, "exact", "—");
      assert_field (page, *dtype, "formula", "—");
    }
}

static void
test_bad_input (Fixture       *fixture,
                gconstpointer  data)
{
  NapkinFormatsPage *page = fixture->page;
  const char *error;

  g_object_set (page, "value-text", "1.5", NULL);
  g_assert_null (_napkin_formats_page_get_error (page));

  g_object_set (page, "value-text", "one point five", NULL);
  error = _napkin_formats_page_get_error (page);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, "one point five"));
  assert_all_dashes (page);
  assert_field (page, "f16", "bits", "· ····· ··········");

  g_object_set (page, "value-text", "", NULL);
  g_assert_nonnull (_napkin_formats_page_get_error (page));
  assert_all_dashes (page);

  /* A good value clears the error. */
  g_object_set (page, "value-text", "2", NULL);
  g_assert_null (_napkin_formats_page_get_error (page));
  assert_field (page, "f16", "hex", "0x4000");

  /* Nine bits do not fit e4m3. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.set-bits", "(ss)",
                                             "e4m3", "0x1ff"));
  error = _napkin_formats_page_get_error (page);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, "0x1ff"));
  assert_all_dashes (page);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.set-bits", "(ss)",
                                             "e4m3", "zz"));
  g_assert_nonnull (_napkin_formats_page_get_error (page));
  assert_all_dashes (page);

  /* Jumping is a way out. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.jump", "(ss)",
                                             "e4m3", "one"));
  g_assert_null (_napkin_formats_page_get_error (page));
  assert_field (page, "e4m3", "hex", "0x38");
  assert_field (page, "f32", "value", "1");
}

/* The notes follow what rounding did, infinities included; a source row holds
 * its own bits exactly, so it shows no error even where saturation would clamp. */
static void
test_notes (Fixture       *fixture,
            gconstpointer  data)
{
  NapkinFormatsPage *page = fixture->page;
  g_autofree char *e4m3_note = NULL, *f16_note = NULL, *saturated_note = NULL;

  g_object_set (page, "value-text", "inf", NULL);
  /* f16 keeps inf; e4m3 has no inf, so inf becomes NaN (0x7f) */
  g_assert_true (field_is_empty (page, "f16", "note"));
  assert_field (page, "e4m3", "hex", "0x7f");
  e4m3_note = _napkin_formats_page_dup_row_field (page, "e4m3", "note");
  g_assert_nonnull (strstr (e4m3_note, "NaN"));

  napkin_formats_page_set_saturate (page, TRUE);
  assert_field (page, "e4m3", "hex", "0x7e");
  saturated_note = _napkin_formats_page_dup_row_field (page, "e4m3", "note");
  g_assert_nonnull (strstr (saturated_note, "448"));
  g_assert_false (field_is_empty (page, "e5m2", "overflow"));

  /* e5m2's own inf (0x7c), typed in while saturating: no error in its row */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.set-bits", "(ss)",
                                             "e5m2", "7c"));
  assert_field (page, "e5m2", "hex", "0x7c");
  assert_field (page, "e5m2", "abs-error", "0");
  assert_field (page, "e4m3", "hex", "0x7e");

  /* 2^-24 × 1.25 rounds to f16's smallest subnormal: a note, not a warning */
  napkin_formats_page_set_saturate (page, FALSE);
  g_object_set (page, "value-text", "7.450580596923828e-8", NULL);
  assert_field (page, "f16", "hex", "0x0001");
  assert_field (page, "f16", "class", "subnormal");
  f16_note = _napkin_formats_page_dup_row_field (page, "f16", "note");
  g_assert_nonnull (strstr (f16_note, "Subnormal"));

  /* 2^-25, exactly half of f16's smallest subnormal: a tie, and zero is even */
  g_clear_pointer (&f16_note, g_free);
  g_object_set (page, "value-text", "2.98023223876953125e-8", NULL);
  assert_field (page, "f16", "hex", "0x0000");
  f16_note = _napkin_formats_page_dup_row_field (page, "f16", "note");
  g_assert_nonnull (strstr (f16_note, "exactly half"));
  /* a little less is less than half */
  g_clear_pointer (&f16_note, g_free);
  g_object_set (page, "value-text", "2.9e-8", NULL);
  assert_field (page, "f16", "hex", "0x0000");
  f16_note = _napkin_formats_page_dup_row_field (page, "f16", "note");
  g_assert_nonnull (strstr (f16_note, "less than half"));

  /* epsilon of e4m3 is 2^-3: biased exponent 4, fraction 0 */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "formats.jump", "(ss)",
                                             "e4m3", "epsilon"));
  assert_field (page, "e4m3", "hex", "0x20");
  assert_field (page, "e4m3", "value", "0.125");
}

/* A screen reader hears the spans and where the input lands: e4m3 holds
 * 2^-6 = 0.015625 to 448 as normals, down to 2^-9 with subnormals; 1e-8 is
 * lost to zero in f16 and e4m3 and kept in bf16. */
static void
test_range_chart_description (Fixture       *fixture,
                              gconstpointer  data)
{
  NapkinRangeChart *chart = NAPKIN_RANGE_CHART (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                                       NAPKIN_TYPE_RANGE_CHART));
  const char *text;

  g_assert_nonnull (chart);
  g_object_set (fixture->page, "value-text", "1e-8", NULL);
  text = napkin_range_chart_get_description (chart);
  g_assert_nonnull (strstr (text, "e4m3: normal values from 0.0156 to 448, subnormals down to 0.00195."));
  g_assert_nonnull (strstr (text, "f16 loses it: it becomes 0."));
  g_assert_nonnull (strstr (text, "e4m3 loses it: it becomes 0."));
  g_assert_nonnull (strstr (text, "bf16 holds it as 1e-08."));

  /* Bad input: the spans stay, nothing is said about an input. */
  g_object_set (fixture->page, "value-text", "banana", NULL);
  text = napkin_range_chart_get_description (chart);
  g_assert_nonnull (strstr (text, "f32: normal values from"));
  g_assert_null (strstr (text, "loses it"));
  g_assert_null (strstr (text, "holds it"));
}

static NapkinFormatCard *
find_card (GtkWidget *widget,
           NkDType    dtype)
{
  if (NAPKIN_IS_FORMAT_CARD (widget) && napkin_format_card_get_dtype (NAPKIN_FORMAT_CARD (widget)) == dtype)
    return NAPKIN_FORMAT_CARD (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      NapkinFormatCard *card = find_card (child, dtype);

      if (card != NULL)
        return card;
    }
  return NULL;
}

/* Every button, switch, entry and menu button has a name a screen reader can
 * say (a tooltip is not one in GTK 4.8), none with a mnemonic's underscore, and
 * no image is an unnamed picture. */
static void
test_accessible_names (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *problems = nk_test_page_a11y_problems (GTK_WIDGET (fixture->page));
  NapkinBitRow *row = NAPKIN_BIT_ROW (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                               NAPKIN_TYPE_BIT_ROW));
  GtkWidget *cell;

  g_assert_cmpstr (problems, ==, "");

  /* A bit says which it is and what it holds: f32's 1.0 is 0x3f800000, sign 0. */
  g_object_set (fixture->page, "value-text", "1", NULL);
  g_assert_true (napkin_bit_row_focus_bit (row, 31));
  cell = gtk_root_get_focus (GTK_ROOT (fixture->window));
  gtk_test_accessible_assert_property (cell, GTK_ACCESSIBLE_PROPERTY_LABEL, "Bit 31: the sign, 0");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "formats.flip-bit",
                                             "(si)", "f32", 31));
  gtk_test_accessible_assert_property (cell, GTK_ACCESSIBLE_PROPERTY_LABEL, "Bit 31: the sign, 1");
  /* 0x3f800000: bit 23 is the exponent's lowest 1 */
  g_assert_true (napkin_bit_row_focus_bit (row, 23));
  gtk_test_accessible_assert_property (gtk_root_get_focus (GTK_ROOT (fixture->window)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Bit 23: exponent, 1");
}

/* Bad input is marked invalid where it was typed, and only there, until it is fixed. */
static void
test_invalid_state (Fixture       *fixture,
                    gconstpointer  data)
{
  GtkWidget *value_row = nk_test_find_descendant (GTK_WIDGET (fixture->page), ADW_TYPE_ENTRY_ROW);
  GtkWidget *value_text = GTK_WIDGET (gtk_editable_get_delegate (GTK_EDITABLE (value_row)));
  GtkWidget *e4m3_hex = nk_test_find_descendant (GTK_WIDGET (find_card (GTK_WIDGET (fixture->page),
                                                                        NK_DTYPE_E4M3)),
                                                 GTK_TYPE_ENTRY);

  g_object_set (fixture->page, "value-text", "1.5", NULL);
  g_assert_false (nk_test_page_a11y_is_invalid (value_row));
  g_assert_false (nk_test_page_a11y_is_invalid (value_text));
  g_assert_false (nk_test_page_a11y_is_invalid (e4m3_hex));

  g_object_set (fixture->page, "value-text", "one point five", NULL);
  g_assert_true (nk_test_page_a11y_is_invalid (value_row));
  g_assert_true (nk_test_page_a11y_is_invalid (value_text));
  g_assert_false (nk_test_page_a11y_is_invalid (e4m3_hex));

  g_object_set (fixture->page, "value-text", "2", NULL);
  g_assert_false (nk_test_page_a11y_is_invalid (value_text));

  /* Nine bits in e4m3's hex field: that field is wrong, not the value. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "formats.set-bits", "(ss)",
                                             "e4m3", "0x1ff"));
  g_assert_true (nk_test_page_a11y_is_invalid (e4m3_hex));
  g_assert_false (nk_test_page_a11y_is_invalid (value_text));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->page), "formats.set-bits", "(ss)",
                                             "e4m3", "0x38"));
  g_assert_false (nk_test_page_a11y_is_invalid (e4m3_hex));
}

/* Walks the Tab chain once around the window and counts the stops inside bit
 * rows, and in how many different rows they are. */
static void
count_bit_stops (GtkWidget *window,
                 guint     *out_stops,
                 guint     *out_rows)
{
  g_autoptr(GHashTable) rows = g_hash_table_new (NULL, NULL);
  GtkWidget *first = NULL;

  *out_stops = 0;
  gtk_window_set_focus (GTK_WINDOW (window), NULL);
  for (guint i = 0; i < 2000; i++)
    {
      GtkWidget *focus, *row;

      g_assert_true (gtk_widget_child_focus (window, GTK_DIR_TAB_FORWARD));
      focus = gtk_root_get_focus (GTK_ROOT (window));
      if (focus == first)
        break;
      if (first == NULL)
        first = focus;
      row = gtk_widget_get_ancestor (focus, NAPKIN_TYPE_BIT_ROW);
      if (row != NULL)
        {
          (*out_stops)++;
          g_hash_table_add (rows, row);
        }
    }
  *out_rows = g_hash_table_size (rows);
}

/* A bit row is one Tab stop, as a toolbar is; the arrows move between its bits,
 * and Tab comes back to the bit it left. */
static void
test_bit_row_tab_stop (Fixture       *fixture,
                       gconstpointer  data)
{
  NapkinBitRow *row = NAPKIN_BIT_ROW (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                               NAPKIN_TYPE_BIT_ROW));
  GtkWidget *bit5;
  guint stops, rows;

  count_bit_stops (fixture->window, &stops, &rows);
  /* f32, f16, bf16, tf32; e4m3, e5m2, e4m3fnuz, e5m2fnuz; fp6-e3m2, fp6-e2m3,
   * fp4-e2m1, e8m0 */
  g_assert_cmpuint (rows, ==, 12);
  g_assert_cmpuint (stops, ==, 12);

  g_assert_true (napkin_bit_row_focus_bit (row, 5));
  bit5 = gtk_root_get_focus (GTK_ROOT (fixture->window));
  /* Out of the row with one Tab, back with one Shift+Tab, onto the same bit. */
  g_assert_true (gtk_widget_child_focus (fixture->window, GTK_DIR_TAB_FORWARD));
  g_assert_null (gtk_widget_get_ancestor (gtk_root_get_focus (GTK_ROOT (fixture->window)),
                                          NAPKIN_TYPE_BIT_ROW));
  g_assert_true (gtk_widget_child_focus (fixture->window, GTK_DIR_TAB_BACKWARD));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (fixture->window)) == bit5);
}

/* Space on a bit flips it and leaves the focus on it, so the next arrow key
 * moves to its neighbour. A button's Space is its "activate" signal. */
static void
test_space_keeps_focus (Fixture       *fixture,
                        gconstpointer  data)
{
  NapkinBitRow *row = NAPKIN_BIT_ROW (nk_test_find_descendant (GTK_WIDGET (fixture->page),
                                                               NAPKIN_TYPE_BIT_ROW));
  GtkWidget *cell;

  g_object_set (fixture->page, "value-text", "1", NULL);
  g_assert_true (napkin_bit_row_focus_bit (row, 31));
  cell = gtk_root_get_focus (GTK_ROOT (fixture->window));
  g_assert_true (gtk_widget_activate (cell));
  /* The button clicks when its activation ends, from the main loop. */
  while (napkin_bit_row_get_bits (row) == 0x3f800000)
    g_main_context_iteration (NULL, TRUE);
  assert_field (fixture->page, "f32", "hex", "0xbf800000");
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (fixture->window)) == cell);
}

/* At 360 px, the HIG's narrowest, the page fits and nothing is pushed past its
 * edge: the value's edit icon, the fp8 switch, the range chart, each card's hex
 * field, step buttons and Jump To. */
static void
test_narrow (Fixture       *fixture,
             gconstpointer  data)
{
  GtkWidget *page = GTK_WIDGET (fixture->page);
  int minimum;

  gtk_widget_measure (page, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  g_assert_cmpint (minimum, <=, NARROW);

  while (gtk_widget_get_width (page) != NARROW)
    g_main_context_iteration (NULL, TRUE);

  nk_test_page_assert_inside (nk_test_find_descendant (page, ADW_TYPE_ENTRY_ROW), page,
                              "the value row");
  nk_test_page_assert_inside (nk_test_find_descendant (page, GTK_TYPE_SWITCH), page,
                              "the fp8 switch");
  nk_test_page_assert_inside (nk_test_find_descendant (page, NAPKIN_TYPE_RANGE_CHART), page,
                              "the range chart");
  /* the four section buttons all show: none scrolled out of sight past the edge */
  {
    GtkWidget *switcher = nk_test_find_descendant (page, GTK_TYPE_STACK_SWITCHER);
    guint n = 0;

    for (GtkWidget *b = gtk_widget_get_first_child (switcher); b; b = gtk_widget_get_next_sibling (b), n++)
      nk_test_page_assert_inside (b, page, "a section button");
    g_assert_cmpuint (n, ==, 4);
  }
  for (NkDType dtype = 0; dtype < NK_N_DTYPES; dtype++)
    {
      NapkinFormatCard *card = find_card (page, dtype);

      if (card == NULL)
        continue;
      nk_test_page_assert_inside (GTK_WIDGET (card), page, "a card");
      nk_test_page_assert_inside (nk_test_find_descendant (GTK_WIDGET (card), GTK_TYPE_ENTRY), page,
                                  "a hex field");
      nk_test_page_assert_inside (nk_test_find_descendant (GTK_WIDGET (card), GTK_TYPE_MENU_BUTTON),
                                  page, "Jump To");
    }
}

int
main (int    argc,
      char **argv)
{
  /* GTK keeps accessible properties only where it has a backend to give them
   * to: its test backend instead of none, so the tests can read them. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  {
    /* the app's stylesheet, as AdwApplication loads it: the section buttons'
     * widths come from it */
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, "/io/github/napkinml/Napkin/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }
  adw_init ();

  g_test_add ("/ui/formats/lecture-example", Fixture, NULL,
              fixture_set_up, test_lecture_example, fixture_tear_down);
  g_test_add ("/ui/formats/flip-bit", Fixture, NULL,
              fixture_set_up, test_flip_bit, fixture_tear_down);
  g_test_add ("/ui/formats/step-and-jump", Fixture, NULL,
              fixture_set_up, test_step_and_jump, fixture_tear_down);
  g_test_add ("/ui/formats/saturate", Fixture, NULL,
              fixture_set_up, test_saturate, fixture_tear_down);
  g_test_add ("/ui/formats/bad-input", Fixture, NULL,
              fixture_set_up, test_bad_input, fixture_tear_down);
  g_test_add ("/ui/formats/notes", Fixture, NULL,
              fixture_set_up, test_notes, fixture_tear_down);
  g_test_add ("/ui/formats/range-chart-description", Fixture, NULL,
              fixture_set_up, test_range_chart_description, fixture_tear_down);
  g_test_add ("/ui/formats/accessible-names", Fixture, NULL,
              fixture_set_up, test_accessible_names, fixture_tear_down);
  g_test_add ("/ui/formats/invalid-state", Fixture, NULL,
              fixture_set_up, test_invalid_state, fixture_tear_down);
  g_test_add ("/ui/formats/bit-row-tab-stop", Fixture, NULL,
              fixture_set_up, test_bit_row_tab_stop, fixture_tear_down);
  g_test_add ("/ui/formats/space-keeps-focus", Fixture, NULL,
              fixture_set_up, test_space_keeps_focus, fixture_tear_down);
  g_test_add ("/ui/formats/narrow", Fixture, GINT_TO_POINTER (NARROW),
              fixture_set_up, test_narrow, fixture_tear_down);

  return g_test_run ();
}
