// Per op type, what PyTorch's autograd formula for that op saves (torch's derivatives.yaml):
//  - Conv / ConvTranspose: the input (for the weight gradient).
//  - MatMul / Gemm / Mul / Div: every activation operand (each one's gradient needs the other).
//  - Relu, Sigmoid, Tanh, Softmax, LogSoftmax, Exp, Sqrt, Reciprocal, Elu: the output only.
//  - BatchNorm / InstanceNorm / LayerNorm / GroupNorm: the input and per-channel (per-row) mean and
//    inverse std.
//  - MaxPool: the input and int64 indices of output size (max_pool2d_with_indices).
//  - Dropout: a 1-byte mask of output size (Korthikanti et al., anchors §2.6).
//  - Gather: the (integer) indices.
//  - Shape-only ops (Add, Sub, Neg, AveragePool, GlobalAveragePool, ReduceSum / ReduceMean, views,
//    Transpose, Concat, Split, Slice, Pad, Expand, Cast, Shape, Constant*): nothing.
//  - Any other op: every activation input, the conservative choice.
#include "npugap/analysis/memory/backward_rules.h"

#include "npugap/analysis/memory/lifetimes.h"

#include <set>
#include <string>

namespace npugap::analysis::memory {
namespace {

const std::set<std::string> kSaveOutput = {"Relu", "Sigmoid", "Tanh", "Softmax",   "LogSoftmax",
                                           "Exp",  "Sqrt",    "Elu",  "Reciprocal"};
const std::set<std::string> kSaveNothing = {"Add",
                                            "Sub",
                                            "Neg",
                                            "AveragePool",
                                            "GlobalAveragePool",
                                            "ReduceSum",
                                            "ReduceMean",
                                            "Reshape",
                                            "Flatten",
                                            "Squeeze",
                                            "Unsqueeze",
                                            "Identity",
                                            "Transpose",
                                            "Concat",
                                            "Split",
                                            "Slice",
                                            "Pad",
                                            "Expand",
                                            "Cast",
                                            "Shape",
                                            "Constant",
                                            "ConstantOfShape",
                                            "Size",
                                            "Range",
                                            "Tile",
                                            "Equal",
                                            "Less",
                                            "Greater",
                                            "Not",
                                            "And",
                                            "Or",
                                            "Where"};
const std::set<std::string> kNorms = {"BatchNormalization", "InstanceNormalization", "LayerNormalization",
                                      "GroupNormalization"};

}  // namespace

bool IsActivation(const ir::Graph& g, int v) {
  if (v == ir::kNoValue) return false;
  const ir::Value& val = g.values[static_cast<size_t>(v)];
  if (val.is_initializer) return false;
  if (val.producer < 0) return true;
  const ir::Node& n = g.nodes[static_cast<size_t>(val.producer)];
  if (n.op_type == "Constant") return false;
  for (int in : n.inputs) {
    if (in != ir::kNoValue && !g.values[static_cast<size_t>(in)].is_initializer) return true;
  }
  return n.inputs.empty();
}

int StorageOf(const ir::Graph& graph, int value) {
  while (value != ir::kNoValue) {
    const ir::Value& v = graph.values[static_cast<size_t>(value)];
    if (v.producer < 0) break;
    const ir::Node& n = graph.nodes[static_cast<size_t>(v.producer)];
    if (!IsViewOp(n) || !n.HasInput(0) || !IsActivation(graph, n.inputs[0])) break;
    value = n.inputs[0];
  }
  return value;
}

std::vector<SavedTensor> SavedForBackward(const ir::Graph& graph, const ir::Node& node) {
  std::vector<SavedTensor> saved;
  const std::string& op = node.op_type;
  auto add = [&](int v, int64_t element_bytes = 0, bool stats = false) {
    if (IsActivation(graph, v)) saved.push_back({v, element_bytes, stats});
  };
  auto add_inputs = [&] {
    for (int v : node.inputs) add(v);
  };
  if (!node.domain.empty()) {
    add_inputs();
  } else if (op == "Conv" || op == "ConvTranspose") {
    add(node.HasInput(0) ? node.inputs[0] : ir::kNoValue);
  } else if (op == "MatMul" || op == "Gemm" || op == "Mul" || op == "Div") {
    for (size_t s = 0; s < node.inputs.size() && s < 2; ++s) add(node.inputs[s]);
  } else if (kSaveOutput.count(op)) {
    if (!node.outputs.empty()) add(node.outputs[0]);
  } else if (kNorms.count(op)) {
    add(node.HasInput(0) ? node.inputs[0] : ir::kNoValue, 0, true);
  } else if (op == "MaxPool") {
    add(node.HasInput(0) ? node.inputs[0] : ir::kNoValue);
    if (!node.outputs.empty()) add(node.outputs[0], 8);  // int64 indices
  } else if (op == "Dropout") {
    if (!node.outputs.empty()) add(node.outputs[0], 1);
  } else if (op == "Gather" || op == "GatherElements") {
    if (node.HasInput(1)) add(node.inputs[1]);
  } else if (!kSaveNothing.count(op)) {
    add_inputs();
  }
  return saved;
}

}  // namespace npugap::analysis::memory
