/* nk-json.h: JSON Lines output shared by napkin-cli and the app's exports
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

void  nk_json_add_double   (JsonBuilder *builder,
                            double       value);
void  nk_json_add_member_double (JsonBuilder *builder,
                                 const char  *name,
                                 double       value);
char *nk_json_to_line      (JsonBuilder *builder);

G_END_DECLS
