/* nk-test-json.h: a strict RFC 8259 checker for the JSON Napkin writes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * json-glib's parser is lenient (it reads a raw 0x1f or invalid UTF-8 inside a
 * string), so the tests of every JSON writer check its output with this checker,
 * written from RFC 8259's grammar alone and sharing no code with the writers.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether @text (@length bytes) is exactly one JSON text by RFC 8259: the grammar of
 * section 2-7 (no raw control character in a string, only the eight short escapes
 * and \uXXXX, numbers without leading zeros or a bare '.'), UTF-8 as section 8.1
 * demands (no overlong form, no surrogate, nothing above U+10FFFF), and a \u escape
 * of a surrogate only as a high-low pair. On FALSE, *@where (optional) is the
 * offset of the first byte that breaks it. */
gboolean nk_test_json_is_strict (const char *text,
                                 gsize       length,
                                 gsize      *where);

/* Each line of @text (@length bytes, lines ending in '\n') is a strict JSON text;
 * fails the test naming the line and the offset otherwise. Returns the line count. */
guint    nk_test_json_assert_lines (const char *text,
                                    gsize       length);

G_END_DECLS
