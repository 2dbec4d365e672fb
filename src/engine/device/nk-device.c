/* nk-device.c: device registry, per-bucket memory accounting, module loading, timers
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include "nk-device-private.h"
#include "nk-units.h"

/**
 * nk_device_error_quark:
 *
 * The error domain of devices: one that is missing, out of memory, or whose driver
 * failed.
 *
 * Returns: the #GQuark of %NK_DEVICE_ERROR
 */
G_DEFINE_QUARK (nk-device-error-quark, nk_device_error)

struct _NkDevice
{
  char              *name;
  const NkDeviceOps *ops;
  gpointer           backend;

  GMutex             lock;
  guint64            live[NK_N_BUCKETS];
  guint64            peak[NK_N_BUCKETS];
  guint64            live_total;
  guint64            peak_total;
};

struct _NkDeviceTimer
{
  NkDevice *device;
  gpointer  start;
  gpointer  end;
};

/* Devices are registered once and live as long as the process, so the boxed type
 * hands out the same pointer and frees nothing: bindings may hold a device as
 * long as they like. */
static NkDevice *
device_boxed_copy (NkDevice *device)
{
  return device;
}

static void
device_boxed_free (NkDevice *device)
{
}

G_DEFINE_BOXED_TYPE (NkDevice, nk_device, device_boxed_copy, device_boxed_free)

static GMutex registry_lock;
static GPtrArray *registry;            /* (element-type NkDevice) */
static gboolean cuda_module_tried;
static char *cuda_module_reason;
static __thread NkDevice *default_device;

static const char *const bucket_names[NK_N_BUCKETS] = {
  "params", "grads", "optimizer", "activations", "data", "other",
};

/**
 * nk_bucket_to_string:
 * @bucket: a bucket (not %NK_N_BUCKETS)
 *
 * The bucket's name as CLI.md spells the JSON keys of measured memory.
 *
 * Returns: (transfer none): "params", "grads", "optimizer", "activations", "data"
 *   or "other"
 */
const char *
nk_bucket_to_string (NkBucket bucket)
{
  g_return_val_if_fail (bucket < NK_N_BUCKETS, NULL);

  return bucket_names[bucket];
}

static NkDevice *
register_locked (const char        *name,
                 const NkDeviceOps *ops,
                 gpointer           backend)
{
  NkDevice *device = g_new0 (NkDevice, 1);

  device->name = g_strdup (name);
  device->ops = ops;
  device->backend = backend;
  g_mutex_init (&device->lock);

  if (registry == NULL)
    registry = g_ptr_array_new ();
  g_ptr_array_add (registry, device);

  return device;
}

static NkDevice *
find_locked (const char *name)
{
  if (registry == NULL)
    return NULL;
  for (guint i = 0; i < registry->len; i++)
    {
      NkDevice *device = g_ptr_array_index (registry, i);
      if (g_str_equal (device->name, name))
        return device;
    }
  return NULL;
}

NkDevice *
nk_device_get_cpu (void)
{
  static NkDevice *cpu;

  if (g_once_init_enter (&cpu))
    {
      NkDevice *device;

      g_mutex_lock (&registry_lock);
      device = register_locked ("cpu", _nk_device_cpu_ops (), NULL);
      g_mutex_unlock (&registry_lock);
      g_once_init_leave (&cpu, device);
    }
  return cpu;
}

NkDevice *
nk_device_register (const char        *name,
                    const NkDeviceOps *ops,
                    gpointer           backend)
{
  NkDevice *device;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (ops != NULL && ops->abi_version == NK_DEVICE_ABI_VERSION, NULL);

  nk_device_get_cpu ();

  g_mutex_lock (&registry_lock);
  if (find_locked (name) != NULL)
    {
      g_mutex_unlock (&registry_lock);
      g_critical ("A device named %s is already registered", name);
      return NULL;
    }
  device = register_locked (name, ops, backend);
  g_mutex_unlock (&registry_lock);

  return device;
}

/* Called from inside a module's init, with registry_lock NOT held. */
static NkDevice *
module_register (const char        *name,
                 const NkDeviceOps *ops,
                 gpointer           backend)
{
  return nk_device_register (name, ops, backend);
}

/* Loads libnapkin-cuda once; remembers why it failed so every later request
 * gives the same reason without retrying. */
static void
load_cuda_module (void)
{
  g_autoptr(GPtrArray) dirs = g_ptr_array_new ();
  g_autoptr(GString) reasons = g_string_new (NULL);
  const char *env = g_getenv ("NAPKIN_MODULE_DIR");
  /* Tests (only) select another build of the module by its path: src/gpu/emu's. */
  const char *module_path = g_getenv ("NAPKIN_CUDA_MODULE");

  if (cuda_module_tried)
    return;
  cuda_module_tried = TRUE;

  if (!g_module_supported ())
    {
      cuda_module_reason = g_strdup (_("this system cannot load modules"));
      return;
    }

  if (module_path != NULL && *module_path != '\0')
    g_ptr_array_add (dirs, NULL);
  else
    {
      if (env != NULL && *env != '\0')
        g_ptr_array_add (dirs, (gpointer) env);
      g_ptr_array_add (dirs, (gpointer) NK_BUILD_MODULEDIR);
      g_ptr_array_add (dirs, (gpointer) NK_MODULEDIR);
    }

  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_ptr_array_index (dirs, i) == NULL
                              ? g_strdup (module_path)
                              : g_module_build_path (g_ptr_array_index (dirs, i), "napkin-cuda");
      g_autoptr(GError) local_error = NULL;
      NkDeviceModuleInit init = NULL;
      GModule *module;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;

      module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
      if (module == NULL)
        {
          g_string_append_printf (reasons, "%s%s", reasons->len ? "; " : "", g_module_error ());
          continue;
        }
      if (!g_module_symbol (module, "nk_device_module_init", (gpointer *) &init) || init == NULL)
        {
          g_string_append_printf (reasons, "%s%s", reasons->len ? "; " : "", g_module_error ());
          g_module_close (module);
          continue;
        }
      /* The module stays loaded: its ops tables are referenced by devices. */
      g_module_make_resident (module);
      g_mutex_unlock (&registry_lock);
      if (!init (NK_DEVICE_ABI_VERSION, module_register, &local_error))
        {
          g_mutex_lock (&registry_lock);
          cuda_module_reason = g_strdup (local_error ? local_error->message : _("the CUDA module failed to start"));
          return;
        }
      g_mutex_lock (&registry_lock);
      return;
    }

  if (reasons->len > 0)
    cuda_module_reason = g_strdup (reasons->str);
  else
    cuda_module_reason = g_strdup (_("this build has no CUDA module"));
}

NkDevice *
nk_device_lookup (const char  *name,
                  GError     **error)
{
  NkDevice *device = NULL;
  gboolean want_cuda, is_auto;

  g_return_val_if_fail (name != NULL, NULL);

  if (g_str_equal (name, "cpu"))
    return nk_device_get_cpu ();

  nk_device_get_cpu ();
  is_auto = g_str_equal (name, "auto");
  want_cuda = is_auto || g_str_equal (name, "cuda") || g_str_has_prefix (name, "cuda:");
  if (!want_cuda)
    {
      g_mutex_lock (&registry_lock);
      device = find_locked (name);
      g_mutex_unlock (&registry_lock);
      if (device == NULL)
        g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_NOT_FOUND,
                     _("Unknown device “%s”: expected cpu, cuda, cuda:N or auto."), name);
      return device;
    }

  g_mutex_lock (&registry_lock);
  load_cuda_module ();
  if (is_auto || g_str_equal (name, "cuda"))
    {
      for (guint i = 0; registry != NULL && i < registry->len; i++)
        {
          NkDevice *d = g_ptr_array_index (registry, i);
          if (d->ops->kind == NK_DEVICE_CUDA)
            {
              device = d;
              break;
            }
        }
    }
  else
    device = find_locked (name);
  g_mutex_unlock (&registry_lock);

  if (device != NULL)
    return device;
  if (is_auto)
    return nk_device_get_cpu ();

  g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_NOT_FOUND,
               _("no CUDA device: %s"),
               cuda_module_reason ? cuda_module_reason : _("the CUDA module registered no device"));
  return NULL;
}

GPtrArray *
nk_device_list (void)
{
  GPtrArray *list = g_ptr_array_new ();

  nk_device_get_cpu ();
  g_mutex_lock (&registry_lock);
  for (guint i = 0; i < registry->len; i++)
    g_ptr_array_add (list, g_ptr_array_index (registry, i));
  g_mutex_unlock (&registry_lock);

  return list;
}

NkDevice *
nk_device_get_default (void)
{
  if (default_device == NULL)
    default_device = nk_device_get_cpu ();
  return default_device;
}

/**
 * nk_device_set_default:
 * @device: (transfer none): a device (devices live as long as the process)
 *
 * Makes @device the calling thread's default device (nk_device_get_default()); a
 * training worker sets it for its run.
 */
void
nk_device_set_default (NkDevice *device)
{
  default_device = device;
}

/**
 * nk_device_get_name:
 * @device: a device
 *
 * The name nk_device_lookup() finds the device by.
 *
 * Returns: (transfer none): "cpu", "cuda:0", ...
 */
const char *
nk_device_get_name (NkDevice *device)
{
  g_return_val_if_fail (device != NULL, NULL);
  return device->name;
}

/**
 * nk_device_get_kind:
 * @device: a device
 *
 * Whether the device is the CPU or a CUDA GPU.
 *
 * Returns: the kind
 */
NkDeviceKind
nk_device_get_kind (NkDevice *device)
{
  g_return_val_if_fail (device != NULL, NK_DEVICE_CPU);
  return device->ops->kind;
}

/**
 * nk_device_describe:
 * @device: a device
 *
 * One line about the hardware for people, as the backend reports it.
 *
 * Returns: (transfer full): the backend's line (model, memory), or the device's
 *   name where the backend gives none
 */
char *
nk_device_describe (NkDevice *device)
{
  g_return_val_if_fail (device != NULL, NULL);
  if (device->ops->describe != NULL)
    return device->ops->describe (device->backend);
  return g_strdup (device->name);
}

const NkDeviceOps *
nk_device_get_ops (NkDevice *device)
{
  g_return_val_if_fail (device != NULL, NULL);
  return device->ops;
}

gpointer
nk_device_get_backend (NkDevice *device)
{
  g_return_val_if_fail (device != NULL, NULL);
  return device->backend;
}

static void
count_locked (NkDevice *device,
              gssize    delta,
              NkBucket  bucket)
{
  if (delta < 0 && (guint64) -delta > device->live[bucket])
    {
      g_critical ("Device %s: freeing more %s bytes than are live", device->name,
                  bucket_names[bucket]);
      delta = -(gssize) device->live[bucket];
    }
  device->live[bucket] += delta;
  device->live_total += delta;
  device->peak[bucket] = MAX (device->peak[bucket], device->live[bucket]);
  device->peak_total = MAX (device->peak_total, device->live_total);
}

gpointer
nk_device_alloc (NkDevice  *device,
                 gsize      nbytes,
                 NkBucket   bucket,
                 GError   **error)
{
  g_autoptr(GError) local_error = NULL;
  gpointer ptr;

  g_return_val_if_fail (device != NULL, NULL);
  g_return_val_if_fail (bucket < NK_N_BUCKETS, NULL);

  ptr = device->ops->alloc (device->backend, nbytes, &local_error);
  if (ptr == NULL)
    {
      GString *sizes = g_string_new (NULL);

      g_mutex_lock (&device->lock);
      for (int b = 0; b < NK_N_BUCKETS; b++)
        {
          g_autofree char *s = nk_units_format_bytes ((double) device->live[b]);
          g_string_append_printf (sizes, "%s%s %s", b ? ", " : "", bucket_names[b], s);
        }
      g_mutex_unlock (&device->lock);

      {
        g_autofree char *want = nk_units_format_bytes ((double) nbytes);
        g_autofree char *live = g_string_free (sizes, FALSE);
        g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_OUT_OF_MEMORY,
                     _("Out of memory on %s allocating %s for %s (live: %s)%s%s"),
                     device->name, want, bucket_names[bucket], live,
                     local_error ? ": " : "", local_error ? local_error->message : "");
      }
      return NULL;
    }

  g_mutex_lock (&device->lock);
  count_locked (device, (gssize) nbytes, bucket);
  g_mutex_unlock (&device->lock);

  return ptr;
}

/**
 * nk_device_free: (skip)
 * @device: the device that allocated @ptr
 * @ptr: (nullable): memory from nk_device_alloc()
 * @nbytes: the size it was allocated with
 * @bucket: the bucket it was counted in
 *
 * Frees device memory and takes its bytes out of @bucket's live count. Storages
 * call this; skipped for bindings, which hold storages, not device pointers.
 */
void
nk_device_free (NkDevice *device,
                gpointer  ptr,
                gsize     nbytes,
                NkBucket  bucket)
{
  g_return_if_fail (device != NULL);
  g_return_if_fail (bucket < NK_N_BUCKETS);

  device->ops->free (device->backend, ptr, nbytes);
  g_mutex_lock (&device->lock);
  count_locked (device, -(gssize) nbytes, bucket);
  g_mutex_unlock (&device->lock);
}

/**
 * nk_device_move_bytes:
 * @device: a device
 * @nbytes: bytes already counted in @from
 * @from: the bucket they leave
 * @to: the bucket they join
 *
 * Moves already-counted bytes from one bucket to another, as nk_storage_set_bucket()
 * does when a tensor's role changes (a batch becomes a parameter); peaks follow.
 */
void
nk_device_move_bytes (NkDevice *device,
                      gsize     nbytes,
                      NkBucket  from,
                      NkBucket  to)
{
  g_return_if_fail (device != NULL);
  g_return_if_fail (from < NK_N_BUCKETS && to < NK_N_BUCKETS);

  g_mutex_lock (&device->lock);
  count_locked (device, -(gssize) nbytes, from);
  count_locked (device, (gssize) nbytes, to);
  g_mutex_unlock (&device->lock);
}

/**
 * nk_device_count_bytes:
 * @device: a device
 * @delta: bytes to add (negative: to take away)
 * @bucket: the bucket
 *
 * Counts bytes the device did not allocate, such as wrapped host memory, so they
 * appear in the bucket's live and peak bytes.
 */
void
nk_device_count_bytes (NkDevice *device,
                       gssize    delta,
                       NkBucket  bucket)
{
  g_return_if_fail (device != NULL);
  g_return_if_fail (bucket < NK_N_BUCKETS);

  g_mutex_lock (&device->lock);
  count_locked (device, delta, bucket);
  g_mutex_unlock (&device->lock);
}

void
nk_device_get_bytes (NkDevice *device,
                     NkBucket  bucket,
                     guint64  *out_live,
                     guint64  *out_peak)
{
  guint64 live, peak;

  g_return_if_fail (device != NULL);
  g_return_if_fail (bucket <= NK_N_BUCKETS);

  g_mutex_lock (&device->lock);
  if (bucket == NK_N_BUCKETS)
    {
      live = device->live_total;
      peak = device->peak_total;
    }
  else
    {
      live = device->live[bucket];
      peak = device->peak[bucket];
    }
  g_mutex_unlock (&device->lock);

  if (out_live)
    *out_live = live;
  if (out_peak)
    *out_peak = peak;
}

/**
 * nk_device_reset_peak:
 * @device: a device
 *
 * Sets every bucket's peak to its live bytes now, so the next
 * nk_device_get_bytes() reports the peak of what follows (one training step, say).
 */
void
nk_device_reset_peak (NkDevice *device)
{
  g_return_if_fail (device != NULL);

  g_mutex_lock (&device->lock);
  for (int b = 0; b < NK_N_BUCKETS; b++)
    device->peak[b] = device->live[b];
  device->peak_total = device->live_total;
  g_mutex_unlock (&device->lock);
}

/**
 * nk_device_memory_info:
 * @device: a device
 * @out_free: (out) (optional): free bytes, as the driver reports them
 * @out_total: (out) (optional): total bytes
 * @error: return location for a #GError (%NK_DEVICE_ERROR_UNSUPPORTED when the
 *   device cannot say)
 *
 * The whole device's memory as its driver sees it (cudaMemGetInfo on a GPU),
 * including other processes' use, unlike the buckets' counts of Napkin's own bytes.
 *
 * Returns: %TRUE when the figures were read
 */
gboolean
nk_device_memory_info (NkDevice  *device,
                       guint64   *out_free,
                       guint64   *out_total,
                       GError   **error)
{
  guint64 f = 0, t = 0;

  g_return_val_if_fail (device != NULL, FALSE);

  if (device->ops->memory_info == NULL)
    {
      g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
                   _("Device %s cannot report its memory."), device->name);
      return FALSE;
    }
  if (!device->ops->memory_info (device->backend, &f, &t, error))
    return FALSE;
  if (out_free)
    *out_free = f;
  if (out_total)
    *out_total = t;
  return TRUE;
}

/**
 * nk_device_copy: (skip)
 * @device: the device
 * @kind: which way the bytes go
 * @dst: destination memory (host or device, as @kind says)
 * @src: source memory
 * @nbytes: bytes to copy
 * @error: return location for a #GError
 *
 * Copies raw bytes to, from or within the device. Skipped for bindings: it takes
 * device pointers; tensors copy with nk_tensor_to_device() and nk_contiguous().
 *
 * Returns: %TRUE on success
 */
gboolean
nk_device_copy (NkDevice      *device,
                NkCopyKind     kind,
                gpointer       dst,
                gconstpointer  src,
                gsize          nbytes,
                GError       **error)
{
  g_return_val_if_fail (device != NULL, FALSE);

  if (nbytes == 0)
    return TRUE;
  return device->ops->copy (device->backend, kind, dst, src, nbytes, error);
}

/**
 * nk_device_synchronize:
 * @device: a device
 * @error: return location for a #GError (%NK_DEVICE_ERROR_FAILED with the driver's
 *   reason)
 *
 * Waits until the work queued on the device is done (a no-op on the CPU, whose
 * kernels finish before they return); asynchronous errors of a GPU appear here.
 *
 * Returns: %TRUE when all the work succeeded
 */
gboolean
nk_device_synchronize (NkDevice  *device,
                       GError   **error)
{
  g_return_val_if_fail (device != NULL, FALSE);

  if (device->ops->synchronize == NULL)
    return TRUE;
  return device->ops->synchronize (device->backend, error);
}

/**
 * nk_device_rows: (skip)
 * @device: a device
 * @dtype: the rows' dtype (f32 or f64)
 * @call: the row kernel and its operands, device pointers (nk-kernels.h)
 * @error: return location for a #GError (%NK_DEVICE_ERROR_UNSUPPORTED when the
 *   device has no row kernels)
 *
 * Runs a row kernel — LayerNorm, causal softmax, embedding — on @device.
 * Skipped for bindings: @call holds device pointers; the ops in nk-ops.h run these
 * kernels on tensors.
 *
 * Returns: %TRUE on success
 */
gboolean
nk_device_rows (NkDevice          *device,
                NkDType            dtype,
                const NkRowsCall  *call,
                GError           **error)
{
  g_return_val_if_fail (device != NULL, FALSE);
  g_return_val_if_fail (call != NULL, FALSE);

  if (device->ops->rows == NULL)
    {
      g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
                   _("The device %s has no LayerNorm, softmax or embedding kernels."),
                   device->name);
      return FALSE;
    }
  return device->ops->rows (device->backend, dtype, call, error);
}

/**
 * nk_device_timer_start: (skip)
 * @device: a device
 *
 * Marks the start of timed work in device order. Skipped for bindings: the
 * timer holds backend events that cannot be copied, and a binding times with its
 * own clock around nk_device_synchronize().
 *
 * Returns: (transfer full): a timer for nk_device_timer_stop() and
 *   nk_device_timer_free()
 */
NkDeviceTimer *
nk_device_timer_start (NkDevice *device)
{
  NkDeviceTimer *timer;

  g_return_val_if_fail (device != NULL, NULL);

  timer = g_new0 (NkDeviceTimer, 1);
  timer->device = device;
  timer->start = device->ops->timer_mark (device->backend);
  return timer;
}

/**
 * nk_device_timer_stop: (skip)
 * @timer: a timer from nk_device_timer_start()
 *
 * Marks the end, waits for the work between the marks and measures it; may be
 * called again to measure to a later end.
 *
 * Returns: the seconds between the start and this end mark
 */
double
nk_device_timer_stop (NkDeviceTimer *timer)
{
  const NkDeviceOps *ops;

  g_return_val_if_fail (timer != NULL, 0.0);

  ops = timer->device->ops;
  if (timer->end != NULL)
    ops->timer_free (timer->device->backend, timer->end);
  timer->end = ops->timer_mark (timer->device->backend);
  return ops->timer_elapsed (timer->device->backend, timer->start, timer->end);
}

/**
 * nk_device_timer_free: (skip)
 * @timer: (transfer full) (nullable): a timer
 *
 * Frees the timer and its backend events.
 */
void
nk_device_timer_free (NkDeviceTimer *timer)
{
  if (timer == NULL)
    return;
  if (timer->start != NULL)
    timer->device->ops->timer_free (timer->device->backend, timer->start);
  if (timer->end != NULL)
    timer->device->ops->timer_free (timer->device->backend, timer->end);
  g_free (timer);
}
