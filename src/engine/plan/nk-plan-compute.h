/* nk-plan-compute.h: the budget planner's arithmetic as a pure function on plain structs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk_plan_compute() validates an #NkPlanInputs and fills an #NkPlanResult: every
 * number #NkPlan shows, which outputs were computed, and what is wrong with the
 * inputs as codes (#NkPlanProblem), never as text. No GObject, no allocation, no
 * translated string: the object (nk-plan.c) holds the inputs as properties, the
 * report (nk-plan-report.h) turns a result into formulas and sentences, and a
 * search loop may call it as often as it likes. nk_plan_inputs_init() gives the
 * object's defaults. The formulas are listed in nk-plan.h.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

#include "nk-activation-terms.h"
#include "nk-gpus.h"
#include "nk-optimizer.h"
#include "nk-precision.h"

G_BEGIN_DECLS

/**
 * NkActivationModel:
 * @NK_ACTIVATION_MODEL_LINEAR: the lecture's deep linear model, B·S·D·L values
 * @NK_ACTIVATION_MODEL_TRANSFORMER: Korthikanti et al. 2022, sbh(34 + 5as/h) per layer
 *
 * How #NkPlan estimates the activation memory (#NkPlan:activation-model).
 */
typedef enum {
  NK_ACTIVATION_MODEL_LINEAR,
  NK_ACTIVATION_MODEL_TRANSFORMER,
} NkActivationModel;

/**
 * NkRecompute:
 * @NK_RECOMPUTE_NONE: every activation kept for the backward pass
 * @NK_RECOMPUTE_SELECTIVE: Korthikanti et al. 2022's selective recompute: the
 *   attention-score term (5·a·s/h) is recomputed, not stored
 * @NK_RECOMPUTE_FULL: only each layer's input is kept (2·s·b·h bytes in 16-bit);
 *   the whole forward pass runs again in the backward
 *
 * Activation recomputation, named as Megatron-LM's --recompute-granularity and
 * torchtitan's [activation_checkpoint] mode.
 */
typedef enum {
  NK_RECOMPUTE_NONE,
  NK_RECOMPUTE_SELECTIVE,
  NK_RECOMPUTE_FULL,
} NkRecompute;

/**
 * NkFfn:
 * @NK_FFN_GELU: two matrices, d → d_ff → d (GPT-2, GPT-3)
 * @NK_FFN_SWIGLU: three matrices, gate and up d → d_ff, down d_ff → d (Llama)
 * @NK_FFN_RELU2: two matrices, d → d_ff → d, with squared ReLU and no gate
 *   (Nemotron-4, Nemotron-H)
 *
 * The feed-forward block of the cluster model's transformer (#NkPlan:ffn), which
 * sets its parameters and FLOPs.
 */
typedef enum {
  NK_FFN_GELU,
  NK_FFN_SWIGLU,
  NK_FFN_RELU2,
} NkFfn;

/**
 * NkAttention:
 * @NK_ATTENTION_MHA: multi-head attention: Q, K and V projections of heads ×
 *   head width (grouped-query with fewer KV heads)
 * @NK_ATTENTION_MLA: DeepSeek-V2/V3's multi-head latent attention: Q through a
 *   low-rank latent of #NkPlan:q-lora-rank (or directly when 0), K and V
 *   decompressed from one latent of #NkPlan:kv-lora-rank, heads of
 *   #NkPlan:qk-nope-head-dim + #NkPlan:qk-rope-head-dim for Q and K and of
 *   #NkPlan:v-head-dim for V (DeepSeek-AI 2024, DeepSeek-V2, section 2.1)
 *
 * The attention block of the cluster model's transformer (#NkPlan:attention),
 * which sets its parameters, FLOPs and stored activations.
 */
typedef enum {
  NK_ATTENTION_MHA,
  NK_ATTENTION_MLA,
} NkAttention;

/**
 * NkPlanRecipe:
 * @NK_PLAN_RECIPE_NONE: every matmul in the #NkPlan:precision's format (bf16 in
 *   mixed precision)
 * @NK_PLAN_RECIPE_FP8_TENSORWISE: Transformer Engine's delayed scaling: the
 *   linear layers' matmuls in FP8 (E4M3 forward, E5M2 gradients) with one fp32
 *   scale per tensor from an amax history (Micikevicius et al. 2022, FP8 Formats
 *   for Deep Learning)
 * @NK_PLAN_RECIPE_FP8_BLOCKWISE: DeepSeek-V3's fine-grained FP8: E4M3 with one
 *   fp32 scale per 1 × 128 activation tile and per 128 × 128 weight block
 *   (DeepSeek-V3 report, section 3.3)
 * @NK_PLAN_RECIPE_MXFP8: OCP MXFP8: E4M3 with one E8M0 scale per 32 elements
 *   along the reduction (OCP Microscaling Formats v1.0)
 * @NK_PLAN_RECIPE_NVFP4: NVIDIA's NVFP4: E2M1 with one E4M3 scale per 16
 *   elements and an fp32 scale per tensor
 *
 * Which format the linear layers' matmuls run in (#NkPlan:recipe): at the
 * format's peak (fp8 or fp4 in the GPU table), attention's core, the output
 * layer and the element-wise work staying in bf16; each recipe keeps its
 * low-precision weight copies and scales and pays its quantizing passes.
 */
typedef enum {
  NK_PLAN_RECIPE_NONE,
  NK_PLAN_RECIPE_FP8_TENSORWISE,
  NK_PLAN_RECIPE_FP8_BLOCKWISE,
  NK_PLAN_RECIPE_MXFP8,
  NK_PLAN_RECIPE_NVFP4,
} NkPlanRecipe;

/**
 * NkGradPrecision:
 * @NK_GRAD_PRECISION_FP32: fp32 gradients beside 16-bit weights: 2 + 4 + 12 = 18 B/param
 *   (Rajbhandari et al. 2019, ZeRO, counts 16 with 16-bit gradients; Megatron-LM's
 *   --accumulate-allreduce-grads-in-fp32 keeps them in fp32)
 * @NK_GRAD_PRECISION_BF16: 16-bit gradients: 2 + 2 + 12 = 16 B/param (ZeRO's K = 12 case)
 *
 * The precision of the gradients in mixed-precision training (#NkPlan:grad-precision).
 */
typedef enum {
  NK_GRAD_PRECISION_FP32,
  NK_GRAD_PRECISION_BF16,
} NkGradPrecision;

/**
 * NkCapacity:
 * @NK_CAPACITY_DATASHEET: the GPU's memory as its datasheet states it
 * @NK_CAPACITY_USABLE: what CUDA reports, minus the CUDA context and a
 *   fragmentation reserve
 *
 * Which memory size a GPU offers the plan (#NkPlan:capacity).
 */
typedef enum {
  NK_CAPACITY_DATASHEET,
  NK_CAPACITY_USABLE,
} NkCapacity;

/**
 * NkPlanLayoutInput:
 * @NK_PLAN_L_TP: #NkPlan:tp
 * @NK_PLAN_L_PP: #NkPlan:pp
 * @NK_PLAN_L_CP: #NkPlan:cp
 * @NK_PLAN_L_DP: #NkPlan:dp
 * @NK_PLAN_L_VIRTUAL_STAGES: #NkPlan:virtual-stages
 * @NK_PLAN_L_SEQUENCE_PARALLEL: #NkPlan:sequence-parallel
 * @NK_PLAN_L_RECOMPUTE: #NkPlan:recompute
 * @NK_PLAN_L_FLASH_ATTENTION: #NkPlan:flash-attention
 * @NK_PLAN_L_GRAD_PRECISION: #NkPlan:grad-precision
 * @NK_PLAN_L_GPUS_PER_NODE: #NkPlan:gpus-per-node
 * @NK_PLAN_L_MICRO_BATCH: #NkPlan:micro-batch
 * @NK_PLAN_L_GLOBAL_BATCH: #NkPlan:global-batch
 * @NK_PLAN_L_KV_HEADS: #NkPlan:kv-heads
 * @NK_PLAN_L_FFN: #NkPlan:ffn
 * @NK_PLAN_L_TIED_EMBEDDINGS: #NkPlan:tied-embeddings
 * @NK_PLAN_L_CAPACITY: #NkPlan:capacity
 * @NK_PLAN_L_MFU_AUTO: #NkPlan:mfu-auto
 * @NK_PLAN_L_BEST_LAYOUT: #NkPlan:best-layout
 * @NK_PLAN_L_MEMORY_RESERVE: #NkPlan:memory-reserve
 * @NK_PLAN_L_FSDP: #NkPlan:fsdp
 * @NK_PLAN_L_NVLINK_DOMAIN: #NkPlan:nvlink-domain
 * @NK_PLAN_L_DROPOUT: #NkPlan:dropout
 * @NK_PLAN_L_HEAD_DIM: #NkPlan:head-dim
 * @NK_PLAN_L_EXPERTS: #NkPlan:experts
 * @NK_PLAN_L_EXPERTS_PER_TOKEN: #NkPlan:experts-per-token
 * @NK_PLAN_L_SHARED_EXPERTS: #NkPlan:shared-experts
 * @NK_PLAN_L_EXPERT_D_FF: #NkPlan:expert-d-ff
 * @NK_PLAN_L_DENSE_LAYERS: #NkPlan:dense-layers
 * @NK_PLAN_L_EP: #NkPlan:ep
 * @NK_PLAN_L_ETP: #NkPlan:etp
 * @NK_PLAN_L_ATTENTION: #NkPlan:attention
 * @NK_PLAN_L_Q_LORA_RANK: #NkPlan:q-lora-rank
 * @NK_PLAN_L_KV_LORA_RANK: #NkPlan:kv-lora-rank
 * @NK_PLAN_L_QK_NOPE_HEAD_DIM: #NkPlan:qk-nope-head-dim
 * @NK_PLAN_L_QK_ROPE_HEAD_DIM: #NkPlan:qk-rope-head-dim
 * @NK_PLAN_L_V_HEAD_DIM: #NkPlan:v-head-dim
 * @NK_PLAN_L_RECIPE: #NkPlan:recipe
 * @NK_PLAN_L_FIRST_STAGE_LAYERS: #NkPlan:first-stage-layers
 * @NK_PLAN_L_LAST_STAGE_LAYERS: #NkPlan:last-stage-layers
 * @NK_PLAN_L_TP_COMM_OVERLAP: #NkPlan:tp-comm-overlap
 * @NK_PLAN_L_EP_COMM_OVERLAP: #NkPlan:ep-comm-overlap
 * @NK_PLAN_L_FP8_PARAM_GATHER: #NkPlan:fp8-param-gather
 * @NK_PLAN_L_CPU_OFFLOAD_LAYERS: #NkPlan:cpu-offload-layers
 * @NK_PLAN_L_DEEPEP: #NkPlan:deepep
 * @NK_PLAN_N_LAYOUT: the number of layout inputs, the length of #NkPlanInputs.layout
 *
 * The integer, boolean and enum inputs of the cluster layout (issue 14), each an
 * #NkPlan property of its own and an index of #NkPlanInputs.layout. A value of 0
 * where the property says "0 = derived" means the plan derives it. The defaults
 * reproduce the single-layout answers of the lecture.
 */
typedef enum {
  NK_PLAN_L_TP,
  NK_PLAN_L_PP,
  NK_PLAN_L_CP,
  NK_PLAN_L_DP,
  NK_PLAN_L_VIRTUAL_STAGES,
  NK_PLAN_L_SEQUENCE_PARALLEL,
  NK_PLAN_L_RECOMPUTE,
  NK_PLAN_L_FLASH_ATTENTION,
  NK_PLAN_L_GRAD_PRECISION,
  NK_PLAN_L_GPUS_PER_NODE,
  NK_PLAN_L_MICRO_BATCH,
  NK_PLAN_L_GLOBAL_BATCH,
  NK_PLAN_L_KV_HEADS,
  NK_PLAN_L_FFN,
  NK_PLAN_L_TIED_EMBEDDINGS,
  NK_PLAN_L_CAPACITY,
  NK_PLAN_L_MFU_AUTO,
  NK_PLAN_L_BEST_LAYOUT,
  NK_PLAN_L_MEMORY_RESERVE,
  NK_PLAN_L_FSDP,
  NK_PLAN_L_NVLINK_DOMAIN,
  NK_PLAN_L_DROPOUT,
  NK_PLAN_L_HEAD_DIM,
  NK_PLAN_L_EXPERTS,
  NK_PLAN_L_EXPERTS_PER_TOKEN,
  NK_PLAN_L_SHARED_EXPERTS,
  NK_PLAN_L_EXPERT_D_FF,
  NK_PLAN_L_DENSE_LAYERS,
  NK_PLAN_L_EP,
  NK_PLAN_L_ETP,
  NK_PLAN_L_ATTENTION,
  NK_PLAN_L_Q_LORA_RANK,
  NK_PLAN_L_KV_LORA_RANK,
  NK_PLAN_L_QK_NOPE_HEAD_DIM,
  NK_PLAN_L_QK_ROPE_HEAD_DIM,
  NK_PLAN_L_V_HEAD_DIM,
  NK_PLAN_L_RECIPE,
  NK_PLAN_L_FIRST_STAGE_LAYERS,
  NK_PLAN_L_LAST_STAGE_LAYERS,
  NK_PLAN_L_TP_COMM_OVERLAP,
  NK_PLAN_L_EP_COMM_OVERLAP,
  NK_PLAN_L_FP8_PARAM_GATHER,
  NK_PLAN_L_CPU_OFFLOAD_LAYERS,
  NK_PLAN_L_DEEPEP,
  NK_PLAN_N_LAYOUT
} NkPlanLayoutInput;

/**
 * NkPlanInput:
 * @NK_PLAN_IN_PARAMS: #NkPlan:params
 * @NK_PLAN_IN_TOKENS: #NkPlan:tokens
 * @NK_PLAN_IN_GPUS: #NkPlan:gpus
 * @NK_PLAN_IN_MFU: #NkPlan:mfu
 * @NK_PLAN_IN_BATCH: #NkPlan:batch
 * @NK_PLAN_IN_SEQ: #NkPlan:seq
 * @NK_PLAN_IN_LAYERS: #NkPlan:layers
 * @NK_PLAN_IN_D_MODEL: #NkPlan:d-model
 * @NK_PLAN_IN_HEADS: #NkPlan:heads
 * @NK_PLAN_IN_D_FF: #NkPlan:d-ff
 * @NK_PLAN_IN_VOCAB: #NkPlan:vocab
 * @NK_PLAN_IN_PRICE: #NkPlan:price
 * @NK_PLAN_IN_DEADLINE: #NkPlan:deadline-days
 * @NK_PLAN_IN_EFFICIENCY: #NkPlan:matmul-efficiency
 * @NK_PLAN_IN_NVLINK_BW: #NkPlan:nvlink-bandwidth
 * @NK_PLAN_IN_NETWORK_BW: #NkPlan:network-bandwidth
 * @NK_PLAN_IN_EXPERT_IMBALANCE: #NkPlan:expert-imbalance
 * @NK_PLAN_N_INPUTS: the number of numeric inputs (17), the length of #NkPlanInputs.in
 *
 * The numeric inputs, each an #NkPlan property of its own (nk_plan_input_name()
 * gives its name) and an index of #NkPlanInputs.in, in the order of the form:
 * validation follows it, so the first problem names the first row a person would fix.
 */
typedef enum {
  NK_PLAN_IN_PARAMS,
  NK_PLAN_IN_TOKENS,
  NK_PLAN_IN_GPUS,
  NK_PLAN_IN_MFU,
  NK_PLAN_IN_BATCH,
  NK_PLAN_IN_SEQ,
  NK_PLAN_IN_LAYERS,
  NK_PLAN_IN_D_MODEL,
  NK_PLAN_IN_HEADS,
  NK_PLAN_IN_D_FF,
  NK_PLAN_IN_VOCAB,
  NK_PLAN_IN_PRICE,
  NK_PLAN_IN_DEADLINE,
  NK_PLAN_IN_EFFICIENCY,
  NK_PLAN_IN_NVLINK_BW,
  NK_PLAN_IN_NETWORK_BW,
  NK_PLAN_IN_EXPERT_IMBALANCE,
  NK_PLAN_N_INPUTS
} NkPlanInput;

/**
 * NkPlanValue:
 * @NK_PLAN_V_TOTAL_FLOPS: #NkPlan:total-flops
 * @NK_PLAN_V_PEAK: #NkPlan:peak-flops-per-gpu
 * @NK_PLAN_V_FLOPS_PER_DAY: #NkPlan:flops-per-day
 * @NK_PLAN_V_DAYS: #NkPlan:days
 * @NK_PLAN_V_GPU_HOURS: #NkPlan:gpu-hours
 * @NK_PLAN_V_COST: #NkPlan:cost
 * @NK_PLAN_V_HBM: #NkPlan:hbm-per-gpu
 * @NK_PLAN_V_BYTES_PER_PARAM: #NkPlan:bytes-per-param
 * @NK_PLAN_V_PARAM_BYTES: #NkPlan:param-bytes
 * @NK_PLAN_V_GRAD_BYTES: #NkPlan:grad-bytes
 * @NK_PLAN_V_OPT_BYTES: #NkPlan:optimizer-bytes
 * @NK_PLAN_V_MEM_PARAMS: #NkPlan:memory-params
 * @NK_PLAN_V_MEM_GRADS: #NkPlan:memory-grads
 * @NK_PLAN_V_MEM_OPT: #NkPlan:memory-optimizer
 * @NK_PLAN_V_MEM_ACT: #NkPlan:memory-activations
 * @NK_PLAN_V_MEM_TOTAL: #NkPlan:memory-total
 * @NK_PLAN_V_MEM_PARAMS_GPU: #NkPlan:memory-params-per-gpu
 * @NK_PLAN_V_MEM_GRADS_GPU: #NkPlan:memory-grads-per-gpu
 * @NK_PLAN_V_MEM_OPT_GPU: #NkPlan:memory-optimizer-per-gpu
 * @NK_PLAN_V_MEM_ACT_GPU: #NkPlan:memory-activations-per-gpu
 * @NK_PLAN_V_MEM_PER_GPU: #NkPlan:memory-per-gpu
 * @NK_PLAN_V_ACT_LINEAR: #NkPlan:activations-linear
 * @NK_PLAN_V_ACT_TRANSFORMER: #NkPlan:activations-transformer
 * @NK_PLAN_V_ACT_TRANSFORMER_CKPT: #NkPlan:activations-transformer-checkpointed
 * @NK_PLAN_V_LARGEST: #NkPlan:largest-params
 * @NK_PLAN_V_GPUS_DEADLINE: #NkPlan:gpus-for-deadline
 * @NK_PLAN_V_SIZED_PARAMS: #NkPlan:sized-params
 * @NK_PLAN_V_SIZED_EMBED: #NkPlan:sized-embedding-params
 * @NK_PLAN_V_SIZED_FWD: #NkPlan:sized-forward-flops-per-token
 * @NK_PLAN_V_SHAPE_PARAMS: #NkPlan:shape-params
 * @NK_PLAN_V_SHAPE_EMBED: #NkPlan:shape-embedding-params
 * @NK_PLAN_V_SHAPE_LAYER: #NkPlan:shape-params-per-layer
 * @NK_PLAN_V_SHAPE_PARAMS_ACTIVE: #NkPlan:shape-params-active
 * @NK_PLAN_V_SHAPE_ATTENTION: #NkPlan:shape-attention-params
 * @NK_PLAN_V_LAYOUT_DP: #NkPlan:layout-dp
 * @NK_PLAN_V_LAYOUT_TP: #NkPlan:layout-tp
 * @NK_PLAN_V_LAYOUT_PP: #NkPlan:layout-pp
 * @NK_PLAN_V_LAYOUT_CP: #NkPlan:layout-cp
 * @NK_PLAN_V_LAYOUT_EP: #NkPlan:layout-ep
 * @NK_PLAN_V_LAYOUT_ETP: #NkPlan:layout-etp
 * @NK_PLAN_V_MICRO_BATCH: #NkPlan:layout-micro-batch
 * @NK_PLAN_V_GLOBAL_BATCH: #NkPlan:layout-global-batch
 * @NK_PLAN_V_GRAD_ACCUM: #NkPlan:grad-accum
 * @NK_PLAN_V_TOKENS_PER_STEP: #NkPlan:tokens-per-step
 * @NK_PLAN_V_STEPS: #NkPlan:steps
 * @NK_PLAN_V_NODES: #NkPlan:nodes
 * @NK_PLAN_V_ACT_LAYER: #NkPlan:activations-per-layer
 * @NK_PLAN_V_ACT_IN_FLIGHT: #NkPlan:micro-batches-in-flight
 * @NK_PLAN_V_ACT_EDGES: #NkPlan:activations-embedding-and-logits
 * @NK_PLAN_V_ACT_STAGE_LAYERS: #NkPlan:activations-stage-layers
 * @NK_PLAN_V_ACT_TRAFFIC: #NkPlan:activation-traffic-per-layer
 * @NK_PLAN_V_MAX_PARAMS: #NkPlan:memory-max-params
 * @NK_PLAN_V_MAX_GRADS: #NkPlan:memory-max-grads
 * @NK_PLAN_V_MAX_OPT: #NkPlan:memory-max-optimizer
 * @NK_PLAN_V_MAX_ACT: #NkPlan:memory-max-activations
 * @NK_PLAN_V_MAX_LOWP: #NkPlan:memory-max-low-precision
 * @NK_PLAN_V_MAX_EXPERT_PARAMS: #NkPlan:memory-max-expert-params
 * @NK_PLAN_V_MAX_EXPERT_GRADS: #NkPlan:memory-max-expert-grads
 * @NK_PLAN_V_MAX_EXPERT_OPT: #NkPlan:memory-max-expert-optimizer
 * @NK_PLAN_V_MEM_MAX: #NkPlan:memory-per-gpu-max
 * @NK_PLAN_V_REPORTED: #NkPlan:memory-reported-per-gpu
 * @NK_PLAN_V_USABLE: #NkPlan:memory-usable-per-gpu
 * @NK_PLAN_V_CAPACITY: #NkPlan:capacity-per-gpu
 * @NK_PLAN_V_MODEL_FLOPS_TOKEN: #NkPlan:model-flops-per-token
 * @NK_PLAN_V_HW_FLOPS_TOKEN: #NkPlan:hardware-flops-per-token
 * @NK_PLAN_V_T_COMPUTE: #NkPlan:time-compute
 * @NK_PLAN_V_T_RECOMPUTE: #NkPlan:time-recompute
 * @NK_PLAN_V_T_MEMORY: #NkPlan:time-memory-bound
 * @NK_PLAN_V_T_CAST: #NkPlan:time-casts
 * @NK_PLAN_V_T_TP: #NkPlan:time-tp-comm
 * @NK_PLAN_V_T_DP: #NkPlan:time-dp-comm
 * @NK_PLAN_V_T_DP_EXPOSED: #NkPlan:time-dp-exposed
 * @NK_PLAN_V_T_EP: #NkPlan:time-ep-comm
 * @NK_PLAN_V_T_BUBBLE: #NkPlan:time-pp-bubble
 * @NK_PLAN_V_T_EXPOSED: #NkPlan:time-exposed-comm
 * @NK_PLAN_V_T_STEP: #NkPlan:time-per-step
 * @NK_PLAN_V_BUBBLE_FRACTION: #NkPlan:bubble-fraction
 * @NK_PLAN_V_PIPELINE_PACE: #NkPlan:pipeline-pace
 * @NK_PLAN_V_TOKENS_PER_S: #NkPlan:tokens-per-s
 * @NK_PLAN_V_MFU_MODEL: #NkPlan:mfu-model
 * @NK_PLAN_V_MFU_HARDWARE: #NkPlan:mfu-hardware
 * @NK_PLAN_V_MFU_6N: #NkPlan:mfu-derived
 * @NK_PLAN_V_MFU_TORCHTITAN: #NkPlan:mfu-torchtitan
 * @NK_PLAN_V_MFU_NANOGPT: #NkPlan:mfu-nanogpt
 * @NK_PLAN_V_MFU_LLMC: #NkPlan:mfu-llmc
 * @NK_PLAN_V_MFU_USED: #NkPlan:mfu-used
 * @NK_PLAN_V_FITS_DP: #NkPlan:fits-data-parallel
 * @NK_PLAN_V_DEADLINE_GPUS: #NkPlan:layout-gpus-for-deadline
 * @NK_PLAN_V_DEADLINE_DP: #NkPlan:layout-dp-for-deadline
 * @NK_PLAN_V_DEADLINE_DAYS: #NkPlan:layout-days-for-deadline
 * @NK_PLAN_V_DEADLINE_MEMORY: #NkPlan:layout-memory-for-deadline
 * @NK_PLAN_V_FITS: the formula slot of #NkPlan:fits, a boolean and so not in
 *   #NkPlanResult.values
 * @NK_PLAN_N_VALUES: the number of numeric outputs, the length of #NkPlanResult.values
 * @NK_PLAN_N_FORMULAS: the number of formulas, the outputs and "fits"; the length of
 *   #NkPlanResult.has
 *
 * The numeric outputs, each a read-only #NkPlan property (nk_plan_value_name()
 * gives its name) and an index of #NkPlanResult.values; %NK_PLAN_V_FITS is a
 * formula slot only, since #NkPlan:fits is a boolean.
 */
typedef enum {
  NK_PLAN_V_TOTAL_FLOPS,
  NK_PLAN_V_PEAK,
  NK_PLAN_V_FLOPS_PER_DAY,
  NK_PLAN_V_DAYS,
  NK_PLAN_V_GPU_HOURS,
  NK_PLAN_V_COST,
  NK_PLAN_V_HBM,
  NK_PLAN_V_BYTES_PER_PARAM,
  NK_PLAN_V_PARAM_BYTES,
  NK_PLAN_V_GRAD_BYTES,
  NK_PLAN_V_OPT_BYTES,
  NK_PLAN_V_MEM_PARAMS,
  NK_PLAN_V_MEM_GRADS,
  NK_PLAN_V_MEM_OPT,
  NK_PLAN_V_MEM_ACT,
  NK_PLAN_V_MEM_TOTAL,
  NK_PLAN_V_MEM_PARAMS_GPU,
  NK_PLAN_V_MEM_GRADS_GPU,
  NK_PLAN_V_MEM_OPT_GPU,
  NK_PLAN_V_MEM_ACT_GPU,
  NK_PLAN_V_MEM_PER_GPU,
  NK_PLAN_V_ACT_LINEAR,
  NK_PLAN_V_ACT_TRANSFORMER,
  NK_PLAN_V_ACT_TRANSFORMER_CKPT,
  NK_PLAN_V_LARGEST,
  NK_PLAN_V_GPUS_DEADLINE,
  NK_PLAN_V_SIZED_PARAMS,
  NK_PLAN_V_SIZED_EMBED,
  NK_PLAN_V_SIZED_FWD,
  /* the cluster model (nk-plan-cluster.c): the model's own shape, a layout,
   * the most loaded GPU's memory and the time of one step */
  NK_PLAN_V_SHAPE_PARAMS,
  NK_PLAN_V_SHAPE_EMBED,
  NK_PLAN_V_SHAPE_LAYER,
  NK_PLAN_V_SHAPE_PARAMS_ACTIVE,
  NK_PLAN_V_SHAPE_ATTENTION,
  NK_PLAN_V_LAYOUT_DP,
  NK_PLAN_V_LAYOUT_TP,
  NK_PLAN_V_LAYOUT_PP,
  NK_PLAN_V_LAYOUT_CP,
  NK_PLAN_V_LAYOUT_EP,
  NK_PLAN_V_LAYOUT_ETP,
  NK_PLAN_V_MICRO_BATCH,
  NK_PLAN_V_GLOBAL_BATCH,
  NK_PLAN_V_GRAD_ACCUM,
  NK_PLAN_V_TOKENS_PER_STEP,
  NK_PLAN_V_STEPS,
  NK_PLAN_V_NODES,
  NK_PLAN_V_ACT_LAYER,
  NK_PLAN_V_ACT_IN_FLIGHT,
  NK_PLAN_V_ACT_EDGES,
  NK_PLAN_V_ACT_STAGE_LAYERS,
  NK_PLAN_V_ACT_TRAFFIC,
  NK_PLAN_V_MAX_PARAMS,
  NK_PLAN_V_MAX_GRADS,
  NK_PLAN_V_MAX_OPT,
  NK_PLAN_V_MAX_ACT,
  NK_PLAN_V_MAX_LOWP,
  /* the routed experts' share of MAX_PARAMS, MAX_GRADS and MAX_OPT */
  NK_PLAN_V_MAX_EXPERT_PARAMS,
  NK_PLAN_V_MAX_EXPERT_GRADS,
  NK_PLAN_V_MAX_EXPERT_OPT,
  NK_PLAN_V_MEM_MAX,
  NK_PLAN_V_REPORTED,
  NK_PLAN_V_USABLE,
  NK_PLAN_V_CAPACITY,
  NK_PLAN_V_MODEL_FLOPS_TOKEN,
  NK_PLAN_V_HW_FLOPS_TOKEN,
  NK_PLAN_V_T_COMPUTE,
  NK_PLAN_V_T_RECOMPUTE,
  NK_PLAN_V_T_MEMORY,
  NK_PLAN_V_T_CAST,
  NK_PLAN_V_T_TP,
  NK_PLAN_V_T_DP,
  NK_PLAN_V_T_DP_EXPOSED,
  NK_PLAN_V_T_EP,
  NK_PLAN_V_T_BUBBLE,
  NK_PLAN_V_T_EXPOSED,
  NK_PLAN_V_T_STEP,
  NK_PLAN_V_BUBBLE_FRACTION,
  NK_PLAN_V_PIPELINE_PACE,
  NK_PLAN_V_TOKENS_PER_S,
  NK_PLAN_V_MFU_MODEL,
  NK_PLAN_V_MFU_HARDWARE,
  NK_PLAN_V_MFU_6N,
  /* the same step's MFU on the FLOP counts other engines print theirs with */
  NK_PLAN_V_MFU_TORCHTITAN,
  NK_PLAN_V_MFU_NANOGPT,
  NK_PLAN_V_MFU_LLMC,
  /* the MFU the days use (typed, or derived with mfu-auto); the lecture's
   * data-parallel view fits (1) or not (0), beside the layout's fits */
  NK_PLAN_V_MFU_USED,
  NK_PLAN_V_FITS_DP,
  /* the fewest whole nodes whose layout meets the deadline and fits */
  NK_PLAN_V_DEADLINE_GPUS,
  NK_PLAN_V_DEADLINE_DP,
  NK_PLAN_V_DEADLINE_DAYS,
  NK_PLAN_V_DEADLINE_MEMORY,
  NK_PLAN_V_FITS,
  NK_PLAN_N_VALUES = NK_PLAN_V_FITS,
  NK_PLAN_N_FORMULAS
} NkPlanValue;

/**
 * NkPlanProblemKind:
 * @NK_PLAN_PROBLEM_NO_VALUE: the input has no value (text that was not a number)
 * @NK_PLAN_PROBLEM_RANGE: a numeric input outside its range
 * @NK_PLAN_PROBLEM_UNKNOWN_GPU: the GPU id is not in the table
 * @NK_PLAN_PROBLEM_DTYPE: a dtype training plans do not use (fp64, int8)
 * @NK_PLAN_PROBLEM_NO_PEAK: the table has no peak for the GPU in the dtype
 * @NK_PLAN_PROBLEM_NO_MEMORY: the table has no memory size for the GPU
 * @NK_PLAN_PROBLEM_ZERO_STAGE: a ZeRO stage outside 0..3
 * @NK_PLAN_PROBLEM_NEEDS_HEADS: the transformer estimate without heads
 * @NK_PLAN_PROBLEM_OVERFLOW: @value is beyond the range of a double
 * @NK_PLAN_PROBLEM_DEADLINE: no plausible GPU count meets the deadline
 * @NK_PLAN_PROBLEM_LAYOUT: a parallel layout breaks a rule (@which: #NkPlanLayoutRule)
 * @NK_PLAN_PROBLEM_NO_BANDWIDTH: the time needs a bandwidth the GPU table lacks
 *   (@which: 0 NVLink, 1 network)
 * @NK_PLAN_PROBLEM_NO_LAYOUT: --best-layout found no layout (@which: 0 none
 *   fits the memory, 1 none multiplies to the GPUs with whole micro-batches)
 *
 * What is wrong with an input, as a code: the report (nk_plan_report_fill())
 * turns each #NkPlanProblem into a translated sentence.
 */
typedef enum {
  NK_PLAN_PROBLEM_NO_VALUE,
  NK_PLAN_PROBLEM_RANGE,
  NK_PLAN_PROBLEM_UNKNOWN_GPU,
  NK_PLAN_PROBLEM_DTYPE,
  NK_PLAN_PROBLEM_NO_PEAK,
  NK_PLAN_PROBLEM_NO_MEMORY,
  NK_PLAN_PROBLEM_ZERO_STAGE,
  NK_PLAN_PROBLEM_NEEDS_HEADS,
  NK_PLAN_PROBLEM_OVERFLOW,
  NK_PLAN_PROBLEM_DEADLINE,
  NK_PLAN_PROBLEM_LAYOUT,
  NK_PLAN_PROBLEM_NO_BANDWIDTH,
  NK_PLAN_PROBLEM_NO_LAYOUT,
} NkPlanProblemKind;

/**
 * NkPlanLayoutRule:
 * @NK_PLAN_RULE_GPUS: TP × PP × CP × DP must equal the GPUs
 * @NK_PLAN_RULE_HEADS_DMODEL: d_model must be a multiple of the heads
 * @NK_PLAN_RULE_HEADS_KV: the heads must be a multiple of the KV heads
 * @NK_PLAN_RULE_HEADS_TP: the heads must be a multiple of TP
 * @NK_PLAN_RULE_KV_TP: KV heads must be a multiple of TP, or divide it
 * @NK_PLAN_RULE_LAYERS_PP: the layers must be a multiple of PP
 * @NK_PLAN_RULE_LAYERS_VIRTUAL: the layers must be a multiple of PP × virtual stages
 * @NK_PLAN_RULE_VIRTUAL_PP: interleaving needs PP > 1 and micro-batches a multiple of PP
 * @NK_PLAN_RULE_SEQ_CP: the sequence must be a multiple of 2 × CP (load-balanced
 *   causal context parallelism, as Megatron-LM and torchtitan split it)
 * @NK_PLAN_RULE_BATCH: the global batch must be a multiple of micro-batch × DP
 * @NK_PLAN_RULE_NEEDS_BATCH: a layout needs a batch (global or micro)
 * @NK_PLAN_RULE_SWIGLU_DFF: a SwiGLU FFN needs its width (never guessed)
 * @NK_PLAN_RULE_NEEDS_SHAPE: a layout needs the transformer's shape (layers,
 *   d_model, heads) and the sequence length
 * @NK_PLAN_RULE_MFU_AUTO: MFU auto needs the step time, so the shape, the
 *   sequence length and the global batch
 * @NK_PLAN_RULE_GPUS_INT: the layout's GPUs (and the batch) must fit the 32-bit
 *   ranks every engine counts with
 * @NK_PLAN_RULE_EXPERTS_K: the experts per token must be from 1 to the experts
 * @NK_PLAN_RULE_DENSE_LAYERS: the leading dense layers must be fewer than the layers
 * @NK_PLAN_RULE_EXPERTS_EP: the experts must be a multiple of EP
 * @NK_PLAN_RULE_EP_DP: EP must divide TP × CP × DP (Megatron-Core's parallel
 *   folding: the experts' grid spans the dense layers' GPUs of each stage)
 * @NK_PLAN_RULE_ETP: EP × ETP must divide TP × DP × CP (Megatron-LM's expert
 *   data-parallel group is TP × DP × CP / (EP × ETP) ranks)
 * @NK_PLAN_RULE_MLA_DIMS: latent attention needs its KV rank and its three head
 *   widths (never guessed)
 * @NK_PLAN_RULE_RECIPE_GPU: the GPU has no units for the recipe (FP8 before
 *   Hopper and Ada, MXFP8 before Blackwell, NVFP4 off NVIDIA's Blackwell)
 * @NK_PLAN_RULE_RECIPE_MIXED: a low-precision recipe trains in mixed precision
 * @NK_PLAN_RULE_STAGE_LAYERS: uneven stages: the first and last stages' layers
 *   need PP > 1 and leave the other stages whole, equal shares (Megatron-LM's
 *   --decoder-first/last-pipeline-num-layers)
 * @NK_PLAN_RULE_CPU_OFFLOAD: CPU offloading: fewer layers offloaded than the
 *   model has, with no pipeline and no recompute (Megatron-Core's
 *   transformer_config.py)
 *
 * The rules of a parallel layout, each as Megatron-LM's arguments.py and
 * torchtitan's ParallelDims check it.
 */
typedef enum {
  NK_PLAN_RULE_GPUS,
  NK_PLAN_RULE_HEADS_DMODEL,
  NK_PLAN_RULE_HEADS_KV,
  NK_PLAN_RULE_HEADS_TP,
  NK_PLAN_RULE_KV_TP,
  NK_PLAN_RULE_LAYERS_PP,
  NK_PLAN_RULE_LAYERS_VIRTUAL,
  NK_PLAN_RULE_VIRTUAL_PP,
  NK_PLAN_RULE_SEQ_CP,
  NK_PLAN_RULE_BATCH,
  NK_PLAN_RULE_NEEDS_BATCH,
  NK_PLAN_RULE_SWIGLU_DFF,
  NK_PLAN_RULE_NEEDS_SHAPE,
  NK_PLAN_RULE_MFU_AUTO,
  NK_PLAN_RULE_GPUS_INT,
  NK_PLAN_RULE_EXPERTS_K,
  NK_PLAN_RULE_DENSE_LAYERS,
  NK_PLAN_RULE_EXPERTS_EP,
  NK_PLAN_RULE_EP_DP,
  NK_PLAN_RULE_ETP,
  NK_PLAN_RULE_MLA_DIMS,
  NK_PLAN_RULE_RECIPE_GPU,
  NK_PLAN_RULE_RECIPE_MIXED,
  NK_PLAN_RULE_STAGE_LAYERS,
  NK_PLAN_RULE_CPU_OFFLOAD,
} NkPlanLayoutRule;

/**
 * NkPlanProblem:
 * @kind: what is wrong
 * @input: the property name the problem is about (a static string)
 * @which: the #NkPlanInput for %NK_PLAN_PROBLEM_NO_VALUE and %NK_PLAN_PROBLEM_RANGE,
 *   the #NkPlanValue for %NK_PLAN_PROBLEM_OVERFLOW, the #NkPlanLayoutRule for
 *   %NK_PLAN_PROBLEM_LAYOUT, as its kind says for the others; 0 otherwise
 *
 * One problem with a plan's inputs, found by nk_plan_compute().
 */
typedef struct {
  NkPlanProblemKind  kind;
  const char        *input;
  int                which;
} NkPlanProblem;

/**
 * NK_PLAN_GPUS_PER_NODE:
 *
 * GPUs in a node of the GPU table's data-centre parts (HGX/DGX): the default of
 * #NkPlan:gpus-per-node, and the deadline answer is rounded up to whole nodes.
 */
#define NK_PLAN_GPUS_PER_NODE 8

/**
 * NK_PLAN_MAX_PROBLEMS:
 *
 * The most problems an #NkPlanResult holds: one for each numeric input plus every
 * other input a problem can be about; the length of #NkPlanResult.problems.
 */
#define NK_PLAN_MAX_PROBLEMS (NK_PLAN_N_INPUTS + 8)

/**
 * NkPlanInputs:
 * @in: the numeric inputs, indexed by #NkPlanInput
 * @missing: %TRUE where the input has no value (the object keeps the reason),
 *   indexed by #NkPlanInput
 * @gpu: the GPU table id (#NkPlan:gpu), not owned
 * @dtype: #NkPlan:dtype
 * @sparse: #NkPlan:sparse
 * @optimizer: #NkPlan:optimizer
 * @precision: #NkPlan:precision
 * @zero_stage: #NkPlan:zero-stage
 * @activation_model: #NkPlan:activation-model
 * @checkpointing: #NkPlan:checkpointing
 * @layout: the layout inputs, indexed by #NkPlanLayoutInput; enums and booleans
 *   stored as ints
 *
 * Every input of a plan, as #NkPlan holds them and nk_plan_compute() reads them.
 * nk_plan_inputs_init() fills in #NkPlan's defaults.
 */
typedef struct {
  double             in[NK_PLAN_N_INPUTS];
  gboolean           missing[NK_PLAN_N_INPUTS];
  const char        *gpu;
  NkPeakDtype        dtype;
  gboolean           sparse;
  NkOptimizer        optimizer;
  NkPrecision        precision;
  int                zero_stage;
  NkActivationModel  activation_model;
  gboolean           checkpointing;
  int                layout[NK_PLAN_N_LAYOUT];
} NkPlanInputs;

/**
 * NkPlanResult:
 * @values: the numeric outputs, indexed by #NkPlanValue; NAN where not computable
 * @has: where the report writes a formula, indexed by #NkPlanValue: the output was
 *   computed (its value may still be NAN after an overflow, then the formula
 *   shows "—")
 * @valid: #NkPlan:valid
 * @fits: #NkPlan:fits
 * @gpu: the table's row for the GPU, %NULL when unknown
 * @act_source: whose formula memory-activations repeats: %NK_PLAN_V_ACT_LINEAR,
 *   %NK_PLAN_V_ACT_TRANSFORMER or %NK_PLAN_V_ACT_TRANSFORMER_CKPT, or -1 (not
 *   given: 0 B)
 * @act_bytes: bytes per stored activation value: 4 in fp32, 2 in mixed precision
 * @deadline_nodes: the deadline answer's GPU count rounded up to whole nodes (the
 *   deadline answer does not consider memory; this and the next three fields
 *   check it); NAN when not asked
 * @deadline_memory_per_gpu: bytes each GPU holds on @deadline_nodes; NAN when not
 *   asked
 * @deadline_fits: whether that memory fits
 * @fewest_gpus_that_fit: the fewest GPUs whose memory fits at all, NAN when none
 *   does or when not asked
 * @cluster: the cluster model ran (a transformer shape, a sequence and a batch)
 * @act_terms: the most loaded GPU's activation bytes split by #NkActTerm
 *   (memory-max-activations is their sum); zeros unless the cluster model ran
 * @layout: the cluster model's layout as used, after --best-layout's search,
 *   indexed by #NkPlanLayoutInput
 * @zero_stage: the ZeRO stage the cluster model used
 * @tp_crosses_nodes: whether tensor parallelism spans more than one node
 * @searched: whether --best-layout's search chose @layout
 * @mfu: the MFU the time used: typed, or derived by the cluster model (mfu-auto)
 * @problems: the first problem of each input, in the order found; problems[0]
 *   is the plan's error
 * @n_problems: how many of @problems are set
 *
 * Everything nk_plan_compute() finds: every number #NkPlan shows, which outputs
 * were computed, and what is wrong with the inputs as codes, never as text.
 */
typedef struct {
  double             values[NK_PLAN_N_VALUES];
  gboolean           has[NK_PLAN_N_FORMULAS];
  gboolean           valid;
  gboolean           fits;
  const NkGpu       *gpu;
  int                act_source;
  double             act_bytes;
  double             deadline_nodes;
  double             deadline_memory_per_gpu;
  gboolean           deadline_fits;
  double             fewest_gpus_that_fit;
  gboolean           cluster;
  double             act_terms[NK_ACT_N_TERMS];
  int                layout[NK_PLAN_N_LAYOUT];
  int                zero_stage;
  gboolean           tp_crosses_nodes;
  gboolean           searched;
  double             mfu;
  NkPlanProblem      problems[NK_PLAN_MAX_PROBLEMS];
  guint              n_problems;
} NkPlanResult;

NK_AVAILABLE_IN_ALL
gboolean    nk_plan_dtype_is_supported      (NkPeakDtype         dtype);
NK_AVAILABLE_IN_ALL
const char *nk_plan_input_name              (NkPlanInput         input);
NK_AVAILABLE_IN_ALL
const char *nk_plan_value_name              (NkPlanValue         value);

NK_AVAILABLE_IN_ALL
void        nk_plan_inputs_init             (NkPlanInputs       *inputs);
NK_AVAILABLE_IN_ALL
void        nk_plan_compute                 (const NkPlanInputs *inputs,
                                             NkPlanResult       *result);
NK_AVAILABLE_IN_ALL
double      nk_plan_bytes_per_param_per_gpu (const double       *values,
                                             int                 stage,
                                             double              gpus);
NK_AVAILABLE_IN_ALL
double      nk_plan_compute_largest_params  (const NkPlanResult *result,
                                             int                 stage,
                                             double              gpus);
NK_AVAILABLE_IN_ALL
double      nk_plan_largest_params_at_stage (const NkPlanInputs *inputs,
                                             const NkPlanResult *result,
                                             int                 stage);
NK_AVAILABLE_IN_ALL
double      nk_plan_compute_memory_per_gpu  (const NkPlanInputs *inputs,
                                             const NkPlanResult *result,
                                             double              gpus);

NK_AVAILABLE_IN_ALL
void        nk_plan_result_add_problem      (NkPlanResult       *r,
                                             NkPlanProblemKind   kind,
                                             const char         *input,
                                             int                 which);

/* nk-plan-cluster.c: the cluster model, run by nk_plan_compute() */
NK_AVAILABLE_IN_ALL
void        nk_plan_compute_cluster         (const NkPlanInputs *inputs,
                                             NkPlanResult       *result);
NK_AVAILABLE_IN_ALL
double      nk_plan_matmul_efficiency       (const NkPlanInputs *inputs);
NK_AVAILABLE_IN_ALL
NkPlanRecipe nk_plan_inputs_get_recipe      (const NkPlanInputs *inputs);

G_END_DECLS
