/* nk-units.h: numbers as people type them ("70B", "15T", "7e10") and as they read them
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

#define NK_UNITS_ERROR (nk_units_error_quark ())

/**
 * NkUnitsError:
 * @NK_UNITS_ERROR_EMPTY: nothing but spaces was entered
 * @NK_UNITS_ERROR_INVALID: the text is not a number with an optional K/M/B/G/T suffix
 * @NK_UNITS_ERROR_RANGE: the number is beyond the range of a double ("1e400")
 *
 * Why nk_units_parse() refused a text.
 */
typedef enum {
  NK_UNITS_ERROR_EMPTY,
  NK_UNITS_ERROR_INVALID,
  NK_UNITS_ERROR_RANGE,
} NkUnitsError;

NK_AVAILABLE_IN_ALL
GQuark   nk_units_error_quark       (void);

NK_AVAILABLE_IN_ALL
gboolean nk_units_parse             (const char  *text,
                                     double      *out_value,
                                     GError     **error);
NK_AVAILABLE_IN_ALL
char    *nk_units_format_bytes      (double       bytes);
NK_AVAILABLE_IN_ALL
char    *nk_units_format_sci        (double       value,
                                     int          digits);
NK_AVAILABLE_IN_ALL
char    *nk_units_format_duration   (double       seconds);
NK_AVAILABLE_IN_ALL
char    *nk_units_format_rate       (double       flops_per_s);

G_END_DECLS
