#!/usr/bin/python3
# bench-gpt.py: PyTorch's time for one GPT training step (run by bench-gpt)
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench-gpt.py D L H T B V REPS
# nanoGPT's GPT (model.py's layers, dropout 0, bias, non-flash causal attention as
# Napkin runs it), cross-entropy on random tokens, AdamW (lr 1e-4, wd 0.01), fp32,
# CPU, 2 threads. Prints "torch-step <best seconds>".
import math
import sys

import torch
import torch.nn as nn
from torch.nn import functional as F

from torch_step import print_best_step


class Block(nn.Module):
    def __init__(self, d, h, t):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.attn_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)
        self.h = h
        self.register_buffer("mask", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
        k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float('-inf'))
        y = F.softmax(att, dim=-1) @ v
        x = x + self.attn_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, v, t, l, h, d):
        super().__init__()
        self.wte = nn.Embedding(v, d)
        self.wpe = nn.Embedding(t, d)
        self.blocks = nn.ModuleList([Block(d, h, t) for _ in range(l)])
        self.ln_f = nn.LayerNorm(d)

    def forward(self, idx, targets):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(t))
        for b in self.blocks:
            x = b(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def main():
    d, layers, h, t, b, v, reps = (int(x) for x in sys.argv[1:8])
    torch.set_num_threads(2)
    torch.manual_seed(0)
    model = GPT(v, t, layers, h, d)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    data = torch.randint(0, v, (b, t + 1))
    x, y = data[:, :t], data[:, 1:]

    def step():
        loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    print_best_step(step, reps)


if __name__ == "__main__":
    main()
