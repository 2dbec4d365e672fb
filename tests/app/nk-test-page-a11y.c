/* nk-test-page-a11y.c: what a screen reader would get wrong on a page, and what is cut off
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules are issue 26's, read with GTK 4.8's accessible API (the tests run
 * with GTK_A11Y=test, so the properties are kept): a control a person operates
 * has a name, an accessible label or a labelled-by relation, never only a
 * tooltip; a name never carries a mnemonic's underscore; an image outside a
 * control, unless hidden itself, says something or is presentation. A control's own parts (a menu
 * button's toggle, the text inside an entry row, a switch's glyphs) are the
 * control's: its name covers them.
 */
#include "config.h"

#include <adwaita.h>

#include "nk-test-page-a11y.h"
#include "nk-test-ui-util.h"

static gboolean
is_control (GtkAccessibleRole role)
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
      return TRUE;
    default:
      return FALSE;
    }
}

/* Whether @widget shows its text with a mnemonic, so that an underscore in its
 * name is the mnemonic's (a format called float8_e4m3fn keeps its own). */
static gboolean
uses_underline (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget))
    return gtk_button_get_use_underline (GTK_BUTTON (widget));
  if (GTK_IS_MENU_BUTTON (widget))
    return gtk_menu_button_get_use_underline (GTK_MENU_BUTTON (widget));
  if (GTK_IS_LABEL (widget))
    return gtk_label_get_use_underline (GTK_LABEL (widget));
  if (ADW_IS_PREFERENCES_ROW (widget))
    return adw_preferences_row_get_use_underline (ADW_PREFERENCES_ROW (widget));
  return FALSE;
}

static void
report (GString    *problems,
        const char *what,
        GtkWidget  *widget)
{
  const char *tooltip = gtk_widget_get_tooltip_text (widget);

  g_string_append_printf (problems, "%s: %s in %s", what, G_OBJECT_TYPE_NAME (widget),
                          G_OBJECT_TYPE_NAME (gtk_widget_get_parent (widget)));
  if (tooltip != NULL)
    g_string_append_printf (problems, " (tooltip “%s”)", tooltip);
  g_string_append_c (problems, '\n');
}

static void
walk (GtkWidget *widget,
      GString   *problems)
{
  GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget));
  g_autofree char *name = nk_test_accessible_dup_property (GTK_ACCESSIBLE (widget),
                                                          GTK_ACCESSIBLE_PROPERTY_LABEL);
  gboolean named = (name != NULL && *name != '\0')
                   || gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget),
                                                        GTK_ACCESSIBLE_RELATION_LABELLED_BY);

  if (name != NULL && strchr (name, '_') != NULL && uses_underline (widget))
    report (problems, "a mnemonic's underscore in the name", widget);
  /* An image hidden itself (a row's unset icon) is never shown, so never exposed. */
  if (GTK_IS_IMAGE (widget) && gtk_widget_get_visible (widget)
      && role != GTK_ACCESSIBLE_ROLE_PRESENTATION && !named)
    report (problems, "an image neither named nor presentation", widget);
  if (is_control (role))
    {
      if (!named)
        report (problems, "a control without a name", widget);
      /* Its parts are its own. */
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    walk (child, problems);
}

/**
 * nk_test_page_a11y_problems:
 * @root: a page
 *
 * Walks @root and its descendants, shown or hidden (a hidden control appears
 * later with the name it has now).
 *
 * Returns: (transfer full): one line per problem, "" when there is none
 */
char *
nk_test_page_a11y_problems (GtkWidget *root)
{
  GString *problems = g_string_new (NULL);

  walk (root, problems);
  return g_string_free (problems, FALSE);
}

/**
 * nk_test_page_a11y_is_invalid:
 * @widget: an input
 *
 * Returns: whether @widget's invalid state is set to true
 */
gboolean
nk_test_page_a11y_is_invalid (GtkWidget *widget)
{
  g_autofree char *differs = gtk_test_accessible_check_state (GTK_ACCESSIBLE (widget),
                                                              GTK_ACCESSIBLE_STATE_INVALID,
                                                              GTK_ACCESSIBLE_INVALID_TRUE);

  return differs == NULL;
}

/**
 * nk_test_page_assert_inside:
 * @widget: a widget on @page
 * @page: a page in a window
 * @what: what @widget is, for the message
 *
 * Fails unless @widget lies within @page's width: nothing of it is cut off at
 * either edge.
 */
void
nk_test_page_assert_inside (GtkWidget  *widget,
                            GtkWidget  *page,
                            const char *what)
{
  graphene_rect_t bounds;

  g_assert_nonnull (widget);
  g_assert_true (gtk_widget_compute_bounds (widget, page, &bounds));
  if (bounds.origin.x < 0 || bounds.origin.x + bounds.size.width > gtk_widget_get_width (page) + 0.5)
    g_error ("%s is cut off: %.0f to %.0f in a page %d px wide", what, bounds.origin.x,
             bounds.origin.x + bounds.size.width, gtk_widget_get_width (page));
}
