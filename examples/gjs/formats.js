// One value in every number format: the code each format stores and the value it means.
// Copyright 2026 The Napkin developers
// SPDX-License-Identifier: GPL-3.0-or-later
imports.gi.versions.Napkin = '1';
const {Napkin} = imports.gi;

const value = ARGV.length > 0 ? Number(ARGV[0]) : 0.1;
print(`${'format'.padEnd(14)} ${'bits'.padStart(10)}  value`);
for (const dtype of [Napkin.DType.F32, Napkin.DType.F16, Napkin.DType.BF16,
    Napkin.DType.E4M3, Napkin.DType.E5M2]) {
    const name = Napkin.dtype_info(dtype).name;
    const bits = Napkin.dtype_encode(dtype, value, Napkin.Overflow.SATURATE);
    print(`${name.padEnd(14)} ${('0x' + bits.toString(16)).padStart(10)}  ` +
          `${Napkin.dtype_exact_decimal(dtype, bits)}`);
}
