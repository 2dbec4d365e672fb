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
 * Checks that @path names a file before a reader opens it, so that a folder, a pipe
 * or a device is one sentence rather than a read that fails or never ends.
 *
 * Returns: %TRUE if @path is a regular file (after following links)
 */
NK_AVAILABLE_IN_ALL
gboolean nk_file_check_regular       (const char  *path,
                                      GError     **error);

/**
 * nk_file_open_regular:
 * @path: a file someone handed us, about to be read
 * @max_size: the most bytes it may hold
 * @size: (out) (optional): its size in bytes
 * @error: return location for a #GError in %G_FILE_ERROR, one sentence naming @path:
 *   "“PATH” is not a regular file (it is a pipe).", "“PATH” holds 3221225472 bytes, more
 *   than the 1.0 GiB Napkin reads from one file." or "Could not open “PATH”: <reason>"
 *
 * Opens @path for reading without ever blocking: a FIFO is opened non-blocking and
 * refused, as are devices (/dev/zero would be read forever), sockets and folders,
 * judged on the opened descriptor so that nothing can swap the file in between.
 *
 * Returns: a descriptor to close (blocking reads again), or -1
 */
NK_AVAILABLE_IN_ALL
int      nk_file_open_regular        (const char  *path,
                                      goffset      max_size,
                                      goffset     *size,
                                      GError     **error);

/**
 * nk_file_read_regular:
 * @path: a file someone handed us
 * @max_size: the most bytes it may hold
 * @contents: (out) (transfer full): its bytes, with a NUL after the last
 * @length: (out) (optional): how many bytes were read
 * @error: as nk_file_open_regular()'s, or "Could not read “PATH”: <reason>"
 *
 * g_file_get_contents() with nk_file_open_regular()'s refusals and a bound that
 * holds even when the file grows while it is read.
 *
 * Returns: %TRUE when @contents holds the whole file
 */
NK_AVAILABLE_IN_ALL
gboolean nk_file_read_regular        (const char  *path,
                                      goffset      max_size,
                                      char       **contents,
                                      gsize       *length,
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
 * Creates @dir if needed and checks, by creating a temporary file in it, that files
 * can be written there.
 *
 * Returns: %TRUE if @dir is a folder in which a file can be created
 */
NK_AVAILABLE_IN_ALL
gboolean nk_file_check_writable_dir  (const char  *dir,
                                      GError     **error);

NK_AVAILABLE_IN_ALL
gboolean nk_file_fail                (GError     **error,
                                      GQuark       domain,
                                      int          code,
                                      const char  *name,
                                      const char  *format,
                                      ...) G_GNUC_PRINTF (5, 6);

G_END_DECLS
