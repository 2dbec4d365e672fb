/* nk-model.c: the lecture's models: Linear, the Cruncher and a tiny byte-level LM
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-model-private.h"

G_DEFINE_QUARK (nk-model-error-quark, nk_model_error)


const char *
nk_model_kind_to_string (NkModelKind kind)
{
  return kind == NK_MODEL_TINY_LM ? "tiny-lm" : kind == NK_MODEL_GPT ? "gpt" : "cruncher";
}

gboolean
nk_model_kind_from_string (const char  *text,
                           NkModelKind *out_kind)
{
  if (g_strcmp0 (text, "cruncher") == 0)
    *out_kind = NK_MODEL_CRUNCHER;
  else if (g_strcmp0 (text, "tiny-lm") == 0 || g_strcmp0 (text, "lm") == 0)
    *out_kind = NK_MODEL_TINY_LM;
  else if (g_strcmp0 (text, "gpt") == 0)
    *out_kind = NK_MODEL_GPT;
  else
    return FALSE;
  return TRUE;
}

NkModel *
_nk_model_new (NkModelKind kind,
               guint       dim,
               guint       layers,
               guint       vocab,
               NkDType     dtype)
{
  NkModel *model = g_new0 (NkModel, 1);

  model->kind = kind;
  model->dim = dim;
  model->layers = layers;
  model->vocab = vocab;
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

static gboolean
check_sizes (guint    dim,
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

NkModel *
nk_model_new_cruncher (guint     dim,
                       guint     layers,
                       NkDType   dtype,
                       GError  **error)
{
  g_autoptr(NkModel) model = NULL;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64, NULL);
  if (!check_sizes (dim, layers, error))
    return NULL;

  model = _nk_model_new (NK_MODEL_CRUNCHER, dim, layers, 0, dtype);
  for (guint l = 0; l < layers; l++)
    {
      g_autofree char *prefix = g_strdup_printf ("layers.%u", l);

      if (!_nk_model_add_linear (model, prefix, dim, dim, error))
        return NULL;
    }
  if (!_nk_model_add_linear (model, "final", dim, 1, error))
    return NULL;
  return g_steal_pointer (&model);
}

NkModel *
nk_model_new_tiny_lm (guint     vocab,
                      guint     dim,
                      guint     layers,
                      NkDType   dtype,
                      GError  **error)
{
  g_autoptr(NkModel) model = NULL;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64, NULL);
  if (!check_sizes (dim, layers, error))
    return NULL;
  if (vocab == 0 || vocab > 65536)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A vocabulary of %u tokens is not between 1 and 65536."), vocab);
      return NULL;
    }

  model = _nk_model_new (NK_MODEL_TINY_LM, dim, layers, vocab, dtype);
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

NkModelKind
nk_model_get_kind (NkModel *model)
{
  return model->kind;
}

guint
nk_model_get_dim (NkModel *model)
{
  return model->dim;
}

guint
nk_model_get_layers (NkModel *model)
{
  return model->layers;
}

guint
nk_model_get_vocab (NkModel *model)
{
  return model->vocab;
}

guint
nk_model_get_n_head (NkModel *model)
{
  return model->n_head;
}

guint
nk_model_get_block_size (NkModel *model)
{
  return model->block_size;
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
nk_model_init (NkModel     *model,
               NkRng       *rng,
               NkInitKind   kind,
               GError     **error)
{
  /* nanoGPT's _init_weights: its own rule, whatever @kind says. */
  if (model->kind == NK_MODEL_GPT)
    return _nk_gpt_init (model, rng, error);

  for (guint i = 0; i < model->params->len; i++)
    {
      NkTensor *p = g_ptr_array_index (model->params, i);
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

guint64
nk_model_kind_activation_bytes (NkModelKind kind,
                                guint       vocab,
                                guint       dim,
                                guint       layers,
                                NkDType     weights,
                                guint64     rows,
                                NkDType     compute)
{
  guint64 c, w, d, l, bytes;
  gboolean narrow;

  c = nk_dtype_element_size (compute);
  w = nk_dtype_element_size (weights);
  d = dim;
  l = layers;
  narrow = compute != weights;

  if (kind == NK_MODEL_CRUNCHER)
    {
      bytes = l * rows * d * c + rows * c;
      if (narrow)
        bytes += rows * d * c;
      return bytes + rows * MAX (c, 4) + MAX (c, 4);
    }

  bytes = rows * d * w + 2 * l * rows * d * c + rows * (guint64) vocab * c;
  if (narrow)
    bytes += rows * d * c + rows * (guint64) vocab * 4;
  return bytes + 4;
}

guint64
nk_model_activation_bytes (NkModel *model,
                           guint64  rows,
                           NkDType  compute)
{
  g_return_val_if_fail (model != NULL, 0);

  if (model->kind == NK_MODEL_GPT)
    {
      guint64 t = model->block_size;

      return _nk_gpt_activation_bytes (model->vocab, model->dim, model->layers, model->n_head,
                                       rows / t, t, compute);
    }
  return nk_model_kind_activation_bytes (model->kind, model->vocab, model->dim, model->layers,
                                         model->dtype, rows, compute);
}

guint64
nk_model_kind_count_parameters (NkModelKind kind,
                                guint       vocab,
                                guint       dim,
                                guint       layers)
{
  guint64 d = dim, l = layers, v = vocab;

  /* The shapes nk_model_new_cruncher() and nk_model_new_tiny_lm() allocate. */
  if (kind == NK_MODEL_CRUNCHER)
    return l * (d * d + d) + d + 1;
  return v * d + l * (d * d + d) + v * d + v;
}

char **
nk_model_kind_param_names (NkModelKind kind,
                           guint       layers)
{
  GPtrArray *names = g_ptr_array_new ();

  if (kind == NK_MODEL_TINY_LM)
    g_ptr_array_add (names, g_strdup ("embedding.weight"));
  for (guint l = 0; l < layers; l++)
    {
      g_ptr_array_add (names, g_strdup_printf ("layers.%u.weight", l));
      g_ptr_array_add (names, g_strdup_printf ("layers.%u.bias", l));
    }
  g_ptr_array_add (names, g_strdup (kind == NK_MODEL_TINY_LM ? "head.weight" : "final.weight"));
  g_ptr_array_add (names, g_strdup (kind == NK_MODEL_TINY_LM ? "head.bias" : "final.bias"));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

static NkTensor *
param (NkModel *model,
       guint    i)
{
  return g_ptr_array_index (model->params, i);
}

NkTensor *
nk_model_forward (NkModel   *model,
                  NkTensor  *input,
                  GError   **error)
{
  g_autoptr(NkTensor) h = NULL;
  guint p = 0;

  g_return_val_if_fail (model != NULL && input != NULL, NULL);

  if (model->kind == NK_MODEL_GPT)
    return _nk_gpt_forward (model, input, error);
  if (model->kind == NK_MODEL_CRUNCHER)
    {
      h = nk_tensor_ref (input);
      for (guint l = 0; l <= model->layers; l++, p += 2)
        {
          NkTensor *next = nk_ag_linear (h, param (model, p), param (model, p + 1), error);

          if (next == NULL)
            return NULL;
          nk_tensor_unref (h);
          h = next;
        }
      return g_steal_pointer (&h);
    }

  /* TinyLM: tokens [B, T] → logits [B·T, V] */
  {
    g_autoptr(NkTensor) flat = nk_tensor_reshape (input, NK_SHAPE (nk_tensor_numel (input)), error);

    if (flat == NULL)
      return NULL;
    h = nk_ag_embedding (param (model, 0), flat, error);
    if (h == NULL)
      return NULL;
    p = 1;
    for (guint l = 0; l < model->layers; l++, p += 2)
      {
        g_autoptr(NkTensor) lin = nk_ag_linear (h, param (model, p), param (model, p + 1), error);
        NkTensor *act;

        if (lin == NULL)
          return NULL;
        act = nk_ag_relu (lin, error);
        if (act == NULL)
          return NULL;
        nk_tensor_unref (h);
        h = act;
      }
    return nk_ag_linear (h, param (model, p), param (model, p + 1), error);
  }
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
  if (model->kind == NK_MODEL_CRUNCHER)
    return nk_ag_mse_loss (out, target, error);

  {
    g_autoptr(NkTensor) flat = nk_tensor_reshape (target, NK_SHAPE (nk_tensor_numel (target)), error);

    if (flat == NULL)
      return NULL;
    return nk_ag_cross_entropy (out, flat, error);
  }
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
    if (!read_param (param (model, i), read, source, nk_model_get_param_name (model, i), error))
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

gboolean
nk_model_save_state_dict (NkModel              *model,
                          NkSafetensorsWriter  *writer,
                          GError              **error)
{
  /* The one size of a GPT its shapes do not tell (nk_gpt_load()). */
  if (model->kind == NK_MODEL_GPT)
    {
      g_autofree char *heads = g_strdup_printf ("%u", model->n_head);

      nk_safetensors_writer_set_metadata (writer, "n_head", heads);
    }
  for (guint i = 0; i < model->params->len; i++)
    if (!nk_safetensors_writer_add_tensor (writer, nk_model_get_param_name (model, i),
                                           param (model, i), error))
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
  if (model->kind == NK_MODEL_GPT)
    {
      g_autofree char *heads = g_strdup_printf ("%u", model->n_head);

      nk_checkpoint_set_metadata (ck, "n_head", heads);
    }
  for (guint i = 0; i < model->params->len; i++)
    if (!nk_checkpoint_add_tensor (ck, nk_model_get_param_name (model, i),
                                   param (model, i), error))
      return FALSE;
  return TRUE;
}
