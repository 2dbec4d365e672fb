/* nk-file-util-private.h: helpers the file readers (npy, safetensors, checkpoint) share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sets @error to "@name: <message>" in @domain and returns FALSE, so a reader
 * can `return _nk_file_fail (...)`; every message names the file first. */
gboolean _nk_file_fail (GError     **error,
                        GQuark       domain,
                        int          code,
                        const char  *name,
                        const char  *format,
                        ...) G_GNUC_PRINTF (5, 6);

G_END_DECLS
