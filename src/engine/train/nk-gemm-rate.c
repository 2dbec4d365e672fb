/* nk-gemm-rate.c: times an fp32 matmul on a device and remembers the rate per device
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "nk-device.h"
#include "nk-gemm-rate.h"
#include "nk-ops.h"
#include "nk-rng.h"
#include "nk-train-config.h"

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
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

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

/* A random N × N operand on @device. Random: BLAS takes no shortcut on zeros, but
 * nothing should look like it. */
static NkTensor *
random_operand (NkDevice  *device,
                NkRng     *rng,
                GError   **error)
{
  const gint64 n = NK_TRAIN_GEMM_RATE_SIZE;
  g_autoptr(NkTensor) host = NULL;
  g_autoptr(NkTensor) operand = NULL;

  host = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_F32, NK_SHAPE (n, n),
                             NK_BUCKET_OTHER, FALSE, error);
  if (host == NULL)
    return NULL;
  nk_rng_fill_normal_f32 (rng, nk_tensor_data_f32 (host), n * n, 0.0, 1.0);
  if (device == nk_device_get_cpu ())
    return g_steal_pointer (&host);
  operand = nk_tensor_new_full (device, NK_DTYPE_F32, NK_SHAPE (n, n), NK_BUCKET_OTHER, FALSE, error);
  if (operand == NULL || !nk_tensor_copy_ (operand, host, error))
    return NULL;
  return g_steal_pointer (&operand);
}

/* Two warm-ups, then the median of seven; on the calling thread's default device. */
static double
time_matmuls (NkDevice      *device,
              NkTensor      *c,
              NkTensor      *a,
              NkTensor      *b,
              GCancellable  *cancellable,
              GError       **error)
{
  const double n = NK_TRAIN_GEMM_RATE_SIZE;
  double times[7];

  for (int r = -2; r < (int) G_N_ELEMENTS (times); r++)
    {
      double t0;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NAN;
      t0 = now_seconds ();
      if (!nk_matmul_out (c, a, b, 1.0, 0.0, error) || !nk_device_synchronize (device, error))
        return NAN;
      if (r >= 0)
        times[r] = now_seconds () - t0;
    }
  qsort (times, G_N_ELEMENTS (times), sizeof (double), compare_double);
  return 2.0 * n * n * n / times[G_N_ELEMENTS (times) / 2];
}

static double
measure_gemm (const char    *device_name,
              GCancellable  *cancellable,
              GError       **error)
{
  const gint64 n = NK_TRAIN_GEMM_RATE_SIZE;
  NkDevice *previous = nk_device_get_default ();
  NkDevice *device;
  g_autoptr(NkRng) rng = nk_rng_new (1);
  g_autoptr(NkTensor) a = NULL;
  g_autoptr(NkTensor) b = NULL;
  g_autoptr(NkTensor) c = NULL;
  double rate = NAN;

  device = nk_device_lookup (device_name, error);
  if (device == NULL)
    return NAN;

  nk_device_set_default (device);
  a = random_operand (device, rng, error);
  b = a != NULL ? random_operand (device, rng, error) : NULL;
  c = b != NULL ? nk_tensor_new_full (device, NK_DTYPE_F32, NK_SHAPE (n, n), NK_BUCKET_OTHER, FALSE, error)
                : NULL;
  if (c != NULL)
    rate = time_matmuls (device, c, a, b, cancellable, error);
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

/**
 * nk_train_gemm_rate_measure:
 * @device: "cpu", "cuda", "cuda:N" or "auto"
 * @cancellable: (nullable): a cancellable
 * @callback: called on the caller's main context when the measurement is done
 * @user_data: data for @callback
 *
 * nk_train_gemm_rate_measure_sync() on a worker thread; finish with
 * nk_train_gemm_rate_measure_finish().
 */
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

/**
 * nk_train_gemm_rate_measure_finish:
 * @result: the result given to the callback
 * @error: return location for a #GError (as nk_train_gemm_rate_measure_sync())
 *
 * Finishes nk_train_gemm_rate_measure().
 *
 * Returns: the measured FLOP/s, or NAN with @error set
 */
double
nk_train_gemm_rate_measure_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_autofree double *rate = NULL;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NAN);

  rate = g_task_propagate_pointer (G_TASK (result), error);
  return rate != NULL ? *rate : NAN;
}
