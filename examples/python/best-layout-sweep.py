#!/usr/bin/env python3
# The best layout (TP × PP × DP, ZeRO stage, micro-batch) of a Llama-2-70B-shaped run
# as the cluster grows, as a table: `napkin-cli plan --best-layout` in a loop.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
import json

import gi

gi.require_version("Json", "1.0")
gi.require_version("Napkin", "1")
from gi.repository import Json, Napkin

print(f"{'GPUs':>6} {'TP':>3} {'PP':>3} {'DP':>5} {'ZeRO':>4} {'days':>7} {'MFU':>6}")
for gpus in (256, 512, 1024, 2048, 4096):
    plan = Napkin.Plan(params=7e10, tokens=1.5e13, gpu="h100-sxm", gpus=gpus, mfu_auto=True,
                       layers=80, d_model=8192, heads=64, seq=4096, vocab=32000,
                       tied_embeddings=False, global_batch=1024, best_layout=True)
    if not plan.check():
        print(f"{gpus:>6}  {plan.props.error}")
        continue
    builder = Json.Builder()
    plan.build_json(builder, Napkin.PlanJsonFlags.NONE)
    report = json.loads(Json.to_string(builder.get_root(), False))
    layout = report["layout"]
    print(f"{gpus:>6} {layout['tp']:>3.0f} {layout['pp']:>3.0f} {layout['dp']:>5.0f} "
          f"{layout['zero_stage']:>4} {report['days']:>7.1f} {report['mfu']:>6.3f}")
