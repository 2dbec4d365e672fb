/* napkin-page.c: the NapkinPage interface and the toast helper pages share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "napkin-page.h"

G_DEFINE_INTERFACE (NapkinPage, napkin_page, GTK_TYPE_WIDGET)

static gboolean
napkin_page_real_close_request (NapkinPage *self,
                                GtkWindow  *window)
{
  return FALSE;
}

static void
napkin_page_default_init (NapkinPageInterface *iface)
{
  iface->close_request = napkin_page_real_close_request;

  /**
   * NapkinPage:busy:
   *
   * Whether the page runs work that closing the window would lose; the window
   * asks the busy pages before it closes.
   */
  g_object_interface_install_property (iface,
                                       g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                             G_PARAM_READABLE |
                                                             G_PARAM_EXPLICIT_NOTIFY |
                                                             G_PARAM_STATIC_STRINGS));
}

/**
 * napkin_page_get_busy:
 * @self: a page
 *
 * Returns: the #NapkinPage:busy property
 */
gboolean
napkin_page_get_busy (NapkinPage *self)
{
  gboolean busy = FALSE;

  g_return_val_if_fail (NAPKIN_IS_PAGE (self), FALSE);

  g_object_get (self, "busy", &busy, NULL);
  return busy;
}

/**
 * napkin_page_close_request:
 * @self: a busy page
 * @window: the window that is closing
 *
 * Asks @self whether @window may close now.
 *
 * Returns: %TRUE when the page keeps the window open (and closes it itself later)
 */
gboolean
napkin_page_close_request (NapkinPage *self,
                           GtkWindow  *window)
{
  g_return_val_if_fail (NAPKIN_IS_PAGE (self), FALSE);
  g_return_val_if_fail (GTK_IS_WINDOW (window), FALSE);

  return NAPKIN_PAGE_GET_IFACE (self)->close_request (self, window);
}

/**
 * napkin_page_add_toast:
 * @widget: a widget inside a page
 * @toast: (transfer full): a toast
 *
 * Shows @toast on the #AdwToastOverlay that holds @widget. Outside one (a page
 * tested on its own) the toast is dropped: it only repeats what the page shows.
 */
void
napkin_page_add_toast (GtkWidget *widget,
                       AdwToast  *toast)
{
  GtkWidget *overlay;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (ADW_IS_TOAST (toast));

  overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY);
  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), toast);
  else
    g_object_unref (g_object_ref_sink (toast));
}
