/* napkin-page.h: what the window asks of every page: is it busy, may the window close
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_PAGE (napkin_page_get_type ())

G_DECLARE_INTERFACE (NapkinPage, napkin_page, NAPKIN, PAGE, GtkWidget)

/**
 * NapkinPageInterface:
 * @close_request: the window is about to close while the page is busy. Return
 *   %TRUE to keep it open: the page then asks the person itself and closes or
 *   destroys @window when it is done. The default returns %FALSE (close now).
 *
 * A page also has the boolean #NapkinPage:busy property (override it with
 * g_object_class_override_property()): %TRUE while it runs work that closing the
 * window would lose, such as a training run.
 */
struct _NapkinPageInterface
{
  GTypeInterface parent_iface;

  gboolean (*close_request) (NapkinPage *self,
                             GtkWindow  *window);
};

gboolean napkin_page_get_busy      (NapkinPage *self);
gboolean napkin_page_close_request (NapkinPage *self,
                                    GtkWindow  *window);

void     napkin_page_add_toast     (GtkWidget  *widget,
                                    AdwToast   *toast);

G_END_DECLS
