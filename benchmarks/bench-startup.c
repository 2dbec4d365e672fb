/* bench-startup.c: Napkin's main() plus a probe: when the first frame is drawn, and RSS once idle
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same start as src/main.c (OpenBLAS re-exec, translations, the application with
 * its command line), linked to the same objects, so the shipping main() carries no
 * benchmark code. Prints "first-frame-ms N" (from the first main(), across the
 * re-exec) and, after three idle seconds, "idle-rss-kib N", then quits.
 * benchmarks/startup runs it under Xvfb for each page.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "napkin-application.h"
#include "nk-blas.h"
#include "nk-i18n.h"

static gint64 started_at;

static gboolean
report_idle_rss (gpointer user_data)
{
  g_autofree char *status = NULL;
  const char *line;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      && (line = strstr (status, "VmRSS:")) != NULL)
    printf ("idle-rss-kib %ld\n", strtol (line + 6, NULL, 10));
  fflush (stdout);
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_REMOVE;
}

static void
first_frame_drawn (GdkFrameClock *clock,
                   gpointer       user_data)
{
  printf ("first-frame-ms %.1f\n", (g_get_monotonic_time () - started_at) / 1000.0);
  fflush (stdout);
  g_signal_handlers_disconnect_by_func (clock, first_frame_drawn, user_data);
  g_timeout_add_seconds (3, report_idle_rss, user_data);
}

static void
window_mapped (GtkWidget *window,
               gpointer   user_data)
{
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint",
                    G_CALLBACK (first_frame_drawn), user_data);
}

static void
window_added (GtkApplication *app,
              GtkWindow      *window)
{
  g_signal_connect (window, "map", G_CALLBACK (window_mapped), app);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(NapkinApplication) app = NULL;

  /* Counted from the first main(), across a re-exec for OpenBLAS. */
  started_at = g_ascii_strtoll (g_getenv ("NAPKIN_STARTED_AT") ?: "0", NULL, 10);
  if (started_at == 0)
    {
      g_autofree char *text = NULL;

      started_at = g_get_monotonic_time ();
      text = g_strdup_printf ("%" G_GINT64_FORMAT, started_at);
      g_setenv ("NAPKIN_STARTED_AT", text, TRUE);
    }
  nk_blas_reexec_if_kernels_weak (argv);
  nk_i18n_init ();
  textdomain (GETTEXT_PACKAGE);

  app = napkin_application_new ();
  g_signal_connect (app, "window-added", G_CALLBACK (window_added), NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
