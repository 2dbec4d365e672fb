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

/* PyTorch's print options: a tensor of more elements than this is summarised,
 * showing EDGE_ITEMS at each end (of each dim for people, of the flattened
 * values in JSON) around a "...". */
#define SUMMARY_THRESHOLD 1000
#define EDGE_ITEMS        3
/* The values --json prints whole in one run: the largest tensor a program may
 * make, so the last statement's value is always whole. Past it (--all over many
 * aliases of a big tensor) each tensor's values are summarised and say so. */
#define JSON_VALUE_BUDGET NK_PROGRAM_MAX_NUMEL
/* The longest program `tensor -` reads from standard input (8× what a command
 * line holds); its parse tree stays within tens of megabytes. */
#define MAX_STDIN_PROGRAM (1 << 20)

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

/* Element @flat of @t in logical row-major order, read on its own. */
static double
element_at (NkTensor *t,
            gint64    flat)
{
  gint64 index[NK_MAX_DIMS];
  double d = NAN;

  for (int k = t->ndim - 1; k >= 0; k--)
    {
      index[k] = flat % t->shape[k];
      flat /= t->shape[k];
    }
  nk_tensor_get_item (t, index, &d, NULL);
  return d;
}

/* "values": every element while @budget lasts; otherwise the first and last
 * EDGE_ITEMS, with "values_elided": {"start", "count"} naming the ones left out. */
static void
add_values_json (JsonBuilder *builder,
                 NkTensor    *t,
                 gint64      *budget)
{
  gint64 numel = nk_tensor_numel (t);

  json_builder_set_member_name (builder, "values");
  json_builder_begin_array (builder);
  if (numel <= *budget)
    {
      gsize n = 0;
      g_autofree double *values = nk_tensor_to_doubles (t, &n);

      for (gsize i = 0; i < n; i++)
        nk_json_add_double (builder, values[i]);
      json_builder_end_array (builder);
      *budget -= numel;
      return;
    }
  if (numel <= 2 * EDGE_ITEMS)
    {
      for (gint64 i = 0; i < numel; i++)
        nk_json_add_double (builder, element_at (t, i));
      json_builder_end_array (builder);
      return;
    }
  for (gint64 i = 0; i < EDGE_ITEMS; i++)
    nk_json_add_double (builder, element_at (t, i));
  for (gint64 i = numel - EDGE_ITEMS; i < numel; i++)
    nk_json_add_double (builder, element_at (t, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "values_elided");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "start");
  json_builder_add_int_value (builder, EDGE_ITEMS);
  json_builder_set_member_name (builder, "count");
  json_builder_add_int_value (builder, numel - 2 * EDGE_ITEMS);
  json_builder_end_object (builder);
}

static void
print_tensor_json (const char *name,
                   NkTensor   *t,
                   gint64     *budget)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

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
  add_values_json (builder, t, budget);
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

/* The grid of a tensor for people: read in one walk (cells), printed in a
 * second with the widest cell's width. */
typedef struct {
  NkTensor  *t;
  gboolean   summarise;
  GPtrArray *cells;      /* char *, in the order of the walk */
  guint      next;
  int        width;
  GString   *out;        /* NULL while reading */
  int        indent;
} Grid;

/* Between two items of @dim: ", " in a row; a new line (and a blank one between
 * the 2-D slices of a 3-D or 4-D tensor) otherwise. */
static void
grid_separator (Grid *g,
                int   dim)
{
  g_string_append_c (g->out, ',');
  if (dim == g->t->ndim - 1)
    {
      g_string_append_c (g->out, ' ');
      return;
    }
  for (int b = dim; b < g->t->ndim - 2; b++)
    g_string_append_c (g->out, '\n');
  g_string_append_printf (g->out, "\n%*s", g->indent + dim + 1, "");
}

static void
grid_leaf (Grid   *g,
           gint64 *index)
{
  char *cell;
  double d = NAN;

  if (g->out != NULL)
    {
      g_string_append_printf (g->out, "%*s", g->width, (char *) g_ptr_array_index (g->cells, g->next++));
      return;
    }
  nk_tensor_get_item (g->t, index, &d, NULL);
  cell = format_element (d);
  g->width = MAX (g->width, (int) strlen (cell));
  g_ptr_array_add (g->cells, cell);
}

/* Nested brackets as PyTorch prints them; a summarised dim shows its first and
 * last EDGE_ITEMS around "...". */
static void
grid_walk (Grid   *g,
           int     dim,
           gint64 *index)
{
  gint64 size;

  if (dim == g->t->ndim)
    {
      grid_leaf (g, index);
      return;
    }
  size = g->t->shape[dim];
  if (g->out != NULL)
    g_string_append_c (g->out, '[');
  for (gint64 i = 0; i < size; i++)
    {
      if (g->summarise && size > 2 * EDGE_ITEMS && i == EDGE_ITEMS)
        {
          if (g->out != NULL)
            {
              grid_separator (g, dim);
              g_string_append_printf (g->out, "%*s", dim == g->t->ndim - 1 ? g->width : 0, "...");
            }
          i = size - EDGE_ITEMS;
        }
      if (g->out != NULL && i > 0)
        grid_separator (g, dim);
      index[dim] = i;
      grid_walk (g, dim + 1, index);
    }
  if (g->out != NULL)
    g_string_append_c (g->out, ']');
}

static void
print_grid (NkTensor *t)
{
  gint64 index[NK_MAX_DIMS] = { 0 };
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) out = g_string_new ("  ");
  Grid g = { t, nk_tensor_numel (t) > SUMMARY_THRESHOLD, cells, 0, 1, NULL, 2 };

  grid_walk (&g, 0, index);
  g.out = out;
  grid_walk (&g, 0, index);
  printf ("%s\n", out->str);
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
  print_grid (t);
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
  nk_cli_print_error (error->message);
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

/* A program starting with "-" (-arange(3), -x) is the program, not an option:
 * the command has no short options but -h. "-" alone is standard input. */
static gboolean
looks_like_program (const char *arg)
{
  return arg[0] == '-' && arg[1] != '-' && arg[1] != '\0' &&
         strcmp (arg, "-h") != 0 && strcmp (arg, "-?") != 0;
}

/* `tensor -`: the program from standard input, so that one longer than a
 * command line holds can be given. */
static char *
read_stdin_program (gsize   *len,
                    GError **error)
{
  g_autoptr(GString) text = g_string_new (NULL);
  char buf[65536];
  size_t n;

  while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
    {
      g_string_append_len (text, buf, n);
      if (text->len > MAX_STDIN_PROGRAM)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("the program on standard input is longer than %d bytes"), MAX_STDIN_PROGRAM);
          return NULL;
        }
    }
  if (ferror (stdin))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("could not read the program from standard input"));
      return NULL;
    }
  *len = text->len;
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The program as text the language can read: no NUL inside, valid UTF-8. */
static gboolean
check_program_text (const char  *text,
                    gsize        len,
                    GError     **error)
{
  const char *nul = memchr (text, '\0', len);
  const char *end;

  if (nul != NULL)
    {
      g_set_error (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE,
                   _("the program holds a NUL byte at offset %zu; a program is text"),
                   (gsize) (nul - text));
      return FALSE;
    }
  if (!g_utf8_validate (text, len, &end))
    {
      g_set_error (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE,
                   _("the program is not valid UTF-8 text: byte 0x%02x at offset %zu starts no "
                     "character"), (guchar) *end, (gsize) (end - text));
      return FALSE;
    }
  return TRUE;
}

static void
print_all (NkProgram *program,
           gboolean   json)
{
  gint64 budget = JSON_VALUE_BUDGET;

  for (guint i = 0; i < nk_program_get_n_names (program); i++)
    {
      NkProgramValue *value = nk_program_get_name_value (program, i);
      const char *name = nk_program_get_name (program, i);

      if (nk_program_value_get_kind (value) != NK_PROGRAM_VALUE_TENSOR)
        continue;
      if (json)
        print_tensor_json (name, nk_program_value_get_tensor (value), &budget);
      else
        {
          if (i > 0)
            printf ("\n");
          print_value_human (name, value, nk_program_get_name_shares_with (program, i));
        }
    }
}

static void
print_last (NkProgram *program,
            gboolean   json)
{
  NkProgramValue *value = nk_program_get_last_value (program);
  const char *name = nk_program_get_last_name (program);
  guint last = nk_program_get_n_statements (program);
  gint64 budget = JSON_VALUE_BUDGET;

  if (value == NULL)
    return;   /* an empty program */
  if (json && nk_program_value_get_kind (value) == NK_PROGRAM_VALUE_TENSOR)
    print_tensor_json (name, nk_program_value_get_tensor (value), &budget);
  else if (json)
    print_value_json (value);
  else
    {
      g_autofree char *label = name ? g_strdup (name) : statement_text (program, last - 1);

      print_value_human (label, value, NULL);
    }
}

static const char description[] = N_(
  "Statements are separated by “;” or new lines. Constructors: arange(n), zeros(…),\n"
  "ones(…), tensor([[…]]). Methods: view reshape transpose t permute contiguous narrow\n"
  "select expand unsqueeze squeeze flatten clone triu sum mean is_contiguous stride\n"
  "size storage_offset; attributes T, shape. Indexing: x[1, -1], x[::2, 1:3], x[..., None].\n"
  "Operators: @ + - * /. Assignment: y = x[0]; y[0] = 100 (writes through the view).\n"
  "einops: rearrange(x, \"b (h d) -> b h d\", h=2), reduce(x, \"b s h -> b s\", \"sum\"),\n"
  "einsum(x, y, \"b s h, b t h -> b s t\"); same_storage(a, b).\n"
  "\n"
  "A program starting with “-” is a program, not an option (tensor '-arange(3)' and\n"
  "tensor -- '-arange(3)' both work); “-” reads the program from standard input.\n"
  "\n"
  "Prints the last statement's value (every named tensor with --all). Like PyTorch's\n"
  "print, a tensor of more than 1000 elements is shown as its first and last 3 per\n"
  "dim around “...”. With --json every value is printed until one run has printed\n"
  "4194304; past that a tensor's \"values\" hold its first and last 3 and\n"
  "\"values_elided\": {\"start\", \"count\"} says which were left out. A program may\n"
  "read and write at most 2^30 elements in all.\n"
  "\n"
  "Exit status: 0 when the program ran; 1 when a statement fails — a syntax error as\n"
  "well as an invalid view — with the statement and column in the message (and\n"
  "{\"error\", \"statement\", \"column\"} with --json); 2 for bad usage (an unknown\n"
  "option or dtype, no program, more than one argument, a program that is not UTF-8\n"
  "text).");

/* The dtype named by --dtype, or f32. */
static gboolean
parse_dtype (const char  *name,
             NkDType     *dtype,
             GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  *dtype = NK_DTYPE_F32;
  if (name == NULL)
    return TRUE;
  if (!nk_dtype_from_name (name, dtype, &local_error))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--dtype: %s", local_error->message);
      return FALSE;
    }
  if (!nk_dtype_info (*dtype)->is_storage || !nk_dtype_is_float (*dtype))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--dtype: tensors of a program are stored as f32, f16, bf16, e4m3, "
                     "e5m2 or f64, not “%s”"), name);
      return FALSE;
    }
  return TRUE;
}

/* The command line after options: the program's text (from the argument, or from
 * standard input for "-"), checked to be text. */
static int
take_program (gboolean    json,
              char      **remaining,
              char      **out_source)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  guint n = remaining ? g_strv_length (remaining) : 0;
  gsize len;

  if (n == 0)
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("give the program as one argument, e.g. napkin-cli tensor 'x = arange(16).view(4, 4)'"));
  if (n > 1)
    {
      g_autofree char *quoted = nk_cli_quote (remaining[1]);

      return nk_cli_fail (json, NK_EXIT_USAGE,
                          _("give the program as one quoted argument (got %u arguments; %s is extra)"),
                          n, quoted);
    }
  if (strcmp (remaining[0], "-") == 0)
    source = read_stdin_program (&len, &error);
  else
    {
      source = g_strdup (remaining[0]);
      len = strlen (source);
    }
  if (source == NULL || !check_program_text (source, len, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
  *out_source = g_steal_pointer (&source);
  return NK_EXIT_OK;
}

int
nk_cli_tensor_main (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(NkProgram) program = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GPtrArray) originals = g_ptr_array_new ();
  g_auto(GStrv) remaining = NULL;
  g_autofree char *dtype_name = NULL;
  g_autofree char *source = NULL;
  gboolean json = nk_cli_wants_json (argc, argv);
  gboolean want_json = FALSE, all = FALSE, after_dashes = FALSE;
  NkDType dtype;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &want_json, N_("One JSON object per result"), NULL },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all,
      N_("Every named tensor, not only the last statement’s value"), NULL },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_name,
      N_("Store tensors as f32 (default), f16, bf16, e4m3, e5m2 or f64"), N_("D") },
    /* Bytes as given (no conversion from the locale): the program is checked
     * for UTF-8 here, with a sentence that names it. */
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &remaining, NULL, N_("'PROGRAM'|-") },
    { NULL }
  };
  char **parse_argv;
  int parse_argc, exit_code;

  /* GOption would read "-arange(3)" as an option: hand it over as a placeholder
   * that does not start with '-', and put the program back after parsing. */
  for (int i = 0; i < argc; i++)
    {
      if (i > 0 && !after_dashes && looks_like_program (argv[i]))
        {
          g_ptr_array_add (args, (gpointer) "\001");
          g_ptr_array_add (originals, argv[i]);
          continue;
        }
      after_dashes |= i > 0 && strcmp (argv[i], "--") == 0;
      g_ptr_array_add (args, argv[i]);
    }
  g_ptr_array_add (args, NULL);
  parse_argc = (int) args->len - 1;
  parse_argv = (char **) args->pdata;

  context = g_option_context_new (_("— run a small PyTorch-flavoured tensor program"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context, _(description));
  if (!nk_cli_parse_options (context, &parse_argc, &parse_argv, json, &exit_code))
    return exit_code;
  json = json || want_json;
  for (guint i = 0, k = 0; remaining != NULL && remaining[i] != NULL; i++)
    if (strcmp (remaining[i], "\001") == 0 && k < originals->len)
      {
        g_free (remaining[i]);
        remaining[i] = g_strdup (g_ptr_array_index (originals, k++));
      }

  if (!parse_dtype (dtype_name, &dtype, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
  if ((exit_code = take_program (json, remaining, &source)) != NK_EXIT_OK)
    return exit_code;

  program = nk_program_new ();
  nk_program_set_dtype (program, dtype);
  if (!nk_program_run (program, source, &error))
    return fail_program (json, program, error);
  if (all)
    print_all (program, json);
  else
    print_last (program, json);
  return NK_EXIT_OK;
}
