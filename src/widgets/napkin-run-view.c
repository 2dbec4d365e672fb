/* napkin-run-view.c: one training run on screen: progress, prediction beside measurement, plots
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The view shows the #NapkinRun in its #NapkinRunView:run property. Showing
 * another run sets the property: the plots are rebound to that run's series
 * (kept once, in the run) and the labels follow its properties through one
 * #GSignalGroup; nothing is cleared, replayed or copied. The numbers shown are
 * the engine's: the prediction card is nk_train_config_predict() for
 * #NapkinRunView:config at the device's measured matmul rate
 * (nk_train_gemm_rate_measure(), off the main thread), skipped fp16 steps are the
 * trainer's counter, and the histogram is the one the worker takes. The view
 * formats them and keeps its hands off the arithmetic.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "nk-device.h"
#include "nk-units.h"
#include "napkin-gpt-accounting.h"
#include "napkin-pace-plot.h"
#include "napkin-plan-comparison.h"
#include "napkin-run-view.h"
#include "napkin-wrap-box.h"

struct _NapkinRunView
{
  GtkWidget             parent_instance;

  NapkinRun            *run;
  NapkinRun            *compare;
  NkTrainConfig        *config;
  GSignalGroup         *run_signals;
  gboolean              fixed_shown;     /* the run's peak, prediction and capacity are drawn */
  guint                 tick_source;
  char                 *measuring;       /* the device whose matmul rate is being measured */
  char                **param_names;     /* the histogram choices' parameters */
  gboolean              filling_sources;

  GtkWidget            *plan_card;
  GtkWidget            *histogram_card;
  GtkWidget            *plan_hint;
  NapkinPlanComparison *plan_comparison;
  NapkinPacePlot       *pace_plot;
  NapkinSeries         *tokens_map;      /* the run's tokens seen, for the plan's time */
  GtkWidget            *prediction_card;
  GtkProgressBar       *progress_bar;
  GtkLabel             *progress_label;
  GtkLabel             *checkpoint_label;
  GtkLabel             *status_label;
  GtkLabel             *predicted_params;
  GtkLabel             *predicted_flops;
  GtkLabel             *predicted_flops_caption;
  GtkLabel             *predicted_memory;
  GtkLabel             *predicted_memory_caption;
  GtkLabel             *predicted_time;
  GtkLabel             *predicted_time_caption;
  GtkLabel             *live_loss;
  GtkLabel             *live_rate;
  GtkLabel             *live_mfu;
  GtkLabel             *live_scale;
  GtkLabel             *live_scale_caption;
  GtkToggleButton      *smooth_toggle;
  GtkToggleButton      *log_toggle;
  GtkDropDown          *x_axis_dropdown;
  GtkToggleButton      *log_x_toggle;
  NapkinLossPlot       *loss_plot;
  NapkinMemoryPlot     *memory_plot;
  NapkinThroughputPlot *throughput_plot;
  NapkinScalePlot      *scale_plot;
  GtkWidget            *scale_card;
  NapkinHistogramPlot  *histogram_plot;
  GtkWidget            *sample_card;
  GtkWidget            *accounting_card;
  NapkinGptAccounting  *accounting;
  GtkLabel             *sample_title;
  GtkLabel             *sample_label;
  GtkDropDown          *histogram_source;
  GtkStringList        *histogram_sources;
};

G_DEFINE_FINAL_TYPE (NapkinRunView, napkin_run_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_RUN,
  PROP_COMPARE,
  PROP_CONFIG,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void update_prediction (NapkinRunView *self);
static void update_plan_card (NapkinRunView *self);
static void update_plan_time (NapkinRunView *self);

/* ------------------------------------------------------------ text */

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

/* ------------------------------------------------------------ prediction */

/* A measurement under way: the view that asked, and the application it holds
 * open — leaving the process while the worker is inside OpenBLAS hangs exit()
 * in OpenBLAS's thread shutdown, so quitting waits the few milliseconds left. */
typedef struct {
  GWeakRef      view;
  GApplication *app;
} Measuring;

static void
on_gemm_rate_measured (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Measuring *measuring = user_data;
  g_autoptr(NapkinRunView) self = g_weak_ref_get (&measuring->view);
  g_autoptr(GError) error = NULL;

  /* The answer is remembered by the engine; the view only redraws the card. */
  nk_train_gemm_rate_measure_finish (result, &error);
  g_weak_ref_clear (&measuring->view);
  if (measuring->app != NULL)
    {
      g_application_release (measuring->app);
      g_object_unref (measuring->app);
    }
  g_free (measuring);
  if (self == NULL)
    return;
  g_clear_pointer (&self->measuring, g_free);
  update_prediction (self);
}

/* The device's measured matmul rate, NAN with the reason while it is being measured
 * (one measurement per device and process, started here) or when it cannot be. */
static double
gemm_rate_for (NapkinRunView  *self,
               const char     *device,
               char          **out_reason)
{
  double rate;

  if (nk_train_gemm_rate_peek (device, &rate, out_reason))
    return rate;
  if (self->measuring == NULL)
    {
      Measuring *measuring = g_new0 (Measuring, 1);

      g_weak_ref_init (&measuring->view, self);
      measuring->app = g_application_get_default ();
      if (measuring->app != NULL)
        g_application_hold (g_object_ref (measuring->app));
      self->measuring = g_strdup (device);
      nk_train_gemm_rate_measure (device, NULL, on_gemm_rate_measured, measuring);
    }
  *out_reason = g_strdup (_("Measuring this device’s matmul rate…"));
  return NAN;
}

static void
show_predicted_memory (NapkinRunView           *self,
                       const NkTrainPrediction *p)
{
  g_autofree char *pa = nk_units_format_bytes (p->memory[0]);
  g_autofree char *g = nk_units_format_bytes (p->memory[1]);
  g_autofree char *o = nk_units_format_bytes (p->memory[2]);
  g_autofree char *a = nk_units_format_bytes (p->memory[3]);
  g_autofree char *planner = nk_units_format_bytes (p->activations_planner);
  g_autofree char *breakdown = isfinite (p->activations_planner) && p->memory[3] > 0
    /* a GPT: what it stores beside the Planner's transformer formulas */
    ? g_strdup_printf (_("Params %s + grads %s + optimizer %s + activations %s (the Planner's formulas: %s, %+.1f %%)"),
                       pa, g, o, a, planner, 100 * (p->activations_planner / p->memory[3] - 1))
    : g_strdup_printf (_("Params %s + grads %s + optimizer %s + activations %s"), pa, g, o, a);

  take_label (self->predicted_memory, nk_units_format_bytes (p->memory_total));
  /* The caption names the buckets; the tooltip has each one's bytes (the memory
   * plot draws them as dashed lines too). */
  gtk_label_set_label (self->predicted_memory_caption, _("Predicted memory, 4 buckets"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_memory), breakdown);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_memory_caption), breakdown);
}

static void
update_prediction (NapkinRunView *self)
{
  const NkTrainConfig *c = self->config;
  const NkModelArch *arch;
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

  arch = nk_model_arch_lookup (c->model);
  rate = gemm_rate_for (self, c->device, &reason);
  nk_train_config_predict (c, rate, &p);
  take_label (self->predicted_params, format_count ((double) p.n_parameters));
  take_label (self->predicted_flops, format_count (p.flops_per_step));
  /* a model's own formula (a GPT's PaLM count, nk_train_config_predict()), or the Planner's 6·N */
  gtk_label_set_label (self->predicted_flops_caption,
                       arch->step_flops_caption != NULL ? _(arch->step_flops_caption)
                                                        : _("FLOPs per step, 6 · N · tokens"));
  show_predicted_memory (self, &p);
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

/* ------------------------------------------------------------ the run's fixed lines */

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

/* What stays fixed for a run comes with its first step (which may arrive after the
 * run has ended: the end callback outranks the trainer's low-priority idle). */
static void
show_fixed_lines (NapkinRunView *self)
{
  const NkTrainMetrics *m = self->run != NULL ? napkin_run_get_latest (self->run) : NULL;
  const NkTrainConfig *c;
  const char *device_name;

  if (m == NULL || self->fixed_shown)
    return;
  self->fixed_shown = TRUE;
  c = napkin_run_get_config (self->run);
  device_name = nk_trainer_get_device_name (napkin_run_get_trainer (self->run));
  napkin_memory_plot_set_predicted (self->memory_plot, m->predicted);
  napkin_throughput_plot_set_peak (self->throughput_plot, m->peak_flops_per_s,
                                   peak_dtype_name (c, device_name));
  napkin_memory_plot_set_capacity (self->memory_plot,
                                   capacity_of (device_name != NULL ? device_name : c->device));
}

/* ------------------------------------------------------------ histogram */

/* The shown run's latest histogram, when the worker has taken a new one. */
static void
update_histogram (NapkinRunView *self)
{
  const NkTrainHistogram *shown = napkin_histogram_plot_get_histogram (self->histogram_plot);
  NkTrainHistogram h;

  if (self->run == NULL || !nk_trainer_get_histogram (napkin_run_get_trainer (self->run), &h))
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
fill_histogram_sources (NapkinRunView       *self,
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
on_histogram_source_selected (NapkinRunView *self)
{
  guint selected = gtk_drop_down_get_selected (self->histogram_source);
  guint n = self->param_names != NULL ? g_strv_length (self->param_names) : 0;

  if (self->filling_sources || self->run == NULL || n == 0 || selected >= 2 * n)
    return;
  nk_trainer_set_histogram_source (napkin_run_get_trainer (self->run),
                                   self->param_names[selected % n], selected < n);
}

/* ------------------------------------------------------------ labels and progress */

static void
update_live_labels (NapkinRunView *self)
{
  const NkTrainMetrics *m = self->run != NULL ? napkin_run_get_latest (self->run) : NULL;

  napkin_gpt_accounting_set_counted (self->accounting, m);
  if (m == NULL)
    {
      set_label (self->live_loss, NULL);
      set_label (self->live_rate, NULL);
      set_label (self->live_mfu, NULL);
      set_label (self->live_scale, NULL);
      napkin_throughput_plot_set_mfu (self->throughput_plot, NAN);
      napkin_throughput_plot_set_split (self->throughput_plot, 0, 0, 0);
      return;
    }
  take_label (self->live_loss, napkin_run_format_loss (m->loss));
  take_label (self->live_rate, nk_units_format_rate (m->flops_per_s));
  if (isfinite (m->mfu))
    take_label (self->live_mfu, g_strdup_printf ("%.2f %%", 100 * m->mfu));
  else
    set_label (self->live_mfu, NULL);
  /* A block-scaled run has no loss scale; the label tells what its quantizer did. */
  gtk_label_set_label (self->live_scale_caption,
                       nk_precision_is_block_scaled (napkin_run_get_config (self->run)->precision)
                       ? _("Operands flushed to zero · clipped") : _("Loss scale · skipped steps"));
  if (nk_precision_is_block_scaled (napkin_run_get_config (self->run)->precision))
    take_label (self->live_scale, g_strdup_printf ("%.2f %% · %.3f %%", 100 * m->quant_flushed,
                                                   100 * m->quant_clipped));
  else if (napkin_run_get_config (self->run)->precision == NK_PRECISION_FP16_MIXED)
    take_label (self->live_scale,
                g_strdup_printf (_("%g · %" PRIu64 " skipped"), m->loss_scale,
                                 nk_trainer_get_skipped_steps (napkin_run_get_trainer (self->run))));
  else
    set_label (self->live_scale, _("1 (not scaled)"));

  napkin_throughput_plot_set_mfu (self->throughput_plot, m->mfu);
  napkin_throughput_plot_set_split (self->throughput_plot, m->seconds_forward,
                                    m->seconds_backward, m->seconds_optimizer);
  /* the ops' own count beside the formula the card predicts with */
  if (m->flops > 0 && m->flops_formula > 0)
    {
      g_autofree char *counted = format_count ((double) m->flops);
      g_autofree char *tip = g_strdup_printf (_("Counted by the ops in the last step: %s FLOPs, %+.2f %% from the formula"),
                                              counted, 100 * ((double) m->flops / m->flops_formula - 1));

      gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_flops), tip);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->predicted_flops_caption), tip);
    }
}

static const char *
state_suffix (NkTrainerState state)
{
  switch (state)
    {
    case NK_TRAINER_STATE_PAUSED: return _(" · paused");
    case NK_TRAINER_STATE_FINISHED: return _(" · finished");
    case NK_TRAINER_STATE_STOPPED: return _(" · stopped");
    case NK_TRAINER_STATE_FAILED: return _(" · failed");
    case NK_TRAINER_STATE_IDLE:
    case NK_TRAINER_STATE_RUNNING:
    default: return "";
    }
}

static void
update_progress (NapkinRunView *self)
{
  NapkinRun *run = self->run;
  const NkTrainConfig *c;
  NkTrainerState state;
  guint64 done, start;
  double elapsed, fraction;
  g_autofree char *elapsed_text = NULL;
  g_autoptr(GString) text = NULL;
  const char *error;

  if (run == NULL)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      gtk_label_set_label (self->progress_label, _("Not started"));
      gtk_label_set_label (self->checkpoint_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->status_label), FALSE);
      return;
    }
  if (napkin_run_get_import (run) != NULL)
    {
      g_autofree char *where = g_filename_display_name (napkin_run_get_import_path (run));
      gboolean following = napkin_run_get_follower (run) != NULL;
      gboolean running = following && napkin_run_get_state (run) == NK_TRAINER_STATE_RUNNING;
      /* a followed run says how its command ended, or what its follower noticed */
      const char *said = !following ? NULL
                         : napkin_run_get_error (run) != NULL ? napkin_run_get_error (run)
                         : napkin_run_get_notice (run);
      /* a followed log's folder is among its facts: its name is enough here */
      g_autofree char *name = g_filename_display_basename (napkin_run_get_import_path (run));
      g_autofree char *read = g_strdup_printf (running ? _("Following %s") : _("Read from %s"),
                                               following ? name : where);

      gtk_progress_bar_set_fraction (self->progress_bar, running ? 0 : 1);
      gtk_label_set_label (self->progress_label, read);
      gtk_label_set_label (self->checkpoint_label, "");
      gtk_label_set_label (self->status_label, said != NULL ? said : "");
      gtk_widget_set_visible (GTK_WIDGET (self->status_label), said != NULL);
      return;
    }
  c = napkin_run_get_config (run);
  state = napkin_run_get_state (run);
  done = napkin_run_get_last_step (run);
  start = nk_trainer_get_start_step (napkin_run_get_trainer (run));
  fraction = c->steps > 0 ? (double) done / (double) c->steps : 0;
  gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0, 1));

  elapsed = napkin_run_get_elapsed (run);
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
  g_string_append (text, state_suffix (state));
  gtk_label_set_label (self->progress_label, text->str);

  if (napkin_run_get_checkpoint_step (run) > 0)
    take_label (self->checkpoint_label,
                g_strdup_printf (_("Last checkpoint after step %" PRIu64),
                                 napkin_run_get_checkpoint_step (run)));
  else
    gtk_label_set_label (self->checkpoint_label, "");

  error = napkin_run_get_error (run);
  gtk_label_set_label (self->status_label, error != NULL ? error : "");
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), error != NULL);
}

static gboolean
tick (gpointer user_data)
{
  update_progress (user_data);
  return G_SOURCE_CONTINUE;
}

/* The elapsed time moves on by itself while the run is live. */
static void
update_tick (NapkinRunView *self)
{
  gboolean live = self->run != NULL && napkin_run_is_live (self->run);

  if (live && self->tick_source == 0)
    self->tick_source = g_timeout_add_seconds (1, tick, self);
  else if (!live)
    g_clear_handle_id (&self->tick_source, g_source_remove);
}

/* A GPT's latest sample of its text (NkTrainConfig.sample_every), drawn on the worker:
 * a model that generates text (#NkModelArch.generate). */
static void
update_sample (NapkinRunView *self)
{
  gboolean gpt = self->run != NULL
                 && nk_model_arch_lookup (napkin_run_get_config (self->run)->model)->generate != NULL;
  g_autofree char *text = NULL;
  g_autofree char *title = NULL;
  guint64 step = 0;

  gtk_widget_set_visible (self->sample_card, gpt);
  if (!gpt)
    return;
  /* a new run has no sample yet: not the last run's */
  if ((text = nk_trainer_dup_sample (napkin_run_get_trainer (self->run), &step)) == NULL)
    {
      gtk_label_set_label (self->sample_title, _("What the Model Writes"));
      gtk_label_set_label (self->sample_label, _("The first sample comes after the first steps."));
      return;
    }
  title = g_strdup_printf (_("What the Model Writes after Step %" PRIu64), step);
  gtk_label_set_label (self->sample_title, title);
  gtk_label_set_label (self->sample_label, text);
}

static void
on_run_step (NapkinRunView *self)
{
  /* a followed log that began empty gets its maps with its first steps */
  if (self->run != NULL && napkin_run_get_plan (self->run) != NULL && self->tokens_map == NULL
      && napkin_series_get_length (napkin_run_get_series (self->run, NAPKIN_RUN_SERIES_LOSS)) <= 16)
    update_plan_card (self);
  update_plan_time (self);
  show_fixed_lines (self);
  update_live_labels (self);
  update_progress (self);
  update_histogram (self);
  update_sample (self);
}

static void
on_run_state (NapkinRunView *self)
{
  update_progress (self);
  update_histogram (self);
  update_sample (self);
  update_live_labels (self);
  update_tick (self);
}

/* ------------------------------------------------------------ the run */

/* The loss plot's x axis: each run's x values come from its own counts (napkin-run-axis.h). */
static void
update_x_axis (NapkinRunView *self)
{
  NapkinXAxis axis = MIN (gtk_drop_down_get_selected (self->x_axis_dropdown), NAPKIN_N_X_AXES - 1);
  g_autoptr(NapkinSeries) map = NULL;
  g_autoptr(NapkinSeries) compare_map = NULL;

  if (axis != NAPKIN_X_AXIS_STEP && self->run != NULL)
    map = napkin_run_dup_x_map (self->run, axis);
  if (axis != NAPKIN_X_AXIS_STEP && self->compare != NULL)
    compare_map = napkin_run_dup_x_map (self->compare, axis);
  napkin_loss_plot_set_x_axis (self->loss_plot, axis, map, compare_map);
}

static void
bind_plots (NapkinRunView *self)
{
  NapkinRun *run = self->run;
  NapkinSeries *memory[NAPKIN_MEMORY_PLOT_N_BUCKETS];
  gboolean fp16 = run != NULL && napkin_run_get_config (run)->precision == NK_PRECISION_FP16_MIXED;

  for (guint b = 0; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    memory[b] = run != NULL ? napkin_run_get_series (run, NAPKIN_RUN_SERIES_PARAMS + b) : NULL;
  napkin_loss_plot_set_series (self->loss_plot,
                               run != NULL ? napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS) : NULL);
  napkin_memory_plot_set_series (self->memory_plot, run != NULL ? memory : NULL);
  napkin_throughput_plot_set_series (self->throughput_plot,
                                     run != NULL ? napkin_run_get_series (run, NAPKIN_RUN_SERIES_THROUGHPUT) : NULL);
  napkin_scale_plot_set_series (self->scale_plot,
                                fp16 ? napkin_run_get_series (run, NAPKIN_RUN_SERIES_SCALE) : NULL,
                                fp16 ? napkin_run_get_series (run, NAPKIN_RUN_SERIES_SKIPPED) : NULL);
  gtk_widget_set_visible (gtk_widget_get_parent (self->scale_card), fp16);
  napkin_memory_plot_set_predicted (self->memory_plot, NULL);
  napkin_memory_plot_set_capacity (self->memory_plot, NAN);
  napkin_throughput_plot_set_peak (self->throughput_plot, NAN, NULL);
  napkin_throughput_plot_set_plan (self->throughput_plot, NAN);
  self->fixed_shown = FALSE;
  show_fixed_lines (self);
  if (run != NULL)
    {
      /* an imported run's learning rate is not ours to know */
      g_autofree char *label = napkin_run_get_import (run) != NULL
                               ? g_strdup (napkin_run_get_name (run))
                               : g_strdup_printf (_("%s · lr %g"), napkin_run_get_name (run),
                                                  napkin_run_get_config (run)->lr);

      napkin_loss_plot_set_label (self->loss_plot, label);
    }
}

/**
 * napkin_run_view_set_run:
 * @self: a run view
 * @run: (nullable): the run to show
 *
 * Shows @run: the plots are bound to its series, the labels follow it, and the
 * prediction card shows its config. The run's #NapkinRun:shown says so.
 */
void
napkin_run_view_set_run (NapkinRunView *self,
                         NapkinRun     *run)
{
  g_return_if_fail (NAPKIN_IS_RUN_VIEW (self));
  g_return_if_fail (run == NULL || NAPKIN_IS_RUN (run));

  if (self->run == run)
    return;
  if (self->run != NULL)
    napkin_run_set_shown (self->run, FALSE);
  g_set_object (&self->run, run);
  g_signal_group_set_target (self->run_signals, run);
  if (run != NULL)
    napkin_run_set_shown (run, TRUE);
  if (self->compare == run && run != NULL)
    napkin_run_view_set_compare (self, NULL);

  bind_plots (self);
  if (run != NULL)
    fill_histogram_sources (self, napkin_run_get_config (run));
  napkin_histogram_plot_set_histogram (self->histogram_plot, NULL);
  update_histogram (self);
  update_sample (self);
  if (run != NULL)
    napkin_run_view_set_config (self, napkin_run_get_config (run));
  update_live_labels (self);
  update_progress (self);
  update_tick (self);
  update_plan_card (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUN]);
}

/* The plan's lines beside the measured ones: its FLOP/s on the throughput plot
 * (on the log's count), its tokens against wall time on the pace plot, and its
 * time for the run's tokens on the loss plot. */
static void
update_plan_lines (NapkinRunView            *self,
                   const NkImportComparison *comparison)
{
  const NkImportPrediction *plan = comparison != NULL ? napkin_run_get_plan (self->run) : NULL;
  g_autoptr(NapkinSeries) time_map = NULL;

  g_clear_object (&self->tokens_map);
  if (plan != NULL)
    {
      time_map = napkin_run_dup_x_map (self->run, NAPKIN_X_AXIS_TIME);
      self->tokens_map = napkin_run_dup_x_map (self->run, NAPKIN_X_AXIS_TOKENS);
    }
  napkin_throughput_plot_set_plan (self->throughput_plot,
                                   comparison != NULL ? comparison->predicted[NK_IMPORT_Q_FLOPS] : NAN);
  napkin_pace_plot_set_plan (self->pace_plot, plan);
  napkin_pace_plot_set_maps (self->pace_plot, time_map, self->tokens_map);
  gtk_widget_set_visible (GTK_WIDGET (self->pace_plot), plan != NULL);
  update_plan_time (self);
}

/* An imported run has no prediction of Napkin's: it shows its plan instead, once
 * one is chosen (training.compare-plan). */
static void
update_plan_card (NapkinRunView *self)
{
  gboolean imported = self->run != NULL && napkin_run_get_import (self->run) != NULL;
  NkImportComparison comparison;
  gboolean has_plan = imported && napkin_run_get_comparison (self->run, &comparison);

  gtk_widget_set_visible (self->plan_card, imported);
  gtk_widget_set_visible (self->prediction_card, !imported);
  /* a log has no tensors of ours and no memory buckets (its peak is in the table) */
  gtk_widget_set_visible (self->histogram_card, !imported);
  gtk_widget_set_visible (gtk_widget_get_parent (gtk_widget_get_parent (GTK_WIDGET (self->memory_plot))), !imported);
  gtk_widget_set_visible (self->plan_hint, imported && !has_plan);
  gtk_widget_set_visible (GTK_WIDGET (self->plan_comparison), has_plan);
  /* a plan gives an imported run its tokens and FLOPs per step */
  update_x_axis (self);
  napkin_plan_comparison_set (self->plan_comparison, has_plan ? &comparison : NULL);
  /* with the plan's GPU, the log's FLOP/s per GPU stand against its peak */
  if (has_plan)
    {
      const NkImportPrediction *plan = napkin_run_get_plan (self->run);

      napkin_throughput_plot_set_peak (self->throughput_plot, plan->peak, plan->dtype);
      napkin_throughput_plot_set_mfu (self->throughput_plot, comparison.measured[NK_IMPORT_Q_MFU]);
    }
  update_plan_lines (self, has_plan ? &comparison : NULL);
}

/* Across wall time, the loss plot marks when the plan reaches the run's latest
 * tokens. */
static void
update_plan_time (NapkinRunView *self)
{
  const NkImportPrediction *plan = self->run != NULL ? napkin_run_get_plan (self->run) : NULL;
  double tokens = NAN;

  if (plan != NULL && self->tokens_map != NULL)
    napkin_series_get_last (self->tokens_map, NULL, &tokens);
  napkin_loss_plot_set_plan_time (self->loss_plot, plan != NULL && isfinite (tokens)
                                                   ? nk_import_prediction_seconds_for_tokens (plan, tokens)
                                                   : NAN);
}

/**
 * napkin_run_view_set_compare:
 * @self: a run view
 * @run: (nullable): another run whose loss shares the loss plot's axes
 */
void
napkin_run_view_set_compare (NapkinRunView *self,
                             NapkinRun     *run)
{
  g_autofree char *label = NULL;

  g_return_if_fail (NAPKIN_IS_RUN_VIEW (self));
  g_return_if_fail (run == NULL || NAPKIN_IS_RUN (run));

  if (run == self->run)
    run = NULL;
  if (!g_set_object (&self->compare, run))
    return;
  if (run != NULL)
    label = g_strdup_printf (_("%s · lr %g"), napkin_run_get_name (run), napkin_run_get_config (run)->lr);
  napkin_loss_plot_set_compare (self->loss_plot,
                                run != NULL ? napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS) : NULL,
                                label);
  update_x_axis (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARE]);
}

/**
 * napkin_run_view_set_config:
 * @self: a run view
 * @config: (nullable): the config the prediction card describes
 *
 * Showing a run sets its config; the page sets the form's while no run is going.
 */
void
napkin_run_view_set_config (NapkinRunView       *self,
                            const NkTrainConfig *config)
{
  g_return_if_fail (NAPKIN_IS_RUN_VIEW (self));

  if (config != self->config)
    {
      g_clear_pointer (&self->config, nk_train_config_free);
      self->config = config != NULL ? nk_train_config_copy (config) : NULL;
    }
  update_prediction (self);
  /* before a run, the choices name the parameters of the model the form describes */
  if (self->run == NULL && self->config != NULL)
    fill_histogram_sources (self, self->config);
  /* the activation and FLOP terms of a transformer (nk_train_config_activation_terms()) */
  gtk_widget_set_visible (self->accounting_card,
                          self->config != NULL
                          && nk_model_arch_lookup (self->config->model)->activation_terms != NULL);
  napkin_gpt_accounting_set_config (self->accounting, self->config);
  update_live_labels (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONFIG]);
}

/* Returns: (transfer none) (nullable): the shown run */
NapkinRun *
napkin_run_view_get_run (NapkinRunView *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_VIEW (self), NULL);
  return self->run;
}

/* Returns: (transfer none) (nullable): the compared run */
NapkinRun *
napkin_run_view_get_compare (NapkinRunView *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_VIEW (self), NULL);
  return self->compare;
}

/* Returns: (transfer none) (nullable): the config of the prediction card */
const NkTrainConfig *
napkin_run_view_get_config (NapkinRunView *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_VIEW (self), NULL);
  return self->config;
}

/* ------------------------------------------------------------ GObject */

static void
napkin_run_view_dispose (GObject *object)
{
  NapkinRunView *self = NAPKIN_RUN_VIEW (object);
  GtkWidget *child;

  g_clear_handle_id (&self->tick_source, g_source_remove);
  if (self->run_signals != NULL)
    g_signal_group_set_target (self->run_signals, NULL);
  g_clear_object (&self->run_signals);
  if (self->run != NULL)
    napkin_run_set_shown (self->run, FALSE);
  g_clear_object (&self->run);
  g_clear_object (&self->compare);
  g_clear_object (&self->tokens_map);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_RUN_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (napkin_run_view_parent_class)->dispose (object);
}

static void
napkin_run_view_finalize (GObject *object)
{
  NapkinRunView *self = NAPKIN_RUN_VIEW (object);

  g_clear_pointer (&self->config, nk_train_config_free);
  g_free (self->measuring);
  g_strfreev (self->param_names);

  G_OBJECT_CLASS (napkin_run_view_parent_class)->finalize (object);
}

static void
napkin_run_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NapkinRunView *self = NAPKIN_RUN_VIEW (object);

  switch (prop_id)
    {
    case PROP_RUN:
      g_value_set_object (value, self->run);
      break;
    case PROP_COMPARE:
      g_value_set_object (value, self->compare);
      break;
    case PROP_CONFIG:
      g_value_set_boxed (value, self->config);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NapkinRunView *self = NAPKIN_RUN_VIEW (object);

  switch (prop_id)
    {
    case PROP_RUN:
      napkin_run_view_set_run (self, g_value_get_object (value));
      break;
    case PROP_COMPARE:
      napkin_run_view_set_compare (self, g_value_get_object (value));
      break;
    case PROP_CONFIG:
      napkin_run_view_set_config (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_view_class_init (NapkinRunViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_run_view_dispose;
  object_class->finalize = napkin_run_view_finalize;
  object_class->get_property = napkin_run_view_get_property;
  object_class->set_property = napkin_run_view_set_property;

  /**
   * NapkinRunView:run: (nullable)
   *
   * The run on screen.
   */
  properties[PROP_RUN] =
    g_param_spec_object ("run", NULL, NULL, NAPKIN_TYPE_RUN,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinRunView:compare: (nullable)
   *
   * A run whose loss is drawn beside the shown run's.
   */
  properties[PROP_COMPARE] =
    g_param_spec_object ("compare", NULL, NULL, NAPKIN_TYPE_RUN,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinRunView:config: (nullable)
   *
   * The config the prediction card describes.
   */
  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, NK_TYPE_TRAIN_CONFIG,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (NAPKIN_TYPE_WRAP_BOX);
  g_type_ensure (NAPKIN_TYPE_LOSS_PLOT);
  g_type_ensure (NAPKIN_TYPE_MEMORY_PLOT);
  g_type_ensure (NAPKIN_TYPE_THROUGHPUT_PLOT);
  g_type_ensure (NAPKIN_TYPE_SCALE_PLOT);
  g_type_ensure (NAPKIN_TYPE_HISTOGRAM_PLOT);
  g_type_ensure (NAPKIN_TYPE_PLAN_COMPARISON);
  g_type_ensure (NAPKIN_TYPE_PACE_PLOT);
  g_type_ensure (NAPKIN_TYPE_GPT_ACCOUNTING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-run-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child (widget_class, NapkinRunView, name)
  CHILD (plan_card);
  CHILD (histogram_card);
  CHILD (plan_hint);
  CHILD (plan_comparison);
  CHILD (pace_plot);
  CHILD (prediction_card);
  CHILD (progress_bar);
  CHILD (progress_label);
  CHILD (checkpoint_label);
  CHILD (status_label);
  CHILD (predicted_params);
  CHILD (predicted_flops);
  CHILD (predicted_flops_caption);
  CHILD (predicted_memory);
  CHILD (predicted_memory_caption);
  CHILD (predicted_time);
  CHILD (predicted_time_caption);
  CHILD (live_loss);
  CHILD (live_rate);
  CHILD (live_mfu);
  CHILD (live_scale);
  CHILD (live_scale_caption);
  CHILD (smooth_toggle);
  CHILD (log_toggle);
  CHILD (x_axis_dropdown);
  CHILD (log_x_toggle);
  CHILD (loss_plot);
  CHILD (memory_plot);
  CHILD (throughput_plot);
  CHILD (scale_plot);
  CHILD (scale_card);
  CHILD (histogram_plot);
  CHILD (sample_card);
  CHILD (accounting_card);
  CHILD (accounting);
  CHILD (sample_title);
  CHILD (sample_label);
  CHILD (histogram_source);
  CHILD (histogram_sources);
#undef CHILD
  gtk_widget_class_bind_template_callback (widget_class, on_histogram_source_selected);
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
napkin_run_view_init (NapkinRunView *self)
{
  g_autoptr(NkTrainConfig) defaults = nk_train_config_new ();

  gtk_widget_init_template (GTK_WIDGET (self));

  self->run_signals = g_signal_group_new (NAPKIN_TYPE_RUN);
  g_signal_group_connect_swapped (self->run_signals, "notify::last-step", G_CALLBACK (on_run_step), self);
  g_signal_group_connect_swapped (self->run_signals, "notify::state", G_CALLBACK (on_run_state), self);
  g_signal_group_connect_swapped (self->run_signals, "notify::error", G_CALLBACK (update_progress), self);
  g_signal_group_connect_swapped (self->run_signals, "notify::checkpoint-step",
                                  G_CALLBACK (update_progress), self);
  g_signal_group_connect_swapped (self->run_signals, "notify::has-plan", G_CALLBACK (update_plan_card), self);

  g_object_bind_property (self->log_toggle, "active", self->loss_plot, "log-scale",
                          G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->log_x_toggle, "active", self->loss_plot, "log-x",
                          G_BINDING_SYNC_CREATE);
  g_signal_connect_swapped (self->x_axis_dropdown, "notify::selected", G_CALLBACK (update_x_axis), self);
  g_object_bind_property_full (self->smooth_toggle, "active", self->loss_plot, "smoothing",
                               G_BINDING_SYNC_CREATE, toggle_to_smoothing, NULL, NULL, NULL);
  gtk_widget_set_visible (gtk_widget_get_parent (self->scale_card), FALSE);
  fill_histogram_sources (self, defaults);
  update_progress (self);
}

GtkWidget *
napkin_run_view_new (void)
{
  return g_object_new (NAPKIN_TYPE_RUN_VIEW, NULL);
}

/**
 * napkin_run_view_get_plot:
 * @self: a run view
 * @kind: loss, memory, throughput, scale or histogram
 *
 * Returns: (transfer none) (nullable): the plot
 */
NapkinPlot *
napkin_run_view_get_plot (NapkinRunView *self,
                          const char    *kind)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_VIEW (self), NULL);

  if (g_str_equal (kind, "loss")) return NAPKIN_PLOT (self->loss_plot);
  if (g_str_equal (kind, "memory")) return NAPKIN_PLOT (self->memory_plot);
  if (g_str_equal (kind, "throughput")) return NAPKIN_PLOT (self->throughput_plot);
  if (g_str_equal (kind, "scale")) return NAPKIN_PLOT (self->scale_plot);
  if (g_str_equal (kind, "histogram")) return NAPKIN_PLOT (self->histogram_plot);
  return NULL;
}

/**
 * napkin_run_view_get_label_text:
 * @self: a run view
 * @name: loss, rate, mfu, scale, progress, checkpoint, status, params, flops,
 *   memory, time, time-caption
 *
 * Returns: (nullable): what the label shows
 */
const char *
napkin_run_view_get_label_text (NapkinRunView *self,
                                const char    *name)
{
  static const struct { const char *name; gsize offset; } labels[] = {
    { "loss", G_STRUCT_OFFSET (NapkinRunView, live_loss) },
    { "rate", G_STRUCT_OFFSET (NapkinRunView, live_rate) },
    { "mfu", G_STRUCT_OFFSET (NapkinRunView, live_mfu) },
    { "scale", G_STRUCT_OFFSET (NapkinRunView, live_scale) },
    { "scale-caption", G_STRUCT_OFFSET (NapkinRunView, live_scale_caption) },
    { "progress", G_STRUCT_OFFSET (NapkinRunView, progress_label) },
    { "status", G_STRUCT_OFFSET (NapkinRunView, status_label) },
    { "params", G_STRUCT_OFFSET (NapkinRunView, predicted_params) },
    { "flops", G_STRUCT_OFFSET (NapkinRunView, predicted_flops) },
    { "memory", G_STRUCT_OFFSET (NapkinRunView, predicted_memory) },
    { "time", G_STRUCT_OFFSET (NapkinRunView, predicted_time) },
    { "time-caption", G_STRUCT_OFFSET (NapkinRunView, predicted_time_caption) },
    { "checkpoint", G_STRUCT_OFFSET (NapkinRunView, checkpoint_label) },
  };

  g_return_val_if_fail (NAPKIN_IS_RUN_VIEW (self), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_str_equal (name, labels[i].name))
      return gtk_label_get_label (G_STRUCT_MEMBER (GtkLabel *, self, labels[i].offset));
  return NULL;
}
