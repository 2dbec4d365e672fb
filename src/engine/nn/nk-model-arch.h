/* nk-model-arch.h: the model architecture table: what each model builds, runs and counts
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every model Napkin trains is one #NkModelArch, a static const table in the
 * model's own file (nk-cruncher.c, nk-tiny-lm.c, nk-gpt.c) that nk-model.c's one
 * list gathers, as a builtins table. nk-model.c and the trainer call through the
 * table and read its properties; neither names an architecture.
 *
 * A table's entries take the sizes as an #NkModelShape, so what a model counts
 * (parameters, names, activation bytes, FLOPs) is known before it is built, and
 * agrees with what the built model allocates (test-model-arch checks each entry
 * of each table against the model it builds and a step's measured buckets).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include "nk-version-macros.h"

#include "nk-activation-terms.h"
#include "nk-model.h"

G_BEGIN_DECLS

/**
 * NkModelShape:
 * @vocab: V, the tokens a model of tokens reads (the tiny LM's 256 bytes)
 * @dim: D, the width (a GPT's n_embd)
 * @layers: L
 * @n_head: H, a GPT's attention heads
 * @context: T, the tokens of a sequence (a GPT's block size)
 *
 * The sizes of a model; an architecture reads those its #NkModelArch.fields name
 * and ignores the rest.
 */
typedef struct {
  guint vocab;
  guint dim;
  guint layers;
  guint n_head;
  guint context;
} NkModelShape;

/**
 * NkModelFields:
 * @NK_MODEL_FIELD_DIM: #NkModelShape.dim
 * @NK_MODEL_FIELD_LAYERS: #NkModelShape.layers
 * @NK_MODEL_FIELD_CONTEXT: #NkModelShape.context (a step reads sequences of it)
 * @NK_MODEL_FIELD_HEADS: #NkModelShape.n_head
 * @NK_MODEL_FIELD_VOCAB: #NkModelShape.vocab, as a setting (the tiny LM's is fixed)
 *
 * Which sizes an architecture reads.
 */
typedef enum {
  NK_MODEL_FIELD_DIM     = 1 << 0,
  NK_MODEL_FIELD_LAYERS  = 1 << 1,
  NK_MODEL_FIELD_CONTEXT = 1 << 2,
  NK_MODEL_FIELD_HEADS   = 1 << 3,
  NK_MODEL_FIELD_VOCAB   = 1 << 4,
} NkModelFields;

/**
 * NkModelInput:
 * @NK_MODEL_INPUT_VECTORS: x [B, D] (f32) and targets y [B]
 * @NK_MODEL_INPUT_TOKENS: token ids [B·T] and the next tokens [B·T] (int32)
 * @NK_MODEL_INPUT_SEQUENCES: token ids [B, T] and the next tokens [B·T]: a batch of
 *   sequences, as a batches file holds them
 *
 * What one step feeds a model.
 */
typedef enum {
  NK_MODEL_INPUT_VECTORS,
  NK_MODEL_INPUT_TOKENS,
  NK_MODEL_INPUT_SEQUENCES,
} NkModelInput;

typedef struct _NkModelArch NkModelArch;

/**
 * NkModelArch:
 * @kind: the model's #NkModelKind
 * @name: its name in the CLI's --model, a run's config.json and the GEnum nick
 * @alias: (nullable): another name --model takes
 * @title: its name in the app, marked with N_() (translate it with _())
 * @description: one sentence of what it is, marked with N_() (translate it with _())
 * @fields: the sizes it reads
 * @metadata: the sizes its tensors' shapes do not tell, saved beside them as
 *   metadata ("n_head") so a file alone rebuilds the model
 * @input: what a step feeds it
 * @default_lr: the learning rate a run starts from
 * @check_shape: the sizes @build takes, failing with the sentence @build would
 * @build: a model of those sizes, parameters zero
 * @init: fills the parameters from @rng (@kind is the lecture's rule; an
 *   architecture with a rule of its own may ignore it)
 * @forward: the forward pass through nk_ag_*() ops
 * @loss: the 0-D loss of the forward's output against the targets
 * @count_parameters: what nk_model_count_parameters() says of the built model
 * @param_names: the built model's state_dict names, in order, NULL-terminated
 * @activation_bytes: what one step's forward keeps for backward (the activations
 *   bucket) for @rows rows (B, or B·T tokens), @weights the parameters' dtype and
 *   @compute the autocast dtype (%NK_DTYPE_F32 without)
 * @describe: one line naming the model and its sizes in the app's words
 *   ("GPT L 4 · H 4 · d 128 · T 64"), translated
 * @activation_terms: (nullable): the same by #NkActTerm, the Planner's transformer
 *   terms, for a batch of @batch sequences; its sum is @activation_bytes
 * @step_flops: (nullable): a step's FLOPs by the model's formula (PaLM's for a GPT);
 *   without it the Planner's 6·N per token stands
 * @step_flops_caption: (nullable): that formula as the app's caption says it, marked
 *   with N_() (with @step_flops; translate it with _())
 * @flops_terms: (nullable): that formula by #NkFlopKind, and what the ops count
 * @generate: (nullable): text from the model (nk_gpt_generate()'s contract)
 *
 * One architecture. Every entry without (nullable) is required.
 */
struct _NkModelArch
{
  NkModelKind    kind;
  const char    *name;
  const char    *alias;
  const char    *title;
  const char    *description;
  NkModelFields  fields;
  NkModelFields  metadata;
  NkModelInput   input;
  double         default_lr;

  gboolean  (*check_shape)      (const NkModelShape *shape,
                                 GError            **error);
  NkModel  *(*build)            (const NkModelShape *shape,
                                 NkDType             dtype,
                                 GError            **error);
  gboolean  (*init)             (NkModel            *model,
                                 NkRng              *rng,
                                 NkInitKind          kind,
                                 GError            **error);
  NkTensor *(*forward)          (NkModel            *model,
                                 NkTensor           *input,
                                 GError            **error);
  NkTensor *(*loss)             (NkModel            *model,
                                 NkTensor           *output,
                                 NkTensor           *target,
                                 GError            **error);
  guint64   (*count_parameters) (const NkModelShape *shape);
  char    **(*param_names)      (const NkModelShape *shape);
  guint64   (*activation_bytes) (const NkModelShape *shape,
                                 guint64             rows,
                                 NkDType             weights,
                                 NkDType             compute);
  char     *(*describe)         (const NkModelShape *shape);

  void      (*activation_terms) (const NkModelShape *shape,
                                 guint64             batch,
                                 NkDType             compute,
                                 guint64             terms[NK_ACT_N_TERMS]);
  double    (*step_flops)       (const NkModelShape *shape,
                                 double              tokens);
  const char *step_flops_caption;
  void      (*flops_terms)      (const NkModelShape *shape,
                                 guint               batch,
                                 double              palm[NK_N_FLOP_KINDS],
                                 double              ops[NK_N_FLOP_KINDS]);
  GArray   *(*generate)         (NkModel            *model,
                                 const guint32      *prompt,
                                 gsize               n_prompt,
                                 guint               n_new,
                                 double              temperature,
                                 guint               top_k,
                                 NkRng              *rng,
                                 GError            **error);
};

NK_AVAILABLE_IN_ALL
const NkModelArch *const *nk_model_archs      (guint               *out_n);
NK_AVAILABLE_IN_ALL
const NkModelArch  *nk_model_arch_lookup      (NkModelKind          kind);
NK_AVAILABLE_IN_ALL
const NkModelArch  *nk_model_arch_find        (const char          *name);
NK_AVAILABLE_IN_ALL
const NkModelArch  *nk_model_get_arch         (NkModel             *model);
NK_AVAILABLE_IN_ALL
const NkModelShape *nk_model_get_shape        (NkModel             *model);

/**
 * nk_model_new: (skip)
 * @kind: the architecture
 * @shape: its sizes (those it does not read are ignored)
 * @dtype: f32 (training) or f64 (gradient checks)
 * @error: return location for a #GError (%NK_MODEL_ERROR_INVALID)
 *
 * A model of any architecture, built by its #NkModelArch.build. Not for bindings
 * (see #NkModel).
 *
 * Returns: (transfer full) (nullable): the model, parameters zero until initialised
 */
NK_AVAILABLE_IN_ALL
NkModel            *nk_model_new              (NkModelKind          kind,
                                               const NkModelShape  *shape,
                                               NkDType              dtype,
                                               GError             **error);

G_END_DECLS
