#!/usr/bin/python3
"""Exports the test models (torchvision vision models and two small transformers) to ONNX.

Usage:
  /usr/bin/python3 scripts/gen_models.py OUT_DIR [--only NAME,...] [--opsets 13,17]
                                         [--extra-batches 8] [--force]

For each model NAME and opset N it writes
  OUT_DIR/NAME_opN.onnx        the model (random weights, torch.manual_seed(0), eval mode,
                               dim 0 of every input and output is the dynamic axis "batch";
                               the text models also have a dynamic "seq" axis)
  OUT_DIR/NAME_opN.input.npy   a seeded random input (float32 1x3x224x224 for vision models,
                               int64 token ids [1, 16] for the text models)
  OUT_DIR/NAME_opN.torch.npy   PyTorch's FP32 output for that input
and OUT_DIR/manifest.json, which lists every model with its files, input/output names and
the set of ONNX op types it uses, plus the (model, opset) pairs that could not be exported
and why. A model whose three files already exist is not exported again (--force does).
With --extra-batches B,... it also writes OUT_DIR/NAME_opN.input_bB.npy (same seed scheme,
batch B) for benchmarks; no torch output is written for those.

Needs Debian's Python (/usr/bin/python3: torch 1.13, torchvision 0.14, onnx 1.12).
"""

import argparse
import json
import math
import os
import sys
import time
import traceback
import warnings
import zlib

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision

VISION_MODELS = [
    "resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
    "densenet121", "squeezenet1_0", "shufflenet_v2_x1_0", "vgg11", "convnext_tiny",
    "vit_b_16", "swin_t",
]
TEXT_MODELS = ["bert_encoder", "gpt2_decoder"]
ALL_MODELS = VISION_MODELS + TEXT_MODELS

VOCAB = 1000
SEQ = 16
D_MODEL = 256
HEADS = 4
PAD_ID = 0


# ---- models ----------------------------------------------------------------------------------

class BertEncoder(nn.Module):
    """Token + position embedding, 2 pre-norm TransformerEncoderLayers (GELU), final LayerNorm.
    Token id PAD_ID marks padding: the key padding mask is computed from the ids inside the
    model, so the model has one input."""

    def __init__(self, vocab=VOCAB, d_model=D_MODEL, heads=HEADS, layers=2, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model,
                                           dropout=0.1, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model),
                                             enable_nested_tensor=False)

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        positions = torch.arange(seq, device=input_ids.device).unsqueeze(0)
        x = self.tok(input_ids) + self.pos(positions)
        padding_mask = input_ids == PAD_ID  # True = ignore this key
        return self.encoder(x, src_key_padding_mask=padding_mask)


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention from explicit matmuls with a causal mask from torch.triu."""

    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, t, c = x.shape
        hd = c // self.heads
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.reshape(b, t, self.heads, hd).transpose(1, 2)  # [b, h, t, hd]
        k = k.reshape(b, t, self.heads, hd).transpose(1, 2)
        v = v.reshape(b, t, self.heads, hd).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        ones = torch.ones(t, t, dtype=torch.bool, device=x.device)
        future = torch.triu(ones, diagonal=1)  # True above the diagonal = may not attend
        att = att.masked_fill(future, float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class Gpt2Block(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Gpt2Decoder(nn.Module):
    """GPT-2-style decoder: token + position embedding, 2 pre-norm blocks, final LayerNorm,
    LM head (vocabulary logits)."""

    def __init__(self, vocab=VOCAB, d_model=D_MODEL, heads=HEADS, layers=2, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList([Gpt2Block(d_model, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        positions = torch.arange(seq, device=input_ids.device).unsqueeze(0)
        x = self.tok(input_ids) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def make_init_informative(model, gen):
    """Makes the default initialisation informative for a comparison: BatchNorm layers get
    non-trivial running statistics and affine parameters (default init makes BN an identity in
    eval mode), all-zero Linear layers and ConvNeXt's 1e-6 layer scales get random values."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                    m.bias.copy_(torch.randn(n, generator=gen) * 0.1)
        elif isinstance(m, nn.Linear) and not m.weight.detach().any():
            # vit_b_16's classifier head starts at zero (its output would be all zeros).
            with torch.no_grad():
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * 0.02)
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.02)
    for name, p in model.named_parameters():
        if name.endswith("layer_scale"):
            # ConvNeXt scales each block's branch by 1e-6 at init, which would hide every
            # block's ops from the comparison; use a scale of 0.05..0.25 instead.
            with torch.no_grad():
                p.copy_(torch.rand(p.shape, generator=gen) * 0.2 + 0.05)


def build_model(name):
    """The model in eval mode and a function making its input for a batch size."""
    torch.manual_seed(0)
    if name in VISION_MODELS:
        ctor = getattr(torchvision.models, name)
        model = ctor(weights=None)
        gen = torch.Generator().manual_seed(1)
        make_init_informative(model, gen)
        spec = {"kind": "vision", "input_name": "input", "output_name": "logits",
                "shape": [3, 224, 224], "dtype": "float32"}
    elif name == "bert_encoder":
        model = BertEncoder()
        spec = {"kind": "text", "input_name": "input_ids", "output_name": "last_hidden_state",
                "shape": [SEQ], "dtype": "int64"}
    elif name == "gpt2_decoder":
        model = Gpt2Decoder()
        spec = {"kind": "text", "input_name": "input_ids", "output_name": "logits",
                "shape": [SEQ], "dtype": "int64"}
    else:
        raise KeyError(name)
    model.eval()
    return model, spec


def make_input(name, spec, batch):
    """A seeded random input: depends only on the model name and the batch size."""
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1000 * batch)
    if spec["kind"] == "vision":
        return rng.standard_normal((batch, *spec["shape"])).astype(np.float32)
    seq = spec["shape"][0]
    ids = rng.integers(1, VOCAB, size=(batch, seq), dtype=np.int64)
    if name == "bert_encoder":
        # Pad the tail of each sequence (a different length per row) to exercise the mask.
        for b in range(batch):
            pad = 3 + (b % 4)
            ids[b, seq - pad:] = PAD_ID
    return ids


# ---- export ----------------------------------------------------------------------------------

def op_types(model_proto):
    return sorted({n.op_type for n in model_proto.graph.node})


def files_for(out_dir, name, opset):
    base = f"{name}_op{opset}"
    return {"model": base + ".onnx", "input": base + ".input.npy", "output": base + ".torch.npy"}


def export_one(model, spec, path, opset, example):
    dyn = {0: "batch"} if spec["kind"] == "vision" else {0: "batch", 1: "seq"}
    out_dyn = {0: "batch"} if spec["kind"] == "vision" else {0: "batch", 1: "seq"}
    tmp = path + ".tmp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), tmp, opset_version=opset,
                          input_names=[spec["input_name"]], output_names=[spec["output_name"]],
                          dynamic_axes={spec["input_name"]: dyn, spec["output_name"]: out_dyn},
                          do_constant_folding=True)
    m = onnx.load(tmp)
    onnx.checker.check_model(m)
    os.replace(tmp, path)
    return m


def save_npy(path, array):
    tmp = path + ".tmp.npy"
    np.save(tmp, array)
    os.replace(tmp, path)


def process(name, opset, out_dir, force, extra_batches, log):
    """Returns (manifest entry, None) or (None, reason for skipping)."""
    f = files_for(out_dir, name, opset)
    paths = {k: os.path.join(out_dir, v) for k, v in f.items()}
    model, spec = build_model(name)
    for b in extra_batches:
        p = os.path.join(out_dir, f"{name}_op{opset}.input_b{b}.npy")
        if force or not os.path.exists(p):
            save_npy(p, make_input(name, spec, b))
    entry = {"name": name, "opset": opset, "kind": spec["kind"], "model": f["model"],
             "inputs": {spec["input_name"]: f["input"]},
             "input_shape": [1, *spec["shape"]], "input_dtype": spec["dtype"],
             "outputs": {spec["output_name"]: f["output"]}}
    if not force and all(os.path.exists(p) for p in paths.values()):
        m = onnx.load(paths["model"], load_external_data=False)
        entry["op_types"] = op_types(m)
        entry["export_seconds"] = None
        log(f"{name} opset {opset}: exists, skipped export")
        return entry, None

    x = make_input(name, spec, 1)
    example = torch.from_numpy(x)
    t0 = time.perf_counter()
    try:
        m = export_one(model, spec, paths["model"], opset, example)
    except Exception as e:  # noqa: BLE001 - report any exporter failure and go on
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        reason = f"{type(e).__name__}: {msg}"
        log(f"{name} opset {opset}: EXPORT FAILED after {time.perf_counter() - t0:.1f}s: {reason}")
        if os.environ.get("GEN_MODELS_DEBUG"):
            traceback.print_exc()
        tmp = paths["model"] + ".tmp"
        if os.path.exists(tmp):
            os.remove(tmp)
        return None, reason
    export_s = time.perf_counter() - t0
    with torch.no_grad():
        y = model(example)
    y = y.detach().numpy().astype(np.float32)
    if not np.isfinite(y).all():
        return None, "PyTorch output has non-finite values"
    save_npy(paths["input"], x)
    save_npy(paths["output"], y)
    entry["op_types"] = op_types(m)
    entry["export_seconds"] = round(export_s, 2)
    entry["output_shape"] = list(y.shape)
    entry["output_max_abs"] = float(np.abs(y).max())
    log(f"{name} opset {opset}: exported in {export_s:.1f}s "
        f"({os.path.getsize(paths['model']) / 1e6:.1f} MB, {len(m.graph.node)} nodes, "
        f"output {list(y.shape)})")
    return entry, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--opsets", default="13,17", help="comma-separated opsets (default 13,17)")
    ap.add_argument("--extra-batches", default="", help="also write inputs of these batch sizes")
    ap.add_argument("--force", action="store_true", help="re-export even if the files exist")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    args = ap.parse_args()

    names = [n for n in args.only.split(",") if n] or ALL_MODELS
    unknown = [n for n in names if n not in ALL_MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; known: {', '.join(ALL_MODELS)}")
    opsets = [int(o) for o in args.opsets.split(",") if o]
    extra_batches = [int(b) for b in args.extra_batches.split(",") if b]
    os.makedirs(args.out_dir, exist_ok=True)
    torch.set_num_threads(args.threads)

    def log(msg):
        print(msg, flush=True)

    manifest_path = os.path.join(args.out_dir, "manifest.json")
    manifest = {"models": [], "skipped": []}
    if os.path.exists(manifest_path):
        with open(manifest_path) as fh:
            manifest = json.load(fh)
    key = lambda e: (e["name"], e["opset"])  # noqa: E731
    entries = {key(e): e for e in manifest.get("models", [])}
    skipped = {key(e): e for e in manifest.get("skipped", [])}

    t_all = time.perf_counter()
    n_ok = n_failed = 0
    for name in names:
        for opset in opsets:
            entry, reason = process(name, opset, args.out_dir, args.force, extra_batches, log)
            if entry is not None:
                old = entries.get(key(entry))
                if entry["export_seconds"] is None and old is not None:
                    # Keep what the original export recorded.
                    for k in ("export_seconds", "output_shape", "output_max_abs"):
                        if k in old:
                            entry[k] = old[k]
                entries[key(entry)] = entry
                skipped.pop(key(entry), None)
                n_ok += 1
            else:
                skipped[(name, opset)] = {"name": name, "opset": opset, "reason": reason}
                entries.pop((name, opset), None)
                n_failed += 1
    total = time.perf_counter() - t_all

    order = {n: i for i, n in enumerate(ALL_MODELS)}
    sort_key = lambda e: (order.get(e["name"], 99), e["opset"])  # noqa: E731
    manifest = {
        "generator": "scripts/gen_models.py",
        "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                     "onnx": onnx.__version__, "numpy": np.__version__},
        "models": sorted(entries.values(), key=sort_key),
        "skipped": sorted(skipped.values(), key=sort_key),
    }
    tmp = manifest_path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, manifest_path)
    log(f"done: {n_ok} models ready, {n_failed} not exported, {total:.1f}s in all; "
        f"manifest {manifest_path}")
    for s in manifest["skipped"]:
        log(f"  not exported: {s['name']} opset {s['opset']}: {s['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
