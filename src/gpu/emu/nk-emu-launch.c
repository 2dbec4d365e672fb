/* nk-emu-launch.c: kernel launches, each CUDA thread a fiber, barriers and warps honoured
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A launch is checked at the call (geometry, injected failures) and queued; when it
 * runs, every block of the grid runs in turn on the draining thread, and each of the
 * block's threads runs on its own fiber (ucontext) with its own blockIdx/threadIdx.
 * A thread runs until it finishes or waits at a barrier: __syncthreads releases when
 * every unfinished thread of the block waits there; a warp operation (__syncwarp, the
 * shuffles, __ballot_sync) when every lane its mask names waits there. Threads that
 * wait at different barriers, or for an exited lane, can never go on: the launch
 * faults, where a GPU would hang or be undefined.
 *
 * Shuffles exchange through two banks of slots per lane, alternating, so one barrier
 * per shuffle suffices: a lane cannot write bank b again before every lane has passed
 * the next barrier, by which time all have read bank b.
 */
#include "nk-emu-private.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#ifndef __has_feature
# define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature (address_sanitizer)
# include <sanitizer/common_interface_defs.h>
# define NK_EMU_ASAN 1
#else
# define NK_EMU_ASAN 0
#endif

#define STACK_SIZE (256 * 1024)

NK_EMU_EXPORT __thread uint3 nk_emu_thread_idx, nk_emu_block_idx, nk_emu_block_dim, nk_emu_grid_dim;

typedef enum { FIBER_READY, FIBER_BLOCK_WAIT, FIBER_WARP_WAIT, FIBER_DONE } FiberState;

typedef struct {
  ucontext_t   context;
  FiberState   state;
  unsigned int mask;            /* the lanes a warp wait names */
  uint3        index;
  unsigned int bank;            /* the next shuffle's bank */
  void        *fake_stack;      /* AddressSanitizer's, across switches */
} Fiber;

typedef struct {
  void       (*thread_fn) (void *);
  void        *closure;
  Fiber       *fibers;
  unsigned int n;
  ucontext_t   scheduler;
  const void  *scheduler_stack;  /* for AddressSanitizer's fiber switches */
  size_t       scheduler_stack_size;
  uint64_t    *slots[2];         /* per linear thread id */
} Block;

static __thread Block *current_block;
static __thread Fiber *current_fiber;
static __thread char **stacks;   /* one per thread id, kept for the next block */
static __thread unsigned int n_stacks;

static char *
stack_for (unsigned int tid)
{
  if (tid >= n_stacks)
    {
      stacks = g_renew (char *, stacks, tid + 1);
      for (unsigned int i = n_stacks; i <= tid; i++)
        {
          /* A guard page below each stack turns an overflow into a crash. */
          char *base = mmap (NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
          g_assert (base != MAP_FAILED);
          mprotect (base, 4096, PROT_NONE);
          stacks[i] = base;
        }
      n_stacks = tid + 1;
    }
  return stacks[tid];
}

static void
switch_to_fiber (Block *block,
                 Fiber *fiber)
{
  void *fake = NULL;
  unsigned int tid = (unsigned int) (fiber - block->fibers);

  current_fiber = fiber;
  nk_emu_thread_idx = fiber->index;
#if NK_EMU_ASAN
  __sanitizer_start_switch_fiber (&fake, stack_for (tid), STACK_SIZE);
#endif
  swapcontext (&block->scheduler, &fiber->context);
#if NK_EMU_ASAN
  __sanitizer_finish_switch_fiber (fake, NULL, NULL);
#else
  (void) fake;
  (void) tid;
#endif
  current_fiber = NULL;
}

/* Back to the scheduler; returns when the scheduler resumes this fiber. */
static void
switch_to_scheduler (gboolean finished)
{
  Block *block = current_block;
  Fiber *fiber = current_fiber;

#if NK_EMU_ASAN
  __sanitizer_start_switch_fiber (finished ? NULL : &fiber->fake_stack,
                                  block->scheduler_stack, block->scheduler_stack_size);
#endif
  swapcontext (&fiber->context, &block->scheduler);
#if NK_EMU_ASAN
  __sanitizer_finish_switch_fiber (fiber->fake_stack, &block->scheduler_stack,
                                   &block->scheduler_stack_size);
#endif
}

static void
fiber_main (void)
{
  Block *block = current_block;

#if NK_EMU_ASAN
  __sanitizer_finish_switch_fiber (NULL, &block->scheduler_stack, &block->scheduler_stack_size);
#endif
  block->thread_fn (block->closure);
  current_fiber->state = FIBER_DONE;
  switch_to_scheduler (TRUE);
  g_assert_not_reached ();
}

/* Lets waiting threads go when their barrier is complete. Returns FALSE on a
 * deadlock (someone waits, nobody can go), with its reason in @why. */
static gboolean
release (Block       *block,
         const char **why)
{
  unsigned int live = 0, at_block = 0, released = 0;

  for (unsigned int i = 0; i < block->n; i++)
    {
      live += block->fibers[i].state != FIBER_DONE;
      at_block += block->fibers[i].state == FIBER_BLOCK_WAIT;
    }
  if (live == 0)
    return TRUE;
  if (at_block == live)
    {
      for (unsigned int i = 0; i < block->n; i++)
        block->fibers[i].state = FIBER_READY;
      return TRUE;
    }
  for (unsigned int w = 0; w * 32 < block->n; w++)
    {
      Fiber *lanes = &block->fibers[w * 32];
      unsigned int n = MIN (32u, block->n - w * 32), mask = 0;
      gboolean complete = TRUE;

      for (unsigned int l = 0; l < n; l++)
        if (lanes[l].state == FIBER_WARP_WAIT)
          mask = lanes[l].mask;
      if (mask == 0)
        continue;
      for (unsigned int l = 0; l < 32 && complete; l++)
        if (mask & (1u << l))
          complete = l < n && lanes[l].state == FIBER_WARP_WAIT && lanes[l].mask == mask;
      if (!complete)
        continue;
      for (unsigned int l = 0; l < n; l++)
        if (mask & (1u << l))
          lanes[l].state = FIBER_READY, released++;
    }
  if (released > 0)
    return TRUE;
  *why = at_block > 0 ? "threads wait at __syncthreads while others wait in a warp operation "
                        "or for a lane that exited (divergent barrier)"
                      : "a warp operation's mask names a lane that exited or never arrives";
  return FALSE;
}

/* getcontext() returns twice: alone in its own frame, it clobbers nobody's locals. */
static void __attribute__ ((noinline))
prepare_context (Fiber *fiber,
                 char  *stack)
{
  getcontext (&fiber->context);
  fiber->context.uc_stack.ss_sp = stack;
  fiber->context.uc_stack.ss_size = STACK_SIZE;
  fiber->context.uc_link = NULL;
  makecontext (&fiber->context, fiber_main, 0);
}

static gboolean
run_block (Block       *block,
           gboolean     reverse,
           const char **why)
{
  for (unsigned int t = 0; t < block->n; t++)
    {
      Fiber *fiber = &block->fibers[t];
      unsigned int x = nk_emu_block_dim.x, y = nk_emu_block_dim.y;

      fiber->state = FIBER_READY;
      fiber->index = (uint3) { t % x, (t / x) % y, t / (x * y) };
      fiber->bank = 0;
      prepare_context (fiber, stack_for (t));
    }
  for (;;)
    {
      gboolean ran = FALSE;

      for (unsigned int k = 0; k < block->n; k++)
        {
          Fiber *fiber = &block->fibers[reverse ? block->n - 1 - k : k];

          if (fiber->state == FIBER_READY)
            {
              switch_to_fiber (block, fiber);
              ran = TRUE;
            }
        }
      if (!release (block, why))
        return FALSE;
      if (!ran)
        return TRUE;
    }
}

cudaError_t
nk_emu_run_grid (const unsigned int grid[3],
                 const unsigned int block_dim[3],
                 void             (*thread_fn) (void *),
                 void              *closure,
                 const char        *name)
{
  Block block = { .thread_fn = thread_fn, .closure = closure };
  gboolean reverse = nk_emu_config ()->reverse_order;
  const char *why = NULL;
  gboolean ok = TRUE;

  block.n = block_dim[0] * block_dim[1] * block_dim[2];
  block.fibers = g_new0 (Fiber, block.n);
  block.slots[0] = g_new0 (uint64_t, block.n);
  block.slots[1] = g_new0 (uint64_t, block.n);
  nk_emu_grid_dim = (uint3) { grid[0], grid[1], grid[2] };
  nk_emu_block_dim = (uint3) { block_dim[0], block_dim[1], block_dim[2] };
  current_block = &block;
  for (unsigned int z = 0; z < grid[2] && ok; z++)
    for (unsigned int y = 0; y < grid[1] && ok; y++)
      for (unsigned int x = 0; x < grid[0] && ok; x++)
        {
          nk_emu_block_idx = (uint3) { x, y, z };
          ok = run_block (&block, reverse, &why);
        }
  current_block = NULL;
  g_free (block.fibers);
  g_free (block.slots[0]);
  g_free (block.slots[1]);
  if (!ok)
    {
      nk_emu_fault (cudaErrorLaunchFailure, "kernel %s, block (%u, %u, %u): %s", name,
                    nk_emu_block_idx.x, nk_emu_block_idx.y, nk_emu_block_idx.z, why);
      return cudaErrorLaunchFailure;
    }
  return cudaSuccess;
}

static Fiber *
fiber_or_die (const char *what)
{
  if (current_fiber == NULL)
    {
      fprintf (stderr, "nk-cuda-emu: %s called outside a kernel\n", what);
      abort ();
    }
  return current_fiber;
}

NK_EMU_EXPORT void
nk_emu_syncthreads (void)
{
  fiber_or_die ("__syncthreads")->state = FIBER_BLOCK_WAIT;
  switch_to_scheduler (FALSE);
}

NK_EMU_EXPORT void
nk_emu_syncwarp (unsigned int mask)
{
  Fiber *fiber = fiber_or_die ("a warp operation");

  fiber->state = FIBER_WARP_WAIT;
  fiber->mask = mask;
  switch_to_scheduler (FALSE);
}

NK_EMU_EXPORT uint64_t
nk_emu_warp_shuffle (unsigned int mask,
                     uint64_t     bits,
                     int          src_lane)
{
  Fiber *fiber = fiber_or_die ("a shuffle");
  Block *block = current_block;
  unsigned int tid = (unsigned int) (fiber - block->fibers), bank = fiber->bank;
  unsigned int src = (tid / 32) * 32 + (unsigned int) src_lane;

  fiber->bank ^= 1;
  block->slots[bank][tid] = bits;
  nk_emu_syncwarp (mask);
  /* A lane outside the mask or the block gives the caller's own value back. */
  if (src_lane < 0 || src_lane >= 32 || src >= block->n || !(mask & (1u << src_lane)))
    return bits;
  return block->slots[bank][src];
}

NK_EMU_EXPORT unsigned int
nk_emu_warp_ballot (unsigned int mask,
                    int          predicate)
{
  Fiber *fiber = fiber_or_die ("__ballot_sync");
  Block *block = current_block;
  unsigned int tid = (unsigned int) (fiber - block->fibers), bank = fiber->bank, votes = 0;
  unsigned int warp = (tid / 32) * 32;

  fiber->bank ^= 1;
  block->slots[bank][tid] = predicate != 0;
  nk_emu_syncwarp (mask);
  for (unsigned int l = 0; l < 32 && warp + l < block->n; l++)
    if ((mask & (1u << l)) && block->slots[bank][warp + l])
      votes |= 1u << l;
  return votes;
}

typedef struct {
  unsigned int grid[3], block[3];
  void       (*thread_fn) (void *);
  void        *closure;
  void       (*destroy) (void *);
  const char  *name;
  char        *bad_argument;
  cudaError_t  injected;
} Launch;

static cudaError_t
run_launch (gpointer data)
{
  Launch *launch = data;

  if (launch->injected != cudaSuccess)
    {
      nk_emu_fault (launch->injected, "kernel %s: injected failure", launch->name);
      return launch->injected;
    }
  if (launch->bad_argument != NULL)
    {
      nk_emu_fault (cudaErrorIllegalAddress, "kernel %s: %s", launch->name, launch->bad_argument);
      return cudaErrorIllegalAddress;
    }
  return nk_emu_run_grid (launch->grid, launch->block, launch->thread_fn, launch->closure,
                          launch->name);
}

static void
free_launch (gpointer data)
{
  Launch *launch = data;

  launch->destroy (launch->closure);
  g_free (launch->bad_argument);
  g_free (launch);
}

static cudaError_t
check_geometry (const unsigned int grid[3],
                const unsigned int block[3],
                size_t             shared_bytes)
{
  guint64 threads = (guint64) block[0] * block[1] * block[2];

  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || threads == 0 || threads > 1024
      || block[0] > 1024 || block[1] > 1024 || block[2] > 64
      || grid[0] > (unsigned int) G_MAXINT || grid[1] > 65535 || grid[2] > 65535)
    return cudaErrorInvalidConfiguration;
  if (shared_bytes > 48 * 1024)
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

NK_EMU_EXPORT cudaError_t
nk_emu_launch_raw (const unsigned int grid[3],
                   const unsigned int block[3],
                   size_t             shared_bytes,
                   cudaStream_t       stream_handle,
                   void             (*thread_fn) (void *closure),
                   void              *closure,
                   void             (*destroy) (void *closure),
                   const char        *name,
                   const char        *bad_argument)
{
  NkEmuConfig *config;
  NkEmuStream *stream = NULL;
  cudaError_t error;
  gboolean fire;
  Launch *launch;

  nk_emu_lock ();
  config = nk_emu_config ();
  error = nk_emu_sticky_error ();
  if (error == cudaSuccess)
    error = check_geometry (grid, block, shared_bytes);
  if (error == cudaSuccess)
    stream = nk_emu_stream_get (stream_handle, &error);
  fire = error == cudaSuccess && config->fail_launch > 0 && --config->fail_launch == 0;
  if (fire && !config->fail_launch_sticky)
    error = cudaErrorLaunchOutOfResources;
  if (error != cudaSuccess)
    {
      destroy (closure);
      error = nk_emu_set_error (error);
      nk_emu_unlock ();
      return error;
    }
  launch = g_new0 (Launch, 1);
  memcpy (launch->grid, grid, sizeof launch->grid);
  memcpy (launch->block, block, sizeof launch->block);
  launch->thread_fn = thread_fn;
  launch->closure = closure;
  launch->destroy = destroy;
  launch->name = name;
  launch->bad_argument = g_strdup (bad_argument);
  /* An injected sticky failure faults when the launch runs, as a GPU fault shows. */
  if (fire)
    launch->injected = cudaErrorLaunchFailure;
  nk_emu_stats ()->launches++;
  nk_emu_enqueue (stream, run_launch, launch, free_launch);
  nk_emu_unlock ();
  return cudaSuccess;
}
