/* nk-device-probe.c: the CUDA probe: one worker thread per process, a cached answer
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "nk-device.h"
#include "nk-device-probe.h"

/* Everything below is guarded by probe_lock: the worker writes the answer, any
 * thread may read it or wait for it. */
static GMutex probe_lock;
static GCond probe_cond;
static gboolean probe_started;
static gboolean probe_done;
static gboolean probe_usable;
static char *probe_text;        /* a description, or why there is no device */
static GPtrArray *probe_waiters; /* (element-type GTask): callers waiting for the answer */

/* Completes @task with an answer; called without probe_lock, since a GTask may run
 * its callback from inside g_task_return_*. */
static void
return_answer (GTask      *task,
               gboolean    usable,
               const char *text)
{
  if (usable)
    g_task_return_pointer (task, g_strdup (text), g_free);
  else
    g_task_return_new_error (task, NK_DEVICE_ERROR, NK_DEVICE_ERROR_NOT_FOUND, "%s", text);
}

static void
probe_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) waiters = NULL;
  NkDevice *device = nk_device_lookup ("cuda", &error);
  char *text = device != NULL ? nk_device_describe (device) : g_strdup (error->message);

  g_mutex_lock (&probe_lock);
  probe_usable = device != NULL;
  probe_text = text;
  probe_done = TRUE;
  waiters = g_steal_pointer (&probe_waiters);
  g_cond_broadcast (&probe_cond);
  g_mutex_unlock (&probe_lock);

  /* GTask delivers each callback on its caller's main context, not on this thread;
   * probe_text no longer changes once probe_done is set. */
  for (guint i = 0; waiters != NULL && i < waiters->len; i++)
    return_answer (g_ptr_array_index (waiters, i), device != NULL, text);
  g_task_return_boolean (task, TRUE);
}

/**
 * nk_device_probe_cuda_async:
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the calling thread's default main context once the probe ends
 * @user_data: data for @callback
 *
 * Looks for a CUDA device off the calling thread. The probe runs once per process; a
 * call made while it runs joins it, and a call made after it ended completes (in a
 * later main-loop iteration) with the cached answer. @callback always runs, also
 * when @cancellable was cancelled: then nk_device_probe_cuda_finish() fails with
 * %G_IO_ERROR_CANCELLED, and a callback must not touch @user_data that may be gone.
 */
void
nk_device_probe_cuda_async (GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GTask) worker = NULL;

  g_task_set_source_tag (task, nk_device_probe_cuda_async);
  g_task_set_name (task, "[napkin] CUDA probe");

  g_mutex_lock (&probe_lock);
  if (probe_done)
    {
      g_mutex_unlock (&probe_lock);
      return_answer (task, probe_usable, probe_text);
      return;
    }
  if (probe_waiters == NULL)
    probe_waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (probe_waiters, g_steal_pointer (&task));
  if (!probe_started)
    {
      probe_started = TRUE;
      worker = g_task_new (NULL, NULL, NULL, NULL);
      g_task_set_name (worker, "[napkin] CUDA probe worker");
    }
  g_mutex_unlock (&probe_lock);

  if (worker != NULL)
    g_task_run_in_thread (worker, probe_thread);
}

/**
 * nk_device_probe_cuda_finish:
 * @result: the #GAsyncResult given to the callback
 * @out_description: (out) (optional) (transfer full): the device's description
 *   (model, memory) when one is usable
 * @error: return location for a #GError: why there is no CUDA device
 *   (%NK_DEVICE_ERROR_NOT_FOUND, "no CUDA device: …"), or %G_IO_ERROR_CANCELLED
 *
 * Ends a probe started with nk_device_probe_cuda_async().
 *
 * Returns: %TRUE when a CUDA device is usable
 */
gboolean
nk_device_probe_cuda_finish (GAsyncResult  *result,
                             char         **out_description,
                             GError       **error)
{
  char *description;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == nk_device_probe_cuda_async,
                        FALSE);

  description = g_task_propagate_pointer (G_TASK (result), error);
  if (out_description != NULL)
    *out_description = description;
  else
    g_free (description);
  return description != NULL;
}

/**
 * nk_device_get_cached_cuda_probe:
 * @out_usable: (out) (optional): whether a CUDA device is usable
 * @out_text: (out) (optional) (transfer full): the device's description, or the
 *   sentence that says why there is none
 *
 * Reads the probe's answer without waiting; thread-safe.
 *
 * Returns: %TRUE when the probe has ended (the out values are set), %FALSE when it
 *   has not started or still runs (they are left alone)
 */
gboolean
nk_device_get_cached_cuda_probe (gboolean  *out_usable,
                                 char     **out_text)
{
  gboolean done;

  g_mutex_lock (&probe_lock);
  done = probe_done;
  if (done && out_usable != NULL)
    *out_usable = probe_usable;
  if (done && out_text != NULL)
    *out_text = g_strdup (probe_text);
  g_mutex_unlock (&probe_lock);
  return done;
}

/**
 * nk_device_wait_for_probe:
 *
 * Blocks until a running probe has ended; returns at once when none was started.
 * An application calls it before it exits: the CUDA runtime's exit handlers crash
 * while another thread is still inside the runtime.
 */
void
nk_device_wait_for_probe (void)
{
  g_mutex_lock (&probe_lock);
  while (probe_started && !probe_done)
    g_cond_wait (&probe_cond, &probe_lock);
  g_mutex_unlock (&probe_lock);
}
