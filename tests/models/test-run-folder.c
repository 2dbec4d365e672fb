/* test-run-folder.c: NapkinRun writes its folder through the engine's recorder
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app's path, without a display: a NapkinRun runs on the trainer's worker
 * thread, its folder is written by its recorder, then a second NapkinRun resumes
 * into the same folder. Oracles: metrics.jsonl and meta.json read with json-glib;
 * the folder's bytes before and after a refused resume; the runs' own histories.
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "napkin-run.h"
#include "nk-test-util.h"

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  napkin_run_start_finish (NAPKIN_RUN (source), result, NULL);
  *done = TRUE;
}

/* Runs @config as the Training page does, into @dir; returns the run's end state. */
static NkTrainerState
run_in_folder (const char           *dir,
               const NkTrainConfig  *config,
               NapkinRun           **out_run)
{
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);
  g_autoptr(NapkinRun) run = napkin_run_new (trainer, 0);
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;
  NkTrainerState state;

  g_assert_true (napkin_run_write_folder (run, dir, &error));
  g_assert_no_error (error);
  napkin_run_start (run, on_done, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  napkin_run_flush_folder (run);
  state = napkin_run_get_state (run);
  if (out_run != NULL)
    *out_run = g_steal_pointer (&run);
  return state;
}

static GArray *
read_steps (const char *dir,
            guint      *out_bad)
{
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *steps = g_array_new (FALSE, FALSE, sizeof (gint64));

  *out_bad = 0;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;

      if (*lines[i] == '\0')
        continue;
      if (!json_parser_load_from_data (parser, lines[i], -1, NULL)
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          (*out_bad)++;
          continue;
        }
      o = json_node_get_object (json_parser_get_root (parser));
      if (json_object_has_member (o, "step"))
        {
          gint64 s = json_object_get_int_member (o, "step");

          g_array_append_val (steps, s);
        }
    }
  return steps;
}

static char *
read_status (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "meta.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  return g_strdup (json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)),
                                                  "status"));
}

static GHashTable *
snapshot (const char *dir)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_bytes_unref);
  const char *names[] = { "meta.json", "config.json", "plan.json", "metrics.jsonl" };
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      char *data;
      gsize len;

      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      g_hash_table_insert (files, g_strdup (names[i]), g_bytes_new_take (data, len));
    }
  /* the event files by name: a refused resume must not add one */
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "events."))
      g_hash_table_insert (files, g_strdup (name), g_bytes_new (NULL, 0));
  return files;
}

/* A run, a refused resume (another lr) that leaves the folder as it was, and a
 * resume into the same folder: steps 1..80 once, in order, the garbage line put in
 * the middle kept and counted, the folder finished. Before: the refused resume
 * rewrote meta.json as failed and cut metrics.jsonl; the resume dropped every step
 * after the garbage line. */
static void
test_run_and_resume (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-folder");
  g_autofree char *dir = g_build_filename (root, "20261127-120000-1", NULL);
  g_autofree char *metrics = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autoptr(NkTrainConfig) first = nk_test_small_run_config (dir, 40, FALSE);
  g_autoptr(NkTrainConfig) changed = nk_test_small_run_config (dir, 80, TRUE);
  g_autoptr(NkTrainConfig) second = nk_test_small_run_config (dir, 80, TRUE);
  g_autoptr(NapkinRun) resumed = NULL;
  g_autoptr(GHashTable) before = NULL, after = NULL;
  g_autoptr(GArray) steps = NULL;
  g_autoptr(GString) edited = g_string_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *status = NULL;
  GHashTableIter iter;
  gpointer key, value;
  const char *p;
  guint bad;

  g_assert_cmpint (run_in_folder (dir, first, NULL), ==, NK_TRAINER_STATE_FINISHED);
  g_assert_true (g_file_get_contents (metrics, &text, NULL, NULL));
  p = text;
  for (guint i = 0; i < 7; i++)
    p = strchr (p, '\n') + 1;
  g_string_append_len (edited, text, p - text);
  g_string_append (edited, "garbage\n");
  g_string_append (edited, p);
  g_assert_true (g_file_set_contents (metrics, edited->str, -1, NULL));

  before = snapshot (dir);
  changed->lr = 0.25;
  g_assert_cmpint (run_in_folder (dir, changed, NULL), ==, NK_TRAINER_STATE_FAILED);
  after = snapshot (dir);
  g_assert_cmpuint (g_hash_table_size (after), ==, g_hash_table_size (before));
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_test_message ("%s", (const char *) key);
      g_assert_nonnull (g_hash_table_lookup (after, key));
      g_assert_true (g_bytes_equal (g_hash_table_lookup (after, key), value));
    }

  g_assert_cmpint (run_in_folder (dir, second, &resumed), ==, NK_TRAINER_STATE_FINISHED);
  g_assert_cmpuint (nk_trainer_get_start_step (napkin_run_get_trainer (resumed)), ==, 40);
  g_assert_cmpuint (napkin_run_get_last_step (resumed), ==, 80);
  steps = read_steps (dir, &bad);
  g_assert_cmpuint (steps->len, ==, 80);
  for (guint i = 0; i < 80; i++)
    g_assert_cmpint (g_array_index (steps, gint64, i), ==, i + 1);
  g_assert_cmpuint (bad, ==, 1);
  status = read_status (dir);
  g_assert_cmpstr (status, ==, "finished");
  g_clear_object (&resumed);
  nk_test_remove_tree (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/models/run/folder-run-and-resume", test_run_and_resume);
  return g_test_run ();
}
