/* test-gemm-plan.c: the gemm plan executed through cblas's column-major entry point
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: a float64 triple loop over the logical (row-major, strided) elements,
 * written here independently of the planner. The plan is executed exactly as a
 * device would: optional contiguous copies, then cblas_sgemm(CblasColMajor, ...).
 */
#include "config.h"

#include <cblas.h>
#include <math.h>

#include "nk-gemm-plan.h"

typedef enum {
  KIND_ROW,      /* (c, 1) */
  KIND_ROWPAD,   /* (c + 3, 1): a column slice of a wider matrix */
  KIND_COL,      /* (1, r): a transposed view */
  KIND_COLPAD,   /* (1, r + 2) */
  KIND_STEP,     /* (4c, 2): steps along both dims */
  KIND_BCAST,    /* (0, 1): one row expanded */
  N_KINDS
} Kind;

static const char *kind_names[] = { "row", "rowpad", "col", "colpad", "step", "bcast" };

typedef struct {
  gint64 r, c, s0, s1, extent;
} Layout;

static Layout
make_layout (Kind   kind,
             gint64 r,
             gint64 c)
{
  Layout l = { r, c, 0, 0, 0 };

  switch (kind)
    {
    case KIND_ROW: l.s0 = c; l.s1 = 1; break;
    case KIND_ROWPAD: l.s0 = c + 3; l.s1 = 1; break;
    case KIND_COL: l.s0 = 1; l.s1 = r; break;
    case KIND_COLPAD: l.s0 = 1; l.s1 = r + 2; break;
    case KIND_STEP: l.s0 = 4 * c; l.s1 = 2; break;
    case KIND_BCAST: l.s0 = 0; l.s1 = 1; break;
    default: g_assert_not_reached ();
    }
  l.extent = (r - 1) * l.s0 + (c - 1) * l.s1 + 1;
  return l;
}

/* Where the planner must ask for a copy: no unit stride usable with a legal ld. */
static gboolean
copy_expected (Kind   kind,
               gint64 r,
               gint64 c)
{
  if (kind == KIND_STEP)
    return r > 1 && c > 1;
  if (kind == KIND_BCAST)
    return r > 1;
  return FALSE;
}

static float
value_at (gint64 pos,
          int    salt)
{
  return (float) (((pos * 7 + salt * 13) % 17) - 8) / 4.0f;
}

/* Runs one planned product of batch matrices and checks it. */
static void
check_case (Kind   ka,
            Kind   kb,
            Kind   kc,
            gint64 m,
            gint64 n,
            gint64 k,
            gint64 batch,
            gboolean bcast_batch_a)
{
  Layout la = make_layout (ka, m, k), lb = make_layout (kb, k, n), lc = make_layout (kc, m, n);
  gint64 bsa = bcast_batch_a ? 0 : la.extent + 1, bsb = lb.extent + 2, bsc = lc.extent + 1;
  g_autofree float *a = g_new0 (float, bsa * (batch - 1) + la.extent);
  g_autofree float *b = g_new0 (float, bsb * (batch - 1) + lb.extent);
  g_autofree float *c = g_new0 (float, bsc * (batch - 1) + lc.extent);
  g_autofree float *acopy = NULL, *bcopy = NULL, *ccopy = NULL;
  NkGemmMatrix ma = { m, k, la.s0, la.s1, bsa };
  NkGemmMatrix mb = { k, n, lb.s0, lb.s1, bsb };
  NkGemmMatrix mc = { m, n, lc.s0, lc.s1, bsc };
  const float *pa = a, *pb = b;
  float *pc = c;
  NkGemmPlan plan;
  g_autofree char *desc = NULL;

  for (gint64 i = 0; i < bsa * (batch - 1) + la.extent; i++)
    a[i] = value_at (i, 1);
  for (gint64 i = 0; i < bsb * (batch - 1) + lb.extent; i++)
    b[i] = value_at (i, 2);
  for (gint64 i = 0; i < bsc * (batch - 1) + lc.extent; i++)
    c[i] = NAN;   /* beta = 0 must not read C */

  g_assert_true (nk_gemm_plan (&ma, &mb, &mc, batch, &plan));
  desc = nk_gemm_plan_to_string (&plan);
  if (g_test_verbose ())
    g_test_message ("A %s B %s C %s m=%" G_GINT64_FORMAT " n=%" G_GINT64_FORMAT
                  " k=%" G_GINT64_FORMAT " batch=%" G_GINT64_FORMAT ": %s",
                  kind_names[ka], kind_names[kb], kind_names[kc], m, n, k, batch, desc);

  g_assert_cmpint (plan.copy_a, ==, copy_expected (ka, m, k));
  g_assert_cmpint (plan.copy_b, ==, copy_expected (kb, k, n));
  g_assert_cmpint (plan.copy_c, ==, copy_expected (kc, m, n));
  g_assert_cmpint (plan.batch, ==, batch);

  /* The copies the plan asks for: contiguous row-major per batch entry. */
  if (plan.copy_a)
    {
      gint64 nb = bsa == 0 ? 1 : batch;
      acopy = g_new (float, MAX (1, nb * m * k));
      for (gint64 t = 0; t < nb; t++)
        for (gint64 i = 0; i < m; i++)
          for (gint64 j = 0; j < k; j++)
            acopy[t * m * k + i * k + j] = a[t * bsa + i * la.s0 + j * la.s1];
      pa = acopy;
    }
  if (plan.copy_b)
    {
      bcopy = g_new (float, MAX (1, batch * k * n));
      for (gint64 t = 0; t < batch; t++)
        for (gint64 i = 0; i < k; i++)
          for (gint64 j = 0; j < n; j++)
            bcopy[t * k * n + i * n + j] = b[t * bsb + i * lb.s0 + j * lb.s1];
      pb = bcopy;
    }
  if (plan.copy_c)
    {
      ccopy = g_new (float, MAX (1, batch * m * n));
      pc = ccopy;
    }

  for (gint64 t = 0; t < plan.batch; t++)
    {
      const float *first = nk_gemm_plan_first (&plan, pa, pb);
      const float *second = nk_gemm_plan_second (&plan, pa, pb);
      cblas_sgemm (CblasColMajor,
                   plan.trans_first ? CblasTrans : CblasNoTrans,
                   plan.trans_second ? CblasTrans : CblasNoTrans,
                   (int) plan.m, (int) plan.n, (int) plan.k, 1.0f,
                   first + t * plan.stride_first, (int) plan.ld_first,
                   second + t * plan.stride_second, (int) plan.ld_second,
                   0.0f, pc + t * plan.stride_c, (int) plan.ldc);
    }

  if (plan.copy_c)
    for (gint64 t = 0; t < batch; t++)
      for (gint64 i = 0; i < m; i++)
        for (gint64 j = 0; j < n; j++)
          c[t * bsc + i * lc.s0 + j * lc.s1] = ccopy[t * m * n + i * n + j];

  for (gint64 t = 0; t < batch; t++)
    for (gint64 i = 0; i < m; i++)
      for (gint64 j = 0; j < n; j++)
        {
          double ref = 0.0;
          for (gint64 p = 0; p < k; p++)
            ref += (double) a[t * bsa + i * la.s0 + p * la.s1] *
                   (double) b[t * bsb + p * lb.s0 + j * lb.s1];
          g_assert_cmpfloat_with_epsilon (c[t * bsc + i * lc.s0 + j * lc.s1], ref,
                                          1e-4 * (1.0 + fabs (ref)));
        }
}

static void
test_all_layouts (void)
{
  static const gint64 sizes[] = { 1, 2, 3, 5, 8 };
  guint ncases = 0;

  for (int ka = 0; ka < N_KINDS; ka++)
    for (int kb = 0; kb < N_KINDS; kb++)
      for (int kc = 0; kc < N_KINDS; kc++)
        {
          if (kc == KIND_BCAST)
            continue;
          for (guint im = 0; im < G_N_ELEMENTS (sizes); im++)
            for (guint in = 0; in < G_N_ELEMENTS (sizes); in++)
              for (guint ik = 0; ik < G_N_ELEMENTS (sizes); ik++)
                {
                  check_case (ka, kb, kc, sizes[im], sizes[in], sizes[ik], 1, FALSE);
                  ncases++;
                }
        }
  g_test_message ("%u layouts checked", ncases);
}

static void
test_batched (void)
{
  for (int ka = 0; ka < N_KINDS; ka++)
    for (int kb = 0; kb < N_KINDS; kb++)
      for (int kc = 0; kc < N_KINDS; kc++)
        {
          if (kc == KIND_BCAST)
            continue;
          check_case (ka, kb, kc, 3, 5, 4, 3, FALSE);
          check_case (ka, kb, kc, 3, 5, 4, 3, TRUE);
          check_case (ka, kb, kc, 1, 7, 2, 2, TRUE);
        }
}

/* The lecture's point, spelled out: a transposed operand is a flag, not a copy. */
static void
test_transpose_is_a_flag (void)
{
  /* A = X.t() for a contiguous X [k, m]: strides (1, m). */
  NkGemmMatrix a = { 4, 3, 1, 4, 0 };
  NkGemmMatrix b = { 3, 5, 5, 1, 0 };
  NkGemmMatrix c = { 4, 5, 5, 1, 0 };
  NkGemmPlan plan;

  g_assert_true (nk_gemm_plan (&a, &b, &c, 1, &plan));
  g_assert_false (nk_gemm_plan_needs_copy (&plan));
  /* Row-major C: BLAS computes Cᵀ = Bᵀ·Aᵀ, so B goes first, untransposed... */
  g_assert_cmpint (plan.first, ==, NK_GEMM_OPERAND_B);
  g_assert_false (plan.trans_first);
  /* ...and Aᵀ is read straight from X's memory with a transpose flag. */
  g_assert_true (plan.trans_second);
  g_assert_cmpint (plan.m, ==, 5);
  g_assert_cmpint (plan.n, ==, 4);
  g_assert_cmpint (plan.k, ==, 3);
  g_assert_cmpint (plan.ld_first, ==, 5);
  g_assert_cmpint (plan.ld_second, ==, 4);
  g_assert_cmpint (plan.ldc, ==, 5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/gemm-plan/transpose-is-a-flag", test_transpose_is_a_flag);
  g_test_add_func ("/engine/gemm-plan/all-layouts", test_all_layouts);
  g_test_add_func ("/engine/gemm-plan/batched", test_batched);

  return g_test_run ();
}
