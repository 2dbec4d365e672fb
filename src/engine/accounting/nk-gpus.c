/* nk-gpus.c: the GPU table the planner reads (datasheet peaks, memory, CUDA names)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-enums.h"
#include "nk-gpus.h"
#include "nk-json.h"

#define GPUS_RESOURCE "/io/github/napkinml/Napkin/engine/gpus.json"

/**
 * nk_gpus_error_quark:
 *
 * The error domain of the GPU table: a table that does not parse, an id not in it.
 *
 * Returns: the #GQuark of %NK_GPUS_ERROR
 */
G_DEFINE_QUARK (nk-gpus-error-quark, nk_gpus_error)

/**
 * nk_peak_dtype_to_string:
 * @dtype: a column
 *
 * The name of a peak column as the CLI's --dtype and JSON spell it.
 *
 * Returns: the column's name as the CLI and JSON spell it ("bf16")
 */
const char *
nk_peak_dtype_to_string (NkPeakDtype dtype)
{
  g_return_val_if_fail (dtype >= 0 && dtype < NK_PEAK_N_DTYPES, NULL);
  return nk_enum_to_nick (NK_TYPE_PEAK_DTYPE, dtype);
}

/**
 * nk_peak_dtype_from_string:
 * @text: "fp32", "bf16", ... (also "float32", "bfloat16", "float16", "half")
 * @out_dtype: (out): the column
 *
 * Reads a column's name or one of its PyTorch-style aliases.
 *
 * Returns: %TRUE if @text names a column
 */
gboolean
nk_peak_dtype_from_string (const char  *text,
                           NkPeakDtype *out_dtype)
{
  static const struct { const char *alias; NkPeakDtype dtype; } aliases[] = {
    { "float64", NK_PEAK_FP64 }, { "f64", NK_PEAK_FP64 },
    { "float32", NK_PEAK_FP32 }, { "f32", NK_PEAK_FP32 },
    { "bfloat16", NK_PEAK_BF16 },
    { "float16", NK_PEAK_FP16 }, { "f16", NK_PEAK_FP16 }, { "half", NK_PEAK_FP16 },
  };
  int value;

  g_return_val_if_fail (out_dtype != NULL, FALSE);

  if (text == NULL)
    return FALSE;
  if (nk_enum_from_nick (NK_TYPE_PEAK_DTYPE, text, &value))
    {
      *out_dtype = value;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_ascii_strcasecmp (text, aliases[i].alias) == 0)
      {
        *out_dtype = aliases[i].dtype;
        return TRUE;
      }
  return FALSE;
}

/**
 * nk_gpu_copy:
 * @gpu: a row
 *
 * Copies a row with its strings, so it outlives the table (the boxed type #NkGpu
 * copies with this).
 *
 * Returns: (transfer full): an independent copy
 */
NkGpu *
nk_gpu_copy (const NkGpu *gpu)
{
  NkGpu *copy;

  g_return_val_if_fail (gpu != NULL, NULL);

  copy = g_new0 (NkGpu, 1);
  *copy = *gpu;
  copy->id = g_strdup (gpu->id);
  copy->name = g_strdup (gpu->name);
  copy->cuda_names = g_strdupv (gpu->cuda_names);
  copy->source = g_strdup (gpu->source);
  copy->interconnect_source = g_strdup (gpu->interconnect_source);
  copy->notes = g_strdup (gpu->notes);
  copy->achievable_source = g_strdup (gpu->achievable_source);
  return copy;
}

/**
 * nk_gpu_free:
 * @gpu: (transfer full) (nullable): a row made by nk_gpu_copy() or nk_gpus_parse()
 *
 * Frees a row that is the caller's; rows of the table itself are never freed.
 */
void
nk_gpu_free (NkGpu *gpu)
{
  if (gpu == NULL)
    return;
  g_free (gpu->id);
  g_free (gpu->name);
  g_strfreev (gpu->cuda_names);
  g_free (gpu->source);
  g_free (gpu->interconnect_source);
  g_free (gpu->notes);
  g_free (gpu->achievable_source);
  g_free (gpu);
}

G_DEFINE_BOXED_TYPE (NkGpu, nk_gpu, nk_gpu_copy, nk_gpu_free)

/**
 * nk_gpu_get_peak:
 * @gpu: a row
 * @dtype: the column
 * @sparse: the 2:4 structured-sparsity figure instead of the dense one
 *
 * One figure of the datasheet, the denominator of an MFU.
 *
 * Returns: the peak in FLOP/s, NAN where the datasheet lists none
 */
double
nk_gpu_get_peak (const NkGpu *gpu,
                 NkPeakDtype  dtype,
                 gboolean     sparse)
{
  g_return_val_if_fail (gpu != NULL, NAN);
  g_return_val_if_fail (dtype >= 0 && dtype < NK_PEAK_N_DTYPES, NAN);

  return sparse ? gpu->peak_sparse[dtype] : gpu->peak[dtype];
}

/**
 * nk_gpu_get_achievable:
 * @gpu: a row
 * @dtype: the column
 *
 * The best dense matmul rate measured on the GPU in that format — the ceiling a
 * time model stands on, where the datasheet's peak is only the denominator of an MFU.
 *
 * Returns: the rate in FLOP/s, NAN where none was measured
 */
double
nk_gpu_get_achievable (const NkGpu *gpu,
                       NkPeakDtype  dtype)
{
  g_return_val_if_fail (gpu != NULL, NAN);
  g_return_val_if_fail (dtype >= 0 && dtype < NK_PEAK_N_DTYPES, NAN);

  return gpu->achievable[dtype];
}

/* A JSON number > 0, or null (NAN). Anything else is an error naming the field. */
static gboolean
read_figure (JsonObject  *object,
             const char  *id,
             const char  *member,
             double      *out_value,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      *out_value = NAN;
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType type = json_node_get_value_type (node);

      if (type == G_TYPE_DOUBLE || type == G_TYPE_INT64)
        {
          double value = json_node_get_double (node);

          if (isfinite (value) && value > 0)
            {
              *out_value = value;
              return TRUE;
            }
        }
    }
  g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
               _("GPU “%s”: “%s” must be a positive number or null"), id, member);
  return FALSE;
}

static gboolean
read_peaks (JsonObject  *row,
            const char  *id,
            const char  *member,
            double       peaks[NK_PEAK_N_DTYPES],
            GError     **error)
{
  JsonNode *node = json_object_get_member (row, member);
  JsonObject *object;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                   _("GPU “%s”: “%s” must be an object of peaks"), id, member);
      return FALSE;
    }
  object = json_node_get_object (node);
  for (guint i = 0; i < NK_PEAK_N_DTYPES; i++)
    {
      const char *key = nk_peak_dtype_to_string (i);

      if (!json_object_has_member (object, key))
        {
          g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                       _("GPU “%s”: “%s” has no “%s” (write null where there is none)"),
                       id, member, key);
          return FALSE;
        }
      if (!read_figure (object, id, key, &peaks[i], error))
        return FALSE;
    }
  return TRUE;
}

static char *
read_string (JsonObject  *row,
             const char  *id,
             const char  *member,
             gboolean     required,
             GError     **error)
{
  JsonNode *node = json_object_get_member (row, member);
  const char *value;

  if ((node == NULL || JSON_NODE_HOLDS_NULL (node)) && !required)
    return g_strdup ("");
  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING
      || (value = json_node_get_string (node)) == NULL || value[0] == '\0')
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                   _("GPU “%s”: “%s” must be a non-empty string"), id, member);
      return NULL;
    }
  return g_strdup (value);
}

/* A whole number of GPUs ≥ 1, or null: one GPU, no fabric. */
static gboolean
read_domain (JsonObject  *row,
             const char  *id,
             guint       *out_domain,
             GError     **error)
{
  double value;

  if (!read_figure (row, id, "nvlink_domain", &value, error))
    return FALSE;
  if (isnan (value))
    value = 1;
  if (value != floor (value) || value > 1e6)
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                   _("GPU “%s”: “nvlink_domain” must be a whole number of GPUs"), id);
      return FALSE;
    }
  *out_domain = (guint) value;
  return TRUE;
}

/* Measured rates by column: only columns the table has, each at most the
 * datasheet's dense peak (a measurement above it is a typo or a sparse figure). */
static gboolean
read_achievable (JsonObject  *row,
                 NkGpu       *gpu,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (row, "achievable");
  g_autoptr(GList) members = NULL;

  for (guint i = 0; i < NK_PEAK_N_DTYPES; i++)
    gpu->achievable[i] = NAN;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                   _("GPU “%s”: “%s” must be an object of peaks"), gpu->id, "achievable");
      return FALSE;
    }
  members = json_object_get_members (json_node_get_object (node));
  for (GList *l = members; l != NULL; l = l->next)
    {
      NkPeakDtype dtype;
      int value;

      if (!nk_enum_from_nick (NK_TYPE_PEAK_DTYPE, l->data, &value))
        {
          g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                       _("GPU “%s”: “achievable” has “%s”, not a peak column"),
                       gpu->id, (const char *) l->data);
          return FALSE;
        }
      dtype = value;
      if (!read_figure (json_node_get_object (node), gpu->id, l->data,
                        &gpu->achievable[dtype], error))
        return FALSE;
      if (isfinite (gpu->achievable[dtype])
          && !(gpu->achievable[dtype] <= gpu->peak[dtype]))
        {
          g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                       _("GPU “%s”: the achievable %s rate must be at most the dense peak"),
                       gpu->id, nk_peak_dtype_to_string (dtype));
          return FALSE;
        }
    }
  return TRUE;
}

static NkGpu *
read_row (JsonNode  *node,
          guint      index,
          GError   **error)
{
  g_autoptr(NkGpu) gpu = g_new0 (NkGpu, 1);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_autofree char *fallback_id = g_strdup_printf ("#%u", index);
  JsonObject *row;
  JsonNode *cuda;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                   _("GPU row %u is not an object"), index);
      return NULL;
    }
  row = json_node_get_object (node);

  if ((gpu->id = read_string (row, fallback_id, "id", TRUE, error)) == NULL
      || (gpu->name = read_string (row, gpu->id, "name", TRUE, error)) == NULL
      || (gpu->source = read_string (row, gpu->id, "source", TRUE, error)) == NULL
      || (gpu->notes = read_string (row, gpu->id, "notes", FALSE, error)) == NULL
      || (gpu->interconnect_source = read_string (row, gpu->id, "interconnect_source", FALSE,
                                                  error)) == NULL
      || (gpu->achievable_source = read_string (row, gpu->id, "achievable_source", FALSE,
                                                error)) == NULL)
    return NULL;
  if (!read_figure (row, gpu->id, "memory", &gpu->memory, error)
      || !read_figure (row, gpu->id, "bandwidth", &gpu->bandwidth, error)
      || !read_figure (row, gpu->id, "memory_reported", &gpu->memory_reported, error)
      || !read_figure (row, gpu->id, "nvlink_bandwidth", &gpu->nvlink_bandwidth, error)
      || !read_figure (row, gpu->id, "network_bandwidth", &gpu->network_bandwidth, error)
      || !read_peaks (row, gpu->id, "peak", gpu->peak, error)
      || !read_peaks (row, gpu->id, "peak_sparse", gpu->peak_sparse, error))
    return NULL;

  /* A sparse figure below the dense one means the two columns were swapped, the
   * very confusion the table exists to prevent. */
  for (guint i = 0; i < NK_PEAK_N_DTYPES; i++)
    if (isfinite (gpu->peak_sparse[i])
        && (!isfinite (gpu->peak[i]) || gpu->peak_sparse[i] < gpu->peak[i]))
      {
        g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                     _("GPU “%s”: the sparse %s peak must be at least the dense one"),
                     gpu->id, nk_peak_dtype_to_string (i));
        return NULL;
      }
  if (!read_domain (row, gpu->id, &gpu->nvlink_domain, error)
      || !read_achievable (row, gpu, error))
    return NULL;
  for (guint i = 0; i < NK_PEAK_N_DTYPES; i++)
    if (isfinite (gpu->achievable[i]) && gpu->achievable_source[0] == '\0')
      {
        g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                     _("GPU “%s”: a measured rate needs its “achievable_source”"), gpu->id);
        return NULL;
      }

  cuda = json_object_get_member (row, "cuda_names");
  if (cuda == NULL || !JSON_NODE_HOLDS_ARRAY (cuda))
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                   _("GPU “%s”: “cuda_names” must be a list of strings"), gpu->id);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (cuda)); i++)
    {
      JsonNode *item = json_array_get_element (json_node_get_array (cuda), i);

      if (json_node_get_value_type (item) != G_TYPE_STRING)
        {
          g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                       _("GPU “%s”: “cuda_names” must be a list of strings"), gpu->id);
          return NULL;
        }
      g_strv_builder_add (names, json_node_get_string (item));
    }
  gpu->cuda_names = g_strv_builder_end (names);

  return g_steal_pointer (&gpu);
}

/**
 * nk_gpus_parse:
 * @json: the table as JSON text: an array of rows (see data/gpus.json)
 * @length: the length of @json, or -1 if it is nul-terminated
 * @error: a sentence naming the row and field at fault
 *
 * Parses and validates a GPU table: unique ids, positive figures or null, a sparse
 * peak never below its dense peak, a source on every row.
 *
 * Returns: (transfer full) (element-type NkGpu): the rows, or %NULL
 */
GPtrArray *
nk_gpus_parse (const char  *json,
               gssize       length,
               GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_gpu_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;
  JsonArray *array;

  g_return_val_if_fail (json != NULL, NULL);

  if (!nk_json_parser_load (parser, json, length, &local_error))
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_PARSE,
                   _("The GPU table is not valid JSON: %s"), local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_PARSE,
                   _("The GPU table must be a JSON array of rows"));
      return NULL;
    }
  array = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      NkGpu *gpu = read_row (json_array_get_element (array, i), i, error);

      if (gpu == NULL)
        return NULL;
      g_ptr_array_add (rows, gpu);
      if (!g_hash_table_add (seen, gpu->id))
        {
          g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID,
                       _("GPU “%s” appears twice in the table"), gpu->id);
          return NULL;
        }
    }
  return g_steal_pointer (&rows);
}

/**
 * nk_gpus_get_all:
 *
 * The bundled table, parsed once. A bundled table that fails validation is a
 * build defect (test-gpus catches it): it is reported with g_critical() and the
 * table is empty.
 *
 * Returns: (transfer none) (element-type NkGpu): the rows, in the file's order
 */
const GPtrArray *
nk_gpus_get_all (void)
{
  static GPtrArray *table = NULL;

  if (g_once_init_enter (&table))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = NULL;
      GPtrArray *rows = NULL;

      bytes = g_resources_lookup_data (GPUS_RESOURCE, G_RESOURCE_LOOKUP_FLAGS_NONE,
                                       &error);
      if (bytes != NULL)
        {
          gsize size;
          const char *data = g_bytes_get_data (bytes, &size);

          rows = nk_gpus_parse (data, size, &error);
        }
      if (rows == NULL)
        {
          g_critical ("%s", error->message);
          rows = g_ptr_array_new_with_free_func ((GDestroyNotify) nk_gpu_free);
        }
      g_once_init_leave (&table, rows);
    }
  return table;
}

/**
 * nk_gpus_lookup:
 * @id: a table id such as "h100-sxm" (case-insensitive)
 *
 * Finds a row of the built-in table by its id.
 *
 * Returns: (transfer none) (nullable): the row, or %NULL
 */
const NkGpu *
nk_gpus_lookup (const char *id)
{
  const GPtrArray *table = nk_gpus_get_all ();

  if (id == NULL)
    return NULL;
  for (guint i = 0; i < table->len; i++)
    {
      const NkGpu *gpu = g_ptr_array_index (table, i);

      if (g_ascii_strcasecmp (gpu->id, id) == 0)
        return gpu;
    }
  return NULL;
}

/**
 * nk_gpus_lookup_cuda_name:
 * @cuda_name: the name CUDA reports, e.g. "NVIDIA H100 80GB HBM3"
 *
 * Matches exactly, ignoring ASCII case and surrounding spaces.
 *
 * Returns: (transfer none) (nullable): the row, or %NULL
 */
const NkGpu *
nk_gpus_lookup_cuda_name (const char *cuda_name)
{
  const GPtrArray *table = nk_gpus_get_all ();
  g_autofree char *wanted = NULL;

  if (cuda_name == NULL)
    return NULL;
  wanted = g_strstrip (g_strdup (cuda_name));
  for (guint i = 0; i < table->len; i++)
    {
      const NkGpu *gpu = g_ptr_array_index (table, i);

      for (guint j = 0; gpu->cuda_names[j] != NULL; j++)
        if (g_ascii_strcasecmp (gpu->cuda_names[j], wanted) == 0)
          return gpu;
    }
  return NULL;
}

/**
 * nk_gpus_check_id:
 * @id: a table id
 * @error: "“h900” is not a GPU in the table (known: h100-sxm, ...)"
 *
 * Checks a --gpu value against the table, with a sentence that lists the known ids.
 *
 * Returns: %TRUE when @id is in the table
 */
gboolean
nk_gpus_check_id (const char  *id,
                  GError     **error)
{
  const GPtrArray *table;
  g_autoptr(GString) known = NULL;

  if (nk_gpus_lookup (id) != NULL)
    return TRUE;
  table = nk_gpus_get_all ();
  known = g_string_new (NULL);
  for (guint i = 0; i < table->len; i++)
    g_string_append_printf (known, "%s%s", i ? ", " : "",
                            ((const NkGpu *) g_ptr_array_index (table, i))->id);
  g_set_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_UNKNOWN,
               _("“%s” is not a GPU in the table (known: %s)"),
               id ? id : "", known->str);
  return FALSE;
}
