/* nk-i18n.h: where the app and the CLI find their translations
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
const char *nk_i18n_init (void);

G_END_DECLS
