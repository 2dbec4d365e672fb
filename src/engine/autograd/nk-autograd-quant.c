/* nk-autograd-quant.c: block-scaled matmul operands (MXFP8, NVFP4) for this thread's linear layers
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-autograd-private.h"
#include "nk-autograd-quant.h"
#include "nk-autograd-quant-private.h"
#include "nk-quantize-impl.h"

/* The recipe of this thread (nk_autograd_set_block_quant()); like autocast, ambient
 * state of the thread that builds and runs the graph. */
typedef struct {
  gboolean        set;
  gboolean        paused;
  NkBlockFormat   format;
  guint           block;
  NkMxScaleRule   scale_rule;
  gboolean        stochastic_grads;
  guint64         key;
  NkRng          *rng;
  float           rotation[NK_QK_ROTATION];  /* NVFP4's weight-gradient factors s_j / 4 */
  NkQuantizeStats stats;
  NkTensor       *device_counts;  /* flushed, clipped on a GPU (nk-autograd-quant-device.c) */
} BlockQuant;

static __thread BlockQuant quant;

/* Tells the stochastic stream apart from the data's and the initialisation's under
 * the same run seed ("BLKQ"). */
#define BLOCK_QUANT_TAG G_GUINT64_CONSTANT (0x424c4b5100000000)

/**
 * nk_autograd_set_block_quant:
 * @format: the block format of every linear layer's matmul operands
 * @block: elements per block (0: the format's #NkBlockFormatInfo.default_block)
 * @scale_rule: how an MX block's scale is picked (NVFP4 ignores it)
 * @stochastic_grads: round the gradient operand (dy) stochastically, weights and
 *   activations to nearest-even (NVFP4's recipe); %FALSE: all to nearest-even
 * @seed: keys the stochastic rounding's Philox stream
 *
 * Sets this thread's recipe: from now on nk_ag_linear() quantizes its operands to
 * @format along each product's reduction dimension, forward and backward (under
 * NVFP4 the weight gradient's two operands rotated first by a random 16-point
 * Hadamard transform, as NVIDIA's NVFP4 recipe does), until
 * nk_autograd_clear_block_quant(). The stream starts at step 0
 * (nk_autograd_seek_block_quant()) and the counts at zero.
 */
void
nk_autograd_set_block_quant (NkBlockFormat format,
                             guint         block,
                             NkMxScaleRule scale_rule,
                             gboolean      stochastic_grads,
                             guint64       seed)
{
  g_return_if_fail (format < NK_N_BLOCK_FORMATS);
  g_clear_pointer (&quant.rng, nk_rng_free);
  g_clear_pointer (&quant.device_counts, nk_tensor_unref);
  memset (&quant, 0, sizeof quant);
  quant.set = TRUE;
  quant.format = format;
  quant.block = block > 0 ? block : nk_block_format_info (format)->default_block;
  quant.scale_rule = scale_rule;
  quant.stochastic_grads = stochastic_grads;
  quant.key = seed ^ BLOCK_QUANT_TAG;
  quant.rng = nk_rng_new_from_state (quant.key, 0);
  _nk_ag_block_quant_rotation_signs (quant.rotation);
  for (guint j = 0; j < NK_QK_ROTATION; j++)
    quant.rotation[j] *= 0.25f;
}

/**
 * nk_autograd_clear_block_quant:
 *
 * Ends this thread's recipe: linear layers multiply their operands as they are (or
 * as autocast rounds them) again.
 */
void
nk_autograd_clear_block_quant (void)
{
  g_clear_pointer (&quant.rng, nk_rng_free);
  g_clear_pointer (&quant.device_counts, nk_tensor_unref);
  memset (&quant, 0, sizeof quant);
}

/**
 * nk_autograd_get_block_quant:
 * @out_format: (out) (optional): the recipe's format
 *
 * Whether this thread's linear layers quantize their operands now (a recipe is set
 * and not paused).
 *
 * Returns: %TRUE while they do
 */
gboolean
nk_autograd_get_block_quant (NkBlockFormat *out_format)
{
  if (out_format != NULL)
    *out_format = quant.format;
  return quant.set && !quant.paused;
}

/**
 * nk_autograd_pause_block_quant:
 * @paused: %TRUE to multiply in full precision for a while (a sample drawn in the
 *   middle of a run), %FALSE to resume the recipe
 *
 * Pauses or resumes this thread's recipe without forgetting it.
 *
 * Returns: whether it was paused before
 */
gboolean
nk_autograd_pause_block_quant (gboolean paused)
{
  gboolean was = quant.paused;

  quant.paused = paused;
  return was;
}

/**
 * nk_autograd_seek_block_quant:
 * @step: the training step about to run, from 0
 *
 * Positions the stochastic rounding's stream at @step's own 2³² words, so what a
 * step draws depends on the seed and the step alone (a resumed run draws as the
 * uninterrupted one did).
 */
void
nk_autograd_seek_block_quant (guint64 step)
{
  if (quant.rng != NULL)
    nk_rng_set_state (quant.rng, quant.key, step << 32);
}

/**
 * nk_autograd_take_quant_stats:
 * @out_stats: (out caller-allocates): the elements the recipe quantized on this
 *   thread since the last call, and how many of them it flushed to zero or clipped
 *
 * Reads and clears this thread's counts (on a GPU: waits for its queued work).
 */
void
nk_autograd_take_quant_stats (NkQuantizeStats *out_stats)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (out_stats != NULL);
  /* a device that failed says so at the step's next call; its counts stay out */
  if (!_nk_ag_quant_counts_take (quant.device_counts, &quant.stats, &error))
    g_debug ("block quantization counts: %s", error->message);
  *out_stats = quant.stats;
  memset (&quant.stats, 0, sizeof quant.stats);
}

/* E2M1's grid has three spacings (0.5 below 2, 1 below 4, 2 up to 6): the
 * stochastic rule of nk_quant_round_mag() on that grid (away from zero when the
 * draw u < frac · 2³²), without its general exponent arithmetic. */
static inline double
e2m1_stochastic (double  a,
                 guint32 u)
{
  double q, t, lo, frac;

  if (a >= 6.0)
    return 6.0;
  q = 0.5 + 0.5 * (a >= 2.0) + (a >= 4.0);
  t = a / q;                    /* exact: a power of two */
  lo = (double) (gint64) t;     /* floor, for 0 ≤ t < 12, without a libm call */
  frac = t - lo;
  /* frac = 0 never rounds away: no draw is below 0 */
  return MIN ((lo + ((double) u < frac * 4294967296.0 ? 1.0 : 0.0)) * q, 6.0);
}

static float
amax_f32 (const float *v,
          gsize        n)
{
  float m = 0.0f;

  for (gsize i = 0; i < n; i++)
    m = MAX (m, fabsf (v[i]));
  return m;
}

/* NVFP4's two scales as CLI.md states them: s_t = amax / (6 × 448) in fp32, and per
 * block s_b = e4m3(amax_block / (6 s_t)), nearest-even, saturated (0 where s_t is). */
static double
nvfp4_block_scale (float amax_block,
                   float s_t)
{
  NkDTypeRounding r;

  if (s_t == 0.0f)
    return 0.0;
  nk_dtype_round (NK_DTYPE_E4M3, amax_block / (6.0 * s_t), NK_OVERFLOW_SATURATE, &r);
  return r.value;
}

/* nk_quantize_fake_f32 (NVFP4, stochastic) bit for bit — the same scales, one draw
 * of @rng per element in row-major order — at
 * the speed a gradient needs: the draws come four at a time straight from
 * Philox (the words nk_rng_next_u32() would return) and the grid is E2M1's alone.
 * test-block-train holds the two paths equal. */
void
_nk_ag_nvfp4_stochastic (const float     *src,
                         float           *dst,
                         gsize            rows,
                         gsize            cols,
                         guint            block,
                         NkRng           *rng,
                         NkQuantizeStats *stats)
{
  float s_t = (float) (amax_f32 (src, rows * cols) / (6.0 * 448.0));
  guint64 seed, counter;
  guint32 key[2], words[4];
  guint64 cached = G_MAXUINT64, flushed = 0, clipped = 0;
  g_autofree guint32 *u = g_new (guint32, block);

  nk_rng_get_state (rng, &seed, &counter);
  key[0] = (guint32) seed;
  key[1] = (guint32) (seed >> 32);
  for (gsize r = 0; r < rows; r++)
    for (gsize c0 = 0; c0 < cols; c0 += block)
      {
        gsize off = r * cols + c0;
        guint len = (guint) MIN ((gsize) block, cols - c0);
        double s = nvfp4_block_scale (amax_f32 (src + off, len), s_t) * s_t;

        for (guint i = 0; i < len; i++)
          {
            guint64 c = counter + i;

            if (c >> 2 != cached)
              {
                guint32 ctr[4] = { (guint32) (c >> 2), (guint32) (c >> 34), 0, 0 };

                nk_philox4x32_10 (ctr, key, words);
                cached = c >> 2;
              }
            u[i] = words[c & 3];
          }
        counter += len;
        for (guint i = 0; i < len; i++)
          {
            double v = src[off + i];
            double a = s == 0.0 ? 0.0 : fabs (v) / s;
            double q = e2m1_stochastic (a, u[i]);

            clipped += a > 6.0;
            flushed += v != 0.0 && q == 0.0;
            dst[off + i] = (float) ((signbit (v) ? -q : q) * s);
          }
      }
  stats->elements += rows * cols;
  stats->flushed += flushed;
  stats->clipped += clipped;
  nk_rng_set_state (rng, seed, counter);
}

gboolean
_nk_ag_block_quant_active (void)
{
  return quant.set && !quant.paused;
}

/* dst [cols, rows] = srcᵀ in float32 for a contiguous float32 or bf16 [rows, cols]
 * source, in tiles that stay in cache (a strided element-by-element copy was the
 * recipe's largest cost). bf16 widens exactly: its bits are float32's top half. */
static void
transpose_to_f32 (NkTensor *t,
                  float    *dst)
{
  enum { TILE = 32 };
  gsize rows = (gsize) t->shape[0], cols = (gsize) t->shape[1];
  const float *f = t->dtype == NK_DTYPE_F32 ? nk_tensor_data_f32 (t) : NULL;
  const guint16 *h = t->dtype == NK_DTYPE_BF16 ? nk_tensor_data (t) : NULL;

  for (gsize r0 = 0; r0 < rows; r0 += TILE)
    for (gsize c0 = 0; c0 < cols; c0 += TILE)
      {
        gsize r1 = MIN (r0 + TILE, rows), c1 = MIN (c0 + TILE, cols);

        if (f != NULL)
          for (gsize c = c0; c < c1; c++)
            for (gsize r = r0; r < r1; r++)
              dst[c * rows + r] = f[r * cols + c];
        else
          for (gsize c = c0; c < c1; c++)
            for (gsize r = r0; r < r1; r++)
              {
                guint32 bits = (guint32) h[r * cols + c] << 16;

                memcpy (&dst[c * rows + r], &bits, sizeof bits);
              }
      }
}

/* NVFP4's random Hadamard transform (NVIDIA, "Pretraining Large Language Models with
 * NVFP4", 2025, §4.2): the weight gradient's two operands, dyᵀ and xᵀ, are rotated in
 * blocks of 16 along the batch before they are quantized, by M = H₁₆·diag(s)/4 with
 * H₁₆ Sylvester's Hadamard matrix and s a random sign per position, one vector for the
 * run (drawn from the recipe's seed). M is orthogonal, so the product Σ_b dy·x over the
 * batch is unchanged in exact arithmetic; what changes is that each block's values
 * are mixed, so a block holds no lone outlier that makes FP4's grid too coarse for the
 * rest (stochastic rounding's variance grows with that ratio). The rotation itself is
 * nk_qk_rotate16(), on the CPU and in a device's quantize kernel alike. */
#define ROTATION_TAG G_GUINT64_CONSTANT (0x5248540000000000)  /* "RHT" */

void
_nk_ag_block_quant_rotation_signs (float sign[16])
{
  g_autoptr(NkRng) rng = nk_rng_new_from_state (quant.key ^ ROTATION_TAG, 0);

  for (guint i = 0; i < NK_QK_ROTATION; i++)
    sign[i] = nk_rng_next_u32 (rng) & 1 ? -1.0f : 1.0f;
}

/* A contiguous float32 [rows, cols] arena copy of @t (of its transpose with
 * @transpose) quantized in blocks along each row: the operand a product reads when
 * its reduction runs along the rows of that copy. @gradient: the operand is dy;
 * @wgrad: it is one of the weight gradient's (rotated first under NVFP4). */
NkTensor *
_nk_ag_block_quant_operand (NkTensor  *t,
                            gboolean   transpose,
                            gboolean   gradient,
                            gboolean   wgrad,
                            GError   **error)
{
  g_autoptr(NkTensor) view = NULL;
  g_autoptr(NkTensor) src = NULL;
  g_autoptr(NkTensor) dst = NULL;
  gboolean stochastic = gradient && quant.stochastic_grads;
  gboolean on_cpu, rotate;

  g_return_val_if_fail (t != NULL && t->ndim == 2, NULL);
  view = transpose ? nk_tensor_t (t, error) : nk_tensor_ref (t);
  if (view == NULL)
    return NULL;
  /* A copy is needed anyway for another dtype or layout; then it is quantized in place. */
  dst = nk_arena_take (NK_DTYPE_F32, view->ndim, view->shape, NK_BUCKET_OTHER, error);
  if (dst == NULL)
    return NULL;
  /* where dst lives, it is quantized: the CPU, or a GPU's quantize entry */
  on_cpu = nk_device_get_kind (nk_tensor_get_device (dst)) == NK_DEVICE_CPU;
  if (view->dtype == NK_DTYPE_F32 && nk_tensor_is_contiguous (view)
      && nk_tensor_get_device (view) == nk_tensor_get_device (dst))
    src = g_steal_pointer (&view);
  else if (on_cpu && transpose && nk_tensor_get_device (t) == nk_tensor_get_device (dst)
           && nk_tensor_is_contiguous (t)
           && (t->dtype == NK_DTYPE_F32 || t->dtype == NK_DTYPE_BF16))
    {
      transpose_to_f32 (t, nk_tensor_data_f32 (dst));
      src = nk_tensor_ref (dst);
    }
  else if (!nk_tensor_copy_ (dst, view, error))
    return NULL;
  else
    src = nk_tensor_ref (dst);
  rotate = wgrad && quant.format == NK_BLOCK_FORMAT_NVFP4 && src->shape[1] % NK_QK_ROTATION == 0;
  if (!on_cpu)
    return _nk_ag_quantize_fake_device (src, dst, quant.format, quant.block, quant.scale_rule,
                                        stochastic ? NK_ROUNDING_MODE_STOCHASTIC
                                                   : NK_ROUNDING_MODE_NEAREST_EVEN,
                                        rotate ? quant.rotation : NULL,
                                        quant.rng, &quant.device_counts, &quant.stats, error)
           ? g_steal_pointer (&dst) : NULL;
  /* rotated into dst, then quantized there in place */
  if (rotate)
    {
      nk_quantize_rotate16_f32 (nk_tensor_data_f32 (src), nk_tensor_data_f32 (dst),
                                 (gsize) nk_tensor_numel (src), quant.rotation);
      nk_tensor_unref (src);
      src = nk_tensor_ref (dst);
    }
  /* NVFP4's stochastic dy too: nk_quantize_fake_f32() draws the row's words in
   * bulk, faster than _nk_ag_nvfp4_stochastic(), which test-block-train keeps
   * equal to it bit for bit */
  nk_quantize_fake_f32 (quant.format, nk_tensor_data_f32 (src), nk_tensor_data_f32 (dst),
                        (gsize) src->shape[0], (gsize) src->shape[1], quant.block,
                        quant.scale_rule,
                        stochastic ? NK_ROUNDING_MODE_STOCHASTIC : NK_ROUNDING_MODE_NEAREST_EVEN,
                        stochastic ? quant.rng : NULL, &quant.stats);
  return g_steal_pointer (&dst);
}
