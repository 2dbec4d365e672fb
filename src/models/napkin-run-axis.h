/* napkin-run-axis.h: what a run's plots can put across: steps, tokens, FLOPs, wall time, fraction
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs are compared fairly only on a common x axis: two runs with different batch
 * sizes meet at equal tokens, not at equal steps. A run's x values for an axis
 * are a map from its steps, kept as a #NapkinSeries of (step, x): the plots look
 * each plotted step up in it. The numbers come from the run's own counts:
 *
 * - tokens seen: a Napkin run's tokens per step (nk_train_config_predict(): B, or
 *   B·T for the LMs) times the step; an imported run's plan's tokens per step
 *   (its tokens per second times its step time), or else the log's own tokens
 *   per second times the step's time, summed (not for torchtitan, which prints
 *   them per GPU);
 * - FLOPs spent: a Napkin run's counted FLOPs, summed step by step; an imported
 *   run's plan's FLOPs per step (MFU × peak × GPUs × step time);
 * - wall time: the step times, summed;
 * - relative step: the step over the run's last step.
 *
 * An imported log prints every k-th step: a logged step's value stands for the k
 * steps since the one logged before it. Where a run lacks what an axis needs (a
 * log without times, a run without a plan) there is no map at all, rather than
 * a guess.
 */
#pragma once

#include "napkin-run.h"

G_BEGIN_DECLS

/**
 * NapkinXAxis:
 * @NAPKIN_X_AXIS_STEP: the step
 * @NAPKIN_X_AXIS_TOKENS: tokens seen
 * @NAPKIN_X_AXIS_FLOPS: FLOPs spent
 * @NAPKIN_X_AXIS_TIME: wall time, in seconds
 * @NAPKIN_X_AXIS_RELATIVE: the fraction of the run done (step / last step)
 *
 * What a run plot puts across; the values are the settings' `training-x-axis` names.
 */
typedef enum {
  NAPKIN_X_AXIS_STEP,
  NAPKIN_X_AXIS_TOKENS,
  NAPKIN_X_AXIS_FLOPS,
  NAPKIN_X_AXIS_TIME,
  NAPKIN_X_AXIS_RELATIVE,
  NAPKIN_N_X_AXES
} NapkinXAxis;

const char   *napkin_x_axis_get_title      (NapkinXAxis         axis);
const char   *napkin_x_axis_get_missing    (NapkinXAxis         axis);

gboolean      napkin_x_axis_fill_history   (NapkinXAxis         axis,
                                            NkTrainHistory     *history,
                                            const NkTrainConfig *config,
                                            NapkinSeries       *map);
gboolean      napkin_x_axis_fill_import    (NapkinXAxis               axis,
                                            const NkImport           *import,
                                            const NkImportPrediction *plan,
                                            NapkinSeries             *map);
NapkinSeries *napkin_run_dup_x_map         (NapkinRun          *run,
                                            NapkinXAxis         axis);

G_END_DECLS
