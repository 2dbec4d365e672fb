/* nk-trainer.c: one toy training run on a worker thread, with honest accounting
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "nk-autograd.h"
#include "nk-checkpoint.h"
#include "nk-cpuinfo.h"
#include "nk-data.h"
#include "nk-gpus.h"
#include "nk-json.h"
#include "nk-ops.h"
#include "nk-optim.h"
#include "nk-safetensors.h"
#include "nk-plan.h"
#include "nk-trainer.h"

G_DEFINE_QUARK (nk-trainer-error-quark, nk_trainer_error)

/* fp16 loss scaling: torch.cuda.amp.GradScaler's defaults. */
#define LOSS_SCALE_INIT     65536.0
#define LOSS_SCALE_GROWTH   2000

/* ---- config ---------------------------------------------------------------------- */

NkTrainConfig *
nk_train_config_new (void)
{
  NkTrainConfig *config = g_new0 (NkTrainConfig, 1);

  config->model = NK_MODEL_CRUNCHER;
  config->dim = 64;
  config->layers = 2;
  config->batch = 8;
  config->context = 32;
  config->steps = 100;
  config->lr = 0.01;
  config->optimizer = NK_OPTIMIZER_ADAMW;
  config->device = g_strdup ("cpu");
  config->precision = NK_PRECISION_FP32;
  config->init_kind = NK_INIT_TRUNC_NORMAL;
  config->checkpoint_keep = 3;
  config->history_limit = 10000;
  config->loss_scale_init = LOSS_SCALE_INIT;
  return config;
}

NkTrainConfig *
nk_train_config_copy (const NkTrainConfig *config)
{
  NkTrainConfig *copy = g_memdup2 (config, sizeof *config);

  copy->device = g_strdup (config->device);
  copy->init_file = g_strdup (config->init_file);
  copy->inputs = g_strdup (config->inputs);
  copy->targets = g_strdup (config->targets);
  copy->text_file = g_strdup (config->text_file);
  copy->checkpoint_dir = g_strdup (config->checkpoint_dir);
  copy->resume_dir = g_strdup (config->resume_dir);
  return copy;
}

void
nk_train_config_free (NkTrainConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->device);
  g_free (config->init_file);
  g_free (config->inputs);
  g_free (config->targets);
  g_free (config->text_file);
  g_free (config->checkpoint_dir);
  g_free (config->resume_dir);
  g_free (config);
}

G_DEFINE_BOXED_TYPE (NkTrainConfig, nk_train_config, nk_train_config_copy, nk_train_config_free)

gboolean
nk_train_config_validate (const NkTrainConfig  *config,
                          GError              **error)
{
  g_return_val_if_fail (config != NULL, FALSE);

  if (!(config->lr > 0.0) || !isfinite (config->lr))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The learning rate --lr must be a positive number, not %g."), config->lr);
      return FALSE;
    }
  if (config->dim == 0 || config->dim > 65536)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--dim must be between 1 and 65536, not %u."), config->dim);
      return FALSE;
    }
  if (config->layers > 4096)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--layers must be at most 4096, not %u."), config->layers);
      return FALSE;
    }
  if (config->batch == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--batch must be at least 1."));
      return FALSE;
    }
  if (config->steps == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--steps must be at least 1."));
      return FALSE;
    }
  if (config->model == NK_MODEL_TINY_LM && config->context == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The context length must be at least 1 token."));
      return FALSE;
    }
  if ((config->inputs == NULL) != (config->targets == NULL))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--inputs and --targets go together: give both or neither."));
      return FALSE;
    }
  if (config->precision == NK_PRECISION_FP16_MIXED
      && (!(config->loss_scale_init > 0.0) || !isfinite (config->loss_scale_init)))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The initial loss scale must be a positive number, not %g."),
                   config->loss_scale_init);
      return FALSE;
    }
  if (config->checkpoint_every > 0 && config->checkpoint_dir == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--checkpoint-every needs --checkpoint-dir."));
      return FALSE;
    }
  return TRUE;
}

char *
nk_train_config_to_json (const NkTrainConfig *config)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, nk_model_kind_to_string (config->model));
  json_builder_set_member_name (b, "dim");
  json_builder_add_int_value (b, config->dim);
  json_builder_set_member_name (b, "layers");
  json_builder_add_int_value (b, config->layers);
  json_builder_set_member_name (b, "batch");
  json_builder_add_int_value (b, config->batch);
  if (config->model == NK_MODEL_TINY_LM)
    {
      json_builder_set_member_name (b, "context");
      json_builder_add_int_value (b, config->context);
    }
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, (gint64) config->steps);
  json_builder_set_member_name (b, "lr");
  json_builder_add_double_value (b, config->lr);
  json_builder_set_member_name (b, "optimizer");
  json_builder_add_string_value (b, nk_optimizer_to_string (config->optimizer));
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) config->seed);
  json_builder_set_member_name (b, "precision");
  json_builder_add_string_value (b, nk_precision_to_string (config->precision));
  json_builder_set_member_name (b, "init");
  json_builder_add_string_value (b, nk_init_kind_to_string (config->init_kind));
  /* The data and starting weights make a run as much as the numbers above do: two
   * runs that differ only here must not take each other's checkpoints for their own. */
  {
    const struct { const char *name; const char *value; } files[] = {
      { "init_file", config->init_file }, { "inputs", config->inputs },
      { "targets", config->targets }, { "text", config->text_file },
    };

    for (guint i = 0; i < G_N_ELEMENTS (files); i++)
      if (files[i].value != NULL)
        {
          json_builder_set_member_name (b, files[i].name);
          json_builder_add_string_value (b, files[i].value);
        }
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

/* The tiny LM reads bytes. */
#define LM_VOCAB 256

guint64
nk_train_config_count_parameters (const NkTrainConfig *config)
{
  g_return_val_if_fail (config != NULL, 0);
  return nk_model_kind_count_parameters (config->model, LM_VOCAB, config->dim, config->layers);
}

char **
nk_train_config_dup_param_names (const NkTrainConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);
  return nk_model_kind_param_names (config->model, config->layers);
}

static NkDType
compute_dtype (NkPrecision precision)
{
  return precision == NK_PRECISION_BF16_MIXED ? NK_DTYPE_BF16
         : precision == NK_PRECISION_FP16_MIXED ? NK_DTYPE_F16 : NK_DTYPE_F32;
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
 * Adds the step's object: step, loss, flops, seconds, flops_per_s,
 * peak_flops_per_s, mfu, device and memory (CLI.md), then memory_predicted,
 * the forward/backward/matmul FLOPs and seconds, loss_scale and skipped.
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
  nk_json_add_member_double (b, "seconds_forward", m->seconds_forward);
  nk_json_add_member_double (b, "seconds_backward", m->seconds_backward);
  nk_json_add_member_double (b, "seconds_optimizer", m->seconds_optimizer);
  nk_json_add_member_double (b, "loss_scale", m->loss_scale);
  json_builder_set_member_name (b, "skipped");
  json_builder_add_boolean_value (b, m->skipped);
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

/**
 * nk_train_config_predict:
 * @config: a run's config
 * @gemm_rate: the device's measured matmul rate in FLOP/s (NAN when not known)
 * @out: (out caller-allocates): the prediction
 *
 * The trainer predicts its #NkTrainMetrics.predicted bytes with this very function,
 * so the card before a run and the dashed lines during it agree.
 */
void
nk_train_config_predict (const NkTrainConfig *config,
                         double               gemm_rate,
                         NkTrainPrediction   *out)
{
  g_autoptr(NkPlan) plan = nk_plan_new ();
  double seq;

  g_return_if_fail (config != NULL);
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  seq = config->model == NK_MODEL_TINY_LM ? config->context : 1;
  out->n_parameters = nk_train_config_count_parameters (config);
  out->tokens_per_step = (double) config->batch * seq;

  nk_plan_set_params (plan, (double) out->n_parameters);
  nk_plan_set_tokens (plan, out->tokens_per_step);
  nk_plan_set_optimizer (plan, config->optimizer);
  nk_plan_set_precision (plan, NK_PRECISION_FP32);
  g_object_set (plan, "batch", (double) config->batch, "seq", seq,
                "layers", (double) MAX (config->layers, 1), "d-model", (double) config->dim, NULL);
  out->flops_per_step = nk_plan_get_output (plan, "total-flops");
  /* The master weights, their grads and the optimizer state stay fp32 in every
   * precision (the narrow weight copies are per-step temporaries), so nk-plan's fp32
   * column is exact for them. Activations are counted per tensor the model keeps
   * (nk_model_activation_bytes()): for the fp32 Cruncher that is nk-plan's linear
   * formula plus B·8 + 4 bytes; under bf16/fp16 it adds layer 0's rounded input, and
   * the tiny LM is no linear model at all. */
  out->memory[0] = nk_plan_get_output (plan, "memory-params");
  out->memory[1] = nk_plan_get_output (plan, "memory-grads");
  out->memory[2] = nk_plan_get_output (plan, "memory-optimizer");
  out->memory[3] = (double) nk_model_kind_activation_bytes (config->model, LM_VOCAB, config->dim,
                                                            config->layers, NK_DTYPE_F32,
                                                            (guint64) config->batch * (guint64) seq,
                                                            compute_dtype (config->precision));
  out->memory_total = out->memory[0] + out->memory[1] + out->memory[2] + out->memory[3];
  out->gemm_rate = isfinite (gemm_rate) && gemm_rate > 0 ? gemm_rate : NAN;
  out->seconds_per_step = out->flops_per_step / out->gemm_rate;
}

/* ---- the measured matmul rate ------------------------------------------------------ */

typedef struct {
  double  rate;
  char   *reason;
} GemmRate;

static void
gemm_rate_free (gpointer data)
{
  GemmRate *r = data;

  g_free (r->reason);
  g_free (r);
}

/* device name as asked → GemmRate; measure_mutex serialises the measurements, so two
 * callers asking at once measure once and the timing is not shared with itself. */
static GMutex gemm_cache_mutex;
static GMutex gemm_measure_mutex;
static GHashTable *gemm_cache;

static double
now_seconds (void);

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

gboolean
nk_train_gemm_rate_peek (const char  *device,
                         double      *out_rate,
                         char       **out_reason)
{
  GemmRate *r;
  gboolean found;

  g_return_val_if_fail (device != NULL, FALSE);
  g_return_val_if_fail (out_rate != NULL, FALSE);

  g_mutex_lock (&gemm_cache_mutex);
  r = gemm_cache != NULL ? g_hash_table_lookup (gemm_cache, device) : NULL;
  found = r != NULL;
  *out_rate = found ? r->rate : NAN;
  if (out_reason != NULL)
    *out_reason = found ? g_strdup (r->reason) : NULL;
  g_mutex_unlock (&gemm_cache_mutex);
  return found;
}

static double
measure_gemm (const char    *device_name,
              GCancellable  *cancellable,
              GError       **error)
{
  const gint64 n = NK_TRAIN_GEMM_RATE_SIZE;
  NkDevice *previous = nk_device_get_default ();
  NkDevice *device;
  g_autoptr(NkRng) rng = NULL;
  g_autoptr(NkTensor) a_host = NULL;
  g_autoptr(NkTensor) b_host = NULL;
  g_autoptr(NkTensor) a = NULL;
  g_autoptr(NkTensor) b = NULL;
  g_autoptr(NkTensor) c = NULL;
  double times[7];
  double rate = NAN;

  device = nk_device_lookup (device_name, error);
  if (device == NULL)
    return NAN;

  /* Random operands: BLAS takes no shortcut on zeros, but nothing should look like it. */
  rng = nk_rng_new (1);
  a_host = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_F32, NK_SHAPE (n, n),
                               NK_BUCKET_OTHER, FALSE, error);
  b_host = a_host != NULL
           ? nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_F32, NK_SHAPE (n, n),
                                 NK_BUCKET_OTHER, FALSE, error) : NULL;
  if (b_host == NULL)
    return NAN;
  nk_rng_fill_normal_f32 (rng, nk_tensor_data_f32 (a_host), n * n, 0.0, 1.0);
  nk_rng_fill_normal_f32 (rng, nk_tensor_data_f32 (b_host), n * n, 0.0, 1.0);

  nk_device_set_default (device);
  if (device == nk_device_get_cpu ())
    {
      a = nk_tensor_ref (a_host);
      b = nk_tensor_ref (b_host);
    }
  else
    {
      a = nk_tensor_new_full (device, NK_DTYPE_F32, NK_SHAPE (n, n), NK_BUCKET_OTHER, FALSE, error);
      b = a != NULL ? nk_tensor_new_full (device, NK_DTYPE_F32, NK_SHAPE (n, n), NK_BUCKET_OTHER, FALSE, error)
                    : NULL;
      if (b == NULL || !nk_tensor_copy_ (a, a_host, error) || !nk_tensor_copy_ (b, b_host, error))
        goto out;
    }
  c = nk_tensor_new_full (device, NK_DTYPE_F32, NK_SHAPE (n, n), NK_BUCKET_OTHER, FALSE, error);
  if (c == NULL)
    goto out;

  for (int r = -2; r < (int) G_N_ELEMENTS (times); r++)
    {
      double t0;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;
      t0 = now_seconds ();
      if (!nk_matmul_out (c, a, b, 1.0, 0.0, error) || !nk_device_synchronize (device, error))
        goto out;
      if (r >= 0)
        times[r] = now_seconds () - t0;
    }
  qsort (times, G_N_ELEMENTS (times), sizeof (double), compare_double);
  rate = 2.0 * (double) n * (double) n * (double) n / times[G_N_ELEMENTS (times) / 2];

out:
  nk_device_set_default (previous);
  return rate;
}

double
nk_train_gemm_rate_measure_sync (const char    *device,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *reason = NULL;
  GemmRate *entry;
  double rate;

  g_return_val_if_fail (device != NULL, NAN);

  g_mutex_lock (&gemm_measure_mutex);
  if (nk_train_gemm_rate_peek (device, &rate, &reason))
    {
      g_mutex_unlock (&gemm_measure_mutex);
      if (reason != NULL)
        g_set_error_literal (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED, reason);
      return rate;
    }
  rate = measure_gemm (device, cancellable, &local_error);
  /* A cancelled measurement says nothing about the device: not remembered. */
  if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      entry = g_new0 (GemmRate, 1);
      entry->rate = rate;
      entry->reason = local_error != NULL ? g_strdup (local_error->message) : NULL;
      g_mutex_lock (&gemm_cache_mutex);
      if (gemm_cache == NULL)
        gemm_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, gemm_rate_free);
      g_hash_table_replace (gemm_cache, g_strdup (device), entry);
      g_mutex_unlock (&gemm_cache_mutex);
    }
  g_mutex_unlock (&gemm_measure_mutex);
  if (local_error != NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return rate;
}

static void
gemm_rate_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  GError *error = NULL;
  double rate = nk_train_gemm_rate_measure_sync (task_data, cancellable, &error);
  double *result;

  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  result = g_new (double, 1);
  *result = rate;
  g_task_return_pointer (task, result, g_free);
}

void
nk_train_gemm_rate_measure (const char          *device,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (device != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, nk_train_gemm_rate_measure);
  g_task_set_name (task, "[napkin] matmul rate");
  g_task_set_task_data (task, g_strdup (device), g_free);
  g_task_run_in_thread (task, gemm_rate_thread);
}

double
nk_train_gemm_rate_measure_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_autofree double *rate = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NAN);

  rate = g_task_propagate_pointer (G_TASK (result), error);
  return rate != NULL ? *rate : NAN;
}

/* ---- histograms ------------------------------------------------------------------ */

NkDType
nk_train_histogram_format_dtype (NkTrainHistogramFormat format)
{
  return format == NK_TRAIN_HISTOGRAM_BF16 ? NK_DTYPE_BF16 : NK_DTYPE_F16;
}

/* Where rounding to nearest even into a format changes a magnitude's class: at or
 * below half the smallest subnormal it becomes 0; from there to half a subnormal
 * step below the smallest normal it is a subnormal (the tie there rounds up to the
 * even smallest normal); from the largest finite plus half its ulp up it is inf
 * (the tie rounds to the even infinity). */
typedef struct {
  double zero_at_most;
  double subnormal_below;
  double inf_from;
} FormatEdges;

static void
format_edges (NkDType      dtype,
              FormatEdges *out)
{
  NkDTypeLimits l;

  nk_dtype_limits (dtype, &l);
  out->zero_at_most = l.min_subnormal / 2;
  out->subnormal_below = l.min_normal - l.min_subnormal / 2;
  out->inf_from = l.max + ldexp (l.epsilon, l.max_exponent) / 2;
}

static inline void
histogram_add (NkTrainHistogram  *h,
               const FormatEdges *edges,
               double             x)
{
  double a = fabs (x);
  int e;

  if (a == 0.0)
    {
      h->zeros++;
      return;
    }
  if (!isfinite (a))
    {
      h->nonfinite++;
      return;
    }
  frexp (a, &e);
  /* frexp: a = m · 2^e with 0.5 ≤ m < 1, so a's binade is 2^(e-1). */
  e -= 1;
  if (e < NK_TRAIN_HISTOGRAM_MIN_EXP)
    h->below++;
  else if (e > NK_TRAIN_HISTOGRAM_MAX_EXP)
    h->above++;
  else
    h->bins[e - NK_TRAIN_HISTOGRAM_MIN_EXP]++;
  for (guint f = 0; f < NK_TRAIN_HISTOGRAM_N_FORMATS; f++)
    {
      if (a <= edges[f].zero_at_most)
        h->underflow[f]++;
      else if (a < edges[f].subnormal_below)
        h->subnormal[f]++;
      else if (a >= edges[f].inf_from)
        h->overflow[f]++;
    }
}

gboolean
nk_train_histogram_compute (NkTensor          *tensor,
                            NkTrainHistogram  *out,
                            GError           **error)
{
  FormatEdges edges[NK_TRAIN_HISTOGRAM_N_FORMATS];
  gint64 n;

  g_return_val_if_fail (tensor != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  out->scale = 1.0;
  for (guint f = 0; f < NK_TRAIN_HISTOGRAM_N_FORMATS; f++)
    format_edges (nk_train_histogram_format_dtype (f), &edges[f]);

  n = nk_tensor_numel (tensor);
  out->total = (guint64) n;
  if (tensor->dtype == NK_DTYPE_F32 && nk_tensor_is_contiguous (tensor)
      && nk_device_get_kind (nk_tensor_get_device (tensor)) == NK_DEVICE_CPU)
    {
      const float *d = nk_tensor_data_f32 (tensor);

      for (gint64 i = 0; i < n; i++)
        histogram_add (out, edges, d[i]);
    }
  else
    {
      g_autofree double *d = nk_tensor_to_doubles (tensor, NULL);

      if (d == NULL && n > 0)
        {
          g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                       _("Cannot read the tensor's values back for its histogram."));
          return FALSE;
        }
      for (gint64 i = 0; i < n; i++)
        histogram_add (out, edges, d[i]);
    }
  return TRUE;
}

/* ---- the object ------------------------------------------------------------------ */

struct _NkTrainer
{
  GObject          parent_instance;

  NkTrainConfig   *config;
  NkTrainerState   state;
  char            *error_message;
  gboolean         started;

  /* Shared with the worker; under mutex unless atomic. */
  GMutex           mutex;
  GCond            cond;
  gint             pause_requested;    /* atomic */
  gint             stop_requested;     /* atomic */
  gint             checkpoint_requested; /* atomic */
  gint             parked;             /* atomic */
  guint64          steps_done;
  guint64          start_step;
  NkTrainMetrics   latest;
  gboolean         have_latest;
  /* The history: a ring of hist_cap slots, hist_len used from hist_head (the oldest);
   * it grows by doubling up to history_limit, then each step replaces the oldest. */
  NkTrainMetrics  *hist;
  gsize            hist_cap;
  gsize            hist_len;
  gsize            hist_head;
  GQueue           checkpoints;        /* CheckpointWritten*, not yet announced */
  char            *histogram_name;     /* what to histogram; NULL: the default */
  gboolean         histogram_gradient;
  gboolean         histogram_dirty;
  NkTrainHistogram histogram;
  gboolean         have_histogram;
  gboolean         idle_pending;
  GMainContext    *context;
  gboolean         sync;

  /* Owned by whichever thread runs the steps; read by others only after the run. */
  NkModel         *model;
  NkDevice        *device;
  double           published_loss;
  double           published_mfu;
  double           published_flops_per_s;
  guint64          published_step;
  guint64          published_skipped;
};

typedef struct {
  guint64  step;
  char    *path;
} CheckpointWritten;

static void
checkpoint_written_free (gpointer data)
{
  CheckpointWritten *w = data;

  g_free (w->path);
  g_free (w);
}

G_DEFINE_FINAL_TYPE (NkTrainer, nk_trainer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONFIG,
  PROP_STATE,
  PROP_STEP,
  PROP_LOSS,
  PROP_MFU,
  PROP_FLOPS_PER_S,
  PROP_SKIPPED_STEPS,
  PROP_ERROR_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_STEP,
  SIGNAL_CHECKPOINT_WRITTEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
nk_trainer_finalize (GObject *object)
{
  NkTrainer *self = NK_TRAINER (object);

  g_clear_pointer (&self->config, nk_train_config_free);
  g_clear_pointer (&self->error_message, g_free);
  g_clear_pointer (&self->hist, g_free);
  g_queue_clear_full (&self->checkpoints, checkpoint_written_free);
  g_clear_pointer (&self->histogram_name, g_free);
  g_clear_pointer (&self->model, nk_model_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (nk_trainer_parent_class)->finalize (object);
}

static void
nk_trainer_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  NkTrainer *self = NK_TRAINER (object);

  switch (prop_id)
    {
    case PROP_CONFIG:
      g_value_set_boxed (value, self->config);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_STEP:
      g_value_set_uint64 (value, self->published_step);
      break;
    case PROP_LOSS:
      g_value_set_double (value, self->published_loss);
      break;
    case PROP_MFU:
      g_value_set_double (value, self->published_mfu);
      break;
    case PROP_FLOPS_PER_S:
      g_value_set_double (value, self->published_flops_per_s);
      break;
    case PROP_SKIPPED_STEPS:
      g_value_set_uint64 (value, self->published_skipped);
      break;
    case PROP_ERROR_MESSAGE:
      g_value_set_string (value, self->error_message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_trainer_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  NkTrainer *self = NK_TRAINER (object);

  switch (prop_id)
    {
    case PROP_CONFIG:
      g_clear_pointer (&self->config, nk_train_config_free);
      self->config = g_value_get_boxed (value) != NULL
                     ? nk_train_config_copy (g_value_get_boxed (value))
                     : nk_train_config_new ();
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
nk_trainer_class_init (NkTrainerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = nk_trainer_finalize;
  object_class->get_property = nk_trainer_get_property;
  object_class->set_property = nk_trainer_set_property;

  properties[PROP_CONFIG] =
    g_param_spec_boxed ("config", NULL, NULL, NK_TYPE_TRAIN_CONFIG,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, NK_TYPE_TRAINER_STATE, NK_TRAINER_STATE_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STEP] =
    g_param_spec_uint64 ("step", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOSS] =
    g_param_spec_double ("loss", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MFU] =
    g_param_spec_double ("mfu", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FLOPS_PER_S] =
    g_param_spec_double ("flops-per-s", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NkTrainer:skipped-steps:
   *
   * fp16 steps skipped so far because a gradient overflowed (always 0 otherwise),
   * as of the latest delivered step.
   */
  properties[PROP_SKIPPED_STEPS] =
    g_param_spec_uint64 ("skipped-steps", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ERROR_MESSAGE] =
    g_param_spec_string ("error-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NkTrainer::step:
   * @self: the trainer
   * @metrics: (type gpointer): the latest step's `const NkTrainMetrics *`, valid during
   *   the emission
   *
   * Emitted on the main context after one or more steps (coalesced), or after every
   * step under nk_trainer_run_sync().
   */
  signals[SIGNAL_STEP] =
    g_signal_new ("step", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);

  /**
   * NkTrainer::checkpoint-written:
   * @self: the trainer
   * @step: the step the checkpoint holds the run after
   * @path: the file written
   *
   * Emitted on the main context for each checkpoint the run wrote (on its interval,
   * at the last step, after nk_trainer_checkpoint_now(), and the one a stop with a
   * pending request writes), after the ::step that delivers @step.
   */
  signals[SIGNAL_CHECKPOINT_WRITTEN] =
    g_signal_new ("checkpoint-written", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_STRING);
}

static void
nk_trainer_init (NkTrainer *self)
{
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  g_queue_init (&self->checkpoints);
  self->published_loss = NAN;
  self->published_mfu = NAN;
  self->published_flops_per_s = NAN;
}

NkTrainer *
nk_trainer_new (const NkTrainConfig *config)
{
  return g_object_new (NK_TYPE_TRAINER, "config", config, NULL);
}

const NkTrainConfig *
nk_trainer_get_config (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  return self->config;
}

static void
set_state (NkTrainer      *self,
           NkTrainerState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void deliver_step (NkTrainer      *self,
                          NkTrainMetrics *m);

/* Main thread (or the sync caller): properties and ::step from the latest metrics,
 * then ::checkpoint-written for the checkpoints written since. */
static void
deliver (NkTrainer *self)
{
  NkTrainMetrics m;
  gboolean have;
  GQueue checkpoints;
  CheckpointWritten *w;

  g_mutex_lock (&self->mutex);
  have = self->have_latest;
  m = self->latest;
  self->idle_pending = FALSE;
  checkpoints = self->checkpoints;
  g_queue_init (&self->checkpoints);
  g_mutex_unlock (&self->mutex);

  if (have && m.step != self->published_step)
    deliver_step (self, &m);
  /* After the step they belong to, so a listener already has that step. */
  while ((w = g_queue_pop_head (&checkpoints)) != NULL)
    {
      g_signal_emit (self, signals[SIGNAL_CHECKPOINT_WRITTEN], 0, w->step, w->path);
      checkpoint_written_free (w);
    }
}

static void
deliver_step (NkTrainer      *self,
              NkTrainMetrics *mp)
{
  NkTrainMetrics m = *mp;

  g_object_freeze_notify (G_OBJECT (self));
  self->published_step = m.step;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);
  if (!(m.loss == self->published_loss))
    {
      self->published_loss = m.loss;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOSS]);
    }
  if (!(m.mfu == self->published_mfu))
    {
      self->published_mfu = m.mfu;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MFU]);
    }
  if (!(m.flops_per_s == self->published_flops_per_s))
    {
      self->published_flops_per_s = m.flops_per_s;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FLOPS_PER_S]);
    }
  if (m.skipped_steps != self->published_skipped)
    {
      self->published_skipped = m.skipped_steps;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SKIPPED_STEPS]);
    }
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[SIGNAL_STEP], 0, &m);
}

static gboolean
deliver_idle (gpointer data)
{
  deliver (NK_TRAINER (data));
  return G_SOURCE_REMOVE;
}

/* Under the mutex. */
static void
history_push (NkTrainer            *self,
              const NkTrainMetrics *m)
{
  gsize limit = self->config->history_limit;

  if (limit > 0 && self->hist_len == limit)
    {
      /* Full: the newest takes the oldest's slot, O(1). */
      self->hist[self->hist_head] = *m;
      self->hist_head = (self->hist_head + 1) % limit;
      return;
    }
  if (self->hist_len == self->hist_cap)
    {
      /* Not wrapped yet (the ring only wraps once full), so a plain resize keeps the
       * order. */
      gsize cap = MAX (self->hist_cap * 2, 64);

      if (limit > 0)
        cap = MIN (cap, limit);
      self->hist = g_renew (NkTrainMetrics, self->hist, cap);
      self->hist_cap = cap;
    }
  self->hist[(self->hist_head + self->hist_len) % self->hist_cap] = *m;
  self->hist_len++;
}

static inline const NkTrainMetrics *
history_at (NkTrainer *self,
            gsize      i)
{
  return &self->hist[(self->hist_head + i) % self->hist_cap];
}

/* Under the mutex: copies entries [from, hist_len) in order. */
static GArray *
history_copy_from (NkTrainer *self,
                   gsize      from)
{
  gsize n = from < self->hist_len ? self->hist_len - from : 0;
  GArray *copy = g_array_sized_new (FALSE, FALSE, sizeof (NkTrainMetrics), n);

  if (n > 0)
    {
      gsize first = (self->hist_head + from) % self->hist_cap;
      gsize run1 = MIN (n, self->hist_cap - first);

      g_array_append_vals (copy, &self->hist[first], run1);
      g_array_append_vals (copy, &self->hist[0], n - run1);
    }
  return copy;
}

/* Worker: store the step, and ask the main context for at most one delivery. */
static void
publish (NkTrainer            *self,
         const NkTrainMetrics *m)
{
  gboolean schedule = FALSE;

  g_mutex_lock (&self->mutex);
  self->latest = *m;
  self->have_latest = TRUE;
  self->steps_done = m->step;
  history_push (self, m);
  if (!self->sync && !self->idle_pending)
    schedule = self->idle_pending = TRUE;
  g_mutex_unlock (&self->mutex);

  if (self->sync)
    deliver (self);
  else if (schedule)
    {
      g_autoptr(GSource) source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_LOW);
      g_source_set_callback (source, deliver_idle, g_object_ref (self), g_object_unref);
      g_source_set_static_name (source, "[napkin] trainer step");
      g_source_attach (source, self->context);
    }
}

/* ---- the run --------------------------------------------------------------------- */

typedef struct {
  NkTrainer          *self;
  const NkTrainConfig *config;
  NkModel            *model;
  NkOptim            *optim;
  NkArena            *arena;
  NkArrayDataset     *dataset;
  NkTokenStream      *tokens;
  NkTensor           *x_host;   /* DATA, CPU: [B, D] f32, or [B·T] int32 */
  NkTensor           *y_host;   /* DATA, CPU: [B] f32, or [B·T] int32 */
  NkTensor           *x;        /* the same on the run's device (x_host on the CPU) */
  NkTensor           *y;
  NkTensor           *window;   /* DATA, CPU: [B, T+1] int32 (LM) */
  guint64             data_key;
  double              peak;
  double              predicted[4];
  double              loss_scale;
  guint64             good_steps;
  guint64             skipped_steps;
  gboolean            histogram_taken;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->optim, nk_optim_free);
  g_clear_pointer (&run->arena, nk_arena_free);
  g_clear_pointer (&run->dataset, nk_array_dataset_free);
  g_clear_pointer (&run->tokens, nk_token_stream_free);
  g_clear_pointer (&run->x, nk_tensor_unref);
  g_clear_pointer (&run->y, nk_tensor_unref);
  g_clear_pointer (&run->x_host, nk_tensor_unref);
  g_clear_pointer (&run->y_host, nk_tensor_unref);
  g_clear_pointer (&run->window, nk_tensor_unref);
}

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The data generator at the start of step @step: each step owns 2³² words of the
 * Philox stream, so the batch is a pure function of (seed, step). */
static NkRng *
data_rng_for_step (Run     *run,
                   guint64  step)
{
  return nk_rng_new_from_state (run->data_key, step << 32);
}

static double
device_peak (NkDevice         *device,
             NkPrecision  precision)
{
  return nk_gpus_device_peak (device, precision == NK_PRECISION_FP32 ? NK_PEAK_FP32
                                      : precision == NK_PRECISION_FP16_MIXED ? NK_PEAK_FP16
                                      : NK_PEAK_BF16);
}

static void
predict_memory (Run *run)
{
  NkTrainPrediction p;

  nk_train_config_predict (run->config, NAN, &p);
  memcpy (run->predicted, p.memory, sizeof run->predicted);
}

/* Batches are drawn into host buffers, then copied to the device when it is not the
 * CPU; every buffer is allocated once. */
static gboolean
setup_buffers (Run      *run,
               NkDType   dtype,
               int       ndim_x,
               gint64    rows,
               gint64    cols,
               GError  **error)
{
  NkDevice *cpu = nk_device_get_cpu ();
  gint64 shape_x[2] = { rows, cols };
  gint64 shape_y[1] = { rows };

  run->x_host = nk_tensor_new_full (cpu, dtype, ndim_x, shape_x, NK_BUCKET_DATA, TRUE, error);
  if (run->x_host == NULL)
    return FALSE;
  run->y_host = nk_tensor_new_full (cpu, dtype, 1, shape_y, NK_BUCKET_DATA, TRUE, error);
  if (run->y_host == NULL)
    return FALSE;
  if (nk_device_get_default () == cpu)
    {
      run->x = nk_tensor_ref (run->x_host);
      run->y = nk_tensor_ref (run->y_host);
      return TRUE;
    }
  run->x = nk_tensor_new_full (NULL, dtype, ndim_x, shape_x, NK_BUCKET_DATA, TRUE, error);
  run->y = run->x != NULL
           ? nk_tensor_new_full (NULL, dtype, 1, shape_y, NK_BUCKET_DATA, TRUE, error) : NULL;
  return run->y != NULL;
}

static gboolean
setup_data (Run      *run,
            GError  **error)
{
  const NkTrainConfig *c = run->config;

  if (c->model == NK_MODEL_CRUNCHER)
    {
      if (c->inputs != NULL)
        {
          run->dataset = nk_array_dataset_new (c->inputs, c->targets, c->batch, error);
          if (run->dataset == NULL)
            return FALSE;
          if (nk_array_dataset_get_dim (run->dataset) != c->dim)
            {
              g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                           _("%s has rows of %u values but the model has --dim %u."),
                           c->inputs, nk_array_dataset_get_dim (run->dataset), c->dim);
              return FALSE;
            }
        }
      return setup_buffers (run, NK_DTYPE_F32, 2, c->batch, c->dim, error);
    }

  if (c->text_file != NULL)
    {
      run->tokens = nk_token_stream_new_from_file (c->text_file, error);
      if (run->tokens == NULL)
        return FALSE;
    }
  else
    run->tokens = nk_token_stream_new_default ();

  run->window = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32,
                                    NK_SHAPE (c->batch, c->context + 1),
                                    NK_BUCKET_DATA, TRUE, error);
  if (run->window == NULL)
    return FALSE;
  return setup_buffers (run, NK_DTYPE_INT32, 1, (gint64) c->batch * c->context, 1, error);
}

static gboolean
fill_batch (Run      *run,
            guint64   step,
            GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkRng) rng = data_rng_for_step (run, step);

  if (c->model == NK_MODEL_CRUNCHER)
    {
      if (run->dataset != NULL)
        nk_array_dataset_fill (run->dataset, step, nk_tensor_data_f32 (run->x_host),
                               nk_tensor_data_f32 (run->y_host));
      else
        nk_data_synthetic_fill (rng, c->dim, c->batch, nk_tensor_data_f32 (run->x_host),
                                nk_tensor_data_f32 (run->y_host));
    }
  else

    {
      gint32 *w = nk_tensor_data (run->window);
      gint32 *x = nk_tensor_data (run->x_host);
      gint32 *y = nk_tensor_data (run->y_host);

      if (!nk_token_stream_sample_fill (run->tokens, rng, c->batch, c->context, w, NULL, error))
        return FALSE;
      for (guint b = 0; b < c->batch; b++)
        {
          memcpy (x + (gsize) b * c->context, w + (gsize) b * (c->context + 1),
                  c->context * sizeof (gint32));
          memcpy (y + (gsize) b * c->context, w + (gsize) b * (c->context + 1) + 1,
                  c->context * sizeof (gint32));
        }
    }

  if (run->x != run->x_host
      && (!nk_tensor_copy_ (run->x, run->x_host, error)
          || !nk_tensor_copy_ (run->y, run->y_host, error)))
    return FALSE;
  return TRUE;
}

static gboolean
save_checkpoint (Run      *run,
                 guint64   step,
                 GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_new ();
  g_autoptr(NkRng) rng = data_rng_for_step (run, step);
  g_autofree char *config_json = nk_train_config_to_json (c);
  g_autofree char *path = NULL;
  CheckpointWritten *written;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  nk_checkpoint_set_step (ck, step);
  nk_checkpoint_set_rng (ck, rng);
  nk_checkpoint_set_config (ck, config_json);
  nk_checkpoint_set_metadata (ck, "loss_scale", g_ascii_dtostr (buf, sizeof buf, run->loss_scale));
  g_snprintf (buf, sizeof buf, "%" PRIu64, run->good_steps);
  nk_checkpoint_set_metadata (ck, "good_steps", buf);
  if (c->precision == NK_PRECISION_FP16_MIXED)
    {
      g_snprintf (buf, sizeof buf, "%" PRIu64, run->skipped_steps);
      nk_checkpoint_set_metadata (ck, "skipped_steps", buf);
    }
  if (!nk_model_save_checkpoint (run->model, ck, error)
      || !nk_optim_save_state (run->optim, ck, error)
      || !nk_checkpoint_save (ck, c->checkpoint_dir, c->checkpoint_keep, &path, error))
    return FALSE;

  written = g_new0 (CheckpointWritten, 1);
  written->step = step;
  written->path = g_steal_pointer (&path);
  g_mutex_lock (&run->self->mutex);
  g_queue_push_tail (&run->self->checkpoints, written);
  g_mutex_unlock (&run->self->mutex);
  return TRUE;
}

static gboolean
resume (Run      *run,
        guint64  *out_step,
        GError  **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(NkCheckpoint) ck = NULL;
  const char *text;
  guint64 step;

  files = nk_checkpoint_list (c->resume_dir, error);
  if (files == NULL)
    return FALSE;
  if (files->len == 0)
    {
      /* Killed before the first checkpoint: there is nothing to lose. */
      *out_step = 0;
      return TRUE;
    }

  ck = nk_checkpoint_find_latest_intact (c->resume_dir, NULL, error);
  if (ck == NULL)
    return FALSE;
  step = nk_checkpoint_get_step (ck);
  if (!nk_model_load_checkpoint (run->model, ck, error)
      || !nk_optim_load_state (run->optim, ck, step, error))
    {
      g_prefix_error (error, _("Cannot resume from %s: "), nk_checkpoint_get_path (ck));
      return FALSE;
    }
  if ((text = nk_checkpoint_get_metadata (ck, "loss_scale")) != NULL)
    run->loss_scale = g_ascii_strtod (text, NULL);
  if ((text = nk_checkpoint_get_metadata (ck, "good_steps")) != NULL)
    run->good_steps = g_ascii_strtoull (text, NULL, 10);
  if ((text = nk_checkpoint_get_metadata (ck, "skipped_steps")) != NULL)
    run->skipped_steps = g_ascii_strtoull (text, NULL, 10);
  *out_step = MIN (step, c->steps);
  return TRUE;
}

static gboolean
grads_finite (NkModel *model)
{
  guint n;
  NkTensor **params = nk_model_get_params (model, &n);

  for (guint i = 0; i < n; i++)
    {
      NkTensor *g = params[i]->grad;
      gint64 numel = nk_tensor_numel (g);

      if (nk_device_get_kind (nk_tensor_get_device (g)) == NK_DEVICE_CPU)
        {
          const float *d = nk_tensor_data_f32 (g);

          for (gint64 j = 0; j < numel; j++)
            if (!isfinite (d[j]))
              return FALSE;
        }
      else
        {
          /* A device gradient is read back (fp16 runs only). */
          g_autofree double *d = nk_tensor_to_doubles (g, NULL);

          for (gint64 j = 0; j < numel; j++)
            if (!isfinite (d[j]))
              return FALSE;
        }
    }
  return TRUE;
}

static gboolean
unscale_grads (NkModel  *model,
               double    scale,
               GError  **error)
{
  guint n;
  NkTensor **params = nk_model_get_params (model, &n);

  for (guint i = 0; i < n; i++)
    if (!nk_mul_scalar_ (params[i]->grad, 1.0 / scale, error))
      return FALSE;
  return TRUE;
}

/* Worker: the histogram of the chosen tensor, stored for nk_trainer_get_histogram().
 * A histogram that cannot be taken leaves the last one; the run goes on. */
static void
take_histogram (Run     *run,
                guint64  step,
                double   scale)
{
  NkTrainer *self = run->self;
  g_autofree char *name = NULL;
  const char *const *names = nk_model_get_param_names (run->model);
  NkTensor **params;
  NkTrainHistogram h;
  gboolean gradient;
  guint n, index = G_MAXUINT;

  g_mutex_lock (&self->mutex);
  name = g_strdup (self->histogram_name);
  gradient = self->histogram_gradient;
  self->histogram_dirty = FALSE;
  g_mutex_unlock (&self->mutex);

  params = nk_model_get_params (run->model, &n);
  for (guint i = 0; name != NULL && i < n; i++)
    if (g_str_equal (names[i], name))
      index = i;
  if (index == G_MAXUINT)
    {
      /* The last layer's weight gradient. */
      gradient = TRUE;
      for (guint i = 0; i < n; i++)
        if (g_str_has_suffix (names[i], ".weight"))
          index = i;
    }
  if (index == G_MAXUINT
      || !nk_train_histogram_compute (gradient ? params[index]->grad : params[index], &h, NULL))
    return;
  h.step = step;
  g_strlcpy (h.name, names[index], sizeof h.name);
  h.gradient = gradient;
  h.scale = gradient ? scale : 1.0;

  g_mutex_lock (&self->mutex);
  self->histogram = h;
  self->have_histogram = TRUE;
  g_mutex_unlock (&self->mutex);
}

static gboolean
histogram_due (Run     *run,
               guint64  step)
{
  const NkTrainConfig *c = run->config;
  gboolean dirty;

  if (c->histogram_every == 0)
    return FALSE;
  g_mutex_lock (&run->self->mutex);
  dirty = run->self->histogram_dirty;
  g_mutex_unlock (&run->self->mutex);
  return dirty || !run->histogram_taken || step % c->histogram_every == 0 || step == c->steps;
}

/* One step; fills @m. */
static gboolean
run_step (Run            *run,
          guint64         step,
          NkTrainMetrics *m,
          GError        **error)
{
  const NkTrainConfig *c = run->config;
  g_autoptr(NkTensor) loss = NULL;
  double t0, t1, t2, t2h, t3;
  guint64 f0, f1;
  NkDevice *device = nk_device_get_default ();
  gboolean fp16 = c->precision == NK_PRECISION_FP16_MIXED;

  memset (m, 0, sizeof *m);
  m->step = step + 1;

  if (!fill_batch (run, step, error))
    return FALSE;

  nk_arena_reset (run->arena);
  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();

  t0 = now_seconds ();
  loss = nk_model_loss (run->model, run->x, run->y, error);
  if (loss == NULL || !nk_tensor_item (loss, &m->loss, error))
    return FALSE;
  f0 = nk_flops_get ();
  t1 = now_seconds ();

  if (!isfinite (m->loss) && !fp16)
    {
      nk_autograd_release (loss);
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_DIVERGED,
                   _("The loss became %s at step %" PRIu64 ": the run diverged (try a smaller --lr than %g or another --optimizer)."),
                   isnan (m->loss) ? "NaN" : "infinite", step + 1, c->lr);
      return FALSE;
    }

  if (!nk_autograd_backward_scaled (loss, fp16 ? run->loss_scale : 1.0, error))
    return FALSE;
  f1 = nk_flops_get ();
  if (!nk_device_synchronize (device, error))
    return FALSE;
  t2 = now_seconds ();

  /* Between backward and the update the gradients are there to see (and, in fp16,
   * still scaled, as fp16 holds them); the time it takes is no part of the step's. */
  if (histogram_due (run, m->step))
    {
      take_histogram (run, m->step, fp16 ? run->loss_scale : 1.0);
      run->histogram_taken = TRUE;
    }
  t2h = now_seconds ();

  m->loss_scale = fp16 ? run->loss_scale : 1.0;
  if (fp16 && (!isfinite (m->loss) || !grads_finite (run->model)))
    {
      /* Overflow: skip the update, halve the scale (GradScaler's rule). */
      m->skipped = TRUE;
      run->skipped_steps++;
      run->loss_scale /= 2.0;
      run->good_steps = 0;
    }
  else
    {
      if (fp16 && !unscale_grads (run->model, run->loss_scale, error))
        return FALSE;
      if (!nk_optim_step (run->optim, error))
        return FALSE;
      if (fp16 && ++run->good_steps >= LOSS_SCALE_GROWTH)
        {
          run->loss_scale *= 2.0;
          run->good_steps = 0;
        }
    }
  if (!nk_model_zero_grad (run->model, error) || !nk_device_synchronize (device, error))
    return FALSE;
  t3 = now_seconds ();

  m->flops_forward = f0;
  m->flops_backward = f1 - f0;
  m->flops = f1;
  m->flops_matmul = nk_autograd_get_matmul_flops ();
  m->seconds_forward = t1 - t0;
  m->seconds_backward = t2 - t1;
  m->seconds_optimizer = t3 - t2h;
  m->seconds = (t3 - t0) - (t2h - t2);
  m->skipped_steps = run->skipped_steps;
  m->flops_per_s = m->seconds > 0 ? (double) m->flops / m->seconds : NAN;
  m->peak_flops_per_s = run->peak;
  m->mfu = m->flops_per_s / run->peak;
  for (int b = 0; b < NK_N_BUCKETS; b++)
    nk_device_get_bytes (device, b, &m->memory[b], &m->memory_peak[b]);
  memcpy (m->predicted, run->predicted, sizeof m->predicted);
  return TRUE;
}

/* Waits while paused; FALSE when the run should end. */
static gboolean
wait_if_paused (NkTrainer    *self,
                GCancellable *cancellable)
{
  g_mutex_lock (&self->mutex);
  while (g_atomic_int_get (&self->pause_requested) && !g_atomic_int_get (&self->stop_requested)
         && !g_cancellable_is_cancelled (cancellable))
    {
      g_atomic_int_set (&self->parked, TRUE);
      /* Wake now and then to notice a cancellable, which does not signal us. */
      g_cond_wait_until (&self->cond, &self->mutex,
                         g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND);
    }
  g_atomic_int_set (&self->parked, FALSE);
  g_mutex_unlock (&self->mutex);

  return !g_atomic_int_get (&self->stop_requested) && !g_cancellable_is_cancelled (cancellable);
}

static gboolean
same_directory (const char *a,
                const char *b)
{
  g_autofree char *ca = NULL;
  g_autofree char *cb = NULL;

  if (a == NULL || b == NULL)
    return FALSE;
  ca = g_canonicalize_filename (a, NULL);
  cb = g_canonicalize_filename (b, NULL);
  return g_str_equal (ca, cb);
}

static gboolean
run_internal (NkTrainer     *self,
              GCancellable  *cancellable,
              GError       **error)
{
  const NkTrainConfig *c = self->config;
  Run run = { 0, };
  NkDevice *previous_device = nk_device_get_default ();
  NkBucket previous_bucket;
  NkArena *previous_arena;
  NkDType previous_autocast;
  NkDevice *device;
  guint64 step = 0;
  gboolean ok = FALSE;
  guint n_params;

  if (!nk_train_config_validate (c, error))
    return FALSE;

  /* A run that does not resume from its checkpoint directory must not write over
   * another run's checkpoints there: refuse before doing any work. */
  if (c->checkpoint_dir != NULL && !same_directory (c->checkpoint_dir, c->resume_dir))
    {
      g_autofree char *config_json = nk_train_config_to_json (c);

      if (!nk_checkpoint_check_dir (c->checkpoint_dir, config_json, error))
        return FALSE;
    }

  device = nk_device_lookup (c->device != NULL ? c->device : "cpu", error);
  if (device == NULL)
    return FALSE;
  self->device = device;

  nk_device_set_default (device);
  /* Temporaries inside nk-ops must not pass for activations. */
  previous_bucket = nk_storage_set_default_bucket (NK_BUCKET_OTHER);
  run.arena = nk_arena_new ();
  previous_arena = nk_arena_set_current (run.arena);
  previous_autocast = nk_autograd_set_autocast (compute_dtype (c->precision));

  run.self = self;
  run.config = c;
  run.data_key = c->seed ^ G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  run.loss_scale = c->precision == NK_PRECISION_FP16_MIXED ? c->loss_scale_init : 1.0;

  g_clear_pointer (&self->model, nk_model_free);
  if (c->model == NK_MODEL_CRUNCHER)
    self->model = nk_model_new_cruncher (c->dim, c->layers, NK_DTYPE_F32, error);
  else
    self->model = nk_model_new_tiny_lm (LM_VOCAB, c->dim, c->layers, NK_DTYPE_F32, error);
  if (self->model == NULL)
    goto out;
  run.model = self->model;

  {
    g_autoptr(NkRng) init_rng = nk_rng_new (c->seed);

    if (!nk_model_init (run.model, init_rng, c->init_kind, error))
      goto out;
  }
  if (c->init_file != NULL)
    {
      g_autoptr(NkSafetensors) st = nk_safetensors_load (c->init_file, error);

      if (st == NULL || !nk_model_load_state_dict (run.model, st, error))
        goto out;
    }

  {
    NkTensor **params = nk_model_get_params (run.model, &n_params);

    run.optim = nk_optim_new (c->optimizer, c->lr, params,
                              nk_model_get_param_names (run.model), n_params, error);
    if (run.optim == NULL)
      goto out;
  }

  if (!setup_data (&run, error))
    goto out;

  if (c->resume_dir != NULL && !resume (&run, &step, error))
    goto out;
  self->start_step = step;

  run.peak = device_peak (device, c->precision);
  predict_memory (&run);
  nk_device_reset_peak (device);

  ok = TRUE;
  for (; step < c->steps; step++)
    {
      NkTrainMetrics m;
      gboolean checkpoint;

      if (!wait_if_paused (self, cancellable))
        break;
      if (!run_step (&run, step, &m, error))
        {
          ok = FALSE;
          break;
        }

      checkpoint = c->checkpoint_dir != NULL
                   && ((c->checkpoint_every > 0 && m.step % c->checkpoint_every == 0)
                       || m.step == c->steps
                       || g_atomic_int_compare_and_exchange (&self->checkpoint_requested, TRUE, FALSE));
      if (checkpoint && !save_checkpoint (&run, m.step, error))
        {
          ok = FALSE;
          break;
        }
      publish (self, &m);
    }

  if (ok && step < c->steps && c->checkpoint_dir != NULL
      && g_atomic_int_get (&self->checkpoint_requested))
    ok = save_checkpoint (&run, step, error);

out:
  run_clear (&run);
  nk_autograd_set_autocast (previous_autocast);
  nk_arena_set_current (previous_arena);
  nk_storage_set_default_bucket (previous_bucket);
  nk_device_set_default (previous_device);
  return ok;
}

static void
finish_state (NkTrainer    *self,
              gboolean      ok,
              const GError *error)
{
  deliver (self);
  if (!ok)
    {
      g_free (self->error_message);
      self->error_message = g_strdup (error != NULL ? error->message : _("The run failed."));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR_MESSAGE]);
      set_state (self, NK_TRAINER_STATE_FAILED);
    }
  else if (nk_trainer_get_steps_done (self) < self->config->steps)
    set_state (self, NK_TRAINER_STATE_STOPPED);
  else
    set_state (self, NK_TRAINER_STATE_FINISHED);
}

static gboolean
claim (NkTrainer  *self,
       GError    **error)
{
  if (self->started)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_BUSY,
                   _("This trainer has already run; make a new one for another run."));
      return FALSE;
    }
  self->started = TRUE;
  return TRUE;
}

gboolean
nk_trainer_run_sync (NkTrainer     *self,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);

  if (!claim (self, error))
    return FALSE;
  self->sync = TRUE;
  set_state (self, NK_TRAINER_STATE_RUNNING);
  ok = run_internal (self, cancellable, &local_error);
  finish_state (self, ok, local_error);
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return ok;
}

static void
worker (GTask        *task,
        gpointer      source_object,
        gpointer      task_data,
        GCancellable *cancellable)
{
  GError *error = NULL;

  if (run_internal (NK_TRAINER (source_object), cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
nk_trainer_start (NkTrainer           *self,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (NK_IS_TRAINER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, nk_trainer_start);
  if (!claim (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  self->context = g_main_context_ref_thread_default ();
  set_state (self, g_atomic_int_get (&self->pause_requested)
                   ? NK_TRAINER_STATE_PAUSED : NK_TRAINER_STATE_RUNNING);
  g_task_run_in_thread (task, worker);
}

gboolean
nk_trainer_start_finish (NkTrainer     *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  ok = g_task_propagate_boolean (G_TASK (result), &local_error);
  /* The last step's idle may still be queued behind this callback: deliver it now. */
  if (!g_error_matches (local_error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_BUSY))
    finish_state (self, ok, local_error);
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return ok;
}

void
nk_trainer_pause (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_atomic_int_set (&self->pause_requested, TRUE);
  if (self->state == NK_TRAINER_STATE_RUNNING)
    set_state (self, NK_TRAINER_STATE_PAUSED);
}

void
nk_trainer_resume (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->pause_requested, FALSE);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  if (self->state == NK_TRAINER_STATE_PAUSED)
    set_state (self, NK_TRAINER_STATE_RUNNING);
}

void
nk_trainer_stop (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_atomic_int_set (&self->stop_requested, TRUE);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

void
nk_trainer_checkpoint_now (NkTrainer *self)
{
  g_return_if_fail (NK_IS_TRAINER (self));
  g_atomic_int_set (&self->checkpoint_requested, TRUE);
}

NkTrainerState
nk_trainer_get_state (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NK_TRAINER_STATE_IDLE);
  return self->state;
}

gboolean
nk_trainer_is_parked (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  return g_atomic_int_get (&self->parked);
}

guint64
nk_trainer_get_steps_done (NkTrainer *self)
{
  guint64 n;

  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  g_mutex_lock (&self->mutex);
  n = self->steps_done;
  g_mutex_unlock (&self->mutex);
  return n;
}

guint64
nk_trainer_get_start_step (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  return self->start_step;
}

gboolean
nk_trainer_get_latest (NkTrainer      *self,
                       NkTrainMetrics *out_metrics)
{
  gboolean have;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_mutex_lock (&self->mutex);
  have = self->have_latest;
  if (have)
    *out_metrics = self->latest;
  g_mutex_unlock (&self->mutex);
  return have;
}

GArray *
nk_trainer_get_history (NkTrainer *self)
{
  GArray *copy;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  copy = history_copy_from (self, 0);
  g_mutex_unlock (&self->mutex);
  return copy;
}

GArray *
nk_trainer_get_history_range (NkTrainer *self,
                              guint64    from_step)
{
  gsize lo, hi;
  GArray *copy;

  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  g_mutex_lock (&self->mutex);
  /* Steps rise through the ring: the first one at or after from_step, by bisection. */
  lo = 0;
  hi = self->hist_len;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (history_at (self, mid)->step < from_step)
        lo = mid + 1;
      else
        hi = mid;
    }
  copy = history_copy_from (self, lo);
  g_mutex_unlock (&self->mutex);
  return copy;
}

guint64
nk_trainer_get_skipped_steps (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  return self->published_skipped;
}

void
nk_trainer_set_histogram_source (NkTrainer  *self,
                                 const char *name,
                                 gboolean    gradient)
{
  g_return_if_fail (NK_IS_TRAINER (self));

  g_mutex_lock (&self->mutex);
  g_free (self->histogram_name);
  self->histogram_name = g_strdup (name);
  self->histogram_gradient = name == NULL || gradient;
  self->histogram_dirty = TRUE;
  g_mutex_unlock (&self->mutex);
}

gboolean
nk_trainer_get_histogram (NkTrainer        *self,
                          NkTrainHistogram *out)
{
  gboolean have;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_mutex_lock (&self->mutex);
  have = self->have_histogram;
  if (have)
    *out = self->histogram;
  g_mutex_unlock (&self->mutex);
  return have;
}

NkModel *
nk_trainer_get_model (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  return self->model;
}

guint64
nk_trainer_get_n_parameters (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), 0);
  return self->model != NULL ? nk_model_count_parameters (self->model) : 0;
}

const char *
nk_trainer_get_device_name (NkTrainer *self)
{
  g_return_val_if_fail (NK_IS_TRAINER (self), NULL);
  return self->device != NULL ? nk_device_get_name (self->device) : self->config->device;
}

gboolean
nk_trainer_save (NkTrainer   *self,
                 const char  *path,
                 GError     **error)
{
  g_autoptr(NkSafetensorsWriter) writer = NULL;

  g_return_val_if_fail (NK_IS_TRAINER (self), FALSE);
  g_return_val_if_fail (self->state != NK_TRAINER_STATE_RUNNING
                        && self->state != NK_TRAINER_STATE_PAUSED, FALSE);

  if (self->model == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_FAILED,
                   _("There is no model to save: the run did not start."));
      return FALSE;
    }
  writer = nk_safetensors_writer_new ();
  return nk_model_save_state_dict (self->model, writer, error)
         && nk_safetensors_writer_write (writer, path, error);
}
