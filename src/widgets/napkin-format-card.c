/* napkin-format-card.c: one format's row on the Number formats page
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A card shows what the page tells it and turns what people do into the page's
 * actions: "formats.flip-bit" (si) from the bit cells, "formats.previous" and
 * "formats.next" (s), "formats.jump" (ss) from the landmark menu and
 * "formats.set-bits" (ss) when the hex entry is activated or left edited.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-format-card.h"
#include "napkin-wrap-box.h"

struct _NapkinFormatCard
{
  GtkWidget        parent_instance;

  NkDType          dtype;
  char            *shown_hex;

  GtkWidget       *box;
  GtkLabel        *title_label;
  GtkLabel        *tag_label;
  GtkLabel        *subtitle_label;
  GtkEntry        *hex_entry;
  GtkButton       *previous_button;
  GtkButton       *next_button;
  GtkMenuButton   *jump_button;
  GtkScrolledWindow *bits_scroller;
  NapkinBitRow    *bit_row;
  GtkLabel        *value_label;
  GtkLabel        *class_label;
  GtkLabel        *abs_error_label;
  GtkLabel        *rel_error_label;
  GtkLabel        *formula_label;
  GtkLabel        *exact_label;
  GtkLabel        *note_label;
  GtkLabel        *overflow_label;
};

enum {
  PROP_0,
  PROP_DTYPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (NapkinFormatCard, napkin_format_card, GTK_TYPE_WIDGET)

static void
commit_hex (NapkinFormatCard *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->hex_entry));
  const NkDTypeInfo *info = nk_dtype_info (self->dtype);

  gtk_widget_activate_action (GTK_WIDGET (self), "formats.set-bits", "(ss)",
                              info->cli_name, text);
}

static void
hex_activate_cb (NapkinFormatCard *self)
{
  commit_hex (self);
}

static void
hex_focus_leave_cb (NapkinFormatCard *self)
{
  /* An edit left behind is applied rather than silently dropped. */
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->hex_entry)), self->shown_hex) != 0)
    commit_hex (self);
}

static GMenuModel *
build_jump_menu (const NkDTypeInfo *info)
{
  static const struct {
    const char *label;
    const char *target;
  } landmarks[] = {
    { N_("_Largest Finite Value"), "max" },
    { N_("Smallest _Normal Value"), "min-normal" },
    { N_("Smallest _Subnormal Value"), "min-subnormal" },
    { N_("_Epsilon (Gap Above 1)"), "epsilon" },
    { N_("_One"), "one" },
  };
  GMenu *menu = g_menu_new ();

  for (guint i = 0; i < G_N_ELEMENTS (landmarks); i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_(landmarks[i].label), NULL);

      g_menu_item_set_action_and_target_value (item, "formats.jump",
                                               g_variant_new ("(ss)", info->cli_name,
                                                              landmarks[i].target));
      g_menu_append_item (menu, item);
    }
  return G_MENU_MODEL (menu);
}

static void
napkin_format_card_constructed (GObject *object)
{
  NapkinFormatCard *self = NAPKIN_FORMAT_CARD (object);
  const NkDTypeInfo *info = nk_dtype_info (self->dtype);
  g_autoptr(GMenuModel) menu = build_jump_menu (info);
  g_autofree char *subtitle = NULL;

  G_OBJECT_CLASS (napkin_format_card_parent_class)->constructed (object);

  gtk_label_set_label (self->title_label, info->name);
  /* Translators: a format's layout, e.g. "IEEE 754 binary16 · 16 bits: 1 sign,
   * 5 exponent, 10 mantissa · bias 15" */
  if (info->is_signed)
    subtitle = g_strdup_printf (_("%s · %u bits: 1 sign, %u exponent, %u mantissa · bias %d"),
                                _(info->title), info->bits, info->exponent_bits,
                                info->mantissa_bits, info->bias);
  else
    /* Translators: an unsigned format's layout, e.g. "OCP MX E8M0 scale · 8 bits:
     * 8 exponent, no sign, no mantissa · bias 127" */
    subtitle = g_strdup_printf (_("%s · %u bits: %u exponent, no sign, no mantissa · bias %d"),
                                _(info->title), info->bits, info->exponent_bits, info->bias);
  gtk_label_set_label (self->subtitle_label, subtitle);
  if (!info->is_storage)
    {
      gtk_label_set_label (self->tag_label, _("compute format"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->tag_label),
                                   _("Tensor cores read f32 inputs rounded to these 19 bits; "
                                     "nothing is stored in this format"));
      gtk_widget_set_visible (GTK_WIDGET (self->tag_label), TRUE);
    }
  else if (self->dtype == NK_DTYPE_E8M0)
    {
      gtk_label_set_label (self->tag_label, _("block scale"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->tag_label),
                                   _("Each MX block of 32 elements shares one of these powers "
                                     "of two"));
      gtk_widget_set_visible (GTK_WIDGET (self->tag_label), TRUE);
    }

  self->bit_row = NAPKIN_BIT_ROW (napkin_bit_row_new (self->dtype, "formats.flip-bit"));
  gtk_scrolled_window_set_child (self->bits_scroller, GTK_WIDGET (self->bit_row));

  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->previous_button), "formats.previous");
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (self->previous_button),
                                          g_variant_new_string (info->cli_name));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->next_button), "formats.next");
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (self->next_button),
                                          g_variant_new_string (info->cli_name));
  gtk_menu_button_set_menu_model (self->jump_button, menu);

  gtk_widget_add_css_class (GTK_WIDGET (self), info->cli_name);
}

static void
napkin_format_card_dispose (GObject *object)
{
  NapkinFormatCard *self = NAPKIN_FORMAT_CARD (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_FORMAT_CARD);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (napkin_format_card_parent_class)->dispose (object);
}

static void
napkin_format_card_finalize (GObject *object)
{
  NapkinFormatCard *self = NAPKIN_FORMAT_CARD (object);

  g_clear_pointer (&self->shown_hex, g_free);

  G_OBJECT_CLASS (napkin_format_card_parent_class)->finalize (object);
}

static void
napkin_format_card_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  NapkinFormatCard *self = NAPKIN_FORMAT_CARD (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      g_value_set_int (value, self->dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_format_card_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  NapkinFormatCard *self = NAPKIN_FORMAT_CARD (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      self->dtype = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_format_card_class_init (NapkinFormatCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = napkin_format_card_constructed;
  object_class->dispose = napkin_format_card_dispose;
  object_class->finalize = napkin_format_card_finalize;
  object_class->get_property = napkin_format_card_get_property;
  object_class->set_property = napkin_format_card_set_property;

  properties[PROP_DTYPE] =
    g_param_spec_int ("dtype", NULL, NULL,
                      0, NK_N_DTYPES - 1, NK_DTYPE_F32,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (NAPKIN_TYPE_WRAP_BOX);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-format-card.ui");
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, box);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, tag_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, hex_entry);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, previous_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, next_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, jump_button);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, bits_scroller);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, value_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, class_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, abs_error_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, rel_error_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, formula_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, exact_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, note_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatCard, overflow_label);
  gtk_widget_class_bind_template_callback (widget_class, hex_activate_cb);

  gtk_widget_class_set_css_name (widget_class, "formatcard");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
napkin_format_card_init (NapkinFormatCard *self)
{
  GtkEventController *focus;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* A screen reader names the card's group by its format, as it is seen. */
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, self->title_label, NULL,
                                  -1);

  focus = gtk_event_controller_focus_new ();
  g_signal_connect_swapped (focus, "leave", G_CALLBACK (hex_focus_leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->hex_entry), focus);
}

/**
 * napkin_format_card_new:
 * @dtype: a floating-point format
 *
 * Returns: (transfer full): a new card for @dtype
 */
GtkWidget *
napkin_format_card_new (NkDType dtype)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), NULL);

  return g_object_new (NAPKIN_TYPE_FORMAT_CARD, "dtype", dtype, NULL);
}

/**
 * napkin_format_card_get_dtype:
 * @self: a format card
 *
 * Returns: the card's format
 */
NkDType
napkin_format_card_get_dtype (NapkinFormatCard *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMAT_CARD (self), NK_DTYPE_F32);

  return self->dtype;
}

/**
 * napkin_format_card_get_bit_row:
 * @self: a format card
 *
 * Returns: (transfer none): the card's bit cells
 */
NapkinBitRow *
napkin_format_card_get_bit_row (NapkinFormatCard *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMAT_CARD (self), NULL);

  return self->bit_row;
}

static void
set_note (GtkLabel   *label,
          const char *text,
          gboolean    markup)
{
  if (markup)
    gtk_label_set_markup (label, text ? text : "");
  else
    gtk_label_set_label (label, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (label), text != NULL && *text != '\0');
}

/**
 * napkin_format_card_show:
 * @self: a format card
 * @content: what to show
 *
 * Shows @content; when it is not known, every field shows "—" so that nothing
 * stale passes for current.
 */
void
napkin_format_card_show (NapkinFormatCard              *self,
                         const NapkinFormatCardContent *content)
{
  static const char *dash = "—";
  gboolean known;

  g_return_if_fail (NAPKIN_IS_FORMAT_CARD (self));
  g_return_if_fail (content != NULL);

  known = content->known;
  napkin_bit_row_set_known (self->bit_row, known);
  if (known)
    napkin_bit_row_set_bits (self->bit_row, content->bits);

  /* Leave the hex entry alone while it holds someone's unfinished, rejected edit. */
  if (known || !gtk_widget_has_css_class (GTK_WIDGET (self->hex_entry), "error"))
    {
      g_free (self->shown_hex);
      self->shown_hex = g_strdup (known ? content->hex : "");
      gtk_editable_set_text (GTK_EDITABLE (self->hex_entry), self->shown_hex);
    }

  gtk_label_set_label (self->value_label, known ? content->value : dash);
  gtk_label_set_label (self->class_label, known ? content->klass : dash);
  gtk_label_set_label (self->abs_error_label, known ? content->abs_error : dash);
  gtk_label_set_label (self->rel_error_label, known ? content->rel_error : dash);
  gtk_label_set_label (self->formula_label, known ? content->formula : dash);
  gtk_label_set_label (self->exact_label, known ? content->exact : dash);
  set_note (self->note_label, known ? content->note : NULL, FALSE);
  if (known && content->note_is_warning)
    gtk_widget_add_css_class (GTK_WIDGET (self->note_label), "warning");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->note_label), "warning");
  set_note (self->overflow_label, known ? content->overflow : NULL, TRUE);
}

/**
 * napkin_format_card_set_hex_error:
 * @self: a format card
 * @error: whether the hex entry holds text that is not bits of this format
 *
 * Marks the hex entry.
 */
void
napkin_format_card_set_hex_error (NapkinFormatCard *self,
                                  gboolean          error)
{
  g_return_if_fail (NAPKIN_IS_FORMAT_CARD (self));

  if (error)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->hex_entry), "error");
      gtk_accessible_update_state (GTK_ACCESSIBLE (self->hex_entry),
                                   GTK_ACCESSIBLE_STATE_INVALID, GTK_ACCESSIBLE_INVALID_TRUE,
                                   -1);
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->hex_entry), "error");
      gtk_accessible_update_state (GTK_ACCESSIBLE (self->hex_entry),
                                   GTK_ACCESSIBLE_STATE_INVALID, GTK_ACCESSIBLE_INVALID_FALSE,
                                   -1);
    }
}

/**
 * napkin_format_card_dup_field:
 * @self: a format card
 * @field: "value", "class", "abs-error", "rel-error", "formula", "exact", "note",
 *   "overflow", "hex" or "bits"
 *
 * What the card shows in @field, for tests and accessibility checks. A hidden
 * note reads as "".
 *
 * Returns: (transfer full): the text shown
 */
char *
napkin_format_card_dup_field (NapkinFormatCard *self,
                              const char       *field)
{
  struct {
    const char *name;
    GtkLabel   *label;
  } labels[] = {
    { "value", self->value_label },
    { "class", self->class_label },
    { "abs-error", self->abs_error_label },
    { "rel-error", self->rel_error_label },
    { "formula", self->formula_label },
    { "exact", self->exact_label },
    { "note", self->note_label },
    { "overflow", self->overflow_label },
  };

  g_return_val_if_fail (NAPKIN_IS_FORMAT_CARD (self), NULL);
  g_return_val_if_fail (field != NULL, NULL);

  if (strcmp (field, "hex") == 0)
    return g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->hex_entry)));
  if (strcmp (field, "bits") == 0)
    return napkin_bit_row_dup_text (self->bit_row);
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (strcmp (field, labels[i].name) == 0)
      return g_strdup (gtk_widget_get_visible (GTK_WIDGET (labels[i].label))
                       ? gtk_label_get_text (labels[i].label) : "");
  g_return_val_if_reached (NULL);
}
