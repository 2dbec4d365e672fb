/* nk-iter.c: the strided element iterator: dim order, merging and output layouts
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "nk-iter-private.h"

/* TensorIterator's comparison: > 0 when dim a should run outside dim b. Operands
 * are consulted in order; a stride 0 says nothing about order. */
static int
should_swap (int                 nops,
             const gint64 *const strides[],
             const gint64       *shape,
             int                 a,
             int                 b)
{
  for (int j = 0; j < nops; j++)
    {
      gint64 sa = strides[j][a], sb = strides[j][b];
      if (sa == 0 || sb == 0)
        continue;
      if (sa < sb)
        return -1;
      if (sa > sb)
        return 1;
      if (shape[a] > shape[b])
        return 1;
    }
  return 0;
}

/* perm[0] is the innermost dim afterwards. */
static void
sort_dims (int                 ndim,
           const gint64       *shape,
           int                 nops,
           const gint64 *const strides[],
           int                *perm)
{
  for (int i = 0; i < ndim; i++)
    perm[i] = ndim - 1 - i;
  for (int i = 1; i < ndim; i++)
    {
      int dim1 = i;
      for (int dim0 = i - 1; dim0 >= 0; dim0--)
        {
          int c = should_swap (nops, strides, shape, perm[dim0], perm[dim1]);
          if (c > 0)
            {
              int tmp = perm[dim0];
              perm[dim0] = perm[dim1];
              perm[dim1] = tmp;
              dim1 = dim0;
            }
          else if (c < 0)
            break;
        }
    }
}

void
_nk_iter_init (NkIter              *it,
               int                  ndim,
               const gint64        *shape,
               int                  nops,
               const gint64 *const  strides[],
               const gint64        *offsets)
{
  int perm[NK_MAX_DIMS];
  int n = 0;

  memset (it, 0, sizeof *it);
  it->numel = 1;
  for (int d = 0; d < ndim; d++)
    it->numel *= shape[d];
  for (int j = 0; j < nops; j++)
    it->offset[j] = offsets[j];
  if (it->numel == 0)
    {
      it->ndim = 1;
      it->shape[0] = 0;
      return;
    }

  sort_dims (ndim, shape, nops, strides, perm);

  /* Outermost first, size-1 dims dropped, neighbours merged when every operand
   * steps over the inner one exactly. */
  for (int p = ndim - 1; p >= 0; p--)
    {
      int d = perm[p];
      if (shape[d] == 1)
        continue;
      if (n > 0)
        {
          gboolean merge = TRUE;
          for (int j = 0; j < nops && merge; j++)
            merge = it->stride[j][n - 1] == strides[j][d] * shape[d];
          if (merge)
            {
              it->shape[n - 1] *= shape[d];
              for (int j = 0; j < nops; j++)
                it->stride[j][n - 1] = strides[j][d];
              continue;
            }
        }
      it->shape[n] = shape[d];
      for (int j = 0; j < nops; j++)
        it->stride[j][n] = strides[j][d];
      n++;
    }
  it->ndim = n;
}

void
_nk_dense_strides_like (int                  ndim,
                        const gint64        *shape,
                        int                  nin,
                        const gint64 *const  strides[],
                        gint64              *out_strides)
{
  int perm[NK_MAX_DIMS];
  gint64 s = 1;

  sort_dims (ndim, shape, nin, strides, perm);
  for (int p = 0; p < ndim; p++)
    {
      out_strides[perm[p]] = s;
      s *= MAX (shape[perm[p]], 1);
    }
}

void
_nk_broadcast_strides (NkTensor     *t,
                       int           ndim,
                       const gint64 *shape,
                       gint64       *out_strides)
{
  int lead = ndim - t->ndim;

  for (int d = 0; d < ndim; d++)
    {
      if (d < lead || (t->shape[d - lead] == 1 && shape[d] != 1))
        out_strides[d] = 0;
      else
        out_strides[d] = t->stride[d - lead];
    }
}
