/* nk-quantize.c: block-scaled formats (MX, NVFP4) for people and for training
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * nk_quantize() works in doubles, value by value, and keeps everything a person
 * may ask about. nk_quantize_fake_f32() gives the same values for float32 input
 * with float bit tricks (nk-quantize-fast.c); both share the element table and
 * the slow per-element rounding of the stochastic and directed modes here.
 *
 * Why the answers are exact: an MX scale is a power of two, so v / X is exact
 * (a double quotient that leaves the double range is far below every element's
 * smallest subnormal and rounds to 0 either way). NVFP4's s_b × s_t has at
 * most 4 + 24 bits, so it and code × s_b × s_t are exact doubles; v / (s_b ×
 * s_t) of a float v is at least 2^−31 (relative) away from any element
 * midpoint unless it is one, so the double quotient rounds like the real one.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "nk-quantize.h"
#include "nk-quantize-private.h"

/**
 * nk_quantize_error_quark:
 *
 * The error domain of block quantization: a block size or name refused, a value
 * the format cannot scale.
 *
 * Returns: the #GQuark of %NK_QUANTIZE_ERROR
 */
G_DEFINE_QUARK (nk-quantize-error-quark, nk_quantize_error)

/*                       name          title              element     int  bits max           emax scale sname   block */
static const NkBlockFormatInfo formats[NK_N_BLOCK_FORMATS] = {
  [NK_BLOCK_FORMAT_MXFP8_E4M3] = { "mxfp8-e4m3", "MXFP8 (E4M3)", "e4m3",     FALSE, 8, 448.0,       8, 8, "e8m0", 32 },
  [NK_BLOCK_FORMAT_MXFP8_E5M2] = { "mxfp8-e5m2", "MXFP8 (E5M2)", "e5m2",     FALSE, 8, 57344.0,    15, 8, "e8m0", 32 },
  [NK_BLOCK_FORMAT_MXFP6_E3M2] = { "mxfp6-e3m2", "MXFP6 (E3M2)", "fp6-e3m2", FALSE, 6, 28.0,        4, 8, "e8m0", 32 },
  [NK_BLOCK_FORMAT_MXFP6_E2M3] = { "mxfp6-e2m3", "MXFP6 (E2M3)", "fp6-e2m3", FALSE, 6, 7.5,         2, 8, "e8m0", 32 },
  [NK_BLOCK_FORMAT_MXFP4]      = { "mxfp4",      "MXFP4",        "fp4-e2m1", FALSE, 4, 6.0,         2, 8, "e8m0", 32 },
  [NK_BLOCK_FORMAT_MXINT8]     = { "mxint8",     "MXINT8",       "int8",     TRUE,  8, 127.0 / 64,  0, 8, "e8m0", 32 },
  [NK_BLOCK_FORMAT_NVFP4]      = { "nvfp4",      "NVFP4",        "fp4-e2m1", FALSE, 4, 6.0,         2, 8, "e4m3", 16 },
};

/* The element grids: exponent and fraction bits, bias, and what they imply. */
static const NkQuantElem elems[NK_N_BLOCK_FORMATS] = {
  [NK_BLOCK_FORMAT_MXFP8_E4M3] = { 4, 3, 7,  -6, 448.0,      FALSE },
  [NK_BLOCK_FORMAT_MXFP8_E5M2] = { 5, 2, 15, -14, 57344.0,   FALSE },
  [NK_BLOCK_FORMAT_MXFP6_E3M2] = { 3, 2, 3,  -2, 28.0,       FALSE },
  [NK_BLOCK_FORMAT_MXFP6_E2M3] = { 2, 3, 1,  0, 7.5,         FALSE },
  [NK_BLOCK_FORMAT_MXFP4]      = { 2, 1, 1,  0, 6.0,         FALSE },
  [NK_BLOCK_FORMAT_MXINT8]     = { 0, 6, 0,  0, 127.0 / 64,  TRUE },
  [NK_BLOCK_FORMAT_NVFP4]      = { 2, 1, 1,  0, 6.0,         FALSE },
};

/* NVFP4's block scale format */
const NkQuantElem nk_quant_e4m3 = { 4, 3, 7, -6, 448.0, FALSE };

const NkQuantElem *
nk_quant_elem (NkBlockFormat format)
{
  return &elems[format];
}

/**
 * nk_block_format_info:
 * @format: a block format
 *
 * The facts of @format: its CLI name, element and scale widths, element maximum and
 * default block size.
 *
 * Returns: (transfer none): the facts of @format: its CLI name, element and
 *   scale widths, element maximum and default block size
 */
const NkBlockFormatInfo *
nk_block_format_info (NkBlockFormat format)
{
  g_return_val_if_fail ((guint) format < NK_N_BLOCK_FORMATS, NULL);
  return &formats[format];
}

/**
 * nk_block_format_from_name:
 * @name: a CLI name: mxfp8-e4m3, mxfp8-e5m2, mxfp6-e3m2, mxfp6-e2m3, mxfp4,
 *   mxint8 or nvfp4 (case does not matter)
 * @out_format: (out): where the format goes
 * @error: return location for a #NkQuantizeError
 *
 * Whether @name named a block format.
 *
 * Returns: whether @name named a block format
 */
gboolean
nk_block_format_from_name (const char     *name,
                           NkBlockFormat  *out_format,
                           GError        **error)
{
  g_return_val_if_fail (out_format != NULL, FALSE);

  for (guint i = 0; name != NULL && i < NK_N_BLOCK_FORMATS; i++)
    if (g_ascii_strcasecmp (name, formats[i].name) == 0)
      {
        *out_format = (NkBlockFormat) i;
        return TRUE;
      }
  g_set_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_UNKNOWN,
               "“%s” is not a block format (mxfp8-e4m3, mxfp8-e5m2, mxfp6-e3m2, "
               "mxfp6-e2m3, mxfp4, mxint8, nvfp4)", name != NULL ? name : "");
  return FALSE;
}

/**
 * nk_mx_scale_rule_from_name:
 * @name: "floor" or "up"
 * @out_rule: (out): where the rule goes
 * @error: return location for a #NkQuantizeError
 *
 * Whether @name named a scale rule.
 *
 * Returns: whether @name named a scale rule
 */
gboolean
nk_mx_scale_rule_from_name (const char     *name,
                            NkMxScaleRule  *out_rule,
                            GError        **error)
{
  g_return_val_if_fail (out_rule != NULL, FALSE);

  if (g_strcmp0 (name, "floor") == 0)
    *out_rule = NK_MX_SCALE_FLOOR;
  else if (g_strcmp0 (name, "up") == 0)
    *out_rule = NK_MX_SCALE_UP;
  else
    {
      g_set_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_UNKNOWN,
                   "“%s” is not a scale rule (floor, up)", name != NULL ? name : "");
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_block_format_bits_per_element:
 * @format: a block format
 * @block: the block size, more than 0
 *
 * The storage cost: element bits plus the block scale's bits shared by @block
 * elements (mxfp4 with 32: 4.25; nvfp4 with 16: 4.5, its one fp32 tensor
 * scale not counted).
 *
 * Returns: bits per element
 */
double
nk_block_format_bits_per_element (NkBlockFormat format,
                                  guint         block)
{
  g_return_val_if_fail ((guint) format < NK_N_BLOCK_FORMATS, 0.0);
  g_return_val_if_fail (block > 0, 0.0);
  return formats[format].element_bits + (double) formats[format].scale_bits / block;
}

/* The E8M0 exponent of an MX block with largest magnitude amax (≥ 0, finite):
 * floor(log2 amax) − emax, one more under NK_MX_SCALE_UP when amax / X would
 * pass the element maximum, clamped to E8M0's [−127, 127]; −127 for amax 0. */
int
nk_quant_mx_exponent (NkBlockFormat format,
                      double        amax,
                      NkMxScaleRule rule)
{
  const NkQuantElem *el = &elems[format];
  int e;

  if (amax == 0.0)
    return -127;
  e = ilogb (amax) - formats[format].element_emax;
  if (rule == NK_MX_SCALE_UP && amax > ldexp (el->max, e))
    e++;
  return CLAMP (e, -127, 127);
}

/* Round a magnitude a ≥ 0 (already divided by the scale) onto the element grid
 * of el, saturating at max. u is one 32-bit draw, used by stochastic only;
 * negative says whether the value was negative (for up/down). */
double
nk_quant_round_mag (const NkQuantElem *el,
                    double             a,
                    gboolean           negative,
                    NkRoundingMode     mode,
                    guint32            u)
{
  double quantum, t, lo, frac;
  gboolean away;

  if (a >= el->max)
    return el->max;
  if (el->is_int)
    quantum = ldexp (1.0, -(int) el->m);
  else
    quantum = ldexp (1.0, MAX (a > 0.0 ? ilogb (a) : el->emin, el->emin) - (int) el->m);
  t = a / quantum;              /* exact: a power of two */
  lo = floor (t);
  frac = t - lo;                /* exact */
  if (frac == 0.0)
    return a;
  switch (mode)
    {
    case NK_ROUNDING_MODE_UP:
      away = !negative;
      break;
    case NK_ROUNDING_MODE_DOWN:
      away = negative;
      break;
    case NK_ROUNDING_MODE_TOWARD_ZERO:
      away = FALSE;
      break;
    case NK_ROUNDING_MODE_STOCHASTIC:
      away = (double) u < frac * 4294967296.0;
      break;
    case NK_ROUNDING_MODE_NEAREST_EVEN:
    default:
      away = frac > 0.5 || (frac == 0.5 && fmod (lo, 2.0) != 0.0);
      break;
    }
  return MIN ((lo + (away ? 1.0 : 0.0)) * quantum, el->max);
}

/* The code of an element value r (a grid point, |r| ≤ max) with sign. */
guint32
nk_quant_encode (const NkQuantElem *el,
                 double             r,
                 gboolean           negative)
{
  guint32 mag;

  if (el->is_int)
    return (guint32) ((gint32) (negative ? -r * 64.0 : r * 64.0)) & 0xff;
  if (r == 0.0)
    mag = 0;
  else
    {
      int e = ilogb (r);

      if (e < el->emin)
        mag = (guint32) ldexp (r, (int) el->m - el->emin);
      else
        mag = ((guint32) (e + el->bias) << el->m)
              | ((guint32) ldexp (r, (int) el->m - e) & ((1u << el->m) - 1));
    }
  return mag | ((negative ? 1u : 0u) << (el->e + el->m));
}

/* NVFP4's tensor scale: the float32 nearest amax / (6 × 448) (the double
 * quotient of a float amax is never a float midpoint: 1/21 in binary repeats
 * 000011). */
float
nk_quant_nvfp4_tensor_scale (double amax)
{
  return (float) (amax / (6.0 * 448.0));
}

/* NVFP4's block scale s_b = e4m3(amax_block / (6 s_t)), nearest-even, saturated;
 * 0 where s_t is 0. */
double
nk_quant_nvfp4_block_scale (double amax_block,
                            float  s_t)
{
  if (s_t == 0.0f)
    return 0.0;
  return nk_quant_round_mag (&nk_quant_e4m3, amax_block / (6.0 * s_t), FALSE,
                             NK_ROUNDING_MODE_NEAREST_EVEN, 0);
}

/* The quantization object */

struct _NkQuantization {
  gatomicrefcount    ref;
  NkBlockFormat      format;
  guint              block;
  NkMxScaleRule      rule;
  NkRoundingMode     rounding;
  gsize              n_values;
  guint              n_blocks;
  double             tensor_scale;
  NkQuantizeBlock   *blocks;
  NkQuantizeElement *elements;
  NkQuantizeSummary  summary;
};

G_DEFINE_BOXED_TYPE (NkQuantization, nk_quantization,
                     nk_quantization_ref, nk_quantization_unref)

static gboolean
check_input (NkBlockFormat  format,
             const double  *values,
             gsize          n_values,
             guint          block,
             GError       **error)
{
  if (block == 0)
    {
      g_set_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_BLOCK,
                   "the block size must be at least 1");
      return FALSE;
    }
  for (gsize i = 0; i < n_values; i++)
    {
      if (!isfinite (values[i]))
        {
          g_set_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_NOT_FINITE,
                       "value %" G_GSIZE_FORMAT " (counting from 0) is %s; only finite "
                       "values can be quantized", i,
                       isnan (values[i]) ? "nan" : values[i] > 0 ? "inf" : "-inf");
          return FALSE;
        }
      if (format == NK_BLOCK_FORMAT_NVFP4 && fabs (values[i]) > FLT_MAX)
        {
          g_set_error (error, NK_QUANTIZE_ERROR, NK_QUANTIZE_ERROR_RANGE,
                       "value %" G_GSIZE_FORMAT " (counting from 0) is %g, beyond the "
                       "float32 range of nvfp4's tensor scale", i, values[i]);
          return FALSE;
        }
    }
  return TRUE;
}

/* One block: its scale, then its elements. */
static void
quantize_block (NkQuantization *self,
                const double   *values,
                guint           b,
                NkRng          *rng)
{
  const NkQuantElem *el = &elems[self->format];
  NkQuantizeBlock *blk = &self->blocks[b];
  double mul;

  blk->index = b;
  blk->start = (gsize) b * self->block;
  blk->length = (guint) MIN ((gsize) self->block, self->n_values - blk->start);
  for (guint i = 0; i < blk->length; i++)
    if (fabs (values[blk->start + i]) > blk->amax || i == 0)
      {
        blk->amax = fabs (values[blk->start + i]);
        blk->amax_index = blk->start + i;
      }
  if (self->format == NK_BLOCK_FORMAT_NVFP4)
    {
      blk->scale = nk_quant_nvfp4_block_scale (blk->amax, (float) self->tensor_scale);
      blk->scale_bits = nk_quant_encode (&nk_quant_e4m3, blk->scale, FALSE);
      mul = blk->scale * self->tensor_scale;
    }
  else
    {
      int e = nk_quant_mx_exponent (self->format, blk->amax, self->rule);

      blk->scale = ldexp (1.0, e);
      blk->scale_bits = (guint32) (e + 127);
      mul = blk->scale;
    }

  for (guint i = 0; i < blk->length; i++)
    {
      NkQuantizeElement *el_out = &self->elements[blk->start + i];
      double v = values[blk->start + i];
      gboolean negative = signbit (v) != 0;
      guint32 u = self->rounding == NK_ROUNDING_MODE_STOCHASTIC ? nk_rng_next_u32 (rng) : 0;
      double a = mul == 0.0 ? 0.0 : fabs (v) / mul;
      double r = nk_quant_round_mag (el, a, negative, self->rounding, u);

      el_out->input = v;
      el_out->block = b;
      el_out->code = nk_quant_encode (el, r, negative);
      el_out->element = negative ? -r : r;
      el_out->value = el_out->element * mul;
      el_out->abs_error = v - el_out->value;
      if (el_out->value == v)
        el_out->change = NK_QUANTIZE_EXACT;
      else if (r == 0.0)
        el_out->change = NK_QUANTIZE_FLUSHED;
      else if (a > el->max)
        el_out->change = NK_QUANTIZE_CLIPPED;
      else
        el_out->change = NK_QUANTIZE_ROUNDED;
      blk->n_flushed += el_out->change == NK_QUANTIZE_FLUSHED;
      blk->n_clipped += el_out->change == NK_QUANTIZE_CLIPPED;
    }
}

static void
summarize (NkQuantization *self)
{
  NkQuantizeSummary *s = &self->summary;
  double sum_sq = 0.0;

  for (gsize i = 0; i < self->n_values; i++)
    s->max_abs = MAX (s->max_abs, fabs (self->elements[i].abs_error));
  for (gsize i = 0; i < self->n_values; i++)
    {
      const NkQuantizeElement *e = &self->elements[i];
      double err = fabs (e->abs_error);

      /* scaled by max_abs so that errors of 1e300 do not overflow */
      if (s->max_abs > 0.0)
        sum_sq += (err / s->max_abs) * (err / s->max_abs);
      if (e->input != 0.0)
        s->max_rel = MAX (s->max_rel, err / fabs (e->input));
      switch (e->change)
        {
        case NK_QUANTIZE_EXACT: s->n_exact++; break;
        case NK_QUANTIZE_ROUNDED: s->n_rounded++; break;
        case NK_QUANTIZE_FLUSHED: s->n_flushed++; break;
        case NK_QUANTIZE_CLIPPED: s->n_clipped++; break;
        default: break;
        }
    }
  s->rmse = self->n_values > 0 ? s->max_abs * sqrt (sum_sq / self->n_values) : 0.0;
}

/**
 * nk_quantize:
 * @format: the block format
 * @values: (array length=n_values): the vector, every value finite
 * @n_values: its length (0 gives an empty quantization)
 * @block: elements per block, at least 1 (CLI.md's defaults: 32, NVFP4 16;
 *   see #NkBlockFormatInfo.default_block)
 * @rule: how an MX block's scale is picked (NVFP4 ignores it)
 * @rounding: how elements are rounded (the scales always round as the top of
 *   nk-quantize.h says)
 * @rng: (nullable): the generator stochastic rounding draws one 32-bit word
 *   from per element, in order; required for %NK_ROUNDING_MODE_STOCHASTIC
 * @error: return location for a #NkQuantizeError
 *
 * Quantizes @values to @format in consecutive blocks of @block, keeping every
 * block's scale and every element's code, value, error and change. A short
 * last block is a block of its own.
 *
 * Returns: (transfer full) (nullable): the quantization, or %NULL with @error
 *   set (a non-finite value, named by its index; a block size of 0; an NVFP4
 *   value beyond float32)
 */
NkQuantization *
nk_quantize (NkBlockFormat   format,
             const double   *values,
             gsize           n_values,
             guint           block,
             NkMxScaleRule   rule,
             NkRoundingMode  rounding,
             NkRng          *rng,
             GError        **error)
{
  NkQuantization *self;

  g_return_val_if_fail ((guint) format < NK_N_BLOCK_FORMATS, NULL);
  g_return_val_if_fail (values != NULL || n_values == 0, NULL);
  g_return_val_if_fail (rounding != NK_ROUNDING_MODE_STOCHASTIC || rng != NULL, NULL);

  if (!check_input (format, values, n_values, block, error))
    return NULL;

  self = g_new0 (NkQuantization, 1);
  g_atomic_ref_count_init (&self->ref);
  self->format = format;
  self->block = block;
  self->rule = rule;
  self->rounding = rounding;
  self->n_values = n_values;
  self->n_blocks = (guint) ((n_values + block - 1) / block);
  self->blocks = g_new0 (NkQuantizeBlock, self->n_blocks);
  self->elements = g_new0 (NkQuantizeElement, n_values);
  if (format == NK_BLOCK_FORMAT_NVFP4)
    {
      double amax = 0.0;

      for (gsize i = 0; i < n_values; i++)
        amax = MAX (amax, fabs (values[i]));
      self->tensor_scale = nk_quant_nvfp4_tensor_scale (amax);
    }
  else
    self->tensor_scale = 1.0;

  for (guint b = 0; b < self->n_blocks; b++)
    quantize_block (self, values, b, rng);
  summarize (self);
  return self;
}

/**
 * nk_quantization_ref:
 * @self: a quantization
 *
 * @self, with one more reference.
 *
 * Returns: (transfer full): @self, with one more reference
 */
NkQuantization *
nk_quantization_ref (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref);
  return self;
}

/**
 * nk_quantization_unref:
 * @self: (transfer full): a quantization
 *
 * Drops a reference; the last one frees it.
 */
void
nk_quantization_unref (NkQuantization *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_ref_count_dec (&self->ref))
    return;
  g_free (self->blocks);
  g_free (self->elements);
  g_free (self);
}

/**
 * nk_quantization_get_format:
 * @self: a quantization
 *
 * The block format.
 *
 * Returns: the block format
 */
NkBlockFormat
nk_quantization_get_format (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, NK_BLOCK_FORMAT_MXFP8_E4M3);
  return self->format;
}

/**
 * nk_quantization_get_block_size:
 * @self: a quantization
 *
 * Elements per block.
 *
 * Returns: elements per block
 */
guint
nk_quantization_get_block_size (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->block;
}

/**
 * nk_quantization_get_scale_rule:
 * @self: a quantization
 *
 * The MX scale rule it was made with.
 *
 * Returns: the MX scale rule it was made with
 */
NkMxScaleRule
nk_quantization_get_scale_rule (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, NK_MX_SCALE_FLOOR);
  return self->rule;
}

/**
 * nk_quantization_get_rounding:
 * @self: a quantization
 *
 * The element rounding it was made with.
 *
 * Returns: the element rounding it was made with
 */
NkRoundingMode
nk_quantization_get_rounding (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, NK_ROUNDING_MODE_NEAREST_EVEN);
  return self->rounding;
}

/**
 * nk_quantization_get_n_values:
 * @self: a quantization
 *
 * How many values were quantized.
 *
 * Returns: how many values were quantized
 */
gsize
nk_quantization_get_n_values (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_values;
}

/**
 * nk_quantization_get_n_blocks:
 * @self: a quantization
 *
 * How many blocks there are (the last may be short).
 *
 * Returns: how many blocks there are (the last may be short)
 */
guint
nk_quantization_get_n_blocks (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_blocks;
}

/**
 * nk_quantization_get_tensor_scale:
 * @self: a quantization
 *
 * NVFP4's fp32 tensor scale s_t; 1 for MX formats.
 *
 * Returns: NVFP4's fp32 tensor scale s_t; 1 for MX formats
 */
double
nk_quantization_get_tensor_scale (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, 1.0);
  return self->tensor_scale;
}

/**
 * nk_quantization_get_tensor_scale_bits:
 * @self: a quantization
 *
 * The float32 bits of the tensor scale (0x3f800000 for MX formats).
 *
 * Returns: the float32 bits of the tensor scale (0x3f800000 for MX formats)
 */
guint32
nk_quantization_get_tensor_scale_bits (NkQuantization *self)
{
  float f;
  guint32 u;

  g_return_val_if_fail (self != NULL, 0);
  f = (float) self->tensor_scale;
  memcpy (&u, &f, sizeof u);
  return u;
}

/**
 * nk_quantization_get_bits_per_element:
 * @self: a quantization
 *
 * What nk_block_format_bits_per_element() says for its format and block.
 *
 * Returns: what nk_block_format_bits_per_element() says for its format and block
 */
double
nk_quantization_get_bits_per_element (NkQuantization *self)
{
  g_return_val_if_fail (self != NULL, 0.0);
  return nk_block_format_bits_per_element (self->format, self->block);
}

/**
 * nk_quantization_get_block:
 * @self: a quantization
 * @index: a block number, less than nk_quantization_get_n_blocks()
 * @out: (out caller-allocates): the block
 *
 * Whether @index was in range.
 *
 * Returns: whether @index was in range
 */
gboolean
nk_quantization_get_block (NkQuantization  *self,
                           guint            index,
                           NkQuantizeBlock *out)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  if (index >= self->n_blocks)
    return FALSE;
  *out = self->blocks[index];
  return TRUE;
}

/**
 * nk_quantization_get_element:
 * @self: a quantization
 * @index: an element's index in the input
 * @out: (out caller-allocates): the element
 *
 * Whether @index was in range.
 *
 * Returns: whether @index was in range
 */
gboolean
nk_quantization_get_element (NkQuantization    *self,
                             gsize              index,
                             NkQuantizeElement *out)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  if (index >= self->n_values)
    return FALSE;
  *out = self->elements[index];
  return TRUE;
}

/**
 * nk_quantization_get_summary:
 * @self: a quantization
 * @out: (out caller-allocates): the error against the input and the counts of
 *   each #NkQuantizeChange
 *
 * The whole vector's error (max abs, rmse, max rel) and how many elements were
 * exact, rounded, flushed to zero and clipped.
 */
void
nk_quantization_get_summary (NkQuantization    *self,
                             NkQuantizeSummary *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);
  *out = self->summary;
}

/**
 * nk_quantization_format_code:
 * @self: a quantization
 * @code: an element code
 *
 * @code in lowercase hex, 0x-prefixed, as wide as the element (0x7e, 0x3f, 0x7).
 *
 * Returns: (transfer full): @code in lowercase hex, 0x-prefixed, as wide as the
 *   element (0x7e, 0x3f, 0x7)
 */
char *
nk_quantization_format_code (NkQuantization *self,
                             guint32         code)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_strdup_printf ("0x%0*x", (int) (formats[self->format].element_bits + 3) / 4, code);
}
