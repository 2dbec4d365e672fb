/* napkin-strides-page-private.h: what the Strides & views page's tests read and drive
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hooks into the page's widgets and shown text, for tests only: the app talks to the
 * page through its properties and actions.
 */
#pragma once

#include "napkin-strides-page.h"

G_BEGIN_DECLS

const char                *_napkin_strides_page_get_error_text   (NapkinStridesPage *self);
const char                *_napkin_strides_page_get_formula_text (NapkinStridesPage *self);
const char                *_napkin_strides_page_get_lesson       (NapkinStridesPage *self);

G_END_DECLS
