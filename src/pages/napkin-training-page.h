/* napkin-training-page.h: the Training page: launch and watch toy training runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-trainer.h"
#include "napkin-loss-plot.h"
#include "napkin-memory-plot.h"
#include "napkin-throughput-plot.h"
#include "napkin-scale-plot.h"
#include "napkin-histogram-plot.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_TRAINING_PAGE (napkin_training_page_get_type ())

G_DECLARE_FINAL_TYPE (NapkinTrainingPage, napkin_training_page, NAPKIN, TRAINING_PAGE, GtkWidget)

GtkWidget            *napkin_training_page_new                (void);
void                  napkin_training_page_set_settings       (NapkinTrainingPage *self,
                                                               GSettings          *settings);

gboolean              napkin_training_page_is_running         (NapkinTrainingPage *self);
void                  napkin_training_page_confirm_close      (NapkinTrainingPage *self,
                                                               GtkWindow          *window);
void                  napkin_training_page_finish_probe       (void);

/* For tests and scripts: the form's inputs, the plots and the runs. */
GtkWidget            *napkin_training_page_get_input          (NapkinTrainingPage *self,
                                                               const char         *name);
void                  napkin_training_page_set_checkpoint_dir (NapkinTrainingPage *self,
                                                               const char         *path);
void                  napkin_training_page_set_text_file      (NapkinTrainingPage *self,
                                                               const char         *path);
NkTrainConfig        *napkin_training_page_dup_config         (NapkinTrainingPage *self,
                                                               GError            **error);
const char           *napkin_training_page_get_form_error     (NapkinTrainingPage *self);
NapkinLossPlot       *napkin_training_page_get_loss_plot      (NapkinTrainingPage *self);
NapkinMemoryPlot     *napkin_training_page_get_memory_plot    (NapkinTrainingPage *self);
NapkinThroughputPlot *napkin_training_page_get_throughput_plot (NapkinTrainingPage *self);
NapkinScalePlot      *napkin_training_page_get_scale_plot     (NapkinTrainingPage *self);
NapkinHistogramPlot  *napkin_training_page_get_histogram_plot (NapkinTrainingPage *self);
AdwLeaflet           *napkin_training_page_get_leaflet        (NapkinTrainingPage *self);
guint                 napkin_training_page_get_n_runs         (NapkinTrainingPage *self);
NkTrainer            *napkin_training_page_get_trainer        (NapkinTrainingPage *self,
                                                               guint               index);
NkTrainer            *napkin_training_page_get_shown_trainer  (NapkinTrainingPage *self);
char                 *napkin_training_page_dup_run_summary    (NapkinTrainingPage *self,
                                                               guint               index);
const char           *napkin_training_page_get_label_text     (NapkinTrainingPage *self,
                                                               const char         *name);

G_END_DECLS
