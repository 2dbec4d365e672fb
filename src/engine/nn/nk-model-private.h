/* nk-model-private.h: what nk-model.c shares with the model files beside it (nk-gpt.c)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-model.h"

G_BEGIN_DECLS

struct _NkModel
{
  NkModelKind kind;
  guint       dim;
  guint       layers;
  guint       vocab;
  guint       n_head;       /* GPT */
  guint       block_size;   /* GPT: T, the rows of transformer.wpe.weight */
  NkDType     dtype;
  GPtrArray  *params;   /* NkTensor*, state_dict order */
  GPtrArray  *names;    /* char*, NULL-terminated */
  GArray     *fan_in;   /* gint64 per param; 0 marks an embedding */
};

NkModel    *_nk_model_new        (NkModelKind    kind,
                                  guint          dim,
                                  guint          layers,
                                  guint          vocab,
                                  NkDType        dtype);
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

/* nk-gpt.c */
gboolean    _nk_gpt_init         (NkModel       *model,
                                  NkRng         *rng,
                                  GError       **error);
NkTensor   *_nk_gpt_forward      (NkModel       *model,
                                  NkTensor      *input,
                                  GError       **error);
guint64     _nk_gpt_activation_bytes (guint      vocab,
                                      guint      dim,
                                      guint      layers,
                                      guint      n_head,
                                      guint64    batch,
                                      guint64    block,
                                      NkDType    compute);

G_END_DECLS
