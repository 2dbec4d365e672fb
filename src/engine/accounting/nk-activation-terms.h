/* nk-activation-terms.h: the tensors a transformer keeps for backward, as rows of
 * one table
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Planner's activation formula (Korthikanti et al. 2022, nk-plan-cluster.c)
 * and what Napkin's GPT stores (nk-gpt.c) both split their bytes into these terms,
 * so the Training page can set them side by side, term by term, and say where and
 * why they differ.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

/**
 * NkActTerm:
 * @NK_ACT_TERM_RESIDUAL: the residual stream: the embedding output and each
 *   block's two sums, i.e. the inputs of every LayerNorm
 * @NK_ACT_TERM_NORM_STATS: each LayerNorm's saved mean and 1/σ (fp32 per token)
 * @NK_ACT_TERM_NORM_OUTPUT: the LayerNorms' outputs, the inputs of c_attn, c_fc
 *   and the head
 * @NK_ACT_TERM_QKV: Q, K and V
 * @NK_ACT_TERM_ATTN_OUTPUT: attention's output, c_proj's input
 * @NK_ACT_TERM_MLP: the MLP's GELU input and output
 * @NK_ACT_TERM_SCORES: q·kᵀ before the softmax
 * @NK_ACT_TERM_PROBS: the softmax's output
 * @NK_ACT_TERM_PROJ_OUTPUT: the two c_proj outputs a block adds to its stream
 * @NK_ACT_TERM_DROPOUT: dropout's masks and attention dropout's output
 * @NK_ACT_TERM_LOGITS: the logits (and their fp32 copy) and the loss
 * @NK_ACT_TERM_AUTOCAST: rounded copies autocast keeps of f32 operands
 * @NK_ACT_N_TERMS: the number of terms, the length of a terms array
 *
 * The rows of the activation table.
 */
typedef enum {
  NK_ACT_TERM_RESIDUAL,
  NK_ACT_TERM_NORM_STATS,
  NK_ACT_TERM_NORM_OUTPUT,
  NK_ACT_TERM_QKV,
  NK_ACT_TERM_ATTN_OUTPUT,
  NK_ACT_TERM_MLP,
  NK_ACT_TERM_SCORES,
  NK_ACT_TERM_PROBS,
  NK_ACT_TERM_PROJ_OUTPUT,
  NK_ACT_TERM_DROPOUT,
  NK_ACT_TERM_LOGITS,
  NK_ACT_TERM_AUTOCAST,
  NK_ACT_N_TERMS
} NkActTerm;

NK_AVAILABLE_IN_ALL
const char *nk_act_term_name (NkActTerm term);

NK_AVAILABLE_IN_ALL
const char *nk_act_term_why  (NkActTerm term);

NK_AVAILABLE_IN_ALL
const char *nk_act_term_key  (NkActTerm term);

NK_AVAILABLE_IN_ALL
void        nk_act_terms_build_json (JsonBuilder  *builder,
                                     const double  terms[NK_ACT_N_TERMS]);

G_END_DECLS
