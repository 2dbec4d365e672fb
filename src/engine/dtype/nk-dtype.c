/* nk-dtype.c: number formats: the table, exact decode and encode, limits, items
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-dtype.h"
#include "nk-dtype-private.h"

/**
 * nk_dtype_error_quark:
 *
 * The error domain of text a person typed for a format: names and items.
 *
 * Returns: the #GQuark of %NK_DTYPE_ERROR
 */
G_DEFINE_QUARK (nk-dtype-error-quark, nk_dtype_error)

static const char *const f32_aliases[] = { "fp32", "float32", "float", NULL };
static const char *const f16_aliases[] = { "fp16", "float16", "half", NULL };
static const char *const bf16_aliases[] = { "bfloat16", NULL };
static const char *const e4m3_aliases[] = { "fp8-e4m3", "e4m3fn", "float8_e4m3fn", NULL };
static const char *const e5m2_aliases[] = { "fp8-e5m2", "float8_e5m2", NULL };
static const char *const f64_aliases[] = { "fp64", "float64", "double", NULL };
static const char *const tf32_aliases[] = { "tensorfloat32", NULL };
static const char *const int64_aliases[] = { "int64", "long", NULL };
static const char *const int32_aliases[] = { "int32", "int", NULL };
static const char *const uint16_aliases[] = { "uint16", NULL };
static const char *const fp6_e3m2_aliases[] = { "e3m2", "float6_e3m2fn", NULL };
static const char *const fp6_e2m3_aliases[] = { "e2m3", "float6_e2m3fn", NULL };
static const char *const fp4_e2m1_aliases[] = { "e2m1", "fp4", "float4_e2m1fn", NULL };
static const char *const e8m0_aliases[] = { "fp8-e8m0", "e8m0fnu", NULL };
static const char *const e4m3fnuz_aliases[] = { "fp8-e4m3fnuz", NULL };
static const char *const e5m2fnuz_aliases[] = { "fp8-e5m2fnuz", NULL };

/* The one home of the format facts; everything else is computed from here. */
static const NkDTypeInfo dtype_table[NK_N_DTYPES] = {
  [NK_DTYPE_F32] = {
    "float32", "f32", f32_aliases, N_("IEEE 754 binary32"),
    32, 8, 23, 127, TRUE, TRUE, TRUE, NK_NAN_IEEE,
    N_("exponent all ones and a nonzero fraction"), TRUE, 4 },
  [NK_DTYPE_F16] = {
    "float16", "f16", f16_aliases, N_("IEEE 754 binary16"),
    16, 5, 10, 15, TRUE, TRUE, TRUE, NK_NAN_IEEE,
    N_("exponent all ones and a nonzero fraction"), TRUE, 2 },
  [NK_DTYPE_BF16] = {
    "bfloat16", "bf16", bf16_aliases, N_("Brain floating point"),
    16, 8, 7, 127, TRUE, TRUE, TRUE, NK_NAN_IEEE,
    N_("exponent all ones and a nonzero fraction"), TRUE, 2 },
  [NK_DTYPE_E4M3] = {
    "float8_e4m3fn", "e4m3", e4m3_aliases, N_("OCP FP8 E4M3"),
    8, 4, 3, 7, TRUE, TRUE, FALSE, NK_NAN_ALL_ONES,
    N_("only s.1111.111 (0x7f and 0xff); there are no infinities"), TRUE, 1 },
  [NK_DTYPE_E5M2] = {
    "float8_e5m2", "e5m2", e5m2_aliases, N_("OCP FP8 E5M2"),
    8, 5, 2, 15, TRUE, TRUE, TRUE, NK_NAN_IEEE,
    N_("exponent all ones and a nonzero fraction"), TRUE, 1 },
  [NK_DTYPE_F64] = {
    "float64", "f64", f64_aliases, N_("IEEE 754 binary64"),
    64, 11, 52, 1023, TRUE, TRUE, TRUE, NK_NAN_IEEE,
    N_("exponent all ones and a nonzero fraction"), TRUE, 8 },
  [NK_DTYPE_TF32] = {
    "tensorfloat32", "tf32", tf32_aliases, N_("NVIDIA TensorFloat-32 (compute only)"),
    19, 8, 10, 127, TRUE, TRUE, TRUE, NK_NAN_IEEE,
    N_("exponent all ones and a nonzero fraction"), FALSE, 4 },
  [NK_DTYPE_INT64] = {
    "int64", "i64", int64_aliases, N_("64-bit signed integer"),
    64, 0, 63, 0, FALSE, TRUE, FALSE, NK_NAN_NONE, "", TRUE, 8 },
  [NK_DTYPE_INT32] = {
    "int32", "i32", int32_aliases, N_("32-bit signed integer"),
    32, 0, 31, 0, FALSE, TRUE, FALSE, NK_NAN_NONE, "", TRUE, 4 },
  [NK_DTYPE_UINT16] = {
    "uint16", "u16", uint16_aliases, N_("16-bit unsigned integer"),
    16, 0, 16, 0, FALSE, FALSE, FALSE, NK_NAN_NONE, "", TRUE, 2 },
  /* The low-precision formats: no tensor holds them (is_storage FALSE); one code
   * per byte in the bulk conversions. */
  [NK_DTYPE_FP6_E3M2] = {
    "float6_e3m2", "fp6-e3m2", fp6_e3m2_aliases, N_("OCP MX FP6 E3M2"),
    6, 3, 2, 3, TRUE, TRUE, FALSE, NK_NAN_NONE,
    N_("none: every pattern is a number, and there are no infinities"), FALSE, 1 },
  [NK_DTYPE_FP6_E2M3] = {
    "float6_e2m3", "fp6-e2m3", fp6_e2m3_aliases, N_("OCP MX FP6 E2M3"),
    6, 2, 3, 1, TRUE, TRUE, FALSE, NK_NAN_NONE,
    N_("none: every pattern is a number, and there are no infinities"), FALSE, 1 },
  [NK_DTYPE_FP4_E2M1] = {
    "float4_e2m1", "fp4-e2m1", fp4_e2m1_aliases, N_("OCP MX FP4 E2M1"),
    4, 2, 1, 1, TRUE, TRUE, FALSE, NK_NAN_NONE,
    N_("none: every pattern is a number, and there are no infinities"), FALSE, 1 },
  [NK_DTYPE_E8M0] = {
    "float8_e8m0fnu", "e8m0", e8m0_aliases, N_("OCP MX E8M0 scale"),
    8, 8, 0, 127, TRUE, FALSE, FALSE, NK_NAN_ALL_ONES,
    N_("only 0xff; there is no sign, no zero and no infinity"), FALSE, 1 },
  [NK_DTYPE_E4M3FNUZ] = {
    "float8_e4m3fnuz", "e4m3fnuz", e4m3fnuz_aliases, N_("FP8 E4M3 FNUZ (AMD)"),
    8, 4, 3, 8, TRUE, TRUE, FALSE, NK_NAN_NEGATIVE_ZERO,
    N_("only 0x80, the pattern of −0; there is no −0 and no infinity"), FALSE, 1 },
  [NK_DTYPE_E5M2FNUZ] = {
    "float8_e5m2fnuz", "e5m2fnuz", e5m2fnuz_aliases, N_("FP8 E5M2 FNUZ (AMD)"),
    8, 5, 2, 16, TRUE, TRUE, FALSE, NK_NAN_NEGATIVE_ZERO,
    N_("only 0x80, the pattern of −0; there is no −0 and no infinity"), FALSE, 1 },
};

/**
 * nk_dtype_info:
 * @dtype: a format
 *
 * Looks a format up in the format table, the one home of its bit widths, bias and
 * names.
 *
 * Returns: (transfer none): the table row of @dtype
 */
const NkDTypeInfo *
nk_dtype_info (NkDType dtype)
{
  g_return_val_if_fail ((guint) dtype < NK_N_DTYPES, NULL);

  return &dtype_table[dtype];
}

/**
 * nk_dtype_is_float:
 * @dtype: a format
 *
 * Integer formats have no exponent; the bit-level functions (encode, decode,
 * neighbours, limits) take floating-point formats only.
 *
 * Returns: whether @dtype is a floating-point format (encode/decode apply)
 */
gboolean
nk_dtype_is_float (NkDType dtype)
{
  g_return_val_if_fail ((guint) dtype < NK_N_DTYPES, FALSE);

  return dtype_table[dtype].is_float;
}

/**
 * nk_dtype_element_size:
 * @dtype: a format
 *
 * The bytes one element takes in a storage; tf32 lives in the 4 bytes of a float32.
 *
 * Returns: bytes per element in a tensor
 */
gsize
nk_dtype_element_size (NkDType dtype)
{
  g_return_val_if_fail ((guint) dtype < NK_N_DTYPES, 0);

  return dtype_table[dtype].element_size;
}

/**
 * nk_dtype_bits_mask:
 * @dtype: a format
 *
 * The low nk_dtype_info()->bits bits set: what nk_dtype_parse_item() accepts as raw
 * bits.
 *
 * Returns: the mask of the bits a pattern of @dtype may use
 */
guint64
nk_dtype_bits_mask (NkDType dtype)
{
  guint bits;

  g_return_val_if_fail ((guint) dtype < NK_N_DTYPES, 0);

  bits = dtype_table[dtype].bits;
  return bits >= 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << bits) - 1;
}

/**
 * nk_dtype_class_to_string:
 * @klass: a class
 *
 * The untranslated spelling of a class, fixed by CLI.md for JSON and scripts.
 *
 * Returns: the class as CLI.md spells it: "zero", "subnormal", "normal", "inf", "nan",
 *   "unrepresentable"
 */
const char *
nk_dtype_class_to_string (NkDTypeClass klass)
{
  switch (klass)
    {
    case NK_DTYPE_CLASS_ZERO: return "zero";
    case NK_DTYPE_CLASS_SUBNORMAL: return "subnormal";
    case NK_DTYPE_CLASS_NORMAL: return "normal";
    case NK_DTYPE_CLASS_INF: return "inf";
    case NK_DTYPE_CLASS_NAN: return "nan";
    case NK_DTYPE_CLASS_UNREPRESENTABLE: return "unrepresentable";
    default: g_return_val_if_reached (NULL);
    }
}

/**
 * nk_dtype_class_display_name:
 * @klass: a class
 *
 * The class as people read it, translated. nk_dtype_class_to_string() is the
 * untranslated spelling that CLI.md fixes for JSON and scripts.
 *
 * Returns: the translated class name, e.g. "subnormal"
 */
const char *
nk_dtype_class_display_name (NkDTypeClass klass)
{
  /* Translators: the classes of a floating-point value, shown beside it. "inf"
   * is an infinity and "nan" not-a-number: use your language's usual short forms. */
  switch (klass)
    {
    case NK_DTYPE_CLASS_ZERO: return C_("number class", "zero");
    case NK_DTYPE_CLASS_SUBNORMAL: return C_("number class", "subnormal");
    case NK_DTYPE_CLASS_NORMAL: return C_("number class", "normal");
    case NK_DTYPE_CLASS_INF: return C_("number class", "inf");
    case NK_DTYPE_CLASS_NAN: return C_("number class", "nan");
    /* Translators: a value the number format cannot hold at all (NaN in fp4) */
    case NK_DTYPE_CLASS_UNREPRESENTABLE: return C_("number class", "unrepresentable");
    default: g_return_val_if_reached (NULL);
    }
}

/**
 * nk_dtype_from_name:
 * @name: a format name: the canonical CLI name, the PyTorch name or an alias
 * @out_dtype: (out): the format
 * @error: names @name and lists the formats when it is not one
 *
 * Names are matched without regard to ASCII case.
 *
 * Returns: %TRUE when @name names a format
 */
gboolean
nk_dtype_from_name (const char *name,
                    NkDType    *out_dtype,
                    GError    **error)
{
  g_autoptr(GString) known = NULL;
  g_autofree char *stripped = NULL;

  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (out_dtype != NULL, FALSE);

  stripped = g_strstrip (g_strdup (name));
  if (*stripped == '\0')
    {
      g_set_error_literal (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_EMPTY,
                           _("The number format name is empty"));
      return FALSE;
    }

  for (guint i = 0; i < NK_N_DTYPES; i++)
    {
      const NkDTypeInfo *info = &dtype_table[i];

      if (g_ascii_strcasecmp (stripped, info->cli_name) == 0 ||
          g_ascii_strcasecmp (stripped, info->name) == 0)
        {
          *out_dtype = i;
          return TRUE;
        }
      for (guint j = 0; info->aliases[j] != NULL; j++)
        if (g_ascii_strcasecmp (stripped, info->aliases[j]) == 0)
          {
            *out_dtype = i;
            return TRUE;
          }
    }

  known = g_string_new (NULL);
  for (guint i = 0; i < NK_N_DTYPES; i++)
    g_string_append_printf (known, "%s%s", i ? ", " : "", dtype_table[i].cli_name);
  g_set_error (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_UNKNOWN,
               /* Translators: the second %s is a list like "f32, f16, bf16" */
               _("“%s” is not a number format (known: %s)"), name, known->str);
  return FALSE;
}

/* ---- fields ---------------------------------------------------------------- */

#define exponent_all_ones nk_dtype_exponent_all_ones
#define mantissa_mask nk_dtype_mantissa_mask
#define sign_bit nk_dtype_sign_bit
#define max_magnitude nk_dtype_max_magnitude
#define inf_magnitude nk_dtype_inf_magnitude
#define nan_magnitude nk_dtype_nan_magnitude

/* For nk-dtype-round.c: the row without the public function's checks. */
const NkDTypeInfo *
nk_dtype_table_row (NkDType dtype)
{
  return &dtype_table[dtype];
}

/**
 * nk_dtype_nan_bits:
 * @dtype: a floating-point format
 * @sign: 0 or 1
 *
 * The one NaN pattern every conversion in nk-dtype produces, so that scalar and bulk
 * conversions agree bit for bit.
 *
 * Returns: the canonical quiet NaN of @dtype with sign @sign (see the header);
 *   the fnuz formats' 0x80 and e8m0's 0xff whatever @sign; in fp6 and fp4, which
 *   have no NaN, +max, the stand-in a NaN encodes to
 */
guint64
nk_dtype_nan_bits (NkDType dtype,
                   guint   sign)
{
  const NkDTypeInfo *info;

  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  info = &dtype_table[dtype];
  if (info->nan_style == NK_NAN_NONE)
    return max_magnitude (info);
  return (sign ? sign_bit (info) : 0) | nan_magnitude (info);
}

/**
 * nk_dtype_max_bits:
 * @dtype: a floating-point format
 *
 * The largest finite magnitude with sign 0 (e4m3: 0x7e, 448; f16: 0x7bff, 65504).
 *
 * Returns: the pattern of the largest finite value
 */
guint64
nk_dtype_max_bits (NkDType dtype)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  return max_magnitude (&dtype_table[dtype]);
}

/**
 * nk_dtype_min_normal_bits:
 * @dtype: a floating-point format
 *
 * Exponent field 1, fraction 0: 2^(1 − bias).
 *
 * Returns: the pattern of the smallest positive normal value
 */
guint64
nk_dtype_min_normal_bits (NkDType dtype)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  /* e8m0: pattern 0 is 2^−127, the smallest value, normal */
  if (dtype_table[dtype].mantissa_bits == 0)
    return 0;
  return G_GUINT64_CONSTANT (1) << dtype_table[dtype].mantissa_bits;
}

/**
 * nk_dtype_min_subnormal_bits:
 * @dtype: a floating-point format
 *
 * Exponent field 0, fraction 1: 2^(1 − bias − M), the gap between 0 and the next
 * value. E8M0 has no subnormals and no zero: its smallest value is pattern 0,
 * 2^−127.
 *
 * Returns: the pattern of the smallest positive value
 */
guint64
nk_dtype_min_subnormal_bits (NkDType dtype)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  return dtype_table[dtype].mantissa_bits == 0 ? 0 : 1;
}

/**
 * nk_dtype_one_bits:
 * @dtype: a floating-point format
 *
 * Exponent field equal to the bias, fraction 0.
 *
 * Returns: the pattern of 1.0
 */
guint64
nk_dtype_one_bits (NkDType dtype)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  return (guint64) dtype_table[dtype].bias << dtype_table[dtype].mantissa_bits;
}

/**
 * nk_dtype_epsilon_bits:
 * @dtype: a floating-point format
 *
 * Epsilon is 2^−M, a power of two every format here holds (a subnormal in fp6
 * e2m3 and fp4 e2m1; 1 in e8m0, whose values are the powers of two).
 *
 * Returns: the pattern of epsilon, the gap between 1 and the next value
 */
guint64
nk_dtype_epsilon_bits (NkDType dtype)
{
  const NkDTypeInfo *info;

  g_return_val_if_fail (nk_dtype_is_float (dtype), 0);

  info = &dtype_table[dtype];
  return nk_dtype_encode (dtype, ldexp (1.0, -(int) info->mantissa_bits), NK_OVERFLOW_DEFAULT);
}

/* ---- decode ---------------------------------------------------------------- */

/**
 * nk_dtype_decode:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 * @out: (out caller-allocates): its fields and exact value
 *
 * Decodes @bits exactly: every value of these formats is a double.
 *
 * Returns: %TRUE (%FALSE on a programmer error: not a float format, bits too wide)
 */
gboolean
nk_dtype_decode (NkDType         dtype,
                 guint64         bits,
                 NkDTypeDecoded *out)
{
  const NkDTypeInfo *info;
  guint64 be, f;
  int emin;

  g_return_val_if_fail (nk_dtype_is_float (dtype), FALSE);
  g_return_val_if_fail ((bits & ~nk_dtype_bits_mask (dtype)) == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  info = &dtype_table[dtype];
  emin = 1 - info->bias;
  be = (bits >> info->mantissa_bits) & exponent_all_ones (info);
  f = bits & mantissa_mask (info);

  memset (out, 0, sizeof *out);
  out->dtype = dtype;
  out->bits = bits;
  out->sign = (bits & sign_bit (info)) ? 1 : 0;
  out->biased_exponent = (guint) be;
  out->mantissa = f;

  if ((info->nan_style == NK_NAN_IEEE && be == exponent_all_ones (info)) ||
      (info->nan_style == NK_NAN_ALL_ONES && be == exponent_all_ones (info) &&
       f == mantissa_mask (info)) ||
      (info->nan_style == NK_NAN_NEGATIVE_ZERO && bits == sign_bit (info)))
    {
      gboolean is_nan = info->nan_style != NK_NAN_IEEE || f != 0;

      out->klass = is_nan ? NK_DTYPE_CLASS_NAN : NK_DTYPE_CLASS_INF;
      out->exponent = 0;
      out->significand = 0;
      out->value = is_nan ? NAN : INFINITY;
    }
  else if (info->mantissa_bits == 0)
    {
      /* e8m0: every other pattern is 2^(e − bias), pattern 0 included */
      out->klass = NK_DTYPE_CLASS_NORMAL;
      out->exponent = (int) be - info->bias;
      out->significand = 1.0;
      out->value = ldexp (1.0, out->exponent);
    }
  else if (be == 0)
    {
      out->klass = f == 0 ? NK_DTYPE_CLASS_ZERO : NK_DTYPE_CLASS_SUBNORMAL;
      out->exponent = emin;
      out->significand = ldexp ((double) f, -(int) info->mantissa_bits);
      out->value = ldexp ((double) f, emin - (int) info->mantissa_bits);
    }
  else
    {
      guint64 n = f | (G_GUINT64_CONSTANT (1) << info->mantissa_bits);

      out->klass = NK_DTYPE_CLASS_NORMAL;
      out->exponent = (int) be - info->bias;
      out->significand = ldexp ((double) n, -(int) info->mantissa_bits);
      out->value = ldexp ((double) n, out->exponent - (int) info->mantissa_bits);
    }
  if (out->sign)
    out->value = -out->value;
  return TRUE;
}

/**
 * nk_dtype_to_double:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 *
 * Every value of every format here is a double exactly, so nothing is rounded; NaN
 * becomes a double NaN with the same sign.
 *
 * Returns: the exact value of @bits
 */
double
nk_dtype_to_double (NkDType dtype,
                    guint64 bits)
{
  NkDTypeDecoded d;

  if (!nk_dtype_decode (dtype, bits, &d))
    return NAN;
  return d.value;
}

/* ---- exact decimals -------------------------------------------------------- */

/* A non-negative integer in base 10^9 limbs, least significant first. */
typedef struct {
  guint32 *limbs;
  gsize    len;
  gsize    alloc;
} BigDec;

#define BIGDEC_BASE 1000000000u

static void
bigdec_mul_small (BigDec *b,
                  guint32 factor)
{
  guint64 carry = 0;

  for (gsize i = 0; i < b->len; i++)
    {
      guint64 t = (guint64) b->limbs[i] * factor + carry;

      b->limbs[i] = (guint32) (t % BIGDEC_BASE);
      carry = t / BIGDEC_BASE;
    }
  while (carry)
    {
      if (b->len == b->alloc)
        {
          b->alloc *= 2;
          b->limbs = g_renew (guint32, b->limbs, b->alloc);
        }
      b->limbs[b->len++] = (guint32) (carry % BIGDEC_BASE);
      carry /= BIGDEC_BASE;
    }
}

/* The decimal digits of n × 2^k2 × 5^k5, k2, k5 >= 0. */
static char *
bigdec_digits (guint64 n,
               int     k2,
               int     k5)
{
  BigDec b = { g_new (guint32, 16), 0, 16 };
  char *out;
  gsize pos;

  do
    {
      b.limbs[b.len++] = (guint32) (n % BIGDEC_BASE);
      n /= BIGDEC_BASE;
    }
  while (n);

  for (; k2 >= 29; k2 -= 29)
    bigdec_mul_small (&b, 1u << 29);
  if (k2 > 0)
    bigdec_mul_small (&b, 1u << k2);
  for (; k5 >= 13; k5 -= 13)
    bigdec_mul_small (&b, 1220703125u);  /* 5^13 */
  for (; k5 > 0; k5--)
    bigdec_mul_small (&b, 5);

  /* nine digits per limb, written from the right; the top limb without zeros */
  out = g_malloc (b.len * 9 + 1);
  pos = b.len * 9;
  out[pos] = '\0';
  for (gsize i = 0; i < b.len; i++)
    {
      guint32 limb = b.limbs[i];

      for (int d = 0; d < 9; d++)
        {
          out[--pos] = (char) ('0' + limb % 10);
          limb /= 10;
          if (limb == 0 && i == b.len - 1)
            break;
        }
    }
  g_free (b.limbs);
  if (pos > 0)
    memmove (out, out + pos, b.len * 9 + 1 - pos);
  return out;
}

/**
 * nk_dtype_exact_decimal_double:
 * @value: any double
 *
 * Every finite binary fraction has a finite decimal expansion: this is all of
 * it, without an exponent (2^−1074 has 751 significant digits). Non-finite
 * values are "nan", "inf", "-inf"; zeros "0" and "-0".
 *
 * Returns: (transfer full): the exact decimal expansion of @value
 */
char *
nk_dtype_exact_decimal_double (double value)
{
  g_autofree char *digits = NULL;
  gboolean negative = signbit (value) != 0;
  GString *s;
  guint64 n;
  int e, k;
  gsize len;

  if (isnan (value))
    return g_strdup ("nan");
  if (isinf (value))
    return g_strdup (negative ? "-inf" : "inf");
  if (value == 0)
    return g_strdup (negative ? "-0" : "0");

  /* |value| = n × 2^k with n odd */
  n = (guint64) ldexp (frexp (fabs (value), &e), 53);
  k = e - 53;
  while ((n & 1) == 0)
    {
      n >>= 1;
      k++;
    }

  s = g_string_new (negative ? "-" : "");
  if (k >= 0)
    {
      digits = bigdec_digits (n, k, 0);
      g_string_append (s, digits);
      return g_string_free (s, FALSE);
    }

  /* n × 2^k = n × 5^−k / 10^−k: the digits of n × 5^−k with the point −k from
   * the right; n odd means the last digit is 5, so nothing to trim. */
  digits = bigdec_digits (n, 0, -k);
  len = strlen (digits);
  if (len <= (gsize) -k)
    {
      g_string_append (s, "0.");
      for (gsize i = len; i < (gsize) -k; i++)
        g_string_append_c (s, '0');
      g_string_append (s, digits);
    }
  else
    {
      g_string_append_len (s, digits, len + k);
      g_string_append_c (s, '.');
      g_string_append (s, digits + len + k);
    }
  return g_string_free (s, FALSE);
}

/**
 * nk_dtype_exact_decimal:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 *
 * Every finite pattern is a dyadic rational, so its decimal expansion ends; this
 * writes all its digits.
 *
 * Returns: (transfer full): the exact decimal expansion of the value of @bits,
 *   see nk_dtype_exact_decimal_double()
 */
char *
nk_dtype_exact_decimal (NkDType dtype,
                        guint64 bits)
{
  return nk_dtype_exact_decimal_double (nk_dtype_to_double (dtype, bits));
}

/**
 * nk_dtype_format_bits:
 * @dtype: a format
 * @bits: a pattern of @dtype
 *
 * The pattern as hex, as CLI.md writes bits.
 *
 * Returns: (transfer full): @bits as lowercase, 0x-prefixed, full-width hex
 *   ("0x7e", "0x3c00", "0x3f800000")
 */
char *
nk_dtype_format_bits (NkDType dtype,
                      guint64 bits)
{
  g_return_val_if_fail ((guint) dtype < NK_N_DTYPES, NULL);

  return g_strdup_printf ("0x%0*" G_GINT64_MODIFIER "x",
                          (int) (dtype_table[dtype].bits + 3) / 4, bits);
}

/**
 * nk_dtype_format_binary:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 * @separator: (nullable): put between the sign, exponent and fraction fields
 *
 * The pattern in binary, field by field, as the Formats page shows it.
 *
 * Returns: (transfer full): @bits in binary, most significant first, e.g.
 *   "0 1111 110" for e4m3's 448 with @separator " "
 */
char *
nk_dtype_format_binary (NkDType     dtype,
                        guint64     bits,
                        const char *separator)
{
  const NkDTypeInfo *info;
  GString *s;

  g_return_val_if_fail (nk_dtype_is_float (dtype), NULL);

  info = &dtype_table[dtype];
  s = g_string_sized_new (info->bits + 8);
  for (int i = (int) info->bits - 1; i >= 0; i--)
    {
      g_string_append_c (s, (bits >> i) & 1 ? '1' : '0');
      if (separator && ((i == (int) info->bits - 1 && info->is_signed) ||
                        i == (int) info->mantissa_bits) && i > 0)
        g_string_append (s, separator);
    }
  return g_string_free (s, FALSE);
}

/**
 * nk_dtype_formula:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 * @style: whether the significand is shown in decimal or in binary
 *
 * The value formula with this pattern's own fields filled in, for teaching:
 * "(−1)^0 × 1.5 × 2^(128 − 127)" for a normal f32, "(−1)^0 × 0.25 × 2^(1 − 15)"
 * for a subnormal f16 (the biased exponent of a subnormal counts as 1), and a
 * sentence for infinities and NaN.
 *
 * Returns: (transfer full): the formula
 */
char *
nk_dtype_formula (NkDType        dtype,
                  guint64        bits,
                  NkFormulaStyle style)
{
  const NkDTypeInfo *info;
  g_autofree char *significand = NULL;
  NkDTypeDecoded d;

  if (!nk_dtype_decode (dtype, bits, &d))
    return NULL;
  info = &dtype_table[dtype];

  switch (d.klass)
    {
    case NK_DTYPE_CLASS_INF:
      return g_strdup_printf (_("%s∞: exponent all ones, fraction 0"), d.sign ? "−" : "+");
    case NK_DTYPE_CLASS_NAN:
      if (info->nan_style == NK_NAN_NEGATIVE_ZERO)
        return g_strdup (_("NaN: sign 1, exponent and fraction 0 (the pattern of −0)"));
      if (info->nan_style == NK_NAN_ALL_ONES)
        return g_strdup (_("NaN: exponent and fraction all ones"));
      return g_strdup (_("NaN: exponent all ones, fraction not 0"));
    case NK_DTYPE_CLASS_ZERO:
    case NK_DTYPE_CLASS_SUBNORMAL:
    case NK_DTYPE_CLASS_NORMAL:
    default:
      break;
    }

  /* e8m0: no sign, no fraction: a power of two */
  if (info->mantissa_bits == 0)
    return g_strdup_printf ("2^(%u − %d)", d.biased_exponent, info->bias);

  if (style == NK_FORMULA_BINARY)
    {
      GString *s = g_string_new (d.klass == NK_DTYPE_CLASS_NORMAL ? "1." : "0.");

      for (int i = (int) info->mantissa_bits - 1; i >= 0; i--)
        g_string_append_c (s, (d.mantissa >> i) & 1 ? '1' : '0');
      g_string_append (s, "₂");
      significand = g_string_free (s, FALSE);
    }
  else
    significand = nk_dtype_exact_decimal_double (d.significand);

  return g_strdup_printf ("(−1)^%u × %s × 2^(%u − %d)", d.sign, significand,
                          d.klass == NK_DTYPE_CLASS_NORMAL ? d.biased_exponent : 1,
                          info->bias);
}

/* ---- neighbours and limits ------------------------------------------------- */

static guint64
step (NkDType dtype,
      guint64 bits,
      int     direction)
{
  const NkDTypeInfo *info = &dtype_table[dtype];
  guint64 sbit = sign_bit (info);
  guint64 mag = bits & ~sbit;
  guint64 neg = bits & sbit;
  gboolean away;
  NkDTypeDecoded d;

  if (!nk_dtype_decode (dtype, bits, &d) || d.klass == NK_DTYPE_CLASS_NAN)
    return bits;
  if (!info->is_signed)
    {
      /* e8m0: patterns in order of value, 0 (2^−127) to max (2^127) */
      if (direction > 0)
        return bits == max_magnitude (info) ? bits : bits + 1;
      return bits == 0 ? bits : bits - 1;
    }
  if (mag == 0)
    return direction > 0 ? 1 : sbit | 1;

  away = (direction > 0) == (neg == 0);
  if (away)
    {
      if (d.klass == NK_DTYPE_CLASS_INF)
        return bits;
      if (mag == max_magnitude (info))
        return info->has_inf ? neg | inf_magnitude (info) : bits;
      return bits + 1;
    }
  if (d.klass == NK_DTYPE_CLASS_INF)
    return neg | max_magnitude (info);
  if (bits - 1 == sbit && info->nan_style == NK_NAN_NEGATIVE_ZERO)
    return 0;  /* no −0: the next value toward zero from −min is +0 */
  return bits - 1;
}

/**
 * nk_dtype_next_up:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 *
 * Like nextafter() toward +inf: −0 and +0 go to the smallest subnormal, max goes
 * to inf (or stays at max where there is no inf), NaN stays. In the fnuz formats
 * the next value up from −min_subnormal is +0 (there is no −0); e8m0 steps from
 * one power of two to the next and stays at 2^−127 and 2^127.
 *
 * Returns: the next representable value above @bits
 */
guint64
nk_dtype_next_up (NkDType dtype,
                  guint64 bits)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), bits);

  return step (dtype, bits, +1);
}

/**
 * nk_dtype_next_down:
 * @dtype: a floating-point format
 * @bits: a pattern of @dtype
 *
 * Like nextafter() toward −inf, the mirror of nk_dtype_next_up().
 *
 * Returns: the next representable value below @bits, see nk_dtype_next_up()
 */
guint64
nk_dtype_next_down (NkDType dtype,
                    guint64 bits)
{
  g_return_val_if_fail (nk_dtype_is_float (dtype), bits);

  return step (dtype, bits, -1);
}

/**
 * nk_dtype_ulp:
 * @dtype: a floating-point format
 * @value: a value
 *
 * The unit in the last place at @value: the gap between neighbours in the binade
 * of |@value|, 2^(max(floor(log2 |value|), 1 − bias) − M) (numpy's spacing). It is
 * the smallest subnormal at zero, the gap below max beyond max, NaN for inf/NaN.
 *
 * Returns: the ulp
 */
double
nk_dtype_ulp (NkDType dtype,
              double  value)
{
  const NkDTypeInfo *info;
  int e, emin, emax;

  g_return_val_if_fail (nk_dtype_is_float (dtype), NAN);

  info = &dtype_table[dtype];
  if (!isfinite (value))
    return NAN;
  emin = nk_dtype_min_exponent_of (info);
  emax = (int) (max_magnitude (info) >> info->mantissa_bits) - info->bias;
  if (value == 0)
    e = emin;
  else
    {
      frexp (value, &e);
      e = CLAMP (e - 1, emin, emax);
    }
  return ldexp (1.0, e - (int) info->mantissa_bits);
}

/**
 * nk_dtype_limits:
 * @dtype: a floating-point format
 * @out: (out caller-allocates): the limits
 *
 * Computes the finfo of @dtype from its table row.
 */
void
nk_dtype_limits (NkDType        dtype,
                 NkDTypeLimits *out)
{
  const NkDTypeInfo *info;
  NkDTypeDecoded max;

  g_return_if_fail (nk_dtype_is_float (dtype));
  g_return_if_fail (out != NULL);

  info = &dtype_table[dtype];
  nk_dtype_decode (dtype, max_magnitude (info), &max);
  out->max = max.value;
  out->max_exponent = max.exponent;
  out->min_exponent = nk_dtype_min_exponent_of (info);
  out->min_normal = nk_dtype_to_double (dtype, nk_dtype_min_normal_bits (dtype));
  out->min_subnormal = nk_dtype_to_double (dtype, nk_dtype_min_subnormal_bits (dtype));
  out->epsilon = nk_dtype_to_double (dtype, nk_dtype_next_up (dtype, nk_dtype_one_bits (dtype))) - 1.0;
  out->precision = (int) floor (-log10 (out->epsilon));
  out->decimal_digits = (info->mantissa_bits + 1) * log10 (2.0);
  out->range_decades = log10 (out->max) - log10 (out->min_normal);
  out->range_decades_subnormal = log10 (out->max) - log10 (out->min_subnormal);
}

/* ---- items ----------------------------------------------------------------- */

/**
 * nk_dtype_parse_item:
 * @dtype: the floating-point format the item is for (it bounds raw bits)
 * @text: an item: a decimal value ("1e-8", "-0", "inf", "nan", "465"), "pi" or
 *   "e" (with an optional sign), or raw bits ("0x7e")
 * @out: (out caller-allocates): the value or the bits
 * @error: one sentence naming @text when it is empty, not a number, or bits
 *   wider than @dtype
 *
 * Values are parsed as an IEEE binary64, correctly rounded; anything beyond the
 * double range is ±inf, which then rounds to the format like any other value.
 *
 * Returns: %TRUE when @text is an item
 */
gboolean
nk_dtype_parse_item (NkDType      dtype,
                     const char  *text,
                     NkDTypeItem *out,
                     GError     **error)
{
  g_autofree char *item = NULL;
  const char *p;
  char *end = NULL;
  gboolean negative = FALSE;

  g_return_val_if_fail (nk_dtype_is_float (dtype), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  item = g_strstrip (g_strdup (text));
  if (*item == '\0')
    {
      g_set_error_literal (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_EMPTY,
                           _("The item is empty: give a number like 1e-8 or bits like 0x7e"));
      return FALSE;
    }

  if (item[0] == '0' && (item[1] == 'x' || item[1] == 'X'))
    {
      guint64 bits = 0;
      gboolean too_wide = FALSE;

      if (item[2] == '\0')
        goto invalid;
      for (p = item + 2; *p; p++)
        {
          if (!g_ascii_isxdigit (*p))
            goto invalid;
          if (bits >> 60)
            too_wide = TRUE;
          bits = (bits << 4) | (guint64) g_ascii_xdigit_value (*p);
        }
      if (too_wide || (bits & ~nk_dtype_bits_mask (dtype)) != 0)
        {
          g_set_error (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_TOO_WIDE,
                       _("“%s” is wider than the %u bits of %s"),
                       text, dtype_table[dtype].bits, dtype_table[dtype].cli_name);
          return FALSE;
        }
      out->is_bits = TRUE;
      out->bits = bits;
      return TRUE;
    }

  p = item;
  if (*p == '-' || *p == '+')
    negative = *p++ == '-';
  if (g_ascii_strcasecmp (p, "pi") == 0 || strcmp (p, "π") == 0)
    {
      out->value = negative ? -G_PI : G_PI;
      return TRUE;
    }
  if (strcmp (p, "e") == 0)
    {
      out->value = negative ? -G_E : G_E;
      return TRUE;
    }
  /* A signed hex pattern is neither bits nor a decimal; strtod would read a hex float. */
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    goto invalid;
  if (!g_ascii_isdigit (*p) && *p != '.' && g_ascii_strncasecmp (p, "inf", 3) != 0 &&
      g_ascii_strncasecmp (p, "nan", 3) != 0)
    goto invalid;

  out->value = g_ascii_strtod (item, &end);
  if (end == item || *end != '\0')
    goto invalid;
  return TRUE;

invalid:
  g_set_error (error, NK_DTYPE_ERROR, NK_DTYPE_ERROR_INVALID,
               _("“%s” is not a number or bits (try 1e-8, -0, inf, nan, pi or 0x7e)"),
               text);
  return FALSE;
}

/* ---- element load / store -------------------------------------------------------- */

/**
 * nk_dtype_load_double:
 * @dtype: a storage dtype
 * @ptr: one element of @dtype in host memory
 *
 * Reads one element exactly (narrow floats through nk_dtype_to_double).
 *
 * Returns: its value
 */
double
nk_dtype_load_double (NkDType       dtype,
                      gconstpointer ptr)
{
  switch (dtype)
    {
    case NK_DTYPE_F32: return *(const float *) ptr;
    case NK_DTYPE_F64: return *(const double *) ptr;
    case NK_DTYPE_INT64: return (double) *(const gint64 *) ptr;
    case NK_DTYPE_INT32: return *(const gint32 *) ptr;
    case NK_DTYPE_UINT16: return *(const guint16 *) ptr;
    case NK_DTYPE_F16:
    case NK_DTYPE_BF16: return nk_dtype_to_double (dtype, *(const guint16 *) ptr);
    case NK_DTYPE_E4M3:
    case NK_DTYPE_E5M2: return nk_dtype_to_double (dtype, *(const guint8 *) ptr);
    default:
      g_return_val_if_reached (0.0);
    }
}

/* Float to integer truncates toward zero like a C cast; out-of-range and NaN
 * values (undefined in C and in PyTorch) saturate / become 0 here. */
static gint64
to_int (double v,
        double lo,
        double hi)
{
  if (v != v)
    return 0;
  if (v <= lo)
    return (gint64) lo;
  if (v >= hi)
    return (gint64) hi;
  return (gint64) v;
}

/**
 * nk_dtype_store_double:
 * @dtype: a storage dtype
 * @ptr: where the element goes, in host memory
 * @value: the value
 *
 * Writes one element, rounding once (narrow floats through nk_dtype_encode).
 */
void
nk_dtype_store_double (NkDType  dtype,
                       gpointer ptr,
                       double   value)
{
  switch (dtype)
    {
    case NK_DTYPE_F32: *(float *) ptr = (float) value; break;
    case NK_DTYPE_F64: *(double *) ptr = value; break;
    case NK_DTYPE_INT64: *(gint64 *) ptr = to_int (value, -9223372036854775808.0, 9223372036854774784.0); break;
    case NK_DTYPE_INT32: *(gint32 *) ptr = (gint32) to_int (value, G_MININT32, G_MAXINT32); break;
    case NK_DTYPE_UINT16: *(guint16 *) ptr = (guint16) to_int (value, 0, G_MAXUINT16); break;
    case NK_DTYPE_F16:
    case NK_DTYPE_BF16: *(guint16 *) ptr = (guint16) nk_dtype_encode (dtype, value, NK_OVERFLOW_DEFAULT); break;
    case NK_DTYPE_E4M3:
    case NK_DTYPE_E5M2: *(guint8 *) ptr = (guint8) nk_dtype_encode (dtype, value, NK_OVERFLOW_DEFAULT); break;
    default:
      g_return_if_reached ();
    }
}
