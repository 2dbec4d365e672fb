/* test-series.c: per-column min/max decimation against a brute-force reduction
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: every point is visited and put in its column by the documented rule
 * c = floor ((x - x0) · n / (x1 - x0)) (x1 in the last column); the column's
 * least and greatest finite y must equal what the pyramid-backed decimation
 * returns, exactly. No widget and no engine is involved.
 */
#include "config.h"

#include <math.h>

#include "napkin-series.h"

static void
brute_force (NapkinSeries *series,
             double        x0,
             double        x1,
             guint         n,
             double       *mins,
             double       *maxs)
{
  for (guint c = 0; c < n; c++)
    {
      mins[c] = INFINITY;
      maxs[c] = -INFINITY;
    }
  for (guint i = 0; i < napkin_series_get_length (series); i++)
    {
      double x = napkin_series_get_x (series, i);
      double y = napkin_series_get_y (series, i);
      double col;
      guint c;

      if (x < x0 || x > x1 || !isfinite (y))
        continue;
      col = floor ((x - x0) * n / (x1 - x0));
      c = col >= n ? n - 1 : (guint) col;
      mins[c] = MIN (mins[c], y);
      maxs[c] = MAX (maxs[c], y);
    }
  for (guint c = 0; c < n; c++)
    if (mins[c] > maxs[c])
      mins[c] = maxs[c] = NAN;
}

static void
check_against_brute_force (NapkinSeries *series,
                           double        x0,
                           double        x1,
                           guint         n)
{
  g_autofree double *mins = g_new (double, n);
  g_autofree double *maxs = g_new (double, n);
  g_autofree double *ref_min = g_new (double, n);
  g_autofree double *ref_max = g_new (double, n);
  guint filled, ref_filled = 0;

  filled = napkin_series_decimate (series, x0, x1, n, mins, maxs);
  brute_force (series, x0, x1, n, ref_min, ref_max);
  for (guint c = 0; c < n; c++)
    {
      if (isnan (ref_min[c]))
        {
          g_assert_true (isnan (mins[c]));
          g_assert_true (isnan (maxs[c]));
          continue;
        }
      ref_filled++;
      g_assert_cmpfloat (mins[c], ==, ref_min[c]);
      g_assert_cmpfloat (maxs[c], ==, ref_max[c]);
    }
  g_assert_cmpuint (filled, ==, ref_filled);
}

/* Random walks of many lengths (around every pyramid level boundary), columns
 * fewer and more than points, windows that cut into the series. */
static void
test_decimate_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  const guint lengths[] = { 0, 1, 2, 15, 16, 17, 255, 256, 257, 1000, 4095, 4096, 4097,
                            65535, 65536, 65537, 200003 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    {
      g_autoptr(NapkinSeries) series = napkin_series_new ();
      double y = 0;

      for (guint i = 0; i < lengths[l]; i++)
        {
          y += g_rand_double_range (rand, -1, 1);
          napkin_series_append (series, i + 1, y);
        }
      g_assert_cmpuint (napkin_series_get_length (series), ==, lengths[l]);
      for (guint trial = 0; trial < 6; trial++)
        {
          guint n = (guint[]) { 1, 7, 333, 800, 1920, 5000 }[trial];

          check_against_brute_force (series, 1, MAX (lengths[l], 2), n);
          /* a window inside the series, edges between points */
          check_against_brute_force (series, lengths[l] * 0.25 + 0.5, lengths[l] * 0.75 + 1.3, n);
        }
    }
}

/* The newest point always lands in the last column, however many points there are. */
static void
test_newest_point_kept (void)
{
  g_autoptr(NapkinSeries) series = napkin_series_new ();
  double mins[100], maxs[100];

  for (guint i = 1; i <= 1000000; i++)
    napkin_series_append (series, i, 1.0);
  napkin_series_append (series, 1000001, 42.0);
  napkin_series_decimate (series, 1, 1000001, 100, mins, maxs);
  g_assert_cmpfloat (maxs[99], ==, 42.0);
  g_assert_cmpfloat (mins[99], ==, 1.0);
  for (guint c = 0; c < 99; c++)
    g_assert_cmpfloat (maxs[c], ==, 1.0);
}

/* NaN and infinities are kept as points but never become extremes. */
static void
test_non_finite (void)
{
  g_autoptr(NapkinSeries) series = napkin_series_new ();
  double lo, hi;

  for (guint i = 0; i < 5000; i++)
    napkin_series_append (series, i, i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : (double) i);
  g_assert_cmpuint (napkin_series_get_length (series), ==, 5000);
  g_assert_true (isnan (napkin_series_get_y (series, 0)));
  g_assert_true (napkin_series_get_y_bounds (series, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 2.0);
  g_assert_cmpfloat (hi, ==, 4997.0);
  check_against_brute_force (series, 0, 4999, 640);
  check_against_brute_force (series, 0, 4999, 7000);

  /* a range of only non-finite values has no extremes */
  g_assert_false (napkin_series_range_minmax (series, 0, 2, &lo, &hi));
  g_assert_true (isnan (lo));
}

/* Range queries against a plain loop over every sub-range of a short series. */
static void
test_range_minmax_all_ranges (void)
{
  g_autoptr(NapkinSeries) series = napkin_series_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  guint n = 700;

  for (guint i = 0; i < n; i++)
    napkin_series_append (series, i, g_rand_double_range (rand, -5, 5));
  for (guint a = 0; a < n; a += 3)
    for (guint b = a + 1; b <= n; b += 5)
      {
        double lo, hi, ref_lo = INFINITY, ref_hi = -INFINITY;

        for (guint i = a; i < b; i++)
          {
            ref_lo = MIN (ref_lo, napkin_series_get_y (series, i));
            ref_hi = MAX (ref_hi, napkin_series_get_y (series, i));
          }
        g_assert_true (napkin_series_range_minmax (series, a, b, &lo, &hi));
        g_assert_cmpfloat (lo, ==, ref_lo);
        g_assert_cmpfloat (hi, ==, ref_hi);
      }
}

/* Clearing forgets every point and the pyramid with it. */
static void
test_clear (void)
{
  g_autoptr(NapkinSeries) series = napkin_series_new ();
  double lo, hi;

  for (guint i = 0; i < 10000; i++)
    napkin_series_append (series, i, 100.0 + i);
  napkin_series_clear (series);
  g_assert_cmpuint (napkin_series_get_length (series), ==, 0);
  g_assert_false (napkin_series_get_y_bounds (series, &lo, &hi));
  for (guint i = 0; i < 300; i++)
    napkin_series_append (series, i, -(double) i);
  g_assert_true (napkin_series_get_y_bounds (series, &lo, &hi));
  g_assert_cmpfloat (lo, ==, -299.0);
  g_assert_cmpfloat (hi, ==, 0.0);
  check_against_brute_force (series, 0, 299, 50);
}

typedef struct {
  guint n;
  guint position;
  guint removed;
  guint added;
} Changes;

static void
on_changed (NapkinSeries *series,
            guint         position,
            guint         removed,
            guint         added,
            Changes      *c)
{
  c->n++;
  c->position = position;
  c->removed = removed;
  c->added = added;
}

/* A series tells its plots what changed, as GListModel::items-changed does; an
 * update says many appends once. Oracle: the lengths before and after. */
static void
test_changed (void)
{
  g_autoptr(NapkinSeries) series = napkin_series_new ();
  Changes c = { 0 };

  g_signal_connect (series, "changed", G_CALLBACK (on_changed), &c);
  napkin_series_append (series, 1, 1);
  g_assert_cmpuint (c.n, ==, 1);
  g_assert_cmpuint (c.position, ==, 0);
  g_assert_cmpuint (c.added, ==, 1);

  napkin_series_begin_update (series);
  for (guint i = 2; i <= 40; i++)
    napkin_series_append (series, i, i);
  g_assert_cmpuint (c.n, ==, 1);
  napkin_series_end_update (series);
  g_assert_cmpuint (c.n, ==, 2);
  g_assert_cmpuint (c.position, ==, 1);
  g_assert_cmpuint (c.removed, ==, 0);
  g_assert_cmpuint (c.added, ==, 39);

  napkin_series_clear (series);
  g_assert_cmpuint (c.n, ==, 3);
  g_assert_cmpuint (c.position, ==, 0);
  g_assert_cmpuint (c.removed, ==, 40);
  g_assert_cmpuint (c.added, ==, 0);
}

/* Followers read the leader's x column: same x, their own y and extremes, and
 * fewer bytes than a series with its own column. */
static void
test_sharing_x (void)
{
  g_autoptr(NapkinSeries) leader = napkin_series_new ();
  g_autoptr(NapkinSeries) follower = napkin_series_new_sharing_x (leader);
  g_autoptr(NapkinSeries) alone = napkin_series_new ();
  double lo, hi;

  for (guint i = 0; i < 5000; i++)
    {
      napkin_series_append (leader, 10 + 2 * i, i);
      napkin_series_append (follower, 10 + 2 * i, -(double) i);
      napkin_series_append (alone, 10 + 2 * i, -(double) i);
    }
  g_assert_cmpuint (napkin_series_get_length (follower), ==, 5000);
  for (guint i = 0; i < 5000; i += 7)
    {
      g_assert_cmpfloat (napkin_series_get_x (follower, i), ==, 10 + 2 * i);
      g_assert_cmpfloat (napkin_series_get_y (follower, i), ==, -(double) i);
    }
  g_assert_true (napkin_series_get_y_bounds (follower, &lo, &hi));
  g_assert_cmpfloat (lo, ==, -4999);
  g_assert_cmpfloat (hi, ==, 0);
  g_assert_cmpuint (napkin_series_lower_bound (follower, 21), ==, 6);
  g_assert_cmpuint (napkin_series_get_memory_size (follower), <, napkin_series_get_memory_size (alone));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/widgets/series/decimate/random", test_decimate_random);
  g_test_add_func ("/widgets/series/decimate/newest-point", test_newest_point_kept);
  g_test_add_func ("/widgets/series/non-finite", test_non_finite);
  g_test_add_func ("/widgets/series/range-minmax", test_range_minmax_all_ranges);
  g_test_add_func ("/widgets/series/clear", test_clear);
  g_test_add_func ("/widgets/series/changed", test_changed);
  g_test_add_func ("/widgets/series/sharing-x", test_sharing_x);

  return g_test_run ();
}
