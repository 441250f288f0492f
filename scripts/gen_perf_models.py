#!/usr/bin/python3
"""Writes the models of the end-to-end performance checks (docs/fidelity.md, perf section).

Usage:
  /usr/bin/python3 scripts/gen_perf_models.py OUT_DIR [--only resnet50_train,bert_large,bert_base]

  OUT_DIR/resnet50_train.onnx  torchvision ResNet-50 exported in training mode (BatchNorm kept as
                               BatchNormalization nodes, not folded into the convolutions as an
                               eval-mode export does), dynamic batch, opset 13, random weights.
  OUT_DIR/bert_large.onnx      BERT-Large pretraining graph as in the MindSpore benchmark
                               (ascend-facts / perf-memory-comm-anchors §1.8: 24 layers, hidden
                               1024, 16 heads, seq 128, vocab 21,128): embeddings, 24 encoder
                               layers with dropout, the masked-LM head on 20 positions per
                               sequence and the next-sentence head, both ending in a float32
                               LogSoftmax as MindSpore's BERT heads do. Built with onnx.helper, not
                               traced: its 340 M float16 weights are external data in a sparse
                               file (no disk blocks, no weights in memory while writing).
  OUT_DIR/bert_base.onnx       the same pretraining graph at BERT-base size (12 layers, hidden
                               768, 12 heads, ffn 3,072, vocab 21,128), the workload of
                               shared/calibration/ascend910/bert_seq128_bs32_train.csv.
Needs Debian's Python (/usr/bin/python3: torch 1.13, torchvision 0.14, onnx 1.12).
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def resnet50_train(path):
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet50()
    model.train()
    x = torch.randn(2, 3, 224, 224)
    torch.onnx.export(model, (x,), path, opset_version=13, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


class Bert:
    """Emits the BERT-Large pretraining graph node by node."""

    def __init__(self, layers=24, hidden=1024, heads=16, ffn=4096, vocab=21128, seq=128, masked=20):
        self.L, self.H, self.A, self.F, self.V, self.S, self.M = layers, hidden, heads, ffn, vocab, seq, masked
        self.nodes, self.inits, self.offset, self.n = [], [], 0, 0
        self.data_file = None

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def weight(self, base, dims, dtype=TensorProto.FLOAT16):
        """An initializer (float16 unless told) stored as external data at the next offset of the data file."""
        t = onnx.TensorProto()
        t.name = self.name(base)
        t.data_type = dtype
        t.dims.extend(dims)
        length = int(np.prod(dims)) * (4 if dtype == TensorProto.FLOAT else 2)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", self.data_file), ("offset", str(self.offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.offset += (length + 63) // 64 * 64
        self.inits.append(t)
        return t.name

    def const(self, base, values, dtype=np.int64):
        t = helper.make_tensor(self.name(base), TensorProto.INT64 if dtype == np.int64 else TensorProto.FLOAT16,
                               [len(values)] if isinstance(values, list) else [],
                               values if isinstance(values, list) else [values])
        self.inits.append(t)
        return t.name

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def linear(self, x, n_in, n_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight("w", [n_in, n_out])]), self.weight("b", [n_out])])

    def dropout(self, x):
        return self.op("Dropout", [x, self.ratio, self.training])

    def layer_norm(self, x):
        return self.op("LayerNormalization", [x, self.weight("ln_g", [self.H]), self.weight("ln_b", [self.H])],
                       axis=-1, epsilon=1e-12)

    def gelu(self, x):
        e = self.op("Erf", [self.op("Div", [x, self.sqrt2])])
        return self.op("Mul", [self.op("Mul", [x, self.op("Add", [e, self.one])]), self.half])

    def heads(self, x, perm):
        return self.op("Transpose", [self.op("Reshape", [x, self.head_shape])], perm=perm)

    def encoder(self, h):
        q = self.heads(self.linear(h, self.H, self.H), [0, 2, 1, 3])
        k = self.heads(self.linear(h, self.H, self.H), [0, 2, 3, 1])
        v = self.heads(self.linear(h, self.H, self.H), [0, 2, 1, 3])
        s = self.op("Add", [self.op("Div", [self.op("MatMul", [q, k]), self.scale]), "attention_mask"])
        p = self.dropout(self.op("Softmax", [s], axis=-1))
        c = self.op("Reshape", [self.op("Transpose", [self.op("MatMul", [p, v])], perm=[0, 2, 1, 3]), self.hidden_shape])
        h = self.layer_norm(self.op("Add", [self.dropout(self.linear(c, self.H, self.H)), h]))
        f = self.linear(self.gelu(self.linear(h, self.H, self.F)), self.F, self.H)
        return self.layer_norm(self.op("Add", [self.dropout(f), h]))

    def build(self, data_file):
        self.data_file = data_file
        H = self.H
        self.ratio = self.const("ratio", 0.1, np.float16)
        self.inits.append(helper.make_tensor("training", TensorProto.BOOL, [], [True]))
        self.training = "training"
        self.sqrt2, self.one, self.half = (self.const(n, v, np.float16) for n, v in
                                           (("sqrt2", 1.4142135), ("one", 1.0), ("half", 0.5)))
        self.scale = self.const("scale", 8.0, np.float16)  # sqrt(64), the head size
        self.head_shape = self.const("head_shape", [0, 0, self.A, H // self.A])
        self.hidden_shape = self.const("hidden_shape", [0, 0, H])
        words = self.op("Gather", [self.weight("word_emb", [self.V, H]), "input_ids"])
        types = self.op("Gather", [self.weight("type_emb", [2, H]), "token_type_ids"])
        # MindSpore BERT (model_zoo bert_model.py): position embeddings gathered from a
        # max_position_embeddings (512) table; the embedding output saturate-cast for the encoder
        # (SaturateCast: Maximum / Minimum at the float16 range); the encoder output cast to
        # float32 (sequence_output), the heads' inputs sliced (the pooler's first token) or
        # gathered from it and cast back to float16 for their dense layers.
        # (position_ids is a graph input, 0 .. seq - 1: a Gather of an initializer by a constant
        # would be folded as a constant, leaving the table without a gradient.)
        pos = self.op("Gather", [self.weight("pos_emb", [512, H]), "position_ids"])
        emb = self.op("Add", [self.op("Add", [words, types]), pos])
        h = self.dropout(self.layer_norm(emb))
        h = self.op("Min", [self.op("Max", [h, self.const("fp16_min", -65504.0, np.float16)]),
                            self.const("fp16_max", 65504.0, np.float16)])
        for _ in range(self.L):
            h = self.encoder(h)
        h = self.op("Cast", [h], to=TensorProto.FLOAT)
        # Masked LM head on the gathered positions (flat indices into batch x seq).
        flat = self.op("Reshape", [h, self.const("flat", [-1, H])])
        m = self.op("Cast", [self.op("Gather", [flat, "masked_positions"])], to=TensorProto.FLOAT16)
        m = self.layer_norm(self.gelu(self.linear(m, H, H)))
        # The heads end as MindSpore BERT's GetMaskedLMOutput / GetNextSentenceOutput do: the
        # logits cast to float32 (the masked-LM bias, a float32 parameter, added after the cast,
        # not fused into the matmul), then LogSoftmax; the loss (BertPretrainingLoss) reads the
        # log-probabilities.
        mlm = self.op("Cast", [self.op("MatMul", [m, self.weight("w", [H, self.V])])], to=TensorProto.FLOAT)
        mlm = self.op("Add", [mlm, self.weight("output_bias", [self.V], TensorProto.FLOAT)])
        mlm = self.op("LogSoftmax", [mlm], axis=-1)
        # Next-sentence head on the first token.
        first = self.op("Slice", [h, self.const("start", [0]), self.const("end", [1]), self.const("axis", [1])])
        cls = self.op("Cast", [self.op("Squeeze", [first, self.const("squeeze", [1])])], to=TensorProto.FLOAT16)
        nsp = self.linear(self.op("Tanh", [self.linear(cls, H, H)]), H, 2)
        nsp = self.op("LogSoftmax", [self.op("Cast", [nsp], to=TensorProto.FLOAT)], axis=-1)
        self.nodes.append(helper.make_node("Identity", [mlm], ["mlm_log_probs"]))
        self.nodes.append(helper.make_node("Identity", [nsp], ["nsp_log_probs"]))
        batch = "batch"
        inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT32, [batch, self.S]),
                  helper.make_tensor_value_info("token_type_ids", TensorProto.INT32, [batch, self.S]),
                  helper.make_tensor_value_info("position_ids", TensorProto.INT32, [self.S]),
                  helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT16, [batch, 1, 1, self.S]),
                  helper.make_tensor_value_info("masked_positions", TensorProto.INT32, ["masked"])]
        outputs = [helper.make_tensor_value_info("mlm_log_probs", TensorProto.FLOAT, ["masked", self.V]),
                   helper.make_tensor_value_info("nsp_log_probs", TensorProto.FLOAT, [batch, 2])]
        graph = helper.make_graph(self.nodes, f"bert_{self.L}l_pretraining", inputs, outputs, self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="npugap")


def bert(path, **size):
    data = os.path.basename(path) + ".data"
    b = Bert(**size)
    model = b.build(data)
    with open(os.path.join(os.path.dirname(path), data), "wb") as f:
        f.truncate(b.offset)  # sparse: zeros without disk blocks
    onnx.save(model, path)


def bert_large(path):
    bert(path)


def bert_base(path):
    bert(path, layers=12, hidden=768, heads=12, ffn=3072)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--only", default="resnet50_train,bert_large")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    makers = {"resnet50_train": resnet50_train, "bert_large": bert_large, "bert_base": bert_base}
    for name in a.only.split(","):
        if name not in makers:
            sys.exit(f"unknown model {name} (expected {', '.join(makers)})")
        path = os.path.join(a.out_dir, name + ".onnx")
        if not os.path.exists(path):
            makers[name](path)
        print(path)


if __name__ == "__main__":
    main()
