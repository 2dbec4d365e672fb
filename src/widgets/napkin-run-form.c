/* napkin-run-form.c: the Training page's run settings, as one NkTrainConfig
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form's inputs make one #NkTrainConfig, its #NapkinRunForm:config property
 * (%NULL while an input is wrong). Each change validates the whole config with
 * the engine's nk_train_config_validate(), marks the row at fault and shows the
 * error inline, one sentence, in #NapkinRunForm:error. The combo rows list the
 * engine's own enums (#AdwEnumListModel over NK_TYPE_MODEL_KIND, NK_TYPE_OPTIMIZER,
 * NK_TYPE_PRECISION), shown by the names below. The inputs are kept in
 * typed GSettings keys bound with g_settings_bind()
 * (napkin_run_form_bind_settings()); the CUDA switch is not kept, since whether a
 * device is there is known afresh each time.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-units.h"
#include "napkin-file-chooser.h"
#include "napkin-page.h"
#include "napkin-run-form.h"

/* The worker histograms the chosen tensor this often (and at the first and last
 * step, and when the choice changes). */
#define HISTOGRAM_EVERY 10
/* A GPT writes a sample of its text this often (and after its last step). */
#define SAMPLE_EVERY 50

/* The names the combo rows show for the engine's values; the settings and the
 * CLI use the values' GEnum nicks ("tiny-lm", "adamw", "bf16-mixed"). */
typedef struct {
  int         value;
  const char *name;
} DisplayName;

static const DisplayName optimizer_display_names[] = {
  { NK_OPTIMIZER_SGD, N_("SGD") },
  { NK_OPTIMIZER_MOMENTUM, N_("SGD with momentum") },
  { NK_OPTIMIZER_ADAGRAD, N_("AdaGrad") },
  { NK_OPTIMIZER_RMSPROP, N_("RMSprop") },
  { NK_OPTIMIZER_ADAM, N_("Adam") },
  { NK_OPTIMIZER_ADAMW, N_("AdamW") },
};
static const DisplayName precision_display_names[] = {
  { NK_PRECISION_FP32, N_("fp32") },
  { NK_PRECISION_BF16_MIXED, N_("bf16 mixed") },
  { NK_PRECISION_FP16_MIXED, N_("fp16 with loss scaling") },
  { NK_PRECISION_MXFP8, N_("MXFP8 (GPT, emulated)") },
  { NK_PRECISION_NVFP4, N_("NVFP4 (GPT, emulated)") },
};

struct _NapkinRunForm
{
  GtkWidget      parent_instance;

  NkTrainConfig *config;
  char          *error;
  char          *text_file;
  char          *checkpoint_dir;
  gboolean       cuda_usable;
  GSettings     *settings;

  AdwPreferencesGroup *model_group;
  AdwComboRow   *model_row;
  NkModelKind    lr_model;      /* the model whose default learning rate the lr row may hold */
  GtkSpinButton *dim_spin;
  GtkSpinButton *layers_spin;
  AdwActionRow  *context_row;
  GtkSpinButton *context_spin;
  AdwActionRow  *heads_row;
  GtkSpinButton *heads_spin;
  AdwActionRow  *text_row;
  GtkSpinButton *batch_spin;
  GtkSpinButton *steps_spin;
  AdwEntryRow   *lr_row;
  AdwComboRow   *optimizer_row;
  AdwComboRow   *precision_row;
  AdwActionRow  *mx_scale_row;
  GtkSwitch     *mx_scale_switch;
  AdwActionRow  *nvfp4_sr_row;
  GtkSwitch     *nvfp4_sr_switch;
  GtkSpinButton *seed_spin;
  AdwActionRow  *cuda_row;
  GtkSwitch     *cuda_switch;
  AdwActionRow  *checkpoint_dir_row;
  GtkSpinButton *checkpoint_every_spin;
  GtkLabel      *form_error;
};

G_DEFINE_FINAL_TYPE (NapkinRunForm, napkin_run_form, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_CONFIG,
  PROP_ERROR,
  PROP_TEXT_FILE,
  PROP_CHECKPOINT_DIR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ------------------------------------------------------------ the choices */

static char *
display_name (GType              enum_type,
              const DisplayName *names,
              guint              n_names,
              int                value)
{
  for (guint i = 0; i < n_names; i++)
    if (names[i].value == value)
      return g_strdup (_(names[i].name));
  /* A value the engine has and this table lacks still shows, as the CLI spells it. */
  return g_strdup (nk_enum_to_nick (enum_type, value));
}

/* The combo rows' expressions (napkin-run-form.ui): an AdwEnumListItem's value,
 * named. */
static char *
model_display_name (AdwEnumListItem *item,
                    int              value,
                    gpointer         user_data)
{
  /* a model's name is its architecture's (nk-model-arch.h) */
  const NkModelArch *arch = nk_model_arch_lookup (value);

  return arch != NULL ? g_strdup (_(arch->title)) : display_name (NK_TYPE_MODEL_KIND, NULL, 0, value);
}

static char *
optimizer_display_name (AdwEnumListItem *item,
                        int              value,
                        gpointer         user_data)
{
  return display_name (NK_TYPE_OPTIMIZER, optimizer_display_names,
                       G_N_ELEMENTS (optimizer_display_names), value);
}

static char *
precision_display_name (AdwEnumListItem *item,
                        int              value,
                        gpointer         user_data)
{
  return display_name (NK_TYPE_PRECISION, precision_display_names,
                       G_N_ELEMENTS (precision_display_names), value);
}

/* ------------------------------------------------------------ the config */

/* The engine value a combo row has chosen (its model is an AdwEnumListModel). */
static int
selected_value (AdwComboRow *row)
{
  AdwEnumListItem *item = adw_combo_row_get_selected_item (row);

  return item != NULL ? adw_enum_list_item_get_value (item) : 0;
}

static void
select_value (AdwComboRow *row,
              int          value)
{
  AdwEnumListModel *model = ADW_ENUM_LIST_MODEL (adw_combo_row_get_model (row));

  adw_combo_row_set_selected (row, adw_enum_list_model_find_position (model, value));
}

/* The learning rate as typed. Whether a run can use it is the engine's rule alone
 * (nk_optimizer_check_lr()), in the words of a form rather than of the CLI's --lr. */
static gboolean
parse_lr (NapkinRunForm  *self,
          double         *out_lr,
          GError        **error)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->lr_row));
  g_autoptr(GError) local_error = NULL;

  if (!nk_units_parse (text, out_lr, &local_error))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The learning rate “%s” is not a number: %s"), text, local_error->message);
      return FALSE;
    }
  if (!nk_optimizer_check_lr (*out_lr, NULL, &local_error))
    {
      g_set_error_literal (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG, local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* The config the form describes, or NULL with one sentence naming the bad input
 * (and *out_bad set to the row to mark). */
static NkTrainConfig *
build_config (NapkinRunForm  *self,
              GtkWidget     **out_bad,
              GError        **error)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();

  *out_bad = NULL;
  c->model = selected_value (self->model_row);
  c->dim = (guint) gtk_spin_button_get_value_as_int (self->dim_spin);
  c->layers = (guint) gtk_spin_button_get_value_as_int (self->layers_spin);
  c->context = (guint) gtk_spin_button_get_value_as_int (self->context_spin);
  c->n_head = (guint) gtk_spin_button_get_value_as_int (self->heads_spin);
  c->batch = (guint) gtk_spin_button_get_value_as_int (self->batch_spin);
  c->steps = (guint64) gtk_spin_button_get_value (self->steps_spin);
  c->optimizer = selected_value (self->optimizer_row);
  c->precision = selected_value (self->precision_row);
  c->mx_scale = gtk_switch_get_active (self->mx_scale_switch) ? NK_MX_SCALE_UP : NK_MX_SCALE_FLOOR;
  c->nvfp4_nearest = !gtk_switch_get_active (self->nvfp4_sr_switch);
  c->seed = (guint64) gtk_spin_button_get_value (self->seed_spin);
  g_free (c->device);
  c->device = g_strdup (gtk_switch_get_active (self->cuda_switch) ? "cuda" : "cpu");
  c->checkpoint_every = (guint64) gtk_spin_button_get_value (self->checkpoint_every_spin);
  c->checkpoint_dir = g_strdup (self->checkpoint_dir);
  if (nk_model_arch_lookup (c->model)->input != NK_MODEL_INPUT_VECTORS)
    c->text_file = g_strdup (self->text_file);
  /* The trainer's ring is only a hand-over buffer (its default size): each run
   * keeps its whole history itself (NapkinRun). */
  c->histogram_every = HISTOGRAM_EVERY;
  if (nk_model_arch_lookup (c->model)->generate != NULL)
    c->sample_every = SAMPLE_EVERY;

  if (!parse_lr (self, &c->lr, error))
    {
      *out_bad = GTK_WIDGET (self->lr_row);
      return NULL;
    }
  if (gtk_switch_get_active (self->cuda_switch) && !self->cuda_usable)
    {
      *out_bad = GTK_WIDGET (self->cuda_row);
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("There is no usable CUDA device: %s"),
                   adw_action_row_get_subtitle (self->cuda_row));
      return NULL;
    }
  if (!nk_train_config_validate (c, error))
    return NULL;
  return g_steal_pointer (&c);
}

/* Red for the eye; the invalid state and the sentence for assistive technology,
 * on the row and on the text a person types into. */
static void
mark_row (GtkWidget  *row,
          gboolean    bad,
          const char *sentence)
{
  GtkAccessibleInvalidState state = bad ? GTK_ACCESSIBLE_INVALID_TRUE : GTK_ACCESSIBLE_INVALID_FALSE;

  if (bad)
    gtk_widget_add_css_class (row, "error");
  else
    gtk_widget_remove_css_class (row, "error");
  gtk_accessible_update_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_INVALID, state, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  bad && sentence != NULL ? sentence : "", -1);
  if (GTK_IS_EDITABLE (row) && gtk_editable_get_delegate (GTK_EDITABLE (row)) != NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (gtk_editable_get_delegate (GTK_EDITABLE (row))),
                                 GTK_ACCESSIBLE_STATE_INVALID, state, -1);
}

static void
validate (NapkinRunForm *self)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *bad = NULL;
  const NkModelArch *arch = nk_model_arch_lookup (selected_value (self->model_row));

  /* What the chosen model is, and the sizes and data it reads */
  adw_preferences_group_set_description (self->model_group, _(arch->description));
  gtk_widget_set_visible (GTK_WIDGET (self->context_row), (arch->fields & NK_MODEL_FIELD_CONTEXT) != 0);
  gtk_widget_set_visible (GTK_WIDGET (self->text_row), arch->input != NK_MODEL_INPUT_VECTORS);
  gtk_widget_set_visible (GTK_WIDGET (self->heads_row), (arch->fields & NK_MODEL_FIELD_HEADS) != 0);
  /* The block-scaled recipes' own choice, under the recipe that has it */
  gtk_widget_set_visible (GTK_WIDGET (self->mx_scale_row),
                          selected_value (self->precision_row) == NK_PRECISION_MXFP8);
  gtk_widget_set_visible (GTK_WIDGET (self->nvfp4_sr_row),
                          selected_value (self->precision_row) == NK_PRECISION_NVFP4);

  g_clear_pointer (&self->config, nk_train_config_free);
  self->config = build_config (self, &bad, &error);
  mark_row (GTK_WIDGET (self->lr_row), bad == GTK_WIDGET (self->lr_row),
            error != NULL ? error->message : NULL);
  mark_row (GTK_WIDGET (self->cuda_row), bad == GTK_WIDGET (self->cuda_row),
            error != NULL ? error->message : NULL);
  g_clear_pointer (&self->error, g_free);
  if (error != NULL)
    self->error = g_strdup (error->message);
  gtk_label_set_label (self->form_error, self->error != NULL ? self->error : "");
  gtk_widget_set_visible (GTK_WIDGET (self->form_error), self->error != NULL);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONFIG]);
}

/* A new model brings its own default learning rate, unless the person typed one:
 * the row keeps any rate but the old model's default. */
static void
model_changed (NapkinRunForm *self)
{
  NkModelKind old_model = self->lr_model;
  NkModelKind new_model = selected_value (self->model_row);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->lr_row));
  double lr;

  if (new_model == old_model)
    return;
  self->lr_model = new_model;
  if (nk_units_parse (text, &lr, NULL) && lr == nk_train_config_default_lr (old_model))
    {
      g_autofree char *rate = g_strdup_printf ("%g", nk_train_config_default_lr (new_model));

      gtk_editable_set_text (GTK_EDITABLE (self->lr_row), rate);
    }
}

/* ------------------------------------------------------------ paths */

static gboolean
set_path (NapkinRunForm  *self,
          char          **field,
          AdwActionRow   *row,
          const char     *path,
          const char     *none_text)
{
  g_autofree char *display = NULL;

  if (path != NULL && *path == '\0')
    path = NULL;
  display = path != NULL ? g_filename_display_name (path) : NULL;
  adw_action_row_set_subtitle (row, display != NULL ? display : none_text);
  if (g_strcmp0 (*field, path) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (path);
  validate (self);
  return TRUE;
}

/**
 * napkin_run_form_set_text_file:
 * @self: a run form
 * @path: (nullable): text or tokens for the tiny LM, or %NULL (or "") for the bundled text
 */
void
napkin_run_form_set_text_file (NapkinRunForm *self,
                               const char    *path)
{
  g_return_if_fail (NAPKIN_IS_RUN_FORM (self));
  if (set_path (self, &self->text_file, self->text_row, path, _("The bundled text")))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT_FILE]);
}

/**
 * napkin_run_form_set_checkpoint_dir:
 * @self: a run form
 * @path: (nullable): a folder, or %NULL (or "") for no checkpoints
 */
void
napkin_run_form_set_checkpoint_dir (NapkinRunForm *self,
                                    const char    *path)
{
  g_return_if_fail (NAPKIN_IS_RUN_FORM (self));
  if (set_path (self, &self->checkpoint_dir, self->checkpoint_dir_row, path, _("None: no checkpoints")))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKPOINT_DIR]);
}

const char *
napkin_run_form_get_text_file (NapkinRunForm *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_FORM (self), NULL);
  return self->text_file;
}

const char *
napkin_run_form_get_checkpoint_dir (NapkinRunForm *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_FORM (self), NULL);
  return self->checkpoint_dir;
}

static void
path_chosen (GtkWidget *widget,
             GFile     *file,
             gpointer   user_data)
{
  NapkinRunForm *self = NAPKIN_RUN_FORM (widget);
  GParamSpec *pspec = user_data;
  g_autofree char *path = g_file_get_path (file);

  /* The file choosers hand over a GFile; runs work with local paths. */
  if (path == NULL)
    napkin_page_add_toast (widget, adw_toast_new (_("Only files on this computer can be used")));
  else
    g_object_set (self, g_param_spec_get_name (pspec), path, NULL);
}

static void
choose_text_file_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Text or tokens (.txt, .npy, .bin)"));
  gtk_file_filter_add_mime_type (filter, "text/plain");
  gtk_file_filter_add_suffix (filter, "npy");
  gtk_file_filter_add_suffix (filter, "bin");
  gtk_file_filter_add_suffix (filter, "txt");
  napkin_choose_file (widget, _("Choose Text or Tokens"), GTK_FILE_CHOOSER_ACTION_OPEN,
                      _("_Open"), NULL, filter, path_chosen, properties[PROP_TEXT_FILE], NULL);
}

static void
choose_checkpoint_dir_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  napkin_choose_file (widget, _("Choose a Checkpoint Folder"), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                      _("_Select"), NULL, NULL, path_chosen, properties[PROP_CHECKPOINT_DIR], NULL);
}

static void
clear_text_file_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  napkin_run_form_set_text_file (NAPKIN_RUN_FORM (widget), NULL);
}

static void
clear_checkpoint_dir_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  napkin_run_form_set_checkpoint_dir (NAPKIN_RUN_FORM (widget), NULL);
}

/* ------------------------------------------------------------ settings */

/* A combo row's choice is kept by its value's GEnum nick ("adamw"); @user_data is
 * the row's AdwEnumListModel. */
static gboolean
choice_from_setting (GValue   *value,
                     GVariant *variant,
                     gpointer  user_data)
{
  AdwEnumListModel *model = user_data;
  int enum_value;
  guint position;

  if (!nk_enum_from_nick (adw_enum_list_model_get_enum_type (model),
                          g_variant_get_string (variant, NULL), &enum_value))
    return FALSE;
  position = adw_enum_list_model_find_position (model, enum_value);
  g_value_set_uint (value, position);
  return position != GTK_INVALID_LIST_POSITION;
}

static GVariant *
choice_to_setting (const GValue       *value,
                   const GVariantType *expected_type,
                   gpointer            user_data)
{
  g_autoptr(AdwEnumListItem) item = g_list_model_get_item (G_LIST_MODEL (user_data),
                                                          g_value_get_uint (value));

  return item != NULL ? g_variant_new_string (adw_enum_list_item_get_nick (item)) : NULL;
}

/* No path is kept as "". */
static GVariant *
path_to_setting (const GValue       *value,
                 const GVariantType *expected_type,
                 gpointer            user_data)
{
  const char *path = g_value_get_string (value);

  return g_variant_new_string (path != NULL ? path : "");
}

/**
 * napkin_run_form_bind_settings:
 * @self: a run form
 * @settings: (nullable): settings with the `training-*` keys, or %NULL to unbind
 *
 * Restores the form from @settings and keeps each input there as it changes.
 */
void
napkin_run_form_bind_settings (NapkinRunForm *self,
                               GSettings     *settings)
{
  static const struct { const char *key; gsize offset; } spins[] = {
    { "training-dim", G_STRUCT_OFFSET (NapkinRunForm, dim_spin) },
    { "training-layers", G_STRUCT_OFFSET (NapkinRunForm, layers_spin) },
    { "training-context", G_STRUCT_OFFSET (NapkinRunForm, context_spin) },
    { "training-n-head", G_STRUCT_OFFSET (NapkinRunForm, heads_spin) },
    { "training-batch", G_STRUCT_OFFSET (NapkinRunForm, batch_spin) },
    { "training-steps", G_STRUCT_OFFSET (NapkinRunForm, steps_spin) },
    { "training-seed", G_STRUCT_OFFSET (NapkinRunForm, seed_spin) },
    { "training-checkpoint-every", G_STRUCT_OFFSET (NapkinRunForm, checkpoint_every_spin) },
  };
  static const struct { const char *key; gsize offset; } combos[] = {
    { "training-model", G_STRUCT_OFFSET (NapkinRunForm, model_row) },
    { "training-optimizer", G_STRUCT_OFFSET (NapkinRunForm, optimizer_row) },
    { "training-precision", G_STRUCT_OFFSET (NapkinRunForm, precision_row) },
  };

  g_return_if_fail (NAPKIN_IS_RUN_FORM (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings != NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
        g_settings_unbind (G_STRUCT_MEMBER (gpointer, self, spins[i].offset), "value");
      for (guint i = 0; i < G_N_ELEMENTS (combos); i++)
        g_settings_unbind (G_STRUCT_MEMBER (gpointer, self, combos[i].offset), "selected");
      g_settings_unbind (self->lr_row, "text");
      g_settings_unbind (self->mx_scale_switch, "active");
      g_settings_unbind (self->nvfp4_sr_switch, "active");
      g_settings_unbind (self, "text-file");
      g_settings_unbind (self, "checkpoint-dir");
    }
  if (!g_set_object (&self->settings, settings) || settings == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    g_settings_bind (settings, spins[i].key, G_STRUCT_MEMBER (gpointer, self, spins[i].offset),
                     "value", G_SETTINGS_BIND_DEFAULT);
  for (guint i = 0; i < G_N_ELEMENTS (combos); i++)
    {
      AdwComboRow *row = G_STRUCT_MEMBER (AdwComboRow *, self, combos[i].offset);

      g_settings_bind_with_mapping (settings, combos[i].key, row, "selected",
                                    G_SETTINGS_BIND_DEFAULT, choice_from_setting, choice_to_setting,
                                    adw_combo_row_get_model (row), NULL);
    }
  g_settings_bind (settings, "training-lr", self->lr_row, "text", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "training-mx-scale-up", self->mx_scale_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "training-nvfp4-stochastic", self->nvfp4_sr_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "training-text-file", self, "text-file",
                                G_SETTINGS_BIND_DEFAULT, NULL, path_to_setting, NULL, NULL);
  g_settings_bind_with_mapping (settings, "training-checkpoint-dir", self, "checkpoint-dir",
                                G_SETTINGS_BIND_DEFAULT, NULL, path_to_setting, NULL, NULL);
}

/* ------------------------------------------------------------ CUDA */

/* The probe passes on CUDA's or the loader's own words ("CUDA driver version is
 * insufficient for CUDA runtime version"); a person reads what that means for
 * them. The words themselves stay in the row's tooltip. */
static char *
cuda_reason_sentence (const char *reason)
{
  static const struct {
    const char *contains;
    const char *sentence;
  } known[] = {
    { "driver version is insufficient", N_("The NVIDIA driver is missing, or older than the CUDA this build of Napkin uses.") },
    { "no CUDA-capable device", N_("There is no NVIDIA GPU in this computer.") },
    { "cannot open shared object", N_("The CUDA libraries are not installed.") },
  };

  if (reason == NULL || *reason == '\0')
    return g_strdup (_("No GPU can be used here."));
  if (strstr (reason, _("this build has no CUDA module")) != NULL)
    return g_strdup (_("This build of Napkin has no GPU support."));
  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (strstr (reason, known[i].contains) != NULL)
      return g_strdup (_(known[i].sentence));
  return g_strdup_printf (_("The GPU cannot be used: %s."), reason);
}

/**
 * napkin_run_form_set_cuda:
 * @self: a run form
 * @usable: whether a CUDA device can run
 * @description: (nullable): the device, or why there is none
 *
 * Says what the CUDA probe found; the switch only turns on where a device is.
 */
void
napkin_run_form_set_cuda (NapkinRunForm *self,
                          gboolean       usable,
                          const char    *description)
{
  g_return_if_fail (NAPKIN_IS_RUN_FORM (self));

  self->cuda_usable = usable;
  if (usable)
    {
      adw_action_row_set_subtitle (self->cuda_row, description != NULL ? description : "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->cuda_row), NULL);
    }
  else
    {
      g_autofree char *sentence = cuda_reason_sentence (description);

      adw_action_row_set_subtitle (self->cuda_row, sentence);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->cuda_row), description);
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->cuda_switch), usable);
  if (!usable)
    gtk_switch_set_active (self->cuda_switch, FALSE);
  validate (self);
}

/* ------------------------------------------------------------ GObject */

static void
napkin_run_form_dispose (GObject *object)
{
  NapkinRunForm *self = NAPKIN_RUN_FORM (object);
  GtkWidget *child;

  napkin_run_form_bind_settings (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_RUN_FORM);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (napkin_run_form_parent_class)->dispose (object);
}

static void
napkin_run_form_finalize (GObject *object)
{
  NapkinRunForm *self = NAPKIN_RUN_FORM (object);

  g_clear_pointer (&self->config, nk_train_config_free);
  g_free (self->error);
  g_free (self->text_file);
  g_free (self->checkpoint_dir);

  G_OBJECT_CLASS (napkin_run_form_parent_class)->finalize (object);
}

static void
napkin_run_form_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NapkinRunForm *self = NAPKIN_RUN_FORM (object);

  switch (prop_id)
    {
    case PROP_CONFIG:
      g_value_set_boxed (value, self->config);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_TEXT_FILE:
      g_value_set_string (value, self->text_file);
      break;
    case PROP_CHECKPOINT_DIR:
      g_value_set_string (value, self->checkpoint_dir);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_form_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NapkinRunForm *self = NAPKIN_RUN_FORM (object);

  switch (prop_id)
    {
    case PROP_TEXT_FILE:
      napkin_run_form_set_text_file (self, g_value_get_string (value));
      break;
    case PROP_CHECKPOINT_DIR:
      napkin_run_form_set_checkpoint_dir (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_form_class_init (NapkinRunFormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_run_form_dispose;
  object_class->finalize = napkin_run_form_finalize;
  object_class->get_property = napkin_run_form_get_property;
  object_class->set_property = napkin_run_form_set_property;

  /**
   * NapkinRunForm:config: (nullable)
   *
   * The run the form describes, %NULL while an input is wrong.
   */
  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, NK_TYPE_TRAIN_CONFIG,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinRunForm:error: (nullable)
   *
   * What is wrong with the inputs, one sentence, as the form shows it.
   */
  properties[PROP_ERROR] =
    g_param_spec_string ("error", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TEXT_FILE] =
    g_param_spec_string ("text-file", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CHECKPOINT_DIR] =
    g_param_spec_string ("checkpoint-dir", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The template names the engine's enum types. */
  g_type_ensure (NK_TYPE_MODEL_KIND);
  g_type_ensure (NK_TYPE_OPTIMIZER);
  g_type_ensure (NK_TYPE_PRECISION);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-run-form.ui");
  gtk_widget_class_bind_template_callback (widget_class, model_display_name);
  gtk_widget_class_bind_template_callback (widget_class, optimizer_display_name);
  gtk_widget_class_bind_template_callback (widget_class, precision_display_name);
#define CHILD(name) gtk_widget_class_bind_template_child (widget_class, NapkinRunForm, name)
  CHILD (model_group);
  CHILD (model_row);
  CHILD (dim_spin);
  CHILD (layers_spin);
  CHILD (context_row);
  CHILD (context_spin);
  CHILD (heads_row);
  CHILD (heads_spin);
  CHILD (text_row);
  CHILD (batch_spin);
  CHILD (steps_spin);
  CHILD (lr_row);
  CHILD (optimizer_row);
  CHILD (precision_row);
  CHILD (mx_scale_row);
  CHILD (mx_scale_switch);
  CHILD (nvfp4_sr_row);
  CHILD (nvfp4_sr_switch);
  CHILD (seed_spin);
  CHILD (cuda_row);
  CHILD (cuda_switch);
  CHILD (checkpoint_dir_row);
  CHILD (checkpoint_every_spin);
  CHILD (form_error);
#undef CHILD

  gtk_widget_class_install_action (widget_class, "run-form.choose-text-file", NULL, choose_text_file_action);
  gtk_widget_class_install_action (widget_class, "run-form.clear-text-file", NULL, clear_text_file_action);
  gtk_widget_class_install_action (widget_class, "run-form.choose-checkpoint-dir", NULL,
                                   choose_checkpoint_dir_action);
  gtk_widget_class_install_action (widget_class, "run-form.clear-checkpoint-dir", NULL,
                                   clear_checkpoint_dir_action);
}

static void
napkin_run_form_init (NapkinRunForm *self)
{
  GtkSpinButton *spins[8];

  gtk_widget_init_template (GTK_WIDGET (self));

  /* The engine's defaults (the lecture's AdamW, as the planner). */
  {
    g_autoptr(NkTrainConfig) defaults = nk_train_config_new ();

    select_value (self->model_row, defaults->model);
    select_value (self->optimizer_row, defaults->optimizer);
    select_value (self->precision_row, defaults->precision);
  }

  spins[0] = self->dim_spin;
  spins[1] = self->layers_spin;
  spins[2] = self->context_spin;
  spins[3] = self->batch_spin;
  spins[4] = self->steps_spin;
  spins[5] = self->seed_spin;
  spins[6] = self->checkpoint_every_spin;
  spins[7] = self->heads_spin;
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    g_signal_connect_swapped (spins[i], "value-changed", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->lr_row, "changed", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->model_row, "notify::selected", G_CALLBACK (model_changed), self);
  g_signal_connect_swapped (self->model_row, "notify::selected", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->optimizer_row, "notify::selected", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->precision_row, "notify::selected", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->cuda_switch, "notify::active", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->mx_scale_switch, "notify::active", G_CALLBACK (validate), self);
  g_signal_connect_swapped (self->nvfp4_sr_switch, "notify::active", G_CALLBACK (validate), self);
  validate (self);
}

GtkWidget *
napkin_run_form_new (void)
{
  return g_object_new (NAPKIN_TYPE_RUN_FORM, NULL);
}

/* Returns: (transfer none) (nullable): the config, %NULL while an input is wrong */
const NkTrainConfig *
napkin_run_form_get_config (NapkinRunForm *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_FORM (self), NULL);
  return self->config;
}

/**
 * napkin_run_form_dup_config:
 * @self: a run form
 * @error: return location for the form's error
 *
 * Returns: (transfer full) (nullable): a copy of the config a Start would run
 */
NkTrainConfig *
napkin_run_form_dup_config (NapkinRunForm  *self,
                            GError        **error)
{
  GtkWidget *bad;

  g_return_val_if_fail (NAPKIN_IS_RUN_FORM (self), NULL);
  return build_config (self, &bad, error);
}

/* Returns: (nullable): the inline error the form shows */
const char *
napkin_run_form_get_error (NapkinRunForm *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_FORM (self), NULL);
  return self->error;
}

/**
 * napkin_run_form_get_input:
 * @self: a run form
 * @name: dim, layers, context, heads, batch, steps, seed, checkpoint-every (spin buttons),
 *   lr (an entry row), model, optimizer, precision (combo rows), cuda, mx-scale-up or
 *   nvfp4-stochastic (switches)
 *
 * Returns: (transfer none) (nullable): the input widget
 */
GtkWidget *
napkin_run_form_get_input (NapkinRunForm *self,
                           const char    *name)
{
  static const struct { const char *name; gsize offset; } inputs[] = {
    { "dim", G_STRUCT_OFFSET (NapkinRunForm, dim_spin) },
    { "layers", G_STRUCT_OFFSET (NapkinRunForm, layers_spin) },
    { "context", G_STRUCT_OFFSET (NapkinRunForm, context_spin) },
    { "heads", G_STRUCT_OFFSET (NapkinRunForm, heads_spin) },
    { "batch", G_STRUCT_OFFSET (NapkinRunForm, batch_spin) },
    { "steps", G_STRUCT_OFFSET (NapkinRunForm, steps_spin) },
    { "seed", G_STRUCT_OFFSET (NapkinRunForm, seed_spin) },
    { "checkpoint-every", G_STRUCT_OFFSET (NapkinRunForm, checkpoint_every_spin) },
    { "lr", G_STRUCT_OFFSET (NapkinRunForm, lr_row) },
    { "model", G_STRUCT_OFFSET (NapkinRunForm, model_row) },
    { "optimizer", G_STRUCT_OFFSET (NapkinRunForm, optimizer_row) },
    { "precision", G_STRUCT_OFFSET (NapkinRunForm, precision_row) },
    { "cuda", G_STRUCT_OFFSET (NapkinRunForm, cuda_switch) },
    { "mx-scale-up", G_STRUCT_OFFSET (NapkinRunForm, mx_scale_switch) },
    { "nvfp4-stochastic", G_STRUCT_OFFSET (NapkinRunForm, nvfp4_sr_switch) },
  };

  g_return_val_if_fail (NAPKIN_IS_RUN_FORM (self), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    if (g_str_equal (name, inputs[i].name))
      return G_STRUCT_MEMBER (GtkWidget *, self, inputs[i].offset);
  return NULL;
}
