/* napkin-memory-dialog.c: Open Memory Snapshot… on the Training page: measured memory beside a plan
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snapshot is read on a worker thread (nk_memory_load streams it: a gigabyte
 * takes seconds) and shown in a window of its own: the measured figures as rows and
 * NapkinMemoryCompare's bars beside a plan the person picks (nk_memory_compare gives
 * the ratios). One window per file; the page keeps the last one opened, so that a
 * plan given on the command line (--open-log SNAPSHOT --plan PLAN) reaches it.
 */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "napkin.h"
#include "napkin-file-chooser.h"
#include "napkin-memory-compare.h"
#include "napkin-memory-dialog.h"
#include "napkin-training-page-private.h"

typedef struct {
  GtkWidget           *page;          /* weak */
  GtkWindow           *window;        /* NULL while loading */
  NapkinMemoryCompare *compare;
  AdwPreferencesGroup *plan_group;
  char                *path, *pending_plan;
  NkMemoryMeasure      measure;
  gboolean             has_plan;
} MemView;

static void
mem_view_free (gpointer data)
{
  MemView *v = data;

  g_clear_weak_pointer (&v->page);
  g_free (v->path);
  g_free (v->pending_plan);
  g_free (v);
}

static void
add_row (AdwPreferencesGroup *group,
         const char          *title,
         char                *value)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (value);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  adw_preferences_group_add (group, row);
  g_free (value);
}

static char *
bytes_or_absent (double v)
{
  return isnan (v) ? g_strdup (_("not in this file")) : nk_units_format_bytes (v);
}

static void
fill_measured (AdwPreferencesGroup   *group,
               const NkMemoryMeasure *m)
{
  add_row (group, _("Allocated now"), bytes_or_absent (m->allocated));
  add_row (group, _("Peak allocated"), bytes_or_absent (m->peak_allocated));
  add_row (group, _("Reserved"), bytes_or_absent (m->reserved));
  add_row (group, _("Segments"), isnan (m->segments) ? g_strdup (_("not in this file")) : g_strdup_printf ("%.0f", m->segments));
  add_row (group, _("Blocks"), isnan (m->blocks) ? g_strdup (_("not in this file")) : g_strdup_printf ("%.0f", m->blocks));
  add_row (group, _("Largest free block"), bytes_or_absent (m->largest_free_block));
  add_row (group, _("Fragmentation"), isnan (m->fragmentation) ? g_strdup (_("not in this file"))
                                     /* TRANSLATORS: 1 − largest free block / free bytes, as a percentage */
                                     : g_strdup_printf (_("%.1f %% of the free memory is not in its largest block"),
                                                        100 * m->fragmentation));
}

static void
apply_plan (MemView    *v,
            const char *path)
{
  g_autoptr(GError) error = NULL;
  double planned[NK_MEMORY_N_BUCKETS];
  NkMemoryComparison c;

  if (!nk_memory_planned_load (path, planned, &error))
    {
      if (v->page != NULL)
        _napkin_training_page_show_toast (NAPKIN_TRAINING_PAGE (v->page), error->message);
      return;
    }
  nk_memory_compare (&v->measure, planned, &c);
  napkin_memory_compare_set (v->compare, &v->measure, &c);
  v->has_plan = TRUE;
  adw_preferences_group_set_description (v->plan_group,
                                         _("The plan’s per-GPU memory, its buckets in colour, beside what PyTorch measured; each ratio is measured over planned."));
}

static void
plan_chosen (GtkWidget *owner,
             GFile     *file,
             gpointer   user_data)
{
  g_autofree char *path = g_file_get_path (file);
  MemView *v = g_object_get_data (G_OBJECT (owner), "napkin-memory-view");

  if (path != NULL && v != NULL)
    apply_plan (v, path);
}

static void
choose_plan (GtkButton *button,
             gpointer   user_data)
{
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (button)));
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Plans (JSON)"));
  gtk_file_filter_add_suffix (filter, "json");
  napkin_choose_file (window, _("Compare with a Plan"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"), NULL,
                      filter, plan_chosen, NULL, NULL);
}

static GtkWidget *
plan_group_new (MemView *v)
{
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *button = gtk_button_new_with_mnemonic (_("Compare with a _Plan…"));

  v->plan_group = ADW_PREFERENCES_GROUP (group);
  adw_preferences_group_set_title (v->plan_group, _("Beside the Plan"));
  adw_preferences_group_set_description (v->plan_group,
                                         _("Pick a plan (napkin-cli plan --json, or the Planner’s export) to set its buckets beside these figures."));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_signal_connect (button, "clicked", G_CALLBACK (choose_plan), NULL);
  adw_preferences_group_set_header_suffix (v->plan_group, button);
  v->compare = NAPKIN_MEMORY_COMPARE (napkin_memory_compare_new ());
  gtk_widget_set_margin_top (GTK_WIDGET (v->compare), 12);
  napkin_memory_compare_set (v->compare, &v->measure, NULL);
  adw_preferences_group_add (v->plan_group, GTK_WIDGET (v->compare));
  return group;
}

static void
present (MemView *v)
{
  GtkWidget *window = adw_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *measured = adw_preferences_group_new ();
  g_autofree char *base = g_path_get_basename (v->path);
  g_autofree char *name = g_filename_display_name (base);
  GtkRoot *root = v->page != NULL ? gtk_widget_get_root (v->page) : NULL;

  gtk_window_set_title (GTK_WINDOW (window), _("Measured Memory"));
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 720);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (measured), name);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (measured),
                                         v->measure.source == NK_MEMORY_SOURCE_SNAPSHOT
                                         ? _("A PyTorch memory snapshot (torch.cuda.memory._dump_snapshot()), read without running it.")
                                         : _("torch.cuda.memory_stats() saved as JSON."));
  fill_measured (ADW_PREFERENCES_GROUP (measured), &v->measure);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (plan_group_new (v)));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (measured));
  gtk_box_append (GTK_BOX (box), header);
  gtk_widget_set_vexpand (page, TRUE);
  gtk_box_append (GTK_BOX (box), page);
  adw_window_set_content (ADW_WINDOW (window), box);
  v->window = GTK_WINDOW (window);
  g_object_set_data_full (G_OBJECT (window), "napkin-memory-view", v, mem_view_free);
  if (v->pending_plan != NULL)
    apply_plan (v, v->pending_plan);
  gtk_window_present (GTK_WINDOW (window));
}

static void
load_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  MemView *v = task_data;
  GError *error = NULL;

  if (nk_memory_load (v->path, &v->measure, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
loaded (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  MemView *v = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (v->page != NULL)
        _napkin_training_page_show_toast (NAPKIN_TRAINING_PAGE (v->page), error->message);
      if (v->page != NULL && g_object_get_data (G_OBJECT (v->page), "napkin-memory-loading") == v)
        g_object_set_data (G_OBJECT (v->page), "napkin-memory-loading", NULL);
      mem_view_free (v);
      return;
    }
  if (v->page != NULL && g_object_get_data (G_OBJECT (v->page), "napkin-memory-loading") == v)
    g_object_set_data (G_OBJECT (v->page), "napkin-memory-loading", NULL);
  present (v);
}

static void
open_path (GtkWidget  *page,
           const char *path)
{
  MemView *v = g_new0 (MemView, 1);
  g_autoptr(GTask) task = g_task_new (NULL, NULL, loaded, NULL);

  g_set_weak_pointer (&v->page, page);
  v->path = g_strdup (path);
  g_object_set_data (G_OBJECT (page), "napkin-memory-loading", v);
  g_task_set_task_data (task, v, NULL);
  g_task_run_in_thread (task, load_thread);
}

static void
file_chosen (GtkWidget *page,
             GFile     *file,
             gpointer   user_data)
{
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    open_path (page, path);
}

void
napkin_memory_dialog_action (GtkWidget  *page,
                             const char *action_name,
                             GVariant   *parameter)
{
  const char *path = g_variant_get_string (parameter, NULL);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  if (*path != '\0')
    {
      open_path (page, path);
      return;
    }
  gtk_file_filter_set_name (filter, _("Memory snapshots and memory_stats (pickle, JSON)"));
  gtk_file_filter_add_suffix (filter, "pickle");
  gtk_file_filter_add_suffix (filter, "pkl");
  gtk_file_filter_add_suffix (filter, "json");
  napkin_choose_file (page, _("Open a Memory Snapshot"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL,
                      filter, file_chosen, NULL, NULL);
}

gboolean
napkin_memory_dialog_open_path (GtkWidget  *page,
                                const char *path)
{
  if (path == NULL || *path == '\0' || nk_memory_sniff_file (path) == NK_MEMORY_SOURCE_NONE)
    return FALSE;
  open_path (page, path);
  return TRUE;
}

gboolean
napkin_memory_dialog_take_plan (GtkWidget  *page,
                                const char *path)
{
  MemView *v = g_object_get_data (G_OBJECT (page), "napkin-memory-loading");

  if (v == NULL || path == NULL || *path == '\0' || v->pending_plan != NULL)
    return FALSE;
  v->pending_plan = g_strdup (path);
  return TRUE;
}
