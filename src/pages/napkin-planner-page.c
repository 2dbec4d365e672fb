/* napkin-planner-page.c: the Planner page: a training budget from a few numbers
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page is a form and a view of one NkPlan. Text the person types goes to
 * the plan as text (nk_plan_set_input_text()); text that is not a number leaves
 * the input without a value, so every output that depends on it becomes NAN and
 * shows "—" instead of a stale number, and the plan has the row's sentence. All
 * arithmetic is the plan's, the architecture's parameter count included: the
 * page only formats what the plan says (once per change, on NkPlan:revision).
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "nk-gpus.h"
#include "nk-json.h"
#include "nk-plan.h"
#include "nk-units.h"

#include "napkin-file-chooser.h"
#include "napkin-cluster-form.h"
#include "napkin-cluster-results.h"
#include "napkin-memory-chart.h"
#include "napkin-page.h"
#include "napkin-planner-page-private.h"

/* At least this wide, the form and the results sit side by side. */
#define WIDE_LAYOUT_MIN_WIDTH 720

/* A thin no-break space groups digits the SI way, in every language. */
#define DIGIT_GROUP "\u202f"


/* Never busy: what it shows is kept in settings as it changes. */
G_DEFINE_FINAL_TYPE_WITH_CODE (NapkinPlannerPage, napkin_planner_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (NAPKIN_TYPE_PAGE, NULL))

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_PLAN,
  N_PROPS,
  PROP_BUSY = N_PROPS,
};

static GParamSpec *properties[N_PROPS];

/* The numeric inputs typed into entry rows, in the order of the form. The name
 * is both the NkPlan input and, after "planner-", its settings key; the plan
 * knows which may be left empty. */
typedef struct {
  const char *name;
  gsize       row_offset;
  FormGroup   group;
  const char *default_text;
} EntryInput;

#define ROW(field) G_STRUCT_OFFSET (NapkinPlannerPage, field)

static const EntryInput entry_inputs[] = {
  { "params",        ROW (params_row),   GROUP_MODEL,        "70B" },
  { "tokens",        ROW (tokens_row),   GROUP_MODEL,        "15T" },
  { "layers",        ROW (layers_row),   GROUP_ARCHITECTURE, "" },
  { "d-model",       ROW (d_model_row),  GROUP_ARCHITECTURE, "" },
  { "d-ff",          ROW (d_ff_row),     GROUP_ARCHITECTURE, "" },
  { "vocab",         ROW (vocab_row),    GROUP_ARCHITECTURE, "" },
  { "seq",           ROW (seq_row),      GROUP_ARCHITECTURE, "" },
  { "gpus",          ROW (gpus_row),     GROUP_HARDWARE,     "1024" },
  { "mfu",           ROW (mfu_row),      GROUP_HARDWARE,     "0.5" },
  { "price",         ROW (price_row),    GROUP_HARDWARE,     "" },
  { "batch",         ROW (batch_row),    GROUP_ACTIVATIONS,  "" },
  { "heads",         ROW (heads_row),    GROUP_ACTIVATIONS,  "" },
  { "deadline-days", ROW (deadline_row), GROUP_DEADLINE,     "" },
};

/* Inputs chosen from lists or switches, for error display. */
static const struct {
  const char *name;
  gsize       row_offset;
  FormGroup   group;
} choice_inputs[] = {
  { "gpu",               ROW (gpu_row),              GROUP_HARDWARE },
  { "dtype",             ROW (dtype_row),            GROUP_HARDWARE },
  { "sparse",            ROW (sparse_row),           GROUP_HARDWARE },
  { "zero-stage",        ROW (zero_row),             GROUP_HARDWARE },
  { "activation-model",  ROW (activation_model_row), GROUP_ACTIVATIONS },
};

#undef ROW

/* The dtype row's items, in order. */
static const NkPeakDtype dtype_items[] = {
  NK_PEAK_FP32, NK_PEAK_TF32, NK_PEAK_BF16, NK_PEAK_FP16, NK_PEAK_FP8,
};

static GtkWidget *
row_at (NapkinPlannerPage *self,
        gsize              offset)
{
  return *(GtkWidget **) G_STRUCT_MEMBER_P (self, offset);
}

static const EntryInput *
find_entry_input (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (entry_inputs); i++)
    if (g_strcmp0 (entry_inputs[i].name, name) == 0)
      return &entry_inputs[i];
  return NULL;
}

/* ------------------------------------------------------------ formatting */

static char *
group_digits (double value)
{
  g_autofree char *digits = g_strdup_printf ("%.0f", fabs (value));
  GString *s = g_string_new (value < 0 ? "-" : "");
  gsize n = strlen (digits);

  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append (s, DIGIT_GROUP);
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

/* Whole numbers with grouped digits while they stay readable, powers of ten beyond. */
static char *
format_count (double value)
{
  if (!isfinite (value))
    return g_strdup ("—");
  if (fabs (value) < 1e10)
    return group_digits (round (value));
  return nk_units_format_sci (value, 2);
}

static char *
format_days (double days)
{
  if (!isfinite (days) || days < 0)
    return g_strdup ("—");
  return nk_units_format_duration (days * 86400.0);
}

/* Text for an entry that the plan's answer goes into: short, with a suffix, and
 * rounded down so that the answer to "what fits" still fits. */
char *
_napkin_planner_page_format_fill_in (double value)
{
  static const struct { double scale; const char *suffix; } scales[] = {
    { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" },
  };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    if (value >= scales[i].scale)
      {
        double mantissa = floor (value / scales[i].scale * 1e4) / 1e4;
        char *end;

        g_ascii_formatd (buf, sizeof buf, "%.4f", mantissa);
        end = buf + strlen (buf) - 1;
        while (*end == '0')
          *end-- = '\0';
        if (*end == '.')
          *end = '\0';
        return g_strconcat (buf, scales[i].suffix, NULL);
      }
  return g_strdup_printf ("%.0f", floor (value));
}

static void
set_label (GtkLabel   *label,
           const char *text)
{
  if (g_strcmp0 (gtk_label_get_label (label), text ? text : "") != 0)
    gtk_label_set_label (label, text ? text : "");
}

static void
take_label (GtkLabel *label,
            char     *text)
{
  set_label (label, text);
  g_free (text);
}

static void
set_formula (NapkinPlannerPage *self,
             GtkLabel          *label,
             const char        *output)
{
  const char *text = nk_plan_get_formula (self->plan, output);

  set_label (label, text != NULL ? text : _("Not computed: check the highlighted input."));
}

/* ------------------------------------------------------------ errors */

static const char *
error_for (NapkinPlannerPage *self,
           const char        *input)
{
  return nk_plan_get_input_error (self->plan, input);
}

static void
update_errors (NapkinPlannerPage *self)
{
  GString *texts[N_GROUPS];
  const char *first = NULL;

  for (guint g = 0; g < N_GROUPS; g++)
    texts[g] = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (entry_inputs); i++)
    {
      const char *sentence = error_for (self, entry_inputs[i].name);
      GString *s = texts[entry_inputs[i].group];

      napkin_form_mark_invalid (row_at (self, entry_inputs[i].row_offset), sentence);
      if (sentence != NULL)
        g_string_append_printf (s, "%s%s", s->len ? "\n" : "", sentence);
    }
  for (guint i = 0; i < G_N_ELEMENTS (choice_inputs); i++)
    {
      const char *sentence = error_for (self, choice_inputs[i].name);
      GString *s = texts[choice_inputs[i].group];

      napkin_form_mark_invalid (row_at (self, choice_inputs[i].row_offset), sentence);
      if (sentence != NULL)
        g_string_append_printf (s, "%s%s", s->len ? "\n" : "", sentence);
    }

  for (guint g = 0; g < N_GROUPS; g++)
    {
      set_label (self->group_errors[g], texts[g]->str);
      gtk_widget_set_visible (GTK_WIDGET (self->group_errors[g]), texts[g]->len > 0);
      g_string_free (texts[g], TRUE);
    }

  /* The headline explains a missing answer with the first input the time needs;
   * a bad optional input elsewhere neither hides a good answer nor explains a
   * missing one. */
  for (const char * const *name = (const char *[]) { "params", "tokens", "gpu", "dtype", "sparse",
                                                     "gpus", "mfu", NULL };
       *name != NULL && first == NULL; name++)
    first = error_for (self, *name);
  if (first == NULL)
    first = nk_plan_get_error (self->plan);
  if (!isfinite (nk_plan_get_days (self->plan)) && first != NULL)
    {
      set_label (self->headline_error, first);
      gtk_widget_set_visible (GTK_WIDGET (self->headline_error), TRUE);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->headline_error), FALSE);
}

/* ------------------------------------------------------------ outputs */

static void
update_time_outputs (NapkinPlannerPage *self)
{
  NkPlan *plan = self->plan;
  double days = nk_plan_get_days (plan);
  double peak = nk_plan_get_peak_flops_per_gpu (plan);
  double hbm = nk_plan_get_hbm_per_gpu (plan);
  double gpus = nk_plan_get_gpus (plan);
  double price = nk_plan_get_price (plan);
  const char *dtype = nk_peak_dtype_to_string (nk_plan_get_dtype (plan));
  const char *gpu_name = nk_plan_get_gpu_name (plan);
  g_autofree char *peak_text = nk_units_format_rate (peak);

  /* Time. */
  take_label (self->days_label, format_days (days));
  take_label (self->days_value, format_days (days));
  set_formula (self, self->days_formula, "days");

  if (isfinite (days))
    {
      g_autofree char *count = format_count (gpus);

      take_label (self->headline_caption,
                  g_strdup_printf (nk_plan_get_sparse (plan)
                                   ? _("%s × %s at %s 2:4-sparse %s each, MFU %.3g")
                                   : _("%s × %s at %s dense %s each, MFU %.3g"),
                                   count, gpu_name, peak_text, dtype, nk_plan_get_output (plan, "mfu-used")));
    }
  else
    set_label (self->headline_caption, _("No estimate yet"));

  {
    double hours = nk_plan_get_gpu_hours (plan);
    g_autofree char *count = format_count (hours);

    take_label (self->gpu_hours_value,
                isfinite (hours) ? g_strdup_printf (_("%s GPU-hours"), count) : g_strdup ("—"));
    set_formula (self, self->gpu_hours_formula, "gpu-hours");
  }
  {
    double cost = nk_plan_get_cost (plan);
    g_autofree char *count = format_count (cost);

    if (isfinite (price) && price == 0 && isfinite (cost))
      {
        set_label (self->cost_value, _("no price given"));
        set_label (self->cost_formula, _("Enter a price per GPU-hour in the Hardware group."));
      }
    else
      {
        take_label (self->cost_value,
                    isfinite (cost) ? g_strdup_printf (_("$%s"), count) : g_strdup ("—"));
        set_formula (self, self->cost_formula, "cost");
      }
  }
  {
    double flops = nk_plan_get_total_flops (plan);
    g_autofree char *sci = nk_units_format_sci (flops, 1);

    take_label (self->flops_value,
                isfinite (flops) ? g_strdup_printf (_("%s FLOPs"), sci) : g_strdup ("—"));
    set_formula (self, self->flops_formula, "total-flops");
  }
  {
    double rate = nk_plan_get_flops_per_day (plan);
    g_autofree char *sci = nk_units_format_sci (rate, 2);
    const char *peak_formula = nk_plan_get_formula (plan, "peak-flops-per-gpu");
    const char *rate_formula = nk_plan_get_formula (plan, "flops-per-day");

    take_label (self->rate_value,
                isfinite (rate) ? g_strdup_printf (_("%s FLOPs/day"), sci) : g_strdup ("—"));
    if (rate_formula != NULL)
      take_label (self->rate_formula,
                  g_strdup_printf ("%s\n%s", rate_formula, peak_formula ? peak_formula : ""));
    else
      set_formula (self, self->rate_formula, "flops-per-day");
  }

  /* The peak the plan uses, right under the GPU it comes from, with the GPU's
   * memory as the datasheet gives it. */
  {
    g_autofree char *subtitle = NULL;

    set_label (self->peak_value, isfinite (peak) ? peak_text : "—");
    if (!isfinite (peak))
      subtitle = g_strdup_printf (_("The GPU table lists no %s peak for this GPU"), dtype);
    else if (isfinite (hbm))
      subtitle = g_strdup_printf (nk_plan_get_sparse (plan) ? _("2:4-sparse %s · %g GB of memory")
                                                            : _("Dense %s · %g GB of memory"),
                                  dtype, hbm / 1e9);
    else
      subtitle = g_strdup_printf (nk_plan_get_sparse (plan) ? _("2:4-sparse %s") : _("Dense %s"),
                                  dtype);
    adw_action_row_set_subtitle (self->peak_row, subtitle);
  }
  {
    g_autofree char *subtitle =
      g_strdup_printf (_("%g bytes of state per parameter"),
                       nk_optimizer_state_bytes (nk_plan_get_optimizer (plan)));

    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->optimizer_row), subtitle);
  }
}

static void
update_memory_outputs (NapkinPlannerPage *self)
{
  NkPlan *plan = self->plan;
  double hbm = nk_plan_get_hbm_per_gpu (plan);
  double gpus = nk_plan_get_gpus (plan);

  /* Memory. The chart's C setters take NAN ("no estimate"), which GObject
   * property bindings refuse; so do the plan's getters. */
  napkin_memory_chart_set_bytes (self->chart, NAPKIN_MEMORY_PARAMS,
                                 nk_plan_get_memory_params_per_gpu (plan));
  napkin_memory_chart_set_bytes (self->chart, NAPKIN_MEMORY_GRADS,
                                 nk_plan_get_memory_grads_per_gpu (plan));
  napkin_memory_chart_set_bytes (self->chart, NAPKIN_MEMORY_OPTIMIZER,
                                 nk_plan_get_memory_optimizer_per_gpu (plan));
  napkin_memory_chart_set_bytes (self->chart, NAPKIN_MEMORY_ACTIVATIONS,
                                 nk_plan_get_memory_activations_per_gpu (plan));
  /* a recipe's low-precision copies, which "Each GPU holds" counts too (none: 0) */
  {
    double low_precision = nk_plan_get_output (plan, "memory-max-low-precision");

    napkin_memory_chart_set_bytes (self->chart, NAPKIN_MEMORY_LOW_PRECISION,
                                   isfinite (low_precision) ? low_precision : 0);
  }
  /* the routed experts' share of three of them (none: 0) */
  _napkin_cluster_results_show_experts (self->chart, plan);
  napkin_memory_chart_set_hbm (self->chart, hbm);
  napkin_memory_chart_set_gpus (self->chart, gpus);
  napkin_memory_chart_set_fits (self->chart, nk_plan_get_output (plan, "fits-data-parallel") == 1);
  {
    const char *bytes_text = nk_plan_get_bytes_per_param_text (plan);
    const char *bytes_formula = nk_plan_get_formula (plan, "bytes-per-param");
    double per_gpu = nk_plan_get_memory_per_gpu (plan);
    g_autofree char *per_gpu_text = nk_units_format_bytes (per_gpu);
    g_autofree char *hbm_text = nk_units_format_bytes (hbm);

    set_label (self->bytes_value, bytes_text ? bytes_text : "—");
    adw_action_row_set_subtitle (self->bytes_row, bytes_formula ? bytes_formula : "");

    if (isfinite (per_gpu) && isfinite (hbm))
      take_label (self->memory_value,
                  g_strdup_printf (nk_plan_get_output (plan, "fits-data-parallel") == 1 ? _("%s of %s") : _("%s of %s: does not fit"),
                                   per_gpu_text, hbm_text));
    else
      set_label (self->memory_value, "—");
    if (nk_plan_get_output (plan, "fits-data-parallel") == 1 || !isfinite (per_gpu))
      gtk_widget_remove_css_class (GTK_WIDGET (self->memory_value), "error");
    else
      gtk_widget_add_css_class (GTK_WIDGET (self->memory_value), "error");
    {
      const char *mem = nk_plan_get_formula (plan, "memory-per-gpu");
      const char *fits = nk_plan_get_formula (plan, "fits-data-parallel");

      if (mem != NULL)
        take_label (self->memory_formula, g_strdup_printf ("%s\n%s", mem, fits ? fits : ""));
      else
        set_formula (self, self->memory_formula, "memory-per-gpu");
    }
  }
}

static void
update_inverse_outputs (NapkinPlannerPage *self)
{
  NkPlan *plan = self->plan;

  /* The inverse questions, and which assumption the first rests on. */
  {
    double largest = nk_plan_get_largest_params (plan);
    double zero0 = nk_plan_largest_params_for_stage (plan, 0);
    double zero3 = nk_plan_largest_params_for_stage (plan, 3);
    int stage = nk_plan_get_zero_stage (plan);
    g_autofree char *largest_text = nk_units_format_sci (largest, 1);
    g_autofree char *zero0_text = nk_units_format_sci (zero0, 1);
    g_autofree char *zero3_text = nk_units_format_sci (zero3, 1);
    g_autofree char *subtitle = NULL;

    if (largest == 0 && zero3 == 0)
      subtitle = g_strdup (_("Not even one parameter fits: the activations alone fill the GPU (lower the batch or the sequence)"));
    else if (isfinite (largest))
      subtitle = g_strdup_printf (_("%s parameters with ZeRO %d. Fully sharded (ZeRO 3): %s; "
                                    "every GPU holding a full copy (ZeRO 0): %s."),
                                  largest_text, stage, zero3_text, zero0_text);
    else
      subtitle = g_strdup (_("Needs a valid GPU, GPU count and training state"));
    adw_action_row_set_subtitle (self->largest_row, subtitle);
    gtk_widget_action_set_enabled (GTK_WIDGET (self), "planner.largest", isfinite (largest) && largest >= 1);
  }
  {
    double needed = nk_plan_get_gpus_for_deadline (plan);
    double deadline = nk_plan_get_deadline_days (plan);
    g_autofree char *count = format_count (needed);

    if (isfinite (needed))
      take_label (self->deadline_label,
                  g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Finishing in %g day takes %s GPUs.",
                                                "Finishing in %g days takes %s GPUs.",
                                                deadline == 1 ? 1 : 2),
                                   deadline, count));
    else
      set_label (self->deadline_label, _("Enter a deadline to see how many GPUs it takes."));
    gtk_widget_action_set_enabled (GTK_WIDGET (self), "planner.fewest-gpus", isfinite (needed));
  }
}

static void
update_architecture_outputs (NapkinPlannerPage *self)
{
  NkPlan *plan = self->plan;

  /* The architecture's size, with each formula and its numbers. */
  {
    double sized = nk_plan_get_sized_params (plan);
    g_autofree char *subtitle = NULL;

    if (isfinite (sized))
      {
        g_autofree char *count = format_count (sized);
        g_autofree char *sci = nk_units_format_sci (sized, 1);
        GString *text = g_string_new (nk_plan_get_formula (plan, "sized-params"));

        subtitle = g_strdup_printf (_("%s parameters (%s), embeddings excluded"), count, sci);
        for (const char * const *name = (const char *[]) { "sized-forward-flops-per-token",
                                                           "sized-embedding-params", NULL };
             *name; name++)
          if (nk_plan_get_formula (plan, *name) != NULL)
            g_string_append_printf (text, "\n%s", nk_plan_get_formula (plan, *name));
        take_label (self->sized_formula, g_string_free (text, FALSE));
      }
    else
      {
        gboolean bad = FALSE;

        for (const char * const *name = (const char *[]) { "layers", "d-model", "d-ff", NULL };
             *name != NULL; name++)
          bad |= nk_plan_get_input_error (plan, *name) != NULL;
        subtitle = g_strdup (bad ? _("Fix the highlighted row above")
                                 : _("Enter layers and d_model above"));
        set_label (self->sized_formula,
                   _("N = 2 × d_model × n_layer × (2 × d_attn + d_ff), with d_attn = d_model; "
                     "forward FLOPs per token = 2 × N + 2 × n_layer × n_ctx × d_attn "
                     "(Kaplan et al. 2020, table 1)"));
      }
    adw_expander_row_set_subtitle (self->sized_row, subtitle);
    gtk_widget_action_set_enabled (GTK_WIDGET (self), "planner.use-architecture", isfinite (sized));
  }
}

static void
update_outputs (NapkinPlannerPage *self)
{
  update_time_outputs (self);
  update_memory_outputs (self);
  update_inverse_outputs (self);
  update_architecture_outputs (self);
  update_errors (self);
}

static void
on_plan_revision (NapkinPlannerPage *self)
{
  update_outputs (self);
}

/* ------------------------------------------------------------ settings */

/* Each input has its own typed key, bound with g_settings_bind: an entry's text to
 * "planner-NAME", a list's position to the nick of what it shows, a switch to a
 * boolean. GSettings writes as the form changes and sets the form when a key
 * changes, so there is nothing to save by hand. */

static const char *
gpu_nick (guint i)
{
  const GPtrArray *gpus = nk_gpus_get_all ();

  return i < gpus->len ? ((const NkGpu *) g_ptr_array_index (gpus, i))->id : NULL;
}

static const char *
dtype_nick (guint i)
{
  return i < G_N_ELEMENTS (dtype_items) ? nk_peak_dtype_to_string (dtype_items[i]) : NULL;
}

static const char *
optimizer_nick (guint i)
{
  return i <= NK_OPTIMIZER_ADAMW ? nk_optimizer_to_string (i) : NULL;
}

/* The row offers fp32 and bf16-mixed. */
static const char *
precision_nick (guint i)
{
  return i <= NK_PRECISION_BF16_MIXED ? nk_precision_to_string (i) : NULL;
}

static const char *
activation_model_nick (guint i)
{
  return i <= NK_ACTIVATION_MODEL_TRANSFORMER ? nk_activation_model_to_string (i) : NULL;
}

typedef struct {
  const char  *key;
  gsize        row_offset;
  const char *(*nick) (guint position);
} ChoiceKey;

static const ChoiceKey choice_keys[] = {
  { "planner-gpu",              G_STRUCT_OFFSET (NapkinPlannerPage, gpu_row),              gpu_nick },
  { "planner-dtype",            G_STRUCT_OFFSET (NapkinPlannerPage, dtype_row),            dtype_nick },
  { "planner-optimizer",        G_STRUCT_OFFSET (NapkinPlannerPage, optimizer_row),        optimizer_nick },
  { "planner-precision",        G_STRUCT_OFFSET (NapkinPlannerPage, precision_row),        precision_nick },
  { "planner-activation-model", G_STRUCT_OFFSET (NapkinPlannerPage, activation_model_row), activation_model_nick },
};

/* A nick from the settings → the position of the row's item. */
static gboolean
choice_get_mapping (GValue   *value,
                    GVariant *variant,
                    gpointer  user_data)
{
  const ChoiceKey *choice = user_data;
  const char *text = g_variant_get_string (variant, NULL);
  const char *nick;

  for (guint i = 0; (nick = choice->nick (i)) != NULL; i++)
    if (g_str_equal (nick, text))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

/* The row's position → its nick; nothing is written while no item is selected. */
static GVariant *
choice_set_mapping (const GValue       *value,
                    const GVariantType *expected_type,
                    gpointer            user_data)
{
  const ChoiceKey *choice = user_data;
  const char *nick = choice->nick (g_value_get_uint (value));

  return nick != NULL ? g_variant_new_string (nick) : NULL;
}

static GVariant *
zero_stage_set_mapping (const GValue       *value,
                        const GVariantType *expected_type,
                        gpointer            user_data)
{
  guint stage = g_value_get_uint (value);

  return stage <= 3 ? g_variant_new_uint32 (stage) : NULL;
}

static gboolean
zero_stage_get_mapping (GValue   *value,
                        GVariant *variant,
                        gpointer  user_data)
{
  g_value_set_uint (value, g_variant_get_uint32 (variant));
  return TRUE;
}

static void
bind_settings (NapkinPlannerPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (entry_inputs); i++)
    {
      g_autofree char *key = g_strconcat ("planner-", entry_inputs[i].name, NULL);

      g_settings_bind (self->settings, key, row_at (self, entry_inputs[i].row_offset), "text",
                       G_SETTINGS_BIND_DEFAULT);
    }
  for (guint i = 0; i < G_N_ELEMENTS (choice_keys); i++)
    g_settings_bind_with_mapping (self->settings, choice_keys[i].key,
                                  row_at (self, choice_keys[i].row_offset), "selected",
                                  G_SETTINGS_BIND_DEFAULT, choice_get_mapping, choice_set_mapping,
                                  (gpointer) &choice_keys[i], NULL);
  g_settings_bind_with_mapping (self->settings, "planner-zero-stage", self->zero_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, zero_stage_get_mapping,
                                zero_stage_set_mapping, NULL, NULL);
  g_settings_bind (self->settings, "planner-sparse", self->sparse_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "planner-checkpointing", self->checkpointing_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
}

static void
unbind_settings (NapkinPlannerPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (entry_inputs); i++)
    g_settings_unbind (row_at (self, entry_inputs[i].row_offset), "text");
  for (guint i = 0; i < G_N_ELEMENTS (choice_keys); i++)
    g_settings_unbind (row_at (self, choice_keys[i].row_offset), "selected");
  g_settings_unbind (self->zero_row, "selected");
  g_settings_unbind (self->sparse_switch, "active");
  g_settings_unbind (self->checkpointing_switch, "active");
}

void
_napkin_planner_page_set_entry_text (NapkinPlannerPage *self,
                                     const char        *input,
                                     const char        *text)
{
  const EntryInput *entry = find_entry_input (input);

  g_return_if_fail (entry != NULL);
  gtk_editable_set_text (GTK_EDITABLE (row_at (self, entry->row_offset)), text);
}

/**
 * napkin_planner_page_set_settings:
 * @self: a planner page
 * @settings: (nullable): settings with the `planner-*` keys, or %NULL to keep
 *   nothing
 *
 * Restores the form from @settings and keeps it there as it changes. The window
 * hands the application's settings to its pages through the
 * #NapkinPlannerPage:settings property; tests call this directly.
 */
void
napkin_planner_page_set_settings (NapkinPlannerPage *self,
                                  GSettings         *settings)
{
  g_return_if_fail (NAPKIN_IS_PLANNER_PAGE (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings == settings)
    return;
  if (self->settings != NULL)
    unbind_settings (self);
  g_set_object (&self->settings, settings);
  if (self->settings != NULL)
    bind_settings (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

/* ------------------------------------------------------------ inputs */

static void
on_entry_changed (GtkEditable       *editable,
                  NapkinPlannerPage *self)
{
  const EntryInput *entry = g_object_get_data (G_OBJECT (editable), "napkin-input");

  nk_plan_set_input_text (self->plan, entry->name, gtk_editable_get_text (editable));

  /* The parsed value beside params and tokens, so "70B" is visibly 7.0e10. */
  if (editable == GTK_EDITABLE (self->params_row))
    take_label (self->params_value, nk_units_format_sci (nk_plan_get_params (self->plan), 1));
  else if (editable == GTK_EDITABLE (self->tokens_row))
    take_label (self->tokens_value, nk_units_format_sci (nk_plan_get_tokens (self->plan), 1));

  update_errors (self);
}

static void
on_gpu_selected (NapkinPlannerPage *self)
{
  const GPtrArray *gpus = nk_gpus_get_all ();
  guint i = adw_combo_row_get_selected (self->gpu_row);

  if (i < gpus->len)
    nk_plan_set_gpu (self->plan, ((const NkGpu *) g_ptr_array_index (gpus, i))->id);
}

static void
select_gpu (NapkinPlannerPage *self,
            const char        *gpu_id)
{
  const GPtrArray *gpus = nk_gpus_get_all ();

  for (guint i = 0; i < gpus->len; i++)
    if (g_strcmp0 (((const NkGpu *) g_ptr_array_index (gpus, i))->id, gpu_id) == 0)
      {
        adw_combo_row_set_selected (self->gpu_row, i);
        return;
      }
}

static void
on_choice_changed (NapkinPlannerPage *self)
{
  guint dtype = adw_combo_row_get_selected (self->dtype_row);
  guint model = adw_combo_row_get_selected (self->activation_model_row);
  guint precision = adw_combo_row_get_selected (self->precision_row);
  guint stage = adw_combo_row_get_selected (self->zero_row);
  static const char *stage_texts[] = {
    N_("Every GPU holds a full copy of parameters, gradients and optimizer state"),
    N_("Optimizer state is sharded over the GPUs"),
    N_("Optimizer state and gradients are sharded over the GPUs"),
    N_("Parameters, gradients and optimizer state are all sharded over the GPUs"),
  };

  g_object_freeze_notify (G_OBJECT (self->plan));
  if (dtype < G_N_ELEMENTS (dtype_items))
    nk_plan_set_dtype (self->plan, dtype_items[dtype]);
  nk_plan_set_sparse (self->plan, gtk_switch_get_active (self->sparse_switch));
  nk_plan_set_optimizer (self->plan, adw_combo_row_get_selected (self->optimizer_row));
  nk_plan_set_precision (self->plan, precision);
  if (stage <= 3)
    nk_plan_set_zero_stage (self->plan, stage);
  if (model <= NK_ACTIVATION_MODEL_TRANSFORMER)
    nk_plan_set_activation_model (self->plan, model);
  nk_plan_set_checkpointing (self->plan, gtk_switch_get_active (self->checkpointing_switch));
  g_object_thaw_notify (G_OBJECT (self->plan));

  if (stage <= 3)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->zero_row), _(stage_texts[stage]));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->precision_row),
                               precision == NK_PRECISION_BF16_MIXED
                               ? _("bf16 parameters and gradients for compute; fp32 master weights and optimizer state")
                               : _("Parameters, gradients and optimizer state in fp32"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->activation_model_row),
                               model == NK_ACTIVATION_MODEL_TRANSFORMER
                               ? _("s·b·h·(34 + 5·a·s/h) bytes per layer, 16-bit (Korthikanti et al. 2022, eq. 1)")
                               : _("batch × seq × d_model × layers values, as in the lecture"));
  gtk_widget_set_visible (GTK_WIDGET (self->heads_row), model == NK_ACTIVATION_MODEL_TRANSFORMER);
  gtk_widget_set_visible (GTK_WIDGET (self->checkpointing_row), model == NK_ACTIVATION_MODEL_TRANSFORMER);
  adw_preferences_group_set_description (self->memory_group, _(stage_texts[MIN (stage, 3)]));

  update_errors (self);
}

/* ------------------------------------------------------------ layout */

/* Wide: the form and the results side by side, each scrolling on its own.
 * Narrow: the results above (as tall as they need, at most 45% of the page) and
 * the form below, so what you type and what it gives stay on screen together. */
static void
napkin_planner_page_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  int form_min, form_nat, results_min, results_nat;

  gtk_widget_measure (self->form_scroller, orientation, -1, &form_min, &form_nat, NULL, NULL);
  gtk_widget_measure (self->results_scroller, orientation, -1, &results_min, &results_nat,
                      NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = MAX (form_min, results_min);
      *natural = MAX (form_nat + results_nat + 1, WIDE_LAYOUT_MIN_WIDTH);
    }
  else
    {
      *minimum = form_min + results_min + 1;
      *natural = MAX (MAX (form_nat, results_nat), *minimum);
    }
}

static void
napkin_planner_page_size_allocate (GtkWidget *widget,
                                   int        width,
                                   int        height,
                                   int        baseline)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  gboolean wide = width >= WIDE_LAYOUT_MIN_WIDTH;

  gtk_widget_set_child_visible (self->vertical_separator, wide);
  gtk_widget_set_child_visible (self->horizontal_separator, !wide);

  if (wide)
    {
      int form_w = width / 2;

      gtk_widget_allocate (self->form_scroller, form_w, height, -1, NULL);
      gtk_widget_allocate (self->vertical_separator, 1, height, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (form_w, 0)));
      gtk_widget_allocate (self->results_scroller, width - form_w - 1, height, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (form_w + 1, 0)));
    }
  else
    {
      int results_min, results_nat, form_min, results_h;

      gtk_widget_measure (self->results_scroller, GTK_ORIENTATION_VERTICAL, width,
                          &results_min, &results_nat, NULL, NULL);
      gtk_widget_measure (self->form_scroller, GTK_ORIENTATION_VERTICAL, width,
                          &form_min, NULL, NULL, NULL);
      results_h = CLAMP (MIN (results_nat, height * 45 / 100), results_min,
                         MAX (results_min, height - form_min - 1));
      gtk_widget_allocate (self->results_scroller, width, results_h, -1, NULL);
      gtk_widget_allocate (self->horizontal_separator, width, 1, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, results_h)));
      gtk_widget_allocate (self->form_scroller, width, MAX (height - results_h - 1, form_min), -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, results_h + 1)));
    }
}

/* ------------------------------------------------------------ GObject */

static void
napkin_planner_page_dispose (GObject *object)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (object);

  napkin_planner_page_set_settings (self, NULL);
  if (self->plan != NULL)
    g_signal_handlers_disconnect_by_data (self->plan, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_PLANNER_PAGE);
  g_clear_object (&self->settings);
  g_clear_object (&self->plan);

  G_OBJECT_CLASS (napkin_planner_page_parent_class)->dispose (object);
}

static void
napkin_planner_page_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (object);

  switch (prop_id)
    {
    case PROP_SETTINGS: g_value_set_object (value, self->settings); break;
    case PROP_PLAN: g_value_set_object (value, self->plan); break;
    case PROP_BUSY: g_value_set_boolean (value, FALSE); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_planner_page_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (object);

  switch (prop_id)
    {
    case PROP_SETTINGS: napkin_planner_page_set_settings (self, g_value_get_object (value)); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_planner_page_class_init (NapkinPlannerPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_planner_page_dispose;
  widget_class->measure = napkin_planner_page_measure;
  widget_class->size_allocate = napkin_planner_page_size_allocate;
  object_class->get_property = napkin_planner_page_get_property;
  object_class->set_property = napkin_planner_page_set_property;

  /**
   * NapkinPlannerPage:settings:
   *
   * The settings that keep the form, with the `planner-*` keys.
   */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* NapkinPlannerPage:plan: the plan the page edits; the cluster widgets bind to it. */
  properties[PROP_PLAN] = g_param_spec_object ("plan", NULL, NULL, NK_TYPE_PLAN,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_BUSY, "busy");

  g_type_ensure (NAPKIN_TYPE_MEMORY_CHART);
  g_type_ensure (NAPKIN_TYPE_CLUSTER_FORM);
  g_type_ensure (NAPKIN_TYPE_CLUSTER_RESULTS);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-planner-page.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, NapkinPlannerPage, name)
  BIND (form_scroller);
  BIND (results_scroller);
  BIND (vertical_separator);
  BIND (horizontal_separator);
  BIND (params_row);
  BIND (params_value);
  BIND (tokens_row);
  BIND (tokens_value);
  BIND (d_ff_row);
  BIND (vocab_row);
  BIND (sized_row);
  BIND (sized_formula);
  BIND (gpu_row);
  BIND (dtype_row);
  BIND (peak_row);
  BIND (peak_value);
  BIND (sparse_row);
  BIND (sparse_switch);
  BIND (gpus_row);
  BIND (mfu_row);
  BIND (price_row);
  BIND (optimizer_row);
  BIND (precision_row);
  BIND (zero_row);
  BIND (activation_model_row);
  BIND (batch_row);
  BIND (seq_row);
  BIND (layers_row);
  BIND (d_model_row);
  BIND (heads_row);
  BIND (checkpointing_row);
  BIND (checkpointing_switch);
  BIND (largest_row);
  BIND (deadline_row);
  BIND (deadline_label);
  BIND (days_label);
  BIND (headline_caption);
  BIND (headline_error);
  BIND (days_value);
  BIND (days_formula);
  BIND (gpu_hours_value);
  BIND (gpu_hours_formula);
  BIND (cost_value);
  BIND (cost_formula);
  BIND (flops_value);
  BIND (flops_formula);
  BIND (rate_value);
  BIND (rate_formula);
  BIND (memory_group);
  BIND (chart);
  BIND (bytes_row);
  BIND (bytes_value);
  BIND (memory_value);
  BIND (memory_formula);
#undef BIND
  gtk_widget_class_bind_template_child_full (widget_class, "model_error", FALSE,
                                             G_STRUCT_OFFSET (NapkinPlannerPage, group_errors[GROUP_MODEL]));
  gtk_widget_class_bind_template_child_full (widget_class, "architecture_error", FALSE,
                                             G_STRUCT_OFFSET (NapkinPlannerPage, group_errors[GROUP_ARCHITECTURE]));
  gtk_widget_class_bind_template_child_full (widget_class, "hardware_error", FALSE,
                                             G_STRUCT_OFFSET (NapkinPlannerPage, group_errors[GROUP_HARDWARE]));
  gtk_widget_class_bind_template_child_full (widget_class, "activations_error", FALSE,
                                             G_STRUCT_OFFSET (NapkinPlannerPage, group_errors[GROUP_ACTIVATIONS]));
  gtk_widget_class_bind_template_child_full (widget_class, "deadline_error", FALSE,
                                             G_STRUCT_OFFSET (NapkinPlannerPage, group_errors[GROUP_DEADLINE]));

  _napkin_planner_page_install_actions (widget_class);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "planner.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "planner.copy-summary", NULL);

  gtk_widget_class_set_css_name (widget_class, "plannerpage");
}

static void
napkin_planner_page_init (NapkinPlannerPage *self)
{
  const GPtrArray *gpus = nk_gpus_get_all ();
  g_autoptr(GtkStringList) gpu_names = gtk_string_list_new (NULL);

  /* before the template: its cluster widgets bind to NapkinPlannerPage:plan */
  self->plan = nk_plan_new ();
  gtk_widget_init_template (GTK_WIDGET (self));

  for (guint i = 0; i < gpus->len; i++)
    gtk_string_list_append (gpu_names, ((const NkGpu *) g_ptr_array_index (gpus, i))->name);
  adw_combo_row_set_model (self->gpu_row, G_LIST_MODEL (gpu_names));

  /* The form starts with the plan's defaults, the lecture's first question. */
  select_gpu (self, nk_plan_get_gpu (self->plan));
  adw_combo_row_set_selected (self->dtype_row, 2);
  adw_combo_row_set_selected (self->optimizer_row, nk_plan_get_optimizer (self->plan));
  adw_combo_row_set_selected (self->precision_row, nk_plan_get_precision (self->plan));
  adw_combo_row_set_selected (self->zero_row, nk_plan_get_zero_stage (self->plan));

  for (guint i = 0; i < G_N_ELEMENTS (entry_inputs); i++)
    {
      GtkWidget *row = row_at (self, entry_inputs[i].row_offset);

      g_object_set_data (G_OBJECT (row), "napkin-input", (gpointer) &entry_inputs[i]);
      gtk_editable_set_text (GTK_EDITABLE (row), entry_inputs[i].default_text);
      g_signal_connect (row, "changed", G_CALLBACK (on_entry_changed), self);
      on_entry_changed (GTK_EDITABLE (row), self);
    }

  g_signal_connect_swapped (self->gpu_row, "notify::selected", G_CALLBACK (on_gpu_selected), self);
  g_signal_connect_swapped (self->dtype_row, "notify::selected", G_CALLBACK (on_choice_changed), self);
  g_signal_connect_swapped (self->optimizer_row, "notify::selected", G_CALLBACK (on_choice_changed), self);
  g_signal_connect_swapped (self->precision_row, "notify::selected", G_CALLBACK (on_choice_changed), self);
  g_signal_connect_swapped (self->zero_row, "notify::selected", G_CALLBACK (on_choice_changed), self);
  g_signal_connect_swapped (self->activation_model_row, "notify::selected",
                            G_CALLBACK (on_choice_changed), self);
  g_signal_connect_swapped (self->sparse_switch, "notify::active", G_CALLBACK (on_choice_changed), self);
  g_signal_connect_swapped (self->checkpointing_switch, "notify::active",
                            G_CALLBACK (on_choice_changed), self);
  on_choice_changed (self);

  g_signal_connect_swapped (self->plan, "notify::revision", G_CALLBACK (on_plan_revision), self);
  update_outputs (self);
}

/**
 * napkin_planner_page_new:
 *
 * Returns: (transfer full): a new planner page showing the lecture's first question
 */
GtkWidget *
napkin_planner_page_new (void)
{
  return g_object_new (NAPKIN_TYPE_PLANNER_PAGE, NULL);
}

/**
 * napkin_planner_page_get_plan:
 * @self: a planner page
 *
 * Returns: (transfer none): the plan the page shows
 */
NkPlan *
napkin_planner_page_get_plan (NapkinPlannerPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_PLANNER_PAGE (self), NULL);

  return self->plan;
}

/**
 * _napkin_planner_page_get_entry:
 * @self: a planner page
 * @input: an input typed as text: params, tokens, layers, d-model, d-ff, vocab,
 *   seq, gpus, mfu, price, batch, heads or deadline-days
 *
 * Returns: (transfer none) (nullable): the row's editable, %NULL for other names
 */
GtkEditable *
_napkin_planner_page_get_entry (NapkinPlannerPage *self,
                                const char        *input)
{
  const EntryInput *entry;

  g_return_val_if_fail (NAPKIN_IS_PLANNER_PAGE (self), NULL);

  entry = find_entry_input (input);
  return entry ? GTK_EDITABLE (row_at (self, entry->row_offset)) : NULL;
}

/**
 * _napkin_planner_page_get_input_row:
 * @self: a planner page
 * @input: an NkPlan input property name (an entry's name, or gpu, dtype, sparse,
 *   zero-stage, activation-model)
 *
 * Returns: (transfer none) (nullable): the row showing @input and its error state
 */
GtkWidget *
_napkin_planner_page_get_input_row (NapkinPlannerPage *self,
                                    const char        *input)
{
  const EntryInput *entry;

  g_return_val_if_fail (NAPKIN_IS_PLANNER_PAGE (self), NULL);

  entry = find_entry_input (input);
  if (entry != NULL)
    return row_at (self, entry->row_offset);
  for (guint i = 0; i < G_N_ELEMENTS (choice_inputs); i++)
    if (g_strcmp0 (choice_inputs[i].name, input) == 0)
      return row_at (self, choice_inputs[i].row_offset);
  return NULL;
}

/**
 * _napkin_planner_page_get_days_text:
 * @self: a planner page
 *
 * Returns: the large training-time label as shown, e.g. "143.9 days" or "—"
 */
const char *
_napkin_planner_page_get_days_text (NapkinPlannerPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_PLANNER_PAGE (self), NULL);

  return gtk_label_get_label (self->days_label);
}

/**
 * _napkin_planner_page_dup_output_texts:
 * @self: a planner page
 *
 * Every text the page shows for the plan's results, one per line, so tests can
 * check that none reads "nan" or "inf".
 *
 * Returns: (transfer full): the texts
 */
char *
_napkin_planner_page_dup_output_texts (NapkinPlannerPage *self)
{
  GtkLabel *labels[] = {
    self->days_label, self->headline_caption, self->headline_error, self->days_value,
    self->days_formula, self->gpu_hours_value, self->gpu_hours_formula, self->cost_value,
    self->cost_formula, self->flops_value, self->flops_formula, self->rate_value,
    self->rate_formula, self->bytes_value, self->memory_value, self->memory_formula,
    self->deadline_label, self->params_value, self->tokens_value, self->sized_formula,
    self->group_errors[GROUP_MODEL], self->group_errors[GROUP_ARCHITECTURE],
    self->group_errors[GROUP_HARDWARE],
    self->group_errors[GROUP_ACTIVATIONS], self->group_errors[GROUP_DEADLINE],
  };
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (NAPKIN_IS_PLANNER_PAGE (self), NULL);

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    g_string_append_printf (s, "%s\n", gtk_label_get_label (labels[i]));
  g_string_append_printf (s, "%s\n%s\n%s\n%s\n%s\n",
                          gtk_label_get_label (self->peak_value),
                          adw_expander_row_get_subtitle (self->sized_row),
                          adw_action_row_get_subtitle (self->peak_row),
                          adw_action_row_get_subtitle (self->largest_row),
                          adw_action_row_get_subtitle (self->bytes_row));
  return g_string_free (s, FALSE);
}

/**
 * _napkin_planner_page_set_gpu:
 * @self: a planner page
 * @gpu_id: a GPU table id, e.g. "h100-sxm"
 *
 * Chooses @gpu_id in the GPU row, as a person would; unknown ids change nothing.
 */
void
_napkin_planner_page_set_gpu (NapkinPlannerPage *self,
                              const char        *gpu_id)
{
  g_return_if_fail (NAPKIN_IS_PLANNER_PAGE (self));

  select_gpu (self, gpu_id);
}
