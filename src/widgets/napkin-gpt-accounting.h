/* napkin-gpt-accounting.h: the Planner's formulas against a GPT, term by term
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "nk-train-config.h"
#include "nk-train-metrics.h"

G_BEGIN_DECLS

#define NAPKIN_TYPE_GPT_ACCOUNTING (napkin_gpt_accounting_get_type ())

G_DECLARE_FINAL_TYPE (NapkinGptAccounting, napkin_gpt_accounting, NAPKIN, GPT_ACCOUNTING, GtkWidget)

/**
 * NapkinGptAccountingTable:
 * @NAPKIN_GPT_ACCOUNTING_ACTIVATIONS: rows #NkActTerm, then the total; columns
 *   0 the term, 1 the Planner's bytes, 2 the GPT's, 3 their difference
 * @NAPKIN_GPT_ACCOUNTING_FLOPS: rows #NkFlopKind, then other work, then the total;
 *   columns 0 the kind, 1 PaLM's formula, 2 the ops' closed form, 3 counted
 */
typedef enum {
  NAPKIN_GPT_ACCOUNTING_ACTIVATIONS,
  NAPKIN_GPT_ACCOUNTING_FLOPS,
} NapkinGptAccountingTable;

GtkWidget  *napkin_gpt_accounting_new         (void);
void        napkin_gpt_accounting_set_config  (NapkinGptAccounting      *self,
                                               const NkTrainConfig      *config);
void        napkin_gpt_accounting_set_counted (NapkinGptAccounting      *self,
                                               const NkTrainMetrics     *metrics);
const char *napkin_gpt_accounting_get_cell    (NapkinGptAccounting      *self,
                                               NapkinGptAccountingTable  table,
                                               guint                     row,
                                               guint                     column);

G_END_DECLS
