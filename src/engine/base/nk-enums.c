/* nk-enums.c: reading and writing the engine's GEnums by their nicks (the CLI's names)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "nk-enums.h"

/**
 * nk_enum_to_nick:
 * @enum_type: a GEnum type
 * @value: one of its values
 *
 * The nick glib-mkenums gave a value: the name the CLI, JSON and GSettings use for
 * it.
 *
 * Returns: (transfer none): the value's nick, interned for the life of the program
 */
const char *
nk_enum_to_nick (GType enum_type,
                 int   value)
{
  /* Enum classes are static types: the class and its strings live forever. */
  GEnumClass *klass = g_type_class_ref (enum_type);
  GEnumValue *found = g_enum_get_value (klass, value);

  g_return_val_if_fail (found != NULL, NULL);
  return found->value_nick;
}

/**
 * nk_enum_from_nick:
 * @enum_type: a GEnum type
 * @text: (nullable): a nick, compared without regard to ASCII case ("AdamW")
 * @out_value: (out): the value
 *
 * Reads a value's nick, the inverse of nk_enum_to_nick().
 *
 * Returns: %TRUE if @text is one of the type's nicks
 */
gboolean
nk_enum_from_nick (GType       enum_type,
                   const char *text,
                   int        *out_value)
{
  GEnumClass *klass;

  g_return_val_if_fail (out_value != NULL, FALSE);
  if (text == NULL)
    return FALSE;
  klass = g_type_class_ref (enum_type);
  for (guint i = 0; i < klass->n_values; i++)
    if (g_ascii_strcasecmp (klass->values[i].value_nick, text) == 0)
      {
        *out_value = klass->values[i].value;
        return TRUE;
      }
  return FALSE;
}
