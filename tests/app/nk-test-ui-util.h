/* nk-test-ui-util.h: what the widget tests share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

GtkWidget *nk_test_find_descendant (GtkWidget *widget,
                                    GType      type);
char      *nk_test_accessible_dup_property (GtkAccessible         *accessible,
                                            GtkAccessibleProperty  property);
char      *nk_test_accessible_dup_name     (GtkWidget *widget,
                                            gboolean  *out_fallback);
char      *nk_test_accessibility_problems  (GtkWidget *root);

G_END_DECLS
