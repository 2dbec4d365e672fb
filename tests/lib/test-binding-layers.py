#!/usr/bin/python3
# test-binding-layers: one thing per engine layer from io up, called through
# PyGObject as a program outside Napkin would, each against an oracle that is not the
# engine: a .npy written by hand here, the closed form of a gradient and of the GPT's
# parameter count, the steps counted and the files listed by Python itself, and
# metrics.jsonl parsed with Python's json. It also proves the boxed types' copies and
# the arrays' transfer annotations (an array that frees its own elements, annotated
# (transfer full), made PyGObject free them twice: checkpoint_list aborted).
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-binding-layers.py   (GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at
# the built library)
import glob
import json
import math
import os
import shutil
import struct
import sys
import tempfile

import gi

gi.require_version("Napkin", "1")
from gi.repository import GLib, Napkin  # noqa: E402

failures = []


def check(name, condition):
    print(("ok   " if condition else "FAIL ") + name)
    if not condition:
        failures.append(name)


def write_npy(path, descr, shape, fmt, values):
    # numpy's format 1.0 by hand: magic, version, header length, the dict padded with
    # spaces to a multiple of 64 and ended by a newline, then the elements
    dims = "%d," % shape[0] if len(shape) == 1 else ", ".join(map(str, shape))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


tmp = tempfile.mkdtemp(prefix="napkin-binding-")
try:
    # io: a hand-written .npy as a tensor; a dataset's batch through a boxed copy
    xs = [10.0 * r + c for r in range(6) for c in range(3)]
    x_path, y_path = os.path.join(tmp, "X.npy"), os.path.join(tmp, "Y.npy")
    write_npy(x_path, "<f4", (6, 3), "f", xs)
    write_npy(y_path, "<f4", (6,), "f", [float(r) for r in range(6)])
    t = Napkin.npy_load_tensor(x_path, Napkin.Bucket.BUCKET_DATA)
    check("io: npy_load_tensor shape", list(t.shape[:t.ndim]) == [6, 3])
    check("io: npy_load_tensor values", list(t.to_doubles()) == xs)
    dataset = Napkin.ArrayDataset.new(x_path, y_path, 2).copy()
    ok, bx, by = dataset.batch(1)
    check("io: ArrayDataset copy, batch 1 is rows 2 and 3",
          ok and list(bx.to_doubles()) == xs[6:12] and list(by.to_doubles()) == [2.0, 3.0])
    stream = Napkin.TokenStream.new_from_text(GLib.Bytes.new(b"napkin")).copy()
    check("io: TokenStream copy", stream.get_length() == 6 and stream.get_token(2) == ord("p"))
    writer = Napkin.SafetensorsWriter.new()
    writer.add_tensor("w", t)
    writer.set_metadata("k", "v")
    st = Napkin.Safetensors.new_from_bytes(writer.copy().to_bytes(), "memory")
    check("io: safetensors written and read back",
          st.get_metadata("k") == "v"
          and list(st.get_tensor("w", Napkin.Bucket.BUCKET_OTHER).to_doubles()) == xs)

    # autograd: d/dx Σ x² = 2x
    x = Napkin.Tensor.new_from_doubles(Napkin.DType.F64, [3], [1.0, -2.0, 0.5])
    x.set_requires_grad(True)
    loss = Napkin.ag_sum(Napkin.ag_mul(x, x))
    check("autograd: Σ x² forward", list(loss.to_doubles()) == [5.25])
    check("autograd: gradient 2x",
          Napkin.autograd_backward(loss) and list(x.get_grad().to_doubles()) == [2.0, -4.0, 1.0])

    # nn: nanoGPT's parameter count, 12·L·d² + 13·L·d + (V + T)·d + 2·d
    V, d, L, T = 65, 32, 2, 16
    check("nn: gpt_count_parameters",
          Napkin.gpt_count_parameters(V, d, L, T) == 12 * L * d * d + 13 * L * d + (V + T) * d + 2 * d)

    # train: a run with a checkpoint folder; runs: recorded into a run folder, read back
    run_dir, ck_dir = os.path.join(tmp, "run"), os.path.join(tmp, "checkpoints")
    config = Napkin.TrainConfig.new()
    config.steps = 20
    config.checkpoint_dir = ck_dir
    config.checkpoint_every = 10
    trainer = Napkin.Trainer.new(config)
    seen = []
    trainer.connect("step", lambda _trainer, metrics: seen.append(metrics.step))
    recorder = Napkin.RunRecorder.new(trainer, run_dir)
    check("train: run_sync", trainer.run_sync(None))
    check("train: ::step for every step", seen == list(range(1, 21)))
    history = trainer.get_history()
    check("train: get_history", [m.step for m in history] == seen)
    listed = [os.path.basename(p) for p in Napkin.checkpoint_list(ck_dir)]
    check("train: checkpoint_list, newest first",
          listed == ["step-00000020.safetensors", "step-00000010.safetensors"]
          and sorted(listed) == sorted(f for f in os.listdir(ck_dir) if f.endswith(".safetensors")))
    checkpoint = Napkin.checkpoint_load(os.path.join(ck_dir, listed[0]))
    check("train: the checkpoint's step and loss",
          checkpoint.get_step() == 20 and checkpoint.get_loss() == history[-1].loss)
    check("runs: recorder closed", recorder.close())
    info = Napkin.RunInfo.read(run_dir)
    check("runs: RunInfo", info.status == Napkin.RunStatus.FINISHED and info.config.steps == 20)
    runs = Napkin.run_dir_list(tmp)
    check("runs: run_dir_list", [r.path for r in runs] == [run_dir])
    kept = Napkin.TrainHistory.new()
    ok, metrics_info = Napkin.run_dir_read_metrics(run_dir, kept)
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    losses = [line["loss"] for line in lines if not line.get("done")]
    check("runs: read_metrics", ok and metrics_info.done and len(losses) == 20
          and [kept.copy().get_value(Napkin.TrainColumn.COLUMN_LOSS, i) for i in range(20)] == losses)
    events = Napkin.ScalarLog.read(run_dir).copy()
    points = events.get("loss")
    check("runs: the run's TensorBoard losses",
          glob.glob(os.path.join(run_dir, "events.out.tfevents.*"))
          and [p.step for p in points] == seen
          and all(math.isclose(p.value, v, rel_tol=1e-6) for p, v in zip(points, losses)))

    # runs: another engine's log (nanoGPT's train.py prints "iter N: loss L, time Tms,
    # mfu M%", model.py:296) read from memory, through a boxed copy: two steps and one
    # line that is no step. NkImport.steps, a GArray of structs in a field, is not
    # readable through PyGObject ("Can't copy array element into GIArgument"): the steps
    # come out one by one through get_n_steps() / get_step(), checked against the log.
    log = (b"iter 10: loss 9.1234, time 412.30ms, mfu 38.42%\nnoise\n"
           b"iter 20: loss 8.5, time 400.00ms, mfu 40.00%\n")
    imported = Napkin.log_import_text(log, Napkin.LogFormat.NANOGPT).copy()
    check("runs: log_import_text of a nanoGPT log",
          imported.format == Napkin.LogFormat.NANOGPT and imported.skipped_lines == 1
          and imported.rejected_lines == 0 and imported.first_rejected is None)
    steps = [imported.get_step(i) for i in range(imported.get_n_steps())]
    want = [(10, 9.1234, 0.4123, 0.3842), (20, 8.5, 0.4, 0.4)]
    check("runs: an import's steps one by one",
          len(steps) == len(want) and all(ok for ok, _ in steps)
          and all(s.step == w[0] and math.isclose(s.loss, w[1]) and math.isclose(s.seconds, w[2])
                  and math.isclose(s.mfu, w[3]) for (_, s), w in zip(steps, want))
          and not imported.get_step(2)[0])

    # plan: a small MoE laid out by hand (test-plan-cluster.c's small_moe_plan): 4
    # layers, h 1024, SwiGLU experts of 4096, 8 experts top-2 on 8 GPUs with EP 4:
    # the layout's EP, and 4 layers × 8/4 experts × 3·1024·4096 = 100,663,296
    # routed-expert parameters per GPU at 2 B each
    plan = Napkin.Plan.new()
    plan.set_property("gpu", "h100-sxm")
    for name, value in [("gpus", 8.0), ("params", 1.0), ("tokens", 1e9), ("layers", 4.0),
                        ("d-model", 1024.0), ("heads", 8.0), ("d-ff", 4096.0), ("vocab", 1000.0),
                        ("seq", 1024.0)]:
        plan.set_property(name, value)
    plan.set_property("ffn", Napkin.Ffn.SWIGLU)
    plan.set_property("tied-embeddings", False)
    plan.set_property("precision", Napkin.Precision.BF16_MIXED)
    for name, value in [("experts", 8), ("experts-per-token", 2), ("ep", 4), ("zero-stage", 1),
                        ("global-batch", 8), ("micro-batch", 1)]:
        plan.set_property(name, value)
    check("plan: layout-ep and layout-etp",
          plan.get_property("layout-ep") == 4 and plan.get_property("layout-etp") == 1)
    check("plan: memory-max-expert-params",
          plan.get_property("memory-max-expert-params") == 2 * 4 * 2 * 3 * 1024 * 4096)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit("failed: " + ", ".join(failures) if failures else 0)
