/* cli-common.h: what every napkin-cli command shares: exit codes, errors, JSON lines
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The exit codes of CLI.md. */
enum {
  NK_EXIT_OK = 0,
  NK_EXIT_UNSATISFIABLE = 1,
  NK_EXIT_USAGE = 2,
};

int      nk_cli_fail            (gboolean     json,
                                 int          exit_code,
                                 const char  *format,
                                 ...) G_GNUC_PRINTF (3, 4);
int      nk_cli_fail_error      (gboolean     json,
                                 int          exit_code,
                                 const GError *error);
void     nk_cli_print_json      (JsonBuilder *builder);
gboolean nk_cli_parse_options   (GOptionContext *context,
                                 int          *argc,
                                 char       ***argv,
                                 gboolean     json,
                                 int          *exit_code);
gboolean nk_cli_parse_number    (const char  *flag,
                                 const char  *text,
                                 double      *out_value,
                                 GError     **error);
gboolean nk_cli_wants_json      (int          argc,
                                 char       **argv);
void     nk_cli_print_error     (const char  *message);
char    *nk_cli_quote           (const char  *text);
char    *nk_cli_quote_len       (const char  *text,
                                 gssize       len);
gboolean nk_cli_check_device_name (const char *flag,
                                 const char  *text,
                                 GError     **error);

/* GOption reads "-465" as an option. NkCliNegatives hands it a copy of argv in
 * which each negative number is a placeholder that does not start with '-', and
 * gives the number back after parsing (format and quantize take values as
 * arguments). */
typedef struct {
  GPtrArray *argv;          /* the copy to parse, NULL-terminated */
  GPtrArray *originals;     /* the arguments the placeholders stand for */
  GPtrArray *placeholders;  /* the placeholders' strings, owned */
} NkCliNegatives;

void        nk_cli_negatives_init     (NkCliNegatives *n,
                                       int             argc,
                                       char          **argv);
const char *nk_cli_negatives_original (const NkCliNegatives *n,
                                       const char     *text);
void        nk_cli_negatives_clear    (NkCliNegatives *n);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NkCliNegatives, nk_cli_negatives_clear)

/* One entry point per command, each in its own cli-COMMAND.c. */
int nk_cli_format_main  (int argc, char **argv);
int nk_cli_quantize_main (int argc, char **argv);
int nk_cli_tensor_main  (int argc, char **argv);
int nk_cli_plan_main    (int argc, char **argv);
int nk_cli_gpus_main    (int argc, char **argv);
int nk_cli_train_main   (int argc, char **argv);
int nk_cli_devices_main (int argc, char **argv);
int nk_cli_bench_main   (int argc, char **argv);
int nk_cli_sample_main  (int argc, char **argv);
int nk_cli_import_main  (int argc, char **argv);

G_END_DECLS
