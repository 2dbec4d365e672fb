/* nk-file-util.c: helpers the file readers (npy, safetensors, checkpoint) share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "nk-file-util-private.h"

gboolean
_nk_file_fail (GError     **error,
               GQuark       domain,
               int          code,
               const char  *name,
               const char  *format,
               ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, domain, code, "%s: %s", name, what);
  return FALSE;
}
