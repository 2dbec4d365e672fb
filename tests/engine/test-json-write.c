/* test-json-write.c: every JSON string Napkin writes is JSON, whatever bytes it holds
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Issue 21, item 13: json-glib 1.6's generator leaves 0x1f raw inside a string and
 * copies invalid UTF-8 through, so `tensor --json` and `sample --json` printed lines
 * no strict parser reads. Oracles: RFC 8259 section 7's escapes, written out by hand
 * below; section 8.1 (UTF-8 only) with the replacement rule stated in nk-json.c (one
 * U+FFFD per byte that is not part of well-formed UTF-8, Unicode table 3-7); and the
 * strict checker of tests/common, written from the RFC's grammar alone.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "nk-json.h"
#include "nk-safetensors.h"
#include "nk-test-json.h"

#define FFFD "\357\277\275"

static void
assert_strict (const char *text,
               gsize       length)
{
  gsize where = 0;

  if (!nk_test_json_is_strict (text, length, &where))
    {
      g_autofree char *raw = g_strndup (text, length);
      g_autofree char *shown = g_strescape (raw, NULL);

      g_error ("not strict JSON at byte %" G_GSIZE_FORMAT ": %s", where, shown);
    }
}

/* The checker is what the other tests stand on: it must refuse what json-glib 1.6
 * writes for a 0x1f and for invalid UTF-8, and what a lenient parser lets by. */
static void
test_checker (void)
{
  static const char *const good[] = {
    /* RFC 8259, section 13 */
    "{\"Image\": {\"Width\": 800, \"Height\": 600, \"Title\": \"View from 15th Floor\", "
    "\"Thumbnail\": {\"Url\": \"http://www.example.com/image/481989943\", \"Height\": 125, "
    "\"Width\": 100}, \"Animated\" : false, \"IDs\": [116, 943, 234, 38793]}}",
    "[{\"precision\": \"zip\", \"Latitude\": 37.7668, \"Longitude\": -122.3959}]",
    "\"Hello world!\"", "42", "true", " null ", "-0", "0.5e-3", "1E+9", "[]", "{}",
    "\"\\ud83d\\ude00 \\u00e9 \\/ \\b\\f\\n\\r\\t \\\" \\\\\"",
    "\"\303\251 \342\202\254 \360\237\230\200 \177\"",
  };
  static const struct { const char *text; gsize length; } bad[] = {
    { "\"\037\"", 3 }, { "\"\001\"", 3 }, { "\"a\tb\"", 5 }, { "\"\0\"", 3 },
    { "\"\377\"", 3 }, { "\"\303\"", 3 }, { "\"\300\200\"", 4 }, { "\"\355\240\200\"", 5 },
    { "\"\364\220\200\200\"", 6 }, { "\"\342\202\"", 4 },
    { "6e+18.0", 7 }, { "01", 2 }, { "1.", 2 }, { ".5", 2 }, { "+1", 2 }, { "NaN", 3 },
    { "\"\\x41\"", 6 }, { "\"\\u12\"", 6 }, { "\"\\udc00\"", 8 }, { "\"\\ud800x\"", 9 },
    { "[1,]", 4 }, { "{\"a\":1,}", 8 }, { "{a:1}", 5 }, { "1 2", 3 }, { "", 0 },
    { "\"open", 5 }, { "[", 1 }, { "tru", 3 },
  };
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *raw = NULL, *shown = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    assert_strict (good[i], strlen (good[i]));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    if (nk_test_json_is_strict (bad[i].text, bad[i].length, NULL))
      g_error ("the checker took bad case %u", i);

  /* json-glib 1.6 itself: a 0x1f goes through raw */
  json_node_set_string (node, "unit\037separator");
  json_generator_set_root (generator, node);
  raw = json_generator_to_data (generator, NULL);
  shown = g_strescape (raw, NULL);
  g_test_message ("json-glib wrote: %s", shown);
  g_assert_false (nk_test_json_is_strict (raw, strlen (raw), NULL));
}

/* RFC 8259, section 7: the two-character escapes where JSON has them, \u00XX for
 * the other control characters; DEL needs none. */
static const char *const control_escapes[0x20] = {
  "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
  "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
  "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
  "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
};

static void
test_escape_controls (void)
{
  for (guint c = 0; c <= 0x7f; c++)
    {
      const char in[3] = { 'a', (char) c, 'z' };
      g_autoptr(GString) out = g_string_new (NULL);
      g_autofree char *want = NULL;

      nk_json_append_string (out, in, 3);
      if (c < 0x20)
        want = g_strdup_printf ("\"a%sz\"", control_escapes[c]);
      else if (c == '"' || c == '\\')
        want = g_strdup_printf ("\"a\\%cz\"", c);
      else
        want = g_strdup_printf ("\"a%cz\"", c);
      g_assert_cmpuint (out->len, ==, strlen (want));
      g_assert_cmpmem (out->str, out->len, want, strlen (want));
      assert_strict (out->str, out->len);
    }
  {
    g_autoptr(GString) out = g_string_new ("[");

    nk_json_append_string (out, "nul-terminated \037", -1);
    g_string_append_c (out, ']');
    g_assert_cmpstr (out->str, ==, "[\"nul-terminated \\u001f\"]");
  }
}

/* Each byte that is not part of well-formed UTF-8 becomes one U+FFFD; valid text,
 * up to four-byte characters, stays as it is. */
static void
test_escape_invalid_utf8 (void)
{
  static const struct { const char *in; const char *want; } cases[] = {
    { "\377", FFFD },
    { "a\303", "a" FFFD },
    { "\303(", FFFD "(" },
    { "\300\200", FFFD FFFD },                        /* overlong NUL */
    { "\355\240\200", FFFD FFFD FFFD },               /* a surrogate, U+D800 */
    { "\364\220\200\200", FFFD FFFD FFFD FFFD },      /* above U+10FFFF */
    { "\342\202", FFFD FFFD },                        /* a cut-off euro sign */
    { "\200x\277", FFFD "x" FFFD },                   /* lone continuation bytes */
    { "\303\251 \342\202\254 \360\237\230\200", "\303\251 \342\202\254 \360\237\230\200" },
    { "\357\277\275", FFFD },                         /* U+FFFD itself */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      g_autofree char *want = g_strdup_printf ("\"%s\"", cases[i].want);

      nk_json_append_string (out, cases[i].in, -1);
      g_assert_cmpstr (out->str, ==, want);
      assert_strict (out->str, out->len);
    }
}

/* Every byte 0x01..0x1f, DEL, invalid UTF-8, quotes and backslashes, in a member
 * name and a value, through the builder-and-generator path every CLI --json output
 * and run-folder file takes: strict JSON, which json-glib reads back as the text
 * with each invalid byte replaced. */
static void
test_generator (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) want = g_string_new (NULL);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL, *pretty = NULL;
  gsize pretty_len = 0;
  JsonObject *object;

  for (guint c = 1; c < 0x20; c++)
    g_string_append_c (text, (char) c);
  g_string_append (text, "\177\"\\\377\303(e\342\202");
  g_string_append (want, text->str);
  g_string_truncate (want, 0x1f + 3);
  g_string_append (want, FFFD FFFD "(e" FFFD FFFD);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, text->str);
  json_builder_add_string_value (b, text->str);
  json_builder_set_member_name (b, "n");
  json_builder_add_double_value (b, 6e18);
  json_builder_end_object (b);
  root = json_builder_get_root (b);

  line = nk_json_to_line (b);
  assert_strict (line, strlen (line));
  g_assert_null (strchr (line, '\n'));
  pretty = nk_json_node_to_data (root, TRUE, &pretty_len);
  g_assert_cmpuint (pretty_len, ==, strlen (pretty));
  assert_strict (pretty, pretty_len);

  g_assert_true (json_parser_load_from_data (parser, line, -1, &error));
  g_assert_no_error (error);
  object = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (object, want->str), ==, want->str);
  g_assert_cmpfloat (json_object_get_double_member (object, "n"), ==, 6e18);
}

/* A safetensors header is JSON that Rust's serde_json reads: names and metadata
 * (UTF-8, the writer's contract) with control characters too. */
static void
test_safetensors_header (void)
{
  g_autoptr(NkSafetensorsWriter) writer = nk_safetensors_writer_new ();
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *data;
  const float one = 1.0f;
  guint64 n;

  nk_safetensors_writer_add (writer, "w\037", NK_DTYPE_F32, 1, (const gint64[]) { 1 }, &one);
  nk_safetensors_writer_set_metadata (writer, "config", "{\"text\": \"a\037b.txt\"}");
  nk_safetensors_writer_set_metadata (writer, "k\001", "\t\177\342\202\254");
  bytes = nk_safetensors_writer_to_bytes (writer);
  data = g_bytes_get_data (bytes, NULL);
  memcpy (&n, data, 8);
  n = GUINT64_FROM_LE (n);
  g_assert_cmpuint (n + 8, <=, g_bytes_get_size (bytes));
  assert_strict ((const char *) data + 8, n);
}

/* Reading a JSON file back (a run folder's config, meta and plan): an empty file, a
 * FIFO, /dev/null and a folder are each one sentence naming the path, with no
 * json-glib critical (the tests run with fatal warnings) and no wait on the FIFO. */
static void
test_load_file_refusals (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nk-json-load-XXXXXX", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty.json", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_autofree char *good = g_build_filename (dir, "good.json", NULL);
  const char *paths[] = { empty, fifo, "/dev/null", dir };

  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      g_autofree char *name = g_filename_display_name (paths[i]);

      g_assert_false (nk_json_parser_load_file (parser, paths[i], &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, name));
    }

  g_assert_true (g_file_set_contents (good, "{\"step\": 3}", -1, NULL));
  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    g_autoptr(GError) error = NULL;

    g_assert_true (nk_json_parser_load_file (parser, good, &error));
    g_assert_no_error (error);
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)),
                                                 "step"), ==, 3);
  }
  g_unlink (empty);
  g_unlink (fifo);
  g_unlink (good);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/json/checker", test_checker);
  g_test_add_func ("/engine/json/escape/controls", test_escape_controls);
  g_test_add_func ("/engine/json/escape/invalid-utf8", test_escape_invalid_utf8);
  g_test_add_func ("/engine/json/generator", test_generator);
  g_test_add_func ("/engine/json/safetensors-header", test_safetensors_header);
  g_test_add_func ("/engine/json/load-file-refusals", test_load_file_refusals);
  return g_test_run ();
}
