/* napkin-training-page.c: the Training page: launch and watch toy training runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page is a form that makes an NkTrainConfig, and a view of NkTrainers. Each
 * run is one NkTrainer working on its own thread; the page listens to its
 * coalesced ::step signal on the main thread and, when several steps were done
 * since the last one, copies just the missing ones from the trainer's history
 * (nk_trainer_get_history_range()), so the plots get every step. The numbers shown
 * are the engine's: the prediction card is nk_train_config_predict() at the
 * device's measured matmul rate (nk_train_gemm_rate_measure(), off the main
 * thread), skipped fp16 steps are the trainer's counter, checkpoints are what
 * ::checkpoint-written announces, and the histogram is the one the worker takes.
 * The page formats them and keeps its hands off the arithmetic.
 *
 * Below the width of the form beside the run view, an AdwLeaflet folds the form
 * behind the Run Settings button, and the smaller plots flow into one column.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "nk-cpuinfo.h"
#include "nk-device.h"
#include "nk-json.h"
#include "nk-plan.h"
#include "nk-units.h"

#include "napkin-file-chooser.h"
#include "napkin-training-page.h"
#include "napkin-window.h"

/* The worker histograms the chosen tensor this often (and at the first and last
 * step, and when the choice changes). */
#define HISTOGRAM_EVERY 10

#define SAVE_DELAY_MS 400
#define EXPORT_WIDTH  960
#define EXPORT_HEIGHT 420

/* The buckets the memory plot stacks, in its order. */
static const NkBucket plot_buckets[NAPKIN_MEMORY_PLOT_N_BUCKETS] = {
  NK_BUCKET_PARAMS, NK_BUCKET_GRADS, NK_BUCKET_OPTIMIZER, NK_BUCKET_ACTIVATIONS, NK_BUCKET_DATA,
};

/* The optimizer combo's rows, in NkOptimizer order. */
static const NkOptimizer optimizers[] = {
  NK_OPTIMIZER_SGD, NK_OPTIMIZER_MOMENTUM, NK_OPTIMIZER_ADAGRAD,
  NK_OPTIMIZER_RMSPROP, NK_OPTIMIZER_ADAM, NK_OPTIMIZER_ADAMW,
};

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct _NapkinTrainingPage NapkinTrainingPage;

typedef struct {
  NapkinTrainingPage *page;        /* unowned: the page outlives its runs' signals */
  NkTrainer          *trainer;
  char               *name;
  NapkinSeries       *loss;        /* for comparing against another run */
  guint64             last_step;
  double              last_loss;
  NkTrainMetrics      latest;
  gboolean            have_latest;
  gint64              started_us;
  gint64              ended_us;
  guint64             checkpoint_step;
  char               *error;
  AdwActionRow       *row;
  GtkWidget          *compare_button;
  guint               index;
} Run;

struct _NapkinTrainingPage
{
  GtkWidget             parent_instance;

  GSettings            *settings;
  guint                 save_source;
  guint                 tick_source;
  gboolean              loading;

  GPtrArray            *runs;           /* of Run* */
  Run                  *active;         /* running or paused, or NULL */
  Run                  *shown;          /* whose plots are on screen */
  Run                  *compared;
  GtkWindow            *closing_window; /* to close once the active run has ended */

  char                 *text_file;
  char                 *checkpoint_dir;
  char                 *form_error_text;
  gboolean              form_valid;
  gboolean              cuda_usable;
  char                 *measuring;      /* the device whose matmul rate is being measured */
  char                **param_names;    /* the histogram choices' parameters */
  gboolean              filling_sources;

  AdwLeaflet           *leaflet;
  GtkWidget            *settings_button;
  GtkWidget            *form_header;

  /* form */
  GtkWidget            *form_scroller;
  AdwComboRow          *model_row;
  GtkSpinButton        *dim_spin;
  GtkSpinButton        *layers_spin;
  AdwActionRow         *context_row;
  GtkSpinButton        *context_spin;
  AdwActionRow         *text_row;
  GtkSpinButton        *batch_spin;
  GtkSpinButton        *steps_spin;
  AdwEntryRow          *lr_row;
  AdwComboRow          *optimizer_row;
  AdwComboRow          *precision_row;
  GtkSpinButton        *seed_spin;
  AdwActionRow         *cuda_row;
  GtkSwitch            *cuda_switch;
  AdwActionRow         *checkpoint_dir_row;
  GtkSpinButton        *checkpoint_every_spin;
  GtkLabel             *form_error;

  /* run view */
  GtkLabel             *run_title;
  GtkLabel             *run_subtitle;
  GtkProgressBar       *progress_bar;
  GtkLabel             *progress_label;
  GtkLabel             *checkpoint_label;
  GtkLabel             *status_label;
  GtkLabel             *prediction_grid_title;
  GtkLabel             *predicted_params;
  GtkLabel             *predicted_flops;
  GtkLabel             *predicted_memory;
  GtkLabel             *predicted_memory_caption;
  GtkLabel             *predicted_time;
  GtkLabel             *predicted_time_caption;
  GtkLabel             *live_loss;
  GtkLabel             *live_rate;
  GtkLabel             *live_mfu;
  GtkLabel             *live_scale;
  GtkToggleButton      *smooth_toggle;
  GtkToggleButton      *log_toggle;
  NapkinLossPlot       *loss_plot;
  NapkinMemoryPlot     *memory_plot;
  NapkinThroughputPlot *throughput_plot;
  NapkinScalePlot      *scale_plot;
  GtkWidget            *scale_card;
  NapkinHistogramPlot  *histogram_plot;
  GtkWidget            *histogram_card;
  GtkDropDown          *histogram_source;
  GtkStringList        *histogram_sources;
  GtkListBox           *runs_list;
  AdwPreferencesGroup  *runs_group;
};

G_DEFINE_FINAL_TYPE (NapkinTrainingPage, napkin_training_page, GTK_TYPE_WIDGET)

static void update_actions  (NapkinTrainingPage *self);
static void update_progress (NapkinTrainingPage *self);
static void update_run_row  (NapkinTrainingPage *self,
                             Run                *run);

/* ------------------------------------------------------------ helpers */

static void
show_toast (NapkinTrainingPage *self,
            const char         *title)
{
  GtkWidget *window = gtk_widget_get_ancestor (GTK_WIDGET (self), NAPKIN_TYPE_WINDOW);

  if (window != NULL)
    napkin_window_add_toast (NAPKIN_WINDOW (window), adw_toast_new (title));
}

static void
set_label (GtkLabel   *label,
           const char *text)
{
  gtk_label_set_label (label, text != NULL ? text : "—");
}

static void
take_label (GtkLabel *label,
            char     *text)
{
  set_label (label, text);
  g_free (text);
}

/* Whole numbers grouped by thin spaces below a billion, scientific above. */
static char *
format_count (double value)
{
  GString *text;
  g_autofree char *digits = NULL;
  guint len;

  if (!isfinite (value) || value >= 1e9)
    return nk_units_format_sci (value, 3);
  digits = g_strdup_printf ("%.0f", value);
  len = strlen (digits);
  text = g_string_new (NULL);
  for (guint i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (text, "\u202f");
      g_string_append_c (text, digits[i]);
    }
  return g_string_free (text, FALSE);
}

static char *
format_loss (double loss)
{
  if (!isfinite (loss))
    return g_strdup (isnan (loss) ? "NaN" : loss > 0 ? "∞" : "−∞");
  return g_strdup_printf ("%.6g", loss);
}

static gboolean
run_is_live (Run *run)
{
  NkTrainerState state;

  if (run == NULL)
    return FALSE;
  state = nk_trainer_get_state (run->trainer);
  return state == NK_TRAINER_STATE_RUNNING || state == NK_TRAINER_STATE_PAUSED;
}

static char *
describe_config (const NkTrainConfig *c)
{
  g_autofree char *model = NULL;

  if (c->model == NK_MODEL_CRUNCHER)
    model = g_strdup_printf (_("Cruncher D %u · L %u"), c->dim, c->layers);
  else
    model = g_strdup_printf (_("Tiny LM D %u · L %u · T %u"), c->dim, c->layers, c->context);
  return g_strdup_printf (_("%s · batch %u · %" PRIu64 " steps · lr %g · %s · %s · %s"),
                          model, c->batch, c->steps, c->lr,
                          nk_optimizer_to_string (c->optimizer),
                          nk_precision_to_string (c->precision), c->device);
}

static void
run_free (Run *run)
{
  if (run->trainer != NULL)
    g_signal_handlers_disconnect_by_data (run->trainer, run);
  g_clear_object (&run->trainer);
  g_clear_pointer (&run->loss, napkin_series_unref);
  g_free (run->name);
  g_free (run->error);
  g_free (run);
}

/* ------------------------------------------------------------ form */

static const char *
model_name (NapkinTrainingPage *self)
{
  return adw_combo_row_get_selected (self->model_row) == 1 ? "tiny-lm" : "cruncher";
}

static NkPrecision
selected_precision (NapkinTrainingPage *self)
{
  switch (adw_combo_row_get_selected (self->precision_row))
    {
    case 1: return NK_PRECISION_BF16_MIXED;
    case 2: return NK_PRECISION_FP16_MIXED;
    default: return NK_PRECISION_FP32;
    }
}

/* The config the form describes, or NULL with one sentence naming the bad input
 * (and *out_bad set to the row to mark). */
static NkTrainConfig *
build_config (NapkinTrainingPage  *self,
              GtkWidget          **out_bad,
              GError             **error)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  const char *lr_text = gtk_editable_get_text (GTK_EDITABLE (self->lr_row));
  g_autoptr(GError) local_error = NULL;
  double lr;

  *out_bad = NULL;
  nk_model_kind_from_string (model_name (self), &c->model);
  c->dim = (guint) gtk_spin_button_get_value_as_int (self->dim_spin);
  c->layers = (guint) gtk_spin_button_get_value_as_int (self->layers_spin);
  c->context = (guint) gtk_spin_button_get_value_as_int (self->context_spin);
  c->batch = (guint) gtk_spin_button_get_value_as_int (self->batch_spin);
  c->steps = (guint64) gtk_spin_button_get_value (self->steps_spin);
  c->optimizer = optimizers[MIN (adw_combo_row_get_selected (self->optimizer_row),
                                 G_N_ELEMENTS (optimizers) - 1)];
  c->precision = selected_precision (self);
  c->seed = (guint64) gtk_spin_button_get_value (self->seed_spin);
  g_free (c->device);
  c->device = g_strdup (gtk_switch_get_active (self->cuda_switch) ? "cuda" : "cpu");
  c->checkpoint_every = (guint64) gtk_spin_button_get_value (self->checkpoint_every_spin);
  c->checkpoint_dir = g_strdup (self->checkpoint_dir);
  if (c->model == NK_MODEL_TINY_LM)
    c->text_file = g_strdup (self->text_file);
  /* The page keeps every step: exports and re-opened runs need all of them. */
  c->history_limit = 0;
  c->histogram_every = HISTOGRAM_EVERY;

  if (!nk_units_parse (lr_text, &lr, &local_error))
    {
      *out_bad = GTK_WIDGET (self->lr_row);
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The learning rate “%s” is not a number: %s"), lr_text, local_error->message);
      return NULL;
    }
  if (!(lr > 0) || !isfinite (lr))
    {
      *out_bad = GTK_WIDGET (self->lr_row);
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The learning rate must be a positive number, not “%s”."), lr_text);
      return NULL;
    }
  c->lr = lr;
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

static void update_prediction (NapkinTrainingPage  *self,
                               const NkTrainConfig *c);

static void
on_gemm_rate_measured (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GWeakRef *ref = user_data;
  g_autoptr(NapkinTrainingPage) self = g_weak_ref_get (ref);
  g_autoptr(GError) error = NULL;

  /* The answer is remembered by the engine; the page only redraws the card. */
  nk_train_gemm_rate_measure_finish (result, &error);
  g_weak_ref_clear (ref);
  g_free (ref);
  if (self == NULL)
    return;
  g_clear_pointer (&self->measuring, g_free);
  if (self->shown != NULL)
    update_prediction (self, nk_trainer_get_config (self->shown->trainer));
  else
    {
      g_autoptr(GError) form_error = NULL;
      g_autoptr(NkTrainConfig) config = napkin_training_page_dup_config (self, &form_error);

      update_prediction (self, config);
    }
}

/* The device's measured matmul rate, NAN with the reason while it is being measured
 * (one measurement per device and process, started here) or when it cannot be. */
static double
gemm_rate_for (NapkinTrainingPage  *self,
               const char          *device,
               char               **out_reason)
{
  double rate;

  if (nk_train_gemm_rate_peek (device, &rate, out_reason))
    return rate;
  if (self->measuring == NULL)
    {
      GWeakRef *ref = g_new0 (GWeakRef, 1);

      g_weak_ref_init (ref, self);
      self->measuring = g_strdup (device);
      nk_train_gemm_rate_measure (device, NULL, on_gemm_rate_measured, ref);
    }
  *out_reason = g_strdup (_("Measuring this device’s matmul rate…"));
  return NAN;
}

static void
update_prediction (NapkinTrainingPage  *self,
                   const NkTrainConfig *c)
{
  NkTrainPrediction p;
  g_autofree char *reason = NULL;
  double rate;

  if (c == NULL)
    {
      set_label (self->predicted_params, NULL);
      set_label (self->predicted_flops, NULL);
      set_label (self->predicted_memory, NULL);
      set_label (self->predicted_time, NULL);
      return;
    }

  rate = gemm_rate_for (self, c->device, &reason);
  nk_train_config_predict (c, rate, &p);

  take_label (self->predicted_params, format_count ((double) p.n_parameters));
  take_label (self->predicted_flops, format_count (p.flops_per_step));
  take_label (self->predicted_memory, nk_units_format_bytes (p.memory_total));
  {
    g_autofree char *pa = nk_units_format_bytes (p.memory[0]);
    g_autofree char *g = nk_units_format_bytes (p.memory[1]);
    g_autofree char *o = nk_units_format_bytes (p.memory[2]);
    g_autofree char *a = nk_units_format_bytes (p.memory[3]);
    g_autofree char *breakdown = g_strdup_printf (_("Params %s + grads %s + optimizer %s + activations %s"),
                                                  pa, g, o, a);

    /* The caption names the buckets; the tooltip has each one's bytes (the
     * memory plot draws them as dashed lines too). */
    gtk_label_set_label (self->predicted_memory_caption, _("Predicted memory, 4 buckets"));
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_memory), breakdown);
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_memory_caption), breakdown);
  }
  if (isfinite (p.seconds_per_step))
    {
      g_autofree char *rate_text = nk_units_format_rate (p.gemm_rate);
      g_autofree char *tooltip = g_strdup_printf (_("FLOPs per step at %s, the rate of a %d³ fp32 matmul measured on %s. A lower bound: a small model spends most of its step outside large matmuls."),
                                                  rate_text, NK_TRAIN_GEMM_RATE_SIZE, c->device);

      take_label (self->predicted_time, nk_units_format_duration (p.seconds_per_step));
      gtk_label_set_label (self->predicted_time_caption, _("Time per step, measured rate"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_time), tooltip);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_time_caption), tooltip);
    }
  else
    {
      set_label (self->predicted_time, NULL);
      gtk_label_set_label (self->predicted_time_caption, reason != NULL ? reason : "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_time), reason);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_time_caption), reason);
    }
}

static void
mark_row (GtkWidget *row,
          gboolean   bad)
{
  if (bad)
    gtk_widget_add_css_class (row, "error");
  else
    gtk_widget_remove_css_class (row, "error");
}

static void
validate_form (NapkinTrainingPage *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) config = NULL;
  GtkWidget *bad = NULL;
  gboolean lm = adw_combo_row_get_selected (self->model_row) == 1;

  gtk_widget_set_visible (GTK_WIDGET (self->context_row), lm);
  gtk_widget_set_visible (GTK_WIDGET (self->text_row), lm);

  config = build_config (self, &bad, &error);
  mark_row (GTK_WIDGET (self->lr_row), bad == GTK_WIDGET (self->lr_row));
  mark_row (GTK_WIDGET (self->cuda_row), bad == GTK_WIDGET (self->cuda_row));
  self->form_valid = config != NULL;
  g_clear_pointer (&self->form_error_text, g_free);
  if (error != NULL)
    self->form_error_text = g_strdup (error->message);
  gtk_label_set_label (self->form_error, self->form_error_text != NULL ? self->form_error_text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->form_error), self->form_error_text != NULL);

  if (self->active == NULL)
    update_prediction (self, config);
  update_actions (self);
}

/* ------------------------------------------------------------ settings */

static void
save_now (NapkinTrainingPage *self)
{
  GVariantBuilder builder;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  struct { const char *key; GtkSpinButton *spin; } spins[] = {
    { "dim", self->dim_spin }, { "layers", self->layers_spin },
    { "context", self->context_spin }, { "batch", self->batch_spin },
    { "steps", self->steps_spin }, { "seed", self->seed_spin },
    { "checkpoint-every", self->checkpoint_every_spin },
  };

  g_clear_handle_id (&self->save_source, g_source_remove);
  if (self->settings == NULL)
    return;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{ss}"));
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    g_variant_builder_add (&builder, "{ss}", spins[i].key,
                           g_ascii_dtostr (buf, sizeof buf, gtk_spin_button_get_value (spins[i].spin)));
  g_variant_builder_add (&builder, "{ss}", "model", model_name (self));
  g_variant_builder_add (&builder, "{ss}", "lr", gtk_editable_get_text (GTK_EDITABLE (self->lr_row)));
  g_variant_builder_add (&builder, "{ss}", "optimizer",
                         nk_optimizer_to_string (optimizers[MIN (adw_combo_row_get_selected (self->optimizer_row),
                                                                 G_N_ELEMENTS (optimizers) - 1)]));
  g_variant_builder_add (&builder, "{ss}", "precision",
                         nk_precision_to_string (selected_precision (self)));
  if (self->checkpoint_dir != NULL)
    g_variant_builder_add (&builder, "{ss}", "checkpoint-dir", self->checkpoint_dir);
  if (self->text_file != NULL)
    g_variant_builder_add (&builder, "{ss}", "text-file", self->text_file);
  g_settings_set_value (self->settings, "training-state", g_variant_builder_end (&builder));
}

static gboolean
save_timeout (gpointer user_data)
{
  NapkinTrainingPage *self = user_data;

  self->save_source = 0;
  save_now (self);
  return G_SOURCE_REMOVE;
}

static void
queue_save (NapkinTrainingPage *self)
{
  if (self->settings == NULL || self->loading)
    return;
  g_clear_handle_id (&self->save_source, g_source_remove);
  self->save_source = g_timeout_add (SAVE_DELAY_MS, save_timeout, self);
}

static void set_path (NapkinTrainingPage *self,
                      char              **field,
                      AdwActionRow       *row,
                      const char         *path,
                      const char         *none_text);

static void
load_state (NapkinTrainingPage *self)
{
  g_autoptr(GVariant) state = NULL;
  GVariantIter iter;
  const char *key, *value;

  if (self->settings == NULL)
    return;
  state = g_settings_get_value (self->settings, "training-state");
  self->loading = TRUE;
  g_variant_iter_init (&iter, state);
  while (g_variant_iter_next (&iter, "{&s&s}", &key, &value))
    {
      GtkWidget *input = napkin_training_page_get_input (self, key);

      if (GTK_IS_SPIN_BUTTON (input))
        gtk_spin_button_set_value (GTK_SPIN_BUTTON (input), g_ascii_strtod (value, NULL));
      else if (g_str_equal (key, "lr"))
        gtk_editable_set_text (GTK_EDITABLE (self->lr_row), value);
      else if (g_str_equal (key, "model"))
        adw_combo_row_set_selected (self->model_row, g_str_equal (value, "tiny-lm") ? 1 : 0);
      else if (g_str_equal (key, "optimizer"))
        {
          NkOptimizer opt;

          if (nk_optimizer_from_string (value, &opt))
            for (guint i = 0; i < G_N_ELEMENTS (optimizers); i++)
              if (optimizers[i] == opt)
                adw_combo_row_set_selected (self->optimizer_row, i);
        }
      else if (g_str_equal (key, "precision"))
        {
          NkPrecision p;

          if (nk_precision_from_string (value, &p))
            adw_combo_row_set_selected (self->precision_row,
                                        p == NK_PRECISION_BF16_MIXED ? 1
                                        : p == NK_PRECISION_FP16_MIXED ? 2 : 0);
        }
      else if (g_str_equal (key, "checkpoint-dir"))
        set_path (self, &self->checkpoint_dir, self->checkpoint_dir_row, value, NULL);
      else if (g_str_equal (key, "text-file"))
        set_path (self, &self->text_file, self->text_row, value, NULL);
    }
  self->loading = FALSE;
  validate_form (self);
}

/**
 * napkin_training_page_set_settings:
 * @self: a training page
 * @settings: (nullable): settings with the `training-state` key
 *
 * Restores the form from @settings and keeps it there as it changes. The window
 * hands the application's settings to the page through the `settings` property.
 */
void
napkin_training_page_set_settings (NapkinTrainingPage *self,
                                   GSettings          *settings)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings == settings)
    return;
  if (self->save_source != 0)
    save_now (self);
  g_set_object (&self->settings, settings);
  load_state (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

static void
napkin_training_page_unroot (GtkWidget *widget)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->save_source != 0)
    save_now (self);

  GTK_WIDGET_CLASS (napkin_training_page_parent_class)->unroot (widget);
}

/* ------------------------------------------------------------ paths */

static void
set_path (NapkinTrainingPage *self,
          char              **field,
          AdwActionRow       *row,
          const char         *path,
          const char         *none_text)
{
  if (path != NULL && *path == '\0')
    path = NULL;
  if (g_strcmp0 (*field, path) != 0)
    {
      g_free (*field);
      *field = g_strdup (path);
    }
  if (path != NULL)
    {
      g_autofree char *display = g_filename_display_name (path);

      adw_action_row_set_subtitle (row, display);
    }
  else if (none_text != NULL)
    adw_action_row_set_subtitle (row, none_text);
  else if (row == self->checkpoint_dir_row)
    adw_action_row_set_subtitle (row, _("None: no checkpoints"));
  else
    adw_action_row_set_subtitle (row, _("The bundled text"));
  queue_save (self);
  validate_form (self);
}

/**
 * napkin_training_page_set_checkpoint_dir:
 * @self: a training page
 * @path: (nullable): a folder, or %NULL for no checkpoints
 */
void
napkin_training_page_set_checkpoint_dir (NapkinTrainingPage *self,
                                         const char         *path)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  set_path (self, &self->checkpoint_dir, self->checkpoint_dir_row, path, NULL);
}

/**
 * napkin_training_page_set_text_file:
 * @self: a training page
 * @path: (nullable): text or tokens for the tiny LM, or %NULL for the bundled text
 */
void
napkin_training_page_set_text_file (NapkinTrainingPage *self,
                                    const char         *path)
{
  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  set_path (self, &self->text_file, self->text_row, path, NULL);
}

/* The file choosers hand over a GFile; the page works with local paths. */
static char *
local_path_of (NapkinTrainingPage *self,
               GFile              *file)
{
  char *path = g_file_get_path (file);

  if (path == NULL)
    show_toast (self, _("Only files on this computer can be used"));
  return path;
}

/* Actions called with a path (tests, scripts) take the chooser's road. */
static void
use_path (NapkinTrainingPage *self,
          const char         *path,
          NapkinFileChosen    chosen)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  chosen (GTK_WIDGET (self), file);
}

static void
text_file_chosen (GtkWidget *widget,
                  GFile     *file)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);

  if (path == NULL)
    return;
  napkin_training_page_set_text_file (self, path);
}

static void
checkpoint_dir_chosen (GtkWidget *widget,
                       GFile     *file)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);

  if (path == NULL)
    return;
  napkin_training_page_set_checkpoint_dir (self, path);
}

static void
choose_text_file_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Text or tokens (.txt, .npy, .bin)"));
  gtk_file_filter_add_mime_type (filter, "text/plain");
  gtk_file_filter_add_suffix (filter, "npy");
  gtk_file_filter_add_suffix (filter, "bin");
  gtk_file_filter_add_suffix (filter, "txt");
  napkin_choose_file (widget, _("Choose Text or Tokens"),
               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL, filter, text_file_chosen);
  g_object_unref (filter);
}

static void
clear_text_file_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  napkin_training_page_set_text_file (NAPKIN_TRAINING_PAGE (widget), NULL);
}

static void
choose_checkpoint_dir_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  napkin_choose_file (widget, _("Choose a Checkpoint Folder"),
               GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Select"), NULL, NULL,
               checkpoint_dir_chosen);
}

static void
clear_checkpoint_dir_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  napkin_training_page_set_checkpoint_dir (NAPKIN_TRAINING_PAGE (widget), NULL);
}

/* ------------------------------------------------------------ CUDA probe */

/* Looking for CUDA loads a module and asks the driver: off the main thread,
 * once per process. */
static GMutex probe_mutex;
static GCond probe_cond;
static gboolean probe_started;
static gboolean probe_done;
static gboolean probe_usable;
static char *probe_text;

static void
probe_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  NkDevice *device = nk_device_lookup ("cuda", &error);
  char *text = device != NULL ? nk_device_describe (device) : g_strdup (error->message);

  g_mutex_lock (&probe_mutex);
  probe_usable = device != NULL;
  g_free (probe_text);
  probe_text = text;
  probe_done = TRUE;
  g_cond_broadcast (&probe_cond);
  g_mutex_unlock (&probe_mutex);
  g_task_return_boolean (task, TRUE);
}

static void
apply_probe (NapkinTrainingPage *self)
{
  g_mutex_lock (&probe_mutex);
  self->cuda_usable = probe_usable;
  adw_action_row_set_subtitle (self->cuda_row, probe_text != NULL ? probe_text : "");
  g_mutex_unlock (&probe_mutex);
  gtk_widget_set_sensitive (GTK_WIDGET (self->cuda_switch), self->cuda_usable);
  if (!self->cuda_usable)
    gtk_switch_set_active (self->cuda_switch, FALSE);
  validate_form (self);
}

static void
probe_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GWeakRef *ref = user_data;
  g_autoptr(NapkinTrainingPage) self = g_weak_ref_get (ref);

  g_weak_ref_clear (ref);
  g_free (ref);
  if (self != NULL)
    apply_probe (self);
}

static void
start_probe (NapkinTrainingPage *self)
{
  gboolean done;

  g_mutex_lock (&probe_mutex);
  done = probe_done;
  probe_started = TRUE;
  g_mutex_unlock (&probe_mutex);
  if (done)
    apply_probe (self);
  else
    {
      GWeakRef *ref = g_new0 (GWeakRef, 1);
      g_autoptr(GTask) task = NULL;

      g_weak_ref_init (ref, self);
      task = g_task_new (NULL, NULL, probe_done_cb, ref);
      g_task_set_name (task, "[napkin] CUDA probe");
      g_task_run_in_thread (task, probe_thread);
    }
}

/**
 * napkin_training_page_finish_probe:
 *
 * Waits for a CUDA probe still running. The application calls it before it exits:
 * the CUDA runtime's exit handlers crash while another thread is still inside it.
 */
void
napkin_training_page_finish_probe (void)
{
  g_mutex_lock (&probe_mutex);
  while (probe_started && !probe_done)
    g_cond_wait (&probe_cond, &probe_mutex);
  g_mutex_unlock (&probe_mutex);
}

/* ------------------------------------------------------------ the shown run */

static double
capacity_of (const char *device_name)
{
  g_autoptr(GError) error = NULL;
  NkDevice *device = device_name != NULL ? nk_device_lookup (device_name, &error) : NULL;
  guint64 free_bytes = 0, total = 0;

  if (device == NULL || !nk_device_memory_info (device, &free_bytes, &total, &error) || total == 0)
    return NAN;
  return (double) total;
}

static void
plot_metrics (NapkinTrainingPage   *self,
              const NkTrainMetrics *m)
{
  double bytes[NAPKIN_MEMORY_PLOT_N_BUCKETS];

  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    bytes[b] = (double) m->memory[plot_buckets[b]];
  napkin_loss_plot_append (self->loss_plot, (double) m->step, m->loss);
  napkin_memory_plot_append (self->memory_plot, (double) m->step, bytes);
  napkin_throughput_plot_append (self->throughput_plot, (double) m->step, m->flops_per_s);
  if (self->shown != NULL
      && nk_trainer_get_config (self->shown->trainer)->precision == NK_PRECISION_FP16_MIXED)
    napkin_scale_plot_append (self->scale_plot, (double) m->step, m->loss_scale, m->skipped,
                              m->skipped_steps);
}

/* The shown run's latest histogram, when the worker has taken a new one. */
static void
update_histogram (NapkinTrainingPage *self)
{
  const NkTrainHistogram *shown = napkin_histogram_plot_get_histogram (self->histogram_plot);
  NkTrainHistogram h;

  if (self->shown == NULL || !nk_trainer_get_histogram (self->shown->trainer, &h))
    {
      if (shown != NULL)
        napkin_histogram_plot_set_histogram (self->histogram_plot, NULL);
      return;
    }
  if (shown == NULL || shown->step != h.step || !g_str_equal (shown->name, h.name)
      || shown->gradient != h.gradient)
    napkin_histogram_plot_set_histogram (self->histogram_plot, &h);
}

/* The choices: each parameter's gradient, then each parameter's values. */
static void
fill_histogram_sources (NapkinTrainingPage  *self,
                        const NkTrainConfig *c)
{
  g_auto(GStrv) names = nk_train_config_dup_param_names (c);
  guint n = g_strv_length (names);
  guint selected = 0;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_strdup_printf (_("Gradient of %s"), names[i]));
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_strdup_printf (_("Values of %s"), names[i]));
  g_ptr_array_add (items, NULL);
  /* The trainer's default: the last weight's gradient. */
  for (guint i = 0; i < n; i++)
    if (g_str_has_suffix (names[i], ".weight"))
      selected = i;

  self->filling_sources = TRUE;
  gtk_string_list_splice (self->histogram_sources, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->histogram_sources)),
                          (const char *const *) items->pdata);
  gtk_drop_down_set_selected (self->histogram_source, selected);
  self->filling_sources = FALSE;
  g_strfreev (self->param_names);
  self->param_names = g_steal_pointer (&names);
}

static void
on_histogram_source_selected (NapkinTrainingPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->histogram_source);
  guint n = self->param_names != NULL ? g_strv_length (self->param_names) : 0;

  if (self->filling_sources || self->shown == NULL || n == 0 || selected >= 2 * n)
    return;
  nk_trainer_set_histogram_source (self->shown->trainer, self->param_names[selected % n],
                                   selected < n);
}

static void
update_live_labels (NapkinTrainingPage *self)
{
  Run *run = self->shown;
  const NkTrainMetrics *m;

  if (run == NULL || !run->have_latest)
    {
      set_label (self->live_loss, NULL);
      set_label (self->live_rate, NULL);
      set_label (self->live_mfu, NULL);
      set_label (self->live_scale, NULL);
      return;
    }
  m = &run->latest;
  take_label (self->live_loss, format_loss (m->loss));
  take_label (self->live_rate, nk_units_format_rate (m->flops_per_s));
  if (isfinite (m->mfu))
    take_label (self->live_mfu, g_strdup_printf ("%.2f %%", 100 * m->mfu));
  else
    set_label (self->live_mfu, NULL);
  if (nk_trainer_get_config (run->trainer)->precision == NK_PRECISION_FP16_MIXED)
    take_label (self->live_scale,
                g_strdup_printf (_("%g · %" PRIu64 " skipped"), m->loss_scale,
                                 nk_trainer_get_skipped_steps (run->trainer)));
  else
    set_label (self->live_scale, _("1 (not scaled)"));

  napkin_throughput_plot_set_mfu (self->throughput_plot, m->mfu);
  napkin_throughput_plot_set_split (self->throughput_plot, m->seconds_forward,
                                    m->seconds_backward, m->seconds_optimizer);
}

static const char *
peak_dtype_name (const NkTrainConfig *c,
                 const char          *device_name)
{
  /* The CPU has no narrow units: its peak is fp32 whatever the precision. */
  if (device_name == NULL || g_str_has_prefix (device_name, "cpu"))
    return "fp32";
  return c->precision == NK_PRECISION_FP32 ? "fp32"
         : c->precision == NK_PRECISION_FP16_MIXED ? "fp16" : "bf16";
}

static void
show_run (NapkinTrainingPage *self,
          Run                *run)
{
  const NkTrainConfig *c = nk_trainer_get_config (run->trainer);
  g_autoptr(GArray) history = nk_trainer_get_history (run->trainer);
  g_autofree char *subtitle = describe_config (c);
  g_autofree char *label = g_strdup_printf (_("%s · lr %g"), run->name, c->lr);
  const char *device_name = nk_trainer_get_state (run->trainer) != NK_TRAINER_STATE_IDLE
                            ? nk_trainer_get_device_name (run->trainer) : NULL;

  self->shown = run;
  napkin_loss_plot_clear (self->loss_plot);
  napkin_memory_plot_clear (self->memory_plot);
  napkin_throughput_plot_clear (self->throughput_plot);
  napkin_scale_plot_clear (self->scale_plot);
  gtk_widget_set_visible (gtk_widget_get_parent (self->scale_card),
                          c->precision == NK_PRECISION_FP16_MIXED);
  fill_histogram_sources (self, c);
  napkin_histogram_plot_set_histogram (self->histogram_plot, NULL);
  update_histogram (self);
  napkin_loss_plot_set_label (self->loss_plot, label);
  if (self->compared == run)
    {
      self->compared = NULL;
      napkin_loss_plot_set_compare (self->loss_plot, NULL, NULL);
    }

  for (guint i = 0; i < history->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);

      if (m->step <= run->last_step)
        plot_metrics (self, m);
    }
  if (run->have_latest)
    {
      napkin_memory_plot_set_predicted (self->memory_plot, run->latest.predicted);
      napkin_throughput_plot_set_peak (self->throughput_plot, run->latest.peak_flops_per_s,
                                       peak_dtype_name (c, device_name));
    }
  napkin_memory_plot_set_capacity (self->memory_plot, capacity_of (device_name != NULL ? device_name : c->device));

  gtk_label_set_label (self->run_title, run->name);
  gtk_label_set_label (self->run_subtitle, subtitle);
  update_prediction (self, c);
  update_live_labels (self);
  update_progress (self);
  for (guint i = 0; i < self->runs->len; i++)
    update_run_row (self, g_ptr_array_index (self->runs, i));
}

/* ------------------------------------------------------------ progress */

static void
update_progress (NapkinTrainingPage *self)
{
  Run *run = self->shown;
  const NkTrainConfig *c;
  NkTrainerState state;
  guint64 done, start;
  double elapsed, fraction;
  g_autofree char *elapsed_text = NULL;
  GString *text;

  if (run == NULL)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      gtk_label_set_label (self->progress_label, _("Not started"));
      gtk_widget_set_visible (GTK_WIDGET (self->status_label), FALSE);
      return;
    }
  c = nk_trainer_get_config (run->trainer);
  state = nk_trainer_get_state (run->trainer);
  done = run->last_step;
  start = nk_trainer_get_start_step (run->trainer);
  fraction = c->steps > 0 ? (double) done / (double) c->steps : 0;
  gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0, 1));

  elapsed = run->started_us == 0 ? 0
            : ((run->ended_us != 0 ? run->ended_us : g_get_monotonic_time ()) - run->started_us) / 1e6;
  elapsed_text = nk_units_format_duration (elapsed);
  text = g_string_new (NULL);
  g_string_append_printf (text, _("Step %" PRIu64 " of %" PRIu64 " · %s elapsed"),
                          done, c->steps, elapsed_text);
  if (state == NK_TRAINER_STATE_RUNNING && done > start && done < c->steps)
    {
      /* the steps so far at their average pace */
      g_autofree char *left = nk_units_format_duration (elapsed / (double) (done - start)
                                                        * (double) (c->steps - done));

      g_string_append_printf (text, _(" · about %s left"), left);
    }
  switch (state)
    {
    case NK_TRAINER_STATE_PAUSED:
      g_string_append (text, _(" · paused"));
      break;
    case NK_TRAINER_STATE_FINISHED:
      g_string_append (text, _(" · finished"));
      break;
    case NK_TRAINER_STATE_STOPPED:
      g_string_append (text, _(" · stopped"));
      break;
    case NK_TRAINER_STATE_FAILED:
      g_string_append (text, _(" · failed"));
      break;
    case NK_TRAINER_STATE_IDLE:
    case NK_TRAINER_STATE_RUNNING:
    default:
      break;
    }
  gtk_label_set_label (self->progress_label, text->str);
  g_string_free (text, TRUE);

  if (run->checkpoint_step > 0)
    take_label (self->checkpoint_label,
                g_strdup_printf (_("Last checkpoint after step %" PRIu64), run->checkpoint_step));
  else
    gtk_label_set_label (self->checkpoint_label, "");

  gtk_label_set_label (self->status_label, run->error != NULL ? run->error : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), run->error != NULL);
}

static gboolean
tick (gpointer user_data)
{
  NapkinTrainingPage *self = user_data;

  update_progress (self);
  return G_SOURCE_CONTINUE;
}

/* ------------------------------------------------------------ runs list */

static void
update_run_row (NapkinTrainingPage *self,
                Run                *run)
{
  const NkTrainConfig *c = nk_trainer_get_config (run->trainer);
  g_autofree char *config = describe_config (c);
  g_autofree char *loss = format_loss (run->last_loss);
  const char *state;
  g_autofree char *subtitle = NULL;
  g_autofree char *title = NULL;

  switch (nk_trainer_get_state (run->trainer))
    {
    case NK_TRAINER_STATE_RUNNING: state = _("running"); break;
    case NK_TRAINER_STATE_PAUSED: state = _("paused"); break;
    case NK_TRAINER_STATE_FINISHED: state = _("finished"); break;
    case NK_TRAINER_STATE_STOPPED: state = _("stopped"); break;
    case NK_TRAINER_STATE_FAILED: state = _("failed"); break;
    case NK_TRAINER_STATE_IDLE:
    default: state = _("starting"); break;
    }
  if (run->last_step > 0)
    subtitle = g_strdup_printf (_("%s\nFinal loss %s after %" PRIu64 " steps · %s"),
                                config, loss, run->last_step, state);
  else
    subtitle = g_strdup_printf ("%s\n%s", config, state);
  title = run == self->shown ? g_strdup_printf (_("%s (shown)"), run->name) : g_strdup (run->name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (run->row), title);
  adw_action_row_set_subtitle (run->row, subtitle);
  gtk_widget_set_sensitive (run->compare_button, run != self->shown && run->last_step > 0);
}

static Run *
add_run (NapkinTrainingPage *self,
         NkTrainer          *trainer)
{
  Run *run = g_new0 (Run, 1);
  GtkWidget *open, *compare;

  run->page = self;
  run->trainer = g_object_ref (trainer);
  run->index = self->runs->len;
  run->name = g_strdup_printf (_("Run %u"), run->index + 1);
  run->loss = napkin_series_new ();
  run->last_loss = NAN;
  g_ptr_array_add (self->runs, run);

  run->row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_action_row_set_subtitle_lines (run->row, 2);
  compare = gtk_button_new_with_label (_("Compare"));
  gtk_widget_set_valign (compare, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (compare, _("Draw this run’s loss beside the shown run"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (compare), "training.compare-run");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (compare), "i", (gint32) run->index);
  open = gtk_button_new_with_label (_("Open"));
  gtk_widget_set_valign (open, GTK_ALIGN_CENTER);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "training.open-run");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (open), "u", run->index);
  adw_action_row_add_suffix (run->row, compare);
  adw_action_row_add_suffix (run->row, open);
  run->compare_button = compare;
  gtk_list_box_prepend (self->runs_list, GTK_WIDGET (run->row));
  gtk_widget_set_visible (GTK_WIDGET (self->runs_group), TRUE);
  return run;
}

/* ------------------------------------------------------------ the active run */

static void
add_step (NapkinTrainingPage   *self,
          Run                  *run,
          const NkTrainMetrics *m)
{
  const NkTrainConfig *c = nk_trainer_get_config (run->trainer);

  /* What stays fixed for the run comes with its first step (which may arrive
   * after the run has ended: the end callback outranks the low-priority idle). */
  if (!run->have_latest && run == self->shown)
    {
      const char *device_name = nk_trainer_get_device_name (run->trainer);

      napkin_memory_plot_set_predicted (self->memory_plot, m->predicted);
      napkin_throughput_plot_set_peak (self->throughput_plot, m->peak_flops_per_s,
                                       peak_dtype_name (c, device_name));
      napkin_memory_plot_set_capacity (self->memory_plot, capacity_of (device_name));
    }
  run->last_step = m->step;
  run->last_loss = m->loss;
  run->latest = *m;
  run->have_latest = TRUE;
  napkin_series_append (run->loss, (double) m->step, m->loss);
  if (run == self->shown)
    plot_metrics (self, m);

}

/* Brings the run up to the trainer's latest step, copying from the history only
 * the steps that the coalesced ::step skipped. */
static void
catch_up (NapkinTrainingPage   *self,
          Run                  *run,
          const NkTrainMetrics *latest)
{
  if (latest != NULL && latest->step == run->last_step + 1)
    add_step (self, run, latest);
  else if (latest == NULL || latest->step > run->last_step)
    {
      g_autoptr(GArray) missing = nk_trainer_get_history_range (run->trainer, run->last_step + 1);

      for (guint i = 0; i < missing->len; i++)
        add_step (self, run, &g_array_index (missing, NkTrainMetrics, i));
    }
}

static void
on_checkpoint_written (NkTrainer  *trainer,
                       guint64     step,
                       const char *path,
                       Run        *run)
{
  NapkinTrainingPage *self = run->page;
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *title = g_strdup_printf (_("Checkpoint written after step %" PRIu64 ": %s"),
                                            step, name);

  run->checkpoint_step = step;
  if (run == self->shown)
    update_progress (self);
  show_toast (self, title);
}

static void
on_trainer_step (NkTrainer            *trainer,
                 const NkTrainMetrics *m,
                 Run                  *run)
{
  NapkinTrainingPage *self = run->page;

  catch_up (self, run, m);
  if (run == self->shown)
    {
      update_live_labels (self);
      update_progress (self);
      update_histogram (self);
    }
  update_run_row (self, run);
}

static void
on_trainer_state (NkTrainer          *trainer,
                  GParamSpec         *pspec,
                  Run                *run)
{
  NapkinTrainingPage *self = run->page;

  if (run == self->shown)
    update_progress (self);
  update_run_row (self, run);
  update_actions (self);
}

static void
close_pending_window (NapkinTrainingPage *self)
{
  GtkWindow *window = g_steal_pointer (&self->closing_window);

  if (window != NULL)
    {
      gtk_window_destroy (window);
      g_object_unref (window);
    }
}

static void
on_run_finished (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  NkTrainer *trainer = NK_TRAINER (source);
  g_autoptr(NapkinTrainingPage) self = user_data;
  g_autoptr(GError) error = NULL;
  Run *run = NULL;

  for (guint i = 0; i < self->runs->len; i++)
    if (((Run *) g_ptr_array_index (self->runs, i))->trainer == trainer)
      run = g_ptr_array_index (self->runs, i);
  if (run == NULL)
    return;

  run->ended_us = g_get_monotonic_time ();
  /* Whatever the last idle did not deliver. */
  catch_up (self, run, NULL);
  if (!nk_trainer_start_finish (trainer, result, &error))
    {
      g_autofree char *title = g_strdup_printf (_("%s stopped: %s"), run->name, error->message);

      run->error = g_strdup (error->message);
      show_toast (self, title);
    }
  else if (nk_trainer_get_state (trainer) == NK_TRAINER_STATE_FINISHED)
    {
      g_autofree char *loss = format_loss (run->last_loss);
      g_autofree char *title = g_strdup_printf (_("%s finished: final loss %s"), run->name, loss);

      show_toast (self, title);
    }
  if (self->active == run)
    self->active = NULL;
  g_clear_handle_id (&self->tick_source, g_source_remove);
  gtk_widget_set_sensitive (self->form_scroller, TRUE);
  if (run == self->shown)
    {
      update_live_labels (self);
      update_progress (self);
      update_histogram (self);
    }
  update_run_row (self, run);
  update_actions (self);
  validate_form (self);
  close_pending_window (self);
}

static void
start_run (NapkinTrainingPage *self,
           NkTrainConfig      *config)
{
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);
  Run *run;

  run = add_run (self, trainer);
  g_signal_connect (trainer, "step", G_CALLBACK (on_trainer_step), run);
  g_signal_connect (trainer, "notify::state", G_CALLBACK (on_trainer_state), run);
  g_signal_connect (trainer, "checkpoint-written", G_CALLBACK (on_checkpoint_written), run);
  self->active = run;
  run->started_us = g_get_monotonic_time ();
  show_run (self, run);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");
  gtk_widget_set_sensitive (self->form_scroller, FALSE);
  nk_trainer_start (trainer, NULL, on_run_finished, g_object_ref (self));
  self->tick_source = g_timeout_add_seconds (1, tick, self);
  update_run_row (self, run);
  update_actions (self);
}

/* ------------------------------------------------------------ actions */

static void
update_actions (NapkinTrainingPage *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  NkTrainerState state = self->active != NULL ? nk_trainer_get_state (self->active->trainer)
                                              : NK_TRAINER_STATE_IDLE;
  gboolean live = self->active != NULL;
  Run *shown = self->shown;
  gboolean have_steps = shown != NULL && shown->last_step > 0;

  gtk_widget_action_set_enabled (widget, "training.start", !live && self->form_valid);
  gtk_widget_action_set_enabled (widget, "training.resume-from-checkpoint", !live && self->form_valid);
  gtk_widget_action_set_enabled (widget, "training.pause", live && state == NK_TRAINER_STATE_RUNNING);
  gtk_widget_action_set_enabled (widget, "training.resume", live && state == NK_TRAINER_STATE_PAUSED);
  gtk_widget_action_set_enabled (widget, "training.stop", live);
  gtk_widget_action_set_enabled (widget, "training.checkpoint-now",
                                 live && nk_trainer_get_config (self->active->trainer)->checkpoint_dir != NULL);
  gtk_widget_action_set_enabled (widget, "training.export-csv", have_steps);
  gtk_widget_action_set_enabled (widget, "training.export-jsonl", have_steps);
  gtk_widget_action_set_enabled (widget, "training.export-plot", have_steps);
}

static void
start_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) config = NULL;
  GtkWidget *bad;

  if (self->active != NULL)
    return;
  config = build_config (self, &bad, &error);
  if (config == NULL)
    {
      show_toast (self, error->message);
      return;
    }
  start_run (self, config);
}

static void
resume_dir_chosen (GtkWidget *widget,
                   GFile     *file)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTrainConfig) config = NULL;
  GtkWidget *bad;

  if (path == NULL || self->active != NULL)
    return;
  config = build_config (self, &bad, &error);
  if (config == NULL)
    {
      show_toast (self, error->message);
      return;
    }
  g_free (config->resume_dir);
  config->resume_dir = g_strdup (path);
  /* As napkin-cli: a resumed run keeps writing checkpoints where it reads them. */
  if (config->checkpoint_dir == NULL)
    config->checkpoint_dir = g_strdup (path);
  start_run (self, config);
}

static void
resume_from_checkpoint_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *path = g_variant_get_string (parameter, NULL);

  if (*path != '\0')
    use_path (self, path, resume_dir_chosen);
  else
    napkin_choose_file (GTK_WIDGET (self), _("Resume from a Checkpoint Folder"), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                 _("_Resume"), NULL, NULL, resume_dir_chosen);
}

static void
pause_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL)
    return;
  nk_trainer_pause (self->active->trainer);
  update_actions (self);
}

static void
resume_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL)
    return;
  nk_trainer_resume (self->active->trainer);
  update_actions (self);
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL)
    return;
  nk_trainer_stop (self->active->trainer);
}

static void
checkpoint_now_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  if (self->active == NULL || nk_trainer_get_config (self->active->trainer)->checkpoint_dir == NULL)
    return;
  nk_trainer_checkpoint_now (self->active->trainer);
}

static void
open_run_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  guint index = g_variant_get_uint32 (parameter);

  if (index < self->runs->len)
    show_run (self, g_ptr_array_index (self->runs, index));
  update_actions (self);
}

static void
compare_run_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  int index = g_variant_get_int32 (parameter);

  if (index >= 0 && (guint) index < self->runs->len
      && g_ptr_array_index (self->runs, index) != self->shown)
    {
      Run *run = g_ptr_array_index (self->runs, index);
      g_autofree char *label = g_strdup_printf (_("%s · lr %g"), run->name,
                                                nk_trainer_get_config (run->trainer)->lr);

      self->compared = run;
      napkin_loss_plot_set_compare (self->loss_plot, run->loss, label);
    }
  else
    {
      self->compared = NULL;
      napkin_loss_plot_set_compare (self->loss_plot, NULL, NULL);
    }
}

/* ------------------------------------------------------------ exports */

static void
append_csv_double (GString *out,
                   double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_c (out, ',');
  if (isnan (value))
    g_string_append (out, "nan");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "inf" : "-inf");
  else
    g_string_append (out, g_ascii_dtostr (buf, sizeof buf, value));
}

static char *
metrics_csv (Run *run)
{
  g_autoptr(GArray) history = nk_trainer_get_history (run->trainer);
  const char *device = nk_trainer_get_device_name (run->trainer);
  GString *out = g_string_new ("step,loss,flops,seconds,flops_per_s,peak_flops_per_s,mfu,device,"
                               "memory_params,memory_grads,memory_optimizer,memory_activations,"
                               "memory_data,flops_forward,flops_backward,flops_matmul,"
                               "seconds_forward,seconds_backward,seconds_optimizer,"
                               "loss_scale,skipped\n");

  for (guint i = 0; i < history->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);

      g_string_append_printf (out, "%" PRIu64, m->step);
      append_csv_double (out, m->loss);
      g_string_append_printf (out, ",%" PRIu64, m->flops);
      append_csv_double (out, m->seconds);
      append_csv_double (out, m->flops_per_s);
      append_csv_double (out, m->peak_flops_per_s);
      append_csv_double (out, m->mfu);
      g_string_append_printf (out, ",%s", device != NULL ? device : "");
      for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
        g_string_append_printf (out, ",%" PRIu64, m->memory[plot_buckets[b]]);
      g_string_append_printf (out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                              m->flops_forward, m->flops_backward, m->flops_matmul);
      append_csv_double (out, m->seconds_forward);
      append_csv_double (out, m->seconds_backward);
      append_csv_double (out, m->seconds_optimizer);
      append_csv_double (out, m->loss_scale);
      g_string_append_printf (out, ",%d\n", m->skipped ? 1 : 0);
    }
  return g_string_free (out, FALSE);
}

/* One object per step with napkin-cli train --json-lines' fields, then its "done". */
static char *
metrics_jsonl (Run *run)
{
  g_autoptr(GArray) history = nk_trainer_get_history (run->trainer);
  const char *device = nk_trainer_get_device_name (run->trainer);
  GString *out = g_string_new (NULL);
  double final_loss = NAN;
  guint64 steps = 0;

  for (guint i = 0; i <= history->len; i++)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *line = NULL;

      if (i < history->len)
        {
          const NkTrainMetrics *m = &g_array_index (history, NkTrainMetrics, i);

          nk_train_metrics_build_json (m, device, b);
          final_loss = m->loss;
          steps = m->step;
        }
      else
        nk_train_done_build_json (steps, final_loss, b);
      line = nk_json_to_line (b);
      g_string_append (out, line);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

static void
write_export (NapkinTrainingPage *self,
              const char         *path,
              char               *contents)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *title = NULL;

  if (g_file_set_contents_full (path, contents, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    title = g_strdup_printf (_("Saved “%s”"), name);
  else
    title = g_strdup_printf (_("Could not save “%s”: %s"), name, error->message);
  show_toast (self, title);
  g_free (contents);
}

static void
csv_chosen (GtkWidget *widget,
            GFile     *file)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);

  if (path == NULL)
    return;
  if (self->shown != NULL)
    write_export (self, path, metrics_csv (self->shown));
}

static void
jsonl_chosen (GtkWidget *widget,
              GFile     *file)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);

  if (path == NULL)
    return;
  if (self->shown != NULL)
    write_export (self, path, metrics_jsonl (self->shown));
}

static char *
suggested_name (NapkinTrainingPage *self,
                const char         *suffix)
{
  g_autofree char *lower = g_ascii_strdown (self->shown != NULL ? self->shown->name : "run", -1);

  g_strdelimit (lower, " ", '-');
  return g_strconcat (lower, suffix, NULL);
}

static void
export_csv_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *path = g_variant_get_string (parameter, NULL);
  g_autofree char *name = suggested_name (self, ".csv");

  if (*path != '\0')
    use_path (self, path, csv_chosen);
  else
    napkin_choose_file (GTK_WIDGET (self), _("Export Metrics as CSV"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                 name, NULL, csv_chosen);
}

static void
export_jsonl_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *path = g_variant_get_string (parameter, NULL);
  g_autofree char *name = suggested_name (self, ".jsonl");

  if (*path != '\0')
    use_path (self, path, jsonl_chosen);
  else
    napkin_choose_file (GTK_WIDGET (self), _("Export Metrics as JSON Lines"), GTK_FILE_CHOOSER_ACTION_SAVE,
                 _("_Export"), name, NULL, jsonl_chosen);
}

static gboolean
export_plot (NapkinTrainingPage  *self,
             const char          *kind,
             const char          *path,
             GError             **error)
{
  GtkWidget *plot = g_str_equal (kind, "loss") ? GTK_WIDGET (self->loss_plot)
                    : g_str_equal (kind, "memory") ? GTK_WIDGET (self->memory_plot)
                    : g_str_equal (kind, "scale") ? GTK_WIDGET (self->scale_plot)
                    : g_str_equal (kind, "histogram") ? GTK_WIDGET (self->histogram_plot)
                    : GTK_WIDGET (self->throughput_plot);

  return napkin_plot_save (NAPKIN_PLOT (plot), path, EXPORT_WIDTH, EXPORT_HEIGHT, error);
}

static void
plot_chosen (GtkWidget *widget,
             GFile     *file)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  g_autofree char *path = local_path_of (self, file);
  const char *kind = g_object_get_data (G_OBJECT (self), "napkin-export-kind");
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  if (path == NULL)
    return;
  name = g_filename_display_basename (path);

  if (export_plot (self, kind != NULL ? kind : "loss", path, &error))
    title = g_strdup_printf (_("Saved “%s”"), name);
  else
    title = g_strdup (error->message);
  show_toast (self, title);
}

/* Parameter "KIND:PATH" with KIND loss, memory, throughput, scale or histogram; an
 * empty PATH asks. */
static void
export_plot_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);
  const char *target = g_variant_get_string (parameter, NULL);
  const char *colon = strchr (target, ':');
  g_autofree char *kind = colon != NULL ? g_strndup (target, colon - target) : g_strdup (target);
  const char *path = colon != NULL ? colon + 1 : "";

  if (!g_strv_contains ((const char *const[]) { "loss", "memory", "throughput", "scale", "histogram", NULL },
                        kind))
    return;
  g_object_set_data_full (G_OBJECT (self), "napkin-export-kind", g_strdup (kind), g_free);
  if (*path != '\0')
    use_path (self, path, plot_chosen);
  else
    {
      g_autofree char *name = g_strconcat (kind, ".png", NULL);
      GtkFileFilter *filter = gtk_file_filter_new ();

      gtk_file_filter_set_name (filter, _("PNG image or SVG drawing"));
      gtk_file_filter_add_suffix (filter, "png");
      gtk_file_filter_add_suffix (filter, "svg");
      napkin_choose_file (GTK_WIDGET (self), _("Export Plot"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), name,
                   filter, plot_chosen);
      g_object_unref (filter);
    }
}

/* ------------------------------------------------------------ folding */

static void
show_form_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  adw_leaflet_set_visible_child_name (self->leaflet, "form");
}

static void
show_run_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (widget);

  adw_leaflet_set_visible_child_name (self->leaflet, "run");
}

/* ------------------------------------------------------------ closing */

/**
 * napkin_training_page_is_running:
 * @self: a training page
 *
 * Returns: whether a run is running or paused (closing the window should ask)
 */
gboolean
napkin_training_page_is_running (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), FALSE);
  return self->active != NULL && run_is_live (self->active);
}

static void
on_close_response (AdwMessageDialog   *dialog,
                   const char         *response,
                   NapkinTrainingPage *self)
{
  GtkWindow *window = g_object_get_data (G_OBJECT (dialog), "napkin-window");

  if (g_str_equal (response, "stop") && self->active != NULL)
    {
      g_set_object (&self->closing_window, window);
      if (nk_trainer_get_config (self->active->trainer)->checkpoint_dir != NULL)
        nk_trainer_checkpoint_now (self->active->trainer);
      /* A paused worker must wake up to see the stop. */
      nk_trainer_stop (self->active->trainer);
      nk_trainer_resume (self->active->trainer);
    }
  else if (g_str_equal (response, "stop"))
    gtk_window_destroy (window);
}

/**
 * napkin_training_page_confirm_close:
 * @self: a training page with a run going
 * @window: the window being closed
 *
 * Asks whether to stop the run. Stopping writes a checkpoint first when the run
 * has a checkpoint folder, and destroys @window once the run has ended; the
 * window's close-request handler returns %TRUE after calling this.
 */
void
napkin_training_page_confirm_close (NapkinTrainingPage *self,
                                    GtkWindow          *window)
{
  GtkWidget *dialog;
  gboolean checkpoint;

  g_return_if_fail (NAPKIN_IS_TRAINING_PAGE (self));
  g_return_if_fail (GTK_IS_WINDOW (window));

  if (!napkin_training_page_is_running (self))
    {
      gtk_window_destroy (window);
      return;
    }
  checkpoint = nk_trainer_get_config (self->active->trainer)->checkpoint_dir != NULL;
  dialog = adw_message_dialog_new (window, _("Stop the Training Run?"),
                                   checkpoint
                                   ? _("A checkpoint is written first, so the run can be resumed later.")
                                   : _("The run has no checkpoint folder: its progress is lost."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Keep Training"),
                                    "stop", _("_Stop and Close"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "stop",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "napkin-window", window);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_close_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------ GObject */

static void
load_css (void)
{
  static gboolean loaded;
  GdkDisplay *display = gdk_display_get_default ();
  g_autoptr(GtkCssProvider) provider = NULL;

  if (loaded || display == NULL)
    return;
  loaded = TRUE;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/io/github/napkinml/Napkin/ui/napkin-training-page.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void
on_form_changed (NapkinTrainingPage *self)
{
  validate_form (self);
  queue_save (self);
}

static void
napkin_training_page_dispose (GObject *object)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);
  GtkWidget *child;

  if (self->save_source != 0)
    save_now (self);
  g_clear_handle_id (&self->tick_source, g_source_remove);
  /* A run still going is stopped; its thread ends on its own. */
  for (guint i = 0; self->runs != NULL && i < self->runs->len; i++)
    {
      Run *run = g_ptr_array_index (self->runs, i);

      if (run_is_live (run))
        {
          nk_trainer_stop (run->trainer);
          nk_trainer_resume (run->trainer);
        }
    }
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  self->active = self->shown = self->compared = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_TRAINING_PAGE);
  /* The template's unnamed top box. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->settings);
  g_clear_object (&self->closing_window);

  G_OBJECT_CLASS (napkin_training_page_parent_class)->dispose (object);
}

static void
napkin_training_page_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_training_page_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      napkin_training_page_set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_training_page_finalize (GObject *object)
{
  NapkinTrainingPage *self = NAPKIN_TRAINING_PAGE (object);

  g_free (self->text_file);
  g_free (self->checkpoint_dir);
  g_free (self->form_error_text);
  g_free (self->measuring);
  g_strfreev (self->param_names);

  G_OBJECT_CLASS (napkin_training_page_parent_class)->finalize (object);
}

static void
napkin_training_page_class_init (NapkinTrainingPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_training_page_dispose;
  object_class->finalize = napkin_training_page_finalize;
  object_class->get_property = napkin_training_page_get_property;
  object_class->set_property = napkin_training_page_set_property;
  widget_class->unroot = napkin_training_page_unroot;

  /**
   * NapkinTrainingPage:settings:
   *
   * The settings that keep the form, with the `training-state` key.
   */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (NAPKIN_TYPE_LOSS_PLOT);
  g_type_ensure (NAPKIN_TYPE_MEMORY_PLOT);
  g_type_ensure (NAPKIN_TYPE_THROUGHPUT_PLOT);
  g_type_ensure (NAPKIN_TYPE_SCALE_PLOT);
  g_type_ensure (NAPKIN_TYPE_HISTOGRAM_PLOT);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-training-page.ui");
#define CHILD(name) gtk_widget_class_bind_template_child (widget_class, NapkinTrainingPage, name)
  CHILD (form_scroller);
  CHILD (model_row);
  CHILD (dim_spin);
  CHILD (layers_spin);
  CHILD (context_row);
  CHILD (context_spin);
  CHILD (text_row);
  CHILD (batch_spin);
  CHILD (steps_spin);
  CHILD (lr_row);
  CHILD (optimizer_row);
  CHILD (precision_row);
  CHILD (seed_spin);
  CHILD (cuda_row);
  CHILD (cuda_switch);
  CHILD (checkpoint_dir_row);
  CHILD (checkpoint_every_spin);
  CHILD (form_error);
  CHILD (run_title);
  CHILD (run_subtitle);
  CHILD (progress_bar);
  CHILD (progress_label);
  CHILD (checkpoint_label);
  CHILD (status_label);
  CHILD (prediction_grid_title);
  CHILD (predicted_params);
  CHILD (predicted_flops);
  CHILD (predicted_memory);
  CHILD (predicted_memory_caption);
  CHILD (predicted_time);
  CHILD (predicted_time_caption);
  CHILD (live_loss);
  CHILD (live_rate);
  CHILD (live_mfu);
  CHILD (live_scale);
  CHILD (smooth_toggle);
  CHILD (log_toggle);
  CHILD (loss_plot);
  CHILD (memory_plot);
  CHILD (throughput_plot);
  CHILD (scale_plot);
  CHILD (scale_card);
  CHILD (histogram_plot);
  CHILD (histogram_card);
  CHILD (histogram_source);
  CHILD (histogram_sources);
  CHILD (leaflet);
  CHILD (settings_button);
  CHILD (form_header);
  CHILD (runs_list);
  CHILD (runs_group);
#undef CHILD

  gtk_widget_class_install_action (widget_class, "training.start", NULL, start_action);
  gtk_widget_class_install_action (widget_class, "training.pause", NULL, pause_action);
  gtk_widget_class_install_action (widget_class, "training.resume", NULL, resume_action);
  gtk_widget_class_install_action (widget_class, "training.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "training.checkpoint-now", NULL, checkpoint_now_action);
  gtk_widget_class_install_action (widget_class, "training.resume-from-checkpoint", "s",
                                   resume_from_checkpoint_action);
  gtk_widget_class_install_action (widget_class, "training.export-csv", "s", export_csv_action);
  gtk_widget_class_install_action (widget_class, "training.export-jsonl", "s", export_jsonl_action);
  gtk_widget_class_install_action (widget_class, "training.export-plot", "s", export_plot_action);
  gtk_widget_class_install_action (widget_class, "training.open-run", "u", open_run_action);
  gtk_widget_class_install_action (widget_class, "training.compare-run", "i", compare_run_action);
  gtk_widget_class_install_action (widget_class, "training.show-form", NULL, show_form_action);
  gtk_widget_class_install_action (widget_class, "training.show-run", NULL, show_run_action);
  gtk_widget_class_install_action (widget_class, "training.choose-text-file", NULL, choose_text_file_action);
  gtk_widget_class_install_action (widget_class, "training.clear-text-file", NULL, clear_text_file_action);
  gtk_widget_class_install_action (widget_class, "training.choose-checkpoint-dir", NULL,
                                   choose_checkpoint_dir_action);
  gtk_widget_class_install_action (widget_class, "training.clear-checkpoint-dir", NULL,
                                   clear_checkpoint_dir_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK,
                                       "training.checkpoint-now", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "training.export-csv", "s", "");
}

static gboolean
toggle_to_smoothing (GBinding     *binding,
                     const GValue *from,
                     GValue       *to,
                     gpointer      user_data)
{
  g_value_set_double (to, g_value_get_boolean (from) ? 0.9 : 0.0);
  return TRUE;
}

static void
napkin_training_page_init (NapkinTrainingPage *self)
{
  GtkSpinButton *spins[7];

  load_css ();
  gtk_widget_init_template (GTK_WIDGET (self));
  self->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) run_free);

  /* The lecture's defaults: AdamW, as the planner. */
  adw_combo_row_set_selected (self->optimizer_row, G_N_ELEMENTS (optimizers) - 1);
  gtk_widget_set_visible (GTK_WIDGET (self->runs_group), FALSE);

  spins[0] = self->dim_spin;
  spins[1] = self->layers_spin;
  spins[2] = self->context_spin;
  spins[3] = self->batch_spin;
  spins[4] = self->steps_spin;
  spins[5] = self->seed_spin;
  spins[6] = self->checkpoint_every_spin;
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    g_signal_connect_swapped (spins[i], "value-changed", G_CALLBACK (on_form_changed), self);
  g_signal_connect_swapped (self->lr_row, "changed", G_CALLBACK (on_form_changed), self);
  g_signal_connect_swapped (self->model_row, "notify::selected", G_CALLBACK (on_form_changed), self);
  g_signal_connect_swapped (self->optimizer_row, "notify::selected", G_CALLBACK (on_form_changed), self);
  g_signal_connect_swapped (self->precision_row, "notify::selected", G_CALLBACK (on_form_changed), self);
  g_signal_connect_swapped (self->cuda_switch, "notify::active", G_CALLBACK (on_form_changed), self);

  g_object_bind_property (self->log_toggle, "active", self->loss_plot, "log-scale",
                          G_BINDING_SYNC_CREATE);
  g_object_bind_property_full (self->smooth_toggle, "active", self->loss_plot, "smoothing",
                               G_BINDING_SYNC_CREATE, toggle_to_smoothing, NULL, NULL, NULL);

  {
    /* Ctrl+Return starts a run whenever the page is on screen, wherever the focus
     * is (the window's view switcher has it when the page opens). */
    GtkEventController *shortcuts = gtk_shortcut_controller_new ();

    gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts), GTK_SHORTCUT_SCOPE_MANAGED);
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Return, GDK_CONTROL_MASK),
                                                            gtk_named_action_new ("training.start")));
    gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);
  }
  g_signal_connect_swapped (self->histogram_source, "notify::selected",
                            G_CALLBACK (on_histogram_source_selected), self);
  /* Folded, the run view shows and the form is one button away; unfolded, both are
   * there and neither button is needed. */
  g_object_bind_property (self->leaflet, "folded", self->settings_button, "visible",
                          G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->leaflet, "folded", self->form_header, "visible",
                          G_BINDING_SYNC_CREATE);
  adw_leaflet_set_visible_child_name (self->leaflet, "run");
  gtk_widget_set_visible (gtk_widget_get_parent (self->scale_card), FALSE);
  {
    g_autoptr(NkTrainConfig) defaults = nk_train_config_new ();

    fill_histogram_sources (self, defaults);
  }

  validate_form (self);
  update_progress (self);
  start_probe (self);
}

/**
 * napkin_training_page_new:
 *
 * Returns: (transfer floating): a new Training page
 */
GtkWidget *
napkin_training_page_new (void)
{
  return g_object_new (NAPKIN_TYPE_TRAINING_PAGE, NULL);
}

/**
 * napkin_training_page_get_input:
 * @self: a training page
 * @name: dim, layers, context, batch, steps, seed, checkpoint-every (spin buttons),
 *   lr (an entry row), model, optimizer, precision (combo rows) or cuda (a switch)
 *
 * Returns: (transfer none) (nullable): the input widget
 */
GtkWidget *
napkin_training_page_get_input (NapkinTrainingPage *self,
                                const char         *name)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);

  if (g_str_equal (name, "dim")) return GTK_WIDGET (self->dim_spin);
  if (g_str_equal (name, "layers")) return GTK_WIDGET (self->layers_spin);
  if (g_str_equal (name, "context")) return GTK_WIDGET (self->context_spin);
  if (g_str_equal (name, "batch")) return GTK_WIDGET (self->batch_spin);
  if (g_str_equal (name, "steps")) return GTK_WIDGET (self->steps_spin);
  if (g_str_equal (name, "seed")) return GTK_WIDGET (self->seed_spin);
  if (g_str_equal (name, "checkpoint-every")) return GTK_WIDGET (self->checkpoint_every_spin);
  if (g_str_equal (name, "lr")) return GTK_WIDGET (self->lr_row);
  if (g_str_equal (name, "model")) return GTK_WIDGET (self->model_row);
  if (g_str_equal (name, "optimizer")) return GTK_WIDGET (self->optimizer_row);
  if (g_str_equal (name, "precision")) return GTK_WIDGET (self->precision_row);
  if (g_str_equal (name, "cuda")) return GTK_WIDGET (self->cuda_switch);
  return NULL;
}

/**
 * napkin_training_page_dup_config:
 * @self: a training page
 * @error: return location for the form's error
 *
 * Returns: (transfer full) (nullable): the config a Start would run
 */
NkTrainConfig *
napkin_training_page_dup_config (NapkinTrainingPage  *self,
                                 GError             **error)
{
  GtkWidget *bad;

  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return build_config (self, &bad, error);
}

/* Returns: (nullable): the inline error the form shows */
const char *
napkin_training_page_get_form_error (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->form_error_text;
}

/**
 * napkin_training_page_get_loss_plot:
 * @self: a training page
 *
 * Returns: (transfer none): the loss plot
 */
NapkinLossPlot *
napkin_training_page_get_loss_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->loss_plot;
}

/**
 * napkin_training_page_get_memory_plot:
 * @self: a training page
 *
 * Returns: (transfer none): the memory plot
 */
NapkinMemoryPlot *
napkin_training_page_get_memory_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->memory_plot;
}

/**
 * napkin_training_page_get_throughput_plot:
 * @self: a training page
 *
 * Returns: (transfer none): the throughput plot
 */
NapkinThroughputPlot *
napkin_training_page_get_throughput_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->throughput_plot;
}

/**
 * napkin_training_page_get_scale_plot:
 * @self: a training page
 *
 * Returns: (transfer none): the fp16 loss-scale plot
 */
NapkinScalePlot *
napkin_training_page_get_scale_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->scale_plot;
}

/**
 * napkin_training_page_get_histogram_plot:
 * @self: a training page
 *
 * Returns: (transfer none): the histogram plot
 */
NapkinHistogramPlot *
napkin_training_page_get_histogram_plot (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->histogram_plot;
}

/**
 * napkin_training_page_get_leaflet:
 * @self: a training page
 *
 * Returns: (transfer none): the leaflet that folds the form away on narrow windows
 */
AdwLeaflet *
napkin_training_page_get_leaflet (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->leaflet;
}

guint
napkin_training_page_get_n_runs (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), 0);
  return self->runs->len;
}

/**
 * napkin_training_page_get_trainer:
 * @self: a training page
 * @index: a run, from 0 in the order they started
 *
 * Returns: (transfer none) (nullable): the run's trainer
 */
NkTrainer *
napkin_training_page_get_trainer (NapkinTrainingPage *self,
                                  guint               index)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  if (index >= self->runs->len)
    return NULL;
  return ((Run *) g_ptr_array_index (self->runs, index))->trainer;
}

/**
 * napkin_training_page_get_shown_trainer:
 * @self: a training page
 *
 * Returns: (transfer none) (nullable): the trainer whose plots are shown
 */
NkTrainer *
napkin_training_page_get_shown_trainer (NapkinTrainingPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  return self->shown != NULL ? self->shown->trainer : NULL;
}

/**
 * napkin_training_page_dup_run_summary:
 * @self: a training page
 * @index: a run
 *
 * Returns: (transfer full) (nullable): the run's row in the list, "title\nsubtitle"
 */
char *
napkin_training_page_dup_run_summary (NapkinTrainingPage *self,
                                      guint               index)
{
  Run *run;

  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);
  if (index >= self->runs->len)
    return NULL;
  run = g_ptr_array_index (self->runs, index);
  return g_strdup_printf ("%s\n%s", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (run->row)),
                          adw_action_row_get_subtitle (run->row));
}

/**
 * napkin_training_page_get_label_text:
 * @self: a training page
 * @name: loss, rate, mfu, scale, progress, checkpoint, status, params, flops,
 *   memory, time, time-caption
 *
 * Returns: (nullable): what the label shows
 */
const char *
napkin_training_page_get_label_text (NapkinTrainingPage *self,
                                     const char         *name)
{
  g_return_val_if_fail (NAPKIN_IS_TRAINING_PAGE (self), NULL);

  if (g_str_equal (name, "loss")) return gtk_label_get_label (self->live_loss);
  if (g_str_equal (name, "rate")) return gtk_label_get_label (self->live_rate);
  if (g_str_equal (name, "mfu")) return gtk_label_get_label (self->live_mfu);
  if (g_str_equal (name, "scale")) return gtk_label_get_label (self->live_scale);
  if (g_str_equal (name, "progress")) return gtk_label_get_label (self->progress_label);
  if (g_str_equal (name, "status")) return gtk_label_get_label (self->status_label);
  if (g_str_equal (name, "params")) return gtk_label_get_label (self->predicted_params);
  if (g_str_equal (name, "flops")) return gtk_label_get_label (self->predicted_flops);
  if (g_str_equal (name, "memory")) return gtk_label_get_label (self->predicted_memory);
  if (g_str_equal (name, "time")) return gtk_label_get_label (self->predicted_time);
  if (g_str_equal (name, "time-caption")) return gtk_label_get_label (self->predicted_time_caption);
  if (g_str_equal (name, "checkpoint")) return gtk_label_get_label (self->checkpoint_label);
  return NULL;
}
