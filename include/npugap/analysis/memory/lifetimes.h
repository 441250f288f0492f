// Which buffers an inference run holds, and when: every activation from the node that produces
// it to its last consumer in the executor's order (the graph's topological node order), the
// layout it is stored in on the NPU, view ops that share their input's buffer, and the TransData
// workspaces that layout changes need. docs/memory.md states each rule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npugap/analysis/memory/layout.h"
#include "npugap/analysis/memory/shapes.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::memory {

struct Buffer {
  int value = -1;  // the value that owns the buffer (views of it share it)
  Layout layout = Layout::kNd;
  int64_t bytes = 0;  // laid-out bytes, before the allocator's pad and rounding
  int first = 0;      // step of the producing node (0 for graph inputs)
  int last = 0;       // step of the last reader, through views; the last step for graph outputs
};

struct Workspace {
  int node = -1;
  int input_value = -1;  // the input converted by TransData
  Layout to = Layout::kNd;
  int64_t bytes = 0;
};

struct Weight {
  int value = -1;
  Layout layout = Layout::kNd;
  int64_t nd_bytes = 0;      // as stored in the model
  int64_t device_bytes = 0;  // laid out (FRACTAL_Z for conv, FRACTAL_NZ for matmul weights)
};

struct Lifetimes {
  std::vector<Buffer> buffers;
  std::vector<Workspace> workspaces;  // each live during its node only
  std::vector<Weight> weights;        // initializers and Constant outputs: live throughout
  int steps = 0;                      // number of nodes
};

// `npu_layouts`: store conv activations in NC1HWC0 and matmul operands in FRACTAL_NZ as an
// ATC-compiled model does (inference); false keeps everything ND, as torch_npu does by default
// (ALLOW_INTERNAL_FORMAT disabled, ascend-facts §2.2).
Expected<Lifetimes> ComputeLifetimes(const ir::Graph& graph, const ShapeMap& shapes,
                                     const target::Target& target, bool npu_layouts);

// Reshape, Flatten, Squeeze, Unsqueeze, Identity: the output is a view of the input's buffer (torch
// view semantics; npugap's executor aliases them too), so it adds no buffer of its own.
bool IsViewOp(const ir::Node& node);

}  // namespace npugap::analysis::memory
