#!/usr/bin/python3
# bench-dtype.py: napkin's bulk float32 conversion against numpy and PyTorch, same run
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run by hand with Debian's interpreter (it has python3-numpy and python3-torch):
#   /usr/bin/python3 benchmarks/bench-dtype.py build/benchmarks/bench-dtype
# Prints million elements per second (best of --reps runs, one thread for
# napkin and numpy) and the ratios the issue asks for.

import argparse
import json
import subprocess
import sys
import time

import numpy as np

try:
    import torch
except ImportError:  # the ratios against torch are then left out
    torch = None


def best_of(reps, fn):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench", help="path to the built bench-dtype")
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    n = args.n

    out = subprocess.run([args.bench, "--json", "--n", str(n), "--reps", str(args.reps)],
                         check=True, capture_output=True, text=True).stdout
    napkin = {row["case"]: row for row in map(json.loads, out.splitlines())}

    # The same distribution bench-dtype.c uses: normal values times 100.
    x = (np.random.default_rng(1).standard_normal(n) * 100).astype(np.float32)
    dst16 = np.empty(n, np.float16)
    ref = {}
    ref["numpy memcpy f32"] = best_of(args.reps, lambda: np.copyto(np.empty_like(x), x))
    ref["numpy astype(float16)"] = best_of(args.reps, lambda: x.astype(np.float16))
    ref["numpy copyto float16"] = best_of(args.reps, lambda: np.copyto(dst16, x, casting="unsafe"))
    if torch is not None:
        t = torch.from_numpy(x)
        threads = torch.get_num_threads()
        ref[f"torch .to(float16), {threads} threads"] = best_of(args.reps, lambda: t.to(torch.float16))
        ref[f"torch .to(bfloat16), {threads} threads"] = best_of(args.reps, lambda: t.to(torch.bfloat16))
        if threads > 1:
            torch.set_num_threads(1)
            ref["torch .to(float16), 1 thread"] = best_of(args.reps, lambda: t.to(torch.float16))
            ref["torch .to(bfloat16), 1 thread"] = best_of(args.reps, lambda: t.to(torch.bfloat16))
            torch.set_num_threads(threads)

    print(f"n = {n} float32 elements, best of {args.reps}; Melem/s (higher is better)\n")
    print(f"{'napkin (one thread)':34} {'path':9} {'Melem/s':>9}")
    for case, row in napkin.items():
        print(f"  {case:32} {row['path']:9} {row['melem_per_s']:9.1f}")
    print(f"\n{'reference':44} {'Melem/s':>9}")
    for case, seconds in ref.items():
        print(f"  {case:42} {n / seconds / 1e6:9.1f}")

    def rate(case):
        return napkin[case]["melem_per_s"]

    def ref_rate(case):
        return n / ref[case] / 1e6

    print("\nratios")
    f16 = rate("f32->f16")
    print(f"  f32->f16 / numpy astype(float16)      {f16 / ref_rate('numpy astype(float16)'):6.2f}x  (target >= 2)")
    for case in ref:
        if case.startswith("torch .to(float16)"):
            print(f"  f32->f16 / {case:27} {f16 / ref_rate(case):6.2f}x  (target > 1)")
    for case in ref:
        if case.startswith("torch .to(bfloat16)"):
            print(f"  f32->bf16 / {case:26} {rate('f32->bf16') / ref_rate(case):6.2f}x")
    for case in ("f32->bf16", "f32->e4m3", "f32->e5m2"):
        print(f"  {case:10} {rate(case):8.1f} Melem/s  {rate(case) / 500:5.2f}x the 500 M/s target,"
              f" {rate(case) / rate('memcpy f32'):5.2f}x a memcpy of the same array")
    return 0


if __name__ == "__main__":
    sys.exit(main())
