// The lecture's worked example: 70B parameters on 15T tokens, 1,024 H100s at 50 % MFU.
// Copyright 2026 The Napkin developers
// SPDX-License-Identifier: GPL-3.0-or-later
imports.gi.versions.Napkin = '1';
const {Napkin} = imports.gi;

const plan = new Napkin.Plan({params: 7e10, tokens: 1.5e13, gpu: 'h100-sxm', gpus: 1024, mfu: 0.5});
print(`${plan.gpu_name}: ${plan.days.toFixed(1)} days, ` +
      `${plan.total_flops.toExponential(3)} FLOPs at ` +
      `${(plan.peak_flops_per_gpu / 1e12).toFixed(1)} TFLOP/s a GPU`);
