/* napkin-pages.h: the page types the window's template names
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void napkin_pages_ensure_types (void);

G_END_DECLS
