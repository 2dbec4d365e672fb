/* nk-file-util.h: checks on the files a run reads and writes, made before any work
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run that will fail to write its result must fail before its first step, not after
 * its last; a path that is a folder or a device must be refused by name, not reported
 * as whatever mmap() says about it. These checks are the one place that says so.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

/**
 * nk_file_check_regular:
 * @path: a file about to be read
 * @error: return location for a #GError in %G_FILE_ERROR: "“PATH” is not a regular
 *   file (it is a folder)." or "Could not open “PATH”: No such file or directory"
 *
 * Returns: %TRUE if @path is a regular file (after following links)
 */
NK_AVAILABLE_IN_ALL
gboolean nk_file_check_regular       (const char  *path,
                                      GError     **error);

/**
 * nk_file_check_writable:
 * @path: a file about to be written atomically (created or replaced)
 * @error: return location for a #GError in %G_FILE_ERROR naming @path
 *
 * Checks what an atomic write of @path needs: @path is not a folder, its folder
 * exists, and a file can be created in it (tried for real with a temporary file,
 * since permission bits say nothing for root or a read-only mount).
 *
 * Returns: %TRUE if @path can be written
 */
NK_AVAILABLE_IN_ALL
gboolean nk_file_check_writable      (const char  *path,
                                      GError     **error);

/**
 * nk_file_check_writable_dir:
 * @dir: a folder files will be written into (created, with parents, if missing)
 * @error: return location for a #GError in %G_FILE_ERROR naming @dir
 *
 * Returns: %TRUE if @dir is a folder in which a file can be created
 */
NK_AVAILABLE_IN_ALL
gboolean nk_file_check_writable_dir  (const char  *dir,
                                      GError     **error);

/* Sets @error to "@name: <message>" in @domain and returns FALSE, so a reader
 * can `return nk_file_fail (...)`; every message names the file first. */
NK_AVAILABLE_IN_ALL
gboolean nk_file_fail                (GError     **error,
                                      GQuark       domain,
                                      int          code,
                                      const char  *name,
                                      const char  *format,
                                      ...) G_GNUC_PRINTF (5, 6);

G_END_DECLS
