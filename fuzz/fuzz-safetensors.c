/* fuzz-safetensors.c: libFuzzer target: any bytes as a safetensors file, never a crash or a leak
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-safetensors.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A private copy, so ASan sees reads past the end of the file as overflows. */
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkSafetensors) st = nk_safetensors_new_from_bytes (bytes, "fuzz.safetensors", &error);
  g_autoptr(NkSafetensorsWriter) writer = NULL;
  g_autoptr(GPtrArray) keys = NULL;
  g_autoptr(GBytes) again = NULL;
  g_autoptr(NkSafetensors) reparsed = NULL;
  gsize payload_size, covered = 0;

  if (st == NULL)
    {
      g_assert (error != NULL && error->domain == NK_SAFETENSORS_ERROR);
      g_assert (g_str_has_prefix (error->message, "fuzz.safetensors: "));
      return 0;
    }
  g_assert (error == NULL);

  /* What was accepted tiles the payload exactly, and writes back to a file that
   * reads back with the same tensors. */
  nk_safetensors_get_payload (st, &payload_size);
  writer = nk_safetensors_writer_new ();
  for (guint i = 0; i < nk_safetensors_get_n_tensors (st); i++)
    {
      const NkSafetensorsTensor *t = nk_safetensors_get_tensor_info (st, i);
      g_autoptr(GBytes) slice = g_bytes_new (t->data, t->nbytes);
      const NkSafetensorsTensor *u;

      covered += t->nbytes;
      u = nk_safetensors_lookup (st, t->name);
      g_assert (u == t);
      nk_safetensors_writer_add_bytes (writer, t->name, t->dtype, t->ndim, t->shape, slice);
    }
  g_assert (covered == payload_size);

  keys = nk_safetensors_get_metadata_keys (st);
  for (guint i = 0; i < keys->len; i++)
    nk_safetensors_writer_set_metadata (writer, keys->pdata[i],
                                        nk_safetensors_get_metadata (st, keys->pdata[i]));

  again = nk_safetensors_writer_to_bytes (writer);
  reparsed = nk_safetensors_new_from_bytes (again, "again.safetensors", &error);
  g_assert (reparsed != NULL);
  g_assert (nk_safetensors_get_n_tensors (reparsed) == nk_safetensors_get_n_tensors (st));
  for (guint i = 0; i < nk_safetensors_get_n_tensors (st); i++)
    {
      const NkSafetensorsTensor *t = nk_safetensors_get_tensor_info (st, i);
      const NkSafetensorsTensor *u = nk_safetensors_lookup (reparsed, t->name);

      g_assert (u != NULL && u->dtype == t->dtype && u->nbytes == t->nbytes);
      g_assert (t->nbytes == 0 || memcmp (u->data, t->data, t->nbytes) == 0);
    }
  return 0;
}
