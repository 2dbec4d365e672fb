/* napkin-text-row.c: one row of a table the app shows: its cells' text and a mark
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Number formats page's tables (a quantization's blocks and elements, every
 * value of a format) are GListModels of these: the model code writes each cell
 * from the engine's numbers once, and a GtkColumnView shows cell i in column i.
 * The mark ("flushed", "clipped", "" ...) lets a view style a whole row; tests
 * read the same text a person sees.
 */
#include "config.h"

#include <stdarg.h>

#include "napkin-text-row.h"

struct _NapkinTextRow
{
  GObject  parent_instance;

  GStrv    cells;
  guint    n_cells;
  char    *mark;
};

G_DEFINE_FINAL_TYPE (NapkinTextRow, napkin_text_row, G_TYPE_OBJECT)

static void
napkin_text_row_finalize (GObject *object)
{
  NapkinTextRow *self = NAPKIN_TEXT_ROW (object);

  g_clear_pointer (&self->cells, g_strfreev);
  g_clear_pointer (&self->mark, g_free);

  G_OBJECT_CLASS (napkin_text_row_parent_class)->finalize (object);
}

static void
napkin_text_row_class_init (NapkinTextRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = napkin_text_row_finalize;
}

static void
napkin_text_row_init (NapkinTextRow *self)
{
}

/**
 * napkin_text_row_new_take:
 * @mark: (nullable): a word a view may style the row by, e.g. "flushed"
 * @cells: (transfer full): the cells' text, %NULL-terminated
 *
 * Returns: (transfer full): a new row owning @cells
 */
NapkinTextRow *
napkin_text_row_new_take (const char *mark,
                          GStrv       cells)
{
  NapkinTextRow *self = g_object_new (NAPKIN_TYPE_TEXT_ROW, NULL);

  g_return_val_if_fail (cells != NULL, self);

  self->cells = cells;
  self->n_cells = g_strv_length (cells);
  self->mark = g_strdup (mark != NULL ? mark : "");
  return self;
}

/**
 * napkin_text_row_new:
 * @mark: (nullable): a word a view may style the row by
 * @first_cell: the first cell's text
 * @...: the other cells' text, then %NULL
 *
 * Returns: (transfer full): a new row
 */
NapkinTextRow *
napkin_text_row_new (const char *mark,
                     const char *first_cell,
                     ...)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  va_list args;

  va_start (args, first_cell);
  for (const char *cell = first_cell; cell != NULL; cell = va_arg (args, const char *))
    g_strv_builder_add (builder, cell);
  va_end (args);
  return napkin_text_row_new_take (mark, g_strv_builder_end (builder));
}

/**
 * napkin_text_row_get_n_cells:
 * @self: a row
 *
 * Returns: how many cells it has
 */
guint
napkin_text_row_get_n_cells (NapkinTextRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_TEXT_ROW (self), 0);
  return self->n_cells;
}

/**
 * napkin_text_row_get_cell:
 * @self: a row
 * @column: a cell's index
 *
 * Returns: (transfer none): the cell's text; "" past the last cell
 */
const char *
napkin_text_row_get_cell (NapkinTextRow *self,
                          guint          column)
{
  g_return_val_if_fail (NAPKIN_IS_TEXT_ROW (self), "");
  return column < self->n_cells ? self->cells[column] : "";
}

/**
 * napkin_text_row_get_mark:
 * @self: a row
 *
 * Returns: (transfer none): its mark, "" for none
 */
const char *
napkin_text_row_get_mark (NapkinTextRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_TEXT_ROW (self), "");
  return self->mark;
}

/**
 * napkin_text_row_dup_text:
 * @self: a row
 *
 * Returns: (transfer full): the cells joined by " | ", as tests read a row
 */
char *
napkin_text_row_dup_text (NapkinTextRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_TEXT_ROW (self), NULL);
  return g_strjoinv (" | ", self->cells);
}
