/* nk-cpuinfo.c: this machine's CPU and its peak FLOP/s, derived from /proc/cpuinfo
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-cpuinfo.h"

static char *
field (const char *line,
       const char *key)
{
  gsize n = strlen (key);
  const char *colon;

  if (strncmp (line, key, n) != 0 || (line[n] != ' ' && line[n] != '\t' && line[n] != ':'))
    return NULL;
  colon = strchr (line, ':');
  if (colon == NULL)
    return NULL;
  return g_strstrip (g_strdup (colon + 1));
}

static gboolean
has_flag (const char *flags,
          const char *flag)
{
  g_auto(GStrv) parts = g_strsplit (flags != NULL ? flags : "", " ", -1);

  return g_strv_contains ((const char *const *) parts, flag);
}

/**
 * nk_cpu_info_parse:
 * @cpuinfo: the text of a /proc/cpuinfo
 * @online: logical processors this process may use; 0: count the "processor" lines
 * @max_freq_khz: the kernel's cpufreq cpuinfo_max_freq, in kHz; 0 when unknown
 *   (then the "cpu MHz" lines give the clock)
 *
 * What nk_cpu_info_get() computes, from a given text instead of the running
 * machine's (tests feed it the cpuinfo of known machines): the model, the SIMD
 * width, the clock and the fp32/fp64 peaks as cores × lanes × 2 × FMA units × clock.
 *
 * Returns: (transfer full): the description, freed with nk_cpu_info_free()
 */
NkCpuInfo *
nk_cpu_info_parse (const char *cpuinfo,
                   guint       online,
                   guint64     max_freq_khz)
{
  NkCpuInfo *info = g_new0 (NkCpuInfo, 1);
  g_auto(GStrv) lines = g_strsplit (cpuinfo != NULL ? cpuinfo : "", "\n", -1);
  g_autoptr(GHashTable) sockets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *flags = NULL;
  double mhz = NAN;
  guint cores_per_socket = 0, processors = 0, physical;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *v;

      if ((v = field (lines[i], "processor")) != NULL)
        processors++, g_free (v);
      else if ((v = field (lines[i], "model name")) != NULL)
        {
          if (info->model == NULL)
            info->model = v;
          else
            g_free (v);
        }
      else if ((v = field (lines[i], "flags")) != NULL)
        {
          if (flags == NULL)
            flags = v;
          else
            g_free (v);
        }
      else if ((v = field (lines[i], "cpu MHz")) != NULL)
        {
          if (isnan (mhz))
            mhz = g_ascii_strtod (v, NULL);
          g_free (v);
        }
      else if ((v = field (lines[i], "cpu cores")) != NULL)
        {
          cores_per_socket = (guint) atoi (v);
          g_free (v);
        }
      else if ((v = field (lines[i], "physical id")) != NULL)
        g_hash_table_add (sockets, v);
    }

  if (info->model == NULL)
    info->model = g_strdup (_("unknown CPU"));
  info->logical = online > 0 ? online : MAX (processors, 1);
  physical = cores_per_socket > 0
             ? cores_per_socket * MAX (g_hash_table_size (sockets), 1) : info->logical;
  info->cores = MIN (info->logical, physical);

  if (has_flag (flags, "avx512f"))
    info->simd = g_strdup ("avx512f"), info->lanes_fp32 = 16;
  else if (has_flag (flags, "avx2"))
    info->simd = g_strdup ("avx2"), info->lanes_fp32 = 8;
  else if (has_flag (flags, "avx"))
    info->simd = g_strdup ("avx"), info->lanes_fp32 = 8;
  else
    info->simd = g_strdup ("sse"), info->lanes_fp32 = 4;
  info->fma_units = has_flag (flags, "fma") ? 2 : 1;

  if (max_freq_khz > 0)
    {
      info->clock_hz = (double) max_freq_khz * 1e3;
      info->clock_source = g_strdup ("cpufreq cpuinfo_max_freq");
    }
  else if (!isnan (mhz) && mhz > 0)
    {
      info->clock_hz = mhz * 1e6;
      info->clock_source = g_strdup ("/proc/cpuinfo cpu MHz");
    }
  else
    {
      info->clock_hz = NAN;
      info->clock_source = g_strdup (_("unknown"));
    }

  info->peak_fp32 = info->cores * info->fma_units * info->lanes_fp32 * 2.0 * info->clock_hz;
  info->peak_fp64 = info->peak_fp32 / 2.0;
  info->derivation = g_strdup_printf ("%u cores × %u FMA units × %u fp32 lanes (%s) × 2 FLOPs × %.3f GHz (%s) = %.4g FLOP/s",
                                      info->cores, info->fma_units, info->lanes_fp32,
                                      info->simd, info->clock_hz / 1e9, info->clock_source,
                                      info->peak_fp32);
  return info;
}

/**
 * nk_cpu_info_free:
 * @info: (transfer full) (nullable): a description from nk_cpu_info_parse()
 *
 * Frees @info and its strings.
 */
void
nk_cpu_info_free (NkCpuInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->model);
  g_free (info->simd);
  g_free (info->clock_source);
  g_free (info->derivation);
  g_free (info);
}

/**
 * nk_cpu_info_copy:
 * @info: a CPU description
 *
 * Copies @info with its strings (what the boxed type #NkCpuInfo copies with).
 *
 * Returns: (transfer full): the copy, freed with nk_cpu_info_free()
 */
NkCpuInfo *
nk_cpu_info_copy (const NkCpuInfo *info)
{
  NkCpuInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->model = g_strdup (info->model);
  copy->simd = g_strdup (info->simd);
  copy->clock_source = g_strdup (info->clock_source);
  copy->derivation = g_strdup (info->derivation);
  return copy;
}

G_DEFINE_BOXED_TYPE (NkCpuInfo, nk_cpu_info, nk_cpu_info_copy, nk_cpu_info_free)

const NkCpuInfo *
nk_cpu_info_get (void)
{
  static NkCpuInfo *info;

  if (g_once_init_enter (&info))
    {
      g_autofree char *text = NULL;
      g_autofree char *freq = NULL;
      guint64 khz = 0;

      g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL);
      if (g_file_get_contents ("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
                               &freq, NULL, NULL))
        khz = g_ascii_strtoull (freq, NULL, 10);
      g_once_init_leave (&info, nk_cpu_info_parse (text, g_get_num_processors (), khz));
    }
  return info;
}
