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
 * The low-precision element formats follow the same layout with other rules:
 * the OCP MX v1.0 elements fp6 e3m2 (bias 3, max 28), fp6 e2m3 (bias 1, max 7.5)
 * and fp4 e2m1 (bias 1, max 6) have no inf and no NaN: every pattern is a number
 * and the all-ones exponent holds normals. AMD's e4m3fnuz and e5m2fnuz (bias 8
 * and 16) have no inf and no −0: the one NaN is 0x80 (sign 1, all else 0), and
 * the all-ones exponent holds normals (max 240 and 57344). E8M0, the MX scale,
 * has no sign and no fraction: bits b mean 2^(b − 127) for b in 0..254 (no zero,
 * no subnormals) and 0xff is NaN.
 *
 * Every value of every format here is a dyadic rational that a double holds
 * exactly, so decoding is exact; encoding rounds once, to nearest, ties to even.
 *
 * NaN: every conversion here turns a NaN into the format's canonical quiet NaN
 * with the same sign and no payload (f32 0x7fc00000, f16 0x7e00, bf16 0x7fc0,
 * e5m2 0x7e, e4m3 0x7f; ORed with the sign bit; e4m3fnuz/e5m2fnuz 0x80 and e8m0
 * 0xff, which have no sign). The bulk paths do the same, so that bulk and scalar
 * conversion agree on all inputs.
 *
 * What a format cannot hold at all is %NK_ROUNDING_UNREPRESENTABLE: NaN in
 * fp6/fp4 (it encodes as +max, as CUDA's satfinite conversions give it), and a
 * zero, a negative value or −inf in e8m0 (it encodes as 0xff, NaN).
 *
 * Rounding modes (#NkRoundingMode): nearest-even (nk_dtype_encode()), toward
 * +inf, toward −inf, toward zero, and stochastic. E8M0 is a scale: its
 * nearest-even mode takes the power of two at or below the value, as the OCP MX
 * scale does (floor of log2), and %NK_ROUNDING_MODE_UP the one at or above.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <glib.h>

#include "nk-version-macros.h"
#include "nk-rng.h"

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
 * @NK_DTYPE_FP6_E3M2: OCP MX FP6 E3M2: bias 3, no inf or NaN, max 28
 * @NK_DTYPE_FP6_E2M3: OCP MX FP6 E2M3: bias 1, no inf or NaN, max 7.5
 * @NK_DTYPE_FP4_E2M1: OCP MX FP4 E2M1: bias 1, no inf or NaN, max 6 (NVFP4's element)
 * @NK_DTYPE_E8M0: OCP MX E8M0 scale: 2^(bits − 127), no sign, no zero, 0xff is NaN
 * @NK_DTYPE_E4M3FNUZ: AMD FP8 E4M3 "fnuz": bias 8, no inf, no −0, NaN 0x80, max 240
 * @NK_DTYPE_E5M2FNUZ: AMD FP8 E5M2 "fnuz": bias 16, no inf, no −0, NaN 0x80, max 57344
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
  NK_DTYPE_FP6_E3M2,
  NK_DTYPE_FP6_E2M3,
  NK_DTYPE_FP4_E2M1,
  NK_DTYPE_E8M0,
  NK_DTYPE_E4M3FNUZ,
  NK_DTYPE_E5M2FNUZ,
  NK_N_DTYPES /*< skip >*/
} NkDType;

/**
 * NkNanStyle:
 * @NK_NAN_NONE: no NaN (integers; the fp6 and fp4 elements, whose all-ones
 *   exponent holds normal numbers)
 * @NK_NAN_IEEE: exponent all ones, fraction not zero
 * @NK_NAN_ALL_ONES: only s.1…1.1…1 (E4M3FN; 0xff in E8M0, which has no sign)
 * @NK_NAN_NEGATIVE_ZERO: only the pattern of −0, sign 1 and all else 0 (the
 *   "fnuz" formats: no −0)
 *
 * How a format spells NaN.
 */
typedef enum {
  NK_NAN_NONE,
  NK_NAN_IEEE,
  NK_NAN_ALL_ONES,
  NK_NAN_NEGATIVE_ZERO,
} NkNanStyle;

/**
 * NkOverflow:
 * @NK_OVERFLOW_DEFAULT: like PyTorch and ml_dtypes: ±inf; NaN where there is no
 *   inf (e4m3)
 * @NK_OVERFLOW_SATURATE: like CUDA's satfinite: ±max (infinities too); NaN stays NaN
 *
 * What happens to a value beyond the largest finite magnitude (CLI.md's --saturate).
 * The fp6 and fp4 elements have neither inf nor NaN: they always saturate.
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
 * @NK_DTYPE_CLASS_UNREPRESENTABLE: not a pattern's class but a value's: the
 *   format cannot hold it at all (NaN in fp6/fp4; zero or negative in e8m0)
 *
 * Which rule of the top of nk-dtype.h a bit pattern is read by.
 */
typedef enum {
  NK_DTYPE_CLASS_ZERO,
  NK_DTYPE_CLASS_SUBNORMAL,
  NK_DTYPE_CLASS_NORMAL,
  NK_DTYPE_CLASS_INF,
  NK_DTYPE_CLASS_NAN,
  NK_DTYPE_CLASS_UNREPRESENTABLE,
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
 * @NK_ROUNDING_SATURATED: too large (or ±inf): clamped to ±max; also a value
 *   beyond max that a directed mode rounds toward zero
 * @NK_ROUNDING_UNREPRESENTABLE: the format cannot hold the value at all (NaN in
 *   fp6/fp4; zero, negative or −inf in e8m0); the bits are a stand-in (see the
 *   top of nk-dtype.h)
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
  NK_ROUNDING_UNREPRESENTABLE,
} NkRoundingStatus;

/**
 * NkRoundingMode:
 * @NK_ROUNDING_MODE_NEAREST_EVEN: to the nearest value, ties to the even pattern
 *   (IEEE's default; nk_dtype_encode()); e8m0: the power of two at or below
 * @NK_ROUNDING_MODE_UP: toward +inf (ceiling)
 * @NK_ROUNDING_MODE_DOWN: toward −inf (floor)
 * @NK_ROUNDING_MODE_TOWARD_ZERO: toward zero (truncation)
 * @NK_ROUNDING_MODE_STOCHASTIC: to one of the two neighbouring values, the one
 *   above with probability (value − below) / (above − below), one draw of the
 *   #NkRng per value
 *
 * How nk_dtype_round_with_mode() picks between the two representable values
 * around a value; the nicks are CLI.md's --rounding names (nearest, up, down,
 * zero, stochastic).
 *
 * Overflow follows IEEE 754 (§7.4): when the value rounded with an unbounded
 * exponent passes the largest finite magnitude, a mode that rounds this value
 * toward zero (zero; down for a positive value, up for a negative one) gives ±max
 * (%NK_ROUNDING_SATURATED), and the others (nearest, stochastic, away from zero)
 * follow #NkOverflow: ±inf, NaN where the format has no inf, ±max with
 * %NK_OVERFLOW_SATURATE (fp6/fp4 always ±max). So round-down of 1e9 in f16 is
 * 65504 and round-up is +inf. Infinities, NaN and zeros are not rounded: they
 * convert as nk_dtype_encode() converts them in every mode.
 */
typedef enum {
  NK_ROUNDING_MODE_NEAREST_EVEN, /*< nick=nearest >*/
  NK_ROUNDING_MODE_UP,           /*< nick=up >*/
  NK_ROUNDING_MODE_DOWN,         /*< nick=down >*/
  NK_ROUNDING_MODE_TOWARD_ZERO,  /*< nick=zero >*/
  NK_ROUNDING_MODE_STOCHASTIC,   /*< nick=stochastic >*/
} NkRoundingMode;

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
gboolean           nk_dtype_round_with_mode (NkDType          dtype,
                                             double           value,
                                             NkOverflow       overflow,
                                             NkRoundingMode   mode,
                                             NkRng           *rng,
                                             NkDTypeRounding *out);
NK_AVAILABLE_IN_ALL
guint64            nk_dtype_encode_with_mode (NkDType        dtype,
                                              double         value,
                                              NkOverflow     overflow,
                                              NkRoundingMode mode,
                                              NkRng         *rng);
NK_AVAILABLE_IN_ALL
const char        *nk_rounding_mode_to_string (NkRoundingMode mode);
NK_AVAILABLE_IN_ALL
gboolean           nk_rounding_mode_from_string (const char     *name,
                                                 NkRoundingMode *out_mode);
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

/* Bulk conversion of float32 arrays (f32, f16, bf16, the fp8, fp6 and fp4 formats, e8m0) */
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
