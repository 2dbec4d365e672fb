/* nk-test-ui-util.c: what the widget tests share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <adwaita.h>

#include "nk-test-ui-util.h"

/**
 * nk_test_find_descendant:
 * @widget: where to start
 * @type: the type wanted
 *
 * Returns: (transfer none) (nullable): @widget or its first descendant of
 *   @type, depth first
 */
GtkWidget *
nk_test_find_descendant (GtkWidget *widget,
                         GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = nk_test_find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/**
 * nk_test_accessible_dup_property:
 * @accessible: an accessible
 * @property: a string property (label, description, placeholder, ...)
 *
 * GTK 4.8 has no public getter for an accessible's properties; its test API
 * compares one with an expected value and, when they differ, returns the real
 * one as text. The expected value here is one no widget ever shows.
 *
 * Under GTK_A11Y=none GTK keeps no accessible state at all, so every property
 * would read as unset (a labelled drop-down as unnamed): that is a test set up
 * wrong, and it stops here saying so (the ui suite runs with GTK_A11Y=test).
 *
 * Returns: (transfer full) (nullable): the property's value, %NULL when unset
 */
char *
nk_test_accessible_dup_property (GtkAccessible         *accessible,
                                 GtkAccessibleProperty  property)
{
  char *value;

  if (g_strcmp0 (g_getenv ("GTK_A11Y"), "none") == 0)
    g_error ("nk_test_accessible_dup_property: GTK_A11Y=none keeps no accessible properties; "
             "run the test under GTK_A11Y=test");
  if (!gtk_test_accessible_has_property (accessible, property))
    return NULL;
  value = gtk_test_accessible_check_property (accessible, property, "\x01 never shown \x01");
  return value != NULL ? value : g_strdup ("");
}

/* The controls a person operates: they must have a name. */
static gboolean
is_control_role (GtkAccessibleRole role)
{
  switch ((int) role)
    {
    case GTK_ACCESSIBLE_ROLE_BUTTON:
    case GTK_ACCESSIBLE_ROLE_CHECKBOX:
    case GTK_ACCESSIBLE_ROLE_SWITCH:
    case GTK_ACCESSIBLE_ROLE_COMBO_BOX:
    case GTK_ACCESSIBLE_ROLE_TEXT_BOX:
    case GTK_ACCESSIBLE_ROLE_SEARCH_BOX:
    case GTK_ACCESSIBLE_ROLE_SPIN_BUTTON:
    case GTK_ACCESSIBLE_ROLE_TAB:
      return TRUE;
    default:
      return FALSE;
    }
}

/* The parts GTK builds a composite control from (a menu button's or a
 * drop-down's toggle, the text inside an entry or a spin button): the composite
 * is what carries the name. */
static GtkWidget *
composite_of (GtkWidget *widget)
{
  GtkWidget *parent = gtk_widget_get_parent (widget);

  if (GTK_IS_TOGGLE_BUTTON (widget) && (GTK_IS_MENU_BUTTON (parent) || GTK_IS_DROP_DOWN (parent)))
    return parent;
  if (GTK_IS_TEXT (widget) && (GTK_IS_ENTRY (parent) || GTK_IS_SPIN_BUTTON (parent)
                               || GTK_IS_PASSWORD_ENTRY (parent) || GTK_IS_SEARCH_ENTRY (parent)))
    return parent;
  return NULL;
}

/* The widget @accessible is labelled by, when it is exactly one of the widgets
 * around it; GTK 4.8 has no getter for a relation's targets, but its test API
 * says whether the relation equals a given list. */
static GtkWidget *
find_in (GtkWidget     *root,
         GtkAccessible *accessible,
         int            depth)
{
  g_autofree char *differs = gtk_test_accessible_check_relation (accessible,
                                                                GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                                                root, NULL);

  if (differs == NULL)
    return root;
  if (depth == 0)
    return NULL;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_in (child, accessible, depth - 1);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
labelled_by (GtkWidget *widget)
{
  GtkWidget *around = widget;

  for (int up = 0; up < 4 && around != NULL; up++, around = gtk_widget_get_parent (around))
    {
      GtkWidget *found = find_in (around, GTK_ACCESSIBLE (widget), 6);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/**
 * nk_test_accessible_dup_name:
 * @widget: a widget
 * @out_fallback: (out) (optional): set to %TRUE when nothing names @widget and
 *   GTK falls back to its type name ("GtkMenuButton"), as a screen reader then
 *   says
 *
 * The accessible name as GTK 4.8 computes it (gtk_at_context_get_name): the
 * label property, then the label of each widget it is labelled by, joined by
 * spaces; with neither, the type name of the widget (or of the widget it is
 * labelled by) unless it is a plain container.
 *
 * Returns: (transfer full): the name
 */
char *
nk_test_accessible_dup_name (GtkWidget *widget,
                             gboolean  *out_fallback)
{
  GtkAccessible *accessible = GTK_ACCESSIBLE (widget);
  g_autofree char *label = nk_test_accessible_dup_property (accessible, GTK_ACCESSIBLE_PROPERTY_LABEL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gboolean fallback = FALSE;

  if (label != NULL)
    g_ptr_array_add (names, g_steal_pointer (&label));
  if (gtk_test_accessible_has_relation (accessible, GTK_ACCESSIBLE_RELATION_LABELLED_BY))
    {
      GtkWidget *by = labelled_by (widget);
      char *by_label = by != NULL ? nk_test_accessible_dup_property (GTK_ACCESSIBLE (by),
                                                                    GTK_ACCESSIBLE_PROPERTY_LABEL)
                                  : NULL;

      if (by_label != NULL)
        g_ptr_array_add (names, by_label);
      else if (names->len == 0)
        {
          g_ptr_array_add (names, g_strdup (by != NULL ? G_OBJECT_TYPE_NAME (by) : "?"));
          fallback = TRUE;
        }
    }
  if (names->len == 0)
    {
      g_ptr_array_add (names, g_strdup (G_OBJECT_TYPE_NAME (widget)));
      fallback = TRUE;
    }
  g_ptr_array_add (names, NULL);
  if (out_fallback != NULL)
    *out_fallback = fallback;
  return g_strjoinv (" ", (char **) names->pdata);
}

static const char *
role_nick (GtkAccessibleRole role)
{
  GEnumClass *klass = g_type_class_peek (GTK_TYPE_ACCESSIBLE_ROLE);
  GEnumValue *value = g_enum_get_value (klass, role);

  return value != NULL ? value->value_nick : "?";
}

static void
describe_widget (GString   *out,
                 GtkWidget *widget)
{
  GtkWidget *named = widget;
  const char *id;

  /* Where it is: the nearest widget with a buildable id or a title says more
   * than a type name. */
  while (named != NULL && (id = gtk_buildable_get_buildable_id (GTK_BUILDABLE (named))) == NULL)
    named = gtk_widget_get_parent (named);
  g_string_append_printf (out, "%s", G_OBJECT_TYPE_NAME (widget));
  if (named != NULL)
    g_string_append_printf (out, " (in #%s %s)", id, G_OBJECT_TYPE_NAME (named));
  for (GtkWidget *up = gtk_widget_get_parent (named != NULL ? named : widget); up != NULL;
       up = gtk_widget_get_parent (up))
    if (gtk_buildable_get_buildable_id (GTK_BUILDABLE (up)) != NULL)
      {
        g_string_append_printf (out, " (in #%s %s)", gtk_buildable_get_buildable_id (GTK_BUILDABLE (up)),
                                G_OBJECT_TYPE_NAME (up));
        break;
      }
  if (GTK_IS_WIDGET (widget) && gtk_widget_get_tooltip_text (widget) != NULL)
    g_string_append_printf (out, " tooltip “%s”", gtk_widget_get_tooltip_text (widget));
}

/* A name GTK 4.8 builds from a mnemonic button, its raw label and then its
 * label's text ("_Start Start", "S_top Stop"), or a word that starts with a
 * mnemonic's underscore ("_Open"); "d_model" is a name, not a mnemonic. */
static gboolean
has_mnemonic_leak (const char *name)
{
  for (const char *p = name; (p = strchr (p, '_')) != NULL; p++)
    if ((p == name || p[-1] == ' ') && g_ascii_isalnum (p[1]))
      return TRUE;
  for (const char *space = strchr (name, ' '); space != NULL; space = strchr (space + 1, ' '))
    {
      g_autofree char *raw = g_strndup (name, space - name);
      g_autoptr(GString) stripped = g_string_new (raw);

      if (strchr (raw, '_') != NULL)
        {
          g_string_erase (stripped, strchr (raw, '_') - raw, 1);
          if (g_str_equal (stripped->str, space + 1))
            return TRUE;
        }
    }
  return FALSE;
}

/* Returns whether @widget is a control with a name of its own: an image
 * inside one (an icon-and-label button of a library's) is part of what it says. */
static gboolean
check_widget (GtkWidget *widget,
              gboolean   in_named_control,
              GString   *problems)
{
  GtkAccessible *accessible = GTK_ACCESSIBLE (widget);
  GtkAccessibleRole role = gtk_accessible_get_accessible_role (accessible);
  gboolean fallback = FALSE;
  g_autofree char *name = NULL;

  if (role == GTK_ACCESSIBLE_ROLE_NONE || role == GTK_ACCESSIBLE_ROLE_PRESENTATION)
    return FALSE;
  name = nk_test_accessible_dup_name (widget, &fallback);
  if (g_getenv ("NK_TEST_A11Y_DUMP") != NULL)
    g_test_message ("%s %s “%s”%s", G_OBJECT_TYPE_NAME (widget), role_nick (role), name,
                    fallback ? " (type name)" : "");
  if (is_control_role (role) && fallback && composite_of (widget) == NULL)
    {
      g_string_append_printf (problems, "unnamed %s, read as “%s”: ", role_nick (role), name);
      describe_widget (problems, widget);
      g_string_append_c (problems, '\n');
    }
  /* A mnemonic's underscore belongs to the label's markup, never to what a
   * screen reader says: "_Start Start". */
  if (!fallback && has_mnemonic_leak (name))
    {
      g_string_append_printf (problems, "mnemonic underscore in the name “%s”: ", name);
      describe_widget (problems, widget);
      g_string_append_c (problems, '\n');
    }
  /* An image either says something (a name) or is decoration (presentation). */
  if (role == GTK_ACCESSIBLE_ROLE_IMG && fallback && !in_named_control)
    {
      g_string_append (problems, "image neither named nor presentation: ");
      describe_widget (problems, widget);
      g_string_append_c (problems, '\n');
    }
  /* A titled row is one control to a screen reader too (a combo row's arrow is
   * libadwaita's image, not ours to make presentation). */
  return (is_control_role (role) || ADW_IS_PREFERENCES_ROW (widget)) && !fallback;
}

static void
walk (GtkWidget *widget,
      gboolean   in_named_control,
      GString   *problems)
{
  /* A hidden widget is not in the tree a screen reader sees (and a library's
   * rows keep unused parts hidden: an entry row's Apply button, a row's icon). */
  if (!gtk_widget_get_visible (widget))
    return;
  in_named_control |= check_widget (widget, in_named_control, problems);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    walk (child, in_named_control, problems);
}

/**
 * nk_test_accessibility_problems:
 * @root: where to start
 *
 * Walks @root and the descendants it shows (a hidden widget is not in the tree
 * a screen reader sees), and lists what a screen reader would get
 * wrong: a push button, toggle, check box, switch, menu button, drop-down,
 * entry or spin button without a name (nothing but its type name, as GTK 4.8
 * falls back to when there is no accessible label and no labelled-by relation
 * to a label; it never uses a tooltip), a name with a mnemonic's underscore in
 * it, an image (role img) that is neither named nor presentation nor part of
 * a named control.
 *
 * Needs GTK's test accessibility backend (GTK_A11Y=test): with GTK_A11Y=none
 * widgets keep no accessible state at all. NK_TEST_A11Y_DUMP=1 in the
 * environment lists every node it walks, with its role and name.
 *
 * Returns: (transfer full): one line per problem, "" when there is none
 */
char *
nk_test_accessibility_problems (GtkWidget *root)
{
  GString *problems = g_string_new (NULL);

  g_type_class_ref (GTK_TYPE_ACCESSIBLE_ROLE);
  walk (root, FALSE, problems);
  return g_string_free (problems, FALSE);
}
