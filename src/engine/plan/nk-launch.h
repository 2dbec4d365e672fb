/* nk-launch.h: launch configs for real distributed engines (DeepSpeed, Megatron-LM, torchtitan)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An #NkLaunchSpec is a plain struct with everything an engine needs to start a
 * planned run: the model's shape, the parallel layout, the precision, recompute
 * and optimizer, and the number of steps. It is filled from a plan by
 * nk_plan_get_launch_spec() (nk-plan.h) and by hand in the tests; this file
 * never reads the planner's arithmetic, so the exports re-check a layout
 * instead of trusting it.
 *
 * nk_launch_write() returns the whole text of the engine's file, or refuses
 * with a #GError whose message is one sentence naming the engine's rule (the
 * rules are those of the engine's own source, cited in nk-launch.c):
 *
 * - %NK_LAUNCH_ENGINE_DEEPSPEED: ds_config.json. JSON has no comments, so the
 *   launcher line (`deepspeed --num_nodes N --num_gpus G [--hostfile hostfile]
 *   train.py --deepspeed --deepspeed_config ds_config.json`) is not in the
 *   file: ask nk_launch_command() for it. The config carries data parallelism,
 *   ZeRO and (through train.py's PipelineModule) pipeline stages; a spec with
 *   TP, CP or interleaving is refused (%NK_LAUNCH_ERROR_UNSUPPORTED).
 * - %NK_LAUNCH_ENGINE_MEGATRON: a bash script that runs Megatron-LM's
 *   pretrain_gpt.py through torchrun with the argument list.
 * - %NK_LAUNCH_ENGINE_TORCHTITAN: a TOML job config of the 0.2 releases; its
 *   header comment carries the run_train.sh line (torchrun on several nodes)
 *   and the llama3 model shape to register as flavor "napkin". torchtitan's
 *   llama3 needs SwiGLU, untied embeddings, Adam/AdamW and no fp16.
 *
 * Each file builds the model whose parameters the plan counted: a GELU spec is
 * GPT-2's (LayerNorm, biases, learned positions), a SwiGLU spec Llama's
 * (RMSNorm, no biases, RoPE), with the planned FFN width and vocabulary. A
 * spec no engine flag can build exactly is refused, as is a precision the
 * engine cannot run as the plan priced it.
 *
 * nk_launch_check() runs the same rules without writing; nk_launch_write() and
 * nk_launch_command() return newly allocated text (g_free) or %NULL with @error
 * set; nk_launch_engine_file_name() is the conventional file name.
 *
 * nk_launch_command() gives the launcher line of every engine (for Megatron-LM
 * and torchtitan it is also inside the file). The page and the CLI call the
 * same two functions, so they export the same bytes.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

#include "nk-optimizer.h"
#include "nk-plan-compute.h"
#include "nk-precision.h"

G_BEGIN_DECLS

#define NK_LAUNCH_ERROR (nk_launch_error_quark ())

/**
 * NkLaunchError:
 * @NK_LAUNCH_ERROR_INVALID: the spec breaks one of the engine's own rules
 *   (a divisibility, a product of parallel degrees, a batch identity)
 * @NK_LAUNCH_ERROR_UNSUPPORTED: the engine has no way to express part of the
 *   spec (for instance an optimizer it does not ship)
 *
 * The codes of %NK_LAUNCH_ERROR, the domain of nk_launch_check(), nk_launch_write()
 * and nk_launch_command(); the message is one sentence naming the engine's rule.
 */
typedef enum {
  NK_LAUNCH_ERROR_INVALID,
  NK_LAUNCH_ERROR_UNSUPPORTED,
} NkLaunchError;

NK_AVAILABLE_IN_ALL
GQuark nk_launch_error_quark (void);

/**
 * NkLaunchEngine:
 * @NK_LAUNCH_ENGINE_DEEPSPEED: DeepSpeed, "deepspeed"
 * @NK_LAUNCH_ENGINE_MEGATRON: Megatron-LM, "megatron"
 * @NK_LAUNCH_ENGINE_TORCHTITAN: torchtitan, "torchtitan"
 *
 * The strings are the CLI's `--export` values.
 */
typedef enum {
  NK_LAUNCH_ENGINE_DEEPSPEED,
  NK_LAUNCH_ENGINE_MEGATRON,
  NK_LAUNCH_ENGINE_TORCHTITAN,
} NkLaunchEngine;

/**
 * NK_LAUNCH_N_ENGINES:
 *
 * The number of #NkLaunchEngine values.
 */
#define NK_LAUNCH_N_ENGINES 3

/**
 * NkLaunchSpec:
 * @layers: transformer layers
 * @d_model: hidden size
 * @heads: attention (query) heads
 * @kv_heads: key/value heads (GQA); equal to @heads (or 0) for multi-head attention
 * @d_ff: FFN hidden size (0: 4·d_model; a SwiGLU size is never guessed, give it)
 * @ffn: GELU (2 matrices) or SwiGLU (3 matrices)
 * @vocab: vocabulary size (0: leave the engine's tokenizer default)
 * @tied_embeddings: input embedding and output projection share one matrix
 * @seq: sequence length in tokens
 * @dp: data-parallel degree (the ZeRO/FSDP group)
 * @tp: tensor-parallel degree
 * @pp: pipeline-parallel degree
 * @cp: context-parallel degree
 * @virtual_stages: interleaved pipeline chunks per GPU (1: not interleaved)
 * @sequence_parallel: Megatron's sequence parallelism over the TP group
 * @micro_batch: sequences per GPU per micro-step
 * @global_batch: sequences per optimizer step, all GPUs together
 * @grad_accum: micro-steps per optimizer step: global / (micro × dp)
 * @gpus: all GPUs: dp × tp × pp × cp
 * @gpus_per_node: GPUs in one node
 * @nodes: whole nodes: gpus / gpus_per_node
 * @zero_stage: ZeRO stage 0–3 over the DP group (3 is FSDP's full shard)
 * @precision: parameter/compute precision policy
 * @matmul_dtype: the format the matmuls run in, the peak the plan priced the
 *   step at: %NK_PEAK_FP32, %NK_PEAK_TF32 (fp32 weights on TF32 tensor cores),
 *   %NK_PEAK_BF16, %NK_PEAK_FP16 or %NK_PEAK_FP8 (FP8 linear layers over bf16
 *   or fp32 weights). With fp32 @precision and a 16-bit or FP8 format the
 *   weights stay fp32 and only the matmuls run low (torchtitan's FSDP or
 *   autocast); Megatron-LM and DeepSpeed cannot say that and refuse.
 * @fp32_grads: gradients accumulated and reduced in fp32 (18 B/param,
 *   Megatron's default); %FALSE: in the compute dtype (16 B/param)
 * @recompute: activation recomputation
 * @flash_attention: fused attention without the s² score matrix
 * @optimizer: the update rule
 * @lr: peak learning rate
 * @train_steps: optimizer steps (Megatron's --train-iters, torchtitan's steps)
 *
 * All counts are plain integers; 0 in a parallel degree is not allowed (use 1).
 * nk_launch_spec_init() sets a single-GPU default.
 */
typedef struct {
  /* model shape */
  guint       layers;
  guint       d_model;
  guint       heads;
  guint       kv_heads;
  guint       d_ff;
  NkFfn       ffn;
  guint       vocab;
  gboolean    tied_embeddings;
  guint       seq;

  /* layout */
  guint       dp;
  guint       tp;
  guint       pp;
  guint       cp;
  guint       virtual_stages;
  gboolean    sequence_parallel;
  guint64     micro_batch;
  guint64     global_batch;
  guint64     grad_accum;
  guint       gpus;
  guint       gpus_per_node;
  guint       nodes;
  guint       zero_stage;

  /* numerics and schedule */
  NkPrecision precision;
  NkPeakDtype matmul_dtype;
  gboolean    fp32_grads;
  NkRecompute recompute;
  gboolean    flash_attention;
  NkOptimizer optimizer;
  double      lr;
  guint64     train_steps;
} NkLaunchSpec;

NK_AVAILABLE_IN_ALL
void         nk_launch_spec_init         (NkLaunchSpec       *spec);

NK_AVAILABLE_IN_ALL
const char  *nk_launch_engine_to_string  (NkLaunchEngine      engine);
NK_AVAILABLE_IN_ALL
gboolean     nk_launch_engine_from_string (const char         *text,
                                          NkLaunchEngine     *out_engine);
NK_AVAILABLE_IN_ALL
const char  *nk_launch_engine_file_name  (NkLaunchEngine      engine);

NK_AVAILABLE_IN_ALL
gboolean     nk_launch_check             (const NkLaunchSpec *spec,
                                          NkLaunchEngine      engine,
                                          GError            **error);
NK_AVAILABLE_IN_ALL
char        *nk_launch_write             (const NkLaunchSpec *spec,
                                          NkLaunchEngine      engine,
                                          GError            **error);
NK_AVAILABLE_IN_ALL
char        *nk_launch_command           (const NkLaunchSpec *spec,
                                          NkLaunchEngine      engine,
                                          GError            **error);

G_END_DECLS
