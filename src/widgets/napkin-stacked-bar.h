/* napkin-stacked-bar.h: one horizontal bar split into labelled parts, with a legend
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_STACKED_BAR (napkin_stacked_bar_get_type ())

G_DECLARE_FINAL_TYPE (NapkinStackedBar, napkin_stacked_bar, NAPKIN, STACKED_BAR, GtkWidget)

/* The most parts a bar has (the palette's colours). */
#define NAPKIN_STACKED_BAR_MAX_PARTS 8

GtkWidget *napkin_stacked_bar_new        (void);
void       napkin_stacked_bar_set_parts  (NapkinStackedBar *self,
                                          guint             n_parts,
                                          const double     *values,
                                          const char *const *labels);
void       napkin_stacked_bar_set_colors (NapkinStackedBar *self,
                                          guint             n_parts,
                                          const guint      *colors);
guint      napkin_stacked_bar_get_n_parts (NapkinStackedBar *self);
void       napkin_stacked_bar_get_color  (NapkinStackedBar *self,
                                          guint             part,
                                          GdkRGBA          *color);
void       napkin_stacked_bar_draw       (NapkinStackedBar *self,
                                          cairo_t          *cr,
                                          int               width,
                                          int               height);
void       napkin_stacked_bar_get_bar_rect (NapkinStackedBar *self,
                                            int               width,
                                            graphene_rect_t  *rect);

G_END_DECLS
