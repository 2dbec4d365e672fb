/* nk-log-import.c: training logs of other engines read as steps
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each pattern below follows the engine's own format string (repository, file, line at
 * the commit fetched on 2026-11-24). A line must match up to the field the engine prints
 * last, so a line cut short is skipped rather than read with a truncated number. ANSI
 * colour codes are removed first. Lines of several ranks may interleave: a step seen
 * again fills only fields it did not have yet (memory takes the maximum over ranks).
 */
#include "config.h"

#include "nk-log-import.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <gio/gio.h>

#include "nk-tfevents.h"

G_DEFINE_QUARK (nk-log-import-error-quark, nk_log_import_error)

#define GIB 1073741824.0
#define MIB 1048576.0

static const char *const format_names[] = {
  "auto", "torchtitan", "megatron", "deepspeed", "nanogpt", "llmc", "tensorboard",
};

const char *
nk_log_format_to_string (NkLogFormat format)
{
  g_return_val_if_fail (format <= NK_LOG_FORMAT_TENSORBOARD, NULL);
  return format_names[format];
}

gboolean
nk_log_format_from_string (const char  *text,
                           NkLogFormat *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (g_strcmp0 (text, format_names[i]) == 0)
      {
        *out = (NkLogFormat) i;
        return TRUE;
      }
  return FALSE;
}

/* -- the patterns ------------------------------------------------------------------ */

typedef enum {
  F_STEP = 1, F_LOSS, F_TPS, F_TFLOPS, F_MFU_PCT, F_MEM_GIB, F_MEM_MIB, F_MEM_GB,
  F_MS, F_SAMPLES, F_NONE,
} Field;

typedef struct {
  NkLogFormat format;
  const char *pattern;
  Field fields[8];          /* what each capture group is, 0-terminated */
  gboolean memory_only;     /* attaches to the last step seen (Megatron, DeepSpeed) */
} Pattern;

#define NUM "([-+]?(?:\\d[\\d,]*\\.?\\d*(?:[eE][-+]?\\d+)?|nan|inf))"

static const Pattern patterns[] = {
  /* torchtitan/components/metrics.py:527-536 (MetricsProcessor.log):
   *   f"{color.red}step: {step:2}  " f"{color.green}loss: {global_avg_loss:8.5f}  "
   *   f"{color.orange}grad_norm: {grad_norm:7.4f}  "
   *   f"{color.turquoise}memory: {device_mem_stats.max_reserved_gib:5.2f}GiB"
   *   f"({device_mem_stats.max_reserved_pct:.2f}%)  " f"{color.blue}tps: {round(tps):,}  "
   *   f"{color.cyan}tflops: {tflops:,.2f}  " f"{color.magenta}mfu: {mfu_str}{color.reset}"
   * tps is per device (metrics.py:480); mfu_str is "N/A" with quantization. */
  { NK_LOG_FORMAT_TORCHTITAN,
    "step:\\s*(\\d+)\\s+loss:\\s*" NUM "\\s+(?:grad_norm:\\s*\\S+\\s+)?memory:\\s*" NUM
    "GiB\\([^)]*\\)\\s+tps:\\s*" NUM "\\s+tflops:\\s*" NUM "\\s+mfu:\\s*(?:" NUM "%|N/A)",
    { F_STEP, F_LOSS, F_MEM_GIB, F_TPS, F_TFLOPS, F_MFU_PCT } },
  /* megatron/training/training.py:3568-3641 (training_log):
   *   ' iteration {:8d}/{:8d} |' ' consumed samples: {:12d} |'
   *   ' elapsed time per iteration (ms): {:.1f} |'
   *   f' throughput per GPU (TFLOP/s/GPU): {throughput:.1f} |' (with --log-throughput)
   *   ... ' {}: {:.6E} |'.format(key, avg) (key "lm loss") ...
   *   ' number of skipped iterations: {:3d} |' */
  { NK_LOG_FORMAT_MEGATRON,
    "iteration\\s+(\\d+)/\\s*\\d+\\s*\\|.*?elapsed time per iteration \\(ms\\):\\s*" NUM
    "\\s*\\|(?:.*?throughput per GPU \\(TFLOP/s/GPU\\):\\s*" NUM "\\s*\\|)?"
    "(?:.*?lm loss:\\s*" NUM "\\s*\\|)?.*?number of skipped iterations:",
    { F_STEP, F_MS, F_TFLOPS, F_LOSS } },
  /* megatron/training/utils/common_utils.py:321-334 (report_memory):
   *   name + ' memory (MB)' f" | allocated: {…:.2f}" f" | max allocated: {…:.2f}"
   *   printed as "[Rank {}] {}" */
  { NK_LOG_FORMAT_MEGATRON,
    "\\[Rank \\d+\\].*memory \\(MB\\) \\| allocated: " NUM " \\| max allocated: " NUM,
    { F_NONE, F_MEM_MIB }, TRUE },
  /* deepspeed/runtime/engine.py:2489: f"step={step}, skipped={self.skipped_steps}, lr={lr}, mom={mom}" */
  { NK_LOG_FORMAT_DEEPSPEED,
    "step=(\\d+), skipped=\\d+, lr=",
    { F_STEP } },
  /* deepspeed/utils/timer.py:265-266 (ThroughputTimer.stop):
   *   "epoch={}/micro_step={}/global_step={}, RunningAvgSamplesPerSec={}, CurrSamplesPerSec={}, "
   *   "MemAllocated={}GB, MaxMemAllocated={}GB" (GB = 1024**3 bytes) */
  { NK_LOG_FORMAT_DEEPSPEED,
    "epoch=\\d+/micro_step=\\d+/global_step=(\\d+), RunningAvgSamplesPerSec=" NUM
    ", CurrSamplesPerSec=" NUM ", MemAllocated=" NUM "GB, MaxMemAllocated=" NUM "GB",
    { F_STEP, F_NONE, F_SAMPLES, F_NONE, F_MEM_GB } },
  /* nanoGPT train.py:327:
   *   print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")
   * running_mfu starts at -1.0 (train.py:250), so the first lines print "mfu -100.00%". */
  { NK_LOG_FORMAT_NANOGPT,
    "^iter (\\d+): loss " NUM ", time " NUM "ms, mfu " NUM "%",
    { F_STEP, F_LOSS, F_MS, F_MFU_PCT } },
  /* llm.c train_gpt2.cu:1872:
   *   "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n" */
  { NK_LOG_FORMAT_LLMC,
    "^step\\s+(\\d+)/\\d+ \\| loss " NUM " \\([^)]*\\)\\| norm .*\\| lr \\S+ \\| " NUM
    " ms \\| " NUM "% bf16 MFU \\| " NUM " tok/s",
    { F_STEP, F_LOSS, F_MS, F_MFU_PCT, F_TPS } },
  /* llm.c train_gpt2.c:1171: "step %d: train loss %f (took %f ms)\n" */
  { NK_LOG_FORMAT_LLMC,
    "^step (\\d+): train loss " NUM " \\(took " NUM " ms\\)",
    { F_STEP, F_LOSS, F_MS } },
  /* llm.c llmc/logger.h:53: "s:%d trl:%.4f lr:%.6f norm:%.2f\n" (older: "s:%d trl:%.4f") */
  { NK_LOG_FORMAT_LLMC,
    "^s:(\\d+) trl:" NUM "(?:\\s|$)",
    { F_STEP, F_LOSS } },
  /* llm.c llmc/logger.h:37,45: "s:%d eval:%.4f", "s:%d tel:%.4f": known, not a training step */
  { NK_LOG_FORMAT_LLMC,
    "^s:\\d+ (?:tel|eval):" NUM,
    { F_NONE }, TRUE },
};

/* -- steps ------------------------------------------------------------------------- */

typedef struct {
  NkImport *import;
  GHashTable *index;        /* step → index + 1 in import->steps */
  gint64 last_step;
  gboolean have_last;
  double pending_memory;    /* a memory line before any step */
} Builder;

static NkImportStep *
step_for (Builder *b,
          gint64   step)
{
  gsize i = GPOINTER_TO_SIZE (g_hash_table_lookup (b->index, &step));

  if (i == 0)
    {
      NkImportStep s = { step, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
      gint64 *key = g_new (gint64, 1);
      *key = step;
      g_array_append_val (b->import->steps, s);
      i = b->import->steps->len;
      g_hash_table_insert (b->index, key, GSIZE_TO_POINTER (i));
    }
  b->last_step = step;
  b->have_last = TRUE;
  return &g_array_index (b->import->steps, NkImportStep, i - 1);
}

static double
parse_number (const char *text)
{
  g_autofree char *clean = g_strdup (text);
  char *w = clean;

  for (const char *r = text; *r; r++)
    if (*r != ',')
      *w++ = *r;
  *w = '\0';
  return g_ascii_strtod (clean, NULL);
}

static void
set_first (double *slot,
           double  value)
{
  if (isnan (*slot) && isfinite (value))
    *slot = value;
}

static void
set_max (double *slot,
         double  value)
{
  if (isfinite (value) && (isnan (*slot) || value > *slot))
    *slot = value;
}

static void
apply_match (Builder       *b,
             const Pattern *p,
             GMatchInfo    *m)
{
  NkImportStep *s = NULL;
  double memory = NAN;

  if (p->fields[0] == F_STEP)
    {
      g_autofree char *t = g_match_info_fetch (m, 1);
      s = step_for (b, g_ascii_strtoll (t, NULL, 10));
    }
  for (int g = 0; g < 8 && p->fields[g] != 0; g++)
    {
      g_autofree char *t = g_match_info_fetch (m, g + 1);
      double v;

      if (t == NULL || *t == '\0' || p->fields[g] == F_STEP || p->fields[g] == F_NONE)
        continue;
      v = parse_number (t);
      switch (p->fields[g])
        {
        case F_MEM_GIB: memory = v * GIB; break;
        case F_MEM_GB: memory = v * GIB; break;
        case F_MEM_MIB: memory = v * MIB; break;
        default: break;
        }
      if (s == NULL)
        continue;
      switch (p->fields[g])
        {
        case F_LOSS: set_first (&s->loss, v); break;
        case F_TPS: set_first (&s->tokens_per_s, v); break;
        case F_TFLOPS: set_first (&s->tflops_per_gpu, v); break;
        case F_MFU_PCT: if (v >= 0) set_first (&s->mfu, v / 100); break;
        case F_MS: set_first (&s->seconds, v / 1000); break;
        case F_SAMPLES: set_first (&s->samples_per_s, v); break;
        default: break;
        }
    }
  if (isnan (memory))
    return;
  if (s == NULL && b->have_last)
    s = step_for (b, b->last_step);
  if (s != NULL)
    set_max (&s->memory_max_bytes, memory);
  else
    set_max (&b->pending_memory, memory);
}

/* Removes ESC [ … final-byte sequences in place. */
static void
strip_ansi (char *line)
{
  char *w = line;

  for (char *r = line; *r; )
    {
      if (r[0] == '\033' && r[1] == '[')
        {
          r += 2;
          while (*r && !(*r >= '@' && *r <= '~'))
            r++;
          if (*r)
            r++;
          continue;
        }
      *w++ = *r++;
    }
  *w = '\0';
}

typedef struct {
  GRegex *regex[G_N_ELEMENTS (patterns)];
} Regexes;

static void
regexes_init (Regexes *r)
{
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      r->regex[i] = g_regex_new (patterns[i].pattern, G_REGEX_OPTIMIZE, 0, NULL);
      g_assert (r->regex[i] != NULL);
    }
}

static void
regexes_clear (Regexes *r)
{
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    g_clear_pointer (&r->regex[i], g_regex_unref);
}

/* The index of the first pattern of @format matching @line, or -1. */
static int
match_line (Regexes     *r,
            NkLogFormat  format,
            const char  *line,
            GMatchInfo **info)
{
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      if (patterns[i].format != format)
        continue;
      if (g_regex_match (r->regex[i], line, 0, info))
        return (int) i;
      g_clear_pointer (info, g_match_info_free);
    }
  return -1;
}

static gchar **
split_lines (const char *text,
             gsize       len)
{
  /* stops at a NUL byte; NULL text (with len 0) is an empty log */
  g_autofree char *copy = text != NULL ? g_strndup (text, len) : g_strdup ("");
  char **lines = g_strsplit (copy, "\n", -1);

  for (char **l = lines; *l; l++)
    {
      g_strchomp (*l);                               /* "\r" of CRLF logs */
      strip_ansi (*l);
      if (!g_utf8_validate (*l, -1, NULL))
        {
          char *valid = g_utf8_make_valid (*l, -1);
          g_free (*l);
          *l = valid;
        }
    }
  return lines;
}

static NkLogFormat
detect_format (Regexes *r,
               char   **lines)
{
  guint count[NK_LOG_FORMAT_TENSORBOARD + 1] = { 0 };
  NkLogFormat best = NK_LOG_FORMAT_AUTO;

  for (char **l = lines; *l; l++)
    for (NkLogFormat f = NK_LOG_FORMAT_TORCHTITAN; f < NK_LOG_FORMAT_TENSORBOARD; f++)
      {
        g_autoptr(GMatchInfo) m = NULL;
        if (match_line (r, f, *l, &m) >= 0)
          count[f]++;
      }
  for (NkLogFormat f = NK_LOG_FORMAT_TORCHTITAN; f < NK_LOG_FORMAT_TENSORBOARD; f++)
    if (count[f] > 0 && (best == NK_LOG_FORMAT_AUTO || count[f] > count[best]))
      best = f;
  return best;
}

static NkImport *
import_new (NkLogFormat format)
{
  NkImport *import = g_new0 (NkImport, 1);

  import->format = format;
  import->steps = g_array_new (FALSE, FALSE, sizeof (NkImportStep));
  return import;
}

static int
compare_steps (gconstpointer a,
               gconstpointer b)
{
  const NkImportStep *x = a, *y = b;
  return (x->step > y->step) - (x->step < y->step);
}

static gboolean
finish (NkImport  *import,
        GError   **error)
{
  if (import->steps->len == 0)
    {
      g_set_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_EMPTY,
                   _("The input holds no training step in the %s format."),
                   nk_log_format_to_string (import->format));
      return FALSE;
    }
  g_array_sort (import->steps, compare_steps);
  return TRUE;
}

static void
unknown_format (GError **error)
{
  g_set_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_UNKNOWN_FORMAT,
               _("The input is in no known format (tried torchtitan, megatron, deepspeed, "
               "nanogpt, llmc, tensorboard)."));
}

NkImport *
nk_log_import_text (const char  *text,
                    gsize        len,
                    NkLogFormat  format,
                    GError     **error)
{
  g_auto(GStrv) lines = split_lines (text, len);
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(NkImport) import = NULL;
  Regexes r;
  Builder b = { 0 };

  g_return_val_if_fail (format != NK_LOG_FORMAT_TENSORBOARD, NULL);

  regexes_init (&r);
  if (format == NK_LOG_FORMAT_AUTO)
    format = detect_format (&r, lines);
  if (format == NK_LOG_FORMAT_AUTO)
    {
      regexes_clear (&r);
      unknown_format (error);
      return NULL;
    }
  import = import_new (format);
  b.import = import;
  b.index = index;
  b.pending_memory = NAN;
  for (char **l = lines; *l; l++)
    {
      g_autoptr(GMatchInfo) m = NULL;
      int i;

      if (g_strstrip (*l)[0] == '\0')
        continue;
      i = match_line (&r, format, *l, &m);
      if (i < 0)
        import->skipped_lines++;
      else
        apply_match (&b, &patterns[i], m);
    }
  regexes_clear (&r);
  if (import->steps->len > 0 && !isnan (b.pending_memory))
    set_max (&g_array_index (import->steps, NkImportStep, 0).memory_max_bytes, b.pending_memory);
  if (!finish (import, error))
    return NULL;
  return g_steal_pointer (&import);
}

/* -- DeepSpeed's CSV monitor ---------------------------------------------------------
 * deepspeed/monitor/csv_monitor.py:59-67: one file per event, named after the event
 * with '/' → '_' (Train_Samples_train_loss.csv, Train_Samples_lr.csv), first row
 * ['step', header] with header the last part of the name, then [step, value] rows;
 * the engine's step there is global_samples (runtime/engine.py:2111). */

static gboolean
read_csv_file (const char *path,
               Builder    *b)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean loss;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  if (lines[0] == NULL || !g_str_has_prefix (lines[0], "step,"))
    return FALSE;
  loss = strstr (lines[0], "loss") != NULL;
  for (char **l = lines + 1; *l; l++)
    {
      char *comma, *end;
      gint64 step;
      double v;

      if (g_strstrip (*l)[0] == '\0')
        continue;
      comma = strchr (*l, ',');
      step = comma ? g_ascii_strtoll (*l, &end, 10) : 0;
      if (comma == NULL || end != comma || *l == comma)
        {
          b->import->skipped_lines++;
          continue;
        }
      v = g_ascii_strtod (comma + 1, &end);
      if (end == comma + 1 || *end != '\0')
        {
          b->import->skipped_lines++;
          continue;
        }
      NkImportStep *s = step_for (b, step);
      if (loss)
        set_first (&s->loss, v);
    }
  return TRUE;
}

static NkImport *
import_csv_dir (const char *dir,
                GError    **error)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(NkImport) import = import_new (NK_LOG_FORMAT_DEEPSPEED);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  Builder b = { import, index, 0, FALSE, NAN };
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_str_has_suffix (name, ".csv") && read_csv_file (path, &b))
        n++;
    }
  if (n == 0)
    {
      unknown_format (error);
      return NULL;
    }
  if (!finish (import, error))
    return NULL;
  return g_steal_pointer (&import);
}

/* -- TensorBoard ----------------------------------------------------------------------- */

typedef struct {
  const char *tag;
  int field;                /* offset into NkImportStep */
  double scale;
} TagMap;

/* Napkin's own tags, torchtitan's (components/metrics.py:498-514), Megatron's
 * ('lm loss', 'iteration-time' in seconds: training.py:3564) and DeepSpeed's. */
static const TagMap tag_map[] = {
  { "loss", G_STRUCT_OFFSET (NkImportStep, loss), 1 },
  { "train/loss", G_STRUCT_OFFSET (NkImportStep, loss), 1 },
  { "loss_metrics/global_avg_loss", G_STRUCT_OFFSET (NkImportStep, loss), 1 },
  { "lm loss", G_STRUCT_OFFSET (NkImportStep, loss), 1 },
  { "Train/Samples/train_loss", G_STRUCT_OFFSET (NkImportStep, loss), 1 },
  { "tokens_per_s", G_STRUCT_OFFSET (NkImportStep, tokens_per_s), 1 },
  { "throughput(tps)", G_STRUCT_OFFSET (NkImportStep, tokens_per_s), 1 },
  { "tflops_per_gpu", G_STRUCT_OFFSET (NkImportStep, tflops_per_gpu), 1 },
  { "tflops", G_STRUCT_OFFSET (NkImportStep, tflops_per_gpu), 1 },
  { "mfu", G_STRUCT_OFFSET (NkImportStep, mfu), 1 },
  { "mfu(%)", G_STRUCT_OFFSET (NkImportStep, mfu), 0.01 },
  { "memory_max_bytes", G_STRUCT_OFFSET (NkImportStep, memory_max_bytes), 1 },
  { "memory/max_reserved(GiB)", G_STRUCT_OFFSET (NkImportStep, memory_max_bytes), GIB },
  { "seconds", G_STRUCT_OFFSET (NkImportStep, seconds), 1 },
  { "time_metrics/end_to_end(s)", G_STRUCT_OFFSET (NkImportStep, seconds), 1 },
  { "iteration-time", G_STRUCT_OFFSET (NkImportStep, seconds), 1 },
};

static NkImport *
import_tensorboard (const char *path,
                    GError    **error)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(NkImport) import = import_new (NK_LOG_FORMAT_TENSORBOARD);
  g_autoptr(NkScalarLog) log = nk_scalar_log_read (path, error);
  Builder b = { import, index, 0, FALSE, NAN };

  if (log == NULL)
    return NULL;
  import->skipped_lines = log->n_skipped;
  for (guint t = 0; t < G_N_ELEMENTS (tag_map); t++)
    {
      GArray *a = nk_scalar_log_get (log, tag_map[t].tag);
      for (guint i = 0; a != NULL && i < a->len; i++)
        {
          NkScalarPoint *pt = &g_array_index (a, NkScalarPoint, i);
          NkImportStep *s = step_for (&b, pt->step);
          double *slot = G_STRUCT_MEMBER_P (s, tag_map[t].field);
          if (tag_map[t].field == G_STRUCT_OFFSET (NkImportStep, memory_max_bytes))
            set_max (slot, pt->value * tag_map[t].scale);
          else
            set_first (slot, pt->value * tag_map[t].scale);
        }
    }
  if (!finish (import, error))
    return NULL;
  return g_steal_pointer (&import);
}

static gboolean
dir_has_tfevents (const char *dir,
                  int         depth)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && depth < 16 && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (strstr (name, "tfevents") != NULL && !g_file_test (path, G_FILE_TEST_IS_DIR))
        return TRUE;
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)
          && dir_has_tfevents (path, depth + 1))
        return TRUE;
    }
  return FALSE;
}

static NkImport *
import_dir (const char  *path,
            NkLogFormat  format,
            GError     **error)
{
  g_autofree char *main_log = g_build_filename (path, "main.log", NULL);

  if (format == NK_LOG_FORMAT_TENSORBOARD
      || (format == NK_LOG_FORMAT_AUTO && dir_has_tfevents (path, 0)))
    return import_tensorboard (path, error);
  /* llm.c writes main.log into its -o folder (train_gpt2.cu, logger_init) */
  if ((format == NK_LOG_FORMAT_AUTO || format == NK_LOG_FORMAT_LLMC)
      && g_file_test (main_log, G_FILE_TEST_IS_REGULAR))
    return nk_log_import (main_log, NK_LOG_FORMAT_LLMC, error);
  if (format == NK_LOG_FORMAT_AUTO || format == NK_LOG_FORMAT_DEEPSPEED)
    return import_csv_dir (path, error);
  unknown_format (error);
  return NULL;
}

NkImport *
nk_log_import (const char  *path,
               NkLogFormat  format,
               GError     **error)
{
  g_autofree char *text = NULL;
  g_autofree char *base = g_path_get_basename (path);
  gsize len = 0;
  g_autoptr(GError) local = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return import_dir (path, format, error);
  if (format == NK_LOG_FORMAT_TENSORBOARD
      || (format == NK_LOG_FORMAT_AUTO && strstr (base, "tfevents") != NULL))
    return import_tensorboard (path, error);
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      g_set_error (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_IO,
                   _("Cannot read “%s”: %s"), path, local->message);
      return NULL;
    }
  if ((format == NK_LOG_FORMAT_AUTO || format == NK_LOG_FORMAT_DEEPSPEED)
      && g_str_has_suffix (base, ".csv") && g_str_has_prefix (text, "step,"))
    {
      g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      g_autoptr(NkImport) import = import_new (NK_LOG_FORMAT_DEEPSPEED);
      Builder b = { import, index, 0, FALSE, NAN };
      read_csv_file (path, &b);
      return finish (import, error) ? g_steal_pointer (&import) : NULL;
    }
  return nk_log_import_text (text, len, format, error);
}

void
nk_import_free (NkImport *import)
{
  if (import == NULL)
    return;
  g_array_unref (import->steps);
  g_free (import);
}
