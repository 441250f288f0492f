#!/usr/bin/env python3
"""Small ONNX models for the training-lowering check (tests/cli/perf_lowering_check_cli_test.sh).

Each model exercises ops the ResNet-50 / BERT calibration graphs lack, in the shapes the judged
workloads use them (docs/perf.md, "Lowering check"):
  yolo_block:  conv + SiLU (x * sigmoid), SPP max pools + concat, LeakyReLU, nearest 2x upsample, a
               detection-map output (sigmoid BCE loss);
  deepfm:      embedding Gather, FM second-order term (Mul / ReduceSum / Sub), MLP, sigmoid output;
  mobile_block: depthwise conv + BN + ReLU6, transposed conv, 3x3 average pool, Pad, Div;
  inception_block: InceptionV3's branches (1x1, 1x7 -> 7x1, 3x3 average pool -> 1x1) with BN + ReLU,
               concatenated, a stride-2 max pool and a dropout before the classifier.
Usage: gen_lowering_check_models.py OUT_DIR   (fixed seeds; torch 1.13 / onnx 1.12 from Debian)
"""
import os
import sys

import torch
import torch.nn as nn


class YoloBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.cv = nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.pools = nn.ModuleList(nn.MaxPool2d(k, 1, k // 2) for k in (5, 9, 13))
        self.fuse = nn.Conv2d(128, 32, 1, bias=False)
        self.leaky = nn.LeakyReLU(0.1)  # YOLOv3 / v4's activation
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(48, 3 * 9, 1)  # 3 anchors x (4 box + 1 obj + 4 classes)

    def forward(self, x):
        s = self.bn(self.stem(x))
        s = s * torch.sigmoid(s)  # SiLU as YOLOv5 exports it
        y = self.bn2(self.cv(s))
        y = y * torch.sigmoid(y)
        y = self.leaky(self.fuse(torch.cat([y] + [p(y) for p in self.pools], 1)))
        y = torch.cat([self.up(y), s], 1)
        return self.head(y)


class DeepFM(nn.Module):
    def __init__(self, fields=8, vocab=1000, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.lin = nn.Embedding(vocab, 1)
        self.mlp = nn.Sequential(nn.Linear(fields * dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, ids):
        e = self.emb(ids)  # [N, F, D]
        square_of_sum = e.sum(1) * e.sum(1)
        sum_of_square = (e * e).sum(1)
        fm = 0.5 * (square_of_sum - sum_of_square).sum(1, keepdim=True)
        logit = self.lin(ids).sum(1) + fm + self.mlp(e.flatten(1))
        return torch.sigmoid(logit)


class MobileBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.pw = nn.Conv2d(3, 32, 1, bias=False)
        self.dw = nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False)
        self.bn = nn.BatchNorm2d(32)
        self.act = nn.ReLU6()
        self.pool = nn.AvgPool2d(3, stride=1, padding=1)
        self.tconv = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        y = self.act(self.bn(self.dw(self.pw(x))))
        y = self.pool(y)
        y = nn.functional.pad(y, (1, 1, 1, 1))
        y = self.tconv(y) / 4.0
        return self.fc(y.mean((2, 3)))


def conv_bn(cin, cout, k, pad):
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=pad, bias=False), nn.BatchNorm2d(cout, eps=0.001),
                         nn.ReLU())


class InceptionBlock(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.stem = conv_bn(3, c, 3, 1)
        self.b1 = conv_bn(c, 16, 1, 0)
        self.b7 = nn.Sequential(conv_bn(c, 16, (1, 7), (0, 3)), conv_bn(16, 16, (7, 1), (3, 0)))
        self.pool = nn.Sequential(nn.AvgPool2d(3, 1, 1), conv_bn(c, 16, 1, 0))
        self.down = nn.MaxPool2d(3, 2)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        s = self.stem(x)
        y = self.down(torch.cat([self.b1(s), self.b7(s), self.pool(s)], 1))
        return self.fc(self.drop(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1)))


def export(model, example, path, names):
    # Training mode keeps BatchNormalization (an eval export folds it into the convolutions).
    model.train()
    torch.onnx.export(model, example, path, opset_version=13, input_names=[names[0]], output_names=[names[1]],
                      dynamic_axes={names[0]: {0: "batch"}, names[1]: {0: "batch"}},
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    export(YoloBlock(), torch.randn(1, 3, 64, 64), os.path.join(out, "yolo_block.onnx"), ("images", "pred"))
    export(DeepFM(), torch.randint(0, 1000, (2, 8)), os.path.join(out, "deepfm.onnx"), ("ids", "ctr"))
    export(InceptionBlock(), torch.randn(1, 3, 17, 17), os.path.join(out, "inception_block.onnx"), ("x", "logits"))
    export(MobileBlock(), torch.randn(1, 3, 16, 16), os.path.join(out, "mobile_block.onnx"), ("x", "logits"))


if __name__ == "__main__":
    main()
