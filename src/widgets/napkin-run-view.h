/* napkin-run-view.h: one training run on screen: progress, prediction beside measurement, plots
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-trainer.h"
#include "napkin-run.h"
#include "napkin-loss-plot.h"
#include "napkin-memory-plot.h"
#include "napkin-throughput-plot.h"
#include "napkin-scale-plot.h"
#include "napkin-histogram-plot.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_RUN_VIEW (napkin_run_view_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunView, napkin_run_view, NAPKIN, RUN_VIEW, GtkWidget)

GtkWidget            *napkin_run_view_new                 (void);
NapkinRun            *napkin_run_view_get_run             (NapkinRunView       *self);
void                  napkin_run_view_set_run             (NapkinRunView       *self,
                                                           NapkinRun           *run);
NapkinRun            *napkin_run_view_get_compare         (NapkinRunView       *self);
void                  napkin_run_view_set_compare         (NapkinRunView       *self,
                                                           NapkinRun           *run);
const NkTrainConfig  *napkin_run_view_get_config          (NapkinRunView       *self);
void                  napkin_run_view_set_config          (NapkinRunView       *self,
                                                           const NkTrainConfig *config);

NapkinPlot           *napkin_run_view_get_plot            (NapkinRunView       *self,
                                                           const char          *kind);
const char           *napkin_run_view_get_label_text      (NapkinRunView       *self,
                                                           const char          *name);

G_END_DECLS
