/* nk-plan-cluster-report.c: the cluster model's text: formulas with the numbers, layout sentences, JSON, summary
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads a result of nk-plan-cluster.c and its inputs; decides no number and knows
 * no #NkPlan object.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "nk-enum-types.h"
#include "nk-enums.h"
#include "nk-json.h"
#include "nk-plan-cluster-private.h"
#include "nk-plan-report-private.h"

/* ---------------------------------------------------------------- sentences */

/* The degrees as typed, DP as derived when not given. */
static void
typed_layout (const NkPlanInputs *in,
              double             *tp,
              double             *pp,
              double             *cp,
              double             *dp)
{
  *tp = in->layout[NK_PLAN_L_TP];
  *pp = in->layout[NK_PLAN_L_PP];
  *cp = in->layout[NK_PLAN_L_CP];
  *dp = in->layout[NK_PLAN_L_DP] > 0 ? in->layout[NK_PLAN_L_DP]
        : MAX (1, floor (in->in[NK_PLAN_IN_GPUS] / (*tp * *pp * *cp)));
}

/**
 * _nk_plan_layout_sentence:
 * @inputs: the plan's inputs
 * @result: the result the problem belongs to
 * @problem: a layout, bandwidth or best-layout problem
 *
 * Returns: (transfer full): one sentence naming the rule and the numbers
 */
char *
_nk_plan_layout_sentence (const NkPlanInputs  *in,
                          const NkPlanResult  *r,
                          const NkPlanProblem *problem)
{
  const double *x = in->in;
  double tp, pp, cp, dp, global, micro;
  double kv = in->layout[NK_PLAN_L_KV_HEADS] > 0 ? in->layout[NK_PLAN_L_KV_HEADS] : x[NK_PLAN_IN_HEADS];
  double v = in->layout[NK_PLAN_L_VIRTUAL_STAGES];

  typed_layout (in, &tp, &pp, &cp, &dp);
  global = in->layout[NK_PLAN_L_GLOBAL_BATCH] > 0 ? in->layout[NK_PLAN_L_GLOBAL_BATCH] : x[NK_PLAN_IN_BATCH];
  micro = in->layout[NK_PLAN_L_MICRO_BATCH] > 0 ? in->layout[NK_PLAN_L_MICRO_BATCH] : global / dp;
  if (problem->kind == NK_PLAN_PROBLEM_NO_BANDWIDTH)
    return g_strdup_printf (problem->which == 0
                            ? _("The GPU table gives %s no NVLink bandwidth, which a TP or DP group inside a node needs; plan with TP 1 and one GPU per node, or another GPU")
                            : _("The GPU table gives %s no network bandwidth, which a group across nodes needs; keep the plan inside one node"),
                            r->gpu != NULL ? r->gpu->name : "");
  if (problem->kind == NK_PLAN_PROBLEM_NO_LAYOUT && problem->which == 1)
    return nk_plan_format_formula (_("No layout multiplies to %N GPUs with whole micro-batches: TP is a power of two up to a node, PP divides the %N layers, and DP cannot exceed the global batch of %N sequences; use fewer GPUs or a larger global batch"),
                                   x[NK_PLAN_IN_GPUS], x[NK_PLAN_IN_LAYERS], global);
  if (problem->kind == NK_PLAN_PROBLEM_NO_LAYOUT)
    return g_strdup (_("No layout of TP, PP, micro-batch, recompute and ZeRO stage fits this model in the GPUs’ memory; add GPUs or shorten the sequence"));

  switch ((NkPlanLayoutRule) problem->which)
    {
    case NK_PLAN_RULE_GPUS:
      return nk_plan_format_formula (_("TP × PP × CP × DP must equal the GPUs: %N × %N × %N × %N = %N, not %N"),
                                     tp, pp, cp, dp, tp * pp * cp * dp, x[NK_PLAN_IN_GPUS]);
    case NK_PLAN_RULE_HEADS_DMODEL:
      return nk_plan_format_formula (_("d_model %N must be a multiple of the %N heads"),
                                     x[NK_PLAN_IN_D_MODEL], x[NK_PLAN_IN_HEADS]);
    case NK_PLAN_RULE_HEADS_KV:
      return nk_plan_format_formula (_("The %N heads must be a multiple of the %N KV heads"), x[NK_PLAN_IN_HEADS], kv);
    case NK_PLAN_RULE_HEADS_TP:
      return nk_plan_format_formula (_("The %N heads must be a multiple of TP %N (each GPU holds whole heads)"),
                                     x[NK_PLAN_IN_HEADS], tp);
    case NK_PLAN_RULE_KV_TP:
      return nk_plan_format_formula (_("The %N KV heads must be a multiple of TP %N, or divide it (Megatron-LM replicates them)"),
                                     kv, tp);
    case NK_PLAN_RULE_LAYERS_PP:
      return nk_plan_format_formula (_("The %N layers must be a multiple of PP %N (whole layers per stage)"),
                                     x[NK_PLAN_IN_LAYERS], pp);
    case NK_PLAN_RULE_LAYERS_VIRTUAL:
      return nk_plan_format_formula (_("The %N layers must be a multiple of PP × virtual stages = %N × %N"),
                                     x[NK_PLAN_IN_LAYERS], pp, v);
    case NK_PLAN_RULE_VIRTUAL_PP:
      return nk_plan_format_formula (_("Interleaving (%N virtual stages) needs PP > 1 and micro-batches per step a multiple of PP %N"),
                                     v, pp);
    case NK_PLAN_RULE_SEQ_CP:
      return nk_plan_format_formula (_("The sequence %N must be a multiple of 2 × CP = %N (causal load balancing splits it in 2 × CP chunks)"),
                                     x[NK_PLAN_IN_SEQ], 2 * cp);
    case NK_PLAN_RULE_BATCH:
      return nk_plan_format_formula (_("The global batch %N must be a multiple of micro-batch × DP = %N × %N (whole micro-batches on every replica)"),
                                     global, micro, dp);
    case NK_PLAN_RULE_NEEDS_BATCH:
      return g_strdup (_("A layout needs the global batch in sequences"));
    case NK_PLAN_RULE_NEEDS_SHAPE:
      return g_strdup (_("A layout needs the model’s shape (layers, d_model and heads) and the sequence length"));
    case NK_PLAN_RULE_MFU_AUTO:
      return g_strdup (_("MFU auto derives the MFU from the step time, which needs the model’s shape (layers, d_model and heads), the sequence length and the global batch; or give the MFU as a number"));
    case NK_PLAN_RULE_GPUS_INT:
      return g_strdup_printf (_("The cluster model counts at most %d GPUs and %d sequences per step, as the engines number their ranks in 32-bit integers"),
                              G_MAXINT, G_MAXINT);
    case NK_PLAN_RULE_EXPERTS_K:
      return nk_plan_format_formula (_("The experts per token must be from 1 to the %N experts, not %N"),
                                     (double) in->layout[NK_PLAN_L_EXPERTS],
                                     (double) in->layout[NK_PLAN_L_EXPERTS_PER_TOKEN]);
    case NK_PLAN_RULE_DENSE_LAYERS:
      return nk_plan_format_formula (_("The %N leading dense layers must be fewer than the %N layers (a MoE model needs a MoE layer)"),
                                     (double) in->layout[NK_PLAN_L_DENSE_LAYERS], x[NK_PLAN_IN_LAYERS]);
    case NK_PLAN_RULE_EXPERTS_EP:
      return nk_plan_format_formula (_("The %N experts must be a multiple of EP %N (each GPU of the EP group holds the same number of experts)"),
                                     (double) in->layout[NK_PLAN_L_EXPERTS], (double) in->layout[NK_PLAN_L_EP]);
    case NK_PLAN_RULE_EP_DP:
      return nk_plan_format_formula (_("EP %N must divide TP × CP × DP = %N (Megatron-Core’s parallel folding: the experts’ EP × ETP × expert-DP grid spans the dense layers’ TP × CP × DP GPUs of each stage)"),
                                     (double) in->layout[NK_PLAN_L_EP], tp * dp * cp);
    case NK_PLAN_RULE_ETP:
      return nk_plan_format_formula (_("EP × ETP = %N × %N must divide TP × DP × CP = %N (Megatron-LM’s expert data-parallel group is what is left)"),
                                     (double) in->layout[NK_PLAN_L_EP], (double) in->layout[NK_PLAN_L_ETP], tp * dp * cp);
    case NK_PLAN_RULE_MLA_DIMS:
      return g_strdup (_("Latent attention needs its KV rank and head widths, each above 0 (DeepSeek-V3: --kv-lora-rank 512 --qk-nope-head-dim 128 --qk-rope-head-dim 64 --v-head-dim 128): they are never guessed"));
    case NK_PLAN_RULE_RECIPE_MIXED:
      return g_strdup_printf (_("The %s recipe trains in mixed precision (bf16 master copies beside its low-precision matmuls), not in fp32"),
                              nk_enum_to_nick (NK_TYPE_PLAN_RECIPE, nk_plan_inputs_get_recipe (in)));
    case NK_PLAN_RULE_RECIPE_GPU:
      {
        NkPlanRecipe recipe = nk_plan_inputs_get_recipe (in);

        return g_strdup_printf (_("%s has no units for the %s recipe (%s); choose another recipe or GPU"),
                                r->gpu != NULL ? r->gpu->name : in->gpu, nk_enum_to_nick (NK_TYPE_PLAN_RECIPE, recipe),
                                recipe == NK_PLAN_RECIPE_NVFP4 ? _("NVFP4 needs NVIDIA Blackwell or later")
                                : recipe == NK_PLAN_RECIPE_MXFP8 ? _("MXFP8 needs block-scaled tensor cores: NVIDIA Blackwell, AMD CDNA 4 or later")
                                                                 : _("FP8 needs NVIDIA Hopper or Ada, AMD CDNA 3, or later"));
      }
    case NK_PLAN_RULE_STAGE_LAYERS:
      return nk_plan_format_formula (_("Uneven stages need PP > 1, and the %N layers less the first stage's %N and the last stage's %N must split into whole, equal shares over the other stages (PP %N)"),
                                     x[NK_PLAN_IN_LAYERS], (double) in->layout[NK_PLAN_L_FIRST_STAGE_LAYERS],
                                     (double) in->layout[NK_PLAN_L_LAST_STAGE_LAYERS], pp);
    case NK_PLAN_RULE_CPU_OFFLOAD:
      return nk_plan_format_formula (_("CPU offloading of %N layers needs fewer than the %N layers, PP 1 and no recompute (Megatron-Core supports it with neither)"),
                                     (double) in->layout[NK_PLAN_L_CPU_OFFLOAD_LAYERS], x[NK_PLAN_IN_LAYERS]);
    case NK_PLAN_RULE_SWIGLU_DFF:
    default:
      return g_strdup (_("A SwiGLU FFN needs its width (d_ff; Llama-2-70B: 28672): it is never guessed"));
    }
}

/* ---------------------------------------------------------------- formulas */

typedef struct {
  const NkPlanInputs *in;
  const NkPlanResult *r;
  const double       *x;
  const double       *v;
  const int          *l;   /* the layout as used */
  char              **f;
} Text;

/* One layer's attention: latent attention's seven parts with the numbers
 * (DeepSeek-V2 section 2.1, as nk-plan-cluster.c counts them), or multi-head
 * attention's four matrices. */
static void
text_attention (const Text *t)
{
  const int *l = t->in->layout;
  double h = t->x[NK_PLAN_IN_D_MODEL], a = t->x[NK_PLAN_IN_HEADS];
  double rq = l[NK_PLAN_L_Q_LORA_RANK], rkv = l[NK_PLAN_L_KV_LORA_RANK];
  double dn = l[NK_PLAN_L_QK_NOPE_HEAD_DIM], dr = l[NK_PLAN_L_QK_ROPE_HEAD_DIM], dv = l[NK_PLAN_L_V_HEAD_DIM];
  double v = t->v[NK_PLAN_V_SHAPE_ATTENTION];

  if (l[NK_PLAN_L_ATTENTION] != NK_ATTENTION_MLA)
    {
      t->f[NK_PLAN_V_SHAPE_ATTENTION] =
        nk_plan_format_formula (_("Q and output h × a·dh, K and V h × kv·dh%s = %N params"),
                                l[NK_PLAN_L_FFN] == NK_FFN_GELU ? _(", with their biases") : "", v);
      return;
    }
  if (rq > 0)
    t->f[NK_PLAN_V_SHAPE_ATTENTION] =
      nk_plan_format_formula (_("latent attention: W_DQ %N·%N + norm %N + W_UQ %N·%N·(%N + %N) + W_DKV %N·(%N + %N) + norm %N + W_UKV %N·%N·(%N + %N) + W_O %N·%N·%N = %N params"),
                              h, rq, rq, rq, a, dn, dr, h, rkv, dr, rkv, rkv, a, dn, dv, a, dv, h, v);
  else
    t->f[NK_PLAN_V_SHAPE_ATTENTION] =
      nk_plan_format_formula (_("latent attention: W_Q %N·%N·(%N + %N) + W_DKV %N·(%N + %N) + norm %N + W_UKV %N·%N·(%N + %N) + W_O %N·%N·%N = %N params"),
                              h, a, dn, dr, h, rkv, dr, rkv, rkv, a, dn, dv, a, dv, h, v);
}

static void
text_shape (const Text *t)
{
  const double *x = t->x, *v = t->v;
  gboolean swiglu = t->in->layout[NK_PLAN_L_FFN] == NK_FFN_SWIGLU;
  gboolean relu2 = t->in->layout[NK_PLAN_L_FFN] == NK_FFN_RELU2;
  gboolean tied = t->in->layout[NK_PLAN_L_TIED_EMBEDDINGS] != 0;

  if (!t->r->has[NK_PLAN_V_SHAPE_PARAMS])
    return;
  text_attention (t);
  if (t->in->layout[NK_PLAN_L_EXPERTS] > 0)
    {
      double dense = t->in->layout[NK_PLAN_L_DENSE_LAYERS];

      t->f[NK_PLAN_V_SHAPE_PARAMS] =
        nk_plan_format_formula (_("%N dense layers + %N MoE layers × %N params (attention, norms, the %N × h router without bias, %N routed + %N shared experts of width %N) + %N embedding params + final norm = %N params (%s embeddings)"),
                                dense, x[NK_PLAN_IN_LAYERS] - dense, v[NK_PLAN_V_SHAPE_LAYER],
                                (double) t->in->layout[NK_PLAN_L_EXPERTS], (double) t->in->layout[NK_PLAN_L_EXPERTS],
                                (double) t->in->layout[NK_PLAN_L_SHARED_EXPERTS],
                                t->in->layout[NK_PLAN_L_EXPERT_D_FF] > 0 ? (double) t->in->layout[NK_PLAN_L_EXPERT_D_FF]
                                                                         : x[NK_PLAN_IN_D_FF],
                                v[NK_PLAN_V_SHAPE_EMBED], v[NK_PLAN_V_SHAPE_PARAMS], tied ? _("tied") : _("untied"));
      t->f[NK_PLAN_V_SHAPE_PARAMS_ACTIVE] =
        nk_plan_format_formula (_("the same with %N routed + %N shared experts per MoE layer, as a token passes through it = %N params"),
                                (double) t->in->layout[NK_PLAN_L_EXPERTS_PER_TOKEN],
                                (double) t->in->layout[NK_PLAN_L_SHARED_EXPERTS], v[NK_PLAN_V_SHAPE_PARAMS_ACTIVE]);
      return;
    }
  t->f[NK_PLAN_V_SHAPE_PARAMS_ACTIVE] =
    nk_plan_format_formula (_("a dense model: every parameter is active = %N params"), v[NK_PLAN_V_SHAPE_PARAMS_ACTIVE]);
  t->f[NK_PLAN_V_SHAPE_PARAMS] =
    nk_plan_format_formula (_("%N layers × %N params + %N embedding params + final norm = %N params "
                              "(%s; %s embeddings)"),
                            x[NK_PLAN_IN_LAYERS], v[NK_PLAN_V_SHAPE_LAYER], v[NK_PLAN_V_SHAPE_EMBED],
                            v[NK_PLAN_V_SHAPE_PARAMS],
                            swiglu ? _("Llama's shape: SwiGLU, RMSNorm, no biases")
                            : relu2 ? _("Nemotron's shape: squared ReLU without a gate, no biases")
                                   : _("GPT-2's shape: GELU, LayerNorm, biases, learned positions"),
                            tied ? _("tied") : _("untied"));
}

static void
text_layout (const Text *t)
{
  const double *x = t->x, *v = t->v;

  if (!t->r->cluster)
    return;
  t->f[NK_PLAN_V_LAYOUT_DP] =
    nk_plan_format_formula (_("%N GPUs / (TP %N × PP %N × CP %N) = DP %N"), x[NK_PLAN_IN_GPUS],
                            v[NK_PLAN_V_LAYOUT_TP], v[NK_PLAN_V_LAYOUT_PP], v[NK_PLAN_V_LAYOUT_CP],
                            v[NK_PLAN_V_LAYOUT_DP]);
  t->f[NK_PLAN_V_GRAD_ACCUM] =
    nk_plan_format_formula (_("%N sequences / (micro-batch %N × DP %N) = %N micro-batches per step"),
                            v[NK_PLAN_V_GLOBAL_BATCH], v[NK_PLAN_V_MICRO_BATCH], v[NK_PLAN_V_LAYOUT_DP],
                            v[NK_PLAN_V_GRAD_ACCUM]);
  t->f[NK_PLAN_V_TOKENS_PER_STEP] =
    nk_plan_format_formula (_("%N sequences × %N tokens = %N tokens per step"), v[NK_PLAN_V_GLOBAL_BATCH],
                            x[NK_PLAN_IN_SEQ], v[NK_PLAN_V_TOKENS_PER_STEP]);
  if (t->r->has[NK_PLAN_V_STEPS])
    t->f[NK_PLAN_V_STEPS] = nk_plan_format_formula (_("⌈%N tokens / %N per step⌉ = %N steps"), x[NK_PLAN_IN_TOKENS],
                                                    v[NK_PLAN_V_TOKENS_PER_STEP], v[NK_PLAN_V_STEPS]);
  t->f[NK_PLAN_V_NODES] = nk_plan_format_formula (_("⌈%N GPUs / %N per node⌉ = %N nodes"), x[NK_PLAN_IN_GPUS],
                                                  (double) t->in->layout[NK_PLAN_L_GPUS_PER_NODE],
                                                  v[NK_PLAN_V_NODES]);
  if (!t->r->has[NK_PLAN_V_DEADLINE_GPUS])
    return;
  if (isfinite (v[NK_PLAN_V_DEADLINE_GPUS]))
    t->f[NK_PLAN_V_DEADLINE_GPUS] =
      nk_plan_format_formula (_("DP %N × TP·PP·CP %N = %N GPUs on %N nodes: %N days ≤ %N and %N B ≤ %N B on the most loaded GPU (DP divides the %N micro-batches per step; the global batch stays)"),
                              v[NK_PLAN_V_DEADLINE_DP], v[NK_PLAN_V_LAYOUT_TP] * v[NK_PLAN_V_LAYOUT_PP] * v[NK_PLAN_V_LAYOUT_CP],
                              v[NK_PLAN_V_DEADLINE_GPUS],
                              ceil (v[NK_PLAN_V_DEADLINE_GPUS] / t->in->layout[NK_PLAN_L_GPUS_PER_NODE]),
                              v[NK_PLAN_V_DEADLINE_DAYS], x[NK_PLAN_IN_DEADLINE], v[NK_PLAN_V_DEADLINE_MEMORY],
                              v[NK_PLAN_V_CAPACITY], v[NK_PLAN_V_GLOBAL_BATCH] / v[NK_PLAN_V_MICRO_BATCH]);
  else
    t->f[NK_PLAN_V_DEADLINE_GPUS] =
      nk_plan_format_formula (_("No DP dividing the %N micro-batches per step gives whole nodes that train in %N days and fit; raise the global batch or the deadline"),
                              v[NK_PLAN_V_GLOBAL_BATCH] / v[NK_PLAN_V_MICRO_BATCH], x[NK_PLAN_IN_DEADLINE]);
}

static void
text_memory (const Text *t)
{
  const double *v = t->v;
  double p = t->r->act_bytes, tp = v[NK_PLAN_V_LAYOUT_TP];
  gboolean sp = t->l[NK_PLAN_L_SEQUENCE_PARALLEL];
  NkRecompute rc = t->l[NK_PLAN_L_RECOMPUTE];
  gboolean scores = rc == NK_RECOMPUTE_NONE && !t->l[NK_PLAN_L_FLASH_ATTENTION];

  if (t->r->has[NK_PLAN_V_USABLE])
    t->f[NK_PLAN_V_USABLE] =
      nk_plan_format_formula (_("(%N B reported − %N B CUDA context) × (1 − %N %% reserve) = %N B"),
                              v[NK_PLAN_V_REPORTED], 512.0 * 1048576.0,
                              (double) t->in->layout[NK_PLAN_L_MEMORY_RESERVE], v[NK_PLAN_V_USABLE]);
  if (!t->r->cluster)
    return;
  if (rc == NK_RECOMPUTE_FULL)
    t->f[NK_PLAN_V_ACT_LAYER] =
      nk_plan_format_formula (_("full recompute keeps each layer's input: s·b·h·%N B%s = %N B per layer"),
                              p, sp ? " / t" : "", v[NK_PLAN_V_ACT_LAYER]);
  else if (t->in->layout[NK_PLAN_L_ATTENTION] == NK_ATTENTION_MLA)
    t->f[NK_PLAN_V_ACT_LAYER] =
      nk_plan_format_formula (_("Korthikanti et al. 2022 at %N B per value, latent attention's terms for Q, K and V: (s·b·h·(4·%N + 2) + s·b·%N·2·(q_rank + kv_rank) + LayerNorm statistics)%s + s·b·%N·(a·(2·d_qk + 2·d_v) + FFN)/t%s = %N B per layer (t = %N%s; the latents and the decompressed heads are both kept for the backward)"),
                              p, p, p, sp ? " / t" : "", p,
                              scores ? " + a·s²·b·(2·p + 1)/t" : _(" (attention scores not stored)"),
                              v[NK_PLAN_V_ACT_LAYER], tp, sp ? _(", sequence parallel") : "");
  else
    t->f[NK_PLAN_V_ACT_LAYER] =
      nk_plan_format_formula (_("Korthikanti et al. 2022 at %N B per value: (s·b·h·(4·%N + 2) + 16·s·b LayerNorm statistics)%s + s·b·h·%N·(2 + 2·kv/a + FFN)/t%s = %N B per layer (t = %N%s)"),
                              p, p, sp ? " / t" : "", p,
                              scores ? " + a·s²·b·(2·p + 1)/t" : _(" (attention scores not stored)"),
                              v[NK_PLAN_V_ACT_LAYER], tp, sp ? _(", sequence parallel") : "");
  if (rc == NK_RECOMPUTE_FULL)
    {
      double layers = v[NK_PLAN_V_ACT_STAGE_LAYERS];
      /* what is left is the working set of the one layer being recomputed */
      double working = v[NK_PLAN_V_MAX_ACT] - layers * v[NK_PLAN_V_ACT_LAYER] * v[NK_PLAN_V_ACT_IN_FLIGHT]
                       - v[NK_PLAN_V_ACT_EDGES];

      t->f[NK_PLAN_V_MAX_ACT] =
        nk_plan_format_formula (_("%N layers/stage × %N B × %N micro-batches in flight + %N B for the layer being recomputed + %N B embedding/logits = %N B"),
                                layers, v[NK_PLAN_V_ACT_LAYER], v[NK_PLAN_V_ACT_IN_FLIGHT], working,
                                v[NK_PLAN_V_ACT_EDGES], v[NK_PLAN_V_MAX_ACT]);
    }
  else if (t->l[NK_PLAN_L_CPU_OFFLOAD_LAYERS] > 0)
    t->f[NK_PLAN_V_MAX_ACT] =
      nk_plan_format_formula (_("(%N layers − %N whose activations wait in host memory) × %N B + %N B embedding/logits = %N B (Transformer Engine’s CPU offloading: at most the other layers’ activations on the GPU at a time)"),
                              v[NK_PLAN_V_ACT_STAGE_LAYERS] + t->l[NK_PLAN_L_CPU_OFFLOAD_LAYERS],
                              (double) t->l[NK_PLAN_L_CPU_OFFLOAD_LAYERS], v[NK_PLAN_V_ACT_LAYER],
                              v[NK_PLAN_V_ACT_EDGES], v[NK_PLAN_V_MAX_ACT]);
  else
    t->f[NK_PLAN_V_MAX_ACT] =
      nk_plan_format_formula (_("%N layers/stage × %N B × %N micro-batches in flight + %N B embedding/logits = %N B"),
                              v[NK_PLAN_V_ACT_STAGE_LAYERS], v[NK_PLAN_V_ACT_LAYER],
                              v[NK_PLAN_V_ACT_IN_FLIGHT], v[NK_PLAN_V_ACT_EDGES], v[NK_PLAN_V_MAX_ACT]);
  if (t->in->layout[NK_PLAN_L_EXPERTS] > 0)
    t->f[NK_PLAN_V_MAX_EXPERT_PARAMS] =
      nk_plan_format_formula (_("the %N routed experts of each MoE layer this GPU holds (E %N / EP %N, each split by ETP %N): %N params + %N grads + %N optimizer = %N B, of the totals below (ZeRO shards them over their own data-parallel group, TP·DP·CP / (EP·ETP) = %N ranks)"),
                              t->in->layout[NK_PLAN_L_EXPERTS] / v[NK_PLAN_V_LAYOUT_EP],
                              (double) t->in->layout[NK_PLAN_L_EXPERTS], v[NK_PLAN_V_LAYOUT_EP], v[NK_PLAN_V_LAYOUT_ETP],
                              v[NK_PLAN_V_MAX_EXPERT_PARAMS], v[NK_PLAN_V_MAX_EXPERT_GRADS], v[NK_PLAN_V_MAX_EXPERT_OPT],
                              v[NK_PLAN_V_MAX_EXPERT_PARAMS] + v[NK_PLAN_V_MAX_EXPERT_GRADS] + v[NK_PLAN_V_MAX_EXPERT_OPT],
                              v[NK_PLAN_V_LAYOUT_TP] * v[NK_PLAN_V_LAYOUT_DP] * v[NK_PLAN_V_LAYOUT_CP]
                              / (v[NK_PLAN_V_LAYOUT_EP] * v[NK_PLAN_V_LAYOUT_ETP]));
  t->f[NK_PLAN_V_MEM_MAX] =
    nk_plan_format_formula (_("%N params + %N grads + %N optimizer + %N activations + %N low-precision copies = %N B on the most loaded GPU (%s, ZeRO-%N over DP %N)"),
                            v[NK_PLAN_V_MAX_PARAMS], v[NK_PLAN_V_MAX_GRADS], v[NK_PLAN_V_MAX_OPT],
                            v[NK_PLAN_V_MAX_ACT], v[NK_PLAN_V_MAX_LOWP], v[NK_PLAN_V_MEM_MAX],
                            v[NK_PLAN_V_LAYOUT_PP] == 1 || v[NK_PLAN_V_ACT_IN_FLIGHT] >= v[NK_PLAN_V_LAYOUT_PP]
                            || (v[NK_PLAN_V_ACT_IN_FLIGHT] > 1 && v[NK_PLAN_V_ACT_IN_FLIGHT] >= v[NK_PLAN_V_GRAD_ACCUM]
                                && t->l[NK_PLAN_L_FIRST_STAGE_LAYERS] == 0)
                            ? _("first pipeline stage")
                            : v[NK_PLAN_V_ACT_IN_FLIGHT] == 1 ? _("last pipeline stage") : _("second pipeline stage"),
                            (double) t->r->zero_stage, v[NK_PLAN_V_LAYOUT_DP]);
}

static void
text_time (const Text *t)
{
  const double *x = t->x, *v = t->v;
  double eff = _nk_plan_gpu_matmul_efficiency (t->in, t->r->gpu), gpus = x[NK_PLAN_IN_GPUS];
  double peak = v[NK_PLAN_V_PEAK];

  if (!t->r->has[NK_PLAN_V_T_STEP])
    return;
  t->f[NK_PLAN_V_MODEL_FLOPS_TOKEN] =
    nk_plan_format_formula (t->in->layout[NK_PLAN_L_EXPERTS] > 0
                            ? _("6 × (the active matmul weights: attention, router, K routed and the shared experts; V·h output layer) + 12 × L × s × heads·head_dim attention = %N FLOPs per token (PaLM's count on the active parameters)")
                            : _("6 × (layers' matmul weights + V·h output layer) + 12 × L × s × h attention = %N FLOPs per token (PaLM's, Megatron-LM's count)"),
                            v[NK_PLAN_V_MODEL_FLOPS_TOKEN]);
  t->f[NK_PLAN_V_HW_FLOPS_TOKEN] =
    nk_plan_format_formula (_("%N model FLOPs + %N recomputed = %N FLOPs per token"), v[NK_PLAN_V_MODEL_FLOPS_TOKEN],
                            v[NK_PLAN_V_HW_FLOPS_TOKEN] - v[NK_PLAN_V_MODEL_FLOPS_TOKEN], v[NK_PLAN_V_HW_FLOPS_TOKEN]);
  if (nk_plan_inputs_get_recipe (t->in) != NK_PLAN_RECIPE_NONE)
    {
      NkPlanRecipe recipe = nk_plan_inputs_get_recipe (t->in);
      NkPeakDtype lp = recipe == NK_PLAN_RECIPE_NVFP4 ? NK_PEAK_FP4 : NK_PEAK_FP8;

      t->f[NK_PLAN_V_T_COMPUTE] =
        nk_plan_format_formula (_("%N tokens × %N FLOPs, the linear layers' at the %s peak %N FLOP/s (%s; scaled by the measured ceilings where the GPU table has them), attention's core, the output layer and the router at %N FLOP/s, / (%N GPUs × %N matmul efficiency) = %N s"),
                                v[NK_PLAN_V_TOKENS_PER_STEP], v[NK_PLAN_V_MODEL_FLOPS_TOKEN], nk_peak_dtype_to_string (lp),
                                nk_gpu_get_peak (t->r->gpu, lp, FALSE), nk_enum_to_nick (NK_TYPE_PLAN_RECIPE, recipe),
                                peak, gpus, eff, v[NK_PLAN_V_T_COMPUTE]);
      t->f[NK_PLAN_V_T_CAST] =
        nk_plan_format_formula (_("%s quantizing passes: per micro-batch each linear layer's input and output gradient (s·b/t tokens × its input + output widths) read in bf16 and written twice quantized with scales, and the weights once a step, / %N B/s HBM = %N s"),
                                nk_enum_to_nick (NK_TYPE_PLAN_RECIPE, recipe), t->r->gpu->bandwidth, v[NK_PLAN_V_T_CAST]);
      t->f[NK_PLAN_V_MAX_LOWP] =
        nk_plan_format_formula (_("the linear weights quantized twice (row- and column-wise) with their scales%s = %N B"),
                                recipe == NK_PLAN_RECIPE_FP8_TENSORWISE ? _(", and a scale and 1024-entry amax history per tensor") : "",
                                v[NK_PLAN_V_MAX_LOWP]);
    }
  else if (v[NK_PLAN_V_PIPELINE_PACE] != 1)
    t->f[NK_PLAN_V_T_COMPUTE] =
      nk_plan_format_formula (_("%N pace × %N tokens × %N FLOPs / (%N GPUs × %N FLOP/s × %N matmul efficiency) = %N s"),
                              v[NK_PLAN_V_PIPELINE_PACE], v[NK_PLAN_V_TOKENS_PER_STEP], v[NK_PLAN_V_MODEL_FLOPS_TOKEN],
                              gpus, peak, eff, v[NK_PLAN_V_T_COMPUTE]);
  else
    t->f[NK_PLAN_V_T_COMPUTE] =
      nk_plan_format_formula (_("%N tokens × %N FLOPs / (%N GPUs × %N FLOP/s × %N matmul efficiency) = %N s"),
                              v[NK_PLAN_V_TOKENS_PER_STEP], v[NK_PLAN_V_MODEL_FLOPS_TOKEN], gpus, peak, eff,
                              v[NK_PLAN_V_T_COMPUTE]);
  if (v[NK_PLAN_V_PIPELINE_PACE] != 1)
    t->f[NK_PLAN_V_PIPELINE_PACE] =
      nk_plan_format_formula (_("the busiest stage's layers × PP %N / %N layers = %N (the pipeline runs at the busiest stage's pace)"),
                              v[NK_PLAN_V_LAYOUT_PP], x[NK_PLAN_IN_LAYERS], v[NK_PLAN_V_PIPELINE_PACE]);
  t->f[NK_PLAN_V_T_RECOMPUTE] =
    nk_plan_format_formula (_("%N tokens × %N recomputed FLOPs / (%N GPUs × %N FLOP/s × %N) = %N s"),
                            v[NK_PLAN_V_TOKENS_PER_STEP], v[NK_PLAN_V_HW_FLOPS_TOKEN] - v[NK_PLAN_V_MODEL_FLOPS_TOKEN],
                            gpus, peak, eff, v[NK_PLAN_V_T_RECOMPUTE]);
  if (t->l[NK_PLAN_L_EXPERTS] > 0)
    {
      double passes = t->l[NK_PLAN_L_RECOMPUTE] == NK_RECOMPUTE_NONE ? 3.0 : 4.0;
      double layers = x[NK_PLAN_IN_LAYERS] / v[NK_PLAN_V_LAYOUT_PP];
      double act = v[NK_PLAN_V_GRAD_ACCUM] * layers * passes * v[NK_PLAN_V_ACT_TRAFFIC] / t->r->gpu->bandwidth;

      t->f[NK_PLAN_V_T_MEMORY] =
        nk_plan_format_formula (_("%N micro-batches × %N layers × %N passes × %N B of activations / %N B/s HBM + %N s of the MoE layers' token permutations and router (Megatron-Core's dispatcher: permute, sort, unpermute, forward and backward) = %N s (element-wise work is bound by memory)"),
                                v[NK_PLAN_V_GRAD_ACCUM], layers, passes, v[NK_PLAN_V_ACT_TRAFFIC],
                                t->r->gpu->bandwidth, v[NK_PLAN_V_T_MEMORY] - act, v[NK_PLAN_V_T_MEMORY]);
    }
  else
    t->f[NK_PLAN_V_T_MEMORY] =
      nk_plan_format_formula (_("%N micro-batches × %N layers × %N passes × %N B of activations / %N B/s HBM = %N s (element-wise work is bound by memory)"),
                              v[NK_PLAN_V_GRAD_ACCUM], x[NK_PLAN_IN_LAYERS] / v[NK_PLAN_V_LAYOUT_PP],
                              t->l[NK_PLAN_L_RECOMPUTE] == NK_RECOMPUTE_NONE ? 3.0 : 4.0,
                              v[NK_PLAN_V_ACT_TRAFFIC], t->r->gpu->bandwidth, v[NK_PLAN_V_T_MEMORY]);
  t->f[NK_PLAN_V_T_TP] =
    nk_plan_format_formula (t->l[NK_PLAN_L_TP_COMM_OVERLAP]
                            ? _("%N micro-batches × %N layers × %N all-reduces of s·b·h activations, each 2(t − 1)/t × bytes / bandwidth (nccl-tests), run under the GEMMs they feed (--tp-comm-overlap): %N s the matmuls do not cover")
                            : _("%N micro-batches × %N layers × %N all-reduces of s·b·h activations, each 2(t − 1)/t × bytes / bandwidth (nccl-tests) = %N s"),
                            v[NK_PLAN_V_GRAD_ACCUM], x[NK_PLAN_IN_LAYERS] / v[NK_PLAN_V_LAYOUT_PP],
                            t->l[NK_PLAN_L_RECOMPUTE] == NK_RECOMPUTE_FULL ? 6.0 : 4.0, v[NK_PLAN_V_T_TP]);
  t->f[NK_PLAN_V_T_DP] =
    nk_plan_format_formula (t->r->zero_stage >= 3
                            ? _("%N micro-batches × (an all-gather of the parameters per forward and backward pass — DeepSpeed's recompute gathers again, FSDP's does not — + a reduce-scatter of the gradients), each (n − 1)/n × bytes / bandwidth = %N s; hidden behind the compute: %N s exposed")
                            : _("%N step × one gradient all-reduce, 2(n − 1)/n × bytes / bandwidth = %N s; hidden behind the last micro-batch's backward: %N s exposed"),
                            t->r->zero_stage >= 3 ? v[NK_PLAN_V_GRAD_ACCUM] : 1.0, v[NK_PLAN_V_T_DP],
                            v[NK_PLAN_V_T_DP_EXPOSED]);
  t->f[NK_PLAN_V_T_EP] =
    nk_plan_format_formula (t->l[NK_PLAN_L_EP_COMM_OVERLAP]
                            ? _("%N micro-batches × MoE layers × %N all-to-alls (dispatch and combine, forward and backward) of s·b/t · K · h activations × imbalance, each (EP − 1)/EP × bytes / bandwidth over EP %N (on NVLink 0.8 of the link, DeepEP's measured all-to-all; across NVLink domains the slower link's share, the network carrying each copy, or with DeepEP a token once per other domain its experts are in), run under another micro-batch's compute (--ep-comm-overlap) while holding 20 of 132 SMs (DeepSeek-V3 §3.2.2): %N s, the compute slowed by the SMs the hidden all-to-all takes (hidden time × 20/112) plus any part the compute does not cover")
                            : _("%N micro-batches × MoE layers × %N all-to-alls (dispatch and combine, forward and backward) of s·b/t · K · h activations × imbalance, each (EP − 1)/EP × bytes / bandwidth over EP %N (on NVLink 0.8 of the link, DeepEP's measured all-to-all; across NVLink domains the slower link's share, the network carrying each copy, or with DeepEP a token once per other domain its experts are in) = %N s, exposed (nothing overlaps them)"),
                            v[NK_PLAN_V_GRAD_ACCUM], t->l[NK_PLAN_L_RECOMPUTE] == NK_RECOMPUTE_FULL ? 6.0 : 4.0,
                            (double) t->l[NK_PLAN_L_EP], v[NK_PLAN_V_T_EP]);
  t->f[NK_PLAN_V_T_BUBBLE] =
    nk_plan_format_formula (_("(PP %N − 1) / (%N micro-batches × %N virtual stages) × %N s busy = %N s (Narayanan et al. 2021)"),
                            v[NK_PLAN_V_LAYOUT_PP], v[NK_PLAN_V_GRAD_ACCUM], (double) t->l[NK_PLAN_L_VIRTUAL_STAGES],
                            v[NK_PLAN_V_T_COMPUTE] + v[NK_PLAN_V_T_RECOMPUTE] + v[NK_PLAN_V_T_MEMORY] + v[NK_PLAN_V_T_TP],
                            v[NK_PLAN_V_T_BUBBLE]);
  t->f[NK_PLAN_V_T_STEP] =
    nk_plan_format_formula (_("%N compute + %N recompute + %N element-wise + %N casts + %N exposed communication + %N bubble = %N s per step"),
                            v[NK_PLAN_V_T_COMPUTE], v[NK_PLAN_V_T_RECOMPUTE], v[NK_PLAN_V_T_MEMORY], v[NK_PLAN_V_T_CAST],
                            v[NK_PLAN_V_T_EXPOSED], v[NK_PLAN_V_T_BUBBLE], v[NK_PLAN_V_T_STEP]);
  t->f[NK_PLAN_V_TOKENS_PER_S] = nk_plan_format_formula (_("%N tokens / %N s = %N tokens/s"), v[NK_PLAN_V_TOKENS_PER_STEP],
                                                         v[NK_PLAN_V_T_STEP], v[NK_PLAN_V_TOKENS_PER_S]);
  t->f[NK_PLAN_V_MFU_MODEL] =
    nk_plan_format_formula (_("%N FLOPs/token × %N tokens/s / (%N GPUs × %N FLOP/s) = %N"), v[NK_PLAN_V_MODEL_FLOPS_TOKEN],
                            v[NK_PLAN_V_TOKENS_PER_S], gpus, peak, v[NK_PLAN_V_MFU_MODEL]);
  t->f[NK_PLAN_V_MFU_HARDWARE] =
    nk_plan_format_formula (_("%N FLOPs/token with recompute × %N tokens/s / (%N GPUs × %N FLOP/s) = %N"),
                            v[NK_PLAN_V_HW_FLOPS_TOKEN], v[NK_PLAN_V_TOKENS_PER_S], gpus, peak, v[NK_PLAN_V_MFU_HARDWARE]);
  if (t->r->has[NK_PLAN_V_MFU_6N])
    t->f[NK_PLAN_V_MFU_6N] =
      nk_plan_format_formula (_("6 × %N params × %N tokens/s / (%N GPUs × %N FLOP/s) = %N (the days' 6N convention)"),
                              x[NK_PLAN_IN_PARAMS], v[NK_PLAN_V_TOKENS_PER_S], gpus, peak, v[NK_PLAN_V_MFU_6N]);
}

/**
 * _nk_plan_report_cluster:
 * @inputs: the plan's inputs
 * @result: a computed result
 * @formulas: the formula slots, indexed by #NkPlanValue
 *
 * Writes the cluster model's formulas with the plan's numbers.
 */
void
_nk_plan_report_cluster (const NkPlanInputs  *inputs,
                         const NkPlanResult  *result,
                         char               **formulas)
{
  Text t = { inputs, result, inputs->in, result->values, result->layout, formulas };

  text_shape (&t);
  text_layout (&t);
  text_memory (&t);
  text_time (&t);
}

/* ---------------------------------------------------------------- JSON */

static void
add_int (JsonBuilder *builder,
         const char  *name,
         gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

static void
build_json_layout (JsonBuilder        *builder,
                   const NkPlanResult *r)
{
  const double *v = r->values;

  json_builder_set_member_name (builder, "layout");
  json_builder_begin_object (builder);
  nk_json_add_member_double (builder, "dp", v[NK_PLAN_V_LAYOUT_DP]);
  nk_json_add_member_double (builder, "tp", v[NK_PLAN_V_LAYOUT_TP]);
  nk_json_add_member_double (builder, "pp", v[NK_PLAN_V_LAYOUT_PP]);
  nk_json_add_member_double (builder, "cp", v[NK_PLAN_V_LAYOUT_CP]);
  nk_json_add_member_double (builder, "micro_batch", v[NK_PLAN_V_MICRO_BATCH]);
  nk_json_add_member_double (builder, "grad_accum", v[NK_PLAN_V_GRAD_ACCUM]);
  nk_json_add_member_double (builder, "global_batch", v[NK_PLAN_V_GLOBAL_BATCH]);
  nk_json_add_member_double (builder, "tokens_per_step", v[NK_PLAN_V_TOKENS_PER_STEP]);
  if (r->has[NK_PLAN_V_STEPS])
    nk_json_add_member_double (builder, "steps", v[NK_PLAN_V_STEPS]);
  nk_json_add_member_double (builder, "nodes", v[NK_PLAN_V_NODES]);
  add_int (builder, "virtual_stages", r->layout[NK_PLAN_L_VIRTUAL_STAGES]);
  json_builder_set_member_name (builder, "sequence_parallel");
  json_builder_add_boolean_value (builder, r->layout[NK_PLAN_L_SEQUENCE_PARALLEL] != 0);
  json_builder_set_member_name (builder, "recompute");
  json_builder_add_string_value (builder, nk_enum_to_nick (NK_TYPE_RECOMPUTE, r->layout[NK_PLAN_L_RECOMPUTE]));
  add_int (builder, "zero_stage", r->zero_stage);
  json_builder_set_member_name (builder, "searched");
  json_builder_add_boolean_value (builder, r->searched);
  json_builder_set_member_name (builder, "tp_crosses_nodes");
  json_builder_add_boolean_value (builder, r->tp_crosses_nodes);
  add_int (builder, "nvlink_domain", r->layout[NK_PLAN_L_NVLINK_DOMAIN]);
  add_int (builder, "ep", r->layout[NK_PLAN_L_EP]);
  add_int (builder, "etp", r->layout[NK_PLAN_L_ETP]);
  json_builder_end_object (builder);
}

static void
build_json_time (JsonBuilder        *builder,
                 const NkPlanInputs *in,
                 const NkPlanResult *r)
{
  const double *v = r->values;

  json_builder_set_member_name (builder, "time_per_step");
  json_builder_begin_object (builder);
  nk_json_add_member_double (builder, "compute", v[NK_PLAN_V_T_COMPUTE]);
  nk_json_add_member_double (builder, "recompute", v[NK_PLAN_V_T_RECOMPUTE]);
  nk_json_add_member_double (builder, "memory_bound", v[NK_PLAN_V_T_MEMORY]);
  nk_json_add_member_double (builder, "casts", v[NK_PLAN_V_T_CAST]);
  nk_json_add_member_double (builder, "tp_comm", v[NK_PLAN_V_T_TP]);
  nk_json_add_member_double (builder, "dp_comm", v[NK_PLAN_V_T_DP]);
  nk_json_add_member_double (builder, "ep_comm", v[NK_PLAN_V_T_EP]);
  nk_json_add_member_double (builder, "pp_bubble", v[NK_PLAN_V_T_BUBBLE]);
  nk_json_add_member_double (builder, "exposed_comm", v[NK_PLAN_V_T_EXPOSED]);
  nk_json_add_member_double (builder, "total", v[NK_PLAN_V_T_STEP]);
  json_builder_end_object (builder);
  nk_json_add_member_double (builder, "bubble_fraction", v[NK_PLAN_V_BUBBLE_FRACTION]);
  nk_json_add_member_double (builder, "model_flops_per_token", v[NK_PLAN_V_MODEL_FLOPS_TOKEN]);
  nk_json_add_member_double (builder, "hardware_flops_per_token", v[NK_PLAN_V_HW_FLOPS_TOKEN]);
  nk_json_add_member_double (builder, "mfu_model", v[NK_PLAN_V_MFU_MODEL]);
  nk_json_add_member_double (builder, "mfu_hardware", v[NK_PLAN_V_MFU_HARDWARE]);
  nk_json_add_member_double (builder, "tokens_per_s", v[NK_PLAN_V_TOKENS_PER_S]);
  /* the fraction of this GPU's peak the time model ran the matmuls at */
  nk_json_add_member_double (builder, "matmul_efficiency", _nk_plan_gpu_matmul_efficiency (in, r->gpu));
  /* the same step as each engine's log would print its MFU */
  json_builder_set_member_name (builder, "mfu_by_engine");
  json_builder_begin_object (builder);
  nk_json_add_member_double (builder, "torchtitan", v[NK_PLAN_V_MFU_TORCHTITAN]);
  nk_json_add_member_double (builder, "nanogpt", v[NK_PLAN_V_MFU_NANOGPT]);
  nk_json_add_member_double (builder, "llmc", v[NK_PLAN_V_MFU_LLMC]);
  json_builder_end_object (builder);
}

/* The fewest whole nodes whose layout meets the deadline and fits, or null. */
static void
build_json_deadline (JsonBuilder        *builder,
                     const NkPlanInputs *in,
                     const NkPlanResult *r)
{
  const double *v = r->values;

  json_builder_set_member_name (builder, "layout_for_deadline");
  if (!isfinite (v[NK_PLAN_V_DEADLINE_GPUS]))
    {
      json_builder_add_null_value (builder);
      return;
    }
  json_builder_begin_object (builder);
  nk_json_add_member_double (builder, "gpus", v[NK_PLAN_V_DEADLINE_GPUS]);
  nk_json_add_member_double (builder, "nodes", ceil (v[NK_PLAN_V_DEADLINE_GPUS] / in->layout[NK_PLAN_L_GPUS_PER_NODE]));
  nk_json_add_member_double (builder, "dp", v[NK_PLAN_V_DEADLINE_DP]);
  nk_json_add_member_double (builder, "days", v[NK_PLAN_V_DEADLINE_DAYS]);
  nk_json_add_member_double (builder, "memory_per_gpu_max", v[NK_PLAN_V_DEADLINE_MEMORY]);
  json_builder_end_object (builder);
}

/**
 * _nk_plan_build_json_cluster:
 * @builder: a builder inside the plan's object
 * @inputs: the plan's inputs
 * @result: a computed result
 *
 * Adds CLI.md's cluster-scale members: `layout`, `time_per_step` and the rates
 * (memory's `per_gpu_max` is added by the memory object).
 */
void
_nk_plan_build_json_cluster (JsonBuilder        *builder,
                             const NkPlanInputs *inputs,
                             const NkPlanResult *result)
{
  if (!result->cluster)
    return;
  build_json_layout (builder, result);
  if (result->has[NK_PLAN_V_T_STEP])
    build_json_time (builder, inputs, result);
  if (inputs->layout[NK_PLAN_L_MFU_AUTO])
    nk_json_add_member_double (builder, "mfu", result->mfu);
  if (result->has[NK_PLAN_V_DEADLINE_GPUS])
    build_json_deadline (builder, inputs, result);
  /* memory.max_activations of the most loaded GPU, tensor by tensor */
  json_builder_set_member_name (builder, "activation_terms");
  nk_act_terms_build_json (builder, result->act_terms);
}

/* ---------------------------------------------------------------- summary */

static void
row (GString             *s,
     const NkPlanReport  *o,
     const char          *label,
     NkPlanValue          which,
     char                *value_text)
{
  nk_plan_format_row (s, label, value_text, o->formulas[which]);
  g_free (value_text);
}

/**
 * _nk_plan_summary_cluster:
 * @s: the summary being written
 * @inputs: the plan's inputs
 * @result: the plan's result
 * @o: its report
 *
 * Appends the layout, the most loaded GPU and the step time, each row with its
 * formula.
 */
void
_nk_plan_summary_cluster (GString            *s,
                          const NkPlanInputs *inputs,
                          const NkPlanResult *result,
                          const NkPlanReport *o)
{
  const NkPlanResult *r = result;
  const double *v = r->values;

  if (!r->cluster)
    return;
  g_string_append_printf (s, _("\nLayout (%s)\n"), r->searched ? _("the fastest that fits") : _("as given"));
  row (s, o, _("data parallel"), NK_PLAN_V_LAYOUT_DP, nk_plan_format_formula ("DP %N", v[NK_PLAN_V_LAYOUT_DP]));
  if (inputs->layout[NK_PLAN_L_EXPERTS] > 0)
    {
      g_autofree char *ep = nk_plan_format_formula ("EP %N", (double) r->layout[NK_PLAN_L_EP]);
      g_autofree char *why =
        nk_plan_format_formula (_("EP %N × ETP %N: each GPU holds %N of the %N experts of a MoE layer"),
                                (double) r->layout[NK_PLAN_L_EP], (double) r->layout[NK_PLAN_L_ETP],
                                (double) inputs->layout[NK_PLAN_L_EXPERTS] / r->layout[NK_PLAN_L_EP],
                                (double) inputs->layout[NK_PLAN_L_EXPERTS]);

      nk_plan_format_row (s, _("expert parallel"), ep, why);
    }
  row (s, o, _("micro-batches"), NK_PLAN_V_GRAD_ACCUM, nk_plan_format_formula ("%N", v[NK_PLAN_V_GRAD_ACCUM]));
  row (s, o, _("tokens/step"), NK_PLAN_V_TOKENS_PER_STEP, nk_plan_format_formula ("%N", v[NK_PLAN_V_TOKENS_PER_STEP]));
  if (r->has[NK_PLAN_V_STEPS])
    row (s, o, _("steps"), NK_PLAN_V_STEPS, nk_plan_format_formula ("%N", v[NK_PLAN_V_STEPS]));
  row (s, o, _("nodes"), NK_PLAN_V_NODES, nk_plan_format_formula ("%N", v[NK_PLAN_V_NODES]));
  if (r->has[NK_PLAN_V_DEADLINE_GPUS])
    row (s, o, _("for the deadline"), NK_PLAN_V_DEADLINE_GPUS,
         isfinite (v[NK_PLAN_V_DEADLINE_GPUS]) ? nk_plan_format_formula (_("%N GPUs"), v[NK_PLAN_V_DEADLINE_GPUS])
                                               : g_strdup ("—"));
  if (r->tp_crosses_nodes)
    nk_plan_format_row (s, _("warning"), "TP", _("TP is larger than the NVLink domain: its all-reduces cross the network"));
  g_string_append (s, _("Most loaded GPU\n"));
  row (s, o, _("activations/layer"), NK_PLAN_V_ACT_LAYER, nk_plan_format_bytes (v[NK_PLAN_V_ACT_LAYER]));
  row (s, o, _("activations"), NK_PLAN_V_MAX_ACT, nk_plan_format_bytes (v[NK_PLAN_V_MAX_ACT]));
  if (nk_plan_inputs_get_recipe (inputs) != NK_PLAN_RECIPE_NONE)
    row (s, o, _("low-precision copies"), NK_PLAN_V_MAX_LOWP, nk_plan_format_bytes (v[NK_PLAN_V_MAX_LOWP]));
  if (inputs->layout[NK_PLAN_L_EXPERTS] > 0)
    row (s, o, _("routed experts"), NK_PLAN_V_MAX_EXPERT_PARAMS,
         nk_plan_format_bytes (v[NK_PLAN_V_MAX_EXPERT_PARAMS] + v[NK_PLAN_V_MAX_EXPERT_GRADS] + v[NK_PLAN_V_MAX_EXPERT_OPT]));
  row (s, o, _("per GPU (max)"), NK_PLAN_V_MEM_MAX, nk_plan_format_bytes (v[NK_PLAN_V_MEM_MAX]));
  row (s, o, inputs->layout[NK_PLAN_L_CAPACITY] == NK_CAPACITY_USABLE ? _("usable per GPU") : _("datasheet per GPU"),
       inputs->layout[NK_PLAN_L_CAPACITY] == NK_CAPACITY_USABLE ? NK_PLAN_V_USABLE : NK_PLAN_V_CAPACITY,
       nk_plan_format_bytes (v[NK_PLAN_V_CAPACITY]));
  if (!r->has[NK_PLAN_V_T_STEP])
    return;
  g_string_append (s, _("Time per step\n"));
  row (s, o, _("compute"), NK_PLAN_V_T_COMPUTE, nk_plan_format_seconds (v[NK_PLAN_V_T_COMPUTE]));
  row (s, o, _("recompute"), NK_PLAN_V_T_RECOMPUTE, nk_plan_format_seconds (v[NK_PLAN_V_T_RECOMPUTE]));
  row (s, o, _("element-wise"), NK_PLAN_V_T_MEMORY, nk_plan_format_seconds (v[NK_PLAN_V_T_MEMORY]));
  if (nk_plan_inputs_get_recipe (inputs) != NK_PLAN_RECIPE_NONE)
    row (s, o, _("casts"), NK_PLAN_V_T_CAST, nk_plan_format_seconds (v[NK_PLAN_V_T_CAST]));
  row (s, o, _("TP comm"), NK_PLAN_V_T_TP, nk_plan_format_seconds (v[NK_PLAN_V_T_TP]));
  row (s, o, _("DP comm"), NK_PLAN_V_T_DP, nk_plan_format_seconds (v[NK_PLAN_V_T_DP]));
  if (inputs->layout[NK_PLAN_L_EXPERTS] > 0)
    {
      if (inputs->layout[NK_PLAN_L_EP_COMM_OVERLAP])
        {
          row (s, o, _("all-to-all's SMs"), NK_PLAN_V_T_EP, nk_plan_format_seconds (v[NK_PLAN_V_T_EP]));
          nk_plan_format_row (s, _("note"), "EP",
                              _("the expert all-to-alls run hidden under other work; what is left is the compute slowed by the SMs they hold, and any part not covered"));
        }
      else
        {
          row (s, o, _("EP all-to-all"), NK_PLAN_V_T_EP, nk_plan_format_seconds (v[NK_PLAN_V_T_EP]));
          nk_plan_format_row (s, _("note"), "EP",
                              _("the expert all-to-alls are counted exposed: nothing overlaps them (DeepSeek’s DualPipe would hide them)"));
        }
    }
  row (s, o, _("bubble"), NK_PLAN_V_T_BUBBLE, nk_plan_format_seconds (v[NK_PLAN_V_T_BUBBLE]));
  row (s, o, _("step"), NK_PLAN_V_T_STEP, nk_plan_format_seconds (v[NK_PLAN_V_T_STEP]));
  row (s, o, _("tokens/s"), NK_PLAN_V_TOKENS_PER_S, nk_plan_format_formula ("%N", v[NK_PLAN_V_TOKENS_PER_S]));
  if (r->has[NK_PLAN_V_MFU_6N])
    row (s, o, _("MFU (6N)"), NK_PLAN_V_MFU_6N, nk_plan_format_formula ("%N", v[NK_PLAN_V_MFU_6N]));
  row (s, o, _("MFU (model)"), NK_PLAN_V_MFU_MODEL, nk_plan_format_formula ("%N", v[NK_PLAN_V_MFU_MODEL]));
  row (s, o, _("MFU (hardware)"), NK_PLAN_V_MFU_HARDWARE, nk_plan_format_formula ("%N", v[NK_PLAN_V_MFU_HARDWARE]));
}
