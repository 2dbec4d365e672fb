/* launch-oracle.h: re-checks of launch configs by the engines' own rules (tests only)
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * launch-oracle.c parses a file nk_launch_write() wrote and checks it by the
 * rules of the engine's source and counts the parameters the engine would
 * build from it; a broken rule is a failed assertion. Used by test-launch and
 * test-launch-plan.
 */
#pragma once

#include <glib.h>

#include "nk-launch.h"

/* Word lists (a Megatron-LM argument list, a launcher line) */
char      **split_words          (const char *line);
const char *word_after           (char **words, const char *flag);
gint64      word_int             (char **words, const char *flag, gint64 fallback);
gboolean    has_flag             (char **words, const char *flag);
void        split_megatron       (const char *text, char ***out_args, char ***out_launch);

/* Flat TOML as "section.key" → value (strings unquoted) */
GHashTable *parse_toml           (const char *text);
gint64      toml_int             (GHashTable *t, const char *key, gint64 fallback);
gint64      header_int           (const char *text, const char *key);

/* Parameter counts: the planned model by hand, and what each engine builds
 * from its file (Megatron-LM with a tokenizer of @vocab tokens) */
double      planned_params       (const NkLaunchSpec *spec);
double      megatron_params      (char **args, guint64 vocab);
gint64      torchtitan_ffn_check (const char *text, const NkLaunchSpec *spec);
double      torchtitan_params    (const char *text, gint64 hidden);

/* The re-checks; write_and_recheck() returns whether the writer accepted */
void        recheck_deepspeed    (const char *text, const char *command, const NkLaunchSpec *spec);
void        recheck_megatron     (const char *text, const NkLaunchSpec *spec);
void        recheck_torchtitan   (const char *text, const NkLaunchSpec *spec);
gboolean    write_and_recheck    (const NkLaunchSpec *spec, NkLaunchEngine engine);
