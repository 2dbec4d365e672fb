/* napkin-run-compare.h: several runs on one x axis: their lines, styles and labels for the comparison plots
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A #NapkinRunCompare follows a list model of #NapkinRun (the runs picked in
 * Compare Runs) and gives each one a line: its loss, and for a block-scaled run
 * (mxfp8, nvfp4) the shares of matmul operand elements flushed to zero and
 * clipped, per step, moved onto the chosen x axis (napkin-run-axis.h). The
 * comparison plots are bound to it and redraw on #NapkinRunCompare::changed.
 *
 * Each line has a style that tells it apart without colour alone: runs of one
 * recipe (the same config but for the seed: the same precision, MX scale rule
 * and NVFP4 rounding) share a colour, and the runs of a recipe differ in their
 * dash pattern; beyond the palette's colours the dash changes too, so no two
 * lines of the first colours × dashes share both. A style belongs to the run,
 * not to its place in the list: a run keeps its colour and dash while it stays
 * compared, however the list is sorted. Labels say the recipe and
 * the seed ("NVFP4, stochastic rounding · seed 2"), or the name of a run of
 * another engine.
 */
#pragma once

#include "napkin-run.h"
#include "napkin-run-axis.h"

G_BEGIN_DECLS

/**
 * NapkinCompareQuantity:
 * @NAPKIN_COMPARE_LOSS: the loss
 * @NAPKIN_COMPARE_FLUSHED: the share of nonzero operand elements flushed to zero
 * @NAPKIN_COMPARE_CLIPPED: the share clipped at the element format's largest value
 *
 * What a comparison plot draws of each run.
 */
typedef enum {
  NAPKIN_COMPARE_LOSS,
  NAPKIN_COMPARE_FLUSHED,
  NAPKIN_COMPARE_CLIPPED,
  NAPKIN_COMPARE_N_QUANTITIES
} NapkinCompareQuantity;

/* Colours cycle through the plots' palette (NapkinPlotColor); dashes through
 * solid, dashed, dotted and dash-dotted. */
#define NAPKIN_RUN_COMPARE_N_COLORS 7
#define NAPKIN_RUN_COMPARE_N_DASHES 4

#define NAPKIN_TYPE_RUN_COMPARE (napkin_run_compare_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunCompare, napkin_run_compare, NAPKIN, RUN_COMPARE, GObject)

NapkinRunCompare *napkin_run_compare_new             (GListModel            *runs);
GListModel       *napkin_run_compare_get_runs        (NapkinRunCompare      *self);
void              napkin_run_compare_set_runs        (NapkinRunCompare      *self,
                                                      GListModel            *runs);
NapkinXAxis       napkin_run_compare_get_x_axis      (NapkinRunCompare      *self);
void              napkin_run_compare_set_x_axis      (NapkinRunCompare      *self,
                                                      NapkinXAxis            axis);
guint             napkin_run_compare_get_n_lines     (NapkinRunCompare      *self);
NapkinRun        *napkin_run_compare_get_run         (NapkinRunCompare      *self,
                                                      guint                  line);
NapkinSeries     *napkin_run_compare_get_series      (NapkinRunCompare      *self,
                                                      guint                  line,
                                                      NapkinCompareQuantity  what);
gboolean          napkin_run_compare_is_pending      (NapkinRunCompare      *self,
                                                      guint                  line);
gboolean          napkin_run_compare_is_missing      (NapkinRunCompare      *self,
                                                      guint                  line);
const char       *napkin_run_compare_get_label       (NapkinRunCompare      *self,
                                                      guint                  line);
const char       *napkin_run_compare_get_group_label (NapkinRunCompare      *self,
                                                      guint                  line);
guint             napkin_run_compare_get_group       (NapkinRunCompare      *self,
                                                      guint                  line);
guint             napkin_run_compare_get_color       (NapkinRunCompare      *self,
                                                      guint                  line);
guint             napkin_run_compare_get_dash        (NapkinRunCompare      *self,
                                                      guint                  line);
char             *napkin_run_compare_dup_description (NapkinRunCompare      *self,
                                                      NapkinCompareQuantity  what);

char             *napkin_run_compare_dup_recipe      (const NkTrainConfig   *config);

G_END_DECLS
