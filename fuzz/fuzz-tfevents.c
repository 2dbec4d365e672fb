/* fuzz-tfevents.c: libFuzzer target: any bytes as a TensorBoard event file
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The event-file reader (nk-tfevents.c) decodes record framing and protobuf by hand
 * from files another program wrote (or a crash tore): it must never crash or read past
 * the buffer, and every record it accepts or skips is accounted for.
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-tfevents.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A private copy, so ASan sees reads past the end as overflows. */
  g_autofree guint8 *copy = g_memdup2 (data, size);
  g_autoptr(NkScalarLog) log = nk_scalar_log_new ();

  nk_scalar_log_add_buffer (log, copy, size);
  /* each accepted record is at least 16 bytes of framing */
  g_assert ((gsize) log->n_records * 16 <= size);
  g_assert (log->n_skipped <= 1 + size / 16);
  return 0;
}
