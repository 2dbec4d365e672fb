/* napkin-formats-page-private.h: what the Number formats page's tests read and drive
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hooks into the page's widgets and shown text, for tests only: the app talks to the
 * page through its properties and actions.
 */
#pragma once

#include "napkin-formats-page.h"

G_BEGIN_DECLS

const char *_napkin_formats_page_get_error      (NapkinFormatsPage *self);
char       *_napkin_formats_page_dup_row_field  (NapkinFormatsPage *self,
                                                 const char        *dtype_name,
                                                 const char        *field);

G_END_DECLS
