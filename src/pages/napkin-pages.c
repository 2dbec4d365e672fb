/* napkin-pages.c: registers the page types, so the window needs none of their headers
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "napkin-formats-page.h"
#include "napkin-pages.h"
#include "napkin-planner-page.h"
#include "napkin-strides-page.h"
#include "napkin-training-page.h"

/**
 * napkin_pages_ensure_types:
 *
 * Registers every page type, so that GtkBuilder finds the classes the window's
 * template names. The window talks to its pages only through #NapkinPage.
 */
void
napkin_pages_ensure_types (void)
{
  g_type_ensure (NAPKIN_TYPE_PLANNER_PAGE);
  g_type_ensure (NAPKIN_TYPE_FORMATS_PAGE);
  g_type_ensure (NAPKIN_TYPE_STRIDES_PAGE);
  g_type_ensure (NAPKIN_TYPE_TRAINING_PAGE);
}
