/* nk-run-metrics.c: reading a run folder's metrics.jsonl back into a columnar history, fast
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A million-step run's metrics.jsonl is about 600 MB; json-glib builds a tree per
 * line and reopens it in tens of seconds. These lines are our own (nk-train-metrics.c
 * writes them), so a scanner that knows their members and reads each number once
 * does it in a fraction of a second. It still reads any valid JSON object: members
 * in another order, unknown members (skipped, nested or not), whitespace. A line
 * that is not a complete object is counted and skipped, never trusted in part.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-run-dir-private.h"

typedef enum {
  F_U64,      /* a count at offset */
  F_DOUBLE,   /* a double at offset */
  F_BOOL,     /* a gboolean at offset */
  F_DEVICE,
  F_MEMORY,   /* nested object of buckets → memory[] (counts) */
  F_PREDICTED,/* nested object of buckets → predicted[] (doubles) */
  F_DONE,
} FieldKind;

typedef struct {
  const char *name;
  guint       len;
  FieldKind   kind;
  gsize       offset;
} Field;

#define FIELD(n, k, m) { n, sizeof n - 1, k, G_STRUCT_OFFSET (NkTrainMetrics, m) }
#define FIELD0(n, k) { n, sizeof n - 1, k, 0 }

/* In the order nk_train_metrics_build_json() writes them: the scanner tries the
 * member after the last one it matched first. */
static const Field fields[] = {
  FIELD ("step", F_U64, step),
  FIELD ("loss", F_DOUBLE, loss),
  FIELD ("flops", F_U64, flops),
  FIELD ("seconds", F_DOUBLE, seconds),
  FIELD ("flops_per_s", F_DOUBLE, flops_per_s),
  FIELD ("peak_flops_per_s", F_DOUBLE, peak_flops_per_s),
  FIELD ("mfu", F_DOUBLE, mfu),
  FIELD0 ("device", F_DEVICE),
  FIELD0 ("memory", F_MEMORY),
  FIELD0 ("memory_predicted", F_PREDICTED),
  FIELD ("flops_forward", F_U64, flops_forward),
  FIELD ("flops_backward", F_U64, flops_backward),
  FIELD ("flops_matmul", F_U64, flops_matmul),
  FIELD ("seconds_forward", F_DOUBLE, seconds_forward),
  FIELD ("seconds_backward", F_DOUBLE, seconds_backward),
  FIELD ("seconds_optimizer", F_DOUBLE, seconds_optimizer),
  FIELD ("loss_scale", F_DOUBLE, loss_scale),
  FIELD ("skipped", F_BOOL, skipped),
  FIELD ("flops_formula", F_DOUBLE, flops_formula),
  FIELD ("flops_attention", F_U64, flops_attention),
  FIELD ("flops_norm", F_U64, flops_norm),
  FIELD ("flops_activation", F_U64, flops_activation),
  FIELD ("flops_softmax", F_U64, flops_softmax),
  FIELD ("flops_embedding", F_U64, flops_embedding),
  FIELD ("quant_flushed", F_DOUBLE, quant_flushed),
  FIELD ("quant_clipped", F_DOUBLE, quant_clipped),
  FIELD0 ("done", F_DONE),
};

/* The buckets of "memory" and "memory_predicted", in the JSON's order. */
static const struct { const char *name; guint len; NkBucket bucket; } buckets[] = {
  { "params", 6, NK_BUCKET_PARAMS },
  { "grads", 5, NK_BUCKET_GRADS },
  { "optimizer", 9, NK_BUCKET_OPTIMIZER },
  { "activations", 11, NK_BUCKET_ACTIVATIONS },
};

/* Most doubles repeat from step to step (the peak, the prediction, the loss scale):
 * the text of each field's last number and its value, so a repeat is a memcmp. */
typedef struct {
  char   text[32];
  guint  len;
  double value;
} NumberCache;

typedef struct {
  const char *p;
  const char *end;
  NumberCache cache[G_N_ELEMENTS (fields) + 2 * G_N_ELEMENTS (buckets)];
  guint       hint;
  char       *device;
  gboolean    saw_done;
} Scanner;

static inline void
skip_ws (Scanner *s)
{
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r'))
    s->p++;
}

static inline gboolean
expect (Scanner *s,
        char     c)
{
  skip_ws (s);
  if (s->p < s->end && *s->p == c)
    {
      s->p++;
      return TRUE;
    }
  return FALSE;
}

/* A string's body after its opening quote; sets *start and *len to the raw bytes
 * (escapes left in: our member names and devices have none). */
static gboolean
scan_string (Scanner     *s,
             const char **start,
             gsize       *len)
{
  const char *p = s->p;

  *start = p;
  while (p < s->end && *p != '"')
    {
      if (*p == '\\')
        p++;
      p++;
    }
  if (p >= s->end)
    return FALSE;
  *len = p - *start;
  s->p = p + 1;
  return TRUE;
}

static gboolean
scan_number_token (Scanner     *s,
                   const char **start,
                   gsize       *len)
{
  const char *p = s->p;

  while (p < s->end && (g_ascii_isdigit (*p) || *p == '-' || *p == '+' || *p == '.'
                        || *p == 'e' || *p == 'E'))
    p++;
  if (p == s->p)
    return FALSE;
  *start = s->p;
  *len = p - s->p;
  s->p = p;
  return TRUE;
}

/* Most numbers here are doubles printed with 17 significant digits, where glibc's
 * strtod falls back to big-number arithmetic (about 150 ns each). The digits fit a
 * 64-bit integer w, and w · 10^e with |e| <= 27 is one correctly rounded long double
 * operation (x87: 64-bit mantissa, 10^27 exact), within 2^-64 of the true value, so
 * its rounding to double is the correctly rounded double unless it lies within
 * 0.01 ulp of a halfway point; those few (and everything else unusual) go to
 * g_ascii_strtod. Every value reads back bit for bit either way. */
static gboolean
fast_double (const char *p,
             gsize       len,
             double     *out)
{
#if LDBL_MANT_DIG >= 64
  static const long double pow10[] = {
    1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L,
    1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L,
    1e24L, 1e25L, 1e26L, 1e27L,
  };
  const char *end = p + len;
  gboolean negative = FALSE;
  guint64 w = 0;
  int digits = 0, e10 = 0, exp_part = 0, exp_sign = 1;
  long double x, r;
  double d, m, ulp;
  int e2;

  if (p < end && *p == '-')
    {
      negative = TRUE;
      p++;
    }
  for (; p < end && g_ascii_isdigit (*p); p++)
    {
      if (w == 0 && *p == '0')
        continue;
      if (++digits > 19)
        return FALSE;
      w = w * 10 + (guint64) (*p - '0');
    }
  if (p < end && *p == '.')
    for (p++; p < end && g_ascii_isdigit (*p); p++)
      {
        e10--;
        if (w == 0 && *p == '0')
          continue;
        if (++digits > 19)
          return FALSE;
        w = w * 10 + (guint64) (*p - '0');
      }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '-' || *p == '+'))
        exp_sign = *p++ == '-' ? -1 : 1;
      for (; p < end && g_ascii_isdigit (*p) && exp_part < 1000; p++)
        exp_part = exp_part * 10 + (*p - '0');
    }
  if (p != end)
    return FALSE;
  e10 += exp_sign * exp_part;
  if (w == 0)
    {
      *out = negative ? -0.0 : 0.0;
      return TRUE;
    }
  if (e10 < -27 || e10 > 27)
    return FALSE;
  x = e10 >= 0 ? (long double) w * pow10[e10] : (long double) w / pow10[-e10];
  d = (double) x;
  if (!(d >= DBL_MIN) || isinf (d))
    return FALSE;
  r = fabsl (x - (long double) d);
  m = frexp (d, &e2);
  ulp = ldexp (1.0, e2 - 53);
  /* Below a power of two the spacing halves. */
  if (m == 0.5 && x < (long double) d)
    ulp *= 0.5;
  if (r > 0.49L * ulp)
    return FALSE;
  *out = negative ? -d : d;
  return TRUE;
#else
  return FALSE;
#endif
}

/* A JSON number, or the strings "nan", "inf", "-inf" nk_json_add_double() writes. */
static gboolean
scan_double (Scanner     *s,
             NumberCache *cache,
             double      *out)
{
  const char *start;
  gsize len;
  char buf[64];
  char *endp;

  skip_ws (s);
  if (s->p < s->end && *s->p == '"')
    {
      s->p++;
      if (!scan_string (s, &start, &len))
        return FALSE;
      if (len == 3 && memcmp (start, "nan", 3) == 0)
        *out = NAN;
      else if (len == 3 && memcmp (start, "inf", 3) == 0)
        *out = INFINITY;
      else if (len == 4 && memcmp (start, "-inf", 4) == 0)
        *out = -INFINITY;
      else
        return FALSE;
      return TRUE;
    }
  if (!scan_number_token (s, &start, &len) || len >= sizeof buf)
    return FALSE;
  if (cache != NULL && cache->len == len && memcmp (cache->text, start, len) == 0)
    {
      *out = cache->value;
      return TRUE;
    }
  if (!fast_double (start, len, out))
    {
      memcpy (buf, start, len);
      buf[len] = '\0';
      *out = g_ascii_strtod (buf, &endp);
      if (endp != buf + len)
        return FALSE;
    }
  if (cache != NULL && len < sizeof cache->text)
    {
      memcpy (cache->text, start, len);
      cache->len = len;
      cache->value = *out;
    }
  return TRUE;
}

/* A whole number; a count written as a double ("4164.0") is read too. */
static gboolean
scan_u64 (Scanner *s,
          guint64 *out)
{
  const char *p;
  guint64 v = 0;
  double d;

  skip_ws (s);
  p = s->p;
  while (p < s->end && g_ascii_isdigit (*p) && p - s->p < 19)
    v = v * 10 + (guint64) (*p++ - '0');
  if (p > s->p && (p >= s->end || (!g_ascii_isdigit (*p) && *p != '.' && *p != 'e'
                                   && *p != 'E')))
    {
      s->p = p;
      *out = v;
      return TRUE;
    }
  if (!scan_double (s, NULL, &d) || !(d >= 0) || d >= 18446744073709551616.0)
    return FALSE;
  *out = (guint64) d;
  return TRUE;
}

static gboolean skip_value (Scanner *s, guint depth);

static gboolean
skip_container (Scanner *s,
                char     close,
                guint    depth)
{
  if (expect (s, close))
    return TRUE;
  for (;;)
    {
      const char *start;
      gsize len;

      if (close == '}')
        {
          if (!expect (s, '"') || !scan_string (s, &start, &len) || !expect (s, ':'))
            return FALSE;
        }
      if (!skip_value (s, depth + 1))
        return FALSE;
      if (expect (s, close))
        return TRUE;
      if (!expect (s, ','))
        return FALSE;
    }
}

static gboolean
skip_value (Scanner *s,
            guint    depth)
{
  const char *start;
  gsize len;
  double d;

  if (depth > 32)
    return FALSE;
  skip_ws (s);
  if (s->p >= s->end)
    return FALSE;
  switch (*s->p)
    {
    case '"':
      s->p++;
      return scan_string (s, &start, &len);
    case '{':
      s->p++;
      return skip_container (s, '}', depth);
    case '[':
      s->p++;
      return skip_container (s, ']', depth);
    case 't':
    case 'f':
    case 'n':
      len = *s->p == 'f' ? 5 : 4;
      if ((gsize) (s->end - s->p) < len
          || (memcmp (s->p, "true", 4) != 0 && memcmp (s->p, "null", 4) != 0
              && memcmp (s->p, "false", 5) != 0))
        return FALSE;
      s->p += len;
      return TRUE;
    default:
      return scan_double (s, NULL, &d);
    }
}

static gboolean
scan_bool (Scanner  *s,
           gboolean *out)
{
  skip_ws (s);
  if (s->end - s->p >= 4 && memcmp (s->p, "true", 4) == 0)
    {
      s->p += 4;
      *out = TRUE;
      return TRUE;
    }
  if (s->end - s->p >= 5 && memcmp (s->p, "false", 5) == 0)
    {
      s->p += 5;
      *out = FALSE;
      return TRUE;
    }
  return FALSE;
}

/* "memory" or "memory_predicted": {bucket: number, ...}. */
static gboolean
scan_buckets (Scanner        *s,
              NkTrainMetrics *m,
              gboolean        predicted)
{
  if (!expect (s, '{'))
    return FALSE;
  if (expect (s, '}'))
    return TRUE;
  for (;;)
    {
      const char *key;
      gsize len;
      guint b;

      if (!expect (s, '"') || !scan_string (s, &key, &len) || !expect (s, ':'))
        return FALSE;
      for (b = 0; b < G_N_ELEMENTS (buckets); b++)
        if (buckets[b].len == len && memcmp (buckets[b].name, key, len) == 0)
          break;
      if (b == G_N_ELEMENTS (buckets))
        {
          if (!skip_value (s, 1))
            return FALSE;
        }
      else if (predicted)
        {
          if (!scan_double (s, &s->cache[G_N_ELEMENTS (fields) + G_N_ELEMENTS (buckets) + b],
                            &m->predicted[b]))
            return FALSE;
        }
      else if (!scan_u64 (s, &m->memory[buckets[b].bucket]))
        return FALSE;
      if (expect (s, '}'))
        return TRUE;
      if (!expect (s, ','))
        return FALSE;
    }
}

/* The member the writer puts next, taken whole when its quoted name is right here:
 * the common case skips the byte-by-byte scan of the name. */
static inline const Field *
take_expected_field (Scanner *s,
                     guint   *index)
{
  guint i = s->hint % G_N_ELEMENTS (fields);
  const Field *f = &fields[i];

  if ((gsize) (s->end - s->p) > f->len + 2 && s->p[0] == '"' && s->p[f->len + 1] == '"'
      && memcmp (s->p + 1, f->name, f->len) == 0)
    {
      s->p += f->len + 2;
      s->hint = i + 1;
      *index = i;
      return f;
    }
  return NULL;
}

static const Field *
find_field (Scanner    *s,
            const char *key,
            gsize       len,
            guint      *index)
{
  for (guint k = 0; k < G_N_ELEMENTS (fields); k++)
    {
      guint i = (s->hint + k) % G_N_ELEMENTS (fields);

      if (fields[i].len == len && memcmp (fields[i].name, key, len) == 0)
        {
          s->hint = i + 1;
          *index = i;
          return &fields[i];
        }
    }
  return NULL;
}

static gboolean
scan_member_value (Scanner        *s,
                   const Field    *f,
                   guint           index,
                   NkTrainMetrics *m)
{
  char *base = (char *) m;
  const char *start;
  gsize len;

  switch (f->kind)
    {
    case F_U64:
      return scan_u64 (s, (guint64 *) (base + f->offset));
    case F_DOUBLE:
      return scan_double (s, &s->cache[index], (double *) (base + f->offset));
    case F_BOOL:
      return scan_bool (s, (gboolean *) (base + f->offset));
    case F_MEMORY:
      return scan_buckets (s, m, FALSE);
    case F_PREDICTED:
      return scan_buckets (s, m, TRUE);
    case F_DONE:
      s->saw_done = TRUE;
      return skip_value (s, 1);
    case F_DEVICE:
    default:
      if (!expect (s, '"') || !scan_string (s, &start, &len))
        return FALSE;
      if (s->device == NULL)
        s->device = g_strndup (start, len);
      return TRUE;
    }
}

/* One line (without its newline) → a step; %FALSE for anything else. */
static gboolean
scan_line (Scanner        *s,
           NkTrainMetrics *m,
           gboolean       *has_step)
{
  memset (m, 0, sizeof *m);
  m->loss_scale = 1;
  *has_step = FALSE;
  s->hint = 0;
  if (!expect (s, '{'))
    return FALSE;
  if (expect (s, '}'))
    return FALSE;
  for (;;)
    {
      const char *key;
      gsize len;
      guint index = 0;
      const Field *f;

      skip_ws (s);
      f = take_expected_field (s, &index);
      if (f != NULL)
        {
          if (!expect (s, ':'))
            return FALSE;
        }
      else
        {
          if (!expect (s, '"') || !scan_string (s, &key, &len) || !expect (s, ':'))
            return FALSE;
          f = find_field (s, key, len, &index);
        }
      if (f == NULL)
        {
          if (!skip_value (s, 1))
            return FALSE;
        }
      else
        {
          if (!scan_member_value (s, f, index, m))
            return FALSE;
          if (index == 0)
            *has_step = TRUE;
        }
      if (expect (s, '}'))
        break;
      if (!expect (s, ','))
        return FALSE;
    }
  skip_ws (s);
  return s->p == s->end;
}

/**
 * _nk_run_metrics_scan_line:
 * @line: (array length=length): one line of a metrics.jsonl, without its newline
 * @length: its bytes
 * @out: (out caller-allocates): the step, for %NK_RUN_LINE_STEP
 *
 * What one line is, by the same scanner the readers use.
 *
 * Returns: its kind
 */
NkRunLineKind
_nk_run_metrics_scan_line (const char     *line,
                           gsize           length,
                           NkTrainMetrics *out)
{
  Scanner scanner = { 0, };
  Scanner *s = &scanner;
  NkRunLineKind kind;
  gboolean has_step;

  s->p = line;
  s->end = line + length;
  skip_ws (s);
  if (s->p == s->end)
    return NK_RUN_LINE_BLANK;
  if (!scan_line (s, out, &has_step))
    kind = NK_RUN_LINE_BAD;
  else if (has_step)
    kind = NK_RUN_LINE_STEP;
  else
    kind = s->saw_done ? NK_RUN_LINE_DONE : NK_RUN_LINE_BAD;
  g_free (s->device);
  return kind;
}

/* Steps go to the history in blocks: one call per block keeps its appends cheap. */
#define BLOCK 256

/* One slice of the file, whole lines, parsed by one thread. */
typedef struct {
  const char     *start;
  const char     *end;
  NkTrainHistory *history;
  gsize           bad;
  gboolean        done;
  char           *device;
} Slice;

static gpointer
parse_slice (gpointer data)
{
  Slice *slice = data;
  g_autofree Scanner *s = g_new0 (Scanner, 1);
  g_autofree NkTrainMetrics *block = g_new (NkTrainMetrics, BLOCK);
  const char *p = slice->start, *end = slice->end;
  gsize n = 0;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line_end = nl != NULL ? nl : end;
      gboolean has_step;

      s->p = p;
      s->end = line_end;
      s->saw_done = FALSE;
      skip_ws (s);
      if (s->p == line_end)
        ;  /* a blank line */
      else if (nl == NULL)
        slice->bad++;  /* torn: the writer died inside its last write() */
      else if (!scan_line (s, &block[n], &has_step))
        slice->bad++;
      else if (has_step)
        {
          if (++n == BLOCK)
            {
              nk_train_history_append_steps (slice->history, block, n);
              n = 0;
            }
        }
      else if (s->saw_done)
        slice->done = TRUE;
      else
        slice->bad++;
      p = nl != NULL ? nl + 1 : end;
    }
  nk_train_history_append_steps (slice->history, block, n);
  slice->device = g_steal_pointer (&s->device);
  return NULL;
}

static void
append_history (NkTrainHistory *to,
                NkTrainHistory *from)
{
  g_autofree NkTrainMetrics *block = g_new (NkTrainMetrics, BLOCK);
  gsize n = nk_train_history_get_n (from);

  for (gsize i = 0; i < n; i += BLOCK)
    {
      gsize k = MIN (BLOCK, n - i);

      for (gsize j = 0; j < k; j++)
        nk_train_history_get (from, i + j, &block[j]);
      nk_train_history_append_steps (to, block, k);
    }
}

/* Below this a second thread costs more than it saves. */
#define PARALLEL_MIN_BYTES (16 << 20)
#define MAX_SLICES 8

/**
 * nk_run_metrics_parse:
 * @data: (array length=length): the bytes of a metrics.jsonl
 * @length: how many
 * @history: where the steps go (appended, in the file's order)
 * @out_info: (out caller-allocates) (optional): the counts and the device
 *
 * A large file is cut into slices of whole lines that threads parse into histories
 * of their own, appended to @history in order: the columns stay one thread's.
 */
void
nk_run_metrics_parse (const char       *data,
                      gsize             length,
                      NkTrainHistory   *history,
                      NkRunMetricsInfo *out_info)
{
  Slice slices[MAX_SLICES] = { { 0, }, };
  GThread *threads[MAX_SLICES] = { NULL, };
  guint n_slices = 1;
  const char *p = data;
  gsize bad = 0;
  gboolean done = FALSE;
  char *device = NULL;

  g_return_if_fail (data != NULL || length == 0);
  g_return_if_fail (history != NULL);

  if (length >= PARALLEL_MIN_BYTES)
    n_slices = CLAMP (g_get_num_processors (), 1, MAX_SLICES);
  for (guint i = 0; i < n_slices; i++)
    {
      const char *end = data + length;

      if (i + 1 < n_slices)
        {
          const char *cut = data + length / n_slices * (i + 1);
          const char *nl = cut > p ? memchr (cut, '\n', data + length - cut) : NULL;

          end = nl != NULL ? nl + 1 : cut > p ? data + length : p;
        }
      slices[i].start = p;
      slices[i].end = end;
      slices[i].history = i == 0 ? history : nk_train_history_new ();
      p = end;
    }
  for (guint i = 1; i < n_slices; i++)
    threads[i] = g_thread_new ("nk-run-metrics", parse_slice, &slices[i]);
  parse_slice (&slices[0]);
  for (guint i = 0; i < n_slices; i++)
    {
      if (i > 0)
        {
          g_thread_join (threads[i]);
          append_history (history, slices[i].history);
          nk_train_history_free (slices[i].history);
        }
      bad += slices[i].bad;
      done |= slices[i].done;
      if (device == NULL)
        device = g_steal_pointer (&slices[i].device);
      g_free (slices[i].device);
    }

  if (out_info != NULL)
    {
      out_info->bad_lines = bad;
      out_info->done = done;
      out_info->device = g_steal_pointer (&device);
    }
  g_free (device);
}
