// Layout rules (an ATC-compiled model, docs/memory.md "Layouts"):
//  - Convolution and pooling compute in NC1HWC0: their 4-D data input and output are 5HD.
//  - MatMul / Gemm compute on FRACTAL_NZ operands and write FRACTAL_NZ; a MatMul with a 2-D
//    weight pads its folded rows (batch x M), not each batch's M (layout.h kFractalNzRows).
//  - Layout-following ops (elementwise, activations, normalization) keep their first input's
//    layout: GE propagates formats through them instead of converting.
//  - Every other op reads ND. A conversion (TransData) is a workspace of the converted size live
//    during the reading node; a view op over a non-ND tensor becomes that conversion's ND output.
//  - Weights are converted offline: conv weights to FRACTAL_Z, matmul weights to FRACTAL_NZ.
#include "npugap/analysis/memory/lifetimes.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>

namespace npugap::analysis::memory {
namespace {

const std::set<std::string> kFiveHdOps = {
    "Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "LRN"};
const std::set<std::string> kNzOps = {"MatMul", "Gemm"};
const std::set<std::string> kFollowOps = {"Relu",
                                          "LeakyRelu",
                                          "PRelu",
                                          "Sigmoid",
                                          "HardSigmoid",
                                          "HardSwish",
                                          "Tanh",
                                          "Clip",
                                          "Elu",
                                          "Selu",
                                          "Gelu",
                                          "Softplus",
                                          "Mish",
                                          "Erf",
                                          "Exp",
                                          "Log",
                                          "Sqrt",
                                          "Reciprocal",
                                          "Neg",
                                          "Abs",
                                          "Add",
                                          "Sub",
                                          "Mul",
                                          "Div",
                                          "Pow",
                                          "Max",
                                          "Min",
                                          "Sum",
                                          "BatchNormalization",
                                          "InstanceNormalization",
                                          "Dropout",
                                          "Cast",
                                          "Identity"};
const std::set<std::string> kViewOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};

int Find(std::vector<int>& parent, int v) {
  while (parent[static_cast<size_t>(v)] != v) {
    parent[static_cast<size_t>(v)] = parent[static_cast<size_t>(parent[static_cast<size_t>(v)])];
    v = parent[static_cast<size_t>(v)];
  }
  return v;
}

// A MatMul whose B is a 2-D weight: A's and Y's leading dims fold into the rows.
bool FoldsRows(const ir::Graph& g, const ir::Node& n) {
  if (n.op_type != "MatMul" || !n.HasInput(1)) return false;
  const ir::Tensor* b = g.Initializer(n.inputs[1]);
  return b != nullptr && b->rank() == 2;
}

// The layout a node wants input `slot` in, or nullopt when it follows (or does not care).
Layout WantedLayout(const ir::Graph& g, const ir::Node& n, size_t slot, const ir::Shape& shape, Layout follow) {
  if (kFiveHdOps.count(n.op_type)) return slot == 0 && shape.size() == 4 ? Layout::kNc1hwc0 : Layout::kNd;
  if (kNzOps.count(n.op_type)) {
    if (slot >= 2 || shape.empty()) return Layout::kNd;
    return slot == 0 && FoldsRows(g, n) ? Layout::kFractalNzRows : Layout::kFractalNz;
  }
  if (kFollowOps.count(n.op_type)) return follow;
  return Layout::kNd;
}

}  // namespace

bool IsViewOp(const ir::Node& node) { return node.domain.empty() && kViewOps.count(node.op_type) > 0; }

Expected<Lifetimes> ComputeLifetimes(const ir::Graph& graph, const ShapeMap& shapes,
                                     const target::Target& target, bool npu_layouts) {
  Lifetimes lt;
  const int n = static_cast<int>(graph.nodes.size());
  lt.steps = std::max(n, 1);
  const size_t nv = graph.values.size();
  std::vector<Layout> layout(nv, Layout::kNd);
  std::vector<bool> is_weight(nv, false);
  std::vector<int> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  auto shape_of = [&](int v) -> const ir::Shape* {
    return v >= 0 && static_cast<size_t>(v) < shapes.size() && shapes[static_cast<size_t>(v)]
               ? &*shapes[static_cast<size_t>(v)]
               : nullptr;
  };

  // Weights: initializers, Constant outputs and whatever is computed from weights alone (torch
  // exports shared weights as Identity nodes; ATC folds such nodes offline), in node order.
  for (size_t v = 0; v < nv; ++v) is_weight[v] = graph.values[v].is_initializer;
  for (const ir::Node& node : graph.nodes) {
    bool constant = node.op_type == "Constant" || !node.inputs.empty();
    for (int in : node.inputs) {
      if (in != ir::kNoValue && !is_weight[static_cast<size_t>(in)]) constant = false;
    }
    if (node.op_type == "Constant") constant = true;
    if (!constant) continue;
    for (int out : node.outputs) {
      if (out != ir::kNoValue) is_weight[static_cast<size_t>(out)] = true;
    }
  }
  std::vector<Layout> weight_layout(nv, Layout::kNd);
  for (const ir::Node& node : graph.nodes) {
    if (!npu_layouts) break;
    if ((node.op_type == "Conv" || node.op_type == "ConvTranspose") && node.HasInput(1)) {
      weight_layout[static_cast<size_t>(node.inputs[1])] = Layout::kFractalZ;
    }
    if (kNzOps.count(node.op_type)) {
      for (size_t s = 0; s < 2 && s < node.inputs.size(); ++s) {
        if (node.inputs[s] != ir::kNoValue)
          weight_layout[static_cast<size_t>(node.inputs[s])] = Layout::kFractalNz;
      }
    }
  }
  for (size_t v = 0; v < nv; ++v) {
    const ir::Shape* s = shape_of(static_cast<int>(v));
    if (!is_weight[v] || !s) continue;
    const ir::DType dt = graph.values[v].type.dtype;
    Weight w{static_cast<int>(v), weight_layout[v], PaddedBytes(*s, dt, Layout::kNd, target), 0};
    w.device_bytes = PaddedBytes(*s, dt, weight_layout[v], target);
    lt.weights.push_back(w);
    if (npu_layouts) layout[v] = weight_layout[v];
  }

  // Activations: layouts and views in node order.
  std::vector<int> first(nv, -1), last(nv, -1);
  for (int v : graph.inputs) {
    if (!is_weight[static_cast<size_t>(v)]) first[static_cast<size_t>(v)] = last[static_cast<size_t>(v)] = 0;
  }
  for (int i = 0; i < n; ++i) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(i)];
    if (!node.outputs.empty() && node.outputs[0] != ir::kNoValue &&
        is_weight[static_cast<size_t>(node.outputs[0])]) {
      continue;  // folded offline
    }
    const int in0 = node.HasInput(0) ? node.inputs[0] : ir::kNoValue;
    const Layout follow = in0 != ir::kNoValue && !is_weight[static_cast<size_t>(in0)]
                              ? layout[static_cast<size_t>(in0)]
                              : Layout::kNd;
    for (size_t s = 0; s < node.inputs.size(); ++s) {
      const int v = node.inputs[s];
      if (v == ir::kNoValue || is_weight[static_cast<size_t>(v)]) continue;
      const int root = Find(parent, v);
      last[static_cast<size_t>(root)] = std::max(last[static_cast<size_t>(root)], i);
      last[static_cast<size_t>(v)] = std::max(last[static_cast<size_t>(v)], i);
      const ir::Shape* shape = shape_of(v);
      if (!npu_layouts || !shape || (IsViewOp(node) && s == 0)) continue;
      const Layout want = WantedLayout(graph, node, s, *shape, follow);
      const Layout have = layout[static_cast<size_t>(v)];
      if (want != have) {
        lt.workspaces.push_back(
            {i, v, want, PaddedBytes(*shape, graph.values[static_cast<size_t>(v)].type.dtype, want, target)});
      }
    }
    for (int out : node.outputs) {
      if (out == ir::kNoValue) continue;
      const size_t o = static_cast<size_t>(out);
      first[o] = i;
      last[o] = i;
      if (!npu_layouts) continue;
      const ir::Shape* shape = shape_of(out);
      if (kFiveHdOps.count(node.op_type) && shape && shape->size() == 4)
        layout[o] = Layout::kNc1hwc0;
      else if (kNzOps.count(node.op_type) && shape && !shape->empty())
        layout[o] = FoldsRows(graph, node) ? Layout::kFractalNzRows : Layout::kFractalNz;
      else if (kFollowOps.count(node.op_type) && shape && in0 != ir::kNoValue && shape_of(in0) &&
               shape_of(in0)->size() == shape->size())
        layout[o] = follow;
    }
    // A view of an ND activation shares its buffer; of a 5HD / NZ one it is a converted ND copy.
    if (IsViewOp(node) && in0 != ir::kNoValue && !is_weight[static_cast<size_t>(in0)] &&
        !node.outputs.empty() && node.outputs[0] != ir::kNoValue &&
        layout[static_cast<size_t>(in0)] == Layout::kNd) {
      parent[static_cast<size_t>(node.outputs[0])] = Find(parent, in0);
    }
  }
  for (int v : graph.outputs) last[static_cast<size_t>(Find(parent, v))] = lt.steps - 1;

  // One buffer per root: the largest member's bytes, the union of the members' lifetimes.
  std::vector<int64_t> bytes(nv, -1);
  for (size_t v = 0; v < nv; ++v) {
    const ir::Shape* shape = shape_of(static_cast<int>(v));
    if (is_weight[v] || first[v] < 0 || !shape || !graph.values[v].type.is_tensor) continue;
    const size_t root = static_cast<size_t>(Find(parent, static_cast<int>(v)));
    bytes[root] = std::max(bytes[root], PaddedBytes(*shape, graph.values[v].type.dtype, layout[v], target));
    last[root] = std::max(last[root], last[v]);
    if (first[root] < 0 || first[v] < first[root]) first[root] = first[v];
  }
  for (size_t v = 0; v < nv; ++v) {
    if (bytes[v] < 0 || static_cast<size_t>(Find(parent, static_cast<int>(v))) != v) continue;
    lt.buffers.push_back({static_cast<int>(v), layout[v], bytes[v], first[v], std::max(first[v], last[v])});
  }
  return lt;
}

}  // namespace npugap::analysis::memory
