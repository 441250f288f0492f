// Rewrites the executor applies to its own copy of a model before running it, for speed only:
// the results equal the unfused graph's up to float rounding. The precision analysis, which
// observes every original node, runs with ExecutorOptions::fuse off.
//
//  - Constant nodes are evaluated once and become initializers (they were re-run every time).
//  - Conv [-> Add(Z)] [-> activation] becomes one com.microsoft FusedConv (ONNX Runtime's own
//    contrib op): the sum and the activation are applied while the output block is still in
//    cache instead of in one more pass each over memory. Activations: Relu, LeakyRelu, Clip with
//    constant bounds, Sigmoid, Tanh, HardSigmoid. Z must certainly have the Conv output's shape
//    (same static sizes or symbols, no broadcasting) and every absorbed intermediate must have
//    one consumer and not be a graph output.
#pragma once

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::exec {

struct FusionStats {
  int constants_folded = 0;
  int convs_fused = 0;        // FusedConv nodes written
  int nodes_absorbed = 0;     // Add / activation nodes folded into them
};

// The rewritten model (tensors shared with `model`). Graphs with If / Loop / Scan subgraphs
// are left as they are: a subgraph may read any outer value by name.
Expected<ir::Model> FuseForExecution(const ir::Model& model, FusionStats* stats = nullptr);

}  // namespace npugap::exec
