#!/usr/bin/env python3
# One value in every number format: the code each format stores and the value it means.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
import sys

import gi

gi.require_version("Napkin", "1")
from gi.repository import Napkin

value = float(sys.argv[1]) if len(sys.argv) > 1 else 0.1
print(f"{'format':<14} {'bits':>10}  value")
for dtype in (Napkin.DType.F32, Napkin.DType.F16, Napkin.DType.BF16,
              Napkin.DType.E4M3, Napkin.DType.E5M2):
    name = Napkin.dtype_info(dtype).name
    bits = Napkin.dtype_encode(dtype, value, Napkin.Overflow.SATURATE)
    print(f"{name:<14} {bits:#10x}  {Napkin.dtype_exact_decimal(dtype, bits)}")
