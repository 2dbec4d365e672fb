/* test-cli-plan.c: napkin-cli plan and gpus, run as a person or a script would
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-test-util.h"

/* Runs napkin-cli with a NULL-terminated list of arguments (the shared runner;
 * run->out stays NULL when the test is skipped). */
static void
run_cli (NkTestRun *run,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  va_start (ap, run);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  if (nk_test_run_cli (run, NULL, (const char *const *) args->pdata, NULL, 0))
    g_assert_cmpint (run->status, >=, 0);
}

static JsonObject *
parse_line (const char *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, line, -1, &error));
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

#define Q1 "plan", "--params", "70B", "--tokens", "15T", "--gpu", "h100-sxm", "--gpus", "1024", "--mfu", "0.5"

static void
test_lecture_days (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;
  JsonObject *memory;

  run_cli (&run, Q1, "--json", NULL);
  if (g_test_failed () || run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "days"), 143.9, 0.05);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "total_flops") / 6.3e24, 1, 1e-12);
  g_assert_cmpfloat (json_object_get_double_member (o, "peak_flops_per_gpu"), ==, 989.5e12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "flops_per_day") / 4.377e22, 1, 1e-3);
  g_assert_false (json_object_has_member (o, "cost"));
  g_assert_false (json_object_has_member (o, "largest_params"));
  memory = json_object_get_object_member (o, "memory");
  g_assert_cmpfloat (json_object_get_double_member (memory, "params"), ==, 70e9 * 4);
  g_assert_cmpfloat (json_object_get_double_member (memory, "optimizer"), ==, 70e9 * 8);
  g_assert_cmpfloat (json_object_get_double_member (memory, "activations"), ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (memory, "total"), ==, 70e9 * 16);
  g_assert_cmpfloat (json_object_get_double_member (memory, "per_gpu"), ==, 70e9 * 16);
  g_assert_cmpfloat (json_object_get_double_member (memory, "hbm_per_gpu"), ==, 80e9);
  g_assert_false (json_object_get_boolean_member (memory, "fits"));
}

static void
test_human_output (void)
{
  g_auto(NkTestRun) run = { 0 };

  run_cli (&run, Q1, NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "143.9 days"));
  g_assert_nonnull (strstr (run.out, "6 × 7.0e10 params × 1.5e13 tokens = 6.3e24 FLOPs"));
  g_assert_nonnull (strstr (run.out, "4 + 4 + 8 = 16"));
  g_assert_null (strstr (run.out, "nan"));
  g_assert_null (strstr (run.out, "inf"));
}

static void
test_sparse_and_price (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;

  run_cli (&run, Q1, "--sparse", "--price", "2.5", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  g_assert_cmpfloat (json_object_get_double_member (o, "peak_flops_per_gpu"), ==, 1979e12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "days"), 143.9266 / 2, 0.01);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "cost"),
                                  json_object_get_double_member (o, "gpu_hours") * 2.5, 1e-3);
}

static void
check_largest (const char *zero,
               double      expected)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;
  JsonObject *memory;

  run_cli (&run, "plan", "--gpu", "h100-sxm", "--gpus", "8", "--optimizer", "adamw",
           "--zero", zero, "--largest", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  g_assert_cmpfloat (json_object_get_double_member (o, "largest_params"), ==, expected);
  /* Without --params the memory shown is the answer's own, and it fits. */
  memory = json_object_get_object_member (o, "memory");
  g_assert_true (json_object_get_boolean_member (memory, "fits"));
  g_assert_cmpfloat (json_object_get_double_member (memory, "params"), ==, expected * 4);
  g_assert_false (json_object_has_member (o, "days"));
}

static void
test_lecture_largest (void)
{
  check_largest ("3", 4.0e10);   /* 8 × 80e9 / 16 */
  check_largest ("0", 5.0e9);    /* 80e9 / 16 */
}

static void
test_nothing_fits (void)
{
  g_auto(NkTestRun) run = { 0 };

  /* 1e6 × 1e4 × 1e4 × 100 × 4 B of activations on 8 GPUs: far beyond 80 GB each. */
  run_cli (&run, "plan", "--gpu", "h100-sxm", "--gpus", "8", "--largest", "--batch", "1M",
           "--seq", "10K", "--layers", "100", "--d-model", "10K", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "--largest"));
}

static void
test_bad_usage (void)
{
  static const struct { const char *flag; const char *value; } cases[] = {
    { "--gpus", "-1" }, { "--gpus", "abc" }, { "--gpus", "2.5" }, { "--mfu", "1.5" },
    { "--mfu", "0" }, { "--mfu", "abc" }, { "--gpu", "h900" }, { "--params", "1e400" },
    { "--params", "-70B" }, { "--tokens", "0" }, { "--dtype", "fp64" },
    { "--optimizer", "lion" }, { "--precision", "bf16" }, { "--zero", "4" },
    { "--price", "-2" }, { "--batch", "-1" }, { "--dropout", "1" }, { "--dropout", "-0.1" },
    { "--dropout", "0.1x" }, { "--nvlink-domain", "0" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(JsonObject) o = NULL;
      const char *error;

      /* The bad flag comes last, so it overrides the good one from Q1. */
      run_cli (&run, Q1, "--json", cases[i].flag, cases[i].value, NULL);
      if (run.out == NULL)
        return;
      if (run.status != 2)
        g_error ("%s %s: exit %d", cases[i].flag, cases[i].value, run.status);
      g_assert_nonnull (strstr (run.err, cases[i].flag));
      o = parse_line (run.out);
      error = json_object_get_string_member (o, "error");
      g_assert_nonnull (strstr (error, cases[i].flag));
    }

  {
    g_auto(NkTestRun) run = { 0 };

    run_cli (&run, "plan", "--params", "70B", "--tokens", "15T", "--gpus", "8", "--mfu", "0.5", NULL);
    if (run.out == NULL)
      return;
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "--gpu"));
  }
  {
    g_auto(NkTestRun) run = { 0 };

    /* 6 × 1e200 × 1e200 is beyond a double: refused, never printed as inf. */
    run_cli (&run, "plan", "--params", "1e200", "--tokens", "1e200", "--gpu", "h100-sxm",
             "--gpus", "8", "--mfu", "0.5", NULL);
    if (run.out == NULL)
      return;
    g_assert_cmpint (run.status, ==, 2);
    g_assert_null (strstr (run.out, "inf"));
    g_assert_nonnull (strstr (run.err, "--params"));
  }
}

static void
test_deadline (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;

  run_cli (&run, Q1, "--deadline", "144", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  /* 6.3e24 / (989.5e12 × 0.5 × 86400 × 144) = 1023.5 → 1024 GPUs. */
  g_assert_cmpfloat (json_object_get_double_member (o, "gpus_for_deadline"), ==, 1024);
}

static void
test_gpus (void)
{
  static const char *required[] = {
    "h100-sxm", "h100-pcie", "h100-nvl", "h200", "a100-sxm-40", "a100-sxm-80",
    "a100-pcie", "l40s", "rtx-4090", "b200", "v100", "cpu",
  };
  static const char *keys[] = { "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8" };
  g_auto(NkTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  run_cli (&run, "gpus", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (g_strstrip (run.out), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonObject) o = parse_line (lines[i]);
      JsonObject *peak = json_object_get_object_member (o, "peak");
      JsonObject *sparse = json_object_get_object_member (o, "peak_sparse");
      const char *id = json_object_get_string_member (o, "id");

      g_hash_table_add (seen, g_strdup (id));
      g_assert_true (json_object_has_member (o, "name"));
      g_assert_true (json_object_has_member (o, "memory"));
      g_assert_true (json_object_has_member (o, "bandwidth"));
      g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "cuda_names")));
      g_assert_true (strlen (json_object_get_string_member (o, "source")) > 10);
      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        {
          JsonNode *dense = json_object_get_member (peak, keys[k]);

          g_assert_nonnull (dense);
          g_assert_nonnull (json_object_get_member (sparse, keys[k]));
          /* null or a number, never "nan" */
          g_assert_true (JSON_NODE_HOLDS_NULL (dense)
                         || json_node_get_value_type (dense) == G_TYPE_DOUBLE);
        }
      if (strcmp (id, "h100-sxm") == 0)
        {
          g_assert_cmpfloat (json_object_get_double_member (o, "memory"), ==, 80e9);
          g_assert_cmpfloat (json_object_get_double_member (peak, "bf16"), ==, 989.5e12);
          g_assert_cmpfloat (json_object_get_double_member (sparse, "bf16"), ==, 1979e12);
        }
      if (strcmp (id, "v100") == 0)
        g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (peak, "bf16")));
    }
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    g_assert_true (g_hash_table_contains (seen, required[i]));

  {
    g_auto(NkTestRun) bad = { 0 };

    run_cli (&bad, "gpus", "h900", NULL);
    g_assert_cmpint (bad.status, ==, 2);
    g_assert_nonnull (strstr (bad.err, "h900"));
  }
}

/* The build tree's catalogs are used before `meson install`: the German message is
 * the one po/de.po gives. */
static void
test_german (void)
{
  const char *const env[] = { "LC_ALL=C.UTF-8", "LANGUAGE=de", NULL };
  g_auto(NkTestRun) run = { 0 };

  if (!nk_test_run_cli_env (&run, env, "plan", (const char *[]) { "--params", "7B", NULL }, NULL, 0))
    return;
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--gpu ist erforderlich"));
}

/* Issue 14, bugs found by trying the CLI as a new user would. Each case failed
 * on the code before the fix. */

/* "0.0 days" for a run of minutes; 22 digits of days for an absurd one. Oracle:
 * 6 × 1.25e8 × 2.5e9 / (989.5e12 × 0.5 × 8 × 86400) days = 7.9 minutes. */
static void
test_bug_time_text (void)
{
  g_auto(NkTestRun) short_run = { 0 };
  g_auto(NkTestRun) huge = { 0 };
  g_autoptr(GRegex) digits = g_regex_new ("[0-9]{10}", 0, 0, NULL);

  run_cli (&short_run, "plan", "--params", "125M", "--tokens", "2.5B", "--gpu", "h100-sxm",
           "--gpus", "8", "--mfu", "0.5", NULL);
  if (short_run.out == NULL)
    return;
  g_assert_cmpint (short_run.status, ==, 0);
  g_assert_null (strstr (short_run.out, "0.0 days"));
  g_assert_nonnull (strstr (short_run.out, "7.9 min"));

  run_cli (&huge, "plan", "--params", "1e30", "--tokens", "1T", "--gpu", "h100-sxm",
           "--gpus", "8", "--mfu", "0.5", NULL);
  g_assert_cmpint (huge.status, ==, 0);
  g_assert_false (g_regex_match (digits, huge.out, 0, NULL));
  g_assert_nonnull (strstr (huge.out, "1.755e22 days"));
}

/* Each error names the flag that caused it. */
static void
test_bug_error_flags (void)
{
  static const struct { const char *flag, *value, *blamed; } cases[] = {
    { "--mfu", "1e-305", "--mfu" },   /* was --gpus */
    { "--heads", "1e300", "--heads" },   /* was --batch */
    { "--seq", "1e200", "--seq" },   /* was --batch */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autofree char *expected = g_strdup_printf ("napkin-cli: %s:", cases[i].blamed);

      run_cli (&run, Q1, "--batch", "8", "--seq", "2048", "--layers", "32", "--d-model", "4096",
               "--heads", "32", "--activations", "transformer", cases[i].flag, cases[i].value, NULL);
      if (run.out == NULL)
        return;
      g_test_message ("%s %s: %s", cases[i].flag, cases[i].value, run.err);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_true (g_str_has_prefix (run.err, expected));
    }
}

/* A whole number past the largest its plan input takes is bad input naming the
 * range (it was a GLib warning, fatal under G_DEBUG, and the value dropped);
 * the largest itself plans. Oracle: the ranges of nk-plan.c's layout table. */
static void
test_bug_layout_range (void)
{
  static const struct { const char *flag, *over, *largest, *sentence; } cases[] = {
    { "--gpus-per-node", "100000", "65536",
      "napkin-cli: --gpus-per-node: “100000” is not a whole number from 1 to 65536\n" },
    { "--memory-reserve", "95", "90",
      "napkin-cli: --memory-reserve: “95” is not a whole number from 0 to 90\n" },
    { "--tp", "2000000", "1048576",
      "napkin-cli: --tp: “2000000” is not a whole number from 1 to 1048576\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) over = { 0 };
      g_auto(NkTestRun) largest = { 0 };

      run_cli (&over, Q1, cases[i].flag, cases[i].over, NULL);
      if (over.out == NULL)
        return;
      g_assert_cmpint (over.status, ==, 2);
      g_assert_cmpstr (over.err, ==, cases[i].sentence);
      run_cli (&largest, Q1, cases[i].flag, cases[i].largest, "--json", NULL);
      /* in range: no word about the number (a layout rule may still refuse the plan) */
      g_assert_null (strstr (largest.err, "is not a whole number"));
      g_assert_null (strstr (largest.err, "WARNING"));
    }
}

/* Without --dtype, a GPU with no bf16 peak is planned in its fastest dense
 * format, which the plan says; a GPU with no peak at all is refused under --gpu,
 * never under the --dtype nobody typed. Oracle: the V100 datasheet's 125 TFLOP/s
 * fp16 tensor-core peak. */
static void
test_bug_default_dtype (void)
{
  g_auto(NkTestRun) v100 = { 0 };
  g_auto(NkTestRun) cpu = { 0 };
  g_autoptr(JsonObject) o = NULL;

  run_cli (&v100, "plan", "--params", "7B", "--tokens", "1T", "--gpu", "v100", "--gpus", "8",
           "--mfu", "0.5", "--json", NULL);
  if (v100.out == NULL)
    return;
  g_assert_cmpint (v100.status, ==, 0);
  o = parse_line (v100.out);
  g_assert_cmpfloat (json_object_get_double_member (o, "peak_flops_per_gpu"), ==, 125e12);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "assumptions"),
                                                  "dtype"), ==, "fp16");
  g_assert_nonnull (strstr (v100.err, "fp16"));

  run_cli (&cpu, "plan", "--params", "7B", "--tokens", "1T", "--gpu", "cpu", "--gpus", "1",
           "--mfu", "0.5", NULL);
  g_assert_cmpint (cpu.status, ==, 2);
  g_assert_true (g_str_has_prefix (cpu.err, "napkin-cli: --gpu:"));
  g_assert_null (strstr (cpu.err, "--dtype:"));
}

/* --checkpointing means nothing to the linear model: refused, not echoed back
 * as "checkpointing": true. */
static void
test_bug_checkpointing_linear (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) transformer = { 0 };

  run_cli (&run, Q1, "--batch", "8", "--seq", "8", "--layers", "2", "--d-model", "8",
           "--checkpointing", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--checkpointing"));
  g_assert_null (strstr (run.out, "\"checkpointing\":true"));

  run_cli (&transformer, Q1, "--batch", "8", "--seq", "8", "--layers", "2", "--d-model", "8",
           "--heads", "2", "--activations", "transformer", "--checkpointing", "--json", NULL);
  g_assert_cmpint (transformer.status, ==, 0);
}

/* A deadline no GPU count meets is unsatisfiable (exit 1 with a sentence), never
 * "nan" with exit 0. */
static void
test_bug_deadline_unsatisfiable (void)
{
  static const char *deadlines[] = { "0", "1e-300" };

  for (guint i = 0; i < G_N_ELEMENTS (deadlines); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(JsonObject) o = NULL;

      run_cli (&run, Q1, "--deadline", deadlines[i], "--json", NULL);
      if (run.out == NULL)
        return;
      g_assert_cmpint (run.status, ==, 1);
      g_assert_null (strstr (run.out, "nan"));
      o = parse_line (run.out);
      g_assert_nonnull (strstr (json_object_get_string_member (o, "error"), "--deadline"));
    }
}

/* The deadline answer in whole nodes and checked against memory:
 * ⌈1638 / 8⌉ = 205 nodes; 70B in fp32 with AdamW replicated never fits 80 GB. */
static void
test_bug_deadline_nodes (void)
{
  g_auto(NkTestRun) run = { 0 };

  run_cli (&run, Q1, "--deadline", "90", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "1638 GPUs"));
  g_assert_nonnull (strstr (run.out, "205 nodes"));
  g_assert_nonnull (strstr (run.out, "does not fit"));
}

/* 2M GPUs under ZeRO-3 never returned (largest_params stepped by ±1 past 2^53);
 * on the old code this test hangs until meson's timeout. Oracle: 80e9 / (16 / 2e6). */
static void
test_bug_search_terminates (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;

  run_cli (&run, "plan", "--params", "70B", "--tokens", "15T", "--gpu", "h100-sxm",
           "--gpus", "2M", "--mfu", "0.5", "--zero", "3", "--largest", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  g_assert_cmpfloat (json_object_get_double_member (o, "largest_params"), ==, 1e16);
}

/* Issue 21: the planner answers what it was not asked. Each case failed on the
 * code before the fix (exit 0 with an answer to another question). */

#define SMALL "plan", "--params", "7B", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "8", "--mfu", "0.5"

/* README's Llama-2-70B example (CLI.md's cluster flags). */
#define LLAMA_SHAPE "plan", "--gpu", "h100-sxm", "--gpus", "4096", "--tokens", "2T", "--mfu", "auto", \
  "--layers", "80", "--d-model", "8192", "--heads", "64", "--kv-heads", "8", "--ffn", "swiglu", \
  "--d-ff", "28672", "--vocab", "32000", "--seq", "4096", "--global-batch", "1024", \
  "--flash-attention", "--precision", "mixed"
#define LLAMA LLAMA_SHAPE, "--micro-batch", "1", "--tp", "8", "--pp", "8", "--sequence-parallel", \
  "--recompute", "selective", "--zero", "1"

/* A refusal: exit 2, one line on stderr naming @flag first, nothing on stdout. */
static void
assert_refused (const NkTestRun *run,
                const char      *flag)
{
  g_autofree char *prefix = g_strdup_printf ("napkin-cli: %s:", flag);

  g_test_message ("%s → exit %d: %s", flag, run->status, run->err);
  g_assert_cmpint (run->status, ==, 2);
  g_assert_true (g_str_has_prefix (run->err, prefix));
  g_assert_nonnull (strchr (run->err, '\n'));
  g_assert_cmpstr (strchr (run->err, '\n') + 1, ==, "");
  g_assert_cmpstr (run->out, ==, "");
}

/* --mfu auto needs the step time, so a shape, a sequence and a batch; without
 * them it printed "MFU 0.5" and days (the stand-in) with exit 0. With them the
 * MFU is the step's on 6N: 6 · params · tokens/s / (GPUs · peak). */
static void
test_bug_mfu_auto_needs_shape (void)
{
  g_auto(NkTestRun) bare = { 0 };
  g_auto(NkTestRun) no_batch = { 0 };
  g_auto(NkTestRun) full = { 0 };
  g_autoptr(JsonObject) o = NULL;
  double mfu, tokens_per_s, params, peak;

  run_cli (&bare, "plan", "--params", "7B", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "8",
           "--mfu", "auto", NULL);
  if (bare.out == NULL)
    return;
  assert_refused (&bare, "--mfu");
  g_assert_nonnull (strstr (bare.err, "shape"));

  run_cli (&no_batch, "plan", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "8", "--mfu", "auto",
           "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "2048", NULL);
  assert_refused (&no_batch, "--mfu");

  run_cli (&full, "plan", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "8", "--mfu", "auto",
           "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "2048",
           "--global-batch", "64", "--precision", "mixed", "--flash-attention", "--json", NULL);
  g_assert_cmpint (full.status, ==, 0);
  o = parse_line (full.out);
  mfu = json_object_get_double_member (o, "mfu");
  tokens_per_s = json_object_get_double_member (o, "tokens_per_s");
  params = json_object_get_double_member (json_object_get_object_member (o, "sizing"), "params");
  peak = json_object_get_double_member (o, "peak_flops_per_gpu");
  g_assert_cmpfloat (peak, ==, 989.5e12);
  g_assert_cmpfloat_with_epsilon (mfu / (6 * params * tokens_per_s / (8 * peak)), 1, 1e-12);
  g_assert_cmpfloat (mfu, !=, 0.5);
}

/* A typed 0 was read as "not given": --layers 0 planned "6 × 1 params" and
 * fitting, --heads 0 or --seq 0 dropped the layout. Zero and negative sizes,
 * counts and rates are bad input under their own flag, whichever it is. */
static void
test_bug_zero_sizes (void)
{
  static const char *flags[] = {
    "--layers", "--d-model", "--heads", "--seq", "--d-ff", "--vocab", "--batch", "--kv-heads",
    "--global-batch", "--micro-batch", "--tp", "--pp", "--cp", "--dp", "--virtual-stages",
    "--gpus-per-node", "--gpus", "--params", "--tokens", "--mfu", "--matmul-efficiency",
    "--nvlink-bandwidth", "--network-bandwidth",
  };
  static const char *values[] = { "0", "-1", "-0" };

  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    for (guint k = 0; k < G_N_ELEMENTS (values); k++)
      {
        g_auto(NkTestRun) run = { 0 };

        /* with a whole shape and batch, so nothing else is missing */
        run_cli (&run, SMALL, "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "2048",
                 "--global-batch", "64", flags[i], values[k], NULL);
        if (run.out == NULL)
          return;
        assert_refused (&run, flags[i]);
      }
}

/* Without --global-batch every layout flag was dropped (exit 0, no layout). Now
 * a rule that what is known already breaks is named (TP × PP × CP × DP = GPUs,
 * heads % TP), else what the layout still needs. */
static void
test_bug_layout_without_batch (void)
{
  static const struct { const char *flag, *value, *extra, *extra_value, *says; } cases[] = {
    { "--tp", "3", NULL, NULL, "3 × 1 × 1 × 2 = 6, not 8" },
    { "--pp", "3", NULL, NULL, "1 × 3 × 1 × 2 = 6, not 8" },
    { "--cp", "16", NULL, NULL, "1 × 1 × 16 × 1 = 16, not 8" },
    { "--tp", "8", "--heads", "4", "The 4 heads must be a multiple of TP 8" },
    { "--tp", "2", NULL, NULL, "shape" },
    { "--pp", "2", "--layers", "32", "shape" },
    { "--micro-batch", "2", NULL, NULL, "shape" },
    { "--sequence-parallel", NULL, NULL, NULL, "shape" },
    { "--recompute", "selective", NULL, NULL, "shape" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };

      run_cli (&run, SMALL, cases[i].flag, cases[i].value != NULL ? cases[i].value : cases[i].extra,
               cases[i].value != NULL ? cases[i].extra : NULL, cases[i].extra_value, NULL);
      if (run.out == NULL)
        return;
      assert_refused (&run, cases[i].flag);
      g_assert_nonnull (strstr (run.err, cases[i].says));
    }

  {
    g_auto(NkTestRun) shaped = { 0 };
    g_auto(NkTestRun) planned = { 0 };
    g_autoptr(JsonObject) o = NULL;

    /* the whole shape and no batch: the batch is what is missing */
    run_cli (&shaped, SMALL, "--tp", "2", "--layers", "32", "--d-model", "4096", "--heads", "32",
             "--seq", "2048", NULL);
    assert_refused (&shaped, "--tp");
    g_assert_nonnull (strstr (shaped.err, "global batch"));

    /* ... which given, the layout is planned as typed: 8 / 2 = DP 4 */
    run_cli (&planned, SMALL, "--tp", "2", "--layers", "32", "--d-model", "4096", "--heads", "32",
             "--seq", "2048", "--global-batch", "16", "--json", NULL);
    g_assert_cmpint (planned.status, ==, 0);
    o = parse_line (planned.out);
    g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "layout"), "tp"), ==, 2);
    g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "layout"), "dp"), ==, 4);
  }
}

/* --gpus 2^31 dropped the cluster model without a word (its degrees are ints)
 * and --export then asked for the shape that was given. */
static void
test_bug_gpus_beyond_int (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) export = { 0 };
  g_auto(NkTestRun) lecture = { 0 };

  run_cli (&run, "plan", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "2147483648", "--mfu", "0.5",
           "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "2048", "--global-batch", "1024",
           NULL);
  if (run.out == NULL)
    return;
  assert_refused (&run, "--gpus");
  g_assert_nonnull (strstr (run.err, "2147483647"));

  run_cli (&export, "plan", "--tokens", "1T", "--gpu", "h100-sxm", "--gpus", "2147483648", "--mfu", "0.5",
           "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "2048", "--global-batch", "1024",
           "--export", "megatron", NULL);
  assert_refused (&export, "--gpus");

  /* the lecture's formula, with no cluster model to drop, counts them as they
   * come: 6 × 7e9 × 1e12 / (989.5e12 × 0.5 × 2^31 × 86400) days */
  run_cli (&lecture, SMALL, "--gpus", "2147483648", "--json", NULL);
  g_assert_cmpint (lecture.status, ==, 0);
  {
    g_autoptr(JsonObject) o = parse_line (lecture.out);

    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "days")
                                    / (6 * 7e9 * 1e12 / (989.5e12 * 0.5 * 2147483648.0 * 86400)), 1, 1e-12);
  }
}

static double
sum_members (JsonObject *o)
{
  g_autoptr(GList) members = json_object_get_members (o);
  double sum = 0;

  for (GList *l = members; l != NULL; l = l->next)
    sum += json_object_get_double_member (o, l->data);
  return sum;
}

/* README's Llama-2-70B: the lecture's memory section said "activations 0 B (give
 * batch, seq, …)", "per GPU 257 GiB" (ZeRO-1 over all 4096 GPUs) and "fits
 * yes", beside the layout's 15.4 GiB. One answer now, the layout's. Oracle, by
 * hand: the linear activations B·S·D·L · 2 B = 1024 · 4096 · 8192 · 80 · 2; the
 * first stage's GPU holds 10 layers of Llama's 2·h² + 2·h·(kv·128) + 3·h·d_ff
 * = 855638016 matrix weights over TP 8 plus two RMSNorms of 8192 each, and a
 * TP-eighth of the 32000 × 8192 embedding: 1102479360 parameters, at
 * 2 + 2 + (4 + 8)/64 B under ZeRO-1 over DP 64 = 4616632320 B. */
static void
test_bug_memory_one_answer (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) text = { 0 };
  g_autoptr(JsonObject) o = NULL;
  JsonObject *memory;
  double per_gpu, activations_there, stage_params;

  run_cli (&run, LLAMA, "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  memory = json_object_get_object_member (o, "memory");
  g_assert_cmpfloat (json_object_get_double_member (memory, "activations"), ==, 1024.0 * 4096 * 8192 * 80 * 2);
  per_gpu = json_object_get_double_member (memory, "per_gpu");
  g_assert_cmpfloat (per_gpu, ==, json_object_get_double_member (memory, "per_gpu_max"));
  g_assert_true (json_object_get_boolean_member (memory, "fits")
                 == (per_gpu <= json_object_get_double_member (memory, "capacity_per_gpu")));
  g_assert_cmpint (json_object_get_int_member (memory, "zero_stage"), ==, 1);
  activations_there = sum_members (json_object_get_object_member (o, "activation_terms"));
  stage_params = 10 * (855638016.0 / 8 + 2 * 8192) + 32000.0 * 8192 / 8;
  g_assert_cmpfloat (stage_params, ==, 1102479360);
  g_assert_cmpfloat_with_epsilon (per_gpu - activations_there, stage_params * (2 + 2 + 12.0 / 64), 1e-3);

  run_cli (&text, LLAMA, NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_null (strstr (text.out, "give batch"));
  g_assert_nonnull (strstr (text.out, "ZeRO-1 over DP 64"));
  g_assert_null (strstr (text.out, "sharded over the GPUs"));
}

/* --best-layout: the header said ZeRO-0 (as typed) while the layout chosen was
 * ZeRO-1; the memory it reports is the chosen layout's. */
static void
test_bug_best_layout_zero (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) text = { 0 };
  g_autoptr(JsonObject) o = NULL;
  g_autofree char *header = NULL;
  JsonObject *layout;
  gint64 zero;

  run_cli (&run, LLAMA_SHAPE, "--best-layout", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  layout = json_object_get_object_member (o, "layout");
  zero = json_object_get_int_member (layout, "zero_stage");
  g_assert_cmpint (zero, >, 0);   /* else the case proves nothing */
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "memory"), "zero_stage"), ==, zero);

  run_cli (&text, LLAMA_SHAPE, "--best-layout", NULL);
  header = g_strdup_printf ("ZeRO-%d over DP %g;", (int) zero, json_object_get_double_member (layout, "dp"));
  g_assert_nonnull (strstr (text.out, header));
  g_assert_null (strstr (text.out, "ZeRO-0"));
}

/* --deadline: JSON's gpus_for_deadline (the lecture's compute-only count, 1162)
 * and the text's layout row (1024) disagreed, and "memory there" was ZeRO over
 * all GPUs (258 GiB, does not fit) beside a layout that fits. One answer: the
 * layout's. */
static void
test_bug_deadline_one_answer (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) text = { 0 };
  g_autoptr(JsonObject) o = NULL;
  g_autofree char *row = NULL;
  JsonObject *there;
  double gpus;

  run_cli (&run, LLAMA, "--deadline", "30", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  there = json_object_get_object_member (o, "layout_for_deadline");
  gpus = json_object_get_double_member (there, "gpus");
  g_assert_cmpfloat (json_object_get_double_member (o, "gpus_for_deadline"), ==, gpus);
  g_assert_cmpfloat (fmod (gpus, 64), ==, 0);   /* DP × TP 8 × PP 8 */

  run_cli (&text, LLAMA, "--deadline", "30", NULL);
  row = g_strdup_printf ("GPUs for 30 days    %g GPUs", gpus);
  g_assert_nonnull (strstr (text.out, row));
  g_assert_nonnull (strstr (text.out, "memory there"));
  g_assert_null (strstr (text.out, "does not fit"));
}

/* The header's MFU 0.278 stood beside "MFU (model) 0.2985" unexplained: the
 * header's is the days' 6N convention, and says so; its row shows the same
 * number with its formula. */
static void
test_bug_mfu_labels (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_auto(NkTestRun) text = { 0 };
  g_autoptr(JsonObject) o = NULL;
  g_autofree char *header = NULL;
  g_autofree char *row = NULL;
  double mfu;

  run_cli (&run, LLAMA, "--json", NULL);
  if (run.out == NULL)
    return;
  o = parse_line (run.out);
  mfu = json_object_get_double_member (o, "mfu");
  g_assert_cmpfloat (fabs (mfu - json_object_get_double_member (o, "mfu_model")), >, 0.01);
  run_cli (&text, LLAMA, NULL);
  header = g_strdup_printf ("MFU %.3g on 6 × params FLOPs", mfu);
  row = g_strdup_printf ("MFU (6N)            %.4g ", mfu);
  g_assert_nonnull (strstr (text.out, header));
  g_assert_nonnull (strstr (text.out, row));
  g_assert_nonnull (strstr (text.out, "MFU (model)"));
}

/* --checkpointing is full recompute: beside --recompute none or selective it
 * silently planned full recompute. */
static void
test_bug_checkpointing_recompute (void)
{
  static const char *contradict[] = { "none", "selective" };

  for (guint i = 0; i < G_N_ELEMENTS (contradict); i++)
    {
      g_auto(NkTestRun) run = { 0 };

      run_cli (&run, SMALL, "--batch", "8", "--seq", "8", "--layers", "2", "--d-model", "8", "--heads", "2",
               "--activations", "transformer", "--checkpointing", "--recompute", contradict[i], NULL);
      if (run.out == NULL)
        return;
      assert_refused (&run, "--checkpointing");   /* the sentence opens with it */
      g_assert_nonnull (strstr (run.err, "--recompute"));
    }
  {
    g_auto(NkTestRun) agree = { 0 };

    run_cli (&agree, SMALL, "--batch", "8", "--seq", "8", "--layers", "2", "--d-model", "8", "--heads", "2",
             "--activations", "transformer", "--checkpointing", "--recompute", "full", NULL);
    g_assert_cmpint (agree.status, ==, 0);
  }
}

/* A hundred-thousandth of a parameter is no model: counts are at least 1. */
static void
test_bug_counts_below_one (void)
{
  static const struct { const char *flag, *value; } cases[] = {
    { "--params", "1e-5" }, { "--params", "0.5" }, { "--tokens", "0.5" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(NkTestRun) run = { 0 };

      run_cli (&run, SMALL, cases[i].flag, cases[i].value, NULL);
      if (run.out == NULL)
        return;
      assert_refused (&run, cases[i].flag);
    }
  {
    g_auto(NkTestRun) one = { 0 };

    run_cli (&one, SMALL, "--params", "1", NULL);
    g_assert_cmpint (one.status, ==, 0);
  }
}

/* --memory-reserve past its range with --capacity usable: one sentence, exit 2,
 * no GLib warning and no plan at the default 5 %. */
static void
test_bug_memory_reserve_range (void)
{
  static const char *values[] = { "100", "150", "-5" };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_auto(NkTestRun) run = { 0 };

      run_cli (&run, SMALL, "--capacity", "usable", "--memory-reserve", values[i], NULL);
      if (run.out == NULL)
        return;
      assert_refused (&run, "--memory-reserve");
      g_assert_null (strstr (run.err, "GLib"));
    }
}

/* --largest with a shape left its activations out (4.0e10 on 8 GPUs, as with
 * none). Oracle by hand, one sequence of 2048 on each of 8 GPUs, d 4096, 32
 * layers, 16-bit, FlashAttention: Korthikanti et al.'s 34·s·b·h per layer (no
 * score term) plus the LayerNorm statistics 16·s·b, times 32, plus the
 * embedding's dropout mask s·b·h, the final norm's input and output 4·s·b·h and
 * statistics 8·s·b; then (80e9 − that) / (16 B / 8 GPUs under ZeRO-3). */
static void
test_bug_largest_shape_activations (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;
  double sbh = 2048.0 * 4096, s = 2048;
  double activations = 32 * (34 * sbh + 16 * s) + sbh + 4 * sbh + 8 * s;

  run_cli (&run, "plan", "--gpu", "h100-sxm", "--gpus", "8", "--largest", "--layers", "32", "--d-model", "4096",
           "--heads", "32", "--seq", "2048", "--global-batch", "8", "--precision", "mixed", "--flash-attention",
           "--zero", "3", "--json", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  g_assert_cmpfloat (activations, ==, 9169813504.0);
  g_assert_cmpfloat (json_object_get_double_member (o, "largest_params"), ==, floor ((80e9 - activations) / 2));
  /* the shape fixes the plan's own parameters (2 B each in bf16): the answer
   * stands beside it, it does not replace it */
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "memory"), "params"), ==,
                     2 * json_object_get_double_member (json_object_get_object_member (o, "sizing"), "params"));
}

/* 1e9 GPUs for a global batch of 1024: DP cannot exceed the batch, so more GPUs
 * are not the advice; fewer are. */
static void
test_bug_best_layout_too_many_gpus (void)
{
  g_auto(NkTestRun) run = { 0 };

  run_cli (&run, "plan", "--gpu", "h100-sxm", "--gpus", "1e9", "--tokens", "2T", "--mfu", "0.5",
           "--layers", "80", "--d-model", "8192", "--heads", "64", "--kv-heads", "8", "--ffn", "swiglu",
           "--d-ff", "28672", "--vocab", "32000", "--seq", "4096", "--global-batch", "1024", "--precision", "mixed",
           "--best-layout", NULL);
  if (run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 1);
  g_assert_true (g_str_has_prefix (run.err, "napkin-cli: --best-layout:"));
  g_assert_null (strstr (run.err, "add GPUs"));
  g_assert_nonnull (strstr (run.err, "fewer GPUs"));
}

/* Mixtral 8x7B on 64 H100s with EP 8, as a script reads it: sizing.params the
 * total and params_active the per-token count (hand counts in
 * test-plan-cluster.c: 46,702,792,704 and 12,879,925,248), layout.ep/etp,
 * time_per_step.ep_comm within the exposed communication, and --ffn relu2
 * accepted. */
static void
test_moe_json (void)
{
  g_auto(NkTestRun) run = { 0 };
  g_autoptr(JsonObject) o = NULL;
  JsonObject *sizing, *layout, *time;

  run_cli (&run, "plan", "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--mfu", "auto",
           "--layers", "32", "--d-model", "4096", "--heads", "32", "--kv-heads", "8", "--ffn", "swiglu",
           "--d-ff", "14336", "--vocab", "32000", "--seq", "4096", "--experts", "8",
           "--experts-per-token", "2", "--ep", "8", "--global-batch", "256", "--micro-batch", "1",
           "--precision", "bf16-mixed", "--zero", "1", "--recompute", "full", "--json", NULL);
  if (g_test_failed () || run.out == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  o = parse_line (run.out);
  sizing = json_object_get_object_member (o, "sizing");
  g_assert_cmpfloat (json_object_get_double_member (sizing, "params"), ==, 46702792704.0);
  g_assert_cmpfloat (json_object_get_double_member (sizing, "params_active"), ==, 12879925248.0);
  layout = json_object_get_object_member (o, "layout");
  g_assert_cmpint (json_object_get_int_member (layout, "ep"), ==, 8);
  g_assert_cmpint (json_object_get_int_member (layout, "etp"), ==, 1);
  time = json_object_get_object_member (o, "time_per_step");
  g_assert_cmpfloat (json_object_get_double_member (time, "ep_comm"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (time, "exposed_comm"), >=,
                     json_object_get_double_member (time, "ep_comm"));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "mfu_convention"), "active parameters"));
  /* a dense plan says its active count too: all of them */
  {
    g_auto(NkTestRun) dense = { 0 };
    g_autoptr(JsonObject) d = NULL;

    run_cli (&dense, "plan", "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1T", "--mfu", "0.4",
             "--layers", "32", "--d-model", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "relu2",
             "--d-ff", "24576", "--vocab", "256000", "--seq", "4096", "--json", NULL);
    if (g_test_failed () || dense.out == NULL)
      return;
    g_assert_cmpint (dense.status, ==, 0);
    d = parse_line (dense.out);
    sizing = json_object_get_object_member (d, "sizing");
    g_assert_cmpfloat (json_object_get_double_member (sizing, "params"), ==,
                       json_object_get_double_member (sizing, "params_active"));
  }
}

/* CLI.md: the JSON's top-level `precision` is the recipe where one is set (the
 * contract's words), the training precision otherwise. */
static void
test_precision_is_recipe (void)
{
  const char *recipes[] = { "fp8-tensorwise", "fp8-blockwise" };

  for (guint i = 0; i < G_N_ELEMENTS (recipes); i++)
    {
      g_auto(NkTestRun) run = { 0 };
      g_autoptr(JsonObject) o = NULL;

      run_cli (&run, "plan", "--params", "8e9", "--tokens", "1e12", "--gpus", "64", "--gpu", "h100-sxm",
               "--mfu", "0.4", "--layers", "32", "--d-model", "4096", "--heads", "32", "--seq", "8192",
               "--global-batch", "128", "--precision", recipes[i], "--json", NULL);
      g_assert_cmpint (run.status, ==, 0);
      o = parse_line (run.out);
      g_assert_cmpstr (json_object_get_string_member (o, "precision"), ==, recipes[i]);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/plan/lecture/days", test_lecture_days);
  g_test_add_func ("/cli/plan/lecture/largest", test_lecture_largest);
  g_test_add_func ("/cli/plan/human-output", test_human_output);
  g_test_add_func ("/cli/plan/sparse-and-price", test_sparse_and_price);
  g_test_add_func ("/cli/plan/deadline", test_deadline);
  g_test_add_func ("/cli/plan/nothing-fits", test_nothing_fits);
  g_test_add_func ("/cli/plan/bad-usage", test_bad_usage);
  g_test_add_func ("/cli/gpus/json", test_gpus);
  g_test_add_func ("/cli/plan/german", test_german);
  g_test_add_func ("/cli/plan/bugs/time-text", test_bug_time_text);
  g_test_add_func ("/cli/plan/bugs/error-flags", test_bug_error_flags);
  g_test_add_func ("/cli/plan/bugs/layout-range", test_bug_layout_range);
  g_test_add_func ("/cli/plan/bugs/default-dtype", test_bug_default_dtype);
  g_test_add_func ("/cli/plan/bugs/checkpointing-linear", test_bug_checkpointing_linear);
  g_test_add_func ("/cli/plan/bugs/deadline-unsatisfiable", test_bug_deadline_unsatisfiable);
  g_test_add_func ("/cli/plan/bugs/deadline-nodes", test_bug_deadline_nodes);
  g_test_add_func ("/cli/plan/bugs/search-terminates", test_bug_search_terminates);
  g_test_add_func ("/cli/plan/issue21/mfu-auto-needs-shape", test_bug_mfu_auto_needs_shape);
  g_test_add_func ("/cli/plan/issue21/zero-sizes", test_bug_zero_sizes);
  g_test_add_func ("/cli/plan/issue21/layout-without-batch", test_bug_layout_without_batch);
  g_test_add_func ("/cli/plan/issue21/gpus-beyond-int", test_bug_gpus_beyond_int);
  g_test_add_func ("/cli/plan/issue21/memory-one-answer", test_bug_memory_one_answer);
  g_test_add_func ("/cli/plan/issue21/best-layout-zero", test_bug_best_layout_zero);
  g_test_add_func ("/cli/plan/issue21/deadline-one-answer", test_bug_deadline_one_answer);
  g_test_add_func ("/cli/plan/issue21/mfu-labels", test_bug_mfu_labels);
  g_test_add_func ("/cli/plan/issue21/checkpointing-recompute", test_bug_checkpointing_recompute);
  g_test_add_func ("/cli/plan/issue21/counts-below-one", test_bug_counts_below_one);
  g_test_add_func ("/cli/plan/issue21/memory-reserve-range", test_bug_memory_reserve_range);
  g_test_add_func ("/cli/plan/issue21/largest-shape-activations", test_bug_largest_shape_activations);
  g_test_add_func ("/cli/plan/issue21/best-layout-too-many-gpus", test_bug_best_layout_too_many_gpus);
  g_test_add_func ("/cli/plan/issue22/moe-json", test_moe_json);
  g_test_add_func ("/cli/plan/issue22/precision-is-recipe", test_precision_is_recipe);

  return g_test_run ();
}
