/* test-units.c: numbers as people type them, against values written out by hand
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>

#include "nk-units.h"

static void
test_parse_accepts (void)
{
  static const struct { const char *text; double value; } cases[] = {
    { "70e9", 70e9 }, { "70B", 70e9 }, { "70b", 70e9 }, { "70G", 70e9 },
    { "15T", 15e12 }, { "0.5", 0.5 }, { " 1.5 k ", 1500.0 }, { "2M", 2e6 },
    { "-3", -3.0 }, { ".25", 0.25 }, { "7e10", 7e10 }, { "1024", 1024.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      double value = NAN;

      g_assert_true (nk_units_parse (cases[i].text, &value, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (value, ==, cases[i].value);
    }
}

static void
test_parse_refuses (void)
{
  static const struct { const char *text; int code; } cases[] = {
    { "", NK_UNITS_ERROR_EMPTY }, { "   ", NK_UNITS_ERROR_EMPTY },
    { "abc", NK_UNITS_ERROR_INVALID }, { "inf", NK_UNITS_ERROR_INVALID },
    { "nan", NK_UNITS_ERROR_INVALID }, { "0x10", NK_UNITS_ERROR_INVALID },
    { "1e400", NK_UNITS_ERROR_RANGE }, { "70X", NK_UNITS_ERROR_INVALID },
    { "7BB", NK_UNITS_ERROR_INVALID }, { "1e", NK_UNITS_ERROR_INVALID },
    { "1e308T", NK_UNITS_ERROR_RANGE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      double value = 42.0;

      g_assert_false (nk_units_parse (cases[i].text, &value, &error));
      g_assert_error (error, NK_UNITS_ERROR, cases[i].code);
      g_assert_cmpfloat (value, ==, 42.0);
    }
}

static void
test_format (void)
{
  static const struct { double bytes; const char *text; } bytes[] = {
    { 512, "512 B" }, { 1024, "1 KiB" }, { 1.5 * 1024 * 1024, "1.5 MiB" },
    { 80e9, "74.5 GiB" }, { 1.12 * 1099511627776.0, "1.12 TiB" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bytes); i++)
    {
      g_autofree char *text = nk_units_format_bytes (bytes[i].bytes);
      g_assert_cmpstr (text, ==, bytes[i].text);
    }

  {
    g_autofree char *sci = nk_units_format_sci (6.3e24, 1);
    g_autofree char *days = nk_units_format_duration (143.9 * 86400);
    g_autofree char *rate = nk_units_format_rate (989.5e12);
    g_autofree char *nan_text = nk_units_format_sci (NAN, 1);

    g_assert_cmpstr (sci, ==, "6.3e24");
    g_assert_cmpstr (days, ==, "143.9 days");
    g_assert_cmpstr (rate, ==, "989.5 TFLOP/s");
    g_assert_cmpstr (nan_text, ==, "—");
  }
}

/* Oracle: the Julian year, 365.25 days of 86400 s, written out here. */
static void
test_format_duration_years (void)
{
  static const struct { double days; const char *text; } cases[] = {
    { 143.9, "143.9 days" },          /* the lecture's answer stays in days */
    { 730.0, "730.0 days" },          /* just under two years */
    { 730.5, "2.0 years" },           /* exactly two Julian years */
    { 10527.2, "28.8 years" },        /* 10527.2 / 365.25 = 28.82... */
    { 365.25 * 1000, "1000.0 years" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = nk_units_format_duration (cases[i].days * 86400.0);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
  {
    double years = 10527.2 / 365.25;

    g_assert_cmpfloat (years, >, 28.75);
    g_assert_cmpfloat (years, <, 28.85);
  }
  {
    g_autofree char *just_under = nk_units_format_duration (2 * 365.25 * 86400.0 - 1.0);

    g_assert_true (g_str_has_suffix (just_under, " days"));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/units/parse/accepts", test_parse_accepts);
  g_test_add_func ("/engine/units/parse/refuses", test_parse_refuses);
  g_test_add_func ("/engine/units/format", test_format);
  g_test_add_func ("/engine/units/format/duration-years", test_format_duration_years);

  return g_test_run ();
}
