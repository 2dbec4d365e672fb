/* nk-program-value.c: NkProgramValue, what a statement or a name of the tensor language holds
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-program-private.h"

G_DEFINE_BOXED_TYPE (NkProgramValue, nk_program_value, nk_program_value_ref, nk_program_value_unref)

NkProgramValue *
_nk_program_value_new (NkProgramValueKind kind)
{
  NkProgramValue *value = g_new0 (NkProgramValue, 1);

  g_atomic_ref_count_init (&value->ref_count);
  value->kind = kind;
  return value;
}

NkProgramValue *
_nk_program_value_new_tensor (NkTensor *tensor)
{
  NkProgramValue *value = _nk_program_value_new (NK_PROGRAM_VALUE_TENSOR);

  value->tensor = tensor;   /* takes the reference */
  return value;
}

NkProgramValue *
_nk_program_value_new_int (gint64 i)
{
  NkProgramValue *value = _nk_program_value_new (NK_PROGRAM_VALUE_INT);

  value->i = i;
  value->d = (double) i;
  return value;
}

NkProgramValue *
_nk_program_value_new_float (double d)
{
  NkProgramValue *value = _nk_program_value_new (NK_PROGRAM_VALUE_FLOAT);

  value->d = d;
  return value;
}

NkProgramValue *
_nk_program_value_new_bool (gboolean b)
{
  NkProgramValue *value = _nk_program_value_new (NK_PROGRAM_VALUE_BOOL);

  value->i = b ? 1 : 0;
  value->d = value->i;
  return value;
}

NkProgramValue *
_nk_program_value_new_tuple (guint         n,
                             const gint64 *items)
{
  NkProgramValue *value = _nk_program_value_new (NK_PROGRAM_VALUE_TUPLE);

  value->n_tuple = n;
  value->tuple = g_memdup2 (items, MAX (n, 1) * sizeof (gint64));
  return value;
}

/* Takes a copy of @string. */
NkProgramValue *
_nk_program_value_new_string (const char *string)
{
  NkProgramValue *value = _nk_program_value_new (NK_PROGRAM_VALUE_STRING);

  value->string = g_strdup (string);
  return value;
}

/**
 * nk_program_value_ref:
 * @value: a value
 *
 * Takes a reference; the value stays valid after the program runs again or is
 * freed.
 *
 * Returns: (transfer full): @value
 */
NkProgramValue *
nk_program_value_ref (NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);

  g_atomic_ref_count_inc (&value->ref_count);
  return value;
}

/**
 * nk_program_value_unref:
 * @value: (transfer full): a value
 *
 * Drops a reference; the last one frees the value and its reference on a tensor.
 */
void
nk_program_value_unref (NkProgramValue *value)
{
  g_return_if_fail (value != NULL);

  if (g_atomic_ref_count_dec (&value->ref_count))
    {
      g_clear_pointer (&value->tensor, nk_tensor_unref);
      g_free (value->tuple);
      g_free (value->string);
      g_free (value);
    }
}

/**
 * nk_program_value_get_kind:
 * @value: a value
 *
 * Which of the getters applies.
 *
 * Returns: what @value holds
 */
NkProgramValueKind
nk_program_value_get_kind (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NK_PROGRAM_VALUE_NONE);
  return value->kind;
}

/**
 * nk_program_value_get_tensor:
 * @value: a value
 *
 * The tensor of a tensor value.
 *
 * Returns: (transfer none) (nullable): the tensor, or %NULL if @value is not one
 */
NkTensor *
nk_program_value_get_tensor (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);
  return value->tensor;
}

/**
 * nk_program_value_get_int:
 * @value: an int or bool value
 *
 * The integer of an int value; a bool reads as 1 or 0.
 *
 * Returns: the integer (0 for other kinds)
 */
gint64
nk_program_value_get_int (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, 0);
  return value->i;
}

/**
 * nk_program_value_get_double:
 * @value: an int, float or bool value
 *
 * The number of an int, float or bool value as a double.
 *
 * Returns: the number as a double (0 for other kinds)
 */
double
nk_program_value_get_double (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, 0);
  return value->d;
}

/**
 * nk_program_value_get_bool:
 * @value: a bool value
 *
 * The boolean of a bool value.
 *
 * Returns: the boolean
 */
gboolean
nk_program_value_get_bool (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, FALSE);
  return value->i != 0;
}

/**
 * nk_program_value_get_tuple:
 * @value: a tuple value
 * @n_items: (out): number of items
 *
 * The integers of a tuple value (a shape, sizes or strides).
 *
 * Returns: (transfer none) (array length=n_items) (nullable): the items
 */
const gint64 *
nk_program_value_get_tuple (const NkProgramValue *value,
                            guint                *n_items)
{
  g_return_val_if_fail (value != NULL, NULL);
  g_return_val_if_fail (n_items != NULL, NULL);
  *n_items = value->n_tuple;
  return value->tuple;
}

/**
 * nk_program_value_get_string:
 * @value: a string value
 *
 * The text of a string value (an einops pattern).
 *
 * Returns: (transfer none) (nullable): the string
 */
const char *
nk_program_value_get_string (const NkProgramValue *value)
{
  g_return_val_if_fail (value != NULL, NULL);
  return value->string;
}

static void
append_double (GString *out,
               double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (d))
    g_string_append (out, "nan");
  else if (isinf (d))
    g_string_append (out, d > 0 ? "inf" : "-inf");
  else
    {
      g_ascii_formatd (buf, sizeof buf, "%.9g", d);
      g_string_append (out, buf);
      if (strpbrk (buf, ".e") == NULL)
        g_string_append (out, ".0");
    }
}

/**
 * nk_program_value_to_string:
 * @value: a value
 *
 * The value as Python would print it for scalars, booleans, tuples and strings
 * ("4", "0.5", "True", "(4, 1)", "'b h'"); a tensor's layout for tensors.
 *
 * Returns: (transfer full): the text
 */
char *
nk_program_value_to_string (const NkProgramValue *value)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (value != NULL, NULL);

  switch (value->kind)
    {
    case NK_PROGRAM_VALUE_NONE:
      g_string_append (out, "None");
      break;
    case NK_PROGRAM_VALUE_TENSOR:
      {
        g_autofree char *layout = nk_tensor_format_layout (value->tensor);
        g_string_append (out, layout);
      }
      break;
    case NK_PROGRAM_VALUE_INT:
      g_string_append_printf (out, "%" PRId64, value->i);
      break;
    case NK_PROGRAM_VALUE_FLOAT:
      append_double (out, value->d);
      break;
    case NK_PROGRAM_VALUE_BOOL:
      g_string_append (out, value->i ? "True" : "False");
      break;
    case NK_PROGRAM_VALUE_TUPLE:
      g_string_append_c (out, '(');
      for (guint i = 0; i < value->n_tuple; i++)
        g_string_append_printf (out, "%s%" PRId64, i ? ", " : "", value->tuple[i]);
      if (value->n_tuple == 1)
        g_string_append_c (out, ',');
      g_string_append_c (out, ')');
      break;
    case NK_PROGRAM_VALUE_STRING:
      g_string_append_printf (out, "'%s'", value->string);
      break;
    default:
      g_assert_not_reached ();
    }
  return g_string_free (out, FALSE);
}

/* The kind as an error message names it: "a tensor", "an integer". */
const char *
_nk_program_kind_name (NkProgramValueKind kind)
{
  switch (kind)
    {
    case NK_PROGRAM_VALUE_NONE: return _("None");
    case NK_PROGRAM_VALUE_TENSOR: return _("a tensor");
    case NK_PROGRAM_VALUE_INT: return _("an integer");
    case NK_PROGRAM_VALUE_FLOAT: return _("a float");
    case NK_PROGRAM_VALUE_BOOL: return _("a boolean");
    case NK_PROGRAM_VALUE_TUPLE: return _("a tuple");
    case NK_PROGRAM_VALUE_STRING: return _("a string");
    default: g_assert_not_reached ();
    }
}
