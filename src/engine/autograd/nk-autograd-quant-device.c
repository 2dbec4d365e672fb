/* nk-autograd-quant-device.c: the block-scaled recipe's operands on a device other than the CPU
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What nk_quantize_fake_f32() does on the CPU, a device's quantize entry does where
 * the tensors live (NkDeviceOps.quantize, its per-block math in nk-quantize-impl.h):
 * the same bits, the same stochastic draws (the element of row r and column c takes
 * word counter + r · cols + c of the recipe's Philox stream, as on the CPU), the same
 * counts. The flushed and clipped counts add up in two words on the device and come
 * back when the step's metrics are taken, so a step waits for no count.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "nk-autograd-quant-private.h"
#include "nk-device-impl.h"

/* Fills @call's format fields; FALSE (with the reason) where the device path has no
 * such rounding: MX to nearest-even, NVFP4 to nearest-even or stochastically. */
static gboolean
call_format (NkQuantizeCall  *call,
             NkDevice        *device,
             NkBlockFormat    format,
             NkMxScaleRule    rule,
             NkRoundingMode   rounding,
             GError         **error)
{
  const NkBlockFormatInfo *info = nk_block_format_info (format);
  NkDType element = NK_DTYPE_F32;

  call->nvfp4 = format == NK_BLOCK_FORMAT_NVFP4;
  call->stochastic = rounding == NK_ROUNDING_MODE_STOCHASTIC;
  if (rounding != NK_ROUNDING_MODE_NEAREST_EVEN && !(call->nvfp4 && call->stochastic))
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("On %s, MX formats round to nearest-even only and NVFP4 to nearest-even or stochastically."),
                   nk_device_get_name (device));
      return FALSE;
    }
  call->rule_up = rule == NK_MX_SCALE_UP;
  call->is_int = info->element_is_int;
  call->emax = info->element_emax;
  call->maxv = (float) info->element_max;
  if (call->is_int)
    {
      /* mxint8: k / 2^(bits − 2), sign apart */
      call->m = (int) info->element_bits - 2;
      call->emin = 0;
    }
  else
    {
      /* the element's float grid: its fraction bits and smallest normal exponent */
      if (!nk_dtype_from_name (info->element_name, &element, NULL))
        g_return_val_if_reached (FALSE);
      call->m = (int) nk_dtype_info (element)->mantissa_bits;
      call->emin = 1 - nk_dtype_info (element)->bias;
    }
  return TRUE;
}

/**
 * _nk_ag_quantize_fake_device:
 * @src: a contiguous float32 [rows, cols] tensor on a device other than the CPU
 * @dst: a contiguous float32 tensor of @src's shape on its device (may be @src)
 * @format: the block format
 * @block: elements per block along each row
 * @rule: an MX block's scale rule
 * @rounding: nearest-even, or stochastic (NVFP4 only)
 * @rotation: (nullable): NVFP4's weight-gradient rotation factors (16, s_j / 4):
 *   each block of 16 along a row is rotated first (nk_qk_rotate16()); the columns
 *   are then a multiple of 16
 * @rng: the stream of stochastic rounding, advanced by one word per element
 * @counts: (inout): the device's two count words (flushed, clipped), made on first use
 * @stats: (inout): gets the elements; the device's counts come with
 *   _nk_ag_quant_counts_take()
 * @error: return location for a #GError
 *
 * nk_quantize_fake_f32() where the tensors live.
 *
 * Returns: %TRUE when the work is queued
 */
gboolean
_nk_ag_quantize_fake_device (NkTensor         *src,
                             NkTensor         *dst,
                             NkBlockFormat     format,
                             guint             block,
                             NkMxScaleRule     rule,
                             NkRoundingMode    rounding,
                             const float      *rotation,
                             NkRng            *rng,
                             NkTensor        **counts,
                             NkQuantizeStats  *stats,
                             GError          **error)
{
  NkDevice *device = nk_tensor_get_device (src);
  const NkDeviceOps *ops = nk_device_get_ops (device);
  NkQuantizeCall call = { 0 };
  guint64 seed = 0, counter = 0;

  g_return_val_if_fail (src->ndim == 2 && src->dtype == NK_DTYPE_F32, FALSE);
  g_return_val_if_fail (dst->ndim == 2 && dst->dtype == NK_DTYPE_F32, FALSE);
  g_return_val_if_fail (src->shape[0] == dst->shape[0] && src->shape[1] == dst->shape[1], FALSE);
  g_return_val_if_fail (nk_tensor_is_contiguous (src) && nk_tensor_is_contiguous (dst), FALSE);
  g_return_val_if_fail (nk_tensor_get_device (dst) == device && block > 0, FALSE);
  g_return_val_if_fail (rounding != NK_ROUNDING_MODE_STOCHASTIC || rng != NULL, FALSE);

  if (ops->quantize == NULL)
    {
      g_set_error (error, NK_AUTOGRAD_ERROR, NK_AUTOGRAD_ERROR_UNSUPPORTED,
                   _("The device %s cannot quantize in blocks."), nk_device_get_name (device));
      return FALSE;
    }
  if (!call_format (&call, device, format, rule, rounding, error))
    return FALSE;
  /* counts of another device come home first */
  if (*counts != NULL && nk_tensor_get_device (*counts) != device)
    {
      if (!_nk_ag_quant_counts_take (*counts, stats, error))
        return FALSE;
      g_clear_pointer (counts, nk_tensor_unref);
    }
  if (*counts == NULL
      && (*counts = nk_tensor_new_full (device, NK_DTYPE_INT64, NK_SHAPE (2),
                                        NK_BUCKET_OTHER, TRUE, error)) == NULL)
    return FALSE;
  if (call.stochastic)
    nk_rng_get_state (rng, &seed, &counter);
  call.rows = src->shape[0];
  call.cols = src->shape[1];
  call.block = block;
  call.src = _nk_ag_dev_ptr (src);
  call.dst = _nk_ag_dev_ptr (dst);
  call.key[0] = (guint32) seed;
  call.key[1] = (guint32) (seed >> 32);
  call.counter = counter;
  call.counts = _nk_ag_dev_ptr (*counts);
  if (rotation != NULL)
    {
      g_return_val_if_fail (call.nvfp4 && call.cols % NK_QK_ROTATION == 0, FALSE);
      call.rotate = 1;
      memcpy (call.rotation, rotation, sizeof call.rotation);
    }
  if (!ops->quantize (nk_device_get_backend (device), &call, error))
    return FALSE;
  if (call.stochastic)
    nk_rng_set_state (rng, seed, counter + (guint64) (call.rows * call.cols));
  stats->elements += (guint64) (call.rows * call.cols);
  return TRUE;
}

/**
 * _nk_ag_quant_counts_take:
 * @counts: (nullable): the device's two count words, or %NULL (none yet)
 * @stats: (inout): gets the flushed and clipped elements they counted
 * @error: return location for a #GError
 *
 * Adds the device's counts to @stats and sets them back to zero (one copy to the
 * host, which waits for the device's queued work).
 *
 * Returns: %TRUE on success
 */
gboolean
_nk_ag_quant_counts_take (NkTensor         *counts,
                          NkQuantizeStats  *stats,
                          GError          **error)
{
  g_autoptr(NkTensor) host = NULL;
  const gint64 *words;

  if (counts == NULL)
    return TRUE;
  if ((host = nk_tensor_to_device (counts, nk_device_get_cpu (), error)) == NULL)
    return FALSE;
  words = nk_tensor_data (host);
  stats->flushed += (guint64) words[0];
  stats->clipped += (guint64) words[1];
  return nk_tensor_fill_ (counts, 0.0, error);
}
