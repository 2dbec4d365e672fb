/* napkin-memory-dialog.h: Open Memory Snapshot… on the Training page: measured memory beside a plan
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* "training.open-memory-snapshot" ("s": a path, "" to choose one) */
void     napkin_memory_dialog_action     (GtkWidget  *page,
                                          const char *action_name,
                                          GVariant   *parameter);
/* For the page's import action: TRUE when @path is a memory snapshot or
 * memory_stats JSON (by content), which is then opened in its window. */
gboolean napkin_memory_dialog_open_path  (GtkWidget  *page,
                                          const char *path);
/* For the page's Compare with a Plan: TRUE when the memory window opened last
 * from @page has no plan yet and takes @path's (read when it is loaded). */
gboolean napkin_memory_dialog_take_plan  (GtkWidget  *page,
                                          const char *path);

G_END_DECLS
