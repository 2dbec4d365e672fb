/* test-block-train.c: a linear layer's products under the MXFP8 and NVFP4 recipes
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: a float64 reference written here from the rules in CLI.md ("napkin-cli
 * quantize"), not from nk-quantize: a minifloat rounder (nearest-even on the grid
 * of a format with m fraction bits, smallest normal exponent emin, saturated at
 * max), the OCP v1.0 E8M0 scale 2^(floor(log2 amax) − 8) for E4M3 and NVIDIA's
 * "up" rule (that scale doubled when amax / X > 448), and NVFP4's two-level scale.
 * Each of the three products of y = x·Wᵀ is recomputed in float64 from operands
 * quantized along its own reduction dimension (in, out, batch), and nk_ag_linear's
 * forward and backward must agree with it to float32 accumulation error, while
 * differing from the unquantized product by far more.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-autograd-private.h"
#include "nk-autograd-quant.h"
#include "nk-autograd.h"
#include "nk-gpt.h"
#include "nk-json.h"
#include "nk-run-dir.h"
#include "nk-train-metrics.h"
#include "nk-rng.h"
#include "nk-test-util.h"

#define B   32
#define IN  64
#define OUT 16

/* Round @v to the grid of a float format with @mbits fraction bits and smallest
 * normal exponent @emin, nearest-even, saturated at ±@max. */
static double
round_mini (double v,
            int    mbits,
            int    emin,
            double max)
{
  double a = fabs (v), q, r;
  int e;

  if (a == 0.0)
    return 0.0;
  frexp (a, &e);
  e -= 1;                     /* a = f · 2^e with f in [1, 2) */
  if (e < emin)
    e = emin;
  q = ldexp (1.0, e - mbits);
  r = nearbyint (a / q) * q;  /* the default mode is nearest-even */
  if (r > max)
    r = max;
  return copysign (r, v);
}

typedef struct {
  guint64 elements, flushed, clipped;
} Counts;

/* One MXFP8 (E4M3) block of @n values at stride @stride, in place. */
static void
ref_mx_block (double  *v,
              gsize    n,
              gsize    stride,
              gboolean up,
              Counts  *counts)
{
  double amax = 0.0, x;
  int e;

  for (gsize i = 0; i < n; i++)
    amax = MAX (amax, fabs (v[i * stride]));
  counts->elements += n;
  if (amax == 0.0)
    return;
  frexp (amax, &e);
  x = ldexp (1.0, (e - 1) - 8);
  if (up && amax / x > 448.0)
    x *= 2.0;
  for (gsize i = 0; i < n; i++)
    {
      double in = v[i * stride];

      if (fabs (in) / x > 448.0)
        counts->clipped++;
      v[i * stride] = round_mini (in / x, 3, -6, 448.0) * x;
      if (in != 0.0 && v[i * stride] == 0.0)
        counts->flushed++;
    }
}

/* NVFP4 over a whole [rows, cols] operand (row r at @v + r · @rs, columns at @cs),
 * blocks of 16 along each row. */
static void
ref_nvfp4 (double *v,
           gsize   rows,
           gsize   cols,
           gsize   rs,
           gsize   cs,
           Counts *counts)
{
  double amax = 0.0, st;

  for (gsize r = 0; r < rows; r++)
    for (gsize c = 0; c < cols; c++)
      amax = MAX (amax, fabs (v[r * rs + c * cs]));
  st = (float) (amax / (6.0 * 448.0));
  for (gsize r = 0; r < rows; r++)
    for (gsize c0 = 0; c0 < cols; c0 += 16)
      {
        gsize n = MIN (16, cols - c0);
        double bmax = 0.0, sb;

        for (gsize i = 0; i < n; i++)
          bmax = MAX (bmax, fabs (v[r * rs + (c0 + i) * cs]));
        counts->elements += n;
        sb = st > 0.0 ? round_mini (bmax / (6.0 * st), 3, -6, 448.0) : 0.0;
        for (gsize i = 0; i < n; i++)
          {
            double *p = &v[r * rs + (c0 + i) * cs], in = *p;

            *p = sb > 0.0 ? round_mini (in / (sb * st), 1, 0, 6.0) * sb * st : 0.0;
            if (in != 0.0 && *p == 0.0)
              counts->flushed++;
          }
      }
}

typedef enum { REF_MX_UP, REF_MX_FLOOR, REF_NVFP4 } Recipe;

/* Quantizes a [rows, cols] operand along its rows (row r at r · rs). */
static void
ref_quantize (Recipe  recipe,
              double *v,
              gsize   rows,
              gsize   cols,
              gsize   rs,
              gsize   cs,
              Counts *counts)
{
  if (recipe == REF_NVFP4)
    {
      ref_nvfp4 (v, rows, cols, rs, cs, counts);
      return;
    }
  for (gsize r = 0; r < rows; r++)
    for (gsize c0 = 0; c0 < cols; c0 += 32)
      ref_mx_block (v + r * rs + c0 * cs, MIN (32, cols - c0), cs, recipe == REF_MX_UP, counts);
}

/* NVFP4's weight-gradient rotation (NVIDIA's NVFP4 recipe): each block of 16 along
 * the rows of a [rows, cols] operand becomes H·diag(@sign)·v / 4, H the 16×16
 * Hadamard matrix (nk_test_hadamard16(), Sylvester's doubling), rounded to float32
 * as the engine's float32 product leaves it. */
static void
ref_rotate (double      *v,
            gsize        rows,
            gsize        cols,
            gsize        rs,
            gsize        cs,
            const float *sign)
{
  double h[16][16];

  nk_test_hadamard16 (h);
  g_assert_cmpuint (cols % 16, ==, 0);
  for (gsize r = 0; r < rows; r++)
    for (gsize c0 = 0; c0 < cols; c0 += 16)
      {
        double in[16];

        for (guint j = 0; j < 16; j++)
          in[j] = v[r * rs + (c0 + j) * cs] * sign[j];
        for (guint i = 0; i < 16; i++)
          {
            double sum = 0.0;

            for (guint j = 0; j < 16; j++)
              sum += h[i][j] * in[j];
            v[r * rs + (c0 + i) * cs] = (float) (sum / 4.0);
          }
      }
}

/* Values over twenty binades, so blocks flush small neighbours and (floor) clip. */
static void
fill_wide (NkRng  *rng,
           double *v,
           gsize   n)
{
  for (gsize i = 0; i < n; i++)
    {
      double m = nk_rng_normal (rng, 0.0, 1.0);
      int e = (int) nk_rng_uniform_int (rng, 21) - 10;

      /* float32 values, so the tensor holds exactly what the reference reads */
      v[i] = (float) ldexp (m, e);
    }
}

/* out[i, j] = Σ_k a[i·ars + k·aks] · b[j·brs + k·bks]; @abs: the same over |a|·|b|. */
static void
ref_product (const double *a,
             gsize         ars,
             gsize         aks,
             const double *b,
             gsize         brs,
             gsize         bks,
             gsize         m,
             gsize         n,
             gsize         k,
             double       *out,
             double       *abs)
{
  for (gsize i = 0; i < m; i++)
    for (gsize j = 0; j < n; j++)
      {
        double s = 0.0, t = 0.0;

        for (gsize l = 0; l < k; l++)
          {
            s += a[i * ars + l * aks] * b[j * brs + l * bks];
            t += fabs (a[i * ars + l * aks] * b[j * brs + l * bks]);
          }
        out[i * n + j] = s;
        abs[i * n + j] = t;
      }
}

/* Every element within float32 accumulation error of the reference; returns the
 * largest |got − ref| / Σ|a·b|. */
static double
assert_close (NkTensor     *got,
              const double *ref,
              const double *abs,
              gsize         n)
{
  const float *g = nk_tensor_data_f32 (got);
  double worst = 0.0;

  for (gsize i = 0; i < n; i++)
    {
      double bound = 1e-5 * abs[i] + 1e-30;

      g_assert_true (isfinite (g[i]));
      if (fabs (g[i] - ref[i]) > bound)
        g_error ("element %" G_GSIZE_FORMAT ": got %.9g, reference %.9g (bound %.3g)",
                 i, g[i], ref[i], bound);
      worst = MAX (worst, fabs (g[i] - ref[i]) / (abs[i] + 1e-300));
    }
  return worst;
}

static NkTensor *
f32_tensor (const double *v,
            gint64        rows,
            gint64        cols)
{
  g_autoptr(GError) error = NULL;
  NkTensor *t = nk_tensor_new_from_doubles (NK_DTYPE_F32, NK_SHAPE (rows, cols), v, &error);

  g_assert_no_error (error);
  return t;
}

static void
check_recipe (Recipe recipe)
{
  g_autoptr(NkRng) rng = nk_rng_new (recipe + 7);
  g_autoptr(GError) error = NULL;
  double x[B * IN], w[OUT * IN], g[B * OUT];
  double xq[B * IN], wq[OUT * IN], gq[B * OUT];
  double ref[B * IN], abs[B * IN], plain[B * OUT], plain_abs[B * OUT];
  g_autoptr(NkTensor) xt = NULL, wt = NULL, gt = NULL, y = NULL, p = NULL, loss = NULL;
  NkQuantizeStats stats;
  Counts counts = { 0, };
  double worst, differs = 0.0;
  NkDType autocast = nk_autograd_set_autocast (NK_DTYPE_F32);

  fill_wide (rng, x, G_N_ELEMENTS (x));
  fill_wide (rng, w, G_N_ELEMENTS (w));
  fill_wide (rng, g, G_N_ELEMENTS (g));
  xt = f32_tensor (x, B, IN);
  wt = f32_tensor (w, OUT, IN);
  gt = f32_tensor (g, B, OUT);
  nk_tensor_set_requires_grad (xt, TRUE);
  nk_tensor_set_requires_grad (wt, TRUE);

  nk_autograd_set_block_quant (recipe == REF_NVFP4 ? NK_BLOCK_FORMAT_NVFP4 : NK_BLOCK_FORMAT_MXFP8_E4M3,
                               0, recipe == REF_MX_FLOOR ? NK_MX_SCALE_FLOOR : NK_MX_SCALE_UP,
                               FALSE, 1);
  g_assert_true (nk_autograd_get_block_quant (NULL));
  y = nk_ag_linear (xt, wt, NULL, &error);
  g_assert_no_error (error);

  /* y = x·Wᵀ with x and W in blocks along `in` */
  memcpy (xq, x, sizeof x);
  memcpy (wq, w, sizeof w);
  ref_quantize (recipe, xq, B, IN, IN, 1, &counts);
  ref_quantize (recipe, wq, OUT, IN, IN, 1, &counts);
  ref_product (xq, IN, 1, wq, IN, 1, B, OUT, IN, ref, abs);
  worst = assert_close (y, ref, abs, B * OUT);
  /* ... and not the product of the operands as they were */
  ref_product (x, IN, 1, w, IN, 1, B, OUT, IN, plain, plain_abs);
  for (gsize i = 0; i < B * OUT; i++)
    differs = MAX (differs, fabs (plain[i] - ref[i]) / plain_abs[i]);
  g_test_message ("forward: worst %.3g of Σ|x·w|; quantizing moved it by up to %.3g",
                  worst, differs);
  g_assert_cmpfloat (differs, >, 1e-3);

  /* loss = Σ g ⊙ y, so dy = g exactly */
  p = nk_ag_mul (y, gt, &error);
  g_assert_no_error (error);
  loss = nk_ag_sum (p, &error);
  g_assert_no_error (error);
  g_assert_true (nk_autograd_backward (loss, &error));
  g_assert_no_error (error);

  /* dx [B, in] = dy·W: dy along `out` (rows of g), W along `out` (its columns) */
  memcpy (gq, g, sizeof g);
  memcpy (wq, w, sizeof w);
  ref_quantize (recipe, gq, B, OUT, OUT, 1, &counts);
  ref_quantize (recipe, wq, IN, OUT, 1, IN, &counts);
  ref_product (gq, OUT, 1, wq, 1, IN, B, IN, OUT, ref, abs);
  worst = assert_close (nk_tensor_get_grad (xt), ref, abs, B * IN);
  g_test_message ("dx: worst %.3g", worst);

  /* dW [out, in] = dyᵀ·x: both along the batch (the columns of g and x), under
   * NVFP4 rotated first (which leaves the exact product as it was) */
  memcpy (gq, g, sizeof g);
  memcpy (xq, x, sizeof x);
  if (recipe == REF_NVFP4)
    {
      float sign[16];
      double unrotated[OUT * IN], rotated[OUT * IN], scratch[OUT * IN];

      _nk_ag_block_quant_rotation_signs (sign);
      for (guint i = 0; i < 16; i++)
        g_assert_true (sign[i] == 1.0f || sign[i] == -1.0f);
      ref_product (gq, 1, OUT, xq, 1, IN, OUT, IN, B, unrotated, scratch);
      ref_rotate (gq, OUT, B, 1, OUT, sign);
      ref_rotate (xq, IN, B, 1, IN, sign);
      ref_product (gq, 1, OUT, xq, 1, IN, OUT, IN, B, rotated, scratch);
      for (gsize i = 0; i < OUT * IN; i++)
        g_assert_cmpfloat (fabs (rotated[i] - unrotated[i]), <=, 1e-6 * scratch[i]);
    }
  ref_quantize (recipe, gq, OUT, B, 1, OUT, &counts);
  ref_quantize (recipe, xq, IN, B, 1, IN, &counts);
  ref_product (gq, 1, OUT, xq, 1, IN, OUT, IN, B, ref, abs);
  worst = assert_close (nk_tensor_get_grad (wt), ref, abs, OUT * IN);
  g_test_message ("dW: worst %.3g", worst);

  /* The counts the trainer reports: six operands, each element once. */
  nk_autograd_take_quant_stats (&stats);
  g_test_message ("elements %" G_GUINT64_FORMAT ", flushed %" G_GUINT64_FORMAT
                  " (reference %" G_GUINT64_FORMAT "), clipped %" G_GUINT64_FORMAT
                  " (reference %" G_GUINT64_FORMAT ")", stats.elements, stats.flushed,
                  counts.flushed, stats.clipped, counts.clipped);
  g_assert_cmpuint (stats.elements, ==, 2 * (B * IN + OUT * IN + B * OUT));
  g_assert_cmpuint (stats.elements, ==, counts.elements);
  g_assert_cmpuint (stats.flushed, ==, counts.flushed);
  g_assert_cmpuint (stats.flushed, >, 0);
  if (recipe == REF_MX_FLOOR)
    {
      g_assert_cmpuint (stats.clipped, ==, counts.clipped);
      g_assert_cmpuint (stats.clipped, >, 0);
    }
  if (recipe == REF_MX_UP)
    g_assert_cmpuint (stats.clipped, ==, 0);

  nk_autograd_clear_block_quant ();
  g_assert_false (nk_autograd_get_block_quant (NULL));
  nk_autograd_set_autocast (autocast);
}

static void
test_mxfp8_up (void)
{
  check_recipe (REF_MX_UP);
}

static void
test_mxfp8_floor (void)
{
  check_recipe (REF_MX_FLOOR);
}

static void
test_nvfp4_nearest (void)
{
  check_recipe (REF_NVFP4);
}

/* Under bf16 autocast (the trainer's setting) the forward output is the recipe's
 * float32 product rounded once to bf16: not the plain bf16-mixed product. */
static void
test_mxfp8_under_bf16 (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (3);
  g_autoptr(GError) error = NULL;
  double x[B * IN], w[OUT * IN], ref[B * OUT], abs[B * OUT];
  g_autoptr(NkTensor) xt = NULL, wt = NULL, yq = NULL, yb = NULL, yq32 = NULL, yb32 = NULL;
  NkDType autocast = nk_autograd_set_autocast (NK_DTYPE_BF16);
  Counts counts = { 0, };
  guint differ = 0;

  fill_wide (rng, x, G_N_ELEMENTS (x));
  fill_wide (rng, w, G_N_ELEMENTS (w));
  xt = f32_tensor (x, B, IN);
  wt = f32_tensor (w, OUT, IN);
  yb = nk_ag_linear (xt, wt, NULL, &error);
  g_assert_no_error (error);
  nk_autograd_set_block_quant (NK_BLOCK_FORMAT_MXFP8_E4M3, 32, NK_MX_SCALE_UP, FALSE, 1);
  yq = nk_ag_linear (xt, wt, NULL, &error);
  g_assert_no_error (error);
  nk_autograd_clear_block_quant ();
  nk_autograd_set_autocast (autocast);
  g_assert_cmpint (yq->dtype, ==, NK_DTYPE_BF16);

  ref_quantize (REF_MX_UP, x, B, IN, IN, 1, &counts);
  ref_quantize (REF_MX_UP, w, OUT, IN, IN, 1, &counts);
  ref_product (x, IN, 1, w, IN, 1, B, OUT, IN, ref, abs);
  yq32 = nk_cast (yq, NK_DTYPE_F32, &error);
  yb32 = nk_cast (yb, NK_DTYPE_F32, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < B * OUT; i++)
    {
      double got = nk_tensor_data_f32 (yq32)[i];

      /* bf16 keeps 8 significant bits: half an ulp of the result, plus the sum's own */
      g_assert_cmpfloat (fabs (got - ref[i]), <=, fabs (ref[i]) * 0x1p-8 + 1e-5 * abs[i]);
      differ += got != nk_tensor_data_f32 (yb32)[i];
    }
  g_test_message ("%u of %d outputs differ from bf16-mixed", differ, B * OUT);
  g_assert_cmpuint (differ, >, B * OUT / 4);
}

/* NVFP4's stochastic rounding of dy: a function of (seed, step), finite, and not the
 * nearest-even answer. */
static void
test_nvfp4_stochastic (void)
{
  g_autoptr(NkRng) rng = nk_rng_new (5);
  double x[B * IN], w[OUT * IN], g[B * OUT];
  float grads[3][OUT * IN];
  guint64 steps[3] = { 5, 5, 6 };
  NkDType autocast = nk_autograd_set_autocast (NK_DTYPE_F32);

  fill_wide (rng, x, G_N_ELEMENTS (x));
  fill_wide (rng, w, G_N_ELEMENTS (w));
  fill_wide (rng, g, G_N_ELEMENTS (g));
  nk_autograd_set_block_quant (NK_BLOCK_FORMAT_NVFP4, 16, NK_MX_SCALE_UP, TRUE, 42);
  for (guint r = 0; r < 3; r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkTensor) xt = f32_tensor (x, B, IN);
      g_autoptr(NkTensor) wt = f32_tensor (w, OUT, IN);
      g_autoptr(NkTensor) gt = f32_tensor (g, B, OUT);
      g_autoptr(NkTensor) y = NULL, p = NULL, loss = NULL;

      nk_tensor_set_requires_grad (wt, TRUE);
      nk_autograd_seek_block_quant (steps[r]);
      y = nk_ag_linear (xt, wt, NULL, &error);
      p = y != NULL ? nk_ag_mul (y, gt, &error) : NULL;
      loss = p != NULL ? nk_ag_sum (p, &error) : NULL;
      g_assert_no_error (error);
      g_assert_true (nk_autograd_backward (loss, &error));
      memcpy (grads[r], nk_tensor_data_f32 (nk_tensor_get_grad (wt)), sizeof grads[r]);
      for (guint i = 0; i < OUT * IN; i++)
        g_assert_true (isfinite (grads[r][i]));
    }
  nk_autograd_clear_block_quant ();
  nk_autograd_set_autocast (autocast);
  g_assert_true (memcmp (grads[0], grads[1], sizeof grads[0]) == 0);
  g_assert_false (memcmp (grads[0], grads[2], sizeof grads[0]) == 0);
}

/* The trainer's fast NVFP4 stochastic path against nk_quantize_fake_f32's own: the
 * same values, counts and generator state bit for bit, on signed values over many
 * binades with zeros, an all-zero block, a short last block and values that clip. */
static void
test_nvfp4_stochastic_fast (void)
{
  enum { ROWS = 7, COLS = 53 };
  g_autoptr(NkRng) data = nk_rng_new (11);
  g_autoptr(NkRng) ra = nk_rng_new_from_state (77, 5);
  g_autoptr(NkRng) rb = nk_rng_new_from_state (77, 5);
  double v[ROWS * COLS];
  float src[ROWS * COLS], fast[ROWS * COLS], slow[ROWS * COLS];
  NkQuantizeStats sf = { 0, }, ss = { 0, };
  guint64 seed_a, ctr_a, seed_b, ctr_b;

  fill_wide (data, v, G_N_ELEMENTS (v));
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    src[i] = i % 9 == 0 ? 0.0f : (float) v[i];
  for (guint i = 16; i < 32; i++)
    src[COLS + i] = 0.0f;       /* an all-zero block */
  for (guint pass = 0; pass < 3; pass++)
    {
      _nk_ag_nvfp4_stochastic (src, fast, ROWS, COLS, 16, ra, &sf);
      nk_quantize_fake_f32 (NK_BLOCK_FORMAT_NVFP4, src, slow, ROWS, COLS, 16, NK_MX_SCALE_UP,
                            NK_ROUNDING_MODE_STOCHASTIC, rb, &ss);
      g_assert_true (memcmp (fast, slow, sizeof fast) == 0);
    }
  g_assert_cmpuint (sf.elements, ==, ss.elements);
  g_assert_cmpuint (sf.flushed, ==, ss.flushed);
  g_assert_cmpuint (sf.clipped, ==, ss.clipped);
  g_assert_cmpuint (sf.flushed, >, 0);
  nk_rng_get_state (ra, &seed_a, &ctr_a);
  nk_rng_get_state (rb, &seed_b, &ctr_b);
  g_assert_cmpuint (ctr_a, ==, ctr_b);
  g_assert_cmpuint (ctr_a, ==, 5 + 3 * ROWS * COLS);
}

/* A GPT under a recipe quantizes its blocks' four Linears and not its tied output
 * head: after one forward the quantizer has seen, per block, x and W of c_attn
 * ([BT, d], [3d, d]), attn.c_proj ([BT, d], [d, d]), c_fc ([BT, d], [4d, d]) and
 * mlp.c_proj ([BT, 4d], [d, 4d]) — L·(7·BT·d + 12·d²) elements, counted here by
 * hand — and not the head's [BT, d] and [V, d]. */
static void
test_gpt_head_not_quantized (void)
{
  const guint V = 64, d = 32, L = 2, H = 2, T = 8, Bt = 2;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_gpt (V, d, L, H, T, NK_DTYPE_F32, &error);
  g_autoptr(NkTensor) x = NULL;
  g_autoptr(NkTensor) logits = NULL;
  NkQuantizeStats stats;
  guint64 bt = (guint64) Bt * T;

  g_assert_no_error (error);
  x = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32, NK_SHAPE (Bt, T),
                          NK_BUCKET_DATA, FALSE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < Bt * T; i++)
    ((gint32 *) nk_tensor_data (x))[i] = (gint32) (i * 7 % V);
  for (NkBlockFormat f = NK_BLOCK_FORMAT_MXFP8_E4M3; ; f = NK_BLOCK_FORMAT_NVFP4)
    {
      nk_autograd_set_block_quant (f, 0, NK_MX_SCALE_UP, FALSE, 3);
      logits = nk_model_forward (m, x, &error);
      g_assert_no_error (error);
      g_assert_true (nk_autograd_get_block_quant (NULL));   /* resumed after the head */
      nk_autograd_take_quant_stats (&stats);
      nk_autograd_release (logits);
      g_clear_pointer (&logits, nk_tensor_unref);
      nk_autograd_clear_block_quant ();
      g_assert_cmpuint (stats.elements, ==, L * (7 * bt * d + 12 * (guint64) d * d));
      if (f == NK_BLOCK_FORMAT_NVFP4)
        break;
    }
}

/* A run folder keeps the recipe's choices and the quantizer's shares: the config's
 * JSON reads back to the same choices (so --resume compares them), and a step line
 * written by nk_train_metrics_build_json() reads back with its shares. */
static void
test_run_folder_round_trip (void)
{
  static const struct { NkPrecision precision; NkMxScaleRule rule; gboolean nearest; const char *says; } cases[] = {
    { NK_PRECISION_MXFP8, NK_MX_SCALE_FLOOR, FALSE, "\"mx_scale\":\"floor\"" },
    { NK_PRECISION_MXFP8, NK_MX_SCALE_UP, FALSE, "\"mx_scale\":\"up\"" },
    { NK_PRECISION_NVFP4, NK_MX_SCALE_UP, TRUE, "\"nvfp4_rounding\":\"nearest\"" },
    { NK_PRECISION_NVFP4, NK_MX_SCALE_UP, FALSE, "\"nvfp4_rounding\":\"stochastic\"" },
  };
  g_autofree char *dir = nk_test_make_temp_dir ("napkin-block-run");
  g_autofree char *path = g_build_filename (dir, "metrics.jsonl", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(NkTrainConfig) c = nk_test_done_means_gpt (cases[i].precision);
      g_autoptr(NkTrainConfig) back = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *json = NULL;

      c->mx_scale = cases[i].rule;
      c->nvfp4_nearest = cases[i].nearest;
      json = nk_train_config_to_json (c);
      g_assert_nonnull (strstr (json, cases[i].says));
      back = nk_run_config_from_json (json, &error);
      g_assert_no_error (error);
      g_assert_cmpint (back->precision, ==, cases[i].precision);
      g_assert_cmpint (back->mx_scale, ==, cases[i].rule);
      g_assert_cmpint (back->nvfp4_nearest, ==, cases[i].nearest);
    }

  {
    NkTrainMetrics m = { .step = 7, .loss = 2.5, .precision = NK_PRECISION_NVFP4,
                         .quant_elements = 1000, .quant_flushed = 0.125, .quant_clipped = 0.0625 };
    NkTrainMetrics back;
    g_autoptr(JsonBuilder) b = json_builder_new ();
    g_autoptr(GError) error = NULL;
    g_autofree char *line = NULL, *text = NULL;

    nk_train_metrics_build_json (&m, "cpu", b);
    line = nk_json_to_line (b);
    g_assert_nonnull (strstr (line, "\"precision\":\"nvfp4\""));
    text = g_strconcat (line, "\n", NULL);
    g_assert_true (g_file_set_contents (path, text, -1, &error));
    g_assert_no_error (error);
    g_assert_true (nk_run_dir_read_last_step (dir, &back));
    g_assert_cmpuint (back.step, ==, 7);
    g_assert_cmpfloat (back.quant_flushed, ==, 0.125);
    g_assert_cmpfloat (back.quant_clipped, ==, 0.0625);
  }
  nk_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/block-train/mxfp8-up", test_mxfp8_up);
  g_test_add_func ("/engine/block-train/mxfp8-floor", test_mxfp8_floor);
  g_test_add_func ("/engine/block-train/nvfp4-nearest", test_nvfp4_nearest);
  g_test_add_func ("/engine/block-train/mxfp8-under-bf16", test_mxfp8_under_bf16);
  g_test_add_func ("/engine/block-train/nvfp4-stochastic", test_nvfp4_stochastic);
  g_test_add_func ("/engine/block-train/nvfp4-stochastic-fast", test_nvfp4_stochastic_fast);
  g_test_add_func ("/engine/block-train/run-folder", test_run_folder_round_trip);
  g_test_add_func ("/engine/block-train/gpt-head-not-quantized", test_gpt_head_not_quantized);
  return g_test_run ();
}
