/* nk-model.c: a model: its parameters, the architecture table's list, state_dict I/O
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-model-private.h"

G_DEFINE_QUARK (nk-model-error-quark, nk_model_error)


/* Every architecture, each filled in its own file, in #NkModelKind order. */
static const NkModelArch *const archs[] = {
  &_nk_cruncher_arch,
  &_nk_tiny_lm_arch,
  &_nk_gpt_arch,
};

const NkModelArch *const *
nk_model_archs (guint *out_n)
{
  if (out_n != NULL)
    *out_n = G_N_ELEMENTS (archs);
  return archs;
}

const NkModelArch *
nk_model_arch_lookup (NkModelKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (archs); i++)
    if (archs[i]->kind == kind)
      return archs[i];
  return NULL;
}

const NkModelArch *
nk_model_arch_find (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (archs); i++)
    if (g_str_equal (name, archs[i]->name) || g_strcmp0 (name, archs[i]->alias) == 0)
      return archs[i];
  return NULL;
}

const char *
nk_model_kind_to_string (NkModelKind kind)
{
  const NkModelArch *arch = nk_model_arch_lookup (kind);

  g_return_val_if_fail (arch != NULL, NULL);
  return arch->name;
}

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

const NkModelArch *
nk_model_get_arch (NkModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return model->arch;
}

const NkModelShape *
nk_model_get_shape (NkModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  return &model->shape;
}

NkModelKind
nk_model_get_kind (NkModel *model)
{
  return model->arch->kind;
}

guint
nk_model_get_dim (NkModel *model)
{
  return model->shape.dim;
}

guint
nk_model_get_layers (NkModel *model)
{
  return model->shape.layers;
}

guint
nk_model_get_vocab (NkModel *model)
{
  return model->shape.vocab;
}

guint
nk_model_get_n_head (NkModel *model)
{
  return model->shape.n_head;
}

guint
nk_model_get_block_size (NkModel *model)
{
  return model->shape.context;
}

NkTensor **
nk_model_get_params (NkModel *model,
                     guint   *out_n)
{
  g_return_val_if_fail (model != NULL, NULL);
  if (out_n != NULL)
    *out_n = model->params->len;
  return (NkTensor **) model->params->pdata;
}

const char *
nk_model_get_param_name (NkModel *model,
                         guint    index)
{
  g_return_val_if_fail (index < model->params->len, NULL);
  return g_ptr_array_index (model->names, index);
}

const char *const *
nk_model_get_param_names (NkModel *model)
{
  return (const char *const *) model->names->pdata;
}

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

gboolean
nk_model_load_checkpoint (NkModel       *model,
                          NkCheckpoint  *ck,
                          GError       **error)
{
  return read_params (model, read_checkpoint, ck, error);
}

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
