/* nk-model-private.h: what nk-model.c shares with the architectures beside it
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-model-arch.h"

G_BEGIN_DECLS

struct _NkModel
{
  const NkModelArch *arch;
  NkModelShape       shape;
  NkDType            dtype;
  GPtrArray         *params;   /* NkTensor*, state_dict order */
  GPtrArray         *names;    /* char*, NULL-terminated */
  GArray            *fan_in;   /* gint64 per param; 0 marks an embedding */
};

/* The architectures, each filled in its own file; nk-model.c lists them. */
extern const NkModelArch _nk_cruncher_arch;
extern const NkModelArch _nk_tiny_lm_arch;
extern const NkModelArch _nk_gpt_arch;

NkModel    *_nk_model_new        (const NkModelArch  *arch,
                                  const NkModelShape *shape,
                                  NkDType             dtype);
gboolean    _nk_model_add_param  (NkModel       *model,
                                  const char    *name,
                                  int            ndim,
                                  const gint64  *shape,
                                  gint64         fan_in,
                                  GError       **error);
gboolean    _nk_model_add_linear (NkModel       *model,
                                  const char    *prefix,
                                  gint64         in,
                                  gint64         out,
                                  GError       **error);
static inline NkTensor *
_nk_model_param (NkModel *model,
                 guint    i)
{
  return g_ptr_array_index (model->params, i);
}

/* The lecture's bounds on D and L, with the sentence a model fails with. */
gboolean    _nk_model_check_sizes      (guint          dim,
                                        guint          layers,
                                        GError       **error);
/* Every weight and bias by @kind with its recorded fan_in; an embedding (fan_in
 * 0) N(0, 1), as torch.nn.Embedding. Draws in state_dict order. */
gboolean    _nk_model_init_by_fan_in   (NkModel       *model,
                                        NkRng         *rng,
                                        NkInitKind     kind,
                                        GError       **error);
/* Cross-entropy of logits [N, V] against the next tokens, [B, T] or [N]. */
NkTensor   *_nk_model_next_token_loss  (NkModel       *model,
                                        NkTensor      *logits,
                                        NkTensor      *target,
                                        GError       **error);

G_END_DECLS
