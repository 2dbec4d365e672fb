/* napkin-text-table.c: a list model of text rows shown as a table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkColumnView over a #GListModel of #NapkinTextRow: column i shows cell i,
 * and each cell carries its row's mark as a style class, so "flushed" and
 * "clipped" rows stand out. Lists are recycled, so a table of thousands of rows
 * costs only the rows on screen. The view is one Tab stop; the arrows move
 * between rows. It scrolls inside a bounded height so the page around it still
 * scrolls as a whole.
 */
#include "config.h"

#include "napkin-text-row.h"
#include "napkin-text-table.h"

struct _NapkinTextTable
{
  GtkWidget          parent_instance;

  GtkScrolledWindow *scroller;
  GtkColumnView     *view;
  GtkNoSelection    *selection;
};

G_DEFINE_FINAL_TYPE (NapkinTextTable, napkin_text_table, GTK_TYPE_WIDGET)

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         gpointer                  user_data)
{
  guint column = GPOINTER_TO_UINT (user_data);
  NapkinTextRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  const char *mark = napkin_text_row_get_mark (row);
  const char *old_mark = g_object_get_data (G_OBJECT (label), "napkin-mark");

  gtk_label_set_label (GTK_LABEL (label), napkin_text_row_get_cell (row, column));
  if (old_mark != NULL && *old_mark != '\0')
    gtk_widget_remove_css_class (label, old_mark);
  if (*mark != '\0')
    {
      /* a class name of its own, so a mark never collides with GTK's classes */
      g_autofree char *css = g_strconcat ("mark-", mark, NULL);

      gtk_widget_add_css_class (label, css);
      g_object_set_data_full (G_OBJECT (label), "napkin-mark", g_steal_pointer (&css), g_free);
    }
  else
    g_object_set_data (G_OBJECT (label), "napkin-mark", NULL);
}

static void
napkin_text_table_dispose (GObject *object)
{
  NapkinTextTable *self = NAPKIN_TEXT_TABLE (object);

  g_clear_pointer ((GtkWidget **) &self->scroller, gtk_widget_unparent);
  g_clear_object (&self->selection);

  G_OBJECT_CLASS (napkin_text_table_parent_class)->dispose (object);
}

static void
napkin_text_table_class_init (NapkinTextTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_text_table_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "texttable");
}

static void
napkin_text_table_init (NapkinTextTable *self)
{
  self->selection = gtk_no_selection_new (NULL);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (g_object_ref (GTK_SELECTION_MODEL (self->selection))));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->view), "data-table");
  self->scroller = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  gtk_scrolled_window_set_child (self->scroller, GTK_WIDGET (self->view));
  gtk_scrolled_window_set_min_content_height (self->scroller, 120);
  gtk_scrolled_window_set_max_content_height (self->scroller, 360);
  gtk_scrolled_window_set_propagate_natural_height (self->scroller, TRUE);
  gtk_scrolled_window_set_has_frame (self->scroller, TRUE);
  gtk_widget_set_parent (GTK_WIDGET (self->scroller), GTK_WIDGET (self));
}

/**
 * napkin_text_table_new:
 * @titles: (array zero-terminated=1): the column titles
 * @accessible_label: what a screen reader calls the table
 *
 * Returns: (transfer full): a new, empty table
 */
GtkWidget *
napkin_text_table_new (const char *const *titles,
                       const char        *accessible_label)
{
  NapkinTextTable *self = g_object_new (NAPKIN_TYPE_TEXT_TABLE, NULL);

  for (guint i = 0; titles[i] != NULL; i++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), NULL);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), GUINT_TO_POINTER (i));
      column = gtk_column_view_column_new (titles[i], factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (self->view, column);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, accessible_label, -1);
  return GTK_WIDGET (self);
}

/**
 * napkin_text_table_set_model:
 * @self: a table
 * @model: (nullable): a #GListModel of #NapkinTextRow
 *
 * Shows @model's rows.
 */
void
napkin_text_table_set_model (NapkinTextTable *self,
                             GListModel      *model)
{
  g_return_if_fail (NAPKIN_IS_TEXT_TABLE (self));
  gtk_no_selection_set_model (self->selection, model);
}

/**
 * napkin_text_table_get_model:
 * @self: a table
 *
 * Returns: (transfer none) (nullable): the rows shown
 */
GListModel *
napkin_text_table_get_model (NapkinTextTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_TEXT_TABLE (self), NULL);
  return gtk_no_selection_get_model (self->selection);
}

/**
 * napkin_text_table_get_view:
 * @self: a table
 *
 * Returns: (transfer none): the column view
 */
GtkColumnView *
napkin_text_table_get_view (NapkinTextTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_TEXT_TABLE (self), NULL);
  return self->view;
}

/**
 * napkin_text_table_set_expand_column:
 * @self: a table
 * @column: the column that takes the width left over
 *
 * Lets @column (a long sentence, say) take the room the others leave.
 */
void
napkin_text_table_set_expand_column (NapkinTextTable *self,
                                     guint            column)
{
  g_autoptr(GtkColumnViewColumn) c = NULL;

  g_return_if_fail (NAPKIN_IS_TEXT_TABLE (self));
  c = g_list_model_get_item (gtk_column_view_get_columns (self->view), column);
  g_return_if_fail (c != NULL);
  gtk_column_view_column_set_expand (c, TRUE);
}
