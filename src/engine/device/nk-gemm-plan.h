/* nk-gemm-plan.h: mapping a row-major, strided matmul onto a column-major BLAS call
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tensors are indexed row-major with arbitrary strides; BLAS (cblas with
 * CblasColMajor, cuBLAS) wants column-major matrices, each with one unit stride and
 * a leading dimension. A row-major matrix X [r, c] with strides (ld, 1) *is* the
 * column-major matrix Xᵀ [c, r] with leading dimension ld; with strides (1, ld) it is
 * the column-major X [r, c]. So for C = A·B:
 *
 *  - C stored with stride (ldc, 1): compute Cᵀ = Bᵀ·Aᵀ column-major, i.e. the first
 *    BLAS operand is B, the second A, and BLAS's m, n are our n, m;
 *  - C stored with stride (1, ldc): compute C = A·B column-major directly;
 *  - an operand stored with the "other" unit stride gets a transpose flag instead of
 *    a copy — a transposed view is never copied.
 *
 * A copy is unavoidable only when an operand has no unit stride at all (a slice with
 * a step along both dims, an expanded stride 0 along a dim longer than one), or a
 * leading dimension too small for BLAS (which requires ld ≥ max(1, rows) of the
 * column-major matrix). The plan then says which operand to copy and already
 * describes the layout of that copy (contiguous row-major).
 *
 * nk_gemm_plan() is a pure function of shapes and strides: cblas_sgemm/dgemm on the
 * CPU and cublasGemmEx on the GPU receive the very same plan, and the tests execute
 * it through cblas's column-major entry point against a float64 reference.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

/**
 * NkGemmMatrix:
 * @rows: rows of the row-major matrix
 * @cols: columns
 * @row_stride: elements between consecutive rows (stride[0])
 * @col_stride: elements between consecutive columns (stride[1])
 * @batch_stride: elements between consecutive matrices of a batch (0 = the same
 *   matrix for every batch entry, i.e. a broadcast batch dim)
 *
 * One operand as the tensor sees it: row-major indexing, element (i, j) at
 * i·row_stride + j·col_stride (+ b·batch_stride for batch entry b).
 */
typedef struct {
  gint64 rows;
  gint64 cols;
  gint64 row_stride;
  gint64 col_stride;
  gint64 batch_stride;
} NkGemmMatrix;

/**
 * NkGemmOperand:
 * @NK_GEMM_OPERAND_A: the left factor A of C = A·B
 * @NK_GEMM_OPERAND_B: the right factor B
 *
 * Which factor of the row-major product a plan passes to BLAS first.
 */
typedef enum {
  NK_GEMM_OPERAND_A,
  NK_GEMM_OPERAND_B,
} NkGemmOperand;

/**
 * NkGemmPlan:
 * @first: which of A, B is BLAS's first operand (its "A")
 * @trans_first: pass CblasTrans / CUBLAS_OP_T for the first operand
 * @trans_second: pass CblasTrans / CUBLAS_OP_T for the second operand
 * @m: BLAS's m (rows of the column-major result)
 * @n: BLAS's n
 * @k: BLAS's k
 * @ld_first: leading dimension of the first operand
 * @ld_second: leading dimension of the second operand
 * @ldc: leading dimension of C
 * @batch: number of matrices (1 for a plain gemm)
 * @stride_first: batch stride of the first operand (elements; 0 = broadcast)
 * @stride_second: batch stride of the second operand
 * @stride_c: batch stride of C
 * @copy_a: A must first be copied to a contiguous row-major buffer
 *   (rows·cols elements per batch entry, batch stride rows·cols, or 0 if A's batch
 *   stride was 0); every field above already describes that copy
 * @copy_b: likewise for B
 * @copy_c: C must be computed into a contiguous row-major buffer and copied back
 *   (with beta ≠ 0 the caller copies C in first)
 *
 * The column-major call, ready for cblas_?gemm (CblasColMajor, one call per batch
 * entry) or cublasGemmStridedBatchedEx (one call). The device picks its data pointers
 * with nk_gemm_plan_first()/nk_gemm_plan_second().
 */
typedef struct {
  NkGemmOperand first;
  gboolean      trans_first;
  gboolean      trans_second;
  gint64        m, n, k;
  gint64        ld_first, ld_second, ldc;
  gint64        batch;
  gint64        stride_first, stride_second, stride_c;
  gboolean      copy_a, copy_b, copy_c;
} NkGemmPlan;

/**
 * nk_gemm_plan:
 * @a: A [m, k]
 * @b: B [k, n]
 * @c: C [m, n]
 * @batch: number of matrices (≥ 1); batch strides come from the operands
 * @plan: (out caller-allocates): the plan
 *
 * Plans C = A·B (per batch entry). Pure: no allocation, no global state.
 * Shapes must agree (programmer error otherwise: returns %FALSE).
 *
 * Returns: %TRUE when the plan was made
 */
NK_AVAILABLE_IN_ALL
gboolean       nk_gemm_plan        (const NkGemmMatrix *a,
                                    const NkGemmMatrix *b,
                                    const NkGemmMatrix *c,
                                    gint64              batch,
                                    NkGemmPlan         *plan);

/**
 * nk_gemm_plan_needs_copy:
 * @plan: a plan
 *
 * Returns: %TRUE if any operand must be copied before/after the call
 */
static inline gboolean
nk_gemm_plan_needs_copy (const NkGemmPlan *plan)
{
  return plan->copy_a || plan->copy_b || plan->copy_c;
}

/**
 * nk_gemm_plan_first:
 * @plan: a plan
 * @a: A's data (of the copy if @plan->copy_a)
 * @b: B's data (of the copy if @plan->copy_b)
 *
 * Returns: the pointer to pass as BLAS's first operand
 */
static inline gconstpointer
nk_gemm_plan_first (const NkGemmPlan *plan,
                    gconstpointer     a,
                    gconstpointer     b)
{
  return plan->first == NK_GEMM_OPERAND_A ? a : b;
}

/**
 * nk_gemm_plan_second:
 * @plan: a plan
 * @a: A's data
 * @b: B's data
 *
 * Returns: the pointer to pass as BLAS's second operand
 */
static inline gconstpointer
nk_gemm_plan_second (const NkGemmPlan *plan,
                     gconstpointer     a,
                     gconstpointer     b)
{
  return plan->first == NK_GEMM_OPERAND_A ? b : a;
}

/**
 * nk_gemm_plan_to_string:
 * @plan: a plan
 *
 * A one-line description for logs and error messages, e.g.
 * "sgemm(N, T, m=3, n=5, k=4, lda=5, ldb=5, ldc=5) first=B".
 *
 * Returns: (transfer full): the description
 */
NK_AVAILABLE_IN_ALL
char          *nk_gemm_plan_to_string (const NkGemmPlan *plan);

G_END_DECLS
