/* fuzz-log-import.c: libFuzzer target: any bytes as an engine's training log
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk-log-import.c reads whatever a user points it at: any bytes (NUL, invalid UTF-8,
 * ANSI codes, control characters, torn lines, nothing at all) under every format
 * must end in steps or a GError, never a crash, and never more steps than lines.
 * What it reads must be what a run can have: a step in [0, 2^53], every field but
 * the loss finite and not negative, an MFU at most 1. A NUL ends a line as a newline
 * does, so the same bytes with each NUL made a newline read the same steps; the
 * same bytes in a file (nk_log_import, the CLI's path) read the same as in memory,
 * and read as a TensorBoard event file keep the same bounds.
 */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "fuzz-common.h"
#include "nk-log-import.h"

static void
check_steps (const NkImport *im)
{
  g_assert (im->rejected_lines <= im->skipped_lines);
  g_assert ((im->rejected_lines > 0) == (im->first_rejected != NULL));
  for (guint i = 0; i < im->steps->len; i++)
    {
      const NkImportStep *s = &g_array_index (im->steps, NkImportStep, i);
      const double fields[] = { s->tokens_per_s, s->tflops_per_gpu, s->mfu, s->memory_max_bytes,
                                s->seconds, s->samples_per_s };

      g_assert (s->step >= 0 && s->step <= NK_LOG_IMPORT_MAX_STEP);
      g_assert (i == 0 || s->step > g_array_index (im->steps, NkImportStep, i - 1).step);
      g_assert ((s->present & NK_IMPORT_FIELD_LOSS) || isnan (s->loss));
      for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
        g_assert (isnan (fields[f]) || (isfinite (fields[f]) && fields[f] >= 0));
      g_assert (isnan (s->mfu) || s->mfu <= 1);
    }
}

static void
assert_same (const NkImport *a,
             const NkImport *b)
{
  g_assert ((a == NULL) == (b == NULL));
  if (a == NULL)
    return;
  g_assert (a->format == b->format);
  g_assert (a->steps->len == b->steps->len);
  g_assert (a->skipped_lines == b->skipped_lines);
  g_assert (a->rejected_lines == b->rejected_lines);
  g_assert (a->replaced_steps == b->replaced_steps);
  for (guint i = 0; i < a->steps->len; i++)
    {
      const NkImportStep *x = &g_array_index (a->steps, NkImportStep, i);
      const NkImportStep *y = &g_array_index (b->steps, NkImportStep, i);

      /* field by field (the struct's padding is not a value), NaN bits included */
      g_assert (x->step == y->step && x->present == y->present);
      g_assert (memcmp (&x->loss, &y->loss, G_STRUCT_OFFSET (NkImportStep, present)
                                            - G_STRUCT_OFFSET (NkImportStep, loss)) == 0);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* Private copies, so ASan sees reads past the end as overflows. */
  g_autofree char *copy = g_memdup2 (data, size);
  g_autofree char *newlines = g_memdup2 (data, size);
  g_autoptr(NkImport) first = NULL;
  g_autoptr(NkImport) from_file = NULL;
  static char *path;

  for (size_t i = 0; i < size; i++)
    if (newlines[i] == '\0')
      newlines[i] = '\n';
  for (NkLogFormat f = NK_LOG_FORMAT_AUTO; f < NK_LOG_FORMAT_TENSORBOARD; f++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkImport) im = nk_log_import_text (copy, size, f, &error);
      g_autoptr(NkImport) nl = nk_log_import_text (newlines, size, f, NULL);

      g_assert ((im == NULL) != (error == NULL));
      g_assert (im == NULL || im->steps->len <= 1 + size / 4);
      if (im != NULL)
        check_steps (im);
      assert_same (im, nl);
      if (f == NK_LOG_FORMAT_AUTO)
        first = g_steal_pointer (&im);
    }

  /* the file path: regular-file check, bounded read, then the same parser */
  if (path == NULL)
    path = g_strdup_printf ("%s/fuzz-log-import-%d.log", g_get_tmp_dir (), (int) getpid ());
  g_assert (g_file_set_contents (path, copy != NULL ? copy : "", (gssize) size, NULL));
  from_file = nk_log_import (path, NK_LOG_FORMAT_AUTO, NULL);
  assert_same (first, from_file);
  /* and as a TensorBoard event file: mapped (or empty), the same bounds on its steps */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(NkImport) tb = nk_log_import (path, NK_LOG_FORMAT_TENSORBOARD, &error);

    g_assert ((tb == NULL) != (error == NULL));
    if (tb != NULL)
      check_steps (tb);
  }
  g_unlink (path);
  return 0;
}
