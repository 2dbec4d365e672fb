#!/usr/bin/python3
# test-examples: runs each example under examples/ through the binding it is written
# for (PyGObject or gjs) and checks what it prints against an oracle that is not the
# binding: the lecture's worked number, exact values derived by hand, and
# napkin-cli's JSON for the same question.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-examples.py python|gjs EXAMPLE   (environment: NAPKIN_SOURCE_ROOT,
# NAPKIN_CLI, GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at the built library)
import json
import os
import subprocess
import sys

language, example = sys.argv[1], sys.argv[2]
root = os.environ["NAPKIN_SOURCE_ROOT"]
cli = os.environ["NAPKIN_CLI"]
path = os.path.join(root, "examples", language,
                    example + (".py" if language == "python" else ".js"))
interpreter = [sys.executable] if language == "python" else ["gjs"]


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or done.stderr.strip():
        sys.exit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout.splitlines()


def check(condition, message):
    if not condition:
        sys.exit(f"{example} ({language}): {message}")


lines = run(interpreter + [path])
print("\n".join(lines))

if example == "lecture-days":
    # The seed's worked example: 6·7e10·1.5e13 FLOPs over 1,024 dense-bf16 H100s
    # (989.5 TFLOP/s) at 50 %: 6.3e24 / (1024 · 989.5e12 · 0.5 · 86400) = 143.93 days.
    check(len(lines) == 1 and " 143.9 days, 6.300e+24 FLOPs at 989.5 TFLOP/s" in lines[0],
          f"expected the lecture's 143.9 days, got {lines}")

elif example == "formats":
    # 0.1 rounded to nearest-even in each format, worked by hand:
    # f32 1.6·2^-4 → 0x3dcccccd; f16 significand 1.1001100110₂ → 0x2e66;
    # bf16 1.1001101₂ (rounded up) → 0x3dcd; e4m3 1.101₂·2^-4 = 0.1015625 → 0x1d;
    # e5m2 1.10₂·2^-4 = 0.09375 → 0x2e.
    expected = [("float32", "0x3dcccccd", "0.100000001490116119384765625"),
                ("float16", "0x2e66", "0.0999755859375"),
                ("bfloat16", "0x3dcd", "0.10009765625"),
                ("float8_e4m3fn", "0x1d", "0.1015625"),
                ("float8_e5m2", "0x2e", "0.09375")]
    got = [tuple(line.split()) for line in lines[1:]]
    check(got == expected, f"expected {expected}, got {got}")

elif example == "best-layout-sweep":
    rows = [line.split() for line in lines[1:]]
    check([int(r[0]) for r in rows] == [256, 512, 1024, 2048, 4096], f"rows {rows}")
    for row in rows:
        report = json.loads("\n".join(run([
            cli, "plan", "--params", "70e9", "--tokens", "15e12", "--gpu", "h100-sxm",
            "--gpus", row[0], "--mfu", "auto", "--layers", "80", "--d-model", "8192",
            "--heads", "64", "--seq", "4096", "--vocab", "32000", "--global-batch", "1024",
            "--best-layout", "--json"])))
        layout = report["layout"]
        want = [row[0], "%.0f" % layout["tp"], "%.0f" % layout["pp"], "%.0f" % layout["dp"],
                str(layout["zero_stage"]), "%.1f" % report["days"], "%.3f" % report["mfu"]]
        check(row == want, f"napkin-cli says {want}, the binding {row}")

elif example == "train-cruncher":
    losses = {}
    for line in run([cli, "train", "--model", "cruncher", "--steps", "100", "--seed", "0",
                     "--json-lines"]):
        step = json.loads(line)
        if "loss" in step and "step" in step:
            losses[step["step"]] = step["loss"]
    rows = [line.split() for line in lines]
    check([int(r[1]) for r in rows] == [1] + list(range(10, 101, 10)), f"steps {rows}")
    for row in rows:
        want = "%.6f" % losses[int(row[1])]
        check(row[3] == want, f"step {row[1]}: napkin-cli's loss {want}, the binding's {row[3]}")
    check(float(rows[-1][3]) < float(rows[0][3]) / 10, "the loss did not fall tenfold")

else:
    sys.exit(f"no oracle for example {example}")
