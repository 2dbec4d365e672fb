/* nk-train-metrics.c: a training step's metrics as JSON (CLI.md's fields) and as CSV rows
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include "nk-json.h"
#include "nk-train-metrics.h"

G_DEFINE_BOXED_TYPE (NkTrainMetrics, nk_train_metrics, nk_train_metrics_copy, nk_train_metrics_free)

/**
 * nk_train_metrics_copy:
 * @metrics: one step's metrics
 *
 * Copies the metrics: a flat struct, so a copy owns all it holds.
 *
 * Returns: (transfer full): the copy; free it with nk_train_metrics_free()
 */
NkTrainMetrics *
nk_train_metrics_copy (const NkTrainMetrics *metrics)
{
  return g_memdup2 (metrics, sizeof *metrics);
}

/**
 * nk_train_metrics_free:
 * @metrics: (nullable): a copy from nk_train_metrics_copy()
 *
 * Frees the copy.
 */
void
nk_train_metrics_free (NkTrainMetrics *metrics)
{
  g_free (metrics);
}

static void
add_count (JsonBuilder *b,
           const char  *name,
           guint64      value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) value);
}

/**
 * nk_train_metrics_build_json:
 * @metrics: one step's metrics
 * @device: the run's device name
 * @builder: where the object goes
 *
 * Adds the step's object of `napkin-cli train --json-lines` (one per step, then
 * nk_train_done_build_json()'s for the end of the run): step, loss, flops,
 * seconds, flops_per_s, peak_flops_per_s, mfu, device and memory (CLI.md), then
 * memory_predicted, the forward/backward/matmul/attention FLOPs, the planner's
 * flops_formula, the phases' seconds, loss_scale and skipped; under mxfp8 or nvfp4
 * also precision, quant_flushed and quant_clipped.
 */
void
nk_train_metrics_build_json (const NkTrainMetrics *metrics,
                             const char           *device,
                             JsonBuilder          *builder)
{
  static const NkBucket buckets[] = {
    NK_BUCKET_PARAMS, NK_BUCKET_GRADS, NK_BUCKET_OPTIMIZER, NK_BUCKET_ACTIVATIONS,
  };
  const NkTrainMetrics *m = metrics;
  JsonBuilder *b = builder;

  json_builder_begin_object (b);
  add_count (b, "step", m->step);
  nk_json_add_member_double (b, "loss", m->loss);
  add_count (b, "flops", m->flops);
  nk_json_add_member_double (b, "seconds", m->seconds);
  nk_json_add_member_double (b, "flops_per_s", m->flops_per_s);
  nk_json_add_member_double (b, "peak_flops_per_s", m->peak_flops_per_s);
  nk_json_add_member_double (b, "mfu", m->mfu);
  json_builder_set_member_name (b, "device");
  json_builder_add_string_value (b, device != NULL ? device : "");
  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (buckets); i++)
    add_count (b, nk_bucket_to_string (buckets[i]), m->memory[buckets[i]]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "memory_predicted");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (buckets); i++)
    nk_json_add_member_double (b, nk_bucket_to_string (buckets[i]), m->predicted[i]);
  json_builder_end_object (b);
  add_count (b, "flops_forward", m->flops_forward);
  add_count (b, "flops_backward", m->flops_backward);
  add_count (b, "flops_matmul", m->flops_matmul);
  add_count (b, "flops_attention", m->flops_attention);
  add_count (b, "flops_norm", m->flops_norm);
  add_count (b, "flops_activation", m->flops_activation);
  add_count (b, "flops_softmax", m->flops_softmax);
  add_count (b, "flops_embedding", m->flops_embedding);
  nk_json_add_member_double (b, "flops_formula", m->flops_formula);
  nk_json_add_member_double (b, "seconds_forward", m->seconds_forward);
  nk_json_add_member_double (b, "seconds_backward", m->seconds_backward);
  nk_json_add_member_double (b, "seconds_optimizer", m->seconds_optimizer);
  nk_json_add_member_double (b, "loss_scale", m->loss_scale);
  json_builder_set_member_name (b, "skipped");
  json_builder_add_boolean_value (b, m->skipped);
  /* The block-scaled recipes say so on every line, with what their quantizer did. */
  if (nk_precision_is_block_scaled (m->precision))
    {
      json_builder_set_member_name (b, "precision");
      json_builder_add_string_value (b, nk_precision_to_string (m->precision));
      nk_json_add_member_double (b, "quant_flushed", m->quant_flushed);
      nk_json_add_member_double (b, "quant_clipped", m->quant_clipped);
    }
  json_builder_end_object (b);
}

/**
 * nk_train_done_build_json:
 * @steps: steps the run has done
 * @final_loss: the last step's loss
 * @builder: where the object goes
 *
 * Adds the closing object: {"done": true, "steps": ..., "final_loss": ...}.
 */
void
nk_train_done_build_json (guint64      steps,
                          double       final_loss,
                          JsonBuilder *builder)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "done");
  json_builder_add_boolean_value (builder, TRUE);
  add_count (builder, "steps", steps);
  nk_json_add_member_double (builder, "final_loss", final_loss);
  json_builder_end_object (builder);
}

/* The CSV's memory columns, in the memory plot's order. */
static const NkBucket csv_buckets[] = {
  NK_BUCKET_PARAMS, NK_BUCKET_GRADS, NK_BUCKET_OPTIMIZER, NK_BUCKET_ACTIVATIONS, NK_BUCKET_DATA,
};

static void
append_csv_double (GString *out,
                   double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_c (out, ',');
  if (isnan (value))
    g_string_append (out, "nan");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "inf" : "-inf");
  else
    g_string_append (out, g_ascii_dtostr (buf, sizeof buf, value));
}

/**
 * nk_train_metrics_append_csv:
 * @metrics: one step's metrics
 * @device: (nullable): the run's device name (%NULL: an empty cell)
 * @out: where the row goes
 *
 * Appends the step's row of the CSV export, newline included; the columns are
 * %NK_TRAIN_CSV_HEADER's.
 */
void
nk_train_metrics_append_csv (const NkTrainMetrics *metrics,
                             const char           *device,
                             GString              *out)
{
  const NkTrainMetrics *m = metrics;

  g_return_if_fail (metrics != NULL);
  g_return_if_fail (out != NULL);

  g_string_append_printf (out, "%" PRIu64, m->step);
  append_csv_double (out, m->loss);
  g_string_append_printf (out, ",%" PRIu64, m->flops);
  append_csv_double (out, m->seconds);
  append_csv_double (out, m->flops_per_s);
  append_csv_double (out, m->peak_flops_per_s);
  append_csv_double (out, m->mfu);
  g_string_append_printf (out, ",%s", device != NULL ? device : "");
  for (guint b = 0; b < G_N_ELEMENTS (csv_buckets); b++)
    g_string_append_printf (out, ",%" PRIu64, m->memory[csv_buckets[b]]);
  g_string_append_printf (out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                          m->flops_forward, m->flops_backward, m->flops_matmul);
  append_csv_double (out, m->seconds_forward);
  append_csv_double (out, m->seconds_backward);
  append_csv_double (out, m->seconds_optimizer);
  append_csv_double (out, m->loss_scale);
  g_string_append_printf (out, ",%d\n", m->skipped ? 1 : 0);
}

/**
 * nk_train_metrics_to_csv:
 * @steps: (array length=n_steps): the steps, in order
 * @n_steps: how many
 * @device: (nullable): the run's device name
 *
 * The steps as the CSV export the app and `napkin-cli train --csv` write.
 *
 * Returns: (transfer full): the CSV export: %NK_TRAIN_CSV_HEADER, then one row per step
 */
char *
nk_train_metrics_to_csv (const NkTrainMetrics *steps,
                         gsize                 n_steps,
                         const char           *device)
{
  GString *out;

  g_return_val_if_fail (steps != NULL || n_steps == 0, NULL);

  out = g_string_new (NK_TRAIN_CSV_HEADER);

  for (gsize i = 0; i < n_steps; i++)
    nk_train_metrics_append_csv (&steps[i], device, out);
  return g_string_free (out, FALSE);
}

/**
 * nk_train_metrics_to_json_lines:
 * @steps: (array length=n_steps): the steps, in order
 * @n_steps: how many
 * @device: (nullable): the run's device name
 *
 * One line per step (nk_train_metrics_build_json()), then the closing line
 * (nk_train_done_build_json() with the last step and its loss; 0 and NaN when
 * there are no steps): what `napkin-cli train --json-lines` prints.
 *
 * Returns: (transfer full): the lines, each ending in a newline
 */
char *
nk_train_metrics_to_json_lines (const NkTrainMetrics *steps,
                                gsize                 n_steps,
                                const char           *device)
{
  GString *out;

  g_return_val_if_fail (steps != NULL || n_steps == 0, NULL);

  out = g_string_new (NULL);

  for (gsize i = 0; i <= n_steps; i++)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *line = NULL;

      if (i < n_steps)
        nk_train_metrics_build_json (&steps[i], device, b);
      else
        nk_train_done_build_json (n_steps > 0 ? steps[n_steps - 1].step : 0,
                                  n_steps > 0 ? steps[n_steps - 1].loss : NAN, b);
      line = nk_json_to_line (b);
      g_string_append (out, line);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/**
 * nk_train_metrics_get_flop_kinds:
 * @metrics: a step's metrics
 * @kinds: (out): the step's FLOPs by #NkFlopKind, as the ops counted them
 *
 * Splits the step's counted FLOPs by kind (the linear kind is the matmuls less
 * attention's).
 *
 * Returns: what no kind holds (residual adds, bias gradients, the loss, casts)
 */
double
nk_train_metrics_get_flop_kinds (const NkTrainMetrics *metrics,
                                 double                kinds[NK_N_FLOP_KINDS])
{
  const NkTrainMetrics *m = metrics;
  double sum = 0;

  kinds[NK_FLOP_KIND_LINEAR] = (double) (m->flops_matmul - m->flops_attention);
  kinds[NK_FLOP_KIND_ATTENTION] = (double) m->flops_attention;
  kinds[NK_FLOP_KIND_NORM] = (double) m->flops_norm;
  kinds[NK_FLOP_KIND_ACTIVATION] = (double) m->flops_activation;
  kinds[NK_FLOP_KIND_SOFTMAX] = (double) m->flops_softmax;
  kinds[NK_FLOP_KIND_EMBEDDING] = (double) m->flops_embedding;
  for (guint i = 0; i < NK_N_FLOP_KINDS; i++)
    sum += kinds[i];
  return (double) m->flops - sum;
}
