/* napkin-planner-page-actions.c: the Planner page's actions: presets, inverse answers, copy, export
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every action is `planner.*`, installed on the page's class, so the buttons, the
 * presets and the tests go through the same doors.
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "nk-json.h"
#include "nk-train-config.h"
#include "nk-units.h"
#include "napkin-file-chooser.h"
#include "napkin-page.h"
#include "napkin-planner-page-private.h"

static void
show_toast (NapkinPlannerPage *self,
            const char        *title)
{
  napkin_page_add_toast (GTK_WIDGET (self), adw_toast_new (title));
}

/* The lecture's questions and Napkin's GPT are dense, with days from the typed
 * MFU: a published run's experts and derived MFU must not stay behind. */
static void
clear_published_run (NapkinPlannerPage *self)
{
  g_object_set (self->plan, "experts", 0, "experts-per-token", 0, "shared-experts", 0, "expert-d-ff", 0,
                "dense-layers", 0, "ep", 1, "etp", 1, "head-dim", 0, "attention", NK_ATTENTION_MHA,
                "recipe", NK_PLAN_RECIPE_NONE, "first-stage-layers", 0, "last-stage-layers", 0,
                "mfu-auto", FALSE, NULL);
}

/* Napkin's own GPT as the Training page trains it (issue 12's run: 4 layers,
 * d_model 128, 4 heads, context 64, batch 16, byte vocabulary, tied embeddings,
 * AdamW in fp32, 500 steps on one GPU), so the plan's memory and FLOPs sit
 * beside what that run measures; the Training page's form gets the same run. */
static void
gpt_preset (NapkinPlannerPage *self)
{
  static const struct { const char *input, *text; } entries[] = {
    { "layers", "4" }, { "d-model", "128" }, { "heads", "4" }, { "seq", "64" }, { "vocab", "256" },
    { "batch", "16" }, { "d-ff", "" }, { "gpus", "1" }, { "tokens", "512000" },
  };
  g_autofree char *lr = NULL;
  AdwToast *toast;

  clear_published_run (self);
  _napkin_planner_page_set_gpu (self, "h100-sxm");
  adw_combo_row_set_selected (self->dtype_row, 0);   /* fp32: the run's matmuls */
  adw_combo_row_set_selected (self->optimizer_row, NK_OPTIMIZER_ADAMW);
  adw_combo_row_set_selected (self->precision_row, NK_PRECISION_FP32);
  adw_combo_row_set_selected (self->zero_row, 0);
  adw_combo_row_set_selected (self->activation_model_row, NK_ACTIVATION_MODEL_TRANSFORMER);
  g_object_set (self->plan, "tp", 1, "pp", 1, "cp", 1, "dp", 0, "micro-batch", 0, "kv-heads", 0,
                "ffn", NK_FFN_GELU, "tied-embeddings", TRUE, "recompute", NK_RECOMPUTE_NONE,
                "flash-attention", FALSE, "best-layout", FALSE, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    _napkin_planner_page_set_entry_text (self, entries[i].input, entries[i].text);
  _napkin_planner_page_set_entry_text (self, "params", "");
  gtk_widget_activate_action (GTK_WIDGET (self), "planner.use-shape", NULL);
  if (self->settings != NULL)
    {
      g_settings_set_string (self->settings, "training-model", "gpt");
      g_settings_set_int (self->settings, "training-layers", 4);
      g_settings_set_int (self->settings, "training-dim", 128);
      g_settings_set_int (self->settings, "training-n-head", 4);
      g_settings_set_int (self->settings, "training-context", 64);
      g_settings_set_int (self->settings, "training-batch", 16);
      g_settings_set_int (self->settings, "training-steps", 500);
      g_settings_set_string (self->settings, "training-optimizer", "adamw");
      g_settings_set_string (self->settings, "training-precision", "fp32");
      /* the GPT's own rate: at the Cruncher's 0.01 this run stalls */
      lr = g_strdup_printf ("%g", nk_train_config_default_lr (NK_MODEL_GPT));
      g_settings_set_string (self->settings, "training-lr", lr);
    }
  toast = adw_toast_new (_("Napkin’s GPT planned; the Training page has the same run"));
  adw_toast_set_button_label (toast, _("Open Training"));
  adw_toast_set_action_name (toast, "win.show-page");
  adw_toast_set_action_target (toast, "s", "training");
  napkin_page_add_toast (GTK_WIDGET (self), toast);
}

/* A published run: the page's typed inputs, its lists, and the layout the
 * Parallelism form shows (set on the plan; the form follows). */
typedef struct {
  const char *gpu;
  guint       dtype_index;   /* the dtype row's position: 2 bf16 */
  NkPrecision precision;
  int         zero;
  const char *entries[16][2];
} PublishedRun;

static void
apply_published_run (NapkinPlannerPage  *self,
                     const PublishedRun *run)
{
  _napkin_planner_page_set_gpu (self, run->gpu);
  adw_combo_row_set_selected (self->dtype_row, run->dtype_index);
  gtk_switch_set_active (self->sparse_switch, FALSE);
  adw_combo_row_set_selected (self->optimizer_row, NK_OPTIMIZER_ADAMW);
  adw_combo_row_set_selected (self->precision_row, run->precision);
  adw_combo_row_set_selected (self->zero_row, run->zero);
  adw_combo_row_set_selected (self->activation_model_row, NK_ACTIVATION_MODEL_TRANSFORMER);
  gtk_switch_set_active (self->checkpointing_switch, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (run->entries) && run->entries[i][0] != NULL; i++)
    _napkin_planner_page_set_entry_text (self, run->entries[i][0], run->entries[i][1]);
}

/* DeepSeek-V3 as DeepSeek-AI's technical report (arXiv 2412.19437) and the
 * released config.json describe it: §4.2, 61 layers of hidden size 7168, 128
 * heads of 128, the first three with a dense FFN (config.json:
 * first_k_dense_replace 3, intermediate_size 18432), the others 1 shared and
 * 256 routed experts of width 2048 with 8 routed per token; vocabulary 129,280
 * (config.json), untied; sequences of 4K, the batch ramped up to 15,360
 * sequences (the value kept for most of training), 14.8T tokens. §3.1-3.2:
 * 2,048 H800s, 8 per node, 16-way pipeline parallelism, 64-way expert
 * parallelism across 8 nodes, ZeRO-1 data parallelism, no tensor parallelism
 * (the report gives no split of its 61 layers over the 16 stages: 3 on the
 * first and 2 on the last, beside the embedding and the output layer, leave 4
 * on each of the other 14);
 * §2.1.1 and config.json: multi-head latent attention with a query latent of
 * 1536, a key/value latent of 512, heads of 128 + 64 (RoPE) for Q and K and 128
 * for V;
 * AdamW; §3.3 trains its linear layers in FP8 with 1 × 128 activation tiles
 * and 128 × 128 weight blocks (the fp8-blockwise recipe) on bf16 mixed
 * precision; recomputes RMSNorm and MLA's up-projections (selective);
 * §3.2.1: DualPipe hides the dispatch and combine all-to-alls behind another
 * micro-batch's compute (expert all-to-all overlap on). */
static void
deepseek_v3_preset (NapkinPlannerPage *self)
{
  static const PublishedRun run = {
    "h800", 2, NK_PRECISION_BF16_MIXED, 1,
    { { "tokens", "14.8T" }, { "layers", "61" }, { "d-model", "7168" }, { "heads", "128" },
      { "d-ff", "18432" }, { "vocab", "129280" }, { "seq", "4096" }, { "batch", "15360" },
      { "gpus", "2048" }, { "price", "" }, { "deadline-days", "" }, { NULL } },
  };

  apply_published_run (self, &run);
  g_object_set (self->plan, "tp", 1, "pp", 16, "cp", 1, "dp", 0, "virtual-stages", 1, "micro-batch", 1,
                "first-stage-layers", 3, "last-stage-layers", 2,
                "kv-heads", 0, "head-dim", 0, "ffn", NK_FFN_SWIGLU, "tied-embeddings", FALSE,
                "attention", NK_ATTENTION_MLA, "q-lora-rank", 1536, "kv-lora-rank", 512,
                "recipe", NK_PLAN_RECIPE_FP8_BLOCKWISE,
                "qk-nope-head-dim", 128, "qk-rope-head-dim", 64, "v-head-dim", 128,
                "sequence-parallel", FALSE, "recompute", NK_RECOMPUTE_SELECTIVE, "flash-attention", TRUE,
                "dropout", FALSE, "gpus-per-node", 8, "nvlink-domain", 0, "fsdp", FALSE,
                "experts", 256, "experts-per-token", 8, "shared-experts", 1, "expert-d-ff", 2048,
                "dense-layers", 3, "ep", 64, "etp", 1, "expert-imbalance", 1.0,
                "tp-comm-overlap", FALSE, "ep-comm-overlap", TRUE, "deepep", TRUE,
                "best-layout", FALSE, "mfu-auto", TRUE, NULL);
  _napkin_planner_page_set_entry_text (self, "params", "");
  gtk_widget_activate_action (GTK_WIDGET (self), "planner.use-shape", NULL);
  show_toast (self, _("DeepSeek-V3 on 2,048 H800s, as its technical report trains it"));
}

/* A Llama-3-70B-class model (Llama 3 Herd of Models, arXiv 2407.21783, table 3:
 * 80 layers, model dimension 8,192, FFN 28,672, 64 heads, 8 key/value heads;
 * vocabulary 128,256 in the released config.json, untied; context 8,192; 15T
 * tokens) on one GB200 NVL72 rack (NVIDIA's GB200 NVL72 specifications: 72
 * GPUs, 4 to a compute tray, all 72 in one NVLink domain). TP 8 spans two
 * trays yet rides NVLink; DP 9 × 64 micro-batches of one sequence is 576
 * sequences, 4.7M tokens a step (Llama 3's 70B batch is not published; its
 * 405B ran 4M to 16M). */
static void
llama3_70b_nvl72_preset (NapkinPlannerPage *self)
{
  static const PublishedRun run = {
    "gb200", 2, NK_PRECISION_BF16_MIXED, 1,
    { { "tokens", "15T" }, { "layers", "80" }, { "d-model", "8192" }, { "heads", "64" },
      { "d-ff", "28672" }, { "vocab", "128256" }, { "seq", "8192" }, { "batch", "576" },
      { "gpus", "72" }, { "price", "" }, { "deadline-days", "" }, { NULL } },
  };

  apply_published_run (self, &run);
  g_object_set (self->plan, "tp", 8, "pp", 1, "cp", 1, "dp", 0, "virtual-stages", 1, "micro-batch", 1,
                "first-stage-layers", 0, "last-stage-layers", 0,
                "kv-heads", 8, "head-dim", 0, "ffn", NK_FFN_SWIGLU, "tied-embeddings", FALSE,
                "attention", NK_ATTENTION_MHA, "recipe", NK_PLAN_RECIPE_NONE,
                "sequence-parallel", TRUE, "recompute", NK_RECOMPUTE_SELECTIVE, "flash-attention", TRUE,
                "dropout", FALSE, "gpus-per-node", 4, "nvlink-domain", 0, "fsdp", FALSE,
                "experts", 0, "experts-per-token", 0, "shared-experts", 0, "expert-d-ff", 0,
                "dense-layers", 0, "ep", 1, "etp", 1, "expert-imbalance", 1.0,
                "tp-comm-overlap", FALSE, "ep-comm-overlap", FALSE, "deepep", FALSE,
                "best-layout", FALSE, "mfu-auto", TRUE, NULL);
  _napkin_planner_page_set_entry_text (self, "params", "");
  gtk_widget_activate_action (GTK_WIDGET (self), "planner.use-shape", NULL);
  show_toast (self, _("A Llama-3-70B-class model on a GB200 NVL72 rack"));
}

/* The shape's own parameter count (embeddings included), exactly. */
static void
use_shape_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  double n = nk_plan_get_output (self->plan, "shape-params");
  g_autofree char *text = NULL;

  if (!isfinite (n))
    return;
  text = g_strdup_printf ("%.0f", n);
  _napkin_planner_page_set_entry_text (self, "params", text);
}

static void
preset_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  const char *preset = g_variant_get_string (parameter, NULL);

  if (g_str_equal (preset, "time"))
    {
      /* Lecture: 70e9 params, 15e12 tokens, 1024 H100 SXM, dense bf16, MFU 0.5. */
      clear_published_run (self);
      _napkin_planner_page_set_gpu (self, "h100-sxm");
      adw_combo_row_set_selected (self->dtype_row, 2);
      gtk_switch_set_active (self->sparse_switch, FALSE);
      _napkin_planner_page_set_entry_text (self, "params", "70B");
      _napkin_planner_page_set_entry_text (self, "tokens", "15T");
      _napkin_planner_page_set_entry_text (self, "gpus", "1024");
      _napkin_planner_page_set_entry_text (self, "mfu", "0.5");
      show_toast (self, _("70B on 15T tokens, 1,024 H100s, dense bf16, MFU 0.5"));
    }
  else if (g_str_equal (preset, "largest"))
    {
      /* Lecture: 8 × H100 80 GB, AdamW in fp32 (16 bytes per parameter), no
       * activations, and the answer the lecture gives needs everything sharded. */
      clear_published_run (self);
      _napkin_planner_page_set_gpu (self, "h100-sxm");
      _napkin_planner_page_set_entry_text (self, "gpus", "8");
      adw_combo_row_set_selected (self->optimizer_row, NK_OPTIMIZER_ADAMW);
      adw_combo_row_set_selected (self->precision_row, NK_PRECISION_FP32);
      adw_combo_row_set_selected (self->zero_row, 3);
      for (const char * const *name = (const char *[]) { "batch", "seq", "layers", "d-model",
                                                         "heads", "d-ff", "vocab", NULL };
           *name; name++)
        _napkin_planner_page_set_entry_text (self, *name, "");
      gtk_widget_activate_action (widget, "planner.largest", NULL);
      show_toast (self, _("Largest model on 8 H100s with AdamW, fully sharded (ZeRO 3)"));
    }
  else if (g_str_equal (preset, "gpt"))
    gpt_preset (self);
  else if (g_str_equal (preset, "deepseek-v3"))
    deepseek_v3_preset (self);
  else if (g_str_equal (preset, "llama3-70b-nvl72"))
    llama3_70b_nvl72_preset (self);
  else
    g_warning ("Unknown planner preset “%s”", preset);
}

static void
largest_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  double largest = nk_plan_get_largest_params (self->plan);
  g_autofree char *text = NULL;

  if (!isfinite (largest))
    return;
  text = _napkin_planner_page_format_fill_in (largest);
  _napkin_planner_page_set_entry_text (self, "params", text);
}

static void
fewest_gpus_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  double needed = nk_plan_get_gpus_for_deadline (self->plan);
  g_autofree char *text = NULL;

  if (!isfinite (needed))
    return;
  text = g_strdup_printf ("%.0f", needed);
  _napkin_planner_page_set_entry_text (self, "gpus", text);
}

/* The whole count, not a rounded "84.9M": the formula gives an exact number. */
static void
use_architecture_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  double sized = nk_plan_get_sized_params (self->plan);
  g_autofree char *text = NULL;
  g_autofree char *sci = NULL;
  g_autofree char *toast = NULL;

  if (!isfinite (sized))
    return;
  text = g_strdup_printf ("%.0f", sized);
  _napkin_planner_page_set_entry_text (self, "params", text);
  sci = nk_units_format_sci (sized, 2);
  toast = g_strdup_printf (_("Parameters set to %s from the architecture"), sci);
  show_toast (self, toast);
}

static NkPlanJsonFlags
json_flags (NapkinPlannerPage *self)
{
  NkPlanJsonFlags flags = NK_PLAN_JSON_LARGEST;
  double deadline = nk_plan_get_deadline_days (self->plan);

  if (nk_plan_get_price (self->plan) > 0)
    flags |= NK_PLAN_JSON_COST;
  if (deadline > 0)
    flags |= NK_PLAN_JSON_DEADLINE;
  return flags;
}

static void
copy_summary_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  g_autofree char *summary = nk_plan_format_summary (self->plan, json_flags (self));

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), summary);
  show_toast (self, _("Copied"));
}

/**
 * _napkin_planner_page_export:
 * @self: a planner page
 * @path: a file name
 * @error: a sentence naming @path when it cannot be written
 *
 * Writes the plan as `napkin-cli plan --json` prints it (one JSON line), with
 * `largest_params` always, `cost` when a price is given and the deadline fields
 * when a deadline is. The file is replaced atomically.
 *
 * Returns: %TRUE when the file was written
 */
gboolean
_napkin_planner_page_export (NapkinPlannerPage  *self,
                             const char         *path,
                             GError            **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *line = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (NAPKIN_IS_PLANNER_PAGE (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  nk_plan_build_json (self->plan, builder, json_flags (self));
  line = nk_json_to_line (builder);
  text = g_strconcat (line, "\n", NULL);
  return g_file_set_contents_full (path, text, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0644, error);
}

static void
export_chosen (GtkWidget *widget,
               GFile     *file,
               gpointer   user_data)
{
  NapkinPlannerPage *self = NAPKIN_PLANNER_PAGE (widget);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  if (path == NULL || !_napkin_planner_page_export (self, path, &error))
    {
      message = g_strdup_printf (_("Could not save the plan: %s"),
                                 error ? error->message : _("the file has no local path"));
    }
  else
    {
      g_autofree char *basename = g_file_get_basename (file);

      message = g_strdup_printf (_("Saved “%s”"), basename);
    }
  show_toast (self, message);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("JSON"));
  gtk_file_filter_add_mime_type (filter, "application/json");
  gtk_file_filter_add_suffix (filter, "json");
  napkin_choose_file (widget, _("Export Plan"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                      "plan.json", filter, export_chosen, NULL, NULL);
}

/**
 * _napkin_planner_page_install_actions:
 * @widget_class: the page's class
 *
 * Installs every `planner.*` action.
 */
void
_napkin_planner_page_install_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "planner.preset", "s", preset_action);
  gtk_widget_class_install_action (widget_class, "planner.largest", NULL, largest_action);
  gtk_widget_class_install_action (widget_class, "planner.fewest-gpus", NULL, fewest_gpus_action);
  gtk_widget_class_install_action (widget_class, "planner.use-architecture", NULL,
                                   use_architecture_action);
  gtk_widget_class_install_action (widget_class, "planner.copy-summary", NULL, copy_summary_action);
  gtk_widget_class_install_action (widget_class, "planner.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "planner.use-shape", NULL, use_shape_action);
}
