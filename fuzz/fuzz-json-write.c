/* fuzz-json-write.c: libFuzzer target: any bytes as a string Napkin writes into JSON
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every JSON writer goes through nk-json: strings written by hand through
 * nk_json_append_string(), documents built with json-glib through
 * nk_json_node_to_data(). Whatever bytes a program, a file name or a sampled text
 * holds, both must give strict RFC 8259 JSON (checked by tests/common's checker,
 * which shares no code with the writer), and json-glib must read the string back.
 */
#include "config.h"

#include "fuzz-common.h"
#include "nk-json.h"
#include "nk-test-json.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A private copy, so ASan sees reads past the end as overflows. */
  g_autofree char *copy = g_memdup2 (data, size);
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr(GString) out = g_string_new ("[");
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *line = NULL, *pretty = NULL;
  gsize pretty_len = 0;

  /* by hand, NUL bytes included */
  nk_json_append_string (out, copy, (gssize) size);
  g_string_append_c (out, ']');
  g_assert (nk_test_json_is_strict (out->str, out->len, NULL));
  g_assert (json_parser_load_from_data (parser, out->str, (gssize) out->len, NULL));

  /* through json-glib's builder (which ends a string at its first NUL) */
  json_builder_begin_object (b);
  json_builder_set_member_name (b, text);
  json_builder_add_string_value (b, text);
  json_builder_set_member_name (b, "x");
  json_builder_add_double_value (b, (double) size * 1e18);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  line = nk_json_to_line (b);
  g_assert (nk_test_json_is_strict (line, strlen (line), NULL));
  pretty = nk_json_node_to_data (root, TRUE, &pretty_len);
  g_assert (nk_test_json_is_strict (pretty, pretty_len, NULL));
  return 0;
}
