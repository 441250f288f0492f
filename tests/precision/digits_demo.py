#!/usr/bin/python3
"""Demonstration on a model trained here: a small CNN on scikit-learn's bundled digits data
(1797 8x8 images, no download), trained with PyTorch (torch.manual_seed(0), a few seconds), exported
to ONNX, then `npugap precision --labels` on the held-out images in several NPU numerics.

Checks (exit 1 when one fails): npugap's FP32 reference accuracy equals PyTorch's own accuracy on
the same images, every accuracy lies in [0, 1], and each run's JSON has the keys the docs promise.
Prints a Markdown table (and writes it with --table FILE). Exit 77 when torch or sklearn is missing.

Usage: digits_demo.py NPUGAP WORK_DIR [--table FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import time

try:
    import numpy as np
    import torch
    import torch.nn as nn
    from sklearn.datasets import load_digits
except ImportError as e:
    print(f"skip: {e}")
    sys.exit(77)

# (label, target, precision mode): what the table compares.
RUNS = [
    ("910B2 must_keep_origin_dtype (torch_npu default: FP32, conv in HF32)", "ascend910b2", "must_keep_origin_dtype"),
    ("910B2 force_fp16 (INF/NaN)", "ascend910b2", "force_fp16"),
    ("910B2 uniform_bf16", "ascend910b2", "uniform_bf16"),
    ("310P3 force_fp16 (saturation)", "ascend310p3", "force_fp16"),
    ("910B2 uniform_hif8", "ascend910b2", "uniform_hif8"),
]


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.body(x)


def train(x, y):
    torch.manual_seed(0)
    model = SmallCnn()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for epoch in range(15):
        perm = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss_fn(model(xt[idx]), yt[idx]).backward()
            opt.step()
    return model.eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("npugap")
    ap.add_argument("work")
    ap.add_argument("--table")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    digits = load_digits()
    # Raw pixel values 0..16, as the data set stores them (no normalisation: the NPU sees what the
    # training saw).
    x = digits.images.astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(x))
    test, tr = order[:540], order[540:]
    start = time.time()
    model = train(x[tr], y[tr])
    train_s = time.time() - start
    with torch.no_grad():
        torch_acc = float((model(torch.from_numpy(x[test])).argmax(1).numpy() == y[test]).mean())
        onnx_path = os.path.join(a.work, "digits_cnn.onnx")
        torch.onnx.export(model, torch.from_numpy(x[test]), onnx_path, opset_version=13, input_names=["image"],
                          output_names=["logits"], training=torch.onnx.TrainingMode.PRESERVE,
                          do_constant_folding=False)
    inp, lab = os.path.join(a.work, "digits_test.npy"), os.path.join(a.work, "digits_labels.npy")
    np.save(inp, x[test])
    np.save(lab, y[test])
    ok = True
    rows = []
    reference_acc = None
    for label, target, mode in RUNS:
        cmd = [a.npugap, "precision", onnx_path, "--target", target, "--precision-mode", mode, "--inputs", inp,
               "--labels", lab, "--json"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            print(f"FAIL {label}: npugap exited {p.returncode}: {p.stderr.strip()}")
            ok = False
            continue
        j = json.loads(p.stdout)
        for key in ("tensors", "first_failing", "outputs", "top1_agreement", "accuracy"):
            if key not in j:
                print(f"FAIL {label}: JSON lacks '{key}'")
                ok = False
        acc = j["accuracy"]
        if abs(acc["reference"] - torch_acc) > 1e-12:
            print(f"FAIL {label}: npugap's FP32 accuracy {acc['reference']} differs from PyTorch's {torch_acc}")
            ok = False
        if not (0 <= acc["target"] <= 1):
            ok = False
        reference_acc = acc["reference"]
        out = j["outputs"][0]
        overflow = sum(t["overflow_count"] for t in j["tensors"])
        rows.append((label, acc["target"], j["top1_agreement"], out["cosine"], out["max_abs_err"], overflow,
                     "pass" if j["outputs_pass"] else "FAIL"))
    lines = [f"Digits CNN: {len(tr)} training / {len(test)} test images, trained in {train_s:.1f} s; "
             f"PyTorch FP32 test accuracy {torch_acc:.4f}.", "",
             "| numerics | accuracy | top-1 agreement with FP32 | output cosine | output max abs err | overflowing values | verdict |",
             "|---|---|---|---|---|---|---|"]
    if reference_acc is not None:
        lines.append(f"| npugap FP32 reference | {reference_acc:.4f} | 1 | 1 | 0 | 0 | pass |")
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]:.4f} | {r[2]:.4f} | {r[3]:.6f} | {r[4]:.4g} | {r[5]} | {r[6]} |")
    table = "\n".join(lines)
    print(table)
    if a.table:
        with open(a.table, "w") as f:
            f.write(table + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
