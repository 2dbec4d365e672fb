/* test-cli-contract.c: napkin-cli against CLI.md, rule by rule, from a table of cases
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every case runs the built napkin-cli (NAPKIN_CLI) and checks what CLI.md fixes:
 * the exit code; on success every stdout line of a --json run is one JSON object
 * whose fields have CLI.md's names and types; on failure stderr is exactly one
 * line naming the offending input and, with --json, the last stdout line is
 * {"error": "..."}. Expected values come from CLI.md and closed forms, written
 * next to each case, never from an earlier run of the CLI.
 *
 * A line spec is a list of checks separated by spaces, on dotted paths
 * ("memory.params", "values.1"):
 *   path:TYPES  present, of one of the types s(tring) i(nteger) d(number: integer
 *               or float) b(ool) n(ull) o(bject) a(rray) F (a number, or one of
 *               the strings "nan", "inf", "-inf")
 *   !path       absent
 *   path=V      equal: strings and bools as written, null as "null", numbers to
 *               1e-12 relative
 *   path~V      a number within 5e-4 relative of V (a figure CLI.md rounds)
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nk-test-util.h"

/* The case passes when a CUDA device exists and the run succeeds, too. */
#define CASE_CUDA_OPTIONAL (1u << 0)

typedef struct {
  const char *path;
  const char *args[28];     /* after "napkin-cli"; "@/" is the test's data directory */
  const char *input;        /* stdin, or NULL for none */
  int         status;
  const char *needle;       /* failure: the input stderr's sentence must name */
  const char *lines[8];     /* a spec per expected stdout JSON line */
  const char *has[24];      /* texts stdout must contain (human output, --help) */
  guint       flags;
} Case;

#define Q1 "plan", "--params", "70B", "--tokens", "15T", "--gpu", "h100-sxm", "--gpus", "1024", \
           "--mfu", "0.5"
#define P1B "plan", "--params", "1B", "--tokens", "1B", "--gpu", "h100-sxm", "--gpus", "8", \
            "--mfu", "0.5", "--json"
#define TRAIN "train", "--model", "cruncher", "--dim", "3", "--layers", "1", "--steps", "2", \
              "--lr", "0.01", "--batch", "2", "--json-lines"

#define FORMAT_FIELDS "dtype:s input:s bits:s class:s sign:i exponent:in value:F exact:s"
#define VALUE_ITEM    FORMAT_FIELDS " abs_error:F rel_error:F"
#define BITS_ITEM     FORMAT_FIELDS " !abs_error !rel_error"
#define TENSOR_FIELDS "name:sn shape:a stride:a offset:i contiguous:b dtype:s numel:i bytes:i " \
                      "storage:o storage.id:i storage.numel:i values:a"
#define PLAN_FIELDS   "total_flops:d peak_flops_per_gpu:d flops_per_day:d days:d gpu_hours:d " \
                      "memory:o memory.params:d memory.grads:d memory.optimizer:d " \
                      "memory.activations:d memory.total:d memory.per_gpu:d " \
                      "memory.hbm_per_gpu:d memory.fits:b"
#define STEP_FIELDS   "step:i loss:F flops:d seconds:F flops_per_s:F peak_flops_per_s:F mfu:F " \
                      "device:s memory:o memory.params:d memory.grads:d memory.optimizer:d " \
                      "memory.activations:d"
#define DONE_FIELDS   "done=true steps:i final_loss:F"
#define BENCH_FIELDS  "flops:d seconds:d flops_per_s:d peak_flops_per_s:d mfu:d"

static const Case cases[] = {
  /* ---- general rules ---- */
  { "general/no-command", { NULL }, NULL, 2, "--help" },
  { "general/unknown-command", { "frobnicate", "--json" }, NULL, 2, "frobnicate",
    { "error:s" } },
  { "general/help",
    { "--help" }, NULL, 0, NULL, { NULL },
    { "format", "tensor", "plan", "gpus", "train", "devices", "bench" } },
  { "general/unknown-flag", { "plan", "--bogus", "--json" }, NULL, 2, "--bogus", { "error:s" } },

  /* ---- format ---- */
  /* e4m3 has no infinities: 464 is a tie that rounds to even (448), 465 passes it: NaN */
  { "format/e4m3/overflow",
    { "format", "--dtype", "e4m3", "--json", "464", "465", "inf" }, NULL, 0, NULL,
    { VALUE_ITEM " dtype=e4m3 input=464 bits=0x7e class=normal exponent=8 value=448 exact=448 "
      "abs_error=16",
      VALUE_ITEM " bits=0x7f class=nan sign=0 exponent=null value=nan exact=nan",
      VALUE_ITEM " bits=0x7f class=nan value=nan" } },
  { "format/e4m3/saturate",
    { "format", "--dtype", "e4m3", "--saturate", "--json", "465", "-inf", "nan" }, NULL, 0, NULL,
    { VALUE_ITEM " bits=0x7e value=448 sign=0",
      VALUE_ITEM " bits=0xfe value=-448 sign=1 abs_error=-inf",
      VALUE_ITEM " class=nan value=nan" } },
  /* f16 and e5m2 have infinities; --saturate clamps them to ±max (65504, 57344) */
  { "format/f16/overflow",
    { "format", "--dtype", "f16", "--json", "65520", "65519" }, NULL, 0, NULL,
    { VALUE_ITEM " bits=0x7c00 class=inf exponent=null value=inf exact=inf",
      VALUE_ITEM " bits=0x7bff class=normal exponent=15 value=65504" } },
  { "format/e5m2/saturate",
    { "format", "--dtype", "e5m2", "--saturate", "--json", "inf", "1e400" }, NULL, 0, NULL,
    { VALUE_ITEM " bits=0x7b value=57344", VALUE_ITEM " bits=0x7b value=57344" } },
  /* The lecture: 1e-8 is below half of f16's 2^-24 and vanishes; bf16 keeps it */
  { "format/underflow",
    { "format", "--dtype", "f16", "--json", "1e-8", "-0" }, NULL, 0, NULL,
    { VALUE_ITEM " bits=0x0000 class=zero exponent=null value=0 rel_error=1",
      VALUE_ITEM " bits=0x8000 class=zero sign=1 exponent=null" } },
  { "format/bf16/normal",
    { "format", "--dtype", "bf16", "--json", "1e-8" }, NULL, 0, NULL,
    { VALUE_ITEM " class=normal exponent=-27" } },   /* 2^-27 ≤ 1e-8 < 2^-26 */
  /* Bits: full width, lowercase; subnormal exponent 1 − bias */
  { "format/bits",
    { "format", "--dtype", "e4m3", "--json", "0x01", "0X7F", "0x80" }, NULL, 0, NULL,
    { BITS_ITEM " bits=0x01 class=subnormal exponent=-6 value=0.001953125 exact=0.001953125",
      BITS_ITEM " bits=0x7f class=nan exponent=null value=nan",
      BITS_ITEM " bits=0x80 class=zero sign=1 exponent=null" } },
  { "format/bits/full-width",
    { "format", "--dtype", "bf16", "--json", "0x1", "0x7f80" }, NULL, 0, NULL,
    { BITS_ITEM " bits=0x0001 class=subnormal exponent=-126",
      BITS_ITEM " bits=0x7f80 class=inf value=inf" } },
  { "format/e5m2/bits",
    { "format", "--dtype", "e5m2", "--json", "0x7c", "0xfc", "0x7e" }, NULL, 0, NULL,
    { BITS_ITEM " class=inf value=inf", BITS_ITEM " class=inf value=-inf",
      BITS_ITEM " class=nan value=nan" } },
  { "format/f32/one",
    { "format", "--dtype", "f32", "--json", "1", "0x3f800000" }, NULL, 0, NULL,
    { VALUE_ITEM " dtype=f32 bits=0x3f800000 exponent=0 value=1 exact=1 abs_error=0",
      BITS_ITEM " value=1" } },
  /* Negative items are items, with and without "--" */
  { "format/negative",
    { "format", "--dtype", "e4m3", "--json", "-465", "-2" }, NULL, 0, NULL,
    { VALUE_ITEM " input=-465 bits=0xff sign=1 class=nan",
      VALUE_ITEM " input=-2 bits=0xc0 sign=1 exponent=1 value=-2" } },
  { "format/negative/dashes",
    { "format", "--dtype", "e4m3", "--json", "--", "-465" }, NULL, 0, NULL,
    { VALUE_ITEM " input=-465 bits=0xff" } },
  /* General rule: the suffixes K, M, B (or G), T. 1000 = 1.953125 × 2^9 → 0x63d0 in f16 */
  { "format/suffix",
    { "format", "--dtype", "f16", "--json", "1K", "0.001k", "-2.5M" }, NULL, 0, NULL,
    { VALUE_ITEM " input=1K bits=0x63d0 value=1000",
      VALUE_ITEM " bits=0x3c00 value=1",
      VALUE_ITEM " bits=0xfc00 value=-inf" } },
  { "format/suffix/f32",
    { "format", "--dtype", "fp32", "--json", "1.5B", "2G", "1T" }, NULL, 0, NULL,
    { VALUE_ITEM " value=1500000000", VALUE_ITEM " value=2000000000",
      VALUE_ITEM " value=999999995904" } },   /* 1e12 → nearest f32 */
  { "format/stdin",
    { "format", "--dtype", "bf16", "--json" }, "1\n-2\n0x3f80\n", 0, NULL,
    { VALUE_ITEM " bits=0x3f80", VALUE_ITEM " bits=0xc000", BITS_ITEM " value=1" } },
  { "format/aliases",
    { "format", "--json", "--dtype", "half", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=f16" } },
  { "format/aliases/float32",
    { "format", "--json", "--dtype", "float32", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=f32" } },
  { "format/aliases/float",
    { "format", "--json", "--dtype", "float", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=f32" } },
  { "format/aliases/fp16",
    { "format", "--json", "--dtype", "float16", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=f16" } },
  { "format/aliases/bfloat16",
    { "format", "--json", "--dtype", "bfloat16", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=bf16" } },
  { "format/aliases/e4m3fn",
    { "format", "--json", "--dtype", "e4m3fn", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=e4m3" } },
  { "format/aliases/fp8-e4m3",
    { "format", "--json", "--dtype", "fp8-e4m3", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=e4m3" } },
  { "format/aliases/fp8-e5m2",
    { "format", "--json", "--dtype", "fp8-e5m2", "1" }, NULL, 0, NULL, { VALUE_ITEM " dtype=e5m2" } },
  { "format/bad/item", { "format", "--dtype", "e4m3", "--json", "abc" }, NULL, 2, "abc",
    { "error:s" } },
  { "format/bad/too-wide", { "format", "--dtype", "e4m3", "--json", "0x100" }, NULL, 2, "0x100",
    { "error:s" } },
  { "format/bad/dtype", { "format", "--dtype", "f64", "--json", "1" }, NULL, 2, "f64",
    { "error:s" } },
  { "format/bad/stdin", { "format", "--dtype", "e4m3", "--json" }, "1\nxyz\n", 2, "xyz",
    { VALUE_ITEM, "error:s" } },
  /* Hostile input is quoted: the output stays UTF-8 (communicate_utf8 checks) and one line. */
  { "format/bad/stdin-not-utf8", { "format", "--dtype", "e4m3", "--json" }, "\xff\n", 2,
    "“\\xff”", { "error:s" } },
  { "format/bad/newline", { "format", "--dtype", "e4m3", "--json", "1\n2" }, NULL, 2,
    "“1\\n2”", { "error:s" } },
  { "format/help", { "format", "--help" }, NULL, 0, NULL, { NULL },
    { "--dtype", "--saturate", "--json", "ITEM", "e4m3fn", "bfloat16" } },

  /* ---- tensor ---- */
  { "tensor/view",
    { "tensor", "--json", "x = arange(6).view(2, 3); y = x.t()" }, NULL, 0, NULL,
    { TENSOR_FIELDS " name=y shape.0=3 shape.1=2 stride.0=1 stride.1=3 offset=0 contiguous=false "
      "dtype=f32 numel=6 bytes=24 storage.numel=6 values.0=0 values.1=3 values.5=5" } },
  { "tensor/invalid-view",
    { "tensor", "--json", "x = arange(6).view(2, 3); x.t().view(6)" }, NULL, 1, "view",
    { "error:s statement=2" } },
  { "tensor/value/bool",
    { "tensor", "--json", "x = arange(6).view(2, 3); x.t().is_contiguous()" }, NULL, 0, NULL,
    { "value=false" } },
  { "tensor/value/tuple",
    { "tensor", "--json", "x = arange(6).view(2, 3); x.stride()" }, NULL, 0, NULL,
    { "value:a value.0=3 value.1=1" } },
  { "tensor/write-through",
    { "tensor", "--json", "x = arange(4); y = x[1:]; y[0] = 100; x" }, NULL, 0, NULL,
    { TENSOR_FIELDS " values.1=100 offset=0" } },
  { "tensor/non-finite",
    { "tensor", "--json", "tensor([1.0, -1.0, 0.0]) / 0" }, NULL, 0, NULL,
    { TENSOR_FIELDS " values.0=inf values.1=-inf values.2=nan" } },
  { "tensor/all",
    { "tensor", "--json", "--all", "x = arange(6).view(2, 3); y = x[:, 1]" }, NULL, 0, NULL,
    { TENSOR_FIELDS " name=x", TENSOR_FIELDS " name=y offset=1 stride.0=3 storage.numel=6" } },
  { "tensor/bad/usage", { "tensor", "--json" }, NULL, 2, "program", { "error:s" } },
  /* A program is text: bytes that are not UTF-8 are bad input, from stdin too. */
  { "tensor/bad/not-utf8", { "tensor", "--json", "x = \"\xff\"" }, NULL, 2, "UTF-8",
    { "error:s" } },
  { "tensor/bad/stdin-not-utf8", { "tensor", "--json", "-" }, "x = \"\xff\"\n", 2, "UTF-8",
    { "error:s" } },
  /* A program starting with "-" is the program, not an option; "-" is stdin. */
  { "tensor/leading-minus", { "tensor", "--json", "-arange(3)" }, NULL, 0, NULL,
    { TENSOR_FIELDS " values.2=-2" } },
  { "tensor/stdin", { "tensor", "--json", "-" }, "x = arange(3)\nx[1:]\n", 0, NULL,
    { TENSOR_FIELDS " offset=1 values.0=1" } },
  { "tensor/help", { "tensor", "--help" }, NULL, 0, NULL, { NULL },
    { "--json", "--all", "rearrange", "einsum", "same_storage" } },

  /* ---- plan ---- */
  /* 6 × 70e9 × 15e12 = 6.3e24; 989.5e12 × 0.5 × 1024 × 86400 = 4.37723136e22 per day */
  { "plan/lecture/days", { Q1, "--json" }, NULL, 0, NULL,
    { PLAN_FIELDS " !cost !largest_params total_flops=6.3e24 peak_flops_per_gpu=989.5e12 "
      "flops_per_day=4.37723136e22 days~143.9 days=143.92659381842682 "
      "gpu_hours=3537139.969681658 memory.params=280e9 memory.grads=280e9 "
      "memory.optimizer=560e9 memory.activations=0 memory.total=1120e9 "
      "memory.per_gpu=1120e9 memory.hbm_per_gpu=80e9 memory.fits=false" } },
  { "plan/lecture/days/human", { Q1 }, NULL, 0, NULL, { NULL }, { "143.9 days" } },
  /* 8 × 80e9 / 16 and 80e9 / 16 */
  { "plan/lecture/largest/zero3",
    { "plan", "--gpu", "h100-sxm", "--gpus", "8", "--largest", "--zero", "3", "--json" }, NULL, 0,
    NULL, { "largest_params=4e10 memory:o memory.fits=true" } },
  { "plan/lecture/largest/zero0",
    { "plan", "--gpu", "h100-sxm", "--gpus", "8", "--largest", "--zero", "0", "--json" }, NULL, 0,
    NULL, { "largest_params=5e9 memory.per_gpu=80e9" } },
  /* --price: cost = gpu_hours × price */
  { "plan/price", { Q1, "--price", "2", "--json" }, NULL, 0, NULL,
    { PLAN_FIELDS " cost=7074279.939363316" } },
  { "plan/sparse", { Q1, "--sparse", "--json" }, NULL, 0, NULL,
    { PLAN_FIELDS " peak_flops_per_gpu=1979e12" } },
  /* 6 × 1e9 × 1e9 = 6e18 exactly: a round number must still be valid JSON */
  { "plan/round-number", { P1B }, NULL, 0, NULL,
    { PLAN_FIELDS " total_flops=6e18 days=0.017545337151198697" } },
  /* Defaults: adamw, fp32 → 4 + 4 + 8 bytes per parameter, ZeRO 0 */
  { "plan/defaults", { P1B }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.params=4e9 memory.grads=4e9 memory.optimizer=8e9 "
      "memory.per_gpu=16e9 memory.fits=true" } },
  { "plan/optimizer/sgd", { P1B, "--optimizer", "sgd" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.optimizer=0 memory.total=8e9" } },
  { "plan/optimizer/momentum", { P1B, "--optimizer", "momentum" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.optimizer=4e9" } },
  { "plan/optimizer/adagrad", { P1B, "--optimizer", "adagrad" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.optimizer=4e9" } },
  { "plan/optimizer/rmsprop", { P1B, "--optimizer", "rmsprop" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.optimizer=4e9" } },
  { "plan/optimizer/adam", { P1B, "--optimizer", "adam" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.optimizer=8e9" } },
  /* ZeRO: 1 shards the optimizer state over 8, 2 also grads, 3 also params */
  { "plan/zero/1", { P1B, "--zero", "1" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.per_gpu=9e9 memory.total=16e9" } },
  { "plan/zero/2", { P1B, "--zero", "2" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.per_gpu=5.5e9" } },
  { "plan/zero/3", { P1B, "--zero", "3" }, NULL, 0, NULL,
    { PLAN_FIELDS " memory.per_gpu=2e9" } },
  { "plan/activations", { P1B, "--batch", "8", "--seq", "1K", "--layers", "4", "--d-model", "512" },
    NULL, 0, NULL, { PLAN_FIELDS } },
  { "plan/bad/gpus", { Q1, "--json", "--gpus", "-1" }, NULL, 2, "--gpus", { "error:s" } },
  { "plan/bad/number", { Q1, "--json", "--params", "abc" }, NULL, 2, "--params", { "error:s" } },
  { "plan/bad/mfu", { Q1, "--json", "--mfu", "1.5" }, NULL, 2, "--mfu", { "error:s" } },
  { "plan/bad/gpu", { Q1, "--json", "--gpu", "h900" }, NULL, 2, "h900", { "error:s" } },
  { "plan/bad/zero", { Q1, "--json", "--zero", "4" }, NULL, 2, "--zero", { "error:s" } },
  { "plan/bad/price", { Q1, "--json", "--price", "-1" }, NULL, 2, "--price", { "error:s" } },
  { "plan/bad/missing", { "plan", "--gpu", "h100-sxm", "--gpus", "8", "--json" }, NULL, 2,
    "--params", { "error:s" } },
  /* 1e6 × 1e4 × 1e4 × 100 activations: not even one parameter fits → exit 1, JSON error last */
  { "plan/largest/nothing-fits",
    { "plan", "--gpu", "h100-sxm", "--gpus", "8", "--largest", "--batch", "1M", "--seq", "10K",
      "--layers", "100", "--d-model", "10K", "--json" }, NULL, 1, "--largest",
    { "largest_params:d memory.fits=false", "error:s" } },
  { "plan/help", { "plan", "--help" }, NULL, 0, NULL, { NULL },
    { "--params", "--tokens", "--gpu=", "--gpus", "--mfu", "--dtype", "--sparse", "--optimizer",
      "--precision", "--zero", "--batch", "--seq", "--layers", "--d-model", "--price",
      "--largest", "--json" } },

  /* ---- gpus (the full table is checked in test_gpus) ---- */
  { "gpus/one", { "gpus", "--json", "h100-sxm" }, NULL, 0, NULL,
    { "id=h100-sxm name:s memory=80e9 bandwidth:d peak.bf16=989.5e12 peak_sparse.bf16=1979e12 "
      "peak.fp64:dn peak.fp32:dn peak.tf32:dn peak.fp16:dn peak.fp8:dn peak.int8:dn "
      "cuda_names:a source:s" } },
  { "gpus/help", { "gpus", "--help" }, NULL, 0, NULL, { NULL }, { "--json" } },

  /* ---- train ---- */
  { "train/json-lines", { TRAIN }, NULL, 0, NULL,
    { STEP_FIELDS " step=1 device=cpu", STEP_FIELDS " step=2", DONE_FIELDS " steps=2" } },
  /* Zero weights predict 0, so with lr 1e-30 each step's loss is the mean of y² over
   * rows [(t·B) mod N, +B): y = 0..5, B = 2 → (0+1)/2, (4+9)/2, (16+25)/2, (0+1)/2 */
  { "train/inputs-rows",
    { "train", "--model", "cruncher", "--dim", "3", "--layers", "1", "--batch", "2",
      "--steps", "4", "--lr", "1e-30", "--optimizer", "sgd", "--init", "@/zero.safetensors",
      "--inputs", "@/x.npy", "--targets", "@/y.npy", "--json-lines" }, NULL, 0, NULL,
    { "loss=0.5", "loss=6.5", "loss=20.5", "loss=0.5", DONE_FIELDS " steps=4 final_loss=0.5" } },
  { "train/cuda", { TRAIN, "--device", "cuda" }, NULL, 1, "no CUDA device: ",
    { "error:s" }, { NULL }, CASE_CUDA_OPTIONAL },
  { "train/bad/lr", { TRAIN, "--lr", "-1" }, NULL, 2, "--lr", { "error:s" } },
  { "train/bad/number", { TRAIN, "--dim", "abc" }, NULL, 2, "--dim", { "error:s" } },
  { "train/bad/optimizer", { TRAIN, "--optimizer", "lion" }, NULL, 2, "lion", { "error:s" } },
  { "train/bad/device", { TRAIN, "--device", "tpu" }, NULL, 2, "tpu", { "error:s" } },
  { "train/bad/device-index", { TRAIN, "--device", "cuda:abc" }, NULL, 2, "cuda:abc",
    { "error:s" } },
  { "train/bad/steps-zero", { TRAIN, "--steps", "0" }, NULL, 2, "from 1 to", { "error:s" } },
  { "train/bad/steps-negative", { TRAIN, "--steps", "-1" }, NULL, 2, "from 1 to",
    { "error:s" } },
  { "train/bad/not-a-file", { TRAIN, "--inputs", "@/", "--targets", "@/y.npy" }, NULL, 1,
    "is not a regular file", { "error:s" } },
  /* An output location that cannot be written fails before step 1: no step lines. */
  { "train/bad/save-dir", { TRAIN, "--save", "/nonexistent/dir/x.safetensors" }, NULL, 1,
    "/nonexistent/dir", { "error:s" } },
  { "train/help", { "train", "--help" }, NULL, 0, NULL, { NULL },
    { "--model", "--dim", "--layers", "--batch", "--steps", "--lr", "--optimizer", "--seed",
      "--device", "--precision", "--init", "--inputs", "--targets", "--checkpoint-dir",
      "--checkpoint-every", "--resume", "--save", "--json-lines" } },

  /* ---- devices, bench ---- */
  { "devices/json", { "devices", "--json" }, NULL, 0, NULL, { NULL } },
  { "devices/help", { "devices", "--help" }, NULL, 0, NULL, { NULL }, { "--json" } },
  /* flops = 2·M·K·N = 2 · 8 · 4 · 2 */
  { "bench/matmul",
    { "bench", "matmul", "--m", "8", "--k", "4", "--n", "2", "--json" }, NULL, 0, NULL,
    { BENCH_FIELDS " flops=128" } },
  { "bench/suffix",
    { "bench", "matmul", "--m", "0.001K", "--k", "1", "--n", "1", "--json" }, NULL, 0, NULL,
    { BENCH_FIELDS " flops=2" } },
  { "bench/bad/name", { "bench", "conv", "--json" }, NULL, 2, "conv", { "error:s" } },
  { "bench/bad/device-index",
    { "bench", "matmul", "--m", "1", "--k", "1", "--n", "1", "--device", "cuda:abc", "--json" },
    NULL, 2, "cuda:abc", { "error:s" } },
  { "bench/bad/size", { "bench", "matmul", "--m", "abc", "--k", "1", "--n", "1", "--json" },
    NULL, 2, "--m", { "error:s" } },
  { "bench/help", { "bench", "--help" }, NULL, 0, NULL, { NULL },
    { "matmul", "--m", "--k", "--n", "--dtype", "--device", "--json" } },
};

static char *data_dir;

/* Runs a case through the shared runner, "@/NAME" arguments naming files of the
 * test's data folder; standard input is the case's input, or empty. */
static gboolean
run_case (const Case *c,
          NkTestRun  *run)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  const char *input = c->input != NULL ? c->input : "";

  for (guint i = 0; c->args[i] != NULL; i++)
    g_ptr_array_add (args, g_str_has_prefix (c->args[i], "@/")
                           ? g_build_filename (data_dir, c->args[i] + 2, NULL)
                           : g_strdup (c->args[i]));
  g_ptr_array_add (args, NULL);
  if (!nk_test_run_cli (run, NULL, (const char *const *) args->pdata, input, strlen (input)))
    return FALSE;
  g_assert_cmpint (run->status, >=, 0);
  /* CLI.md: what it prints is UTF-8 text. */
  g_assert_true (g_utf8_validate (run->out, run->out_len, NULL));
  g_assert_true (g_utf8_validate (run->err, run->err_len, NULL));
  return TRUE;
}

static JsonNode *
parse_object (const char *path,
              const char *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_data (parser, line, -1, &error))
    g_error ("%s: stdout line is not JSON (%s): %s", path, error->message, line);
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    g_error ("%s: stdout line is not a JSON object: %s", path, line);
  return json_node_copy (json_parser_get_root (parser));
}

/* The node at a dotted path ("memory.params", "values.1"), or NULL. */
static JsonNode *
lookup (JsonNode   *root,
        const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, ".", -1);
  JsonNode *node = root;

  for (guint i = 0; parts[i] != NULL && node != NULL; i++)
    {
      if (JSON_NODE_HOLDS_OBJECT (node))
        node = json_object_get_member (json_node_get_object (node), parts[i]);
      else if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *array = json_node_get_array (node);
          guint64 index = g_ascii_strtoull (parts[i], NULL, 10);

          node = index < json_array_get_length (array) ? json_array_get_element (array, index) : NULL;
        }
      else
        node = NULL;
    }
  return node;
}

static gboolean
has_type (JsonNode *node,
          char      type)
{
  GType value_type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_NONE;
  gboolean number = value_type == G_TYPE_INT64 || value_type == G_TYPE_DOUBLE;

  switch (type)
    {
    case 's': return value_type == G_TYPE_STRING;
    case 'i': return value_type == G_TYPE_INT64;
    case 'd': return number;
    case 'b': return value_type == G_TYPE_BOOLEAN;
    case 'n': return JSON_NODE_HOLDS_NULL (node);
    case 'o': return JSON_NODE_HOLDS_OBJECT (node);
    case 'a': return JSON_NODE_HOLDS_ARRAY (node);
    case 'F':
      return number || (value_type == G_TYPE_STRING
                        && g_strv_contains ((const char *const[]) { "nan", "inf", "-inf", NULL },
                                            json_node_get_string (node)));
    default:
      g_error ("unknown type letter %c", type);
    }
  return FALSE;
}

static void
check_equal (const char *where,
             JsonNode   *node,
             const char *expected,
             double      tolerance)
{
  GType value_type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_NONE;

  if (JSON_NODE_HOLDS_NULL (node))
    {
      if (strcmp (expected, "null") != 0)
        g_error ("%s: null, expected %s", where, expected);
    }
  else if (value_type == G_TYPE_STRING)
    {
      if (strcmp (json_node_get_string (node), expected) != 0)
        g_error ("%s: \"%s\", expected \"%s\"", where, json_node_get_string (node), expected);
    }
  else if (value_type == G_TYPE_BOOLEAN)
    {
      if (strcmp (json_node_get_boolean (node) ? "true" : "false", expected) != 0)
        g_error ("%s: %s, expected %s", where, json_node_get_boolean (node) ? "true" : "false",
                 expected);
    }
  else if (value_type == G_TYPE_INT64 || value_type == G_TYPE_DOUBLE)
    {
      double got = json_node_get_double (node);
      double want = g_ascii_strtod (expected, NULL);

      if (!(fabs (got - want) <= tolerance * fabs (want)))
        g_error ("%s: %.17g, expected %s", where, got, expected);
    }
  else
    g_error ("%s: not a scalar, expected %s", where, expected);
}

/* Applies one line spec (see the top of the file) to @root. */
static void
check_spec (const char *path,
            guint       line,
            JsonNode   *root,
            const char *spec)
{
  g_auto(GStrv) checks = g_strsplit (spec, " ", -1);

  for (guint i = 0; checks[i] != NULL; i++)
    {
      const char *check = checks[i];
      g_autofree char *where = NULL;
      const char *op;
      g_autofree char *key = NULL;
      JsonNode *node;

      if (check[0] == '\0')
        continue;
      where = g_strdup_printf ("%s, line %u, %s", path, line + 1, check);
      if (check[0] == '!')
        {
          if (lookup (root, check + 1) != NULL)
            g_error ("%s: present", where);
          continue;
        }
      op = strpbrk (check, ":=~");
      g_assert_nonnull (op);
      key = g_strndup (check, op - check);
      node = lookup (root, key);
      if (node == NULL)
        g_error ("%s: absent", where);
      if (*op == ':')
        {
          gboolean ok = FALSE;

          for (const char *t = op + 1; *t; t++)
            ok |= has_type (node, *t);
          if (!ok)
            g_error ("%s: wrong type", where);
        }
      else
        check_equal (where, node, op + 1, *op == '=' ? 1e-12 : 5e-4);
    }
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_auto(NkTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  gboolean json = FALSE;
  guint n_specs = 0;

  if (!run_case (c, &run))
    return;
  for (guint i = 0; c->args[i] != NULL; i++)
    json |= strcmp (c->args[i], "--json") == 0 || strcmp (c->args[i], "--json-lines") == 0;
  while (n_specs < G_N_ELEMENTS (c->lines) && c->lines[n_specs] != NULL)
    n_specs++;

  if ((c->flags & CASE_CUDA_OPTIONAL) && run.status == 0)
    {
      g_test_message ("%s: a CUDA device is present; the no-device path was not run", c->path);
      return;
    }
  if (run.status != c->status)
    g_error ("%s: exit %d, expected %d; stderr: %s", c->path, run.status, c->status, run.err);

  if (c->status != 0)
    {
      /* One sentence on one line, naming the offending input. */
      const char *newline = strchr (run.err, '\n');

      if (newline == NULL || newline[1] != '\0' || newline == run.err)
        g_error ("%s: stderr is not exactly one line: «%s»", c->path, run.err);
      if (c->needle != NULL && strstr (run.err, c->needle) == NULL)
        g_error ("%s: stderr does not name “%s”: %s", c->path, c->needle, run.err);
    }
  else
    g_assert_cmpstr (run.err, ==, "");

  lines = g_strsplit (run.out, "\n", -1);
  if (json)
    {
      for (guint i = 0; lines[i] != NULL; i++)
        if (lines[i][0] != '\0')
          g_ptr_array_add (objects, parse_object (c->path, lines[i]));
        else if (lines[i + 1] != NULL)
          g_error ("%s: an empty line inside JSON Lines output", c->path);
      if (c->status != 0)
        {
          JsonNode *last;

          if (objects->len == 0)
            g_error ("%s: no {\"error\": ...} on stdout", c->path);
          last = g_ptr_array_index (objects, objects->len - 1);
          check_spec (c->path, objects->len - 1, last, "error:s");
          g_assert_true (strstr (run.err, json_node_get_string (lookup (last, "error"))) != NULL);
        }
      if (n_specs > 0 && objects->len != n_specs)
        g_error ("%s: %u JSON lines, expected %u:\n%s", c->path, objects->len, n_specs, run.out);
      for (guint i = 0; i < n_specs; i++)
        check_spec (c->path, i, g_ptr_array_index (objects, i), c->lines[i]);
      if (c->status == 0 && objects->len == 0)
        g_error ("%s: no JSON output", c->path);
    }
  else
    g_assert_cmpuint (n_specs, ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (c->has) && c->has[i] != NULL; i++)
    if (strstr (run.out, c->has[i]) == NULL)
      g_error ("%s: stdout lacks “%s”:\n%s", c->path, c->has[i], run.out);
}

/* `gpus --json`: every GPU CLI.md names, each with every field and peak key. */
static void
test_gpus (void)
{
  static const Case c = { "gpus/table", { "gpus", "--json" }, NULL, 0, NULL };
  static const char *required[] = {
    "h100-sxm", "h100-pcie", "h100-nvl", "h200", "a100-sxm-40", "a100-sxm-80",
    "a100-pcie", "l40s", "rtx-4090", "b200", "v100", "cpu",
  };
  g_auto(NkTestRun) run = { 0 };
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (!run_case (&c, &run))
    return;
  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (g_strstrip (run.out), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) root = parse_object (c.path, lines[i]);

      check_spec (c.path, i, root,
                  "id:s name:s memory:dn bandwidth:dn peak:o peak_sparse:o cuda_names:a source:s "
                  "peak.fp64:dn peak.fp32:dn peak.tf32:dn peak.bf16:dn peak.fp16:dn peak.fp8:dn "
                  "peak.int8:dn peak_sparse.fp64:dn peak_sparse.fp32:dn peak_sparse.tf32:dn "
                  "peak_sparse.bf16:dn peak_sparse.fp16:dn peak_sparse.fp8:dn peak_sparse.int8:dn");
      g_hash_table_add (seen, g_strdup (json_node_get_string (lookup (root, "id"))));
    }
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    if (!g_hash_table_contains (seen, required[i]))
      g_error ("gpus --json lacks %s", required[i]);
}

/* X = [[0,1,2], …, [15,16,17]], Y = 0..5 as float32 .npy; a Cruncher (D 3, L 1) of zeros. */
static void
write_data (void)
{
  static const char *names[] = { "layers.0.weight", "layers.0.bias", "final.weight", "final.bias" };
  static const int sizes[] = { 9, 3, 3, 1 };
  static const char *shapes[] = { "[3,3]", "[3]", "[1,3]", "[1]" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) header = g_string_new ("{");
  g_autoptr(GByteArray) file = g_byte_array_new ();
  float x[18], y[6];
  int offset = 0;
  guint64 header_len;

  for (int i = 0; i < 18; i++)
    x[i] = (float) i;
  for (int i = 0; i < 6; i++)
    y[i] = (float) i;

  for (int k = 0; k < 2; k++)
    {
      const char *dict = k == 0 ? "{'descr': '<f4', 'fortran_order': False, 'shape': (6, 3), }"
                                : "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }";
      g_autoptr(GByteArray) npy = g_byte_array_new ();
      g_autoptr(GString) text = g_string_new (dict);
      g_autofree char *name = g_build_filename (data_dir, k == 0 ? "x.npy" : "y.npy", NULL);
      guint16 len;

      /* magic (6) + version (2) + length (2) + header, padded to 64 with a final '\n' */
      while ((10 + text->len + 1) % 64 != 0)
        g_string_append_c (text, ' ');
      g_string_append_c (text, '\n');
      len = GUINT16_TO_LE ((guint16) text->len);
      g_byte_array_append (npy, (const guint8 *) "\x93NUMPY\x01\x00", 8);
      g_byte_array_append (npy, (const guint8 *) &len, 2);
      g_byte_array_append (npy, (const guint8 *) text->str, text->len);
      g_byte_array_append (npy, (const guint8 *) (k == 0 ? x : y), k == 0 ? sizeof x : sizeof y);
      g_file_set_contents (name, (const char *) npy->data, npy->len, &error);
      g_assert_no_error (error);
    }

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_string_append_printf (header, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":%s,"
                              "\"data_offsets\":[%d,%d]}", i ? "," : "", names[i], shapes[i],
                              offset, offset + 4 * sizes[i]);
      offset += 4 * sizes[i];
    }
  g_string_append_c (header, '}');
  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');
  header_len = GUINT64_TO_LE ((guint64) header->len);
  g_byte_array_append (file, (const guint8 *) &header_len, 8);
  g_byte_array_append (file, (const guint8 *) header->str, header->len);
  for (int i = 0; i < offset; i++)
    g_byte_array_append (file, (const guint8 *) "", 1);
  {
    g_autofree char *name = g_build_filename (data_dir, "zero.safetensors", NULL);

    g_file_set_contents (name, (const char *) file->data, file->len, &error);
    g_assert_no_error (error);
  }
}

static void
remove_data (void)
{
  static const char *names[] = { "x.npy", "y.npy", "zero.safetensors" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *name = g_build_filename (data_dir, names[i], NULL);

      g_unlink (name);
    }
  g_rmdir (data_dir);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  data_dir = g_dir_make_tmp ("napkin-cli-contract-XXXXXX", &error);
  g_assert_no_error (error);
  write_data ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strconcat ("/cli/contract/", cases[i].path, NULL);

      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/cli/contract/gpus/table", test_gpus);

  status = g_test_run ();
  remove_data ();
  g_free (data_dir);
  return status;
}
