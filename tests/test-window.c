/* test-window.c: the window opens on the requested page, keeps its state, and goes away
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "napkin-application.h"
#include "napkin-window.h"

/* One application for the whole test program, as in the app itself. */
static NapkinApplication *app;

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_window_pages (void)
{
  static const struct {
    const char *name;
    const char *type_name;
  } pages[] = {
    { "formats",  "NapkinFormatsPage" },
    { "strides",  "NapkinStridesPage" },
    { "training", "NapkinTrainingPage" },
    { "planner",  "NapkinPlannerPage" },
  };
  NapkinWindow *window;
  GtkWidget *overlay;
  AdwViewStack *stack;

  window = napkin_window_new (app);
  g_object_ref_sink (window);

  /* Pages toast through this overlay, so it must hold them. */
  overlay = find_descendant (GTK_WIDGET (window), ADW_TYPE_TOAST_OVERLAY);
  g_assert_nonnull (overlay);
  stack = ADW_VIEW_STACK (find_descendant (overlay, ADW_TYPE_VIEW_STACK));
  g_assert_nonnull (stack);

  /* Each page is shown by name, starting from one that is not already visible; the
   * oracle is the stack's visible child itself, not the window's own getter. */
  napkin_window_set_page (window, "planner");
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      GtkWidget *before = adw_view_stack_get_visible_child (stack);
      GtkWidget *visible;

      napkin_window_set_page (window, pages[i].name);
      visible = adw_view_stack_get_visible_child (stack);
      g_assert_true (visible != before);
      g_assert_cmpstr (G_OBJECT_TYPE_NAME (visible), ==, pages[i].type_name);
      g_assert_cmpstr (napkin_window_get_page (window), ==, pages[i].name);
    }

  /* A name the window does not have leaves the view as it is. */
  napkin_window_set_page (window, "no-such-page");
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (adw_view_stack_get_visible_child (stack)), ==,
                   "NapkinPlannerPage");
  g_assert_cmpstr (napkin_window_get_page (window), ==, "planner");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

static void
test_settings_kept (void)
{
  g_autoptr(GSettings) settings = napkin_settings_new ();
  NapkinWindow *window;

  g_assert_nonnull (settings);
  g_settings_set_int (settings, "window-width", 900);
  g_settings_set_int (settings, "window-height", 700);

  g_application_activate (G_APPLICATION (app));
  window = NAPKIN_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);

  {
    int width = 0, height = 0;

    gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
    g_assert_cmpint (width, ==, 900);
    g_assert_cmpint (height, ==, 700);
  }

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 750);
  gtk_window_close (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;

  /* A fresh settings object reads what the window stored on close. */
  {
    g_autoptr(GSettings) reread = napkin_settings_new ();

    g_assert_cmpint (g_settings_get_int (reread, "window-width"), ==, 1000);
    g_assert_cmpint (g_settings_get_int (reread, "window-height"), ==, 750);
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  app = napkin_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/ui/window/pages", test_window_pages);
  g_test_add_func ("/ui/window/settings-kept", test_settings_kept);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
