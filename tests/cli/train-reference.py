#!/usr/bin/python3
# train-reference.py: PyTorch's result for the runs test-cli-train makes with napkin-cli
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: train-reference.py NAPKIN_CLI WORKDIR
# For every optimizer: napkin-cli trains the Cruncher from an --init state_dict on
# .npy data and --saves it; PyTorch loads the same state_dict (strict names and
# shapes), runs the same steps with torch.optim's rule (the lecture's AdaGrad by
# hand) and the largest relative difference of the final parameters is printed as
# "<optimizer> <difference>". Exit 77 when torch is missing (the test skips).
import json
import os
import struct
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError:
    sys.exit(77)

D, L, B, N, S, LR = 8, 2, 4, 16, 6, 0.01


def read_safetensors(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, v in header.items():
        if name == "__metadata__":
            continue
        s, e = v["data_offsets"]
        arr = np.frombuffer(data[8 + n + s:8 + n + e], dtype=np.float32).reshape(v["shape"])
        out[name] = torch.from_numpy(arr.copy())
    return out


class Cruncher(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(D, D) for _ in range(L)])
        self.final = torch.nn.Linear(D, 1)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.final(x).squeeze(-1)


def main():
    cli, work = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(0)
    x_all = rng.standard_normal((N, D)).astype(np.float32)
    y_all = (x_all @ np.arange(D, dtype=np.float32)).astype(np.float32)
    xp, yp = os.path.join(work, "X.npy"), os.path.join(work, "Y.npy")
    init, out = os.path.join(work, "init.safetensors"), os.path.join(work, "out.safetensors")
    np.save(xp, x_all)
    np.save(yp, y_all)
    common = ["--dim", str(D), "--layers", str(L), "--batch", str(B), "--lr", str(LR)]
    subprocess.run([cli, "train", *common, "--steps", "1", "--seed", "5", "--save", init],
                   check=True, capture_output=True)

    for opt in ["sgd", "momentum", "adagrad", "rmsprop", "adam", "adamw"]:
        subprocess.run([cli, "train", *common, "--steps", str(S), "--optimizer", opt,
                        "--init", init, "--inputs", xp, "--targets", yp, "--save", out],
                       check=True, capture_output=True)
        model = Cruncher()
        model.load_state_dict(read_safetensors(init))
        params = list(model.parameters())
        make = {
            "sgd": lambda: torch.optim.SGD(params, lr=LR),
            "momentum": lambda: torch.optim.SGD(params, lr=LR, momentum=0.9),
            "rmsprop": lambda: torch.optim.RMSprop(params, lr=LR),
            "adam": lambda: torch.optim.Adam(params, lr=LR),
            "adamw": lambda: torch.optim.AdamW(params, lr=LR),
        }
        optim = make[opt]() if opt in make else None
        g2 = [torch.zeros_like(p) for p in params]
        for t in range(S):
            s = (t * B) % N
            loss = torch.nn.functional.mse_loss(model(torch.from_numpy(x_all[s:s + B])),
                                                torch.from_numpy(y_all[s:s + B]))
            loss.backward()
            if optim is not None:
                optim.step()
                optim.zero_grad()
            else:
                with torch.no_grad():
                    for p, g in zip(params, g2):
                        g += p.grad ** 2
                        p -= LR * p.grad / torch.sqrt(g + 1e-5)
                        p.grad = None
        got, ref = read_safetensors(out), model.state_dict()
        diff = max((got[k] - ref[k]).abs().max().item() / max(1.0, ref[k].abs().max().item())
                   for k in ref)
        print(opt, diff)


if __name__ == "__main__":
    main()
