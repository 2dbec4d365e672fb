/* napkin-run-axis.c: what a run's plots can put across: steps, tokens, FLOPs, wall time, fraction
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-run-axis.h"

/**
 * napkin_x_axis_get_title:
 * @axis: an axis
 *
 * Returns: (transfer none): the axis title, with its unit, translated
 */
const char *
napkin_x_axis_get_title (NapkinXAxis axis)
{
  switch (axis)
    {
    case NAPKIN_X_AXIS_TOKENS:
      return _("Tokens seen");
    case NAPKIN_X_AXIS_FLOPS:
      return _("FLOPs spent");
    case NAPKIN_X_AXIS_TIME:
      return _("Wall time (s)");
    case NAPKIN_X_AXIS_RELATIVE:
      return _("Fraction of the run");
    case NAPKIN_X_AXIS_STEP:
    case NAPKIN_N_X_AXES:
    default:
      return _("Step");
    }
}

/**
 * napkin_x_axis_get_missing:
 * @axis: an axis
 *
 * Returns: (transfer none): the sentence a plot shows for a run that lacks what
 *   @axis needs, translated
 */
const char *
napkin_x_axis_get_missing (NapkinXAxis axis)
{
  switch (axis)
    {
    case NAPKIN_X_AXIS_TOKENS:
      return _("This run’s log does not say how many tokens a step takes: add its plan");
    case NAPKIN_X_AXIS_FLOPS:
      return _("This run’s log does not count FLOPs: add its plan");
    case NAPKIN_X_AXIS_TIME:
      return _("This run’s log has no step times");
    case NAPKIN_X_AXIS_STEP:
    case NAPKIN_X_AXIS_RELATIVE:
    case NAPKIN_N_X_AXES:
    default:
      return _("This run has no steps yet");
    }
}

/* Appends (step, x) for steps[0..n) whose per-step amounts are @per_step (NULL:
 * @constant each), summed over the steps each logged step stands for. */
static void
append_cumulative (NapkinSeries *map,
                   const double *steps,
                   const double *per_step,
                   double        constant,
                   gsize         n)
{
  double total = 0, previous = 0;

  for (gsize i = 0; i < n; i++)
    {
      total += (per_step != NULL ? per_step[i] : constant) * (steps[i] - previous);
      previous = steps[i];
      napkin_series_append (map, steps[i], total);
    }
}

static void
append_relative (NapkinSeries *map,
                 const double *steps,
                 gsize         n)
{
  double last = n > 0 ? steps[n - 1] : 1;

  for (gsize i = 0; i < n; i++)
    napkin_series_append (map, steps[i], last > 0 ? steps[i] / last : 0);
}

/**
 * napkin_x_axis_fill_history:
 * @axis: an axis
 * @history: a Napkin run's steps
 * @config: its settings
 * @map: (out caller-allocates): emptied, then filled with (step, x) for each step
 *
 * Returns: %FALSE (and @map empty) where the run lacks what @axis needs
 */
gboolean
napkin_x_axis_fill_history (NapkinXAxis          axis,
                            NkTrainHistory      *history,
                            const NkTrainConfig *config,
                            NapkinSeries        *map)
{
  gsize n = nk_train_history_get_n (history);
  g_autofree double *steps = g_new (double, MAX (n, 1));
  g_autofree double *amounts = NULL;
  NkTrainPrediction prediction;

  napkin_series_begin_update (map);
  napkin_series_clear (map);
  nk_train_history_copy_column (history, NK_TRAIN_COLUMN_STEP, 0, n, steps);
  switch (axis)
    {
    case NAPKIN_X_AXIS_STEP:
      for (gsize i = 0; i < n; i++)
        napkin_series_append (map, steps[i], steps[i]);
      break;
    case NAPKIN_X_AXIS_TOKENS:
      nk_train_config_predict (config, NAN, &prediction);
      append_cumulative (map, steps, NULL, prediction.tokens_per_step, n);
      break;
    case NAPKIN_X_AXIS_FLOPS:
    case NAPKIN_X_AXIS_TIME:
      amounts = g_new (double, MAX (n, 1));
      nk_train_history_copy_column (history, axis == NAPKIN_X_AXIS_FLOPS ? NK_TRAIN_COLUMN_FLOPS
                                                                          : NK_TRAIN_COLUMN_SECONDS,
                                    0, n, amounts);
      append_cumulative (map, steps, amounts, 0, n);
      break;
    case NAPKIN_X_AXIS_RELATIVE:
      append_relative (map, steps, n);
      break;
    case NAPKIN_N_X_AXES:
    default:
      g_return_val_if_reached (FALSE);
    }
  napkin_series_end_update (map);
  return TRUE;
}

/* The plan's amount per step for @axis, or NAN. */
static double
plan_per_step (NapkinXAxis               axis,
               const NkImportPrediction *plan)
{
  if (plan == NULL)
    return NAN;
  if (axis == NAPKIN_X_AXIS_TOKENS)
    return plan->tokens_per_s * plan->seconds;
  if (axis == NAPKIN_X_AXIS_FLOPS)
    return plan->mfu * plan->peak * plan->gpus * plan->seconds;
  return NAN;
}

/* The log's own amount at each step for @axis: FALSE where a step lacks it. */
static gboolean
log_per_step (NapkinXAxis     axis,
              const NkImport *import,
              double         *out)
{
  if (axis == NAPKIN_X_AXIS_TOKENS && import->format == NK_LOG_FORMAT_TORCHTITAN)
    return FALSE;
  if (axis != NAPKIN_X_AXIS_TOKENS && axis != NAPKIN_X_AXIS_TIME)
    return FALSE;
  for (guint i = 0; i < import->steps->len; i++)
    {
      const NkImportStep *s = &g_array_index (import->steps, NkImportStep, i);

      out[i] = axis == NAPKIN_X_AXIS_TIME ? s->seconds : s->tokens_per_s * s->seconds;
      if (!isfinite (out[i]))
        return FALSE;
    }
  return TRUE;
}

/**
 * napkin_x_axis_fill_import:
 * @axis: an axis
 * @import: an imported run's steps
 * @plan: (nullable): its plan's prediction
 * @map: (out caller-allocates): emptied, then filled with (step, x) for each step
 *
 * Tokens and FLOPs come from the plan's per-step amounts where there is a plan;
 * tokens, without one, and wall time from the log's own numbers, when every step
 * has them.
 *
 * Returns: %FALSE (and @map empty) where the run lacks what @axis needs
 */
gboolean
napkin_x_axis_fill_import (NapkinXAxis               axis,
                           const NkImport           *import,
                           const NkImportPrediction *plan,
                           NapkinSeries             *map)
{
  guint n = import->steps->len;
  g_autofree double *steps = g_new (double, MAX (n, 1));
  g_autofree double *amounts = g_new (double, MAX (n, 1));
  double constant = plan_per_step (axis, plan);
  gboolean ok = TRUE;

  napkin_series_begin_update (map);
  napkin_series_clear (map);
  for (guint i = 0; i < n; i++)
    steps[i] = (double) MAX (g_array_index (import->steps, NkImportStep, i).step, 0);
  if (axis == NAPKIN_X_AXIS_STEP)
    for (guint i = 0; i < n; i++)
      napkin_series_append (map, steps[i], steps[i]);
  else if (axis == NAPKIN_X_AXIS_RELATIVE)
    append_relative (map, steps, n);
  else if (isfinite (constant) && constant > 0)
    append_cumulative (map, steps, NULL, constant, n);
  else if (n > 0 && log_per_step (axis, import, amounts))
    append_cumulative (map, steps, amounts, 0, n);
  else
    ok = FALSE;
  napkin_series_end_update (map);
  return ok;
}

static gboolean
fill (NapkinRun    *run,
      NapkinXAxis   axis,
      NapkinSeries *map)
{
  const NkImport *import = napkin_run_get_import (run);

  if (import != NULL)
    return napkin_x_axis_fill_import (axis, import, napkin_run_get_plan (run), map);
  return napkin_x_axis_fill_history (axis, napkin_run_get_history (run), napkin_run_get_config (run), map);
}

/* The run's steps changed: the map is rebuilt, as a later last step moves every
 * relative value and a plan set later changes the tokens. */
static void
on_steps_changed (NapkinSeries *steps,
                  guint         position,
                  guint         removed,
                  guint         added,
                  NapkinSeries *map)
{
  NapkinRun *run = g_object_get_data (G_OBJECT (map), "napkin-run");
  NapkinXAxis axis = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (map), "napkin-x-axis"));

  fill (run, axis, map);
}

/**
 * napkin_run_dup_x_map:
 * @run: a run
 * @axis: an axis
 *
 * The run's x value at each of its steps for @axis, as (step, x); the map follows
 * the run as steps arrive.
 *
 * Returns: (transfer full) (nullable): the map, or %NULL where the run lacks what
 *   @axis needs (napkin_x_axis_get_missing() says what)
 */
NapkinSeries *
napkin_run_dup_x_map (NapkinRun   *run,
                      NapkinXAxis  axis)
{
  g_autoptr(NapkinSeries) map = napkin_series_new ();

  g_return_val_if_fail (NAPKIN_IS_RUN (run), NULL);
  g_return_val_if_fail (axis < NAPKIN_N_X_AXES, NULL);

  if (!fill (run, axis, map))
    return NULL;
  g_object_set_data (G_OBJECT (map), "napkin-x-axis", GUINT_TO_POINTER (axis));
  /* The map keeps its run: the run owns the steps the map follows. */
  g_object_set_data_full (G_OBJECT (map), "napkin-run", g_object_ref (run), g_object_unref);
  g_signal_connect_object (napkin_run_get_series (run, NAPKIN_RUN_SERIES_LOSS), "changed",
                           G_CALLBACK (on_steps_changed), map, 0);
  return g_steal_pointer (&map);
}
