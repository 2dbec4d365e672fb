/* napkin-cli.c: the engine without a display; dispatches to one command per file
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "nk-blas.h"
#include "nk-i18n.h"

typedef struct {
  const char *name;
  int       (*main) (int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "format", nk_cli_format_main, N_("Show how a number is stored in f32, f16, bf16, e4m3, e5m2") },
  { "quantize", nk_cli_quantize_main, N_("A vector in a block-scaled format (MXFP8/6/4, MXINT8, NVFP4)") },
  { "plan",   nk_cli_plan_main,   N_("Time, cost and memory of a training run on GPUs") },
  { "gpus",   nk_cli_gpus_main,   N_("The GPU table: memory, bandwidth, peak FLOP/s and sources") },
  { "tensor", nk_cli_tensor_main, N_("Run a tensor program: shapes, strides, views and storage") },
  { "train",  nk_cli_train_main,  N_("Train the Cruncher or a tiny LM, with FLOPs, MFU and memory per step") },
  { "devices", nk_cli_devices_main, N_("The CPU (with its derived peak FLOP/s) and CUDA devices") },
  { "bench",  nk_cli_bench_main,  N_("Time a matmul and compare its FLOP/s with the peak") },
  { "sample", nk_cli_sample_main, N_("Continue a prompt with a trained GPT") },
  { "import", nk_cli_import_main, N_("Read another engine's log or a TensorBoard folder as steps") },
};

static void
print_usage (FILE *stream)
{
  fprintf (stream, "%s\n\n", _("Usage: napkin-cli COMMAND [OPTION…]"));
  fprintf (stream, "%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stream, "  %-9s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (stream, "\n%s\n", _("Run “napkin-cli COMMAND --help” for a command’s options."));
}

int
main (int    argc,
      char **argv)
{
  nk_blas_reexec_if_kernels_weak (argv);
  setlocale (LC_ALL, "");
  /* Output people and scripts read alike: numbers always with a decimal point. */
  setlocale (LC_NUMERIC, "C");
  nk_i18n_init ();
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      /* CLI.md: a failure is one sentence on stderr, so no usage text here. */
      for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", commands[i].name);
      return nk_cli_fail (FALSE, NK_EXIT_USAGE,
                          _("give a command (%s); run napkin-cli --help"), names->str);
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    {
      print_usage (stdout);
      return NK_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("napkin-cli %s\n", PACKAGE_VERSION);
      return NK_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        g_autofree char *program = g_strdup_printf ("napkin-cli %s", commands[i].name);

        g_set_prgname (program);
        return commands[i].main (argc - 1, argv + 1);
      }

  return nk_cli_fail (nk_cli_wants_json (argc, argv), NK_EXIT_USAGE,
                      _("“%s” is not a command (run napkin-cli --help)"), argv[1]);
}
