/* nk-gpt-sample.c: a GPT from a file, and text from a GPT (nanoGPT's generate)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-gpt.h"
#include "nk-model-private.h"

/* A safetensors file or a checkpoint, read the same way. */
typedef struct {
  NkSafetensors *st;
  NkCheckpoint  *ck;
  const char    *path;
} Source;

static const NkSafetensorsTensor *
source_lookup (Source     *src,
               const char *name)
{
  return src->st != NULL ? nk_safetensors_lookup (src->st, name) : nk_checkpoint_lookup (src->ck, name);
}

static const char *
source_metadata (Source     *src,
                 const char *key)
{
  return src->st != NULL ? nk_safetensors_get_metadata (src->st, key)
                         : nk_checkpoint_get_metadata (src->ck, key);
}

static gboolean
read_sizes (Source  *src,
            guint   *vocab,
            guint   *d,
            guint   *block,
            guint   *layers,
            guint   *heads,
            GError **error)
{
  const NkSafetensorsTensor *wte = source_lookup (src, "transformer.wte.weight");
  const NkSafetensorsTensor *wpe = source_lookup (src, "transformer.wpe.weight");
  const char *n_head = source_metadata (src, "n_head");
  guint l = 0;

  if (wte == NULL || wpe == NULL || wte->ndim != 2 || wpe->ndim != 2)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_STATE,
                   _("%s holds no GPT (transformer.wte.weight and transformer.wpe.weight are missing or not 2-D)."),
                   src->path);
      return FALSE;
    }
  if (n_head == NULL || (*heads = (guint) g_ascii_strtoull (n_head, NULL, 10)) == 0)
    {
      g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_STATE,
                   _("%s does not say how many attention heads its GPT has (the “n_head” metadata Napkin writes)."),
                   src->path);
      return FALSE;
    }
  for (;; l++)
    {
      g_autofree char *name = g_strdup_printf ("transformer.h.%u.ln_1.weight", l);

      if (source_lookup (src, name) == NULL)
        break;
    }
  *vocab = (guint) wte->shape[0];
  *d = (guint) wte->shape[1];
  *block = (guint) wpe->shape[0];
  *layers = l;
  return TRUE;
}

NkModel *
nk_gpt_load (const char  *path,
             GError     **error)
{
  g_autoptr(NkSafetensors) st = NULL;
  g_autoptr(NkCheckpoint) ck = NULL;
  g_autoptr(NkModel) model = NULL;
  Source src = { NULL, NULL, path };
  guint vocab, d, block, layers, heads;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    src.ck = ck = nk_checkpoint_find_latest_intact (path, NULL, error);
  else
    src.st = st = nk_safetensors_load (path, error);
  if (ck == NULL && st == NULL)
    return NULL;
  if (!read_sizes (&src, &vocab, &d, &block, &layers, &heads, error))
    return NULL;
  model = nk_model_new_gpt (vocab, d, layers, heads, block, NK_DTYPE_F32, error);
  if (model == NULL)
    return NULL;
  if (st != NULL ? !nk_model_load_state_dict (model, st, error)
                 : !nk_model_load_checkpoint (model, ck, error))
    return NULL;
  return g_steal_pointer (&model);
}

typedef struct {
  float logit;
  guint index;
} Scored;

static int
by_logit_desc (const void *a,
               const void *b)
{
  const Scored *x = a, *y = b;

  if (x->logit != y->logit)
    return x->logit < y->logit ? 1 : -1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* One token from the last row's logits: nanoGPT's temperature, top-k, softmax and
 * multinomial, the draw by inverse CDF over the tokens in descending order. */
static guint32
pick (const float *logits,
      guint        vocab,
      double       temperature,
      guint        top_k,
      NkRng       *rng)
{
  g_autofree Scored *s = g_new (Scored, vocab);
  guint keep = top_k > 0 && top_k < vocab ? top_k : vocab;
  double total = 0.0, u, acc = 0.0;
  g_autofree double *p = NULL;

  for (guint i = 0; i < vocab; i++)
    s[i] = (Scored) { logits[i], i };
  qsort (s, vocab, sizeof *s, by_logit_desc);
  if (temperature <= 0.0)
    return s[0].index;
  /* Ties with the k-th logit stay in, as `logits < v[:, [-1]]` keeps them. */
  while (keep < vocab && s[keep].logit == s[keep - 1].logit)
    keep++;
  p = g_new (double, keep);
  for (guint i = 0; i < keep; i++)
    total += p[i] = exp (((double) s[i].logit - s[0].logit) / temperature);
  u = nk_rng_uniform_double (rng) * total;
  for (guint i = 0; i < keep; i++)
    if ((acc += p[i]) > u)
      return s[i].index;
  return s[keep - 1].index;
}

GArray *
nk_gpt_generate (NkModel        *model,
                 const guint32  *prompt,
                 gsize           n_prompt,
                 guint           n_new,
                 double          temperature,
                 guint           top_k,
                 NkRng          *rng,
                 GError        **error)
{
  return nk_gpt_generate_stream (model, prompt, n_prompt, n_new, temperature, top_k, rng,
                                 NULL, NULL, error);
}

GArray *
nk_gpt_generate_stream (NkModel        *model,
                        const guint32  *prompt,
                        gsize           n_prompt,
                        guint           n_new,
                        double          temperature,
                        guint           top_k,
                        NkRng          *rng,
                        NkGptTokenFunc  func,
                        gpointer        user_data,
                        GError        **error)
{
  g_autoptr(GArray) context = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint vocab, block;

  g_return_val_if_fail (model != NULL && model->arch == &_nk_gpt_arch, NULL);
  g_return_val_if_fail (n_prompt > 0, NULL);
  vocab = model->shape.vocab;
  block = model->shape.context;

  for (gsize i = 0; i < n_prompt; i++)
    {
      gint32 t = (gint32) prompt[i];

      if (prompt[i] >= vocab)
        {
          g_set_error (error, NK_MODEL_ERROR, NK_MODEL_ERROR_INVALID,
                       _("Prompt token %zu is %u, outside the model’s vocabulary of %u."),
                       i, prompt[i], vocab);
          return NULL;
        }
      g_array_append_val (context, t);
    }

  for (guint n = 0; n < n_new; n++)
    {
      guint len = MIN (context->len, block);
      gint32 *window = &g_array_index (context, gint32, context->len - len);
      g_autoptr(NkTensor) idx = nk_tensor_new_full (nk_device_get_cpu (), NK_DTYPE_INT32,
                                                    NK_SHAPE (1, len), NK_BUCKET_DATA,
                                                    FALSE, error);
      g_autoptr(NkTensor) logits = NULL;
      g_autoptr(NkTensor) row = NULL;
      g_autoptr(NkTensor) last = NULL;
      guint32 next;
      gint32 t;

      if (idx == NULL)
        return NULL;
      memcpy (nk_tensor_data (idx), window, len * sizeof (gint32));
      logits = nk_model_forward (model, idx, error);
      if (logits == NULL)
        return NULL;
      nk_autograd_release (logits);
      row = nk_tensor_narrow (logits, 0, len - 1, 1, error);
      last = row != NULL ? nk_tensor_contiguous (row, error) : NULL;
      if (last == NULL)
        return NULL;
      next = pick (nk_tensor_data_f32 (last), vocab, temperature, top_k, rng);
      g_array_append_val (out, next);
      if (func != NULL)
        func (next, user_data);
      t = (gint32) next;
      g_array_append_val (context, t);
    }
  return g_steal_pointer (&out);
}
