// The high_performance implementations of vector kernels (ATC --op_select_implmode), as the
// emulator runs them: the op's formula as a chain of vector instructions in fp16, each step an
// ordinary FP32 kernel of the executor whose result is rounded to fp16 (a RoundToFormat node).
// CANN says only that high_precision improves fp16 accuracy "by Taylor expansion / Newton
// iteration" and that high_performance is the fastest fp16 implementation (ascend-facts §3.4);
// the kernels' code is not public. So each chain below is **assumed**: the textbook formula with
// one fp16 rounding per instruction, every instruction (exp, ln, reciprocal, +, ×, ÷) itself
// correctly rounded. high_precision is emulated as fp32 evaluation rounded once. The ops that use
// a chain are data: data/precision/vector_kernels.json "high_performance_formulas".
#include <fmt/format.h>

#include "analysis/precision/internal.h"

namespace npugap::analysis::precision::internal {

int NewEmulationValue(ir::Graph& g, const std::string& base, ir::ValueType type) {
  std::string name = base;
  for (int k = 1; g.FindValue(name) >= 0; ++k) name = base + "_" + std::to_string(k);
  ir::Value v;
  v.name = name;
  v.type = std::move(type);
  return g.AddValue(std::move(v));
}

std::set<std::string> HighPerformanceFormulaOps() { return {"Sigmoid", "Tanh", "Softplus", "Div"}; }

namespace {

class ChainBuilder {
 public:
  ChainBuilder(ir::Graph& g, const ir::Node& node, const FormulaRound& round)
      : g_(g), node_(node), round_(round) {}

  // A float32 scalar constant (fp16 immediates: 1 and 2 are exact).
  int Const(float v) {
    ir::ValueType t;
    t.dtype = ir::DType::kFloat32;
    t.dims = std::vector<ir::Dim>{};
    const int id = NewEmulationValue(g_, fmt::format("{}#c{}", node_.name, v), t);
    g_.values[static_cast<size_t>(id)].is_initializer = true;
    g_.initializers[id] = ir::Tensor::FromVector<float>({}, {v});
    return id;
  }
  // One instruction: the FP32 kernel `op`, then its result rounded to the low format.
  int Step(const std::string& op, std::vector<int> inputs, int like) {
    // A copy: adding values below may move g_.values.
    const ir::ValueType type = g_.values[static_cast<size_t>(like)].type;
    const std::string base = fmt::format("{}#{}{}", node_.name, op, steps_.size() / 2);
    const int raw = NewEmulationValue(g_, base + "#raw", type);
    ir::Node n;
    n.name = base;
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {raw};
    steps_.push_back(std::move(n));
    const int rounded = NewEmulationValue(g_, base, type);
    steps_.push_back(round_(raw, rounded, base + "@round"));
    return rounded;
  }
  std::vector<ir::Node> Take() { return std::move(steps_); }

 private:
  ir::Graph& g_;
  const ir::Node& node_;
  const FormulaRound& round_;
  std::vector<ir::Node> steps_;
};

}  // namespace

Expected<std::vector<ir::Node>> ExpandHighPerformance(ir::Graph& g, ir::Node& node,
                                                      const FormulaRound& round) {
  if (node.inputs.empty() || node.inputs[0] == ir::kNoValue)
    return Status::Internal(fmt::format("emulation: node '{}' has no input to expand", node.name));
  ChainBuilder b(g, node, round);
  const int x = node.inputs[0];
  if (node.op_type == "Sigmoid") {
    // 1 / (1 + exp(-x)): vmuls, vexp, vadds, vrec; the last step is the node itself.
    const int e = b.Step("Exp", {b.Step("Neg", {x}, x)}, x);
    const int d = b.Step("Add", {e, b.Const(1.f)}, x);
    node.op_type = "Reciprocal";
    node.inputs = {d};
  } else if (node.op_type == "Tanh") {
    // 1 - 2 / (exp(2x) + 1): finite for every x (exp overflowing to inf gives 1).
    const int e = b.Step("Exp", {b.Step("Mul", {x, b.Const(2.f)}, x)}, x);
    const int d = b.Step("Add", {e, b.Const(1.f)}, x);
    const int q = b.Step("Div", {b.Const(2.f), d}, x);
    node.op_type = "Sub";
    node.inputs = {b.Const(1.f), q};
  } else if (node.op_type == "Softplus") {
    // ln(1 + exp(x)).
    const int d = b.Step("Add", {b.Step("Exp", {x}, x), b.Const(1.f)}, x);
    node.op_type = "Log";
    node.inputs = {d};
  } else if (node.op_type == "Div") {
    // a / b as a * (1 / b): vrec, then vmul.
    if (node.inputs.size() != 2 || node.inputs[1] == ir::kNoValue)
      return Status::Internal(fmt::format("emulation: Div '{}' needs two inputs", node.name));
    const int r = b.Step("Reciprocal", {node.inputs[1]}, node.inputs[1]);
    node.op_type = "Mul";
    node.inputs = {x, r};
  } else {
    return Status::Internal(
        fmt::format("emulation: no high_performance formula for {} ('{}')", node.op_type, node.name));
  }
  node.attributes.clear();
  return b.Take();
}

int SiluInputSlot(const ir::Graph& g, const ir::Node& mul) {
  if (mul.op_type != "Mul" || mul.inputs.size() != 2) return -1;
  for (int k = 0; k < 2; ++k) {
    const int s = mul.inputs[static_cast<size_t>(k)], x = mul.inputs[static_cast<size_t>(1 - k)];
    if (s == ir::kNoValue || x == ir::kNoValue) continue;
    const ir::Value& sv = g.values[static_cast<size_t>(s)];
    if (sv.producer < 0 || sv.consumers.size() != 1 || sv.is_graph_output) continue;
    const ir::Node& sig = g.nodes[static_cast<size_t>(sv.producer)];
    if (sig.op_type == "Sigmoid" && sig.inputs.size() == 1 && sig.inputs[0] == x) return 1 - k;
  }
  return -1;
}

// PyTorch 1.13's silu on bf16 runs x / (1 + exp(-x)) on Vectorized<BFloat16>, whose every
// operation converts to float, computes and rounds back (vector_kernels.json "uniform_kernels").
Expected<std::vector<ir::Node>> ExpandTorchSilu(ir::Graph& g, ir::Node& mul, int x_slot,
                                                const FormulaRound& round) {
  if (x_slot < 0 || x_slot > 1 || mul.inputs.size() != 2)
    return Status::Internal(fmt::format("emulation: '{}' is not Mul(x, Sigmoid(x))", mul.name));
  ChainBuilder b(g, mul, round);
  const int x = mul.inputs[static_cast<size_t>(x_slot)];
  const int e = b.Step("Exp", {b.Step("Neg", {x}, x)}, x);
  const int d = b.Step("Add", {e, b.Const(1.f)}, x);
  mul.op_type = "Div";
  mul.inputs = {x, d};
  mul.attributes.clear();
  return b.Take();
}

}  // namespace npugap::analysis::precision::internal
