/* test-cli-plan-2026.c: the 2026 planner flags' bad values and impossible combinations, each exit 2 with one sentence
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: CLI.md's contract (exit 2 for bad usage, one sentence on stderr
 * naming the offending input, {"error"} on stdout with --json) and the rules
 * it names, each case written here with the flag a person would change. A
 * base plan that runs (exit 0) comes first, so a refusal is the added flags'.
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "nk-test-util.h"

#define BASE "plan", "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "100B", "--mfu", "auto", \
  "--layers", "4", "--d-model", "1024", "--heads", "8", "--ffn", "swiglu", "--d-ff", "4096", \
  "--vocab", "1000", "--seq", "1024", "--global-batch", "8", "--micro-batch", "1", "--precision", "mixed"
#define MOE "--experts", "8", "--experts-per-token", "2"
#define MLA "--attention", "mla", "--kv-lora-rank", "256", "--qk-nope-head-dim", "64", \
  "--qk-rope-head-dim", "32", "--v-head-dim", "64"

/* Runs BASE, the extra flags and --json; NULL when the runner skips. */
static gboolean
run_plan (NkTestRun         *run,
          const char *const *extra)
{
  static const char *const base[] = { BASE, "--json" };
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  for (guint i = 1; i < G_N_ELEMENTS (base); i++)
    g_ptr_array_add (args, (gpointer) base[i]);
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, NULL);
  return nk_test_run_cli (run, base[0], (const char *const *) args->pdata, NULL, 0);
}

/* The base plan, dense and with experts and latent attention, runs. */
static void
test_base_runs (void)
{
  static const char *const plain[] = { NULL };
  static const char *const moe[] = { MOE, "--ep", "4", "--ep-comm-overlap", "--deepep", MLA, NULL };
  static const char *const tp[] = { "--tp", "2", "--tp-comm-overlap", NULL };
  static const char *const gather[] = { "--precision", "fp8-tensorwise", "--fp8-param-gather", NULL };
  static const char *const offload[] = { "--cpu-offload-layers", "3", NULL };
  const char *const *cases[] = { plain, moe, tp, gather, offload };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };

      if (!run_plan (&run, cases[i]))
        return;
      g_test_message ("%s", run.err);
      g_assert_cmpint (run.status, ==, 0);
    }
}

static void
test_bad_combinations (void)
{
  static const struct { const char *extra[14]; const char *blamed; } cases[] = {
    /* bad values */
    { { "--experts", "-1", "--experts-per-token", "2" }, "--experts" },
    { { "--experts", "abc", "--experts-per-token", "2" }, "--experts" },
    { { "--experts", "2.5", "--experts-per-token", "2" }, "--experts" },
    { { "--experts", "-1" }, "--experts: “-1”" },   /* the value before the missing K */
    { { "--experts", "0", "--experts-per-token", "2" }, "--experts" },
    { { MOE, "--experts-per-token", "0" }, "--experts-per-token" },
    { { MOE, "--shared-experts", "-1" }, "--shared-experts" },
    { { MOE, "--expert-d-ff", "0" }, "--expert-d-ff" },
    { { MOE, "--dense-layers", "-1" }, "--dense-layers" },
    { { MOE, "--ep", "0" }, "--ep" },
    { { MOE, "--etp", "0" }, "--etp" },
    { { MOE, "--expert-imbalance", "0.5" }, "--expert-imbalance" },   /* at least 1 */
    { { MOE, "--expert-imbalance", "nan" }, "--expert-imbalance" },
    { { "--attention", "gqa" }, "--attention" },
    { { "--attention", "mla", "--kv-lora-rank", "0", "--qk-nope-head-dim", "64",
        "--qk-rope-head-dim", "32", "--v-head-dim", "64" }, "--kv-lora-rank" },   /* ranks > 0 */
    { { MLA, "--q-lora-rank", "-3" }, "--q-lora-rank" },
    { { MLA, "--v-head-dim", "0" }, "--v-head-dim" },
    { { "--head-dim", "0" }, "--head-dim" },
    { { "--nvlink-domain", "0" }, "--nvlink-domain" },
    { { "--nvlink-domain", "2.5" }, "--nvlink-domain" },
    { { "--precision", "fp8-foo" }, "--precision" },
    { { "--ffn", "relu3" }, "--ffn" },
    { { "--dropout", "1" }, "--dropout" },
    { { "--cpu-offload-layers", "-1" }, "--cpu-offload-layers" },
    { { "--cpu-offload-layers", "x" }, "--cpu-offload-layers" },
    /* impossible combinations */
    { { "--experts", "8" }, "--experts" },                            /* E without K */
    { { "--experts-per-token", "2" }, "--experts-per-token" },         /* K without E */
    { { "--shared-experts", "1" }, "--shared-experts" },
    { { "--ep", "2" }, "--ep" },
    { { "--etp", "2" }, "--etp" },
    { { "--expert-imbalance", "1.5" }, "--expert-imbalance" },
    { { "--ep-comm-overlap" }, "--ep-comm-overlap" },                 /* nothing to hide */
    { { "--deepep" }, "--deepep" },                                   /* no experts */
    { { "--tp-comm-overlap" }, "--tp-comm-overlap" },                 /* TP 1 */
    { { "--tp-comm-overlap", "--tp", "1" }, "--tp-comm-overlap" },
    { { "--fp8-param-gather" }, "--fp8-param-gather" },              /* no recipe */
    { { "--cpu-offload-layers", "4" }, "--cpu-offload-layers" },      /* all 4 layers */
    { { "--cpu-offload-layers", "2", "--pp", "2" }, "--cpu-offload-layers" },
    { { "--cpu-offload-layers", "2", "--recompute", "full" }, "--cpu-offload-layers" },
    { { MOE, "--experts-per-token", "9" }, "--experts-per-token" },   /* K > E */
    { { MOE, "--ep", "3" }, "--ep" },                                 /* 8 % 3 */
    { { MOE, "--ep", "16" }, "--ep" },                                /* 8 % 16 */
    { { MOE, "--ep", "8", "--pp", "2" }, "--ep" },                    /* TP·CP·DP 4 % 8 */
    { { MOE, "--ep", "8", "--etp", "2" }, "--etp" },                  /* 8 % (8 · 2) */
    { { MOE, "--etp", "3" }, "--etp" },
    { { MOE, "--dense-layers", "4" }, "--dense-layers" },            /* no MoE layer left */
    { { "--attention", "mla" }, "--kv-lora-rank" },                   /* ranks not given */
    { { "--kv-lora-rank", "256" }, "--kv-lora-rank" },                /* without MLA */
    { { MLA, "--kv-heads", "2" }, "--kv-heads" },
    { { "--precision", "nvfp4" }, "--precision" },                    /* no FP4 on an H100 */
    { { "--precision", "mxfp8" }, "--precision" },
    { { "--gpu", "a100-sxm-80", "--precision", "fp8-tensorwise" }, "--precision" },
    { { "--first-stage-layers", "1" }, "--first-stage-layers" },       /* PP 1 */
    { { "--first-stage-layers", "5", "--pp", "2" }, "--first-stage-layers" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autofree char *joined = g_strjoinv (" ", (char **) cases[i].extra);
      g_autofree char *prefix = g_strdup_printf ("napkin-cli: %s", cases[i].blamed);
      const char *newline;
      JsonObject *o;

      if (!run_plan (&run, cases[i].extra))
        return;
      g_test_message ("%s: exit %d, %s", joined, run.status, run.err);
      if (run.status != 2)
        g_error ("%s: exit %d, not 2", joined, run.status);
      /* one line, naming the flag a person would change */
      g_assert_true (g_str_has_prefix (run.err, prefix));
      newline = strchr (run.err, '\n');
      g_assert_nonnull (newline);
      g_assert_cmpstr (newline + 1, ==, "");
      g_assert_true (json_parser_load_from_data (parser, run.out, -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      g_assert_true (g_str_has_prefix (json_object_get_string_member (o, "error"), cases[i].blamed));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/plan-2026/base-runs", test_base_runs);
  g_test_add_func ("/cli/plan-2026/bad-combinations", test_bad_combinations);
  return g_test_run ();
}
