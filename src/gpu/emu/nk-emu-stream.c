/* nk-emu-stream.c: streams as ordered queues, events as markers in them
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Work waits in its stream until the host must see its effect — a synchronisation, a
 * copy into pageable memory, a free — and then runs in order on the waiting thread.
 * Deferring it (instead of running it at the call) is what makes a missing
 * synchronisation show: a host that refills a pinned buffer before the copy from it
 * ran, or reads a result before waiting, gets the wrong bytes here as on a GPU.
 * An event's time is the host clock when its marker runs, so elapsed times measure
 * the emulated work between two markers.
 */
#include "nk-emu-private.h"

#include <time.h>

typedef struct {
  NkEmuRun       run;
  gpointer       data;
  GDestroyNotify destroy;
} Op;

struct CUstream_st {
  GQueue ops;
  guint  flags;
};

struct CUevent_st {
  guint    flags;
  int      refs;
  NkEmuStream *stream;     /* where its last record waits */
  guint64  recorded;       /* records asked for */
  guint64  reached;        /* records that ran */
  double   seconds;        /* host clock when the last record ran */
};

static NkEmuStream default_stream;
static GHashTable *streams;      /* live NkEmuStream, the default one included */
static GHashTable *events;       /* live events */

static void
ensure_tables (void)
{
  if (streams != NULL)
    return;
  streams = g_hash_table_new (NULL, NULL);
  events = g_hash_table_new (NULL, NULL);
  g_hash_table_add (streams, &default_stream);
}

NkEmuStream *
nk_emu_stream_get (cudaStream_t  handle,
                   cudaError_t  *error)
{
  ensure_tables ();
  if (handle == NULL)
    return &default_stream;
  if (!g_hash_table_contains (streams, handle))
    {
      *error = cudaErrorInvalidResourceHandle;
      return NULL;
    }
  return handle;
}

void
nk_emu_enqueue (NkEmuStream   *stream,
                NkEmuRun       run,
                gpointer       data,
                GDestroyNotify destroy)
{
  Op *op = g_new (Op, 1);

  op->run = run;
  op->data = data;
  op->destroy = destroy;
  g_queue_push_tail (&stream->ops, op);
}

static void
free_op (Op *op)
{
  if (op->destroy != NULL)
    op->destroy (op->data);
  g_free (op);
}

/* Runs the oldest queued operation of @stream; after a fault, drops it instead. */
static void
run_one (NkEmuStream *stream)
{
  Op *op = g_queue_pop_head (&stream->ops);
  cudaError_t error;

  if (nk_emu_sticky_error () == cudaSuccess)
    {
      nk_emu_device_enter ();
      error = op->run (op->data);
      nk_emu_device_leave ();
      if (error != cudaSuccess && nk_emu_sticky_error () == cudaSuccess)
        nk_emu_fault (error, "queued work failed");
    }
  free_op (op);
}

cudaError_t
nk_emu_drain (NkEmuStream *stream)
{
  while (!g_queue_is_empty (&stream->ops))
    run_one (stream);
  return nk_emu_sticky_error ();
}

cudaError_t
nk_emu_drain_all (void)
{
  GHashTableIter iter;
  gpointer key;

  ensure_tables ();
  g_hash_table_iter_init (&iter, streams);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    nk_emu_drain (key);
  return nk_emu_sticky_error ();
}

/* Runs @event's stream until its last record has run. */
static void
drain_to_event (cudaEvent_t event)
{
  while (event->reached < event->recorded && !g_queue_is_empty (&event->stream->ops))
    run_one (event->stream);
}

NK_EMU_EXPORT cudaError_t
cudaStreamCreateWithFlags (cudaStream_t *handle,
                           unsigned int  flags)
{
  cudaError_t error;

  nk_emu_lock ();
  ensure_tables ();
  *handle = NULL;
  if ((error = nk_emu_sticky_error ()) == cudaSuccess)
    {
      *handle = g_new0 (NkEmuStream, 1);
      (*handle)->flags = flags;
      g_queue_init (&(*handle)->ops);
      g_hash_table_add (streams, *handle);
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaStreamCreate (cudaStream_t *handle)
{
  return cudaStreamCreateWithFlags (handle, cudaStreamDefault);
}

NK_EMU_EXPORT cudaError_t
cudaStreamDestroy (cudaStream_t handle)
{
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  if (handle == NULL || nk_emu_stream_get (handle, &error) == NULL)
    error = cudaErrorInvalidResourceHandle;
  else
    {
      /* Queued work still completes, as CUDA promises. */
      nk_emu_drain (handle);
      g_hash_table_remove (streams, handle);
      g_free (handle);
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaStreamSynchronize (cudaStream_t handle)
{
  NkEmuStream *stream;
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  if ((stream = nk_emu_stream_get (handle, &error)) != NULL)
    {
      nk_emu_host_wait ("cudaStreamSynchronize");
      error = nk_emu_drain (stream);
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaStreamQuery (cudaStream_t handle)
{
  NkEmuStream *stream;
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  if ((stream = nk_emu_stream_get (handle, &error)) != NULL && !g_queue_is_empty (&stream->ops))
    error = cudaErrorNotReady;
  error = error == cudaErrorNotReady ? error : nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaDeviceSynchronize (void)
{
  cudaError_t error;

  nk_emu_lock ();
  nk_emu_host_wait ("cudaDeviceSynchronize");
  error = nk_emu_set_error (nk_emu_drain_all ());
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaEventCreateWithFlags (cudaEvent_t  *handle,
                          unsigned int  flags)
{
  cudaError_t error;

  nk_emu_lock ();
  ensure_tables ();
  *handle = NULL;
  if ((error = nk_emu_sticky_error ()) == cudaSuccess)
    {
      *handle = g_new0 (struct CUevent_st, 1);
      (*handle)->flags = flags;
      (*handle)->refs = 1;
      g_hash_table_add (events, *handle);
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaEventCreate (cudaEvent_t *handle)
{
  return cudaEventCreateWithFlags (handle, cudaEventDefault);
}

static void
event_unref (gpointer data)
{
  cudaEvent_t event = data;

  if (--event->refs == 0)
    g_free (event);
}

NK_EMU_EXPORT cudaError_t
cudaEventDestroy (cudaEvent_t event)
{
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  ensure_tables ();
  /* A record still queued keeps its own reference, as CUDA defers the release. */
  if (event == NULL || !g_hash_table_remove (events, event))
    error = cudaErrorInvalidResourceHandle;
  else
    event_unref (event);
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

typedef struct {
  cudaEvent_t event;
  guint64     number;
} Record;

static cudaError_t
run_record (gpointer data)
{
  Record *record = data;
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  record->event->reached = MAX (record->event->reached, record->number);
  record->event->seconds = now.tv_sec + now.tv_nsec * 1e-9;
  return cudaSuccess;
}

static void
free_record (gpointer data)
{
  Record *record = data;

  event_unref (record->event);
  g_free (record);
}

NK_EMU_EXPORT cudaError_t
cudaEventRecord (cudaEvent_t  event,
                 cudaStream_t handle)
{
  NkEmuStream *stream;
  cudaError_t error = nk_emu_sticky_error ();
  Record *record;

  nk_emu_lock ();
  ensure_tables ();
  if (error != cudaSuccess)
    ;
  else if (event == NULL || !g_hash_table_contains (events, event))
    error = cudaErrorInvalidResourceHandle;
  else if ((stream = nk_emu_stream_get (handle, &error)) != NULL)
    {
      /* An earlier record still queued elsewhere: this one replaces it. */
      if (event->stream != NULL && event->stream != stream)
        drain_to_event (event);
      event->stream = stream;
      record = g_new (Record, 1);
      record->event = event;
      record->number = ++event->recorded;
      event->refs++;
      nk_emu_enqueue (stream, run_record, record, free_record);
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaEventQuery (cudaEvent_t event)
{
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  ensure_tables ();
  if (event == NULL || !g_hash_table_contains (events, event))
    error = nk_emu_set_error (cudaErrorInvalidResourceHandle);
  else if (event->reached < event->recorded)
    error = cudaErrorNotReady;
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaEventSynchronize (cudaEvent_t event)
{
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  ensure_tables ();
  if (event == NULL || !g_hash_table_contains (events, event))
    error = cudaErrorInvalidResourceHandle;
  else if (event->reached < event->recorded)
    {
      nk_emu_host_wait ("cudaEventSynchronize");
      drain_to_event (event);
      error = nk_emu_sticky_error ();
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

static cudaError_t
run_wait (gpointer data)
{
  cudaEvent_t event = data;

  if (event->stream != NULL)
    drain_to_event (event);
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
cudaStreamWaitEvent (cudaStream_t handle,
                     cudaEvent_t  event,
                     unsigned int flags)
{
  NkEmuStream *stream;
  cudaError_t error = nk_emu_sticky_error ();

  nk_emu_lock ();
  ensure_tables ();
  if (error != cudaSuccess)
    ;
  else if (event == NULL || !g_hash_table_contains (events, event))
    error = cudaErrorInvalidResourceHandle;
  else if ((stream = nk_emu_stream_get (handle, &error)) != NULL)
    {
      event->refs++;
      nk_emu_enqueue (stream, run_wait, event, event_unref);
    }
  error = nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}

NK_EMU_EXPORT cudaError_t
cudaEventElapsedTime (float       *ms,
                      cudaEvent_t  start,
                      cudaEvent_t  end)
{
  cudaError_t error = cudaSuccess;

  nk_emu_lock ();
  ensure_tables ();
  if (start == NULL || end == NULL || !g_hash_table_contains (events, start)
      || !g_hash_table_contains (events, end) || start->recorded == 0 || end->recorded == 0
      || ((start->flags | end->flags) & cudaEventDisableTiming))
    error = cudaErrorInvalidResourceHandle;
  else if (start->reached < start->recorded || end->reached < end->recorded)
    error = cudaErrorNotReady;
  else
    *ms = (float) ((end->seconds - start->seconds) * 1e3);
  error = error == cudaErrorNotReady ? error : nk_emu_set_error (error);
  nk_emu_unlock ();
  return error;
}
