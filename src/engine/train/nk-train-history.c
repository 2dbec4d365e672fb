/* nk-train-history.c: a run's metrics as run-length or chunked columns of 64-bit words
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "nk-json.h"
#include "nk-train-history.h"

/* A column stays run-length coded while its runs take less than half the bytes a
 * plain array would; the first few runs never count, so a short history of a
 * varying column does not switch at once. */
#define MIN_RUNS 64

typedef struct {
  guint64 start;   /* the first index the run covers */
  guint64 word;
} WordRun;

typedef struct {
  WordRun  *runs;       /* while chunks == NULL */
  gsize     n_runs;
  gsize     runs_cap;
  guint64 **chunks;     /* a plain column: NK_TRAIN_HISTORY_CHUNK words each */
  gsize     n_chunks;
  gsize     chunks_cap;
} Column;

struct _NkTrainHistory
{
  gsize  n;
  Column columns[NK_TRAIN_N_COLUMNS];
};

typedef enum {
  KIND_U64,
  KIND_DOUBLE,
  KIND_BOOL,
} Kind;

/* ---- where each column lives in NkTrainMetrics ----------------------------------- */

typedef struct {
  gsize offset;
  Kind  kind;
} Field;

static const Field scalar_fields[NK_TRAIN_COLUMN_MEMORY] = {
  [NK_TRAIN_COLUMN_STEP] = { offsetof (NkTrainMetrics, step), KIND_U64 },
  [NK_TRAIN_COLUMN_LOSS] = { offsetof (NkTrainMetrics, loss), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_FLOPS] = { offsetof (NkTrainMetrics, flops), KIND_U64 },
  [NK_TRAIN_COLUMN_FLOPS_FORWARD] = { offsetof (NkTrainMetrics, flops_forward), KIND_U64 },
  [NK_TRAIN_COLUMN_FLOPS_BACKWARD] = { offsetof (NkTrainMetrics, flops_backward), KIND_U64 },
  [NK_TRAIN_COLUMN_FLOPS_MATMUL] = { offsetof (NkTrainMetrics, flops_matmul), KIND_U64 },
  [NK_TRAIN_COLUMN_SECONDS] = { offsetof (NkTrainMetrics, seconds), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_SECONDS_FORWARD] = { offsetof (NkTrainMetrics, seconds_forward), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_SECONDS_BACKWARD] = { offsetof (NkTrainMetrics, seconds_backward), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_SECONDS_OPTIMIZER] = { offsetof (NkTrainMetrics, seconds_optimizer), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_FLOPS_PER_S] = { offsetof (NkTrainMetrics, flops_per_s), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_PEAK_FLOPS_PER_S] = { offsetof (NkTrainMetrics, peak_flops_per_s), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_MFU] = { offsetof (NkTrainMetrics, mfu), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_LOSS_SCALE] = { offsetof (NkTrainMetrics, loss_scale), KIND_DOUBLE },
  [NK_TRAIN_COLUMN_SKIPPED] = { offsetof (NkTrainMetrics, skipped), KIND_BOOL },
  [NK_TRAIN_COLUMN_SKIPPED_STEPS] = { offsetof (NkTrainMetrics, skipped_steps), KIND_U64 },
};

static Field
column_field (NkTrainColumn column)
{
  Field f;

  if (column == NK_TRAIN_COLUMN_FLOPS_FORMULA)
    {
      f.offset = offsetof (NkTrainMetrics, flops_formula);
      f.kind = KIND_DOUBLE;
    }
  else if (column == NK_TRAIN_COLUMN_FLOPS_ATTENTION)
    {
      f.offset = offsetof (NkTrainMetrics, flops_attention);
      f.kind = KIND_U64;
    }
  else if (column == NK_TRAIN_COLUMN_QUANT_FLUSHED || column == NK_TRAIN_COLUMN_QUANT_CLIPPED)
    {
      f.offset = column == NK_TRAIN_COLUMN_QUANT_FLUSHED ? offsetof (NkTrainMetrics, quant_flushed)
                                                         : offsetof (NkTrainMetrics, quant_clipped);
      f.kind = KIND_DOUBLE;
    }
  else if (column >= NK_TRAIN_COLUMN_PREDICTED)
    {
      f.offset = offsetof (NkTrainMetrics, predicted)
                 + (column - NK_TRAIN_COLUMN_PREDICTED) * sizeof (double);
      f.kind = KIND_DOUBLE;
    }
  else if (column >= NK_TRAIN_COLUMN_MEMORY_PEAK)
    {
      f.offset = offsetof (NkTrainMetrics, memory_peak)
                 + (column - NK_TRAIN_COLUMN_MEMORY_PEAK) * sizeof (guint64);
      f.kind = KIND_U64;
    }
  else if (column >= NK_TRAIN_COLUMN_MEMORY)
    {
      f.offset = offsetof (NkTrainMetrics, memory)
                 + (column - NK_TRAIN_COLUMN_MEMORY) * sizeof (guint64);
      f.kind = KIND_U64;
    }
  else
    f = scalar_fields[column];
  return f;
}

static guint64
field_word (const NkTrainMetrics *m,
            NkTrainColumn         column)
{
  Field f = column_field (column);
  const char *p = (const char *) m + f.offset;
  guint64 word;

  if (f.kind == KIND_BOOL)
    return *(const gboolean *) p ? 1 : 0;
  memcpy (&word, p, sizeof word);
  return word;
}

static void
set_field_word (NkTrainMetrics *m,
                NkTrainColumn   column,
                guint64         word)
{
  Field f = column_field (column);
  char *p = (char *) m + f.offset;

  if (f.kind == KIND_BOOL)
    *(gboolean *) p = word != 0;
  else
    memcpy (p, &word, sizeof word);
}

static double
word_to_double (NkTrainColumn column,
                guint64       word)
{
  double v;

  if (column_field (column).kind != KIND_DOUBLE)
    return (double) word;
  memcpy (&v, &word, sizeof v);
  return v;
}

static guint64
double_bits (double v)
{
  guint64 word;

  memcpy (&word, &v, sizeof word);
  return word;
}

/* ---- predictions: what a row's earlier columns (lower in NkTrainColumn) say ------ */

static gboolean
is_predicted (NkTrainColumn column)
{
  return column == NK_TRAIN_COLUMN_STEP || column == NK_TRAIN_COLUMN_FLOPS_PER_S
         || column == NK_TRAIN_COLUMN_MFU;
}

/* The trainer's own formulas (nk-train-loop.c), so a live run's rows store zeros;
 * any other row is kept exactly all the same, as a nonzero difference. */
static guint64
predicted_word (NkTrainColumn         column,
                gsize                 index,
                const NkTrainMetrics *row)
{
  switch ((int) column)
    {
    case NK_TRAIN_COLUMN_STEP:
      return (guint64) index + 1;
    case NK_TRAIN_COLUMN_FLOPS_PER_S:
      return double_bits (row->seconds > 0 ? (double) row->flops / row->seconds : NAN);
    case NK_TRAIN_COLUMN_MFU:
      return double_bits (row->flops_per_s / row->peak_flops_per_s);
    default:
      return 0;
    }
}

/* ---- one column ------------------------------------------------------------------ */

static void
column_clear (Column *col)
{
  for (gsize c = 0; c < col->n_chunks; c++)
    g_free (col->chunks[c]);
  g_free (col->chunks);
  g_free (col->runs);
  memset (col, 0, sizeof *col);
}

static void
plain_set (Column  *col,
           gsize    index,
           guint64  word)
{
  gsize chunk = index / NK_TRAIN_HISTORY_CHUNK;

  while (chunk >= col->n_chunks)
    {
      if (col->n_chunks == col->chunks_cap)
        {
          col->chunks_cap = MAX (col->chunks_cap * 2, 16);
          col->chunks = g_renew (guint64 *, col->chunks, col->chunks_cap);
        }
      col->chunks[col->n_chunks++] = g_new (guint64, NK_TRAIN_HISTORY_CHUNK);
    }
  col->chunks[chunk][index % NK_TRAIN_HISTORY_CHUNK] = word;
}

/* The run holding @index: the last one starting at or before it. */
static gsize
run_at (const Column *col,
        gsize         index)
{
  gsize lo = 0, hi = col->n_runs;

  while (hi - lo > 1)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (col->runs[mid].start <= index)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

static guint64
column_word (const Column *col,
             gsize         index)
{
  if (col->chunks != NULL)
    return col->chunks[index / NK_TRAIN_HISTORY_CHUNK][index % NK_TRAIN_HISTORY_CHUNK];
  return col->runs[run_at (col, index)].word;
}

/* Rewrites the runs covering [0, n) as a plain column. */
static void
column_make_plain (Column *col,
                   gsize   n)
{
  g_autofree WordRun *runs = g_steal_pointer (&col->runs);
  gsize n_runs = col->n_runs;

  col->n_runs = col->runs_cap = 0;
  for (gsize r = 0; r < n_runs; r++)
    {
      gsize end = r + 1 < n_runs ? runs[r + 1].start : n;

      for (gsize i = runs[r].start; i < end; i++)
        plain_set (col, i, runs[r].word);
    }
}

/* Appends @word at @index (the column's length). */
static void
column_append (Column  *col,
               gsize    index,
               guint64  word)
{
  if (col->chunks != NULL)
    {
      plain_set (col, index, word);
      return;
    }
  if (col->n_runs > 0 && col->runs[col->n_runs - 1].word == word)
    return;
  if (col->n_runs >= MIN_RUNS && (col->n_runs + 1) * sizeof (WordRun) > (index + 1) * sizeof (guint64) / 2)
    {
      column_make_plain (col, index);
      plain_set (col, index, word);
      return;
    }
  if (col->n_runs == col->runs_cap)
    {
      col->runs_cap = MAX (col->runs_cap * 2, 4);
      col->runs = g_renew (WordRun, col->runs, col->runs_cap);
    }
  col->runs[col->n_runs].start = index;
  col->runs[col->n_runs].word = word;
  col->n_runs++;
}

static gsize
column_memory_size (const Column *col)
{
  return col->runs_cap * sizeof (WordRun) + col->chunks_cap * sizeof (guint64 *)
         + col->n_chunks * NK_TRAIN_HISTORY_CHUNK * sizeof (guint64);
}

/* ---- the history ----------------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (NkTrainHistory, nk_train_history, nk_train_history_copy, nk_train_history_free)

/**
 * nk_train_history_new:
 *
 * A history with no steps, to append a run's steps to.
 *
 * Returns: (transfer full): an empty history
 */
NkTrainHistory *
nk_train_history_new (void)
{
  return g_new0 (NkTrainHistory, 1);
}

static void
column_copy (Column       *to,
             const Column *from)
{
  *to = *from;
  to->runs = from->runs_cap ? g_memdup2 (from->runs, from->runs_cap * sizeof (WordRun)) : NULL;
  to->chunks = from->chunks_cap ? g_new0 (guint64 *, from->chunks_cap) : NULL;
  for (gsize c = 0; c < from->n_chunks; c++)
    to->chunks[c] = g_memdup2 (from->chunks[c], NK_TRAIN_HISTORY_CHUNK * sizeof (guint64));
}

/**
 * nk_train_history_copy:
 * @self: a history
 *
 * Copies the history, column by column as it is kept (its compressed runs and
 * chunks), so the copy takes nk_train_history_get_memory_size() bytes.
 *
 * Returns: (transfer full): the copy; free it with nk_train_history_free()
 */
NkTrainHistory *
nk_train_history_copy (NkTrainHistory *self)
{
  NkTrainHistory *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_new0 (NkTrainHistory, 1);
  copy->n = self->n;
  for (guint c = 0; c < NK_TRAIN_N_COLUMNS; c++)
    column_copy (&copy->columns[c], &self->columns[c]);
  return copy;
}

/**
 * nk_train_history_free:
 * @self: (nullable) (transfer full): a history
 *
 * Frees the history and every step it holds.
 */
void
nk_train_history_free (NkTrainHistory *self)
{
  if (self == NULL)
    return;
  nk_train_history_clear (self);
  g_free (self);
}

/**
 * nk_train_history_clear:
 * @self: a history
 *
 * Drops every step and the memory they held.
 */
void
nk_train_history_clear (NkTrainHistory *self)
{
  g_return_if_fail (self != NULL);

  for (guint c = 0; c < NK_TRAIN_N_COLUMNS; c++)
    column_clear (&self->columns[c]);
  self->n = 0;
}

/**
 * nk_train_history_append:
 * @self: a history
 * @metrics: the next step's metrics (steps should rise, for
 *   nk_train_history_lower_bound())
 *
 * Keeps a copy of @metrics; O(1) amortized, no copy of what is kept already.
 */
void
nk_train_history_append (NkTrainHistory       *self,
                         const NkTrainMetrics *metrics)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (metrics != NULL);

  for (guint c = 0; c < NK_TRAIN_N_COLUMNS; c++)
    {
      guint64 word = field_word (metrics, c);

      if (is_predicted (c))
        word -= predicted_word (c, self->n, metrics);
      column_append (&self->columns[c], self->n, word);
    }
  self->n++;
}

/**
 * nk_train_history_append_steps:
 * @self: a history
 * @steps: (array length=n_steps): what nk_trainer_get_history_range() returned
 * @n_steps: their count
 *
 * Appends the steps in order, as nk_train_history_append() each.
 */
void
nk_train_history_append_steps (NkTrainHistory       *self,
                               const NkTrainMetrics *steps,
                               gsize                 n_steps)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (steps != NULL || n_steps == 0);

  for (gsize i = 0; i < n_steps; i++)
    nk_train_history_append (self, &steps[i]);
}

/**
 * nk_train_history_get_n:
 * @self: a history
 *
 * The number of steps held.
 *
 * Returns: the count
 */
gsize
nk_train_history_get_n (NkTrainHistory *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n;
}

/**
 * nk_train_history_get:
 * @self: a history
 * @index: from 0 to nk_train_history_get_n() - 1
 * @out: (out caller-allocates): the step's metrics, bit for bit as appended
 *   (#NkTrainMetrics.skipped as 0 or 1)
 *
 * Decodes one step.
 */
void
nk_train_history_get (NkTrainHistory *self,
                      gsize           index,
                      NkTrainMetrics *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (index < self->n);
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  /* In column order, so each prediction finds the earlier columns it reads. */
  for (guint c = 0; c < NK_TRAIN_N_COLUMNS; c++)
    {
      guint64 word = column_word (&self->columns[c], index);

      if (is_predicted (c))
        word += predicted_word (c, index, out);
      set_field_word (out, c, word);
    }
}

static guint64
decoded_word (NkTrainHistory *self,
              NkTrainColumn   column,
              gsize           index)
{
  NkTrainMetrics row = { 0, };
  guint64 word = column_word (&self->columns[column], index);

  if (!is_predicted (column))
    return word;
  if (column == NK_TRAIN_COLUMN_FLOPS_PER_S)
    {
      row.flops = decoded_word (self, NK_TRAIN_COLUMN_FLOPS, index);
      row.seconds = word_to_double (NK_TRAIN_COLUMN_SECONDS,
                                    decoded_word (self, NK_TRAIN_COLUMN_SECONDS, index));
    }
  else if (column == NK_TRAIN_COLUMN_MFU)
    {
      row.flops_per_s = word_to_double (NK_TRAIN_COLUMN_FLOPS_PER_S,
                                        decoded_word (self, NK_TRAIN_COLUMN_FLOPS_PER_S, index));
      row.peak_flops_per_s = word_to_double (NK_TRAIN_COLUMN_PEAK_FLOPS_PER_S,
                                             decoded_word (self, NK_TRAIN_COLUMN_PEAK_FLOPS_PER_S, index));
    }
  return word + predicted_word (column, index, &row);
}

/**
 * nk_train_history_get_value:
 * @self: a history
 * @column: which field
 * @index: which step, below nk_train_history_get_n()
 *
 * Reads one cell without decoding the whole step.
 *
 * Returns: the cell as a double (counts converted, skipped as 0 or 1)
 */
double
nk_train_history_get_value (NkTrainHistory *self,
                            NkTrainColumn   column,
                            gsize           index)
{
  g_return_val_if_fail (self != NULL, NAN);
  g_return_val_if_fail (column < NK_TRAIN_N_COLUMNS, NAN);
  g_return_val_if_fail (index < self->n, NAN);

  return word_to_double (column, decoded_word (self, column, index));
}

/**
 * nk_train_history_copy_column:
 * @self: a history
 * @column: which
 * @from: the first index
 * @n: at most this many
 * @out: (array length=n): where the values go, as nk_train_history_get_value()
 *
 * What a plot needs of one column, without asking cell by cell.
 *
 * Returns: how many were copied (fewer than @n at the end)
 */
gsize
nk_train_history_copy_column (NkTrainHistory *self,
                              NkTrainColumn   column,
                              gsize           from,
                              gsize           n,
                              double         *out)
{
  const Column *col;
  gsize count, r = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (column < NK_TRAIN_N_COLUMNS, 0);
  g_return_val_if_fail (out != NULL || n == 0, 0);

  count = from < self->n ? MIN (n, self->n - from) : 0;
  col = &self->columns[column];
  if (count > 0 && col->chunks == NULL)
    r = run_at (col, from);
  for (gsize i = 0; i < count; i++)
    {
      gsize index = from + i;
      guint64 word;

      if (is_predicted (column))
        word = decoded_word (self, column, index);
      else if (col->chunks != NULL)
        word = column_word (col, index);
      else
        {
          /* Walk the runs instead of searching for each cell. */
          while (r + 1 < col->n_runs && col->runs[r + 1].start <= index)
            r++;
          word = col->runs[r].word;
        }
      out[i] = word_to_double (column, word);
    }
  return count;
}

/**
 * nk_train_history_lower_bound:
 * @self: a history
 * @step: a step number
 *
 * Finds a step by bisection (steps rise through the history).
 *
 * Returns: the index of the first step at or after @step (get_n() if none)
 */
gsize
nk_train_history_lower_bound (NkTrainHistory *self,
                              guint64         step)
{
  gsize lo = 0, hi;

  g_return_val_if_fail (self != NULL, 0);

  hi = self->n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (decoded_word (self, NK_TRAIN_COLUMN_STEP, mid) < step)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/**
 * nk_train_history_get_memory_size:
 * @self: a history
 *
 * What keeping the history costs.
 *
 * Returns: the bytes the history holds, allocated capacity included
 */
gsize
nk_train_history_get_memory_size (NkTrainHistory *self)
{
  gsize bytes;

  g_return_val_if_fail (self != NULL, 0);

  bytes = sizeof *self;
  for (guint c = 0; c < NK_TRAIN_N_COLUMNS; c++)
    bytes += column_memory_size (&self->columns[c]);
  return bytes;
}

/**
 * nk_train_history_to_csv:
 * @self: a history
 * @device: (nullable): the run's device name
 *
 * The CSV export of the whole history.
 *
 * Returns: (transfer full): nk_train_metrics_to_csv() of every step kept
 */
char *
nk_train_history_to_csv (NkTrainHistory *self,
                         const char     *device)
{
  GString *out;

  g_return_val_if_fail (self != NULL, NULL);

  out = g_string_new (NK_TRAIN_CSV_HEADER);
  for (gsize i = 0; i < self->n; i++)
    {
      NkTrainMetrics m;

      nk_train_history_get (self, i, &m);
      nk_train_metrics_append_csv (&m, device, out);
    }
  return g_string_free (out, FALSE);
}

/**
 * nk_train_history_to_json_lines:
 * @self: a history
 * @device: (nullable): the run's device name
 *
 * The JSON Lines export of the whole history.
 *
 * Returns: (transfer full): nk_train_metrics_to_json_lines() of every step kept
 */
char *
nk_train_history_to_json_lines (NkTrainHistory *self,
                                const char     *device)
{
  GString *out;
  NkTrainMetrics m = { 0, };

  g_return_val_if_fail (self != NULL, NULL);

  m.loss = NAN;
  out = g_string_new (NULL);
  for (gsize i = 0; i <= self->n; i++)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *line = NULL;

      if (i < self->n)
        {
          nk_train_history_get (self, i, &m);
          nk_train_metrics_build_json (&m, device, b);
        }
      else
        nk_train_done_build_json (m.step, m.loss, b);
      line = nk_json_to_line (b);
      g_string_append (out, line);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}
