/* cli-tensor.c: napkin-cli tensor — run a tensor program, show shapes, strides and storage
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "nk-json.h"
#include "nk-program.h"
#include "nk-units.h"

/* More elements than this are not drawn as a grid for people (--json has them all). */
#define MAX_GRID_ELEMENTS 1024

static void
add_int_array (JsonBuilder  *builder,
               const char   *name,
               int           n,
               const gint64 *items)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (int i = 0; i < n; i++)
    json_builder_add_int_value (builder, items[i]);
  json_builder_end_array (builder);
}

static gint64
storage_numel (NkTensor *t)
{
  return nk_storage_get_nbytes (t->storage) / MAX (1, nk_tensor_element_size (t));
}

static void
print_tensor_json (const char *name,
                   NkTensor   *t)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree double *values = NULL;
  gsize n = 0;

  values = nk_tensor_to_doubles (t, &n);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  if (name != NULL)
    json_builder_add_string_value (builder, name);
  else
    json_builder_add_null_value (builder);
  add_int_array (builder, "shape", t->ndim, t->shape);
  add_int_array (builder, "stride", t->ndim, t->stride);
  json_builder_set_member_name (builder, "offset");
  json_builder_add_int_value (builder, t->offset);
  json_builder_set_member_name (builder, "contiguous");
  json_builder_add_boolean_value (builder, nk_tensor_is_contiguous (t));
  json_builder_set_member_name (builder, "dtype");
  json_builder_add_string_value (builder, nk_dtype_info (t->dtype)->cli_name);
  json_builder_set_member_name (builder, "numel");
  json_builder_add_int_value (builder, nk_tensor_numel (t));
  json_builder_set_member_name (builder, "bytes");
  json_builder_add_int_value (builder, nk_tensor_nbytes (t));
  json_builder_set_member_name (builder, "storage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_int_value (builder, nk_storage_get_id (t->storage));
  json_builder_set_member_name (builder, "numel");
  json_builder_add_int_value (builder, storage_numel (t));
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "values");
  json_builder_begin_array (builder);
  for (gsize i = 0; i < n; i++)
    nk_json_add_double (builder, values[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  nk_cli_print_json (builder);
}

static void
print_value_json (NkProgramValue *value)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "value");
  switch (nk_program_value_get_kind (value))
    {
    case NK_PROGRAM_VALUE_INT:
      json_builder_add_int_value (builder, nk_program_value_get_int (value));
      break;
    case NK_PROGRAM_VALUE_FLOAT:
      nk_json_add_double (builder, nk_program_value_get_double (value));
      break;
    case NK_PROGRAM_VALUE_BOOL:
      json_builder_add_boolean_value (builder, nk_program_value_get_bool (value));
      break;
    case NK_PROGRAM_VALUE_TUPLE:
      {
        guint n;
        const gint64 *items = nk_program_value_get_tuple (value, &n);

        json_builder_begin_array (builder);
        for (guint i = 0; i < n; i++)
          json_builder_add_int_value (builder, items[i]);
        json_builder_end_array (builder);
      }
      break;
    case NK_PROGRAM_VALUE_STRING:
      json_builder_add_string_value (builder, nk_program_value_get_string (value));
      break;
    case NK_PROGRAM_VALUE_NONE:
    case NK_PROGRAM_VALUE_TENSOR:
    default:
      json_builder_add_null_value (builder);
      break;
    }
  json_builder_end_object (builder);
  nk_cli_print_json (builder);
}

static char *
format_element (double d)
{
  if (isnan (d))
    return g_strdup ("nan");
  if (isinf (d))
    return g_strdup (d > 0 ? "inf" : "-inf");
  {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", d));
  }
}

/* Nested brackets as PyTorch prints them, columns right-aligned. */
static void
append_grid (GString  *out,
             NkTensor *t,
             char    **cells,
             int       width,
             int       dim,
             gsize    *at,
             int       indent)
{
  if (dim == t->ndim)
    {
      g_string_append_printf (out, "%*s", width, cells[(*at)++]);
      return;
    }
  g_string_append_c (out, '[');
  for (gint64 i = 0; i < t->shape[dim]; i++)
    {
      if (i > 0)
        {
          g_string_append_c (out, ',');
          if (dim == t->ndim - 1)
            g_string_append_c (out, ' ');
          else
            {
              /* A blank line between the 2-D slices of a 3-D or 4-D tensor */
              for (int b = dim; b < t->ndim - 2; b++)
                g_string_append_c (out, '\n');
              g_string_append_printf (out, "\n%*s", indent + dim + 1, "");
            }
        }
      append_grid (out, t, cells, width, dim + 1, at, indent);
    }
  g_string_append_c (out, ']');
}

static void
print_tensor_human (const char *name,
                    NkTensor   *t,
                    const char *shares_with)
{
  g_autofree char *shape = nk_format_shape (t->ndim, t->shape);
  g_autofree char *stride = nk_format_shape (t->ndim, t->stride);
  g_autofree char *bytes = nk_units_format_bytes (nk_tensor_nbytes (t));
  g_autofree char *storage_bytes = nk_units_format_bytes (nk_storage_get_nbytes (t->storage));
  gint64 numel = nk_tensor_numel (t);

  printf ("%s\n", name);
  printf ("  %-10s %s\n", _("shape"), shape);
  printf ("  %-10s %s\n", _("stride"), stride);
  printf ("  %-10s %" PRId64 "\n", _("offset"), t->offset);
  printf ("  %-10s %s\n", _("contiguous"), nk_tensor_is_contiguous (t) ? _("yes") : _("no"));
  printf ("  %-10s %s, %" PRId64 " × %zu B = %s\n", _("elements"),
          nk_dtype_info (t->dtype)->cli_name, numel, nk_tensor_element_size (t), bytes);
  printf ("  %-10s #%" PRIu64 ", %" PRId64 " elements, %s", _("storage"),
          nk_storage_get_id (t->storage), storage_numel (t), storage_bytes);
  if (shares_with != NULL)
    printf (_(" (shared with %s)"), shares_with);
  printf ("\n");

  if (numel > MAX_GRID_ELEMENTS)
    {
      printf (_("  (%" PRId64 " values; --json prints them all)\n"), numel);
      return;
    }
  {
    gsize n = 0, at = 0;
    g_autofree double *values = nk_tensor_to_doubles (t, &n);
    g_auto(GStrv) cells = g_new0 (char *, n + 1);
    g_autoptr(GString) out = g_string_new ("  ");
    int width = 1;

    for (gsize i = 0; i < n; i++)
      {
        cells[i] = format_element (values[i]);
        width = MAX (width, (int) strlen (cells[i]));
      }
    append_grid (out, t, cells, width, 0, &at, 2);
    printf ("%s\n", out->str);
  }
}

static void
print_value_human (const char     *label,
                   NkProgramValue *value,
                   const char     *shares_with)
{
  if (nk_program_value_get_kind (value) == NK_PROGRAM_VALUE_TENSOR)
    print_tensor_human (label, nk_program_value_get_tensor (value), shares_with);
  else
    {
      g_autofree char *text = nk_program_value_to_string (value);

      printf ("%s\n", text);
    }
}

static int
fail_program (gboolean   json,
              NkProgram *program,
              GError    *error)
{
  fprintf (stderr, "napkin-cli: %s\n", error->message);
  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, error->message);
      json_builder_set_member_name (builder, "statement");
      json_builder_add_int_value (builder, nk_program_get_error_statement (program));
      json_builder_set_member_name (builder, "column");
      json_builder_add_int_value (builder, nk_program_get_error_column (program));
      json_builder_end_object (builder);
      nk_cli_print_json (builder);
    }
  return NK_EXIT_UNSATISFIABLE;
}

/* The statement's own text, to label an anonymous result for people. */
static char *
statement_text (NkProgram *program,
                guint      index)
{
  const char *source = nk_program_get_source (program);
  guint start, end;

  nk_program_get_statement_range (program, index, &start, &end);
  return g_strndup (source + start, end - start);
}

int
nk_cli_tensor_main (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(NkProgram) program = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = nk_cli_wants_json (argc, argv);
  gboolean want_json = FALSE, all = FALSE;
  g_autofree char *dtype_name = NULL;
  NkDType dtype = NK_DTYPE_F32;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &want_json, N_("One JSON object per result"), NULL },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all,
      N_("Every named tensor, not only the last statement’s value"), NULL },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_name,
      N_("Store tensors as f32 (default), f16, bf16, e4m3, e5m2 or f64"), N_("D") },
    { NULL }
  };
  int exit_code;

  context = g_option_context_new (_("'PROGRAM' — run a small PyTorch-flavoured tensor program"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Statements are separated by “;” or new lines. Constructors: arange(n), zeros(…),\n"
      "ones(…), tensor([[…]]). Methods: view reshape transpose t permute contiguous narrow\n"
      "select expand unsqueeze squeeze flatten clone triu sum mean is_contiguous stride\n"
      "size storage_offset; attributes T, shape. Indexing: x[1, -1], x[::2, 1:3], x[..., None].\n"
      "Operators: @ + - * /. Assignment: y = x[0]; y[0] = 100 (writes through the view).\n"
      "einops: rearrange(x, \"b (h d) -> b h d\", h=2), reduce(x, \"b s h -> b s\", \"sum\"),\n"
      "einsum(x, y, \"b s h, b t h -> b s t\"); same_storage(a, b).\n"
      "\n"
      "Prints the last statement's value (every named tensor with --all). Exit status:\n"
      "0 when the program ran; 1 when a statement fails — a syntax error as well as an\n"
      "invalid view — with the statement and column in the message (and\n"
      "{\"error\", \"statement\", \"column\"} with --json); 2 for bad usage (an unknown\n"
      "option or dtype, no program, more than one argument)."));
  if (!nk_cli_parse_options (context, &argc, &argv, json, &exit_code))
    return exit_code;
  json = json || want_json;

  if (argc < 2)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("give the program as one argument, e.g. napkin-cli tensor 'x = arange(16).view(4, 4)'"));
  if (argc > 2)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("give the program as one quoted argument (got %d arguments; “%s” is extra)"),
                        argc - 1, argv[2]);
  if (dtype_name != NULL)
    {
      g_autoptr(GError) dtype_error = NULL;

      if (!nk_dtype_from_name (dtype_name, &dtype, &dtype_error))
        return nk_cli_fail (json, NK_EXIT_USAGE, "--dtype: %s", dtype_error->message);
      if (!nk_dtype_info (dtype)->is_storage || !nk_dtype_is_float (dtype))
        return nk_cli_fail (json, NK_EXIT_USAGE,
                            _("--dtype: tensors of a program are stored as f32, f16, bf16, e4m3, "
                              "e5m2 or f64, not “%s”"), dtype_name);
    }

  program = nk_program_new ();
  nk_program_set_dtype (program, dtype);
  if (!nk_program_run (program, argv[1], &error))
    return fail_program (json, program, error);

  if (all)
    {
      for (guint i = 0; i < nk_program_get_n_names (program); i++)
        {
          NkProgramValue *value = nk_program_get_name_value (program, i);
          const char *name = nk_program_get_name (program, i);

          if (nk_program_value_get_kind (value) != NK_PROGRAM_VALUE_TENSOR)
            continue;
          if (json)
            print_tensor_json (name, nk_program_value_get_tensor (value));
          else
            {
              if (i > 0)
                printf ("\n");
              print_value_human (name, value, nk_program_get_name_shares_with (program, i));
            }
        }
      return NK_EXIT_OK;
    }

  {
    NkProgramValue *value = nk_program_get_last_value (program);
    const char *name = nk_program_get_last_name (program);
    guint last = nk_program_get_n_statements (program);

    if (value == NULL)
      return NK_EXIT_OK;   /* an empty program */
    if (json && nk_program_value_get_kind (value) == NK_PROGRAM_VALUE_TENSOR)
      print_tensor_json (name, nk_program_value_get_tensor (value));
    else if (json)
      print_value_json (value);
    else
      {
        g_autofree char *label = name ? g_strdup (name) : statement_text (program, last - 1);

        print_value_human (label, value, NULL);
      }
  }
  return NK_EXIT_OK;
}
