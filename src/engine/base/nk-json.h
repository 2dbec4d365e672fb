/* nk-json.h: JSON Lines output shared by napkin-cli and the app's exports
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

NK_AVAILABLE_IN_ALL
void  nk_json_add_double   (JsonBuilder *builder,
                            double       value);
NK_AVAILABLE_IN_ALL
void  nk_json_add_member_double (JsonBuilder *builder,
                                 const char  *name,
                                 double       value);
NK_AVAILABLE_IN_ALL
char *nk_json_to_line      (JsonBuilder *builder);

/* Writing JSON: every string Napkin writes, through a generator or by hand, is
 * escaped here (control characters, invalid UTF-8). */
NK_AVAILABLE_IN_ALL
void  nk_json_append_string (GString    *out,
                             const char *text,
                             gssize      length);
NK_AVAILABLE_IN_ALL
char *nk_json_node_to_data  (JsonNode   *root,
                             gboolean    pretty,
                             gsize      *length);

/**
 * NK_JSON_MAX_DEPTH:
 *
 * How deep JSON a person can hand the app may nest (json-glib recurses without a
 * limit; nk_json_check_depth()).
 */
#define NK_JSON_MAX_DEPTH 512

/**
 * NK_JSON_MAX_FILE_BYTES:
 *
 * The largest JSON file nk_json_parser_load_file() reads (64 MiB): a run folder's
 * config, meta and plan are a few KiB.
 */
#define NK_JSON_MAX_FILE_BYTES (64 * 1024 * 1024)

NK_AVAILABLE_IN_ALL
gboolean  nk_json_check_depth      (const char  *text,
                                    gssize       length,
                                    GError     **error);
NK_AVAILABLE_IN_ALL
gboolean  nk_json_parser_load      (JsonParser  *parser,
                                    const char  *text,
                                    gssize       length,
                                    GError     **error);
NK_AVAILABLE_IN_ALL
gboolean  nk_json_parser_load_file (JsonParser  *parser,
                                    const char  *path,
                                    GError     **error);
NK_AVAILABLE_IN_ALL
JsonNode *nk_json_from_string      (const char  *text,
                                    GError     **error);

G_END_DECLS
