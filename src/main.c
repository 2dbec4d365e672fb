/* main.c: starts Napkin
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-application.h"
#include "nk-blas.h"
#include "nk-i18n.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(NapkinApplication) app = NULL;

  nk_blas_reexec_if_kernels_weak (argv);
  nk_i18n_init ();
  textdomain (GETTEXT_PACKAGE);

  app = napkin_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
