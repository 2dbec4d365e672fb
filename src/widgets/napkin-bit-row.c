/* napkin-bit-row.c: one format's bits as focusable cells, coloured by field
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each bit is a small button. Activating it (click, Space, Enter) activates the
 * row's action with the target ("<dtype name>", <bit index>), so the page that owns
 * the action decides what a flip means; the row only shows the bits it is given.
 * Bit 0 is the least significant; cells are laid out most significant first.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "napkin-bit-row.h"

struct _NapkinBitRow
{
  GtkWidget  parent_instance;

  NkDType    dtype;
  char      *action_name;
  guint64    bits;
  gboolean   known;

  /* (element-type GtkWidget): the cells, indexed by bit number */
  GPtrArray *cells;
  /* The one cell Tab stops at: the last one focused, at first the top bit. */
  guint      current;
};

enum {
  PROP_0,
  PROP_DTYPE,
  PROP_ACTION_NAME,
  PROP_BITS,
  PROP_KNOWN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (NapkinBitRow, napkin_bit_row, GTK_TYPE_WIDGET)

typedef enum {
  FIELD_SIGN,
  FIELD_EXPONENT,
  FIELD_MANTISSA,
} Field;

static const char *field_css[] = { "sign", "exponent", "mantissa" };

static Field
field_of_bit (const NkDTypeInfo *info,
              guint              index)
{
  if (index < info->mantissa_bits)
    return FIELD_MANTISSA;
  if (index < info->mantissa_bits + info->exponent_bits)
    return FIELD_EXPONENT;
  return FIELD_SIGN;
}

/* What a cell is, as its tooltip shows it: "Bit 31: the sign". */
static char *
cell_title (const NkDTypeInfo *info,
            guint              index)
{
  switch (field_of_bit (info, index))
    {
    case FIELD_SIGN:
      return g_strdup_printf (_("Bit %d: the sign"), (int) index);
    case FIELD_EXPONENT:
      return g_strdup_printf (_("Bit %d: exponent"), (int) index);
    case FIELD_MANTISSA:
    default:
      return g_strdup_printf (_("Bit %d: mantissa"), (int) index);
    }
}

static void
napkin_bit_row_sync (NapkinBitRow *self)
{
  const NkDTypeInfo *info = nk_dtype_info (self->dtype);

  for (guint i = 0; i < self->cells->len; i++)
    {
      GtkWidget *cell = g_ptr_array_index (self->cells, i);
      gboolean set = self->known && ((self->bits >> i) & 1) != 0;
      g_autofree char *title = cell_title (info, i);
      g_autofree char *name = NULL;

      gtk_button_set_label (GTK_BUTTON (cell), !self->known ? "·" : set ? "1" : "0");
      /* The name says which bit and what it holds ("Bit 31: the sign, 1"), after
       * the button set its label as its name. */
      name = g_strdup_printf ("%s, %s", title, !self->known ? _("unknown") : set ? "1" : "0");
      gtk_accessible_update_property (GTK_ACCESSIBLE (cell),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                      -1);
      if (set)
        gtk_widget_add_css_class (cell, "set");
      else
        gtk_widget_remove_css_class (cell, "set");
      if (self->known)
        gtk_widget_remove_css_class (cell, "unknown");
      else
        gtk_widget_add_css_class (cell, "unknown");
    }
}

static GtkWidget *
make_caption (const char *text,
              float       xalign)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "bit-caption");
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static void
cell_focus_cb (NapkinBitRow *self,
               GParamSpec   *pspec,
               GtkWidget    *cell)
{
  guint index;

  if (gtk_widget_has_focus (cell) && g_ptr_array_find (self->cells, cell, &index))
    self->current = index;
}

/* One field: its name above the cells, the bit numbers of its ends below. */
static GtkWidget *
build_field (NapkinBitRow      *self,
             const NkDTypeInfo *info,
             Field              field,
             guint              hi,
             guint              lo)
{
  GtkWidget *box, *cells, *ends, *name;
  g_autofree char *hi_text = g_strdup_printf ("%u", hi);
  g_autofree char *lo_text = g_strdup_printf ("%u", lo);
  g_autofree char *title = NULL;

  switch (field)
    {
    case FIELD_SIGN:
      /* Translators: the caption above a format's sign bit; keep it short */
      title = g_strdup (C_("bit field", "sign"));
      break;
    case FIELD_EXPONENT:
      /* Translators: the caption above a format's exponent bits, with their count */
      title = g_strdup_printf (C_("bit field", "exponent · %u"), hi - lo + 1);
      break;
    case FIELD_MANTISSA:
    default:
      /* Translators: the caption above a format's fraction bits, with their count */
      title = g_strdup_printf (C_("bit field", "mantissa · %u"), hi - lo + 1);
      break;
    }

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_add_css_class (box, "bit-field");
  gtk_widget_add_css_class (box, field_css[field]);

  name = make_caption (title, 0);
  gtk_box_append (GTK_BOX (box), name);

  cells = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 2);
  gtk_widget_set_halign (cells, GTK_ALIGN_START);
  for (int i = (int) hi; i >= (int) lo; i--)
    {
      GtkWidget *cell = gtk_button_new_with_label ("0");
      g_autofree char *tooltip = cell_title (info, (guint) i);

      gtk_widget_add_css_class (cell, "bit");
      gtk_widget_add_css_class (cell, field_css[field]);
      gtk_widget_add_css_class (cell, "monospace");
      gtk_widget_set_tooltip_text (cell, tooltip);
      g_signal_connect_swapped (cell, "notify::has-focus", G_CALLBACK (cell_focus_cb), self);
      if (self->action_name != NULL)
        gtk_actionable_set_action_target_value (GTK_ACTIONABLE (cell),
                                                g_variant_new ("(si)", info->cli_name, i));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (cell), self->action_name);
      g_ptr_array_index (self->cells, i) = cell;
      gtk_box_append (GTK_BOX (cells), cell);
    }
  gtk_box_append (GTK_BOX (box), cells);

  ends = gtk_center_box_new ();
  gtk_center_box_set_start_widget (GTK_CENTER_BOX (ends), make_caption (hi_text, 0));
  if (hi != lo)
    gtk_center_box_set_end_widget (GTK_CENTER_BOX (ends), make_caption (lo_text, 1));
  gtk_box_append (GTK_BOX (box), ends);

  return box;
}

static void
napkin_bit_row_build (NapkinBitRow *self)
{
  const NkDTypeInfo *info = nk_dtype_info (self->dtype);
  guint m = info->mantissa_bits, e = info->exponent_bits;

  g_ptr_array_set_size (self->cells, info->bits);
  self->current = info->bits - 1;
  if (info->is_signed)
    gtk_widget_set_parent (build_field (self, info, FIELD_SIGN, m + e, m + e),
                           GTK_WIDGET (self));
  if (e > 0)
    gtk_widget_set_parent (build_field (self, info, FIELD_EXPONENT, m + e - 1, m),
                           GTK_WIDGET (self));
  if (m > 0)
    gtk_widget_set_parent (build_field (self, info, FIELD_MANTISSA, m - 1, 0),
                           GTK_WIDGET (self));
  napkin_bit_row_sync (self);
}

static int
focused_bit (NapkinBitRow *self)
{
  for (guint i = 0; i < self->cells->len; i++)
    if (gtk_widget_has_focus (g_ptr_array_index (self->cells, i)))
      return (int) i;
  return -1;
}

/* The row is one stop in the Tab chain, as a toolbar or a radio group is: Tab
 * enters on the bit focused last and leaves from any bit; the arrows, Home and
 * End move between the bits (key_pressed_cb). */
static gboolean
napkin_bit_row_focus (GtkWidget        *widget,
                      GtkDirectionType  direction)
{
  NapkinBitRow *self = NAPKIN_BIT_ROW (widget);

  if (focused_bit (self) >= 0 || self->cells->len == 0)
    return FALSE;
  return gtk_widget_grab_focus (g_ptr_array_index (self->cells,
                                                   MIN (self->current, self->cells->len - 1)));
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                NapkinBitRow          *self)
{
  int bit = focused_bit (self);
  int last = (int) self->cells->len - 1;
  int target;

  if (bit < 0 || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SHIFT_MASK)) != 0)
    return FALSE;

  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      target = MIN (bit + 1, last);
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      target = MAX (bit - 1, 0);
      break;
    case GDK_KEY_Home:
    case GDK_KEY_KP_Home:
      target = last;
      break;
    case GDK_KEY_End:
    case GDK_KEY_KP_End:
      target = 0;
      break;
    default:
      return FALSE;
    }
  gtk_widget_grab_focus (g_ptr_array_index (self->cells, target));
  /* Stay inside the row at its ends rather than wander off to other widgets. */
  return TRUE;
}

static void
napkin_bit_row_constructed (GObject *object)
{
  NapkinBitRow *self = NAPKIN_BIT_ROW (object);

  g_autofree char *name = NULL;

  G_OBJECT_CLASS (napkin_bit_row_parent_class)->constructed (object);

  napkin_bit_row_build (self);
  /* Translators: the accessible name of a format's row of bit cells, e.g. "Bits of f32" */
  name = g_strdup_printf (_("Bits of %s"), nk_dtype_info (self->dtype)->name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Left and Right move between the bits, Space flips the focused bit"),
                                  -1);
}

static void
napkin_bit_row_dispose (GObject *object)
{
  NapkinBitRow *self = NAPKIN_BIT_ROW (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);

  G_OBJECT_CLASS (napkin_bit_row_parent_class)->dispose (object);
}

static void
napkin_bit_row_finalize (GObject *object)
{
  NapkinBitRow *self = NAPKIN_BIT_ROW (object);

  g_clear_pointer (&self->cells, g_ptr_array_unref);
  g_clear_pointer (&self->action_name, g_free);

  G_OBJECT_CLASS (napkin_bit_row_parent_class)->finalize (object);
}

static void
napkin_bit_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  NapkinBitRow *self = NAPKIN_BIT_ROW (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      g_value_set_int (value, self->dtype);
      break;
    case PROP_ACTION_NAME:
      g_value_set_string (value, self->action_name);
      break;
    case PROP_BITS:
      g_value_set_uint64 (value, self->bits);
      break;
    case PROP_KNOWN:
      g_value_set_boolean (value, self->known);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_bit_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  NapkinBitRow *self = NAPKIN_BIT_ROW (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      self->dtype = g_value_get_int (value);
      break;
    case PROP_ACTION_NAME:
      self->action_name = g_value_dup_string (value);
      break;
    case PROP_BITS:
      napkin_bit_row_set_bits (self, g_value_get_uint64 (value));
      break;
    case PROP_KNOWN:
      napkin_bit_row_set_known (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_bit_row_class_init (NapkinBitRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = napkin_bit_row_constructed;
  object_class->dispose = napkin_bit_row_dispose;
  object_class->finalize = napkin_bit_row_finalize;
  object_class->get_property = napkin_bit_row_get_property;
  object_class->set_property = napkin_bit_row_set_property;

  properties[PROP_DTYPE] =
    g_param_spec_int ("dtype", NULL, NULL,
                      0, NK_N_DTYPES - 1, NK_DTYPE_F32,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ACTION_NAME] =
    g_param_spec_string ("action-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BITS] =
    g_param_spec_uint64 ("bits", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_KNOWN] =
    g_param_spec_boolean ("known", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  widget_class->focus = napkin_bit_row_focus;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "bitrow");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
napkin_bit_row_init (NapkinBitRow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  self->known = TRUE;
  self->cells = g_ptr_array_new ();
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 8);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

/**
 * napkin_bit_row_new:
 * @dtype: a floating-point format
 * @action_name: (nullable): the action each cell activates, with the target
 *   ("<cli name>", <bit index>)
 *
 * Returns: (transfer full): a new row of bit cells for @dtype
 */
GtkWidget *
napkin_bit_row_new (NkDType     dtype,
                    const char *action_name)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), NULL);

  return g_object_new (NAPKIN_TYPE_BIT_ROW, "dtype", dtype, "action-name", action_name, NULL);
}

/**
 * napkin_bit_row_get_dtype:
 * @self: a bit row
 *
 * Returns: the format whose bits the row shows
 */
NkDType
napkin_bit_row_get_dtype (NapkinBitRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_BIT_ROW (self), NK_DTYPE_F32);

  return self->dtype;
}

/**
 * napkin_bit_row_get_bits:
 * @self: a bit row
 *
 * Returns: the pattern shown
 */
guint64
napkin_bit_row_get_bits (NapkinBitRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_BIT_ROW (self), 0);

  return self->bits;
}

/**
 * napkin_bit_row_set_bits:
 * @self: a bit row
 * @bits: a pattern of the row's format
 *
 * Shows @bits.
 */
void
napkin_bit_row_set_bits (NapkinBitRow *self,
                         guint64       bits)
{
  g_return_if_fail (NAPKIN_IS_BIT_ROW (self));

  if (self->bits == bits)
    return;
  self->bits = bits;
  napkin_bit_row_sync (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BITS]);
}

/**
 * napkin_bit_row_get_known:
 * @self: a bit row
 *
 * Returns: whether the row shows bits, rather than placeholders
 */
gboolean
napkin_bit_row_get_known (NapkinBitRow *self)
{
  g_return_val_if_fail (NAPKIN_IS_BIT_ROW (self), FALSE);

  return self->known;
}

/**
 * napkin_bit_row_set_known:
 * @self: a bit row
 * @known: %FALSE to show placeholders instead of bits (there is no current value)
 *
 * Sets whether the row's bits are current.
 */
void
napkin_bit_row_set_known (NapkinBitRow *self,
                          gboolean      known)
{
  g_return_if_fail (NAPKIN_IS_BIT_ROW (self));

  known = !!known;
  if (self->known == known)
    return;
  self->known = known;
  napkin_bit_row_sync (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KNOWN]);
}

/**
 * napkin_bit_row_dup_text:
 * @self: a bit row
 *
 * What the cells show, most significant first, fields separated by spaces
 * ("0 01111 0000000000"), or placeholders when the bits are not known.
 *
 * Returns: (transfer full): the cells' text
 */
char *
napkin_bit_row_dup_text (NapkinBitRow *self)
{
  const NkDTypeInfo *info;
  GString *s;

  g_return_val_if_fail (NAPKIN_IS_BIT_ROW (self), NULL);

  info = nk_dtype_info (self->dtype);
  s = g_string_new (NULL);
  for (int i = (int) self->cells->len - 1; i >= 0; i--)
    {
      GtkWidget *cell = g_ptr_array_index (self->cells, i);

      g_string_append (s, gtk_button_get_label (GTK_BUTTON (cell)));
      if (i > 0 && field_of_bit (info, i) != field_of_bit (info, i - 1))
        g_string_append_c (s, ' ');
    }
  return g_string_free (s, FALSE);
}

/**
 * napkin_bit_row_focus_bit:
 * @self: a bit row
 * @index: a bit number, 0 the least significant
 *
 * Moves the keyboard focus to the cell of bit @index.
 *
 * Returns: whether the cell took the focus
 */
gboolean
napkin_bit_row_focus_bit (NapkinBitRow *self,
                          guint         index)
{
  g_return_val_if_fail (NAPKIN_IS_BIT_ROW (self), FALSE);
  g_return_val_if_fail (index < self->cells->len, FALSE);

  return gtk_widget_grab_focus (g_ptr_array_index (self->cells, index));
}
