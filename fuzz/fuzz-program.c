/* fuzz-program.c: libFuzzer target: any bytes as a tensor program, never a crash
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-program.h"

/* The first and the last element, read on their own as the CLI's summary does. */
static void
read_ends (NkTensor *t)
{
  gint64 index[NK_MAX_DIMS];
  gboolean ok;
  double d;

  for (int k = 0; k < t->ndim; k++)
    index[k] = 0;
  ok = nk_tensor_get_item (t, index, &d, NULL);
  g_assert (ok);
  for (int k = 0; k < t->ndim; k++)
    index[k] = t->shape[k] - 1;
  ok = nk_tensor_get_item (t, index, &d, NULL);
  g_assert (ok);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* Every storage dtype a program can be run in, picked by the input's length so
   * the same text is tried in f32, f16, bf16 and e4m3 across the corpus. */
  static const NkDType dtypes[] = { NK_DTYPE_F32, NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_E4M3 };
  g_autofree char *source = g_strndup ((const char *) data, size);
  g_autoptr(NkProgram) program = nk_program_new ();
  g_autoptr(GError) error = NULL;

  nk_program_set_dtype (program, dtypes[size % G_N_ELEMENTS (dtypes)]);
  /* The whole 2^30 budget takes over ten seconds under ASan and the fuzzer's
   * counters, past its timeout; 2^24 reaches the same refusal path in a second. */
  nk_program_set_max_work (program, G_GINT64_CONSTANT (1) << 24);
  if (!nk_program_run (program, source, &error))
    {
      /* Every failure names a statement and a column inside the text. */
      g_assert (error != NULL && error->domain == NK_PROGRAM_ERROR);
      g_assert (nk_program_get_error_statement (program) >= 1);
      g_assert (nk_program_get_error_column (program) >= 1);
    }
  else
    {
      /* Read every result as the CLI does: whole while the run's budget of values
       * lasts, then only the ends (many aliases of a 4 Mi-element view would
       * otherwise make one input take minutes). */
      gint64 budget = NK_PROGRAM_MAX_NUMEL;

      for (guint i = 0; i < nk_program_get_n_names (program); i++)
        {
          NkProgramValue *value = nk_program_get_name_value (program, i);
          g_autofree char *text = nk_program_value_to_string (value);
          NkTensor *t;

          g_assert (text != NULL);
          (void) nk_program_get_name_shares_with (program, i);
          if (nk_program_value_get_kind (value) != NK_PROGRAM_VALUE_TENSOR)
            continue;
          t = nk_program_value_get_tensor (value);
          if (nk_tensor_numel (t) <= budget)
            {
              budget -= nk_tensor_numel (t);
              g_free (nk_tensor_to_doubles (t, NULL));
            }
          else
            read_ends (t);
        }
    }
  return 0;
}
