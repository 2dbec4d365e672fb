/* napkin-block-view.c: a block quantization as the Number formats page shows it
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Blocks section's text, written once from nk_quantize()'s answers: the
 * vector someone typed or loaded (a float .npy, a tensor of a safetensors file
 * read with the engine's io readers), one row per block (its scale, the scale's
 * bits, the largest magnitude that set it, what it flushed and clipped) and one
 * row per element of the first blocks (code, element value, dequantized value,
 * error and why). Nothing here rounds: every number is nk-quantize's.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <inttypes.h>
#include <glib/gi18n.h>

#include "napkin-block-view.h"
#include "napkin-text-row.h"
#include "nk-npy.h"
#include "nk-safetensors.h"

/* C's "1e-08" as people write it, "1e-8". */
static char *
tidy_exponent (const char *text)
{
  const char *e = strchr (text, 'e');

  if (e == NULL)
    return g_strdup (text);
  return g_strdup_printf ("%.*se%d", (int) (e - text), text, atoi (e + 1));
}

/**
 * napkin_block_view_format_number:
 * @value: a value
 *
 * Returns: (transfer full): @value with up to six significant digits, as the
 *   tables show it ("448", "0.001", "−1.5e-8")
 */
char *
napkin_block_view_format_number (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    return g_strdup ("NaN");
  if (isinf (value))
    return g_strdup (value < 0 ? "−∞" : "∞");
  if (value == 0)
    return g_strdup (signbit (value) ? "−0" : "0");
  return tidy_exponent (g_ascii_formatd (buf, sizeof buf, "%.6g", value));
}

/* An MX scale is a power of two: "2^-8". */
static char *
format_scale (NkQuantization *q,
              double          scale)
{
  int e;

  if (nk_quantization_get_format (q) != NK_BLOCK_FORMAT_NVFP4 &&
      scale > 0 && frexp (scale, &e) == 0.5)
    return g_strdup_printf ("2^%d", e - 1);
  return napkin_block_view_format_number (scale);
}

/**
 * napkin_block_view_block_titles:
 *
 * Returns: (transfer none): the block table's column titles, translated
 */
const char *const *
napkin_block_view_block_titles (void)
{
  static const char *titles[NAPKIN_BLOCK_N_COLUMNS + 1];

  if (titles[0] == NULL)
    {
      titles[NAPKIN_BLOCK_COLUMN_INDEX] = _("Block");
      titles[NAPKIN_BLOCK_COLUMN_ELEMENTS] = _("Elements");
      titles[NAPKIN_BLOCK_COLUMN_SCALE] = _("Scale");
      titles[NAPKIN_BLOCK_COLUMN_SCALE_BITS] = _("Scale bits");
      titles[NAPKIN_BLOCK_COLUMN_LARGEST] = _("Largest |value|");
      titles[NAPKIN_BLOCK_COLUMN_FLUSHED] = _("Flushed");
      titles[NAPKIN_BLOCK_COLUMN_CLIPPED] = _("Clipped");
    }
  return titles;
}

/**
 * napkin_block_view_element_titles:
 *
 * Returns: (transfer none): the element table's column titles, translated
 */
const char *const *
napkin_block_view_element_titles (void)
{
  static const char *titles[NAPKIN_ELEMENT_N_COLUMNS + 1];

  if (titles[0] == NULL)
    {
      titles[NAPKIN_ELEMENT_COLUMN_INDEX] = _("#");
      titles[NAPKIN_ELEMENT_COLUMN_INPUT] = _("Input");
      titles[NAPKIN_ELEMENT_COLUMN_CODE] = _("Code");
      titles[NAPKIN_ELEMENT_COLUMN_ELEMENT] = _("Element");
      titles[NAPKIN_ELEMENT_COLUMN_VALUE] = _("Value");
      titles[NAPKIN_ELEMENT_COLUMN_ERROR] = _("Error");
      titles[NAPKIN_ELEMENT_COLUMN_WHY] = _("What happened");
    }
  return titles;
}

/**
 * napkin_block_view_parse:
 * @text: numbers separated by commas, spaces, semicolons or new lines; brackets
 *   are ignored, so a pasted Python or numpy list reads as it is
 * @out_values: (out) (transfer full): the values, doubles
 * @error: return location for an error naming the value that is not a number
 *
 * Returns: whether @text held at least one value and only values
 */
gboolean
napkin_block_view_parse (const char  *text,
                         GArray     **out_values,
                         GError     **error)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto(GStrv) tokens = g_strsplit_set (text != NULL ? text : "", " \t\r\n,;[]()", -1);

  for (guint i = 0; tokens[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;
      NkDTypeItem item;

      if (*tokens[i] == '\0')
        continue;
      if (values->len >= NAPKIN_BLOCK_VIEW_MAX_VALUES)
        break;
      if (!nk_dtype_parse_item (NK_DTYPE_F64, tokens[i], &item, &local) || item.is_bits)
        {
          /* Translators: a position in the typed vector, from 1, and what is there */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("Value %u, “%s”, is not a number."), values->len + 1, tokens[i]);
          return FALSE;
        }
      g_array_append_val (values, item.value);
    }
  if (values->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("Type at least one number, such as 1, 2, 448, 0.001."));
      return FALSE;
    }
  *out_values = g_steal_pointer (&values);
  return TRUE;
}

/* Up to NAPKIN_BLOCK_VIEW_MAX_VALUES elements of @dtype at @data (unaligned). */
static GArray *
read_elements (NkDType        dtype,
               gconstpointer  data,
               guint64        n)
{
  gsize size = nk_dtype_element_size (dtype);
  guint64 kept = MIN (n, NAPKIN_BLOCK_VIEW_MAX_VALUES);
  GArray *values = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) kept);

  for (guint64 i = 0; i < kept; i++)
    {
      guint64 element = 0;
      double value;

      memcpy (&element, (const guint8 *) data + i * size, size);
      value = nk_dtype_load_double (dtype, &element);
      g_array_append_val (values, value);
    }
  return values;
}

/**
 * napkin_block_view_read_npy:
 * @path: a float32 or float64 .npy file
 * @out_values: (out) (transfer full): its first values, doubles
 * @out_total: (out): how many it holds
 * @error: return location for the reader's error, or one saying the dtype is not float
 *
 * Returns: whether the file was read
 */
gboolean
napkin_block_view_read_npy (const char  *path,
                            GArray     **out_values,
                            guint64     *out_total,
                            GError     **error)
{
  g_autoptr(NkNpyArray) array = nk_npy_array_load (path, error);
  g_autofree char *base = NULL;
  NkNpyDType dtype;

  if (array == NULL)
    return FALSE;
  dtype = nk_npy_array_get_dtype (array);
  if (dtype != NK_NPY_F4 && dtype != NK_NPY_F8)
    {
      base = g_path_get_basename (path);
      /* Translators: a file name and numpy's dtype string, e.g. "<i8" */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s holds %s values; the Blocks section reads float32 or float64 arrays."),
                   base, nk_npy_dtype_to_descr (dtype));
      return FALSE;
    }
  *out_total = nk_npy_array_get_n_elements (array);
  *out_values = read_elements (dtype == NK_NPY_F4 ? NK_DTYPE_F32 : NK_DTYPE_F64,
                               nk_npy_array_get_data (array), *out_total);
  return TRUE;
}

static gboolean
is_readable_float (NkDType dtype)
{
  return dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64 || dtype == NK_DTYPE_F16 ||
         dtype == NK_DTYPE_BF16;
}

/**
 * napkin_block_view_list_tensors:
 * @path: a .safetensors file
 * @error: return location for the reader's error
 *
 * Returns: (transfer full) (nullable): the names of its floating-point tensors, in
 *   file order; %NULL on error
 */
GStrv
napkin_block_view_list_tensors (const char  *path,
                                GError     **error)
{
  g_autoptr(NkSafetensors) st = nk_safetensors_load (path, error);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  guint n = 0;

  if (st == NULL)
    return NULL;
  for (guint i = 0; i < nk_safetensors_get_n_tensors (st); i++)
    {
      const NkSafetensorsTensor *info = nk_safetensors_get_tensor_info (st, i);

      if (is_readable_float (info->dtype))
        {
          g_strv_builder_add (names, info->name);
          n++;
        }
    }
  if (n == 0)
    {
      g_autofree char *base = g_path_get_basename (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s holds no floating-point tensor."), base);
      return NULL;
    }
  return g_strv_builder_end (names);
}

/**
 * napkin_block_view_read_tensor:
 * @path: a .safetensors file
 * @name: a tensor's name in it
 * @out_values: (out) (transfer full): its first values, doubles
 * @out_total: (out): how many it holds
 * @error: return location for an error
 *
 * Returns: whether the tensor was read
 */
gboolean
napkin_block_view_read_tensor (const char  *path,
                               const char  *name,
                               GArray     **out_values,
                               guint64     *out_total,
                               GError     **error)
{
  g_autoptr(NkSafetensors) st = nk_safetensors_load (path, error);
  const NkSafetensorsTensor *info;

  if (st == NULL)
    return FALSE;
  info = nk_safetensors_lookup (st, name);
  if (info == NULL || !is_readable_float (info->dtype))
    {
      g_autofree char *base = g_path_get_basename (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s has no floating-point tensor named “%s”."), base, name);
      return FALSE;
    }
  *out_total = info->numel;
  *out_values = read_elements (info->dtype, info->data, info->numel);
  return TRUE;
}

/**
 * napkin_block_view_block_rows:
 * @quantization: a quantization
 *
 * Returns: (transfer full): a #GListModel of #NapkinTextRow, one per block (the
 *   first %NAPKIN_BLOCK_VIEW_SHOWN_BLOCK_ROWS), cells as #NapkinBlockColumn;
 *   marked "flushed" or "clipped" when the block flushed or clipped an element
 */
GListModel *
napkin_block_view_block_rows (NkQuantization *q)
{
  GListStore *store = g_list_store_new (NAPKIN_TYPE_TEXT_ROW);
  NkBlockFormat format = nk_quantization_get_format (q);
  const NkBlockFormatInfo *info = nk_block_format_info (format);
  guint n = MIN (nk_quantization_get_n_blocks (q), NAPKIN_BLOCK_VIEW_SHOWN_BLOCK_ROWS);

  for (guint b = 0; b < n; b++)
    {
      NkQuantizeBlock block;
      g_autoptr(NapkinTextRow) row = NULL;
      g_autofree char *index = NULL, *elements = NULL, *scale = NULL, *bits = NULL;
      g_autofree char *amax = NULL, *largest = NULL, *flushed = NULL, *clipped = NULL;

      nk_quantization_get_block (q, b, &block);
      index = g_strdup_printf ("%u", block.index);
      elements = g_strdup_printf ("%zu–%zu", block.start, block.start + block.length - 1);
      scale = format_scale (q, block.scale);
      if (g_str_equal (info->scale_dtype_name, "e4m3"))
        bits = nk_dtype_format_bits (NK_DTYPE_E4M3, block.scale_bits);
      else
        bits = nk_dtype_format_bits (NK_DTYPE_E8M0, block.scale_bits);
      amax = napkin_block_view_format_number (block.amax);
      /* Translators: the block's largest magnitude and the element that holds it */
      largest = g_strdup_printf (_("%s (#%zu)"), amax, block.amax_index);
      flushed = g_strdup_printf ("%u", block.n_flushed);
      clipped = g_strdup_printf ("%u", block.n_clipped);
      row = napkin_text_row_new (block.n_clipped > 0 ? "clipped"
                                 : block.n_flushed > 0 ? "flushed" : "",
                                 index, elements, scale, bits, largest, flushed, clipped, NULL);
      g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}

/* Why an element changed, naming the block's largest value, which set the scale. */
static char *
element_why (NkQuantization          *q,
             const NkQuantizeElement *element,
             const NkQuantizeBlock   *block)
{
  const NkBlockFormatInfo *info = nk_block_format_info (nk_quantization_get_format (q));
  g_autofree char *amax = napkin_block_view_format_number (block->amax);
  g_autofree char *scale = format_scale (q, block->scale);
  g_autofree char *max = napkin_block_view_format_number (info->element_max);

  switch (element->change)
    {
    case NK_QUANTIZE_EXACT:
      return g_strdup (_("exact"));
    case NK_QUANTIZE_ROUNDED:
      return g_strdup (_("rounded"));
    case NK_QUANTIZE_FLUSHED:
      /* Translators: the block's largest magnitude, its element number, the
       * block's scale */
      return g_strdup_printf (_("flushed to 0: the block’s largest value, %s (#%zu), set "
                                "the scale to %s"), amax, block->amax_index, scale);
    case NK_QUANTIZE_CLIPPED:
    default:
      /* Translators: the block's scale and the element format's largest magnitude */
      return g_strdup_printf (_("clipped: over the scale %s it passes the element’s "
                                "largest, ±%s"), scale, max);
    }
}

/**
 * napkin_block_view_element_rows:
 * @quantization: a quantization
 *
 * Returns: (transfer full): a #GListModel of #NapkinTextRow, one per element of
 *   the first %NAPKIN_BLOCK_VIEW_SHOWN_BLOCKS blocks, cells as
 *   #NapkinElementColumn; marked "flushed", "clipped", "rounded" or "exact"
 */
GListModel *
napkin_block_view_element_rows (NkQuantization *q)
{
  static const char *marks[] = { "exact", "rounded", "flushed", "clipped" };
  GListStore *store = g_list_store_new (NAPKIN_TYPE_TEXT_ROW);
  guint n_blocks = MIN (nk_quantization_get_n_blocks (q), NAPKIN_BLOCK_VIEW_SHOWN_BLOCKS);
  NkQuantizeBlock block = { 0 };
  gsize end = 0;

  if (n_blocks > 0)
    {
      nk_quantization_get_block (q, n_blocks - 1, &block);
      end = block.start + block.length;
    }
  for (gsize i = 0; i < end; i++)
    {
      NkQuantizeElement element;
      g_autoptr(NapkinTextRow) row = NULL;
      g_autofree char *index = NULL, *input = NULL, *code = NULL, *value = NULL;
      g_autofree char *element_text = NULL, *error = NULL, *why = NULL;

      nk_quantization_get_element (q, i, &element);
      if (block.index != element.block || i == 0)
        nk_quantization_get_block (q, element.block, &block);
      index = g_strdup_printf ("%zu", i);
      input = napkin_block_view_format_number (element.input);
      code = nk_quantization_format_code (q, element.code);
      element_text = napkin_block_view_format_number (element.element);
      value = napkin_block_view_format_number (element.value);
      error = napkin_block_view_format_number (element.abs_error);
      why = element_why (q, &element, &block);
      row = napkin_text_row_new (marks[element.change], index, input, code, element_text,
                                 value, error, why, NULL);
      g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}

static char *
format_share (gsize part,
              gsize whole)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.3g",
                                    whole > 0 ? 100.0 * part / whole : 0));
}

/**
 * napkin_block_view_summary:
 * @quantization: a quantization
 * @total_values: how many values the source held (more than were quantized when
 *   it was cut to %NAPKIN_BLOCK_VIEW_MAX_VALUES)
 *
 * Returns: (transfer full): the error of the whole vector and what the tables
 *   leave out, in sentences
 */
char *
napkin_block_view_summary (NkQuantization *q,
                           guint64         total_values)
{
  const NkBlockFormatInfo *info = nk_block_format_info (nk_quantization_get_format (q));
  gsize n = nk_quantization_get_n_values (q);
  guint n_blocks = nk_quantization_get_n_blocks (q);
  NkQuantizeSummary summary;
  g_autofree char *max_abs = NULL, *rmse = NULL, *flushed = NULL, *clipped = NULL;
  g_autofree char *bits = NULL;
  GString *text = g_string_new (NULL);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  nk_quantization_get_summary (q, &summary);
  max_abs = napkin_block_view_format_number (summary.max_abs);
  rmse = napkin_block_view_format_number (summary.rmse);
  flushed = format_share (summary.n_flushed, n);
  clipped = format_share (summary.n_clipped, n);
  bits = g_strdup (g_ascii_formatd (buf, sizeof buf, "%.4g",
                                    nk_quantization_get_bits_per_element (q)));

  /* Translators: values, blocks, block size, format title, bits per element */
  g_string_append_printf (text, g_dngettext (NULL, "%zu values in %u block of %u, %s, %s bits "
                                             "per element.",
                                             "%zu values in %u blocks of %u, %s, %s bits "
                                             "per element.", n_blocks),
                          n, n_blocks, nk_quantization_get_block_size (q), info->title, bits);
  g_string_append_c (text, ' ');
  /* Translators: the largest error, the root mean square error, the shares of
   * elements flushed to zero and clipped, in per cent */
  g_string_append_printf (text, _("Largest error %s, rmse %s; %s %% flushed to zero "
                                  "(%zu), %s %% clipped (%zu)."),
                          max_abs, rmse, flushed, summary.n_flushed, clipped,
                          summary.n_clipped);
  if (nk_quantization_get_format (q) == NK_BLOCK_FORMAT_NVFP4)
    {
      g_autofree char *tensor = napkin_block_view_format_number (nk_quantization_get_tensor_scale (q));

      g_string_append_c (text, ' ');
      g_string_append_printf (text, _("Tensor scale %s (fp32)."), tensor);
    }
  if (n_blocks > NAPKIN_BLOCK_VIEW_SHOWN_BLOCKS)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text, _("The elements of the first %u blocks are listed."),
                              NAPKIN_BLOCK_VIEW_SHOWN_BLOCKS);
    }
  if (total_values > n)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text, _("Only the first %zu of %" PRIu64
                                      " values were read."), n, total_values);
    }
  return g_string_free (text, FALSE);
}
