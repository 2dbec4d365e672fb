/* napkin-training-page-private.h: what the Training page's files share, and its test hooks
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "napkin-run.h"
#include "napkin-run-facts.h"
#include "napkin-run-form.h"
#include "napkin-run-view.h"
#include "napkin-runs-table.h"
#include "napkin-training-page.h"

G_BEGIN_DECLS

struct _NapkinTrainingPage
{
  GtkWidget            parent_instance;

  GSettings           *settings;
  GListStore          *runs;            /* of NapkinRun, newest first */
  NapkinRun           *active;          /* running or paused, or NULL; in runs */
  GtkWindow           *closing_window;  /* to close once the active run has ended */
  GCancellable        *probe_cancellable;
  char                *runs_root;       /* where run folders go (nk-run-dir.h) */
  guint                next_index;      /* the next run's number */
  char                *last_toast;      /* for the tests */
  guint                importing;       /* logs being read on a thread */
  char                *pending_plan;    /* a plan chosen while a log was being read */

  AdwLeaflet          *leaflet;
  GtkWidget           *settings_button;
  GtkWidget           *pause_button;
  GtkWidget           *resume_button;
  GtkWidget           *form_header;
  GtkWidget           *form_scroller;
  NapkinRunForm       *form;
  NapkinRunView       *run_view;
  GtkLabel            *run_title;
  GtkLabel            *run_subtitle;
  GtkListBox          *runs_list;
  AdwPreferencesGroup *runs_group;

  /* Runs Napkin does not run (napkin-training-page-command.c) */
  NapkinRunFacts      *facts;
  GtkWidget           *start_button;
  GtkWidget           *stop_button;
  GtkWidget           *checkpoint_button;
  GtkWidget           *stop_command_button;
  char                *command_dir;     /* the folder the last command ran in */
  char                *launch_command;  /* what Run a Command… offers first */
  gboolean             settings_forced; /* the form shown over a foreign run's facts */

  /* Compare Runs (napkin-training-page-table.c): weak pointers into its window */
  GtkWidget           *runs_window;
  GtkWidget           *runs_window_title;
  NapkinRunsTable     *runs_table;
};

/* napkin-training-page.c */
void       _napkin_training_page_show_toast     (NapkinTrainingPage  *self,
                                                 const char          *title);
void       _napkin_training_page_update_actions (NapkinTrainingPage  *self);
NapkinRun *_napkin_training_page_get_run        (NapkinTrainingPage  *self,
                                                 guint                index);
void       _napkin_training_page_show_run       (NapkinTrainingPage  *self,
                                                 NapkinRun           *run);
void       _napkin_training_page_start_run      (NapkinTrainingPage  *self,
                                                 NkTrainConfig       *config);
void       _napkin_training_page_start_run_in   (NapkinTrainingPage  *self,
                                                 NkTrainConfig       *config,
                                                 const char          *folder);
void       _napkin_training_page_load_runs      (NapkinTrainingPage  *self);

void       _napkin_training_page_close_pending_window (NapkinTrainingPage *self);

/* napkin-training-page-actions.c */
void       _napkin_training_page_class_actions_init (GtkWidgetClass *widget_class);

/* napkin-training-page-command.c */
void       _napkin_training_page_class_command_init     (GtkWidgetClass     *widget_class);
void       _napkin_training_page_update_command         (NapkinTrainingPage *self);
guint      _napkin_training_page_count_commands         (NapkinTrainingPage *self);
void       _napkin_training_page_add_command            (NapkinTrainingPage *self,
                                                         NkCommandRun       *command);
void       _napkin_training_page_stop_commands          (NapkinTrainingPage *self);
void       _napkin_training_page_confirm_close_commands (NapkinTrainingPage *self,
                                                         GtkWindow          *window);

/* napkin-training-page-table.c */
void       _napkin_training_page_class_table_init (GtkWidgetClass     *widget_class);
void       _napkin_training_page_update_table     (NapkinTrainingPage *self);
void       _napkin_training_page_close_table      (NapkinTrainingPage *self);

/* Test hooks: closing, the form's inputs, the plots and the runs, as the tests drive them. */
gboolean              napkin_training_page_is_running          (NapkinTrainingPage *self);
void                  napkin_training_page_confirm_close       (NapkinTrainingPage *self,
                                                                GtkWindow          *window);
GtkWidget            *napkin_training_page_get_input           (NapkinTrainingPage *self,
                                                                const char         *name);
void                  napkin_training_page_set_checkpoint_dir  (NapkinTrainingPage *self,
                                                                const char         *path);
void                  napkin_training_page_set_text_file       (NapkinTrainingPage *self,
                                                                const char         *path);
NkTrainConfig        *napkin_training_page_dup_config          (NapkinTrainingPage *self,
                                                                GError            **error);
const char           *napkin_training_page_get_form_error      (NapkinTrainingPage *self);
NapkinLossPlot       *napkin_training_page_get_loss_plot       (NapkinTrainingPage *self);
NapkinMemoryPlot     *napkin_training_page_get_memory_plot     (NapkinTrainingPage *self);
NapkinThroughputPlot *napkin_training_page_get_throughput_plot (NapkinTrainingPage *self);
NapkinScalePlot      *napkin_training_page_get_scale_plot      (NapkinTrainingPage *self);
NapkinHistogramPlot  *napkin_training_page_get_histogram_plot  (NapkinTrainingPage *self);
AdwLeaflet           *napkin_training_page_get_leaflet         (NapkinTrainingPage *self);
guint                 napkin_training_page_get_n_runs          (NapkinTrainingPage *self);
NkTrainer            *napkin_training_page_get_trainer         (NapkinTrainingPage *self,
                                                                guint               index);
NkTrainer            *napkin_training_page_get_shown_trainer   (NapkinTrainingPage *self);
char                 *napkin_training_page_dup_run_summary     (NapkinTrainingPage *self,
                                                                guint               index);
const char           *napkin_training_page_get_label_text      (NapkinTrainingPage *self,
                                                                const char         *name);
gsize                 napkin_training_page_get_memory_size     (NapkinTrainingPage *self);
const char           *napkin_training_page_get_last_toast      (NapkinTrainingPage *self);
void                  napkin_training_page_reload_runs         (NapkinTrainingPage *self);
void                  napkin_training_page_set_launch_command  (NapkinTrainingPage *self,
                                                                const char         *command);
const char           *napkin_training_page_get_fact            (NapkinTrainingPage *self,
                                                                const char         *name);
NapkinRunsTable      *napkin_training_page_get_runs_table      (NapkinTrainingPage *self);

G_END_DECLS
