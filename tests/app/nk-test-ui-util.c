/* nk-test-ui-util.c: what the widget tests share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

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
