/* test-matmul.c: matmul over every kind of operand layout against a float64 reference
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: a naive float64 triple loop written here, reading operands element by
 * element from their storage with the address rule (offset + Σ i·stride).
 */
#include "config.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nk-blas.h"
#include "nk-ops.h"
#include "nk-test-util.h"

typedef enum {
  OP_CONTIGUOUS,
  OP_TRANSPOSED,   /* .t() of a contiguous [cols, rows] */
  OP_NARROWED,     /* a column slice of a wider matrix: row stride > cols */
  OP_ROW_STEP,     /* x[::2]: rows skipped, unit column stride kept */
  OP_BOTH_STEP,    /* x[::2, ::2]: no unit stride at all (must be copied) */
  OP_EXPANDED,     /* one row expanded: stride 0 (must be copied) */
  N_OPS
} OperandKind;

static const char *kind_names[] = { "contiguous", "transposed", "narrowed", "row-step",
                                    "both-step", "expanded" };

/* A [rows, cols] operand (with optional leading batch dims) of the given kind. */
static NkTensor *
make_operand (OperandKind kind,
              NkDType     dtype,
              gint64      batch,
              gint64      rows,
              gint64      cols,
              int         salt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) base = NULL;
  NkTensor *t = NULL;
  int nb = batch > 0 ? 1 : 0;
  gint64 shape[3];

  if (nb)
    shape[0] = batch;
  switch (kind)
    {
    case OP_CONTIGUOUS:
      shape[nb] = rows;
      shape[nb + 1] = cols;
      return nk_test_filled (dtype, nb + 2, shape, salt);
    case OP_TRANSPOSED:
      shape[nb] = cols;
      shape[nb + 1] = rows;
      base = nk_test_filled (dtype, nb + 2, shape, salt);
      t = nk_tensor_transpose (base, -1, -2, &error);
      break;
    case OP_NARROWED:
      shape[nb] = rows;
      shape[nb + 1] = cols + 3;
      base = nk_test_filled (dtype, nb + 2, shape, salt);
      t = nk_tensor_narrow (base, -1, 2, cols, &error);
      break;
    case OP_ROW_STEP:
      shape[nb] = 2 * rows;
      shape[nb + 1] = cols;
      base = nk_test_filled (dtype, nb + 2, shape, salt);
      t = nk_tensor_slice (base, -2, 1, NK_SLICE_END, 2, &error);
      break;
    case OP_BOTH_STEP:
      {
        g_autoptr(NkTensor) r = NULL;
        shape[nb] = 2 * rows;
        shape[nb + 1] = 2 * cols;
        base = nk_test_filled (dtype, nb + 2, shape, salt);
        r = nk_tensor_slice (base, -2, 0, NK_SLICE_END, 2, &error);
        t = nk_tensor_slice (r, -1, 1, NK_SLICE_END, 2, &error);
      }
      break;
    case OP_EXPANDED:
      shape[nb] = 1;
      shape[nb + 1] = cols;
      base = nk_test_filled (dtype, nb + 2, shape, salt);
      shape[nb] = rows;
      t = nk_tensor_expand (base, nb + 2, shape, &error);
      break;
    default:
      g_assert_not_reached ();
    }
  g_assert_no_error (error);
  return t;
}

static double
at (NkTensor     *t,
    const gint64 *idx)
{
  const char *base = nk_storage_get_data (t->storage);
  gint64 pos = t->offset;

  for (int d = 0; d < t->ndim; d++)
    pos += (t->shape[d] == 1 ? 0 : idx[d]) * t->stride[d];
  switch (t->dtype)
    {
    case NK_DTYPE_F32: return ((const float *) base)[pos];
    case NK_DTYPE_F64: return ((const double *) base)[pos];
    default: return nk_dtype_to_double (t->dtype, ((const guint16 *) base)[pos]);
    }
}

/* C[b..., i, j] for matmul of [..., m, k] and [..., k, n] with batch broadcasting. */
static void
check_product (NkTensor *a,
               NkTensor *b,
               NkTensor *c,
               double    tol)
{
  int nb = c->ndim - 2;
  gint64 m = c->shape[nb], n = c->shape[nb + 1], k = a->shape[a->ndim - 1];
  gint64 nbatch = 1, bidx[NK_MAX_DIMS] = { 0 };

  for (int d = 0; d < nb; d++)
    nbatch *= c->shape[d];

  for (gint64 t = 0; t < nbatch; t++)
    {
      for (gint64 i = 0; i < m; i++)
        for (gint64 j = 0; j < n; j++)
          {
            gint64 ia[NK_MAX_DIMS], ib[NK_MAX_DIMS], ic[NK_MAX_DIMS];
            double ref = 0.0;
            int la = a->ndim - 2 - nb, lb = b->ndim - 2 - nb;

            for (int d = 0; d < nb; d++)
              {
                ic[d] = bidx[d];
                if (d + la >= 0)
                  ia[d + la] = bidx[d];
                if (d + lb >= 0)
                  ib[d + lb] = bidx[d];
              }
            ic[nb] = i;
            ic[nb + 1] = j;
            for (gint64 p = 0; p < k; p++)
              {
                ia[a->ndim - 2] = i;
                ia[a->ndim - 1] = p;
                ib[b->ndim - 2] = p;
                ib[b->ndim - 1] = j;
                ref += at (a, ia) * at (b, ib);
              }
            g_assert_cmpfloat_with_epsilon (at (c, ic), ref, tol * (1.0 + fabs (ref)));
          }
      for (int d = nb - 1; d >= 0; d--)
        {
          if (++bidx[d] < c->shape[d])
            break;
          bidx[d] = 0;
        }
    }
}

static void
test_all_operand_kinds (void)
{
  static const gint64 dims[][3] = { { 5, 7, 3 }, { 1, 4, 6 }, { 6, 1, 5 }, { 3, 5, 1 },
                                    { 33, 17, 65 } };

  for (int ka = 0; ka < N_OPS; ka++)
    for (int kb = 0; kb < N_OPS; kb++)
      for (guint s = 0; s < G_N_ELEMENTS (dims); s++)
        {
          g_autoptr(GError) error = NULL;
          gint64 m = dims[s][0], n = dims[s][1], k = dims[s][2];
          g_autoptr(NkTensor) a = make_operand (ka, NK_DTYPE_F32, 0, m, k, 1);
          g_autoptr(NkTensor) b = make_operand (kb, NK_DTYPE_F32, 0, k, n, 2);
          g_autoptr(NkTensor) c = NULL;
          guint64 f0 = nk_flops_get ();
          NkDevice *cpu = nk_device_get_cpu ();
          guint64 live0, peak;

          nk_device_reset_peak (cpu);
          nk_device_get_bytes (cpu, NK_N_BUCKETS, &live0, NULL);
          if (g_test_verbose ())
            g_test_message ("%s × %s, m=%" G_GINT64_FORMAT " n=%" G_GINT64_FORMAT " k=%" G_GINT64_FORMAT,
                            kind_names[ka], kind_names[kb], m, n, k);
          c = nk_matmul (a, b, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (nk_flops_get () - f0, ==, (guint64) (2 * m * n * k));
          g_assert_cmpint (c->shape[0], ==, m);
          g_assert_cmpint (c->shape[1], ==, n);
          check_product (a, b, c, 1e-5);

          /* Transposed, narrowed and row-stepped operands are passed as they are: the
           * only bytes allocated are the result's. */
          nk_device_get_bytes (cpu, NK_N_BUCKETS, NULL, &peak);
          if (ka != OP_BOTH_STEP && ka != OP_EXPANDED && kb != OP_BOTH_STEP && kb != OP_EXPANDED)
            g_assert_cmpuint (peak - live0, ==, (guint64) (m * n) * sizeof (float));
          else if ((ka == OP_BOTH_STEP || ka == OP_EXPANDED) && m > 1 && k > 1)
            g_assert_cmpuint (peak - live0, >, (guint64) (m * n) * sizeof (float));
        }
}

static void
test_batched_broadcast (void)
{
  for (int ka = 0; ka < N_OPS; ka++)
    for (int kb = 0; kb < N_OPS; kb++)
      {
        g_autoptr(GError) error = NULL;
        /* [3, m, k] @ [k, n] and [2, 1, m, k] @ [3, k, n] → [2, 3, m, n] */
        g_autoptr(NkTensor) a = make_operand (ka, NK_DTYPE_F32, 3, 5, 4, 3);
        g_autoptr(NkTensor) b = make_operand (kb, NK_DTYPE_F32, 0, 4, 6, 4);
        g_autoptr(NkTensor) c = NULL;
        g_autoptr(NkTensor) a4 = NULL;
        g_autoptr(NkTensor) b3 = make_operand (kb, NK_DTYPE_F32, 3, 4, 6, 5);
        g_autoptr(NkTensor) c4 = NULL;
        g_autoptr(NkTensor) a2 = make_operand (ka, NK_DTYPE_F32, 2, 5, 4, 6);
        guint64 f0 = nk_flops_get ();

        c = nk_matmul (a, b, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (nk_flops_get () - f0, ==, (guint64) (2 * 5 * 6 * 4 * 3));
        g_assert_cmpint (c->ndim, ==, 3);
        check_product (a, b, c, 1e-5);

        a4 = nk_tensor_unsqueeze (a2, 1, &error);
        c4 = nk_matmul (a4, b3, &error);
        g_assert_no_error (error);
        g_assert_cmpint (c4->ndim, ==, 4);
        g_assert_cmpint (c4->shape[0], ==, 2);
        g_assert_cmpint (c4->shape[1], ==, 3);
        check_product (a4, b3, c4, 1e-5);
      }
}

static void
test_vectors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) v = nk_test_filled (NK_DTYPE_F64, NK_SHAPE (4), 1);
  g_autoptr(NkTensor) w0 = nk_test_filled (NK_DTYPE_F64, NK_SHAPE (8), 2);
  g_autoptr(NkTensor) w = nk_tensor_slice (w0, 0, 0, NK_SLICE_END, 2, &error);
  g_autoptr(NkTensor) mat = nk_test_filled (NK_DTYPE_F64, NK_SHAPE (4, 3), 3);
  g_autoptr(NkTensor) dot = nk_matmul (v, w, &error);
  g_autoptr(NkTensor) vm = nk_matmul (v, mat, &error);
  g_autoptr(NkTensor) mt = nk_tensor_t (mat, &error);
  g_autoptr(NkTensor) mv = nk_matmul (mt, v, &error);
  double ref = 0.0, got;

  g_assert_no_error (error);
  g_assert_cmpint (dot->ndim, ==, 0);
  for (gint64 i = 0; i < 4; i++)
    ref += at (v, (gint64[]) { i }) * at (w, (gint64[]) { i });
  g_assert_true (nk_tensor_item (dot, &got, &error));
  g_assert_cmpfloat_with_epsilon (got, ref, 1e-12);

  g_assert_cmpint (vm->ndim, ==, 1);
  g_assert_cmpint (vm->shape[0], ==, 3);
  g_assert_cmpint (mv->ndim, ==, 1);
  for (gint64 j = 0; j < 3; j++)
    {
      double r = 0.0;
      for (gint64 i = 0; i < 4; i++)
        r += at (v, (gint64[]) { i }) * at (mat, (gint64[]) { i, j });
      g_assert_cmpfloat_with_epsilon (at (vm, (gint64[]) { j }), r, 1e-12);
      g_assert_cmpfloat_with_epsilon (at (mv, (gint64[]) { j }), r, 1e-12);
    }

  {
    g_autoptr(NkTensor) bad = nk_test_filled (NK_DTYPE_F64, NK_SHAPE (5, 6), 0);
    g_autoptr(NkTensor) r = nk_matmul (mat, bad, &error);
    g_assert_null (r);
    g_assert_error (error, NK_TENSOR_ERROR, NK_TENSOR_ERROR_SHAPE);
    g_assert_true (g_str_has_prefix (error->message, "mat1 and mat2 shapes cannot be multiplied (4x3 and 5x6)"));
  }
}

static void
test_out_accumulate (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) x = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (6, 4), 1);    /* activations [B, in] */
  g_autoptr(NkTensor) g = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (6, 3), 2);    /* grad out [B, out] */
  g_autoptr(NkTensor) gt = nk_tensor_t (g, &error);
  g_autoptr(NkTensor) dw = nk_test_filled (NK_DTYPE_F32, NK_SHAPE (3, 4), 3);   /* weight grad [out, in] */
  g_autofree double *before = nk_tensor_to_doubles (dw, NULL);
  g_autofree double *after = NULL;

  /* dW += 0.5 · gᵀ·x, into a transposed view of nothing: straight into dW. */
  g_assert_true (nk_matmul_out (dw, gt, x, 0.5, 1.0, &error));
  g_assert_no_error (error);
  after = nk_tensor_to_doubles (dw, NULL);
  for (gint64 o = 0; o < 3; o++)
    for (gint64 i = 0; i < 4; i++)
      {
        double r = 0.0;
        for (gint64 b = 0; b < 6; b++)
          r += at (g, (gint64[]) { b, o }) * at (x, (gint64[]) { b, i });
        g_assert_cmpfloat_with_epsilon (after[o * 4 + i], before[o * 4 + i] + 0.5 * r, 1e-5);
      }

  /* Into a transposed output view: C is column-major, no copy, written through. */
  {
    g_autoptr(NkTensor) store = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (4, 3), &error);
    g_autoptr(NkTensor) ct = nk_tensor_t (store, &error);
    g_assert_true (nk_matmul_out (ct, gt, x, 1.0, 0.0, &error));
    g_assert_no_error (error);
    check_product (gt, x, ct, 1e-5);
  }
}

static void
test_low_precision (void)
{
  static const NkDType dts[] = { NK_DTYPE_BF16, NK_DTYPE_F16 };

  for (guint t = 0; t < G_N_ELEMENTS (dts); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkTensor) a = make_operand (OP_TRANSPOSED, dts[t], 0, 7, 9, 1);
      g_autoptr(NkTensor) b = make_operand (OP_NARROWED, dts[t], 0, 9, 5, 2);
      g_autoptr(NkTensor) c = nk_matmul (a, b, &error);

      g_assert_no_error (error);
      g_assert_cmpint (c->dtype, ==, dts[t]);
      /* One rounding of the exact product to 8 (bf16) / 11 (f16) significant bits. */
      check_product (a, b, c, dts[t] == NK_DTYPE_BF16 ? 1.0 / 256 : 1.0 / 2048);
    }
}

/* The rule for replacing OpenBLAS's fallback kernels, case by case. */
static void
test_blas_kernels_rule (void)
{
  /* a CPU OpenBLAS knows keeps its choice, whatever it supports */
  g_assert_null (nk_blas_better_kernels ("SkylakeX", TRUE, TRUE));
  g_assert_null (nk_blas_better_kernels ("Haswell", TRUE, TRUE));
  g_assert_null (nk_blas_better_kernels ("Zen", FALSE, TRUE));
  g_assert_null (nk_blas_better_kernels ("SapphireRapids", TRUE, TRUE));
  /* a fallback on a CPU with AVX-512 or AVX2 + FMA is replaced */
  g_assert_cmpstr (nk_blas_better_kernels ("Prescott", TRUE, TRUE), ==, "SkylakeX");
  g_assert_cmpstr (nk_blas_better_kernels ("Prescott", FALSE, TRUE), ==, "Haswell");
  g_assert_cmpstr (nk_blas_better_kernels ("Nehalem", FALSE, TRUE), ==, "Haswell");
  g_assert_cmpstr (nk_blas_better_kernels ("Sandybridge", TRUE, TRUE), ==, "SkylakeX");
  /* a CPU without them keeps the fallback */
  g_assert_null (nk_blas_better_kernels ("Prescott", FALSE, FALSE));
  g_assert_null (nk_blas_better_kernels (NULL, TRUE, TRUE));
  /* what this process runs on is a name */
  g_assert_nonnull (nk_blas_get_kernels ());
}

/* Debian's OpenBLAS 0.3.21 hangs in fork() while another thread is inside a gemm
 * (without nk_blas_lock this test hung in 5 runs of 5); the app forks to open
 * a link while a run trains. A hang here ends in the test's timeout. */
static gpointer
gemm_loop (gpointer data)
{
  gint *stop = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) a = nk_tensor_full (NK_DTYPE_F32, NK_SHAPE (256, 256), 0.5, &error);
  g_autoptr(NkTensor) c = nk_tensor_empty (NK_DTYPE_F32, NK_SHAPE (256, 256), &error);

  g_assert_no_error (error);
  while (!g_atomic_int_get (stop))
    g_assert_true (nk_matmul_out (c, a, a, 1.0, 0.0, &error));
  return NULL;
}

static void
test_fork_during_gemm (void)
{
  gint stop = 0;
  GThread *thread = g_thread_new ("gemm", gemm_loop, &stop);

  g_usleep (50000);
  for (int i = 0; i < 30; i++)
    {
      pid_t pid = fork ();
      int status = 0;

      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        _exit (0);
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
      g_usleep (2000);
    }
  g_atomic_int_set (&stop, 1);
  g_thread_join (thread);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/matmul/all-operand-kinds", test_all_operand_kinds);
  g_test_add_func ("/engine/matmul/batched-broadcast", test_batched_broadcast);
  g_test_add_func ("/engine/matmul/vectors", test_vectors);
  g_test_add_func ("/engine/matmul/out-accumulate", test_out_accumulate);
  g_test_add_func ("/engine/matmul/low-precision", test_low_precision);
  g_test_add_func ("/engine/matmul/blas-kernels-rule", test_blas_kernels_rule);
  g_test_add_func ("/engine/matmul/fork-during-gemm", test_fork_during_gemm);

  return g_test_run ();
}
