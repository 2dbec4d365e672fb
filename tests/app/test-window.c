/* test-window.c: the window opens on the requested page, keeps its state, and goes away
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "napkin-application.h"
#include "napkin-page.h"
#include "napkin-window.h"
#include "nk-test-ui-util.h"

/* One application for the whole test program, as in the app itself. */
static NapkinApplication *app;

/* A page that says it is busy, for the window's close check. */
#define TEST_TYPE_BUSY_PAGE (test_busy_page_get_type ())
G_DECLARE_FINAL_TYPE (TestBusyPage, test_busy_page, TEST, BUSY_PAGE, GtkWidget)

struct _TestBusyPage
{
  GtkWidget parent_instance;
  gboolean  busy;
  guint     n_close_requests;
};

static gboolean
test_busy_page_close_request (NapkinPage *page,
                              GtkWindow  *window)
{
  TEST_BUSY_PAGE (page)->n_close_requests++;
  return TRUE;
}

static void
test_busy_page_iface_init (NapkinPageInterface *iface)
{
  iface->close_request = test_busy_page_close_request;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBusyPage, test_busy_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (NAPKIN_TYPE_PAGE, test_busy_page_iface_init))

static void
test_busy_page_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  g_value_set_boolean (value, TEST_BUSY_PAGE (object)->busy);
}

static void
test_busy_page_class_init (TestBusyPageClass *klass)
{
  G_OBJECT_CLASS (klass)->get_property = test_busy_page_get_property;
  g_object_class_override_property (G_OBJECT_CLASS (klass), 1, "busy");
}

static void
test_busy_page_init (TestBusyPage *self)
{
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
  overlay = nk_test_find_descendant (GTK_WIDGET (window), ADW_TYPE_TOAST_OVERLAY);
  g_assert_nonnull (overlay);
  stack = ADW_VIEW_STACK (nk_test_find_descendant (overlay, ADW_TYPE_VIEW_STACK));
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

/* The window asks a busy page before closing and stays open when the page says so;
 * the pages it ships are NapkinPages and idle at rest. */
static void
test_window_busy_page (void)
{
  NapkinWindow *window = napkin_window_new (app);
  AdwViewStack *stack = ADW_VIEW_STACK (nk_test_find_descendant (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (stack);
  TestBusyPage *busy;

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkWidget *child = adw_view_stack_page_get_child (page);

      g_assert_true (NAPKIN_IS_PAGE (child));
      g_assert_false (napkin_page_get_busy (NAPKIN_PAGE (child)));
    }

  busy = g_object_new (TEST_TYPE_BUSY_PAGE, NULL);
  busy->busy = TRUE;
  adw_view_stack_add_named (stack, GTK_WIDGET (busy), "busy");
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  /* Only a realized window closes. */
  gtk_window_present (GTK_WINDOW (window));

  gtk_window_close (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_nonnull (window);
  g_assert_cmpuint (busy->n_close_requests, ==, 1);

  busy->busy = FALSE;
  gtk_window_close (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (window);
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
  /* The application owns the window: closing it must finalize it, no page busy. */
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_close (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_null (window);

  /* A fresh settings object reads what the window stored on close. */
  {
    g_autoptr(GSettings) reread = napkin_settings_new ();

    g_assert_cmpint (g_settings_get_int (reread, "window-width"), ==, 1000);
    g_assert_cmpint (g_settings_get_int (reread, "window-height"), ==, 750);
  }
}

/* The window's own shortcut for @keyval + @mods, as GTK would find it on a key
 * press: a shortcut of one of its controllers whose trigger is that key. */
static GtkShortcut *
find_shortcut (GtkWidget       *widget,
               guint            keyval,
               GdkModifierType  mods)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  g_autoptr(GtkShortcutTrigger) wanted = gtk_keyval_trigger_new (keyval, mods);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), wanted))
            return shortcut;
        }
    }
  return NULL;
}

static void
press (GtkWidget       *window,
       guint            keyval,
       GdkModifierType  mods)
{
  GtkShortcut *shortcut = find_shortcut (window, keyval, mods);

  g_assert_nonnull (shortcut);
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut),
                                               GTK_SHORTCUT_ACTION_EXCLUSIVE, window,
                                               gtk_shortcut_get_arguments (shortcut)));
}

/* Alt+1…4 open the pages in the switcher's order; Ctrl+Page Up/Down step
 * through them and wrap; the shortcuts window lists both. Oracle: the order of
 * the pages in the window's template and the stack's visible child. */
static void
test_page_shortcuts (void)
{
  static const char *order[] = { "NapkinPlannerPage", "NapkinFormatsPage",
                                 "NapkinStridesPage", "NapkinTrainingPage" };
  NapkinWindow *window = napkin_window_new (app);
  AdwViewStack *stack;
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GBytes) overlay = NULL;
  const char *xml;

  g_object_ref_sink (window);
  stack = ADW_VIEW_STACK (nk_test_find_descendant (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  for (guint i = G_N_ELEMENTS (order); i-- > 0;)
    {
      press (GTK_WIDGET (window), GDK_KEY_1 + i, GDK_ALT_MASK);
      g_assert_cmpstr (G_OBJECT_TYPE_NAME (adw_view_stack_get_visible_child (stack)), ==, order[i]);
    }
  /* now on the first page: Page Down walks forward, and past the last wraps */
  for (guint i = 1; i <= G_N_ELEMENTS (order); i++)
    {
      press (GTK_WIDGET (window), GDK_KEY_Page_Down, GDK_CONTROL_MASK);
      g_assert_cmpstr (G_OBJECT_TYPE_NAME (adw_view_stack_get_visible_child (stack)), ==,
                       order[i % G_N_ELEMENTS (order)]);
    }
  press (GTK_WIDGET (window), GDK_KEY_Page_Up, GDK_CONTROL_MASK);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (adw_view_stack_get_visible_child (stack)), ==,
                   order[G_N_ELEMENTS (order) - 1]);

  overlay = g_resources_lookup_data ("/io/github/napkinml/Napkin/gtk/help-overlay.ui", 0, NULL);
  g_assert_nonnull (overlay);
  xml = g_bytes_get_data (overlay, NULL);
  g_assert_nonnull (strstr (xml, "&lt;Alt&gt;1...&lt;Alt&gt;4"));
  g_assert_nonnull (strstr (xml, "&lt;Control&gt;Page_Up"));
  g_assert_nonnull (strstr (xml, "&lt;Control&gt;Page_Down"));
  /* the Training page's Compare Runs (its own shortcut controller) */
  g_assert_nonnull (strstr (xml, "&lt;Control&gt;&lt;Shift&gt;r"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (window);
}

/* The About window shows the app's icon also where Napkin is not installed (the
 * tests run from the build tree, with no icon under XDG_DATA_DIRS). */
static void
test_app_icon (void)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());

  g_assert_true (gtk_icon_theme_has_icon (theme, APP_ID));
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
  g_test_add_func ("/ui/window/busy-page", test_window_busy_page);
  g_test_add_func ("/ui/window/settings-kept", test_settings_kept);
  g_test_add_func ("/ui/window/page-shortcuts", test_page_shortcuts);
  g_test_add_func ("/ui/window/app-icon", test_app_icon);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
