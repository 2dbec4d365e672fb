/* nk-kernels.h: per-element math shared by the CPU device and the CUDA device
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything here is a `static inline` body that gcc compiles into the CPU device and
 * nvcc compiles into the CUDA kernels (NK_KERNEL_FN adds `__host__ __device__` under
 * nvcc), so the CPU tests check the very math the GPU runs. Only launch configuration
 * and loops differ between devices; the per-element functions never do.
 *
 * This header must stay plain C that nvcc accepts: no GLib, no varargs, no statics.
 * Bodies compute in float for every floating dtype except f64, which has its own
 * double variants; a device that stores bf16/f16 widens to float, calls the body and
 * rounds back (the way PyTorch's CUDA kernels do).
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
# define NK_KERNEL_FN __host__ __device__ static inline
#else
# define NK_KERNEL_FN static inline
#endif

/**
 * NK_MAX_DIMS:
 *
 * The most dimensions a tensor (and an iteration layout) can have.
 */
#define NK_MAX_DIMS 8

/**
 * NkUnaryOp:
 * @NK_UNARY_NEG: -x
 * @NK_UNARY_ABS: |x|
 * @NK_UNARY_EXP: e^x
 * @NK_UNARY_LOG: natural logarithm
 * @NK_UNARY_SQRT: square root
 * @NK_UNARY_RSQRT: 1 / sqrt(x)
 * @NK_UNARY_SQUARE: x²
 * @NK_UNARY_RECIPROCAL: 1 / x
 * @NK_UNARY_SIGN: -1, 0 or 1 (NaN stays NaN)
 * @NK_UNARY_SIN: sine
 * @NK_UNARY_COS: cosine
 * @NK_UNARY_TANH: hyperbolic tangent
 * @NK_UNARY_SIGMOID: 1 / (1 + e^-x)
 * @NK_UNARY_RELU: max(x, 0) (NaN propagates, like torch.relu)
 * @NK_UNARY_GELU: x·Φ(x) with the exact erf form (torch's default approximate='none')
 * @NK_UNARY_SILU: x·sigmoid(x)
 * @NK_N_UNARY_OPS: the number of unary operations
 *
 * Elementwise unary operations. Every one costs one FLOP per element in the counter.
 */
typedef enum {
  NK_UNARY_NEG,
  NK_UNARY_ABS,
  NK_UNARY_EXP,
  NK_UNARY_LOG,
  NK_UNARY_SQRT,
  NK_UNARY_RSQRT,
  NK_UNARY_SQUARE,
  NK_UNARY_RECIPROCAL,
  NK_UNARY_SIGN,
  NK_UNARY_SIN,
  NK_UNARY_COS,
  NK_UNARY_TANH,
  NK_UNARY_SIGMOID,
  NK_UNARY_RELU,
  NK_UNARY_GELU,
  NK_UNARY_SILU,
  NK_N_UNARY_OPS
} NkUnaryOp;

/**
 * NkBinaryOp:
 * @NK_BINARY_ADD: a + b
 * @NK_BINARY_SUB: a - b
 * @NK_BINARY_MUL: a · b
 * @NK_BINARY_DIV: a / b
 * @NK_BINARY_POW: a^b
 * @NK_BINARY_MAX: max(a, b) (NaN propagates, like torch.maximum)
 * @NK_BINARY_MIN: min(a, b) (NaN propagates, like torch.minimum)
 * @NK_BINARY_EQ: 1 where a == b, else 0
 * @NK_BINARY_NE: 1 where a != b, else 0
 * @NK_BINARY_LT: 1 where a < b, else 0
 * @NK_BINARY_LE: 1 where a <= b, else 0
 * @NK_BINARY_GT: 1 where a > b, else 0
 * @NK_BINARY_GE: 1 where a >= b, else 0
 * @NK_BINARY_RELU_BACKWARD: a where b > 0, else 0 (a = upstream grad, b = relu's input)
 * @NK_BINARY_SIGMOID_BACKWARD: a·b·(1 - b) (b = sigmoid's output)
 * @NK_BINARY_TANH_BACKWARD: a·(1 - b²) (b = tanh's output)
 * @NK_BINARY_GELU_BACKWARD: a·gelu'(b) (b = gelu's input, exact erf form)
 * @NK_BINARY_SILU_BACKWARD: a·silu'(b) (b = silu's input)
 * @NK_N_BINARY_OPS: the number of binary operations
 *
 * Elementwise binary operations (broadcasting is done by the caller's layout).
 * Comparisons produce 1 or 0 in the operands' dtype (Napkin has no bool dtype).
 * The *_BACKWARD members are the fused gradient bodies autograd needs so that a
 * device runs them in one pass. One FLOP per output element in the counter.
 */
typedef enum {
  NK_BINARY_ADD,
  NK_BINARY_SUB,
  NK_BINARY_MUL,
  NK_BINARY_DIV,
  NK_BINARY_POW,
  NK_BINARY_MAX,
  NK_BINARY_MIN,
  NK_BINARY_EQ,
  NK_BINARY_NE,
  NK_BINARY_LT,
  NK_BINARY_LE,
  NK_BINARY_GT,
  NK_BINARY_GE,
  NK_BINARY_RELU_BACKWARD,
  NK_BINARY_SIGMOID_BACKWARD,
  NK_BINARY_TANH_BACKWARD,
  NK_BINARY_GELU_BACKWARD,
  NK_BINARY_SILU_BACKWARD,
  NK_N_BINARY_OPS
} NkBinaryOp;

/**
 * NkReduceOp:
 * @NK_REDUCE_SUM: sum (accumulated in double on the CPU)
 * @NK_REDUCE_MEAN: sum / count
 * @NK_REDUCE_MAX: largest element (NaN propagates)
 * @NK_REDUCE_MIN: smallest element (NaN propagates)
 * @NK_N_REDUCE_OPS: the number of reductions
 *
 * Reductions over a set of dimensions. One FLOP per input element in the counter.
 */
typedef enum {
  NK_REDUCE_SUM,
  NK_REDUCE_MEAN,
  NK_REDUCE_MAX,
  NK_REDUCE_MIN,
  NK_N_REDUCE_OPS
} NkReduceOp;

/**
 * NkOptimKind:
 * @NK_OPTIM_SGD: p -= lr·(g + wd·p), with momentum when momentum > 0:
 *   buf = momentum·buf + g; p -= lr·buf (PyTorch's SGD, dampening 0)
 * @NK_OPTIM_ADAGRAD: the lecture's AdaGrad: s1 += g²; p -= lr·g / sqrt(s1 + eps)
 * @NK_OPTIM_RMSPROP: s1 = alpha·s1 + (1-alpha)·g²; p -= lr·g / (sqrt(s1) + eps)
 * @NK_OPTIM_ADAM: PyTorch's Adam (weight decay added to the gradient)
 * @NK_OPTIM_ADAMW: PyTorch's AdamW (decoupled decay p *= 1 - lr·wd first)
 *
 * The per-parameter update rules, shared so that the GPU runs the CPU-tested math.
 */
typedef enum {
  NK_OPTIM_SGD,
  NK_OPTIM_ADAGRAD,
  NK_OPTIM_RMSPROP,
  NK_OPTIM_ADAM,
  NK_OPTIM_ADAMW,
} NkOptimKind;

/**
 * NkOptimStep:
 *
 * The scalars of one optimizer step. @step counts from 1 (Adam's bias correction).
 * Unused fields are ignored by the rule that does not need them.
 */
typedef struct {
  NkOptimKind kind;
  float lr;
  float momentum;       /* SGD */
  float alpha;          /* RMSProp */
  float beta1, beta2;   /* Adam, AdamW */
  float eps;
  float weight_decay;
  int64_t step;
  /* Adam's bias corrections 1 - beta^step, the same for every element: filled once
   * per step by nk_optimizer_step_ (nk_optim_step_prepare), not per element. */
  double bias_correction1, bias_correction2;
} NkOptimStep;

/* The bodies below are C for compilers, not declarations for g-ir-scanner, whose
 * parser stops at their loops. */
#ifndef __GI_SCANNER__
/* nk_optim_step_prepare:
 * Fills the per-step constants of @st from its other fields. */
NK_KERNEL_FN void
nk_optim_step_prepare (NkOptimStep *st)
{
  st->bias_correction1 = 1.0 - pow ((double) st->beta1, (double) st->step);
  st->bias_correction2 = 1.0 - pow ((double) st->beta2, (double) st->step);
}
#endif /* __GI_SCANNER__ */

/**
 * NkIter:
 *
 * An elementwise iteration over up to three operands that share a logical shape:
 * operand 0 is the output, 1 and 2 the inputs. Strides and offsets are in elements of
 * each operand's own dtype; a broadcast input has stride 0 along the broadcast dims.
 * Dims are ordered outermost first and already coalesced by the caller (nk-ops), so
 * dim ndim-1 is the one to run in the inner loop. ndim 0 means a single element.
 *
 * The element visited at linear position i (row-major over @shape) lives, for
 * operand j, at offset[j] + Σ idx[d]·stride[j][d].
 */
typedef struct {
  int     ndim;
  int64_t numel;
  int64_t shape[NK_MAX_DIMS];
  int64_t stride[3][NK_MAX_DIMS];
  int64_t offset[3];
} NkIter;

/**
 * NkReduceIter:
 *
 * A reduction: the input is walked over @ndim dims of which the last @nreduce are
 * reduced; the output has the first ndim - nreduce dims (keepdim is a view question
 * the caller answers). Strides in elements; out_stride covers only the kept dims.
 * @count is the number of elements reduced into each output (for the mean).
 */
typedef struct {
  int     ndim;
  int     nreduce;
  int64_t count;
  int64_t shape[NK_MAX_DIMS];
  int64_t in_stride[NK_MAX_DIMS];
  int64_t out_stride[NK_MAX_DIMS];
  int64_t in_offset;
  int64_t out_offset;
} NkReduceIter;

#ifndef __GI_SCANNER__
/* nk_iter_offset:
 * Storage offset, in elements, of operand @j at linear position @i of @it. Devices
 * that index by a flat thread id (CUDA's grid-stride loops) use this; the CPU walks
 * dims incrementally instead.
 */
NK_KERNEL_FN int64_t
nk_iter_offset (const NkIter *it,
                int           j,
                int64_t       i)
{
  int64_t off = it->offset[j];

  /* contiguous operands coalesce to one dim: no 64-bit divide per element */
  if (it->ndim == 1)
    return off + i * it->stride[j][0];
  for (int d = it->ndim - 1; d >= 0; d--)
    {
      int64_t q = i / it->shape[d];
      off += (i - q * it->shape[d]) * it->stride[j][d];
      i = q;
    }
  return off;
}

/* ---- unary bodies ---------------------------------------------------------------- */

NK_KERNEL_FN float
nk_kernel_gelu_f (float x)
{
  return 0.5f * x * (1.0f + erff (x * 0.70710678118654752f));
}

NK_KERNEL_FN double
nk_kernel_gelu_d (double x)
{
  return 0.5 * x * (1.0 + erf (x * 0.70710678118654752));
}

NK_KERNEL_FN float
nk_kernel_sigmoid_f (float x)
{
  /* Two branches keep exp from overflowing for large |x|. */
  if (x >= 0.0f)
    return 1.0f / (1.0f + expf (-x));
  float e = expf (x);
  return e / (1.0f + e);
}

NK_KERNEL_FN double
nk_kernel_sigmoid_d (double x)
{
  if (x >= 0.0)
    return 1.0 / (1.0 + exp (-x));
  double e = exp (x);
  return e / (1.0 + e);
}

NK_KERNEL_FN float
nk_kernel_unary_f (int   op,
                   float x)
{
  switch (op)
    {
    case NK_UNARY_NEG: return -x;
    case NK_UNARY_ABS: return fabsf (x);
    case NK_UNARY_EXP: return expf (x);
    case NK_UNARY_LOG: return logf (x);
    case NK_UNARY_SQRT: return sqrtf (x);
    case NK_UNARY_RSQRT: return 1.0f / sqrtf (x);
    case NK_UNARY_SQUARE: return x * x;
    case NK_UNARY_RECIPROCAL: return 1.0f / x;
    case NK_UNARY_SIGN: return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == 0.0f ? 0.0f : x;
    case NK_UNARY_SIN: return sinf (x);
    case NK_UNARY_COS: return cosf (x);
    case NK_UNARY_TANH: return tanhf (x);
    case NK_UNARY_SIGMOID: return nk_kernel_sigmoid_f (x);
    case NK_UNARY_RELU: return x > 0.0f ? x : (x == x ? 0.0f : x);
    case NK_UNARY_GELU: return nk_kernel_gelu_f (x);
    case NK_UNARY_SILU: return x * nk_kernel_sigmoid_f (x);
    default: return x;
    }
}

NK_KERNEL_FN double
nk_kernel_unary_d (int    op,
                   double x)
{
  switch (op)
    {
    case NK_UNARY_NEG: return -x;
    case NK_UNARY_ABS: return fabs (x);
    case NK_UNARY_EXP: return exp (x);
    case NK_UNARY_LOG: return log (x);
    case NK_UNARY_SQRT: return sqrt (x);
    case NK_UNARY_RSQRT: return 1.0 / sqrt (x);
    case NK_UNARY_SQUARE: return x * x;
    case NK_UNARY_RECIPROCAL: return 1.0 / x;
    case NK_UNARY_SIGN: return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x == 0.0 ? 0.0 : x;
    case NK_UNARY_SIN: return sin (x);
    case NK_UNARY_COS: return cos (x);
    case NK_UNARY_TANH: return tanh (x);
    case NK_UNARY_SIGMOID: return nk_kernel_sigmoid_d (x);
    case NK_UNARY_RELU: return x > 0.0 ? x : (x == x ? 0.0 : x);
    case NK_UNARY_GELU: return nk_kernel_gelu_d (x);
    case NK_UNARY_SILU: return x * nk_kernel_sigmoid_d (x);
    default: return x;
    }
}

/* ---- binary bodies --------------------------------------------------------------- */

NK_KERNEL_FN float
nk_kernel_gelu_grad_f (float x)
{
  /* d/dx x·Φ(x) = Φ(x) + x·φ(x) */
  float cdf = 0.5f * (1.0f + erff (x * 0.70710678118654752f));
  float pdf = 0.39894228040143268f * expf (-0.5f * x * x);
  return cdf + x * pdf;
}

NK_KERNEL_FN double
nk_kernel_gelu_grad_d (double x)
{
  double cdf = 0.5 * (1.0 + erf (x * 0.70710678118654752));
  double pdf = 0.39894228040143268 * exp (-0.5 * x * x);
  return cdf + x * pdf;
}

NK_KERNEL_FN float
nk_kernel_binary_f (int   op,
                    float a,
                    float b)
{
  switch (op)
    {
    case NK_BINARY_ADD: return a + b;
    case NK_BINARY_SUB: return a - b;
    case NK_BINARY_MUL: return a * b;
    case NK_BINARY_DIV: return a / b;
    case NK_BINARY_POW: return powf (a, b);
    case NK_BINARY_MAX: return (a != a || b != b) ? a + b : (a > b ? a : b);
    case NK_BINARY_MIN: return (a != a || b != b) ? a + b : (a < b ? a : b);
    case NK_BINARY_EQ: return a == b ? 1.0f : 0.0f;
    case NK_BINARY_NE: return a != b ? 1.0f : 0.0f;
    case NK_BINARY_LT: return a < b ? 1.0f : 0.0f;
    case NK_BINARY_LE: return a <= b ? 1.0f : 0.0f;
    case NK_BINARY_GT: return a > b ? 1.0f : 0.0f;
    case NK_BINARY_GE: return a >= b ? 1.0f : 0.0f;
    case NK_BINARY_RELU_BACKWARD: return b > 0.0f ? a : 0.0f;
    case NK_BINARY_SIGMOID_BACKWARD: return a * b * (1.0f - b);
    case NK_BINARY_TANH_BACKWARD: return a * (1.0f - b * b);
    case NK_BINARY_GELU_BACKWARD: return a * nk_kernel_gelu_grad_f (b);
    case NK_BINARY_SILU_BACKWARD:
      {
        float s = nk_kernel_sigmoid_f (b);
        return a * s * (1.0f + b * (1.0f - s));
      }
    default: return a;
    }
}

NK_KERNEL_FN double
nk_kernel_binary_d (int    op,
                    double a,
                    double b)
{
  switch (op)
    {
    case NK_BINARY_ADD: return a + b;
    case NK_BINARY_SUB: return a - b;
    case NK_BINARY_MUL: return a * b;
    case NK_BINARY_DIV: return a / b;
    case NK_BINARY_POW: return pow (a, b);
    case NK_BINARY_MAX: return (a != a || b != b) ? a + b : (a > b ? a : b);
    case NK_BINARY_MIN: return (a != a || b != b) ? a + b : (a < b ? a : b);
    case NK_BINARY_EQ: return a == b ? 1.0 : 0.0;
    case NK_BINARY_NE: return a != b ? 1.0 : 0.0;
    case NK_BINARY_LT: return a < b ? 1.0 : 0.0;
    case NK_BINARY_LE: return a <= b ? 1.0 : 0.0;
    case NK_BINARY_GT: return a > b ? 1.0 : 0.0;
    case NK_BINARY_GE: return a >= b ? 1.0 : 0.0;
    case NK_BINARY_RELU_BACKWARD: return b > 0.0 ? a : 0.0;
    case NK_BINARY_SIGMOID_BACKWARD: return a * b * (1.0 - b);
    case NK_BINARY_TANH_BACKWARD: return a * (1.0 - b * b);
    case NK_BINARY_GELU_BACKWARD: return a * nk_kernel_gelu_grad_d (b);
    case NK_BINARY_SILU_BACKWARD:
      {
        double s = nk_kernel_sigmoid_d (b);
        return a * s * (1.0 + b * (1.0 - s));
      }
    default: return a;
    }
}

/* ---- reductions ------------------------------------------------------------------ */

/* The identity each reduction starts from. */
NK_KERNEL_FN double
nk_kernel_reduce_init (int op)
{
  switch (op)
    {
    case NK_REDUCE_MAX: return -INFINITY;
    case NK_REDUCE_MIN: return INFINITY;
    default: return 0.0;
    }
}

/* Folds one element into the accumulator; NaN sticks for max/min like torch. */
NK_KERNEL_FN double
nk_kernel_reduce_step (int    op,
                       double acc,
                       double x)
{
  switch (op)
    {
    case NK_REDUCE_MAX: return (acc != acc || x != x) ? acc + x : (x > acc ? x : acc);
    case NK_REDUCE_MIN: return (acc != acc || x != x) ? acc + x : (x < acc ? x : acc);
    default: return acc + x;
    }
}

NK_KERNEL_FN double
nk_kernel_reduce_finish (int     op,
                         double  acc,
                         int64_t count)
{
  if (op == NK_REDUCE_MEAN)
    return count > 0 ? acc / (double) count : NAN;
  return acc;
}

/* ---- optimizer update ------------------------------------------------------------ */

/* nk_kernel_optim_update:
 * Updates one parameter @p from its gradient @g and its state @s1, @s2 (momentum
 * buffer / squared-gradient average / Adam's m and v; unused ones may point anywhere
 * valid). Matches PyTorch's update order so results agree to rounding.
 */
NK_KERNEL_FN void
nk_kernel_optim_update (const NkOptimStep *st,
                        float             *p,
                        float              g,
                        float             *s1,
                        float             *s2)
{
  switch (st->kind)
    {
    case NK_OPTIM_SGD:
      if (st->weight_decay != 0.0f)
        g += st->weight_decay * *p;
      if (st->momentum != 0.0f)
        {
          /* PyTorch starts the buffer at g on step 1, which momentum·0 + g equals. */
          *s1 = (st->step <= 1) ? g : st->momentum * *s1 + g;
          g = *s1;
        }
      *p -= st->lr * g;
      break;

    case NK_OPTIM_ADAGRAD:
      *s1 += g * g;
      *p -= st->lr * g / sqrtf (*s1 + st->eps);
      break;

    case NK_OPTIM_RMSPROP:
      if (st->weight_decay != 0.0f)
        g += st->weight_decay * *p;
      *s1 = st->alpha * *s1 + (1.0f - st->alpha) * g * g;
      *p -= st->lr * g / (sqrtf (*s1) + st->eps);
      break;

    case NK_OPTIM_ADAM:
    case NK_OPTIM_ADAMW:
      {
        double bc1 = st->bias_correction1;
        double bc2 = st->bias_correction2;
        if (st->kind == NK_OPTIM_ADAMW)
          *p *= 1.0f - st->lr * st->weight_decay;
        else if (st->weight_decay != 0.0f)
          g += st->weight_decay * *p;
        *s1 = st->beta1 * *s1 + (1.0f - st->beta1) * g;
        *s2 = st->beta2 * *s2 + (1.0f - st->beta2) * g * g;
        float denom = sqrtf (*s2) / (float) sqrt (bc2) + st->eps;
        *p -= (float) (st->lr / bc1) * (*s1 / denom);
      }
      break;

    default:
      break;
    }
}

/* ---- rows: LayerNorm and causal softmax ------------------------------------------ */

/* The per-element math of LayerNorm and the causal softmax, shared by the CPU's row
 * loops and the GPU's warp-per-row kernels (which sum in another order). */
NK_KERNEL_FN double
nk_kernel_layernorm_elem (double x, double mean, double rstd, double w, double b)
{
  return (x - mean) * rstd * w + b;
}

/* dx from dŷ = dy·w, with m1 = mean(dŷ) and m2 = mean(dŷ·x̂) over the row. */
NK_KERNEL_FN double
nk_kernel_layernorm_dx_elem (double x, double w, double dy, double mean, double rstd,
                             double m1, double m2)
{
  double xh = (x - mean) * rstd;
  return rstd * (dy * w - m1 - xh * m2);
}

NK_KERNEL_FN double
nk_kernel_softmax_dx_elem (double y, double dy, double dot, double scale)
{
  return scale * y * (dy - dot);
}

/* d/dlogit of the mean cross-entropy: (softmax − onehot)·scale, scale = g/N. */
NK_KERNEL_FN double
nk_kernel_cross_entropy_dx_elem (double x, double lse, int is_target, double scale)
{
  return (exp (x - lse) - (is_target ? 1.0 : 0.0)) * scale;
}

/**
 * NK_KERNEL_ROWS: (skip)
 * @T: the element type, float or double
 * @S: the suffix of the generated names, f or d
 *
 * Defines one row of LayerNorm / causal softmax and their backward, in float (f32
 * storage) and double (f64). Sums accumulate in double in both, so a device that
 * runs a row per thread gets the CPU's numbers to rounding. Generated for both
 * types by one macro so the two cannot drift apart; a backend's kernels, not for
 * bindings.
 */
#define NK_KERNEL_ROWS(T, S)                                                         \
/* y = (x − mean)·rstd·w + b over @n elements; w, b may be NULL (1 and 0). */        \
NK_KERNEL_FN void                                                                    \
nk_kernel_layernorm_row_##S (const T *x, const T *w, const T *b, int64_t n,          \
                             double eps, T *y, T *mean_out, T *rstd_out)             \
{                                                                                    \
  double sum = 0.0, var = 0.0, mean, rstd;                                           \
  for (int64_t j = 0; j < n; j++)                                                    \
    sum += (double) x[j];                                                            \
  mean = n > 0 ? sum / (double) n : 0.0;                                             \
  for (int64_t j = 0; j < n; j++)                                                    \
    {                                                                                \
      double d = (double) x[j] - mean;                                               \
      var += d * d;                                                                  \
    }                                                                                \
  /* PyTorch's biased variance (divided by n). */                                    \
  rstd = 1.0 / sqrt ((n > 0 ? var / (double) n : 0.0) + eps);                        \
  for (int64_t j = 0; j < n; j++)                                                    \
    y[j] = (T) nk_kernel_layernorm_elem ((double) x[j], mean, rstd,                  \
                                         w != NULL ? (double) w[j] : 1.0,            \
                                         b != NULL ? (double) b[j] : 0.0);           \
  *mean_out = (T) mean;                                                              \
  *rstd_out = (T) rstd;                                                              \
}                                                                                    \
                                                                                     \
/* dx of one row (may be NULL), and dw/db added into double accumulators (each may  \
 * be NULL): dx = rstd·(dŷ − mean(dŷ) − ŷ·mean(dŷ·ŷ)) with dŷ = dy·w. */              \
NK_KERNEL_FN void                                                                    \
nk_kernel_layernorm_backward_row_##S (const T *x, const T *w, double mean,           \
                                      double rstd, const T *dy, int64_t n, T *dx,    \
                                      double *dw_acc, double *db_acc)                \
{                                                                                    \
  double s1 = 0.0, s2 = 0.0;                                                         \
  for (int64_t j = 0; j < n; j++)                                                    \
    {                                                                                \
      double xh = ((double) x[j] - mean) * rstd;                                     \
      double g = (double) dy[j];                                                     \
      double dxh = w != NULL ? g * (double) w[j] : g;                                \
      s1 += dxh;                                                                     \
      s2 += dxh * xh;                                                                \
      if (dw_acc != NULL)                                                            \
        dw_acc[j] += g * xh;                                                         \
      if (db_acc != NULL)                                                            \
        db_acc[j] += g;                                                              \
    }                                                                                \
  if (dx == NULL || n == 0)                                                          \
    return;                                                                          \
  s1 /= (double) n;                                                                  \
  s2 /= (double) n;                                                                  \
  for (int64_t j = 0; j < n; j++)                                                    \
    dx[j] = (T) nk_kernel_layernorm_dx_elem ((double) x[j],                          \
                                             w != NULL ? (double) w[j] : 1.0,        \
                                             (double) dy[j], mean, rstd, s1, s2);    \
}                                                                                    \
                                                                                     \
/* Row @i of a causal softmax over @n columns: y[j] = softmax(scale·x[0..i])[j] for  \
 * j ≤ i, exactly 0 beyond; x[j > i] is never read. */                               \
NK_KERNEL_FN void                                                                    \
nk_kernel_softmax_causal_row_##S (const T *x, int64_t i, int64_t n, double scale,    \
                                  T *y)                                              \
{                                                                                    \
  double m = -INFINITY, sum = 0.0;                                                   \
  int64_t last = i < n - 1 ? i : n - 1;                                              \
  for (int64_t j = 0; j <= last; j++)                                                \
    {                                                                                \
      double v = scale * (double) x[j];                                              \
      m = v > m ? v : m;                                                             \
    }                                                                                \
  /* e^(v − max) once, kept in y until the sum is known. */                         \
  for (int64_t j = 0; j <= last; j++)                                                \
    {                                                                                \
      double e = exp (scale * (double) x[j] - m);                                    \
      y[j] = (T) e;                                                                  \
      sum += e;                                                                      \
    }                                                                                \
  for (int64_t j = 0; j <= last; j++)                                                \
    y[j] = (T) ((double) y[j] / sum);                                                \
  for (int64_t j = last + 1; j < n; j++)                                             \
    y[j] = (T) 0;                                                                    \
}                                                                                    \
                                                                                     \
/* dx = scale·y·(dy − Σ dy·y) on the visible columns, 0 beyond. */                   \
NK_KERNEL_FN void                                                                    \
nk_kernel_softmax_causal_backward_row_##S (const T *y, const T *dy, int64_t i,       \
                                           int64_t n, double scale, T *dx)           \
{                                                                                    \
  double dot = 0.0;                                                                  \
  int64_t last = i < n - 1 ? i : n - 1;                                              \
  for (int64_t j = 0; j <= last; j++)                                                \
    dot += (double) dy[j] * (double) y[j];                                           \
  for (int64_t j = 0; j <= last; j++)                                                \
    dx[j] = (T) nk_kernel_softmax_dx_elem ((double) y[j], (double) dy[j], dot, scale); \
  for (int64_t j = last + 1; j < n; j++)                                             \
    dx[j] = (T) 0;                                                                   \
}

NK_KERNEL_ROWS (float, f)
NK_KERNEL_ROWS (double, d)

/**
 * NK_ROWS_CHUNK:
 *
 * Rows per partial sum of LayerNorm's parameter gradients on a device that sums
 * columns in parallel: chunk sums first, then the chunks in order (deterministic).
 */
#define NK_ROWS_CHUNK 256

/**
 * NK_KERNEL_LAYERNORM_PARAMS: (skip)
 * @T: the element type, float or double
 * @S: the suffix of the generated names, f or d
 *
 * Defines dw[j], db[j] of LayerNorm summed over rows r0..r1-1 in row order (one
 * column per call, so a device may give each column and chunk its own thread) and
 * an embedding gradient's element; a backend's kernels, not for bindings.
 */
#define NK_KERNEL_LAYERNORM_PARAMS(T, S)                                             \
NK_KERNEL_FN void                                                                    \
nk_kernel_layernorm_params_col_##S (const T *x, const T *mean, const T *rstd,        \
                                    const T *dy, int64_t r0, int64_t r1,             \
                                    int64_t cols, int64_t j, double *dw, double *db) \
{                                                                                    \
  double sw = 0.0, sb = 0.0;                                                         \
  for (int64_t r = r0; r < r1; r++)                                                  \
    {                                                                                \
      double g = (double) dy[r * cols + j];                                          \
      sw += g * (((double) x[r * cols + j] - (double) mean[r]) * (double) rstd[r]);  \
      sb += g;                                                                       \
    }                                                                                \
  *dw = sw;                                                                          \
  *db = sb;                                                                          \
}                                                                                    \
                                                                                     \
/* Element (v, j) of an embedding table's gradient: the rows of dy whose token is v, \
 * summed in position order (order[starts[v] .. starts[v+1]) lists them), so the    \
 * scatter-add is deterministic without atomics. */                                  \
NK_KERNEL_FN double                                                                  \
nk_kernel_scatter_rows_##S (const T *dy, const int64_t *order, const int64_t *starts,\
                            int64_t cols, int64_t v, int64_t j)                      \
{                                                                                    \
  double acc = 0.0;                                                                  \
  for (int64_t k = starts[v]; k < starts[v + 1]; k++)                                \
    acc += (double) dy[order[k] * cols + j];                                         \
  return acc;                                                                        \
}

NK_KERNEL_LAYERNORM_PARAMS (float, f)
NK_KERNEL_LAYERNORM_PARAMS (double, d)
#endif /* __GI_SCANNER__ */

/**
 * NkRowsOp:
 * @NK_ROWS_LAYERNORM: in[0] x, in[1] w (or NULL), in[2] b (or NULL); out[0] y,
 *   out[1] mean, out[2] rstd (one per row); scalar = eps
 * @NK_ROWS_LAYERNORM_DX: in[0] x, in[1] w (or NULL), in[2] mean, in[3] rstd,
 *   in[4] dy; out[0] dx
 * @NK_ROWS_LAYERNORM_PARAMS: in[0] x, in[2] mean, in[3] rstd, in[4] dy; out[0] dw,
 *   out[1] db (each [cols] or NULL; added to when @accumulate); out[2] double scratch
 *   of 2·⌈rows / NK_ROWS_CHUNK⌉·cols for a device that sums in chunks (the CPU
 *   ignores it)
 * @NK_ROWS_SOFTMAX_CAUSAL: in[0] scores; out[0] y; row r is query r % period;
 *   scalar = scale
 * @NK_ROWS_SOFTMAX_CAUSAL_BACKWARD: in[0] y, in[4] dy; out[0] dx; as above
 * @NK_ROWS_CROSS_ENTROPY: in[0] logits [rows, cols], in[5] int64 targets [rows]
 *   (checked by the caller); out[0] double [rows]: logsumexp − logit of the target;
 *   out[1] (T, one element): their mean, summed in row order
 * @NK_ROWS_CROSS_ENTROPY_BACKWARD: in[0] logits, in[1] the upstream gradient (one
 *   element, read on the device: no host wait), in[5] targets; out[0] dlogits;
 *   scalar = 1 / rows
 * @NK_ROWS_GATHER: in[0] table [vocab, cols], in[5] int64 ids [rows] (checked by the
 *   caller); out[0] [rows, cols]
 * @NK_ROWS_SCATTER: in[4] dy [rows, cols], in[5] int64 order [rows], in[6] int64
 *   starts [vocab + 1]; out[0] table gradient [vocab, cols] (added to when @accumulate)
 *
 * The row-wise kernels of the GPT's ops; every operand is contiguous, in one dtype
 * (f32 or f64) except the int64 index arrays.
 */
typedef enum {
  NK_ROWS_LAYERNORM,
  NK_ROWS_LAYERNORM_DX,
  NK_ROWS_LAYERNORM_PARAMS,
  NK_ROWS_SOFTMAX_CAUSAL,
  NK_ROWS_SOFTMAX_CAUSAL_BACKWARD,
  NK_ROWS_GATHER,
  NK_ROWS_SCATTER,
  NK_ROWS_CROSS_ENTROPY,
  NK_ROWS_CROSS_ENTROPY_BACKWARD,
} NkRowsOp;

/**
 * NkRowsCall: (skip)
 * @op: the kernel, an #NkRowsOp
 * @rows: the number of rows
 * @cols: elements per row
 * @period: the causal softmax's rows per query block (row r is query r % @period)
 * @vocab: the embedding table's rows (gather and scatter)
 * @scalar: the kernel's scalar (#NkRowsOp says which)
 * @accumulate: whether outputs are added to rather than written
 * @in: the inputs, device pointers (#NkRowsOp says which slot holds what)
 * @out: the outputs, device pointers
 *
 * One call of a row kernel (nk_device_rows()), as the tensor ops hand it to a
 * device. Holds device pointers, so bindings do not see it.
 */
typedef struct {
  int         op;
  int64_t     rows, cols, period, vocab;
  double      scalar;
  int         accumulate;
  const void *in[7];
  void       *out[3];
} NkRowsCall;
