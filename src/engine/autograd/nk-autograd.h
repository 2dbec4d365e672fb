/* nk-autograd.h: reverse-mode automatic differentiation over nk-ops
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * THE TAPE
 *
 * The nk_ag_*() functions run the op (through nk-ops, so FLOPs are counted by the op
 * that does them) and, when an input requires grad, attach a node to the output with
 * nk_tensor_set_autograd(): the node points at its op's backward — written beside the
 * forward, as micrograd's _backward closure and llm.c's forward/backward pairs — refs
 * its inputs and whatever the backward needs (saved tensors). Leaves are tensors with
 * requires_grad and no node (the parameters); their gradient accumulates in
 * tensor->grad. nk_autograd_get_op_name() names the op that made a tensor (PyTorch's
 * grad_fn); nk_autograd_list_ops() lists every op kind, each of which the tests check
 * against finite differences.
 *
 *     x ──matmul── h1 ──matmul── h2 ──square── s ──mean── loss
 *           w1 ─┘          w2 ─┘
 *
 * nk_autograd_backward(loss) walks the nodes reachable from the loss in reverse
 * creation order (a topological order, since an op's inputs exist before it) and
 * applies each op's chain rule. A tensor used twice (fan-out) receives the sum of
 * both contributions, as the seeds' computation-graph interlude says. When backward is
 * done the graph is released (PyTorch's retain_graph=False).
 *
 * FLOPs of backward, for y = x·W (x [B, D], W [D, K]):
 *     dW = xᵀ·dy   2·B·D·K   (one matmul per weight gradient)
 *     dx = dy·Wᵀ   2·B·D·K   (only when x needs a gradient)
 * which is where "backward = 2 × forward" (and 6·B·P per step) comes from.
 * nk_autograd_get_matmul_flops() counts the matmul share alone so the elementwise
 * terms can be reported separately.
 *
 * BUFFER REUSE (NkArena)
 *
 * A training step runs the same ops on the same shapes every time. Outputs and
 * backward temporaries are taken from the calling thread's arena, if one is set:
 * the n-th request of a step gets the n-th buffer of the previous step when dtype,
 * shape and bucket match (else the slot is reallocated once). After the first step
 * a step therefore allocates no storage; nk_arena_reset() starts the next step. The
 * contents of an arena buffer are only valid until it is handed out again.
 *
 * Buckets: forward outputs (what backward keeps) are counted in
 * %NK_BUCKET_ACTIVATIONS, backward temporaries (gradients of activations) in
 * %NK_BUCKET_OTHER, leaf gradients in %NK_BUCKET_GRADS.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-ops.h"
#include "nk-tensor.h"

G_BEGIN_DECLS

#define NK_AUTOGRAD_ERROR (nk_autograd_error_quark ())

/**
 * NkAutogradError:
 * @NK_AUTOGRAD_ERROR_NOT_SCALAR: backward() from a tensor with more than one element
 * @NK_AUTOGRAD_ERROR_NO_GRAPH: backward() from a tensor that does not require grad
 * @NK_AUTOGRAD_ERROR_UNSUPPORTED: an op, dtype or device autograd cannot handle
 * @NK_AUTOGRAD_ERROR_MISMATCH: the gradient check found a wrong gradient
 *
 * The ways recording or running backward fails, in the %NK_AUTOGRAD_ERROR domain.
 */
typedef enum {
  NK_AUTOGRAD_ERROR_NOT_SCALAR,
  NK_AUTOGRAD_ERROR_NO_GRAPH,
  NK_AUTOGRAD_ERROR_UNSUPPORTED,
  NK_AUTOGRAD_ERROR_MISMATCH,
} NkAutogradError;

NK_AVAILABLE_IN_ALL
GQuark nk_autograd_error_quark (void);

/* ---- arenas ---------------------------------------------------------------------- */

/**
 * NkArena:
 *
 * A thread's reusable step buffers (see BUFFER REUSE above). Not a boxed type: a copy
 * would hand out the same buffers twice and the current arena is a per-thread
 * pointer, so bindings do not see it; the trainer uses one on its worker thread.
 */
typedef struct _NkArena NkArena;

NK_AVAILABLE_IN_ALL
NkArena    *nk_arena_new                 (void);
NK_AVAILABLE_IN_ALL
void        nk_arena_free                (NkArena        *arena);
NK_AVAILABLE_IN_ALL
void        nk_arena_reset               (NkArena        *arena);
NK_AVAILABLE_IN_ALL
guint64     nk_arena_get_bytes           (NkArena        *arena,
                                          NkBucket        bucket);

NK_AVAILABLE_IN_ALL
NkArena    *nk_arena_set_current         (NkArena        *arena);
NK_AVAILABLE_IN_ALL
NkArena    *nk_arena_get_current         (void);

/**
 * nk_arena_take:
 * @dtype: element format
 * @ndim: dims
 * @shape: (array length=ndim): sizes
 * @bucket: the bucket of a new buffer
 * @error: return location for a #GError
 *
 * A contiguous tensor from the current arena (uninitialised), or a new one.
 *
 * Returns: (transfer full) (nullable): the buffer
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_arena_take                (NkDType         dtype,
                                          int             ndim,
                                          const gint64   *shape,
                                          NkBucket        bucket,
                                          GError        **error);

/* ---- recording ops --------------------------------------------------------------- */

NK_AVAILABLE_IN_ALL
gboolean    nk_autograd_requires_grad    (NkTensor       *t);

/**
 * nk_autograd_get_op_name:
 * @t: (nullable): a tensor
 *
 * The kind of op whose node @t carries (PyTorch's grad_fn): "linear", "binary_add",
 * "unary_exp", "layer_norm", ... — one of nk_autograd_list_ops().
 *
 * Returns: (nullable): the name, or %NULL for a leaf or a tensor outside any graph
 */
NK_AVAILABLE_IN_ALL
const char *nk_autograd_get_op_name      (NkTensor       *t);

/**
 * nk_autograd_list_ops:
 *
 * Every kind of op the nk_ag_*() functions record, each with its backward.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names
 */
NK_AVAILABLE_IN_ALL
const char * const *nk_autograd_list_ops (void);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_matmul                 (NkTensor       *a,
                                          NkTensor       *b,
                                          GError        **error);

/**
 * nk_ag_linear:
 * @x: [B, in]
 * @weight: [out, in] (PyTorch's layout)
 * @bias: (nullable): [out]
 * @error: return location for a #GError
 *
 * x·weightᵀ + bias, as torch.nn.functional.linear, in one output buffer (the bias is
 * added in place, so a layer keeps one [B, out] activation).
 *
 * Returns: (transfer full) (nullable): [B, out]
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_linear                 (NkTensor       *x,
                                          NkTensor       *weight,
                                          NkTensor       *bias,
                                          GError        **error);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_binary                 (NkBinaryOp      op,
                                          NkTensor       *a,
                                          NkTensor       *b,
                                          GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_add                    (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_sub                    (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_mul                    (NkTensor *a, NkTensor *b, GError **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_mul_scalar             (NkTensor       *a,
                                          double          s,
                                          GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_unary                  (NkUnaryOp       op,
                                          NkTensor       *a,
                                          GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_relu                   (NkTensor *a, GError **error);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_sum                    (NkTensor       *a,
                                          GError        **error);
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_mean                   (NkTensor       *a,
                                          GError        **error);

/**
 * nk_ag_mse_loss:
 * @pred: predictions, any shape
 * @target: targets with as many elements (no gradient flows to them)
 * @error: return location for a #GError
 *
 * mean((pred − target)²) over all elements, as F.mse_loss. Counts 3 FLOPs per element
 * (subtract, square, sum); backward 2 per element.
 *
 * Returns: (transfer full) (nullable): a 0-D tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_mse_loss               (NkTensor       *pred,
                                          NkTensor       *target,
                                          GError        **error);

/**
 * nk_ag_cross_entropy:
 * @logits: [N, V], f32 or f64 (narrower floats are widened), on any device
 * @targets: [N] class indices (int32, int64 or uint16)
 * @error: return location for a #GError
 *
 * mean over rows of −log softmax(logits)[target], as F.cross_entropy, computed with
 * the max subtracted. Counts 4 FLOPs per logit forward, 3 backward.
 *
 * Returns: (transfer full) (nullable): a 0-D tensor
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_cross_entropy          (NkTensor       *logits,
                                          NkTensor       *targets,
                                          GError        **error);

/**
 * nk_ag_embedding:
 * @weight: [V, D], contiguous f32/f64, on any device (the CPU or CUDA)
 * @index: [N] token ids (int32, int64 or uint16), on any device (checked against V
 *   on the host)
 * @error: return location for a #GError
 *
 * Rows of @weight (F.embedding). No FLOPs forward. Backward adds rows into weight's
 * gradient (1 FLOP per element of the output gradient, %NK_FLOP_KIND_EMBEDDING):
 * each token's rows are summed in position order on every device, deterministic
 * and without atomics (nk-autograd-nn.c).
 *
 * Returns: (transfer full) (nullable): [N, D]
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_embedding              (NkTensor       *weight,
                                          NkTensor       *index,
                                          GError        **error);

/**
 * nk_ag_embedding_with_positions:
 * @wte: the token table [V, D], as nk_ag_embedding()'s @weight
 * @wpe: the position table [T_max, D], same dtype and device
 * @index: [B, T] token ids, T ≤ T_max
 * @error: return location for a #GError
 *
 * wte[index] + wpe[0..T) as one op, a GPT's input: the same sums as
 * nk_ag_embedding() followed by nk_ag_add() of the first T rows of @wpe, but
 * the token rows are written into the result and never kept, as PyTorch frees
 * them. Backward: @wte's gradient as nk_ag_embedding()'s, @wpe's rows the
 * gradient summed over the batch (nk_ag_add()'s reduction).
 *
 * Returns: (transfer full) (nullable): [B·T, D]
 */
NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_embedding_with_positions (NkTensor     *wte,
                                            NkTensor     *wpe,
                                            NkTensor     *index,
                                            GError      **error);

NK_AVAILABLE_IN_ALL
NkTensor   *nk_ag_cast                   (NkTensor       *a,
                                          NkDType         dtype,
                                          GError        **error);

/**
 * nk_autograd_set_autocast:
 * @dtype: %NK_DTYPE_BF16 or %NK_DTYPE_F16 to run this thread's nk_ag_linear() in
 *   mixed precision, %NK_DTYPE_F32 for off
 *
 * Under autocast a linear layer rounds its input (which backward keeps, so saved
 * activations take 2 bytes) and a per-step copy of its fp32 weight (in
 * %NK_BUCKET_OTHER) to @dtype; the product is returned in @dtype. Weight gradients are
 * accumulated in fp32 into the fp32 master weight's grad. Losses widen to fp32.
 *
 * Returns: the previous setting
 */
NK_AVAILABLE_IN_ALL
NkDType     nk_autograd_set_autocast     (NkDType         dtype);
NK_AVAILABLE_IN_ALL
NkDType     nk_autograd_get_autocast     (void);

/* ---- running backward ------------------------------------------------------------ */

/**
 * nk_autograd_backward:
 * @loss: a one-element tensor that requires grad
 * @error: return location for a #GError
 *
 * Accumulates d loss / d leaf into each leaf's grad (allocated in %NK_BUCKET_GRADS,
 * zeroed, on first need), then releases the graph.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_autograd_backward         (NkTensor       *loss,
                                          GError        **error);

/**
 * nk_autograd_backward_scaled:
 * @loss: a one-element tensor
 * @scale: the seed gradient (d loss / d loss, normally 1; the loss scale of fp16
 *   training)
 * @error: return location for a #GError
 *
 * As nk_autograd_backward(), seeding backward with @scale instead of 1, so every
 * gradient comes out multiplied by @scale.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_autograd_backward_scaled  (NkTensor       *loss,
                                          double          scale,
                                          GError        **error);

NK_AVAILABLE_IN_ALL
void        nk_autograd_release          (NkTensor       *t);

NK_AVAILABLE_IN_ALL
gboolean    nk_autograd_zero_grad        (NkTensor      **params,
                                          guint           n_params,
                                          GError        **error);

/**
 * NkFlopKind:
 * @NK_FLOP_KIND_LINEAR: nk_ag_linear() and nk_ag_matmul() (2·m·n·k each product)
 * @NK_FLOP_KIND_ATTENTION: nk_ag_bmm() (attention scores and values, 2·m·n·k)
 * @NK_FLOP_KIND_NORM: nk_ag_layer_norm()
 * @NK_FLOP_KIND_ACTIVATION: nk_ag_gelu()
 * @NK_FLOP_KIND_SOFTMAX: nk_ag_softmax_causal()
 * @NK_FLOP_KIND_EMBEDDING: nk_ag_embedding()'s backward (scatter-add)
 * @NK_N_FLOP_KINDS: the number of kinds above (not a kind)
 *
 * Buckets of the FLOPs nk_ag_*() ops count (nk-autograd-nn.h states each op's
 * convention). What nk_flops_get() counted beyond their sum is "other" (losses,
 * residual adds, bias gradients, mixed-precision casts).
 */
typedef enum {
  NK_FLOP_KIND_LINEAR,
  NK_FLOP_KIND_ATTENTION,
  NK_FLOP_KIND_NORM,
  NK_FLOP_KIND_ACTIVATION,
  NK_FLOP_KIND_SOFTMAX,
  NK_FLOP_KIND_EMBEDDING,
  NK_N_FLOP_KINDS
} NkFlopKind;

NK_AVAILABLE_IN_ALL
guint64     nk_autograd_get_matmul_flops (void);
NK_AVAILABLE_IN_ALL
guint64     nk_autograd_get_flops        (NkFlopKind      kind);
NK_AVAILABLE_IN_ALL
void        nk_autograd_reset_matmul_flops (void);

/* ---- checking -------------------------------------------------------------------- */

/**
 * NkAutogradFunc:
 * @inputs: (array length=n_inputs): the tensors to differentiate against
 * @n_inputs: their count
 * @user_data: closure data
 * @error: return location for a #GError
 *
 * Builds a one-element result from @inputs with nk_ag_*() ops.
 *
 * Returns: (transfer full) (nullable): the result
 */
typedef NkTensor *(*NkAutogradFunc) (NkTensor **inputs,
                                     guint      n_inputs,
                                     gpointer   user_data,
                                     GError   **error);

/**
 * nk_autograd_gradcheck:
 * @func: (scope call) (closure user_data): the function
 * @inputs: (array length=n_inputs): f64 tensors (requires_grad is set on them)
 * @n_inputs: their count
 * @user_data: for @func
 * @eps: the finite-difference step (1e-6 is good for f64)
 * @atol: absolute tolerance
 * @rtol: relative tolerance
 * @out_max_error: (out) (optional): the largest |analytic − numeric|
 * @error: return location for a #GError (%NK_AUTOGRAD_ERROR_MISMATCH naming the
 *   input and element that disagrees)
 *
 * Compares backward's gradients with central differences (f(x+eps) − f(x−eps))/2eps
 * for every element of every input, as torch.autograd.gradcheck does.
 *
 * Returns: %TRUE when every element agrees within atol + rtol·|numeric|
 */
NK_AVAILABLE_IN_ALL
gboolean    nk_autograd_gradcheck        (NkAutogradFunc  func,
                                          NkTensor      **inputs,
                                          guint           n_inputs,
                                          gpointer        user_data,
                                          double          eps,
                                          double          atol,
                                          double          rtol,
                                          double         *out_max_error,
                                          GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkArena, nk_arena_free)

G_END_DECLS
