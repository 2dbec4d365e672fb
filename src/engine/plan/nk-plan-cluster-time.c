/* nk-plan-cluster-time.c: the cluster model's time of a step: matmuls, element-wise passes, collectives, the bubble
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every formula cites its source; nk-plan-cluster-report.c writes each with the
 * numbers. Collective times as NVIDIA's nccl-tests PERFORMANCE.md: all-reduce
 * 2(n − 1)/n · S/B, all-gather and reduce-scatter (n − 1)/n · S/B; the
 * pipeline bubble as Narayanan et al. 2021.
 */
#include "config.h"

#include <math.h>

#include "nk-plan-compute.h"
#include "nk-plan-cluster-private.h"

/* The fraction of the dense peak a training step's matmuls reach end to end
 * (kernel launches, small and skinny GEMMs, the optimizer step and all; cuBLAS
 * alone reaches 0.8–0.9 on large square bf16 GEMMs). Calibrated: 0.56 puts all
 * 32 published runs of benchmarks/plan-calibration.tsv (Narayanan et al. 2021
 * Tables 1–2, Korthikanti et al. 2022 Table 5, A100 80 GB) within −20 %/+25 %,
 * median predicted/published 0.97 (0.55: 32, 0.60: 30, 0.80: 6 of 32); see
 * README's calibration table. */
#define CALIBRATED_MATMUL_EFFICIENCY 0.56

/* The same fit as a fraction of the best measured matmul rate (the GPU
 * table's achievable column): every calibration run is on an A100, whose best
 * bf16 matmul reaches 271.2 of its 312 TFLOP/s (Stas Bekman's table, cited in
 * gpus.json), so 0.56 of the A100's peak is 0.56 / (271.2 / 312) = 0.644 of
 * what an A100 measurably reaches. What the software stack loses (launches,
 * small GEMMs, synchronisation) is a fraction of the ceiling; the ceiling is
 * the GPU's: an H100 reaches 80.3 % of its bf16 peak, a B200 77.6 %, a GB200
 * 72.9 %, an MI300X 51.1 %. The 32 fitted rows keep their predictions
 * exactly. */
#define CALIBRATED_ACHIEVABLE_FRACTION (CALIBRATED_MATMUL_EFFICIENCY / (271.2e12 / 312e12))

/**
 * nk_plan_matmul_efficiency:
 * @inputs: the plan's inputs
 *
 * The fraction of the peak a large matmul reaches in the cluster model's compute
 * time on the GPU the efficiency was calibrated on. The default, 0.56,
 * reproduces 32 published Megatron-LM runs on A100s
 * (benchmarks/plan-calibration.tsv) with a median predicted/published time of
 * 0.97; on other GPUs the time model scales it by their measured ceilings
 * (the GPU table's achievable rates).
 *
 * Returns: the matmul efficiency the time model uses: #NkPlan:matmul-efficiency
 *   when set, else the calibrated default
 */
double
nk_plan_matmul_efficiency (const NkPlanInputs *inputs)
{
  double typed = inputs->in[NK_PLAN_IN_EFFICIENCY];

  return typed > 0 && typed <= 1 ? typed : CALIBRATED_MATMUL_EFFICIENCY;
}

/* The fraction of @gpu's peak in the plan's dtype that the step's matmuls
 * reach: the typed #NkPlan:matmul-efficiency as it is, else the calibrated
 * fraction of the GPU's measured ceiling in that dtype, else (no measurement,
 * or sparse peaks) the fraction of the peak calibrated on A100s. */
double
_nk_plan_gpu_matmul_efficiency (const NkPlanInputs *in,
                                const NkGpu        *gpu)
{
  double typed = in->in[NK_PLAN_IN_EFFICIENCY];
  double achievable, peak;

  if (typed > 0 && typed <= 1)
    return typed;
  if (gpu == NULL || in->sparse || in->dtype < 0 || in->dtype >= NK_PEAK_N_DTYPES)
    return CALIBRATED_MATMUL_EFFICIENCY;
  achievable = nk_gpu_get_achievable (gpu, in->dtype);
  peak = nk_gpu_get_peak (gpu, in->dtype, FALSE);
  if (!isfinite (achievable) || !isfinite (peak) || peak <= 0)
    return CALIBRATED_MATMUL_EFFICIENCY;
  return CALIBRATED_ACHIEVABLE_FRACTION * achievable / peak;
}

/* ---------------------------------------------------------------- recipes */

/* Each recipe's facts, one row each (the formats' own sources in #NkPlanRecipe):
 * fp8-tensorwise: E4M3/E5M2, one fp32 scale and Transformer Engine's default
 * amax history of 1024 fp32 per tensor (DelayedScaling(amax_history_len=1024));
 * fp8-blockwise: E4M3, fp32 scales per 1 × 128 activation tile (4/128 B an
 * element) and 128 × 128 weight block (4/16384 B); mxfp8: E4M3, an E8M0 byte
 * per 32 (1/32 B); nvfp4: E2M1 (half a byte), an E4M3 byte per 16 (1/16 B) and
 * an fp32 scale per tensor. */
static const Recipe recipes[] = {
  [NK_PLAN_RECIPE_FP8_TENSORWISE] = { NK_PEAK_FP8, 1, 0, 0, 4 + 4 + 1024 * 4 },
  [NK_PLAN_RECIPE_FP8_BLOCKWISE] = { NK_PEAK_FP8, 1, 4.0 / 128, 4.0 / (128 * 128), 0 },
  [NK_PLAN_RECIPE_MXFP8] = { NK_PEAK_FP8, 1, 1.0 / 32, 1.0 / 32, 0 },
  [NK_PLAN_RECIPE_NVFP4] = { NK_PEAK_FP4, 0.5, 1.0 / 16, 1.0 / 16, 4 },
};

/**
 * nk_plan_inputs_get_recipe:
 * @inputs: the plan's inputs
 *
 * The low-precision recipe the cluster model runs (#NkPlan:recipe; the
 * trainer's mxfp8 and nvfp4 precisions are this recipe to the planner, whose
 * #NkPlan:precision takes fp32 and mixed only).
 *
 * Returns: the recipe, %NK_PLAN_RECIPE_NONE for none
 */
NkPlanRecipe
nk_plan_inputs_get_recipe (const NkPlanInputs *inputs)
{
  return inputs->layout[NK_PLAN_L_RECIPE];
}

/* The row of @recipe, or NULL for none. */
const Recipe *
_nk_plan_recipe (NkPlanRecipe recipe)
{
  return recipe > NK_PLAN_RECIPE_NONE && recipe < G_N_ELEMENTS (recipes) ? &recipes[recipe] : NULL;
}

/* Whether @gpu has the units: FP8 recipes an fp8 peak in the table (Hopper,
 * Ada, CDNA 3 and later); MXFP8 block-scaled units, which come with the FP4
 * units (NVIDIA Blackwell's fifth-generation tensor cores, AMD CDNA 4: the
 * table's fp4 peak); NVFP4 NVIDIA's Blackwell only (AMD's FP4 is MXFP4). */
gboolean
_nk_plan_recipe_runs_on (NkPlanRecipe  recipe,
                         const NkGpu  *gpu)
{
  gboolean fp4 = isfinite (nk_gpu_get_peak (gpu, NK_PEAK_FP4, FALSE));

  switch (recipe)
    {
    case NK_PLAN_RECIPE_FP8_TENSORWISE:
    case NK_PLAN_RECIPE_FP8_BLOCKWISE:
      return isfinite (nk_gpu_get_peak (gpu, NK_PEAK_FP8, FALSE));
    case NK_PLAN_RECIPE_MXFP8:
      return fp4;
    case NK_PLAN_RECIPE_NVFP4:
      return fp4 && g_str_has_prefix (gpu->name, "NVIDIA");
    case NK_PLAN_RECIPE_NONE:
    default:
      return TRUE;
    }
}

/* The linear layers' weights one GPU of stage @stage holds (what a recipe
 * quantizes): its layers' matrices over TP, the routed experts over EP × ETP;
 * not the embedding, and not the output layer, which stays in bf16. */
double
_nk_plan_linear_weights (const Shape  *m,
                         const Layout *l,
                         int           stage)
{
  double dense, moe;

  _nk_plan_stage_layers (m, l, stage, &dense, &moe);
  return (dense * m->layer_matrices + moe * (m->attn_matrices + m->S * m->ffn_mats * m->h * m->F)) / l->tp
         + moe * m->E * m->ffn_mats * m->h * m->F / ((double) l->ep * l->etp);
}

/* How much longer a FLOP takes at @recipe's peak than at @peak, with the
 * measured ceilings where the table has both (the best dense matmul at fp8 over
 * its peak against the same at bf16: an H100 reaches 71 % of its fp8 peak and
 * 80 % of its bf16 one, so the efficiency calibrated on bf16 runs is scaled by
 * 0.71/0.80 at fp8); 1 at fp4, where no measurement is published. */
static double
recipe_seconds_per_flop (const Recipe *recipe,
                         const NkGpu  *gpu,
                         double        peak,
                         gboolean      typed_efficiency)
{
  double lp = nk_gpu_get_peak (gpu, recipe->dtype, FALSE);
  double ceiling = 1;
  double a_lp = nk_gpu_get_achievable (gpu, recipe->dtype), a_bf16 = nk_gpu_get_achievable (gpu, NK_PEAK_BF16);
  double p_bf16 = nk_gpu_get_peak (gpu, NK_PEAK_BF16, FALSE);

  if (!typed_efficiency && isfinite (a_lp) && isfinite (a_bf16) && isfinite (p_bf16))
    ceiling = (a_lp / lp) / (a_bf16 / p_bf16);
  return peak / (lp * ceiling);
}

/* A recipe's quantizing passes, bound by HBM: per micro-batch each linear
 * layer's input and output gradient, s·b/t tokens × (its input + output
 * widths), read in bf16 and written twice quantized (row- and column-wise)
 * with scales: 2 + 2·(bytes + scale) B an element; once a step the GPU's linear
 * weights, 2 + 2·(bytes + weight scale) B each. (Transformer Engine's cast +
 * transpose kernels; Megatron-LM quantizes the weights on the first
 * micro-batch only.) */
static double
recipe_cast_seconds (const Recipe *recipe,
                     const NkGpu  *gpu,
                     const Shape  *m,
                     const Layout *l,
                     double        dense_layers,
                     double        moe_layers)
{
  double micro_steps = l->global / (l->micro * l->dp);
  double tokens = m->s / l->cp * l->micro;
  double io = dense_layers * (m->io_attn + m->io_ffn)
              + moe_layers * (m->io_attn + (m->K * m->imbalance + m->S) * m->io_expert);
  double act = micro_steps * tokens * io / l->tp * (2 + 2 * (recipe->bytes + recipe->act_scale));
  double weights = _nk_plan_linear_weights (m, l, 0) * (2 + 2 * (recipe->bytes + recipe->weight_scale));

  return (act + weights) / gpu->bandwidth;
}

/* How many consecutive ranks NVLink joins: the typed domain, else the table's
 * (72 in an NVL72 rack, 8 on an HGX board) or the node where that is larger
 * (inside a node the table's NVLink rate stands for PCIe too, as before). */
double
_nk_plan_nvlink_reach (const NkPlanInputs *in,
                       const NkGpu        *gpu)
{
  int typed = in->layout[NK_PLAN_L_NVLINK_DOMAIN];

  return typed > 0 ? typed : MAX ((double) gpu->nvlink_domain, in->layout[NK_PLAN_L_GPUS_PER_NODE]);
}

/* Bandwidth of a group of @n GPUs whose neighbours are @stride ranks apart: NVLink
 * when the group fits in one NVLink domain, the network when it spans domains. */
static double
group_bandwidth (const NkPlanInputs *in,
                 const NkGpu        *gpu,
                 double              n,
                 double              stride,
                 Cost               *c)
{
  gboolean in_node = n * stride <= _nk_plan_nvlink_reach (in, gpu);
  double typed = in->in[in_node ? NK_PLAN_IN_NVLINK_BW : NK_PLAN_IN_NETWORK_BW];
  double bw = typed > 0 ? typed : in_node ? gpu->nvlink_bandwidth : gpu->network_bandwidth;

  if (!isfinite (bw) && c->bandwidth_missing < 0)
    c->bandwidth_missing = in_node ? 0 : 1;
  return bw;
}

/* The all-to-all's measured ceiling on NVLink: DeepEP's dispatch and combine
 * kernels reach 726 and 740 GB/s of a B200's 900 GB/s each way at EP 8 (its
 * README, V2, "SM100, EP 8, NVLink", logical bandwidth), and 153 and 158 GB/s
 * of an H800's 200 (docs/legacy.md, V1, intranode EP 8): 0.8 of the link
 * (0.81–0.82 and 0.77–0.79). On the network DeepEP saturates the NIC, so the
 * network's rate stands as it is. */
#define ALL_TO_ALL_NVLINK_FRACTION 0.8

/* The SMs an overlapped all-to-all holds: "only 20 SMs are sufficient to
 * fully utilize the bandwidths of IB and NVLink" of an H800's 132 (DeepSeek-V3
 * technical report, sections 3.2.2 and 3.5.1, for the DualPipe overlap); Megatron's
 * HybridEP recipes reserve 16 to 32 SMs the same way (moe_hybridep_num_sms).
 * While it runs, the computation it hides under has the other 112. */
#define ALL_TO_ALL_SM_FRACTION (20.0 / 132.0)

static double
all_reduce (double n,
            double bytes,
            double bw)
{
  return n > 1 ? 2 * (n - 1) / n * bytes / bw : 0;
}

static double
all_gather (double n,
            double bytes,
            double bw)
{
  return n > 1 ? (n - 1) / n * bytes / bw : 0;
}

/* The share of a token's K copies that crosses the network when the EP group
 * spans @domains NVLink domains: DeepEP's internode dispatch (its README;
 * DeepSeek-V3 section 3.2.2) sends a token once over RDMA to each other domain
 * that holds one of its experts and forwards it there over NVLink, so the
 * network carries one copy per remote domain hit, not one per expert. With
 * balanced routing a token's K experts are K of the E drawn without
 * replacement, E/D in each domain: a domain is missed with probability
 * C(E − E/D, K) / C(E, K), and (D − 1)(1 − that) remote domains are hit. */
static double
network_copies_share (const Shape *m,
                      double       domains)
{
  double per_domain = m->E / domains, missed = 1;

  if (m->E <= 0 || m->K <= 0)
    return 1;
  for (int i = 0; i < (int) m->K; i++)
    missed *= MAX (0, m->E - per_domain - i) / (m->E - i);
  return (domains - 1) * (1 - missed) / m->K;
}

/* One expert all-to-all of @bytes per GPU (the GPU keeps 1/EP of them). In
 * one NVLink domain: (EP − 1)/EP of the bytes at 0.8 of NVLink. Across
 * domains each GPU's peers split by link: the d = ⌊domain / ETP⌋ ranks of
 * its own domain (d − 1 of them others) are reached over NVLink, the rest
 * over the network, both links at once, so the time is the slower share:
 * max(network share · S / network, (d − 1)/EP · S / (0.8 NVLink)). The
 * network share is (EP − d)/EP of the copies sent one by one (NCCL's
 * point-to-point all-to-all); with #NkPlan:deepep at most one copy per
 * remote domain hit (DeepEP's internode kernels, network_copies_share()). */
static double
all_to_all (const NkPlanInputs *in,
            const NkGpu        *gpu,
            const Shape        *m,
            const Layout       *l,
            double              bytes,
            Cost               *c)
{
  double reach = _nk_plan_nvlink_reach (in, gpu);
  double ep = l->ep, local = floor (reach / l->etp);
  double nv_bw, network;

  if (ep * l->etp <= reach)
    return all_gather (ep, bytes, ALL_TO_ALL_NVLINK_FRACTION * group_bandwidth (in, gpu, ep, l->etp, c));
  if (local < 1)
    local = 1;
  nv_bw = local > 1 ? ALL_TO_ALL_NVLINK_FRACTION * group_bandwidth (in, gpu, local, l->etp, c) : INFINITY;
  network = (ep - local) / ep;
  if (in->layout[NK_PLAN_L_DEEPEP])
    network = MIN (network, network_copies_share (m, ep / local));
  return MAX (network * bytes / group_bandwidth (in, gpu, ep, l->etp, c),
              (local - 1) / ep * bytes / nv_bw);
}

/* HBM bytes one forward pass of a MoE layer moves on one GPU for one
 * micro-batch besides its GEMMs and stored activations: Megatron-Core's token
 * dispatcher (megatron/core/transformer/moe/token_dispatcher.py, moe_utils.py)
 * permutes the n = s·b/(CP·TP) tokens of the GPU into K copies grouped by
 * expert (reads n·h, writes K·n·h), with EP > 1 sorts the chunks the
 * all-to-all brought by local expert and back before the combine (two
 * copies, each reading and writing K·n·h), and unpermutes (reads the K·n·h
 * expert outputs, writes the n·h probability-weighted sums), each element of
 * @p bytes, K times the imbalance on the busiest GPU; the router writes n·E
 * fp32 logits, its softmax reads and writes them and its top-k reads them
 * (16·n·E B). Each op's backward is the transposed copy, the same bytes. */
double
_nk_plan_moe_permute_bytes (const Shape  *m,
                            const Layout *l,
                            double        p)
{
  double n = m->s / l->cp * l->micro / l->tp;
  double copies = m->K * m->imbalance;
  double permute = p * n * m->h * (1 + copies), unpermute = p * n * m->h * (copies + 1);
  double sort = l->ep > 1 ? 2 * 2 * p * copies * n * m->h : 0;

  if (m->E <= 0)
    return 0;
  return permute + sort + unpermute + 16 * n * m->E;
}

/* The matmul weights a token passes through in a MoE layer: attention, the
 * router, K routed and S shared experts. */
static double
moe_active_matrices (const Shape *m)
{
  return m->attn_matrices + m->router + (m->K + m->S) * m->ffn_mats * m->h * m->F;
}

/* FLOPs per token: 6 × the matmul weights a token passes through and the output
 * layer (PaLM's 6N, Narayanan et al.'s 72·l·h² + 6·V·h; a MoE layer's active
 * weights: K of its E experts, as torchtitan's and Megatron-LM's MoE counts),
 * plus attention's 6 · L · s · (a·d_qk + a·d_v): QKᵀ 2·s·a·d_qk and AV
 * 2·s·a·d_v forward, twice that backward; multi-head attention's d_qk = d_v =
 * dh gives Narayanan's 12·l·h·s and PaLM's 12·L·H·Q·T; latent attention's
 * d_qk = d_nope + d_rope (DeepSeek-V3: 192) and d_v (128), as the attention
 * core runs on the decompressed heads in training. Recompute adds a forward: full
 * 2N_layers + 4Lsh, selective the 4Lsh of the attention core. */
static void
flops_per_token (const Shape  *m,
                 const Layout *l,
                 double       *model,
                 double       *hardware,
                 double       *linear)
{
  double attention = 6 * m->L * m->s * (m->core_qk + m->core_v);
  double layers = m->n_dense * m->layer_matrices + m->n_moe * moe_active_matrices (m);

  /* what a recipe runs at its peak: the layers' matrices but the router */
  *linear = 6 * (layers - m->n_moe * m->router);
  *model = 6 * (layers + m->V * m->h) + attention;
  *hardware = *model;
  if (l->recompute == NK_RECOMPUTE_FULL)
    *hardware += 2 * layers + attention / 3;
  else if (l->recompute == NK_RECOMPUTE_SELECTIVE)
    *hardware += attention / 3;
}

/* The overlaps, at their bound: with --tp-comm-overlap the TP collectives
 * run chunked under the GEMMs they feed (Transformer Engine's userbuffers,
 * Wang et al. 2023 "Overlap communication with dependent computation"), so
 * only what the step's matmuls (compute and recompute) cannot cover is
 * exposed; with --ep-comm-overlap the all-to-alls of one micro-batch run under
 * another's compute (DeepSeek-V3 report section 3.2.1, DualPipe; Megatron-LM's
 * --overlap-moe-expert-parallel-comm, its 1F1B all-to-all overlap), so only
 * what the rest of the step's work (@ideal, less what already hides TP)
 * cannot cover is exposed, plus the slowdown of that work while the
 * all-to-all holds its SMs. v[T_TP] and v[T_EP] keep what is exposed. */
static void
hide_overlapped (const NkPlanInputs *in,
                 double             *v,
                 double              ideal)
{
  double window = ideal;

  if (in->layout[NK_PLAN_L_TP_COMM_OVERLAP])
    {
      double gemms = v[NK_PLAN_V_T_COMPUTE] + v[NK_PLAN_V_T_RECOMPUTE];
      double hidden = MIN (v[NK_PLAN_V_T_TP], gemms);

      v[NK_PLAN_V_T_TP] -= hidden;
      window -= hidden;
    }
  if (in->layout[NK_PLAN_L_EP_COMM_OVERLAP])
    {
      double hidden = MIN (v[NK_PLAN_V_T_EP], MAX (0, window));

      /* the hidden all-to-all still holds SMs: the work under it runs on the
       * rest, so hiding T costs T · f / (1 − f) */
      v[NK_PLAN_V_T_EP] -= hidden;
      v[NK_PLAN_V_T_EP] += hidden * ALL_TO_ALL_SM_FRACTION / (1 - ALL_TO_ALL_SM_FRACTION);
    }
}

void
_nk_plan_step_time (const NkPlanInputs *in,
                    const NkGpu        *gpu,
                    double              peak,
                    const Shape        *m,
                    const Layout       *l,
                    double              gpus,
                    double              p,
                    Cost               *c)
{
  double *v = c->v;
  double eff = _nk_plan_gpu_matmul_efficiency (in, gpu);
  double tokens = l->global * m->s;
  double micro_steps = l->global / (l->micro * l->dp);
  double comm_bytes = nk_precision_is_mixed (in->precision) ? 2 : 4;
  double layers = _nk_plan_busiest_stage (m, l);   /* per-layer work: the busiest stage's */
  double n_stage = _nk_plan_stage_params (m, l, 0);
  double n_experts = _nk_plan_stage_expert_params (m, l, 0);
  /* uneven stages: the pipeline runs at the pace of the stage with the most
   * layers, so the layers' work of a step takes busiest · PP / L of the
   * balanced time (Megatron-LM's uneven split trades it against the embedding
   * and logits the first and last stages carry, which this does not weigh) */
  double pace = v[NK_PLAN_V_PIPELINE_PACE] = _nk_plan_busiest_stage (m, l) * l->pp / m->L;
  /* the MoE layers of the busiest stage: the dense layers lead the model, so
   * a stage of the busiest's length holds MoE layers only, unless the model
   * has fewer */
  double moe_busiest = MIN (layers, m->n_moe);
  double dense_layers, moe_layers, busiest;
  Layout kept = *l;
  double ideal, window, tp_bw, dp_bw, edp, edp_bw;
  const Recipe *recipe = _nk_plan_recipe (nk_plan_inputs_get_recipe (in));
  double linear, slower = 1, bf16_flops;

  _nk_plan_stage_layers (m, l, 0, &dense_layers, &moe_layers);
  flops_per_token (m, l, &v[NK_PLAN_V_MODEL_FLOPS_TOKEN], &v[NK_PLAN_V_HW_FLOPS_TOKEN], &linear);
  /* the routed experts' GEMMs at the busiest GPU's share: imbalance × K/E of
   * the experts' FLOPs (the step waits for it) */
  busiest = 6 * m->n_moe * (m->imbalance - 1) * m->K * m->ffn_mats * m->h * m->F;
  /* A recipe runs the linear layers' FLOPs at its peak, the rest (attention's
   * core, the output layer, the router) at @peak: in bf16-equivalent FLOPs,
   * rest + linear × its time per FLOP relative to @peak. */
  if (recipe != NULL)
    slower = recipe_seconds_per_flop (recipe, gpu, peak, in->in[NK_PLAN_IN_EFFICIENCY] > 0);
  bf16_flops = v[NK_PLAN_V_MODEL_FLOPS_TOKEN] + busiest - (linear + busiest) * (1 - slower);
  v[NK_PLAN_V_T_COMPUTE] = pace * tokens * bf16_flops / (gpus * peak * eff);
  v[NK_PLAN_V_T_RECOMPUTE] = tokens * (v[NK_PLAN_V_HW_FLOPS_TOKEN] - v[NK_PLAN_V_MODEL_FLOPS_TOKEN])
                             * (bf16_flops / (v[NK_PLAN_V_MODEL_FLOPS_TOKEN] + busiest)) * pace / (gpus * peak * eff);
  v[NK_PLAN_V_T_CAST] = recipe != NULL ? recipe_cast_seconds (recipe, gpu, m, l, dense_layers, moe_layers) : 0;

  /* The element-wise work (LayerNorm, GELU, softmax, dropout, residuals) is
   * bound by memory, not FLOPs: every activation a layer stores is written by
   * the forward, read by the backward and its gradient written there, three
   * passes over the layer's activation bytes (four when recomputed). */
  kept.recompute = NK_RECOMPUTE_NONE;
  v[NK_PLAN_V_ACT_TRAFFIC] = (dense_layers * _nk_plan_layer_activations (m, &kept, p, FALSE, FALSE)
                              + moe_layers * _nk_plan_layer_activations (m, &kept, p, FALSE, TRUE))
                             / (dense_layers + moe_layers);
  v[NK_PLAN_V_T_MEMORY] = micro_steps * layers * (l->recompute == NK_RECOMPUTE_NONE ? 3 : 4)
                          * v[NK_PLAN_V_ACT_TRAFFIC] / gpu->bandwidth;
  /* ... and a MoE layer's token permutations and router, on the busiest stage */
  v[NK_PLAN_V_T_MEMORY] += micro_steps * moe_busiest * (l->recompute == NK_RECOMPUTE_FULL ? 3 : 2)
                           * _nk_plan_moe_permute_bytes (m, l, comm_bytes) / gpu->bandwidth;

  /* Expert parallelism: each MoE layer dispatches every token's K copies to
   * the experts' GPUs and combines them back, forward and backward: 4
   * all-to-alls per layer and micro-batch (6 when full recompute runs the
   * forward again), each sending s·b/t · K · h · bytes per GPU, (EP − 1)/EP of
   * it to other GPUs (nccl-tests' all-to-all), the busiest GPU's share times
   * the imbalance. The EP group's neighbours are ETP ranks apart: NVLink while
   * EP × ETP fits the NVLink domain, the network beyond. Exposed: nothing
   * overlaps them (Megatron-LM's default; DeepSeek's DualPipe hides them). */
  v[NK_PLAN_V_T_EP] = 0;
  if (l->ep > 1 && moe_busiest > 0)
    {
      double bytes = m->s / l->cp * l->micro / l->tp * m->K * m->h * comm_bytes * m->imbalance;

      v[NK_PLAN_V_T_EP] = micro_steps * moe_busiest * (l->recompute == NK_RECOMPUTE_FULL ? 6 : 4)
                          * all_to_all (in, gpu, m, l, bytes, c);
    }

  /* Megatron-LM's TP: two all-reduces forward and two backward per layer (with
   * sequence parallelism an all-gather and a reduce-scatter each, the same
   * bytes), two more when full recompute runs the forward again. */
  tp_bw = l->tp > 1 ? group_bandwidth (in, gpu, l->tp, 1, c) : INFINITY;
  v[NK_PLAN_V_T_TP] = micro_steps * layers * (l->recompute == NK_RECOMPUTE_FULL ? 6 : 4)
                      * all_reduce (l->tp, m->s / l->cp * l->micro * m->h * comm_bytes, tp_bw);

  /* DP: one gradient all-reduce per step (ZeRO-1/2: reduce-scatter plus the
   * parameters' all-gather, the same bytes), hidden behind the last micro-batch's
   * backward; ZeRO-3 gathers the parameters for the forward and the backward,
   * and reduce-scatters the gradients, every micro-batch, hidden behind all
   * compute. DeepSpeed gathers once more for full recompute's forward (it frees
   * them after each forward); PyTorch FSDP recomputes inside the backward with
   * the backward's gather. */
  dp_bw = l->dp > 1 ? group_bandwidth (in, gpu, l->dp, (double) l->tp * l->cp, c) : INFINITY;
  /* the experts' gradients over their own DP group, EP × ETP ranks apart */
  edp = _nk_plan_expert_dp (l);
  edp_bw = n_experts > 0 && edp > 1 ? group_bandwidth (in, gpu, edp, (double) l->ep * l->etp, c) : INFINITY;
  ideal = v[NK_PLAN_V_T_COMPUTE] + v[NK_PLAN_V_T_RECOMPUTE] + v[NK_PLAN_V_T_MEMORY] + v[NK_PLAN_V_T_CAST];
  hide_overlapped (in, v, ideal);
  if (l->zero >= 3)
    {
      double gathers = l->recompute == NK_RECOMPUTE_FULL && !in->layout[NK_PLAN_L_FSDP] ? 3 : 2;

      v[NK_PLAN_V_T_DP] = micro_steps * all_gather (l->dp, n_stage * (gathers * comm_bytes + _nk_plan_grad_bytes (in)), dp_bw);
      if (n_experts > 0)
        v[NK_PLAN_V_T_DP] += micro_steps * all_gather (edp, n_experts * (gathers * comm_bytes + _nk_plan_grad_bytes (in)), edp_bw);
      window = ideal;
    }
  else
    {
      v[NK_PLAN_V_T_DP] = all_reduce (l->dp, n_stage * _nk_plan_grad_bytes (in), dp_bw);
      if (n_experts > 0)
        v[NK_PLAN_V_T_DP] += all_reduce (edp, n_experts * _nk_plan_grad_bytes (in), edp_bw);
      window = ideal / micro_steps * 2 / 3;
    }
  v[NK_PLAN_V_T_DP_EXPOSED] = MAX (0, v[NK_PLAN_V_T_DP] - window);

  /* The bubble: (PP − 1)/(m · V) of the stage's busy time (Narayanan et al. 2021). */
  v[NK_PLAN_V_T_BUBBLE] = (l->pp - 1) / (micro_steps * l->v) * (ideal + v[NK_PLAN_V_T_TP] + v[NK_PLAN_V_T_EP]);
  v[NK_PLAN_V_BUBBLE_FRACTION] = v[NK_PLAN_V_T_BUBBLE]
                                 / (ideal + v[NK_PLAN_V_T_TP] + v[NK_PLAN_V_T_EP] + v[NK_PLAN_V_T_BUBBLE]);
  v[NK_PLAN_V_T_EXPOSED] = v[NK_PLAN_V_T_TP] + v[NK_PLAN_V_T_EP] + v[NK_PLAN_V_T_DP_EXPOSED];
  v[NK_PLAN_V_T_STEP] = ideal + v[NK_PLAN_V_T_EXPOSED] + v[NK_PLAN_V_T_BUBBLE];
  v[NK_PLAN_V_TOKENS_PER_S] = tokens / v[NK_PLAN_V_T_STEP];
  v[NK_PLAN_V_MFU_MODEL] = v[NK_PLAN_V_MODEL_FLOPS_TOKEN] * v[NK_PLAN_V_TOKENS_PER_S] / (gpus * peak);
  v[NK_PLAN_V_MFU_HARDWARE] = v[NK_PLAN_V_HW_FLOPS_TOKEN] * v[NK_PLAN_V_TOKENS_PER_S] / (gpus * peak);
}
