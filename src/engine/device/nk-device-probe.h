/* nk-device-probe.h: looks for a CUDA device once per process, off the caller's thread
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loading the CUDA module and asking the driver can take seconds, so a UI starts the
 * probe, keeps drawing, and shows the answer when its callback runs. The answer is
 * cached for the process; every later caller gets it at once. Apart from nk-device.h
 * because it needs GIO (GTask), which the CUDA module that includes nk-device.h does
 * not link.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <gio/gio.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
void      nk_device_probe_cuda_async      (GCancellable         *cancellable,
                                           GAsyncReadyCallback   callback,
                                           gpointer              user_data);
NK_AVAILABLE_IN_ALL
gboolean  nk_device_probe_cuda_finish     (GAsyncResult         *result,
                                           char                **out_description,
                                           GError              **error);
NK_AVAILABLE_IN_ALL
gboolean  nk_device_get_cached_cuda_probe (gboolean             *out_usable,
                                           char                **out_text);
NK_AVAILABLE_IN_ALL
void      nk_device_wait_for_probe        (void);

G_END_DECLS
