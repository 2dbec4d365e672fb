/* test-cli-train-block.c: `napkin-cli train --precision mxfp8|nvfp4 [--mx-scale]` (CLI.md)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: CLI.md's contract (each line carries `precision`; the Cruncher and a GPU
 * are refused with exit 2), the definitions of the scale rules (under "up" nothing
 * clips; under "floor" a block clips when its largest value's significand is above
 * 1.75, so some do), and an uninterrupted run: a run resumed from its checkpoint
 * must repeat its losses bit for bit, stochastic rounding included. The products
 * themselves are checked against a float64 reference in tests/engine/test-block-train.
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-test-util.h"

static char *tmpdir;

/* A GPT small enough for a few steps in a second or two. */
#define TINY_GPT "--model", "gpt", "--n-layer", "1", "--n-head", "2", "--n-embd", "32", \
                 "--block-size", "16", "--batch", "4", "--seed", "3"

static GPtrArray *
step_lines (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;

      if (lines[i][0] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      if (!json_object_has_member (o, "done"))
        g_ptr_array_add (objects, json_object_ref (o));
    }
  return objects;
}

static GPtrArray *
train_lines (const char *const *args)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = nk_test_cli ("train", args, &out, &err);

  if (status != 0)
    g_error ("napkin-cli train exited %d: %s", status, err);
  return step_lines (out);
}

/* Each line says the recipe and what its quantizer did; floor clips, up does not. */
static void
test_lines (void)
{
  static const struct { const char *precision, *rule; } runs[] = {
    { "mxfp8", "up" }, { "mxfp8", "floor" }, { "nvfp4", NULL }, { "bf16-mixed", NULL },
  };
  double first_loss[G_N_ELEMENTS (runs)];

  for (guint r = 0; r < G_N_ELEMENTS (runs); r++)
    {
      const char *args[] = { TINY_GPT, "--steps", "3", "--json-lines", "--precision",
                             runs[r].precision, runs[r].rule ? "--mx-scale" : NULL, runs[r].rule, NULL };
      g_autoptr(GPtrArray) lines = train_lines (args);
      gboolean quantized = strcmp (runs[r].precision, "bf16-mixed") != 0;
      double clipped = 0.0, flushed = 0.0;

      g_assert_cmpuint (lines->len, ==, 3);
      for (guint i = 0; i < lines->len; i++)
        {
          JsonObject *o = g_ptr_array_index (lines, i);

          g_assert_true (isfinite (json_object_get_double_member (o, "loss")));
          g_assert_cmpint (json_object_has_member (o, "precision"), ==, quantized);
          if (!quantized)
            continue;
          g_assert_cmpstr (json_object_get_string_member (o, "precision"), ==, runs[r].precision);
          flushed += json_object_get_double_member (o, "quant_flushed");
          clipped += json_object_get_double_member (o, "quant_clipped");
          g_assert_cmpfloat (json_object_get_double_member (o, "quant_flushed"), >=, 0.0);
          g_assert_cmpfloat (json_object_get_double_member (o, "quant_flushed"), <=, 1.0);
        }
      first_loss[r] = json_object_get_double_member (g_ptr_array_index (lines, 0), "loss");
      g_test_message ("%s %s: loss %.6f, flushed %.3g, clipped %.3g", runs[r].precision,
                      runs[r].rule ? runs[r].rule : "", first_loss[r], flushed / 3, clipped / 3);
      if (runs[r].rule != NULL && strcmp (runs[r].rule, "up") == 0)
        g_assert_cmpfloat (clipped, ==, 0.0);
      if (runs[r].rule != NULL && strcmp (runs[r].rule, "floor") == 0)
        g_assert_cmpfloat (clipped, >, 0.0);
      if (runs[r].precision[0] == 'n')
        g_assert_cmpfloat (flushed, >, 0.0);
    }
  /* The same weights and batch: the recipes' first losses differ from bf16-mixed's. */
  for (guint r = 0; r + 1 < G_N_ELEMENTS (runs); r++)
    g_assert_cmpfloat (first_loss[r], !=, first_loss[G_N_ELEMENTS (runs) - 1]);
}

static void
assert_refused (const char *const *args,
                const char        *phrase)
{
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (nk_test_cli ("train", args, &out, &err), ==, 2);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, phrase));
}

static void
test_refusals (void)
{
  const char *cruncher[] = { "--model", "cruncher", "--precision", "mxfp8", NULL };
  const char *rule_alone[] = { TINY_GPT, "--mx-scale", "floor", NULL };
  const char *bad_rule[] = { TINY_GPT, "--precision", "mxfp8", "--mx-scale", "down", NULL };
  const char *bad_rounding[] = { TINY_GPT, "--precision", "nvfp4", "--nvfp4-rounding", "up", NULL };
  const char *bad_precision[] = { TINY_GPT, "--precision", "mxfp4", NULL };

  assert_refused (cruncher, "GPT only");
  assert_refused (rule_alone, "--mx-scale");
  assert_refused (bad_rule, "--mx-scale");
  assert_refused (bad_rounding, "--nvfp4-rounding");
  assert_refused (bad_precision, "nvfp4");
}

/* Killed after step 2 and resumed, an nvfp4 run (stochastic rounding) and an mxfp8
 * floor run end on the uninterrupted run's losses, bit for bit; a resume that
 * changes the rule or the rounding is refused, naming it. */
static void
test_resume_identical (void)
{
  static const char *recipes[][2] = { { "nvfp4", NULL }, { "mxfp8", "floor" } };

  for (guint r = 0; r < G_N_ELEMENTS (recipes); r++)
    {
      g_autofree char *whole = g_build_filename (tmpdir, r ? "whole-mx" : "whole-nv", NULL);
      g_autofree char *part = g_build_filename (tmpdir, r ? "part-mx" : "part-nv", NULL);
      const char *flag = recipes[r][1] ? "--mx-scale" : NULL;
      const char *a[] = { TINY_GPT, "--steps", "4", "--json-lines", "--checkpoint-dir", whole,
                          "--precision", recipes[r][0], flag, recipes[r][1], NULL };
      const char *b[] = { TINY_GPT, "--steps", "2", "--json-lines", "--checkpoint-dir", part,
                          "--precision", recipes[r][0], flag, recipes[r][1], NULL };
      const char *c[] = { TINY_GPT, "--steps", "4", "--json-lines", "--resume", part,
                          "--precision", recipes[r][0], flag, recipes[r][1], NULL };
      const char *changed[] = { TINY_GPT, "--steps", "4", "--json-lines", "--resume", part,
                                "--precision", recipes[r][0],
                                r ? "--mx-scale" : "--nvfp4-rounding", r ? "up" : "nearest", NULL };
      g_autoptr(GPtrArray) la = train_lines (a);
      g_autoptr(GPtrArray) lb = train_lines (b);
      g_autoptr(GPtrArray) lc = NULL;
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpuint (la->len, ==, 4);
      g_assert_cmpuint (lb->len, ==, 2);
      g_assert_cmpint (nk_test_cli ("train", changed, &out, &err), ==, 1);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, r ? "mx_scale (floor → up)" : "nvfp4_rounding (stochastic → nearest)"));

      lc = train_lines (c);
      g_assert_cmpuint (lc->len, ==, 2);
      for (guint i = 0; i < 2; i++)
        {
          double whole_loss = json_object_get_double_member (g_ptr_array_index (la, i + 2), "loss");
          double resumed = json_object_get_double_member (g_ptr_array_index (lc, i), "loss");

          g_test_message ("%s step %u: %.17g / %.17g", recipes[r][0], i + 3, whole_loss, resumed);
          g_assert_true (memcmp (&whole_loss, &resumed, sizeof (double)) == 0);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = nk_test_make_temp_dir ("napkin-train-block");
  g_test_add_func ("/cli/train-block/lines", test_lines);
  g_test_add_func ("/cli/train-block/refusals", test_refusals);
  g_test_add_func ("/cli/train-block/resume-identical", test_resume_identical);
  status = g_test_run ();
  nk_test_remove_tree (tmpdir);
  return status;
}
