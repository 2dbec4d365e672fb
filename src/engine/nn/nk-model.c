/* nk-model.c: a model: its parameters, the architecture table's list, state_dict I/O
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-model-private.h"

/**
 * nk_model_error_quark:
 *
 * The domain of %NK_MODEL_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-model-error-quark, nk_model_error)


/* Every architecture, each filled in its own file, in #NkModelKind order. */
static const NkModelArch *const archs[] = {
  &_nk_cruncher_arch,
  &_nk_tiny_lm_arch,
  &_nk_gpt_arch,
};

/**
 * nk_model_archs:
 * @out_n: (out): the number of architectures
 *
 * Every architecture the engine has, in #NkModelKind order.
 *
 * Returns: (transfer none) (array length=out_n): the architectures
 */
const NkModelArch *const *
nk_model_archs (guint *out_n)
{
  if (out_n != NULL)
    *out_n = G_N_ELEMENTS (archs);
  return archs;
}

/**
 * nk_model_arch_lookup:
 * @kind: a kind
 *
 * The architecture of a kind.
 *
 * Returns: (transfer none) (nullable): @kind's architecture, %NULL for no kind
 */
const NkModelArch *
nk_model_arch_lookup (NkModelKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (archs); i++)
    if (archs[i]->kind == kind)
      return archs[i];
  return NULL;
}

/**
 * nk_model_arch_find:
 * @name: a name as --model takes it
 *
 * The architecture of that name or alias.
 *
 * Returns: (transfer none) (nullable): the architecture, %NULL for an unknown name
 */
const NkModelArch *
nk_model_arch_find (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (archs); i++)
    if (g_str_equal (name, archs[i]->name) || g_strcmp0 (name, archs[i]->alias) == 0)
      return archs[i];
  return NULL;
}

/**
 * nk_model_kind_to_string:
 * @kind: a kind
 *
 * The kind's name as the CLI's --model takes it ("cruncher", "tiny-lm", "gpt").
 *
 * Returns: (transfer none): a static string
 */
const char *
nk_model_kind_to_string (NkModelKind kind)
{
  const NkModelArch *arch = nk_model_arch_lookup (kind);

  g_return_val_if_fail (arch != NULL, NULL);
  return arch->name;
}

/**
 * nk_model_kind_from_string:
 * @text: a name
 * @out_kind: (out): the kind
 *
 * Reads a name written by nk_model_kind_to_string().
 *
 * Returns: %TRUE if @text names a kind
 */
gboolean
nk_model_kind_from_string (const char  *text,
                           NkModelKind *out_kind)
{
  const NkModelArch *arch = nk_model_arch_find (text);

  if (arch == NULL)
    return FALSE;
  *out_kind = arch->kind;
  return TRUE;
}

NkModel *
nk_model_new (NkModelKind          kind,
              const NkModelShape  *shape,
              NkDType              dtype,
              GError             **error)
{
  const NkModelArch *arch = nk_model_arch_lookup (kind);

  g_return_val_if_fail (arch != NULL && shape != NULL, NULL);
  return arch->build (shape, dtype, error);
}

NkModel *
_nk_model_new (const NkModelArch  *arch,
               const NkModelShape *shape,
               NkDType             dtype)
{
  NkModel *model = g_new0 (NkModel, 1);

  model->arch = arch;
  model->shape = *shape;
  model->dtype = dtype;
  model->params = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_tensor_unref);
  model->names = g_ptr_array_new_with_free_func (g_free);
  model->fan_in = g_array_new (FALSE, FALSE, sizeof (gint64));
  return model;
}

/**
 * nk_model_free: (skip)
 * @model: (nullable) (transfer full): a model
 *
 * Frees the model and drops its parameters.
 */
void
nk_model_free (NkModel *model)
{
  if (model == NULL)
    return;
  g_ptr_array_unref (model->params);
  g_ptr_array_unref (model->names);
  g_array_unref (model->fan_in);
  g_free (model);
}

/* One parameter (zeros, PARAMS) with its gradient buffer (zeros, GRADS). */
gboolean
_nk_model_add_param (NkModel       *model,
                     const char    *name,
                     int            ndim,
                     const gint64  *shape,
                     gint64         fan_in,
                     GError       **error)
{
  g_autoptr(NkTensor) p = nk_tensor_new_full (NULL, model->dtype, ndim, shape,
                                              NK_BUCKET_PARAMS, TRUE, error);
  g_autoptr(NkTensor) g = NULL;

  if (p == NULL)
    return FALSE;
  g = nk_tensor_new_full (NULL, model->dtype, ndim, shape, NK_BUCKET_GRADS, TRUE, error);
  if (g == NULL)
    return FALSE;
  nk_tensor_set_requires_grad (p, TRUE);
  nk_tensor_set_grad (p, g);

  /* Keep the names array NULL-terminated for nk_model_get_param_names(). */
  if (model->names->len > 0)
    g_ptr_array_remove_index (model->names, model->names->len - 1);
  g_ptr_array_add (model->names, g_strdup (name));
  g_ptr_array_add (model->names, NULL);
  g_ptr_array_add (model->params, g_steal_pointer (&p));
  g_array_append_val (model->fan_in, fan_in);
  return TRUE;
}

gboolean
_nk_model_add_linear (NkModel     *model,
                      const char  *prefix,
                      gint64       in,
                      gint64       out,
                      GError     **error)
{
  g_autofree char *w = g_strconcat (prefix, ".weight", NULL);
  g_autofree char *b = g_strconcat (prefix, ".bias", NULL);

  return _nk_model_add_param (model, w, NK_SHAPE (out, in), in, error)
         && _nk_model_add_param (model, b, NK_SHAPE (out), in, error);
}

gboolean
_nk_model_check_sizes (guint    dim,
                       guint    layers,
                       GError **error)
{
  if (dim == 0 || dim > 65536 || layers > 4096)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A model needs 1 ≤ dim ≤ 65536 and at most 4096 layers (got dim %u, %u layers)."),
                   dim, layers);
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_model_get_arch: (skip)
 * @model: a model
 *
 * The architecture @model is.
 *
 * Returns: (transfer none): the architecture
 */
const NkModelArch *
nk_model_get_arch (NkModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return model->arch;
}

/**
 * nk_model_get_shape: (skip)
 * @model: a model
 *
 * The sizes @model has (a tiny LM has no context: it reads any).
 *
 * Returns: (transfer none): the sizes
 */
const NkModelShape *
nk_model_get_shape (NkModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return &model->shape;
}

/**
 * nk_model_get_kind: (skip)
 * @model: a model
 *
 * The model's architecture.
 *
 * Returns: the kind
 */
NkModelKind
nk_model_get_kind (NkModel *model)
{
  return model->arch->kind;
}

/**
 * nk_model_get_dim: (skip)
 * @model: a model
 *
 * The width D (the Cruncher's features, the LMs' embedding size).
 *
 * Returns: D
 */
guint
nk_model_get_dim (NkModel *model)
{
  return model->shape.dim;
}

/**
 * nk_model_get_layers: (skip)
 * @model: a model
 *
 * The number of hidden layers (a GPT's blocks).
 *
 * Returns: L
 */
guint
nk_model_get_layers (NkModel *model)
{
  return model->shape.layers;
}

/**
 * nk_model_get_vocab: (skip)
 * @model: a model
 *
 * The vocabulary size of a language model.
 *
 * Returns: V, 0 for the Cruncher
 */
guint
nk_model_get_vocab (NkModel *model)
{
  return model->shape.vocab;
}

/**
 * nk_model_get_n_head: (skip)
 * @model: a model
 *
 * A GPT's number of attention heads.
 *
 * Returns: the heads, 0 for the other models
 */
guint
nk_model_get_n_head (NkModel *model)
{
  return model->shape.n_head;
}

/**
 * nk_model_get_block_size: (skip)
 * @model: a model
 *
 * A GPT's block size T, the longest context it takes.
 *
 * Returns: T, 0 for the other models
 */
guint
nk_model_get_block_size (NkModel *model)
{
  return model->shape.context;
}

/**
 * nk_model_get_params: (skip)
 * @model: a model
 * @out_n: (out): the number of parameters
 *
 * The parameter tensors in state_dict order.
 *
 * Returns: (transfer none) (array length=out_n): the tensors
 */
NkTensor **
nk_model_get_params (NkModel *model,
                     guint   *out_n)
{
  g_return_val_if_fail (model != NULL, NULL);
  if (out_n != NULL)
    *out_n = model->params->len;
  return (NkTensor **) model->params->pdata;
}

/**
 * nk_model_get_param_name: (skip)
 * @model: a model
 * @index: below the parameter count
 *
 * The state_dict name of parameter @index ("layers.0.weight", …).
 *
 * Returns: (transfer none): the name
 */
const char *
nk_model_get_param_name (NkModel *model,
                         guint    index)
{
  g_return_val_if_fail (index < model->params->len, NULL);
  return g_ptr_array_index (model->names, index);
}

/**
 * nk_model_get_param_names: (skip)
 * @model: a model
 *
 * Every parameter's state_dict name, in order.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names
 */
const char *const *
nk_model_get_param_names (NkModel *model)
{
  return (const char *const *) model->names->pdata;
}

/**
 * nk_model_count_parameters: (skip)
 * @model: a model
 *
 * The total number of scalar parameters (elements of every parameter tensor).
 *
 * Returns: the count
 */
guint64
nk_model_count_parameters (NkModel *model)
{
  guint64 n = 0;

  for (guint i = 0; i < model->params->len; i++)
    n += nk_tensor_numel (g_ptr_array_index (model->params, i));
  return n;
}

gboolean
_nk_model_init_by_fan_in (NkModel     *model,
                          NkRng       *rng,
                          NkInitKind   kind,
                          GError     **error)
{
  for (guint i = 0; i < model->params->len; i++)
    {
      NkTensor *p = _nk_model_param (model, i);
      gint64 fan_in = g_array_index (model->fan_in, gint64, i);
      gboolean ok;

      ok = fan_in == 0 ? nk_init_normal_ (p, rng, 0.0, 1.0)
                       : nk_init_param_ (p, rng, kind, fan_in);
      if (!ok)
        {
          g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                       _("Cannot initialise %s on this device."),
                       nk_model_get_param_name (model, i));
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * nk_model_init: (skip)
 * @model: a model
 * @rng: the run's generator
 * @kind: the weights' rule for the lecture's models
 * @error: return location for a #GError
 *
 * Fills every parameter by the model's rule (#NkModelArch.init): for the lecture's
 * models every weight and bias by @kind with fan_in = in_features (the embedding
 * N(0, 1) as torch.nn.Embedding), drawn in state_dict order.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_model_init (NkModel     *model,
               NkRng       *rng,
               NkInitKind   kind,
               GError     **error)
{
  g_return_val_if_fail (model != NULL, FALSE);
  return model->arch->init (model, rng, kind, error);
}

guint64
nk_model_activation_bytes (NkModel *model,
                           guint64  rows,
                           NkDType  compute)
{
  g_return_val_if_fail (model != NULL, 0);
  return model->arch->activation_bytes (&model->shape, rows, model->dtype, compute);
}

/**
 * nk_model_forward: (skip)
 * @model: a model
 * @input: Cruncher: x [B, D]; TinyLM and GPT: tokens [B, T] (a GPT also takes a 1-D
 *   [T] as one sequence)
 * @error: return location for a #GError
 *
 * The forward pass without the loss, recording the graph.
 *
 * Returns: (transfer full) (nullable): Cruncher: predictions [B, 1]; TinyLM and GPT:
 *   logits [B·T, V]
 */
NkTensor *
nk_model_forward (NkModel   *model,
                  NkTensor  *input,
                  GError   **error)
{
  g_return_val_if_fail (model != NULL && input != NULL, NULL);
  return model->arch->forward (model, input, error);
}

NkTensor *
nk_model_loss (NkModel   *model,
               NkTensor  *input,
               NkTensor  *target,
               GError   **error)
{
  g_autoptr(NkTensor) out = nk_model_forward (model, input, error);

  if (out == NULL)
    return NULL;
  return model->arch->loss (model, out, target, error);
}

NkTensor *
_nk_model_next_token_loss (NkModel   *model,
                           NkTensor  *logits,
                           NkTensor  *target,
                           GError   **error)
{
  g_autoptr(NkTensor) flat = nk_tensor_reshape (target, NK_SHAPE (nk_tensor_numel (target)), error);

  if (flat == NULL)
    return NULL;
  return nk_ag_cross_entropy (logits, flat, error);
}

/**
 * nk_model_zero_grad: (skip)
 * @model: a model
 * @error: return location for a #GError
 *
 * Sets every parameter's gradient to zeros, as nk_autograd_zero_grad().
 *
 * Returns: %TRUE on success
 */
gboolean
nk_model_zero_grad (NkModel  *model,
                    GError  **error)
{
  return nk_autograd_zero_grad ((NkTensor **) model->params->pdata, model->params->len,
                                error);
}

/* Reads a parameter through host memory, so it works for a GPU parameter too. */
typedef gboolean (*ReadFunc) (gpointer      source,
                              const char   *name,
                              NkDType       dtype,
                              guint         ndim,
                              const gint64 *shape,
                              gpointer      dst,
                              GError      **error);

static gboolean
read_param (NkTensor    *p,
            ReadFunc     read,
            gpointer     source,
            const char  *name,
            GError     **error)
{
  g_autoptr(NkTensor) host = NULL;

  if (nk_device_get_kind (nk_tensor_get_device (p)) == NK_DEVICE_CPU && nk_tensor_is_contiguous (p))
    return read (source, name, p->dtype, p->ndim, p->shape, nk_tensor_data (p), error);

  host = nk_tensor_new_full (nk_device_get_cpu (), p->dtype, p->ndim, p->shape,
                             NK_BUCKET_OTHER, FALSE, error);
  return host != NULL
         && read (source, name, p->dtype, p->ndim, p->shape, nk_tensor_data (host), error)
         && nk_tensor_copy_ (p, host, error);
}

static gboolean
read_params (NkModel   *model,
             ReadFunc   read,
             gpointer   source,
             GError   **error)
{
  for (guint i = 0; i < model->params->len; i++)
    if (!read_param (_nk_model_param (model, i), read, source, nk_model_get_param_name (model, i), error))
      return FALSE;
  return TRUE;
}

static gboolean
read_safetensors (gpointer source, const char *name, NkDType dtype, guint ndim,
                  const gint64 *shape, gpointer dst, GError **error)
{
  return nk_safetensors_read_into (source, name, dtype, ndim, shape, dst, error);
}

static gboolean
read_checkpoint (gpointer source, const char *name, NkDType dtype, guint ndim,
                 const gint64 *shape, gpointer dst, GError **error)
{
  return nk_checkpoint_read_into (source, name, dtype, ndim, shape, dst, error);
}

gboolean
nk_model_load_state_dict (NkModel        *model,
                          NkSafetensors  *st,
                          GError        **error)
{
  return read_params (model, read_safetensors, st, error);
}

/* The sizes an architecture may keep as metadata (#NkModelArch.metadata), under
 * nanoGPT's names, for the loaders that rebuild a model from its file alone
 * (nk_gpt_load()). */
static const struct {
  NkModelFields field;
  const char   *key;
  gsize         offset;
} metadata_keys[] = {
  { NK_MODEL_FIELD_HEADS, "n_head", G_STRUCT_OFFSET (NkModelShape, n_head) },
};

static char *
metadata_value (NkModel *model,
                guint    i)
{
  return g_strdup_printf ("%u", G_STRUCT_MEMBER (guint, &model->shape, metadata_keys[i].offset));
}

/**
 * nk_model_save_state_dict: (skip)
 * @model: a model
 * @writer: a safetensors writer
 * @error: return location for a #GError
 *
 * Adds every parameter to @writer under its state_dict name.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_model_save_state_dict (NkModel              *model,
                          NkSafetensorsWriter  *writer,
                          GError              **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (metadata_keys); i++)
    if (model->arch->metadata & metadata_keys[i].field)
      {
        g_autofree char *value = metadata_value (model, i);

        nk_safetensors_writer_set_metadata (writer, metadata_keys[i].key, value);
      }
  for (guint i = 0; i < model->params->len; i++)
    if (!nk_safetensors_writer_add_tensor (writer, nk_model_get_param_name (model, i),
                                           _nk_model_param (model, i), error))
      return FALSE;
  return TRUE;
}

/**
 * nk_model_load_checkpoint: (skip)
 * @model: a model
 * @ck: a checkpoint holding every parameter under its name
 * @error: return location for a #GError (a missing tensor or a wrong shape)
 *
 * As nk_model_load_state_dict(), from a checkpoint.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_model_load_checkpoint (NkModel       *model,
                          NkCheckpoint  *ck,
                          GError       **error)
{
  return read_params (model, read_checkpoint, ck, error);
}

/**
 * nk_model_save_checkpoint: (skip)
 * @model: a model
 * @ck: a checkpoint being built
 * @error: return location for a #GError
 *
 * Adds every parameter to @ck under its state_dict name.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_model_save_checkpoint (NkModel       *model,
                          NkCheckpoint  *ck,
                          GError       **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (metadata_keys); i++)
    if (model->arch->metadata & metadata_keys[i].field)
      {
        g_autofree char *value = metadata_value (model, i);

        nk_checkpoint_set_metadata (ck, metadata_keys[i].key, value);
      }
  for (guint i = 0; i < model->params->len; i++)
    if (!nk_checkpoint_add_tensor (ck, nk_model_get_param_name (model, i),
                                   _nk_model_param (model, i), error))
      return FALSE;
  return TRUE;
}
