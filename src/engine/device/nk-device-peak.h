/* nk-device-peak.h: a device's row in the GPU table and its promised FLOP/s
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include "nk-version-macros.h"

#include "nk-device.h"
#include "nk-gpus.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
const NkGpu *nk_device_lookup_gpu (NkDevice    *device);
NK_AVAILABLE_IN_ALL
double       nk_device_get_peak   (NkDevice    *device,
                                   NkPeakDtype  dtype);

G_END_DECLS
