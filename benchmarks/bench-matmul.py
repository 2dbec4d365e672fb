#!/usr/bin/python3
# bench-matmul.py: numpy's side of bench-matmul, timed one run at a time on request
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# bench-matmul starts this once and keeps it alive, so that numpy's runs and Napkin's
# can be interleaved one by one (load on a shared machine then hits both sides alike).
# Usage: bench-matmul.py N M. Each line read on stdin names a case; one run of it is
# timed and its seconds are printed on a line of their own. "quit" or EOF ends.
import sys
import time

import numpy as np


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    # Transposed views, like Napkin's x.t(): Fortran-ordered storage read as a.T.
    at = np.ascontiguousarray(a.T).T
    bt = np.ascontiguousarray(b.T).T
    x = rng.standard_normal((m, m), dtype=np.float32)
    y = rng.standard_normal((m, m), dtype=np.float32)
    wx = rng.standard_normal((m, 2 * m), dtype=np.float32)
    wy = rng.standard_normal((m, 2 * m), dtype=np.float32)
    cases = {
        "matmul": lambda: a @ b,
        "matmul-at": lambda: at @ b,
        "matmul-bt": lambda: a @ bt,
        "add": lambda: x + y,
        "add-tt": lambda: x.T + y.T,
        "add-step": lambda: wx[:, 0::2] + wy[:, 1::2],
        "add-mixed": lambda: x.T + y,
    }
    for fn in cases.values():
        fn()  # warm-up: page faults and BLAS thread start-up are not timed
    print("ready", flush=True)
    for line in sys.stdin:
        name = line.strip()
        if name == "quit":
            break
        fn = cases.get(name)
        if fn is None:
            print("nan", flush=True)
            continue
        t0 = time.perf_counter()
        r = fn()
        t = time.perf_counter() - t0
        del r
        print(repr(t), flush=True)


if __name__ == "__main__":
    main()
