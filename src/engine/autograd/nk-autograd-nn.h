/* nk-autograd-nn.h: the recorded ops a GPT needs (LayerNorm, GELU, causal softmax,
 * batched matmul for attention, views) on top of nk-autograd's tape
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * These are the layers of nanoGPT's model.py, with PyTorch's definitions:
 *
 *     h   = nk_ag_layer_norm (x, ln.weight, ln.bias, 1e-5)     F.layer_norm
 *     qkv = nk_ag_linear (h, c_attn.weight, c_attn.bias)       [B·T, 3d]
 *     q   = nk_ag_transpose (nk_ag_view (nk_ag_narrow (qkv, 1, 0, d),
 *                                        [B, T, H, hd]), 1, 2) [B, H, T, hd], a view
 *     att = nk_ag_bmm (q, k, NK_BMM_TRANS_B)                   q·kᵀ, no copy of k
 *     att = nk_ag_softmax_causal (att, 1/√hd)                  masked_fill + softmax
 *     y   = nk_ag_bmm (att, v, NK_BMM_MERGE_HEADS)             [B, T, H·hd]
 *     ...   nk_ag_gelu (nk_ag_linear (...))                    nn.GELU()
 *
 * VIEWS. nk_ag_view / _transpose / _narrow make views that share the input's
 * storage (no copy) and record a node; their backward adds the gradient into the
 * matching region of the base's gradient. Products whose operand is such a view
 * (q, k, v above) write their gradient straight through the view into the base's
 * gradient buffer (zero-filled once when first needed), so the split of c_attn's
 * output costs no copy forward or backward.
 *
 * DEVICES. Everything runs on the CPU and on CUDA. The products go through
 * nk_matmul_out() and the gemm plan (cblas / cublasGemmStridedBatchedEx); LayerNorm,
 * the causal softmax and the embedding run the device's NkDeviceOps.rows kernels over
 * bodies nk-kernels.h shares (the CPU loops a row at a time, CUDA runs a warp per row).
 * Sums accumulate in double on both; every reduction has a fixed order, so results
 * are deterministic run to run (no atomics). CPU and CUDA agree to rounding.
 *
 * DTYPES. LayerNorm and the causal softmax compute in f32 (f64 for f64 inputs) and
 * return f32 for bf16/f16 inputs, as PyTorch's autocast runs them ("fp32 ops");
 * nk_ag_bmm follows nk_autograd_set_autocast() like nk_ag_linear (operands rounded
 * to the autocast dtype, product in it); GELU keeps its input's dtype (widened to
 * float per element, rounded once).
 *
 * FLOPs. Every op adds its count to the thread's nk_flops counter (nk-ops.h) and to
 * one NkFlopKind bucket, so a trainer reports matmuls apart from elementwise work:
 *
 *   op                    forward                      backward
 *   nk_ag_bmm             2·m·n·k per batch entry      2·m·n·k per operand that
 *                         (NK_FLOP_KIND_ATTENTION; also   needs a gradient
 *                         in nk_autograd_get_matmul_flops)
 *   nk_ag_layer_norm      8 per element: mean 1,       13 per element (see .c)
 *                         variance 3, normalise 2,
 *                         affine 2 (NK_FLOP_KIND_NORM)
 *   nk_ag_gelu            1 per element, as every unary  1 per element
 *                         op in nk-ops (NK_FLOP_KIND_ACTIVATION)
 *   nk_ag_softmax_causal  6 per visible element (scale,  5 per visible element
 *                         max, subtract, exp, sum,
 *                         divide); a [T, T] matrix has T(T+1)/2 visible entries
 *                         (NK_FLOP_KIND_SOFTMAX)
 *   nk_ag_embedding       0 (a gather)                 1 per element of the output
 *                         (NK_FLOP_KIND_EMBEDDING)       gradient (scatter-add)
 *   views                 0                            0 (the adds of a view's
 *                                                        backward are not counted)
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include "nk-version-macros.h"

#include "nk-autograd.h"

G_BEGIN_DECLS

/**
 * NkBmmFlags:
 * @NK_BMM_NONE: C = A·B with A [..., m, k], B [..., k, n]
 * @NK_BMM_TRANS_A: A is given as [..., k, m] and used transposed (no copy)
 * @NK_BMM_TRANS_B: B is given as [..., n, k] and used transposed (no copy): q·kᵀ
 * @NK_BMM_MERGE_HEADS: for 4-D operands [B, H, m, k]·[B, H, k, n], return the
 *   product as [B, m, H·n] — PyTorch's y.transpose(1, 2).contiguous().view(B, T, C) —
 *   by letting the gemm write through a transposed view of the output (no copy)
 *
 * How nk_ag_bmm() reads its operands and lays out its result.
 */
typedef enum {
  NK_BMM_NONE        = 0,
  NK_BMM_TRANS_A     = 1 << 0,
  NK_BMM_TRANS_B     = 1 << 1,
  NK_BMM_MERGE_HEADS = 1 << 2,
} NkBmmFlags;

/**
 * nk_ag_bmm:
 * @a: [..., m, k] (or [..., k, m] with %NK_BMM_TRANS_A); any strides, e.g. a
 *   transposed view of c_attn's output
 * @b: [..., k, n] (or [..., n, k] with %NK_BMM_TRANS_B)
 * @flags: #NkBmmFlags
 * @error: return location for a #GError
 *
 * The batched product of attention through nk_matmul_out(): batch dims must be equal
 * (no broadcasting); every matrix pair goes through the gemm plan's strided-batched
 * path with transposes as flags (views with a unit stride are never copied).
 * Backward: dA = g·Bᵀ, dB = Aᵀ·g, also copy-free.
 *
 * Returns: (transfer full) (nullable): [..., m, n], contiguous (or [B, m, H·n] with
 *   %NK_BMM_MERGE_HEADS)
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_bmm                (NkTensor       *a,
                                      NkTensor       *b,
                                      NkBmmFlags      flags,
                                      GError        **error);

/**
 * nk_ag_layer_norm:
 * @x: [..., C], f32/f64 (bf16/f16 are widened to f32), any layout
 * @weight: (nullable): [C] (γ)
 * @bias: (nullable): [C] (β)
 * @eps: added to the variance (nanoGPT and PyTorch: 1e-5)
 * @error: return location for a #GError
 *
 * F.layer_norm over the last dim: (x − mean)/√(var + eps)·γ + β with the biased
 * variance (divided by C). Mean and variance are accumulated in double; the per-row
 * mean and 1/√(var + eps) are kept for backward (as PyTorch keeps them), in x's
 * dtype (f32 for f32 input).
 *
 * Returns: (transfer full) (nullable): same shape as @x, contiguous
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_layer_norm         (NkTensor       *x,
                                      NkTensor       *weight,
                                      NkTensor       *bias,
                                      double          eps,
                                      GError        **error);

/**
 * nk_ag_gelu:
 * @x: any shape, any float dtype, any layout
 * @error: return location for a #GError
 *
 * x·Φ(x) with the exact erf form (nn.GELU(), approximate='none').
 *
 * Returns: (transfer full) (nullable): same shape and dtype, contiguous
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_gelu               (NkTensor       *x,
                                      GError        **error);

/**
 * nk_ag_softmax_causal:
 * @scores: [..., T, T] (query rows, key columns); f32/f64 (bf16/f16 widened to f32)
 * @scale: multiplies the scores first (1/√head_dim)
 * @error: return location for a #GError
 *
 * softmax(scale·scores masked with −inf where column > row) over the last dim:
 * row i sees columns 0..i. Masked entries of the result are exactly 0; nothing of
 * @scores above the diagonal is read (NaN there does not leak).
 *
 * Returns: (transfer full) (nullable): same shape, contiguous
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_softmax_causal     (NkTensor       *scores,
                                      double          scale,
                                      GError        **error);

/* ---- views (no copies; backward adds into the base's gradient) ------------------- */

NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_view               (NkTensor       *x,
                                      int             ndim,
                                      const gint64   *shape,
                                      GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_transpose          (NkTensor       *x,
                                      int             dim0,
                                      int             dim1,
                                      GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_narrow             (NkTensor       *x,
                                      int             dim,
                                      gint64          start,
                                      gint64          length,
                                      GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_contiguous         (NkTensor       *x,
                                      GError        **error);

G_END_DECLS
