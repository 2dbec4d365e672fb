/* napkin-application.c: the application: options, actions, settings
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

#include "nk-device-probe.h"

#include "napkin-application.h"
#include "napkin-window.h"

struct _NapkinApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
  char           *initial_page;
  char           *open_log;       /* --open-log: a run log for the Training page */
  char           *follow_log;     /* --follow: a log still being written, followed there */
  char           *open_plan;      /* --plan: the plan either is compared with */
  char           *run_command;    /* --run-command: a command to run from the Training page */
};

G_DEFINE_FINAL_TYPE (NapkinApplication, napkin_application, ADW_TYPE_APPLICATION)

/**
 * napkin_settings_new:
 *
 * Opens the app's settings from the installed schemas, or from the build tree
 * when Napkin runs uninstalled (so `build/src/napkin` works without `meson install`).
 *
 * Returns: (transfer full) (nullable): the settings, or %NULL when no schema is found
 */
GSettings *
napkin_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettingsSchemaSource) build_source = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    {
      build_source = g_settings_schema_source_new_from_directory (NK_BUILD_SCHEMADIR, source,
                                                                  FALSE, NULL);
      if (build_source != NULL)
        schema = g_settings_schema_source_lookup (build_source, APP_ID, FALSE);
    }
  if (schema == NULL)
    {
      g_message ("The settings schema %s is not installed; settings will not be kept", APP_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

static gboolean
page_name_is_known (const char *name)
{
  static const char *pages[] = { "planner", "formats", "strides", "training" };

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    if (g_strcmp0 (name, pages[i]) == 0)
      return TRUE;
  return FALSE;
}

static int
napkin_application_handle_local_options (GApplication *app,
                                         GVariantDict *options)
{
  NapkinApplication *self = NAPKIN_APPLICATION (app);
  const char *page = NULL;

  if (g_variant_dict_lookup (options, "page", "&s", &page))
    {
      if (!page_name_is_known (page))
        {
          g_printerr (_("Unknown page “%s”: use planner, formats, strides or training\n"), page);
          return 2;
        }
      g_free (self->initial_page);
      self->initial_page = g_strdup (page);
    }
  g_variant_dict_lookup (options, "open-log", "^ay", &self->open_log);
  g_variant_dict_lookup (options, "follow", "^ay", &self->follow_log);
  g_variant_dict_lookup (options, "plan", "^ay", &self->open_plan);
  g_variant_dict_lookup (options, "run-command", "s", &self->run_command);
  if (self->open_log != NULL && self->follow_log != NULL)
    {
      g_printerr ("%s\n", _("--open-log and --follow both name a log: give one"));
      return 2;
    }
  if (self->open_plan != NULL && self->open_log == NULL && self->follow_log == NULL)
    {
      g_printerr ("%s\n", _("--plan needs --open-log or --follow: the plan is compared with that run"));
      return 2;
    }
  return -1;
}

static void
napkin_application_activate (GApplication *app)
{
  NapkinApplication *self = NAPKIN_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (napkin_window_new (self));
  if (self->initial_page != NULL)
    napkin_window_set_page (NAPKIN_WINDOW (window), self->initial_page);
  g_clear_pointer (&self->initial_page, g_free);
  gtk_window_present (window);
  if (self->open_log != NULL || self->follow_log != NULL)
    {
      GtkWidget *training = napkin_window_get_page_widget (NAPKIN_WINDOW (window), "training");

      napkin_window_set_page (NAPKIN_WINDOW (window), "training");
      if (training != NULL)
        {
          if (self->open_log != NULL)
            gtk_widget_activate_action (training, "training.open-log", "s", self->open_log);
          else
            gtk_widget_activate_action (training, "training.follow-log", "s", self->follow_log);
          if (self->open_plan != NULL)
            gtk_widget_activate_action (training, "training.compare-plan", "s", self->open_plan);
        }
    }
  g_clear_pointer (&self->open_log, g_free);
  g_clear_pointer (&self->follow_log, g_free);
  g_clear_pointer (&self->open_plan, g_free);
  if (self->run_command != NULL)
    {
      GtkWidget *training = napkin_window_get_page_widget (NAPKIN_WINDOW (window), "training");
      g_autofree char *here = g_get_current_dir ();

      napkin_window_set_page (NAPKIN_WINDOW (window), "training");
      /* an empty command opens Run a Command… */
      if (training != NULL)
        gtk_widget_activate_action (training, "training.run-command", "(ss)", self->run_command, here);
    }
  g_clear_pointer (&self->run_command, g_free);
}

static void
napkin_application_about_action (GSimpleAction *action,
                                 GVariant      *parameter,
                                 gpointer       user_data)
{
  static const char *developers[] = { "The Napkin developers", NULL };
  NapkinApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  adw_show_about_window (window,
                         "application-name", _("Napkin"),
                         "application-icon", APP_ID,
                         "developer-name", _("The Napkin developers"),
                         "version", PACKAGE_VERSION,
                         "comments", _("Resource accounting for deep learning: training "
                                       "budgets, number formats, strides and views, and "
                                       "toy training runs."),
                         "website", "https://github.com/napkinml/napkin",
                         "issue-url", "https://github.com/napkinml/napkin/issues",
                         "developers", developers,
                         "copyright", "© 2026 The Napkin developers",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         /* Translators: replace with your names, one per line */
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
napkin_application_quit_action (GSimpleAction *action,
                                GVariant      *parameter,
                                gpointer       user_data)
{
  NapkinApplication *self = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (self));

  /* Close windows rather than quit outright, so each can save its state and ask
   * about running jobs. */
  for (GList *l = windows; l != NULL;)
    {
      GtkWindow *window = l->data;

      l = l->next;
      gtk_window_close (window);
    }
}

static const GActionEntry app_actions[] = {
  { "quit", napkin_application_quit_action },
  { "about", napkin_application_about_action },
};

static void
napkin_application_startup (GApplication *app)
{
  static const char *quit_accels[] = { "<Control>q", NULL };
  NapkinApplication *self = NAPKIN_APPLICATION (app);

  G_APPLICATION_CLASS (napkin_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
  self->settings = napkin_settings_new ();
  /* One rule for numbers on screen: a '.' decimal point in every language, as
   * the inputs read numbers ("1.5e9", "0.5") and napkin-cli prints them; GTK's
   * startup has just set LC_NUMERIC from the environment. Translations write
   * the numbers in their prose the same way. */
  setlocale (LC_NUMERIC, "C");
}

static void
napkin_application_shutdown (GApplication *app)
{
  /* The CUDA runtime's exit handlers crash while a probe thread is still inside it. */
  nk_device_wait_for_probe ();

  G_APPLICATION_CLASS (napkin_application_parent_class)->shutdown (app);
}

static void
napkin_application_finalize (GObject *object)
{
  NapkinApplication *self = NAPKIN_APPLICATION (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->open_log, g_free);
  g_clear_pointer (&self->follow_log, g_free);
  g_clear_pointer (&self->open_plan, g_free);
  g_clear_pointer (&self->run_command, g_free);
  g_clear_pointer (&self->initial_page, g_free);

  G_OBJECT_CLASS (napkin_application_parent_class)->finalize (object);
}

static void
napkin_application_class_init (NapkinApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = napkin_application_finalize;
  app_class->activate = napkin_application_activate;
  app_class->startup = napkin_application_startup;
  app_class->shutdown = napkin_application_shutdown;
  app_class->handle_local_options = napkin_application_handle_local_options;
}

static void
napkin_application_init (NapkinApplication *self)
{
  g_application_add_main_option (G_APPLICATION (self), "page", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_STRING,
                                 _("Open the window on this page"),
                                 "planner|formats|strides|training");
  g_application_add_main_option (G_APPLICATION (self), "open-log", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_FILENAME,
                                 _("Open a run log (torchtitan, Megatron-LM, DeepSpeed, nanoGPT, llm.c, TensorBoard) on the Training page"),
                                 "FILE");
  g_application_add_main_option (G_APPLICATION (self), "follow", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_FILENAME,
                                 _("Follow a log (or TensorBoard folder) still being written on the Training page, its steps appearing as they are written"),
                                 "FILE");
  g_application_add_main_option (G_APPLICATION (self), "plan", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_FILENAME,
                                 _("Compare that run with a plan’s JSON (napkin-cli plan --json)"),
                                 "PLAN.json");
  g_application_add_main_option (G_APPLICATION (self), "run-command", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_STRING,
                                 _("Run a command (a training job of another engine) in the current folder and follow its log on the Training page; an empty one asks"),
                                 "COMMAND");
}

NapkinApplication *
napkin_application_new (void)
{
  return g_object_new (NAPKIN_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", "/io/github/napkinml/Napkin",
                       NULL);
}

/**
 * napkin_application_get_settings:
 * @self: the application
 *
 * Returns: (transfer none) (nullable): the app's settings, %NULL when the schema is
 *   not available
 */
GSettings *
napkin_application_get_settings (NapkinApplication *self)
{
  g_return_val_if_fail (NAPKIN_IS_APPLICATION (self), NULL);

  return self->settings;
}
