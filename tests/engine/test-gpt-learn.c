/* test-gpt-learn.c: issue 12's Done-means run: a small GPT learns the bundled text
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   napkin-cli train --model gpt --n-layer 4 --n-head 4 --n-embd 128 --block-size 64
 *                    --batch 16 --steps 500 --text data/tiny-text.txt
 *
 * Oracles: log 256 = 5.55 nats is the loss of knowing nothing about bytes; the
 * text's own byte pairs and words. The bars are modest so that another BLAS's
 * rounding never fails it: a final loss under 1.5 (measured 0.7406), 85% of the
 * sample's byte pairs found in the text (measured 97%; printable random bytes: 6%)
 * and a quarter of its words (measured 23 of 71). Slow suite: about a minute and a
 * half on two cores.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-test-util.h"

static JsonObject *
last_object (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (g_strstrip ((char *) out), "\n", -1);
  g_autoptr(JsonParser) parser = json_parser_new ();
  guint n = g_strv_length (lines);

  g_assert_cmpuint (n, >, 0);
  g_assert_true (json_parser_load_from_data (parser, lines[n - 1], -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_learns (void)
{
  g_autofree char *dir = g_dir_make_tmp ("napkin-gpt-learn-XXXXXX", NULL);
  g_autofree char *save = g_build_filename (dir, "gpt.safetensors", NULL);
  g_autofree char *text_path = g_build_filename (g_getenv ("NAPKIN_SOURCE_ROOT"), "data", "tiny-text.txt", NULL);
  g_autofree char *text = NULL, *out = NULL, *sample_out = NULL;
  g_autoptr(JsonObject) done = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(GStrv) words = NULL;
  const char *train[] = { "train", "--model", "gpt", "--n-layer", "4", "--n-head", "4", "--n-embd", "128",
                          "--block-size", "64", "--batch", "16", "--steps", "500", "--text", text_path,
                          "--save", save, "--json-lines", NULL };
  const char *sample[] = { "sample", "--from", save, "--prompt", "The ", "--tokens", "400", "--seed", "1",
                           "--json", NULL };
  const char *sampled;
  guint known = 0, total = 0, pairs = 0, n_pairs;
  double loss;

  g_assert_true (g_file_get_contents (text_path, &text, NULL, NULL));
  g_assert_cmpint (nk_test_cli (NULL, train, &out, NULL), ==, 0);
  done = last_object (out);
  g_assert_true (json_object_get_boolean_member (done, "done"));
  loss = json_object_get_double_member (done, "final_loss");
  g_test_message ("final loss %.4f (log 256 = %.4f)", loss, log (256.0));
  g_assert_cmpfloat (loss, <, 1.5);

  g_assert_cmpint (nk_test_cli (NULL, sample, &sample_out, NULL), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, sample_out, -1, NULL));
  sampled = json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)), "text");
  g_test_message ("sample: %s", sampled);
  n_pairs = strlen (sampled) - 1;
  for (guint i = 0; i < n_pairs; i++)
    {
      char pair[3] = { sampled[i], sampled[i + 1], 0 };

      pairs += strstr (text, pair) != NULL;
    }
  g_test_message ("%u of %u byte pairs of the sample are in the text", pairs, n_pairs);
  g_assert_cmpuint (100 * pairs, >=, 85 * n_pairs);
  words = g_strsplit_set (sampled, " \n.,;:", -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (strlen (words[i]) >= 2)
      {
        g_autofree char *needle = g_strdup_printf (" %s", words[i]);

        total++;
        known += strstr (text, needle) != NULL;
      }
  g_test_message ("%u of %u words of the sample are in the text", known, total);
  g_assert_cmpuint (total, >, 20);
  g_assert_cmpuint (4 * known, >=, total);

  g_unlink (save);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/gpt/learns-tiny-text", test_learns);
  return g_test_run ();
}
