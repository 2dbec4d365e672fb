/* fuzz-run-metrics.c: libFuzzer target: any bytes as a run folder's metrics.jsonl
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader of metrics.jsonl (nk-run-metrics.c) is a hand-written scanner that a
 * crashed, killed or edited run can feed anything: it must never crash, never read
 * past a line, and account for every line (a step, the closing line, blank, or
 * counted as bad).
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-run-dir.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A private copy, so ASan sees reads past the end as overflows. */
  g_autofree char *copy = g_memdup2 (data, size);
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  NkRunMetricsInfo info;
  gsize lines = 0;

  nk_run_metrics_parse (copy, size, h, &info);
  for (gsize i = 0; i < size; i++)
    if (copy[i] == '\n')
      lines++;
  /* A torn last line (no newline) is a line too. */
  if (size > 0 && copy[size - 1] != '\n')
    lines++;
  g_assert (nk_train_history_get_n (h) + info.bad_lines <= lines);
  g_free (info.device);
  return 0;
}
