/* napkin-storage-diagram-model.c: what the storage diagram shows and highlights
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model reads a finished NkProgram and keeps what the diagram draws: one
 * entry per storage and per named tensor, the storage index of every logical
 * element (from nk_tensor_storage_index(), so the addresses are the engine's),
 * and the presentation state: which tensor is selected, which element the pointer
 * is on, and where a step-through walk stands. It decides no tensor semantics;
 * the widget decides no state, so tests can check what would be highlighted
 * without drawing.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <glib/gi18n.h>

#include "nk-units.h"
#include "napkin-storage-diagram-model.h"

typedef struct {
  NkStorage *storage;
  gint64     numel;
  gint64     n_drawn;   /* the first cells, at most NAPKIN_STORAGE_DIAGRAM_MAX_CELLS */
  gsize      nbytes;
  char      *owner;
  double    *values;    /* n_drawn of them */
} StorageEntry;

typedef struct {
  char      *name;
  NkTensor  *tensor;
  guint      storage;
  char      *shares_with;
  char      *op;        /* the op of the statement that bound the name */
  gboolean   copied;
  gint64     numel;
  gint64     n_drawn;   /* the first elements in logical order */
  gint64    *addresses; /* storage index of each drawn element */
  double    *values;
} TensorEntry;

struct _NapkinStorageDiagramModel
{
  GObject  parent_instance;

  GArray  *storages;     /* StorageEntry */
  GArray  *tensors;      /* TensorEntry */
  NkDType  dtype;
  char    *last_name;    /* the last statement's name at the previous rebuild */

  int      selected;
  int      hover_tensor;
  gint64   hover_element;
  int      hover_storage;
  gint64   hover_cell;
  gint64   step;
};

G_DEFINE_FINAL_TYPE (NapkinStorageDiagramModel, napkin_storage_diagram_model, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SELECTED,
  PROP_HOVER_TENSOR,
  PROP_HOVER_ELEMENT,
  PROP_HOVER_STORAGE,
  PROP_HOVER_CELL,
  PROP_STEP,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The name the diagram gives the value of an unnamed last statement, as Python's REPL does. */
#define RESULT_NAME "_"

static void
storage_entry_clear (gpointer data)
{
  StorageEntry *entry = data;

  g_clear_pointer (&entry->storage, nk_storage_unref);
  g_clear_pointer (&entry->owner, g_free);
  g_clear_pointer (&entry->values, g_free);
}

static void
tensor_entry_clear (gpointer data)
{
  TensorEntry *entry = data;

  g_clear_pointer (&entry->name, g_free);
  g_clear_pointer (&entry->tensor, nk_tensor_unref);
  g_clear_pointer (&entry->shares_with, g_free);
  g_clear_pointer (&entry->op, g_free);
  g_clear_pointer (&entry->addresses, g_free);
  g_clear_pointer (&entry->values, g_free);
}

static StorageEntry *
storage_at (NapkinStorageDiagramModel *self,
            guint                      storage)
{
  g_return_val_if_fail (storage < self->storages->len, NULL);
  return &g_array_index (self->storages, StorageEntry, storage);
}

static TensorEntry *
tensor_at (NapkinStorageDiagramModel *self,
           guint                      tensor)
{
  g_return_val_if_fail (tensor < self->tensors->len, NULL);
  return &g_array_index (self->tensors, TensorEntry, tensor);
}

/* ------------------------------------------------------------ rebuilding */

static guint
find_or_add_storage (NapkinStorageDiagramModel *self,
                     NkTensor                  *tensor,
                     const char                *name)
{
  StorageEntry entry = { 0 };
  gsize element_size = nk_dtype_element_size (tensor->dtype);

  for (guint i = 0; i < self->storages->len; i++)
    if (storage_at (self, i)->storage == tensor->storage)
      return i;

  entry.storage = nk_storage_ref (tensor->storage);
  entry.nbytes = nk_storage_get_nbytes (tensor->storage);
  entry.numel = element_size ? (gint64) (entry.nbytes / element_size) : 0;
  entry.owner = g_strdup (name);
  entry.n_drawn = MIN (entry.numel, NAPKIN_STORAGE_DIAGRAM_MAX_CELLS);
  if (entry.n_drawn > 0)
    {
      /* The storage's first cells read as one flat tensor: values as they lie in memory. */
      gint64 shape[1] = { entry.n_drawn }, stride[1] = { 1 };
      g_autoptr(NkTensor) flat = nk_tensor_as_strided (tensor, 1, shape, stride, 0, NULL);

      if (flat != NULL)
        entry.values = nk_tensor_to_doubles (flat, NULL);
    }
  g_array_append_val (self->storages, entry);
  return self->storages->len - 1;
}

/* How many elements of @tensor to draw: all, or whole rows up to the cap. */
static gint64
elements_to_draw (NkTensor *tensor,
                  gint64    numel)
{
  gint64 cols;

  if (numel <= NAPKIN_STORAGE_DIAGRAM_MAX_CELLS)
    return numel;
  cols = tensor->ndim >= 2 ? tensor->shape[tensor->ndim - 1] : 0;
  if (cols > 0 && cols <= NAPKIN_STORAGE_DIAGRAM_MAX_CELLS)
    return NAPKIN_STORAGE_DIAGRAM_MAX_CELLS / cols * cols;
  return NAPKIN_STORAGE_DIAGRAM_MAX_CELLS;
}

static void
add_tensor (NapkinStorageDiagramModel *self,
            const char                *name,
            NkTensor                  *tensor,
            const char                *shares_with,
            const char                *op,
            gboolean                   copied)
{
  TensorEntry entry = { 0 };

  entry.name = g_strdup (name);
  entry.tensor = nk_tensor_ref (tensor);
  entry.storage = find_or_add_storage (self, tensor, name);
  entry.shares_with = g_strdup (shares_with);
  entry.op = g_strdup (op);
  entry.copied = copied;
  entry.numel = nk_tensor_numel (tensor);
  entry.n_drawn = elements_to_draw (tensor, entry.numel);

  if (entry.n_drawn > 0)
    {
      gint64 index[NK_MAX_DIMS] = { 0 };

      entry.addresses = g_new (gint64, entry.n_drawn);
      /* Row-major walk over the multi-index; the address of each is the engine's. */
      for (gint64 e = 0; e < entry.n_drawn; e++)
        {
          entry.addresses[e] = nk_tensor_storage_index (tensor, index);
          for (int d = tensor->ndim - 1; d >= 0; d--)
            {
              if (++index[d] < tensor->shape[d])
                break;
              index[d] = 0;
            }
        }
      if (entry.n_drawn == entry.numel)
        entry.values = nk_tensor_to_doubles (tensor, NULL);
      else
        {
          /* Only the first elements: read each through a one-element view. */
          entry.values = g_new0 (double, entry.n_drawn);
          for (gint64 e = 0; e < entry.n_drawn; e++)
            {
              gint64 one = 1;
              g_autoptr(NkTensor) cell = nk_tensor_as_strided (tensor, 1, &one, &one,
                                                               entry.addresses[e], NULL);

              if (cell == NULL || !nk_tensor_item (cell, &entry.values[e], NULL))
                entry.values[e] = NAN;
            }
        }
    }
  g_array_append_val (self->tensors, entry);
}

static NkTensor *
value_tensor (NkProgramValue *value)
{
  if (value == NULL || nk_program_value_get_kind (value) != NK_PROGRAM_VALUE_TENSOR)
    return NULL;
  return nk_program_value_get_tensor (value);
}

/**
 * napkin_storage_diagram_model_set_program:
 * @self: a model
 * @program: (nullable): a program that has run, or %NULL for an empty diagram
 *
 * Rebuilds the storages and tensors from the names @program bound (and its last
 * value when that is an unnamed tensor, shown as “_”). The selection follows the
 * last statement when that changes, and otherwise stays on the same name.
 */
void
napkin_storage_diagram_model_set_program (NapkinStorageDiagramModel *self,
                                          NkProgram                 *program)
{
  g_autofree char *old_selected = NULL;
  g_autofree char *last_name = NULL;
  gint64 old_step = self->step;
  int selected = -1;

  g_return_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self));
  g_return_if_fail (program == NULL || NK_IS_PROGRAM (program));

  if (self->selected >= 0)
    old_selected = g_strdup (tensor_at (self, self->selected)->name);

  g_array_set_size (self->tensors, 0);
  g_array_set_size (self->storages, 0);

  if (program != NULL)
    {
      NkTensor *last;

      self->dtype = nk_program_get_dtype (program);
      for (guint i = 0; i < nk_program_get_n_names (program); i++)
        {
          NkTensor *tensor = value_tensor (nk_program_get_name_value (program, i));

          guint statement = nk_program_get_name_statement (program, i) - 1;

          if (tensor != NULL)
            add_tensor (self, nk_program_get_name (program, i), tensor,
                        nk_program_get_name_shares_with (program, i),
                        nk_program_get_statement_op (program, statement),
                        nk_program_get_statement_copied (program, statement));
        }

      last = value_tensor (nk_program_get_last_value (program));
      if (nk_program_get_last_name (program) != NULL)
        last_name = g_strdup (nk_program_get_last_name (program));
      else if (last != NULL)
        {
          const char *shares_with = NULL;

          for (guint i = 0; i < self->tensors->len && shares_with == NULL; i++)
            if (nk_tensor_same_storage (tensor_at (self, i)->tensor, last))
              shares_with = tensor_at (self, i)->name;
          guint statement = nk_program_get_n_statements (program) - 1;

          add_tensor (self, RESULT_NAME, last, shares_with,
                      nk_program_get_statement_op (program, statement),
                      nk_program_get_statement_copied (program, statement));
          last_name = g_strdup (RESULT_NAME);
        }
    }

  if (g_strcmp0 (last_name, self->last_name) != 0)
    selected = last_name ? napkin_storage_diagram_model_find_tensor (self, last_name) : -1;
  else if (old_selected != NULL)
    selected = napkin_storage_diagram_model_find_tensor (self, old_selected);
  if (selected < 0 && last_name != NULL)
    selected = napkin_storage_diagram_model_find_tensor (self, last_name);
  if (selected < 0)
    selected = (int) self->tensors->len - 1;

  g_free (self->last_name);
  self->last_name = g_steal_pointer (&last_name);

  self->selected = selected;
  self->hover_tensor = -1;
  self->hover_element = -1;
  self->hover_storage = -1;
  self->hover_cell = -1;
  /* Keep walking the same tensor while its program is being edited. */
  if (selected < 0 || g_strcmp0 (old_selected, tensor_at (self, selected)->name) != 0 ||
      old_step >= tensor_at (self, selected)->n_drawn)
    self->step = -1;

  g_signal_emit (self, signals[CHANGED], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_TENSOR]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_ELEMENT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_STORAGE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_CELL]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
}

/* ------------------------------------------------------------ storages */

/**
 * napkin_storage_diagram_model_get_n_storages:
 * @self: a model
 *
 * Returns: how many distinct storages the named tensors use
 */
guint
napkin_storage_diagram_model_get_n_storages (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  return self->storages->len;
}

/**
 * napkin_storage_diagram_model_get_storage_numel:
 * @self: a model
 * @storage: a storage, from 0
 *
 * Returns: how many elements of the program's dtype the storage holds
 */
gint64
napkin_storage_diagram_model_get_storage_numel (NapkinStorageDiagramModel *self,
                                                guint                      storage)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  g_return_val_if_fail (storage < self->storages->len, 0);
  return storage_at (self, storage)->numel;
}

/**
 * napkin_storage_diagram_model_get_storage_n_drawn:
 * @self: a model
 * @storage: a storage, from 0
 *
 * Returns: how many of its first cells the diagram draws: all of them, or
 *   %NAPKIN_STORAGE_DIAGRAM_MAX_CELLS
 */
gint64
napkin_storage_diagram_model_get_storage_n_drawn (NapkinStorageDiagramModel *self,
                                                  guint                      storage)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  g_return_val_if_fail (storage < self->storages->len, 0);
  return storage_at (self, storage)->n_drawn;
}

/**
 * napkin_storage_diagram_model_get_storage_nbytes:
 * @self: a model
 * @storage: a storage, from 0
 *
 * Returns: the storage's size in bytes
 */
gsize
napkin_storage_diagram_model_get_storage_nbytes (NapkinStorageDiagramModel *self,
                                                 guint                      storage)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  g_return_val_if_fail (storage < self->storages->len, 0);
  return storage_at (self, storage)->nbytes;
}

/**
 * napkin_storage_diagram_model_get_storage_owner:
 * @self: a model
 * @storage: a storage, from 0
 *
 * Returns: the first name whose tensor uses the storage
 */
const char *
napkin_storage_diagram_model_get_storage_owner (NapkinStorageDiagramModel *self,
                                                guint                      storage)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (storage < self->storages->len, NULL);
  return storage_at (self, storage)->owner;
}

/**
 * napkin_storage_diagram_model_get_storage_value:
 * @self: a model
 * @storage: a storage, from 0
 * @cell: a storage index
 * @out_value: (out): the element stored there, decoded exactly
 *
 * Returns: %FALSE when @cell is out of range or the storage is too large to draw
 */
gboolean
napkin_storage_diagram_model_get_storage_value (NapkinStorageDiagramModel *self,
                                                guint                      storage,
                                                gint64                     cell,
                                                double                    *out_value)
{
  StorageEntry *entry;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), FALSE);
  g_return_val_if_fail (storage < self->storages->len, FALSE);

  entry = storage_at (self, storage);
  if (entry->values == NULL || cell < 0 || cell >= entry->n_drawn)
    return FALSE;
  *out_value = entry->values[cell];
  return TRUE;
}

/**
 * napkin_storage_diagram_model_get_total_nbytes:
 * @self: a model
 *
 * Returns: the bytes of all storages together
 */
gsize
napkin_storage_diagram_model_get_total_nbytes (NapkinStorageDiagramModel *self)
{
  gsize total = 0;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  for (guint i = 0; i < self->storages->len; i++)
    total += storage_at (self, i)->nbytes;
  return total;
}

/**
 * napkin_storage_diagram_model_get_dtype:
 * @self: a model
 *
 * Returns: the element format of the program's tensors
 */
NkDType
napkin_storage_diagram_model_get_dtype (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NK_DTYPE_F32);
  return self->dtype;
}

/* ------------------------------------------------------------ tensors */

/**
 * napkin_storage_diagram_model_get_n_tensors:
 * @self: a model
 *
 * Returns: how many tensors the diagram shows
 */
guint
napkin_storage_diagram_model_get_n_tensors (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  return self->tensors->len;
}

/**
 * napkin_storage_diagram_model_get_tensor_name:
 * @self: a model
 * @tensor: a tensor, from 0
 *
 * Returns: its name (“_” for an unnamed last value)
 */
const char *
napkin_storage_diagram_model_get_tensor_name (NapkinStorageDiagramModel *self,
                                              guint                      tensor)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);
  return tensor_at (self, tensor)->name;
}

/**
 * napkin_storage_diagram_model_get_tensor:
 * @self: a model
 * @tensor: a tensor, from 0
 *
 * Returns: (transfer none): the tensor
 */
NkTensor *
napkin_storage_diagram_model_get_tensor (NapkinStorageDiagramModel *self,
                                         guint                      tensor)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);
  return tensor_at (self, tensor)->tensor;
}

/**
 * napkin_storage_diagram_model_get_tensor_storage:
 * @self: a model
 * @tensor: a tensor, from 0
 *
 * Returns: the storage (strip) the tensor reads
 */
guint
napkin_storage_diagram_model_get_tensor_storage (NapkinStorageDiagramModel *self,
                                                 guint                      tensor)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);
  g_return_val_if_fail (tensor < self->tensors->len, 0);
  return tensor_at (self, tensor)->storage;
}

/**
 * napkin_storage_diagram_model_get_tensor_shares_with:
 * @self: a model
 * @tensor: a tensor, from 0
 *
 * Returns: (nullable): the earlier name whose storage the tensor shares, %NULL when
 *   the tensor brought its own storage
 */
const char *
napkin_storage_diagram_model_get_tensor_shares_with (NapkinStorageDiagramModel *self,
                                                     guint                      tensor)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);
  return tensor_at (self, tensor)->shares_with;
}

/**
 * napkin_storage_diagram_model_get_tensor_addresses:
 * @self: a model
 * @tensor: a tensor, from 0
 * @n_elements: (out) (optional): how many elements are drawn: the tensor's numel,
 *   or its first whole rows up to %NAPKIN_STORAGE_DIAGRAM_MAX_CELLS
 *
 * Returns: (array length=n_elements) (nullable): the storage index of every drawn
 *   element in logical row-major order, %NULL when the tensor is empty
 */
const gint64 *
napkin_storage_diagram_model_get_tensor_addresses (NapkinStorageDiagramModel *self,
                                                   guint                      tensor,
                                                   gint64                    *n_elements)
{
  TensorEntry *entry;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);

  entry = tensor_at (self, tensor);
  if (n_elements != NULL)
    *n_elements = entry->n_drawn;
  return entry->addresses;
}

/**
 * napkin_storage_diagram_model_get_tensor_values:
 * @self: a model
 * @tensor: a tensor, from 0
 * @n_elements: (out) (optional): how many elements are drawn (see
 *   napkin_storage_diagram_model_get_tensor_addresses())
 *
 * Returns: (array length=n_elements) (nullable): the drawn elements in logical
 *   order, %NULL when the tensor is empty
 */
const double *
napkin_storage_diagram_model_get_tensor_values (NapkinStorageDiagramModel *self,
                                                guint                      tensor,
                                                gint64                    *n_elements)
{
  TensorEntry *entry;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);

  entry = tensor_at (self, tensor);
  if (n_elements != NULL)
    *n_elements = entry->n_drawn;
  return entry->values;
}

/**
 * napkin_storage_diagram_model_get_tensor_op:
 * @self: a model
 * @tensor: a tensor, from 0
 *
 * Returns: (nullable): the op of the statement that bound the tensor, as
 *   nk_program_get_statement_op() names it
 */
const char *
napkin_storage_diagram_model_get_tensor_op (NapkinStorageDiagramModel *self,
                                            guint                      tensor)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);
  return tensor_at (self, tensor)->op;
}

/**
 * napkin_storage_diagram_model_get_tensor_copied:
 * @self: a model
 * @tensor: a tensor, from 0
 *
 * Returns: whether the statement that bound the tensor copied into a new storage
 *   (nk_program_get_statement_copied())
 */
gboolean
napkin_storage_diagram_model_get_tensor_copied (NapkinStorageDiagramModel *self,
                                                guint                      tensor)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), FALSE);
  g_return_val_if_fail (tensor < self->tensors->len, FALSE);
  return tensor_at (self, tensor)->copied;
}

/**
 * napkin_storage_diagram_model_find_tensor:
 * @self: a model
 * @name: a name
 *
 * Returns: the tensor called @name, or -1
 */
int
napkin_storage_diagram_model_find_tensor (NapkinStorageDiagramModel *self,
                                          const char                *name)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);

  for (guint i = 0; i < self->tensors->len; i++)
    if (g_strcmp0 (tensor_at (self, i)->name, name) == 0)
      return (int) i;
  return -1;
}

/* ------------------------------------------------------------ selection */

/**
 * napkin_storage_diagram_model_get_selected:
 * @self: a model
 *
 * Returns: the selected tensor, or -1 when there is none
 */
int
napkin_storage_diagram_model_get_selected (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);
  return self->selected;
}

/**
 * napkin_storage_diagram_model_set_selected:
 * @self: a model
 * @tensor: a tensor, or -1
 *
 * Selects @tensor: its elements are highlighted in its storage. Ends a step-through.
 */
void
napkin_storage_diagram_model_set_selected (NapkinStorageDiagramModel *self,
                                           int                        tensor)
{
  g_return_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self));
  g_return_if_fail (tensor >= -1 && tensor < (int) self->tensors->len);

  if (self->selected == tensor)
    return;
  self->selected = tensor;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
  napkin_storage_diagram_model_set_step (self, -1);
}

/**
 * napkin_storage_diagram_model_get_selected_name:
 * @self: a model
 *
 * Returns: (nullable): the selected tensor's name
 */
const char *
napkin_storage_diagram_model_get_selected_name (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  return self->selected >= 0 ? tensor_at (self, self->selected)->name : NULL;
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/**
 * napkin_storage_diagram_model_dup_highlighted_cells:
 * @self: a model
 * @n_cells: (out): how many cells
 *
 * The storage cells the selected tensor reads, each once, in increasing order, in
 * the storage napkin_storage_diagram_model_get_tensor_storage() names.
 *
 * Returns: (transfer full) (array length=n_cells) (nullable): the cells; g_free() them
 */
gint64 *
napkin_storage_diagram_model_dup_highlighted_cells (NapkinStorageDiagramModel *self,
                                                    guint                     *n_cells)
{
  TensorEntry *entry;
  gint64 *cells;
  guint n = 0;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (n_cells != NULL, NULL);

  *n_cells = 0;
  if (self->selected < 0)
    return NULL;
  entry = tensor_at (self, self->selected);
  if (entry->addresses == NULL)
    return NULL;

  cells = g_memdup2 (entry->addresses, entry->n_drawn * sizeof (gint64));
  qsort (cells, entry->n_drawn, sizeof (gint64), compare_gint64);
  for (gint64 i = 0; i < entry->n_drawn; i++)
    if (n == 0 || cells[n - 1] != cells[i])
      cells[n++] = cells[i];
  *n_cells = n;
  return cells;
}

/**
 * napkin_storage_diagram_model_get_cell_hits:
 * @self: a model
 * @storage: a storage, from 0
 * @cell: a storage index
 *
 * Returns: how many elements of the selected tensor read @cell (0 when the cell is
 *   not highlighted; more than 1 under a stride of 0)
 */
guint
napkin_storage_diagram_model_get_cell_hits (NapkinStorageDiagramModel *self,
                                            guint                      storage,
                                            gint64                     cell)
{
  TensorEntry *entry;
  guint hits = 0;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), 0);

  if (self->selected < 0)
    return 0;
  entry = tensor_at (self, self->selected);
  if (entry->storage != storage || entry->addresses == NULL)
    return 0;
  for (gint64 i = 0; i < entry->n_drawn; i++)
    hits += entry->addresses[i] == cell;
  return hits;
}

/* ------------------------------------------------------------ hover and steps */

/**
 * napkin_storage_diagram_model_set_hover:
 * @self: a model
 * @tensor: the tensor under the pointer, or -1
 * @element: its element under the pointer (logical row-major position), or -1
 */
void
napkin_storage_diagram_model_set_hover (NapkinStorageDiagramModel *self,
                                        int                        tensor,
                                        gint64                     element)
{
  g_return_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self));
  g_return_if_fail (tensor >= -1 && tensor < (int) self->tensors->len);

  if (tensor < 0 || element < 0 || element >= tensor_at (self, tensor)->n_drawn)
    tensor = -1, element = -1;
  if (tensor >= 0)
    napkin_storage_diagram_model_set_hover_cell (self, -1, -1);
  if (self->hover_tensor == tensor && self->hover_element == element)
    return;

  self->hover_tensor = tensor;
  self->hover_element = element;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_TENSOR]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_ELEMENT]);
}

/**
 * napkin_storage_diagram_model_set_hover_cell:
 * @self: a model
 * @storage: the storage under the pointer, or -1
 * @cell: its cell under the pointer, or -1
 *
 * Points at a storage cell: every drawn element that reads it is singled out
 * (several under a stride of 0). Ends pointing at an element.
 */
void
napkin_storage_diagram_model_set_hover_cell (NapkinStorageDiagramModel *self,
                                             int                        storage,
                                             gint64                     cell)
{
  g_return_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self));
  g_return_if_fail (storage >= -1 && storage < (int) self->storages->len);

  if (storage < 0 || cell < 0 || cell >= storage_at (self, storage)->n_drawn)
    storage = -1, cell = -1;
  if (storage >= 0)
    napkin_storage_diagram_model_set_hover (self, -1, -1);
  if (self->hover_storage == storage && self->hover_cell == cell)
    return;

  self->hover_storage = storage;
  self->hover_cell = cell;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_STORAGE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_CELL]);
}

int
napkin_storage_diagram_model_get_hover_storage (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);
  return self->hover_storage;
}

gint64
napkin_storage_diagram_model_get_hover_cell (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);
  return self->hover_cell;
}

/**
 * napkin_storage_diagram_model_dup_cell_readers:
 * @self: a model
 * @tensor: a tensor, from 0
 * @n_elements: (out): how many
 *
 * The elements of @tensor that read the storage cell under the pointer: those
 * whose storage index (from nk_tensor_storage_index()) is that cell.
 *
 * Returns: (transfer full) (array length=n_elements) (nullable): the elements in
 *   logical order, %NULL when none; g_free() them
 */
gint64 *
napkin_storage_diagram_model_dup_cell_readers (NapkinStorageDiagramModel *self,
                                               guint                      tensor,
                                               guint                     *n_elements)
{
  TensorEntry *entry;
  GArray *found;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);
  g_return_val_if_fail (n_elements != NULL, NULL);

  *n_elements = 0;
  entry = tensor_at (self, tensor);
  if (self->hover_storage < 0 || entry->storage != (guint) self->hover_storage)
    return NULL;
  found = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (gint64 e = 0; e < entry->n_drawn; e++)
    if (entry->addresses[e] == self->hover_cell)
      g_array_append_val (found, e);
  *n_elements = found->len;
  return (gint64 *) g_array_free (found, found->len == 0);
}

int
napkin_storage_diagram_model_get_hover_tensor (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);
  return self->hover_tensor;
}

gint64
napkin_storage_diagram_model_get_hover_element (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);
  return self->hover_element;
}

/**
 * napkin_storage_diagram_model_get_step:
 * @self: a model
 *
 * Returns: the element of the selected tensor a step-through stands on, or -1 when
 *   not stepping
 */
gint64
napkin_storage_diagram_model_get_step (NapkinStorageDiagramModel *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), -1);
  return self->step;
}

/**
 * napkin_storage_diagram_model_set_step:
 * @self: a model
 * @step: an element of the selected tensor (logical order), or -1 to stop
 */
void
napkin_storage_diagram_model_set_step (NapkinStorageDiagramModel *self,
                                       gint64                     step)
{
  g_return_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self));

  if (self->selected < 0 || tensor_at (self, self->selected)->addresses == NULL ||
      step < 0 || step >= tensor_at (self, self->selected)->n_drawn)
    step = -1;
  if (self->step == step)
    return;
  self->step = step;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
}

/**
 * napkin_storage_diagram_model_step:
 * @self: a model
 * @delta: +1 for the next element in logical order, -1 for the previous one
 *
 * Starts a step-through at the first (or last) element when none runs, and stops
 * it past either end.
 *
 * Returns: whether a step-through runs afterwards
 */
gboolean
napkin_storage_diagram_model_step (NapkinStorageDiagramModel *self,
                                   int                        delta)
{
  gint64 numel;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), FALSE);

  if (self->selected < 0)
    return FALSE;
  numel = tensor_at (self, self->selected)->n_drawn;
  if (self->step < 0)
    napkin_storage_diagram_model_set_step (self, delta >= 0 ? 0 : numel - 1);
  else
    napkin_storage_diagram_model_set_step (self, self->step + delta);
  return self->step >= 0;
}

/**
 * napkin_storage_diagram_model_get_focus:
 * @self: a model
 * @out_tensor: (out) (optional): the tensor
 * @out_element: (out) (optional): its element, in logical order
 * @out_cell: (out) (optional): the element's storage index
 *
 * The element the diagram singles out: the one under the pointer, else the one a
 * step-through stands on.
 *
 * Returns: %FALSE when there is none
 */
gboolean
napkin_storage_diagram_model_get_focus (NapkinStorageDiagramModel *self,
                                        int                       *out_tensor,
                                        gint64                    *out_element,
                                        gint64                    *out_cell)
{
  int tensor = -1;
  gint64 element = -1;
  TensorEntry *entry;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), FALSE);

  if (self->hover_tensor >= 0)
    tensor = self->hover_tensor, element = self->hover_element;
  else if (self->step >= 0)
    tensor = self->selected, element = self->step;
  if (tensor < 0)
    return FALSE;
  entry = tensor_at (self, tensor);
  if (entry->addresses == NULL)
    return FALSE;

  if (out_tensor)
    *out_tensor = tensor;
  if (out_element)
    *out_element = element;
  if (out_cell)
    *out_cell = entry->addresses[element];
  return TRUE;
}

/**
 * napkin_storage_diagram_model_get_jump:
 * @self: a model
 * @out_from: (out): the storage index of the previous element in the walk
 * @out_to: (out): the storage index of the current one
 *
 * Returns: %TRUE while a step-through past its first element shows (no pointer over
 *   the diagram)
 */
gboolean
napkin_storage_diagram_model_get_jump (NapkinStorageDiagramModel *self,
                                       gint64                    *out_from,
                                       gint64                    *out_to)
{
  TensorEntry *entry;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), FALSE);

  if (self->hover_tensor >= 0 || self->step <= 0 || self->selected < 0)
    return FALSE;
  entry = tensor_at (self, self->selected);
  *out_from = entry->addresses[self->step - 1];
  *out_to = entry->addresses[self->step];
  return TRUE;
}

/**
 * napkin_storage_diagram_model_dup_index_text:
 * @self: a model
 * @tensor: a tensor, from 0
 * @element: an element in logical order
 *
 * Returns: (transfer full): the element as it is written in a program, "x[1, 2]"
 */
char *
napkin_storage_diagram_model_dup_index_text (NapkinStorageDiagramModel *self,
                                             guint                      tensor,
                                             gint64                     element)
{
  TensorEntry *entry;
  gint64 index[NK_MAX_DIMS] = { 0 };
  GString *s;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);
  g_return_val_if_fail (tensor < self->tensors->len, NULL);

  entry = tensor_at (self, tensor);
  for (int d = entry->tensor->ndim - 1; d >= 0; d--)
    {
      gint64 size = MAX (entry->tensor->shape[d], 1);

      index[d] = element % size;
      element /= size;
    }

  s = g_string_new (entry->name);
  if (entry->tensor->ndim == 0)
    return g_string_free (s, FALSE);
  g_string_append_c (s, '[');
  for (int d = 0; d < entry->tensor->ndim; d++)
    g_string_append_printf (s, "%s%" PRId64, d ? ", " : "", index[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* "cell 2 ← x[2], y[0, 2], y[1, 2], y[2, 2]": who reads the cell under the pointer. */
static char *
dup_cell_formula (NapkinStorageDiagramModel *self)
{
  StorageEntry *storage = storage_at (self, self->hover_storage);
  GString *s = g_string_new (NULL);
  guint n_readers = 0;

  /* Translators: "storage of x, cell 2 ← x[2], y[0, 2]" */
  g_string_printf (s, _("storage of %s, cell %" PRId64), storage->owner, self->hover_cell);
  for (guint t = 0; t < self->tensors->len; t++)
    {
      guint n = 0;
      g_autofree gint64 *readers = napkin_storage_diagram_model_dup_cell_readers (self, t, &n);

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *index = napkin_storage_diagram_model_dup_index_text (self, t, readers[i]);

          g_string_append (s, n_readers++ == 0 ? " ← " : ", ");
          g_string_append (s, index);
        }
    }
  if (n_readers == 0)
    g_string_append (s, _(" · no tensor reads it"));
  return g_string_free (s, FALSE);
}

/**
 * napkin_storage_diagram_model_dup_formula:
 * @self: a model
 *
 * The address of the focused element written out with its numbers, the way
 * nk-tensor.h teaches it: "x[1, 2] → 6 = 0 + 1·4 + 2·1"; or, with the pointer
 * on a storage cell, the elements that read it: "storage of x, cell 2 ← x[2], y[0, 2]".
 *
 * Returns: (transfer full) (nullable): the formula, %NULL without a focused element
 */
char *
napkin_storage_diagram_model_dup_formula (NapkinStorageDiagramModel *self)
{
  g_autofree char *index_text = NULL;
  TensorEntry *entry;
  gint64 element, cell, rest, index[NK_MAX_DIMS] = { 0 };
  int tensor;
  GString *s;

  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM_MODEL (self), NULL);

  if (self->hover_storage >= 0)
    return dup_cell_formula (self);
  if (!napkin_storage_diagram_model_get_focus (self, &tensor, &element, &cell))
    return NULL;
  entry = tensor_at (self, tensor);
  index_text = napkin_storage_diagram_model_dup_index_text (self, tensor, element);

  rest = element;
  for (int d = entry->tensor->ndim - 1; d >= 0; d--)
    {
      gint64 size = MAX (entry->tensor->shape[d], 1);

      index[d] = rest % size;
      rest /= size;
    }

  s = g_string_new (NULL);
  g_string_append_printf (s, "%s → %" PRId64 " = %" PRId64,
                          index_text, cell, entry->tensor->offset);
  for (int d = 0; d < entry->tensor->ndim; d++)
    g_string_append_printf (s, " + %" PRId64 "·%" PRId64,
                            index[d], entry->tensor->stride[d]);
  return g_string_free (s, FALSE);
}

/**
 * napkin_storage_diagram_model_format_bytes:
 * @nbytes: a byte count
 *
 * Small counts exactly ("64 bytes"), so a dtype switch visibly halves them; large
 * ones the way the rest of Napkin writes them.
 *
 * Returns: (transfer full): the text
 */
char *
napkin_storage_diagram_model_format_bytes (gsize nbytes)
{
  if (nbytes < 10000)
    return g_strdup_printf (ngettext ("%zu byte", "%zu bytes", nbytes), nbytes);
  return nk_units_format_bytes ((double) nbytes);
}

/* ------------------------------------------------------------ GObject */

static void
napkin_storage_diagram_model_finalize (GObject *object)
{
  NapkinStorageDiagramModel *self = NAPKIN_STORAGE_DIAGRAM_MODEL (object);

  g_clear_pointer (&self->tensors, g_array_unref);
  g_clear_pointer (&self->storages, g_array_unref);
  g_clear_pointer (&self->last_name, g_free);

  G_OBJECT_CLASS (napkin_storage_diagram_model_parent_class)->finalize (object);
}

static void
napkin_storage_diagram_model_get_property (GObject    *object,
                                           guint       prop_id,
                                           GValue     *value,
                                           GParamSpec *pspec)
{
  NapkinStorageDiagramModel *self = NAPKIN_STORAGE_DIAGRAM_MODEL (object);

  switch (prop_id)
    {
    case PROP_SELECTED:
      g_value_set_int (value, self->selected);
      break;
    case PROP_HOVER_TENSOR:
      g_value_set_int (value, self->hover_tensor);
      break;
    case PROP_HOVER_ELEMENT:
      g_value_set_int64 (value, self->hover_element);
      break;
    case PROP_HOVER_STORAGE:
      g_value_set_int (value, self->hover_storage);
      break;
    case PROP_HOVER_CELL:
      g_value_set_int64 (value, self->hover_cell);
      break;
    case PROP_STEP:
      g_value_set_int64 (value, self->step);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_storage_diagram_model_set_property (GObject      *object,
                                           guint         prop_id,
                                           const GValue *value,
                                           GParamSpec   *pspec)
{
  NapkinStorageDiagramModel *self = NAPKIN_STORAGE_DIAGRAM_MODEL (object);

  switch (prop_id)
    {
    case PROP_SELECTED:
      napkin_storage_diagram_model_set_selected (self, g_value_get_int (value));
      break;
    case PROP_STEP:
      napkin_storage_diagram_model_set_step (self, g_value_get_int64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_storage_diagram_model_class_init (NapkinStorageDiagramModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = napkin_storage_diagram_model_finalize;
  object_class->get_property = napkin_storage_diagram_model_get_property;
  object_class->set_property = napkin_storage_diagram_model_set_property;

  properties[PROP_SELECTED] =
    g_param_spec_int ("selected", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HOVER_TENSOR] =
    g_param_spec_int ("hover-tensor", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HOVER_ELEMENT] =
    g_param_spec_int64 ("hover-element", NULL, NULL, -1, G_MAXINT64, -1,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HOVER_STORAGE] =
    g_param_spec_int ("hover-storage", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HOVER_CELL] =
    g_param_spec_int64 ("hover-cell", NULL, NULL, -1, G_MAXINT64, -1,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STEP] =
    g_param_spec_int64 ("step", NULL, NULL, -1, G_MAXINT64, -1,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NapkinStorageDiagramModel::changed:
   *
   * The storages and tensors were rebuilt from a program.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
napkin_storage_diagram_model_init (NapkinStorageDiagramModel *self)
{
  self->storages = g_array_new (FALSE, TRUE, sizeof (StorageEntry));
  g_array_set_clear_func (self->storages, storage_entry_clear);
  self->tensors = g_array_new (FALSE, TRUE, sizeof (TensorEntry));
  g_array_set_clear_func (self->tensors, tensor_entry_clear);
  self->dtype = NK_DTYPE_F32;
  self->selected = -1;
  self->hover_tensor = -1;
  self->hover_element = -1;
  self->hover_storage = -1;
  self->hover_cell = -1;
  self->step = -1;
}

/**
 * napkin_storage_diagram_model_new:
 *
 * Returns: (transfer full): an empty model
 */
NapkinStorageDiagramModel *
napkin_storage_diagram_model_new (void)
{
  return g_object_new (NAPKIN_TYPE_STORAGE_DIAGRAM_MODEL, NULL);
}
