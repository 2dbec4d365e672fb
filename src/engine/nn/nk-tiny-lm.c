/* nk-tiny-lm.c: the lecture's tiny byte-level LM, an embedding, L Linear + ReLU and a head
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tokens [B, T] → embedding → L × (Linear + ReLU) → logits [B·T, V]; cross-entropy
 * against the next tokens (nk-model.h).
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "nk-model-private.h"

static gboolean
tiny_lm_check_shape (const NkModelShape  *shape,
                     GError             **error)
{
  if (!_nk_model_check_sizes (shape->dim, shape->layers, error))
    return FALSE;
  if (shape->vocab == 0 || shape->vocab > 65536)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A vocabulary of %u tokens is not between 1 and 65536."), shape->vocab);
      return FALSE;
    }
  return TRUE;
}

NkModel *
nk_model_new_tiny_lm (guint     vocab,
                      guint     dim,
                      guint     layers,
                      NkDType   dtype,
                      GError  **error)
{
  NkModelShape shape = { .vocab = vocab, .dim = dim, .layers = layers };
  g_autoptr(NkModel) model = NULL;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64, NULL);
  if (!tiny_lm_check_shape (&shape, error))
    return NULL;

  model = _nk_model_new (&_nk_tiny_lm_arch, &shape, dtype);
  if (!_nk_model_add_param (model, "embedding.weight", NK_SHAPE (vocab, dim), 0, error))
    return NULL;
  for (guint l = 0; l < layers; l++)
    {
      g_autofree char *prefix = g_strdup_printf ("layers.%u", l);

      if (!_nk_model_add_linear (model, prefix, dim, dim, error))
        return NULL;
    }
  if (!_nk_model_add_linear (model, "head", dim, vocab, error))
    return NULL;
  return g_steal_pointer (&model);
}

/* The context is the trainer's business: the model reads any number of tokens
 * (nk_model_get_block_size() says 0). */
static NkModel *
tiny_lm_build (const NkModelShape  *shape,
               NkDType              dtype,
               GError             **error)
{
  return nk_model_new_tiny_lm (shape->vocab, shape->dim, shape->layers, dtype, error);
}

/* tokens [B, T] → logits [B·T, V] */
static NkTensor *
tiny_lm_forward (NkModel   *model,
                 NkTensor  *input,
                 GError   **error)
{
  g_autoptr(NkTensor) flat = nk_tensor_reshape (input, NK_SHAPE (nk_tensor_numel (input)), error);
  g_autoptr(NkTensor) h = NULL;
  guint p = 1;

  if (flat == NULL)
    return NULL;
  h = nk_ag_embedding (_nk_model_param (model, 0), flat, error);
  if (h == NULL)
    return NULL;
  for (guint l = 0; l < model->shape.layers; l++, p += 2)
    {
      g_autoptr(NkTensor) lin = nk_ag_linear (h, _nk_model_param (model, p),
                                              _nk_model_param (model, p + 1), error);
      NkTensor *act;

      if (lin == NULL)
        return NULL;
      act = nk_ag_relu (lin, error);
      if (act == NULL)
        return NULL;
      nk_tensor_unref (h);
      h = act;
    }
  return nk_ag_linear (h, _nk_model_param (model, p), _nk_model_param (model, p + 1), error);
}

/* 2VD + V + L(D² + D) */
static guint64
tiny_lm_count_parameters (const NkModelShape *shape)
{
  guint64 d = shape->dim, l = shape->layers, v = shape->vocab;

  return v * d + l * (d * d + d) + v * d + v;
}

static char **
tiny_lm_param_names (const NkModelShape *shape)
{
  GPtrArray *names = g_ptr_array_new ();

  g_ptr_array_add (names, g_strdup ("embedding.weight"));
  for (guint l = 0; l < shape->layers; l++)
    {
      g_ptr_array_add (names, g_strdup_printf ("layers.%u.weight", l));
      g_ptr_array_add (names, g_strdup_printf ("layers.%u.bias", l));
    }
  g_ptr_array_add (names, g_strdup ("head.weight"));
  g_ptr_array_add (names, g_strdup ("head.bias"));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

static char *
tiny_lm_describe (const NkModelShape *shape)
{
  return g_strdup_printf (_("Tiny LM D %u · L %u · T %u"), shape->dim, shape->layers,
                          shape->context);
}

/* N = @rows tokens: the embedding, N·D·w; per layer the Linear's and the ReLU's
 * outputs, 2·N·D·c; the logits, N·V·c; under autocast the rounded embedding, N·D·c,
 * and the logits widened for the softmax, N·V·4; the loss, 4
 * (nk_model_activation_bytes()). */
static guint64
tiny_lm_activation_bytes (const NkModelShape *shape,
                          guint64             rows,
                          NkDType             weights,
                          NkDType             compute)
{
  guint64 c = nk_dtype_element_size (compute), w = nk_dtype_element_size (weights);
  guint64 d = shape->dim, l = shape->layers, v = shape->vocab;
  guint64 bytes = rows * d * w + 2 * l * rows * d * c + rows * v * c;

  if (compute != weights)
    bytes += rows * d * c + rows * v * 4;
  return bytes + 4;
}

const NkModelArch _nk_tiny_lm_arch = {
  .kind = NK_MODEL_TINY_LM,
  .name = "tiny-lm",
  .alias = "lm",
  .title = N_("Tiny language model"),
  .description = N_("A byte-level language model: an embedding, L Linear(D, D) + ReLU layers and a head, predicting the next byte of the text."),
  .fields = NK_MODEL_FIELD_DIM | NK_MODEL_FIELD_LAYERS | NK_MODEL_FIELD_CONTEXT,
  .input = NK_MODEL_INPUT_TOKENS,
  .default_lr = 0.01,
  .check_shape = tiny_lm_check_shape,
  .build = tiny_lm_build,
  .init = _nk_model_init_by_fan_in,
  .forward = tiny_lm_forward,
  .loss = _nk_model_next_token_loss,
  .count_parameters = tiny_lm_count_parameters,
  .param_names = tiny_lm_param_names,
  .activation_bytes = tiny_lm_activation_bytes,
  .describe = tiny_lm_describe,
};
