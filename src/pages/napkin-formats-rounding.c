/* napkin-formats-rounding.c: the Number formats page's Rounding section
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two demonstrations of stochastic rounding, both computed by
 * napkin-rounding-demo from nk_dtype_round_with_mode():
 * one value rounded ROUNDS times into a chosen format, drawn as the two bars of
 * its neighbours with the value and the mean of the results; and the running
 * sum 1 + 1 + ... kept in bf16 (or f16), which stalls under nearest-even and
 * keeps growing under stochastic rounding, drawn beside the exact sum.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-formats-rounding.h"
#include "napkin-neighbour-plot.h"
#include "napkin-sum-plot.h"

#define ROUNDS 10000
#define SEED 0

static const NkDType value_dtypes[] = {
  NK_DTYPE_BF16, NK_DTYPE_F16, NK_DTYPE_E4M3, NK_DTYPE_E5M2,
  NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1,
};
static const NkDType sum_dtypes[] = { NK_DTYPE_BF16, NK_DTYPE_F16 };
static const guint step_counts[] = { 1024, 4096 };

struct _NapkinFormatsRounding
{
  GtkWidget              parent_instance;

  char                  *value_text;
  NkDType                dtype;
  NkDType                sum_dtype;
  guint                  n_steps;
  gboolean               counts_known;
  NapkinStochasticCounts counts;
  char                  *error;
  NapkinSeries          *exact;
  NapkinSeries          *nearest;
  NapkinSeries          *stochastic;

  GtkWidget             *box;
  AdwEntryRow           *value_row;
  AdwComboRow           *dtype_row;
  AdwComboRow           *sum_dtype_row;
  AdwComboRow           *steps_row;
  GtkLabel              *error_label;
  GtkLabel              *counts_label;
  NapkinNeighbourPlot   *histogram;
  NapkinSumPlot         *sum_plot;
  gboolean               syncing;
};

G_DEFINE_FINAL_TYPE (NapkinFormatsRounding, napkin_formats_rounding, GTK_TYPE_WIDGET)

static void
update_counts (NapkinFormatsRounding *self)
{
  g_autoptr(GError) error = NULL;
  NkDTypeItem item;
  const char *name = nk_dtype_info (self->dtype)->cli_name;

  g_clear_pointer (&self->error, g_free);
  self->counts_known = FALSE;
  if (!nk_dtype_parse_item (NK_DTYPE_F64, self->value_text, &item, &error))
    self->error = g_strdup (error->message);
  else if (item.is_bits || !isfinite (item.value))
    self->error = g_strdup (_("Type a finite number, such as 0.3 or 1e-3."));
  else
    self->counts_known = napkin_rounding_stochastic_counts (self->dtype, item.value, ROUNDS,
                                                            SEED, &self->counts);

  gtk_label_set_label (self->error_label, self->error != NULL ? self->error : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), self->error != NULL);
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->value_row), GTK_ACCESSIBLE_STATE_INVALID,
                               self->error != NULL ? GTK_ACCESSIBLE_INVALID_TRUE
                                                   : GTK_ACCESSIBLE_INVALID_FALSE, -1);
  if (self->error != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->value_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->value_row), "error");
  napkin_neighbour_plot_set_counts (self->histogram, self->counts_known ? &self->counts : NULL,
                                    name);
}

static void
update_sums (NapkinFormatsRounding *self)
{
  napkin_rounding_running_sum (NK_DTYPE_F64, 1.0, self->n_steps, NK_ROUNDING_MODE_NEAREST_EVEN,
                               SEED, self->exact);
  napkin_rounding_running_sum (self->sum_dtype, 1.0, self->n_steps,
                               NK_ROUNDING_MODE_NEAREST_EVEN, SEED, self->nearest);
  napkin_rounding_running_sum (self->sum_dtype, 1.0, self->n_steps,
                               NK_ROUNDING_MODE_STOCHASTIC, SEED, self->stochastic);
  napkin_sum_plot_set_series (self->sum_plot, self->exact, self->nearest, self->stochastic,
                              nk_dtype_info (self->sum_dtype)->cli_name);
}

static void
value_changed_cb (NapkinFormatsRounding *self)
{
  if (!self->syncing)
    napkin_formats_rounding_set_value_text (self,
                                            gtk_editable_get_text (GTK_EDITABLE (self->value_row)));
}

static void
combo_changed_cb (NapkinFormatsRounding *self)
{
  if (self->syncing)
    return;
  self->dtype = value_dtypes[adw_combo_row_get_selected (self->dtype_row)];
  update_counts (self);
}

static void
sum_combo_changed_cb (NapkinFormatsRounding *self)
{
  if (self->syncing)
    return;
  self->sum_dtype = sum_dtypes[adw_combo_row_get_selected (self->sum_dtype_row)];
  self->n_steps = step_counts[adw_combo_row_get_selected (self->steps_row)];
  update_sums (self);
}

static AdwComboRow *
make_combo (const char  *title,
            GtkStringList *list,
            GCallback    callback,
            gpointer     self)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  g_signal_connect_swapped (row, "notify::selected", callback, self);
  g_object_unref (list);
  return row;
}

static GtkStringList *
dtype_names (const NkDType *dtypes,
             guint          n)
{
  GtkStringList *list = gtk_string_list_new (NULL);

  for (guint i = 0; i < n; i++)
    gtk_string_list_append (list, nk_dtype_info (dtypes[i])->cli_name);
  return list;
}

static GtkWidget *
boxed_list (void)
{
  GtkWidget *list = gtk_list_box_new ();

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  return list;
}

static GtkWidget *
caption (const char *text,
         const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  return label;
}

static GtkWidget *
in_card (GtkWidget *child)
{
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_widget_add_css_class (card, "card");
  gtk_widget_add_css_class (card, "plot-card");
  gtk_widget_set_margin_start (child, 8);
  gtk_widget_set_margin_end (child, 8);
  gtk_widget_set_margin_top (child, 8);
  gtk_widget_set_margin_bottom (child, 8);
  gtk_box_append (GTK_BOX (card), child);
  return card;
}

static void
build (NapkinFormatsRounding *self)
{
  GtkBox *box = GTK_BOX (self->box);
  GtkWidget *list = boxed_list (), *sum_list = boxed_list ();
  GtkStringList *steps = gtk_string_list_new (NULL);
  g_autofree char *intro = NULL;

  /* Translators: %d is how many times the value is rounded */
  intro = g_strdup_printf (_("One value rounded %d times, stochastically: the result is "
                             "always one of its two neighbours, the nearer one more often, "
                             "so the mean comes back to the value."), ROUNDS);
  gtk_box_append (box, caption (intro, "dim-label"));

  self->value_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->value_row), _("Value to Round"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->value_row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Value to Round"), -1);
  gtk_widget_add_css_class (GTK_WIDGET (self->value_row), "monospace");
  g_signal_connect_swapped (self->value_row, "changed", G_CALLBACK (value_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->value_row));
  self->dtype_row = make_combo (_("Round Into"), dtype_names (value_dtypes, G_N_ELEMENTS (value_dtypes)),
                                G_CALLBACK (combo_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->dtype_row));
  gtk_box_append (box, list);

  self->error_label = GTK_LABEL (caption (NULL, "error"));
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->value_row),
                                  GTK_ACCESSIBLE_RELATION_ERROR_MESSAGE, self->error_label, -1);
  gtk_box_append (box, GTK_WIDGET (self->error_label));
  self->histogram = NAPKIN_NEIGHBOUR_PLOT (napkin_neighbour_plot_new ());
  gtk_box_append (box, in_card (GTK_WIDGET (self->histogram)));

  gtk_box_append (box, caption (_("A running sum of 1 + 1 + … kept in a 16-bit format. In "
                                  "bf16 from 256 on the next value is 258: 256 + 1 is a tie, "
                                  "and nearest-even keeps 256 for ever. Stochastic rounding "
                                  "goes up half the time and keeps pace with the exact sum."),
                                "dim-label"));
  self->sum_dtype_row = make_combo (_("Sum Kept In"), dtype_names (sum_dtypes, G_N_ELEMENTS (sum_dtypes)),
                                    G_CALLBACK (sum_combo_changed_cb), self);
  for (guint i = 0; i < G_N_ELEMENTS (step_counts); i++)
    {
      g_autofree char *text = g_strdup_printf ("%u", step_counts[i]);

      gtk_string_list_append (steps, text);
    }
  self->steps_row = make_combo (_("Additions"), steps, G_CALLBACK (sum_combo_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (sum_list), GTK_WIDGET (self->sum_dtype_row));
  gtk_list_box_append (GTK_LIST_BOX (sum_list), GTK_WIDGET (self->steps_row));
  gtk_box_append (box, sum_list);
  self->sum_plot = NAPKIN_SUM_PLOT (napkin_sum_plot_new ());
  gtk_box_append (box, in_card (GTK_WIDGET (self->sum_plot)));
}

static void
napkin_formats_rounding_dispose (GObject *object)
{
  NapkinFormatsRounding *self = NAPKIN_FORMATS_ROUNDING (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (napkin_formats_rounding_parent_class)->dispose (object);
}

static void
napkin_formats_rounding_finalize (GObject *object)
{
  NapkinFormatsRounding *self = NAPKIN_FORMATS_ROUNDING (object);

  g_clear_pointer (&self->value_text, g_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_object (&self->exact);
  g_clear_object (&self->nearest);
  g_clear_object (&self->stochastic);

  G_OBJECT_CLASS (napkin_formats_rounding_parent_class)->finalize (object);
}

static void
napkin_formats_rounding_class_init (NapkinFormatsRoundingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_formats_rounding_dispose;
  object_class->finalize = napkin_formats_rounding_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "formatsrounding");
}

static void
napkin_formats_rounding_init (NapkinFormatsRounding *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  self->exact = napkin_series_new ();
  self->nearest = napkin_series_new ();
  self->stochastic = napkin_series_new ();
  self->dtype = value_dtypes[0];
  self->sum_dtype = sum_dtypes[0];
  self->n_steps = step_counts[0];
  build (self);
  update_sums (self);
  napkin_formats_rounding_set_value_text (self, "1.003");
}

/**
 * napkin_formats_rounding_new:
 *
 * Returns: (transfer full): a new Rounding section
 */
GtkWidget *
napkin_formats_rounding_new (void)
{
  return g_object_new (NAPKIN_TYPE_FORMATS_ROUNDING, NULL);
}

/**
 * napkin_formats_rounding_set_value_text:
 * @self: the section
 * @text: the value to round, as typed
 *
 * Rounds @text's value many times into the chosen format.
 */
void
napkin_formats_rounding_set_value_text (NapkinFormatsRounding *self,
                                        const char            *text)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self));

  if (text == NULL)
    text = "";
  if (g_strcmp0 (self->value_text, text) == 0)
    return;
  g_free (self->value_text);
  self->value_text = g_strdup (text);
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->value_row)), text) != 0)
    {
      self->syncing = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->value_row), text);
      self->syncing = FALSE;
    }
  update_counts (self);
}

static gboolean
select_dtype (AdwComboRow   *row,
              const NkDType *dtypes,
              guint          n,
              NkDType        dtype)
{
  for (guint i = 0; i < n; i++)
    if (dtypes[i] == dtype)
      {
        adw_combo_row_set_selected (row, i);
        return TRUE;
      }
  return FALSE;
}

/**
 * napkin_formats_rounding_set_dtype:
 * @self: the section
 * @dtype: the format the value is rounded into
 *
 * Returns: whether the section offers @dtype
 */
gboolean
napkin_formats_rounding_set_dtype (NapkinFormatsRounding *self,
                                   NkDType                dtype)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), FALSE);
  return select_dtype (self->dtype_row, value_dtypes, G_N_ELEMENTS (value_dtypes), dtype);
}

/**
 * napkin_formats_rounding_set_sum_dtype:
 * @self: the section
 * @dtype: the format the running sum is kept in
 *
 * Returns: whether the section offers @dtype
 */
gboolean
napkin_formats_rounding_set_sum_dtype (NapkinFormatsRounding *self,
                                       NkDType                dtype)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), FALSE);
  return select_dtype (self->sum_dtype_row, sum_dtypes, G_N_ELEMENTS (sum_dtypes), dtype);
}

/**
 * napkin_formats_rounding_set_n_steps:
 * @self: the section
 * @n_steps: one of the offered counts of additions (1024, 4096)
 *
 * Sets how many additions the running sum makes.
 */
void
napkin_formats_rounding_set_n_steps (NapkinFormatsRounding *self,
                                     guint                  n_steps)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self));
  for (guint i = 0; i < G_N_ELEMENTS (step_counts); i++)
    if (step_counts[i] == n_steps)
      adw_combo_row_set_selected (self->steps_row, i);
}

/**
 * napkin_formats_rounding_get_counts:
 * @self: the section
 *
 * Returns: (nullable): the counts drawn, %NULL when the value is bad
 */
const NapkinStochasticCounts *
napkin_formats_rounding_get_counts (NapkinFormatsRounding *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), NULL);
  return self->counts_known ? &self->counts : NULL;
}

/**
 * napkin_formats_rounding_get_sum:
 * @self: the section
 * @mode: %NK_ROUNDING_MODE_NEAREST_EVEN or %NK_ROUNDING_MODE_STOCHASTIC; any
 *   other mode gives the exact sum
 *
 * Returns: (transfer none): the running sum drawn for @mode
 */
NapkinSeries *
napkin_formats_rounding_get_sum (NapkinFormatsRounding *self,
                                 NkRoundingMode         mode)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), NULL);
  return mode == NK_ROUNDING_MODE_NEAREST_EVEN ? self->nearest
       : mode == NK_ROUNDING_MODE_STOCHASTIC ? self->stochastic : self->exact;
}

/**
 * napkin_formats_rounding_get_sum_plot:
 * @self: the section
 *
 * Returns: (transfer none): the running-sum plot
 */
GtkWidget *
napkin_formats_rounding_get_sum_plot (NapkinFormatsRounding *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), NULL);
  return GTK_WIDGET (self->sum_plot);
}

/**
 * napkin_formats_rounding_get_histogram:
 * @self: the section
 *
 * Returns: (transfer none): the two-bar histogram
 */
GtkWidget *
napkin_formats_rounding_get_histogram (NapkinFormatsRounding *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), NULL);
  return GTK_WIDGET (self->histogram);
}

/**
 * napkin_formats_rounding_get_error:
 * @self: the section
 *
 * Returns: (nullable): the sentence shown for a bad value
 */
const char *
napkin_formats_rounding_get_error (NapkinFormatsRounding *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_ROUNDING (self), NULL);
  return self->error;
}
