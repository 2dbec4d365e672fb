/* nk-gpt.c: nanoGPT's GPT (a GPT-2-style decoder) on nk-autograd's ops
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "nk-autograd-nn.h"
#include "nk-autograd-quant.h"
#include "nk-gpt.h"
#include "nk-model-private.h"
#include "nk-ops.h"

/* nanoGPT's _init_weights: std of every weight and embedding. */
#define GPT_INIT_STD 0.02

/* Per block, in nanoGPT's state_dict order. */
static const char *const block_params[] = {
  "ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
  "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
  "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias",
};
#define N_BLOCK_PARAMS G_N_ELEMENTS (block_params)
/* Index of the first block's first parameter, after wte and wpe. */
#define FIRST_BLOCK 2

/**
 * nk_gpt_check_sizes:
 * @vocab: V
 * @n_embd: d, a multiple of @n_head
 * @n_layer: L
 * @n_head: H
 * @block_size: T
 * @error: return location for a #GError (%NK_MODEL_ERROR_INVALID)
 *
 * Checks the sizes nk_model_new_gpt() takes, failing with the sentence it would fail
 * with, without building anything.
 *
 * Returns: %TRUE if a GPT of these sizes can be built
 */
gboolean
nk_gpt_check_sizes (guint     vocab,
                    guint     n_embd,
                    guint     n_layer,
                    guint     n_head,
                    guint     block_size,
                    GError  **error)
{
  if (n_embd == 0 || n_embd > 65536 || n_layer == 0 || n_layer > 4096)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A GPT needs 1 ≤ n_embd ≤ 65536 and 1 to 4096 layers (got n_embd %u, %u layers)."),
                   n_embd, n_layer);
      return FALSE;
    }
  if (n_head == 0 || n_embd % n_head != 0)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("n_embd %u is not a multiple of %u heads."), n_embd, n_head);
      return FALSE;
    }
  if (block_size == 0 || block_size > 1 << 20)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A block size of %u tokens is not between 1 and 1048576."), block_size);
      return FALSE;
    }
  if (vocab == 0 || vocab > G_MAXINT32)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A vocabulary of %u tokens is not between 1 and 2147483647."), vocab);
      return FALSE;
    }
  return TRUE;
}

NkModel *
nk_model_new_gpt (guint     vocab,
                  guint     n_embd,
                  guint     n_layer,
                  guint     n_head,
                  guint     block_size,
                  NkDType   dtype,
                  GError  **error)
{
  g_autoptr(NkModel) model = NULL;
  gint64 d = n_embd;

  g_return_val_if_fail (dtype == NK_DTYPE_F32 || dtype == NK_DTYPE_F64, NULL);
  if (!nk_gpt_check_sizes (vocab, n_embd, n_layer, n_head, block_size, error))
    return NULL;

  model = _nk_model_new (&_nk_gpt_arch,
                         &(NkModelShape) { .vocab = vocab, .dim = n_embd, .layers = n_layer,
                                           .n_head = n_head, .context = block_size },
                         dtype);
  if (!_nk_model_add_param (model, "transformer.wte.weight", NK_SHAPE (vocab, d), 0, error)
      || !_nk_model_add_param (model, "transformer.wpe.weight", NK_SHAPE (block_size, d), 0, error))
    return NULL;
  for (guint l = 0; l < n_layer; l++)
    {
      g_autofree char *ln_1 = g_strdup_printf ("transformer.h.%u.ln_1", l);
      g_autofree char *ln_2 = g_strdup_printf ("transformer.h.%u.ln_2", l);
      g_autofree char *ln_1w = g_strconcat (ln_1, ".weight", NULL);
      g_autofree char *ln_1b = g_strconcat (ln_1, ".bias", NULL);
      g_autofree char *ln_2w = g_strconcat (ln_2, ".weight", NULL);
      g_autofree char *ln_2b = g_strconcat (ln_2, ".bias", NULL);
      g_autofree char *c_attn = g_strdup_printf ("transformer.h.%u.attn.c_attn", l);
      g_autofree char *a_proj = g_strdup_printf ("transformer.h.%u.attn.c_proj", l);
      g_autofree char *c_fc = g_strdup_printf ("transformer.h.%u.mlp.c_fc", l);
      g_autofree char *m_proj = g_strdup_printf ("transformer.h.%u.mlp.c_proj", l);

      if (!_nk_model_add_param (model, ln_1w, NK_SHAPE (d), d, error)
          || !_nk_model_add_param (model, ln_1b, NK_SHAPE (d), d, error)
          || !_nk_model_add_linear (model, c_attn, d, 3 * d, error)
          || !_nk_model_add_linear (model, a_proj, d, d, error)
          || !_nk_model_add_param (model, ln_2w, NK_SHAPE (d), d, error)
          || !_nk_model_add_param (model, ln_2b, NK_SHAPE (d), d, error)
          || !_nk_model_add_linear (model, c_fc, d, 4 * d, error)
          || !_nk_model_add_linear (model, m_proj, 4 * d, d, error))
        return NULL;
    }
  if (!_nk_model_add_param (model, "transformer.ln_f.weight", NK_SHAPE (d), d, error)
      || !_nk_model_add_param (model, "transformer.ln_f.bias", NK_SHAPE (d), d, error))
    return NULL;
  return g_steal_pointer (&model);
}

/**
 * nk_gpt_count_parameters:
 * @vocab: V
 * @n_embd: d
 * @n_layer: L
 * @block_size: T
 *
 * The number of parameters of a GPT of these sizes, by the closed form
 * 12·L·d² + 13·L·d + (V + T)·d + 2·d (the head is tied to wte).
 *
 * Returns: the count
 */
guint64
nk_gpt_count_parameters (guint vocab,
                         guint n_embd,
                         guint n_layer,
                         guint block_size)
{
  guint64 d = n_embd, l = n_layer;

  return 12 * l * d * d + 13 * l * d + ((guint64) vocab + block_size) * d + 2 * d;
}

/**
 * nk_gpt_param_names:
 * @n_layer: L
 *
 * The state_dict names of a GPT with @n_layer blocks, in nanoGPT's order.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names; free with g_strfreev()
 */
char **
nk_gpt_param_names (guint n_layer)
{
  GPtrArray *names = g_ptr_array_new ();

  g_ptr_array_add (names, g_strdup ("transformer.wte.weight"));
  g_ptr_array_add (names, g_strdup ("transformer.wpe.weight"));
  for (guint l = 0; l < n_layer; l++)
    for (guint i = 0; i < N_BLOCK_PARAMS; i++)
      g_ptr_array_add (names, g_strdup_printf ("transformer.h.%u.%s", l, block_params[i]));
  g_ptr_array_add (names, g_strdup ("transformer.ln_f.weight"));
  g_ptr_array_add (names, g_strdup ("transformer.ln_f.bias"));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

double
nk_gpt_flops_formula (guint  vocab,
                      guint  n_embd,
                      guint  n_layer,
                      guint  block_size,
                      double tokens)
{
  double d = n_embd, l = n_layer;
  double n = 12.0 * l * d * d + 13.0 * l * d + (double) vocab * d + 2.0 * d;

  return (6.0 * n + nk_gpt_attention_flops_per_token (n_embd, n_layer, block_size)) * tokens;
}

/**
 * nk_gpt_attention_flops_per_token:
 * @n_embd: d
 * @n_layer: L
 * @block_size: T
 *
 * Attention's share of nk_gpt_flops_formula(): 12·L·T·d FLOPs per token (q·kᵀ and
 * att·v, forward and backward).
 *
 * Returns: the FLOPs per token
 */
double
nk_gpt_attention_flops_per_token (guint n_embd,
                                  guint n_layer,
                                  guint block_size)
{
  double d = n_embd, l = n_layer, t = block_size;

  return 12.0 * l * t * d;
}

void
nk_gpt_op_flops (guint   vocab,
                 guint   n_embd,
                 guint   n_layer,
                 guint   n_head,
                 guint   block_size,
                 guint   batch,
                 double  flops[NK_N_FLOP_KINDS])
{
  double d = n_embd, l = n_layer, t = block_size, n = (double) batch * block_size;
  double visible = (double) batch * n_head * t * (t + 1) / 2;

  flops[NK_FLOP_KIND_LINEAR] = 6.0 * n * (12.0 * l * d * d + (double) vocab * d);
  flops[NK_FLOP_KIND_ATTENTION] = 12.0 * l * n * t * d;
  flops[NK_FLOP_KIND_NORM] = (8.0 + 13.0) * (2 * l + 1) * n * d;
  flops[NK_FLOP_KIND_ACTIVATION] = 2.0 * l * n * 4 * d;
  flops[NK_FLOP_KIND_SOFTMAX] = (6.0 + 5.0) * l * visible;
  flops[NK_FLOP_KIND_EMBEDDING] = n * d;
}

double
nk_gpt_matmul_flops (guint vocab,
                     guint n_embd,
                     guint n_layer,
                     guint block_size,
                     guint batch)
{
  double flops[NK_N_FLOP_KINDS];

  /* the matmuls do not depend on the heads */
  nk_gpt_op_flops (vocab, n_embd, n_layer, 1, block_size, batch, flops);
  return flops[NK_FLOP_KIND_LINEAR] + flops[NK_FLOP_KIND_ATTENTION];
}

void
nk_gpt_activation_terms (guint    vocab,
                         guint    n_embd,
                         guint    n_layer,
                         guint    n_head,
                         guint64  batch,
                         guint64  block_size,
                         NkDType  compute,
                         guint64  terms[NK_ACT_N_TERMS])
{
  guint64 c = nk_dtype_element_size (compute);
  guint64 n = batch * block_size, d = n_embd, L = n_layer, t = block_size;
  guint64 scores = batch * n_head * t * t;

  memset (terms, 0, NK_ACT_N_TERMS * sizeof terms[0]);
  /* the embedding sum and the two residual sums of each block (f32) */
  terms[NK_ACT_TERM_RESIDUAL] = (2 * L + 1) * n * d * 4;
  /* 2L + 1 LayerNorms (ln_f included): f32 outputs, mean and 1/σ */
  terms[NK_ACT_TERM_NORM_STATS] = (2 * L + 1) * 2 * n * 4;
  terms[NK_ACT_TERM_NORM_OUTPUT] = (2 * L + 1) * n * d * 4;
  terms[NK_ACT_TERM_QKV] = L * n * 3 * d * c;
  terms[NK_ACT_TERM_ATTN_OUTPUT] = L * n * d * c;
  terms[NK_ACT_TERM_MLP] = L * 2 * n * 4 * d * c;
  terms[NK_ACT_TERM_SCORES] = L * scores * c;
  terms[NK_ACT_TERM_PROBS] = L * scores * 4;
  terms[NK_ACT_TERM_PROJ_OUTPUT] = L * 2 * n * d * c;
  terms[NK_ACT_TERM_LOGITS] = n * (guint64) vocab * c + 4;
  /* Under autocast the products keep rounded copies of their f32 operands for
   * backward, as torch.autocast does (each LayerNorm's output feeding a Linear, the
   * probabilities feeding att·v), the softmax keeps its narrow scores widened to
   * f32, and the cross entropy reads the logits widened. */
  if (compute != NK_DTYPE_F32)
    {
      terms[NK_ACT_TERM_AUTOCAST] = L * (2 * n * d * c + scores * (c + 4)) + n * d * c;
      terms[NK_ACT_TERM_LOGITS] += n * (guint64) vocab * 4;
    }
}

/**
 * nk_gpt_activation_bytes:
 * @vocab: V
 * @n_embd: d
 * @n_layer: L
 * @n_head: H
 * @batch: B
 * @block_size: T
 * @compute: %NK_DTYPE_F32, or the autocast dtype (bf16/f16) of a mixed run
 *
 * The bytes one step's forward keeps for backward: the sum of
 * nk_gpt_activation_terms(), the activation bucket of a step.
 *
 * Returns: the size in bytes
 */
guint64
nk_gpt_activation_bytes (guint    vocab,
                         guint    n_embd,
                         guint    n_layer,
                         guint    n_head,
                         guint64  batch,
                         guint64  block_size,
                         NkDType  compute)
{
  guint64 terms[NK_ACT_N_TERMS], bytes = 0;

  nk_gpt_activation_terms (vocab, n_embd, n_layer, n_head, batch, block_size, compute, terms);
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    bytes += terms[i];
  return bytes;
}

/* nanoGPT's _init_weights: its own rule, whatever @kind says. */
static gboolean
gpt_init (NkModel     *model,
          NkRng       *rng,
          NkInitKind   kind,
          GError     **error)
{
  double proj_std = GPT_INIT_STD / sqrt (2.0 * model->shape.layers);

  for (guint i = 0; i < model->params->len; i++)
    {
      NkTensor *p = g_ptr_array_index (model->params, i);
      const char *name = g_ptr_array_index (model->names, i);
      gboolean ok;

      if (g_str_has_suffix (name, ".bias"))
        ok = nk_tensor_fill_ (p, 0.0, NULL);
      else if (strstr (name, ".ln_") != NULL)
        ok = nk_tensor_fill_ (p, 1.0, NULL);
      else if (g_str_has_suffix (name, "c_proj.weight"))
        ok = nk_init_normal_ (p, rng, 0.0, proj_std);
      else
        ok = nk_init_normal_ (p, rng, 0.0, GPT_INIT_STD);
      if (!ok)
        {
          g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                       _("Cannot initialise %s on this device."), name);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- forward ----------------------------------------------------------------------- */

static NkTensor *
P (NkModel *model,
   guint    layer,
   guint    which)
{
  return g_ptr_array_index (model->params, FIRST_BLOCK + layer * N_BLOCK_PARAMS + which);
}

/* Causal self-attention of block @l on ln_1's output @h [B·T, d]: c_proj of the heads'
 * softmax(q·kᵀ/√hd)·v, as nanoGPT's CausalSelfAttention without flash. */
static NkTensor *
attention (NkModel   *model,
           guint      l,
           NkTensor  *h,
           gint64     B,
           gint64     T,
           GError   **error)
{
  gint64 d = model->shape.dim, H = model->shape.n_head, hd = d / H;
  g_autoptr(NkTensor) qkv = nk_ag_linear (h, P (model, l, 2), P (model, l, 3), error);
  NkTensor *heads[3] = { NULL, NULL, NULL };
  g_autoptr(NkTensor) att = NULL;
  g_autoptr(NkTensor) probs = NULL;
  g_autoptr(NkTensor) y = NULL;
  g_autoptr(NkTensor) y2 = NULL;
  NkTensor *out = NULL;

  if (qkv == NULL)
    return NULL;
  for (int s = 0; s < 3; s++)
    {
      g_autoptr(NkTensor) part = nk_ag_narrow (qkv, 1, s * d, d, error);
      g_autoptr(NkTensor) split = part != NULL
                                  ? nk_ag_view (part, 4, (gint64[]) { B, T, H, hd }, error) : NULL;

      if (split == NULL || (heads[s] = nk_ag_transpose (split, 1, 2, error)) == NULL)
        goto out;
    }
  att = nk_ag_bmm (heads[0], heads[1], NK_BMM_TRANS_B, error);
  probs = att != NULL ? nk_ag_softmax_causal (att, 1.0 / sqrt ((double) hd), error) : NULL;
  y = probs != NULL ? nk_ag_bmm (probs, heads[2], NK_BMM_MERGE_HEADS, error) : NULL;
  y2 = y != NULL ? nk_ag_view (y, 2, (gint64[]) { B * T, d }, error) : NULL;
  if (y2 != NULL)
    out = nk_ag_linear (y2, P (model, l, 4), P (model, l, 5), error);
out:
  for (int s = 0; s < 3; s++)
    g_clear_pointer (&heads[s], nk_tensor_unref);
  return out;
}

/* c_proj(GELU(c_fc(h))) */
static NkTensor *
mlp (NkModel   *model,
     guint      l,
     NkTensor  *h,
     GError   **error)
{
  g_autoptr(NkTensor) fc = nk_ag_linear (h, P (model, l, 8), P (model, l, 9), error);
  g_autoptr(NkTensor) act = fc != NULL ? nk_ag_gelu (fc, error) : NULL;

  return act != NULL ? nk_ag_linear (act, P (model, l, 10), P (model, l, 11), error) : NULL;
}

/* x + f(ln(x)) for f attention (@attn) or the MLP; a new ref on the sum. */
static NkTensor *
residual (NkModel   *model,
          guint      l,
          NkTensor  *x,
          gboolean   attn,
          gint64     B,
          gint64     T,
          GError   **error)
{
  guint ln = attn ? 0 : 6;
  g_autoptr(NkTensor) h = nk_ag_layer_norm (x, P (model, l, ln), P (model, l, ln + 1),
                                            NK_GPT_LN_EPS, error);
  g_autoptr(NkTensor) f = NULL;

  if (h == NULL)
    return NULL;
  f = attn ? attention (model, l, h, B, T, error) : mlp (model, l, h, error);
  return f != NULL ? nk_ag_add (x, f, error) : NULL;
}

/* wte[idx] + wpe[0..T) as [B·T, d] */
static NkTensor *
embed (NkModel   *model,
       NkTensor  *input,
       gint64     B,
       gint64     T,
       GError   **error)
{
  g_autoptr(NkTensor) ids = nk_tensor_reshape (input, NK_SHAPE (B, T), error);

  return ids != NULL ? nk_ag_embedding_with_positions (g_ptr_array_index (model->params, 0),
                                                       g_ptr_array_index (model->params, 1),
                                                       ids, error)
                     : NULL;
}

static NkTensor *
gpt_forward (NkModel   *model,
             NkTensor  *input,
             GError   **error)
{
  guint last = model->params->len;
  g_autoptr(NkTensor) x = NULL;
  g_autoptr(NkTensor) h = NULL;
  NkTensor *logits;
  gboolean was_paused;
  gint64 B, T;

  if (input->ndim == 1)
    B = 1, T = input->shape[0];
  else if (input->ndim == 2)
    B = input->shape[0], T = input->shape[1];
  else
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("A GPT reads tokens [B, T], not a %d-D tensor."), input->ndim);
      return NULL;
    }
  if (T < 1 || T > model->shape.context)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                   _("Cannot forward a sequence of length %" PRId64 ", block size is only %u."),
                   T, model->shape.context);
      return NULL;
    }

  x = embed (model, input, B, T, error);
  if (x == NULL)
    return NULL;
  for (guint l = 0; l < model->shape.layers; l++)
    for (int attn = 1; attn >= 0; attn--)
      {
        NkTensor *next = residual (model, l, x, attn, B, T, error);

        if (next == NULL)
          return NULL;
        nk_tensor_unref (x);
        x = next;
      }
  h = nk_ag_layer_norm (x, g_ptr_array_index (model->params, last - 2),
                        g_ptr_array_index (model->params, last - 1), NK_GPT_LN_EPS, error);
  if (h == NULL)
    return NULL;
  /* The head is tied: logits = ln_f(x)·wteᵀ, no bias. A block-scaled recipe leaves
   * it in the compute dtype, as the recipes it follows keep "the embedding module,
   * the output head" in BF16 (DeepSeek-V3 report §3.3.1; NVIDIA's NVFP4 paper §4):
   * quantized, it cost this GPT 15 % of its loss at 300 steps (README). */
  was_paused = nk_autograd_pause_block_quant (TRUE);
  logits = nk_ag_linear (h, g_ptr_array_index (model->params, 0), NULL, error);
  nk_autograd_pause_block_quant (was_paused);
  return logits;
}

/* ---- the architecture table -------------------------------------------------------- */

static gboolean
gpt_check_shape (const NkModelShape  *shape,
                 GError             **error)
{
  return nk_gpt_check_sizes (shape->vocab, shape->dim, shape->layers, shape->n_head,
                             shape->context, error);
}

static NkModel *
gpt_build (const NkModelShape  *shape,
           NkDType              dtype,
           GError             **error)
{
  return nk_model_new_gpt (shape->vocab, shape->dim, shape->layers, shape->n_head,
                           shape->context, dtype, error);
}

static guint64
gpt_count_parameters (const NkModelShape *shape)
{
  return nk_gpt_count_parameters (shape->vocab, shape->dim, shape->layers, shape->context);
}

static char **
gpt_param_names (const NkModelShape *shape)
{
  return nk_gpt_param_names (shape->layers);
}

static char *
gpt_describe (const NkModelShape *shape)
{
  /* nanoGPT's names: n_layer, n_head, n_embd, block_size */
  return g_strdup_printf (_("GPT L %u · H %u · d %u · T %u"), shape->layers, shape->n_head,
                          shape->dim, shape->context);
}

/* @rows tokens are @rows / T sequences of the block size T. */
static guint64
gpt_activation_bytes (const NkModelShape *shape,
                      guint64             rows,
                      NkDType             weights,
                      NkDType             compute)
{
  guint64 t = shape->context;

  g_return_val_if_fail (t > 0, 0);
  return nk_gpt_activation_bytes (shape->vocab, shape->dim, shape->layers, shape->n_head,
                                  rows / t, t, compute);
}

static void
gpt_activation_terms (const NkModelShape *shape,
                      guint64             batch,
                      NkDType             compute,
                      guint64             terms[NK_ACT_N_TERMS])
{
  nk_gpt_activation_terms (shape->vocab, shape->dim, shape->layers, shape->n_head, batch,
                           shape->context, compute, terms);
}

/* PaLM's 6·N + 12·L·T·d per token (nk_gpt_flops_formula()) */
static double
gpt_step_flops (const NkModelShape *shape,
                double              tokens)
{
  return nk_gpt_flops_formula (shape->vocab, shape->dim, shape->layers, shape->context, tokens);
}

/* PaLM's count by kind (its 6·N the Linears', 12·L·T·d per token attention's, NAN
 * for the element-wise kinds it leaves out), and the ops' (nk_gpt_op_flops()). */
static void
gpt_flops_terms (const NkModelShape *shape,
                 guint               batch,
                 double              palm[NK_N_FLOP_KINDS],
                 double              ops[NK_N_FLOP_KINDS])
{
  double tokens = (double) batch * shape->context;

  for (guint i = 0; i < NK_N_FLOP_KINDS; i++)
    palm[i] = ops[i] = NAN;
  nk_gpt_op_flops (shape->vocab, shape->dim, shape->layers, shape->n_head, shape->context,
                   batch, ops);
  /* the rest of PaLM's count is 6·N */
  palm[NK_FLOP_KIND_ATTENTION] = nk_gpt_attention_flops_per_token (shape->dim, shape->layers,
                                                                   shape->context) * tokens;
  palm[NK_FLOP_KIND_LINEAR] = nk_gpt_flops_formula (shape->vocab, shape->dim, shape->layers,
                                                    shape->context, tokens)
                              - palm[NK_FLOP_KIND_ATTENTION];
}

const NkModelArch _nk_gpt_arch = {
  .kind = NK_MODEL_GPT,
  .name = "gpt",
  .title = N_("GPT (nanoGPT’s)"),
  .description = N_("nanoGPT’s GPT: L pre-LayerNorm blocks of causal self-attention and a GELU MLP of width D, predicting the next token of the text."),
  .fields = NK_MODEL_FIELD_DIM | NK_MODEL_FIELD_LAYERS | NK_MODEL_FIELD_CONTEXT
            | NK_MODEL_FIELD_HEADS | NK_MODEL_FIELD_VOCAB,
  /* The one size a GPT's tensors do not tell (nk_gpt_load()). */
  .metadata = NK_MODEL_FIELD_HEADS,
  .input = NK_MODEL_INPUT_SEQUENCES,
  .default_lr = 1e-3,
  .check_shape = gpt_check_shape,
  .build = gpt_build,
  .init = gpt_init,
  .forward = gpt_forward,
  .loss = _nk_model_next_token_loss,
  .count_parameters = gpt_count_parameters,
  .param_names = gpt_param_names,
  .activation_bytes = gpt_activation_bytes,
  .describe = gpt_describe,
  .activation_terms = gpt_activation_terms,
  .step_flops = gpt_step_flops,
  .step_flops_caption = N_("FLOPs per step, 6 · N + 12 · L · T · d per token"),
  .flops_terms = gpt_flops_terms,
  .generate = nk_gpt_generate,
};
