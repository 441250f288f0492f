// A ResNet-style chain of Conv -> BatchNormalization -> Relu / Add(skip) blocks, built in memory
// (no ONNX import), for the benchmarks that time an analysis on a graph of a given node count.
#pragma once

#include <cstdint>

#include "npugap/ir/graph.h"

namespace npugap::bench {

struct ResNetChainSpec {
  int nodes = 5000;              // blocks of 4 nodes are added until the graph has at least this many
  ir::Shape activation;          // N, C, H, W of every activation; weights are C x C x k x k
  int64_t kernel_side = 1;       // Conv kernel k; pads k / 2 keep the activation's H and W
  bool relu_before_add = false;  // Conv -> BN -> Relu -> Add (true) or Conv -> BN -> Add -> Relu
};

// Float32 throughout, opset 13; every weight is an (unfilled) initializer.
ir::Model ResNetChain(const ResNetChainSpec& spec);

}  // namespace npugap::bench
