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
 */
typedef enum {
  NK_FFN_GELU,
  NK_FFN_SWIGLU,
} NkFfn;

/**
 * NkGradPrecision:
 * @NK_GRAD_PRECISION_FP32: fp32 gradients beside 16-bit weights: 2 + 4 + 12 = 18 B/param
 *   (Rajbhandari et al. 2019, ZeRO, counts 16 with 16-bit gradients; Megatron-LM's
 *   --accumulate-allreduce-grads-in-fp32 keeps them in fp32)
 * @NK_GRAD_PRECISION_BF16: 16-bit gradients: 2 + 2 + 12 = 16 B/param (ZeRO's K = 12 case)
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
 */
typedef enum {
  NK_CAPACITY_DATASHEET,
  NK_CAPACITY_USABLE,
} NkCapacity;

/* The integer, boolean and enum inputs of the cluster layout (issue 14). A value
 * of 0 where the property says "0 = derived" means the plan derives it. The
 * defaults reproduce the single-layout answers of the lecture. */
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
  NK_PLAN_N_LAYOUT
} NkPlanLayoutInput;

/* The numeric inputs, in the order of the form (validation follows it, so the
 * first problem names the first row a person would fix). */
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
  NK_PLAN_N_INPUTS
} NkPlanInput;

/* The numeric outputs; NK_PLAN_V_FITS is a formula slot only ("fits" is a
 * boolean). */
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
  NK_PLAN_V_LAYOUT_DP,
  NK_PLAN_V_LAYOUT_TP,
  NK_PLAN_V_LAYOUT_PP,
  NK_PLAN_V_LAYOUT_CP,
  NK_PLAN_V_MICRO_BATCH,
  NK_PLAN_V_GLOBAL_BATCH,
  NK_PLAN_V_GRAD_ACCUM,
  NK_PLAN_V_TOKENS_PER_STEP,
  NK_PLAN_V_STEPS,
  NK_PLAN_V_NODES,
  NK_PLAN_V_ACT_LAYER,
  NK_PLAN_V_ACT_IN_FLIGHT,
  NK_PLAN_V_ACT_EDGES,
  NK_PLAN_V_ACT_TRAFFIC,
  NK_PLAN_V_MAX_PARAMS,
  NK_PLAN_V_MAX_GRADS,
  NK_PLAN_V_MAX_OPT,
  NK_PLAN_V_MAX_ACT,
  NK_PLAN_V_MEM_MAX,
  NK_PLAN_V_REPORTED,
  NK_PLAN_V_USABLE,
  NK_PLAN_V_CAPACITY,
  NK_PLAN_V_MODEL_FLOPS_TOKEN,
  NK_PLAN_V_HW_FLOPS_TOKEN,
  NK_PLAN_V_T_COMPUTE,
  NK_PLAN_V_T_RECOMPUTE,
  NK_PLAN_V_T_MEMORY,
  NK_PLAN_V_T_TP,
  NK_PLAN_V_T_DP,
  NK_PLAN_V_T_DP_EXPOSED,
  NK_PLAN_V_T_BUBBLE,
  NK_PLAN_V_T_EXPOSED,
  NK_PLAN_V_T_STEP,
  NK_PLAN_V_BUBBLE_FRACTION,
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
} NkPlanLayoutRule;

/* @input is the property name the problem is about (a static string); @which
 * the #NkPlanInput for NO_VALUE and RANGE, the #NkPlanValue for OVERFLOW. */
typedef struct {
  NkPlanProblemKind  kind;
  const char        *input;
  int                which;
} NkPlanProblem;

/* A node of the GPU table's data-centre parts (HGX/DGX) holds 8 GPUs; the deadline
 * answer is rounded up to whole nodes of this size. */
#define NK_PLAN_GPUS_PER_NODE 8

/* The numeric inputs plus every other input a problem can be about. */
#define NK_PLAN_MAX_PROBLEMS (NK_PLAN_N_INPUTS + 8)

typedef struct {
  double             in[NK_PLAN_N_INPUTS];
  /* TRUE where the input has no value (the object keeps the reason). */
  gboolean           missing[NK_PLAN_N_INPUTS];
  const char        *gpu;
  NkPeakDtype        dtype;
  gboolean           sparse;
  NkOptimizer        optimizer;
  NkPrecision        precision;
  int                zero_stage;
  NkActivationModel  activation_model;
  gboolean           checkpointing;
  /* Indexed by #NkPlanLayoutInput; enums and booleans stored as ints. */
  int                layout[NK_PLAN_N_LAYOUT];
} NkPlanInputs;

typedef struct {
  double             values[NK_PLAN_N_VALUES];
  /* Where the report writes a formula: the output was computed (its value may
   * still be NAN after an overflow, then the formula shows "—"). */
  gboolean           has[NK_PLAN_N_FORMULAS];
  gboolean           valid;
  gboolean           fits;
  /* The table's row for the GPU, NULL when unknown. */
  const NkGpu       *gpu;
  /* Whose formula memory-activations repeats: ACT_LINEAR, ACT_TRANSFORMER(_CKPT),
   * or -1 (not given: 0 B). */
  int                act_source;
  /* Bytes per stored activation value: 4 in fp32, 2 in mixed precision. */
  double             act_bytes;
  /* The deadline answer checked against memory, which it does not consider: its
   * GPU count rounded up to whole nodes, each GPU's memory there, and the fewest
   * GPUs whose memory fits at all (NAN when none does). NAN when not asked. */
  double             deadline_nodes;
  double             deadline_memory_per_gpu;
  gboolean           deadline_fits;
  double             fewest_gpus_that_fit;
  /* The cluster model ran (a transformer shape, a sequence and a batch); its
   * layout as used, after --best-layout's search: #NkPlanLayoutInput values,
   * the ZeRO stage; whether TP spans more than one node. */
  gboolean           cluster;
  /* The most loaded GPU's activation bytes split by term (memory-max-activations
   * is their sum); zeros unless the cluster model ran. */
  double             act_terms[NK_ACT_N_TERMS];
  int                layout[NK_PLAN_N_LAYOUT];
  int                zero_stage;
  gboolean           tp_crosses_nodes;
  gboolean           searched;
  /* The MFU the time used: typed, or derived by the cluster model (mfu-auto). */
  double             mfu;
  /* The first problem of each input, in the order found; problems[0] is the plan's
   * error. */
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

G_END_DECLS
