/* napkin-formats-table.c: the Number formats page's all-values table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every code of a format of up to eight bits, with its value and class: the fp8
 * formats (OCP's and AMD's fnuz), the MX elements and the E8M0 scale. The rows
 * are napkin_format_values_new()'s; a GtkColumnView shows them, one Tab stop,
 * the arrows move between rows.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-format-values.h"
#include "napkin-formats-table.h"
#include "napkin-text-table.h"

static const NkDType table_dtypes[] = {
  NK_DTYPE_E4M3, NK_DTYPE_E5M2, NK_DTYPE_E4M3FNUZ, NK_DTYPE_E5M2FNUZ,
  NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1, NK_DTYPE_E8M0,
};

struct _NapkinFormatsTable
{
  GtkWidget        parent_instance;

  NkDType          dtype;
  GtkWidget       *box;
  AdwComboRow     *dtype_row;
  GtkLabel        *count_label;
  NapkinTextTable *table;
};

G_DEFINE_FINAL_TYPE (NapkinFormatsTable, napkin_formats_table, GTK_TYPE_WIDGET)

static void
show_dtype (NapkinFormatsTable *self)
{
  g_autoptr(GListModel) rows = napkin_format_values_new (self->dtype);
  const NkDTypeInfo *info = nk_dtype_info (self->dtype);
  g_autofree char *count = NULL;

  /* Translators: a format's name, its width in bits and how many codes that makes */
  count = g_strdup_printf (_("%s has %u bits: %u codes."), info->cli_name, info->bits,
                           g_list_model_get_n_items (rows));
  gtk_label_set_label (self->count_label, count);
  napkin_text_table_set_model (self->table, rows);
}

static void
dtype_changed_cb (NapkinFormatsTable *self)
{
  self->dtype = table_dtypes[adw_combo_row_get_selected (self->dtype_row)];
  show_dtype (self);
}

static void
napkin_formats_table_dispose (GObject *object)
{
  NapkinFormatsTable *self = NAPKIN_FORMATS_TABLE (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (napkin_formats_table_parent_class)->dispose (object);
}

static void
napkin_formats_table_class_init (NapkinFormatsTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_formats_table_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "formatstable");
}

static void
napkin_formats_table_init (NapkinFormatsTable *self)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  GtkWidget *list = gtk_list_box_new ();
  const char *title = _("Format");

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  for (guint i = 0; i < G_N_ELEMENTS (table_dtypes); i++)
    gtk_string_list_append (names, nk_dtype_info (table_dtypes[i])->cli_name);
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  self->dtype_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->dtype_row), title);
  adw_combo_row_set_model (self->dtype_row, G_LIST_MODEL (names));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->dtype_row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  g_signal_connect_swapped (self->dtype_row, "notify::selected", G_CALLBACK (dtype_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->dtype_row));
  gtk_box_append (GTK_BOX (self->box), list);

  self->count_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->count_label, 0);
  gtk_label_set_wrap (self->count_label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->count_label), "dim-label");
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->count_label));

  self->table = NAPKIN_TEXT_TABLE (napkin_text_table_new (napkin_format_values_titles (),
                                                          _("Every value of the format")));
  napkin_text_table_set_expand_column (self->table, NAPKIN_VALUES_COLUMN_VALUE);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->table));

  self->dtype = table_dtypes[0];
  show_dtype (self);
}

/**
 * napkin_formats_table_new:
 *
 * Returns: (transfer full): a new all-values table
 */
GtkWidget *
napkin_formats_table_new (void)
{
  return g_object_new (NAPKIN_TYPE_FORMATS_TABLE, NULL);
}

/**
 * napkin_formats_table_set_dtype:
 * @self: the table
 * @dtype: a format of at most eight bits
 *
 * Returns: whether the table offers @dtype
 */
gboolean
napkin_formats_table_set_dtype (NapkinFormatsTable *self,
                                NkDType             dtype)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_TABLE (self), FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (table_dtypes); i++)
    if (table_dtypes[i] == dtype)
      {
        adw_combo_row_set_selected (self->dtype_row, i);
        return TRUE;
      }
  return FALSE;
}

/**
 * napkin_formats_table_get_dtype:
 * @self: the table
 *
 * Returns: the format listed
 */
NkDType
napkin_formats_table_get_dtype (NapkinFormatsTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_TABLE (self), NK_DTYPE_E4M3);
  return self->dtype;
}

/**
 * napkin_formats_table_get_rows:
 * @self: the table
 *
 * Returns: (transfer none): the rows shown
 */
GListModel *
napkin_formats_table_get_rows (NapkinFormatsTable *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_TABLE (self), NULL);
  return napkin_text_table_get_model (self->table);
}
