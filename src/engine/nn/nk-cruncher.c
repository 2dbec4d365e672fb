/* nk-cruncher.c: the lecture's Cruncher, L Linear(D, D) layers and a Linear(D, 1) head
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * x [B, D] → L × Linear(D, D) → Linear(D, 1) → [B]; MSE loss (nk-model.h).
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "nk-model-private.h"

NkModel *
nk_model_new_cruncher (guint     dim,
                       guint     layers,
                       NkDType   dtype,
                       GError  **error)
{
  g_autoptr(NkModel) model = NULL;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64, NULL);
  if (!_nk_model_check_sizes (dim, layers, error))
    return NULL;

  model = _nk_model_new (&_nk_cruncher_arch, &(NkModelShape) { .dim = dim, .layers = layers }, dtype);
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

static gboolean
cruncher_check_shape (const NkModelShape  *shape,
                      GError             **error)
{
  return _nk_model_check_sizes (shape->dim, shape->layers, error);
}

static NkModel *
cruncher_build (const NkModelShape  *shape,
                NkDType              dtype,
                GError             **error)
{
  return nk_model_new_cruncher (shape->dim, shape->layers, dtype, error);
}

static NkTensor *
cruncher_forward (NkModel   *model,
                  NkTensor  *input,
                  GError   **error)
{
  g_autoptr(NkTensor) h = nk_tensor_ref (input);
  guint p = 0;

  for (guint l = 0; l <= model->shape.layers; l++, p += 2)
    {
      NkTensor *next = nk_ag_linear (h, _nk_model_param (model, p), _nk_model_param (model, p + 1),
                                     error);

      if (next == NULL)
        return NULL;
      nk_tensor_unref (h);
      h = next;
    }
  return g_steal_pointer (&h);
}

static NkTensor *
cruncher_loss (NkModel   *model,
               NkTensor  *output,
               NkTensor  *target,
               GError   **error)
{
  return nk_ag_mse_loss (output, target, error);
}

/* D²L + DL + D + 1 (seed 001) */
static guint64
cruncher_count_parameters (const NkModelShape *shape)
{
  guint64 d = shape->dim, l = shape->layers;

  return l * (d * d + d) + d + 1;
}

static char **
cruncher_param_names (const NkModelShape *shape)
{
  GPtrArray *names = g_ptr_array_new ();

  for (guint l = 0; l < shape->layers; l++)
    {
      g_ptr_array_add (names, g_strdup_printf ("layers.%u.weight", l));
      g_ptr_array_add (names, g_strdup_printf ("layers.%u.bias", l));
    }
  g_ptr_array_add (names, g_strdup ("final.weight"));
  g_ptr_array_add (names, g_strdup ("final.bias"));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

static char *
cruncher_describe (const NkModelShape *shape)
{
  return g_strdup_printf (_("Cruncher D %u · L %u"), shape->dim, shape->layers);
}

/* Each layer's output, L·B·D·c, and the head's, B·c; under autocast layer 0's
 * rounded input, B·D·c; the MSE's difference, B·4, and the loss, 4
 * (nk_model_activation_bytes()). */
static guint64
cruncher_activation_bytes (const NkModelShape *shape,
                           guint64             rows,
                           NkDType             weights,
                           NkDType             compute)
{
  guint64 c = nk_dtype_element_size (compute), d = shape->dim, l = shape->layers;
  guint64 bytes = l * rows * d * c + rows * c;

  if (compute != weights)
    bytes += rows * d * c;
  return bytes + rows * MAX (c, 4) + MAX (c, 4);
}

const NkModelArch _nk_cruncher_arch = {
  .kind = NK_MODEL_CRUNCHER,
  .name = "cruncher",
  .title = N_("Cruncher (deep linear)"),
  .description = N_("The lecture’s Cruncher: L Linear(D, D) layers, then Linear(D, 1), trained on y = x · (0, 1, …, D − 1)."),
  .fields = NK_MODEL_FIELD_DIM | NK_MODEL_FIELD_LAYERS,
  .input = NK_MODEL_INPUT_VECTORS,
  .default_lr = 0.01,
  .check_shape = cruncher_check_shape,
  .build = cruncher_build,
  .init = _nk_model_init_by_fan_in,
  .forward = cruncher_forward,
  .loss = cruncher_loss,
  .count_parameters = cruncher_count_parameters,
  .param_names = cruncher_param_names,
  .activation_bytes = cruncher_activation_bytes,
  .describe = cruncher_describe,
};
