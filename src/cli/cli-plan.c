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
#include "nk-enums.h"
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
  { "matmul-efficiency", "--matmul-efficiency" },
  { "nvlink-bandwidth", "--nvlink-bandwidth" }, { "network-bandwidth", "--network-bandwidth" },
  { "tp", "--tp" }, { "pp", "--pp" }, { "cp", "--cp" }, { "dp", "--dp" },
  { "virtual-stages", "--virtual-stages" }, { "global-batch", "--global-batch" },
  { "micro-batch", "--micro-batch" }, { "kv-heads", "--kv-heads" },
  { "best-layout", "--best-layout" },
};

static const char *
flag_for_input (const char *input)
{
  for (guint i = 0; i < G_N_ELEMENTS (flag_names); i++)
    if (g_strcmp0 (flag_names[i].input, input) == 0)
      return flag_names[i].flag;
  return input;
}

enum { N_PARAMS, N_TOKENS, N_GPUS, N_MFU, N_BATCH, N_SEQ, N_LAYERS, N_D_MODEL,
       N_HEADS, N_D_FF, N_VOCAB, N_PRICE, N_DEADLINE, N_EFFICIENCY, N_NVLINK, N_NETWORK, N_NUMBERS };

static const struct {
  const char *flag;
  const char *property;
} number_flags[N_NUMBERS] = {
  [N_PARAMS] = { "--params", "params" },
  [N_TOKENS] = { "--tokens", "tokens" },
  [N_GPUS] = { "--gpus", "gpus" },
  [N_MFU] = { "--mfu", "mfu" },
  [N_BATCH] = { "--batch", "batch" },
  [N_SEQ] = { "--seq", "seq" },
  [N_LAYERS] = { "--layers", "layers" },
  [N_D_MODEL] = { "--d-model", "d-model" },
  [N_HEADS] = { "--heads", "heads" },
  [N_D_FF] = { "--d-ff", "d-ff" },
  [N_VOCAB] = { "--vocab", "vocab" },
  [N_PRICE] = { "--price", "price" },
  [N_DEADLINE] = { "--deadline", "deadline-days" },
  [N_EFFICIENCY] = { "--matmul-efficiency", "matmul-efficiency" },
  [N_NVLINK] = { "--nvlink-bandwidth", "nvlink-bandwidth" },
  [N_NETWORK] = { "--network-bandwidth", "network-bandwidth" },
};

/* The layout's whole-number flags, each an int property of NkPlan. */
enum { I_TP, I_PP, I_CP, I_DP, I_VIRTUAL, I_GLOBAL, I_MICRO, I_KV_HEADS, I_PER_NODE, I_RESERVE,
       N_INTS };

static const struct {
  const char *flag;
  const char *property;
  double      minimum;
} int_flags[N_INTS] = {
  [I_TP] = { "--tp", "tp", 1 },
  [I_PP] = { "--pp", "pp", 1 },
  [I_CP] = { "--cp", "cp", 1 },
  [I_DP] = { "--dp", "dp", 1 },
  [I_VIRTUAL] = { "--virtual-stages", "virtual-stages", 1 },
  [I_GLOBAL] = { "--global-batch", "global-batch", 1 },
  [I_MICRO] = { "--micro-batch", "micro-batch", 1 },
  [I_KV_HEADS] = { "--kv-heads", "kv-heads", 1 },
  [I_PER_NODE] = { "--gpus-per-node", "gpus-per-node", 1 },
  [I_RESERVE] = { "--memory-reserve", "memory-reserve", 0 },
};

/* The layout's named choices: flag, property, enum type. */
enum { C_FFN, C_RECOMPUTE, C_GRAD_PRECISION, C_CAPACITY, N_CHOICES };

static const struct {
  const char *flag;
  const char *property;
  GType     (*type) (void);
  const char *names;
} choice_flags[N_CHOICES] = {
  [C_FFN] = { "--ffn", "ffn", nk_ffn_get_type, "gelu, swiglu" },
  [C_RECOMPUTE] = { "--recompute", "recompute", nk_recompute_get_type, "none, selective, full" },
  [C_GRAD_PRECISION] = { "--grad-precision", "grad-precision", nk_grad_precision_get_type, "fp32, bf16" },
  [C_CAPACITY] = { "--capacity", "capacity", nk_capacity_get_type, "datasheet, usable" },
};

/* The command line as typed, then as parsed. */
typedef struct {
  char              *numbers[N_NUMBERS];
  double             values[N_NUMBERS];
  char              *ints[N_INTS];
  int                int_values[N_INTS];
  char              *choices[N_CHOICES];
  int                choice_values[N_CHOICES];
  char              *export_name;
  char              *out_path;
  gboolean           tied, sequence_parallel, flash, best_layout, mfu_auto, fsdp;
  NkLaunchEngine     engine;
  char              *gpu;
  char              *dtype_name;
  char              *optimizer_name;
  char              *precision_name;
  char              *zero_text;
  char              *activations_name;
  gboolean           sparse, largest, checkpointing, json;
  NkPeakDtype        dtype;
  NkOptimizer        optimizer;
  NkPrecision        precision;
  NkActivationModel  activations;
  int                zero;
} PlanArgs;

static void
plan_args_clear (PlanArgs *args)
{
  for (guint i = 0; i < N_NUMBERS; i++)
    g_free (args->numbers[i]);
  for (guint i = 0; i < N_INTS; i++)
    g_free (args->ints[i]);
  for (guint i = 0; i < N_CHOICES; i++)
    g_free (args->choices[i]);
  g_free (args->export_name);
  g_free (args->out_path);
  g_free (args->gpu);
  g_free (args->dtype_name);
  g_free (args->optimizer_name);
  g_free (args->precision_name);
  g_free (args->zero_text);
  g_free (args->activations_name);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlanArgs, plan_args_clear)

static GOptionContext *
plan_context (PlanArgs *a)
{
  const GOptionEntry entries[] = {
    { "params", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_PARAMS], N_("Parameters (70B, 7e10)"), "N" },
    { "tokens", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_TOKENS], N_("Training tokens (15T)"), "N" },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &a->gpu, N_("GPU id from “napkin-cli gpus” (h100-sxm)"), "ID" },
    { "gpus", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_GPUS], N_("Number of GPUs"), "N" },
    { "mfu", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_MFU], N_("Model FLOPs utilization, in (0, 1]"), "F" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &a->dtype_name, N_("Peak to use: fp32, tf32, bf16 (default), fp16, fp8"), "D" },
    { "sparse", 0, 0, G_OPTION_ARG_NONE, &a->sparse, N_("Use the datasheet’s 2:4-sparsity peak instead of the dense one"), NULL },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &a->optimizer_name, N_("sgd, momentum, adagrad, rmsprop, adam, adamw (default)"), "NAME" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &a->precision_name, N_("fp32 (default) or mixed"), "P" },
    { "zero", 0, 0, G_OPTION_ARG_STRING, &a->zero_text, N_("ZeRO stage 0 (default), 1, 2 or 3"), "0|1|2|3" },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_BATCH], N_("Global batch in sequences (for activations)"), "B" },
    { "seq", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_SEQ], N_("Sequence length (for activations and sizing)"), "S" },
    { "layers", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_LAYERS], N_("Layers (for activations and sizing)"), "L" },
    { "d-model", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_D_MODEL], N_("Hidden size (for activations and sizing)"), "D" },
    { "heads", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_HEADS], N_("Attention heads (transformer activations)"), "A" },
    { "d-ff", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_D_FF], N_("Feed-forward width for sizing (default 4 × d-model)"), "F" },
    { "vocab", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_VOCAB], N_("Vocabulary size for sizing"), "V" },
    { "activations", 0, 0, G_OPTION_ARG_STRING, &a->activations_name, N_("Activation model: linear (default, the lecture’s B·S·D·L) or transformer"), "MODEL" },
    { "checkpointing", 0, 0, G_OPTION_ARG_NONE, &a->checkpointing, N_("Full activation checkpointing (transformer model)"), NULL },
    { "price", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_PRICE], N_("Price in USD per GPU-hour"), "USD_PER_GPU_HOUR" },
    { "deadline", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_DEADLINE], N_("Also answer: fewest GPUs to finish within DAYS"), "DAYS" },
    { "largest", 0, 0, G_OPTION_ARG_NONE, &a->largest, N_("Answer: the most parameters whose memory fits the GPUs"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a->json, N_("One JSON object per line"), NULL },
    { "kv-heads", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_KV_HEADS], N_("Key/value heads (grouped-query attention; default: the heads)"), "K" },
    { "ffn", 0, 0, G_OPTION_ARG_STRING, &a->choices[C_FFN], N_("gelu (default, GPT-2: 2 matrices) or swiglu (Llama: 3)"), "FFN" },
    { "tied-embeddings", 0, 0, G_OPTION_ARG_NONE, &a->tied, N_("Input embedding and output layer share one matrix (default: untied)"), NULL },
    { "global-batch", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_GLOBAL], N_("Sequences per optimizer step, all GPUs together (default: --batch)"), "SEQS" },
    { "micro-batch", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_MICRO], N_("Sequences per GPU per micro-step (default: global / DP)"), "SEQS" },
    { "tp", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_TP], N_("Tensor-parallel degree (default 1)"), "N" },
    { "pp", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_PP], N_("Pipeline-parallel degree (default 1)"), "N" },
    { "cp", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_CP], N_("Context-parallel degree (default 1)"), "N" },
    { "dp", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_DP], N_("Data-parallel degree (default: GPUs / (TP × PP × CP))"), "N" },
    { "virtual-stages", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_VIRTUAL], N_("Interleaved pipeline chunks per GPU (default 1)"), "V" },
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &a->sequence_parallel, N_("Megatron-LM sequence parallelism over the TP group"), NULL },
    { "recompute", 0, 0, G_OPTION_ARG_STRING, &a->choices[C_RECOMPUTE], N_("Activation recompute: none (default), selective, full"), "R" },
    { "flash-attention", 0, 0, G_OPTION_ARG_NONE, &a->flash, N_("Fused attention: no s² score matrix stored"), NULL },
    { "grad-precision", 0, 0, G_OPTION_ARG_STRING, &a->choices[C_GRAD_PRECISION], N_("Gradients in mixed precision: bf16 (default, 16 B/param, ZeRO) or fp32 (18 B/param, Megatron-LM)"), "P" },
    { "gpus-per-node", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_PER_NODE], N_("GPUs in one node (default 8)"), "N" },
    { "capacity", 0, 0, G_OPTION_ARG_STRING, &a->choices[C_CAPACITY], N_("Memory to fit in: datasheet (default) or usable (what CUDA reports, less context and reserve)"), "C" },
    { "memory-reserve", 0, 0, G_OPTION_ARG_STRING, &a->ints[I_RESERVE], N_("Percent of the reported memory kept for fragmentation (default 5)"), "PCT" },
    { "matmul-efficiency", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_EFFICIENCY], N_("Fraction of the dense peak the step's matmuls reach (default: calibrated, see README)"), "F" },
    { "nvlink-bandwidth", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_NVLINK], N_("GPU-to-GPU bandwidth inside a node, bytes/s each way (default: the GPU table’s)"), "B" },
    { "network-bandwidth", 0, 0, G_OPTION_ARG_STRING, &a->numbers[N_NETWORK], N_("Bandwidth between nodes per GPU, bytes/s (default: the GPU table’s)"), "B" },
    { "fsdp", 0, 0, G_OPTION_ARG_NONE, &a->fsdp, N_("ZeRO-3 as PyTorch FSDP (torchtitan): full recompute reuses the backward’s all-gather (default: DeepSpeed’s, which gathers again)"), NULL },
    { "best-layout", 0, 0, G_OPTION_ARG_NONE, &a->best_layout, N_("Search TP, PP, micro-batch, recompute and ZeRO for the fastest step that fits"), NULL },
    { "export", 0, 0, G_OPTION_ARG_STRING, &a->export_name, N_("Write the launch config: deepspeed, megatron or torchtitan"), "ENGINE" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &a->out_path, N_("Write the launch config to FILE instead of standard output"), "FILE" },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (_("— time, cost and memory of a training run"));

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("total_flops = 6 × params × tokens; flops_per_day = peak × mfu × gpus × 86400;\n"
      "days = total / per day. Peaks are dense unless --sparse. Memory per parameter:\n"
      "4 + 4 + optimizer state (adamw 8) in fp32; under --zero 1/2/3 the optimizer\n"
      "state, then gradients, then parameters are divided over --gpus.\n"
      "A plan whose memory does not fit is still printed (fits: false, exit 0);\n"
      "--largest exits 1 when not even one parameter fits."));
  return context;
}

#define FAIL(args, ...) nk_cli_fail ((args)->json, NK_EXIT_USAGE, __VA_ARGS__)

/* The flags a question cannot do without; returns an exit code, or -1. */
static int
check_required (const PlanArgs *a,
                int             argc,
                char          **argv)
{
  if (argc > 1)
    return FAIL (a, _("“%s” is not an option of plan (run napkin-cli plan --help)"), argv[1]);
  if (a->gpu == NULL)
    return FAIL (a, "%s", _("--gpu is required (see napkin-cli gpus)"));
  if (a->numbers[N_GPUS] == NULL)
    return FAIL (a, "%s", _("--gpus is required"));
  if (a->largest)
    return -1;
  if (a->numbers[N_PARAMS] == NULL && (a->numbers[N_LAYERS] == NULL || a->numbers[N_D_MODEL] == NULL))
    return FAIL (a, "%s", _("--params is required (or give the shape: --layers and --d-model; or ask --largest)"));
  if (a->numbers[N_TOKENS] == NULL)
    return FAIL (a, "%s", _("--tokens is required (or ask --largest)"));
  if (a->numbers[N_MFU] == NULL)
    return FAIL (a, "%s", _("--mfu is required (0.5 is a good guess for a well-tuned run)"));
  return -1;
}

/* The named choices; returns an exit code, or -1. */
static int
parse_choices (PlanArgs *a)
{
  if (a->dtype_name != NULL
      && (!nk_peak_dtype_from_string (a->dtype_name, &a->dtype) || !nk_plan_dtype_is_supported (a->dtype)))
    return FAIL (a, _("--dtype: “%s” is not one of fp32, tf32, bf16, fp16, fp8"), a->dtype_name);
  if (a->optimizer_name != NULL && !nk_optimizer_from_string (a->optimizer_name, &a->optimizer))
    return FAIL (a, _("--optimizer: “%s” is not one of sgd, momentum, adagrad, rmsprop, adam, adamw"),
                 a->optimizer_name);
  if (a->precision_name != NULL && !nk_precision_from_string (a->precision_name, &a->precision))
    return FAIL (a, _("--precision: “%s” is not one of fp32, mixed"), a->precision_name);
  if (a->activations_name != NULL
      && !nk_activation_model_from_string (a->activations_name, &a->activations))
    return FAIL (a, _("--activations: “%s” is not one of linear, transformer"), a->activations_name);
  /* The linear model keeps every activation; checkpointing would be ignored. */
  if (a->checkpointing && a->activations != NK_ACTIVATION_MODEL_TRANSFORMER)
    return FAIL (a, "%s", _("--checkpointing applies to the transformer activation estimate "
                            "(add --activations transformer); the linear model keeps every activation"));
  for (guint i = 0; i < N_CHOICES; i++)
    if (a->choices[i] != NULL
        && !nk_enum_from_nick (choice_flags[i].type (), a->choices[i], &a->choice_values[i]))
      return FAIL (a, _("%s: “%s” is not one of %s"), choice_flags[i].flag, a->choices[i],
                   choice_flags[i].names);
  if (a->export_name != NULL && !nk_launch_engine_from_string (a->export_name, &a->engine))
    return FAIL (a, _("--export: “%s” is not one of deepspeed, megatron, torchtitan"), a->export_name);
  if (a->out_path != NULL && a->export_name == NULL)
    return FAIL (a, "%s", _("--out names the launch config's file: add --export ENGINE"));
  if (a->zero_text != NULL)
    {
      if (strlen (a->zero_text) != 1 || a->zero_text[0] < '0' || a->zero_text[0] > '3')
        return FAIL (a, _("--zero: “%s” is not one of 0, 1, 2, 3"), a->zero_text);
      a->zero = a->zero_text[0] - '0';
    }
  return -1;
}

static gboolean
has_dense_peak (const NkGpu *gpu)
{
  for (int d = 0; d < NK_PEAK_N_DTYPES; d++)
    if (nk_plan_dtype_is_supported (d) && isfinite (nk_gpu_get_peak (gpu, d, FALSE)))
      return TRUE;
  return FALSE;
}

/* Without --dtype the plan uses bf16, or the GPU's fastest dense training format
 * where the table has no bf16 peak (V100: fp16), and says so; returns an exit
 * code, or -1. */
static int
choose_dtype (PlanArgs *a)
{
  static const NkPeakDtype candidates[] = { NK_PEAK_BF16, NK_PEAK_FP16, NK_PEAK_TF32, NK_PEAK_FP32 };
  const NkGpu *gpu = nk_gpus_lookup (a->gpu);
  double best = NAN;

  if (a->dtype_name != NULL || gpu == NULL || isfinite (nk_gpu_get_peak (gpu, NK_PEAK_BF16, a->sparse)))
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      double peak = nk_gpu_get_peak (gpu, candidates[i], a->sparse);

      if (isfinite (peak) && !(peak <= best))
        {
          best = peak;
          a->dtype = candidates[i];
        }
    }
  if (!isfinite (best) && a->sparse && has_dense_peak (gpu))
    return FAIL (a, _("--sparse: the GPU table lists no 2:4-sparse peak for %s in fp32, tf32, bf16 "
                      "or fp16; leave out --sparse"), gpu->name);
  if (!isfinite (best))
    return FAIL (a, _("--gpu: the GPU table lists no dense peak for %s in fp32, tf32, bf16 or fp16; "
                      "choose another GPU"), gpu->name);
  g_printerr (_("napkin-cli: %s has no bf16 peak in the GPU table; planning with %s, its fastest "
                "(give --dtype to choose)\n"), gpu->name, nk_peak_dtype_to_string (a->dtype));
  return -1;
}

/* Numbers as typed ("70B"); returns an exit code, or -1. */
/* Whole numbers of the layout; returns an exit code, or -1. */
static int
parse_ints (PlanArgs *a)
{
  for (guint i = 0; i < N_INTS; i++)
    {
      g_autoptr(GError) error = NULL;
      double value;

      if (a->ints[i] == NULL)
        continue;
      if (!nk_cli_parse_number (int_flags[i].flag, a->ints[i], &value, &error))
        return FAIL (a, "%s", error->message);
      if (!(value >= int_flags[i].minimum) || value != floor (value) || value > G_MAXINT)
        return FAIL (a, _("%s: “%s” is not a whole number from %g to %d"), int_flags[i].flag,
                     a->ints[i], int_flags[i].minimum, G_MAXINT);
      a->int_values[i] = (int) value;
    }
  return -1;
}

static int
parse_numbers (PlanArgs *a)
{
  /* "--mfu auto": the time model derives it; 0.5 stands in until it does. */
  a->mfu_auto = g_strcmp0 (a->numbers[N_MFU], "auto") == 0;
  if (a->mfu_auto)
    {
      g_free (a->numbers[N_MFU]);
      a->numbers[N_MFU] = g_strdup ("0.5");
    }
  for (guint i = 0; i < N_NUMBERS; i++)
    {
      g_autoptr(GError) error = NULL;

      if (a->numbers[i] != NULL
          && !nk_cli_parse_number (number_flags[i].flag, a->numbers[i], &a->values[i], &error))
        return FAIL (a, "%s", error->message);
    }
  /* "0 days" is the plan's "not asked"; typed, it is a deadline nothing meets. */
  if (a->numbers[N_DEADLINE] != NULL && a->values[N_DEADLINE] == 0)
    return nk_cli_fail (a->json, NK_EXIT_UNSATISFIABLE, "%s",
                        _("--deadline: no number of GPUs trains in 0 days"));
  return -1;
}

static void
apply (NkPlan         *plan,
       const PlanArgs *a)
{
  g_object_freeze_notify (G_OBJECT (plan));
  for (guint i = 0; i < N_NUMBERS; i++)
    if (a->numbers[i] != NULL)
      g_object_set (plan, number_flags[i].property, a->values[i], NULL);
  g_object_set (plan,
                "gpu", a->gpu,
                "dtype", a->dtype,
                "sparse", a->sparse,
                "optimizer", a->optimizer,
                "precision", a->precision,
                "zero-stage", a->zero,
                "activation-model", a->activations,
                "checkpointing", a->checkpointing,
                "tied-embeddings", a->tied,
                "sequence-parallel", a->sequence_parallel,
                "flash-attention", a->flash,
                "best-layout", a->best_layout,
                "mfu-auto", a->mfu_auto,
                "fsdp", a->fsdp,
                NULL);
  for (guint i = 0; i < N_INTS; i++)
    if (a->ints[i] != NULL)
      g_object_set (plan, int_flags[i].property, a->int_values[i], NULL);
  for (guint i = 0; i < N_CHOICES; i++)
    if (a->choices[i] != NULL)
      g_object_set (plan, choice_flags[i].property, a->choice_values[i], NULL);
  /* Inputs the question does not need get harmless stand-ins; the fields that
   * would depend on them are left out of the answer. */
  if (a->numbers[N_PARAMS] == NULL)
    nk_plan_set_params (plan, 1);
  /* With a shape and no --params, the shape's own count (CLI.md: sizing.params). */
  if (a->numbers[N_PARAMS] == NULL && isfinite (nk_plan_get_output (plan, "shape-params")))
    nk_plan_set_params (plan, nk_plan_get_output (plan, "shape-params"));
  if (a->numbers[N_TOKENS] == NULL)
    nk_plan_set_tokens (plan, 1);
  if (a->numbers[N_MFU] == NULL)
    nk_plan_set_mfu (plan, 0.5);
  if (a->numbers[N_PRICE] == NULL)
    nk_plan_set_price (plan, 0);
  g_object_thaw_notify (G_OBJECT (plan));
}

/* An invalid plan is bad input (exit 2) under the flag that set it, except a
 * deadline too short for any GPU count: that question has no answer (exit 1). */
static int
refuse_invalid (NkPlan         *plan,
                const PlanArgs *a)
{
  g_autoptr(GError) error = NULL;
  const char *input;

  if (nk_plan_check (plan, &error))
    return -1;
  input = nk_plan_get_error_input (plan);
  if ((g_strcmp0 (input, "deadline-days") == 0
       && g_error_matches (error, NK_PLAN_ERROR, NK_PLAN_ERROR_OVERFLOW))
      || g_error_matches (error, NK_PLAN_ERROR, NK_PLAN_ERROR_NO_LAYOUT))
    return nk_cli_fail (a->json, NK_EXIT_UNSATISFIABLE, "%s: %s", flag_for_input (input),
                        nk_plan_get_error (plan));
  return FAIL (a, "%s: %s", flag_for_input (input), nk_plan_get_error (plan));
}

static int
print_plan (NkPlan         *plan,
            const PlanArgs *a)
{
  NkPlanJsonFlags flags = NK_PLAN_JSON_NONE;

  if (!((a->numbers[N_PARAMS] || a->numbers[N_LAYERS]) && a->numbers[N_TOKENS] && a->numbers[N_MFU]))
    flags |= NK_PLAN_JSON_NO_COMPUTE;
  if (a->numbers[N_PRICE] != NULL)
    flags |= NK_PLAN_JSON_COST;
  if (a->largest)
    flags |= NK_PLAN_JSON_LARGEST;
  if (a->numbers[N_DEADLINE] != NULL)
    flags |= NK_PLAN_JSON_DEADLINE;

  if (a->json)
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

  if (a->largest && !(nk_plan_get_output (plan, "largest-params") >= 1))
    {
      g_autofree char *act = nk_units_format_bytes (nk_plan_get_output (plan, "memory-activations-per-gpu"));
      g_autofree char *hbm = nk_units_format_bytes (nk_plan_get_output (plan, "hbm-per-gpu"));

      /* The plan above shows why; the error line still ends the JSON output. */
      return nk_cli_fail (a->json, NK_EXIT_UNSATISFIABLE,
                          _("--largest: not even one parameter fits: activations take %s "
                            "of the %s per GPU (lower --batch or --seq)"), act, hbm);
    }
  return NK_EXIT_OK;
}

/* --export: the launch config to standard output or --out, the plan's JSON
 * before it with --json, the launcher line on standard error. */
static int
export_launch (NkPlan         *plan,
               const PlanArgs *a)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *command = NULL;
  NkLaunchSpec spec;

  if (!nk_plan_get_launch_spec (plan, &spec, &error))
    return FAIL (a, "--export %s: %s", a->export_name, error->message);
  /* a valid plan the engine cannot run is understood but not satisfiable */
  if ((text = nk_launch_write (&spec, a->engine, &error)) == NULL
      || (command = nk_launch_command (&spec, a->engine, &error)) == NULL)
    return nk_cli_fail (a->json, NK_EXIT_UNSATISFIABLE, "--export %s: %s", a->export_name, error->message);
  if (a->json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      nk_plan_build_json (plan, builder, NK_PLAN_JSON_NONE);
      nk_cli_print_json (builder);
    }
  if (a->out_path == NULL)
    fputs (text, stdout);
  else if (!g_file_set_contents (a->out_path, text, -1, &error))
    return nk_cli_fail (a->json, NK_EXIT_UNSATISFIABLE, "--out: %s", error->message);
  g_printerr (_("napkin-cli: launch with: %s\n"), command);
  return NK_EXIT_OK;
}

int
nk_cli_plan_main (int    argc,
                  char **argv)
{
  g_auto(PlanArgs) args = { .dtype = NK_PEAK_BF16, .optimizer = NK_OPTIMIZER_ADAMW,
                            .precision = NK_PRECISION_FP32,
                            .activations = NK_ACTIVATION_MODEL_LINEAR };
  g_autoptr(GOptionContext) context = plan_context (&args);
  g_autoptr(NkPlan) plan = NULL;
  gboolean json = nk_cli_wants_json (argc, argv);
  int exit_code;

  if (!nk_cli_parse_options (context, &argc, &argv, json, &exit_code))
    return exit_code;
  args.json = args.json || json;

  if ((exit_code = check_required (&args, argc, argv)) >= 0
      || (exit_code = parse_choices (&args)) >= 0
      || (exit_code = choose_dtype (&args)) >= 0
      || (exit_code = parse_ints (&args)) >= 0
      || (exit_code = parse_numbers (&args)) >= 0)
    return exit_code;

  plan = nk_plan_new ();
  apply (plan, &args);
  if ((exit_code = refuse_invalid (plan, &args)) >= 0)
    return exit_code;

  if (args.largest && args.numbers[N_PARAMS] == NULL)
    {
      double n = nk_plan_get_output (plan, "largest-params");

      /* Show the memory of the answer itself, so it visibly fits. */
      if (n >= 1)
        nk_plan_set_params (plan, n);
    }
  if (nk_plan_get_output (plan, "layout-tp") > (args.ints[I_PER_NODE] ? args.int_values[I_PER_NODE] : 8))
    g_printerr ("%s\n", _("napkin-cli: warning: TP is larger than a node; its all-reduces cross the network"));
  if (args.export_name != NULL)
    return export_launch (plan, &args);
  return print_plan (plan, &args);
}
