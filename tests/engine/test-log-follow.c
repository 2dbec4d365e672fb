/* test-log-follow.c: logs followed while a real process writes them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A writer process (log-writer.c) appends each engine's lines to a real file, line
 * by line with pauses, one line in two halves, a TensorBoard event file record by
 * record (one record in two halves), truncates it, rotates it, writes the end line;
 * an NkLogFollower (or napkin-cli import --follow) reads it meanwhile. Oracle: the
 * steps the writer wrote (this file composes them from the engines' format strings,
 * quoted above each writer, with its own numbers), never the parser's output: every
 * step once, in order, and no line skipped that the writer did not mean to be. Live,
 * without a clock: after each step's line the writer waits (a:N) until this test has
 * written to an acknowledgement file that it received that step, so a follower that
 * emitted steps only at the end of the file, or when the writer exits, never gets
 * there (the 20 s guard fails the test); each step is also checked to arrive while
 * the writer still runs (waitpid), and the writer waits to be released after its last
 * line, so the idle and end-line ends are seen while it runs.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "nk-log-follow.h"
#include "nk-test-util.h"

/* A writer process and the follower reading its file. */
typedef struct {
  GPid writer;
  char *ack;                /* how many steps were received, for the writer's a:N */
  gboolean writer_done;
  GArray *steps;            /* NkImportStep, as emitted */
  GArray *alive;            /* gboolean: the writer still ran when the step came */
  GPtrArray *notices;
  NkLogFollowEnd ended;
  gboolean writer_alive_at_end;
  GMainLoop *loop;
} Watch;

static const char *
writer_path (void)
{
  const char *p = g_getenv ("NK_LOG_WRITER");

  g_assert_nonnull (p);
  return p;
}

static GPid
spawn_writer (const char *file,
              GPtrArray  *actions)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GPid pid;

  g_ptr_array_add (argv, (char *) writer_path ());
  g_ptr_array_add (argv, (char *) file);
  for (guint i = 0; i < actions->len; i++)
    g_ptr_array_add (argv, g_ptr_array_index (actions, i));
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_async (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  return pid;
}

/* Whether the writer still runs (reaping it once it has exited). */
static gboolean
writer_running (Watch *w)
{
  int status;

  if (w->writer_done)
    return FALSE;
  if (waitpid (w->writer, &status, WNOHANG) == w->writer)
    {
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
      w->writer_done = TRUE;
      return FALSE;
    }
  return TRUE;
}

static void
step_cb (NkLogFollower      *f,
         const NkImportStep *step,
         Watch              *w)
{
  gboolean alive = writer_running (w);

  g_array_append_val (w->steps, *step);
  g_array_append_val (w->alive, alive);
  if (w->ack != NULL)
    {
      g_autofree char *n = g_strdup_printf ("%u", w->steps->len);

      g_assert_true (g_file_set_contents (w->ack, n, -1, NULL));
    }
}

/* What the writer's last action waits for: released once the follower has ended. */
#define RELEASE 1000000

static void
notice_cb (NkLogFollower *f,
           const char    *sentence,
           Watch         *w)
{
  g_ptr_array_add (w->notices, g_strdup (sentence));
}

static void
ended_cb (NkLogFollower  *f,
          NkLogFollowEnd  reason,
          Watch          *w)
{
  w->ended = reason;
  w->writer_alive_at_end = writer_running (w);
  g_main_loop_quit (w->loop);
}

/* A guard against a follower that never ends: the test fails, it does not time. */
static gboolean
guard_cb (gpointer data)
{
  g_error ("the follower did not end within 20 s");
  return G_SOURCE_REMOVE;
}

static void
watch_clear (Watch *w)
{
  if (w->ack != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (w->ack);

      g_file_set_contents (w->ack, G_STRINGIFY (RELEASE), -1, NULL);
      if (w->writer != 0 && !w->writer_done)
        {
          int status;

          waitpid (w->writer, &status, 0);
          w->writer_done = TRUE;
          g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
        }
      nk_test_remove_tree (dir);
      g_clear_pointer (&w->ack, g_free);
    }
  if (w->writer != 0 && !w->writer_done)
    {
      kill (w->writer, SIGTERM);
      waitpid (w->writer, NULL, 0);
      w->writer_done = TRUE;
    }
  g_clear_pointer (&w->steps, g_array_unref);
  g_clear_pointer (&w->alive, g_array_unref);
  g_clear_pointer (&w->notices, g_ptr_array_unref);
  g_clear_pointer (&w->loop, g_main_loop_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Watch, watch_clear)

/* Starts @actions writing @file (created empty first) and follows @path until the
 * follower ends; @stop_after stops it after that many steps (0: never). */
static NkLogFollower *
follow (Watch       *w,
        const char  *file,
        const char  *path,
        NkLogFormat  format,
        GPtrArray   *actions,
        double       idle)
{
  g_autoptr(GError) error = NULL;
  NkLogFollower *f;
  guint guard;

  *w = (Watch) { 0 };
  w->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  w->alive = g_array_new (FALSE, FALSE, sizeof (gboolean));
  w->notices = g_ptr_array_new_with_free_func (g_free);
  w->loop = g_main_loop_new (NULL, FALSE);
  {
    g_autofree char *ack_dir = nk_test_make_temp_dir ("napkin-follow-ack");

    w->ack = g_build_filename (ack_dir, "ack", NULL);
  }
  g_ptr_array_insert (actions, 0, g_strdup_printf ("A:%s", w->ack));
  g_ptr_array_add (actions, g_strdup ("a:" G_STRINGIFY (RELEASE)));
  if (!g_file_test (file, G_FILE_TEST_EXISTS))
    g_assert_true (g_file_set_contents (file, "", 0, NULL));
  f = nk_log_follower_new (path, format);
  nk_log_follower_set_poll_interval (f, 50);
  nk_log_follower_set_idle_timeout (f, idle);
  g_signal_connect (f, "step", G_CALLBACK (step_cb), w);
  g_signal_connect (f, "notice", G_CALLBACK (notice_cb), w);
  g_signal_connect (f, "ended", G_CALLBACK (ended_cb), w);
  w->writer = spawn_writer (file, actions);
  g_assert_true (nk_log_follower_start (f, &error));
  g_assert_no_error (error);
  guard = g_timeout_add_seconds (20, guard_cb, NULL);
  if (nk_log_follower_get_running (f))
    g_main_loop_run (w->loop);
  g_source_remove (guard);
  return f;
}

/* Every step the writer wrote, once, in order, each while the writer still ran. */
static void
assert_steps (Watch         *w,
              const gint64  *steps,
              const double  *losses,
              guint          n)
{
  g_assert_cmpuint (w->steps->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const NkImportStep *s = &g_array_index (w->steps, NkImportStep, i);

      g_assert_cmpint (s->step, ==, steps[i]);
      g_assert_true (s->present & NK_IMPORT_FIELD_LOSS);
      g_assert_cmpfloat_with_epsilon (s->loss, losses[i], 1e-9 + fabs (losses[i]) * 1e-6);
      g_assert_true (g_array_index (w->alive, gboolean, i));
    }
}

static void
add (GPtrArray  *a,
     const char *format,
     ...) G_GNUC_PRINTF (2, 3);

static void
add (GPtrArray  *a,
     const char *format,
     ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (a, g_strdup_vprintf (format, args));
  va_end (args);
}

/* A line in two halves with a pause between, so that the follower reads the first
 * half alone several times (polls every 50 ms). */
static void
add_split (GPtrArray  *a,
           const char *line)
{
  gsize half = strlen (line) / 2;

  add (a, "t:%.*s", (int) half, line);
  add (a, "s:300");
  add (a, "t:%s", line + half);
}

static char *
temp_file (const char *dir,
           const char *name)
{
  return g_build_filename (dir, name, NULL);
}

/* -- each engine, line by line ------------------------------------------------------- */

/* torchtitan components/metrics.py:527-536 (MetricsProcessor.log):
 *   "step: {step:2}  loss: {loss:8.5f}  grad_norm: {gn:7.4f}  memory: {gib:5.2f}GiB({pct:.2f}%)
 *    tps: {round(tps):,}  tflops: {tflops:,.2f}  mfu: {mfu:.2f}%" with ANSI colours;
 * train.py ends with logger.info("Training completed"). Lines after it are not read. */
static void
test_torchtitan (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *log = temp_file (dir, "train.log");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  const gint64 steps[] = { 1, 2, 3, 4 };
  const double losses[] = { 10.875, 9.5, 8.25, 7.125 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *line =
        g_strdup_printf ("[rank0]:[titan] 2026-11-28 03:00:0%u,123 - root - INFO - \033[31mstep: %2"
                         G_GINT64_FORMAT "  \033[32mloss: %8.5f  \033[33mgrad_norm: %7.4f  "
                         "\033[34mmemory: %5.2fGiB(%.2f%%)  \033[34mtps: %s  \033[36mtflops: %.2f  "
                         "\033[35mmfu: %.2f%%\033[39m\n",
                         i, steps[i], losses[i], 1.25, 38.5, 47.5, "1,234", 123.45, 12.5);
      if (i == 2)
        add_split (a, line);
      else
        add (a, "t:%s", line);
      add (a, "a:%u", i + 1);
    }
  add (a, "t:[rank0]:[titan] 2026-11-28 03:00:05,000 - root - INFO - Training completed\n");
  add (a, "s:100");
  add (a, "t:step: 99  loss: 1.00000  memory: 1.00GiB(1.00%%)  tps: 1  tflops: 1.00  mfu: 1.00%%\n");
  f = follow (&w, log, log, NK_LOG_FORMAT_AUTO, a, 0);
  g_assert_cmpint (w.ended, ==, NK_LOG_FOLLOW_END_RUN_ENDED);
  g_assert_true (w.writer_alive_at_end);
  g_assert_cmpint (nk_log_follower_get_format (f), ==, NK_LOG_FORMAT_TORCHTITAN);
  assert_steps (&w, steps, losses, 4);
  for (guint i = 0; i < 4; i++)
    {
      const NkImportStep *s = &g_array_index (w.steps, NkImportStep, i);

      g_assert_cmpfloat (s->memory_max_bytes, ==, 38.5 * 1073741824.0);
      g_assert_cmpfloat (s->tokens_per_s, ==, 1234);
      g_assert_cmpfloat_with_epsilon (s->mfu, 0.125, 1e-12);
    }
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 0);
  g_assert_cmpuint (w.notices->len, ==, 0);
  nk_test_remove_tree (dir);
}

/* Megatron-LM training.py:3568-3641 (training_log), its report_memory line after the
 * first logged iteration (common_utils.py:321-334, "[Rank N] ... memory (MB) |
 * allocated: | max allocated:"), and "[after training is done] datetime: ..." from
 * print_datetime('after training is done') at the end of pretrain(). */
static void
test_megatron (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *log = temp_file (dir, "megatron.log");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  const gint64 steps[] = { 10, 20, 30 };
  const double losses[] = { 9.25, 8.5, 7.75 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *line =
        g_strdup_printf (" [2026-11-28 03:00:00] iteration %8" G_GINT64_FORMAT "/%8d | consumed samples: %12"
                         G_GINT64_FORMAT " | elapsed time per iteration (ms): %.1f | throughput per GPU "
                         "(TFLOP/s/GPU): %.1f | learning rate: 1.000000E-04 | global batch size:    32 | "
                         "lm loss: %.6E | loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations: %3d | "
                         "number of nan iterations:   0 |\n",
                         steps[i], 30, steps[i] * 32, 1500.0 + i, 400.5, losses[i], 0);
      /* the memory report follows the first iteration line in the same flush */
      if (i == 0)
        add (a, "t:%s[Rank 0] (after 10 iterations) memory (MB) | allocated: 1024.00 | max allocated: 2048.00 | "
             "reserved: 4096.00 | max reserved: 4096.00\n", line);
      else if (i == 1)
        add_split (a, line);
      else
        add (a, "t:%s", line);
      add (a, "a:%u", i + 1);
    }
  add (a, "t:[after training is done] datetime: 2026-11-28 03:00:09 \n");
  f = follow (&w, log, log, NK_LOG_FORMAT_AUTO, a, 0);
  g_assert_cmpint (w.ended, ==, NK_LOG_FOLLOW_END_RUN_ENDED);
  g_assert_true (w.writer_alive_at_end);
  assert_steps (&w, steps, losses, 3);
  g_assert_cmpfloat (g_array_index (w.steps, NkImportStep, 0).memory_max_bytes, ==, 2048.0 * 1048576.0);
  g_assert_cmpfloat_with_epsilon (g_array_index (w.steps, NkImportStep, 1).seconds, 1.501, 1e-12);
  g_assert_cmpfloat (g_array_index (w.steps, NkImportStep, 2).tflops_per_gpu, ==, 400.5);
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 0);
  nk_test_remove_tree (dir);
}

/* DeepSpeed runtime/engine.py:2489 "step={step}, skipped={skipped}, lr={lr}, mom={mom}"
 * then utils/timer.py:265-266 "epoch={}/micro_step={}/global_step={}, RunningAvgSamplesPerSec={},
 * CurrSamplesPerSec={}, MemAllocated={}GB, MaxMemAllocated={}GB" for the same step, and
 * the pipeline engine's "steps: {} loss: {:0.4f} iter time (s): {:0.3f} samples/sec: {:0.3f}"
 * (pipe/engine.py:404-409) for the loss. DeepSpeed writes no end line: idle ends it. */
static void
test_deepspeed (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *log = temp_file (dir, "ds.log");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  const gint64 steps[] = { 100, 200, 300 };
  const double losses[] = { 5.5, 4.25, 3.125 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  for (guint i = 0; i < 3; i++)
    {
      /* a step's three lines in one write (one flush of the engine's stdout) */
      g_autofree char *line =
        g_strdup_printf ("[2026-11-28 03:00:00,000] [INFO] [logging.py:128:log_dist] [Rank 0] step=%" G_GINT64_FORMAT
                         ", skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n"
                         "[2026-11-28 03:00:00,000] [INFO] [timer.py:264:stop] epoch=0/micro_step=%" G_GINT64_FORMAT
                         "/global_step=%" G_GINT64_FORMAT ", RunningAvgSamplesPerSec=63.5, CurrSamplesPerSec=%.1f, "
                         "MemAllocated=1.5GB, MaxMemAllocated=%.2fGB\n"
                         "steps: %" G_GINT64_FORMAT " loss: %0.4f iter time (s): %0.3f samples/sec: %0.3f\n",
                         steps[i], steps[i], steps[i], 60.0 + i, 2.0 + i, steps[i], losses[i], 0.5, 64.0);
      if (i == 1)
        add_split (a, line);
      else
        add (a, "t:%s", line);
      add (a, "a:%u", i + 1);
    }
  f = follow (&w, log, log, NK_LOG_FORMAT_AUTO, a, 0.8);
  g_assert_cmpint (w.ended, ==, NK_LOG_FOLLOW_END_IDLE);
  /* the writer waits to be released after its last line: idle ended it meanwhile */
  g_assert_true (w.writer_alive_at_end);
  assert_steps (&w, steps, losses, 3);
  for (guint i = 0; i < 3; i++)
    {
      const NkImportStep *s = &g_array_index (w.steps, NkImportStep, i);

      g_assert_cmpfloat (s->samples_per_s, ==, 60.0 + i);
      g_assert_cmpfloat (s->memory_max_bytes, ==, (2.0 + i) * 1073741824.0);
      g_assert_cmpfloat (s->seconds, ==, 0.5);
    }
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 0);
  nk_test_remove_tree (dir);
}

/* nanoGPT train.py:327: print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms,
 * mfu {running_mfu*100:.2f}%"); truncated mid-run (the file rewritten from its start):
 * said, read again, the steps already emitted not emitted again. */
static void
test_nanogpt_truncated (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *log = temp_file (dir, "nanogpt.log");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  /* written: 0 1 2 | truncated | 1 2 3 4: the restart's 1 and 2 are not emitted again */
  const gint64 written[] = { 0, 1, 2, 1, 2, 3, 4 };
  const gint64 steps[] = { 0, 1, 2, 3, 4 };
  const double losses[] = { 10.5, 9.25, 8.125, 7.0625, 6.5 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  add (a, "t:number of parameters: 10.65M\n");
  for (guint i = 0; i < G_N_ELEMENTS (written); i++)
    {
      double loss = i < 3 ? losses[written[i]] : losses[written[i]] + (written[i] < 3 ? 1 : 0);
      g_autofree char *line = g_strdup_printf ("iter %" G_GINT64_FORMAT ": loss %.4f, time %.2fms, mfu %.2f%%\n",
                                               written[i], loss, 250.0, i == 0 ? -100.0 : 30.0);

      if (i == 3)
        {
          add (a, "T");
          add (a, "s:300");
        }
      if (i == 5)
        add_split (a, line);
      else
        add (a, "t:%s", line);
      if (i < 3 || i > 4)
        add (a, "a:%u", i < 3 ? i + 1 : i - 1);
      else
        add (a, "s:150");
    }
  f = follow (&w, log, log, NK_LOG_FORMAT_AUTO, a, 0.8);
  g_assert_cmpint (w.ended, ==, NK_LOG_FOLLOW_END_IDLE);
  assert_steps (&w, steps, losses, 5);
  g_assert_cmpuint (nk_log_follower_get_replaced_steps (f), ==, 2);
  g_assert_cmpuint (w.notices->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (w.notices, 0), "truncated"));
  /* nanoGPT's first "mfu -100.00%" is its "not measured" */
  g_assert_true (isnan (g_array_index (w.steps, NkImportStep, 0).mfu));
  g_assert_cmpfloat_with_epsilon (g_array_index (w.steps, NkImportStep, 4).mfu, 0.30, 1e-12);
  /* the parameter count line only */
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 1);
  nk_test_remove_tree (dir);
}

/* llm.c train_gpt2.cu:1872 "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e |
 * %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n", rotated (renamed away, a new file created at
 * the path), then its end line printf0("total average iteration time: %f ms\n"). */
static void
test_llmc_rotated (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *log = temp_file (dir, "llmc.log");
  g_autofree char *old = temp_file (dir, "llmc.log.1");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  const gint64 steps[] = { 1, 2, 3, 4, 5 };
  const double losses[] = { 11.0, 10.5, 9.75, 9.0, 8.5 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *line =
        g_strdup_printf ("step %4" G_GINT64_FORMAT "/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| "
                         "lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n",
                         steps[i], 5, losses[i], 0.1, 1.5, -0.2, 6e-4, 120.5, 45.5, 512000.0);
      if (i == 3)
        {
          add (a, "R:%s", old);
          add (a, "s:300");
        }
      if (i == 4)
        add_split (a, line);
      else
        add (a, "t:%s", line);
      add (a, "a:%u", i + 1);
    }
  add (a, "t:total average iteration time: 120.500000 ms\n");
  f = follow (&w, log, log, NK_LOG_FORMAT_AUTO, a, 0);
  g_assert_cmpint (w.ended, ==, NK_LOG_FOLLOW_END_RUN_ENDED);
  g_assert_true (w.writer_alive_at_end);
  assert_steps (&w, steps, losses, 5);
  g_assert_cmpfloat (g_array_index (w.steps, NkImportStep, 4).tokens_per_s, ==, 512000);
  g_assert_cmpuint (w.notices->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (w.notices, 0), "rotated"));
  g_assert_cmpuint (nk_log_follower_get_replaced_steps (f), ==, 0);
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 0);
  nk_test_remove_tree (dir);
}

/* A TensorBoard folder whose event file grows record by record (each record made by
 * the engine's own NkEventWriter), one record written in two halves 300 ms apart; a
 * step's two tags (loss, tokens_per_s) are two records that make one step. */
static void
test_tensorboard (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *events = temp_file (dir, "events.out.tfevents.1764298800.host.1.0");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  const gint64 steps[] = { 1, 2, 3, 4 };
  const double losses[] = { 4.5, 3.25, 2.125, 1.0625 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  for (guint i = 0; i < 4; i++)
    {
      /* a step's two records in one write, as a SummaryWriter's flush writes them */
      add (a, "%c:loss:%" G_GINT64_FORMAT ":%g;tokens_per_s:%" G_GINT64_FORMAT ":%g",
           i == 2 ? 'h' : 'e', steps[i], losses[i], steps[i], 1000.0 * (i + 1));
      add (a, "a:%u", i + 1);
    }
  f = follow (&w, events, dir, NK_LOG_FORMAT_AUTO, a, 0.8);
  g_assert_cmpint (w.ended, ==, NK_LOG_FOLLOW_END_IDLE);
  g_assert_cmpint (nk_log_follower_get_format (f), ==, NK_LOG_FORMAT_TENSORBOARD);
  assert_steps (&w, steps, losses, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (g_array_index (w.steps, NkImportStep, i).tokens_per_s, ==, 1000.0 * (i + 1));
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 0);
  nk_test_remove_tree (dir);
}

/* A line past NK_LOG_IMPORT_MAX_LINE, written in pieces, is skipped unread and
 * counted once; the steps around it are read (bounded memory, as import). */
static void
test_long_line (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *log = temp_file (dir, "nanogpt.log");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *chunk = g_strnfill (40000, 'x');
  const gint64 steps[] = { 1, 2 };
  const double losses[] = { 3.5, 2.5 };
  g_autoptr(NkLogFollower) f = NULL;
  g_auto(Watch) w;

  add (a, "t:iter 1: loss 3.5000, time 10.00ms, mfu 1.00%%\n");
  add (a, "a:1");
  for (guint i = 0; i < 5; i++)
    {
      add (a, "t:%s", chunk);
      add (a, "s:60");
    }
  add (a, "t:\niter 2: loss 2.5000, time 10.00ms, mfu 1.00%%\n");
  f = follow (&w, log, log, NK_LOG_FORMAT_NANOGPT, a, 0.6);
  assert_steps (&w, steps, losses, 2);
  g_assert_cmpuint (nk_log_follower_get_skipped_lines (f), ==, 1);
  nk_test_remove_tree (dir);
}

/* A follower started on a thread with its own thread-default context reads a
 * backlog past NK_LOG_FOLLOW_MAX_READ over several turns of that context, never
 * the global default one (which nobody iterates here), and removes its sources from
 * it. Oracle: the file's lines 1..N, written here. */
typedef struct {
  char *path;
  guint n;
  guint seen;
  gboolean in_order;
  GMainLoop *loop;
} Backlog;

static void
backlog_step_cb (NkLogFollower      *f,
                 const NkImportStep *step,
                 Backlog            *b)
{
  b->seen++;
  if (step->step != (gint64) b->seen)
    b->in_order = FALSE;
}

static void
backlog_ended_cb (NkLogFollower  *f,
                  NkLogFollowEnd  reason,
                  Backlog        *b)
{
  g_main_loop_quit (b->loop);
}

static gpointer
backlog_thread (gpointer data)
{
  Backlog *b = data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(NkLogFollower) f = NULL;
  g_autoptr(GError) error = NULL;

  g_main_context_push_thread_default (context);
  b->loop = g_main_loop_new (context, FALSE);
  f = nk_log_follower_new (b->path, NK_LOG_FORMAT_AUTO);
  nk_log_follower_set_poll_interval (f, 50);
  nk_log_follower_set_idle_timeout (f, 0.5);
  g_signal_connect (f, "step", G_CALLBACK (backlog_step_cb), b);
  g_signal_connect (f, "ended", G_CALLBACK (backlog_ended_cb), b);
  g_assert_true (nk_log_follower_start (f, &error));
  g_assert_no_error (error);
  g_main_loop_run (b->loop);
  g_clear_object (&f);
  g_main_loop_unref (b->loop);
  g_main_context_pop_thread_default (context);
  return NULL;
}

static void
test_thread_context (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autoptr(GString) text = g_string_new (NULL);
  Backlog b = { g_build_filename (dir, "big.log", NULL), 120000, 0, TRUE, NULL };
  GThread *thread;

  for (guint i = 1; i <= b.n; i++)
    g_string_append_printf (text, "iter %u: loss %.4f, time 12.00ms, mfu 20.00%%\n", i, 1.0 + i % 7);
  g_assert_cmpuint (text->len, >, NK_LOG_FOLLOW_MAX_READ);
  g_assert_true (g_file_set_contents (b.path, text->str, text->len, NULL));
  thread = g_thread_new ("follow", backlog_thread, &b);
  g_thread_join (thread);
  g_assert_cmpuint (b.seen, ==, b.n);
  g_assert_true (b.in_order);
  g_free (b.path);
  nk_test_remove_tree (dir);
}

/* A FIFO is refused by name at once, as import refuses it; a folder given a format
 * that writes no folder too. */
static void
test_refused (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow");
  g_autofree char *fifo = temp_file (dir, "pipe");
  g_autoptr(GError) error = NULL;
  g_autoptr(NkLogFollower) f = NULL;
  g_autoptr(NkLogFollower) d = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  f = nk_log_follower_new (fifo, NK_LOG_FORMAT_AUTO);
  g_assert_false (nk_log_follower_start (f, &error));
  g_assert_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_IO);
  g_assert_nonnull (strstr (error->message, fifo));
  g_clear_error (&error);
  d = nk_log_follower_new (dir, NK_LOG_FORMAT_NANOGPT);
  g_assert_false (nk_log_follower_start (d, &error));
  g_assert_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT);
  nk_test_remove_tree (dir);
}

/* -- napkin-cli import --follow ------------------------------------------------------ */

/* nanoGPT lines 1..n, the writer waiting after each for the test to have read its
 * step from the CLI's stdout (a:N), then waiting to be released. */
static GPtrArray *
nanogpt_actions (guint n)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 1; i <= n; i++)
    {
      add (a, "t:iter %u: loss %.4f, time 12.00ms, mfu 20.00%%\n", i, 5.0 - 0.5 * i);
      add (a, "a:%u", i);
    }
  return a;
}

/* Runs napkin-cli import @args while the writer writes @actions to @log: each step
 * line read from its stdout is acknowledged to the writer (so each is printed while
 * the writer runs and before it writes the next, no clock involved); after
 * @sigint_after steps (0: never) the CLI gets SIGINT. Returns what it printed and
 * its exit status; the writer is released and reaped. */
static char *
run_cli_live (const char        *log,
              const char *const *args,
              GPtrArray         *actions,
              guint              sigint_after,
              int               *status)
{
  g_autoptr(GSubprocess) cli = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *ack_dir = nk_test_make_temp_dir ("napkin-follow-ack");
  g_autofree char *ack = g_build_filename (ack_dir, "ack", NULL);
  guint steps = 0;
  Watch w = { 0 };
  int wstatus;

  g_ptr_array_insert (actions, 0, g_strdup_printf ("A:%s", ack));
  g_ptr_array_add (actions, g_strdup ("a:" G_STRINGIFY (RELEASE)));
  if (!g_file_test (log, G_FILE_TEST_EXISTS))
    g_assert_true (g_file_set_contents (log, "", 0, NULL));
  cli = nk_test_spawn_cli ("import", args, G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  w.writer = spawn_writer (log, actions);
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (cli));
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);

      g_assert_no_error (error);
      if (line == NULL)
        break;
      g_string_append_printf (out, "%s\n", line);
      if (g_str_has_prefix (line, "{\"step\""))
        {
          g_autofree char *n = g_strdup_printf ("%u", ++steps);

          g_assert_true (writer_running (&w));
          g_assert_true (g_file_set_contents (ack, n, -1, NULL));
          if (steps == sigint_after)
            g_subprocess_send_signal (cli, SIGINT);
        }
      else
        /* the done object: the writer, waiting to be released, still runs */
        g_assert_true (writer_running (&w));
    }
  g_assert_true (g_subprocess_wait (cli, NULL, &error));
  g_assert_true (g_subprocess_get_if_exited (cli));
  *status = g_subprocess_get_exit_status (cli);
  g_assert_true (g_file_set_contents (ack, G_STRINGIFY (RELEASE), -1, NULL));
  waitpid (w.writer, &wstatus, 0);
  g_assert_true (WIFEXITED (wstatus) && WEXITSTATUS (wstatus) == 0);
  nk_test_remove_tree (ack_dir);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
assert_cli_steps (const char *out,
                  guint       n,
                  const char *ended)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  g_assert_cmpuint (g_strv_length (lines), ==, n + 2);     /* steps, done, "" */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (lines[i], NULL);
      JsonObject *o = json_node_get_object (node);

      g_assert_cmpint (json_object_get_int_member (o, "step"), ==, i + 1);
      g_assert_cmpfloat (json_object_get_double_member (o, "loss"), ==, 5.0 - 0.5 * (i + 1));
    }
  {
    g_autoptr(JsonNode) node = json_from_string (lines[n], NULL);
    JsonObject *o = json_node_get_object (node);

    g_assert_true (json_object_get_boolean_member (o, "done"));
    g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "nanogpt");
    g_assert_cmpint (json_object_get_int_member (o, "steps"), ==, n);
    g_assert_cmpint (json_object_get_int_member (o, "skipped_lines"), ==, 0);
    g_assert_cmpstr (json_object_get_string_member (o, "ended"), ==, ended);
  }
}

/* --idle-exit: the CLI prints each step as its line completes and its done object
 * on its own once the file stops growing, while the writer still runs. */
static void
test_cli_idle_exit (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow-cli");
  g_autofree char *log = temp_file (dir, "train.log");
  g_autoptr(GPtrArray) a = nanogpt_actions (4);
  const char *args[] = { log, "--follow", "--idle-exit", "0.8", NULL };
  g_autofree char *out = NULL;
  int status;

  out = run_cli_live (log, args, a, 0, &status);
  g_assert_cmpint (status, ==, 0);
  assert_cli_steps (out, 4, "idle");
  nk_test_remove_tree (dir);
}

/* SIGINT: the steps so far, then the done object, exit 0. */
static void
test_cli_sigint (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow-cli");
  g_autofree char *log = temp_file (dir, "train.log");
  g_autoptr(GPtrArray) a = nanogpt_actions (3);
  const char *args[] = { log, "--follow", NULL };
  g_autofree char *out = NULL;
  int status;

  out = run_cli_live (log, args, a, 3, &status);
  g_assert_cmpint (status, ==, 0);
  assert_cli_steps (out, 3, "stopped");
  nk_test_remove_tree (dir);
}

/* llm.c train_gpt2.c:1171 "step %d: train loss %f (took %f ms)\n", then the CUDA
 * trainer's end line: the CLI ends on its own without --idle-exit. */
static void
test_cli_end_line (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow-cli");
  g_autofree char *log = temp_file (dir, "llmc.log");
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func (g_free);
  const char *args[] = { log, "--follow", NULL };
  g_autofree char *out = NULL;
  g_autoptr(JsonNode) done = NULL;
  g_auto(GStrv) lines = NULL;
  int status;

  add (a, "t:step 1: train loss 4.500000 (took 10.000000 ms)\n");
  add (a, "a:1");
  add (a, "t:step 2: train loss 4.250000 (took 10.000000 ms)\n");
  add (a, "a:2");
  add (a, "t:total average iteration time: 10.000000 ms\n");
  out = run_cli_live (log, args, a, 0, &status);
  g_assert_cmpint (status, ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  done = json_from_string (lines[2], NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (done), "ended"), ==, "run-ended");
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (done), "steps"), ==, 2);
  nk_test_remove_tree (dir);
}

/* Bad values are usage errors (exit 2) naming the flag; a FIFO is exit 1 naming it. */
static void
test_cli_bad (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-follow-cli");
  g_autofree char *log = temp_file (dir, "train.log");
  g_autofree char *fifo = temp_file (dir, "pipe");
  const char *bad[][5] = {
    { log, "--follow", "--idle-exit", "abc", NULL },
    { log, "--follow", "--idle-exit", "0", NULL },
    { log, "--follow", "--idle-exit", "-3", NULL },
    { log, "--follow", "--idle-exit", "nan", NULL },
    { log, "--idle-exit", "5", NULL },
  };

  g_assert_true (g_file_set_contents (log, "iter 1: loss 1.0000, time 1.00ms, mfu 1.00%\n", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto(NkTestRun) run = { 0 };

      g_assert_true (nk_test_run_cli (&run, "import", bad[i], NULL, 0));
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, "--idle-exit"));
      g_assert_cmpstr (run.out, ==, "");
    }
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  {
    const char *args[] = { fifo, "--follow", "--idle-exit", "1", NULL };
    g_auto(NkTestRun) run = { 0 };

    g_assert_true (nk_test_run_cli (&run, "import", args, NULL, 0));
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, fifo));
  }
  nk_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/log-follow/torchtitan", test_torchtitan);
  g_test_add_func ("/engine/log-follow/megatron", test_megatron);
  g_test_add_func ("/engine/log-follow/deepspeed", test_deepspeed);
  g_test_add_func ("/engine/log-follow/nanogpt-truncated", test_nanogpt_truncated);
  g_test_add_func ("/engine/log-follow/llmc-rotated", test_llmc_rotated);
  g_test_add_func ("/engine/log-follow/tensorboard", test_tensorboard);
  g_test_add_func ("/engine/log-follow/long-line", test_long_line);
  g_test_add_func ("/engine/log-follow/thread-context", test_thread_context);
  g_test_add_func ("/engine/log-follow/refused", test_refused);
  g_test_add_func ("/engine/log-follow/cli/idle-exit", test_cli_idle_exit);
  g_test_add_func ("/engine/log-follow/cli/sigint", test_cli_sigint);
  g_test_add_func ("/engine/log-follow/cli/end-line", test_cli_end_line);
  g_test_add_func ("/engine/log-follow/cli/bad-values", test_cli_bad);
  return g_test_run ();
}
