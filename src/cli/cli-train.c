/* cli-train.c: `napkin-cli train`, a toy training run with per-step accounting
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "nk-checkpoint.h"
#include "nk-device.h"
#include "nk-file-util.h"
#include "nk-json.h"
#include "nk-run-dir.h"
#include "nk-run-recorder.h"
#include "nk-trainer.h"
#include "nk-units.h"

typedef struct {
  gboolean json;
  guint64  every;     /* human output: print every N-th step */
  guint64  total;
  double   last_loss;
  guint64  last_step;
  const char *device;
  /* --run-dir: the folder's writer; with --json-lines it prints the lines it wrote */
  NkRunRecorder *recorder;
} Printer;

static void
on_step (NkTrainer            *trainer,
         const NkTrainMetrics *m,
         Printer              *p)
{
  p->last_loss = m->loss;
  p->last_step = m->step;

  /* With a run folder its recorder prints the lines (print_written_lines()). */
  if (p->json && p->recorder == NULL)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autofree char *line = NULL;

      nk_train_metrics_build_json (m, p->device, b);
      line = nk_json_to_line (b);
      printf ("%s\n", line);
    }
  if (!p->json && (m->step % p->every == 0 || m->step == p->total || m->step == 1))
    {
      g_autofree char *rate = nk_units_format_rate (m->flops_per_s);
      g_autofree char *time = nk_units_format_duration (m->seconds);
      g_autofree char *params = nk_units_format_bytes ((double) m->memory[NK_BUCKET_PARAMS]);
      g_autofree char *acts = nk_units_format_bytes ((double) m->memory[NK_BUCKET_ACTIVATIONS]);

      printf (_("step %6" PRIu64 "  loss %-12.6g  %10.4g FLOPs  %10s  %12s  MFU %6.2f%%  params %s  activations %s\n"),
              m->step, m->loss, (double) m->flops, time, rate, 100.0 * m->mfu, params, acts);
    }
  /* A killed run must have printed every step it finished. */
  fflush (stdout);
}

/* Every whole-number option has one range, stated the same way for every value
 * outside it (-1, 0, 2.5 or 1e30 alike). */
static gboolean
parse_count (const char  *flag,
             const char  *text,
             guint64      min,
             guint64      max,
             guint64     *out,
             GError     **error)
{
  double v;

  if (text == NULL)
    return TRUE;
  if (!nk_cli_parse_number (flag, text, &v, error))
    return FALSE;
  /* 2^64 and above do not convert; (double) max may round up past max. */
  if (!(v >= (double) min) || v != floor (v) || v >= 18446744073709551616.0
      || (guint64) v > max)
    {
      g_autofree char *quoted = nk_cli_quote (text);

      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s must be a whole number from %" PRIu64 " to %" PRIu64 ", not %s."),
                   flag, min, max, quoted);
      return FALSE;
    }
  *out = (guint64) v;
  return TRUE;
}

/* On the recorder's thread, once the lines are in metrics.jsonl: whoever sees a step
 * printed finds it in the folder too. */
static void
print_written_lines (const char *lines,
                     gsize       length,
                     gpointer    user_data)
{
  fwrite (lines, 1, length, stdout);
  fflush (stdout);
}

/* The loss a run resumed with nothing left to do ends on: its checkpoint's. */
static double
resumed_final_loss (const char *dir)
{
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_find_latest_intact (dir, NULL, NULL);

  return ck != NULL ? nk_checkpoint_get_loss (ck) : NAN;
}

/* The command line as typed. */
typedef struct {
  char *model, *dim, *layers, *batch, *steps, *lr, *optimizer, *seed, *device;
  char *precision, *init, *inputs, *targets, *ckdir, *ckevery, *ckkeep, *resume;
  char *save, *context_len, *text, *init_kind, *run_dir, *n_layer, *n_head, *n_embd;
  char *block_size, *vocab, *tokens, *batches, *mx_scale, *nvfp4_rounding, *name;
  gboolean json_lines, json;
} TrainArgs;

static void
train_args_clear (TrainArgs *a)
{
  char **strings[] = {
    &a->model, &a->dim, &a->layers, &a->batch, &a->steps, &a->lr, &a->optimizer, &a->seed,
    &a->device, &a->precision, &a->init, &a->inputs, &a->targets, &a->ckdir, &a->ckevery,
    &a->ckkeep, &a->resume, &a->save, &a->context_len, &a->text, &a->init_kind, &a->run_dir,
    &a->n_layer, &a->n_head, &a->n_embd, &a->block_size, &a->vocab, &a->tokens, &a->batches,
    &a->mx_scale, &a->nvfp4_rounding, &a->name,
  };

  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TrainArgs, train_args_clear)

static GOptionContext *
train_context (TrainArgs *a)
{
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_STRING, &a->model, N_("cruncher (default), tiny-lm or gpt"), "MODEL" },
    { "dim", 0, 0, G_OPTION_ARG_STRING, &a->dim, N_("Width D (default 64)"), "D" },
    { "layers", 0, 0, G_OPTION_ARG_STRING, &a->layers, N_("Hidden layers L (default 2)"), "L" },
    { "batch", 0, 0, G_OPTION_ARG_STRING, &a->batch, N_("Batch size B (default 8)"), "B" },
    { "steps", 0, 0, G_OPTION_ARG_STRING, &a->steps, N_("Optimizer steps (default 100)"), "S" },
    { "lr", 0, 0, G_OPTION_ARG_STRING, &a->lr, N_("Learning rate, > 0 (default 0.01; gpt 0.001)"), "LR" },
    { "optimizer", 0, 0, G_OPTION_ARG_STRING, &a->optimizer,
      N_("sgd, momentum, adagrad, rmsprop, adam or adamw (default adamw)"), "NAME" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &a->seed, N_("Seed of initialisation and data (default 0)"), "N" },
    { "device", 0, 0, G_OPTION_ARG_STRING, &a->device, N_("cpu (default), cuda or auto"), "DEVICE" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &a->precision, N_("fp32 (default), bf16-mixed, fp16, or (gpt) mxfp8 or nvfp4"), "P" },
    { "mx-scale", 0, 0, G_OPTION_ARG_STRING, &a->mx_scale,
      N_("mxfp8: up (default: no block clips, NVIDIA’s recipe) or floor (OCP v1.0)"), "RULE" },
    { "nvfp4-rounding", 0, 0, G_OPTION_ARG_STRING, &a->nvfp4_rounding,
      N_("nvfp4: the gradients’ rounding, stochastic (default) or nearest"), "MODE" },
    { "init", 0, 0, G_OPTION_ARG_FILENAME, &a->init, N_("Initial state_dict (safetensors)"), "FILE" },
    { "init-kind", 0, 0, G_OPTION_ARG_STRING, &a->init_kind,
      N_("trunc-normal (default: std 1/sqrt(fan_in), ±3 std) or normal (N(0, 1))"), "KIND" },
    { "inputs", 0, 0, G_OPTION_ARG_FILENAME, &a->inputs, N_("Inputs X.npy, float32 [N, D]"), "FILE" },
    { "targets", 0, 0, G_OPTION_ARG_FILENAME, &a->targets, N_("Targets Y.npy, float32 [N]"), "FILE" },
    { "context", 0, 0, G_OPTION_ARG_STRING, &a->context_len, N_("tiny-lm: tokens per sequence (default 32)"), "T" },
    { "text", 0, 0, G_OPTION_ARG_FILENAME, &a->text,
      N_("tiny-lm, gpt: UTF-8 text read as bytes (default: the bundled text)"), "FILE" },
    { "tokens", 0, 0, G_OPTION_ARG_FILENAME, &a->tokens,
      N_("tiny-lm, gpt: token stream, uint16 .bin or uint16/int32 .npy"), "FILE" },
    { "batches", 0, 0, G_OPTION_ARG_FILENAME, &a->batches,
      N_("gpt: fixed batches, int32/int64 .npy [N, B, T+1]; step t uses batch t mod N"), "FILE" },
    { "n-layer", 0, 0, G_OPTION_ARG_STRING, &a->n_layer, N_("gpt: transformer blocks L"), "L" },
    { "n-head", 0, 0, G_OPTION_ARG_STRING, &a->n_head, N_("gpt: attention heads H (default 4)"), "H" },
    { "n-embd", 0, 0, G_OPTION_ARG_STRING, &a->n_embd, N_("gpt: width d, a multiple of H"), "D" },
    { "block-size", 0, 0, G_OPTION_ARG_STRING, &a->block_size, N_("gpt: sequence length T"), "T" },
    { "vocab", 0, 0, G_OPTION_ARG_STRING, &a->vocab, N_("gpt: vocabulary size (default 256, bytes)"), "V" },
    { "checkpoint-dir", 0, 0, G_OPTION_ARG_FILENAME, &a->ckdir, N_("Write checkpoints here"), "DIR" },
    { "checkpoint-every", 0, 0, G_OPTION_ARG_STRING, &a->ckevery, N_("A checkpoint every N steps"), "N" },
    { "checkpoint-keep", 0, 0, G_OPTION_ARG_STRING, &a->ckkeep, N_("Checkpoints to keep (default 3, 0 = all)"), "K" },
    { "resume", 0, 0, G_OPTION_ARG_FILENAME, &a->resume,
      N_("Continue from the newest intact checkpoint in DIR, or in run folder DIR's checkpoints (same settings; see below)"), "DIR" },
    { "save", 0, 0, G_OPTION_ARG_FILENAME, &a->save, N_("Save the final state_dict (safetensors)"), "FILE" },
    { "run-dir", 0, 0, G_OPTION_ARG_FILENAME, &a->run_dir,
      N_("Write a run folder the app lists (config, plan, metrics.jsonl, checkpoints)"), "DIR" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &a->name,
      N_("The run folder’s name in the app (default: its model, precision and seed)"), "TEXT" },
    { "json-lines", 0, 0, G_OPTION_ARG_NONE, &a->json_lines, N_("One JSON object per step"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a->json, N_("The same as --json-lines"), NULL },
    { NULL }
  };
  GOptionContext *context = g_option_context_new (NULL);

  g_option_context_set_summary (context, _("Train the lecture’s Cruncher (or a tiny byte-level LM, or nanoGPT’s GPT) and account for every step."));
  g_option_context_set_description (context,
    _("Resuming: --resume DIR refuses a run whose settings differ from the checkpoint’s, "
      "naming them. Safe to change: --steps (to at least the checkpoint’s step; equal "
      "means nothing is left to do), --device, --checkpoint-every, --checkpoint-keep, "
      "--save and the output format. Everything else (model, sizes, optimizer, lr, "
      "seed, precision with --mx-scale and --nvfp4-rounding, init and data files) must be given as before.\n"
      "One run at a time writes to a checkpoint folder; a second is refused, naming "
      "the process that holds it. Every input file is validated when opened, and "
      "every output location is checked before step 1.\n"
      "A run folder (--run-dir) is written on a thread of its own, in batches, and made "
      "durable before every checkpoint. --resume F --run-dir F goes on in its own folder: "
      "its metrics keep the steps up to the checkpoint and the run appends after them; "
      "a resume that is refused leaves the folder as it was."));
  /* (the entries are copied: they may live on this stack) */
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  return context;
}

/* The named choices (model, optimizer, precision, init, device) into @config.
 * Returns: -1, or the exit code of a bad choice */
static int
apply_choices (const TrainArgs *a,
               NkTrainConfig   *config,
               gboolean         json)
{
  if (a->model != NULL && !nk_model_kind_from_string (a->model, &config->model))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--model: “%s” is not a model (cruncher, tiny-lm or gpt)."), a->model);
  if (a->optimizer != NULL && !nk_optimizer_from_string (a->optimizer, &config->optimizer))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--optimizer: “%s” is not one of sgd, momentum, adagrad, rmsprop, adam, adamw."),
                        a->optimizer);
  if (a->precision != NULL && !nk_precision_from_string (a->precision, &config->precision))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        _("--precision: “%s” is not fp32, bf16-mixed, fp16, mxfp8 or nvfp4."), a->precision);
  if (a->mx_scale != NULL && !nk_mx_scale_rule_from_name (a->mx_scale, &config->mx_scale, NULL))
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--mx-scale: “%s” is not up or floor."), a->mx_scale);
  if (a->nvfp4_rounding != NULL)
    {
      if (g_strcmp0 (a->nvfp4_rounding, "nearest") == 0)
        config->nvfp4_nearest = TRUE;
      else if (g_strcmp0 (a->nvfp4_rounding, "stochastic") != 0)
        return nk_cli_fail (json, NK_EXIT_USAGE,
                            _("--nvfp4-rounding: “%s” is not stochastic or nearest."), a->nvfp4_rounding);
    }
  if ((a->mx_scale != NULL && config->precision != NK_PRECISION_MXFP8)
      || (a->nvfp4_rounding != NULL && config->precision != NK_PRECISION_NVFP4))
    return nk_cli_fail (json, NK_EXIT_USAGE,
                        a->mx_scale != NULL && config->precision != NK_PRECISION_MXFP8
                        ? _("--mx-scale goes with --precision mxfp8.")
                        : _("--nvfp4-rounding goes with --precision nvfp4."));
  if (a->init_kind != NULL)
    {
      if (g_strcmp0 (a->init_kind, "normal") == 0)
        config->init_kind = NK_INIT_NORMAL;
      else if (g_strcmp0 (a->init_kind, "trunc-normal") != 0)
        return nk_cli_fail (json, NK_EXIT_USAGE,
                            _("--init-kind: “%s” is not trunc-normal or normal."), a->init_kind);
    }
  if (a->device != NULL)
    {
      g_free (config->device);
      config->device = g_strdup (a->device);
    }
  return -1;
}

/* The whole-number options into @config.
 * Returns: -1, or the exit code of a value out of its range */
static int
apply_counts (const TrainArgs *a,
              NkTrainConfig   *config,
              gboolean         json)
{
  g_autoptr(GError) error = NULL;
  guint64 v;

#define COUNT(flag, text, min, max, field) \
  G_STMT_START { \
    v = config->field; \
    if (!parse_count (flag, text, min, max, &v, &error)) \
      return nk_cli_fail_error (json, NK_EXIT_USAGE, error); \
    config->field = v; \
  } G_STMT_END
  /* The ranges nk_train_config_validate() enforces, so no value meets two messages. */
  COUNT ("--dim", a->dim, 1, 65536, dim);
  COUNT ("--layers", a->layers, 0, 4096, layers);
  COUNT ("--batch", a->batch, 1, G_MAXUINT32, batch);
  COUNT ("--steps", a->steps, 1, G_MAXINT64, steps);
  COUNT ("--seed", a->seed, 0, G_MAXUINT64 / 2, seed);
  COUNT ("--context", a->context_len, 1, 1 << 20, context);
  /* The GPT's names for the same sizes (nanoGPT's GPTConfig). */
  COUNT ("--n-layer", a->n_layer, 1, 4096, layers);
  COUNT ("--n-embd", a->n_embd, 1, 65536, dim);
  COUNT ("--block-size", a->block_size, 1, 1 << 20, context);
  COUNT ("--n-head", a->n_head, 1, 65536, n_head);
  COUNT ("--vocab", a->vocab, 1, G_MAXINT32, vocab);
  COUNT ("--checkpoint-every", a->ckevery, 0, G_MAXINT64, checkpoint_every);
  COUNT ("--checkpoint-keep", a->ckkeep, 0, G_MAXUINT32, checkpoint_keep);
#undef COUNT
  return -1;
}

/* Everything the command line says, into @config, checked.
 * Returns: -1, or the exit code of the first bad option */
static int
apply_args (const TrainArgs *a,
            NkTrainConfig   *config,
            gboolean         json)
{
  g_autoptr(GError) error = NULL;
  int code;

  if ((code = apply_choices (a, config, json)) >= 0 || (code = apply_counts (a, config, json)) >= 0)
    return code;
  if (a->device != NULL && !nk_cli_check_device_name ("--device", a->device, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);

  /* The model's own default (a GPT stalls at the Cruncher's 0.01: 2.6 nats on the
   * bundled text after 500 steps, against 0.74 at 0.001). */
  if (a->lr == NULL)
    config->lr = nk_train_config_default_lr (config->model);
  if (a->lr != NULL && !nk_cli_parse_number ("--lr", a->lr, &config->lr, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);

  config->init_file = g_strdup (a->init);
  config->inputs = g_strdup (a->inputs);
  config->targets = g_strdup (a->targets);
  config->text_file = g_strdup (a->text);
  config->tokens_file = g_strdup (a->tokens);
  config->batches_file = g_strdup (a->batches);
  config->checkpoint_dir = g_strdup (a->ckdir);
  /* A run folder is resumed from its checkpoints/: `--resume F --run-dir F` goes on
   * in its own folder. */
  if (a->resume != NULL
      && (config->resume_dir = nk_run_dir_resolve_resume (a->resume, &error)) == NULL)
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  /* Resuming keeps writing checkpoints where it reads them. */
  if (config->resume_dir != NULL && config->checkpoint_dir == NULL)
    config->checkpoint_dir = g_strdup (config->resume_dir);
  if (a->name != NULL && a->run_dir == NULL)
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--name needs --run-dir: it names the run folder."));
  if (a->name != NULL && (*g_strstrip (a->name) == '\0' || !g_utf8_validate (a->name, -1, NULL)))
    return nk_cli_fail (json, NK_EXIT_USAGE, _("--name: a run’s name is some UTF-8 text, not empty."));
  /* A run folder keeps its checkpoints inside. */
  if (a->run_dir != NULL && config->checkpoint_dir == NULL)
    config->checkpoint_dir = nk_run_dir_get_checkpoint_dir (a->run_dir);
  /* The CLI prints every step; keep only a short history in memory. */
  config->history_limit = 16;

  if (!nk_train_config_validate (config, &error))
    return nk_cli_fail_error (json, NK_EXIT_USAGE, error);
  /* Before step 1, not after the last: a run must not train for an hour and then lose
   * its weights to a typo. (The checkpoint folder is locked, and so checked, by the
   * trainer before its first step.) */
  if (a->save != NULL && !nk_file_check_writable (a->save, &error))
    return nk_cli_fail_error (json, NK_EXIT_UNSATISFIABLE, error);
  return -1;
}

/* The device name in every line is the resolved one ("cpu" for --device auto).
 * Returns: -1, or the exit code when there is no such device */
static int
resolve_device (const NkTrainConfig *config,
                Printer             *printer)
{
  g_autoptr(GError) error = NULL;
  NkDevice *dev = nk_device_lookup (config->device, &error);

  /* A missing CUDA device is exit 1 (CLI.md); a name that is no device is bad usage. */
  if (dev == NULL)
    return nk_cli_fail_error (printer->json,
                              g_str_has_prefix (config->device, "cuda")
                              || g_str_equal (config->device, "auto")
                              ? NK_EXIT_UNSATISFIABLE : NK_EXIT_USAGE, error);
  printer->device = nk_device_get_name (dev);
  return -1;
}

/* Runs @trainer to its end; a run folder's recorder records the end and is closed
 * before anything more is printed.
 * Returns: -1, or the exit code of a failed run */
static int
train (NkTrainer           *trainer,
       const NkTrainConfig *config,
       const char          *save,
       Printer             *printer)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) record_error = NULL;
  gboolean ok;

  ok = nk_trainer_run_sync (trainer, NULL, &error);
  if (printer->recorder != NULL && !nk_run_recorder_close (printer->recorder, &record_error)
      && ok)
    {
      ok = FALSE;
      error = g_steal_pointer (&record_error);
    }
  if (!ok)
    return nk_cli_fail_error (printer->json,
                              g_error_matches (error, NK_TRAINER_ERROR, NK_TRAINER_ERROR_CONFIG)
                              ? NK_EXIT_USAGE : NK_EXIT_UNSATISFIABLE, error);

  if (save != NULL && !nk_trainer_save (trainer, save, &error))
    return nk_cli_fail_error (printer->json, NK_EXIT_UNSATISFIABLE, error);

  /* Resumed with nothing left to do: the run ends where its checkpoint does. */
  if (printer->last_step == 0)
    {
      printer->last_step = nk_trainer_get_start_step (trainer);
      if (config->resume_dir != NULL && printer->last_step > 0)
        printer->last_loss = resumed_final_loss (config->resume_dir);
    }

  return -1;
}

int
nk_cli_train_main (int    argc,
                   char **argv)
{
  g_auto(TrainArgs) a = { 0, };
  g_autoptr(GOptionContext) context = train_context (&a);
  g_autoptr(NkTrainConfig) config = nk_train_config_new ();
  g_autoptr(NkTrainer) trainer = NULL;
  g_autoptr(NkRunRecorder) recorder = NULL;
  g_autoptr(GError) error = NULL;
  gboolean wants_json = nk_cli_wants_json (argc, argv);
  Printer printer = { 0, };
  int exit_code;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--json-lines") == 0)
      wants_json = TRUE;
  if (!nk_cli_parse_options (context, &argc, &argv, wants_json, &exit_code))
    return exit_code;
  printer.json = a.json || a.json_lines;
  if (argc > 1)
    return nk_cli_fail (printer.json, NK_EXIT_USAGE, _("Unexpected argument “%s”."), argv[1]);
  if ((exit_code = apply_args (&a, config, printer.json)) >= 0)
    return exit_code;

  trainer = nk_trainer_new (config);
  printer.every = MAX (config->steps / 20, 1);
  printer.total = config->steps;
  printer.last_loss = NAN;
  printer.device = config->device;
  g_signal_connect (trainer, "step", G_CALLBACK (on_step), &printer);
  if ((exit_code = resolve_device (config, &printer)) >= 0)
    return exit_code;
  if (a.run_dir != NULL)
    {
      recorder = nk_run_recorder_new (trainer, a.run_dir, &error);
      if (recorder == NULL || (a.name != NULL && !nk_run_recorder_set_name (recorder, a.name, &error)))
        return nk_cli_fail_error (printer.json, NK_EXIT_UNSATISFIABLE, error);
      if (printer.json)
        nk_run_recorder_set_lines_func (recorder, print_written_lines, NULL);
      printer.recorder = recorder;
    }

  if (!printer.json)
    printf (_("Training %s: dim %u, %u layers, batch %u, %" PRIu64 " steps, lr %g, %s, %s\n"),
            nk_model_kind_to_string (config->model), config->dim, config->layers,
            config->batch, config->steps, config->lr,
            nk_optimizer_to_string (config->optimizer),
            nk_precision_to_string (config->precision));
  if ((exit_code = train (trainer, config, a.save, &printer)) >= 0)
    return exit_code;

  if (printer.json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      nk_train_done_build_json (printer.last_step, printer.last_loss, b);
      nk_cli_print_json (b);
    }
  else
    {
      printf (_("Done: %" PRIu64 " steps, final loss %.6g (%" PRIu64 " parameters)\n"),
              printer.last_step, printer.last_loss, nk_trainer_get_n_parameters (trainer));
      if (a.save != NULL)
        printf (_("Saved the state_dict to %s\n"), a.save);
    }
  return NK_EXIT_OK;
}
