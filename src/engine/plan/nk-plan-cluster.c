/* nk-plan-cluster.c: the planner's cluster model: a parallel layout, the most loaded GPU's memory, the time of a step
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs inside nk_plan_compute() when the plan has a transformer shape (layers,
 * d_model, heads), a sequence length and a batch. Every formula cites its
 * source; the report (nk-plan-cluster-report.c) writes each with the numbers.
 *
 * - Shape: GELU models are GPT-2's (learned positions, LayerNorm with bias,
 *   biases on every linear layer); SwiGLU models are Llama's (rotary positions,
 *   RMSNorm, no biases). KV heads below the heads are grouped-query attention.
 * - Memory: parameters, gradients and optimizer state of the stage's layers
 *   divided by TP and sharded by ZeRO over DP; activations per layer as
 *   Korthikanti et al. 2022 (Reducing Activation Recomputation in Large
 *   Transformer Models, section 4), generalized to the activation bytes, GQA and
 *   the FFN; the first 1F1B stage holds PP micro-batches in flight (interleaved:
 *   × (1 + (PP − 1)/(PP · V))).
 * - Time (nk-plan-cluster-time.c): FLOPs at a matmul efficiency, TP all-reduces per layer, the DP
 *   gradient all-reduce or ZeRO-3's gathers (collective times as NVIDIA's
 *   nccl-tests PERFORMANCE.md: all-reduce 2(n − 1)/n · S/B, all-gather and
 *   reduce-scatter (n − 1)/n · S/B), overlapped with the backward pass, and the
 *   pipeline bubble (Narayanan et al. 2021: (PP − 1)/m, interleaved
 *   (PP − 1)/(m · V) of the ideal time).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-plan-compute.h"
#include "nk-plan-compute-private.h"
#include "nk-plan-cluster-private.h"

/* The CUDA context and the libraries' workspaces, before the first tensor: what
 * torch.cuda.mem_get_info() reports missing on an idle H100 with CUDA 12. */
#define CUDA_CONTEXT_BYTES (512.0 * 1048576.0)


/* The experts' part of the shape: an expert is an FFN of width F (the dense
 * FFN's biases when the shape has them); the router is Mixtral's and Qwen3's
 * gate, an E × h matrix without bias (DeepSeek-V3's E-wide correction bias is
 * not counted: it is a buffer the optimizer does not train). */
static void
fill_experts (const NkPlanInputs *in,
              Shape              *m,
              double              attn_params)
{
  const int *x = in->layout;

  m->E = x[NK_PLAN_L_EXPERTS];
  m->K = m->E > 0 ? x[NK_PLAN_L_EXPERTS_PER_TOKEN] : 0;
  m->S = m->E > 0 ? x[NK_PLAN_L_SHARED_EXPERTS] : 0;
  m->F = x[NK_PLAN_L_EXPERT_D_FF] > 0 ? x[NK_PLAN_L_EXPERT_D_FF] : m->d_ff;
  m->imbalance = in->in[NK_PLAN_IN_EXPERT_IMBALANCE] >= 1 ? in->in[NK_PLAN_IN_EXPERT_IMBALANCE] : 1;
  m->n_dense = m->E > 0 ? MIN (x[NK_PLAN_L_DENSE_LAYERS], m->L) : m->L;
  m->n_moe = m->L - m->n_dense;
  m->attn_params = attn_params;
  m->expert_params = m->ffn_mats * m->h * m->F + (m->llama ? 0 : m->F + m->h);
  m->router = m->E * m->h;
  m->moe_params = attn_params + (m->E + m->S) * m->expert_params + m->router;
  m->moe_active = attn_params + (m->K + m->S) * m->expert_params + m->router;
}

/* DeepSeek-V2/V3's multi-head latent attention (DeepSeek-AI 2024, DeepSeek-V2,
 * section 2.1, eqs. 9–19; the layers as Hugging Face's modeling_deepseek.py
 * DeepseekV3Attention builds them, no biases): with a Q rank r_q,
 * q_a_proj h × r_q, q_a_layernorm r_q, q_b_proj r_q × a·(d_n + d_r) (without
 * one, q_proj h × a·(d_n + d_r)); kv_a_proj_with_mqa h × (r_kv + d_r), the
 * latent's kv_a_layernorm r_kv, kv_b_proj r_kv × a·(d_n + d_v); o_proj
 * a·d_v × h. Tensor parallelism keeps the two down-projections whole on every
 * rank and splits the rest by heads (DeepSeek-V3's inference/model.py: wq_a and
 * wkv_a a plain Linear, wq_b and wkv_b column-parallel, wo row-parallel;
 * Megatron-LM's multi_latent_attention.py builds its down-projections
 * "duplicated"). */
static void
fill_mla (const NkPlanInputs *in,
          Shape              *m)
{
  const int *x = in->layout;
  double q;

  m->q_rank = x[NK_PLAN_L_Q_LORA_RANK];
  m->kv_rank = x[NK_PLAN_L_KV_LORA_RANK];
  m->d_nope = x[NK_PLAN_L_QK_NOPE_HEAD_DIM];
  m->d_rope = x[NK_PLAN_L_QK_ROPE_HEAD_DIM];
  m->d_v = x[NK_PLAN_L_V_HEAD_DIM];
  m->core_qk = m->a * (m->d_nope + m->d_rope);
  m->core_v = m->a * m->d_v;
  m->q_width = m->core_v;   /* the output projection's input */
  m->kv = m->a;             /* every head has its K and V, decompressed */
  q = m->q_rank > 0 ? m->h * m->q_rank + m->q_rank * m->core_qk : m->h * m->core_qk;
  m->attn_down = (m->q_rank > 0 ? m->h * m->q_rank : 0) + m->h * (m->kv_rank + m->d_rope);
  m->attn_matrices = q + m->h * (m->kv_rank + m->d_rope) + m->kv_rank * m->a * (m->d_nope + m->d_v)
                     + m->core_v * m->h;
  m->attn_own = m->attn_matrices + m->q_rank + m->kv_rank;
  /* q_a, q_b (or q), kv_a, kv_b, o: each linear's input and output width */
  m->io_attn = (m->q_rank > 0 ? m->h + 2 * m->q_rank + m->core_qk : m->h + m->core_qk)
               + m->h + m->kv_rank + m->d_rope + m->kv_rank + m->a * (m->d_nope + m->d_v) + m->core_v + m->h;
  m->linears_attn = m->q_rank > 0 ? 5 : 4;
}

static void
fill_shape (const NkPlanInputs *in,
            Shape              *m)
{
  const double *x = in->in;
  double kv_width, attn_params, ffn_params;

  m->L = x[NK_PLAN_IN_LAYERS];
  m->h = x[NK_PLAN_IN_D_MODEL];
  m->a = x[NK_PLAN_IN_HEADS];
  m->kv = in->layout[NK_PLAN_L_KV_HEADS] > 0 ? in->layout[NK_PLAN_L_KV_HEADS] : m->a;
  m->swiglu = in->layout[NK_PLAN_L_FFN] == NK_FFN_SWIGLU;
  m->llama = in->layout[NK_PLAN_L_FFN] != NK_FFN_GELU;
  m->ffn_mats = m->swiglu ? 3 : 2;
  m->d_ff = x[NK_PLAN_IN_D_FF] > 0 ? x[NK_PLAN_IN_D_FF] : (m->llama ? 0 : 4 * m->h);
  m->V = x[NK_PLAN_IN_VOCAB] > 0 ? x[NK_PLAN_IN_VOCAB] : 0;
  m->s = x[NK_PLAN_IN_SEQ];
  m->tied = in->layout[NK_PLAN_L_TIED_EMBEDDINGS] != 0;
  {
    const Recipe *recipe = _nk_plan_recipe (nk_plan_inputs_get_recipe (in));

    m->q_act = recipe != NULL ? recipe->bytes + recipe->act_scale : 0;
  }
  m->dropout = in->layout[NK_PLAN_L_DROPOUT] != 0;

  /* without heads, multi-head attention: K and V as wide as Q; --head-dim sets
   * the head's width where it is not h / a (Qwen3: 32 heads of 128 on 2048) */
  m->dh = in->layout[NK_PLAN_L_HEAD_DIM] > 0 ? in->layout[NK_PLAN_L_HEAD_DIM] : m->a > 0 ? m->h / m->a : m->h;
  m->q_width = m->a > 0 ? m->a * m->dh : m->h;
  kv_width = m->a > 0 ? m->kv * m->dh : m->h;
  m->mla = in->layout[NK_PLAN_L_ATTENTION] == NK_ATTENTION_MLA;
  if (m->mla)
    fill_mla (in, m);
  else
    {
      /* Q and the output projection h × a·dh, K and V h × kv·dh; GPT-2's
       * biases of QKV and the projection */
      m->attn_matrices = 2 * m->h * m->q_width + 2 * m->h * kv_width;
      m->attn_own = m->attn_matrices + (m->llama ? 0 : m->q_width + 2 * kv_width + m->h);
      m->core_qk = m->core_v = m->q_width;
      /* the fused QKV (h → q + 2·kv widths) and the output projection */
      m->io_attn = 2 * m->h + 2 * m->q_width + 2 * kv_width;
      m->linears_attn = 2;
    }
  /* the FFN 2 or 3 h × d_ff (GPT-2's with biases d_ff + h); the norms: two
   * RMSNorm weights, or two LayerNorms with weight and bias */
  ffn_params = m->ffn_mats * m->h * m->d_ff + (m->llama ? 0 : m->d_ff + m->h);
  attn_params = m->attn_own + (m->llama ? 2 : 4) * m->h;
  m->layer_matrices = m->attn_matrices + m->ffn_mats * m->h * m->d_ff;
  m->layer_params = attn_params + ffn_params;
  fill_experts (in, m, attn_params);
  /* the FFN's up (and gate, fused) h → (f − 1)·d_ff and down d_ff → h */
  m->io_ffn = 2 * m->h + m->ffn_mats * m->d_ff;
  m->io_expert = 2 * m->h + m->ffn_mats * m->F;
  m->embed = m->V * m->h + (m->llama ? 0 : m->s * m->h);
  m->head = m->tied ? 0 : m->V * m->h;
  m->final_norm = m->llama ? m->h : 2 * m->h;
}

/* Layers on the stages without a typed count: the rest, shared evenly
 * (Megatron-LM's --decoder-first/last-pipeline-num-layers); @shared gets how
 * many stages share it. */
static double
middle_count (const Shape  *m,
              const Layout *l,
              double       *shared)
{
  double typed = (l->first_layers > 0) + (l->last_layers > 0);

  *shared = l->pp - typed;
  return *shared > 0 ? (m->L - l->first_layers - l->last_layers) / *shared : 0;
}

/* The layers of pipeline stage @stage. */
double
_nk_plan_stage_count (const Shape  *m,
                      const Layout *l,
                      int           stage)
{
  double shared;

  if (l->pp > 1 && stage == 0 && l->first_layers > 0)
    return l->first_layers;
  if (l->pp > 1 && stage == l->pp - 1 && l->last_layers > 0)
    return l->last_layers;
  return l->pp > 1 && (l->first_layers > 0 || l->last_layers > 0) ? middle_count (m, l, &shared) : m->L / l->pp;
}

/* The layers of the stage with the most: the pipeline runs at its pace. */
double
_nk_plan_busiest_stage (const Shape  *m,
                        const Layout *l)
{
  double most = 0;

  for (int stage = 0; stage < MIN (l->pp, 3); stage++)
    most = MAX (most, _nk_plan_stage_count (m, l, stage == 2 ? l->pp - 1 : stage));
  return most;
}

/* Dense and MoE layers of pipeline stage @stage: the dense ones lead the model,
 * so they sit on the first stages. */
void
_nk_plan_stage_layers (const Shape  *m,
                       const Layout *l,
                       int           stage,
                       double       *dense,
                       double       *moe)
{
  double layers = _nk_plan_stage_count (m, l, stage);
  double start = stage == 0 ? 0 : stage == l->pp - 1 ? m->L - layers
                 : _nk_plan_stage_count (m, l, 0) + (stage - 1) * layers;

  *dense = CLAMP (m->n_dense - start, 0, layers);
  *moe = layers - *dense;
}

/* Whether the typed first and last stages leave the others whole, equal
 * shares (and need PP > 1). */
static gboolean
stages_split (const Shape  *m,
              const Layout *l)
{
  double shared, middle;

  if (l->first_layers == 0 && l->last_layers == 0)
    return m->L <= 0 || fmod (m->L, l->pp) == 0;
  if (l->pp < 2 || (m->L > 0 && l->first_layers + l->last_layers > m->L))
    return FALSE;
  middle = middle_count (m, l, &shared);
  return m->L <= 0 || (shared > 0 ? middle >= 1 && middle == floor (middle)
                                  : l->first_layers + l->last_layers == m->L);
}

/* ---------------------------------------------------------------- layout */

static gboolean
divides (double d,
         double n)
{
  return d > 0 && fmod (n, d) == 0;
}

/* The first rule the layout breaks, or -1. */
static int
check_layout (const Shape  *m,
              const Layout *l,
              double        gpus)
{
  /* A size not given (0) has no rule to break yet: a layout asked for without
   * the whole shape is still checked against what is known. */
  if ((double) l->tp * l->pp * l->cp * l->dp != gpus)
    return NK_PLAN_RULE_GPUS;
  if (!m->mla && m->a > 0 && m->h > 0 && m->q_width == m->h && !divides (m->a, m->h))
    return NK_PLAN_RULE_HEADS_DMODEL;
  if (m->a > 0 && !divides (m->kv, m->a))
    return NK_PLAN_RULE_HEADS_KV;
  if (m->a > 0 && !divides (l->tp, m->a))
    return NK_PLAN_RULE_HEADS_TP;
  if (m->kv > 0 && !divides (l->tp, m->kv) && !divides (m->kv, l->tp))
    return NK_PLAN_RULE_KV_TP;
  if ((l->first_layers > 0 || l->last_layers > 0) && !stages_split (m, l))
    return NK_PLAN_RULE_STAGE_LAYERS;
  if (m->L > 0 && !stages_split (m, l))
    return NK_PLAN_RULE_LAYERS_PP;
  /* uneven stages: each stage's chunks are its own count over V, as Megatron-LM
   * splits them; not checked here */
  if (m->L > 0 && l->v > 1 && l->first_layers == 0 && l->last_layers == 0
      && !divides ((double) l->pp * l->v, m->L))
    return NK_PLAN_RULE_LAYERS_VIRTUAL;
  if (m->s > 0 && l->cp > 1 && !divides (2.0 * l->cp, m->s))
    return NK_PLAN_RULE_SEQ_CP;
  /* Megatron-Core's MoE parallel folding: the expert layers have their own
   * (ETP, EP, EDP) grid over the same GPUs as the dense layers' (TP, CP, DP),
   * within each pipeline stage, so EP × ETP divides TP × CP × DP and EP may
   * exceed DP (core/parallel_state.py, initialize_model_parallel: "world_size
   * is not divisible by expert_tensor_model_pipeline_parallel size", with
   * ETP × EP × PP; the expert data-parallel group is what is left). EP ranks
   * share the experts. */
  if (m->E > 0 && !divides (l->ep, m->E))
    return NK_PLAN_RULE_EXPERTS_EP;
  if (!divides (l->ep, (double) l->tp * l->dp * l->cp))
    return NK_PLAN_RULE_EP_DP;
  if (!divides ((double) l->ep * l->etp, (double) l->tp * l->dp * l->cp))
    return NK_PLAN_RULE_ETP;
  if (!(l->global > 0))
    return NK_PLAN_RULE_NEEDS_BATCH;
  if (!(l->micro >= 1) || l->micro != floor (l->micro) || !divides (l->micro * l->dp, l->global))
    return NK_PLAN_RULE_BATCH;
  if (l->v > 1 && (l->pp < 2 || !divides (l->pp, l->global / (l->micro * l->dp))))
    return NK_PLAN_RULE_VIRTUAL_PP;
  /* Megatron-Core's CPU offloading (transformer_config.py): fewer layers than
   * the model's, no pipeline, no recompute */
  if (l->offload > 0 && ((m->L > 0 && l->offload >= m->L) || l->pp > 1 || l->recompute != NK_RECOMPUTE_NONE))
    return NK_PLAN_RULE_CPU_OFFLOAD;
  return -1;
}

/* ---------------------------------------------------------------- memory */

/* Adds the activation bytes of one layer for one micro-batch on one GPU, times
 * @times, to @terms (Korthikanti et al. 2022, section 4.1, at @p bytes per value
 * and 1-byte dropout masks): sbh(4p + 2) outside the TP region (two LayerNorm
 * inputs, the QKV and FFN inputs, two masks; divided by t only under sequence
 * parallelism), sbh · p · (2 + 2·kv/a + f·d_ff/h) / t inside it (Q, K, V, the
 * projection's input; the FFN's f = 2 stored values per column for GELU, 3 for
 * SwiGLU's gate, up and product), and a·s²·b(2p + 1)/t for the attention scores
 * (softmax output, dropout output and mask) unless recomputed (selective) or never
 * stored (FlashAttention). Without dropout the masks and the dropout's output are
 * not stored (2·sbh and 3·a·s²·b fewer bytes). Full recompute keeps only the
 * layer's input. A MoE layer (@moe) keeps, for each of the K experts a token
 * goes to, the expert's permuted input (h) and its f·F values (split by ETP),
 * times the imbalance on the busiest GPU, and the shared experts' f·S·F: its
 * FFN term is s·b·p·(K·imb·(h + f·F/etp) + f·S·F)/t, the tokens split over TP
 * as sequence parallelism does (Megatron-LM requires it with EP and TP).
 * Latent attention (DeepSeek-V2, section 2.1) keeps, instead of Q, K and V:
 * the Q and KV latents before and after their RMSNorms, 2·(r_q + r_kv) values
 * a token, outside the TP split (Megatron-LM computes them on every TP rank);
 * Q and K of a·(d_nope + d_rope) and V of a·d_v each, as the attention core
 * takes them, decompressed (the latent spares inference's KV cache, not
 * training's activations: both the latent, input of the up-projection, and
 * the heads it decompresses to, inputs of the core, are saved for the
 * backward); and the core's output, a·d_v. Under a low-precision recipe
 * Transformer Engine saves each linear layer's input as the quantized copy its
 * GEMM took (q bytes a value with its scales, not p): LayerNormLinear's and
 * LayerNormMLP's ln_out, Linear's inputmat (the projection's input), the FFN's
 * act_out (fc2's input) and GroupedLinear's permuted expert inputs; fc1's
 * output stays in p for the activation's backward (TE module/layernorm_mlp.py,
 * linear.py, grouped_linear.py: fc1_input_quantizer / fc2_input_quantizer
 * outputs in save_for_backward). Returns the layer's bytes. */
static double
add_layer_activations (const Shape  *m,
                       const Layout *l,
                       double        p,
                       gboolean      stored_only,
                       gboolean      moe,
                       double        times,
                       double       *terms)
{
  double s = m->s / l->cp, b = l->micro, h = m->h, t = l->tp;
  double sbh = s * b * h, outside = l->sp ? t : 1;
  double q = m->q_act > 0 ? m->q_act : p, f1 = m->ffn_mats - 1;
  double x[NK_ACT_N_TERMS] = { 0 }, sum = 0;

  if (stored_only && l->recompute == NK_RECOMPUTE_FULL)
    x[NK_ACT_TERM_RESIDUAL] = sbh * p / outside;
  else
    {
      x[NK_ACT_TERM_RESIDUAL] = 2 * sbh * p / outside;
      /* ... plus each LayerNorm's saved mean and 1/σ, two fp32 per token (PyTorch's
       * native_layer_norm keeps them; Korthikanti et al. leave them out) */
      x[NK_ACT_TERM_NORM_STATS] = 2 * 2 * 4 * s * b / outside;
      x[NK_ACT_TERM_NORM_OUTPUT] = 2 * sbh * q / outside;
      x[NK_ACT_TERM_DROPOUT] = m->dropout ? 2 * sbh / outside : 0;
      if (m->mla)
        {
          /* the latents before and after their RMSNorms (Q's when it has a
           * rank; their statistics as a LayerNorm's), then Q and K of a·d_qk
           * and V of a·d_v as the attention core takes them */
          double latents = m->q_rank > 0 ? 2 : 1;

          x[NK_ACT_TERM_NORM_STATS] += latents * 2 * 4 * s * b / outside;
          x[NK_ACT_TERM_QKV] = s * b * p * (2 * (m->q_rank + m->kv_rank) / outside
                                            + (2 * m->core_qk + m->core_v) / t);
          x[NK_ACT_TERM_ATTN_OUTPUT] = s * b * q * m->core_v / t;
        }
      else
        {
          x[NK_ACT_TERM_QKV] = sbh * p * (1 + 2 * m->kv / m->a) / t;
          x[NK_ACT_TERM_ATTN_OUTPUT] = sbh * q / t;
        }
      if (moe)
        x[NK_ACT_TERM_MLP] = s * b * (m->K * m->imbalance * (h * q + (f1 * p + q) * m->F / l->etp)
                                      + (f1 * p + q) * m->S * m->F) / t;
      else
        x[NK_ACT_TERM_MLP] = sbh * (f1 * p + q) * m->d_ff / h / t;
      if (l->recompute != NK_RECOMPUTE_SELECTIVE && !l->flash)
        {
          x[NK_ACT_TERM_PROBS] = m->a * s * m->s * b * p / t;
          if (m->dropout)
            x[NK_ACT_TERM_DROPOUT] += m->a * s * m->s * b * (p + 1) / t;
        }
    }
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    {
      if (terms != NULL)
        terms[i] += times * x[i];
      sum += x[i];
    }
  return sum;
}

double
_nk_plan_layer_activations (const Shape  *m,
                            const Layout *l,
                            double        p,
                            gboolean      stored_only,
                            gboolean      moe)
{
  return add_layer_activations (m, l, p, stored_only, moe, 0, NULL);
}

/* Parameters one GPU of a stage holds outside the routed experts (before
 * ZeRO): its layers' matrices divided by TP (norms, biases and the router
 * replicated; shared experts are TP-split like a dense FFN), and the
 * vocabulary-parallel embedding (first stage) or output layer (last stage; a
 * tied head keeps a copy there when PP > 1, as Megatron-LM does). */
double
_nk_plan_stage_params (const Shape  *m,
                       const Layout *l,
                       int           stage)
{
  double dense, moe, shared_matrices = m->S * m->ffn_mats * m->h * m->F;
  gboolean first = stage == 0, last = stage == l->pp - 1;
  double n;

  _nk_plan_stage_layers (m, l, stage, &dense, &moe);
  n = dense * (m->layer_matrices / l->tp + (m->layer_params - m->layer_matrices));
  if (moe > 0)
    n += moe * ((m->attn_matrices + shared_matrices) / l->tp
                + (m->attn_params - m->attn_matrices) + m->S * m->expert_params - shared_matrices + m->router);
  /* latent attention's down-projections are whole on every TP rank */
  n += (dense + moe) * m->attn_down * (1 - 1.0 / l->tp);

  if (first)
    n += m->embed / l->tp;
  if (last)
    n += (m->tied ? (first ? 0 : m->V * m->h) : m->head) / l->tp + m->final_norm;
  return n;
}

/* The routed experts one GPU of a stage holds: E / EP experts of each MoE
 * layer, each split by ETP. */
double
_nk_plan_stage_expert_params (const Shape  *m,
                              const Layout *l,
                              int           stage)
{
  double dense, moe;

  _nk_plan_stage_layers (m, l, stage, &dense, &moe);
  return moe * m->E * m->expert_params / ((double) l->ep * l->etp);
}

/* Megatron-LM's expert data-parallel group: TP × DP × CP / (EP × ETP) ranks
 * hold the same experts (core/parallel_state.py, "expert_data_parallel_size"). */
double
_nk_plan_expert_dp (const Layout *l)
{
  return (double) l->tp * l->dp * l->cp / ((double) l->ep * l->etp);
}

typedef struct {
  double params, grads, opt, act, lowp, total;
  /* the routed experts' share of params, grads and opt */
  double expert_params, expert_grads, expert_opt;
  double act_terms[NK_ACT_N_TERMS];
} StageMemory;

/* What a low-precision recipe keeps beside the bf16 weights: each linear
 * weight quantized twice, row-wise for the forward and column-wise for the
 * backward's data gradient, with its scales (Transformer Engine keeps both
 * for Hopper's FP8 GEMMs, which take K-major operands only, and for
 * Blackwell's block scales, which run along the reduction), sharded as the
 * weights are under ZeRO-3; plus a scale and amax history for each linear's
 * input, weight and output gradient (fp8-tensorwise). */
static double
recipe_memory (const NkPlanInputs *in,
               const Shape        *m,
               const Layout       *l,
               int                 stage)
{
  const Recipe *recipe = _nk_plan_recipe (nk_plan_inputs_get_recipe (in));
  double dense, moe, linears;

  if (recipe == NULL)
    return 0;
  _nk_plan_stage_layers (m, l, stage, &dense, &moe);
  linears = dense * (m->linears_attn + 2)
            + moe * (m->linears_attn + 2 * (m->S + m->E / ((double) l->ep * l->etp)));
  return _nk_plan_linear_weights (m, l, stage) * 2 * (recipe->bytes + recipe->weight_scale)
         / (l->zero >= 3 ? (double) l->dp * l->cp : 1) + 3 * linears * recipe->per_tensor;
}

/* The routed experts' linear weights one GPU of a stage holds (the part of
 * _nk_plan_linear_weights() sharded by the experts' own DP group). */
static double
moe_expert_linear (const Shape  *m,
                   const Layout *l,
                   int           stage)
{
  double dense, moe;

  _nk_plan_stage_layers (m, l, stage, &dense, &moe);
  return moe * m->E * m->ffn_mats * m->h * m->F / ((double) l->ep * l->etp);
}

/* Gradient bytes per parameter: 2 with bf16 gradients in mixed precision (the
 * ZeRO paper's 16 B/param), else 4 (Megatron-LM's fp32 accumulation, or fp32). */
double
_nk_plan_grad_bytes (const NkPlanInputs *in)
{
  return nk_precision_is_mixed (in->precision)
         && in->layout[NK_PLAN_L_GRAD_PRECISION] == NK_GRAD_PRECISION_BF16 ? 2 : 4;
}

static StageMemory
stage_memory (const NkPlanInputs *in,
              const Shape        *m,
              const Layout       *l,
              double              p,
              int                 stage,
              double             *in_flight_out,
              double             *edges_out)
{
  gboolean mixed = nk_precision_is_mixed (in->precision);
  double state = nk_optimizer_state_bytes (in->optimizer);
  gboolean first = stage == 0, last = stage == l->pp - 1;
  double n = _nk_plan_stage_params (m, l, stage);
  double ne = _nk_plan_stage_expert_params (m, l, stage), edp = _nk_plan_expert_dp (l);
  double dense_layers, moe_layers;
  double w = mixed ? 2 : 4;
  double g = _nk_plan_grad_bytes (in);
  double o = state + (mixed ? 4 : 0);
  /* ZeRO shards over the data-parallel ranks with their context-parallel ones:
   * Megatron-Core's distributed optimizer and grad buffers over the DP × CP
   * group (distributed/distributed_data_parallel.py, intra_dp_cp_group);
   * torchtitan's FSDP2 over its dp_shard_cp mesh (parallelize.py) */
  double dp = (double) l->dp * l->cp, m_steps = l->global / (l->micro * l->dp);
  double in_flight, edges = 0;
  double edge[NK_ACT_N_TERMS] = { 0 };
  double sbh = m->s / l->cp * l->micro * m->h;
  StageMemory mem;

  /* ZeRO shards the dense parts over DP, the experts over their own DP group */
  mem.expert_params = ne * w / (l->zero >= 3 ? edp : 1);
  mem.params = n * w / (l->zero >= 3 ? dp : 1) + mem.expert_params;
  /* --fp8-param-gather: the linear weights live only as the recipe's copies
   * (recipe_memory), the 16-bit ones are not kept (Transformer Engine's
   * quantized_model_init under Megatron-Core's --fp8-param-gather) */
  if (in->layout[NK_PLAN_L_FP8_PARAM_GATHER] && _nk_plan_recipe (nk_plan_inputs_get_recipe (in)) != NULL)
    {
      double linear = _nk_plan_linear_weights (m, l, stage);
      double expert_linear = moe_expert_linear (m, l, stage);

      mem.expert_params -= expert_linear * w / (l->zero >= 3 ? edp : 1);
      mem.params -= (linear - expert_linear) * w / (l->zero >= 3 ? dp : 1)
                    + expert_linear * w / (l->zero >= 3 ? edp : 1);
    }
  mem.expert_grads = ne * g / (l->zero >= 2 ? edp : 1);
  mem.expert_opt = ne * o / (l->zero >= 1 ? edp : 1);
  mem.grads = n * g / (l->zero >= 2 ? dp : 1) + mem.expert_grads;
  mem.opt = n * o / (l->zero >= 1 ? dp : 1) + mem.expert_opt;
  _nk_plan_stage_layers (m, l, stage, &dense_layers, &moe_layers);

  /* 1F1B: stage i holds PP − i micro-batches (at most the m there are). */
  in_flight = MIN ((double) (l->pp - stage), m_steps);
  if (first && l->v > 1)
    in_flight *= 1 + (l->pp - 1.0) / (l->pp * (double) l->v);
  /* CPU offloading: Transformer Engine copies the first N layers' saved
   * activations to host memory, so that at most L − N layers' sets are on the
   * GPU at any time (TE docs/features/other_optimizations/cpu_offloading;
   * Megatron-LM's --cpu-offloading-num-layers); the dense layers lead */
  if (l->offload > 0)
    {
      double off_dense = MIN (l->offload, dense_layers);

      moe_layers = MAX (0, moe_layers - (l->offload - off_dense));
      dense_layers -= off_dense;
    }
  memset (mem.act_terms, 0, sizeof mem.act_terms);
  add_layer_activations (m, l, p, TRUE, FALSE, dense_layers * in_flight, mem.act_terms);
  add_layer_activations (m, l, p, TRUE, TRUE, moe_layers * in_flight, mem.act_terms);
  if (l->recompute == NK_RECOMPUTE_FULL)   /* the layer being recomputed */
    add_layer_activations (m, l, p, FALSE, moe_layers > 0, 1, mem.act_terms);
  /* Korthikanti et al. section 4.3: the embedding's dropout mask (first stage,
   * only with dropout; its output is the first layer's input, counted there); the final
   * LayerNorm's input, statistics and output (the output layer's input) and the
   * fp32 logits the cross entropy keeps, 4 · s · b · V (last stage). */
  if (first && m->dropout)
    edge[NK_ACT_TERM_DROPOUT] = in_flight * sbh / l->tp;
  if (last)
    {
      edge[NK_ACT_TERM_RESIDUAL] = sbh * p / l->tp;
      edge[NK_ACT_TERM_NORM_OUTPUT] = sbh * p / l->tp;
      edge[NK_ACT_TERM_NORM_STATS] = 2 * 4 * (m->s / l->cp) * l->micro / l->tp;
      edge[NK_ACT_TERM_LOGITS] = 4 * (m->s / l->cp) * l->micro * m->V / l->tp;
    }
  mem.act = 0;
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    {
      edges += edge[i];
      mem.act_terms[i] += edge[i];
      mem.act += mem.act_terms[i];
    }
  mem.lowp = recipe_memory (in, m, l, stage);
  mem.total = mem.params + mem.grads + mem.opt + mem.act + mem.lowp;
  if (in_flight_out != NULL)
    *in_flight_out = in_flight;
  if (edges_out != NULL)
    *edges_out = edges;
  return mem;
}

/* ---------------------------------------------------------------- one layout */

static void
evaluate (const NkPlanInputs *in,
          const NkPlanResult *r,
          const Shape        *m,
          const Layout       *l,
          Cost               *c)
{
  double *v = c->v;
  double gpus = in->in[NK_PLAN_IN_GPUS], per_node = in->layout[NK_PLAN_L_GPUS_PER_NODE];
  double p = r->act_bytes;
  StageMemory first, last;
  double in_flight, edges;

  for (guint i = 0; i < NK_PLAN_N_VALUES; i++)
    v[i] = NAN;
  c->bandwidth_missing = -1;
  c->rule = check_layout (m, l, gpus);
  c->tp_crosses_nodes = l->tp > _nk_plan_nvlink_reach (in, r->gpu);
  if (c->rule >= 0)
    return;

  v[NK_PLAN_V_LAYOUT_DP] = l->dp;
  v[NK_PLAN_V_LAYOUT_TP] = l->tp;
  v[NK_PLAN_V_LAYOUT_PP] = l->pp;
  v[NK_PLAN_V_LAYOUT_CP] = l->cp;
  v[NK_PLAN_V_LAYOUT_EP] = l->ep;
  v[NK_PLAN_V_LAYOUT_ETP] = l->etp;
  v[NK_PLAN_V_MICRO_BATCH] = l->micro;
  v[NK_PLAN_V_GLOBAL_BATCH] = l->global;
  v[NK_PLAN_V_GRAD_ACCUM] = l->global / (l->micro * l->dp);
  v[NK_PLAN_V_TOKENS_PER_STEP] = l->global * m->s;
  v[NK_PLAN_V_NODES] = ceil (gpus / per_node);
  if (in->in[NK_PLAN_IN_TOKENS] > 0)
    v[NK_PLAN_V_STEPS] = ceil (in->in[NK_PLAN_IN_TOKENS] / v[NK_PLAN_V_TOKENS_PER_STEP]);

  /* The most loaded GPU: the first stage (most micro-batches in flight) or the
   * last (the output layer and its logits). */
  first = stage_memory (in, m, l, p, 0, &in_flight, &edges);
  /* a MoE layer's where the model has them: the layers that decide the memory */
  v[NK_PLAN_V_ACT_LAYER] = _nk_plan_layer_activations (m, l, p, TRUE, m->n_moe > 0);
  v[NK_PLAN_V_ACT_IN_FLIGHT] = in_flight;
  v[NK_PLAN_V_ACT_EDGES] = edges;
  /* the layers whose activations are on the GPU (offloading needs PP 1) */
  v[NK_PLAN_V_ACT_STAGE_LAYERS] = _nk_plan_stage_count (m, l, 0) - l->offload;
  /* the last stage; with a short first stage the second, which holds PP − 1
   * micro-batches of a full share */
  for (guint i = 0; i < 2 && l->pp > 1; i++)
    {
      int stage = i == 0 ? l->pp - 1 : 1;
      double flight;

      if (i == 1 && !(l->first_layers > 0 && l->pp > 2))
        break;
      last = stage_memory (in, m, l, p, stage, &flight, &edges);
      if (last.total > first.total)
        {
          first = last;
          v[NK_PLAN_V_ACT_IN_FLIGHT] = flight;
          v[NK_PLAN_V_ACT_EDGES] = edges;
          v[NK_PLAN_V_ACT_STAGE_LAYERS] = _nk_plan_stage_count (m, l, stage);
        }
    }
  memcpy (c->act_terms, first.act_terms, sizeof c->act_terms);
  v[NK_PLAN_V_MAX_PARAMS] = first.params;
  v[NK_PLAN_V_MAX_GRADS] = first.grads;
  v[NK_PLAN_V_MAX_OPT] = first.opt;
  v[NK_PLAN_V_MAX_ACT] = first.act;
  v[NK_PLAN_V_MAX_LOWP] = first.lowp;
  v[NK_PLAN_V_MAX_EXPERT_PARAMS] = first.expert_params;
  v[NK_PLAN_V_MAX_EXPERT_GRADS] = first.expert_grads;
  v[NK_PLAN_V_MAX_EXPERT_OPT] = first.expert_opt;
  v[NK_PLAN_V_MEM_MAX] = first.total;

  if (r->gpu != NULL && isfinite (r->values[NK_PLAN_V_PEAK]))
    _nk_plan_step_time (in, r->gpu, r->values[NK_PLAN_V_PEAK], m, l, gpus, p, c);
}

static void
layout_from_inputs (const NkPlanInputs *in,
                    Layout             *l)
{
  const int *x = in->layout;
  double gpus = in->in[NK_PLAN_IN_GPUS];

  l->tp = x[NK_PLAN_L_TP];
  l->pp = x[NK_PLAN_L_PP];
  l->cp = x[NK_PLAN_L_CP];
  l->v = x[NK_PLAN_L_VIRTUAL_STAGES];
  l->dp = x[NK_PLAN_L_DP] > 0 ? x[NK_PLAN_L_DP]
          : (int) MAX (1, floor (gpus / ((double) l->tp * l->pp * l->cp)));
  l->sp = x[NK_PLAN_L_SEQUENCE_PARALLEL] != 0;
  l->flash = x[NK_PLAN_L_FLASH_ATTENTION] != 0;
  l->recompute = x[NK_PLAN_L_RECOMPUTE];
  if (l->recompute == NK_RECOMPUTE_NONE && in->checkpointing)
    l->recompute = NK_RECOMPUTE_FULL;
  l->zero = in->zero_stage;
  l->ep = MAX (1, x[NK_PLAN_L_EP]);
  l->first_layers = x[NK_PLAN_L_FIRST_STAGE_LAYERS];
  l->last_layers = x[NK_PLAN_L_LAST_STAGE_LAYERS];
  l->offload = x[NK_PLAN_L_CPU_OFFLOAD_LAYERS];
  l->etp = MAX (1, x[NK_PLAN_L_ETP]);
  l->global = x[NK_PLAN_L_GLOBAL_BATCH] > 0 ? x[NK_PLAN_L_GLOBAL_BATCH] : in->in[NK_PLAN_IN_BATCH];
  l->micro = x[NK_PLAN_L_MICRO_BATCH] > 0 ? x[NK_PLAN_L_MICRO_BATCH] : l->global / l->dp;
}

/* ---------------------------------------------------------------- best layout */

static gboolean
faster (const Cost *candidate,
        const Cost *best,
        double      capacity)
{
  if (candidate->rule >= 0 || !(candidate->v[NK_PLAN_V_MEM_MAX] <= capacity)
      || !isfinite (candidate->v[NK_PLAN_V_T_STEP]))
    return FALSE;
  return best == NULL || candidate->v[NK_PLAN_V_T_STEP] < best->v[NK_PLAN_V_T_STEP];
}

/* Every recompute and ZeRO stage of @l, each through the whole model; keeps
 * the fastest that fits in @best. */
static void
try_memory_choices (const NkPlanInputs *in,
                    const NkPlanResult *r,
                    const Shape        *m,
                    Layout             *l,
                    double              capacity,
                    Layout             *best_layout,
                    Cost               *best,
                    gboolean           *found,
                    gboolean           *any_valid)
{
  Cost c;

  for (int rc = NK_RECOMPUTE_NONE; rc <= NK_RECOMPUTE_FULL; rc++)
    for (int zero = 0; zero <= 3; zero++)
      {
        l->recompute = rc;
        l->zero = zero;
        evaluate (in, r, m, l, &c);
        *any_valid |= c.rule < 0;
        if (faster (&c, *found ? best : NULL, capacity))
          {
            *best = c;
            *best_layout = *l;
            *found = TRUE;
          }
      }
}

/* The experts' grid of @l under Megatron-Core's parallel folding: EP over the
 * divisors of the experts, ETP 1 or TP (Megatron-Core's default,
 * expert_tensor_parallel_size = TP), each pair with EP × ETP dividing TP × CP
 * × DP (the rules evaluate() checks). Other ETPs stay out: the time model
 * prices no collective of the experts' own TP, so a free ETP would win every
 * search. A dense model keeps the EP and ETP it was given. */
static void
try_expert_grids (const NkPlanInputs *in,
                  const NkPlanResult *r,
                  const Shape        *m,
                  Layout             *l,
                  double              capacity,
                  Layout             *best_layout,
                  Cost               *best,
                  gboolean           *found,
                  gboolean           *any_valid)
{
  double fold = (double) l->tp * l->cp * l->dp;

  if (!(m->E > 0))
    {
      try_memory_choices (in, r, m, l, capacity, best_layout, best, found, any_valid);
      return;
    }
  for (int ep = 1; ep <= m->E && ep <= fold; ep++)
    {
      if (!divides (ep, m->E) || !divides (ep, fold))
        continue;
      for (int k = 0; k < (l->tp > 1 ? 2 : 1); k++)
        {
          int etp = k == 0 ? 1 : l->tp;

          if (!divides ((double) ep * etp, fold))
            continue;
          l->ep = ep;
          l->etp = etp;
          try_memory_choices (in, r, m, l, capacity, best_layout, best, found, any_valid);
        }
    }
}

/* The fastest layout that fits: TP over the powers of two within the NVLink
 * domain, PP over the divisors of the layers, micro-batches dividing the
 * per-replica batch, every recompute and ZeRO stage and, with experts, the
 * EP and ETP try_expert_grids() lists; sequence parallelism whenever TP > 1, as
 * Korthikanti et al. recommend. CP and interleaving stay as given. @any_valid
 * says whether any layout kept the rules, fitting or not: when none does, more
 * GPUs are not the answer. */
static gboolean
search_layout (const NkPlanInputs *in,
               const NkPlanResult *r,
               const Shape        *m,
               const Layout       *given,
               double              capacity,
               Layout             *best_layout,
               Cost               *best,
               gboolean           *any_valid)
{
  double gpus = in->in[NK_PLAN_IN_GPUS];
  gboolean found = FALSE;

  *any_valid = FALSE;

  for (int tp = 1; tp <= _nk_plan_nvlink_reach (in, r->gpu) && tp <= gpus; tp *= 2)
    for (int pp = 1; pp <= m->L && (double) tp * pp <= gpus; pp++)
      {
        Layout l = *given;
        double replica_batch;

        if (!divides ((double) tp * pp * given->cp, gpus))
          continue;
        l.pp = pp;
        if (!stages_split (m, &l))
          continue;
        l.tp = tp;
        l.sp = tp > 1;
        l.dp = (int) (gpus / ((double) tp * pp * l.cp));
        replica_batch = l.global / l.dp;
        if (!(replica_batch >= 1) || replica_batch != floor (replica_batch))
          continue;
        for (double micro = 1; micro <= replica_batch && micro <= 64; micro++)
          {
            if (!divides (micro, replica_batch))
              continue;
            l.micro = micro;
            try_expert_grids (in, r, m, &l, capacity, best_layout, best, &found, any_valid);
          }
      }
  return found;
}

/* ---------------------------------------------------------------- deadline */

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The fewest GPUs, in whole nodes, whose layout trains the tokens within the
 * deadline and fits: TP, PP, CP and the micro-batch as used, DP each divisor of
 * the micro-batches per step (the global batch stays), days = tokens / tokens
 * per second of that layout. */
static void
compute_layout_deadline (const NkPlanInputs *in,
                         NkPlanResult       *r,
                         const Shape        *m,
                         const Layout       *used)
{
  double deadline = in->in[NK_PLAN_IN_DEADLINE], tokens = in->in[NK_PLAN_IN_TOKENS];
  double rows = used->global / used->micro, per_node = in->layout[NK_PLAN_L_GPUS_PER_NODE];
  double model = (double) used->tp * used->pp * used->cp;
  double capacity = r->values[NK_PLAN_V_CAPACITY];
  NkPlanInputs at = *in;
  g_autoptr(GArray) divisors = g_array_new (FALSE, FALSE, sizeof (double));

  if (!(deadline > 0) || !(tokens > 0) || !(rows >= 1) || rows > 1e9)
    return;
  for (double d = 1; d * d <= rows; d++)
    if (fmod (rows, d) == 0)
      {
        double pair = rows / d;

        g_array_append_val (divisors, d);
        if (pair != d)
          g_array_append_val (divisors, pair);
      }
  g_array_sort (divisors, compare_doubles);
  for (guint i = 0; i < divisors->len; i++)
    {
      double dp = g_array_index (divisors, double, i), gpus = dp * model, days;
      Layout l = *used;
      Cost c;

      if ((gpus > per_node && fmod (gpus, per_node) != 0) || gpus > G_MAXINT)
        continue;
      at.in[NK_PLAN_IN_GPUS] = gpus;
      l.dp = (int) dp;
      evaluate (&at, r, m, &l, &c);
      days = tokens / c.v[NK_PLAN_V_TOKENS_PER_S] / 86400;
      if (c.rule >= 0 || !(c.v[NK_PLAN_V_MEM_MAX] <= capacity) || !(days <= deadline))
        continue;
      r->values[NK_PLAN_V_DEADLINE_GPUS] = gpus;
      r->values[NK_PLAN_V_DEADLINE_DP] = dp;
      r->values[NK_PLAN_V_DEADLINE_DAYS] = days;
      r->values[NK_PLAN_V_DEADLINE_MEMORY] = c.v[NK_PLAN_V_MEM_MAX];
      break;
    }
  /* computed even when no layout qualifies: then the values stay NAN */
  r->has[NK_PLAN_V_DEADLINE_GPUS] = TRUE;
}

/* ---------------------------------------------------------------- entry */

static const char *const rule_inputs[] = {
  [NK_PLAN_RULE_GPUS] = "gpus",
  [NK_PLAN_RULE_HEADS_DMODEL] = "heads",
  [NK_PLAN_RULE_HEADS_KV] = "kv-heads",
  [NK_PLAN_RULE_HEADS_TP] = "tp",
  [NK_PLAN_RULE_KV_TP] = "tp",
  [NK_PLAN_RULE_LAYERS_PP] = "pp",
  [NK_PLAN_RULE_LAYERS_VIRTUAL] = "virtual-stages",
  [NK_PLAN_RULE_VIRTUAL_PP] = "virtual-stages",
  [NK_PLAN_RULE_SEQ_CP] = "cp",
  [NK_PLAN_RULE_BATCH] = "global-batch",
  [NK_PLAN_RULE_NEEDS_BATCH] = "global-batch",
  [NK_PLAN_RULE_SWIGLU_DFF] = "d-ff",
  [NK_PLAN_RULE_NEEDS_SHAPE] = "layers",
  [NK_PLAN_RULE_MFU_AUTO] = "mfu-auto",
  [NK_PLAN_RULE_GPUS_INT] = "gpus",
  [NK_PLAN_RULE_EXPERTS_K] = "experts-per-token",
  [NK_PLAN_RULE_DENSE_LAYERS] = "dense-layers",
  [NK_PLAN_RULE_EXPERTS_EP] = "ep",
  [NK_PLAN_RULE_EP_DP] = "ep",
  [NK_PLAN_RULE_ETP] = "etp",
  [NK_PLAN_RULE_MLA_DIMS] = "kv-lora-rank",
  [NK_PLAN_RULE_RECIPE_GPU] = "recipe",
  [NK_PLAN_RULE_RECIPE_MIXED] = "recipe",
  [NK_PLAN_RULE_STAGE_LAYERS] = "first-stage-layers",
  [NK_PLAN_RULE_CPU_OFFLOAD] = "cpu-offload-layers",
};

/* The input a person would change: for the GPU product, the degree typed last
 * in the order DP, CP, PP, TP (DP only when given). */
static const char *
rule_input (const NkPlanInputs *in,
            int                 rule)
{
  const int *x = in->layout;

  if (rule != NK_PLAN_RULE_GPUS)
    return rule_inputs[rule];
  if (x[NK_PLAN_L_DP] > 0)
    return "dp";
  if (x[NK_PLAN_L_CP] > 1)
    return "cp";
  if (x[NK_PLAN_L_PP] > 1)
    return "pp";
  return x[NK_PLAN_L_TP] > 1 ? "tp" : "gpus";
}

/* The capacity fits is judged against: the datasheet's bytes (the lecture's
 * convention), or what CUDA reports less the context and the reserve. */
static void
compute_capacity (const NkPlanInputs *in,
                  NkPlanResult       *r)
{
  double *v = r->values;
  double reported;

  if (r->gpu == NULL || !isfinite (r->gpu->memory))
    return;
  reported = isfinite (r->gpu->memory_reported) ? r->gpu->memory_reported : r->gpu->memory;
  v[NK_PLAN_V_REPORTED] = reported;
  v[NK_PLAN_V_USABLE] = (reported - CUDA_CONTEXT_BYTES) * (1 - in->layout[NK_PLAN_L_MEMORY_RESERVE] / 100.0);
  v[NK_PLAN_V_CAPACITY] = in->layout[NK_PLAN_L_CAPACITY] == NK_CAPACITY_USABLE
                          ? v[NK_PLAN_V_USABLE] : r->gpu->memory;
  r->has[NK_PLAN_V_REPORTED] = r->has[NK_PLAN_V_USABLE] = r->has[NK_PLAN_V_CAPACITY] = TRUE;
}

/* A low-precision recipe trains in mixed precision, on a GPU with the units for
 * it; else a problem under "recipe". */
static gboolean
check_recipe (const NkPlanInputs *in,
              NkPlanResult       *r)
{
  NkPlanRecipe recipe = nk_plan_inputs_get_recipe (in);
  int rule = -1;

  if (recipe == NK_PLAN_RECIPE_NONE)
    return TRUE;
  if (!nk_precision_is_mixed (in->precision))
    rule = NK_PLAN_RULE_RECIPE_MIXED;
  else if (r->gpu != NULL && !_nk_plan_recipe_runs_on (recipe, r->gpu))
    rule = NK_PLAN_RULE_RECIPE_GPU;
  if (rule < 0)
    return TRUE;
  nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_inputs[rule], rule);
  return FALSE;
}

/* The shape's own parameter count, whenever layers and d_model are given. */
static void
compute_shape_params (const NkPlanInputs *in,
                      NkPlanResult       *r,
                      Shape              *m)
{
  const double *x = in->in;

  if (!(x[NK_PLAN_IN_LAYERS] > 0 && x[NK_PLAN_IN_D_MODEL] > 0 && x[NK_PLAN_IN_HEADS] >= 0
        && isfinite (x[NK_PLAN_IN_LAYERS] * x[NK_PLAN_IN_D_MODEL] * x[NK_PLAN_IN_D_MODEL])))
    return;
  fill_shape (in, m);
  if (m->llama && !(m->d_ff > 0) && !(m->E > 0 && m->F > 0 && m->n_dense == 0))
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_inputs[NK_PLAN_RULE_SWIGLU_DFF],
                   NK_PLAN_RULE_SWIGLU_DFF);
      return;
    }
  if (m->mla && !(m->kv_rank > 0 && m->d_nope > 0 && m->d_rope > 0 && m->d_v > 0))
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_inputs[NK_PLAN_RULE_MLA_DIMS],
                                  NK_PLAN_RULE_MLA_DIMS);
      return;
    }
  if (m->E > 0 && !(m->K >= 1 && m->K <= m->E))
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_inputs[NK_PLAN_RULE_EXPERTS_K],
                                  NK_PLAN_RULE_EXPERTS_K);
      return;
    }
  if (m->E > 0 && in->layout[NK_PLAN_L_DENSE_LAYERS] >= m->L)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_inputs[NK_PLAN_RULE_DENSE_LAYERS],
                                  NK_PLAN_RULE_DENSE_LAYERS);
      return;
    }
  if (!(m->s > 0) && !m->llama)
    m->embed = m->V * m->h;   /* GPT-2's positions need the sequence length */
  r->values[NK_PLAN_V_SHAPE_PARAMS] = m->n_dense * m->layer_params + m->n_moe * m->moe_params
                                      + m->embed + m->head + m->final_norm;
  r->values[NK_PLAN_V_SHAPE_PARAMS_ACTIVE] = m->n_dense * m->layer_params + m->n_moe * m->moe_active
                                             + m->embed + m->head + m->final_norm;
  r->values[NK_PLAN_V_SHAPE_EMBED] = m->embed + m->head;
  r->values[NK_PLAN_V_SHAPE_LAYER] = m->n_moe > 0 ? m->moe_params : m->layer_params;
  r->values[NK_PLAN_V_SHAPE_ATTENTION] = m->attn_own;
  r->has[NK_PLAN_V_SHAPE_ATTENTION] = TRUE;
  r->has[NK_PLAN_V_SHAPE_PARAMS] = r->has[NK_PLAN_V_SHAPE_EMBED] = r->has[NK_PLAN_V_SHAPE_LAYER] = TRUE;
  r->has[NK_PLAN_V_SHAPE_PARAMS_ACTIVE] = TRUE;
}

/* The first layout input that differs from its default, as its property name,
 * or NULL: a layout was asked for, so a broken rule is the plan's error and a
 * layout that cannot be planned is refused, never dropped. Only the cluster
 * model reads these (the lecture's estimates read --checkpointing, not
 * --recompute). */
static const char *
asked_layout_input (const NkPlanInputs *in)
{
  static const struct { NkPlanLayoutInput which; int unasked; const char *name; } inputs[] = {
    { NK_PLAN_L_TP, 1, "tp" }, { NK_PLAN_L_PP, 1, "pp" }, { NK_PLAN_L_CP, 1, "cp" },
    { NK_PLAN_L_DP, 0, "dp" }, { NK_PLAN_L_VIRTUAL_STAGES, 1, "virtual-stages" },
    { NK_PLAN_L_MICRO_BATCH, 0, "micro-batch" }, { NK_PLAN_L_GLOBAL_BATCH, 0, "global-batch" },
    { NK_PLAN_L_SEQUENCE_PARALLEL, 0, "sequence-parallel" },
    { NK_PLAN_L_RECOMPUTE, NK_RECOMPUTE_NONE, "recompute" },
    { NK_PLAN_L_FLASH_ATTENTION, 0, "flash-attention" }, { NK_PLAN_L_BEST_LAYOUT, 0, "best-layout" },
    { NK_PLAN_L_EP, 1, "ep" }, { NK_PLAN_L_ETP, 1, "etp" },
    { NK_PLAN_L_MFU_AUTO, 0, "mfu-auto" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      int value = in->layout[inputs[i].which];

      /* EP and ETP 0 are 1, as layout_from_inputs reads them */
      if (inputs[i].which == NK_PLAN_L_EP || inputs[i].which == NK_PLAN_L_ETP)
        value = MAX (1, value);
      if (value != inputs[i].unasked)
        return inputs[i].name;
    }
  return NULL;
}

static gboolean
asks_for_layout (const NkPlanInputs *in)
{
  return asked_layout_input (in) != NULL;
}

/* A layout was asked for but the cluster model cannot run: the first rule that
 * what is known already breaks, else what is missing, under the input that
 * asked (MFU auto's own sentence when it alone did). */
static void
refuse_unplanned (const NkPlanInputs *in,
                  NkPlanResult       *r,
                  int                 missing)
{
  const char *asked = asked_layout_input (in);
  double gpus = in->in[NK_PLAN_IN_GPUS];
  Shape m = { 0 };
  Layout l;
  int rule;

  if (asked == NULL || !r->valid)
    return;   /* nothing asked, or a problem already says what is wrong */
  if (gpus > G_MAXINT)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, "gpus", NK_PLAN_RULE_GPUS_INT);
      return;
    }
  fill_shape (in, &m);
  layout_from_inputs (in, &l);
  rule = check_layout (&m, &l, gpus);
  if (rule >= 0 && rule != NK_PLAN_RULE_NEEDS_BATCH)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_input (in, rule), rule);
      return;
    }
  if (g_str_equal (asked, "mfu-auto"))
    missing = NK_PLAN_RULE_MFU_AUTO;
  nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, asked, missing);
}

/* The plan's step on each engine's own FLOP count, as their logs print MFU, so an
 * imported run compares like with like (the counts read in their sources):
 * torchtitan (models/utils.py get_nparams_and_flops) 6·(N − embedding) + 6·L·H·d_head·S;
 * nanoGPT (model.py estimate_mfu) 6·(N − positions) + 12·L·H·Q·T; llm.c (train_gpt2.cu)
 * 6·N + 6·L·C·T. N is the shape's whole count. */
static void
compute_engine_mfus (const NkPlanInputs *in,
                     NkPlanResult       *r,
                     const Shape        *m)
{
  /* a MoE's engines count the parameters a token passes through */
  double n = r->values[NK_PLAN_V_SHAPE_PARAMS_ACTIVE];
  double rate = r->values[NK_PLAN_V_TOKENS_PER_S] / (in->in[NK_PLAN_IN_GPUS] * r->values[NK_PLAN_V_PEAK]);
  double positions = m->llama ? 0 : m->s * m->h;

  r->values[NK_PLAN_V_MFU_TORCHTITAN] = (6 * (n - m->V * m->h - positions) + 6 * m->L * m->h * m->s) * rate;
  r->values[NK_PLAN_V_MFU_NANOGPT] = (6 * (n - positions) + 12 * m->L * m->h * m->s) * rate;
  r->values[NK_PLAN_V_MFU_LLMC] = (6 * n + 6 * m->L * m->h * m->s) * rate;
  r->has[NK_PLAN_V_MFU_TORCHTITAN] = r->has[NK_PLAN_V_MFU_NANOGPT] = r->has[NK_PLAN_V_MFU_LLMC] = TRUE;
}

/**
 * nk_plan_compute_cluster:
 * @inputs: the plan's inputs
 * @result: a result whose peak, GPU and activation bytes are set
 *
 * The shape's parameter count, the capacity, and — with a sequence and a batch —
 * the layout, the most loaded GPU's memory and the time of a step, searched for
 * the fastest layout that fits when #NkPlan:best-layout is set. A broken layout
 * rule, or a bandwidth the time needs and the table lacks, is a problem.
 */
void
nk_plan_compute_cluster (const NkPlanInputs *inputs,
                         NkPlanResult       *result)
{
  NkPlanResult *r = result;
  const double *x = inputs->in;
  Shape m = { 0 };
  Layout l;
  Cost c;

  compute_capacity (inputs, r);
  if (!check_recipe (inputs, r))
    return;
  compute_shape_params (inputs, r, &m);
  if (!(x[NK_PLAN_IN_GPUS] >= 1) || x[NK_PLAN_IN_GPUS] != floor (x[NK_PLAN_IN_GPUS]))
    return;   /* validation has said so */
  if (!r->has[NK_PLAN_V_SHAPE_PARAMS] || !(m.s > 0) || !(m.a > 0))
    {
      refuse_unplanned (inputs, r, NK_PLAN_RULE_NEEDS_SHAPE);
      return;
    }
  /* Degrees, ranks and the batch are ints, as every engine takes them: a count
   * beyond is refused, never a cluster model silently left out. */
  if (x[NK_PLAN_IN_GPUS] > G_MAXINT || x[NK_PLAN_IN_BATCH] > G_MAXINT)
    {
      if (x[NK_PLAN_IN_BATCH] > 0 || inputs->layout[NK_PLAN_L_GLOBAL_BATCH] > 0 || asks_for_layout (inputs))
        nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, x[NK_PLAN_IN_GPUS] > G_MAXINT ? "gpus" : "batch",
                                    NK_PLAN_RULE_GPUS_INT);
      return;
    }
  layout_from_inputs (inputs, &l);
  if (!(l.global > 0))
    {
      refuse_unplanned (inputs, r, NK_PLAN_RULE_NEEDS_BATCH);
      return;
    }

  if (inputs->layout[NK_PLAN_L_BEST_LAYOUT])
    {
      Layout given = l;
      gboolean any_valid;

      if (!search_layout (inputs, r, &m, &given, r->values[NK_PLAN_V_CAPACITY], &l, &c, &any_valid))
        {
          nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_NO_LAYOUT, "best-layout", any_valid ? 0 : 1);
          return;
        }
      r->searched = TRUE;
    }
  else
    evaluate (inputs, r, &m, &l, &c);

  /* A plan that only gives the lecture's batch keeps its answers: a layout it
   * never asked for (8 sequences over 1024 GPUs) is left out, not refused. */
  if (c.rule >= 0 && !asks_for_layout (inputs))
    return;
  if (c.rule >= 0)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_LAYOUT, rule_input (inputs, c.rule), c.rule);
      return;
    }
  for (guint i = NK_PLAN_V_LAYOUT_DP; i <= NK_PLAN_V_MFU_HARDWARE; i++)
    if (i != NK_PLAN_V_REPORTED && i != NK_PLAN_V_USABLE && i != NK_PLAN_V_CAPACITY)
      {
        r->values[i] = c.v[i];
        r->has[i] = !isnan (c.v[i]);
      }
  if (c.bandwidth_missing >= 0)
    {
      nk_plan_result_add_problem (r, NK_PLAN_PROBLEM_NO_BANDWIDTH, c.bandwidth_missing ? "gpus" : "tp",
                   c.bandwidth_missing);
      return;
    }
  if (isfinite (r->values[NK_PLAN_V_TOKENS_PER_S]))
    compute_engine_mfus (inputs, r, &m);
  if (isfinite (r->values[NK_PLAN_V_TOKENS_PER_S]) && x[NK_PLAN_IN_PARAMS] > 0)
    {
      r->values[NK_PLAN_V_MFU_6N] = 6 * _nk_plan_flops_params (inputs, r) * r->values[NK_PLAN_V_TOKENS_PER_S]
                                    / (x[NK_PLAN_IN_GPUS] * r->values[NK_PLAN_V_PEAK]);
      r->has[NK_PLAN_V_MFU_6N] = TRUE;
    }
  r->cluster = TRUE;
  memcpy (r->act_terms, c.act_terms, sizeof r->act_terms);
  r->tp_crosses_nodes = c.tp_crosses_nodes;
  if (r->has[NK_PLAN_V_T_STEP])
    compute_layout_deadline (inputs, r, &m, &l);
  memcpy (r->layout, inputs->layout, sizeof r->layout);
  r->layout[NK_PLAN_L_TP] = l.tp;
  r->layout[NK_PLAN_L_PP] = l.pp;
  r->layout[NK_PLAN_L_CP] = l.cp;
  r->layout[NK_PLAN_L_DP] = l.dp;
  r->layout[NK_PLAN_L_VIRTUAL_STAGES] = l.v;
  r->layout[NK_PLAN_L_SEQUENCE_PARALLEL] = l.sp;
  r->layout[NK_PLAN_L_RECOMPUTE] = l.recompute;
  r->layout[NK_PLAN_L_MICRO_BATCH] = (int) l.micro;
  r->layout[NK_PLAN_L_GLOBAL_BATCH] = (int) l.global;
  r->layout[NK_PLAN_L_NVLINK_DOMAIN] = (int) _nk_plan_nvlink_reach (inputs, r->gpu);
  r->layout[NK_PLAN_L_EP] = l.ep;
  r->layout[NK_PLAN_L_ETP] = l.etp;
  r->zero_stage = l.zero;
}
