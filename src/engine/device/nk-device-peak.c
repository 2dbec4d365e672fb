/* nk-device-peak.c: a device's row in the GPU table and its promised FLOP/s
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Here, not in nk-gpus.c: the GPU table is data and never takes a device.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-cpuinfo.h"
#include "nk-device-peak.h"

/**
 * nk_device_lookup_gpu:
 * @device: a device
 *
 * The table row of a CUDA device, matched on the name CUDA reports for it (the CUDA
 * module's description starts with that name, alone before " — ").
 *
 * Returns: (transfer none) (nullable): the row, or %NULL for the CPU and for a card
 *   the table does not know
 */
const NkGpu *
nk_device_lookup_gpu (NkDevice *device)
{
  g_autofree char *description = NULL;
  char *end;

  g_return_val_if_fail (device != NULL, NULL);

  if (nk_device_get_kind (device) != NK_DEVICE_CUDA)
    return NULL;
  description = nk_device_describe (device);
  if ((end = strstr (description, " — ")) != NULL)
    *end = '\0';
  return nk_gpus_lookup_cuda_name (description);
}

/**
 * nk_device_get_peak:
 * @device: a device
 * @dtype: the dtype the matmuls run in
 *
 * The promised (dense) FLOP/s of @device for @dtype: for a CUDA device the GPU
 * table's figure, for the CPU the peak nk-cpuinfo derives (the CPU multiplies bf16
 * and fp16 in fp32 units, so those get the fp32 peak). An unknown card has no peak
 * rather than an invented one.
 *
 * Returns: FLOP/s, or NaN when the peak is unknown ("peak unknown")
 */
double
nk_device_get_peak (NkDevice    *device,
                    NkPeakDtype  dtype)
{
  const NkGpu *gpu;

  g_return_val_if_fail (device != NULL, NAN);

  if (nk_device_get_kind (device) != NK_DEVICE_CUDA)
    return dtype == NK_PEAK_FP64 ? nk_cpu_info_get ()->peak_fp64 : nk_cpu_info_get ()->peak_fp32;
  gpu = nk_device_lookup_gpu (device);
  return gpu != NULL ? nk_gpu_get_peak (gpu, dtype, FALSE) : NAN;
}
