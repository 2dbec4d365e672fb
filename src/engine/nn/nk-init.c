/* nk-init.c: parameter initialisation: the lecture's truncated normal, and N(0, 1)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "nk-init.h"
#include "nk-ops.h"

/**
 * nk_init_error_quark:
 *
 * The domain of %NK_INIT_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-init-error-quark, nk_init_error)

static gboolean
on_host (NkTensor *tensor)
{
  return nk_tensor_is_contiguous (tensor)
         && nk_device_get_kind (nk_tensor_get_device (tensor)) == NK_DEVICE_CPU;
}

static gboolean
fillable (NkTensor *tensor)
{
  return tensor != NULL && (tensor->dtype == NK_DTYPE_F32 || tensor->dtype == NK_DTYPE_F64);
}

/* A contiguous host tensor to draw into when @tensor lives elsewhere (a GPU): the
 * numbers are drawn on the CPU either way, so every device gets the same ones. */
static NkTensor *
host_twin (NkTensor *tensor)
{
  if (on_host (tensor))
    return nk_tensor_ref (tensor);
  return nk_tensor_new_full (nk_device_get_cpu (), tensor->dtype, tensor->ndim, tensor->shape,
                             NK_BUCKET_OTHER, FALSE, NULL);
}

static gboolean
upload (NkTensor *tensor,
        NkTensor *twin)
{
  return twin == tensor || nk_tensor_copy_ (tensor, twin, NULL);
}

gboolean
nk_init_trunc_normal_ (NkTensor *tensor,
                       NkRng    *rng,
                       double    std,
                       double    a,
                       double    b)
{
  g_autoptr(NkTensor) host = NULL;
  gint64 n;

  g_return_val_if_fail (fillable (tensor) && rng != NULL, FALSE);

  if ((host = host_twin (tensor)) == NULL)
    return FALSE;
  n = nk_tensor_numel (host);
  if (host->dtype == NK_DTYPE_F32)
    nk_rng_fill_truncated_normal_f32 (rng, nk_tensor_data_f32 (host), n, 0.0, std, a, b);
  else
    for (gint64 i = 0; i < n; i++)
      nk_tensor_data_f64 (host)[i] = nk_rng_truncated_normal (rng, 0.0, std, a, b);
  return upload (tensor, host);
}

/**
 * nk_init_normal_:
 * @tensor: an f32 or f64 tensor on any device, filled in place (drawn on the CPU)
 * @rng: the generator
 * @mean: the mean
 * @std: the standard deviation
 *
 * Fills @tensor with draws of N(mean, std²), as torch.nn.init.normal_.
 *
 * Returns: %TRUE on success (%FALSE for a tensor it cannot fill)
 */
gboolean
nk_init_normal_ (NkTensor *tensor,
                 NkRng    *rng,
                 double    mean,
                 double    std)
{
  g_autoptr(NkTensor) host = NULL;
  gint64 n;

  g_return_val_if_fail (fillable (tensor) && rng != NULL, FALSE);

  if ((host = host_twin (tensor)) == NULL)
    return FALSE;
  n = nk_tensor_numel (host);
  if (host->dtype == NK_DTYPE_F32)
    nk_rng_fill_normal_f32 (rng, nk_tensor_data_f32 (host), n, mean, std);
  else
    for (gint64 i = 0; i < n; i++)
      nk_tensor_data_f64 (host)[i] = nk_rng_normal (rng, mean, std);
  return upload (tensor, host);
}

gboolean
nk_init_param_ (NkTensor   *tensor,
                NkRng      *rng,
                NkInitKind  kind,
                gint64      fan_in)
{
  g_return_val_if_fail (fan_in > 0, FALSE);

  if (kind == NK_INIT_NORMAL)
    return nk_init_normal_ (tensor, rng, 0.0, 1.0);
  return nk_init_trunc_normal_ (tensor, rng, 1.0 / sqrt ((double) fan_in), -3.0, 3.0);
}

/**
 * nk_init_kind_to_string:
 * @kind: a rule
 *
 * The rule's name as `--init` takes it.
 *
 * Returns: (transfer none): "trunc-normal" or "normal"
 */
const char *
nk_init_kind_to_string (NkInitKind kind)
{
  return kind == NK_INIT_NORMAL ? "normal" : "trunc-normal";
}

/* The index of the first element of @t that is a NaN or an infinity, or -1. */
static gint64
first_nonfinite (const NkSafetensorsTensor *t)
{
  const NkDTypeInfo *info = nk_dtype_info (t->dtype);
  gsize item = info->element_size;
  const guint8 *p = t->data;

  for (guint64 i = 0; i < t->numel; i++, p += item)
    {
      guint64 bits = 0;
      NkDTypeDecoded d;

      /* safetensors is little-endian, as every host this runs on. */
      memcpy (&bits, p, MIN (item, sizeof bits));
      if (t->dtype == NK_DTYPE_F32)
        {
          float v;

          memcpy (&v, p, sizeof v);
          if (!isfinite (v))
            return (gint64) i;
        }
      else if (nk_dtype_decode (t->dtype, bits, &d)
               && (d.klass == NK_DTYPE_CLASS_NAN || d.klass == NK_DTYPE_CLASS_INF))
        return (gint64) i;
    }
  return -1;
}

gboolean
nk_init_check_finite (NkSafetensors  *st,
                      GError        **error)
{
  g_return_val_if_fail (st != NULL, FALSE);

  for (guint i = 0; i < nk_safetensors_get_n_tensors (st); i++)
    {
      const NkSafetensorsTensor *t = nk_safetensors_get_tensor_info (st, i);
      gint64 bad;

      if (!nk_dtype_is_float (t->dtype) || (bad = first_nonfinite (t)) < 0)
        continue;
      g_set_error (error, NK_INIT_ERROR, NK_INIT_ERROR_NONFINITE,
                   _("%s: tensor “%s” holds a NaN or an infinity at index %" PRId64
                     " (counting from 0, row-major); starting weights must be finite."),
                   nk_safetensors_get_name (st), t->name, bad);
      return FALSE;
    }
  return TRUE;
}
