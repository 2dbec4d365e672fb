/* napkin-run-facts.h: what a run Napkin does not run says about itself, where the run form is
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "napkin-run.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_RUN_FACTS (napkin_run_facts_get_type ())

G_DECLARE_FINAL_TYPE (NapkinRunFacts, napkin_run_facts, NAPKIN, RUN_FACTS, GtkWidget)

GtkWidget  *napkin_run_facts_new       (void);
void        napkin_run_facts_set_run   (NapkinRunFacts *self,
                                        NapkinRun      *run);
NapkinRun  *napkin_run_facts_get_run   (NapkinRunFacts *self);
const char *napkin_run_facts_get_fact  (NapkinRunFacts *self,
                                        const char     *name);

G_END_DECLS
