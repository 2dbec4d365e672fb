/* napkin-gpt-accounting.c: the Planner's formulas against a GPT, term by term
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two tables for a GPT run. Activations: each tensor the Planner's formula
 * (Korthikanti et al. 2022 on one GPU) counts beside what the GPT's graph keeps
 * (nk_train_config_activation_terms()), with the sentence that says why a row
 * differs. FLOPs: PaLM's count, the closed form of the ops and what the ops
 * counted in the last step, by kind (nk_train_config_flops_terms(),
 * nk_train_metrics_get_flop_kinds()). The engine answers; this formats.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "napkin-gpt-accounting.h"
#include "nk-units.h"

#define N_COLUMNS 4
#define ACT_ROWS (NK_ACT_N_TERMS + 1)          /* terms, total */
#define FLOP_OTHER NK_N_FLOP_KINDS
#define FLOP_ROWS (NK_N_FLOP_KINDS + 2)        /* kinds, other, total */

struct _NapkinGptAccounting
{
  GtkWidget  parent_instance;

  GtkWidget *box;
  GtkLabel  *act[ACT_ROWS][N_COLUMNS];
  GtkLabel  *act_why[ACT_ROWS];
  GtkLabel  *flops[FLOP_ROWS][N_COLUMNS];
  GtkLabel  *flops_why[FLOP_ROWS];
  GtkLabel  *verdict;
};

G_DEFINE_FINAL_TYPE (NapkinGptAccounting, napkin_gpt_accounting, GTK_TYPE_WIDGET)

static const struct {
  const char *name;
  const char *why;
} flop_rows[FLOP_ROWS] = {
  [NK_FLOP_KIND_LINEAR] = {
    N_("Linear layers"),
    N_("PaLM’s 6·N a token counts every parameter but the positions; biases and LayerNorm weights are added, not multiplied, so the ops count 6·(13·L·d + 2·d) a token less.") },
  [NK_FLOP_KIND_ATTENTION] = {
    N_("Attention products"),
    N_("q·kᵀ and att·v, 12·L·T·d a token in PaLM’s count and in the ops: the causal mask does not halve the product.") },
  [NK_FLOP_KIND_NORM] = {
    N_("LayerNorm"),
    N_("8 an element forward and 13 backward, for 2·L + 1 LayerNorms. Formulas of the 6·N kind leave element-wise work out.") },
  [NK_FLOP_KIND_ACTIVATION] = {
    N_("GELU"),
    N_("1 an element forward and 1 backward, on the MLP’s 4·d columns.") },
  [NK_FLOP_KIND_SOFTMAX] = {
    N_("Causal softmax"),
    N_("6 forward and 5 backward for each score the mask leaves visible, T·(T + 1)/2 a head.") },
  [NK_FLOP_KIND_EMBEDDING] = {
    N_("Embedding"),
    N_("The gather is free; backward adds each token’s gradient row into its table row, 1 an element.") },
  [FLOP_OTHER] = {
    N_("Other element-wise work"),
    N_("Residual adds, bias gradients, the positions’ gradient, the loss and casts: counted in the total, no closed form here.") },
  [FLOP_OTHER + 1] = {
    N_("Total"),
    NULL },
};

GtkWidget *
napkin_gpt_accounting_new (void)
{
  return g_object_new (NAPKIN_TYPE_GPT_ACCOUNTING, NULL);
}

static void
set_cell (GtkLabel *label,
          char     *text)
{
  gtk_label_set_label (label, text != NULL ? text : "—");
  g_free (text);
}

static char *
format_bytes (double bytes)
{
  return isfinite (bytes) ? nk_units_format_bytes (bytes) : NULL;
}

static char *
format_flops (double flops)
{
  return isfinite (flops) ? nk_units_format_sci (flops, 4) : NULL;
}

/* GPT − Planner: "same", or the signed gap */
static char *
format_difference (double planner,
                   double stored)
{
  g_autofree char *size = NULL;

  if (fabs (stored - planner) < 0.5)
    return g_strdup (_("same"));
  size = nk_units_format_bytes (fabs (stored - planner));
  return g_strdup_printf ("%s%s", stored > planner ? "+" : "−", size);
}

/**
 * napkin_gpt_accounting_set_config:
 * @self: the tables
 * @config: (nullable): a GPT run's config; %NULL or another model empties them
 *
 * Fills the formula columns (the counted one waits for
 * napkin_gpt_accounting_set_counted()).
 */
void
napkin_gpt_accounting_set_config (NapkinGptAccounting *self,
                                  const NkTrainConfig *config)
{
  double planner[NK_ACT_N_TERMS], stored[NK_ACT_N_TERMS], palm[NK_N_FLOP_KINDS], ops[NK_N_FLOP_KINDS];
  double total_planner = 0, total_stored = 0, total_palm = 0, total_ops = 0;
  gboolean gpt;

  g_return_if_fail (NAPKIN_IS_GPT_ACCOUNTING (self));

  gpt = config != NULL && nk_train_config_activation_terms (config, planner, stored)
        && nk_train_config_flops_terms (config, palm, ops);
  for (guint t = 0; t < NK_ACT_N_TERMS; t++)
    {
      /* a term neither side has in this precision (autocast's copies in fp32) */
      gboolean shown = gpt && (planner[t] > 0 || stored[t] > 0);

      gtk_widget_set_visible (GTK_WIDGET (self->act[t][0]), shown);
      gtk_widget_set_visible (GTK_WIDGET (self->act_why[t]), shown);
      for (guint c = 1; c < N_COLUMNS; c++)
        gtk_widget_set_visible (GTK_WIDGET (self->act[t][c]), shown);
      set_cell (self->act[t][1], gpt ? format_bytes (planner[t]) : NULL);
      set_cell (self->act[t][2], gpt ? format_bytes (stored[t]) : NULL);
      set_cell (self->act[t][3], gpt ? format_difference (planner[t], stored[t]) : NULL);
      total_planner += gpt ? planner[t] : 0;
      total_stored += gpt ? stored[t] : 0;
    }
  set_cell (self->act[NK_ACT_N_TERMS][1], gpt ? format_bytes (total_planner) : NULL);
  set_cell (self->act[NK_ACT_N_TERMS][2], gpt ? format_bytes (total_stored) : NULL);
  set_cell (self->act[NK_ACT_N_TERMS][3], gpt ? format_difference (total_planner, total_stored) : NULL);
  if (gpt)
    {
      double gap = 100 * (total_planner / total_stored - 1);
      g_autofree char *verdict =
        /* Translators: %s%.1f is a signed percentage, "−4.1" */
        g_strdup_printf (_("The Planner’s total is %s%.1f %% off the GPT’s (Planner ÷ GPT − 1); the activation bucket the run measures is the GPT’s total to the byte."),
                         gap < 0 ? "−" : "+", fabs (gap));

      gtk_label_set_label (self->verdict, verdict);
    }
  else
    gtk_label_set_label (self->verdict, "");

  for (guint k = 0; k < NK_N_FLOP_KINDS; k++)
    {
      set_cell (self->flops[k][1], gpt ? format_flops (palm[k]) : NULL);
      set_cell (self->flops[k][2], gpt ? format_flops (ops[k]) : NULL);
      total_palm += gpt && isfinite (palm[k]) ? palm[k] : 0;
      total_ops += gpt ? ops[k] : 0;
    }
  set_cell (self->flops[FLOP_OTHER][1], NULL);
  set_cell (self->flops[FLOP_OTHER][2], NULL);
  set_cell (self->flops[FLOP_OTHER + 1][1], gpt ? format_flops (total_palm) : NULL);
  set_cell (self->flops[FLOP_OTHER + 1][2], gpt ? format_flops (total_ops) : NULL);
  napkin_gpt_accounting_set_counted (self, NULL);
}

/**
 * napkin_gpt_accounting_set_counted:
 * @self: the tables
 * @metrics: (nullable): the last step's metrics; %NULL shows "—"
 */
void
napkin_gpt_accounting_set_counted (NapkinGptAccounting  *self,
                                   const NkTrainMetrics *metrics)
{
  double kinds[NK_N_FLOP_KINDS], other = NAN;
  /* every GPT step runs LayerNorms: none counted means a run written before the
   * element-wise kinds were recorded, whose split is unknown */
  gboolean split = metrics != NULL && metrics->flops_norm > 0;

  g_return_if_fail (NAPKIN_IS_GPT_ACCOUNTING (self));

  if (metrics != NULL && metrics->flops > 0)
    other = nk_train_metrics_get_flop_kinds (metrics, kinds);
  for (guint k = 0; k < NK_N_FLOP_KINDS; k++)
    set_cell (self->flops[k][3], isfinite (other) && (split || k <= NK_FLOP_KIND_ATTENTION)
                                 ? format_flops (kinds[k]) : NULL);
  set_cell (self->flops[FLOP_OTHER][3], isfinite (other) && split ? format_flops (other) : NULL);
  set_cell (self->flops[FLOP_OTHER + 1][3], isfinite (other) ? format_flops ((double) metrics->flops) : NULL);
}

/**
 * napkin_gpt_accounting_get_cell:
 * @self: the tables
 * @table: which table
 * @row: a row (see #NapkinGptAccountingTable)
 * @column: a column
 *
 * Returns: the cell's text, for tests
 */
const char *
napkin_gpt_accounting_get_cell (NapkinGptAccounting      *self,
                                NapkinGptAccountingTable  table,
                                guint                     row,
                                guint                     column)
{
  g_return_val_if_fail (NAPKIN_IS_GPT_ACCOUNTING (self), NULL);
  g_return_val_if_fail (column < N_COLUMNS, NULL);
  if (table == NAPKIN_GPT_ACCOUNTING_ACTIVATIONS)
    {
      g_return_val_if_fail (row < ACT_ROWS, NULL);
      return gtk_label_get_label (self->act[row][column]);
    }
  g_return_val_if_fail (row < FLOP_ROWS, NULL);
  return gtk_label_get_label (self->flops[row][column]);
}

static GtkLabel *
cell (const char *text,
      gboolean    name)
{
  GtkLabel *label = GTK_LABEL (gtk_label_new (text));

  gtk_label_set_xalign (label, name ? 0 : 1);
  gtk_widget_set_valign (GTK_WIDGET (label), GTK_ALIGN_START);
  if (!name)
    gtk_widget_add_css_class (GTK_WIDGET (label), "numeric");
  gtk_widget_set_hexpand (GTK_WIDGET (label), name);
  return label;
}

static GtkLabel *
caption (const char *text)
{
  GtkLabel *label = GTK_LABEL (gtk_label_new (text));

  gtk_label_set_xalign (label, 0);
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_wrap_mode (label, PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (label), "caption");
  return label;
}

/* A table: a header row, then each row's cells with its sentence below its
 * name (spanning the columns), so long reasons wrap and the numbers stay in line. */
static GtkGrid *
table (const char *const  headers[N_COLUMNS],
       guint              n_rows,
       GtkLabel          *cells[][N_COLUMNS],
       GtkLabel          *why[],
       const char *const  names[],
       const char *const  whys[])
{
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  gtk_grid_set_column_spacing (grid, 18);
  gtk_grid_set_row_spacing (grid, 2);
  for (guint c = 0; c < N_COLUMNS; c++)
    {
      GtkLabel *header = cell (headers[c], c == 0);

      gtk_widget_add_css_class (GTK_WIDGET (header), "heading");
      gtk_widget_set_margin_bottom (GTK_WIDGET (header), 4);
      gtk_grid_attach (grid, GTK_WIDGET (header), (int) c, 0, 1, 1);
    }
  for (guint r = 0; r < n_rows; r++)
    {
      for (guint c = 0; c < N_COLUMNS; c++)
        {
          cells[r][c] = cell (c == 0 ? names[r] : "—", c == 0);
          gtk_widget_set_margin_top (GTK_WIDGET (cells[r][c]), 6);
          if (r == n_rows - 1)
            gtk_widget_add_css_class (GTK_WIDGET (cells[r][c]), "heading");
          gtk_grid_attach (grid, GTK_WIDGET (cells[r][c]), (int) c, (int) (1 + 2 * r), 1, 1);
        }
      why[r] = caption (whys[r] != NULL ? whys[r] : "");
      gtk_widget_set_visible (GTK_WIDGET (why[r]), whys[r] != NULL);
      gtk_grid_attach (grid, GTK_WIDGET (why[r]), 0, (int) (2 + 2 * r), N_COLUMNS, 1);
    }
  return grid;
}

static void
napkin_gpt_accounting_dispose (GObject *object)
{
  NapkinGptAccounting *self = NAPKIN_GPT_ACCOUNTING (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (napkin_gpt_accounting_parent_class)->dispose (object);
}

static void
napkin_gpt_accounting_class_init (NapkinGptAccountingClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = napkin_gpt_accounting_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "gptaccounting");
}

static void
napkin_gpt_accounting_init (NapkinGptAccounting *self)
{
  const char *act_headers[N_COLUMNS] = {
    _("Activations, term by term"), _("Planner"), _("Napkin’s GPT"), _("Difference"),
  };
  const char *flop_headers[N_COLUMNS] = {
    _("FLOPs per step, by kind"), _("PaLM’s formula"), _("The ops, closed form"), _("Counted, last step"),
  };
  const char *act_names[ACT_ROWS], *act_whys[ACT_ROWS];
  const char *flop_names[FLOP_ROWS], *flop_whys[FLOP_ROWS];
  GtkBox *box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 18));

  for (guint t = 0; t < NK_ACT_N_TERMS; t++)
    {
      act_names[t] = nk_act_term_name (t);
      act_whys[t] = nk_act_term_why (t);
    }
  act_names[NK_ACT_N_TERMS] = _("Total");
  act_whys[NK_ACT_N_TERMS] = NULL;
  for (guint k = 0; k < FLOP_ROWS; k++)
    {
      flop_names[k] = _(flop_rows[k].name);
      flop_whys[k] = flop_rows[k].why != NULL ? _(flop_rows[k].why) : NULL;
    }

  self->box = GTK_WIDGET (box);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_box_append (box, GTK_WIDGET (table (act_headers, ACT_ROWS, self->act, self->act_why,
                                          act_names, act_whys)));
  self->verdict = caption ("");
  gtk_widget_remove_css_class (GTK_WIDGET (self->verdict), "caption");
  gtk_box_append (box, GTK_WIDGET (self->verdict));
  gtk_box_append (box, GTK_WIDGET (table (flop_headers, FLOP_ROWS, self->flops, self->flops_why,
                                          flop_names, flop_whys)));
  napkin_gpt_accounting_set_config (self, NULL);
}
