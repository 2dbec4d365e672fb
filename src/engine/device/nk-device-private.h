/* nk-device-private.h: what the tensor core shares between its files about devices
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "nk-device-impl.h"

G_BEGIN_DECLS

/* The CPU backend's table (nk-device-cpu.c). */
const NkDeviceOps *_nk_device_cpu_ops       (void);

/* The CPU backend's row kernels (nk-device-cpu-rows.c). */
gboolean           _nk_cpu_rows             (gpointer           backend,
                                             NkDType            dtype,
                                             const NkRowsCall  *call,
                                             GError           **error);

G_END_DECLS
