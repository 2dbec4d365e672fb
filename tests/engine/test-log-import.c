/* test-log-import.c: each engine's log, written here from its format strings, read back
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lines below are produced by C printf equivalents of each engine's own format
 * string (quoted above each writer), with the values chosen here, plus noise: ANSI
 * colours, interleaved ranks, a truncated last line and garbage, which must be counted
 * as skipped. The CLI part runs napkin-cli import on such files.
 */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "nk-log-import.h"
#include "nk-test-util.h"

/* AddressSanitizer maps terabytes of shadow: no address-space limit under it
 * (gcc says so with __SANITIZE_ADDRESS__, clang with __has_feature) */
#if defined (__has_feature)
#define NK_HAS_ASAN __has_feature (address_sanitizer)
#else
#define NK_HAS_ASAN 0
#endif
#include "nk-tfevents.h"

static NkImport *
parse (const char  *text,
       NkLogFormat  format)
{
  g_autoptr(GError) error = NULL;
  NkImport *im = nk_log_import_text (text, strlen (text), format, &error);
  g_assert_no_error (error);
  g_assert_nonnull (im);
  return im;
}

static const NkImportStep *
step_at (NkImport *im,
         guint     i)
{
  g_assert_cmpuint (i, <, im->steps->len);
  return &g_array_index (im->steps, NkImportStep, i);
}

/* torchtitan/components/metrics.py:527-536:
 *   f"{color.red}step: {step:2}  " f"{color.green}loss: {global_avg_loss:8.5f}  "
 *   f"{color.orange}grad_norm: {grad_norm:7.4f}  "
 *   f"{color.turquoise}memory: {max_reserved_gib:5.2f}GiB({max_reserved_pct:.2f}%)  "
 *   f"{color.blue}tps: {round(tps):,}  " f"{color.cyan}tflops: {tflops:,.2f}  "
 *   f"{color.magenta}mfu: {mfu_str}{color.reset}" */
static void
test_torchtitan (void)
{
  g_autoptr(GString) log = g_string_new ("[titan] 2026-11-24 10:00:00,000 - root - INFO - Training starts at step 1\n");
  g_autoptr(NkImport) im = NULL;

  for (int s = 1; s <= 3; s++)
    for (int rank = 0; rank < 2; rank++)   /* torchrun's "[rankN]:" prefixes interleave */
      g_string_append_printf (log,
                              "[rank%d]:[titan] 2026-11-24 10:00:0%d,000 - root - INFO - "
                              "\033[31mstep: %2d  \033[32mloss: %8.5f  \033[33mgrad_norm: %7.4f  "
                              "\033[36mmemory: %5.2fGiB(%.2f%%)  \033[34mtps: %s  "
                              "\033[36mtflops: %.2f  \033[35mmfu: %.2f%%\033[39m\n",
                              rank, s, s, 8.0 - s, 1.5, 30.0 + rank, 38.0, "12,345",
                              1234.5, 41.25);
  g_string_append (log, "[titan] step: 4  loss:  4.00000  grad_norm:  1.0000  memory: 30.00GiB(3");
  g_string_append (log, "\nTraceback garbage line\n");
  im = parse (log->str, NK_LOG_FORMAT_AUTO);
  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_TORCHTITAN);
  g_assert_cmpuint (im->steps->len, ==, 3);
  g_assert_cmpuint (im->skipped_lines, ==, 3);     /* "Training starts", torn, garbage */
  g_assert_cmpint (step_at (im, 2)->step, ==, 3);
  g_assert_cmpfloat_with_epsilon (step_at (im, 2)->loss, 5.0, 1e-12);
  g_assert_cmpfloat (step_at (im, 0)->tokens_per_s, ==, 12345);
  g_assert_cmpfloat (step_at (im, 0)->tflops_per_gpu, ==, 1234.5);
  g_assert_cmpfloat_with_epsilon (step_at (im, 0)->mfu, 0.4125, 1e-12);
  g_assert_cmpfloat (step_at (im, 0)->memory_max_bytes, ==, 31.0 * 1073741824.0);  /* max over ranks */
  g_assert_true (isnan (step_at (im, 0)->seconds));
}

/* megatron/training/training.py:3568-3641: ' iteration {:8d}/{:8d} |'
 * ' consumed samples: {:12d} |' ' elapsed time per iteration (ms): {:.1f} |'
 * ' throughput per GPU (TFLOP/s/GPU): {throughput:.1f} |' ' learning rate: {:.6E} |'
 * ' global batch size: {:5d} |' ' {}: {:.6E} |' (lm loss) ' loss scale: {:.1f} |'
 * ' grad norm: {:.3f} |' ' number of skipped iterations: {:3d} |'
 * ' number of nan iterations: {:3d} |';
 * utils/common_utils.py:321-334: "[Rank {}] {}" with name + ' memory (MB)'
 * " | allocated: {:.2f}" " | max allocated: {:.2f}" " | reserved: …" " | max reserved: …" */
static void
test_megatron (void)
{
  g_autoptr(GString) log = g_string_new ("using world size: 8\n");
  g_autoptr(NkImport) im = NULL;

  for (int it = 10; it <= 30; it += 10)
    {
      g_string_append_printf (log,
                              " [2026-11-24 10:00:00.000000] iteration %8d/%8d | consumed samples: %12d |"
                              " elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f |"
                              " learning rate: %.6E | global batch size: %5d | lm loss: %.6E |"
                              " loss scale: %.1f | grad norm: %.3f | number of skipped iterations: %3d |"
                              " number of nan iterations: %3d |\n",
                              it, 100, it * 256, 1500.0 + it, 180.5, 3e-4, 256, 10.0 - it / 10.0,
                              1.0, 2.5, 0, 0);
      if (it == 10)
        for (int r = 0; r < 2; r++)
          g_string_append_printf (log,
                                  "[Rank %d] (after %d iterations) memory (MB) | allocated: %.2f | max allocated: %.2f"
                                  " | reserved: %.2f | max reserved: %.2f\n",
                                  r, it, 1000.0, 2000.0 + r * 48, 3000.0, 3000.0);
    }
  g_string_append (log, " [2026-11-24] iteration       40/     100 | consumed samples:");
  im = parse (log->str, NK_LOG_FORMAT_AUTO);
  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_MEGATRON);
  g_assert_cmpuint (im->steps->len, ==, 3);
  g_assert_cmpuint (im->skipped_lines, ==, 2);
  g_assert_cmpfloat_with_epsilon (step_at (im, 0)->seconds, 1.510, 1e-12);
  /* its global batch of 256 sequences in 1.510 s, 1.520 s */
  g_assert_cmpfloat_with_epsilon (step_at (im, 0)->samples_per_s, 256 / 1.510, 1e-9);
  g_assert_cmpfloat_with_epsilon (step_at (im, 1)->samples_per_s, 256 / 1.520, 1e-9);
  g_assert_cmpfloat (step_at (im, 0)->tflops_per_gpu, ==, 180.5);
  g_assert_cmpfloat_with_epsilon (step_at (im, 1)->loss, 8.0, 1e-12);
  g_assert_cmpfloat (step_at (im, 0)->memory_max_bytes, ==, 2048.0 * 1048576.0);
  g_assert_true (isnan (step_at (im, 1)->memory_max_bytes));
}

/* deepspeed/runtime/engine.py:2489: f"step={step}, skipped={self.skipped_steps}, lr={lr}, mom={mom}"
 * deepspeed/utils/timer.py:265-266: "epoch={}/micro_step={}/global_step={}, RunningAvgSamplesPerSec={},
 * CurrSamplesPerSec={}, " "MemAllocated={}GB, MaxMemAllocated={}GB" */
static void
test_deepspeed (void)
{
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(NkImport) im = NULL;

  for (int s = 1; s <= 2; s++)
    {
      g_string_append_printf (log, "[2026-11-24 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] "
                              "step=%d, skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n", s);
      g_string_append_printf (log, "[2026-11-24 10:00:00,000] [INFO] [timer.py:264:stop] "
                              "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%s, "
                              "CurrSamplesPerSec=%s, MemAllocated=%sGB, MaxMemAllocated=%sGB\n",
                              s * 4, s, "52.43958", "53.1", "4.5", s == 1 ? "7.25" : "8.0");
    }
  g_string_append (log, "\xff\xfe not utf-8 garbage\n");
  im = parse (log->str, NK_LOG_FORMAT_AUTO);
  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_DEEPSPEED);
  g_assert_cmpuint (im->steps->len, ==, 2);
  g_assert_cmpuint (im->skipped_lines, ==, 1);
  g_assert_cmpfloat (step_at (im, 0)->memory_max_bytes, ==, 7.25 * 1073741824.0);
  g_assert_cmpfloat (step_at (im, 1)->memory_max_bytes, ==, 8.0 * 1073741824.0);
}

/* deepspeed/monitor/csv_monitor.py:59-67: one file per event named with '/' → '_', first
 * row ['step', header] (the name's last part), then [step, value] rows. */
static void
test_deepspeed_csv (void)
{
  g_autofree char *dir = g_dir_make_tmp ("log-import-XXXXXX", NULL);
  g_autofree char *loss = g_build_filename (dir, "Train_Samples_train_loss.csv", NULL);
  g_autofree char *lr = g_build_filename (dir, "Train_Samples_lr.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) im = NULL, one = NULL;

  g_assert_true (g_file_set_contents (loss, "step,train_loss\r\n256,10.5\r\n512,9.75\r\nbad,row\r\n768,9.", -1, NULL));
  g_assert_true (g_file_set_contents (lr, "step,lr\n256,0.0001\n512,0.0002\n", -1, NULL));
  im = nk_log_import (dir, NK_LOG_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_DEEPSPEED);
  g_assert_cmpuint (im->steps->len, ==, 3);
  g_assert_cmpint (step_at (im, 1)->step, ==, 512);
  g_assert_cmpfloat (step_at (im, 1)->loss, ==, 9.75);
  g_assert_cmpfloat (step_at (im, 2)->loss, ==, 9.0);   /* "9." is a number */
  g_assert_cmpuint (im->skipped_lines, ==, 1);
  one = nk_log_import (loss, NK_LOG_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (one->steps->len, ==, 3);
  g_remove (loss);
  g_remove (lr);
  g_rmdir (dir);
}

/* nanoGPT train.py:327: f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%" */
static void
test_nanogpt (void)
{
  const char *log =
    "tokens per iteration will be: 491,520\n"
    "iter 0: loss 10.9862, time 8123.45ms, mfu -100.00%\n"
    "iter 10: loss 9.1234, time 412.30ms, mfu 38.42%\n"
    "step 10: train loss 9.1, val loss 9.2\n"
    "iter 20: loss 8.5, time 41";
  g_autoptr(NkImport) im = parse (log, NK_LOG_FORMAT_AUTO);

  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_NANOGPT);
  g_assert_cmpuint (im->steps->len, ==, 2);
  g_assert_cmpuint (im->skipped_lines, ==, 3);
  g_assert_true (isnan (step_at (im, 0)->mfu));    /* -100% is "not measured yet" */
  g_assert_cmpfloat_with_epsilon (step_at (im, 1)->mfu, 0.3842, 1e-12);
  g_assert_cmpfloat_with_epsilon (step_at (im, 1)->seconds, 0.4123, 1e-12);
  g_assert_cmpfloat_with_epsilon (step_at (im, 1)->loss, 9.1234, 1e-12);

  /* The boxed copy (what a binding gets) holds the same steps once the original is
   * gone. */
  {
    NkImport *copy = g_boxed_copy (NK_TYPE_IMPORT, im);

    g_clear_pointer (&im, nk_import_free);
    g_assert_cmpint (copy->format, ==, NK_LOG_FORMAT_NANOGPT);
    g_assert_cmpuint (copy->steps->len, ==, 2);
    g_assert_cmpuint (copy->skipped_lines, ==, 3);
    g_assert_cmpint (step_at (copy, 1)->step, ==, 10);
    g_assert_cmpfloat_with_epsilon (step_at (copy, 1)->seconds, 0.4123, 1e-12);
    nk_import_free (copy);
  }
}

/* llm.c train_gpt2.cu:1872: "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e |
 *   %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n"; train_gpt2.c:1171: "step %d: train loss %f (took %f ms)\n";
 * llmc/logger.h:53: "s:%d trl:%.4f lr:%.6f norm:%.2f\n", :45 "s:%d tel:%.4f\n" */
static void
test_llmc (void)
{
  g_autoptr(GString) log = g_string_new ("| Parameter             | Value  |\n");
  g_autoptr(NkImport) a = NULL, b = NULL, c = NULL;

  g_string_append_printf (log, "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n",
                          1, 74, 11.0, 0.0, 15.5, 0.0, 6e-4, 250.5, 45.5, 172000.0);
  g_string_append_printf (log, "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n",
                          2, 74, 9.5, -1.2, 10.0, 0.3, 6e-4, 240.0, 47.0, 175000.0);
  a = parse (log->str, NK_LOG_FORMAT_AUTO);
  g_assert_cmpint (a->format, ==, NK_LOG_FORMAT_LLMC);
  g_assert_cmpuint (a->steps->len, ==, 2);
  g_assert_cmpuint (a->skipped_lines, ==, 1);
  g_assert_cmpfloat (step_at (a, 0)->tokens_per_s, ==, 172000);
  g_assert_cmpfloat_with_epsilon (step_at (a, 1)->mfu, 0.47, 1e-12);
  g_assert_cmpfloat_with_epsilon (step_at (a, 1)->seconds, 0.240, 1e-12);

  b = parse ("step 0: train loss 5.356189 (took 1452.121000 ms)\nstep 1: train loss 4.300 (took 1.5 ms)\n",
             NK_LOG_FORMAT_LLMC);
  g_assert_cmpuint (b->steps->len, ==, 2);
  g_assert_cmpfloat_with_epsilon (step_at (b, 0)->seconds, 1.452121, 1e-12);

  c = parse ("s:0 tel:10.9876\ns:0 trl:10.9911 lr:0.000000 norm:14.62\ns:1 trl:10.1 lr:0.000006 norm:9.1\n",
             NK_LOG_FORMAT_AUTO);
  g_assert_cmpint (c->format, ==, NK_LOG_FORMAT_LLMC);
  g_assert_cmpuint (c->steps->len, ==, 2);
  g_assert_cmpuint (c->skipped_lines, ==, 0);
  g_assert_cmpfloat_with_epsilon (step_at (c, 1)->loss, 10.1, 1e-12);
}

static void
test_unknown_and_wrong_format (void)
{
  g_autoptr(GError) error = NULL;
  const char *text = "hello\nworld\n";
  NkImport *im = nk_log_import_text (text, strlen (text), NK_LOG_FORMAT_AUTO, &error);

  g_assert_null (im);
  g_assert_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT);
  g_assert_nonnull (strstr (error->message, "torchtitan, megatron, deepspeed, nanogpt, llmc, tensorboard"));
  g_clear_error (&error);
  text = "iter 1: loss 2.0, time 3.0ms, mfu 4.0%\n";
  im = nk_log_import_text (text, strlen (text), NK_LOG_FORMAT_MEGATRON, &error);
  g_assert_null (im);
  g_assert_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_EMPTY);
}

/* A TensorBoard folder of two ranks with torchtitan's tags (metrics.py:498-514),
 * written with Napkin's writer (its bytes are checked independently in test-tfevents). */
static char *
write_tb_folder (void)
{
  char *dir = g_dir_make_tmp ("log-import-XXXXXX", NULL);

  for (int r = 0; r < 2; r++)
    {
      g_autofree char *sub = g_strdup_printf ("%s/rank_%d", dir, r);
      g_autoptr(GError) error = NULL;
      NkEventWriter *w = nk_event_writer_new (sub, &error);
      g_assert_no_error (error);
      for (int s = 1; s <= 3; s++)
        {
          g_assert_true (nk_event_writer_add_scalar (w, "loss_metrics/global_avg_loss", s, 1e9 + s, 4.0f - s, NULL));
          g_assert_true (nk_event_writer_add_scalar (w, "mfu(%)", s, 1e9 + s, 40.0f, NULL));
          g_assert_true (nk_event_writer_add_scalar (w, "memory/max_reserved(GiB)", s, 1e9 + s, 10.0f + r, NULL));
        }
      g_assert_true (nk_event_writer_close (w, NULL));
    }
  return dir;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_remove (child);
    }
  g_rmdir (path);
}

static void
test_tensorboard_two_ranks (void)
{
  g_autofree char *dir = write_tb_folder ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) im = nk_log_import (dir, NK_LOG_FORMAT_AUTO, &error);

  g_assert_no_error (error);
  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_TENSORBOARD);
  g_assert_cmpuint (im->steps->len, ==, 3);
  g_assert_cmpuint (im->skipped_lines, ==, 0);
  g_assert_cmpfloat (step_at (im, 0)->loss, ==, 3.0);
  g_assert_cmpfloat_with_epsilon (step_at (im, 2)->mfu, 0.40, 1e-7);
  g_assert_cmpfloat (step_at (im, 1)->memory_max_bytes, ==, 11.0 * 1073741824.0);
  remove_tree (dir);
}

/* A TensorBoard run keeps its NaN loss and drops points no run can have (an MFU of
 * 1e38 %, a negative step time), counted as skipped records; a step's other tags
 * are read. Written with Napkin's writer (checked byte for byte in test-tfevents). */
static void
test_tensorboard_bounds (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("log-import-tb-bounds");
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) im = NULL;
  NkEventWriter *w = nk_event_writer_new (dir, &error);

  g_assert_no_error (error);
  g_assert_true (nk_event_writer_add_scalar (w, "loss", 1, 1e9, NAN, NULL));
  g_assert_true (nk_event_writer_add_scalar (w, "loss", 2, 1e9, 2.5f, NULL));
  g_assert_true (nk_event_writer_add_scalar (w, "mfu(%)", 1, 1e9, 40.0f, NULL));
  g_assert_true (nk_event_writer_add_scalar (w, "mfu(%)", 2, 1e9, 1e38f, NULL));
  g_assert_true (nk_event_writer_add_scalar (w, "seconds", 2, 1e9, -0.5f, NULL));
  g_assert_true (nk_event_writer_close (w, NULL));
  im = nk_log_import (dir, NK_LOG_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (im->steps->len, ==, 2);
  g_assert_true (isnan (step_at (im, 0)->loss) && (step_at (im, 0)->present & NK_IMPORT_FIELD_LOSS));
  g_assert_cmpfloat_with_epsilon (step_at (im, 0)->mfu, 0.40, 1e-7);
  g_assert_cmpfloat (step_at (im, 1)->loss, ==, 2.5);
  g_assert_true (isnan (step_at (im, 1)->mfu));
  g_assert_true (isnan (step_at (im, 1)->seconds));
  g_assert_cmpuint (im->rejected_lines, ==, 2);
  g_assert_cmpuint (im->skipped_lines, ==, 2);
  nk_test_remove_tree (dir);
}

/* -- the CLI ------------------------------------------------------------------------ */

static JsonObject *
parse_line (const char *line)
{
  g_autoptr(JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, line, -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (p)));
}

static void
test_cli (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cli-import-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.log", NULL);
  g_autofree char *plan = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_true (g_file_set_contents (log, "iter 1: loss 3.5000, time 250.00ms, mfu 40.00%\nnoise\n"
                                      "iter 2: loss 3.2500, time 200.00ms, mfu 50.00%\n", -1, NULL));
  g_assert_true (g_file_set_contents (bad, "nothing here\n", -1, NULL));
  g_assert_true (g_file_set_contents (plan, "{\"cluster\": {\"time_per_step\": {\"total\": 0.2},"
                                      " \"tokens_per_s\": 5e5, \"mfu_model\": 0.45,"
                                      " \"memory\": {\"per_gpu_max\": 6.4e10}}}", -1, NULL));

  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { log, "--plan", plan, "--json-lines", NULL },
                               &out, NULL), ==, 0);
  lines = g_strsplit (g_strchomp (out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  {
    g_autoptr(JsonObject) o = parse_line (lines[1]);
    JsonObject *p = json_object_get_object_member (o, "predicted");
    g_assert_cmpint (json_object_get_int_member (o, "step"), ==, 2);
    g_assert_cmpfloat (json_object_get_double_member (o, "loss"), ==, 3.25);
    g_assert_cmpfloat (json_object_get_double_member (o, "seconds"), ==, 0.2);
    g_assert_cmpfloat (json_object_get_double_member (o, "mfu"), ==, 0.5);
    g_assert_cmpfloat (json_object_get_double_member (p, "seconds"), ==, 0.2);
    g_assert_cmpfloat (json_object_get_double_member (p, "mfu"), ==, 0.45);
    g_assert_cmpfloat (json_object_get_double_member (p, "memory_max_bytes"), ==, 6.4e10);
    g_assert_false (json_object_has_member (o, "tokens_per_s"));
  }
  {
    g_autoptr(JsonObject) done = parse_line (lines[2]);
    g_assert_true (json_object_get_boolean_member (done, "done"));
    g_assert_cmpstr (json_object_get_string_member (done, "format"), ==, "nanogpt");
    g_assert_cmpint (json_object_get_int_member (done, "steps"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (done, "skipped_lines"), ==, 1);
  }
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { bad, NULL }, &out, NULL), ==, 1);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { log, "--format", "nope", NULL }, &out, NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { NULL }, &out, NULL), ==, 2);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (nk_test_cli ("import", (const char *[]) { log, "--format", "megatron", NULL }, &out, NULL), ==, 1);

  g_remove (log);
  g_remove (bad);
  g_remove (plan);
  g_rmdir (dir);
}


/* A plan as `napkin-cli plan --json` writes it, beside a nanoGPT log: every step
 * carries the plan's step time, tokens/s, MFU and most loaded GPU's memory
 * (oracle: the plan's own JSON, read here). */
static void
test_cli_real_plan (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-import-plan");
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  g_autofree char *plan_path = g_build_filename (dir, "plan.json", NULL);
  const char *plan_args[] = { "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "10B", "--mfu", "auto",
                              "--layers", "12", "--d-model", "768", "--heads", "12", "--vocab", "50304",
                              "--seq", "1024", "--global-batch", "64", "--micro-batch", "8",
                              "--precision", "mixed", "--json", NULL };
  const char *import_args[] = { log, "--plan", plan_path, "--json-lines", NULL };
  g_auto(NkTestRun) plan = { 0 };
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) planned = NULL;
  g_autoptr(JsonObject) first = NULL;
  g_auto(GStrv) lines = NULL;
  JsonObject *predicted;

  if (!nk_test_run_cli (&plan, "plan", plan_args, NULL, 0))
    return;
  g_assert_cmpint (plan.status, ==, 0);
  g_assert_true (g_file_set_contents (plan_path, plan.out, -1, NULL));
  g_assert_true (g_file_set_contents (log, "iter 0: loss 10.9800, time 410.00ms, mfu -100.00%\n"
                                      "iter 1: loss 9.7500, time 400.00ms, mfu 38.00%\n", -1, NULL));
  g_assert_true (nk_test_run_cli (&run, "import", import_args, NULL, 0));
  g_assert_cmpint (run.status, ==, 0);

  planned = parse_line (plan.out);
  lines = g_strsplit (g_strchomp (run.out), "\n", -1);
  first = parse_line (lines[0]);
  predicted = json_object_get_object_member (first, "predicted");
  g_assert_nonnull (predicted);
  g_assert_cmpfloat (json_object_get_double_member (predicted, "seconds"), ==,
                     json_object_get_double_member (json_object_get_object_member (planned, "time_per_step"),
                                                    "total"));
  g_assert_cmpfloat (json_object_get_double_member (predicted, "tokens_per_s"), ==,
                     json_object_get_double_member (planned, "tokens_per_s"));
  /* a nanoGPT log: the plan's MFU on nanoGPT's own FLOP count */
  g_assert_cmpfloat (json_object_get_double_member (predicted, "mfu"), ==,
                     json_object_get_double_member (json_object_get_object_member (planned, "mfu_by_engine"),
                                                    "nanogpt"));
  g_assert_cmpfloat (json_object_get_double_member (predicted, "memory_max_bytes"), ==,
                     json_object_get_double_member (json_object_get_object_member (planned, "memory"),
                                                    "per_gpu_max"));

  /* The done line sets the run's typical step (after the warm-up step 0: 0.4 s,
   * MFU 0.38) beside the plan, and names the quantity farthest from it. */
  {
    g_autoptr(JsonObject) done = parse_line (lines[2]);
    JsonObject *comparison = json_object_get_object_member (done, "comparison");
    double seconds = json_object_get_double_member (predicted, "seconds");
    double mfu = json_object_get_double_member (predicted, "mfu");
    JsonObject *q = json_object_get_object_member (comparison, "seconds");

    g_assert_cmpfloat (json_object_get_double_member (q, "measured"), ==, 0.4);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (q, "ratio"), 0.4 / seconds, 1e-12);
    q = json_object_get_object_member (comparison, "mfu");
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (q, "ratio"), 0.38 / mfu, 1e-12);
    g_assert_false (json_object_has_member (json_object_get_object_member (comparison, "tokens_per_s"),
                                            "measured"));
    g_assert_cmpstr (json_object_get_string_member (comparison, "largest_gap"), ==,
                     fabs (log2 (0.4 / seconds)) > fabs (log2 (0.38 / mfu)) ? "seconds" : "mfu");
  }
  nk_test_remove_tree (dir);
}

/* -- issue 21: what the importer used to drop, misread or hang on ------------------- */

/* A diverged run's losses are kept: Python's f"{x:.4f}" prints float('nan') as "nan"
 * and float('inf') as "inf" (nanoGPT, torchtitan's {:8.5f}), "{:.6E}" as "NAN" and
 * "INF" (Megatron-LM), C's "%7.6f" as "nan", "-nan" or "inf" (llm.c: written here with
 * C's own printf). */
static void
test_nan_and_inf_losses (void)
{
  g_autofree char *llmc = g_strdup_printf ("step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | "
                                           "%.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n"
                                           "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | "
                                           "%.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n",
                                           1, 9, (double) -NAN, 0.0, 1.0, 0.0, 6e-4, 250.0, 40.0, 1000.0,
                                           2, 9, (double) INFINITY, 0.0, 1.0, 0.0, 6e-4, 250.0, 40.0, 1000.0);
  const char *nanogpt = "iter 1: loss nan, time 400.00ms, mfu 38.00%\n"
                        "iter 2: loss inf, time 400.00ms, mfu 38.00%\n"
                        "iter 3: loss 2.5000, time 400.00ms, mfu 38.00%\n";
  const char *megatron = " iteration        1/     100 | consumed samples:          256 |"
                         " elapsed time per iteration (ms): 1500.0 | lm loss: NAN |"
                         " number of skipped iterations:   0 |\n"
                         " iteration        2/     100 | consumed samples:          512 |"
                         " elapsed time per iteration (ms): 1500.0 | lm loss: -INF |"
                         " number of skipped iterations:   0 |\n";
  g_autoptr(NkImport) a = parse (nanogpt, NK_LOG_FORMAT_AUTO);
  g_autoptr(NkImport) b = parse (llmc, NK_LOG_FORMAT_AUTO);
  g_autoptr(NkImport) c = parse (megatron, NK_LOG_FORMAT_AUTO);

  g_assert_cmpuint (a->steps->len, ==, 3);
  g_assert_true (step_at (a, 0)->present & NK_IMPORT_FIELD_LOSS);
  g_assert_true (isnan (step_at (a, 0)->loss));
  g_assert_true (isinf (step_at (a, 1)->loss) && step_at (a, 1)->loss > 0);
  g_assert_cmpfloat (step_at (a, 2)->loss, ==, 2.5);
  g_assert_true (step_at (a, 2)->present & NK_IMPORT_FIELD_LOSS);
  g_assert_cmpint (b->format, ==, NK_LOG_FORMAT_LLMC);
  g_assert_cmpuint (b->steps->len, ==, 2);
  g_assert_true (isnan (step_at (b, 0)->loss) && (step_at (b, 0)->present & NK_IMPORT_FIELD_LOSS));
  g_assert_true (isinf (step_at (b, 1)->loss));
  g_assert_cmpint (c->format, ==, NK_LOG_FORMAT_MEGATRON);
  g_assert_cmpuint (c->steps->len, ==, 2);
  g_assert_true (isnan (step_at (c, 0)->loss) && (step_at (c, 0)->present & NK_IMPORT_FIELD_LOSS));
  g_assert_true (isinf (step_at (c, 1)->loss) && step_at (c, 1)->loss < 0);
}

/* Values no run can have are a line skipped whole, counted and named, as a torn line
 * is skipped: an MFU of 1e38 % (over 100 %), a negative time, a step past 2^53 (which
 * strtoll would have made INT64_MAX). The lines around them are read. */
static void
test_rejected_values (void)
{
  const char *log =
    "iter 1: loss 3.0000, time 400.00ms, mfu 38.00%\n"
    "iter 2: loss 2.9000, time 400.00ms, mfu 1e38%\n"
    "iter 3: loss 2.8000, time -400.00ms, mfu 38.00%\n"
    "iter 99999999999999999999: loss 2.7000, time 400.00ms, mfu 38.00%\n"
    "iter 9007199254740993: loss 2.6000, time 400.00ms, mfu 38.00%\n"
    "iter 9007199254740992: loss 2.5000, time 400.00ms, mfu 100.00%\n";
  const char *titan =
    "step:  1  loss:  3.00000  memory: -1.00GiB(5.00%)  tps: 1,000  tflops: 10.00  mfu: 10.00%\n"
    "step:  2  loss:  3.00000  memory:  1.00GiB(5.00%)  tps: inf  tflops: 10.00  mfu: 10.00%\n"
    "step:  3  loss:  3.00000  memory:  1.00GiB(5.00%)  tps: 1,000  tflops: 10.00  mfu: N/A\n";
  g_autoptr(NkImport) im = parse (log, NK_LOG_FORMAT_AUTO);
  g_autoptr(NkImport) tt = parse (titan, NK_LOG_FORMAT_AUTO);

  g_assert_cmpuint (im->steps->len, ==, 2);
  g_assert_cmpint (step_at (im, 0)->step, ==, 1);
  g_assert_cmpint (step_at (im, 1)->step, ==, G_GINT64_CONSTANT (9007199254740992));   /* 2^53 */
  g_assert_cmpfloat (step_at (im, 1)->mfu, ==, 1.0);
  g_assert_cmpuint (im->rejected_lines, ==, 4);
  g_assert_cmpuint (im->skipped_lines, ==, 4);
  g_assert_cmpstr (im->first_rejected, ==, "line 2: an MFU of 1e38 % is not between 0 and 100 %");

  g_assert_cmpuint (tt->steps->len, ==, 1);
  g_assert_cmpint (step_at (tt, 0)->step, ==, 3);
  g_assert_true (isnan (step_at (tt, 0)->mfu));
  g_assert_cmpuint (tt->rejected_lines, ==, 2);
  g_assert_cmpstr (tt->first_rejected, ==, "line 1: the memory “-1.00” is negative or not a number");
}

/* A crashed run's log padded with NULs where its last blocks never reached the disk,
 * then the restarted run's lines: a NUL run ends a line, as a newline does, and the
 * lines after it are read. A lone CR (a redrawn progress line) ends one too. */
static void
test_nul_bytes (void)
{
  g_autoptr(GString) log = g_string_new ("iter 1: loss 3.0000, time 400.00ms, mfu 38.00%\n");
  g_autoptr(NkImport) im = NULL;

  g_string_append_len (log, "iter 2: loss 2.9000, ti\0\0\0\0", 27);
  for (int i = 0; i < 4096; i++)
    g_string_append_c (log, '\0');
  g_string_append (log, "iter 3: loss 2.8000, time 400.00ms, mfu 38.00%\n");
  g_string_append_len (log, "\0\0iter 4: loss 2.7000, time 400.00ms, mfu 38.00%\r", 50);
  g_string_append (log, "iter 5: loss 2.6000, time 400.00ms, mfu 38.00%\r\n");
  {
    g_autoptr(GError) error = NULL;
    im = nk_log_import_text (log->str, log->len, NK_LOG_FORMAT_AUTO, &error);
    g_assert_no_error (error);
  }
  g_assert_cmpuint (im->steps->len, ==, 4);
  g_assert_cmpint (step_at (im, 1)->step, ==, 3);
  g_assert_cmpfloat (step_at (im, 3)->loss, ==, 2.6);
  g_assert_cmpuint (im->skipped_lines, ==, 1);    /* the torn "iter 2: loss 2.9000, ti" */
  g_assert_cmpuint (im->rejected_lines, ==, 0);
}

/* A restarted run logs its steps again from its last checkpoint: the later lines are
 * the truth and replace the earlier (counted); lines of one step from two ranks in a
 * row still fill one step. */
static void
test_restart (void)
{
  const char *log =
    "iter 0: loss 10.0000, time 400.00ms, mfu -100.00%\n"
    "iter 10: loss 9.0000, time 400.00ms, mfu 38.00%\n"
    "iter 20: loss 8.0000, time 400.00ms, mfu 38.00%\n"
    "iter 30: loss 7.0000, time 400.00ms, mfu 38.00%\n"
    "iter 20: loss 8.5000, time 500.00ms, mfu 30.00%\n"
    "iter 20: loss 8.5000, time 500.00ms, mfu 31.00%\n"
    "iter 30: loss 7.5000, time 500.00ms, mfu 30.00%\n"
    "iter 40: loss 6.5000, time 500.00ms, mfu 30.00%\n";
  g_autoptr(NkImport) im = parse (log, NK_LOG_FORMAT_AUTO);

  g_assert_cmpuint (im->steps->len, ==, 5);
  g_assert_cmpfloat (step_at (im, 1)->loss, ==, 9.0);
  g_assert_cmpfloat (step_at (im, 2)->loss, ==, 8.5);
  g_assert_cmpfloat (step_at (im, 2)->seconds, ==, 0.5);
  g_assert_cmpfloat_with_epsilon (step_at (im, 2)->mfu, 0.30, 1e-12);
  g_assert_cmpfloat (step_at (im, 3)->loss, ==, 7.5);
  g_assert_cmpfloat (step_at (im, 4)->loss, ==, 6.5);
  g_assert_cmpuint (im->replaced_steps, ==, 2);
  g_assert_cmpuint (im->skipped_lines, ==, 0);
}

/* DeepSpeed's pipeline engine (what the DeepSpeed export launches with PP) prints,
 * deepspeed/runtime/pipe/engine.py:404-409 at commit
 * edaa7221267243c7be7fb49c5d5f5c4fb97b4641:
 *   log_str = f'steps: {self.global_steps} loss: {self.agg_train_loss:0.4f} '
 *   (for each additional loss) log_str += f'{loss_name}: {loss_value.item():0.4f} '
 *   log_str += f'iter time (s): {iter_time:0.3f} samples/sec: {tput:0.3f}'
 * after engine.py:3393's _report_progress(global_steps + 1), which logs
 * f"step={step}, skipped={self.skipped_steps}, lr={lr}, mom={mom}" for the same step. */
static void
test_deepspeed_pipe (void)
{
  g_autoptr(GString) log = g_string_new ("[2026-11-24 10:00:00,000] [INFO] [engine.py:100:__init__] CONFIG: micro_batches=8\n");
  g_autoptr(NkImport) im = NULL;

  for (int s = 10; s <= 30; s += 10)
    {
      g_string_append_printf (log, "[2026-11-24 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] "
                              "step=%d, skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n", s);
      g_string_append_printf (log, "steps: %d loss: %0.4f %siter time (s): %0.3f samples/sec: %0.3f\n",
                              s, 11.0 - s / 10.0, s == 20 ? "moe_loss: 0.0123 " : "", 0.512, 500.0);
    }
  im = parse (log->str, NK_LOG_FORMAT_AUTO);
  g_assert_cmpint (im->format, ==, NK_LOG_FORMAT_DEEPSPEED);
  g_assert_cmpuint (im->steps->len, ==, 3);
  g_assert_cmpuint (im->skipped_lines, ==, 1);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpint (step_at (im, i)->step, ==, 10 * (i + 1));
      g_assert_cmpfloat (step_at (im, i)->loss, ==, 10.0 - i);
      g_assert_cmpfloat (step_at (im, i)->seconds, ==, 0.512);
      g_assert_cmpfloat (step_at (im, i)->samples_per_s, ==, 500.0);
    }
}

/* A line past NK_LOG_IMPORT_MAX_LINE is no engine's: skipped unread (no pattern runs
 * over it, though this one starts as a step), counted, and the lines after it are
 * read. */
static void
test_long_line (void)
{
  g_autoptr(GString) log = g_string_new ("iter 1: loss 3.0000, time 400.00ms, mfu 38.00%\n"
                                         "iter 7: loss 3.0000, time 400.00ms, mfu 38.00% ");
  g_autoptr(NkImport) im = NULL;

  for (int i = 0; i < NK_LOG_IMPORT_MAX_LINE / 16; i++)
    g_string_append (log, "iter 7: loss 3, ");
  g_string_append (log, "\niter 2: loss 2.0000, time 400.00ms, mfu 38.00%\n");
  im = parse (log->str, NK_LOG_FORMAT_AUTO);
  g_assert_cmpuint (im->steps->len, ==, 2);
  g_assert_cmpint (step_at (im, 1)->step, ==, 2);
  g_assert_cmpuint (im->skipped_lines, ==, 1);
}

/* Anything but a regular file (or a folder) is refused at once by name: /dev/zero
 * used to be read until memory ran out, a FIFO blocked forever. Checked in a
 * subprocess with a time limit and, outside AddressSanitizer, a memory limit, so
 * that a regression fails instead of hanging the suite. The FIFO's name is made of
 * the parent's pid, which the subprocess knows. */
static char *
fifo_dir (GPid parent)
{
  return g_strdup_printf ("%s/napkin-import-fifo-%d", g_get_tmp_dir (), (int) parent);
}

static void
assert_refused (const char *path,
                NkLogFormat format,
                const char *kind)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) im = nk_log_import (path, format, &error);
  g_autofree char *expected = g_strdup_printf ("“%s” is not a regular file (%s).", path, kind);

  g_assert_null (im);
  g_assert_nonnull (error);     /* NK_LOG_IMPORT_ERROR, or NK_TFEVENTS_ERROR for an event file */
  g_assert_cmpstr (error->message, ==, expected);
}

static void
non_regular_child (void)
{
  g_autofree char *dir = fifo_dir (getppid ());
  g_autofree char *fifo = g_build_filename (dir, "train.log", NULL);
  g_autofree char *tb_fifo = g_build_filename (dir, "tb", "events.out.tfevents.1.host", NULL);
  g_autofree char *tb_dir = g_build_filename (dir, "tb", NULL);
  g_autofree char *big = g_build_filename (dir, "big.log", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) im = NULL;
  g_auto(NkTestRun) run = { 0 };
  const char *const env[] = { "G_DEBUG=fatal-criticals", NULL };

#if !defined (__SANITIZE_ADDRESS__) && !NK_HAS_ASAN
  {
    struct rlimit limit = { (rlim_t) 4 << 30, (rlim_t) 4 << 30 };
    g_assert_cmpint (setrlimit (RLIMIT_AS, &limit), ==, 0);
  }
#endif
  assert_refused ("/dev/zero", NK_LOG_FORMAT_AUTO, "it is a device");
  assert_refused ("/dev/zero", NK_LOG_FORMAT_NANOGPT, "it is a device");
  assert_refused ("/dev/zero", NK_LOG_FORMAT_TENSORBOARD, "it is a device");
  assert_refused (fifo, NK_LOG_FORMAT_AUTO, "it is a pipe");
  assert_refused (tb_fifo, NK_LOG_FORMAT_AUTO, "it is a pipe");
  /* a FIFO in a TensorBoard folder: refused by its name, not waited on */
  im = nk_log_import (tb_dir, NK_LOG_FORMAT_AUTO, &error);
  g_assert_null (im);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "is not a regular file (it is a pipe)"));
  g_clear_error (&error);
  /* a regular file past the bound (sparse: no disk used) is refused unread */
  im = nk_log_import (big, NK_LOG_FORMAT_AUTO, &error);
  g_assert_null (im);
  g_assert_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_IO);
  {
    g_autofree char *expected = g_strdup_printf ("“%s” holds 1073741825 bytes, more than the 1.0\302\240GiB Napkin reads from one file.", big);
    g_assert_cmpstr (error->message, ==, expected);
  }

  /* the CLI: exit 1 (a file that cannot be read), one sentence naming it */
  if (!nk_test_run_cli_env (&run, env, "import", (const char *[]) { fifo, NULL }, NULL, 0))
    return;
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "");
  {
    g_autofree char *expected = g_strdup_printf ("napkin-cli: “%s” is not a regular file (it is a pipe).\n", fifo);
    g_assert_cmpstr (run.err, ==, expected);
  }
  g_assert_true (nk_test_run_cli_env (&run, env, "import", (const char *[]) { "/dev/zero", "--json-lines", NULL },
                                      NULL, 0));
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "{\"error\":\"“/dev/zero” is not a regular file (it is a device).\"}\n");
  g_assert_true (nk_test_run_cli_env (&run, env, "import", (const char *[]) { "/dev/null", "--plan", fifo, NULL },
                                      NULL, 0));
  g_assert_cmpint (run.status, ==, 1);
  {
    g_autofree char *expected = g_strdup_printf ("napkin-cli: “%s” is not a regular file (it is a pipe).\n", fifo);
    g_assert_cmpstr (run.err, ==, expected);
  }
}

static void
test_non_regular (void)
{
  g_autofree char *dir = NULL, *fifo = NULL, *tb_dir = NULL, *tb_fifo = NULL, *big = NULL;
  int fd;

  if (g_test_subprocess ())
    {
      non_regular_child ();
      return;
    }
  dir = fifo_dir (getpid ());
  fifo = g_build_filename (dir, "train.log", NULL);
  tb_dir = g_build_filename (dir, "tb", NULL);
  tb_fifo = g_build_filename (tb_dir, "events.out.tfevents.1.host", NULL);
  big = g_build_filename (dir, "big.log", NULL);
  g_assert_cmpint (g_mkdir_with_parents (tb_dir, 0700), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (mkfifo (tb_fifo, 0600), ==, 0);
  fd = g_open (big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, ((goffset) 1 << 30) + 1), ==, 0);
  close (fd);

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  /* a reader that still waits on a FIFO (a regression) gets its end of file */
  for (int i = 0; i < 4; i++)
    {
      fd = g_open (i % 2 ? tb_fifo : fifo, O_WRONLY | O_NONBLOCK, 0);
      if (fd >= 0)
        close (fd);
    }
  nk_test_remove_tree (dir);
  g_test_trap_assert_passed ();
}

/* A plan file that is no plan is one sentence naming it, exit 1 as a log that cannot
 * be read (CLI.md: a corrupt file), with no json-glib critical (fatal here): a 0-byte
 * file used to crash; /dev/null; JSON that is not an object; an object that is no
 * plan; text that is not JSON. */
static void
test_cli_bad_plan (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-import-bad-plan");
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty.json", NULL);
  g_autofree char *array = g_build_filename (dir, "array.json", NULL);
  g_autofree char *string = g_build_filename (dir, "string.json", NULL);
  g_autofree char *object = g_build_filename (dir, "object.json", NULL);
  g_autofree char *broken = g_build_filename (dir, "broken.json", NULL);
  g_autofree char *shapeless = g_build_filename (dir, "shapeless.json", NULL);
  const char *const env[] = { "G_DEBUG=fatal-criticals", NULL };
  struct { const char *path; const char *content; const char *sentence; } cases[] = {
    { empty, "", "The plan “%s” is empty: write one with “napkin-cli plan --json”." },
    { empty, " \n\t", "The plan “%s” is empty: write one with “napkin-cli plan --json”." },
    { "/dev/null", NULL, "“%s” is not a regular file (it is a device)." },
    { dir, NULL, "“%s” is not a regular file (it is a folder)." },
    { array, "[1, 2]", "The plan “%s” is JSON but not an object; “napkin-cli plan --json” writes one object." },
    { string, "\"plan\"", "The plan “%s” is JSON but not an object; “napkin-cli plan --json” writes one object." },
    { object, "{\"gpus\": 8}", "The plan “%s” is not from “napkin-cli plan --json”: it has no time_per_step, "
                               "tokens_per_s, mfu_model or memory." },
    { shapeless, NULL, "The plan “%s” predicts no step: it was made without a layout (plan again with the "
                       "model's shape and --global-batch)." },
  };

  g_auto(NkTestRun) plan = { 0 };

  /* a plan of days and memory, without a layout: a plan, but of no step */
  if (!nk_test_run_cli (&plan, "plan", (const char *[]) { "--params", "7B", "--tokens", "1T", "--gpus", "8",
                                                         "--gpu", "h100-sxm", "--mfu", "0.4", "--json", NULL },
                        NULL, 0))
    return;
  g_assert_cmpint (plan.status, ==, 0);
  g_assert_true (g_file_set_contents (shapeless, plan.out, -1, NULL));
  g_assert_true (g_file_set_contents (log, "iter 1: loss 3.5000, time 250.00ms, mfu 40.00%\n", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autofree char *expected = NULL;

      if (cases[i].content != NULL)
        g_assert_true (g_file_set_contents (cases[i].path, cases[i].content, -1, NULL));
      g_assert_true (nk_test_run_cli_env (&run, env, "import", (const char *[]) { log, "--plan", cases[i].path, NULL },
                                          NULL, 0));
      {
        g_auto(GStrv) parts = g_strsplit (cases[i].sentence, "%s", -1);
        g_autofree char *sentence = g_strjoinv (cases[i].path, parts);
        expected = g_strconcat (sentence, "\n", NULL);
      }
      g_test_message ("%s: %s", cases[i].path, run.err);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_true (g_str_has_prefix (run.err, "napkin-cli: "));
      g_assert_cmpstr (run.err + strlen ("napkin-cli: "), ==, expected);
    }
  /* not JSON: json-glib's reason inside the sentence, still one line */
  {
    g_auto(NkTestRun) run = { 0 };
    g_autofree char *start = g_strdup_printf ("napkin-cli: The plan “%s” is not JSON (", broken);

    g_assert_true (g_file_set_contents (broken, "{\"time_per_step\": ", -1, NULL));
    g_assert_true (nk_test_run_cli_env (&run, env, "import", (const char *[]) { log, "--plan", broken, NULL },
                                        NULL, 0));
    g_assert_cmpint (run.status, ==, 1);
    g_assert_true (g_str_has_prefix (run.err, start));
    g_assert_true (g_str_has_suffix (run.err, ").\n"));
    g_assert_null (strchr (run.err, '\n') == run.err + strlen (run.err) - 1 ? NULL : "two lines");
  }
  nk_test_remove_tree (dir);
}

/* The CLI writes a diverged run's losses as CLI.md's "nan" and "inf" strings, and the
 * done line counts the lines it rejected and the steps a restart replaced, saying
 * both on stderr. */
static void
test_cli_nan_and_counts (void)
{
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-import-nan");
  g_autofree char *log = g_build_filename (dir, "train.log", NULL);
  g_auto(NkTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;

  if (nk_test_cli_path () == NULL)
    return;
  g_assert_true (g_file_set_contents (log,
                                      "iter 1: loss nan, time 250.00ms, mfu 40.00%\n"
                                      "iter 2: loss inf, time 250.00ms, mfu 40.00%\n"
                                      "iter 3: loss 3.0000, time 250.00ms, mfu 40.00%\n"
                                      "iter 2: loss 2.0000, time 250.00ms, mfu 40.00%\n"
                                      "iter 4: loss 1.0000, time 250.00ms, mfu 1e38%\n", -1, NULL));
  g_assert_true (nk_test_run_cli (&run, "import", (const char *[]) { log, NULL }, NULL, 0));
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonObject) o = parse_line (lines[i]);

      g_assert_cmpint (json_object_get_int_member (o, "step"), ==, i + 1);
      g_assert_cmpfloat (json_object_get_double_member (o, "seconds"), ==, 0.25);
      if (i == 0)
        g_assert_cmpstr (json_object_get_string_member (o, "loss"), ==, "nan");
      else
        g_assert_cmpfloat (json_object_get_double_member (o, "loss"), ==, i + 1.0);   /* 2: the restart's */
    }
  {
    g_autoptr(JsonObject) done = parse_line (lines[3]);

    g_assert_cmpint (json_object_get_int_member (done, "steps"), ==, 3);
    g_assert_cmpint (json_object_get_int_member (done, "skipped_lines"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (done, "rejected_lines"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (done, "replaced_steps"), ==, 1);
  }
  g_assert_cmpstr (run.err, ==,
                   "napkin-cli: warning: Skipped 1 line whose values no run can have "
                   "(line 5: an MFU of 1e38 % is not between 0 and 100 %).\n"
                   "napkin-cli: warning: 1 step was logged again after a later step (a restarted run); "
                   "the later line is kept.\n");

  g_assert_true (g_file_set_contents (log, "iter 1: loss inf, time 250.00ms, mfu 40.00%\n", -1, NULL));
  g_assert_true (nk_test_run_cli (&run, "import", (const char *[]) { log, NULL }, NULL, 0));
  g_assert_nonnull (strstr (run.out, "\"loss\":\"inf\""));
  nk_test_remove_tree (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/log-import/torchtitan", test_torchtitan);
  g_test_add_func ("/log-import/megatron", test_megatron);
  g_test_add_func ("/log-import/deepspeed", test_deepspeed);
  g_test_add_func ("/log-import/deepspeed-csv", test_deepspeed_csv);
  g_test_add_func ("/log-import/nanogpt", test_nanogpt);
  g_test_add_func ("/log-import/llmc", test_llmc);
  g_test_add_func ("/log-import/unknown-and-wrong-format", test_unknown_and_wrong_format);
  g_test_add_func ("/log-import/tensorboard-two-ranks", test_tensorboard_two_ranks);
  g_test_add_func ("/log-import/cli", test_cli);
  g_test_add_func ("/log-import/cli-real-plan", test_cli_real_plan);
  g_test_add_func ("/log-import/nan-and-inf-losses", test_nan_and_inf_losses);
  g_test_add_func ("/log-import/rejected-values", test_rejected_values);
  g_test_add_func ("/log-import/nul-bytes", test_nul_bytes);
  g_test_add_func ("/log-import/restart", test_restart);
  g_test_add_func ("/log-import/deepspeed-pipe", test_deepspeed_pipe);
  g_test_add_func ("/log-import/long-line", test_long_line);
  g_test_add_func ("/log-import/tensorboard-bounds", test_tensorboard_bounds);
  g_test_add_func ("/log-import/non-regular", test_non_regular);
  g_test_add_func ("/log-import/cli-bad-plan", test_cli_bad_plan);
  g_test_add_func ("/log-import/cli-nan-and-counts", test_cli_nan_and_counts);
  return g_test_run ();
}
