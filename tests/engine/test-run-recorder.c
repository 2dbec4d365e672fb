/* test-run-recorder.c: the one writer of a run folder, with real folders and runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the folder's files read back with json-glib (not the engine's scanner)
 * and compared byte for byte before and after; the trainer's own history of the
 * steps it ran; the file's inode (replaced, not truncated in place); a napkin-cli
 * process holding a folder (another process's lock); and, for the order of
 * checkpoints and steps, metrics.jsonl read from disk at the moment each
 * checkpoint is announced.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "nk-checkpoint.h"
#include "nk-run-recorder.h"
#include "nk-test-util.h"

/* metrics.jsonl with json-glib: the steps in order, the lines that are no object of
 * ours, the closing lines. */
static GArray *
read_steps (const char *dir,
            guint      *out_bad,
            guint      *out_done)
{
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *steps = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint bad = 0, done = 0;

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
          bad++;
          continue;
        }
      o = json_node_get_object (json_parser_get_root (parser));
      if (json_object_has_member (o, "step"))
        {
          gint64 s = json_object_get_int_member (o, "step");

          g_array_append_val (steps, s);
        }
      else if (json_object_has_member (o, "done"))
        done++;
      else
        bad++;
    }
  if (out_bad != NULL)
    *out_bad = bad;
  if (out_done != NULL)
    *out_done = done;
  return steps;
}

static void
assert_steps_once (GArray *steps,
                   gint64  n)
{
  g_assert_cmpuint (steps->len, ==, n);
  for (guint i = 0; i < steps->len; i++)
    g_assert_cmpint (g_array_index (steps, gint64, i), ==, i + 1);
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

/* Runs @config on this thread with a recorder on @dir; the trainer is returned. */
static NkTrainer *
record_run (const char          *dir,
            const NkTrainConfig *config,
            gboolean             expect_ok)
{
  g_autoptr(NkTrainer) trainer = nk_trainer_new (config);
  g_autoptr(NkRunRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;

  recorder = nk_run_recorder_new (trainer, dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (nk_trainer_run_sync (trainer, NULL, &error), ==, expect_ok);
  if (!expect_ok)
    g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_true (nk_run_recorder_close (recorder, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&trainer);
}

/* A run and its resume into the same folder: steps 1..80 once, in order, the
 * values the trainers ran, one closing line, finished. */
static void
test_resume_own_folder (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autoptr(NkTrainConfig) first = nk_test_small_run_config (dir, 40, FALSE);
  g_autoptr(NkTrainConfig) second = nk_test_small_run_config (dir, 80, TRUE);
  g_autoptr(NkTrainer) t1 = NULL, t2 = NULL;
  g_autoptr(GArray) steps = NULL;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *status = NULL;
  NkRunMetricsInfo mi;
  guint bad, done;

  t1 = record_run (dir, first, TRUE);
  t2 = record_run (dir, second, TRUE);
  g_assert_cmpuint (nk_trainer_get_start_step (t2), ==, 40);
  steps = read_steps (dir, &bad, &done);
  assert_steps_once (steps, 80);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (done, ==, 1);
  status = read_status (dir);
  g_assert_cmpstr (status, ==, "finished");
  /* the losses are the two runs' own */
  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_free (mi.device);
  {
    g_autoptr(GArray) ran = nk_trainer_get_history (t2);

    for (guint i = 0; i < ran->len; i++)
      {
        const NkTrainMetrics *m = &g_array_index (ran, NkTrainMetrics, i);

        g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_LOSS, m->step - 1),
                           ==, m->loss);
      }
  }
  nk_test_remove_tree (root);
}

/* Every file under @dir but the lock files (their content is the last locker's id). */
static void
snapshot_into (GHashTable *files,
               const char *root,
               const char *rel)
{
  g_autofree char *path = rel != NULL ? g_build_filename (root, rel, NULL) : g_strdup (root);
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *sub = rel != NULL ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *full = g_build_filename (root, sub, NULL);
      char *data = NULL;
      gsize len;

      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        snapshot_into (files, root, sub);
      else if (strcmp (name, ".napkin-lock") != 0)
        {
          g_assert_true (g_file_get_contents (full, &data, &len, NULL));
          g_hash_table_insert (files, g_steal_pointer (&sub), g_bytes_new_take (data, len));
        }
    }
}

static GHashTable *
snapshot (const char *dir)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_bytes_unref);

  snapshot_into (files, dir, NULL);
  return files;
}

static void
assert_unchanged (GHashTable *before,
                  const char *dir)
{
  g_autoptr(GHashTable) after = snapshot (dir);
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (after), ==, g_hash_table_size (before));
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_test_message ("%s", (const char *) key);
      g_assert_true (g_bytes_equal (g_hash_table_lookup (after, key), value));
    }
}

/* A resume that cannot go on (a changed lr; more steps than asked for) and a run
 * that does not resume leave the folder byte for byte as it was. */
static void
test_refused_untouched (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autoptr(NkTrainConfig) first = nk_test_small_run_config (dir, 30, FALSE);
  g_autoptr(NkTrainConfig) changed = nk_test_small_run_config (dir, 60, TRUE);
  g_autoptr(NkTrainConfig) fewer = nk_test_small_run_config (dir, 20, TRUE);
  g_autoptr(NkTrainConfig) fresh = nk_test_small_run_config (dir, 60, FALSE);
  g_autoptr(NkTrainer) t1 = record_run (dir, first, TRUE);
  g_autoptr(GHashTable) before = snapshot (dir);
  g_autoptr(GError) error = NULL;

  changed->lr = 0.5;
  g_clear_object (&t1);
  t1 = record_run (dir, changed, FALSE);
  g_assert_cmpint (nk_trainer_get_state (t1), ==, NK_TRAINER_STATE_FAILED);
  assert_unchanged (before, dir);
  g_clear_object (&t1);
  t1 = record_run (dir, fewer, FALSE);
  assert_unchanged (before, dir);

  /* a run that starts over is refused before anything is written */
  g_clear_object (&t1);
  t1 = nk_trainer_new (fresh);
  g_assert_null (nk_run_recorder_new (t1, dir, &error));
  g_assert_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_HAS_RUN);
  g_test_message ("%s", error->message);
  assert_unchanged (before, dir);
  nk_test_remove_tree (root);
}

/* A garbage line in the middle and a torn last line: the readers keep every valid
 * step and count both; a resume keeps every valid step up to its checkpoint, the
 * garbage line where it was (counted), and drops the torn line and the steps after
 * the checkpoint. metrics.jsonl is replaced (a new inode), never truncated in
 * place, and a temporary left by an earlier crash is removed. */
static void
test_corrupt_lines (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);
  g_autofree char *stale = g_build_filename (dir, ".metrics.jsonl-AbC123", NULL);
  g_autoptr(NkTrainConfig) first = nk_test_small_run_config (dir, 35, FALSE);
  g_autoptr(NkTrainConfig) second = nk_test_small_run_config (dir, 60, TRUE);
  g_autoptr(NkTrainer) t1 = record_run (dir, first, TRUE);
  g_autoptr(NkTrainer) t2 = NULL;
  g_autoptr(NkTrainHistory) h = nk_train_history_new ();
  g_autoptr(GArray) steps = NULL;
  g_autoptr(GString) edited = g_string_new (NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  NkRunMetricsInfo mi;
  NkTrainMetrics last;
  GStatBuf before, after;
  const char *p, *done;
  guint bad;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  p = text;
  for (guint i = 0; i < 5; i++)
    p = strchr (p, '\n') + 1;
  done = strstr (text, "{\"done\"");
  g_assert_nonnull (done);
  g_string_append_len (edited, text, p - text);
  g_string_append (edited, "\x01garbage, not a step\n");
  g_string_append_len (edited, p, done - p);
  g_string_append (edited, "{\"step\":36,\"loss\":0.12");   /* torn */
  g_assert_true (g_file_set_contents (path, edited->str, -1, NULL));
  g_assert_true (g_file_set_contents (stale, "left by a crash", -1, NULL));

  /* reading: every valid step, both bad lines counted */
  g_assert_true (nk_run_dir_read_metrics (dir, h, &mi, &error));
  g_assert_cmpuint (nk_train_history_get_n (h), ==, 35);
  for (guint i = 0; i < 35; i++)
    g_assert_cmpfloat (nk_train_history_get_value (h, NK_TRAIN_COLUMN_STEP, i), ==, i + 1);
  g_assert_cmpuint (mi.bad_lines, ==, 2);
  g_free (mi.device);
  g_assert_true (nk_run_dir_read_last_step (dir, &last));
  g_assert_cmpuint (last.step, ==, 35);

  /* resuming from the checkpoint of step 35 */
  g_assert_cmpint (g_stat (path, &before), ==, 0);
  t2 = record_run (dir, second, TRUE);
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpuint (before.st_ino, !=, after.st_ino);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  steps = read_steps (dir, &bad, NULL);
  assert_steps_once (steps, 60);
  g_assert_cmpuint (bad, ==, 1);
  nk_test_remove_tree (root);
}

/* The order that makes kill -9 safe: when a checkpoint of step s is announced it is
 * on disk, and metrics.jsonl already holds every step up to s. */
typedef struct {
  const char *dir;
  guint       checked;
} OrderCheck;

static void
on_checkpoint (NkTrainer  *trainer,
               guint64     step,
               const char *path,
               OrderCheck *check)
{
  g_autoptr(GArray) steps = read_steps (check->dir, NULL, NULL);

  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (steps->len, >=, step);
  for (guint i = 0; i < step; i++)
    g_assert_cmpint (g_array_index (steps, gint64, i), ==, i + 1);
  check->checked++;
}

static void
test_checkpoint_after_steps (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autoptr(NkTrainConfig) config = nk_test_small_run_config (dir, 50, FALSE);
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(NkRunRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;
  OrderCheck check = { dir, 0 };

  config->checkpoint_every = 7;
  trainer = nk_trainer_new (config);
  recorder = nk_run_recorder_new (trainer, dir, &error);
  g_assert_no_error (error);
  g_signal_connect (trainer, "checkpoint-written", G_CALLBACK (on_checkpoint), &check);
  g_assert_true (nk_trainer_run_sync (trainer, NULL, &error));
  g_assert_cmpuint (check.checked, ==, 8);   /* 7, 14, ..., 49 and the last, 50 */
  g_assert_true (nk_run_recorder_close (recorder, &error));
  nk_test_remove_tree (root);
}

/* Pausing is a point to be on disk at: once the worker parks, metrics.jsonl holds
 * every step done; a stop then records "stopped" with them. */
static void
test_pause_flushes (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autoptr(NkTrainConfig) config = nk_test_small_run_config (dir, 100000000, FALSE);
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(NkRunRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) steps = NULL;
  g_autofree char *status = NULL;
  guint64 done_steps;

  config->checkpoint_every = 0;
  trainer = nk_trainer_new (config);
  recorder = nk_run_recorder_new (trainer, dir, &error);
  g_assert_no_error (error);
  nk_trainer_start (trainer, NULL, NULL, NULL);
  while (nk_trainer_get_steps_done (trainer) < 200)
    g_usleep (1000);
  nk_trainer_pause (trainer);
  while (!nk_trainer_is_parked (trainer))
    g_usleep (1000);
  done_steps = nk_trainer_get_steps_done (trainer);
  steps = read_steps (dir, NULL, NULL);
  assert_steps_once (steps, done_steps);
  nk_trainer_stop (trainer);
  while (nk_trainer_get_state (trainer) == NK_TRAINER_STATE_PAUSED)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (nk_run_recorder_flush_sync (recorder, &error));
  status = read_status (dir);
  g_assert_cmpstr (status, ==, "stopped");
  g_clear_pointer (&steps, g_array_unref);
  steps = read_steps (dir, NULL, NULL);
  assert_steps_once (steps, done_steps);
  g_assert_true (nk_run_recorder_close (recorder, &error));
  nk_test_remove_tree (root);
}

/* One writer per folder: a second recorder of this process is refused as this
 * process's (not "another process"); a live napkin-cli holding the folder is refused
 * with the lock's sentence naming it; checkpoints in the run folder itself are
 * refused before anything is written. */
static void
test_one_writer (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autofree char *other = g_build_filename (root, "other", NULL);
  g_autoptr(NkTrainConfig) config = nk_test_small_run_config (dir, 10, FALSE);
  g_autoptr(NkTrainer) t1 = nk_trainer_new (config);
  g_autoptr(NkTrainer) t2 = nk_trainer_new (config);
  g_autoptr(NkRunRecorder) r1 = NULL;
  g_autoptr(GError) error = NULL;

  r1 = nk_run_recorder_new (t1, dir, &error);
  g_assert_no_error (error);
  g_assert_null (nk_run_recorder_new (t2, dir, &error));
  g_assert_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_IN_USE);
  g_test_message ("%s", error->message);
  g_assert_null (strstr (error->message, "another process"));
  g_clear_error (&error);
  g_assert_true (nk_run_recorder_close (r1, NULL));

  {
    g_autoptr(NkTrainConfig) inside = nk_test_small_run_config (other, 10, FALSE);
    g_autoptr(NkTrainer) t3 = NULL;

    g_free (inside->checkpoint_dir);
    inside->checkpoint_dir = g_strdup (other);
    t3 = nk_trainer_new (inside);
    g_assert_null (nk_run_recorder_new (t3, other, &error));
    g_assert_error (error, NK_RUN_DIR_ERROR, NK_RUN_DIR_ERROR_CHECKPOINTS);
    g_clear_error (&error);
    g_assert_false (g_file_test (other, G_FILE_TEST_EXISTS));
  }

  if (nk_test_cli_path () != NULL)
    {
      g_autofree char *busy = g_build_filename (root, "busy", NULL);
      g_autofree char *metrics = g_build_filename (busy, "metrics.jsonl", NULL);
      const char *args[] = { "--dim", "4", "--layers", "1", "--steps", "100000000",
                             "--run-dir", busy, NULL };
      g_autoptr(NkTrainConfig) c = nk_test_small_run_config (busy, 10, TRUE);
      g_autoptr(NkTrainer) t4 = nk_trainer_new (c);
      g_autoptr(GSubprocess) process = NULL;
      g_autofree char *pid_text = NULL;

      process = nk_test_spawn_cli ("train", args, G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
      while (!g_file_test (metrics, G_FILE_TEST_EXISTS))
        g_usleep (1000);
      g_assert_null (nk_run_recorder_new (t4, busy, &error));
      g_assert_error (error, NK_CHECKPOINT_ERROR, NK_CHECKPOINT_ERROR_LOCKED);
      pid_text = g_strdup_printf ("in use by process %s", g_subprocess_get_identifier (process));
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, pid_text));
      g_subprocess_send_signal (process, SIGKILL);
      g_assert_true (g_subprocess_wait (process, NULL, NULL));
      g_assert_true (g_subprocess_get_if_signaled (process));
    }
  nk_test_remove_tree (root);
}

/* A folder that cannot take more bytes (a file size limit, as a full disk) ends the
 * run as FAILED with a sentence naming the folder, never a crash; the steps that
 * were written stay readable, and meta.json says failed. */
static void
test_write_fails (void)
{
  g_autofree char *root = nk_test_make_temp_dir ("test-run-recorder");
  g_autofree char *dir = g_build_filename (root, "run", NULL);
  g_autoptr(NkTrainConfig) config = nk_test_small_run_config (dir, 100000, FALSE);
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(NkRunRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) record_error = NULL;
  g_autoptr(GArray) steps = NULL;
  g_autofree char *status = NULL;
  struct rlimit saved, small;
  void (*old_handler) (int);

  config->checkpoint_every = 0;
  g_free (config->checkpoint_dir);
  config->checkpoint_dir = NULL;
  trainer = nk_trainer_new (config);
  recorder = nk_run_recorder_new (trainer, dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  small = saved;
  small.rlim_cur = 64 * 1024;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  g_assert_false (nk_trainer_run_sync (trainer, NULL, &error));
  g_assert_false (nk_run_recorder_close (recorder, &record_error));
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  signal (SIGXFSZ, old_handler);

  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, dir));
  g_assert_cmpstr (error->message, ==, record_error->message);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FAILED);
  g_assert_cmpuint (nk_trainer_get_steps_done (trainer), <, 100000);
  steps = read_steps (dir, NULL, NULL);
  g_assert_cmpuint (steps->len, >, 0);
  for (guint i = 0; i < steps->len; i++)
    g_assert_cmpint (g_array_index (steps, gint64, i), ==, i + 1);
  status = read_status (dir);
  g_assert_cmpstr (status, ==, "failed");
  nk_test_remove_tree (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/run-recorder/resume-own-folder", test_resume_own_folder);
  g_test_add_func ("/engine/run-recorder/refused-untouched", test_refused_untouched);
  g_test_add_func ("/engine/run-recorder/corrupt-lines", test_corrupt_lines);
  g_test_add_func ("/engine/run-recorder/checkpoint-after-steps", test_checkpoint_after_steps);
  g_test_add_func ("/engine/run-recorder/pause-flushes", test_pause_flushes);
  g_test_add_func ("/engine/run-recorder/one-writer", test_one_writer);
  g_test_add_func ("/engine/run-recorder/write-fails", test_write_fails);
  return g_test_run ();
}
