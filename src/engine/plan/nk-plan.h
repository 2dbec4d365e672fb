/* nk-plan.h: the budget planner: compute time, cost and memory of a training run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

#include "nk-enum-types.h"
#include "nk-gpus.h"
#include "nk-launch.h"
#include "nk-optimizer.h"
#include "nk-plan-compute.h"
#include "nk-plan-report.h"
#include "nk-precision.h"

G_BEGIN_DECLS

/**
 * NkPlan:
 *
 * An #NkPlan holds the inputs of a napkin estimate as properties and keeps every
 * output up to date: setting an input recomputes all outputs at once (pure
 * arithmetic and formula text, well under 0.2 ms; see benchmarks/bench-plan.c)
 * and notifies each changed property exactly once. Widgets bind to the properties; `napkin-cli plan` prints them. The
 * arithmetic is nk_plan_compute() (nk-plan-compute.h), a pure function on a plain
 * struct that search loops call too; the text (formulas, JSON, summary, launch
 * spec) is nk-plan-report.h's, pure functions of the same structs that the
 * methods below wrap.
 *
 * The formulas (every output also has its formula as text with the numbers in it,
 * see nk_plan_get_formula()):
 *
 * ```
 * total_flops    = 6 · params · tokens                (Kaplan et al. 2020, lecture 2)
 * peak           = GPU table peak for dtype (dense unless sparse)
 * flops_per_day  = peak · mfu · gpus · 86400
 * days           = total_flops / flops_per_day
 * gpu_hours      = days · 24 · gpus
 * cost           = gpu_hours · price
 * ```
 *
 * Memory, per parameter (bytes):
 *
 * ```
 * precision fp32:  4 (params) + 4 (grads) + S (optimizer state, fp32)
 * precision mixed: 2 (bf16 params) + 2 (bf16 grads) + 4 + S (fp32 master copy and
 *                  optimizer state: "what you accumulate stays in fp32"). As in the
 *                  ZeRO paper, the master copy counts as optimizer state.
 * S = 8 adam/adamw (two moments), 4 adagrad/rmsprop/momentum, 0 sgd.
 * ```
 *
 * Per GPU under ZeRO (Rajbhandari et al. 2020): stage 0 replicates everything;
 * 1 divides optimizer state by gpus; 2 also gradients; 3 also parameters. Where
 * the cluster model runs (a shape, a sequence and a batch), the per-GPU outputs
 * are its layout's most loaded GPU instead (ZeRO over the DP group): one memory
 * answer per plan, the one "fits" judges.
 *
 * Activations (only when batch, seq, layers and d-model are all given; batch is the
 * global batch in sequences, the "global-batch" input when only that is given,
 * split evenly over the GPUs by data parallelism):
 *
 * - linear (the lecture's deep linear model): batch · seq · d_model · layers values,
 *   4 bytes each (fp32) or 2 (mixed); use seq 1 for the lecture's B·D·L.
 * - transformer (Korthikanti et al. 2022, "Reducing Activation Recomputation in
 *   Large Transformer Models", eq. 1, no tensor parallelism): in mixed precision
 *   (2-byte activations) s·b·h·(34 + 5·a·s/h) bytes per layer, times layers;
 *   in fp32 the same tensors take 4 bytes and the dropout masks stay 1 byte:
 *   s·b·h·(66 + 9·a·s/h). With full activation checkpointing: the layer inputs
 *   (2 or 4 · s·b·h bytes per layer) plus one layer's full set while it is
 *   recomputed.
 *
 * Transformer sizing (OpenAI table, Kaplan et al. 2020, seed 002), embeddings
 * excluded:
 *
 * ```
 * N = 2 · d_model · n_layer · (2 · d_attn + d_ff),
 * forward FLOPs per token = 2 · N + 2 · n_layer · n_ctx · d_attn,
 * ```
 *
 * with d_attn = d_model, d_ff = 4 · d_model unless given, n_ctx = seq.
 *
 * Invalid input (a non-positive count, MFU outside (0, 1], an unknown GPU, a dtype
 * the GPU has no peak for, a result beyond the range of a double) makes the plan
 * invalid: #NkPlan:valid is %FALSE, #NkPlan:error is one sentence naming the input
 * and #NkPlan:error-input its property name. Every output that depends on the bad
 * input is NAN (show "—"); outputs that do not depend on it are still computed
 * (so #NkPlan:largest-params answers without params or tokens, and
 * #NkPlan:hbm-per-gpu without a GPU count). nk_plan_get_input_error() has a
 * sentence for each bad input, not only the first.
 *
 * A form hands the plan text as typed, nk_plan_set_input_text (plan, "batch",
 * "abc"): text that is not a number leaves the input without a value (it reads
 * NAN) and its error is the parser's sentence; nk_plan_invalidate_input() does
 * the same with a caller's sentence. Neither needs a sentinel value, and GObject,
 * which refuses NAN through g_object_set(), is not involved. Every numeric input
 * and output also has a C getter (and every input a C setter) that carries NAN.
 *
 * Each property below has its own description; the numeric outputs read NAN where
 * they cannot be computed, and the names of the numeric ones are nk_plan_input_name()
 * and nk_plan_value_name(). nk_plan_check() turns an invalid plan into a #GError.
 */

/**
 * NkPlan:params:
 *
 * Parameter count N of the model trained (default 70e9); not positive makes the plan
 * invalid.
 */
/**
 * NkPlan:tokens:
 *
 * Training tokens D (default 15e12); not positive makes the plan invalid.
 */
/**
 * NkPlan:gpu:
 *
 * GPU table id (default "h100-sxm", see nk_gpus_find()); an unknown id makes the
 * plan invalid.
 */
/**
 * NkPlan:gpus:
 *
 * Number of GPUs, a whole number >= 1 (default 1024).
 */
/**
 * NkPlan:mfu:
 *
 * Model FLOPs utilization, the fraction of the peak the run achieves, in (0, 1]
 * (default 0.5).
 */
/**
 * NkPlan:dtype:
 *
 * Dtype whose peak FLOP/s the time uses: fp32, tf32, bf16, fp16 or fp8 (default
 * bf16).
 */
/**
 * NkPlan:sparse:
 *
 * Whether the time uses the datasheet's 2:4 structured-sparsity peak instead of the
 * dense one (default %FALSE).
 */
/**
 * NkPlan:optimizer:
 *
 * Optimizer, which sets the bytes of state per parameter: 8 for Adam and AdamW, 4
 * for Adagrad, RMSprop and momentum, 0 for SGD (default AdamW).
 */
/**
 * NkPlan:precision:
 *
 * Precision policy: fp32 keeps 4-byte parameters and gradients; mixed keeps 2-byte
 * ones plus a 4-byte master copy (default fp32).
 */
/**
 * NkPlan:zero-stage:
 *
 * ZeRO stage, 0 to 3: 0 replicates everything, 1 shards optimizer state over the
 * data-parallel GPUs, 2 also gradients, 3 also parameters (default 0).
 */
/**
 * NkPlan:batch:
 *
 * Global batch in sequences, a whole number; 0 when not given (no activation
 * memory).
 */
/**
 * NkPlan:seq:
 *
 * Sequence length in tokens (also n_ctx for sizing), a whole number; 0 when not
 * given.
 */
/**
 * NkPlan:layers:
 *
 * Number of transformer layers, a whole number; 0 when not given.
 */
/**
 * NkPlan:d-model:
 *
 * Hidden size, a whole number; 0 when not given.
 */
/**
 * NkPlan:heads:
 *
 * Attention heads (the transformer activation estimate needs them), a whole number;
 * 0 when not given.
 */
/**
 * NkPlan:d-ff:
 *
 * Feed-forward width for sizing, a whole number; 0 for 4 · d-model.
 */
/**
 * NkPlan:vocab:
 *
 * Vocabulary size (the embedding parameters), a whole number; 0 when not given.
 */
/**
 * NkPlan:price:
 *
 * Price in USD per GPU-hour, >= 0 (default 0).
 */
/**
 * NkPlan:deadline-days:
 *
 * Deadline in days that #NkPlan:gpus-for-deadline answers for; 0 when not asked.
 */
/**
 * NkPlan:matmul-efficiency:
 *
 * Fraction of the peak a large matmul reaches in the cluster model's time, in (0,
 * 1]; 0 for the calibrated default, nk_plan_matmul_efficiency().
 */
/**
 * NkPlan:nvlink-bandwidth:
 *
 * NVLink bandwidth in bytes/s each way per GPU for tensor-parallel traffic; 0 for
 * the GPU table's.
 */
/**
 * NkPlan:network-bandwidth:
 *
 * Network bandwidth in bytes/s each way per GPU for traffic between nodes; 0 for the
 * GPU table's.
 */
/**
 * NkPlan:expert-imbalance:
 *
 * The busiest expert's tokens over the mean, at least 1: the busiest GPU's expert
 * GEMMs, activations and all-to-all bytes grow by it. 1 (the default) is balanced
 * routing, as NVIDIA's published MoE benchmarks force it.
 */
/**
 * NkPlan:activation-model:
 *
 * How the activation memory is estimated: the lecture's deep linear model or the
 * transformer estimate of Korthikanti et al. 2022 (default linear).
 */
/**
 * NkPlan:checkpointing:
 *
 * Whether the transformer estimate assumes full activation checkpointing: only each
 * layer's input is kept, plus one layer's full set while it is recomputed (default
 * %FALSE).
 */
/**
 * NkPlan:tp:
 *
 * Tensor-parallel degree of the cluster layout (default 1).
 */
/**
 * NkPlan:pp:
 *
 * Pipeline-parallel degree, the number of pipeline stages (default 1).
 */
/**
 * NkPlan:cp:
 *
 * Context-parallel degree, the GPUs one sequence is split over (default 1).
 */
/**
 * NkPlan:dp:
 *
 * Data-parallel degree; 0 (the default) derives it as gpus / (tp · pp · cp).
 */
/**
 * NkPlan:virtual-stages:
 *
 * Interleaved pipeline stages per GPU (Megatron-LM's virtual pipeline), default 1.
 */
/**
 * NkPlan:sequence-parallel:
 *
 * Whether tensor parallelism also splits the LayerNorm and dropout activations along
 * the sequence (Megatron-LM's --sequence-parallel).
 */
/**
 * NkPlan:recompute:
 *
 * Activation recomputation: none, selective or full (#NkRecompute, default none).
 */
/**
 * NkPlan:flash-attention:
 *
 * Whether attention runs as FlashAttention, which stores no attention scores.
 */
/**
 * NkPlan:grad-precision:
 *
 * Precision of the gradients beside 16-bit weights (#NkGradPrecision, default bf16).
 */
/**
 * NkPlan:gpus-per-node:
 *
 * GPUs in one node, the NVLink domain tensor parallelism should stay within (default
 * 8).
 */
/**
 * NkPlan:micro-batch:
 *
 * Micro-batch in sequences per GPU; 0 (the default) puts the global batch over DP in
 * one micro-batch.
 */
/**
 * NkPlan:global-batch:
 *
 * Global batch in sequences per step, all GPUs together; 0 (the default) takes
 * #NkPlan:batch.
 */
/**
 * NkPlan:kv-heads:
 *
 * Key/value heads (grouped-query attention); 0 (the default) as many as the heads.
 */
/**
 * NkPlan:ffn:
 *
 * Feed-forward block: GELU's two matrices or SwiGLU's three (#NkFfn, default gelu).
 */
/**
 * NkPlan:tied-embeddings:
 *
 * Whether the input embedding and the output layer share one vocab × d-model matrix
 * (default %TRUE, as GPT-2).
 */
/**
 * NkPlan:capacity:
 *
 * Which memory a GPU offers: the datasheet's or what CUDA reports less its context
 * and #NkPlan:memory-reserve (#NkCapacity, default datasheet).
 */
/**
 * NkPlan:mfu-auto:
 *
 * Whether the MFU is derived from the cluster model's step time instead of taken
 * from #NkPlan:mfu (`--mfu auto`).
 */
/**
 * NkPlan:best-layout:
 *
 * Whether the plan searches for the fastest layout that fits instead of taking tp,
 * pp, cp and dp as given.
 */
/**
 * NkPlan:memory-reserve:
 *
 * Percent of the reported memory kept free for the allocator's fragmentation, 0 to
 * 90 (default 5).
 */
/**
 * NkPlan:fsdp:
 *
 * Whether ZeRO-3 runs as PyTorch FSDP rather than DeepSpeed: full recompute reuses
 * the backward's all-gather instead of gathering again.
 */
/**
 * NkPlan:dropout:
 *
 * Whether the model trains with dropout, so that its masks (one byte per value
 * after the attention, the FFN and the attention probabilities) are stored for the
 * backward pass. Most 2024–26 recipes train with dropout 0 and keep none.
 */
/**
 * NkPlan:nvlink-domain:
 *
 * How many GPUs share one NVLink domain, where a collective runs at NVLink's rate
 * however many nodes (trays) it spans: 72 in a GB200 NVL72 rack. 0 takes the GPU
 * table's domain, or the GPUs per node where that is larger.
 */
/**
 * NkPlan:head-dim:
 *
 * The width of one attention head where it is not d_model / heads (Qwen3: 32
 * heads of 128 on d_model 2048): Q and the output projection are then
 * d_model × heads·head-dim, K and V d_model × kv-heads·head-dim. 0: d_model / heads.
 */
/**
 * NkPlan:experts:
 *
 * Routed experts in every mixture-of-experts layer (each an FFN of width
 * #NkPlan:expert-d-ff, of the #NkPlan:ffn kind); 0 for a dense model. A MoE layer
 * also has a router, an experts × d_model matrix without bias.
 */
/**
 * NkPlan:experts-per-token:
 *
 * Routed experts each token passes through (top-K), from 1 to #NkPlan:experts.
 */
/**
 * NkPlan:shared-experts:
 *
 * Experts every token passes through beside the routed ones (DeepSeek), each of
 * width #NkPlan:expert-d-ff, split by TP like a dense FFN.
 */
/**
 * NkPlan:expert-d-ff:
 *
 * The FFN width of one expert; 0 takes #NkPlan:d-ff.
 */
/**
 * NkPlan:dense-layers:
 *
 * Leading layers with a dense FFN of width #NkPlan:d-ff before the MoE layers
 * (DeepSeek-V3: 3); fewer than the layers.
 */
/**
 * NkPlan:ep:
 *
 * Expert-parallel degree: each GPU of an EP group holds experts / EP of each MoE
 * layer, and tokens reach them by all-to-alls. EP divides the experts and
 * TP × CP × DP (Megatron-Core's parallel folding: EP may exceed DP).
 */
/**
 * NkPlan:etp:
 *
 * The experts' own tensor-parallel degree; EP × ETP divides TP × DP × CP, and the
 * experts' data-parallel group (over which their ZeRO shards) is
 * TP × DP × CP / (EP × ETP).
 */
/**
 * NkPlan:attention:
 *
 * The attention block (#NkAttention): multi-head (default; grouped-query with
 * #NkPlan:kv-heads) or DeepSeek's multi-head latent attention, whose shape the
 * next five properties give.
 */
/**
 * NkPlan:q-lora-rank:
 *
 * Latent attention: the rank of Q's compression, d_model → q-lora-rank (an
 * RMSNorm) → heads × (qk-nope-head-dim + qk-rope-head-dim); 0 projects Q
 * directly from d_model (DeepSeek-V2-Lite). DeepSeek-V3: 1536.
 */
/**
 * NkPlan:kv-lora-rank:
 *
 * Latent attention: the rank of the joint K/V latent c_KV (d_model →
 * kv-lora-rank + qk-rope-head-dim, the latent through an RMSNorm, then up to
 * heads × (qk-nope-head-dim + v-head-dim)). DeepSeek-V3: 512. Needed with
 * #NkPlan:attention mla.
 */
/**
 * NkPlan:qk-nope-head-dim:
 *
 * Latent attention: the width of each Q and K head's part without rotary
 * position (decompressed from the latents). DeepSeek-V3: 128.
 */
/**
 * NkPlan:qk-rope-head-dim:
 *
 * Latent attention: the width of each Q and K head's rotary part; K's is one
 * shared across heads, projected straight from d_model. DeepSeek-V3: 64.
 */
/**
 * NkPlan:v-head-dim:
 *
 * Latent attention: the width of each V head, and so of the output
 * projection's input (heads × v-head-dim). DeepSeek-V3: 128.
 */
/**
 * NkPlan:recipe:
 *
 * The low-precision recipe of the linear layers' matmuls (#NkPlanRecipe): none
 * (default: the #NkPlan:precision's format), fp8-tensorwise, fp8-blockwise,
 * mxfp8 or nvfp4. A recipe needs mixed precision and a GPU with the units for
 * it; it runs the linear layers at the GPU table's fp8 or fp4 peak, keeps the
 * low-precision weight copies and scales (#NkPlan:memory-max-low-precision) and
 * pays the quantizing passes (#NkPlan:time-casts).
 */
/**
 * NkPlan:first-stage-layers:
 *
 * Layers on the first pipeline stage, which also holds the embedding; the
 * stages without a typed count share the rest evenly (Megatron-LM's
 * --decoder-first-pipeline-num-layers; Llama 3 405B: 126 layers on 16 stages).
 * 0: an even share.
 */
/**
 * NkPlan:tp-comm-overlap:
 *
 * Whether the tensor-parallel collectives run under the GEMMs they feed
 * (Transformer Engine's userbuffers, Megatron-LM's --tp-comm-overlap,
 * torchtitan's async TP): only what the step's matmuls cannot cover is exposed.
 */
/**
 * NkPlan:fp8-param-gather:
 *
 * Whether a low-precision recipe keeps the linear layers' weights only in its
 * own format, with no 16-bit copy: Megatron-LM's --fp8-param-gather (and
 * --fp4-param-gather), Transformer Engine's quantized_model_init, which
 * NVIDIA's Megatron-Bridge FP8-CS, MXFP8 and delayed-scaling recipes set
 * (training/mixed_precision.py); the fp32 master weights stay in the
 * optimizer. Without a recipe it changes nothing.
 */
/**
 * NkPlan:cpu-offload-layers:
 *
 * Layers whose saved activations are copied to host memory during the
 * forward and back for the backward (Transformer Engine's CPU offloading,
 * Megatron-LM's --cpu-offloading-num-layers, which NVIDIA's GB200 and GB300
 * Llama 3 70B recipes set): at most the other layers' sets are on the GPU at
 * any time. The copies are taken to run under the compute. 0: none.
 */
/**
 * NkPlan:deepep:
 *
 * Whether the expert all-to-alls run on DeepEP's kernels (DeepSeek-V3's,
 * Megatron-LM's flex dispatcher with the deepep or hybridep backend, NeMo
 * AutoModel's): across NVLink domains a token crosses the network once per
 * domain that holds one of its experts and is forwarded there over NVLink.
 * Without it, NCCL's all-to-all (Megatron-LM's alltoall dispatcher) sends
 * each of its K copies on its own.
 */
/**
 * NkPlan:ep-comm-overlap:
 *
 * Whether the expert all-to-alls of one micro-batch run under another's
 * compute (DeepSeek-V3's DualPipe, Megatron-LM's
 * --overlap-moe-expert-parallel-comm): only what the step's compute cannot
 * cover is exposed.
 */
/**
 * NkPlan:last-stage-layers:
 *
 * Layers on the last pipeline stage, which also holds the output layer and its
 * logits (Megatron-LM's --decoder-last-pipeline-num-layers). 0: an even share.
 */
/**
 * NkPlan:valid:
 *
 * Whether every input is acceptable and every asked-for result finite.
 */
/**
 * NkPlan:error:
 *
 * One sentence about the first bad input, or %NULL when the plan is valid.
 */
/**
 * NkPlan:error-input:
 *
 * Property name of the input #NkPlan:error is about ("params", "gpu"), or %NULL.
 */
/**
 * NkPlan:gpu-name:
 *
 * The GPU's name from the table ("NVIDIA H100 SXM5 80 GB"), or the id when the table
 * has no such GPU.
 */
/**
 * NkPlan:bytes-per-param-text:
 *
 * Bytes per parameter as the sum of its buckets, "4 + 4 + 8 = 16".
 */
/**
 * NkPlan:fits:
 *
 * Whether the memory per GPU is known and at most the GPU's capacity
 * (#NkPlan:capacity-per-gpu).
 */
/**
 * NkPlan:revision:
 *
 * Counter that grows by one whenever any output, formula (nk_plan_get_formula()) or
 * per-input error sentence (nk_plan_get_input_error()) changes, so a view that shows
 * those, which are not properties, knows to redraw.
 */
/**
 * NkPlan:total-flops:
 *
 * Training compute in FLOPs, 6 · params · tokens (Kaplan et al. 2020).
 */
/**
 * NkPlan:peak-flops-per-gpu:
 *
 * The GPU's peak FLOP/s in #NkPlan:dtype from the GPU table, dense unless
 * #NkPlan:sparse.
 */
/**
 * NkPlan:flops-per-day:
 *
 * FLOPs the cluster delivers per day, peak · mfu · gpus · 86400.
 */
/**
 * NkPlan:days:
 *
 * Training time in days, total-flops / flops-per-day.
 */
/**
 * NkPlan:gpu-hours:
 *
 * GPU-hours, days · 24 · gpus.
 */
/**
 * NkPlan:cost:
 *
 * Cost in USD, gpu-hours · price.
 */
/**
 * NkPlan:hbm-per-gpu:
 *
 * The GPU's memory in bytes as its datasheet gives it, known whenever the GPU is.
 */
/**
 * NkPlan:bytes-per-param:
 *
 * Bytes of training state per parameter, unsharded (params + grads + optimizer).
 */
/**
 * NkPlan:param-bytes:
 *
 * Bytes per parameter of the weights: 4 in fp32, 2 in mixed precision.
 */
/**
 * NkPlan:grad-bytes:
 *
 * Bytes per parameter of the gradients.
 */
/**
 * NkPlan:optimizer-bytes:
 *
 * Bytes per parameter of optimizer state, the mixed-precision master copy included.
 */
/**
 * NkPlan:memory-params:
 *
 * Bytes of parameters in one full copy of the training state.
 */
/**
 * NkPlan:memory-grads:
 *
 * Bytes of gradients in one full copy of the training state.
 */
/**
 * NkPlan:memory-optimizer:
 *
 * Bytes of optimizer state in one full copy of the training state.
 */
/**
 * NkPlan:memory-activations:
 *
 * Bytes of activations for the whole batch, by #NkPlan:activation-model; 0 when the
 * batch shape is not given.
 */
/**
 * NkPlan:memory-total:
 *
 * Bytes of one full copy of the training state, activations included.
 */
/**
 * NkPlan:memory-params-per-gpu:
 *
 * Bytes of parameters each GPU holds (the most loaded GPU's where the cluster model
 * runs).
 */
/**
 * NkPlan:memory-grads-per-gpu:
 *
 * Bytes of gradients each GPU holds.
 */
/**
 * NkPlan:memory-optimizer-per-gpu:
 *
 * Bytes of optimizer state each GPU holds.
 */
/**
 * NkPlan:memory-activations-per-gpu:
 *
 * Bytes of activations each GPU holds.
 */
/**
 * NkPlan:memory-per-gpu:
 *
 * Bytes each GPU holds in all, the number #NkPlan:fits judges.
 */
/**
 * NkPlan:activations-linear:
 *
 * Activation bytes of the lecture's deep linear model, batch · seq · d-model ·
 * layers values of 4 bytes (fp32) or 2 (mixed).
 */
/**
 * NkPlan:activations-transformer:
 *
 * Activation bytes of Korthikanti et al. 2022's eq. 1: s·b·h·(34 + 5·a·s/h) per
 * layer in mixed precision.
 */
/**
 * NkPlan:activations-transformer-checkpointed:
 *
 * Activation bytes with full checkpointing: each layer's input plus one layer's full
 * set.
 */
/**
 * NkPlan:largest-params:
 *
 * The most whole parameters whose training state fits the GPUs' memory at this ZeRO
 * stage.
 */
/**
 * NkPlan:gpus-for-deadline:
 *
 * The fewest GPUs whose compute finishes within #NkPlan:deadline-days at
 * #NkPlan:mfu; memory is not considered (the summary adds whole nodes and whether
 * the memory fits there). NAN when not asked.
 */
/**
 * NkPlan:sized-params:
 *
 * Parameters of the transformer shape without embeddings, 2 · d_model · layers · (2
 * · d_model + d_ff) (Kaplan et al. 2020).
 */
/**
 * NkPlan:sized-embedding-params:
 *
 * Embedding parameters of the shape, (vocab + seq) · d_model.
 */
/**
 * NkPlan:sized-forward-flops-per-token:
 *
 * Forward FLOPs per token of the shape, 2 · N + 2 · layers · seq · d_model.
 */
/**
 * NkPlan:shape-params:
 *
 * Parameters of the cluster model's transformer, embeddings included (untied unless
 * #NkPlan:tied-embeddings).
 */
/**
 * NkPlan:shape-embedding-params:
 *
 * Embedding and output-layer parameters of the cluster model's transformer.
 */
/**
 * NkPlan:shape-params-per-layer:
 *
 * Parameters of one transformer layer (of a MoE layer, every expert counted,
 * when the model has experts).
 */
/**
 * NkPlan:shape-params-active:
 *
 * The parameters one token passes through: #NkPlan:shape-params with each MoE
 * layer's routed experts cut to #NkPlan:experts-per-token (the shared experts and
 * the router kept); the same as #NkPlan:shape-params for a dense model. Model
 * FLOPs count these.
 */
/**
 * NkPlan:shape-attention-params:
 *
 * Parameters of one layer's attention block: its matrices, and its biases
 * (GPT-2's shape) or the latent RMSNorms (latent attention); the layer norms
 * around it are not counted here. DeepSeek-V3: 187,107,328.
 */
/**
 * NkPlan:memory-max-low-precision:
 *
 * What a low-precision recipe adds on the most loaded GPU: the quantized copies
 * of its linear weights (row-wise and column-wise, for the forward and the
 * backward's data gradient) with their scales, and Transformer Engine's amax
 * histories for fp8-tensorwise; 0 without a recipe.
 */
/**
 * NkPlan:memory-max-expert-params:
 *
 * The routed experts' share of #NkPlan:memory-max-params: the E / EP experts
 * of each MoE layer on the most loaded GPU, split by ETP (sharded over the
 * experts' own data-parallel group under ZeRO-3; with --fp8-param-gather only
 * what is not a linear weight); 0 without experts.
 */
/**
 * NkPlan:memory-max-expert-grads:
 *
 * The routed experts' share of #NkPlan:memory-max-grads (sharded over the
 * experts' own data-parallel group from ZeRO-2); 0 without experts.
 */
/**
 * NkPlan:memory-max-expert-optimizer:
 *
 * The routed experts' share of #NkPlan:memory-max-optimizer (sharded over the
 * experts' own data-parallel group from ZeRO-1); 0 without experts.
 */
/**
 * NkPlan:time-casts:
 *
 * A low-precision recipe's quantizing passes in one step: each linear layer's
 * input and output gradient read in bf16 and written twice quantized (row-wise
 * and column-wise) with scales, the weights once a step, all bound by HBM
 * bandwidth; 0 without a recipe.
 */
/**
 * NkPlan:activations-stage-layers:
 *
 * Layers on the most loaded GPU's pipeline stage (L / PP, or the typed first or
 * last stage's count, or a middle stage's share with uneven stages).
 */
/**
 * NkPlan:pipeline-pace:
 *
 * How much longer the layers' work of a step takes than with an even split:
 * the busiest stage's layers × PP / layers (1 with even stages; Llama 3 405B's
 * 126 layers as 7 + 14 × 8 + 7 on 16 stages: 8 · 16 / 126).
 */
/**
 * NkPlan:layout-dp:
 *
 * Data-parallel degree the layout uses (derived, or found by #NkPlan:best-layout).
 */
/**
 * NkPlan:layout-tp:
 *
 * Tensor-parallel degree the layout uses.
 */
/**
 * NkPlan:layout-pp:
 *
 * Pipeline-parallel degree the layout uses.
 */
/**
 * NkPlan:layout-cp:
 *
 * Context-parallel degree the layout uses.
 */
/**
 * NkPlan:layout-ep:
 *
 * Expert-parallel degree the layout uses: the typed #NkPlan:ep, or the one
 * #NkPlan:best-layout chose; 1 without experts.
 */
/**
 * NkPlan:layout-etp:
 *
 * Expert-tensor-parallel degree the layout uses: the typed #NkPlan:etp, or the
 * one #NkPlan:best-layout chose; 1 without experts.
 */
/**
 * NkPlan:layout-micro-batch:
 *
 * Micro-batch in sequences the layout uses.
 */
/**
 * NkPlan:layout-global-batch:
 *
 * Global batch in sequences per step the layout uses.
 */
/**
 * NkPlan:grad-accum:
 *
 * Gradient-accumulation steps, global / (micro · DP).
 */
/**
 * NkPlan:tokens-per-step:
 *
 * Tokens per optimizer step, global batch · seq.
 */
/**
 * NkPlan:steps:
 *
 * Optimizer steps to train on #NkPlan:tokens, ⌈tokens / tokens-per-step⌉.
 */
/**
 * NkPlan:nodes:
 *
 * Nodes the GPUs fill, ⌈gpus / gpus-per-node⌉.
 */
/**
 * NkPlan:activations-per-layer:
 *
 * Activation bytes one layer stores for one micro-batch on one GPU.
 */
/**
 * NkPlan:micro-batches-in-flight:
 *
 * Micro-batches whose activations the most loaded GPU holds at once: as many as the
 * first pipeline stage has in flight, or 1 when the last stage (the output layer and
 * its logits) is the heavier.
 */
/**
 * NkPlan:activations-embedding-and-logits:
 *
 * Activation bytes the most loaded GPU holds for the embedding and, on the last
 * pipeline stage, the output layer's logits.
 */
/**
 * NkPlan:activation-traffic-per-layer:
 *
 * Bytes of activations one layer stores per micro-batch with nothing recomputed; the
 * element-wise work passes over them three times (four when recomputed), which gives
 * #NkPlan:time-memory-bound.
 */
/**
 * NkPlan:memory-max-params:
 *
 * Bytes of parameters on the most loaded GPU.
 */
/**
 * NkPlan:memory-max-grads:
 *
 * Bytes of gradients on the most loaded GPU.
 */
/**
 * NkPlan:memory-max-optimizer:
 *
 * Bytes of optimizer state on the most loaded GPU.
 */
/**
 * NkPlan:memory-max-activations:
 *
 * Bytes of activations on the most loaded GPU (the sum of
 * nk_plan_get_activation_terms()).
 */
/**
 * NkPlan:memory-per-gpu-max:
 *
 * Bytes on the most loaded GPU in all.
 */
/**
 * NkPlan:memory-reported-per-gpu:
 *
 * Bytes CUDA reports for the card (e.g. H100 SXM 81,559 MiB).
 */
/**
 * NkPlan:memory-usable-per-gpu:
 *
 * Bytes usable per GPU: what CUDA reports less its context and
 * #NkPlan:memory-reserve.
 */
/**
 * NkPlan:capacity-per-gpu:
 *
 * Bytes per GPU that #NkPlan:fits compares with: the datasheet's or the usable, by
 * #NkPlan:capacity.
 */
/**
 * NkPlan:model-flops-per-token:
 *
 * Model FLOPs per token, PaLM's and Megatron-LM's count: 6 × matmul weights + 12 ·
 * layers · seq · d_model for attention.
 */
/**
 * NkPlan:hardware-flops-per-token:
 *
 * Hardware FLOPs per token, recomputation included.
 */
/**
 * NkPlan:time-compute:
 *
 * Seconds per step of matmul compute: tokens per step · model FLOPs per token /
 * (gpus · peak · matmul efficiency).
 */
/**
 * NkPlan:time-recompute:
 *
 * Seconds per step spent recomputing activations.
 */
/**
 * NkPlan:time-memory-bound:
 *
 * Seconds per step of element-wise work, bound by memory: the activation traffic
 * over the GPU's HBM bandwidth.
 */
/**
 * NkPlan:time-tp-comm:
 *
 * Seconds per step of tensor-parallel collectives.
 */
/**
 * NkPlan:time-dp-comm:
 *
 * Seconds per step of data-parallel communication: one gradient all-reduce, or under
 * ZeRO-3 the parameter all-gathers and gradient reduce-scatters.
 */
/**
 * NkPlan:time-dp-exposed:
 *
 * Seconds of #NkPlan:time-dp-comm not hidden behind the backward pass (the last
 * micro-batch's backward; the whole step under ZeRO-3).
 */
/**
 * NkPlan:time-ep-comm:
 *
 * Seconds per step of the expert all-to-alls: dispatch and combine, forward and
 * backward, 4 per MoE layer and micro-batch (6 under full recompute), each
 * (EP − 1)/EP × s·b/t · K · d_model · bytes × the imbalance over the EP group's
 * bandwidth (NVLink within the NVLink domain, the network beyond). Counted
 * exposed: nothing overlaps them.
 */
/**
 * NkPlan:time-pp-bubble:
 *
 * Seconds per step the pipeline stands idle, (pp − 1) / (micro-batches · virtual
 * stages) of the busy time (Narayanan et al. 2021).
 */
/**
 * NkPlan:time-exposed-comm:
 *
 * Seconds per step of communication not hidden behind compute: the tensor-parallel
 * collectives, the expert all-to-alls (#NkPlan:time-ep-comm) and
 * #NkPlan:time-dp-exposed.
 */
/**
 * NkPlan:time-per-step:
 *
 * Seconds per optimizer step: compute + recompute + element-wise + exposed
 * communication + bubble.
 */
/**
 * NkPlan:bubble-fraction:
 *
 * Fraction of the step the pipeline stands idle: the bubble over the busy time plus
 * the bubble (Narayanan et al. 2021).
 */
/**
 * NkPlan:tokens-per-s:
 *
 * Tokens per second the cluster trains at, tokens-per-step / time-per-step.
 */
/**
 * NkPlan:mfu-model:
 *
 * Model FLOPs utilization of the step time: model FLOPs over the peak.
 */
/**
 * NkPlan:mfu-hardware:
 *
 * Hardware FLOPs utilization: hardware FLOPs (recompute included) over the peak.
 */
/**
 * NkPlan:mfu-derived:
 *
 * The step's MFU on the days' 6 · params FLOPs per token: 6 · params · tokens-per-s
 * / (gpus · peak).
 */
/**
 * NkPlan:mfu-torchtitan:
 *
 * The step's MFU on the FLOP count torchtitan prints its MFU with.
 */
/**
 * NkPlan:mfu-nanogpt:
 *
 * The step's MFU on the FLOP count nanoGPT prints its MFU with.
 */
/**
 * NkPlan:mfu-llmc:
 *
 * The step's MFU on the FLOP count llm.c prints its MFU with.
 */
/**
 * NkPlan:mfu-used:
 *
 * MFU the days use: #NkPlan:mfu, or the derived one with #NkPlan:mfu-auto.
 */
/**
 * NkPlan:fits-data-parallel:
 *
 * 1 when the lecture's data-parallel view fits the memory, 0 when not, beside the
 * layout's #NkPlan:fits.
 */
/**
 * NkPlan:layout-gpus-for-deadline:
 *
 * The fewest GPUs, in whole nodes, whose layout meets #NkPlan:deadline-days and
 * fits.
 */
/**
 * NkPlan:layout-dp-for-deadline:
 *
 * Data-parallel degree of that layout.
 */
/**
 * NkPlan:layout-days-for-deadline:
 *
 * Days that layout trains for.
 */
/**
 * NkPlan:layout-memory-for-deadline:
 *
 * Bytes on the most loaded GPU of that layout.
 */

#define NK_TYPE_PLAN             (nk_plan_get_type ())

NK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (NkPlan, nk_plan, NK, PLAN, GObject)

NK_AVAILABLE_IN_ALL
const char  *nk_activation_model_to_string    (NkActivationModel  model);
NK_AVAILABLE_IN_ALL
gboolean     nk_activation_model_from_string  (const char        *text,
                                               NkActivationModel *out_model);

NK_AVAILABLE_IN_ALL
NkPlan      *nk_plan_new                      (void);

/* Inputs. */
NK_AVAILABLE_IN_ALL
double       nk_plan_get_params               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_params               (NkPlan            *self,
                                               double             params);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_tokens               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_tokens               (NkPlan            *self,
                                               double             tokens);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_gpu                  (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_gpu                  (NkPlan            *self,
                                               const char        *gpu);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_gpus                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_gpus                 (NkPlan            *self,
                                               double             gpus);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_mfu                  (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_mfu                  (NkPlan            *self,
                                               double             mfu);
NK_AVAILABLE_IN_ALL
NkPeakDtype  nk_plan_get_dtype                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_dtype                (NkPlan            *self,
                                               NkPeakDtype        dtype);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_sparse               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_sparse               (NkPlan            *self,
                                               gboolean           sparse);
NK_AVAILABLE_IN_ALL
NkOptimizer  nk_plan_get_optimizer            (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_optimizer            (NkPlan            *self,
                                               NkOptimizer        optimizer);
NK_AVAILABLE_IN_ALL
NkPrecision  nk_plan_get_precision            (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_precision            (NkPlan            *self,
                                               NkPrecision        precision);
NK_AVAILABLE_IN_ALL
int          nk_plan_get_zero_stage           (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_zero_stage           (NkPlan            *self,
                                               int                stage);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_price                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_price                (NkPlan            *self,
                                               double             price);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_batch                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_batch                (NkPlan            *self,
                                               double             batch);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_seq                  (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_seq                  (NkPlan            *self,
                                               double             seq);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_layers               (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_layers               (NkPlan            *self,
                                               double             layers);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_d_model              (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_d_model              (NkPlan            *self,
                                               double             d_model);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_heads                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_heads                (NkPlan            *self,
                                               double             heads);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_d_ff                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_d_ff                 (NkPlan            *self,
                                               double             d_ff);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_vocab                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_vocab                (NkPlan            *self,
                                               double             vocab);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_deadline_days        (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_deadline_days        (NkPlan            *self,
                                               double             days);
NK_AVAILABLE_IN_ALL
NkActivationModel nk_plan_get_activation_model (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_activation_model     (NkPlan            *self,
                                               NkActivationModel  model);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_checkpointing        (NkPlan            *self);
NK_AVAILABLE_IN_ALL
void         nk_plan_set_checkpointing        (NkPlan            *self,
                                               gboolean           checkpointing);

/* Inputs as a form holds them: text, or no value with a reason. */
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_set_input_text           (NkPlan            *self,
                                               const char        *name,
                                               const char        *text);
NK_AVAILABLE_IN_ALL
void         nk_plan_invalidate_input         (NkPlan            *self,
                                               const char        *name,
                                               const char        *message);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_input_error          (NkPlan            *self,
                                               const char        *name);

/* Outputs. */
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_valid                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_error                (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_error_input          (NkPlan            *self);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_check                    (NkPlan            *self,
                                               GError           **error);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_output               (NkPlan            *self,
                                               const char        *name);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_activation_terms     (NkPlan            *self,
                                               double             terms[NK_ACT_N_TERMS]);
NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_fits                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_gpu_name             (NkPlan            *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_bytes_per_param_text (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_total_flops          (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_peak_flops_per_gpu   (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_flops_per_day        (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_days                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_gpu_hours            (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_cost                 (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_hbm_per_gpu          (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_params_per_gpu      (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_grads_per_gpu       (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_optimizer_per_gpu   (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_activations_per_gpu (NkPlan      *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_memory_per_gpu       (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_largest_params       (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_gpus_for_deadline    (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_sized_params         (NkPlan            *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_sized_embedding_params        (NkPlan   *self);
NK_AVAILABLE_IN_ALL
double       nk_plan_get_sized_forward_flops_per_token (NkPlan   *self);
NK_AVAILABLE_IN_ALL
const char  *nk_plan_get_formula              (NkPlan            *self,
                                               const char        *output);
NK_AVAILABLE_IN_ALL
double       nk_plan_largest_params_for_stage (NkPlan            *self,
                                               int                stage);

/* The report of the plan's own structs (nk-plan-report.h). */
NK_AVAILABLE_IN_ALL
void         nk_plan_build_json               (NkPlan            *self,
                                               JsonBuilder       *builder,
                                               NkPlanJsonFlags    flags);
NK_AVAILABLE_IN_ALL
char        *nk_plan_format_summary           (NkPlan            *self,
                                               NkPlanJsonFlags    flags);

NK_AVAILABLE_IN_ALL
gboolean     nk_plan_get_launch_spec          (NkPlan            *self,
                                               NkLaunchSpec      *spec,
                                               GError           **error);

G_END_DECLS
