/* napkin-window.c: the main window: a view stack of pages
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-page.h"
#include "napkin-pages.h"
#include "napkin-window.h"

struct _NapkinWindow
{
  AdwApplicationWindow  parent_instance;

  GSettings            *settings;

  AdwViewStack         *stack;
};

G_DEFINE_FINAL_TYPE (NapkinWindow, napkin_window, ADW_TYPE_APPLICATION_WINDOW)

static void
napkin_window_save_state (NapkinWindow *self)
{
  int width, height;

  if (self->settings == NULL)
    return;

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized",
                          gtk_window_is_maximized (GTK_WINDOW (self)));
  if (napkin_window_get_page (self) != NULL)
    g_settings_set_string (self->settings, "last-page", napkin_window_get_page (self));
}

static gboolean
napkin_window_close_request (GtkWindow *window)
{
  NapkinWindow *self = NAPKIN_WINDOW (window);
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->stack);

  /* Saved first: a busy page that agrees to close later destroys the window, which
   * skips this handler. */
  napkin_window_save_state (self);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkWidget *child = adw_view_stack_page_get_child (page);

      /* A busy page asks the person itself and closes the window when it is done. */
      if (NAPKIN_IS_PAGE (child) && napkin_page_get_busy (NAPKIN_PAGE (child))
          && napkin_page_close_request (NAPKIN_PAGE (child), window))
        return TRUE;
    }
  return GTK_WINDOW_CLASS (napkin_window_parent_class)->close_request (window);
}

static void
napkin_window_load_state (NapkinWindow *self,
                          GSettings    *settings)
{
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->stack);

  g_set_object (&self->settings, settings);

  /* Each page that keeps state has a `settings` property; the others are skipped. */
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkWidget *child = adw_view_stack_page_get_child (page);
      GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (child), "settings");

      if (pspec != NULL && pspec->value_type == G_TYPE_SETTINGS)
        g_object_set (child, "settings", settings, NULL);
    }

  if (self->settings == NULL)
    return;

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  {
    g_autofree char *page = g_settings_get_string (self->settings, "last-page");

    napkin_window_set_page (self, page);
  }
}

static void
napkin_window_dispose (GObject *object)
{
  NapkinWindow *self = NAPKIN_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_WINDOW);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (napkin_window_parent_class)->dispose (object);
}

/* win.show-page('training'): a page's toast or button shows another page. */
static void
show_page_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  napkin_window_set_page (NAPKIN_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

/* win.previous-page / win.next-page: Ctrl+Page Up / Page Down step through the
 * pages as through a notebook's tabs, wrapping at the ends. */
static void
step_page_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NapkinWindow *self = NAPKIN_WINDOW (widget);
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (self->stack);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (pages));
  int step = g_str_equal (action_name, "win.next-page") ? 1 : -1;
  GtkWidget *visible = adw_view_stack_get_visible_child (self->stack);
  guint current = 0;

  if (n == 0)
    return;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);

      if (adw_view_stack_page_get_child (page) == visible)
        current = i;
    }
  for (guint k = 1; k <= n; k++)
    {
      guint i = (current + n + step * (int) k) % n;
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);

      if (adw_view_stack_page_get_visible (page))
        {
          adw_view_stack_set_visible_child (self->stack, adw_view_stack_page_get_child (page));
          return;
        }
    }
}

static void
napkin_window_class_init (NapkinWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = napkin_window_dispose;
  window_class->close_request = napkin_window_close_request;

  /* The pages the template names. */
  napkin_pages_ensure_types ();

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-window.ui");
  gtk_widget_class_bind_template_child (widget_class, NapkinWindow, stack);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK,
                                       "window.close", NULL);
  gtk_widget_class_install_action (widget_class, "win.show-page", "s", show_page_action);
  gtk_widget_class_install_action (widget_class, "win.previous-page", NULL, step_page_action);
  gtk_widget_class_install_action (widget_class, "win.next-page", NULL, step_page_action);

  /* Alt+1…4 open the pages in the switcher's order, as tabs do in GNOME apps. */
  {
    static const char *pages[] = { "planner", "formats", "strides", "training" };

    for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK,
                                           "win.show-page", "s", pages[i]);
  }
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, GDK_CONTROL_MASK,
                                       "win.previous-page", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, GDK_CONTROL_MASK,
                                       "win.next-page", NULL);
}

static void
napkin_window_init (NapkinWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * napkin_window_new:
 * @application: the application
 *
 * Returns: (transfer full): a new window
 */
NapkinWindow *
napkin_window_new (NapkinApplication *application)
{
  NapkinWindow *self = g_object_new (NAPKIN_TYPE_WINDOW, "application", application, NULL);

  napkin_window_load_state (self, napkin_application_get_settings (application));
  return self;
}

/**
 * napkin_window_set_page:
 * @self: a window
 * @name: a page name: planner, formats, strides or training
 *
 * Shows the page @name; a page this build does not have leaves the view as it is.
 */
void
napkin_window_set_page (NapkinWindow *self,
                        const char   *name)
{
  g_return_if_fail (NAPKIN_IS_WINDOW (self));

  if (name != NULL && adw_view_stack_get_child_by_name (self->stack, name) != NULL)
    adw_view_stack_set_visible_child_name (self->stack, name);
}

/**
 * napkin_window_get_page:
 * @self: a window
 *
 * Returns: (nullable): the name of the visible page
 */
const char *
napkin_window_get_page (NapkinWindow *self)
{
  g_return_val_if_fail (NAPKIN_IS_WINDOW (self), NULL);

  return adw_view_stack_get_visible_child_name (self->stack);
}

/**
 * napkin_window_get_page_widget:
 * @self: a window
 * @name: a page name
 *
 * Returns: (transfer none) (nullable): the page, to activate its actions
 */
GtkWidget *
napkin_window_get_page_widget (NapkinWindow *self,
                               const char   *name)
{
  g_return_val_if_fail (NAPKIN_IS_WINDOW (self), NULL);
  return adw_view_stack_get_child_by_name (self->stack, name);
}
