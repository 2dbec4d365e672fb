#!/usr/bin/env python3
# The lecture's worked example: 70B parameters on 15T tokens, 1,024 H100s at 50 % MFU.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
import gi

gi.require_version("Napkin", "1")
from gi.repository import Napkin

plan = Napkin.Plan(params=7e10, tokens=1.5e13, gpu="h100-sxm", gpus=1024, mfu=0.5)
print(f"{plan.props.gpu_name}: {plan.props.days:.1f} days, "
      f"{plan.props.total_flops:.3e} FLOPs at {plan.props.peak_flops_per_gpu / 1e12:.1f} TFLOP/s a GPU")
