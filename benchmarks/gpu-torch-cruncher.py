#!/usr/bin/env python3
# gpu-torch-cruncher.py: PyTorch's rate for the Cruncher step gpu-check times (the
# reference its MFU is read against): L Linear(D, D) + Linear(D, 1), MSE, AdamW,
# bf16 autocast with fp32 master weights, on the GPU.
#   python3 benchmarks/gpu-torch-cruncher.py [D L B STEPS]   (default 4096 8 4096 50)
# Prints one JSON line: flops_per_s on the planner's 6·N·B per step (biases included),
# and the median step's seconds.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
import json, sys, time
import torch

d, layers, batch, steps = (int(v) for v in (sys.argv[1:5] if len(sys.argv) > 4 else (4096, 8, 4096, 50)))
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(d, d) for _ in range(layers)],
                            torch.nn.Linear(d, 1)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(batch, d, device="cuda")
y = torch.randn(batch, device="cuda")
params = sum(p.numel() for p in model.parameters())
times = []
for step in range(steps):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(x).squeeze(-1)
    loss = torch.nn.functional.mse_loss(out.float(), y)
    opt.zero_grad(set_to_none=False)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
median = sorted(times[3:])[len(times[3:]) // 2]
print(json.dumps({"model": "cruncher", "engine": "torch " + torch.__version__, "seconds": median,
                  "flops_per_s": 6 * params * batch / median}))
