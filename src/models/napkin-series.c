/* napkin-series.c: every point of a plotted series, and its per-pixel min/max
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "napkin-series.h"

/* Each level's blocks are this many blocks of the level below (or points). */
#define FANOUT_SHIFT 4
#define MAX_LEVELS   12

typedef struct {
  double min;
  double max;
} Extent;

struct _NapkinSeries
{
  GObject          parent_instance;

  /* Shared with the leader (and its other followers) when the steps are stored once;
   * then it may be longer than y, and y's length is the series'. */
  GArray          *x;
  gboolean         owns_x;
  GArray          *y;
  /* levels[k] holds one Extent per block of 16^(k+1) points; the last block of a
   * level may be incomplete and is then never used whole by a query. */
  GArray          *levels[MAX_LEVELS];
  guint            n_levels;
  /* Between begin_update and end_update: where the appends began, or G_MAXUINT. */
  guint            pending_from;
};

G_DEFINE_FINAL_TYPE (NapkinSeries, napkin_series, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static inline void
extent_add (Extent *e,
            double  v)
{
  /* Comparisons with NaN are false: non-finite values never become extremes. */
  if (isfinite (v))
    {
      if (v < e->min)
        e->min = v;
      if (v > e->max)
        e->max = v;
    }
}

static inline void
extent_merge (Extent       *e,
              const Extent *o)
{
  if (o->min < e->min)
    e->min = o->min;
  if (o->max > e->max)
    e->max = o->max;
}

static void
napkin_series_finalize (GObject *object)
{
  NapkinSeries *self = NAPKIN_SERIES (object);

  g_array_unref (self->x);
  g_array_unref (self->y);
  for (guint k = 0; k < self->n_levels; k++)
    g_array_unref (self->levels[k]);

  G_OBJECT_CLASS (napkin_series_parent_class)->finalize (object);
}

static void
napkin_series_class_init (NapkinSeriesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = napkin_series_finalize;

  /**
   * NapkinSeries::changed:
   * @self: the series
   * @position: the first index that changed
   * @removed: points removed there
   * @added: points added there
   *
   * Emitted after every change, as #GListModel::items-changed: an append is
   * (length − 1, 0, 1), a clear is (0, length, 0).
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_UINT);
}

static void
napkin_series_init (NapkinSeries *self)
{
  self->y = g_array_new (FALSE, FALSE, sizeof (double));
  self->pending_from = G_MAXUINT;
}

/**
 * napkin_series_new:
 *
 * Returns: (transfer full): an empty series with its own x column
 */
NapkinSeries *
napkin_series_new (void)
{
  NapkinSeries *self = g_object_new (NAPKIN_TYPE_SERIES, NULL);

  self->x = g_array_new (FALSE, FALSE, sizeof (double));
  self->owns_x = TRUE;
  return self;
}

/**
 * napkin_series_new_sharing_x:
 * @leader: a series with its own x column
 *
 * A series that reads its x values from @leader's column instead of storing
 * them again: the run's series all step through the same steps. Append a point
 * to @leader first, then the same x to each follower. A follower is never
 * cleared on its own; clear the leader and every follower together.
 *
 * Returns: (transfer full): an empty follower of @leader
 */
NapkinSeries *
napkin_series_new_sharing_x (NapkinSeries *leader)
{
  NapkinSeries *self;

  g_return_val_if_fail (NAPKIN_IS_SERIES (leader) && leader->owns_x, NULL);
  self = g_object_new (NAPKIN_TYPE_SERIES, NULL);
  self->x = g_array_ref (leader->x);
  return self;
}

/**
 * napkin_series_append:
 * @self: a series
 * @x: not less than the last x
 * @y: any value; non-finite values are kept but never extremes
 *
 * Adds one point, in O(levels).
 */
void
napkin_series_append (NapkinSeries *self,
                      double        x,
                      double        y)
{
  guint index;

  g_return_if_fail (NAPKIN_IS_SERIES (self));

  index = self->y->len;
  if (self->owns_x)
    g_array_append_val (self->x, x);
  else
    g_return_if_fail (index < self->x->len && g_array_index (self->x, double, index) == x);
  g_array_append_val (self->y, y);

  for (guint k = 0; k < MAX_LEVELS; k++)
    {
      guint shift = FANOUT_SHIFT * (k + 1);
      guint block = index >> shift;

      if (k == self->n_levels)
        {
          /* A level starts once its first block can hold more than one lower block. */
          if (index < (1u << (shift - FANOUT_SHIFT)))
            break;
          self->levels[k] = g_array_new (FALSE, FALSE, sizeof (Extent));
          self->n_levels++;
          /* Rebuild its first block from the level below (or the points). */
          {
            Extent e = { INFINITY, -INFINITY };

            if (k == 0)
              for (guint i = 0; i < index; i++)
                extent_add (&e, g_array_index (self->y, double, i));
            else
              for (guint i = 0; i < self->levels[k - 1]->len - 1; i++)
                extent_merge (&e, &g_array_index (self->levels[k - 1], Extent, i));
            g_array_append_val (self->levels[k], e);
          }
        }
      if (block == self->levels[k]->len)
        {
          Extent e = { INFINITY, -INFINITY };

          g_array_append_val (self->levels[k], e);
        }
      extent_add (&g_array_index (self->levels[k], Extent, block), y);
    }
  if (self->pending_from == G_MAXUINT)
    g_signal_emit (self, signals[CHANGED], 0, index, 0, 1);
}

/**
 * napkin_series_begin_update:
 * @self: a series
 *
 * Holds back #NapkinSeries::changed for the appends that follow, until
 * napkin_series_end_update() says them all at once: a run that catches up on
 * many steps redraws its plots once.
 */
void
napkin_series_begin_update (NapkinSeries *self)
{
  g_return_if_fail (NAPKIN_IS_SERIES (self));
  g_return_if_fail (self->pending_from == G_MAXUINT);
  self->pending_from = self->y->len;
}

void
napkin_series_end_update (NapkinSeries *self)
{
  guint from;

  g_return_if_fail (NAPKIN_IS_SERIES (self));
  g_return_if_fail (self->pending_from != G_MAXUINT);
  from = self->pending_from;
  self->pending_from = G_MAXUINT;
  if (self->y->len > from)
    g_signal_emit (self, signals[CHANGED], 0, from, 0, self->y->len - from);
}

/**
 * napkin_series_clear:
 * @self: a series
 *
 * Removes every point.
 */
void
napkin_series_clear (NapkinSeries *self)
{
  guint removed;

  g_return_if_fail (NAPKIN_IS_SERIES (self));
  removed = self->y->len;
  if (self->owns_x)
    g_array_set_size (self->x, 0);
  g_array_set_size (self->y, 0);
  for (guint k = 0; k < self->n_levels; k++)
    g_clear_pointer (&self->levels[k], g_array_unref);
  self->n_levels = 0;
  if (removed > 0)
    g_signal_emit (self, signals[CHANGED], 0, 0, removed, 0);
}

guint
napkin_series_get_length (NapkinSeries *self)
{
  g_return_val_if_fail (NAPKIN_IS_SERIES (self), 0);
  return self->y->len;
}

/* GArray grows to the next power of two bytes: what it reserved is what it costs. */
static gsize
reserved (GArray *array)
{
  gsize used = (gsize) array->len * g_array_get_element_size (array);
  gsize size = 16;

  while (size < used)
    size <<= 1;
  return size;
}

/**
 * napkin_series_get_memory_size:
 * @self: a series
 *
 * What the series holds in memory, for the page's accounting: the arrays'
 * allocated capacity (y, the pyramid, and x when it is the series' own).
 *
 * Returns: bytes
 */
gsize
napkin_series_get_memory_size (NapkinSeries *self)
{
  gsize bytes;

  g_return_val_if_fail (NAPKIN_IS_SERIES (self), 0);
  bytes = sizeof *self + reserved (self->y);
  if (self->owns_x)
    bytes += reserved (self->x);
  for (guint k = 0; k < self->n_levels; k++)
    bytes += reserved (self->levels[k]);
  return bytes;
}

double
napkin_series_get_x (NapkinSeries *self,
                     guint         index)
{
  g_return_val_if_fail (NAPKIN_IS_SERIES (self) && index < self->y->len, NAN);
  return g_array_index (self->x, double, index);
}

double
napkin_series_get_y (NapkinSeries *self,
                     guint         index)
{
  g_return_val_if_fail (NAPKIN_IS_SERIES (self) && index < self->y->len, NAN);
  return g_array_index (self->y, double, index);
}

/**
 * napkin_series_get_last:
 * @self: a series
 * @out_x: (out) (optional): the newest x
 * @out_y: (out) (optional): the newest y
 *
 * Returns: %FALSE when the series is empty
 */
gboolean
napkin_series_get_last (NapkinSeries *self,
                        double       *out_x,
                        double       *out_y)
{
  guint n;

  g_return_val_if_fail (NAPKIN_IS_SERIES (self), FALSE);
  n = self->y->len;
  if (n == 0)
    return FALSE;
  if (out_x != NULL)
    *out_x = g_array_index (self->x, double, n - 1);
  if (out_y != NULL)
    *out_y = g_array_index (self->y, double, n - 1);
  return TRUE;
}

/**
 * napkin_series_lower_bound:
 * @self: a series
 * @x: a value
 *
 * Returns: the first index whose x is not less than @x (the length if none)
 */
guint
napkin_series_lower_bound (NapkinSeries *self,
                           double        x)
{
  const double *xs;
  guint lo = 0, hi;

  g_return_val_if_fail (NAPKIN_IS_SERIES (self), 0);
  xs = (const double *) (gpointer) self->x->data;
  hi = self->y->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (xs[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/**
 * napkin_series_range_minmax:
 * @self: a series
 * @begin: first index
 * @end: one past the last index
 * @out_min: (out): the least finite y in [@begin, @end)
 * @out_max: (out): the greatest finite y
 *
 * Uses whole pyramid blocks where they fit, so a range of n points costs
 * O(16 · log16 n) rather than O(n).
 *
 * Returns: %FALSE (and NAN extremes) when the range holds no finite y
 */
gboolean
napkin_series_range_minmax (NapkinSeries *self,
                            guint         begin,
                            guint         end,
                            double       *out_min,
                            double       *out_max)
{
  const double *ys;
  Extent e = { INFINITY, -INFINITY };
  guint i;
  int k;

  g_return_val_if_fail (NAPKIN_IS_SERIES (self), FALSE);
  end = MIN (end, self->y->len);
  if (begin >= end)
    {
      *out_min = *out_max = NAN;
      return FALSE;
    }
  ys = (const double *) (gpointer) self->y->data;

  i = begin;
  /* Up: single points, then ever larger blocks, until the next larger block
   * is aligned or would pass the end. */
  for (k = 0; ; k++)
    {
      guint size = k == 0 ? 1 : 1u << (FANOUT_SHIFT * k);
      guint next = 1u << (FANOUT_SHIFT * (k + 1));

      while ((i & (next - 1)) != 0 && end - i >= size)
        {
          if (k == 0)
            extent_add (&e, ys[i]);
          else
            extent_merge (&e, &g_array_index (self->levels[k - 1], Extent, i >> (FANOUT_SHIFT * k)));
          i += size;
        }
      if ((guint) k == self->n_levels || end - i < next || i >= end)
        break;
    }
  /* Down: the largest blocks that fit, then smaller ones, then single points. */
  for (; k >= 0 && i < end; k--)
    {
      guint size = k == 0 ? 1 : 1u << (FANOUT_SHIFT * k);

      while (end - i >= size)
        {
          if (k == 0)
            extent_add (&e, ys[i]);
          else
            extent_merge (&e, &g_array_index (self->levels[k - 1], Extent, i >> (FANOUT_SHIFT * k)));
          i += size;
        }
    }

  if (e.min > e.max)
    {
      *out_min = *out_max = NAN;
      return FALSE;
    }
  *out_min = e.min;
  *out_max = e.max;
  return TRUE;
}

/**
 * napkin_series_get_y_bounds:
 * @self: a series
 * @out_min: (out): the least finite y
 * @out_max: (out): the greatest finite y
 *
 * Returns: %FALSE when no y is finite
 */
gboolean
napkin_series_get_y_bounds (NapkinSeries *self,
                            double       *out_min,
                            double       *out_max)
{
  return napkin_series_range_minmax (self, 0, napkin_series_get_length (self),
                                     out_min, out_max);
}

static inline guint
column_of (double x,
           double x0,
           double x1,
           guint  n_columns)
{
  double c = floor ((x - x0) * n_columns / (x1 - x0));

  if (c < 0)
    return 0;
  if (c >= n_columns)
    return n_columns - 1;
  return (guint) c;
}

/**
 * napkin_series_decimate:
 * @self: a series
 * @x0: left edge of the first column
 * @x1: right edge of the last column, greater than @x0
 * @n_columns: columns (pixels) across
 * @out_min: (array length=n_columns): per column, the least finite y
 * @out_max: (array length=n_columns): per column, the greatest finite y
 *
 * Reduces the points with x in [@x0, @x1] to the minimum and maximum of each
 * column, so a line through (min, max) pairs draws every extreme of every point,
 * newest included, at a cost of O(columns · log n) block lookups.
 *
 * Returns: the number of columns that hold a finite y
 */
guint
napkin_series_decimate (NapkinSeries *self,
                        double        x0,
                        double        x1,
                        guint         n_columns,
                        double       *out_min,
                        double       *out_max)
{
  const double *xs;
  guint begin, last, filled = 0;

  g_return_val_if_fail (NAPKIN_IS_SERIES (self), 0);
  g_return_val_if_fail (n_columns > 0 && x1 > x0, 0);

  for (guint c = 0; c < n_columns; c++)
    out_min[c] = out_max[c] = NAN;

  xs = (const double *) (gpointer) self->x->data;
  begin = napkin_series_lower_bound (self, x0);
  /* one past the last point with x <= x1 */
  {
    guint lo = begin, hi = self->y->len;

    while (lo < hi)
      {
        guint mid = lo + (hi - lo) / 2;

        if (xs[mid] <= x1)
          lo = mid + 1;
        else
          hi = mid;
      }
    last = lo;
  }

  while (begin < last)
    {
      guint c = column_of (xs[begin], x0, x1, n_columns);
      guint lo = begin + 1, hi = last;
      double boundary = x0 + (c + 1) * (x1 - x0) / n_columns;
      double span = xs[last - 1] - xs[begin];

      /* Steps are nearly evenly spaced: guess the column's end by interpolation
       * and bracket it with a few probes before the binary search. */
      if (span > 0 && last - begin > 2)
        {
          double t = (boundary - xs[begin]) / span * (last - 1 - begin);
          guint guess = begin + (guint) CLAMP (t, 1, (double) (last - begin));

          if (guess < last && column_of (xs[guess], x0, x1, n_columns) <= c)
            lo = guess + 1;
          else if (guess > lo)
            hi = guess;
          for (guint probe = 1; probe <= 4 && lo < hi; probe++)
            {
              if (column_of (xs[lo], x0, x1, n_columns) > c)
                {
                  hi = lo;
                  break;
                }
              lo++;
            }
        }
      /* The column of x is monotone in x: binary search for its end. */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (column_of (xs[mid], x0, x1, n_columns) <= c)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (napkin_series_range_minmax (self, begin, lo, &out_min[c], &out_max[c]))
        filled++;
      begin = lo;
    }
  return filled;
}

/**
 * napkin_series_remap:
 * @self: the series to fill
 * @from: points by step (x is the step)
 * @map: the same steps' other x (tokens seen, FLOPs spent, wall time), in order of step
 *
 * Fills @self with @from's points moved onto @map's x at their step; a step @map does
 * not have is left out rather than placed anywhere. Both are in order of step: one pass.
 */
void
napkin_series_remap (NapkinSeries *self,
                     NapkinSeries *from,
                     NapkinSeries *map)
{
  guint n = napkin_series_get_length (from);
  guint m = napkin_series_get_length (map);
  guint j = 0;

  napkin_series_begin_update (self);
  napkin_series_clear (self);
  for (guint i = 0; i < n; i++)
    {
      double step = napkin_series_get_x (from, i);

      while (j < m && napkin_series_get_x (map, j) < step)
        j++;
      if (j < m && napkin_series_get_x (map, j) == step)
        napkin_series_append (self, napkin_series_get_y (map, j), napkin_series_get_y (from, i));
    }
  napkin_series_end_update (self);
}
