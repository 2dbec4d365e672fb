/* napkin-strides-page.c: the Strides & views page: a program, its storage and its views
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page is an editor for a program in the tensor language of nk-program.h and a
 * diagram of what the program made. Every change runs the whole program again in
 * a fresh NkProgram (they are a few statements over a few elements: parsing and
 * running take microseconds), debounced so typing stays smooth; the diagram's
 * model reads the finished program. What a view is, which storage it shares and
 * where an element lives are the engine's answers; the page only lays them out.
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n.h>

#include "nk-program.h"

#include "napkin-storage-diagram.h"
#include "napkin-storage-diagram-model.h"
#include "napkin-page.h"
#include "napkin-strides-page-private.h"

/* At least this wide, the program sits beside the diagram. */
#define WIDE_LAYOUT_MIN_WIDTH 760
#define RUN_DELAY_MS          150
#define DEFAULT_PROGRAM       "x = arange(16).view(4, 4)"

typedef struct {
  const char *id;
  const char *title;
  const char *program;
  const char *explanation;
} Lesson;

/* One sentence each: what to look at in the diagram. */
static const Lesson lessons[] = {
  { "row", N_("Select a row"),
    "x = arange(16).view(4, 4)\ny = x[1]",
    N_("A row is four neighbouring cells: offset 4, stride 1, and nothing is copied.") },
  { "column", N_("Select a column"),
    "x = arange(16).view(4, 4)\ny = x[:, 1]",
    N_("A column starts at offset 1 and jumps a whole row, stride 4, to each next element.") },
  { "slice-step", N_("Slice with a step"),
    "x = arange(16).view(4, 4)\ny = x[::2, 1::2]",
    N_("A step multiplies the stride: every other row is stride 8, every other column stride 2.") },
  { "view", N_("View as 2 × 8"),
    "x = arange(16).view(4, 4)\ny = x.view(2, 8)",
    N_("view() only relabels: the same 16 cells read as 2 rows of 8, with strides (8, 1).") },
  { "transpose", N_("Transpose"),
    "x = arange(16).view(4, 4)\ny = x.t()",
    N_("Transposing swaps the strides to (1, 4): walking along a row of y jumps 4 cells in storage.") },
  { "transpose-view", N_("View a transpose (error)"),
    "x = arange(16).view(4, 4)\ny = x.t()\nz = y.view(16)",
    N_("No single stride walks y in its logical order, so view(16) fails with PyTorch’s reason.") },
  { "contiguous", N_("Fix it with contiguous()"),
    "x = arange(16).view(4, 4)\ny = x.t()\nz = y.contiguous().view(16)",
    N_("contiguous() copies y into a new storage in its logical order, which view(16) can then relabel.") },
  { "reshape", N_("Reshape that copies"),
    "x = arange(16).view(4, 4)\ny = x.t()\nz = y.reshape(16)",
    N_("reshape() returns a view when the strides allow one and quietly copies when they do not, as here.") },
  { "expand", N_("Expand (stride 0)"),
    "x = arange(4)\ny = x.expand(3, 4)",
    N_("expand() repeats a row without copying it: stride 0 reads the same four cells three times.") },
  { "write", N_("Write through a view"),
    "x = arange(16).view(4, 4)\ny = x[0]\ny[0] = 100",
    N_("y shares x’s storage, so writing y[0] writes storage cell 0 and x[0, 0] becomes 100 too.") },
  { "rearrange", N_("Rearrange into heads"),
    "x = arange(16).view(2, 8)\nh = rearrange(x, \"b (heads hidden) -> b heads hidden\", heads=2)",
    N_("Splitting hidden into (heads hidden) is a view: shape (2, 2, 4), strides (8, 4, 1), no copy.") },
};

/* The dtype dropdown's items, in order. */
static const NkDType dtype_items[] = {
  NK_DTYPE_F32, NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_E4M3,
};

struct _NapkinStridesPage
{
  GtkWidget                  parent_instance;

  NkProgram                 *program;
  NapkinStorageDiagramModel *model;
  GSettings                 *settings;
  char                      *text;          /* the buffer's text, kept for the getter */
  const Lesson              *lesson;        /* the lesson the text still is, or NULL */
  guint                      run_source;

  GtkTextTag                *error_tag;       /* underlines the failure */
  GtkWidget                 *error_box;       /* the row under the editor */
  GtkWidget                 *error_caret;     /* the failing line, a caret under it */
  GtkWidget                 *error_label;     /* "Line 3, column 7: reason" */

  /* template */
  GtkWidget                 *side_scroller;
  GtkWidget                 *vertical_separator;
  GtkWidget                 *horizontal_separator;
  GtkWidget                 *diagram_pane;
  GtkDropDown               *dtype_dropdown;
  GtkWidget                 *editor_scroller;
  GtkTextView               *editor;
  AdwPreferencesGroup       *program_group;
  AdwPreferencesGroup       *lessons_group;
  GtkWidget                 *lesson_box;
  GtkLabel                  *lesson_label;
  GtkLabel                  *formula_label;
  GtkWidget                 *stop_button;
  NapkinStorageDiagram      *diagram;
  GtkWidget                 *lesson_rows[G_N_ELEMENTS (lessons)];
};

/* Never busy: what it shows is kept in settings as it changes. */
G_DEFINE_FINAL_TYPE_WITH_CODE (NapkinStridesPage, napkin_strides_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (NAPKIN_TYPE_PAGE, NULL))

enum {
  PROP_0,
  PROP_PROGRAM_TEXT,
  PROP_SETTINGS,
  N_PROPS,
  PROP_BUSY = N_PROPS,
};

static GParamSpec *properties[N_PROPS];

static const Lesson *
find_lesson (const char *id)
{
  for (guint i = 0; i < G_N_ELEMENTS (lessons); i++)
    if (g_strcmp0 (lessons[i].id, id) == 0)
      return &lessons[i];
  return NULL;
}

/* ------------------------------------------------------------ errors in the editor */

/* The error row under the editor: the reason with its line and column, then the
 * failing line itself with a caret under the column, in monospace. (Inside the
 * editor, under the line, a GtkTextView in GTK 4.8 made room with a tag's
 * pixels-below-lines but never asked its scrolled window for the new height, so
 * the message was clipped.) */
static char *
caret_text (const char *line,
            glong       column)
{
  GString *s = g_string_new (line);

  g_string_append_c (s, '\n');
  /* a tab stays a tab, so the caret lines up however wide tabs are drawn */
  for (glong i = 0; i < column; i++)
    {
      const char *c = g_utf8_offset_to_pointer (line, i);

      g_string_append_c (s, *c == '\t' ? '\t' : ' ');
    }
  g_string_append_c (s, '^');
  return g_string_free (s, FALSE);
}

static void
show_error (NapkinStridesPage *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  GtkTextIter start, end, at, stmt_end, line_start, line_end;
  g_autofree char *line = NULL;
  g_autofree char *caret = NULL;
  guint statement = nk_program_get_error_statement (self->program);
  guint offset, range_start, range_end;
  gsize len = strlen (self->text);
  g_autofree char *message = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->error_tag, &start, &end);

  /* The program is the page's input: a screen reader hears it is invalid. */
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->editor),
                               GTK_ACCESSIBLE_STATE_INVALID,
                               statement == 0 ? GTK_ACCESSIBLE_INVALID_FALSE : GTK_ACCESSIBLE_INVALID_TRUE,
                               -1);
  if (statement == 0)
    {
      gtk_widget_set_visible (self->error_box, FALSE);
      gtk_label_set_label (GTK_LABEL (self->error_label), "");
      return;
    }

  /* The engine says where, in bytes of the text it ran; the buffer counts characters. */
  offset = MIN (nk_program_get_error_offset (self->program), len);
  nk_program_get_error_range (self->program, &range_start, &range_end);
  range_end = CLAMP (range_end, offset, len);
  gtk_text_buffer_get_iter_at_offset (buffer, &at,
                                      (int) g_utf8_pointer_to_offset (self->text, self->text + offset));
  gtk_text_buffer_get_iter_at_offset (buffer, &stmt_end,
                                      (int) g_utf8_pointer_to_offset (self->text, self->text + range_end));

  /* Translators: "Line 3, column 7: view size is not compatible ..." */
  message = g_strdup_printf (_("Line %d, column %d: %s"),
                             gtk_text_iter_get_line (&at) + 1,
                             gtk_text_iter_get_line_offset (&at) + 1,
                             nk_program_get_error_reason (self->program));
  gtk_label_set_label (GTK_LABEL (self->error_label), message);

  /* Underline from the failure to the end of its statement, at least one character. */
  if (gtk_text_iter_equal (&at, &stmt_end))
    {
      if (!gtk_text_iter_ends_line (&stmt_end))
        gtk_text_iter_forward_char (&stmt_end);
      else if (!gtk_text_iter_starts_line (&at))
        gtk_text_iter_backward_char (&at);
    }
  gtk_text_buffer_apply_tag (buffer, self->error_tag, &at, &stmt_end);

  line_start = at;
  gtk_text_iter_set_line_offset (&line_start, 0);
  line_end = line_start;
  if (!gtk_text_iter_ends_line (&line_end))
    gtk_text_iter_forward_to_line_end (&line_end);
  line = gtk_text_buffer_get_text (buffer, &line_start, &line_end, FALSE);
  caret = caret_text (line, gtk_text_iter_get_line_offset (&at));
  gtk_label_set_label (GTK_LABEL (self->error_caret), caret);

  gtk_widget_set_visible (self->error_box, TRUE);
}

/* ------------------------------------------------------------ running */

static void
update_formula (NapkinStridesPage *self)
{
  g_autofree char *formula = napkin_storage_diagram_model_dup_formula (self->model);
  gint64 step = napkin_storage_diagram_model_get_step (self->model);

  if (formula != NULL && step >= 0 &&
      napkin_storage_diagram_model_get_hover_tensor (self->model) < 0)
    {
      gint64 n = 0, from, to;
      int selected = napkin_storage_diagram_model_get_selected (self->model);
      g_autofree char *text = NULL;

      napkin_storage_diagram_model_get_tensor_addresses (self->model, selected, &n);
      if (napkin_storage_diagram_model_get_jump (self->model, &from, &to))
        /* Translators: "step 2 of 16 · jump +4 · y[0, 1] → 4 = 0 + 0·1 + 1·4" */
        text = g_strdup_printf (_("step %" PRId64 " of %" PRId64 " · jump %s%" PRId64 " · %s"),
                                step + 1, n, to >= from ? "+" : "−", to >= from ? to - from : from - to, formula);
      else
        text = g_strdup_printf (_("step %" PRId64 " of %" PRId64 " · %s"), step + 1, n, formula);
      gtk_label_set_label (self->formula_label, text);
      gtk_widget_remove_css_class (GTK_WIDGET (self->formula_label), "dim-label");
    }
  else if (formula != NULL)
    {
      gtk_label_set_label (self->formula_label, formula);
      gtk_widget_remove_css_class (GTK_WIDGET (self->formula_label), "dim-label");
    }
  else
    {
      gtk_label_set_label (self->formula_label,
                           napkin_storage_diagram_model_get_selected (self->model) >= 0
                           ? _("Point at an element to see its address, or step through it.")
                           : "");
      gtk_widget_add_css_class (GTK_WIDGET (self->formula_label), "dim-label");
    }

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "strides.step-stop", step >= 0);
  gtk_widget_set_visible (self->stop_button, step >= 0);
}

static void
run_now (NapkinStridesPage *self)
{
  g_clear_handle_id (&self->run_source, g_source_remove);

  /* The error is shown inline from the program's own fields. */
  nk_program_run (self->program, self->text, NULL);
  napkin_storage_diagram_model_set_program (self->model, self->program);
  show_error (self);
  update_formula (self);
}

static gboolean
run_timeout (gpointer user_data)
{
  NapkinStridesPage *self = user_data;

  self->run_source = 0;
  run_now (self);
  return G_SOURCE_REMOVE;
}

/* ------------------------------------------------------------ settings */

/* The program is bound to `strides-program` through the #NapkinStridesPage:program-text
 * property, the dropdown to `strides-dtype` through these mappings (a format's CLI
 * name ↔ its position). GSettings writes as they change. */

static gboolean
dtype_get_mapping (GValue   *value,
                   GVariant *variant,
                   gpointer  user_data)
{
  const char *name = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (dtype_items); i++)
    if (g_str_equal (nk_dtype_info (dtype_items[i])->cli_name, name))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
dtype_set_mapping (const GValue       *value,
                   const GVariantType *expected_type,
                   gpointer            user_data)
{
  guint i = g_value_get_uint (value);

  return i < G_N_ELEMENTS (dtype_items)
         ? g_variant_new_string (nk_dtype_info (dtype_items[i])->cli_name)
         : NULL;
}

/**
 * napkin_strides_page_set_settings:
 * @self: a strides page
 * @settings: (nullable): settings with the `strides-program` key, or %NULL to keep
 *   nothing
 *
 * Restores the program from @settings and keeps it there as it changes. The
 * window hands the application's settings to its pages through the
 * #NapkinStridesPage:settings property; tests call this directly.
 */
void
napkin_strides_page_set_settings (NapkinStridesPage *self,
                                  GSettings         *settings)
{
  g_return_if_fail (NAPKIN_IS_STRIDES_PAGE (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings == settings)
    return;
  if (self->settings != NULL)
    {
      g_settings_unbind (self->dtype_dropdown, "selected");
      g_settings_unbind (self, "program-text");
    }
  g_set_object (&self->settings, settings);
  /* The format first, so the program runs once in it. */
  if (self->settings != NULL)
    {
      g_settings_bind_with_mapping (self->settings, "strides-dtype", self->dtype_dropdown,
                                    "selected", G_SETTINGS_BIND_DEFAULT, dtype_get_mapping,
                                    dtype_set_mapping, NULL, NULL);
      g_settings_bind (self->settings, "strides-program", self, "program-text",
                       G_SETTINGS_BIND_DEFAULT);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

/* ------------------------------------------------------------ lessons */

static void
update_lesson (NapkinStridesPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (lessons); i++)
    {
      if (&lessons[i] == self->lesson)
        gtk_widget_add_css_class (self->lesson_rows[i], "current-lesson");
      else
        gtk_widget_remove_css_class (self->lesson_rows[i], "current-lesson");
    }

  if (self->lesson != NULL)
    {
      g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>  %s", _(self->lesson->title),
                                                         _(self->lesson->explanation));

      gtk_label_set_markup (self->lesson_label, markup);
    }
  gtk_widget_set_visible (self->lesson_box, self->lesson != NULL);
}

static void
lesson_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (widget);
  const Lesson *lesson = find_lesson (g_variant_get_string (parameter, NULL));

  if (lesson == NULL)
    {
      g_warning ("No lesson “%s”", g_variant_get_string (parameter, NULL));
      return;
    }
  napkin_strides_page_set_program_text (self, lesson->program);
  self->lesson = lesson;
  update_lesson (self);
}

static void
step_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (widget);

  if (g_str_equal (action_name, "strides.step-stop"))
    napkin_storage_diagram_model_set_step (self->model, -1);
  else
    napkin_storage_diagram_model_step (self->model,
                                       g_str_equal (action_name, "strides.step-forward") ? +1 : -1);
}

static void
build_lesson_rows (NapkinStridesPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (lessons); i++)
    {
      GtkWidget *row = adw_action_row_new ();
      /* Decoration: the row itself says it can be activated. */
      GtkWidget *icon = g_object_new (GTK_TYPE_IMAGE,
                                      "icon-name", "go-next-symbolic",
                                      "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                                      NULL);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(lessons[i].title));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _(lessons[i].explanation));
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "strides.lesson");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (row), "s", lessons[i].id);
      gtk_widget_add_css_class (icon, "dim-label");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), icon);
      adw_preferences_group_add (self->lessons_group, row);
      self->lesson_rows[i] = row;
    }
}

/* ------------------------------------------------------------ inputs */

static void
on_buffer_changed (GtkTextBuffer     *buffer,
                   NapkinStridesPage *self)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  g_free (self->text);
  self->text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);

  if (self->lesson != NULL && g_strcmp0 (self->lesson->program, self->text) != 0)
    {
      self->lesson = NULL;
      update_lesson (self);
    }

  g_clear_handle_id (&self->run_source, g_source_remove);
  self->run_source = g_timeout_add (RUN_DELAY_MS, run_timeout, self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRAM_TEXT]);
}

static void
on_dtype_selected (NapkinStridesPage *self)
{
  guint i = gtk_drop_down_get_selected (self->dtype_dropdown);

  if (i >= G_N_ELEMENTS (dtype_items) || nk_program_get_dtype (self->program) == dtype_items[i])
    return;
  nk_program_set_dtype (self->program, dtype_items[i]);
  run_now (self);
}

static void
on_model_notify (NapkinStridesPage *self)
{
  update_formula (self);
}

/* ------------------------------------------------------------ layout */

/* Wide: the program and lessons in a column on the left, the diagram large on the
 * right. Narrow: the diagram above (most of the height), the program below. */
static void
napkin_strides_page_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (widget);
  int side_min, side_nat, diagram_min, diagram_nat;

  gtk_widget_measure (self->side_scroller, orientation, -1, &side_min, &side_nat, NULL, NULL);
  gtk_widget_measure (self->diagram_pane, orientation, -1, &diagram_min, &diagram_nat, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = MAX (side_min, diagram_min);
      *natural = MAX (side_nat + diagram_nat + 1, WIDE_LAYOUT_MIN_WIDTH);
    }
  else
    {
      *minimum = side_min + diagram_min + 1;
      *natural = MAX (side_nat, diagram_nat);
    }
  *natural = MAX (*natural, *minimum);
}

static void
napkin_strides_page_size_allocate (GtkWidget *widget,
                                   int        width,
                                   int        height,
                                   int        baseline)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (widget);
  gboolean wide = width >= WIDE_LAYOUT_MIN_WIDTH;

  gtk_widget_set_child_visible (self->vertical_separator, wide);
  gtk_widget_set_child_visible (self->horizontal_separator, !wide);

  if (wide)
    {
      int side_w = CLAMP (width * 34 / 100, 340, 440);

      gtk_widget_allocate (self->side_scroller, side_w, height, -1, NULL);
      gtk_widget_allocate (self->vertical_separator, 1, height, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (side_w, 0)));
      gtk_widget_allocate (self->diagram_pane, width - side_w - 1, height, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (side_w + 1, 0)));
    }
  else
    {
      int side_min, diagram_min, diagram_h;

      gtk_widget_measure (self->side_scroller, GTK_ORIENTATION_VERTICAL, width,
                          &side_min, NULL, NULL, NULL);
      gtk_widget_measure (self->diagram_pane, GTK_ORIENTATION_VERTICAL, width,
                          &diagram_min, NULL, NULL, NULL);
      diagram_h = CLAMP (height * 58 / 100, diagram_min, MAX (diagram_min, height - side_min - 1));
      gtk_widget_allocate (self->diagram_pane, width, diagram_h, -1, NULL);
      gtk_widget_allocate (self->horizontal_separator, width, 1, -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, diagram_h)));
      gtk_widget_allocate (self->side_scroller, width, MAX (height - diagram_h - 1, side_min), -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, diagram_h + 1)));
    }
}

/* ------------------------------------------------------------ GObject */

static void
update_error_colour (NapkinStridesPage *self)
{
  GdkRGBA error;

  /* The tag cannot use a CSS name: look the colour up for the current style. */
  if (!gtk_style_context_lookup_color (gtk_widget_get_style_context (GTK_WIDGET (self->editor)),
                                       "error_color", &error))
    gdk_rgba_parse (&error, "#e01b24");
  g_object_set (self->error_tag, "underline-rgba", &error, NULL);
  error.alpha = 0.12;
  g_object_set (self->error_tag, "background-rgba", &error, NULL);
}

static void
napkin_strides_page_css_changed (GtkWidget         *widget,
                                 GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (napkin_strides_page_parent_class)->css_changed (widget, change);
  update_error_colour (NAPKIN_STRIDES_PAGE (widget));
}

static void
napkin_strides_page_dispose (GObject *object)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (object);

  napkin_strides_page_set_settings (self, NULL);
  g_clear_handle_id (&self->run_source, g_source_remove);
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  if (self->editor != NULL)
    {
      g_signal_handlers_disconnect_by_data (gtk_text_view_get_buffer (self->editor), self);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_STRIDES_PAGE);
  g_clear_object (&self->settings);
  g_clear_object (&self->model);
  g_clear_object (&self->program);

  G_OBJECT_CLASS (napkin_strides_page_parent_class)->dispose (object);
}

static void
napkin_strides_page_finalize (GObject *object)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (object);

  g_clear_pointer (&self->text, g_free);

  G_OBJECT_CLASS (napkin_strides_page_parent_class)->finalize (object);
}

static void
napkin_strides_page_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (object);

  switch (prop_id)
    {
    case PROP_PROGRAM_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, FALSE);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_strides_page_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NapkinStridesPage *self = NAPKIN_STRIDES_PAGE (object);

  switch (prop_id)
    {
    case PROP_PROGRAM_TEXT:
      napkin_strides_page_set_program_text (self, g_value_get_string (value));
      break;
    case PROP_SETTINGS:
      napkin_strides_page_set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_strides_page_class_init (NapkinStridesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_strides_page_dispose;
  object_class->finalize = napkin_strides_page_finalize;
  object_class->get_property = napkin_strides_page_get_property;
  object_class->set_property = napkin_strides_page_set_property;
  widget_class->measure = napkin_strides_page_measure;
  widget_class->size_allocate = napkin_strides_page_size_allocate;
  widget_class->css_changed = napkin_strides_page_css_changed;

  /**
   * NapkinStridesPage:program-text:
   *
   * The program in the editor. Setting it runs the program at once; typing runs
   * it shortly after the last key.
   */
  properties[PROP_PROGRAM_TEXT] =
    g_param_spec_string ("program-text", NULL, NULL, DEFAULT_PROGRAM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NapkinStridesPage:settings:
   *
   * The settings that keep the program, with the `strides-program` and
   * `strides-dtype` keys.
   */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_BUSY, "busy");

  g_type_ensure (NAPKIN_TYPE_STORAGE_DIAGRAM);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-strides-page.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, NapkinStridesPage, name)
  BIND (side_scroller);
  BIND (vertical_separator);
  BIND (horizontal_separator);
  BIND (diagram_pane);
  BIND (dtype_dropdown);
  BIND (editor_scroller);
  BIND (editor);
  BIND (program_group);
  BIND (lessons_group);
  BIND (lesson_box);
  BIND (lesson_label);
  BIND (formula_label);
  BIND (stop_button);
  BIND (diagram);
#undef BIND

  gtk_widget_class_install_action (widget_class, "strides.lesson", "s", lesson_action);
  gtk_widget_class_install_action (widget_class, "strides.step-forward", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "strides.step-back", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "strides.step-stop", NULL, step_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK,
                                       "strides.step-forward", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK,
                                       "strides.step-back", NULL);

  gtk_widget_class_set_css_name (widget_class, "stridespage");
}

static void
napkin_strides_page_init (NapkinStridesPage *self)
{
  GtkTextBuffer *buffer;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->program = nk_program_new ();
  self->model = napkin_storage_diagram_model_new ();
  self->text = g_strdup (DEFAULT_PROGRAM);
  napkin_storage_diagram_set_model (self->diagram, self->model);
  g_signal_connect_swapped (self->model, "notify", G_CALLBACK (on_model_notify), self);

  buffer = gtk_text_view_get_buffer (self->editor);
  self->error_tag = gtk_text_buffer_create_tag (buffer, "error",
                                                "underline", PANGO_UNDERLINE_ERROR,
                                                NULL);
  update_error_colour (self);

  self->error_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (self->error_box, "program-error");
  gtk_widget_set_margin_top (self->error_box, 8);
  gtk_widget_set_visible (self->error_box, FALSE);
  self->error_label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->error_label), 0);
  gtk_label_set_wrap (GTK_LABEL (self->error_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->error_label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (self->error_label), TRUE);
  gtk_widget_add_css_class (self->error_label, "reason");
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->editor),
                                  GTK_ACCESSIBLE_RELATION_ERROR_MESSAGE, self->error_label,
                                  -1);
  gtk_box_append (GTK_BOX (self->error_box), self->error_label);
  /* A long line is cut at the end rather than wrapped: wrapping would move the caret. */
  self->error_caret = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->error_caret), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->error_caret), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (self->error_caret, "caret");
  gtk_box_append (GTK_BOX (self->error_box), self->error_caret);
  adw_preferences_group_add (self->program_group, self->error_box);

  build_lesson_rows (self);

  gtk_text_buffer_set_text (buffer, DEFAULT_PROGRAM, -1);
  g_signal_connect (buffer, "changed", G_CALLBACK (on_buffer_changed), self);
  g_signal_connect_swapped (self->dtype_dropdown, "notify::selected", G_CALLBACK (on_dtype_selected), self);

  run_now (self);
}

/**
 * napkin_strides_page_new:
 *
 * Returns: (transfer full): a new page showing `x = arange(16).view(4, 4)`
 */
GtkWidget *
napkin_strides_page_new (void)
{
  return g_object_new (NAPKIN_TYPE_STRIDES_PAGE, NULL);
}

/**
 * napkin_strides_page_get_program_text:
 * @self: a strides page
 *
 * Returns: the program in the editor
 */
const char *
napkin_strides_page_get_program_text (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NULL);
  return self->text;
}

/**
 * napkin_strides_page_set_program_text:
 * @self: a strides page
 * @text: a program
 *
 * Replaces the program in the editor and runs it at once.
 */
void
napkin_strides_page_set_program_text (NapkinStridesPage *self,
                                      const char        *text)
{
  g_return_if_fail (NAPKIN_IS_STRIDES_PAGE (self));

  if (text == NULL)
    text = "";
  if (g_strcmp0 (self->text, text) != 0)
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);

      /* set_text() deletes, then inserts: one change for the person, not two. */
      g_signal_handlers_block_by_func (buffer, on_buffer_changed, self);
      gtk_text_buffer_set_text (buffer, text, -1);
      g_signal_handlers_unblock_by_func (buffer, on_buffer_changed, self);
      on_buffer_changed (buffer, self);
    }
  run_now (self);
}

/**
 * napkin_strides_page_get_dtype:
 * @self: a strides page
 *
 * Returns: the element format the program's tensors are stored in
 */
NkDType
napkin_strides_page_get_dtype (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NK_DTYPE_F32);
  return nk_program_get_dtype (self->program);
}

/**
 * napkin_strides_page_set_dtype:
 * @self: a strides page
 * @dtype: f32, f16, bf16 or e4m3
 *
 * Chooses @dtype in the dropdown, as a person would; other formats change nothing.
 */
void
napkin_strides_page_set_dtype (NapkinStridesPage *self,
                               NkDType            dtype)
{
  g_return_if_fail (NAPKIN_IS_STRIDES_PAGE (self));

  for (guint i = 0; i < G_N_ELEMENTS (dtype_items); i++)
    if (dtype_items[i] == dtype)
      gtk_drop_down_set_selected (self->dtype_dropdown, i);
}

/**
 * napkin_strides_page_get_program:
 * @self: a strides page
 *
 * Returns: (transfer none): the program the diagram shows (after its last run)
 */
NkProgram *
napkin_strides_page_get_program (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NULL);
  return self->program;
}

/**
 * napkin_strides_page_get_model:
 * @self: a strides page
 *
 * Returns: (transfer none): the diagram's model: its storages, tensors, the selected
 *   tensor and the storage cells it highlights
 */
NapkinStorageDiagramModel *
napkin_strides_page_get_model (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NULL);
  return self->model;
}

/**
 * _napkin_strides_page_get_error_text:
 * @self: a strides page
 *
 * Returns: (nullable): the error shown under the failing statement ("Line 3,
 *   column 7: ..."), %NULL when the program ran
 */
const char *
_napkin_strides_page_get_error_text (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NULL);

  if (!gtk_widget_get_visible (self->error_box))
    return NULL;
  return gtk_label_get_label (GTK_LABEL (self->error_label));
}

/**
 * _napkin_strides_page_get_formula_text:
 * @self: a strides page
 *
 * Returns: the address line above the diagram, e.g. "x[1, 2] → 6 = 0 + 1·4 + 2·1"
 */
const char *
_napkin_strides_page_get_formula_text (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NULL);
  return gtk_label_get_label (self->formula_label);
}

/**
 * _napkin_strides_page_get_lesson:
 * @self: a strides page
 *
 * Returns: (nullable): the id of the lesson the editor still shows, %NULL once the
 *   program was edited
 */
const char *
_napkin_strides_page_get_lesson (NapkinStridesPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_STRIDES_PAGE (self), NULL);
  return self->lesson ? self->lesson->id : NULL;
}
