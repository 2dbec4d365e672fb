/* napkin-run-form.h: the Training page's run settings, as one NkTrainConfig
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "nk-trainer.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_RUN_FORM (napkin_run_form_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunForm, napkin_run_form, NAPKIN, RUN_FORM, GtkWidget)

GtkWidget           *napkin_run_form_new                (void);
const NkTrainConfig *napkin_run_form_get_config         (NapkinRunForm  *self);
NkTrainConfig       *napkin_run_form_dup_config         (NapkinRunForm  *self,
                                                         GError        **error);
const char          *napkin_run_form_get_error          (NapkinRunForm  *self);
const char          *napkin_run_form_get_text_file      (NapkinRunForm  *self);
void                 napkin_run_form_set_text_file      (NapkinRunForm  *self,
                                                         const char     *path);
const char          *napkin_run_form_get_checkpoint_dir (NapkinRunForm  *self);
void                 napkin_run_form_set_checkpoint_dir (NapkinRunForm  *self,
                                                         const char     *path);
void                 napkin_run_form_set_cuda           (NapkinRunForm  *self,
                                                         gboolean        usable,
                                                         const char     *description);
void                 napkin_run_form_bind_settings      (NapkinRunForm  *self,
                                                         GSettings      *settings);
GtkWidget           *napkin_run_form_get_input          (NapkinRunForm  *self,
                                                         const char     *name);

G_END_DECLS
