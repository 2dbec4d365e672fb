/* napkin-training-page.h: the Training page: launch and watch toy training runs
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_TRAINING_PAGE (napkin_training_page_get_type ())

G_DECLARE_FINAL_TYPE (NapkinTrainingPage, napkin_training_page, NAPKIN, TRAINING_PAGE, GtkWidget)

GtkWidget *napkin_training_page_new           (void);
void       napkin_training_page_set_settings  (NapkinTrainingPage *self,
                                               GSettings          *settings);

G_END_DECLS
