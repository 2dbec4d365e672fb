/* nk-tfevents.h: TensorBoard event files, scalars written and read
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An event file (events.out.tfevents.<time>.<host>.<pid>) is a sequence of records
 * (tensorflow/core/lib/io/record_writer.cc):
 *
 *     uint64 length (LE) | uint32 masked CRC-32C of length | data | uint32 masked CRC-32C of data
 *
 * with mask(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8. Each record's data is a
 * serialized tensorboard.Event (tensorboard/compat/proto/event.proto): wall_time = 1
 * (double), step = 2 (int64), file_version = 3 (string), summary = 5 (Summary), and
 * Summary (summary.proto) holds repeated Value = 1 {tag = 1, simple_value = 2 (float),
 * tensor = 8 (TensorProto: dtype = 1, tensor_content = 4, float_val = 5,
 * double_val = 6)}. The first record is file_version "brain.Event:2".
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_TFEVENTS_ERROR (nk_tfevents_error_quark ())

/**
 * NK_TFEVENTS_MAX_BYTES:
 *
 * The largest event file nk_scalar_log_read() reads (mapped, not copied): 1 GiB.
 */
#define NK_TFEVENTS_MAX_BYTES ((goffset) 1 << 30)

/**
 * NkTfeventsError:
 * @NK_TFEVENTS_ERROR_IO: a file or folder cannot be created, read or written
 * @NK_TFEVENTS_ERROR_NOT_FOUND: a folder holds no file whose name contains "tfevents"
 *
 * The ways writing or reading event files fails, in the %NK_TFEVENTS_ERROR domain.
 */
typedef enum {
  NK_TFEVENTS_ERROR_IO,
  NK_TFEVENTS_ERROR_NOT_FOUND,
} NkTfeventsError;

NK_AVAILABLE_IN_ALL
GQuark   nk_tfevents_error_quark (void);

NK_AVAILABLE_IN_ALL
guint32  nk_crc32c               (guint32       crc,
                                  const void   *data,
                                  gsize         len);
NK_AVAILABLE_IN_ALL
guint32  nk_crc32c_mask          (guint32       crc);

/* -- writer -------------------------------------------------------------------- */

/**
 * NkEventWriter:
 *
 * An event file being written. Not a boxed type: it owns an open file, which can be
 * neither copied nor shared, so bindings do not see it (a run folder's events are
 * written by #NkRunRecorder).
 */
typedef struct _NkEventWriter NkEventWriter;

NK_AVAILABLE_IN_ALL
NkEventWriter *nk_event_writer_new        (const char     *dir,
                                           GError        **error);
NK_AVAILABLE_IN_ALL
const char    *nk_event_writer_get_path   (NkEventWriter  *writer);
NK_AVAILABLE_IN_ALL
gboolean       nk_event_writer_add_scalar (NkEventWriter  *writer,
                                           const char     *tag,
                                           gint64          step,
                                           double          wall_time,
                                           float           value,
                                           GError        **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_event_writer_flush      (NkEventWriter  *writer,
                                           GError        **error);
NK_AVAILABLE_IN_ALL
gboolean       nk_event_writer_close      (NkEventWriter  *writer,
                                           GError        **error);
NK_AVAILABLE_IN_ALL
void           nk_event_writer_free       (NkEventWriter  *writer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkEventWriter, nk_event_writer_free)

/* -- reader -------------------------------------------------------------------- */

/**
 * NkScalarPoint:
 * @step: the event's step
 * @wall_time: when it was logged, in seconds since the epoch
 * @value: the scalar
 *
 * One logged value of a tag.
 */
typedef struct {
  gint64 step;
  double wall_time;
  double value;
} NkScalarPoint;

/**
 * NkScalarLog:
 * @tags: (element-type utf8 GArray): tag → #GArray of #NkScalarPoint, sorted by
 *   step (stable: file order within a step)
 * @n_files: the event files read
 * @n_records: the records read
 * @n_skipped: records with a bad length CRC, bad data CRC, short read or bad proto
 *
 * The scalars of one or more event files, by tag. A boxed type; a copy duplicates
 * the points.
 */
typedef struct {
  GHashTable *tags;
  guint n_files;
  guint n_records;
  guint n_skipped;
} NkScalarLog;

#define NK_TYPE_SCALAR_LOG (nk_scalar_log_get_type ())

NK_AVAILABLE_IN_ALL
GType        nk_scalar_log_get_type (void) G_GNUC_CONST;
NK_AVAILABLE_IN_ALL
NkScalarLog *nk_scalar_log_read    (const char    *path,
                                    GError       **error);
NK_AVAILABLE_IN_ALL
void         nk_scalar_log_add_buffer (NkScalarLog *log,
                                    const guint8  *data,
                                    gsize          len);
NK_AVAILABLE_IN_ALL
NkScalarLog *nk_scalar_log_new     (void);
NK_AVAILABLE_IN_ALL
NkScalarLog *nk_scalar_log_copy    (NkScalarLog   *log);
NK_AVAILABLE_IN_ALL
const char **nk_scalar_log_get_tags (NkScalarLog  *log,
                                    guint         *n_tags);
NK_AVAILABLE_IN_ALL
GArray      *nk_scalar_log_get     (NkScalarLog   *log,
                                    const char    *tag);
NK_AVAILABLE_IN_ALL
void         nk_scalar_log_free    (NkScalarLog   *log);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkScalarLog, nk_scalar_log_free)

G_END_DECLS
