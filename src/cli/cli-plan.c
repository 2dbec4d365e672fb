/* cli-plan.c: napkin-cli plan: the budget planner without a display
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "nk-plan.h"
#include "nk-units.h"

/* The plan's input property names and the flags that set them, so an invalid
 * input is reported under the flag the person typed. */
static const struct {
  const char *input;
  const char *flag;
} flag_names[] = {
  { "params", "--params" }, { "tokens", "--tokens" }, { "gpu", "--gpu" },
  { "gpus", "--gpus" }, { "mfu", "--mfu" }, { "dtype", "--dtype" },
  { "sparse", "--sparse" }, { "zero-stage", "--zero" }, { "batch", "--batch" },
  { "seq", "--seq" }, { "layers", "--layers" }, { "d-model", "--d-model" },
  { "heads", "--heads" }, { "d-ff", "--d-ff" }, { "vocab", "--vocab" },
  { "price", "--price" }, { "deadline-days", "--deadline" },
};

static const char *
flag_for_input (const char *input)
{
  for (guint i = 0; i < G_N_ELEMENTS (flag_names); i++)
    if (g_strcmp0 (flag_names[i].input, input) == 0)
      return flag_names[i].flag;
  return input;
}

typedef struct {
  const char *flag;
  const char *property;
  char       *text;
} NumberFlag;

int
nk_cli_plan_main (int    argc,
                  char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(NkPlan) plan = NULL;
  g_autofree char *gpu = NULL;
  g_autofree char *dtype_name = NULL;
  g_autofree char *optimizer_name = NULL;
  g_autofree char *precision_name = NULL;
  g_autofree char *zero_text = NULL;
  g_autofree char *activations_name = NULL;
  gboolean sparse = FALSE, largest = FALSE, checkpointing = FALSE;
  gboolean json = nk_cli_wants_json (argc, argv);
  gboolean want_json = FALSE;
  NumberFlag numbers[] = {
    { "--params", "params", NULL },
    { "--tokens", "tokens", NULL },
    { "--gpus", "gpus", NULL },
    { "--mfu", "mfu", NULL },
    { "--batch", "batch", NULL },
    { "--seq", "seq", NULL },
    { "--layers", "layers", NULL },
    { "--d-model", "d-model", NULL },
    { "--heads", "heads", NULL },
    { "--d-ff", "d-ff", NULL },
    { "--vocab", "vocab", NULL },
    { "--price", "price", NULL },
    { "--deadline", "deadline-days", NULL },
  };
  enum { N_PARAMS, N_TOKENS, N_GPUS, N_MFU, N_BATCH, N_SEQ, N_LAYERS, N_D_MODEL,
         N_HEADS, N_D_FF, N_VOCAB, N_PRICE, N_DEADLINE };
  const GOptionEntry entries[] = {
    { "params", 0, 0, G_OPTION_ARG_STRING, &numbers[N_PARAMS].text, N_("Parameters (70B, 7e10)"), "N" },
    { "tokens", 0, 0, G_OPTION_ARG_STRING, &numbers[N_TOKENS].text, N_("Training tokens (15T)"), "N" },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &gpu, N_("GPU id from “napkin-cli gpus” (h100-sxm)"), "ID" },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &numbers[N_GPUS].text, N_("Number of GPUs"), "N" },
    { "mfu", 0, 0, G_OPTION_ARG_STRING, &numbers[N_MFU].text, N_("Model FLOPs utilization, in (0, 1]"), "F" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_name, N_("Peak to use: fp32, tf32, bf16 (default), fp16, fp8"), "D" },
    { "sparse", 0, 0, G_OPTION_ARG_NONE, &sparse, N_("Use the datasheet’s 2:4-sparsity peak instead of the dense one"), NULL },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &optimizer_name, N_("sgd, momentum, adagrad, rmsprop, adam, adamw (default)"), "NAME" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &precision_name, N_("fp32 (default) or mixed"), "P" },
    { "zero", 0, 0, G_OPTION_ARG_STRING, &zero_text, N_("ZeRO stage 0 (default), 1, 2 or 3"), "0|1|2|3" },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &numbers[N_BATCH].text, N_("Global batch in sequences (for activations)"), "B" },
    { "seq", 0, 0, G_OPTION_ARG_STRING, &numbers[N_SEQ].text, N_("Sequence length (for activations and sizing)"), "S" },
    { "layers", 0, 0, G_OPTION_ARG_STRING, &numbers[N_LAYERS].text, N_("Layers (for activations and sizing)"), "L" },
    { "d-model", 0, 0, G_OPTION_ARG_STRING, &numbers[N_D_MODEL].text, N_("Hidden size (for activations and sizing)"), "D" },
    { "heads", 0, 0, G_OPTION_ARG_STRING, &numbers[N_HEADS].text, N_("Attention heads (transformer activations)"), "A" },
    { "d-ff", 0, 0, G_OPTION_ARG_STRING, &numbers[N_D_FF].text, N_("Feed-forward width for sizing (default 4 × d-model)"), "F" },
    { "vocab", 0, 0, G_OPTION_ARG_STRING, &numbers[N_VOCAB].text, N_("Vocabulary size for sizing"), "V" },
    { "activations", 0, 0, G_OPTION_ARG_STRING, &activations_name, N_("Activation model: linear (default, the lecture’s B·S·D·L) or transformer"), "MODEL" },
    { "checkpointing", 0, 0, G_OPTION_ARG_NONE, &checkpointing, N_("Full activation checkpointing (transformer model)"), NULL },
    { "price", 0, 0, G_OPTION_ARG_STRING, &numbers[N_PRICE].text, N_("Price in USD per GPU-hour"), "USD_PER_GPU_HOUR" },
    { "deadline", 0, 0, G_OPTION_ARG_STRING, &numbers[N_DEADLINE].text, N_("Also answer: fewest GPUs to finish within DAYS"), "DAYS" },
    { "largest", 0, 0, G_OPTION_ARG_NONE, &largest, N_("Answer: the most parameters whose memory fits the GPUs"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &want_json, N_("One JSON object per line"), NULL },
    { NULL }
  };
  NkPlanJsonFlags flags = NK_PLAN_JSON_NONE;
  gboolean have_compute;
  int exit_code;
  NkPeakDtype dtype = NK_PEAK_BF16;
  NkOptimizer optimizer = NK_OPTIMIZER_ADAMW;
  NkPrecision precision = NK_PRECISION_FP32;
  NkActivationModel activations = NK_ACTIVATION_MODEL_LINEAR;
  int zero = 0;

  context = g_option_context_new (_("— time, cost and memory of a training run"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("total_flops = 6 × params × tokens; flops_per_day = peak × mfu × gpus × 86400;\n"
      "days = total / per day. Peaks are dense unless --sparse. Memory per parameter:\n"
      "4 + 4 + optimizer state (adamw 8) in fp32; under --zero 1/2/3 the optimizer\n"
      "state, then gradients, then parameters are divided over --gpus.\n"
      "A plan whose memory does not fit is still printed (fits: false, exit 0);\n"
      "--largest exits 1 when not even one parameter fits."));
  if (!nk_cli_parse_options (context, &argc, &argv, json, &exit_code))
    {
      for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
        g_free (numbers[i].text);
      return exit_code;
    }
  json = json || want_json;

  plan = nk_plan_new ();
  exit_code = NK_EXIT_OK;

#define FAIL(...) G_STMT_START { exit_code = nk_cli_fail (json, NK_EXIT_USAGE, __VA_ARGS__); goto out; } G_STMT_END

  if (argc > 1)
    FAIL (_("“%s” is not an option of plan (run napkin-cli plan --help)"), argv[1]);
  if (gpu == NULL)
    FAIL ("%s", _("--gpu is required (see napkin-cli gpus)"));
  if (numbers[N_GPUS].text == NULL)
    FAIL ("%s", _("--gpus is required"));
  if (!largest)
    {
      if (numbers[N_PARAMS].text == NULL)
        FAIL ("%s", _("--params is required (or ask --largest)"));
      if (numbers[N_TOKENS].text == NULL)
        FAIL ("%s", _("--tokens is required (or ask --largest)"));
      if (numbers[N_MFU].text == NULL)
        FAIL ("%s", _("--mfu is required (0.5 is a good guess for a well-tuned run)"));
    }

  if (dtype_name != NULL
      && (!nk_peak_dtype_from_string (dtype_name, &dtype) || !nk_plan_dtype_is_supported (dtype)))
    FAIL (_("--dtype: “%s” is not one of fp32, tf32, bf16, fp16, fp8"), dtype_name);
  if (optimizer_name != NULL && !nk_optimizer_from_string (optimizer_name, &optimizer))
    FAIL (_("--optimizer: “%s” is not one of sgd, momentum, adagrad, rmsprop, adam, adamw"),
          optimizer_name);
  if (precision_name != NULL && !nk_precision_from_string (precision_name, &precision))
    FAIL (_("--precision: “%s” is not one of fp32, mixed"), precision_name);
  if (activations_name != NULL && !nk_activation_model_from_string (activations_name, &activations))
    FAIL (_("--activations: “%s” is not one of linear, transformer"), activations_name);
  if (zero_text != NULL)
    {
      if (strlen (zero_text) != 1 || zero_text[0] < '0' || zero_text[0] > '3')
        FAIL (_("--zero: “%s” is not one of 0, 1, 2, 3"), zero_text);
      zero = zero_text[0] - '0';
    }

  g_object_freeze_notify (G_OBJECT (plan));
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      g_autoptr(GError) error = NULL;
      double value;

      if (numbers[i].text == NULL)
        continue;
      if (!nk_cli_parse_number (numbers[i].flag, numbers[i].text, &value, &error))
        {
          g_object_thaw_notify (G_OBJECT (plan));
          FAIL ("%s", error->message);
        }
      g_object_set (plan, numbers[i].property, value, NULL);
    }
  g_object_set (plan,
                "gpu", gpu,
                "dtype", dtype,
                "sparse", sparse,
                "optimizer", optimizer,
                "precision", precision,
                "zero-stage", zero,
                "activation-model", activations,
                "checkpointing", checkpointing,
                NULL);
  /* Inputs the question does not need get harmless stand-ins; the fields that
   * would depend on them are left out of the answer. */
  have_compute = numbers[N_PARAMS].text && numbers[N_TOKENS].text && numbers[N_MFU].text;
  if (numbers[N_PARAMS].text == NULL)
    nk_plan_set_params (plan, 1);
  if (numbers[N_TOKENS].text == NULL)
    nk_plan_set_tokens (plan, 1);
  if (numbers[N_MFU].text == NULL)
    nk_plan_set_mfu (plan, 0.5);
  if (numbers[N_PRICE].text == NULL)
    nk_plan_set_price (plan, 0);
  g_object_thaw_notify (G_OBJECT (plan));

  if (!nk_plan_get_valid (plan))
    FAIL ("%s: %s", flag_for_input (nk_plan_get_error_input (plan)), nk_plan_get_error (plan));

  if (largest && numbers[N_PARAMS].text == NULL)
    {
      double n = nk_plan_get_output (plan, "largest-params");

      /* Show the memory of the answer itself, so it visibly fits. */
      if (n >= 1)
        nk_plan_set_params (plan, n);
    }

  if (!have_compute)
    flags |= NK_PLAN_JSON_NO_COMPUTE;
  if (numbers[N_PRICE].text != NULL)
    flags |= NK_PLAN_JSON_COST;
  if (largest)
    flags |= NK_PLAN_JSON_LARGEST;
  if (numbers[N_DEADLINE].text != NULL)
    flags |= NK_PLAN_JSON_DEADLINE;

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      nk_plan_build_json (plan, builder, flags);
      nk_cli_print_json (builder);
    }
  else
    {
      g_autofree char *summary = nk_plan_format_summary (plan, flags);

      fputs (summary, stdout);
    }

  if (largest && !(nk_plan_get_output (plan, "largest-params") >= 1))
    {
      g_autofree char *act = nk_units_format_bytes (nk_plan_get_output (plan, "memory-activations-per-gpu"));
      g_autofree char *hbm = nk_units_format_bytes (nk_plan_get_output (plan, "hbm-per-gpu"));

      /* The plan above shows why; the error line still ends the JSON output. */
      exit_code = nk_cli_fail (json, NK_EXIT_UNSATISFIABLE,
                               _("--largest: not even one parameter fits: activations take %s "
                                 "of the %s per GPU (lower --batch or --seq)"), act, hbm);
    }

#undef FAIL
out:
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    g_free (numbers[i].text);
  return exit_code;
}
