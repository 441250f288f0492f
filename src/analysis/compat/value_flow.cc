#include "npugap/analysis/compat/value_flow.h"

#include <string_view>

namespace npugap::compat {
namespace {

bool HasSubgraph(const ir::Node& n) {
  for (const auto& [name, attr] : n.attributes) {
    if (attr.kind == ir::Attribute::Kind::kGraph || attr.kind == ir::Attribute::Kind::kGraphs) return true;
  }
  return false;
}

// Shape and Size need only the input's dims, not its data.
bool DimsStatic(const ir::Graph& g, int value) {
  if (value < 0) return false;
  const ir::ValueType& t = g.values[static_cast<size_t>(value)].type;
  return t.StaticShape().has_value();
}

// Ops whose result is random: folding them would freeze one draw.
bool IsRandom(std::string_view op) {
  return op == "RandomNormalLike" || op == "RandomUniformLike" || op == "Bernoulli" || op == "Multinomial";
}

}  // namespace

ValueFlow AnalyzeValueFlow(const ir::Graph& g) {
  ValueFlow flow;
  flow.known.assign(g.values.size(), 0);
  flow.shape_comp.assign(g.values.size(), 0);
  flow.foldable.assign(g.nodes.size(), 0);
  for (const auto& [id, tensor] : g.initializers) flow.known[static_cast<size_t>(id)] = 1;

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    const bool standard = n.domain.empty() || n.domain == "ai.onnx";
    bool known = false;
    bool shape_comp = false;
    if (standard && (n.op_type == "Shape" || n.op_type == "Size") && !n.inputs.empty()) {
      known = DimsStatic(g, n.inputs[0]);
      shape_comp = true;
    } else if (standard && n.op_type == "Constant") {
      known = true;
    } else if (!HasSubgraph(n)) {
      // Known when every present input is; a shape computation when every input is a shape or a
      // constant and at least one is a shape (a Reshape's data input is neither, so the chain
      // stops at the op that consumes the computed shape).
      bool all_known = true;
      bool all_shape_or_const = true;
      bool any_shape = false;
      for (int in : n.inputs) {
        if (in == ir::kNoValue) continue;
        const auto v = static_cast<size_t>(in);
        all_known = all_known && flow.known[v];
        any_shape = any_shape || flow.shape_comp[v];
        all_shape_or_const = all_shape_or_const && (flow.shape_comp[v] || flow.known[v]);
      }
      // Only standard ops are evaluated: a custom op's kernel is not ours to run.
      known = standard && all_known && !n.inputs.empty() && !IsRandom(n.op_type);
      shape_comp = any_shape && all_shape_or_const;
    }
    flow.foldable[i] = known ? 1 : 0;
    for (int out : n.outputs) {
      if (out == ir::kNoValue) continue;
      flow.known[static_cast<size_t>(out)] = known ? 1 : 0;
      flow.shape_comp[static_cast<size_t>(out)] = shape_comp ? 1 : 0;
    }
  }
  return flow;
}

}  // namespace npugap::compat
