/* napkin-run-summary-item.c: one run's line in the table of runs: the run and its figures
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "nk-model-arch.h"
#include "napkin-run-summary-item.h"

/* A live run's figures follow its steps at most this often. */
#define UPDATE_INTERVAL_MS 250

struct _NapkinRunSummaryItem
{
  GObject       parent_instance;

  NapkinRun    *run;
  NkRunSummary  summary;
  char         *texts[NK_RUN_SUMMARY_N_FIELDS];  /* as the table shows them */
  char         *source;
  gboolean      pending;       /* its folder is being summarised on a thread */
  guint         update_source;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (NapkinRunSummaryItem, napkin_run_summary_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RUN,
  PROP_SUMMARY,
  PROP_PENDING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static char *dup_source (NapkinRunSummaryItem *self);

/* The texts are made once per summary, not once per cell shown: a sort rebinds
 * a few hundred lines. */
static void
set_summary (NapkinRunSummaryItem *self,
             const NkRunSummary   *summary,
             gboolean              pending)
{
  gboolean was_pending = self->pending;

  self->summary = *summary;
  self->pending = pending;
  for (guint f = 0; f < NK_RUN_SUMMARY_N_FIELDS; f++)
    {
      g_free (self->texts[f]);
      self->texts[f] = pending ? g_strdup ("…") : nk_run_summary_format (&self->summary, f);
    }
  g_free (self->source);
  self->source = dup_source (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SUMMARY]);
  if (was_pending != pending)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

static void
read_in_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  NkRunSummary summary;

  if (!nk_run_summary_read (task_data, &summary, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, nk_run_summary_copy (&summary), (GDestroyNotify) nk_run_summary_free);
}

static void
read_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  NapkinRunSummaryItem *self = NAPKIN_RUN_SUMMARY_ITEM (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRunSummary) summary = g_task_propagate_pointer (G_TASK (result), &error);
  NkRunSummary unknown;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (summary == NULL)
    {
      g_debug ("Summary of %s: %s", napkin_run_get_folder (self->run), error->message);
      nk_run_summary_init (&unknown);
      summary = nk_run_summary_copy (&unknown);
    }
  set_summary (self, summary, FALSE);
}

/* Tokens a step of a run of Napkin's takes, from its config as its prediction card says. */
static double
tokens_per_step (NapkinRun *run)
{
  NkTrainPrediction prediction;

  nk_train_config_predict (napkin_run_get_config (run), NAN, &prediction);
  return prediction.tokens_per_step;
}

/**
 * napkin_run_summary_item_update:
 * @self: an item
 *
 * Summarises the run again from what it holds now: its log's steps, its history,
 * or (a run from disk not read yet) its folder, on a thread.
 */
void
napkin_run_summary_item_update (NapkinRunSummaryItem *self)
{
  NkRunSummary summary;
  const NkImport *import;

  g_return_if_fail (NAPKIN_IS_RUN_SUMMARY_ITEM (self));

  g_clear_handle_id (&self->update_source, g_source_remove);
  import = napkin_run_get_import (self->run);
  if (import != NULL)
    nk_run_summary_from_import (import, napkin_run_get_plan (self->run), &summary);
  else if (napkin_run_is_loaded (self->run))
    nk_run_summary_from_history (napkin_run_get_history (self->run), tokens_per_step (self->run), &summary);
  else
    {
      g_autoptr(GTask) task = NULL;

      if (self->pending)
        return;
      g_clear_object (&self->cancellable);
      self->cancellable = g_cancellable_new ();
      task = g_task_new (self, self->cancellable, read_done, NULL);
      g_task_set_source_tag (task, napkin_run_summary_item_update);
      g_task_set_task_data (task, g_strdup (napkin_run_get_folder (self->run)), g_free);
      nk_run_summary_init (&summary);
      set_summary (self, &summary, TRUE);
      g_task_run_in_thread (task, read_in_thread);
      return;
    }
  set_summary (self, &summary, self->pending);
}

static gboolean
update_cb (gpointer user_data)
{
  NapkinRunSummaryItem *self = user_data;

  self->update_source = 0;
  napkin_run_summary_item_update (self);
  return G_SOURCE_REMOVE;
}

/* Steps come a thousand a second in a toy run: summarise at most every 250 ms. */
static void
on_run_changed (NapkinRunSummaryItem *self)
{
  if (self->update_source == 0)
    self->update_source = g_timeout_add (UPDATE_INTERVAL_MS, update_cb, self);
}

static void
napkin_run_summary_item_dispose (GObject *object)
{
  NapkinRunSummaryItem *self = NAPKIN_RUN_SUMMARY_ITEM (object);

  g_clear_handle_id (&self->update_source, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->run);

  G_OBJECT_CLASS (napkin_run_summary_item_parent_class)->dispose (object);
}

static void
napkin_run_summary_item_finalize (GObject *object)
{
  NapkinRunSummaryItem *self = NAPKIN_RUN_SUMMARY_ITEM (object);

  for (guint f = 0; f < NK_RUN_SUMMARY_N_FIELDS; f++)
    g_free (self->texts[f]);
  g_free (self->source);

  G_OBJECT_CLASS (napkin_run_summary_item_parent_class)->finalize (object);
}

static void
napkin_run_summary_item_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  NapkinRunSummaryItem *self = NAPKIN_RUN_SUMMARY_ITEM (object);

  switch (prop_id)
    {
    case PROP_RUN:
      g_value_set_object (value, self->run);
      break;
    case PROP_SUMMARY:
      g_value_set_boxed (value, &self->summary);
      break;
    case PROP_PENDING:
      g_value_set_boolean (value, self->pending);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_summary_item_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  NapkinRunSummaryItem *self = NAPKIN_RUN_SUMMARY_ITEM (object);

  switch (prop_id)
    {
    case PROP_RUN:
      self->run = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_summary_item_constructed (GObject *object)
{
  NapkinRunSummaryItem *self = NAPKIN_RUN_SUMMARY_ITEM (object);

  G_OBJECT_CLASS (napkin_run_summary_item_parent_class)->constructed (object);

  g_return_if_fail (self->run != NULL);
  g_signal_connect_object (self->run, "notify::last-step", G_CALLBACK (on_run_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run, "notify::has-plan", G_CALLBACK (napkin_run_summary_item_update), self,
                           G_CONNECT_SWAPPED);
  napkin_run_summary_item_update (self);
}

static void
napkin_run_summary_item_class_init (NapkinRunSummaryItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = napkin_run_summary_item_dispose;
  object_class->finalize = napkin_run_summary_item_finalize;
  object_class->get_property = napkin_run_summary_item_get_property;
  object_class->set_property = napkin_run_summary_item_set_property;
  object_class->constructed = napkin_run_summary_item_constructed;

  /**
   * NapkinRunSummaryItem:run:
   *
   * The run summarised.
   */
  properties[PROP_RUN] =
    g_param_spec_object ("run", NULL, NULL, NAPKIN_TYPE_RUN,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinRunSummaryItem:summary:
   *
   * The run's figures (an #NkRunSummary), notified whenever they are computed again.
   */
  properties[PROP_SUMMARY] =
    g_param_spec_boxed ("summary", NULL, NULL, NK_TYPE_RUN_SUMMARY,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinRunSummaryItem:pending:
   *
   * Whether the run's folder is still being read for its figures.
   */
  properties[PROP_PENDING] =
    g_param_spec_boolean ("pending", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
napkin_run_summary_item_init (NapkinRunSummaryItem *self)
{
  nk_run_summary_init (&self->summary);
}

/**
 * napkin_run_summary_item_new:
 * @run: a run
 *
 * Returns: (transfer full): an item summarising @run, pending while its folder is read
 */
NapkinRunSummaryItem *
napkin_run_summary_item_new (NapkinRun *run)
{
  g_return_val_if_fail (NAPKIN_IS_RUN (run), NULL);
  return g_object_new (NAPKIN_TYPE_RUN_SUMMARY_ITEM, "run", run, NULL);
}

/* Returns: (transfer none): the run */
NapkinRun *
napkin_run_summary_item_get_run (NapkinRunSummaryItem *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_SUMMARY_ITEM (self), NULL);
  return self->run;
}

/* Returns: the run's figures as last computed (every one unknown while pending) */
const NkRunSummary *
napkin_run_summary_item_get_summary (NapkinRunSummaryItem *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_SUMMARY_ITEM (self), NULL);
  return &self->summary;
}

gboolean
napkin_run_summary_item_is_pending (NapkinRunSummaryItem *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_SUMMARY_ITEM (self), FALSE);
  return self->pending;
}

static char *
dup_source (NapkinRunSummaryItem *self)
{
  const NkImport *import;
  const char *engine;

  import = napkin_run_get_import (self->run);
  if (import == NULL)
    {
      const NkModelArch *arch = nk_model_arch_lookup (napkin_run_get_config (self->run)->model);

      /* Translators: a run of Napkin's own, by its model as the CLI names it ("cruncher", "gpt") */
      return g_strdup_printf (_("Napkin · %s"), arch != NULL ? arch->name : "—");
    }
  engine = import->format == NK_LOG_FORMAT_AUTO ? _("engine not known yet")
                                                : nk_log_format_to_string (import->format);
  if (napkin_run_get_command (self->run) != NULL)
    /* Translators: a run of a command Napkin launched, by its engine ("torchtitan") */
    return g_strdup_printf (_("%s · command"), engine);
  if (napkin_run_get_follower (self->run) != NULL)
    /* Translators: a log followed as it grows, by its engine ("torchtitan") */
    return g_strdup_printf (_("%s · followed"), engine);
  return g_strdup (engine);
}

/**
 * napkin_run_summary_item_get_source:
 * @self: an item
 *
 * Returns: what ran the run: "Napkin · cruncher", or the engine whose log it is
 *   ("torchtitan"), followed or launched as a command
 */
const char *
napkin_run_summary_item_get_source (NapkinRunSummaryItem *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_SUMMARY_ITEM (self), NULL);
  return self->source;
}

/**
 * napkin_run_summary_item_get_text:
 * @self: an item
 * @field: a figure
 *
 * Returns: the figure as the table shows it (nk_run_summary_format()), or "…"
 *   while the run's folder is being read
 */
const char *
napkin_run_summary_item_get_text (NapkinRunSummaryItem *self,
                                  NkRunSummaryField     field)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_SUMMARY_ITEM (self), NULL);
  g_return_val_if_fail (field < NK_RUN_SUMMARY_N_FIELDS, NULL);
  return self->texts[field];
}
