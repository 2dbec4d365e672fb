/* nk-autograd-private.h: the tape's nodes and helpers, shared by nk-autograd.c and the
 * files that add recorded ops (nk-autograd-nn.c)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-autograd.h"

G_BEGIN_DECLS

typedef enum {
  OP_MATMUL,
  OP_LINEAR,
  OP_BINARY,
  OP_MUL_SCALAR,
  OP_UNARY,
  OP_SUM,
  OP_MEAN,
  OP_MSE,
  OP_CROSS_ENTROPY,
  OP_EMBEDDING,
  OP_CAST,
  OP_EXTERNAL,    /* an op of another file: node->backward runs it */
} NodeOp;

typedef struct _Node Node;

/* Adds d loss / d input for each input that requires grad; node->grad is d loss / d out. */
typedef gboolean (*NkAgBackwardFunc) (Node    *node,
                                      GError **error);

struct _Node {
  NodeOp    op;
  int       sub;        /* NkUnaryOp / NkBinaryOp / flags */
  double    scalar;
  guint64   seq;
  NkTensor *in[3];      /* refs, NULL where unused */
  NkTensor *saved;      /* ref: the output or a difference backward reads */
  NkTensor *saved2;     /* ref: autocast's rounded weight */
  NkTensor *saved3;     /* ref: a third saved tensor (LayerNorm's 1/σ) */
  NkTensor *out;        /* not a ref: the node lives inside it */
  NkTensor *grad;       /* ref: d loss / d out, accumulated during backward */
  guint     mark;
  NkAgBackwardFunc backward;   /* set for OP_EXTERNAL */
  gint64    iparam[4];
};

Node       *_nk_ag_node_of      (NkTensor    *t);
/* Attaches a node to @out when any input needs a gradient (else returns NULL). */
Node       *_nk_ag_record       (NkTensor    *out,
                                 NodeOp       op,
                                 NkTensor    *a,
                                 NkTensor    *b,
                                 NkTensor    *c);
/* Where the gradient of @t goes, and whether to add (beta 1) or overwrite (beta 0). */
NkTensor   *_nk_ag_grad_target  (NkTensor    *t,
                                 double      *beta,
                                 GError     **error);
/* Adds @contrib (possibly of a broadcast shape) to the gradient of @t; @fresh: the
 * caller's private buffer, adoptable as is. */
gboolean    _nk_ag_accumulate   (NkTensor    *t,
                                 NkTensor    *contrib,
                                 gboolean     fresh,
                                 GError     **error);
/* A contiguous arena buffer shaped like @like. */
NkTensor   *_nk_ag_take_like    (NkTensor    *like,
                                 NkBucket     bucket,
                                 GError     **error);
/* Adds @flops to @kind's bucket and, with @add_to_total, to nk_flops_get()'s total
 * (without it when an nk-ops call already counted them there). */
void        _nk_ag_count_flops  (NkFlopKind   kind,
                                 guint64      flops,
                                 gboolean     add_to_total);

/* nk_ag_cross_entropy() on a non-CPU device (nk-autograd-nn.c, over the device's
 * row kernels); @logits are f32/f64 [N, V], @targets [N] integers on any device. */
NkTensor   *_nk_ag_cross_entropy_rows (NkTensor  *logits,
                                       NkTensor  *targets,
                                       GError   **error);

G_END_DECLS
