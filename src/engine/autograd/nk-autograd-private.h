/* nk-autograd-private.h: the tape's node and what the autograd files share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A recorded op is an NkAgOp (a name and its backward) that its file defines beside
 * the forward, as micrograd's Value sets out._backward where it builds out: the tape
 * (nk-autograd.c) only walks nodes and calls node->op->backward (node); it knows no
 * op. What a backward needs rides on the node: its inputs, up to three saved tensors
 * and a few scalars the forward fills in.
 *
 *   nk-autograd.c            the tape: nodes, topological order, backward, ambient
 *                            state (autocast, FLOP counters)
 *   nk-autograd-arena.c      op outputs reused slot by slot across steps
 *   nk-autograd-gradcheck.c  backward against central differences; the op list
 *   nk-autograd-ops.c        matmul, linear, elementwise, reductions, cast, views
 *   nk-autograd-nn.c         batched matmul, LayerNorm, GELU, causal softmax,
 *                            embeddings; the device row kernels they share
 *   nk-autograd-loss.c       mean squared error and cross-entropy
 */
#pragma once

#include <math.h>

#include "nk-autograd.h"
#include "nk-quantize.h"

G_BEGIN_DECLS

typedef struct _NkAgNode NkAgNode;

/* Adds d loss / d input for each input that requires grad; node->grad is d loss / d out. */
typedef gboolean (*NkAgBackwardFunc) (NkAgNode  *node,
                                      GError   **error);

/* One kind of recorded op: defined (static const) in the file of its forward. */
typedef struct {
  const char       *name;      /* what nk_autograd_get_op_name() says */
  NkAgBackwardFunc  backward;
} NkAgOp;

struct _NkAgNode {
  const NkAgOp *op;
  guint64       seq;
  NkTensor     *in[3];      /* refs, NULL where unused */
  NkTensor     *saved[3];   /* refs: what the forward keeps for backward */
  NkTensor     *out;        /* not a ref: the node lives inside it */
  NkTensor     *grad;       /* ref: d loss / d out, accumulated during backward */
  guint         mark;
  int           sub;        /* an op's variant (flags, a view's kind) */
  double        scalar;
  gint64        iparam[4];
};

/* ---- the tape (nk-autograd.c) ----------------------------------------------------- */

NkAgNode   *_nk_ag_node_of      (NkTensor      *t);
/* Attaches a node of @op to @out when any input needs a gradient (else returns NULL). */
NkAgNode   *_nk_ag_record       (NkTensor      *out,
                                 const NkAgOp  *op,
                                 NkTensor      *a,
                                 NkTensor      *b,
                                 NkTensor      *c);
/* Where the gradient of @t goes, and whether to add (beta 1) or overwrite (beta 0). */
NkTensor   *_nk_ag_grad_target  (NkTensor      *t,
                                 double        *beta,
                                 GError       **error);
/* Adds @contrib (possibly of a broadcast shape) to the gradient of @t; @fresh: the
 * caller's private buffer, adoptable as is. */
gboolean    _nk_ag_accumulate   (NkTensor      *t,
                                 NkTensor      *contrib,
                                 gboolean       fresh,
                                 GError       **error);
/* Adds @flops to @kind's bucket and, with @add_to_total, to nk_flops_get()'s total
 * (without it when an nk-ops call already counted them there). */
void        _nk_ag_count_flops  (NkFlopKind     kind,
                                 guint64        flops,
                                 gboolean       add_to_total);

/* ---- block-scaled operands (nk-autograd-quant.c) ---------------------------------- */

/* Whether nk_autograd_set_block_quant() set a recipe that is not paused. */
gboolean    _nk_ag_block_quant_active  (void);
/* A float32 [rows, cols] copy of @t (or its transpose) quantized along its rows;
 * @gradient: @t is dy (stochastically rounded under NVFP4's recipe); @wgrad: the
 * copy is an operand of the weight gradient (NVFP4 rotates it first). */
NkTensor   *_nk_ag_block_quant_operand (NkTensor      *t,
                                        gboolean       transpose,
                                        gboolean       gradient,
                                        gboolean       wgrad,
                                        GError       **error);
/* The random signs s of NVFP4's weight-gradient rotation H₁₆·diag(s)/4 under this
 * thread's recipe, each ±1. */
void        _nk_ag_block_quant_rotation_signs (float sign[16]);
/* nk_quantize_fake_f32 (NVFP4, stochastic, @rng) bit for bit, faster. */
void        _nk_ag_nvfp4_stochastic    (const float     *src,
                                        float           *dst,
                                        gsize            rows,
                                        gsize            cols,
                                        guint            block,
                                        NkRng           *rng,
                                        NkQuantizeStats *stats);

/* ---- the arena (nk-autograd-arena.c) ---------------------------------------------- */

/* A contiguous arena buffer shaped like @like. */
NkTensor   *_nk_ag_take_like    (NkTensor      *like,
                                 NkBucket       bucket,
                                 GError       **error);

/* ---- shared by the op files ------------------------------------------------------- */

/* Where a product writes the gradient of @t: through a view's base when @t is a
 * recorded view whose gradient has not started (nk-autograd-ops.c). */
NkTensor   *_nk_ag_grad_target_through (NkTensor  *t,
                                        double    *beta,
                                        GError   **error);

/* The device row kernels (nk-autograd-nn.c). */
gpointer    _nk_ag_dev_ptr      (NkTensor      *t);
gboolean    _nk_ag_run_rows     (NkTensor      *like,
                                 NkRowsCall    *call,
                                 GError       **error);
/* The ids of @index ([N] int32/int64/uint16, any device) as int64 on the CPU, each
 * checked to be below @vocab. */
NkTensor   *_nk_ag_token_ids    (NkTensor      *index,
                                 gint64         vocab,
                                 GError       **error);
/* @host (a CPU tensor) on @like's device (an arena copy on the default device). */
NkTensor   *_nk_ag_on_device_of (NkTensor      *host,
                                 NkTensor      *like,
                                 GError       **error);

/* The op kinds of each op file, for nk_autograd_list_ops(). */
extern const NkAgOp *const _nk_ag_ops_core[];
extern const guint         _nk_ag_n_ops_core;
extern const NkAgOp *const _nk_ag_ops_nn[];
extern const guint         _nk_ag_n_ops_nn;
extern const NkAgOp *const _nk_ag_ops_loss[];
extern const guint         _nk_ag_n_ops_loss;

/* ---- small CPU helpers ------------------------------------------------------------ */

static inline gboolean
_nk_ag_is_cpu_float (NkTensor *t)
{
  return nk_device_get_kind (nk_tensor_get_device (t)) == NK_DEVICE_CPU
         && (t->dtype == NK_DTYPE_F32 || t->dtype == NK_DTYPE_F64)
         && nk_tensor_is_contiguous (t);
}

static inline double
_nk_ag_load (NkTensor *t,
             gint64    i)
{
  return t->dtype == NK_DTYPE_F32 ? (double) nk_tensor_data_f32 (t)[i]
                                  : nk_tensor_data_f64 (t)[i];
}

static inline void
_nk_ag_store (NkTensor *t,
              gint64    i,
              double    v)
{
  if (t->dtype == NK_DTYPE_F32)
    nk_tensor_data_f32 (t)[i] = (float) v;
  else
    nk_tensor_data_f64 (t)[i] = v;
}

/* The value of a one-element tensor (NaN where it cannot be read). */
static inline double
_nk_ag_scalar_of (NkTensor *t)
{
  double v = NAN;

  nk_tensor_item (t, &v, NULL);
  return v;
}

#define _NK_AG_ROWS_OF(t) (nk_tensor_numel (t) / MAX ((t)->shape[(t)->ndim - 1], 1))

G_END_DECLS
