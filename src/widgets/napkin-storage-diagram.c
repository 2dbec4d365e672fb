/* napkin-storage-diagram.c: storage strips and logical grids, drawn with Cairo
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On top, every storage as a strip of numbered cells (its index above, its value
 * inside); below, every tensor as a logical grid (3-D and 4-D as a row of 2-D
 * slices) with its shape, strides, offset and bytes beside it. The cells the
 * selected tensor reads are tinted in its storage; the element under the pointer
 * (or the one a step-through stands on) and its storage cell are filled, and a
 * step shows the jump between consecutive storage cells as an arc.
 *
 * The widget draws NapkinStorageDiagramModel and only tells it where the pointer
 * is and what was clicked.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <glib/gi18n.h>
#include <adwaita.h>

#include "napkin-storage-diagram.h"

#define MARGIN        24.0
#define GAP           3.0     /* between cells */
#define STORAGE_CELL  48.0    /* largest storage cell */
#define MIN_CELL      32.0    /* smallest cell that still holds "100" */
#define TENSOR_CELL   42.0
#define TITLE_H       30.0
#define HEADER_H      26.0
#define INDEX_H       16.0
#define ARC_H         28.0    /* room under a row of cells for the jump arcs */
#define STRIP_GAP     10.0
#define SECTION_GAP   14.0
#define CARD_PAD      16.0
#define CARD_GAP      14.0
#define TEXT_W        220.0
#define SLICE_GAP     18.0
#define SLICE_LABEL_H 20.0
#define N_HUES        4

typedef struct {
  double y_header;
  double y_rows;       /* top of the first row (its index labels) */
  int    per_row;
  int    n_rows;
  double cw;
  double y_note;       /* "showing 512 of N" under a storage drawn in part, or 0 */
} StripLayout;

typedef struct {
  double   x, y, w, h;  /* the card */
  double   text_x, text_y;
  double   grid_x, grid_y;
  double   cw;
  int      rows, cols;  /* of one slice, as drawn */
  int      n_slices, slices_per_row;
  gboolean slice_labels;
  gboolean drawn;
  double   note_y;     /* "showing 512 of N" under a tensor drawn in part, or 0 */
} TensorLayout;

struct _NapkinStorageDiagram
{
  GtkWidget                  parent_instance;

  NapkinStorageDiagramModel *model;

  /* the layout for layout_width, rebuilt when the width or the model changes */
  int                        layout_width;
  double                     layout_height;
  double                     y_tensor_title;
  GArray                    *strips;    /* StripLayout */
  GArray                    *tensors;   /* TensorLayout */
  double                     text_line_h;
  double                     small_line_h;
};

G_DEFINE_FINAL_TYPE (NapkinStorageDiagram, napkin_storage_diagram, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Adwaita palette names: one hue per storage, a darker tone on light backgrounds
 * and a lighter one on dark ones. */
static const struct {
  const char *light;
  const char *dark;
  const char *fallback_light;
  const char *fallback_dark;
} hues[N_HUES] = {
  { "blue_3",   "blue_2",   "#3584e4", "#62a0ea" },
  { "green_5",  "green_3",  "#26a269", "#57e389" },
  { "purple_3", "purple_2", "#9141ac", "#c061cb" },
  { "orange_4", "orange_2", "#e66100", "#ffa348" },
};

/* ------------------------------------------------------------ text */

static PangoLayout *
make_layout (GtkWidget  *widget,
             const char *markup,
             double      scale,
             gboolean    bold,
             gboolean    monospace)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_layout_set_markup (layout, markup, -1);
  /* Numbers line up when digits have one width. */
  pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum=1"));
  if (scale != 1.0)
    pango_attr_list_insert (attrs, pango_attr_scale_new (scale));
  if (bold)
    pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  if (monospace)
    pango_attr_list_insert (attrs, pango_attr_family_new ("monospace"));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  return layout;
}

static void
show_centered (cairo_t     *cr,
               PangoLayout *layout,
               double       cx,
               double       cy)
{
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, cx - w / 2.0, cy - h / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static char *
format_value (double value)
{
  if (isnan (value))
    return g_strdup ("nan");
  if (isinf (value))
    return g_strdup (value > 0 ? "inf" : "−inf");
  if (value == floor (value) && fabs (value) < 1e5)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.3g", value);
}

/* ------------------------------------------------------------ colours */

typedef struct {
  GdkRGBA fg;
  GdkRGBA hue[N_HUES];
  GdkRGBA on_hue;
  gboolean dark;
} Palette;

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              const char *fallback,
              GdkRGBA    *out)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);

  if (!gtk_style_context_lookup_color (context, name, out))
    gdk_rgba_parse (out, fallback);
}

static void
get_palette (GtkWidget *widget,
             Palette   *palette)
{
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &palette->fg);
  palette->dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  for (guint i = 0; i < N_HUES; i++)
    lookup_color (widget,
                  palette->dark ? hues[i].dark : hues[i].light,
                  palette->dark ? hues[i].fallback_dark : hues[i].fallback_light,
                  &palette->hue[i]);
  /* Text on a filled cell: white reads on the light-theme tones, near-black on the
   * dark-theme ones. */
  if (palette->dark)
    gdk_rgba_parse (&palette->on_hue, "rgba(0, 0, 0, 0.87)");
  else
    gdk_rgba_parse (&palette->on_hue, "#ffffff");
}

static void
set_source (cairo_t       *cr,
            const GdkRGBA *color,
            double         alpha)
{
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha * alpha);
}

static void
rounded_rect (cairo_t *cr,
              double   x,
              double   y,
              double   w,
              double   h,
              double   r)
{
  r = MIN (r, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 1.5 * G_PI);
  cairo_close_path (cr);
}

/* ------------------------------------------------------------ layout */

/* The caption above storage @s: "Storage of x   16 × f32 (4 bytes each) = 64 bytes",
 * wrapped to @width so that a phone-width window shows all of it. */
static PangoLayout *
make_storage_header (NapkinStorageDiagram *self,
                     guint                 s,
                     double                width)
{
  NkDType dtype = napkin_storage_diagram_model_get_dtype (self->model);
  g_autofree char *bytes = napkin_storage_diagram_model_format_bytes (
    napkin_storage_diagram_model_get_storage_nbytes (self->model, s));
  g_autofree char *markup = NULL;
  PangoLayout *layout;

  /* Translators: "Storage of x · 16 × f32 (4 bytes each) = 64 bytes" */
  markup = g_markup_printf_escaped (s == 0 ? _("<b>Storage of %s</b>   %" PRId64 " × %s (%zu bytes each) = <b>%s</b>")
                                           : _("<b>New storage of %s</b>   %" PRId64 " × %s (%zu bytes each) = <b>%s</b>"),
                                    napkin_storage_diagram_model_get_storage_owner (self->model, s),
                                    napkin_storage_diagram_model_get_storage_numel (self->model, s),
                                    nk_dtype_info (dtype)->cli_name, nk_dtype_element_size (dtype),
                                    bytes);
  layout = make_layout (GTK_WIDGET (self), markup, 1.0, FALSE, FALSE);
  pango_layout_set_width (layout, (int) (MAX (width, 1) * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  return layout;
}

/* The width the strips and cards are laid out in. */
static double
content_width (int width)
{
  return MAX (width - 2 * MARGIN, 120);
}

static int
floor_pow2 (int n)
{
  int p = 1;

  while (p * 2 <= n)
    p *= 2;
  return p;
}

static int
n_text_lines (void)
{
  /* shape, stride, offset, elements/contiguity, bytes (the name is bigger) */
  return 5;
}

static void
layout_tensor (NapkinStorageDiagram *self,
               guint                 t,
               double                y,
               double                avail,
               TensorLayout         *tl)
{
  NkTensor *tensor = napkin_storage_diagram_model_get_tensor (self->model, t);
  gint64 numel = 0;   /* the drawn elements: all, or the first whole rows */
  const gint64 *addresses = napkin_storage_diagram_model_get_tensor_addresses (self->model, t, &numel);
  gboolean partial = numel < nk_tensor_numel (tensor);
  double inner = avail - 2 * CARD_PAD;
  double text_h = self->text_line_h * 1.4 + n_text_lines () * self->small_line_h + 4;
  double grid_avail, grid_w = 0, grid_h = 0;
  gboolean side = TRUE;

  memset (tl, 0, sizeof *tl);
  tl->x = MARGIN;
  tl->y = y;
  tl->w = avail;
  tl->drawn = addresses != NULL;
  tl->n_slices = 1;

  if (tl->drawn)
    {
      if (tensor->ndim == 0)
        tl->rows = tl->cols = 1;
      else if (tensor->ndim == 1)
        tl->rows = 1, tl->cols = (int) tensor->shape[0];
      else
        {
          tl->rows = (int) tensor->shape[tensor->ndim - 2];
          tl->cols = (int) tensor->shape[tensor->ndim - 1];
          if (numel < (gint64) tl->rows * tl->cols)
            tl->rows = (int) ((numel + tl->cols - 1) / tl->cols);
          tl->n_slices = (int) ((numel + (gint64) tl->rows * tl->cols - 1) / ((gint64) tl->rows * tl->cols));
          tl->slice_labels = tensor->ndim > 2;
        }

      for (int attempt = 0; attempt < 2; attempt++)
        {
          side = attempt == 0;
          grid_avail = side ? inner - TEXT_W - 16 : inner;
          tl->cw = floor ((grid_avail + GAP) / tl->cols - GAP);
          tl->cw = MIN (tl->cw, TENSOR_CELL);
          if (tl->cw >= MIN_CELL - 6)
            break;
        }

      if (tl->cw < MIN_CELL - 6)
        {
          /* Rows too long to fit: the elements wrap in logical order, like a
           * storage strip. */
          int fit = (int) floor ((grid_avail + GAP) / (MIN_CELL + GAP));

          tl->cols = MAX (1, floor_pow2 (MAX (fit, 1)));
          tl->rows = (int) ((numel + tl->cols - 1) / tl->cols);
          tl->cw = MIN (TENSOR_CELL, floor ((grid_avail + GAP) / tl->cols - GAP));
          tl->n_slices = 1;
          tl->slice_labels = FALSE;
        }
    }

  if (tl->drawn)
    {
      double slice_w = tl->cols * (tl->cw + GAP) - GAP;
      double slice_h = tl->rows * (tl->cw + GAP) - GAP + (tl->slice_labels ? SLICE_LABEL_H : 0);
      int slice_rows;

      tl->slices_per_row = MAX (1, (int) floor ((grid_avail + SLICE_GAP) / (slice_w + SLICE_GAP)));
      tl->slices_per_row = MIN (tl->slices_per_row, tl->n_slices);
      slice_rows = (tl->n_slices + tl->slices_per_row - 1) / tl->slices_per_row;
      grid_w = tl->slices_per_row * (slice_w + SLICE_GAP) - SLICE_GAP;
      grid_h = slice_rows * (slice_h + SLICE_GAP) - SLICE_GAP;
    }
  else
    side = FALSE;

  if (tl->drawn && partial)
    grid_h += 8 + self->small_line_h;

  tl->text_x = tl->x + CARD_PAD;
  tl->text_y = tl->y + CARD_PAD;
  if (side)
    {
      tl->grid_x = tl->x + CARD_PAD + TEXT_W + 16;
      tl->grid_y = tl->y + CARD_PAD;
      tl->h = MAX (text_h, grid_h) + 2 * CARD_PAD;
    }
  else
    {
      tl->grid_x = tl->x + CARD_PAD;
      tl->grid_y = tl->y + CARD_PAD + text_h + 10;
      tl->h = text_h + (tl->drawn ? 10 + grid_h : 0) + 2 * CARD_PAD;
    }
  if (tl->drawn && partial)
    tl->note_y = tl->grid_y + grid_h - self->small_line_h;
  (void) grid_w;
}

static void
ensure_layout (NapkinStorageDiagram *self,
               int                   width)
{
  double avail = content_width (width);
  double y = MARGIN;
  guint n_storages, n_tensors;

  if (self->layout_width == width)
    return;
  self->layout_width = width;
  g_array_set_size (self->strips, 0);
  g_array_set_size (self->tensors, 0);

  {
    g_autoptr(PangoLayout) probe = make_layout (GTK_WIDGET (self), "Hg", 1.0, FALSE, FALSE);
    g_autoptr(PangoLayout) small = make_layout (GTK_WIDGET (self), "Hg", 0.9, FALSE, FALSE);
    int h;

    pango_layout_get_pixel_size (probe, NULL, &h);
    self->text_line_h = h;
    pango_layout_get_pixel_size (small, NULL, &h);
    self->small_line_h = h + 3;
  }

  if (self->model == NULL)
    {
      self->layout_height = 2 * MARGIN;
      return;
    }

  n_storages = napkin_storage_diagram_model_get_n_storages (self->model);
  n_tensors = napkin_storage_diagram_model_get_n_tensors (self->model);

  y += TITLE_H;
  for (guint s = 0; s < n_storages; s++)
    {
      StripLayout sl = { 0 };
      gint64 numel = napkin_storage_diagram_model_get_storage_n_drawn (self->model, s);
      double value;
      int fit = (int) floor ((avail + GAP) / (MIN_CELL + GAP));

      sl.y_header = y;
      {
        g_autoptr(PangoLayout) header = make_storage_header (self, s, avail - 16);
        int h;

        /* One line takes HEADER_H; each wrapped line adds its height. */
        pango_layout_get_pixel_size (header, NULL, &h);
        y += MAX (HEADER_H, HEADER_H - self->text_line_h + h);
      }
      sl.y_rows = y;
      if (numel > 0 && napkin_storage_diagram_model_get_storage_value (self->model, s, 0, &value))
        {
          /* Rows of a power of two, so rows of a 4×4 or 2×8 line up in storage too. */
          sl.per_row = numel <= fit ? (int) numel : floor_pow2 (MAX (fit, 1));
          sl.cw = MIN (STORAGE_CELL, floor ((avail + GAP) / sl.per_row - GAP));
          sl.n_rows = (int) ((numel + sl.per_row - 1) / sl.per_row);
          y += sl.n_rows * (INDEX_H + sl.cw + ARC_H);
          if (numel < napkin_storage_diagram_model_get_storage_numel (self->model, s))
            {
              sl.y_note = y - ARC_H + 6;
              y += self->small_line_h;
            }
        }
      else
        y += self->small_line_h;
      y += STRIP_GAP;
      g_array_append_val (self->strips, sl);
    }

  y += SECTION_GAP;
  self->y_tensor_title = y;
  y += TITLE_H;
  for (guint t = 0; t < n_tensors; t++)
    {
      TensorLayout tl;

      layout_tensor (self, t, y, avail, &tl);
      g_array_append_val (self->tensors, tl);
      y += tl.h + CARD_GAP;
    }
  self->layout_height = y - CARD_GAP + MARGIN;
}

static void
strip_cell_rect (const StripLayout *sl,
                 gint64             cell,
                 graphene_rect_t   *rect)
{
  int row = (int) (cell / sl->per_row), col = (int) (cell % sl->per_row);

  graphene_rect_init (rect,
                      MARGIN + col * (sl->cw + GAP),
                      sl->y_rows + row * (INDEX_H + sl->cw + ARC_H) + INDEX_H,
                      sl->cw, sl->cw);
}

static void
tensor_cell_rect (const TensorLayout *tl,
                  gint64              element,
                  graphene_rect_t    *rect)
{
  gint64 per_slice = (gint64) tl->rows * tl->cols;
  int slice = (int) (element / per_slice);
  gint64 in_slice = element % per_slice;
  int row = (int) (in_slice / tl->cols), col = (int) (in_slice % tl->cols);
  double slice_w = tl->cols * (tl->cw + GAP) - GAP;
  double slice_h = tl->rows * (tl->cw + GAP) - GAP + (tl->slice_labels ? SLICE_LABEL_H : 0);
  double sx = tl->grid_x + (slice % tl->slices_per_row) * (slice_w + SLICE_GAP);
  double sy = tl->grid_y + (slice / tl->slices_per_row) * (slice_h + SLICE_GAP)
              + (tl->slice_labels ? SLICE_LABEL_H : 0);

  graphene_rect_init (rect, sx + col * (tl->cw + GAP), sy + row * (tl->cw + GAP), tl->cw, tl->cw);
}

/* ------------------------------------------------------------ drawing */

static void
draw_cell (cairo_t               *cr,
           GtkWidget             *widget,
           const graphene_rect_t *r,
           const char            *text,
           const GdkRGBA         *fg,
           const GdkRGBA         *hue,
           const GdkRGBA         *on_hue,
           int                    level)   /* 0 plain, 1 tinted, 2 filled */
{
  g_autoptr(PangoLayout) layout = NULL;
  int w;

  rounded_rect (cr, r->origin.x, r->origin.y, r->size.width, r->size.height, 6);
  if (level == 2)
    set_source (cr, hue, 1.0);
  else if (level == 1)
    set_source (cr, hue, 0.22);
  else
    set_source (cr, fg, 0.05);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, level ? 1.5 : 1.0);
  if (level)
    set_source (cr, hue, 0.9);
  else
    set_source (cr, fg, 0.14);
  cairo_stroke (cr);

  layout = make_layout (widget, text, r->size.width >= 40 ? 1.0 : 0.85, level == 2, FALSE);
  pango_layout_get_pixel_size (layout, &w, NULL);
  if (w > r->size.width - 4)
    {
      g_clear_object (&layout);
      layout = make_layout (widget, text, 0.7, level == 2, FALSE);
    }
  if (level == 2)
    set_source (cr, on_hue, 1.0);
  else
    set_source (cr, fg, level ? 1.0 : 0.75);
  show_centered (cr, layout, r->origin.x + r->size.width / 2, r->origin.y + r->size.height / 2);
}

static void
draw_strips (NapkinStorageDiagram *self,
             cairo_t              *cr,
             const Palette        *pal,
             int                   focus_tensor,
             gint64                focus_cell)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int selected = napkin_storage_diagram_model_get_selected (self->model);
  int selected_storage = selected >= 0 ? (int) napkin_storage_diagram_model_get_tensor_storage (self->model, selected) : -1;
  int focus_storage = focus_tensor >= 0 ? (int) napkin_storage_diagram_model_get_tensor_storage (self->model, focus_tensor) : -1;
  gint64 jump_from, jump_to;
  gboolean jump = napkin_storage_diagram_model_get_jump (self->model, &jump_from, &jump_to);
  int hover_storage = napkin_storage_diagram_model_get_hover_storage (self->model);
  gint64 hover_cell = napkin_storage_diagram_model_get_hover_cell (self->model);

  /* The section title, with what all the storages cost together. */
  {
    g_autofree char *total = napkin_storage_diagram_model_format_bytes (
      napkin_storage_diagram_model_get_total_nbytes (self->model));
    g_autofree char *markup = g_markup_printf_escaped (_("Storage <span weight='normal' alpha='70%%'>· %s in all</span>"), total);
    g_autoptr(PangoLayout) title = make_layout (widget, markup, 1.15, TRUE, FALSE);

    set_source (cr, &pal->fg, 1.0);
    cairo_move_to (cr, MARGIN, MARGIN);
    pango_cairo_show_layout (cr, title);
  }

  for (guint s = 0; s < self->strips->len; s++)
    {
      const StripLayout *sl = &g_array_index (self->strips, StripLayout, s);
      const GdkRGBA *hue = &pal->hue[s % N_HUES];
      gint64 numel = napkin_storage_diagram_model_get_storage_numel (self->model, s);
      g_autoptr(PangoLayout) header = make_storage_header (self, s,
                                                           content_width (self->layout_width) - 16);
      set_source (cr, hue, 1.0);
      cairo_arc (cr, MARGIN + 5, sl->y_header + self->text_line_h / 2, 5, 0, 2 * G_PI);
      cairo_fill (cr);
      set_source (cr, &pal->fg, 1.0);
      cairo_move_to (cr, MARGIN + 16, sl->y_header);
      pango_cairo_show_layout (cr, header);

      if (sl->per_row == 0)
        {
          g_autofree char *note = g_strdup_printf (_("No cells to draw (%" PRId64 " elements)"), numel);
          g_autoptr(PangoLayout) layout = make_layout (widget, note, 0.9, FALSE, FALSE);

          set_source (cr, &pal->fg, 0.6);
          cairo_move_to (cr, MARGIN, sl->y_rows);
          pango_cairo_show_layout (cr, layout);
          continue;
        }

      if (sl->y_note > 0)
        {
          gint64 n_drawn = napkin_storage_diagram_model_get_storage_n_drawn (self->model, s);
          /* Translators: under a storage strip drawn in part: "⋯ showing 512 of 4096 cells" */
          g_autofree char *note = g_strdup_printf (_("⋯ showing %" PRId64 " of %" PRId64 " cells"),
                                                   n_drawn, numel);
          g_autoptr(PangoLayout) layout = make_layout (widget, note, 0.9, FALSE, FALSE);

          set_source (cr, &pal->fg, 0.6);
          cairo_move_to (cr, MARGIN, sl->y_note);
          pango_cairo_show_layout (cr, layout);
        }

      for (gint64 c = 0; c < MIN (numel, napkin_storage_diagram_model_get_storage_n_drawn (self->model, s)); c++)
        {
          graphene_rect_t r;
          double value = 0;
          g_autofree char *text = NULL;
          g_autofree char *index = g_strdup_printf ("%" PRId64, c);
          g_autoptr(PangoLayout) index_layout = make_layout (widget, index, 0.75, FALSE, FALSE);
          guint hits = (int) s == selected_storage ? napkin_storage_diagram_model_get_cell_hits (self->model, s, c) : 0;
          gboolean focused = ((int) s == focus_storage && c == focus_cell) ||
                             ((int) s == hover_storage && c == hover_cell);

          strip_cell_rect (sl, c, &r);
          napkin_storage_diagram_model_get_storage_value (self->model, s, c, &value);
          text = format_value (value);

          set_source (cr, focused || hits ? hue : &pal->fg, focused || hits ? 1.0 : 0.5);
          show_centered (cr, index_layout, r.origin.x + r.size.width / 2, r.origin.y - INDEX_H / 2);
          draw_cell (cr, widget, &r, text, &pal->fg, hue, &pal->on_hue, focused ? 2 : hits ? 1 : 0);

          /* A stride of 0 reads one cell several times: say how many. */
          if (hits > 1)
            {
              g_autofree char *times = g_strdup_printf ("×%u", hits);
              g_autoptr(PangoLayout) badge = make_layout (widget, times, 0.65, TRUE, FALSE);
              int bw, bh;

              pango_layout_get_pixel_size (badge, &bw, &bh);
              set_source (cr, focused ? &pal->on_hue : hue, 1.0);
              cairo_move_to (cr, r.origin.x + r.size.width - bw - 3, r.origin.y + 1);
              pango_cairo_show_layout (cr, badge);
            }
        }

      /* The jump a step makes in storage, as an arc under the cells. */
      if (jump && (int) s == selected_storage)
        {
          graphene_rect_t a, b;
          double ax, bx, ay, by, depth, mid_x;
          gint64 delta = jump_to - jump_from;
          g_autofree char *label = g_strdup_printf ("%s%" PRId64, delta >= 0 ? "+" : "−",
                                                    delta >= 0 ? delta : -delta);
          g_autoptr(PangoLayout) layout = make_layout (widget, label, 0.85, TRUE, FALSE);
          int lw, lh;

          strip_cell_rect (sl, jump_from, &a);
          strip_cell_rect (sl, jump_to, &b);
          ax = a.origin.x + a.size.width / 2;
          bx = b.origin.x + b.size.width / 2;
          ay = a.origin.y + a.size.height + 2;
          by = b.origin.y + b.size.height + 2;
          depth = ARC_H - 6;
          mid_x = (ax + bx) / 2;

          set_source (cr, hue, 1.0);
          cairo_set_line_width (cr, 2);
          cairo_move_to (cr, ax, ay);
          cairo_curve_to (cr, ax, MAX (ay, by) + depth, bx, MAX (ay, by) + depth, bx, by + 4);
          cairo_stroke (cr);
          /* arrow head pointing up into the new cell */
          cairo_move_to (cr, bx, by);
          cairo_line_to (cr, bx - 4, by + 7);
          cairo_line_to (cr, bx + 4, by + 7);
          cairo_close_path (cr);
          cairo_fill (cr);

          pango_layout_get_pixel_size (layout, &lw, &lh);
          rounded_rect (cr, mid_x - lw / 2.0 - 5, MAX (ay, by) + depth * 0.75 - lh / 2.0 - 1,
                        lw + 10, lh + 2, (lh + 2) / 2.0);
          set_source (cr, hue, 1.0);
          cairo_fill (cr);
          set_source (cr, &pal->on_hue, 1.0);
          show_centered (cr, layout, mid_x, MAX (ay, by) + depth * 0.75);
        }
    }
}

/* "Tensors" and its hint, above the cards. */
static void
draw_tensors_title (NapkinStorageDiagram *self,
                    cairo_t              *cr,
                    const Palette        *pal)
{
  GtkWidget *widget = GTK_WIDGET (self);
  g_autoptr(PangoLayout) title = make_layout (widget, _("Tensors"), 1.15, TRUE, FALSE);
  g_autoptr(PangoLayout) hint = make_layout (widget, _("click one to highlight what it reads"), 0.9, FALSE, FALSE);
  int tw, th, hh;

  pango_layout_get_pixel_size (title, &tw, &th);
  /* The hint gives way on a narrow window: the title stays whole. */
  pango_layout_set_width (hint, (int) (MAX (content_width (self->layout_width) - tw - 10, 1) * PANGO_SCALE));
  pango_layout_set_ellipsize (hint, PANGO_ELLIPSIZE_END);
  pango_layout_get_pixel_size (hint, NULL, &hh);
  set_source (cr, &pal->fg, 1.0);
  cairo_move_to (cr, MARGIN, self->y_tensor_title);
  pango_cairo_show_layout (cr, title);
  set_source (cr, &pal->fg, 0.55);
  cairo_move_to (cr, MARGIN + tw + 10, self->y_tensor_title + th - hh - 1);
  pango_cairo_show_layout (cr, hint);
}

/* What the statement that made tensor @t did, in the engine's words. */
static char *
tensor_origin_markup (NapkinStorageDiagram *self,
                      guint                 t,
                      guint                 storage)
{
  const char *shares = napkin_storage_diagram_model_get_tensor_shares_with (self->model, t);
  const char *op = napkin_storage_diagram_model_get_tensor_op (self->model, t);
  g_autofree char *bytes = napkin_storage_diagram_model_format_bytes (
    napkin_storage_diagram_model_get_storage_nbytes (self->model, storage));

  if (shares != NULL && op != NULL)
    /* Translators: "t: a view of x, 0 bytes" */
    return g_markup_printf_escaped (_("<tt>%s</tt>: a view of <b>%s</b>, <b>0 bytes</b>"), op, shares);
  if (shares != NULL)
    return g_markup_printf_escaped (_("shares storage with <b>%s</b>, <b>0 bytes</b>"), shares);
  if (napkin_storage_diagram_model_get_tensor_copied (self->model, t))
    /* Translators: "reshape copied: new storage, 64 bytes" */
    return g_markup_printf_escaped (_("<tt>%s</tt> copied: new storage, <b>%s</b>"), op, bytes);
  if (op != NULL)
    return g_markup_printf_escaped (_("<tt>%s</tt>: new storage, <b>%s</b>"), op, bytes);
  return g_markup_printf_escaped (_("new storage, <b>%s</b>"), bytes);
}

/* A card's name, then shape, stride, offset, contiguity and origin. */
static void
draw_tensor_text (NapkinStorageDiagram *self,
                  cairo_t              *cr,
                  const Palette        *pal,
                  guint                 t,
                  const TensorLayout   *tl,
                  const GdkRGBA        *hue)
{
  GtkWidget *widget = GTK_WIDGET (self);
  NkTensor *tensor = napkin_storage_diagram_model_get_tensor (self->model, t);
  guint storage = napkin_storage_diagram_model_get_tensor_storage (self->model, t);
  gboolean shares = napkin_storage_diagram_model_get_tensor_shares_with (self->model, t) != NULL;
  const char *name = napkin_storage_diagram_model_get_tensor_name (self->model, t);
  g_autoptr(PangoLayout) name_layout = make_layout (widget, name, 1.4, TRUE, TRUE);
  g_autofree char *shape = nk_format_shape (tensor->ndim, tensor->shape);
  g_autofree char *stride = nk_format_shape (tensor->ndim, tensor->stride);
  g_autofree char *lines[5] = { NULL };
  double y;

  set_source (cr, hue, 1.0);
  cairo_arc (cr, tl->text_x + 5, tl->text_y + self->text_line_h * 0.7, 5, 0, 2 * G_PI);
  cairo_fill (cr);
  set_source (cr, &pal->fg, 1.0);
  cairo_move_to (cr, tl->text_x + 16, tl->text_y);
  pango_cairo_show_layout (cr, name_layout);

  lines[0] = g_markup_printf_escaped (_("shape  <b>%s</b>"), shape);
  lines[1] = g_markup_printf_escaped (_("stride <b>%s</b>"), stride);
  lines[2] = g_markup_printf_escaped (_("offset <b>%" PRId64 "</b>"), tensor->offset);
  lines[3] = g_markup_printf_escaped (nk_tensor_is_contiguous (tensor)
                                      ? _("%" PRId64 " elements, contiguous")
                                      : _("%" PRId64 " elements, not contiguous"),
                                      nk_tensor_numel (tensor));
  lines[4] = tensor_origin_markup (self, t, storage);
  y = tl->text_y + self->text_line_h * 1.4 + 4;
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(PangoLayout) layout = make_layout (widget, lines[i], 0.9, FALSE, i < 3);

      pango_layout_set_width (layout, (int) ((tl->grid_x > tl->text_x + 1 ? TEXT_W : tl->w - 2 * CARD_PAD) * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
      if (i == 4)
        set_source (cr, shares ? &pal->fg : hue, shares ? 0.8 : 1.0);
      else
        set_source (cr, &pal->fg, 0.8);
      cairo_move_to (cr, tl->text_x, y);
      pango_cairo_show_layout (cr, layout);
      y += self->small_line_h;
    }
}

/* Above each 2-D slice of a tensor of 3 or more dims: its leading indices. */
static void
draw_slice_labels (GtkWidget          *widget,
                   cairo_t            *cr,
                   const Palette      *pal,
                   const TensorLayout *tl,
                   NkTensor           *tensor)
{
  for (int slice = 0; slice < tl->n_slices; slice++)
    {
      gint64 lead[NK_MAX_DIMS] = { 0 };
      gint64 rest = slice;
      g_autofree char *label = NULL;
      GString *s = g_string_new (NULL);
      g_autoptr(PangoLayout) layout = NULL;
      graphene_rect_t r;

      for (int d = tensor->ndim - 3; d >= 0; d--)
        {
          lead[d] = rest % tensor->shape[d];
          rest /= tensor->shape[d];
        }
      g_string_append_c (s, '[');
      for (int d = 0; d < tensor->ndim - 2; d++)
        g_string_append_printf (s, "%" PRId64 ", ", lead[d]);
      g_string_append (s, ":, :]");
      label = g_string_free (s, FALSE);
      layout = make_layout (widget, label, 0.8, FALSE, TRUE);
      tensor_cell_rect (tl, (gint64) slice * tl->rows * tl->cols, &r);
      set_source (cr, &pal->fg, 0.6);
      cairo_move_to (cr, r.origin.x, r.origin.y - SLICE_LABEL_H);
      pango_cairo_show_layout (cr, layout);
    }
}

static void
draw_tensors (NapkinStorageDiagram *self,
              cairo_t              *cr,
              const Palette        *pal,
              int                   focus_tensor,
              gint64                focus_element)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int selected = napkin_storage_diagram_model_get_selected (self->model);

  draw_tensors_title (self, cr, pal);
  for (guint t = 0; t < self->tensors->len; t++)
    {
      const TensorLayout *tl = &g_array_index (self->tensors, TensorLayout, t);
      NkTensor *tensor = napkin_storage_diagram_model_get_tensor (self->model, t);
      guint storage = napkin_storage_diagram_model_get_tensor_storage (self->model, t);
      const GdkRGBA *hue = &pal->hue[storage % N_HUES];
      gboolean is_selected = (int) t == selected;
      gint64 numel = nk_tensor_numel (tensor), n_drawn = 0;
      const double *values = napkin_storage_diagram_model_get_tensor_values (self->model, t, &n_drawn);
      guint n_readers = 0;
      g_autofree gint64 *readers = napkin_storage_diagram_model_dup_cell_readers (self->model, t, &n_readers);

      /* The card */
      rounded_rect (cr, tl->x, tl->y, tl->w, tl->h, 12);
      set_source (cr, is_selected ? hue : &pal->fg, is_selected ? 0.08 : 0.03);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, is_selected ? 2 : 1);
      set_source (cr, is_selected ? hue : &pal->fg, is_selected ? 0.9 : 0.10);
      cairo_stroke (cr);
      draw_tensor_text (self, cr, pal, t, tl, hue);

      if (!tl->drawn)
        {
          g_autoptr(PangoLayout) layout = make_layout (widget, numel == 0 ? _("No elements")
                                                                          : _("Too large to draw cell by cell"),
                                                      0.9, FALSE, FALSE);

          set_source (cr, &pal->fg, 0.6);
          cairo_move_to (cr, tl->grid_x, tl->grid_y);
          pango_cairo_show_layout (cr, layout);
          continue;
        }
      if (tl->slice_labels)
        draw_slice_labels (widget, cr, pal, tl, tensor);
      if (tl->note_y > 0)
        {
          /* Translators: under a tensor drawn in part: "⋯ showing 512 of 4096 elements" */
          g_autofree char *note = g_strdup_printf (_("⋯ showing %" PRId64 " of %" PRId64 " elements"),
                                                   n_drawn, numel);
          g_autoptr(PangoLayout) layout = make_layout (widget, note, 0.9, FALSE, FALSE);

          set_source (cr, &pal->fg, 0.6);
          cairo_move_to (cr, tl->grid_x, tl->note_y);
          pango_cairo_show_layout (cr, layout);
        }

      for (gint64 e = 0, r_i = 0; e < n_drawn; e++)
        {
          graphene_rect_t r;
          g_autofree char *text = format_value (values[e]);
          gboolean focused = (int) t == focus_tensor && e == focus_element;

          /* readers are in logical order: walk them alongside */
          if (r_i < n_readers && readers[r_i] == e)
            focused = TRUE, r_i++;

          tensor_cell_rect (tl, e, &r);
          draw_cell (cr, widget, &r, text, &pal->fg, hue, &pal->on_hue,
                     focused ? 2 : is_selected ? 1 : 0);
        }
    }
}

static void
napkin_storage_diagram_snapshot (GtkWidget   *widget,
                                 GtkSnapshot *snapshot)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  int focus_tensor = -1;
  gint64 focus_element = -1, focus_cell = -1;
  Palette pal;
  cairo_t *cr;

  if (self->model == NULL || width <= 0 || height <= 0)
    return;

  ensure_layout (self, width);
  get_palette (widget, &pal);
  napkin_storage_diagram_model_get_focus (self->model, &focus_tensor, &focus_element, &focus_cell);

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  draw_strips (self, cr, &pal, focus_tensor, focus_cell);
  draw_tensors (self, cr, &pal, focus_tensor, focus_element);
  cairo_destroy (cr);
}

/* ------------------------------------------------------------ input */

static gboolean
hit_tensor (NapkinStorageDiagram *self,
            double                x,
            double                y,
            int                  *out_tensor,
            gint64               *out_element)
{
  *out_tensor = -1;
  *out_element = -1;
  if (self->model == NULL || self->layout_width != gtk_widget_get_width (GTK_WIDGET (self)))
    return FALSE;

  for (guint t = 0; t < self->tensors->len; t++)
    {
      const TensorLayout *tl = &g_array_index (self->tensors, TensorLayout, t);
      gint64 numel = 0;

      if (x < tl->x || x > tl->x + tl->w || y < tl->y || y > tl->y + tl->h)
        continue;
      *out_tensor = (int) t;
      napkin_storage_diagram_model_get_tensor_addresses (self->model, t, &numel);
      if (tl->drawn && tl->grid_y > 0)
        for (gint64 e = 0; e < numel; e++)
          {
            graphene_rect_t r;

            tensor_cell_rect (tl, e, &r);
            if (graphene_rect_contains_point (&r, &GRAPHENE_POINT_INIT (x, y)))
              {
                *out_element = e;
                break;
              }
          }
      return TRUE;
    }
  return FALSE;
}

static gboolean
hit_strip (NapkinStorageDiagram *self,
           double                x,
           double                y,
           int                  *out_storage,
           gint64               *out_cell)
{
  *out_storage = -1;
  *out_cell = -1;
  if (self->model == NULL || self->layout_width != gtk_widget_get_width (GTK_WIDGET (self)))
    return FALSE;

  for (guint s = 0; s < self->strips->len; s++)
    {
      const StripLayout *sl = &g_array_index (self->strips, StripLayout, s);
      gint64 n = napkin_storage_diagram_model_get_storage_n_drawn (self->model, s);
      int row, col;
      graphene_rect_t r;

      if (sl->per_row == 0 || y < sl->y_rows || x < MARGIN)
        continue;
      row = (int) ((y - sl->y_rows) / (INDEX_H + sl->cw + ARC_H));
      col = (int) ((x - MARGIN) / (sl->cw + GAP));
      if (row >= sl->n_rows || col >= sl->per_row || (gint64) row * sl->per_row + col >= n)
        continue;
      strip_cell_rect (sl, (gint64) row * sl->per_row + col, &r);
      if (graphene_rect_contains_point (&r, &GRAPHENE_POINT_INIT (x, y)))
        {
          *out_storage = (int) s;
          *out_cell = (gint64) row * sl->per_row + col;
          return TRUE;
        }
    }
  return FALSE;
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           NapkinStorageDiagram     *self)
{
  int tensor, storage;
  gint64 element, cell;

  if (self->model == NULL)
    return;
  hit_tensor (self, x, y, &tensor, &element);
  if (element >= 0)
    napkin_storage_diagram_model_set_hover (self->model, tensor, element);
  else if (hit_strip (self, x, y, &storage, &cell))
    napkin_storage_diagram_model_set_hover_cell (self->model, storage, cell);
  else
    {
      napkin_storage_diagram_model_set_hover (self->model, -1, -1);
      napkin_storage_diagram_model_set_hover_cell (self->model, -1, -1);
    }
}

static void
on_leave (GtkEventControllerMotion *controller,
          NapkinStorageDiagram     *self)
{
  if (self->model != NULL)
    {
      napkin_storage_diagram_model_set_hover (self->model, -1, -1);
      napkin_storage_diagram_model_set_hover_cell (self->model, -1, -1);
    }
}

static void
on_pressed (GtkGestureClick      *gesture,
            int                   n_press,
            double                x,
            double                y,
            NapkinStorageDiagram *self)
{
  int tensor;
  gint64 element;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (hit_tensor (self, x, y, &tensor, &element))
    napkin_storage_diagram_model_set_selected (self->model, tensor);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                NapkinStorageDiagram  *self)
{
  int selected, n;

  if (self->model == NULL || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return FALSE;

  selected = napkin_storage_diagram_model_get_selected (self->model);
  n = (int) napkin_storage_diagram_model_get_n_tensors (self->model);
  switch (keyval)
    {
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
    case GDK_KEY_space:
      napkin_storage_diagram_model_step (self->model, +1);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      napkin_storage_diagram_model_step (self->model, -1);
      return TRUE;
    case GDK_KEY_Escape:
      if (napkin_storage_diagram_model_get_step (self->model) < 0)
        return FALSE;
      napkin_storage_diagram_model_set_step (self->model, -1);
      return TRUE;
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      if (selected > 0)
        napkin_storage_diagram_model_set_selected (self->model, selected - 1);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      if (selected + 1 < n)
        napkin_storage_diagram_model_set_selected (self->model, selected + 1);
      return TRUE;
    default:
      return FALSE;
    }
}

/* ------------------------------------------------------------ size */

static GtkSizeRequestMode
napkin_storage_diagram_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
napkin_storage_diagram_measure (GtkWidget      *widget,
                                GtkOrientation  orientation,
                                int             for_size,
                                int            *minimum,
                                int            *natural,
                                int            *minimum_baseline,
                                int            *natural_baseline)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 320;
      *natural = 720;
    }
  else
    {
      ensure_layout (self, for_size > 0 ? for_size : 720);
      *minimum = *natural = (int) ceil (self->layout_height);
    }
}

static void
napkin_storage_diagram_size_allocate (GtkWidget *widget,
                                      int        width,
                                      int        height,
                                      int        baseline)
{
  ensure_layout (NAPKIN_STORAGE_DIAGRAM (widget), width);
}

static void
napkin_storage_diagram_css_changed (GtkWidget         *widget,
                                    GtkCssStyleChange *change)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (widget);

  GTK_WIDGET_CLASS (napkin_storage_diagram_parent_class)->css_changed (widget, change);
  /* Font sizes may have changed: lay out again. */
  self->layout_width = -1;
  gtk_widget_queue_resize (widget);
}

/* ------------------------------------------------------------ model */

/* The name follows the selection and a step (a screen reader announces the
 * focused diagram's new name as each step lands); the description carries the
 * data. */
static void
update_accessible (NapkinStorageDiagram *self)
{
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;

  if (self->model != NULL)
    {
      name = napkin_storage_diagram_model_dup_name (self->model);
      description = napkin_storage_diagram_model_dup_description (self->model);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  name != NULL ? name : _("Storage diagram"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description != NULL ? description : "",
                                  -1);
}

static void
on_model_changed (NapkinStorageDiagram *self)
{
  self->layout_width = -1;
  gtk_widget_queue_resize (GTK_WIDGET (self));
  update_accessible (self);
}

static void
on_model_notify (NapkinStorageDiagram *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * napkin_storage_diagram_set_model:
 * @self: a diagram
 * @model: (nullable): what to draw
 */
void
napkin_storage_diagram_set_model (NapkinStorageDiagram      *self,
                                  NapkinStorageDiagramModel *model)
{
  g_return_if_fail (NAPKIN_IS_STORAGE_DIAGRAM (self));
  g_return_if_fail (model == NULL || NAPKIN_IS_STORAGE_DIAGRAM_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  g_set_object (&self->model, model);
  if (model != NULL)
    {
      g_signal_connect_swapped (model, "changed", G_CALLBACK (on_model_changed), self);
      g_signal_connect_swapped (model, "notify", G_CALLBACK (on_model_notify), self);
      g_signal_connect_swapped (model, "notify::selected", G_CALLBACK (update_accessible), self);
      g_signal_connect_swapped (model, "notify::step", G_CALLBACK (update_accessible), self);
    }
  on_model_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

/**
 * napkin_storage_diagram_get_model:
 * @self: a diagram
 *
 * Returns: (transfer none) (nullable): what the diagram draws
 */
NapkinStorageDiagramModel *
napkin_storage_diagram_get_model (NapkinStorageDiagram *self)
{
  g_return_val_if_fail (NAPKIN_IS_STORAGE_DIAGRAM (self), NULL);
  return self->model;
}

/* ------------------------------------------------------------ GObject */

static void
napkin_storage_diagram_dispose (GObject *object)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (object);

  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  g_clear_object (&self->model);

  G_OBJECT_CLASS (napkin_storage_diagram_parent_class)->dispose (object);
}

static void
napkin_storage_diagram_finalize (GObject *object)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (object);

  g_clear_pointer (&self->strips, g_array_unref);
  g_clear_pointer (&self->tensors, g_array_unref);

  G_OBJECT_CLASS (napkin_storage_diagram_parent_class)->finalize (object);
}

static void
napkin_storage_diagram_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_storage_diagram_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  NapkinStorageDiagram *self = NAPKIN_STORAGE_DIAGRAM (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      napkin_storage_diagram_set_model (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_storage_diagram_class_init (NapkinStorageDiagramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = napkin_storage_diagram_dispose;
  object_class->finalize = napkin_storage_diagram_finalize;
  object_class->get_property = napkin_storage_diagram_get_property;
  object_class->set_property = napkin_storage_diagram_set_property;
  widget_class->snapshot = napkin_storage_diagram_snapshot;
  widget_class->get_request_mode = napkin_storage_diagram_get_request_mode;
  widget_class->measure = napkin_storage_diagram_measure;
  widget_class->size_allocate = napkin_storage_diagram_size_allocate;
  widget_class->css_changed = napkin_storage_diagram_css_changed;

  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, NAPKIN_TYPE_STORAGE_DIAGRAM_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "storagediagram");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
napkin_storage_diagram_init (NapkinStorageDiagram *self)
{
  GtkEventController *controller;
  GtkGesture *click;

  self->strips = g_array_new (FALSE, TRUE, sizeof (StripLayout));
  self->tensors = g_array_new (FALSE, TRUE, sizeof (TensorLayout));
  self->layout_width = -1;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  update_accessible (self);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

/**
 * napkin_storage_diagram_new:
 *
 * Returns: (transfer full): a new, empty diagram
 */
GtkWidget *
napkin_storage_diagram_new (void)
{
  return g_object_new (NAPKIN_TYPE_STORAGE_DIAGRAM, NULL);
}
