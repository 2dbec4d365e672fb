/* nk-plan-cluster-private.h: what the cluster model's layout, memory and time files share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk-plan-cluster.c holds the shape, the layout rules, the memory and the
 * search; nk-plan-cluster-time.c the time of a step. Both read these structs.
 */
#pragma once

#include "nk-plan-compute.h"

G_BEGIN_DECLS

/* The model's shape, with defaults filled in. A mixture-of-experts layer
 * (every layer after the first n_dense) replaces the FFN by E routed experts of
 * width F, K of them per token, S shared experts always on, and a router. */
typedef struct {
  double   L, h, a, kv, d_ff, V, s;
  double   dh;               /* the attention head's width */
  double   q_width;          /* a · dh: Q's and the output projection's width */
  gboolean swiglu, tied, dropout;
  gboolean llama;            /* SwiGLU or ReLU²: rotary, RMSNorm, no biases */
  double   ffn_mats;         /* matrices of an FFN: 3 with a gate, else 2 */
  double   layer_matrices;   /* weights of a dense layer's matmuls */
  double   layer_params;     /* plus its norms and biases */
  double   embed;            /* V · h (and GPT-2's s · h positions) */
  double   head;             /* V · h when untied */
  double   final_norm;
  /* experts (E = 0: a dense model) */
  double   E, K, S, F, imbalance;
  double   n_dense, n_moe;   /* dense and MoE layers */
  double   attn_params;      /* a layer's attention and norms, biases included */
  double   attn_matrices;
  /* latent attention (MLA): ranks and head widths; attention's own params
   * (matrices and biases or latent norms), the down-projections every TP rank
   * holds whole, and the attention core's Q·K and V widths summed over heads */
  gboolean mla;
  double   q_rank, kv_rank, d_nope, d_rope, d_v;
  double   attn_own, attn_down, core_qk, core_v;
  /* the linear layers' input + output widths a token passes (what a recipe
   * quantizes), and how many linear layers: attention's, a dense FFN's, an
   * expert's */
  double   io_attn, io_ffn, io_expert;
  double   linears_attn;
  double   expert_params;    /* one expert's FFN (its biases too) */
  double   router;           /* E · h, no bias */
  double   moe_params;       /* a MoE layer, every expert */
  double   moe_active;       /* a MoE layer as one token passes it: K + S experts */
  double   q_act;            /* bytes of a saved linear input under a recipe (its
                              * low-precision value and scale); 0: none */
} Shape;

/* One evaluation of a layout: what the search varies. */
typedef struct {
  int      tp, pp, cp, dp, v, zero, ep, etp;
  int      first_layers, last_layers;   /* 0: an even share */
  int      offload;                     /* layers whose activations go to host memory */
  double   micro, global;
  gboolean sp, flash;
  NkRecompute recompute;
} Layout;

/* What one layout costs: the figures the result keeps. */
typedef struct {
  double v[NK_PLAN_N_VALUES];
  double act_terms[NK_ACT_N_TERMS];   /* the most loaded GPU's activations, by term */
  int    rule;   /* -1: a valid layout */
  gboolean tp_crosses_nodes;
  int    bandwidth_missing;   /* -1, 0 NVLink, 1 network */
} Cost;

/* nk-plan-cluster.c */
double  _nk_plan_stage_count         (const Shape        *m,
                                      const Layout       *l,
                                      int                 stage);
double  _nk_plan_busiest_stage       (const Shape        *m,
                                      const Layout       *l);
void    _nk_plan_stage_layers        (const Shape        *m,
                                      const Layout       *l,
                                      int                 stage,
                                      double             *dense,
                                      double             *moe);
double  _nk_plan_layer_activations   (const Shape        *m,
                                      const Layout       *l,
                                      double              p,
                                      gboolean            stored_only,
                                      gboolean            moe);
double  _nk_plan_stage_params        (const Shape        *m,
                                      const Layout       *l,
                                      int                 stage);
double  _nk_plan_stage_expert_params (const Shape        *m,
                                      const Layout       *l,
                                      int                 stage);
double  _nk_plan_expert_dp           (const Layout       *l);
double  _nk_plan_grad_bytes          (const NkPlanInputs *in);

/* nk-plan-cluster-time.c */
/* A low-precision recipe's facts (nk-plan-cluster-time.c's table): the peak its
 * linear layers run at, bytes per quantized element, scale bytes per
 * activation and per weight element, and bytes per tensor (a scale and an
 * amax history). */
typedef struct {
  NkPeakDtype dtype;
  double      bytes, act_scale, weight_scale, per_tensor;
} Recipe;

double  _nk_plan_moe_permute_bytes   (const Shape        *m,
                                      const Layout       *l,
                                      double              p);
double  _nk_plan_gpu_matmul_efficiency (const NkPlanInputs *in,
                                       const NkGpu        *gpu);
const Recipe *_nk_plan_recipe        (NkPlanRecipe        recipe);
gboolean _nk_plan_recipe_runs_on     (NkPlanRecipe        recipe,
                                      const NkGpu        *gpu);
double  _nk_plan_linear_weights      (const Shape        *m,
                                      const Layout       *l,
                                      int                 stage);
double  _nk_plan_nvlink_reach        (const NkPlanInputs *in,
                                      const NkGpu        *gpu);
void    _nk_plan_step_time           (const NkPlanInputs *in,
                                      const NkGpu        *gpu,
                                      double              peak,
                                      const Shape        *m,
                                      const Layout       *l,
                                      double              gpus,
                                      double              p,
                                      Cost               *c);

G_END_DECLS
