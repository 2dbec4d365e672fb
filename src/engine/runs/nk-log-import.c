/* nk-log-import.c: training logs of other engines read as steps
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each pattern below follows the engine's own format string (repository, file, line at
 * the commit fetched on 2026-11-24). A line must match up to the field the engine prints
 * last, so a line cut short is skipped rather than read with a truncated number. ANSI
 * colour codes are removed first. Lines of several ranks may interleave: a step seen
 * again fills only fields it did not have yet (memory takes the maximum over ranks);
 * a step logged again after a later one is a restarted run logging it anew, and the
 * later line replaces it (counted in replaced_steps). A NUL byte ends a line as a
 * newline does (crashed runs' logs are NUL-padded), so does a lone "\r". A line
 * whose values no run can have (a negative time, an MFU over 100 %, a step past
 * 2^53) is skipped whole and counted; a NaN or infinite loss is a diverged run's
 * truth and kept.
 */
#include "config.h"

#include "nk-log-import.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <gio/gio.h>

#include "nk-file-util.h"
#include "nk-log-import-private.h"
#include "nk-tfevents.h"

/**
 * nk_log_import_error_quark:
 *
 * The domain of %NK_LOG_IMPORT_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-log-import-error-quark, nk_log_import_error)

G_DEFINE_BOXED_TYPE (NkImport, nk_import, nk_import_copy, nk_import_free)

static NkImportStep *
import_step_copy (const NkImportStep *step)
{
  return g_memdup2 (step, sizeof *step);
}

G_DEFINE_BOXED_TYPE (NkImportStep, nk_import_step, import_step_copy, g_free)

#define GIB 1073741824.0
#define MIB 1048576.0

static const char *const format_names[] = {
  "auto", "torchtitan", "megatron", "deepspeed", "nanogpt", "llmc", "tensorboard",
};

/**
 * nk_log_format_to_string:
 * @format: a format
 *
 * The format's name as `napkin-cli import --format` takes it.
 *
 * Returns: (transfer none): "auto", "torchtitan", "megatron", "deepspeed", "nanogpt",
 *   "llmc" or "tensorboard"
 */
const char *
nk_log_format_to_string (NkLogFormat format)
{
  g_return_val_if_fail (format <= NK_LOG_FORMAT_TENSORBOARD, NULL);
  return format_names[format];
}

/**
 * nk_log_format_from_string:
 * @text: a name
 * @out: (out): the format
 *
 * Reads a name nk_log_format_to_string() writes.
 *
 * Returns: %FALSE for an unknown name
 */
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
  F_MS, F_S, F_SAMPLES, F_BATCH, F_NONE,
} Field;

typedef struct {
  NkLogFormat format;
  const char *pattern;
  Field fields[8];          /* what each capture group is, 0-terminated */
  gboolean memory_only;     /* attaches to the last step seen (Megatron, DeepSpeed) */
} Pattern;

/* A number as Python's and C's formats print it, NaN and infinities included
 * (Python's {:E} prints "NAN" and "INF", glibc's %f "-nan"). */
#define NUM "([-+]?(?:\\d[\\d,]*\\.?\\d*(?:[eE][-+]?\\d+)?|(?i:nan|inf)))"

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
   *   ' learning rate: {:.6E} |' ' global batch size: {:5d} |'
   *   ... ' {}: {:.6E} |'.format(key, avg) (key "lm loss") ...
   *   ' number of skipped iterations: {:3d} |'
   * The global batch over the iteration's time is its sequences per second. */
  { NK_LOG_FORMAT_MEGATRON,
    "iteration\\s+(\\d+)/\\s*\\d+\\s*\\|.*?elapsed time per iteration \\(ms\\):\\s*" NUM
    "\\s*\\|(?:.*?throughput per GPU \\(TFLOP/s/GPU\\):\\s*" NUM "\\s*\\|)?"
    "(?:.*?global batch size:\\s*" NUM "\\s*\\|)?"
    "(?:.*?lm loss:\\s*" NUM "\\s*\\|)?.*?number of skipped iterations:",
    { F_STEP, F_MS, F_TFLOPS, F_BATCH, F_LOSS } },
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
  /* deepspeed/runtime/pipe/engine.py:404-409 (PipelineEngine.train_batch, rank 0, at
   * commit edaa7221267243c7be7fb49c5d5f5c4fb97b4641):
   *   f'steps: {self.global_steps} loss: {self.agg_train_loss:0.4f} '
   *   + f'{loss_name}: {loss_value.item():0.4f} ' for each additional loss
   *   + f'iter time (s): {iter_time:0.3f} samples/sec: {tput:0.3f}' */
  { NK_LOG_FORMAT_DEEPSPEED,
    "\\bsteps: (\\d+) loss: " NUM " .*?iter time \\(s\\): " NUM " samples/sec: " NUM,
    { F_STEP, F_LOSS, F_S, F_SAMPLES } },
  /* nanoGPT train.py:327:
   *   print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")
   * running_mfu starts at -1.0 (train.py:250), so the first lines print "mfu -100.00%". */
  { NK_LOG_FORMAT_NANOGPT,
    "^iter (\\d+): loss " NUM ", time " NUM "ms, mfu " NUM "%",
    { F_STEP, F_LOSS, F_MS, F_MFU_PCT } },
  /* llm.c train_gpt2.cu:1872:
   *   "step %4d/%d | loss %7.6f (%+.2fz)| norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n"
   * the MFU is negative where llm.c does not know the GPU's peak (llmc/mfu.h: -1);
   * %7.6f pads a NaN loss to "   -nan" */
  { NK_LOG_FORMAT_LLMC,
    "^step\\s+(\\d+)/\\d+ \\| loss\\s+" NUM " \\([^)]*\\)\\| norm .*\\| lr \\S+ \\| " NUM
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
  GArray *epochs;           /* guint per entry of import->steps: the run that logged it */
  guint epoch;              /* one more each time the log goes back to an earlier step */
  gint64 last_step;
  gboolean have_last;
  double pending_memory;    /* a memory line before any step */
} Builder;

static void
builder_init (Builder  *b,
              NkImport *import)
{
  *b = (Builder) { 0 };
  b->import = import;
  b->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  b->epochs = g_array_new (FALSE, FALSE, sizeof (guint));
  b->pending_memory = NAN;
}

static void
builder_clear (Builder *b)
{
  g_clear_pointer (&b->index, g_hash_table_unref);
  g_clear_pointer (&b->epochs, g_array_unref);
}

/* The entry of @step. A step logged again after a later one is a restarted run
 * logging it anew: its entry is emptied and refilled, the later line is the truth.
 * Lines of the same step in a row (one per rank) fill one entry. */
static NkImportStep *
step_for (Builder *b,
          gint64   step)
{
  gsize i = GPOINTER_TO_SIZE (g_hash_table_lookup (b->index, &step));
  const NkImportStep empty = { step, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0 };
  NkImportStep *s;

  if (b->have_last && step < b->last_step)
    b->epoch++;
  b->last_step = step;
  b->have_last = TRUE;
  if (i == 0)
    {
      gint64 *key = g_new (gint64, 1);

      *key = step;
      g_array_append_val (b->import->steps, empty);
      g_array_append_val (b->epochs, b->epoch);
      i = b->import->steps->len;
      g_hash_table_insert (b->index, key, GSIZE_TO_POINTER (i));
      return &g_array_index (b->import->steps, NkImportStep, i - 1);
    }
  s = &g_array_index (b->import->steps, NkImportStep, i - 1);
  if (g_array_index (b->epochs, guint, i - 1) != b->epoch)
    {
      *s = empty;
      g_array_index (b->epochs, guint, i - 1) = b->epoch;
      b->import->replaced_steps++;
    }
  return s;
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

/* A diverged run's NaN or infinite loss is its truth, kept and marked present. */
static void
set_loss (NkImportStep *s,
          double        value)
{
  if (!(s->present & NK_IMPORT_FIELD_LOSS))
    {
      s->loss = value;
      s->present |= NK_IMPORT_FIELD_LOSS;
    }
}

static const char *
field_name (Field field)
{
  switch (field)
    {
    case F_TPS: return _("tokens per second");
    case F_TFLOPS: return _("TFLOP/s");
    case F_MEM_GIB: case F_MEM_MIB: case F_MEM_GB: return _("memory");
    case F_MS: case F_S: return _("time");
    case F_SAMPLES: return _("samples per second");
    case F_BATCH: return _("global batch size");
    default: return "";
    }
}

/* NULL when @v (printed as @text) is a value @field can have, else why not. A
 * negative MFU is the engine's "not measured" (nanoGPT's first lines, llm.c on a
 * GPU it does not know), read as no MFU. */
static char *
check_value (Field       field,
             const char *text,
             double      v)
{
  switch (field)
    {
    case F_LOSS: case F_NONE: case F_STEP:
      return NULL;
    case F_MFU_PCT:
      if (isnan (v) || v > 100)
        return g_strdup_printf (_("an MFU of %s %% is not between 0 and 100 %%"), text);
      return NULL;
    default:
      if (!isfinite (v) || v < 0)
        return g_strdup_printf (_("the %s “%s” is negative or not a number"), field_name (field), text);
      return NULL;
    }
}

static void
reject_line (Builder *b,
             guint    line,
             char    *why)
{
  b->import->skipped_lines++;
  b->import->rejected_lines++;
  if (b->import->first_rejected == NULL)
    b->import->first_rejected = g_strdup_printf (_("line %u: %s"), line, why);
  g_free (why);
}

/* Reads one matched line into @out (@out->step, and each field the line has; the
 * others NAN) and its memory into @out->memory_max_bytes. A line with a value no run
 * can have is rejected whole (*why says why), never read in part. */
static NkLogLineKind
parse_match (const Pattern *p,
             GMatchInfo    *m,
             NkImportStep  *out,
             char         **why)
{
  const NkImportStep empty = { 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0 };
  guint64 step = 0;
  double batch = NAN;

  *out = empty;
  for (int g = 0; g < 8 && p->fields[g] != 0; g++)
    {
      g_autofree char *t = g_match_info_fetch (m, g + 1);
      double v;

      if (t == NULL || *t == '\0' || p->fields[g] == F_NONE)
        continue;
      if (p->fields[g] == F_STEP)
        {
          if (!g_ascii_string_to_unsigned (t, 10, 0, NK_LOG_IMPORT_MAX_STEP, &step, NULL))
            {
              *why = g_strdup_printf (_("the step %s is past 2^53"), t);
              return NK_LOG_LINE_REJECTED;
            }
          continue;
        }
      v = parse_number (t);
      if ((*why = check_value (p->fields[g], t, v)) != NULL)
        return NK_LOG_LINE_REJECTED;
      switch (p->fields[g])
        {
        case F_LOSS: out->loss = v; out->present |= NK_IMPORT_FIELD_LOSS; break;
        case F_TPS: out->tokens_per_s = v; break;
        case F_TFLOPS: out->tflops_per_gpu = v; break;
        case F_MFU_PCT: if (v >= 0) out->mfu = v / 100; break;
        case F_MS: out->seconds = v / 1000; break;
        case F_S: out->seconds = v; break;
        case F_SAMPLES: out->samples_per_s = v; break;
        case F_BATCH: batch = v; break;
        case F_MEM_GIB: case F_MEM_GB: out->memory_max_bytes = v * GIB; break;
        case F_MEM_MIB: out->memory_max_bytes = v * MIB; break;
        default: break;
        }
    }
  if (batch > 0 && out->seconds > 0)
    out->samples_per_s = batch / out->seconds;
  out->step = (gint64) step;
  return p->fields[0] == F_STEP ? NK_LOG_LINE_STEP : NK_LOG_LINE_MEMORY;
}

/*
 * _nk_import_step_merge:
 * @into: a step
 * @from: another line's values for the same step
 *
 * Fills what @into does not have yet from @from (lines of several ranks); memory
 * takes the maximum.
 */
void
_nk_import_step_merge (NkImportStep       *into,
                       const NkImportStep *from)
{
  if (from->present & NK_IMPORT_FIELD_LOSS)
    set_loss (into, from->loss);
  set_first (&into->tokens_per_s, from->tokens_per_s);
  set_first (&into->tflops_per_gpu, from->tflops_per_gpu);
  set_first (&into->mfu, from->mfu);
  set_first (&into->seconds, from->seconds);
  set_first (&into->samples_per_s, from->samples_per_s);
  set_max (&into->memory_max_bytes, from->memory_max_bytes);
}

/* Reads one matched line into its step; a memory-only line attaches to the last step
 * seen, or waits for the first one. */
static void
apply_match (Builder       *b,
             const Pattern *p,
             GMatchInfo    *m,
             guint          line)
{
  NkImportStep one;
  NkImportStep *s = NULL;
  char *why = NULL;

  switch (parse_match (p, m, &one, &why))
    {
    case NK_LOG_LINE_REJECTED:
      reject_line (b, line, why);
      return;
    case NK_LOG_LINE_STEP:
      s = step_for (b, one.step);
      _nk_import_step_merge (s, &one);
      return;
    default:
      break;
    }
  if (isnan (one.memory_max_bytes))
    return;
  if (b->have_last)
    set_max (&step_for (b, b->last_step)->memory_max_bytes, one.memory_max_bytes);
  else
    set_max (&b->pending_memory, one.memory_max_bytes);
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

/* Replaces each byte that is not UTF-8 with '?', in place. */
static void
make_valid (char *line)
{
  const char *end;

  while (!g_utf8_validate (line, -1, &end))
    {
      line = (char *) end;
      *line++ = '?';
    }
}

typedef struct {
  GRegex *regex[G_N_ELEMENTS (patterns)];
} Regexes;

/* Compiled once per process and shared: a GRegex is immutable and matched from any
 * thread, and compiling (JIT) them all cost more than reading a short log. */
static Regexes *
regexes_get (void)
{
  static Regexes *shared;

  if (g_once_init_enter (&shared))
    {
      Regexes *r = g_new0 (Regexes, 1);

      for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
        {
          r->regex[i] = g_regex_new (patterns[i].pattern, G_REGEX_OPTIMIZE, 0, NULL);
          g_assert (r->regex[i] != NULL);
        }
      g_once_init_leave (&shared, r);
    }
  return shared;
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

/* A log's lines, cut in place in a buffer the reader owns. A NUL byte ends a line
 * as a newline does: a crashed run's log is often padded with NULs where its last
 * blocks were never written, and the restarted run writes on after them. A lone
 * "\r" (a progress bar redrawn) ends one too. */
typedef struct {
  char *buf;
  GPtrArray *lines;         /* char * into buf; too_long for a line past the bound */
  GArray *numbers;          /* guint: each line's number in the file, from 1 */
} Lines;

static char too_long[] = "";

static void
lines_split (Lines *l,
             char  *buf,
             gsize  len)
{
  guint number = 1;
  gsize start = 0;

  l->buf = buf;
  l->lines = g_ptr_array_new ();
  l->numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  for (gsize i = 0; i <= len; i++)
    {
      char c = i < len ? buf[i] : '\0';
      char *line = buf + start;

      if (i < len && c != '\n' && c != '\r' && c != '\0')
        continue;
      buf[i] = '\0';           /* buf holds len + 1 bytes */
      if (i > start)
        {
          if (i - start > NK_LOG_IMPORT_MAX_LINE)
            line = too_long;
          else
            {
              strip_ansi (line);
              make_valid (line);
            }
          g_ptr_array_add (l->lines, line);
          g_array_append_val (l->numbers, number);
        }
      if (c == '\n')
        number++;
      start = i + 1;
    }
}

static void
lines_clear (Lines *l)
{
  g_clear_pointer (&l->buf, g_free);
  g_clear_pointer (&l->lines, g_ptr_array_unref);
  g_clear_pointer (&l->numbers, g_array_unref);
}

static NkLogFormat
detect_format (Regexes *r,
               Lines   *lines)
{
  guint count[NK_LOG_FORMAT_TENSORBOARD + 1] = { 0 };
  NkLogFormat best = NK_LOG_FORMAT_AUTO;

  for (guint i = 0; i < lines->lines->len; i++)
    for (NkLogFormat f = NK_LOG_FORMAT_TORCHTITAN; f < NK_LOG_FORMAT_TENSORBOARD; f++)
      {
        g_autoptr(GMatchInfo) m = NULL;
        const char *line = g_ptr_array_index (lines->lines, i);

        if (line != too_long && match_line (r, f, line, &m) >= 0)
          count[f]++;
      }
  for (NkLogFormat f = NK_LOG_FORMAT_TORCHTITAN; f < NK_LOG_FORMAT_TENSORBOARD; f++)
    if (count[f] > 0 && (best == NK_LOG_FORMAT_AUTO || count[f] > count[best]))
      best = f;
  return best;
}

/* -- one line at a time (nk-log-follow.c) ------------------------------------------- */

/*
 * _nk_log_line_clean:
 * @line: a line, without its newline
 *
 * Removes ANSI colour codes and replaces bytes that are not UTF-8, in place, as
 * import does to each line before matching it.
 */
void
_nk_log_line_clean (char *line)
{
  strip_ansi (line);
  make_valid (line);
}

/*
 * _nk_log_line_parse:
 * @format: a format (not auto, not TensorBoard)
 * @line: a cleaned line
 * @out: (out caller-allocates): the line's step and values (the others NAN); for a
 *   memory-only line its memory in @memory_max_bytes
 * @why: (out) (transfer full): for a rejected line, why
 *
 * Reads one line as import reads it.
 *
 * Returns: what the line is
 */
NkLogLineKind
_nk_log_line_parse (NkLogFormat   format,
                    const char   *line,
                    NkImportStep *out,
                    char        **why)
{
  g_autoptr(GMatchInfo) m = NULL;
  int p = match_line (regexes_get (), format, line, &m);

  if (p < 0)
    return NK_LOG_LINE_OTHER;
  return parse_match (&patterns[p], m, out, why);
}

/*
 * _nk_log_line_detect:
 * @line: a cleaned line
 *
 * The first engine (in #NkLogFormat order) one of whose lines @line is.
 *
 * Returns: the format, or %NK_LOG_FORMAT_AUTO for none
 */
NkLogFormat
_nk_log_line_detect (const char *line)
{
  for (NkLogFormat f = NK_LOG_FORMAT_TORCHTITAN; f < NK_LOG_FORMAT_TENSORBOARD; f++)
    {
      g_autoptr(GMatchInfo) m = NULL;

      if (match_line (regexes_get (), f, line, &m) >= 0)
        return f;
    }
  return NK_LOG_FORMAT_AUTO;
}

/* The engines' end-of-run lines, where they write one:
 *   torchtitan train.py (Trainer.train): logger.info("Training completed")
 *   Megatron-LM training.py (pretrain): print_datetime('after training is done'),
 *     printed as "[after training is done] datetime: ..."
 *   llm.c train_gpt2.cu: printf0("total average iteration time: %f ms\n", ...)
 * DeepSpeed is a library the user's script calls, nanoGPT's train.py prints nothing
 * after its loop, llm.c's main.log has no such line. */
static const struct {
  NkLogFormat format;
  const char *text;
} end_lines[] = {
  { NK_LOG_FORMAT_TORCHTITAN, "Training completed" },
  { NK_LOG_FORMAT_MEGATRON, "[after training is done]" },
  { NK_LOG_FORMAT_LLMC, "total average iteration time:" },
};

/*
 * _nk_log_line_is_end:
 * @format: a format
 * @line: a cleaned line
 *
 * Whether @line is @format's end-of-run line.
 *
 * Returns: %TRUE for the engine's last line of a run
 */
gboolean
_nk_log_line_is_end (NkLogFormat  format,
                     const char  *line)
{
  for (guint i = 0; i < G_N_ELEMENTS (end_lines); i++)
    if (end_lines[i].format == format && strstr (line, end_lines[i].text) != NULL)
      return TRUE;
  return FALSE;
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

static void
read_lines (Builder       *b,
            Regexes       *r,
            Lines         *lines)
{
  for (guint i = 0; i < lines->lines->len; i++)
    {
      g_autoptr(GMatchInfo) m = NULL;
      char *line = g_ptr_array_index (lines->lines, i);
      int p;

      if (line == too_long)
        {
          b->import->skipped_lines++;
          continue;
        }
      if (g_strstrip (line)[0] == '\0')
        continue;
      p = match_line (r, b->import->format, line, &m);
      if (p < 0)
        b->import->skipped_lines++;
      else
        apply_match (b, &patterns[p], m, g_array_index (lines->numbers, guint, i));
    }
}

/* Reads @buf (@len bytes and a NUL after them), which it takes. */
static NkImport *
import_buffer (char        *buf,
               gsize        len,
               NkLogFormat  format,
               GError     **error)
{
  g_autoptr(NkImport) import = NULL;
  Lines lines;
  Regexes *r = regexes_get ();
  Builder b;

  lines_split (&lines, buf, len);
  if (format == NK_LOG_FORMAT_AUTO)
    format = detect_format (r, &lines);
  if (format == NK_LOG_FORMAT_AUTO)
    {
      lines_clear (&lines);
      unknown_format (error);
      return NULL;
    }
  import = import_new (format);
  builder_init (&b, import);
  read_lines (&b, r, &lines);
  lines_clear (&lines);
  if (import->steps->len > 0 && !isnan (b.pending_memory))
    set_max (&g_array_index (import->steps, NkImportStep, 0).memory_max_bytes, b.pending_memory);
  builder_clear (&b);
  if (!finish (import, error))
    return NULL;
  return g_steal_pointer (&import);
}

/**
 * nk_log_import_text:
 * @text: (array length=len) (element-type guint8): log text
 * @len: its bytes
 * @format: the engine that wrote it, or %NK_LOG_FORMAT_AUTO (not TensorBoard)
 * @error: return location for a #GError (%NK_LOG_IMPORT_ERROR)
 *
 * Parses log text already in memory; NUL bytes end lines.
 *
 * Returns: (transfer full) (nullable): the steps read
 */
NkImport *
nk_log_import_text (const char  *text,
                    gsize        len,
                    NkLogFormat  format,
                    GError     **error)
{
  char *buf;

  g_return_val_if_fail (format != NK_LOG_FORMAT_TENSORBOARD, NULL);
  g_return_val_if_fail (text != NULL || len == 0, NULL);

  buf = g_malloc (len + 1);
  if (len > 0)
    memcpy (buf, text, len);
  buf[len] = '\0';
  return import_buffer (buf, len, format, error);
}

/* -- DeepSpeed's CSV monitor ---------------------------------------------------------
 * deepspeed/monitor/csv_monitor.py:59-67: one file per event, named after the event
 * with '/' → '_' (Train_Samples_train_loss.csv, Train_Samples_lr.csv), first row
 * ['step', header] with header the last part of the name, then [step, value] rows;
 * the engine's step there is global_samples (runtime/engine.py:2111). */

static void
read_csv_row (Builder *b,
              char    *row,
              gboolean loss,
              guint    number)
{
  char *comma = strchr (row, ','), *end;
  guint64 step;
  double v;
  NkImportStep *s;

  if (comma == NULL || comma == row)
    {
      b->import->skipped_lines++;
      return;
    }
  *comma = '\0';
  if (!g_ascii_string_to_unsigned (row, 10, 0, G_MAXINT64, &step, NULL))
    {
      b->import->skipped_lines++;
      return;
    }
  if (step > (guint64) NK_LOG_IMPORT_MAX_STEP)
    {
      reject_line (b, number, g_strdup_printf (_("the step %s is past 2^53"), row));
      return;
    }
  v = g_ascii_strtod (comma + 1, &end);
  if (end == comma + 1 || *end != '\0')
    {
      b->import->skipped_lines++;
      return;
    }
  s = step_for (b, (gint64) step);
  if (loss)
    set_loss (s, v);
}

static gboolean
read_csv_file (const char *path,
               Builder    *b)
{
  char *text = NULL;
  gsize len = 0;
  Lines lines;
  gboolean loss;

  if (!nk_file_read_regular (path, NK_LOG_IMPORT_MAX_BYTES, &text, &len, NULL))
    return FALSE;
  lines_split (&lines, text, len);
  if (lines.lines->len == 0 || !g_str_has_prefix (g_ptr_array_index (lines.lines, 0), "step,"))
    {
      lines_clear (&lines);
      return FALSE;
    }
  loss = strstr (g_ptr_array_index (lines.lines, 0), "loss") != NULL;
  /* a file's rows are one run: a step again is the start of a new one */
  b->have_last = FALSE;
  for (guint i = 1; i < lines.lines->len; i++)
    {
      char *row = g_ptr_array_index (lines.lines, i);

      if (row == too_long)
        b->import->skipped_lines++;
      else if (g_strstrip (row)[0] != '\0')
        read_csv_row (b, row, loss, g_array_index (lines.numbers, guint, i));
    }
  lines_clear (&lines);
  return TRUE;
}

static NkImport *
import_csv_dir (const char *dir,
                GError    **error)
{
  g_autoptr(NkImport) import = import_new (NK_LOG_FORMAT_DEEPSPEED);
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  Builder b;
  guint n = 0;

  builder_init (&b, import);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_str_has_suffix (name, ".csv") && read_csv_file (path, &b))
        n++;
    }
  builder_clear (&b);
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

/* NULL when a TensorBoard point can be read into the field at @offset, else why not:
 * the same bounds as a log line's (check_value()). */
static char *
check_point (const TagMap        *map,
             const NkScalarPoint *pt,
             double               v)
{
  if (pt->step < 0 || pt->step > NK_LOG_IMPORT_MAX_STEP)
    {
      g_autofree char *step = g_strdup_printf ("%" G_GINT64_FORMAT, pt->step);

      return g_strdup_printf (_("the step %s of “%s” is not between 0 and 2^53"), step, map->tag);
    }
  if (map->field == G_STRUCT_OFFSET (NkImportStep, loss))
    return NULL;
  if (map->field == G_STRUCT_OFFSET (NkImportStep, mfu))
    return isnan (v) || v > 1 ? g_strdup_printf (_("an MFU of %g %% is not between 0 and 100 %%"), v * 100)
                              : NULL;
  if (!isfinite (v) || v < 0)
    return g_strdup_printf (_("the value %g of “%s” is negative or not a number"), v, map->tag);
  return NULL;
}

/*
 * _nk_log_import_point:
 * @tag: a TensorBoard tag
 * @pt: one of its points
 * @out: (out caller-allocates): the point as a step with one field (the others NAN)
 * @why: (out) (transfer full): for a rejected point, why
 *
 * Reads one TensorBoard point as import reads it: %NK_LOG_LINE_OTHER for a tag
 * that is none of the engines' known ones.
 *
 * Returns: what the point is
 */
NkLogLineKind
_nk_log_import_point (const char          *tag,
                      const NkScalarPoint *pt,
                      NkImportStep        *out,
                      char               **why)
{
  const NkImportStep empty = { 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0 };
  const TagMap *map = NULL;
  double v;

  for (guint t = 0; t < G_N_ELEMENTS (tag_map) && map == NULL; t++)
    if (strcmp (tag, tag_map[t].tag) == 0)
      map = &tag_map[t];
  if (map == NULL)
    return NK_LOG_LINE_OTHER;
  v = pt->value * map->scale;
  if ((*why = check_point (map, pt, v)) != NULL)
    return NK_LOG_LINE_REJECTED;
  *out = empty;
  out->step = pt->step;
  if (map->field == G_STRUCT_OFFSET (NkImportStep, loss))
    {
      out->loss = v;
      out->present |= NK_IMPORT_FIELD_LOSS;
    }
  else if (v >= 0)
    *(double *) G_STRUCT_MEMBER_P (out, map->field) = v;
  return NK_LOG_LINE_STEP;
}

static NkImport *
import_tensorboard (const char *path,
                    GError    **error)
{
  g_autoptr(NkImport) import = import_new (NK_LOG_FORMAT_TENSORBOARD);
  g_autoptr(NkScalarLog) log = nk_scalar_log_read (path, error);
  Builder b;

  if (log == NULL)
    return NULL;
  builder_init (&b, import);
  import->skipped_lines = log->n_skipped;
  for (guint t = 0; t < G_N_ELEMENTS (tag_map); t++)
    {
      GArray *a = nk_scalar_log_get (log, tag_map[t].tag);

      /* each tag's points are in step order: a tag starting over is no restart */
      b.have_last = FALSE;
      for (guint i = 0; a != NULL && i < a->len; i++)
        {
          NkImportStep one;
          char *why = NULL;

          if (_nk_log_import_point (tag_map[t].tag, &g_array_index (a, NkScalarPoint, i),
                                    &one, &why) == NK_LOG_LINE_REJECTED)
            {
              import->skipped_lines++;
              import->rejected_lines++;
              if (import->first_rejected == NULL)
                import->first_rejected = why;
              else
                g_free (why);
              continue;
            }
          _nk_import_step_merge (step_for (&b, one.step), &one);
        }
    }
  builder_clear (&b);
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

/**
 * nk_log_import:
 * @path: a log file, or a CSV-monitor or TensorBoard folder
 * @format: the engine that wrote it, or %NK_LOG_FORMAT_AUTO
 * @error: return location for a #GError (%NK_LOG_IMPORT_ERROR naming @path)
 *
 * Reads a log. Anything but a regular file or a folder (a FIFO, a device, a socket) is
 * refused at once with a sentence naming it, as is a file past
 * %NK_LOG_IMPORT_MAX_BYTES.
 *
 * Returns: (transfer full) (nullable): the steps read
 */
NkImport *
nk_log_import (const char  *path,
               NkLogFormat  format,
               GError     **error)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr(GError) local = NULL;
  char *text = NULL;
  gsize len = 0;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return import_dir (path, format, error);
  if (format == NK_LOG_FORMAT_TENSORBOARD
      || (format == NK_LOG_FORMAT_AUTO && strstr (base, "tfevents") != NULL))
    return import_tensorboard (path, error);
  /* never blocks on a FIFO nor reads /dev/zero forever: refused by name */
  if (!nk_file_read_regular (path, NK_LOG_IMPORT_MAX_BYTES, &text, &len, &local))
    {
      g_set_error_literal (error, NK_LOG_IMPORT_ERROR, NK_LOG_IMPORT_ERROR_IO, local->message);
      return NULL;
    }
  if ((format == NK_LOG_FORMAT_AUTO || format == NK_LOG_FORMAT_DEEPSPEED)
      && g_str_has_suffix (base, ".csv") && g_str_has_prefix (text, "step,"))
    {
      g_autoptr(NkImport) import = import_new (NK_LOG_FORMAT_DEEPSPEED);
      Builder b;

      g_free (text);
      builder_init (&b, import);
      read_csv_file (path, &b);
      builder_clear (&b);
      return finish (import, error) ? g_steal_pointer (&import) : NULL;
    }
  return import_buffer (text, len, format, error);
}

/**
 * nk_import_get_n_steps:
 * @import: an import
 *
 * The number of steps read: the length of @import's steps, for a binding, which
 * cannot read an array of structs held in a field.
 *
 * Returns: how many steps there are
 */
guint
nk_import_get_n_steps (const NkImport *import)
{
  g_return_val_if_fail (import != NULL, 0);

  return import->steps->len;
}

/**
 * nk_import_get_step:
 * @import: an import
 * @index: which step, from 0, in step order
 * @out_step: (out caller-allocates): the step
 *
 * One step of @import, copied out (see nk_import_get_n_steps()).
 *
 * Returns: %TRUE, or %FALSE when @index is past the last step
 */
gboolean
nk_import_get_step (const NkImport *import,
                    guint           index,
                    NkImportStep   *out_step)
{
  g_return_val_if_fail (import != NULL, FALSE);
  g_return_val_if_fail (out_step != NULL, FALSE);

  if (index >= import->steps->len)
    return FALSE;
  *out_step = g_array_index (import->steps, NkImportStep, index);
  return TRUE;
}

/**
 * nk_import_copy:
 * @import: an import
 *
 * Copies the import, its steps and its sentence.
 *
 * Returns: (transfer full): the copy; free it with nk_import_free()
 */
NkImport *
nk_import_copy (const NkImport *import)
{
  NkImport *copy;

  g_return_val_if_fail (import != NULL, NULL);

  copy = g_memdup2 (import, sizeof *import);
  copy->steps = g_array_copy (import->steps);
  copy->first_rejected = g_strdup (import->first_rejected);
  return copy;
}

/**
 * nk_import_free:
 * @import: (nullable) (transfer full): an import
 *
 * Frees the import and its steps.
 */
void
nk_import_free (NkImport *import)
{
  if (import == NULL)
    return;
  g_array_unref (import->steps);
  g_free (import->first_rejected);
  g_free (import);
}
