/* nk-import-plan.c: a plan's prediction beside an imported run's measurement
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>

#include "nk-file-util.h"
#include "nk-json.h"
#include "nk-import-plan.h"

static const char *const quantity_names[NK_IMPORT_N_QUANTITIES] = {
  [NK_IMPORT_Q_SECONDS] = "seconds",
  [NK_IMPORT_Q_TOKENS_PER_S] = "tokens_per_s",
  [NK_IMPORT_Q_MFU] = "mfu",
  [NK_IMPORT_Q_MEMORY] = "memory_max_bytes",
  [NK_IMPORT_Q_FLOPS] = "flops_per_gpu",
};

/**
 * nk_import_quantity_name:
 * @quantity: a compared quantity
 *
 * The quantity's name in `napkin-cli import --plan --json`.
 *
 * Returns: (transfer none): "seconds", "tokens_per_s", "mfu", "memory_max_bytes" or
 *   "flops_per_gpu"
 */
const char *
nk_import_quantity_name (NkImportQuantity quantity)
{
  g_return_val_if_fail (quantity < NK_IMPORT_N_QUANTITIES, NULL);
  return quantity_names[quantity];
}

/* The first member named @name in @node, depth first: the fields may sit at the
 * top level or inside an object of the plan. */
static JsonNode *
find_member (JsonNode   *node,
             const char *name,
             int         depth)
{
  JsonObject *o;
  g_autoptr(GList) members = NULL;

  if (node == NULL || depth > 8 || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  o = json_node_get_object (node);
  if (json_object_has_member (o, name))
    return json_object_get_member (o, name);
  members = json_object_get_members (o);
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *hit = find_member (json_object_get_member (o, l->data), name, depth + 1);

      if (hit != NULL)
        return hit;
    }
  return NULL;
}

static double
number_at (JsonNode   *root,
           const char *outer,
           const char *inner)
{
  JsonNode *n = find_member (root, outer, 0);

  if (n != NULL && inner != NULL)
    n = JSON_NODE_HOLDS_OBJECT (n) ? json_object_get_member (json_node_get_object (n), inner) : NULL;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  if (json_node_get_value_type (n) != G_TYPE_DOUBLE && json_node_get_value_type (n) != G_TYPE_INT64)
    return NAN;
  return json_node_get_double (n);
}

typedef enum {
  PLAN_OK,
  PLAN_NOT_OBJECT,
  PLAN_NO_STEP,        /* a plan without a layout: days and memory, no step */
  PLAN_NOT_A_PLAN,
} PlanProblem;

static PlanProblem
plan_problem (JsonNode                 *root,
              const NkImportPrediction *p)
{
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return PLAN_NOT_OBJECT;
  if (!isnan (p->seconds) || !isnan (p->tokens_per_s) || !isnan (p->mfu) || !isnan (p->memory_max_bytes))
    return PLAN_OK;
  /* what every `napkin-cli plan --json` writes, with a layout or not */
  if (json_object_has_member (json_node_get_object (root), "total_flops")
      && json_object_has_member (json_node_get_object (root), "days"))
    return PLAN_NO_STEP;
  return PLAN_NOT_A_PLAN;
}

static void
read_prediction (JsonNode           *root,
                 NkImportPrediction *out)
{
  JsonNode *dtype = find_member (root, "dtype", 0);

  out->seconds = number_at (root, "time_per_step", "total");
  out->tokens_per_s = number_at (root, "tokens_per_s", NULL);
  out->mfu = number_at (root, "mfu_model", NULL);
  out->memory_max_bytes = number_at (root, "memory", "per_gpu_max");
  out->gpus = number_at (root, "layout", "dp") * number_at (root, "layout", "tp")
              * number_at (root, "layout", "pp") * number_at (root, "layout", "cp");
  out->mfu_torchtitan = number_at (root, "mfu_by_engine", "torchtitan");
  out->mfu_nanogpt = number_at (root, "mfu_by_engine", "nanogpt");
  out->mfu_llmc = number_at (root, "mfu_by_engine", "llmc");
  out->mfu_hardware = number_at (root, "mfu_hardware", NULL);
  out->peak = number_at (root, "peak_flops_per_gpu", NULL);
  out->seq = number_at (root, "layout", "tokens_per_step") / number_at (root, "layout", "global_batch");
  out->target_tokens = number_at (root, "layout", "tokens_per_step") * number_at (root, "layout", "steps");
  g_strlcpy (out->dtype, dtype != NULL && JSON_NODE_HOLDS_VALUE (dtype)
                         && json_node_get_value_type (dtype) == G_TYPE_STRING
                         ? json_node_get_string (dtype) : "", sizeof out->dtype);
}

/**
 * nk_import_plan_read:
 * @root: a plan's JSON
 * @out: (out caller-allocates): its prediction
 * @error: when @root is no plan, or a plan that predicts no step
 *
 * Reads CLI.md's `time_per_step.total`, `tokens_per_s`, `mfu_model`,
 * `memory.per_gpu_max` and the layout's GPUs.
 *
 * Returns: %FALSE when none of the predicted fields is there
 */
gboolean
nk_import_plan_read (JsonNode            *root,
                     NkImportPrediction  *out,
                     GError             **error)
{
  g_return_val_if_fail (out != NULL, FALSE);

  read_prediction (root, out);
  switch (plan_problem (root, out))
    {
    case PLAN_OK:
      return TRUE;
    case PLAN_NOT_OBJECT:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("This JSON is not an object; “napkin-cli plan --json” writes one object."));
      return FALSE;
    case PLAN_NO_STEP:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("This plan predicts no step: it was made without a layout (plan again with the model's shape and --global-batch)."));
      return FALSE;
    case PLAN_NOT_A_PLAN:
    default:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("This is not a plan from “napkin-cli plan --json” (no time_per_step, tokens_per_s, mfu_model or memory)."));
      return FALSE;
    }
}

static gboolean
is_blank (const char *text,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isspace (text[i]))
      return FALSE;
  return TRUE;
}

/**
 * nk_import_plan_load:
 * @path: a plan's JSON file
 * @out: (out caller-allocates): its prediction
 * @error: one sentence naming the file: not a regular file, larger than
 *   %NK_IMPORT_PLAN_MAX_BYTES, empty, not JSON, not an object, or no plan
 *
 * Reads a plan file, as nk_import_plan_read() its JSON.
 *
 * Returns: %FALSE when the file cannot be read or is no plan
 */
gboolean
nk_import_plan_load (const char          *path,
                     NkImportPrediction  *out,
                     GError             **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;
  gsize len = 0;
  JsonNode *root;

  g_return_val_if_fail (path != NULL, FALSE);

  /* the reader's own sentence names the file (a FIFO, /dev/null, a folder) */
  if (!nk_file_read_regular (path, NK_IMPORT_PLAN_MAX_BYTES, &text, &len, error))
    return FALSE;
  name = g_filename_display_name (path);
  if (is_blank (text, len))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The plan “%s” is empty: write one with “napkin-cli plan --json”."), name);
      return FALSE;
    }
  if (!nk_json_parser_load (parser, text, (gssize) len, &local))
    {
      /* json-glib quotes the bad token, control characters and all: one line here */
      for (char *c = local->message; *c != '\0'; c++)
        if ((guchar) *c < 0x20)
          *c = ' ';
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The plan “%s” is not JSON (%s)."), name, local->message);
      return FALSE;
    }
  root = json_parser_get_root (parser);
  read_prediction (root, out);
  switch (plan_problem (root, out))
    {
    case PLAN_OK:
      return TRUE;
    case PLAN_NOT_OBJECT:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The plan “%s” is JSON but not an object; “napkin-cli plan --json” writes one object."),
                   name);
      return FALSE;
    case PLAN_NO_STEP:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The plan “%s” predicts no step: it was made without a layout (plan again with the model's shape and --global-batch)."),
                   name);
      return FALSE;
    case PLAN_NOT_A_PLAN:
    default:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The plan “%s” is not from “napkin-cli plan --json”: it has no time_per_step, tokens_per_s, mfu_model or memory."),
                   name);
      return FALSE;
    }
}

/**
 * nk_import_prediction_get_mfu:
 * @prediction: a plan's prediction
 * @format: the log's engine
 * @count: (out) (optional) (transfer none): whose FLOP count: the engine's name, or
 *   "model"
 *
 * Chooses the plan's MFU to set beside a log's: each engine counts a step's FLOPs
 * its own way, so the plan's figure on that engine's count (`mfu_by_engine`) is the
 * one that compares.
 *
 * Returns: the plan's MFU on the engine's own FLOP count where the plan has it,
 *   else the plan's model MFU
 */
double
nk_import_prediction_get_mfu (const NkImportPrediction *prediction,
                              NkLogFormat               format,
                              const char              **count)
{
  double own = format == NK_LOG_FORMAT_TORCHTITAN ? prediction->mfu_torchtitan
               : format == NK_LOG_FORMAT_NANOGPT ? prediction->mfu_nanogpt
               : format == NK_LOG_FORMAT_LLMC ? prediction->mfu_llmc : NAN;
  gboolean engine = isfinite (own) && own > 0;

  if (count != NULL)
    *count = engine ? nk_log_format_to_string (format) : "model";
  return engine ? own : prediction->mfu;
}

/* The plan's job-wide tokens per second, NAN where it has none that can be
 * divided by. */
static double
plan_rate (const NkImportPrediction *prediction)
{
  double rate = prediction->tokens_per_s;

  return isfinite (rate) && rate > 0 ? rate : NAN;
}

/**
 * nk_import_prediction_tokens_after:
 * @prediction: a plan's prediction
 * @seconds: wall time since the run's first step, in seconds
 *
 * Where the plan says a run should be after @seconds: its tokens per second
 * times the time, a straight line from the origin (the plan has no warm-up).
 *
 * Returns: the tokens the whole job has seen at @seconds, or NAN when the plan
 *   predicts no throughput or @seconds is not a time
 */
double
nk_import_prediction_tokens_after (const NkImportPrediction *prediction,
                                   double                    seconds)
{
  g_return_val_if_fail (prediction != NULL, NAN);

  if (!isfinite (seconds) || seconds < 0)
    return NAN;
  return plan_rate (prediction) * seconds;
}

/**
 * nk_import_prediction_seconds_for_tokens:
 * @prediction: a plan's prediction
 * @tokens: tokens the whole job has seen
 *
 * When the plan says a run reaches @tokens: @tokens over its tokens per second.
 * Set beside the time a run took to see @tokens, it says how far ahead of or
 * behind its plan the run is.
 *
 * Returns: the time in seconds, or NAN when the plan predicts no throughput or
 *   @tokens is not a count
 */
double
nk_import_prediction_seconds_for_tokens (const NkImportPrediction *prediction,
                                         double                    tokens)
{
  g_return_val_if_fail (prediction != NULL, NAN);

  if (!isfinite (tokens) || tokens < 0)
    return NAN;
  return tokens / plan_rate (prediction);
}

/**
 * nk_import_prediction_get_target_seconds:
 * @prediction: a plan's prediction
 *
 * The plan's time to the run's token target (#NkImportPrediction.target_tokens),
 * at its tokens per second: nk_import_prediction_seconds_for_tokens() of the
 * target.
 *
 * Returns: the time in seconds, or NAN when the plan has no target or no
 *   throughput
 */
double
nk_import_prediction_get_target_seconds (const NkImportPrediction *prediction)
{
  g_return_val_if_fail (prediction != NULL, NAN);

  if (!isfinite (prediction->target_tokens) || prediction->target_tokens <= 0)
    return NAN;
  return nk_import_prediction_seconds_for_tokens (prediction, prediction->target_tokens);
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The median of a field over the steps after the first (NAN when none has it);
 * the maximum when @peak. */
static double
measured (const NkImport *import,
          gsize           offset,
          gboolean        peak)
{
  g_autofree double *values = g_new (double, MAX (import->steps->len, 1));
  guint n = 0;

  for (guint i = import->steps->len > 1 ? 1 : 0; i < import->steps->len; i++)
    {
      double v = G_STRUCT_MEMBER (double, &g_array_index (import->steps, NkImportStep, i), offset);

      if (isfinite (v))
        values[n++] = v;
    }
  if (n == 0)
    return NAN;
  qsort (values, n, sizeof *values, compare_doubles);
  return peak ? values[n - 1] : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/**
 * nk_import_compare:
 * @prediction: a plan's prediction
 * @import: an imported run
 * @out: (out caller-allocates): the comparison
 *
 * Sets the run's typical step beside the plan. torchtitan prints tokens per
 * second per GPU; with the plan's GPU count they become the job's, as the plan
 * counts them.
 */
void
nk_import_compare (const NkImportPrediction *prediction,
                   const NkImport           *import,
                   NkImportComparison       *out)
{
  double farthest = 0;

  g_return_if_fail (prediction != NULL && import != NULL && out != NULL);

  out->predicted[NK_IMPORT_Q_SECONDS] = prediction->seconds;
  out->predicted[NK_IMPORT_Q_TOKENS_PER_S] = prediction->tokens_per_s;
  out->predicted[NK_IMPORT_Q_MFU] = nk_import_prediction_get_mfu (prediction, import->format, &out->mfu_count);
  out->predicted[NK_IMPORT_Q_MEMORY] = prediction->memory_max_bytes;
  out->measured[NK_IMPORT_Q_SECONDS] = measured (import, G_STRUCT_OFFSET (NkImportStep, seconds), FALSE);
  out->measured[NK_IMPORT_Q_TOKENS_PER_S] = measured (import, G_STRUCT_OFFSET (NkImportStep, tokens_per_s), FALSE);
  if (import->format == NK_LOG_FORMAT_TORCHTITAN)
    out->measured[NK_IMPORT_Q_TOKENS_PER_S] *= prediction->gpus;
  /* DeepSpeed counts sequences per second; the plan knows their length */
  if (isnan (out->measured[NK_IMPORT_Q_TOKENS_PER_S]))
    out->measured[NK_IMPORT_Q_TOKENS_PER_S] = measured (import, G_STRUCT_OFFSET (NkImportStep, samples_per_s), FALSE)
                                              * prediction->seq;
  out->measured[NK_IMPORT_Q_MFU] = measured (import, G_STRUCT_OFFSET (NkImportStep, mfu), FALSE);
  out->measured[NK_IMPORT_Q_MEMORY] = measured (import, G_STRUCT_OFFSET (NkImportStep, memory_max_bytes), TRUE);
  /* FLOP/s per GPU as the log counts them: on its engine's own count, and
   * Megatron-LM's with the recompute */
  out->predicted[NK_IMPORT_Q_FLOPS] = (import->format == NK_LOG_FORMAT_MEGATRON ? prediction->mfu_hardware
                                       : out->predicted[NK_IMPORT_Q_MFU]) * prediction->peak;
  out->measured[NK_IMPORT_Q_FLOPS] = measured (import, G_STRUCT_OFFSET (NkImportStep, tflops_per_gpu), FALSE) * 1e12;
  out->largest = -1;
  for (guint q = 0; q < NK_IMPORT_N_QUANTITIES; q++)
    {
      out->ratio[q] = out->measured[q] / out->predicted[q];
      if (isfinite (out->ratio[q]) && out->ratio[q] > 0 && fabs (log (out->ratio[q])) > farthest)
        {
          farthest = fabs (log (out->ratio[q]));
          out->largest = (int) q;
        }
      else if (!isfinite (out->ratio[q]))
        out->ratio[q] = NAN;
    }
}
