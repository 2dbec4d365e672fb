/* test-accessibility.c: every page names its controls for a screen reader and fits a phone
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: WAI-ARIA's name computation as GTK 4.8 does it (an accessible label
 * or a labelled-by relation, never the tooltip; gtk_at_context_get_name), read
 * back through GTK's own test API, not through anything Napkin sets; GNOME's
 * HIG for the smallest window a page must work in, 360 px wide.
 */
#include "config.h"

#include <string.h>

#include "napkin-application.h"
#include "napkin-histogram-plot.h"
#include "napkin-memory-plot.h"
#include "napkin-scale-plot.h"
#include "napkin-stacked-bar.h"
#include "napkin-throughput-plot.h"
#include "napkin-window.h"
#include "nk-test-ui-util.h"

#define HIG_MIN_WIDTH 360

static NapkinApplication *app;

static const char *page_names[] = { "planner", "formats", "strides", "training" };

static NapkinWindow *
new_window (void)
{
  NapkinWindow *window = napkin_window_new (app);

  g_object_ref_sink (window);
  return window;
}

static void
close_window (NapkinWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (window);
}

/* Each page's tree: every control named, no mnemonic underscore in a name, no
 * image a screen reader lists with nothing to say. */
static void
test_tree (gconstpointer data)
{
  const char *name = data;
  NapkinWindow *window = new_window ();
  GtkWidget *page = napkin_window_get_page_widget (window, name);
  g_autofree char *problems = NULL;

  g_assert_nonnull (page);
  napkin_window_set_page (window, name);
  gtk_window_present (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;

  problems = nk_test_accessibility_problems (page);
  if (*problems != '\0')
    g_test_message ("%s page:\n%s", name, problems);
  g_assert_cmpstr (problems, ==, "");

  close_window (window);
}

/* The window's own controls (header bar, switcher, main menu). */
static void
test_tree_window (void)
{
  NapkinWindow *window = new_window ();
  g_autofree char *problems = NULL;
  GtkWidget *header = nk_test_find_descendant (GTK_WIDGET (window), ADW_TYPE_HEADER_BAR);

  gtk_window_present (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_nonnull (header);
  problems = nk_test_accessibility_problems (header);
  if (*problems != '\0')
    g_test_message ("header bar:\n%s", problems);
  g_assert_cmpstr (problems, ==, "");

  close_window (window);
}

/* The walker itself finds what it is for: a control named only by its tooltip,
 * a mnemonic in a name, an unnamed image; and passes their fixed versions. */
static void
test_walker_catches (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *icon_button = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  GtkWidget *mnemonic = gtk_button_new_with_mnemonic ("_Start");
  GtkWidget *image = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  GtkWidget *menu = gtk_menu_button_new ();
  g_autofree char *problems = NULL;

  g_object_ref_sink (box);
  gtk_widget_set_tooltip_text (icon_button, "Copy");
  gtk_box_append (GTK_BOX (box), icon_button);
  gtk_box_append (GTK_BOX (box), mnemonic);
  gtk_box_append (GTK_BOX (box), image);
  gtk_box_append (GTK_BOX (box), menu);

  problems = nk_test_accessibility_problems (box);
  g_test_message ("%s", problems);
  g_assert_nonnull (strstr (problems, "unnamed button, read as “GtkImage”: GtkButton tooltip “Copy”"));
  g_assert_nonnull (strstr (problems, "“_Start Start”"));
  g_assert_nonnull (strstr (problems, "image neither named nor presentation"));
  g_assert_nonnull (strstr (problems, "read as “GtkMenuButton”"));
  g_clear_pointer (&problems, g_free);

  gtk_accessible_update_property (GTK_ACCESSIBLE (icon_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Copy", -1);
  gtk_accessible_reset_property (GTK_ACCESSIBLE (mnemonic), GTK_ACCESSIBLE_PROPERTY_LABEL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (menu), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Menu", -1);
  gtk_box_remove (GTK_BOX (box), image);
  image = g_object_new (GTK_TYPE_IMAGE, "icon-name", "dialog-warning-symbolic",
                        "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
  gtk_box_append (GTK_BOX (box), image);
  problems = nk_test_accessibility_problems (box);
  g_assert_cmpstr (problems, ==, "");

  g_assert_finalize_object (box);
}

/* Each page, and the window around it, can be 360 px wide (HIG): the window's
 * minimum is what the page asks for and the stack takes the widest page's. */
static void
test_min_width (void)
{
  NapkinWindow *window = new_window ();
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  int min = 0, nat = 0;

  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    {
      GtkWidget *page = napkin_window_get_page_widget (window, page_names[i]);

      gtk_widget_measure (page, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
      g_test_message ("%s page: minimum width %d", page_names[i], min);
      g_assert_cmpint (min, <=, HIG_MIN_WIDTH);
    }
  for (GtkWidget *part = gtk_widget_get_first_child (content); part != NULL;
       part = gtk_widget_get_next_sibling (part))
    {
      gtk_widget_measure (part, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
      g_test_message ("%s: minimum width %d", G_OBJECT_TYPE_NAME (part), min);
    }
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_test_message ("window content: minimum width %d", min);
  g_assert_cmpint (min, <=, HIG_MIN_WIDTH);

  close_window (window);
}

static char *
description_of (gpointer widget)
{
  g_autofree char *text = nk_test_accessible_dup_property (GTK_ACCESSIBLE (widget),
                                                           GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);

  g_test_message ("%s: %s", G_OBJECT_TYPE_NAME (widget), text);
  return g_steal_pointer (&text);
}

#define assert_has(haystack, needle) \
  G_STMT_START { \
    g_autofree char *h_ = (haystack); \
    if (h_ == NULL || strstr (h_, (needle)) == NULL) \
      g_error ("“%s” not in “%s”", (needle), h_); \
  } G_STMT_END

/* Each chart's description carries what a sighted person reads off it, and
 * follows its data. Oracle: the values the test gives, worked by hand
 * (shares of a sum, the last point of a series, the binades a bin covers). */
static void
test_chart_descriptions (void)
{
  g_autoptr(NapkinSeries) rate = napkin_series_new ();
  g_autoptr(NapkinSeries) scale = napkin_series_new ();
  g_autoptr(NapkinSeries) skipped = napkin_series_new ();
  g_autoptr(NapkinSeries) params = napkin_series_new ();
  NapkinSeries *buckets[NAPKIN_MEMORY_PLOT_N_BUCKETS] = { params };
  NapkinThroughputPlot *throughput = g_object_ref_sink (NAPKIN_THROUGHPUT_PLOT (napkin_throughput_plot_new ()));
  NapkinScalePlot *scale_plot = g_object_ref_sink (NAPKIN_SCALE_PLOT (napkin_scale_plot_new ()));
  NapkinMemoryPlot *memory = g_object_ref_sink (NAPKIN_MEMORY_PLOT (napkin_memory_plot_new ()));
  NapkinHistogramPlot *histogram = g_object_ref_sink (NAPKIN_HISTOGRAM_PLOT (napkin_histogram_plot_new ()));
  NapkinStackedBar *bar = g_object_ref_sink (NAPKIN_STACKED_BAR (napkin_stacked_bar_new ()));
  g_autofree NkTrainHistogram *h = g_new0 (NkTrainHistogram, 1);
  const double parts[] = { 3, 1 };
  const char *labels[] = { "Compute 3 s", "Bubble 1 s" };

  /* Throughput: the last step's rate, the MFU, the split of 1 + 2 + 1 seconds. */
  napkin_series_append (rate, 1, 1e9);
  napkin_series_append (rate, 10, 2e9);
  napkin_throughput_plot_set_series (throughput, rate);
  napkin_throughput_plot_set_mfu (throughput, 0.002);
  napkin_throughput_plot_set_split (throughput, 1, 2, 1);
  assert_has (description_of (throughput), "at step 10");
  assert_has (description_of (throughput), "MFU 0.20 %");
  assert_has (description_of (throughput), "forward 25 % · backward 50 % · update 25 %");
  napkin_series_append (rate, 11, 3e9);
  assert_has (description_of (throughput), "at step 11");

  /* Loss scale: 2^11 at the last step, 3 skipped so far. */
  napkin_series_append (scale, 1, 1024);
  napkin_series_append (scale, 5, 2048);
  napkin_series_append (skipped, 4, 3);
  napkin_scale_plot_set_series (scale_plot, scale, skipped);
  assert_has (description_of (scale_plot), "2^11 at step 5; 3 steps skipped");

  /* Memory by bucket: the last step's bytes; 1024 B is "1 KiB" however it is rounded. */
  for (guint b = 1; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    buckets[b] = napkin_series_new_sharing_x (params);
  for (guint i = 1; i <= 3; i++)
    {
      napkin_series_append (params, i, 1024.0 * i);
      for (guint b = 1; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
        napkin_series_append (buckets[b], i, 0);
    }
  napkin_memory_plot_set_series (memory, buckets);
  assert_has (description_of (memory), "At step 3:");
  assert_has (description_of (memory), "Parameters 3 KiB");
  for (guint b = 1; b < NAPKIN_MEMORY_PLOT_N_BUCKETS; b++)
    g_object_unref (buckets[b]);

  /* Histogram: bins i and j cover 2^(i + MIN_EXP) up to 2^(j + 1 + MIN_EXP). */
  h->step = 7;
  g_strlcpy (h->name, "final.weight", sizeof h->name);
  h->scale = 1;
  h->total = 5;
  h->bins[-NK_TRAIN_HISTOGRAM_MIN_EXP - 3] = 2;   /* 2^-3 ≤ |x| < 2^-2 */
  h->bins[-NK_TRAIN_HISTOGRAM_MIN_EXP + 1] = 3;   /* 2^1 ≤ |x| < 2^2 */
  napkin_histogram_plot_set_histogram (histogram, h);
  assert_has (description_of (histogram), "Values of final.weight, step 7");
  assert_has (description_of (histogram), "2^-3 to 2^2");

  /* The stacked bar: each part's legend and its share, 3 of 4 and 1 of 4. */
  napkin_stacked_bar_set_parts (bar, 2, parts, labels);
  assert_has (description_of (bar), "Compute 3 s (75 %); Bubble 1 s (25 %)");

  g_assert_finalize_object (throughput);
  g_assert_finalize_object (scale_plot);
  g_assert_finalize_object (memory);
  g_assert_finalize_object (histogram);
  g_assert_finalize_object (bar);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  /* GTK's test backend keeps every widget's accessible state; the suite's
   * GTK_A11Y=none keeps none. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  app = napkin_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/ui/a11y/walker-catches", test_walker_catches);
  g_test_add_func ("/ui/a11y/tree/window", test_tree_window);
  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ui/a11y/tree/%s", page_names[i]);

      g_test_add_data_func (path, page_names[i], test_tree);
    }
  g_test_add_func ("/ui/a11y/min-width", test_min_width);
  g_test_add_func ("/ui/a11y/chart-descriptions", test_chart_descriptions);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
