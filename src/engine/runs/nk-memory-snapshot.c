/* nk-memory-snapshot.c: a PyTorch memory snapshot's pickle, read without running it
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The opcodes are CPython's (Lib/pickletools.py). Protocol 2 writes BINPUT after
 * each str, dict and list, protocol 4 and 5 MEMOIZE and FRAME; a str met again (a
 * key, a state, a file name) is a BINGET. A container is built on the stack before it
 * is set into its parent, so each dict keeps only the fields a snapshot's totals need
 * and is folded into the list it is appended to (a block into its segment's blocks,
 * a segment into "segments", a trace entry into its device's timeline): memory is the
 * stack's depth plus one byte per memo entry, whatever the file's size.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "nk-file-util.h"
#include "nk-memory-snapshot.h"

#define MAX_STACK 200000
#define MAX_MARKS 512
#define MAX_DEVICES 64
#define BUF_SIZE (1 << 20)

/**
 * nk_memory_snapshot_error_quark:
 *
 * The error domain of reading memory snapshots and memory_stats files: a file
 * that is not one, is cut short, or asks to run code.
 *
 * Returns: the #GQuark of %NK_MEMORY_SNAPSHOT_ERROR
 */
G_DEFINE_QUARK (nk-memory-snapshot-error-quark, nk_memory_snapshot_error)

/* The strings a snapshot's totals read, found by their text; any other str is OTHER. */
typedef enum {
  S_OTHER,
  /* int fields */
  S_DEVICE, S_TOTAL_SIZE, S_ALLOCATED_SIZE, S_ACTIVE_SIZE, S_SIZE, S_TIME_US,
  /* str fields */
  S_STATE, S_ACTION,
  /* list fields */
  S_SEGMENTS, S_DEVICE_TRACES, S_BLOCKS,
  /* values */
  S_ACTIVE_ALLOCATED, S_ACTIVE_PENDING_FREE, S_INACTIVE,
  S_ALLOC, S_FREE_COMPLETED, S_OOM,
  N_STRINGS
} StrId;

#define N_INT_FIELDS (S_TIME_US + 1)

static const char *const known[N_STRINGS] = {
  [S_DEVICE] = "device", [S_TOTAL_SIZE] = "total_size", [S_ALLOCATED_SIZE] = "allocated_size",
  [S_ACTIVE_SIZE] = "active_size", [S_SIZE] = "size", [S_TIME_US] = "time_us",
  [S_STATE] = "state", [S_ACTION] = "action",
  [S_SEGMENTS] = "segments", [S_DEVICE_TRACES] = "device_traces", [S_BLOCKS] = "blocks",
  [S_ACTIVE_ALLOCATED] = "active_allocated", [S_ACTIVE_PENDING_FREE] = "active_pending_free",
  [S_INACTIVE] = "inactive", [S_ALLOC] = "alloc", [S_FREE_COMPLETED] = "free_completed",
  [S_OOM] = "oom",
};

static StrId
str_id (const guint8 *s,
        gsize         len)
{
  if (len < 3 || len > 19)
    return S_OTHER;
  for (guint i = 1; i < N_STRINGS; i++)
    if (known[i][0] == (char) s[0] && strlen (known[i]) == len && memcmp (known[i], s, len) == 0)
      return i;
  return S_OTHER;
}

/* -- the aggregates ------------------------------------------------------------ */

typedef struct {
  guint64 n_entries, ooms;
  double  net, lo, hi;       /* running allocation from the trace's start (0) */
  guint64 stride, in_point;  /* entries per point, entries in the last point */
  guint   n_points;
  NkMemoryTimelinePoint points[NK_MEMORY_TIMELINE_MAX];
} Trace;

typedef struct {
  guint64 n_segments, n_blocks;
  double  reserved, allocated, active;
  gboolean active_known;
  double  count[NK_MEMORY_N_BLOCK_STATES], bytes[NK_MEMORY_N_BLOCK_STATES];
  double  largest_free;
  double  device_allocated[MAX_DEVICES];
} Agg;

typedef struct _Container Container;
struct _Container {
  Container *next_free;
  gboolean   is_dict;
  /* a dict's fields */
  guint32    have;               /* 1 << StrId of each field set */
  gint64     field[N_INT_FIELDS];
  StrId      state, action;
  Container *blocks, *segments, *traces;
  /* a list's items folded */
  guint64    n_items;
  Agg       *agg;                /* blocks and segments appended */
  Trace     *trace;              /* trace entries appended */
  Trace     *device_trace;       /* the first list of entries with any, appended */
  guint64    sub_entries, sub_ooms; /* entries in the lists of entries appended */
  gint64     device_trace_index;
};

typedef enum { V_MARK, V_NONE, V_BOOL, V_INT, V_BIGINT, V_FLOAT, V_STR, V_BYTES, V_DICT, V_LIST, V_OPAQUE } VKind;

typedef struct {
  VKind kind;
  StrId str;
  union {
    gint64     i;
    double     f;
    Container *c;
  };
} Value;

/* One alloc (+) or free_completed (-) of @delta bytes at @time_us. When the points
 * are full each pair becomes one point covering twice the entries (its least and its
 * most), so the timeline is downsampled as it grows without knowing its length. */
static void
trace_add (Trace  *t,
           double  time_us,
           double  delta)
{
  t->net += delta;
  t->lo = MIN (t->lo, t->net);
  t->hi = MAX (t->hi, t->net);
  if (t->stride == 0)
    t->stride = 1;
  if (t->n_points > 0 && t->in_point < t->stride)
    {
      NkMemoryTimelinePoint *p = &t->points[t->n_points - 1];

      p->min_bytes = MIN (p->min_bytes, t->net);
      p->max_bytes = MAX (p->max_bytes, t->net);
      t->in_point++;
      return;
    }
  if (t->n_points == NK_MEMORY_TIMELINE_MAX)
    {
      for (guint i = 0; i < NK_MEMORY_TIMELINE_MAX / 2; i++)
        {
          NkMemoryTimelinePoint a = t->points[2 * i], b = t->points[2 * i + 1];

          t->points[i] = (NkMemoryTimelinePoint) { a.time_us, MIN (a.min_bytes, b.min_bytes),
                                                   MAX (a.max_bytes, b.max_bytes) };
        }
      t->n_points = NK_MEMORY_TIMELINE_MAX / 2;
      t->stride *= 2;
    }
  t->points[t->n_points++] = (NkMemoryTimelinePoint) { time_us, t->net, t->net };
  t->in_point = 1;
}

typedef struct {
  /* input */
  const guint8 *buf;
  gsize         avail, pos;
  goffset       base, total;   /* file offset of buf[0]; the input's size */
  int           fd;
  guint8       *owned;
  /* machine */
  Value        *stack;
  gsize         sp;
  gsize         marks[MAX_MARKS];
  guint         n_marks;
  GByteArray   *memo;          /* StrId + 1 of a memoized str, 0xff anything else, 0 unset */
  Container    *free_list;
  guint         protocol;
  GError      **error;
} Reader;

static Container *
container_new (Reader   *r,
               gboolean  is_dict)
{
  Container *c = r->free_list;

  if (c != NULL)
    r->free_list = c->next_free;
  else
    c = g_new (Container, 1);
  memset (c, 0, G_STRUCT_OFFSET (Container, device_trace_index));
  c->is_dict = is_dict;
  c->device_trace_index = -1;
  return c;
}

static void
container_free (Reader    *r,
                Container *c)
{
  if (c == NULL)
    return;
  container_free (r, c->blocks);
  container_free (r, c->segments);
  container_free (r, c->traces);
  g_free (c->agg);
  g_free (c->trace);
  g_free (c->device_trace);
  c->next_free = r->free_list;
  r->free_list = c;
}

static void
value_clear (Reader *r,
             Value  *v)
{
  if (v->kind == V_DICT || v->kind == V_LIST)
    container_free (r, v->c);
  v->kind = V_NONE;
}

static Agg *
agg_of (Container *list)
{
  if (list->agg == NULL)
    list->agg = g_new0 (Agg, 1);
  return list->agg;
}

#define HAS(d, s) (((d)->have >> (s)) & 1u)

static void
fold_segment (Container *list,
              Container *d)
{
  Agg *a = agg_of (list);
  Agg *b = d->blocks != NULL ? d->blocks->agg : NULL;
  double allocated = HAS (d, S_ALLOCATED_SIZE) ? (double) d->field[S_ALLOCATED_SIZE]
                     : b != NULL ? b->bytes[NK_MEMORY_BLOCK_ACTIVE_ALLOCATED] : 0;
  gint64 device = HAS (d, S_DEVICE) ? d->field[S_DEVICE] : 0;

  a->n_segments++;
  a->reserved += (double) d->field[S_TOTAL_SIZE];
  a->allocated += allocated;
  if (HAS (d, S_ACTIVE_SIZE))
    {
      a->active += (double) d->field[S_ACTIVE_SIZE];
      a->active_known = TRUE;
    }
  else if (b != NULL)
    a->active += b->bytes[NK_MEMORY_BLOCK_ACTIVE_ALLOCATED] + b->bytes[NK_MEMORY_BLOCK_ACTIVE_PENDING_FREE];
  if (device >= 0 && device < MAX_DEVICES)
    a->device_allocated[device] += allocated;
  if (b != NULL)
    {
      a->n_blocks += b->n_blocks;
      for (guint s = 0; s < NK_MEMORY_N_BLOCK_STATES; s++)
        {
          a->count[s] += b->count[s];
          a->bytes[s] += b->bytes[s];
        }
      a->largest_free = MAX (a->largest_free, b->largest_free);
    }
}

static void
fold_dict (Container *list,
           Container *d)
{
  if (HAS (d, S_ACTION))
    {
      Trace *t = list->trace;

      if (t == NULL)
        t = list->trace = g_new0 (Trace, 1);
      t->n_entries++;
      if (d->action == S_OOM)
        t->ooms++;
      else if ((d->action == S_ALLOC || d->action == S_FREE_COMPLETED) && HAS (d, S_SIZE))
        trace_add (t, HAS (d, S_TIME_US) ? (double) d->field[S_TIME_US] : NAN,
                              d->action == S_ALLOC ? (double) d->field[S_SIZE] : -(double) d->field[S_SIZE]);
    }
  else if (HAS (d, S_TOTAL_SIZE))
    fold_segment (list, d);
  else if (HAS (d, S_STATE) && HAS (d, S_SIZE))
    {
      Agg *a = agg_of (list);
      guint s = d->state == S_ACTIVE_ALLOCATED ? NK_MEMORY_BLOCK_ACTIVE_ALLOCATED
                : d->state == S_ACTIVE_PENDING_FREE ? NK_MEMORY_BLOCK_ACTIVE_PENDING_FREE
                : NK_MEMORY_BLOCK_INACTIVE;

      a->n_blocks++;
      a->count[s]++;
      a->bytes[s] += (double) d->field[S_SIZE];
      if (s == NK_MEMORY_BLOCK_INACTIVE)
        a->largest_free = MAX (a->largest_free, (double) d->field[S_SIZE]);
    }
}

/* @list gains @v as its next item; @v is consumed. */
static void
list_append (Reader    *r,
             Container *list,
             Value     *v)
{
  list->n_items++;
  if (v->kind == V_LIST && v->c->trace != NULL)
    {
      /* every device's entries count; the timeline is the first device's with any */
      list->sub_entries += v->c->trace->n_entries;
      list->sub_ooms += v->c->trace->ooms;
    }
  if (v->kind == V_DICT)
    fold_dict (list, v->c);
  else if (v->kind == V_LIST && list->device_trace == NULL && v->c->trace != NULL
           && v->c->trace->n_entries > 0)
    {
      /* device_traces: the first device whose trace has entries */
      list->device_trace = g_steal_pointer (&v->c->trace);
      list->device_trace_index = (gint64) list->n_items - 1;
    }
  value_clear (r, v);
}

/* @dict[@k] = @v; both are consumed. */
static void
dict_set (Reader    *r,
          Container *dict,
          Value     *k,
          Value     *v)
{
  Container **child = NULL;

  if (k->kind != V_STR || k->str == S_OTHER)
    goto done;
  if (k->str < N_INT_FIELDS && v->kind == V_INT)
    {
      dict->field[k->str] = v->i;
      dict->have |= 1u << k->str;
    }
  else if (k->str == S_TIME_US && v->kind == V_FLOAT && isfinite (v->f) && fabs (v->f) < 9e18)
    {
      dict->field[S_TIME_US] = (gint64) v->f;
      dict->have |= 1u << S_TIME_US;
    }
  else if ((k->str == S_STATE || k->str == S_ACTION) && v->kind == V_STR)
    {
      if (k->str == S_STATE)
        dict->state = v->str;
      else
        dict->action = v->str;
      dict->have |= 1u << k->str;
    }
  else if (v->kind == V_LIST)
    child = k->str == S_BLOCKS ? &dict->blocks : k->str == S_SEGMENTS ? &dict->segments
            : k->str == S_DEVICE_TRACES ? &dict->traces : NULL;
  if (child != NULL)
    {
      container_free (r, *child);
      *child = g_steal_pointer (&v->c);
      v->kind = V_NONE;
      dict->have |= 1u << k->str;
    }
done:
  value_clear (r, k);
  value_clear (r, v);
}

/* -- input --------------------------------------------------------------------- */

static const char *const opcode_names[256] = {
  ['('] = "MARK", ['.'] = "STOP", ['0'] = "POP", ['1'] = "POP_MARK", ['2'] = "DUP",
  ['F'] = "FLOAT", ['I'] = "INT", ['J'] = "BININT", ['K'] = "BININT1", ['L'] = "LONG",
  ['M'] = "BININT2", ['N'] = "NONE", ['P'] = "PERSID", ['Q'] = "BINPERSID", ['R'] = "REDUCE",
  ['S'] = "STRING", ['T'] = "BINSTRING", ['U'] = "SHORT_BINSTRING", ['V'] = "UNICODE",
  ['X'] = "BINUNICODE", ['a'] = "APPEND", ['b'] = "BUILD", ['c'] = "GLOBAL", ['d'] = "DICT",
  ['}'] = "EMPTY_DICT", ['e'] = "APPENDS", ['g'] = "GET", ['h'] = "BINGET", ['i'] = "INST",
  ['j'] = "LONG_BINGET", ['l'] = "LIST", [']'] = "EMPTY_LIST", ['o'] = "OBJ", ['p'] = "PUT",
  ['q'] = "BINPUT", ['r'] = "LONG_BINPUT", ['s'] = "SETITEM", ['t'] = "TUPLE",
  [')'] = "EMPTY_TUPLE", ['u'] = "SETITEMS", ['G'] = "BINFLOAT", ['B'] = "BINBYTES",
  ['C'] = "SHORT_BINBYTES", [0x80] = "PROTO", [0x81] = "NEWOBJ", [0x82] = "EXT1",
  [0x83] = "EXT2", [0x84] = "EXT4", [0x85] = "TUPLE1", [0x86] = "TUPLE2", [0x87] = "TUPLE3",
  [0x88] = "NEWTRUE", [0x89] = "NEWFALSE", [0x8a] = "LONG1", [0x8b] = "LONG4",
  [0x8c] = "SHORT_BINUNICODE", [0x8d] = "BINUNICODE8", [0x8e] = "BINBYTES8",
  [0x8f] = "EMPTY_SET", [0x90] = "ADDITEMS", [0x91] = "FROZENSET", [0x92] = "NEWOBJ_EX",
  [0x93] = "STACK_GLOBAL", [0x94] = "MEMOIZE", [0x95] = "FRAME", [0x96] = "BYTEARRAY8",
  [0x97] = "NEXT_BUFFER", [0x98] = "READONLY_BUFFER",
};

static gboolean
corrupt (Reader     *r,
         goffset     at,
         const char *format,
         ...) G_GNUC_PRINTF (3, 4);

static gboolean
corrupt (Reader     *r,
         goffset     at,
         const char *format,
         ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  /* TRANSLATORS: %s says what is wrong, at a byte offset of the pickle */
  g_set_error (r->error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_CORRUPT,
               _("Byte %" PRId64 ": %s"), (gint64) at, what);
  return FALSE;
}

static gboolean
truncated (Reader *r,
           guint8  op,
           goffset at)
{
  return corrupt (r, at, _("the pickle ends inside %s."), opcode_names[op] != NULL ? opcode_names[op] : "?");
}

/* Make @n bytes (n ≤ 4096) readable at r->buf + r->pos: the slow path, refilling. */
static gboolean
refill (Reader *r,
        gsize   n)
{
  if (r->fd < 0)
    return FALSE;
  memmove (r->owned, r->buf + r->pos, r->avail - r->pos);
  r->base += (goffset) r->pos;
  r->avail -= r->pos;
  r->pos = 0;
  while (r->avail < n)
    {
      gssize got = read (r->fd, r->owned + r->avail, BUF_SIZE - r->avail);

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;

          g_set_error (r->error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_IO,
                       "%s", g_strerror (saved));
          return FALSE;
        }
      if (got == 0)
        return FALSE;
      r->avail += (gsize) got;
    }
  return TRUE;
}

static inline gboolean
fill (Reader *r,
      gsize   n)
{
  if (G_LIKELY (r->avail - r->pos >= n))
    return TRUE;
  return refill (r, n);
}

static gboolean
skip (Reader  *r,
      guint64  n)
{
  while (n > 0)
    {
      gsize here = r->avail - r->pos;

      if (here == 0 && !fill (r, 1))
        return FALSE;
      here = MIN ((guint64) (r->avail - r->pos), n);
      r->pos += here;
      n -= here;
    }
  return TRUE;
}

static inline guint64
le (const guint8 *p,
    guint         n)
{
  guint64 v = 0;

  for (guint i = 0; i < n; i++)
    v |= (guint64) p[i] << (8 * i);
  return v;
}

/* -- the machine --------------------------------------------------------------- */

static gsize
floor_of (Reader *r)
{
  return r->n_marks > 0 ? r->marks[r->n_marks - 1] : 0;
}

static inline gboolean
push (Reader  *r,
      Value    v,
      goffset  at)
{
  if (r->sp == MAX_STACK)
    {
      value_clear (r, &v);
      return corrupt (r, at, _("the pickle's stack grows past %d items."), MAX_STACK);
    }
  r->stack[r->sp++] = v;
  return TRUE;
}

static gboolean
need (Reader  *r,
      gsize    n,
      guint8   op,
      goffset  at)
{
  if (r->sp - floor_of (r) >= n)
    return TRUE;
  return corrupt (r, at, _("%s finds too few items on the stack."), opcode_names[op]);
}

/* Pops to the last MARK: the items are r->stack[*k .. r->sp). */
static gboolean
pop_mark (Reader  *r,
          guint8   op,
          goffset  at,
          gsize   *k)
{
  if (r->n_marks == 0)
    return corrupt (r, at, _("%s without a MARK before it."), opcode_names[op]);
  *k = r->marks[--r->n_marks];
  return TRUE;
}

static void
drop_to (Reader *r,
         gsize   k)
{
  while (r->sp > k)
    value_clear (r, &r->stack[--r->sp]);
}

/* The container under a MARK's items (APPENDS, SETITEMS). */
static gboolean
target_below (Reader     *r,
              gsize       k,
              VKind       want,
              guint8      op,
              goffset     at,
              Container **target)
{
  Value *t;

  if (k == 0 || k - 1 < floor_of (r))
    return corrupt (r, at, _("%s finds too few items on the stack."), opcode_names[op]);
  t = &r->stack[k - 1];
  if (t->kind == V_OPAQUE)
    {
      /* a container met again through the memo: what is added to it is not needed */
      *target = NULL;
      return TRUE;
    }
  if (t->kind != want)
    return corrupt (r, at, want == V_LIST ? _("%s adds to something that is not a list.")
                                          : _("%s sets an item of something that is not a dict."),
                    opcode_names[op]);
  *target = t->c;
  return TRUE;
}

static gboolean
op_appends (Reader  *r,
            guint8   op,
            goffset  at)
{
  Container *list;
  gsize k = 0;

  if (op == 'a')
    {
      if (!need (r, 2, op, at))
        return FALSE;
      k = r->sp - 1;
    }
  else if (!pop_mark (r, op, at, &k))
    return FALSE;
  if (!target_below (r, k, V_LIST, op, at, &list))
    return FALSE;
  for (gsize i = k; list != NULL && i < r->sp; i++)
    list_append (r, list, &r->stack[i]);
  drop_to (r, k);
  return TRUE;
}

static gboolean
op_setitems (Reader  *r,
             guint8   op,
             goffset  at)
{
  Container *dict;
  gsize k = 0;

  if (op == 's')
    {
      if (!need (r, 3, op, at))
        return FALSE;
      k = r->sp - 2;
    }
  else if (!pop_mark (r, op, at, &k))
    return FALSE;
  if ((r->sp - k) % 2 != 0)
    return corrupt (r, at, _("%s finds a key without a value."), opcode_names[op]);
  if (!target_below (r, k, V_DICT, op, at, &dict))
    return FALSE;
  for (gsize i = k; dict != NULL && i < r->sp; i += 2)
    dict_set (r, dict, &r->stack[i], &r->stack[i + 1]);
  drop_to (r, k);
  return TRUE;
}

/* DICT, LIST and TUPLE: a container of the items since the last MARK. */
static gboolean
op_from_mark (Reader  *r,
              guint8   op,
              goffset  at)
{
  Value v = { .kind = V_OPAQUE };
  gsize k = 0;

  if (!pop_mark (r, op, at, &k))
    return FALSE;
  if (op == 'd' && (r->sp - k) % 2 != 0)
    return corrupt (r, at, _("%s finds a key without a value."), opcode_names[op]);
  if (op == 'd' || op == 'l')
    {
      v.kind = op == 'd' ? V_DICT : V_LIST;
      v.c = container_new (r, op == 'd');
      for (gsize i = k; i < r->sp; i += op == 'd' ? 2 : 1)
        if (op == 'd')
          dict_set (r, v.c, &r->stack[i], &r->stack[i + 1]);
        else
          list_append (r, v.c, &r->stack[i]);
    }
  drop_to (r, k);
  return push (r, v, at);
}

static gboolean
op_tuple_n (Reader  *r,
            guint8   op,
            goffset  at)
{
  gsize n = op - 0x84;

  if (!need (r, n, op, at))
    return FALSE;
  drop_to (r, r->sp - n);
  return push (r, (Value) { .kind = V_OPAQUE }, at);
}

static gboolean
op_string (Reader  *r,
           guint8   op,
           goffset  at)
{
  guint n = op == 0x8c || op == 'C' ? 1 : op == 'X' || op == 'B' ? 4 : 8;
  guint64 len;
  Value v = { .kind = op == 'B' || op == 'C' || op == 0x8e ? V_BYTES : V_STR };

  if (!fill (r, n))
    return truncated (r, op, at);
  len = le (r->buf + r->pos, n);
  r->pos += n;
  if (len > (guint64) (r->total - (r->base + (goffset) r->pos)))
    return truncated (r, op, at);
  if (v.kind == V_STR && len <= 19)
    {
      if (!fill (r, len))
        return truncated (r, op, at);
      v.str = str_id (r->buf + r->pos, len);
      r->pos += len;
    }
  else if (!skip (r, len))
    return truncated (r, op, at);
  return push (r, v, at);
}

static gboolean
op_int (Reader  *r,
        guint8   op,
        goffset  at)
{
  guint n = op == 'K' ? 1 : op == 'M' ? 2 : op == 'J' ? 4 : 1;
  Value v = { .kind = V_INT };
  guint64 x;

  if (!fill (r, n))
    return truncated (r, op, at);
  x = le (r->buf + r->pos, n);
  r->pos += n;
  if (op == 'J')
    v.i = (gint32) (guint32) x;
  else if (op == 'K' || op == 'M')
    v.i = (gint64) x;
  else
    {
      /* LONG1: @x bytes of two's complement, little-endian; LONG4: a 4-byte count */
      guint64 len = x;

      if (op == 0x8b)
        {
          if (!fill (r, 4))
            return truncated (r, op, at);
          len = le (r->buf + r->pos, 4);
          r->pos += 4;
          if (len > G_MAXINT32)
            return corrupt (r, at, _("LONG4 has a negative length."));
        }
      if (len > 8 || op == 0x8b)
        {
          v.kind = V_BIGINT;
          if (!skip (r, len))
            return truncated (r, op, at);
        }
      else
        {
          if (!fill (r, len))
            return truncated (r, op, at);
          x = le (r->buf + r->pos, len);
          r->pos += len;
          if (len > 0 && len < 8 && (x >> (8 * len - 1)) & 1)
            x |= ~(guint64) 0 << (8 * len);
          v.i = (gint64) x;
        }
    }
  return push (r, v, at);
}

static gboolean
op_float (Reader  *r,
          guint8   op,
          goffset  at)
{
  guint64 bits = 0;
  Value v = { .kind = V_FLOAT };

  if (!fill (r, 8))
    return truncated (r, op, at);
  for (guint i = 0; i < 8; i++)
    bits = bits << 8 | r->buf[r->pos + i];
  r->pos += 8;
  memcpy (&v.f, &bits, sizeof v.f);
  return push (r, v, at);
}

static gboolean
op_put (Reader  *r,
        guint8   op,
        goffset  at)
{
  guint n = op == 'q' ? 1 : op == 'r' ? 4 : 0;
  guint64 index = r->memo->len;
  const Value *top;

  if (!need (r, 1, op, at))
    return FALSE;
  if (n > 0)
    {
      if (!fill (r, n))
        return truncated (r, op, at);
      index = le (r->buf + r->pos, n);
      r->pos += n;
    }
  /* an index past the bytes read so far is no index pickle writes: it bounds the memo */
  if (index >= r->memo->len)
    {
      if (index > (guint64) at || index >= G_MAXUINT32)
        return corrupt (r, at, _("%s stores memo entry %" PRIu64 ", past any the pickle can have."),
                        opcode_names[op], index);
      g_byte_array_set_size (r->memo, (guint) index + 1);
    }
  top = &r->stack[r->sp - 1];
  r->memo->data[index] = top->kind == V_STR ? (guint8) (top->str + 1) : 0xff;
  return TRUE;
}

static gboolean
op_get (Reader  *r,
        guint8   op,
        goffset  at)
{
  guint n = op == 'h' ? 1 : 4;
  guint64 index;
  guint8 m;

  if (!fill (r, n))
    return truncated (r, op, at);
  index = le (r->buf + r->pos, n);
  r->pos += n;
  if (index >= r->memo->len || r->memo->data[index] == 0)
    return corrupt (r, at, _("%s reads memo entry %" PRIu64 ", which was never stored."),
                    opcode_names[op], index);
  m = r->memo->data[index];
  if (m == 0xff)
    return push (r, (Value) { .kind = V_OPAQUE }, at);
  return push (r, (Value) { .kind = V_STR, .str = m - 1 }, at);
}

static gboolean
op_header (Reader  *r,
           guint8   op,
           goffset  at)
{
  guint n = op == 0x80 ? 1 : 8;

  if (!fill (r, n))
    return truncated (r, op, at);
  if (op == 0x80 && (r->buf[r->pos] < 2 || r->buf[r->pos] > 5))
    return corrupt (r, at, _("pickle protocol %u is not one Napkin reads (2 to 5)."), r->buf[r->pos]);
  if (op == 0x80)
    r->protocol = r->buf[r->pos];
  r->pos += n;
  return TRUE;
}

static gboolean
refuse (Reader  *r,
        guint8   op,
        goffset  at)
{
  if (opcode_names[op] == NULL)
    return corrupt (r, at, _("0x%02x is no pickle opcode."), op);
  g_set_error (r->error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_REFUSED,
               _("Byte %" PRId64 ": the pickle uses %s (0x%02x), which a memory snapshot never does; Napkin reads only dicts, lists, strings and numbers and never runs pickle code."),
               (gint64) at, opcode_names[op], op);
  return FALSE;
}

/* One opcode at @at; *stop on STOP. */
static gboolean
step (Reader   *r,
      guint8    op,
      goffset   at)
{
  switch (op)
    {
    case '}':
    case ']':
      {
        Value v = { .kind = op == '}' ? V_DICT : V_LIST };

        v.c = container_new (r, op == '}');
        return push (r, v, at);
      }
    case ')':
      return push (r, (Value) { .kind = V_OPAQUE }, at);
    case '(':
      if (r->n_marks == MAX_MARKS)
        return corrupt (r, at, _("the pickle nests deeper than %d MARKs."), MAX_MARKS);
      r->marks[r->n_marks++] = r->sp;
      return TRUE;
    case 'a':
    case 'e':
      return op_appends (r, op, at);
    case 's':
    case 'u':
      return op_setitems (r, op, at);
    case 'd':
    case 'l':
    case 't':
      return op_from_mark (r, op, at);
    case 0x85:
    case 0x86:
    case 0x87:
      return op_tuple_n (r, op, at);
    case 'X':
    case 0x8c:
    case 0x8d:
    case 'B':
    case 'C':
    case 0x8e:
      return op_string (r, op, at);
    case 'J':
    case 'K':
    case 'M':
    case 0x8a:
    case 0x8b:
      return op_int (r, op, at);
    case 'G':
      return op_float (r, op, at);
    case 'N':
      return push (r, (Value) { .kind = V_NONE }, at);
    case 0x88:
    case 0x89:
      return push (r, (Value) { .kind = V_BOOL, .i = op == 0x88 }, at);
    case 0x94:
    case 'q':
    case 'r':
      return op_put (r, op, at);
    case 'h':
    case 'j':
      return op_get (r, op, at);
    case 0x80:
    case 0x95:
      return op_header (r, op, at);
    default:
      return refuse (r, op, at);
    }
}

static void
finish_trace (const Container *traces,
              const Agg       *agg,
              NkMemoryMeasure *out)
{
  const Trace *t = traces->device_trace;
  gint64 device = traces->device_trace_index;
  double baseline;

  out->trace_entries = (double) traces->sub_entries;
  out->ooms = (double) traces->sub_ooms;
  if (t == NULL)
    return;
  /* the trace began with what is allocated at its end less what it added */
  baseline = (agg != NULL && device < MAX_DEVICES ? agg->device_allocated[device] : 0) - t->net;
  out->timeline_device = (int) MIN (device, G_MAXINT);
  out->peak_allocated = baseline + t->hi;
  out->n_timeline = t->n_points;
  for (guint i = 0; i < t->n_points; i++)
    out->timeline[i] = (NkMemoryTimelinePoint) { t->points[i].time_us, baseline + t->points[i].min_bytes,
                                                 baseline + t->points[i].max_bytes };
}

static void
measure_init (NkMemoryMeasure *out,
              NkMemorySource   source)
{
  memset (out, 0, sizeof *out);
  out->source = source;
  out->allocated = out->reserved = out->active = NAN;
  out->peak_allocated = out->peak_reserved = NAN;
  out->segments = out->blocks = NAN;
  for (guint s = 0; s < NK_MEMORY_N_BLOCK_STATES; s++)
    out->block_count[s] = out->block_bytes[s] = NAN;
  out->largest_free_block = out->free_bytes = out->fragmentation = NAN;
  out->timeline_device = -1;
}

static gboolean
finish (Reader          *r,
        Value           *root,
        NkMemoryMeasure *out)
{
  const Container *segments = NULL, *traces = NULL;
  const Agg *a;
  static const Agg none;

  if (root->kind == V_DICT && HAS (root->c, S_SEGMENTS))
    {
      segments = root->c->segments;
      traces = root->c->traces;
    }
  else if (root->kind == V_LIST && root->c->n_items > 0 && root->c->agg != NULL
           && root->c->agg->n_segments == root->c->n_items)
    segments = root->c;   /* torch.cuda.memory_snapshot()'s list of segments */
  if (segments == NULL)
    {
      g_set_error_literal (r->error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_NOT_SNAPSHOT,
                           _("This pickle is no PyTorch memory snapshot: it has no “segments”."));
      return FALSE;
    }
  a = segments->agg != NULL ? segments->agg : &none;
  measure_init (out, NK_MEMORY_SOURCE_SNAPSHOT);
  out->allocated = a->allocated;
  out->reserved = a->reserved;
  out->segments = (double) a->n_segments;
  out->blocks = (double) a->n_blocks;
  if (a->n_blocks > 0 || a->active_known)
    out->active = a->active;
  if (a->n_blocks > 0)
    {
      for (guint s = 0; s < NK_MEMORY_N_BLOCK_STATES; s++)
        {
          out->block_count[s] = a->count[s];
          out->block_bytes[s] = a->bytes[s];
        }
      out->largest_free_block = a->largest_free;
      out->free_bytes = a->bytes[NK_MEMORY_BLOCK_INACTIVE];
      if (out->free_bytes > 0)
        out->fragmentation = 1 - out->largest_free_block / out->free_bytes;
    }
  if (traces != NULL)
    finish_trace (traces, a, out);
  return TRUE;
}

static gboolean
run (Reader          *r,
     NkMemoryMeasure *out)
{
  gsize stack_size = 1024;
  gboolean ok = FALSE;

  r->stack = g_new (Value, stack_size);
  r->memo = g_byte_array_new ();
  if (!fill (r, 1) || r->buf[r->pos] != 0x80)
    {
      if (r->error != NULL && *r->error != NULL)
        goto out;
      g_set_error_literal (r->error, NK_MEMORY_SNAPSHOT_ERROR, NK_MEMORY_SNAPSHOT_ERROR_UNKNOWN_FORMAT,
                           _("This is not a pickle of protocol 2 or later (it does not start with PROTO)."));
      goto out;
    }
  for (;;)
    {
      goffset at;
      guint8 op;

      if (!fill (r, 1))
        {
          if (r->error == NULL || *r->error == NULL)
            corrupt (r, r->base + (goffset) r->pos, _("the pickle ends before STOP."));
          goto out;
        }
      at = r->base + (goffset) r->pos;
      op = r->buf[r->pos++];
      if (op == '.')
        {
          if (!need (r, 1, op, at))
            goto out;
          ok = finish (r, &r->stack[r->sp - 1], out);
          goto out;
        }
      if (r->sp + 1 >= stack_size && stack_size < MAX_STACK)
        {
          stack_size = MIN (stack_size * 2, MAX_STACK);
          r->stack = g_renew (Value, r->stack, stack_size);
        }
      if (!step (r, op, at))
        goto out;
    }
out:
  drop_to (r, 0);
  while (r->free_list != NULL)
    {
      Container *c = r->free_list;

      r->free_list = c->next_free;
      g_free (c);
    }
  g_free (r->stack);
  g_byte_array_unref (r->memo);
  return ok;
}

/**
 * nk_memory_snapshot_read:
 * @data: (array length=length): a `_dump_snapshot()` pickle's bytes
 * @length: their count
 * @out: (out caller-allocates): what it measured
 * @error: one sentence with the byte offset: a pickle that ends early, an opcode
 *   refused (%NK_MEMORY_SNAPSHOT_ERROR_REFUSED names it), or no snapshot
 *
 * Reads a memory snapshot held in memory (nk_memory_snapshot_load() streams a file).
 *
 * Returns: %TRUE when @out holds the snapshot's figures
 */
gboolean
nk_memory_snapshot_read (const guint8     *data,
                         gsize             length,
                         NkMemoryMeasure  *out,
                         GError          **error)
{
  Reader r = { .buf = data, .avail = length, .total = (goffset) length, .fd = -1, .error = error };

  g_return_val_if_fail (data != NULL || length == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  return run (&r, out);
}

/**
 * nk_memory_snapshot_load:
 * @path: a `_dump_snapshot()` pickle
 * @out: (out caller-allocates): what it measured
 * @error: one sentence naming @path: not a regular file, unreadable, or as
 *   nk_memory_snapshot_read()'s
 *
 * Reads a memory snapshot file in one pass through a 1 MiB buffer: its size does not
 * change the memory it takes, beyond a byte per memoized object.
 *
 * Returns: %TRUE when @out holds the snapshot's figures
 */
gboolean
nk_memory_snapshot_load (const char       *path,
                         NkMemoryMeasure  *out,
                         GError          **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree guint8 *buffer = NULL;
  g_autofree char *name = NULL;
  goffset size = 0;
  int fd;
  Reader r = { .error = &local };
  gboolean ok;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  fd = nk_file_open_regular (path, G_MAXINT64, &size, error);
  if (fd < 0)
    return FALSE;
  buffer = g_malloc (BUF_SIZE);
  r.buf = r.owned = buffer;
  r.fd = fd;
  r.total = size;
  ok = run (&r, out);
  close (fd);
  if (ok)
    return TRUE;
  name = g_filename_display_name (path);
  g_set_error (error, local->domain, local->code, "“%s”: %s", name, local->message);
  return FALSE;
}
