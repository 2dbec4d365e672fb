/* napkin-cluster-results.c: the Planner's cluster step: layout, step time, MFU, the most loaded GPU, launch export
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shows what an #NkPlan's cluster model says, once per recompute (on
 * NkPlan:revision): a headline, the step-time bar, the most loaded GPU's
 * memory, and one row per quantity whose formulas open on demand. "Export
 * Launch Config" writes nk_launch_write() of nk_plan_get_launch_spec(), the
 * same two calls as `napkin-cli plan --export`, so both write the same bytes.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "napkin-cluster-results.h"
#include "napkin-file-chooser.h"
#include "napkin-memory-chart.h"
#include "napkin-page.h"
#include "napkin-stacked-bar.h"
#include "nk-units.h"

#define MAX_FORMULAS 9

/* One row: a title, how its value reads, and the outputs whose formulas it opens. */
typedef enum { ROW_LAYOUT, ROW_STEP, ROW_THROUGHPUT, ROW_MFU, ROW_MEMORY, ROW_ACTIVATIONS, N_ROWS } RowKind;

static const struct {
  const char *title;
  const char *formulas[MAX_FORMULAS];
} rows[N_ROWS] = {
  [ROW_LAYOUT] = { N_("Layout"), { "layout-dp", "grad-accum", "tokens-per-step", "steps", "nodes",
                                    "layout-gpus-for-deadline" } },
  [ROW_STEP] = { N_("Step time"), { "time-compute", "time-recompute", "time-memory-bound", "time-casts",
                                    "time-tp-comm", "time-ep-comm", "time-dp-comm", "time-pp-bubble",
                                    "time-per-step" } },
  [ROW_THROUGHPUT] = { N_("Throughput"), { "tokens-per-s", "model-flops-per-token", "hardware-flops-per-token" } },
  [ROW_MFU] = { N_("MFU"), { "mfu-model", "mfu-hardware", "mfu-derived" } },
  [ROW_MEMORY] = { N_("Most loaded GPU"), { "activations-per-layer", "memory-max-activations",
                                            "memory-per-gpu-max", "memory-usable-per-gpu", "fits" } },
  /* its lines are the activation terms (nk_plan_get_activation_terms()), not formulas */
  [ROW_ACTIVATIONS] = { N_("Activations by tensor"), { NULL } },
};

/* The step bar's parts, in the order of the step formula: a low-precision
 * recipe's casts (with a recipe), and the exposed communication as the plan's
 * three terms of it (tensor-parallel collectives, expert all-to-alls with
 * experts, the data-parallel reduction not hidden). */
typedef enum { ALWAYS, WITH_EXPERTS, WITH_RECIPE, WITH_TP } PartShown;

static const struct {
  const char *output;
  const char *label;
  PartShown   shown;
  /* with this boolean input on, the part holds something else, so says @overlapped */
  const char *overlap;
  const char *overlapped;
} parts[] = {
  { "time-compute", N_("compute") },
  { "time-recompute", N_("recompute") },
  { "time-memory-bound", N_("element-wise") },
  { "time-casts", N_("casts and scales"), WITH_RECIPE },
  /* at TP 1 there is none: no "0 µs" part in the legend */
  { "time-tp-comm", N_("tensor-parallel communication"), WITH_TP },
  /* hidden all-to-alls leave the compute slowed by the SMs they hold
   * (nk-plan-cluster-time.c, hide_overlapped()) */
  { "time-ep-comm", N_("expert all-to-all"), WITH_EXPERTS, "ep-comm-overlap", N_("all-to-all's SMs") },
  { "time-dp-exposed", N_("exposed data-parallel communication") },
  { "time-pp-bubble", N_("pipeline bubble") },
};
G_STATIC_ASSERT (G_N_ELEMENTS (parts) <= NAPKIN_STACKED_BAR_MAX_PARTS);

struct _NapkinClusterResults
{
  AdwPreferencesGroup  parent_instance;

  NkPlan              *plan;
  gulong               revision_handler;

  GtkLabel            *status_label;
  GtkWidget           *step_card;
  GtkLabel            *step_label;
  NapkinStackedBar    *step_bar;
  GtkLabel            *memory_label;
  NapkinMemoryChart   *memory_chart;
  GtkListBox          *formula_list;

  AdwExpanderRow      *row[N_ROWS];
  GtkLabel            *value[N_ROWS];
  GtkLabel            *formula[N_ROWS][MAX_FORMULAS];
  GtkLabel            *term[NK_ACT_N_TERMS];
};

G_DEFINE_FINAL_TYPE (NapkinClusterResults, napkin_cluster_results, ADW_TYPE_PREFERENCES_GROUP)

enum {
  PROP_0,
  PROP_PLAN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static double
out (NapkinClusterResults *self,
     const char           *name)
{
  return nk_plan_get_output (self->plan, name);
}

static char *
percent (double fraction)
{
  /* a no-break space: "41.9 %" never splits where the headline wraps */
  return isfinite (fraction) ? g_strdup_printf ("%.1f\u00a0%%", 100 * fraction) : g_strdup ("—");
}

static char *
row_value (NapkinClusterResults *self,
           RowKind               kind)
{
  g_autofree char *a = NULL, *b = NULL;

  switch (kind)
    {
    case ROW_LAYOUT:
      a = g_strdup_printf (_("TP %g · PP %g · CP %g · DP %g"), out (self, "layout-tp"), out (self, "layout-pp"),
                           out (self, "layout-cp"), out (self, "layout-dp"));
      {
        int experts = 0;
        /* typed, or chosen by the layout search */
        int ep = (int) out (self, "layout-ep"), etp = (int) out (self, "layout-etp");

        g_object_get (self->plan, "experts", &experts, NULL);
        if (experts == 0)
          return g_steal_pointer (&a);
        return etp > 1 ? g_strdup_printf (_("%s · EP %d · ETP %d"), a, ep, etp)
                       : g_strdup_printf (_("%s · EP %d"), a, ep);
      }
    case ROW_STEP:
      return isfinite (out (self, "time-per-step")) ? nk_units_format_duration (out (self, "time-per-step"))
                                                    : g_strdup ("—");
    case ROW_THROUGHPUT:
      a = nk_units_format_sci (out (self, "tokens-per-s"), 3);
      return g_strdup_printf (_("%s tokens/s"), a);
    case ROW_MFU:
      a = percent (out (self, "mfu-model"));
      b = percent (out (self, "mfu-hardware"));
      return g_strdup_printf (_("%s model · %s hardware"), a, b);
    case ROW_ACTIVATIONS:
      a = nk_units_format_bytes (out (self, "memory-max-activations"));
      return g_strdup_printf (_("%s on the most loaded GPU"), a);
    case ROW_MEMORY:
    default:
      a = nk_units_format_bytes (out (self, "memory-per-gpu-max"));
      b = nk_units_format_bytes (out (self, "capacity-per-gpu"));
      return g_strdup_printf (_("%s of %s"), a, b);
    }
}

/* One line a term the plan counts, with its share of the activations; the reason
 * each is kept is the line's tooltip. */
static void
update_terms (NapkinClusterResults *self)
{
  double terms[NK_ACT_N_TERMS], total = out (self, "memory-max-activations");

  nk_plan_get_activation_terms (self->plan, terms);
  for (guint t = 0; t < NK_ACT_N_TERMS; t++)
    {
      g_autofree char *bytes = nk_units_format_bytes (terms[t]);
      g_autofree char *text = g_strdup_printf (_("%s: %s, %.1f %%"), nk_act_term_name (t), bytes,
                                               total > 0 ? 100 * terms[t] / total : 0.0);

      gtk_label_set_label (self->term[t], text);
      gtk_widget_set_visible (GTK_WIDGET (self->term[t]), terms[t] > 0);
    }
}

static void
update_rows (NapkinClusterResults *self)
{
  for (guint r = 0; r < N_ROWS; r++)
    {
      g_autofree char *value = row_value (self, r);

      gtk_label_set_label (self->value[r], value);
      for (guint f = 0; f < MAX_FORMULAS && rows[r].formulas[f] != NULL; f++)
        {
          const char *text = nk_plan_get_formula (self->plan, rows[r].formulas[f]);

          gtk_label_set_label (self->formula[r][f], text != NULL ? text : "");
          gtk_widget_set_visible (GTK_WIDGET (self->formula[r][f]), text != NULL && text[0] != '\0');
        }
    }
}

static void
update_step (NapkinClusterResults *self)
{
  double values[G_N_ELEMENTS (parts)];
  const char *labels[G_N_ELEMENTS (parts)];
  guint colors[G_N_ELEMENTS (parts)];
  char *texts[G_N_ELEMENTS (parts)] = { NULL };
  g_autofree char *step = nk_units_format_duration (out (self, "time-per-step"));
  g_autofree char *mfu = percent (out (self, "mfu-model"));
  g_autofree char *headline = NULL;

  int experts = 0;
  NkPlanRecipe recipe = NK_PLAN_RECIPE_NONE;
  guint n = 0;

  g_object_get (self->plan, "experts", &experts, "recipe", &recipe, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_autofree char *duration = NULL;
      gboolean overlapped = FALSE;

      if ((parts[i].shown == WITH_EXPERTS && experts == 0)
          || (parts[i].shown == WITH_RECIPE && recipe == NK_PLAN_RECIPE_NONE)
          || (parts[i].shown == WITH_TP && !(out (self, "layout-tp") > 1)))
        continue;
      if (parts[i].overlap != NULL)
        g_object_get (self->plan, parts[i].overlap, &overlapped, NULL);
      duration = nk_units_format_duration (out (self, parts[i].output));
      values[n] = out (self, parts[i].output);
      texts[n] = g_strdup_printf ("%s %s", _(overlapped ? parts[i].overlapped : parts[i].label), duration);
      labels[n] = texts[n];
      /* a part keeps its colour whichever others are shown */
      colors[n] = i;
      n++;
    }
  napkin_stacked_bar_set_parts (self->step_bar, n, values, labels);
  napkin_stacked_bar_set_colors (self->step_bar, n, colors);
  headline = g_strdup_printf (_("%s per step · MFU %s"), step, mfu);
  gtk_label_set_label (self->step_label, headline);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->step_bar), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  headline, -1);
  for (guint i = 0; i < n; i++)
    g_free (texts[i]);
}

void
_napkin_cluster_results_show_experts (NapkinMemoryChart *chart,
                                      NkPlan            *plan)
{
  /* the outputs that hold the routed experts' share of a bucket (0 without
   * experts, NAN without a cluster layout) */
  static const struct {
    NapkinMemoryBucket  bucket;
    const char         *output;
  } shares[] = {
    { NAPKIN_MEMORY_PARAMS, "memory-max-expert-params" },
    { NAPKIN_MEMORY_GRADS, "memory-max-expert-grads" },
    { NAPKIN_MEMORY_OPTIMIZER, "memory-max-expert-optimizer" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shares); i++)
    napkin_memory_chart_set_expert_bytes (chart, shares[i].bucket, nk_plan_get_output (plan, shares[i].output));
}

static void
update_memory (NapkinClusterResults *self)
{
  static const char *buckets[NAPKIN_MEMORY_N_BUCKETS] = {
    "memory-max-params", "memory-max-grads", "memory-max-optimizer", "memory-max-activations",
    "memory-max-low-precision",
  };
  g_autofree char *used = nk_units_format_bytes (out (self, "memory-per-gpu-max"));
  g_autofree char *title = NULL;

  for (guint i = 0; i < NAPKIN_MEMORY_N_BUCKETS; i++)
    napkin_memory_chart_set_bytes (self->memory_chart, i, out (self, buckets[i]));
  _napkin_cluster_results_show_experts (self->memory_chart, self->plan);
  napkin_memory_chart_set_hbm (self->memory_chart, out (self, "capacity-per-gpu"));
  napkin_memory_chart_set_gpus (self->memory_chart, 1);
  napkin_memory_chart_set_fits (self->memory_chart, nk_plan_get_fits (self->plan));
  title = g_strdup_printf (out (self, "micro-batches-in-flight") > 1
                           ? _("Memory of the most loaded GPU, %s: the first pipeline stage, with %g micro-batches in flight")
                           : _("Memory of the most loaded GPU, %s"),
                           used, out (self, "micro-batches-in-flight"));
  gtk_label_set_label (self->memory_label, title);
}

/* Without a layout: the engine's sentence about the first cluster input it
 * refuses, else what the cluster model still needs. */
static void
update_status (NapkinClusterResults *self)
{
  static const char *const inputs[] = {
    "tp", "pp", "cp", "dp", "virtual-stages", "micro-batch", "global-batch", "ep", "etp",
    "experts-per-token", "dense-layers", "kv-heads", "heads", "d-ff", "best-layout",
  };
  const char *sentence = NULL;

  for (guint i = 0; self->plan != NULL && sentence == NULL && i < G_N_ELEMENTS (inputs); i++)
    sentence = nk_plan_get_input_error (self->plan, inputs[i]);
  if (sentence != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("No layout: %s"), sentence);

      gtk_label_set_label (self->status_label, text);
    }
  else
    gtk_label_set_label (self->status_label,
                         _("Give the heads and context length under Architecture and a global batch under Activations to lay out a cluster."));
}

/* Once per recompute: the layout's results, or why there are none. */
static void
update (NapkinClusterResults *self)
{
  gboolean laid_out = self->plan != NULL && isfinite (out (self, "layout-dp"));
  gboolean timed = laid_out && isfinite (out (self, "time-per-step"));

  gtk_widget_set_visible (GTK_WIDGET (self->status_label), !laid_out);
  if (!laid_out)
    update_status (self);
  gtk_widget_set_visible (self->step_card, laid_out);
  gtk_widget_set_visible (GTK_WIDGET (self->formula_list), laid_out);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "cluster.export", laid_out && nk_plan_get_valid (self->plan));
  if (!laid_out)
    return;
  gtk_widget_set_visible (GTK_WIDGET (self->step_bar), timed);
  gtk_widget_set_visible (GTK_WIDGET (self->step_label), timed);
  if (timed)
    update_step (self);
  update_memory (self);
  update_rows (self);
  update_terms (self);
}

/* ---------------------------------------------------------------- export */

/**
 * napkin_cluster_results_export:
 * @self: the results
 * @engine: which engine's launch config
 * @path: the file to write (replaced atomically)
 * @error: why not: a plan without a layout, a rule of the engine, the file
 *
 * Returns: %TRUE when written
 */
gboolean
napkin_cluster_results_export (NapkinClusterResults  *self,
                               NkLaunchEngine         engine,
                               const char            *path,
                               GError               **error)
{
  g_autofree char *text = NULL;
  NkLaunchSpec spec;

  g_return_val_if_fail (NAPKIN_IS_CLUSTER_RESULTS (self), FALSE);
  g_return_val_if_fail (self->plan != NULL, FALSE);

  if (!nk_plan_get_launch_spec (self->plan, &spec, error)
      || (text = nk_launch_write (&spec, engine, error)) == NULL)
    return FALSE;
  return g_file_set_contents_full (path, text, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   engine == NK_LAUNCH_ENGINE_MEGATRON ? 0755 : 0644, error);
}

static void
export_chosen (GtkWidget *widget,
               GFile     *file,
               gpointer   user_data)
{
  NapkinClusterResults *self = NAPKIN_CLUSTER_RESULTS (widget);
  NkLaunchEngine engine = GPOINTER_TO_INT (user_data);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *basename = g_file_get_basename (file);
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (path == NULL)
    message = g_strdup (_("Could not save the launch config: the file has no local path"));
  else if (!napkin_cluster_results_export (self, engine, path, &error))
    message = g_strdup_printf (_("Could not save the launch config: %s"), error->message);
  else
    message = g_strdup_printf (_("Saved “%s”"), basename);
  napkin_page_add_toast (widget, adw_toast_new (message));
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  NkLaunchEngine engine;

  if (!nk_launch_engine_from_string (g_variant_get_string (parameter, NULL), &engine))
    return;
  napkin_choose_file (widget, _("Export Launch Config"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                      nk_launch_engine_file_name (engine), NULL, export_chosen, GINT_TO_POINTER (engine), NULL);
}

/* ---------------------------------------------------------------- object */

NkPlan *
napkin_cluster_results_get_plan (NapkinClusterResults *self)
{
  g_return_val_if_fail (NAPKIN_IS_CLUSTER_RESULTS (self), NULL);
  return self->plan;
}

/**
 * napkin_cluster_results_set_plan:
 * @self: the results
 * @plan: (nullable): the plan to show
 */
void
napkin_cluster_results_set_plan (NapkinClusterResults *self,
                                 NkPlan               *plan)
{
  g_return_if_fail (NAPKIN_IS_CLUSTER_RESULTS (self));
  g_return_if_fail (plan == NULL || NK_IS_PLAN (plan));

  if (self->plan == plan)
    return;
  g_clear_signal_handler (&self->revision_handler, self->plan);
  g_set_object (&self->plan, plan);
  if (plan != NULL)
    self->revision_handler = g_signal_connect_swapped (plan, "notify::revision", G_CALLBACK (update), self);
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLAN]);
}

GtkWidget *
_napkin_cluster_results_get_step_bar (NapkinClusterResults *self)
{
  return GTK_WIDGET (self->step_bar);
}

const char *
_napkin_cluster_results_get_status_text (NapkinClusterResults *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->status_label)) ? gtk_label_get_label (self->status_label) : "";
}

const char *
_napkin_cluster_results_get_step_text (NapkinClusterResults *self)
{
  return gtk_label_get_label (self->step_label);
}

static GtkLabel *
formula_label (void)
{
  GtkLabel *label = GTK_LABEL (gtk_label_new (NULL));

  gtk_label_set_xalign (label, 0);
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_wrap_mode (label, PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (label), "formula");
  return label;
}

const char *
_napkin_cluster_results_get_term_text (NapkinClusterResults *self,
                                       NkActTerm             term)
{
  g_return_val_if_fail (term < NK_ACT_N_TERMS, NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->term[term])) ? gtk_label_get_label (self->term[term]) : "";
}

/* The rows: a value on the right, the formulas inside. */
static void
build_rows (NapkinClusterResults *self)
{
  for (guint r = 0; r < N_ROWS; r++)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

      self->row[r] = ADW_EXPANDER_ROW (adw_expander_row_new ());
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->row[r]), _(rows[r].title));
      self->value[r] = GTK_LABEL (gtk_label_new ("—"));
      gtk_widget_add_css_class (GTK_WIDGET (self->value[r]), "numeric");
      adw_expander_row_add_action (self->row[r], GTK_WIDGET (self->value[r]));
      for (guint f = 0; f < MAX_FORMULAS && rows[r].formulas[f] != NULL; f++)
        gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->formula[r][f] = formula_label ()));
      if (r == ROW_ACTIVATIONS)
        for (guint t = 0; t < NK_ACT_N_TERMS; t++)
          {
            self->term[t] = formula_label ();
            gtk_widget_set_tooltip_text (GTK_WIDGET (self->term[t]), nk_act_term_why (t));
            gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->term[t]));
          }
      adw_expander_row_add_row (self->row[r], box);
      gtk_list_box_append (self->formula_list, GTK_WIDGET (self->row[r]));
    }
}

static void
napkin_cluster_results_dispose (GObject *object)
{
  NapkinClusterResults *self = NAPKIN_CLUSTER_RESULTS (object);

  g_clear_signal_handler (&self->revision_handler, self->plan);
  g_clear_object (&self->plan);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_CLUSTER_RESULTS);
  G_OBJECT_CLASS (napkin_cluster_results_parent_class)->dispose (object);
}

static void
napkin_cluster_results_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_PLAN: g_value_set_object (value, NAPKIN_CLUSTER_RESULTS (object)->plan); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_cluster_results_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_PLAN: napkin_cluster_results_set_plan (NAPKIN_CLUSTER_RESULTS (object), g_value_get_object (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_cluster_results_class_init (NapkinClusterResultsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_cluster_results_dispose;
  object_class->get_property = napkin_cluster_results_get_property;
  object_class->set_property = napkin_cluster_results_set_property;

  properties[PROP_PLAN] = g_param_spec_object ("plan", NULL, NULL, NK_TYPE_PLAN,
                                               G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                               | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (NAPKIN_TYPE_STACKED_BAR);
  g_type_ensure (NAPKIN_TYPE_MEMORY_CHART);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-cluster-results.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, NapkinClusterResults, name)
  BIND (status_label);
  BIND (step_card);
  BIND (step_label);
  BIND (step_bar);
  BIND (memory_label);
  BIND (memory_chart);
  BIND (formula_list);
#undef BIND
  gtk_widget_class_install_action (widget_class, "cluster.export", "s", export_action);
}

static void
napkin_cluster_results_init (NapkinClusterResults *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  build_rows (self);
  update (self);
}
