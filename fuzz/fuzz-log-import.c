/* fuzz-log-import.c: libFuzzer target: any bytes as an engine's training log
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk-log-import.c reads whatever a user points it at: any bytes (NUL, invalid UTF-8,
 * ANSI codes, torn lines) under every format must end in steps or a GError, never a
 * crash, and never more steps than lines.
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-log-import.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A private copy, so ASan sees reads past the end as overflows. */
  g_autofree char *copy = g_memdup2 (data, size);

  for (NkLogFormat f = NK_LOG_FORMAT_AUTO; f < NK_LOG_FORMAT_TENSORBOARD; f++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkImport) im = nk_log_import_text (copy, size, f, &error);

      g_assert ((im == NULL) != (error == NULL));
      g_assert (im == NULL || im->steps->len <= 1 + size / 4);
    }
  return 0;
}
