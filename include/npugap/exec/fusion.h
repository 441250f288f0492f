// Rewrites the executor applies to its own copy of a model before running it, for speed only:
// the results equal the unfused graph's up to float rounding. The precision analysis, which
// observes every original node, runs with ExecutorOptions::fuse off.
//
//  - Constant nodes are evaluated once and become initializers (they were re-run every time).
//  - Conv -> BatchNormalization (inference, constant parameters) folds into the Conv's weights
//    and bias, as every inference runtime does (torch.onnx already folds BN in eval exports).
//  - Conv [-> Add(Z)] [-> activation] becomes one com.microsoft FusedConv (ONNX Runtime's own
//    contrib op): the sum and the activation are applied while the output block is still in
//    cache instead of in one more pass each over memory. Activations: Relu, LeakyRelu, Clip with
//    constant bounds, Sigmoid, Tanh, HardSigmoid. Z must certainly have the Conv output's shape
//    (same static sizes or symbols, no broadcasting) and every absorbed intermediate must have
//    one consumer and not be a graph output.
//  - Chains of 2-D convolutions keep their activations in oneDNN's blocked nChw16c layout
//    (channels padded to 16) instead of reordering from and to NCHW around every convolution,
//    as ONNX Runtime's NCHWc transformer does. A value stays blocked when a convolution makes
//    it and only convolutions read it (as X or Z); the node attributes below say which inputs
//    and outputs are blocked, and such a tensor has the shape [N, ceil(C/16), H, W, 16].
#pragma once

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::exec {

// Node attributes set on Conv / FusedConv nodes whose X, Z or Y tensor is blocked.
inline constexpr const char* kBlockedXAttr = "_npugap_blocked_x";
inline constexpr const char* kBlockedZAttr = "_npugap_blocked_z";
inline constexpr const char* kBlockedYAttr = "_npugap_blocked_y";

struct FusionStats {
  int constants_folded = 0;
  int batchnorms_folded = 0;  // into the preceding Conv's weights and bias
  int convs_fused = 0;        // FusedConv nodes written
  int nodes_absorbed = 0;     // Add / activation nodes folded into them
  int blocked_values = 0;     // convolution outputs kept in nChw16c
};

// The rewritten model (tensors shared with `model`). Graphs with If / Loop / Scan subgraphs
// are left as they are: a subgraph may read any outer value by name.
Expected<ir::Model> FuseForExecution(const ir::Model& model, FusionStats* stats = nullptr);

}  // namespace npugap::exec
