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

/**
 * nk_flops_get:
 *
 * The FLOPs the ops counted on the calling thread since the last
 * nk_flops_reset(): what MFU divides by the time taken.
 *
 * Returns: the count
 */
NK_AVAILABLE_IN_ALL
guint64     nk_flops_get           (void);
/**
 * nk_flops_reset:
 *
 * Sets the calling thread's FLOP counter to 0.
 */
NK_AVAILABLE_IN_ALL
void        nk_flops_reset         (void);
/**
 * nk_flops_add:
 * @flops: FLOPs done outside the ops here
 *
 * Adds to the calling thread's counter, for work that does not go through an op
 * here (autograd's fused backward kernels count theirs with it).
 */
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
 * The shape two operands broadcast to, by PyTorch's rule: shapes aligned at the
 * right, a size-1 dim stretches.
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

/**
 * nk_promote_types:
 * @a: a dtype
 * @b: another
 *
 * The dtype a binary op between @a and @b computes and returns in, by the rules at
 * the top of nk-ops.h (PyTorch's for the formats here).
 *
 * Returns: the promoted dtype
 */
NK_AVAILABLE_IN_ALL
NkDType     nk_promote_types       (NkDType          a,
                                    NkDType          b);

/* ---- elementwise ----------------------------------------------------------------- */

/**
 * nk_unary:
 * @op: the op
 * @a: a tensor
 * @error: return location for a #GError
 *
 * op(a) elementwise; one FLOP per element.
 *
 * Returns: (transfer full) (nullable): the result, in @a's dtype
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_unary               (NkUnaryOp        op,
                                    NkTensor        *a,
                                    GError         **error);
/**
 * nk_binary:
 * @op: the op
 * @a: a tensor
 * @b: a tensor that broadcasts with @a
 * @error: return location for a #GError
 *
 * op(a, b) elementwise after broadcasting; one FLOP per output element.
 *
 * Returns: (transfer full) (nullable): the result, in nk_promote_types()'s dtype
 */
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
 * op(a, scalar) or op(scalar, a) elementwise; one FLOP per element.
 *
 * Returns: (transfer full) (nullable): the result, in @a's dtype
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_binary_scalar       (NkBinaryOp       op,
                                    NkTensor        *a,
                                    double           scalar,
                                    gboolean         scalar_first,
                                    GError         **error);

/**
 * nk_unary_out:
 * @op: the op
 * @out: where the result goes (any view; may be @a itself: in place)
 * @a: an input broadcastable to @out's shape
 * @error: return location for a #GError
 *
 * out = op(a), written into @out's layout and rounded to its dtype. An input that
 * shares storage bytes with @out in another layout (out = x[1:], a = x[:-1];
 * a = out.t()) is copied first, so the result is always op of the old values
 * (PyTorch refuses some of these with "some elements of the input tensor and the
 * written-to tensor refer to a single memory location" and gets others wrong).
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_unary_out           (NkUnaryOp        op,
                                    NkTensor        *out,
                                    NkTensor        *a,
                                    GError         **error);
/**
 * nk_binary_out:
 * @op: the op
 * @out: where the result goes (any view; may be @a or @b itself)
 * @a: an input broadcastable to @out's shape
 * @b: another
 * @error: return location for a #GError
 *
 * out = op(a, b), as nk_unary_out() writes.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_binary_out          (NkBinaryOp       op,
                                    NkTensor        *out,
                                    NkTensor        *a,
                                    NkTensor        *b,
                                    GError         **error);
/**
 * nk_binary_scalar_out:
 * @op: the op
 * @out: where the result goes (any view; may be @a itself)
 * @a: an input broadcastable to @out's shape
 * @scalar: the other operand
 * @scalar_first: compute op(scalar, a) instead of op(a, scalar)
 * @error: return location for a #GError
 *
 * out = op(a, scalar), as nk_unary_out() writes.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_binary_scalar_out   (NkBinaryOp       op,
                                    NkTensor        *out,
                                    NkTensor        *a,
                                    double           scalar,
                                    gboolean         scalar_first,
                                    GError         **error);

/**
 * nk_add:
 * @a: a tensor
 * @b: a tensor that broadcasts with @a
 * @error: return location for a #GError
 *
 * a + b (nk_binary() with %NK_BINARY_ADD).
 *
 * Returns: (transfer full) (nullable): the sum
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_add                 (NkTensor *a, NkTensor *b, GError **error);
/**
 * nk_sub:
 * @a: a tensor
 * @b: a tensor that broadcasts with @a
 * @error: return location for a #GError
 *
 * a − b (nk_binary() with %NK_BINARY_SUB).
 *
 * Returns: (transfer full) (nullable): the difference
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_sub                 (NkTensor *a, NkTensor *b, GError **error);
/**
 * nk_mul:
 * @a: a tensor
 * @b: a tensor that broadcasts with @a
 * @error: return location for a #GError
 *
 * a · b elementwise (nk_binary() with %NK_BINARY_MUL).
 *
 * Returns: (transfer full) (nullable): the product
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_mul                 (NkTensor *a, NkTensor *b, GError **error);
/**
 * nk_div:
 * @a: a tensor
 * @b: a tensor that broadcasts with @a
 * @error: return location for a #GError
 *
 * a / b elementwise (nk_binary() with %NK_BINARY_DIV).
 *
 * Returns: (transfer full) (nullable): the quotient
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_div                 (NkTensor *a, NkTensor *b, GError **error);
/**
 * nk_add_scalar:
 * @a: a tensor
 * @s: a number
 * @error: return location for a #GError
 *
 * a + s, in @a's dtype.
 *
 * Returns: (transfer full) (nullable): the sum
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_add_scalar          (NkTensor *a, double s, GError **error);
/**
 * nk_mul_scalar:
 * @a: a tensor
 * @s: a number
 * @error: return location for a #GError
 *
 * a · s, in @a's dtype.
 *
 * Returns: (transfer full) (nullable): the product
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_mul_scalar          (NkTensor *a, double s, GError **error);
/**
 * nk_neg:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * −a.
 *
 * Returns: (transfer full) (nullable): the result
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_neg                 (NkTensor *a, GError **error);
/**
 * nk_exp:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * e^a elementwise.
 *
 * Returns: (transfer full) (nullable): the result
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_exp                 (NkTensor *a, GError **error);
/**
 * nk_log:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * The natural logarithm elementwise.
 *
 * Returns: (transfer full) (nullable): the result
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_log                 (NkTensor *a, GError **error);
/**
 * nk_relu:
 * @a: a tensor
 * @error: return location for a #GError
 *
 * max(a, 0) elementwise; NaN propagates, as in torch.relu.
 *
 * Returns: (transfer full) (nullable): the result
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_relu                (NkTensor *a, GError **error);
/**
 * nk_add_:
 * @a: the tensor to add to, in place
 * @b: a tensor broadcastable to @a's shape
 * @error: return location for a #GError
 *
 * a += b: the gradient accumulation step.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_add_                (NkTensor *a, NkTensor *b, GError **error);
/**
 * nk_mul_scalar_:
 * @a: the tensor to scale, in place
 * @s: the factor
 * @error: return location for a #GError
 *
 * a *= s.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_mul_scalar_         (NkTensor *a, double s, GError **error);

/* ---- copies, and reshapes that may copy ------------------------------------------ */

/**
 * nk_tensor_contiguous:
 * @tensor: a tensor
 * @error: return location for a #GError
 *
 * A row-major tensor of the same values: @tensor itself (a new reference) when
 * already contiguous, else a copy into a new storage (x.contiguous()).
 *
 * Returns: (transfer full) (nullable): the contiguous tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_contiguous        (NkTensor       *tensor,
                                         GError        **error);
/**
 * nk_tensor_clone:
 * @tensor: a tensor
 * @error: return location for a #GError
 *
 * Always a copy into a new storage: contiguous, same dtype and device, the thread's
 * default bucket (x.clone()).
 *
 * Returns: (transfer full) (nullable): the copy
 */
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
 * Writes @src's values into @dst's elements (x.copy_(src)); the write shows through
 * every view of @dst's storage.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_copy_             (NkTensor       *dst,
                                         NkTensor       *src,
                                         GError        **error);
/**
 * nk_tensor_fill_:
 * @tensor: a tensor (any view: written through)
 * @value: the value, rounded once to the dtype
 * @error: return location for a #GError
 *
 * Writes @value into every element of the view (x.fill_(value)).
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_tensor_fill_             (NkTensor       *tensor,
                                         double          value,
                                         GError        **error);
/**
 * nk_tensor_to_device:
 * @tensor: a tensor
 * @device: the target device
 * @error: return location for a #GError
 *
 * Copies to another device (a new storage in the same bucket); a new reference to
 * @tensor when it is already there (x.to(device)).
 *
 * Returns: (transfer full) (nullable): the tensor on @device
 */
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

/**
 * nk_tensor_reshape:
 * @tensor: a tensor
 * @ndim: number of dims of the result
 * @shape: (array length=ndim): sizes; at most one -1 (inferred)
 * @error: return location for a #GError
 *
 * A view when nk_tensor_view() can make one, else a contiguous copy in a new
 * storage (x.reshape(shape)).
 *
 * Returns: (transfer full) (nullable): the reshaped tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tensor_reshape           (NkTensor       *tensor,
                                         int             ndim,
                                         const gint64   *shape,
                                         GError        **error);
/**
 * nk_tensor_flatten:
 * @tensor: a tensor
 * @start_dim: the first dim to merge (negative counts from the end)
 * @end_dim: the last, inclusive
 * @error: return location for a #GError
 *
 * Merges dims @start_dim..@end_dim into one: a view when possible, else a copy
 * (PyTorch's flatten is reshape-like).
 *
 * Returns: (transfer full) (nullable): the flattened tensor
 */
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
/**
 * nk_sum:
 * @a: a tensor
 * @ndims: number of dims in @dims; 0 sums over every dim
 * @dims: (array length=ndims) (nullable): dims to sum over
 * @keepdim: keep them as size 1
 * @error: return location for a #GError
 *
 * nk_reduce() with %NK_REDUCE_SUM (torch.sum).
 *
 * Returns: (transfer full) (nullable): the sum
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_sum                 (NkTensor        *a,
                                    int              ndims,
                                    const int       *dims,
                                    gboolean         keepdim,
                                    GError         **error);
/**
 * nk_mean:
 * @a: a tensor
 * @ndims: number of dims in @dims; 0 averages over every dim
 * @dims: (array length=ndims) (nullable): dims to average over
 * @keepdim: keep them as size 1
 * @error: return location for a #GError
 *
 * nk_reduce() with %NK_REDUCE_MEAN (torch.mean).
 *
 * Returns: (transfer full) (nullable): the mean
 */
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

/**
 * nk_triu:
 * @a: a tensor with at least 2 dims
 * @diagonal: 0 keeps the main diagonal, > 0 starts above it
 * @error: return location for a #GError
 *
 * The upper triangle of the last two dims: keeps (i, j) with j − i ≥ @diagonal,
 * zeroes the rest (torch.triu). No FLOPs.
 *
 * Returns: (transfer full) (nullable): the result
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_triu                (NkTensor        *a,
                                    gint64           diagonal,
                                    GError         **error);
/**
 * nk_tril:
 * @a: a tensor with at least 2 dims
 * @diagonal: 0 keeps the main diagonal, < 0 ends below it
 * @error: return location for a #GError
 *
 * The lower triangle of the last two dims: keeps (i, j) with j − i ≤ @diagonal,
 * zeroes the rest (torch.tril; the causal mask). No FLOPs.
 *
 * Returns: (transfer full) (nullable): the result
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_tril                (NkTensor        *a,
                                    gint64           diagonal,
                                    GError         **error);

/**
 * nk_softmax:
 * @a: a tensor
 * @dim: the dim to normalise along (negative counts from the end)
 * @error: return location for a #GError
 *
 * exp(a − max) / Σ exp(a − max) along @dim; FLOPs counted as the ops it runs.
 *
 * Returns: (transfer full) (nullable): the probabilities
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_softmax             (NkTensor        *a,
                                    int              dim,
                                    GError         **error);
/**
 * nk_log_softmax:
 * @a: a tensor
 * @dim: the dim to normalise along (negative counts from the end)
 * @error: return location for a #GError
 *
 * (a − max) − log Σ exp(a − max) along @dim, so no probability is rounded to 0
 * before its logarithm is taken; FLOPs counted as the ops it runs.
 *
 * Returns: (transfer full) (nullable): the log-probabilities
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_log_softmax         (NkTensor        *a,
                                    int              dim,
                                    GError         **error);

/**
 * nk_index_select:
 * @a: a tensor
 * @dim: the dim to pick along (negative counts from the end)
 * @index: an int64, int32 or uint16 tensor of any shape
 * @error: return location for a #GError (an index out of range)
 *
 * The slices of @a at @index along @dim: the embedding lookup. The result's shape
 * is a.shape[:dim] + index.shape + a.shape[dim+1:].
 *
 * Returns: (transfer full) (nullable): the gathered tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_index_select        (NkTensor        *a,
                                    int              dim,
                                    NkTensor        *index,
                                    GError         **error);
/**
 * nk_index_add_:
 * @dst: the tensor to add into
 * @dim: the dim @index picks along
 * @index: an int64, int32 or uint16 tensor of any shape
 * @src: a tensor of the shape nk_index_select() would return
 * @error: return location for a #GError
 *
 * dst.index_select(dim, index) += src, summing repeated indices: the backward of
 * nk_index_select().
 *
 * Returns: %TRUE on success
 */
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
