#!/usr/bin/env python3
# Trains the Cruncher (the lecture's D×D linear stack) for 100 steps on the CPU and
# prints its loss every 10 steps, from Napkin's own trainer.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
import gi

gi.require_version("Napkin", "1")
from gi.repository import Napkin

config = Napkin.TrainConfig.new()
config.steps = 100
config.seed = 0
trainer = Napkin.Trainer.new(config)


def on_step(trainer, metrics):
    if metrics.step == 1 or metrics.step % 10 == 0:
        print(f"step {metrics.step:>3}  loss {metrics.loss:.6f}")


trainer.connect("step", on_step)
trainer.run_sync(None)
