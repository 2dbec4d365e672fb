# torch_step.py: the timing loop the PyTorch halves of the step benchmarks share
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
import math
import sys
import time


def print_best_step(step, reps):
    """Runs step() twice to warm up, then reps times; prints "torch-step <best s>"."""
    for _ in range(2):
        step()
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t0)
    print("torch-step", best)
    sys.stdout.flush()
