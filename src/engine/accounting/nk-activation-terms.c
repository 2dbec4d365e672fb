/* nk-activation-terms.c: the activation table's row names and explanations
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "nk-activation-terms.h"
#include "nk-json.h"

static const struct {
  const char *key;
  const char *name;
  const char *why;
} terms[NK_ACT_N_TERMS] = {
  [NK_ACT_TERM_RESIDUAL] = {
    "residual",
    N_("Residual stream"),
    N_("The embedding output and each block’s two sums, the inputs of every LayerNorm. Napkin, like PyTorch’s autocast, keeps them in fp32; the Planner counts them at the run’s bytes per value.") },
  [NK_ACT_TERM_NORM_STATS] = {
    "norm_stats",
    N_("LayerNorm mean and 1/σ"),
    N_("Two fp32 numbers a token for each LayerNorm, as PyTorch’s native_layer_norm saves them; Korthikanti et al. leave them out, the Planner adds them.") },
  [NK_ACT_TERM_NORM_OUTPUT] = {
    "norm_output",
    N_("LayerNorm outputs"),
    N_("The inputs of c_attn, c_fc and the head. LayerNorm returns fp32 under autocast, so Napkin keeps 4 bytes a value where the Planner counts the run’s bytes per value.") },
  [NK_ACT_TERM_QKV] = {
    "qkv",
    N_("Q, K and V"),
    N_("c_attn’s output, which both attention products read in backward.") },
  [NK_ACT_TERM_ATTN_OUTPUT] = {
    "attention_output",
    N_("Attention output"),
    N_("The heads merged back to [B, T, d], c_proj’s input.") },
  [NK_ACT_TERM_MLP] = {
    "mlp",
    N_("MLP, GELU input and output"),
    N_("c_fc’s output (GELU’s input) and GELU’s output (the second Linear’s input), 4·d wide each.") },
  [NK_ACT_TERM_SCORES] = {
    "scores",
    N_("Scores before softmax"),
    N_("q·kᵀ. Napkin’s graph keeps every op’s output until backward; PyTorch frees the scores once the softmax has read them (its backward needs only the output), so the Planner does not count them.") },
  [NK_ACT_TERM_PROBS] = {
    "probabilities",
    N_("Softmax output"),
    N_("The attention probabilities, which att·v and the softmax’s backward read. Napkin’s softmax returns fp32 under autocast.") },
  [NK_ACT_TERM_PROJ_OUTPUT] = {
    "projection_outputs",
    N_("Projections before the residual adds"),
    N_("The outputs of attention’s and the MLP’s c_proj. An add needs neither input for backward; Napkin’s graph keeps them anyway, PyTorch does not, nor does the Planner.") },
  [NK_ACT_TERM_DROPOUT] = {
    "dropout",
    N_("Dropout"),
    N_("Korthikanti et al. count a 1-byte mask after the embedding, attention and the MLP, and attention dropout’s output and mask. Napkin’s GPT has no dropout, like nanoGPT’s pretraining setting (dropout 0).") },
  [NK_ACT_TERM_LOGITS] = {
    "logits",
    N_("Logits and loss"),
    N_("The output layer’s [B·T, V] logits, which the cross entropy reads; the Planner counts them in fp32. Under autocast Napkin keeps the narrow logits and their fp32 copy.") },
  [NK_ACT_TERM_AUTOCAST] = {
    "autocast_copies",
    N_("Autocast’s rounded copies"),
    N_("Under bf16 or fp16 a product keeps the rounded copy of each fp32 operand it read (the LayerNorm outputs, the probabilities) and the softmax its scores widened to fp32, as torch.autocast does; the Planner counts each value once.") },
};

/**
 * nk_act_term_name:
 * @term: a term
 *
 * The term's name for people, as the app lists the terms.
 *
 * Returns: (transfer none): the name, translated ("Q, K and V")
 */
const char *
nk_act_term_name (NkActTerm term)
{
  g_return_val_if_fail (term < NK_ACT_N_TERMS, NULL);
  return _(terms[term].name);
}

/**
 * nk_act_term_why:
 * @term: a term
 *
 * What the term is and, where the Planner's count and a GPT's graph differ, why.
 *
 * Returns: (transfer none): one translated sentence
 */
const char *
nk_act_term_why (NkActTerm term)
{
  g_return_val_if_fail (term < NK_ACT_N_TERMS, NULL);
  return _(terms[term].why);
}

/**
 * nk_act_term_key:
 * @term: a term
 *
 * The term's key in JSON (CLI.md's "activation_terms"), never translated.
 *
 * Returns: (transfer none): the key ("norm_stats")
 */
const char *
nk_act_term_key (NkActTerm term)
{
  g_return_val_if_fail (term < NK_ACT_N_TERMS, NULL);
  return terms[term].key;
}

/**
 * nk_act_terms_build_json:
 * @builder: a #JsonBuilder inside an object, after a member name
 * @terms: (array fixed-size=12): bytes per term, indexed by #NkActTerm
 *
 * Adds an object of each term's key and bytes: the "activation_terms" of
 * `napkin-cli plan` and `napkin-cli train`.
 */
void
nk_act_terms_build_json (JsonBuilder  *builder,
                         const double  bytes[NK_ACT_N_TERMS])
{
  json_builder_begin_object (builder);
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    nk_json_add_member_double (builder, terms[i].key, bytes[i]);
  json_builder_end_object (builder);
}
