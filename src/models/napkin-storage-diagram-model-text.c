/* napkin-storage-diagram-model-text.c: the storage diagram's model in words
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a screen reader says for the diagram: its name follows the selection and
 * a step-through, its description carries the data a sighted person reads off
 * the drawing (storages, each tensor's shape, strides, offset and the storage
 * elements it reads). Built only from the model's public face.
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n.h>

#include "napkin-storage-diagram-model.h"

/* At most this many runs of a tensor's addresses are read out. */
#define MAX_SPOKEN_RUNS 16

/* The storage elements a tensor reads, in its logical order, as runs with one
 * stride: "0 to 15", "0 to 12 in steps of 4, 1 to 13 in steps of 4", "4 (3 times)". */
static void
append_address_runs (GString      *s,
                     const gint64 *addresses,
                     gint64        n)
{
  guint runs = 0;

  for (gint64 i = 0, j; i < n; i = j + 1)
    {
      gint64 step = i + 1 < n ? addresses[i + 1] - addresses[i] : 0;

      if (runs++ > 0)
        g_string_append (s, ", ");
      if (runs > MAX_SPOKEN_RUNS)
        {
          g_string_append (s, "…");
          return;
        }
      for (j = i + 1; j < n && addresses[j] - addresses[j - 1] == step; j++)
        ;
      j--;
      if (j - i < 2)
        {
          /* Two in a row are clearer as two numbers. */
          g_string_append_printf (s, "%" PRId64, addresses[i]);
          j = i;
        }
      else if (step == 0)
        /* Translators: a storage element read several times (a stride of 0) */
        g_string_append_printf (s, _("%" PRId64 " (%" PRId64 " times)"), addresses[i], j - i + 1);
      else if (step == 1)
        /* Translators: consecutive storage elements, "0 to 15" */
        g_string_append_printf (s, _("%" PRId64 " to %" PRId64), addresses[i], addresses[j]);
      else
        /* Translators: storage elements with a stride, "0 to 12 in steps of 4" */
        g_string_append_printf (s, _("%" PRId64 " to %" PRId64 " in steps of %" PRId64),
                                addresses[i], addresses[j], step);
    }
}

static void
append_tensor_description (NapkinStorageDiagramModel *self,
                           GString                   *s,
                           guint                      t)
{
  NkTensor *tensor = napkin_storage_diagram_model_get_tensor (self, t);
  const char *name = napkin_storage_diagram_model_get_tensor_name (self, t);
  const char *shares = napkin_storage_diagram_model_get_tensor_shares_with (self, t);
  guint storage = napkin_storage_diagram_model_get_tensor_storage (self, t);
  gint64 n_drawn = 0;
  const gint64 *addresses = napkin_storage_diagram_model_get_tensor_addresses (self, t, &n_drawn);
  g_autofree char *shape = nk_format_shape (tensor->ndim, tensor->shape);
  g_autofree char *stride = nk_format_shape (tensor->ndim, tensor->stride);
  g_autoptr(GString) runs = NULL;

  g_string_append_c (s, ' ');
  /* Translators: "y: shape (4, 4), strides (1, 4), offset 0, not contiguous." */
  g_string_append_printf (s, nk_tensor_is_contiguous (tensor)
                             ? _("%s: shape %s, strides %s, offset %" PRId64 ", contiguous.")
                             : _("%s: shape %s, strides %s, offset %" PRId64 ", not contiguous."),
                          name, shape, stride, tensor->offset);
  if (shares != NULL)
    g_string_append_printf (s, _(" It shares the storage of %s."), shares);
  if (addresses == NULL || n_drawn == 0)
    return;
  runs = g_string_new (NULL);
  append_address_runs (runs, addresses, n_drawn);
  g_string_append_c (s, ' ');
  /* Translators: the storage elements a tensor reads, in its logical order:
   * "It reads elements 0 to 12 in steps of 4, 1 to 13 in steps of 4 of the storage of x" */
  g_string_append_printf (s, _("It reads elements %s of the storage of %s"), runs->str,
                          napkin_storage_diagram_model_get_storage_owner (self, storage));
  if (n_drawn < nk_tensor_numel (tensor))
    g_string_append_printf (s, _(" (its first %" PRId64 " of %" PRId64 " elements)"),
                            n_drawn, nk_tensor_numel (tensor));
  g_string_append_c (s, '.');
}

/**
 * napkin_storage_diagram_model_dup_name:
 * @self: a model
 *
 * The diagram's accessible name: what it is, the selected tensor and, during a
 * step-through, the element it stands on and where that lives in storage.
 *
 * Returns: (transfer full): the name
 */
char *
napkin_storage_diagram_model_dup_name (NapkinStorageDiagramModel *self)
{
  int selected;
  gint64 step, n = 0;
  const gint64 *addresses = NULL;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);

  selected = napkin_storage_diagram_model_get_selected (self);
  step = napkin_storage_diagram_model_get_step (self);
  if (selected >= 0)
    addresses = napkin_storage_diagram_model_get_tensor_addresses (self, selected, &n);
  if (step >= 0 && addresses != NULL && step < n)
    {
      g_autofree char *index = napkin_storage_diagram_model_dup_index_text (self, selected, step);

      /* Translators: "Storage diagram, step 2 of 16: y[0, 1] is storage element 4" */
      return g_strdup_printf (_("Storage diagram, step %" PRId64 " of %" PRId64 ": %s is storage element %" PRId64),
                              step + 1, n, index, addresses[step]);
    }
  if (selected >= 0)
    /* Translators: the storage diagram's name with its selected tensor */
    return g_strdup_printf (_("Storage diagram, %s selected"),
                            napkin_storage_diagram_model_get_selected_name (self));
  return g_strdup (_("Storage diagram"));
}

/**
 * napkin_storage_diagram_model_dup_description:
 * @self: a model
 *
 * What a sighted person reads off the diagram, in words: each storage with its
 * size, each tensor with its shape, strides, offset and the storage elements it
 * reads, then how to move through it by keyboard.
 *
 * Returns: (transfer full): the description
 */
char *
napkin_storage_diagram_model_dup_description (NapkinStorageDiagramModel *self)
{
  const char *dtype_name;
  GString *s;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);

  dtype_name = nk_dtype_info (napkin_storage_diagram_model_get_dtype (self))->cli_name;
  s = g_string_new (NULL);
  for (guint i = 0; i < napkin_storage_diagram_model_get_n_storages (self); i++)
    {
      g_autofree char *bytes = napkin_storage_diagram_model_format_bytes (
        napkin_storage_diagram_model_get_storage_nbytes (self, i));

      if (i > 0)
        g_string_append_c (s, ' ');
      /* Translators: "Storage of x: 16 elements of f32, 64 bytes." */
      g_string_append_printf (s, _("Storage of %s: %" PRId64 " elements of %s, %s."),
                              napkin_storage_diagram_model_get_storage_owner (self, i),
                              napkin_storage_diagram_model_get_storage_numel (self, i), dtype_name, bytes);
    }
  for (guint t = 0; t < napkin_storage_diagram_model_get_n_tensors (self); t++)
    append_tensor_description (self, s, t);
  if (s->len > 0)
    g_string_append_c (s, ' ');
  g_string_append (s, _("Left and Right step through the selected tensor, Up and Down select another."));
  return g_string_free (s, FALSE);
}
