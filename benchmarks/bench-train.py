#!/usr/bin/python3
# bench-train.py: PyTorch's time for one Cruncher training step (run by bench-train)
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench-train.py D L B REPS LR
# The lecture's Cruncher (L × Linear(D, D), then Linear(D, 1)), MSE against the
# synthetic task, SGD, fp32, CPU, 2 threads. Prints "torch-step <best seconds>".
import math
import sys

import torch

from torch_step import print_best_step


def main():
    d, layers, b, reps = (int(x) for x in sys.argv[1:5])
    lr = float(sys.argv[5])
    torch.set_num_threads(2)
    torch.manual_seed(0)

    class Cruncher(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(d, d) for _ in range(layers)])
            self.final = torch.nn.Linear(d, 1)
            for m in list(self.layers) + [self.final]:
                s = 1 / math.sqrt(d)
                torch.nn.init.trunc_normal_(m.weight, std=s, a=-3 * s, b=3 * s)

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return self.final(x).squeeze(-1)

    model = Cruncher()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    w = torch.arange(d, dtype=torch.float32)
    x = torch.randn(b, d)
    y = x @ w

    def step():
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    print_best_step(step, reps)


if __name__ == "__main__":
    main()
