/* nk-device-cpu-rows.c: the CPU device's row kernels (LayerNorm, causal softmax,
 * embedding gather and scatter) over the bodies nk-kernels.h shares with CUDA
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-device-private.h"

/* One generic body per type, so f32 and f64 run the same loops. */
#define DEFINE_ROWS(T, S)                                                            \
/* max + log Σ exp(x − max), in double. */                                           \
static double                                                                        \
row_lse_##S (const T *x, int64_t n)                                                  \
{                                                                                    \
  double m = -INFINITY, s = 0.0;                                                     \
  for (int64_t j = 0; j < n; j++)                                                    \
    m = MAX (m, (double) x[j]);                                                      \
  for (int64_t j = 0; j < n; j++)                                                    \
    s += exp ((double) x[j] - m);                                                    \
  return m + log (s);                                                                \
}                                                                                    \
                                                                                     \
static void                                                                          \
rows_##S (const NkRowsCall *c)                                                       \
{                                                                                    \
  const T *in0 = c->in[0], *in1 = c->in[1], *in2 = c->in[2], *in3 = c->in[3];        \
  const T *in4 = c->in[4];                                                           \
  const int64_t *i5 = c->in[5], *i6 = c->in[6];                                      \
  T *o0 = c->out[0], *o1 = c->out[1], *o2 = c->out[2];                               \
  int64_t n = c->cols;                                                               \
                                                                                     \
  switch (c->op)                                                                     \
    {                                                                                \
    case NK_ROWS_LAYERNORM:                                                          \
      for (int64_t r = 0; r < c->rows; r++)                                          \
        nk_kernel_layernorm_row_##S (in0 + r * n, in1, in2, n, c->scalar,            \
                                     o0 + r * n, o1 + r, o2 + r);                    \
      break;                                                                         \
    case NK_ROWS_LAYERNORM_DX:                                                       \
      for (int64_t r = 0; r < c->rows; r++)                                          \
        nk_kernel_layernorm_backward_row_##S (in0 + r * n, in1, in2[r], in3[r],      \
                                              in4 + r * n, n, o0 + r * n,            \
                                              NULL, NULL);                           \
      break;                                                                         \
    case NK_ROWS_LAYERNORM_PARAMS:                                                   \
      {                                                                              \
        /* Row by row into double sums: the order of a per-column loop, read in    \
         * memory order. */                                                          \
        g_autofree double *dw = g_new0 (double, MAX (n, 1));                         \
        g_autofree double *db = g_new0 (double, MAX (n, 1));                         \
        for (int64_t r = 0; r < c->rows; r++)                                        \
          for (int64_t j = 0; j < n; j++)                                            \
            {                                                                        \
              double g = (double) in4[r * n + j];                                    \
              dw[j] += g * (((double) in0[r * n + j] - (double) in2[r])              \
                            * (double) in3[r]);                                      \
              db[j] += g;                                                            \
            }                                                                        \
        for (int64_t j = 0; j < n; j++)                                              \
          {                                                                          \
            if (o0 != NULL)                                                          \
              o0[j] = (T) ((c->accumulate ? (double) o0[j] : 0.0) + dw[j]);          \
            if (o1 != NULL)                                                          \
              o1[j] = (T) ((c->accumulate ? (double) o1[j] : 0.0) + db[j]);          \
          }                                                                          \
      }                                                                              \
      break;                                                                         \
    case NK_ROWS_SOFTMAX_CAUSAL:                                                     \
      for (int64_t r = 0; r < c->rows; r++)                                          \
        nk_kernel_softmax_causal_row_##S (in0 + r * n, r % c->period, n, c->scalar,  \
                                          o0 + r * n);                               \
      break;                                                                         \
    case NK_ROWS_SOFTMAX_CAUSAL_BACKWARD:                                             \
      for (int64_t r = 0; r < c->rows; r++)                                          \
        nk_kernel_softmax_causal_backward_row_##S (in0 + r * n, in4 + r * n,         \
                                                   r % c->period, n, c->scalar,      \
                                                   o0 + r * n);                      \
      break;                                                                         \
    case NK_ROWS_GATHER:                                                             \
      for (int64_t r = 0; r < c->rows; r++)                                          \
        memcpy (o0 + r * n, in0 + i5[r] * n, (size_t) n * sizeof (T));              \
      break;                                                                         \
    case NK_ROWS_SCATTER:                                                            \
      for (int64_t v = 0; v < c->vocab; v++)                                         \
        {                                                                            \
          if (i6[v] == i6[v + 1] && c->accumulate)                                   \
            continue;                                                                \
          for (int64_t j = 0; j < n; j++)                                            \
            {                                                                        \
              double acc = nk_kernel_scatter_rows_##S (in4, i5, i6, n, v, j);        \
              o0[v * n + j] = (T) ((c->accumulate ? (double) o0[v * n + j] : 0.0)    \
                                   + acc);                                           \
            }                                                                        \
        }                                                                            \
      break;                                                                         \
    case NK_ROWS_CROSS_ENTROPY:                                                      \
      {                                                                              \
        double *loss = c->out[0], acc = 0.0;                                         \
        for (int64_t r = 0; r < c->rows; r++)                                        \
          {                                                                          \
            double lse = row_lse_##S (in0 + r * n, n);                               \
            loss[r] = lse - (double) in0[r * n + i5[r]];                             \
            acc += loss[r];                                                          \
          }                                                                          \
        *o1 = (T) (acc / (double) MAX (c->rows, 1));                                 \
      }                                                                              \
      break;                                                                         \
    case NK_ROWS_CROSS_ENTROPY_BACKWARD:                                             \
      for (int64_t r = 0; r < c->rows; r++)                                          \
        {                                                                            \
          double lse = row_lse_##S (in0 + r * n, n);                                 \
          for (int64_t j = 0; j < n; j++)                                            \
            o0[r * n + j] = (T) nk_kernel_cross_entropy_dx_elem ((double) in0[r * n + j], \
                                                                 lse, j == i5[r],   \
                                                                 c->scalar           \
                                                                 * (double) in1[0]); \
        }                                                                            \
      break;                                                                         \
    default:                                                                         \
      g_return_if_reached ();                                                        \
    }                                                                                \
}

DEFINE_ROWS (float, f)
DEFINE_ROWS (double, d)

gboolean
_nk_cpu_rows (gpointer           backend,
              NkDType            dtype,
              const NkRowsCall  *call,
              GError           **error)
{
  if (dtype == NK_DTYPE_F32)
    rows_f (call);
  else if (dtype == NK_DTYPE_F64)
    rows_d (call);
  else
    {
      g_set_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_UNSUPPORTED,
                   _("The CPU row kernels do not take %s operands."),
                   nk_dtype_info (dtype)->name);
      return FALSE;
    }
  return TRUE;
}
