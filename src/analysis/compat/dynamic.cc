// Dynamic-shape findings: what keeps ATC from building a static-shape offline model, and the fix
// for each (ascend-facts §3.4 for the ATC options).
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "internal.h"

namespace npugap::compat::internal {
namespace {

const ir::Value& ValueAt(const ir::Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }

// "x:-1,3,224,224" with -1 for each dim that is not static, as ATC's --input_shape writes it.
std::string AtcShape(const ir::Value& v) {
  std::string dims;
  for (const ir::Dim& d : *v.type.dims) {
    if (!dims.empty()) dims += ',';
    dims += d.is_static() ? std::to_string(d.value) : "-1";
  }
  return v.name + ":" + dims;
}

Finding SymbolicInput(const ir::Value& v) {
  Finding f;
  f.kind = FindingKind::kSymbolicInput;
  f.subject = v.name;
  if (!v.type.dims) {
    f.detail = fmt::format("input '{}' has no shape (rank unknown)", v.name);
    f.fix = fmt::format("bind it: npugap --shape {}=DIMS, ATC --input_shape=\"{}:DIMS\"", v.name, v.name);
    return f;
  }
  int dynamic = 0;
  bool only_leading = true;
  for (size_t i = 0; i < v.type.dims->size(); ++i) {
    if ((*v.type.dims)[i].is_static()) continue;
    ++dynamic;
    only_leading = only_leading && i == 0;
  }
  f.detail = fmt::format("input '{}' is {}: {} dim{} not bound", v.name, v.type.ToString(), dynamic,
                         dynamic == 1 ? "" : "s");
  if (only_leading) {
    f.fix = fmt::format(
        "bind the batch (npugap --batch N; ATC --input_shape with N), or keep it dynamic with gears: "
        "--input_shape=\"{}\" --dynamic_batch_size=\"1,8,32\"",
        AtcShape(v));
  } else {
    f.fix = fmt::format(
        "bind it (npugap --shape {}=DIMS; ATC --input_shape), or keep profiles: --input_shape=\"{}\" "
        "--dynamic_dims=\"<one value per -1>;...\" --input_format=ND",
        v.name, AtcShape(v));
  }
  return f;
}

// Inputs of an op that set its output shape; a value there that is not known before running
// makes the output size data-dependent. Indices are per ONNX at the given opset.
std::vector<size_t> ShapeInputs(const ir::Node& n, int64_t opset) {
  const std::string_view op = n.op_type;
  if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "OneHot") return {1};
  if (op == "ConstantOfShape") return {0};
  if (op == "Slice" && opset >= 10) return {1, 2, 3, 4};
  if (op == "Pad" && opset >= 11) return {1};
  if (op == "TopK" && opset >= 10) return {1};
  if (op == "Range") return {0, 1, 2};
  if (op == "Resize") return opset >= 11 ? std::vector<size_t>{1, 2, 3} : std::vector<size_t>{1};
  if (op == "Upsample" && opset >= 9) return {1};
  return {};
}

bool AlwaysDataDependent(std::string_view op) {
  return op == "NonZero" || op == "Unique" || op == "Compress" || op == "NonMaxSuppression";
}

std::string ReplaceAdvice(std::string_view op) {
  if (op == "NonZero") return "replace the op: keep a fixed shape with a mask (Where / Mul by the condition)";
  if (op == "Unique") return "replace the op: a fixed-size result (sort + mask) or move it out of the model";
  if (op == "NonMaxSuppression")
    return "move NMS out of the model (post-processing on the host) or pad to max_output_boxes";
  if (op == "TopK") return "make k a constant (export with a fixed k)";
  if (op == "Resize" || op == "Upsample")
    return "give Resize constant scales or sizes (export with fixed sizes)";
  if (op == "Range") return "make the bounds constants";
  return "make the shape input a constant (export with fixed shapes)";
}

// The Shape...chain feeding `value`, in graph order.
std::vector<std::string> ChainNodes(const ir::Graph& g, const ValueFlow& flow, int value) {
  std::vector<int> stack = {value};
  std::unordered_set<int> seen_nodes;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    const int p = ValueAt(g, v).producer;
    if (p < 0 || !seen_nodes.insert(p).second) continue;
    for (int in : g.nodes[static_cast<size_t>(p)].inputs) {
      if (in != ir::kNoValue && flow.shape_comp[static_cast<size_t>(in)]) stack.push_back(in);
    }
  }
  std::vector<int> order(seen_nodes.begin(), seen_nodes.end());
  std::sort(order.begin(), order.end());
  std::vector<std::string> names;
  for (int n : order) names.push_back(g.nodes[static_cast<size_t>(n)].name);
  return names;
}

}  // namespace

std::vector<Finding> FindDynamicShapes(const ir::Graph& g, const ValueFlow& flow, int64_t opset) {
  std::vector<Finding> findings;
  for (int id : g.inputs) {
    const ir::Value& v = ValueAt(g, id);
    if (!v.type.is_tensor || !v.type.StaticShape()) findings.push_back(SymbolicInput(v));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!n.domain.empty() && n.domain != "ai.onnx") continue;
    if (n.op_type == "If" || n.op_type == "Loop" || n.op_type == "Scan") {
      Finding f{FindingKind::kControlFlow, true, n.name, {n.name}, "", ""};
      const bool constant_cond = n.op_type == "If" && !n.inputs.empty() && IsKnown(flow, n.inputs[0]);
      f.blocking = !constant_cond;
      f.detail = fmt::format("{} '{}': subgraph control flow makes a dynamic-shape graph", n.op_type, n.name);
      f.fix = n.op_type == "If"
                  ? (constant_cond ? "constant folding: the condition is known, keep the taken branch"
                                   : "export one branch per model, or compute both and select with Where")
              : n.op_type == "Loop" ? "unroll the loop with a fixed trip count at export"
                                    : "replace the op: unroll the Scan at export";
      findings.push_back(std::move(f));
      continue;
    }
    const bool known_node = flow.foldable[i] != 0;
    if (AlwaysDataDependent(n.op_type) && !known_node) {
      findings.push_back({FindingKind::kDataDependentShape,
                          true,
                          n.name,
                          {n.name},
                          fmt::format("{} '{}': output size depends on the data", n.op_type, n.name),
                          ReplaceAdvice(n.op_type)});
      continue;
    }
    // The worst shape input decides: data-dependent, then unbound shape chain, then foldable chain.
    int data_slot = -1, unbound_slot = -1, folds_slot = -1;
    for (size_t slot : ShapeInputs(n, opset)) {
      if (!n.HasInput(slot)) continue;
      const int v = n.inputs[slot];
      const bool shape = flow.shape_comp[static_cast<size_t>(v)] != 0;
      const bool known = IsKnown(flow, v);
      if (known && !shape) continue;  // a constant: nothing dynamic
      int& slot_of_kind = known ? folds_slot : (shape ? unbound_slot : data_slot);
      if (slot_of_kind < 0) slot_of_kind = static_cast<int>(slot);
    }
    if (data_slot >= 0) {
      findings.push_back(
          {FindingKind::kDataDependentShape,
           true,
           n.name,
           {n.name},
           fmt::format("input {} of {} '{}' is computed from data at run time", data_slot, n.op_type, n.name),
           ReplaceAdvice(n.op_type)});
    } else if (unbound_slot >= 0) {
      findings.push_back(
          {FindingKind::kShapeSubgraph, true, n.name,
           ChainNodes(g, flow, n.inputs[static_cast<size_t>(unbound_slot)]),
           fmt::format("input {} of {} '{}' is computed from unbound input shapes", unbound_slot, n.op_type,
                       n.name),
           "bind the input shapes (--input_shape / npugap --shape, --batch); the chain then folds"});
    } else if (folds_slot >= 0) {
      // ATC folds it once --input_shape binds the inputs; --write-static folds it here.
      findings.push_back({FindingKind::kShapeSubgraph, false, n.name,
                          ChainNodes(g, flow, n.inputs[static_cast<size_t>(folds_slot)]),
                          fmt::format("input {} of {} '{}' is computed from shapes; it folds to a constant",
                                      folds_slot, n.op_type, n.name),
                          "constant folding: npugap check --write-static OUT.onnx (ATC folds it too)"});
    }
  }
  return findings;
}

}  // namespace npugap::compat::internal
