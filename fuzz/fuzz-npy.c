/* fuzz-npy.c: libFuzzer target: any bytes as a .npy file, never a crash or a leak
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-npy.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A private copy, so ASan sees reads past the end of the file as overflows. */
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkNpyArray) array = nk_npy_array_new_from_bytes (bytes, "fuzz.npy", &error);
  g_autoptr(GBytes) again = NULL;
  g_autoptr(NkNpyArray) reparsed = NULL;
  const guint8 *p;
  guint8 acc = 0;

  if (array == NULL)
    {
      g_assert (error != NULL && error->domain == NK_NPY_ERROR);
      g_assert (g_str_has_prefix (error->message, "fuzz.npy: "));
      return 0;
    }
  g_assert (error == NULL);

  /* Every byte the array claims must be readable. */
  p = nk_npy_array_get_data (array);
  for (gsize i = 0; i < nk_npy_array_get_nbytes (array); i++)
    acc ^= p[i];
  (void) acc;
  g_assert (nk_npy_array_get_nbytes (array)
            == nk_npy_array_get_n_elements (array)
               * nk_npy_dtype_item_size (nk_npy_array_get_dtype (array)));

  /* What was accepted, written back, reads back the same. */
  again = nk_npy_to_bytes (nk_npy_array_get_dtype (array), nk_npy_array_get_ndim (array),
                           nk_npy_array_get_shape (array), nk_npy_array_get_data (array));
  reparsed = nk_npy_array_new_from_bytes (again, "again.npy", &error);
  g_assert (reparsed != NULL);
  g_assert (nk_npy_array_get_ndim (reparsed) == nk_npy_array_get_ndim (array));
  g_assert (nk_npy_array_get_nbytes (reparsed) == nk_npy_array_get_nbytes (array));
  g_assert (memcmp (nk_npy_array_get_data (reparsed), nk_npy_array_get_data (array),
                    nk_npy_array_get_nbytes (array)) == 0);
  return 0;
}
