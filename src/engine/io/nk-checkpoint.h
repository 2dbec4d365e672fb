/* nk-checkpoint.h: training checkpoints as checksummed safetensors files
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A checkpoint is one safetensors file, DIR/step-00000100.safetensors, holding
 *  - the model's state_dict under PyTorch's names ("layers.0.weight", "final.bias"),
 *    so the file loads with safetensors.torch.load_file() and model.load_state_dict()
 *    after dropping the "optimizer." entries;
 *  - the optimizer state as "optimizer.<param name>.<state>", e.g.
 *    "optimizer.layers.0.weight.exp_avg" (Adam's m), ".exp_avg_sq" (v),
 *    ".momentum_buffer" (SGD momentum), ".sum" (AdaGrad), ".square_avg" (RMSProp);
 *  - "__metadata__" strings:
 *      "format"   "napkin-checkpoint-1"
 *      "step"     the number of optimizer steps done, decimal
 *      "rng"      the generator state, nk_rng_to_string(): "philox4x32-10:SEED:COUNTER"
 *      "config"   the run's configuration as a JSON object (the caller's text)
 *      "checksum" "sha256:" + 64 lowercase hex digits H, the SHA-256 of the WHOLE
 *                 file (8-byte length, header, payload) except H itself:
 *    plus any extra keys the caller sets.
 *
 * The checksum rule, exactly. Let H be the 64 digits after "sha256:" in the
 * "checksum" value. Take every byte of the file, replace the FIRST occurrence of the
 * 64 bytes H (it is the checksum value in the header: the header precedes the payload
 * and a SHA-256 does not occur by chance earlier) with 64 ASCII '0' bytes, and hash
 * the result with SHA-256: the lowercase hex digest must equal H. The writer does the
 * converse (writes "sha256:" + 64 '0' as the value, hashes the file, then puts the
 * digits in place; the header length does not change). So a changed digit in the
 * step, rng, config, any other metadata, a tensor's dtype/shape/offsets or its data is
 * caught. To verify from Python:
 *
 *     b = open(path, "rb").read(); n = int.from_bytes(b[:8], "little")
 *     h = json.loads(b[8:8 + n])["__metadata__"]["checksum"][len("sha256:"):]
 *     i = b.index(h.encode())
 *     ok = hashlib.sha256(b[:i] + b"0" * 64 + b[i + 64:]).hexdigest() == h
 *
 * Saving is atomic (see nk-safetensors.h); only after the new file is in place are
 * old files deleted, and only files of the same run (see nk_checkpoint_save()).
 * Loading validates the safetensors structure, then the checksum (before interpreting
 * any metadata), then the format, step, rng and config; any failure is a #GError
 * naming the file and the problem. Resuming takes the newest checkpoint that passes
 * all of that (nk_checkpoint_find_latest_intact()).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

#include "nk-device.h"
#include "nk-dtype.h"
#include "nk-rng.h"
#include "nk-safetensors.h"

G_BEGIN_DECLS

#define NK_CHECKPOINT_ERROR (nk_checkpoint_error_quark ())

/**
 * NkCheckpointError:
 * @NK_CHECKPOINT_ERROR_INVALID: the file is a safetensors file but not a valid
 *   checkpoint (missing or malformed format/step/rng/checksum metadata)
 * @NK_CHECKPOINT_ERROR_CHECKSUM: the file does not match its recorded checksum
 * @NK_CHECKPOINT_ERROR_NOT_FOUND: no (intact) checkpoint in the directory
 * @NK_CHECKPOINT_ERROR_OTHER_RUN: the directory holds checkpoints of another run,
 *   which a save must not replace or delete
 * @NK_CHECKPOINT_ERROR_CONFIG_CHANGED: a resume asks for another configuration than
 *   the checkpoint's (nk_checkpoint_check_resume())
 * @NK_CHECKPOINT_ERROR_STEPS: a resume asks for fewer steps than the checkpoint holds
 * @NK_CHECKPOINT_ERROR_LOCKED: another run is writing to the folder
 *
 * Structural problems come as %NK_SAFETENSORS_ERROR, I/O as %NK_SAFETENSORS_ERROR_IO
 * or %G_FILE_ERROR.
 */
typedef enum {
  NK_CHECKPOINT_ERROR_INVALID,
  NK_CHECKPOINT_ERROR_CHECKSUM,
  NK_CHECKPOINT_ERROR_NOT_FOUND,
  NK_CHECKPOINT_ERROR_OTHER_RUN,
  NK_CHECKPOINT_ERROR_CONFIG_CHANGED,
  NK_CHECKPOINT_ERROR_STEPS,
  NK_CHECKPOINT_ERROR_LOCKED,
} NkCheckpointError;

NK_AVAILABLE_IN_ALL
GQuark nk_checkpoint_error_quark (void);

/**
 * NK_CHECKPOINT_FORMAT:
 *
 * The value of a checkpoint's "format" metadata key: what tells a Napkin checkpoint
 * from any other safetensors file.
 */
#define NK_CHECKPOINT_FORMAT "napkin-checkpoint-1"

#define NK_TYPE_CHECKPOINT (nk_checkpoint_get_type ())

/**
 * NkCheckpoint:
 *
 * A refcounted checkpoint in memory: tensors by name (in the order added, or file
 * order when loaded) plus step, RNG state, config and extra metadata. One built for
 * saving copies the tensors when they are added; one loaded refers to the mapped file.
 */
typedef struct _NkCheckpoint NkCheckpoint;

NK_AVAILABLE_IN_ALL
GType           nk_checkpoint_get_type        (void) G_GNUC_CONST;

NK_AVAILABLE_IN_ALL
NkCheckpoint   *nk_checkpoint_new             (void);
NK_AVAILABLE_IN_ALL
NkCheckpoint   *nk_checkpoint_ref             (NkCheckpoint  *ck);
NK_AVAILABLE_IN_ALL
void            nk_checkpoint_unref           (NkCheckpoint  *ck);

NK_AVAILABLE_IN_ALL
void            nk_checkpoint_set_step        (NkCheckpoint  *ck,
                                               guint64        step);
NK_AVAILABLE_IN_ALL
guint64         nk_checkpoint_get_step        (NkCheckpoint  *ck);

NK_AVAILABLE_IN_ALL
void            nk_checkpoint_set_rng         (NkCheckpoint  *ck,
                                               const NkRng   *rng);
NK_AVAILABLE_IN_ALL
NkRng          *nk_checkpoint_get_rng         (NkCheckpoint  *ck);

NK_AVAILABLE_IN_ALL
void            nk_checkpoint_set_config      (NkCheckpoint  *ck,
                                               const char    *config_json);
NK_AVAILABLE_IN_ALL
const char     *nk_checkpoint_get_config      (NkCheckpoint  *ck);

NK_AVAILABLE_IN_ALL
void            nk_checkpoint_set_loss        (NkCheckpoint  *ck,
                                               double         loss);
NK_AVAILABLE_IN_ALL
double          nk_checkpoint_get_loss        (NkCheckpoint  *ck);

NK_AVAILABLE_IN_ALL
void            nk_checkpoint_set_metadata    (NkCheckpoint  *ck,
                                               const char    *key,
                                               const char    *value);
NK_AVAILABLE_IN_ALL
const char     *nk_checkpoint_get_metadata    (NkCheckpoint  *ck,
                                               const char    *key);

/**
 * nk_checkpoint_add_data: (skip)
 * @ck: a checkpoint being built
 * @name: a tensor name not added before
 * @dtype: its dtype (f32 for parameters and optimizer state)
 * @ndim: number of dimensions
 * @shape: (array length=ndim): sizes
 * @data: host memory, numel × item size bytes, C order; copied now
 *
 * Adds a tensor from host memory. Not for bindings (@data is a raw buffer): they
 * call nk_checkpoint_add_tensor().
 */
NK_AVAILABLE_IN_ALL
void            nk_checkpoint_add_data        (NkCheckpoint  *ck,
                                               const char    *name,
                                               NkDType        dtype,
                                               guint          ndim,
                                               const gint64  *shape,
                                               gconstpointer  data);

NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_add_tensor      (NkCheckpoint  *ck,
                                               const char    *name,
                                               NkTensor      *tensor,
                                               GError       **error);

NK_AVAILABLE_IN_ALL
guint           nk_checkpoint_get_n_tensors   (NkCheckpoint  *ck);
NK_AVAILABLE_IN_ALL
const NkSafetensorsTensor *nk_checkpoint_get_tensor_info (NkCheckpoint *ck,
                                                          guint         index);
NK_AVAILABLE_IN_ALL
const NkSafetensorsTensor *nk_checkpoint_lookup (NkCheckpoint *ck,
                                                 const char   *name);

/**
 * nk_checkpoint_read_into:
 * @ck: a checkpoint
 * @name: a tensor name
 * @dtype: the dtype expected
 * @ndim: the number of dimensions expected
 * @shape: (array length=ndim): the sizes expected
 * @dst: host memory for numel × item size bytes
 * @error: return location for a #GError (%NK_SAFETENSORS_ERROR_NOT_FOUND / _SHAPE)
 *
 * Copies one tensor out after checking it is exactly what the model needs.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_read_into       (NkCheckpoint  *ck,
                                               const char    *name,
                                               NkDType        dtype,
                                               guint          ndim,
                                               const gint64  *shape,
                                               gpointer       dst,
                                               GError       **error);

NK_AVAILABLE_IN_ALL
NkTensor       *nk_checkpoint_get_tensor      (NkCheckpoint  *ck,
                                               const char    *name,
                                               NkBucket       bucket,
                                               GError       **error);

/* ---- files --------------------------------------------------------------------- */

NK_AVAILABLE_IN_ALL
char           *nk_checkpoint_path_for_step   (const char    *dir,
                                               guint64        step);

/**
 * nk_checkpoint_save_to_file:
 * @ck: a checkpoint
 * @path: the target
 * @error: return location for a #GError
 *
 * Computes the checksum, sets the metadata and writes @path atomically.
 *
 * Returns: %TRUE on success
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_save_to_file    (NkCheckpoint  *ck,
                                               const char    *path,
                                               GError       **error);

/**
 * nk_checkpoint_same_run:
 * @config_a: (nullable): a config as stored in a checkpoint
 * @config_b: (nullable): another
 *
 * Two checkpoints belong to the same run when their configs are both absent, or are
 * JSON objects with the same members and values, except "steps": that is how far to
 * run, not which run (a run resumed with a larger --steps is the same run).
 *
 * Returns: %TRUE for the same run
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_same_run        (const char    *config_a,
                                               const char    *config_b);

/**
 * nk_checkpoint_config_changes:
 * @saved: (nullable): the config a checkpoint recorded (JSON object text)
 * @requested: (nullable): the config of the run about to resume from it
 *
 * The comparison a resume makes, as a pure function: which members differ. "steps"
 * is the one member that may change (how far to run, not which run; a smaller value
 * than the checkpoint's step is refused by nk_checkpoint_check_resume()); every other
 * member — model, sizes, optimizer, lr, seed, precision, init, data files — must be
 * equal, and a member present on one side only differs. Text that is not a JSON object
 * differs as a whole, reported as "config".
 *
 * Returns: (transfer full) (array zero-terminated=1): the differing member names in
 *   the order of @saved, then @requested; empty when the configs are the same run
 */
NK_AVAILABLE_IN_ALL
char          **nk_checkpoint_config_changes  (const char    *saved,
                                               const char    *requested);

/**
 * nk_checkpoint_check_resume:
 * @ck: the checkpoint a run is about to resume from
 * @config_json: the run's config (nk_train_config_to_json())
 * @steps: the steps the run is asked to reach
 * @error: return location for a #GError: %NK_CHECKPOINT_ERROR_CONFIG_CHANGED naming
 *   every differing member with both values ("optimizer (adamw → sgd), lr (0.01 →
 *   0.5)"), or %NK_CHECKPOINT_ERROR_STEPS when @ck holds more than @steps steps
 *
 * What a resume checks before it loads anything: the same run, and not past its end.
 * A checkpoint holding exactly @steps steps passes: the run has nothing left to do.
 *
 * Returns: %TRUE if the run may resume from @ck
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_check_resume    (NkCheckpoint  *ck,
                                               const char    *config_json,
                                               guint64        steps,
                                               GError       **error);

/**
 * nk_checkpoint_check_dir:
 * @dir: a checkpoint directory (missing is fine)
 * @config_json: (nullable): the config of the run about to write there
 * @error: return location for a #GError (%NK_CHECKPOINT_ERROR_OTHER_RUN)
 *
 * What a run that starts fresh (not resuming from @dir) checks before its first
 * step: every "step-N.safetensors" already in @dir must be a checkpoint of the same
 * run (nk_checkpoint_same_run(), read from its header). A file of another config, or
 * one too damaged to tell, fails with "DIR already holds checkpoints of another run
 * (…); choose another directory or --resume it." naming the file and how the configs
 * differ, so nothing of that run is ever replaced.
 *
 * Returns: %TRUE if a fresh run may write checkpoints to @dir
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_check_dir       (const char    *dir,
                                               const char    *config_json,
                                               GError       **error);

/**
 * nk_checkpoint_save:
 * @ck: a checkpoint
 * @dir: the checkpoint directory (created if missing)
 * @keep_last: how many checkpoints to keep (0: keep all)
 * @out_path: (out) (optional) (transfer full): the file written
 * @error: return location for a #GError
 *
 * Writes nk_checkpoint_path_for_step (@dir, step) atomically, then removes temp files
 * an interrupted save left in @dir. Data of another run is never lost: only files of
 * the same run (nk_checkpoint_same_run() on the config in their header) are touched.
 *  - The target name is replaced only if it holds a checkpoint of the same run or a
 *    file that is not an intact checkpoint; an intact checkpoint of another run there
 *    fails with %NK_CHECKPOINT_ERROR_OTHER_RUN and nothing is written.
 *  - Same-run files of a higher step than @ck's (a run resumed from an earlier step
 *    replacing its own later checkpoints) are deleted when they are not intact (the
 *    reason the run resumed from further back); intact ones are kept, since a run
 *    with the same config reproduces them.
 *  - Of the same-run files, all but the @keep_last highest steps are deleted (the new
 *    file always stays).
 * A failure to delete an old file is only a warning: the new checkpoint is good.
 *
 * Returns: %TRUE if the checkpoint was written
 */
NK_AVAILABLE_IN_ALL
gboolean        nk_checkpoint_save            (NkCheckpoint  *ck,
                                               const char    *dir,
                                               guint          keep_last,
                                               char         **out_path,
                                               GError       **error);

/**
 * nk_checkpoint_load:
 * @path: a checkpoint file
 * @error: return location for a #GError
 *
 * Loads and validates everything: safetensors structure, format, step, rng and the
 * payload checksum.
 *
 * Returns: (transfer full) (nullable): the checkpoint
 */
NK_AVAILABLE_IN_ALL
NkCheckpoint   *nk_checkpoint_load            (const char    *path,
                                               GError       **error);

/**
 * nk_checkpoint_list:
 * @dir: a checkpoint directory
 * @error: return location for a #GError (the directory cannot be read)
 *
 * Lists the checkpoints in @dir by their file names, without opening them.
 *
 * Returns: (transfer container) (element-type utf8): paths of "step-N.safetensors" files in
 *   @dir, highest step first (an empty array for a missing directory)
 */
NK_AVAILABLE_IN_ALL
GPtrArray      *nk_checkpoint_list            (const char    *dir,
                                               GError       **error);

/**
 * nk_checkpoint_find_latest_intact:
 * @dir: a checkpoint directory
 * @out_skipped: (out) (optional) (transfer container) (element-type utf8): one sentence
 *   per newer checkpoint that was skipped, naming the file and its problem
 * @error: return location for a #GError (%NK_CHECKPOINT_ERROR_NOT_FOUND when there is
 *   no intact checkpoint; the message then lists what was wrong with each file)
 *
 * Loads the newest checkpoint that passes nk_checkpoint_load(), skipping corrupt or
 * truncated newer ones.
 *
 * Returns: (transfer full) (nullable): the checkpoint
 */
NK_AVAILABLE_IN_ALL
NkCheckpoint   *nk_checkpoint_find_latest_intact (const char  *dir,
                                                  GPtrArray  **out_skipped,
                                                  GError     **error);

NK_AVAILABLE_IN_ALL
const char     *nk_checkpoint_get_path        (NkCheckpoint  *ck);

/* ---- one writer per folder ------------------------------------------------------ */

/**
 * NK_CHECKPOINT_LOCK_NAME:
 *
 * The lock file in a checkpoint folder; it holds the locking process's id.
 */
#define NK_CHECKPOINT_LOCK_NAME ".napkin-lock"

/**
 * NkCheckpointLock:
 *
 * An exclusive flock() on a checkpoint folder's %NK_CHECKPOINT_LOCK_NAME, held until
 * nk_checkpoint_unlock(). Not a boxed type: it owns a file descriptor, which can be
 * neither copied nor shared, so bindings do not see it.
 */
typedef struct _NkCheckpointLock NkCheckpointLock;

/**
 * nk_checkpoint_lock: (skip)
 * @dir: a checkpoint folder (created, with parents, if missing)
 * @error: return location for a #GError: %NK_CHECKPOINT_ERROR_LOCKED, "Checkpoint
 *   folder “DIR” is in use by process N; …", when another run holds it; a
 *   %G_FILE_ERROR naming @dir when no file can be created there
 *
 * Takes an exclusive flock() on DIR/.napkin-lock for as long as the run writes there,
 * so two runs never interleave their saves and clean-ups in one folder. The kernel
 * drops the lock when the process dies, so a killed run leaves nothing to clean up.
 * Taking it also proves, before step 1, that the folder can be written. Not for
 * bindings (the lock owns a file descriptor and is neither copied nor refcounted).
 *
 * Returns: (transfer full) (nullable): the lock, released by nk_checkpoint_unlock()
 */
NK_AVAILABLE_IN_ALL
NkCheckpointLock *nk_checkpoint_lock          (const char    *dir,
                                               GError       **error);
NK_AVAILABLE_IN_ALL
void            nk_checkpoint_unlock          (NkCheckpointLock *lock);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkCheckpointLock, nk_checkpoint_unlock)

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkCheckpoint, nk_checkpoint_unref)

G_END_DECLS
