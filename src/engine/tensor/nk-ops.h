/* nk-ops.h: elementwise ops, reductions, triu/tril and matmul over any strided layout
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every op accepts any layout (transposed, sliced with steps, expanded with stride 0)
 * and never assumes contiguity; results are new tensors on the operands' device in the
 * thread's default bucket (nk_storage_set_default_bucket), except the *_out / *_ forms
 * that write into a given tensor (in place or into a view: written through).
 *
 * Broadcasting follows PyTorch/NumPy: shapes are aligned at the right; a dim of size 1
 * stretches. Result layout follows PyTorch too: an elementwise result takes the dim
 * order of its inputs' strides (so x.t() + 1 has x.t()'s strides) and is dense.
 *
 * Dtypes: binary ops promote like PyTorch for the types here: f64 wins; two different
 * 16-bit/8-bit floats give f32; float with integer gives the float; two integers give
 * the wider. Math runs in f32 (f64 for f64 and integer inputs) — for bf16/f16/fp8 the
 * values are widened, computed and rounded back once, as PyTorch's CPU kernels do.
 * Comparisons give 1/0 in the promoted dtype (no bool dtype).
 *
 * FLOPs: each op adds what it did to a per-thread counter (nk_flops_*): matmul
 * 2·m·n·k per matrix product, elementwise one per output element, reductions one per
 * input element, casts/copies/views none. Autograd and MFU read it.
 *
 * Errors (shape mismatch, unsupported dtype, device mismatch) are GErrors in
 * NK_TENSOR_ERROR naming the shapes.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include "nk-version-macros.h"

#include "nk-kernels.h"
#include "nk-tensor.h"

G_BEGIN_DECLS

/* ---- FLOP counter (per thread) --------------------------------------------------- */

/* FLOPs counted on the calling thread since the last reset. */
NK_AVAILABLE_IN_ALL
guint64     nk_flops_get           (void);
NK_AVAILABLE_IN_ALL
void        nk_flops_reset         (void);
NK_AVAILABLE_IN_ALL
void        nk_flops_add           (guint64          flops);

/* ---- broadcasting ---------------------------------------------------------------- */

/**
 * nk_broadcast_shapes:
 * @ndim_a: dims of a
 * @shape_a: (array length=ndim_a): a's sizes
 * @ndim_b: dims of b
 * @shape_b: (array length=ndim_b): b's sizes
 * @out_ndim: (out): dims of the result
 * @out_shape: (out caller-allocates) (array fixed-size=8): the result's sizes
 * @error: return location for a #GError: "The size of tensor a (3) must match the
 *   size of tensor b (4) at non-singleton dimension 1" (PyTorch's words)
 *
 * Returns: %TRUE when the shapes broadcast
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_broadcast_shapes    (int              ndim_a,
                                    const gint64    *shape_a,
                                    int              ndim_b,
                                    const gint64    *shape_b,
                                    int             *out_ndim,
                                    gint64          *out_shape,
                                    GError         **error);

/* The dtype a binary op between @a and @b computes and returns in (see above). */
NK_AVAILABLE_IN_ALL
NkDType     nk_promote_types       (NkDType          a,
                                    NkDType          b);

/* ---- elementwise ----------------------------------------------------------------- */

NK_AVAILABLE_IN_ALL
NkTensor   *nk_unary               (NkUnaryOp        op,
                                    NkTensor        *a,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_binary              (NkBinaryOp       op,
                                    NkTensor        *a,
                                    NkTensor        *b,
                                    GError         **error);
/**
 * nk_binary_scalar:
 * @op: the op
 * @a: a tensor
 * @scalar: the other operand (a Python number: does not promote @a's dtype)
 * @scalar_first: compute op(scalar, a) instead of op(a, scalar) (e.g. 1 - x)
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the result, in @a's dtype
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_binary_scalar       (NkBinaryOp       op,
                                    NkTensor        *a,
                                    double           scalar,
                                    gboolean         scalar_first,
                                    GError         **error);

/* out = op(a) / op(a, b), written into @out's layout (any view, may alias @a or @b
 * exactly: out == a is the in-place form). Inputs broadcast to @out's shape; the
 * result is rounded to @out's dtype. An input that shares storage bytes with @out in
 * another layout (out = x[1:], a = x[:-1]; a = out.t()) is copied first, so the
 * result is always op of the old values (PyTorch refuses some of these with "some
 * elements of the input tensor and the written-to tensor refer to a single memory
 * location" and gets others wrong). */
NK_AVAILABLE_IN_ALL
gboolean    nk_unary_out           (NkUnaryOp        op,
                                    NkTensor        *out,
                                    NkTensor        *a,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_binary_out          (NkBinaryOp       op,
                                    NkTensor        *out,
                                    NkTensor        *a,
                                    NkTensor        *b,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
gboolean    nk_binary_scalar_out   (NkBinaryOp       op,
                                    NkTensor        *out,
                                    NkTensor        *a,
                                    double           scalar,
                                    gboolean         scalar_first,
                                    GError         **error);

/* Shorthands. */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_add                 (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_sub                 (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_mul                 (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_div                 (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_add_scalar          (NkTensor *a, double s, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_mul_scalar          (NkTensor *a, double s, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_neg                 (NkTensor *a, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_exp                 (NkTensor *a, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_log                 (NkTensor *a, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_relu                (NkTensor *a, GError **error);
/* a += b (b broadcast to a), the gradient accumulation step. */
NK_AVAILABLE_IN_ALL
gboolean    nk_add_                (NkTensor *a, NkTensor *b, GError **error);
/* a *= s */
NK_AVAILABLE_IN_ALL
gboolean    nk_mul_scalar_         (NkTensor *a, double s, GError **error);

/* ---- copies, and reshapes that may copy ------------------------------------------ */

/* @tensor itself (a new ref) when already contiguous, else a contiguous copy. */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_contiguous        (NkTensor       *tensor,
                                         GError        **error);
/* Always a new storage (contiguous; same dtype, device, default bucket). */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_clone             (NkTensor       *tensor,
                                         GError        **error);
/**
 * nk_tensor_copy_:
 * @dst: destination (any view: written through to its storage)
 * @src: source, broadcastable to @dst's shape; any dtype (rounded to @dst's like
 *   PyTorch's copy_), any device (host↔device transfers go through the device)
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_copy_             (NkTensor       *dst,
                                         NkTensor       *src,
                                         GError        **error);
/* Writes @value (rounded to the dtype) into every element of the view. */
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_fill_             (NkTensor       *tensor,
                                         double          value,
                                         GError        **error);
/* Copies to another device (new storage, same bucket); a ref when already there. */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_to_device         (NkTensor       *tensor,
                                         NkDevice       *device,
                                         GError        **error);
/**
 * nk_cast:
 * @a: a tensor
 * @dtype: target dtype (any storage dtype)
 * @error: return location for a #GError
 *
 * Converts element by element, rounding once to nearest-even per nk-dtype (default
 * overflow: ±inf, NaN for e4m3); floats to integers truncate toward zero like
 * PyTorch. Returns a new ref to @a when the dtype already matches. No FLOPs.
 *
 * Returns: (transfer full) (nullable): the converted tensor (dense, @a's dim order)
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_cast                     (NkTensor       *a,
                                         NkDType         dtype,
                                         GError        **error);

/* A view when nk_tensor_view() can make one, else a contiguous copy (new storage). */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_reshape           (NkTensor       *tensor,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);
/* Merges dims start..end (inclusive) into one: a view when possible, else a copy
 * (PyTorch's flatten is reshape-like). */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_flatten           (NkTensor       *tensor,
                                         int             start_dim,
                                         int             end_dim,
                                         GError        **error);

/* ---- reductions ------------------------------------------------------------------ */

/**
 * nk_reduce:
 * @op: sum, mean, max or min
 * @a: a tensor
 * @ndims: number of dims in @dims; 0 reduces over every dim
 * @dims: (array length=ndims) (nullable): dims to reduce (negative allowed, each once)
 * @keepdim: keep reduced dims as size 1 (so the result broadcasts against @a)
 * @error: return location for a #GError
 *
 * Sums accumulate in double on the CPU. max/min over an empty dim is an error
 * (PyTorch's); sum of nothing is 0, mean of nothing NaN.
 *
 * The sum of an integer tensor (int32, uint16, int64) is int64, as torch.sum returns;
 * it is exact while every partial sum stays below 2^53 in magnitude (the double
 * accumulator), where torch's int64 sum would wrap around past 2^63 instead.
 *
 * Returns: (transfer full) (nullable): the result, in @a's dtype (int64 for the sum
 *   of integers)
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_reduce              (NkReduceOp       op,
                                    NkTensor        *a,
                                    int              ndims,
                                    const int       *dims,
                                    gboolean         keepdim,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_sum                 (NkTensor        *a,
                                    int              ndims,
                                    const int       *dims,
                                    gboolean         keepdim,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_mean                (NkTensor        *a,
                                    int              ndims,
                                    const int       *dims,
                                    gboolean         keepdim,
                                    GError         **error);
/**
 * nk_sum_to_shape:
 * @a: a tensor
 * @ndim: dims of the target shape
 * @shape: (array length=ndim): a shape @a broadcasts from
 * @error: return location for a #GError
 *
 * Sums @a over the dims that broadcasting stretched, giving @shape: the backward of
 * a broadcast (e.g. the bias gradient).
 *
 * Returns: (transfer full) (nullable): the reduced tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_sum_to_shape        (NkTensor        *a,
                                    int              ndim,
                                    const gint64    *shape,
                                    GError         **error);

/* ---- structure ------------------------------------------------------------------- */

/* Upper / lower triangle of the last two dims: keeps (i, j) with j - i ≥ diagonal
 * (triu) or j - i ≤ diagonal (tril), zeroes the rest. No FLOPs. */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_triu                (NkTensor        *a,
                                    gint64           diagonal,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tril                (NkTensor        *a,
                                    gint64           diagonal,
                                    GError         **error);

/* softmax / log_softmax along @dim (max-subtracted; counted as the ops it runs). */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_softmax             (NkTensor        *a,
                                    int              dim,
                                    GError         **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_log_softmax         (NkTensor        *a,
                                    int              dim,
                                    GError         **error);

/* Rows of @a picked by @index (int64/int32/uint16, any shape) along @dim: the
 * embedding lookup. Result shape: a.shape[:dim] + index.shape + a.shape[dim+1:]. */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_index_select        (NkTensor        *a,
                                    int              dim,
                                    NkTensor        *index,
                                    GError         **error);
/* dst.index_select(dim, index) += src, summing repeated indices: the backward of
 * nk_index_select. @src has the shape nk_index_select would return. */
NK_AVAILABLE_IN_ALL
gboolean    nk_index_add_          (NkTensor        *dst,
                                    int              dim,
                                    NkTensor        *index,
                                    NkTensor        *src,
                                    GError         **error);

/* ---- matmul ---------------------------------------------------------------------- */

/**
 * nk_matmul:
 * @a: left operand
 * @b: right operand
 * @error: return location for a #GError
 *
 * torch.matmul: 1-D·1-D is a dot product (0-D result); 2-D·2-D a matrix product;
 * a 1-D operand is promoted to a row (left) or column (right) and that dim removed
 * afterwards; with more dims the leading (batch) dims broadcast and each matrix pair
 * is multiplied. Every product goes through nk_gemm_plan() and the device's gemm
 * (cblas_sgemm/dgemm on the CPU): transposed and sliced views with one unit stride
 * are passed with transpose flags and leading dimensions, never copied; only layouts
 * without a unit stride (or stride-0 matrices) are copied first.
 *
 * f32 uses sgemm, f64 dgemm. bf16/f16 (and fp8) operands are widened to f32, multiplied
 * with f32 accumulation, and the result rounded back once to the input dtype (what a
 * tensor core with f32 accumulation returns; PyTorch's CPU bf16 matmul agrees to the
 * last bit in most but not all cases). Integer matmul is refused.
 *
 * FLOPs: 2·m·n·k per matrix product (times the broadcast batch count).
 *
 * Returns: (transfer full) (nullable): the product (contiguous)
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_matmul              (NkTensor        *a,
                                    NkTensor        *b,
                                    GError         **error);

/**
 * nk_matmul_out:
 * @out: C: [..., m, n] with exactly the broadcast batch shape (any layout; written
 *   through)
 * @a: [..., m, k] (≥ 2-D)
 * @b: [..., k, n] (≥ 2-D)
 * @alpha: scale of A·B
 * @beta: scale of the old C (0: C is not read, NaN in it does not leak)
 * @error: return location for a #GError
 *
 * C = alpha·A·B + beta·C — with beta = 1 the weight-gradient accumulation of
 * backward without a temporary. Same planning and FLOP count as nk_matmul().
 * An operand that shares storage bytes with @out (even @out itself) is copied
 * first, since gemm reads A and B while it writes C.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_matmul_out          (NkTensor        *out,
                                    NkTensor        *a,
                                    NkTensor        *b,
                                    double           alpha,
                                    double           beta,
                                    GError         **error);

/* ---- optimizer ------------------------------------------------------------------- */

/**
 * nk_optimizer_step_:
 * @step: the rule and its scalars
 * @param: contiguous f32 parameter, updated in place
 * @grad: contiguous f32 gradient, same shape
 * @state1: (nullable): contiguous f32 state (momentum / g² average / Adam's m)
 * @state2: (nullable): contiguous f32 state (Adam's v)
 * @error: return location for a #GError
 *
 * One fused update through the device (nk_kernel_optim_update per element).
 * Not counted as FLOPs (MFU counts model FLOPs, as the lecture does).
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_optimizer_step_     (const NkOptimStep *step,
                                    NkTensor          *param,
                                    NkTensor          *grad,
                                    NkTensor          *state1,
                                    NkTensor          *state2,
                                    GError           **error);

G_END_DECLS
