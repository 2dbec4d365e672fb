// The best layout (TP × PP × DP, ZeRO stage, micro-batch) of a Llama-2-70B-shaped run
// as the cluster grows, as a table: `napkin-cli plan --best-layout` in a loop.
// Copyright 2026 The Napkin developers
// SPDX-License-Identifier: GPL-3.0-or-later
imports.gi.versions.Json = '1.0';
imports.gi.versions.Napkin = '1';
const {Json, Napkin} = imports.gi;

const pad = (v, n) => String(v).padStart(n);
print(`${pad('GPUs', 6)} ${pad('TP', 3)} ${pad('PP', 3)} ${pad('DP', 5)} ${pad('ZeRO', 4)} ` +
      `${pad('days', 7)} ${pad('MFU', 6)}`);
for (const gpus of [256, 512, 1024, 2048, 4096]) {
    const plan = new Napkin.Plan({
        params: 7e10, tokens: 1.5e13, gpu: 'h100-sxm', gpus, mfu_auto: true,
        layers: 80, d_model: 8192, heads: 64, seq: 4096, vocab: 32000,
        tied_embeddings: false, global_batch: 1024, best_layout: true,
    });
    if (!plan.check()) {
        print(`${pad(gpus, 6)}  ${plan.error}`);
        continue;
    }
    const builder = new Json.Builder();
    plan.build_json(builder, Napkin.PlanJsonFlags.NONE);
    const report = JSON.parse(Json.to_string(builder.get_root(), false));
    const l = report.layout;
    print(`${pad(gpus, 6)} ${pad(l.tp, 3)} ${pad(l.pp, 3)} ${pad(l.dp, 5)} ` +
          `${pad(l.zero_stage, 4)} ${pad(report.days.toFixed(1), 7)} ${pad(report.mfu.toFixed(3), 6)}`);
}
