/* napkin-wrap-box.c: children in a row that wraps onto more lines when narrow
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2 has no breakpoints, so a header that is one row on a desktop
 * and two on a phone decides by measuring: children go on a line while their
 * minimum widths fit, the next one starts a new line. The box's minimum width
 * is its widest child's, so it never forces the window wider than that child.
 * On each line the width left over goes to the children that expand, else to
 * their natural widths.
 */
#include "config.h"

#include <string.h>

#include "napkin-wrap-box.h"

#define SPACING 6
#define LINE_SPACING 6

struct _NapkinWrapBox
{
  GtkWidget parent_instance;

  guint     max_columns;   /* 0: lines by minimum widths; else a grid, see below */
};

G_DEFINE_FINAL_TYPE (NapkinWrapBox, napkin_wrap_box, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MAX_COLUMNS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct
{
  GtkWidget *child;
  int        min;
  int        nat;
  int        width;     /* given at this width */
  guint      line;
} Item;

static GArray *
items_new (NapkinWrapBox *self)
{
  GArray *items = g_array_new (FALSE, TRUE, sizeof (Item));

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      Item item = { child, 0, 0, 0, 0 };

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &item.min, &item.nat,
                          NULL, NULL);
      g_array_append_val (items, item);
    }
  return items;
}

/* Grid mode: as many columns of equal width as fit, at most max_columns, and
 * a number that divides the children (8 cells: 4 × 2 or 2 × 4, never 5 + 3). */
static guint
grid_layout (GArray *items,
             guint   max_columns,
             int     width)
{
  guint n = items->len, columns = 1;
  int widest = 0, cell;

  for (guint i = 0; i < n; i++)
    widest = MAX (widest, g_array_index (items, Item, i).min);
  for (guint c = MIN (max_columns, n); c > 1; c--)
    if (n % c == 0 && (int) c * widest + ((int) c - 1) * SPACING * 3 <= width)
      {
        columns = c;
        break;
      }
  cell = MAX (widest, (width - ((int) columns - 1) * SPACING * 3) / (int) columns);
  for (guint i = 0; i < n; i++)
    {
      g_array_index (items, Item, i).width = cell;
      g_array_index (items, Item, i).line = i / columns;
    }
  return n == 0 ? 0 : (n + columns - 1) / columns;
}

/* Breaks @items into lines at @width and gives each item its width; returns the
 * number of lines. */
static guint
items_layout (GArray *items,
              int     width)
{
  guint line = 0, first = 0;
  int used = 0;

  for (guint i = 0; i <= items->len; i++)
    {
      Item *item = i < items->len ? &g_array_index (items, Item, i) : NULL;
      gboolean breaks = item == NULL
                        || (i > first && used + SPACING + item->min > width);

      if (breaks && i > first)
        {
          /* Share the line's leftover: first up to the natural widths, then to
           * the children that expand. */
          int left = width - used, n_expand = 0;

          for (guint j = first; j < i; j++)
            {
              Item *it = &g_array_index (items, Item, j);
              int grow = MIN (left, it->nat - it->min);

              it->width = it->min + MAX (grow, 0);
              left -= MAX (grow, 0);
              n_expand += gtk_widget_compute_expand (it->child, GTK_ORIENTATION_HORIZONTAL);
            }
          for (guint j = first; j < i && n_expand > 0 && left > 0; j++)
            {
              Item *it = &g_array_index (items, Item, j);

              if (gtk_widget_compute_expand (it->child, GTK_ORIENTATION_HORIZONTAL))
                {
                  int share = left / n_expand--;

                  it->width += share;
                  left -= share;
                }
            }
          line++;
          first = i;
          used = 0;
        }
      if (item == NULL)
        break;
      item->line = line;
      used += (i > first ? SPACING : 0) + item->min;
    }
  return line;
}

static guint
layout (NapkinWrapBox *self,
        GArray        *items,
        int            width)
{
  return self->max_columns > 0 ? grid_layout (items, self->max_columns, width)
                               : items_layout (items, width);
}

/* The height of each line at the widths items_layout() gave. */
static void
line_heights (GArray *items,
              guint   n_lines,
              int    *heights)
{
  memset (heights, 0, n_lines * sizeof (int));
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);
      int h = 0;

      gtk_widget_measure (it->child, GTK_ORIENTATION_VERTICAL, it->width, &h, NULL, NULL, NULL);
      heights[it->line] = MAX (heights[it->line], h);
    }
}

static void
napkin_wrap_box_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  g_autoptr(GArray) items = items_new (NAPKIN_WRAP_BOX (widget));

  *minimum = *natural = 0;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      for (guint i = 0; i < items->len; i++)
        {
          Item *it = &g_array_index (items, Item, i);

          *minimum = MAX (*minimum, it->min);
          *natural += it->nat + (i > 0 ? SPACING : 0);
        }
    }
  else
    {
      int width = for_size;
      guint n_lines;
      g_autofree int *heights = NULL;

      if (width < 0)
        {
          /* No width given: as on one line at the natural widths. */
          width = 0;
          for (guint i = 0; i < items->len; i++)
            width += g_array_index (items, Item, i).nat + (i > 0 ? SPACING : 0);
        }
      n_lines = layout (NAPKIN_WRAP_BOX (widget), items, width);
      heights = g_new0 (int, MAX (n_lines, 1));
      line_heights (items, n_lines, heights);
      for (guint l = 0; l < n_lines; l++)
        *minimum += heights[l] + (l > 0 ? LINE_SPACING : 0);
      *natural = *minimum;
    }
}

static void
napkin_wrap_box_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  NapkinWrapBox *self = NAPKIN_WRAP_BOX (widget);
  g_autoptr(GArray) items = items_new (self);
  guint n_lines = layout (self, items, width);
  g_autofree int *heights = g_new0 (int, MAX (n_lines, 1));
  gboolean rtl = gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL;
  int x = 0, y = 0;
  guint line = 0;

  line_heights (items, n_lines, heights);
  for (guint i = 0; i < items->len; i++)
    {
      Item *it = &g_array_index (items, Item, i);

      if (it->line != line)
        {
          y += heights[line] + LINE_SPACING;
          line = it->line;
          x = 0;
        }
      gtk_widget_size_allocate (it->child,
                                &(GtkAllocation) { rtl ? width - x - it->width : x, y,
                                                   it->width, heights[line] },
                                -1);
      x += it->width + (self->max_columns > 0 ? SPACING * 3 : SPACING);
    }
}

static GtkSizeRequestMode
napkin_wrap_box_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* It expands as its children do, as a GtkBox does. */
static void
napkin_wrap_box_compute_expand (GtkWidget *widget,
                                gboolean  *hexpand,
                                gboolean  *vexpand)
{
  *hexpand = *vexpand = FALSE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      *hexpand |= gtk_widget_compute_expand (child, GTK_ORIENTATION_HORIZONTAL);
      *vexpand |= gtk_widget_compute_expand (child, GTK_ORIENTATION_VERTICAL);
    }
}

static void
napkin_wrap_box_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (napkin_wrap_box_parent_class)->dispose (object);
}

static void
napkin_wrap_box_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NapkinWrapBox *self = NAPKIN_WRAP_BOX (object);

  switch (prop_id)
    {
    case PROP_MAX_COLUMNS:
      g_value_set_uint (value, self->max_columns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_wrap_box_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NapkinWrapBox *self = NAPKIN_WRAP_BOX (object);

  switch (prop_id)
    {
    case PROP_MAX_COLUMNS:
      if (self->max_columns != g_value_get_uint (value))
        {
          self->max_columns = g_value_get_uint (value);
          gtk_widget_queue_resize (GTK_WIDGET (self));
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_wrap_box_class_init (NapkinWrapBoxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = napkin_wrap_box_get_property;
  object_class->set_property = napkin_wrap_box_set_property;
  /**
   * NapkinWrapBox:max-columns:
   *
   * 0: children go on a line while their minimum widths fit. Else the box is a
   * grid of cells of one width: as many columns as fit, at most this many, and
   * a number that divides the children.
   */
  properties[PROP_MAX_COLUMNS] =
    g_param_spec_uint ("max-columns", NULL, NULL, 0, 64, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  object_class->dispose = napkin_wrap_box_dispose;
  widget_class->measure = napkin_wrap_box_measure;
  widget_class->size_allocate = napkin_wrap_box_size_allocate;
  widget_class->get_request_mode = napkin_wrap_box_get_request_mode;
  widget_class->compute_expand = napkin_wrap_box_compute_expand;
  gtk_widget_class_set_css_name (widget_class, "wrapbox");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
napkin_wrap_box_init (NapkinWrapBox *self)
{
}

/**
 * napkin_wrap_box_new:
 *
 * Returns: (transfer full): a new, empty wrap box; add children with
 *   gtk_widget_set_parent() or `<child>` in a template
 */
GtkWidget *
napkin_wrap_box_new (void)
{
  return g_object_new (NAPKIN_TYPE_WRAP_BOX, NULL);
}

/**
 * napkin_wrap_box_get_n_lines:
 * @self: a wrap box
 * @width: a width in pixels
 *
 * Returns: how many lines the children take at @width
 */
guint
napkin_wrap_box_get_n_lines (NapkinWrapBox *self,
                             int            width)
{
  g_autoptr(GArray) items = NULL;

  g_return_val_if_fail (NAPKIN_IS_WRAP_BOX (self), 0);

  items = items_new (self);
  return layout (self, items, width);
}
