/* test-gpus.c: the GPU table against datasheet figures and its own invariants
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "nk-gpus.h"

static void
test_required_rows (void)
{
  static const char *ids[] = {
    "h100-sxm", "h100-pcie", "h100-nvl", "h200", "a100-sxm-40", "a100-sxm-80",
    "a100-pcie", "l40s", "rtx-4090", "b200", "v100", "cpu",
  };
  const GPtrArray *table = nk_gpus_get_all ();

  g_assert_cmpuint (table->len, >=, G_N_ELEMENTS (ids));
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const NkGpu *gpu = nk_gpus_lookup (ids[i]);

      g_assert_nonnull (gpu);
      g_assert_cmpstr (gpu->id, ==, ids[i]);
      g_assert_true (gpu->name != NULL && gpu->name[0] != '\0');
      g_assert_true (gpu->source != NULL && gpu->source[0] != '\0');
      if (strcmp (ids[i], "cpu") != 0)
        {
          /* A datasheet row names where its figures come from. */
          g_assert_nonnull (strstr (gpu->source, "https://"));
          g_assert_true (gpu->memory > 1e9);
          g_assert_true (gpu->bandwidth > 1e11);
          g_assert_true (isfinite (gpu->peak[NK_PEAK_FP32]));
          g_assert_true (gpu->cuda_names[0] != NULL);
        }
    }
}

/* The lecture's figures (seed 001): H100 dense bf16 = 1979e12 / 2, fp32 67e12 as
 * the datasheet prints it, 80 GB = 80e9 bytes; A100 bf16 312 TFLOP/s. */
static void
test_lecture_figures (void)
{
  const NkGpu *h100 = nk_gpus_lookup ("h100-sxm");
  const NkGpu *a100 = nk_gpus_lookup ("a100-sxm-80");

  g_assert_cmpfloat (h100->memory, ==, 80e9);
  g_assert_cmpfloat (h100->peak[NK_PEAK_BF16], ==, 1979e12 / 2);
  g_assert_cmpfloat (h100->peak_sparse[NK_PEAK_BF16], ==, 1979e12);
  g_assert_cmpfloat (nk_gpu_get_peak (h100, NK_PEAK_BF16, FALSE), ==, 989.5e12);
  g_assert_cmpfloat (nk_gpu_get_peak (h100, NK_PEAK_BF16, TRUE), ==, 1979e12);
  g_assert_cmpfloat (h100->peak[NK_PEAK_FP32], ==, 67e12);
  g_assert_cmpfloat (h100->peak[NK_PEAK_TF32], ==, 494.7e12);
  /* The seed's fp32 MFU example: 5.4e13 / 6.75e13 ≈ 0.80; with 67e12 it is 0.806. */
  g_assert_cmpfloat_with_epsilon (5.4e13 / h100->peak[NK_PEAK_FP32], 0.80, 0.01);
  g_assert_cmpfloat (a100->peak[NK_PEAK_BF16], ==, 312e12);
  g_assert_true (isnan (a100->peak[NK_PEAK_FP8]));
}

/* Datasheets print 2:4-sparse figures as about twice the dense ones (the L40S
 * sheet's own 362.05 dense beside 733 sparse is 2.025×); a row far from 2 has a
 * typo or swapped columns. */
static void
test_sparse_is_twice_dense (void)
{
  const GPtrArray *table = nk_gpus_get_all ();

  for (guint i = 0; i < table->len; i++)
    {
      const NkGpu *gpu = g_ptr_array_index (table, i);

      for (int d = 0; d < NK_PEAK_N_DTYPES; d++)
        {
          if (isnan (gpu->peak_sparse[d]))
            continue;
          g_assert_true (isfinite (gpu->peak[d]));
          g_assert_cmpfloat_with_epsilon (gpu->peak_sparse[d] / gpu->peak[d], 2.0, 0.03);
        }
      /* bf16 and fp16 tensor cores run at one rate on every GPU here. */
      if (isfinite (gpu->peak[NK_PEAK_BF16]))
        g_assert_cmpfloat (gpu->peak[NK_PEAK_BF16], ==, gpu->peak[NK_PEAK_FP16]);
    }
}

static void
test_cuda_names (void)
{
  static const struct { const char *cuda; const char *id; } cases[] = {
    { "NVIDIA H100 80GB HBM3", "h100-sxm" },
    { "NVIDIA H100 PCIe", "h100-pcie" },
    { "NVIDIA H100 NVL", "h100-nvl" },
    { "NVIDIA H200", "h200" },
    { "NVIDIA A100-SXM4-80GB", "a100-sxm-80" },
    { "NVIDIA A100-SXM4-40GB", "a100-sxm-40" },
    { "NVIDIA A100-PCIE-40GB", "a100-pcie-40" },
    { "NVIDIA A100 80GB PCIe", "a100-pcie" },
    { "NVIDIA L40S", "l40s" },
    { "NVIDIA GeForce RTX 4090", "rtx-4090" },
    { "NVIDIA B200", "b200" },
    { "Tesla V100-SXM2-16GB", "v100-16" },
    { "Tesla V100-SXM2-32GB", "v100" },
    { " nvidia h100 80gb hbm3 ", "h100-sxm" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const NkGpu *gpu = nk_gpus_lookup_cuda_name (cases[i].cuda);

      g_assert_nonnull (gpu);
      g_assert_cmpstr (gpu->id, ==, cases[i].id);
    }
  g_assert_null (nk_gpus_lookup_cuda_name ("NVIDIA GeForce GTX 1080"));
  g_assert_null (nk_gpus_lookup_cuda_name (NULL));
  g_assert_null (nk_gpus_lookup ("h900"));
  g_assert_nonnull (nk_gpus_lookup ("H100-SXM"));
}

static void
test_unknown_id (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (nk_gpus_check_id ("h200", NULL));
  g_assert_false (nk_gpus_check_id ("h900", &error));
  g_assert_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_UNKNOWN);
  g_assert_nonnull (strstr (error->message, "h900"));
  g_assert_nonnull (strstr (error->message, "h100-sxm"));
}

#define ROW(fields) "[{\"id\": \"x\", \"name\": \"X\", \"source\": \"s\", \"cuda_names\": []," fields "}]"
#define PEAKS(name, bf16) "\"" name "\": {\"fp64\": null, \"fp32\": 1e12, \"tf32\": null, " \
                          "\"bf16\": " bf16 ", \"fp16\": null, \"fp8\": null, \"int8\": null}"

static void
test_parse_refuses (void)
{
  static const struct { const char *json; const char *needle; } cases[] = {
    { "{", "JSON" },
    { "{}", "array" },
    { "[1]", "row 0" },
    { ROW ("\"memory\": -1, \"bandwidth\": 1, " PEAKS ("peak", "1") ", " PEAKS ("peak_sparse", "2")), "memory" },
    { ROW ("\"memory\": 1, \"bandwidth\": 1, " PEAKS ("peak", "2") ", " PEAKS ("peak_sparse", "1")), "sparse" },
    { ROW ("\"memory\": 1, \"bandwidth\": 1, " PEAKS ("peak", "\"fast\"") ", " PEAKS ("peak_sparse", "null")), "bf16" },
    { ROW ("\"memory\": 1, \"bandwidth\": 1, \"peak\": {}, " PEAKS ("peak_sparse", "null")), "fp64" },
    { "[{\"id\": \"x\", \"name\": \"X\", \"cuda_names\": []}]", "source" },
  };
  const char *good = ROW ("\"memory\": 80e9, \"bandwidth\": 1, " PEAKS ("peak", "1e12") ", "
                          PEAKS ("peak_sparse", "2e12"));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) rows = nk_gpus_parse (cases[i].json, -1, &error);

      g_assert_null (rows);
      g_assert_nonnull (error);
      g_assert_true (error->domain == NK_GPUS_ERROR);
      if (strstr (error->message, cases[i].needle) == NULL)
        g_error ("case %u: “%s” does not mention %s", i, error->message, cases[i].needle);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) rows = nk_gpus_parse (good, -1, &error);
    g_autofree char *twice = NULL;
    g_autoptr(GPtrArray) dup = NULL;
    const NkGpu *gpu;

    g_assert_no_error (error);
    g_assert_cmpuint (rows->len, ==, 1);
    gpu = g_ptr_array_index (rows, 0);
    g_assert_cmpfloat (gpu->memory, ==, 80e9);
    g_assert_true (isnan (gpu->peak[NK_PEAK_FP8]));
    g_assert_cmpfloat (gpu->peak_sparse[NK_PEAK_BF16], ==, 2e12);

    /* Two copies of the same row: the id is not unique. */
    twice = g_strdup_printf ("[%.*s, %.*s]", (int) strlen (good) - 2, good + 1,
                             (int) strlen (good) - 2, good + 1);
    dup = nk_gpus_parse (twice, -1, &error);
    g_assert_null (dup);
    g_assert_error (error, NK_GPUS_ERROR, NK_GPUS_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "twice"));
  }
}

static void
test_copy_and_dtype_names (void)
{
  const NkGpu *h100 = nk_gpus_lookup ("h100-sxm");
  g_autoptr(NkGpu) copy = nk_gpu_copy (h100);

  g_assert_true (copy != h100 && copy->id != h100->id);
  g_assert_cmpstr (copy->id, ==, h100->id);
  g_assert_cmpmem (copy->peak, sizeof copy->peak, h100->peak, sizeof h100->peak);
  g_assert_cmpstrv (copy->cuda_names, h100->cuda_names);

  for (int d = 0; d < NK_PEAK_N_DTYPES; d++)
    {
      NkPeakDtype back = -1;

      g_assert_true (nk_peak_dtype_from_string (nk_peak_dtype_to_string (d), &back));
      g_assert_cmpint (back, ==, d);
    }
  {
    NkPeakDtype d = NK_PEAK_FP8;

    g_assert_true (nk_peak_dtype_from_string ("bfloat16", &d));
    g_assert_cmpint (d, ==, NK_PEAK_BF16);
    g_assert_false (nk_peak_dtype_from_string ("e4m3", &d));
    g_assert_cmpint (d, ==, NK_PEAK_BF16);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/gpus/table/required-rows", test_required_rows);
  g_test_add_func ("/engine/gpus/table/lecture-figures", test_lecture_figures);
  g_test_add_func ("/engine/gpus/table/sparse-is-twice-dense", test_sparse_is_twice_dense);
  g_test_add_func ("/engine/gpus/lookup/cuda-names", test_cuda_names);
  g_test_add_func ("/engine/gpus/lookup/unknown-id", test_unknown_id);
  g_test_add_func ("/engine/gpus/parse/refuses", test_parse_refuses);
  g_test_add_func ("/engine/gpus/copy-and-dtype-names", test_copy_and_dtype_names);

  return g_test_run ();
}
