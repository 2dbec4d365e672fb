/* napkin-cluster-form.c: the Planner's parallelism inputs, bound to an NkPlan
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every control is bound both ways to one #NkPlan layout property, and every
 * such property to its GSettings key "planner-NAME": the plan is the one home
 * of each value; the form only shows and edits it.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "napkin-cluster-form.h"
#include "nk-units.h"

struct _NapkinClusterForm
{
  AdwPreferencesGroup  parent_instance;

  NkPlan              *plan;
  GSettings           *settings;
  GPtrArray           *bindings;

  GtkSpinButton       *tp_spin, *pp_spin, *cp_spin, *dp_spin, *virtual_spin, *micro_spin;
  GtkSpinButton       *per_node_spin, *kv_spin, *reserve_spin, *head_dim_spin, *nvlink_domain_spin;
  GtkSpinButton       *experts_spin, *experts_per_token_spin, *shared_experts_spin, *expert_d_ff_spin;
  GtkSpinButton       *dense_layers_spin, *ep_spin, *etp_spin, *imbalance_spin;
  GtkSpinButton       *first_stage_spin, *last_stage_spin;
  GtkSpinButton       *q_lora_spin, *kv_lora_spin, *qk_nope_spin, *qk_rope_spin, *v_head_spin;
  AdwComboRow         *attention_row, *recipe_row;
  GtkSwitch           *sp_switch, *flash_switch, *tied_switch, *mfu_auto_switch, *best_layout_switch;
  GtkSwitch           *fsdp_switch, *dropout_switch, *tp_comm_overlap_switch, *ep_comm_overlap_switch;
  GtkWidget           *ep_comm_overlap_row;
  GtkSwitch           *deepep_switch;
  GtkWidget           *deepep_row;
  AdwComboRow         *recompute_row, *ffn_row, *grad_precision_row, *capacity_row;
  AdwExpanderRow      *layout_row, *shape_row, *attention_expander, *experts_row, *memory_row;
  GtkLabel            *error_label;
  gulong               revision_handler;
};

G_DEFINE_FINAL_TYPE (NapkinClusterForm, napkin_cluster_form, ADW_TYPE_PREFERENCES_GROUP)

enum {
  PROP_0,
  PROP_PLAN,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef enum { SPIN, SWITCH, COMBO } ControlKind;

/* The plan property each control edits; the GSettings key is "planner-" + name. */
static const struct {
  const char  *property;
  ControlKind  kind;
  gsize        offset;
  gboolean     expert;   /* inside the Mixture of experts row */
} controls[] = {
  { "tp", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, tp_spin) },
  { "pp", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, pp_spin) },
  { "first-stage-layers", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, first_stage_spin) },
  { "last-stage-layers", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, last_stage_spin) },
  { "cp", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, cp_spin) },
  { "dp", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, dp_spin) },
  { "virtual-stages", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, virtual_spin) },
  { "micro-batch", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, micro_spin) },
  { "gpus-per-node", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, per_node_spin) },
  { "kv-heads", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, kv_spin) },
  { "memory-reserve", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, reserve_spin) },
  { "head-dim", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, head_dim_spin) },
  { "nvlink-domain", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, nvlink_domain_spin) },
  { "experts", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, experts_spin), TRUE },
  { "experts-per-token", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, experts_per_token_spin), TRUE },
  { "shared-experts", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, shared_experts_spin), TRUE },
  { "expert-d-ff", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, expert_d_ff_spin), TRUE },
  { "dense-layers", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, dense_layers_spin), TRUE },
  { "ep", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, ep_spin), TRUE },
  { "etp", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, etp_spin), TRUE },
  { "expert-imbalance", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, imbalance_spin), TRUE },
  { "q-lora-rank", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, q_lora_spin) },
  { "kv-lora-rank", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, kv_lora_spin) },
  { "qk-nope-head-dim", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, qk_nope_spin) },
  { "qk-rope-head-dim", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, qk_rope_spin) },
  { "v-head-dim", SPIN, G_STRUCT_OFFSET (NapkinClusterForm, v_head_spin) },
  { "sequence-parallel", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, sp_switch) },
  { "flash-attention", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, flash_switch) },
  { "tied-embeddings", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, tied_switch) },
  { "mfu-auto", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, mfu_auto_switch) },
  { "best-layout", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, best_layout_switch) },
  { "fsdp", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, fsdp_switch) },
  { "dropout", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, dropout_switch) },
  { "tp-comm-overlap", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, tp_comm_overlap_switch) },
  { "ep-comm-overlap", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, ep_comm_overlap_switch), TRUE },
  { "deepep", SWITCH, G_STRUCT_OFFSET (NapkinClusterForm, deepep_switch), TRUE },
  { "recompute", COMBO, G_STRUCT_OFFSET (NapkinClusterForm, recompute_row) },
  { "ffn", COMBO, G_STRUCT_OFFSET (NapkinClusterForm, ffn_row) },
  { "attention", COMBO, G_STRUCT_OFFSET (NapkinClusterForm, attention_row) },
  { "recipe", COMBO, G_STRUCT_OFFSET (NapkinClusterForm, recipe_row) },
  { "grad-precision", COMBO, G_STRUCT_OFFSET (NapkinClusterForm, grad_precision_row) },
  { "capacity", COMBO, G_STRUCT_OFFSET (NapkinClusterForm, capacity_row) },
};

static GtkWidget *
control_at (NapkinClusterForm *self,
            guint              i)
{
  return G_STRUCT_MEMBER (GtkWidget *, self, controls[i].offset);
}

/* The combo rows list each enum's values in order, so an index is a value. */
static gboolean
enum_to_index (GBinding     *binding,
               const GValue *from,
               GValue       *to,
               gpointer      user_data)
{
  g_value_set_uint (to, (guint) g_value_get_enum (from));
  return TRUE;
}

static gboolean
index_to_enum (GBinding     *binding,
               const GValue *from,
               GValue       *to,
               gpointer      user_data)
{
  guint index = g_value_get_uint (from);

  if (index == GTK_INVALID_LIST_POSITION)
    return FALSE;
  g_value_set_enum (to, (int) index);
  return TRUE;
}

/**
 * napkin_form_mark_invalid:
 * @row: a form's row
 * @sentence: (nullable): why its value is refused, or %NULL when it is fine
 *
 * Marks @row red with @sentence as its accessible description and sets the
 * invalid state on the row and on the text a person types into, or clears
 * all of it. The Planner page's rows and the Parallelism form's share it.
 */
void
napkin_form_mark_invalid (GtkWidget  *row,
                          const char *sentence)
{
  GtkAccessibleInvalidState state = sentence != NULL ? GTK_ACCESSIBLE_INVALID_TRUE
                                                     : GTK_ACCESSIBLE_INVALID_FALSE;

  if (sentence != NULL)
    gtk_widget_add_css_class (row, "error");
  else
    gtk_widget_remove_css_class (row, "error");
  gtk_accessible_update_property (GTK_ACCESSIBLE (row),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, sentence ? sentence : "",
                                  -1);
  /* The red row is for the eye; assistive technology reads the invalid state,
   * on the row and on the text a person types into. */
  gtk_accessible_update_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_INVALID, state, -1);
  if (GTK_IS_EDITABLE (row) && gtk_editable_get_delegate (GTK_EDITABLE (row)) != NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (gtk_editable_get_delegate (GTK_EDITABLE (row))),
                                 GTK_ACCESSIBLE_STATE_INVALID, state, -1);
}

/* The row a control sits in (a combo row is its own). */
static GtkWidget *
control_row (NapkinClusterForm *self,
             guint              i)
{
  GtkWidget *control = control_at (self, i);

  return controls[i].kind == COMBO ? control : gtk_widget_get_ancestor (control, ADW_TYPE_ACTION_ROW);
}

/* What the experts add up to, on the row that opens them. */
static void
update_experts_subtitle (NapkinClusterForm *self)
{
  double total = nk_plan_get_output (self->plan, "shape-params");
  double active = nk_plan_get_output (self->plan, "shape-params-active");
  int experts = 0;
  g_autofree char *total_text = nk_units_format_sci (total, 2);
  g_autofree char *active_text = nk_units_format_sci (active, 2);
  g_autofree char *subtitle = NULL;

  g_object_get (self->plan, "experts", &experts, NULL);
  /* no experts, no all-to-all to hide */
  gtk_widget_set_sensitive (self->ep_comm_overlap_row, experts > 0);
  gtk_widget_set_sensitive (self->deepep_row, experts > 0);
  if (experts == 0)
    subtitle = g_strdup (_("0 routed experts: a dense model"));
  else if (isfinite (total) && isfinite (active))
    subtitle = g_strdup_printf (_("%s parameters, %s active per token"), total_text, active_text);
  else
    subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d routed expert; the shape under Architecture sizes it",
                                             "%d routed experts; the shape under Architecture sizes them", experts),
                                experts);
  adw_expander_row_set_subtitle (self->experts_row, subtitle);
}

/* Every control's row shows the plan's sentence about its property, and the
 * sentences stand under the form, where a closed row cannot hide them; a
 * rule about the global batch, which the form has no row for, too. */
static void
update_errors (NapkinClusterForm *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GPtrArray) bad = g_ptr_array_new ();
  AdwExpanderRow *expanders[] = {
    self->layout_row, self->shape_row, self->attention_expander, self->experts_row, self->memory_row,
  };
  const char *sentence;

  for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
    {
      GtkWidget *row = control_row (self, i);

      sentence = self->plan != NULL ? nk_plan_get_input_error (self->plan, controls[i].property) : NULL;
      napkin_form_mark_invalid (row, sentence);
      if (sentence != NULL)
        {
          g_string_append_printf (text, "%s%s", text->len ? "\n" : "", sentence);
          g_ptr_array_add (bad, gtk_widget_get_ancestor (row, ADW_TYPE_EXPANDER_ROW));
        }
    }
  sentence = self->plan != NULL ? nk_plan_get_input_error (self->plan, "global-batch") : NULL;
  if (sentence != NULL)
    g_string_append_printf (text, "%s%s", text->len ? "\n" : "", sentence);
  /* a closed row says that one of its rows is refused */
  for (guint e = 0; e < G_N_ELEMENTS (expanders); e++)
    napkin_form_mark_invalid (GTK_WIDGET (expanders[e]),
                              g_ptr_array_find (bad, expanders[e], NULL) ? _("A row inside breaks a rule") : NULL);
  gtk_label_set_label (self->error_label, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), text->len > 0);
  if (self->plan != NULL)
    {
      NkAttention attention = NK_ATTENTION_MHA;
      GtkSpinButton *latent[] = { self->q_lora_spin, self->kv_lora_spin, self->qk_nope_spin,
                                  self->qk_rope_spin, self->v_head_spin };

      /* the latent's ranks and widths only where there is a latent */
      g_object_get (self->plan, "attention", &attention, NULL);
      for (guint i = 0; i < G_N_ELEMENTS (latent); i++)
        gtk_widget_set_visible (gtk_widget_get_ancestor (GTK_WIDGET (latent[i]), ADW_TYPE_ACTION_ROW),
                                attention == NK_ATTENTION_MLA);
      update_experts_subtitle (self);
    }
}

static void
unbind (NapkinClusterForm *self)
{
  if (self->settings != NULL && self->plan != NULL)
    for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
      g_settings_unbind (self->plan, controls[i].property);
  g_ptr_array_set_size (self->bindings, 0);
  g_clear_signal_handler (&self->revision_handler, self->plan);
}

/* Plan first, then settings: the plan takes the stored values, the controls
 * follow the plan. */
static void
bind (NapkinClusterForm *self)
{
  if (self->plan == NULL)
    return;
  if (self->settings != NULL)
    for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
      {
        g_autofree char *key = g_strconcat ("planner-", controls[i].property, NULL);

        g_settings_bind (self->settings, key, self->plan, controls[i].property, G_SETTINGS_BIND_DEFAULT);
      }
  for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
    {
      GBindingFlags flags = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;
      GBinding *binding;

      switch (controls[i].kind)
        {
        case SPIN:
          binding = g_object_bind_property (self->plan, controls[i].property, control_at (self, i), "value", flags);
          break;
        case SWITCH:
          binding = g_object_bind_property (self->plan, controls[i].property, control_at (self, i), "active", flags);
          break;
        case COMBO:
        default:
          binding = g_object_bind_property_full (self->plan, controls[i].property, control_at (self, i), "selected",
                                                 flags, enum_to_index, index_to_enum, NULL, NULL);
          break;
        }
      /* the array's free function unbinds, dropping the binding's own reference */
      g_ptr_array_add (self->bindings, binding);
    }
  self->revision_handler = g_signal_connect_swapped (self->plan, "notify::revision",
                                                     G_CALLBACK (update_errors), self);
  update_errors (self);
}

NkPlan *
napkin_cluster_form_get_plan (NapkinClusterForm *self)
{
  g_return_val_if_fail (NAPKIN_IS_CLUSTER_FORM (self), NULL);
  return self->plan;
}

/**
 * napkin_cluster_form_set_plan:
 * @self: a form
 * @plan: (nullable): the plan whose layout the form edits
 */
void
napkin_cluster_form_set_plan (NapkinClusterForm *self,
                              NkPlan            *plan)
{
  g_return_if_fail (NAPKIN_IS_CLUSTER_FORM (self));
  g_return_if_fail (plan == NULL || NK_IS_PLAN (plan));

  if (self->plan == plan)
    return;
  unbind (self);
  g_set_object (&self->plan, plan);
  bind (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLAN]);
}

GSettings *
napkin_cluster_form_get_settings (NapkinClusterForm *self)
{
  g_return_val_if_fail (NAPKIN_IS_CLUSTER_FORM (self), NULL);
  return self->settings;
}

/**
 * napkin_cluster_form_set_settings:
 * @self: a form
 * @settings: (nullable): the application's settings, where the layout is kept
 */
void
napkin_cluster_form_set_settings (NapkinClusterForm *self,
                                  GSettings         *settings)
{
  g_return_if_fail (NAPKIN_IS_CLUSTER_FORM (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings == settings)
    return;
  unbind (self);
  g_set_object (&self->settings, settings);
  bind (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

/**
 * _napkin_cluster_form_get_control: (skip)
 * @self: a form
 * @property: a plan property the form edits ("tp", "recompute")
 *
 * For the tests: the spin button, switch or combo row bound to @property.
 *
 * Returns: (transfer none) (nullable): the control
 */
GtkWidget *
_napkin_cluster_form_get_control (NapkinClusterForm *self,
                                  const char        *property)
{
  for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
    if (g_str_equal (controls[i].property, property))
      return control_at (self, i);
  return NULL;
}

/**
 * _napkin_cluster_form_get_error_text: (skip)
 * @self: a form
 *
 * For the tests: the sentences shown under the form, "" when none is.
 *
 * Returns: the text
 */
const char *
_napkin_cluster_form_get_error_text (NapkinClusterForm *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->error_label)) ? gtk_label_get_label (self->error_label) : "";
}

static void
napkin_cluster_form_dispose (GObject *object)
{
  NapkinClusterForm *self = NAPKIN_CLUSTER_FORM (object);

  unbind (self);
  g_clear_object (&self->plan);
  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_CLUSTER_FORM);
  G_OBJECT_CLASS (napkin_cluster_form_parent_class)->dispose (object);
}

static void
napkin_cluster_form_finalize (GObject *object)
{
  g_ptr_array_unref (NAPKIN_CLUSTER_FORM (object)->bindings);
  G_OBJECT_CLASS (napkin_cluster_form_parent_class)->finalize (object);
}

static void
napkin_cluster_form_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NapkinClusterForm *self = NAPKIN_CLUSTER_FORM (object);

  switch (prop_id)
    {
    case PROP_PLAN: g_value_set_object (value, self->plan); break;
    case PROP_SETTINGS: g_value_set_object (value, self->settings); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_cluster_form_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NapkinClusterForm *self = NAPKIN_CLUSTER_FORM (object);

  switch (prop_id)
    {
    case PROP_PLAN: napkin_cluster_form_set_plan (self, g_value_get_object (value)); break;
    case PROP_SETTINGS: napkin_cluster_form_set_settings (self, g_value_get_object (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_cluster_form_class_init (NapkinClusterFormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = napkin_cluster_form_dispose;
  object_class->finalize = napkin_cluster_form_finalize;
  object_class->get_property = napkin_cluster_form_get_property;
  object_class->set_property = napkin_cluster_form_set_property;

  properties[PROP_PLAN] = g_param_spec_object ("plan", NULL, NULL, NK_TYPE_PLAN, flags);
  properties[PROP_SETTINGS] = g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-cluster-form.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, NapkinClusterForm, name)
  BIND (tp_spin);
  BIND (pp_spin);
  BIND (cp_spin);
  BIND (dp_spin);
  BIND (virtual_spin);
  BIND (micro_spin);
  BIND (per_node_spin);
  BIND (kv_spin);
  BIND (reserve_spin);
  BIND (sp_switch);
  BIND (tp_comm_overlap_switch);
  BIND (ep_comm_overlap_switch);
  BIND (ep_comm_overlap_row);
  BIND (deepep_switch);
  BIND (deepep_row);
  BIND (flash_switch);
  BIND (tied_switch);
  BIND (mfu_auto_switch);
  BIND (best_layout_switch);
  BIND (fsdp_switch);
  BIND (dropout_switch);
  BIND (head_dim_spin);
  BIND (nvlink_domain_spin);
  BIND (experts_spin);
  BIND (experts_per_token_spin);
  BIND (shared_experts_spin);
  BIND (expert_d_ff_spin);
  BIND (dense_layers_spin);
  BIND (ep_spin);
  BIND (etp_spin);
  BIND (imbalance_spin);
  BIND (layout_row);
  BIND (shape_row);
  BIND (experts_row);
  BIND (attention_expander);
  BIND (attention_row);
  BIND (recipe_row);
  BIND (first_stage_spin);
  BIND (last_stage_spin);
  BIND (q_lora_spin);
  BIND (kv_lora_spin);
  BIND (qk_nope_spin);
  BIND (qk_rope_spin);
  BIND (v_head_spin);
  BIND (memory_row);
  BIND (error_label);
  BIND (recompute_row);
  BIND (ffn_row);
  BIND (grad_precision_row);
  BIND (capacity_row);
#undef BIND
}

static void
napkin_cluster_form_init (NapkinClusterForm *self)
{
  self->bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_binding_unbind);
  gtk_widget_init_template (GTK_WIDGET (self));
}
