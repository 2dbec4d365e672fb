/* test-gpt.c: nanoGPT's GPT: layout, init, a float64 reference forward, FLOPs, data, fp16, CLI
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: nanoGPT's state_dict layout written out here by hand; the parameter count
 * summed from that table and the closed form 12·L·d² + 13·L·d + (V + T)·d + 2·d; a
 * plain-loop float64 GPT (reference_loss() below, which shares no code with the
 * engine's ops) for the loss; the FLOPs of every product written out per layer;
 * for fp16 with loss scaling, the same run in fp32 (within fp16's unit roundoff)
 * and in bf16 (further off), GradScaler's rule replayed by hand with its own
 * constants, and the parameters' bytes before and after each step.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-test-util.h"
#include "nk-autograd.h"
#include "nk-data.h"
#include "nk-gpt.h"
#include "nk-npy.h"
#include "nk-ops.h"
#include "nk-rng.h"
#include "nk-trainer.h"

static char *tmpdir;

/* ---- layout ------------------------------------------------------------------------- */

typedef struct {
  const char *suffix;
  int         rows;   /* in units of d (0: one-dim) */
  int         cols;   /* in units of d */
} Shape;

/* nanoGPT's Block, in state_dict order: [rows·d, cols·d] or [rows·d] */
static const Shape block[] = {
  { "ln_1.weight", 1, 0 }, { "ln_1.bias", 1, 0 },
  { "attn.c_attn.weight", 3, 1 }, { "attn.c_attn.bias", 3, 0 },
  { "attn.c_proj.weight", 1, 1 }, { "attn.c_proj.bias", 1, 0 },
  { "ln_2.weight", 1, 0 }, { "ln_2.bias", 1, 0 },
  { "mlp.c_fc.weight", 4, 1 }, { "mlp.c_fc.bias", 4, 0 },
  { "mlp.c_proj.weight", 1, 4 }, { "mlp.c_proj.bias", 1, 0 },
};

static void
test_layout (void)
{
  static const guint sizes[][5] = {   /* V, T, L, H, d */
    { 256, 64, 4, 4, 128 }, { 3, 1, 1, 1, 1 }, { 50304, 1024, 2, 12, 768 }, { 17, 9, 3, 2, 6 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (sizes); c++)
    {
      guint64 V = sizes[c][0], T = sizes[c][1], L = sizes[c][2], H = sizes[c][3], d = sizes[c][4];
      g_autoptr(GError) error = NULL;
      g_autoptr(NkModel) m = NULL;
      g_auto(GStrv) names = nk_gpt_param_names (L);
      guint64 live0[2], peak, live1[2], summed = 0;
      NkTensor **params;
      guint n, i = 0;

      nk_device_get_bytes (nk_device_get_cpu (), NK_BUCKET_PARAMS, &live0[0], &peak);
      nk_device_get_bytes (nk_device_get_cpu (), NK_BUCKET_GRADS, &live0[1], &peak);
      m = nk_model_new_gpt (V, d, L, H, T, NK_DTYPE_F32, &error);
      g_assert_no_error (error);
      params = nk_model_get_params (m, &n);
      g_assert_cmpuint (n, ==, 2 + 12 * L + 2);
      g_assert_cmpuint (g_strv_length (names), ==, n);

#define EXPECT(name, r, cols) \
      G_STMT_START { \
        guint64 rows_ = (r), cols_ = (cols); \
        g_assert_cmpstr (nk_model_get_param_name (m, i), ==, name); \
        g_assert_cmpstr (names[i], ==, name); \
        g_assert_cmpint (params[i]->ndim, ==, cols_ != 0 ? 2 : 1); \
        g_assert_cmpint (params[i]->shape[0], ==, (gint64) rows_); \
        if (cols_ != 0) \
          g_assert_cmpint (params[i]->shape[1], ==, (gint64) cols_); \
        summed += rows_ * (cols_ != 0 ? cols_ : 1); \
        i++; \
      } G_STMT_END

      EXPECT ("transformer.wte.weight", V, d);
      EXPECT ("transformer.wpe.weight", T, d);
      for (guint l = 0; l < L; l++)
        for (guint k = 0; k < G_N_ELEMENTS (block); k++)
          {
            g_autofree char *name = g_strdup_printf ("transformer.h.%u.%s", l, block[k].suffix);

            EXPECT (name, block[k].rows * d, block[k].cols * d);
          }
      EXPECT ("transformer.ln_f.weight", d, 0);
      EXPECT ("transformer.ln_f.bias", d, 0);
#undef EXPECT

      g_assert_cmpuint (nk_model_count_parameters (m), ==, summed);
      g_assert_cmpuint (summed, ==, 12 * L * d * d + 13 * L * d + (V + T) * d + 2 * d);
      g_assert_cmpuint (nk_gpt_count_parameters (V, d, L, T), ==, summed);
      /* Both buckets hold 4 bytes a parameter, as the Cruncher's. */
      nk_device_get_bytes (nk_device_get_cpu (), NK_BUCKET_PARAMS, &live1[0], &peak);
      nk_device_get_bytes (nk_device_get_cpu (), NK_BUCKET_GRADS, &live1[1], &peak);
      g_assert_cmpuint (live1[0] - live0[0], ==, 4 * summed);
      g_assert_cmpuint (live1[1] - live0[1], ==, 4 * summed);
    }
}

static void
test_bad_sizes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_gpt (256, 10, 2, 4, 8, NK_DTYPE_F32, &error);

  g_assert_null (m);
  g_assert_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "not a multiple of 4 heads"));
}

/* ---- init --------------------------------------------------------------------------- */

static void
stats (NkTensor *t,
       double   *mean,
       double   *std)
{
  const float *v = nk_tensor_data_f32 (t);
  gint64 n = nk_tensor_numel (t);
  double s = 0, s2 = 0;

  for (gint64 i = 0; i < n; i++)
    s += v[i], s2 += (double) v[i] * v[i];
  *mean = s / n;
  *std = sqrt (s2 / n - *mean * *mean);
}

static void
test_init (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_gpt (256, 64, 8, 4, 128, NK_DTYPE_F32, &error);
  g_autoptr(NkRng) rng = nk_rng_new (7);
  NkTensor **params;
  guint n;

  g_assert_true (nk_model_init (m, rng, NK_INIT_TRUNC_NORMAL, &error));
  params = nk_model_get_params (m, &n);
  for (guint i = 0; i < n; i++)
    {
      const char *name = nk_model_get_param_name (m, i);
      double mean, std, want;

      stats (params[i], &mean, &std);
      if (g_str_has_suffix (name, ".bias") || strstr (name, ".ln_") != NULL)
        {
          g_assert_cmpfloat (std, ==, 0);
          g_assert_cmpfloat (mean, ==, g_str_has_suffix (name, ".bias") ? 0 : 1);
        }
      else
        {
          /* nanoGPT: N(0, 0.02), residual projections 0.02/√(2L) with L = 8 */
          want = g_str_has_suffix (name, "c_proj.weight") ? 0.02 / 4.0 : 0.02;
          g_assert_cmpfloat_with_epsilon (std, want, want * 0.08);
          g_assert_cmpfloat (fabs (mean), <, want * 0.1);
        }
    }
}

/* ---- a float64 reference ------------------------------------------------------------ */

static const double *
P (NkModel    *m,
   const char *name)
{
  guint n;
  NkTensor **params = nk_model_get_params (m, &n);

  for (guint i = 0; i < n; i++)
    if (g_str_equal (nk_model_get_param_name (m, i), name))
      return nk_tensor_data (params[i]);
  g_assert_not_reached ();
}

static const double *
Pl (NkModel    *m,
    guint       l,
    const char *suffix)
{
  g_autofree char *name = g_strdup_printf ("transformer.h.%u.%s", l, suffix);

  return P (m, name);
}

/* y[n, out] = x[n, in]·Wᵀ + b */
static void
ref_linear (const double *x, const double *w, const double *b, double *y,
            int n, int in, int out)
{
  for (int r = 0; r < n; r++)
    for (int o = 0; o < out; o++)
      {
        double s = b != NULL ? b[o] : 0;

        for (int k = 0; k < in; k++)
          s += x[r * in + k] * w[o * in + k];
        y[r * out + o] = s;
      }
}

static void
ref_layer_norm (const double *x, const double *g, const double *b, double *y, int n, int d)
{
  for (int r = 0; r < n; r++)
    {
      double mean = 0, var = 0;

      for (int k = 0; k < d; k++)
        mean += x[r * d + k];
      mean /= d;
      for (int k = 0; k < d; k++)
        var += (x[r * d + k] - mean) * (x[r * d + k] - mean);
      var /= d;
      for (int k = 0; k < d; k++)
        y[r * d + k] = (x[r * d + k] - mean) / sqrt (var + 1e-5) * g[k] + b[k];
    }
}

/* Causal attention of one sequence: qkv [T, 3d] → y [T, d]. */
static void
ref_attention (const double *qkv, double *y, int T, int d, int H)
{
  int hd = d / H;

  for (int h = 0; h < H; h++)
    for (int i = 0; i < T; i++)
      {
        double s[64], mx = -INFINITY, z = 0;

        g_assert_cmpint (T, <=, 64);
        for (int j = 0; j <= i; j++)
          {
            s[j] = 0;
            for (int k = 0; k < hd; k++)
              s[j] += qkv[i * 3 * d + h * hd + k] * qkv[j * 3 * d + d + h * hd + k];
            s[j] /= sqrt ((double) hd);
            mx = MAX (mx, s[j]);
          }
        for (int j = 0; j <= i; j++)
          z += s[j] = exp (s[j] - mx);
        for (int k = 0; k < hd; k++)
          {
            double acc = 0;

            for (int j = 0; j <= i; j++)
              acc += s[j] / z * qkv[j * 3 * d + 2 * d + h * hd + k];
            y[i * d + h * hd + k] = acc;
          }
      }
}

static double
reference_loss (NkModel *m, const gint32 *x, const gint32 *y, int B, int T)
{
  int d = nk_model_get_dim (m), H = nk_model_get_n_head (m), V = nk_model_get_vocab (m);
  int L = nk_model_get_layers (m), N = B * T;
  g_autofree double *h = g_new (double, N * d), *a = g_new (double, N * d);
  g_autofree double *qkv = g_new (double, N * 3 * d), *att = g_new (double, N * d);
  g_autofree double *f = g_new (double, N * 4 * d), *o = g_new (double, N * d);
  g_autofree double *logits = g_new (double, (gsize) N * V);
  const double *wte = P (m, "transformer.wte.weight"), *wpe = P (m, "transformer.wpe.weight");
  double loss = 0;

  for (int r = 0; r < N; r++)
    for (int k = 0; k < d; k++)
      h[r * d + k] = wte[x[r] * d + k] + wpe[(r % T) * d + k];
  for (int l = 0; l < L; l++)
    {
      ref_layer_norm (h, Pl (m, l, "ln_1.weight"), Pl (m, l, "ln_1.bias"), a, N, d);
      ref_linear (a, Pl (m, l, "attn.c_attn.weight"), Pl (m, l, "attn.c_attn.bias"), qkv, N, d, 3 * d);
      for (int b = 0; b < B; b++)
        ref_attention (qkv + b * T * 3 * d, att + b * T * d, T, d, H);
      ref_linear (att, Pl (m, l, "attn.c_proj.weight"), Pl (m, l, "attn.c_proj.bias"), o, N, d, d);
      for (int i = 0; i < N * d; i++)
        h[i] += o[i];
      ref_layer_norm (h, Pl (m, l, "ln_2.weight"), Pl (m, l, "ln_2.bias"), a, N, d);
      ref_linear (a, Pl (m, l, "mlp.c_fc.weight"), Pl (m, l, "mlp.c_fc.bias"), f, N, d, 4 * d);
      for (int i = 0; i < N * 4 * d; i++)
        f[i] = 0.5 * f[i] * (1 + erf (f[i] / sqrt (2.0)));
      ref_linear (f, Pl (m, l, "mlp.c_proj.weight"), Pl (m, l, "mlp.c_proj.bias"), o, N, 4 * d, d);
      for (int i = 0; i < N * d; i++)
        h[i] += o[i];
    }
  ref_layer_norm (h, P (m, "transformer.ln_f.weight"), P (m, "transformer.ln_f.bias"), a, N, d);
  ref_linear (a, wte, NULL, logits, N, d, V);
  for (int r = 0; r < N; r++)
    {
      double mx = -INFINITY, z = 0;

      for (int v = 0; v < V; v++)
        mx = MAX (mx, logits[r * V + v]);
      for (int v = 0; v < V; v++)
        z += exp (logits[r * V + v] - mx);
      loss += log (z) + mx - logits[r * V + y[r]];
    }
  return loss / N;
}

static void
test_forward_f64 (void)
{
  const int B = 2, T = 7, V = 11;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_gpt (V, 12, 2, 3, 8, NK_DTYPE_F64, &error);
  g_autoptr(NkRng) rng = nk_rng_new (3);
  g_autoptr(NkTensor) x = NULL;
  g_autoptr(NkTensor) y = NULL;
  g_autoptr(NkTensor) loss = NULL;
  guint n;
  NkTensor **params;
  double got;

  g_assert_no_error (error);
  /* Larger than nanoGPT's init, and every LayerNorm and bias away from 1 and 0, so
   * each term of the block shows in the loss. */
  params = nk_model_get_params (m, &n);
  for (guint i = 0; i < n; i++)
    g_assert_true (nk_init_normal_ (params[i], rng, i % 3 == 0 ? 1.0 : 0.0, 0.3));
  x = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32, NK_SHAPE (B, T), NK_BUCKET_DATA, FALSE, &error);
  y = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32, NK_SHAPE (B, T), NK_BUCKET_DATA, FALSE, &error);
  for (int i = 0; i < B * T; i++)
    {
      ((gint32 *) nk_tensor_data (x))[i] = (gint32) nk_rng_uniform_int (rng, V);
      ((gint32 *) nk_tensor_data (y))[i] = (gint32) nk_rng_uniform_int (rng, V);
    }
  loss = nk_model_loss (m, x, y, &error);
  g_assert_no_error (error);
  g_assert_true (nk_tensor_item (loss, &got, &error));
  nk_autograd_release (loss);
  g_assert_cmpfloat_with_epsilon (got, reference_loss (m, nk_tensor_data (x), nk_tensor_data (y), B, T), 1e-10);
}

/* ---- FLOPs ---------------------------------------------------------------------------- */

static void
test_flops (void)
{
  const guint64 V = 40, T = 16, L = 3, H = 4, d = 32, B = 3;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkModel) m = nk_model_new_gpt (V, d, L, H, T, NK_DTYPE_F32, &error);
  g_autoptr(NkRng) rng = nk_rng_new (1);
  g_autoptr(NkTensor) x = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32, NK_SHAPE (B, T),
                                              NK_BUCKET_DATA, TRUE, &error);
  g_autoptr(NkTensor) loss = NULL;
  guint64 per_token, attention, linear;

  g_assert_true (nk_model_init (m, rng, NK_INIT_TRUNC_NORMAL, &error));
  nk_flops_reset ();
  nk_autograd_reset_matmul_flops ();
  loss = nk_model_loss (m, x, x, &error);
  g_assert_no_error (error);
  g_assert_true (nk_autograd_backward (loss, &error));

  /* Per token and layer, forward: c_attn 2·d·3d, c_proj 2·d·d, c_fc 2·d·4d, mlp
   * c_proj 2·4d·d; the head 2·d·V once. Backward doubles each (dX and dW). */
  per_token = L * (6 * d * d + 2 * d * d + 8 * d * d + 8 * d * d) + 2 * d * V;
  linear = 3 * B * T * per_token;
  /* Forward: q·kᵀ is [T, hd]·[hd, T] per head, 2·T·T·hd, att·v the same; over H heads
   * 4·T²·d a sequence; backward twice that. */
  attention = 3 * L * B * 4 * T * T * d;
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_LINEAR), ==, linear);
  g_assert_cmpuint (nk_autograd_get_flops (NK_FLOP_KIND_ATTENTION), ==, attention);
  g_assert_cmpuint (nk_autograd_get_matmul_flops (), ==, linear + attention);
  g_assert_cmpfloat (nk_gpt_matmul_flops (V, d, L, T, B), ==, (double) (linear + attention));
  /* PaLM/nanoGPT: 6·N' + 12·L·T·d per token, N' = all but wpe. Napkin's products
   * add exactly what the formula's 6·(13·L·d + 2·d) counts for biases and LayerNorms. */
  g_assert_cmpfloat (nk_gpt_flops_formula (V, d, L, T, (double) (B * T)), ==,
                     (double) (linear + attention) + 6.0 * B * T * (13 * L * d + 2 * d));
  /* Elementwise work is the rest, and there is some. */
  g_assert_cmpuint (nk_flops_get (), >, linear + attention);
}

/* ---- data ----------------------------------------------------------------------------- */

static void
test_text_bytes (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "text.txt", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkTokenStream) ts = NULL;
  const char text[] = "h\xc3\xa9llo";   /* é is two bytes */

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  ts = nk_token_stream_new_from_text_file (path, &error);
  g_assert_no_error (error);
  /* As bytes, not as 3 uint16 (the old reading of an even-sized file). */
  g_assert_cmpuint (nk_token_stream_get_length (ts), ==, 6);
  g_assert_cmpuint (nk_token_stream_get_token (ts, 1), ==, 0xc3);
  g_assert_cmpuint (nk_token_stream_get_token (ts, 2), ==, 0xa9);
  g_assert_cmpuint (nk_token_stream_get_vocab_size (ts), ==, 256);
}

static void
test_batches (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "batches.npy", NULL);
  g_autofree char *bad = g_build_filename (tmpdir, "bad-batches.npy", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(NkBatchFile) bf = NULL;
  gint64 data[3 * 2 * 5];
  gint32 x[2 * 4], y[2 * 4];

  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    data[i] = i;
  g_assert_true (nk_npy_save (path, NK_NPY_I8, 3, (const gint64[]) { 3, 2, 5 }, data, &error));
  bf = nk_batch_file_new (path, 30, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (nk_batch_file_get_n (bf), ==, 3);
  g_assert_cmpuint (nk_batch_file_get_batch (bf), ==, 2);
  g_assert_cmpuint (nk_batch_file_get_context (bf), ==, 4);
  /* Step 4 uses batch 4 mod 3 = 1: rows [10..14] and [15..19] */
  nk_batch_file_fill (bf, 4, x, y);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 4; c++)
      {
        g_assert_cmpint (x[r * 4 + c], ==, 10 + r * 5 + c);
        g_assert_cmpint (y[r * 4 + c], ==, 10 + r * 5 + c + 1);
      }

  /* A token outside the vocabulary is named where it is, when the file opens. */
  data[2 * 10 + 1 * 5 + 3] = 99;
  g_assert_true (nk_npy_save (bad, NK_NPY_I8, 3, (const gint64[]) { 3, 2, 5 }, data, &error));
  g_clear_pointer (&bf, nk_batch_file_free);
  bf = nk_batch_file_new (bad, 30, &error);
  g_assert_null (bf);
  g_assert_error (error, NK_DATA_ERROR, NK_DATA_ERROR_TOKENS);
  g_assert_nonnull (strstr (error->message, "bad-batches.npy"));
  g_assert_nonnull (strstr (error->message, "batch 2, row 1, column 3"));
  g_assert_nonnull (strstr (error->message, "is 99"));
}

/* ---- samples during a run ---------------------------------------------------------- */

static void
test_trainer_sample (void)
{
  g_autoptr(NkTrainConfig) c = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NkRng) rng = NULL;
  g_autoptr(GArray) again = NULL;
  g_autofree char *text = NULL;
  const guint32 newline = '\n';
  guint64 step = 0;
  guint n = 0;

  c->model = NK_MODEL_GPT;
  c->dim = 16;
  c->layers = 1;
  c->n_head = 2;
  c->context = 8;
  c->batch = 2;
  c->steps = 5;
  c->lr = 1e-3;
  c->seed = 11;
  c->sample_every = 2;
  trainer = nk_trainer_new (c);
  g_assert_null (nk_trainer_dup_sample (trainer, NULL));
  g_assert_true (nk_trainer_run_sync (trainer, NULL, &error));
  g_assert_no_error (error);
  /* Every 2 steps and after the last: the last is step 5's. */
  text = nk_trainer_dup_sample (trainer, &step);
  g_assert_nonnull (text);
  g_assert_cmpuint (step, ==, 5);
  g_assert_true (g_utf8_validate (text, -1, NULL));

  /* The trained model continues a newline with the step's generator: the same bytes. */
  rng = nk_rng_new (11 ^ 5);
  again = nk_gpt_generate (nk_trainer_get_model (trainer), &newline, 1, NK_TRAINER_SAMPLE_TOKENS,
                           0.8, 200, rng, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < again->len; i++)
    if (g_array_index (again, guint32, i) < 128)
      {
        g_assert_cmpint ((guchar) text[n], ==, g_array_index (again, guint32, i));
        n++;
      }
    else
      break;
  g_assert_cmpuint (n, >, 0);
}

/* ---- fp16 with loss scaling --------------------------------------------------------- */

/* torch.cuda.amp.GradScaler's defaults, written here rather than read from the engine:
 * init_scale 2¹⁶, backoff_factor 0.5, growth_factor 2, growth_interval 2000. */
#define SCALER_INIT     65536.0
#define SCALER_INTERVAL 2000

/* A stream of @n int32 tokens below @vocab, with structure a GPT can learn (a cycle
 * with an occasional jump), written as .npy. */
static char *
write_tokens (const char *name,
              guint       n,
              guint       vocab)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autofree gint32 *data = g_new (gint32, n);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n; i++)
    data[i] = (gint32) ((i * 7 + i / 13) % vocab);
  g_assert_true (nk_npy_save (path, NK_NPY_I4, 1, (const gint64[]) { n }, data, &error));
  g_assert_no_error (error);
  return path;
}

/* V 40, d 32, L 2, H 4, T 16, B 4 on @tokens */
static NkTrainConfig *
fp16_gpt_config (const char  *tokens,
                 NkPrecision  precision)
{
  NkTrainConfig *c = nk_train_config_new ();

  c->model = NK_MODEL_GPT;
  c->vocab = 40;
  c->dim = 32;
  c->layers = 2;
  c->n_head = 4;
  c->context = 16;
  c->batch = 4;
  c->steps = 10;
  c->lr = 1e-3;
  c->seed = 21;
  c->precision = precision;
  c->tokens_file = g_strdup (tokens);
  return c;
}

static GArray *
run_history (const NkTrainConfig  *c,
             NkTrainer           **out_trainer)
{
  g_autoptr(NkTrainer) t = nk_trainer_new (c);
  g_autoptr(GError) error = NULL;

  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (nk_trainer_get_state (t), ==, NK_TRAINER_STATE_FINISHED);
  if (out_trainer != NULL)
    *out_trainer = g_object_ref (t);
  return nk_trainer_get_history (t);
}

/* GradScaler's rule, replayed by hand over a history: each step reports the scale it
 * ran at; an overflowed step halves it and restarts the count, SCALER_INTERVAL good
 * steps in a row double it. Returns the number of doublings seen. */
static guint
check_scaler_rule (GArray *h)
{
  double scale = SCALER_INIT;
  guint good = 0, doublings = 0;
  guint64 skipped = 0;

  for (guint i = 0; i < h->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (h, NkTrainMetrics, i);

      g_assert_cmpuint (m->step, ==, i + 1);
      g_assert_cmpfloat (m->loss_scale, ==, scale);
      if (m->skipped)
        {
          skipped++;
          scale /= 2;
          good = 0;
        }
      else if (++good == SCALER_INTERVAL)
        {
          scale *= 2;
          good = 0;
          doublings++;
        }
      g_assert_cmpuint (m->skipped_steps, ==, skipped);
    }
  return doublings;
}

/* The fp16 run against the same run in fp32 (and, to show the comparison can tell
 * formats apart, in bf16). Plain SGD at lr 0.1: its update is proportional to the
 * gradient, so a scale left in the gradients (a missing unscale) would make the
 * update 65536 times too large and the runs part at once (Adam's m/√v would hide it),
 * and the loss falls by a tenth in 10 steps, so the runs do move. */
static void
test_fp16_against_fp32 (void)
{
  const double u = 0x1p-11;   /* fp16's unit roundoff: 11 significant bits */
  g_autofree char *tokens = write_tokens ("fp16-tokens.npy", 4096, 40);
  g_autoptr(NkTrainConfig) c32 = fp16_gpt_config (tokens, NK_PRECISION_FP32);
  g_autoptr(NkTrainConfig) c16 = fp16_gpt_config (tokens, NK_PRECISION_FP16_MIXED);
  g_autoptr(NkTrainConfig) cb16 = fp16_gpt_config (tokens, NK_PRECISION_BF16_MIXED);
  g_autoptr(NkTrainer) t16 = NULL;
  g_autoptr(GArray) h32 = NULL;
  g_autoptr(GArray) h16 = NULL;
  g_autoptr(GArray) hb16 = NULL;
  guint64 expected_peak;
  double worst = 0, worst_bf16 = 0;
  guint differ = 0;

  c32->optimizer = c16->optimizer = cb16->optimizer = NK_OPTIMIZER_SGD;
  c32->lr = c16->lr = cb16->lr = 0.1;
  h32 = run_history (c32, NULL);
  h16 = run_history (c16, &t16);
  hb16 = run_history (cb16, NULL);
  g_assert_cmpuint (h32->len, ==, 10);
  g_assert_cmpuint (h16->len, ==, 10);
  g_assert_cmpuint (hb16->len, ==, 10);
  expected_peak = nk_gpt_activation_bytes (40, 32, 2, 4, 4, 16, NK_DTYPE_F16);
  for (guint i = 0; i < h16->len; i++)
    {
      const NkTrainMetrics *a = &g_array_index (h32, NkTrainMetrics, i);
      const NkTrainMetrics *b = &g_array_index (h16, NkTrainMetrics, i);
      const NkTrainMetrics *f = &g_array_index (hb16, NkTrainMetrics, i);

      g_assert_true (isfinite (b->loss));
      g_assert_false (b->skipped);
      /* The tolerance, u·loss (2⁻¹¹ relative, ~0.0018 nats here): the logits go
       * through fp16 once more at the end, and rounding each of them moves it by up
       * to u/2·|z| (|z| < 1 here: at nanoGPT's init a logit sums d products of
       * LayerNorm outputs of size ~1 with weights of std 0.02, std 0.02·√d ≈ 0.11);
       * the loss, log Σ exp z − z_target, is 1-Lipschitz in each term under the max
       * norm, so that last rounding alone may shift it by u. The products before it
       * round their operands
       * the same way, and the 10 updates carry those differences on; their errors are
       * independent and mostly cancel in the mean over B·T = 64 positions, which is
       * why the measured difference is some tens of times smaller (the run's worst is
       * printed below). bf16's 8 significant bits (u = 2⁻⁸) miss this bound. */
      g_assert_cmpfloat (fabs (b->loss - a->loss), <=, u * a->loss);
      worst = MAX (worst, fabs (b->loss - a->loss) / a->loss);
      worst_bf16 = MAX (worst_bf16, fabs (f->loss - a->loss) / a->loss);
      differ += b->loss != a->loss;
      /* The activations bucket peaks at what the forward keeps with f16 products (the
       * arena hands the same buffers out every step, so each step says the same). */
      g_assert_cmpuint (b->memory_peak[NK_BUCKET_ACTIVATIONS], ==, expected_peak);
    }
  g_test_message ("fp16 against fp32: worst relative loss difference %.3g (bound %.3g); bf16's %.3g",
                  worst, u, worst_bf16);
  /* The products were rounded (not fp32 under another name), and less than bf16's. */
  g_assert_cmpuint (differ, >, 0);
  g_assert_cmpfloat (worst, <, worst_bf16);
  g_assert_cmpuint (check_scaler_rule (h16), ==, 0);
  g_assert_cmpuint (nk_trainer_get_skipped_steps (t16), ==, 0);
}

/* SCALER_INTERVAL good steps in a row double the scale (a GPT small enough to run
 * them in half a second, big enough that 65536 overflows none of them: with d 8 and
 * B·T 4 the first step's head gradient, a sum of 4 rows of up to 65536/4 times
 * LayerNorm outputs of up to √8, already passes 65504, as in PyTorch). */
static void
test_fp16_scale_growth (void)
{
  g_autofree char *tokens = write_tokens ("fp16-growth-tokens.npy", 1024, 40);
  g_autoptr(NkTrainConfig) c = fp16_gpt_config (tokens, NK_PRECISION_FP16_MIXED);
  g_autoptr(GArray) h = NULL;

  c->dim = 16;
  c->layers = 1;
  c->n_head = 2;
  c->context = 8;
  c->batch = 2;
  c->steps = SCALER_INTERVAL + 5;
  h = run_history (c, NULL);
  g_assert_cmpuint (h->len, ==, SCALER_INTERVAL + 5);
  /* Only good steps before the doubling: it comes right after step 2000. */
  for (guint i = 0; i < SCALER_INTERVAL; i++)
    g_assert_false (g_array_index (h, NkTrainMetrics, i).skipped);
  g_assert_cmpfloat (g_array_index (h, NkTrainMetrics, SCALER_INTERVAL - 1).loss_scale, ==, 65536.0);
  g_assert_cmpfloat (g_array_index (h, NkTrainMetrics, SCALER_INTERVAL).loss_scale, ==, 131072.0);
  g_assert_cmpuint (check_scaler_rule (h), ==, 1);
}

/* ---- fp16 overflow: a skipped step leaves the parameters alone -------------------- */

/* All the parameters' bytes, in state_dict order. */
static GBytes *
snapshot_params (NkModel *model)
{
  GByteArray *all = g_byte_array_new ();
  NkTensor **params;
  guint n;

  params = nk_model_get_params (model, &n);
  for (guint i = 0; i < n; i++)
    g_byte_array_append (all, nk_tensor_data (params[i]),
                         nk_tensor_numel (params[i]) * sizeof (float));
  return g_byte_array_free_to_bytes (all);
}

typedef struct {
  GBytes *previous;   /* the parameters before the step */
  guint   steps;
  guint   skipped;
} Watch;

/* ::step, on the calling thread of run_sync, after each step's update */
static void
on_step_watch (NkTrainer            *trainer,
               const NkTrainMetrics *m,
               gpointer              data)
{
  Watch *w = data;
  g_autoptr(GBytes) now = snapshot_params (nk_trainer_get_model (trainer));

  w->steps++;
  if (m->skipped)
    {
      g_assert_true (g_bytes_equal (now, w->previous));
      w->skipped++;
    }
  else
    g_assert_false (g_bytes_equal (now, w->previous));
  g_bytes_unref (w->previous);
  w->previous = g_steal_pointer (&now);
}

/* Runs @c from the parameters of @init (written to a file as its init_file), checking
 * each step against the parameters before it; returns the history. */
static GArray *
run_watched (NkTrainConfig *c,
             NkTrainer     *init,
             const char    *init_path,
             NkTrainer    **out_trainer)
{
  g_autoptr(GError) error = NULL;
  NkTrainer *t;
  Watch w = { 0 };
  GArray *h;

  g_assert_true (nk_trainer_save (init, init_path, &error));
  g_assert_no_error (error);
  g_free (c->init_file);
  c->init_file = g_strdup (init_path);
  w.previous = snapshot_params (nk_trainer_get_model (init));
  t = nk_trainer_new (c);
  g_signal_connect (t, "step", G_CALLBACK (on_step_watch), &w);
  g_assert_true (nk_trainer_run_sync (t, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (w.steps, ==, c->steps);
  h = nk_trainer_get_history (t);
  g_assert_cmpuint (nk_trainer_get_skipped_steps (t), ==, w.skipped);
  g_bytes_unref (w.previous);
  *out_trainer = t;
  return h;
}

static void
test_fp16_overflow (void)
{
  g_autofree char *tokens = write_tokens ("fp16-overflow-tokens.npy", 4096, 40);
  g_autofree char *init_path = g_build_filename (tmpdir, "fp16-init.safetensors", NULL);
  g_autoptr(NkTrainConfig) c0 = fp16_gpt_config (tokens, NK_PRECISION_FP32);
  g_autoptr(NkTrainConfig) c1 = fp16_gpt_config (tokens, NK_PRECISION_FP16_MIXED);
  g_autoptr(NkTrainConfig) c2 = fp16_gpt_config (tokens, NK_PRECISION_FP16_MIXED);
  g_autoptr(NkTrainer) t0 = NULL;
  g_autoptr(NkTrainer) t1 = NULL;
  g_autoptr(NkTrainer) t2 = NULL;
  g_autoptr(GArray) h0 = NULL;
  g_autoptr(GArray) h1 = NULL;
  g_autoptr(GArray) h2 = NULL;

  /* Parameters a step away from the init, both fp16 runs start from. */
  c0->steps = 1;
  h0 = run_history (c0, &t0);

  /* An inf gradient with a finite loss: a first scale of 2⁴⁰. The loss's gradient at
   * the logits is (softmax − onehot)/(B·T), up to 1/64 in size; times 2⁴⁰ that is
   * 2³⁴, past fp16's largest 65504 when the products round it, and so for 2³⁹, 2³⁸.
   * Each step is skipped (the watch checks the parameters did not move), and the
   * scale halves each time. */
  c1->loss_scale_init = 0x1p40;
  c1->steps = 3;
  h1 = run_watched (c1, t0, init_path, &t1);
  for (guint i = 0; i < h1->len; i++)
    {
      const NkTrainMetrics *m = &g_array_index (h1, NkTrainMetrics, i);

      g_assert_true (isfinite (m->loss));
      g_assert_true (m->skipped);
      g_assert_cmpuint (m->skipped_steps, ==, i + 1);
      g_assert_cmpfloat (m->loss_scale, ==, ldexp (1.0, 40 - (int) i));
    }
  g_assert_cmpuint (nk_trainer_get_skipped_steps (t1), ==, 3);

  /* A learning rate of 10⁴ at the default scale: step 1 is good and moves every
   * weight by ~10⁴·gradient, and step 2's forward then overflows fp16 (its loss is
   * not finite); it is skipped, the parameters stay as step 1 left them, and the
   * scale halves: 65536 for steps 1 and 2, 32768 for step 3, 16384 for step 4. */
  c2->optimizer = NK_OPTIMIZER_SGD;
  c2->lr = 1e4;
  c2->steps = 4;
  h2 = run_watched (c2, t0, init_path, &t2);
  g_assert_false (g_array_index (h2, NkTrainMetrics, 0).skipped);
  g_assert_true (isfinite (g_array_index (h2, NkTrainMetrics, 0).loss));
  g_assert_true (g_array_index (h2, NkTrainMetrics, 1).skipped);
  g_assert_cmpfloat (g_array_index (h2, NkTrainMetrics, 0).loss_scale, ==, 65536.0);
  g_assert_cmpfloat (g_array_index (h2, NkTrainMetrics, 1).loss_scale, ==, 65536.0);
  g_assert_cmpfloat (g_array_index (h2, NkTrainMetrics, 2).loss_scale, ==, 32768.0);
  g_assert_cmpuint (g_array_index (h2, NkTrainMetrics, 1).skipped_steps, ==, 1);
  check_scaler_rule (h2);
}

/* ---- the CLI -------------------------------------------------------------------------- */

static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_cli_train_and_sample (void)
{
  g_autofree char *batches = g_build_filename (tmpdir, "cli-batches.npy", NULL);
  g_autofree char *save = g_build_filename (tmpdir, "gpt.safetensors", NULL);
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(JsonObject) o = NULL;
  g_autoptr(JsonObject) s = NULL;
  g_autoptr(GError) error = NULL;
  const guint64 V = 128, T = 8, L = 2, d = 16, B = 2, N = 12 * L * d * d + 13 * L * d + (V + T) * d + 2 * d;
  gint32 data[2 * 2 * 9];
  const char *train[] = { "train", "--model", "gpt", "--n-layer", "2", "--n-head", "2", "--n-embd", "16",
                          "--block-size", "8", "--vocab", "128", "--batch", "2", "--steps", "3",
                          "--batches", batches, "--save", save, "--json-lines", NULL };
  const char *sample[] = { "sample", "--from", save, "--prompt", "ab", "--tokens", "5", "--json", NULL };
  JsonObject *mem, *pred;

  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    data[i] = (gint32) ((i * 7) % V);
  g_assert_true (nk_npy_save (batches, NK_NPY_I4, 3, (const gint64[]) { 2, 2, 9 }, data, &error));
  g_assert_cmpint (nk_test_cli (NULL, train, &out, &err), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  o = parse_object (lines[0]);
  g_assert_cmpfloat (json_object_get_double_member (o, "flops_formula"), ==,
                     (6.0 * (N - T * d) + 12.0 * L * T * d) * B * T);
  mem = json_object_get_object_member (o, "memory");
  pred = json_object_get_object_member (o, "memory_predicted");
  g_assert_cmpint (json_object_get_int_member (mem, "params"), ==, 4 * N);
  g_assert_cmpint (json_object_get_int_member (mem, "grads"), ==, 4 * N);
  g_assert_cmpint (json_object_get_int_member (mem, "optimizer"), ==, 8 * N);
  g_assert_cmpfloat (json_object_get_double_member (pred, "params"), ==, 4.0 * N);
  g_assert_cmpfloat (json_object_get_double_member (pred, "optimizer"), ==, 8.0 * N);
  g_assert_cmpint (json_object_get_int_member (o, "flops_attention"), ==, 12 * L * B * T * T * d);
  /* The device's count of the activations bucket against nk_gpt_activation_bytes(). */
  g_assert_cmpfloat (json_object_get_double_member (pred, "activations"), ==,
                     (double) json_object_get_int_member (mem, "activations"));

  g_assert_cmpint (nk_test_cli (NULL, sample, &out2, &err2), ==, 0);
  s = parse_object (out2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (s, "tokens")), ==, 5);
}

/* Under autocast the narrow copies count too (nk-gpt.h's terms), for odd sizes. */
static void
test_cli_activations_mixed (void)
{
  static const char *const configs[][6] = {
    { "3", "4", "64", "24", "3", "300" }, { "1", "1", "8", "5", "2", "257" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (configs); i++)
    for (guint p = 0; p < 2; p++)
      {
        g_autofree char *out = NULL, *err = NULL;
        g_auto(GStrv) lines = NULL;
        g_autoptr(JsonObject) o = NULL;
        const char *train[] = { "train", "--model", "gpt", "--n-layer", configs[i][0], "--n-head", configs[i][1],
                                "--n-embd", configs[i][2], "--block-size", configs[i][3], "--batch", configs[i][4],
                                "--vocab", configs[i][5], "--steps", "1", "--precision",
                                p == 0 ? "fp32" : "bf16-mixed", "--json-lines", NULL };

        g_assert_cmpint (nk_test_cli (NULL, train, &out, &err), ==, 0);
        lines = g_strsplit (out, "\n", -1);
        o = parse_object (lines[0]);
        g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (o, "memory_predicted"), "activations"), ==,
                           (double) json_object_get_int_member (json_object_get_object_member (o, "memory"), "activations"));
      }
}

static void
test_cli_bad_token (void)
{
  g_autofree char *tokens = g_build_filename (tmpdir, "tok.npy", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  gint32 data[100];
  const char *train[] = { "train", "--model", "gpt", "--n-layer", "1", "--n-head", "1", "--n-embd", "4",
                          "--block-size", "4", "--vocab", "50", "--steps", "1", "--tokens", tokens, NULL };

  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    data[i] = (gint32) (i % 50);
  data[77] = 50;
  g_assert_true (nk_npy_save (tokens, NK_NPY_I4, 1, (const gint64[]) { 100 }, data, &error));
  g_assert_cmpint (nk_test_cli (NULL, train, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "tok.npy"));
  g_assert_nonnull (strstr (err, "token 77 "));
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("napkin-test-gpt-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  g_test_add_func ("/engine/gpt/layout", test_layout);
  g_test_add_func ("/engine/gpt/bad-sizes", test_bad_sizes);
  g_test_add_func ("/engine/gpt/init", test_init);
  g_test_add_func ("/engine/gpt/forward-f64", test_forward_f64);
  g_test_add_func ("/engine/gpt/flops", test_flops);
  g_test_add_func ("/engine/gpt/data/text-bytes", test_text_bytes);
  g_test_add_func ("/engine/gpt/data/batches", test_batches);
  g_test_add_func ("/engine/gpt/trainer-sample", test_trainer_sample);
  g_test_add_func ("/engine/gpt/fp16/against-fp32", test_fp16_against_fp32);
  g_test_add_func ("/engine/gpt/fp16/scale-growth", test_fp16_scale_growth);
  g_test_add_func ("/engine/gpt/fp16/overflow", test_fp16_overflow);
  g_test_add_func ("/engine/gpt/cli/train-and-sample", test_cli_train_and_sample);
  g_test_add_func ("/engine/gpt/cli/activations-mixed", test_cli_activations_mixed);
  g_test_add_func ("/engine/gpt/cli/bad-token", test_cli_bad_token);

  ret = g_test_run ();
  {
    g_autoptr(GFile) dir = g_file_new_for_path (tmpdir);
    g_autoptr(GFileEnumerator) e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                              G_FILE_QUERY_INFO_NONE, NULL, NULL);
    GFileInfo *info;

    while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
      {
        g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));

        g_file_delete (child, NULL, NULL);
        g_object_unref (info);
      }
    g_rmdir (tmpdir);
  }
  g_free (tmpdir);
  return ret;
}
