/* nk-test-page-a11y.h: what a screen reader would get wrong on a page, and what is cut off
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

char     *nk_test_page_a11y_problems   (GtkWidget             *root);
gboolean  nk_test_page_a11y_is_invalid (GtkWidget             *widget);
void      nk_test_page_assert_inside   (GtkWidget             *widget,
                                        GtkWidget             *page,
                                        const char            *what);

G_END_DECLS
