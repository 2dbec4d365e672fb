// Trains the Cruncher (the lecture's D×D linear stack) for 100 steps on the CPU and
// prints its loss every 10 steps, from Napkin's own trainer.
// Copyright 2026 The Napkin developers
// SPDX-License-Identifier: GPL-3.0-or-later
imports.gi.versions.Napkin = '1';
const {Napkin} = imports.gi;

const config = Napkin.TrainConfig.new();
config.steps = 100;
config.seed = 0;
const trainer = Napkin.Trainer.new(config);
trainer.connect('step', (_trainer, metrics) => {
    if (metrics.step === 1 || metrics.step % 10 === 0)
        print(`step ${String(metrics.step).padStart(3)}  loss ${metrics.loss.toFixed(6)}`);
});
trainer.run_sync(null);
