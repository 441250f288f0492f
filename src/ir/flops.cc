#include "npugap/ir/flops.h"

#include <numeric>
#include <string_view>

namespace npugap::ir {
namespace {

std::optional<Shape> StaticShapeOf(const Graph& g, int value) {
  if (value == kNoValue) return std::nullopt;
  return g.values[static_cast<size_t>(value)].type.StaticShape();
}

// Product of dims [from, end of shape).
int64_t Product(const Shape& s, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) p *= s[i];
  return p;
}

bool IsReduction(std::string_view op) {
  return op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin" || op == "GlobalAveragePool" ||
         op == "GlobalMaxPool";
}

}  // namespace

std::optional<int64_t> NodeMacs(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Conv") {
    auto w = StaticShapeOf(g, n.inputs.size() > 1 ? n.inputs[1] : kNoValue);
    auto y = StaticShapeOf(g, n.outputs[0]);
    if (!w || !y || w->size() < 2) return std::nullopt;
    // Every output element accumulates (Cin / group) * kernel elements: exactly the weight's dims after dim 0.
    return Product(*y) * Product(*w, 1);
  }
  if (op == "ConvTranspose") {
    auto x = StaticShapeOf(g, n.inputs[0]);
    auto w = StaticShapeOf(g, n.inputs.size() > 1 ? n.inputs[1] : kNoValue);
    if (!x || !w || w->size() < 2) return std::nullopt;
    // Each input element scatters into (Cout / group) * kernel outputs: the weight's dims after dim 0.
    return Product(*x) * Product(*w, 1);
  }
  if (op == "MatMul" || op == "Gemm") {
    auto a = StaticShapeOf(g, n.inputs[0]);
    auto y = StaticShapeOf(g, n.outputs[0]);
    if (!a || !y || a->empty()) return std::nullopt;
    int64_t k = a->back();
    if (op == "Gemm" && n.GetInt("transA", 0) != 0) k = (*a)[0];
    return Product(*y) * k;
  }
  return 0;
}

std::optional<int64_t> NodeFlops(const Graph& g, const Node& n) {
  auto macs = NodeMacs(g, n);
  if (!macs) return std::nullopt;
  if (*macs > 0) return 2 * *macs;
  if (n.op_type == "Constant" || n.op_type == "Shape" || n.op_type == "Reshape" || n.op_type == "Identity" ||
      n.op_type == "Flatten" || n.op_type == "Squeeze" || n.op_type == "Unsqueeze") {
    return 0;  // metadata-only ops compute nothing
  }
  auto counted = IsReduction(n.op_type) ? StaticShapeOf(g, n.inputs[0]) : StaticShapeOf(g, n.outputs[0]);
  if (!counted) return std::nullopt;
  return Product(*counted);
}

}  // namespace npugap::ir
