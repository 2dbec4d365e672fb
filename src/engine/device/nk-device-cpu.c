/* nk-device-cpu.c: the CPU device: host memory, strided loops over the shared kernel
 * bodies, OpenBLAS gemm
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

/* The inner loops below only pay off when gcc vectorizes them with runtime alias
 * checks and epilogues, which -O2's very-cheap cost model refuses. */
#if defined(__GNUC__) && !defined(__clang__)
# pragma GCC optimize ("O3")
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cblas.h>
#if defined(__SSE2__)
# include <emmintrin.h>
# include <xmmintrin.h>
#endif
#include <glib/gi18n-lib.h>

#include "nk-blas.h"
#include "nk-cpuinfo.h"
#include "nk-device-private.h"

/* ---- the strided walk ------------------------------------------------------------ */

/* Runs @fn over the innermost dim of @it for every position of the outer dims.
 * Pointers are bytes; strides handed to @fn are in elements of each operand. */
typedef void (*InnerFn) (gint64      n,
                         char       *p0,
                         gint64      s0,
                         const char *p1,
                         gint64      s1,
                         const char *p2,
                         gint64      s2,
                         gpointer    data);

/* Tiles for layouts where an input steps over memory along the inner dim but is
 * unit-stride along the next one (x.t() + y; the loop order is the output's, see
 * _nk_iter_init). Calling the per-element bodies with that input's big stride (even
 * in 32×32 tiles) ran at a third of the contiguous speed: scalar strided loads, and
 * short calls. Instead each tile of that input is first transposed into a buffer in
 * the output's order (reading it along its own rows, 4×4 blocks in SSE registers), and
 * the bodies then run on unit strides for every operand. 32 rows keep each column
 * strand of the input at 128 bytes (whole cache lines); 256 columns keep the calls
 * long; the buffer (32 KiB of f32) stays in L1/L2. Measured on 4096² f32 x.t() + y:
 * 0.32 of contiguous before, 0.6 after (CPU time, benchmarks/bench-matmul). */
#define TILE_R 32
#define TILE_C 256

/* Whether input @j of @it is read across its rows by the inner loop of the last two
 * dims while unit-ish along the next one. */
static gboolean
is_crosswise (const NkIter *it,
              int           j)
{
  int nd = it->ndim;
  gint64 cs = it->stride[j][nd - 1], rs = it->stride[j][nd - 2];

  return cs != 0 && cs != 1 && rs != 0 && ABS (rs) < ABS (cs);
}

static gboolean
wants_tiles (const NkIter *it,
             int           nops)
{
  int nd = it->ndim;

  if (nd < 2 || it->shape[nd - 1] < 16 || it->shape[nd - 2] < 16)
    return FALSE;
  for (int j = 1; j < nops; j++)
    if (is_crosswise (it, j))
      return TRUE;
  return FALSE;
}

/* buf[r·cn + c] = element (r, c) of a tile whose element (r, c) lives at
 * src + r·rs + c·cs (strides in elements of size @es). */
#define GATHER(T) \
  G_STMT_START { \
    T *d = (T *) buf; \
    const T *s = (const T *) src; \
    for (gint64 c = 0; c < cn; c++) \
      for (gint64 r = 0; r < rn; r++) \
        d[r * cn + c] = s[r * rs + c * cs]; \
  } G_STMT_END

#if defined(__SSE2__)
/* The common case, a 4-byte input read across its rows (rs = 1): 4×4 blocks
 * transposed in registers, so the gather reads and writes whole vectors. */
static void
gather_tile_f32_t (float       *d,
                   const float *s,
                   gint64       rn,
                   gint64       cn,
                   gint64       cs)
{
  gint64 c = 0;

  for (; c + 4 <= cn; c += 4)
    {
      const float *s0 = s + c * cs, *s1 = s0 + cs, *s2 = s1 + cs, *s3 = s2 + cs;
      gint64 r = 0;

      for (; r + 4 <= rn; r += 4)
        {
          __m128 a0 = _mm_loadu_ps (s0 + r), a1 = _mm_loadu_ps (s1 + r);
          __m128 a2 = _mm_loadu_ps (s2 + r), a3 = _mm_loadu_ps (s3 + r);
          _MM_TRANSPOSE4_PS (a0, a1, a2, a3);
          _mm_storeu_ps (d + r * cn + c, a0);
          _mm_storeu_ps (d + (r + 1) * cn + c, a1);
          _mm_storeu_ps (d + (r + 2) * cn + c, a2);
          _mm_storeu_ps (d + (r + 3) * cn + c, a3);
        }
      for (; r < rn; r++)
        {
          d[r * cn + c] = s0[r];
          d[r * cn + c + 1] = s1[r];
          d[r * cn + c + 2] = s2[r];
          d[r * cn + c + 3] = s3[r];
        }
    }
  for (; c < cn; c++)
    for (gint64 r = 0; r < rn; r++)
      d[r * cn + c] = s[c * cs + r];
}

/* The same for 8-byte elements, 2×2 blocks. */
static void
gather_tile_f64_t (double       *d,
                   const double *s,
                   gint64        rn,
                   gint64        cn,
                   gint64        cs)
{
  gint64 c = 0;

  for (; c + 2 <= cn; c += 2)
    {
      const double *s0 = s + c * cs, *s1 = s0 + cs;
      gint64 r = 0;

      for (; r + 2 <= rn; r += 2)
        {
          __m128d a0 = _mm_loadu_pd (s0 + r), a1 = _mm_loadu_pd (s1 + r);
          _mm_storeu_pd (d + r * cn + c, _mm_unpacklo_pd (a0, a1));
          _mm_storeu_pd (d + (r + 1) * cn + c, _mm_unpackhi_pd (a0, a1));
        }
      for (; r < rn; r++)
        {
          d[r * cn + c] = s0[r];
          d[r * cn + c + 1] = s1[r];
        }
    }
  for (; c < cn; c++)
    for (gint64 r = 0; r < rn; r++)
      d[r * cn + c] = s[c * cs + r];
}
#endif

static void
gather_tile (char       *buf,
             const char *src,
             gsize       es,
             gint64      rn,
             gint64      cn,
             gint64      rs,
             gint64      cs)
{
#if defined(__SSE2__)
  if (rs == 1 && es == 4)
    {
      gather_tile_f32_t ((float *) buf, (const float *) src, rn, cn, cs);
      return;
    }
  if (rs == 1 && es == 8)
    {
      gather_tile_f64_t ((double *) buf, (const double *) src, rn, cn, cs);
      return;
    }
#endif
  switch (es)
    {
    case 1: GATHER (guint8); break;
    case 2: GATHER (guint16); break;
    case 4: GATHER (guint32); break;
    case 8: GATHER (guint64); break;
    default: g_assert_not_reached ();
    }
}
#undef GATHER

static void
walk_tiled (const NkIter *it,
            int           nops,
            char         *const base[3],
            const gsize   es[3],
            InnerFn       fn,
            gpointer      data)
{
  gint64 idx[NK_MAX_DIMS] = { 0 };
  gint64 rs[3] = { 0 }, cs[3] = { 0 }, s[3] = { 0 };
  char *p[3] = { NULL, NULL, NULL };
  g_autofree char *bufs = NULL;
  char *buf[3] = { NULL, NULL, NULL };
  gboolean cross[3] = { FALSE, FALSE, FALSE };
  int nd = it->ndim;
  gint64 rows = it->shape[nd - 2], cols = it->shape[nd - 1];
  gint64 outer = it->numel / (rows * cols);

  bufs = g_malloc (2 * (gsize) TILE_R * TILE_C * sizeof (guint64));
  for (int j = 0; j < nops; j++)
    {
      p[j] = base[j] + it->offset[j] * (gint64) es[j];
      rs[j] = it->stride[j][nd - 2];
      cs[j] = it->stride[j][nd - 1];
      cross[j] = j > 0 && is_crosswise (it, j);
      if (cross[j])
        buf[j] = bufs + (j - 1) * (gsize) TILE_R * TILE_C * sizeof (guint64);
    }

  for (gint64 o = 0; o < outer; o++)
    {
      for (gint64 r0 = 0; r0 < rows; r0 += TILE_R)
        for (gint64 c0 = 0; c0 < cols; c0 += TILE_C)
          {
            gint64 rn = MIN (TILE_R, rows - r0), cn = MIN (TILE_C, cols - c0);
            char *q[3] = { NULL, NULL, NULL };

            for (int j = 0; j < nops; j++)
              {
                q[j] = p[j] + (r0 * rs[j] + c0 * cs[j]) * (gint64) es[j];
                s[j] = cs[j];
                if (cross[j])
                  {
                    gather_tile (buf[j], q[j], es[j], rn, cn, rs[j], cs[j]);
                    q[j] = buf[j];
                    s[j] = 1;
                  }
              }
            for (gint64 r = 0; r < rn; r++)
              {
                fn (cn, q[0], s[0], q[1], s[1], q[2], s[2], data);
                for (int j = 0; j < nops; j++)
                  q[j] += (cross[j] ? cn : rs[j]) * (gint64) es[j];
              }
          }

      for (int d = nd - 3; d >= 0; d--)
        {
          idx[d]++;
          for (int j = 0; j < nops; j++)
            p[j] += it->stride[j][d] * (gint64) es[j];
          if (idx[d] < it->shape[d])
            break;
          for (int j = 0; j < nops; j++)
            p[j] -= it->stride[j][d] * it->shape[d] * (gint64) es[j];
          idx[d] = 0;
        }
    }
}

static void
walk (const NkIter *it,
      int           nops,
      char         *const base[3],
      const gsize   es[3],
      InnerFn       fn,
      gpointer      data)
{
  gint64 idx[NK_MAX_DIMS] = { 0 };
  gint64 is[3] = { 0, 0, 0 };
  char *p[3] = { NULL, NULL, NULL };
  int nd = it->ndim;
  gint64 inner, outer;

  if (it->numel <= 0)
    return;
  if (wants_tiles (it, nops))
    {
      walk_tiled (it, nops, base, es, fn, data);
      return;
    }

  inner = nd > 0 ? it->shape[nd - 1] : 1;
  for (int j = 0; j < nops; j++)
    {
      p[j] = base[j] + it->offset[j] * (gint64) es[j];
      is[j] = nd > 0 ? it->stride[j][nd - 1] : 0;
    }

  outer = it->numel / inner;
  for (gint64 o = 0; o < outer; o++)
    {
      fn (inner, p[0], is[0], p[1], is[1], p[2], is[2], data);

      for (int d = nd - 2; d >= 0; d--)
        {
          idx[d]++;
          for (int j = 0; j < nops; j++)
            p[j] += it->stride[j][d] * (gint64) es[j];
          if (idx[d] < it->shape[d])
            break;
          for (int j = 0; j < nops; j++)
            p[j] -= it->stride[j][d] * it->shape[d] * (gint64) es[j];
          idx[d] = 0;
        }
    }
}

/* ---- elementwise inner loops, one per op and float type -------------------------- */

#define NK_CPU_BINARY_OPS(X) \
  X (ADD) X (SUB) X (MUL) X (DIV) X (POW) X (MAX) X (MIN) X (EQ) X (NE) X (LT) X (LE) \
  X (GT) X (GE) X (RELU_BACKWARD) X (SIGMOID_BACKWARD) X (TANH_BACKWARD) \
  X (GELU_BACKWARD) X (SILU_BACKWARD)

#define NK_CPU_UNARY_OPS(X) \
  X (NEG) X (ABS) X (EXP) X (LOG) X (SQRT) X (RSQRT) X (SQUARE) X (RECIPROCAL) \
  X (SIGN) X (SIN) X (COS) X (TANH) X (SIGMOID) X (RELU) X (GELU) X (SILU)

#define DEFINE_BINARY(T, SUF, NAME) \
static void \
binary_##SUF##_##NAME (gint64 n, char *p0, gint64 so, const char *p1, gint64 sa, \
                       const char *p2, gint64 sb, gpointer data) \
{ \
  T *o = (T *) p0; \
  const T *a = (const T *) p1; \
  const T *b = (const T *) p2; \
  if (so == 1 && sa == 1 && sb == 1) \
    for (gint64 i = 0; i < n; i++) \
      o[i] = nk_kernel_binary_##SUF (NK_BINARY_##NAME, a[i], b[i]); \
  else if (so == 1 && sa == 1 && sb == 0) \
    { \
      T bv = b[0]; \
      for (gint64 i = 0; i < n; i++) \
        o[i] = nk_kernel_binary_##SUF (NK_BINARY_##NAME, a[i], bv); \
    } \
  else if (so == 1 && sa == 0 && sb == 1) \
    { \
      T av = a[0]; \
      for (gint64 i = 0; i < n; i++) \
        o[i] = nk_kernel_binary_##SUF (NK_BINARY_##NAME, av, b[i]); \
    } \
  else \
    for (gint64 i = 0; i < n; i++) \
      o[i * so] = nk_kernel_binary_##SUF (NK_BINARY_##NAME, a[i * sa], b[i * sb]); \
}

#define DEFINE_UNARY(T, SUF, NAME) \
static void \
unary_##SUF##_##NAME (gint64 n, char *p0, gint64 so, const char *p1, gint64 sa, \
                      const char *p2, gint64 sb, gpointer data) \
{ \
  T *o = (T *) p0; \
  const T *a = (const T *) p1; \
  if (so == 1 && sa == 1) \
    for (gint64 i = 0; i < n; i++) \
      o[i] = nk_kernel_unary_##SUF (NK_UNARY_##NAME, a[i]); \
  else \
    for (gint64 i = 0; i < n; i++) \
      o[i * so] = nk_kernel_unary_##SUF (NK_UNARY_##NAME, a[i * sa]); \
}

#define DEFINE_BINARY_F(NAME) DEFINE_BINARY (float, f, NAME)
#define DEFINE_BINARY_D(NAME) DEFINE_BINARY (double, d, NAME)
#define DEFINE_UNARY_F(NAME) DEFINE_UNARY (float, f, NAME)
#define DEFINE_UNARY_D(NAME) DEFINE_UNARY (double, d, NAME)
NK_CPU_BINARY_OPS (DEFINE_BINARY_F)
NK_CPU_BINARY_OPS (DEFINE_BINARY_D)
NK_CPU_UNARY_OPS (DEFINE_UNARY_F)
NK_CPU_UNARY_OPS (DEFINE_UNARY_D)

#define ENTRY_BINARY_F(NAME) [NK_BINARY_##NAME] = binary_f_##NAME,
#define ENTRY_BINARY_D(NAME) [NK_BINARY_##NAME] = binary_d_##NAME,
#define ENTRY_UNARY_F(NAME) [NK_UNARY_##NAME] = unary_f_##NAME,
#define ENTRY_UNARY_D(NAME) [NK_UNARY_##NAME] = unary_d_##NAME,
static const InnerFn binary_f[NK_N_BINARY_OPS] = { NK_CPU_BINARY_OPS (ENTRY_BINARY_F) };
static const InnerFn binary_d[NK_N_BINARY_OPS] = { NK_CPU_BINARY_OPS (ENTRY_BINARY_D) };
static const InnerFn unary_f[NK_N_UNARY_OPS] = { NK_CPU_UNARY_OPS (ENTRY_UNARY_F) };
static const InnerFn unary_d[NK_N_UNARY_OPS] = { NK_CPU_UNARY_OPS (ENTRY_UNARY_D) };

/* ---- the backend ----------------------------------------------------------------- */

#define HUGE_THRESHOLD (4 << 20)
#define HUGE_ALIGN (2 << 20)

static gpointer
cpu_alloc (gpointer  backend,
           gsize     nbytes,
           GError  **error)
{
  /* 64-byte alignment keeps AVX-512 loads and OpenBLAS happy. */
  gpointer ptr = NULL;
  gboolean huge = nbytes >= HUGE_THRESHOLD;

  if (posix_memalign (&ptr, huge ? HUGE_ALIGN : 64, MAX (nbytes, 1)) != 0)
    {
      g_set_error_literal (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_OUT_OF_MEMORY,
                           g_strerror (ENOMEM));
      return NULL;
    }
  /* Like numpy: transparent huge pages make first touch of a big fresh buffer
   * (every op output) a few page faults instead of thousands. */
#ifdef MADV_HUGEPAGE
  if (huge)
    madvise (ptr, nbytes, MADV_HUGEPAGE);
#endif
  return ptr;
}

static void
cpu_free (gpointer backend,
          gpointer ptr,
          gsize    nbytes)
{
  free (ptr);
}

static gboolean
cpu_copy (gpointer       backend,
          NkCopyKind     kind,
          gpointer       dst,
          gconstpointer  src,
          gsize          nbytes,
          GError       **error)
{
  memmove (dst, src, nbytes);
  return TRUE;
}

static gboolean
cpu_supports_dtype (gpointer backend,
                    NkDType  dtype)
{
  return dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64;
}

static gboolean
cpu_supports_gemm_dtype (gpointer backend,
                         NkDType  dtype,
                         NkDType  out_dtype)
{
  return (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64) && out_dtype == dtype;
}

typedef struct {
  NkDType out_dtype;
  NkDType in_dtype;
  gsize   out_es;
  gsize   in_es;
} CastData;

static gboolean
is_narrow_float (NkDType dtype)
{
  return dtype == NK_DTYPE_F16 || dtype == NK_DTYPE_BF16 ||
         dtype == NK_DTYPE_E4M3 || dtype == NK_DTYPE_E5M2;
}

/* Whether every value of @dtype is exactly a float, so that rounding a float to a
 * narrow format is the single rounding of the true value. */
static gboolean
exact_in_f32 (NkDType dtype)
{
  return dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_UINT16 || is_narrow_float (dtype);
}

#define CAST_CHUNK 256

static void
cast_inner (gint64      n,
            char       *p0,
            gint64      so,
            const char *p1,
            gint64      si,
            const char *p2,
            gint64      unused,
            gpointer    user_data)
{
  const CastData *cd = user_data;

  if (cd->out_dtype == cd->in_dtype)
    {
      if (so == 1 && si == 1)
        {
          memmove (p0, p1, n * cd->out_es);
          return;
        }
      switch (cd->out_es)
        {
        case 1: for (gint64 i = 0; i < n; i++) ((guint8 *) p0)[i * so] = ((const guint8 *) p1)[i * si]; break;
        case 2: for (gint64 i = 0; i < n; i++) ((guint16 *) p0)[i * so] = ((const guint16 *) p1)[i * si]; break;
        case 4: for (gint64 i = 0; i < n; i++) ((guint32 *) p0)[i * so] = ((const guint32 *) p1)[i * si]; break;
        case 8: for (gint64 i = 0; i < n; i++) ((guint64 *) p0)[i * so] = ((const guint64 *) p1)[i * si]; break;
        default: g_assert_not_reached ();
        }
      return;
    }

  if (cd->in_dtype == NK_DTYPE_F32 && cd->out_dtype == NK_DTYPE_F64)
    {
      for (gint64 i = 0; i < n; i++)
        ((double *) p0)[i * so] = ((const float *) p1)[i * si];
      return;
    }
  if (cd->in_dtype == NK_DTYPE_F64 && cd->out_dtype == NK_DTYPE_F32)
    {
      for (gint64 i = 0; i < n; i++)
        ((float *) p0)[i * so] = (float) ((const double *) p1)[i * si];
      return;
    }

  /* Between f32 and the narrow floats: nk-dtype's bulk path, through a buffer when
   * strided. */
  if ((cd->in_dtype == NK_DTYPE_F32 && is_narrow_float (cd->out_dtype)) ||
      (cd->out_dtype == NK_DTYPE_F32 && is_narrow_float (cd->in_dtype)))
    {
      float fbuf[CAST_CHUNK];
      guint16 nbuf[CAST_CHUNK];

      for (gint64 i0 = 0; i0 < n; i0 += CAST_CHUNK)
        {
          gint64 m = MIN (CAST_CHUNK, n - i0);

          if (cd->in_dtype == NK_DTYPE_F32)
            {
              const float *src = (const float *) p1 + i0 * si;
              char *dst = p0 + i0 * so * cd->out_es;

              if (si != 1)
                {
                  for (gint64 i = 0; i < m; i++)
                    fbuf[i] = src[i * si];
                  src = fbuf;
                }
              if (so == 1)
                nk_dtype_convert_from_f32 (cd->out_dtype, src, dst, m, NK_OVERFLOW_DEFAULT);
              else
                {
                  nk_dtype_convert_from_f32 (cd->out_dtype, src, nbuf, m, NK_OVERFLOW_DEFAULT);
                  for (gint64 i = 0; i < m; i++)
                    memcpy (dst + i * so * cd->out_es, (char *) nbuf + i * cd->out_es, cd->out_es);
                }
            }
          else
            {
              const char *src = p1 + i0 * si * cd->in_es;
              float *dst = (float *) p0 + i0 * so;

              if (si != 1)
                {
                  for (gint64 i = 0; i < m; i++)
                    memcpy ((char *) nbuf + i * cd->in_es, src + i * si * cd->in_es, cd->in_es);
                  src = (const char *) nbuf;
                }
              if (so == 1)
                nk_dtype_convert_to_f32 (cd->in_dtype, src, dst, m);
              else
                {
                  nk_dtype_convert_to_f32 (cd->in_dtype, src, fbuf, m);
                  for (gint64 i = 0; i < m; i++)
                    dst[i * so] = fbuf[i];
                }
            }
        }
      return;
    }

  /* Everything else element by element through a double: exact loads, and stores
   * that round once (nk_dtype_encode for narrow floats). */
  if (is_narrow_float (cd->out_dtype) && exact_in_f32 (cd->in_dtype))
    {
      for (gint64 i = 0; i < n; i++)
        {
          float f = (float) nk_dtype_load_double (cd->in_dtype, p1 + i * si * cd->in_es);
          nk_dtype_convert_from_f32 (cd->out_dtype, &f, p0 + i * so * cd->out_es, 1,
                                     NK_OVERFLOW_DEFAULT);
        }
      return;
    }
  for (gint64 i = 0; i < n; i++)
    nk_dtype_store_double (cd->out_dtype, p0 + i * so * cd->out_es,
                          nk_dtype_load_double (cd->in_dtype, p1 + i * si * cd->in_es));
}

static gboolean
cpu_cast (gpointer       backend,
          const NkIter  *it,
          NkDType        out_dtype,
          gpointer       out,
          NkDType        in_dtype,
          gconstpointer  in,
          GError       **error)
{
  CastData cd = { out_dtype, in_dtype,
                  nk_dtype_element_size (out_dtype), nk_dtype_element_size (in_dtype) };
  char *base[3] = { out, (char *) in, NULL };
  gsize es[3] = { cd.out_es, cd.in_es, 0 };

  walk (it, 2, base, es, cast_inner, &cd);
  return TRUE;
}

typedef struct {
  gsize   es;
  guint64 bits;
} FillData;

static void
fill_inner (gint64      n,
            char       *p0,
            gint64      so,
            const char *p1,
            gint64      s1,
            const char *p2,
            gint64      s2,
            gpointer    user_data)
{
  const FillData *fd = user_data;

  switch (fd->es)
    {
    case 1: for (gint64 i = 0; i < n; i++) ((guint8 *) p0)[i * so] = (guint8) fd->bits; break;
    case 2: for (gint64 i = 0; i < n; i++) ((guint16 *) p0)[i * so] = (guint16) fd->bits; break;
    case 4: for (gint64 i = 0; i < n; i++) ((guint32 *) p0)[i * so] = (guint32) fd->bits; break;
    case 8: for (gint64 i = 0; i < n; i++) ((guint64 *) p0)[i * so] = fd->bits; break;
    default: g_assert_not_reached ();
    }
}

static gboolean
cpu_fill (gpointer       backend,
          const NkIter  *it,
          NkDType        dtype,
          gpointer       out,
          double         value,
          GError       **error)
{
  FillData fd = { nk_dtype_element_size (dtype), 0 };
  char *base[3] = { out, NULL, NULL };
  gsize es[3] = { fd.es, 0, 0 };

  nk_dtype_store_double (dtype, &fd.bits, value);
  walk (it, 1, base, es, fill_inner, &fd);
  return TRUE;
}

static gboolean
cpu_unary (gpointer       backend,
           NkUnaryOp      op,
           const NkIter  *it,
           NkDType        dtype,
           gpointer       out,
           gconstpointer  a,
           GError       **error)
{
  char *base[3] = { out, (char *) a, NULL };
  gsize es = nk_dtype_element_size (dtype);
  gsize ess[3] = { es, es, es };

  g_return_val_if_fail (op < NK_N_UNARY_OPS, FALSE);
  g_return_val_if_fail (cpu_supports_dtype (backend, dtype), FALSE);

  walk (it, 2, base, ess, dtype == NK_DTYPE_F32 ? unary_f[op] : unary_d[op], NULL);
  return TRUE;
}

static gboolean
cpu_binary (gpointer       backend,
            NkBinaryOp     op,
            const NkIter  *it,
            NkDType        dtype,
            gpointer       out,
            gconstpointer  a,
            gconstpointer  b,
            double         scalar,
            gboolean       scalar_first,
            GError       **error)
{
  gsize es = nk_dtype_element_size (dtype);
  gsize ess[3] = { es, es, es };
  union { float f; double d; } s;
  char *base[3] = { out, (char *) a, (char *) b };
  NkIter sit;

  g_return_val_if_fail (op < NK_N_BINARY_OPS, FALSE);
  g_return_val_if_fail (cpu_supports_dtype (backend, dtype), FALSE);

  if (b == NULL)
    {
      /* The scalar is a stride-0 operand living on this stack frame. */
      if (dtype == NK_DTYPE_F32)
        s.f = (float) scalar;
      else
        s.d = scalar;
      sit = *it;
      memset (sit.stride[2], 0, sizeof sit.stride[2]);
      sit.offset[2] = 0;
      base[2] = (char *) &s;
      if (scalar_first)
        {
          memcpy (sit.stride[2], sit.stride[1], sizeof sit.stride[1]);
          sit.offset[2] = sit.offset[1];
          memset (sit.stride[1], 0, sizeof sit.stride[1]);
          sit.offset[1] = 0;
          base[2] = (char *) a;
          base[1] = (char *) &s;
        }
      it = &sit;
    }

  walk (it, 3, base, ess, dtype == NK_DTYPE_F32 ? binary_f[op] : binary_d[op], NULL);
  return TRUE;
}

/* Sums of a unit-stride run in double with NK_SUM_LANES independent accumulators:
 * lane k adds the elements i ≡ k (mod 8) in increasing i, and the lanes are then
 * combined pairwise, ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). One fixed order
 * for a given length, so results are deterministic run to run and machine to machine
 * (no threads, no dependence on alignment); it differs from a strictly sequential
 * double sum only in the last bits, and is often closer to the exact sum. The single
 * accumulator chain was bound by the add latency (4 cycles per element); eight
 * chains let the adds vectorize and run at memory speed. */
#define NK_SUM_LANES 8

#define DEFINE_SUM_UNIT(T, SUF) \
static double \
sum_unit_##SUF (const T *p, \
                gint64   n) \
{ \
  double l[NK_SUM_LANES] = { 0.0 }; \
  gint64 i = 0; \
  for (; i + NK_SUM_LANES <= n; i += NK_SUM_LANES) \
    for (int k = 0; k < NK_SUM_LANES; k++) \
      l[k] += (double) p[i + k]; \
  for (int k = 0; i < n; i++, k++) \
    l[k] += (double) p[i]; \
  return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); \
}
DEFINE_SUM_UNIT (float, f)
DEFINE_SUM_UNIT (double, d)

static gboolean
cpu_reduce (gpointer            backend,
            NkReduceOp          op,
            const NkReduceIter *it,
            NkDType             dtype,
            gpointer            out,
            gconstpointer       in,
            GError            **error)
{
  int nkeep = it->ndim - it->nreduce;
  gint64 nout = 1, nred = 1;
  gint64 kidx[NK_MAX_DIMS] = { 0 };
  gboolean f32 = dtype == NK_DTYPE_F32;
  gboolean is_sum = op == NK_REDUCE_SUM || op == NK_REDUCE_MEAN;
  gint64 in_inner_stride = it->nreduce > 0 ? it->in_stride[it->ndim - 1] : 0;
  gint64 inner = it->nreduce > 0 ? it->shape[it->ndim - 1] : 1;

  g_return_val_if_fail (cpu_supports_dtype (backend, dtype), FALSE);

  for (int d = 0; d < nkeep; d++)
    nout *= it->shape[d];
  for (int d = nkeep; d < it->ndim; d++)
    nred *= it->shape[d];

  for (gint64 o = 0; o < nout; o++)
    {
      gint64 in_off = it->in_offset, out_off = it->out_offset;
      gint64 ridx[NK_MAX_DIMS] = { 0 };
      double acc = nk_kernel_reduce_init (op);

      for (int d = 0; d < nkeep; d++)
        {
          in_off += kidx[d] * it->in_stride[d];
          out_off += kidx[d] * it->out_stride[d];
        }

      /* Walk the reduced dims, innermost as a flat loop. */
      for (gint64 r = 0; r < nred; r += inner)
        {
          gint64 off = in_off;
          for (int d = nkeep; d < it->ndim - 1; d++)
            off += ridx[d] * it->in_stride[d];

          if (f32)
            {
              const float *p = (const float *) in + off;
              if (is_sum && in_inner_stride == 1)
                acc += sum_unit_f (p, inner);
              else if (is_sum)
                for (gint64 i = 0; i < inner; i++)
                  acc += p[i * in_inner_stride];
              else
                for (gint64 i = 0; i < inner; i++)
                  acc = nk_kernel_reduce_step (op, acc, p[i * in_inner_stride]);
            }
          else
            {
              const double *p = (const double *) in + off;
              if (is_sum && in_inner_stride == 1)
                acc += sum_unit_d (p, inner);
              else
                for (gint64 i = 0; i < inner; i++)
                  acc = nk_kernel_reduce_step (op, acc, p[i * in_inner_stride]);
            }

          for (int d = it->ndim - 2; d >= nkeep; d--)
            {
              if (++ridx[d] < it->shape[d])
                break;
              ridx[d] = 0;
            }
        }

      acc = nk_kernel_reduce_finish (op, acc, it->count);
      if (f32)
        ((float *) out)[out_off] = (float) acc;
      else
        ((double *) out)[out_off] = acc;

      for (int d = nkeep - 1; d >= 0; d--)
        {
          if (++kidx[d] < it->shape[d])
            break;
          kidx[d] = 0;
        }
    }
  return TRUE;
}

static gboolean
cpu_triangle (gpointer       backend,
              gboolean       upper,
              gint64         diagonal,
              const NkIter  *it,
              NkDType        dtype,
              gpointer       out,
              gconstpointer  in,
              GError       **error)
{
  int nd = it->ndim;
  gint64 rows = it->shape[nd - 2], cols = it->shape[nd - 1];
  gint64 nmat = rows * cols > 0 ? it->numel / (rows * cols) : 0;
  gsize es = nk_dtype_element_size (dtype);
  gint64 idx[NK_MAX_DIMS] = { 0 };

  g_return_val_if_fail (nd >= 2, FALSE);

  for (gint64 mtx = 0; mtx < nmat; mtx++)
    {
      gint64 oo = it->offset[0], io = it->offset[1];

      for (int d = 0; d < nd - 2; d++)
        {
          oo += idx[d] * it->stride[0][d];
          io += idx[d] * it->stride[1][d];
        }
      for (gint64 i = 0; i < rows; i++)
        for (gint64 j = 0; j < cols; j++)
          {
            char *dst = (char *) out + (oo + i * it->stride[0][nd - 2] + j * it->stride[0][nd - 1]) * es;
            const char *src = (const char *) in + (io + i * it->stride[1][nd - 2] + j * it->stride[1][nd - 1]) * es;
            gboolean keep = upper ? (j - i >= diagonal) : (j - i <= diagonal);

            if (keep)
              memmove (dst, src, es);
            else
              memset (dst, 0, es);
          }

      for (int d = nd - 3; d >= 0; d--)
        {
          if (++idx[d] < it->shape[d])
            break;
          idx[d] = 0;
        }
    }
  return TRUE;
}

#define OPTIM_MAX_THREADS 16
#define OPTIM_MIN_PER_THREAD (1 << 18)

typedef struct {
  const NkOptimStep *step;
  gsize              n;
  float             *param;
  const float       *grad;
  float             *state1;
  float             *state2;
} OptimSlice;

static gpointer
optim_slice_run (gpointer data)
{
  const OptimSlice *s = data;
  float dummy1 = 0.0f, dummy2 = 0.0f;

  for (gsize i = 0; i < s->n; i++)
    nk_kernel_optim_update (s->step, &s->param[i], s->grad[i],
                            s->state1 ? &s->state1[i] : &dummy1,
                            s->state2 ? &s->state2[i] : &dummy2);
  return NULL;
}

static gboolean
cpu_optimizer (gpointer           backend,
               const NkOptimStep *step,
               gsize              n,
               float             *param,
               const float       *grad,
               float             *state1,
               float             *state2,
               GError           **error)
{
  OptimSlice slices[OPTIM_MAX_THREADS];
  GThread *threads[OPTIM_MAX_THREADS] = { NULL };
  /* Every element's update is independent: splitting gives the same bits. */
  guint n_threads = CLAMP (n / OPTIM_MIN_PER_THREAD, 1,
                           MIN (MAX (nk_cpu_info_get ()->logical, 1), OPTIM_MAX_THREADS));

  for (guint t = 0; t < n_threads; t++)
    {
      gsize begin = n * t / n_threads, end = n * (t + 1) / n_threads;

      slices[t] = (OptimSlice) { step, end - begin, param + begin, grad + begin,
                                 state1 ? state1 + begin : NULL, state2 ? state2 + begin : NULL };
      if (t > 0)
        threads[t] = g_thread_new ("napkin-optim", optim_slice_run, &slices[t]);
    }
  optim_slice_run (&slices[0]);
  for (guint t = 1; t < n_threads; t++)
    g_thread_join (threads[t]);
  return TRUE;
}

static gboolean
cpu_gemm (gpointer           backend,
          const NkGemmPlan  *plan,
          NkDType            dtype,
          NkDType            out_dtype,
          double             alpha,
          gconstpointer      a,
          gconstpointer      b,
          double             beta,
          gpointer           c,
          GError           **error)
{
  gconstpointer first = nk_gemm_plan_first (plan, a, b);
  gconstpointer second = nk_gemm_plan_second (plan, a, b);
  enum CBLAS_TRANSPOSE ta = plan->trans_first ? CblasTrans : CblasNoTrans;
  enum CBLAS_TRANSPOSE tb = plan->trans_second ? CblasTrans : CblasNoTrans;

  g_return_val_if_fail (!nk_gemm_plan_needs_copy (plan), FALSE);

  if (plan->m > G_MAXINT || plan->n > G_MAXINT || plan->k > G_MAXINT ||
      plan->ld_first > G_MAXINT || plan->ld_second > G_MAXINT || plan->ldc > G_MAXINT)
    {
      g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
                   _("The matrix product (m=%" PRId64 ", n=%" PRId64
                     ", k=%" PRId64 ") is too large for this BLAS."),
                   plan->m, plan->n, plan->k);
      return FALSE;
    }
  if (plan->m == 0 || plan->n == 0)
    return TRUE;
  if ((dtype != NK_DTYPE_F32 && dtype != NK_DTYPE_F64) || out_dtype != dtype)
    {
      g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
                   _("The CPU gemm does not take %s operands."),
                   nk_dtype_info (dtype)->name);
      return FALSE;
    }

  nk_blas_lock ();
  for (gint64 i = 0; i < plan->batch; i++)
    {
      if (dtype == NK_DTYPE_F32)
        cblas_sgemm (CblasColMajor, ta, tb, (int) plan->m, (int) plan->n, (int) plan->k,
                     (float) alpha,
                     (const float *) first + i * plan->stride_first, (int) plan->ld_first,
                     (const float *) second + i * plan->stride_second, (int) plan->ld_second,
                     (float) beta, (float *) c + i * plan->stride_c, (int) plan->ldc);
      else if (dtype == NK_DTYPE_F64)
        cblas_dgemm (CblasColMajor, ta, tb, (int) plan->m, (int) plan->n, (int) plan->k,
                     alpha,
                     (const double *) first + i * plan->stride_first, (int) plan->ld_first,
                     (const double *) second + i * plan->stride_second, (int) plan->ld_second,
                     beta, (double *) c + i * plan->stride_c, (int) plan->ldc);
    }
  nk_blas_unlock ();
  return TRUE;
}

static gboolean
cpu_memory_info (gpointer  backend,
                 guint64  *free_bytes,
                 guint64  *total_bytes,
                 GError  **error)
{
  g_autofree char *text = NULL;
  guint64 total = 0, avail = 0;

  if (!g_file_get_contents ("/proc/meminfo", &text, NULL, error))
    return FALSE;
  for (char *line = text; line != NULL && *line; )
    {
      char *next = strchr (line, '\n');
      if (g_str_has_prefix (line, "MemTotal:"))
        total = g_ascii_strtoull (line + 9, NULL, 10) * 1024;
      else if (g_str_has_prefix (line, "MemAvailable:"))
        avail = g_ascii_strtoull (line + 13, NULL, 10) * 1024;
      line = next ? next + 1 : NULL;
    }
  *free_bytes = avail;
  *total_bytes = total;
  return TRUE;
}

static char *
cpu_describe (gpointer backend)
{
  g_autofree char *text = NULL;
  g_autofree char *model = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL))
    {
      char *p = strstr (text, "model name");
      if (p != NULL && (p = strchr (p, ':')) != NULL)
        {
          char *end = strchr (p, '\n');
          model = g_strstrip (g_strndup (p + 1, end ? (gsize) (end - p - 1) : strlen (p + 1)));
        }
    }
  return g_strdup_printf ("%s, %u threads", model ? model : "CPU", g_get_num_processors ());
}

static gboolean
cpu_synchronize (gpointer  backend,
                 GError  **error)
{
  return TRUE;
}

static gpointer
cpu_timer_mark (gpointer backend)
{
  struct timespec *ts = g_new (struct timespec, 1);

  clock_gettime (CLOCK_MONOTONIC, ts);
  return ts;
}

static double
cpu_timer_elapsed (gpointer backend,
                   gpointer start_mark,
                   gpointer end_mark)
{
  const struct timespec *s = start_mark, *e = end_mark;

  return (double) (e->tv_sec - s->tv_sec) + 1e-9 * (double) (e->tv_nsec - s->tv_nsec);
}

static void
cpu_timer_free (gpointer backend,
                gpointer mark)
{
  g_free (mark);
}

static const NkDeviceOps cpu_ops = {
  .abi_version = NK_DEVICE_ABI_VERSION,
  .kind = NK_DEVICE_CPU,
  .describe = cpu_describe,
  .alloc = cpu_alloc,
  .free = cpu_free,
  .copy = cpu_copy,
  .supports_dtype = cpu_supports_dtype,
  .supports_gemm_dtype = cpu_supports_gemm_dtype,
  .cast = cpu_cast,
  .fill = cpu_fill,
  .unary = cpu_unary,
  .binary = cpu_binary,
  .reduce = cpu_reduce,
  .triangle = cpu_triangle,
  .optimizer = cpu_optimizer,
  .gemm = cpu_gemm,
  .rows = _nk_cpu_rows,
  .synchronize = cpu_synchronize,
  .memory_info = cpu_memory_info,
  .timer_mark = cpu_timer_mark,
  .timer_elapsed = cpu_timer_elapsed,
  .timer_free = cpu_timer_free,
};

const NkDeviceOps *
_nk_device_cpu_ops (void)
{
  return &cpu_ops;
}
