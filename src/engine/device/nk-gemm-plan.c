/* nk-gemm-plan.c: the one mapping from row-major strided operands to column-major BLAS
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>

#include "nk-gemm-plan.h"

typedef enum {
  LAYOUT_ROW,   /* unit column stride: memory is the column-major transpose */
  LAYOUT_COL,   /* unit row stride: memory is the column-major matrix itself */
  LAYOUT_NONE,  /* no usable unit stride: needs a copy */
} Layout;

/* BLAS insists on ld ≥ max(1, leading extent) even when that extent is never
 * stepped over, so a dim of size ≤ 1 may have any stride and gets a legal ld. */
static Layout
classify (const NkGemmMatrix *x,
          gint64             *out_ld)
{
  gint64 r = x->rows, c = x->cols;

  if (x->col_stride == 1 || c <= 1)
    {
      if (r <= 1)
        {
          *out_ld = MAX (1, c);
          return LAYOUT_ROW;
        }
      if (x->row_stride >= MAX (1, c))
        {
          *out_ld = x->row_stride;
          return LAYOUT_ROW;
        }
    }
  if (x->row_stride == 1 || r <= 1)
    {
      if (c <= 1)
        {
          *out_ld = MAX (1, r);
          return LAYOUT_COL;
        }
      if (x->col_stride >= MAX (1, r))
        {
          *out_ld = x->col_stride;
          return LAYOUT_COL;
        }
    }
  return LAYOUT_NONE;
}

/* Classifies an operand, falling back to the contiguous row-major copy. */
static Layout
classify_or_copy (const NkGemmMatrix *x,
                  gint64             *out_ld,
                  gint64             *out_batch_stride,
                  gboolean           *out_copy)
{
  Layout layout = classify (x, out_ld);

  *out_batch_stride = x->batch_stride;
  *out_copy = layout == LAYOUT_NONE;
  if (*out_copy)
    {
      *out_ld = MAX (1, x->cols);
      *out_batch_stride = x->batch_stride == 0 ? 0 : x->rows * x->cols;
      layout = LAYOUT_ROW;
    }
  return layout;
}

gboolean
nk_gemm_plan (const NkGemmMatrix *a,
              const NkGemmMatrix *b,
              const NkGemmMatrix *c,
              gint64              batch,
              NkGemmPlan         *plan)
{
  gint64 lda, ldb, ldc, sa, sb, sc;
  Layout la, lb, lc;
  gboolean swapped;

  g_return_val_if_fail (a != NULL && b != NULL && c != NULL && plan != NULL, FALSE);
  g_return_val_if_fail (a->cols == b->rows, FALSE);
  g_return_val_if_fail (c->rows == a->rows && c->cols == b->cols, FALSE);
  g_return_val_if_fail (batch >= 1, FALSE);

  *plan = (NkGemmPlan) { 0 };
  plan->batch = batch;

  la = classify_or_copy (a, &lda, &sa, &plan->copy_a);
  lb = classify_or_copy (b, &ldb, &sb, &plan->copy_b);

  /* A stride-0 C would make several results land on one element: always compute
   * into a buffer then. */
  lc = classify (c, &ldc);
  sc = c->batch_stride;
  if (lc == LAYOUT_NONE || (batch > 1 && c->batch_stride == 0))
    {
      plan->copy_c = TRUE;
      lc = LAYOUT_ROW;
      ldc = MAX (1, c->cols);
      sc = c->rows * c->cols;
    }

  /* Row-major C is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands. */
  swapped = lc == LAYOUT_ROW;
  plan->k = a->cols;
  plan->ldc = ldc;
  plan->stride_c = sc;
  if (swapped)
    {
      plan->first = NK_GEMM_OPERAND_B;
      plan->m = c->cols;
      plan->n = c->rows;
      plan->trans_first = lb == LAYOUT_COL;
      plan->trans_second = la == LAYOUT_COL;
      plan->ld_first = ldb;
      plan->ld_second = lda;
      plan->stride_first = sb;
      plan->stride_second = sa;
    }
  else
    {
      plan->first = NK_GEMM_OPERAND_A;
      plan->m = c->rows;
      plan->n = c->cols;
      plan->trans_first = la == LAYOUT_ROW;
      plan->trans_second = lb == LAYOUT_ROW;
      plan->ld_first = lda;
      plan->ld_second = ldb;
      plan->stride_first = sa;
      plan->stride_second = sb;
    }

  return TRUE;
}

char *
nk_gemm_plan_to_string (const NkGemmPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);

  return g_strdup_printf ("gemm(%s, %s, m=%" PRId64 ", n=%" PRId64
                          ", k=%" PRId64 ", lda=%" PRId64
                          ", ldb=%" PRId64 ", ldc=%" PRId64
                          ") first=%s batch=%" PRId64 "%s%s%s",
                          plan->trans_first ? "T" : "N",
                          plan->trans_second ? "T" : "N",
                          plan->m, plan->n, plan->k,
                          plan->ld_first, plan->ld_second, plan->ldc,
                          plan->first == NK_GEMM_OPERAND_A ? "A" : "B",
                          plan->batch,
                          plan->copy_a ? " copy A" : "",
                          plan->copy_b ? " copy B" : "",
                          plan->copy_c ? " copy C" : "");
}
