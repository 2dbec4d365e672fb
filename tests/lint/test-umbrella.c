/* test-umbrella.c: a program as one outside Napkin writes it — <napkin.h> alone
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built without NAPKIN_COMPILATION (tests/lint/meson.build), so it proves the
 * umbrella includes what its headers need and that they let it through; the
 * oracle is the bf16 and e4m3 bit patterns of the lecture's numbers, by hand.
 */
#include <napkin.h>

static void
test_umbrella_encode (void)
{
  /* 1.0 in bf16: sign 0, exponent 127 = 0x7f, mantissa 0 -> 0 01111111 0000000 */
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_BF16, 1.0, NK_OVERFLOW_DEFAULT), ==, 0x3f80);
  /* 448, e4m3's largest: 0 1111 110 */
  g_assert_cmphex (nk_dtype_encode (NK_DTYPE_E4M3, 448.0, NK_OVERFLOW_DEFAULT), ==, 0x7e);
}

static void
test_umbrella_guard (void)
{
  /* the guard's two names are gone after the umbrella: a later single include fails */
#ifdef NAPKIN_INSIDE
  g_assert_not_reached ();
#endif
#ifdef NAPKIN_COMPILATION
  g_assert_not_reached ();
#endif
  g_assert_true (TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lint/umbrella/encode", test_umbrella_encode);
  g_test_add_func ("/lint/umbrella/guard", test_umbrella_guard);
  return g_test_run ();
}
