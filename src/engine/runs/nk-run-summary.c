/* nk-run-summary.c: a run in one line of figures: final and best loss, tokens, throughput, MFU, peak memory
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "nk-run-dir.h"
#include "nk-run-summary.h"
#include "nk-units.h"

G_DEFINE_BOXED_TYPE (NkRunSummary, nk_run_summary, nk_run_summary_copy, nk_run_summary_free)

/* The buckets a run folder keeps (nk-run-metrics.c): a live run and the same run
 * read back from disk have the same peak. */
static const NkBucket kept_buckets[] = {
  NK_BUCKET_PARAMS, NK_BUCKET_GRADS, NK_BUCKET_OPTIMIZER, NK_BUCKET_ACTIVATIONS,
};

/**
 * nk_run_summary_copy:
 * @summary: a summary
 *
 * Copies a summary.
 *
 * Returns: (transfer full): a copy of @summary
 */
NkRunSummary *
nk_run_summary_copy (const NkRunSummary *summary)
{
  g_return_val_if_fail (summary != NULL, NULL);
  return g_memdup2 (summary, sizeof *summary);
}

/**
 * nk_run_summary_free:
 * @summary: (nullable): a summary from nk_run_summary_copy()
 *
 * Frees @summary.
 */
void
nk_run_summary_free (NkRunSummary *summary)
{
  g_free (summary);
}

/**
 * nk_run_summary_init:
 * @summary: (out caller-allocates): a summary
 *
 * Sets @summary to a run with no step: every figure unknown.
 */
void
nk_run_summary_init (NkRunSummary *summary)
{
  g_return_if_fail (summary != NULL);

  summary->last_step = 0;
  summary->best_step = 0;
  for (guint f = 0; f < NK_RUN_SUMMARY_N_FIELDS; f++)
    summary->value[f] = NAN;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The median of @values[0..n) (sorted in place): the middle one, or the mean of
 * the two middle ones; NAN for none. */
static double
median (double *values,
        gsize   n)
{
  if (n == 0)
    return NAN;
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* A step's loss into the summary's best; @loss may be any double. */
static void
take_loss (NkRunSummary *out,
           guint64       step,
           double        loss)
{
  if (isfinite (loss) && !(loss >= out->value[NK_RUN_SUMMARY_BEST_LOSS]))
    {
      out->value[NK_RUN_SUMMARY_BEST_LOSS] = loss;
      out->best_step = step;
    }
}

/**
 * nk_run_summary_from_history:
 * @history: every step of a run of Napkin's
 * @tokens_per_step: the tokens a step takes (#NkTrainPrediction.tokens_per_step),
 *   NAN when not known
 * @out: (out caller-allocates): the run's figures
 *
 * Summarises a run's steps. The final loss is the last step's (NAN when it is not
 * finite: a diverged run); the best is the lowest finite loss and its step. Tokens
 * seen are @tokens_per_step times the last step's number; tokens per second are
 * @tokens_per_step over each step's time, and the MFU each step's, both the median
 * over the steps after the first with a time (resp. an MFU) above zero. The peak
 * memory is the most bytes live after any step in the buckets a run folder keeps
 * (params, grads, optimizer, activations); NAN when every step says 0.
 */
void
nk_run_summary_from_history (NkTrainHistory *history,
                             double          tokens_per_step,
                             NkRunSummary   *out)
{
  gsize n;
  g_autofree double *rates = NULL;
  g_autofree double *mfus = NULL;
  gsize n_rates = 0, n_mfus = 0;
  double peak = 0;
  gboolean tokens_known = isfinite (tokens_per_step) && tokens_per_step > 0;

  g_return_if_fail (history != NULL && out != NULL);

  nk_run_summary_init (out);
  n = nk_train_history_get_n (history);
  if (n == 0)
    return;
  rates = g_new (double, n);
  mfus = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      guint64 step = (guint64) nk_train_history_get_value (history, NK_TRAIN_COLUMN_STEP, i);
      double seconds = nk_train_history_get_value (history, NK_TRAIN_COLUMN_SECONDS, i);
      double mfu = nk_train_history_get_value (history, NK_TRAIN_COLUMN_MFU, i);
      double bytes = 0;

      take_loss (out, step, nk_train_history_get_value (history, NK_TRAIN_COLUMN_LOSS, i));
      for (guint b = 0; b < G_N_ELEMENTS (kept_buckets); b++)
        bytes += nk_train_history_get_value (history, NK_TRAIN_COLUMN_MEMORY + kept_buckets[b], i);
      peak = MAX (peak, bytes);
      /* the first step warms up, unless it is the only one */
      if (i == 0 && n > 1)
        continue;
      if (tokens_known && isfinite (seconds) && seconds > 0)
        rates[n_rates++] = tokens_per_step / seconds;
      if (isfinite (mfu) && mfu > 0)
        mfus[n_mfus++] = mfu;
    }
  out->last_step = (guint64) nk_train_history_get_value (history, NK_TRAIN_COLUMN_STEP, n - 1);
  out->value[NK_RUN_SUMMARY_FINAL_LOSS] = nk_train_history_get_value (history, NK_TRAIN_COLUMN_LOSS, n - 1);
  if (!isfinite (out->value[NK_RUN_SUMMARY_FINAL_LOSS]))
    out->value[NK_RUN_SUMMARY_FINAL_LOSS] = NAN;
  if (tokens_known)
    out->value[NK_RUN_SUMMARY_TOKENS] = tokens_per_step * (double) out->last_step;
  out->value[NK_RUN_SUMMARY_TOKENS_PER_S] = median (rates, n_rates);
  out->value[NK_RUN_SUMMARY_MFU] = median (mfus, n_mfus);
  out->value[NK_RUN_SUMMARY_PEAK_MEMORY] = peak > 0 ? peak : NAN;
}

/* A logged step's tokens per second for the whole job: torchtitan prints them per
 * GPU (times the plan's GPUs), DeepSpeed prints sequences (times the plan's
 * sequence length); NAN when the step or the plan cannot tell. */
static double
job_tokens_per_s (const NkImport           *import,
                  const NkImportStep       *s,
                  const NkImportPrediction *plan)
{
  double gpus = plan != NULL ? plan->gpus : NAN;
  double seq = plan != NULL ? plan->seq : NAN;
  double rate = s->tokens_per_s;

  if (import->format == NK_LOG_FORMAT_TORCHTITAN)
    rate *= gpus;
  if (!isfinite (rate))
    rate = s->samples_per_s * seq;
  return isfinite (rate) ? rate : NAN;
}

/**
 * nk_run_summary_from_import:
 * @import: a log of another engine (nk_log_import())
 * @plan: (nullable): the plan the run is compared with: its GPU count turns
 *   torchtitan's per-GPU tokens into the job's, its sequence length DeepSpeed's
 *   sequences into tokens
 * @out: (out caller-allocates): the run's figures
 *
 * Summarises a log's steps. The final loss is that of the last step that printed
 * one (NAN when it is not finite); the best is the lowest finite loss and its step.
 * Tokens per second (the whole job's) and the MFU are the medians over the steps
 * after the first; the peak memory is the largest a step printed. A step's tokens
 * are its job tokens per second times its time, and tokens seen the median step's
 * tokens times the last step's number (with @plan's tokens per second times its
 * step time where no step has both).
 */
void
nk_run_summary_from_import (const NkImport           *import,
                            const NkImportPrediction *plan,
                            NkRunSummary             *out)
{
  guint n;
  g_autofree double *rates = NULL;
  g_autofree double *mfus = NULL;
  g_autofree double *tokens = NULL;
  gsize n_rates = 0, n_mfus = 0, n_tokens = 0;
  double tokens_per_step;

  g_return_if_fail (import != NULL && out != NULL);

  nk_run_summary_init (out);
  n = import->steps->len;
  if (n == 0)
    return;
  rates = g_new (double, n);
  mfus = g_new (double, n);
  tokens = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const NkImportStep *s = &g_array_index (import->steps, NkImportStep, i);
      guint64 step = (guint64) MAX (s->step, 0);
      double rate = job_tokens_per_s (import, s, plan);

      if (s->present & NK_IMPORT_FIELD_LOSS)
        {
          out->value[NK_RUN_SUMMARY_FINAL_LOSS] = isfinite (s->loss) ? s->loss : NAN;
          take_loss (out, step, s->loss);
        }
      if (isfinite (s->memory_max_bytes) && !(s->memory_max_bytes <= out->value[NK_RUN_SUMMARY_PEAK_MEMORY]))
        out->value[NK_RUN_SUMMARY_PEAK_MEMORY] = s->memory_max_bytes;
      if (isfinite (rate * s->seconds))
        tokens[n_tokens++] = rate * s->seconds;
      if (i == 0 && n > 1)
        continue;
      if (isfinite (rate))
        rates[n_rates++] = rate;
      if (isfinite (s->mfu))
        mfus[n_mfus++] = s->mfu;
    }
  out->last_step = (guint64) MAX (g_array_index (import->steps, NkImportStep, n - 1).step, 0);
  tokens_per_step = median (tokens, n_tokens);
  if (!isfinite (tokens_per_step) && plan != NULL)
    tokens_per_step = plan->tokens_per_s * plan->seconds;
  if (isfinite (tokens_per_step) && tokens_per_step > 0)
    out->value[NK_RUN_SUMMARY_TOKENS] = tokens_per_step * (double) out->last_step;
  out->value[NK_RUN_SUMMARY_TOKENS_PER_S] = median (rates, n_rates);
  out->value[NK_RUN_SUMMARY_MFU] = median (mfus, n_mfus);
}

/**
 * nk_run_summary_read:
 * @dir: a run folder (nk-run-dir.h)
 * @out: (out caller-allocates): the run's figures
 * @error: return location for a #GError
 *
 * Reads a run folder's steps and summarises them as nk_run_summary_from_history()
 * does, with the tokens per step its config predicts (nk_train_config_predict()),
 * or else its plan.json's. Reads the whole of metrics.jsonl: call it on a thread
 * for a run of a million steps.
 *
 * Returns: %FALSE when the folder is no readable run
 */
gboolean
nk_run_summary_read (const char    *dir,
                     NkRunSummary  *out,
                     GError       **error)
{
  g_autoptr(NkRunInfo) info = NULL;
  g_autoptr(NkTrainHistory) history = NULL;
  NkRunMetricsInfo metrics = { 0, };
  double tokens_per_step = NAN;

  g_return_val_if_fail (dir != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  info = nk_run_info_read (dir, error);
  if (info == NULL)
    return FALSE;
  if (info->config != NULL)
    {
      NkTrainPrediction prediction;

      nk_train_config_predict (info->config, NAN, &prediction);
      tokens_per_step = prediction.tokens_per_step;
    }
  if (!(tokens_per_step > 0) && info->has_plan)
    tokens_per_step = info->prediction.tokens_per_step;
  history = nk_train_history_new ();
  if (!nk_run_dir_read_metrics (dir, history, &metrics, error))
    return FALSE;
  g_free (metrics.device);
  nk_run_summary_from_history (history, tokens_per_step, out);
  return TRUE;
}

/**
 * nk_run_summary_get:
 * @summary: a summary
 * @field: which figure
 *
 * One figure of a summary; an infinite one counts as unknown too.
 *
 * Returns: the figure, NAN when unknown
 */
double
nk_run_summary_get (const NkRunSummary *summary,
                    NkRunSummaryField   field)
{
  g_return_val_if_fail (summary != NULL, NAN);
  g_return_val_if_fail (field < NK_RUN_SUMMARY_N_FIELDS, NAN);

  return isfinite (summary->value[field]) ? summary->value[field] : NAN;
}

/**
 * nk_run_summary_compare:
 * @a: a summary
 * @b: another
 * @field: the figure to order by
 * @inverted: whether the caller reverses the order this gives (a table sorting in
 *   descending order negates its sorter's answer)
 *
 * Orders two runs by a figure, ascending, an unknown figure after every known one
 * whichever way the table sorts: with @inverted, unknown figures come first here so
 * that they still end last once the caller negates.
 *
 * Returns: negative when @a comes before @b, positive after, 0 for a tie
 */
int
nk_run_summary_compare (const NkRunSummary *a,
                        const NkRunSummary *b,
                        NkRunSummaryField   field,
                        gboolean            inverted)
{
  double x, y;
  gboolean known_x, known_y;

  g_return_val_if_fail (a != NULL && b != NULL, 0);
  g_return_val_if_fail (field < NK_RUN_SUMMARY_N_FIELDS, 0);

  x = nk_run_summary_get (a, field);
  y = nk_run_summary_get (b, field);
  known_x = !isnan (x);
  known_y = !isnan (y);
  if (known_x && known_y)
    return (x > y) - (x < y);
  if (known_x == known_y)
    return 0;
  return (known_x ? -1 : 1) * (inverted ? -1 : 1);
}

/* A count as people read it: whole below a million, then "1.23e9". */
static char *
format_count (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (value < 1e6)
    return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.0f", value));
  return nk_units_format_sci (value, 2);
}

/**
 * nk_run_summary_format:
 * @summary: a summary
 * @field: which figure
 *
 * A figure as a table of runs shows it, with a '.' in every language: a loss with
 * four decimals ("2.3456"), tokens and tokens per second whole below a million and
 * then as "1.23e9", the MFU in percent ("41.3 %"), the memory with binary prefixes
 * (nk_units_format_bytes()); "—" (an em dash) when unknown.
 *
 * Returns: (transfer full): the text
 */
char *
nk_run_summary_format (const NkRunSummary *summary,
                       NkRunSummaryField   field)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double v;

  g_return_val_if_fail (summary != NULL, NULL);
  g_return_val_if_fail (field < NK_RUN_SUMMARY_N_FIELDS, NULL);

  v = nk_run_summary_get (summary, field);
  if (isnan (v))
    return g_strdup ("—");
  switch (field)
    {
    case NK_RUN_SUMMARY_FINAL_LOSS:
    case NK_RUN_SUMMARY_BEST_LOSS:
      if (fabs (v) >= 1e5)
        return nk_units_format_sci (v, 3);
      return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.4f", v));
    case NK_RUN_SUMMARY_TOKENS:
    case NK_RUN_SUMMARY_TOKENS_PER_S:
      return format_count (v);
    case NK_RUN_SUMMARY_MFU:
      return g_strconcat (g_ascii_formatd (buf, sizeof buf, "%.1f", 100 * v), " %", NULL);
    case NK_RUN_SUMMARY_PEAK_MEMORY:
      return nk_units_format_bytes (v);
    case NK_RUN_SUMMARY_N_FIELDS:
    default:
      g_assert_not_reached ();
    }
}
