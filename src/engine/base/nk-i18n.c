/* nk-i18n.c: where the app and the CLI find their translations
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "nk-i18n.h"

/**
 * nk_i18n_init:
 *
 * Binds the `napkin` text domain: to the installed catalogs, or, for a program run
 * from the build tree (the README's `build-aux/setup run`), to the catalogs built
 * there, so `LANGUAGE=de` works before `meson install`.
 *
 * Returns: the directory the catalogs are read from
 */
const char *
nk_i18n_init (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  const char *dir = LOCALEDIR;

  if (exe != NULL && g_str_has_prefix (exe, NK_BUILD_ROOT G_DIR_SEPARATOR_S))
    dir = NK_BUILD_LOCALEDIR;
  bindtextdomain (GETTEXT_PACKAGE, dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  return dir;
}
