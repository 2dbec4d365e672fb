/* nk-i18n.h: where the app and the CLI find their translations
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

const char *nk_i18n_init (void);

G_END_DECLS
