#include "resnet_chain.h"

#include <string>
#include <utility>
#include <vector>

namespace npugap::bench {
namespace {

int AddValue(ir::Graph& g, const std::string& name, const ir::Shape& shape) {
  ir::Value v;
  v.name = name;
  std::vector<ir::Dim> dims;
  for (int64_t d : shape) dims.push_back(ir::Dim::Static(d));
  v.type = {ir::DType::kFloat32, std::move(dims)};
  return g.AddValue(std::move(v));
}

int AddWeight(ir::Graph& g, const std::string& name, const ir::Shape& shape) {
  const int id = AddValue(g, name, shape);
  g.values[static_cast<size_t>(id)].is_initializer = true;
  g.initializers.emplace(id, ir::Tensor::Empty(ir::DType::kFloat32, shape));
  return id;
}

}  // namespace

ir::Model ResNetChain(const ResNetChainSpec& spec) {
  ir::Model m;
  m.opsets[""] = 13;
  ir::Graph& g = m.graph;
  const ir::Shape& act = spec.activation;
  const int64_t channels = act.at(1);
  const int64_t k = spec.kernel_side;
  int x = AddValue(g, "input", act);
  g.values[static_cast<size_t>(x)].is_graph_input = true;
  g.inputs.push_back(x);
  auto node = [&](const std::string& op, std::vector<int> inputs, int out) {
    ir::Node n;
    n.name = op + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    if (op == "Conv" && k > 1) {
      ir::Attribute pads;
      pads.kind = ir::Attribute::Kind::kInts;
      pads.ints = {k / 2, k / 2, k / 2, k / 2};
      n.attributes["pads"] = pads;
    }
    g.nodes.push_back(std::move(n));
  };
  for (int i = 0; g.nodes.size() < static_cast<size_t>(spec.nodes); ++i) {
    const std::string p = std::to_string(i);
    const int w = AddWeight(g, "w" + p, {channels, channels, k, k});
    const int c = AddValue(g, "conv" + p, act);
    node("Conv", {x, w}, c);
    std::vector<int> bn_in = {c};
    for (const char* s : {"_scale", "_bias", "_mean", "_var"})
      bn_in.push_back(AddWeight(g, "bn" + p + s, {channels}));
    const int b = AddValue(g, "bn" + p, act);
    node("BatchNormalization", bn_in, b);
    // The block's two last nodes, in either order; the skip joins the block's input x.
    const int mid = AddValue(g, (spec.relu_before_add ? "relu" : "add") + p, act);
    const int out = AddValue(g, (spec.relu_before_add ? "add" : "relu") + p, act);
    if (spec.relu_before_add) {
      node("Relu", {b}, mid);
      node("Add", {mid, x}, out);
    } else {
      node("Add", {b, x}, mid);
      node("Relu", {mid}, out);
    }
    x = out;
  }
  g.values[static_cast<size_t>(x)].is_graph_output = true;
  g.outputs.push_back(x);
  g.RebuildLinks();
  return m;
}

}  // namespace npugap::bench
