/* nk-dtype.h: number formats: bit layouts, exact encode/decode, limits, bulk conversion
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every floating-point format here is one row of a table: total bits, exponent
 * bits E, mantissa (fraction) bits M, bias, and how it spells infinities and NaN.
 * A bit pattern  s | e (E bits) | f (M bits)  means
 *
 *     e == 0                  (−1)^s × 0.f × 2^(1 − bias)     zero or subnormal
 *     0 < e < all ones        (−1)^s × 1.f × 2^(e − bias)     normal
 *     e == all ones           inf (f == 0) or NaN (f != 0)     IEEE formats
 *
 * except OCP FP8 E4M3 ("e4m3fn"): it has no infinities, the all-ones exponent
 * holds normal numbers, and only s.1111.111 (0x7f, 0xff) is NaN — its max is 448.
 *
 * Every value of every format here is a dyadic rational that a double holds
 * exactly, so decoding is exact; encoding rounds once, to nearest, ties to even.
 *
 * NaN: every conversion here turns a NaN into the format's canonical quiet NaN
 * with the same sign and no payload (f32 0x7fc00000, f16 0x7e00, bf16 0x7fc0,
 * e5m2 0x7e, e4m3 0x7f; ORed with the sign bit). The bulk paths do the same, so
 * that bulk and scalar conversion agree on all inputs.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"

G_BEGIN_DECLS

#define NK_DTYPE_ERROR (nk_dtype_error_quark ())

/**
 * NkDTypeError:
 * @NK_DTYPE_ERROR_EMPTY: an item or dtype name was empty
 * @NK_DTYPE_ERROR_INVALID: not a number, not hex bits
 * @NK_DTYPE_ERROR_TOO_WIDE: hex bits do not fit the format
 * @NK_DTYPE_ERROR_UNKNOWN: not a dtype name
 *
 * Why a name or an item that a person typed was refused (nk_dtype_from_name(),
 * nk_dtype_parse_item()).
 */
typedef enum {
  NK_DTYPE_ERROR_EMPTY,
  NK_DTYPE_ERROR_INVALID,
  NK_DTYPE_ERROR_TOO_WIDE,
  NK_DTYPE_ERROR_UNKNOWN,
} NkDTypeError;

NK_AVAILABLE_IN_ALL
GQuark nk_dtype_error_quark (void);

/**
 * NkDType:
 * @NK_DTYPE_F32: IEEE 754 binary32 (PyTorch's float32)
 * @NK_DTYPE_F16: IEEE 754 binary16 (float16)
 * @NK_DTYPE_BF16: bfloat16: float32's 8 exponent bits, 7 fraction bits
 * @NK_DTYPE_E4M3: OCP FP8 E4M3 ("e4m3fn"): no infinities, max 448
 * @NK_DTYPE_E5M2: OCP FP8 E5M2, IEEE-like with infinities
 * @NK_DTYPE_F64: IEEE 754 binary64 (float64)
 * @NK_DTYPE_TF32: NVIDIA TensorFloat-32, a 19-bit compute format stored in a float32
 * @NK_DTYPE_INT64: signed 64-bit integers (PyTorch's int64, token ids)
 * @NK_DTYPE_INT32: signed 32-bit integers
 * @NK_DTYPE_UINT16: unsigned 16-bit integers (GPT-2 token streams)
 *
 * A number format: one row of the format table (nk_dtype_info()), which every
 * other fact in nk-dtype is computed from.
 */
typedef enum {
  NK_DTYPE_F32,
  NK_DTYPE_F16,
  NK_DTYPE_BF16,
  NK_DTYPE_E4M3,
  NK_DTYPE_E5M2,
  NK_DTYPE_F64,
  NK_DTYPE_TF32,
  NK_DTYPE_INT64,
  NK_DTYPE_INT32,
  NK_DTYPE_UINT16,
  NK_N_DTYPES /*< skip >*/
} NkDType;

/**
 * NkNanStyle:
 * @NK_NAN_NONE: no NaN (integers)
 * @NK_NAN_IEEE: exponent all ones, fraction not zero
 * @NK_NAN_ALL_ONES: only s.1…1.1…1 (E4M3FN)
 *
 * How a format spells NaN.
 */
typedef enum {
  NK_NAN_NONE,
  NK_NAN_IEEE,
  NK_NAN_ALL_ONES,
} NkNanStyle;

/**
 * NkOverflow:
 * @NK_OVERFLOW_DEFAULT: like PyTorch and ml_dtypes: ±inf; NaN where there is no
 *   inf (e4m3)
 * @NK_OVERFLOW_SATURATE: like CUDA's satfinite: ±max (infinities too); NaN stays NaN
 *
 * What happens to a value beyond the largest finite magnitude (CLI.md's --saturate).
 */
typedef enum {
  NK_OVERFLOW_DEFAULT,
  NK_OVERFLOW_SATURATE,
} NkOverflow;

/**
 * NkDTypeClass:
 * @NK_DTYPE_CLASS_ZERO: ±0
 * @NK_DTYPE_CLASS_SUBNORMAL: exponent field 0, fraction not zero: 0.f × 2^(1 − bias)
 * @NK_DTYPE_CLASS_NORMAL: 1.f × 2^(e − bias)
 * @NK_DTYPE_CLASS_INF: ±infinity
 * @NK_DTYPE_CLASS_NAN: not a number
 *
 * Which rule of the top of nk-dtype.h a bit pattern is read by.
 */
typedef enum {
  NK_DTYPE_CLASS_ZERO,
  NK_DTYPE_CLASS_SUBNORMAL,
  NK_DTYPE_CLASS_NORMAL,
  NK_DTYPE_CLASS_INF,
  NK_DTYPE_CLASS_NAN,
} NkDTypeClass;

/**
 * NkDTypeInfo:
 * @name: the PyTorch-style name, e.g. "bfloat16"
 * @cli_name: the canonical CLI name, e.g. "bf16"
 * @aliases: (array zero-terminated=1): other names CLI.md accepts
 * @title: a short human title, e.g. "OCP FP8 E4M3"
 * @bits: total width in bits (tf32: 19)
 * @exponent_bits: E (0 for integers)
 * @mantissa_bits: M, the stored fraction bits (integers: value bits)
 * @bias: exponent bias
 * @is_float: whether the format is floating point
 * @is_signed: whether there is a sign bit
 * @has_inf: whether infinities exist
 * @nan_style: how NaN is spelled
 * @nan_encodings: a human description of the NaN patterns
 * @is_storage: whether tensors store it (tf32 is a compute format only)
 * @element_size: bytes per stored element (tf32: the 4 bytes of the f32 it lives in)
 *
 * One row of the format table: every other fact in this module is computed from it.
 */
typedef struct {
  const char        *name;
  const char        *cli_name;
  const char *const *aliases;
  const char        *title;
  guint              bits;
  guint              exponent_bits;
  guint              mantissa_bits;
  int                bias;
  gboolean           is_float;
  gboolean           is_signed;
  gboolean           has_inf;
  NkNanStyle         nan_style;
  const char        *nan_encodings;
  gboolean           is_storage;
  gsize              element_size;
} NkDTypeInfo;

/**
 * NkDTypeDecoded:
 * @dtype: the format
 * @bits: the pattern
 * @klass: zero, subnormal, normal, inf or NaN
 * @sign: 0 or 1
 * @biased_exponent: the raw exponent field e
 * @exponent: the unbiased exponent e − bias; 1 − bias for zeros and subnormals;
 *   0 for inf and NaN
 * @mantissa: the raw fraction field f
 * @significand: 1.f for normals, 0.f for zeros and subnormals (0 for inf/NaN)
 * @value: the exact value
 *
 * A bit pattern taken apart into its fields (nk_dtype_decode()).
 */
typedef struct {
  NkDType      dtype;
  guint64      bits;
  NkDTypeClass klass;
  guint        sign;
  guint        biased_exponent;
  int          exponent;
  guint64      mantissa;
  double       significand;
  double       value;
} NkDTypeDecoded;

/**
 * NkDTypeLimits:
 * @max: largest finite value
 * @min_normal: smallest positive normal value
 * @min_subnormal: smallest positive value
 * @epsilon: the gap between 1 and the next value, 2^−M
 * @max_exponent: unbiased exponent of @max
 * @min_exponent: unbiased exponent of @min_normal, 1 − bias
 * @precision: decimal digits always preserved, floor(−log10 @epsilon) (numpy's finfo.precision)
 * @decimal_digits: the significand's width in decimal digits, (M + 1) × log10 2
 * @range_decades: log10 (@max / @min_normal), the normal dynamic range in powers of ten
 * @range_decades_subnormal: log10 (@max / @min_subnormal), with gradual underflow
 *
 * The finfo of a format, computed from its table row.
 */
typedef struct {
  double max;
  double min_normal;
  double min_subnormal;
  double epsilon;
  int    max_exponent;
  int    min_exponent;
  int    precision;
  double decimal_digits;
  double range_decades;
  double range_decades_subnormal;
} NkDTypeLimits;

/**
 * NkRoundingStatus:
 * @NK_ROUNDING_EXACT: the format holds the value (NaN stays NaN)
 * @NK_ROUNDING_ROUNDED: rounded to a nearby normal value
 * @NK_ROUNDING_UNDERFLOW_TO_ZERO: too small: became ±0
 * @NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL: rounded to a subnormal: fewer significant bits
 * @NK_ROUNDING_OVERFLOW_TO_INF: too large: became ±inf
 * @NK_ROUNDING_OVERFLOW_TO_NAN: too large, no infinity in the format: became NaN
 * @NK_ROUNDING_SATURATED: too large (or ±inf): clamped to ±max
 *
 * What rounding one value into a format did to it (nk_dtype_round()).
 */
typedef enum {
  NK_ROUNDING_EXACT,
  NK_ROUNDING_ROUNDED,
  NK_ROUNDING_UNDERFLOW_TO_ZERO,
  NK_ROUNDING_UNDERFLOW_TO_SUBNORMAL,
  NK_ROUNDING_OVERFLOW_TO_INF,
  NK_ROUNDING_OVERFLOW_TO_NAN,
  NK_ROUNDING_SATURATED,
} NkRoundingStatus;

/**
 * NkDTypeRounding:
 * @bits: the pattern the value rounds to, as nk_dtype_encode() gives it
 * @value: the exact value of @bits
 * @abs_error: the input minus @value (CLI.md's abs_error)
 * @rel_error: @abs_error over |input| (CLI.md's rel_error)
 * @status: what the rounding did
 *
 * One value rounded into a format, with the error it took on the way.
 */
typedef struct {
  guint64          bits;
  double           value;
  double           abs_error;
  double           rel_error;
  NkRoundingStatus status;
} NkDTypeRounding;

/**
 * NkDTypeItem:
 * @is_bits: whether the item was raw bits ("0x7e") rather than a value
 * @bits: the pattern, when @is_bits
 * @value: the value, when not @is_bits
 *
 * One parsed ITEM of CLI.md (nk_dtype_parse_item()): either a value or raw bits.
 */
typedef struct {
  gboolean is_bits;
  guint64  bits;
  double   value;
} NkDTypeItem;

/**
 * NkFormulaStyle:
 * @NK_FORMULA_DECIMAL: the significand as a decimal: 1.5
 * @NK_FORMULA_BINARY: the significand in binary: 1.100₂
 *
 * How nk_dtype_formula() writes the significand.
 */
typedef enum {
  NK_FORMULA_DECIMAL,
  NK_FORMULA_BINARY,
} NkFormulaStyle;

/* The table */
NK_AVAILABLE_IN_ALL
const NkDTypeInfo *nk_dtype_info            (NkDType        dtype);
NK_AVAILABLE_IN_ALL
gboolean           nk_dtype_from_name       (const char    *name,
                                             NkDType       *out_dtype,
                                             GError       **error);
NK_AVAILABLE_IN_ALL
gsize              nk_dtype_element_size    (NkDType        dtype);
NK_AVAILABLE_IN_ALL
const char        *nk_dtype_class_to_string (NkDTypeClass   klass);
NK_AVAILABLE_IN_ALL
const char        *nk_dtype_class_display_name (NkDTypeClass klass);
NK_AVAILABLE_IN_ALL
gboolean           nk_dtype_is_float        (NkDType        dtype);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_bits_mask       (NkDType        dtype);

/* One value */
NK_AVAILABLE_IN_ALL
gboolean           nk_dtype_decode          (NkDType         dtype,
                                             guint64         bits,
                                             NkDTypeDecoded *out);
NK_AVAILABLE_IN_ALL
double             nk_dtype_to_double       (NkDType         dtype,
                                             guint64         bits);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_encode          (NkDType         dtype,
                                             double          value,
                                             NkOverflow      overflow);
NK_AVAILABLE_IN_ALL
gboolean           nk_dtype_round           (NkDType          dtype,
                                             double           value,
                                             NkOverflow       overflow,
                                             NkDTypeRounding *out);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_nan_bits        (NkDType         dtype,
                                             guint           sign);
/* One element of any storage dtype in host memory (integers too), exactly */
NK_AVAILABLE_IN_ALL
double             nk_dtype_load_double     (NkDType         dtype,
                                             gconstpointer   ptr);
NK_AVAILABLE_IN_ALL
void               nk_dtype_store_double    (NkDType         dtype,
                                             gpointer        ptr,
                                             double          value);
NK_AVAILABLE_IN_ALL
char              *nk_dtype_exact_decimal   (NkDType         dtype,
                                             guint64         bits);
NK_AVAILABLE_IN_ALL
char              *nk_dtype_exact_decimal_double (double     value);
NK_AVAILABLE_IN_ALL
char              *nk_dtype_format_bits     (NkDType         dtype,
                                             guint64         bits);
NK_AVAILABLE_IN_ALL
char              *nk_dtype_format_binary   (NkDType         dtype,
                                             guint64         bits,
                                             const char     *separator);
NK_AVAILABLE_IN_ALL
char              *nk_dtype_formula         (NkDType         dtype,
                                             guint64         bits,
                                             NkFormulaStyle  style);

/* Neighbours and limits */
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_next_up         (NkDType         dtype,
                                             guint64         bits);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_next_down       (NkDType         dtype,
                                             guint64         bits);
NK_AVAILABLE_IN_ALL
double             nk_dtype_ulp             (NkDType         dtype,
                                             double          value);
NK_AVAILABLE_IN_ALL
void               nk_dtype_limits          (NkDType         dtype,
                                             NkDTypeLimits  *out);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_max_bits        (NkDType         dtype);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_min_normal_bits (NkDType         dtype);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_min_subnormal_bits (NkDType      dtype);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_one_bits        (NkDType         dtype);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_epsilon_bits    (NkDType         dtype);

/* Items as people type them: "1e-8", "-0", "inf", "nan", "pi", "e", "0x7e" */
NK_AVAILABLE_IN_ALL
gboolean           nk_dtype_parse_item      (NkDType         dtype,
                                             const char     *text,
                                             NkDTypeItem    *out,
                                             GError        **error);

/* Bulk conversion of float32 arrays (f32, f16, bf16, e4m3, e5m2) */
NK_AVAILABLE_IN_ALL
void               nk_dtype_convert_from_f32 (NkDType        dtype,
                                              const float   *src,
                                              void          *dst,
                                              gsize          n,
                                              NkOverflow     overflow);
NK_AVAILABLE_IN_ALL
void               nk_dtype_convert_to_f32   (NkDType        dtype,
                                              const void    *src,
                                              float         *dst,
                                              gsize          n);
NK_AVAILABLE_IN_ALL
const char        *nk_dtype_bulk_path        (NkDType        dtype);
NK_AVAILABLE_IN_ALL
void               nk_dtype_bulk_force_portable (gboolean     portable);

G_END_DECLS
