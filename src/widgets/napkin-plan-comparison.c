/* napkin-plan-comparison.c: a plan's prediction beside a run's measurement, quantity by quantity
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A table of step time, tokens per second, MFU and the most loaded GPU's memory:
 * predicted, measured, measured / predicted, and a sentence naming the largest
 * gap. It shows an #NkImportComparison (nk_import_compare()) and decides nothing.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "napkin-plan-comparison.h"
#include "nk-units.h"

#define N_COLUMNS 4   /* quantity, predicted, measured, ratio */

struct _NapkinPlanComparison
{
  GtkWidget  parent_instance;

  GtkWidget *grid;
  GtkLabel  *cells[NK_IMPORT_N_QUANTITIES][N_COLUMNS];
  GtkLabel  *verdict;
};

G_DEFINE_FINAL_TYPE (NapkinPlanComparison, napkin_plan_comparison, GTK_TYPE_WIDGET)

static const char *const quantity_labels[NK_IMPORT_N_QUANTITIES] = {
  [NK_IMPORT_Q_SECONDS] = N_("Step time"),
  [NK_IMPORT_Q_TOKENS_PER_S] = N_("Tokens per second"),
  [NK_IMPORT_Q_MFU] = N_("MFU"),
  [NK_IMPORT_Q_MEMORY] = N_("Memory of the most loaded GPU"),
  [NK_IMPORT_Q_FLOPS] = N_("FLOP/s per GPU"),
};

GtkWidget *
napkin_plan_comparison_new (void)
{
  return g_object_new (NAPKIN_TYPE_PLAN_COMPARISON, NULL);
}

static char *
format_value (NkImportQuantity quantity,
              double           value)
{
  if (!isfinite (value))
    return g_strdup ("—");
  switch (quantity)
    {
    case NK_IMPORT_Q_SECONDS: return nk_units_format_duration (value);
    case NK_IMPORT_Q_TOKENS_PER_S: return nk_units_format_sci (value, 3);
    case NK_IMPORT_Q_MFU: return g_strdup_printf ("%.1f %%", 100 * value);
    case NK_IMPORT_Q_FLOPS: return nk_units_format_rate (value);
    case NK_IMPORT_Q_MEMORY:
    default: return nk_units_format_bytes (value);
    }
}

/**
 * napkin_plan_comparison_set:
 * @self: the table
 * @comparison: (nullable): what to show; %NULL empties it
 */
void
napkin_plan_comparison_set (NapkinPlanComparison     *self,
                            const NkImportComparison *comparison)
{
  g_autofree char *verdict = NULL;

  g_return_if_fail (NAPKIN_IS_PLAN_COMPARISON (self));

  for (guint q = 0; q < NK_IMPORT_N_QUANTITIES; q++)
    {
      g_autofree char *predicted = format_value (q, comparison ? comparison->predicted[q] : NAN);
      g_autofree char *measured = format_value (q, comparison ? comparison->measured[q] : NAN);
      g_autofree char *ratio = comparison && isfinite (comparison->ratio[q])
                               ? g_strdup_printf ("%.2f×", comparison->ratio[q]) : g_strdup ("—");
      gboolean largest = comparison != NULL && comparison->largest == (int) q;

      gtk_label_set_label (self->cells[q][1], predicted);
      gtk_label_set_label (self->cells[q][2], measured);
      gtk_label_set_label (self->cells[q][3], ratio);
      for (guint c = 0; c < N_COLUMNS; c++)
        if (largest)
          gtk_widget_add_css_class (GTK_WIDGET (self->cells[q][c]), "heading");
        else
          gtk_widget_remove_css_class (GTK_WIDGET (self->cells[q][c]), "heading");
    }
  {
    g_autofree char *mfu = comparison != NULL && g_strcmp0 (comparison->mfu_count, "model") != 0
                           /* Translators: %s is an engine: torchtitan, nanogpt, llmc */
                           ? g_strdup_printf (_("MFU on %s’s FLOP count"), comparison->mfu_count)
                           : g_strdup (_(quantity_labels[NK_IMPORT_Q_MFU]));

    gtk_label_set_label (self->cells[NK_IMPORT_Q_MFU][0], mfu);
  }
  if (comparison == NULL || comparison->largest < 0)
    verdict = g_strdup (_("Nothing to compare: the run and the plan share no quantity."));
  else
    verdict = g_strdup_printf (_("The largest gap: %s, measured %.2f× the plan."),
                               _(quantity_labels[comparison->largest]),
                               comparison->ratio[comparison->largest]);
  gtk_label_set_label (self->verdict, verdict);
}

/**
 * napkin_plan_comparison_get_cell:
 * @self: the table
 * @quantity: a row
 * @column: 1 predicted, 2 measured, 3 measured / predicted (0: the row's name)
 *
 * Returns: the cell's text, for tests
 */
const char *
napkin_plan_comparison_get_cell (NapkinPlanComparison *self,
                                 NkImportQuantity      quantity,
                                 guint                 column)
{
  g_return_val_if_fail (NAPKIN_IS_PLAN_COMPARISON (self), NULL);
  g_return_val_if_fail (quantity < NK_IMPORT_N_QUANTITIES && column < N_COLUMNS, NULL);
  return gtk_label_get_label (self->cells[quantity][column]);
}

const char *
napkin_plan_comparison_get_verdict (NapkinPlanComparison *self)
{
  g_return_val_if_fail (NAPKIN_IS_PLAN_COMPARISON (self), NULL);
  return gtk_label_get_label (self->verdict);
}

static GtkLabel *
cell (const char *text,
      float       xalign)
{
  GtkLabel *label = GTK_LABEL (gtk_label_new (text));

  gtk_label_set_xalign (label, xalign);
  /* on a phone a name breaks between its words and a figure before its unit
   * ("510.3 / TFLOP/s"); where there is room each keeps to one line */
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_justify (label, xalign > 0.5 ? GTK_JUSTIFY_RIGHT : GTK_JUSTIFY_LEFT);
  gtk_widget_add_css_class (GTK_WIDGET (label), "numeric");
  return label;
}

static void
napkin_plan_comparison_dispose (GObject *object)
{
  NapkinPlanComparison *self = NAPKIN_PLAN_COMPARISON (object);

  g_clear_pointer (&self->grid, gtk_widget_unparent);
  G_OBJECT_CLASS (napkin_plan_comparison_parent_class)->dispose (object);
}

static void
napkin_plan_comparison_class_init (NapkinPlanComparisonClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = napkin_plan_comparison_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "plancomparison");
}

static void
napkin_plan_comparison_init (NapkinPlanComparison *self)
{
  static const char *const headers[N_COLUMNS] = {
    "", N_("Planned"), N_("Measured"), N_("Measured / planned"),
  };
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  self->grid = GTK_WIDGET (grid);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_grid_set_row_spacing (grid, 6);
  gtk_widget_set_parent (self->grid, GTK_WIDGET (self));
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      GtkLabel *header = cell (c > 0 ? _(headers[c]) : "", c > 0 ? 1 : 0);

      gtk_widget_add_css_class (GTK_WIDGET (header), "dim-label");
      gtk_grid_attach (grid, GTK_WIDGET (header), (int) c, 0, 1, 1);
    }
  for (guint q = 0; q < NK_IMPORT_N_QUANTITIES; q++)
    for (guint c = 0; c < N_COLUMNS; c++)
      {
        self->cells[q][c] = cell (c == 0 ? _(quantity_labels[q]) : "—", c > 0 ? 1 : 0);
        gtk_widget_set_hexpand (GTK_WIDGET (self->cells[q][c]), c == 0);
        gtk_grid_attach (grid, GTK_WIDGET (self->cells[q][c]), (int) c, (int) q + 1, 1, 1);
      }
  self->verdict = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->verdict, 0);
  gtk_label_set_wrap (self->verdict, TRUE);
  gtk_widget_set_margin_top (GTK_WIDGET (self->verdict), 6);
  gtk_grid_attach (grid, GTK_WIDGET (self->verdict), 0, NK_IMPORT_N_QUANTITIES + 1, N_COLUMNS, 1);
  napkin_plan_comparison_set (self, NULL);
}
