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

/* ------------------------------------------------------------ the flags */

/* How a flag's text is read. */
typedef enum {
  FLAG_SWITCH,   /* no value: on when given */
  FLAG_NUMBER,   /* a number in CLI.md's notation ("70B", "1e-3") */
  FLAG_WHOLE,    /* a whole number from .minimum to its plan input's maximum */
  FLAG_CHOICE,   /* one of .choices: a nick of .type, or what .parse accepts */
  FLAG_TEXT,     /* taken as typed (the GPU id, which the plan looks up) */
  FLAG_FILE,     /* a file name */
} FlagKind;

/* The flags in the order --help lists them. */
typedef enum {
  F_PARAMS, F_TOKENS, F_GPU, F_GPUS, F_MFU, F_DTYPE, F_SPARSE, F_OPTIMIZER, F_PRECISION,
  F_ZERO, F_BATCH, F_SEQ, F_LAYERS, F_D_MODEL, F_HEADS, F_D_FF, F_VOCAB, F_ACTIVATIONS,
  F_CHECKPOINTING, F_PRICE, F_DEADLINE, F_LARGEST, F_JSON, F_KV_HEADS, F_FFN, F_TIED,
  F_GLOBAL_BATCH, F_MICRO_BATCH, F_TP, F_PP, F_CP, F_DP, F_VIRTUAL, F_SEQUENCE_PARALLEL,
  F_RECOMPUTE, F_FLASH, F_GRAD_PRECISION, F_PER_NODE, F_NVLINK_DOMAIN, F_DROPOUT, F_HEAD_DIM,
  F_EXPERTS, F_EXPERTS_PER_TOKEN, F_SHARED_EXPERTS, F_EXPERT_D_FF, F_DENSE_LAYERS, F_EP, F_ETP,
  F_EXPERT_IMBALANCE, F_ATTENTION, F_Q_LORA_RANK, F_KV_LORA_RANK, F_QK_NOPE_HEAD_DIM,
  F_QK_ROPE_HEAD_DIM, F_V_HEAD_DIM, F_FIRST_STAGE_LAYERS, F_LAST_STAGE_LAYERS, F_CAPACITY, F_RESERVE, F_EFFICIENCY,
  F_NVLINK, F_NETWORK, F_FSDP, F_TP_COMM_OVERLAP, F_EP_COMM_OVERLAP, F_FP8_PARAM_GATHER, F_CPU_OFFLOAD_LAYERS, F_DEEPEP, F_BEST_LAYOUT, F_EXPORT, F_OUT,
  N_FLAGS
} PlanFlagId;

typedef struct {
  const char  *flag;                                       /* as typed: "--params" */
  FlagKind     kind;
  const char  *property;                                   /* the NkPlan input it sets, or NULL */
  const char  *arg;                                        /* the value's name in --help */
  const char  *help;
  double       minimum;                                    /* FLAG_WHOLE */
  GType      (*type) (void);                               /* FLAG_CHOICE by GEnum nick ... */
  gboolean   (*parse) (const char *text, int *out_value);  /* ... or by its own reader */
  const char  *choices;                                    /* FLAG_CHOICE: what an error lists */
  const char  *fallback;                                   /* FLAG_CHOICE: the value when not given */
  gboolean     zero_ok;                                    /* FLAG_NUMBER: a typed 0 means 0 (--price) */
} PlanFlag;

static gboolean
parse_dtype (const char *text,
             int        *out_value)
{
  NkPeakDtype dtype;

  if (!nk_peak_dtype_from_string (text, &dtype) || !nk_plan_dtype_is_supported (dtype))
    return FALSE;
  *out_value = dtype;
  return TRUE;
}

/* --precision's low-precision recipes read as RECIPE_CHOICE + the NkPlanRecipe:
 * mixed precision with that recipe (NkPlan:recipe). */
#define RECIPE_CHOICE 100

static gboolean
parse_precision (const char *text,
                 int        *out_value)
{
  NkPrecision precision;
  int recipe;

  if (nk_enum_from_nick (NK_TYPE_PLAN_RECIPE, text, &recipe) && recipe != NK_PLAN_RECIPE_NONE)
    {
      *out_value = RECIPE_CHOICE + recipe;
      return TRUE;
    }
  if (!nk_precision_from_string (text, &precision) || nk_precision_is_block_scaled (precision))
    return FALSE;
  *out_value = precision;
  return TRUE;
}

static gboolean
parse_zero (const char *text,
            int        *out_value)
{
  if (strlen (text) != 1 || text[0] < '0' || text[0] > '3')
    return FALSE;
  *out_value = text[0] - '0';
  return TRUE;
}

/* --dropout P: only whether P is 0 changes memory (a mask is a byte whatever P). */
static gboolean
parse_dropout (const char *text,
               int        *out_value)
{
  char *end = NULL;
  double p = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0' || !(p >= 0 && p < 1))
    return FALSE;
  *out_value = p > 0;
  return TRUE;
}

static gboolean
parse_engine (const char *text,
              int        *out_value)
{
  NkLaunchEngine engine;

  if (!nk_launch_engine_from_string (text, &engine))
    return FALSE;
  *out_value = engine;
  return TRUE;
}

/* Each flag once: its name, the plan input it sets, how its value is read and
 * checked, and its help. The option parser, the checks, the plan's inputs and the
 * flag an invalid input is reported under all come from here. */
static const PlanFlag plan_flags[N_FLAGS] = {
  [F_PARAMS] = { "--params", FLAG_NUMBER, "params", "N", N_("Parameters (70B, 7e10)") },
  [F_TOKENS] = { "--tokens", FLAG_NUMBER, "tokens", "N", N_("Training tokens (15T)") },
  [F_GPU] = { "--gpu", FLAG_TEXT, "gpu", "ID", N_("GPU id from “napkin-cli gpus” (h100-sxm)") },
  [F_GPUS] = { "--gpus", FLAG_NUMBER, "gpus", "N", N_("Number of GPUs") },
  [F_MFU] = { "--mfu", FLAG_NUMBER, "mfu", "F", N_("Model FLOPs utilization, in (0, 1], or auto: the step time’s (needs the shape, --seq and --global-batch)") },
  [F_DTYPE] = { "--dtype", FLAG_CHOICE, "dtype", "D", N_("Peak to use: fp32, tf32, bf16 (default), fp16, fp8"),
                .parse = parse_dtype, .choices = "fp32, tf32, bf16, fp16, fp8", .fallback = "bf16" },
  [F_SPARSE] = { "--sparse", FLAG_SWITCH, "sparse", NULL,
                 N_("Use the datasheet’s 2:4-sparsity peak instead of the dense one") },
  [F_OPTIMIZER] = { "--optimizer", FLAG_CHOICE, "optimizer", "NAME",
                    N_("sgd, momentum, adagrad, rmsprop, adam, adamw (default)"),
                    .type = nk_optimizer_get_type,
                    .choices = "sgd, momentum, adagrad, rmsprop, adam, adamw", .fallback = "adamw" },
  [F_PRECISION] = { "--precision", FLAG_CHOICE, "precision", "P",
                    N_("fp32 (default), mixed (bf16), or mixed with a low-precision recipe for the linear layers: fp8-tensorwise, fp8-blockwise, mxfp8, nvfp4"),
                    .parse = parse_precision, .choices = "fp32, mixed, fp8-tensorwise, fp8-blockwise, mxfp8, nvfp4",
                    .fallback = "fp32" },
  [F_ZERO] = { "--zero", FLAG_CHOICE, "zero-stage", "0|1|2|3", N_("ZeRO stage 0 (default), 1, 2 or 3"),
               .parse = parse_zero, .choices = "0, 1, 2, 3", .fallback = "0" },
  [F_BATCH] = { "--batch", FLAG_NUMBER, "batch", "B", N_("Global batch in sequences (for activations)") },
  [F_SEQ] = { "--seq", FLAG_NUMBER, "seq", "S", N_("Sequence length (for activations and sizing)") },
  [F_LAYERS] = { "--layers", FLAG_NUMBER, "layers", "L", N_("Layers (for activations and sizing)") },
  [F_D_MODEL] = { "--d-model", FLAG_NUMBER, "d-model", "D", N_("Hidden size (for activations and sizing)") },
  [F_HEADS] = { "--heads", FLAG_NUMBER, "heads", "A", N_("Attention heads (transformer activations)") },
  [F_D_FF] = { "--d-ff", FLAG_NUMBER, "d-ff", "F", N_("Feed-forward width for sizing (default 4 × d-model)") },
  [F_VOCAB] = { "--vocab", FLAG_NUMBER, "vocab", "V", N_("Vocabulary size for sizing") },
  [F_ACTIVATIONS] = { "--activations", FLAG_CHOICE, "activation-model", "MODEL",
                      N_("Activation model: linear (default, the lecture’s B·S·D·L) or transformer"),
                      .type = nk_activation_model_get_type, .choices = "linear, transformer",
                      .fallback = "linear" },
  [F_CHECKPOINTING] = { "--checkpointing", FLAG_SWITCH, "checkpointing", NULL,
                        N_("Full activation checkpointing (transformer model)") },
  [F_PRICE] = { "--price", FLAG_NUMBER, "price", "USD_PER_GPU_HOUR", N_("Price in USD per GPU-hour"),
                .zero_ok = TRUE },
  [F_DEADLINE] = { "--deadline", FLAG_NUMBER, "deadline-days", "DAYS",
                   N_("Also answer: fewest GPUs to finish within DAYS"), .zero_ok = TRUE },
  [F_LARGEST] = { "--largest", FLAG_SWITCH, NULL, NULL,
                  N_("Answer: the most parameters whose memory fits the GPUs") },
  [F_JSON] = { "--json", FLAG_SWITCH, NULL, NULL, N_("One JSON object per line") },
  [F_KV_HEADS] = { "--kv-heads", FLAG_WHOLE, "kv-heads", "K",
                   N_("Key/value heads (grouped-query attention; default: the heads)"), .minimum = 1 },
  [F_FFN] = { "--ffn", FLAG_CHOICE, "ffn", "FFN", N_("gelu (default, GPT-2: 2 matrices), swiglu (Llama: 3) or relu2 (Nemotron: squared ReLU, 2, no gate)"),
              .type = nk_ffn_get_type, .choices = "gelu, swiglu, relu2" },
  [F_TIED] = { "--tied-embeddings", FLAG_SWITCH, "tied-embeddings", NULL,
               N_("Input embedding and output layer share one matrix (default: untied)") },
  [F_GLOBAL_BATCH] = { "--global-batch", FLAG_WHOLE, "global-batch", "SEQS",
                       N_("Sequences per optimizer step, all GPUs together (default: --batch)"), .minimum = 1 },
  [F_MICRO_BATCH] = { "--micro-batch", FLAG_WHOLE, "micro-batch", "SEQS",
                      N_("Sequences per GPU per micro-step (default: global / DP)"), .minimum = 1 },
  [F_TP] = { "--tp", FLAG_WHOLE, "tp", "N", N_("Tensor-parallel degree (default 1)"), .minimum = 1 },
  [F_PP] = { "--pp", FLAG_WHOLE, "pp", "N", N_("Pipeline-parallel degree (default 1)"), .minimum = 1 },
  [F_CP] = { "--cp", FLAG_WHOLE, "cp", "N", N_("Context-parallel degree (default 1)"), .minimum = 1 },
  [F_DP] = { "--dp", FLAG_WHOLE, "dp", "N", N_("Data-parallel degree (default: GPUs / (TP × PP × CP))"),
             .minimum = 1 },
  [F_VIRTUAL] = { "--virtual-stages", FLAG_WHOLE, "virtual-stages", "V",
                  N_("Interleaved pipeline chunks per GPU (default 1)"), .minimum = 1 },
  [F_SEQUENCE_PARALLEL] = { "--sequence-parallel", FLAG_SWITCH, "sequence-parallel", NULL,
                            N_("Megatron-LM sequence parallelism over the TP group") },
  [F_RECOMPUTE] = { "--recompute", FLAG_CHOICE, "recompute", "R",
                    N_("Activation recompute: none (default), selective, full"),
                    .type = nk_recompute_get_type, .choices = "none, selective, full" },
  [F_FLASH] = { "--flash-attention", FLAG_SWITCH, "flash-attention", NULL,
                N_("Fused attention: no s² score matrix stored") },
  [F_GRAD_PRECISION] = { "--grad-precision", FLAG_CHOICE, "grad-precision", "P",
                         N_("Gradients in mixed precision: bf16 (default, 16 B/param, ZeRO) or fp32 (18 B/param, Megatron-LM)"),
                         .type = nk_grad_precision_get_type, .choices = "fp32, bf16" },
  [F_PER_NODE] = { "--gpus-per-node", FLAG_WHOLE, "gpus-per-node", "N", N_("GPUs in one node (default 8)"),
                   .minimum = 1 },
  [F_NVLINK_DOMAIN] = { "--nvlink-domain", FLAG_WHOLE, "nvlink-domain", "N",
                        N_("GPUs on one NVLink domain, where TP and DP collectives run at NVLink’s rate (default: the GPU table’s, 72 on a GB200 NVL72)"),
                        .minimum = 1 },
  [F_DROPOUT] = { "--dropout", FLAG_CHOICE, "dropout", "P",
                  N_("Dropout probability; 0 stores no dropout masks (most 2024–26 recipes; default: masks counted)"),
                  .parse = parse_dropout, .choices = "0 (no dropout) or a probability below 1" },
  [F_HEAD_DIM] = { "--head-dim", FLAG_WHOLE, "head-dim", "D",
                   N_("Attention head width where it is not d_model / heads (Qwen3: 128)"), .minimum = 1 },
  [F_EXPERTS] = { "--experts", FLAG_WHOLE, "experts", "E",
                  N_("Routed experts per MoE layer (mixture of experts; default: a dense model)"), .minimum = 1 },
  [F_EXPERTS_PER_TOKEN] = { "--experts-per-token", FLAG_WHOLE, "experts-per-token", "K",
                            N_("Routed experts each token passes through (top-K)"), .minimum = 1 },
  [F_SHARED_EXPERTS] = { "--shared-experts", FLAG_WHOLE, "shared-experts", "S",
                         N_("Experts every token passes through beside the routed ones (default 0)"), .minimum = 0 },
  [F_EXPERT_D_FF] = { "--expert-d-ff", FLAG_WHOLE, "expert-d-ff", "F",
                      N_("FFN width of one expert (default: --d-ff)"), .minimum = 1 },
  [F_DENSE_LAYERS] = { "--dense-layers", FLAG_WHOLE, "dense-layers", "N",
                       N_("Leading layers with a dense FFN of --d-ff (default 0)"), .minimum = 0 },
  [F_EP] = { "--ep", FLAG_WHOLE, "ep", "N",
             N_("Expert-parallel degree: divides the experts and DP × CP (default 1)"), .minimum = 1 },
  [F_ETP] = { "--etp", FLAG_WHOLE, "etp", "N", N_("The experts’ tensor-parallel degree (default 1)"), .minimum = 1 },
  [F_EXPERT_IMBALANCE] = { "--expert-imbalance", FLAG_NUMBER, "expert-imbalance", "F",
                           N_("Busiest expert’s tokens over the mean (default 1.0: balanced routing, as NVIDIA’s MoE benchmarks force it)") },
  [F_ATTENTION] = { "--attention", FLAG_CHOICE, "attention", "A",
                    N_("mha (default: multi-head, grouped-query with --kv-heads) or mla (DeepSeek’s multi-head latent attention)"),
                    .type = nk_attention_get_type, .choices = "mha, mla" },
  [F_Q_LORA_RANK] = { "--q-lora-rank", FLAG_WHOLE, "q-lora-rank", "R",
                      N_("Latent attention: Q’s compression rank (DeepSeek-V3: 1536; default: Q projected directly)"),
                      .minimum = 1 },
  [F_KV_LORA_RANK] = { "--kv-lora-rank", FLAG_WHOLE, "kv-lora-rank", "R",
                       N_("Latent attention: the joint K/V latent’s rank (DeepSeek-V3: 512)"), .minimum = 1 },
  [F_QK_NOPE_HEAD_DIM] = { "--qk-nope-head-dim", FLAG_WHOLE, "qk-nope-head-dim", "D",
                           N_("Latent attention: Q and K head width without rotary position (DeepSeek-V3: 128)"),
                           .minimum = 1 },
  [F_QK_ROPE_HEAD_DIM] = { "--qk-rope-head-dim", FLAG_WHOLE, "qk-rope-head-dim", "D",
                           N_("Latent attention: Q and K rotary head width (DeepSeek-V3: 64)"), .minimum = 1 },
  [F_V_HEAD_DIM] = { "--v-head-dim", FLAG_WHOLE, "v-head-dim", "D",
                     N_("Latent attention: V head width (DeepSeek-V3: 128)"), .minimum = 1 },
  [F_FIRST_STAGE_LAYERS] = { "--first-stage-layers", FLAG_WHOLE, "first-stage-layers", "N",
                             N_("Layers on the first pipeline stage; the stages without a count share the rest evenly (default: an even share)"),
                             .minimum = 1 },
  [F_LAST_STAGE_LAYERS] = { "--last-stage-layers", FLAG_WHOLE, "last-stage-layers", "N",
                            N_("Layers on the last pipeline stage (default: an even share)"), .minimum = 1 },
  [F_CAPACITY] = { "--capacity", FLAG_CHOICE, "capacity", "C",
                   N_("Memory to fit in: datasheet (default) or usable (what CUDA reports, less context and reserve)"),
                   .type = nk_capacity_get_type, .choices = "datasheet, usable" },
  [F_RESERVE] = { "--memory-reserve", FLAG_WHOLE, "memory-reserve", "PCT",
                  N_("Percent of the reported memory kept for fragmentation (default 5)"), .minimum = 0 },
  [F_EFFICIENCY] = { "--matmul-efficiency", FLAG_NUMBER, "matmul-efficiency", "F",
                     N_("Fraction of the dense peak the step's matmuls reach (default: calibrated, see README)") },
  [F_NVLINK] = { "--nvlink-bandwidth", FLAG_NUMBER, "nvlink-bandwidth", "B",
                 N_("GPU-to-GPU bandwidth inside a node, bytes/s each way (default: the GPU table’s)") },
  [F_NETWORK] = { "--network-bandwidth", FLAG_NUMBER, "network-bandwidth", "B",
                  N_("Bandwidth between nodes per GPU, bytes/s (default: the GPU table’s)") },
  [F_FSDP] = { "--fsdp", FLAG_SWITCH, "fsdp", NULL,
               N_("ZeRO-3 as PyTorch FSDP (torchtitan): full recompute reuses the backward’s all-gather (default: DeepSpeed’s, which gathers again)") },
  [F_TP_COMM_OVERLAP] = { "--tp-comm-overlap", FLAG_SWITCH, "tp-comm-overlap", NULL,
                          N_("Hide the tensor-parallel collectives behind the GEMMs they feed, as Transformer Engine’s userbuffers and torchtitan’s async TP do (default: exposed)") },
  [F_EP_COMM_OVERLAP] = { "--ep-comm-overlap", FLAG_SWITCH, "ep-comm-overlap", NULL,
                          N_("Hide the expert all-to-alls behind another micro-batch’s compute, as DeepSeek-V3’s DualPipe and Megatron-LM’s --overlap-moe-expert-parallel-comm do (default: exposed)") },
  [F_FP8_PARAM_GATHER] = { "--fp8-param-gather", FLAG_SWITCH, "fp8-param-gather", NULL,
                           N_("Keep the linear weights only in the recipe’s low-precision format, no 16-bit copy (Megatron-LM’s --fp8-param-gather; default: both)") },
  [F_CPU_OFFLOAD_LAYERS] = { "--cpu-offload-layers", FLAG_WHOLE, "cpu-offload-layers", "N",
                             N_("Layers whose activations wait in host memory for the backward, at most the rest on the GPU (Megatron-LM’s --cpu-offloading-num-layers; needs PP 1 and no recompute; default 0)"),
                             .minimum = 0 },
  [F_DEEPEP] = { "--deepep", FLAG_SWITCH, "deepep", NULL,
               N_("Expert all-to-alls on DeepEP’s kernels (Megatron-LM’s flex dispatcher, DeepSeek-V3): across NVLink domains a token crosses the network once per domain its experts are in (default: NCCL’s all-to-all, each copy)") },
  [F_BEST_LAYOUT] = { "--best-layout", FLAG_SWITCH, "best-layout", NULL,
                      N_("Search TP, PP, micro-batch, recompute and ZeRO for the fastest step that fits") },
  [F_EXPORT] = { "--export", FLAG_CHOICE, NULL, "ENGINE", N_("Write the launch config: deepspeed, megatron or torchtitan"),
                 .parse = parse_engine, .choices = "deepspeed, megatron, torchtitan" },
  [F_OUT] = { "--out", FLAG_FILE, NULL, "FILE", N_("Write the launch config to FILE instead of standard output") },
};

/* The flag that sets a plan input, so an invalid input is reported under the
 * flag the person typed. */
static const char *
flag_for_input (const char *input)
{
  /* "--mfu auto" sets mfu-auto, which no flag of its own names */
  if (g_strcmp0 (input, "mfu-auto") == 0)
    return plan_flags[F_MFU].flag;
  /* a recipe is one of --precision's values */
  if (g_strcmp0 (input, "recipe") == 0)
    return plan_flags[F_PRECISION].flag;
  for (guint i = 0; i < N_FLAGS; i++)
    if (g_strcmp0 (plan_flags[i].property, input) == 0)
      return plan_flags[i].flag;
  return input;
}

/* The command line as typed, then as read. */
typedef struct {
  char     *text[N_FLAGS];     /* a value as typed; NULL when the flag was not given */
  gboolean  on[N_FLAGS];       /* FLAG_SWITCH */
  double    number[N_FLAGS];   /* FLAG_NUMBER and FLAG_WHOLE, as read */
  int       choice[N_FLAGS];   /* FLAG_CHOICE, as read (or its fallback) */
  gboolean  mfu_auto;          /* --mfu auto */
} PlanArgs;

static void
plan_args_clear (PlanArgs *args)
{
  for (guint i = 0; i < N_FLAGS; i++)
    g_free (args->text[i]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlanArgs, plan_args_clear)

static GOptionContext *
plan_context (PlanArgs *a)
{
  GOptionEntry entries[N_FLAGS + 1] = { { NULL } };
  GOptionContext *context = g_option_context_new (_("— time, cost and memory of a training run"));

  for (guint i = 0; i < N_FLAGS; i++)
    {
      const PlanFlag *f = &plan_flags[i];

      entries[i].long_name = f->flag + strlen ("--");
      entries[i].arg = f->kind == FLAG_SWITCH ? G_OPTION_ARG_NONE
                       : f->kind == FLAG_FILE ? G_OPTION_ARG_FILENAME : G_OPTION_ARG_STRING;
      entries[i].arg_data = f->kind == FLAG_SWITCH ? (gpointer) &a->on[i] : (gpointer) &a->text[i];
      entries[i].description = f->help;
      entries[i].arg_description = f->arg;
    }
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("total_flops = 6 × params × tokens; flops_per_day = peak × mfu × gpus × 86400;\n"
      "days = total / per day. Peaks are dense unless --sparse. Memory per parameter:\n"
      "4 + 4 + optimizer state (adamw 8) in fp32; under --zero 1/2/3 the optimizer\n"
      "state, then gradients, then parameters are divided over --gpus (over DP\n"
      "under a layout, whose most loaded GPU is then the memory per GPU).\n"
      "A plan whose memory does not fit is still printed (fits: false, exit 0);\n"
      "--largest exits 1 when not even one parameter fits."));
  return context;
}

#define FAIL(args, ...) nk_cli_fail ((args)->on[F_JSON], NK_EXIT_USAGE, __VA_ARGS__)

/* The flags a question cannot do without; returns an exit code, or -1. */
static int
check_required (const PlanArgs *a,
                int             argc,
                char          **argv)
{
  if (argc > 1)
    return FAIL (a, _("“%s” is not an option of plan (run napkin-cli plan --help)"), argv[1]);
  if (a->text[F_GPU] == NULL)
    return FAIL (a, "%s", _("--gpu is required (see napkin-cli gpus)"));
  if (a->text[F_GPUS] == NULL)
    return FAIL (a, "%s", _("--gpus is required"));
  if (a->on[F_LARGEST])
    return -1;
  if (a->text[F_PARAMS] == NULL && (a->text[F_LAYERS] == NULL || a->text[F_D_MODEL] == NULL))
    return FAIL (a, "%s", _("--params is required (or give the shape: --layers and --d-model; or ask --largest)"));
  if (a->text[F_TOKENS] == NULL)
    return FAIL (a, "%s", _("--tokens is required (or ask --largest)"));
  if (a->text[F_MFU] == NULL)
    return FAIL (a, "%s", _("--mfu is required (0.5 is a good guess for a well-tuned run)"));
  return -1;
}

/* The experts' flags describe a mixture of experts: without --experts they
 * would be silently ignored, and --experts needs its top-K; returns an exit
 * code, or -1. */
static int
check_experts (const PlanArgs *a)
{
  static const PlanFlagId needs_experts[] = {
    F_EXPERTS_PER_TOKEN, F_SHARED_EXPERTS, F_EXPERT_D_FF, F_DENSE_LAYERS, F_EP, F_ETP, F_EXPERT_IMBALANCE,
  };

  for (guint i = 0; i < G_N_ELEMENTS (needs_experts); i++)
    if (a->text[needs_experts[i]] != NULL && a->text[F_EXPERTS] == NULL)
      return FAIL (a, _("%s describes a mixture of experts: add --experts E (and --experts-per-token K)"),
                   plan_flags[needs_experts[i]].flag);
  if (a->text[F_EXPERTS] != NULL && a->text[F_EXPERTS_PER_TOKEN] == NULL)
    return FAIL (a, "%s", _("--experts needs --experts-per-token K, the routed experts each token passes through"));
  return -1;
}

/* Latent attention's flags describe MLA: without --attention mla they would be
 * silently ignored; MLA's K/V rank and head widths are the plan's to require
 * (NK_PLAN_RULE_MLA_DIMS). Returns an exit code, or -1. */
static int
check_mla (const PlanArgs *a)
{
  static const PlanFlagId needs_mla[] = {
    F_Q_LORA_RANK, F_KV_LORA_RANK, F_QK_NOPE_HEAD_DIM, F_QK_ROPE_HEAD_DIM, F_V_HEAD_DIM,
  };

  for (guint i = 0; i < G_N_ELEMENTS (needs_mla); i++)
    if (a->text[needs_mla[i]] != NULL && a->choice[F_ATTENTION] != NK_ATTENTION_MLA)
      return FAIL (a, _("%s describes latent attention: add --attention mla"), plan_flags[needs_mla[i]].flag);
  if (a->choice[F_ATTENTION] == NK_ATTENTION_MLA && (a->text[F_KV_HEADS] != NULL || a->text[F_HEAD_DIM] != NULL))
    return FAIL (a, _("%s: latent attention has no KV heads or single head width; give its ranks and head widths instead"),
                 a->text[F_KV_HEADS] != NULL ? "--kv-heads" : "--head-dim");
  return -1;
}

/* The named choices and the rules between them; returns an exit code, or -1. */
static int
parse_choices (PlanArgs *a)
{
  for (guint i = 0; i < N_FLAGS; i++)
    {
      const PlanFlag *f = &plan_flags[i];
      const char *text = a->text[i] != NULL ? a->text[i] : f->fallback;

      if (f->kind != FLAG_CHOICE || text == NULL)
        continue;
      if (f->type != NULL ? !nk_enum_from_nick (f->type (), text, &a->choice[i])
                          : !f->parse (text, &a->choice[i]))
        return FAIL (a, _("%s: “%s” is not one of %s"), f->flag, text, f->choices);
    }
  /* The linear model keeps every activation; checkpointing would be ignored. */
  if (a->on[F_CHECKPOINTING] && a->choice[F_ACTIVATIONS] != NK_ACTIVATION_MODEL_TRANSFORMER)
    return FAIL (a, "%s", _("--checkpointing applies to the transformer activation estimate "
                            "(add --activations transformer); the linear model keeps every activation"));
  /* --checkpointing is full recompute; another --recompute contradicts it. */
  if (a->on[F_CHECKPOINTING] && a->text[F_RECOMPUTE] != NULL && a->choice[F_RECOMPUTE] != NK_RECOMPUTE_FULL)
    return FAIL (a, _("--checkpointing: full recompute, which contradicts --recompute %s; give one of them"),
                 a->text[F_RECOMPUTE]);
  if (a->text[F_OUT] != NULL && a->text[F_EXPORT] == NULL)
    return FAIL (a, "%s", _("--out names the launch config's file: add --export ENGINE"));
  return -1;
}

/* The overlaps and the dispatcher act on communication a layout must have:
 * expert all-to-alls need experts, TP collectives a TP above 1 (or the search, which may choose one);
 * switched on without them they would be silently ignored. Returns an exit
 * code, or -1. */
static int
check_overlaps (const PlanArgs *a)
{
  static const PlanFlagId moe_only[] = { F_EP_COMM_OVERLAP, F_DEEPEP };

  for (guint i = 0; i < G_N_ELEMENTS (moe_only); i++)
    if (a->on[moe_only[i]] && a->text[F_EXPERTS] == NULL)
      return FAIL (a, _("%s describes a mixture of experts: add --experts E (and --experts-per-token K)"),
                   plan_flags[moe_only[i]].flag);
  if (a->on[F_TP_COMM_OVERLAP] && !a->on[F_BEST_LAYOUT] && !(a->number[F_TP] > 1))
    return FAIL (a, "%s", _("--tp-comm-overlap hides the tensor-parallel collectives, and TP is 1: "
                            "add --tp N above 1 (or --best-layout)"));
  /* the same family: a switch about a low-precision copy needs a recipe to copy in */
  if (a->on[F_FP8_PARAM_GATHER] && a->choice[F_PRECISION] < RECIPE_CHOICE)
    return FAIL (a, "%s", _("--fp8-param-gather keeps the linear weights in a recipe’s low-precision format: "
                            "add --precision fp8-tensorwise, fp8-blockwise, mxfp8 or nvfp4"));
  return -1;
}

/* The rules between flags, once each value has parsed (so a bad value is
 * named as such first); returns an exit code, or -1. */
static int
check_flag_rules (const PlanArgs *a)
{
  int exit_code;

  if ((exit_code = check_experts (a)) >= 0 || (exit_code = check_mla (a)) >= 0)
    return exit_code;
  return check_overlaps (a);
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
  const NkGpu *gpu = nk_gpus_lookup (a->text[F_GPU]);
  gboolean sparse = a->on[F_SPARSE];
  double best = NAN;

  if (a->text[F_DTYPE] != NULL || gpu == NULL || isfinite (nk_gpu_get_peak (gpu, NK_PEAK_BF16, sparse)))
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      double peak = nk_gpu_get_peak (gpu, candidates[i], sparse);

      if (isfinite (peak) && !(peak <= best))
        {
          best = peak;
          a->choice[F_DTYPE] = candidates[i];
        }
    }
  if (!isfinite (best) && sparse && has_dense_peak (gpu))
    return FAIL (a, _("--sparse: the GPU table lists no 2:4-sparse peak for %s in fp32, tf32, bf16 "
                      "or fp16; leave out --sparse"), gpu->name);
  if (!isfinite (best))
    return FAIL (a, _("--gpu: the GPU table lists no dense peak for %s in fp32, tf32, bf16 or fp16; "
                      "choose another GPU"), gpu->name);
  g_printerr (_("napkin-cli: %s has no bf16 peak in the GPU table; planning with %s, its fastest "
                "(give --dtype to choose)\n"), gpu->name, nk_peak_dtype_to_string (a->choice[F_DTYPE]));
  return -1;
}

/* Whole numbers of the layout, each up to the largest its plan input takes (a
 * larger one would be refused by GObject with a warning and dropped); returns an
 * exit code, or -1. */
static int
parse_wholes (PlanArgs *a)
{
  g_autoptr(GTypeClass) plan_class = g_type_class_ref (NK_TYPE_PLAN);

  for (guint i = 0; i < N_FLAGS; i++)
    {
      const PlanFlag *f = &plan_flags[i];
      g_autoptr(GError) error = NULL;
      GParamSpec *pspec;
      double value;
      int maximum;

      if (f->kind != FLAG_WHOLE || a->text[i] == NULL)
        continue;
      pspec = g_object_class_find_property (G_OBJECT_CLASS (plan_class), f->property);
      g_assert (G_IS_PARAM_SPEC_INT (pspec));
      maximum = G_PARAM_SPEC_INT (pspec)->maximum;
      if (!nk_cli_parse_number (f->flag, a->text[i], &value, &error))
        return FAIL (a, "%s", error->message);
      if (!(value >= f->minimum) || value != floor (value) || value > maximum)
        return FAIL (a, _("%s: “%s” is not a whole number from %g to %d"), f->flag,
                     a->text[i], f->minimum, maximum);
      a->number[i] = value;
    }
  return -1;
}

/* Numbers as typed ("70B"); returns an exit code, or -1. */
static int
parse_numbers (PlanArgs *a)
{
  /* "--mfu auto": the time model derives it; 0.5 stands in until it does, and a
   * plan without the step time's inputs is refused by the plan (mfu-auto). */
  a->mfu_auto = g_strcmp0 (a->text[F_MFU], "auto") == 0;
  if (a->mfu_auto)
    {
      g_free (a->text[F_MFU]);
      a->text[F_MFU] = g_strdup ("0.5");
    }
  for (guint i = 0; i < N_FLAGS; i++)
    {
      g_autoptr(GError) error = NULL;

      if (plan_flags[i].kind != FLAG_NUMBER || a->text[i] == NULL)
        continue;
      if (!nk_cli_parse_number (plan_flags[i].flag, a->text[i], &a->number[i], &error))
        return FAIL (a, "%s", error->message);
      /* The plan reads 0 as "not given" (a shape size, a bandwidth, the matmul
       * efficiency): typed, a 0 or a negative size would be dropped or refused
       * under another name, so every typed number is positive but a price. */
      if (!plan_flags[i].zero_ok && !(a->number[i] > 0))
        return FAIL (a, _("%s: “%s” is not a positive number (leave the flag out for its default)"),
                     plan_flags[i].flag, a->text[i]);
    }
  /* "0 days" is the plan's "not asked"; typed, it is a deadline nothing meets. */
  if (a->text[F_DEADLINE] != NULL && a->number[F_DEADLINE] == 0)
    return nk_cli_fail (a->on[F_JSON], NK_EXIT_UNSATISFIABLE, "%s",
                        _("--deadline: no number of GPUs trains in 0 days"));
  return -1;
}

/* Every flag that names a plan input sets it: a switch on or off, a choice as
 * given or its fallback, anything else when given. */
static void
apply (NkPlan         *plan,
       const PlanArgs *a)
{
  g_object_freeze_notify (G_OBJECT (plan));
  for (guint i = 0; i < N_FLAGS; i++)
    {
      const PlanFlag *f = &plan_flags[i];

      if (f->property == NULL)
        continue;
      if (i == F_PRECISION && a->choice[i] >= RECIPE_CHOICE)
        g_object_set (plan, "precision", NK_PRECISION_BF16_MIXED, "recipe", a->choice[i] - RECIPE_CHOICE, NULL);
      else if (f->kind == FLAG_SWITCH)
        g_object_set (plan, f->property, a->on[i], NULL);
      else if (f->kind == FLAG_CHOICE && (a->text[i] != NULL || f->fallback != NULL))
        g_object_set (plan, f->property, a->choice[i], NULL);
      else if (f->kind == FLAG_NUMBER && a->text[i] != NULL)
        g_object_set (plan, f->property, a->number[i], NULL);
      else if (f->kind == FLAG_WHOLE && a->text[i] != NULL)
        g_object_set (plan, f->property, (int) a->number[i], NULL);
      else if (f->kind == FLAG_TEXT && a->text[i] != NULL)
        g_object_set (plan, f->property, a->text[i], NULL);
    }
  g_object_set (plan, "mfu-auto", a->mfu_auto, NULL);
  /* Inputs the question does not need get harmless stand-ins; the fields that
   * would depend on them are left out of the answer. */
  if (a->text[F_PARAMS] == NULL)
    nk_plan_set_params (plan, 1);
  /* With a shape and no --params, the shape's own count (CLI.md: sizing.params). */
  if (a->text[F_PARAMS] == NULL && isfinite (nk_plan_get_output (plan, "shape-params")))
    nk_plan_set_params (plan, nk_plan_get_output (plan, "shape-params"));
  if (a->text[F_TOKENS] == NULL)
    nk_plan_set_tokens (plan, 1);
  if (a->text[F_MFU] == NULL)
    nk_plan_set_mfu (plan, 0.5);
  if (a->text[F_PRICE] == NULL)
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
    return nk_cli_fail (a->on[F_JSON], NK_EXIT_UNSATISFIABLE, "%s: %s", flag_for_input (input),
                        nk_plan_get_error (plan));
  return FAIL (a, "%s: %s", flag_for_input (input), nk_plan_get_error (plan));
}

static int
print_plan (NkPlan         *plan,
            const PlanArgs *a)
{
  NkPlanJsonFlags flags = NK_PLAN_JSON_NONE;

  if (!((a->text[F_PARAMS] || a->text[F_LAYERS]) && a->text[F_TOKENS] && a->text[F_MFU]))
    flags |= NK_PLAN_JSON_NO_COMPUTE;
  if (a->text[F_PRICE] != NULL)
    flags |= NK_PLAN_JSON_COST;
  if (a->on[F_LARGEST])
    flags |= NK_PLAN_JSON_LARGEST;
  if (a->text[F_DEADLINE] != NULL)
    flags |= NK_PLAN_JSON_DEADLINE;

  if (a->on[F_JSON])
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

  if (a->on[F_LARGEST] && !(nk_plan_get_output (plan, "largest-params") >= 1))
    {
      g_autofree char *act = nk_units_format_bytes (nk_plan_get_output (plan, "memory-activations-per-gpu"));
      g_autofree char *hbm = nk_units_format_bytes (nk_plan_get_output (plan, "hbm-per-gpu"));

      /* The plan above shows why; the error line still ends the JSON output. */
      return nk_cli_fail (a->on[F_JSON], NK_EXIT_UNSATISFIABLE,
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

  /* The launch configs know dense models in bf16 only: writing one that drops
   * the experts, latent attention, a recipe or uneven stages would launch
   * another model, so say so instead. */
  {
    static const PlanFlagId unexported[] = {
      F_EXPERTS, F_ATTENTION, F_FIRST_STAGE_LAYERS, F_LAST_STAGE_LAYERS, F_CPU_OFFLOAD_LAYERS,
    };

    for (guint i = 0; i < G_N_ELEMENTS (unexported); i++)
      if (a->text[unexported[i]] != NULL && (unexported[i] != F_ATTENTION || a->choice[F_ATTENTION] != NK_ATTENTION_MHA))
        return FAIL (a, _("--export %s does not write %s into the launch config yet; plan without --export, or without %s"),
                     a->text[F_EXPORT], plan_flags[unexported[i]].flag, plan_flags[unexported[i]].flag);
    if (a->choice[F_PRECISION] >= RECIPE_CHOICE)
      return FAIL (a, _("--export %s does not write the %s recipe into the launch config yet; plan without --export, or with --precision mixed"),
                   a->text[F_EXPORT], a->text[F_PRECISION]);
  }
  if (!nk_plan_get_launch_spec (plan, &spec, &error))
    return FAIL (a, "--export %s: %s", a->text[F_EXPORT], error->message);
  /* a valid plan the engine cannot run is understood but not satisfiable */
  if ((text = nk_launch_write (&spec, a->choice[F_EXPORT], &error)) == NULL
      || (command = nk_launch_command (&spec, a->choice[F_EXPORT], &error)) == NULL)
    return nk_cli_fail (a->on[F_JSON], NK_EXIT_UNSATISFIABLE, "--export %s: %s", a->text[F_EXPORT], error->message);
  if (a->on[F_JSON])
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      nk_plan_build_json (plan, builder, NK_PLAN_JSON_NONE);
      nk_cli_print_json (builder);
    }
  if (a->text[F_OUT] == NULL)
    fputs (text, stdout);
  else if (!g_file_set_contents (a->text[F_OUT], text, -1, &error))
    return nk_cli_fail (a->on[F_JSON], NK_EXIT_UNSATISFIABLE, "--out: %s", error->message);
  g_printerr (_("napkin-cli: launch with: %s\n"), command);
  return NK_EXIT_OK;
}

int
nk_cli_plan_main (int    argc,
                  char **argv)
{
  g_auto(PlanArgs) args = { 0 };
  g_autoptr(GOptionContext) context = plan_context (&args);
  g_autoptr(NkPlan) plan = NULL;
  gboolean json = nk_cli_wants_json (argc, argv);
  int exit_code;

  if (!nk_cli_parse_options (context, &argc, &argv, json, &exit_code))
    return exit_code;
  args.on[F_JSON] = args.on[F_JSON] || json;

  if ((exit_code = check_required (&args, argc, argv)) >= 0
      || (exit_code = parse_choices (&args)) >= 0
      || (exit_code = choose_dtype (&args)) >= 0
      || (exit_code = parse_wholes (&args)) >= 0
      || (exit_code = parse_numbers (&args)) >= 0
      || (exit_code = check_flag_rules (&args)) >= 0)
    return exit_code;

  plan = nk_plan_new ();
  apply (plan, &args);
  if ((exit_code = refuse_invalid (plan, &args)) >= 0)
    return exit_code;

  /* A shape fixes the parameters; --largest then answers beside its plan. */
  if (args.on[F_LARGEST] && args.text[F_PARAMS] == NULL && !isfinite (nk_plan_get_output (plan, "shape-params")))
    {
      double n = nk_plan_get_output (plan, "largest-params");

      /* Show the memory of the answer itself, so it visibly fits. */
      if (n >= 1)
        nk_plan_set_params (plan, n);
    }
  if (args.text[F_EXPORT] != NULL)
    return export_launch (plan, &args);
  return print_plan (plan, &args);
}
