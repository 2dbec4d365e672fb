/* test-cuda.c: the CUDA device where there is one, and its absence where there is not
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Without a GPU (every build machine of this project) the device must say why there
 * is none — CUDA's own sentence, no crash, no hang — and "auto" must fall back to
 * the CPU. With a GPU, matmul and elementwise results are compared with the CPU
 * device (itself checked against float64 references in test-matmul/test-ops) at each
 * dtype's tolerance. What the GPU runs that can be checked on a CPU is checked
 * elsewhere: the gemm plan (test-gemm-plan) and the shared kernel bodies (test-ops).
 */
#include "config.h"

#include <math.h>

#include "nk-autograd-nn.h"
#include "nk-device.h"
#include "nk-device-probe.h"
#include "nk-kernels.h"
#include "nk-ops.h"
#include "nk-tensor.h"
#include "nk-trainer.h"

static NkDevice *
cuda_or_skip (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = nk_device_lookup ("cuda", &error);

  if (cuda == NULL)
    g_test_skip (error->message);
  return cuda;
}

static void
test_discovery_reason (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = nk_device_lookup ("cuda", &error);
  NkDevice *again;

  if (cuda != NULL)
    {
      g_autofree char *text = nk_device_describe (cuda);

      g_test_message ("CUDA device: %s", text);
      g_assert_cmpint (nk_device_get_kind (cuda), ==, NK_DEVICE_CUDA);
      return;
    }

  /* One sentence that says why, in the engine's device domain. */
  g_assert_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "no CUDA device: "));
  g_assert_cmpuint (strlen (error->message), >, strlen ("no CUDA device: "));
  g_assert_null (strchr (error->message, '\n'));
#ifdef NK_HAVE_CUDA_MODULE
  /* The module is built: the reason is CUDA's, not a loading failure. */
  g_assert_null (strstr (error->message, "no CUDA module"));
#endif
  g_test_message ("%s", error->message);

  /* Asking again gives the same answer without trying again (no hang). */
  g_clear_error (&error);
  again = nk_device_lookup ("cuda:0", &error);
  g_assert_null (again);
  g_assert_error (error, NK_DEVICE_ERROR, NK_DEVICE_ERROR_NOT_FOUND);
}

static void
test_auto_falls_back (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *device = nk_device_lookup ("auto", &error);

  g_assert_no_error (error);
  g_assert_nonnull (device);
  if (nk_device_lookup ("cuda", NULL) == NULL)
    g_assert_true (device == nk_device_get_cpu ());
  else
    g_assert_cmpint (nk_device_get_kind (device), ==, NK_DEVICE_CUDA);
}

typedef struct {
  guint     n_done;
  gboolean  usable[2];
  char     *text[2];
  GError   *error[2];
} ProbeAnswers;

static void
probe_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  ProbeAnswers *answers = user_data;
  guint i = answers->n_done++;

  answers->usable[i] = nk_device_probe_cuda_finish (result, &answers->text[i],
                                                    &answers->error[i]);
}

/* The async probe gives the answer the synchronous lookup gives (the oracle), to a
 * caller that joins the running probe and to one that comes after it ended; the
 * cached answer is the same, and waiting for an ended probe returns. */
static void
test_probe (void)
{
  ProbeAnswers answers = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *cached_text = NULL;
  g_autofree char *expected = NULL;
  gboolean cached_usable = FALSE;
  NkDevice *cuda;

  nk_device_probe_cuda_async (NULL, probe_done, &answers);
  nk_device_probe_cuda_async (NULL, probe_done, &answers);
  nk_device_wait_for_probe ();
  while (answers.n_done < 2)
    g_main_context_iteration (NULL, TRUE);

  cuda = nk_device_lookup ("cuda", &error);
  expected = cuda != NULL ? nk_device_describe (cuda) : g_strdup (error->message);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_cmpint (answers.usable[i], ==, cuda != NULL);
      if (cuda != NULL)
        {
          g_assert_no_error (answers.error[i]);
          g_assert_cmpstr (answers.text[i], ==, expected);
        }
      else
        {
          g_assert_error (answers.error[i], NK_DEVICE_ERROR, NK_DEVICE_ERROR_NOT_FOUND);
          g_assert_cmpstr (answers.error[i]->message, ==, expected);
          g_assert_null (answers.text[i]);
        }
      g_clear_pointer (&answers.text[i], g_free);
      g_clear_error (&answers.error[i]);
    }
  g_assert_true (nk_device_get_cached_cuda_probe (&cached_usable, &cached_text));
  g_assert_cmpint (cached_usable, ==, cuda != NULL);
  g_assert_cmpstr (cached_text, ==, expected);

  /* After the end: answered from the cache, in a later main-loop iteration. */
  answers.n_done = 1;
  nk_device_probe_cuda_async (NULL, probe_done, &answers);
  g_assert_cmpuint (answers.n_done, ==, 1);
  while (answers.n_done < 2)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (answers.usable[1], ==, cuda != NULL);
  g_clear_pointer (&answers.text[1], g_free);
  g_clear_error (&answers.error[1]);
  nk_device_wait_for_probe ();
}

/* Fills a CPU tensor with values of mixed sign and size from a fixed recurrence. */
static NkTensor *
pseudo_random (NkDType dtype,
               gint64  rows,
               gint64  cols,
               guint   seed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) f64 = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_F64, 2,
                                                (gint64[]) { rows, cols }, NK_BUCKET_OTHER,
                                                FALSE, &error);
  double *data = nk_tensor_data_f64 (f64);
  guint32 state = seed * 2654435761u + 1;
  NkTensor *out;

  for (gint64 i = 0; i < rows * cols; i++)
    {
      state = state * 1664525u + 1013904223u;
      data[i] = ((double) (state >> 8) / (double) (1u << 24)) * 2.0 - 1.0;
    }
  out = nk_cast (f64, dtype, &error);
  g_assert_no_error (error);
  return out;
}

static double
max_rel_diff (NkTensor *gpu_result,
              NkTensor *cpu_result)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTensor) host = nk_tensor_to_device (gpu_result, nk_device_get_cpu (), &error);
  g_autofree double *a = NULL, *b = NULL;
  gint64 n = nk_tensor_numel (cpu_result);
  double worst = 0.0, scale = 0.0;

  g_assert_no_error (error);
  a = nk_tensor_to_doubles (host, NULL);
  b = nk_tensor_to_doubles (cpu_result, NULL);
  for (gint64 i = 0; i < n; i++)
    scale = MAX (scale, fabs (b[i]));
  for (gint64 i = 0; i < n; i++)
    worst = MAX (worst, fabs (a[i] - b[i]) / MAX (scale, 1e-30));
  return worst;
}

static void
check_matmul (NkDType dtype,
              gboolean transpose_b,
              double   tolerance)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  g_autoptr(NkTensor) a = NULL, b = NULL, bt = NULL, ga = NULL, gb = NULL;
  g_autoptr(NkTensor) cpu = NULL, gpu = NULL;

  if (cuda == NULL)
    return;
  a = pseudo_random (dtype, 129, 67, 1);
  b = pseudo_random (dtype, transpose_b ? 35 : 67, transpose_b ? 67 : 35, 2);
  bt = transpose_b ? nk_tensor_t (b, &error) : nk_tensor_ref (b);
  ga = nk_tensor_to_device (a, cuda, &error);
  g_assert_no_error (error);
  gb = nk_tensor_to_device (bt, cuda, &error);
  g_assert_no_error (error);

  cpu = nk_matmul (a, bt, &error);
  g_assert_no_error (error);
  gpu = nk_matmul (ga, gb, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, tolerance);
}

static void
test_matmul_f32 (void)
{
  check_matmul (NK_DTYPE_F32, FALSE, 1e-5);
  check_matmul (NK_DTYPE_F32, TRUE, 1e-5);
}

static void
test_matmul_bf16 (void)
{
  check_matmul (NK_DTYPE_BF16, FALSE, 1e-2);
  check_matmul (NK_DTYPE_BF16, TRUE, 1e-2);
}

static void
test_elementwise (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  g_autoptr(NkTensor) a = NULL, ga = NULL, cpu = NULL, gpu = NULL;

  if (cuda == NULL)
    return;
  a = pseudo_random (NK_DTYPE_F32, 64, 33, 3);
  ga = nk_tensor_to_device (a, cuda, &error);
  g_assert_no_error (error);
  for (int op = 0; op < NK_N_UNARY_OPS; op++)
    {
      g_clear_pointer (&cpu, nk_tensor_unref);
      g_clear_pointer (&gpu, nk_tensor_unref);
      cpu = nk_unary (op, a, &error);
      g_assert_no_error (error);
      gpu = nk_unary (op, ga, &error);
      g_assert_no_error (error);
      /* log/sqrt of negatives are NaN on both sides; compare the finite ones. */
      if (op != NK_UNARY_LOG && op != NK_UNARY_SQRT && op != NK_UNARY_RSQRT
          && op != NK_UNARY_RECIPROCAL)
        g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, 1e-5);
    }
}

/* A CPU tensor's copy on @cuda. */
static NkTensor *
on (NkDevice *cuda,
    NkTensor *t)
{
  g_autoptr(GError) error = NULL;
  NkTensor *out = nk_tensor_to_device (t, cuda, &error);

  g_assert_no_error (error);
  return out;
}

static void
test_matmul_f16_f64 (void)
{
  check_matmul (NK_DTYPE_F16, FALSE, 2e-3);
  check_matmul (NK_DTYPE_F16, TRUE, 2e-3);
  check_matmul (NK_DTYPE_F64, FALSE, 1e-12);
  check_matmul (NK_DTYPE_F64, TRUE, 1e-12);
}

/* A batch (one strided-batched cuBLAS call), a transposed view as the first operand,
 * and out = alpha·a@b + beta·out into an existing result. */
static void
test_matmul_batched (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  g_autoptr(NkTensor) a2 = NULL, b2 = NULL, a = NULL, b = NULL, ga = NULL, gb = NULL;
  g_autoptr(NkTensor) cpu = NULL, gpu = NULL, at = NULL, gat = NULL, cpu_t = NULL, gpu_t = NULL;
  g_autoptr(NkTensor) out = NULL, gout = NULL;

  if (cuda == NULL)
    return;
  a2 = pseudo_random (NK_DTYPE_F32, 4 * 33, 17, 5);
  b2 = pseudo_random (NK_DTYPE_F32, 4 * 17, 9, 6);
  a = nk_tensor_view (a2, 3, (gint64[]) { 4, 33, 17 }, &error);
  g_assert_no_error (error);
  b = nk_tensor_view (b2, 3, (gint64[]) { 4, 17, 9 }, &error);
  g_assert_no_error (error);
  ga = on (cuda, a);
  gb = on (cuda, b);
  cpu = nk_matmul (a, b, &error);
  g_assert_no_error (error);
  gpu = nk_matmul (ga, gb, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, 1e-5);

  /* (17×33)ᵀ @ (17×9): the transposed view goes to cuBLAS as op T, no copy. */
  at = pseudo_random (NK_DTYPE_F32, 17, 33, 7);
  gat = on (cuda, at);
  g_clear_pointer (&a, nk_tensor_unref);
  g_clear_pointer (&ga, nk_tensor_unref);
  a = nk_tensor_t (at, &error);
  ga = nk_tensor_t (gat, &error);
  g_assert_no_error (error);
  g_clear_pointer (&b, nk_tensor_unref);
  g_clear_pointer (&gb, nk_tensor_unref);
  b = pseudo_random (NK_DTYPE_F32, 17, 9, 8);
  gb = on (cuda, b);
  cpu_t = nk_matmul (a, b, &error);
  g_assert_no_error (error);
  gpu_t = nk_matmul (ga, gb, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (max_rel_diff (gpu_t, cpu_t), <, 1e-5);

  out = pseudo_random (NK_DTYPE_F32, 33, 9, 9);
  gout = on (cuda, out);
  g_assert_true (nk_matmul_out (out, a, b, 0.5, 2.0, &error));
  g_assert_no_error (error);
  g_assert_true (nk_matmul_out (gout, ga, gb, 0.5, 2.0, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (max_rel_diff (gout, out), <, 1e-5);
}

/* Every binary op, with a broadcast operand and with a scalar on either side. */
static void
test_binary (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  g_autoptr(NkTensor) a = NULL, b2 = NULL, b = NULL, ga = NULL, gb = NULL;

  if (cuda == NULL)
    return;
  a = pseudo_random (NK_DTYPE_F32, 64, 33, 10);
  b2 = pseudo_random (NK_DTYPE_F32, 1, 33, 11);
  b = nk_tensor_view (b2, 1, (gint64[]) { 33 }, &error);
  g_assert_no_error (error);
  ga = on (cuda, a);
  gb = on (cuda, b);
  for (int op = 0; op < NK_N_BINARY_OPS; op++)
    for (int form = 0; form < 3; form++)
      {
        g_autoptr(NkTensor) cpu = NULL, gpu = NULL;

        cpu = form == 0 ? nk_binary (op, a, b, &error)
                        : nk_binary_scalar (op, a, 0.75, form == 2, &error);
        g_assert_no_error (error);
        gpu = form == 0 ? nk_binary (op, ga, gb, &error)
                        : nk_binary_scalar (op, ga, 0.75, form == 2, &error);
        g_assert_no_error (error);
        /* pow of a negative base is NaN on both sides. */
        if (op != NK_BINARY_POW)
          g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, 1e-5);
      }
}

/* Sums, means, maxima and minima over each set of dims, in f32 and f64. */
static void
test_reductions (void)
{
  static const int dim_sets[][2] = { { 0, -1 }, { 1, -1 }, { 0, 1 } };
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();

  if (cuda == NULL)
    return;
  for (int f64 = 0; f64 < 2; f64++)
    {
      g_autoptr(NkTensor) a = pseudo_random (f64 ? NK_DTYPE_F64 : NK_DTYPE_F32, 70, 45, 12);
      g_autoptr(NkTensor) ga = on (cuda, a);

      for (int op = 0; op < NK_N_REDUCE_OPS; op++)
        for (guint s = 0; s < G_N_ELEMENTS (dim_sets); s++)
          {
            int ndims = dim_sets[s][1] < 0 ? 1 : 2;
            g_autoptr(NkTensor) cpu = nk_reduce (op, a, ndims, dim_sets[s], s == 1, &error);
            g_autoptr(NkTensor) gpu = NULL;

            g_assert_no_error (error);
            gpu = nk_reduce (op, ga, ndims, dim_sets[s], s == 1, &error);
            g_assert_no_error (error);
            g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, f64 ? 1e-12 : 1e-6);
          }
      {
        g_autoptr(NkTensor) cpu = nk_softmax (a, 1, &error);
        g_autoptr(NkTensor) gpu = nk_softmax (ga, 1, &error);

        g_assert_no_error (error);
        g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, 1e-6);
      }
    }
}

/* The reduction's three launch shapes agree with the CPU's in-order float64 sums: a
 * thread per output (70000 outputs; the sum in float32 only, as each emulated CUDA
 * thread costs a fiber), a block per output (a bias gradient: 40 columns over 700
 * strided rows) and blocks per output split into partials (3 columns of 8192 strided
 * rows; 3 rows of 70000; the whole of a 300 × 400 matrix, as a loss is summed). */
static void
test_reduction_paths (void)
{
  static const struct { gint64 rows, cols; int ndims, dims[2]; } cases[] = {
    { 70000, 3, 1, { 1, 0 } },
    { 700, 40, 1, { 0, 0 } },
    { 8192, 3, 1, { 0, 0 } },
    { 3, 70000, 1, { 1, 0 } },
    { 300, 400, 2, { 0, 1 } },
  };
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();

  if (cuda == NULL)
    return;
  for (int f64 = 0; f64 < 2; f64++)
    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        g_autoptr(NkTensor) a = pseudo_random (f64 ? NK_DTYPE_F64 : NK_DTYPE_F32,
                                               cases[c].rows, cases[c].cols, 40 + c);
        g_autoptr(NkTensor) ga = on (cuda, a);

        for (int op = 0; op < NK_N_REDUCE_OPS; op++)
          {
            g_autoptr(NkTensor) cpu = NULL;
            g_autoptr(NkTensor) gpu = NULL;

            if (c == 0 && (f64 || op != NK_REDUCE_SUM))
              continue;
            cpu = nk_reduce (op, a, cases[c].ndims, cases[c].dims, FALSE, &error);
            g_assert_no_error (error);
            gpu = nk_reduce (op, ga, cases[c].ndims, cases[c].dims, FALSE, &error);
            g_assert_no_error (error);
            g_assert_cmpfloat (max_rel_diff (gpu, cpu), <, f64 ? 1e-12 : 1e-6);
          }
      }
}

/* Casts between every stored dtype round the same way as the CPU's (exactly), and
 * triu/tril keep the same triangles. */
static void
test_casts_and_triangles (void)
{
  static const NkDType chain[] = { NK_DTYPE_BF16, NK_DTYPE_F16, NK_DTYPE_F64, NK_DTYPE_INT32,
                                   NK_DTYPE_INT64, NK_DTYPE_F32 };
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  g_autoptr(NkTensor) cpu = NULL, gpu = NULL;

  if (cuda == NULL)
    return;
  cpu = pseudo_random (NK_DTYPE_F64, 31, 29, 13);
  {
    g_autoptr(NkTensor) scaled = nk_mul_scalar (cpu, 3000.0, &error);

    g_assert_no_error (error);
    g_clear_pointer (&cpu, nk_tensor_unref);
    cpu = g_steal_pointer (&scaled);
  }
  gpu = on (cuda, cpu);
  for (guint i = 0; i < G_N_ELEMENTS (chain); i++)
    {
      NkTensor *c = nk_cast (cpu, chain[i], &error);
      NkTensor *g = nk_cast (gpu, chain[i], &error);

      g_assert_no_error (error);
      nk_tensor_unref (cpu);
      nk_tensor_unref (gpu);
      cpu = c;
      gpu = g;
      g_assert_cmpfloat (max_rel_diff (gpu, cpu), ==, 0.0);
    }
  for (gint64 diagonal = -2; diagonal <= 3; diagonal++)
    {
      g_autoptr(NkTensor) cu = nk_triu (cpu, diagonal, &error);
      g_autoptr(NkTensor) gu = nk_triu (gpu, diagonal, &error);
      g_autoptr(NkTensor) cl = nk_tril (cpu, diagonal, &error);
      g_autoptr(NkTensor) gl = nk_tril (gpu, diagonal, &error);

      g_assert_no_error (error);
      g_assert_cmpfloat (max_rel_diff (gu, cu), ==, 0.0);
      g_assert_cmpfloat (max_rel_diff (gl, cl), ==, 0.0);
    }
}

/* The bits of element @i of a CPU tensor of 2- or 4-byte elements, NaNs as one. */
static guint32
cast_bits (NkTensor *t,
           gint64    i)
{
  const guint8 *p = (const guint8 *) nk_tensor_data (t) + i * nk_tensor_element_size (t);
  guint32 bits;

  if (nk_tensor_element_size (t) == 2)
    {
      guint16 h;

      memcpy (&h, p, 2);
      if (t->dtype == NK_DTYPE_BF16 ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00)
        return 0xffffffffu;
      return h;
    }
  memcpy (&bits, p, 4);
  return (bits & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu : bits;
}

/* The mixed-precision casts' contiguous path (f32 ↔ bf16/f16, four elements a thread)
 * rounds bit for bit as the CPU does: every bf16 and f16 code to f32, and 100,003 f32
 * patterns (ties, subnormals, overflow, infinities, NaNs) to each, from an offset view
 * whose length is no multiple of four. */
static void
test_casts_contiguous (void)
{
  static const NkDType narrow[] = { NK_DTYPE_BF16, NK_DTYPE_F16 };
  const gint64 n = 100003;
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  g_autofree guint32 *words = g_new (guint32, n + 1);
  g_autofree guint16 *codes = g_new (guint16, 65536);
  g_autoptr(NkTensor) all = NULL, view = NULL, gall = NULL, gview = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);

  if (cuda == NULL)
    return;
  for (gint64 i = 0; i <= n; i++)
    {
      guint32 w = g_rand_int (rand);

      /* Every fourth a tie or near-tie of the 16-bit formats' last place. */
      if (i % 4 == 1)
        w = (w & 0xffff0000u) | 0x8000u;
      else if (i % 4 == 2)
        w = (w & 0xffffe000u) | 0x1000u;
      words[i] = w;
    }
  words[5] = 0x7f800000u;    /* +inf */
  words[6] = 0x477ff000u;    /* 65520: f16 overflows to inf */
  words[7] = 0x00000001u;    /* the smallest subnormal */
  words[8] = 0x7fc00001u;    /* a NaN */
  all = nk_tensor_new_from_data (NK_DTYPE_F32, NK_SHAPE (n + 1), words, &error);
  g_assert_no_error (error);
  view = nk_tensor_narrow (all, 0, 1, n, &error);
  g_assert_no_error (error);
  gall = nk_tensor_to_device (all, cuda, &error);
  g_assert_no_error (error);
  gview = nk_tensor_narrow (gall, 0, 1, n, &error);
  g_assert_no_error (error);
  for (guint f = 0; f < G_N_ELEMENTS (narrow); f++)
    {
      g_autoptr(NkTensor) cpu = nk_cast (view, narrow[f], &error);
      g_autoptr(NkTensor) gpu = nk_cast (gview, narrow[f], &error);
      g_autoptr(NkTensor) back = NULL, codes_cpu = NULL, codes_gpu = NULL, wide_cpu = NULL;
      g_autoptr(NkTensor) wide_gpu = NULL, wide_back = NULL;

      g_assert_no_error (error);
      back = nk_tensor_to_device (gpu, nk_device_get_cpu (), &error);
      g_assert_no_error (error);
      for (gint64 i = 0; i < n; i++)
        if (cast_bits (back, i) != cast_bits (cpu, i))
          g_error ("%s: f32 0x%08x is 0x%04x on the GPU, 0x%04x on the CPU",
                   nk_dtype_info (narrow[f])->name, words[i + 1], cast_bits (back, i),
                   cast_bits (cpu, i));

      for (guint c = 0; c < 65536; c++)
        codes[c] = (guint16) c;
      codes_cpu = nk_tensor_new_from_data (narrow[f], NK_SHAPE (65536), codes, &error);
      g_assert_no_error (error);
      codes_gpu = nk_tensor_to_device (codes_cpu, cuda, &error);
      wide_cpu = nk_cast (codes_cpu, NK_DTYPE_F32, &error);
      wide_gpu = nk_cast (codes_gpu, NK_DTYPE_F32, &error);
      g_assert_no_error (error);
      wide_back = nk_tensor_to_device (wide_gpu, nk_device_get_cpu (), &error);
      g_assert_no_error (error);
      for (gint64 c = 0; c < 65536; c++)
        g_assert_cmphex (cast_bits (wide_back, c), ==, cast_bits (wide_cpu, c));
    }
}

/* Three steps of every update rule: parameters and both states as the CPU's. */
static void
test_optimizer_kernels (void)
{
  static const NkOptimKind kinds[] = { NK_OPTIM_SGD, NK_OPTIM_ADAGRAD, NK_OPTIM_RMSPROP,
                                       NK_OPTIM_ADAM, NK_OPTIM_ADAMW };
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();

  if (cuda == NULL)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      NkOptimStep step = { .kind = kinds[k], .lr = 0.01f, .momentum = 0.9f, .alpha = 0.99f,
                           .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
                           .weight_decay = 0.01f };
      NkTensor *cpu[4], *gpu[4];

      for (int t = 0; t < 4; t++)
        {
          cpu[t] = pseudo_random (NK_DTYPE_F32, 37, 41, 20 + t);
          if (t >= 2)
            {
              /* States that stay valid: squared averages are not negative. */
              NkTensor *sq = nk_binary (NK_BINARY_MUL, cpu[t], cpu[t], &error);
              g_assert_no_error (error);
              nk_tensor_unref (cpu[t]);
              cpu[t] = sq;
            }
          gpu[t] = on (cuda, cpu[t]);
        }
      for (step.step = 1; step.step <= 3; step.step++)
        {
          nk_optim_step_prepare (&step);
          g_assert_true (nk_optimizer_step_ (&step, cpu[0], cpu[1], cpu[2], cpu[3], &error));
          g_assert_no_error (error);
          g_assert_true (nk_optimizer_step_ (&step, gpu[0], gpu[1], gpu[2], gpu[3], &error));
          g_assert_no_error (error);
        }
      for (int t = 0; t < 4; t++)
        {
          if (t != 1)
            g_assert_cmpfloat (max_rel_diff (gpu[t], cpu[t]), <, 1e-6);
          nk_tensor_unref (cpu[t]);
          nk_tensor_unref (gpu[t]);
        }
    }
}

static void
test_memory_balanced (void)
{
  g_autoptr(GError) error = NULL;
  NkDevice *cuda = cuda_or_skip ();
  guint64 before = 0, after = 0;

  if (cuda == NULL)
    return;
  nk_device_get_bytes (cuda, NK_N_BUCKETS, &before, NULL);
  {
    g_autoptr(NkTensor) a = pseudo_random (NK_DTYPE_F32, 256, 256, 4);
    g_autoptr(NkTensor) ga = nk_tensor_to_device (a, cuda, &error);
    g_autoptr(NkTensor) prod = nk_matmul (ga, ga, &error);

    g_assert_no_error (error);
    nk_device_get_bytes (cuda, NK_N_BUCKETS, &after, NULL);
    g_assert_cmpuint (after, >=, before + 2 * 256 * 256 * 4);
  }
  nk_device_get_bytes (cuda, NK_N_BUCKETS, &after, NULL);
  g_assert_cmpuint (after, ==, before);
}

/* The same steps (Cruncher or GPT) on the GPU and on the CPU: equal losses within
 * fp32's reordering error, and every byte given back once the run is gone. */
static GArray *
run_losses (const char  *device,
            NkModelKind  model)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;

  c->model = model;
  c->dim = model == NK_MODEL_GPT ? 32 : 64;
  c->layers = 2;
  c->batch = model == NK_MODEL_GPT ? 4 : 16;
  c->context = 16;
  c->n_head = 2;
  c->steps = 5;
  c->lr = 1e-3;
  c->optimizer = NK_OPTIMIZER_ADAMW;
  g_free (c->device);
  c->device = g_strdup (device);
  trainer = nk_trainer_new (c);
  g_assert_true (nk_trainer_run_sync (trainer, NULL, &error));
  g_assert_no_error (error);
  return nk_trainer_get_history (trainer);
}

static void
check_training_steps (NkModelKind model)
{
  NkDevice *cuda = cuda_or_skip ();
  g_autoptr(GArray) cpu = NULL, gpu = NULL;
  guint64 before = 0, after = 0;

  if (cuda == NULL)
    return;
  nk_device_get_bytes (cuda, NK_N_BUCKETS, &before, NULL);
  cpu = run_losses ("cpu", model);
  gpu = run_losses ("cuda", model);
  g_assert_cmpuint (gpu->len, ==, cpu->len);
  for (guint i = 0; i < cpu->len; i++)
    {
      double a = g_array_index (cpu, NkTrainMetrics, i).loss;
      double b = g_array_index (gpu, NkTrainMetrics, i).loss;

      g_assert_cmpfloat (fabs (a - b), <=, 1e-4 * fabs (a));
    }
  nk_device_get_bytes (cuda, NK_N_BUCKETS, &after, NULL);
  g_assert_cmpuint (after, ==, before);
}

static void
test_training_step (void)
{
  check_training_steps (NK_MODEL_CRUNCHER);
}

/* Issue 12: 5 GPT steps on CUDA equal the CPU's losses within 1e-4 (fp32), memory
 * balanced. */
static void
test_gpt_training_steps (void)
{
  check_training_steps (NK_MODEL_GPT);
}

/* ---- the GPT's ops: CUDA against the CPU ------------------------------------------ */

enum { GPT_X, GPT_LN_W, GPT_LN_B, GPT_WTE, GPT_ATTN, GPT_N_LEAVES };

/* A pre-LN attention with a GELU on @device in @dtype, from fixed host data:
 * a = gelu (attention (LN (x + wte[ids]))), loss = Σ u ⊙ a + CE (a·wteᵀ, ids). Returns the loss and each
 * leaf's gradient on the host (doubles, g_free them). */
static double
gpt_ops_loss (NkDevice *device,
              NkDType   dtype,
              double  **grads)
{
  /* Rows longer than a warp (d = 40, T = 37), so the GPU's lanes stride and reduce;
   * more rows (296) than one chunk of LayerNorm's parameter sums (NK_ROWS_CHUNK). */
  const gint64 B = 8, T = 37, H = 2, hd = 20, d = H * hd, V = 7;
  g_autoptr(GError) error = NULL;
  NkDevice *saved = nk_device_get_default ();
  g_autoptr(NkTensor) ids = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT64,
                                                NK_SHAPE (B * T), NK_BUCKET_OTHER, FALSE,
                                                &error);
  const gint64 shapes[GPT_N_LEAVES][2] = { { B * T, d }, { 1, d }, { 1, d }, { V, d },
                                           { 3 * d, d } };
  NkTensor *leaf[GPT_N_LEAVES];
  NkTensor *parts[3];
  double loss_value = 0.0;

  for (gint64 i = 0; i < B * T; i++)
    ((gint64 *) nk_tensor_data (ids))[i] = (i * i + 3) % V;   /* repeated ids */
  nk_device_set_default (device);
  for (int i = 0; i < GPT_N_LEAVES; i++)
    {
      g_autoptr(NkTensor) host = pseudo_random (dtype, shapes[i][0], shapes[i][1], 20 + i);
      g_autoptr(NkTensor) flat = shapes[i][0] == 1 ? nk_tensor_view (host, NK_SHAPE (d), &error)
                                                   : nk_tensor_ref (host);

      leaf[i] = nk_tensor_to_device (flat, device, &error);
      g_assert_no_error (error);
      if (leaf[i] == flat)
        {
          /* On the CPU to_device returns the same tensor: make it a leaf of its own. */
          nk_tensor_unref (leaf[i]);
          leaf[i] = nk_tensor_clone (flat, &error);
        }
      nk_tensor_set_requires_grad (leaf[i], TRUE);
    }
  {
    /* Token ids on the device, as a training batch is. */
    g_autoptr(NkTensor) dev_ids = nk_tensor_to_device (ids, device, &error);
    g_autoptr(NkTensor) e = nk_ag_embedding (leaf[GPT_WTE], dev_ids, &error);
    g_autoptr(NkTensor) x = nk_ag_add (leaf[GPT_X], e, &error);
    g_autoptr(NkTensor) h = nk_ag_layer_norm (x, leaf[GPT_LN_W], leaf[GPT_LN_B], 1e-5, &error);
    g_autoptr(NkTensor) qkv = nk_ag_linear (h, leaf[GPT_ATTN], NULL, &error);
    g_autoptr(NkTensor) att = NULL, p = NULL, y = NULL, a = NULL, u = NULL, uy = NULL;
    g_autoptr(NkTensor) u3 = NULL;
    g_autoptr(NkTensor) loss = NULL;
    g_autoptr(NkTensor) host_u = pseudo_random (dtype, B * T, d, 40);

    g_assert_no_error (error);
    for (int i = 0; i < 3; i++)
      {
        g_autoptr(NkTensor) part = nk_ag_narrow (qkv, 1, i * d, d, &error);
        g_autoptr(NkTensor) heads = nk_ag_view (part, NK_SHAPE (B, T, H, hd), &error);

        parts[i] = nk_ag_transpose (heads, 1, 2, &error);
        g_assert_no_error (error);
      }
    att = nk_ag_bmm (parts[0], parts[1], NK_BMM_TRANS_B, &error);
    p = nk_ag_softmax_causal (att, 1.0 / sqrt ((double) hd), &error);
    y = nk_ag_bmm (p, parts[2], NK_BMM_MERGE_HEADS, &error);
    a = nk_ag_gelu (y, &error);
    g_assert_no_error (error);
    u = nk_tensor_to_device (host_u, device, &error);
    u3 = nk_tensor_view (u, NK_SHAPE (B, T, d), &error);
    uy = nk_ag_mul (a, u3, &error);
    {
      /* Plus the tied head's cross-entropy against the ids. */
      g_autoptr(NkTensor) s = nk_ag_sum (uy, &error);
      g_autoptr(NkTensor) a2 = nk_ag_view (a, NK_SHAPE (B * T, d), &error);
      g_autoptr(NkTensor) logits = nk_ag_linear (a2, leaf[GPT_WTE], NULL, &error);
      g_autoptr(NkTensor) ce = nk_ag_cross_entropy (logits, dev_ids, &error);

      g_assert_no_error (error);
      loss = nk_ag_add (s, ce, &error);
    }
    g_assert_no_error (error);
    g_assert_true (nk_autograd_backward (loss, &error));
    g_assert_no_error (error);
    {
      g_autoptr(NkTensor) lh = nk_tensor_to_device (loss, nk_device_get_cpu (), &error);

      g_assert_true (nk_tensor_item (lh, &loss_value, &error));
    }
    for (int i = 0; i < 3; i++)
      nk_tensor_unref (parts[i]);
  }
  for (int i = 0; i < GPT_N_LEAVES; i++)
    {
      g_autoptr(NkTensor) g = nk_tensor_to_device (leaf[i]->grad, nk_device_get_cpu (), &error);

      g_assert_no_error (error);
      grads[i] = nk_tensor_to_doubles (g, NULL);
      nk_tensor_unref (leaf[i]);
    }
  nk_device_set_default (saved);
  return loss_value;
}

static void
test_gpt_ops (void)
{
  NkDevice *cuda = cuda_or_skip ();
  static const NkDType dtypes[] = { NK_DTYPE_F32, NK_DTYPE_F64 };
  static const double tolerance[] = { 1e-5, 1e-12 };
  static const gint64 sizes[GPT_N_LEAVES] = { 296 * 40, 40, 40, 7 * 40, 120 * 40 };
  guint64 before = 0, after = 0;

  if (cuda == NULL)
    return;
  nk_device_get_bytes (cuda, NK_N_BUCKETS, &before, NULL);
  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      double *cpu_g[GPT_N_LEAVES], *gpu_g[GPT_N_LEAVES];
      double cpu_loss = gpt_ops_loss (nk_device_get_cpu (), dtypes[t], cpu_g);
      double gpu_loss = gpt_ops_loss (cuda, dtypes[t], gpu_g);

      g_test_message ("%s: loss %.9g (CPU) %.9g (CUDA)", nk_dtype_info (dtypes[t])->name,
                      cpu_loss, gpu_loss);
      g_assert_cmpfloat (fabs (cpu_loss - gpu_loss), <=, tolerance[t] * MAX (1.0, fabs (cpu_loss)));
      for (int i = 0; i < GPT_N_LEAVES; i++)
        {
          double scale = 0.0;

          for (gint64 j = 0; j < sizes[i]; j++)
            scale = MAX (scale, fabs (cpu_g[i][j]));
          for (gint64 j = 0; j < sizes[i]; j++)
            g_assert_cmpfloat (fabs (cpu_g[i][j] - gpu_g[i][j]), <=, tolerance[t] * MAX (scale, 1.0));
          g_free (cpu_g[i]);
          g_free (gpu_g[i]);
        }
    }
  nk_device_get_bytes (cuda, NK_N_BUCKETS, &after, NULL);
  g_assert_cmpuint (after, ==, before);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gpu/cuda/probe", test_probe);
  g_test_add_func ("/gpu/cuda/discovery-reason", test_discovery_reason);
  g_test_add_func ("/gpu/cuda/auto-falls-back", test_auto_falls_back);
  g_test_add_func ("/gpu/cuda/matmul/f32", test_matmul_f32);
  g_test_add_func ("/gpu/cuda/matmul/bf16", test_matmul_bf16);
  g_test_add_func ("/gpu/cuda/matmul/f16-f64", test_matmul_f16_f64);
  g_test_add_func ("/gpu/cuda/matmul/batched-transposed-out", test_matmul_batched);
  g_test_add_func ("/gpu/cuda/elementwise", test_elementwise);
  g_test_add_func ("/gpu/cuda/binary", test_binary);
  g_test_add_func ("/gpu/cuda/reductions", test_reductions);
  g_test_add_func ("/gpu/cuda/reduction-paths", test_reduction_paths);
  g_test_add_func ("/gpu/cuda/casts-triangles", test_casts_and_triangles);
  g_test_add_func ("/gpu/cuda/casts-contiguous", test_casts_contiguous);
  g_test_add_func ("/gpu/cuda/optimizer", test_optimizer_kernels);
  g_test_add_func ("/gpu/cuda/memory-balanced", test_memory_balanced);
  g_test_add_func ("/gpu/cuda/training-step", test_training_step);
  g_test_add_func ("/gpu/cuda/gpt-ops", test_gpt_ops);
  g_test_add_func ("/gpu/cuda/gpt-training-steps", test_gpt_training_steps);

  return g_test_run ();
}
