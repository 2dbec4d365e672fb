/* napkin.h: the engine's public face — include this, not the headers one by one
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every public header of src/engine, layer by layer from the bottom (the table in
 * src/engine/meson.build). A program outside Napkin includes <napkin.h> and nothing
 * else of it; the engine, the app, the CLI and the tests build with
 * NAPKIN_COMPILATION and may include single headers. Private headers (-private.h)
 * and the device backend's implementer header (nk-device-impl.h) are not here.
 * build-aux/check-public-face keeps this list complete.
 */
#pragma once

#define NAPKIN_INSIDE

/* base */
#include "nk-blas.h"
#include "nk-cpuinfo.h"
#include "nk-enums.h"
#include "nk-file-util.h"
#include "nk-i18n.h"
#include "nk-json.h"
#include "nk-rng.h"
#include "nk-units.h"
#include "nk-version-macros.h"

/* dtype */
#include "nk-dtype.h"
#include "nk-quantize.h"

/* accounting */
#include "nk-activation-terms.h"
#include "nk-gpus.h"
#include "nk-optimizer.h"
#include "nk-precision.h"

/* device */
#include "nk-device-peak.h"
#include "nk-device-probe.h"
#include "nk-device.h"
#include "nk-gemm-plan.h"
#include "nk-kernels.h"

/* tensor */
#include "nk-ops.h"
#include "nk-storage.h"
#include "nk-tensor.h"

/* io */
#include "nk-checkpoint.h"
#include "nk-data.h"
#include "nk-npy.h"
#include "nk-safetensors.h"
#include "nk-tfevents.h"

/* autograd */
#include "nk-autograd-nn.h"
#include "nk-autograd-quant.h"
#include "nk-autograd.h"

/* nn */
#include "nk-gpt.h"
#include "nk-init.h"
#include "nk-model-arch.h"
#include "nk-model.h"
#include "nk-optim.h"

/* plan */
#include "nk-launch.h"
#include "nk-plan-compute.h"
#include "nk-plan-format.h"
#include "nk-plan-report.h"
#include "nk-plan.h"

/* program */
#include "nk-einops.h"
#include "nk-program.h"

/* train */
#include "nk-gemm-rate.h"
#include "nk-train-config.h"
#include "nk-train-histogram.h"
#include "nk-train-history.h"
#include "nk-train-metrics.h"
#include "nk-trainer.h"

/* runs */
#include "nk-command-run.h"
#include "nk-import-plan.h"
#include "nk-log-follow.h"
#include "nk-log-import.h"
#include "nk-memory-snapshot.h"
#include "nk-run-dir.h"
#include "nk-run-recorder.h"
#include "nk-run-summary.h"

#undef NAPKIN_INSIDE
