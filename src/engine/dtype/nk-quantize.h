/* nk-quantize.h: block-scaled formats (OCP Microscaling MX v1.0, NVIDIA NVFP4)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A block format stores a vector as consecutive blocks of narrow elements that
 * share one scale (CLI.md, "napkin-cli quantize"):
 *
 * MX (OCP Microscaling v1.0): blocks of 32 (any size here) share an E8M0 scale
 *     X = 2^(floor(log2(amax)) − emax), clamped to [2^−127, 2^127],
 * emax being the exponent of the element format's largest normal (e4m3 8,
 * e5m2 15, e3m2 4, e2m3 2, e2m1 2; mxint8: elements are signed 8-bit fixed
 * point k/64 with emax 0, saturated at ±127/64). Each element is v / X rounded
 * to the element format and saturated at ±max. With %NK_MX_SCALE_UP, X is the
 * smallest power of two with amax / X ≤ the element maximum, so no element
 * clips (NVIDIA's MXFP8 training recipe). An all-zero block has X = 2^−127.
 *
 * NVFP4: blocks of 16 E2M1 elements, a per-tensor fp32 scale
 * s_t = amax_tensor / (6 × 448), a per-block E4M3 scale
 * s_b = e4m3(amax_block / (6 × s_t)) (nearest-even), elements e2m1(v / (s_b × s_t)).
 * Where s_t or s_b is zero the block's codes are zero.
 *
 * nk_quantize() is the path for people: per block the scale and its bits and
 * the block's largest magnitude; per element the code, the dequantized value,
 * the error and why it changed (#NkQuantizeChange). nk_quantize_fake_f32() is
 * the path for training: float32 in, the dequantized float32 out, one pass,
 * with the same answers bit for bit on float32 input.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib-object.h>

#include "nk-dtype.h"
#include "nk-rng.h"
#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_QUANTIZE_ERROR (nk_quantize_error_quark ())

/**
 * NkQuantizeError:
 * @NK_QUANTIZE_ERROR_NOT_FINITE: an input value is NaN or infinite
 * @NK_QUANTIZE_ERROR_BLOCK: the block size is zero
 * @NK_QUANTIZE_ERROR_RANGE: an input is beyond what the format's fp32 tensor
 *   scale can describe (NVFP4, |v| above the largest float32)
 * @NK_QUANTIZE_ERROR_UNKNOWN: not a block format or scale rule name
 *
 * Why nk_quantize() or a name lookup refused its input.
 */
typedef enum {
  NK_QUANTIZE_ERROR_NOT_FINITE,
  NK_QUANTIZE_ERROR_BLOCK,
  NK_QUANTIZE_ERROR_RANGE,
  NK_QUANTIZE_ERROR_UNKNOWN,
} NkQuantizeError;

NK_AVAILABLE_IN_ALL
GQuark nk_quantize_error_quark (void);

/**
 * NkBlockFormat:
 * @NK_BLOCK_FORMAT_MXFP8_E4M3: OCP MXFP8 with E4M3 elements (max 448)
 * @NK_BLOCK_FORMAT_MXFP8_E5M2: OCP MXFP8 with E5M2 elements (max 57344)
 * @NK_BLOCK_FORMAT_MXFP6_E3M2: OCP MXFP6 with E3M2 elements (max 28)
 * @NK_BLOCK_FORMAT_MXFP6_E2M3: OCP MXFP6 with E2M3 elements (max 7.5)
 * @NK_BLOCK_FORMAT_MXFP4: OCP MXFP4, E2M1 elements (max 6)
 * @NK_BLOCK_FORMAT_MXINT8: OCP MXINT8, signed 8-bit fixed point k/64 (max 127/64)
 * @NK_BLOCK_FORMAT_NVFP4: NVIDIA NVFP4: E2M1 elements, E4M3 block scales, an fp32
 *   tensor scale
 *
 * A block-scaled format; the nicks are CLI.md's names (mxfp8-e4m3 …).
 */
typedef enum {
  NK_BLOCK_FORMAT_MXFP8_E4M3,
  NK_BLOCK_FORMAT_MXFP8_E5M2,
  NK_BLOCK_FORMAT_MXFP6_E3M2,
  NK_BLOCK_FORMAT_MXFP6_E2M3,
  NK_BLOCK_FORMAT_MXFP4,
  NK_BLOCK_FORMAT_MXINT8,
  NK_BLOCK_FORMAT_NVFP4,
  NK_N_BLOCK_FORMATS /*< skip >*/
} NkBlockFormat;

/**
 * NkMxScaleRule:
 * @NK_MX_SCALE_FLOOR: OCP v1.0: X = 2^(floor(log2 amax) − emax); the largest
 *   element may clip (by up to 12.5 % in e4m3)
 * @NK_MX_SCALE_UP: the smallest power of two with amax / X ≤ the element
 *   maximum: nothing clips (NVIDIA's MXFP8 recipe)
 *
 * How an MX block's E8M0 scale is picked from its largest magnitude (CLI.md's
 * --scale-rounding; NVFP4 ignores it).
 */
typedef enum {
  NK_MX_SCALE_FLOOR,
  NK_MX_SCALE_UP,
} NkMxScaleRule;

/**
 * NkQuantizeChange:
 * @NK_QUANTIZE_EXACT: the dequantized value equals the input
 * @NK_QUANTIZE_ROUNDED: rounded to a nearby element value
 * @NK_QUANTIZE_FLUSHED: a nonzero input became 0 (the block's scale is too
 *   large for it: its largest value set the scale)
 * @NK_QUANTIZE_CLIPPED: |v| / scale was beyond the element maximum: saturated
 *   at ±max × scale
 *
 * What quantizing did to one element.
 */
typedef enum {
  NK_QUANTIZE_EXACT,
  NK_QUANTIZE_ROUNDED,
  NK_QUANTIZE_FLUSHED,
  NK_QUANTIZE_CLIPPED,
} NkQuantizeChange;

/**
 * NkQuantizeStats:
 * @elements: elements quantized
 * @flushed: nonzero inputs that became zero
 * @clipped: elements saturated at ±max (|v| / scale beyond the element maximum)
 *
 * Counts that nk_quantize_fake_f32() adds to (it never clears them).
 */
typedef struct {
  guint64 elements;
  guint64 flushed;
  guint64 clipped;
} NkQuantizeStats;

/**
 * NkBlockFormatInfo:
 * @name: the CLI name, e.g. "mxfp8-e4m3"
 * @title: a short human title, e.g. "MXFP8 (E4M3)"
 * @element_name: the element format's CLI name for napkin-cli format ("e4m3",
 *   "e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1"; mxint8: "int8")
 * @element_is_int: whether elements are fixed-point integers (mxint8)
 * @element_bits: bits per element (8, 6 or 4)
 * @element_max: the largest element magnitude
 * @element_emax: the exponent of the largest normal (mxint8: 0)
 * @scale_bits: bits per block scale (8: E8M0 or E4M3)
 * @scale_dtype_name: the scale's format, "e8m0" or "e4m3"
 * @default_block: the block size CLI.md defaults to (32; NVFP4 16)
 *
 * The facts of a block format (nk_block_format_info()).
 */
typedef struct {
  const char *name;
  const char *title;
  const char *element_name;
  gboolean    element_is_int;
  guint       element_bits;
  double      element_max;
  int         element_emax;
  guint       scale_bits;
  const char *scale_dtype_name;
  guint       default_block;
} NkBlockFormatInfo;

/**
 * NkQuantizeBlock:
 * @index: the block's number, from 0
 * @start: the index of its first element in the input
 * @length: how many elements it holds (the last block may be short)
 * @scale: the block scale's value (MX: X; NVFP4: s_b, without the tensor scale)
 * @scale_bits: the scale's bits (E8M0 or E4M3)
 * @amax: the block's largest magnitude, which set the scale
 * @amax_index: the index in the input of the first element with that magnitude
 * @n_flushed: its elements flushed to zero
 * @n_clipped: its elements clipped
 *
 * One block of a #NkQuantization.
 */
typedef struct {
  guint   index;
  gsize   start;
  guint   length;
  double  scale;
  guint32 scale_bits;
  double  amax;
  gsize   amax_index;
  guint   n_flushed;
  guint   n_clipped;
} NkQuantizeBlock;

/**
 * NkQuantizeElement:
 * @input: the value given
 * @code: the element's bits (sign in the top bit of the element width;
 *   mxint8: two's complement byte)
 * @element: the element's own value, before the scale is applied
 * @value: the dequantized value: @element × scale (× tensor scale)
 * @abs_error: @input − @value
 * @change: what quantizing did
 * @block: the index of its block
 *
 * One element of a #NkQuantization.
 */
typedef struct {
  double           input;
  guint32          code;
  double           element;
  double           value;
  double           abs_error;
  NkQuantizeChange change;
  guint            block;
} NkQuantizeElement;

/**
 * NkQuantizeSummary:
 * @max_abs: the largest |input − value|
 * @rmse: the root mean square of input − value
 * @max_rel: the largest |input − value| / |input| over nonzero inputs
 * @n_exact: elements unchanged
 * @n_rounded: elements rounded
 * @n_flushed: elements flushed to zero
 * @n_clipped: elements clipped
 *
 * The error of a whole #NkQuantization against its input (CLI.md's `error`).
 */
typedef struct {
  double max_abs;
  double rmse;
  double max_rel;
  gsize  n_exact;
  gsize  n_rounded;
  gsize  n_flushed;
  gsize  n_clipped;
} NkQuantizeSummary;

/**
 * NkQuantization:
 *
 * A vector quantized to a block format, kept whole for people: every block's
 * scale and every element's code, value and error (nk_quantize()). Immutable and
 * reference counted.
 */
typedef struct _NkQuantization NkQuantization;

#define NK_TYPE_QUANTIZATION (nk_quantization_get_type ())

NK_AVAILABLE_IN_ALL
GType                    nk_quantization_get_type        (void) G_GNUC_CONST;

/* Formats */
NK_AVAILABLE_IN_ALL
const NkBlockFormatInfo *nk_block_format_info            (NkBlockFormat   format);
NK_AVAILABLE_IN_ALL
gboolean                 nk_block_format_from_name       (const char     *name,
                                                          NkBlockFormat  *out_format,
                                                          GError        **error);
NK_AVAILABLE_IN_ALL
double                   nk_block_format_bits_per_element (NkBlockFormat  format,
                                                          guint           block);
NK_AVAILABLE_IN_ALL
gboolean                 nk_mx_scale_rule_from_name      (const char     *name,
                                                          NkMxScaleRule  *out_rule,
                                                          GError        **error);

/* For people */
NK_AVAILABLE_IN_ALL
NkQuantization          *nk_quantize                     (NkBlockFormat   format,
                                                          const double   *values,
                                                          gsize           n_values,
                                                          guint           block,
                                                          NkMxScaleRule   rule,
                                                          NkRoundingMode  rounding,
                                                          NkRng          *rng,
                                                          GError        **error);
NK_AVAILABLE_IN_ALL
NkQuantization          *nk_quantization_ref             (NkQuantization *self);
NK_AVAILABLE_IN_ALL
void                     nk_quantization_unref           (NkQuantization *self);
NK_AVAILABLE_IN_ALL
NkBlockFormat            nk_quantization_get_format      (NkQuantization *self);
NK_AVAILABLE_IN_ALL
guint                    nk_quantization_get_block_size  (NkQuantization *self);
NK_AVAILABLE_IN_ALL
NkMxScaleRule            nk_quantization_get_scale_rule  (NkQuantization *self);
NK_AVAILABLE_IN_ALL
NkRoundingMode           nk_quantization_get_rounding    (NkQuantization *self);
NK_AVAILABLE_IN_ALL
gsize                    nk_quantization_get_n_values    (NkQuantization *self);
NK_AVAILABLE_IN_ALL
guint                    nk_quantization_get_n_blocks    (NkQuantization *self);
NK_AVAILABLE_IN_ALL
double                   nk_quantization_get_tensor_scale (NkQuantization *self);
NK_AVAILABLE_IN_ALL
guint32                  nk_quantization_get_tensor_scale_bits (NkQuantization *self);
NK_AVAILABLE_IN_ALL
double                   nk_quantization_get_bits_per_element (NkQuantization *self);
NK_AVAILABLE_IN_ALL
gboolean                 nk_quantization_get_block       (NkQuantization  *self,
                                                          guint            index,
                                                          NkQuantizeBlock *out);
NK_AVAILABLE_IN_ALL
gboolean                 nk_quantization_get_element     (NkQuantization    *self,
                                                          gsize              index,
                                                          NkQuantizeElement *out);
NK_AVAILABLE_IN_ALL
void                     nk_quantization_get_summary     (NkQuantization    *self,
                                                          NkQuantizeSummary *out);
NK_AVAILABLE_IN_ALL
char                    *nk_quantization_format_code     (NkQuantization *self,
                                                          guint32         code);

/* For training */
NK_AVAILABLE_IN_ALL
void                     nk_quantize_fake_f32            (NkBlockFormat    format,
                                                          const float     *src,
                                                          float           *dst,
                                                          gsize            rows,
                                                          gsize            cols,
                                                          guint            block,
                                                          NkMxScaleRule    rule,
                                                          NkRoundingMode   rounding,
                                                          NkRng           *rng,
                                                          NkQuantizeStats *stats);
NK_AVAILABLE_IN_ALL
void                     nk_quantize_rotate16_f32        (const float     *src,
                                                          float           *dst,
                                                          gsize            n,
                                                          const float     *factors);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NkQuantization, nk_quantization_unref)

G_END_DECLS
