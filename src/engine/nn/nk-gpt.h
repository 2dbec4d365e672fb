/* nk-gpt.h: nanoGPT's GPT (a GPT-2-style decoder) on nk-autograd's ops
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model of karpathy/nanoGPT's model.py with dropout 0 and bias=True, parameter for
 * parameter, under its state_dict names and layouts (V vocab, d = n_embd, T = block
 * size, L layers, H heads, hd = d/H):
 *
 *   transformer.wte.weight            [V, d]   token embedding, also the head (tied)
 *   transformer.wpe.weight            [T, d]   learned positions
 *   transformer.h.{i}.ln_1.weight     [d]      .bias [d]
 *   transformer.h.{i}.attn.c_attn.weight [3d, d]  .bias [3d]   q, k, v in that order
 *   transformer.h.{i}.attn.c_proj.weight [d, d]   .bias [d]
 *   transformer.h.{i}.ln_2.weight     [d]      .bias [d]
 *   transformer.h.{i}.mlp.c_fc.weight [4d, d]  .bias [4d]
 *   transformer.h.{i}.mlp.c_proj.weight [d, 4d] .bias [d]
 *   transformer.ln_f.weight           [d]      .bias [d]
 *   (lm_head.weight is transformer.wte.weight and is not stored)
 *
 *   idx [B, T] → wte[idx] + wpe[0..T) → L × (x += attn(ln_1(x)); x += mlp(ln_2(x)))
 *   → ln_f → x·wteᵀ = logits [B·T, V]
 *
 * attn is causal self-attention with H heads, softmax(q·kᵀ/√hd)·v; mlp is
 * c_proj(GELU(c_fc(x))) with the exact erf GELU; LayerNorm eps 1e-5.
 *
 * Parameters: 12·L·d² + 13·L·d + (V + T)·d + 2·d (per block 3d²+3d + d²+d + 4d²+4d
 * + 4d²+d for the four Linears, 4d for the two LayerNorms; 2d for ln_f).
 *
 * Initialisation (nanoGPT's _init_weights): every Linear weight and both embeddings
 * N(0, 0.02²), the residual projections (attn.c_proj.weight, mlp.c_proj.weight)
 * N(0, (0.02/√(2L))²), biases 0, LayerNorm weights 1. Draws run in state_dict order.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include "nk-version-macros.h"

#include "nk-activation-terms.h"
#include "nk-model.h"

G_BEGIN_DECLS

/**
 * NK_GPT_LN_EPS:
 *
 * LayerNorm's eps in nanoGPT's model.py (F.layer_norm's default).
 */
#define NK_GPT_LN_EPS 1e-5

/**
 * nk_model_new_gpt: (skip)
 * @vocab: V
 * @n_embd: d, a multiple of @n_head
 * @n_layer: L
 * @n_head: H
 * @block_size: T, the longest context (rows of transformer.wpe.weight)
 * @dtype: f32 (training) or f64 (gradient checks)
 * @error: return location for a #GError (%NK_MODEL_ERROR_INVALID)
 *
 * nanoGPT's GPT of these sizes (see above). Not for bindings (see #NkModel).
 *
 * Returns: (transfer full) (nullable): the model, parameters zero until initialised
 */
NK_AVAILABLE_IN_ALL
NkModel   *nk_model_new_gpt            (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     n_head,
                                        guint     block_size,
                                        NkDType   dtype,
                                        GError  **error);

NK_AVAILABLE_IN_ALL
gboolean   nk_gpt_check_sizes          (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     n_head,
                                        guint     block_size,
                                        GError  **error);

NK_AVAILABLE_IN_ALL
guint64    nk_gpt_count_parameters     (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     block_size);

NK_AVAILABLE_IN_ALL
char     **nk_gpt_param_names          (guint     n_layer);

/**
 * nk_gpt_flops_formula:
 * @vocab: V
 * @n_embd: d
 * @n_layer: L
 * @block_size: T (the sequence length a step runs)
 * @tokens: B·T
 *
 * The planner's FLOPs of one training step (forward + backward) as PaLM (appendix B)
 * and nanoGPT's estimate_mfu() count them: 6·N per token for the weights the step
 * multiplies with, plus 12·L·T·d per token for attention's q·kᵀ and att·v (2·T·d each
 * forward per token and layer, ×3 with backward). N is nanoGPT's get_num_params():
 * every parameter except the position embedding (wpe is gathered, never multiplied;
 * wte is, as the tied head), i.e. 12·L·d² + 13·L·d + V·d + 2·d.
 *
 * Returns: the FLOPs
 */
NK_AVAILABLE_IN_ALL
double     nk_gpt_flops_formula        (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     block_size,
                                        double    tokens);
NK_AVAILABLE_IN_ALL
double     nk_gpt_attention_flops_per_token (guint n_embd,
                                             guint n_layer,
                                             guint block_size);

/**
 * nk_gpt_op_flops:
 * @vocab: V
 * @n_embd: d
 * @n_layer: L
 * @n_head: H
 * @block_size: T
 * @batch: B
 * @flops: (out): FLOPs of each #NkFlopKind
 *
 * A training step's FLOPs as Napkin's ops count them (nk-autograd-nn.h's
 * conventions), N = B·T: the Linears 6·N·(12·L·d² + V·d), attention's products
 * 12·L·N·T·d, 2L + 1 LayerNorms (8 + 13)·N·d each, GELU 2·L·N·4d, the causal
 * softmax (6 + 5) per visible score, L·B·H·T(T + 1)/2 of them, and the embedding's
 * scatter-add N·d. What nk_flops_get() counts beyond these (residual adds, bias
 * gradients, the loss, the positions' gradient) is element-wise work of no kind.
 */
NK_AVAILABLE_IN_ALL
void       nk_gpt_op_flops             (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     n_head,
                                        guint     block_size,
                                        guint     batch,
                                        double    flops[NK_N_FLOP_KINDS]);

/**
 * nk_gpt_matmul_flops:
 * @vocab: V
 * @n_embd: d
 * @n_layer: L
 * @block_size: T
 * @batch: B
 *
 * The matmul FLOPs a step of Napkin's GPT runs, as its ops count them (2·m·n·k for
 * every product, forward and both gradients): the Linears 6·B·T·(12·L·d² + V·d)
 * (biases are adds, not products) and attention 12·L·B·T²·d (full T×T products; the
 * causal mask does not halve the gemm).
 *
 * Returns: the FLOPs
 */
NK_AVAILABLE_IN_ALL
double     nk_gpt_matmul_flops         (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     block_size,
                                        guint     batch);

/**
 * nk_gpt_activation_terms:
 * @vocab: V
 * @n_embd: d
 * @n_layer: L
 * @n_head: H
 * @batch: B
 * @block_size: T
 * @compute: %NK_DTYPE_F32, or the autocast dtype (bf16/f16) of a mixed run
 * @terms: (out): the bytes of each #NkActTerm
 *
 * The bytes one step's forward keeps for backward, tensor by tensor as the ops
 * allocate them (N = B·T rows, c = @compute's size; LayerNorm and the softmax
 * return f32): the residual stream (2L + 1)·N·d·4 (the embedding sum, fused so
 * no token rows are kept, and two sums a block); 2L + 1 LayerNorms' outputs
 * N·d·4 and statistics 2·N·4 each; per layer Q, K, V N·3d·c, the attention output
 * N·d·c, the MLP 2·N·4d·c, scores B·H·T²·c and probabilities B·H·T²·4, the two
 * c_proj outputs 2·N·d·c; the logits N·V·c and the loss 4. Under autocast the
 * products also keep rounded copies of their f32 operands — per layer 2·N·d·c
 * (the LayerNorms' outputs) and B·H·T²·c (the probabilities), and N·d·c (ln_f's
 * output) —, the softmax its narrow scores widened, B·H·T²·4, and the loss the
 * logits widened, N·V·4. No dropout.
 */
NK_AVAILABLE_IN_ALL
void       nk_gpt_activation_terms     (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     n_head,
                                        guint64   batch,
                                        guint64   block_size,
                                        NkDType   compute,
                                        guint64   terms[NK_ACT_N_TERMS]);

NK_AVAILABLE_IN_ALL
guint64    nk_gpt_activation_bytes     (guint     vocab,
                                        guint     n_embd,
                                        guint     n_layer,
                                        guint     n_head,
                                        guint64   batch,
                                        guint64   block_size,
                                        NkDType   compute);

/* ---- loading and sampling (nk-gpt-sample.c) ------------------------------------- */

/**
 * nk_gpt_load: (skip)
 * @path: a checkpoint folder (its newest intact checkpoint) or a safetensors
 *   state_dict (`train --save`)
 * @error: return location for a #GError naming what is missing
 *
 * Builds the GPT the file describes: V, d and T from the shapes of
 * transformer.wte/wpe, L from the blocks present, the heads from the "n_head"
 * metadata Napkin writes beside a GPT's tensors. Not for bindings (see #NkModel).
 *
 * Returns: (transfer full) (nullable): the f32 model on the CPU
 */
NK_AVAILABLE_IN_ALL
NkModel   *nk_gpt_load                 (const char  *path,
                                        GError     **error);

/**
 * nk_gpt_generate: (skip)
 * @model: a GPT
 * @prompt: (array length=n_prompt): token ids, at least one
 * @n_prompt: their count
 * @n_new: tokens to add
 * @temperature: logits are divided by it; 0 picks the most likely token
 * @top_k: keep only the k most likely tokens (0: all)
 * @rng: draws one uniform double per sampled token
 * @error: return location for a #GError
 *
 * nanoGPT's generate(): the context cropped to the block size, the last position's
 * logits / temperature, top-k, softmax, one draw by inverse CDF. Not for bindings
 * (it takes an #NkModel).
 *
 * Returns: (transfer container) (nullable) (element-type guint32): the @n_new new tokens
 */
NK_AVAILABLE_IN_ALL
GArray    *nk_gpt_generate             (NkModel       *model,
                                        const guint32 *prompt,
                                        gsize          n_prompt,
                                        guint          n_new,
                                        double         temperature,
                                        guint          top_k,
                                        NkRng         *rng,
                                        GError       **error);

/**
 * NkGptTokenFunc:
 * @token: the token just drawn
 * @user_data: the data given with the function
 *
 * Called with each new token as soon as it is drawn (to print text as it comes).
 */
typedef void (*NkGptTokenFunc) (guint32  token,
                                 gpointer user_data);

/**
 * nk_gpt_generate_stream: (skip)
 * @model: a GPT
 * @prompt: (array length=n_prompt): token ids, at least one
 * @n_prompt: their count
 * @n_new: tokens to add
 * @temperature: as nk_gpt_generate()
 * @top_k: as nk_gpt_generate()
 * @rng: as nk_gpt_generate()
 * @func: (scope call) (nullable): called with each token as it is drawn
 * @user_data: data for @func
 * @error: return location for a #GError
 *
 * nk_gpt_generate(), telling @func each token as soon as it is drawn. Not for
 * bindings (it takes an #NkModel).
 *
 * Returns: (transfer container) (nullable) (element-type guint32): the @n_new new tokens
 */
NK_AVAILABLE_IN_ALL
GArray    *nk_gpt_generate_stream      (NkModel       *model,
                                        const guint32 *prompt,
                                        gsize          n_prompt,
                                        guint          n_new,
                                        double         temperature,
                                        guint          top_k,
                                        NkRng         *rng,
                                        NkGptTokenFunc func,
                                        gpointer       user_data,
                                        GError       **error);

G_END_DECLS
