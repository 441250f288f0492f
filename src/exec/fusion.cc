#include "npugap/exec/fusion.h"

#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "npugap/exec/op_table.h"

namespace npugap::exec {
namespace {

using ir::Graph;
using ir::Node;

bool HasSubgraphs(const Graph& g) {
  for (const Node& n : g.nodes) {
    for (const auto& [name, a] : n.attributes) {
      if (a.kind == ir::Attribute::Kind::kGraph || a.kind == ir::Attribute::Kind::kGraphs) return true;
    }
  }
  return false;
}

// Runs every Constant node's kernel once and stores its output as an initializer.
Status FoldConstants(ir::Model& model, std::vector<bool>& removed, FusionStats& stats) {
  Graph& g = model.graph;
  const int64_t opset = model.DefaultOpset();
  const OpRow* row = OpTable::Default().Find("", "Constant", opset);
  if (row == nullptr) return Status::Ok();
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.op_type != "Constant" || !node.domain.empty() || node.outputs.size() != 1) continue;
    const int out = node.outputs[0];
    if (out == ir::kNoValue) continue;
    KernelContext ctx{node, opset, {}, {}};
    ctx.outputs.resize(1);
    NPUGAP_RETURN_IF_ERROR(row->kernel(ctx));
    g.initializers[out] = ctx.outputs[0];
    g.values[static_cast<size_t>(out)].is_initializer = true;
    removed[n] = true;
    ++stats.constants_folded;
  }
  return Status::Ok();
}

// The single consumer of a value when it has exactly one and is not a graph output.
std::optional<int> OnlyConsumer(const Graph& g, int value, const std::vector<bool>& removed) {
  const ir::Value& v = g.values[static_cast<size_t>(value)];
  if (v.is_graph_output || v.consumers.size() != 1 || removed[static_cast<size_t>(v.consumers[0])]) {
    return std::nullopt;
  }
  return v.consumers[0];
}

// A scalar float initializer's value (Clip bounds).
std::optional<float> ScalarConstant(const Graph& g, int value) {
  const ir::Tensor* t = g.Initializer(value);
  if (t == nullptr || t->numel() != 1 || t->dtype() != ir::DType::kFloat32) return std::nullopt;
  return t->data<float>()[0];
}

// The FusedConv "activation" / "activation_params" for an activation node, when supported.
std::optional<std::pair<std::string, std::vector<float>>> FusableActivation(const Graph& g, const Node& n,
                                                                            int64_t opset) {
  if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) return std::nullopt;
  if (n.op_type == "Relu" || n.op_type == "Sigmoid" || n.op_type == "Tanh") {
    if (n.inputs.size() != 1) return std::nullopt;
    return std::pair{n.op_type, std::vector<float>{}};
  }
  if (n.op_type == "LeakyRelu") return std::pair{n.op_type, std::vector<float>{n.GetFloat("alpha", 0.01f)}};
  if (n.op_type == "HardSigmoid") {
    return std::pair{n.op_type, std::vector<float>{n.GetFloat("alpha", 0.2f), n.GetFloat("beta", 0.5f)}};
  }
  if (n.op_type == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (opset < 11) {
      lo = n.GetFloat("min", lo);
      hi = n.GetFloat("max", hi);
    } else {
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        if (n.inputs[i] == ir::kNoValue) continue;
        const auto v = ScalarConstant(g, n.inputs[i]);
        if (!v) return std::nullopt;
        (i == 1 ? lo : hi) = *v;
      }
    }
    return std::pair{std::string("Clip"), std::vector<float>{lo, hi}};
  }
  return std::nullopt;
}

// True when two values certainly have the same shape at run time: equal ranks, and per dim the
// same static size or the same symbol.
bool SameShape(const Graph& g, int a, int b) {
  const auto& da = g.values[static_cast<size_t>(a)].type.dims;
  const auto& db = g.values[static_cast<size_t>(b)].type.dims;
  if (!da || !db || da->size() != db->size()) return false;
  for (size_t i = 0; i < da->size(); ++i) {
    const ir::Dim &x = (*da)[i], &y = (*db)[i];
    if (x.is_static() != y.is_static()) return false;
    if (x.is_static() ? x.value != y.value : (x.symbol.empty() || x.symbol != y.symbol)) return false;
  }
  return true;
}

// A float32 initializer of `n` elements, or null.
const ir::Tensor* FloatInitializer(const Graph& g, int value, int64_t n) {
  if (value == ir::kNoValue) return nullptr;
  const ir::Tensor* t = g.Initializer(value);
  return t && t->dtype() == ir::DType::kFloat32 && t->numel() == n ? t : nullptr;
}

int AddInitializer(Graph& g, const std::string& base, ir::Tensor t) {
  std::string name = base;
  for (int k = 1; g.FindValue(name) >= 0; ++k) name = base + "_" + std::to_string(k);
  ir::Value v;
  v.name = name;
  v.type.dtype = t.dtype();
  std::vector<ir::Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(ir::Dim::Static(d));
  v.type.dims = dims;
  v.is_initializer = true;
  const int id = g.AddValue(std::move(v));
  g.initializers[id] = std::move(t);
  return id;
}

// Conv -> BatchNormalization (inference form, constant parameters) becomes one Conv with
// W' = W * s and B' = (B - mean) * s + beta, s = scale / sqrt(var + epsilon), computed in double.
bool FoldBatchNormAt(Graph& g, size_t c, int64_t opset, std::vector<bool>& removed) {
  const Node& conv = g.nodes[c];
  if (conv.op_type != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 || conv.inputs.size() < 2) return false;
  const auto next = OnlyConsumer(g, conv.outputs[0], removed);
  if (!next) return false;
  const Node& bn = g.nodes[static_cast<size_t>(*next)];
  if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() != 5 || bn.outputs.size() != 1 ||
      bn.inputs[0] != conv.outputs[0] || (opset >= 14 && bn.GetInt("training_mode", 0) != 0) ||
      (opset < 9 && bn.GetInt("spatial", 1) == 0)) {
    return false;
  }
  const ir::Tensor* w = g.Initializer(conv.inputs[1]);
  if (!w || w->dtype() != ir::DType::kFloat32 || w->rank() < 3) return false;
  const int64_t m = w->dim(0), per_channel = w->numel() / std::max<int64_t>(m, 1);
  const ir::Tensor* b = conv.HasInput(2) ? FloatInitializer(g, conv.inputs[2], m) : nullptr;
  if (conv.HasInput(2) && !b) return false;
  const ir::Tensor *scale = FloatInitializer(g, bn.inputs[1], m), *beta = FloatInitializer(g, bn.inputs[2], m),
                   *mean = FloatInitializer(g, bn.inputs[3], m), *var = FloatInitializer(g, bn.inputs[4], m);
  if (!scale || !beta || !mean || !var) return false;
  const double epsilon = bn.GetFloat("epsilon", 1e-5f);
  ir::Tensor w2 = ir::Tensor::Empty(ir::DType::kFloat32, w->shape());
  ir::Tensor b2 = ir::Tensor::Empty(ir::DType::kFloat32, {m});
  for (int64_t o = 0; o < m; ++o) {
    const double s = scale->data<float>()[o] / std::sqrt(static_cast<double>(var->data<float>()[o]) + epsilon);
    for (int64_t i = 0; i < per_channel; ++i) {
      w2.data<float>()[o * per_channel + i] = static_cast<float>(w->data<float>()[o * per_channel + i] * s);
    }
    const double bias = b ? b->data<float>()[o] : 0.0;
    b2.data<float>()[o] = static_cast<float>((bias - mean->data<float>()[o]) * s + beta->data<float>()[o]);
  }
  const int bn_out = bn.outputs[0];
  const std::string base = conv.name.empty() ? "conv" : conv.name;
  const int w_id = AddInitializer(g, base + "_bn_folded_W", std::move(w2));
  const int b_id = AddInitializer(g, base + "_bn_folded_B", std::move(b2));
  Node& folded = g.nodes[c];
  folded.inputs.resize(3);
  folded.inputs[1] = w_id;
  folded.inputs[2] = b_id;
  folded.outputs[0] = bn_out;
  removed[static_cast<size_t>(*next)] = true;
  return true;
}

bool IsFloat32(const Graph& g, int value) { return g.values[static_cast<size_t>(value)].type.dtype == ir::DType::kFloat32; }

// Conv [-> Add] [-> activation] starting at node c; true when it rewrote something.
bool FuseConvAt(Graph& g, size_t c, int64_t opset, std::vector<bool>& removed, FusionStats& stats) {
  Node& conv = g.nodes[c];
  if (conv.op_type != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 || conv.inputs.size() < 2) return false;
  const int conv_out = conv.outputs[0];
  if (!IsFloat32(g, conv_out)) return false;
  std::vector<int> inputs = conv.inputs;
  inputs.resize(3, ir::kNoValue);
  int out = conv_out;
  size_t last = c;
  std::vector<size_t> absorbed;

  if (auto next = OnlyConsumer(g, out, removed)) {
    const Node& add = g.nodes[static_cast<size_t>(*next)];
    if (add.op_type == "Add" && add.domain.empty() && add.inputs.size() == 2 && add.inputs[0] != add.inputs[1]) {
      const int z = add.inputs[0] == out ? add.inputs[1] : add.inputs[0];
      if (SameShape(g, z, out) && IsFloat32(g, z)) {
        inputs.push_back(z);
        out = add.outputs[0];
        last = static_cast<size_t>(*next);
        absorbed.push_back(last);
      }
    }
  }
  std::optional<std::pair<std::string, std::vector<float>>> activation;
  if (auto next = OnlyConsumer(g, out, removed)) {
    const Node& act = g.nodes[static_cast<size_t>(*next)];
    if (act.inputs[0] == out && (activation = FusableActivation(g, act, opset))) {
      out = act.outputs[0];
      last = static_cast<size_t>(*next);
      absorbed.push_back(last);
    }
  }
  if (absorbed.empty()) return false;

  Node fused;
  fused.name = conv.name;
  fused.op_type = "FusedConv";
  fused.domain = "com.microsoft";
  fused.inputs = std::move(inputs);
  fused.outputs = {out};
  fused.attributes = conv.attributes;
  if (activation) {
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kString;
    a.s = activation->first;
    fused.attributes["activation"] = a;
    ir::Attribute p;
    p.kind = ir::Attribute::Kind::kFloats;
    p.floats = activation->second;
    fused.attributes["activation_params"] = p;
  }
  // The fused node takes the place of the last node it absorbed: Z is ready there.
  g.nodes[last] = std::move(fused);
  removed[c] = true;
  for (size_t a : absorbed) {
    if (a != last) removed[a] = true;
  }
  ++stats.convs_fused;
  stats.nodes_absorbed += static_cast<int>(absorbed.size());
  return true;
}

bool IsRank4Float(const Graph& g, int value) {
  if (value == ir::kNoValue) return false;
  const ir::ValueType& t = g.values[static_cast<size_t>(value)].type;
  return t.dtype == ir::DType::kFloat32 && t.dims && t.dims->size() == 4;
}

bool IsConv2d(const Graph& g, const Node& n) {
  const bool conv = (n.op_type == "Conv" && n.domain.empty()) ||
                    (n.op_type == "FusedConv" && n.domain == "com.microsoft");
  return conv && n.outputs.size() == 1 && !n.inputs.empty() && IsRank4Float(g, n.inputs[0]) &&
         IsRank4Float(g, n.outputs[0]);
}

// Values that can stay blocked: made by a 2-D convolution, read only by 2-D convolutions as X or
// Z, not a graph output. A convolution's Z and Y must then agree (its sum is elementwise).
std::vector<bool> BlockableValues(const Graph& g) {
  std::vector<bool> blocked(g.values.size(), false);
  for (const Node& n : g.nodes) {
    if (!IsConv2d(g, n)) continue;
    const int out = n.outputs[0];
    const ir::Value& v = g.values[static_cast<size_t>(out)];
    if (v.is_graph_output || v.consumers.empty()) continue;
    bool ok = true;
    for (int c : v.consumers) {
      const Node& consumer = g.nodes[static_cast<size_t>(c)];
      if (!IsConv2d(g, consumer)) ok = false;
      for (size_t i = 0; ok && i < consumer.inputs.size(); ++i) {
        if (consumer.inputs[i] == out && i != 0 && i != 3) ok = false;
      }
    }
    blocked[static_cast<size_t>(out)] = ok;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Node& n : g.nodes) {
      if (!IsConv2d(g, n) || n.inputs.size() < 4 || n.inputs[3] == ir::kNoValue) continue;
      const size_t z = static_cast<size_t>(n.inputs[3]), y = static_cast<size_t>(n.outputs[0]);
      if (blocked[z] != blocked[y]) {
        blocked[z] = blocked[y] = false;
        changed = true;
      }
    }
  }
  return blocked;
}

void SetFlag(Node& n, const char* name) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = 1;
  n.attributes[name] = a;
}

// Marks which convolution inputs and outputs are kept in oneDNN's nChw16c layout.
int MarkBlockedLayouts(Graph& g) {
  const std::vector<bool> blocked = BlockableValues(g);
  int count = 0;
  for (Node& n : g.nodes) {
    if (!IsConv2d(g, n)) continue;
    if (blocked[static_cast<size_t>(n.inputs[0])]) SetFlag(n, kBlockedXAttr);
    if (n.inputs.size() > 3 && n.inputs[3] != ir::kNoValue && blocked[static_cast<size_t>(n.inputs[3])]) {
      SetFlag(n, kBlockedZAttr);
    }
    if (blocked[static_cast<size_t>(n.outputs[0])]) {
      SetFlag(n, kBlockedYAttr);
      ++count;
    }
  }
  return count;
}

}  // namespace

Expected<ir::Model> FuseForExecution(const ir::Model& model, FusionStats* stats_out) {
  ir::Model fused = model;
  FusionStats stats;
  Graph& g = fused.graph;
  if (!HasSubgraphs(g)) {
    const int64_t opset = fused.DefaultOpset();
    std::vector<bool> removed(g.nodes.size(), false);
    NPUGAP_RETURN_IF_ERROR(FoldConstants(fused, removed, stats).WithContext(model.path));
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (!removed[n] && FoldBatchNormAt(g, n, opset, removed)) ++stats.batchnorms_folded;
    }
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (!removed[n]) FuseConvAt(g, n, opset, removed, stats);
    }
    std::vector<Node> kept;
    kept.reserve(g.nodes.size());
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (!removed[n]) kept.push_back(std::move(g.nodes[n]));
    }
    g.nodes = std::move(kept);
    g.RebuildLinks();
    stats.blocked_values = MarkBlockedLayouts(g);
    if (stats.convs_fused > 0 && !fused.opsets.count("com.microsoft")) fused.opsets["com.microsoft"] = 1;
  }
  if (stats_out) *stats_out = stats;
  return fused;
}

}  // namespace npugap::exec
