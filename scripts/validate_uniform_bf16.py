#!/usr/bin/python3
"""Compares npugap's uniform_bf16 emulation with PyTorch's CPU bfloat16 (issue 3, item 6).

Exports torchvision resnet18 and mobilenet_v2 (random weights, non-trivial BatchNorm statistics)
with BatchNorm kept as its own node, runs PyTorch in fp32 and after model.to(torch.bfloat16), runs
`npugap run --precision-mode uniform_bf16` on the same inputs, and prints
|npugap - torch_bf16| / |torch_bf16 - torch_fp32| (issue target <= 0.25) and the cosine of npugap
to torch_bf16 (target >= 0.9999). --gap-sum replaces GlobalAveragePool by ReduceSum + Div, which
is what PyTorch's bf16 adaptive_avg_pool2d computes on the CPU (its sum is rounded to bf16 before
the division; docs/precision.md).

    scripts/validate_uniform_bf16.py build/npugap [--gap-sum] [--workdir DIR]
"""
import argparse, os, subprocess, sys, tempfile

import numpy as np
import onnx
import torch
import torchvision
from onnx import helper, numpy_helper


def export(name, out):
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(weights=None).eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.1, 0.1)
    x = torch.randn(2, 3, 224, 224)
    path = os.path.join(out, f"{name}.onnx")
    torch.onnx.export(m, x, path, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        y32 = m(x).numpy()
        ybf = m.to(torch.bfloat16)(x.to(torch.bfloat16)).float().numpy()
    np.save(os.path.join(out, f"{name}_x.npy"), x.numpy())
    return path, y32, ybf


def gap_as_sum(path):
    m = onnx.load(path)
    g = m.graph
    nodes = []
    for n in g.node:
        if n.op_type != "GlobalAveragePool":
            nodes.append(n)
            continue
        s = n.output[0] + "_sum"
        nodes.append(helper.make_node("ReduceSum", [n.input[0], "gap_axes"], [s], name=n.name + "_sum", keepdims=1))
        nodes.append(helper.make_node("Div", [s, "gap_hw"], list(n.output), name=n.name + "_div"))
    del g.node[:]
    g.node.extend(nodes)
    g.initializer.append(numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "gap_axes"))
    g.initializer.append(numpy_helper.from_array(np.array(49.0, dtype=np.float32), "gap_hw"))  # 7 x 7
    out = path.replace(".onnx", "_gapsum.onnx")
    onnx.save(m, out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("npugap")
    ap.add_argument("--gap-sum", action="store_true")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="npugap_bf16_")
    for name in ["resnet18", "mobilenet_v2"]:
        path, y32, ybf = export(name, work)
        if a.gap_sum:
            path = gap_as_sum(path)
        outdir = os.path.join(work, f"out_{name}")
        subprocess.run([a.npugap, "run", path, "--inputs", os.path.join(work, f"{name}_x.npy"), "--target",
                        "ascend910b2", "--precision-mode", "uniform_bf16", "--save-outputs", outdir],
                       check=True, stdout=subprocess.DEVNULL)
        ours = np.load(os.path.join(outdir, "y.npy")).astype(np.float64)
        bf, f32 = ybf.astype(np.float64), y32.astype(np.float64)
        ratio = np.linalg.norm(ours - bf) / np.linalg.norm(bf - f32)
        cos = float((ours * bf).sum() / np.linalg.norm(ours) / np.linalg.norm(bf))
        print(f"{name}: |npugap - torch_bf16| / |torch_bf16 - torch_fp32| = {ratio:.3f} (target <= 0.25), "
              f"cosine(npugap, torch_bf16) = {cos:.6f} (target >= 0.9999)")


if __name__ == "__main__":
    sys.exit(main())
