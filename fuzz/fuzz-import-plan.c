/* fuzz-import-plan.c: libFuzzer target: any bytes as a plan's JSON, set beside any run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `napkin-cli import --plan` and the Training page's Compare with a Plan… read a
 * JSON file the user picks (nk_import_plan_read) and set it beside an imported run
 * (nk_import_compare). The input is the plan's text, then optionally a NUL and the
 * run: that rest is compared twice, read as a log (as the CLI does), and taken raw
 * as steps of six doubles (NaN, ±inf, denormals, huge values: what no parser
 * prints but a TensorBoard file can hold) under every engine's format, and an
 * empty run too. Each must end in a prediction or a GError, and a comparison
 * whose figures are checked against what this file computes from the same steps.
 * The plan's text is also read as a file (nk_import_plan_load): empty, blank, NUL
 * bytes, control characters, JSON that is not an object all end in one sentence
 * naming the file.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "fuzz-common.h"
#include "nk-import-plan.h"

/* The doubles a raw step is made of, in NkImportStep's order: loss to seconds. */
#define RAW_FIELDS 6
G_STATIC_ASSERT (G_STRUCT_OFFSET (NkImportStep, seconds) - G_STRUCT_OFFSET (NkImportStep, loss)
                 == (RAW_FIELDS - 1) * sizeof (double));

/* A top-level number is found first, so it is read as it is. */
static void
check_top_level (JsonNode   *root,
                 const char *name,
                 double      read)
{
  JsonNode *n;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  n = json_object_get_member (json_node_get_object (root), name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return;
  if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    g_assert (read == json_node_get_double (n) || (isnan (read) && isnan (json_node_get_double (n))));
  else if (json_node_get_value_type (n) == G_TYPE_INT64)
    g_assert (read == (double) json_node_get_int (n));
  else
    g_assert (isnan (read));
}

/* The range the steps after the first (all of them when there is one) span in
 * one field; FALSE when no step has a finite value there. */
static gboolean
field_range (const NkImport *import,
             gsize           offset,
             double         *lo,
             double         *hi)
{
  gboolean any = FALSE;

  *lo = INFINITY;
  *hi = -INFINITY;
  for (guint i = import->steps->len > 1 ? 1 : 0; i < import->steps->len; i++)
    {
      double v = G_STRUCT_MEMBER (double, &g_array_index (import->steps, NkImportStep, i), offset);

      if (!isfinite (v))
        continue;
      *lo = MIN (*lo, v);
      *hi = MAX (*hi, v);
      any = TRUE;
    }
  return any;
}

/* A median lies within the values' range; a peak is their largest. The mean of
 * the two middle values may overflow to ±inf when they are both past half of
 * DBL_MAX, which is allowed here (the ratio is then NAN, not a crash). */
static void
check_measured (const NkImport *import,
                gsize           offset,
                double          scale,
                gboolean        peak,
                double          measured)
{
  double lo, hi;

  if (!field_range (import, offset, &lo, &hi))
    {
      g_assert (isnan (measured));
      return;
    }
  if (peak)
    {
      g_assert (measured == hi * scale);
      return;
    }
  if (isinf (measured) && MAX (fabs (lo), fabs (hi)) > DBL_MAX / 2)
    return;
  g_assert (measured >= lo * scale && measured <= hi * scale);
}

static void
check_comparison (const NkImportPrediction *plan,
                  const NkImport           *import)
{
  NkImportComparison c;
  double farthest = 0, lo, hi;

  nk_import_compare (plan, import, &c);
  g_assert (c.mfu_count != NULL);
  g_assert (strcmp (c.mfu_count, "model") == 0
            || strcmp (c.mfu_count, nk_log_format_to_string (import->format)) == 0);
  check_measured (import, G_STRUCT_OFFSET (NkImportStep, seconds), 1, FALSE, c.measured[NK_IMPORT_Q_SECONDS]);
  /* without tokens/s of its own, a run's tokens/s are its samples/s times the
   * plan's sequence length (DeepSpeed) */
  if (import->format != NK_LOG_FORMAT_TORCHTITAN
      && field_range (import, G_STRUCT_OFFSET (NkImportStep, tokens_per_s), &lo, &hi))
    check_measured (import, G_STRUCT_OFFSET (NkImportStep, tokens_per_s), 1, FALSE,
                    c.measured[NK_IMPORT_Q_TOKENS_PER_S]);
  check_measured (import, G_STRUCT_OFFSET (NkImportStep, mfu), 1, FALSE, c.measured[NK_IMPORT_Q_MFU]);
  check_measured (import, G_STRUCT_OFFSET (NkImportStep, memory_max_bytes), 1, TRUE,
                  c.measured[NK_IMPORT_Q_MEMORY]);
  check_measured (import, G_STRUCT_OFFSET (NkImportStep, tflops_per_gpu), 1e12, FALSE,
                  c.measured[NK_IMPORT_Q_FLOPS]);

  /* Every ratio is a finite number or NAN, and the largest gap is the positive
   * ratio farthest from 1 (none when every positive ratio is exactly 1). */
  g_assert (c.largest >= -1 && c.largest < NK_IMPORT_N_QUANTITIES);
  for (guint q = 0; q < NK_IMPORT_N_QUANTITIES; q++)
    {
      g_assert (isnan (c.ratio[q]) || isfinite (c.ratio[q]));
      if (isfinite (c.ratio[q]) && c.ratio[q] > 0)
        farthest = MAX (farthest, fabs (log (c.ratio[q])));
    }
  if (c.largest >= 0)
    {
      g_assert (isfinite (c.ratio[c.largest]) && c.ratio[c.largest] > 0);
      g_assert (fabs (log (c.ratio[c.largest])) == farthest && farthest > 0);
    }
  else
    g_assert (farthest == 0);
}

/* @data as steps of RAW_FIELDS doubles each (a torn last step is dropped). */
static GArray *
raw_steps (const uint8_t *data,
           size_t         size)
{
  GArray *steps = g_array_new (FALSE, TRUE, sizeof (NkImportStep));

  for (size_t at = 0; at + RAW_FIELDS * sizeof (double) <= size; at += RAW_FIELDS * sizeof (double))
    {
      NkImportStep s = { .step = steps->len };

      memcpy (&s.loss, data + at, RAW_FIELDS * sizeof (double));
      g_array_append_val (steps, s);
    }
  return steps;
}

static void
compare_with_runs (const NkImportPrediction *plan,
                   const uint8_t            *run,
                   size_t                    size)
{
  g_autoptr(GArray) raw = raw_steps (run, size);
  g_autoptr(GArray) none = g_array_new (FALSE, TRUE, sizeof (NkImportStep));
  g_autoptr(GError) error = NULL;
  g_autoptr(NkImport) log = nk_log_import_text ((const char *) run, size, NK_LOG_FORMAT_AUTO, &error);

  g_assert ((log == NULL) != (error == NULL));
  if (log != NULL)
    check_comparison (plan, log);
  for (NkLogFormat f = NK_LOG_FORMAT_AUTO; f <= NK_LOG_FORMAT_TENSORBOARD; f++)
    {
      NkImport with_raw = { .format = f, .steps = raw };
      NkImport with_none = { .format = f, .steps = none };

      check_comparison (plan, &with_raw);
      check_comparison (plan, &with_none);
    }
}

/* The same text as a file, as `import --plan` reads it: a prediction, or one
 * sentence naming the file (no json-glib critical, which fuzz-common.h makes a
 * crash: a 0-byte file used to raise one, then crash). A file that loads reads as
 * its JSON does. */
static void
check_load (const char *text,
            size_t      size)
{
  static char *path;
  g_autoptr(GError) error = NULL;
  NkImportPrediction loaded, read;
  gboolean ok;

  /* dtype's bytes after its NUL are left as they were: the same on both sides */
  memset (&loaded, 0, sizeof loaded);
  memset (&read, 0, sizeof read);
  if (path == NULL)
    path = g_strdup_printf ("%s/fuzz-import-plan-%d.json", g_get_tmp_dir (), (int) getpid ());
  g_assert (g_file_set_contents (path, text != NULL ? text : "", (gssize) size, NULL));
  ok = nk_import_plan_load (path, &loaded, &error);
  g_unlink (path);
  g_assert (ok == (error == NULL));
  if (!ok)
    {
      g_assert (strstr (error->message, path) != NULL);
      g_assert (strchr (error->message, '\n') == NULL);
      return;
    }
  {
    g_autoptr(JsonParser) parser = json_parser_new ();

    g_assert (json_parser_load_from_data (parser, text, (gssize) size, NULL));
    g_assert (nk_import_plan_read (json_parser_get_root (parser), &read, NULL));
    g_assert (memcmp (&loaded, &read, sizeof read) == 0);
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const uint8_t *nul = memchr (data, '\0', size);
  size_t plan_size = nul != NULL ? (size_t) (nul - data) : size;
  /* Private copies, so ASan sees reads past the end as overflows. */
  g_autofree char *text = g_memdup2 (data, plan_size);
  g_autofree uint8_t *run = nul != NULL ? g_memdup2 (nul + 1, size - plan_size - 1) : NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  NkImportPrediction plan;
  JsonNode *root;
  gboolean ok;

  check_load (text, plan_size);
  /* An empty file is read as "" (json-glib wants a string, g_memdup2 gave NULL). */
  if (!json_parser_load_from_data (parser, text != NULL ? text : "", plan_size, NULL))
    return 0;
  root = json_parser_get_root (parser);
  ok = nk_import_plan_read (root, &plan, &error);
  g_assert (ok == (error == NULL));
  if (!ok)
    return 0;
  g_assert (!isnan (plan.seconds) || !isnan (plan.tokens_per_s) || !isnan (plan.mfu)
            || !isnan (plan.memory_max_bytes));
  check_top_level (root, "tokens_per_s", plan.tokens_per_s);
  check_top_level (root, "mfu_model", plan.mfu);
  check_top_level (root, "mfu_hardware", plan.mfu_hardware);
  check_top_level (root, "peak_flops_per_gpu", plan.peak);
  compare_with_runs (&plan, run, nul != NULL ? size - plan_size - 1 : 0);
  return 0;
}
