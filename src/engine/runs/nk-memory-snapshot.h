/* nk-memory-snapshot.h: what PyTorch measured of a GPU's memory, beside the plan's buckets
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two files PyTorch writes are read:
 *  - the pickle `torch.cuda.memory._dump_snapshot()` writes: a dict with "segments"
 *    [{device, address, total_size, allocated_size, active_size, requested_size, stream,
 *    segment_type, blocks [{size, requested_size, state, address, frames}]}] and
 *    "device_traces" [[{action, addr, size, stream, frames, time_us}], ...] (one list per
 *    device). The pickle is never run: its opcodes are interpreted by a reader that knows
 *    only dicts, lists, tuples, strings, numbers, booleans and None, and refuses every
 *    opcode that would import or call anything (GLOBAL, REDUCE, BUILD ...). It streams:
 *    no tree is built, each block, segment and trace entry is folded into totals as it
 *    is completed, so a snapshot of gigabytes is read in one pass in little memory.
 *  - `torch.cuda.memory_stats()` saved as JSON (flat "allocated_bytes.all.current" keys
 *    or memory_stats_as_nested_dict()'s nesting).
 * The allocation timeline is the trace's "alloc" (+size) and "free_completed" (-size)
 * entries, as torch/cuda/_memory_viz.py counts them, started from the allocation the
 * trace must have begun with (what is allocated at the end minus the trace's net).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_MEMORY_SNAPSHOT_ERROR (nk_memory_snapshot_error_quark ())

/**
 * NkMemorySnapshotError:
 * @NK_MEMORY_SNAPSHOT_ERROR_IO: the file cannot be read
 * @NK_MEMORY_SNAPSHOT_ERROR_UNKNOWN_FORMAT: neither a pickle nor memory_stats JSON
 * @NK_MEMORY_SNAPSHOT_ERROR_CORRUPT: a pickle that ends early or breaks its own rules
 * @NK_MEMORY_SNAPSHOT_ERROR_REFUSED: a pickle with an opcode that would run code (or
 *   one a snapshot never holds)
 * @NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT: a readable pickle or JSON that is no memory
 *   snapshot or memory_stats
 *
 * The ways reading measured memory fails, in the %NK_MEMORY_SNAPSHOT_ERROR domain.
 */
typedef enum {
  NK_MEMORY_SNAPSHOT_ERROR_IO,
  NK_MEMORY_SNAPSHOT_ERROR_UNKNOWN_FORMAT,
  NK_MEMORY_SNAPSHOT_ERROR_CORRUPT,
  NK_MEMORY_SNAPSHOT_ERROR_REFUSED,
  NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT,
} NkMemorySnapshotError;

/**
 * NkMemorySource:
 * @NK_MEMORY_SOURCE_NONE: not measured memory
 * @NK_MEMORY_SOURCE_SNAPSHOT: a `_dump_snapshot()` pickle
 * @NK_MEMORY_SOURCE_STATS: `memory_stats()` as JSON
 *
 * Where a measurement came from.
 */
typedef enum {
  NK_MEMORY_SOURCE_NONE,
  NK_MEMORY_SOURCE_SNAPSHOT,
  NK_MEMORY_SOURCE_STATS,
} NkMemorySource;

/**
 * NkMemoryBlockState:
 * @NK_MEMORY_BLOCK_ACTIVE_ALLOCATED: "active_allocated", held by a tensor
 * @NK_MEMORY_BLOCK_ACTIVE_PENDING_FREE: "active_pending_free", freed but still in use
 *   by a stream
 * @NK_MEMORY_BLOCK_INACTIVE: "inactive", free and cached by the allocator
 * @NK_MEMORY_N_BLOCK_STATES: the number of states above (not a state)
 *
 * A block's state in a snapshot.
 */
typedef enum {
  NK_MEMORY_BLOCK_ACTIVE_ALLOCATED,
  NK_MEMORY_BLOCK_ACTIVE_PENDING_FREE,
  NK_MEMORY_BLOCK_INACTIVE,
  NK_MEMORY_N_BLOCK_STATES
} NkMemoryBlockState;

/**
 * NK_MEMORY_TIMELINE_MAX:
 *
 * The most points a timeline keeps: a longer trace is downsampled, each point the
 * least and the most allocated over the entries it covers.
 */
#define NK_MEMORY_TIMELINE_MAX 512

/**
 * NK_MEMORY_STATS_MAX_BYTES:
 *
 * The largest memory_stats JSON read, 16 MiB (PyTorch writes a few kilobytes).
 */
#define NK_MEMORY_STATS_MAX_BYTES ((goffset) 16 << 20)

/**
 * NkMemoryTimelinePoint:
 * @time_us: the first covered entry's time_us (microseconds, as the trace has it)
 * @min_bytes: the least allocated over the covered entries
 * @max_bytes: the most
 *
 * One point of a downsampled allocation timeline.
 */
typedef struct {
  double time_us;
  double min_bytes;
  double max_bytes;
} NkMemoryTimelinePoint;

/**
 * NkMemoryMeasure:
 * @source: where it came from
 * @allocated: bytes held by tensors now (segments' allocated_size; memory_stats'
 *   allocated_bytes.all.current)
 * @reserved: bytes the allocator holds from the driver (segments' total_size;
 *   reserved_bytes.all.current)
 * @active: allocated plus freed-but-pending bytes; NAN where absent
 * @peak_allocated: the most allocated: memory_stats' allocated_bytes.all.peak, or the
 *   snapshot trace's highest point; NAN where the source has neither
 * @peak_reserved: memory_stats' reserved_bytes.all.peak; NAN in a snapshot
 * @segments: segments (cudaMalloc'd regions)
 * @blocks: blocks in all segments; NAN where absent
 * @block_count: blocks per #NkMemoryBlockState (snapshot only, else NAN)
 * @block_bytes: their bytes
 * @largest_free_block: the largest inactive block; NAN where absent
 * @free_bytes: all inactive blocks' bytes (reserved − active); NAN where absent
 * @fragmentation: 1 − largest_free_block / free_bytes: 0 when the free memory is one
 *   block, near 1 when it is crumbs; NAN where absent or nothing is free
 * @trace_entries: the trace's entries, all devices; 0 without a trace
 * @ooms: the trace's "oom" entries (memory_stats' num_ooms)
 * @timeline_device: the device the timeline is of, -1 when there is none
 * @n_timeline: points in @timeline
 * @timeline: (array length=n_timeline): the allocation timeline, oldest first
 *
 * Measured memory of one process's GPUs; NAN where the source lacks a figure.
 */
typedef struct {
  NkMemorySource        source;
  double                allocated;
  double                reserved;
  double                active;
  double                peak_allocated;
  double                peak_reserved;
  double                segments;
  double                blocks;
  double                block_count[NK_MEMORY_N_BLOCK_STATES];
  double                block_bytes[NK_MEMORY_N_BLOCK_STATES];
  double                largest_free_block;
  double                free_bytes;
  double                fragmentation;
  double                trace_entries;
  double                ooms;
  int                   timeline_device;
  guint                 n_timeline;
  NkMemoryTimelinePoint timeline[NK_MEMORY_TIMELINE_MAX];
} NkMemoryMeasure;

/**
 * NkMemoryBucket:
 * @NK_MEMORY_BUCKET_PARAMS: parameters
 * @NK_MEMORY_BUCKET_GRADS: gradients
 * @NK_MEMORY_BUCKET_OPTIMIZER: optimizer state
 * @NK_MEMORY_BUCKET_ACTIVATIONS: activations
 * @NK_MEMORY_BUCKET_TOTAL: their sum, the whole job
 * @NK_MEMORY_BUCKET_PER_GPU: what one GPU holds (what a snapshot measures)
 * @NK_MEMORY_N_BUCKETS: the number of buckets above (not a bucket)
 *
 * A plan's memory figures, as `napkin-cli plan --json` writes them under "memory".
 */
typedef enum {
  NK_MEMORY_BUCKET_PARAMS,
  NK_MEMORY_BUCKET_GRADS,
  NK_MEMORY_BUCKET_OPTIMIZER,
  NK_MEMORY_BUCKET_ACTIVATIONS,
  NK_MEMORY_BUCKET_TOTAL,
  NK_MEMORY_BUCKET_PER_GPU,
  NK_MEMORY_N_BUCKETS
} NkMemoryBucket;

/**
 * NkMemoryMeasured:
 * @NK_MEMORY_MEASURED_ALLOCATED: #NkMemoryMeasure.allocated
 * @NK_MEMORY_MEASURED_PEAK_ALLOCATED: #NkMemoryMeasure.peak_allocated
 * @NK_MEMORY_MEASURED_RESERVED: #NkMemoryMeasure.reserved
 * @NK_MEMORY_N_MEASURED: the number of figures above (not a figure)
 *
 * The measured figures set beside the plan's per-GPU memory.
 */
typedef enum {
  NK_MEMORY_MEASURED_ALLOCATED,
  NK_MEMORY_MEASURED_PEAK_ALLOCATED,
  NK_MEMORY_MEASURED_RESERVED,
  NK_MEMORY_N_MEASURED
} NkMemoryMeasured;

/**
 * NkMemoryComparison:
 * @planned: the plan's bytes per #NkMemoryBucket (NAN where the plan lacks one);
 *   the buckets are the whole job's, as the plan writes them
 * @per_gpu_share: each bucket's part of one GPU's memory: the bucket × per_gpu /
 *   total (exact when nothing is sharded unevenly, as on one GPU or under ZeRO-3)
 * @measured: the measured bytes per #NkMemoryMeasured
 * @ratio: measured / the plan's per-GPU memory, per #NkMemoryMeasured; NAN where
 *   either side lacks it
 *
 * A measurement beside a plan. A snapshot does not say which bucket a block
 * belongs to, so the ratios are against the plan's per-GPU total.
 */
typedef struct {
  double planned[NK_MEMORY_N_BUCKETS];
  double per_gpu_share[NK_MEMORY_N_BUCKETS];
  double measured[NK_MEMORY_N_MEASURED];
  double ratio[NK_MEMORY_N_MEASURED];
} NkMemoryComparison;

NK_AVAILABLE_IN_ALL
GQuark         nk_memory_snapshot_error_quark (void);
NK_AVAILABLE_IN_ALL
const char    *nk_memory_block_state_name     (NkMemoryBlockState        state);
NK_AVAILABLE_IN_ALL
const char    *nk_memory_bucket_name          (NkMemoryBucket            bucket);
NK_AVAILABLE_IN_ALL
const char    *nk_memory_measured_name        (NkMemoryMeasured          measured);
NK_AVAILABLE_IN_ALL
NkMemorySource nk_memory_sniff                (const guint8             *head,
                                               gsize                     length);
NK_AVAILABLE_IN_ALL
NkMemorySource nk_memory_sniff_file           (const char               *path);
NK_AVAILABLE_IN_ALL
gboolean       nk_memory_snapshot_read        (const guint8             *data,
                                               gsize                     length,
                                               NkMemoryMeasure          *out,
                                               GError                  **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_memory_snapshot_load        (const char               *path,
                                               NkMemoryMeasure          *out,
                                               GError                  **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_memory_stats_read           (JsonNode                 *root,
                                               NkMemoryMeasure          *out,
                                               GError                  **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_memory_load                 (const char               *path,
                                               NkMemoryMeasure          *out,
                                               GError                  **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_memory_planned_read         (JsonNode                 *root,
                                               double                   *planned,
                                               GError                  **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_memory_planned_load         (const char               *path,
                                               double                   *planned,
                                               GError                  **error);
NK_AVAILABLE_IN_ALL
void           nk_memory_compare              (const NkMemoryMeasure    *measure,
                                               const double             *planned,
                                               NkMemoryComparison       *out);

G_END_DECLS
