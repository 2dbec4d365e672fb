#!/usr/bin/python3
# gpt-parity.py: Napkin's GPT against nanoGPT's in PyTorch, same init and batches
#
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds nanoGPT's GPT (model.py, dropout 0, bias=True, non-flash attention) in
# PyTorch, saves its state_dict as safetensors and N fixed batches as .npy, runs
#   napkin-cli train --model gpt ... --init INIT --batches BATCHES --save OUT --json-lines
# for each optimizer, the same steps with torch.optim (Napkin's settings, CLI.md), and
# prints the largest loss and parameter differences. A development check, not a test
# (the project builds and tests without Python).
#
#   python3 benchmarks/gpt-parity.py --cli build/src/cli/napkin-cli [--steps 20]

import argparse, json, math, os, struct, subprocess, sys, tempfile

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    def __init__(self, ndim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim))

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, d, h, t):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.n_head, self.n_embd = h, d
        self.register_buffer("bias", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, d, h, t):
        super().__init__()
        self.ln_1 = LayerNorm(d)
        self.attn = CausalSelfAttention(d, h, t)
        self.ln_2 = LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, v, t, l, h, d):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(v, d), wpe=nn.Embedding(t, d),
            h=nn.ModuleList([Block(d, h, t) for _ in range(l)]), ln_f=LayerNorm(d)))
        self.lm_head = nn.Linear(d, v, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * l))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def save_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        a = t.detach().cpu().numpy().astype('<f4')
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        blobs.append(a.tobytes())
        off += a.nbytes
    h = json.dumps(header).encode()
    h += b' ' * ((8 - len(h) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))


def load_safetensors(path):
    with open(path, 'rb') as f:
        raw = f.read()
    n = struct.unpack('<Q', raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        s, e = info['data_offsets']
        out[name] = np.frombuffer(raw[8 + n + s:8 + n + e], dtype='<f4').reshape(info['shape'])
    return out


class LectureAdagrad(torch.optim.Optimizer):
    """Napkin's (the lecture's) AdaGrad: g2 += g²; p -= lr·g / sqrt(g2 + 1e-5)."""

    def __init__(self, params, lr):
        super().__init__(params, dict(lr=lr))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group['params']:
                st = self.state[p]
                if 'sum' not in st:
                    st['sum'] = torch.zeros_like(p)
                st['sum'].add_(p.grad * p.grad)
                p.sub_(group['lr'] * p.grad / torch.sqrt(st['sum'] + 1e-5))


def make_optimizer(name, params, lr):
    if name == 'sgd':
        return torch.optim.SGD(params, lr=lr)
    if name == 'momentum':
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    if name == 'adagrad':
        return LectureAdagrad(params, lr)
    if name == 'rmsprop':
        return torch.optim.RMSprop(params, lr=lr, alpha=0.99, eps=1e-8)
    if name == 'adam':
        return torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-8)
    return torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--steps', type=int, default=20)
    ap.add_argument('--n-layer', type=int, default=2)
    ap.add_argument('--n-head', type=int, default=2)
    ap.add_argument('--n-embd', type=int, default=32)
    ap.add_argument('--block-size', type=int, default=16)
    ap.add_argument('--batch', type=int, default=4)
    ap.add_argument('--vocab', type=int, default=256)
    ap.add_argument('--n-batches', type=int, default=7)
    ap.add_argument('--optimizers', default='sgd,momentum,adagrad,rmsprop,adam,adamw')
    a = ap.parse_args()
    torch.manual_seed(0)
    L, H, D, T, B, V = a.n_layer, a.n_head, a.n_embd, a.block_size, a.batch, a.vocab
    tmp = tempfile.mkdtemp(prefix='gpt-parity-')
    init = os.path.join(tmp, 'init.safetensors')
    batches = os.path.join(tmp, 'batches.npy')
    model0 = GPT(V, T, L, H, D)
    sd = {k: v for k, v in model0.state_dict().items() if not k.endswith('.attn.bias') and k != 'lm_head.weight'}
    save_safetensors(init, sd)
    rng = np.random.default_rng(0)
    data = rng.integers(0, V, size=(a.n_batches, B, T + 1)).astype(np.int64)
    np.save(batches, data)
    lrs = dict(sgd=0.1, momentum=0.05, adagrad=0.01, rmsprop=0.001, adam=0.001, adamw=0.001)
    print(f"GPT V={V} T={T} L={L} H={H} d={D} B={B}, {a.steps} steps over {a.n_batches} batches (torch {torch.__version__})")
    print(f"{'optimizer':10s} {'loss 1':>10s} {'loss N':>10s} {'max |dloss|':>12s} {'max rel dloss':>14s} {'max |dparam|':>13s}")
    worst = 0.0
    for opt in a.optimizers.split(','):
        out = os.path.join(tmp, f'{opt}.safetensors')
        cmd = [a.cli, 'train', '--model', 'gpt', '--n-layer', str(L), '--n-head', str(H), '--n-embd', str(D),
               '--block-size', str(T), '--vocab', str(V), '--batch', str(B), '--steps', str(a.steps),
               '--optimizer', opt, '--lr', str(lrs[opt]), '--init', init, '--batches', batches,
               '--save', out, '--json-lines']
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(opt, 'napkin-cli failed:', r.stdout[-500:], r.stderr[-500:])
            sys.exit(1)
        nk_losses = [json.loads(l)['loss'] for l in r.stdout.splitlines() if '"step"' in l]
        m = GPT(V, T, L, H, D)
        m.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in load_safetensors(init).items()}, strict=False)
        o = make_optimizer(opt, m.parameters(), lrs[opt])
        pt_losses = []
        for s in range(a.steps):
            batch = torch.from_numpy(data[s % a.n_batches])
            loss = m(batch[:, :T], batch[:, 1:])
            o.zero_grad()
            loss.backward()
            o.step()
            pt_losses.append(loss.item())
        dl = max(abs(x - y) for x, y in zip(nk_losses, pt_losses))
        rl = max(abs(x - y) / abs(y) for x, y in zip(nk_losses, pt_losses))
        got = load_safetensors(out)
        dp = max(float(np.max(np.abs(got[k] - v.detach().numpy())))
                 for k, v in m.state_dict().items() if k in got)
        worst = max(worst, rl)
        print(f"{opt:10s} {pt_losses[0]:10.6f} {pt_losses[-1]:10.6f} {dl:12.3e} {rl:14.3e} {dp:13.3e}")
    print(f"worst relative loss difference {worst:.3e}")


if __name__ == '__main__':
    main()
