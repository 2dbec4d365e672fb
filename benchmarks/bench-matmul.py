#!/usr/bin/python3
# bench-matmul.py: numpy's `a @ b` reference for bench-matmul (run by it, same machine, same run)
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Prints one line per case: "<case> <best seconds>".
import sys
import time

import numpy as np


def median_time(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    # The best of the repetitions: on a shared machine the minimum is the run that
    # other processes disturbed least (bench-matmul.c does the same).
    return min(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    at = np.ascontiguousarray(a.T).T  # a transposed view, as nk's x.t()
    print("matmul-contiguous", median_time(lambda: a @ b, reps))
    print("matmul-transposed", median_time(lambda: at @ b, reps))
    m = 4096
    x = rng.standard_normal((m, m), dtype=np.float32)
    y = rng.standard_normal((m, m), dtype=np.float32)
    print("add-contiguous", median_time(lambda: x + y, reps))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
