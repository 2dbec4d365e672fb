/* nk-test-page-a11y.h: what a screen reader would get wrong on a page
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

char *nk_test_page_a11y_dup      (GtkWidget             *widget,
                                  GtkAccessibleProperty  property);
char *nk_test_page_a11y_problems (GtkWidget             *root);

G_END_DECLS
