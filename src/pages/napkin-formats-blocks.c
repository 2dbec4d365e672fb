/* napkin-formats-blocks.c: the Number formats page's Blocks section
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A vector quantized to a block-scaled format: typed or pasted, or read from a
 * float .npy or from one tensor of a safetensors checkpoint (the GPT's own
 * weights), with the format, the MX scale rule and the rounding picked here.
 * nk_quantize() does all of it; napkin-block-view writes its answers as the two
 * tables (one row per block, one per element of the first blocks) and the
 * summary. A vector of more than SYNC_LIMIT values is quantized on a worker
 * thread (a frozen copy of the inputs, cancelled when they change), so a large
 * tensor never freezes the page; the tables show its first blocks.
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n.h>

#include "napkin-block-view.h"
#include "napkin-file-chooser.h"
#include "napkin-formats-blocks.h"
#include "napkin-text-table.h"

#define SYNC_LIMIT 65536
#define STOCHASTIC_SEED 0

struct _NapkinFormatsBlocks
{
  GtkWidget        parent_instance;

  /* the input */
  char            *values_text;
  GArray          *values;          /* doubles; NULL when the input is bad */
  guint64          total_values;    /* in the source, before it was cut */
  char            *source_label;    /* NULL: typed */
  char            *checkpoint_path;
  NkBlockFormat    format;
  NkMxScaleRule    rule;
  gboolean         stochastic;
  gboolean         syncing;         /* widgets being set from the state */

  /* the output */
  char            *error;
  NkQuantization  *quantization;
  char            *summary;
  GCancellable    *cancellable;

  GtkWidget       *box;
  AdwEntryRow     *values_row;
  AdwComboRow     *format_row;
  AdwComboRow     *rule_row;
  AdwComboRow     *rounding_row;
  AdwActionRow    *source_row;
  AdwComboRow     *tensor_row;
  GtkLabel        *error_label;
  GtkLabel        *summary_label;
  NapkinTextTable *block_table;
  NapkinTextTable *element_table;
};

G_DEFINE_FINAL_TYPE (NapkinFormatsBlocks, napkin_formats_blocks, GTK_TYPE_WIDGET)

static void
show_error (NapkinFormatsBlocks *self,
            const char          *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_label (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->values_row), GTK_ACCESSIBLE_STATE_INVALID,
                               message != NULL ? GTK_ACCESSIBLE_INVALID_TRUE
                                               : GTK_ACCESSIBLE_INVALID_FALSE, -1);
  if (message != NULL && self->source_label == NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->values_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->values_row), "error");
}

static void
show_quantization (NapkinFormatsBlocks *self,
                   NkQuantization      *q)
{
  g_autoptr(GListModel) blocks = NULL, elements = NULL;

  g_clear_pointer (&self->quantization, nk_quantization_unref);
  g_clear_pointer (&self->summary, g_free);
  if (q != NULL)
    {
      self->quantization = nk_quantization_ref (q);
      blocks = napkin_block_view_block_rows (q);
      elements = napkin_block_view_element_rows (q);
      self->summary = napkin_block_view_summary (q, self->total_values);
    }
  napkin_text_table_set_model (self->block_table, blocks);
  napkin_text_table_set_model (self->element_table, elements);
  gtk_label_set_label (self->summary_label, self->summary != NULL ? self->summary : "");
  gtk_widget_set_visible (GTK_WIDGET (self->summary_label), self->summary != NULL);
}

typedef struct {
  NkBlockFormat  format;
  NkMxScaleRule  rule;
  gboolean       stochastic;
  GArray        *values;
} Job;

static void
job_free (Job *job)
{
  g_array_unref (job->values);
  g_free (job);
}

static NkQuantization *
run_job (const Job  *job,
         GError    **error)
{
  g_autoptr(NkRng) rng = job->stochastic ? nk_rng_new (STOCHASTIC_SEED) : NULL;

  return nk_quantize (job->format, (const double *) job->values->data, job->values->len,
                      nk_block_format_info (job->format)->default_block, job->rule,
                      job->stochastic ? NK_ROUNDING_MODE_STOCHASTIC
                                      : NK_ROUNDING_MODE_NEAREST_EVEN,
                      rng, error);
}

static void
job_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  GError *error = NULL;
  NkQuantization *q = run_job (task_data, &error);

  if (q == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, q, (GDestroyNotify) nk_quantization_unref);
}

static void
job_done (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(NapkinFormatsBlocks) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkQuantization) q = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_task_get_cancellable (G_TASK (result)) != self->cancellable ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->cancellable);
  show_error (self, error != NULL ? error->message : NULL);
  show_quantization (self, q);
}

static void
recompute (NapkinFormatsBlocks *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkQuantization) q = NULL;
  Job *job;

  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
    }
  if (self->values == NULL)
    {
      show_quantization (self, NULL);
      return;
    }

  job = g_new0 (Job, 1);
  *job = (Job) { self->format, self->rule, self->stochastic, g_array_ref (self->values) };
  if (self->values->len <= SYNC_LIMIT)
    {
      q = run_job (job, &error);
      job_free (job);
      show_error (self, error != NULL ? error->message : NULL);
      show_quantization (self, q);
      return;
    }

  /* Large: the tables keep their last rows until the new ones are ready. */
  self->cancellable = g_cancellable_new ();
  {
    g_autoptr(GTask) task = g_task_new (NULL, self->cancellable, job_done, g_object_ref (self));

    g_task_set_task_data (task, job, (GDestroyNotify) job_free);
    g_task_run_in_thread (task, job_thread);
  }
}

static void
set_source (NapkinFormatsBlocks *self,
            GArray              *values,
            guint64              total,
            const char          *label)
{
  g_clear_pointer (&self->values, g_array_unref);
  self->values = values;
  self->total_values = total;
  g_free (self->source_label);
  self->source_label = g_strdup (label);
  if (label != NULL)
    {
      /* Translators: a file (and tensor) name and how many values it holds */
      g_autofree char *subtitle = g_strdup_printf (_("In use: %s, %" PRIu64 " values"),
                                                   label, total);

      adw_action_row_set_subtitle (self->source_row, subtitle);
    }
  else
    adw_action_row_set_subtitle (self->source_row, _("In use: the values typed above"));
}

static void
parse_values (NapkinFormatsBlocks *self)
{
  g_autoptr(GError) error = NULL;
  GArray *values = NULL;

  if (!napkin_block_view_parse (self->values_text, &values, &error))
    {
      set_source (self, NULL, 0, NULL);
      show_error (self, error->message);
      return;
    }
  set_source (self, values, values->len, NULL);
  show_error (self, NULL);
}

static void
values_changed_cb (NapkinFormatsBlocks *self)
{
  if (self->syncing)
    return;
  napkin_formats_blocks_set_values_text (self,
                                         gtk_editable_get_text (GTK_EDITABLE (self->values_row)));
}

static void
combo_changed_cb (NapkinFormatsBlocks *self)
{
  if (self->syncing)
    return;
  self->format = adw_combo_row_get_selected (self->format_row);
  self->rule = adw_combo_row_get_selected (self->rule_row);
  self->stochastic = adw_combo_row_get_selected (self->rounding_row) == 1;
  /* NVFP4's scales are E4M3 numbers: the MX rule does not apply. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->rule_row), self->format != NK_BLOCK_FORMAT_NVFP4);
  recompute (self);
}

static void
sync_combos (NapkinFormatsBlocks *self)
{
  self->syncing = TRUE;
  adw_combo_row_set_selected (self->format_row, self->format);
  adw_combo_row_set_selected (self->rule_row, self->rule);
  adw_combo_row_set_selected (self->rounding_row, self->stochastic ? 1 : 0);
  self->syncing = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->rule_row), self->format != NK_BLOCK_FORMAT_NVFP4);
}

static void
tensor_changed_cb (NapkinFormatsBlocks *self)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (self->tensor_row);

  if (self->syncing || item == NULL)
    return;
  napkin_formats_blocks_choose_tensor (self, gtk_string_object_get_string (item));
}

static void
npy_chosen (GtkWidget *owner,
            GFile     *file,
            gpointer   user_data)
{
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    napkin_formats_blocks_load_npy (NAPKIN_FORMATS_BLOCKS (owner), path);
}

static void
checkpoint_chosen (GtkWidget *owner,
                   GFile     *file,
                   gpointer   user_data)
{
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    napkin_formats_blocks_open_checkpoint (NAPKIN_FORMATS_BLOCKS (owner), path);
}

static void
open_npy_cb (NapkinFormatsBlocks *self)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("NumPy arrays (.npy)"));
  gtk_file_filter_add_pattern (filter, "*.npy");
  napkin_choose_file (GTK_WIDGET (self), _("Open a Vector"), GTK_FILE_CHOOSER_ACTION_OPEN,
                      _("_Open"), NULL, filter, npy_chosen, NULL, NULL);
  g_object_unref (filter);
}

static void
open_checkpoint_cb (NapkinFormatsBlocks *self)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Checkpoints (.safetensors)"));
  gtk_file_filter_add_pattern (filter, "*.safetensors");
  napkin_choose_file (GTK_WIDGET (self), _("Open a Checkpoint"), GTK_FILE_CHOOSER_ACTION_OPEN,
                      _("_Open"), NULL, filter, checkpoint_chosen, NULL, NULL);
  g_object_unref (filter);
}

static GtkWidget *
make_label (const char *css)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  return label;
}

static AdwComboRow *
make_combo (const char         *title,
            const char * const *items)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  g_autoptr(GtkStringList) list = gtk_string_list_new (items);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  return row;
}

static GtkWidget *
make_button (const char *label,
             GCallback   callback,
             gpointer    self)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);
  g_autofree char *name = NULL;

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  name = g_strdup (label);
  /* The accessible name without the mnemonic's underscore. */
  for (char *p = name, *q = name; ; p++)
    if (*p != '_' && (*q++ = *p) == '\0')
      break;
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  g_signal_connect_swapped (button, "clicked", callback, self);
  return button;
}

static GtkWidget *
build_inputs (NapkinFormatsBlocks *self)
{
  const char *formats[NK_N_BLOCK_FORMATS + 1] = { NULL };
  const char *rules[] = { _("Floor (OCP v1.0)"), _("Up (NVIDIA’s recipe)"), NULL };
  const char *roundings[] = { _("Nearest, ties to even"), _("Stochastic (seed 0)"), NULL };
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  for (guint f = 0; f < NK_N_BLOCK_FORMATS; f++)
    formats[f] = nk_block_format_info (f)->title;

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");

  self->values_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->values_row), _("Values"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->values_row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Values"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Numbers separated by commas or spaces"), -1);
  gtk_widget_add_css_class (GTK_WIDGET (self->values_row), "monospace");
  g_signal_connect_swapped (self->values_row, "changed", G_CALLBACK (values_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->values_row));

  self->format_row = make_combo (_("Block Format"), formats);
  self->rule_row = make_combo (_("MX Scale Rule"), rules);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->rule_row),
                               _("Floor may clip the largest value; up never clips"));
  self->rounding_row = make_combo (_("Element Rounding"), roundings);
  g_signal_connect_swapped (self->format_row, "notify::selected", G_CALLBACK (combo_changed_cb), self);
  g_signal_connect_swapped (self->rule_row, "notify::selected", G_CALLBACK (combo_changed_cb), self);
  g_signal_connect_swapped (self->rounding_row, "notify::selected", G_CALLBACK (combo_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->format_row));
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->rule_row));
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->rounding_row));

  self->source_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->source_row), _("Or Load a Vector"));
  gtk_box_append (GTK_BOX (buttons), make_button (_("_Array…"), G_CALLBACK (open_npy_cb), self));
  gtk_box_append (GTK_BOX (buttons), make_button (_("_Checkpoint…"), G_CALLBACK (open_checkpoint_cb), self));
  gtk_widget_set_valign (buttons, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (self->source_row, buttons);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->source_row));

  self->tensor_row = make_combo (_("Tensor"), (const char *[]) { NULL });
  gtk_widget_set_visible (GTK_WIDGET (self->tensor_row), FALSE);
  g_signal_connect_swapped (self->tensor_row, "notify::selected", G_CALLBACK (tensor_changed_cb), self);
  gtk_list_box_append (GTK_LIST_BOX (list), GTK_WIDGET (self->tensor_row));
  return list;
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *label = make_label ("heading");

  gtk_label_set_label (GTK_LABEL (label), text);
  return label;
}

static void
napkin_formats_blocks_dispose (GObject *object)
{
  NapkinFormatsBlocks *self = NAPKIN_FORMATS_BLOCKS (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (napkin_formats_blocks_parent_class)->dispose (object);
}

static void
napkin_formats_blocks_finalize (GObject *object)
{
  NapkinFormatsBlocks *self = NAPKIN_FORMATS_BLOCKS (object);

  g_clear_pointer (&self->values_text, g_free);
  g_clear_pointer (&self->values, g_array_unref);
  g_clear_pointer (&self->source_label, g_free);
  g_clear_pointer (&self->checkpoint_path, g_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->quantization, nk_quantization_unref);
  g_clear_pointer (&self->summary, g_free);

  G_OBJECT_CLASS (napkin_formats_blocks_parent_class)->finalize (object);
}

static void
napkin_formats_blocks_class_init (NapkinFormatsBlocksClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_formats_blocks_dispose;
  object_class->finalize = napkin_formats_blocks_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "formatsblocks");
}

static void
napkin_formats_blocks_init (NapkinFormatsBlocks *self)
{
  GtkBox *box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 12));

  self->box = GTK_WIDGET (box);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_box_append (box, build_inputs (self));

  self->error_label = GTK_LABEL (make_label ("error"));
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_box_append (box, GTK_WIDGET (self->error_label));
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->values_row),
                                  GTK_ACCESSIBLE_RELATION_ERROR_MESSAGE, self->error_label, -1);
  self->summary_label = GTK_LABEL (make_label (NULL));
  gtk_box_append (box, GTK_WIDGET (self->summary_label));

  gtk_box_append (box, heading (_("Blocks: each one’s scale and the largest value that set it")));
  self->block_table = NAPKIN_TEXT_TABLE (napkin_text_table_new (napkin_block_view_block_titles (),
                                                                _("Blocks")));
  gtk_box_append (box, GTK_WIDGET (self->block_table));
  gtk_box_append (box, heading (_("Elements of the first blocks")));
  self->element_table = NAPKIN_TEXT_TABLE (napkin_text_table_new (napkin_block_view_element_titles (),
                                                                  _("Elements")));
  napkin_text_table_set_expand_column (self->element_table, NAPKIN_ELEMENT_COLUMN_WHY);
  gtk_box_append (box, GTK_WIDGET (self->element_table));

  sync_combos (self);
  napkin_formats_blocks_set_values_text (self, "1, 2, 448, 0.001, 500, 1e-5, -3.25, 0.3");
}

/**
 * napkin_formats_blocks_new:
 *
 * Returns: (transfer full): a new Blocks section
 */
GtkWidget *
napkin_formats_blocks_new (void)
{
  return g_object_new (NAPKIN_TYPE_FORMATS_BLOCKS, NULL);
}

/**
 * napkin_formats_blocks_set_values_text:
 * @self: the section
 * @text: numbers separated by commas or spaces
 *
 * Makes the typed @text the vector quantized.
 */
void
napkin_formats_blocks_set_values_text (NapkinFormatsBlocks *self,
                                       const char          *text)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self));

  if (text == NULL)
    text = "";
  if (g_strcmp0 (self->values_text, text) == 0 && self->source_label == NULL)
    return;
  g_free (self->values_text);
  self->values_text = g_strdup (text);
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->values_row)), text) != 0)
    {
      self->syncing = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->values_row), text);
      self->syncing = FALSE;
    }
  parse_values (self);
  recompute (self);
}

/**
 * napkin_formats_blocks_get_values_text:
 * @self: the section
 *
 * Returns: the typed values
 */
const char *
napkin_formats_blocks_get_values_text (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), NULL);
  return self->values_text;
}

/**
 * napkin_formats_blocks_set_format:
 * @self: the section
 * @format: a block format
 *
 * Quantizes to @format.
 */
void
napkin_formats_blocks_set_format (NapkinFormatsBlocks *self,
                                  NkBlockFormat        format)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self));
  g_return_if_fail ((guint) format < NK_N_BLOCK_FORMATS);
  adw_combo_row_set_selected (self->format_row, format);
}

/**
 * napkin_formats_blocks_set_scale_rule:
 * @self: the section
 * @rule: how MX scales are picked
 *
 * Uses @rule for the MX formats' scales.
 */
void
napkin_formats_blocks_set_scale_rule (NapkinFormatsBlocks *self,
                                      NkMxScaleRule        rule)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self));
  adw_combo_row_set_selected (self->rule_row, rule);
}

/**
 * napkin_formats_blocks_set_stochastic:
 * @self: the section
 * @stochastic: %TRUE to round elements stochastically (seed 0), %FALSE to nearest
 *
 * Sets how the elements are rounded.
 */
void
napkin_formats_blocks_set_stochastic (NapkinFormatsBlocks *self,
                                      gboolean             stochastic)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self));
  adw_combo_row_set_selected (self->rounding_row, stochastic ? 1 : 0);
}

/**
 * napkin_formats_blocks_load_npy:
 * @self: the section
 * @path: a float32 or float64 .npy file
 *
 * Quantizes the array in @path (its first %NAPKIN_BLOCK_VIEW_MAX_VALUES values),
 * or shows why it cannot be read.
 *
 * Returns: whether it was read
 */
gboolean
napkin_formats_blocks_load_npy (NapkinFormatsBlocks *self,
                                const char          *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base = g_path_get_basename (path);
  GArray *values = NULL;
  guint64 total = 0;

  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), FALSE);

  gtk_widget_set_visible (GTK_WIDGET (self->tensor_row), FALSE);
  if (!napkin_block_view_read_npy (path, &values, &total, &error))
    {
      show_error (self, error->message);
      return FALSE;
    }
  set_source (self, values, total, base);
  show_error (self, NULL);
  recompute (self);
  return TRUE;
}

/**
 * napkin_formats_blocks_open_checkpoint:
 * @self: the section
 * @path: a .safetensors file
 *
 * Lists @path's floating-point tensors in the Tensor row and quantizes the first.
 *
 * Returns: whether the file was read
 */
gboolean
napkin_formats_blocks_open_checkpoint (NapkinFormatsBlocks *self,
                                       const char          *path)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  g_autoptr(GtkStringList) list = NULL;

  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), FALSE);

  names = napkin_block_view_list_tensors (path, &error);
  if (names == NULL)
    {
      show_error (self, error->message);
      return FALSE;
    }
  g_free (self->checkpoint_path);
  self->checkpoint_path = g_strdup (path);
  list = gtk_string_list_new ((const char * const *) names);
  self->syncing = TRUE;
  adw_combo_row_set_model (self->tensor_row, G_LIST_MODEL (list));
  adw_combo_row_set_selected (self->tensor_row, 0);
  self->syncing = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->tensor_row), TRUE);
  return napkin_formats_blocks_choose_tensor (self, names[0]);
}

/**
 * napkin_formats_blocks_choose_tensor:
 * @self: the section
 * @name: a tensor of the open checkpoint
 *
 * Quantizes tensor @name of the checkpoint opened last.
 *
 * Returns: whether it was read
 */
gboolean
napkin_formats_blocks_choose_tensor (NapkinFormatsBlocks *self,
                                     const char          *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *base = NULL, *label = NULL;
  GArray *values = NULL;
  guint64 total = 0;

  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), FALSE);
  g_return_val_if_fail (self->checkpoint_path != NULL, FALSE);

  if (!napkin_block_view_read_tensor (self->checkpoint_path, name, &values, &total, &error))
    {
      show_error (self, error->message);
      return FALSE;
    }
  base = g_path_get_basename (self->checkpoint_path);
  label = g_strdup_printf ("%s: %s", base, name);
  set_source (self, values, total, label);
  show_error (self, NULL);
  recompute (self);
  return TRUE;
}

/**
 * napkin_formats_blocks_get_quantization:
 * @self: the section
 *
 * Returns: (transfer none) (nullable): what is shown; %NULL on bad input
 */
NkQuantization *
napkin_formats_blocks_get_quantization (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), NULL);
  return self->quantization;
}

/**
 * napkin_formats_blocks_get_block_rows:
 * @self: the section
 *
 * Returns: (transfer none) (nullable): the block table's rows
 */
GListModel *
napkin_formats_blocks_get_block_rows (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), NULL);
  return napkin_text_table_get_model (self->block_table);
}

/**
 * napkin_formats_blocks_get_element_rows:
 * @self: the section
 *
 * Returns: (transfer none) (nullable): the element table's rows
 */
GListModel *
napkin_formats_blocks_get_element_rows (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), NULL);
  return napkin_text_table_get_model (self->element_table);
}

/**
 * napkin_formats_blocks_get_summary:
 * @self: the section
 *
 * Returns: (nullable): the summary shown
 */
const char *
napkin_formats_blocks_get_summary (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), NULL);
  return self->summary;
}

/**
 * napkin_formats_blocks_get_error:
 * @self: the section
 *
 * Returns: (nullable): the sentence shown for bad input or an unreadable file
 */
const char *
napkin_formats_blocks_get_error (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), NULL);
  return self->error;
}

/**
 * napkin_formats_blocks_get_busy:
 * @self: the section
 *
 * Returns: whether a large vector is being quantized on a worker thread
 */
gboolean
napkin_formats_blocks_get_busy (NapkinFormatsBlocks *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_BLOCKS (self), FALSE);
  return self->cancellable != NULL;
}
