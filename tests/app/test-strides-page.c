/* test-strides-page.c: the Strides & views page shows what each lesson teaches
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the storage cells each lesson must highlight, written here in closed
 * form from the layout rule (offset + Σ i·stride) for a row-major 4×4 over
 * arange(16), and PyTorch's own error sentence for a view of a transpose. The
 * diagram's words (issue 26) are checked against the same hand-worked cells.
 */
#include "config.h"

#include "nk-dtype.h"
#include "napkin-application.h"
#include "napkin-strides-page-private.h"
#include "napkin-storage-diagram.h"
#include "napkin-storage-diagram-model.h"
#include "nk-test-page-a11y.h"
#include "nk-test-ui-util.h"

#define NARROW 360

static NapkinStridesPage *
new_page (void)
{
  NapkinStridesPage *page = NAPKIN_STRIDES_PAGE (napkin_strides_page_new ());

  g_object_ref_sink (page);
  return page;
}

static void
load_lesson (NapkinStridesPage *page,
             const char        *id)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "strides.lesson", "s", id));
  g_assert_cmpstr (_napkin_strides_page_get_lesson (page), ==, id);
}

/* The highlighted cells must be exactly @expected (any order, no repeats). */
static void
assert_highlight (NapkinStridesPage *page,
                  const gint64      *expected,
                  guint              n_expected)
{
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  g_autofree gint64 *cells = NULL;
  g_autofree gint64 *sorted = g_memdup2 (expected, n_expected * sizeof (gint64));
  guint n = 0;

  for (guint i = 0; i < n_expected; i++)
    for (guint j = i + 1; j < n_expected; j++)
      if (sorted[j] < sorted[i])
        {
          gint64 t = sorted[i];
          sorted[i] = sorted[j];
          sorted[j] = t;
        }

  cells = napkin_storage_diagram_model_dup_highlighted_cells (model, &n);
  g_assert_cmpuint (n, ==, n_expected);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (cells[i], ==, sorted[i]);
}

static int
selected (NapkinStridesPage *page)
{
  int t = napkin_storage_diagram_model_get_selected (napkin_strides_page_get_model (page));

  g_assert_cmpint (t, >=, 0);
  return t;
}

static void
test_default (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  gint64 all[16];
  double value;

  g_assert_cmpstr (napkin_strides_page_get_program_text (page), ==, "x = arange(16).view(4, 4)");
  g_assert_null (_napkin_strides_page_get_error_text (page));
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 1);
  g_assert_cmpint (napkin_storage_diagram_model_get_storage_numel (model, 0), ==, 16);
  g_assert_cmpuint (napkin_storage_diagram_model_get_storage_nbytes (model, 0), ==, 16 * 4);
  g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (model), ==, "x");
  for (int i = 0; i < 16; i++)
    {
      all[i] = i;
      g_assert_true (napkin_storage_diagram_model_get_storage_value (model, 0, i, &value));
      g_assert_cmpfloat (value, ==, i);
    }
  assert_highlight (page, all, 16);

  g_assert_finalize_object (page);
}

static void
test_row (void)
{
  NapkinStridesPage *page = new_page ();
  gint64 expected[4];

  load_lesson (page, "row");
  g_assert_null (_napkin_strides_page_get_error_text (page));
  g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (napkin_strides_page_get_model (page)), ==, "y");
  /* x[1, j] = 0 + 1·4 + j·1 */
  for (int j = 0; j < 4; j++)
    expected[j] = 4 + j;
  assert_highlight (page, expected, 4);
  g_assert_finalize_object (page);
}

static void
test_column (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  NkTensor *y;
  gint64 expected[4];

  load_lesson (page, "column");
  /* x[i, 1] = 0 + i·4 + 1·1: {1, 5, 9, 13} */
  for (int i = 0; i < 4; i++)
    expected[i] = 4 * i + 1;
  assert_highlight (page, expected, 4);

  y = napkin_storage_diagram_model_get_tensor (model, selected (page));
  g_assert_cmpint (y->ndim, ==, 1);
  g_assert_cmpint (y->stride[0], ==, 4);
  g_assert_cmpint (y->offset, ==, 1);
  g_assert_cmpstr (napkin_storage_diagram_model_get_tensor_shares_with (model, selected (page)), ==, "x");
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 1);
  g_assert_finalize_object (page);
}

static void
test_slice_step (void)
{
  NapkinStridesPage *page = new_page ();
  gint64 expected[4];

  load_lesson (page, "slice-step");
  g_assert_cmpstr (napkin_strides_page_get_program_text (page), ==,
                   "x = arange(16).view(4, 4)\ny = x[::2, 1::2]");
  /* rows 0, 2 and columns 1, 3: 4·(2i) + (1 + 2j) */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      expected[2 * i + j] = 8 * i + 1 + 2 * j;
  assert_highlight (page, expected, 4);
  g_assert_finalize_object (page);
}

static void
test_view (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  NkTensor *y;
  gint64 all[16];

  load_lesson (page, "view");
  for (int i = 0; i < 16; i++)
    all[i] = i;
  assert_highlight (page, all, 16);
  y = napkin_storage_diagram_model_get_tensor (model, selected (page));
  g_assert_cmpint (y->shape[0], ==, 2);
  g_assert_cmpint (y->shape[1], ==, 8);
  g_assert_cmpint (y->stride[0], ==, 8);
  g_assert_cmpint (y->stride[1], ==, 1);
  g_assert_finalize_object (page);
}

/* Stepping through x.t() visits storage in the order 0 4 8 12 1 5 ...: element k of
 * the transpose is x[k % 4, k / 4], at 4·(k % 4) + k / 4. */
static void
test_transpose_steps (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  gint64 from, to, cell;

  load_lesson (page, "transpose");
  g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (model), ==, "y");
  g_assert_cmpint (napkin_storage_diagram_model_get_step (model), ==, -1);

  for (gint64 k = 0; k < 16; k++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "strides.step-forward", NULL));
      g_assert_cmpint (napkin_storage_diagram_model_get_step (model), ==, k);
      g_assert_true (napkin_storage_diagram_model_get_focus (model, NULL, NULL, &cell));
      g_assert_cmpint (cell, ==, 4 * (k % 4) + k / 4);
      if (k > 0)
        {
          g_assert_true (napkin_storage_diagram_model_get_jump (model, &from, &to));
          g_assert_cmpint (to - from, ==, k % 4 == 0 ? -11 : 4);
        }
    }
  g_assert_true (g_str_has_prefix (_napkin_strides_page_get_formula_text (page), "step 16 of 16 · jump +4 · y[3, 3] → 15"));

  /* past the end the walk stops */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "strides.step-forward", NULL));
  g_assert_cmpint (napkin_storage_diagram_model_get_step (model), ==, -1);
  g_assert_finalize_object (page);
}

static void
test_transpose_view_error (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  const char *error;

  load_lesson (page, "transpose-view");
  error = _napkin_strides_page_get_error_text (page);
  g_assert_nonnull (error);
  /* PyTorch's sentence, at `view` in the third statement "z = y.view(16)" */
  g_assert_nonnull (strstr (error, "view size is not compatible with input tensor's size and stride"));
  /* "z = y.view(16)" is line 3; "view" starts at its 7th character */
  g_assert_true (g_str_has_prefix (error, "Line 3, column 7: "));
  /* the statements before the failure still ran and are drawn */
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_tensors (model), ==, 2);
  g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (model), ==, "y");
  g_assert_finalize_object (page);
}

static void
check_copy_lesson (const char *lesson)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  int z;
  double value;
  gint64 all[16];

  load_lesson (page, lesson);
  g_assert_null (_napkin_strides_page_get_error_text (page));
  g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (model), ==, "z");

  /* a second strip: 16 elements × 4 bytes (f32) */
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 2);
  g_assert_cmpuint (napkin_storage_diagram_model_get_storage_nbytes (model, 1), ==, 64);
  g_assert_cmpuint (napkin_storage_diagram_model_get_total_nbytes (model), ==, 128);
  z = selected (page);
  g_assert_cmpuint (napkin_storage_diagram_model_get_tensor_storage (model, z), ==, 1);
  g_assert_null (napkin_storage_diagram_model_get_tensor_shares_with (model, z));
  g_assert_cmpstr (napkin_storage_diagram_model_get_storage_owner (model, 1), ==, "z");
  /* y is still a view of x */
  g_assert_cmpstr (napkin_storage_diagram_model_get_tensor_shares_with (
                     model, napkin_storage_diagram_model_find_tensor (model, "y")), ==, "x");

  /* the copy holds x.t() in its logical order */
  for (int k = 0; k < 16; k++)
    {
      g_assert_true (napkin_storage_diagram_model_get_storage_value (model, 1, k, &value));
      g_assert_cmpfloat (value, ==, 4 * (k % 4) + k / 4);
      all[k] = k;
    }
  assert_highlight (page, all, 16);
  g_assert_finalize_object (page);
}

static void
test_contiguous (void)
{
  check_copy_lesson ("contiguous");
}

static void
test_reshape (void)
{
  check_copy_lesson ("reshape");
}

static void
test_expand (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  NkTensor *y;
  gint64 expected[4] = { 0, 1, 2, 3 };

  load_lesson (page, "expand");
  y = napkin_storage_diagram_model_get_tensor (model, selected (page));
  g_assert_cmpint (y->ndim, ==, 2);
  g_assert_cmpint (y->stride[0], ==, 0);
  g_assert_cmpint (y->stride[1], ==, 1);
  assert_highlight (page, expected, 4);
  /* each of the 4 cells is read by all 3 rows */
  for (int c = 0; c < 4; c++)
    g_assert_cmpuint (napkin_storage_diagram_model_get_cell_hits (model, 0, c), ==, 3);
  g_assert_cmpint (napkin_storage_diagram_model_get_storage_numel (model, 0), ==, 4);
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 1);
  g_assert_finalize_object (page);
}

static void
test_write_through (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  int x;
  gint64 n = 0;
  const double *values;
  double value;

  load_lesson (page, "write");
  g_assert_null (_napkin_strides_page_get_error_text (page));
  x = napkin_storage_diagram_model_find_tensor (model, "x");
  g_assert_cmpint (x, >=, 0);
  g_assert_cmpuint (napkin_storage_diagram_model_get_tensor_storage (model, x), ==, 0);
  g_assert_true (napkin_storage_diagram_model_get_storage_value (model, 0, 0, &value));
  g_assert_cmpfloat (value, ==, 100);
  g_assert_true (napkin_storage_diagram_model_get_storage_value (model, 0, 1, &value));
  g_assert_cmpfloat (value, ==, 1);
  values = napkin_storage_diagram_model_get_tensor_values (model, x, &n);
  g_assert_cmpint (n, ==, 16);
  g_assert_cmpfloat (values[0], ==, 100);
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 1);
  g_assert_finalize_object (page);
}

static void
test_rearrange (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  NkTensor *h;
  gint64 all[16];

  load_lesson (page, "rearrange");
  g_assert_null (_napkin_strides_page_get_error_text (page));
  g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (model), ==, "h");
  h = napkin_storage_diagram_model_get_tensor (model, selected (page));
  g_assert_cmpint (h->ndim, ==, 3);
  g_assert_cmpint (h->shape[0], ==, 2);
  g_assert_cmpint (h->shape[1], ==, 2);
  g_assert_cmpint (h->shape[2], ==, 4);
  g_assert_cmpint (h->stride[0], ==, 8);
  g_assert_cmpint (h->stride[1], ==, 4);
  g_assert_cmpint (h->stride[2], ==, 1);
  g_assert_cmpstr (napkin_storage_diagram_model_get_tensor_shares_with (model, selected (page)), ==, "x");
  for (int i = 0; i < 16; i++)
    all[i] = i;
  assert_highlight (page, all, 16);
  g_assert_finalize_object (page);
}

/* Bytes are numel × element size: 16 × 4, 2, 2, 1. */
static void
test_dtype_bytes (void)
{
  static const struct { NkDType dtype; gsize bytes; } cases[] = {
    { NK_DTYPE_F16, 32 }, { NK_DTYPE_BF16, 32 }, { NK_DTYPE_E4M3, 16 }, { NK_DTYPE_F32, 64 },
  };
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);

  load_lesson (page, "contiguous");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      napkin_strides_page_set_dtype (page, cases[i].dtype);
      g_assert_cmpint (napkin_strides_page_get_dtype (page), ==, cases[i].dtype);
      g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 2);
      g_assert_cmpuint (napkin_storage_diagram_model_get_storage_nbytes (model, 0), ==, cases[i].bytes);
      g_assert_cmpuint (napkin_storage_diagram_model_get_storage_nbytes (model, 1), ==, cases[i].bytes);
    }
  g_assert_finalize_object (page);
}

/* The lecture's example: x[1, 2] is at 6 = 0 + 1·4 + 2·1. */
static void
test_hover_formula (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  gint64 cell;

  napkin_storage_diagram_model_set_hover (model, 0, 1 * 4 + 2);
  g_assert_true (napkin_storage_diagram_model_get_focus (model, NULL, NULL, &cell));
  g_assert_cmpint (cell, ==, 6);
  g_assert_cmpstr (_napkin_strides_page_get_formula_text (page), ==, "x[1, 2] → 6 = 0 + 1·4 + 2·1");

  /* the transpose reads x[2, 1] there */
  napkin_strides_page_set_program_text (page, "x = arange(16).view(4, 4)\ny = x.t()");
  napkin_storage_diagram_model_set_hover (model, 1, 2 * 4 + 1);
  g_assert_cmpstr (_napkin_strides_page_get_formula_text (page), ==, "y[2, 1] → 6 = 0 + 2·1 + 1·4");
  napkin_storage_diagram_model_set_hover (model, -1, -1);
  g_assert_false (napkin_storage_diagram_model_get_focus (model, NULL, NULL, NULL));
  g_assert_finalize_object (page);
}

/* expand(3, 4) of arange(4): y[i, j] reads cell 0 + i·0 + j·1 = j, so cell 2 is read
 * by y[0, 2], y[1, 2], y[2, 2] (elements 2, 6, 10 in logical order) and by x[2]. */
static void
test_hover_cell (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  const gint64 expected[] = { 0 * 4 + 2, 1 * 4 + 2, 2 * 4 + 2 };
  g_autofree gint64 *readers = NULL;
  g_autofree gint64 *x_readers = NULL;
  int x, y;
  guint n = 0;

  load_lesson (page, "expand");
  x = napkin_storage_diagram_model_find_tensor (model, "x");
  y = napkin_storage_diagram_model_find_tensor (model, "y");
  napkin_storage_diagram_model_set_hover_cell (model, 0, 2);
  g_assert_cmpint (napkin_storage_diagram_model_get_hover_cell (model), ==, 2);
  readers = napkin_storage_diagram_model_dup_cell_readers (model, y, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (readers[i], ==, expected[i]);
  x_readers = napkin_storage_diagram_model_dup_cell_readers (model, x, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (x_readers[0], ==, 2);
  g_assert_cmpstr (_napkin_strides_page_get_formula_text (page), ==,
                   "storage of x, cell 2 ← x[2], y[0, 2], y[1, 2], y[2, 2]");

  /* pointing at an element ends pointing at the cell */
  napkin_storage_diagram_model_set_hover (model, y, 0);
  g_assert_cmpint (napkin_storage_diagram_model_get_hover_storage (model), ==, -1);
  g_clear_pointer (&readers, g_free);
  readers = napkin_storage_diagram_model_dup_cell_readers (model, y, &n);
  g_assert_null (readers);
  g_assert_cmpuint (n, ==, 0);
  g_assert_finalize_object (page);
}

/* The diagram says what the statement did: reshape of a transpose copies (64 bytes
 * of f32), t() is a view. */
static void
test_copied_flags (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  int y, z;

  load_lesson (page, "reshape");
  y = napkin_storage_diagram_model_find_tensor (model, "y");
  z = napkin_storage_diagram_model_find_tensor (model, "z");
  g_assert_cmpstr (napkin_storage_diagram_model_get_tensor_op (model, y), ==, "t");
  g_assert_false (napkin_storage_diagram_model_get_tensor_copied (model, y));
  g_assert_cmpstr (napkin_storage_diagram_model_get_tensor_op (model, z), ==, "reshape");
  g_assert_true (napkin_storage_diagram_model_get_tensor_copied (model, z));

  napkin_strides_page_set_program_text (page, "x = arange(16).view(4, 4)\nz = x.reshape(16)");
  z = napkin_storage_diagram_model_find_tensor (model, "z");
  g_assert_false (napkin_storage_diagram_model_get_tensor_copied (model, z));
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_storages (model), ==, 1);
  g_assert_finalize_object (page);
}

/* 40 × 20 = 800 elements: the first 512 / 20 = 25 whole rows are drawn, 500 elements;
 * the storage's first 512 cells. */
static void
test_large (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  const double *values;
  gint64 n = 0;

  napkin_strides_page_set_program_text (page, "x = arange(800).view(40, 20)\ny = x.t()");
  g_assert_null (_napkin_strides_page_get_error_text (page));
  g_assert_cmpint (napkin_storage_diagram_model_get_storage_numel (model, 0), ==, 800);
  g_assert_cmpint (napkin_storage_diagram_model_get_storage_n_drawn (model, 0), ==, 512);
  values = napkin_storage_diagram_model_get_tensor_values (model, 0, &n);
  g_assert_cmpint (n, ==, 500);
  g_assert_cmpfloat (values[499], ==, 499);
  /* y = x.t() is 20 × 40: 12 whole rows, 480 elements; y[1, 0] is x[0, 1] = 1 */
  values = napkin_storage_diagram_model_get_tensor_values (model, 1, &n);
  g_assert_cmpint (n, ==, 480);
  g_assert_cmpfloat (values[40], ==, 1);
  g_assert_cmpfloat (values[41], ==, 21);
  g_assert_finalize_object (page);
}

static void
notify_count (GObject    *object,
              GParamSpec *pspec,
              guint      *count)
{
  (*count)++;
}

/* Typing runs the program after a short pause; the property follows the buffer. */
static void
test_typing (void)
{
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);
  g_autofree char *text = NULL;
  GtkTextBuffer *buffer;
  GtkTextIter end;
  GtkWidget *editor;
  guint notified = 0;
  gint64 expected[4];

  g_signal_connect (page, "notify::program-text", G_CALLBACK (notify_count), &notified);
  for (editor = GTK_WIDGET (page); editor != NULL && !GTK_IS_TEXT_VIEW (editor);)
    {
      /* depth-first search for the editor */
      GtkWidget *next = gtk_widget_get_first_child (editor);

      while (next == NULL && editor != GTK_WIDGET (page))
        {
          next = gtk_widget_get_next_sibling (editor);
          if (next == NULL)
            editor = gtk_widget_get_parent (editor);
        }
      editor = next;
    }
  g_assert_nonnull (editor);

  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (editor));
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "\ny = x[2]", -1);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (page, "program-text", &text, NULL);
  g_assert_cmpstr (text, ==, "x = arange(16).view(4, 4)\ny = x[2]");

  while (napkin_storage_diagram_model_get_n_tensors (model) < 2)
    g_main_context_iteration (NULL, TRUE);
  for (int j = 0; j < 4; j++)
    expected[j] = 8 + j;
  assert_highlight (page, expected, 4);

  g_object_set (page, "program-text", "x = arange(16).view(4, 4)", NULL);
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_tensors (model), ==, 1);
  g_assert_finalize_object (page);
}

/* Bad programs are an inline sentence, never a crash; what ran before still shows. */
static void
test_bad_input (void)
{
  static const char *programs[] = {
    "x = arange(16).view(4, 4)\ny = x[",
    "x = arange(16).view(4, 4)\ny = nope(3)",
    "x = arange(16).view(4, 4)\ny = x[7]",
    "x = arange(16).view(4, 4)\ny = x.view(5, 5)",
    "x = arange(16).view(4, 4)\n\n# comment\n;; y = x.t().view(16)",
    "x = arange(1e12)",
    "x = arange(16).view(4, 4)\nx[0, 0] = 3 +",
    "",
    "é = 1",
  };
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);

  for (guint i = 0; i < G_N_ELEMENTS (programs); i++)
    {
      napkin_strides_page_set_program_text (page, programs[i]);
      if (i < 5)
        {
          g_assert_nonnull (_napkin_strides_page_get_error_text (page));
          g_assert_cmpuint (napkin_storage_diagram_model_get_n_tensors (model), ==, 1);
          g_assert_cmpstr (napkin_storage_diagram_model_get_selected_name (model), ==, "x");
        }
    }
  napkin_strides_page_set_program_text (page, programs[4]);
  /* the comment and separators are skipped: the failure is at `view` on line 4,
   * ";; y = x.t().view(16)", whose "v" is its 14th character */
  g_assert_true (g_str_has_prefix (_napkin_strides_page_get_error_text (page), "Line 4, column 14: "));
  /* a syntax error in a statement spread over lines: "$" is on line 3, after 11 spaces and "8 " */
  napkin_strides_page_set_program_text (page, "x = arange(16).view(4, 4)\ny = x.view(2,\n           8 $ 1)");
  g_assert_true (g_str_has_prefix (_napkin_strides_page_get_error_text (page), "Line 3, column 14: "));
  /* a line after a multi-byte character counts characters, not bytes */
  napkin_strides_page_set_program_text (page, "x = arange(16).view(4, 4)  # 4×4\ny = x[7]");
  g_assert_true (g_str_has_prefix (_napkin_strides_page_get_error_text (page), "Line 2, column "));
  g_assert_finalize_object (page);
}

static void
test_settings_kept (void)
{
  g_autoptr(GSettings) settings = napkin_settings_new ();
  g_autofree char *saved = NULL;
  NapkinStridesPage *page;

  g_assert_nonnull (settings);
  g_settings_reset (settings, "strides-program");

  page = new_page ();
  napkin_strides_page_set_settings (page, settings);
  g_assert_cmpstr (napkin_strides_page_get_program_text (page), ==, "x = arange(16).view(4, 4)");
  load_lesson (page, "expand");
  g_assert_finalize_object (page);   /* saves what is pending */
  saved = g_settings_get_string (settings, "strides-program");
  g_assert_cmpstr (saved, ==, "x = arange(4)\ny = x.expand(3, 4)");

  page = new_page ();
  napkin_strides_page_set_settings (page, settings);
  g_assert_cmpstr (napkin_strides_page_get_program_text (page), ==, "x = arange(4)\ny = x.expand(3, 4)");
  g_assert_cmpuint (napkin_storage_diagram_model_get_n_tensors (napkin_strides_page_get_model (page)), ==, 2);
  g_assert_finalize_object (page);

  g_settings_reset (settings, "strides-program");
}

static void
test_settings_dtype (void)
{
  g_autoptr(GSettings) settings = napkin_settings_new ();
  g_autofree char *saved = NULL;
  NapkinStridesPage *page;

  g_settings_reset (settings, "strides-dtype");
  page = new_page ();
  napkin_strides_page_set_settings (page, settings);
  g_assert_cmpint (napkin_strides_page_get_dtype (page), ==, NK_DTYPE_F32);
  napkin_strides_page_set_dtype (page, NK_DTYPE_BF16);
  saved = g_settings_get_string (settings, "strides-dtype");
  g_assert_cmpstr (saved, ==, "bf16");
  g_assert_finalize_object (page);

  page = new_page ();
  napkin_strides_page_set_settings (page, settings);
  g_assert_cmpint (napkin_strides_page_get_dtype (page), ==, NK_DTYPE_BF16);
  /* 16 elements × 2 bytes */
  g_assert_cmpuint (napkin_storage_diagram_model_get_storage_nbytes (napkin_strides_page_get_model (page), 0), ==, 32);
  g_assert_finalize_object (page);
  g_settings_reset (settings, "strides-dtype");
}

/* Drawn in a window (every lesson, light and dark), the page lays out and paints. */
static void
test_in_window (void)
{
  static const char *ids[] = { "rearrange", "expand", "transpose-view", "contiguous", "write" };
  GtkWidget *window = gtk_window_new ();
  NapkinStridesPage *page = new_page ();
  NapkinStorageDiagramModel *model = napkin_strides_page_get_model (page);

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_width (GTK_WIDGET (page)) == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (page)), >=, 360);

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      load_lesson (page, ids[i]);
      napkin_storage_diagram_model_step (model, +1);
      napkin_storage_diagram_model_step (model, +1);
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
    }

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (page);
}

/* Every button, the dtype drop-down and the editor have names; the lessons'
 * arrows and the lesson note's icon are decoration. */
static void
test_accessible_names (void)
{
  NapkinStridesPage *page = new_page ();
  g_autofree char *problems = NULL;

  load_lesson (page, "transpose");
  problems = nk_test_page_a11y_problems (GTK_WIDGET (page));
  g_assert_cmpstr (problems, ==, "");
  g_assert_finalize_object (page);
}

static char *
diagram_text (NapkinStridesPage     *page,
              GtkAccessibleProperty  property)
{
  GtkWidget *diagram = nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_STORAGE_DIAGRAM);

  g_assert_nonnull (diagram);
  return nk_test_accessible_dup_property (GTK_ACCESSIBLE (diagram), property);
}

static void
assert_description_has (NapkinStridesPage *page,
                        const char        *expected)
{
  g_autofree char *description = diagram_text (page, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  if (description == NULL || strstr (description, expected) == NULL)
    g_error ("the diagram's description\n  %s\nlacks\n  %s", description, expected);
}

/* The diagram says what it shows: y = x.t() reads x's storage a column at a
 * time, y[i, j] at 1·i + 4·j, so its logical order is the runs 0, 4, 8, 12 and
 * so on; its name follows a step (y[0, 1] is element 1·0 + 4·1 = 4). */
static void
test_diagram_words (void)
{
  NapkinStridesPage *page = new_page ();
  g_autofree char *name = NULL;

  load_lesson (page, "transpose");
  assert_description_has (page, "Storage of x: 16 elements of f32, 64 bytes.");
  assert_description_has (page, "x: shape (4, 4), strides (4, 1), offset 0, contiguous. "
                                "It reads elements 0 to 15 of the storage of x.");
  assert_description_has (page, "y: shape (4, 4), strides (1, 4), offset 0, not contiguous. "
                                "It shares the storage of x. It reads elements 0 to 12 in steps "
                                "of 4, 1 to 13 in steps of 4, 2 to 14 in steps of 4, 3 to 15 in "
                                "steps of 4 of the storage of x.");
  name = diagram_text (page, GTK_ACCESSIBLE_PROPERTY_LABEL);
  g_assert_cmpstr (name, ==, "Storage diagram, y selected");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "strides.step-forward", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "strides.step-forward", NULL));
  g_clear_pointer (&name, g_free);
  name = diagram_text (page, GTK_ACCESSIBLE_PROPERTY_LABEL);
  g_assert_cmpstr (name, ==, "Storage diagram, step 2 of 16: y[0, 1] is storage element 4");

  /* x[::2, 1::2]: y[i, j] = 8·i + 1 + 2·j for i, j in {0, 1}: 1, 3, 9, 11 */
  load_lesson (page, "slice-step");
  assert_description_has (page, "y: shape (2, 2), strides (8, 2), offset 1, not contiguous.");
  assert_description_has (page, "It reads elements 1, 3, 9, 11 of the storage of x.");
  /* x.expand(3, 4): stride 0 reads the same four cells three times */
  load_lesson (page, "expand");
  assert_description_has (page, "It reads elements 0 to 3, 0 to 3, 0 to 3 of the storage of x.");
  /* the dtype follows: e4m3 stores a byte an element */
  napkin_strides_page_set_dtype (page, NK_DTYPE_E4M3);
  assert_description_has (page, "Storage of x: 4 elements of e4m3, 4 bytes.");
  g_assert_finalize_object (page);
}

/* A program that fails marks the editor invalid until it runs again. */
static void
test_invalid_program (void)
{
  NapkinStridesPage *page = new_page ();
  GtkWidget *editor = nk_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_TEXT_VIEW);

  g_assert_false (nk_test_page_a11y_is_invalid (editor));
  load_lesson (page, "transpose-view");
  g_assert_nonnull (_napkin_strides_page_get_error_text (page));
  g_assert_true (nk_test_page_a11y_is_invalid (editor));
  load_lesson (page, "contiguous");
  g_assert_null (_napkin_strides_page_get_error_text (page));
  g_assert_false (nk_test_page_a11y_is_invalid (editor));
  g_assert_finalize_object (page);
}

/* Every button shown: the steps, stop, the drop-down's. */
static void
assert_buttons_inside (GtkWidget *widget,
                       GtkWidget *page)
{
  if (GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget))
    nk_test_page_assert_inside (widget, page, gtk_widget_get_tooltip_text (widget) != NULL
                                              ? gtk_widget_get_tooltip_text (widget) : "a button");
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    assert_buttons_inside (child, page);
}

/* Columns of @widget, drawn on its own, from @x to its right edge that hold a
 * drawn pixel (anything not transparent). */
static guint
count_drawn_columns_from (GtkWidget *widget,
                          int        x)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  g_autoptr(GskRenderNode) node = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  const guint8 *data;
  int stride;
  guint drawn = 0;

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node != NULL)
    gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int column = x; column < width; column++)
    for (int row = 0; row < height; row++)
      if (((const guint32 *) (data + row * stride))[column] >> 24 != 0)
        {
          drawn++;
          break;
        }
  cairo_surface_destroy (surface);
  return drawn;
}

/* At 360 px the page fits, and its controls lie inside it. */
static void
test_narrow (void)
{
  GtkWidget *window = gtk_window_new ();
  NapkinStridesPage *page = new_page ();
  GtkWidget *diagram = nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_STORAGE_DIAGRAM);
  int minimum;

  gtk_widget_measure (GTK_WIDGET (page), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  g_assert_cmpint (minimum, <=, NARROW);

  gtk_window_set_default_size (GTK_WINDOW (window), NARROW, 700);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  load_lesson (page, "transpose");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "strides.step-forward", NULL));
  while (gtk_widget_get_width (GTK_WIDGET (page)) != NARROW)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);

  nk_test_page_assert_inside (diagram, GTK_WIDGET (page), "the diagram");
  nk_test_page_assert_inside (nk_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_DROP_DOWN),
                              GTK_WIDGET (page), "the dtype drop-down");
  nk_test_page_assert_inside (nk_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_TEXT_VIEW),
                              GTK_WIDGET (page), "the editor");
  assert_buttons_inside (GTK_WIDGET (page), GTK_WIDGET (page));
  /* The diagram keeps a 24 px margin on the right: a caption too long for the
   * width ("Storage of x   16 × f32 (4 bytes each) = 64 bytes") wraps rather
   * than run into it and off the edge. */
  g_assert_cmpuint (count_drawn_columns_from (diagram, gtk_widget_get_width (diagram) - 20), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (page);
}

int
main (int    argc,
      char **argv)
{
  /* GTK keeps accessible properties only where it has a backend to give them
   * to: its test backend instead of none, so the tests can read them. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/strides/default", test_default);
  g_test_add_func ("/ui/strides/lesson/row", test_row);
  g_test_add_func ("/ui/strides/lesson/column", test_column);
  g_test_add_func ("/ui/strides/lesson/slice-step", test_slice_step);
  g_test_add_func ("/ui/strides/lesson/view", test_view);
  g_test_add_func ("/ui/strides/lesson/transpose-steps", test_transpose_steps);
  g_test_add_func ("/ui/strides/lesson/transpose-view-error", test_transpose_view_error);
  g_test_add_func ("/ui/strides/lesson/contiguous", test_contiguous);
  g_test_add_func ("/ui/strides/lesson/reshape", test_reshape);
  g_test_add_func ("/ui/strides/lesson/expand", test_expand);
  g_test_add_func ("/ui/strides/lesson/write-through", test_write_through);
  g_test_add_func ("/ui/strides/lesson/rearrange", test_rearrange);
  g_test_add_func ("/ui/strides/dtype-bytes", test_dtype_bytes);
  g_test_add_func ("/ui/strides/hover-formula", test_hover_formula);
  g_test_add_func ("/ui/strides/typing", test_typing);
  g_test_add_func ("/ui/strides/bad-input", test_bad_input);
  g_test_add_func ("/ui/strides/settings-kept", test_settings_kept);
  g_test_add_func ("/ui/strides/settings-dtype", test_settings_dtype);
  g_test_add_func ("/ui/strides/hover-cell", test_hover_cell);
  g_test_add_func ("/ui/strides/copied-flags", test_copied_flags);
  g_test_add_func ("/ui/strides/large", test_large);
  g_test_add_func ("/ui/strides/in-window", test_in_window);
  g_test_add_func ("/ui/strides/accessible-names", test_accessible_names);
  g_test_add_func ("/ui/strides/diagram-words", test_diagram_words);
  g_test_add_func ("/ui/strides/invalid-program", test_invalid_program);
  g_test_add_func ("/ui/strides/narrow", test_narrow);

  return g_test_run ();
}
