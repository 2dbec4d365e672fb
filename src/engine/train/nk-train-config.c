/* nk-train-config.c: a training run's settings: defaults, copies, checks, JSON, prediction
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "nk-json.h"
#include "nk-plan-compute.h"
#include "nk-train-config.h"

/**
 * nk_trainer_error_quark:
 *
 * The domain of %NK_TRAINER_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (nk-trainer-error-quark, nk_trainer_error)

/* fp16's first loss scale: torch.cuda.amp.GradScaler's default. */
#define LOSS_SCALE_INIT 65536.0

/**
 * nk_train_config_default_lr:
 * @model: a model kind
 *
 * The learning rate a model trains at unless told otherwise: 0.01, and nanoGPT's
 * 0.001 for the GPT (at 0.01 it stalls near the bigram loss).
 *
 * Returns: the learning rate
 */
double
nk_train_config_default_lr (NkModelKind model)
{
  const NkModelArch *arch = nk_model_arch_lookup (model);

  g_return_val_if_fail (arch != NULL, 0.01);
  return arch->default_lr;
}

/* The architecture a config names and the sizes it reads. */
static const NkModelArch *
arch_of (const NkTrainConfig *config)
{
  return nk_model_arch_lookup (config->model);
}

/* The --model names of the architectures that read sequences, the ones a
 * --batches file feeds ("gpt"). */
static char *
sequence_models (void)
{
  GString *names = g_string_new (NULL);
  guint n;
  const NkModelArch *const *archs = nk_model_archs (&n);

  for (guint i = 0; i < n; i++)
    if (archs[i]->input == NK_MODEL_INPUT_SEQUENCES)
      g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "", archs[i]->name);
  return g_string_free (names, FALSE);
}

/**
 * nk_train_config_get_shape:
 * @config: a config
 * @shape: (out caller-allocates): the sizes
 *
 * The sizes of the config's model (#NkModelArch.fields says which it reads).
 */
void
nk_train_config_get_shape (const NkTrainConfig *config,
                           NkModelShape        *shape)
{
  g_return_if_fail (config != NULL && shape != NULL);
  *shape = (NkModelShape) { .vocab = nk_train_config_get_vocab (config), .dim = config->dim,
                            .layers = config->layers, .n_head = config->n_head,
                            .context = config->context };
}

/**
 * nk_train_config_new:
 *
 * The defaults: cruncher, D 64, L 2, B 8, T 32, 100 steps, lr 0.01, adamw, seed 0, cpu,
 * fp32, truncated normal, keep 3 checkpoints, history 10000 steps.
 *
 * Returns: (transfer full): a new config
 */
NkTrainConfig *
nk_train_config_new (void)
{
  NkTrainConfig *config = g_new0 (NkTrainConfig, 1);

  config->model = NK_MODEL_CRUNCHER;
  config->dim = 64;
  config->layers = 2;
  config->batch = 8;
  config->context = 32;
  config->steps = 100;
  config->lr = nk_train_config_default_lr (NK_MODEL_CRUNCHER);
  config->optimizer = NK_OPTIMIZER_ADAMW;
  config->device = g_strdup ("cpu");
  config->precision = NK_PRECISION_FP32;
  config->init_kind = NK_INIT_TRUNC_NORMAL;
  config->checkpoint_keep = 3;
  config->history_limit = 10000;
  config->loss_scale_init = LOSS_SCALE_INIT;
  config->n_head = 4;
  config->mx_scale = NK_MX_SCALE_UP;
  return config;
}

/**
 * nk_train_config_copy:
 * @config: a config
 *
 * Copies the config and its strings.
 *
 * Returns: (transfer full): the copy; free it with nk_train_config_free()
 */
NkTrainConfig *
nk_train_config_copy (const NkTrainConfig *config)
{
  NkTrainConfig *copy = g_memdup2 (config, sizeof *config);

  copy->device = g_strdup (config->device);
  copy->init_file = g_strdup (config->init_file);
  copy->inputs = g_strdup (config->inputs);
  copy->targets = g_strdup (config->targets);
  copy->text_file = g_strdup (config->text_file);
  copy->tokens_file = g_strdup (config->tokens_file);
  copy->batches_file = g_strdup (config->batches_file);
  copy->checkpoint_dir = g_strdup (config->checkpoint_dir);
  copy->resume_dir = g_strdup (config->resume_dir);
  return copy;
}

/**
 * nk_train_config_free:
 * @config: (nullable) (transfer full): a config
 *
 * Frees the config and its strings.
 */
void
nk_train_config_free (NkTrainConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->device);
  g_free (config->init_file);
  g_free (config->inputs);
  g_free (config->targets);
  g_free (config->text_file);
  g_free (config->tokens_file);
  g_free (config->batches_file);
  g_free (config->checkpoint_dir);
  g_free (config->resume_dir);
  g_free (config);
}

G_DEFINE_BOXED_TYPE (NkTrainConfig, nk_train_config, nk_train_config_copy, nk_train_config_free)

/* The sizes the model reads, by its own rule (a GPT's heads must divide n_embd). */
static gboolean
check_shape (const NkTrainConfig  *config,
             GError              **error)
{
  g_autoptr(GError) local = NULL;
  NkModelShape shape;

  nk_train_config_get_shape (config, &shape);
  if (!arch_of (config)->check_shape (&shape, &local))
    {
      g_set_error_literal (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG, local->message);
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_train_config_validate:
 * @config: a config
 * @error: return location for a #GError (%NK_TRAINER_ERROR_CONFIG naming the setting)
 *
 * Checks the numbers (not the files: those are opened when the run starts).
 *
 * Returns: %TRUE if a run may start with @config
 */
gboolean
nk_train_config_validate (const NkTrainConfig  *config,
                          GError              **error)
{
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (config != NULL, FALSE);

  if (!nk_optimizer_check_lr (config->lr, "--lr", &local))
    {
      g_set_error_literal (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG, local->message);
      return FALSE;
    }
  if (config->dim == 0 || config->dim > 65536)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--dim must be between 1 and 65536, not %u."), config->dim);
      return FALSE;
    }
  if (config->layers > 4096)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--layers must be at most 4096, not %u."), config->layers);
      return FALSE;
    }
  if (config->batch == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--batch must be at least 1."));
      return FALSE;
    }
  if (config->steps == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--steps must be at least 1."));
      return FALSE;
    }
  if (arch_of (config) == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("There is no model of kind %d."), (int) config->model);
      return FALSE;
    }
  if ((arch_of (config)->fields & NK_MODEL_FIELD_CONTEXT) && config->context == 0)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The context length must be at least 1 token."));
      return FALSE;
    }
  if ((config->text_file != NULL) + (config->tokens_file != NULL)
      + (config->batches_file != NULL) > 1)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("Give at most one of --text, --tokens and --batches."));
      return FALSE;
    }
  if (config->batches_file != NULL && arch_of (config)->input != NK_MODEL_INPUT_SEQUENCES)
    {
      g_autofree char *models = sequence_models ();

      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--batches is for --model %s."), models);
      return FALSE;
    }
  if (!check_shape (config, error))
    return FALSE;
  if ((config->inputs == NULL) != (config->targets == NULL))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--inputs and --targets go together: give both or neither."));
      return FALSE;
    }
  if (config->precision == NK_PRECISION_FP16_MIXED
      && (!(config->loss_scale_init > 0.0) || !isfinite (config->loss_scale_init)))
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The initial loss scale must be a positive number, not %g."),
                   config->loss_scale_init);
      return FALSE;
    }
  if (nk_precision_is_block_scaled (config->precision) && config->model != NK_MODEL_GPT)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("The %s recipe trains the GPT only: it quantizes the operands of the GPT’s linear layers."),
                   nk_precision_to_string (config->precision));
      return FALSE;
    }
  if (config->checkpoint_every > 0 && config->checkpoint_dir == NULL)
    {
      g_set_error (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG,
                   _("--checkpoint-every needs --checkpoint-dir."));
      return FALSE;
    }
  return TRUE;
}

/**
 * nk_train_config_to_json:
 * @config: a config
 *
 * The config as a JSON object, what checkpoints record and what tells two runs
 * apart: model, dim, layers, batch, context (LM), steps, lr, optimizer, seed,
 * precision (with mx_scale under mxfp8, nvfp4_rounding under nvfp4), init, and the
 * init_file/inputs/targets/text paths when set.
 *
 * Returns: (transfer full): the JSON text
 */
char *
nk_train_config_to_json (const NkTrainConfig *config)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  const NkModelArch *arch = arch_of (config);

  g_return_val_if_fail (arch != NULL, NULL);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, nk_model_kind_to_string (config->model));
  json_builder_set_member_name (b, "dim");
  json_builder_add_int_value (b, config->dim);
  json_builder_set_member_name (b, "layers");
  json_builder_add_int_value (b, config->layers);
  json_builder_set_member_name (b, "batch");
  json_builder_add_int_value (b, config->batch);
  if (arch->fields & NK_MODEL_FIELD_CONTEXT)
    {
      json_builder_set_member_name (b, "context");
      json_builder_add_int_value (b, config->context);
    }
  if (arch->fields & NK_MODEL_FIELD_HEADS)
    {
      json_builder_set_member_name (b, "n_head");
      json_builder_add_int_value (b, config->n_head);
    }
  if (arch->fields & NK_MODEL_FIELD_VOCAB)
    {
      json_builder_set_member_name (b, "vocab");
      json_builder_add_int_value (b, nk_train_config_get_vocab (config));
    }
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, (gint64) config->steps);
  json_builder_set_member_name (b, "lr");
  json_builder_add_double_value (b, config->lr);
  json_builder_set_member_name (b, "optimizer");
  json_builder_add_string_value (b, nk_optimizer_to_string (config->optimizer));
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) config->seed);
  json_builder_set_member_name (b, "precision");
  json_builder_add_string_value (b, nk_precision_to_string (config->precision));
  /* The block-scaled recipes' own choices: a resumed run must keep them. */
  if (config->precision == NK_PRECISION_MXFP8)
    {
      json_builder_set_member_name (b, "mx_scale");
      json_builder_add_string_value (b, config->mx_scale == NK_MX_SCALE_FLOOR ? "floor" : "up");
    }
  if (config->precision == NK_PRECISION_NVFP4)
    {
      json_builder_set_member_name (b, "nvfp4_rounding");
      json_builder_add_string_value (b, config->nvfp4_nearest ? "nearest" : "stochastic");
    }
  json_builder_set_member_name (b, "init");
  json_builder_add_string_value (b, nk_init_kind_to_string (config->init_kind));
  /* The data and starting weights make a run as much as the numbers above do: two
   * runs that differ only here must not take each other's checkpoints for their own. */
  {
    const struct { const char *name; const char *value; } files[] = {
      { "init_file", config->init_file }, { "inputs", config->inputs },
      { "targets", config->targets }, { "text", config->text_file },
      { "tokens", config->tokens_file }, { "batches", config->batches_file },
    };

    for (guint i = 0; i < G_N_ELEMENTS (files); i++)
      if (files[i].value != NULL)
        {
          json_builder_set_member_name (b, files[i].name);
          json_builder_add_string_value (b, files[i].value);
        }
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  /* File names are bytes: nk-json escapes what json-glib's generator leaves raw. */
  return nk_json_node_to_data (root, FALSE, NULL);
}

/**
 * nk_train_config_get_vocab:
 * @config: a config
 *
 * The vocabulary the config's model has.
 *
 * Returns: 256 for bytes, or the GPT's --vocab
 */
guint
nk_train_config_get_vocab (const NkTrainConfig *config)
{
  g_return_val_if_fail (config != NULL, 0);
  const NkModelArch *arch = arch_of (config);

  return arch != NULL && (arch->fields & NK_MODEL_FIELD_VOCAB) && config->vocab > 0
         ? config->vocab : NK_TRAIN_LM_VOCAB;
}

/**
 * nk_train_config_count_parameters:
 * @config: a config
 *
 * The parameters of the model the config describes, by its architecture's closed
 * form, without building it.
 *
 * Returns: the number of scalar parameters
 */
guint64
nk_train_config_count_parameters (const NkTrainConfig *config)
{
  NkModelShape shape;

  g_return_val_if_fail (config != NULL && arch_of (config) != NULL, 0);
  nk_train_config_get_shape (config, &shape);
  return arch_of (config)->count_parameters (&shape);
}

/**
 * nk_train_config_dup_param_names:
 * @config: a config
 *
 * The state_dict names of the model the config describes, without building it.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names, in order; free with
 *   g_strfreev()
 */
char **
nk_train_config_dup_param_names (const NkTrainConfig *config)
{
  NkModelShape shape;

  g_return_val_if_fail (config != NULL && arch_of (config) != NULL, NULL);
  nk_train_config_get_shape (config, &shape);
  return arch_of (config)->param_names (&shape);
}

/**
 * nk_train_config_compute_dtype:
 * @config: a config
 *
 * The dtype the run's matmuls compute in.
 *
 * Returns: %NK_DTYPE_F32, or bf16/f16 under a mixed policy
 */
NkDType
nk_train_config_compute_dtype (const NkTrainConfig *config)
{
  g_return_val_if_fail (config != NULL, NK_DTYPE_F32);
  return config->precision == NK_PRECISION_BF16_MIXED || nk_precision_is_block_scaled (config->precision)
         ? NK_DTYPE_BF16
         : config->precision == NK_PRECISION_FP16_MIXED ? NK_DTYPE_F16 : NK_DTYPE_F32;
}

/* The Planner's inputs for one step of @config (nk_plan_inputs_init()'s defaults
 * otherwise): N parameters, the step's tokens, the optimizer in fp32, and the
 * lecture's linear shape, batch · seq · dim · layers. */
static void
plan_step (const NkTrainConfig *config,
           double               n_parameters,
           double               tokens,
           double               seq,
           NkPlanInputs        *in)
{
  nk_plan_inputs_init (in);
  in->in[NK_PLAN_IN_PARAMS] = n_parameters;
  in->in[NK_PLAN_IN_TOKENS] = tokens;
  in->optimizer = config->optimizer;
  in->precision = NK_PRECISION_FP32;
  in->in[NK_PLAN_IN_BATCH] = (double) config->batch;
  in->in[NK_PLAN_IN_SEQ] = seq;
  in->in[NK_PLAN_IN_LAYERS] = (double) MAX (config->layers, 1);
  in->in[NK_PLAN_IN_D_MODEL] = (double) config->dim;
}

/* The Planner's cluster model for a GPT run on one GPU: GPT-2's shape, tied, the
 * run's batch, sequence and precision. */
static void
plan_gpt (const NkTrainConfig *config,
          NkPlanInputs        *in)
{
  in->in[NK_PLAN_IN_GPUS] = 1;
  in->in[NK_PLAN_IN_BATCH] = (double) config->batch;
  in->in[NK_PLAN_IN_SEQ] = (double) config->context;
  in->in[NK_PLAN_IN_LAYERS] = (double) MAX (config->layers, 1);
  in->in[NK_PLAN_IN_D_MODEL] = (double) config->dim;
  in->in[NK_PLAN_IN_HEADS] = (double) config->n_head;
  in->in[NK_PLAN_IN_VOCAB] = (double) nk_train_config_get_vocab (config);
  in->layout[NK_PLAN_L_TIED_EMBEDDINGS] = TRUE;
  in->precision = nk_precision_is_mixed (config->precision) ? NK_PRECISION_BF16_MIXED : NK_PRECISION_FP32;
}

/**
 * nk_train_config_predict:
 * @config: a run's config
 * @gemm_rate: the device's measured matmul rate in FLOP/s (NAN when not known)
 * @out: (out caller-allocates): the prediction
 *
 * The trainer predicts its #NkTrainMetrics.predicted bytes with this very function,
 * so the card before a run and the dashed lines during it agree.
 */
void
nk_train_config_predict (const NkTrainConfig *config,
                         double               gemm_rate,
                         NkTrainPrediction   *out)
{
  NkPlanInputs in;
  NkPlanResult r;
  NkModelShape shape;
  double seq;

  g_return_if_fail (config != NULL && arch_of (config) != NULL);
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  nk_train_config_get_shape (config, &shape);
  seq = arch_of (config)->fields & NK_MODEL_FIELD_CONTEXT ? config->context : 1;
  out->n_parameters = nk_train_config_count_parameters (config);
  out->tokens_per_step = (double) config->batch * seq;

  plan_step (config, (double) out->n_parameters, out->tokens_per_step, seq, &in);
  nk_plan_compute (&in, &r);
  out->flops_per_step = r.values[NK_PLAN_V_TOTAL_FLOPS];
  /* A model with a formula of its own (a GPT: PaLM's 6·N + 12·L·T·d per token). */
  if (arch_of (config)->step_flops != NULL)
    out->flops_per_step = arch_of (config)->step_flops (&shape, out->tokens_per_step);
  /* The master weights, their grads and the optimizer state stay fp32 in every
   * precision (the narrow weight copies are per-step temporaries), so nk-plan's fp32
   * column is exact for them. Activations are counted per tensor the model keeps
   * (nk_model_activation_bytes()): for the fp32 Cruncher that is nk-plan's linear
   * formula plus B·8 + 4 bytes; under bf16/fp16 it adds layer 0's rounded input, and
   * the tiny LM is no linear model at all. */
  out->memory[0] = r.values[NK_PLAN_V_MEM_PARAMS];
  out->memory[1] = r.values[NK_PLAN_V_MEM_GRADS];
  out->memory[2] = r.values[NK_PLAN_V_MEM_OPT];
  out->memory[3] = (double) arch_of (config)->activation_bytes (&shape,
                                                                (guint64) config->batch * (guint64) seq,
                                                                NK_DTYPE_F32,
                                                                nk_train_config_compute_dtype (config));
  out->memory_total = out->memory[0] + out->memory[1] + out->memory[2] + out->memory[3];
  out->activations_planner = NAN;
  /* The Planner's cluster model counts a transformer's terms (#NkModelArch.activation_terms). */
  if (arch_of (config)->activation_terms != NULL)
    {
      plan_gpt (config, &in);
      nk_plan_compute (&in, &r);
      out->activations_planner = r.values[NK_PLAN_V_MAX_ACT];
    }
  out->gemm_rate = isfinite (gemm_rate) && gemm_rate > 0 ? gemm_rate : NAN;
  out->seconds_per_step = out->flops_per_step / out->gemm_rate;
}

/**
 * nk_train_config_activation_terms:
 * @config: a run's config
 * @planner: (out): the Planner's activation bytes by #NkActTerm (its cluster model
 *   on one GPU, as #NkTrainPrediction.activations_planner)
 * @stored: (out): what the GPT keeps, by term (nk_gpt_activation_terms(), whose sum
 *   is the measured activation bucket)
 *
 * The activation table of the Training page: the textbook formula and the GPT's
 * tensors side by side.
 *
 * Returns: %FALSE (and zeros) unless @config's model counts those terms (a GPT)
 */
gboolean
nk_train_config_activation_terms (const NkTrainConfig *config,
                                  double               planner[NK_ACT_N_TERMS],
                                  double               stored[NK_ACT_N_TERMS])
{
  NkPlanInputs in;
  NkPlanResult r;
  NkModelShape shape;
  guint64 bytes[NK_ACT_N_TERMS];

  g_return_val_if_fail (config != NULL && arch_of (config) != NULL, FALSE);

  memset (planner, 0, NK_ACT_N_TERMS * sizeof planner[0]);
  memset (stored, 0, NK_ACT_N_TERMS * sizeof stored[0]);
  if (arch_of (config)->activation_terms == NULL)
    return FALSE;
  nk_plan_inputs_init (&in);
  plan_gpt (config, &in);
  nk_plan_compute (&in, &r);
  memcpy (planner, r.act_terms, NK_ACT_N_TERMS * sizeof planner[0]);
  nk_train_config_get_shape (config, &shape);
  arch_of (config)->activation_terms (&shape, config->batch, nk_train_config_compute_dtype (config), bytes);
  for (guint i = 0; i < NK_ACT_N_TERMS; i++)
    stored[i] = (double) bytes[i];
  return TRUE;
}

/**
 * nk_train_config_flops_terms:
 * @config: a run's config
 * @palm: (out): PaLM's count of a step by #NkFlopKind: 6·N per token for the
 *   Linears (N as nk_gpt_flops_formula()), 12·L·T·d per token for attention, NAN
 *   for the element-wise kinds the formula leaves out
 * @ops: (out): the closed forms of what the ops count (nk_gpt_op_flops())
 *
 * The FLOPs table of the Training page: the formula, the ops' closed forms, and
 * (from each step's #NkTrainMetrics) what they counted.
 *
 * Returns: %FALSE (and NANs) unless @config's model has such a formula (a GPT)
 */
gboolean
nk_train_config_flops_terms (const NkTrainConfig *config,
                             double               palm[NK_N_FLOP_KINDS],
                             double               ops[NK_N_FLOP_KINDS])
{
  NkModelShape shape;

  g_return_val_if_fail (config != NULL && arch_of (config) != NULL, FALSE);

  for (guint i = 0; i < NK_N_FLOP_KINDS; i++)
    palm[i] = ops[i] = NAN;
  if (arch_of (config)->flops_terms == NULL)
    return FALSE;
  nk_train_config_get_shape (config, &shape);
  arch_of (config)->flops_terms (&shape, config->batch, palm, ops);
  return TRUE;
}
