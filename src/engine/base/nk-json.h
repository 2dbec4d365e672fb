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

/* Reading JSON a person can hand the app: nested at most this deep (json-glib
 * recurses without a limit). */
#define NK_JSON_MAX_DEPTH 512

gboolean  nk_json_check_depth      (const char  *text,
                                    gssize       length,
                                    GError     **error);
gboolean  nk_json_parser_load      (JsonParser  *parser,
                                    const char  *text,
                                    gssize       length,
                                    GError     **error);
gboolean  nk_json_parser_load_file (JsonParser  *parser,
                                    const char  *path,
                                    GError     **error);
JsonNode *nk_json_from_string      (const char  *text,
                                    GError     **error);

G_END_DECLS
