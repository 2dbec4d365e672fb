/* napkin-formats-page.c: the Number formats page: one number in every format, bit by bit
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is either the typed value (rounded once into every format) or the
 * bits of one format that someone flipped, stepped, jumped or typed in hex: that
 * row keeps its exact bits (NaN payloads too) and its value drives the others.
 * Every value, class, limit, neighbour, formula and exact decimal comes from
 * nk-dtype; this file only decides what to show where. When the input is bad,
 * every row shows "—": never a stale value that looks current.
 *
 * Actions, for the widgets and for tests:
 *   formats.flip-bit  (si)  format name, bit number (0 = least significant)
 *   formats.next      s     format name: its next representable value
 *   formats.previous  s     format name: its previous representable value
 *   formats.jump      (ss)  format name, "max" | "min-normal" | "min-subnormal" |
 *                           "epsilon" | "one"
 *   formats.set-bits  (ss)  format name, hex bits ("0x3c00" or "3c00")
 *   formats.section   s     "elements" | "blocks" | "rounding" | "values": the
 *                           part of the page shown
 *
 * The Blocks, Rounding and All Values parts are widgets of their own
 * (napkin-formats-blocks.c, -rounding.c, -table.c).
 */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "napkin-bit-row.h"
#include "napkin-format-card.h"
#include "napkin-formats-blocks.h"
#include "napkin-formats-rounding.h"
#include "napkin-formats-table.h"
#include "napkin-page.h"
#include "napkin-formats-page-private.h"
#include "napkin-range-chart.h"
#include "nk-dtype.h"

/* The rows, top to bottom, in three groups: IEEE and its cousins (tf32 is what
 * tensor cores compute in, nothing stores it); the fp8 formats, OCP's and AMD's
 * "fnuz"; the OCP MX elements and their E8M0 scale. */
static const NkDType row_dtypes[] = {
  NK_DTYPE_F32, NK_DTYPE_F16, NK_DTYPE_BF16, NK_DTYPE_TF32,
  NK_DTYPE_E4M3, NK_DTYPE_E5M2, NK_DTYPE_E4M3FNUZ, NK_DTYPE_E5M2FNUZ,
  NK_DTYPE_FP6_E3M2, NK_DTYPE_FP6_E2M3, NK_DTYPE_FP4_E2M1, NK_DTYPE_E8M0,
};
#define N_ROWS G_N_ELEMENTS (row_dtypes)

/* Where each group starts in row_dtypes, and its heading. */
static const struct {
  guint       first_row;
  const char *title;
} row_groups[] = {
  { 0, N_("IEEE, bfloat16 and tf32") },
  { 4, N_("8-bit floats") },
  { 8, N_("Microscaling elements and scale") },
};

#define SOURCE_ENTRY (-1)

struct _NapkinFormatsPage
{
  GtkWidget         parent_instance;

  GSettings        *settings;
  char             *value_text;
  gboolean          storing_text;   /* the value entry is being set from value_text */
  gboolean          saturate;

  /* The current input: valid, or an error sentence (and the row it came from). */
  gboolean          valid;
  char             *error_message;
  int               error_row;
  double            input;
  int               source;
  guint64           source_bits;
  guint64           bits[N_ROWS];
  int               current_row;

  AdwEntryRow      *value_row;
  GtkSwitch        *saturate_switch;
  GtkLabel         *error_label;
  GtkBox           *cards_box;
  NapkinRangeChart *range_chart;
  GtkStack         *stack;
  NapkinFormatsBlocks *blocks;
  NapkinFormatsRounding *rounding;
  NapkinFormatsTable *values_table;
  NapkinFormatCard *cards[N_ROWS];
};

enum {
  PROP_0,
  PROP_VALUE_TEXT,
  PROP_SATURATE,
  PROP_SETTINGS,
  N_PROPS,
  PROP_BUSY = N_PROPS,
};

static GParamSpec *properties[N_PROPS];

/* Never busy: what it shows is kept in settings as it changes. */
G_DEFINE_FINAL_TYPE_WITH_CODE (NapkinFormatsPage, napkin_formats_page, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (NAPKIN_TYPE_PAGE, NULL))

static int
row_of_name (const char *name)
{
  NkDType dtype;

  if (!nk_dtype_from_name (name, &dtype, NULL))
    return -1;
  for (guint i = 0; i < N_ROWS; i++)
    if (row_dtypes[i] == dtype)
      return (int) i;
  return -1;
}

/* The formats the saturate switch is for: fp6 and fp4 always saturate. */
static gboolean
is_fp8 (NkDType dtype)
{
  return dtype == NK_DTYPE_E4M3 || dtype == NK_DTYPE_E5M2 ||
         dtype == NK_DTYPE_E4M3FNUZ || dtype == NK_DTYPE_E5M2FNUZ;
}

static NkOverflow
row_overflow (NapkinFormatsPage *self,
              NkDType            dtype)
{
  return self->saturate && is_fp8 (dtype) ? NK_OVERFLOW_SATURATE : NK_OVERFLOW_DEFAULT;
}

/* C's "1.001e-08" as the lecture writes it, "1.001e-8". */
static char *
tidy_exponent (const char *text)
{
  const char *e = strchr (text, 'e');
  int exponent;

  if (e == NULL)
    return g_strdup (text);
  exponent = atoi (e + 1);
  return g_strdup_printf ("%.*se%d", (int) (e - text), text, exponent);
}

static char *
format_special (double value)
{
  if (isnan (value))
    return g_strdup ("NaN");
  if (isinf (value))
    return g_strdup (value < 0 ? "−∞" : "∞");
  if (value == 0)
    return g_strdup (signbit (value) ? "−0" : "0");
  return NULL;
}

/* A value of @dtype, short: as many significant digits as the format carries
 * (its finfo's decimal digits, plus one so neighbours differ); the exact
 * decimal is shown beside it. */
static char *
format_value (NkDType dtype,
              double  value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char format[16];
  NkDTypeLimits limits;
  char *special = format_special (value);

  if (special != NULL)
    return special;

  nk_dtype_limits (dtype, &limits);
  if (value == nearbyint (value) && fabs (value) < 1e9)
    return g_strdup_printf ("%.0f", value);
  g_snprintf (format, sizeof format, "%%.%dg", MAX (4, (int) ceil (limits.decimal_digits) + 1));
  return tidy_exponent (g_ascii_formatd (buf, sizeof buf, format, value));
}

static char *
format_error (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *special = format_special (value);

  if (special != NULL)
    return special;
  return tidy_exponent (g_ascii_formatd (buf, sizeof buf, "%.3g", value));
}

/* The shortest text that reads back as exactly @value, for the value entry. */
static char *
text_for_double (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    return g_strdup (signbit (value) ? "-nan" : "nan");
  if (isinf (value))
    return g_strdup (value < 0 ? "-inf" : "inf");
  if (value == 0)
    return g_strdup (signbit (value) ? "-0" : "0");
  for (int digits = 1; digits <= 17; digits++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return tidy_exponent (buf);
}

static char *
overflow_markup (NkDType dtype,
                 guint64 default_bits,
                 guint64 saturate_bits,
                 gboolean saturating)
{
  g_autofree char *default_value = format_value (dtype, nk_dtype_to_double (dtype, default_bits));
  g_autofree char *saturate_value = format_value (dtype, nk_dtype_to_double (dtype, saturate_bits));
  g_autofree char *default_hex = nk_dtype_format_bits (dtype, default_bits);
  g_autofree char *saturate_hex = nk_dtype_format_bits (dtype, saturate_bits);

  /* Translators: the two overflow modes give different fp8 bits for this value;
   * the mode in use is in bold */
  return g_markup_printf_escaped (saturating
                                  ? _("The overflow modes differ here: default gives %s (%s); "
                                      "<b>saturating gives %s (%s)</b>.")
                                  : _("The overflow modes differ here: <b>default gives %s "
                                      "(%s)</b>; saturating gives %s (%s)."),
                                  default_value, default_hex, saturate_value, saturate_hex);
}

/* A sentence about what rounding did to the input in @dtype, from nk_dtype_round()'s
 * status; %NULL when there is nothing to say. */
static char *
row_note (NapkinFormatsPage     *self,
          NkDType                dtype,
          const NkDTypeRounding *rounding,
          NkDTypeClass           klass,
          gboolean              *out_warning)
{
  const NkDTypeInfo *info = nk_dtype_info (dtype);
  g_autofree char *input = text_for_double (self->input);
  NkDTypeLimits limits;

  *out_warning = TRUE;
  nk_dtype_limits (dtype, &limits);
  switch (rounding->status)
    {
    case NK_ROUNDING_UNDERFLOW_TO_ZERO:
      {
        g_autofree char *tiny = format_value (dtype, limits.min_subnormal);

        /* Exactly half is a tie between 0 and the smallest subnormal: even wins. */
        if (fabs (self->input) == limits.min_subnormal / 2)
          return g_strdup_printf (_("Underflow: %s is exactly half of %s’s smallest subnormal, "
                                    "%s; the tie goes to the even neighbour, zero."),
                                  input, info->cli_name, tiny);
        return g_strdup_printf (_("Underflow: %s is less than half of %s’s smallest subnormal, "
                                  "%s, so it rounds to zero."),
                                input, info->cli_name, tiny);
      }
    case NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL:
    case NK_ROUNDING_EXACT:
      {
        g_autofree char *normal = NULL;

        /* A subnormal the format holds exactly still has fewer bits to spare. */
        if (klass != NK_DTYPE_CLASS_SUBNORMAL)
          return NULL;
        normal = format_value (dtype, limits.min_normal);
        *out_warning = FALSE;
        return g_strdup_printf (_("Subnormal: %s is below %s’s smallest normal value, %s, "
                                  "so fewer significant bits are left."),
                                input, info->cli_name, normal);
      }
    case NK_ROUNDING_OVERFLOW_TO_INF:
      {
        g_autofree char *max = format_value (dtype, limits.max);

        return g_strdup_printf (_("Overflow: %s is beyond %s’s largest finite value, %s, "
                                  "so it rounds to infinity."),
                                input, info->cli_name, max);
      }
    case NK_ROUNDING_OVERFLOW_TO_NAN:
      {
        g_autofree char *max = format_value (dtype, limits.max);

        return g_strdup_printf (_("Overflow: %s is beyond %s’s largest finite value, %s, and "
                                  "the format has no infinity, so it becomes NaN."),
                                input, info->cli_name, max);
      }
    case NK_ROUNDING_SATURATED:
      {
        g_autofree char *max = format_value (dtype, limits.max);

        return g_strdup_printf (_("Saturated: %s is beyond %s’s largest finite value, so it "
                                  "is clamped to ±%s."),
                                input, info->cli_name, max);
      }
    case NK_ROUNDING_UNREPRESENTABLE:
      {
        g_autofree char *became = format_value (dtype, rounding->value);

        /* Translators: a value, a format's name and what stands in for the value
         * there (NaN in fp4 becomes 6; 0 or a negative value in e8m0 becomes NaN) */
        return g_strdup_printf (_("%s cannot be held in %s at all: it is stored as %s."),
                                input, info->cli_name, became);
      }
    case NK_ROUNDING_ROUNDED:
    default:
      return NULL;
    }
}

static void
show_row (NapkinFormatsPage *self,
          guint              row)
{
  NkDType dtype = row_dtypes[row];
  NapkinFormatCardContent content = { 0 };
  g_autofree char *hex = NULL, *value = NULL, *abs_text = NULL, *rel_text = NULL;
  g_autofree char *binary = NULL, *decimal = NULL, *formula = NULL, *exact = NULL;
  g_autofree char *note = NULL, *overflow = NULL;
  NkDTypeRounding rounding;
  NkDTypeDecoded decoded;
  guint64 bits;

  napkin_format_card_set_hex_error (self->cards[row], !self->valid && self->error_row == (int) row);
  if (!self->valid)
    {
      napkin_format_card_show (self->cards[row], &content);
      napkin_range_chart_set_result (self->range_chart, dtype, FALSE, 0);
      return;
    }

  /* The source row holds the input exactly and keeps its own bits (NaN payloads
   * too); rounding its value back without saturation, which would clamp its ±inf,
   * reports the error it shows: none. */
  if ((int) row == self->source)
    {
      nk_dtype_round (dtype, self->input, NK_OVERFLOW_DEFAULT, &rounding);
      bits = self->source_bits;
    }
  else
    {
      nk_dtype_round (dtype, self->input, row_overflow (self, dtype), &rounding);
      bits = rounding.bits;
    }
  self->bits[row] = bits;
  nk_dtype_decode (dtype, bits, &decoded);

  hex = nk_dtype_format_bits (dtype, bits);
  value = format_value (dtype, decoded.value);
  abs_text = format_error (rounding.abs_error);
  rel_text = format_error (rounding.rel_error);
  binary = nk_dtype_formula (dtype, bits, NK_FORMULA_BINARY);
  decimal = nk_dtype_formula (dtype, bits, NK_FORMULA_DECIMAL);
  formula = g_strcmp0 (binary, decimal) == 0 ? g_strdup (binary)
                                             : g_strdup_printf ("%s\n= %s", binary, decimal);
  exact = nk_dtype_exact_decimal (dtype, bits);

  if ((int) row != self->source)
    {
      note = row_note (self, dtype, &rounding, decoded.klass, &content.note_is_warning);
      if (is_fp8 (dtype))
        {
          NkDTypeRounding by_default, saturating;

          /* The modes differ exactly when saturating clamps what would overflow. */
          nk_dtype_round (dtype, self->input, NK_OVERFLOW_DEFAULT, &by_default);
          nk_dtype_round (dtype, self->input, NK_OVERFLOW_SATURATE, &saturating);
          if (saturating.status == NK_ROUNDING_SATURATED)
            overflow = overflow_markup (dtype, by_default.bits, saturating.bits, self->saturate);
        }
    }

  content.known = TRUE;
  content.bits = bits;
  content.hex = hex;
  content.value = value;
  content.klass = nk_dtype_class_display_name (decoded.klass);
  content.abs_error = abs_text;
  content.rel_error = rel_text;
  content.formula = formula;
  content.exact = exact;
  content.note = note;
  content.overflow = overflow;
  napkin_format_card_show (self->cards[row], &content);
  napkin_range_chart_set_result (self->range_chart, dtype, TRUE, decoded.value);
}

/* The row and the text inside it that takes the keys: a screen reader hears the
 * state on whichever it stands on. */
static void
set_value_invalid (NapkinFormatsPage *self,
                   gboolean           invalid)
{
  GtkAccessibleInvalidState state = invalid ? GTK_ACCESSIBLE_INVALID_TRUE
                                            : GTK_ACCESSIBLE_INVALID_FALSE;
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (self->value_row));

  if (invalid)
    gtk_widget_add_css_class (GTK_WIDGET (self->value_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->value_row), "error");
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->value_row),
                               GTK_ACCESSIBLE_STATE_INVALID, state, -1);
  if (text != NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (text), GTK_ACCESSIBLE_STATE_INVALID, state, -1);
}

static void
napkin_formats_page_refresh (NapkinFormatsPage *self)
{
  set_value_invalid (self, !self->valid && self->error_row < 0);
  gtk_label_set_label (self->error_label, self->valid ? "" : self->error_message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), !self->valid);

  for (guint i = 0; i < N_ROWS; i++)
    show_row (self, i);

  if (self->valid)
    {
      g_autofree char *magnitude = text_for_double (fabs (self->input));
      g_autofree char *label = g_strdup_printf ("|x| = %s", magnitude);

      napkin_range_chart_set_input (self->range_chart, TRUE, self->input, label);
    }
  else
    napkin_range_chart_set_input (self->range_chart, FALSE, 0, NULL);

  /* Stepping and flipping need current bits; jumping is a way out of an error. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "formats.flip-bit", self->valid);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "formats.next", self->valid);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "formats.previous", self->valid);
}

static void
set_error (NapkinFormatsPage *self,
           int                row,
           const char        *message)
{
  self->valid = FALSE;
  self->error_row = row;
  g_free (self->error_message);
  self->error_message = g_strdup (message);
}

static void
clear_error (NapkinFormatsPage *self)
{
  self->valid = TRUE;
  self->error_row = -1;
  g_clear_pointer (&self->error_message, g_free);
}

/* Reads the value entry's text as the input. */
static void
parse_value_text (NapkinFormatsPage *self)
{
  g_autoptr(GError) error = NULL;
  NkDTypeItem item;

  self->source = SOURCE_ENTRY;
  if (!nk_dtype_parse_item (NK_DTYPE_F64, self->value_text, &item, &error))
    set_error (self, -1, error->message);
  else if (item.is_bits)
    {
      g_autofree char *message =
        g_strdup_printf (_("“%s” is bits, not a value: type bits into a format’s hex field"),
                         self->value_text);

      set_error (self, -1, message);
    }
  else
    {
      clear_error (self);
      self->input = item.value;
    }
}

/* Stores @text before putting it in the entry, so the entry's "changed" finds it
 * already current and does not parse it again. */
static void
napkin_formats_page_store_value_text (NapkinFormatsPage *self,
                                      const char        *text)
{
  if (g_strcmp0 (self->value_text, text) == 0)
    return;
  g_free (self->value_text);
  self->value_text = g_strdup (text);
  /* set_text() deletes, then inserts: the empty text in between is no one's
   * input. Read as one, it made the page invalid for a moment, which disabled
   * the bits' action and took the keyboard focus off the bit just flipped. */
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->value_row)), text) != 0)
    {
      self->storing_text = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->value_row), text);
      self->storing_text = FALSE;
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALUE_TEXT]);
}

/* Makes @row's @bits the input: the row keeps them exactly, the others round
 * their value, and the value entry shows it. */
static void
take_row_bits (NapkinFormatsPage *self,
               guint              row,
               guint64            bits)
{
  g_autofree char *text = NULL;

  clear_error (self);
  self->source = (int) row;
  self->source_bits = bits;
  self->input = nk_dtype_to_double (row_dtypes[row], bits);
  self->current_row = (int) row;

  text = text_for_double (self->input);
  napkin_formats_page_store_value_text (self, text);
  napkin_formats_page_refresh (self);
}

static void
value_changed_cb (NapkinFormatsPage *self)
{
  if (self->storing_text)
    return;
  napkin_formats_page_set_value_text (self,
                                      gtk_editable_get_text (GTK_EDITABLE (self->value_row)));
}

static void
flip_bit_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);
  const char *name;
  int index, row;

  g_variant_get (parameter, "(&si)", &name, &index);
  row = row_of_name (name);
  g_return_if_fail (row >= 0);
  g_return_if_fail (index >= 0 && (guint) index < nk_dtype_info (row_dtypes[row])->bits);

  if (self->valid)
    take_row_bits (self, row, self->bits[row] ^ (G_GUINT64_CONSTANT (1) << index));
}

static void
step_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);
  int row = row_of_name (g_variant_get_string (parameter, NULL));
  NkDType dtype;

  g_return_if_fail (row >= 0);
  if (!self->valid)
    return;

  dtype = row_dtypes[row];
  if (g_str_equal (action_name, "formats.next"))
    take_row_bits (self, row, nk_dtype_next_up (dtype, self->bits[row]));
  else
    take_row_bits (self, row, nk_dtype_next_down (dtype, self->bits[row]));
}

static void
jump_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);
  const char *name, *target;
  NkDType dtype;
  guint64 bits;
  int row;

  g_variant_get (parameter, "(&s&s)", &name, &target);
  row = row_of_name (name);
  g_return_if_fail (row >= 0);

  dtype = row_dtypes[row];
  if (g_str_equal (target, "max"))
    bits = nk_dtype_max_bits (dtype);
  else if (g_str_equal (target, "min-normal"))
    bits = nk_dtype_min_normal_bits (dtype);
  else if (g_str_equal (target, "min-subnormal"))
    bits = nk_dtype_min_subnormal_bits (dtype);
  else if (g_str_equal (target, "one"))
    bits = nk_dtype_one_bits (dtype);
  else if (g_str_equal (target, "epsilon"))
    bits = nk_dtype_epsilon_bits (dtype);
  else
    g_return_if_reached ();

  take_row_bits (self, row, bits);
}

static void
set_bits_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *item_text = NULL;
  const char *name, *text;
  NkDTypeItem item;
  int row;

  g_variant_get (parameter, "(&s&s)", &name, &text);
  row = row_of_name (name);
  g_return_if_fail (row >= 0);

  /* The hex field holds bits only, so "3c00" means 0x3c00. */
  while (g_ascii_isspace (*text))
    text++;
  if (*text != '\0' && !(text[0] == '0' && (text[1] == 'x' || text[1] == 'X')))
    item_text = g_strconcat ("0x", text, NULL);
  else
    item_text = g_strdup (text);

  if (!nk_dtype_parse_item (row_dtypes[row], item_text, &item, &error))
    {
      g_autofree char *message = g_strdup_printf (_("%s: %s"), name, error->message);

      self->current_row = row;
      set_error (self, row, message);
      napkin_formats_page_refresh (self);
      return;
    }
  take_row_bits (self, row, item.bits);
}

static void
section_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);
  const char *name = g_variant_get_string (parameter, NULL);

  g_return_if_fail (gtk_stack_get_child_by_name (self->stack, name) != NULL);
  gtk_stack_set_visible_child_name (self->stack, name);
}

static gboolean
focus_value_cb (GtkWidget *widget,
                GVariant  *args,
                gpointer   user_data)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);

  /* Managed shortcuts reach hidden pages too: leave Ctrl+L to the page shown. */
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  gtk_stack_set_visible_child_name (self->stack, "elements");
  return gtk_widget_grab_focus (GTK_WIDGET (self->value_row));
}

static gboolean
step_current_cb (GtkWidget *widget,
                 GVariant  *args,
                 gpointer   user_data)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (widget);
  const char *name = nk_dtype_info (row_dtypes[self->current_row])->cli_name;

  return gtk_widget_activate_action (widget, g_variant_get_string (args, NULL), "s", name);
}

static void
card_focus_enter_cb (GtkEventControllerFocus *controller,
                     NapkinFormatsPage       *self)
{
  GtkWidget *card = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));

  for (guint i = 0; i < N_ROWS; i++)
    if (GTK_WIDGET (self->cards[i]) == card)
      self->current_row = (int) i;
}

static void
napkin_formats_page_dispose (GObject *object)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (object);
  GtkWidget *child;

  napkin_formats_page_set_settings (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NAPKIN_TYPE_FORMATS_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (napkin_formats_page_parent_class)->dispose (object);
}

static void
napkin_formats_page_finalize (GObject *object)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (object);

  g_clear_pointer (&self->value_text, g_free);
  g_clear_pointer (&self->error_message, g_free);

  G_OBJECT_CLASS (napkin_formats_page_parent_class)->finalize (object);
}

static void
napkin_formats_page_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (object);

  switch (prop_id)
    {
    case PROP_VALUE_TEXT:
      g_value_set_string (value, self->value_text);
      break;
    case PROP_SATURATE:
      g_value_set_boolean (value, self->saturate);
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
napkin_formats_page_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NapkinFormatsPage *self = NAPKIN_FORMATS_PAGE (object);

  switch (prop_id)
    {
    case PROP_VALUE_TEXT:
      napkin_formats_page_set_value_text (self, g_value_get_string (value));
      break;
    case PROP_SATURATE:
      napkin_formats_page_set_saturate (self, g_value_get_boolean (value));
      break;
    case PROP_SETTINGS:
      napkin_formats_page_set_settings (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_formats_page_class_init (NapkinFormatsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_formats_page_dispose;
  object_class->finalize = napkin_formats_page_finalize;
  object_class->get_property = napkin_formats_page_get_property;
  object_class->set_property = napkin_formats_page_set_property;

  /**
   * NapkinFormatsPage:value-text:
   *
   * The value as typed; setting it makes it the input of every row.
   */
  properties[PROP_VALUE_TEXT] =
    g_param_spec_string ("value-text", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinFormatsPage:saturate:
   *
   * Whether the fp8 rows saturate on overflow (CUDA's satfinite) rather than
   * overflow like PyTorch.
   */
  properties[PROP_SATURATE] =
    g_param_spec_boolean ("saturate", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NapkinFormatsPage:settings:
   *
   * The settings that keep the value and the saturate switch, with the
   * `formats-value` and `formats-saturate` keys.
   */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_BUSY, "busy");

  g_type_ensure (NAPKIN_TYPE_RANGE_CHART);
  g_type_ensure (NAPKIN_TYPE_FORMATS_BLOCKS);
  g_type_ensure (NAPKIN_TYPE_FORMATS_ROUNDING);
  g_type_ensure (NAPKIN_TYPE_FORMATS_TABLE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/napkinml/Napkin/ui/napkin-formats-page.ui");
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, value_row);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, saturate_switch);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, error_label);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, cards_box);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, range_chart);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, blocks);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, rounding);
  gtk_widget_class_bind_template_child (widget_class, NapkinFormatsPage, values_table);
  gtk_widget_class_bind_template_callback (widget_class, value_changed_cb);

  gtk_widget_class_install_action (widget_class, "formats.flip-bit", "(si)", flip_bit_action);
  gtk_widget_class_install_action (widget_class, "formats.next", "s", step_action);
  gtk_widget_class_install_action (widget_class, "formats.previous", "s", step_action);
  gtk_widget_class_install_action (widget_class, "formats.jump", "(ss)", jump_action);
  gtk_widget_class_install_action (widget_class, "formats.set-bits", "(ss)", set_bits_action);
  gtk_widget_class_install_action (widget_class, "formats.section", "s", section_action);

  gtk_widget_class_add_binding (widget_class, GDK_KEY_Right, GDK_ALT_MASK,
                                step_current_cb, "s", "formats.next");
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Left, GDK_ALT_MASK,
                                step_current_cb, "s", "formats.previous");

  gtk_widget_class_set_css_name (widget_class, "formatspage");
}

static void
napkin_formats_page_init (NapkinFormatsPage *self)
{
  GtkEventController *shortcuts;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* Ctrl+L works from anywhere in the window while the page is shown, not only
   * when the focus is already inside it. */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                     GTK_SHORTCUT_SCOPE_MANAGED);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_l,
                                                                                  GDK_CONTROL_MASK),
                                                          gtk_callback_action_new (focus_value_cb,
                                                                                   NULL, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);
  if (gtk_editable_get_delegate (GTK_EDITABLE (self->value_row)) != NULL)
    gtk_accessible_update_relation (GTK_ACCESSIBLE (gtk_editable_get_delegate (GTK_EDITABLE (self->value_row))),
                                    GTK_ACCESSIBLE_RELATION_ERROR_MESSAGE, self->error_label,
                                    -1);
  self->error_row = -1;
  for (guint i = 0, group = 0; i < N_ROWS; i++)
    {
      GtkEventController *focus = gtk_event_controller_focus_new ();

      if (group < G_N_ELEMENTS (row_groups) && row_groups[group].first_row == i)
        {
          GtkWidget *heading = gtk_label_new (_(row_groups[group].title));

          gtk_label_set_xalign (GTK_LABEL (heading), 0);
          gtk_label_set_wrap (GTK_LABEL (heading), TRUE);
          gtk_widget_add_css_class (heading, "heading");
          gtk_widget_add_css_class (heading, "formats-group-heading");
          gtk_box_append (self->cards_box, heading);
          group++;
        }
      self->cards[i] = NAPKIN_FORMAT_CARD (napkin_format_card_new (row_dtypes[i]));
      g_signal_connect (focus, "enter", G_CALLBACK (card_focus_enter_cb), self);
      gtk_widget_add_controller (GTK_WIDGET (self->cards[i]), focus);
      gtk_box_append (self->cards_box, GTK_WIDGET (self->cards[i]));
      napkin_range_chart_add_format (self->range_chart, row_dtypes[i]);
    }

  g_object_bind_property (self, "saturate", self->saturate_switch, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

  napkin_formats_page_set_value_text (self, "1e-8");
}

/**
 * napkin_formats_page_set_settings:
 * @self: a formats page
 * @settings: (nullable): settings with the `formats-value` and `formats-saturate`
 *   keys, or %NULL to keep nothing
 *
 * Restores the value and the saturate switch from @settings and keeps them there
 * as they change. The window hands the application's settings to its pages
 * through the #NapkinFormatsPage:settings property.
 */
void
napkin_formats_page_set_settings (NapkinFormatsPage *self,
                                  GSettings         *settings)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_PAGE (self));
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  if (self->settings == settings)
    return;
  if (self->settings != NULL)
    {
      g_settings_unbind (self, "value-text");
      g_settings_unbind (self, "saturate");
    }
  g_set_object (&self->settings, settings);
  if (self->settings != NULL)
    {
      g_settings_bind (self->settings, "formats-value", self, "value-text",
                       G_SETTINGS_BIND_DEFAULT);
      g_settings_bind (self->settings, "formats-saturate", self, "saturate",
                       G_SETTINGS_BIND_DEFAULT);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SETTINGS]);
}

/**
 * napkin_formats_page_new:
 *
 * Returns: (transfer full): a new Number formats page
 */
GtkWidget *
napkin_formats_page_new (void)
{
  return g_object_new (NAPKIN_TYPE_FORMATS_PAGE, NULL);
}

/**
 * napkin_formats_page_get_value_text:
 * @self: the page
 *
 * Returns: the value as typed, or as the last changed format's bits read back
 */
const char *
napkin_formats_page_get_value_text (NapkinFormatsPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_PAGE (self), NULL);

  return self->value_text;
}

/**
 * napkin_formats_page_set_value_text:
 * @self: the page
 * @text: a value such as "1e-8", "pi", "-0", "inf"
 *
 * Makes @text the input of every row; text that is not a value puts the page in
 * its error state.
 */
void
napkin_formats_page_set_value_text (NapkinFormatsPage *self,
                                    const char        *text)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_PAGE (self));

  if (text == NULL)
    text = "";
  if (g_strcmp0 (self->value_text, text) == 0)
    return;

  napkin_formats_page_store_value_text (self, text);
  parse_value_text (self);
  napkin_formats_page_refresh (self);
}

/**
 * napkin_formats_page_get_saturate:
 * @self: the page
 *
 * Returns: whether the fp8 rows saturate on overflow
 */
gboolean
napkin_formats_page_get_saturate (NapkinFormatsPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_PAGE (self), FALSE);

  return self->saturate;
}

/**
 * napkin_formats_page_set_saturate:
 * @self: the page
 * @saturate: %TRUE for CUDA's satfinite, %FALSE for PyTorch's overflow
 *
 * Sets how the fp8 rows overflow.
 */
void
napkin_formats_page_set_saturate (NapkinFormatsPage *self,
                                  gboolean           saturate)
{
  g_return_if_fail (NAPKIN_IS_FORMATS_PAGE (self));

  saturate = !!saturate;
  if (self->saturate == saturate)
    return;
  self->saturate = saturate;
  napkin_formats_page_refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SATURATE]);
}

/**
 * _napkin_formats_page_get_error:
 * @self: the page
 *
 * Returns: (nullable): the sentence shown for bad input, %NULL when the input is good
 */
const char *
_napkin_formats_page_get_error (NapkinFormatsPage *self)
{
  g_return_val_if_fail (NAPKIN_IS_FORMATS_PAGE (self), NULL);

  return self->valid ? NULL : gtk_label_get_text (self->error_label);
}

/**
 * _napkin_formats_page_dup_row_field:
 * @self: the page
 * @dtype_name: a format name, e.g. "bf16"
 * @field: see napkin_format_card_dup_field()
 *
 * Returns: (transfer full): what the row of @dtype_name shows in @field
 */
char *
_napkin_formats_page_dup_row_field (NapkinFormatsPage *self,
                                    const char        *dtype_name,
                                    const char        *field)
{
  int row;

  g_return_val_if_fail (NAPKIN_IS_FORMATS_PAGE (self), NULL);

  row = row_of_name (dtype_name);
  g_return_val_if_fail (row >= 0, NULL);

  return napkin_format_card_dup_field (self->cards[row], field);
}
