/* test-gpt-accounting-view.c: the Training page's table of the formulas against a GPT
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: issue 12's Done-means run (d 128, L 4, H 4, T 64, B 16, V 256) counted by
 * hand — the Planner's 46,342,144 activation bytes (Korthikanti et al.'s terms,
 * the LayerNorm statistics, the embedding's mask, the final LayerNorm and the fp32
 * logits) against the GPT's 48,308,228 — and a step's counts written here.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <adwaita.h>

#include "napkin-gpt-accounting.h"
#include "nk-test-util.h"
#include "nk-units.h"

enum { D = 128, L = 4, H = 4, T = 64, B = 16, N = B * T };

static void
assert_cell (NapkinGptAccounting      *table,
             NapkinGptAccountingTable  which,
             guint                     row,
             guint                     column,
             char                     *expected)
{
  g_assert_cmpstr (napkin_gpt_accounting_get_cell (table, which, row, column), ==, expected);
  g_free (expected);
}

static void
test_activations (void)
{
  g_autoptr(NkTrainConfig) fp32 = nk_test_done_means_gpt (NK_PRECISION_FP32);
  g_autoptr(NkTrainConfig) bf16 = nk_test_done_means_gpt (NK_PRECISION_BF16_MIXED);
  NapkinGptAccounting *table = g_object_ref_sink (NAPKIN_GPT_ACCOUNTING (napkin_gpt_accounting_new ()));
  /* the Planner, fp32: per layer 34·sbh + 5·as²b at 4 bytes, as Korthikanti's
   * 16·p + 2 and 2·p + 1, plus 16·sb statistics; the final LayerNorm's input,
   * statistics and output, the embedding's mask, the logits 4·sbV */
  const double sbh = (double) N * D, scores = (double) B * H * T * T;
  const double planner = L * (sbh * 66 + 16.0 * N + scores * 9) + sbh * 8 + 8.0 * N + sbh + 4.0 * N * 256;

  g_assert_cmpfloat (planner, ==, 46342144);
  napkin_gpt_accounting_set_config (table, fp32);
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_N_TERMS, 1, nk_units_format_bytes (planner));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_N_TERMS, 2, nk_units_format_bytes (48308228));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_TERM_QKV, 3, g_strdup ("same"));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_TERM_SCORES, 3,
               g_strdup_printf ("+%s", nk_units_format_bytes (L * scores * 4)));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_TERM_DROPOUT, 2, nk_units_format_bytes (0));
  /* fp32 has no autocast copies: that row is hidden, and shown under bf16 */
  napkin_gpt_accounting_set_config (table, bf16);
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_TERM_AUTOCAST, 2,
               nk_units_format_bytes (L * (2 * sbh * 2 + scores * 6) + sbh * 2));
  napkin_gpt_accounting_set_config (table, NULL);
  g_assert_cmpstr (napkin_gpt_accounting_get_cell (table, NAPKIN_GPT_ACCOUNTING_ACTIVATIONS, NK_ACT_N_TERMS, 1),
                   ==, "—");
  g_object_unref (table);
}

static void
test_flops (void)
{
  g_autoptr(NkTrainConfig) config = nk_test_done_means_gpt (NK_PRECISION_FP32);
  NapkinGptAccounting *table = g_object_ref_sink (NAPKIN_GPT_ACCOUNTING (napkin_gpt_accounting_new ()));
  NkTrainMetrics m = { 0 };
  const double attention = 12.0 * L * N * T * D;

  napkin_gpt_accounting_set_config (table, config);
  /* PaLM's attention term is the ops' product */
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_ATTENTION, 1, nk_units_format_sci (attention, 4));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_ATTENTION, 2, nk_units_format_sci (attention, 4));
  /* PaLM leaves LayerNorm out; the ops do (8 + 13)·N·d for 2L + 1 of them */
  g_assert_cmpstr (napkin_gpt_accounting_get_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_NORM, 1), ==, "—");
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_NORM, 2, nk_units_format_sci (21.0 * 9 * N * D, 4));
  g_assert_cmpstr (napkin_gpt_accounting_get_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_NORM, 3), ==, "—");

  /* a step's counts: the Linears are the matmuls less attention, "no kind" the rest */
  m.flops = 1000000;
  m.flops_matmul = 700000;
  m.flops_attention = 100000;
  m.flops_norm = 50000;
  m.flops_activation = 20000;
  m.flops_softmax = 30000;
  m.flops_embedding = 1000;
  napkin_gpt_accounting_set_counted (table, &m);
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_LINEAR, 3, nk_units_format_sci (600000, 4));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_N_FLOP_KINDS, 3, nk_units_format_sci (199000, 4));
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_N_FLOP_KINDS + 1, 3, nk_units_format_sci (1e6, 4));

  /* a run recorded before the element-wise kinds were: their split is unknown, not 0 */
  m.flops_norm = m.flops_activation = m.flops_softmax = m.flops_embedding = 0;
  napkin_gpt_accounting_set_counted (table, &m);
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_ATTENTION, 3, nk_units_format_sci (100000, 4));
  g_assert_cmpstr (napkin_gpt_accounting_get_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_FLOP_KIND_NORM, 3), ==, "—");
  g_assert_cmpstr (napkin_gpt_accounting_get_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_N_FLOP_KINDS, 3), ==, "—");
  assert_cell (table, NAPKIN_GPT_ACCOUNTING_FLOPS, NK_N_FLOP_KINDS + 1, 3, nk_units_format_sci (1e6, 4));
  g_object_unref (table);
}

int
main (int    argc,
      char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/ui/gpt-accounting/activations", test_activations);
  g_test_add_func ("/ui/gpt-accounting/flops", test_flops);
  return g_test_run ();
}
